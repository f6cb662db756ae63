#!/bin/bash
# Queue a plan as N Slurm array tasks and the merge after them.
#   PLAN=plans/quick.yaml RESULTS=/shared/fsplan/run1 ./submit-slurm.sh 4
# Prints the merge job's id; RESULTS/merged is the joined run when it ends.
set -eu

n=${1:?usage: submit-slurm.sh N (the number of shards)}
here=$(cd "$(dirname "$0")" && pwd)
export PLAN=${PLAN:-plans/quick.yaml}
export RESULTS=${RESULTS:-$PWD/results/fsplan-$(date +%Y%m%d-%H%M%S)}
export SHARDS=$n
mkdir -p "$RESULTS"

array=$(sbatch --parsable --export=ALL --array="1-$n" \
	--output="$RESULTS/shard-%a.out" "$here/slurm-array.sbatch")
# afterany: a shard whose phases failed still records them; merge refuses
# shards that are missing or do not match, with the reason
sbatch --parsable --export=ALL --dependency="afterany:${array%%;*}" \
	--output="$RESULTS/merge.out" "$here/slurm-merge.sbatch"
