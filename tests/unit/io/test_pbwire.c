/* Unit tests for pbwire.c: varint decoding and classification of binary
 * protobufs as RunMetadata, StepStats or GraphDef. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include "io/pbwire.h"
#include "tensorflow.pb-c.h"

#include <glib.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "testdata.h"

static const ProtobufCMessageDescriptor *classify_ok(const uint8_t *data, size_t len)
{
	const ProtobufCMessageDescriptor *desc = NULL;
	tl_error err = {{0}};
	int rc = tl_pbwire_classify(data, len, &desc, &err);
	if (rc != 0)
		fail_msg("classify failed: %s", err.msg);
	return desc;
}

static GBytes *pack(const ProtobufCMessage *m)
{
	size_t n = protobuf_c_message_get_packed_size(m);
	uint8_t *buf = g_malloc(n > 0 ? n : 1);
	assert_int_equal(protobuf_c_message_pack(m, buf), n);
	return g_bytes_new_take(buf, n);
}

static void assert_classifies_as(GBytes *b, const ProtobufCMessageDescriptor *want)
{
	size_t n;
	const uint8_t *p = g_bytes_get_data(b, &n);
	const ProtobufCMessageDescriptor *got = classify_ok(p, n);
	assert_string_equal(got->name, want->name);
}

static GBytes *read_file(const char *path)
{
	gchar *data;
	gsize len;
	GError *gerr = NULL;
	if (!g_file_get_contents(path, &data, &len, &gerr))
		fail_msg("cannot read '%s': %s", path, gerr->message);
	return g_bytes_new_take(data, len);
}

/* Small local encoder, so the tests do not depend on the code under test. */
static void put_varint(GByteArray *out, uint64_t v)
{
	do {
		uint8_t b = (uint8_t)(v & 0x7f);
		v >>= 7;
		if (v != 0)
			b |= 0x80;
		g_byte_array_append(out, &b, 1);
	} while (v != 0);
}

static void put_len(GByteArray *out, uint32_t field, const void *data, size_t len)
{
	put_varint(out, (uint64_t)field << 3 | 2);
	put_varint(out, len);
	g_byte_array_append(out, data, (guint)len);
}

static void put_str(GByteArray *out, uint32_t field, const char *s)
{
	put_len(out, field, s, strlen(s));
}

static void put_uint(GByteArray *out, uint32_t field, uint64_t v)
{
	put_varint(out, (uint64_t)field << 3);
	put_varint(out, v);
}

static void put_msg(GByteArray *out, uint32_t field, GByteArray *sub)
{
	put_len(out, field, sub->data, sub->len);
	g_byte_array_unref(sub);
}

/* Proves: varints decode by the wire rules, advance the position, and
 * truncated or over-long ones are refused. */
static void test_varint(void **state)
{
	const uint8_t v300[] = {0xac, 0x02, 0x7f};
	size_t pos = 0;
	uint64_t v = 0;
	assert_true(tl_pbwire_varint(v300, sizeof v300, &pos, &v));
	assert_int_equal(v, 300);
	assert_int_equal(pos, 2);
	assert_true(tl_pbwire_varint(v300, sizeof v300, &pos, &v));
	assert_int_equal(v, 127);
	assert_int_equal(pos, 3);
	assert_false(tl_pbwire_varint(v300, sizeof v300, &pos, &v));

	const uint8_t max[] = {0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x01};
	pos = 0;
	assert_true(tl_pbwire_varint(max, sizeof max, &pos, &v));
	assert_true(v == UINT64_MAX);
	assert_int_equal(pos, 10);

	const uint8_t cut[] = {0x80, 0x80};
	pos = 0;
	assert_false(tl_pbwire_varint(cut, sizeof cut, &pos, &v));
	assert_int_equal(pos, 0);

	uint8_t eleven[11];
	memset(eleven, 0x80, sizeof eleven);
	eleven[10] = 0x01;
	pos = 0;
	assert_false(tl_pbwire_varint(eleven, sizeof eleven, &pos, &v));
}

/* Each binary protobuf of `dirs` classifies as RunMetadata, except the TF2
 * and JAX profilers' XSpace files (*.xplane.pb), which are none of the three
 * messages and are refused; returns how many RunMetadata and XSpace files
 * there were. */
static void classify_dirs(char *const *dirs, size_t n, int *runmeta, int *xspace)
{
	for (size_t d = 0; d < n; d++) {
		GPtrArray *files = td_list(dirs[d], ".pb", NULL);
		for (guint f = 0; f < files->len; f++) {
			const char *path = g_ptr_array_index(files, f);
			GBytes *b = read_file(path);
			size_t len;
			const uint8_t *p = g_bytes_get_data(b, &len);
			const ProtobufCMessageDescriptor *desc = NULL;
			tl_error err = {{0}};
			int rc = tl_pbwire_classify(p, len, &desc, &err);
			if (g_str_has_suffix(path, ".xplane.pb")) {
				if (rc == 0)
					fail_msg("XSpace '%s' classified as %s", path, desc->name);
				assert_true(g_str_has_prefix(err.msg, "not a RunMetadata"));
				(*xspace)++;
			} else {
				if (rc != 0)
					fail_msg("'%s': %s", path, err.msg);
				if (desc != &tensorflow__run_metadata__descriptor)
					fail_msg("'%s' classified as %s", path, desc->name);
				(*runmeta)++;
			}
			g_bytes_unref(b);
		}
		g_ptr_array_unref(files);
	}
}

/* Proves: classify_dirs on the repository's real dumps (TF 1.2's tfprof
 * test data, a JAX XSpace) and generated oracle runs. */
static void test_real_runmetadata(void **state)
{
	char *dirs[] = {td_data("real"), td_data("oracle"), td_data("oracle/exact")};
	int runmeta = 0, xspace = 0;
	classify_dirs(dirs, G_N_ELEMENTS(dirs), &runmeta, &xspace);
	assert_true(runmeta >= 5);
	assert_true(xspace >= 1);
	for (size_t d = 0; d < G_N_ELEMENTS(dirs); d++)
		g_free(dirs[d]);
}

/* Proves: classify_dirs on the shared folder's real dumps, those whose
 * source has no licence included (skipped where there is no shared folder). */
static void test_shared_runmetadata(void **state)
{
	char *dirs[] = {td_shared("realdata", NULL), td_shared("oracle", NULL)};
	int runmeta = 0, xspace = 0;
	classify_dirs(dirs, G_N_ELEMENTS(dirs), &runmeta, &xspace);
	assert_true(runmeta >= 3);
	assert_true(xspace >= 2);
	for (size_t d = 0; d < G_N_ELEMENTS(dirs); d++)
		g_free(dirs[d]);
}

/* Proves: a GraphDef of one node (name + op strings, which a StepStats or
 * RunMetadata reading would take for nested messages) is a GraphDef. */
static void test_graphdef_one_node(void **state)
{
	Tensorflow__NodeDef node = TENSORFLOW__NODE_DEF__INIT;
	node.name = "x";
	node.op = "Const";
	Tensorflow__NodeDef *nodes[] = {&node};
	Tensorflow__GraphDef g = TENSORFLOW__GRAPH_DEF__INIT;
	g.n_node = 1;
	g.node = nodes;
	GBytes *b = pack(&g.base);
	assert_classifies_as(b, &tensorflow__graph_def__descriptor);
	g_bytes_unref(b);

	/* With inputs, a device and versions, as real graphs have. */
	char *inputs[] = {"a", "b:1", "^c"};
	node.name = "MatMul";
	node.op = "MatMul";
	node.n_input = 3;
	node.input = inputs;
	node.device = "/job:localhost/replica:0/task:0/device:CPU:0";
	Tensorflow__VersionDef versions = TENSORFLOW__VERSION_DEF__INIT;
	versions.producer = 27;
	g.versions = &versions;
	b = pack(&g.base);
	assert_classifies_as(b, &tensorflow__graph_def__descriptor);
	g_bytes_unref(b);
}

/* Proves: a StepStats of one device and no ops is a StepStats. Its bytes are
 * exactly those of a GraphDef whose one node has a name and no op (which no
 * real graph has), so this holds by the documented preference; with one op
 * the GraphDef reading fails (the op's bytes are not text). */
static void test_stepstats_one_device(void **state)
{
	Tensorflow__DeviceStepStats dev = TENSORFLOW__DEVICE_STEP_STATS__INIT;
	dev.device = "/job:localhost/replica:0/task:0/device:CPU:0";
	Tensorflow__DeviceStepStats *devs[] = {&dev};
	Tensorflow__StepStats ss = TENSORFLOW__STEP_STATS__INIT;
	ss.n_dev_stats = 1;
	ss.dev_stats = devs;
	GBytes *b = pack(&ss.base);
	assert_classifies_as(b, &tensorflow__step_stats__descriptor);
	g_bytes_unref(b);

	Tensorflow__NodeExecStats ns = TENSORFLOW__NODE_EXEC_STATS__INIT;
	ns.node_name = "MatMul";
	ns.all_start_micros = 1500000000000000;
	ns.op_end_rel_micros = 12;
	ns.all_end_rel_micros = 13;
	ns.timeline_label = "MatMul = MatMul(a, b)";
	ns.thread_id = 7;
	Tensorflow__NodeExecStats *nss[] = {&ns};
	dev.n_node_stats = 1;
	dev.node_stats = nss;
	b = pack(&ss.base);
	assert_classifies_as(b, &tensorflow__step_stats__descriptor);
	g_bytes_unref(b);

	/* The same, wrapped in a RunMetadata, is a RunMetadata. */
	Tensorflow__RunMetadata rm = TENSORFLOW__RUN_METADATA__INIT;
	rm.step_stats = &ss;
	b = pack(&rm.base);
	assert_classifies_as(b, &tensorflow__run_metadata__descriptor);
	g_bytes_unref(b);
}

/* Proves: a RunMetadata holding only partition_graphs (field 3, which in a
 * GraphDef is the int32 `version`) is a RunMetadata. */
static void test_runmeta_only_partition_graphs(void **state)
{
	Tensorflow__NodeDef node = TENSORFLOW__NODE_DEF__INIT;
	node.name = "x";
	node.op = "Const";
	node.device = "/job:localhost/replica:0/task:0/device:CPU:0";
	Tensorflow__NodeDef *nodes[] = {&node};
	Tensorflow__GraphDef g = TENSORFLOW__GRAPH_DEF__INIT;
	g.n_node = 1;
	g.node = nodes;
	Tensorflow__GraphDef *graphs[] = {&g, &g};
	Tensorflow__RunMetadata rm = TENSORFLOW__RUN_METADATA__INIT;
	rm.n_partition_graphs = 2;
	rm.partition_graphs = graphs;
	GBytes *b = pack(&rm.base);
	assert_classifies_as(b, &tensorflow__run_metadata__descriptor);
	g_bytes_unref(b);
}

static Tensorflow__RunMetadata *unpack_data(const char *rel, GBytes **keep)
{
	gchar *path = td_data(rel);
	*keep = read_file(path);
	g_free(path);
	size_t n;
	const uint8_t *p = g_bytes_get_data(*keep, &n);
	ProtobufCMessage *m =
	    protobuf_c_message_unpack(&tensorflow__run_metadata__descriptor, NULL, n, p);
	assert_non_null(m);
	return (Tensorflow__RunMetadata *)m;
}

/* Proves: the parts of real RunMetadata, serialized alone, classify as what
 * they are: its StepStats, one partition GraphDef, a RunMetadata of only the
 * cost graph. */
static void test_real_parts(void **state)
{
	GBytes *raw;
	Tensorflow__RunMetadata *rm =
	    unpack_data("real/tfprof_testdata_run_meta_cpu_tf12.pb", &raw);
	assert_non_null(rm->step_stats);
	assert_non_null(rm->cost_graph);
	GBytes *b = pack(&rm->step_stats->base);
	assert_classifies_as(b, &tensorflow__step_stats__descriptor);
	g_bytes_unref(b);
	Tensorflow__RunMetadata cost_only = TENSORFLOW__RUN_METADATA__INIT;
	cost_only.cost_graph = rm->cost_graph;
	b = pack(&cost_only.base);
	assert_classifies_as(b, &tensorflow__run_metadata__descriptor);
	g_bytes_unref(b);
	protobuf_c_message_free_unpacked(&rm->base, NULL);
	g_bytes_unref(raw);

	rm = unpack_data("oracle/gen_g1_s1.pb", &raw);
	assert_true(rm->n_partition_graphs > 0);
	for (size_t i = 0; i < rm->n_partition_graphs; i++) {
		b = pack(&rm->partition_graphs[i]->base);
		assert_classifies_as(b, &tensorflow__graph_def__descriptor);
		g_bytes_unref(b);
	}
	b = pack(&rm->step_stats->base);
	assert_classifies_as(b, &tensorflow__step_stats__descriptor);
	g_bytes_unref(b);
	protobuf_c_message_free_unpacked(&rm->base, NULL);
	g_bytes_unref(raw);
}

/* An XSpace (TF2 profiler) as tensorflow/tsl/profiler/protobuf/xplane.proto
 * lays it out: planes{id name lines{id name timestamp_ns events{..}}
 * event_metadata{..}} hostnames. */
static GByteArray *xspace(bool with_ids)
{
	GByteArray *event = g_byte_array_new();
	put_uint(event, 1, 3);	    /* metadata_id */
	put_uint(event, 2, 1000);   /* offset_ps */
	put_uint(event, 3, 250000); /* duration_ps */
	GByteArray *line = g_byte_array_new();
	if (with_ids)
		put_uint(line, 1, 1);
	put_str(line, 2, "TraceMe");
	put_uint(line, 3, 1700000000000000000ull);
	put_msg(line, 4, event);
	GByteArray *meta = g_byte_array_new();
	put_uint(meta, 1, 3);
	put_str(meta, 2, "MatMul");
	GByteArray *entry = g_byte_array_new();
	put_uint(entry, 1, 3);
	put_msg(entry, 2, meta);
	GByteArray *plane = g_byte_array_new();
	if (with_ids)
		put_uint(plane, 1, 1);
	put_str(plane, 2, "/host:CPU");
	put_msg(plane, 3, line);
	put_msg(plane, 4, entry);
	GByteArray *space = g_byte_array_new();
	put_msg(space, 1, plane);
	put_str(space, 4, "localhost");
	return space;
}

static void assert_refused(const uint8_t *p, size_t n, const char *why)
{
	const ProtobufCMessageDescriptor *desc = NULL;
	tl_error err = {{0}};
	if (tl_pbwire_classify(p, n, &desc, &err) == 0)
		fail_msg("%s: accepted as %s", why, desc->name);
	if (!g_str_has_prefix(err.msg, "not a RunMetadata, StepStats or GraphDef ("))
		fail_msg("%s: unexpected message '%s'", why, err.msg);
}

/* Proves: a TF2 profiler XSpace, a well-formed protobuf of another schema,
 * is refused with and without its integer ids (without them, its first
 * fields are strings and messages like ours). */
static void test_refuse_xspace(void **state)
{
	GByteArray *a = xspace(true);
	assert_refused(a->data, a->len, "xspace with ids");
	g_byte_array_unref(a);
	a = xspace(false);
	assert_refused(a->data, a->len, "xspace without ids");
	g_byte_array_unref(a);
}

/* Proves: random bytes of several sizes and seeds are refused. */
static void test_refuse_random(void **state)
{
	const size_t sizes[] = {64, 4096, 1 << 20};
	for (size_t s = 0; s < G_N_ELEMENTS(sizes); s++)
		for (guint32 seed = 1; seed <= 8; seed++) {
			GRand *r = g_rand_new_with_seed(seed);
			uint8_t *buf = g_malloc(sizes[s]);
			for (size_t i = 0; i < sizes[s]; i++)
				buf[i] = (uint8_t)g_rand_int_range(r, 0, 256);
			char why[64];
			snprintf(why, sizeof why, "random %zu bytes, seed %u", sizes[s], seed);
			assert_refused(buf, sizes[s], why);
			g_free(buf);
			g_rand_free(r);
		}
}

/* Proves: empty input is an error with its own message, not a guess. */
static void test_refuse_empty(void **state)
{
	const ProtobufCMessageDescriptor *desc = NULL;
	tl_error err = {{0}};
	assert_int_equal(tl_pbwire_classify((const uint8_t *)"", 0, &desc, &err), -1);
	assert_string_equal(err.msg, "empty input");
	assert_null(desc);
}

/* Proves: the refusal names the field, byte and wire type that do not fit,
 * and text inputs (JSON, protobuf text) are refused as binary. */
static void test_refuse_message(void **state)
{
	const uint8_t fixed32[] = {0x0d, 1, 2, 3, 4};
	tl_error err = {{0}};
	const ProtobufCMessageDescriptor *desc = NULL;
	assert_int_equal(tl_pbwire_classify(fixed32, sizeof fixed32, &desc, &err), -1);
	assert_string_equal(err.msg,
			    "not a RunMetadata, StepStats or GraphDef (field 1 at byte 0 has wire "
			    "type 5)");
	const char *json = "{\"traceEvents\": []}";
	assert_refused((const uint8_t *)json, strlen(json), "json");
	const char *text = "step_stats {\n  dev_stats {\n    device: \"/cpu:0\"\n  }\n}\n";
	assert_refused((const uint8_t *)text, strlen(text), "text proto");
	/* A known field number at the top, truncated: said to be truncated. */
	const uint8_t cut[] = {0x0a, 0x10, 0x0a, 0x02};
	assert_int_equal(tl_pbwire_classify(cut, sizeof cut, &desc, &err), -1);
	assert_string_equal(err.msg, "truncated at byte 4 (expected RunMetadata: field 1 at "
				     "byte 0 runs past the end)");
}

/* Proves: strings must be text: a device name with control bytes or
 * invalid UTF-8 makes every schema not fit. */
static void test_refuse_binary_names(void **state)
{
	const char *bad[] = {"\x01\x02\x03", "/cpu:0\x7f", "\xff\xfe/cpu:0", "/cpu\xc3"};
	for (size_t i = 0; i < G_N_ELEMENTS(bad); i++) {
		Tensorflow__DeviceStepStats dev = TENSORFLOW__DEVICE_STEP_STATS__INIT;
		dev.device = (char *)bad[i];
		Tensorflow__DeviceStepStats *devs[] = {&dev};
		Tensorflow__StepStats ss = TENSORFLOW__STEP_STATS__INIT;
		ss.n_dev_stats = 1;
		ss.dev_stats = devs;
		GBytes *b = pack(&ss.base);
		size_t n;
		const uint8_t *p = g_bytes_get_data(b, &n);
		assert_refused(p, n, bad[i]);
		g_bytes_unref(b);
	}
}

static GByteArray *stepstats_with_op(void)
{
	GByteArray *ns = g_byte_array_new();
	put_str(ns, 1, "MatMul");
	put_uint(ns, 2, 1500000000000000ull);
	GByteArray *dev = g_byte_array_new();
	put_str(dev, 1, "/job:localhost/replica:0/task:0/device:CPU:0");
	put_msg(dev, 2, ns);
	GByteArray *ss = g_byte_array_new();
	put_msg(ss, 1, dev);
	return ss;
}

/* Proves: a known field whose message holds nothing of its type (only
 * unknown fields) makes the schema not fit, though the rest fits. */
static void test_refuse_foreign_inside(void **state)
{
	GByteArray *rm = g_byte_array_new();
	put_msg(rm, 1, stepstats_with_op());
	size_t at = rm->len;
	GByteArray *session = g_byte_array_new();
	put_str(session, 3, "xyz");
	put_msg(rm, 5, session);
	const ProtobufCMessageDescriptor *desc = NULL;
	tl_error err = {{0}};
	assert_int_equal(tl_pbwire_classify(rm->data, rm->len, &desc, &err), -1);
	char want[160];
	snprintf(want, sizeof want,
		 "not a RunMetadata, StepStats or GraphDef (field 3 at byte %zu is not in "
		 "SessionMetadata)",
		 at + 2);
	assert_string_equal(err.msg, want);
	g_byte_array_unref(rm);
}

/* Proves: a few unknown fields (a newer TensorFlow) are tolerated, but a
 * message that is mostly unknown fields is refused. */
static void test_unknown_fields(void **state)
{
	GByteArray *rm = g_byte_array_new();
	put_msg(rm, 1, stepstats_with_op());
	put_uint(rm, 99, 7);
	put_str(rm, 100, "new in some later TensorFlow");
	assert_ptr_equal(classify_ok(rm->data, rm->len), &tensorflow__run_metadata__descriptor);
	g_byte_array_unref(rm);

	GByteArray *ss = g_byte_array_new();
	GByteArray *dev = g_byte_array_new();
	put_str(dev, 1, "/cpu:0");
	put_msg(ss, 1, dev);
	for (uint32_t f = 6; f <= 8; f++)
		put_uint(ss, f, 1);
	assert_refused(ss->data, ss->len, "mostly unknown");
	g_byte_array_unref(ss);
}

/* Proves: repeated numbers may come packed, and a packed list that ends
 * inside a varint makes the schema not fit. */
static void test_packed(void **state)
{
	int64_t ids[] = {1, 300, 70000};
	Tensorflow__MemoryStats ms = TENSORFLOW__MEMORY_STATS__INIT;
	ms.n_persistent_tensor_alloc_ids = 3;
	ms.persistent_tensor_alloc_ids = ids;
	Tensorflow__NodeExecStats ns = TENSORFLOW__NODE_EXEC_STATS__INIT;
	ns.node_name = "v";
	ns.memory_stats = &ms;
	Tensorflow__NodeExecStats *nss[] = {&ns};
	Tensorflow__DeviceStepStats dev = TENSORFLOW__DEVICE_STEP_STATS__INIT;
	dev.device = "/cpu:0";
	dev.n_node_stats = 1;
	dev.node_stats = nss;
	Tensorflow__DeviceStepStats *devs[] = {&dev};
	Tensorflow__StepStats ss = TENSORFLOW__STEP_STATS__INIT;
	ss.n_dev_stats = 1;
	ss.dev_stats = devs;
	GBytes *b = pack(&ss.base);
	assert_classifies_as(b, &tensorflow__step_stats__descriptor);
	g_bytes_unref(b);

	const uint8_t cut_varint[] = {0x80};
	GByteArray *m = g_byte_array_new();
	put_len(m, 5, cut_varint, 1);
	GByteArray *n = g_byte_array_new();
	put_str(n, 1, "v");
	put_msg(n, 12, m);
	GByteArray *d = g_byte_array_new();
	put_str(d, 1, "/cpu:0");
	put_msg(d, 2, n);
	GByteArray *s = g_byte_array_new();
	put_msg(s, 1, d);
	assert_refused(s->data, s->len, "bad packed list");
	g_byte_array_unref(s);
}

/* Proves: the refusal reports the schema that read furthest (a RunMetadata
 * spoiled after its last byte names that byte), and groups (which TensorFlow
 * never writes) are refused, in known and unknown fields alike. */
static void test_refuse_where(void **state)
{
	gchar *path = td_data("real/tfprof_testdata_run_meta_cpu_tf12.pb");
	GBytes *b = read_file(path);
	g_free(path);
	size_t n;
	const uint8_t *p = g_bytes_get_data(b, &n);
	GByteArray *spoiled = g_byte_array_new();
	g_byte_array_append(spoiled, p, (guint)n);
	g_byte_array_append(spoiled, (const uint8_t *)"\x0f", 1);
	const ProtobufCMessageDescriptor *desc = NULL;
	tl_error err = {{0}};
	assert_int_equal(tl_pbwire_classify(spoiled->data, spoiled->len, &desc, &err), -1);
	char want[128];
	snprintf(want, sizeof want,
		 "not a RunMetadata, StepStats or GraphDef (field 1 at byte %zu has wire type 7)",
		 n);
	assert_string_equal(err.msg, want);
	/* The same with an unknown field (99) that starts a group. */
	g_byte_array_set_size(spoiled, (guint)n);
	g_byte_array_append(spoiled, (const uint8_t *)"\x9b\x06\x9c\x06", 4);
	assert_int_equal(tl_pbwire_classify(spoiled->data, spoiled->len, &desc, &err), -1);
	snprintf(want, sizeof want,
		 "not a RunMetadata, StepStats or GraphDef (field 99 at byte %zu has wire type 3)",
		 n);
	assert_string_equal(err.msg, want);
	g_byte_array_unref(spoiled);
	g_bytes_unref(b);

	const uint8_t group[] = {0x0b, 0x0c};
	assert_int_equal(tl_pbwire_classify(group, sizeof group, &desc, &err), -1);
	assert_string_equal(err.msg,
			    "not a RunMetadata, StepStats or GraphDef (field 1 at byte 0 has wire "
			    "type 3)");
}

/* Proves: large inputs are classified right (the walk caps its work below
 * the top level; timing is for the benchmarks, not asserted here). */
static void test_large(void **state)
{
	enum { N = 200000 };
	Tensorflow__NodeExecStats ns = TENSORFLOW__NODE_EXEC_STATS__INIT;
	ns.node_name = "layer/conv2d/Conv2D";
	ns.all_start_micros = 1500000000000000;
	ns.all_end_rel_micros = 13;
	ns.timeline_label = "Conv2D = Conv2D(x, w)";
	Tensorflow__NodeExecStats **nss = g_new(Tensorflow__NodeExecStats *, N);
	for (size_t i = 0; i < N; i++)
		nss[i] = &ns;
	Tensorflow__DeviceStepStats dev = TENSORFLOW__DEVICE_STEP_STATS__INIT;
	dev.device = "/job:localhost/replica:0/task:0/device:GPU:0";
	dev.n_node_stats = N;
	dev.node_stats = nss;
	Tensorflow__DeviceStepStats *devs[] = {&dev};
	Tensorflow__StepStats ss = TENSORFLOW__STEP_STATS__INIT;
	ss.n_dev_stats = 1;
	ss.dev_stats = devs;
	Tensorflow__RunMetadata rm = TENSORFLOW__RUN_METADATA__INIT;
	rm.step_stats = &ss;
	GBytes *b = pack(&rm.base);
	assert_classifies_as(b, &tensorflow__run_metadata__descriptor);
	g_bytes_unref(b);
	b = pack(&ss.base);
	assert_classifies_as(b, &tensorflow__step_stats__descriptor);
	g_bytes_unref(b);
	g_free(nss);

	Tensorflow__NodeDef node = TENSORFLOW__NODE_DEF__INIT;
	node.name = "layer/conv2d/Conv2D";
	node.op = "Conv2D";
	Tensorflow__NodeDef **nodes = g_new(Tensorflow__NodeDef *, N);
	for (size_t i = 0; i < N; i++)
		nodes[i] = &node;
	Tensorflow__GraphDef g = TENSORFLOW__GRAPH_DEF__INIT;
	g.n_node = N;
	g.node = nodes;
	b = pack(&g.base);
	assert_classifies_as(b, &tensorflow__graph_def__descriptor);
	g_bytes_unref(b);
	g_free(nodes);
}

int main(void)
{
	td_filter();
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_varint),
	    cmocka_unit_test(test_real_runmetadata),
	    cmocka_unit_test(test_shared_runmetadata),
	    cmocka_unit_test(test_graphdef_one_node),
	    cmocka_unit_test(test_stepstats_one_device),
	    cmocka_unit_test(test_runmeta_only_partition_graphs),
	    cmocka_unit_test(test_real_parts),
	    cmocka_unit_test(test_refuse_xspace),
	    cmocka_unit_test(test_refuse_random),
	    cmocka_unit_test(test_refuse_empty),
	    cmocka_unit_test(test_refuse_message),
	    cmocka_unit_test(test_refuse_binary_names),
	    cmocka_unit_test(test_refuse_foreign_inside),
	    cmocka_unit_test(test_unknown_fields),
	    cmocka_unit_test(test_packed),
	    cmocka_unit_test(test_refuse_where),
	    cmocka_unit_test(test_large),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
