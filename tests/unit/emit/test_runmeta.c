/* Unit tests of emit/runmeta.c, runs written back as a TFRecord stream of
 * RunMetadata. The truth is made apart from the library: the framing is
 * read as TensorFlow's record_writer.cc writes it (uint64 length, masked
 * crc32c of those 8 bytes, the data, masked crc32c of the data, all little
 * endian; mask = rotate right by 15, plus 0xa282ead8), the CRC-32C is
 * computed here bit by bit from its polynomial (0x82f63b78, reflected), and
 * the record is decoded by protobuf-c's own generated unpacker, not by the
 * library's decoder. Three runs are written (one with a device and two
 * executions, one empty, one with a graph node), each read back field by
 * field; then a record's bytes are checked against a crc computed on the
 * same bytes with one bit flipped, which must differ. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "emit/runmeta.h"

#include <glib.h>
#include <string.h>

#include "tmpdir.h"

static uint32_t crc32c_bitwise(const uint8_t *p, size_t n)
{
	uint32_t crc = 0xffffffffu;
	for (size_t i = 0; i < n; i++) {
		crc ^= p[i];
		for (int k = 0; k < 8; k++)
			crc = (crc >> 1) ^ (0x82f63b78u & (0u - (crc & 1u)));
	}
	return ~crc;
}

static uint32_t masked(uint32_t crc)
{
	return ((crc >> 15) | (crc << 17)) + 0xa282ead8u;
}

static uint64_t le64(const uint8_t *p)
{
	uint64_t v = 0;
	for (int i = 7; i >= 0; i--)
		v = (v << 8) | p[i];
	return v;
}

static uint32_t le32(const uint8_t *p)
{
	return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

/* The records of a TFRecord file: each checked, then unpacked. */
static GPtrArray *read_records(const uint8_t *data, size_t len)
{
	GPtrArray *metas = g_ptr_array_new();
	size_t at = 0;
	while (at < len) {
		assert_true(len - at >= 12);
		uint64_t n = le64(data + at);
		assert_int_equal(le32(data + at + 8), masked(crc32c_bitwise(data + at, 8)));
		assert_true(len - at - 12 >= n + 4);
		const uint8_t *body = data + at + 12;
		assert_int_equal(le32(body + n), masked(crc32c_bitwise(body, (size_t)n)));
		Tensorflow__RunMetadata *m = tensorflow__run_metadata__unpack(NULL, (size_t)n, body);
		assert_non_null(m);
		g_ptr_array_add(metas, m);
		at += 12 + (size_t)n + 4;
	}
	assert_int_equal(at, len);
	return metas;
}

static void write_runs(const char *path, Tensorflow__RunMetadata *const *metas, size_t n)
{
	tl_output *out = NULL;
	tl_error err = {{0}};
	assert_int_equal(tl_output_open(&out, path, false, NULL, 0, &err), 0);
	for (size_t i = 0; i < n; i++)
		tl_runmeta_write(out, metas[i]);
	assert_int_equal(tl_output_close(out, &err), 0);
}

static void test_three_runs_read_back(void **state)
{
	(void)state;
	Tensorflow__NodeExecStats a = TENSORFLOW__NODE_EXEC_STATS__INIT;
	a.node_name = "conv/Conv2D";
	a.all_start_micros = 1500000000123456;
	a.all_end_rel_micros = 250;
	a.timeline_label = "conv/Conv2D = Conv2D(x, w)";
	Tensorflow__NodeExecStats b = TENSORFLOW__NODE_EXEC_STATS__INIT;
	b.node_name = "relu";
	b.all_start_micros = 1500000000123706;
	b.thread_id = 77;
	Tensorflow__NodeExecStats *stats[] = {&a, &b};
	Tensorflow__DeviceStepStats dev = TENSORFLOW__DEVICE_STEP_STATS__INIT;
	dev.device = "/job:localhost/replica:0/task:0/device:GPU:0";
	dev.n_node_stats = 2;
	dev.node_stats = stats;
	Tensorflow__DeviceStepStats *devs[] = {&dev};
	Tensorflow__StepStats ss = TENSORFLOW__STEP_STATS__INIT;
	ss.n_dev_stats = 1;
	ss.dev_stats = devs;
	Tensorflow__RunMetadata one = TENSORFLOW__RUN_METADATA__INIT;
	one.step_stats = &ss;

	Tensorflow__RunMetadata empty = TENSORFLOW__RUN_METADATA__INIT;

	Tensorflow__NodeDef node = TENSORFLOW__NODE_DEF__INIT;
	node.name = "w";
	node.op = "VariableV2";
	node.device = "/device:CPU:0";
	Tensorflow__NodeDef *nodes[] = {&node};
	Tensorflow__GraphDef g = TENSORFLOW__GRAPH_DEF__INIT;
	g.n_node = 1;
	g.node = nodes;
	Tensorflow__GraphDef *graphs[] = {&g};
	Tensorflow__RunMetadata with_graph = TENSORFLOW__RUN_METADATA__INIT;
	with_graph.n_partition_graphs = 1;
	with_graph.partition_graphs = graphs;

	char *path = g_build_filename(tmpdir, "runs.tfrecord", NULL);
	Tensorflow__RunMetadata *in[] = {&one, &empty, &with_graph};
	write_runs(path, in, 3);
	gchar *data = NULL;
	gsize len = 0;
	assert_true(g_file_get_contents(path, &data, &len, NULL));
	GPtrArray *out = read_records((const uint8_t *)data, len);
	assert_int_equal(out->len, 3);

	Tensorflow__RunMetadata *r = g_ptr_array_index(out, 0);
	assert_non_null(r->step_stats);
	assert_int_equal(r->step_stats->n_dev_stats, 1);
	Tensorflow__DeviceStepStats *d = r->step_stats->dev_stats[0];
	assert_string_equal(d->device, "/job:localhost/replica:0/task:0/device:GPU:0");
	assert_int_equal(d->n_node_stats, 2);
	assert_string_equal(d->node_stats[0]->node_name, "conv/Conv2D");
	assert_int_equal(d->node_stats[0]->all_start_micros, 1500000000123456);
	assert_int_equal(d->node_stats[0]->all_end_rel_micros, 250);
	assert_string_equal(d->node_stats[0]->timeline_label, "conv/Conv2D = Conv2D(x, w)");
	assert_string_equal(d->node_stats[1]->node_name, "relu");
	assert_int_equal(d->node_stats[1]->thread_id, 77);

	r = g_ptr_array_index(out, 1);
	assert_null(r->step_stats);
	assert_int_equal(r->n_partition_graphs, 0);

	r = g_ptr_array_index(out, 2);
	assert_null(r->step_stats);
	assert_int_equal(r->n_partition_graphs, 1);
	assert_int_equal(r->partition_graphs[0]->n_node, 1);
	assert_string_equal(r->partition_graphs[0]->node[0]->name, "w");
	assert_string_equal(r->partition_graphs[0]->node[0]->op, "VariableV2");
	assert_string_equal(r->partition_graphs[0]->node[0]->device, "/device:CPU:0");

	/* The empty run is a record of no bytes: 16 bytes of framing alone. */
	size_t first = 12 + (size_t)le64((const uint8_t *)data) + 4;
	assert_int_equal(le64((const uint8_t *)data + first), 0);

	/* A flipped bit in the first record's data changes its crc: the
	 * check above is not vacuous. */
	uint8_t *body = (uint8_t *)data + 12;
	uint32_t before = masked(crc32c_bitwise(body, (size_t)le64((const uint8_t *)data)));
	body[0] ^= 1;
	assert_int_not_equal(before, masked(crc32c_bitwise(body, (size_t)le64((const uint8_t *)data))));

	for (guint i = 0; i < out->len; i++)
		tensorflow__run_metadata__free_unpacked(g_ptr_array_index(out, i), NULL);
	g_ptr_array_free(out, TRUE);
	g_free(data);
	g_free(path);
}

/* The CRC-32C check value of "123456789" (RFC 3720, appendix B.4):
 * the bitwise CRC above is the one the framing uses. */
static void test_crc32c_check_value(void **state)
{
	(void)state;
	assert_int_equal(crc32c_bitwise((const uint8_t *)"123456789", 9), 0xe3069283u);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_crc32c_check_value),
	    cmocka_unit_test(test_three_runs_read_back),
	};
	return cmocka_run_group_tests_name("emit/runmeta", tests, tmpdir_setup, tmpdir_teardown);
}
