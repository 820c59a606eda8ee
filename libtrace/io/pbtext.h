/*
 * pbtext: protobuf text format (what str(message) and
 * text_format.MessageToString write) read through protobuf-c's descriptors
 * and re-encoded as binary wire format, so one decoder (protobuf-c) builds
 * every message whatever its source. (Writing text format is for the tests
 * alone: tests/tools/pbtext_print.h.)
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

#include "base/warn.h"

#include <float.h>
#include <glib.h>
#include <math.h>
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

/* The float a text float literal reads as (`d` its value as a double):
 * values within half an ulp above FLT_MAX are FLT_MAX (so the
 * "3.4028235e+38" Python prints for it reads back), beyond that infinity.
 * Inline: the reader and the tests' printer (tests/tools/pbtext_print.c),
 * which checks that the digits it writes read back, round alike. */
static inline float tl_pbtext_round_float(double d)
{
	static const double limit = 0x1.ffffffp127; /* FLT_MAX + half an ulp */
	if (fabs(d) <= FLT_MAX)
		return (float)d;
	if (fabs(d) < limit)
		return d < 0 ? -FLT_MAX : FLT_MAX;
	return d < 0 ? -INFINITY : INFINITY;
}

#endif
