#!/bin/bash
# check.sh KIND FILE DIR TOOL=HOW...
# Shifts FILE (shift.py KIND) to epoch2030, zero and negative in DIR, runs
# each TOOL on the input and on each copy (the same file name in its own
# folder, so names in outputs agree) and prints per target and tool
#   TARGET TOOL EXIT-ORIGINAL EXIT-SHIFTED RESULT
# RESULT compares the outputs as HOW says:
#   same    byte for byte (tables, DOT, outputs on the run's own clock)
#   shift   Chrome JSON whose every ts moved by the shift (shift.py same-chrome)
#   report  trace-report's page, its runs' origin_us moved by the shift
# and is "ok" or the first difference; where the tool refused the input,
# its error line must be the same too. SKIP="TARGET:TOOL ..." leaves cells out.
kind=$1 file=$2 dir=$3
shift 3
here=$(cd "$(dirname "$0")" && pwd)
name=in.${file##*/}
mkdir -p "$dir/orig"
cp "$file" "$dir/orig/$name"
for target in epoch2030 zero negative; do
	mkdir -p "$dir/$target"
	s=$(python3 "$here/shift.py" "$kind" "$target" "$dir/orig/$name" "$dir/$target/$name") || exit 1
	for th in "$@"; do
		tool=${th%=*} how=${th#*=}
		case " $SKIP " in *" $target:$tool "*) continue ;; esac
		for v in orig "$target"; do
			[ -e "$dir/$v/$tool.rc" ] && continue
			(cd "$dir/$v" && "$tool" -q "$name" > "$tool.out" 2> "$tool.err"; echo $? > "$tool.rc")
		done
		a=$dir/orig/$tool.out b=$dir/$target/$tool.out
		case $how in
		same) if cmp -s "$a" "$b"; then r=ok; else r="differs: $(cmp "$a" "$b" 2>&1 | head -1)"; fi ;;
		shift) r=$(python3 "$here/shift.py" same-chrome "$s" "$a" "$b" | head -3) ;;
		report) r=$(python3 "$here/shift.py" same-report "$s" "$a" "$b" | head -3) ;;
		esac
		[ "$r" = same ] && r=ok
		# a refusal must be the same line
		if [ "$r" = ok ] && [ "$(cat "$dir/orig/$tool.rc")" != 0 ] &&
			! cmp -s "$dir/orig/$tool.err" "$dir/$target/$tool.err"; then
			r="error differs: $(head -1 "$dir/$target/$tool.err")"
		fi
		echo "$target $tool $(cat "$dir/orig/$tool.rc") $(cat "$dir/$target/$tool.rc") $r"
	done
done
