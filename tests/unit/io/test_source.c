/* Unit tests of source.c: runs out of every kind of input. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "emit/optrace.h"
#include "io/source.h"
#include "io/tfrecord.h"

#include <glib.h>
#include <string.h>
#include <zlib.h>

#include "testdata.h"
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
	while ((rc = tl_run_next(src, &run, err)) > 0) {
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
	/* cut in the last record: two runs and one damage passed over */
	char *cut = write_file("cut.tfrecord", buf->data, buf->len - 3, false);
	tl_warn_clear();
	got = read_all(cut, TL_FORMAT_AUTO, &rc, &err);
	assert_int_equal(rc, 0);
	assert_string_equal(got, "cut.tfrecord#1:a cut.tfrecord#2:b");
	assert_int_equal(tl_warn_damage_count(), 1);
	tl_warn_clear();
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
	Tensorflow__RunMetadata *rm = tensorflow__run_metadata__unpack(NULL, g_bytes_get_size(run),
								       g_bytes_get_data(run, NULL));
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
	assert_int_equal(tl_run_next(src, &r, &err), 1);
	assert_int_equal(r->n_nodes, 2);
	assert_int_equal(r->n_edges, 1);
	assert_false(r->has_steps);
	tl_run_free(r);
	assert_int_equal(tl_run_next(src, &r, &err), 0);
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

/* Decodes, models and writes the trace of a prefix of a file; returns
 * whether it decoded. A failure must come with a message. */
static bool try_prefix(const uint8_t *data, size_t len, tl_output *sink)
{
	tl_arena *arena = tl_arena_new();
	Tensorflow__RunMetadata *meta = NULL;
	tl_error err = {{0}};
	if (tl_source_decode_runmeta(data, len, TL_FORMAT_AUTO, arena, &meta, &err) < 0) {
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
	const char *files[] = {"real/tfprof_testdata_run_meta_cpu_tf12.pb",
			       "real/tb_backend_test_run_metadata_step99.pbtxt"};
	tl_output *sink = NULL;
	tl_error err;
	assert_int_equal(tl_output_open(&sink, "/dev/null", false, NULL, 0, &err), 0);
	for (size_t f = 0; f < G_N_ELEMENTS(files); f++) {
		char *path = td_data(files[f]);
		gchar *data = NULL;
		gsize len = 0;
		if (!g_file_get_contents(path, &data, &len, NULL))
			fail_msg("cannot read '%s'", path);
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
	tl_warn_clear();
	assert_int_equal(tl_output_close(sink, &err), 0);
}

/* ---- damage ------------------------------------------------------------ */

/* Reads `path` leniently and strictly. Lenient: the runs and the damage
 * count; strict: an error at the first damage, or the same runs. */
struct both {
	char *runs;
	int rc;
	tl_error err;
	size_t damage;
	int strict_rc;
	tl_error strict_err;
};

static struct both read_both(const char *path, tl_format fmt)
{
	struct both b = {0};
	tl_warn_clear();
	b.runs = read_all(path, fmt, &b.rc, &b.err);
	b.damage = tl_warn_damage_count();
	tl_warn_clear();
	tl_warn_set_strict(true);
	char *strict_runs = read_all(path, fmt, &b.strict_rc, &b.strict_err);
	tl_warn_set_strict(false);
	assert_int_equal(tl_warn_damage_count(), 0);
	if (b.damage == 0 && b.rc == 0) {
		assert_int_equal(b.strict_rc, 0);
		assert_string_equal(strict_runs, b.runs);
	} else {
		assert_int_equal(b.strict_rc, -1);
	}
	g_free(strict_runs);
	return b;
}

static GByteArray *three_runs(size_t ends[3])
{
	GByteArray *buf = g_byte_array_new();
	const char *nodes[] = {"a", "bb", "ccc"};
	for (int i = 0; i < 3; i++) {
		frame(buf, pack_run(nodes[i]));
		ends[i] = buf->len;
	}
	return buf;
}

/* A 3-run stream cut at every byte keeps every whole run, with one damage
 * when the cut is inside a record; a cut that leaves no whole run is an
 * error naming the record cut short; strict, any cut record is the error. */
static void test_stream_cut_everywhere(void **state)
{
	(void)state;
	size_t ends[3];
	GByteArray *buf = three_runs(ends);
	const char *want[] = {"", "s#1:a", "s#1:a s#2:bb", "s#1:a s#2:bb s#3:ccc"};
	for (size_t cut = 1; cut <= buf->len; cut++) {
		size_t whole = 0;
		while (whole < 3 && ends[whole] <= cut)
			whole++;
		size_t start = whole == 0 ? 0 : ends[whole - 1];
		char *path = write_file("s", buf->data, cut, false);
		for (int forced = 0; forced < 2; forced++) {
			if (!forced && cut < 12)
				continue; /* too short to be told a stream */
			struct both b =
			    read_both(path, forced ? TL_FORMAT_TFRECORD : TL_FORMAT_AUTO);
			char what[96];
			snprintf(what, sizeof what, "record %zu at byte %zu is cut short",
				 whole + 1, start);
			if (whole == 0) {
				assert_int_equal(b.rc, -1);
				char msg[128];
				snprintf(msg, sizeof msg, "nothing readable: %s", what);
				assert_string_equal(b.err.msg, msg);
			} else {
				assert_int_equal(b.rc, 0);
				assert_string_equal(b.runs, want[whole]);
				assert_int_equal(b.damage, cut == start ? 0 : 1);
			}
			if (cut != start)
				assert_string_equal(b.strict_err.msg, what);
			g_free(b.runs);
		}
		g_free(path);
	}
	g_byte_array_free(buf, TRUE);
}

/* Reads the stream with every byte flipped in turn: each flip loses the
 * record it hit and no other (want[k]: the runs without record k), with one
 * damage; strict, the flip is the error. */
static void flip_every_byte(GByteArray *buf, const size_t *ends, size_t n, const char *const *want,
			    const char *all)
{
	for (size_t at = 0; at < buf->len; at++) {
		size_t hit = 0;
		while (ends[hit] <= at)
			hit++;
		buf->data[at] ^= 0x10;
		char *path = write_file("f", buf->data, buf->len, false);
		struct both b = read_both(path, TL_FORMAT_AUTO);
		if (b.rc != 0 || strcmp(b.runs, want[hit]) != 0 || b.damage != 1)
			fail_msg("byte %zu (record %zu): rc %d (%s), runs '%s', %zu damaged", at,
				 hit + 1, b.rc, b.err.msg, b.runs, b.damage);
		char prefix[64];
		snprintf(prefix, sizeof prefix, "record %zu at byte %zu: ", hit + 1,
			 hit == 0 ? 0 : ends[hit - 1]);
		assert_true(g_str_has_prefix(b.strict_err.msg, prefix));
		g_free(b.runs);
		g_free(path);
		buf->data[at] ^= 0x10;
	}
	char *path = write_file("f", buf->data, buf->len, false);
	struct both b = read_both(path, TL_FORMAT_AUTO);
	assert_string_equal(b.runs, all);
	assert_int_equal(b.damage, 0);
	g_free(b.runs);
	g_free(path);
	(void)n;
}

/* A flipped byte anywhere in a 3-run stream (length, length crc, data,
 * data crc) loses only that run; the others keep their names. */
static void test_stream_flip_every_byte(void **state)
{
	(void)state;
	size_t ends[3];
	GByteArray *buf = three_runs(ends);
	const char *want[] = {"f#2:bb f#3:ccc", "f#1:a f#3:ccc", "f#1:a f#2:bb"};
	flip_every_byte(buf, ends, 3, want, "f#1:a f#2:bb f#3:ccc");
	g_byte_array_free(buf, TRUE);
}

/* The same for a TensorBoard events file, whose first record is the file
 * version: damage there loses no run, and the file is still read as events
 * (told by the tagged_run_metadata after it). */
static void test_events_flip_every_byte(void **state)
{
	(void)state;
	GByteArray *buf = g_byte_array_new();
	size_t ends[4];
	frame(buf, pack_event_file_version());
	ends[0] = buf->len;
	const char *tags[] = {"s1", "s2", "s3"};
	const char *nodes[] = {"x", "yy", "zzz"};
	for (int i = 0; i < 3; i++) {
		GBytes *run = pack_run(nodes[i]);
		frame(buf, pack_event_run(tags[i], run));
		g_bytes_unref(run);
		ends[i + 1] = buf->len;
	}
	const char *want[] = {"s1:x s2:yy s3:zzz", "s2:yy s3:zzz", "s1:x s3:zzz", "s1:x s2:yy"};
	flip_every_byte(buf, ends, 4, want, "s1:x s2:yy s3:zzz");
	g_byte_array_free(buf, TRUE);
}

/* A record that frames but does not decode is damage: skipped, the others
 * read; strict, the error names it; a stream of nothing but such records is
 * an error that says what it is: records of another message (a dataset of
 * tf.train.Example, ...), not damaged runs. (A message nested too deep:
 * hostile.test.) */
static void test_undecodable_record(void **state)
{
	(void)state;
	GByteArray *buf = g_byte_array_new();
	frame(buf, pack_run("a"));
	size_t second = buf->len;
	const uint8_t garbage[] = {0x0a, 0xff, 0xff, 0xff, 0x0f, 0x01};
	tl_tfrecord_frame(buf, garbage, sizeof garbage);
	frame(buf, pack_run("c"));
	char *path = write_file("g.tfrecord", buf->data, buf->len, false);
	struct both b = read_both(path, TL_FORMAT_AUTO);
	assert_int_equal(b.rc, 0);
	assert_string_equal(b.runs, "g.tfrecord#1:a g.tfrecord#3:c");
	assert_int_equal(b.damage, 1);
	char want[96];
	snprintf(want, sizeof want, "record 2 at byte %zu: malformed RunMetadata", second);
	assert_string_equal(b.strict_err.msg, want);
	g_free(b.runs);
	g_free(path);

	GByteArray *bad = g_byte_array_new();
	for (int i = 0; i < 3; i++)
		tl_tfrecord_frame(bad, garbage, sizeof garbage);
	path = write_file("bad.tfrecord", bad->data, bad->len, false);
	b = read_both(path, TL_FORMAT_AUTO);
	assert_int_equal(b.rc, -1);
	assert_string_equal(b.err.msg, "a TFRecord file of neither RunMetadata nor TensorBoard "
				       "events (all 3 records frame, none decodes as one; the "
				       "first: record 1 at byte 0: malformed RunMetadata)");
	g_free(b.runs);
	g_free(path);
	g_byte_array_free(bad, TRUE);
	g_byte_array_free(buf, TRUE);
}

/* A gzip stream cut short, at every byte: the runs whose records were
 * whole before the cut, the gzip cut reported; a cut that leaves no whole
 * run is an error naming the gzip cut first. A whole-file input cut the
 * same way is an error that says so. */
static void test_gzip_cut(void **state)
{
	(void)state;
	size_t ends[3];
	GByteArray *buf = three_runs(ends);
	char *full = write_file("z.gz", buf->data, buf->len, true);
	gchar *gz = NULL;
	gsize gz_len = 0;
	assert_true(g_file_get_contents(full, &gz, &gz_len, NULL));
	size_t last = 0;
	for (size_t cut = 20; cut < gz_len; cut++) {
		char *path = write_file("z.gz", gz, cut, false);
		struct both b = read_both(path, TL_FORMAT_AUTO);
		size_t runs = b.rc == 0 ? (size_t)(strchr(b.runs, ':') != NULL) : 0;
		for (const char *p = b.runs; b.rc == 0 && (p = strchr(p, ' ')) != NULL; p++)
			runs++;
		assert_true(runs >= last);
		last = runs;
		if (b.rc < 0)
			assert_true(g_str_has_prefix(b.err.msg, "nothing readable: gzip stream cut "
								"short at compressed byte "));
		else
			assert_true(b.damage >= 1);
		assert_true(g_str_has_prefix(b.strict_err.msg, "gzip stream cut short at "
							       "compressed byte "));
		g_free(b.runs);
		g_free(path);
	}
	assert_int_equal(last, 3); /* a cut in the trailer loses no data */
	g_free(gz);
	g_free(full);
	g_byte_array_free(buf, TRUE);

	/* one binary RunMetadata, gzipped and cut: nothing to pass over */
	GBytes *run = pack_run("only");
	gsize n;
	const uint8_t *p = g_bytes_get_data(run, &n);
	full = write_file("one.pb.gz", p, n, true);
	assert_true(g_file_get_contents(full, &gz, &gz_len, NULL));
	char *path = write_file("one.pb.gz", gz, gz_len - 6, false);
	int rc;
	tl_error err = {{0}};
	char *got = read_all(path, TL_FORMAT_AUTO, &rc, &err);
	assert_int_equal(rc, 0); /* the whole message came before the trailer */
	assert_string_equal(got, "one.pb.gz:only");
	assert_int_equal(tl_warn_damage_count(), 1);
	tl_warn_clear();
	g_free(got);
	g_free(path);
	path = write_file("one.pb.gz", gz, 24, false);
	got = read_all(path, TL_FORMAT_AUTO, &rc, &err);
	assert_int_equal(rc, -1);
	assert_true(g_str_has_prefix(err.msg, "truncated at byte "));
	assert_non_null(strstr(err.msg, "; gzip stream cut short at compressed byte 24, after "
					"decompressed byte "));
	g_free(got);
	g_free(path);
	g_free(gz);
	g_free(full);
	g_bytes_unref(run);
}

/* Binary inputs whose first bytes fit an XSpace (field 1 holding a message
 * that starts with field 1 as a varint or field 2 as bytes) are tried as one
 * first; those that hold no line of events are read as what they are: a
 * StepStats whose device record has no device name (node_stats, field 2,
 * first), a GraphDef whose first node has no name (op first). */
static void test_xspace_lookalikes(void **state)
{
	(void)state;
	Tensorflow__NodeExecStats ns = TENSORFLOW__NODE_EXEC_STATS__INIT;
	ns.node_name = (char *)"lookalike";
	ns.all_start_micros = 100;
	ns.all_end_rel_micros = 5;
	Tensorflow__NodeExecStats *nsp[] = {&ns};
	Tensorflow__DeviceStepStats dev = TENSORFLOW__DEVICE_STEP_STATS__INIT;
	dev.n_node_stats = 1;
	dev.node_stats = nsp;
	Tensorflow__DeviceStepStats *devp[] = {&dev};
	Tensorflow__StepStats ss = TENSORFLOW__STEP_STATS__INIT;
	ss.n_dev_stats = 1;
	ss.dev_stats = devp;
	uint8_t buf[256];
	size_t n = protobuf_c_message_pack(&ss.base, buf);
	assert_int_equal(buf[0], 0x0a);
	assert_int_equal(buf[2], 0x12); /* the head an XSpace's plane could have */
	char *path = write_file("lookalike.pb", buf, n, false);
	int rc;
	tl_error err = {{0}};
	char *got = read_all(path, TL_FORMAT_AUTO, &rc, &err);
	assert_int_equal(rc, 0);
	assert_string_equal(got, "lookalike.pb:lookalike");
	g_free(got);
	g_free(path);

	Tensorflow__NodeDef nd = TENSORFLOW__NODE_DEF__INIT;
	nd.op = (char *)"Const";
	Tensorflow__NodeDef *ndp[] = {&nd};
	Tensorflow__GraphDef g = TENSORFLOW__GRAPH_DEF__INIT;
	g.n_node = 1;
	g.node = ndp;
	n = protobuf_c_message_pack(&g.base, buf);
	assert_int_equal(buf[2], 0x12);
	path = write_file("lookalike-graph.pb", buf, n, false);
	tl_source *src = NULL;
	assert_int_equal(tl_source_open(&src, path, TL_FORMAT_AUTO, &err), 0);
	tl_arena *arena = NULL;
	Tensorflow__RunMetadata *meta = NULL;
	const char *label = NULL;
	assert_int_equal(tl_source_next(src, &arena, &meta, &label, &err), 1);
	assert_int_equal(meta->n_partition_graphs, 1);
	assert_string_equal(meta->partition_graphs[0]->node[0]->op, "Const");
	assert_int_not_equal(tl_source_format(src), TL_FORMAT_XSPACE);
	tl_arena_free(arena);
	tl_source_close(src);
	g_free(path);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_tfrecord_runs),
	    cmocka_unit_test(test_events_file),
	    cmocka_unit_test(test_wrapped),
	    cmocka_unit_test(test_refusals),
	    cmocka_unit_test(test_truncated_everywhere),
	    cmocka_unit_test(test_stream_cut_everywhere),
	    cmocka_unit_test(test_stream_flip_every_byte),
	    cmocka_unit_test(test_events_flip_every_byte),
	    cmocka_unit_test(test_undecodable_record),
	    cmocka_unit_test(test_gzip_cut),
	    cmocka_unit_test(test_xspace_lookalikes),
	};
	return cmocka_run_group_tests_name("source", tests, tmpdir_setup, tmpdir_teardown);
}
