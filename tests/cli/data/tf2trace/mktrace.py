#!/usr/bin/env python3
"""Writes small TF 2.0 profiler traces (tensorflow.profiler.Trace, the .trace
file) for tf2trace.test, encoded here by hand from trace_events.proto's field
numbers (Trace: devices 1, trace_events 4; Device: name 1, device_id 2,
resources 3; Resource: name 1, resource_id 2; TraceEvent: device_id 1,
resource_id 2, name 3, timestamp_ps 9, duration_ps 10, args 11; a map entry:
key 1, value 2), not by the code under test.

usage: mktrace.py CASE OUT
  precision    one host event at 1500001234 ps lasting 2345678 ps, and one at
               18000000000000000000 ps (213 days: past int64 ns * 1000, within
               uint64 ps) lasting 1000000 ps
  devices      two devices and no event
  bad-event    three events, the second with its timestamp_ps as bytes
  events       devices and 40 events (for cutting); prints the byte where
               its 20th event ends
  tf20         a trace as TF 2.0 and 2.1 wrote it from a RunMetadata
               (ConvertRunMetadataToTraceEvents): StepStats device names, the
               resource "0" on every device, op types as names with the node
               in "long name", timeline_label split at "@@" into "label" and
               "annotation"; tf20.pbtxt beside it is that RunMetadata
"""
import sys


def varint(v):
    out = bytearray()
    while True:
        b = v & 0x7F
        v >>= 7
        if v:
            out.append(b | 0x80)
        else:
            out.append(b)
            return bytes(out)


def uint(field, v):
    return varint(field << 3) + varint(v)


def ld(field, data):
    if isinstance(data, str):
        data = data.encode()
    return varint(field << 3 | 2) + varint(len(data)) + data


def entry(key, value):
    return uint(1, key) + ld(2, value)


def device(key, name, resources):
    d = ld(1, name) + uint(2, key)
    for rk, rn in resources:
        d += ld(3, entry(rk, ld(1, rn) + uint(2, rk)))
    return ld(1, entry(key, d))


def event(dev, res, name, ts, dur, args=(), ts_field=None):
    e = uint(1, dev) + uint(2, res) + ld(3, name)
    e += ts_field if ts_field is not None else uint(9, ts)
    e += uint(10, dur)
    for k, v in args:
        e += ld(11, ld(1, k) + ld(2, v))
    return ld(4, e)


HOST = device(1, "/host:CPU", [(7, "tf_Compute")])
GPU = device(2, "/device:GPU:0", [(13, "Stream #13(Compute)")])


def case(name):
    if name == "precision":
        return HOST + event(1, 7, "a/MatMul:MatMul", 1500001234, 2345678) + \
            event(1, 7, "b/Relu:Relu", 18000000000000000000, 1000000)
    if name == "devices":
        return HOST + GPU
    if name == "bad-event":
        return HOST + event(1, 7, "a/MatMul:MatMul", 1000000, 5000) + \
            event(1, 7, "b/Relu:Relu", 0, 5000, ts_field=ld(9, "2000000")) + \
            event(1, 7, "c/Add:AddV2", 3000000, 5000)
    if name == "events":
        out = HOST + GPU
        for i in range(40):
            out += event(1, 7, "op%d/MatMul:MatMul" % i, 1000000 * (i + 1), 500000,
                         [("correlation_id", str(i + 1))])
            if i == 19:
                print(len(out))
        return out
    if name == "tf20":
        cpu = "/job:localhost/replica:0/task:0/device:CPU:0"
        gpu = "/job:localhost/replica:0/task:0/device:GPU:0"
        out = device(0, cpu, [(0, "0")]) + device(1, gpu, [(0, "0")]) + \
            device(2, "/device:GPU:0/stream:7", [(0, "0")])
        out += event(0, 0, "x", 1000000, 2000000, [("label", "x = Placeholder()")])
        out += event(0, 0, "dense/MatMul", 4000000, 5000000,
                     [("label", "dense/MatMul = MatMul(x, w)")])
        out += event(1, 1, "Relu", 10000000, 3000000,
                     [("label", "dense/Relu = Relu(dense/MatMul)"),
                      ("long name", "dense/Relu:Relu")])
        out += event(2, 0, "MatMul", 5000000, 2500000,
                     [("label", "volta_sgemm_128x64_nn"), ("long name", "dense/MatMul:MatMul")])
        out += event(2, 0, "Relu", 11000000, 1000000,
                     [("label", "relu_kernel"), ("annotation", "dense/Relu:Relu"),
                      ("long name", "dense/Relu:Relu")])
        return out
    sys.exit("mktrace.py: no case '%s'" % name)


if __name__ == "__main__":
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    with open(sys.argv[2], "wb") as f:
        f.write(case(sys.argv[1]))
