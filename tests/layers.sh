#!/usr/bin/env bash
# layers: interp/'s includes point the way DESIGN.md section 7 says, and no
# modules include each other. `make check` runs it; it prints each breach.
#   tests/layers.sh [INTERP_DIR]
set -u
top=${1:-$(dirname "$0")/../interp}
cd "$top" || exit 2

# what a layer may not include (a layer never includes cli/)
declare -A banned=(
	[plan]="host run phase cells results report"
	[cells]="host run phase results report"
	[phase]="host run report"
	[results]="host run phase report"
	[util]="cli plan cells run host phase results report"
	[host]="run report"
)
# report/ reads run directories only: results/, util/ and plan/ headers
report_may="report results util plan"

fail=0
edges=$(mktemp)
trap 'rm -f "$edges"' EXIT

for f in */*.c */*.h; do
	layer=${f%%/*}
	mod=${f%.*}
	while IFS= read -r inc; do
		ilayer=${inc%%/*}
		imod=${inc%.h}
		# the engines' headers (-Iengines) are below every layer
		[ "$ilayer" = "$inc" ] && [ -f "../engines/$inc" ] && continue
		if [ "$ilayer" = "$inc" ]; then
			echo "$f: includes \"$inc\" without its folder" \
			     "(\"layer/$inc\")"
			fail=1
			continue
		fi
		[ "$imod" != "$mod" ] && echo "$mod $imod" >> "$edges"
		if [ "$ilayer" = cli ] && [ "$layer" != cli ]; then
			echo "$f: includes $inc: nothing includes cli/"
			fail=1
		fi
		for b in ${banned[$layer]:-}; do
			if [ "$ilayer" = "$b" ]; then
				echo "$f: includes $inc: $layer/ may not" \
				     "include $b/"
				fail=1
			fi
		done
		if [ "$layer" = report ] &&
		   ! [[ " $report_may " == *" $ilayer "* ]]; then
			echo "$f: includes $inc: report/ reads only" \
			     "results/, util/ and plan/"
			fail=1
		fi
	done < <(sed -n 's/^#include "\([^"]*\)".*/\1/p' "$f")
done

# modules that include each other, directly or round a longer loop
sort -u "$edges" -o "$edges"
while read -r a b; do
	if grep -qx "$b $a" "$edges"; then
		[[ "$a" < "$b" ]] && echo "$a and $b include each other"
		fail=1
	fi
done < "$edges"
if ! tsort "$edges" > /dev/null 2> "$edges.loop"; then
	echo "a loop of includes:"
	sed -n 's/^tsort: //p' "$edges.loop" | grep -v 'input contains a loop'
	fail=1
fi
rm -f "$edges.loop"
[ "$fail" = 0 ] && echo "layers: interp/ includes point one way, no loops"
exit "$fail"
