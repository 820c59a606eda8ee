/* Unit tests of io/tlmem.c: a timeline.py show_memory trace's tensor objects
 * as allocation and free events in timeline.py's order, their descriptions
 * (dtype and shape, requested and allocated bytes, an allocator name with
 * protobuf escapes), the counters as totals per microsecond, a loop's
 * overwritten object, a free at the creation's time, the side stream's
 * silence, and a trace without memory. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "io/tlmem.h"
#include "base/warn.h"

#include <string.h>

#define PROC(pid, n)                                                                               \
	"{\"name\":\"process_name\",\"ph\":\"M\",\"pid\":" #pid ",\"args\":{\"name\":\"" n "\"}},"
#define OBJ(ph, name, id, ts)                                                                      \
	"{\"ph\":\"" ph "\",\"cat\":\"Tensor\",\"name\":\"" name                                   \
	"\",\"pid\":2,\"tid\":0,\"ts\":" #ts ",\"id\":" #id "},"
#define SNAP(name, id, ts, desc)                                                                   \
	"{\"ph\":\"O\",\"cat\":\"Tensor\",\"name\":\"" name "\",\"pid\":2,\"tid\":0,\"ts\":" #ts   \
	",\"id\":" #id ",\"args\":{\"snapshot\":{\"tensor_description\":\"" desc "\"}}},"
#define CNT(a, ts, v)                                                                              \
	"{\"ph\":\"C\",\"cat\":\"Memory\",\"name\":\"" a "\",\"pid\":0,\"tid\":0,\"ts\":" #ts      \
	",\"args\":{\"" a "\":" #v "}},"

static const char trace[] = "{\"traceEvents\":[" PROC(0, "Allocators")
    PROC(1, "/device:GPU:0 Compute") PROC(2, "/device:GPU:0 Tensors")
    /* a: float[2,3], 24 requested, 256 allocated, on "gpu\303\251" */
    OBJ("N", "a", 0, 100)
	SNAP("a", 0, 104,
	     "dtype: DT_FLOAT\\nshape {\\n  dim {\\n    size: 2\\n  }\\n  dim {\\n    "
	     "size: 3\\n  }\\n}\\nallocation_description {\\n  requested_bytes: "
	     "24\\n  allocated_bytes: 256\\n  allocator_name: gpu\\\\303\\\\251\\n}\\n")
    /* w run twice: the first run's object has no D */
    OBJ("N", "w", 1, 110)
	SNAP("w", 1, 111,
	     "dtype: DT_INT32_REF\\nshape {\\n  unknown_rank: true\\n}\\n"
	     "allocation_description {\\n  requested_bytes: 8\\n  allocator_name: "
	     "gpu\\u00e9\\n}\\n") OBJ("N", "w", 2, 120)
	    SNAP("w", 2, 121,
		 "dtype: DT_INT32\\nshape {\\n}\\nallocation_description {\\n  "
		 "requested_bytes: 8\\n  allocator_name: gpu\\u00e9\\n}\\n")
    /* z: no duration, freed at its creation's time */
    OBJ("N", "z", 3, 120)
	SNAP("z", 3, 119,
	     "dtype: DT_FLOAT\\nallocation_description {\\n  requested_bytes: 4\\n  "
	     "allocator_name: gpu\\u00e9\\n}\\n") OBJ("D", "a", 0, 130) OBJ("D", "w", 2, 125)
	    OBJ("D", "z", 3, 120)
    /* timeline.py's counters: (100,+24) (120,-4 z) (120,+4 z) (120,+8 w)
     * (125,-8) (130,-24) */
    CNT("gpu\\u00e9", 100, 24) CNT("gpu\\u00e9", 120, 20) CNT("gpu\\u00e9", 120, 24)
	CNT("gpu\\u00e9", 120, 32) CNT("gpu\\u00e9", 125, 24) CNT("gpu\\u00e9", 130, 0) "{}]}";

static void test_objects_and_counters(void **state)
{
	tl_arena *arena = tl_arena_new();
	tl_alloc_events ev;
	tl_error err = {{0}};
	tl_warn_clear();
	assert_true(tl_tlmem_maybe((const uint8_t *)trace, strlen(trace)));
	assert_int_equal(
	    tl_tlmem_read((const uint8_t *)trace, strlen(trace), "t.json", arena, &ev, &err), 0);
	/* a+, z+, z-, w+, w-, a- (the first w left out) */
	assert_int_equal(ev.n, 6);
	assert_int_equal(tl_warn_count("tlmem-overwritten"), 1);
	const char *ops[] = {"a", "z", NULL, "w", NULL, NULL};
	const int64_t t[] = {0, 20000, 20000, 20000, 25000, 30000};
	const int64_t bytes[] = {24, 4, -4, 8, -8, -24};
	const int64_t totals[] = {24, -1, -1, 32, 24, 0};
	for (size_t i = 0; i < ev.n; i++) {
		assert_int_equal(ev.ev[i].t_ns, t[i]);
		assert_int_equal(ev.ev[i].bytes, bytes[i]);
		assert_int_equal(ev.ev[i].total_allocated, totals[i]);
		if (ops[i] != NULL)
			assert_string_equal(ev.ev[i].op, ops[i]);
		else
			assert_null(ev.ev[i].op);
		/* "gpu\303\251" decoded is the counters' "gpu\u00e9" */
		assert_string_equal(ev.ev[i].allocator, "gpu\xc3\xa9");
		assert_string_equal(ev.ev[i].device, "/device:GPU:0");
	}
	assert_string_equal(ev.ev[0].what, "float[2,3]");
	assert_int_equal(ev.ev[0].allocated, 256);
	assert_int_equal(ev.ev[0].addr, 1);
	assert_string_equal(ev.ev[1].what, "float");
	assert_string_equal(ev.ev[3].what, "int32[]");
	assert_int_equal(ev.ev[3].allocated, 0);
	assert_int_equal(ev.ev[3].addr, 3);
	/* a free has the allocation's address */
	assert_int_equal(ev.ev[2].addr, ev.ev[1].addr);
	tl_warn_clear();
	tl_arena_free(arena);
}

static void test_side_stream_silent(void **state)
{
	tl_arena *arena = tl_arena_new();
	tl_alloc_events ev;
	tl_error err = {{0}};
	tl_warn_clear();
	/* cut in the counters: read, nothing said */
	size_t cut = (size_t)(strstr(trace, "\"ts\":125,\"args\"") - trace);
	assert_int_equal(tl_tlmem_alloc_events((const uint8_t *)trace, cut, arena, &ev, &err), 0);
	assert_int_equal(ev.n, 6);
	assert_int_equal(tl_warn_pending(), 0);
	/* the counter at 120 is whole but, the last before the cut, may not
	 * be: left out; the one at 100 is kept */
	assert_int_equal(ev.ev[0].total_allocated, 24);
	assert_int_equal(ev.ev[3].total_allocated, -1);
	/* on the file's clock, the run's */
	assert_int_equal(ev.ev[0].t_ns, 100000);
	assert_string_equal(ev.clock, "the run's clock");
	tl_arena_free(arena);
}

static void test_no_memory(void **state)
{
	static const char plain[] = "{\"traceEvents\":[" PROC(0, "Allocators")
	    PROC(1, "/cpu:0 Compute") "{\"ph\":\"X\",\"cat\":\"Op\",\"name\":\"Add\",\"pid\":1,"
				      "\"tid\":0,\"ts\":1,"
				      "\"dur\":2,\"args\":{\"name\":\"add\",\"op\":\"Add\"}}]}";
	tl_arena *arena = tl_arena_new();
	tl_alloc_events ev;
	tl_error err = {{0}};
	assert_false(tl_tlmem_maybe((const uint8_t *)plain, strlen(plain)));
	assert_int_equal(
	    tl_tlmem_read((const uint8_t *)plain, strlen(plain), "p.json", arena, &ev, &err), 0);
	assert_int_equal(ev.n, 0);
	tl_arena_free(arena);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_objects_and_counters),
	    cmocka_unit_test(test_side_stream_silent),
	    cmocka_unit_test(test_no_memory),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
