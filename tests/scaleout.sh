#!/usr/bin/env bash
# scaleout: a plan as 3 shards through examples/scale-out, under a real
# single-node Slurm (munged, slurmctld and slurmd started here as root with
# a config in WORKDIR, stopped on every path) or GNU parallel's local jobs;
# k8s checks the Kubernetes manifest (tests/k8scheck.py: no cluster here).
# filters: parallel.sh's local jobs with -D count=2 --only bs=4k, then in
# WORKDIR/filters/one with --only mount=size=8M (one shard of 3); ssh: its
# ssh mode to hosts h1 and h2, which an ssh of its own makes directories
# WORKDIR/ssh/remote/h1 and h2 here (what parallel ships lands there).
#   tests/scaleout.sh slurm|parallel|filters|ssh|k8s PLAN WORKDIR
#   tests/scaleout.sh stop WORKDIR    (what a killed test left running)
# FSPLAN_BIN is the fsplan to run. Leaves WORKDIR/<how>/merged. Exit 0
# done, 77 skipped (the reason on stderr), anything else failed.
set -u
how=$1

# The daemons by their pid files in the working directory, job steps too.
stop() {
	local pid ours=0
	[ -f slurmd.pid ] && ours=1
	[ -f slurmctld.pid ] && scancel --quiet --full \
		--jobname=fsplan-shard,fsplan-merge 2> /dev/null
	for d in slurmd slurmctld munged; do
		[ -f "$d.pid" ] || continue
		pid=$(cat "$d.pid")
		kill "$pid" 2> /dev/null
		for _ in $(seq 50); do
			kill -0 "$pid" 2> /dev/null || break
			sleep 0.1
		done
		kill -KILL "$pid" 2> /dev/null
		rm -f "$d.pid"
	done
	# job steps outlive slurmd: with a slurmd of ours, they are ours
	# (none ran on this machine when it started)
	[ "$ours" = 1 ] || return 0
	for pid in $(pgrep -x slurmstepd); do
		kill -KILL "$pid" 2> /dev/null
	done
	return 0
}

if [ "$how" = stop ]; then
	cd "$2/slurm" 2> /dev/null || exit 0
	export SLURM_CONF=$PWD/slurm.conf
	stop
	exit 0
fi

plan=$(realpath "$2")
work=$3/$how
here=$(cd "$(dirname "$0")" && pwd)
examples=$here/../examples/scale-out
export FSPLAN=${FSPLAN_BIN:?FSPLAN_BIN names the fsplan to test}

skip() {
	echo "skipped: $*" >&2
	exit 77
}

mkdir -p "$work" || exit 1
cd "$work" || exit 1

if [ "$how" = k8s ]; then
	/usr/bin/python3 -c 'import yaml' 2> /dev/null ||
		skip "python3-yaml is not installed (make deps)"
	exec /usr/bin/python3 "$here/k8scheck.py" \
		"$examples/k8s-indexed-job.yaml"
fi

if [ "$how" = parallel ]; then
	command -v parallel > /dev/null ||
		skip "GNU parallel is not installed (make deps)"
	exec "$examples/parallel.sh" "$plan" 3 < /dev/null
fi

if [ "$how" = filters ]; then
	command -v parallel > /dev/null ||
		skip "GNU parallel is not installed (make deps)"
	"$examples/parallel.sh" -D count=2 --only bs=4k "$plan" 3 \
		< /dev/null || exit
	# the first config only: shards 2 and 3 hold none of it
	mkdir -p one && cd one &&
		exec "$examples/parallel.sh" --only mount=size=8M "$plan" 3 \
		< /dev/null
fi

if [ "$how" = ssh ]; then
	command -v parallel > /dev/null ||
		skip "GNU parallel is not installed (make deps)"
	command -v rsync > /dev/null || skip "rsync is not installed"
	/usr/bin/python3 -c 'import yaml' 2> /dev/null ||
		skip "python3-yaml is not installed (make deps)"
	mkdir -p remote || exit 1
	cat > ssh <<'EOF'
#!/bin/bash
# ssh to a host that is a directory: FAKE_REMOTE/HOST, its home; HOME
# and SHELL set as sshd sets them (GNU parallel's worker runs the job
# with $SHELL, and a CI job may have none)
while [ $# -gt 0 ]; do
	case $1 in
	-l | -p | -o | -i | -S | -F) shift 2 ;;
	--) shift; break ;;
	-*) shift ;;
	*) break ;;
	esac
done
host=$1
shift
[ "${1:-}" = -- ] && shift
mkdir -p "$FAKE_REMOTE/$host" && cd "$FAKE_REMOTE/$host" &&
	HOME=$PWD SHELL=/bin/bash exec bash -c "$*"
EOF
	chmod 755 ssh || exit 1
	FAKE_REMOTE=$work/remote PARALLEL_SSH=$work/ssh SSHLOGIN=h1,h2 \
		exec "$examples/parallel.sh" "$plan" 2 < /dev/null
fi

for tool in munged slurmctld slurmd sbatch squeue scancel sinfo; do
	command -v "$tool" > /dev/null ||
		skip "$tool is not installed (make deps: slurm-wlm, munge)"
done
# daemons of someone else's are not ours to use or to stop
for d in munged slurmctld slurmd slurmstepd; do
	pgrep -x "$d" > /dev/null &&
		skip "a $d is already running on this machine"
done

# munged wants every directory up to its socket searchable by all
chmod 711 "$3" "$work" || exit 1
mkdir -p state spool results || exit 1
conf=$work/slurm.conf
export SLURM_CONF=$conf

trap stop EXIT
trap 'exit 143' TERM INT

dd if=/dev/urandom of=munge.key bs=1024 count=1 status=none &&
	chmod 400 munge.key || exit 1
if ! munged --key-file="$work/munge.key" --socket="$work/munge.sock" \
	--pid-file="$work/munged.pid" --log-file="$work/munged.log" \
	--seed-file="$work/munged.seed"; then
	tail -n 3 munged.log >&2
	skip "munged cannot start"
fi

host=$(hostname -s)
port=$((20000 + RANDOM % 20000))
cat > "$conf" <<EOF
ClusterName=fsplantest
SlurmctldHost=$host(127.0.0.1)
SlurmctldPort=$port
SlurmdPort=$((port + 1))
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
CredType=cred/munge
AuthInfo=socket=$work/munge.sock
StateSaveLocation=$work/state
SlurmdSpoolDir=$work/spool
SlurmctldPidFile=$work/slurmctld.pid
SlurmdPidFile=$work/slurmd.pid
SlurmctldLogFile=$work/slurmctld.log
SlurmdLogFile=$work/slurmd.log
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
JobCompType=jobcomp/none
MpiDefault=none
SchedulerType=sched/builtin
SelectType=select/cons_tres
SelectTypeParameters=CR_Core
ReturnToService=2
SlurmdParameters=config_overrides
NodeName=$host NodeAddr=127.0.0.1 CPUs=2 State=UNKNOWN
PartitionName=test Nodes=$host Default=YES MaxTime=INFINITE State=UP
EOF

slurmctld -f "$conf" || { tail -n 3 slurmctld.log >&2; skip "slurmctld cannot start"; }
slurmd -f "$conf" || { tail -n 3 slurmd.log >&2; skip "slurmd cannot start"; }
for _ in $(seq 100); do
	[ "$(sinfo -h -o %T 2> /dev/null)" = idle ] && break
	sleep 0.2
done
if [ "$(sinfo -h -o %T 2> /dev/null)" != idle ]; then
	tail -n 3 slurmctld.log slurmd.log >&2
	skip "the node did not come up idle in 20 s"
fi

merge_job=$(RESULTS=$work/results PLAN=$plan "$examples/submit-slurm.sh" 3) ||
	exit 1
for _ in $(seq 240); do
	[ -z "$(squeue -h 2> /dev/null)" ] && break
	sleep 0.25
done
if [ -n "$(squeue -h)" ]; then
	echo "the jobs did not finish in 60 s:" >&2
	squeue >&2
	exit 1
fi
for f in results/shard-*.out results/merge.out; do
	echo "== $f" >&2
	cat "$f" >&2
done
echo "merge job $merge_job: $(ls results/merged 2>&1 | tr '\n' ' ')" >&2
[ -f results/merged/manifest.json ] || exit 1
mv results/merged merged
