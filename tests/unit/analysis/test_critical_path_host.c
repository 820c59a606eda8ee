/* Unit tests of the critical path by HTA's rules (analysis/critical_path_host.c)
 * against what HTA's own test (tests/test_critical_path_analysis.py,
 * test_critical_path_analysis) asserts on the trace it reads, which
 * tests/data/real holds: in the window of the annotation
 * "[param|pytorch.model.alex_net|0|0|0|measure|forward]" instance 1,
 *   - aten::relu_ > aten::clamp_min_ > cudaLaunchKernel (the first relu_):
 *     edges of 15, 14, 17, 15 and 32 us from relu_'s start down the stack
 *     and back up to its end;
 *   - a launch delay of 27 us from the runtime call of correlation 5597 to
 *     its kernel fft2d_r2c_32x32, and a kernel-kernel delay of 7 us from it
 *     to the next kernel on the stream (correlation 5604);
 *   - a zero-weight sync edge from the last epilogue kernel's end to
 *     cudaDeviceSynchronize's end;
 *   - a path of 315 nodes (314 edges) over 159 events.
 * The events are found by name and time here (the model keeps no
 * correlation ids); the times quoted are the trace's. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "analysis/critical_path.h"
#include "analysis/critical_path_internal.h"

#include <glib.h>
#include <string.h>

#include "testdata.h"

#define ANNOTATION "[param|pytorch.model.alex_net|0|0|0|measure|forward]"
#define HTA_FILE "real/facebookresearch_hta_critpath_simple_add_input.pt.trace.json.gz"
/* the trace's first ts, which the run's clock starts at: times below are
 * the trace's us less it */
#define T0_US 1694039968933321LL

static tl_run *hta_run(void)
{
	char *path = td_data(HTA_FILE);
	tl_run *run = td_run_of_file(path);
	g_free(path);
	return run;
}

static const char *name_of(const tl_run *run, uint32_t e)
{
	return tl_critical_path_name(run, e);
}

/* The first execution named `name` that starts at or after `after` ns. */
static uint32_t find(const tl_run *run, const char *name, int64_t after)
{
	uint32_t best = UINT32_MAX;
	for (uint32_t i = 0; i < run->n_execs; i++)
		if (strcmp(name_of(run, i), name) == 0 && run->execs[i].start >= after &&
		    (best == UINT32_MAX || run->execs[i].start < run->execs[best].start))
			best = i;
	if (best == UINT32_MAX)
		fail_msg("no %s after %lld", name, (long long)after);
	return best;
}

/* The execution named with this prefix that starts at trace time ts_us. */
static uint32_t at(const tl_run *run, const char *prefix, int64_t ts_us)
{
	for (uint32_t i = 0; i < run->n_execs; i++)
		if (g_str_has_prefix(name_of(run, i), prefix) &&
		    run->execs[i].start - run->t_begin == (ts_us - T0_US) * 1000)
			return i;
	fail_msg("no %s at %lld", prefix, (long long)ts_us);
	return 0;
}

static const tl_path_edge *edge(const GArray *edges, uint32_t src, bool src_end, uint32_t dst,
				bool dst_end)
{
	for (guint i = 0; i < edges->len; i++) {
		const tl_path_edge *e = &g_array_index(edges, tl_path_edge, i);
		if (e->src == src && e->src_end == src_end && e->dst == dst &&
		    e->dst_end == dst_end)
			return e;
	}
	fail_msg("no edge %u%s -> %u%s", src, src_end ? ".end" : ".start", dst,
		 dst_end ? ".end" : ".start");
	return NULL;
}

static void window(const tl_run *run, tl_path *p)
{
	tl_path_opts o = {ANNOTATION, 1};
	tl_error err = {{0}};
	assert_int_equal(tl_critical_path_find(run, &o, p, &err), 0);
	assert_int_equal(p->rules, TL_PATH_HOST);
	/* instance 1 is the second by start: 1694040009854190 for 243351 us */
	assert_int_equal(p->span_begin - run->t_begin, (1694040009854190LL - T0_US) * 1000);
	assert_int_equal(p->span_end - p->span_begin, 243351000LL);
}

/* relu_ > clamp_min_ > cudaLaunchKernel: 15, 14, 17, 15, 32 us */
static void test_nesting(void **state)
{
	tl_run *run = hta_run();
	tl_path p;
	window(run, &p);
	uint32_t relu = find(run, "aten::relu_", p.span_begin);
	uint32_t clamp = find(run, "aten::clamp_min_", run->execs[relu].start);
	uint32_t launch = find(run, "cudaLaunchKernel", run->execs[clamp].start);
	GArray *edges = tl_critical_path_host_edges(run, p.span_begin, p.span_end);
	const tl_path_edge *e1 = edge(edges, relu, false, clamp, false);
	const tl_path_edge *e2 = edge(edges, clamp, false, launch, false);
	const tl_path_edge *e3 = edge(edges, launch, false, launch, true);
	const tl_path_edge *e4 = edge(edges, launch, true, clamp, true);
	const tl_path_edge *e5 = edge(edges, clamp, true, relu, true);
	int64_t want[] = {15, 14, 17, 15, 32};
	const tl_path_edge *got[] = {e1, e2, e3, e4, e5};
	for (size_t i = 0; i < G_N_ELEMENTS(want); i++) {
		assert_int_equal(got[i]->w, want[i] * 1000);
		assert_int_equal(got[i]->type, TL_PATH_EDGE_OP);
	}
	g_array_free(edges, TRUE);
	tl_path_clear(&p);
	tl_run_free(run);
	tl_warn_clear();
}

/* fft2d_r2c_32x32 (correlation 5597): its launch 27 us before it; the next
 * kernel on its stream (5604) 7 us after its end; the last epilogue
 * kernel's end -> cudaDeviceSynchronize's end, weight 0 */
static void test_launch_kernel_sync(void **state)
{
	tl_run *run = hta_run();
	tl_path p;
	window(run, &p);
	GArray *edges = tl_critical_path_host_edges(run, p.span_begin, p.span_end);
	uint32_t fft = at(run, "void fft2d_r2c_32x32", 1694040010076734LL);
	uint32_t rt = at(run, "cudaLaunchKernel", 1694040010076707LL);
	assert_int_equal(run->execs[fft].launcher, (int32_t)rt);
	const tl_path_edge *l = edge(edges, rt, false, fft, false);
	assert_int_equal(l->type, TL_PATH_EDGE_LAUNCH);
	assert_int_equal(l->w, 27000);
	uint32_t next = at(run, "ampere_gcgemm_64x64_nt", 1694040010076804LL);
	const tl_path_edge *k = edge(edges, fft, true, next, false);
	assert_int_equal(k->type, TL_PATH_EDGE_KERNEL);
	assert_int_equal(k->w, 7000);
	/* the device synchronize at the window's end, and the last epilogue
	 * kernel to start before it ends */
	uint32_t sync = at(run, "cudaDeviceSynchronize", 1694040010097115LL);
	uint32_t epi = UINT32_MAX;
	for (uint32_t i = 0; i < run->n_execs; i++)
		if (g_str_has_prefix(name_of(run, i), "void epilogue::") &&
		    run->execs[i].start < run->execs[sync].end &&
		    (epi == UINT32_MAX || run->execs[i].start > run->execs[epi].start))
			epi = i;
	assert_true(epi != UINT32_MAX);
	const tl_path_edge *s = edge(edges, epi, true, sync, true);
	assert_int_equal(s->type, TL_PATH_EDGE_SYNC);
	assert_int_equal(s->w, 0);
	g_array_free(edges, TRUE);
	tl_path_clear(&p);
	tl_run_free(run);
	tl_warn_clear();
}

/* 315 nodes, 314 edges, 159 events; the relu_ above on it with its two
 * edges (47 us), its clamp_min_ (29 us) and its launch (17 us) */
static void test_path(void **state)
{
	tl_run *run = hta_run();
	tl_path p;
	window(run, &p);
	assert_int_equal(p.n_nodes, 315);
	assert_int_equal(p.n_edges, 314);
	assert_int_equal(p.n, 159);
	uint32_t relu = find(run, "aten::relu_", p.span_begin);
	uint32_t clamp = find(run, "aten::clamp_min_", run->execs[relu].start);
	uint32_t launch = find(run, "cudaLaunchKernel", run->execs[clamp].start);
	int found = 0;
	for (size_t i = 0; i < p.n; i++) {
		if (p.steps[i].exec == relu) {
			assert_int_equal(p.steps[i].gated_ns, 47000);
			found++;
		} else if (p.steps[i].exec == clamp) {
			assert_int_equal(p.steps[i].gated_ns, 29000);
			found++;
		} else if (p.steps[i].exec == launch) {
			assert_int_equal(p.steps[i].gated_ns, 17000);
			found++;
		}
	}
	assert_int_equal(found, 3);
	tl_path_clear(&p);
	tl_run_free(run);
	tl_warn_clear();
}

/* no such instance: an error naming it and the count */
static void test_no_instance(void **state)
{
	tl_run *run = hta_run();
	tl_path p;
	tl_path_opts o = {ANNOTATION, 2};
	tl_error err = {{0}};
	assert_int_equal(tl_critical_path_find(run, &o, &p, &err), -1);
	assert_non_null(strstr(err.msg, "no instance 2 of annotation"));
	assert_non_null(strstr(err.msg, "(2 found)"));
	tl_run_free(run);
	tl_warn_clear();
}

int main(void)
{
	td_filter();
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_nesting),
	    cmocka_unit_test(test_launch_kernel_sync),
	    cmocka_unit_test(test_path),
	    cmocka_unit_test(test_no_instance),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
