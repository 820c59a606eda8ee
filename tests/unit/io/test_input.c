/* Unit tests of input.c: tl_input_read_all, read or mapped, gives the
 * file's bytes, writable, a NUL after them. */
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
 * want[skip..n), the NUL after them, that they are writable and that
 * writing them leaves the file as it was; returns whether the file was
 * mapped while the bytes were held, and that it is no more once their
 * arena is freed. */
static bool read_whole(const char *path, const uint8_t *want, size_t n, size_t skip)
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
	bool was_mapped = mapped(path);
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
	assert_false(mapped(path));
	return was_mapped;
}

/* A plain file of 2 MiB or more is mapped (no fresh pages zeroed by the
 * kernel first); its size a multiple of the page or not, the NUL after it
 * is there. Smaller files, and files already partly read, are read. */
static void test_plain_sizes(void **state)
{
	(void)state;
	static const struct {
		size_t n, skip;
		bool mapped;
	} cases[] = {
	    {(2u << 20) - 1, 0, false}, {2u << 20, 0, true},	  {(2u << 20) + 7, 0, true},
	    {(3u << 20) + 4096, 0, true}, {(2u << 20) + 7, 10, false}, {100, 0, false},
	};
	for (size_t k = 0; k < G_N_ELEMENTS(cases); k++) {
		uint8_t *want = pattern(cases[k].n);
		char name[64];
		g_snprintf(name, sizeof name, "plain-%zu-%zu.bin", cases[k].n, cases[k].skip);
		char *path = write_file(name, want, cases[k].n);
		assert_int_equal(read_whole(path, want, cases[k].n, cases[k].skip),
				 cases[k].mapped);
		g_free(path);
		g_free(want);
	}
}

/* Standard input that is a file already read part way starts where it
 * stands: not mapped from the file's start. */
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
	tl_arena *arena = tl_arena_new();
	uint8_t *data = NULL;
	size_t len = 0;
	assert_int_equal(tl_input_read_all(in, arena, &data, &len, &err), 0);
	assert_int_equal(len, n - skip);
	assert_memory_equal(data, want + skip, len);
	assert_int_equal(data[len], 0);
	tl_input_close(in);
	tl_arena_free(arena);
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

/* A mapping an arena owns moves with its blocks into the arena that adopts
 * it, and is unmapped when that one is freed. */
static void test_adopted_map(void **state)
{
	(void)state;
	size_t n = 2u << 20;
	uint8_t *want = pattern(n);
	char *path = write_file("adopted.bin", want, n);
	tl_input *in = NULL;
	tl_error err = {{0}};
	assert_int_equal(tl_input_open(&in, path, &err), 0);
	tl_arena *part = tl_arena_new(), *whole = tl_arena_new();
	uint8_t *data = NULL;
	size_t len = 0;
	assert_int_equal(tl_input_read_all(in, part, &data, &len, &err), 0);
	tl_input_close(in);
	assert_true(mapped(path));
	tl_arena_adopt(whole, part);
	assert_true(mapped(path));
	assert_memory_equal(data, want, n);
	tl_arena_free(whole);
	assert_false(mapped(path));
	g_free(path);
	g_free(want);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_plain_sizes),
	    cmocka_unit_test(test_stdin_part_read),
	    cmocka_unit_test(test_gzip_not_mapped),
	    cmocka_unit_test(test_adopted_map),
	};
	return cmocka_run_group_tests_name("input", tests, tmpdir_setup, tmpdir_teardown);
}
