/* Unit tests of cli/run.c, the run-by-run driver (tl_cli_run with `run`
 * set), by what it promises in cli.h, on inputs made here: a TFRecord
 * stream of three runs (each a RunMetadata whose one device has one
 * execution) and a file of garbage. A tool records every call it gets.
 *   - the calls come in the promised order: begin once, then each run with
 *     its index, its input and `several`, then end; the output holds what
 *     the callbacks wrote, in that order, at the -o path;
 *   - `several` is known from the first run: false for a stream of one;
 *   - an input that does not read after a good one: exit 1, no -o file,
 *     and end is not called;
 *   - a run the tool refuses: exit 1, no -o file, no later run given;
 *   - a run the tool keeps (*run set to NULL) is the tool's to free. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "cli/cli.h"
#include "io/tfrecord.h"

#include <getopt.h>
#include <glib.h>
#include <glib/gstdio.h>
#include <string.h>

#include "tmpdir.h"

struct tool_log {
	GString *calls;
	int refuse_at; /* the index of the run refused, or -1 */
	tl_run *kept;  /* a run the tool kept */
};

/* A stream of `n` runs: run k's one execution is named "op_k". */
static char *stream_of(const char *name, int n)
{
	GByteArray *file = g_byte_array_new();
	for (int k = 0; k < n; k++) {
		char node[16];
		g_snprintf(node, sizeof node, "op_%d", k);
		Tensorflow__NodeExecStats ns = TENSORFLOW__NODE_EXEC_STATS__INIT;
		ns.node_name = node;
		ns.all_start_micros = 1000 + 100 * k;
		ns.op_end_rel_micros = 10;
		ns.all_end_rel_micros = 10;
		Tensorflow__NodeExecStats *stats[] = {&ns};
		Tensorflow__DeviceStepStats dev = TENSORFLOW__DEVICE_STEP_STATS__INIT;
		dev.device = "/job:localhost/replica:0/task:0/device:CPU:0";
		dev.n_node_stats = 1;
		dev.node_stats = stats;
		Tensorflow__DeviceStepStats *devs[] = {&dev};
		Tensorflow__StepStats ss = TENSORFLOW__STEP_STATS__INIT;
		ss.n_dev_stats = 1;
		ss.dev_stats = devs;
		Tensorflow__RunMetadata meta = TENSORFLOW__RUN_METADATA__INIT;
		meta.step_stats = &ss;
		size_t len = protobuf_c_message_get_packed_size(&meta.base);
		uint8_t *buf = g_malloc(len + 1);
		protobuf_c_message_pack(&meta.base, buf);
		tl_tfrecord_frame(file, buf, len);
		g_free(buf);
	}
	char *path = g_build_filename(tmpdir, name, NULL);
	assert_true(g_file_set_contents(path, (const char *)file->data, file->len, NULL));
	g_byte_array_free(file, TRUE);
	return path;
}

static int on_begin(void *ctx, const tl_cli_inputs *in, tl_output *out, tl_error *err)
{
	struct tool_log *t = ctx;
	g_string_append(t->calls, "begin;");
	tl_output_str(out, "[");
	return 0;
}

static int on_run(void *ctx, tl_run **run, const tl_cli_step *step, tl_output *out,
		  tl_error *err)
{
	struct tool_log *t = ctx;
	g_string_append_printf(t->calls, "run %zu of input %zu%s: %s;", step->index, step->input,
			       step->several ? " (several)" : "", (*run)->execs[0].node);
	if ((int)step->index == t->refuse_at)
		return tl_error_set(err, "run %zu refused", step->index);
	tl_output_printf(out, "%s%s", step->index > 0 ? "," : "", (*run)->execs[0].node);
	if (step->index == 0 && t->kept == NULL) {
		t->kept = *run; /* kept: the driver must not free it */
		*run = NULL;
	}
	return 0;
}

static int on_end(void *ctx, const tl_cli_inputs *in, tl_output *out, tl_error *err)
{
	struct tool_log *t = ctx;
	g_string_append(t->calls, "end;");
	tl_output_str(out, "]");
	return 0;
}

/* tl_cli_run over `inputs` with -o `out_path`: its status; the calls in *log. */
static int drive(const char *const *inputs, int n, const char *out_path, struct tool_log *log)
{
	char *argv[8] = {"tool"};
	for (int i = 0; i < n; i++)
		argv[1 + i] = (char *)inputs[i];
	optind = 1;
	tl_cli cli = {.prog = "tool", .out_path = out_path, .needs = TL_NEEDS_TIMELINE, .quiet = true};
	static const tl_cli_tool tool = {.begin = on_begin, .run = on_run, .end = on_end};
	return tl_cli_run(&cli, 1 + n, argv, &tool, log);
}

static char *contents(const char *path)
{
	char *s = NULL;
	return g_file_get_contents(path, &s, NULL, NULL) ? s : NULL;
}

static void test_order_and_output(void **state)
{
	(void)state;
	char *three = stream_of("three.tfrecord", 3), *one = stream_of("one.tfrecord", 1);
	char *out = g_build_filename(tmpdir, "out.txt", NULL);
	struct tool_log log = {g_string_new(""), -1, NULL};
	const char *inputs[] = {three, one};
	assert_int_equal(drive(inputs, 2, out, &log), TL_EXIT_OK);
	assert_string_equal(log.calls->str, "begin;"
					    "run 0 of input 0 (several): op_0;"
					    "run 1 of input 0 (several): op_1;"
					    "run 2 of input 0 (several): op_2;"
					    "run 3 of input 1 (several): op_0;"
					    "end;");
	char *s = contents(out);
	assert_non_null(s);
	assert_string_equal(s, "[op_0,op_1,op_2,op_0]");
	/* the run kept by the tool is still whole */
	assert_non_null(log.kept);
	assert_string_equal(log.kept->execs[0].node, "op_0");
	tl_run_free(log.kept);
	g_free(s);

	/* one run alone: not several */
	struct tool_log alone = {g_string_new(""), -1, NULL};
	g_remove(out);
	assert_int_equal(drive((const char *const[]){one}, 1, out, &alone), TL_EXIT_OK);
	assert_string_equal(alone.calls->str, "begin;run 0 of input 0: op_0;end;");
	tl_run_free(alone.kept);
	g_string_free(alone.calls, TRUE);
	g_string_free(log.calls, TRUE);
	g_free(three);
	g_free(one);
	g_free(out);
	tl_warn_clear();
}

static void test_bad_input_after_good(void **state)
{
	(void)state;
	char *three = stream_of("good.tfrecord", 3);
	char *bad = g_build_filename(tmpdir, "bad.bin", NULL);
	assert_true(g_file_set_contents(bad, "\x01\x02 not a dump at all", -1, NULL));
	char *out = g_build_filename(tmpdir, "bad-out.txt", NULL);
	struct tool_log log = {g_string_new(""), -1, NULL};
	assert_int_equal(drive((const char *const[]){three, bad}, 2, out, &log), TL_EXIT_INPUT);
	assert_false(g_file_test(out, G_FILE_TEST_EXISTS)); /* -o: no file */
	assert_null(strstr(log.calls->str, "end;"));
	assert_non_null(strstr(log.calls->str, "run 2 of input 0"));
	tl_run_free(log.kept);
	g_string_free(log.calls, TRUE);
	g_free(three);
	g_free(bad);
	g_free(out);
	tl_warn_clear();
}

static void test_run_refused(void **state)
{
	(void)state;
	char *three = stream_of("refused.tfrecord", 3);
	char *out = g_build_filename(tmpdir, "refused-out.txt", NULL);
	struct tool_log log = {g_string_new(""), 1, NULL};
	assert_int_equal(drive((const char *const[]){three}, 1, out, &log), TL_EXIT_INPUT);
	assert_false(g_file_test(out, G_FILE_TEST_EXISTS));
	/* run 1 refused: run 2 never given, end never called */
	assert_string_equal(log.calls->str, "begin;"
					    "run 0 of input 0 (several): op_0;"
					    "run 1 of input 0 (several): op_1;");
	tl_run_free(log.kept);
	g_string_free(log.calls, TRUE);
	g_free(three);
	g_free(out);
	tl_warn_clear();
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_order_and_output),
	    cmocka_unit_test(test_bad_input_after_good),
	    cmocka_unit_test(test_run_refused),
	};
	return cmocka_run_group_tests_name("cli/run", tests, tmpdir_setup, tmpdir_teardown);
}
