/*
 * pbtext: protobuf text format (what str(message) and
 * text_format.MessageToString write) read through protobuf-c's descriptors
 * and re-encoded as binary wire format, so one decoder (protobuf-c) builds
 * every message whatever its source.
 *
 * Accepts: a leading UTF-8 byte-order mark; '#' comments; fields by name (and legacy TensorFlow
 * names mapped to their current ones, e.g. MemoryStats.host_persistent_memory_size); optional
 * ':' before messages and ',' or ';' after fields; `{}` and `<>` messages;
 * `[a, b]` lists of scalars or messages; enums by name or number; string
 * escapes (\n \t \\ \' \" \a \b \f \v \r \?, octal \NNN, hex \xHH, \uXXXX and
 * \UXXXXXXXX as UTF-8); adjacent string literals concatenated; integers in
 * decimal, hex and octal, negative; floats with exponent, 'f' suffix, inf,
 * nan; bools as true/false/True/False/t/f/1/0; map fields as repeated
 * entries {key: .. value: ..}. Unknown fields (scalars, lists, messages,
 * [extensions]) are skipped with a warning "skipped unknown field 'X' in Msg"
 * under key "pbtext-unknown-Msg.X"; an unknown enum name likewise, under
 * "pbtext-unknown-enum-Enum.NAME" (proto3 enums are open). Nesting deeper
 * than TL_PBTEXT_MAX_DEPTH is an error, not a stack overflow.
 */
#ifndef TL_IO_PBTEXT_H
#define TL_IO_PBTEXT_H

#include "base/diag.h"

#include <glib.h>
#include <protobuf-c/protobuf-c.h>
#include <stddef.h>

#define TL_PBTEXT_MAX_DEPTH 100

/* Appends the wire encoding of the text message `text` (len bytes, need not be
 * NUL-terminated) of type `desc` to `out`, in one pass without allocating per
 * token. Sub-messages get 5-byte padded lengths (see pbwire.h). Errors read
 * "line L, column C: expected ..., found ..." and leave `out` as it was. */
int tl_pbtext_to_wire(const ProtobufCMessageDescriptor *desc, const char *text, size_t len,
		      GByteArray *out, tl_error *err);

/* Guesses the top-level message of a text dump from its first field name:
 * step_stats/partition_graphs/cost_graph/function_graphs/session_metadata ->
 * RunMetadata, dev_stats -> StepStats, node/library/versions/version ->
 * GraphDef. NULL if none. */
const ProtobufCMessageDescriptor *tl_pbtext_guess(const char *text, size_t len);

/* Appends `msg` as text the way Python's str(message) writes it: fields in
 * number order, 2-space indent, `name: value` and `name {` ... `}`, enums by
 * name, strings C-escaped with octal for bytes outside printable ASCII,
 * floats as Python's repr, proto3 zero scalars left out, map entries sorted
 * by key. The caller owns `out`. */
void tl_pbtext_print(const ProtobufCMessage *msg, GString *out);

#endif
