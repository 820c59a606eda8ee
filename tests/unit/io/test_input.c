/* Unit tests of input.c: tl_input_read_all gives the bytes left, writable,
 * a NUL after them; tl_input_map maps a plain file read from its start,
 * and reads the rest of anything else. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "io/input.h"

#include <fcntl.h>
#include <glib.h>
#include <string.h>
#include <unistd.h>
#include <zlib.h>

#include "tmpdir.h"

/* The bytes of a test file: a pattern no page repeats exactly. */
static uint8_t *pattern(size_t n)
{
	uint8_t *b = g_malloc(n);
	for (size_t i = 0; i < n; i++)
		b[i] = (uint8_t)((i * 131u + i / 4099u) & 0xff);
	return b;
}

static char *write_file(const char *name, const uint8_t *data, size_t len)
{
	char *path = g_build_filename(tmpdir, name, NULL);
	assert_true(g_file_set_contents(path, (const char *)data, (gssize)len, NULL));
	return path;
}

/* Whether /proc/self/maps lists `path` (a file mapped into memory). */
static bool mapped(const char *path)
{
	char *maps = NULL;
	assert_true(g_file_get_contents("/proc/self/maps", &maps, NULL, NULL));
	bool yes = strstr(maps, path) != NULL;
	g_free(maps);
	return yes;
}

/* Reads `path` whole after skipping `skip` bytes; checks the bytes against
 * want[skip..n), the NUL after them, that they are writable and outlive
 * the input, and that writing them leaves the file as it was. */
static void read_whole(const char *path, const uint8_t *want, size_t n, size_t skip)
{
	tl_input *in = NULL;
	tl_error err = {{0}};
	assert_int_equal(tl_input_open(&in, path, &err), 0);
	const uint8_t *head = NULL;
	assert_true(tl_input_peek(in, &head, 16, &err) == 16); /* a sniff reads nothing */
	if (skip > 0) {
		uint8_t *first = g_malloc(skip);
		assert_int_equal(tl_input_read(in, first, skip, &err), (long long)skip);
		assert_memory_equal(first, want, skip);
		g_free(first);
	}
	tl_arena *arena = tl_arena_new();
	uint8_t *data = NULL;
	size_t len = 0;
	assert_int_equal(tl_input_read_all(in, arena, &data, &len, &err), 0);
	assert_int_equal(len, n - skip);
	assert_memory_equal(data, want + skip, len);
	assert_int_equal(data[len], 0);
	assert_int_equal(tl_input_offset(in), n);
	uint8_t more;
	assert_int_equal(tl_input_read(in, &more, 1, &err), 0);
	tl_input_close(in);
	/* the bytes are the arena's: they outlive the input */
	data[0] ^= 0xff;
	data[len - 1] ^= 0xff;
	data[len] = 'x';
	assert_int_equal(data[1], want[skip + 1]);
	/* a decoder writes in the bytes; the file stays as it was */
	gchar *disk = NULL;
	gsize disk_len = 0;
	assert_true(g_file_get_contents(path, &disk, &disk_len, NULL));
	assert_int_equal(disk_len, n);
	assert_memory_equal(disk, want, n);
	g_free(disk);
	tl_arena_free(arena);
}

/* Files of every size about a page and the arena's huge block, whole or
 * after a first read. */
static void test_read_all(void **state)
{
	(void)state;
	static const struct {
		size_t n, skip;
	} cases[] = {
	    {(2u << 20) - 1, 0},  {2u << 20, 0}, {(2u << 20) + 7, 0}, {(3u << 20) + 4096, 0},
	    {(2u << 20) + 7, 10}, {100, 0},	 {4096, 0},
	};
	for (size_t k = 0; k < G_N_ELEMENTS(cases); k++) {
		uint8_t *want = pattern(cases[k].n);
		char name[64];
		g_snprintf(name, sizeof name, "plain-%zu-%zu.bin", cases[k].n, cases[k].skip);
		char *path = write_file(name, want, cases[k].n);
		read_whole(path, want, cases[k].n, cases[k].skip);
		g_free(path);
		g_free(want);
	}
}

/* A plain file not read yet is mapped (/proc/self/maps names it) until the
 * input is closed; one read part way is read, from where it stands. */
static void test_map(void **state)
{
	(void)state;
	size_t n = (1u << 20) + 5, skip = 3;
	uint8_t *want = pattern(n);
	char *path = write_file("map.bin", want, n);
	for (int part = 0; part < 2; part++) {
		tl_input *in = NULL;
		tl_error err = {{0}};
		assert_int_equal(tl_input_open(&in, path, &err), 0);
		size_t at = 0;
		if (part) {
			uint8_t first[3];
			assert_int_equal(tl_input_read(in, first, skip, &err), (long long)skip);
			at = skip;
		}
		assert_int_equal(tl_input_can_map(in), !part);
		const uint8_t *data = NULL;
		size_t len = 0;
		assert_int_equal(tl_input_map(in, &data, &len, &err), 0);
		assert_int_equal(len, n - at);
		assert_memory_equal(data, want + at, len);
		assert_int_equal(mapped(path), !part);
		tl_input_close(in);
		assert_false(mapped(path));
	}
	g_free(path);
	g_free(want);
}

/* Standard input that is a file already read part way starts where it
 * stands: it is not mapped from the file's start (it was: an XSpace or a
 * Chrome trace on such an input was read whole). */
static void test_stdin_part_read(void **state)
{
	(void)state;
	size_t n = (2u << 20) + 100, skip = 4096 + 3;
	uint8_t *want = pattern(n);
	char *path = write_file("stdin.bin", want, n);
	int fd = open(path, O_RDONLY);
	assert_true(fd >= 0);
	assert_int_equal(lseek(fd, (off_t)skip, SEEK_SET), (off_t)skip);
	int saved = dup(STDIN_FILENO);
	assert_true(saved >= 0);
	assert_int_equal(dup2(fd, STDIN_FILENO), STDIN_FILENO);
	close(fd);
	tl_input *in = NULL;
	tl_error err = {{0}};
	assert_int_equal(tl_input_open(&in, "-", &err), 0);
	dup2(saved, STDIN_FILENO);
	close(saved);
	assert_false(tl_input_can_map(in));
	const uint8_t *data = NULL;
	size_t len = 0;
	assert_int_equal(tl_input_map(in, &data, &len, &err), 0);
	assert_int_equal(len, n - skip);
	assert_memory_equal(data, want + skip, len);
	tl_input_close(in);
	g_free(path);
	g_free(want);
}

/* A gzip file is decompressed as ever, never mapped. */
static void test_gzip_not_mapped(void **state)
{
	(void)state;
	size_t n = (3u << 20) + 5;
	uint8_t *want = pattern(n);
	char *path = g_build_filename(tmpdir, "big.bin.gz", NULL);
	gzFile gz = gzopen(path, "wb1");
	assert_non_null(gz);
	assert_int_equal(gzwrite(gz, want, (unsigned)n), (int)n);
	gzclose(gz);
	tl_input *in = NULL;
	tl_error err = {{0}};
	assert_int_equal(tl_input_open(&in, path, &err), 0);
	tl_arena *arena = tl_arena_new();
	uint8_t *data = NULL;
	size_t len = 0;
	assert_int_equal(tl_input_read_all(in, arena, &data, &len, &err), 0);
	assert_int_equal(len, n);
	assert_memory_equal(data, want, n);
	assert_int_equal(data[len], 0);
	assert_false(mapped(path));
	tl_input_close(in);
	tl_arena_free(arena);
	g_free(path);
	g_free(want);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_read_all),
	    cmocka_unit_test(test_map),
	    cmocka_unit_test(test_stdin_part_read),
	    cmocka_unit_test(test_gzip_not_mapped),
	};
	return cmocka_run_group_tests_name("input", tests, tmpdir_setup, tmpdir_teardown);
}
