#!/usr/bin/env python3
"""The events of a damaged Chrome trace that come before its damage, counted
with Python's own JSON decoder, apart from the tools: the events of
"traceEvents" (or of a top-level array) decoded one after the other until one
does not decode. Prints the complete events ("X") and those of them a summary
counts (all but Kineto's cat Trace and gpu_user_annotation), and the byte
where decoding stopped.

Usage: prefix.py FILE
"""
import json
import re
import sys

text = open(sys.argv[1], "rb").read().decode("utf-8", "replace")
m = re.match(r"\s*\[", text)
if m is None:
    m = re.search(r'"traceEvents"\s*:\s*\[', text)
at = m.end()
dec = json.JSONDecoder()
slices = counted = 0
while True:
    while at < len(text) and text[at] in " \t\r\n,":
        at += 1
    if at >= len(text) or text[at] == "]":
        break
    try:
        ev, at = dec.raw_decode(text, at)
    except ValueError:
        break
    if isinstance(ev, dict) and ev.get("ph") == "X":
        slices += 1
        counted += ev.get("cat") not in ("Trace", "gpu_user_annotation")
print(slices, counted, at)
