/*
 * pbtext: protobuf text format to wire format, and the printer that writes
 * text the way Python's str(message) does.
 */
#include "io/pbtext.h"
#include "../../tools/pbtext_print.h"
#include "tensorflow.pb-c.h"

#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "testdata.h"

/* ------------------------------------------------------------------------ */
/* Helpers */

/* Converts exactly `len` bytes held in a buffer of that size, so that
 * AddressSanitizer sees any read past the end. */
static int convert_len(const ProtobufCMessageDescriptor *desc, const char *text, size_t len,
		       GByteArray *out, tl_error *err)
{
	char *copy = g_malloc(len > 0 ? len : 1);
	memcpy(copy, text, len);
	int rc = tl_pbtext_to_wire(desc, copy, len, out, err);
	g_free(copy);
	return rc;
}

/* Converts and unpacks; fails the test with the parser's message on error. */
static ProtobufCMessage *parse_len(const ProtobufCMessageDescriptor *desc, const char *text,
				   size_t len)
{
	GByteArray *wire = g_byte_array_new();
	tl_error err = {{0}};
	int rc = convert_len(desc, text, len, wire, &err);
	if (rc != 0)
		fail_msg("conversion failed: %s", err.msg);
	ProtobufCMessage *m = protobuf_c_message_unpack(desc, NULL, wire->len, wire->data);
	g_byte_array_free(wire, TRUE);
	assert_non_null(m);
	return m;
}

static ProtobufCMessage *parse(const ProtobufCMessageDescriptor *desc, const char *text)
{
	return parse_len(desc, text, strlen(text));
}

/* Asserts that conversion fails with exactly `expected` and leaves `out` as
 * it was. */
static void expect_error(const ProtobufCMessageDescriptor *desc, const char *text,
			 const char *expected)
{
	GByteArray *wire = g_byte_array_new();
	g_byte_array_append(wire, (const guint8 *)"keep", 4);
	tl_error err = {{0}};
	int rc = convert_len(desc, text, strlen(text), wire, &err);
	if (rc == 0)
		fail_msg("expected an error for <%s>", text);
	assert_string_equal(err.msg, expected);
	assert_int_equal(wire->len, 4);
	g_byte_array_free(wire, TRUE);
}

static char *print_text(const ProtobufCMessage *m)
{
	GString *s = g_string_new(NULL);
	tl_pbtext_print(m, s);
	return g_string_free(s, FALSE);
}

static void free_message(void *m)
{
	protobuf_c_message_free_unpacked(m, NULL);
}

/* Reads a file whole (path g_free'd here). */
static char *read_path(char *path, size_t *len)
{
	char *text = NULL;
	gsize n = 0;
	GError *error = NULL;
	if (!g_file_get_contents(path, &text, &n, &error))
		fail_msg("cannot read '%s': %s", path, error->message);
	g_free(path);
	*len = n;
	return text;
}

/* A file of the repository's tests/data: real/NAME, oracle/NAME. */
static char *read_data(const char *rel, size_t *len)
{
	return read_path(td_data(rel), len);
}

/* ------------------------------------------------------------------------ */
/* Reading */

/* Every escape of the header decodes to its byte(s); adjacent literals, either
 * quote, octal, hex and \u/\U (as UTF-8) included. */
static void test_escapes_decode_to_exact_bytes(void **state)
{
	(void)state;
	const char *text = "s: \"a\\n\\t\\r\\\\\\'\\\"\\a\\b\\f\\v\\?\" 'sin\"gle' \n"
			   "   \"\\101\\0\\x41\\x4a\\u00e9\\U0001F600\" \"\\200\\000\\377\\7\"";
	static const uint8_t want[] = {'a',  '\n', '\t', '\r', '\\', '\'', '"',	 '\a', '\b',
				       '\f', '\v', '?',	 's',  'i',  'n',  '"',	 'g',  'l',
				       'e',  'A',  0,	 'A',  'J',  0xc3, 0xa9, 0xf0, 0x9f,
				       0x98, 0x80, 0x80, 0x00, 0xff, 0x07};
	Tensorflow__AttrValue *v = (void *)parse(&tensorflow__attr_value__descriptor, text);
	assert_int_equal(v->value_case, TENSORFLOW__ATTR_VALUE__VALUE_S);
	assert_int_equal(v->s.len, sizeof want);
	assert_memory_equal(v->s.data, want, sizeof want);
	free_message(v);
}

/* tensor_content written as octal escapes (as in the resnet GraphDef) keeps
 * its NUL and high bytes. */
static void test_octal_tensor_content(void **state)
{
	(void)state;
	const char *text = "tensor { dtype: DT_INT32 tensor_content: "
			   "\"\\200\\000\\000\\000 \\000\\000\\000\\003\\000\\000\\000\" }";
	static const uint8_t want[] = {0x80, 0, 0, 0, ' ', 0, 0, 0, 3, 0, 0, 0};
	Tensorflow__AttrValue *v = (void *)parse(&tensorflow__attr_value__descriptor, text);
	assert_int_equal(v->value_case, TENSORFLOW__ATTR_VALUE__VALUE_TENSOR);
	assert_int_equal(v->tensor->dtype, TENSORFLOW__DATA_TYPE__DT_INT32);
	assert_int_equal(v->tensor->tensor_content.len, sizeof want);
	assert_memory_equal(v->tensor->tensor_content.data, want, sizeof want);
	free_message(v);
}

/* `[a, b]` lists of scalars and messages, empty lists, lists mixed with single
 * values, and packed fields written one value per line all collect in order. */
static void test_lists_and_repeated_scalars(void **state)
{
	(void)state;
	const char *text = "int_val: [1, -2, 0x10, 010]\n"
			   "int_val: 5\n"
			   "float_val: []\n"
			   "float_val: [1.5, -0.25f, 1e3]\n"
			   "bool_val: [true, f, 1, False]\n"
			   "string_val: [\"a\", 'b' \"c\"]\n"
			   "tensor_shape { dim [{size: 2}, <size: 3 name: \"n\">] }\n"
			   "int64_val: 7 int64_val: [8]\n";
	Tensorflow__TensorProto *t = (void *)parse(&tensorflow__tensor_proto__descriptor, text);
	assert_int_equal(t->n_int_val, 5);
	int32_t ints[] = {1, -2, 16, 8, 5};
	assert_memory_equal(t->int_val, ints, sizeof ints);
	assert_int_equal(t->n_float_val, 3);
	assert_true(t->float_val[0] == 1.5f && t->float_val[1] == -0.25f &&
		    t->float_val[2] == 1000.0f);
	assert_int_equal(t->n_bool_val, 4);
	assert_true(t->bool_val[0] && !t->bool_val[1] && t->bool_val[2] && !t->bool_val[3]);
	assert_int_equal(t->n_string_val, 2);
	assert_memory_equal(t->string_val[1].data, "bc", 2);
	assert_int_equal(t->tensor_shape->n_dim, 2);
	assert_int_equal(t->tensor_shape->dim[1]->size, 3);
	assert_string_equal(t->tensor_shape->dim[1]->name, "n");
	assert_int_equal(t->n_int64_val, 2);
	assert_int_equal(t->int64_val[1], 8);
	free_message(t);
}

/* Enums read by name or by number; an unknown name is skipped with a warning
 * (proto3 enums are open) rather than failing the dump. */
static void test_enums_by_name_and_number(void **state)
{
	(void)state;
	tl_warn_clear();
	Tensorflow__AttrValue *v = (void *)parse(&tensorflow__attr_value__descriptor,
						 "list { type: [DT_FLOAT, 2, DT_UINT4_REF] "
						 "type: 19 type: DT_NOT_YET_INVENTED type: -1 }");
	assert_int_equal(v->list->n_type, 5);
	assert_int_equal(v->list->type[0], TENSORFLOW__DATA_TYPE__DT_FLOAT);
	assert_int_equal(v->list->type[1], TENSORFLOW__DATA_TYPE__DT_DOUBLE);
	assert_int_equal(v->list->type[2], TENSORFLOW__DATA_TYPE__DT_UINT4_REF);
	assert_int_equal(v->list->type[3], TENSORFLOW__DATA_TYPE__DT_HALF);
	assert_int_equal((int32_t)v->list->type[4], -1);
	assert_int_equal(tl_warn_count("pbtext-unknown-enum-DataType.DT_NOT_YET_INVENTED"), 1);
	free_message(v);
	tl_warn_clear();
}

/* TF 1.4's MemoryStats names (host_*) read into the renamed fields with the
 * same numbers, without any unknown-field warning. */
static void test_legacy_memory_stats_names(void **state)
{
	(void)state;
	tl_warn_clear();
	Tensorflow__MemoryStats *m = (void *)parse(&tensorflow__memory_stats__descriptor,
						   "host_temp_memory_size: 5\n"
						   "host_persistent_memory_size: 1000000\n"
						   "host_persistent_tensor_alloc_ids: -1\n"
						   "host_persistent_tensor_alloc_ids: 7\n"
						   "device_temp_memory_size: 9\n");
	assert_int_equal(m->temp_memory_size, 5);
	assert_int_equal(m->persistent_memory_size, 1000000);
	assert_int_equal(m->n_persistent_tensor_alloc_ids, 2);
	assert_int_equal(m->persistent_tensor_alloc_ids[0], -1);
	assert_int_equal(m->persistent_tensor_alloc_ids[1], 7);
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wdeprecated-declarations"
	assert_int_equal(m->device_temp_memory_size, 9);
#pragma GCC diagnostic pop
	assert_int_equal(tl_warn_pending(), 0);
	free_message(m);
}

/* Unknown scalars, lists, nested messages (with tricky strings inside) and
 * [extension] fields are skipped, each counted under its own warning key,
 * and the known fields around them still read. */
static void test_unknown_fields_skipped_with_warning(void **state)
{
	(void)state;
	tl_warn_clear();
	const char *text = "node_name: \"a\"\n"
			   "future_scalar: 12\n"
			   "future_str: \"x}\" 'y'\n"
			   "future_list: [1, -2.5e-3, \"z]\", {q: 1}, <>]\n"
			   "future_msg { inner: 1 deeper < x: [ {a: 1}, {b: \"}\"} ] > }\n"
			   "future_msg: {}\n"
			   "[some.ext] { q: 1 }\n"
			   "[type.googleapis.com/foo.Bar] <>\n"
			   "thread_id: 7\n"
			   "future_scalar: -inf\n"
			   "future_enum: DT_FLOAT\n"
			   "memory { allocator_name: \"cpu\" mystery { } }\n";
	Tensorflow__NodeExecStats *n =
	    (void *)parse(&tensorflow__node_exec_stats__descriptor, text);
	assert_string_equal(n->node_name, "a");
	assert_int_equal(n->thread_id, 7);
	assert_int_equal(n->n_memory, 1);
	assert_string_equal(n->memory[0]->allocator_name, "cpu");
	assert_int_equal(n->base.n_unknown_fields, 0);
	assert_int_equal(tl_warn_count("pbtext-unknown-NodeExecStats.future_scalar"), 2);
	assert_int_equal(tl_warn_count("pbtext-unknown-NodeExecStats.future_str"), 1);
	assert_int_equal(tl_warn_count("pbtext-unknown-NodeExecStats.future_list"), 1);
	assert_int_equal(tl_warn_count("pbtext-unknown-NodeExecStats.future_msg"), 2);
	assert_int_equal(tl_warn_count("pbtext-unknown-NodeExecStats.some.ext"), 1);
	assert_int_equal(
	    tl_warn_count("pbtext-unknown-NodeExecStats.type.googleapis.com/foo.Bar"), 1);
	assert_int_equal(tl_warn_count("pbtext-unknown-NodeExecStats.future_enum"), 1);
	assert_int_equal(tl_warn_count("pbtext-unknown-AllocatorMemoryUsed.mystery"), 1);
	/* fields inside a skipped message are not reported one by one */
	assert_int_equal(tl_warn_count("pbtext-unknown-NodeExecStats.inner"), 0);
	assert_int_equal(tl_warn_pending(), 8);
	free_message(n);
	tl_warn_clear();
}

/* `<>` messages, '#' comments anywhere, optional ':' before messages and ','
 * or ';' after fields. */
static void test_angle_brackets_comments_separators(void **state)
{
	(void)state;
	const char *text =
	    "# leading comment\n"
	    "name: \"n1\",  # trailing comment\n"
	    "op: 'Const';\n"
	    "attr < key: \"shape\" value: < shape < dim < size: 3 >, dim { size: -1 }; "
	    "unknown_rank: false > > >\n"
	    "input: \"a\" input: \"b\", input: \"c\";#no space\n"
	    "attr: { key: \"T\"; value { type: DT_HALF } }";
	Tensorflow__NodeDef *n = (void *)parse(&tensorflow__node_def__descriptor, text);
	assert_string_equal(n->name, "n1");
	assert_string_equal(n->op, "Const");
	assert_int_equal(n->n_input, 3);
	assert_string_equal(n->input[2], "c");
	assert_int_equal(n->n_attr, 2);
	assert_string_equal(n->attr[0]->key, "shape");
	Tensorflow__TensorShapeProto *shape = n->attr[0]->value->shape;
	assert_int_equal(n->attr[0]->value->value_case, TENSORFLOW__ATTR_VALUE__VALUE_SHAPE);
	assert_int_equal(shape->n_dim, 2);
	assert_int_equal(shape->dim[0]->size, 3);
	assert_int_equal(shape->dim[1]->size, -1);
	assert_int_equal(n->attr[1]->value->type, TENSORFLOW__DATA_TYPE__DT_HALF);
	free_message(n);
}

/* 64-bit extremes (int64 both ends, uint64 max as in ptr), int32 and uint32
 * extremes, negative int32 sign-extended, and every bool spelling. */
static void test_integer_extremes_and_bools(void **state)
{
	(void)state;
	Tensorflow__AllocationDescription *a =
	    (void *)parse(&tensorflow__allocation_description__descriptor,
			  "requested_bytes: -9223372036854775808\n"
			  "allocated_bytes: 9223372036854775807\n"
			  "ptr: 18446744073709551615\n"
			  "allocation_id: -0x10\n"
			  "has_single_reference: True\n");
	assert_true(a->requested_bytes == INT64_MIN);
	assert_true(a->allocated_bytes == INT64_MAX);
	assert_true(a->ptr == UINT64_MAX);
	assert_int_equal(a->allocation_id, -16);
	assert_true(a->has_single_reference);
	free_message(a);

	Tensorflow__NodeExecStats *n = (void *)parse(&tensorflow__node_exec_stats__descriptor,
						     "thread_id: 4294967295 output { slot: "
						     "-2147483648 } output { slot: 2147483647 }");
	assert_true(n->thread_id == UINT32_MAX);
	assert_true(n->output[0]->slot == INT32_MIN);
	assert_true(n->output[1]->slot == INT32_MAX);
	free_message(n);

	const char *spellings[] = {"true", "True", "t", "1", "false", "False", "f", "0"};
	for (size_t i = 0; i < G_N_ELEMENTS(spellings); i++) {
		char *text = g_strdup_printf("has_single_reference: %s", spellings[i]);
		a = (void *)parse(&tensorflow__allocation_description__descriptor, text);
		assert_int_equal(a->has_single_reference, i < 4);
		free_message(a);
		g_free(text);
	}
}

/* Float and double fields take decimals, exponents, an 'f' suffix, integers,
 * inf/infinity/nan in any case; a float beyond its range is infinity. */
static void test_float_forms(void **state)
{
	(void)state;
	Tensorflow__TensorProto *t =
	    (void *)parse(&tensorflow__tensor_proto__descriptor,
			  "float_val: [1, 1.5f, -2.5e-3, .5, 1E+2, 1e40, inf, -Infinity, nan, "
			  "-0.0]\n"
			  "double_val: [0.1, 1e400, -5e-324, 1.7976931348623157e308, 3F]");
	assert_int_equal(t->n_float_val, 10);
	float want[] = {1.0f, 1.5f, -2.5e-3f, 0.5f, 100.0f, INFINITY, INFINITY, -INFINITY};
	for (size_t i = 0; i < G_N_ELEMENTS(want); i++)
		assert_true(t->float_val[i] == want[i]);
	assert_true(isnan(t->float_val[8]));
	assert_true(t->float_val[9] == 0.0f && signbit(t->float_val[9]));
	assert_int_equal(t->n_double_val, 5);
	assert_true(t->double_val[0] == 0.1);
	assert_true(isinf(t->double_val[1]));
	assert_true(t->double_val[2] == -5e-324);
	assert_true(t->double_val[3] == DBL_MAX);
	assert_true(t->double_val[4] == 3.0);
	free_message(t);
}

/* Maps read as repeated entries; a oneof keeps the member given last; map
 * keys and values of integer and string types all work. */
static void test_maps_and_oneofs(void **state)
{
	(void)state;
	Tensorflow__NodeDef *n =
	    (void *)parse(&tensorflow__node_def__descriptor,
			  "attr { key: \"T\" value { type: DT_FLOAT } }\n"
			  "attr { key: \"x\" value { i: 0 s: \"y\" } }\n"
			  "attr { key: \"_class\" value { list { s: \"loc:@a\" } } }");
	assert_int_equal(n->n_attr, 3);
	assert_string_equal(n->attr[0]->key, "T");
	assert_int_equal(n->attr[0]->value->value_case, TENSORFLOW__ATTR_VALUE__VALUE_TYPE);
	assert_int_equal(n->attr[0]->value->type, TENSORFLOW__DATA_TYPE__DT_FLOAT);
	assert_int_equal(n->attr[1]->value->value_case, TENSORFLOW__ATTR_VALUE__VALUE_S);
	assert_memory_equal(n->attr[1]->value->s.data, "y", 1);
	assert_memory_equal(n->attr[2]->value->list->s[0].data, "loc:@a", 6);
	free_message(n);

	Tensorflow__FunctionDef *f =
	    (void *)parse(&tensorflow__function_def__descriptor,
			  "resource_arg_unique_id { key: 1 value: 2 }\n"
			  "ret { key: \"out\" value: \"n:0\" }\n"
			  "arg_attr { key: 3 value { attr { key: \"_a\" value { b: true } } } }");
	assert_int_equal(f->n_resource_arg_unique_id, 1);
	assert_int_equal(f->resource_arg_unique_id[0]->key, 1);
	assert_int_equal(f->resource_arg_unique_id[0]->value, 2);
	assert_string_equal(f->ret[0]->value, "n:0");
	assert_int_equal(f->arg_attr[0]->key, 3);
	assert_true(f->arg_attr[0]->value->attr[0]->value->b);
	free_message(f);
}

/* Guessing the message from the first field name, past comments and a
 * byte-order mark; anything else is NULL. */
static void test_guess_top_level_message(void **state)
{
	(void)state;
	assert_ptr_equal(tl_pbtext_guess("step_stats {", 12),
			 &tensorflow__run_metadata__descriptor);
	assert_ptr_equal(tl_pbtext_guess("# c\n  partition_graphs {}", 25),
			 &tensorflow__run_metadata__descriptor);
	assert_ptr_equal(tl_pbtext_guess("cost_graph {}", 13),
			 &tensorflow__run_metadata__descriptor);
	assert_ptr_equal(tl_pbtext_guess("function_graphs {}", 18),
			 &tensorflow__run_metadata__descriptor);
	assert_ptr_equal(tl_pbtext_guess("dev_stats {", 11), &tensorflow__step_stats__descriptor);
	assert_ptr_equal(tl_pbtext_guess("node {", 6), &tensorflow__graph_def__descriptor);
	assert_ptr_equal(tl_pbtext_guess("library {", 9), &tensorflow__graph_def__descriptor);
	assert_ptr_equal(tl_pbtext_guess("versions {", 10), &tensorflow__graph_def__descriptor);
	assert_null(tl_pbtext_guess("nodes {", 7));
	assert_null(tl_pbtext_guess("no", 2)); /* a prefix of "node" is not "node" */
	assert_null(tl_pbtext_guess("{\"traceEvents\": []}", 19));
	assert_null(tl_pbtext_guess("", 0));

	/* a UTF-8 byte-order mark before the first field is ignored */
	const char *bom = "\xef\xbb\xbf# saved by an editor\nnode { name: \"n\" }";
	assert_ptr_equal(tl_pbtext_guess(bom, strlen(bom)), &tensorflow__graph_def__descriptor);
	Tensorflow__GraphDef *g = (void *)parse(&tensorflow__graph_def__descriptor, bom);
	assert_string_equal(g->node[0]->name, "n");
	free_message(g);
}

/* Syntax and range errors are one line naming line, column, what was
 * expected and what was found, and leave the output untouched. */
static void test_errors_name_line_and_column(void **state)
{
	(void)state;
	static const struct {
		const char *text;
		const char *msg;
	} cases[] = {
	    {"node_name \"x\"",
	     "line 1, column 11: expected ':' after 'node_name', found a string"},
	    {"node_name: \"abc",
	     "line 1, column 16: expected \" to close the string opened at line 1, column 12, "
	     "found end of input"},
	    {"node_name: 'ab\n'",
	     "line 1, column 15: expected ' to close the string opened at line 1, column 12, "
	     "found end of line"},
	    {"node_name: \"a\\qb\"",
	     "line 1, column 14: expected an escape (\\n \\t \\r \\a \\b \\f \\v \\\\ \\' \\\" \\? "
	     "\\NNN \\xHH \\uXXXX \\UXXXXXXXX), found '\\q'"},
	    {"node_name: \"a\\400\"",
	     "line 1, column 14: expected an octal escape \\000 to \\377, found '\\400'"},
	    {"node_name: \"\\x\"",
	     "line 1, column 15: expected hex digits after '\\x', found '\"'"},
	    {"node_name: \"\\u12\"",
	     "line 1, column 13: expected 4 hex digits after '\\u', found 2"},
	    {"node_name: \"\\ud800\"",
	     "line 1, column 13: expected a Unicode scalar value, found U+D800"},
	    {"node_name: \"\\", "line 1, column 14: expected an escape sequence after '\\', found "
				"end of input"},
	    {"memory {\n  allocator_name: \"cpu\"\n",
	     "line 3, column 1: expected '}', found end of input"},
	    {"memory < total_bytes: 1 }",
	     "line 1, column 25: expected field name or '>', found '}'"},
	    {"}\n", "line 1, column 1: expected field name, found '}'"},
	    {"\x01", "line 1, column 1: expected field name, found byte 0x01"},
	    {"memory { total_bytes: }",
	     "line 1, column 23: expected int64 value for 'total_bytes', found '}'"},
	    {"all_start_micros: 12abc",
	     "line 1, column 19: expected int64 (-9223372036854775808..9223372036854775807), "
	     "found '12abc'"},
	    {"all_start_micros: 9223372036854775808",
	     "line 1, column 19: expected int64 (-9223372036854775808..9223372036854775807), "
	     "found '9223372036854775808'"},
	    {"memory { allocation_records { alloc_bytes: 1.5 } }",
	     "line 1, column 44: expected int64 (-9223372036854775808..9223372036854775807), "
	     "found '1.5'"},
	    {"output { slot: 2147483648 }",
	     "line 1, column 16: expected int32 (-2147483648..2147483647), found '2147483648'"},
	    {"thread_id: 4294967296",
	     "line 1, column 12: expected uint32 (0..4294967295), found '4294967296'"},
	    {"\n\n  thread_id: -1",
	     "line 3, column 14: expected uint32 (0..4294967295), found '-1'"},
	    {"memory: 5", "line 1, column 9: expected '{' or '<', found '5'"},
	    {"node_name: [\"a\"]",
	     "line 1, column 12: expected one value for non-repeated field 'node_name', found '['"},
	    {"output [ {slot: 1} {slot: 2} ]", "line 1, column 20: expected ',' or ']', found '{'"},
	    {"memory {\n  total_bytes: 1\n  oops\n}",
	     "line 4, column 1: expected ':' or '{', found '}'"},
	    {"memory_stats { temp_memory_size: 1 } referenced_tensor { ptr: x }",
	     "line 1, column 63: expected uint64 (0..18446744073709551615), found 'x'"},
	    {"output { tensor_description { dtype: ; } }",
	     "line 1, column 38: expected DataType value for 'dtype', found ';'"},
	    {"output { tensor_description { dtype: DT_FLOAT shape: { dim { size: 1 } ]",
	     "line 1, column 72: expected field name or '}', found ']'"},
	    {"node_name: \"a\" future: [1, 2",
	     "line 1, column 29: expected ',' or ']', found end of input"},
	    {"future { x: 1 ", "line 1, column 15: expected '}', found end of input"},
	    {"[unterminated.ext", "line 1, column 18: expected ']', found end of input"},
	};
	tl_warn_clear();
	for (size_t i = 0; i < G_N_ELEMENTS(cases); i++)
		expect_error(&tensorflow__node_exec_stats__descriptor, cases[i].text, cases[i].msg);
	expect_error(&tensorflow__attr_value__descriptor, "b: yes",
		     "line 1, column 4: expected bool value (true or false), found 'yes'");
	expect_error(&tensorflow__attr_value__descriptor, "f: 1.5.5",
		     "line 1, column 4: expected float value, found '1.5.5'");
	expect_error(&tensorflow__attr_value__descriptor, "f: 0x10",
		     "line 1, column 4: expected float value, found '0x10'");
	expect_error(&tensorflow__attr_value__descriptor, "type: 2147483648",
		     "line 1, column 7: expected enum number (-2147483648..2147483647), found "
		     "'2147483648'");
	tl_warn_clear();
}

/* The output buffer may already hold bytes: a conversion appends after them
 * and an empty text appends nothing. */
static void test_appends_to_existing_output(void **state)
{
	(void)state;
	GByteArray *wire = g_byte_array_new();
	g_byte_array_append(wire, (const guint8 *)"\x08\x01", 2);
	tl_error err = {{0}};
	assert_int_equal(tl_pbtext_to_wire(&tensorflow__version_def__descriptor, "", 0, wire, &err),
			 0);
	assert_int_equal(wire->len, 2);
	const char *text = "min_consumer: 3";
	assert_int_equal(
	    tl_pbtext_to_wire(&tensorflow__version_def__descriptor, text, strlen(text), wire, &err),
	    0);
	Tensorflow__VersionDef *v = (void *)protobuf_c_message_unpack(
	    &tensorflow__version_def__descriptor, NULL, wire->len, wire->data);
	assert_non_null(v);
	assert_int_equal(v->producer, 1);
	assert_int_equal(v->min_consumer, 3);
	free_message(v);
	g_byte_array_free(wire, TRUE);
}

/* Builds text of `reps` copies of `open`, then `middle`, then `reps` copies
 * of `close`. */
static char *nest(const char *open, const char *middle, const char *close, size_t reps)
{
	GString *s = g_string_new(NULL);
	for (size_t i = 0; i < reps; i++)
		g_string_append(s, open);
	g_string_append(s, middle);
	for (size_t i = 0; i < reps; i++)
		g_string_append(s, close);
	return g_string_free(s, FALSE);
}

/* 100 nested messages read; the 101st is an error naming the limit, for
 * known and for skipped unknown fields, and 100,000 open braces neither
 * overflow the stack nor take long. */
static void test_deep_nesting_is_capped(void **state)
{
	(void)state;
	/* AttrValue -> func -> attr entry -> value (AttrValue): 3 levels a turn */
	const char *turn = "func { attr { key: \"k\" value { ";
	char *ok = nest(turn, "func { }", "} } } ", 33);
	ProtobufCMessage *m = parse(&tensorflow__attr_value__descriptor, ok);
	free_message(m);
	g_free(ok);

	char *deep = nest(turn, "func { attr { } }", "} } } ", 33);
	GByteArray *wire = g_byte_array_new();
	tl_error err = {{0}};
	assert_int_equal(
	    convert_len(&tensorflow__attr_value__descriptor, deep, strlen(deep), wire, &err), -1);
	assert_non_null(strstr(err.msg, "expected at most 100 nested messages, found one more"));
	assert_int_equal(strncmp(err.msg, "line 1, column ", 15), 0);
	g_free(deep);

	tl_warn_clear();
	char *unknown = nest("x { ", "", "} ", 100000);
	assert_int_equal(
	    convert_len(&tensorflow__attr_value__descriptor, unknown, strlen(unknown), wire, &err),
	    -1);
	assert_non_null(strstr(err.msg, "expected at most 100 nested messages"));
	g_free(unknown);

	char *known = nest(turn, "", "", 40000);
	assert_int_equal(
	    convert_len(&tensorflow__attr_value__descriptor, known, strlen(known), wire, &err), -1);
	assert_non_null(strstr(err.msg, "expected at most 100 nested messages"));
	g_free(known);

	char *brackets = nest("list [", "", "]", 100000);
	assert_int_equal(convert_len(&tensorflow__attr_value__descriptor, brackets,
				     strlen(brackets), wire, &err),
			 -1);
	g_free(brackets);
	assert_int_equal(wire->len, 0);
	g_byte_array_free(wire, TRUE);
	tl_warn_clear();
}

/* A text using every construct the reader knows, for the robustness tests. */
static const char rich_text[] =
    "# RunMetadata with everything\n"
    "step_stats {\n"
    "  dev_stats {\n"
    "    device: \"/job:localhost/replica:0/task:0/device:GPU:0\"\n"
    "    node_stats <\n"
    "      node_name: \"a\\\"b\\\\c\\n\\001\\xff\\u00e9\" 'x'\n"
    "      all_start_micros: -9223372036854775808, thread_id: 4294967295;\n"
    "      memory: [{allocator_name: \"cpu\" allocation_records [{alloc_bytes: -1}]}]\n"
    "      output { tensor_description { dtype: DT_FLOAT_REF shape { dim [{size: -1}, "
    "<size: 0x10>] unknown_rank: t } allocation_description { ptr: 18446744073709551615 } } }\n"
    "      memory_stats { host_persistent_tensor_alloc_ids: [-1, 2] }\n"
    "      unknown_field: [1, \"s\", {x: <y: 1>}] unknown_msg { a { b: 'c' } }\n"
    "    >\n"
    "    thread_names { key: 7 value: \"worker\" }\n"
    "  }\n"
    "}\n"
    "cost_graph { cost { cost: 1.5e-3f dimension: \"memory\" } node { control_input: [1, 2] "
    "inaccurate: true } }\n"
    "partition_graphs {\n"
    "  node { name: \"n\" op: \"Const\" attr { key: \"value\" value { tensor { dtype: DT_DOUBLE "
    "double_val: [inf, -nan, 1e-300] tensor_content: \"\\200\\000\" } } } }\n"
    "  versions { producer: 24 bad_consumers: [1, 2] }\n"
    "  library { function { signature { name: \"f\" } ret { key: \"a\" value: \"b\" } } }\n"
    "}\n";

/* Cutting a valid text at every byte either reads (and the wire decodes) or
 * fails with a positioned error; it never crashes or reads past the end. */
static void test_truncation_at_every_byte(void **state)
{
	(void)state;
	size_t ok = 0, failed = 0;
	size_t len = strlen(rich_text);
	tl_warn_clear();
	for (size_t cut = 0; cut <= len; cut++) {
		GByteArray *wire = g_byte_array_new();
		tl_error err = {{0}};
		int rc =
		    convert_len(&tensorflow__run_metadata__descriptor, rich_text, cut, wire, &err);
		if (rc == 0) {
			ProtobufCMessage *m = protobuf_c_message_unpack(
			    &tensorflow__run_metadata__descriptor, NULL, wire->len, wire->data);
			if (m == NULL)
				fail_msg("prefix of %zu bytes converted to undecodable wire", cut);
			free_message(m);
			ok++;
		} else {
			if (strncmp(err.msg, "line ", 5) != 0 ||
			    strstr(err.msg, "expected") == NULL)
				fail_msg("prefix of %zu bytes: unpositioned error '%s'", cut,
					 err.msg);
			assert_int_equal(wire->len, 0);
			failed++;
		}
		g_byte_array_free(wire, TRUE);
	}
	/* the whole text reads, and so do cuts between top-level fields */
	assert_true(ok >= 5);
	assert_true(failed > len / 2);
	tl_warn_clear();
}

/* Random byte changes to a valid text never crash and never produce wire
 * that protobuf-c refuses. */
static void test_garbage_never_crashes(void **state)
{
	(void)state;
	static const char alphabet[] = "{}<>[]:;,\"'\\#\n -0123456789.eExfinatrue_";
	size_t len = strlen(rich_text);
	char *buf = g_malloc(len);
	uint32_t seed = 12345;
	size_t ok = 0;
	tl_warn_clear();
	for (int round = 0; round < 3000; round++) {
		memcpy(buf, rich_text, len);
		int edits = 1 + round % 4;
		for (int e = 0; e < edits; e++) {
			seed = seed * 1103515245u + 12345u;
			size_t at = (seed >> 8) % len;
			seed = seed * 1103515245u + 12345u;
			buf[at] = (seed >> 16) % 3 == 0
				      ? (char)(seed >> 8)
				      : alphabet[(seed >> 8) % (sizeof alphabet - 1)];
		}
		GByteArray *wire = g_byte_array_new();
		tl_error err = {{0}};
		if (convert_len(&tensorflow__run_metadata__descriptor, buf, len, wire, &err) == 0) {
			ProtobufCMessage *m = protobuf_c_message_unpack(
			    &tensorflow__run_metadata__descriptor, NULL, wire->len, wire->data);
			if (m == NULL)
				fail_msg("round %d converted to undecodable wire", round);
			free_message(m);
			ok++;
		} else {
			assert_int_equal(strncmp(err.msg, "line ", 5), 0);
		}
		g_byte_array_free(wire, TRUE);
	}
	g_free(buf);
	assert_true(ok > 0);
	tl_warn_clear();
}

/* The bytes written: strings with a minimal length, varints two's
 * complement for negative int32, floats as fixed32, and sub-messages with
 * the 5-byte padded length pbwire.h describes. */
static void test_wire_encoding_is_exact(void **state)
{
	(void)state;
	static const struct {
		const ProtobufCMessageDescriptor *desc;
		const char *text;
		size_t len;
		const char *wire;
	} cases[] = {
	    {&tensorflow__node_exec_stats__descriptor, "node_name: \"a\\n\"", 4,
	     "\x0a\x02"
	     "a\n"},
	    {&tensorflow__node_exec_stats__descriptor, "thread_id: 300", 3, "\x50\xac\x02"},
	    {&tensorflow__node_exec_stats__descriptor, "memory {}", 6, "\x32\x80\x80\x80\x80\x00"},
	    {&tensorflow__node_exec_stats__descriptor, "output { slot: -1 }", 17,
	     "\x3a\x8b\x80\x80\x80\x00\x08\xff\xff\xff\xff\xff\xff\xff\xff\xff\x01"},
	    {&tensorflow__attr_value__descriptor, "f: 1.5", 5, "\x25\x00\x00\xc0\x3f"},
	    {&tensorflow__event__descriptor, "wall_time: -2", 9,
	     "\x09\x00\x00\x00\x00\x00\x00\x00\xc0"},
	    {&tensorflow__attr_value__descriptor, "b: true type: DT_HALF", 4, "\x28\x01\x30\x13"},
	};
	for (size_t i = 0; i < G_N_ELEMENTS(cases); i++) {
		GByteArray *wire = g_byte_array_new();
		tl_error err = {{0}};
		assert_int_equal(
		    convert_len(cases[i].desc, cases[i].text, strlen(cases[i].text), wire, &err),
		    0);
		assert_int_equal(wire->len, cases[i].len);
		assert_memory_equal(wire->data, cases[i].wire, cases[i].len);
		g_byte_array_free(wire, TRUE);
	}
}

/* A message type with the scalar types TensorFlow's schema lacks (sint,
 * fixed, sfixed), described by hand as protoc-c would, to show the reader
 * and printer follow any descriptor. */
typedef struct {
	ProtobufCMessage base;
	int32_t s32;
	int64_t s64;
	uint32_t f32;
	uint64_t f64;
	int32_t sf32;
	int64_t sf64;
} Scalars;

static const ProtobufCMessageDescriptor scalars_descriptor;

static void scalars_init(ProtobufCMessage *m)
{
	static const Scalars init = {
	    PROTOBUF_C_MESSAGE_INIT(&scalars_descriptor), 0, 0, 0, 0, 0, 0};
	*(Scalars *)m = init;
}

#define SCALAR_FIELD(name_, id_, type_)                                                            \
	{                                                                                          \
#name_, id_, PROTOBUF_C_LABEL_NONE, type_, 0, offsetof(Scalars, name_), NULL,      \
		    NULL, 0, 0, NULL, NULL                                                         \
	}

static const ProtobufCFieldDescriptor scalars_fields[] = {
    SCALAR_FIELD(s32, 1, PROTOBUF_C_TYPE_SINT32),
    SCALAR_FIELD(s64, 2, PROTOBUF_C_TYPE_SINT64),
    SCALAR_FIELD(f32, 3, PROTOBUF_C_TYPE_FIXED32),
    SCALAR_FIELD(f64, 4, PROTOBUF_C_TYPE_FIXED64),
    SCALAR_FIELD(sf32, 5, PROTOBUF_C_TYPE_SFIXED32),
    SCALAR_FIELD(sf64, 6, PROTOBUF_C_TYPE_SFIXED64),
};
static const unsigned scalars_by_name[] = {2, 3, 0, 1, 4, 5}; /* f32 f64 s32 s64 sf32 sf64 */
static const ProtobufCIntRange scalars_ranges[] = {{1, 0}, {0, 6}};

static const ProtobufCMessageDescriptor scalars_descriptor = {
    PROTOBUF_C__MESSAGE_DESCRIPTOR_MAGIC,
    "test.Scalars",
    "Scalars",
    "Scalars",
    "test",
    sizeof(Scalars),
    G_N_ELEMENTS(scalars_fields),
    scalars_fields,
    scalars_by_name,
    1,
    scalars_ranges,
    scalars_init,
    NULL,
    NULL,
    NULL,
};

/* sint values are zigzag-encoded, fixed and sfixed ones little-endian, each
 * at its extremes, and they print back as written. */
static void test_sint_and_fixed_types(void **state)
{
	(void)state;
	const char *text = "s32: -2\ns64: 3\nf32: 4294967295\nf64: 18446744073709551615\n"
			   "sf32: -2147483648\nsf64: -1\n";
	Scalars *m = (void *)parse(&scalars_descriptor, text);
	assert_int_equal(m->s32, -2);
	assert_int_equal(m->s64, 3);
	assert_true(m->f32 == UINT32_MAX);
	assert_true(m->f64 == UINT64_MAX);
	assert_true(m->sf32 == INT32_MIN);
	assert_int_equal(m->sf64, -1);
	char *printed = print_text(&m->base);
	assert_string_equal(printed, text);
	g_free(printed);
	free_message(m);

	GByteArray *wire = g_byte_array_new();
	tl_error err = {{0}};
	const char *zigzag = "s32: -2 s64: -9223372036854775808 s32: -0 sf32: -1";
	assert_int_equal(convert_len(&scalars_descriptor, zigzag, strlen(zigzag), wire, &err), 0);
	static const uint8_t want[] = {0x08, 0x03, 0x10, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff,
				       0xff, 0xff, 0x01, 0x08, 0x00, 0x2d, 0xff, 0xff, 0xff, 0xff};
	assert_int_equal(wire->len, sizeof want);
	assert_memory_equal(wire->data, want, sizeof want);
	g_byte_array_free(wire, TRUE);
	expect_error(&scalars_descriptor, "s32: 2147483648",
		     "line 1, column 6: expected sint32 (-2147483648..2147483647), found "
		     "'2147483648'");
	expect_error(&scalars_descriptor, "f32: -1",
		     "line 1, column 6: expected fixed32 (0..4294967295), found '-1'");
}

/* The printer sorts map entries by key (strings bytewise, integers by
 * value) and keeps only the last entry of a repeated key, as Python does. */
static void test_printer_sorts_map_keys(void **state)
{
	(void)state;
	Tensorflow__NodeDef *n =
	    (void *)parse(&tensorflow__node_def__descriptor, "attr { key: \"b\" value { i: 1 } }\n"
							     "attr { key: \"a\" value { i: 2 } }\n"
							     "attr { key: \"b\" value { i: 3 } }\n"
							     "attr { key: \"B\" value { } }\n");
	char *printed = print_text(&n->base);
	assert_string_equal(printed, "attr {\n  key: \"B\"\n  value {\n  }\n}\n"
				     "attr {\n  key: \"a\"\n  value {\n    i: 2\n  }\n}\n"
				     "attr {\n  key: \"b\"\n  value {\n    i: 3\n  }\n}\n");
	g_free(printed);
	free_message(n);

	Tensorflow__DeviceStepStats *d = (void *)parse(&tensorflow__device_step_stats__descriptor,
						       "thread_names { key: 10 value: \"x\" }\n"
						       "thread_names { key: 9 value: \"y\" }\n"
						       "thread_names { key: 4294967295 }\n");
	printed = print_text(&d->base);
	assert_string_equal(printed, "thread_names {\n  key: 9\n  value: \"y\"\n}\n"
				     "thread_names {\n  key: 10\n  value: \"x\"\n}\n"
				     "thread_names {\n  key: 4294967295\n}\n");
	g_free(printed);
	free_message(d);
}

/* ------------------------------------------------------------------------ */
/* Round trip: a message with every kind of field, built in C */

/* The builders fill deprecated fields on purpose: they are on the wire too. */
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wdeprecated-declarations"

static GPtrArray *kept; /* everything the builders allocate, freed per test */

static void *keep(void *p)
{
	g_ptr_array_add(kept, p);
	return p;
}

static void *new_message(const ProtobufCMessageDescriptor *desc)
{
	void *m = keep(g_malloc0(desc->sizeof_message));
	protobuf_c_message_init(desc, m);
	return m;
}

#define NEW(type, desc) ((type *)new_message(&(desc)))

/* Sets repeated field `f` of `m` to the listed values. */
#define SET_REPEATED(m, f, type, ...)                                                              \
	do {                                                                                       \
		type values_[] = {__VA_ARGS__};                                                    \
		(m)->n_##f = G_N_ELEMENTS(values_);                                                \
		(m)->f = keep(g_memdup2(values_, sizeof values_));                                 \
	} while (0)

static ProtobufCBinaryData bytes_of(const void *data, size_t len)
{
	ProtobufCBinaryData b = {len, keep(g_memdup2(data, len > 0 ? len : 1))};
	return b;
}

static Tensorflow__AttrValue *attr_int(int64_t i)
{
	Tensorflow__AttrValue *v = NEW(Tensorflow__AttrValue, tensorflow__attr_value__descriptor);
	v->value_case = TENSORFLOW__ATTR_VALUE__VALUE_I;
	v->i = i;
	return v;
}

static Tensorflow__AttrValue *attr_bytes(const char *s, size_t len)
{
	Tensorflow__AttrValue *v = NEW(Tensorflow__AttrValue, tensorflow__attr_value__descriptor);
	v->value_case = TENSORFLOW__ATTR_VALUE__VALUE_S;
	v->s = bytes_of(s, len);
	return v;
}

static Tensorflow__NodeDef__AttrEntry *node_attr(char *key, Tensorflow__AttrValue *v)
{
	Tensorflow__NodeDef__AttrEntry *e =
	    NEW(Tensorflow__NodeDef__AttrEntry, tensorflow__node_def__attr_entry__descriptor);
	e->key = key;
	e->value = v;
	return e;
}

static Tensorflow__TensorShapeProto *shape_of(int64_t a, int64_t b)
{
	Tensorflow__TensorShapeProto *s =
	    NEW(Tensorflow__TensorShapeProto, tensorflow__tensor_shape_proto__descriptor);
	Tensorflow__TensorShapeProto__Dim *d0 =
	    NEW(Tensorflow__TensorShapeProto__Dim, tensorflow__tensor_shape_proto__dim__descriptor);
	Tensorflow__TensorShapeProto__Dim *d1 =
	    NEW(Tensorflow__TensorShapeProto__Dim, tensorflow__tensor_shape_proto__dim__descriptor);
	d0->size = a;
	d1->size = b;
	d1->name = "batch \"b\"";
	SET_REPEATED(s, dim, Tensorflow__TensorShapeProto__Dim *, d0, d1);
	return s;
}

static Tensorflow__TensorProto *every_tensor_field(void)
{
	Tensorflow__TensorProto *t =
	    NEW(Tensorflow__TensorProto, tensorflow__tensor_proto__descriptor);
	uint8_t all_bytes[256];
	for (int i = 0; i < 256; i++)
		all_bytes[i] = (uint8_t)i;
	t->dtype = TENSORFLOW__DATA_TYPE__DT_DOUBLE;
	t->tensor_shape = shape_of(2, -1);
	t->version_number = -7;
	t->tensor_content = bytes_of(all_bytes, sizeof all_bytes);
	SET_REPEATED(t, half_val, int32_t, 0, 15360);
	SET_REPEATED(t, float_val, float, 0.1f, -0.0f, INFINITY, -INFINITY, NAN, 1e-45f, FLT_MAX,
		     3.4028e38f, 123456789.0f, 1e-5f, 0.3f);
	SET_REPEATED(t, double_val, double, 0.1, 1e-300, 1e16, 123456789.125, DBL_MAX, 5e-324, -0.0,
		     1.0 / 3.0, 0.0001, 1e-5, 1e22);
	SET_REPEATED(t, int_val, int32_t, INT32_MIN, -1, 0, INT32_MAX);
	ProtobufCBinaryData s0 = bytes_of("", 0), s1 = bytes_of("s\0\xff", 3);
	SET_REPEATED(t, string_val, ProtobufCBinaryData, s0, s1);
	SET_REPEATED(t, scomplex_val, float, 1.0f, -2.5f);
	SET_REPEATED(t, int64_val, int64_t, INT64_MIN, INT64_MAX);
	SET_REPEATED(t, bool_val, protobuf_c_boolean, 1, 0, 1);
	SET_REPEATED(t, dcomplex_val, double, 1e300, -1e-300);
	Tensorflow__ResourceHandleProto *h =
	    NEW(Tensorflow__ResourceHandleProto, tensorflow__resource_handle_proto__descriptor);
	h->device = "/device:CPU:0";
	h->container = "c";
	h->name = "v";
	h->hash_code = UINT64_MAX;
	h->maybe_type_name = "Var";
	SET_REPEATED(t, resource_handle_val, Tensorflow__ResourceHandleProto *, h);
	SET_REPEATED(t, uint32_val, uint32_t, UINT32_MAX, 0);
	SET_REPEATED(t, uint64_val, uint64_t, UINT64_MAX, 1);
	return t;
}

/* NodeDef.attr covering every AttrValue member, zero-valued ones included
 * (a set oneof member is printed even when zero). Keys in sorted order. */
static Tensorflow__NodeDef *every_attr_kind(void)
{
	Tensorflow__NodeDef *n = NEW(Tensorflow__NodeDef, tensorflow__node_def__descriptor);
	n->name = "scope/n\xc3\xa9";
	n->op = "Const";
	n->device = "/job:localhost/replica:0/task:0/device:GPU:0";
	SET_REPEATED(n, input, char *, "a", "b:1", "^c");

	Tensorflow__AttrValue__ListValue *l =
	    NEW(Tensorflow__AttrValue__ListValue, tensorflow__attr_value__list_value__descriptor);
	ProtobufCBinaryData x = bytes_of("x", 1), y = bytes_of("\0\xff'", 3);
	SET_REPEATED(l, s, ProtobufCBinaryData, x, y);
	SET_REPEATED(l, i, int64_t, INT64_MIN, 0, 5);
	SET_REPEATED(l, f, float, 0.1f, -0.0f, INFINITY);
	SET_REPEATED(l, b, protobuf_c_boolean, 1, 0);
	SET_REPEATED(l, type, Tensorflow__DataType, TENSORFLOW__DATA_TYPE__DT_FLOAT,
		     TENSORFLOW__DATA_TYPE__DT_INT64, (Tensorflow__DataType)77);
	Tensorflow__TensorShapeProto *unknown =
	    NEW(Tensorflow__TensorShapeProto, tensorflow__tensor_shape_proto__descriptor);
	unknown->unknown_rank = 1;
	SET_REPEATED(l, shape, Tensorflow__TensorShapeProto *, unknown, shape_of(1, 2));
	Tensorflow__TensorProto *small =
	    NEW(Tensorflow__TensorProto, tensorflow__tensor_proto__descriptor);
	small->dtype = TENSORFLOW__DATA_TYPE__DT_INT32;
	SET_REPEATED(l, tensor, Tensorflow__TensorProto *, small);
	Tensorflow__NameAttrList *fn =
	    NEW(Tensorflow__NameAttrList, tensorflow__name_attr_list__descriptor);
	fn->name = "f";
	Tensorflow__NameAttrList__AttrEntry *fe =
	    NEW(Tensorflow__NameAttrList__AttrEntry,
		tensorflow__name_attr_list__attr_entry__descriptor);
	fe->key = "k";
	fe->value = attr_int(3);
	SET_REPEATED(fn, attr, Tensorflow__NameAttrList__AttrEntry *, fe);
	SET_REPEATED(l, func, Tensorflow__NameAttrList *, fn);
	Tensorflow__AttrValue *list =
	    NEW(Tensorflow__AttrValue, tensorflow__attr_value__descriptor);
	list->value_case = TENSORFLOW__ATTR_VALUE__VALUE_LIST;
	list->list = l;

	Tensorflow__AttrValue *f = NEW(Tensorflow__AttrValue, tensorflow__attr_value__descriptor);
	f->value_case = TENSORFLOW__ATTR_VALUE__VALUE_F;
	f->f = 1e-7f;
	Tensorflow__AttrValue *b = NEW(Tensorflow__AttrValue, tensorflow__attr_value__descriptor);
	b->value_case = TENSORFLOW__ATTR_VALUE__VALUE_B;
	b->b = 0;
	Tensorflow__AttrValue *type =
	    NEW(Tensorflow__AttrValue, tensorflow__attr_value__descriptor);
	type->value_case = TENSORFLOW__ATTR_VALUE__VALUE_TYPE;
	type->type = TENSORFLOW__DATA_TYPE__DT_INVALID;
	Tensorflow__AttrValue *shape =
	    NEW(Tensorflow__AttrValue, tensorflow__attr_value__descriptor);
	shape->value_case = TENSORFLOW__ATTR_VALUE__VALUE_SHAPE;
	shape->shape =
	    NEW(Tensorflow__TensorShapeProto, tensorflow__tensor_shape_proto__descriptor);
	Tensorflow__AttrValue *tensor =
	    NEW(Tensorflow__AttrValue, tensorflow__attr_value__descriptor);
	tensor->value_case = TENSORFLOW__ATTR_VALUE__VALUE_TENSOR;
	tensor->tensor = every_tensor_field();
	Tensorflow__AttrValue *func =
	    NEW(Tensorflow__AttrValue, tensorflow__attr_value__descriptor);
	func->value_case = TENSORFLOW__ATTR_VALUE__VALUE_FUNC;
	func->func = fn;
	Tensorflow__AttrValue *ph = NEW(Tensorflow__AttrValue, tensorflow__attr_value__descriptor);
	ph->value_case = TENSORFLOW__ATTR_VALUE__VALUE_PLACEHOLDER;
	ph->placeholder = "T";

	SET_REPEATED(n, attr, Tensorflow__NodeDef__AttrEntry *, node_attr("T", type),
		     node_attr("_class", attr_bytes("loc:@a", 6)), node_attr("a_list", list),
		     node_attr("b_int", attr_int(0)), node_attr("c_float", f),
		     node_attr("d_bool", b), node_attr("e_shape", shape),
		     node_attr("f_tensor", tensor), node_attr("g_func", func),
		     node_attr("h_placeholder", ph), node_attr("i_empty", attr_bytes("", 0)),
		     node_attr("j_neg", attr_int(-1)));
	return n;
}

static Tensorflow__FunctionDefLibrary *every_function_field(void)
{
	Tensorflow__OpDef__ArgDef *in =
	    NEW(Tensorflow__OpDef__ArgDef, tensorflow__op_def__arg_def__descriptor);
	in->name = "x";
	in->description = "input";
	in->type = TENSORFLOW__DATA_TYPE__DT_FLOAT;
	in->is_ref = 1;
	Tensorflow__OpDef__ArgDef *out =
	    NEW(Tensorflow__OpDef__ArgDef, tensorflow__op_def__arg_def__descriptor);
	out->name = "y";
	out->type_attr = "T";
	out->number_attr = "N";
	out->type_list_attr = "L";
	Tensorflow__OpDef__AttrDef *ad =
	    NEW(Tensorflow__OpDef__AttrDef, tensorflow__op_def__attr_def__descriptor);
	ad->name = "N";
	ad->type = "int";
	ad->default_value = attr_int(3);
	ad->description = "count";
	ad->has_minimum = 1;
	ad->minimum = -1;
	ad->allowed_values = NEW(Tensorflow__AttrValue, tensorflow__attr_value__descriptor);
	Tensorflow__OpDef *sig = NEW(Tensorflow__OpDef, tensorflow__op_def__descriptor);
	sig->name = "fn";
	SET_REPEATED(sig, input_arg, Tensorflow__OpDef__ArgDef *, in);
	SET_REPEATED(sig, output_arg, Tensorflow__OpDef__ArgDef *, out);
	SET_REPEATED(sig, control_output, char *, "c");
	SET_REPEATED(sig, attr, Tensorflow__OpDef__AttrDef *, ad);
	sig->summary = "sum";
	sig->description = "desc";
	sig->is_commutative = 1;
	sig->is_aggregate = 1;
	sig->is_stateful = 1;
	sig->allows_uninitialized_input = 1;
	sig->is_distributed_communication = 1;

	Tensorflow__FunctionDef *fd =
	    NEW(Tensorflow__FunctionDef, tensorflow__function_def__descriptor);
	fd->signature = sig;
	Tensorflow__FunctionDef__AttrEntry *fa = NEW(
	    Tensorflow__FunctionDef__AttrEntry, tensorflow__function_def__attr_entry__descriptor);
	fa->key = "_noinline";
	fa->value = attr_int(1);
	SET_REPEATED(fd, attr, Tensorflow__FunctionDef__AttrEntry *, fa);
	Tensorflow__FunctionDef__ArgAttrs *aa =
	    NEW(Tensorflow__FunctionDef__ArgAttrs, tensorflow__function_def__arg_attrs__descriptor);
	Tensorflow__FunctionDef__ArgAttrs__AttrEntry *aae =
	    NEW(Tensorflow__FunctionDef__ArgAttrs__AttrEntry,
		tensorflow__function_def__arg_attrs__attr_entry__descriptor);
	aae->key = "_a";
	aae->value = attr_bytes("v", 1);
	SET_REPEATED(aa, attr, Tensorflow__FunctionDef__ArgAttrs__AttrEntry *, aae);
	Tensorflow__FunctionDef__ArgAttrEntry *ae0 =
	    NEW(Tensorflow__FunctionDef__ArgAttrEntry,
		tensorflow__function_def__arg_attr_entry__descriptor);
	ae0->key = 0; /* zero key: Python leaves it out of the entry */
	ae0->value = aa;
	Tensorflow__FunctionDef__ArgAttrEntry *ae5 =
	    NEW(Tensorflow__FunctionDef__ArgAttrEntry,
		tensorflow__function_def__arg_attr_entry__descriptor);
	ae5->key = 5;
	ae5->value =
	    NEW(Tensorflow__FunctionDef__ArgAttrs, tensorflow__function_def__arg_attrs__descriptor);
	SET_REPEATED(fd, arg_attr, Tensorflow__FunctionDef__ArgAttrEntry *, ae0, ae5);
	Tensorflow__FunctionDef__ResourceArgUniqueIdEntry *r0 =
	    NEW(Tensorflow__FunctionDef__ResourceArgUniqueIdEntry,
		tensorflow__function_def__resource_arg_unique_id_entry__descriptor);
	r0->key = 2;
	r0->value = 7;
	Tensorflow__FunctionDef__ResourceArgUniqueIdEntry *r1 =
	    NEW(Tensorflow__FunctionDef__ResourceArgUniqueIdEntry,
		tensorflow__function_def__resource_arg_unique_id_entry__descriptor);
	r1->key = 10; /* numeric order: 2 before 10 */
	r1->value = 0;
	SET_REPEATED(fd, resource_arg_unique_id,
		     Tensorflow__FunctionDef__ResourceArgUniqueIdEntry *, r0, r1);
	SET_REPEATED(fd, node_def, Tensorflow__NodeDef *, every_attr_kind());
	Tensorflow__FunctionDef__RetEntry *ret =
	    NEW(Tensorflow__FunctionDef__RetEntry, tensorflow__function_def__ret_entry__descriptor);
	ret->key = "y";
	ret->value = "scope/n:0";
	SET_REPEATED(fd, ret, Tensorflow__FunctionDef__RetEntry *, ret);
	Tensorflow__FunctionDef__ControlRetEntry *cret =
	    NEW(Tensorflow__FunctionDef__ControlRetEntry,
		tensorflow__function_def__control_ret_entry__descriptor);
	cret->key = "c";
	cret->value = "";
	SET_REPEATED(fd, control_ret, Tensorflow__FunctionDef__ControlRetEntry *, cret);

	Tensorflow__GradientDef *g =
	    NEW(Tensorflow__GradientDef, tensorflow__gradient_def__descriptor);
	g->function_name = "fn";
	g->gradient_func = "fn_grad";
	Tensorflow__FunctionDefLibrary *lib =
	    NEW(Tensorflow__FunctionDefLibrary, tensorflow__function_def_library__descriptor);
	SET_REPEATED(lib, function, Tensorflow__FunctionDef *, fd);
	SET_REPEATED(lib, gradient, Tensorflow__GradientDef *, g);
	return lib;
}

static Tensorflow__StepStats *every_step_stats_field(void)
{
	Tensorflow__AllocationRecord *r0 =
	    NEW(Tensorflow__AllocationRecord, tensorflow__allocation_record__descriptor);
	r0->alloc_micros = 1700000000000001;
	r0->alloc_bytes = 4096;
	Tensorflow__AllocationRecord *r1 =
	    NEW(Tensorflow__AllocationRecord, tensorflow__allocation_record__descriptor);
	r1->alloc_micros = 1700000000000002;
	r1->alloc_bytes = -4096;
	Tensorflow__AllocatorMemoryUsed *mem =
	    NEW(Tensorflow__AllocatorMemoryUsed, tensorflow__allocator_memory_used__descriptor);
	mem->allocator_name = "GPU_0_bfc";
	mem->total_bytes = 8192;
	mem->peak_bytes = 4096;
	mem->live_bytes = -1;
	SET_REPEATED(mem, allocation_records, Tensorflow__AllocationRecord *, r0, r1);
	mem->allocator_bytes_in_use = INT64_MAX;

	Tensorflow__AllocationDescription *ad =
	    NEW(Tensorflow__AllocationDescription, tensorflow__allocation_description__descriptor);
	ad->requested_bytes = INT64_MIN;
	ad->allocated_bytes = 512;
	ad->allocator_name = "cpu";
	ad->allocation_id = 3;
	ad->has_single_reference = 1;
	ad->ptr = UINT64_MAX;
	Tensorflow__TensorDescription *td =
	    NEW(Tensorflow__TensorDescription, tensorflow__tensor_description__descriptor);
	td->dtype = TENSORFLOW__DATA_TYPE__DT_FLOAT_REF;
	td->shape = shape_of(32, 56);
	td->allocation_description = ad;
	Tensorflow__NodeOutput *o0 =
	    NEW(Tensorflow__NodeOutput, tensorflow__node_output__descriptor);
	o0->tensor_description = td;
	Tensorflow__NodeOutput *o1 =
	    NEW(Tensorflow__NodeOutput, tensorflow__node_output__descriptor);
	o1->slot = 1;
	Tensorflow__MemoryStats *ms =
	    NEW(Tensorflow__MemoryStats, tensorflow__memory_stats__descriptor);
	ms->temp_memory_size = 1;
	ms->persistent_memory_size = 2;
	SET_REPEATED(ms, persistent_tensor_alloc_ids, int64_t, -1, 0, INT64_MAX);
	ms->device_temp_memory_size = 3;
	ms->device_persistent_memory_size = 4;
	SET_REPEATED(ms, device_persistent_tensor_alloc_ids, int64_t, 5);

	Tensorflow__NodeExecStats *ns =
	    NEW(Tensorflow__NodeExecStats, tensorflow__node_exec_stats__descriptor);
	ns->node_name = "dense/MatMul \"q\" \\ \n\t\x01\x7f";
	ns->all_start_micros = 1700000721094870;
	ns->op_start_rel_micros = 0;
	ns->op_end_rel_micros = 3;
	ns->all_end_rel_micros = -5;
	SET_REPEATED(ns, memory, Tensorflow__AllocatorMemoryUsed *, mem);
	SET_REPEATED(ns, output, Tensorflow__NodeOutput *, o0, o1);
	ns->timeline_label = "[cpu 49.0MB 49.0MB] dense/MatMul = MatMul(a, b)";
	ns->scheduled_micros = 1;
	ns->thread_id = UINT32_MAX;
	SET_REPEATED(ns, referenced_tensor, Tensorflow__AllocationDescription *, ad);
	ns->memory_stats = ms;
	ns->all_start_nanos = INT64_MAX;
	ns->op_start_rel_nanos = 1;
	ns->op_end_rel_nanos = 2;
	ns->all_end_rel_nanos = 3;
	ns->scheduled_nanos = 4;
	Tensorflow__NodeExecStats *empty =
	    NEW(Tensorflow__NodeExecStats, tensorflow__node_exec_stats__descriptor);
	empty->memory_stats = NEW(Tensorflow__MemoryStats, tensorflow__memory_stats__descriptor);

	Tensorflow__DeviceStepStats__ThreadNamesEntry *t1 =
	    NEW(Tensorflow__DeviceStepStats__ThreadNamesEntry,
		tensorflow__device_step_stats__thread_names_entry__descriptor);
	t1->key = 1;
	t1->value = "main";
	Tensorflow__DeviceStepStats__ThreadNamesEntry *t2 =
	    NEW(Tensorflow__DeviceStepStats__ThreadNamesEntry,
		tensorflow__device_step_stats__thread_names_entry__descriptor);
	t2->key = UINT32_MAX;
	t2->value = "w\xc3\xb6rker";
	Tensorflow__DeviceStepStats *dev =
	    NEW(Tensorflow__DeviceStepStats, tensorflow__device_step_stats__descriptor);
	dev->device = "/job:localhost/replica:0/task:0/device:GPU:0";
	SET_REPEATED(dev, node_stats, Tensorflow__NodeExecStats *, ns, empty);
	SET_REPEATED(dev, thread_names, Tensorflow__DeviceStepStats__ThreadNamesEntry *, t1, t2);
	Tensorflow__DeviceStepStats *dev2 =
	    NEW(Tensorflow__DeviceStepStats, tensorflow__device_step_stats__descriptor);
	Tensorflow__StepStats *ss = NEW(Tensorflow__StepStats, tensorflow__step_stats__descriptor);
	SET_REPEATED(ss, dev_stats, Tensorflow__DeviceStepStats *, dev, dev2);
	return ss;
}

static Tensorflow__CostGraphDef *every_cost_graph_field(void)
{
	Tensorflow__CostGraphDef__Node__InputInfo *ii =
	    NEW(Tensorflow__CostGraphDef__Node__InputInfo,
		tensorflow__cost_graph_def__node__input_info__descriptor);
	ii->preceding_node = 1;
	ii->preceding_port = -1;
	Tensorflow__CostGraphDef__Node__OutputInfo *oi =
	    NEW(Tensorflow__CostGraphDef__Node__OutputInfo,
		tensorflow__cost_graph_def__node__output_info__descriptor);
	oi->size = 400;
	oi->alias_input_port = -1;
	oi->shape = shape_of(10, 10);
	oi->dtype = TENSORFLOW__DATA_TYPE__DT_BFLOAT16;
	Tensorflow__CostGraphDef__Node *cn =
	    NEW(Tensorflow__CostGraphDef__Node, tensorflow__cost_graph_def__node__descriptor);
	cn->name = "n";
	cn->device = "/cpu:0";
	cn->id = 4;
	SET_REPEATED(cn, input_info, Tensorflow__CostGraphDef__Node__InputInfo *, ii);
	SET_REPEATED(cn, output_info, Tensorflow__CostGraphDef__Node__OutputInfo *, oi);
	cn->temporary_memory_size = 1;
	cn->persistent_memory_size = 2;
	cn->host_temp_memory_size = 3;
	cn->device_temp_memory_size = 4;
	cn->device_persistent_memory_size = 5;
	cn->compute_cost = 6;
	cn->compute_time = 7;
	cn->memory_time = 8;
	cn->is_final = 1;
	SET_REPEATED(cn, control_input, int32_t, -1, 2);
	cn->inaccurate = 1;
	Tensorflow__CostGraphDef__AggregatedCost *ac =
	    NEW(Tensorflow__CostGraphDef__AggregatedCost,
		tensorflow__cost_graph_def__aggregated_cost__descriptor);
	ac->cost = 0.001f;
	ac->dimension = "memory";
	Tensorflow__CostGraphDef *cg =
	    NEW(Tensorflow__CostGraphDef, tensorflow__cost_graph_def__descriptor);
	SET_REPEATED(cg, node, Tensorflow__CostGraphDef__Node *, cn);
	SET_REPEATED(cg, cost, Tensorflow__CostGraphDef__AggregatedCost *, ac);
	return cg;
}

static Tensorflow__RunMetadata *every_field_run_metadata(void)
{
	Tensorflow__VersionDef *v =
	    NEW(Tensorflow__VersionDef, tensorflow__version_def__descriptor);
	v->producer = -3;
	SET_REPEATED(v, bad_consumers, int32_t, 1, 2);
	Tensorflow__GraphDef *g = NEW(Tensorflow__GraphDef, tensorflow__graph_def__descriptor);
	SET_REPEATED(g, node, Tensorflow__NodeDef *, every_attr_kind(),
		     NEW(Tensorflow__NodeDef, tensorflow__node_def__descriptor));
	g->versions = v;
	g->version = 21;
	g->library = every_function_field();
	Tensorflow__GraphDef *pre = NEW(Tensorflow__GraphDef, tensorflow__graph_def__descriptor);
	pre->version = 5;
	Tensorflow__RunMetadata__FunctionGraphs *fg =
	    NEW(Tensorflow__RunMetadata__FunctionGraphs,
		tensorflow__run_metadata__function_graphs__descriptor);
	SET_REPEATED(fg, partition_graphs, Tensorflow__GraphDef *,
		     NEW(Tensorflow__GraphDef, tensorflow__graph_def__descriptor));
	fg->pre_optimization_graph = pre;
	fg->post_optimization_graph = NEW(Tensorflow__GraphDef, tensorflow__graph_def__descriptor);
	Tensorflow__SessionMetadata *sm =
	    NEW(Tensorflow__SessionMetadata, tensorflow__session_metadata__descriptor);
	sm->name = "sess";
	sm->version = -1;

	Tensorflow__RunMetadata *rm =
	    NEW(Tensorflow__RunMetadata, tensorflow__run_metadata__descriptor);
	rm->step_stats = every_step_stats_field();
	rm->cost_graph = every_cost_graph_field();
	SET_REPEATED(rm, partition_graphs, Tensorflow__GraphDef *, g);
	SET_REPEATED(rm, function_graphs, Tensorflow__RunMetadata__FunctionGraphs *, fg);
	rm->session_metadata = sm;
	return rm;
}

static GByteArray *pack(const ProtobufCMessage *m)
{
	GByteArray *b = g_byte_array_sized_new((guint)protobuf_c_message_get_packed_size(m));
	g_byte_array_set_size(b, (guint)protobuf_c_message_get_packed_size(m));
	protobuf_c_message_pack(m, b->data);
	return b;
}

/* print -> parse -> pack equals packing the original, and printing the
 * decoded copy gives the same text again; returns that text. */
static char *assert_round_trip(const ProtobufCMessage *orig)
{
	GByteArray *b1 = pack(orig);
	char *text = print_text(orig);
	ProtobufCMessage *copy = parse(orig->descriptor, text);
	GByteArray *b2 = pack(copy);
	char *again = print_text(copy);
	assert_string_equal(again, text);
	assert_int_equal(b2->len, b1->len);
	assert_memory_equal(b2->data, b1->data, b1->len);
	g_free(again);
	free_message(copy);
	g_byte_array_free(b1, TRUE);
	g_byte_array_free(b2, TRUE);
	return text;
}

/* A RunMetadata using every field of the schema (every scalar type at its
 * extremes, bytes 0-255, floats and doubles Python prints specially, maps
 * with string and integer keys, every oneof member, empty messages) survives
 * print -> parse -> pack unchanged. */
static void test_round_trip_every_field_kind(void **state)
{
	(void)state;
	kept = g_ptr_array_new_with_free_func(g_free);
	tl_warn_clear();
	Tensorflow__RunMetadata *rm = every_field_run_metadata();
	char *text = assert_round_trip(&rm->base);
	assert_int_equal(tl_warn_pending(), 0);

	/* a few lines checked against what Python's str() writes */
	static const char *const lines[] = {
	    "      node_name: \"dense/MatMul \\\"q\\\" \\\\ \\n\\t\\001\\177\"\n",
	    "      all_end_rel_micros: -5\n",
	    "      thread_id: 4294967295\n",
	    "          dtype: DT_FLOAT_REF\n",
	    "            ptr: 18446744073709551615\n",
	    "      memory_stats {\n        temp_memory_size: 1\n",
	    "    node_stats {\n      memory_stats {\n      }\n    }\n",
	    "    thread_names {\n      key: 1\n      value: \"main\"\n    }\n"
	    "    thread_names {\n      key: 4294967295\n      value: \"w\\303\\266rker\"\n    }\n",
	    "  dev_stats {\n  }\n",
	    "    cost: 0.001\n",
	    "          float_val: 0.1\n          float_val: -0.0\n          float_val: inf\n"
	    "          float_val: -inf\n          float_val: nan\n"
	    "          float_val: 1.4013e-45\n          float_val: 3.4028235e+38\n"
	    "          float_val: 3.4028e+38\n          float_val: 123456790.0\n"
	    "          float_val: 1e-05\n          float_val: 0.3\n",
	    "          double_val: 0.1\n          double_val: 1e-300\n          double_val: 1e+16\n"
	    "          double_val: 123456789.125\n"
	    "          double_val: 1.7976931348623157e+308\n          double_val: 5e-324\n"
	    "          double_val: -0.0\n          double_val: 0.3333333333333333\n"
	    "          double_val: 0.0001\n          double_val: 1e-05\n          double_val: "
	    "1e+22\n",
	    "          tensor_content: \"\\000\\001\\002\\003\\004\\005\\006\\007\\010\\t\\n\\013"
	    "\\014\\r\\016",
	    " !\\\"#$%&\\'()*+,-./0123456789:;<=>?@ABC",
	    "[\\\\]^_`abc",
	    "{|}~\\177\\200\\201",
	    "\\375\\376\\377\"\n",
	    "          string_val: \"\"\n          string_val: \"s\\000\\377\"\n",
	    "      key: \"b_int\"\n      value {\n        i: 0\n      }\n",
	    "      key: \"d_bool\"\n      value {\n        b: false\n      }\n",
	    "      key: \"T\"\n      value {\n        type: DT_INVALID\n      }\n",
	    "      key: \"e_shape\"\n      value {\n        shape {\n        }\n      }\n",
	    "      key: \"i_empty\"\n      value {\n        s: \"\"\n      }\n",
	    "          s: \"\\000\\377\\'\"\n",
	    "          type: DT_INT64\n          type: 77\n",
	    "          f: 0.1\n          f: -0.0\n          f: inf\n",
	    "        f: 1e-07\n",
	    "      arg_attr {\n        value {\n          attr {\n            key: \"_a\"\n",
	    "      resource_arg_unique_id {\n        key: 2\n        value: 7\n      }\n"
	    "      resource_arg_unique_id {\n        key: 10\n      }\n",
	    "      control_ret {\n        key: \"c\"\n      }\n",
	    "function_graphs {\n  partition_graphs {\n  }\n  pre_optimization_graph {\n"
	    "    version: 5\n  }\n  post_optimization_graph {\n  }\n}\n",
	    "session_metadata {\n  name: \"sess\"\n  version: -1\n}\n",
	};
	for (size_t i = 0; i < G_N_ELEMENTS(lines); i++) {
		if (strstr(text, lines[i]) == NULL) {
			fprintf(stderr, "%s", text);
			fail_msg("printed text (above) lacks <%s>", lines[i]);
		}
	}
	/* map keys come out sorted whatever the order in the message */
	assert_true(strstr(text, "key: \"T\"") < strstr(text, "key: \"_class\""));
	assert_true(strstr(text, "key: \"_class\"") < strstr(text, "key: \"a_list\""));
	g_free(text);
	g_ptr_array_free(kept, TRUE);
}

/* Event: a double, negative int64, and each oneof member, an empty bytes one
 * included, round-trips too. */
static void test_round_trip_event_oneofs(void **state)
{
	(void)state;
	kept = g_ptr_array_new_with_free_func(g_free);
	Tensorflow__Event *e = NEW(Tensorflow__Event, tensorflow__event__descriptor);
	e->wall_time = 1700000000.25;
	e->step = -1;
	e->what_case = TENSORFLOW__EVENT__WHAT_FILE_VERSION;
	e->file_version = "brain.Event:2";
	char *text = assert_round_trip(&e->base);
	assert_string_equal(
	    text, "wall_time: 1700000000.25\nstep: -1\nfile_version: \"brain.Event:2\"\n");
	g_free(text);

	e->what_case = TENSORFLOW__EVENT__WHAT_GRAPH_DEF;
	e->graph_def = bytes_of("", 0);
	text = assert_round_trip(&e->base);
	assert_non_null(strstr(text, "graph_def: \"\"\n"));
	g_free(text);

	Tensorflow__TaggedRunMetadata *t =
	    NEW(Tensorflow__TaggedRunMetadata, tensorflow__tagged_run_metadata__descriptor);
	t->tag = "step99";
	t->run_metadata = bytes_of("\x0a\x00", 2);
	e->what_case = TENSORFLOW__EVENT__WHAT_TAGGED_RUN_METADATA;
	e->tagged_run_metadata = t;
	e->wall_time = 0;
	text = assert_round_trip(&e->base);
	assert_string_equal(text, "step: -1\ntagged_run_metadata {\n  tag: \"step99\"\n"
				  "  run_metadata: \"\\n\\000\"\n}\n");
	g_free(text);
	g_ptr_array_free(kept, TRUE);
}

#pragma GCC diagnostic pop

/* ------------------------------------------------------------------------ */
/* Real dumps */

static size_t count_node_stats(const Tensorflow__StepStats *s)
{
	size_t n = 0;
	for (size_t i = 0; i < s->n_dev_stats; i++)
		n += s->dev_stats[i]->n_node_stats;
	return n;
}

static const Tensorflow__NodeDef *find_node(const Tensorflow__GraphDef *g, const char *name)
{
	for (size_t i = 0; i < g->n_node; i++) {
		if (strcmp(g->node[i]->name, name) == 0)
			return g->node[i];
	}
	fail_msg("no node '%s'", name);
	return NULL;
}

static const Tensorflow__AttrValue *find_attr(const Tensorflow__NodeDef *n, const char *key)
{
	for (size_t i = 0; i < n->n_attr; i++) {
		if (strcmp(n->attr[i]->key, key) == 0)
			return n->attr[i]->value;
	}
	fail_msg("node '%s' has no attr '%s'", n->name, key);
	return NULL;
}

/* Checks the guessed type of a dump's text, converts and unpacks it. */
static ProtobufCMessage *parse_dump(char *text, size_t len, const ProtobufCMessageDescriptor *want)
{
	assert_ptr_equal(tl_pbtext_guess(text, len), want);
	ProtobufCMessage *m = parse_len(want, text, len);
	g_free(text);
	return m;
}

/* parse_dump on a file of the repository's tests/data. */
static ProtobufCMessage *read_dump(const char *rel, const ProtobufCMessageDescriptor *want)
{
	size_t len;
	char *text = read_data(rel, &len);
	return parse_dump(text, len, want);
}

/* Each real RunMetadata dump converts and decodes with the values it holds. */
static void test_real_run_metadata_dumps(void **state)
{
	(void)state;
	tl_warn_clear();
	Tensorflow__RunMetadata *r =
	    (void *)read_dump("real/tb_backend_test_run_metadata_step99.pbtxt",
			      &tensorflow__run_metadata__descriptor);
	assert_int_equal(r->step_stats->n_dev_stats, 1);
	assert_int_equal(count_node_stats(r->step_stats), 1);
	Tensorflow__NodeExecStats *n = r->step_stats->dev_stats[0]->node_stats[0];
	assert_string_equal(n->node_name, "_SOURCE");
	assert_int_equal(n->all_start_micros, 1459365298611334);
	assert_string_equal(n->memory[0]->allocator_name, "cpu");
	free_message(r);

	r = (void *)read_dump("oracle/gen_g1_s1.pbtxt", &tensorflow__run_metadata__descriptor);
	assert_int_equal(r->step_stats->n_dev_stats, 8);
	assert_int_equal(count_node_stats(r->step_stats), 373);
	assert_string_equal(r->step_stats->dev_stats[2]->device, "/device:GPU:0/memcpy");
	n = r->step_stats->dev_stats[0]->node_stats[0];
	assert_int_equal(n->all_start_nanos, 1700000721094870530);
	assert_int_equal(n->thread_id, 44948);
	n = r->step_stats->dev_stats[0]->node_stats[1];
	assert_string_equal(n->node_name, "dense_1/VariableV2");
	assert_int_equal(n->memory[0]->allocation_records[0]->alloc_bytes, 51380224);
	assert_int_equal(n->output[0]->tensor_description->shape->dim[3]->size, 128);
	assert_int_equal(n->output[0]->tensor_description->allocation_description->ptr,
			 139865387351552);
	assert_int_equal(r->n_partition_graphs, 2);
	assert_int_equal(r->partition_graphs[0]->versions->producer, 1205);
	free_message(r);

	r = (void *)read_dump("oracle/exact/pub_g1_s21.pbtxt",
			      &tensorflow__run_metadata__descriptor);
	assert_int_equal(r->step_stats->n_dev_stats, 8);
	assert_int_equal(count_node_stats(r->step_stats), 490);
	n = r->step_stats->dev_stats[0]->node_stats[1];
	assert_string_equal(n->node_name, "mlp_5/VariableV2");
	assert_int_equal(n->memory_stats->persistent_memory_size, 1048576);
	assert_int_equal(n->memory_stats->persistent_tensor_alloc_ids[0], 4);
	assert_int_equal(r->n_partition_graphs, 2);
	free_message(r);
	assert_int_equal(tl_warn_pending(), 0);
}

/* The old StepStats dump with host_persistent_* names converts cleanly: the
 * legacy values land in the current fields and nothing is reported unknown. */
static void test_real_legacy_step_stats(void **state)
{
	(void)state;
	tl_warn_clear();
	Tensorflow__StepStats *s = (void *)read_dump("real/gradckpt_simple_stepstats.pbtxt",
						     &tensorflow__step_stats__descriptor);
	assert_int_equal(s->n_dev_stats, 1);
	assert_int_equal(count_node_stats(s), 23);
	Tensorflow__NodeExecStats *n = s->dev_stats[0]->node_stats[1];
	assert_string_equal(n->node_name, "gradients/Fill");
	assert_int_equal(n->memory_stats->persistent_memory_size, 1000000);
	assert_int_equal(n->memory_stats->n_persistent_tensor_alloc_ids, 1);
	assert_int_equal(n->memory_stats->persistent_tensor_alloc_ids[0], -1);
	assert_int_equal(n->output[0]->tensor_description->allocation_description->ptr, 4832362496);
	assert_non_null(s->dev_stats[0]->node_stats[0]->memory_stats);
	assert_int_equal(tl_warn_pending(), 0);
	free_message(s);
}

/* The real GraphDefs convert: node counts, attr values and the octal
 * tensor_content of a shape constant. */
static void test_real_graph_defs(void **state)
{
	(void)state;
	tl_warn_clear();
	Tensorflow__GraphDef *g = (void *)read_dump("real/gradckpt_simple2_timeline_graphdef.pbtxt",
						    &tensorflow__graph_def__descriptor);
	assert_int_equal(g->n_node, 58);
	assert_string_equal(g->node[0]->name, "Const");
	const Tensorflow__AttrValue *v = find_attr(g->node[0], "value");
	assert_true(v->tensor->n_float_val == 1 && v->tensor->float_val[0] == 1.0f);
	v = find_attr(find_node(g, "a00/Assign"), "_class");
	assert_memory_equal(v->list->s[0].data, "loc:@a00", 8);
	assert_true(find_attr(find_node(g, "a00/Assign"), "use_locking")->b);
	free_message(g);

	g = (void *)read_dump("real/tfprof_testdata_graph.pbtxt",
			      &tensorflow__graph_def__descriptor);
	assert_int_equal(g->n_node, 31);
	assert_string_equal(g->node[0]->name, "zeros");
	v = find_attr(g->node[0], "_output_shapes");
	assert_int_equal(v->list->shape[0]->n_dim, 4);
	assert_int_equal(v->list->shape[0]->dim[3]->size, 3);
	v = find_attr(find_node(g, "DW/Initializer/random_normal/shape"), "value");
	static const uint8_t shape[] = {3, 0, 0, 0, 3, 0, 0, 0, 3, 0, 0, 0, 6, 0, 0, 0};
	assert_int_equal(v->tensor->dtype, TENSORFLOW__DATA_TYPE__DT_INT32);
	assert_int_equal(v->tensor->tensor_content.len, sizeof shape);
	assert_memory_equal(v->tensor->tensor_content.data, shape, sizeof shape);
	free_message(g);
	assert_int_equal(tl_warn_pending(), 0);
}

/* The printer gives `text` (a dump written by a current Python
 * str(message)) back byte for byte: field order, indent, escapes, float
 * repr. Frees `text`. */
static void check_printer_gives_back(char *text, size_t len, const ProtobufCMessageDescriptor *desc,
				     const char *what)
{
	ProtobufCMessage *m = parse_len(desc, text, len);
	char *printed = print_text(m);
	if (strlen(printed) != len || memcmp(printed, text, len) != 0)
		fail_msg("printing '%s' does not give the file back", what);
	g_free(printed);
	free_message(m);
	g_free(text);
}

/* Proves: check_printer_gives_back on the real and generated dumps of the
 * repository written by Python. */
static void test_printer_matches_python_on_real_dumps(void **state)
{
	(void)state;
	static const struct {
		const char *file;
		const ProtobufCMessageDescriptor *desc;
	} dumps[] = {
	    {"real/tb_backend_test_run_metadata_step99.pbtxt",
	     &tensorflow__run_metadata__descriptor},
	    {"real/gradckpt_simple2_timeline_graphdef.pbtxt", &tensorflow__graph_def__descriptor},
	    {"oracle/gen_g1_s1.pbtxt", &tensorflow__run_metadata__descriptor},
	    {"oracle/exact/pub_g1_s21.pbtxt", &tensorflow__run_metadata__descriptor},
	};
	for (size_t i = 0; i < G_N_ELEMENTS(dumps); i++) {
		size_t len;
		char *text = read_data(dumps[i].file, &len);
		check_printer_gives_back(text, len, dumps[i].desc, dumps[i].file);
	}
}

/* Proves, on two real dumps whose source has no licence (skipped where
 * there is no shared folder): a TF 1.0 GPU RunMetadata with legacy device
 * names converts with the values it holds and prints back byte for byte; a
 * GraphDef with a function library, octal tensor_content and string lists
 * converts. */
static void test_shared_real_dumps(void **state)
{
	(void)state;
	tl_warn_clear();
	size_t len;
	char *text =
	    read_path(td_shared("realdata", "yaroslavvb_dynamic_stitch_gpu_runmeta.pbtxt"), &len);
	char *copy = g_memdup2(text, len);
	Tensorflow__RunMetadata *r =
	    (void *)parse_dump(text, len, &tensorflow__run_metadata__descriptor);
	assert_int_equal(r->step_stats->n_dev_stats, 5);
	assert_int_equal(count_node_stats(r->step_stats), 67);
	assert_int_equal(r->n_partition_graphs, 2);
	assert_int_equal(r->partition_graphs[0]->versions->producer, 21);
	Tensorflow__NodeExecStats *n = r->step_stats->dev_stats[1]->node_stats[1];
	assert_string_equal(r->step_stats->dev_stats[1]->device,
			    "/job:localhost/replica:0/task:0/gpu:0");
	assert_string_equal(n->node_name, "x");
	assert_int_equal(n->output[0]->tensor_description->dtype, TENSORFLOW__DATA_TYPE__DT_FLOAT);
	assert_int_equal(n->output[0]->tensor_description->allocation_description->ptr,
			 1108325958912);
	assert_int_equal(n->output[0]->tensor_description->allocation_description->allocated_bytes,
			 512);
	free_message(r);
	check_printer_gives_back(copy, len, &tensorflow__run_metadata__descriptor,
				 "yaroslavvb_dynamic_stitch_gpu_runmeta.pbtxt");

	text = read_path(td_shared("realdata", "yaroslavvb_resnet_8_simple_graphdef.pbtxt"), &len);
	Tensorflow__GraphDef *g = (void *)parse_dump(text, len, &tensorflow__graph_def__descriptor);
	assert_int_equal(g->n_node, 460);
	assert_string_equal(g->node[0]->name, "filenames");
	assert_int_equal(g->versions->producer, 24);
	assert_true(g->library->n_function >= 1);
	assert_string_equal(g->library->function[0]->signature->name, "tf_map_func_dd7e9ec6");
	const Tensorflow__AttrValue *v = find_attr(find_node(g, "Reshape/shape"), "value");
	static const uint8_t content[] = {0x80, 0, 0, 0, ' ', 0, 0, 0, ' ', 0, 0, 0, 3, 0, 0, 0};
	assert_int_equal(v->tensor->tensor_content.len, sizeof content);
	assert_memory_equal(v->tensor->tensor_content.data, content, sizeof content);
	v = find_attr(g->node[0], "value");
	assert_int_equal(v->tensor->n_string_val, 5);
	free_message(g);
	assert_int_equal(tl_warn_pending(), 0);
}

int main(void)
{
	td_filter();
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_escapes_decode_to_exact_bytes),
	    cmocka_unit_test(test_octal_tensor_content),
	    cmocka_unit_test(test_lists_and_repeated_scalars),
	    cmocka_unit_test(test_enums_by_name_and_number),
	    cmocka_unit_test(test_legacy_memory_stats_names),
	    cmocka_unit_test(test_unknown_fields_skipped_with_warning),
	    cmocka_unit_test(test_angle_brackets_comments_separators),
	    cmocka_unit_test(test_integer_extremes_and_bools),
	    cmocka_unit_test(test_float_forms),
	    cmocka_unit_test(test_maps_and_oneofs),
	    cmocka_unit_test(test_guess_top_level_message),
	    cmocka_unit_test(test_errors_name_line_and_column),
	    cmocka_unit_test(test_appends_to_existing_output),
	    cmocka_unit_test(test_deep_nesting_is_capped),
	    cmocka_unit_test(test_truncation_at_every_byte),
	    cmocka_unit_test(test_garbage_never_crashes),
	    cmocka_unit_test(test_wire_encoding_is_exact),
	    cmocka_unit_test(test_sint_and_fixed_types),
	    cmocka_unit_test(test_printer_sorts_map_keys),
	    cmocka_unit_test(test_round_trip_every_field_kind),
	    cmocka_unit_test(test_round_trip_event_oneofs),
	    cmocka_unit_test(test_real_run_metadata_dumps),
	    cmocka_unit_test(test_real_legacy_step_stats),
	    cmocka_unit_test(test_real_graph_defs),
	    cmocka_unit_test(test_printer_matches_python_on_real_dumps),
	    cmocka_unit_test(test_shared_real_dumps),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
