"""Copies of a profile with every time moved by one shift, and the check
that a tool's output moved by exactly that shift.

The rules are written from the formats alone (Chrome trace JSON, TensorFlow's
step_stats.proto and xplane.proto, the TFRecord framing), not from the
readers under test:

  Chrome trace JSON (a top-level array or an object with traceEvents; gzip
  read and written when the name ends in .gz): every event whose "ts" is a
  JSON number gets ts + S, computed exactly in decimal and written with the
  digits it had (an integer stays an integer). Nothing else changes.
  RunMetadata / StepStats, binary or protobuf text: every NodeExecStats'
  all_start_micros (field 2) and every AllocationRecord's alloc_micros
  (field 1) get + S; all_start_nanos (13) gets + 1000 S; scheduled_micros
  (9) and scheduled_nanos (17) get + S and + 1000 S where they are set (not
  0). Relative fields (*_rel_*) do not move.
  TFRecord (tfevents or a RunMetadata stream): each record's payload as
  above (an Event's tagged_run_metadata.run_metadata, field 8.2, or the
  record itself as a RunMetadata), its crcs written anew.
  XSpace: every XLine's timestamp_ns (field 3) gets + 1000 S.

S is a whole number of microseconds chosen from the input:
  epoch2030  the earliest time lands on 2030-01-01T00:00:00Z in epoch
             microseconds (1893456000000000), the latest time stays below
             2^61 ns
  zero       the earliest time lands on 0 (in [0, 1) for a fractional one);
             in a protobuf, where scheduled_micros and scheduled_nanos 0 is
             the field unset (proto3), the earliest of the other times, and a
             scheduled time that would land on 0 is an error of this script
  negative   the latest end (ts + dur, or a step's end) lands 1000 us below 0,
             so every time is negative

  shift.py KIND TARGET IN OUT     writes OUT, prints S
      KIND: chrome, pbtxt, runmeta, stepstats, tfrecord-events,
      tfrecord-runmeta, xspace
  shift.py stepstats RUNMETA OUT  writes the step_stats (field 1) of a
      binary RunMetadata as a binary StepStats
  shift.py same-chrome S A B      A and B are Chrome JSON a tool wrote for
      the input and for its copy shifted by S: prints "same" when B with S
      taken from every ts equals A, else the first difference (exit 1)
  shift.py same-report S A B      the same for trace-report's pages: B with S
      taken from every run's origin_us (its times are from that origin)
      equals A byte for byte
"""

import decimal
import gzip
import json
import re
import struct
import sys
from decimal import Decimal

decimal.getcontext().prec = 80

EPOCH_2030_US = 1893456000000000


# ---- Chrome JSON ----------------------------------------------------------

def load_json(path):
    raw = open(path, "rb").read()
    if raw[:2] == b"\x1f\x8b":
        raw = gzip.decompress(raw)
    return json.loads(raw.decode("utf-8"), parse_float=Decimal,
                      object_pairs_hook=list)


def events_of(doc):
    """The event list of a document loaded with object_pairs_hook=list."""
    if isinstance(doc, list) and not (doc and isinstance(doc[0], tuple)):
        return doc
    for k, v in doc:
        if k == "traceEvents":
            return v
    return []


def get(obj, key):
    if not isinstance(obj, list) or (obj and not isinstance(obj[0], tuple)):
        return None
    for k, v in obj:
        if k == key:
            return v
    return None


def is_number(v):
    return isinstance(v, (int, Decimal)) and not isinstance(v, bool)


def dump(v, out):
    if isinstance(v, list) and v and isinstance(v[0], tuple):
        out.append("{")
        for i, (k, x) in enumerate(v):
            if i:
                out.append(",")
            out.append(json.dumps(k, ensure_ascii=False))
            out.append(":")
            dump(x, out)
        out.append("}")
    elif isinstance(v, list) and not v and getattr(v, "obj", False):
        out.append("{}")
    elif isinstance(v, list):
        out.append("[")
        for i, x in enumerate(v):
            if i:
                out.append(",")
            dump(x, out)
        out.append("]")
    elif v is True:
        out.append("true")
    elif v is False:
        out.append("false")
    elif v is None:
        out.append("null")
    elif is_number(v):
        out.append(str(v))
    else:
        out.append(json.dumps(v, ensure_ascii=False))


class EmptyObject(list):
    obj = True


def pairs(items):
    return EmptyObject() if not items else list(items)


def load_json_keep(path):
    raw = open(path, "rb").read()
    if raw[:2] == b"\x1f\x8b":
        raw = gzip.decompress(raw)
    return json.loads(raw.decode("utf-8"), parse_float=Decimal, object_pairs_hook=pairs)


def chrome_times(evs):
    lo = hi = None
    for e in evs:
        ts = get(e, "ts")
        if not is_number(ts):
            continue
        dur = get(e, "dur")
        end = ts + dur if is_number(dur) and dur > 0 else ts
        lo = ts if lo is None or ts < lo else lo
        hi = end if hi is None or end > hi else hi
    return lo, hi


def choose(target, lo, hi):
    """S from the earliest and latest time in microseconds (Decimal or int)."""
    floor_lo = int(Decimal(lo).to_integral_value(rounding=decimal.ROUND_FLOOR))
    ceil_hi = int(Decimal(hi).to_integral_value(rounding=decimal.ROUND_CEILING))
    if target == "epoch2030":
        return EPOCH_2030_US - floor_lo
    if target == "zero":
        return -floor_lo
    if target == "negative":
        return -1000 - ceil_hi
    raise SystemExit("unknown target " + target)


def shift_chrome(target, src, dst):
    doc = load_json_keep(src)
    evs = events_of(doc)
    lo, hi = chrome_times(evs)
    s = choose(target, lo, hi)
    for e in evs:
        if not (isinstance(e, list) and e and isinstance(e[0], tuple)):
            continue
        for i, (k, v) in enumerate(e):
            if k == "ts" and is_number(v):
                e[i] = (k, v + s)
    out = []
    dump(doc, out)
    data = "".join(out).encode("utf-8")
    if dst.endswith(".gz"):
        data = gzip.compress(data, mtime=0)
    open(dst, "wb").write(data)
    return s


def same_chrome(s, a_path, b_path):
    a = load_json(a_path)
    b = load_json(b_path)
    ea, eb = events_of(a), events_of(b)
    if len(ea) != len(eb):
        print("events: %d, shifted: %d" % (len(ea), len(eb)))
        return 1
    for i, (x, y) in enumerate(zip(ea, eb)):
        y = [(k, v - s if k == "ts" and is_number(v) else v) for k, v in y]
        x = [(k, Decimal(v) if k == "ts" and is_number(v) else v) for k, v in x]
        if x != y:
            print("event %d: %s\nshifted back: %s" % (i, x, y))
            return 1
    if isinstance(a, list) and a and isinstance(a[0], tuple):
        ra = [(k, v) for k, v in a if k != "traceEvents"]
        rb = [(k, v) for k, v in b if k != "traceEvents"]
        if ra != rb:
            print("top-level keys differ: %s / %s" % (ra, rb))
            return 1
    print("same")
    return 0


ORIGIN_RE = re.compile(r'"origin_us":(-?[0-9.]+)')


def same_report(s, a_path, b_path):
    a = open(a_path, encoding="utf-8").read()
    b = open(b_path, encoding="utf-8").read()

    def back(m):
        v = Decimal(m.group(1)) - s
        return '"origin_us":%s' % (v.normalize() if v != v.to_integral() else int(v))
    b = ORIGIN_RE.sub(back, b)
    a = ORIGIN_RE.sub(lambda m: '"origin_us":%s' % (
        Decimal(m.group(1)).normalize() if Decimal(m.group(1)) != Decimal(m.group(1)).to_integral()
        else int(Decimal(m.group(1)))), a)
    if a == b:
        print("same")
        return 0
    i = next((i for i in range(min(len(a), len(b))) if a[i] != b[i]), min(len(a), len(b)))
    print("differ at character %d: %r / %r" % (i, a[max(0, i - 80):i + 80], b[max(0, i - 80):i + 80]))
    return 1


# ---- protobuf wire ---------------------------------------------------------

def varint(buf, at):
    v = shift = 0
    while True:
        b = buf[at]
        at += 1
        v |= (b & 0x7F) << shift
        shift += 7
        if not b & 0x80:
            return v, at


def enc_varint(v):
    v &= (1 << 64) - 1
    out = bytearray()
    while True:
        b = v & 0x7F
        v >>= 7
        if v:
            out.append(b | 0x80)
        else:
            out.append(b)
            return bytes(out)


def signed(v):
    return v - (1 << 64) if v >= 1 << 63 else v


def fields(buf):
    """(number, wire type, value) of a message: ints for varints, bytes
    for length-delimited and fixed fields."""
    at, out = 0, []
    while at < len(buf):
        key, at = varint(buf, at)
        num, wt = key >> 3, key & 7
        if wt == 0:
            v, at = varint(buf, at)
        elif wt == 1:
            v, at = buf[at:at + 8], at + 8
        elif wt == 2:
            n, at = varint(buf, at)
            v, at = buf[at:at + n], at + n
        elif wt == 5:
            v, at = buf[at:at + 4], at + 4
        else:
            raise SystemExit("wire type %d at byte %d" % (wt, at))
        out.append((num, wt, v))
    return out


def encode(fs):
    out = bytearray()
    for num, wt, v in fs:
        out += enc_varint(num << 3 | wt)
        if wt == 0:
            out += enc_varint(v)
        elif wt == 2:
            out += enc_varint(len(v)) + v
        else:
            out += v
    return bytes(out)


# A schema: field number -> sub-schema (a message to walk into) or a rule
# for a varint: ("us", ...) moves by S, ("ns", ...) by 1000 S; "set" only
# where it is not 0.
ALLOC_RECORD = {1: ("us", False)}
ALLOCATOR_USED = {6: ALLOC_RECORD}
NODE_STATS = {2: ("us", False), 9: ("us", True), 13: ("ns", False), 17: ("ns", True),
              6: ALLOCATOR_USED}
DEV_STATS = {2: NODE_STATS}
STEP_STATS = {1: DEV_STATS}
RUN_METADATA = {1: STEP_STATS}
XLINE = {3: ("ns", False)}
XPLANE = {3: XLINE}
XSPACE = {1: XPLANE}


def walk(buf, schema, fn):
    """buf with fn(rule, value) applied to the varints the schema names."""
    fs = fields(buf)
    out = []
    for num, wt, v in fs:
        sub = schema.get(num)
        if isinstance(sub, dict) and wt == 2:
            v = walk(v, sub, fn)
        elif isinstance(sub, tuple) and wt == 0:
            v = fn(sub, signed(v))
        out.append((num, wt, v))
    return encode(out)


def times_of(buf, schema, target="epoch2030"):
    """Every time (in us, as Decimal) the schema marks; for target zero, not
    those whose 0 means unset."""
    found = []

    def note(rule, v):
        unit, only_set = rule
        if not (only_set and (v == 0 or target == "zero")):
            found.append(Decimal(v) / (1000 if unit == "ns" else 1))
        return v
    walk(buf, schema, note)
    return found


def run_ends(buf, schema):
    """The ends of NodeExecStats (start + all_end_rel) and XLine events."""
    ends = []

    def visit(b, sch):
        for num, wt, v in fields(b):
            sub = sch.get(num)
            if isinstance(sub, dict) and wt == 2:
                if sub is NODE_STATS:
                    f = {n: signed(x) for n, _, x in fields(v) if _ == 0}
                    if 2 in f:
                        ends.append(Decimal(f[2] + f.get(5, 0)))
                    if 13 in f:
                        ends.append(Decimal(f[13] + f.get(16, 0)) / 1000)
                elif sub is XLINE:
                    f = fields(v)
                    base = next((signed(x) for n, w, x in f if n == 3 and w == 0), 0)
                    for n, w, x in f:
                        if n == 4 and w == 2:
                            e = {m: signed(y) for m, ww, y in fields(x) if ww == 0}
                            ends.append(Decimal(base) / 1000 +
                                        Decimal(e.get(2, 0) + e.get(3, 0)) / 1000000)
                visit(v, sub)
    visit(buf, schema)
    return ends


def shift_message(target, buf, schema, s=None):
    if s is None:
        ts = times_of(buf, schema, target)
        ends = run_ends(buf, schema) + ts
        s = choose(target, min(ts), max(ends))

    def move(rule, v):
        unit, only_set = rule
        if only_set and v == 0:
            return v
        moved = v + (s * 1000 if unit == "ns" else s)
        return moved
    return walk(buf, schema, move), s


# ---- TFRecord --------------------------------------------------------------

CRC_TABLE = []
for i in range(256):
    c = i
    for _ in range(8):
        c = (c >> 1) ^ 0x82F63B78 if c & 1 else c >> 1
    CRC_TABLE.append(c)


def masked(data):
    crc = 0xFFFFFFFF
    for b in data:
        crc = CRC_TABLE[(crc ^ b) & 0xFF] ^ (crc >> 8)
    c = crc ^ 0xFFFFFFFF
    return (((c >> 15) | (c << 17)) + 0xA282EAD8) & 0xFFFFFFFF


def tf_records(buf):
    at, out = 0, []
    while at < len(buf):
        (n,) = struct.unpack_from("<Q", buf, at)
        out.append(buf[at + 12:at + 12 + n])
        at += 16 + n
    return out


def tf_frame(data):
    head = struct.pack("<Q", len(data))
    return head + struct.pack("<I", masked(head)) + data + struct.pack("<I", masked(data))


def event_run_metadata(rec):
    """The RunMetadata bytes of an Event record, or None."""
    for num, wt, v in fields(rec):
        if num == 8 and wt == 2:
            for n2, w2, v2 in fields(v):
                if n2 == 2 and w2 == 2:
                    return v2
    return None


def shift_tfrecord(target, src, dst, events):
    recs = tf_records(open(src, "rb").read())
    metas = [event_run_metadata(r) if events else r for r in recs]
    ts, ends = [], []
    for m in metas:
        if m is not None:
            ts += times_of(m, RUN_METADATA, target)
            ends += run_ends(m, RUN_METADATA)
    s = choose(target, min(ts), max(ts + ends))
    out = bytearray()
    for r, m in zip(recs, metas):
        if m is not None:
            moved, _ = shift_message(target, m, RUN_METADATA, s)
            if events:
                fs = []
                for num, wt, v in fields(r):
                    if num == 8 and wt == 2:
                        v = encode([(n2, w2, moved if n2 == 2 and w2 == 2 else v2)
                                    for n2, w2, v2 in fields(v)])
                    fs.append((num, wt, v))
                r = encode(fs)
            else:
                r = moved
        out += tf_frame(r)
    open(dst, "wb").write(out)
    return s


# ---- protobuf text ---------------------------------------------------------

TEXT_FIELDS = {"all_start_micros": ("us", False), "alloc_micros": ("us", False),
               "scheduled_micros": ("us", True), "all_start_nanos": ("ns", False),
               "scheduled_nanos": ("ns", True)}
TEXT_RE = re.compile(r"\b(all_start_micros|alloc_micros|scheduled_micros|all_start_nanos|"
                     r"scheduled_nanos|all_end_rel_micros|all_end_rel_nanos)(\s*:\s*)(-?\d+)")


def shift_pbtxt(target, src, dst):
    text = open(src, encoding="utf-8").read()
    ts, ends, last = [], [], {}
    for m in TEXT_RE.finditer(text):
        name, v = m.group(1), int(m.group(3))
        if name in TEXT_FIELDS:
            unit, only_set = TEXT_FIELDS[name]
            if only_set and (v == 0 or target == "zero"):
                continue
            ts.append(Decimal(v) / (1000 if unit == "ns" else 1))
            if name in ("all_start_micros", "all_start_nanos"):
                last[name] = v
        elif name == "all_end_rel_micros" and "all_start_micros" in last:
            ends.append(Decimal(last["all_start_micros"] + v))
        elif name == "all_end_rel_nanos" and "all_start_nanos" in last:
            ends.append(Decimal(last["all_start_nanos"] + v) / 1000)
    s = choose(target, min(ts), max(ts + ends))

    def move(m):
        name, v = m.group(1), int(m.group(3))
        if name not in TEXT_FIELDS:
            return m.group(0)
        unit, only_set = TEXT_FIELDS[name]
        if only_set and v == 0:
            return m.group(0)
        moved = v + (s * 1000 if unit == "ns" else s)
        return "%s%s%d" % (name, m.group(2), moved)
    open(dst, "w", encoding="utf-8").write(TEXT_RE.sub(move, text))
    return s


def main(argv):
    if len(argv) == 4 and argv[0] == "same-chrome":
        return same_chrome(int(argv[1]), argv[2], argv[3])
    if len(argv) == 4 and argv[0] == "same-report":
        return same_report(int(argv[1]), argv[2], argv[3])
    if len(argv) == 3 and argv[0] == "stepstats":
        buf = open(argv[1], "rb").read()
        out = b"".join(v for num, wt, v in fields(buf) if num == 1 and wt == 2)
        open(argv[2], "wb").write(out)
        return 0
    if len(argv) != 4:
        print(__doc__, file=sys.stderr)
        return 2
    kind, target, src, dst = argv
    if kind == "chrome":
        s = shift_chrome(target, src, dst)
    elif kind == "pbtxt":
        s = shift_pbtxt(target, src, dst)
    elif kind in ("runmeta", "stepstats", "xspace"):
        buf = open(src, "rb").read()
        schema = {"runmeta": RUN_METADATA, "stepstats": STEP_STATS, "xspace": XSPACE}[kind]
        out, s = shift_message(target, buf, schema)
        open(dst, "wb").write(out)
    elif kind in ("tfrecord-events", "tfrecord-runmeta"):
        s = shift_tfrecord(target, src, dst, kind == "tfrecord-events")
    else:
        print(__doc__, file=sys.stderr)
        return 2
    print(s)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
