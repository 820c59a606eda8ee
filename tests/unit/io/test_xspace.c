/* Unit tests for the XSpace reader (io/xspace*.c): an XSpace opened without
 * its allocator events (tl_xspace_open's `allocs` false) gives the runs it
 * gives with them, counts them (tl_xspace_has_allocs), and keeps an event
 * of allocator metadata that a step_name stat renamed into an op (the
 * line's slots were counted without it: the XSpace is read again, keeping
 * them). Then the allocator events themselves (xspace_memory.c), from an
 * XSpace encoded here field by field as xplane.proto numbers them and as
 * TensorFlow's allocator TraceMe writes them (the stats named in
 * tensorflow/core/profiler/convert/xplane_to_memory_profile.cc):
 * allocation_bytes the block, bytes_allocated the allocator's bytes in use
 * after it, bytes_reserved, peak_bytes_in_use, addr, allocator_name,
 * tf_op; an event without tf_op takes the TF op around it. */
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

/* A stat of an event: metadata id, and an int (uint64_value, field 3) or a
 * string (str_value, field 5). */
static void put_int_stat(GByteArray *b, uint64_t md, uint64_t v)
{
	size_t st = tl_pbwire_begin_len(b, 4);
	tl_pbwire_put_tag(b, 1, 0);
	tl_pbwire_put_varint(b, md);
	tl_pbwire_put_tag(b, 3, 0);
	tl_pbwire_put_varint(b, v);
	tl_pbwire_end_len(b, st);
}

static void put_str_stat(GByteArray *b, uint64_t md, const char *v)
{
	size_t st = tl_pbwire_begin_len(b, 4);
	tl_pbwire_put_tag(b, 1, 0);
	tl_pbwire_put_varint(b, md);
	tl_pbwire_put_bytes(b, 5, v, strlen(v));
	tl_pbwire_end_len(b, st);
}

enum { M_ALLOC = 1, M_FREE, M_OP };
enum { S_ALLOCATOR = 1, S_BLOCK, S_IN_USE, S_RESERVED, S_PEAK, S_ADDR, S_TF_OP };

/* An allocator event at `off_ps` from the line's start (duration 0). */
static size_t begin_mem_event(GByteArray *b, uint64_t md, uint64_t off_ps)
{
	size_t ev = tl_pbwire_begin_len(b, 4);
	tl_pbwire_put_tag(b, 1, 0);
	tl_pbwire_put_varint(b, md);
	tl_pbwire_put_tag(b, 2, 0);
	tl_pbwire_put_varint(b, off_ps);
	return ev;
}

/* A host thread from 5 ms (timestamp_ns 5000000): an op "dense/MatMul:MatMul"
 * from 0 to 10 us; inside it, at 2 us, 1024 bytes at 0x7f00 allocated on
 * GPU_0_bfc (in use after: 4096, reserved 8192, peak 6000), no tf_op stat;
 * at 20 us, outside any op, 512 bytes at 0x8000 on "cpu" with tf_op
 * "loss/Sum:Sum" (in use 4608); at 30 us the first block freed (in use
 * 3584). */
static GByteArray *memory_space(void)
{
	GByteArray *b = g_byte_array_new();
	size_t plane = tl_pbwire_begin_len(b, 1);
	tl_pbwire_put_bytes(b, 2, "/host:CPU", 9);
	size_t line = tl_pbwire_begin_len(b, 3);
	tl_pbwire_put_tag(b, 1, 0);
	tl_pbwire_put_varint(b, 7);
	tl_pbwire_put_bytes(b, 2, "tf_Compute", 10);
	tl_pbwire_put_tag(b, 3, 0);
	tl_pbwire_put_varint(b, 5000000);
	put_event(b, M_OP, 0, 10000000, NULL);
	size_t ev = begin_mem_event(b, M_ALLOC, 2000000);
	put_str_stat(b, S_ALLOCATOR, "GPU_0_bfc");
	put_int_stat(b, S_BLOCK, 1024);
	put_int_stat(b, S_IN_USE, 4096);
	put_int_stat(b, S_RESERVED, 8192);
	put_int_stat(b, S_PEAK, 6000);
	put_int_stat(b, S_ADDR, 0x7f00);
	tl_pbwire_end_len(b, ev);
	ev = begin_mem_event(b, M_ALLOC, 20000000);
	put_str_stat(b, S_ALLOCATOR, "cpu");
	put_int_stat(b, S_BLOCK, 512);
	put_int_stat(b, S_IN_USE, 4608);
	put_int_stat(b, S_ADDR, 0x8000);
	put_str_stat(b, S_TF_OP, "loss/Sum:Sum");
	tl_pbwire_end_len(b, ev);
	ev = begin_mem_event(b, M_FREE, 30000000);
	put_str_stat(b, S_ALLOCATOR, "GPU_0_bfc");
	put_int_stat(b, S_BLOCK, 1024);
	put_int_stat(b, S_IN_USE, 3584);
	put_int_stat(b, S_ADDR, 0x7f00);
	tl_pbwire_end_len(b, ev);
	tl_pbwire_end_len(b, line);
	put_meta(b, 4, M_ALLOC, "MemoryAllocation");
	put_meta(b, 4, M_FREE, "MemoryDeallocation");
	put_meta(b, 4, M_OP, "dense/MatMul:MatMul");
	put_meta(b, 5, S_ALLOCATOR, "allocator_name");
	put_meta(b, 5, S_BLOCK, "allocation_bytes");
	put_meta(b, 5, S_IN_USE, "bytes_allocated");
	put_meta(b, 5, S_RESERVED, "bytes_reserved");
	put_meta(b, 5, S_PEAK, "peak_bytes_in_use");
	put_meta(b, 5, S_ADDR, "addr");
	put_meta(b, 5, S_TF_OP, "tf_op");
	tl_pbwire_end_len(b, plane);
	return b;
}

static void test_alloc_events(void **state)
{
	(void)state;
	GByteArray *b = memory_space();
	tl_arena *arena = tl_arena_new();
	tl_alloc_events out = {0};
	tl_error err = {{0}};
	assert_int_equal(tl_xspace_alloc_events(b->data, b->len, arena, &out, &err), 0);
	assert_int_equal(out.n, 3);
	const tl_alloc_event *e = out.ev;
	/* times: the line's 5 ms plus the event's offset */
	assert_int_equal(e[0].t_ns, 5002000);
	assert_string_equal(e[0].allocator, "GPU_0_bfc");
	assert_string_equal(e[0].device, "/device:GPU:0");
	assert_int_equal(e[0].addr, 0x7f00);
	assert_int_equal(e[0].bytes, 1024);
	assert_int_equal(e[0].total_allocated, 4096);
	assert_int_equal(e[0].total_reserved, 8192);
	assert_int_equal(e[0].peak, 6000);
	assert_string_equal(e[0].op, "dense/MatMul:MatMul");

	assert_int_equal(e[1].t_ns, 5020000);
	assert_string_equal(e[1].allocator, "cpu");
	assert_string_equal(e[1].device, "/host:CPU");
	assert_int_equal(e[1].bytes, 512);
	assert_int_equal(e[1].total_allocated, 4608);
	assert_int_equal(e[1].total_reserved, -1); /* not recorded */
	assert_int_equal(e[1].peak, -1);
	assert_string_equal(e[1].op, "loss/Sum:Sum");

	assert_int_equal(e[2].t_ns, 5030000);
	assert_int_equal(e[2].bytes, -1024);
	assert_int_equal(e[2].addr, 0x7f00);
	assert_int_equal(e[2].total_allocated, 3584);
	assert_null(e[2].op);
	tl_arena_free(arena);
	g_byte_array_free(b, TRUE);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_allocs_not_kept),
	    cmocka_unit_test(test_alloc_events),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
