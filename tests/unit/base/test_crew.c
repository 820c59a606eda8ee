/* Unit tests of crew.c: a loop shared out over threads gives what one
 * thread gives (items, allocations, warnings in order). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "base/crew.h"
#include "base/warn.h"

#include <glib.h>
#include <glib/gstdio.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "testdata.h"

struct visit {
	uint32_t *seen;	 /* per item: times visited */
	size_t *part_lo; /* per part */
	size_t *part_hi;
	char **label; /* per part: a string from the part's arena */
};

static void visit_part(void *ctx, size_t part, size_t lo, size_t hi, tl_arena *arena)
{
	struct visit *v = ctx;
	v->part_lo[part] = lo;
	v->part_hi[part] = hi;
	v->label[part] = tl_arena_strdup(arena, "part");
	for (size_t i = lo; i < hi; i++) {
		v->seen[i]++;
		if (i % 1000 == 7)
			tl_warn("crew-seventh", "item %zu", i);
		if (i + 1 == 100000)
			tl_warn("crew-last", "the last item");
	}
}

/* Every item once, the parts tiling [0, n) in order, what they carved
 * still there after their threads ended; for every n tried. */
static void test_crew_items(void **state)
{
	const size_t sizes[] = {0, 1, 4095, 4096, 8192, 65537, 100000, 1000003};
	for (size_t k = 0; k < G_N_ELEMENTS(sizes); k++) {
		size_t n = sizes[k];
		size_t parts = tl_crew_parts(n);
		assert_true(parts >= 1 && parts <= 16);
		struct visit v = {.seen = g_new0(uint32_t, n + 1),
				  .part_lo = g_new0(size_t, parts),
				  .part_hi = g_new0(size_t, parts),
				  .label = g_new0(char *, parts)};
		tl_arena *arena = tl_arena_new();
		tl_crew_for(n, visit_part, &v, arena);
		for (size_t i = 0; i < n; i++)
			assert_int_equal(v.seen[i], 1);
		size_t at = 0;
		for (size_t p = 0; p < parts; p++) {
			assert_int_equal(v.part_lo[p], at);
			assert_true(v.part_hi[p] >= v.part_lo[p]);
			assert_string_equal(v.label[p], "part");
			at = v.part_hi[p];
		}
		assert_int_equal(at, n);
		tl_arena_free(arena);
		g_free(v.seen);
		g_free(v.part_lo);
		g_free(v.part_hi);
		g_free(v.label);
		tl_warn_clear();
	}
}

/* What tl_warn_flush prints, read back from a file stderr points to
 * meanwhile. */
static char *flushed(void)
{
	char *path = NULL;
	int fd = g_file_open_tmp("tl-crew-XXXXXX", &path, NULL);
	assert_true(fd >= 0);
	fflush(stderr);
	int saved = dup(STDERR_FILENO);
	dup2(fd, STDERR_FILENO);
	tl_warn_flush("t");
	fflush(stderr);
	dup2(saved, STDERR_FILENO);
	close(saved);
	close(fd);
	char *text = NULL;
	assert_true(g_file_get_contents(path, &text, NULL, NULL));
	g_unlink(path);
	g_free(path);
	return text;
}

/* Warnings met on several threads read as one thread's: each key's first
 * message is the lowest item's, counts add up, keys in the order met. */
static void test_crew_warnings(void **state)
{
	size_t n = 100000;
	size_t parts = tl_crew_parts(n);
	assert_true(parts > 1);
	struct visit v = {.seen = g_new0(uint32_t, n),
			  .part_lo = g_new0(size_t, parts),
			  .part_hi = g_new0(size_t, parts),
			  .label = g_new0(char *, parts)};
	tl_arena *arena = tl_arena_new();
	tl_warn("crew-before", "before the loop");
	tl_crew_for(n, visit_part, &v, arena);
	tl_warn("crew-seventh", "after the loop");
	assert_int_equal(tl_warn_count("crew-seventh"), n / 1000 + 1);
	assert_int_equal(tl_warn_count("crew-last"), 1);
	char *text = flushed();
	assert_string_equal(text, "t: warning: before the loop\n"
				  "t: warning: item 7 (101 times)\n"
				  "t: warning: the last item\n");
	g_free(text);
	tl_arena_free(arena);
	g_free(v.seen);
	g_free(v.part_lo);
	g_free(v.part_hi);
	g_free(v.label);
}

/* A log opened and told with nothing in it changes nothing; warnings of
 * a thread with no open log go straight to the registry. */
static void test_warn_log(void **state)
{
	tl_warn_log *log = tl_warn_log_begin();
	tl_warn("log-a", "a in the log");
	tl_warn("log-a", "a again");
	assert_int_equal(tl_warn_count("log-a"), 0);
	tl_warn_log_end();
	tl_warn("log-b", "b outside");
	assert_int_equal(tl_warn_count("log-b"), 1);
	tl_warn_log_tell(log);
	assert_int_equal(tl_warn_count("log-a"), 2);
	tl_warn_log_tell(tl_warn_log_begin());
	tl_warn_log_end();
	char *text = flushed();
	assert_string_equal(text, "t: warning: b outside\nt: warning: a in the log (2 times)\n");
	g_free(text);
}

/* Logs nest: an inner log told goes into the log open around it (counts
 * added, first messages kept, the inner's new keys after the outer's), a
 * dropped one says nothing, and the outer log takes warnings again once
 * the inner ends. */
static void test_warn_log_nested(void **state)
{
	tl_warn_log *outer = tl_warn_log_begin();
	tl_warn("nest-a", "a outer");
	tl_warn_log *inner = tl_warn_log_begin();
	tl_warn("nest-a", "a inner");
	tl_warn("nest-b", "b inner");
	tl_warn_log_end();
	tl_warn_log_tell(inner);
	tl_warn_log *dropped = tl_warn_log_begin();
	tl_warn("nest-c", "c dropped");
	tl_warn_log_end();
	tl_warn_log_drop(dropped);
	tl_warn("nest-d", "d outer");
	assert_int_equal(tl_warn_count("nest-a"), 0);
	tl_warn_log_end();
	tl_warn_log_tell(outer);
	assert_int_equal(tl_warn_count("nest-a"), 2);
	assert_int_equal(tl_warn_count("nest-b"), 1);
	assert_int_equal(tl_warn_count("nest-c"), 0);
	char *text = flushed();
	assert_string_equal(text, "t: warning: a outer (2 times)\nt: warning: b inner\n"
				  "t: warning: d outer\n");
	g_free(text);
}

/* tl_warn_about counts a subject once under its key, whether it comes
 * again straight to the registry, in one log, or in two logs told one
 * after the other or one inside the other; another subject counts. */
static void test_warn_about(void **state)
{
	tl_warn_about("about", "a", "about %s", "a");
	tl_warn_about("about", "a", "about %s", "a");
	tl_warn_about("about", "b", "about %s", "b");
	assert_int_equal(tl_warn_count("about"), 2);
	tl_warn_log *one = tl_warn_log_begin();
	tl_warn_about("about", "a", "about %s", "a");
	tl_warn_about("about", "c", "about %s", "c");
	tl_warn_about("about", "c", "about %s", "c");
	tl_warn_log_end();
	tl_warn_log *two = tl_warn_log_begin();
	tl_warn_about("about", "c", "about %s", "c");
	tl_warn_log *inner = tl_warn_log_begin();
	tl_warn_about("about", "c", "about %s", "c");
	tl_warn_about("about", "d", "about %s", "d");
	tl_warn_log_end();
	tl_warn_log_tell(inner);
	tl_warn_log_end();
	assert_int_equal(tl_warn_count("about"), 2);
	tl_warn_log_tell(one);
	assert_int_equal(tl_warn_count("about"), 3);
	tl_warn_log_tell(two);
	assert_int_equal(tl_warn_count("about"), 4);
	tl_warn_log *only_seen = tl_warn_log_begin();
	tl_warn_about("again", "x", "again");
	tl_warn_about("about", "a", "about %s", "a");
	tl_warn_log_end();
	tl_warn_log_tell(only_seen);
	tl_warn("plain", "plain");
	tl_warn("plain", "plain");
	char *text = flushed();
	assert_string_equal(text, "t: warning: about a (4 times)\nt: warning: again\n"
				  "t: warning: plain (2 times)\n");
	g_free(text);
	tl_warn_about("about", "a", "about %s", "a");
	assert_int_equal(tl_warn_count("about"), 1);
	tl_warn_clear();
}

int main(void)
{
	td_filter();
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_crew_items), cmocka_unit_test(test_crew_warnings),
	    cmocka_unit_test(test_warn_log),   cmocka_unit_test(test_warn_log_nested),
	    cmocka_unit_test(test_warn_about),
	};
	return cmocka_run_group_tests_name("crew", tests, NULL, NULL);
}
