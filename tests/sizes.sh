#!/bin/bash
# sizes.sh: no production C file (interp/*/*.c, engines/*.c) over 600
# lines and no function over 80, unless it says why it must be.
#
# Usage: bash tests/sizes.sh [--counts] [TOP]
#   TOP is the tree's top directory (default: the one this script is in).
#   Prints each breach as file:line: ... and exits 1 when there is one.
#   --counts prints the tree's structure counts instead (issue 28's note)
#   and exits 0.
#
# A function's length is its body in lines: those between the `{` at
# column 0 and the `}` at column 0 that ends it (kernel style); its name
# is the identifier before the first `(` of the signature above the `{`.
#
# The reason: a file or function that is right to be long says why, in a
# comment line that starts with the word `size:` and a reason on one line:
#   /* size: one state machine, read top to bottom */
# (or ` * size: ...` inside a longer comment). For a file it is a line of
# the file's first comment; for a function it is the line just above its
# signature (the last line of its comment, or a line of its own).

FILE_LIMIT=600
FUNC_LIMIT=80

counts=0
if [ "$1" = "--counts" ]; then
	counts=1
	shift
fi
top=${1:-$(cd "$(dirname "$0")/.." && pwd)}
if [ ! -d "$top/interp" ]; then
	echo "sizes.sh: $top has no interp/ directory" >&2
	exit 2
fi
cd "$top" || exit 2

# the production C files, and those with the headers (the counts look
# at both), relative to top
shopt -s nullglob
SOURCES=(interp/*/*.c engines/*.c)
CODE=(interp/*/*.c interp/*/*.h engines/*.c engines/*.h)
HEADERS=(interp/*/*.h engines/*.h)

# Every function of the files given: "file line name length excused
# static", one a line (excused: 1 when the line above its signature gives
# a size: reason; static: 1 when the signature begins with static).
functions() {
	awk '
	FNR == 1 { delete text; open = 0 }
	{ text[FNR] = $0 }
	/^\{/ {
		s = FNR - 1
		while (s > 1 && text[s] ~ /^[ \t]/)
			s--
		sig = ""
		for (i = s; i < FNR; i++)
			sig = sig " " text[i]
		name = "?"
		if (match(sig, /[A-Za-z_][A-Za-z0-9_]*[ \t]*\(/)) {
			name = substr(sig, RSTART, RLENGTH)
			sub(/[ \t]*\($/, "", name)
		}
		excused = (s > 1 && text[s - 1] ~ \
			   /^[ \t]*(\/\*+|\*)[ \t]*size:[ \t]*[^ \t]/) ? 1 : 0
		private = (text[s] ~ /^static[ \t]/) ? 1 : 0
		open = FNR
		next
	}
	/^\}/ && open {
		print FILENAME, s, name, FNR - open - 1, excused, private
		open = 0
	}
	' "$@"
}

# Succeeds when the file's first comment gives a size: reason.
file_excused() {
	awk '
	NR == 1 && !/^[ \t]*\/\*/ { exit }
	/^[ \t]*(\/\*+|\*)[ \t]*size:[ \t]*[^ \t]/ { found = 1; exit }
	/\*\// { exit }
	END { exit !found }
	' "$1"
}

# The files over the limit: "file lines excused", one a line.
long_files() {
	local f n ex
	for f in "${SOURCES[@]}"; do
		n=$(wc -l < "$f")
		[ "$n" -gt "$FILE_LIMIT" ] || continue
		ex=0
		file_excused "$f" && ex=1
		echo "$f $n $ex"
	done
}

breaches() {
	local bad=0 file line name len ex
	while read -r file len ex; do
		[ "$ex" = 1 ] && continue
		echo "$file:1: file is $len lines (limit $FILE_LIMIT)"
		bad=1
	done < <(long_files)
	while read -r file line name len ex _; do
		if [ "$len" -gt "$FUNC_LIMIT" ] && [ "$ex" = 0 ]; then
			echo "$file:$line: function $name is $len lines" \
			     "(limit $FUNC_LIMIT)"
			bad=1
		fi
	done < <(functions "${SOURCES[@]}")
	return $bad
}

# grep -E's matches in files, counted (0 when none)
count() {
	local re=$1
	shift
	grep -Eo -- "$re" "$@" /dev/null | wc -l
}

row() {
	printf '%-56s %s\n' "$1" "$2"
}

print_counts() {
	local fns below text html
	fns=$(functions "${SOURCES[@]}")
	row "files over $FILE_LIMIT lines (interp/*/*.c engines/*.c)" \
	    "$(long_files | wc -l)"
	row "files over $FILE_LIMIT lines without a size: reason" \
	    "$(long_files | awk '!$3' | wc -l)"
	row "functions over $FUNC_LIMIT lines" \
	    "$(awk -v l=$FUNC_LIMIT '$4 > l' <<< "$fns" | wc -l)"
	row "functions over $FUNC_LIMIT lines without a size: reason" \
	    "$(awk -v l=$FUNC_LIMIT '$4 > l && !$5' <<< "$fns" | wc -l)"
	# a `char *err` or `char *why` parameter (not const char *): the
	# caller's buffer a failure is written into; headers only, so each
	# exported prototype counts once
	row "prototypes with char *err / char *why (headers)" \
	    "$(count '(^|[^t] |[(,])char \*(err|why)\b' "${HEADERS[@]}")"
	# definitions and static prototypes in .c, prototypes in headers
	row "const char **why parameters (.c and .h)" \
	    "$(count 'const char \*\*why\b' "${CODE[@]}")"
	# static functions named fail, fail_X, failX or X_fail (defined)
	row "private fail helpers (static fail*, *_fail)" \
	    "$(awk '$6 && $3 ~ /^fail|_fail$/' <<< "$fns" | wc -l)"
	mapfile -t below < <(printf '%s\n' "${CODE[@]}" |
			     grep -v '^interp/cli/')
	row "fprintf(stderr below interp/cli/ (interp/, engines/)" \
	    "$(count 'fprintf\(stderr' "${below[@]}")"
	row "fixed char arrays: char NAME[N] (interp/, engines/)" \
	    "$(count '\bchar [A-Za-z_][A-Za-z0-9_]*\[[^]]+\]' "${CODE[@]}")"
	row "snprintf calls (interp/, engines/)" \
	    "$(count '\bsnprintf\(' "${CODE[@]}")"
	# a study table's writers in report/: its text printer, an exported
	# function that takes the stream then the results (FILE *f, const
	# struct res_run / results ...), and its html grid builder, an
	# exported NAME_grids(...)
	text=$(grep -hE \
	       '^[a-z][^(]* \**[a-z_]+\(FILE \*[a-z]+, const struct res' \
	       interp/report/*.c /dev/null | grep -vc '^static')
	html=$(grep -hE '^[a-z][^(]* \**[a-z_]+_grids\(' \
	       interp/report/*.c /dev/null | grep -vc '^static')
	row "table writers in report/ (text printers + html grids)" \
	    "$((text + html)) ($text + $html)"
}

if [ "$counts" = 1 ]; then
	print_counts
	exit 0
fi
breaches
