/* Unit tests of analysis/allocs.c on hand-made event lists: alloc/free
 * matching by address with reuse, frees of blocks allocated before the
 * trace, the peak from totals or from the running sum, two devices kept
 * apart, the check against the allocator's totals, and input out of time
 * order. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "analysis/allocs.h"
#include "base/warn.h"

#include <glib.h>
#include <string.h>

#define GPU "/device:GPU:0"

/* An event without totals. */
static tl_alloc_event ev(int64_t t, uint64_t addr, int64_t bytes, const char *op)
{
	return (tl_alloc_event){.t_ns = t,
				.device = GPU,
				.allocator = "cuda:0",
				.addr = addr,
				.bytes = bytes,
				.total_allocated = -1,
				.total_reserved = -1,
				.peak = -1,
				.op = op};
}

static tl_allocs *build(tl_alloc_event *e, size_t n)
{
	tl_alloc_events in = {.ev = e, .n = n, .clock = "trace start"};
	return tl_allocs_build(&in, "test");
}

/* A reused address: each free closes the latest open allocation there. */
static void test_address_reuse(void **state)
{
	tl_alloc_event e[] = {
	    ev(10, 0x100, 100, "a"), ev(20, 0x100, -100, "x"), ev(30, 0x100, 300, "b"),
	    ev(40, 0x200, 50, "c"),  ev(50, 0x100, -300, "y"),
	};
	tl_allocs *a = build(e, G_N_ELEMENTS(e));
	assert_int_equal(a->n_allocators, 1);
	const tl_allocs_allocator *al = &a->allocators[0];
	assert_int_equal(al->n_blocks, 3);
	assert_false(al->peak_from_totals);
	assert_int_equal(al->peak_bytes, 350);
	assert_int_equal(al->peak_ns, 40);
	assert_string_equal(al->peak_op, "c");
	assert_int_equal(al->n_live, 2);
	/* largest first: b (300, freed at 50), then c (50, never freed) */
	const tl_alloc_block *b0 = &a->blocks[al->live[0]], *b1 = &a->blocks[al->live[1]];
	assert_string_equal(b0->op, "b");
	assert_int_equal(b0->alloc_ns, 30);
	assert_int_equal(b0->free_ns, 50);
	assert_string_equal(b0->free_op, "y");
	assert_string_equal(b1->op, "c");
	assert_true(b1->free_ns == TL_ALLOCS_NEVER);
	assert_int_equal(al->n_never_freed, 1);
	/* the first block, a, was closed at 20 by x */
	assert_int_equal(a->blocks[al->first_block].free_ns, 20);
	assert_int_equal(al->n_before, 0);
	assert_int_equal(al->unattributed_bytes, 0);
	assert_int_equal(al->check_samples, 0);
	tl_allocs_free(a);
	tl_warn_clear();
}

/* Two allocations open at one address (a free missed by the profiler): the
 * free closes the latest. */
static void test_stacked_reuse(void **state)
{
	tl_alloc_event e[] = {ev(1, 0x10, 8, "old"), ev(2, 0x10, 16, "new"), ev(3, 0x10, -16, "f")};
	tl_allocs *a = build(e, 3);
	const tl_allocs_allocator *al = &a->allocators[0];
	assert_int_equal(a->blocks[al->first_block].free_ns, TL_ALLOCS_NEVER);
	assert_int_equal(a->blocks[al->first_block + 1].free_ns, 3);
	assert_int_equal(al->peak_bytes, 24);
	tl_allocs_free(a);
	tl_warn_clear();
}

/* A free with no allocation: a block from before the trace, live from its
 * start, counted in the baseline of the running sum, warned of once. */
static void test_free_before_alloc(void **state)
{
	tl_warn_clear();
	tl_alloc_event e[] = {ev(5, 0x900, -1000, "early"), ev(6, 0x901, -24, "early2"),
			      ev(10, 0x100, 500, "a")};
	tl_allocs *a = build(e, 3);
	const tl_allocs_allocator *al = &a->allocators[0];
	assert_int_equal(al->n_before, 2);
	assert_int_equal(al->baseline, 1024);
	assert_int_equal(al->peak_bytes, 1024);
	/* the peak is before the first event: both early blocks live there */
	assert_int_equal(al->n_live, 2);
	assert_true(a->blocks[al->live[0]].alloc_ns == TL_ALLOCS_BEFORE);
	assert_int_equal(a->blocks[al->live[0]].bytes, 1000);
	assert_int_equal(al->curve[0].bytes, 24);
	assert_int_equal(al->curve[2].bytes, 500);
	assert_int_equal(tl_warn_count("allocs-before"), 2); /* one per free */
	tl_allocs_free(a);
	tl_warn_clear();
}

/* With totals the peak is the largest Total Allocated, the curve starts from
 * what the allocator held before the first event, and the check measures
 * the running sum against the totals. */
static void test_totals_and_check(void **state)
{
	tl_alloc_event e[] = {ev(1, 0x1, 100, "a"), ev(2, 0x2, 200, "b"), ev(3, 0x1, -100, "c"),
			      ev(4, 0x3, 10, "d")};
	int64_t totals[] = {1100, 1300, 1200, 1215}; /* the last is off by 5 */
	for (size_t i = 0; i < 4; i++) {
		e[i].total_allocated = totals[i];
		e[i].total_reserved = 4096 + (int64_t)i;
	}
	tl_allocs *a = build(e, 4);
	const tl_allocs_allocator *al = &a->allocators[0];
	assert_true(al->peak_from_totals);
	assert_int_equal(al->baseline, 1000);
	assert_int_equal(al->peak_bytes, 1300);
	assert_int_equal(al->peak_ns, 2);
	assert_int_equal(al->peak_reserved, 4099);
	assert_int_equal(al->n_live, 2);
	assert_int_equal(al->live_bytes, 300);
	assert_int_equal(al->unattributed_bytes, 1000);
	assert_int_equal(al->check_samples, 4);
	assert_int_equal(al->check_max_abs, 5);
	assert_true(al->check_mean_abs > 1.24 && al->check_mean_abs < 1.26);
	tl_allocs_free(a);
}

/* Two devices: two allocators, each with its own peak, by device name. */
static void test_two_devices(void **state)
{
	tl_alloc_event e[] = {ev(1, 0x1, 100, "g"), ev(2, 0x1, 7, "h"), ev(3, 0x1, -100, "g2"),
			      ev(4, 0x1, -7, "h2")};
	e[1].device = "/host:CPU";
	e[1].allocator = "cpu";
	e[3].device = "/host:CPU";
	e[3].allocator = "cpu";
	tl_allocs *a = build(e, 4);
	assert_int_equal(a->n_allocators, 2);
	assert_string_equal(a->allocators[0].name, "cuda:0");
	assert_int_equal(a->allocators[0].peak_bytes, 100);
	assert_string_equal(a->allocators[1].name, "cpu");
	assert_string_equal(a->allocators[1].device, "/host:CPU");
	assert_int_equal(a->allocators[1].peak_bytes, 7);
	assert_int_equal(a->allocators[1].n_before, 0); /* 0x1 on the CPU is its own */
	tl_allocs_free(a);
}

/* Events out of time order are taken in time order (ties in input order). */
static void test_time_order(void **state)
{
	tl_alloc_event e[] = {ev(30, 0x1, -64, "free"), ev(10, 0x1, 64, "alloc")};
	tl_allocs *a = build(e, 2);
	const tl_allocs_allocator *al = &a->allocators[0];
	assert_int_equal(al->n_before, 0);
	assert_int_equal(al->n_blocks, 1);
	assert_int_equal(a->blocks[0].alloc_ns, 10);
	assert_int_equal(a->blocks[0].free_ns, 30);
	assert_int_equal(al->curve[0].t_ns, 10);
	tl_allocs_free(a);
}

/* Events without an address and sums past int64 do not break it. */
static void test_hostile_values(void **state)
{
	tl_alloc_event e[] = {ev(1, 0, 100, "noaddr"), ev(2, 0x1, INT64_MAX, "huge"),
			      ev(3, 0x2, INT64_MAX, "huge2"), ev(4, 0x3, INT64_MIN, "neg")};
	tl_allocs *a = build(e, 4);
	const tl_allocs_allocator *al = &a->allocators[0];
	assert_int_equal(al->n_no_addr, 1);
	assert_int_equal(al->peak_bytes, INT64_MAX);
	assert_int_equal(tl_warn_count("allocs-no-addr"), 1);
	tl_allocs_free(a);
	tl_alloc_events none = {0};
	a = tl_allocs_build(&none, "empty");
	assert_int_equal(a->n_allocators, 0);
	tl_allocs_free(a);
	tl_warn_clear();
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_address_reuse),     cmocka_unit_test(test_stacked_reuse),
	    cmocka_unit_test(test_free_before_alloc), cmocka_unit_test(test_totals_and_check),
	    cmocka_unit_test(test_two_devices),	      cmocka_unit_test(test_time_order),
	    cmocka_unit_test(test_hostile_values),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
