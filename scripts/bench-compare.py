#!/usr/bin/env python3
"""Compare two builds line by line on make bench's lines (scripts/bench.sh).

Usage: scripts/bench-compare.py OLD_BIN NEW_BIN [options]
  e.g. scripts/bench-compare.py ../old/build/bin build/bin --lines '10MB'

For every line make bench prints (each shape at 10 and 100 MB and each tool
the shape times, the stream shape at 100 MB and 1 GB, the other runs), the
old and the new build run the same command on the same file. Two measures:

  ir   instructions executed (valgrind --tool=cachegrind --cache-sim=no,
       "I refs"), which do not depend on the machine's load; about 50 times
       slower than a plain run, so the default for the lines under 60 MB of
       input.
  cpu  user + system CPU time, the best of --runs runs, old and new
       interleaved (old, new, old, new, ...), so that a change of load
       falls on both; the default for the larger lines.

Each line also gets the peak RSS of each build (the largest of its plain
runs, as make bench reports it) and whether the two builds' outputs are
byte for byte the same (sha256 of stdout, or of the -o file; "differs" is
expected where the output was changed on purpose, e.g. the page's bytes).

The files are those of make bench, in --dir (default build/bench), made
with the same generators and options as bench.sh when missing (the new
build's tests directory: trace-gen, xspace-gen), so the two scripts share
the directory. A line needing something missing (protoc, a tool) is left
out and said so.

Options:
  --dir DIR          bench files (default build/bench)
  --old-tests DIR    old build's tests dir (default OLD_BIN/../tests)
  --new-tests DIR    new build's tests dir (default NEW_BIN/../tests)
  --lines REGEX      only the lines whose name matches (re.search)
  --mode ir|cpu|auto per line: auto (default) takes ir under 60 MB of input
  --runs N           runs per build in cpu mode (default 5)
  --timeout S        a run over S seconds of wall is stopped and marked
                     (default 600)
  --no-stream-1g     leave out the 1 GB stream lines
  --list             print the line names and exit
  --markdown FILE    also write the table as Markdown
  --limit X          a ratio over X is marked (default 1.05)

Exit status 0, or 1 when a line's ratio (Ir or CPU, or RSS) is over --limit.
"""
import argparse
import hashlib
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time

SHAPES = {
    "one-run": "--seed 1 --gpus 2",
    "runs-1000": "--seed 2 --gpus 0 --steps 1000 --format tfrecord",
    "recv-20pct": "--seed 3 --gpus 2 --unrecorded-recv 20",
    "loop-100": "--seed 4 --gpus 2 --loop 100",
    "devices": None,  # --tasks 11 per MB
    "scopes-30": "--seed 6 --gpus 2 --scope-depth 30",
    "xspace": "--seed 7 --gpus 2 --threads 4 --steps 10",
    "pbjson": "--seed 1 --gpus 2",
    "tf2-trace": "--seed 8 --gpus 2 --threads 4 --steps 10 --t0 0",
    "tf2-json": None,
}
TOOLS = ["trace-dataflow", "trace-memory", "trace-summarize", "trace-merge",
         "graph-render", "trace-report"]
IR_MAX_BYTES = 60_000_000


def say(*a):
    print(*a, file=sys.stderr, flush=True)


def shape_args(shape, mb):
    if shape == "devices":
        return "--seed 5 --gpus 1 --tasks %d" % (11 * mb)
    if shape == "stream":
        return "--seed 9 --steps 100 --format tfrecord --gpus 2 --quirks"
    return SHAPES[shape]


class Files:
    """make bench's files, generated as bench.sh does when missing."""

    def __init__(self, work, tests, newbin):
        self.work = work
        self.tests = tests
        self.bin = newbin
        os.makedirs(work, exist_ok=True)

    def _fresh(self, f, args):
        try:
            with open(f + ".args") as fh:
                return os.path.getsize(f) > 0 and fh.read().strip() == args
        except OSError:
            return False

    def _gen(self, f, args, argv):
        if self._fresh(f, args):
            return f
        say("bench-compare: generating %s (%s)" % (f, " ".join(argv)))
        subprocess.run(argv, check=True, stdout=subprocess.DEVNULL)
        with open(f + ".args", "w") as fh:
            fh.write(args + "\n")
        return f

    def dump(self, shape, mb):
        w, t = self.work, self.tests
        if shape == "xspace":
            f = "%s/%s-%dmb.xplane.pb" % (w, shape, mb)
            args = "%s --size %d --truth %s.truth" % (shape_args(shape, mb), mb * 1000000, f)
            return self._gen(f, args, [t + "/xspace-gen"] + args.split() + ["-o", f])
        if shape == "tf2-trace":
            f = "%s/%s-%dmb.trace" % (w, shape, mb)
            args = "%s --size %d --truth %s.truth --trace %s" % (shape_args(shape, mb), mb * 435000, f, f)
            return self._gen(f, args, [t + "/xspace-gen"] + args.split() + ["-o", "/dev/null"])
        if shape == "tf2-json":
            src = self.dump("tf2-trace", mb)
            f = "%s/%s-%dmb.json" % (w, shape, mb)
            if not os.path.exists(f) or os.path.getsize(f) == 0 or os.path.getmtime(f) < os.path.getmtime(src):
                say("bench-compare: generating %s (trace-dataflow %s)" % (f, src))
                subprocess.run([self.bin + "/trace-dataflow", "-q", "-o", f, src], check=True)
            return f
        if shape == "pbjson":
            f = "%s/%s-%dmb.json" % (w, shape, mb)
            args = "%s --size-mb %.2f" % (shape_args(shape, mb), mb / 2.87)
            if self._fresh(f, args):
                return f
            if not have_pbjson():
                return None
            py = w + "/py"
            if not os.path.exists(py + "/tensorflow_pb2.py"):
                os.makedirs(py, exist_ok=True)
                subprocess.run(["protoc", "--proto_path=libtrace/proto", "--python_out=" + py,
                                "libtrace/proto/tensorflow.proto"], check=True)
            say("bench-compare: generating %s" % f)
            subprocess.run([t + "/trace-gen"] + args.split() + ["-o", f + ".src.pb"], check=True)
            subprocess.run(["/usr/bin/python3", "tests/cli/data/pbjson/tojson.py", py, "RunMetadata",
                            f + ".src.pb", "camel", f], check=True)
            os.unlink(f + ".src.pb")
            with open(f + ".args", "w") as fh:
                fh.write(args + "\n")
            return f
        f = "%s/%s-%dmb.pb" % (w, shape, mb)
        args = "%s --size-mb %d" % (shape_args(shape, mb), mb)
        return self._gen(f, args, [t + "/trace-gen"] + args.split() + ["-o", f])

    def once(self, name, argv_of):
        """A file made once (bench.sh keeps it while it is there)."""
        f = "%s/%s" % (self.work, name)
        if not os.path.exists(f) or os.path.getsize(f) == 0:
            say("bench-compare: generating %s" % f)
            argv_of(f)
        return f


def have_pbjson():
    if not shutil.which("protoc"):
        return False
    return subprocess.run(["/usr/bin/python3", "-c", "import google.protobuf"],
                          stderr=subprocess.DEVNULL).returncode == 0


class Line:
    """One line of make bench: argv(bin, tests) -> (argv, pipe prefix or None)."""

    def __init__(self, name, inputs, tool, args, pipe=None, out=None, tests_tool=False):
        self.name = name
        self.inputs = inputs  # files read, for the size
        self.tool = tool
        self.args = args
        self.pipe = pipe  # (times, file): the file cat'ed that many times into stdin
        self.out = out  # the tool writes this -o file (per build)
        self.tests_tool = tests_tool

    def size(self):
        n = sum(os.path.getsize(f) for f in self.inputs)
        return n * (self.pipe[0] if self.pipe else 1)

    def argv(self, bindir, testsdir, outfile, ir):
        exe = (testsdir if self.tests_tool else bindir) + "/" + self.tool
        args = [a if a != "{out}" else outfile for a in self.args]
        cmd = [exe] + args
        if ir:
            cmd = ["valgrind", "--tool=cachegrind", "--cache-sim=no",
                   "--cachegrind-out-file=/dev/null"] + cmd
        if self.pipe:
            n, f = self.pipe
            script = 'n=$1; shift; f=$1; shift; i=0; while [ $i -lt $n ]; do cat "$f"; i=$((i + 1)); done | "$@" -'
            cmd = ["sh", "-c", script, "sh", str(n), f] + cmd
        return cmd


def bench_lines(files, opts):
    lines = []
    for shape in SHAPES:
        if shape == "pbjson" and not have_pbjson():
            say("bench-compare: pbjson left out (needs protoc and python3-protobuf)")
            continue
        tools = TOOLS if shape not in ("xspace", "tf2-trace", "tf2-json") else ["trace-dataflow", "trace-summarize"]
        for mb in (10, 100):
            f = files.dump(shape, mb)
            for t in tools:
                args = ["-q", "--max-nodes", "0", f] if t == "graph-render" else ["-q", f]
                lines.append(Line("%s %dMB %s" % (shape, mb, t), [f], t, args))
    sizes = (100, 1000) if opts.stream_1g else (100,)
    for mb in sizes:
        f = files.dump("stream", mb)
        for t in TOOLS:
            args = ["-q", "--max-nodes", "0", f] if t == "graph-render" else ["-q", f]
            lines.append(Line("stream %s %s" % ("1GB" if mb == 1000 else "100MB", t), [f], t, args))
    # the other runs
    big = files.dump("one-run", 100)
    xs = files.dump("xspace", 100)
    T = files.tests
    lines.append(Line("read-bench XSpace 100MB", [xs], "read-bench", [xs], tests_tool=True))
    lines.append(Line("read-bench one-run 100MB", [big], "read-bench", [big], tests_tool=True))
    if have_pbjson():
        chrome = files.once("one-run-100mb.chrome.json",
                            lambda f: subprocess.run([files.bin + "/trace-dataflow", "-q", "-o", f, big], check=True))
        lines.append(Line("read-bench Chrome JSON", [chrome], "read-bench", [chrome], tests_tool=True))
        pj = files.dump("pbjson", 100)
        lines.append(Line("read-bench pbjson 100MB", [pj], "read-bench", [pj], tests_tool=True))
    text = files.once("run-text.pbtxt", lambda f: subprocess.run(
        [T + "/trace-gen", "--seed", "2", "--gpus", "1", "--size-mb", "40", "--format", "text", "-o", f], check=True))
    lines.append(Line("trace-dataflow 40MB text", [text], "trace-dataflow", ["-q", text]))
    lines.append(Line("trace-memory --report one-run 100MB", [big], "trace-memory", ["-q", "--report", big]))
    lines.append(Line("trace-report -o one-run 100MB", [big], "trace-report", ["-q", "-o", "{out}", big], out=True))

    def gunzip(f):
        with open(f, "wb") as fh:
            subprocess.run(["gunzip", "-c", "tests/data/real/kineto_resnet50_autograd_api_worker0.pt.trace.json.gz"],
                           stdout=fh, check=True)
    kin = files.once("kineto_resnet50_autograd_api_worker0.pt.trace.json", gunzip)
    lines.append(Line("trace-merge kineto 27MB", [kin], "trace-merge", ["-q", kin]))
    lines.append(Line("trace-summarize kineto 27MB", [kin], "trace-summarize", ["-q", kin]))
    lines.append(Line("trace-summarize ten 100MB runs", [big] * 10, "trace-summarize", ["-q"] + [big] * 10))
    steps = files.once("steps-1000x1mb.tfrecord", lambda f: subprocess.run(
        [T + "/trace-gen", "--seed", "4", "--gpus", "1", "--ops", "700", "--steps", "1000", "--format", "tfrecord",
         "-o", f], check=True))
    lines.append(Line("trace-summarize 3GB stream pipe", [steps], "trace-summarize", ["-q", "--view", "step"],
                      pipe=(3, steps)))
    lines.append(Line("trace-merge 3GB stream pipe", [steps], "trace-merge", ["-q"], pipe=(3, steps)))

    def g50k(f):
        prog = r'''BEGIN { for (i = 0; i < 50000; i++) {
			printf "node { name: \"s%d/b%d/n%d\" op: \"%s\"", int(i/1000), int(i/50)%20, i, (i%3 ? "Add" : "MatMul")
			if (i > 0) printf " input: \"s%d/b%d/n%d\"", int((i-1)/1000), int((i-1)/50)%20, i-1
			if (i >= 13 && i%7 == 0) printf " input: \"s%d/b%d/n%d:1\"", int((i-13)/1000), int((i-13)/50)%20, i-13
			print " }" } }'''
        with open(f, "w") as fh:
            subprocess.run(["awk", prog], stdout=fh, check=True)
    g50 = files.once("graph-50k.pbtxt", g50k)
    g6 = files.once("run-6000-ops.pb", lambda f: subprocess.run(
        [T + "/trace-gen", "--seed", "5", "--gpus", "2", "--ops", "6000", "-o", f], check=True))
    lines.append(Line("graph-render 50k DOT --max-nodes 0", [g50], "graph-render", ["-q", "--max-nodes", "0", g50]))
    lines.append(Line("graph-render -T svg 50k collapsed", [g50], "graph-render", ["-q", "-T", "svg", g50]))
    lines.append(Line("graph-render -T svg 6000-op", [g6], "graph-render", ["-q", "-T", "svg", g6]))
    lines.append(Line("graph-render -T svg 6000-op --fold", [g6], "graph-render", ["-q", "-T", "svg", "--fold", g6]))
    gc6 = files.once("graph-6k-400cc.pb", lambda f: subprocess.run(
        [T + "/trace-gen", "--tasks", "40", "--ops", "150", "--components", "10", "--scope-depth", "2", "-o", f],
        check=True))
    gc50 = files.once("graph-50k-3330cc.pb", lambda f: subprocess.run(
        [T + "/trace-gen", "--tasks", "333", "--ops", "150", "--components", "10", "--scope-depth", "2", "-o", f],
        check=True))
    lines.append(Line("graph-render -T svg 6k/400cc every node", [gc6], "graph-render",
                      ["-q", "-T", "svg", "--max-nodes", "0", gc6]))
    lines.append(Line("graph-render -T svg 50k/3330cc every node", [gc50], "graph-render",
                      ["-q", "-T", "svg", "--max-nodes", "0", gc50]))
    return lines


def run(argv, timeout, stdout_path=None):
    """One run: (cpu seconds, peak RSS KB, stderr text, ok)."""
    out = open(stdout_path, "wb") if stdout_path else subprocess.DEVNULL
    err = tempfile.TemporaryFile()
    t0 = time.monotonic()
    p = subprocess.Popen(argv, stdout=out, stderr=err, stdin=subprocess.DEVNULL)
    timed_out = False
    while True:
        pid, status, ru = os.wait4(p.pid, os.WNOHANG)
        if pid:
            break
        if time.monotonic() - t0 > timeout:
            p.kill()
            pid, status, ru = os.wait4(p.pid, 0)
            timed_out = True
            break
        time.sleep(0.005)
    p.returncode = os.waitstatus_to_exitcode(status)
    if stdout_path:
        out.close()
    err.seek(0)
    text = err.read().decode(errors="replace")
    ok = p.returncode == 0 and not timed_out
    if timed_out:
        text = "timed out after %d s\n" % timeout + text
    return ru.ru_utime + ru.ru_stime, ru.ru_maxrss, text, ok


def sha(path):
    h = hashlib.sha256()
    with open(path, "rb") as fh:
        for b in iter(lambda: fh.read(1 << 20), b""):
            h.update(b)
    return h.hexdigest()


def measure(line, builds, mode, runs, timeout, tmp):
    """builds: [(label, bin, tests)] -> per build dict(ir, cpu, rss, sum, err)."""
    res = [dict(ir=None, cpu=None, rss=0, sum=None, err=None) for _ in builds]

    def outpaths(i):
        o = os.path.join(tmp, "out%d" % i)
        return o, os.path.join(tmp, "stdout%d" % i)

    # plain runs, interleaved: RSS (the largest), CPU (the least), output checksum on the first
    n = runs if mode == "cpu" else 1
    for k in range(n):
        for i, (_, b, t) in enumerate(builds):
            if res[i]["err"]:
                continue
            o, so = outpaths(i)
            argv = line.argv(b, t, o, False)
            cpu, rss, text, ok = run(argv, timeout, so if k == 0 else None)
            if not ok:
                res[i]["err"] = text.strip().splitlines()[:2] or ["failed"]
                continue
            if k == 0:
                res[i]["sum"] = sha(o) if line.out else sha(so)
            res[i]["cpu"] = cpu if res[i]["cpu"] is None else min(res[i]["cpu"], cpu)
            res[i]["rss"] = max(res[i]["rss"], rss)
    if mode == "ir":
        for i, (_, b, t) in enumerate(builds):
            if res[i]["err"]:
                continue
            o, _ = outpaths(i)
            _, _, text, ok = run(line.argv(b, t, o, True), timeout * 60)
            m = re.search(r"I\s+refs:\s+([\d,]+)", text)
            if not ok or not m:
                res[i]["err"] = ["cachegrind: " + (text.strip().splitlines() or ["failed"])[-1]]
                continue
            res[i]["ir"] = int(m.group(1).replace(",", ""))
    return res


def fmt_num(x, unit):
    if x is None:
        return "-"
    if unit == "ir":
        return "%.4g G" % (x / 1e9) if x >= 1e9 else "%.4g M" % (x / 1e6)
    if unit == "cpu":
        return "%.3f s" % x
    return "%.0f MB" % (x / 1024)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("old_bin")
    ap.add_argument("new_bin")
    ap.add_argument("--dir", default="build/bench")
    ap.add_argument("--old-tests")
    ap.add_argument("--new-tests")
    ap.add_argument("--lines", default="")
    ap.add_argument("--mode", choices=("auto", "ir", "cpu"), default="auto")
    ap.add_argument("--runs", type=int, default=5)
    ap.add_argument("--timeout", type=float, default=600)
    ap.add_argument("--no-stream-1g", dest="stream_1g", action="store_false")
    ap.add_argument("--list", action="store_true")
    ap.add_argument("--markdown")
    ap.add_argument("--limit", type=float, default=1.05)
    o = ap.parse_args()
    old_tests = o.old_tests or os.path.join(os.path.dirname(os.path.abspath(o.old_bin)), "tests")
    new_tests = o.new_tests or os.path.join(os.path.dirname(os.path.abspath(o.new_bin)), "tests")
    builds = [("old", os.path.abspath(o.old_bin), old_tests), ("new", os.path.abspath(o.new_bin), new_tests)]
    files = Files(o.dir, new_tests, builds[1][1])
    sel = re.compile(o.lines)
    lines = [ln for ln in bench_lines(files, o) if sel.search(ln.name)]
    if o.list:
        for ln in lines:
            print("%-44s %6.0f MB" % (ln.name, ln.size() / 1e6))
        return 0
    head = "| line | measure | old | new | new/old | old RSS | new RSS | RSS new/old | output |"
    rows = [head, "|---|---|---|---|---|---|---|---|---|"]
    print(head, flush=True)
    worse = 0
    tmp = tempfile.mkdtemp(prefix="bench-compare.")
    try:
        for ln in lines:
            mode = o.mode
            if mode == "auto":
                mode = "ir" if ln.size() <= IR_MAX_BYTES else "cpu"
            r = measure(ln, builds, mode, o.runs, o.timeout, tmp)
            key = "ir" if mode == "ir" else "cpu"
            a, b = r[0][key], r[1][key]
            ratio = "%.3f" % (b / a) if a and b else "-"
            rr = "%.3f" % (r[1]["rss"] / r[0]["rss"]) if r[0]["rss"] and r[1]["rss"] else "-"
            mark = rmark = ""
            if a and b and b / a > o.limit:
                mark = " **over**"
                worse = 1
            if rr != "-" and float(rr) > o.limit:
                rmark = " **over**"
                worse = 1
            if r[0]["err"] or r[1]["err"]:
                outs = "old: %s; new: %s" % ("; ".join(r[0]["err"] or ["ok"]), "; ".join(r[1]["err"] or ["ok"]))
            else:
                outs = "same" if r[0]["sum"] == r[1]["sum"] else "differs"
            meas = "Ir" if mode == "ir" else "CPU best of %d" % o.runs
            if mode == "ir" and r[0]["cpu"] is not None and r[1]["cpu"] is not None:
                meas += " (CPU %.2f/%.2f s)" % (r[0]["cpu"], r[1]["cpu"])
            row = "| %s | %s | %s | %s | %s%s | %s | %s | %s%s | %s |" % (
                ln.name, meas, fmt_num(a, key), fmt_num(b, key), ratio, mark,
                fmt_num(r[0]["rss"] or None, "rss"), fmt_num(r[1]["rss"] or None, "rss"), rr, rmark, outs)
            print(row, flush=True)
            rows.append(row)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    if o.markdown:
        with open(o.markdown, "w") as fh:
            fh.write("\n".join(rows) + "\n")
    return worse


if __name__ == "__main__":
    sys.exit(main())
