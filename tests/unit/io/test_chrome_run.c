/* Unit tests of io/chrome_run.c: a Chrome trace as one run. timeline.py's
 * devices, args and labels; B/E pairs and nesting; times exact to the ns;
 * Kineto's processes, correlation ids and [memory] events; flow events as
 * launch links; damage costing its event; and every complete event of the
 * real timeline.py files an execution of the model. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "io/chrome_run.h"
#include "base/warn.h"
#include "model/run.h"

#include <glib.h>
#include <jansson.h>
#include <math.h>
#include <string.h>

#include "testdata.h"

static int read_text(const char *json, tl_arena *arena, tl_chrome_run *out, tl_error *err)
{
	return tl_chrome_run_read((const uint8_t *)json, strlen(json), "t.json", arena, out, err);
}

/* The run the model builds of it (the arena passes to the run). */
static tl_run *model_of(const char *json)
{
	tl_arena *arena = tl_arena_new();
	tl_chrome_run cr;
	tl_error err = {{0}};
	if (read_text(json, arena, &cr, &err) != 0)
		fail_msg("read: %s", err.msg);
	tl_run *run = NULL;
	if (tl_run_build(&run, arena, cr.meta, "t.json", &err) < 0)
		fail_msg("build: %s", err.msg);
	return run;
}

static const Tensorflow__DeviceStepStats *dev(const tl_chrome_run *cr, size_t i)
{
	assert_true(i < cr->meta->step_stats->n_dev_stats);
	return cr->meta->step_stats->dev_stats[i];
}

static const char timeline_py[] =
    "{\"traceEvents\":["
    "{\"ph\":\"M\",\"name\":\"process_name\",\"pid\":1,\"args\":{\"name\":"
    "\"/job:localhost/replica:0/task:0/device:GPU:0 Compute\"}},"
    "{\"ph\":\"M\",\"name\":\"process_name\",\"pid\":3,\"args\":{\"name\":"
    "\"/job:localhost/replica:0/task:0/device:GPU:0 Tensors\"}},"
    "{\"ph\":\"M\",\"name\":\"process_name\",\"pid\":5,\"args\":{\"name\":"
    "\"/job:localhost/replica:0/task:0/gpu:0/stream:7 Compute\"}},"
    "{\"ph\":\"X\",\"cat\":\"Op\",\"pid\":1,\"tid\":0,\"name\":\"Const\",\"ts\":10.5,"
    "\"dur\":2.25,\"args\":{\"name\":\"a\",\"op\":\"Const\"}},"
    "{\"ph\":\"X\",\"cat\":\"Op\",\"pid\":1,\"tid\":1,\"name\":\"MatMul\",\"ts\":20,"
    "\"dur\":5,\"args\":{\"name\":\"mm\",\"op\":\"MatMul\",\"input0\":\"a\","
    "\"input1\":\"b:1\"}},"
    "{\"ph\":\"s\",\"cat\":\"DataFlow\",\"id\":0,\"name\":\"a\",\"pid\":1,\"tid\":0,"
    "\"ts\":12.75},"
    "{\"ph\":\"t\",\"cat\":\"DataFlow\",\"id\":0,\"name\":\"a\",\"pid\":1,\"tid\":1,"
    "\"ts\":20},"
    "{\"ph\":\"X\",\"cat\":\"Op\",\"pid\":5,\"tid\":0,\"name\":\"MatMul\",\"ts\":22,"
    "\"dur\":1.001,\"args\":{\"name\":\"mm\",\"op\":\"MatMul\"}}]}";

/* timeline.py: " Compute" processes are the devices, less " Compute"; the
 * args name the node, op and inputs; a stream's record is "node:Op" */
static void test_timeline_py(void **state)
{
	tl_arena *arena = tl_arena_new();
	tl_chrome_run cr;
	tl_error err = {{0}};
	assert_int_equal(read_text(timeline_py, arena, &cr, &err), 0);
	assert_true(cr.dataflow);
	assert_string_equal(cr.kind, "a TF1 timeline.py trace");
	assert_int_equal(cr.links.n, 0); /* its flows are the labels' inputs */
	assert_int_equal(cr.meta->step_stats->n_dev_stats, 2);
	assert_string_equal(dev(&cr, 0)->device, "/job:localhost/replica:0/task:0/device:GPU:0");
	assert_string_equal(dev(&cr, 1)->device, "/job:localhost/replica:0/task:0/gpu:0/stream:7");
	assert_int_equal(dev(&cr, 0)->n_node_stats, 2);
	const Tensorflow__NodeExecStats *a = dev(&cr, 0)->node_stats[0];
	assert_string_equal(a->node_name, "a");
	assert_string_equal(a->timeline_label, "a = Const()");
	assert_int_equal(a->all_start_nanos, 10500);
	assert_int_equal(a->all_end_rel_nanos, 2250);
	const Tensorflow__NodeExecStats *mm = dev(&cr, 0)->node_stats[1];
	assert_string_equal(mm->timeline_label, "mm = MatMul(a, b:1)");
	assert_int_not_equal(a->thread_id, mm->thread_id); /* two timeline.py lanes */
	const Tensorflow__NodeExecStats *k = dev(&cr, 1)->node_stats[0];
	assert_string_equal(k->node_name, "mm:MatMul");
	assert_string_equal(k->timeline_label, "MatMul");
	assert_int_equal(k->all_end_rel_nanos, 1001);
	tl_arena_free(arena);

	/* the model: the kernel's launcher is mm, the label's input a data link */
	tl_run *run = model_of(timeline_py);
	assert_int_equal(run->n_execs, 3);
	const tl_exec *kern = NULL, *op = NULL;
	for (size_t i = 0; i < run->n_execs; i++) {
		if (run->devices[run->execs[i].device].kind == TL_DEV_STREAM)
			kern = &run->execs[i];
		else if (strcmp(run->execs[i].node, "mm") == 0)
			op = &run->execs[i];
	}
	assert_non_null(kern);
	assert_non_null(op);
	assert_string_equal(kern->node, "mm");
	assert_string_equal(kern->op, "MatMul");
	assert_string_equal(op->op, "MatMul");
	assert_true(kern->launcher >= 0);
	assert_ptr_equal(&run->execs[kern->launcher], op);
	tl_run_free(run);
}

/* B/E pairs close the latest open B of their thread; nesting is kept; an E
 * with none open and a B never closed are damage, each costing itself */
static void test_begin_end(void **state)
{
	static const char json[] =
	    "[{\"ph\":\"B\",\"name\":\"outer\",\"pid\":1,\"tid\":1,\"ts\":0},"
	    "{\"ph\":\"B\",\"name\":\"inner\",\"pid\":1,\"tid\":1,\"ts\":1.5},"
	    "{\"ph\":\"B\",\"name\":\"other\",\"pid\":1,\"tid\":2,\"ts\":2},"
	    "{\"ph\":\"E\",\"pid\":1,\"tid\":1,\"ts\":3},"
	    "{\"ph\":\"E\",\"pid\":1,\"tid\":1,\"ts\":10},"
	    "{\"ph\":\"E\",\"pid\":1,\"tid\":1,\"ts\":11},"
	    "{\"ph\":\"X\",\"name\":\"x\",\"pid\":1,\"tid\":1,\"ts\":4,\"dur\":1},"
	    "{\"ph\":\"B\",\"name\":\"open\",\"pid\":1,\"tid\":3,\"ts\":5}]";
	tl_warn_clear();
	tl_arena *arena = tl_arena_new();
	tl_chrome_run cr;
	tl_error err = {{0}};
	assert_int_equal(read_text(json, arena, &cr, &err), 0);
	assert_int_equal(tl_warn_damage_count(), 2); /* the stray E, the open B */
	tl_warn_clear();
	assert_false(cr.dataflow);
	assert_int_equal(cr.meta->step_stats->n_dev_stats, 1);
	assert_string_equal(dev(&cr, 0)->device, "pid 1");
	assert_int_equal(dev(&cr, 0)->n_node_stats, 3); /* inner, outer, x; other never ends */
	const Tensorflow__NodeExecStats *inner = dev(&cr, 0)->node_stats[0];
	const Tensorflow__NodeExecStats *outer = dev(&cr, 0)->node_stats[1];
	assert_string_equal(inner->node_name, "inner");
	assert_int_equal(inner->all_start_nanos, 1500);
	assert_int_equal(inner->all_end_rel_nanos, 1500);
	assert_string_equal(outer->node_name, "outer");
	assert_int_equal(outer->all_end_rel_nanos, 10000);
	tl_arena_free(arena);

	/* under --strict the first damage is the error */
	tl_warn_set_strict(true);
	arena = tl_arena_new();
	assert_int_equal(read_text(json, arena, &cr, &err), -1);
	assert_non_null(strstr(err.msg, "\"E\" events with no open \"B\""));
	tl_arena_free(arena);
	tl_warn_set_strict(false);
	tl_warn_clear();
}

static const char kineto[] =
    "{\"schemaVersion\":1,\"traceEvents\":["
    "{\"ph\":\"X\",\"cat\":\"cpu_op\",\"name\":\"aten::mm\",\"pid\":77,\"tid\":77,"
    "\"ts\":1428625731100.5,\"dur\":50},"
    "{\"ph\":\"X\",\"cat\":\"cuda_runtime\",\"name\":\"cudaLaunchKernel\",\"pid\":77,"
    "\"tid\":77,\"ts\":1428625731110,\"dur\":5,\"args\":{\"correlation\":42}},"
    "{\"ph\":\"X\",\"cat\":\"kernel\",\"name\":\"void gemm<float>(float*)\",\"pid\":0,"
    "\"tid\":7,\"ts\":1428625731120,\"dur\":30,\"args\":{\"correlation\":42,"
    "\"stream\":7}},"
    "{\"ph\":\"s\",\"cat\":\"ac2g\",\"name\":\"ac2g\",\"id\":42,\"pid\":77,\"tid\":77,"
    "\"ts\":1428625731110},"
    "{\"ph\":\"f\",\"cat\":\"ac2g\",\"name\":\"ac2g\",\"id\":42,\"pid\":0,\"tid\":7,"
    "\"ts\":1428625731120,\"bp\":\"e\"},"
    "{\"ph\":\"i\",\"cat\":\"cpu_instant_event\",\"s\":\"t\",\"name\":\"[memory]\","
    "\"pid\":77,\"tid\":77,\"ts\":1428625731112,\"args\":{\"Total Allocated\":4096,"
    "\"Bytes\":4096,\"Addr\":1024,\"Device Id\":0,\"Device Type\":1}},"
    "{\"ph\":\"M\",\"name\":\"process_name\",\"pid\":77,\"args\":{\"name\":\"python3\"}},"
    "{\"ph\":\"M\",\"name\":\"process_labels\",\"pid\":77,\"args\":{\"labels\":\"CPU\"}},"
    "{\"ph\":\"M\",\"name\":\"process_name\",\"pid\":0,\"args\":{\"name\":\"python3\"}},"
    "{\"ph\":\"M\",\"name\":\"process_labels\",\"pid\":0,\"args\":{\"labels\":\"GPU 0\"}},"
    "{\"ph\":\"M\",\"name\":\"thread_name\",\"pid\":0,\"tid\":7,\"args\":{\"name\":"
    "\"stream 7 \"}}]}";

/* Kineto: processes by their labels, the GPU's stream a stream device of
 * its own, its kernel named whole (its C++ name is no "node:Op"), the
 * kernel's launcher the runtime call of its correlation id (the flow says
 * the same: one link), [memory] on the run's clock, no dataflow */
static void test_kineto(void **state)
{
	tl_arena *arena = tl_arena_new();
	tl_chrome_run cr;
	tl_error err = {{0}};
	assert_int_equal(read_text(kineto, arena, &cr, &err), 0);
	assert_false(cr.dataflow);
	assert_string_equal(cr.kind, "a PyTorch profiler (Kineto) trace");
	assert_int_equal(cr.meta->step_stats->n_dev_stats, 2);
	assert_string_equal(dev(&cr, 0)->device, "/host:CPU");
	assert_string_equal(dev(&cr, 1)->device, "/device:GPU:0/stream:7");
	assert_int_equal(dev(&cr, 1)->n_thread_names, 1);
	assert_string_equal(dev(&cr, 1)->thread_names[0]->value, "stream 7 ");
	assert_string_equal(dev(&cr, 1)->node_stats[0]->node_name, "void gemm<float>(float*)");
	assert_non_null(cr.links.whole);
	assert_int_equal(cr.links.whole[2], 1); /* the kernel, third in the file */
	assert_int_equal(cr.links.whole[0] + cr.links.whole[1], 0);
	/* epoch microseconds with a fraction, exact */
	assert_int_equal(dev(&cr, 0)->node_stats[0]->all_start_nanos, 1428625731100500);
	assert_int_equal(cr.links.n, 1);
	assert_ptr_equal(&cr.links.recs[cr.links.pairs[0]], dev(&cr, 1)->node_stats[0]);
	assert_ptr_equal(&cr.links.recs[cr.links.pairs[1]], dev(&cr, 0)->node_stats[1]);
	assert_int_equal(cr.allocs.n, 1);
	assert_int_equal(cr.allocs.ev[0].t_ns, 1428625731112000);
	assert_int_equal(cr.allocs.ev[0].total_allocated, 4096);
	tl_arena_free(arena);
}

/* Kineto: a stream's label over its kernels (gpu_user_annotation) and its
 * syncs stay on the GPU's device, only its kernels, copies and memsets go
 * to the stream's; a GPU named by process_name alone is one too */
static void test_kineto_stream_split(void **state)
{
	static const char json[] =
	    "{\"traceEvents\":["
	    "{\"ph\":\"X\",\"cat\":\"gpu_user_annotation\",\"name\":\"ProfilerStep#1\",\"pid\":3,"
	    "\"tid\":\"stream 9\",\"ts\":10,\"dur\":100},"
	    "{\"ph\":\"X\",\"cat\":\"Memset\",\"name\":\"Memset (Device)\",\"pid\":3,"
	    "\"tid\":\"stream 9\",\"ts\":20,\"dur\":1},"
	    "{\"ph\":\"X\",\"cat\":\"cuda_sync\",\"name\":\"Stream Sync\",\"pid\":3,"
	    "\"tid\":\"stream 9\",\"ts\":30,\"dur\":1},"
	    "{\"ph\":\"M\",\"name\":\"process_name\",\"pid\":3,\"args\":{\"name\":\"GPU 3\"}}]}";
	tl_arena *arena = tl_arena_new();
	tl_chrome_run cr;
	tl_error err = {{0}};
	assert_int_equal(read_text(json, arena, &cr, &err), 0);
	assert_int_equal(cr.meta->step_stats->n_dev_stats, 2);
	assert_string_equal(dev(&cr, 0)->device, "/device:GPU:3");
	assert_int_equal(dev(&cr, 0)->n_node_stats, 2);
	assert_string_equal(dev(&cr, 1)->device, "/device:GPU:3/stream:9");
	assert_int_equal(dev(&cr, 1)->n_node_stats, 1);
	assert_string_equal(dev(&cr, 1)->node_stats[0]->timeline_label, "Memset (Device)");
	tl_arena_free(arena);
}

/* TF2 trace viewer JSON: no cat; a kernel on a "Stream #N" line links to
 * the host event of its correlation_id (a string of digits), not to a
 * host event of another id; its node and op are its tf_op's */
static void test_tf2_correlation(void **state)
{
	static const char json[] =
	    "{\"displayTimeUnit\":\"ns\",\"traceEvents\":["
	    "{\"ph\":\"M\",\"pid\":1,\"name\":\"process_name\",\"args\":{\"name\":\"/"
	    "device:GPU:0\"}},"
	    "{\"ph\":\"M\",\"pid\":1,\"tid\":13,\"name\":\"thread_name\",\"args\":{\"name\":"
	    "\"Stream #13(Compute)\"}},"
	    "{\"ph\":\"M\",\"pid\":501,\"name\":\"process_name\",\"args\":{\"name\":\"/"
	    "host:CPU\"}},"
	    "{\"ph\":\"X\",\"pid\":1,\"tid\":13,\"ts\":5.5,\"dur\":2.25,\"name\":\"volta_sgemm\","
	    "\"args\":{\"correlation_id\":\"4\",\"tf_op\":\"d/MatMul:MatMul\"}},"
	    "{\"ph\":\"X\",\"pid\":501,\"tid\":8,\"ts\":1,\"dur\":3,\"name\":"
	    "\"cuStreamSynchronize\","
	    "\"args\":{\"correlation_id\":\"5\"}},"
	    "{\"ph\":\"X\",\"pid\":501,\"tid\":8,\"ts\":4,\"dur\":1,\"name\":\"cuLaunchKernel\","
	    "\"args\":{\"correlation_id\":\"4\"}},{}]}";
	tl_arena *arena = tl_arena_new();
	tl_chrome_run cr;
	tl_error err = {{0}};
	assert_int_equal(read_text(json, arena, &cr, &err), 0);
	assert_string_equal(dev(&cr, 0)->device, "/device:GPU:0/stream:13");
	assert_string_equal(dev(&cr, 0)->node_stats[0]->node_name, "d/MatMul:MatMul");
	assert_int_equal(cr.links.n, 1);
	assert_ptr_equal(&cr.links.recs[cr.links.pairs[0]], dev(&cr, 0)->node_stats[0]);
	assert_ptr_equal(&cr.links.recs[cr.links.pairs[1]], dev(&cr, 1)->node_stats[1]);
	assert_null(cr.links.whole);
	tl_arena_free(arena);
}

/* flow events of other files: s binds to the slice around it, f (no bp) to
 * the next slice on its thread; each the next one's launcher */
static void test_flows(void **state)
{
	static const char json[] =
	    "[{\"ph\":\"X\",\"name\":\"A\",\"pid\":1,\"tid\":1,\"ts\":0,\"dur\":10},"
	    "{\"ph\":\"X\",\"name\":\"A2\",\"pid\":1,\"tid\":1,\"ts\":2,\"dur\":3},"
	    "{\"ph\":\"X\",\"name\":\"B\",\"pid\":2,\"tid\":1,\"ts\":20,\"dur\":1},"
	    "{\"ph\":\"s\",\"id\":\"9\",\"cat\":\"c\",\"pid\":1,\"tid\":1,\"ts\":4},"
	    "{\"ph\":\"f\",\"id\":\"9\",\"cat\":\"c\",\"pid\":2,\"tid\":1,\"ts\":15},"
	    "{\"ph\":\"s\",\"id\":\"9\",\"cat\":\"other\",\"pid\":1,\"tid\":1,\"ts\":50}]";
	tl_arena *arena = tl_arena_new();
	tl_chrome_run cr;
	tl_error err = {{0}};
	assert_int_equal(read_text(json, arena, &cr, &err), 0);
	assert_int_equal(cr.links.n, 1);
	assert_string_equal(cr.links.recs[cr.links.pairs[0]].node_name, "B");
	/* the innermost around ts 4 */
	assert_string_equal(cr.links.recs[cr.links.pairs[1]].node_name, "A2");
	tl_arena_free(arena);
}

/* damage: a slice without a usable time is skipped with a warning; invalid
 * JSON after some events keeps them; none at all is an error */
static void test_damage(void **state)
{
	tl_warn_clear();
	tl_arena *arena = tl_arena_new();
	tl_chrome_run cr;
	tl_error err = {{0}};
	static const char bad_times[] =
	    "[{\"ph\":\"X\",\"name\":\"ok\",\"pid\":1,\"tid\":1,\"ts\":1,\"dur\":1},"
	    "{\"ph\":\"X\",\"name\":\"no ts\",\"pid\":1,\"tid\":1,\"dur\":1},"
	    "{\"ph\":\"X\",\"name\":\"neg\",\"pid\":1,\"tid\":1,\"ts\":1,\"dur\":-1},"
	    "{\"ph\":\"X\",\"name\":\"far\",\"pid\":1,\"tid\":1,\"ts\":1e300,\"dur\":1}";
	assert_int_equal(read_text(bad_times, arena, &cr, &err), 0);
	assert_int_equal(dev(&cr, 0)->n_node_stats, 1);
	assert_int_equal(tl_warn_damage_count(), 1);
	tl_warn_clear();
	static const char cut[] =
	    "[{\"ph\":\"X\",\"name\":\"ok\",\"pid\":1,\"tid\":1,\"ts\":1,\"dur\":1},"
	    "{\"ph\":\"X\",\"name\":\"ok2\",\"pid\":1,\"tid\":1,\"ts\":3,\"dur\":1},"
	    "{\"ph\":\"X\",\"name\":";
	assert_int_equal(read_text(cut, arena, &cr, &err), 0);
	assert_int_equal(dev(&cr, 0)->n_node_stats, 2);
	assert_int_equal(tl_warn_damage_count(), 1);
	tl_warn_clear();
	static const char none[] = "{\"traceEvents\":[{\"ph\":\"i\",\"name\":\"x\",\"ts\":1}]}";
	assert_int_equal(read_text(none, arena, &cr, &err), -1);
	assert_non_null(strstr(err.msg, "no complete events"));
	assert_int_equal(read_text("{\"traceEvents\":[{\"ph\":", arena, &cr, &err), -1);
	assert_non_null(strstr(err.msg, "invalid JSON"));
	tl_arena_free(arena);
	tl_warn_clear();
}

/* two processes of one name stay two devices */
static void test_same_name(void **state)
{
	static const char json[] =
	    "[{\"ph\":\"M\",\"name\":\"process_name\",\"pid\":1,\"args\":{\"name\":\"worker\"}},"
	    "{\"ph\":\"M\",\"name\":\"process_name\",\"pid\":2,\"args\":{\"name\":\"worker\"}},"
	    "{\"ph\":\"X\",\"name\":\"a\",\"pid\":1,\"tid\":1,\"ts\":1,\"dur\":1},"
	    "{\"ph\":\"X\",\"name\":\"b\",\"pid\":2,\"tid\":1,\"ts\":1,\"dur\":1}]";
	tl_arena *arena = tl_arena_new();
	tl_chrome_run cr;
	tl_error err = {{0}};
	assert_int_equal(read_text(json, arena, &cr, &err), 0);
	assert_int_equal(cr.meta->step_stats->n_dev_stats, 2);
	assert_string_equal(dev(&cr, 0)->device, "worker");
	assert_string_equal(dev(&cr, 1)->device, "worker (pid 2)");
	tl_arena_free(arena);
}

/* every complete event of the real timeline.py and Kineto files is an
 * execution of the model, at its exact time */
static void test_real_files(void **state)
{
	char *dir = td_data("real");
	GPtrArray *paths = td_list(dir, ".json", NULL);
	assert_true(paths->len >= 7);
	for (guint i = 0; i < paths->len; i++) {
		const char *path = g_ptr_array_index(paths, i);
		GBytes *b = td_load(path);
		gsize len;
		const char *data = g_bytes_get_data(b, &len);
		json_error_t jerr;
		json_t *doc = json_loadb(data, len, 0, &jerr);
		json_t *events = json_is_array(doc) ? doc : json_object_get(doc, "traceEvents");
		size_t n_x = 0;
		int64_t first = INT64_MAX;
		for (size_t k = 0; k < json_array_size(events); k++) {
			json_t *e = json_array_get(events, k);
			const char *ph = json_string_value(json_object_get(e, "ph"));
			if (ph == NULL || strcmp(ph, "X") != 0)
				continue;
			n_x++;
			double ts = json_number_value(json_object_get(e, "ts"));
			int64_t ns =
			    (int64_t)ts * 1000 + llround((ts - (double)(int64_t)ts) * 1000);
			if (ns < first)
				first = ns;
		}
		tl_run *run = td_run_of_file(path);
		assert_int_equal(run->n_execs, n_x);
		assert_int_equal(run->t_begin, first);
		tl_run_free(run);
		json_decref(doc);
		g_bytes_unref(b);
	}
	g_ptr_array_free(paths, TRUE);
	g_free(dir);
}

int main(void)
{
	td_filter();
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_timeline_py),	    cmocka_unit_test(test_begin_end),
	    cmocka_unit_test(test_kineto),	    cmocka_unit_test(test_kineto_stream_split),
	    cmocka_unit_test(test_tf2_correlation), cmocka_unit_test(test_flows),
	    cmocka_unit_test(test_damage),	    cmocka_unit_test(test_same_name),
	    cmocka_unit_test(test_real_files),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
