/* Unit tests of dataflow.c (and the first-fit rows of lanes.c): the
 * searches that replaced scans pick what the scans picked, on random
 * inputs checked against the scans written out here. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "analysis/dataflow.h"
#include "analysis/lanes.h"
#include "io/source.h"

#include <glib.h>
#include <string.h>

#include "testdata.h"

/* The scan tl_dataflow_pick replaced: the last in start order that ended
 * by t, else the first. */
static int32_t pick_by_scan(const tl_run *run, uint32_t producer, int64_t t)
{
	const tl_gnode *p = &run->nodes[producer];
	const uint32_t *ex = run->node_execs + p->first_exec;
	int32_t best = (int32_t)ex[0];
	for (uint32_t i = 0; i < p->n_exec; i++)
		if (run->execs[ex[i]].end <= t)
			best = (int32_t)ex[i];
	return best;
}

/* Executions of one node whose ends do not grow with their starts (long
 * ones beside short ones, as overlapping loop iterations have), and
 * consumers run a different number of times: every start picks as the
 * scan did. */
static void test_pick_unequal_counts(void **state)
{
	(void)state;
	GRand *rng = g_rand_new_with_seed(13);
	for (int round = 0; round < 200; round++) {
		uint32_t n = (uint32_t)g_rand_int_range(rng, 2, 40);
		tl_gnode node = {.name = "p", .op = "Op", .n_exec = n};
		tl_exec *execs = g_new0(tl_exec, n);
		uint32_t *node_execs = g_new(uint32_t, n);
		int64_t start = 0;
		for (uint32_t i = 0; i < n; i++) {
			start += g_rand_int_range(rng, 0, 5);
			execs[i].start = start;
			execs[i].end = start + g_rand_int_range(rng, 0, 30);
			node_execs[i] = i;
		}
		tl_run run = {.execs = execs,
			      .n_execs = n,
			      .nodes = &node,
			      .n_nodes = 1,
			      .node_execs = node_execs};
		int64_t *min_ends = tl_dataflow_min_ends(&run);
		for (int64_t t = -2; t < start + 35; t++) {
			/* n + 1 consumer executions: neither equal, nor one */
			int32_t got = tl_dataflow_pick(&run, min_ends, 0, 0, n + 1, t);
			assert_int_equal(got, pick_by_scan(&run, 0, t));
		}
		/* the other rules: equal counts, one producer, one consumer */
		assert_int_equal(tl_dataflow_pick(&run, min_ends, 0, 1, n, 0), 1);
		assert_int_equal(tl_dataflow_pick(&run, min_ends, 0, 0, 1, 0), (int32_t)n - 1);
		g_free(min_ends);
		g_free(execs);
		g_free(node_execs);
	}
	g_rand_free(rng);
}

/* The scan label_links replaced, for one input of consumer i: the last
 * execution of the name (in execution order) that started by i's start,
 * not i, on i's device if any, else on any device. */
static int32_t label_source_by_scan(const tl_run *run, const char *name, uint32_t i)
{
	const tl_exec *e = &run->execs[i];
	int32_t best = -1, any = -1;
	for (uint32_t c = 0; c < run->n_execs; c++) {
		const tl_exec *x = &run->execs[c];
		if (run->devices[x->device].kind != TL_DEV_EXECUTOR || strcmp(x->node, name) != 0)
			continue;
		if (x->start > e->start || c == i)
			continue;
		any = (int32_t)c;
		if (x->device == e->device)
			best = (int32_t)c;
	}
	return best >= 0 ? best : any;
}

/* A StepStats (no graphs, so arrows come from the labels) of a few names
 * spread over several devices, reading each other and themselves. */
static char *random_stepstats(GRand *rng)
{
	GString *s = g_string_new("step_stats {\n");
	int n_names = g_rand_int_range(rng, 1, 6), n_dev = g_rand_int_range(rng, 1, 6);
	for (int d = 0; d < n_dev; d++) {
		g_string_append_printf(s,
				       " dev_stats { device: \"/job:localhost/replica:0/task:0/"
				       "device:CPU:%d\"\n",
				       d);
		int n = g_rand_int_range(rng, 0, 14);
		for (int k = 0; k < n; k++) {
			int name = g_rand_int_range(rng, 0, n_names);
			GString *in = g_string_new(NULL);
			int n_in = g_rand_int_range(rng, 0, 4);
			for (int j = 0; j < n_in; j++)
				g_string_append_printf(in, "%sn%d%s", j ? ", " : "",
						       g_rand_int_range(rng, 0, n_names),
						       g_rand_boolean(rng) ? ":1" : "");
			if (g_rand_int_range(rng, 0, 3) == 0)
				g_string_append_printf(in, "%s^n%d", n_in ? ", " : "",
						       g_rand_int_range(rng, 0, n_names));
			g_string_append_printf(
			    s,
			    "  node_stats { node_name: \"n%d\" all_start_micros: %d "
			    "all_end_rel_micros: %d timeline_label: \"n%d = "
			    "Op(%s)\" }\n",
			    name, 1000 + g_rand_int_range(rng, 0, 30), g_rand_int_range(rng, 0, 6),
			    name, in->str);
			g_string_free(in, TRUE);
		}
		g_string_append(s, " }\n");
	}
	g_string_append(s, "}\n");
	return g_string_free(s, FALSE);
}

/* Without graphs, each arrow goes from the execution the scan picks. */
static void test_label_links_as_scan(void **state)
{
	(void)state;
	GRand *rng = g_rand_new_with_seed(7);
	size_t checked = 0;
	for (int round = 0; round < 300; round++) {
		char *text = random_stepstats(rng);
		tl_run *run = td_run_of_text(text, "test");
		GArray *links = g_array_new(FALSE, FALSE, sizeof(tl_link));
		tl_dataflow_opts fo = {.control = true, .launches = false};
		tl_dataflow_links(run, &fo, links);
		/* every input of every execution, in order, as the scan resolves it */
		guint next = 0;
		for (uint32_t i = 0; i < run->n_execs; i++) {
			const char **inputs = NULL;
			size_t n_in = 0;
			if (!tl_run_op_label_parse(run->arena, run->execs[i].ns->timeline_label, NULL,
					       NULL, &inputs, &n_in))
				continue;
			for (size_t k = 0; k < n_in; k++) {
				const char *nm = inputs[k][0] == '^' ? inputs[k] + 1 : inputs[k];
				char *base = g_strdup(nm);
				char *colon = strrchr(base, ':');
				if (colon != NULL && colon[1] != '\0')
					*colon = '\0';
				int32_t want = label_source_by_scan(run, base, i);
				g_free(base);
				if (want < 0)
					continue;
				assert_true(next < links->len);
				const tl_link *l = &g_array_index(links, tl_link, next++);
				assert_int_equal(l->dst, i);
				assert_int_equal(l->src, (uint32_t)want);
				checked++;
			}
		}
		assert_int_equal(next, links->len);
		g_array_free(links, TRUE);
		tl_run_free(run);
		g_free(text);
	}
	assert_true(checked > 1000);
	tl_warn_clear(); /* "no partition graphs", once per run */
	g_rand_free(rng);
}

/* First-fit rows against a scan of every row. */
static void test_rowfit_first_fit(void **state)
{
	(void)state;
	GRand *rng = g_rand_new_with_seed(3);
	for (int round = 0; round < 100; round++) {
		tl_lanes_fit *f = tl_lanes_fit_new();
		GArray *row_end = g_array_new(FALSE, FALSE, sizeof(int64_t));
		int64_t start = 0;
		int n = g_rand_int_range(rng, 1, 300);
		for (int i = 0; i < n; i++) {
			start += g_rand_int_range(rng, 0, 3);
			int64_t end = start + g_rand_int_range(rng, 0, 40);
			guint want = row_end->len;
			for (guint r = 0; r < row_end->len; r++)
				if (g_array_index(row_end, int64_t, r) <= start) {
					want = r;
					break;
				}
			if (want == row_end->len)
				g_array_append_val(row_end, end);
			else
				g_array_index(row_end, int64_t, want) = end;
			assert_int_equal(tl_lanes_fit_place(f, start, end), want);
		}
		assert_int_equal(tl_lanes_fit_rows(f), row_end->len);
		g_array_free(row_end, TRUE);
		tl_lanes_fit_free(f);
	}
	g_rand_free(rng);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_pick_unequal_counts),
	    cmocka_unit_test(test_label_links_as_scan),
	    cmocka_unit_test(test_rowfit_first_fit),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
