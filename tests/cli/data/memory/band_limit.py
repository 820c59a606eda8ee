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

band_limit.py --permute DUMP.pbtxt TRUTH.json: the same from whole
permutations instead of pairs. The unrecorded births (of every allocator)
take each other's instants in any order in which each buffer stays inside
its window and between the same two samples of its own allocator (so, as
above, the ids keep their times and every sample reads what it read). At
each instant the band must hold both the most and the least the allocator's
buffers can weigh among the instants passed (found by size, largest or
least first, each kept only while every buffer can still take an instant of
its range: the earliest deadline first); and two whole histories (the
largest or the least buffer at each instant in turn, or the truth) are
apart by the time-weighted difference printed. With --histories PREFIX
(after --permute) the two whole histories are written as truth files,
PREFIX.big.json and PREFIX.small.json: the truth with each allocator's
curve that of its history (the other allocators' births placed as they
must be for it), for mem-truth-check to score a band against.

band_limit.py --slide DUMP.pbtxt TRUTH.json: two whole histories that
keep every buffer's allocation id (the truth's) but move the unrecorded
births in time, as early (big) or as late (small) as they can go: each
stays after the allocation of the id before its own and before that of
the id after (whatever buffer holds it, recorded or not: the ids keep
increasing with the births), between the same two samples of its own
allocator, and inside the window the records give it (as above). The
recorded allocations do not move. Every record, sample and id reads as
in the truth, so a band must hold both: per allocator the time-weighted
distance between them is printed (a band is at least that wide), and
--histories PREFIX (after --slide) writes them as PREFIX.big.json and
PREFIX.small.json.
band_limit.py --rematch DUMP.pbtxt TRUTH.json: two whole histories in which
the unrecorded births take other ids than the truth's. Every allocation the
truth holds but these births keeps its id and instant (the recorded ones,
the temporaries, the unrecorded ones no node reads); they cut the ids into
gaps, each with a time window (the instants of the kept ids around it) and
room for the births whose truth ids fall in it. Each unrecorded birth may
take any instant that stays inside its window and between the same two
samples of its own allocator (as above, so every sample reads what it
read), and then any gap whose window meets that range, no gap holding more
than its room (checked by the earliest deadline first, exact for ranges of
gaps); in a gap the births take its ids in the order of their instants, so
the ids keep increasing with the births. Per allocator, its births one by
one, the largest first, each take the earliest (big) or the latest (small)
gap that leaves every other birth a gap, and the earliest (latest) instant
of it; the others are placed where the room leaves them (at their own
instant when their gap holds it). The band must hold the truth and both:
per allocator the time-weighted spread of the three is printed (a band is
at least that wide). --histories PREFIX (after --rematch) writes them as
PREFIX.big.json and PREFIX.small.json.
"""
import bisect
import collections
import heapq
import itertools
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


def matchable(slots, wins):
    """Whether buffers with windows wins (per buffer, the slot indices
    [l, r] it may take) can each take a slot of their own: the earliest
    deadline first, exact for intervals (the next free slot found through
    a table of jumps, path-halved)."""
    nxt = {}

    def free(j):
        root = j
        while root in nxt:
            root = nxt[root]
        while j in nxt and nxt[j] != root:
            nxt[j], j = root, nxt[j]
        return root

    for l, r in sorted(wins, key=lambda w: (w[1], w[0])):
        j = free(l)
        if j > r:
            return False
        nxt[j] = j + 1
    return True


def window(slots, lo, hi, first, last):
    """The slot indices in first .. last whose instants lie in [lo, hi]."""
    l = max(first, bisect.bisect_left(slots, lo))
    r = min(last, bisect.bisect_right(slots, hi) - 1)
    return l, r


def extreme(slots, bufs, k, largest, full=None):
    """The most (largest) or least bytes the first k slots can hold, each
    buffer (size, lo, hi) taking one slot inside its window: the buffers by
    size, each put among the first k while every buffer can still take a
    slot (the ones put there among the first k, the others anywhere).
    full: each buffer's window over all the slots, when known."""
    if full is None:
        full = [window(slots, b[1], b[2], 0, len(slots) - 1) for b in bufs]
    order = sorted(range(len(bufs)), key=lambda i: bufs[i][0], reverse=largest)
    early, total = set(), 0
    for i in order:
        if len(early) == k or (largest and bufs[i][0] == 0):
            break  # nothing left to add
        if full[i][0] > k - 1:
            continue  # no slot among the first k
        trial = early | {i}
        wins = [(w[0], min(w[1], k - 1)) if j in trial else w for j, w in enumerate(full)]
        if matchable(slots, wins):
            early, total = trial, total + bufs[i][0]
    return total


def history(slots, bufs, largest):
    """A whole history: slot by slot, the largest (or least) buffer that
    leaves the rest placeable; the bytes born after each slot."""
    left, d, out = set(range(len(bufs))), 0, []
    for k in range(len(slots)):
        for i in sorted(left, key=lambda i: bufs[i][0], reverse=largest):
            rest = left - {i}
            lo, hi = bufs[i][1], bufs[i][2]
            if not lo <= slots[k] <= hi:
                continue
            wins = [window(slots, bufs[j][1], bufs[j][2], k + 1, len(slots) - 1) for j in rest]
            if matchable(slots, wins):
                left, d = rest, d + bufs[i][0]
                break
        out.append(d)
    return out


def permuted(us, target, sampled, deltas=None):
    """Byte-microseconds: the least width any band holding every history
    needs, and how far apart two whole histories are. The unrecorded
    births (of every allocator: the instants keep their allocation ids)
    take each other's instants in any order that keeps each buffer inside
    its window and between the same two samples of its own allocator (no
    sample in [earlier, later)), so every sample reads what it read; a
    buffer of another allocator weighs nothing for the target. The
    buffers whose ranges chain form blocks; at t, with k instants of a
    block passed, the band holds both the most and the least the target's
    buffers among the first k of them can weigh."""
    items = []  # (earliest, latest instant it may take, its own birth, weight)
    for b, size, lo, hi, a in us:
        ss = sampled.get(a, [])
        i = bisect.bisect_left(ss, b)
        first = max(lo, ss[i - 1] + 1 if i > 0 else lo)
        last = min(hi, ss[i] if i < len(ss) else hi)
        # a loop's later iteration is born after the first reading
        # execution's start (hi): up to its own birth, not beyond
        items.append((min(first, b), max(last, b), b, size if a == target else 0))
    items.sort()
    blocks, reach = [], None
    for it in items:
        if reach is None or it[0] > reach:
            blocks.append([])
            reach = it[1]
        blocks[-1].append(it)
        reach = max(reach, it[1])
    width = far = 0
    for members in blocks:
        if not any(m[3] for m in members):
            continue
        slots = sorted(m[2] for m in members)
        bufs = [(m[3], m[0], m[1]) for m in members]
        truth = list(itertools.accumulate(sorted(members, key=lambda m: m[2]),
                                          lambda d, m: d + m[3], initial=0))[1:]
        big, small = history(slots, bufs, True), history(slots, bufs, False)
        full = [window(slots, b[1], b[2], 0, len(slots) - 1) for b in bufs]
        for k in range(1, len(slots)):
            dt = slots[k] - slots[k - 1]
            if dt > 0:
                width += (extreme(slots, bufs, k, True, full) -
                          extreme(slots, bufs, k, False, full)) * dt
        far += max(sum(abs(x[k - 1] - y[k - 1]) * (slots[k] - slots[k - 1])
                       for k in range(1, len(slots)))
                   for x, y in ((big, small), (big, truth), (truth, small)))
        for name, hist in (deltas or {}).items():
            h = big if name == 'big' else small
            last = 0
            for k in range(len(slots)):
                d = h[k] - truth[k]
                hist[slots[k]] += d - last
                last = d
    return width, far


def write_history(truth, target, delta, path):
    """The truth with the target's curve moved by delta (instant -> change
    of the difference from there on): another history as a truth file."""
    allocs = truth['allocators']
    a = allocs[target] if isinstance(allocs, dict) else \
        next(x for x in allocs if x['name'] == target)
    points = collections.Counter()
    for t, v in a['curve']:
        points[t] = v
    for t in delta:
        points.setdefault(t, None)
    curve, value, off = [], 0, 0
    for t in sorted(points):
        if points[t] is not None:
            value = points[t]
        off += delta.get(t, 0)
        curve.append([t, value + off])
    a['curve'] = curve
    a['peak_bytes'] = max(v for _, v in curve)
    json.dump(truth, open(path, 'w'))


def slid(truth, us, sampled, s0, s1, peaks, out):
    """The --slide histories (see the top): per allocator the
    time-weighted distance between them, as a share of its peak."""
    movable = {}  # allocation id -> (earliest, latest) its birth may take
    for b, size, lo, hi, a in us:
        ss = sampled.get(a, [])
        i = bisect.bisect_left(ss, b)
        first = max(lo, ss[i - 1] + 1 if i > 0 else lo)
        last = min(hi, ss[i] if i < len(ss) else hi)
        movable[(a, b, size)] = (min(first, b), max(last, b))
    seq = sorted((x['allocation_id'], x) for x in truth['buffers']
                 if x['allocation_id'] and x['alloc_micros'] is not None)
    key = {}
    for _, x in seq:
        k = (x['allocator'], x['alloc_micros'], x['bytes_allocated'])
        if not x['producer_recorded'] and x['kind'] == 'output' and k in movable:
            key[x['allocation_id']] = k
    births = {}
    for name, order in (('big', seq), ('small', seq[::-1])):
        at, place = None, {}
        for xid, x in order:
            if xid in key:
                lo, hi = movable[key[xid]]
                t = (max(lo, at) if at is not None else lo) if name == 'big' else \
                    (min(hi, at) if at is not None else hi)
                place[xid] = t
            else:
                t = x['alloc_micros']
            at = t
        births[name] = place
    dist = {}
    for a in sorted(set(k[0] for k in key.values())):
        delta = collections.Counter()
        for name, sign in (('big', 1), ('small', -1)):
            for xid, t in births[name].items():
                ka, kb, size = key[xid]
                if ka == a:
                    delta[t] += sign * size
        total, cur, last = 0, 0, s0
        for x in sorted(delta):
            total += abs(cur) * (x - last)
            cur += delta[x]
            last = x
        dist[a] = total / (s1 - s0) / peaks[a] * 100
    if out:
        for name in ('big', 'small'):
            other = json.loads(json.dumps(truth))
            for a in dist:
                delta = collections.Counter()
                for xid, t in births[name].items():
                    ka, kb, size = key[xid]
                    if ka == a and t != kb:
                        delta[t] += size
                        delta[kb] -= size
                write_history(other, a, delta, f"{out}.{name}.json")
                other = json.load(open(f"{out}.{name}.json"))
            if not dist:
                json.dump(other, open(f"{out}.{name}.json", 'w'))
    return dist


def rematch(truth, dump_ids, readers, first_start, sampled, s0, s1, peaks, out):
    """The --rematch histories (see the top): per allocator the
    time-weighted spread of the truth and both, as a share of its peak."""
    movable, kept = [], []  # movable: [id, birth, size, allocator, lo, hi]
    for b in truth['buffers']:
        if b['allocation_id'] is None or b['alloc_micros'] is None:
            continue
        starts = [first_start[c] for c in readers.get(b['producer'], []) if c in first_start]
        if b['producer_recorded'] or b['kind'] != 'output' or b['allocation_id'] in dump_ids \
                or not starts:
            kept.append((b['allocation_id'], b['alloc_micros']))
            continue
        t, a = b['alloc_micros'], b['allocator']
        lo, hi = s0 + 1, min(starts)
        ss = sampled.get(a, [])
        i = bisect.bisect_left(ss, t)
        first = max(lo, ss[i - 1] + 1 if i > 0 else lo)
        last = min(hi, ss[i] if i < len(ss) else hi)
        movable.append([b['allocation_id'], t, b['bytes_allocated'], a, min(first, t),
                        max(last, t)])
    kept.sort()
    kid = [k[0] for k in kept]
    kt = [k[1] for k in kept]
    if any(kt[j] < kt[j - 1] for j in range(1, len(kt))):
        sys.exit("band_limit.py: the truth's ids do not increase with its births")
    # gap j lies between kept[j - 1] and kept[j]: window [kt[j - 1], kt[j]]
    ng = len(kept) + 1
    room = [0] * ng
    for m in movable:
        room[bisect.bisect_left(kid, m[0])] += 1

    def glo(j):
        return kt[j - 1] if j > 0 else -10**30

    def ghi(j):
        return kt[j] if j < len(kt) else 10**30

    def span(m):
        # the gaps whose windows meet [lo, hi]: those not ending before lo,
        # not starting after hi
        return bisect.bisect_left(kt, m[4]), bisect.bisect_right(kt, m[5])

    spans = [span(m) for m in movable]
    for m, (l, r) in zip(movable, spans):
        j = bisect.bisect_left(kid, m[0])
        if not l <= j <= r:
            sys.exit(f"band_limit.py: id {m[0]} outside its range")

    def assign(rng):
        """Each birth a gap in its range, none over its room (the earliest
        deadline first), or None."""
        got, heap = [None] * len(rng), []
        order, k, j = sorted(range(len(rng)), key=lambda i: rng[i][0]), 0, -1
        while k < len(order) or heap:
            if not heap:
                j = max(j, rng[order[k]][0])
            while k < len(order) and rng[order[k]][0] <= j:
                heapq.heappush(heap, (rng[order[k]][1], order[k]))
                k += 1
            c = room[j]
            while c > 0 and heap:
                r, i = heapq.heappop(heap)
                if r < j:
                    return None
                got[i] = j
                c -= 1
            if heap and heap[0][0] <= j:
                return None
            j += 1
        return got

    def reach(a, t, by):
        """The most bytes of allocator a's births that can come by t (by),
        or after t: the largest first, each kept while every birth still
        has a gap (as extreme() above)."""
        rng, total = list(spans), 0
        gt = bisect.bisect_right(kt, t) if by else bisect.bisect_right(kt, t)
        for i in sorted((i for i, m in enumerate(movable) if m[3] == a),
                        key=lambda i: -movable[i][2]):
            m, (l, r) = movable[i], spans[i]
            if by:  # a gap starting by t: g <= gt (glo(g) = kt[g - 1] <= t)
                if m[4] > t:
                    continue
                trial = (l, min(r, gt))
            else:  # a gap ending after t: ghi(g) = kt[g] > t
                if m[5] <= t:
                    continue
                trial = (max(l, gt), r)
            if trial[0] > trial[1]:
                continue
            rng[i] = trial
            if assign(rng) is None:
                rng[i] = spans[i]
            else:
                total += m[2]
        return total

    births = {}
    targets = sorted(set(m[3] for m in movable))
    for name, early in (('big', True), ('small', False)):
        births[name] = {}
        for a in targets:
            rng = list(spans)
            mine = sorted((i for i, m in enumerate(movable) if m[3] == a),
                          key=lambda i: (-movable[i][2], movable[i][1]))
            for i in mine:
                l, r = rng[i]
                # the earliest g with [l, g] feasible (the latest with
                # [g, r]): in the assignment that finds it, it takes g
                lo, hi = l, r
                while lo < hi:
                    g = (lo + hi) // 2 if early else (lo + hi + 1) // 2
                    rng[i] = (l, g) if early else (g, r)
                    ok = assign(rng) is not None
                    if early:
                        lo, hi = (lo, g) if ok else (g + 1, hi)
                    else:
                        lo, hi = (g, hi) if ok else (lo, g - 1)
                rng[i] = (lo, lo)
            got = assign(rng)
            if got is None:
                sys.exit("band_limit.py: no gap for every birth")
            place = {}
            for i, m in enumerate(movable):
                lo, hi = max(m[4], glo(got[i])), min(m[5], ghi(got[i]))
                if lo > hi:
                    sys.exit("band_limit.py: a gap outside a range")
                if m[3] == a:
                    place[i] = lo if early else hi
                else:
                    place[i] = min(max(m[1], lo), hi)
            # ids in each gap by instant: increasing with the births overall
            seq = [(kt[j], kid[j]) for j in range(len(kt))]
            per = collections.defaultdict(list)
            for i in place:
                per[got[i]].append(place[i])
            for j, ts in per.items():
                if len(ts) > room[j]:
                    sys.exit("band_limit.py: a gap over its room")
                base = kid[j - 1] if j > 0 else min(kid[0], min(m[0] for m in movable)) - 10**6
                seq += [(t, base + 1 + n) for n, t in enumerate(sorted(ts))]
            seq.sort(key=lambda x: x[1])
            if any(seq[k][0] < seq[k - 1][0] for k in range(1, len(seq))):
                sys.exit("band_limit.py: ids do not increase with the births")
            births[name][a] = {i: place[i] for i in place if movable[i][3] == a}
    spread, inst = {}, {}
    for a in targets:
        delta = {'big': collections.Counter(), 'small': collections.Counter()}
        for name in delta:
            for i, t in births[name][a].items():
                m = movable[i]
                if t != m[1]:
                    delta[name][t] += m[2]
                    delta[name][m[1]] -= m[2]
        total, cur, last = 0, {'big': 0, 'small': 0}, s0
        for x in sorted(set(delta['big']) | set(delta['small'])):
            vals = [0, cur['big'], cur['small']]
            total += (max(vals) - min(vals)) * (x - last)
            for name in cur:
                cur[name] += delta[name][x]
            last = x
        spread[a] = total / (s1 - s0) / peaks[a] * 100
        # at each instant where what may come by it changes, the most
        # less the least the allocator's births by then can weigh
        mine = [m for m in movable if m[3] == a]
        whole = sum(m[2] for m in mine)
        lo_all, hi_all = min(m[4] for m in mine), max(m[5] for m in mine)
        cuts = {x for m in mine for x in (m[4], m[5])}
        cuts |= {x for x in kt if lo_all <= x <= hi_all}
        cuts = sorted(cuts)
        width = 0
        for n, x in enumerate(cuts[:-1]):
            width += (reach(a, x, True) - (whole - reach(a, x, False))) * (cuts[n + 1] - x)
        inst[a] = width / (s1 - s0) / peaks[a] * 100
        if out:
            for name in delta:
                path = f"{out}.{name}.json"
                other = json.load(open(path)) if a != targets[0] else json.loads(json.dumps(truth))
                write_history(other, a, delta[name], path)
    if out and not targets:
        for name in ('big', 'small'):
            json.dump(truth, open(f"{out}.{name}.json", 'w'))
    return spread, inst, collections.Counter(m[3] for m in movable)


def main():
    args = sys.argv[1:]
    slide = args[:1] == ['--slide']
    permute = args[:1] == ['--permute']
    again = args[:1] == ['--rematch']
    args = args[1:] if permute or slide or again else args
    out = None
    if args[:1] == ['--histories']:
        out, args = args[1], args[2:]
    samples, first_start, ids, readers = parse_dump(args[0])
    truth = json.load(open(args[1]))
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
    if again:
        spread, inst, n = rematch(truth, ids, readers, first_start, sampled, s0, s1, peaks,
                                  out)
        for a, d in spread.items():
            print(f"{a}: {n[a]} unrecorded births re-matched to the id gaps: band >= "
                  f"{inst[a]:.2f}%, truth and histories spread {d:.2f}%")
        return
    if slide:
        for a, d in slid(truth, us, sampled, s0, s1, peaks, out).items():
            print(f"{a}: {sum(u[4] == a for u in us)} unrecorded births slid within their id "
                  f"gaps: histories {d:.2f}% apart: band >= {d:.2f}%")
        return

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

    if permute:
        hists = {'big': collections.defaultdict(dict), 'small': collections.defaultdict(dict)}
        for target in sorted(set(u[4] for u in us)):
            deltas = {'big': collections.Counter(), 'small': collections.Counter()}
            width, far = permuted(us, target, sampled, deltas)
            for name in deltas:
                hists[name][target] = deltas[name]
            scale = (s1 - s0) * peaks[target] / 100
            print(f"{target}: {sum(u[4] == target for u in us)} unrecorded births permuted: "
                  f"band >= {width / scale:.2f}%, histories {far / scale:.2f}% apart: some "
                  f"truth >= {far / scale / 2:.2f}% from any curve")
        if out:
            for name, per in hists.items():
                other = json.load(open(args[1]))
                for target, delta in per.items():
                    write_history(other, target, delta, f"{out}.{name}.json")
                    other = json.load(open(f"{out}.{name}.json"))
        return
    for target in sorted(set(u[4] for u in us)):
        pct, n = max(apart(target, True), apart(target, False))
        print(f"{target}: {sum(u[4] == target for u in us)} unrecorded births, {n} swapped "
              f"pairs, histories {pct:.2f}% apart: band >= {pct:.2f}%, some truth >= "
              f"{pct / 2:.2f}% from any curve")

main()
