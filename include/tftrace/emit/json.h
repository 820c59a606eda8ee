/*
 * json: the pieces every JSON sink writes (the Chrome trace, tables, the
 * memory report): string literals escaped, with invalid UTF-8 replaced by
 * U+FFFD so any dump gives valid JSON, and nanoseconds as exact
 * microseconds. The caller owns the output.
 */
#ifndef TL_EMIT_JSON_H
#define TL_EMIT_JSON_H

#include "base/output.h"

#include <stddef.h>
#include <stdint.h>

/* Writes a JSON string literal (with quotes), escaped; NULL writes "". */
void tl_json_string(tl_output *o, const char *s);
void tl_json_string_len(tl_output *o, const char *s, size_t n);
/* The same for JSON inside an HTML <script> element: "</" is written
 * "<\/" and "<!" "\u003c!" (the same string to a JSON reader), so no
 * string ends the element or starts a comment-like escape inside it. */
void tl_json_string_script(tl_output *o, const char *s, size_t n);
/* Nanoseconds as microseconds: 1234567 -> 1234.567, 5000 -> 5. */
void tl_json_micros(tl_output *o, int64_t ns);
/* A finite double as printf writes it with "%.0f" when it is whole and
 * under 9e15 in magnitude, else with "%.3f" (the same bytes, rounding
 * included: the exact binary value, ties to even), without printf. */
void tl_json_number3(tl_output *o, double v);

#endif
