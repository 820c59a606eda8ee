/* Unit tests of analysis/memory.c, one per rule of the exact lifetimes
 * (the rules at the top of analysis/memory.h, which docs/DESIGN.md cites):
 * births, deaths at the last consumer, aliases through forwarding ops,
 * _Send readers, fetches, temporaries, persistent variables, loops and
 * _Recv executions the dump has no stats for. Each run is a few nodes
 * written here as RunMetadata text; each test states the values the rule
 * gives, worked out by hand, and asserts them: births, deaths, aliases,
 * the allocator's whole curve, its peak and what was live there. Where an
 * execution reports allocator_bytes_in_use, the value written is the one
 * the rule gives too, so the analysis' own check must find no error. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "analysis/memory.h"

#include <glib.h>
#include <inttypes.h>
#include <string.h>

#include "runtext.h"
#include "testdata.h"

/* ---- helpers ------------------------------------------------------------ */

/* The execution of `node` on an executor device, `iter`-th by start. */
static int32_t exec_of(const tl_run *run, const char *node, uint32_t iter)
{
	for (size_t i = 0; i < run->n_execs; i++) {
		const tl_exec *e = &run->execs[i];
		if (run->devices[e->device].kind == TL_DEV_EXECUTOR && strcmp(e->node, node) == 0 &&
		    e->iter == iter)
			return (int32_t)i;
	}
	fail_msg("no execution %s #%u", node, iter);
	return -1;
}

/* The buffer output `slot` of that execution was born in. */
static const tl_buffer *output_of(const tl_memory *mem, const char *node, uint32_t iter,
				  int32_t slot)
{
	int32_t x = exec_of(mem->run, node, iter);
	for (size_t i = 0; i < mem->n_buffers; i++)
		if (mem->buffers[i].producer == x && mem->buffers[i].slot == slot)
			return &mem->buffers[i];
	fail_msg("no buffer of %s#%u:%d", node, iter, slot);
	return NULL;
}

/* The `k`-th temporary (in allocation order) of an execution. */
static const tl_buffer *temp_of(const tl_memory *mem, const char *node, size_t k)
{
	int32_t x = exec_of(mem->run, node, 0);
	size_t seen = 0;
	for (size_t i = 0; i < mem->n_buffers; i++)
		if (mem->buffers[i].producer == x && mem->buffers[i].kind == TL_BUF_TEMP &&
		    seen++ == k)
			return &mem->buffers[i];
	fail_msg("no temporary %zu of %s", k, node);
	return NULL;
}

static const tl_buffer *named(const tl_memory *mem, const char *name)
{
	for (size_t i = 0; i < mem->n_buffers; i++)
		if (mem->buffers[i].name != NULL && strcmp(mem->buffers[i].name, name) == 0)
			return &mem->buffers[i];
	fail_msg("no buffer %s", name);
	return NULL;
}

static const tl_allocator *allocator(const tl_memory *mem, const char *name)
{
	for (size_t i = 0; i < mem->n_allocators; i++)
		if (strcmp(mem->allocators[i].name, name) == 0)
			return &mem->allocators[i];
	fail_msg("no allocator %s", name);
	return NULL;
}

/* Born at `alloc_us`, dead at `free_us` for `cause`, freed by the end of
 * `last` (iteration 0; NULL: none). */
static void assert_life(const tl_memory *mem, const tl_buffer *b, int64_t alloc_us, int64_t free_us,
			tl_free_cause cause, const char *last)
{
	assert_int_equal(b->alloc_us, alloc_us);
	assert_int_equal(b->free_us, free_us);
	assert_string_equal(tl_memory_cause_name(b->cause), tl_memory_cause_name(cause));
	if (last == NULL)
		assert_int_equal(b->last_user, -1);
	else
		assert_int_equal(b->last_user, exec_of(mem->run, last, 0));
}

/* The tensors aliasing the buffer are exactly `names` ("node:slot"), in
 * any order. */
static void assert_aliases(const tl_memory *mem, const tl_buffer *b, const char *const *names,
			   size_t n)
{
	assert_int_equal(b->n_refs, n);
	for (size_t i = 0; i < n; i++) {
		bool found = false;
		for (uint32_t k = 0; k < b->n_refs; k++)
			found =
			    found || strcmp(tl_memory_ref_name(mem, &mem->refs[b->first_ref + k]),
					    names[i]) == 0;
		if (!found)
			fail_msg("%s does not alias the buffer", names[i]);
	}
}

/* The allocator's curve is exactly these [us, bytes] change points. */
static void assert_curve(const tl_allocator *a, const int64_t (*want)[2], size_t n)
{
	for (size_t i = 0; i < n && i < a->n_curve; i++) {
		if (a->curve[i].us != want[i][0] || a->curve[i].bytes != want[i][1])
			fail_msg("%s: point %zu is [%" PRId64 ", %" PRId64 "], expected [%" PRId64
				 ", %" PRId64 "]",
				 a->name, i, a->curve[i].us, a->curve[i].bytes, want[i][0],
				 want[i][1]);
	}
	assert_int_equal(a->n_curve, n);
}

/* What was live at the peak is exactly `want`, biggest first. */
static void assert_live(const tl_memory *mem, const tl_allocator *a, const tl_buffer *const *want,
			size_t n)
{
	assert_int_equal(a->n_live, n);
	for (size_t i = 0; i < n; i++) {
		const tl_buffer *b = &mem->buffers[a->live_at_peak[i]];
		if (i > 0)
			assert_true(mem->buffers[a->live_at_peak[i - 1]].allocated >= b->allocated);
		bool found = false;
		for (size_t k = 0; k < n; k++)
			found = found || want[k] == b;
		assert_true(found);
	}
}

/* Every allocator_bytes_in_use of the dump (`samples` of them) met. */
static void assert_checked(const tl_allocator *a, size_t samples)
{
	assert_int_equal(a->check_samples, samples);
	assert_int_equal(a->check_max_abs, 0);
}

static tl_memory *memory_of(const char *text, tl_run **run)
{
	*run = td_run_of_text(text, "rules");
	return tl_memory_build(*run);
}

/* Frees the test's run; a hand-built run is read without a warning. */
static void done(tl_memory *mem, tl_run *run)
{
	tl_memory_free(mem);
	tl_run_free(run);
	assert_int_equal(tl_warn_pending(), 0);
}

/* ---- births ------------------------------------------------------------- */

/* A buffer is born at its allocation record where the dump has one, else
 * at its producer's compute start (all_start + op_start_rel), not at
 * all_start. a computes from 113 and has no record: born 113. b has a
 * record at 125 (its compute starts at 121): born 125. c: born 140. a dies
 * with b (130), b with c (150); c, read by no one, dies at its own end
 * (150). Curve: 1024 at 113, +512 at 125, -1024 at 130, +256 at 140, 0 at
 * 150; peak 1536 at 125 with a and b live. b reports 512 in use at its end
 * (130: a already gone). */
static void test_birth(void **state)
{
	(void)state;
	/* clang-format off */
	static const char text[] =
		STEP(
			DEV(CPU,
				SOURCE(100)
				EXEC_OP("a", 110, 3, 8, 10) OUT(0, "cpu", 1024, 1) END
				EXEC_OP("b", 120, 1, 9, 10) MEM("cpu", 512, REC(125, 512))
					OUT(0, "cpu", 512, 2) END
				EXEC("c", 140, 10) OUT(0, "cpu", 256, 3) END))
		GRAPH(
			NODE("a", "Const", CPU, "")
			NODE("b", "Neg", CPU, IN("a"))
			NODE("c", "Neg", CPU, IN("b")));
	/* clang-format on */
	tl_run *run;
	tl_memory *mem = memory_of(text, &run);
	assert_int_equal(mem->step_start_us, 100);
	assert_int_equal(mem->n_buffers, 3);
	const tl_buffer *a = output_of(mem, "a", 0, 0), *b = output_of(mem, "b", 0, 0);
	const tl_buffer *c = output_of(mem, "c", 0, 0);
	assert_life(mem, a, 113, 130, TL_FREE_LAST_USE, "b");
	assert_life(mem, b, 125, 150, TL_FREE_LAST_USE, "c");
	assert_life(mem, c, 140, 150, TL_FREE_UNUSED, "c");
	assert_int_equal(a->birth, TL_BIRTH_RECORDED);
	assert_int_equal(a->kind, TL_BUF_OUTPUT);
	const tl_allocator *cpu = allocator(mem, "cpu");
	static const int64_t curve[][2] = {{100, 0},   {113, 1024}, {125, 1536},
					   {130, 512}, {140, 768},  {150, 0}};
	assert_curve(cpu, curve, G_N_ELEMENTS(curve));
	assert_int_equal(cpu->peak_bytes, 1536);
	assert_int_equal(cpu->peak_us, 125);
	assert_live(mem, cpu, (const tl_buffer *[]){a, b}, 2);
	assert_checked(cpu, 1);
	done(mem, run);
}

/* ---- deaths ------------------------------------------------------------- */

/* A buffer dies at the end of its last consumer, the one that ends last
 * whatever the order of starts: x is read by d1 (125..170) and d2
 * (130..150), and dies at 170 with d1. Outputs nobody reads die at their
 * producer's end: d2's at 150, d1's at 170, y's at 180. At 170, x and d1's
 * output are freed and y is born: frees come first, so the in-use bytes
 * after 170 are 2048 (y alone), and x is not live at that peak. d1
 * reports 2048 in use at its end (170, y's birth included). */
static void test_death(void **state)
{
	(void)state;
	/* clang-format off */
	static const char text[] =
		STEP(
			DEV(CPU,
				SOURCE(100)
				EXEC("x", 110, 10) OUT(0, "cpu", 1024, 1) END
				EXEC("d1", 125, 45) MEM("cpu", 2048, "") OUT(0, "cpu", 256, 2) END
				EXEC("d2", 130, 20) MEM("cpu", 1280, "") OUT(0, "cpu", 512, 3) END
				EXEC("y", 170, 10) OUT(0, "cpu", 2048, 4) END))
		GRAPH(
			NODE("x", "Const", CPU, "")
			NODE("d1", "Neg", CPU, IN("x"))
			NODE("d2", "Neg", CPU, IN("x"))
			NODE("y", "Const", CPU, ""));
	/* clang-format on */
	tl_run *run;
	tl_memory *mem = memory_of(text, &run);
	const tl_buffer *x = output_of(mem, "x", 0, 0), *y = output_of(mem, "y", 0, 0);
	assert_life(mem, x, 110, 170, TL_FREE_LAST_USE, "d1");
	assert_life(mem, output_of(mem, "d1", 0, 0), 125, 170, TL_FREE_UNUSED, "d1");
	assert_life(mem, output_of(mem, "d2", 0, 0), 130, 150, TL_FREE_UNUSED, "d2");
	assert_life(mem, y, 170, 180, TL_FREE_UNUSED, "y");
	const tl_allocator *cpu = allocator(mem, "cpu");
	static const int64_t curve[][2] = {{100, 0},	{110, 1024}, {125, 1280}, {130, 1792},
					   {150, 1280}, {170, 2048}, {180, 0}};
	assert_curve(cpu, curve, G_N_ELEMENTS(curve));
	assert_int_equal(cpu->peak_bytes, 2048);
	assert_int_equal(cpu->peak_us, 170);
	assert_live(mem, cpu, (const tl_buffer *[]){y}, 1);
	assert_int_equal(tl_memory_in_use(cpu, 169), 1280);
	assert_checked(cpu, 2);
	done(mem, run);
}

/* ---- aliases ------------------------------------------------------------ */

/* Forwarding ops share their input's buffer. The Identity i says so (its
 * output names allocation 1, x's); the Reshape r records no output, and
 * aliases its data input 0 all the same. One buffer, three tensors (x:0,
 * i:0, r:0); it dies after the last consumer of any of them: c2, reading
 * r, at 160 (c1 reads x itself, until 140). Neither i nor r allocates:
 * three buffers in all. Curve: 1024 at 110, +256 (c1's) from 135 to 140,
 * +256 (c2's) from 150 to 160. */
static void test_forwarding(void **state)
{
	(void)state;
	/* clang-format off */
	static const char text[] =
		STEP(
			DEV(CPU,
				SOURCE(100)
				EXEC("x", 110, 10) OUT(0, "cpu", 1024, 1) END
				EXEC("i", 125, 2) OUT(0, "cpu", 1024, 1) END
				EXEC("r", 130, 2) END
				EXEC("c1", 135, 5) OUT(0, "cpu", 256, 2) END
				EXEC("c2", 150, 10) OUT(0, "cpu", 256, 3) END))
		GRAPH(
			NODE("x", "Const", CPU, "")
			NODE("i", "Identity", CPU, IN("x"))
			NODE("r", "Reshape", CPU, IN("i"))
			NODE("c1", "Neg", CPU, IN("x"))
			NODE("c2", "Neg", CPU, IN("r")));
	/* clang-format on */
	tl_run *run;
	tl_memory *mem = memory_of(text, &run);
	assert_int_equal(mem->n_buffers, 3);
	const tl_buffer *x = output_of(mem, "x", 0, 0), *c1 = output_of(mem, "c1", 0, 0);
	assert_aliases(mem, x, (const char *[]){"x:0", "i:0", "r:0"}, 3);
	assert_life(mem, x, 110, 160, TL_FREE_LAST_USE, "c2");
	assert_life(mem, c1, 135, 140, TL_FREE_UNUSED, "c1");
	const tl_allocator *cpu = allocator(mem, "cpu");
	static const int64_t curve[][2] = {{100, 0},	{110, 1024}, {135, 1280},
					   {140, 1024}, {150, 1280}, {160, 0}};
	assert_curve(cpu, curve, G_N_ELEMENTS(curve));
	assert_int_equal(cpu->peak_bytes, 1280);
	assert_int_equal(cpu->peak_us, 135);
	assert_live(mem, cpu, (const tl_buffer *[]){x, c1}, 2);
	done(mem, run);
}

/* A Switch forwards its data input to both its outputs, though the dump
 * (as TensorFlow's often does) records only slot 0: x's buffer has three
 * tensors, x:0, sw:0 and sw:1, and lives until f, which reads sw:1, ends
 * (170). The predicate p, read by sw, dies with sw (128). */
static void test_switch(void **state)
{
	(void)state;
	/* clang-format off */
	static const char text[] =
		STEP(
			DEV(CPU,
				SOURCE(100)
				EXEC("p", 105, 3) OUT(0, "cpu", 256, 2) END
				EXEC("x", 110, 10) OUT(0, "cpu", 512, 1) END
				EXEC("sw", 125, 3) OUT(0, "cpu", 512, 1) END
				EXEC("t", 130, 10) END
				EXEC("f", 150, 20) END))
		GRAPH(
			NODE("p", "Const", CPU, "")
			NODE("x", "Const", CPU, "")
			NODE("sw", "Switch", CPU, IN("x") IN("p"))
			NODE("t", "Neg", CPU, IN("sw"))
			NODE("f", "Neg", CPU, IN("sw:1")));
	/* clang-format on */
	tl_run *run;
	tl_memory *mem = memory_of(text, &run);
	assert_int_equal(mem->n_buffers, 2);
	const tl_buffer *x = output_of(mem, "x", 0, 0);
	assert_aliases(mem, x, (const char *[]){"x:0", "sw:0", "sw:1"}, 3);
	assert_life(mem, x, 110, 170, TL_FREE_LAST_USE, "f");
	assert_life(mem, output_of(mem, "p", 0, 0), 105, 128, TL_FREE_LAST_USE, "sw");
	const tl_allocator *cpu = allocator(mem, "cpu");
	static const int64_t curve[][2] = {{100, 0}, {105, 256}, {110, 768}, {128, 512}, {170, 0}};
	assert_curve(cpu, curve, G_N_ELEMENTS(curve));
	done(mem, run);
}

/* ---- _Send and fetches -------------------------------------------------- */

/* A buffer read by a _Send lives until the send ends: x is read by c
 * (until 130) and by the _Send s, which ends at 160, after c: x dies at
 * 160. On the GPU the _Recv's own buffer is a fresh output, born at the
 * _Recv's start (140) and dead with its consumer g (180). */
static void test_send(void **state)
{
	(void)state;
	/* clang-format off */
	static const char text[] =
		STEP(
			DEV(CPU,
				SOURCE(100)
				EXEC("x", 110, 10) OUT(0, "cpu", 1024, 1) END
				EXEC("c", 122, 8) END
				EXEC("s", 125, 35) END)
			DEV(GPU,
				EXEC("r", 140, 25) OUT(0, "gpu", 1024, 2) END
				EXEC("g", 170, 10) END))
		GRAPH(
			NODE("x", "Const", CPU, "")
			NODE("c", "Neg", CPU, IN("x"))
			NODE("s", "_Send", CPU, IN("x") XFER("edge_x", CPU, GPU)))
		GRAPH(
			NODE("r", "_Recv", GPU, XFER("edge_x", CPU, GPU))
			NODE("g", "Neg", GPU, IN("r")));
	/* clang-format on */
	tl_run *run;
	tl_memory *mem = memory_of(text, &run);
	const tl_buffer *x = output_of(mem, "x", 0, 0), *r = output_of(mem, "r", 0, 0);
	assert_life(mem, x, 110, 160, TL_FREE_LAST_USE, "s");
	assert_life(mem, r, 140, 180, TL_FREE_LAST_USE, "g");
	assert_string_equal(r->allocator, "gpu");
	static const int64_t cpu_curve[][2] = {{100, 0}, {110, 1024}, {160, 0}};
	static const int64_t gpu_curve[][2] = {{100, 0}, {140, 1024}, {180, 0}};
	assert_curve(allocator(mem, "cpu"), cpu_curve, G_N_ELEMENTS(cpu_curve));
	assert_curve(allocator(mem, "gpu"), gpu_curve, G_N_ELEMENTS(gpu_curve));
	done(mem, run);
}

/* A buffer the client fetches lives to the step's end, the latest end of
 * any execution (z's, 300, on the GPU): x, read by a _Retval, and w, read
 * through the Identity i by a _Send with client_terminated, both die at
 * 300 (w's whole buffer, alias included). y, read by c only, dies with c
 * (170). Curve: 1024 at 110, 1536 at 130, 1792 at 150 (the peak, all
 * three live), 1536 at 170, 0 at 300. */
static void test_fetched(void **state)
{
	(void)state;
	/* clang-format off */
	static const char text[] =
		STEP(
			DEV(CPU,
				SOURCE(100)
				EXEC("x", 110, 10) OUT(0, "cpu", 1024, 1) END
				EXEC("rv", 125, 1) END
				EXEC("w", 130, 5) OUT(0, "cpu", 512, 2) END
				EXEC("i", 136, 1) OUT(0, "cpu", 512, 2) END
				EXEC("s", 140, 2) END
				EXEC("y", 150, 5) OUT(0, "cpu", 256, 3) END
				EXEC("c", 160, 10) END)
			DEV(GPU,
				EXEC("z", 200, 100) END))
		GRAPH(
			NODE("x", "Const", CPU, "")
			NODE("rv", "_Retval", CPU, IN("x"))
			NODE("w", "Const", CPU, "")
			NODE("i", "Identity", CPU, IN("w"))
			NODE("s", "_Send", CPU, IN("i") XFER("i:0", CPU, CPU)
				ATTR_B("client_terminated", true))
			NODE("y", "Const", CPU, "")
			NODE("c", "Neg", CPU, IN("y")))
		GRAPH(
			NODE("z", "NoOp", GPU, ""));
	/* clang-format on */
	tl_run *run;
	tl_memory *mem = memory_of(text, &run);
	assert_int_equal(mem->step_end_us, 300);
	const tl_buffer *x = output_of(mem, "x", 0, 0), *w = output_of(mem, "w", 0, 0);
	const tl_buffer *y = output_of(mem, "y", 0, 0);
	assert_int_equal(x->free_us, 300);
	assert_int_equal(x->cause, TL_FREE_FETCHED);
	assert_true(x->fetched);
	assert_aliases(mem, w, (const char *[]){"w:0", "i:0"}, 2);
	assert_int_equal(w->free_us, 300);
	assert_int_equal(w->cause, TL_FREE_FETCHED);
	assert_true(w->fetched);
	assert_life(mem, y, 150, 170, TL_FREE_LAST_USE, "c");
	assert_false(y->fetched);
	const tl_allocator *cpu = allocator(mem, "cpu");
	static const int64_t curve[][2] = {{100, 0},	{110, 1024}, {130, 1536},
					   {150, 1792}, {170, 1536}, {300, 0}};
	assert_curve(cpu, curve, G_N_ELEMENTS(curve));
	assert_int_equal(cpu->peak_us, 150);
	assert_live(mem, cpu, (const tl_buffer *[]){x, w, y}, 3);
	done(mem, run);
}

/* ---- temporaries -------------------------------------------------------- */

/* Allocation records of an execution that are not its outputs are
 * temporaries, born and freed inside it. m (200..222, computing 202..220)
 * records +1024 at 203 (its output, matched by size), +512 at 205, +256 at
 * 206 and -512 at 210: the 512-byte temporary lives 205..210 (its free
 * record), the 256-byte one, never freed in the records, until m's compute
 * end (220). The output lives until n ends (240); x, m's input, until m
 * ends (222). Curve: 1024 at 110, 2048 at 203, 2560 at 205, 2816 at 206
 * (the peak: x, the output and both temporaries), 2304 at 210, 2048 at
 * 220, 1024 at 222, 0 at 240. m reports 1024 in use at its end. */
static void test_temporaries(void **state)
{
	(void)state;
	/* clang-format off */
	static const char text[] =
		STEP(
			DEV(CPU,
				SOURCE(100)
				EXEC("x", 110, 10) OUT(0, "cpu", 1024, 1) END
				EXEC_OP("m", 200, 2, 20, 22)
					MEM("cpu", 1024, REC(203, 1024) REC(205, 512) REC(206, 256)
						REC(210, -512))
					OUT(0, "cpu", 1024, 5) END
				EXEC("n", 230, 10) END))
		GRAPH(
			NODE("x", "Const", CPU, "")
			NODE("m", "MatMul", CPU, IN("x") IN("x"))
			NODE("n", "Neg", CPU, IN("m")));
	/* clang-format on */
	tl_run *run;
	tl_memory *mem = memory_of(text, &run);
	assert_int_equal(mem->n_buffers, 4);
	const tl_buffer *x = output_of(mem, "x", 0, 0), *out = output_of(mem, "m", 0, 0);
	const tl_buffer *t1 = temp_of(mem, "m", 0), *t2 = temp_of(mem, "m", 1);
	assert_life(mem, x, 110, 222, TL_FREE_LAST_USE, "m");
	assert_life(mem, out, 203, 240, TL_FREE_LAST_USE, "n");
	assert_life(mem, t1, 205, 210, TL_FREE_RECORD, "m");
	assert_life(mem, t2, 206, 220, TL_FREE_OP_END, "m");
	assert_int_equal(t1->allocated, 512);
	assert_int_equal(t2->allocated, 256);
	assert_int_equal(t1->slot, -1);
	assert_int_equal(t1->n_refs, 0);
	assert_true(t1->allocation_id < 0 && t2->allocation_id < 0);
	const tl_allocator *cpu = allocator(mem, "cpu");
	static const int64_t curve[][2] = {{100, 0},	{110, 1024}, {203, 2048},
					   {205, 2560}, {206, 2816}, {210, 2304},
					   {220, 2048}, {222, 1024}, {240, 0}};
	assert_curve(cpu, curve, G_N_ELEMENTS(curve));
	assert_int_equal(cpu->peak_bytes, 2816);
	assert_int_equal(cpu->peak_us, 206);
	assert_live(mem, cpu, (const tl_buffer *[]){x, out, t1, t2}, 4);
	assert_checked(cpu, 1);
	done(mem, run);
}

/* ---- persistent memory -------------------------------------------------- */

/* Variables are a baseline, not tensors of the step: v (VariableV2, its
 * allocation 1 listed in persistent_tensor_alloc_ids) and w (allocation 2,
 * whose own execution is not in the dump, known only as m's
 * referenced_tensor) were allocated before the step and are never freed.
 * v/read (Identity) aliases v. The curve starts at the step start with
 * 2048 + 768 = 2816, rises by x (1024, 110) and m's output (512, 125), and
 * is back to 2816 when m ends (135). Peak 4352 at 125, with v, x, w and m's
 * output live. m reports 2816 in use at its end. */
static void test_persistent(void **state)
{
	(void)state;
	/* clang-format off */
	static const char text[] =
		STEP(
			DEV(CPU,
				SOURCE(100)
				EXEC("v", 102, 2) OUT(0, "cpu", 2048, 1) PERSISTENT(2048, 1) END
				EXEC("v/read", 106, 1) OUT(0, "cpu", 2048, 1) END
				EXEC("x", 110, 10) OUT(0, "cpu", 1024, 9) END
				EXEC("m", 125, 10) MEM("cpu", 2816, REC(125, 512))
					OUT(0, "cpu", 512, 10)
					REFD("cpu", 2048, 1) REFD("cpu", 768, 2) END))
		GRAPH(
			NODE("v", "VariableV2", CPU, "")
			NODE("v/read", "Identity", CPU, IN("v"))
			NODE("x", "Const", CPU, "")
			NODE("m", "MatMul", CPU, IN("x") IN("v/read")));
	/* clang-format on */
	tl_run *run;
	tl_memory *mem = memory_of(text, &run);
	const tl_buffer *v = output_of(mem, "v", 0, 0), *x = output_of(mem, "x", 0, 0);
	const tl_buffer *out = output_of(mem, "m", 0, 0);
	const tl_buffer *w = NULL;
	for (size_t i = 0; i < mem->n_buffers; i++)
		if (mem->buffers[i].allocation_id == 2)
			w = &mem->buffers[i];
	assert_non_null(w);
	assert_int_equal(v->kind, TL_BUF_PERSISTENT);
	assert_life(mem, v, TL_US_BEFORE, TL_US_NEVER, TL_FREE_NEVER, NULL);
	assert_aliases(mem, v, (const char *[]){"v:0", "v/read:0"}, 2);
	assert_int_equal(w->kind, TL_BUF_PERSISTENT);
	assert_int_equal(w->producer, -1);
	assert_int_equal(w->allocated, 768);
	assert_life(mem, w, TL_US_BEFORE, TL_US_NEVER, TL_FREE_NEVER, NULL);
	assert_life(mem, x, 110, 135, TL_FREE_LAST_USE, "m");
	const tl_allocator *cpu = allocator(mem, "cpu");
	assert_int_equal(cpu->persistent_bytes, 2816);
	static const int64_t curve[][2] = {{100, 2816}, {110, 3840}, {125, 4352}, {135, 2816}};
	assert_curve(cpu, curve, G_N_ELEMENTS(curve));
	assert_int_equal(cpu->peak_bytes, 4352);
	assert_int_equal(cpu->peak_us, 125);
	assert_live(mem, cpu, (const tl_buffer *[]){v, x, w, out}, 4);
	assert_checked(cpu, 1);
	done(mem, run);
}

/* ---- loops -------------------------------------------------------------- */

/* A node run several times in one step is matched by order: a and b run
 * three times (a_k at 110 + 30k for 5, b_k at 120 + 30k for 10), b_k reads
 * a_k, so a_k dies with b_k (130, 160, 190); x ran once and every b_k
 * reads it: it dies with b_2 (190); c ran once and reads the last b only,
 * so b_0 and b_1 die unread at their own ends (130, 160) and b_2 with c
 * (210). Curve: x's 1024 from 101; each iteration adds 256 (a_k) then 512
 * (b_k) and drops both at b_k's end; then 512 (b_2) at 190, 768 with c's
 * output at 200, 0 at 210. Peak 1792, first at 120: x, a_0, b_0. b_k
 * report 1024, 1024 and 512 in use at their ends. */
static void test_loop(void **state)
{
	(void)state;
	/* clang-format off */
	static const char text[] =
		STEP(
			DEV(CPU,
				SOURCE(100)
				EXEC("x", 101, 4) OUT(0, "cpu", 1024, 1) END
				EXEC("a", 110, 5) OUT(0, "cpu", 256, 2) END
				EXEC("b", 120, 10) MEM("cpu", 1024, "") OUT(0, "cpu", 512, 3) END
				EXEC("a", 140, 5) OUT(0, "cpu", 256, 4) END
				EXEC("b", 150, 10) MEM("cpu", 1024, "") OUT(0, "cpu", 512, 5) END
				EXEC("a", 170, 5) OUT(0, "cpu", 256, 6) END
				EXEC("b", 180, 10) MEM("cpu", 512, "") OUT(0, "cpu", 512, 7) END
				EXEC("c", 200, 10) OUT(0, "cpu", 256, 8) END))
		GRAPH(
			NODE("x", "Const", CPU, "")
			NODE("a", "Neg", CPU, "")
			NODE("b", "Add", CPU, IN("a") IN("x"))
			NODE("c", "Neg", CPU, IN("b")));
	/* clang-format on */
	tl_run *run;
	tl_memory *mem = memory_of(text, &run);
	assert_int_equal(mem->n_buffers, 8);
	for (uint32_t k = 0; k < 3; k++) {
		int64_t t = 30 * (int64_t)k;
		const tl_buffer *a = output_of(mem, "a", k, 0), *b = output_of(mem, "b", k, 0);
		assert_int_equal(a->alloc_us, 110 + t);
		assert_int_equal(a->free_us, 130 + t);
		assert_int_equal(a->last_user, exec_of(run, "b", k));
		assert_int_equal(b->alloc_us, 120 + t);
		assert_int_equal(b->free_us, k < 2 ? 130 + t : 210);
		assert_int_equal(b->cause, k < 2 ? TL_FREE_UNUSED : TL_FREE_LAST_USE);
	}
	const tl_buffer *x = output_of(mem, "x", 0, 0);
	assert_int_equal(x->free_us, 190);
	assert_int_equal(x->last_user, exec_of(run, "b", 2));
	assert_life(mem, output_of(mem, "c", 0, 0), 200, 210, TL_FREE_UNUSED, "c");
	const tl_allocator *cpu = allocator(mem, "cpu");
	static const int64_t curve[][2] = {{100, 0},	{101, 1024}, {110, 1280}, {120, 1792},
					   {130, 1024}, {140, 1280}, {150, 1792}, {160, 1024},
					   {170, 1280}, {180, 1792}, {190, 512},  {200, 768},
					   {210, 0}};
	assert_curve(cpu, curve, G_N_ELEMENTS(curve));
	assert_int_equal(cpu->peak_bytes, 1792);
	assert_int_equal(cpu->peak_us, 120);
	assert_live(mem, cpu,
		    (const tl_buffer *[]){x, output_of(mem, "b", 0, 0), output_of(mem, "a", 0, 0)},
		    3);
	assert_checked(cpu, 3);
	done(mem, run);
}

/* ---- unrecorded _Recv --------------------------------------------------- */

/* _Recv executions the dump has no stats for still held buffers: r (x's
 * 1024 bytes, sent from the CPU) and r2 (y's 512), named for their nodes,
 * on the allocator the GPU's outputs use. r dies when the last of its
 * consumers ends (c2, 160; c ended at 150); r2, fetched by a _Retval,
 * lives to the step's end (z, 200). Their births are not in the dump: the
 * GPU's samples and the allocation ids place them. At 108 only g0's 256
 * bytes are in use (r not born), at 130 g0 + g1 + r = 1792 (r born, r2
 * not), at 150 r + r2 = 1536 (g0 and g1 died with c); g0's id 3 and g1's 4
 * leave no id between them, so r was allocated after g1 (120): r is born
 * in [120, 130], r2 in (130, 150], each at the start of its window. Peak
 * 2304 at 131: r, r2, g1 and g0 live. x and y, read by their _Send only,
 * die when the sends end (114, 116). */
static void test_unrecorded_recv(void **state)
{
	(void)state;
	/* clang-format off */
	static const char text[] =
		STEP(
			DEV(CPU,
				SOURCE(100)
				EXEC("x", 102, 8) OUT(0, "cpu", 1024, 1) END
				EXEC("y", 103, 8) OUT(0, "cpu", 512, 2) END
				EXEC("s", 112, 2) END
				EXEC("s2", 114, 2) END)
			DEV(GPU,
				EXEC("g0", 103, 5) MEM("gpu", 256, REC(103, 256))
					OUT(0, "gpu", 256, 3) END
				EXEC("g1", 120, 10) MEM("gpu", 1792, REC(120, 512))
					OUT(0, "gpu", 512, 4) END
				EXEC("c2", 135, 25) END
				EXEC("c", 140, 10) MEM("gpu", 1536, "") END
				EXEC("rv", 170, 1) END
				EXEC("z", 180, 20) END))
		GRAPH(
			NODE("x", "Const", CPU, "")
			NODE("y", "Const", CPU, "")
			NODE("s", "_Send", CPU, IN("x") XFER("edge_r", CPU, GPU))
			NODE("s2", "_Send", CPU, IN("y") XFER("edge_r2", CPU, GPU)))
		GRAPH(
			NODE("r", "_Recv", GPU, XFER("edge_r", CPU, GPU))
			NODE("r2", "_Recv", GPU, XFER("edge_r2", CPU, GPU))
			NODE("g0", "Fill", GPU, "")
			NODE("g1", "Fill", GPU, "")
			NODE("c", "AddN", GPU, IN("r") IN("g0") IN("g1"))
			NODE("c2", "Neg", GPU, IN("r"))
			NODE("rv", "_Retval", GPU, IN("r2"))
			NODE("z", "NoOp", GPU, ""));
	/* clang-format on */
	tl_run *run;
	tl_memory *mem = memory_of(text, &run);
	const tl_buffer *r = named(mem, "r:0"), *r2 = named(mem, "r2:0");
	assert_true(r->estimated && r2->estimated);
	assert_int_equal(r->producer, -1);
	assert_string_equal(r->allocator, "gpu");
	assert_string_equal(r2->allocator, "gpu");
	assert_int_equal(r->allocated, 1024);
	assert_int_equal(r2->allocated, 512);
	assert_int_equal(r->birth, TL_BIRTH_PINNED);
	assert_int_equal(r->birth_lo, 120);
	assert_int_equal(r->birth_hi, 130);
	assert_life(mem, r, 120, 160, TL_FREE_LAST_USE, "c2");
	assert_int_equal(r2->birth, TL_BIRTH_PINNED);
	assert_int_equal(r2->birth_lo, 131);
	assert_int_equal(r2->birth_hi, 150);
	assert_int_equal(r2->alloc_us, 131);
	assert_int_equal(r2->free_us, 200);
	assert_int_equal(r2->cause, TL_FREE_FETCHED);
	assert_life(mem, output_of(mem, "x", 0, 0), 102, 114, TL_FREE_LAST_USE, "s");
	assert_life(mem, output_of(mem, "y", 0, 0), 103, 116, TL_FREE_LAST_USE, "s2");
	const tl_allocator *gpu = allocator(mem, "gpu");
	assert_int_equal(gpu->n_estimated, 2);
	assert_int_equal(gpu->n_unplaced, 0);
	static const int64_t curve[][2] = {{100, 0},	{103, 256}, {120, 1792}, {131, 2304},
					   {150, 1536}, {160, 512}, {200, 0}};
	assert_curve(gpu, curve, G_N_ELEMENTS(curve));
	assert_int_equal(gpu->peak_bytes, 2304);
	assert_int_equal(gpu->peak_us, 131);
	assert_live(
	    mem, gpu,
	    (const tl_buffer *[]){r, r2, output_of(mem, "g1", 0, 0), output_of(mem, "g0", 0, 0)},
	    4);
	assert_checked(gpu, 3);
	done(mem, run);
}

int main(void)
{
	td_filter();
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_birth),	cmocka_unit_test(test_death),
	    cmocka_unit_test(test_forwarding),	cmocka_unit_test(test_switch),
	    cmocka_unit_test(test_send),	cmocka_unit_test(test_fetched),
	    cmocka_unit_test(test_temporaries), cmocka_unit_test(test_persistent),
	    cmocka_unit_test(test_loop),	cmocka_unit_test(test_unrecorded_recv),
	};
	return cmocka_run_group_tests_name("lifetimes rules", tests, NULL, NULL);
}
