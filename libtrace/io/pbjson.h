/*
 * pbjson: RunMetadata, StepStats and GraphDef in protobuf's proto3 JSON
 * mapping (what Python's json_format.MessageToJson writes), turned into the
 * binary wire format through protobuf-c's descriptors, so one decoder
 * (pbdecode) builds every message whatever its source, and every tool reads
 * the JSON as it reads the same message in binary.
 *
 * Accepts, per the mapping: fields by their lowerCamelCase JSON name
 * (protoc's json_name: "allStartMicros") or their original name
 * ("all_start_micros"); 64-bit integers as strings or numbers, any integer
 * as a number with an exponent or fraction when its value is whole; floats
 * as numbers or strings, "NaN", "Infinity" and "-Infinity"; enums by name or
 * number; bytes as base64, standard or URL-safe, padding optional; null for
 * an absent field; repeated fields as arrays; map fields as JSON objects
 * (keys as strings, numbers in decimal, bools as "true"/"false"). A document
 * that is one JSON string whose content is such JSON (some scripts wrap it
 * with json.dumps) is read through its content. Unknown fields are skipped
 * with a warning "skipped unknown field 'X' in Msg" (key
 * "pbjson-unknown-Msg.X"), unknown enum names likewise
 * ("pbjson-unknown-enum-Enum.NAME").
 *
 * The JSON is read in one pass by io/json_scan.c's scanners and written as
 * wire format as it goes: no document tree is built (jansson's loader, which
 * builds one, was slower per byte than the Chrome JSON reader and took 4.6
 * times the input in memory; pbjson.c has the figures).
 */
#ifndef TL_IO_PBJSON_H
#define TL_IO_PBJSON_H

#include "base/warn.h"

#include <glib.h>
#include <protobuf-c/protobuf-c.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Appends the wire encoding of the JSON document json[0..len) to `out`.
 * *desc names the message to read (RunMetadata, StepStats or GraphDef), or
 * is NULL to tell it from the document's top-level keys (the first key that
 * is a field of one of the three); on success it holds the message read.
 * Sub-messages get 5-byte padded lengths (pbwire.h). Errors (out left as it
 * was): "invalid JSON at byte N: ..." and "at byte N: expected an int64 for
 * NodeExecStats.all_start_micros, found true"; in a wrapped document the
 * bytes count in the string's content, and the error says so. */
int tl_pbjson_to_wire(const uint8_t *json, size_t len, const ProtobufCMessageDescriptor **desc,
		      GByteArray *out, tl_error *err);

/* Whether the first bytes of an input (a prefix of it; BOM and whitespace
 * allowed before it) are protobuf JSON of a RunMetadata, StepStats or
 * GraphDef, not a Chrome trace: a JSON object with a top-level key that is a
 * field of one of the three ("stepStats", "step_stats", "devStats",
 * "partitionGraphs", "node", ...) and no "traceEvents" key among those the
 * head shows, or one JSON string whose content starts so. */
bool tl_pbjson_sniff(const uint8_t *head, size_t len);

#endif
