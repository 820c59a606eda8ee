"""Inputs that are one kind, and inputs that resemble a kind but are not it.

  lookalikes.py DIR     writes the files below into DIR

The rules come from the writers' formats, not from the readers under test:

  tf114-timeline.json  what TensorFlow 1.14's timeline.py writes
      (tensorflow/python/client/timeline.py, Timeline.generate_chrome_trace_format
      with show_dataflow): a process "Allocators", then for each device of
      the step stats a process "<device> Compute" and "<device> Tensors"
      (process_name metadata events, in that order of pids); each op an X
      event of cat "Op" named for its op type, args {"name": node, "op": op,
      "input0": ...}; a DataFlow flow (s, t) from a producer to a consumer on
      another device; json.dumps with separators (',', ':'). The device
      names are those TF 1.14's tracer put in step stats: "/host:CPU",
      "/job:localhost/replica:0/task:0/device:GPU:0" and the CUPTI streams
      "/gpu:0 (Quadro P5000)/context#0/stream#1:Kernel" and
      "...:MemcpyHtoD".
  tf2-trace.json       what TF2's profiler writes for TensorBoard's trace
      viewer (the shape of the real *.trace.json files): displayTimeUnit
      "ns", metadata {}, a process per plane named for its device alone
      ("/device:GPU:0", "/host:CPU"), GPU threads "Stream #13(Compute)", the
      derived "Steps" line on tid 3735928559 (0xDEADBEEF), X events without
      cat, times in float us, the list ending in an empty {}
  kineto-trace.json    what PyTorch's profiler (Kineto) writes: schemaVersion,
      deviceProperties, traceName; X events of cats cpu_op, cuda_runtime and
      kernel (args.correlation pairing a launch and its kernel), an ac2g
      flow; processes named as Kineto does (python3 for the host)
  op-lookalike.json    a Chrome trace whose X events have cat "Op" (one of
      timeline.py's marks) but no args.op and no "<device> Compute" process
  tf2-lookalike.json   displayTimeUnit and X events without cat (as TF2's
      trace viewer JSON) but processes named "Browser", "Renderer"
  kineto-lookalike.json  X events of cat "kernel" with args.correlation
      (as Kineto's GPU events) and nothing else of Kineto's
  browser-trace.json   a Chrome browser trace (cats "toplevel",
      "devtools.timeline", processes "Browser", "Renderer")
  no-trace.json        a JSON object with no traceEvents
  no-trace-array.json  a JSON array of numbers
  example.pb           a tf.train.Example (features.feature["label"] an
      int64 list): a protobuf that is neither RunMetadata nor XSpace
  examples.tfrecord    two such Examples in TFRecord framing
  other.pbtxt          protobuf text of another message (a serving config)
"""

import json
import os
import struct
import sys


def masked_crc(data):
    """TFRecord's masked crc32c (Castagnoli), from its record format."""
    crc = 0xFFFFFFFF
    for b in data:
        crc ^= b
        for _ in range(8):
            crc = (crc >> 1) ^ 0x82F63B78 if crc & 1 else crc >> 1
    c = crc ^ 0xFFFFFFFF
    return (((c >> 15) | (c << 17)) + 0xA282EAD8) & 0xFFFFFFFF


def tf_frame(data):
    head = struct.pack("<Q", len(data))
    return head + struct.pack("<I", masked_crc(head)) + data + struct.pack("<I", masked_crc(data))


def dumps(doc):
    return json.dumps(doc, separators=(",", ":"))


def tf114_timeline():
    devices = ["/host:CPU",
               "/job:localhost/replica:0/task:0/device:GPU:0",
               "/gpu:0 (Quadro P5000)/context#0/stream#1:Kernel",
               "/gpu:0 (Quadro P5000)/context#0/stream#1:MemcpyHtoD"]
    meta, events = [], []
    pid = 0
    meta.append({"name": "process_name", "ph": "M", "pid": pid, "args": {"name": "Allocators"}})
    compute = {}
    for d in devices:
        pid += 1
        compute[d] = pid
        meta.append({"name": "process_name", "ph": "M", "pid": pid,
                     "args": {"name": d + " Compute"}})
        pid += 1
        meta.append({"name": "process_name", "ph": "M", "pid": pid,
                     "args": {"name": d + " Tensors"}})
    t0 = 1563253055453811
    ops = [  # device, tid, node, op, inputs, start offset, duration
        (devices[0], 0, "x", "Const", [], 0, 12),
        (devices[1], 0, "x/_1", "_Recv", [], 20, 30),
        (devices[1], 0, "MatMul", "MatMul", ["x/_1", "w/read"], 60, 40),
        (devices[2], 0, "MatMul", "MatMul", [], 70, 25),
        (devices[3], 0, "x/_1", "MEMCPYHtoD", [], 30, 8),
        (devices[1], 0, "Relu", "Relu", ["MatMul"], 110, 10),
    ]
    for dev, tid, node, op, inputs, off, dur in ops:
        args = {"name": node, "op": op}
        for k, i in enumerate(inputs):
            args["input%d" % k] = i
        events.append({"ph": "X", "cat": "Op", "name": op, "pid": compute[dev], "tid": tid,
                       "ts": t0 + off, "dur": dur, "args": args})
    events.append({"ph": "s", "cat": "DataFlow", "name": "x", "pid": compute[devices[0]],
                   "tid": 0, "ts": t0, "id": 0})
    events.append({"ph": "t", "cat": "DataFlow", "name": "x", "pid": compute[devices[1]],
                   "tid": 0, "ts": t0 + 20, "id": 0})
    return {"traceEvents": meta + events}


def x(name, pid, tid, ts, dur, **kw):
    e = {"ph": "X", "name": name, "pid": pid, "tid": tid, "ts": ts, "dur": dur}
    e.update(kw)
    return e


def varint(n):
    out = bytearray()
    while True:
        b = n & 0x7F
        n >>= 7
        if n:
            out.append(b | 0x80)
        else:
            out.append(b)
            return bytes(out)


def ld(field, data):
    return varint(field << 3 | 2) + varint(len(data)) + data


def example():
    # Example { features(1) { feature(1) map entry { key(1), value(2) Feature {
    # int64_list(3) { value(1) packed } } } } }
    ints = ld(1, varint(5) + varint(7) + varint(9))
    entry = ld(1, b"label") + ld(2, ld(3, ints))
    return ld(1, ld(1, entry))


def main(argv):
    if len(argv) != 1:
        print(__doc__, file=sys.stderr)
        return 2
    d = argv[0]
    os.makedirs(d, exist_ok=True)

    def put(name, text):
        mode = "wb" if isinstance(text, bytes) else "w"
        with open(os.path.join(d, name), mode) as f:
            f.write(text)

    put("tf114-timeline.json", dumps(tf114_timeline()))
    put("tf2-trace.json", dumps({"displayTimeUnit": "ns", "metadata": {"highres-ticks": True},
                                 "traceEvents": [
        {"ph": "M", "pid": 1, "name": "process_name", "args": {"name": "/device:GPU:0"}},
        {"ph": "M", "pid": 1, "tid": 13, "name": "thread_name",
         "args": {"name": "Stream #13(Compute)"}},
        {"ph": "M", "pid": 1, "tid": 3735928559, "name": "thread_name", "args": {"name": "Steps"}},
        {"ph": "M", "pid": 501, "name": "process_name", "args": {"name": "/host:CPU"}},
        x("train_function", 501, 4265911692, 382523.216, 23040.983),
        x("volta_sgemm_128x64_nn", 1, 13, 383429.334, 21.913,
          args={"correlation_id": "7", "tf_op": "dense/MatMul:MatMul"}),
        {}]}))
    put("kineto-trace.json", dumps({"schemaVersion": 1, "deviceProperties": [], "traceEvents": [
        {"ph": "M", "name": "process_name", "pid": 25286, "tid": 0, "args": {"name": "python3"}},
        x("aten::mm", 25286, 25286, 1661389858379670, 40, cat="cpu_op"),
        x("cudaLaunchKernel", 25286, 25286, 1661389858379680, 5, cat="cuda_runtime",
          args={"correlation": 11}),
        x("sgemm", 0, 7, 1661389858379690, 20, cat="kernel", args={"correlation": 11}),
        {"ph": "s", "id": 11, "pid": 25286, "tid": 25286, "ts": 1661389858379680,
         "cat": "ac2g", "name": "ac2g"},
        {"ph": "f", "id": 11, "pid": 0, "tid": 7, "ts": 1661389858379690, "cat": "ac2g",
         "name": "ac2g", "bp": "e"}], "traceName": "worker0.pt.trace.json"}))
    put("op-lookalike.json", dumps({"traceEvents": [
        {"ph": "M", "name": "process_name", "pid": 1, "args": {"name": "Main"}},
        x("step", 1, 1, 10, 50, cat="Op"), x("load", 1, 1, 20, 10, cat="Op")]}))
    put("tf2-lookalike.json", dumps({"displayTimeUnit": "ns", "traceEvents": [
        {"ph": "M", "name": "process_name", "pid": 1, "args": {"name": "Browser"}},
        {"ph": "M", "name": "process_name", "pid": 2, "args": {"name": "Renderer"}},
        x("RunTask", 1, 1, 10, 50), x("Layout", 2, 1, 20, 10), {}]}))
    put("kineto-lookalike.json", dumps([
        x("gemm", 1, 7, 10, 50, cat="kernel", args={"correlation": 3}),
        x("relu", 1, 7, 70, 10, cat="kernel", args={"correlation": 4})]))
    put("browser-trace.json", dumps({"traceEvents": [
        {"ph": "M", "name": "process_name", "pid": 11, "tid": 0, "args": {"name": "Browser"}},
        {"ph": "M", "name": "process_name", "pid": 12, "tid": 0, "args": {"name": "Renderer"}},
        {"ph": "M", "name": "thread_name", "pid": 12, "tid": 5,
         "args": {"name": "CrRendererMain"}},
        x("ThreadControllerImpl::RunTask", 11, 1, 100, 30, cat="toplevel"),
        x("ParseHTML", 12, 5, 110, 12, cat="devtools.timeline"),
        x("Layout", 12, 5, 125, 4, cat="devtools.timeline")]}))
    put("no-trace.json", dumps({"name": "config", "values": [1, 2]}))
    put("no-trace-array.json", "[1, 2, 3]\n")
    put("example.pb", example())
    put("examples.tfrecord", tf_frame(example()) + tf_frame(example()))
    put("other.pbtxt", 'model_config_list {\n  config {\n    name: "resnet"\n'
                       '    base_path: "/models/resnet"\n  }\n}\n')
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
