/* Unit tests of tl_critical_path (analysis/timeuse.c): on runs of a few
 * executions written here as RunMetadata text, the path is exactly the
 * executions worked out by hand, first first, each with its duration and
 * the wait between its releasing predecessor's end and its start. One
 * test per kind of predecessor: data edges, a _Send -> _Recv hop across
 * devices, a control edge, an op's GPU kernel and the kernel after it on
 * the same stream. Each run has a decoy: an execution that would be on the
 * path if that kind of edge were missed. Times in the comments are us. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "analysis/critical_path.h"

#include <glib.h>
#include <string.h>

#include "runtext.h"
#include "testdata.h"

#define STREAM "/device:GPU:0/stream:7"

/* One step of the expected path: node, kind of device, duration and wait
 * in us. */
struct want {
	const char *node;
	tl_device_kind kind;
	int64_t dur_us;
	int64_t wait_us;
};

/* The critical path of `text` is exactly `want`. */
static void assert_path(const char *text, const struct want *want, size_t n)
{
	tl_run *run = td_run_of_text(text, "path");
	tl_path_step *steps = NULL;
	size_t got = tl_critical_path(run, &steps);
	for (size_t i = 0; i < got && i < n; i++) {
		const tl_exec *e = &run->execs[steps[i].exec];
		if (strcmp(e->node, want[i].node) != 0)
			fail_msg("step %zu is %s, expected %s", i, e->node, want[i].node);
		assert_int_equal(run->devices[e->device].kind, want[i].kind);
		assert_int_equal(e->end - e->start, want[i].dur_us * 1000);
		assert_int_equal(steps[i].wait_ns, want[i].wait_us * 1000);
	}
	assert_int_equal(got, n);
	/* each step's gated share and wait add up to the path's span, even
	 * where a step started before its predecessor ended */
	int64_t sum = 0;
	for (size_t i = 0; i < got; i++)
		sum += steps[i].gated_ns + steps[i].wait_ns;
	if (got > 0)
		assert_int_equal(sum, run->execs[steps[got - 1].exec].end -
					      run->execs[steps[0].exec].start);
	g_free(steps);
	tl_run_free(run);
	tl_warn_clear();
}

/* Data edges: c (135..150) ends last; of its inputs b (ends 130) released
 * it, not x (ends 125): wait 5. b's input a ends at 110, b starts at 112:
 * wait 2. a reads nothing. Durations and waits add up to the path's span,
 * 100..150. */
static void test_data_chain(void **state)
{
	(void)state;
	/* clang-format off */
	static const char text[] =
		STEP(
			DEV(CPU,
				EXEC("a", 100, 10) END
				EXEC("x", 100, 25) END
				EXEC("b", 112, 18) END
				EXEC("c", 135, 15) END))
		GRAPH(
			NODE("a", "Const", CPU, "")
			NODE("x", "Const", CPU, "")
			NODE("b", "Neg", CPU, IN("a"))
			NODE("c", "Add", CPU, IN("b") IN("x")));
	/* clang-format on */
	static const struct want want[] = {
	    {"a", TL_DEV_EXECUTOR, 10, 0},
	    {"b", TL_DEV_EXECUTOR, 18, 2},
	    {"c", TL_DEV_EXECUTOR, 15, 5},
	};
	assert_path(text, want, G_N_ELEMENTS(want));
	int64_t sum = 0;
	for (size_t i = 0; i < G_N_ELEMENTS(want); i++)
		sum += want[i].dur_us + want[i].wait_us;
	assert_int_equal(sum, 150 - 100);
}

/* A tensor sent from the CPU to the GPU: g (GPU, 121..140) reads the
 * _Recv r (105..120; ended after z, 100..118, g's other input): wait 1. r
 * was released by the _Send s on the CPU (111..113), which ended after r
 * had started (a _Recv waits for its _Send): no wait. s reads a
 * (100..110): wait 1. Without the transfer the path would stop at r. */
static void test_send_recv(void **state)
{
	(void)state;
	/* clang-format off */
	static const char text[] =
		STEP(
			DEV(CPU,
				EXEC("a", 100, 10) END
				EXEC("s", 111, 2) END)
			DEV(GPU,
				EXEC("z", 100, 18) END
				EXEC("r", 105, 15) END
				EXEC("g", 121, 19) END))
		GRAPH(
			NODE("a", "Const", CPU, "")
			NODE("s", "_Send", CPU, IN("a") XFER("edge_a", CPU, GPU)))
		GRAPH(
			NODE("r", "_Recv", GPU, XFER("edge_a", CPU, GPU))
			NODE("z", "Const", GPU, "")
			NODE("g", "Add", GPU, IN("r") IN("z")));
	/* clang-format on */
	static const struct want want[] = {
	    {"a", TL_DEV_EXECUTOR, 10, 0},
	    {"s", TL_DEV_EXECUTOR, 2, 1},
	    {"r", TL_DEV_EXECUTOR, 15, 0},
	    {"g", TL_DEV_EXECUTOR, 19, 1},
	};
	assert_path(text, want, G_N_ELEMENTS(want));
	/* r (105..120) is gated only from s's end (113): 7 us of its 15 */
	tl_run *run = td_run_of_text(text, "path");
	tl_path_step *steps = NULL;
	size_t n = tl_critical_path(run, &steps);
	assert_int_equal(n, 4);
	assert_int_equal(steps[2].gated_ns, 7000);
	assert_int_equal(steps[1].gated_ns, 2000);
	g_free(steps);
	tl_run_free(run);
	tl_warn_clear();
}

/* A control edge gates like a data edge: b (120..130) reads c (ends 115)
 * and waits on ^a (ends 118): a released it, wait 2. */
static void test_control(void **state)
{
	(void)state;
	/* clang-format off */
	static const char text[] =
		STEP(
			DEV(CPU,
				EXEC("a", 100, 18) END
				EXEC("c", 100, 15) END
				EXEC("b", 120, 10) END))
		GRAPH(
			NODE("a", "NoOp", CPU, "")
			NODE("c", "Const", CPU, "")
			NODE("b", "Neg", CPU, IN("c") IN("^a")));
	/* clang-format on */
	static const struct want want[] = {
	    {"a", TL_DEV_EXECUTOR, 18, 0},
	    {"b", TL_DEV_EXECUTOR, 10, 2},
	};
	assert_path(text, want, G_N_ELEMENTS(want));
}

/* GPU kernels: m (100..105) launches k1 (110..140 on stream 7), and n
 * (106..108, reading m) launches k2 (140..160, same stream). k2 ends
 * last; it was released by k1, the kernel before it on the stream (ends
 * 140), not by its launch (n ends 108): no wait. k1 was released by its
 * launch, m: wait 5. n is not on the path. */
static void test_launch(void **state)
{
	(void)state;
	/* clang-format off */
	static const char text[] =
		STEP(
			DEV(GPU,
				EXEC("m", 100, 5) END
				EXEC("n", 106, 2) END)
			DEV(STREAM,
				EXEC("m:MatMul", 110, 30) " timeline_label: \"k1@@m:MatMul\"" END
				EXEC("n:Neg", 140, 20) " timeline_label: \"k2@@n:Neg\"" END))
		GRAPH(
			NODE("m", "MatMul", GPU, "")
			NODE("n", "Neg", GPU, IN("m")));
	/* clang-format on */
	static const struct want want[] = {
	    {"m", TL_DEV_EXECUTOR, 5, 0},
	    {"m", TL_DEV_STREAM, 30, 5},
	    {"n", TL_DEV_STREAM, 20, 0},
	};
	assert_path(text, want, G_N_ELEMENTS(want));
}

int main(void)
{
	td_filter();
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_data_chain),
	    cmocka_unit_test(test_send_recv),
	    cmocka_unit_test(test_control),
	    cmocka_unit_test(test_launch),
	};
	return cmocka_run_group_tests_name("critical path", tests, NULL, NULL);
}
