/* Unit tests of analysis/memory.c: the births of _Recv buffers the dump holds no
 * stats for, placed by allocator_bytes_in_use. Each run is written here as
 * protobuf text: a CPU partition sends tensors to a GPU partition whose
 * _Recv executions are missing, and GPU ops report the allocator's bytes in
 * use at their ends. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "analysis/memory.h"
#include "io/source.h"

#include <glib.h>
#include <inttypes.h>
#include <string.h>

#include "testdata.h"

#define CPU "/job:localhost/replica:0/task:0/device:CPU:0"
#define GPU "/job:localhost/replica:0/task:0/device:GPU:0"

/* A run under construction: step stats per device and the two partition
 * graphs, as text. */
struct text {
	GString *cpu, *gpu; /* node_stats */
	GString *cpu_graph, *gpu_graph;
	int64_t next_id;
};

static void text_init(struct text *t)
{
	t->cpu = g_string_new(NULL);
	t->gpu = g_string_new(NULL);
	t->cpu_graph = g_string_new(NULL);
	t->gpu_graph = g_string_new(NULL);
	t->next_id = 1;
	g_string_append(t->cpu, "node_stats { node_name: \"_SOURCE\" all_start_micros: 1000 "
				"scheduled_micros: 1000 all_end_rel_micros: 1 }\n");
	g_string_append(t->gpu, "node_stats { node_name: \"_SOURCE\" all_start_micros: 1000 "
				"all_end_rel_micros: 1 }\n");
}

/* An execution from `start` to `end` whose one output (`bytes` on
 * `alloc`, none when 0) is allocated at its start; `in_use` > 0 adds the
 * allocator's bytes in use at its end. */
static void exec(struct text *t, GString *dev, const char *name, int64_t start, int64_t end,
		 const char *alloc, int64_t bytes, const char *dtype, int64_t in_use)
{
	g_string_append_printf(dev,
			       "node_stats { node_name: \"%s\" all_start_micros: %" PRId64
			       " op_start_rel_micros: 0 op_end_rel_micros: %" PRId64
			       " all_end_rel_micros: %" PRId64 "\n",
			       name, start, end - start, end - start);
	if (bytes > 0) {
		g_string_append_printf(
		    dev,
		    "  memory { allocator_name: \"%s\" allocator_bytes_in_use: %" PRId64
		    " allocation_records { alloc_micros: %" PRId64 " alloc_bytes: %" PRId64
		    " } }\n",
		    alloc, in_use, start, bytes);
		g_string_append_printf(
		    dev,
		    "  output { slot: 0 tensor_description { dtype: %s shape { dim { "
		    "size: %" PRId64 " } } allocation_description { requested_bytes: "
		    "%" PRId64 " allocated_bytes: %" PRId64 " allocator_name: \"%s\" "
		    "allocation_id: %" PRId64 " ptr: %" PRId64 " } } }\n",
		    dtype, bytes / 4, bytes, bytes, alloc, t->next_id, 4096 * t->next_id);
		t->next_id++;
	} else if (in_use > 0) {
		g_string_append_printf(
		    dev,
		    "  memory { allocator_name: \"%s\" allocator_bytes_in_use: %" PRId64 " }\n",
		    alloc, in_use);
	}
	g_string_append(dev, "}\n");
}

/* An allocation the dump does not record (an unrecorded _Recv's buffer)
 * takes the next id all the same, as BFC numbers its allocations. */
static void unrecorded(struct text *t)
{
	t->next_id++;
}

/* A graph node with up to three data inputs ("" for none). */
static void node(GString *g, const char *name, const char *op, const char *device, const char *in0,
		 const char *in1, const char *in2)
{
	g_string_append_printf(g, "node { name: \"%s\" op: \"%s\" device: \"%s\"", name, op,
			       device);
	const char *in[] = {in0, in1, in2};
	for (int i = 0; i < 3; i++)
		if (in[i] != NULL && in[i][0] != '\0')
			g_string_append_printf(g, " input: \"%s\"", in[i]);
	g_string_append(g, " }\n");
}

/* A tensor `src` sent from the CPU to the GPU's `op` node `name` (the
 * _Send runs at `send_at`). */
static void transfer(struct text *t, const char *src, const char *name, const char *op,
		     int64_t send_at)
{
	char *send = g_strdup_printf("%s/_send", name);
	char *attrs = g_strdup_printf(" attr { key: \"tensor_name\" value { s: \"edge_%s\" } }"
				      " attr { key: \"send_device\" value { s: \"" CPU "\" } }"
				      " attr { key: \"recv_device\" value { s: \"" GPU "\" } } }\n",
				      name);
	g_string_append_printf(
	    t->cpu_graph, "node { name: \"%s\" op: \"_Send\" device: \"" CPU "\" input: \"%s\"%s",
	    send, src, attrs);
	g_string_append_printf(t->gpu_graph, "node { name: \"%s\" op: \"%s\" device: \"" GPU "\"%s",
			       name, op, attrs);
	g_free(attrs);
	exec(t, t->cpu, send, send_at, send_at + 2, "cpu", 0, NULL, 0);
	g_free(send);
}

static tl_run *build(struct text *t)
{
	GString *s = g_string_new(NULL);
	g_string_append_printf(s,
			       "step_stats {\n dev_stats { device: \"" CPU "\"\n%s }\n"
			       " dev_stats { device: \"" GPU "\"\n%s }\n}\n"
			       "partition_graphs {\n%s}\npartition_graphs {\n%s}\n",
			       t->cpu->str, t->gpu->str, t->cpu_graph->str, t->gpu_graph->str);
	tl_arena *arena = tl_arena_new();
	Tensorflow__RunMetadata *meta = NULL;
	tl_error err = {{0}};
	if (tl_source_decode_runmeta((const uint8_t *)s->str, s->len, TL_FORMAT_TEXT_PROTO, arena, &meta,
			      &err) < 0)
		fail_msg("decode: %s\n%s", err.msg, s->str);
	tl_run *run = NULL;
	if (tl_run_build(&run, arena, meta, "test", &err) < 0)
		fail_msg("build: %s", err.msg);
	g_string_free(s, TRUE);
	g_string_free(t->cpu, TRUE);
	g_string_free(t->gpu, TRUE);
	g_string_free(t->cpu_graph, TRUE);
	g_string_free(t->gpu_graph, TRUE);
	return run;
}

static const tl_buffer *buffer_named(const tl_memory *mem, const char *name)
{
	for (size_t i = 0; i < mem->n_buffers; i++)
		if (mem->buffers[i].name != NULL && strcmp(mem->buffers[i].name, name) == 0)
			return &mem->buffers[i];
	fail_msg("no buffer %s", name);
	return NULL;
}

static const tl_allocator *allocator_named(const tl_memory *mem, const char *name)
{
	for (size_t i = 0; i < mem->n_allocators; i++)
		if (strcmp(mem->allocators[i].name, name) == 0)
			return &mem->allocators[i];
	fail_msg("no allocator %s", name);
	return NULL;
}

/* x (1 KB on the CPU) goes to the GPU as r, read by c from 1040 to 1050;
 * g0 and g1 make outputs c reads too. `samples`: whether g0 and g1 report
 * the bytes in use. The recv was born at 1015 (between g0's end and
 * g1's). */
static tl_memory *one_recv(tl_run **run_out, bool samples)
{
	struct text t;
	text_init(&t);
	exec(&t, t.cpu, "x", 1002, 1010, "cpu", 1024, "DT_FLOAT", 1024);
	node(t.cpu_graph, "x", "Const", CPU, "", "", "");
	transfer(&t, "x", "r", "_Recv", 1012);
	node(t.gpu_graph, "g0", "Fill", GPU, "", "", "");
	node(t.gpu_graph, "g1", "Fill", GPU, "", "", "");
	node(t.gpu_graph, "c", "AddN", GPU, "r", "g0", "g1");
	node(t.gpu_graph, "d", "Neg", GPU, "c", "", "");
	exec(&t, t.gpu, "g0", 1003, 1008, "gpu", 256, "DT_FLOAT", samples ? 256 : 0);
	unrecorded(&t); /* r, at 1015 */
	exec(&t, t.gpu, "g1", 1020, 1030, "gpu", 512, "DT_FLOAT", samples ? 256 + 512 + 1024 : 0);
	exec(&t, t.gpu, "c", 1040, 1050, "gpu", 1024, "DT_FLOAT", 1024);
	exec(&t, t.gpu, "d", 1060, 1070, "gpu", 256, "DT_FLOAT", 0);
	tl_run *run = build(&t);
	tl_memory *mem = tl_memory_build(run);
	*run_out = run;
	return mem;
}

/* A sample bounds the birth from below: after g0's end (1008: not yet
 * born); the ids from above: r's id lies between g0's and g1's, so it was
 * made by g1's allocation at 1020 (memory_ids.c). It is born at the
 * window's start, dies with its consumer, and the curve meets every
 * sample. */
static void test_pinned(void **state)
{
	(void)state;
	tl_run *run;
	tl_memory *mem = one_recv(&run, true);
	const tl_buffer *r = buffer_named(mem, "r:0");
	assert_true(r->estimated);
	assert_int_equal(r->birth, TL_BIRTH_PINNED);
	assert_string_equal(r->allocator, "gpu");
	assert_int_equal(r->allocated, 1024);
	assert_int_equal(r->birth_lo, 1009);
	assert_int_equal(r->birth_hi, 1020);
	assert_int_equal(r->alloc_us, 1009);
	assert_int_equal(r->free_us, 1050);
	const tl_allocator *a = allocator_named(mem, "gpu");
	assert_int_equal(a->check_samples, 3);
	assert_int_equal(a->check_max_abs, 0);
	assert_int_equal(a->n_estimated, 1);
	assert_int_equal(a->n_unplaced, 0);
	assert_int_equal(tl_memory_in_use(a, 1008), 256);
	assert_int_equal(tl_memory_in_use(a, 1009), 256 + 1024);
	tl_memory_free(mem);
	tl_run_free(run);
}

/* Without samples while it may live, the birth is unconstrained: it is
 * born at the latest its window allows, the least it can have lived, and
 * said so; the ids end the window at g1's allocation (1020), before its
 * first consumer's start (1040). */
static void test_unconstrained(void **state)
{
	(void)state;
	tl_run *run;
	tl_memory *mem = one_recv(&run, false);
	const tl_buffer *r = buffer_named(mem, "r:0");
	assert_int_equal(r->birth, TL_BIRTH_UNCONSTRAINED);
	assert_int_equal(r->birth_lo, 1001);
	assert_int_equal(r->birth_hi, 1020);
	assert_int_equal(r->alloc_us, 1020);
	const tl_allocator *a = allocator_named(mem, "gpu");
	assert_int_equal(a->n_unplaced, 1);
	assert_int_equal(a->check_max_abs, 0);
	tl_memory_free(mem);
	tl_run_free(run);
}

/* Three receives, A (512 B, read from 1100 to 1110) and B, C (256 B each,
 * read from 1200 to 1210), born at 1020, 1090 and 1120. At 1050 the
 * samples want 512 bytes: A, or B and C. Only A there meets the samples at
 * 1100 (A and B) and 1150 (B and C, A dead): each birth lands in the
 * window between the samples around it, and every sample is met. */
static void test_sums(void **state)
{
	(void)state;
	struct text t;
	text_init(&t);
	const char *names[] = {"a", "b", "c"};
	const int64_t size[] = {512, 256, 256};
	for (int i = 0; i < 3; i++) {
		char *src = g_strdup_printf("x%d", i), *r = g_strdup_printf("%s/_r", names[i]);
		exec(&t, t.cpu, src, 1002 + i, 1004 + i, "cpu", size[i], "DT_FLOAT", 0);
		node(t.cpu_graph, src, "Const", CPU, "", "", "");
		transfer(&t, src, r, "_Recv", 1005 + i);
		char *use = g_strdup_printf("use_%s", names[i]);
		node(t.gpu_graph, use, "Neg", GPU, r, "", "");
		g_free(src);
		g_free(r);
		g_free(use);
	}
	/* k holds 256 B through the step, so every sample is above zero */
	node(t.gpu_graph, "k", "Fill", GPU, "", "", "");
	node(t.gpu_graph, "end", "Neg", GPU, "k", "", "");
	exec(&t, t.gpu, "k", 1001, 1002, "gpu", 256, "DT_FLOAT", 256);
	exec(&t, t.gpu, "s1", 1040, 1050, "gpu", 0, NULL, 256 + 512);
	exec(&t, t.gpu, "s2", 1095, 1100, "gpu", 0, NULL, 256 + 512 + 256);
	exec(&t, t.gpu, "use_a", 1100, 1110, "gpu", 0, NULL, 0);
	exec(&t, t.gpu, "s3", 1140, 1150, "gpu", 0, NULL, 256 + 256 + 256);
	exec(&t, t.gpu, "use_b", 1200, 1210, "gpu", 0, NULL, 0);
	exec(&t, t.gpu, "use_c", 1200, 1210, "gpu", 0, NULL, 0);
	exec(&t, t.gpu, "end", 1300, 1310, "gpu", 0, NULL, 0);
	tl_run *run = build(&t);
	tl_memory *mem = tl_memory_build(run);
	const tl_allocator *g = allocator_named(mem, "gpu");
	assert_int_equal(g->check_samples, 4);
	assert_int_equal(g->check_max_abs, 0);
	assert_int_equal(g->n_estimated, 3);
	const tl_buffer *a = buffer_named(mem, "a/_r:0");
	assert_int_equal(a->birth, TL_BIRTH_PINNED);
	assert_true(a->birth_lo <= 1020 && 1020 <= a->birth_hi && a->birth_hi <= 1050);
	/* B and C are interchangeable: one is born by 1100, the other after */
	const tl_buffer *b = buffer_named(mem, "b/_r:0"), *c = buffer_named(mem, "c/_r:0");
	const tl_buffer *early = b->alloc_us < c->alloc_us ? b : c;
	const tl_buffer *late = early == b ? c : b;
	assert_true(early->birth_lo > 1050 && early->birth_hi == 1100);
	assert_true(late->birth_lo > 1100 && late->birth_hi == 1150);
	assert_int_equal(tl_memory_in_use(g, 1150), 256 + 512);
	tl_memory_free(mem);
	tl_run_free(run);
}

/* A sample after the receive's consumer started, with no room for it: the
 * samples contradict its birth; it is said so, and the check shows it. */
static void test_contradicted(void **state)
{
	(void)state;
	struct text t;
	text_init(&t);
	exec(&t, t.cpu, "x", 1002, 1010, "cpu", 1024, "DT_FLOAT", 0);
	node(t.cpu_graph, "x", "Const", CPU, "", "", "");
	transfer(&t, "x", "r", "_Recv", 1012);
	node(t.gpu_graph, "c", "Neg", GPU, "r", "", "");
	exec(&t, t.gpu, "k", 1001, 1002, "gpu", 256, "DT_FLOAT", 256);
	node(t.gpu_graph, "k", "Fill", GPU, "", "", "");
	node(t.gpu_graph, "end", "Neg", GPU, "k", "", "");
	exec(&t, t.gpu, "c", 1040, 1050, "gpu", 0, NULL, 0);
	exec(&t, t.gpu, "s", 1041, 1045, "gpu", 0, NULL, 256);
	exec(&t, t.gpu, "end", 1300, 1310, "gpu", 0, NULL, 0);
	tl_run *run = build(&t);
	tl_memory *mem = tl_memory_build(run);
	const tl_buffer *r = buffer_named(mem, "r:0");
	assert_int_equal(r->birth, TL_BIRTH_CONTRADICTED);
	const tl_allocator *g = allocator_named(mem, "gpu");
	assert_int_equal(g->n_unplaced, 1);
	assert_int_equal(g->check_max_abs, 1024);
	tl_memory_free(mem);
	tl_run_free(run);
}

/* An int32 tensor received on a GPU lives in host memory, as TensorFlow
 * keeps it, when the device has a host allocator. */
static void test_host_allocator(void **state)
{
	(void)state;
	struct text t;
	text_init(&t);
	exec(&t, t.cpu, "x", 1002, 1010, "cpu", 1024, "DT_INT32", 0);
	node(t.cpu_graph, "x", "Const", CPU, "", "", "");
	transfer(&t, "x", "r", "_Recv", 1012);
	node(t.gpu_graph, "c", "Shape", GPU, "r", "", "");
	node(t.gpu_graph, "h", "Fill", GPU, "", "", "");
	exec(&t, t.gpu, "h", 1001, 1002, "cuda_host_bfc", 256, "DT_INT32", 0);
	exec(&t, t.gpu, "g", 1003, 1004, "gpu", 256, "DT_FLOAT", 0);
	exec(&t, t.gpu, "g2", 1005, 1006, "gpu", 256, "DT_FLOAT", 0);
	exec(&t, t.gpu, "c", 1040, 1050, "gpu", 256, "DT_FLOAT", 0);
	node(t.gpu_graph, "g", "Fill", GPU, "", "", "");
	node(t.gpu_graph, "g2", "Fill", GPU, "", "", "");
	tl_run *run = build(&t);
	tl_memory *mem = tl_memory_build(run);
	assert_string_equal(buffer_named(mem, "r:0")->allocator, "cuda_host_bfc");
	tl_memory_free(mem);
	tl_run_free(run);
}

/* A curve read at many instants, in time order and out of it, with one
 * hint carried along: the same bytes as a fresh search every time (ties,
 * instants before the first point and after the last included). */
static void test_in_use_near(void **state)
{
	size_t n = 5000;
	tl_point *pts = g_new0(tl_point, n);
	int64_t us = 100;
	for (size_t i = 0; i < n; i++) {
		us += (int64_t)(i % 7 == 0 ? 0 : i % 5); /* some instants twice */
		pts[i].us = us;
		pts[i].bytes = (int64_t)(i * 37 % 1001);
	}
	tl_allocator a = {.curve = pts, .n_curve = n};
	GRand *r = g_rand_new_with_seed(7);
	size_t hint = 0;
	for (int q = 0; q < 20000; q++) {
		int64_t at = q < 10000 ? 90 + q * (us - 80) / 10000
				       : g_rand_int_range(r, 0, (gint32)us + 50);
		assert_int_equal(tl_memory_in_use_near(&a, at, &hint),
				 tl_memory_in_use(&a, at));
	}
	tl_allocator none = {0};
	hint = 3;
	assert_int_equal(tl_memory_in_use_near(&none, 5, &hint), 0);
	g_rand_free(r);
	g_free(pts);
}

/* The buffers alone are those of the whole analysis, field by field (the
 * births the samples place aside), on dumps with unrecorded _Recv
 * executions, loops and real quirks; no allocator comes with them. */
static void test_buffers_only(void **state)
{
	const char *files[] = {"exact/gen-g2-loop-quirks.pb", "gen-g2-loop.pb",
			       "real/gradckpt_simple_stepstats.pbtxt",
			       "real/tfprof_testdata_run_meta_cpu_tf12.pb"};
	for (size_t f = 0; f < G_N_ELEMENTS(files); f++) {
		char *path = td_data(files[f]);
		tl_source *src = NULL;
		tl_error err = {{0}};
		tl_run *run = NULL;
		if (tl_source_open(&src, path, TL_FORMAT_AUTO, &err) < 0 ||
		    tl_run_next(src, &run, &err) != 1)
			fail_msg("%s: %s", path, err.msg);
		tl_source_close(src);
		tl_memory *full = tl_memory_build(run);
		tl_memory *bufs = tl_memory_build_buffers(run);
		assert_true(full->n_buffers > 0);
		assert_int_equal(bufs->n_buffers, full->n_buffers);
		assert_int_equal(bufs->n_refs, full->n_refs);
		assert_int_equal(bufs->n_allocators, 0);
		for (size_t i = 0; i < full->n_buffers; i++) {
			const tl_buffer *x = &full->buffers[i], *y = &bufs->buffers[i];
			assert_int_equal(x->kind, y->kind);
			assert_int_equal(x->producer, y->producer);
			assert_int_equal(x->slot, y->slot);
			assert_int_equal(x->requested, y->requested);
			assert_int_equal(x->allocated, y->allocated);
			assert_int_equal(x->estimated, y->estimated);
			assert_int_equal(x->n_refs, y->n_refs);
			if (!x->estimated) {
				assert_int_equal(x->alloc_us, y->alloc_us);
				assert_int_equal(x->free_us, y->free_us);
			}
		}
		tl_memory_free(full);
		tl_memory_free(bufs);
		tl_run_free(run);
		g_free(path);
	}
	tl_warn_clear();
}

/* The band of one_recv's GPU allocator, worked out by hand from the
 * derivation in memory_band.c: r (1 KB, freed at 1050) is unborn at the
 * sample at 1008 (256: g0 alone) and made by g1's allocation at 1020 (its
 * id lies between g0's and g1's), so from 1009 to 1020 the allocator held
 * g0's bytes at least and r's on top at most; elsewhere the curve is
 * exact. */
static void test_band(void **state)
{
	(void)state;
	tl_run *run;
	tl_memory *mem = one_recv(&run, true);
	const tl_allocator *a = allocator_named(mem, "gpu");
	const tl_band_point want[] = {
	    {1000, 0, 0},	{1003, 256, 256},   {1009, 256, 1280},	{1020, 1792, 1792},
	    {1040, 2816, 2816}, {1050, 1024, 1024}, {1060, 1280, 1280}, {1070, 0, 0},
	};
	assert_int_equal(a->n_band, G_N_ELEMENTS(want));
	for (size_t i = 0; i < a->n_band; i++) {
		assert_int_equal(a->band[i].us, want[i].us);
		assert_int_equal(a->band[i].low, want[i].low);
		assert_int_equal(a->band[i].high, want[i].high);
	}
	assert_int_equal(a->peak_low, 2816);
	assert_int_equal(a->peak_high, 2816);
	assert_int_equal(a->n_unattributed, 0);
	assert_int_equal(a->n_contradictions, 0);
	/* the CPU allocator has no estimated birth: its band is its curve */
	const tl_allocator *c = allocator_named(mem, "cpu");
	assert_int_equal(c->n_band, c->n_curve);
	for (size_t i = 0; i < c->n_band; i++) {
		assert_int_equal(c->band[i].low, c->curve[i].bytes);
		assert_int_equal(c->band[i].high, c->curve[i].bytes);
	}
	tl_memory_free(mem);
	tl_run_free(run);
}

/* A sample 300 bytes above every record (g1's end, 1030): the curve meets
 * it through the unattributed part, 300 bytes from 1030 to the next
 * sample (c's end, 1050), and the peak rises by as much. */
static void test_unattributed(void **state)
{
	(void)state;
	struct text t;
	text_init(&t);
	node(t.gpu_graph, "g0", "Fill", GPU, "", "", "");
	node(t.gpu_graph, "g1", "Fill", GPU, "", "", "");
	node(t.gpu_graph, "c", "AddN", GPU, "g0", "g1", "");
	node(t.gpu_graph, "d", "Neg", GPU, "c", "", "");
	exec(&t, t.gpu, "g0", 1003, 1008, "gpu", 256, "DT_FLOAT", 256);
	exec(&t, t.gpu, "g1", 1020, 1030, "gpu", 512, "DT_FLOAT", 256 + 512 + 300);
	exec(&t, t.gpu, "c", 1040, 1050, "gpu", 1024, "DT_FLOAT", 1024);
	exec(&t, t.gpu, "d", 1060, 1070, "gpu", 256, "DT_FLOAT", 0);
	tl_run *run = build(&t);
	tl_memory *mem = tl_memory_build(run);
	const tl_allocator *a = allocator_named(mem, "gpu");
	assert_int_equal(a->n_unattributed, 2);
	assert_int_equal(a->unattributed[0].us, 1030);
	assert_int_equal(a->unattributed[0].bytes, 300);
	assert_int_equal(a->unattributed[1].us, 1050);
	assert_int_equal(a->unattributed[1].bytes, 0);
	assert_int_equal(a->check_max_abs, 0);
	assert_int_equal(tl_memory_in_use(a, 1030), 256 + 512 + 300);
	assert_int_equal(tl_memory_in_use(a, 1040), 256 + 512 + 1024 + 300);
	assert_int_equal(a->peak_bytes, 256 + 512 + 1024 + 300);
	assert_int_equal(a->n_contradictions, 0);
	tl_memory_free(mem);
	tl_run_free(run);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_pinned),	   cmocka_unit_test(test_unconstrained),
	    cmocka_unit_test(test_sums),	   cmocka_unit_test(test_contradicted),
	    cmocka_unit_test(test_host_allocator), cmocka_unit_test(test_in_use_near),
	    cmocka_unit_test(test_buffers_only),   cmocka_unit_test(test_band),
	    cmocka_unit_test(test_unattributed),
	};
	return cmocka_run_group_tests_name("lifetimes", tests, NULL, NULL);
}
