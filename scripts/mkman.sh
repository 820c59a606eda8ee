#!/bin/sh
# Builds a man page: man/TOOL.1.in with its @OPTIONS@ line replaced by the
# options of `TOOL --help`, so the page and --help never disagree.
# Usage: scripts/mkman.sh man/TOOL.1.in build/bin/TOOL > build/man/TOOL.1
set -eu
src=$1
bin=$2
version=$("$bin" --version | sed 's/.* //')
"$bin" --help | awk '
	# option lines: "  -x, --long ARG" or "      --long ARG" (cli.c writes them so;
	# a wrapped line of help, or text, never starts so), two or more spaces, text
	/^  -|^      --/ {
		line = $0
		sub(/^ +/, "", line)
		n = match(line, /   */)
		if (n > 0) { opt = substr(line, 1, n - 1); text = substr(line, n); sub(/^ +/, "", text) }
		else { opt = line; text = "" }
		gsub(/\\/, "\\\\", opt); gsub(/-/, "\\-", opt)
		printf ".TP\n.B %s\n%s\n", opt, text
		next
	}
	/^                    / { line = $0; sub(/^ +/, "", line); print line; next }
	/^[A-Z][A-Za-z ]*:$/ { printf ".SS %s\n", substr($0, 1, length($0) - 1); next }
	{ next }
' > "$src.options.tmp.$$"
sed -e "s/@VERSION@/$version/" "$src" | while IFS= read -r l; do
	if [ "$l" = "@OPTIONS@" ]; then cat "$src.options.tmp.$$"; else printf '%s\n' "$l"; fi
done
rm -f "$src.options.tmp.$$"
