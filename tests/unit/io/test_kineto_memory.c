/* Unit tests of io/kineto_memory.c: the [memory] events of a Kineto trace,
 * their devices and ops (the innermost op slice of their thread), times from
 * the trace's start, damaged values warned of and skipped, and the real
 * Qwen trace's events checked against jansson's reading of the same file. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "io/kineto_memory.h"
#include "base/warn.h"

#include <glib.h>
#include <jansson.h>
#include <string.h>

#include "testdata.h"

static int read_text(const char *json, tl_arena *arena, tl_alloc_events *ev, tl_kineto_ops *ops,
		     tl_error *err)
{
	return tl_kineto_memory_read((const uint8_t *)json, strlen(json), arena, ev, ops, err);
}

#define MEM(ts, tid, args)                                                                         \
	"{\"ph\":\"i\",\"cat\":\"cpu_instant_event\",\"s\":\"t\",\"name\":\"[memory]\","           \
	"\"pid\":7,\"tid\":" #tid ",\"ts\":" #ts ",\"args\":{" args "}}"

static const char
    small
	[] =
	    "{\"schemaVersion\":1,\"traceEvents\":["
	    "{\"ph\":\"X\",\"cat\":\"user_annotation\",\"name\":\"ProfilerStep#1\",\"pid\":7,"
	    "\"tid\":7,\"ts\":100.0,\"dur\":100},"
	    "{\"ph\":\"X\",\"cat\":\"cpu_op\",\"name\":\"aten::mm\",\"pid\":7,\"tid\":7,"
	    "\"ts\":110,\"dur\":20},"
	    "{\"ph\":\"X\",\"cat\":\"cpu_op\",\"name\":\"aten::empty\",\"pid\":7,\"tid\":7,"
	    "\"ts\":112,\"dur\":2},"
	    "{\"ph\":\"X\",\"cat\":\"python_function\",\"name\":\"f.py(1): g\",\"pid\":7,\"tid\":7,"
	    "\"ts\":112.5,\"dur\":1},"
	    "{\"ph\":\"X\",\"cat\":\"cpu_op\",\"name\":\"aten::add\",\"pid\":7,\"tid\":8,"
	    "\"ts\":110,\"dur\":50}," MEM(113.25, 7,
					  "\"Total Reserved\":2097152,\"Total "
					  "Allocated\":1536,\"Bytes\":512,"
					  "\"Addr\":140000000000000,\"Device Id\":0,\"Device "
					  "Type\":1") "," MEM(150, 7,
							      "\"Bytes\":-512,\"Addr\":"
							      "\"140000000000000\",\"Device "
							      "Id\":0,\"Device Type\":1") "," MEM(120,
												  8,
												  "\"Bytes\":8,\"Addr\":4096,\"Device Id\":-1,\"Device Type\":0") "," MEM(99.5,
																					  9,
																					  "\"Bytes\":8,\"Addr\":\"0x10\",\"Device Id\":1,\"Device Type\":12") "]}";

static void test_small_trace(void **state)
{
	tl_arena *arena = tl_arena_new();
	tl_alloc_events ev;
	tl_kineto_ops ops;
	tl_error err = {{0}};
	assert_int_equal(read_text(small, arena, &ev, &ops, &err), 0);
	assert_int_equal(ev.n, 4);
	assert_int_equal(ops.n, 4); /* the python_function slice is no op */
	assert_string_equal(ev.clock, "trace start");
	/* the trace starts at ts 99.5 (the last event) */
	assert_int_equal(ev.ev[0].t_ns, 13750);
	assert_string_equal(ev.ev[0].device, "/device:GPU:0");
	assert_string_equal(ev.ev[0].allocator, "cuda:0");
	assert_int_equal(ev.ev[0].addr, 140000000000000ULL);
	assert_int_equal(ev.ev[0].bytes, 512);
	assert_int_equal(ev.ev[0].total_allocated, 1536);
	assert_int_equal(ev.ev[0].total_reserved, 2097152);
	assert_string_equal(ev.ev[0].op, "aten::empty"); /* innermost of step, mm, empty */
	assert_int_equal(ev.ev[1].addr, 140000000000000ULL);
	assert_int_equal(ev.ev[1].total_allocated, -1);
	assert_string_equal(ev.ev[1].op, "ProfilerStep#1"); /* mm has ended */
	assert_string_equal(ev.ev[2].device, "/host:CPU");
	assert_string_equal(ev.ev[2].allocator, "cpu");
	assert_string_equal(ev.ev[2].op, "aten::add"); /* its own thread's op */
	assert_string_equal(ev.ev[3].device, "/device:XPU:1");
	assert_string_equal(ev.ev[3].allocator, "xpu:1");
	assert_int_equal(ev.ev[3].addr, 16);
	assert_null(ev.ev[3].op);
	assert_int_equal(ev.ev[3].t_ns, 0);
	assert_string_equal(ops.op[0].name, "ProfilerStep#1");
	assert_int_equal(ops.op[0].t_ns, 500);
	assert_int_equal(ops.op[0].dur_ns, 100000);
	assert_string_equal(ops.op[3].thread, "7/8");
	tl_arena_free(arena);
}

/* Damaged values: warned of, the event skipped or read in part. */
static void test_damaged_values(void **state)
{
	tl_warn_clear();
	const char *json = "[" MEM(1, 1, "\"Bytes\":\"many\",\"Addr\":1,\"Device Type\":1") "," MEM(
	    2, 1,
	    "\"Bytes\":1e300,\"Addr\":1,\"Device Type\":1") "," MEM(3, 1,
								    "\"Bytes\":16,\"Device "
								    "Type\":1") "," MEM(4, 1,
											"\"Bytes\":"
											"16,"
											"\"Addr\":-"
											"5,"
											"\"Device "
											"Type\":1,"
											"\"Total "
											"Allocated"
											"\":"
											"9999999999"
											"9999999999"
											"999") "," MEM(5,
												       1,
												       "\"Bytes\":16,\"Addr\":7") "," MEM(6,
																	  1,
																	  "\"Bytes\":4611686018427387904,\"Addr\":7,\"Device Type\":1") ","
																									"{\"ph\":\"i\",\"name\":\"[memory]\",\"pid\":1,\"tid\":1,\"ts\":7}]";
	tl_arena *arena = tl_arena_new();
	tl_alloc_events ev;
	tl_error err = {{0}};
	assert_int_equal(
	    tl_kineto_alloc_events((const uint8_t *)json, strlen(json), arena, &ev, &err), 0);
	assert_int_equal(ev.n, 3); /* the two without Addr, and 2^62 itself */
	assert_int_equal(ev.ev[0].addr, 0);
	assert_int_equal(ev.ev[1].addr, 0);
	assert_int_equal(ev.ev[1].total_allocated, -1);
	assert_int_equal(ev.ev[2].bytes, INT64_C(4611686018427387904));
	assert_int_equal(tl_warn_count("kineto-memory-bytes"), 2);
	assert_int_equal(tl_warn_count("kineto-memory-addr"), 2);
	assert_int_equal(tl_warn_count("kineto-memory-total"), 1);
	assert_int_equal(tl_warn_count("kineto-memory-device"), 1);
	assert_int_equal(tl_warn_count("kineto-memory-args"), 1);
	tl_warn_clear();
	tl_arena_free(arena);
}

/* No [memory] event: no error, none read; none usable: an error. */
static void test_none(void **state)
{
	tl_arena *arena = tl_arena_new();
	tl_alloc_events ev;
	tl_error err = {{0}};
	assert_int_equal(read_text("{\"traceEvents\":[{\"ph\":\"X\",\"name\":\"a\",\"pid\":1,"
				   "\"tid\":1,\"ts\":1,\"dur\":1}]}",
				   arena, &ev, NULL, &err),
			 0);
	assert_int_equal(ev.n, 0);
	assert_int_equal(read_text("[" MEM(1, 1, "\"Bytes\":null,\"Device Type\":1") "]", arena,
				   &ev, NULL, &err),
			 -1);
	assert_string_equal(err.msg, "none of its 1 [memory] events is usable");
	assert_int_equal(read_text("[{\"ph\":", arena, &ev, NULL, &err), -1);
	tl_warn_clear();
	tl_arena_free(arena);
}

/* Times have one bound, the model's 2^61 ns: epoch microseconds of 2030
 * with a fraction (past a double's nanoseconds), and negative times, are
 * read to the nanosecond; a ts past the bound is skipped with a warning. */
static void test_times_any_origin(void **state)
{
	tl_warn_clear();
	const char *json =
	    "[" MEM(1893456000382523.216, 1, "\"Bytes\":16,\"Addr\":7,\"Device Type\":1") "," MEM(
		1893456000382524.001, 1,
		"\"Bytes\":-16,\"Addr\":7,\"Device Type\":1") "," MEM(2305843009213694, 1,
									    "\"Bytes\":16,\"Addr\":8,"
									    "\"Device Type\":1") "]";
	tl_arena *arena = tl_arena_new();
	tl_alloc_events ev;
	tl_error err = {{0}};
	assert_int_equal(read_text(json, arena, &ev, NULL, &err), 0);
	assert_int_equal(ev.n, 2);
	assert_int_equal(ev.ev[0].t_ns, 0);
	assert_int_equal(ev.ev[1].t_ns, 785); /* 524.001 - 523.216 us */
	assert_int_equal(tl_warn_count("kineto-memory-ts"), 1);
	const char *neg = "[" MEM(-5000.25, 1, "\"Bytes\":16,\"Addr\":7,\"Device Type\":1") "," MEM(
	    -1.5, 1, "\"Bytes\":-16,\"Addr\":7,\"Device Type\":1") "]";
	assert_int_equal(read_text(neg, arena, &ev, NULL, &err), 0);
	assert_int_equal(ev.n, 2);
	assert_int_equal(ev.ev[1].t_ns, 4998750);
	tl_warn_clear();
	tl_arena_free(arena);
}

/* As a timeline's side stream, [memory] events cost only themselves: none
 * usable is no error (warned of by kind), JSON damage keeps the events
 * before it. */
static void test_side_stream(void **state)
{
	tl_warn_clear();
	tl_arena *arena = tl_arena_new();
	tl_alloc_events ev;
	tl_error err = {{0}};
	const char *none = "[" MEM(1, 1, "\"Bytes\":null,\"Device Type\":1") "," MEM(
	    1e300, 1, "\"Bytes\":4,\"Device Type\":1") "]";
	assert_int_equal(
	    tl_kineto_alloc_events((const uint8_t *)none, strlen(none), arena, &ev, &err), 0);
	assert_int_equal(ev.n, 0);
	assert_int_equal(tl_warn_count("kineto-memory-bytes"), 1);
	assert_int_equal(tl_warn_count("kineto-memory-ts"), 1);
	const char *cut = "[" MEM(1, 1, "\"Bytes\":4,\"Addr\":1,\"Device Type\":1") ",{\"ph\":";
	assert_int_equal(
	    tl_kineto_alloc_events((const uint8_t *)cut, strlen(cut), arena, &ev, &err), 0);
	assert_int_equal(ev.n, 1);
	assert_int_equal(read_text(cut, arena, &ev, NULL, &err), -1);
	tl_warn_clear();
	tl_arena_free(arena);
}

/* The real Qwen trace: every [memory] event, its values as jansson reads
 * them, in the file's order. */
static void test_real_qwen(void **state)
{
	char *path = td_data("real/AMD-AGI_TraceLens_h100-qwen1.5-0.5b.pt.trace.json.gz");
	GBytes *b = td_load(path);
	g_free(path);
	gsize len = 0;
	const char *data = g_bytes_get_data(b, &len);
	json_error_t jerr;
	json_t *doc = json_loadb(data, len, 0, &jerr);
	assert_non_null(doc);
	tl_arena *arena = tl_arena_new();
	tl_alloc_events ev;
	tl_error err = {{0}};
	assert_int_equal(tl_kineto_alloc_events((const uint8_t *)data, len, arena, &ev, &err), 0);
	size_t k = 0, gpu = 0, with_op = 0;
	json_t *e;
	size_t i;
	json_array_foreach(json_object_get(doc, "traceEvents"), i, e)
	{
		const char *name = json_string_value(json_object_get(e, "name"));
		if (name == NULL || strcmp(name, "[memory]") != 0)
			continue;
		assert_true(k < ev.n);
		json_t *args = json_object_get(e, "args");
		assert_int_equal(ev.ev[k].bytes,
				 json_integer_value(json_object_get(args, "Bytes")));
		assert_int_equal(ev.ev[k].addr, json_integer_value(json_object_get(args, "Addr")));
		assert_int_equal(ev.ev[k].total_allocated,
				 json_integer_value(json_object_get(args, "Total Allocated")));
		bool cuda = json_integer_value(json_object_get(args, "Device Type")) == 1;
		assert_string_equal(ev.ev[k].device, cuda ? "/device:GPU:0" : "/host:CPU");
		gpu += cuda;
		with_op += ev.ev[k].op != NULL;
		k++;
	}
	assert_int_equal(k, ev.n);
	assert_int_equal(k, 2450);
	assert_int_equal(gpu, 2250);
	assert_int_equal(with_op, k); /* each lies in ProfilerStep#N at least */
	json_decref(doc);
	tl_arena_free(arena);
	g_bytes_unref(b);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_small_trace),
	    cmocka_unit_test(test_damaged_values),
	    cmocka_unit_test(test_none),
	    cmocka_unit_test(test_times_any_origin),
	    cmocka_unit_test(test_side_stream),
	    cmocka_unit_test(test_real_qwen),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
