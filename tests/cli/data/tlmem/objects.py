#!/usr/bin/env python3
"""The tensor objects of a timeline.py trace, cut short or not, counted with
Python's own JSON decoder apart from the tools: the events of "traceEvents"
decoded one after the other until one does not decode; objects keyed by (pid,
id, name); an object with no D and a later object of its name is a loop's
earlier run (timeline.py leaves it out of its counters), one with no D and no
later one is never freed. Prints per allocator (of the description; "(none)"
where it names none), by name: [allocator, kept, never freed] as JSON.

Usage: objects.py FILE
"""
import json
import re
import sys

text = open(sys.argv[1], "rb").read().decode("utf-8", "replace")
at = re.search(r'"traceEvents"\s*:\s*\[', text).end()
dec = json.JSONDecoder()
objs, last = [], {}
while True:
    while at < len(text) and text[at] in " \t\r\n,":
        at += 1
    if at >= len(text) or text[at] == "]":
        break
    try:
        e, at = dec.raw_decode(text, at)
    except ValueError:
        break
    key = (e.get("pid"), e.get("id"), e.get("name"))
    if e.get("ph") == "N":
        objs.append({"name": e["name"], "alloc": None, "d": False})
        last[key] = objs[-1]
    elif e.get("ph") == "O" and key in last:
        m = re.search(r"allocator_name: (.*)", e["args"]["snapshot"]["tensor_description"])
        last[key]["alloc"] = m.group(1).strip() if m else "(none)"
    elif e.get("ph") == "D" and key in last:
        last[key]["d"] = True
out = {}
for i, o in enumerate(objs):
    if o["alloc"] is None:
        continue
    later = any(p["name"] == o["name"] for p in objs[i + 1:])
    if not o["d"] and later:
        continue
    k = out.setdefault(o["alloc"], [0, 0])
    k[0] += 1
    k[1] += 0 if o["d"] else 1
print(json.dumps([[a] + out[a] for a in sorted(out)], separators=(",", ":")))
