#!/bin/sh
# Benchmarks (never run by the tests): wall time and peak RSS of the tools on
# generated dumps. Usage: BIN=build/bin scripts/bench.sh   (make bench)
set -eu
BIN=${BIN:-build/bin}
TESTBIN=${TESTBIN:-$(dirname "$BIN")/tests}
WORK=${BENCH_DIR:-build/bench}
mkdir -p "$WORK"

measure() { # label, input (for MB/s), command...
	label=$1
	input=$2
	shift 2
	/usr/bin/time -f "%e %M" -o "$WORK/time.txt" "$@" >/dev/null
	read -r wall rss <"$WORK/time.txt"
	mb=$(du -m "$input" | cut -f1)
	awk -v l="$label" -v w="$wall" -v r="$rss" -v mb="$mb" \
		'BEGIN { printf "%-44s %6.2f s %6.0f MB/s %6.0f MB peak RSS\n", l, w, mb / (w > 0 ? w : 0.01), r / 1024 }'
}

big="$WORK/run-100mb-g2.pb"
if [ ! -s "$big" ]; then
	echo "bench: generating $big" >&2
	"$TESTBIN/trace-gen" --seed 1 --gpus 2 --size-mb 100 -o "$big"
fi
text="$WORK/run-text.pbtxt"
if [ ! -s "$text" ]; then
	echo "bench: generating $text" >&2
	"$TESTBIN/trace-gen" --seed 2 --gpus 1 --size-mb 40 --format text -o "$text"
fi
printf 'machine: %s, %s cores, %s\n' "$(uname -m)" "$(nproc)" \
	"$(awk '/MemTotal/ {printf "%.0f GB", $2/1048576}' /proc/meminfo)"
printf 'input: %s (%s MB binary), %s (%s MB text)\n' "$big" \
	"$(du -m "$big" | cut -f1)" "$text" "$(du -m "$text" | cut -f1)"
measure "trace-dataflow, binary RunMetadata" "$big" "$BIN/trace-dataflow" -q "$big"
measure "trace-dataflow, binary, --no-flows" "$big" "$BIN/trace-dataflow" -q --no-flows "$big"
measure "trace-dataflow, binary, to a file" "$big" "$BIN/trace-dataflow" -q -o "$WORK/out.json" "$big"
measure "trace-dataflow, text RunMetadata" "$text" "$BIN/trace-dataflow" -q "$text"
measure "trace-memory, binary (trace)" "$big" "$BIN/trace-memory" -q "$big"
measure "trace-memory --report, binary" "$big" "$BIN/trace-memory" -q --report "$big"
measure "trace-merge, binary RunMetadata" "$big" "$BIN/trace-merge" -q "$big"
kineto=${SHARED:-../shared}/realdata/kineto_resnet50_autograd_api_worker0.pt.trace.json
if [ -e "$kineto" ]; then
	measure "trace-merge, 27 MB Kineto Chrome JSON" "$kineto" "$BIN/trace-merge" -q "$kineto"
fi
steps="$WORK/steps-1000x1mb.tfrecord"
if [ ! -s "$steps" ]; then
	echo "bench: generating $steps" >&2
	"$TESTBIN/trace-gen" --seed 4 --gpus 1 --ops 700 --steps 1000 --format tfrecord -o "$steps"
fi
measure "trace-merge, 1000 runs in one stream" "$steps" "$BIN/trace-merge" -q "$steps"
measure "trace-summarize, binary RunMetadata" "$big" "$BIN/trace-summarize" -q "$big"
ten="$big $big $big $big $big $big $big $big $big $big"
/usr/bin/time -f "%e %M" -o "$WORK/time.txt" "$BIN/trace-summarize" -q $ten >/dev/null
read -r wall rss <"$WORK/time.txt"
awk -v w="$wall" -v r="$rss" -v mb="$(du -m "$big" | cut -f1)" \
	'BEGIN { printf "%-44s %6.2f s %6.0f MB/s %6.0f MB peak RSS\n", "trace-summarize, ten 100 MB runs (1 GB)", w, 10 * mb / w, r / 1024 }'
measure "trace-summarize, 1000 runs in one stream" "$steps" "$BIN/trace-summarize" -q "$steps"
rm -f "$WORK/out.json"

# Streams of many runs are read one run at a time, so memory stays that of
# one run however long the stream: a 3 GB stream of 3,000 runs (the 1 GB
# one three times over, through a pipe, so nothing is memory-mapped).
pipe_measure() { # label, stream repeats, command...
	label=$1
	times=$2
	shift 2
	/usr/bin/time -f "%e %M" -o "$WORK/time.txt" sh -c \
		'n=$1; shift; f=$1; shift; i=0; while [ $i -lt $n ]; do cat "$f"; i=$((i + 1)); done | "$@" -' \
		sh "$times" "$steps" "$@" >/dev/null
	read -r wall rss <"$WORK/time.txt"
	awk -v l="$label" -v w="$wall" -v r="$rss" -v mb="$(($(du -m "$steps" | cut -f1) * times))" \
		'BEGIN { printf "%-44s %6.2f s %6.0f MB/s %6.0f MB peak RSS\n", l, w, mb / (w > 0 ? w : 0.01), r / 1024 }'
}
pipe_measure "trace-summarize, 3 GB stream (3000 runs), pipe" 3 "$BIN/trace-summarize" -q --view step
pipe_measure "trace-merge, 3 GB stream (3000 runs), pipe" 3 "$BIN/trace-merge" -q

# graph-render: the DOT of a 50,000-node GraphDef with every node drawn
# (target: under 2 s), and the default render to SVG of that graph and of a
# generated 6,000-node run (collapsed by scope on their own; target: the
# layout under 30 s).
g50k="$WORK/graph-50k.pbtxt"
if [ ! -s "$g50k" ]; then
	echo "bench: generating $g50k" >&2
	awk 'BEGIN { for (i = 0; i < 50000; i++) {
		printf "node { name: \"s%d/b%d/n%d\" op: \"%s\"", int(i/1000), int(i/50)%20, i, (i%3 ? "Add" : "MatMul")
		if (i > 0) printf " input: \"s%d/b%d/n%d\"", int((i-1)/1000), int((i-1)/50)%20, i-1
		if (i >= 13 && i%7 == 0) printf " input: \"s%d/b%d/n%d:1\"", int((i-13)/1000), int((i-13)/50)%20, i-13
		print " }" } }' >"$g50k"
fi
g6k="$WORK/run-6000-ops.pb"
if [ ! -s "$g6k" ]; then
	echo "bench: generating $g6k" >&2
	"$TESTBIN/trace-gen" --seed 5 --gpus 2 --ops 6000 -o "$g6k"
fi
measure "graph-render, 50k-node DOT, --max-nodes 0" "$g50k" "$BIN/graph-render" -q --max-nodes 0 "$g50k"
measure "graph-render, 50k-node DOT, collapsed" "$g50k" "$BIN/graph-render" -q "$g50k"
measure "graph-render -T svg, 50k nodes, collapsed" "$g50k" "$BIN/graph-render" -q -T svg "$g50k"
measure "graph-render -T svg, 6000-op run, collapsed" "$g6k" "$BIN/graph-render" -q -T svg "$g6k"
measure "graph-render -T svg, 6000-op run, --fold" "$g6k" "$BIN/graph-render" -q -T svg --fold "$g6k"
