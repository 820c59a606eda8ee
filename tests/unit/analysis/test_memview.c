/* Unit tests of analysis/memview.c: the one allocator view, built from a
 * RunMetadata run and from allocator events written here, each checked
 * against numbers worked out by hand from the lifetime rules
 * (analysis/memory.h, analysis/allocs.h): curve, band, peak and its range,
 * live set, blocks and where each was allocated and freed, in ns. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "analysis/memview.h"
#include "base/warn.h"

#include <glib.h>
#include <string.h>

#include "runtext.h"
#include "testdata.h"

/* a (Const, 110..120) makes 1 KB that b reads; b (Neg, 130..140) makes
 * 256 B that c reads; c (Neg, 150..160) makes nothing. No allocation
 * records: each buffer is born at its producer's start and dies at its
 * last consumer's end. */
static const char chain[] =
    STEP(DEV(CPU, SOURCE(100) EXEC("a", 110, 10) OUT(0, "cpu", 1024, 1) END EXEC("b", 130, 10)
			  OUT(0, "cpu", 256, 2) END EXEC("c", 150, 10) END))
	GRAPH(NODE("a", "Const", CPU, "") NODE("b", "Neg", CPU, IN("a"))
		  NODE("c", "Neg", CPU, IN("b")));

static void test_from_memory(void **state)
{
	tl_run *run = td_run_of_text(chain, "chain");
	tl_memory *mem = tl_memory_build(run);
	tl_memview *v = tl_memview_from_memory(mem);
	assert_int_equal(v->source, TL_MEMVIEW_BUFFERS);
	assert_string_equal(v->label, "chain");
	assert_int_equal(v->start_ns, 100000);
	assert_int_equal(v->origin_ns, 100000);
	assert_int_equal(v->n_allocators, 1);
	const tl_memview_allocator *a = &v->allocators[0];
	assert_string_equal(a->name, "cpu");
	assert_string_equal(a->device, CPU);
	/* 0 from the start; +1024 at 110; +256 at 130; -1024 at 140; -256 at 160 */
	static const int64_t want[][2] = {
	    {100000, 0}, {110000, 1024}, {130000, 1280}, {140000, 256}, {160000, 0}};
	assert_int_equal(a->n_curve, G_N_ELEMENTS(want));
	assert_int_equal(a->n_band, a->n_curve);
	for (size_t k = 0; k < a->n_curve; k++) {
		tl_memview_point p = tl_memview_curve(v, a, k);
		assert_int_equal(p.t_ns, want[k][0]);
		assert_int_equal(p.bytes, want[k][1]);
		assert_int_equal(p.requested, want[k][1]);
		assert_int_equal(p.reserved, -1);
		/* no band from the analysis yet: zero width, the curve */
		tl_memview_band_point b = tl_memview_band(v, a, k);
		assert_int_equal(b.t_ns, want[k][0]);
		assert_int_equal(b.low, want[k][1]);
		assert_int_equal(b.high, want[k][1]);
	}
	assert_false(tl_memview_band_wide(v, a));
	assert_int_equal(a->peak_bytes, 1280);
	assert_int_equal(a->peak_ns, 130000);
	assert_string_equal(a->peak_op, "b");
	assert_int_equal(a->peak_low, 1280);
	assert_int_equal(a->peak_high, 1280);
	assert_int_equal(a->n_unattributed, 0);
	assert_int_equal(a->baseline_bytes, 0);
	assert_int_equal(a->n_blocks, 2);
	/* live at the peak, largest first: a:0 then b:0 */
	assert_int_equal(a->n_live, 2);
	tl_memview_block b;
	tl_memview_block_get(v, a->live[0], &b);
	assert_string_equal(b.name, "a:0");
	assert_string_equal(b.kind, "output");
	assert_string_equal(b.op, "a");
	assert_string_equal(b.op_type, "Const");
	assert_string_equal(b.free_op, "b");
	assert_int_equal(b.bytes, 1024);
	assert_int_equal(b.alloc_ns, 110000);
	assert_int_equal(b.free_ns, 140000);
	assert_non_null(b.buffer);
	assert_null(b.event);
	tl_memview_block_get(v, a->live[1], &b);
	assert_string_equal(b.name, "b:0");
	assert_string_equal(b.free_op, "c");
	assert_int_equal(b.alloc_ns, 130000);
	assert_int_equal(b.free_ns, 160000);
	tl_memview_free(v);
	tl_memory_free(mem);
	tl_run_free(run);
	tl_warn_clear();
}

static void test_from_allocs(void **state)
{
	/* 0x30 (30 B) was allocated before the trace; the totals say so: the
	 * first is 130 after a 100 B allocation */
	tl_alloc_event e[] = {
	    {1000, "/device:GPU:0", "cuda:0", 0x10, 100, 130, 512, -1, "x", NULL, 0},
	    {2000, "/device:GPU:0", "cuda:0", 0x20, 50, 180, 512, -1, "y", NULL, 0},
	    {3000, "/device:GPU:0", "cuda:0", 0x10, -100, 50, 512, -1, "z", NULL, 0},
	    {2500, "/device:GPU:0", "cuda:0", 0x30, -30, 150, 1024, -1, "w", NULL, 0},
	};
	tl_alloc_events in = {.ev = e, .n = G_N_ELEMENTS(e), .clock = "trace start"};
	tl_allocs *al = tl_allocs_build(&in, "events");
	tl_memview *v = tl_memview_from_allocs(al);
	assert_int_equal(v->source, TL_MEMVIEW_EVENTS);
	assert_string_equal(v->clock, "trace start");
	assert_int_equal(v->start_ns, 1000);
	assert_int_equal(v->end_ns, 3000);
	assert_int_equal(v->origin_ns, 0);
	assert_int_equal(v->n_allocators, 1);
	const tl_memview_allocator *a = &v->allocators[0];
	assert_string_equal(a->name, "cuda:0");
	assert_string_equal(a->device, "/device:GPU:0");
	static const int64_t want[][3] = {
	    {1000, 130, 512}, {2000, 180, 512}, {2500, 150, 1024}, {3000, 50, 512}};
	assert_int_equal(a->n_curve, G_N_ELEMENTS(want));
	for (size_t k = 0; k < a->n_curve; k++) {
		tl_memview_point p = tl_memview_curve(v, a, k);
		assert_int_equal(p.t_ns, want[k][0]);
		assert_int_equal(p.bytes, want[k][1]);
		assert_int_equal(p.requested, -1);
		assert_int_equal(p.reserved, want[k][2]);
		tl_memview_band_point b = tl_memview_band(v, a, k);
		assert_int_equal(b.low, want[k][1]);
		assert_int_equal(b.high, want[k][1]);
	}
	assert_int_equal(a->baseline_bytes, 30);
	assert_int_equal(a->peak_bytes, 180);
	assert_int_equal(a->peak_ns, 2000);
	assert_string_equal(a->peak_op, "y");
	assert_true(a->peak_from_totals);
	assert_int_equal(a->peak_low, 180);
	assert_int_equal(a->peak_high, 180);
	assert_int_equal(a->peak_reserved, 1024);
	assert_int_equal(a->n_before, 1);
	assert_int_equal(a->n_never_freed, 1);
	assert_int_equal(a->live_bytes, 180);
	assert_int_equal(a->unheld_bytes, 0);
	assert_int_equal(a->n_blocks, 3);
	assert_int_equal(a->n_live, 3);
	tl_memview_block b;
	tl_memview_block_get(v, a->live[0], &b);
	assert_int_equal(b.addr, 0x10);
	assert_string_equal(b.name, "x");
	assert_string_equal(b.kind, "block");
	assert_string_equal(b.free_op, "z");
	assert_int_equal(b.alloc_ns, 1000);
	assert_int_equal(b.free_ns, 3000);
	assert_int_equal(b.requested, -1);
	assert_non_null(b.event);
	assert_null(b.buffer);
	tl_memview_block_get(v, a->live[1], &b);
	assert_int_equal(b.addr, 0x20);
	assert_int_equal(b.free_ns, TL_MEMVIEW_NEVER);
	assert_null(b.free_op);
	tl_memview_block_get(v, a->live[2], &b);
	assert_int_equal(b.addr, 0x30);
	assert_int_equal(b.alloc_ns, TL_MEMVIEW_BEFORE);
	assert_string_equal(b.name, "before the trace");
	assert_string_equal(b.free_op, "w");
	tl_memview_free(v);
	tl_allocs_free(al);
	tl_warn_clear();
}

/* Microseconds of view times: whole ones exact beyond 2^53 ns, where
 * ns / 1000.0 rounds. */
static void test_us(void **state)
{
	assert_true(tl_memview_us(1500) == 1.5);
	assert_true(tl_memview_us(-2000) == -2.0);
	int64_t big = INT64_C(1608569000000050000); /* an epoch in ns */
	assert_true(tl_memview_us(big) == (double)INT64_C(1608569000000050));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_from_memory),
	    cmocka_unit_test(test_from_allocs),
	    cmocka_unit_test(test_us),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
