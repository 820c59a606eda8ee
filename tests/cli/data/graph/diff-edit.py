#!/usr/bin/env python3
"""Makes run B from run A (protobuf text, as trace-gen --format text writes
it) with changes known by construction, for graph-render --diff's tests.
Written apart from the library: it edits text lines, nothing else.

  diff-edit.py A.pbtxt [--slow NODE=US]... [--grow NODE=BYTES]...
               [--rename OLD=NEW]... > B.pbtxt

--slow  every execution record of NODE (node_stats with node_name NODE)
        ends US microseconds later: op_end_rel and all_end_rel, in micros
        and nanos, grow by US (so its total_micros grows by US per run);
--grow  every output of NODE's execution records grows by BYTES, requested
        and allocated (so its output_bytes grows by BYTES per output);
--rename NODE is called NEW everywhere: its node_stats, its NodeDef's name,
        the inputs that read it, its timeline label.
"""
import re
import sys


def pairs(args, flag):
    out = {}
    for i, a in enumerate(args):
        if a == flag:
            k, v = args[i + 1].rsplit("=", 1)
            out[k] = v
    return out


def main():
    args = sys.argv[2:]
    slow = {k: int(v) for k, v in pairs(args, "--slow").items()}
    grow = {k: int(v) for k, v in pairs(args, "--grow").items()}
    rename = pairs(args, "--rename")
    text = open(sys.argv[1]).read()
    out = []
    node = None
    for line in text.split("\n"):
        m = re.match(r'\s*node_name: "(.*)"$', line)
        if m:
            node = m.group(1)
        elif re.match(r"\s*node_stats \{$", line):
            node = None
        m = re.match(r"(\s*)(op_end_rel|all_end_rel)_(micros|nanos): (\d+)$", line)
        if m and node in slow:
            add = slow[node] * (1000 if m.group(3) == "nanos" else 1)
            line = "%s%s_%s: %d" % (m.group(1), m.group(2), m.group(3), int(m.group(4)) + add)
        m = re.match(r"(\s*)(requested_bytes|allocated_bytes): (\d+)$", line)
        if m and node in grow:
            line = "%s%s: %d" % (m.group(1), m.group(2), int(m.group(3)) + grow[node])
        out.append(line)
    text = "\n".join(out)
    for old, new in rename.items():
        # the name, not a longer name it begins ("x" in "x_1" or "x/y")
        text = re.sub(r"(?<![\w/])" + re.escape(old) + r"(?![\w/])", new, text)
    sys.stdout.write(text)


main()
