#!/usr/bin/env python3
"""What trace-memory makes of a timeline.py trace with show_memory=True, checked
against numbers computed here from the files themselves, and set beside
trace-memory's exact result on the StepStats of the same run.

usage: compare.py MEM_FLOW.json TL_REPORT.json [MAXIMUMS.json] [EXACT_REPORT.json [TRUTH.json]]

MEM_FLOW.json is timeline.py's output; TL_REPORT.json is `trace-memory --report
--top 0 --format json MEM_FLOW.json`; MAXIMUMS.json is timeline.py's own
allocator_maximums of the run ('-' when there is none); EXACT_REPORT.json is
`trace-memory --report --top 0 --format json` of the StepStats; TRUTH.json the
generator's truth of the run (exact/README.md).

Computed here, apart from trace-memory (the rules are timeline.py's, from its
source: tensorflow/python/client/timeline.py):
  - the counters: per allocator, its "C" events' values (args[allocator]) in file
    order; the peak is their largest, the time the first at which it is
    reached (ts less the trace start: the least ts of any event but "M");
  - the check: one sample per (allocator, ts), the last counter there;
  - the objects: N/O/D by (pid, id, name); the live set at the peak: objects
    of more than 0 bytes with an N at or before the peak's ts and a D after it
    (replayed in timeline.py's order, (ts, bytes, name), to the peak's ts; an
    object with D == N is freed after its allocation, where timeline.py frees
    it first and keeps it in its own live set);
  - requested and allocated bytes of that set, from the descriptions; bytes of
    tensors of the set that share a ptr with an earlier one of the set
    (forwarding counted twice); objects with no D (a loop's earlier runs).
Printed: one line per allocator of the agreement ("=" where trace-memory's
number is the one computed here, else "!= ..."), then the differences.
"""
import json
import re
import sys


def desc_fields(text):
    f = {}
    for key in ("requested_bytes", "allocated_bytes", "ptr", "allocation_id"):
        m = re.search(r"^\s*%s: (\d+)" % key, text, re.M)
        f[key] = int(m.group(1)) if m else 0
    m = re.search(r"^\s*allocator_name: (.*)$", text, re.M)
    name = m.group(1).strip() if m else ""
    # protobuf text escapes (\ooo) back to bytes, then UTF-8
    name = re.sub(rb"\\([0-7]{1,3})", lambda x: bytes([int(x.group(1), 8)]), name.encode()).decode()
    f["allocator"] = name or "(none)"
    return f


def main():
    mem = json.load(open(sys.argv[1]))
    tl = json.load(open(sys.argv[2]))
    maxs = json.load(open(sys.argv[3])) if len(sys.argv) > 3 and sys.argv[3] != "-" else None
    exact = json.load(open(sys.argv[4])) if len(sys.argv) > 4 else None
    truth = json.load(open(sys.argv[5])) if len(sys.argv) > 5 else None
    ev = mem["traceEvents"]
    origin = min(e["ts"] for e in ev if e.get("ph") != "M" and "ts" in e)
    pname = {e["pid"]: e["args"]["name"] for e in ev if e.get("ph") == "M" and e.get("name") == "process_name"}
    counters = {}
    for e in ev:
        if e.get("ph") == "C" and pname.get(e["pid"]) == "Allocators":
            a = e["name"] or "(none)"
            counters.setdefault(a, []).append((e["ts"], e["args"][e["name"]]))
    objs, last = [], {}
    for e in ev:
        ph = e.get("ph")
        key = (e.get("pid"), e.get("id"), e.get("name"))
        if ph == "N":
            objs.append({"name": e["name"], "n": e["ts"], "d": None})
            last[key] = objs[-1]
        elif ph == "O":
            last[key].update(desc_fields(e["args"]["snapshot"]["tensor_description"]))
        elif ph == "D":
            last[key]["d"] = e["ts"]
    undeleted = sum(1 for o in objs if o["d"] is None)
    tl_alloc = {a["allocator"]: a for a in tl["runs"][0]["allocators"]}
    ex_alloc = {a["allocator"]: a for a in exact["runs"][0]["allocators"]} if exact else {}
    print("objects %d, of which %d have no D (a node run several times: timeline.py keeps its last run)" % (len(objs), undeleted))
    for a in sorted(counters):
        cs = counters[a]
        peak = max(v for _, v in cs)
        k_peak = next(i for i, (_, v) in enumerate(cs) if v == peak)
        t_peak = cs[k_peak][0]
        samples = len({t for t, _ in cs})
        # replay timeline.py's order to the peak's counter
        steps = []
        for o in objs:
            if o["d"] is None or o["allocator"] != a:
                continue
            steps.append((o["n"], o["requested_bytes"], o["name"], 0, o))
            # freed at its creation's time: timeline.py frees it first (its
            # counters dip); here it is freed after its allocation, so
            # that it is not live afterwards; the totals per ts agree
            if o["d"] > o["n"]:
                steps.append((o["d"], -o["requested_bytes"], o["name"], 1, o))
            else:
                steps.append((o["n"], o["requested_bytes"], o["name"], 1, o))
        steps.sort(key=lambda s: s[:4])
        live, total = {}, 0
        for i, (t, b, n, free, o) in enumerate(steps):
            total += -abs(b) if free else b
            if free:
                live.pop(n, None)
            elif b > 0:
                live[n] = o
            # the peak's time: the value after all events of that ts
            if t == t_peak and (i + 1 == len(steps) or steps[i + 1][0] != t):
                break
        assert total == peak, (a, total, peak)
        t = tl_alloc.get(a)

        def same(mine, theirs):
            return "=" if mine == theirs else "!= %s" % theirs

        if t is None:
            print("%s: counters' peak %d: trace-memory has no such allocator" % (a, peak))
            continue
        names = sorted(b["op"] for b in t["live_at_peak"])
        line = "%s: peak %d %s, at %d us %s, live %d %s, check %d samples %s, max error %s" % (
            a, peak, same(peak, t["peak_bytes"]), t_peak - origin, same(t_peak - origin, t["peak_us"]),
            len(live), same(sorted(live), names), samples, same(samples, t["check"]["samples"]),
            same(0, t["check"]["max_abs_error_bytes"]))
        if maxs is not None and peak == 0:
            line += "; timeline.py's maximum: none (nothing held)"
        elif maxs is not None:
            m = maxs[a if a != "(none)" else ""]
            line += "; timeline.py's maximum %s" % ("=" if (m["num_bytes"], m["timestamp"]) == (peak, t_peak) else "!=")
            extra = sorted(set(m["tensors"]) - set(live))
            line += ", its live set %s" % ("=" if not extra and set(live) <= set(m["tensors"]) else "has %s too (freed at its creation's time, which its order frees before allocating)" % ", ".join(extra))
        print(line)
        req = sum(o["requested_bytes"] for o in live.values())
        alc = sum(o["allocated_bytes"] or o["requested_bytes"] for o in live.values())
        seen, twice, n_twice = set(), 0, 0
        for n in sorted(live, key=lambda n: live[n]["n"]):
            p = live[n]["ptr"]
            if p and p in seen:
                twice += live[n]["requested_bytes"]
                n_twice += 1
            seen.add(p)
        print("  at its peak: %d requested, %d allocated (%+d); %d tensors (%d bytes) share a ptr with another live one (forwarding counted twice)" % (
            req, alc, alc - req, n_twice, twice))
        if a in ex_alloc:
            x = ex_alloc[a]
            tline = ""
            if truth is not None:
                tt = truth["allocators"][a]
                tline = " %s truth" % ("=" if tt["peak_bytes"] == x["peak_bytes"] else "!=")
            print("  exact (StepStats): peak %d%s, persistent %d; timeline.py's peak is %+d (%+.2f%%)" % (
                x["peak_bytes"], tline, x.get("persistent_bytes", 0), peak - x["peak_bytes"],
                100.0 * (peak - x["peak_bytes"]) / x["peak_bytes"]))
        if truth is not None:
            bufs = [b for b in truth["buffers"] if b["allocator"] == a]
            temps = [b for b in bufs if b["kind"] == "temp"]
            unrec = [b for b in bufs if not b["producer_recorded"]]
            print("  truth: %d temporaries (largest %d), %d buffers of unrecorded producers (%d bytes): none in timeline.py" % (
                len(temps), max([b["bytes_allocated"] for b in temps] or [0]), len(unrec),
                sum(b["bytes_allocated"] for b in unrec)))


main()
