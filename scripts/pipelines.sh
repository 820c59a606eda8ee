#!/bin/sh
# The pipelines of docs/DESIGN.md, run on samples/ (the test suite runs this).
# Usage: scripts/pipelines.sh [OUTDIR]    (the tools must be on PATH)
set -eu
out=${1:-out/pipelines}
mkdir -p "$out"
steps="samples/gen-g2.pb samples/tfprof_testdata_run_meta_cpu_tf12.pb"

trace-dataflow samples/gen-g1.pbtxt > "$out/timeline.json"           # open in Perfetto
trace-memory --report samples/gen-g2.pb > "$out/memory-report.txt"   # peak per allocator
trace-memory samples/gen-g2.pb | gzip > "$out/memory.json.gz"
trace-merge $steps > "$out/steps.json"                               # N runs, one timeline
trace-merge samples/ikhlestov_cpu_timeline_01.json samples/ikhlestov_gpu_timeline_01.json > "$out/all.json"
trace-merge --format=runmeta $steps | trace-summarize --view=op > "$out/ops.txt"
cat samples/gen-g2.pb | trace-summarize --view=scope --max-depth 3 --format=csv |
	sort -t, -k2 -nr > "$out/scopes.csv"
if command -v graph-render >/dev/null 2>&1; then
	graph-render -T svg --color-by=time samples/gen-g1.pbtxt > "$out/graph.svg"
	graph-render samples/gen-g2.pb | dot -Tpng > "$out/graph.png"
fi
ls "$out"
