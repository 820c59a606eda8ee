#!/bin/sh
# Runs every tool on a message in binary and on the same message in each
# protobuf JSON form Python writes (tojson.py), and says where their stdout,
# stderr or exit status differ; for pbjson.test.
#
# Usage: same.sh WORK MESSAGE IN
#   WORK     an empty folder (the case's $TMP)
#   MESSAGE  as tojson.py takes it
#   IN       the message, binary or .pbtxt
# Prints "MESSAGE IN: N runs (K exit 0), all the same" or one line per
# difference (exit 1). Every input is named "run" in a folder of its own, so the labels
# that hold the file's name are the same in both.
set -eu
work=$1 message=$2 in=$3
here=$(dirname "$0")
py=/usr/bin/python3
if [ ! -s "$work/py/tensorflow_pb2.py" ]; then
	mkdir -p "$work/py"
	protoc --proto_path=libtrace/proto --python_out="$work/py" libtrace/proto/tensorflow.proto
fi
mkdir -p "$work/binary"
$py "$here/tojson.py" "$work/py" "$message" "$in" binary "$work/binary/run"
n=0
ok=0
bad=0
for form in camel names wrapped; do
	mkdir -p "$work/$form"
	$py "$here/tojson.py" "$work/py" "$message" "$in" "$form" "$work/$form/run"
	while read -r tool args; do
		for kind in binary "$form"; do
			# shellcheck disable=SC2086 # the options are words
			(cd "$work/$kind" && $tool $args run >out 2>err; echo $? >rc) || :
			# a map is a JSON object: its entries' order is not kept
			case "$args" in *runmeta*)
				$py "$here/tojson.py" "$work/py" --canonical-records \
					"$work/$kind/out" "$work/$kind/out.canon"
				mv "$work/$kind/out.canon" "$work/$kind/out" ;;
			esac
		done
		n=$((n + 1))
		if [ "$(cat "$work/binary/rc")" = 0 ]; then ok=$((ok + 1)); fi
		for f in out err rc; do
			if ! cmp -s "$work/binary/$f" "$work/$form/$f"; then
				echo "$message $(basename "$in") $form: $tool $args: $f differs"
				bad=1
			fi
		done
	done <<TOOLS
trace-dataflow
trace-dataflow --no-flows
trace-memory
trace-memory --report
trace-memory --report --format json --buffers
trace-summarize
trace-summarize --view node --format csv
trace-summarize --view scope
trace-summarize --view kernel
trace-summarize --view device
trace-summarize --critical-path
trace-merge
trace-merge --format runmeta -o -
graph-render
graph-render --color-by time
trace-report -o -
TOOLS
done
if [ $bad = 0 ]; then
	echo "$message $(basename "$in"): $n runs ($ok exit 0), all the same"
fi
exit $bad
