/* Unit tests of analysis/idle.c on one step written here as RunMetadata
 * text: per device that does timed work, busy time as the union of its
 * executions (overlapping and nested ones counted once, touching ones
 * leaving no gap), idle time as the rest of the step, the gaps longest
 * first (ties by start) with the executions that end the busy stretch
 * before and start the one after, at most top_gaps of them; devices with
 * no executions, stream:all (a repeat of the streams) and sync left out.
 * Times in the comments are us. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "analysis/idle.h"

#include <glib.h>
#include <string.h>

#include "runtext.h"
#include "testdata.h"

#define GPU1 "/job:localhost/replica:0/task:0/device:GPU:1"
#define STREAM "/device:GPU:0/stream:7"
#define STREAM_ALL "/device:GPU:0/stream:all"
#define MEMCPY "/device:GPU:0/memcpy"
#define SYNC "/device:GPU:0/sync"

/* The step spans 100..200 (g ends last), 100 us.
 *
 * CPU: a 100..110, b 105..120 (overlaps a, ends the stretch), c 130..140,
 * d 141..150, e 160..175, f 162..165 (inside e), g 190..200. Busy:
 * [100,120] 20 + [130,140] 10 + [141,150] 9 + [160,175] 15 + [190,200] 10
 * = 64; idle 36; 64 %. Gaps: 175..190 (e, g) 15, 120..130 (b, c) 10,
 * 150..160 (d, e) 10 (a tie: the earlier first), 140..141 (c, d) 1.
 *
 * stream:7: k1 100..150, k2 120..130 (inside), k3 150..160 (touches k1's
 * end: no gap). Busy 60, no gaps.
 * memcpy: one copy 180..185: busy 5, no gaps.
 * stream:all repeats k1 and sync has a record: neither is a device here.
 * GPU:0 ran the kernels' ops at 100..101; GPU:1 has no executions. */
/* clang-format off */
static const char text[] =
	STEP(
		DEV(CPU,
			EXEC("a", 100, 10) END
			EXEC("b", 105, 15) END
			EXEC("c", 130, 10) END
			EXEC("d", 141, 9) END
			EXEC("e", 160, 15) END
			EXEC("f", 162, 3) END
			EXEC("g", 190, 10) END)
		DEV(GPU,
			EXEC("k", 100, 1) END)
		DEV(GPU1, "")
		DEV(STREAM,
			EXEC("k:Add", 100, 50) END
			EXEC("k:Add", 120, 10) END
			EXEC("k:Add", 150, 10) END)
		DEV(STREAM_ALL,
			EXEC("k:Add", 100, 50) END)
		DEV(MEMCPY,
			EXEC("edge_1_x", 180, 5) END)
		DEV(SYNC,
			EXEC("k:Add", 100, 99) END));
/* clang-format on */

/* The device of the result named `name`, or NULL. */
static const tl_idle_device *device_named(const tl_run *run, const tl_idle *idle, const char *name)
{
	for (size_t i = 0; i < idle->n_devices; i++)
		if (strcmp(run->devices[idle->devices[i].device].name, name) == 0)
			return &idle->devices[i];
	return NULL;
}

static void assert_gap(const tl_run *run, const tl_idle_gap *g, int64_t begin_us, int64_t end_us,
		       const char *before, const char *after)
{
	assert_int_equal(g->begin, begin_us * 1000);
	assert_int_equal(g->end, end_us * 1000);
	assert_string_equal(run->execs[g->before].node, before);
	assert_string_equal(run->execs[g->after].node, after);
}

/* The CPU: busy time, idle time, share, every gap in order. */
static void test_executor(void **state)
{
	(void)state;
	tl_run *run = td_run_of_text(text, "idle");
	tl_idle *idle = tl_idle_new(run, 10);
	assert_int_equal(idle->span_ns, 100000);
	const tl_idle_device *cpu = device_named(run, idle, CPU);
	assert_non_null(cpu);
	assert_int_equal(cpu->busy_ns, 64000);
	assert_int_equal(cpu->idle_ns, 36000);
	assert_true(cpu->busy_pct == 64.0);
	assert_int_equal(cpu->n_gaps, 4);
	assert_int_equal(cpu->n_longest, 4);
	assert_gap(run, &cpu->longest[0], 175, 190, "e", "g");
	assert_gap(run, &cpu->longest[1], 120, 130, "b", "c");
	assert_gap(run, &cpu->longest[2], 150, 160, "d", "e");
	assert_gap(run, &cpu->longest[3], 140, 141, "c", "d");
	tl_idle_free(idle);
	tl_run_free(run);
	tl_warn_clear();
}

/* top_gaps keeps the longest: 2 gives 175..190 and 120..130 of the 4
 * (n_gaps still counts every gap); 0 gives none. */
static void test_top_gaps(void **state)
{
	(void)state;
	tl_run *run = td_run_of_text(text, "idle");
	tl_idle *idle = tl_idle_new(run, 2);
	const tl_idle_device *cpu = device_named(run, idle, CPU);
	assert_non_null(cpu);
	assert_int_equal(cpu->n_gaps, 4);
	assert_int_equal(cpu->n_longest, 2);
	assert_gap(run, &cpu->longest[0], 175, 190, "e", "g");
	assert_gap(run, &cpu->longest[1], 120, 130, "b", "c");
	tl_idle_free(idle);
	idle = tl_idle_new(run, 0);
	cpu = device_named(run, idle, CPU);
	assert_non_null(cpu);
	assert_int_equal(cpu->n_gaps, 4);
	assert_int_equal(cpu->n_longest, 0);
	assert_int_equal(cpu->busy_ns, 64000);
	tl_idle_free(idle);
	tl_run_free(run);
	tl_warn_clear();
}

/* Which devices are there: CPU, GPU:0, stream:7 and memcpy, in device
 * order; not GPU:1 (no executions), stream:all or sync. The stream's
 * nested and touching kernels: busy 60, no gap; the copy: busy 5. */
static void test_devices(void **state)
{
	(void)state;
	tl_run *run = td_run_of_text(text, "idle");
	tl_idle *idle = tl_idle_new(run, 10);
	assert_int_equal(idle->n_devices, 4);
	for (size_t i = 1; i < idle->n_devices; i++)
		assert_true(idle->devices[i - 1].device < idle->devices[i].device);
	assert_null(device_named(run, idle, GPU1));
	for (size_t i = 0; i < idle->n_devices; i++) {
		tl_device_kind k = run->devices[idle->devices[i].device].kind;
		assert_true(k != TL_DEV_STREAM_ALL && k != TL_DEV_SYNC);
	}
	const tl_idle_device *gpu = device_named(run, idle, GPU);
	assert_non_null(gpu);
	assert_int_equal(gpu->busy_ns, 1000);
	assert_int_equal(gpu->n_gaps, 0);
	const tl_idle_device *st = NULL, *cp = NULL;
	for (size_t i = 0; i < idle->n_devices; i++) {
		tl_device_kind k = run->devices[idle->devices[i].device].kind;
		if (k == TL_DEV_STREAM)
			st = &idle->devices[i];
		if (k == TL_DEV_MEMCPY)
			cp = &idle->devices[i];
	}
	assert_non_null(st);
	assert_int_equal(st->busy_ns, 60000);
	assert_int_equal(st->idle_ns, 40000);
	assert_int_equal(st->n_gaps, 0);
	assert_int_equal(st->n_longest, 0);
	assert_true(st->busy_pct == 60.0);
	assert_non_null(cp);
	assert_int_equal(cp->busy_ns, 5000);
	assert_int_equal(cp->n_gaps, 0);
	tl_idle_free(idle);
	tl_run_free(run);
	tl_warn_clear();
}

/* What counts as busy time: executors, streams, copies; not stream:all,
 * sync or other pseudo-devices. */
static void test_counts(void **state)
{
	(void)state;
	static const tl_device_kind yes[] = {TL_DEV_EXECUTOR, TL_DEV_STREAM, TL_DEV_MEMCPY};
	static const tl_device_kind no[] = {TL_DEV_STREAM_ALL, TL_DEV_SYNC, TL_DEV_OTHER};
	for (size_t i = 0; i < G_N_ELEMENTS(yes); i++) {
		tl_device d = {.kind = yes[i]};
		assert_true(tl_idle_counts(&d));
	}
	for (size_t i = 0; i < G_N_ELEMENTS(no); i++) {
		tl_device d = {.kind = no[i]};
		assert_false(tl_idle_counts(&d));
	}
}

/* A run without step stats: a zero span and no devices. */
static void test_empty(void **state)
{
	(void)state;
	tl_run *run = td_run_of_text(GRAPH(NODE("a", "Const", CPU, "")), "empty");
	tl_idle *idle = tl_idle_new(run, 10);
	assert_int_equal(idle->span_ns, 0);
	assert_int_equal(idle->n_devices, 0);
	tl_idle_free(idle);
	tl_run_free(run);
	tl_warn_clear();
}

int main(void)
{
	td_filter();
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_executor), cmocka_unit_test(test_top_gaps),
	    cmocka_unit_test(test_devices),  cmocka_unit_test(test_counts),
	    cmocka_unit_test(test_empty),
	};
	return cmocka_run_group_tests_name("idle", tests, NULL, NULL);
}
