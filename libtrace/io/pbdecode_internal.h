/*
 * pbdecode_internal: reading one field off the wire as protobuf-c 1.4 reads it
 * (keys of at most 5 bytes, lengths read as 32 bits, its refusals), and the
 * values' decodings both passes of the decoder (pbdecode.c) share. Private
 * to the decoder; inline because they run once per field of every message:
 * they are the decoder's hot path.
 */
#ifndef TL_IO_PBDECODE_INTERNAL_H
#define TL_IO_PBDECODE_INTERNAL_H

#include <glib.h>
#include <protobuf-c/protobuf-c.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Wire types; TL_WT_ANY: a field type that takes any (bool). */
enum { TL_WT_VARINT = 0, TL_WT_64 = 1, TL_WT_LEN = 2, TL_WT_32 = 5, TL_WT_ANY = 0xff };

/* How far ahead of a key to prefetch (a key, a string, a key, ...). */
#define TL_PBDECODE_PREFETCH_AHEAD 1024

/* The wire type protobuf-c accepts for one value of `type`. */
static inline uint8_t tl_pbdecode_wire_type(ProtobufCType type)
{
	switch (type) {
	case PROTOBUF_C_TYPE_BOOL:
		return TL_WT_ANY; /* parse_boolean looks at the bytes, whatever they are */
	case PROTOBUF_C_TYPE_STRING:
	case PROTOBUF_C_TYPE_BYTES:
	case PROTOBUF_C_TYPE_MESSAGE:
		return TL_WT_LEN;
	case PROTOBUF_C_TYPE_SFIXED32:
	case PROTOBUF_C_TYPE_FIXED32:
	case PROTOBUF_C_TYPE_FLOAT:
		return TL_WT_32;
	case PROTOBUF_C_TYPE_SFIXED64:
	case PROTOBUF_C_TYPE_FIXED64:
	case PROTOBUF_C_TYPE_DOUBLE:
		return TL_WT_64;
	default:
		return TL_WT_VARINT;
	}
}

/* One field as protobuf-c's scan reads it. */
typedef struct tl_pbdecode_wire_field {
	uint32_t tag;
	unsigned wt;
	uint8_t *at;  /* after the key */
	size_t span;  /* bytes after the key (a length's prefix included) */
	uint8_t *val; /* the value (after a length's prefix) */
	size_t vlen;
} tl_pbdecode_wire_field;

/* Reads the field at p[*pos] (pos < len) and moves past it; false where
 * protobuf-c's scan fails. */
static inline bool tl_pbdecode_wire_read(uint8_t *p, size_t len, size_t *pos,
					 tl_pbdecode_wire_field *f)
{
	uint8_t *q = p + *pos;
	size_t rem = len - *pos;
	unsigned used;
	uint8_t b0 = q[0];
	/* Keys are scattered between strings that are passed over: fetch the
	 * bytes a few keys ahead before they are needed. */
	__builtin_prefetch(q + TL_PBDECODE_PREFETCH_AHEAD);
	/* protobuf-c refuses a first key byte whose number bits are all 0
	 * (though not field 0 in a longer key). */
	if ((b0 & 0xf8) == 0)
		return false;
	f->wt = b0 & 7u;
	if (G_LIKELY((b0 & 0x80) == 0)) {
		f->tag = (uint32_t)b0 >> 3;
		used = 1;
	} else {
		uint32_t tag = (uint32_t)(b0 & 0x7f) >> 3;
		unsigned shift = 4;
		unsigned max = rem > 5 ? 5 : (unsigned)rem;
		for (used = 1; used < max; used++) {
			if ((q[used] & 0x80) == 0) {
				tag |= (uint32_t)q[used] << shift;
				break;
			}
			tag |= (uint32_t)(q[used] & 0x7f) << shift;
			shift += 7;
		}
		if (used == max)
			return false;
		used++;
		f->tag = tag;
	}
	q += used;
	rem -= used;
	f->at = q;
	f->val = q;
	switch (f->wt) {
	case TL_WT_VARINT: {
		if (G_LIKELY(rem > 0 && (q[0] & 0x80) == 0)) {
			f->span = f->vlen = 1;
			break;
		}
		unsigned max = rem < 10 ? (unsigned)rem : 10;
		unsigned i = 0;
		while (i < max && (q[i] & 0x80) != 0)
			i++;
		if (i == max)
			return false;
		f->span = f->vlen = i + 1;
		break;
	}
	case TL_WT_64:
		if (rem < 8)
			return false;
		f->span = f->vlen = 8;
		break;
	case TL_WT_32:
		if (rem < 4)
			return false;
		f->span = f->vlen = 4;
		break;
	case TL_WT_LEN: {
		uint32_t v = 0, head;
		if (G_LIKELY(rem > 0 && (q[0] & 0x80) == 0)) {
			v = q[0];
			head = 1;
		} else {
			unsigned max = rem < 5 ? (unsigned)rem : 5;
			unsigned i = 0, shift = 0;
			for (; i < max; i++) {
				v |= (uint32_t)(q[i] & 0x7f) << shift; /* bits past 32 are lost */
				shift += 7;
				if ((q[i] & 0x80) == 0)
					break;
			}
			if (i == max)
				return false;
			head = i + 1;
		}
		/* protobuf-c adds these in 32 bits; where the sum wraps, it goes
		 * on reading inside the prefix, where no key can follow (the
		 * prefix's bytes then give wire types 3, 4, 6 or 7), so such a
		 * length is refused either way. */
		uint32_t total = head + v;
		if (total > rem || total < head)
			return false;
		f->span = total;
		f->val = q + head;
		f->vlen = v;
		break;
	}
	default:
		return false;
	}
	*pos += used + f->span;
	return true;
}

static inline uint64_t tl_pbdecode_wire_varint(const uint8_t *v, size_t n)
{
	uint64_t r = 0;
	for (size_t i = 0; i < n; i++)
		r |= (uint64_t)(v[i] & 0x7f) << (7 * i);
	return r;
}

static inline int32_t tl_pbdecode_wire_unzigzag32(uint32_t v)
{
	return (v & 1) ? -(int32_t)(v >> 1) - 1 : (int32_t)(v >> 1);
}

static inline int64_t tl_pbdecode_wire_unzigzag64(uint64_t v)
{
	return (v & 1) ? -(int64_t)(v >> 1) - 1 : (int64_t)(v >> 1);
}

/* protobuf-c's parse_boolean: any byte with a value bit set. */
static inline protobuf_c_boolean tl_pbdecode_wire_bool(const uint8_t *v, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (v[i] & 0x7f)
			return 1;
	return 0;
}

#endif
