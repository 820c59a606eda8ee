#!/bin/bash
# compare.sh MEM_FLOW.json MAXIMUMS.json|- [STEPSTATS [TRUTH.json]]: trace-memory on
# the timeline.py trace and on the StepStats of the same run, checked and set side
# by side by compare.py (its docstring says what it computes, apart from
# trace-memory). Needs TMP.
set -e
here=$(dirname "$0")
trace-memory -q --report --top 0 --format json "$1" > "$TMP/tl.json"
args=("$1" "$TMP/tl.json" "$2")
if [ -n "${3:-}" ]; then
	trace-memory -q --report --top 0 --format json "$3" > "$TMP/ex.json"
	args+=("$TMP/ex.json")
	[ -n "${4:-}" ] && args+=("$4")
fi
python3 "$here/compare.py" "${args[@]}"
