#!/usr/bin/env python3
"""The numbered sibling scopes graph-render --fold folds directly inside
scope PATH ("" the top), from its DOT (--fold --max-nodes 0), apart from
the page's code: per folded vertex whose id is PATH/BASE_*/ and whose label
says two or more folded ("conv2d_1 ... conv2d_10/ (10 folded)"), its
label's first line, one line per device cluster, sorted.

  dot-folds.py GRAPH.dot PATH
"""
import re
import sys

path = sys.argv[2]
out = []
for line in open(sys.argv[1], encoding="utf-8"):
    m = re.match(r'\s*"((?:[^"\\]|\\.)*)" \[label="([^"\\]*(?:\\.[^"\\]*)*)"', line)
    if not m:
        continue
    vid, label = m.group(1), m.group(2).split("\\n")[0]
    f = re.match(r"^(?:(.*)/)?[^/]*_\*/$", vid)
    n = re.search(r" \.\.\. .*/ \((\d+) folded\)$", label)
    if f and n and int(n.group(1)) >= 2 and (f.group(1) or "") == path:
        out.append(label)
for label in sorted(out):
    print(label)
