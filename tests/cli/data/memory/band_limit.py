#!/usr/bin/env python3
"""band_limit.py DUMP.pbtxt TRUTH.json: how wide any band must be, and how far
some truth must be from any curve, on a trace-gen run, worked out from the
dump and the truth alone (not from trace-memory).

It builds, per allocator, a second history that every record, sample and
allocation id of the dump allows as well as the truth does: pairs of
unrecorded _Recv buffers, one of that allocator and one of any, swap their
births, all of that allocator's moving later, or all earlier (whichever puts
the histories farther apart):
  - the instants of allocation are the same, so every allocation id keeps its
    time (the id of the allocation at an instant goes with it);
  - no allocator_bytes_in_use sample of either allocator falls in [earlier
    birth, later birth), so every sample reads what it read;
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
    us = []  # (birth, bytes, earliest, latest, allocator) of each unrecorded buffer
    for b in truth['buffers']:
        if b['producer_recorded'] or b['kind'] != 'output' or b['allocation_id'] in ids:
            continue
        starts = [first_start[c] for c in readers.get(b['producer'], []) if c in first_start]
        if starts:
            us.append((b['alloc_micros'], b['bytes_allocated'], s0 + 1, min(starts),
                       b['allocator']))
    sampled = {a: sorted(v) for a, v in samples.items()}

    def quiet(a, x, y):  # no sample of allocator a in [x, y)
        ss = sampled.get(a, [])
        i = bisect.bisect_left(ss, x)
        return i == len(ss) or ss[i] >= y

    def apart(target, later):
        """The time-weighted distance, as a share of the peak, of the truth
        from the history where buffers i of the target swap births with
        buffers j (of any allocator): i born at j's instant, later or earlier
        than its own, j at i's. The target then holds si - sj less (later) or
        more (earlier) between the two instants, sj 0 when j is another
        allocator's. Disjoint pairs, the largest byte-times first."""
        cand = []
        for i, (bi, si, loi, hii, ai) in enumerate(us):
            if ai != target:
                continue
            for j, (bj, sj, loj, hij, aj) in enumerate(us):
                gain = si - (sj if aj == target else 0)
                x, y = (bi, bj) if later else (bj, bi)
                fits = bj <= hii and loj <= bi if later else loi <= bj and bi <= hij
                if j != i and x < y and gain > 0 and fits and quiet(ai, x, y) and quiet(aj, x, y):
                    cand.append((gain * (y - x), i, j))
        cand.sort(reverse=True)
        used, delta, n = set(), collections.Counter(), 0
        for _, i, j in cand:
            if i in used or j in used:
                continue
            used |= {i, j}
            n += 1
            d = us[i][1] - (us[j][1] if us[j][4] == target else 0)
            delta[min(us[i][0], us[j][0])] += d
            delta[max(us[i][0], us[j][0])] -= d
        total, cur, last = 0, 0, s0
        for x in sorted(delta):
            total += abs(cur) * (x - last)
            cur += delta[x]
            last = x
        total += abs(cur) * (s1 - last)
        return total / (s1 - s0) / peaks[target] * 100, n

    for target in sorted(set(u[4] for u in us)):
        pct, n = max(apart(target, True), apart(target, False))
        print(f"{target}: {sum(u[4] == target for u in us)} unrecorded births, {n} swapped "
              f"pairs, histories {pct:.2f}% apart: band >= {pct:.2f}%, some truth >= "
              f"{pct / 2:.2f}% from any curve")

main()
