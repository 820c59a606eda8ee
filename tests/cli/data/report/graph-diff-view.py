#!/usr/bin/env python3
"""Checks the two-run page's graph view (graphview.js, as a headless browser
drew it: report-check html or ffhtml) against trace-summarize --view node
--diff --format csv of the same A and B and graph-render's DOT of each
(--max-nodes 0: every node, in its device's cluster), by the rule
graph-render --diff states, written here apart from the page's code:

  - a node's A and B are the table's totals (ns; with --memory, the table of
    --order-by output_bytes: its output bytes), rounded half away from zero,
    0 where it has no row; it is new when B has it and A has neither a row
    with a_occurrence > 0 nor a node of that name, unless --paired
    B_NAME=A_NAME pairs it (then its A is A_NAME's);
  - an item of the view (g.node with data-diff) is an op (its name), a
    collapsed scope (every node under its path) or a folded entry
    ("PATH/base_L ... base_H/ (K folded)": every node under PATH/base_N/ for
    each of its K scopes base_N, L <= N <= H) on its device's cluster; its
    A, B and new count are its nodes' sums;
  - s is the largest |B - A| among the view's items; an item with A = B = 0
    is white; else grey (#e5e5e5) for no change, else four steps each way
    for |B - A| in (0, s/64], (s/64, s/16], (s/16, s/4], (s/4, s]: slower
    #fddbc7 #f4a582 #d6604d #b2182b, faster #d1e5f0 #92c5de #4393c3 #2166ac;
    a dashed outline where new > 0;
  - the legend's first swatch ends at the largest slowdown (growth), its
    last range begins at the largest speedup (shrinking), in the unit,
    rounded.

  graph-diff-view.py DOM.html TABLE.csv A.dot B.dot [--paired B_NAME=A_NAME]... [--memory]

Prints "ok: N items (M collapsed, F folded), K new, slowest +X ns, fastest -Y ns"
(bytes with --memory) or each mismatch, exit 1.
"""
import csv
import html
import math
import re
import sys

from dotnodes import dot_nodes

SLOWER = ["#fddbc7", "#f4a582", "#d6604d", "#b2182b"]
FASTER = ["#d1e5f0", "#92c5de", "#4393c3", "#2166ac"]

dom_path, csv_path, a_dot, b_dot = sys.argv[1:5]
paired = dict(sys.argv[i + 1].split("=", 1) for i, a in enumerate(sys.argv) if a == "--paired")
memory = "--memory" in sys.argv
unit, col = ("bytes", "output_bytes") if memory else ("ns", "total_micros")
a_nodes, b_nodes = dot_nodes(a_dot), dot_nodes(b_dot)
rows = {r["name"]: r for r in csv.DictReader(open(csv_path))}


def units(x):
    v = float(x) * (1 if memory else 1000)
    return int(math.copysign(math.floor(abs(v) + 0.5), v))


def values(name):
    r = rows.get(name)
    b = units(r["b_" + col]) if r else 0
    if name in paired:
        ra = rows.get(paired[name])
        return (units(ra["a_" + col]) if ra else 0), b, 0
    in_a = name in a_nodes or (r is not None and float(r["a_occurrence"]) > 0)
    return ((units(r["a_" + col]) if r and in_a else 0), b, 0 if in_a else 1)


def members(it):
    """B's nodes the item stands for, on its device, and a fault or None."""
    on = [n for n, d in b_nodes.items() if d == it["device"]]
    f = re.match(r"^(.*?)([^/]+)_(\d+) \.\.\. \2_(\d+)/ \((\d+) folded\)$", it["name"])
    if f:
        pre, base, lo, hi, k = f.group(1), f.group(2), int(f.group(3)), int(f.group(4)), int(f.group(5))
        scopes, under = set(), []
        for n in on:
            if not n.startswith(pre):
                continue
            parts = n[len(pre):].split("/")
            m = re.fullmatch(re.escape(base) + r"_(\d{1,12})", parts[0])
            if len(parts) > 1 and m and lo <= int(m.group(1)) <= hi:
                scopes.add(parts[0])
                under.append(n)
        if len(scopes) != k:
            return under, "folds %d scopes, B's DOT has %d of %s_%d ... %s_%d there" % (k, len(scopes), base, lo, base, hi)
        return under, None
    pre = it["name"] + "/"
    return [n for n in on if (n.startswith(pre) if it["collapsed"] else n == it["name"])], None


dom = open(dom_path, encoding="utf-8").read()
items = []
for m in re.finditer(r'<g class="node( collapsed)?" data-item="\d+" data-diff="([^"]*)" data-device="([^"]*)"><title>(.*?)</title>'
                     r'<g><title>.*?</title><rect ([^>]*)>', dom, re.S):
    attrs = dict(re.findall(r'([a-z-]+)="([^"]*)"', m.group(5)))
    items.append({"collapsed": bool(m.group(1)), "claim": [int(float(v)) for v in m.group(2).split()],
                  "device": html.unescape(m.group(3)), "name": html.unescape(m.group(4)),
                  "fill": attrs.get("fill"), "dashed": "stroke-dasharray" in attrs})
bad, folded, checked = [], 0, []
for it in items:
    if re.search(r" \.\.\. .*/ \(\d+ folded\)$", it["name"]):
        folded += 1
    under, fault = members(it)
    if fault:
        bad.append("%s on %s: %s" % (it["name"], it["device"], fault))
    if not under:
        bad.append("%s on %s: no node of B's DOT" % (it["name"], it["device"]))
        continue
    a = sum(values(n)[0] for n in under)
    b = sum(values(n)[1] for n in under)
    new = sum(values(n)[2] for n in under)
    it["want"] = [a, b, new]
    if it["claim"] != it["want"]:
        bad.append("%s on %s: A B new drawn %s, expected %s" % (it["name"], it["device"], it["claim"], it["want"]))
    checked.append(it)
s = max([abs(it["want"][1] - it["want"][0]) for it in checked] + [0])


def expected(a, b):
    if a == 0 and b == 0:
        return "#ffffff"
    c = b - a
    if c == 0:
        return "#e5e5e5"
    k = 3 if abs(c) > s / 4 else 2 if abs(c) > s / 16 else 1 if abs(c) > s / 64 else 0
    return (SLOWER if c > 0 else FASTER)[k]


for it in checked:
    a, b, new = it["want"]
    if it["fill"] != expected(a, b):
        bad.append("%s: change %d, fill %s, expected %s" % (it["name"], b - a, it["fill"], expected(a, b)))
    if it["dashed"] != (new > 0):
        bad.append("%s: %d new, dashed outline %s" % (it["name"], new, it["dashed"]))
up = max([it["want"][1] - it["want"][0] for it in checked] + [0])
down = max([it["want"][0] - it["want"][1] for it in checked] + [0])
sw = [(int(lo), int(hi)) for lo, hi in re.findall(r'data-lo="(-?\d+)" data-hi="(-?\d+)"', dom)]
if up > 0 and (not sw or sw[0][1] != up):
    bad.append("legend: the first range ends at %s, the largest slowdown is %d" % (sw[0][1] if sw else None, up))
if down > 0 and (not sw or sw[-1][0] != -down):
    bad.append("legend: the last range begins at %s, the largest speedup is -%d" % (sw[-1][0] if sw else None, down))
if not items:
    bad.append("no item with data-diff in the page")
for line in bad:
    print(line)
if bad:
    sys.exit(1)
print("ok: %d items (%d collapsed, %d folded), %d new, slowest %+d %s, fastest %+d %s" % (
    len(items), sum(1 for it in items if it["collapsed"]), folded,
    sum(it["want"][2] for it in checked), up, unit, -down, unit))
