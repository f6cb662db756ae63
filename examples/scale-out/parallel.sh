#!/bin/bash
# One plan over N machines with GNU parallel: shard K/N on the K-th host.
#
#   SSHLOGIN=root@node1,root@node2,root@node3 ./parallel.sh plan.yaml 3
#
# is this line (each host needs fsplan installed; parallel copies the plan
# over, runs one shard per host and brings its run directory back):
#
#   parallel --sshlogin root@node1,root@node2,root@node3 -j1 \
#     --basefile plan.yaml --return shard-{} --cleanup \
#     'fsplan run plan.yaml --shard {}/3 -o shard-{} -q || [ $? -eq 1 ]' ::: 1 2 3
#   fsplan merge shard-1 shard-2 shard-3 -o merged
#
# Without SSHLOGIN the N shards run here, side by side, as local jobs.
# Run it from the directory the shards and merged/ should land in.
set -eu

plan=${1:?usage: parallel.sh PLAN N}
n=${2:?usage: parallel.sh PLAN N}
fsplan=${FSPLAN:-fsplan}
shards=$(seq 1 "$n")

if [ -n "${SSHLOGIN:-}" ]; then
	base=$(basename "$plan")
	parallel --sshlogin "$SSHLOGIN" -j1 --basefile "$plan" \
		--return 'shard-{}' --cleanup \
		"$fsplan run $base --shard {}/$n -o shard-{} -q || [ \$? -eq 1 ]" \
		::: $shards
else
	parallel -j "$n" \
		"$fsplan run '$plan' --shard {}/$n -o shard-{} -q || [ \$? -eq 1 ]" \
		::: $shards
fi
"$fsplan" merge $(printf 'shard-%s ' $shards) -o merged
