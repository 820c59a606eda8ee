/* Unit tests of model/run.c: device names, labels, and runs built from real
 * and generated dumps. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "model/run.h"
#include "io/source.h"

#include <glib.h>
#include <string.h>

#include "testdata.h"

/* The first run of a file of the repository's tests/data. */
static tl_run *load(const char *rel)
{
	char *path = td_data(rel);
	tl_run *run = td_run_of_file(path);
	g_free(path);
	return run;
}

/* Old and new spellings of a device end up as one name. */
static void test_normalize(void **state)
{
	(void)state;
	tl_arena *a = tl_arena_new();
	assert_string_equal(tl_run_device_normalize(a, "/job:localhost/replica:0/task:0/cpu:0"),
			    "/job:localhost/replica:0/task:0/device:CPU:0");
	assert_string_equal(
	    tl_run_device_normalize(a, "/job:localhost/replica:0/task:0/device:GPU:1"),
	    "/job:localhost/replica:0/task:0/device:GPU:1");
	assert_string_equal(tl_run_device_normalize(a, "/gpu:0/stream:12"),
			    "/device:GPU:0/stream:12");
	assert_string_equal(tl_run_device_normalize(a, "/gpu:0/memcpy"), "/device:GPU:0/memcpy");
	assert_string_equal(tl_run_device_normalize(a, "/job:worker/replica:0/task:3/gpu:2"),
			    "/job:worker/replica:0/task:3/device:GPU:2");
	assert_string_equal(tl_run_device_normalize(a, ""), "");
	assert_int_equal(tl_run_device_kind_of("/device:GPU:0/stream:all"), TL_DEV_STREAM_ALL);
	assert_int_equal(tl_run_device_kind_of("/device:GPU:0/stream:7"), TL_DEV_STREAM);
	assert_int_equal(tl_run_device_kind_of("/device:GPU:0/memcpy"), TL_DEV_MEMCPY);
	assert_int_equal(tl_run_device_kind_of("/device:GPU:0/sync"), TL_DEV_SYNC);
	assert_int_equal(tl_run_device_kind_of("/job:localhost/replica:0/task:0/device:CPU:0"),
			 TL_DEV_EXECUTOR);
	tl_arena_free(a);
}

/* Op labels parse as timeline.py's greedy regex does. */
static void test_op_label(void **state)
{
	(void)state;
	tl_arena *a = tl_arena_new();
	const char *name, *op, **in;
	size_t n;
	assert_true(tl_run_op_label_parse(a, "x = MatMul(a, b:1, ^c)", &name, &op, &in, &n));
	assert_string_equal(name, "x");
	assert_string_equal(op, "MatMul");
	assert_int_equal(n, 3);
	assert_string_equal(in[1], "b:1");
	assert_string_equal(in[2], "^c");
	assert_true(tl_run_op_label_parse(a, "[cpu 49.0MB 49.0MB] v/VariableV2 = VariableV2()",
					  &name, &op, &in, &n));
	assert_string_equal(name, "v/VariableV2");
	assert_string_equal(op, "VariableV2");
	assert_int_equal(n, 0);
	assert_false(tl_run_op_label_parse(a, "no label here", &name, &op, &in, &n));
	assert_false(tl_run_op_label_parse(a, NULL, &name, &op, &in, &n));
	/* the last " = " before the ')' splits, overlapping ones too */
	assert_true(tl_run_op_label_parse(a, "a = b = Op(x)", &name, &op, &in, &n));
	assert_string_equal(name, "a = b");
	assert_string_equal(op, "Op");
	assert_true(tl_run_op_label_parse(a, "x = = Op()", &name, &op, &in, &n));
	assert_string_equal(name, "x =");
	assert_string_equal(op, "Op");
	assert_true(tl_run_op_label_parse(a, " = F()", &name, &op, &in, &n));
	assert_string_equal(name, "");
	assert_string_equal(op, "F");
	assert_false(tl_run_op_label_parse(a, "x = F", &name, &op, &in, &n));
	assert_false(tl_run_op_label_parse(a, "F() = x", &name, &op, &in, &n));
	assert_false(tl_run_op_label_parse(a, "=)", &name, &op, &in, &n));
	tl_arena_free(a);
}

/* timeline.py's r"(.*) = (.*)\((.*)\)" read the slow way, as the greedy
 * regex does: the last ')', the last " = " before it, the last '(' between
 * them. The op, or NULL. */
static char *regex_op(const char *label)
{
	const char *close = strrchr(label, ')');
	if (close == NULL)
		return NULL;
	const char *eq = NULL;
	for (const char *p = label; p + 3 <= close; p++)
		if (p[0] == ' ' && p[1] == '=' && p[2] == ' ')
			eq = p;
	if (eq == NULL)
		return NULL;
	const char *open = NULL;
	for (const char *p = eq + 3; p < close; p++)
		if (*p == '(')
			open = p;
	return open != NULL ? g_strndup(eq + 3, (size_t)(open - (eq + 3))) : NULL;
}

/* Labels made of the characters that matter, many of them of the usual
 * shape "name = Op()" whose op the parser finds from the end: the op is
 * what the regex takes, whichever way it is found. */
static void test_op_label_random(void **state)
{
	(void)state;
	static const char alphabet[] = "ab_ =()9:";
	tl_arena *a = tl_arena_new();
	GRand *r = g_rand_new_with_seed(11);
	for (int i = 0; i < 200000; i++) {
		char label[16];
		int n = g_rand_int_range(r, 0, 15);
		for (int k = 0; k < n; k++)
			label[k] = alphabet[g_rand_int_range(r, 0, (gint32)sizeof alphabet - 1)];
		label[n] = '\0';
		if (i % 2 == 0 && n < 11) /* the usual tail */
			g_strlcat(label, g_rand_boolean(r) ? " = b()" : "()", sizeof label);
		const char *op = NULL;
		char *want = regex_op(label);
		bool got = tl_run_op_label_parse(a, label, NULL, &op, NULL, NULL);
		if (want == NULL)
			assert_false(got);
		else if (!got || strcmp(op, want) != 0)
			fail_msg("label '%s': want op '%s', got '%s'", label, want,
				 got ? op : "(none)");
		g_free(want);
	}
	g_rand_free(r);
	tl_arena_free(a);
}

/* Kernel labels: the @@node:Op#...# annotation wins, else node_name. */
static void test_kernel_label(void **state)
{
	(void)state;
	tl_arena *a = tl_arena_new();
	const char *name, *op;
	tl_run_kernel_label_parse(a, "void k<float>(x) regs:1@@conv/Relu:Relu#id=3#", "ignored:X",
				  &name, &op);
	assert_string_equal(name, "conv/Relu");
	assert_string_equal(op, "Relu");
	tl_run_kernel_label_parse(a, "MEMCPYDtoH 400 bytes", "edge_9_x:MEMCPYDtoH", &name, &op);
	assert_string_equal(name, "edge_9_x");
	assert_string_equal(op, "MEMCPYDtoH");
	tl_run_kernel_label_parse(a, "k@@a/b:Relu", "a/b:Relu", &name, &op);
	assert_string_equal(name, "a/b");
	assert_string_equal(op, "Relu");
	tl_arena_free(a);
}

/* A GPU run with partition graphs and a memcpy device: `n_devices`
 * devices named by their normalized names, the memcpy device tied to the
 * GPU, Send/Recv pairs matched, copies linked to an op of the GPU that
 * launched them (every copy where `all_copies` says so), and every executor
 * exec of a node in the graphs tied to its node. */
static void check_gpu_run(tl_run *run, size_t n_devices, bool all_copies)
{
	assert_true(run->has_graphs);
	assert_int_equal(run->n_devices, n_devices);
	int gpu = -1, memcpy_dev = -1;
	for (size_t d = 0; d < run->n_devices; d++) {
		const char *name = run->devices[d].name;
		if (g_str_has_suffix(name, "/device:GPU:0"))
			gpu = (int)d;
		if (g_str_has_suffix(name, "/device:GPU:0/memcpy"))
			memcpy_dev = (int)d;
	}
	assert_true(gpu >= 0);
	assert_true(memcpy_dev >= 0);
	assert_int_equal(run->devices[memcpy_dev].executor, gpu);
	size_t transfers = 0;
	for (size_t e = 0; e < run->n_edges; e++)
		if (run->edges[e].kind == TL_EDGE_TRANSFER) {
			transfers++;
			assert_non_null(strstr(run->nodes[run->edges[e].src].op, "Send"));
			assert_non_null(strstr(run->nodes[run->edges[e].dst].op, "Recv"));
		}
	assert_true(transfers > 0);
	const tl_device *mc = &run->devices[memcpy_dev];
	size_t copies_linked = 0;
	for (uint32_t i = mc->first_exec; i < mc->first_exec + mc->n_exec; i++) {
		int32_t l = run->execs[i].launcher;
		if (all_copies)
			assert_true(l >= 0);
		if (l >= 0)
			assert_int_equal(run->execs[l].device, gpu);
		copies_linked += l >= 0;
	}
	assert_true(copies_linked > 0);
	/* _SOURCE is absent from partition graphs, and so is the executor's
	 * RecvTensor (the RPC that serves a remote _Recv) */
	size_t linked = 0;
	for (size_t i = 0; i < run->n_execs; i++) {
		const tl_exec *e = &run->execs[i];
		if (run->devices[e->device].kind != TL_DEV_EXECUTOR)
			continue;
		if (e->gnode >= 0)
			linked++;
		else if (strcmp(e->node, "_SOURCE") != 0 && strcmp(e->node, "RecvTensor") != 0)
			fail_msg("exec of '%s' has no graph node", e->node);
	}
	assert_true(linked > 0);
}

/* Proves: check_gpu_run on a generated GPU run (CUPTI-style /stream:all,
 * /stream:N and /memcpy devices). Its copies are named, as TensorFlow >= 1.4
 * names them, after the op that issued them; a device-to-host copy issued by
 * a _Recv on the CPU is linked to no GPU op. */
static void test_gpu_run(void **state)
{
	(void)state;
	tl_run *run = load("oracle/gen_g1_s1.pb");
	check_gpu_run(run, 8, false);
	tl_run_free(run);
}

/* Proves: check_gpu_run on the real TF 1.0 GPU dump, whose legacy names
 * (/job:localhost/replica:0/task:0/gpu:0, /gpu:0/memcpy) are normalized
 * (skipped where there is no shared folder: its source has no licence). */
static void test_shared_gpu_run(void **state)
{
	(void)state;
	char *path = td_shared("realdata", "yaroslavvb_dynamic_stitch_gpu_runmeta.pbtxt");
	tl_run *run = td_run_of_file(path);
	g_free(path);
	check_gpu_run(run, 5, true);
	bool legacy_gpu = false, legacy_memcpy = false;
	for (size_t d = 0; d < run->n_devices; d++) {
		legacy_gpu |= strcmp(run->devices[d].name,
				     "/job:localhost/replica:0/task:0/device:GPU:0") == 0;
		legacy_memcpy |= strcmp(run->devices[d].name, "/device:GPU:0/memcpy") == 0;
	}
	assert_true(legacy_gpu && legacy_memcpy);
	tl_run_free(run);
}

/* A generated run with a loop: the looping node's executions are ranked. */
static void test_loop_iterations(void **state)
{
	(void)state;
	tl_run *run = load("oracle/gen_g1_s1.pb");
	size_t looped = 0;
	for (size_t n = 0; n < run->n_nodes; n++) {
		const tl_gnode *g = &run->nodes[n];
		if (g->n_exec < 2)
			continue;
		looped++;
		for (uint32_t k = 0; k < g->n_exec; k++) {
			const tl_exec *e = &run->execs[run->node_execs[g->first_exec + k]];
			assert_int_equal(e->iter, k);
			if (k > 0)
				assert_true(
				    e->start >=
				    run->execs[run->node_execs[g->first_exec + k - 1]].start);
		}
	}
	assert_true(looped >= 1);
	assert_true(run->has_nanos);
	tl_run_free(run);
}

/* Proves: a graph node's op is its NodeDef's op, and the nodes of one op
 * share one string (model/run_graph.c keeps each op once, off the input);
 * an execution of a node has the node's name (its copy, not the input's). */
static void test_ops_shared(void **state)
{
	(void)state;
	tl_run *run = load("oracle/gen_g1_s1.pb");
	size_t shared = 0;
	for (size_t n = 0; n < run->n_nodes; n++) {
		const tl_gnode *g = &run->nodes[n];
		assert_string_equal(g->op, g->def->op != NULL ? g->def->op : "");
		assert_true(g->op != g->def->op);
		for (size_t m = 0; m < n; m++) {
			if (strcmp(run->nodes[m].op, g->op) != 0)
				continue;
			assert_ptr_equal(run->nodes[m].op, g->op);
			shared++;
			break;
		}
	}
	assert_true(shared > 0);
	/* an execution of a graph node names it by the node's own copy */
	size_t linked = 0;
	for (size_t i = 0; i < run->n_execs; i++) {
		const tl_exec *e = &run->execs[i];
		if (e->gnode < 0)
			continue;
		assert_ptr_equal(e->node, run->nodes[e->gnode].name);
		assert_string_equal(e->node, e->ns->node_name);
		assert_true(run->nodes[e->gnode].name != run->nodes[e->gnode].def->name);
		linked++;
	}
	assert_true(linked > 0);
	tl_run_free(run);
}

/* A bare StepStats becomes a run without graphs. */
static void test_stepstats_only(void **state)
{
	(void)state;
	tl_run *run = load("real/gradckpt_simple_stepstats.pbtxt");
	assert_false(run->has_graphs);
	assert_true(run->has_steps);
	assert_int_equal(run->n_devices, 1);
	assert_int_equal(run->n_execs, 23);
	tl_run_free(run);
}

static const tl_exec *exec_named(const tl_run *run, const char *device, const char *node)
{
	for (size_t i = 0; i < run->n_execs; i++)
		if (strcmp(run->devices[run->execs[i].device].name, device) == 0 &&
		    strcmp(run->execs[i].ns->node_name, node) == 0)
			return &run->execs[i];
	return NULL;
}

/* TF 1.3's GPU tracer rows carry nanoseconds in scheduled_micros: every
 * record is kept and the field is read as nanoseconds, on streams, stream:all
 * and memcpy; on an executor the same value is out of range and ignored, the
 * execution kept; a microsecond value before the start stays as it is. */
static void test_tf13_scheduled_nanos(void **state)
{
	(void)state;
	tl_warn_clear();
	tl_run *run = td_run_of_text(
	    "step_stats { dev_stats { device: \"/job:localhost/replica:0/task:0/gpu:0\"\n"
	    "  node_stats { node_name: \"conv\" all_start_micros: 1504000000000100\n"
	    "    all_end_rel_micros: 50 scheduled_micros: 1504000000000090 }\n"
	    "  node_stats { node_name: \"odd\" all_start_micros: 1504000000000200\n"
	    "    all_end_rel_micros: 5 scheduled_micros: 1504000000000190123 } }\n"
	    " dev_stats { device: \"/gpu:0/stream:14\"\n"
	    "  node_stats { node_name: \"conv:Conv2D\" all_start_micros: 1504000000000120\n"
	    "    op_end_rel_micros: 30 all_end_rel_micros: 30\n"
	    "    scheduled_micros: 1504000000000101234 } }\n"
	    " dev_stats { device: \"/gpu:0/stream:all\"\n"
	    "  node_stats { node_name: \"conv:Conv2D\" all_start_micros: 1504000000000120\n"
	    "    op_end_rel_micros: 30 all_end_rel_micros: 30\n"
	    "    scheduled_micros: 1504000000000101234 } }\n"
	    " dev_stats { device: \"/gpu:0/memcpy\"\n"
	    "  node_stats { node_name: \"edge_1_x:MEMCPYHtoD\" all_start_micros: 1504000000000105\n"
	    "    all_end_rel_micros: 2 scheduled_micros: 1504000000000102000 }\n"
	    "  node_stats { node_name: \"early\" all_start_micros: 1504000000000110\n"
	    "    all_end_rel_micros: 2 scheduled_micros: 1504000000000100 } } }\n",
	    "t");
	assert_int_equal(run->n_execs, 6);
	const tl_exec *k = exec_named(run, "/device:GPU:0/stream:14", "conv:Conv2D");
	assert_non_null(k);
	assert_int_equal(k->ns->scheduled_micros, 1504000000000101);
	k = exec_named(run, "/device:GPU:0/stream:all", "conv:Conv2D");
	assert_int_equal(k->ns->scheduled_micros, 1504000000000101);
	k = exec_named(run, "/device:GPU:0/memcpy", "edge_1_x:MEMCPYHtoD");
	assert_int_equal(k->ns->scheduled_micros, 1504000000000102);
	k = exec_named(run, "/device:GPU:0/memcpy", "early");
	assert_int_equal(k->ns->scheduled_micros, 1504000000000100);
	const tl_exec *x = exec_named(run, "/job:localhost/replica:0/task:0/device:GPU:0", "odd");
	assert_non_null(x);
	assert_int_equal(x->ns->scheduled_micros, 0);
	assert_int_equal(x->end - x->start, 5000);
	x = exec_named(run, "/job:localhost/replica:0/task:0/device:GPU:0", "conv");
	assert_int_equal(x->ns->scheduled_micros, 1504000000000090);
	assert_int_equal(tl_warn_count("scheduled-range"), 1);
	assert_int_equal(tl_warn_count("start-range"), 0);
	tl_warn_clear();
	tl_run_free(run);
}

/* Only the start and the end cost an execution; the compute span and the
 * nanosecond copies are ignored when out of range, each warning naming its
 * field. */
static void test_field_ranges(void **state)
{
	(void)state;
	tl_warn_clear();
	tl_run *run = td_run_of_text(
	    "step_stats { dev_stats { device: \"/job:localhost/replica:0/task:0/device:CPU:0\"\n"
	    "  node_stats { node_name: \"ok\" all_start_micros: 1000 op_start_rel_micros: 1\n"
	    "    op_end_rel_micros: 4 all_end_rel_micros: 5 }\n"
	    "  node_stats { node_name: \"bad_op_start\" all_start_micros: 2000\n"
	    "    op_start_rel_micros: -9223372036854775807 op_end_rel_micros: 4\n"
	    "    all_end_rel_micros: 6 }\n"
	    "  node_stats { node_name: \"bad_op_end\" all_start_micros: 3000\n"
	    "    op_start_rel_micros: 1 op_end_rel_micros: 9223372036854775807\n"
	    "    all_end_rel_micros: 7 }\n"
	    "  node_stats { node_name: \"bad_nanos\" all_start_micros: 4000\n"
	    "    all_end_rel_micros: 8 all_start_nanos: 9223372036854775807\n"
	    "    all_end_rel_nanos: 8000 }\n"
	    "  node_stats { node_name: \"bad_op_nanos\" all_start_micros: 5000\n"
	    "    all_end_rel_micros: 9 all_start_nanos: 5000123 all_end_rel_nanos: 9000\n"
	    "    op_start_rel_nanos: 9223372036854775807 op_end_rel_nanos: 100 }\n"
	    "  node_stats { node_name: \"bad_start\" all_start_micros: 9223372036854775807\n"
	    "    all_end_rel_micros: 1 }\n"
	    "  node_stats { node_name: \"bad_end\" all_start_micros: 6000\n"
	    "    all_end_rel_micros: 9223372036854775807 } } }\n",
	    "t");
	const char *cpu = "/job:localhost/replica:0/task:0/device:CPU:0";
	assert_int_equal(run->n_execs, 5);
	assert_null(exec_named(run, cpu, "bad_start"));
	assert_null(exec_named(run, cpu, "bad_end"));
	assert_int_equal(tl_warn_count("start-range"), 1);
	assert_int_equal(tl_warn_count("end-range"), 1);
	const tl_exec *e = exec_named(run, cpu, "bad_op_start");
	assert_non_null(e);
	assert_int_equal(e->op_start, e->start);
	assert_int_equal(e->ns->op_start_rel_micros, 0);
	assert_int_equal(e->op_end - e->start, 4000);
	e = exec_named(run, cpu, "bad_op_end");
	assert_int_equal(e->op_end, e->end);
	assert_int_equal(e->ns->op_end_rel_micros, 7);
	assert_int_equal(tl_warn_count("op-start-range"), 1);
	assert_int_equal(tl_warn_count("op-end-range"), 1);
	e = exec_named(run, cpu, "bad_nanos");
	assert_int_equal(e->start, 4000000);
	assert_int_equal(e->end, 4008000);
	assert_int_equal(tl_warn_count("start-nanos-range"), 1);
	e = exec_named(run, cpu, "bad_op_nanos");
	assert_int_equal(e->start, 5000123);
	assert_int_equal(e->op_start, e->start);
	assert_int_equal(e->op_end - e->start, 100);
	assert_int_equal(tl_warn_count("op-start-nanos-range"), 1);
	tl_warn_clear();
	tl_run_free(run);
}

/* One graph without placement serves every executor, so a node runs on two
 * devices: a GPU kernel is launched by that node's execution on the GPU,
 * never by the CPU's, even where only the CPU's started before it. */
static void test_launcher_lone_graph(void **state)
{
	tl_run *run = td_run_of_text(
	    "step_stats {\n"
	    " dev_stats { device: \"/job:localhost/replica:0/task:0/device:CPU:0\"\n"
	    "  node_stats { node_name: \"a\" all_start_micros: 100 op_end_rel_micros: 10\n"
	    "    all_end_rel_micros: 10 } }\n"
	    " dev_stats { device: \"/job:localhost/replica:0/task:0/device:GPU:0\"\n"
	    "  node_stats { node_name: \"a\" all_start_micros: 200 op_end_rel_micros: 10\n"
	    "    all_end_rel_micros: 10 } }\n"
	    " dev_stats { device: \"/job:localhost/replica:0/task:0/device:GPU:0/stream:7\"\n"
	    "  node_stats { node_name: \"a:MatMul\" all_start_micros: 150\n"
	    "    all_end_rel_micros: 40 timeline_label: \"MatMul\" }\n"
	    "  node_stats { node_name: \"a:MatMul\" all_start_micros: 230\n"
	    "    all_end_rel_micros: 40 timeline_label: \"MatMul\" } } }\n"
	    "partition_graphs { node { name: \"a\" op: \"MatMul\" } }\n",
	    "t");
	const char *gpu = "/job:localhost/replica:0/task:0/device:GPU:0";
	const tl_exec *cpu_a = exec_named(run, "/job:localhost/replica:0/task:0/device:CPU:0", "a");
	const tl_exec *gpu_a = exec_named(run, gpu, "a");
	assert_non_null(cpu_a);
	assert_non_null(gpu_a);
	assert_int_equal(cpu_a->gnode, gpu_a->gnode);
	size_t kernels = 0;
	for (size_t i = 0; i < run->n_execs; i++) {
		const tl_exec *k = &run->execs[i];
		if (run->devices[k->device].kind != TL_DEV_STREAM)
			continue;
		assert_int_equal(k->launcher, gpu_a - run->execs);
		kernels++;
	}
	assert_int_equal(kernels, 2);
	tl_run_free(run);
}

int main(void)
{
	td_filter();
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_normalize),
	    cmocka_unit_test(test_op_label),
	    cmocka_unit_test(test_op_label_random),
	    cmocka_unit_test(test_kernel_label),
	    cmocka_unit_test(test_gpu_run),
	    cmocka_unit_test(test_shared_gpu_run),
	    cmocka_unit_test(test_loop_iterations),
	    cmocka_unit_test(test_ops_shared),
	    cmocka_unit_test(test_stepstats_only),
	    cmocka_unit_test(test_tf13_scheduled_nanos),
	    cmocka_unit_test(test_field_ranges),
	    cmocka_unit_test(test_launcher_lone_graph),
	};
	return cmocka_run_group_tests_name("model", tests, NULL, NULL);
}
