/* Unit tests for tfrecord.c: CRC-32C, TFRecord framing, and reading records
 * back through tl_input with every kind of damage passed over. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include "io/input.h"
#include "io/tfrecord.h"

#include <glib.h>
#include <glib/gstdio.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>
#include <zlib.h>

#if defined(__SANITIZE_ADDRESS__)
#define UNDER_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define UNDER_ASAN 1
#endif
#endif

/* Bit-at-a-time CRC-32C, the definition the fast version must match. */
static uint32_t crc32c_ref(const uint8_t *p, size_t n)
{
	uint32_t crc = 0xffffffffu;
	for (size_t i = 0; i < n; i++) {
		crc ^= p[i];
		for (int b = 0; b < 8; b++)
			crc = (crc >> 1) ^ ((crc & 1) ? 0x82f63b78u : 0);
	}
	return ~crc;
}

static char *write_temp(const void *data, size_t len)
{
	char *path = NULL;
	GError *gerr = NULL;
	int fd = g_file_open_tmp("test_tfrecord_XXXXXX", &path, &gerr);
	if (fd < 0)
		fail_msg("cannot make a temp file: %s", gerr->message);
	close(fd);
	if (!g_file_set_contents(path, data, (gssize)len, &gerr))
		fail_msg("cannot write '%s': %s", path, gerr->message);
	return path;
}

static tl_input *open_path(const char *path)
{
	tl_input *in = NULL;
	tl_error err = {{0}};
	if (tl_input_open(&in, path, &err) != 0)
		fail_msg("cannot open '%s': %s", path, err.msg);
	return in;
}

static GByteArray *frame_all(const char *const *recs, size_t n)
{
	GByteArray *out = g_byte_array_new();
	for (size_t i = 0; i < n; i++)
		tl_tfrecord_frame(out, recs[i], strlen(recs[i]));
	return out;
}

/* Reads every record of `in` and says what happened, in order: a record's
 * bytes as they are (the tests' records are text), damage as "[WHAT: THEN]",
 * or "[WHAT; cut]" for a record cut short by the end; records and damage
 * separated by spaces. An error is "<error: MSG>". */
static char *read_log_input(tl_input *in)
{
	tl_tfrecord_reader r;
	tl_tfrecord_reader_init(&r, in);
	GByteArray *rec = g_byte_array_new();
	GString *log = g_string_new("");
	tl_error err = {{0}};
	int rc;
	uint64_t last = 0;
	while ((rc = tl_tfrecord_next(&r, rec, &err)) > 0) {
		/* every call moves on: damage never loops */
		assert_true(tl_input_offset(in) > last);
		last = tl_input_offset(in);
		if (log->len > 0)
			g_string_append_c(log, ' ');
		if (rc == 1)
			g_string_append_len(log, (const char *)rec->data, (gssize)rec->len);
		else if (r.cut)
			g_string_append_printf(log, "[%s; cut]", err.msg);
		else
			g_string_append_printf(log, "[%s: %s]", err.msg, r.then);
		if (rc != 1)
			assert_int_equal(rec->len, 0);
	}
	if (rc < 0)
		g_string_append_printf(log, "%s<error: %s>", log->len ? " " : "", err.msg);
	/* the end stays the end */
	if (rc == 0)
		assert_int_equal(tl_tfrecord_next(&r, rec, &err), 0);
	g_byte_array_unref(rec);
	return g_string_free(log, FALSE);
}

static char *read_log(const uint8_t *bytes, size_t len)
{
	char *path = write_temp(bytes, len);
	tl_input *in = open_path(path);
	char *log = read_log_input(in);
	tl_input_close(in);
	g_unlink(path);
	g_free(path);
	return log;
}

static void assert_log(const GByteArray *s, const char *want)
{
	char *got = read_log(s->data, s->len);
	assert_string_equal(got, want);
	g_free(got);
}

/* Proves: CRC-32C matches the standard check value and RFC 3720's vectors. */
static void test_crc32c_vectors(void **state)
{
	uint8_t buf[32];
	assert_int_equal(tl_tfrecord_crc32c(0, "123456789", 9), 0xe3069283u);
	assert_int_equal(tl_tfrecord_crc32c(0, "", 0), 0);
	memset(buf, 0, sizeof buf);
	assert_int_equal(tl_tfrecord_crc32c(0, buf, sizeof buf), 0x8a9136aau);
	memset(buf, 0xff, sizeof buf);
	assert_int_equal(tl_tfrecord_crc32c(0, buf, sizeof buf), 0x62a8ab43u);
	for (int i = 0; i < 32; i++)
		buf[i] = (uint8_t)i;
	assert_int_equal(tl_tfrecord_crc32c(0, buf, sizeof buf), 0x46dd794eu);
	for (int i = 0; i < 32; i++)
		buf[i] = (uint8_t)(31 - i);
	assert_int_equal(tl_tfrecord_crc32c(0, buf, sizeof buf), 0x113fdb5cu);
}

/* Proves: the eight-bytes-at-a-time path agrees with the bitwise definition
 * at every length and alignment, and a crc can be continued piecewise. */
static void test_crc32c_slices(void **state)
{
	uint8_t buf[300];
	GRand *r = g_rand_new_with_seed(7);
	for (size_t i = 0; i < sizeof buf; i++)
		buf[i] = (uint8_t)g_rand_int_range(r, 0, 256);
	g_rand_free(r);
	for (size_t off = 0; off < 8; off++)
		for (size_t n = 0; n + off <= 80; n++)
			assert_int_equal(tl_tfrecord_crc32c(0, buf + off, n), crc32c_ref(buf + off, n));
	uint32_t whole = crc32c_ref(buf, sizeof buf);
	for (size_t cut = 0; cut <= sizeof buf; cut++) {
		uint32_t c = tl_tfrecord_crc32c(0, buf, cut);
		assert_int_equal(tl_tfrecord_crc32c(c, buf + cut, sizeof buf - cut), whole);
	}
}

/* Proves: the tables alone (the path of a processor without a crc
 * instruction) and the path this machine takes agree with the bitwise
 * definition at every length and alignment, piecewise too, and on a
 * megabyte. */
static void test_crc32c_soft(void **state)
{
	uint8_t buf[300];
	GRand *r = g_rand_new_with_seed(11);
	for (size_t i = 0; i < sizeof buf; i++)
		buf[i] = (uint8_t)g_rand_int_range(r, 0, 256);
	for (size_t off = 0; off < 8; off++)
		for (size_t n = 0; n + off <= 80; n++)
			assert_int_equal(tl_tfrecord_crc32c_soft(0, buf + off, n),
					 crc32c_ref(buf + off, n));
	uint32_t whole = crc32c_ref(buf, sizeof buf);
	for (size_t cut = 0; cut <= sizeof buf; cut++) {
		uint32_t c = tl_tfrecord_crc32c_soft(0, buf, cut);
		assert_int_equal(tl_tfrecord_crc32c(c, buf + cut, sizeof buf - cut), whole);
		c = tl_tfrecord_crc32c(0, buf, cut);
		assert_int_equal(tl_tfrecord_crc32c_soft(c, buf + cut, sizeof buf - cut), whole);
	}
	size_t big = (size_t)1 << 20;
	uint8_t *m = g_malloc(big + 3);
	for (size_t i = 0; i < big + 3; i++)
		m[i] = (uint8_t)g_rand_int_range(r, 0, 256);
	g_rand_free(r);
	uint32_t want = crc32c_ref(m + 3, big);
	assert_int_equal(tl_tfrecord_crc32c(0, m + 3, big), want);
	assert_int_equal(tl_tfrecord_crc32c_soft(0, m + 3, big), want);
	g_free(m);
}

/* Proves: the masked crc and the frame layout are TensorFlow's (bytes
 * computed independently, with Python, from the TFRecord spec). */
static void test_frame_bytes(void **state)
{
	assert_int_equal(tl_tfrecord_crc32c_masked("123456789", 9), 0xc78ab0e5u);
	const uint8_t want[] = {0x05, 0,   0,	0,   0,	  0,   0,    0,	   0xea, 0xb2, 0x04,
				0x3e, 'h', 'e', 'l', 'l', 'o', 0xbb, 0x1f, 0x1c, 0x19};
	GByteArray *out = g_byte_array_new();
	g_byte_array_append(out, (const uint8_t *)"x", 1);
	tl_tfrecord_frame(out, "hello", 5);
	assert_int_equal(out->len, 1 + sizeof want);
	assert_memory_equal(out->data + 1, want, sizeof want);
	g_byte_array_unref(out);
}

/* Proves: sniff accepts a record header and refuses short input, JSON, and
 * a header whose length crc is off by one bit. */
static void test_sniff(void **state)
{
	GByteArray *out = g_byte_array_new();
	tl_tfrecord_frame(out, "hello", 5);
	assert_true(tl_tfrecord_sniff(out->data, out->len));
	assert_true(tl_tfrecord_sniff(out->data, 12));
	assert_false(tl_tfrecord_sniff(out->data, 11));
	out->data[9] ^= 0x10;
	assert_false(tl_tfrecord_sniff(out->data, out->len));
	g_byte_array_unref(out);
	const char *json = "{\"traceEvents\": [{\"ph\": \"X\"}]}";
	assert_false(tl_tfrecord_sniff((const uint8_t *)json, strlen(json)));
	const uint8_t zeros[16] = {0};
	assert_false(tl_tfrecord_sniff(zeros, sizeof zeros));
}

static void check_round_trip(const char *path, GPtrArray *recs)
{
	tl_input *in = open_path(path);
	tl_tfrecord_reader r;
	tl_tfrecord_reader_init(&r, in);
	GByteArray *rec = g_byte_array_new();
	tl_error err = {{0}};
	for (guint i = 0; i < recs->len; i++) {
		GBytes *want = g_ptr_array_index(recs, i);
		int rc = tl_tfrecord_next(&r, rec, &err);
		if (rc != 1)
			fail_msg("record %u: rc %d: %s", i, rc, err.msg);
		assert_int_equal(r.number, i + 1);
		size_t n;
		const uint8_t *p = g_bytes_get_data(want, &n);
		assert_int_equal(rec->len, n);
		if (n > 0)
			assert_memory_equal(rec->data, p, n);
	}
	assert_int_equal(tl_tfrecord_next(&r, rec, &err), 0);
	assert_int_equal(rec->len, 0);
	assert_int_equal(tl_tfrecord_next(&r, rec, &err), 0);
	assert_null(tl_input_damage(in));
	g_byte_array_unref(rec);
	tl_input_close(in);
}

/* Proves: records framed by tl_tfrecord_frame read back identical, in order,
 * through a file and through a gzip file, including an empty record and one
 * larger than the reader's first chunk; then a clean end. */
static void test_round_trip(void **state)
{
	GPtrArray *recs = g_ptr_array_new_with_free_func((GDestroyNotify)g_bytes_unref);
	g_ptr_array_add(recs, g_bytes_new_static("hello", 5));
	g_ptr_array_add(recs, g_bytes_new_static("", 0));
	size_t big = 3u << 20;
	uint8_t *b = g_malloc(big);
	GRand *r = g_rand_new_with_seed(3);
	for (size_t i = 0; i < big; i++)
		b[i] = (uint8_t)g_rand_int_range(r, 0, 256);
	g_rand_free(r);
	g_ptr_array_add(recs, g_bytes_new_take(b, big));
	g_ptr_array_add(recs, g_bytes_new_static("\0\1\2", 3));

	GByteArray *stream = g_byte_array_new();
	for (guint i = 0; i < recs->len; i++) {
		size_t n;
		const void *p = g_bytes_get_data(g_ptr_array_index(recs, i), &n);
		tl_tfrecord_frame(stream, p, n);
	}
	char *path = write_temp(stream->data, stream->len);
	check_round_trip(path, recs);

	gzFile gz = gzopen(path, "wb");
	assert_non_null(gz);
	assert_int_equal(gzwrite(gz, stream->data, stream->len), (int)stream->len);
	assert_int_equal(gzclose(gz), Z_OK);
	tl_input *in = open_path(path);
	assert_true(tl_input_is_gzip(in));
	tl_input_close(in);
	check_round_trip(path, recs);

	g_unlink(path);
	g_free(path);
	g_byte_array_unref(stream);
	g_ptr_array_unref(recs);
}

/* Proves: a damaged length or length crc is reported with the record's
 * number and byte, and reading resumes at the next record; when it was the
 * last record, nothing follows. */
static void test_corrupt_length_crc(void **state)
{
	const char *recs[] = {"hello", "world!!"};
	GByteArray *s = frame_all(recs, 2);
	s->data[21 + 9] ^= 0x01; /* record 2 starts at byte 21 */
	assert_log(s, "hello [record 2 at byte 21: length crc mismatch: no record follows it]");
	s->data[21 + 9] ^= 0x01;
	s->data[0] = 6; /* the length of record 1 */
	assert_log(s, "[record 1 at byte 0: length crc mismatch: skipped to the record at byte 21] "
		      "world!!");
	g_byte_array_unref(s);
}

/* Proves: a damaged data byte or data crc loses that record only. */
static void test_corrupt_data_crc(void **state)
{
	const char *recs[] = {"hello", "world!!", "again"};
	GByteArray *s = frame_all(recs, 3);
	s->data[21 + 12 + 3] ^= 0x20;
	assert_log(s, "hello [record 2 at byte 21: data crc mismatch: record skipped] again");
	s->data[21 + 12 + 3] ^= 0x20;
	assert_log(s, "hello world!! again");
	s->data[21 + 12 + 7 + 1] ^= 0x80;
	assert_log(s, "hello [record 2 at byte 21: data crc mismatch: record skipped] again");
	g_byte_array_unref(s);
}

/* Proves: in a 3-record stream, a byte flipped anywhere (length, length
 * crc, data, data crc of any record) loses that record and no other, with
 * one report naming it. */
static void test_flip_every_byte(void **state)
{
	const char *recs[] = {"first record", "second", "the third one"};
	GByteArray *s = frame_all(recs, 3);
	size_t starts[4] = {0};
	for (int i = 0; i < 3; i++)
		starts[i + 1] = starts[i] + 16 + strlen(recs[i]);
	assert_int_equal(starts[3], s->len);
	for (size_t at = 0; at < s->len; at++) {
		int hit = at >= starts[2] ? 2 : at >= starts[1] ? 1 : 0;
		size_t off = at - starts[hit];
		const char *what = off < 12 ? "length crc mismatch" : "data crc mismatch";
		for (int bit = 0; bit < 8; bit += 7) {
			s->data[at] ^= (uint8_t)(1u << bit);
			GString *want = g_string_new("");
			for (int i = 0; i < 3; i++) {
				if (i > 0)
					g_string_append_c(want, ' ');
				if (i != hit) {
					g_string_append(want, recs[i]);
					continue;
				}
				g_string_append_printf(want, "[record %d at byte %zu: %s: ", i + 1,
						       starts[i], what);
				if (strcmp(what, "data crc mismatch") == 0)
					g_string_append(want, "record skipped]");
				else if (i == 2)
					g_string_append(want, "no record follows it]");
				else
					g_string_append_printf(want, "skipped to the record at "
								     "byte %zu]",
							       starts[i + 1]);
			}
			char *got = read_log(s->data, s->len);
			if (strcmp(got, want->str) != 0)
				fail_msg("byte %zu bit %d: got '%s', want '%s'", at, bit, got,
					 want->str);
			g_free(got);
			g_string_free(want, TRUE);
			s->data[at] ^= (uint8_t)(1u << bit);
		}
	}
	g_byte_array_unref(s);
}

/* Proves: a 2-record stream cut at every byte gives its whole records, then
 * one report that the next record is cut short (its number and first
 * byte), then the end; a cut at a record boundary is a clean end. */
static void test_truncation_everywhere(void **state)
{
	const char *recs[] = {"hello", "world!!"};
	GByteArray *s = frame_all(recs, 2);
	const size_t ends[] = {21, 44};
	assert_int_equal(s->len, 44);
	for (size_t cut = 0; cut <= s->len; cut++) {
		size_t whole = 0;
		while (whole < 2 && ends[whole] <= cut)
			whole++;
		GString *want = g_string_new("");
		for (size_t i = 0; i < whole; i++)
			g_string_append_printf(want, "%s%s", i ? " " : "", recs[i]);
		size_t start = whole == 0 ? 0 : ends[whole - 1];
		if (cut != start)
			g_string_append_printf(want, "%s[record %zu at byte %zu is cut short; cut]",
					       whole ? " " : "", whole + 1, start);
		char *got = read_log(s->data, cut);
		assert_string_equal(got, want->str);
		g_free(got);
		g_string_free(want, TRUE);
	}
	g_byte_array_unref(s);
}

/* Proves: garbage before, between and after records is passed over to the
 * next record, one report per stretch, and trailing zeros (a preallocated
 * file) end the stream with one report. */
static void test_garbage(void **state)
{
	GByteArray *s = g_byte_array_new();
	g_byte_array_append(s, (const uint8_t *)"junk at the start", 17);
	tl_tfrecord_frame(s, "one", 3);
	GRand *r = g_rand_new_with_seed(11);
	for (int i = 0; i < 100000; i++) {
		uint8_t b = (uint8_t)g_rand_int_range(r, 0, 256);
		g_byte_array_append(s, &b, 1);
	}
	g_rand_free(r);
	size_t two = s->len;
	tl_tfrecord_frame(s, "two", 3);
	uint8_t zeros[40] = {0};
	g_byte_array_append(s, zeros, sizeof zeros);
	char want[512];
	snprintf(want, sizeof want,
		 "[record 1 at byte 0: length crc mismatch: skipped to the record at byte 17] "
		 "one [record 3 at byte 36: length crc mismatch: skipped to the record at byte "
		 "%zu] two [record 5 at byte %zu: length crc mismatch: no record follows it]",
		 two, two + 19);
	assert_log(s, want);
	g_byte_array_unref(s);
}

/* Proves: a gzip stream cut at every byte gives the whole records that
 * decompress before the cut (a prefix of the stream, never a damaged
 * record), and the input says where its gzip stream was cut short; the
 * uncut file has no damage. */
static void test_gzip_cut(void **state)
{
	const char *recs[] = {"alpha", "beta", "gamma", "delta"};
	GByteArray *s = frame_all(recs, 4);
	uLongf zlen = compressBound(s->len) + 64;
	GByteArray *gz = g_byte_array_sized_new((guint)zlen);
	/* gzip framing around raw deflate, as gzip(1) writes it */
	z_stream zs = {0};
	assert_int_equal(deflateInit2(&zs, 9, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY), Z_OK);
	g_byte_array_set_size(gz, (guint)zlen);
	zs.next_in = s->data;
	zs.avail_in = s->len;
	zs.next_out = gz->data;
	zs.avail_out = (uInt)zlen;
	assert_int_equal(deflate(&zs, Z_FINISH), Z_STREAM_END);
	g_byte_array_set_size(gz, (guint)zs.total_out);
	deflateEnd(&zs);
	char *whole = NULL;
	size_t last_records = 0;
	for (size_t cut = 2; cut <= gz->len; cut++) {
		char *path = write_temp(gz->data, cut);
		tl_input *in = open_path(path);
		assert_true(tl_input_is_gzip(in));
		char *log = read_log_input(in);
		/* whole records, in order, then at most a cut-short report */
		char **words = g_strsplit(log, " ", -1);
		size_t n = 0;
		while (words[n] != NULL && words[n][0] != '[' && words[n][0] != '<') {
			assert_string_equal(words[n], recs[n]);
			n++;
		}
		assert_true(words[n] == NULL || g_str_has_prefix(words[n], "[record"));
		assert_true(n >= last_records);
		last_records = n;
		if (cut < gz->len) {
			/* the cut is the file's end; what came before it was all read */
			char want[128];
			snprintf(want, sizeof want,
				 "gzip stream cut short at compressed byte %zu, after decompressed "
				 "byte %llu",
				 cut, (unsigned long long)tl_input_offset(in));
			assert_non_null(tl_input_damage(in));
			assert_string_equal(tl_input_damage(in), want);
		} else {
			assert_null(tl_input_damage(in));
			whole = g_strdup(log);
		}
		g_strfreev(words);
		g_free(log);
		tl_input_close(in);
		g_unlink(path);
		g_free(path);
	}
	assert_string_equal(whole, "alpha beta gamma delta");
	g_free(whole);

	/* a corrupt deflate stream: what came before is read, the rest is damage */
	char *path = write_temp(gz->data, gz->len);
	gz->data[gz->len - 3] ^= 0xff; /* the length in the trailer */
	g_file_set_contents(path, (const char *)gz->data, gz->len, NULL);
	tl_input *in = open_path(path);
	char *log = read_log_input(in);
	assert_string_equal(log, "alpha beta gamma delta");
	assert_non_null(tl_input_damage(in));
	assert_true(g_str_has_prefix(tl_input_damage(in), "gzip data corrupt at compressed byte "));
	char tail[96];
	snprintf(tail, sizeof tail, ", after decompressed byte %u (incorrect length check)", s->len);
	assert_true(g_str_has_suffix(tl_input_damage(in), tail));
	g_free(log);
	tl_input_close(in);
	g_unlink(path);
	g_free(path);
	g_byte_array_unref(gz);
	g_byte_array_unref(s);
}

static GByteArray *header_claiming(uint64_t len, const char *tail)
{
	uint8_t head[12];
	for (int i = 0; i < 8; i++)
		head[i] = (uint8_t)(len >> (8 * i));
	uint32_t c = tl_tfrecord_crc32c_masked(head, 8);
	for (int i = 0; i < 4; i++)
		head[8 + i] = (uint8_t)(c >> (8 * i));
	GByteArray *s = g_byte_array_new();
	g_byte_array_append(s, head, sizeof head);
	g_byte_array_append(s, (const uint8_t *)tail, (guint)strlen(tail));
	return s;
}

/* Runs the two oversized reads; exit status 0 when both are reported as
 * they should be. Used in a child under an address-space limit. */
static int oversize_reads(void)
{
	GByteArray *over = header_claiming(TL_TFRECORD_MAX + 1, "0123456789");
	tl_tfrecord_frame(over, "after", 5);
	char *log = read_log(over->data, over->len);
	g_byte_array_unref(over);
	int bad = strcmp(log, "[record 1 at byte 0: length 2147483649 is over the limit of "
			      "2147483648 bytes: skipped to the record at byte 22] after") != 0;
	g_free(log);
	if (bad)
		return 1;
	GByteArray *at = header_claiming(TL_TFRECORD_MAX, "0123456789");
	log = read_log(at->data, at->len);
	g_byte_array_unref(at);
	bad = strcmp(log, "[record 1 at byte 0 is cut short; cut]") != 0;
	g_free(log);
	return bad ? 2 : 0;
}

#ifndef UNDER_ASAN
static size_t address_space_in_use(void)
{
	FILE *f = fopen("/proc/self/statm", "r");
	unsigned long pages = 0;
	if (f == NULL)
		return 0;
	if (fscanf(f, "%lu", &pages) != 1)
		pages = 0;
	fclose(f);
	return pages * (size_t)sysconf(_SC_PAGESIZE);
}
#endif

/* Proves: a length prefix over the 2 GiB limit is passed over as damage
 * before any allocation, and one at the limit over a short input is a
 * record cut short, without allocating the claimed size: both run in a
 * child whose address space is capped at 256 MiB over its current size
 * (where g_malloc of 2 GiB would abort). ASan reserves terabytes of shadow,
 * so there only the reports are checked. */
static void test_oversize_length(void **state)
{
#ifdef UNDER_ASAN
	assert_int_equal(oversize_reads(), 0);
#else
	size_t used = address_space_in_use();
	assert_true(used > 0);
	fflush(NULL);
	pid_t pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		struct rlimit lim = {used + (256u << 20), used + (256u << 20)};
		if (setrlimit(RLIMIT_AS, &lim) != 0)
			_exit(10);
		_exit(oversize_reads());
	}
	int status = 0;
	assert_int_equal(waitpid(pid, &status, 0), pid);
	assert_true(WIFEXITED(status));
	assert_int_equal(WEXITSTATUS(status), 0);
#endif
}

/* Proves: record numbers count from 1 for each reader, two inputs read
 * side by side keep their own, and a reader started part way into an input
 * numbers from there. */
static void test_record_numbers(void **state)
{
	const char *recs[] = {"hello", "world!!"};
	GByteArray *good = frame_all(recs, 2);
	GByteArray *bad = frame_all(recs, 2);
	bad->data[21 + 12] ^= 0x04;
	char *gpath = write_temp(good->data, good->len);
	char *bpath = write_temp(bad->data, bad->len);
	tl_input *a = open_path(gpath);
	tl_input *b = open_path(bpath);
	tl_tfrecord_reader ra, rb;
	tl_tfrecord_reader_init(&ra, a);
	tl_tfrecord_reader_init(&rb, b);
	GByteArray *rec = g_byte_array_new();
	tl_error err = {{0}};
	assert_int_equal(tl_tfrecord_next(&ra, rec, &err), 1);
	assert_int_equal(tl_tfrecord_next(&rb, rec, &err), 1);
	assert_int_equal(tl_tfrecord_next(&ra, rec, &err), 1);
	assert_int_equal(ra.number, 2);
	assert_int_equal(ra.at, 21);
	assert_int_equal(tl_tfrecord_next(&rb, rec, &err), TL_TFRECORD_DAMAGED);
	assert_string_equal(err.msg, "record 2 at byte 21: data crc mismatch");
	assert_int_equal(rb.number, 2);
	tl_input_close(a);
	tl_input_close(b);

	GByteArray *skewed = g_byte_array_new();
	g_byte_array_append(skewed, (const uint8_t *)"abc", 3);
	g_byte_array_append(skewed, bad->data, bad->len);
	char *spath = write_temp(skewed->data, skewed->len);
	tl_input *c = open_path(spath);
	uint8_t skip[3];
	assert_int_equal(tl_input_read(c, skip, 3, &err), 3);
	char *log = read_log_input(c);
	assert_string_equal(log, "hello [record 2 at byte 24: data crc mismatch: record skipped]");
	g_free(log);
	tl_input_close(c);

	g_unlink(gpath);
	g_unlink(bpath);
	g_unlink(spath);
	g_free(gpath);
	g_free(bpath);
	g_free(spath);
	g_byte_array_unref(rec);
	g_byte_array_unref(good);
	g_byte_array_unref(bad);
	g_byte_array_unref(skewed);
}

/* Proves: a stream whose first header is damaged is told from other input
 * by a whole record after it; a sound stream, a lone damaged record, text
 * and zeros are not. */
static void test_sniff_damaged(void **state)
{
	const char *recs[] = {"brain.Event:2", "a run", "another"};
	GByteArray *s = frame_all(recs, 3);
	assert_false(tl_tfrecord_sniff_damaged(s->data, 12)); /* too short to tell */
	s->data[2] ^= 0x40;
	assert_false(tl_tfrecord_sniff(s->data, s->len));
	assert_true(tl_tfrecord_sniff_damaged(s->data, s->len));
	/* the record after it must be whole in what is seen */
	assert_false(tl_tfrecord_sniff_damaged(s->data, 29 + 16 + 4));
	assert_true(tl_tfrecord_sniff_damaged(s->data, 29 + 16 + 5));
	/* its data crc must hold too */
	s->data[29 + 12] ^= 0x01;
	assert_false(tl_tfrecord_sniff_damaged(s->data, 29 + 16 + 5));
	g_byte_array_unref(s);
	GByteArray *one = frame_all(recs, 1);
	one->data[0] ^= 0x01;
	assert_false(tl_tfrecord_sniff_damaged(one->data, one->len));
	g_byte_array_unref(one);
	const char *text = "step_stats { dev_stats { device: \"/cpu:0\" } }\n";
	assert_false(tl_tfrecord_sniff_damaged((const uint8_t *)text, strlen(text)));
	uint8_t zeros[4096] = {0};
	assert_false(tl_tfrecord_sniff_damaged(zeros, sizeof zeros));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_crc32c_vectors),   cmocka_unit_test(test_crc32c_slices),
	    cmocka_unit_test(test_crc32c_soft),
	    cmocka_unit_test(test_frame_bytes),	     cmocka_unit_test(test_sniff),
	    cmocka_unit_test(test_round_trip),	     cmocka_unit_test(test_corrupt_length_crc),
	    cmocka_unit_test(test_corrupt_data_crc), cmocka_unit_test(test_flip_every_byte),
	    cmocka_unit_test(test_truncation_everywhere), cmocka_unit_test(test_garbage),
	    cmocka_unit_test(test_gzip_cut),	     cmocka_unit_test(test_oversize_length),
	    cmocka_unit_test(test_record_numbers),   cmocka_unit_test(test_sniff_damaged),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
