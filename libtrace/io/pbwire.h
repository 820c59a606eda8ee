/*
 * pbwire: binary protobuf wire format below protobuf-c: classifying an
 * unknown binary message by walking its fields against candidate schemas, and
 * the small encoders that pbtext and the generator share.
 */
#ifndef TL_IO_PBWIRE_H
#define TL_IO_PBWIRE_H

#include "base/warn.h"

#include <glib.h>
#include <protobuf-c/protobuf-c.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Which of RunMetadata, StepStats and GraphDef the bytes are: each schema is
 * walked (wire types must match the declared field types, strings must look
 * like text, nested messages are checked a few levels deep) and the best
 * consistent one wins. A binary protobuf that is none of them (e.g. a TF2
 * profiler XSpace) is refused: "not a RunMetadata, StepStats or GraphDef
 * (field N at byte B ...)". */
int tl_pbwire_classify(const uint8_t *data, size_t len, const ProtobufCMessageDescriptor **out,
		       tl_error *err);

/* Whether the bytes walk as one `desc` message, by the walk
 * tl_pbwire_classify uses (for telling neighbours such as an XSpace by
 * content). True with *score, how much known fields explain (unknown fields
 * count against it); false with why in err, and *cut (may be NULL) true when
 * the walk failed only because a field ran past the end of the bytes
 * (*score then says how much fitted before). */
bool tl_pbwire_fits(const ProtobufCMessageDescriptor *desc, const uint8_t *data, size_t len,
		    long *score, bool *cut, tl_error *err);

/* Protobuf's recursion limit, for binary as for text (TL_PBTEXT_MAX_DEPTH):
 * protobuf-c decodes nested messages by recursion without a limit, so a
 * hostile input nested 100,000 levels deep would overflow the stack. */
#define TL_PBWIRE_MAX_DEPTH 100

/* Checks, without recursion, that no message inside the `desc` message in
 * data[0..len) is nested deeper than max_depth levels; malformed parts are
 * passed over. The decoder (pbdecode.h) asks it why it refused an input:
 * nesting, first in the bytes, before any malformed part. Error: "messages nested deeper than
 * 100 levels at byte B (AttrValue in NameAttrList)". */
int tl_pbwire_check_depth(const ProtobufCMessageDescriptor *desc, const uint8_t *data, size_t len,
			  unsigned max_depth, tl_error *err);

/* Decoding helper: reads a varint at *pos (advancing it); false when
 * truncated or longer than 10 bytes. */
/* The size of one element of a field of this type in a protobuf-c struct
 * (a repeated field's array holds such elements). */
size_t tl_pbwire_elt_size(ProtobufCType type);

bool tl_pbwire_varint(const uint8_t *data, size_t len, size_t *pos, uint64_t *out);

/* Encoders appending to a GByteArray. */
void tl_pbwire_put_varint(GByteArray *out, uint64_t v);
void tl_pbwire_put_tag(GByteArray *out, uint32_t field, unsigned wire_type);
void tl_pbwire_put_fixed32(GByteArray *out, uint32_t v);
void tl_pbwire_put_fixed64(GByteArray *out, uint64_t v);
void tl_pbwire_put_bytes(GByteArray *out, uint32_t field, const void *data, size_t len);

/* Length-prefixed sub-message written in place: begin reserves a 5-byte
 * padded varint, end fills it in (protobuf decoders accept padded varints,
 * so no copy is needed). */
size_t tl_pbwire_begin_len(GByteArray *out, uint32_t field);
void tl_pbwire_end_len(GByteArray *out, size_t mark);

#endif
