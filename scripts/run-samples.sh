#!/bin/sh
# Runs the toolkit on samples/ and says where the outputs are (make samples).
set -eu
BIN=${BIN:-build/bin}
OUT=${OUT:-out}
mkdir -p "$OUT"
for f in samples/*.pb samples/*.pbtxt; do
	[ -e "$f" ] || continue
	case "$f" in *graphdef* | *_graph.pbtxt) continue ;; esac
	name=$(basename "$f")
	name=${name%.*}
	"$BIN/trace-dataflow" -q -o "$OUT/$name.trace.json" "$f"
	echo "$OUT/$name.trace.json  (trace-dataflow $f; open in https://ui.perfetto.dev or chrome://tracing)"
done

# pictures for the README (reproducible from samples/)
mkdir -p docs
"$BIN/trace-memory" -q --plot svg -o docs/memory.svg samples/gen-g1.pbtxt
"$BIN/trace-summarize" -q --plot svg -o docs/summary.svg samples/gen-g2.pb
echo "docs/memory.svg docs/summary.svg  (trace-memory / trace-summarize --plot svg)"
if [ -x "$BIN/graph-render" ]; then
	"$BIN/graph-render" -q -T svg --color-by=op -o docs/graph.svg \
		samples/gradckpt_simple2_timeline_graphdef.pbtxt &&
		"$BIN/graph-render" -q -T svg --color-by=time --max-depth 2 -o docs/graph-time.svg \
			samples/gen-g1.pbtxt &&
		echo "docs/graph.svg docs/graph-time.svg  (graph-render -T svg, as the README and docs/graph-render.md show)"
fi

# the README's first picture: trace-report's page of gen-g1 in headless
# Chromium, with a FusedBatchNorm selected so its arrows in and out show
if [ -x "$BIN/trace-report" ]; then
	"$BIN/trace-report" -q -o "$OUT/gen-g1.report.html" samples/gen-g1.pbtxt
	echo "$OUT/gen-g1.report.html  (trace-report samples/gen-g1.pbtxt; open it in any browser)"
	browser=""
	for b in ${CHROMIUM:-} chromium chromium-browser; do
		command -v "$b" >/dev/null 2>&1 && browser=$b && break
	done
	if [ -n "$browser" ]; then
		profile=$(mktemp -d "${TMPDIR:-/tmp}/samples.XXXXXX")
		page="file://$(cd "$OUT" && pwd)/gen-g1.report.html#select=batch_normalization/FusedBatchNorm"
		"$browser" --headless --no-sandbox --disable-gpu --no-first-run --hide-scrollbars \
			--user-data-dir="$profile" --virtual-time-budget=10000 --window-size=1400,900 \
			--screenshot=docs/report.png "$page" >/dev/null 2>&1
		rm -rf "$profile"
		echo "docs/report.png  (headless Chromium on that page, #select=batch_normalization/FusedBatchNorm)"
	else
		echo "docs/report.png  not made: no chromium (scripts/install-deps.sh installs it)"
	fi
fi
