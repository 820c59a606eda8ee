#!/usr/bin/env python3
"""band_limit.py DUMP.pbtxt TRUTH.json: how wide any band must be, and how far
some truth must be from any curve, on a trace-gen run, worked out from the
dump and the truth alone (not from trace-memory).

It builds a second history that every record, sample and allocation id of the
dump allows as well as the truth does: pairs of unrecorded _Recv buffers of one
allocator swap their births (the larger one, born first, is born at the
smaller one's instant, and the smaller one at the larger one's):
  - the instants of allocation are the same, so every allocation id keeps its
    time (the id of the allocation at an instant goes with it);
  - no allocator_bytes_in_use sample of that allocator falls in [first birth,
    second birth), so every sample reads what it read;
  - each is born after the step start and before the earliest start of any
    execution of a node that reads it (its consumers), so the records allow it;
  - a buffer whose allocation id the dump shows (a forwarding consumer named
    it) keeps its birth.
The two histories differ by d(t) (the swapped bytes, while swapped). A band
that holds both truths is at least |d(t)| wide at every instant, and a curve
is at least |d(t)|/2 from one of them: per allocator the time-weighted |d| as
a percentage of the truth's peak is printed, and a line with both bounds.
"""
import bisect
import collections
import json
import re
import sys


def parse_dump(path):
    """Samples per allocator (execution end instants), the earliest start of
    every node's executions, the allocation ids the dump shows, the graph's
    data inputs per node."""
    samples = collections.defaultdict(set)
    first_start = {}
    ids = set()
    inputs = collections.defaultdict(list)
    node = start = end = alloc = None
    graph_node = None
    for line in open(path):
        line = line.strip()
        m = re.match(r'node_name: "(.*)"$', line)
        if m:
            node = m.group(1)
            continue
        m = re.match(r'all_start_micros: (\d+)$', line)
        if m:
            start = int(m.group(1))
            first_start[node] = min(first_start.get(node, start), start)
            continue
        m = re.match(r'all_end_rel_micros: (\d+)$', line)
        if m:
            end = start + int(m.group(1))
            continue
        m = re.match(r'allocator_name: "(.*)"$', line)
        if m:
            alloc = m.group(1)
            continue
        m = re.match(r'allocator_bytes_in_use: (\d+)$', line)
        if m and int(m.group(1)) > 0:
            samples[alloc].add(end)
            continue
        m = re.match(r'allocation_id: (\d+)$', line)
        if m:
            ids.add(int(m.group(1)))
            continue
        m = re.match(r'name: "(.*)"$', line)
        if m:
            graph_node = m.group(1)
            continue
        m = re.match(r'input: "([^\^].*)"$', line)
        if m:
            src = m.group(1).split(':')
            if len(src) == 1 or src[1] == '0':
                inputs[src[0]].append(graph_node)
    return samples, first_start, ids, inputs


def main():
    samples, first_start, ids, readers = parse_dump(sys.argv[1])
    truth = json.load(open(sys.argv[2]))
    s0, s1 = truth['step_start_micros'], truth['step_end_micros']
    peaks = {a['name']: a['peak_bytes'] for a in truth['allocators']} \
        if isinstance(truth['allocators'], list) else \
        {k: v['peak_bytes'] for k, v in truth['allocators'].items()}
    by = collections.defaultdict(list)
    for b in truth['buffers']:
        if b['producer_recorded'] or b['kind'] != 'output' or b['allocation_id'] in ids:
            continue
        starts = [first_start[c] for c in readers.get(b['producer'], []) if c in first_start]
        if not starts:
            continue
        by[b['allocator']].append((b['alloc_micros'], b['bytes_allocated'], s0 + 1, min(starts)))
    for a, us in sorted(by.items()):
        ss = sorted(samples[a])

        def quiet(x, y):
            i = bisect.bisect_left(ss, x)
            return i == len(ss) or ss[i] >= y

        cand = []
        for i, (bi, si, loi, hii) in enumerate(us):
            for j, (bj, sj, loj, hij) in enumerate(us):
                if bi < bj and si > sj and loj <= bi and bj <= hii and quiet(bi, bj):
                    cand.append(((si - sj) * (bj - bi), i, j))
        cand.sort(reverse=True)
        used, delta, n = set(), collections.Counter(), 0
        for _, i, j in cand:
            if i in used or j in used:
                continue
            used |= {i, j}
            n += 1
            d = us[i][1] - us[j][1]
            delta[us[i][0]] -= d
            delta[us[j][0]] += d
        total, cur, last = 0, 0, s0
        for x in sorted(delta):
            total += abs(cur) * (x - last)
            cur += delta[x]
            last = x
        total += abs(cur) * (s1 - last)
        pct = total / (s1 - s0) / peaks[a] * 100
        print(f"{a}: {len(us)} unrecorded births, {n} swapped pairs, histories "
              f"{pct:.2f}% apart: band >= {pct:.2f}%, some truth >= {pct / 2:.2f}% from any curve")


main()
