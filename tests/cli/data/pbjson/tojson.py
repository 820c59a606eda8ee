#!/usr/bin/python3
"""Writes a RunMetadata, StepStats or GraphDef as protobuf JSON the way
Python's json_format writes it, for pbjson.test: the truth the JSON reader is
held to is protobuf's own reading and writing, not ours.

Usage: tojson.py BINDINGS MESSAGE IN FORMAT OUT
       tojson.py BINDINGS --canonical-records IN OUT
  BINDINGS  a folder holding tensorflow_pb2.py (protoc --python_out of
            libtrace/proto/tensorflow.proto)
  MESSAGE   RunMetadata, StepStats or GraphDef, or RunMetadata.step_stats
            (the run's StepStats alone) or RunMetadata.partition_graphs
            (its first partition graph alone)
  IN        the message in binary, or (name ending .pbtxt) in text format
            (fields this schema lacks are dropped)
  FORMAT    binary (protobuf's own serialization), camel
            (MessageToJson), names (preserving_proto_field_name=True),
            wrapped (MessageToJson's text as one JSON string, json.dumps)
  --canonical-records: IN is a TFRecord stream of RunMetadata (trace-merge
            --format runmeta); OUT gets each record's message serialized with
            its map entries in key order (protobuf's deterministic form), for
            comparing streams whose maps came through JSON, where a map is an
            object and its order is not kept
"""
import json
import sys

sys.path.insert(0, sys.argv[1])
import tensorflow_pb2  # noqa: E402
from google.protobuf import json_format, text_format  # noqa: E402

if sys.argv[2] == "--canonical-records":
    _, _, _, src, dst = sys.argv
    with open(src, "rb") as f:
        data = f.read()
    out = b""
    pos = 0
    while pos < len(data):
        n = int.from_bytes(data[pos:pos + 8], "little")
        run = tensorflow_pb2.RunMetadata()
        run.ParseFromString(data[pos + 12:pos + 12 + n])
        canon = run.SerializeToString(deterministic=True)
        out += len(canon).to_bytes(8, "little") + canon
        pos += 12 + n + 4
    with open(dst, "wb") as f:
        f.write(out)
    sys.exit(0)

_, _, message, src, fmt, dst = sys.argv
name, _, part = message.partition(".")
msg = getattr(tensorflow_pb2, name)()
with open(src, "rb") as f:
    data = f.read()
if src.endswith(".pbtxt"):
    text_format.Parse(data.decode("utf-8"), msg, allow_unknown_field=True)
else:
    msg.ParseFromString(data)
if part == "step_stats":
    msg = msg.step_stats
elif part == "partition_graphs":
    msg = msg.partition_graphs[0]
if fmt == "binary":
    out = msg.SerializeToString()
elif fmt == "camel":
    out = json_format.MessageToJson(msg).encode("utf-8")
elif fmt == "names":
    out = json_format.MessageToJson(msg, preserving_proto_field_name=True).encode("utf-8")
elif fmt == "wrapped":
    out = json.dumps(json_format.MessageToJson(msg)).encode("utf-8")
else:
    sys.exit("tojson.py: unknown format " + fmt)
with open(dst, "wb") as f:
    f.write(out)
