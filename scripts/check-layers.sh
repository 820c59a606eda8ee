#!/bin/sh
# Checks the layers and the header tiers, as docs/DESIGN.md draws them:
#   - libtrace's layers include only themselves and the layers before them
#     (base < io < model < analysis < emit < cli); a public header
#     (include/tftrace/LAYER/) belongs to its LAYER as a library file does;
#   - a private header (NAME_internal.h) is included only from its own
#     folder (or that folder's unit tests, tests/unit/LAYER/);
#   - a public header includes only public headers (and the generated
#     tensorflow.pb-c.h, installed beside them), so what make install puts
#     under include/tftrace/ compiles on its own and never reaches a
#     private or library header.
# Prints each include that breaks a rule and exits 1 if there is one.
cd "$(dirname "$0")/.." || exit 2
rank() {
	case $1 in
	base) echo 0 ;; io) echo 1 ;; model) echo 2 ;; analysis) echo 3 ;; emit) echo 4 ;;
	cli) echo 5 ;; *) echo 9 ;;
	esac
}
bad=0
for f in libtrace/*/*.c libtrace/*/*.h include/tftrace/*/*.h; do
	[ -f "$f" ] || continue
	layer=$(basename "$(dirname "$f")")
	[ "$layer" = proto ] && continue
	mine=$(rank "$layer")
	for inc in $(sed -n 's/^#include "\([a-z]*\)\/.*/\1/p' "$f" | sort -u); do
		if [ "$(rank "$inc")" -gt "$mine" ]; then
			echo "$f: includes $inc/ (a later layer than $layer/)"
			bad=1
		fi
	done
done
for f in libtrace/*/*.c libtrace/*/*.h include/tftrace/*.h include/tftrace/*/*.h tools/*.c \
	tests/unit/*/*.c tests/tools/*.c tests/fuzz/*.c; do
	[ -f "$f" ] || continue
	case $f in
	libtrace/*) home=libtrace/$(basename "$(dirname "$f")") ;;
	tests/unit/*) home=libtrace/$(basename "$(dirname "$f")") ;;
	*) home= ;;
	esac
	for inc in $(sed -n 's/^#include "\([a-z]*\/[a-z0-9_]*_internal\.h\)".*/\1/p' "$f" | sort -u); do
		if [ "libtrace/$(dirname "$inc")" != "$home" ]; then
			echo "$f: includes $inc (private to libtrace/$(dirname "$inc")/)"
			bad=1
		fi
	done
done
for f in include/tftrace/*.h include/tftrace/*/*.h; do
	[ -f "$f" ] || continue
	for inc in $(sed -n 's/^#include "\([^"]*\)".*/\1/p' "$f" | sort -u); do
		if [ "$inc" != tensorflow.pb-c.h ] && [ ! -f "include/tftrace/$inc" ]; then
			echo "$f: includes $inc (not a public header: include/tftrace/ has no $inc)"
			bad=1
		fi
	done
done
exit $bad
