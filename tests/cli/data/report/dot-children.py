#!/usr/bin/env python3
"""What scope PATH ("" the top) directly holds on device DEVICE, from
graph-render's DOT of every node (--max-nodes 0), apart from the page's
code: its ops by their full names, and its child scopes as PATH/NAME, as
the page's view of that scope on that device titles its nodes (an op and a
scope may share a name: conv2d_12/kernel and conv2d_12/kernel/read); sorted
(Python's order), one a line. Names are as Graphviz reads them (&amp; is &).

  dot-children.py GRAPH.dot PATH DEVICE
"""
import html
import sys

from dotnodes import dot_nodes

path, device = sys.argv[2], sys.argv[3]
pre = path + "/" if path else ""
out = set()
for written, dev in dot_nodes(sys.argv[1]).items():
    name = html.unescape(written)
    if dev != device or not name.startswith(pre):
        continue
    rest = name[len(pre):].split("/")
    out.add(("op", name) if len(rest) == 1 else ("scope", pre + rest[0]))
for name in sorted(n for _, n in out):
    print(name)
