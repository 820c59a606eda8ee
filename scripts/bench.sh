#!/bin/sh
# Benchmarks (never run by the tests): every tool on generated dumps of six
# shapes, each at about 10 and 100 MB, and trace-dataflow, trace-summarize and
# trace-report on generated TF2 profiler XSpace files (xspace-gen) at the same
# sizes (trace-report's line gives its 100 MB time in trace-dataflow's), and
# every tool on the one-run shape's run as protobuf JSON (pbjson), and
# on TF 2.0 profiler .trace files (xspace-gen --trace) beside the Chrome JSON
# trace-dataflow writes of the same runs (the .trace reader at least as fast
# per byte as the Chrome JSON one: compare their x gzip). Per
# line: wall time, that time as a
# multiple of gzip -1 over the same file in the same run, peak RSS, and the
# growth from 10 to 100 MB: (wall at 100 / wall at 10) / (bytes at 100 /
# bytes at 10), 1.00 being linear. Exits 1 when a growth is over 1.25 (or a
# tool fails), after printing everything. Then a few runs of other kinds,
# first the readers alone (read-bench) on the 100 MB XSpace and the 100 MB
# one-run RunMetadata, in MB/s of wall and of CPU, and their ratio, and
# protobuf JSON against Chrome JSON the same way.
# Usage: BIN=build/bin TESTBIN=build/tests scripts/bench.sh   (make bench)
# BENCH_SHAPES="one-run devices" picks shapes, BENCH_OTHER=0 leaves out the
# other runs, BENCH_STREAM=0 the stream shape (a TFRecord stream of 100 steps
# at 100 MB and 1 GB, every tool's peak RSS at most 200 MB on the 1 GB one,
# else exit 1), BENCH_DIR (default build/bench) keeps the generated files.
set -eu
BIN=${BIN:-build/bin}
TESTBIN=${TESTBIN:-$(dirname "$BIN")/tests}
WORK=${BENCH_DIR:-build/bench}
LIMIT=1.25
mkdir -p "$WORK"
failed=0
worse=""

# One run of a command, output to /dev/null: $wall and $cpu (user +
# system) in seconds to the microsecond (runstat: GNU time gives CPU to the
# hundredth, too coarse for a 20 ms run), $rss (peak, KB); a failure is said
# and remembered.
run_once() {
	what="$*"
	ok=1
	"$TESTBIN/runstat" "$WORK/time.txt" "$@" >/dev/null 2>"$WORK/err.txt" || ok=0
	# shellcheck disable=SC2046 # three numbers
	set -- $(cat "$WORK/time.txt" 2>/dev/null || echo 0 0 0)
	wall=$(awk -v w="$1" 'BEGIN { printf "%.3f", w }')
	cpu=$(awk -v c="$2" 'BEGIN { printf "%.3f", c }')
	rss=$3
	if [ $ok = 0 ]; then
		echo "bench: failed: $what" >&2
		head -n 3 "$WORK/err.txt" >&2
		failed=1
	fi
}

min() { awk -v a="$1" -v b="$2" 'BEGIN { print (b < a ? b : a) }'; }
max() { awk -v a="$1" -v b="$2" 'BEGIN { print (b > a ? b : a) }'; }

# The best of five runs when one takes under a second, of three when under
# ten, else one run (a growth compares a short run with a long one, and
# either can be slowed by the machine's other work): $best wall, $bcpu (the
# least CPU time) and $peak (the largest RSS of the runs).
measure() {
	run_once "$@"
	best=$wall bcpu=$cpu peak=$rss
	n=$(awk -v w="$wall" 'BEGIN { print (w < 1 ? 5 : w < 10 ? 3 : 1) }')
	while [ "$n" -gt 1 ]; do
		run_once "$@"
		best=$(min "$best" "$wall")
		bcpu=$(min "$bcpu" "$cpu")
		peak=$(max "$peak" "$rss")
		n=$((n - 1))
	done
}

# trace-gen's options for a shape at a size (MB), and its file's suffix.
shape_args() {
	case $1 in
	one-run) echo "--seed 1 --gpus 2" ;;
	runs-1000) echo "--seed 2 --gpus 0 --steps 1000 --format tfrecord" ;;
	recv-20pct) echo "--seed 3 --gpus 2 --unrecorded-recv 20" ;;
	loop-100) echo "--seed 4 --gpus 2 --loop 100" ;;
	devices) echo "--seed 5 --gpus 1 --tasks $((11 * $2))" ;;
	scopes-30) echo "--seed 6 --gpus 2 --scope-depth 30" ;;
	xspace) echo "--seed 7 --gpus 2 --threads 4 --steps 10" ;; # xspace-gen's
	pbjson) echo "--seed 1 --gpus 2" ;; # one-run's, written as protobuf JSON
	tf2-trace) echo "--seed 8 --gpus 2 --threads 4 --steps 10 --t0 0" ;; # xspace-gen's
	tf2-json) echo "trace-dataflow's Chrome JSON of tf2-trace" ;;
	stream) echo "--seed 9 --steps 100 --format tfrecord --gpus 2 --quirks" ;; # at 100 and 1000 MB
	esac
}
SHAPES=${BENCH_SHAPES:-one-run runs-1000 recv-20pct loop-100 devices scopes-30 xspace pbjson tf2-trace tf2-json}

# Protobuf JSON is written by protobuf's own Python (tests/cli/data/pbjson/
# tojson.py, MessageToJson) from a trace-gen run of the one-run shape whose
# binary is 2.87 times smaller (the JSON's size for that shape), so the
# pbjson lines read the one-run lines' run in another encoding; without
# Debian's python3-protobuf and protoc the shape is left out, said once.
PY=/usr/bin/python3
have_pbjson() {
	command -v protoc >/dev/null 2>&1 && $PY -c 'import google.protobuf' 2>/dev/null
}
pbjson_dump() { # MB, path (trace-gen takes $args, set by dump)
	if [ ! -s "$WORK/py/tensorflow_pb2.py" ]; then
		mkdir -p "$WORK/py"
		protoc --proto_path=libtrace/proto --python_out="$WORK/py" libtrace/proto/tensorflow.proto
	fi
	# shellcheck disable=SC2086 # the options are words
	"$TESTBIN/trace-gen" $args -o "$2.src.pb"
	$PY tests/cli/data/pbjson/tojson.py "$WORK/py" RunMetadata "$2.src.pb" camel "$2"
	rm -f "$2.src.pb"
}

# Generated once and kept, beside the options that made it: a file whose
# options changed is made again. The xspace shape is an XSpace made by
# xspace-gen (--size in bytes; its truth kept beside it), the others
# RunMetadata made by trace-gen.
dump() { # shape, MB -> path
	gen=trace-gen
	args="$(shape_args "$1" "$2") --size-mb $2"
	f="$WORK/$1-$2mb.pb"
	if [ "$1" = xspace ]; then
		gen=xspace-gen
		f="$WORK/$1-$2mb.xplane.pb"
		args="$(shape_args "$1" "$2") --size $(($2 * 1000000)) --truth $f.truth"
	fi
	if [ "$1" = tf2-trace ]; then
		# the .trace is about 2.3 times its XSpace (each event's args
		# spell their names); the XSpace itself is not kept
		gen=xspace-gen
		f="$WORK/$1-$2mb.trace"
		args="$(shape_args "$1" "$2") --size $(($2 * 435000)) --truth $f.truth --trace $f"
		if [ ! -s "$f" ] || [ "$(cat "$f.args" 2>/dev/null)" != "$args" ]; then
			echo "bench: generating $f ($gen $args)" >&2
			# shellcheck disable=SC2086 # the options are words
			"$TESTBIN/$gen" $args -o /dev/null
			echo "$args" >"$f.args"
		fi
		echo "$f"
		return
	fi
	if [ "$1" = tf2-json ]; then
		src=$(dump tf2-trace "$2")
		f="$WORK/$1-$2mb.json"
		if [ ! -s "$f" ] || [ "$f" -ot "$src" ]; then
			echo "bench: generating $f (trace-dataflow $src)" >&2
			"$BIN/trace-dataflow" -q -o "$f" "$src"
		fi
		echo "$f"
		return
	fi
	if [ "$1" = pbjson ]; then
		gen="trace-gen, then tojson.py camel:"
		f="$WORK/$1-$2mb.json"
		args="$(shape_args "$1" "$2") --size-mb $(awk -v m="$2" 'BEGIN { printf "%.2f", m / 2.87 }')"
	fi
	if [ ! -s "$f" ] || [ "$(cat "$f.args" 2>/dev/null)" != "$args" ]; then
		echo "bench: generating $f ($gen $args)" >&2
		if [ "$1" = pbjson ]; then
			pbjson_dump "$2" "$f"
		else
			# shellcheck disable=SC2086 # the options are words
			"$TESTBIN/$gen" $args -o "$f"
		fi
		echo "$args" >"$f.args"
	fi
	echo "$f"
}

# A tool's command line for the table: graph-render draws every node
# (its default collapses scopes above 1500 nodes), DOT not laid out.
tool_cmd() { # tool, file
	case $1 in
	graph-render) echo "$BIN/graph-render -q --max-nodes 0 $2" ;;
	*) echo "$BIN/$1 -q $2" ;;
	esac
}
TOOLS="trace-dataflow trace-memory trace-summarize trace-merge graph-render trace-report"
# The tools timed on a shape: on XSpace the readers' speed, by the two tools
# whose work past reading is least, and the page beside the trace.
shape_tools() {
	case $1 in
	xspace | tf2-trace | tf2-json) echo "trace-dataflow trace-summarize trace-report" ;;
	*) echo "$TOOLS" ;;
	esac
}
# trace-report's page at 100 MB in trace-dataflow's time on the same file
# (issue 28: at most 2x on every shape), marked on its line.
REPORT_LIMIT=2

mb() { awk -v b="$1" 'BEGIN { printf "%.0f", b / 1e6 }'; }
bytes() { wc -c <"$1" | tr -d ' '; }

printf 'machine: %s, %s cores, %s; %s\n' "$(uname -m)" "$(nproc)" \
	"$(awk '/MemTotal/ {printf "%.0f GB", $2/1048576}' /proc/meminfo)" \
	"$(awk -F': ' '/model name/ {print $2; exit}' /proc/cpuinfo)"
echo "wall: the best of 5 runs when under 1 s, of 3 when under 10 s, else one run;"
echo "x gzip: wall / wall of 'gzip -1 -c' over the same file, timed in this run;"
echo "RSS: peak resident memory;"
echo "growth: (wall at 100 MB / wall at 10 MB) / (bytes at 100 / bytes at 10), 1.00"
echo "linear; cpu: the same of user + system CPU time. A line over $LIMIT in both is"
echo "measured twice more (the best kept); still over $LIMIT in both, it fails: a path"
echo "worse than linear slows both, a loaded machine mostly the wall clock"
echo
echo "shapes (trace-gen options, with --size-mb 10 and 100; xspace: xspace-gen's, with"
echo "--size 10 and 100 MB; pbjson: MessageToJson of trace-gen's run with --size-mb 3.48"
echo "and 34.84, 10 and 100 MB of JSON):"
for s in $SHAPES; do
	printf '  %-11s %s\n' "$s" "$(shape_args "$s" 10 | sed 's/--tasks 110/--tasks 110 (1100 at 100 MB)/')"
done
echo

# Growth from the 10 MB file to the 100 MB one ($1 $2 times, by $b10 $b100).
growth() {
	awk -v a="$1" -v b="$2" -v x="$b10" -v y="$b100" \
		'BEGIN { printf "%.2f", (a > 0 ? (b / a) / (y / x) : 0) }'
}
over() { awk -v g="$1" -v l="$LIMIT" 'BEGIN { exit !(g > l) }'; }

# Measures a command on both files ({} in its words stands for the file):
# w10 c10 r10 and w100 c100 r100.
both() {
	# shellcheck disable=SC2046 # the command line is words
	measure $(echo "$*" | sed "s#{}#$f10#")
	w10=$best c10=$bcpu r10=$peak
	# shellcheck disable=SC2046
	measure $(echo "$*" | sed "s#{}#$f100#")
	w100=$best c100=$bcpu r100=$peak
}

# One line of the table; x gzip is over $g10 and $g100.
row() { # label, mark
	awk -v l="$1" -v m="$2" -v w10="$w10" -v r10="$r10" -v w100="$w100" -v r100="$r100" \
		-v g10="$g10" -v g100="$g100" -v gw="$(growth "$w10" "$w100")" \
		-v gc="$(growth "$c10" "$c100")" 'BEGIN {
		printf "%-11s %-16s %6.2f s %6.1fx %5.0f MB | %6.2f s %6.1fx %5.0f MB | %6.2f %5.2f%s\n",
			"", l, w10, w10 / g10, r10 / 1024, w100, w100 / g100, r100 / 1024, gw, gc, m }'
}

printf '%-11s %-16s %8s %7s %8s | %8s %7s %8s | %6s %5s\n' shape tool "10MB:wall" "x gzip" "RSS" \
	"100:wall" "x gzip" "RSS" growth cpu
for s in $SHAPES; do
	if [ "$s" = pbjson ] && ! have_pbjson; then
		printf '%-11s (skipped: needs protoc and python3-protobuf)\n' "$s"
		continue
	fi
	f10=$(dump "$s" 10)
	f100=$(dump "$s" 100)
	b10=$(bytes "$f10")
	b100=$(bytes "$f100")
	printf '%-11s (%s and %s bytes)\n' "$s" "$b10" "$b100"
	both gzip -1 -c {}
	g10=$w10 g100=$w100
	row "gzip -1" ""
	for t in $(shape_tools "$s"); do
		[ -x "$BIN/$t" ] || continue
		both "$(tool_cmd "$t" {})"
		if over "$(growth "$w10" "$w100")" && over "$(growth "$c10" "$c100")"; then
			# a loaded machine makes one run slow: twice more before it counts
			for _ in 1 2; do
				bw10=$w10 bc10=$c10 bw100=$w100 bc100=$c100
				both "$(tool_cmd "$t" {})"
				w10=$(min "$w10" "$bw10") c10=$(min "$c10" "$bc10")
				w100=$(min "$w100" "$bw100") c100=$(min "$c100" "$bc100")
			done
		fi
		mark=""
		if over "$(growth "$w10" "$w100")" && over "$(growth "$c10" "$c100")"; then
			mark="  worse than linear"
			worse="$worse $s/$t($(growth "$w10" "$w100"))"
		fi
		[ "$t" = trace-dataflow ] && dataflow100=$w100
		if [ "$t" = trace-report ] && [ -n "${dataflow100:-}" ]; then
			mark="$mark$(awk -v w="$w100" -v d="$dataflow100" -v x="$REPORT_LIMIT" 'BEGIN {
				printf "  %.2fx trace-dataflow%s", w / d, (w / d > x ? " (over " x "x)" : "") }')"
		fi
		row "$t" "$mark"
	done
	dataflow100=""
done

# ---- the stream shape ------------------------------------------------------
# A TFRecord stream of 100 training steps at 100 MB and 1 GB (issue 27): every
# tool's peak RSS is bounded by its largest run, not the stream's length. The
# targets: at most 200 MB peak RSS at 1 GB (a bench failure when over), at
# most 1.0x gzip -1 at 1 GB (trace-report 1.5x) and a growth of at most 1.1
# (marked when over: times depend on the machine's other work).
STREAM_RSS_MB=200
stream_runs() {
	f10=$(dump stream 100)
	f100=$(dump stream 1000)
	b10=$(bytes "$f10")
	b100=$(bytes "$f100")
	echo
	printf 'stream      (%s: %s and %s bytes)\n' "$(shape_args stream)" "$b10" "$b100"
	printf '%-11s %-16s %8s %7s %8s | %8s %7s %8s | %6s %5s\n' "" "" "100MB:wall" "x gzip" "RSS" \
		"1GB:wall" "x gzip" "RSS" growth cpu
	both gzip -1 -c {}
	g10=$w10 g100=$w100
	row "gzip -1" ""
	for t in $TOOLS; do
		[ -x "$BIN/$t" ] || continue
		both "$(tool_cmd "$t" {})"
		target=1.0
		[ "$t" = trace-report ] && target=1.5
		mark=$(awk -v r="$r100" -v w="$w100" -v g="$g100" -v x="$target" -v gw="$(growth "$w10" "$w100")" \
			-v lim="$STREAM_RSS_MB" 'BEGIN {
			if (r / 1024 > lim) printf "  RSS over %d MB", lim
			if (w / g > x) printf "  over %.1fx gzip", x
			if (gw > 1.1) printf "  growth over 1.1" }')
		case $mark in *RSS*) streamed="$streamed $t($(awk -v r="$r100" 'BEGIN { printf "%.0f MB", r / 1024 }'))" ;; esac
		row "$t" "$mark"
	done
}
streamed=""
[ "${BENCH_STREAM:-1}" = 0 ] || stream_runs

# ---- other kinds of input -------------------------------------------------
other_runs() {
	echo
	echo "other runs (wall as above, throughput over the input, peak RSS):"
	line() { # label, input MB, (after measure)
		awk -v l="$1" -v w="$best" -v r="$peak" -v mb="$2" \
			'BEGIN { printf "%-46s %6.2f s %6.0f MB/s %6.0f MB peak RSS\n", l, w, mb / (w > 0 ? w : 0.01), r / 1024 }'
	}
	big=$(dump one-run 100)
	big_mb=$(mb "$(bytes "$big")")

	# The readers alone (read-bench: every run read into the model and
	# dropped), per byte: the 100 MB XSpace against the 100 MB one-run
	# RunMetadata, gzip -1 over each for scale; CPU beside the wall, as the
	# model's builder works on two threads where it can.
	if [ -x "$TESTBIN/read-bench" ]; then
		xs=$(dump xspace 100)
		reader() { # label, file -> $rate (MB/s of wall), $crate (of CPU)
			f=$2
			nb=$(bytes "$f") # (measure counts in n)
			measure gzip -1 -c "$f"
			gz=$best
			measure "$TESTBIN/read-bench" "$f"
			rate=$(awk -v b="$nb" -v w="$best" 'BEGIN { printf "%.0f", b / 1e6 / (w > 0 ? w : 0.001) }')
			crate=$(awk -v b="$nb" -v c="$bcpu" 'BEGIN { printf "%.0f", b / 1e6 / (c > 0 ? c : 0.001) }')
			awk -v l="$1" -v w="$best" -v c="$bcpu" -v r="$rate" -v cr="$crate" -v g="$gz" -v p="$peak" \
				'BEGIN { printf "%-46s %6.2f s %6.0f MB/s (CPU %.2f s, %.0f MB/s) %5.1fx gzip -1, %.0f MB peak RSS\n", l, w, r, c, cr, w / (g > 0 ? g : 0.001), p / 1024 }'
		}
		reader "reading alone, XSpace 100 MB" "$xs"
		xrate=$rate xcrate=$crate
		reader "reading alone, one-run RunMetadata 100 MB" "$big"
		awk -v a="$xrate" -v b="$rate" -v c="$xcrate" -v d="$crate" \
			'BEGIN { printf "%-46s %6.2f (CPU %.2f): XSpace MB/s / RunMetadata MB/s, 1.00 parity\n", "reading alone, XSpace per byte", a / (b > 0 ? b : 1), c / (d > 0 ? d : 1) }'
		# Protobuf JSON against Chrome JSON, per byte: the issue asks every
		# new reader to be at least as fast as the Chrome JSON reader. The
		# Chrome JSON is trace-dataflow's timeline of the one-run 100 MB run.
		if have_pbjson; then
			chrome="$WORK/one-run-100mb.chrome.json"
			if [ ! -s "$chrome" ]; then
				echo "bench: generating $chrome" >&2
				"$BIN/trace-dataflow" -q -o "$chrome" "$big"
			fi
			reader "reading alone, Chrome JSON $(mb "$(bytes "$chrome")") MB" "$chrome"
			crate_c=$crate rate_c=$rate
			reader "reading alone, protobuf JSON 100 MB" "$(dump pbjson 100)"
			awk -v a="$rate" -v b="$rate_c" -v c="$crate" -v d="$crate_c" \
				'BEGIN { printf "%-46s %6.2f (CPU %.2f): protobuf JSON MB/s / Chrome JSON MB/s, at least 1.00 asked\n", "reading alone, protobuf JSON per byte", a / (b > 0 ? b : 1), c / (d > 0 ? d : 1) }'
		fi
	fi
	text="$WORK/run-text.pbtxt"
	if [ ! -s "$text" ]; then
		echo "bench: generating $text" >&2
		"$TESTBIN/trace-gen" --seed 2 --gpus 1 --size-mb 40 --format text -o "$text"
	fi
	measure "$BIN/trace-dataflow" -q "$text"
	line "trace-dataflow, 40 MB text RunMetadata" "$(mb "$(bytes "$text")")"
	measure "$BIN/trace-memory" -q --report "$big"
	line "trace-memory --report, one-run 100 MB" "$big_mb"

	# trace-report beside trace-dataflow on the same 100 MB run (the page
	# should take at most twice the trace's time), and how long headless
	# Chromium takes to load the page and draw it (until the page says
	# data-report-state), less its time on an empty page: at most 3 s.
	measure "$BIN/trace-dataflow" -q "$big"
	dataflow=$best
	line "trace-dataflow, one-run 100 MB" "$big_mb"
	measure "$BIN/trace-report" -q -o "$WORK/report.html" "$big"
	awk -v l="trace-report, one-run 100 MB" -v w="$best" -v r="$peak" -v mb="$big_mb" -v d="$dataflow" \
		'BEGIN { printf "%-46s %6.2f s %6.0f MB/s %6.0f MB peak RSS, %.2fx trace-dataflow\n", l, w, mb / (w > 0 ? w : 0.01), r / 1024, w / (d > 0 ? d : 0.01) }'
	if command -v chromium >/dev/null 2>&1 || command -v chromium-browser >/dev/null 2>&1; then
		echo '<!DOCTYPE html><html data-report-state="ready"></html>' >"$WORK/empty.html"
		measure tests/cli/report-check dom "$WORK/empty.html"
		empty=$best
		measure tests/cli/report-check dom "$WORK/report.html"
		tests/cli/report-check dom "$WORK/report.html" >"$WORK/dom.txt"
		grep -x 'report-state=ready' "$WORK/dom.txt" >/dev/null ||
			echo "bench: the page of one-run 100 MB did not say ready" >&2
		# The page's own clock (performance.now() at its first draw, from
		# the navigation's start: reading, parsing, JSON.parse, drawing);
		# Chromium's run beside it also prints the 39 MB DOM back.
		painted=$(sed -n 's/^first-draw-ms=//p' "$WORK/dom.txt")
		awk -v w="$best" -v e="$empty" -v s="$(wc -c <"$WORK/report.html")" -v p="${painted:-0}" \
			'BEGIN { printf "%-46s %6.2f s (its first draw by its own clock; Chromium with --dump-dom %.2f s, %.2f s an empty page); page %.0f MB\n", "headless Chromium paints that page", p / 1000, w, e, s / 1e6 }'
	else
		echo "headless Chromium draws that page            (skipped: no chromium)"
	fi
	# The real 27 MB Kineto trace, gunzipped once from the repository's copy.
	kineto="$WORK/kineto_resnet50_autograd_api_worker0.pt.trace.json"
	if [ ! -s "$kineto" ]; then
		gunzip -c tests/data/real/kineto_resnet50_autograd_api_worker0.pt.trace.json.gz >"$kineto"
	fi
	measure "$BIN/trace-merge" -q "$kineto"
	line "trace-merge, 27 MB Kineto Chrome JSON" "$(mb "$(bytes "$kineto")")"
	measure "$BIN/trace-summarize" -q "$kineto"
	line "trace-summarize, 27 MB Kineto Chrome JSON" "$(mb "$(bytes "$kineto")")"
	measure "$BIN/trace-summarize" -q "$big" "$big" "$big" "$big" "$big" "$big" "$big" "$big" "$big" "$big"
	line "trace-summarize, ten 100 MB runs (1 GB)" "$((10 * big_mb))"

	# Streams of many runs are read one run at a time, so memory stays that of
	# one run however long the stream: a 3 GB stream of 3,000 runs (a 1 GB one
	# three times over, through a pipe, so nothing is memory-mapped).
	steps="$WORK/steps-1000x1mb.tfrecord"
	if [ ! -s "$steps" ]; then
		echo "bench: generating $steps" >&2
		"$TESTBIN/trace-gen" --seed 4 --gpus 1 --ops 700 --steps 1000 --format tfrecord -o "$steps"
	fi
	pipe() { # times, command...
		n=$1
		shift
		# shellcheck disable=SC2016 # the inner shell expands them
		measure sh -c 'n=$1; shift; f=$1; shift; i=0; while [ $i -lt $n ]; do cat "$f"; i=$((i + 1)); done | "$@" -' \
			sh "$n" "$steps" "$@"
	}
	steps_mb=$(mb "$(bytes "$steps")")
	pipe 3 "$BIN/trace-summarize" -q --view step
	line "trace-summarize, 3 GB stream (3000 runs), pipe" "$((3 * steps_mb))"
	pipe 3 "$BIN/trace-merge" -q
	line "trace-merge, 3 GB stream (3000 runs), pipe" "$((3 * steps_mb))"

	# graph-render: the DOT of a 50,000-node GraphDef with every node drawn,
	# and the default render to SVG of that graph and of a generated 6,000-op
	# run (collapsed by scope on their own).
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
	g50k_mb=$(mb "$(bytes "$g50k")")
	g6k_mb=$(mb "$(bytes "$g6k")")
	measure "$BIN/graph-render" -q --max-nodes 0 "$g50k"
	line "graph-render, 50k-node DOT, --max-nodes 0" "$g50k_mb"
	measure "$BIN/graph-render" -q -T svg "$g50k"
	line "graph-render -T svg, 50k nodes, collapsed" "$g50k_mb"
	measure "$BIN/graph-render" -q -T svg "$g6k"
	line "graph-render -T svg, 6000-op run, collapsed" "$g6k_mb"
	measure "$BIN/graph-render" -q -T svg --fold "$g6k"
	line "graph-render -T svg, 6000-op run, --fold" "$g6k_mb"

	# graph-render -T svg --max-nodes 0: every node laid out by dot, one
	# connected component at a time, and packed. A look-alike of a 6,000-node
	# GraphDef of about 400 components (a real 6,214-node ResNet GraphDef is
	# not in shared/realdata): 40 small replicas of trace-gen's training
	# graph, each with 9 initializer chains beside it; then 49,950 nodes of
	# 333 such replicas (3,330 components), so that the growth per node (1.00
	# linear) compares components of one size. trace-gen's training graphs
	# cost dot far more per node than that ResNet did (a 1,000-node one: 5 s),
	# so the components are small.
	gc6k="$WORK/graph-6k-400cc.pb"
	gc50k="$WORK/graph-50k-3330cc.pb"
	if [ ! -s "$gc6k" ] || [ ! -s "$gc50k" ]; then
		echo "bench: generating $gc6k and $gc50k" >&2
		"$TESTBIN/trace-gen" --tasks 40 --ops 150 --components 10 --scope-depth 2 -o "$gc6k"
		"$TESTBIN/trace-gen" --tasks 333 --ops 150 --components 10 --scope-depth 2 -o "$gc50k"
	fi
	measure "$BIN/graph-render" -q -T svg --max-nodes 0 "$gc6k"
	line "graph-render -T svg, 6k nodes/400 cc, every node" "$(mb "$(bytes "$gc6k")")"
	gw6k=$best gc6k_cpu=$bcpu
	measure "$BIN/graph-render" -q -T svg --max-nodes 0 "$gc50k"
	line "graph-render -T svg, 50k nodes/3330 cc, every node" "$(mb "$(bytes "$gc50k")")"
	awk -v a="$gw6k" -v b="$best" -v c="$gc6k_cpu" -v d="$bcpu" \
		'BEGIN { printf "%-46s %6.2f (CPU %.2f): (wall at 50k / wall at 6k) / (49950 / 6000)\n", "graph-render every node, growth per node", (b / a) / (49950 / 6000), (d / c) / (49950 / 6000) }'
	# Formats other than SVG draw the packed components joined into one
	# graph (neato -n2); its freeing used to take minutes at 50k nodes.
	measure "$BIN/graph-render" -q -T plain --max-nodes 0 "$gc50k"
	line "graph-render -T plain, 50k nodes/3330 cc, every node" "$(mb "$(bytes "$gc50k")")"
}
[ "${BENCH_OTHER:-1}" = 0 ] || other_runs

status=0
if [ -n "$worse" ]; then
	echo
	echo "bench: growth worse than ${LIMIT}x linear:$worse"
	status=1
fi
if [ -n "$streamed" ]; then
	echo
	echo "bench: over ${STREAM_RSS_MB} MB peak RSS on the 1 GB stream:$streamed"
	status=1
fi
if [ $failed = 1 ]; then
	echo "bench: a run failed (see above)"
	status=1
fi
exit $status
