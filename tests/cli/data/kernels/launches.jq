# The launch arrows a Kineto or TF2 trace viewer trace records: its device
# events whose correlation id (Kineto's args.correlation, TF2's
# args.correlation_id) some launch carries (Kineto: cat *_runtime,
# *_driver, Runtime; TF2: an event of a "/host:..." process).
[.traceEvents[] | select(.ph == "M" and .name == "process_name" and (.args.name | startswith("/host:"))) | .pid] as $hosts
| [.traceEvents[] | select(.ph == "X" and .args != null)
   | . + {c: ((.args.correlation // .args.correlation_id) | tostring)}
   | select(.c != "null")] as $x
| ($x | map(select(((.cat // "") | test("_runtime$|_driver$|^Runtime$"))
                   or (.cat == null and (.pid as $p | $hosts | index([$p])))) | .c) | unique) as $launch
| [$x[] | select(((.cat // "") | ascii_downcase | IN("kernel", "gpu_memcpy", "gpu_memset", "memcpy", "memset"))
                 or (.cat == null and (.pid as $p | $hosts | index([$p]) | not)))
        | select(.c as $c | $launch | bsearch($c) >= 0)]
| length
