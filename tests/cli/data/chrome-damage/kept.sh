#!/bin/bash
# kept.sh FILE: what each tool keeps of a damaged Chrome trace, one line per
# tool: "TOOL: N slices, W" where N counts the slices it shows (trace-dataflow's
# "X" events, trace-merge's but its Runs track, the occurrences of
# trace-summarize's device view, the slices of trace-report's page) and W is
# its warnings about the damage ("1 warning": the one expected), or its exit
# status where it failed.
set -o pipefail
f=$1
e=$f.err
say() {
	w=$(grep -c "^$1: warning: '.*': invalid JSON at byte [0-9]*: .*: the events before it are read$" "$e")
	echo "$1: $2 slices, $w warning$( [ "$w" = 1 ] || echo s)"
}
n=$(trace-dataflow -o "$f.d" "$f" 2>"$e" && jq '[.traceEvents[] | select(.ph == "X")] | length' "$f.d") && say trace-dataflow "$n" || echo "trace-dataflow: exit $?"
n=$(trace-merge -o "$f.m" "$f" 2>"$e" && jq '[.traceEvents[] | select(.ph == "X" and .cat != "run")] | length' "$f.m") && say trace-merge "$n" || echo "trace-merge: exit $?"
n=$(trace-summarize --view device --format csv --select occurrence "$f" 2>"$e" | awk -F, 'NR > 1 { n += $2 } END { print n + 0 }') && say trace-summarize "$n" || echo "trace-summarize: exit $?"
n=$(trace-report -o "$f.html" "$f" 2>"$e" && grep -o '"slices":{"row":\[[0-9,]*\]' "$f.html" | tr -cd , | wc -c) && say trace-report "$((n + 1))" || echo "trace-report: exit $?"
