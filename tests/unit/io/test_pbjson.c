/* Unit tests for pbjson.c: proto3 JSON into wire format. Each converted
 * message is decoded by protobuf-c's own unpacker (not the project's
 * decoder) and its fields compared with the values the JSON mapping's
 * rules give (developers.google.com/protocol-buffers/docs/proto3#json),
 * written by hand here. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include "io/format.h"
#include "io/pbjson.h"
#include "tensorflow.pb-c.h"

#include <glib.h>
#include <math.h>
#include <stdint.h>
#include <string.h>

#include "testdata.h"

/* Converts `json` as `desc` (NULL: guessed) and unpacks it with protobuf-c;
 * fails the test when either refuses. */
static ProtobufCMessage *convert_as(const ProtobufCMessageDescriptor *desc, const char *json)
{
	GByteArray *wire = g_byte_array_new();
	tl_error err = {{0}};
	const ProtobufCMessageDescriptor *d = desc;
	if (tl_pbjson_to_wire((const uint8_t *)json, strlen(json), &d, wire, &err) != 0)
		fail_msg("refused: %s\n%s", err.msg, json);
	if (desc != NULL)
		assert_ptr_equal(d, desc);
	ProtobufCMessage *msg = protobuf_c_message_unpack(d, NULL, wire->len, wire->data);
	g_byte_array_free(wire, TRUE);
	assert_non_null(msg);
	return msg;
}

/* The error converting `json` as `desc` gives (asserting it fails and leaves
 * the output as it was). */
static const char *refusal(const ProtobufCMessageDescriptor *desc, const char *json)
{
	static tl_error err;
	GByteArray *wire = g_byte_array_new();
	g_byte_array_append(wire, (const guint8 *)"xy", 2);
	const ProtobufCMessageDescriptor *d = desc;
	memset(&err, 0, sizeof err);
	assert_int_equal(tl_pbjson_to_wire((const uint8_t *)json, strlen(json), &d, wire, &err),
			 -1);
	assert_int_equal(wire->len, 2);
	g_byte_array_free(wire, TRUE);
	/* an error about the bytes ends by naming what they were read as:
	 * checked here, and left out of the text the tests compare */
	if (d != NULL &&
	    (g_str_has_prefix(err.msg, "at byte") || g_str_has_prefix(err.msg, "invalid JSON"))) {
		const char *type = d->name + strlen("tensorflow.");
		char *suffix = g_strdup_printf(" (protobuf JSON of a %s)", type);
		if (!g_str_has_suffix(err.msg, suffix))
			fail_msg("'%s' does not end with '%s'", err.msg, suffix);
		err.msg[strlen(err.msg) - strlen(suffix)] = '\0';
		g_free(suffix);
	}
	return err.msg;
}

static Tensorflow__TensorProto *tensor(const char *json)
{
	return (Tensorflow__TensorProto *)convert_as(&tensorflow__tensor_proto__descriptor, json);
}

/* Proves: every scalar kind the schema holds reads from its JSON forms:
 * int32 (number, negative), int64 as strings at both ends of its range and
 * as a number beyond 2^53 (read exactly, not through a double), uint32 and
 * uint64 at their maxima, whole numbers written as floats (1e3, 7.0), floats
 * and doubles as numbers and as strings with NaN and the infinities, bools,
 * an enum by name, bytes as base64. */
static void test_scalars(void **state)
{
	Tensorflow__TensorProto *t = tensor(
	    "{\"dtype\": \"DT_FLOAT\", \"versionNumber\": -7, \"tensorContent\": \"AAEC/w==\","
	    " \"halfVal\": [1, -2147483648, 2147483647],"
	    " \"floatVal\": [1.5, \"NaN\", \"Infinity\", \"-Infinity\", \"2.5\", "
	    "3.4028234663852886e+38],"
	    " \"doubleVal\": [1e300, \"-0.25\", 5e-324],"
	    " \"int64Val\": [\"-9223372036854775808\", 9007199254740993, \"9223372036854775807\", "
	    "1e3],"
	    " \"boolVal\": [true, false, true],"
	    " \"uint32Val\": [4294967295, \"0\", 7.0],"
	    " \"uint64Val\": [\"18446744073709551615\", 18446744073709551615]}");
	assert_int_equal(t->dtype, TENSORFLOW__DATA_TYPE__DT_FLOAT);
	assert_int_equal(t->version_number, -7);
	assert_int_equal(t->tensor_content.len, 4);
	assert_memory_equal(t->tensor_content.data, "\x00\x01\x02\xff", 4);
	assert_int_equal(t->n_half_val, 3);
	assert_int_equal(t->half_val[0], 1);
	assert_int_equal(t->half_val[1], INT32_MIN);
	assert_int_equal(t->half_val[2], INT32_MAX);
	assert_int_equal(t->n_float_val, 6);
	assert_true(t->float_val[0] == 1.5f);
	assert_true(isnan(t->float_val[1]));
	assert_true(isinf(t->float_val[2]) && t->float_val[2] > 0);
	assert_true(isinf(t->float_val[3]) && t->float_val[3] < 0);
	assert_true(t->float_val[4] == 2.5f);
	assert_true(t->float_val[5] == FLT_MAX);
	assert_int_equal(t->n_double_val, 3);
	assert_true(t->double_val[0] == 1e300);
	assert_true(t->double_val[1] == -0.25);
	assert_true(t->double_val[2] == 5e-324);
	assert_int_equal(t->n_int64_val, 4);
	assert_true(t->int64_val[0] == INT64_MIN);
	assert_true(t->int64_val[1] == INT64_C(9007199254740993));
	assert_true(t->int64_val[2] == INT64_MAX);
	assert_true(t->int64_val[3] == 1000);
	assert_int_equal(t->n_bool_val, 3);
	assert_true(t->bool_val[0] && !t->bool_val[1] && t->bool_val[2]);
	assert_int_equal(t->n_uint32_val, 3);
	assert_true(t->uint32_val[0] == UINT32_MAX);
	assert_true(t->uint32_val[1] == 0);
	assert_true(t->uint32_val[2] == 7);
	assert_int_equal(t->n_uint64_val, 2);
	assert_true(t->uint64_val[0] == UINT64_MAX);
	assert_true(t->uint64_val[1] == UINT64_MAX);
	protobuf_c_message_free_unpacked(&t->base, NULL);
}

/* Proves: fields read by their original names as by their JSON names, and
 * enums by number as by name. */
static void test_names_and_enums(void **state)
{
	Tensorflow__TensorProto *t = tensor("{\"dtype\": 9, \"version_number\": 3, "
					    "\"int64_val\": [\"5\"], \"tensor_shape\": "
					    "{\"unknown_rank\": true}}");
	assert_int_equal(t->dtype, TENSORFLOW__DATA_TYPE__DT_INT64);
	assert_int_equal(t->version_number, 3);
	assert_int_equal(t->n_int64_val, 1);
	assert_true(t->int64_val[0] == 5);
	assert_non_null(t->tensor_shape);
	assert_true(t->tensor_shape->unknown_rank);
	protobuf_c_message_free_unpacked(&t->base, NULL);
	/* an enum name this schema lacks: warned, the field left at its default */
	size_t before = tl_warn_pending();
	t = tensor("{\"dtype\": \"DT_NOT_A_TYPE\", \"versionNumber\": 2}");
	assert_int_equal(t->dtype, 0);
	assert_int_equal(t->version_number, 2);
	assert_int_equal(tl_warn_pending(), before + 1);
	protobuf_c_message_free_unpacked(&t->base, NULL);
	/* an enum number this schema lacks is kept: proto3 enums are open */
	t = tensor("{\"dtype\": 1000}");
	assert_int_equal(t->dtype, 1000);
	protobuf_c_message_free_unpacked(&t->base, NULL);
}

/* Proves: bytes read from standard and URL-safe base64, with and without
 * padding, an escaped slash included; what is not base64 is refused. */
static void test_base64(void **state)
{
	static const struct {
		const char *b64;
		const char *bytes;
		size_t len;
	} ok[] = {
	    {"", "", 0},
	    {"+/8=", "\xfb\xff", 2},
	    {"-_8", "\xfb\xff", 2},
	    {"-_8=", "\xfb\xff", 2},
	    {"aGk", "hi", 2},
	    {"aGk=", "hi", 2},
	    {"aA==", "h", 1},
	    {"aA", "h", 1},
	    {"AAEC\\/w", "\x00\x01\x02\xff", 4},
	    {"aGVsbG8gd29ybGQ=", "hello world", 11},
	};
	for (size_t i = 0; i < G_N_ELEMENTS(ok); i++) {
		char *json = g_strdup_printf("{\"tensorContent\": \"%s\"}", ok[i].b64);
		Tensorflow__TensorProto *t = tensor(json);
		assert_int_equal(t->tensor_content.len, ok[i].len);
		if (ok[i].len > 0)
			assert_memory_equal(t->tensor_content.data, ok[i].bytes, ok[i].len);
		protobuf_c_message_free_unpacked(&t->base, NULL);
		g_free(json);
	}
	const char *bad[] = {"A", "AAAAA", "a*bc", "aGk==", "a=Gk", "aGk===", "aG k"};
	for (size_t i = 0; i < G_N_ELEMENTS(bad); i++) {
		char *json = g_strdup_printf("{\"tensorContent\": \"%s\"}", bad[i]);
		assert_string_equal(refusal(&tensorflow__tensor_proto__descriptor, json),
				    "at byte 18: expected a base64 string for "
				    "TensorProto.tensor_content, found a string that is not");
		g_free(json);
	}
}

/* Proves: a RunMetadata's nesting reads whole: repeated messages, repeated
 * strings, a map with integer keys (thread_names) and a map of messages
 * (attr) whose values hold a oneof of every kind, strings with escapes
 * (a surrogate pair among them), the message guessed from its first key. */
static void test_nested(void **state)
{
	const char *json =
	    "{\"stepStats\": {\"devStats\": [{\"device\": \"/device:CPU:0\", \"nodeStats\": ["
	    "{\"nodeName\": \"a\\/b\\u00e9\\ud83d\\ude00\", \"allStartMicros\": \"10\","
	    " \"threadId\": 4294967295, \"memory\": [{\"allocatorName\": \"cpu\","
	    " \"allocationRecords\": [{\"allocMicros\": \"11\", \"allocBytes\": \"-4\"}]}]},"
	    "{\"node_name\": \"b\", \"output\": [{\"slot\": 1, \"tensorDescription\":"
	    " {\"dtype\": \"DT_HALF\", \"allocationDescription\": {\"ptr\": "
	    "\"18446744073709551615\"}}}]}],"
	    " \"threadNames\": {\"7\": \"main\", \"4294967295\": \"last\"}}, {\"device\": \"x\"}]},"
	    " \"partitionGraphs\": [{\"node\": [{\"name\": \"n\", \"op\": \"Add\","
	    " \"input\": [\"x\", \"y:1\", \"^z\"], \"attr\": {"
	    "\"T\": {\"type\": \"DT_FLOAT\"},"
	    " \"s\": {\"shape\": {\"dim\": [{\"size\": \"3\"}, {\"size\": -1, \"name\": \"b\"}]}},"
	    " \"l\": {\"list\": {\"i\": [\"1\", 2], \"type\": [\"DT_INT32\", 1], \"s\": "
	    "[\"eA==\"]}},"
	    " \"f\": {\"f\": 0.5}, \"b\": {\"b\": true}, \"by\": {\"s\": \"eHk=\"}}}],"
	    " \"versions\": {\"producer\": 27}}, {}]}";
	Tensorflow__RunMetadata *m = (Tensorflow__RunMetadata *)convert_as(NULL, json);
	assert_non_null(m->step_stats);
	assert_int_equal(m->step_stats->n_dev_stats, 2);
	Tensorflow__DeviceStepStats *d = m->step_stats->dev_stats[0];
	assert_string_equal(d->device, "/device:CPU:0");
	assert_int_equal(d->n_node_stats, 2);
	assert_string_equal(d->node_stats[0]->node_name, "a/b\xc3\xa9\xf0\x9f\x98\x80");
	assert_true(d->node_stats[0]->all_start_micros == 10);
	assert_true(d->node_stats[0]->thread_id == UINT32_MAX);
	assert_int_equal(d->node_stats[0]->n_memory, 1);
	assert_string_equal(d->node_stats[0]->memory[0]->allocator_name, "cpu");
	assert_int_equal(d->node_stats[0]->memory[0]->n_allocation_records, 1);
	assert_true(d->node_stats[0]->memory[0]->allocation_records[0]->alloc_micros == 11);
	assert_true(d->node_stats[0]->memory[0]->allocation_records[0]->alloc_bytes == -4);
	assert_string_equal(d->node_stats[1]->node_name, "b");
	assert_int_equal(d->node_stats[1]->n_output, 1);
	assert_int_equal(d->node_stats[1]->output[0]->slot, 1);
	assert_int_equal(d->node_stats[1]->output[0]->tensor_description->dtype,
			 TENSORFLOW__DATA_TYPE__DT_HALF);
	assert_true(d->node_stats[1]->output[0]->tensor_description->allocation_description->ptr ==
		    UINT64_MAX);
	assert_int_equal(d->n_thread_names, 2);
	assert_int_equal(d->thread_names[0]->key, 7);
	assert_string_equal(d->thread_names[0]->value, "main");
	assert_true(d->thread_names[1]->key == UINT32_MAX);
	assert_string_equal(d->thread_names[1]->value, "last");
	assert_string_equal(m->step_stats->dev_stats[1]->device, "x");
	assert_int_equal(m->n_partition_graphs, 2);
	Tensorflow__GraphDef *g = m->partition_graphs[0];
	assert_int_equal(g->versions->producer, 27);
	assert_int_equal(g->n_node, 1);
	Tensorflow__NodeDef *n = g->node[0];
	assert_string_equal(n->op, "Add");
	assert_int_equal(n->n_input, 3);
	assert_string_equal(n->input[2], "^z");
	assert_int_equal(n->n_attr, 6);
	assert_string_equal(n->attr[0]->key, "T");
	assert_int_equal(n->attr[0]->value->value_case, TENSORFLOW__ATTR_VALUE__VALUE_TYPE);
	assert_int_equal(n->attr[0]->value->type, TENSORFLOW__DATA_TYPE__DT_FLOAT);
	Tensorflow__TensorShapeProto *sh = n->attr[1]->value->shape;
	assert_int_equal(sh->n_dim, 2);
	assert_true(sh->dim[0]->size == 3 && sh->dim[1]->size == -1);
	assert_string_equal(sh->dim[1]->name, "b");
	Tensorflow__AttrValue__ListValue *l = n->attr[2]->value->list;
	assert_int_equal(l->n_i, 2);
	assert_true(l->i[0] == 1 && l->i[1] == 2);
	assert_int_equal(l->n_type, 2);
	assert_int_equal(l->type[0], TENSORFLOW__DATA_TYPE__DT_INT32);
	assert_int_equal(l->type[1], TENSORFLOW__DATA_TYPE__DT_FLOAT);
	assert_int_equal(l->n_s, 1);
	assert_memory_equal(l->s[0].data, "x", 1);
	assert_true(n->attr[3]->value->f == 0.5f);
	assert_true(n->attr[4]->value->b);
	assert_int_equal(n->attr[5]->value->s.len, 2);
	assert_memory_equal(n->attr[5]->value->s.data, "xy", 2);
	assert_int_equal(m->partition_graphs[1]->n_node, 0);
	protobuf_c_message_free_unpacked(&m->base, NULL);
}

/* Proves: null is an absent field (a message, a scalar, a repeated field, a
 * map); unknown fields (scalars, arrays, objects, at the top and deeper) are
 * skipped with one warning each; a StepStats and a GraphDef are told from
 * their first keys. */
static void test_null_unknown_guess(void **state)
{
	size_t before = tl_warn_pending();
	Tensorflow__RunMetadata *m = (Tensorflow__RunMetadata *)convert_as(
	    NULL, "{\"costGraph\": null, \"future\": {\"a\": [1, {\"b\": null}]}, \"stepStats\":"
		  " {\"devStats\": [{\"device\": null, \"nodeStats\": null, \"threadNames\": null,"
		  " \"newField\": [\"x\"], \"newer\": 1.5}]}, \"partitionGraphs\": null}");
	assert_null(m->cost_graph);
	assert_int_equal(m->n_partition_graphs, 0);
	assert_int_equal(m->step_stats->n_dev_stats, 1);
	assert_string_equal(m->step_stats->dev_stats[0]->device, "");
	assert_int_equal(tl_warn_pending(), before + 3);
	protobuf_c_message_free_unpacked(&m->base, NULL);

	tl_error err = {{0}};
	GByteArray *wire = g_byte_array_new();
	const ProtobufCMessageDescriptor *d = NULL;
	const char *ss = "{\"dev_stats\": [{\"device\": \"d\"}]}";
	assert_int_equal(tl_pbjson_to_wire((const uint8_t *)ss, strlen(ss), &d, wire, &err), 0);
	assert_ptr_equal(d, &tensorflow__step_stats__descriptor);
	d = NULL;
	const char *gd = "{\"unknownFirst\": {}, \"node\": [{\"name\": \"n\"}]}";
	assert_int_equal(tl_pbjson_to_wire((const uint8_t *)gd, strlen(gd), &d, wire, &err), 0);
	assert_ptr_equal(d, &tensorflow__graph_def__descriptor);
	g_byte_array_free(wire, TRUE);
}

/* Proves: a document that is one JSON string (json.dumps of
 * MessageToJson's text) reads as its content; errors inside it count bytes
 * in the content and say so. */
static void test_wrapped(void **state)
{
	Tensorflow__RunMetadata *m = (Tensorflow__RunMetadata *)convert_as(
	    NULL, "  \"{\\n  \\\"stepStats\\\": {\\\"devStats\\\": [{\\\"device\\\": "
		  "\\\"\\\\u00e9\\\"}]}\\n}\"\n");
	assert_string_equal(m->step_stats->dev_stats[0]->device, "\xc3\xa9");
	protobuf_c_message_free_unpacked(&m->base, NULL);
	assert_string_equal(refusal(NULL, "\"{\\\"stepStats\\\": 1}\""),
			    "at byte 14 of the document's JSON string: expected an object for "
			    "RunMetadata.step_stats, found a number");
	assert_string_equal(refusal(NULL, "\"{\\\"stepStats\\\": {\""),
			    "invalid JSON at byte 15 of the document's JSON string: unexpected "
			    "end of input");
	GByteArray *wire = g_byte_array_new();
	tl_error err = {{0}};
	const ProtobufCMessageDescriptor *d = &tensorflow__step_stats__descriptor;
	const char *json = "{\"devStats\": [{\"device\": 5}]}";
	assert_int_equal(tl_pbjson_to_wire((const uint8_t *)json, strlen(json), &d, wire, &err),
			 -1);
	assert_string_equal(err.msg, "at byte 25: expected a string for DeviceStepStats.device, "
				     "found a number (protobuf JSON of a StepStats)");
	g_byte_array_free(wire, TRUE);
	assert_string_equal(refusal(NULL, "\"{}\" x"),
			    "invalid JSON at byte 5: text after the document");
	assert_string_equal(refusal(NULL, "\"\""), "a JSON string with nothing in it");
	assert_string_equal(refusal(NULL, "\"node\""),
			    "a JSON string that holds no JSON object (where protobuf JSON of a "
			    "RunMetadata, StepStats or GraphDef would be)");
}

/* Proves: what breaks the JSON or the mapping is one error naming the byte
 * and what was expected, for each kind of value. */
static void test_refusals(void **state)
{
	const ProtobufCMessageDescriptor *t = &tensorflow__tensor_proto__descriptor;
	const ProtobufCMessageDescriptor *r = &tensorflow__run_metadata__descriptor;
	static const struct {
		const char *json;
		const char *msg;
	} cases[] = {
	    {"", "empty input"},
	    {" \n", "empty input"},
	    {"{\"versionNumber\": 2147483648}",
	     "at byte 18: expected an int32 for TensorProto.version_number, found 2147483648"},
	    {"{\"versionNumber\": -2147483649}",
	     "at byte 18: expected an int32 for TensorProto.version_number, found -2147483649"},
	    {"{\"versionNumber\": 1.5}",
	     "at byte 18: expected an int32 for TensorProto.version_number, found 1.5"},
	    {"{\"int64Val\": [\"1.5\"]}",
	     "at byte 14: expected an int64 for TensorProto.int64_val, found \"1.5\""},
	    {"{\"int64Val\": [\"9223372036854775808\"]}",
	     "at byte 14: expected an int64 for TensorProto.int64_val, found "
	     "\"9223372036854775808\""},
	    {"{\"int64Val\": [\" 1\"]}",
	     "at byte 14: expected an int64 for TensorProto.int64_val, found \" 1\""},
	    {"{\"int64Val\": [\"+1\"]}",
	     "at byte 14: expected an int64 for TensorProto.int64_val, found \"+1\""},
	    {"{\"uint64Val\": [-1]}",
	     "at byte 15: expected a uint64 for TensorProto.uint64_val, found -1"},
	    {"{\"uint32Val\": [4294967296]}",
	     "at byte 15: expected a uint32 for TensorProto.uint32_val, found 4294967296"},
	    {"{\"boolVal\": [1]}", "at byte 13: expected a bool for TensorProto.bool_val, found a "
				   "number"},
	    {"{\"boolVal\": [\"true\"]}",
	     "at byte 13: expected a bool for TensorProto.bool_val, found a string"},
	    {"{\"floatVal\": [\"nan\"]}",
	     "at byte 14: expected a float for TensorProto.float_val, found \"nan\""},
	    {"{\"floatVal\": [1e39]}", "at byte 14: 1e39 is out of range for TensorProto.float_val "
				       "(a float)"},
	    {"{\"doubleVal\": [1e999]}",
	     "at byte 15: expected a double for TensorProto.double_val, found 1e999"},
	    {"{\"dtype\": true}",
	     "at byte 10: expected an enum name or number for TensorProto.dtype, found a bool"},
	    {"{\"tensorContent\": 5}",
	     "at byte 18: expected a base64 string for TensorProto.tensor_content, found a "
	     "number"},
	    {"{\"int64Val\": 5}",
	     "at byte 13: expected an array for repeated field TensorProto.int64_val, found a "
	     "number"},
	    {"{\"int64Val\": [1, null]}",
	     "at byte 17: null in repeated field TensorProto.int64_val"},
	    {"{\"tensorShape\": []}",
	     "at byte 16: expected an object for TensorProto.tensor_shape, found an array"},
	    {"{\"int64Val\": [1,]}", "invalid JSON at byte 16: expected a value"},
	    {"{\"int64Val\": [01]}", "invalid JSON at byte 15: expected ',' or ']' after a value"},
	    {"{\"dtype\": 1 \"x\": 2}",
	     "invalid JSON at byte 12: expected ',' or '}' after a value"},
	    {"{\"dtype\": 1", "invalid JSON at byte 11: unexpected end of input"},
	    {"{\"dtype\": 1} {}", "invalid JSON at byte 13: text after the document"},
	    {"{\"dtype\": \"DT_\xff\"}", "invalid JSON at byte 14: invalid UTF-8 in a string"},
	    {"[1]", "at byte 0: expected a JSON object (protobuf JSON of a RunMetadata, StepStats "
		    "or GraphDef), found an array"},
	};
	for (size_t i = 0; i < G_N_ELEMENTS(cases); i++)
		assert_string_equal(refusal(t, cases[i].json), cases[i].msg);
	assert_string_equal(refusal(r, "{\"traceEvents\": [], \"otherData\": {}}"),
			    "a JSON object none of whose top-level keys ('traceEvents', "
			    "'otherData') is a field of RunMetadata");
	assert_string_equal(refusal(NULL, "{\"traceEvents\": []}"),
			    "at byte 0: a JSON object with no top-level key that is a field of a "
			    "RunMetadata, StepStats or GraphDef");
	assert_string_equal(
	    refusal(r, "{\"stepStats\": {\"devStats\": [{\"threadNames\": {\"x\": \"a\"}}]}}"),
	    "at byte 45: expected a uint32 as a key of DeviceStepStats.ThreadNamesEntry, found "
	    "\"x\"");
	assert_string_equal(
	    refusal(r, "{\"stepStats\": {\"devStats\": [{\"threadNames\": {\"1\": null}}]}}"),
	    "at byte 50: null as a value of map field DeviceStepStats.thread_names");
	/* 100 messages below the top one are read, as the decoder reads them; 101
	 * are refused, as the decoder refuses them (map entries count: RunMetadata,
	 * GraphDef 1, NodeDef 2, AttrEntry 3, AttrValue 4, then 3 a level) */
	for (int extra = 0; extra < 2; extra++) {
		GString *s = g_string_new("{\"partitionGraphs\": [{\"node\": [{\"attr\": {\"a\":");
		for (int i = 0; i < 32; i++)
			g_string_append(s, " {\"func\": {\"attr\": {\"a\":");
		g_string_append(s,
				extra ? " {\"shape\": {\"unknownRank\": true}}" : " {\"type\": 1}");
		for (int i = 0; i < 32; i++)
			g_string_append(s, "}}}");
		g_string_append(s, "}}]}]}");
		if (extra) {
			assert_string_equal(refusal(r, s->str),
					    "at byte 824: messages nested deeper than 100 levels");
		} else {
			ProtobufCMessage *m = convert_as(r, s->str);
			protobuf_c_message_free_unpacked(m, NULL);
		}
		g_string_free(s, TRUE);
	}
	/* messages nested far past protobuf's limit: an error, not a stack overflow */
	GString *deep = g_string_new("{\"partitionGraphs\": [{\"node\": [{\"attr\": {\"a\":");
	for (int i = 0; i < 60; i++)
		g_string_append(deep, " {\"func\": {\"attr\": {\"a\":");
	g_string_append(deep, " {}");
	for (int i = 0; i < 60; i++)
		g_string_append(deep, "}}}");
	g_string_append(deep, "}}]}]}");
	const char *msg = refusal(r, deep->str);
	assert_non_null(strstr(msg, "messages nested deeper than 100 levels"));
	g_string_free(deep, TRUE);
}

/* Proves: the sniff takes MessageToJson's output (both namings, wrapped in
 * a string, after a byte-order mark) for protobuf JSON, and Chrome traces,
 * other JSON and binary protobuf for what they are. */
static void test_sniff(void **state)
{
	static const struct {
		const char *head;
		bool yes;
	} cases[] = {
	    {"{\n  \"stepStats\": {\n    \"devStats\": [", true},
	    {"{\"step_stats\": {", true},
	    {"{\"devStats\": []}", true},
	    {"{\"node\": [{\"name\": \"a\"", true},
	    {"{\"versions\": {\"producer\": 1}}", true},
	    {"{\"partitionGraphs\": [", true},
	    {"\xef\xbb\xbf {\"costGraph\": {}}", true},
	    {"{\"displayTimeUnit\": \"ns\", \"stepStats\": {}}", true},
	    {"\"{\\n  \\\"stepStats\\\": {\\n    \\\"devSt", true},
	    {"\"{\\u0022node\\u0022: []}\"", true},
	    {"\"{}\"", true},
	    {"\"not json at all\"  \n", true},
	    {"{\"traceEvents\": [", false},
	    {"{\"version\": 1, \"traceEvents\": []}", false},
	    {"{\"schemaVersion\": 1, \"deviceProperties\": [], \"traceEvents\": [", false},
	    {"[{\"ph\": \"X\"}]", false},
	    {"{}", false},
	    {"{\"foo\": 1}", false},
	    {"\"unterminated", false},
	    {"\"a\" \"b\"", false},
	    {"\x22\x05\x0a\x03\x0a\x01x", false},
	    {"step_stats {", false},
	};
	for (size_t i = 0; i < G_N_ELEMENTS(cases); i++) {
		const char *h = cases[i].head;
		if (tl_pbjson_sniff((const uint8_t *)h, strlen(h)) != cases[i].yes)
			fail_msg("sniff of '%s' should be %d", h, cases[i].yes);
		tl_format f = TL_FORMAT_AUTO;
		tl_error err = {{0}};
		assert_int_equal(tl_format_sniff((const uint8_t *)h, strlen(h), &f, &err), 0);
		if (cases[i].yes)
			assert_int_equal(f, TL_FORMAT_JSON_PROTO);
		else
			assert_int_not_equal(f, TL_FORMAT_JSON_PROTO);
	}
}

int main(void)
{
	td_filter();
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_scalars),
	    cmocka_unit_test(test_names_and_enums),
	    cmocka_unit_test(test_base64),
	    cmocka_unit_test(test_nested),
	    cmocka_unit_test(test_null_unknown_guess),
	    cmocka_unit_test(test_wrapped),
	    cmocka_unit_test(test_refusals),
	    cmocka_unit_test(test_sniff),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
