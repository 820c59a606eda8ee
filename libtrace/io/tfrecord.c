/*
 * tfrecord: TFRecord framing and the CRC-32C it is checked with.
 */
#include "io/tfrecord.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#define CRC32C_POLY 0x82f63b78u /* Castagnoli, bit-reversed */
#define CRC_MASK_DELTA 0xa282ead8u
#define HEADER_SIZE 12
#define FOOTER_SIZE 4
#define FIRST_CHUNK (1u << 20)

/* Slicing-by-8: table[k][b] is the crc of byte b followed by k zero bytes,
 * so eight bytes are folded per step with eight lookups. */
static uint32_t crc_table[8][256];

static void crc_table_init(void)
{
	static gsize done = 0;
	if (!g_once_init_enter(&done))
		return;
	for (uint32_t b = 0; b < 256; b++) {
		uint32_t c = b;
		for (int bit = 0; bit < 8; bit++)
			c = (c & 1) ? (c >> 1) ^ CRC32C_POLY : c >> 1;
		crc_table[0][b] = c;
	}
	for (uint32_t b = 0; b < 256; b++)
		for (int k = 1; k < 8; k++) {
			uint32_t prev = crc_table[k - 1][b];
			crc_table[k][b] = (prev >> 8) ^ crc_table[0][prev & 0xff];
		}
	g_once_init_leave(&done, 1);
}

static uint32_t load_le32(const uint8_t *p)
{
	return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

static uint64_t load_le64(const uint8_t *p)
{
	return (uint64_t)load_le32(p) | (uint64_t)load_le32(p + 4) << 32;
}

static void store_le32(uint8_t *p, uint32_t v)
{
	for (int i = 0; i < 4; i++)
		p[i] = (uint8_t)(v >> (8 * i));
}

static void store_le64(uint8_t *p, uint64_t v)
{
	store_le32(p, (uint32_t)v);
	store_le32(p + 4, (uint32_t)(v >> 32));
}

/* The crc by the tables, eight bytes a step; `crc` as kept between steps
 * (inverted). */
static uint32_t crc_soft(uint32_t crc, const uint8_t *p, size_t len)
{
	crc_table_init();
	while (len >= 8) {
		uint32_t lo = load_le32(p) ^ crc;
		uint32_t hi = load_le32(p + 4);
		crc = crc_table[7][lo & 0xff] ^ crc_table[6][(lo >> 8) & 0xff] ^
		      crc_table[5][(lo >> 16) & 0xff] ^ crc_table[4][lo >> 24] ^
		      crc_table[3][hi & 0xff] ^ crc_table[2][(hi >> 8) & 0xff] ^
		      crc_table[1][(hi >> 16) & 0xff] ^ crc_table[0][hi >> 24];
		p += 8;
		len -= 8;
	}
	while (len > 0) {
		crc = (crc >> 8) ^ crc_table[0][(crc ^ *p) & 0xff];
		p++;
		len--;
	}
	return crc;
}

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
/* SSE 4.2's crc32 instruction computes CRC-32C (the same reflected
 * polynomial, the same inverted state): a step of eight bytes in one
 * instruction, where the tables take eight lookups (on a TFRecord stream
 * the crc was an eighth of reading it). */
#define CRC_HW 1
__attribute__((target("sse4.2"))) static uint32_t crc_hw(uint32_t crc, const uint8_t *p,
							  size_t len)
{
	uint64_t c = crc;
	while (len >= 8) {
		uint64_t v;
		memcpy(&v, p, 8); /* x86 is little-endian, as the crc reads */
		c = __builtin_ia32_crc32di(c, v);
		p += 8;
		len -= 8;
	}
	uint32_t c32 = (uint32_t)c;
	while (len > 0) {
		c32 = __builtin_ia32_crc32qi(c32, *p);
		p++;
		len--;
	}
	return c32;
}
#endif

/* Like zlib's crc32(): `crc` is the crc of the bytes before (0 to start), so
 * a crc can be computed piecewise. */
uint32_t tl_tfrecord_crc32c(uint32_t crc, const void *data, size_t len)
{
#ifdef CRC_HW
	if (__builtin_cpu_supports("sse4.2")) /* a flag libgcc set at start */
		return ~crc_hw(~crc, data, len);
#endif
	return ~crc_soft(~crc, data, len);
}

uint32_t tl_tfrecord_crc32c_soft(uint32_t crc, const void *data, size_t len)
{
	return ~crc_soft(~crc, data, len);
}

/* TensorFlow rotates and offsets the crc it stores, so that a crc of data
 * that itself holds crcs does not degenerate. */
uint32_t tl_tfrecord_crc32c_masked(const void *data, size_t len)
{
	uint32_t crc = tl_tfrecord_crc32c(0, data, len);
	return ((crc >> 15) | (crc << 17)) + CRC_MASK_DELTA;
}

bool tl_tfrecord_sniff(const uint8_t *data, size_t len)
{
	if (len < HEADER_SIZE)
		return false;
	return tl_tfrecord_crc32c_masked(data, 8) == load_le32(data + 8);
}

/* A header whose length is below 4 GiB and whose crc holds. The length
 * test, four bytes, rules out most offsets of a scan before any crc. */
static bool plausible_header(const uint8_t *h)
{
	if ((h[4] | h[5] | h[6] | h[7]) != 0)
		return false;
	return tl_tfrecord_crc32c_masked(h, 8) == load_le32(h + 8);
}

bool tl_tfrecord_sniff_damaged(const uint8_t *data, size_t len)
{
	for (size_t p = 1; p + HEADER_SIZE + FOOTER_SIZE <= len; p++) {
		if (!plausible_header(data + p))
			continue;
		uint64_t n = load_le64(data + p);
		if (n > len - p - HEADER_SIZE - FOOTER_SIZE)
			continue;
		const uint8_t *body = data + p + HEADER_SIZE;
		if (tl_tfrecord_crc32c_masked(body, (size_t)n) == load_le32(body + n))
			return true;
	}
	return false;
}

void tl_tfrecord_reader_init(tl_tfrecord_reader *r, tl_input *in)
{
	memset(r, 0, sizeof *r);
	r->in = in;
	r->next = 1;
}

/* Reads `n` data bytes into `rec`, growing it as the bytes arrive, so that a
 * length prefix larger than the input costs no more than the input. Returns
 * 1 when all came, 0 when the input ended first, -1 on a read error. */
static int read_data(tl_input *in, GByteArray *rec, uint64_t n, tl_error *err)
{
	uint64_t have = 0;
	while (have < n) {
		uint64_t chunk = have == 0 ? FIRST_CHUNK : have;
		if (chunk > n - have)
			chunk = n - have;
		g_byte_array_set_size(rec, (guint)(have + chunk));
		long long got = tl_input_read(in, rec->data + have, (size_t)chunk, err);
		if (got < 0)
			return -1;
		have += (uint64_t)got;
		if ((uint64_t)got < chunk) {
			g_byte_array_set_size(rec, (guint)have);
			return 0;
		}
	}
	return 1;
}

/* Passes over bytes up to the next offset where a plausible header starts.
 * Returns 1 with the input there, 0 at the end of input, -1 on a read
 * error. Every byte is peeked at most twice (the last 11 of a window are
 * looked at again with the next). */
static int resync(tl_input *in, tl_error *err)
{
	for (;;) {
		const uint8_t *p = NULL;
		size_t n = tl_input_peek(in, &p, TL_INPUT_PEEK_MAX, err);
		if (n < HEADER_SIZE) {
			uint8_t rest[HEADER_SIZE];
			long long got = tl_input_read(in, rest, sizeof rest, err);
			return got < 0 ? -1 : 0;
		}
		size_t last = n - HEADER_SIZE;
		for (size_t i = 0; i <= last; i++) {
			if (plausible_header(p + i)) {
				if (tl_input_skip(in, i, err) < 0)
					return -1;
				return 1;
			}
		}
		if (tl_input_skip(in, last + 1, err) < 0)
			return -1;
	}
}

static void describe(tl_tfrecord_reader *r, tl_error *err, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

static void describe(tl_tfrecord_reader *r, tl_error *err, const char *fmt, ...)
{
	char why[256];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(why, sizeof why, fmt, ap);
	va_end(ap);
	tl_error_set(err, "record %llu at byte %llu%s", (unsigned long long)r->number,
		     (unsigned long long)r->at, why);
}

static int cut_short(tl_tfrecord_reader *r, tl_error *err)
{
	describe(r, err, " is cut short");
	r->cut = true;
	return TL_TFRECORD_DAMAGED;
}

/* The header at r->at does not hold: look for the next one from the byte
 * after it. */
static int skip_header(tl_tfrecord_reader *r, tl_error *err)
{
	tl_error why = *err;
	if (tl_input_skip(r->in, 1, err) < 0)
		return -1;
	int rc = resync(r->in, err);
	if (rc < 0)
		return -1;
	*err = why;
	if (rc == 0)
		snprintf(r->then, sizeof r->then, "no record follows it");
	else
		snprintf(r->then, sizeof r->then, "skipped to the record at byte %llu",
			 (unsigned long long)tl_input_offset(r->in));
	return TL_TFRECORD_DAMAGED;
}

static int next_record(tl_tfrecord_reader *r, GByteArray *rec, tl_error *err)
{
	tl_input *in = r->in;
	r->cut = false;
	r->then[0] = '\0';
	r->number = r->next;
	r->at = tl_input_offset(in);

	const uint8_t *head = NULL;
	if (tl_input_peek(in, &head, HEADER_SIZE, err) < HEADER_SIZE) {
		uint8_t rest[HEADER_SIZE];
		long long got = tl_input_read(in, rest, sizeof rest, err);
		if (got <= 0)
			return (int)got;
		r->next++;
		return cut_short(r, err);
	}
	r->next++;
	uint64_t n = load_le64(head);
	if (tl_tfrecord_crc32c_masked(head, 8) != load_le32(head + 8)) {
		describe(r, err, ": length crc mismatch");
		return skip_header(r, err);
	}
	if (n > TL_TFRECORD_MAX) {
		describe(r, err, ": length %llu is over the limit of %llu bytes",
			 (unsigned long long)n, (unsigned long long)TL_TFRECORD_MAX);
		return skip_header(r, err);
	}
	if (tl_input_skip(in, HEADER_SIZE, err) < 0)
		return -1;
	int rc = read_data(in, rec, n, err);
	if (rc <= 0)
		return rc < 0 ? -1 : cut_short(r, err);

	uint8_t foot[FOOTER_SIZE];
	long long got = tl_input_read(in, foot, sizeof foot, err);
	if (got < 0)
		return -1;
	if (got < FOOTER_SIZE)
		return cut_short(r, err);
	if (tl_tfrecord_crc32c_masked(rec->data, rec->len) != load_le32(foot)) {
		describe(r, err, ": data crc mismatch");
		snprintf(r->then, sizeof r->then, "record skipped");
		return TL_TFRECORD_DAMAGED;
	}
	return 1;
}

int tl_tfrecord_next(tl_tfrecord_reader *r, GByteArray *rec, tl_error *err)
{
	tl_error local;
	g_byte_array_set_size(rec, 0);
	int rc = next_record(r, rec, err != NULL ? err : &local);
	if (rc != 1)
		g_byte_array_set_size(rec, 0);
	return rc;
}

void tl_tfrecord_frame(GByteArray *out, const void *data, size_t len)
{
	uint8_t head[HEADER_SIZE];
	uint8_t foot[FOOTER_SIZE];
	/* Records are at most TL_TFRECORD_MAX bytes, which fits a guint. */
	g_return_if_fail(len <= TL_TFRECORD_MAX);
	store_le64(head, len);
	store_le32(head + 8, tl_tfrecord_crc32c_masked(head, 8));
	store_le32(foot, tl_tfrecord_crc32c_masked(data, len));
	g_byte_array_append(out, head, sizeof head);
	g_byte_array_append(out, data, (guint)len);
	g_byte_array_append(out, foot, sizeof foot);
}
