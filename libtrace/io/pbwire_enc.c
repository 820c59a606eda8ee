/*
 * The wire-format encoders declared in pbwire.h (pbwire.c holds the decoding
 * side). pbtext and the test generator append through these.
 */
#include "io/pbwire.h"

#define LEN_PAD 5 /* bytes reserved for a sub-message length: 35 bits */

void tl_pbwire_put_varint(GByteArray *out, uint64_t v)
{
	uint8_t buf[10];
	unsigned n = 0;
	while (v >= 0x80) {
		buf[n++] = (uint8_t)(v | 0x80);
		v >>= 7;
	}
	buf[n++] = (uint8_t)v;
	g_byte_array_append(out, buf, n);
}

void tl_pbwire_put_tag(GByteArray *out, uint32_t field, unsigned wire_type)
{
	tl_pbwire_put_varint(out, ((uint64_t)field << 3) | (wire_type & 7));
}

void tl_pbwire_put_fixed32(GByteArray *out, uint32_t v)
{
	uint8_t buf[4];
	for (unsigned i = 0; i < 4; i++)
		buf[i] = (uint8_t)(v >> (8 * i));
	g_byte_array_append(out, buf, 4);
}

void tl_pbwire_put_fixed64(GByteArray *out, uint64_t v)
{
	uint8_t buf[8];
	for (unsigned i = 0; i < 8; i++)
		buf[i] = (uint8_t)(v >> (8 * i));
	g_byte_array_append(out, buf, 8);
}

void tl_pbwire_put_bytes(GByteArray *out, uint32_t field, const void *data, size_t len)
{
	tl_pbwire_put_tag(out, field, PROTOBUF_C_WIRE_TYPE_LENGTH_PREFIXED);
	tl_pbwire_put_varint(out, len);
	if (len > 0)
		g_byte_array_append(out, data, (guint)len);
}

size_t tl_pbwire_begin_len(GByteArray *out, uint32_t field)
{
	static const uint8_t pad[LEN_PAD] = {0x80, 0x80, 0x80, 0x80, 0x00};
	tl_pbwire_put_tag(out, field, PROTOBUF_C_WIRE_TYPE_LENGTH_PREFIXED);
	size_t mark = out->len;
	g_byte_array_append(out, pad, LEN_PAD);
	return mark;
}

void tl_pbwire_end_len(GByteArray *out, size_t mark)
{
	uint64_t n = out->len - mark - LEN_PAD;
	uint8_t *p = out->data + mark;
	for (unsigned i = 0; i < LEN_PAD - 1; i++)
		p[i] = (uint8_t)((n >> (7 * i)) & 0x7f) | 0x80;
	p[LEN_PAD - 1] = (uint8_t)((n >> (7 * (LEN_PAD - 1))) & 0x7f);
}
