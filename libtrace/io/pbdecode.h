/*
 * pbdecode: binary protobuf into protobuf-c's generated structs, the one
 * decoder every input kind goes through (binary and text RunMetadata,
 * StepStats, GraphDef, TFRecord and events records).
 *
 * It fills the structs protobuf_c_message_unpack fills, field for field,
 * and accepts and refuses the same inputs (its rules are protobuf-c 1.4's,
 * quirks included), but costs a fraction of it:
 *   - strings and bytes point into the input instead of being copied: the
 *     input must be writable and outlive the decoded message (put it in the
 *     arena), and hold one byte more than its length, because a string's
 *     NUL is written over the byte after it (the next field's key, which
 *     has been read by then);
 *   - two passes: the first checks every byte and counts (repeated fields,
 *     memory), the second fills structs carved from one block of the arena,
 *     so nothing is allocated per field and nothing is written before the
 *     whole input is known to decode (a refused input is left as it was);
 *   - TL_PBDECODE_MODEL leaves out the fields nothing in tftrace reads
 *     (tensor contents, most list attribute values, cost graphs, function
 *     libraries, unknown fields): they are checked, not stored;
 *   - nesting deeper than TL_PBWIRE_MAX_DEPTH is refused (protobuf-c
 *     recurses without a limit);
 *   - a large message's big repeated parts near the top (each device's step
 *     stats, each partition graph, runs of graph nodes) are decoded on
 *     several threads, each into its own part of the block; the result does
 *     not depend on the number of threads.
 * The elements of one repeated message field lie at increasing addresses in
 * the order of the bytes (model/run.c orders executions that start together by
 * their NodeExecStats' addresses; with protobuf-c in 1 MiB arena blocks
 * that order broke where a device's records crossed a block).
 */
#ifndef TL_IO_PBDECODE_H
#define TL_IO_PBDECODE_H

#include "base/arena.h"
#include "base/warn.h"

#include <protobuf-c/protobuf-c.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef enum tl_pbdecode_fields {
	TL_PBDECODE_ALL = 0, /* every field, unknown ones too (what protobuf-c gives) */
	TL_PBDECODE_MODEL,   /* the fields tl_run_build and the analyses read */
} tl_pbdecode_fields;

/* The return value for bytes that are not a `desc` message. */
#define TL_PBDECODE_MALFORMED (-2)

/* Decodes data[0..len) as one `desc` message into `arena`; data[len] is
 * written too. `threads`: at most this many (0: one per core, up to 8).
 * Returns 0 with *out; -1 when messages nest too deep, err as
 * tl_pbwire_check_depth says it ("messages nested deeper than 100 levels at
 * byte B (AttrValue in NameAttrList)"); TL_PBDECODE_MALFORMED otherwise,
 * err "malformed RunMetadata (protobuf decoding failed)". A refused input
 * is not modified. */
int tl_pbdecode(const ProtobufCMessageDescriptor *desc, uint8_t *data, size_t len,
		tl_pbdecode_fields fields, unsigned threads, tl_arena *arena,
		ProtobufCMessage **out, tl_error *err);

/* Whether data[0..len) decodes as a `desc` message, by the first pass alone
 * (nothing is written or allocated). */
bool tl_pbdecode_check(const ProtobufCMessageDescriptor *desc, const uint8_t *data, size_t len);

/* Resets in `msg` and below it what TL_PBDECODE_MODEL leaves out, so that a
 * message decoded whole (by protobuf-c, or TL_PBDECODE_ALL) compares equal
 * to the same bytes decoded with TL_PBDECODE_MODEL (the tests do). What was
 * reset is not freed. */
void tl_pbdecode_clear_skipped(ProtobufCMessage *msg);

#endif
