#!/bin/sh
# Runs the CLI golden tests (tests/cli/*.test) with every tool of BIN run
# under valgrind memcheck (make valgrind): a wrapper folder of scripts, one
# per tool, goes first on the cases' PATH. Any memcheck error or definite
# leak makes the tool exit 99 and print valgrind's report on stderr, so its
# case fails. Test programs (chrome-check, trace-gen, ...) run natively.
#
# Usage: BIN=build/bin TESTBIN=build/tests scripts/valgrind.sh [TEST...]
# Environment:
#   VALGRIND_SKIP  extended regex of cases left out (matched against
#                  "file:line what"); default: the cases that compare every
#                  tool's output across many encodings of one run (see
#                  default_skip), the cases that run tools
#                  on a million executions of one node (four in hostile.test,
#                  trace-report's page in trace-report.test) and the three
#                  that run one tool each on a million devices (and the
#                  XSpace plane of a million lines), which take
#                  over 10 minutes each under memcheck and exercise no code
#                  the small cases do not (the first 2 ms of the million
#                  executions still runs). Set it empty to run everything.
#   VALGRIND_TIMEOUT_SCALE  case timeouts are multiplied by it (default 30)
#   VALGRIND_JOBS  test files run at once (default: the number of cores)
# The cases still find what lies beside the real tools (man pages, make
# install) through TOOLBUILD, the folder above BIN.
set -eu
cd "$(dirname "$0")/.."
BIN=$(cd "${BIN:-build/bin}" && pwd)
TESTBIN=${TESTBIN:-build/tests}
wrap=build/valgrind/bin
supp=$(pwd)/tests/valgrind.supp
rm -rf "$wrap"
mkdir -p "$wrap"
for tool in "$BIN"/*; do
	[ -x "$tool" ] || continue
	name=$(basename "$tool")
	# The tool is found on PATH by its bare name, so its argv[0] (in its
	# messages) is the same as without valgrind.
	cat >"$wrap/$name" <<SCRIPT
#!/bin/sh
PATH="$BIN:\$PATH" exec valgrind --quiet --error-exitcode=99 --leak-check=full \\
	--errors-for-leak-kinds=definite --show-leak-kinds=definite --num-callers=30 \\
	--suppressions="$supp" $name "\$@"
SCRIPT
	chmod +x "$wrap/$name"
done
default_skip='hostile\.test:.*(a node executed a million times|a million devices)|xspace\.test:.*a plane with a million lines|trace-report\.test:.*a node run a million times'
# The cases that run every tool on each of many inputs to compare outputs
# across encodings (pbjson.test beyond its first shape, shift.test beyond
# its Kineto, TF2 and XSpace cases), and those on the 27 MB Kineto trace:
# hundreds of tool runs of paths the cases kept run too, an hour under
# memcheck on two cores.
default_skip="$default_skip"'|pbjson\.test:[0-9]+ (\.\.\. (two GPUs|quirks|TensorFlow 1\.3|a distributed run)|a StepStats alone|the real dumps)'
default_skip="$default_skip"'|shift\.test:[0-9]+ (TF1 timeline|Kineto JSON without|binary RunMetadata|RunMetadata as protobuf text|StepStats as|binary StepStats|a TFRecord stream|a TensorBoard events|an XSpace \(real|the real files of the issue)'
# The cases that set TMPDIR to a folder that does not exist: valgrind keeps
# its own files in $TMPDIR and cannot start there.
default_skip="$default_skip"'|trace-report\.test:[0-9]+ the runs. page data wait in a temporary file'
default_skip="$default_skip"'|stream\.test:[0-9]+ no temporary file can be made'
default_skip="$default_skip"'|kernels\.test:[0-9]+ (a real PyTorch trace \(Kineto, 2021|the same trace: its streams)|chrome-damage\.test:[0-9]+ the 27 MB Kineto trace'
CLI_SKIP=${VALGRIND_SKIP-$default_skip} \
	CLI_TIMEOUT_SCALE=${VALGRIND_TIMEOUT_SCALE:-30} \
	CLI_JOBS=${VALGRIND_JOBS:-$(nproc)} TOOLBUILD=$(dirname "$BIN") \
	BIN=$wrap TESTBIN=$TESTBIN tests/cli/run "$@"
