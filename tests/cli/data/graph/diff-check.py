#!/usr/bin/env python3
"""Checks graph-render --diff's DOT against trace-summarize --view node
--diff --format csv of the same A and B, by the rule graph-render --help and
the README state, written here apart from the library:

  - a node's change is the CSV's delta for its name; a collapsed scope
    (shape=box3d, id "scope/") sums the deltas of the rows under it that
    ran in B (b_occurrence > 0);
  - s is the largest |change| drawn; a change 0 is grey (#e5e5e5); else
    four steps each way, for |change| in (0, s/64], (s/64, s/16],
    (s/16, s/4], (s/4, s]: slower #fddbc7 #f4a582 #d6604d #b2182b, faster
    #d1e5f0 #92c5de #4393c3 #2166ac; a node with no row (run in neither)
    has no fill;
  - a node whose row has a_occurrence 0 is new (a dashed outline), unless
    --paired B_NAME=A_NAME says it was matched to A_NAME by op and scope:
    then its change is B_NAME's b less A_NAME's a;
  - the legend's first range ends at the largest slowdown, its last range
    begins at the largest speedup (as printed: three significant digits).

  diff-check.py GRAPH.dot TABLE.csv [--memory] [--paired B_NAME=A_NAME]... [--graph B.pbtxt]

--graph: B in protobuf text; its _Send and _Recv nodes (drawn as edges) are
left out of the collapsed scopes' sums.
Prints "ok: N nodes, M collapsed" or each mismatch, exit 1.
"""
import csv
import re
import sys

SLOWER = ["#fddbc7", "#f4a582", "#d6604d", "#b2182b"]
FASTER = ["#d1e5f0", "#92c5de", "#4393c3", "#2166ac"]
GREY = "#e5e5e5"

dot_path, csv_path = sys.argv[1], sys.argv[2]
memory = "--memory" in sys.argv
paired = dict(sys.argv[i + 1].split("=", 1) for i, a in enumerate(sys.argv) if a == "--paired")
hidden = set()
if "--graph" in sys.argv:
    name = None
    for line in open(sys.argv[sys.argv.index("--graph") + 1]):
        m = re.match(r'\s*name: "(.*)"$', line)
        if m:
            name = m.group(1)
        m = re.match(r'\s*op: "(_Send|_Recv)"$', line)
        if m and name is not None:
            hidden.add(name)
rows = {}
with open(csv_path) as f:
    for r in csv.DictReader(f):
        rows[r["name"]] = r
# the table's microseconds or bytes, in the legend's nanoseconds or bytes
unit = 1 if memory else 1000
column = "output_bytes" if memory else "total_micros"


def delta(r):
    if r["name"] in paired:
        return (float(r["b_" + column]) - float(rows[paired[r["name"]]]["a_" + column])) * unit
    return float(r["delta"]) * unit


def unquote(s):
    return s.replace('\\"', '"').replace("\\\\", "\\")


verts = []
legend = None
for line in open(dot_path):
    m = re.match(r'\s*"((?:[^"\\]|\\.)*)" \[(.*)\];$', line)
    if not m:
        continue
    vid, attrs = unquote(m.group(1)), m.group(2)
    if vid == "legend":
        legend = attrs
        continue
    fill = re.search(r'fillcolor="([^"]*)"', attrs)
    verts.append({
        "id": vid,
        "fill": fill.group(1) if fill else None,
        "collapsed": "shape=box3d" in attrs,
        "dashed": "dashed" in attrs,
    })

bad = []
changes = {}
for v in verts:
    if v["collapsed"]:
        under = [r for n, r in rows.items() if n.startswith(v["id"]) and float(r["b_occurrence"]) > 0
                 and n not in hidden]
        changes[v["id"]] = sum(delta(r) for r in under) if under else None
    else:
        r = rows.get(v["id"])
        changes[v["id"]] = delta(r) if r is not None else None
        new = r is not None and float(r["a_occurrence"]) == 0 and v["id"] not in paired
        if r is not None and v["dashed"] != new:
            bad.append("%s: new is %s, drawn %s" % (v["id"], new, v["dashed"]))
s = max([abs(c) for c in changes.values() if c is not None] + [0])


def expected(c):
    if c is None:
        return None
    if c == 0:
        return GREY
    m = abs(c)
    k = 3 if m > s / 4 else 2 if m > s / 16 else 1 if m > s / 64 else 0
    return (SLOWER if c > 0 else FASTER)[k]


def near_edge(c):
    return any(abs(abs(c) - s / d) <= 1e-6 * s for d in (4, 16, 64))


for v in verts:
    c = changes[v["id"]]
    want = expected(c)
    if c is not None and c == 0 and v["fill"] is None:
        continue  # a collapsed scope of nodes run in neither
    if v["fill"] != want and not (c is not None and near_edge(c)):
        bad.append("%s: change %r, fill %s, expected %s" % (v["id"], c, v["fill"], want))


def parse(text):
    m = re.match(r"([+-]?)([\d.]+) ?(ns|us|ms|s|B|KB|MB|GB|TB)$", text)
    if text == "0":
        return 0.0
    scale = {"ns": 1, "us": 1e3, "ms": 1e6, "s": 1e9, "B": 1, "KB": 1e3, "MB": 1e6,
             "GB": 1e9, "TB": 1e12}[m.group(3)]
    return (-1 if m.group(1) == "-" else 1) * float(m.group(2)) * scale


ranges = re.findall(r'<td align="left">([^<]*) to ([^<]*)</td>', legend or "")
ups = [c for c in changes.values() if c is not None and c > 0]
downs = [c for c in changes.values() if c is not None and c < 0]
if ups:
    top = parse(ranges[0][1])
    if abs(top - max(ups)) > 0.005 * max(ups):
        bad.append("legend: first range ends at %s, largest slowdown %r" % (ranges[0][1], max(ups)))
if downs:
    low = parse(ranges[-1][0])
    if abs(low - min(downs)) > 0.005 * abs(min(downs)):
        bad.append("legend: last range begins at %s, largest speedup %r" % (ranges[-1][0], min(downs)))
if bad:
    print("\n".join(bad))
    sys.exit(1)
print("ok: %d nodes, %d collapsed" % (len(verts), sum(v["collapsed"] for v in verts)))
