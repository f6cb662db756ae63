#!/usr/bin/env bash
# browser: an HTML page rendered by headless Chromium as an unprivileged
# user — the DOM it built, a screenshot, and what it logged to its console.
#   tests/browser.sh PAGE OUT [USER]
# Writes OUT.dom, OUT.png and OUT.console (the page's console messages,
# one a line; empty when there were none). With FSPLAN_BROWSER_CHARTS=1,
# also OUT.charts: the DOM of a copy of the page with a script that gives
# every chart (svg.fsplan-chart) an attribute data-drawn="L D WxH": its
# lines (path.fsplan-series, polyline.fsplan-line), how many of them the
# browser laid out with a length and a box, the chart's size on screen;
# and <body> data-page="W S": the window's width and the page's (wider:
# the page scrolls sideways, a table or chart did not fit), in a window
# FSPLAN_BROWSER_WIDTH pixels wide (1200 unless set; 400 is a phone).
# Exit 0 rendered, 77 no chromium here, 1 it did not render. Every process it starts is gone
# when it returns, whatever happened.
set -u
page=$1 out=$2 user=${3:-nobody}

if ! command -v chromium > /dev/null; then
	echo "browser.sh: no chromium (make deps installs it)" >&2
	exit 77
fi
# FSPLAN_BROWSER_TAG names the profile (fsplan-browser-TAG.XXXXXX), so a
# test can look for its own browser's processes beside another test's
prof=$(mktemp -d "/tmp/fsplan-browser${FSPLAN_BROWSER_TAG:+-$FSPLAN_BROWSER_TAG}.XXXXXX") || exit 1
pids=()

# The browser's processes: its process group, then anything left that
# names this profile (a zygote that moved to a session of its own).
stop() {
	local p
	for p in "${pids[@]}"; do
		kill -KILL -- "-$p" 2> /dev/null
		wait "$p" 2> /dev/null
	done
	for p in $(pgrep -f -- "$prof" 2> /dev/null); do
		kill -KILL "$p" 2> /dev/null
	done
	rm -rf "$prof"
}
trap stop EXIT
trap 'exit 1' INT TERM

cp "$page" "$prof/page.html" || exit 1
chmod 644 "$prof/page.html"
run_as=()
if [ "$(id -u)" = 0 ]; then
	chown "$user" "$prof" || exit 1
	run_as=(setpriv --reuid="$user" --regid="$(id -g "$user")"
		--clear-groups --)
fi
chmod 700 "$prof"

# chromium ARGS...: in a session of its own, at most 60 s; its log on
# stderr, to $prof/log.
chromium_run() {
	setsid timeout -k 5 60 "${run_as[@]}" env HOME="$prof" \
		chromium --headless --disable-gpu --no-first-run \
		--user-data-dir="$prof/profile" --enable-logging=stderr \
		--v=0 --hide-scrollbars $sandbox "$@" 2>> "$prof/log" &
	pids+=($!)
	wait $!
}

sandbox=
chromium_run --dump-dom "file://$prof/page.html" > "$out.dom"
rc=$?
if [ $rc != 0 ] && grep -qi sandbox "$prof/log"; then
	# no user namespaces here: the sandbox cannot start, even unprivileged
	sandbox=--no-sandbox
	chromium_run --dump-dom "file://$prof/page.html" > "$out.dom"
	rc=$?
fi
if [ $rc != 0 ] || ! [ -s "$out.dom" ]; then
	echo "browser.sh: chromium --dump-dom failed (exit $rc):" >&2
	tail -5 "$prof/log" >&2
	exit 1
fi
# what the page itself logged: console calls, script errors, loads
grep -a ':CONSOLE' "$prof/log" > "$out.console"
: > "$prof/log"
chromium_run --window-size=1200,2400 --screenshot="$prof/shot.png" \
	"file://$prof/page.html" > /dev/null
rc=$?
if [ $rc != 0 ] || ! [ -s "$prof/shot.png" ]; then
	echo "browser.sh: chromium --screenshot failed (exit $rc):" >&2
	tail -5 "$prof/log" >&2
	exit 1
fi
grep -a ':CONSOLE' "$prof/log" >> "$out.console"
cp "$prof/shot.png" "$out.png" || exit 1
[ "${FSPLAN_BROWSER_CHARTS:-0}" = 1 ] || exit 0

# the charts as the browser laid them out (the page itself has no script)
measure='<script>
for (const s of document.querySelectorAll("svg.fsplan-chart")) {
	let lines = 0, drawn = 0;
	for (const p of s.querySelectorAll(
		"path.fsplan-series, polyline.fsplan-line")) {
		const b = p.getBBox();
		lines++;
		if (p.getTotalLength() > 0 && (b.width > 0 || b.height > 0))
			drawn++;
	}
	const r = s.getBoundingClientRect();
	s.setAttribute("data-drawn", lines + " " + drawn + " " +
		Math.round(r.width) + "x" + Math.round(r.height));
}
document.body.setAttribute("data-page", window.innerWidth + " " +
	document.documentElement.scrollWidth);
</script>'
awk -v m="$measure" '/<\/body>/ { print m } { print }' "$prof/page.html" \
	> "$prof/charts.html" || exit 1
chmod 644 "$prof/charts.html"
chromium_run --window-size="${FSPLAN_BROWSER_WIDTH:-1200},2400" \
	--dump-dom "file://$prof/charts.html" > "$out.charts"
rc=$?
if [ $rc != 0 ] || ! grep -q '</html>' "$out.charts"; then
	echo "browser.sh: chromium --dump-dom of the charts failed" >&2
	exit 1
fi
