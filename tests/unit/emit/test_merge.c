/* Unit tests of emit/merge.c: two RunMetadata runs and one Chrome trace
 * merged into one trace under each --align mode, written to a file and
 * read back with jansson. What merge.h promises is checked event by
 * event: where each run lands in time (wall: as recorded plus its offset;
 * pack: back to back with the gap; overlay: every run from zero), the
 * labelled spans of the "Runs" process, one process per device name shared
 * across runs (each run its own under overlay), the Chrome input's pids,
 * tids and flow ids renumbered clear of the runs', its repeated metadata
 * folded, and processes ordered by job and task, then first appearance.
 *
 * The inputs (times in us):
 *   r1   on /job:worker/task:1 CPU: a 1000..1010, b 1020..1030 (reads a)
 *   r2   on /job:worker/task:0 CPU: c 5000..5005; on task:1 CPU d 5010..5040
 *   t.json  process 7 "worker": k on thread 3 (100..150), k2 on thread 9
 *        (120..130), a flow with id 1 from k to k2; process 2 (unnamed,
 *        the pid the merge gives its first device): e (140..145). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "emit/merge.h"

#include <glib.h>
#include <jansson.h>
#include <math.h>
#include <string.h>

#include "runtext.h"
#include "testdata.h"
#include "tmpdir.h"

#define TASK0 "/job:worker/replica:0/task:0/device:CPU:0"
#define TASK1 "/job:worker/replica:0/task:1/device:CPU:0"

/* clang-format off */
static const char r1_text[] =
	STEP(
		DEV(TASK1,
			EXEC("a", 1000, 10) END
			EXEC("b", 1020, 10) END))
	GRAPH(
		NODE("a", "Const", TASK1, "")
		NODE("b", "Neg", TASK1, IN("a")));
/* clang-format on */

/* clang-format off */
static const char r2_text[] =
	STEP(
		DEV(TASK0,
			EXEC("c", 5000, 5) END)
		DEV(TASK1,
			EXEC("d", 5010, 30) END))
	GRAPH(
		NODE("c", "Const", TASK0, ""))
	GRAPH(
		NODE("d", "Const", TASK1, ""));
/* clang-format on */

static const char chrome_text[] =
    "{\"traceEvents\":["
    "{\"ph\":\"M\",\"name\":\"process_name\",\"pid\":7,\"args\":{\"name\":\"worker\"}},"
    "{\"ph\":\"M\",\"name\":\"thread_name\",\"pid\":7,\"tid\":3,\"args\":{\"name\":\"main\"}},"
    "{\"ph\":\"X\",\"name\":\"k\",\"pid\":7,\"tid\":3,\"ts\":100,\"dur\":50},"
    "{\"ph\":\"X\",\"name\":\"k2\",\"pid\":7,\"tid\":9,\"ts\":120,\"dur\":10},"
    "{\"ph\":\"s\",\"name\":\"f\",\"cat\":\"x\",\"id\":1,\"pid\":7,\"tid\":3,\"ts\":110},"
    "{\"ph\":\"f\",\"name\":\"f\",\"cat\":\"x\",\"id\":1,\"pid\":7,\"tid\":9,\"ts\":125,"
    "\"bp\":\"e\"},"
    "{\"ph\":\"M\",\"name\":\"process_labels\",\"pid\":7,\"args\":{\"labels\":\"x\"}},"
    "{\"ph\":\"M\",\"name\":\"process_labels\",\"pid\":7,\"args\":{\"labels\":\"x\"}},"
    "{\"ph\":\"X\",\"name\":\"e\",\"pid\":2,\"tid\":1,\"ts\":140,\"dur\":5}]}";

/* Offsets per input (wall), in ns. */
struct offsets {
	int64_t r1, r2, chrome;
};

/* r1, r2 and t.json merged under `opts`, as a parsed document. */
static json_t *merge(const tl_merge_opts *opts, const struct offsets *off)
{
	char *path = g_build_filename(tmpdir, "merged.json", NULL);
	tl_output *o = NULL;
	tl_error err = {{0}};
	assert_int_equal(tl_output_open(&o, path, false, NULL, 0, &err), 0);
	tl_chrome w;
	tl_chrome_begin(&w, o);
	tl_merge *m = tl_merge_new(&w, opts);
	tl_run *r1 = td_run_of_text(r1_text, "r1"), *r2 = td_run_of_text(r2_text, "r2");
	tl_merge_run(m, r1, "in/r1.pbtxt", off->r1);
	tl_merge_run(m, r2, "in/r2.pbtxt", off->r2);
	assert_int_equal(tl_merge_chrome(m, (const uint8_t *)chrome_text, strlen(chrome_text),
					 "in/t.json", off->chrome, &err),
			 0);
	tl_merge_finish(m, "test");
	tl_merge_free(m);
	tl_run_free(r1);
	tl_run_free(r2);
	assert_int_equal(tl_output_close(o, &err), 0);
	json_error_t jerr;
	json_t *doc = json_load_file(path, 0, &jerr);
	if (doc == NULL)
		fail_msg("merged trace is not JSON: %s (line %d)", jerr.text, jerr.line);
	g_free(path);
	tl_warn_clear();
	return doc;
}

static const char *str(json_t *ev, const char *key)
{
	const char *s = json_string_value(json_object_get(ev, key));
	return s != NULL ? s : "";
}

static const char *arg_str(json_t *ev, const char *key)
{
	const char *s = json_string_value(json_object_get(json_object_get(ev, "args"), key));
	return s != NULL ? s : "";
}

static json_int_t num(json_t *ev, const char *key)
{
	return json_integer_value(json_object_get(ev, key));
}

/* A time in us as the trace writes it, in ns. */
static int64_t us_ns(json_t *ev, const char *key)
{
	return (int64_t)llround(json_number_value(json_object_get(ev, key)) * 1000.0);
}

/* The one event of phase `ph` whose name (or args.name, for ops) is
 * `name`. */
static json_t *event(json_t *doc, char ph, const char *name)
{
	json_t *events = json_object_get(doc, "traceEvents"), *ev, *hit = NULL;
	size_t i;
	json_array_foreach(events, i, ev)
	{
		if (str(ev, "ph")[0] != ph || str(ev, "ph")[1] != '\0')
			continue;
		if (strcmp(str(ev, "name"), name) != 0 && strcmp(arg_str(ev, "name"), name) != 0)
			continue;
		if (hit != NULL)
			fail_msg("two '%c' events named %s", ph, name);
		hit = ev;
	}
	if (hit == NULL)
		fail_msg("no '%c' event named %s", ph, name);
	return hit;
}

/* The pid of the process named `name`, which is named once. */
static json_int_t pid_named(json_t *doc, const char *name)
{
	json_t *events = json_object_get(doc, "traceEvents"), *ev;
	size_t i;
	json_int_t pid = -1;
	json_array_foreach(events, i, ev)
	{
		if (strcmp(str(ev, "name"), "process_name") != 0 ||
		    strcmp(arg_str(ev, "name"), name) != 0)
			continue;
		if (pid >= 0)
			fail_msg("process %s named twice", name);
		pid = num(ev, "pid");
	}
	if (pid < 0)
		fail_msg("no process %s", name);
	return pid;
}

/* The process's sort index: the last one given (the order the merge
 * settles on at its end). */
static json_int_t sort_index(json_t *doc, json_int_t pid)
{
	json_t *events = json_object_get(doc, "traceEvents"), *ev;
	size_t i;
	json_int_t idx = -1;
	json_array_foreach(events, i, ev) if (strcmp(str(ev, "name"), "process_sort_index") == 0 &&
					      num(ev, "pid") == pid) idx =
	    json_integer_value(json_object_get(json_object_get(ev, "args"), "sort_index"));
	return idx;
}

static size_t count(json_t *doc, const char *name, json_int_t pid)
{
	json_t *events = json_object_get(doc, "traceEvents"), *ev;
	size_t i, n = 0;
	json_array_foreach(events, i, ev) n +=
	    strcmp(str(ev, "name"), name) == 0 && num(ev, "pid") == pid;
	return n;
}

/* The Runs process's span of run `label`: where it lies and its shift. */
static void assert_span(json_t *doc, const char *label, const char *input, int64_t ts_ns,
			int64_t dur_ns, int64_t shift_ns)
{
	json_t *span = event(doc, 'X', label);
	assert_string_equal(str(span, "cat"), "run");
	assert_int_equal(num(span, "pid"), pid_named(doc, "Runs"));
	assert_int_equal(us_ns(span, "ts"), ts_ns);
	assert_int_equal(us_ns(span, "dur"), dur_ns);
	assert_string_equal(arg_str(span, "input"), input);
	assert_int_equal(us_ns(json_object_get(span, "args"), "shift_us"), shift_ns);
}

/* otherData names the mode and lists the inputs in order, with shifts. */
static void assert_other(json_t *doc, const char *align, const int64_t shift_ns[3])
{
	json_t *other = json_object_get(doc, "otherData");
	assert_string_equal(str(other, "align"), align);
	json_t *runs = json_object_get(other, "runs");
	assert_int_equal(json_array_size(runs), 3);
	const char *labels[] = {"r1", "r2", "t.json"};
	for (size_t i = 0; i < 3; i++) {
		json_t *r = json_array_get(runs, i);
		assert_string_equal(str(r, "run"), labels[i]);
		assert_int_equal(us_ns(r, "shift_us"), shift_ns[i]);
	}
}

/* wall: every time as recorded plus its input's offset (r2 +250 us,
 * t.json -50 us). A device keeps one process through the runs: d (r2)
 * lies on the same pid and tid as a and b (r1). The Chrome input's
 * processes get pids of their own: its process 7 and its process 2 (not
 * the merge's pid 2) are new ones, its threads renumbered from 0 in each,
 * and its flow a fresh id, clear of r1's arrow (id 1). Its repeated
 * metadata comes out once. Processes are ordered by job and task, then
 * first appearance: the Chrome ones (no job), task:0, task:1; "Runs"
 * first of all. */
static void test_wall(void **state)
{
	(void)state;
	tl_merge_opts opts = {.align = TL_ALIGN_WALL, .flows = true};
	struct offsets off = {0, 250000, -50000};
	json_t *doc = merge(&opts, &off);
	json_t *a = event(doc, 'X', "a"), *b = event(doc, 'X', "b");
	json_t *c = event(doc, 'X', "c"), *d = event(doc, 'X', "d");
	json_t *k = event(doc, 'X', "k"), *k2 = event(doc, 'X', "k2"), *e = event(doc, 'X', "e");
	assert_int_equal(us_ns(a, "ts"), 1000000);
	assert_int_equal(us_ns(b, "ts"), 1020000);
	assert_int_equal(us_ns(c, "ts"), 5250000);
	assert_int_equal(us_ns(d, "ts"), 5260000);
	assert_int_equal(us_ns(k, "ts"), 50000);
	assert_int_equal(us_ns(k2, "ts"), 70000);
	assert_int_equal(us_ns(e, "ts"), 90000);

	json_int_t runs = pid_named(doc, "Runs"), t1 = pid_named(doc, TASK1);
	json_int_t t0 = pid_named(doc, TASK0), worker = pid_named(doc, "worker");
	json_int_t other = pid_named(doc, "t.json: pid 2");
	assert_int_equal(runs, 1);
	assert_int_equal(num(a, "pid"), t1);
	assert_int_equal(num(d, "pid"), t1);
	assert_int_equal(num(d, "tid"), num(a, "tid"));
	assert_int_equal(num(c, "pid"), t0);
	assert_int_equal(num(k, "pid"), worker);
	assert_int_equal(num(k2, "pid"), worker);
	assert_int_equal(num(e, "pid"), other);
	json_int_t pids[] = {runs, t1, t0, worker, other};
	for (size_t i = 0; i < G_N_ELEMENTS(pids); i++)
		for (size_t j = i + 1; j < G_N_ELEMENTS(pids); j++)
			assert_true(pids[i] != pids[j]);
	assert_int_equal(num(k, "tid"), 0);
	assert_int_equal(num(k2, "tid"), 1);
	assert_int_equal(num(e, "tid"), 0);
	assert_int_equal(count(doc, "process_labels", worker), 1);

	json_t *r1_flow = event(doc, 's', "a"), *flow_s = event(doc, 's', "f");
	json_t *flow_f = event(doc, 'f', "f");
	assert_int_equal(num(flow_s, "id"), num(flow_f, "id"));
	assert_true(num(flow_s, "id") != num(r1_flow, "id"));
	assert_int_equal(num(flow_s, "pid"), worker);
	assert_int_equal(num(flow_f, "tid"), 1);
	assert_int_equal(us_ns(flow_s, "ts"), 60000);

	assert_int_equal(sort_index(doc, runs), 0);
	assert_int_equal(sort_index(doc, worker), 1);
	assert_int_equal(sort_index(doc, other), 2);
	assert_int_equal(sort_index(doc, t0), 3);
	assert_int_equal(sort_index(doc, t1), 4);

	assert_span(doc, "r1", "in/r1.pbtxt", 1000000, 30000, 0);
	assert_span(doc, "r2", "in/r2.pbtxt", 5250000, 40000, 250000);
	assert_span(doc, "t.json", "in/t.json", 50000, 50000, -50000);
	assert_other(doc, "wall", (const int64_t[]){0, 250000, -50000});
	json_decref(doc);
}

/* pack: the first run stays where it was (r1: 1000..1030); each next one
 * starts where the one before ended plus the gap (100 us): r2 (40 us
 * long) at 1130, shifted by 1130 - 5000; t.json (50 us long) at 1270,
 * shifted by 1270 - 100. Offsets do not move a packed run. */
static void test_pack(void **state)
{
	(void)state;
	tl_merge_opts opts = {.align = TL_ALIGN_PACK, .gap_ns = 100000};
	struct offsets off = {0, 777000, 0};
	json_t *doc = merge(&opts, &off);
	assert_int_equal(us_ns(event(doc, 'X', "a"), "ts"), 1000000);
	assert_int_equal(us_ns(event(doc, 'X', "c"), "ts"), 1130000);
	assert_int_equal(us_ns(event(doc, 'X', "d"), "ts"), 1140000);
	assert_int_equal(us_ns(event(doc, 'X', "k"), "ts"), 1270000);
	assert_int_equal(us_ns(event(doc, 'X', "e"), "ts"), 1310000);
	assert_int_equal(num(event(doc, 'X', "d"), "pid"), num(event(doc, 'X', "a"), "pid"));
	assert_span(doc, "r1", "in/r1.pbtxt", 1000000, 30000, 0);
	assert_span(doc, "r2", "in/r2.pbtxt", 1130000, 40000, 1130000 - 5000000);
	assert_span(doc, "t.json", "in/t.json", 1270000, 50000, 1270000 - 100000);
	assert_other(doc, "pack", (const int64_t[]){0, 1130000 - 5000000, 1270000 - 100000});
	json_decref(doc);
}

/* overlay: every run from zero, in processes of its own named after it
 * ("r1: " + device; "t.json: " + the Chrome process's name), so r1's and
 * r2's task:1 devices are two processes. The three spans all start at 0:
 * each gets a row of the Runs process ("runs", "runs (2)", "runs (3)"). */
static void test_overlay(void **state)
{
	(void)state;
	tl_merge_opts opts = {.align = TL_ALIGN_OVERLAY};
	struct offsets off = {0, 250000, 0};
	json_t *doc = merge(&opts, &off);
	json_t *a = event(doc, 'X', "a"), *c = event(doc, 'X', "c"), *d = event(doc, 'X', "d");
	json_t *k = event(doc, 'X', "k");
	assert_int_equal(us_ns(a, "ts"), 0);
	assert_int_equal(us_ns(c, "ts"), 0);
	assert_int_equal(us_ns(d, "ts"), 10000);
	assert_int_equal(us_ns(k, "ts"), 0);
	assert_int_equal(num(a, "pid"), pid_named(doc, "r1: " TASK1));
	assert_int_equal(num(d, "pid"), pid_named(doc, "r2: " TASK1));
	assert_int_equal(num(c, "pid"), pid_named(doc, "r2: " TASK0));
	assert_int_equal(num(k, "pid"), pid_named(doc, "t.json: worker"));
	assert_true(num(a, "pid") != num(d, "pid"));
	assert_span(doc, "r1", "in/r1.pbtxt", 0, 30000, -1000000);
	assert_span(doc, "r2", "in/r2.pbtxt", 0, 40000, -5000000);
	assert_span(doc, "t.json", "in/t.json", 0, 50000, -100000);
	json_int_t rows[3] = {num(event(doc, 'X', "r1"), "tid"), num(event(doc, 'X', "r2"), "tid"),
			      num(event(doc, 'X', "t.json"), "tid")};
	assert_true(rows[0] != rows[1] && rows[1] != rows[2] && rows[0] != rows[2]);
	for (size_t i = 0; i < 3; i++)
		assert_true(rows[i] >= 0 && rows[i] <= 2);
	event(doc, 'M', "runs");
	event(doc, 'M', "runs (2)");
	event(doc, 'M', "runs (3)");
	assert_other(doc, "overlay", (const int64_t[]){-1000000, -5000000, -100000});
	json_decref(doc);
}

int main(void)
{
	td_filter();
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_wall),
	    cmocka_unit_test(test_pack),
	    cmocka_unit_test(test_overlay),
	};
	return cmocka_run_group_tests_name("merge", tests, tmpdir_setup, tmpdir_teardown);
}
