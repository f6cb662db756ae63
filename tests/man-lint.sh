#!/bin/sh
# man-lint: every man page in man/ renders without a warning, and fsplan(1)
# documents every long option that `fsplan help COMMAND` prints.
#
#   sh tests/man-lint.sh [MANDIR]        (make check runs it)
#
# groff -ww checks the page as man(1) formats it, at several terminal
# widths; mandoc -Tlint, when it is installed, adds its stricter checks.
# Without groff the check cannot run: it says so and skips. FSPLAN_BIN,
# when set, is the fsplan whose help texts the page must cover.

case $0 in */*) here=${0%/*} ;; *) here=. ;; esac
dir=${1:-$here/../man}
fail=0
pages=0

if ! command -v groff >/dev/null 2>&1; then
	echo "man-lint: SKIP: groff is not installed (apt-get install groff-base)"
	exit 0
fi
if command -v mandoc >/dev/null 2>&1; then
	mandoc=mandoc
else
	mandoc=
	echo "man-lint: mandoc is not installed: groff's checks only"
fi

for page in "$dir"/*.[1-9]; do
	[ -f "$page" ] || continue
	pages=$((pages + 1))
	name=$(basename "$page")
	sect=${name##*.}
	# .TH names the page as its file does: fsplan-plan.5 is FSPLAN-PLAN 5
	title=$(echo "${name%.*}" | tr '[:lower:]' '[:upper:]')
	out=$( {
		groff -ww -z -man "$page"
		for width in 60 80 120; do
			groff -ww -man -Tutf8 -rLL=${width}n "$page" >/dev/null
		done
		if [ -n "$mandoc" ]; then
			mandoc -Tlint "$page"
		fi
		grep -q "^\.TH $title $sect " "$page" ||
			echo "$page: .TH is not '$title $sect'"
	} 2>&1 | awk '!seen[$0]++')
	if [ -n "$out" ]; then
		echo "man-lint: FAIL: $page"
		echo "$out"
		fail=1
	else
		echo "man-lint: ok: $page"
	fi
done

if [ "$pages" -eq 0 ]; then
	echo "man-lint: FAIL: no man pages in $dir"
	exit 1
fi

# Every --option of every command's help is in fsplan(1) (as \-\-option).
if [ -n "$FSPLAN_BIN" ] && [ -f "$dir/fsplan.1" ]; then
	cmds=$("$FSPLAN_BIN" help | awk '/^commands:/ { on = 1; next }
		on && /^  [a-z]/ { print $1 } on && /^$/ { exit }')
	if [ -z "$cmds" ]; then
		echo "man-lint: FAIL: '$FSPLAN_BIN help' lists no commands"
		fail=1
	fi
	for c in $cmds; do
		if ! grep -q "^\.B.* \"*$c\b" "$dir/fsplan.1"; then
			echo "man-lint: FAIL: fsplan.1 does not document" \
			     "the command '$c'"
			fail=1
		fi
		for o in $("$FSPLAN_BIN" help "$c" |
			   grep -o -- '--[a-z][a-z-]*' | sort -u); do
			esc=$(echo "$o" | sed 's/-/\\\\-/g')
			if ! grep -q -- "$esc" "$dir/fsplan.1"; then
				echo "man-lint: FAIL: fsplan.1 does not" \
				     "document 'fsplan $c $o'"
				fail=1
			fi
		done
	done
fi

exit $fail
