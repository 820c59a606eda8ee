/* Unit tests for format.c: input-format names and sniffing the family of an
 * input from its first bytes. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include "io/format.h"
#include "io/input.h"
#include "io/pbwire.h"
#include "io/tfrecord.h"

#include <glib.h>
#include <stdlib.h>
#include <string.h>

#include "testdata.h"

static tl_format sniff_ok(const void *data, size_t len)
{
	tl_format f = TL_FORMAT_AUTO;
	tl_error err = {{0}};
	if (tl_format_sniff(data, len, &f, &err) != 0)
		fail_msg("sniff failed: %s", err.msg);
	return f;
}

static tl_format sniff_str(const char *s)
{
	return sniff_ok(s, strlen(s));
}

/* Proves: every user-facing name parses back to its format, the --help list
 * is exactly those names, and unknown or internal names are refused. */
static void test_names(void **state)
{
	const char *want[] = {"auto",	       "runmeta",	 "runmeta-text",
			      "stepstats",     "stepstats-text", "graphdef",
			      "graphdef-text", "tfrecord",	 "chrome"};
	for (size_t i = 0; i < G_N_ELEMENTS(want); i++) {
		tl_format f = TL_FORMAT_BINARY_PROTO;
		assert_int_equal(tl_format_parse(want[i], &f), 0);
		assert_int_equal(f, (tl_format)i);
		assert_string_equal(tl_format_name(f), want[i]);
	}
	assert_string_equal(tl_format_names(), "auto, runmeta, runmeta-text, stepstats, "
					       "stepstats-text, graphdef, graphdef-text, "
					       "tfrecord, chrome, xspace, runmeta-json, "
					       "stepstats-json, graphdef-json");
	static const struct {
		const char *name;
		tl_format f;
	} json[] = {{"runmeta-json", TL_FORMAT_RUNMETA_JSON},
		    {"stepstats-json", TL_FORMAT_STEPSTATS_JSON},
		    {"graphdef-json", TL_FORMAT_GRAPHDEF_JSON}};
	for (size_t i = 0; i < G_N_ELEMENTS(json); i++) {
		tl_format g = TL_FORMAT_AUTO;
		assert_int_equal(tl_format_parse(json[i].name, &g), 0);
		assert_int_equal(g, json[i].f);
		assert_string_equal(tl_format_name(g), json[i].name);
	}
	tl_format f = TL_FORMAT_CHROME;
	assert_int_equal(tl_format_parse("json", &f), -1);
	assert_int_equal(tl_format_parse("", &f), -1);
	assert_int_equal(tl_format_parse("binary-proto", &f), -1);
	assert_int_equal(tl_format_parse("RunMeta", &f), -1);
	assert_int_equal(f, TL_FORMAT_CHROME);
	assert_string_equal(tl_format_name(TL_FORMAT_BINARY_PROTO), "binary-proto");
	assert_string_equal(tl_format_name(TL_FORMAT_TEXT_PROTO), "text-proto");
	assert_string_equal(tl_format_name(TL_FORMAT_JSON_PROTO), "json-proto");
	assert_int_equal(tl_format_parse("json-proto", &f), -1);
}

/* Proves: empty and whitespace-only inputs are errors, not a guess. */
static void test_sniff_empty(void **state)
{
	tl_format f = TL_FORMAT_AUTO;
	tl_error err = {{0}};
	assert_int_equal(tl_format_sniff((const uint8_t *)"", 0, &f, &err), -1);
	assert_string_equal(err.msg, "empty input");
	assert_int_equal(tl_format_sniff((const uint8_t *)" \n\t\r\n", 5, &f, &err), -1);
	assert_string_equal(err.msg, "empty input (only whitespace)");
	assert_int_equal(tl_format_sniff((const uint8_t *)"\xef\xbb\xbf\n", 4, &f, &err), -1);
	assert_int_equal(f, TL_FORMAT_AUTO);
}

/* Proves: JSON objects and arrays are Chrome traces, after a BOM and
 * leading whitespace too. */
static void test_sniff_json(void **state)
{
	assert_int_equal(sniff_str("{\"traceEvents\": []}"), TL_FORMAT_CHROME);
	assert_int_equal(sniff_str("[{\"ph\": \"X\"}]"), TL_FORMAT_CHROME);
	assert_int_equal(sniff_str("\n\n   {"), TL_FORMAT_CHROME);
	assert_int_equal(sniff_str("\xef\xbb\xbf{\"traceEvents\": []}"), TL_FORMAT_CHROME);
	assert_int_equal(sniff_str("\xef\xbb\xbf \r\n["), TL_FORMAT_CHROME);
}

/* Proves: protobuf text is recognized by a field name or a comment at the
 * start, with UTF-8 in strings, and text with control bytes or an odd first
 * character is binary. */
static void test_sniff_text(void **state)
{
	assert_int_equal(sniff_str("step_stats {\n  dev_stats {\n    device: \"/cpu:0\"\n"),
			 TL_FORMAT_TEXT_PROTO);
	assert_int_equal(sniff_str("# RunMetadata\nnode {\n  name: \"x\"\n}\n"),
			 TL_FORMAT_TEXT_PROTO);
	assert_int_equal(sniff_str("  \n\tnode { name: \"caf\xc3\xa9/\xe2\x86\x92\" }"),
			 TL_FORMAT_TEXT_PROTO);
	assert_int_equal(sniff_str("\xef\xbb\xbf"
				   "dev_stats {}"),
			 TL_FORMAT_TEXT_PROTO);
	assert_int_equal(sniff_str("Node {"), TL_FORMAT_TEXT_PROTO);
	/* A control byte, invalid UTF-8, or a first character no field name has. */
	assert_int_equal(sniff_str("node {\x01}"), TL_FORMAT_BINARY_PROTO);
	assert_int_equal(sniff_str("node { name: \"\xff\" }"), TL_FORMAT_BINARY_PROTO);
	/* a whole JSON string is JSON: protobuf JSON wrapped, or what pbjson names */
	assert_int_equal(sniff_str("\"node\""), TL_FORMAT_JSON_PROTO);
	assert_int_equal(sniff_str("9node"), TL_FORMAT_BINARY_PROTO);
	assert_int_equal(sniff_ok("node {\0}", 8), TL_FORMAT_BINARY_PROTO);
}

/* Proves: a text head cut in the middle of a UTF-8 character (by the end of
 * the bytes given or of the window looked at) is still text, but a NUL
 * inside a character is not. */
static void test_sniff_text_cut(void **state)
{
	GString *s = g_string_new("node { name: \"");
	while (s->len < 8192)
		g_string_append(s, "\xe2\x86\x92");
	assert_int_equal(sniff_ok(s->str, s->len), TL_FORMAT_TEXT_PROTO);
	for (size_t len = 4090; len <= 4110; len++)
		assert_int_equal(sniff_ok(s->str, len), TL_FORMAT_TEXT_PROTO);
	for (size_t len = 14; len <= 20; len++)
		assert_int_equal(sniff_ok(s->str, len), TL_FORMAT_TEXT_PROTO);
	g_string_free(s, TRUE);
	assert_int_equal(sniff_ok("node { name: \"\xe2\x00\x92\" }", 20), TL_FORMAT_BINARY_PROTO);
	assert_int_equal(sniff_ok("node { name: \"\xc3\x00", 16), TL_FORMAT_BINARY_PROTO);
}

/* Proves: binary protobuf heads (starting with a field key, often '\n') are
 * binary, and TFRecord framing wins over everything else. */
static void test_sniff_binary_and_tfrecord(void **state)
{
	const uint8_t runmeta[] = {0x0a, 0xff, 0x0e, 0x0a, 0xfc, 0x0e, 0x0a, 0x25, '/', 'j'};
	assert_int_equal(sniff_ok(runmeta, sizeof runmeta), TL_FORMAT_BINARY_PROTO);
	const uint8_t graph[] = {0x0a, 0x0c, 0x0a, 0x01, 'x', 0x12, 0x05, 'C', 'o', 'n', 's', 't'};
	assert_int_equal(sniff_ok(graph, sizeof graph), TL_FORMAT_BINARY_PROTO);
	assert_int_equal(sniff_ok("\x08\x01", 2), TL_FORMAT_BINARY_PROTO);

	GByteArray *rec = g_byte_array_new();
	tl_tfrecord_frame(rec, "{\"a\": 1}", 8);
	assert_int_equal(sniff_ok(rec->data, rec->len), TL_FORMAT_TFRECORD);
	assert_int_equal(sniff_ok(rec->data, 12), TL_FORMAT_TFRECORD);
	/* Eleven bytes are not enough to see the length crc. */
	assert_int_equal(sniff_ok(rec->data, 11), TL_FORMAT_BINARY_PROTO);
	g_byte_array_unref(rec);
	/* A text record stream: framing is checked before the text rules. */
	rec = g_byte_array_new();
	tl_tfrecord_frame(rec, "node {}", 7);
	assert_int_equal(sniff_ok(rec->data, rec->len), TL_FORMAT_TFRECORD);
	g_byte_array_unref(rec);
}

static tl_format sniff_file(const char *path)
{
	tl_input *in = NULL;
	tl_error err = {{0}};
	if (tl_input_open(&in, path, &err) != 0)
		fail_msg("cannot open '%s': %s", path, err.msg);
	const uint8_t *head = NULL;
	size_t n = tl_input_peek(in, &head, 64 * 1024, &err);
	tl_format f = TL_FORMAT_AUTO;
	if (tl_format_sniff(head, n, &f, &err) != 0)
		fail_msg("'%s': %s", path, err.msg);
	tl_input_close(in);
	return f;
}

/* Every file of `dirs` sniffs as its family: .json (and .json.gz) as Chrome,
 * .pbtxt as protobuf text, .pb as binary protobuf; `counts` adds up each. */
static void sniff_dirs(char *const *dirs, size_t n, int counts[3])
{
	static const struct {
		const char *suffix;
		tl_format want;
	} kinds[] = {{".json", TL_FORMAT_CHROME},
		     {".pbtxt", TL_FORMAT_TEXT_PROTO},
		     {".pb", TL_FORMAT_BINARY_PROTO}};
	for (size_t d = 0; d < n; d++)
		for (size_t k = 0; k < G_N_ELEMENTS(kinds); k++) {
			GPtrArray *files = td_list(dirs[d], kinds[k].suffix, NULL);
			for (guint f = 0; f < files->len; f++) {
				const char *path = g_ptr_array_index(files, f);
				tl_format got = sniff_file(path);
				if (got != kinds[k].want)
					fail_msg("'%s' sniffed as %s", path, tl_format_name(got));
				counts[k]++;
			}
			g_ptr_array_unref(files);
		}
}

/* Proves: sniff_dirs on the repository's real dumps and timeline.py
 * references (gzip-compressed ones read through tl_input, as the tools do). */
static void test_sniff_real_files(void **state)
{
	char *dirs[] = {td_data("real"), td_data("oracle"), td_data("oracle/exact")};
	int counts[3] = {0, 0, 0};
	sniff_dirs(dirs, G_N_ELEMENTS(dirs), counts);
	assert_true(counts[0] >= 20);
	assert_true(counts[1] >= 5);
	assert_true(counts[2] >= 5);
	for (size_t d = 0; d < G_N_ELEMENTS(dirs); d++)
		g_free(dirs[d]);
}

/* Proves: sniff_dirs on the shared folder's real dumps, those whose source
 * has no licence included (skipped where there is no shared folder). */
static void test_shared_sniff(void **state)
{
	char *dirs[] = {td_shared("realdata", NULL), td_shared("oracle", NULL)};
	int counts[3] = {0, 0, 0};
	sniff_dirs(dirs, G_N_ELEMENTS(dirs), counts);
	assert_true(counts[0] >= 30);
	assert_true(counts[1] >= 5);
	for (size_t d = 0; d < G_N_ELEMENTS(dirs); d++)
		g_free(dirs[d]);
}

/* The whole (decompressed) content of a file. */
static GByteArray *slurp(const char *path)
{
	GBytes *b = td_load(path);
	gsize len = 0;
	uint8_t *data = g_bytes_unref_to_data(b, &len);
	return g_byte_array_new_take(data, len);
}

static bool neighbour(const void *data, size_t len, tl_error *err)
{
	return tl_format_neighbour(data, len, err);
}

/* A TF 2.0 profiler Trace as the profiler wrote it: devices with resources
 * (map entries), events with times and args. */
static GByteArray *build_trace(int n_events)
{
	GByteArray *o = g_byte_array_new();
	size_t entry = tl_pbwire_begin_len(o, 1);
	tl_pbwire_put_tag(o, 1, 0);
	tl_pbwire_put_varint(o, 1);
	size_t dev = tl_pbwire_begin_len(o, 2);
	tl_pbwire_put_bytes(o, 1, "/host:CPU", 9);
	size_t re = tl_pbwire_begin_len(o, 3);
	tl_pbwire_put_tag(o, 1, 0);
	tl_pbwire_put_varint(o, 2);
	size_t res = tl_pbwire_begin_len(o, 2);
	tl_pbwire_put_bytes(o, 1, "tf_Compute", 10);
	tl_pbwire_end_len(o, res);
	tl_pbwire_end_len(o, re);
	tl_pbwire_end_len(o, dev);
	tl_pbwire_end_len(o, entry);
	for (int i = 0; i < n_events; i++) {
		size_t ev = tl_pbwire_begin_len(o, 4);
		tl_pbwire_put_tag(o, 1, 0);
		tl_pbwire_put_varint(o, 1);
		tl_pbwire_put_tag(o, 2, 0);
		tl_pbwire_put_varint(o, 2);
		tl_pbwire_put_bytes(o, 3, "MatMul", 6);
		tl_pbwire_put_tag(o, 9, 0);
		tl_pbwire_put_varint(o, 1000000u * (unsigned)(i + 1));
		tl_pbwire_put_tag(o, 10, 0);
		tl_pbwire_put_varint(o, 5000);
		tl_pbwire_end_len(o, ev);
	}
	return o;
}

/* Proves: a TF 2.0 .trace and a TF2/JAX XSpace are named by content, a
 * truncated XSpace too; a message with too little in it to tell, or bytes
 * that are none of them, are not named. */
static void test_neighbours(void **state)
{
	tl_error err = {{0}};
	GByteArray *t = build_trace(3);
	assert_true(neighbour(t->data, t->len, &err));
	assert_string_equal(err.msg, "a TF 2.0 profiler trace (tensorflow.profiler.Trace, a .trace "
				     "file), which tftrace does not read yet; TensorBoard's "
				     "profile plugin reads it");
	g_byte_array_unref(t);

	char *path = g_build_filename(td_data_dir(), "real",
				      "AMD-AGI_TraceLens_jaxconv08-mi300.xplane.pb", NULL);
	GByteArray *x = slurp(path);
	g_free(path);
	assert_true(neighbour(x->data, x->len, &err));
	assert_string_equal(err.msg, "a TF2/JAX profiler XSpace (tensorflow.profiler.XSpace)");
	assert_true(tl_format_is_xspace(x->data, x->len));
	assert_true(tl_format_is_xspace(x->data, 260000));
	/* cut in its last plane: what came before is an XSpace */
	assert_true(neighbour(x->data, 260000, &err));
	assert_non_null(strstr(err.msg, "XSpace"));
	assert_non_null(strstr(err.msg, "(this one is truncated at byte 260000)"));
	g_byte_array_unref(x);

	/* one bare event: a Trace would fit, but so would much else */
	strcpy(err.msg, "untouched");
	const uint8_t tiny[] = {0x22, 0x03, 0x1a, 0x01, 'x'};
	assert_false(neighbour(tiny, sizeof tiny, &err));
	assert_string_equal(err.msg, "untouched");
	assert_false(neighbour("\x08\x01\x10\x02", 4, &err));
	assert_false(neighbour("not protobuf at all", 19, &err));
	assert_string_equal(err.msg, "untouched");
}

/* Every file below `dir` (sorted walk), with its name. */
static void each_file(const char *dir, void (*fn)(const char *path, const char *name, int *n),
		      int *n)
{
	GDir *gd = g_dir_open(dir, 0, NULL);
	if (gd == NULL)
		return;
	const char *name;
	while ((name = g_dir_read_name(gd)) != NULL) {
		char *path = g_build_filename(dir, name, NULL);
		if (g_file_test(path, G_FILE_TEST_IS_DIR))
			each_file(path, fn, n);
		else
			fn(path, name, n);
		g_free(path);
	}
	g_dir_close(gd);
}

static void check_not_neighbour(const char *path, const char *name, int *n)
{
	GByteArray *b = slurp(path);
	tl_error err = {{0}};
	bool named = b->len > 0 && neighbour(b->data, b->len, &err);
	bool xspace = g_str_has_suffix(name, ".xplane.pb");
	if (named != xspace)
		fail_msg("'%s' %s", path, named ? err.msg : "is an XSpace, not named");
	g_byte_array_unref(b);
	(*n)++;
}

/* Proves: no RunMetadata, StepStats, GraphDef, TFRecord or JSON file the
 * project has (its test data, samples, and the shared real data when
 * there) is taken for a neighbour; every XSpace among them is. */
static void test_neighbours_never_ours(void **state)
{
	int n = 0;
	each_file(td_data_dir(), check_not_neighbour, &n);
	char *samples = g_build_filename(td_data_dir(), "..", "..", "samples", NULL);
	each_file(samples, check_not_neighbour, &n);
	g_free(samples);
	const char *shared = getenv("TL_SHARED");
	if (shared != NULL && shared[0] != '\0') {
		char *dir = g_build_filename(shared, "realdata", NULL);
		each_file(dir, check_not_neighbour, &n);
		g_free(dir);
		dir = g_build_filename(shared, "oracle", NULL);
		each_file(dir, check_not_neighbour, &n);
		g_free(dir);
	}
	assert_true(n >= 50);
}

static const char *chrome_kind_str(const char *json)
{
	return tl_format_chrome_kind((const uint8_t *)json, strlen(json));
}

static void check_chrome_kind(const char *path, const char *name, int *n)
{
	if (!g_str_has_suffix(name, ".json") && !g_str_has_suffix(name, ".json.gz"))
		return;
	GByteArray *b = slurp(path);
	const char *got = tl_format_chrome_kind(b->data, b->len);
	/* what each file is, from the catalogues (tests/data/real/NOTICE,
	 * realdata/README.md, oracle/README.md): timeline.py wrote the
	 * timelines and the oracle's traces; the truths, reports and
	 * maximums are our JSON, no trace */
	const char *want = "a Chrome trace";
	if (strstr(name, ".pt.trace.json") != NULL || strstr(name, "kineto") != NULL)
		want = "a PyTorch profiler (Kineto) trace";
	else if (strstr(name, "_tf25_") != NULL || g_str_has_suffix(name, "d.trace.json"))
		want = "a TF2 profiler trace (TensorBoard's trace viewer JSON)";
	else if (g_str_has_suffix(name, ".truth.json") || g_str_has_suffix(name, ".report.json") ||
		 strstr(name, "maximums") != NULL)
		want = TL_FORMAT_NOT_A_TRACE;
	else if (strstr(name, "timeline") != NULL || strstr(path, "/oracle/") != NULL)
		want = "a TF1 timeline.py trace";
	if (strcmp(got, want) != 0)
		fail_msg("'%s' is %s, not %s", path, got, want);
	g_byte_array_unref(b);
	(*n)++;
}

/* Proves: Kineto traces are told by their top-level keys (the AMD trace has
 * them only at its end) or categories; timeline.py's by its "<device>
 * Compute" processes and "Op" events whatever its device names (TF 1.14's
 * /host:CPU); TF2 profiler JSON by its processes named for a device alone
 * and its "Stream #" threads; a lookalike of each, and JSON that is no
 * trace, are not taken for it; on the real files and on small ones. */
static void test_chrome_kinds(void **state)
{
	int n = 0;
	each_file(td_data_dir(), check_chrome_kind, &n);
	const char *shared = getenv("TL_SHARED");
	if (shared != NULL && shared[0] != '\0') {
		char *dir = g_build_filename(shared, "realdata", NULL);
		each_file(dir, check_chrome_kind, &n);
		g_free(dir);
	}
	assert_true(n >= 10);
	const char *kineto = "a PyTorch profiler (Kineto) trace";
	assert_string_equal(chrome_kind_str("{\"traceEvents\": [], \"schemaVersion\": 1}"), kineto);
	assert_string_equal(chrome_kind_str("{\"deviceProperties\": [], \"traceEvents\": []}"),
			    kineto);
	assert_string_equal(
	    chrome_kind_str("[{\"ph\": \"X\", \"cat\": \"cpu_op\", \"name\": \"aten::mm\"}]"),
	    kineto);
	assert_string_equal(
	    chrome_kind_str("{\"traceEvents\": [{\"ph\": \"M\", \"pid\": 1, \"name\": "
			    "\"process_name\", \"args\": {\"name\": \"/host:CPU\"}}]}"),
	    "a TF2 profiler trace (TensorBoard's trace viewer JSON)");
	const char *tf1 = "a TF1 timeline.py trace";
	assert_string_equal(
	    chrome_kind_str("{\"traceEvents\": [{\"ph\": \"M\", \"pid\": 1, \"name\": "
			    "\"process_name\", \"args\": {\"name\": \"/job:localhost/replica:0/"
			    "task:0/device:CPU:0 Compute\"}}, {\"ph\": \"X\", \"cat\": \"Op\"}]}"),
	    tf1);
	/* TF 1.14's timeline.py: the newer device names, still timeline.py */
	assert_string_equal(
	    chrome_kind_str(
		"{\"traceEvents\": [{\"ph\": \"M\", \"pid\": 1, \"name\": "
		"\"process_name\", \"args\": {\"name\": \"/host:CPU Compute\"}}, "
		"{\"ph\": \"M\", \"pid\": 2, \"name\": \"process_name\", \"args\": "
		"{\"name\": \"/gpu:0 (Quadro P5000)/context#0/stream#1:Kernel Compute\"}}, "
		"{\"ph\": \"X\", \"cat\": \"Op\", \"name\": \"MatMul\", \"pid\": 1, "
		"\"tid\": 0, \"ts\": 1, \"dur\": 2, \"args\": {\"name\": \"m\", "
		"\"op\": \"MatMul\"}}]}"),
	    tf1);
	/* lookalikes: one stray mark names nothing */
	assert_string_equal(chrome_kind_str("[{\"ph\": \"X\", \"cat\": \"Op\", \"name\": \"a\", "
					    "\"pid\": 1, \"tid\": 1, \"ts\": 1, \"dur\": 1}]"),
			    "a Chrome trace");
	assert_string_equal(chrome_kind_str("{\"displayTimeUnit\": \"ns\", \"traceEvents\": "
					    "[{\"ph\": \"X\", \"name\": \"a\", \"pid\": 1, "
					    "\"tid\": 1, \"ts\": 1, \"dur\": 1}]}"),
			    "a Chrome trace");
	assert_string_equal(
	    chrome_kind_str("[{\"ph\": \"X\", \"cat\": \"kernel\", \"name\": "
			    "\"k\", \"pid\": 1, \"tid\": 1, \"ts\": 1, \"dur\": 1}]"),
	    "a Chrome trace");
	assert_string_equal(chrome_kind_str("{\"name\": \"config\", \"values\": [1, 2]}"),
			    TL_FORMAT_NOT_A_TRACE);
	assert_string_equal(chrome_kind_str("[1, 2, 3]"), TL_FORMAT_NOT_A_TRACE);
	assert_string_equal(chrome_kind_str("{\"traceEvents\": []}"), "a Chrome trace");
	/* invalid JSON ends the look: what was seen decides */
	assert_string_equal(chrome_kind_str("{\"traceEvents\": [{\"cat\": \"Op\"}, {"),
			    "a Chrome trace");
	assert_string_equal(chrome_kind_str("[{\"cat\": \"python_function\"}, {,"), kineto);
	assert_string_equal(chrome_kind_str("not json"), TL_FORMAT_NOT_A_TRACE);
}

int main(void)
{
	td_filter();
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_names),
	    cmocka_unit_test(test_sniff_empty),
	    cmocka_unit_test(test_sniff_json),
	    cmocka_unit_test(test_sniff_text),
	    cmocka_unit_test(test_sniff_text_cut),
	    cmocka_unit_test(test_sniff_binary_and_tfrecord),
	    cmocka_unit_test(test_sniff_real_files),
	    cmocka_unit_test(test_shared_sniff),
	    cmocka_unit_test(test_neighbours),
	    cmocka_unit_test(test_neighbours_never_ours),
	    cmocka_unit_test(test_chrome_kinds),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
