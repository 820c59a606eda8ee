# The op slices of a Chrome trace by run and device: "RUN DEVICE N" per
# (run, device), RUN numbering the run labels (the process names' part
# before ": /", none when the trace holds one run) in order of appearance,
# an op slice being an X event whose node (args.name, else its name) is one
# of xspace-gen's ops ("model/layer_L/...").
[.traceEvents[] | select(.ph == "M" and .name == "process_name")
 | select(.args.name | test("^/|: /"))
 | {pid: .pid, p: (.args.name | capture("^((?<l>.*?): )?(?<d>/.*)$") | .l //= "")}] as $ps
| ($ps | reduce .[].p.l as $l ([]; if index([$l]) then . else . + [$l] end)) as $runs
| ($ps | map(.p.l as $l | {key: (.pid | tostring), value: "\(($runs | index([$l])) + 1) \(.p.d)"})
  | from_entries) as $dev
| [.traceEvents[] | select(.ph == "X")
   | select((.args.name // .name) | tostring | test("^model/layer_"))
   | $dev[.pid | tostring] // "?"]
| group_by(.) | .[] | "\(.[0]) \(length)"
