#!/bin/sh
# Which library files the unit tests exercise: the unit tests built with
# gcov's instrumentation (in build/cov), run, and each libtrace/*/*.c file's
# share of lines executed printed, then how many files reach MIN_LINES
# percent (default 50), per layer and in all. Exits 1 when fewer than
# MIN_FILES percent of all the files (default 75) do.
# Usage: scripts/coverage.sh        (make coverage)
set -eu
cd "$(dirname "$0")/.."
B=${COV_BUILD:-build/cov}
MIN_LINES=${MIN_LINES:-50}
MIN_FILES=${MIN_FILES:-75}
units=$(ls tests/unit/*/test_*.c | sed "s|tests/unit/\(.*\)\.c|$B/tests/unit/\1|")
make -s -j"$(nproc)" BUILD="$B" OPT="-O0 -g --coverage" $units >/dev/null
find "$B" -name '*.gcda' -delete
fail=0
for t in $units; do
	TL_DATA=tests/data "$t" >/dev/null 2>&1 || { echo "coverage: $t failed" >&2; fail=1; }
done
[ $fail = 0 ] || exit 1
tab=$(mktemp)
trap 'rm -f "$tab" "$tab.now"' EXIT
for d in "$B"/obj/*/; do
	(cd "$d" && gcov -n ./*.o 2>/dev/null) |
		awk '/^File / {f=$2; gsub("\047", "", f)} /^Lines executed:/ {split($2, a, ":"); sub("%", "", a[2]); print f, a[2]}'
done | grep '^libtrace/[a-z]*/[a-z0-9_]*\.c ' |
	awk '{ if (!($1 in best) || $2 + 0 > best[$1] + 0) best[$1] = $2 } END { for (f in best) print f, best[f] }' > "$tab"
# the sources as they are now (an object of a file since removed is left out)
for f in libtrace/*/*.c; do
	grep "^$f " "$tab" || echo "$f 0.00"
done > "$tab.now"
mv "$tab.now" "$tab"
sort "$tab" | awk -v min="$MIN_LINES" -v want="$MIN_FILES" '
	{ split($1, p, "/"); l = p[2]; n[l]++; all++; ok = ($2 + 0 >= min); c[l] += ok; call += ok
	  printf "%-40s %6.2f%%%s\n", $1, $2, ok ? "" : "   (under " min "%)" }
	END {
		split("base io model analysis emit cli", order, " ")
		for (i = 1; i <= 6; i++) if ((l = order[i]) in n)
			printf "%-10s %d of %d files at %d%% of lines or more\n", l, c[l], n[l], min
		printf "all        %d of %d files (%.0f%%; the bar: %d%%)\n", call, all, 100 * call / all, want
		exit 100 * call < want * all
	}'
