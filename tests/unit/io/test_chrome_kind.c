/* Unit tests of io/chrome_kind.c: what each slice of a Chrome trace is to a
 * table, as io/chrome_run.c marks its records (tl_links.events): by cat
 * (Kineto), by process (timeline.py's streams and their repeats), by line
 * (TF2's "Stream #N" lines, its derived lines, "Steps"). The expected kinds
 * are the rules of io/chrome_kind.h, written out per slice. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "io/chrome_kind.h"
#include "io/chrome_run.h"

#include <glib.h>
#include <string.h>

#define H TL_SLICE_HOST
#define D TL_SLICE_DEVICE
#define S TL_SLICE_SKIP
#define P TL_SLICE_STEP
#define OP TL_SLICE_OP
#define RT TL_SLICE_RUNTIME

/* Reads the trace and checks each record's kind (in the file's order of
 * its slices) and name. */
static void assert_kinds(const char *json, const uint8_t *want, const char *const *names, size_t n)
{
	tl_arena *arena = tl_arena_new();
	tl_chrome_run cr;
	tl_error err = {{0}};
	if (tl_chrome_run_read((const uint8_t *)json, strlen(json), "t.json", arena, &cr, &err) !=
	    0)
		fail_msg("read: %s", err.msg);
	assert_int_equal(cr.links.n_recs, n);
	assert_non_null(cr.links.events);
	for (size_t i = 0; i < n; i++) {
		if (cr.links.events[i].kind != want[i])
			fail_msg("slice %zu (%s): kind %d, expected %d", i, cr.links.events[i].name,
				 cr.links.events[i].kind, want[i]);
		assert_string_equal(cr.links.events[i].name, names[i]);
	}
	tl_arena_free(arena);
}

#define PROC(pid, name)                                                                            \
	"{\"ph\":\"M\",\"pid\":" #pid ",\"name\":\"process_name\",\"args\":{\"name\":\"" name      \
	"\"}},"
#define THREAD(pid, tid, name)                                                                     \
	"{\"ph\":\"M\",\"pid\":" #pid ",\"tid\":" #tid                                             \
	",\"name\":\"thread_name\",\"args\":{\"name\":\"" name "\"}},"
#define X(pid, tid, name)                                                                          \
	"{\"ph\":\"X\",\"pid\":" #pid ",\"tid\":" #tid ",\"ts\":1,\"dur\":1,\"name\":\"" name "\"" \
											      "}"
#define XC(cat, name)                                                                              \
	"{\"ph\":\"X\",\"pid\":1,\"tid\":1,\"ts\":1,\"dur\":1,\"cat\":\"" cat                      \
	"\",\"name\":\"" name "\"}"

/* timeline.py with per-stream processes: the stream's kernel is device
 * work, its repeats on stream:all and memcpy are left out; the executor's
 * op is host work. Without a per-stream process, stream:all and memcpy are
 * the device work. */
static void test_tf1(void **state)
{
	(void)state;
	static const char streams[] = "{\"traceEvents\":[" PROC(1, "/job:w/device:GPU:0 Compute")
	    PROC(2, "/device:GPU:0/stream:all Compute") PROC(3, "/device:GPU:0/stream:12 Compute")
		PROC(4, "/device:GPU:0/memcpy Compute")
		    X(1, 0, "MatMul") "," X(2, 0, "k") "," X(3, 0, "k") "," X(4, 0, "copy") "]}";
	static const uint8_t k1[] = {H, S, D, S};
	static const char *const n1[] = {"MatMul", "k", "k", "copy"};
	assert_kinds(streams, k1, n1, 4);
	static const char no_streams[] = "{\"traceEvents\":[" PROC(1, "/job:w/device:GPU:0 Compute")
	    PROC(2, "/device:GPU:0/stream:all Compute") PROC(4, "/device:GPU:0/memcpy Compute")
		X(1, 0, "MatMul") "," X(2, 0, "k") "," X(4, 0, "copy") "]}";
	static const uint8_t k2[] = {H, D, D};
	static const char *const n2[] = {"MatMul", "k", "copy"};
	assert_kinds(no_streams, k2, n2, 3);
}

/* TF2 trace JSON: a "/device:..." process's "Stream #N" lines and lines of
 * no known view are device work; "TensorFlow Ops", "Launch Stats" and,
 * beside streams, "XLA Ops" repeat them and are left out; "Steps" gives
 * the steps; the host's threads are host work. Without streams, "XLA Ops"
 * is the device work. */
static void test_tf2(void **state)
{
	(void)state;
	static const char json[] = "{\"traceEvents\":[" PROC(1, "/device:GPU:0") THREAD(
	    1, 13, "Stream #13(Compute)") THREAD(1, 2, "TensorFlow Ops") THREAD(1, 3, "XLA Ops")
	    THREAD(1, 4, "Steps") THREAD(1, 5, "Launch Stats") THREAD(1, 6, "Other line") PROC(
		9, "/host:CPU")
		X(1, 13, "kernel") "," X(1, 2, "MatMul") "," X(1, 3, "fusion") "," X(
		    1, 4, "7") "," X(1, 5, "launch") "," X(1, 6, "other") "," X(9, 1, "train") "]}";
	static const uint8_t k[] = {D, S, S, P, S, D, H};
	static const char *const n[] = {"kernel", "MatMul", "fusion", "7",
					"launch", "other",  "train"};
	assert_kinds(json, k, n, 7);
	static const char xla[] = "{\"traceEvents\":[" PROC(1, "/device:GPU:0")
	    THREAD(1, 3, "XLA Ops") X(1, 3, "fusion") "]}";
	static const uint8_t kx[] = {D};
	static const char *const nx[] = {"fusion"};
	assert_kinds(xla, kx, nx, 1);
}

/* Kineto: the cat decides, whatever the thread: kernels, copies and sets
 * (any case) are device work; the profiler's span and the GPU annotations
 * are left out; cpu_op and the older Operator are ops; runtime calls are
 * host work marked as runtime calls; the rest are host work. */
static void test_kineto(void **state)
{
	(void)state;
	static const char json[] = "{\"traceEvents\":[" XC("kernel", "gemm") "," XC("gpu_memcpy", "Memcpy HtoD") "," XC("Memset", "set") "," XC(
	    "Trace",
	    "PyTorch Profiler (0)") "," XC("gpu_user_annotation",
					   "a") "," XC("cpu_op",
						       "aten::mm") "," XC("Operator",
									  "aten::add") "," XC("cuda"
											      "_run"
											      "tim"
											      "e",
											      "cuda"
											      "Laun"
											      "chKe"
											      "rne"
											      "l") "," XC("user_annotation",
													  "ProfilerStep#1") "]}";
	static const uint8_t k[] = {D, D, D, S, S, H | OP, H | OP, H | RT, H};
	static const char *const n[] = {"gemm",
					"Memcpy HtoD",
					"set",
					"PyTorch Profiler (0)",
					"a",
					"aten::mm",
					"aten::add",
					"cudaLaunchKernel",
					"ProfilerStep#1"};
	assert_kinds(json, k, n, 9);
	assert_int_equal(tl_chrome_kind_of_cat("KERNEL"), D | TL_CHROME_KIND_BY_CAT);
	assert_int_equal(tl_chrome_kind_of_cat("cuda_driver"), RT);
	assert_int_equal(tl_chrome_kind_of_cat("python_function"), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_tf1),
	    cmocka_unit_test(test_tf2),
	    cmocka_unit_test(test_kineto),
	};
	return cmocka_run_group_tests_name("chrome kind", tests, NULL, NULL);
}
