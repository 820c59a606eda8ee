"""Damaged copies of a TFRecord stream, and what the tools must make of them.

The oracle here is written from the TFRecord layout alone (uint64 length,
uint32 masked crc of it, data, uint32 masked crc of the data), not from the
C reader: for each damaged copy it says which runs must come out and which
warnings must be printed.

  damage.py make KIND STREAM DIR [--every N] [TAG...]
      KIND: cuts (the stream cut at every byte), flips (one byte flipped, at
      every byte), gzcuts (the stream gzipped, cut at every compressed byte).
      --every N: every byte of each record's framing (its 12-byte header,
      its 4-byte data crc and the bytes beside them) and of the gzip header
      and trailer, and every Nth byte of the rest: the same kinds of damage,
      fewer copies (the unit tests of the reader take every byte).
      TAGs: the stream is an events file whose runs are tagged so (its first
      record holds no run); without, run k is labelled FILE#k.
      Writes DIR/<name> for every copy that keeps a run, DIR.want (JSON:
      name -> runs and warnings), DIR.none (names of copies with no run
      left, not written to DIR) and prints how many were written.
  damage.py check-merge DIR.want < trace-merge's Chrome JSON
  damage.py check-step DIR.want [NAME] < trace-summarize --view step --format csv
      (of every copy, or of copy NAME alone)
  damage.py check-each DIR.want < "== NAME" and trace-summarize's table, per copy
      (copies of an events file share tags, so each is read alone)
  damage.py names DIR.want N
      Every Nth copy's name.
  damage.py check-warnings DIR.want PROG < the tool's stderr
      Print "ok" or what differs.
"""

import gzip
import json
import os
import struct
import sys
import zlib

CRC_TABLE = []
for i in range(256):
    c = i
    for _ in range(8):
        c = (c >> 1) ^ 0x82F63B78 if c & 1 else c >> 1
    CRC_TABLE.append(c)


def crc32c(data):
    crc = 0xFFFFFFFF
    for b in data:
        crc = CRC_TABLE[(crc ^ b) & 0xFF] ^ (crc >> 8)
    return crc ^ 0xFFFFFFFF


def masked(data):
    c = crc32c(data)
    return (((c >> 15) | (c << 17)) + 0xA282EAD8) & 0xFFFFFFFF


def records(stream):
    """(start, end) of every record of a sound stream."""
    out = []
    at = 0
    while at < len(stream):
        (n,) = struct.unpack_from("<Q", stream, at)
        out.append((at, at + 16 + n))
        at += 16 + n
    assert at == len(stream), "not a sound stream"
    return out


def holds(buf, at):
    """A header at `at` whose length is below 4 GiB and whose crc holds."""
    if at + 12 > len(buf):
        return False
    if buf[at + 4:at + 8] != b"\0\0\0\0":
        return False
    return masked(buf[at:at + 8]) == struct.unpack_from("<I", buf, at + 8)[0]


def labels(name, tags, k):
    """The run label of record k (from 1), or None when it holds no run."""
    if tags is None:
        return "%s#%d" % (name, k)
    return tags[k - 2] if k >= 2 else None


def read(buf, name, path, tags):
    """What the tools must read from buf: (runs, warnings)."""
    runs, warns = [], []
    at, k = 0, 1
    while at < len(buf):
        if len(buf) - at < 12:
            warns.append("'%s': record %d at byte %d is cut short: the runs before it "
                         "were read" % (path, k, at))
            break
        (n,) = struct.unpack_from("<Q", buf, at)
        if masked(buf[at:at + 8]) != struct.unpack_from("<I", buf, at + 8)[0]:
            nxt = at + 1
            while nxt < len(buf) and not holds(buf, nxt):
                nxt += 1
            then = ("skipped to the record at byte %d" % nxt if nxt + 12 <= len(buf)
                    else "no record follows it")
            warns.append("'%s': record %d at byte %d: length crc mismatch: %s"
                         % (path, k, at, then))
            at, k = nxt, k + 1
            continue
        if at + 16 + n > len(buf):
            warns.append("'%s': record %d at byte %d is cut short: the runs before it "
                         "were read" % (path, k, at))
            break
        data = buf[at + 12:at + 12 + n]
        if masked(data) != struct.unpack_from("<I", buf, at + 12 + n)[0]:
            warns.append("'%s': record %d at byte %d: data crc mismatch: record skipped"
                         % (path, k, at))
        elif labels(name, tags, k) is not None:
            runs.append(labels(name, tags, k))
        at, k = at + 16 + n, k + 1
    return runs, warns


def framing(stream):
    """Offsets of every byte of the records' framing, and one either side."""
    out = set()
    for start, end in records(stream):
        out.update(range(start - 1, start + 13))
        out.update(range(end - 5, end + 1))
    return out


def make(kind, stream_path, out, tags, every):
    stream = open(stream_path, "rb").read()
    keep = framing(stream)
    os.makedirs(out, exist_ok=True)
    want, none = {}, []
    copies = []
    if kind == "cuts":
        for cut in range(1, len(stream)):
            if cut % every == 0 or cut in keep:
                copies.append(("cut-%06d" % cut, stream[:cut], stream[:cut], None))
    elif kind == "flips":
        for at in range(len(stream)):
            if at % every != 0 and at not in keep:
                continue
            b = bytearray(stream)
            b[at] ^= 0x10
            copies.append(("flip-%06d" % at, bytes(b), bytes(b), None))
    elif kind == "gzcuts":
        gz = gzip.compress(stream, mtime=0)
        for cut in range(10, len(gz)):
            if cut % every != 0 and 20 <= cut < len(gz) - 10:
                continue
            d = zlib.decompressobj(31)
            plain = d.decompress(gz[:cut])
            gzmsg = ("gzip stream cut short at compressed byte %d, after decompressed "
                     "byte %d" % (cut, len(plain)))
            copies.append(("gzcut-%06d.gz" % cut, gz[:cut], plain, gzmsg))
    else:
        sys.exit("unknown kind " + kind)
    for name, data, plain, gzmsg in copies:
        path = os.path.join(out, name)
        runs, warns = read(plain, name, path, tags)
        if gzmsg is not None:
            # the cause first; an empty decompressed prefix is not sniffed
            warns.insert(0, "'%s': %s: read what came before it" % (path, gzmsg))
        if not runs:
            none.append(name)
            continue
        with open(path, "wb") as f:
            f.write(data)
        want[name] = {"runs": runs, "warnings": warns}
    with open(out + ".want", "w") as f:
        json.dump(want, f, indent=0, sort_keys=True)
    with open(out + ".none", "w") as f:
        f.write("".join(n + "\n" for n in none))
    print(len(want))


def check_merge(want_path):
    want = json.load(open(want_path))
    got = {}
    for r in json.load(sys.stdin)["otherData"]["runs"]:
        got.setdefault(os.path.basename(r["input"]), []).append(r["run"])
    report(want, {n: {"runs": got.get(n, [])} for n in want}, "runs")


def check_step(want_path, only=None):
    """The rows of every copy read at once, or of the one copy `only`. Runs
    of one label are one row, so copies of an events file (the same tags in
    each) are checked one at a time."""
    want = json.load(open(want_path))
    lines = sys.stdin.read().splitlines()
    assert lines[0].startswith("name"), lines[0]
    got = sorted(line.split(",")[0] for line in lines[1:])
    exp = sorted(r for n, w in want.items() if only in (None, n) for r in w["runs"])
    if got == exp:
        print("ok")
    else:
        print("differs: %d rows, want %d; first missing %s, first extra %s" % (
            len(got), len(exp), sorted(set(exp) - set(got))[:3],
            sorted(set(got) - set(exp))[:3]))


def check_each(want_path):
    """The tables of several copies read one at a time, each after a line
    "== NAME": every one checked as check_step checks one; prints "N ok"
    or what differs."""
    want = json.load(open(want_path))
    blocks, name = {}, None
    for line in sys.stdin.read().splitlines():
        if line.startswith("== "):
            name = line[3:]
            blocks[name] = []
        else:
            blocks[name].append(line)
    bad = []
    for name, lines in sorted(blocks.items()):
        got = sorted(line.split(",")[0] for line in lines[1:]) if lines[:1] and \
            lines[0].startswith("name") else None
        if got != sorted(want[name]["runs"]):
            bad.append("%s: want %s, got %s" % (name, sorted(want[name]["runs"]), got))
    if bad:
        print("%d of %d differ" % (len(bad), len(blocks)))
        print("\n".join(bad[:5]))
    else:
        print("%d ok" % len(blocks))


def names(want_path, every):
    for i, n in enumerate(sorted(json.load(open(want_path)))):
        if i % every == 0:
            print(n)


def check_warnings(want_path, prog):
    want = json.load(open(want_path))
    prefix = prog + ": warning: "
    got = {}
    for line in sys.stdin.read().splitlines():
        assert line.startswith(prefix), line
        msg = line[len(prefix):]
        name = os.path.basename(msg[1:msg.index("'", 1)])
        got.setdefault(name, []).append(msg)
    report(want, {n: {"warnings": got.get(n, [])} for n in want}, "warnings")
    extra = set(got) - set(want)
    if extra:
        print("warnings for copies with no run:", sorted(extra)[:3])


def report(want, got, key):
    bad = [n for n in sorted(want) if want[n][key] != got[n][key]]
    if not bad:
        print("ok")
        return
    print("%d of %d differ" % (len(bad), len(want)))
    for n in bad[:5]:
        print("%s: want %s, got %s" % (n, want[n][key], got[n][key]))


def main():
    cmd = sys.argv[1]
    if cmd == "make":
        rest, every = sys.argv[5:], 1
        if rest[:1] == ["--every"]:
            every, rest = int(rest[1]), rest[2:]
        make(sys.argv[2], sys.argv[3], sys.argv[4], rest or None, every)
    elif cmd == "check-merge":
        check_merge(sys.argv[2])
    elif cmd == "check-step":
        check_step(sys.argv[2], sys.argv[3] if len(sys.argv) > 3 else None)
    elif cmd == "check-each":
        check_each(sys.argv[2])
    elif cmd == "names":
        names(sys.argv[2], int(sys.argv[3]))
    elif cmd == "check-warnings":
        check_warnings(sys.argv[2], sys.argv[3])
    else:
        sys.exit(__doc__)


if __name__ == "__main__":
    main()
