#!/bin/sh
# Runs the libFuzzer harnesses (make fuzz): each one for FUZZ_SECONDS
# seconds on a corpus seeded from tests/data (its real dumps and oracle
# included), samples, the shared realdata and oracle folders where there is
# one, tests/cli/data and tests/fuzz/seeds (copied into
# build/fuzz/corpus/NAME, which keeps what earlier runs found). A crash, a
# leak, an invalid output or a hang (over 10 s on one input) stops that
# harness with its reproducer in build/fuzz/artifacts/; the script goes on
# with the others, prints one line per harness (executions, corpus size)
# and exits 1 if any harness failed.
#
# Usage: FUZZ_SECONDS=60 scripts/fuzz.sh [NAME...]    (NAME: binary, text, ...)
# (the xspace harness's seeds are xspace-gen's, in tests/fuzz/seeds/xspace)
# Environment: FUZZ_BUILD (default build/fuzz), SHARED (default ../shared),
# TESTBIN (build/tests, for trace-gen), FUZZ_JOBS (harnesses run at once,
# default: the number of cores), FUZZ_MAX_LEN (default 65536).
set -u
cd "$(dirname "$0")/.."
FUZZ_BUILD=${FUZZ_BUILD:-build/fuzz}
FUZZ_SECONDS=${FUZZ_SECONDS:-60}
FUZZ_MAX_LEN=${FUZZ_MAX_LEN:-65536}
FUZZ_JOBS=${FUZZ_JOBS:-$(nproc)}
SHARED=${SHARED-../shared}
TESTBIN=${TESTBIN:-build/tests}
names=${*:-binary text tfrecord chrome dataflow memory merge summarize graph decode xspace pbjson tf2trace tlmem}

corpus=$FUZZ_BUILD/corpus
artifacts=$FUZZ_BUILD/artifacts
logs=$FUZZ_BUILD/logs
mkdir -p "$corpus" "$artifacts" "$logs"

# Seeds of one kind: files under the given folders whose names match the
# pattern, at most 1 MB each (larger ones add time, not coverage).
seed() { # NAME PATTERN DIR...
	name=$1
	pattern=$2
	shift 2
	mkdir -p "$corpus/$name"
	for dir in "$@"; do
		[ -d "$dir" ] || continue
		find "$dir" -maxdepth 1 -type f -name "$pattern" -size -1024k |
			while IFS= read -r f; do
				cp "$f" "$corpus/$name/seed-$(basename "$f")"
			done
	done
}

data_dirs="tests/data tests/data/exact tests/data/real tests/data/oracle tests/data/oracle/exact samples
	tests/cli/data/dataflow tests/fuzz/seeds tests/fuzz/regressions"
if [ -n "$SHARED" ] && [ -d "$SHARED" ]; then
	data_dirs="$data_dirs $SHARED/realdata $SHARED/oracle $SHARED/oracle/exact"
fi
chrome_dirs="tests/cli/data/chrome tests/cli/data/parity $data_dirs"

# TFRecord streams: generated (plain and gzip), and the events file seed.
streams=$FUZZ_BUILD/streams
mkdir -p "$streams"
if [ -x "$TESTBIN/trace-gen" ]; then
	"$TESTBIN/trace-gen" --seed 11 --ops 28 --gpus 1 --steps 2 --format tfrecord \
		-o "$streams/two-runs.tfrecord"
	"$TESTBIN/trace-gen" --seed 12 --ops 40 --gpus 0 --steps 3 --loop 2 --old-names \
		--format tfrecord -o "$streams/three-runs.tfrecord.gz"
fi

for name in $names; do
	case $name in
	binary) seed binary '*.pb' $data_dirs; seed binary '*.bin' $data_dirs ;;
	decode) seed decode '*.pb' $data_dirs; seed decode '*tfevents*' $data_dirs ;;
	text) seed text '*.pbtxt' $data_dirs ;;
	pbjson) seed pbjson '*.json' tests/cli/data/pbjson $chrome_dirs ;;
	tfrecord)
		seed tfrecord '*tfrecord*' $data_dirs "$streams"
		seed tfrecord '*tfevents*' $data_dirs
		;;
	chrome) seed chrome '*.json' $chrome_dirs ;;
	tlmem) seed tlmem '*.json' $chrome_dirs tests/cli/data/tlmem ;;
	xspace)
		seed xspace '*' tests/fuzz/seeds/xspace
		seed xspace '*.xplane.pb*' $data_dirs
		;;
	tf2trace) seed tf2trace '*' tests/fuzz/seeds/tf2trace ;;
	dataflow | memory | summarize | merge | graph)
		for p in '*.pb' '*.pbtxt' '*tfrecord*' '*tfevents*' '*.gz'; do
			seed "$name" "$p" $data_dirs "$streams"
		done
		if [ "$name" = merge ] || [ "$name" = summarize ]; then
			seed "$name" '*.json' $chrome_dirs
		fi
		;;
	*)
		echo "fuzz: no harness named '$name'" >&2
		exit 2
		;;
	esac
	# Regression inputs of other harnesses are good seeds for every one.
	seed "$name" '*' tests/fuzz/regressions
done

run_one() { # NAME
	name=$1
	bin=${FUZZ_BIN:-$FUZZ_BUILD/fuzzers}/fuzz_$name
	log=$logs/$name.log
	mkdir -p "$artifacts/$name"
	"$bin" "$corpus/$name" -max_total_time="$FUZZ_SECONDS" -timeout=10 \
		-rss_limit_mb=2048 -max_len="$FUZZ_MAX_LEN" -print_final_stats=1 \
		-artifact_prefix="$artifacts/$name/" >"$log" 2>&1
	rc=$?
	execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -n 1)
	size=$(ls "$corpus/$name" | wc -l)
	if [ "$rc" = 0 ]; then
		printf 'fuzz %-10s ok      %10s executions in %s s, corpus %s\n' "$name" \
			"${execs:-?}" "$FUZZ_SECONDS" "$size"
	else
		printf 'fuzz %-10s FAILED  (exit %s) after %s executions; see %s and %s\n' "$name" \
			"$rc" "${execs:-?}" "$log" "$artifacts/$name/"
		grep -E '^(==[0-9]+==ERROR|SUMMARY|fuzz:|.*runtime error)' "$log" | head -n 5 |
			sed 's/^/    /'
	fi
	return $rc
}

status=0
running=0
pids=""
for name in $names; do
	run_one "$name" >"$logs/$name.result" &
	pids="$pids $!:$name"
	running=$((running + 1))
	if [ "$running" -ge "$FUZZ_JOBS" ]; then
		# wait for the oldest
		first=${pids# }
		first=${first%% *}
		wait "${first%%:*}" || status=1
		cat "$logs/${first#*:}.result"
		pids=${pids#" $first"}
		running=$((running - 1))
	fi
done
for p in $pids; do
	wait "${p%%:*}" || status=1
	cat "$logs/${p#*:}.result"
done
exit $status
