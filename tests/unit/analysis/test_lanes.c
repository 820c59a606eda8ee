/* Unit tests of lanes.c: rows on a timeline never overlap; an executor's
 * rows follow its dump threads, a thread getting another row only where its
 * own records overlap; other devices fill rows first-fit; touching
 * intervals share a row. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "analysis/lanes.h"

#include <glib.h>
#include <string.h>

#include "testdata.h"

#define CPU "/job:localhost/replica:0/task:0/device:CPU:0"
#define STREAM "/job:localhost/replica:0/task:0/device:GPU:0/stream:7"

static const tl_exec *named(const tl_run *run, const char *name, uint32_t *index)
{
	for (uint32_t i = 0; i < run->n_execs; i++)
		if (strcmp(run->execs[i].ns->node_name, name) == 0) {
			*index = i;
			return &run->execs[i];
		}
	fail_msg("no execution '%s'", name);
	return NULL;
}

static uint32_t lane_of(const tl_lanes *v, const tl_run *run, const char *name)
{
	uint32_t i = 0;
	named(run, name, &i);
	return v->lane[i];
}

/* No two executions of one device share a row where they overlap. */
static void assert_no_overlap(const tl_lanes *v, const tl_run *run)
{
	for (uint32_t i = 0; i < run->n_execs; i++)
		for (uint32_t j = i + 1; j < run->n_execs; j++) {
			if (run->execs[i].device != run->execs[j].device ||
			    v->lane[i] != v->lane[j])
				continue;
			assert_true(v->end[i] <= v->start[j] || v->end[j] <= v->start[i]);
		}
}

static tl_run *two_devices(void)
{
	return td_run_of_text(
	    "step_stats {\n"
	    " dev_stats { device: \"" CPU "\"\n"
	    "  node_stats { node_name: \"a\" thread_id: 1 all_start_micros: 100"
	    " op_end_rel_micros: 10 all_end_rel_micros: 10 }\n"
	    "  node_stats { node_name: \"b\" thread_id: 1 all_start_micros: 105"
	    " op_end_rel_micros: 15 all_end_rel_micros: 15 }\n"
	    "  node_stats { node_name: \"c\" thread_id: 2 all_start_micros: 100"
	    " op_end_rel_micros: 30 all_end_rel_micros: 30 }\n"
	    "  node_stats { node_name: \"d\" thread_id: 1 all_start_micros: 110"
	    " op_end_rel_micros: 5 all_end_rel_micros: 5 }\n"
	    " }\n"
	    " dev_stats { device: \"" STREAM "\"\n"
	    "  node_stats { node_name: \"k1\" all_start_micros: 100 all_end_rel_micros: 50 }\n"
	    "  node_stats { node_name: \"k2\" all_start_micros: 120 all_end_rel_micros: 10 }\n"
	    "  node_stats { node_name: \"k3\" all_start_micros: 150 all_end_rel_micros: 10 }\n"
	    "  node_stats { node_name: \"k4\" all_start_micros: 125 all_end_rel_micros: 10 }\n"
	    " }\n"
	    "}\n",
	    "lanes");
}

/* Executor rows: thread 1 first (its first record is first), a second row
 * for thread 1 where b overlaps a, then thread 2; d touches a's end and
 * shares a's row. */
static void test_executor_threads(void **state)
{
	tl_run *run = two_devices();
	tl_lanes v;
	tl_lanes_build(&v, run, TL_OPTIME_SCHEDULE);
	assert_no_overlap(&v, run);
	uint32_t i = 0;
	size_t cpu = named(run, "a", &i)->device;
	assert_true(v.threaded[cpu]);
	assert_int_equal(v.n_lanes[cpu], 3);
	assert_int_equal(lane_of(&v, run, "a"), 0);
	assert_int_equal(lane_of(&v, run, "b"), 1);
	assert_int_equal(lane_of(&v, run, "d"), 0);
	assert_int_equal(lane_of(&v, run, "c"), 2);
	assert_int_equal(v.lanes[cpu][0].thread, 1);
	assert_int_equal(v.lanes[cpu][0].sub, 0);
	assert_int_equal(v.lanes[cpu][1].thread, 1);
	assert_int_equal(v.lanes[cpu][1].sub, 1);
	assert_int_equal(v.lanes[cpu][2].thread, 2);
	assert_int_equal(v.lanes[cpu][2].sub, 0);
	tl_lanes_free(&v);
	tl_run_free(run);
}

/* Stream rows, first-fit by start: k1 row 0; k2 and k4 overlap k1 and
 * each other, rows 1 and 2; k3 starts where k1 ends, back in row 0. */
static void test_stream_first_fit(void **state)
{
	tl_run *run = two_devices();
	tl_lanes v;
	tl_lanes_build(&v, run, TL_OPTIME_SCHEDULE);
	assert_no_overlap(&v, run);
	uint32_t i = 0;
	size_t stream = named(run, "k1", &i)->device;
	assert_false(v.threaded[stream]);
	assert_int_equal(v.n_lanes[stream], 3);
	assert_int_equal(lane_of(&v, run, "k1"), 0);
	assert_int_equal(lane_of(&v, run, "k2"), 1);
	assert_int_equal(lane_of(&v, run, "k4"), 2);
	assert_int_equal(lane_of(&v, run, "k3"), 0);
	/* the intervals are the records' own, in ns */
	named(run, "k2", &i);
	assert_int_equal(v.start[i], 120000);
	assert_int_equal(v.end[i], 130000);
	tl_lanes_free(&v);
	tl_run_free(run);
}

int main(void)
{
	td_filter();
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_executor_threads),
	    cmocka_unit_test(test_stream_first_fit),
	};
	return cmocka_run_group_tests_name("lanes", tests, NULL, NULL);
}
