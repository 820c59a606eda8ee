/* The run of a Chrome trace in a summary (tl_summary_add_run): its slices
 * as the profiler drew them, counted by what each is (io/chrome_kind.h:
 * host work as cpu_micros, device work as accelerator_micros; the views
 * of other slices, Kineto's own span and its annotations left out), in
 * the order of the file.
 *
 * Slices nest per thread (analysis/summary_nest.h): total is a slice's
 * inclusive time, self its exclusive time.
 *
 * Kernels to the ops that launched them (op, node, scope views): a device
 * slice's launcher (the runtime call of its correlation id, io/chrome_run.c)
 * lies inside an op (Kineto's cpu_op) on its thread; the innermost one
 * around it gets the kernel's time as accelerator time (PyTorch's "Self
 * CUDA": the op's own kernels, not its children's), and in its total and
 * self, as a RunMetadata op gets its kernels: each kernel counts once, so
 * the shares still add up. A kernel whose launch or op is not found keeps
 * a row of its own. The kernel, device and step views do not move them.
 */
#include "analysis/summary.h"

#include "analysis/summary_internal.h"
#include "analysis/summary_nest.h"

#include <string.h>

#define NONE UINT32_MAX

typedef struct slices {
	tl_summary *s;
	const tl_run *run;
	size_t n;	      /* slices counted (host and device) */
	tl_summary_slice *sp; /* those, in the file's order */
	uint32_t *exec;	      /* sp[k]'s execution */
	uint32_t *at;	      /* per execution: its k, or NONE */
	uint32_t *steps;      /* executions of the steps, in the file's order */
	size_t n_steps;
} slices;

static const tl_slice_event *event_of(const slices *c, uint32_t e)
{
	return &c->run->events[c->run->rec[e]];
}

static uint8_t kind_of(const slices *c, uint32_t e)
{
	return event_of(c, e)->kind & TL_SLICE_KIND;
}

static bool is_step(const slices *c, uint32_t e)
{
	uint8_t k = kind_of(c, e);
	return k == TL_SLICE_STEP ||
	       (k == TL_SLICE_HOST && g_str_has_prefix(event_of(c, e)->name, "ProfilerStep#"));
}

/* The slices that count, in the file's order, nested per thread. Times
 * are the records' nanoseconds, as the file has them. */
static void collect(slices *c)
{
	const tl_run *run = c->run;
	size_t n_recs = 0;
	for (size_t e = 0; e < run->n_execs; e++)
		n_recs = MAX(n_recs, (size_t)run->rec[e] + 1);
	uint32_t *by_rec = g_new(uint32_t, n_recs + 1);
	memset(by_rec, 0xff, (n_recs + 1) * sizeof *by_rec);
	for (size_t e = 0; e < run->n_execs; e++)
		by_rec[run->rec[e]] = (uint32_t)e;
	size_t cap = run->n_execs + 1;
	c->sp = g_new(tl_summary_slice, cap);
	c->exec = g_new(uint32_t, cap);
	c->steps = g_new(uint32_t, cap);
	c->at = g_new(uint32_t, cap);
	memset(c->at, 0xff, cap * sizeof *c->at);
	for (size_t r = 0; r < n_recs; r++) {
		uint32_t e = by_rec[r];
		if (e == NONE)
			continue;
		if (is_step(c, e))
			c->steps[c->n_steps++] = e;
		uint8_t k = kind_of(c, e);
		if (k != TL_SLICE_HOST && k != TL_SLICE_DEVICE)
			continue;
		if (k == TL_SLICE_DEVICE)
			c->s->have_device = true;
		const Tensorflow__NodeExecStats *ns = run->execs[e].ns;
		c->sp[c->n] =
		    (tl_summary_slice){.thread = event_of(c, e)->thread,
				       .start = ns->all_start_nanos,
				       .end = ns->all_start_nanos + ns->all_end_rel_nanos};
		c->at[e] = (uint32_t)c->n;
		c->exec[c->n++] = e;
	}
	g_free(by_rec);
	if (tl_summary_nest(c->sp, c->n) > 0)
		c->s->nested = true;
}

/* The row of execution e in the op, node, scope, device and kernel views,
 * or NULL where the view leaves it out. */
static const char *row_name(const slices *c, uint32_t e)
{
	const tl_slice_event *ev = event_of(c, e);
	switch (c->s->view) {
	case TL_VIEW_DEVICE:
		return c->run->devices[c->run->execs[e].device].name;
	case TL_VIEW_KERNEL:
		return kind_of(c, e) == TL_SLICE_DEVICE ? ev->name : NULL;
	case TL_VIEW_OP:
		return ev->op != NULL ? ev->op : ev->name;
	default:
		return ev->node != NULL ? ev->node : ev->name;
	}
}

#define OP_UNSEEN (UINT32_MAX - 1)

/* The innermost op slice (k) around slice k, or NONE. memo[j] keeps the
 * answer for slice j and what is above it (OP_UNSEEN where not found
 * yet), so each chain is walked once. */
static uint32_t op_around(const slices *c, uint32_t *memo, GArray *path, size_t k)
{
	const tl_summary_slice *sp = c->sp;
	uint32_t found = NONE;
	g_array_set_size(path, 0);
	for (int64_t p = sp[k].parent; p >= 0; p = sp[p].parent) {
		if (memo[p] != OP_UNSEEN) {
			found = memo[p];
			break;
		}
		if (event_of(c, c->exec[p])->kind & TL_SLICE_OP) {
			found = (uint32_t)p;
			break;
		}
		uint32_t up = (uint32_t)p;
		g_array_append_val(path, up);
	}
	for (guint i = 0; i < path->len; i++)
		memo[g_array_index(path, uint32_t, i)] = found;
	if (found != NONE)
		memo[found] = found;
	return found;
}

/* Per slice k, the op slice that launched it, or NONE: set for device
 * slices whose launcher is found nested in an op. NULL where none is. */
static uint32_t *link_kernels(const slices *c)
{
	const tl_run *run = c->run;
	uint32_t *memo = NULL, *launcher = NULL;
	GArray *path = NULL;
	for (size_t k = 0; k < c->n; k++) {
		const tl_exec *x = &run->execs[c->exec[k]];
		if (kind_of(c, c->exec[k]) != TL_SLICE_DEVICE || x->launcher < 0 ||
		    c->at[x->launcher] == NONE)
			continue;
		if (launcher == NULL) {
			memo = g_new(uint32_t, c->n);
			launcher = g_new(uint32_t, c->n);
			for (size_t j = 0; j < c->n; j++) {
				memo[j] = OP_UNSEEN;
				launcher[j] = NONE;
			}
			path = g_array_new(FALSE, FALSE, sizeof(uint32_t));
		}
		launcher[k] = op_around(c, memo, path, c->at[x->launcher]);
	}
	if (path != NULL)
		g_array_free(path, TRUE);
	g_free(memo);
	return launcher;
}

/* A slice's values; a kernel under its op adds no occurrence to it. */
static void slice_vals(bool device, const tl_summary_slice *sp, bool launched, tl_summary_vals *v)
{
	double dur = (double)(sp->end - sp->start) / 1000.0;
	memset(v, 0, sizeof *v);
	v->v[device ? TL_COL_ACCEL : TL_COL_CPU] = dur;
	v->v[TL_COL_TOTAL] = dur;
	v->v[TL_COL_SELF] = (double)sp->self / 1000.0;
	v->v[TL_COL_OCCURRENCE] = launched ? 0 : 1;
}

static void add_slice_rows(slices *c, size_t ri)
{
	tl_summary_view v = c->s->view;
	bool links = v == TL_VIEW_OP || v == TL_VIEW_NODE || v == TL_VIEW_SCOPE;
	uint32_t *launcher = links ? link_kernels(c) : NULL;
	for (size_t k = 0; k < c->n; k++) {
		uint32_t e = c->exec[k];
		bool launched = launcher != NULL && launcher[k] != NONE;
		const char *name = row_name(c, launched ? c->exec[launcher[k]] : e);
		if (name == NULL)
			continue;
		tl_summary_vals vals;
		slice_vals(kind_of(c, e) == TL_SLICE_DEVICE, &c->sp[k], launched, &vals);
		tl_row *r = tl_summary_row_add(c->s, name, ri, &vals);
		const char *op = event_of(c, e)->op;
		if (v == TL_VIEW_KERNEL && r->extra == NULL && op != NULL)
			r->extra = tl_summary_arena_dup(c->s, op);
	}
	g_free(launcher);
}

/* One thread's busy time as disjoint intervals, sorted, with the busy
 * time before each (so the busy time inside a window is two searches). */
typedef struct busy {
	uint64_t thread;
	bool device;
	GArray *iv; /* int64_t start, end, busy before start */
} busy;

static GArray *busy_new(const slices *c)
{
	GArray *out = g_array_new(FALSE, FALSE, sizeof(busy));
	uint32_t *order = tl_summary_nest_order(c->sp, c->n);
	busy *b = NULL;
	int64_t acc = 0;
	for (size_t k = 0; k < c->n; k++) {
		const tl_summary_slice *x = &c->sp[order[k]];
		if (b == NULL || b->thread != x->thread) {
			busy nb = {x->thread, kind_of(c, c->exec[order[k]]) == TL_SLICE_DEVICE,
				   g_array_new(FALSE, FALSE, 3 * sizeof(int64_t))};
			g_array_append_val(out, nb);
			b = &g_array_index(out, busy, out->len - 1);
			acc = 0;
		}
		int64_t *last =
		    b->iv->len ? (int64_t *)(void *)(b->iv->data) + 3 * (b->iv->len - 1) : NULL;
		if (last != NULL && x->start <= last[1]) {
			if (x->end > last[1]) {
				acc += x->end - last[1];
				last[1] = x->end;
			}
			continue;
		}
		int64_t iv[3] = {x->start, x->end, acc};
		acc += x->end - x->start;
		g_array_append_vals(b->iv, iv, 1);
	}
	g_free(order);
	return out;
}

/* Busy time of a thread before t. */
static int64_t busy_before(const busy *b, int64_t t)
{
	const int64_t *iv = (const int64_t *)(const void *)b->iv->data;
	size_t lo = 0, hi = b->iv->len; /* first interval starting at or after t */
	while (lo < hi) {
		size_t mid = (lo + hi) / 2;
		if (iv[3 * mid] < t)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo == 0)
		return 0;
	const int64_t *p = iv + 3 * (lo - 1);
	return p[2] + MIN(t, p[1]) - p[0];
}

/* The step view: a row per step (Kineto's ProfilerStep#N, TF2's "Steps"
 * line), or one for the whole trace: its wall time, and the busy time of
 * host threads (cpu) and device lines (accelerator) inside it. */
static void add_step_rows(slices *c, size_t ri)
{
	const char *label = c->s->run_labels->pdata[ri];
	int64_t lo = INT64_MAX, hi = INT64_MIN;
	for (size_t k = 0; k < c->n; k++) {
		lo = MIN(lo, c->sp[k].start);
		hi = MAX(hi, c->sp[k].end);
	}
	GArray *busy_of = busy_new(c);
	size_t n_rows = c->n_steps ? c->n_steps : (c->n > 0);
	for (size_t i = 0; i < n_rows; i++) {
		char *name = g_strdup(label);
		if (c->n_steps > 0) {
			const Tensorflow__NodeExecStats *ns = c->run->execs[c->steps[i]].ns;
			lo = ns->all_start_nanos;
			hi = lo + ns->all_end_rel_nanos;
			g_free(name);
			name = g_strdup_printf("%s %s", label, event_of(c, c->steps[i])->name);
		}
		tl_summary_vals v = {{0}};
		v.v[TL_COL_TOTAL] = v.v[TL_COL_SELF] = (double)(hi - lo) / 1000.0;
		v.v[TL_COL_OCCURRENCE] = 1;
		for (guint b = 0; b < busy_of->len; b++) {
			const busy *t = &g_array_index(busy_of, busy, b);
			double us = (double)(busy_before(t, hi) - busy_before(t, lo)) / 1000.0;
			v.v[t->device ? TL_COL_ACCEL : TL_COL_CPU] += us;
		}
		tl_summary_row_add(c->s, name, ri, &v);
		g_free(name);
	}
	for (guint b = 0; b < busy_of->len; b++)
		g_array_free(g_array_index(busy_of, busy, b).iv, TRUE);
	g_array_free(busy_of, TRUE);
}

void tl_summary_add_slices(tl_summary *s, const tl_run *run, size_t ri)
{
	slices c = {.s = s, .run = run};
	s->from_chrome = true;
	collect(&c);
	if (s->view == TL_VIEW_STEP)
		add_step_rows(&c, ri);
	else
		add_slice_rows(&c, ri);
	g_free(c.sp);
	g_free(c.exec);
	g_free(c.at);
	g_free(c.steps);
}
