/* Unit tests for xspace.c: an XSpace opened without its allocator events
 * (tl_xspace_open's `allocs` false) gives the runs it gives with them,
 * counts them (tl_xspace_has_allocs), and keeps an event of allocator
 * metadata that a step_name stat renamed into an op (the line's slots were
 * counted without it: the XSpace is read again, keeping them). */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include "io/pbwire.h"
#include "io/xspace.h"

#include <glib.h>
#include <string.h>

/* An XEventMetadata or XStatMetadata map entry: id -> name. */
static void put_meta(GByteArray *b, uint32_t field, uint64_t id, const char *name)
{
	size_t entry = tl_pbwire_begin_len(b, field);
	tl_pbwire_put_tag(b, 1, 0);
	tl_pbwire_put_varint(b, id);
	size_t value = tl_pbwire_begin_len(b, 2);
	tl_pbwire_put_tag(b, 1, 0);
	tl_pbwire_put_varint(b, id);
	tl_pbwire_put_bytes(b, 2, name, strlen(name));
	tl_pbwire_end_len(b, value);
	tl_pbwire_end_len(b, entry);
}

/* An XEvent: metadata, offset and duration in ps, and a string stat
 * (metadata 1) when `step` is not NULL. */
static void put_event(GByteArray *b, uint64_t md, uint64_t off_ps, uint64_t dur_ps,
		      const char *step)
{
	size_t ev = tl_pbwire_begin_len(b, 4);
	tl_pbwire_put_tag(b, 1, 0);
	tl_pbwire_put_varint(b, md);
	tl_pbwire_put_tag(b, 2, 0);
	tl_pbwire_put_varint(b, off_ps);
	tl_pbwire_put_tag(b, 3, 0);
	tl_pbwire_put_varint(b, dur_ps);
	if (step != NULL) {
		size_t st = tl_pbwire_begin_len(b, 4);
		tl_pbwire_put_tag(b, 1, 0);
		tl_pbwire_put_varint(b, 1);
		tl_pbwire_put_bytes(b, 5, step, strlen(step));
		tl_pbwire_end_len(b, st);
	}
	tl_pbwire_end_len(b, ev);
}

/* One host plane, one thread: an op, inside it an allocation renamed by a
 * step_name (`renamed`), an allocation and a deallocation. */
static GByteArray *space(bool renamed)
{
	GByteArray *b = g_byte_array_new();
	size_t plane = tl_pbwire_begin_len(b, 1);
	tl_pbwire_put_bytes(b, 2, "/host:CPU", 9);
	size_t line = tl_pbwire_begin_len(b, 3);
	tl_pbwire_put_tag(b, 1, 0);
	tl_pbwire_put_varint(b, 5);
	tl_pbwire_put_bytes(b, 2, "tf_Compute", 10);
	tl_pbwire_put_tag(b, 3, 0);
	tl_pbwire_put_varint(b, 1000000);
	put_event(b, 2, 0, 10000000, NULL);
	put_event(b, 1, 2000000, 1000000, renamed ? "renamed/X:Identity" : NULL);
	put_event(b, 1, 3000000, 0, NULL);
	put_event(b, 3, 4000000, 0, NULL);
	tl_pbwire_end_len(b, line);
	put_meta(b, 4, 1, "MemoryAllocation");
	put_meta(b, 4, 2, "dense/MatMul:MatMul");
	put_meta(b, 4, 3, "MemoryDeallocation");
	put_meta(b, 5, 1, "step_name");
	tl_pbwire_end_len(b, plane);
	return b;
}

/* The node names of run 0, joined by spaces, and whether allocator
 * events were met. */
static char *run_names(GByteArray *b, bool allocs, bool *has_allocs)
{
	tl_arena *arena = tl_arena_new();
	tl_xspace *xs = NULL;
	tl_error err = {{0}};
	assert_int_equal(tl_xspace_open(&xs, b->data, b->len, allocs, arena, "t", &err), 0);
	*has_allocs = tl_xspace_has_allocs(xs);
	assert_int_equal(tl_xspace_n_runs(xs), 1);
	tl_arena *run = tl_arena_new();
	Tensorflow__RunMetadata *meta = NULL;
	const char *label = NULL;
	tl_links links;
	assert_int_equal(tl_xspace_run(xs, 0, "t", run, &meta, &label, &links, &err), 0);
	GString *s = g_string_new("");
	for (size_t d = 0; d < meta->step_stats->n_dev_stats; d++) {
		const Tensorflow__DeviceStepStats *ds = meta->step_stats->dev_stats[d];
		for (size_t i = 0; i < ds->n_node_stats; i++)
			g_string_append_printf(s, "%s%s", s->len ? " " : "",
					       ds->node_stats[i]->node_name);
	}
	tl_arena_free(run);
	tl_xspace_free(xs);
	tl_arena_free(arena);
	return g_string_free(s, FALSE);
}

static void test_allocs_not_kept(void **state)
{
	(void)state;
	for (int renamed = 0; renamed < 2; renamed++) {
		GByteArray *b = space(renamed);
		bool with, without;
		char *kept = run_names(b, true, &with);
		char *skipped = run_names(b, false, &without);
		assert_string_equal(kept, skipped);
		assert_string_equal(kept, renamed ? "dense/MatMul renamed/X" : "dense/MatMul");
		assert_true(with);
		assert_true(without);
		g_free(kept);
		g_free(skipped);
		g_byte_array_free(b, TRUE);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_allocs_not_kept),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
