/* Unit tests of source.c: runs out of every kind of input. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "optrace.h"
#include "source.h"
#include "tfrecord.h"

#include <glib.h>
#include <string.h>
#include <zlib.h>

#include "tmpdir.h"


/* A RunMetadata with one device holding one node named `node`. */
static GBytes *pack_run(const char *node)
{
	Tensorflow__NodeExecStats ns = TENSORFLOW__NODE_EXEC_STATS__INIT;
	ns.node_name = (char *)node;
	ns.all_start_micros = 100;
	ns.all_end_rel_micros = 5;
	Tensorflow__NodeExecStats *nsp[] = {&ns};
	Tensorflow__DeviceStepStats dev = TENSORFLOW__DEVICE_STEP_STATS__INIT;
	dev.device = (char *)"/job:localhost/replica:0/task:0/device:CPU:0";
	dev.n_node_stats = 1;
	dev.node_stats = nsp;
	Tensorflow__DeviceStepStats *devp[] = {&dev};
	Tensorflow__StepStats ss = TENSORFLOW__STEP_STATS__INIT;
	ss.n_dev_stats = 1;
	ss.dev_stats = devp;
	Tensorflow__RunMetadata rm = TENSORFLOW__RUN_METADATA__INIT;
	rm.step_stats = &ss;
	size_t n = protobuf_c_message_get_packed_size(&rm.base);
	uint8_t *buf = g_malloc(n);
	protobuf_c_message_pack(&rm.base, buf);
	return g_bytes_new_take(buf, n);
}

static GBytes *pack_event_file_version(void)
{
	Tensorflow__Event ev = TENSORFLOW__EVENT__INIT;
	ev.wall_time = 1.5;
	ev.what_case = TENSORFLOW__EVENT__WHAT_FILE_VERSION;
	ev.file_version = (char *)"brain.Event:2";
	size_t n = protobuf_c_message_get_packed_size(&ev.base);
	uint8_t *buf = g_malloc(n);
	protobuf_c_message_pack(&ev.base, buf);
	return g_bytes_new_take(buf, n);
}

static GBytes *pack_event_run(const char *tag, GBytes *run)
{
	Tensorflow__TaggedRunMetadata t = TENSORFLOW__TAGGED_RUN_METADATA__INIT;
	t.tag = (char *)tag;
	t.run_metadata.data = (uint8_t *)g_bytes_get_data(run, &t.run_metadata.len);
	Tensorflow__Event ev = TENSORFLOW__EVENT__INIT;
	ev.step = 7;
	ev.what_case = TENSORFLOW__EVENT__WHAT_TAGGED_RUN_METADATA;
	ev.tagged_run_metadata = &t;
	size_t n = protobuf_c_message_get_packed_size(&ev.base);
	uint8_t *buf = g_malloc(n);
	protobuf_c_message_pack(&ev.base, buf);
	return g_bytes_new_take(buf, n);
}

static void frame(GByteArray *out, GBytes *b)
{
	gsize n;
	const void *p = g_bytes_get_data(b, &n);
	tl_tfrecord_frame(out, p, n);
	g_bytes_unref(b);
}

static char *write_file(const char *name, const void *data, size_t len, bool gzip)
{
	char *path = g_build_filename(tmpdir, name, NULL);
	if (gzip) {
		gzFile gz = gzopen(path, "wb");
		assert_non_null(gz);
		assert_int_equal(gzwrite(gz, data, (unsigned)len), (int)len);
		gzclose(gz);
	} else {
		assert_true(g_file_set_contents(path, data, (gssize)len, NULL));
	}
	return path;
}

/* Reads every run; returns them as "label:node" joined by spaces. */
static char *read_all(const char *path, tl_format fmt, int *rc_out, tl_error *err)
{
	tl_source *src = NULL;
	GString *s = g_string_new("");
	*rc_out = tl_source_open(&src, path, fmt, err);
	if (*rc_out < 0)
		return g_string_free(s, FALSE);
	tl_run *run = NULL;
	int rc;
	while ((rc = tl_source_next_run(src, &run, err)) > 0) {
		g_string_append_printf(s, "%s%s:%s", s->len ? " " : "", run->label,
				       run->n_execs ? run->execs[0].node : "-");
		tl_run_free(run);
	}
	*rc_out = rc;
	tl_source_close(src);
	return g_string_free(s, FALSE);
}

/* A TFRecord stream of RunMetadata is one run per record, labelled file#N. */
static void test_tfrecord_runs(void **state)
{
	(void)state;
	GByteArray *buf = g_byte_array_new();
	frame(buf, pack_run("a"));
	frame(buf, pack_run("b"));
	frame(buf, pack_run("c"));
	char *path = write_file("runs.tfrecord", buf->data, buf->len, false);
	int rc;
	tl_error err = {{0}};
	char *got = read_all(path, TL_FORMAT_AUTO, &rc, &err);
	assert_int_equal(rc, 0);
	assert_string_equal(got, "runs.tfrecord#1:a runs.tfrecord#2:b runs.tfrecord#3:c");
	g_free(got);
	/* the same, gzipped */
	char *gz = write_file("runs.tfrecord.gz", buf->data, buf->len, true);
	got = read_all(gz, TL_FORMAT_AUTO, &rc, &err);
	assert_int_equal(rc, 0);
	assert_string_equal(got, "runs.tfrecord.gz#1:a runs.tfrecord.gz#2:b runs.tfrecord.gz#3:c");
	g_free(got);
	/* cut in the last record: two runs, then an error naming the byte */
	char *cut = write_file("cut.tfrecord", buf->data, buf->len - 3, false);
	got = read_all(cut, TL_FORMAT_AUTO, &rc, &err);
	assert_int_equal(rc, -1);
	assert_string_equal(got, "cut.tfrecord#1:a cut.tfrecord#2:b");
	assert_non_null(strstr(err.msg, "truncated"));
	g_free(got);
	g_free(path);
	g_free(gz);
	g_free(cut);
	g_byte_array_free(buf, TRUE);
}

/* A TensorBoard events file: each tagged_run_metadata is a run named by its
 * tag; other events are skipped. */
static void test_events_file(void **state)
{
	(void)state;
	GByteArray *buf = g_byte_array_new();
	frame(buf, pack_event_file_version());
	GBytes *r1 = pack_run("x");
	GBytes *r2 = pack_run("y");
	frame(buf, pack_event_run("step_1", r1));
	frame(buf, pack_event_file_version()); /* any other event */
	frame(buf, pack_event_run("step_2", r2));
	g_bytes_unref(r1);
	g_bytes_unref(r2);
	char *path = write_file("events.out.tfevents.1", buf->data, buf->len, false);
	int rc;
	tl_error err = {{0}};
	char *got = read_all(path, TL_FORMAT_AUTO, &rc, &err);
	assert_int_equal(rc, 0);
	assert_string_equal(got, "step_1:x step_2:y");
	g_free(got);
	g_free(path);
	g_byte_array_free(buf, TRUE);
}

/* A binary StepStats is wrapped into a run; a GraphDef into a run with one
 * partition graph; --input-format forces the kind. */
static void test_wrapped(void **state)
{
	(void)state;
	GBytes *run = pack_run("n");
	Tensorflow__RunMetadata *rm = tensorflow__run_metadata__unpack(
		NULL, g_bytes_get_size(run), g_bytes_get_data(run, NULL));
	size_t n = protobuf_c_message_get_packed_size(&rm->step_stats->base);
	uint8_t *ss = g_malloc(n);
	protobuf_c_message_pack(&rm->step_stats->base, ss);
	char *path = write_file("ss.pb", ss, n, false);
	int rc;
	tl_error err = {{0}};
	char *got = read_all(path, TL_FORMAT_AUTO, &rc, &err);
	assert_int_equal(rc, 0);
	assert_string_equal(got, "ss.pb:n");
	g_free(got);
	got = read_all(path, TL_FORMAT_STEPSTATS, &rc, &err);
	assert_int_equal(rc, 0);
	assert_string_equal(got, "ss.pb:n");
	g_free(got);
	g_free(path);
	g_free(ss);
	tensorflow__run_metadata__free_unpacked(rm, NULL);
	g_bytes_unref(run);

	const char *text = "node { name: \"a\" op: \"Const\" }\nnode { name: \"b\" op: \"Neg\" "
			   "input: \"a\" }\n";
	path = write_file("g.pbtxt", text, strlen(text), false);
	tl_source *src = NULL;
	assert_int_equal(tl_source_open(&src, path, TL_FORMAT_AUTO, &err), 0);
	tl_run *r = NULL;
	assert_int_equal(tl_source_next_run(src, &r, &err), 1);
	assert_int_equal(r->n_nodes, 2);
	assert_int_equal(r->n_edges, 1);
	assert_false(r->has_steps);
	tl_run_free(r);
	assert_int_equal(tl_source_next_run(src, &r, &err), 0);
	tl_source_close(src);
	g_free(path);
}

/* Text that is no known message, and a wrong forced format, are errors. */
static void test_refusals(void **state)
{
	(void)state;
	const char *text = "foo { bar: 1 }\n";
	char *path = write_file("foo.pbtxt", text, strlen(text), false);
	int rc;
	tl_error err = {{0}};
	char *got = read_all(path, TL_FORMAT_AUTO, &rc, &err);
	assert_int_equal(rc, -1);
	assert_non_null(strstr(err.msg, "not protobuf text of a RunMetadata"));
	g_free(got);
	got = read_all(path, TL_FORMAT_RUNMETA, &rc, &err);
	assert_int_equal(rc, -1);
	g_free(got);
	g_free(path);
}

static const char *shared_dir(void)
{
	const char *s = getenv("TL_SHARED");
	return s != NULL && s[0] != '\0' ? s : "../shared";
}

/* Decodes, models and writes the trace of a prefix of a file; returns
 * whether it decoded. A failure must come with a message. */
static bool try_prefix(const uint8_t *data, size_t len, tl_output *sink)
{
	tl_arena *arena = tl_arena_new();
	Tensorflow__RunMetadata *meta = NULL;
	tl_error err = {{0}};
	if (tl_decode_runmeta(data, len, TL_FORMAT_AUTO, arena, &meta, &err) < 0) {
		assert_true(err.msg[0] != '\0');
		assert_null(strchr(err.msg, '\n'));
		tl_arena_free(arena);
		return false;
	}
	tl_run *run = NULL;
	assert_int_equal(tl_run_build(&run, arena, meta, "prefix", &err), 0);
	tl_chrome w;
	tl_chrome_begin(&w, sink);
	tl_optrace_opts opts;
	tl_optrace_opts_init(&opts);
	opts.control = true;
	int64_t pid = 1;
	uint64_t flow = 1;
	tl_optrace_write(&w, run, &opts, &pid, &flow, NULL);
	tl_chrome_end(&w, NULL);
	tl_run_free(run);
	return true;
}

/* A dump cut at every byte either decodes (a prefix can be a whole
 * message) and makes a trace, or fails with a one-line message: never a
 * crash (the sanitizers watch). */
static void test_truncated_everywhere(void **state)
{
	(void)state;
	const char *files[] = {"realdata/tfprof_testdata_run_meta_cpu_tf12.pb",
			       "realdata/tb_backend_test_run_metadata_step99.pbtxt"};
	tl_output *sink = NULL;
	tl_error err;
	assert_int_equal(tl_output_open(&sink, "/dev/null", false, NULL, 0, &err), 0);
	for (size_t f = 0; f < G_N_ELEMENTS(files); f++) {
		char *path = g_build_filename(shared_dir(), files[f], NULL);
		gchar *data = NULL;
		gsize len = 0;
		if (!g_file_get_contents(path, &data, &len, NULL)) {
			g_free(path);
			skip();
		}
		size_t ok = 0, failed = 0;
		for (size_t cut = 0; cut <= len; cut++) {
			uint8_t *copy = g_memdup2(data, cut ? cut : 1);
			if (try_prefix(copy, cut, sink))
				ok++;
			else
				failed++;
			g_free(copy);
		}
		assert_true(failed > 0);
		assert_true(ok > 0); /* at least the whole file */
		g_free(data);
		g_free(path);
	}
	tl_warnings_clear();
	assert_int_equal(tl_output_close(sink, &err), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_tfrecord_runs),
		cmocka_unit_test(test_events_file),
		cmocka_unit_test(test_wrapped),
		cmocka_unit_test(test_refusals),
		cmocka_unit_test(test_truncated_everywhere),
	};
	return cmocka_run_group_tests_name("source", tests, tmpdir_setup, tmpdir_teardown);
}
