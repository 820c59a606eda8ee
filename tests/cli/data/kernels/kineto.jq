# What a Kineto trace's kernel table must hold, counted in the file: its
# device events (cat kernel, gpu_memcpy, gpu_memset; Kernel, Memcpy, Memset
# in older Kineto), "kernels DISTINCT-NAMES occurrence EVENTS total_ns
# SUM-OF-DUR-IN-NS".
[.traceEvents[] | select(.ph == "X")
 | select((.cat // "") | ascii_downcase | IN("kernel", "gpu_memcpy", "gpu_memset", "memcpy", "memset"))]
| "kernels \(map(.name) | unique | length) occurrence \(length) total_ns \(map(.dur * 1000 | round) | add)"
