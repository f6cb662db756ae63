#!/bin/bash
# One plan over N machines with GNU parallel: shard K/N on the K-th host.
#
#   SSHLOGIN=root@node1,root@node2,root@node3 ./parallel.sh plan.yaml 3
#   ./parallel.sh -D size=1G --only type=xfs plan.yaml 3
#
# is this line (each host needs fsplan installed; parallel copies the plan
# and what it uses over, runs one shard per host and brings its run
# directory back):
#
#   parallel --sshlogin root@node1,root@node2,root@node3 -j1 \
#     --basefile DIR/./plan.yaml [--basefile DIR/./mine.lua ...] \
#     --return shard-{} --cleanup \
#     'fsplan run plan.yaml --shard {}/3 -o shard-{} -q || [ $? -eq 1 ]' ::: 1 2 3
#   fsplan merge shard-1 shard-2 shard-3 -o merged
#
# -D name=value and --only FILTER (each as often as needed) go to every
# shard's fsplan run; shards split by config, so a shard that holds none
# of the configs --only keeps is not run (fsplan expand tells). What is
# shipped besides the plan: the modules its
# phases use by path (use: ./mine.lua, ../examples/randread.lua) and the
# exec/ scripts beside them, its phases' files: lists, and the files
# beside the plan that its exec commands name (fio myjob.fio), each at
# the same place relative to the plan. `parallel.sh --files PLAN` lists
# them (python3-yaml reads the plan).
#
# Without SSHLOGIN the N shards run here, side by side, as local jobs: on
# fewer cores than shards they take turns on the CPU, and each shard's
# figures are not those of a machine of its own (a warning says so).
# Run it from the directory the shards and merged/ should land in.
set -eu

usage() {
	echo "usage: parallel.sh [-D name=value]... [--only FILTER]... PLAN N" >&2
	echo "       parallel.sh --files PLAN" >&2
	exit 2
}

# The files PLAN uses, relative to its directory, one a line ("x.lua",
# "../examples/randread.lua"); the plan itself first.
plan_files() {
	/usr/bin/python3 - "$1" <<'EOF'
import os, re, shlex, sys
import yaml

plan = sys.argv[1]
top = os.path.dirname(os.path.abspath(plan))
try:
    with open(plan) as f:
        doc = yaml.safe_load(f) or {}
except (OSError, yaml.YAMLError) as e:
    sys.exit("parallel.sh: %s: %s" % (plan, e))
out = [os.path.basename(plan)]

def add(rel, base=top):
    path = os.path.normpath(os.path.join(base, rel))
    name = os.path.relpath(path, top)
    if os.path.isfile(path) and name not in out:
        out.append(name)
        return path
    return None

for ph in doc.get("phases") or []:
    if not isinstance(ph, dict):
        continue
    use = str(ph.get("use") or "")
    if "/" in use or use.endswith(".lua"):
        path = add(use)
        # an exec module's script: exec = 'name' in exec/ beside it
        if path:
            with open(path) as f:
                m = re.search(r"""\bexec\s*=\s*["']([^"']+)["']""",
                              f.read())
            if m:
                add(os.path.join("exec", m.group(1)),
                    os.path.dirname(path))
    for name in ph.get("files") or []:
        add(str(name))
    try:
        words = shlex.split(str(ph.get("exec") or ""))
    except ValueError:
        words = str(ph.get("exec") or "").split()
    for w in words:
        if "${" not in w and not w.startswith("-"):
            add(w)
for name in out:
    print(name)
EOF
}

if [ "${1:-}" = --files ]; then
	[ $# -eq 2 ] || usage
	plan_files "$2"
	exit
fi

args=()
filtered=0
while [ $# -gt 0 ]; do
	case $1 in
	-D | --only)
		[ $# -ge 2 ] || usage
		[ "$1" = --only ] && filtered=1
		args+=("$1" "$2")
		shift 2 ;;
	-D?* | --only=*)
		[ "${1#--only=}" != "$1" ] && filtered=1
		args+=("$1")
		shift ;;
	-*)
		usage ;;
	*)
		break ;;
	esac
done
[ $# -eq 2 ] || usage
plan=$1
n=$2
fsplan=${FSPLAN:-fsplan}
shards=$(seq 1 "$n")
# Shards split by config: with --only, a shard may hold none of the
# configs kept, and fsplan run refuses a filter that matches nothing.
# Those shards are left out (the merge is partial, as with any --only).
if [ "$filtered" = 1 ]; then
	"$fsplan" expand "$plan" ${args[@]+"${args[@]}"} > /dev/null || exit 2
	kept=""
	for k in $shards; do
		cells=$("$fsplan" expand "$plan" ${args[@]+"${args[@]}"} \
			--shard "$k/$n" 2> /dev/null | grep -c .) || true
		if [ "${cells:-0}" -gt 0 ]; then
			kept+=" $k"
		else
			echo "parallel.sh: shard $k/$n holds no cell the" \
				"filters keep: not run" >&2
		fi
	done
	[ -n "$kept" ] || exit 2	# expand said: no cell matches
	shards=$kept
fi
n_run=$(echo $shards | wc -w)
# the options, quoted once for the shell each job line runs in
opts=""
for a in ${args[@]+"${args[@]}"}; do
	opts+=" $(printf '%q' "$a")"
done

if [ -n "${SSHLOGIN:-}" ]; then
	dir=$(cd "$(dirname "$plan")" && pwd)
	files=$(plan_files "$plan")
	# the common directory of the plan and what it uses: the root of
	# the tree the hosts get ("/./": parallel keeps what follows)
	root=$dir
	while read -r f; do
		p=$(realpath -m "$dir/$f")
		while [ "$root" != / ] && [ "${p#"$root"/}" = "$p" ]; do
			root=$(dirname "$root")
		done
	done <<< "$files"
	[ "$root" != / ] || root=""
	base=()
	while read -r f; do
		p=$(realpath -m "$dir/$f")
		base+=(--basefile "$root/./${p#"$root"/}")
	done <<< "$files"
	rel=$(realpath -m "$dir/$(basename "$plan")")
	rel=${rel#"$root"/}
	parallel --sshlogin "$SSHLOGIN" -j1 "${base[@]}" \
		--return 'shard-{}' --cleanup \
		"$fsplan run $(printf '%q' "$rel")$opts --shard {}/$n -o shard-{} -q || [ \$? -eq 1 ]" \
		::: $shards
else
	cores=$(nproc)
	if [ "$n_run" -gt "$cores" ]; then
		echo "parallel.sh: warning: $n_run local jobs on $cores cores:" \
			"the shards take turns on the CPU, and their figures" \
			"are not those of $n_run machines" >&2
	fi
	parallel -j "$n_run" \
		"$fsplan run $(printf '%q' "$plan")$opts --shard {}/$n -o shard-{} -q || [ \$? -eq 1 ]" \
		::: $shards
fi
"$fsplan" merge $(printf 'shard-%s ' $shards) -o merged
