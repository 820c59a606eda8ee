#include "analysis/lanes.h"

#include <glib.h>
#include <stdlib.h>
#include <string.h>

const char *const tl_op_time_names[] = {"schedule", "gpu", "all", NULL};

static void apply_op_time(tl_lanes *v, const tl_run *run, tl_op_time mode)
{
	for (size_t i = 0; i < run->n_execs; i++) {
		v->start[i] = run->execs[i].start;
		v->end[i] = run->execs[i].end;
	}
	if (mode == TL_OPTIME_SCHEDULE)
		return;
	/* timeline.py reads the stream:all records (they repeat the
	 * per-stream ones); per-stream records serve when there is no
	 * stream:all. */
	bool have_all = false;
	for (size_t d = 0; d < run->n_devices; d++)
		if (run->devices[d].kind == TL_DEV_STREAM_ALL)
			have_all = true;
	int64_t *k_start = g_new(int64_t, run->n_execs ? run->n_execs : 1);
	int64_t *k_end = g_new(int64_t, run->n_execs ? run->n_execs : 1);
	for (size_t i = 0; i < run->n_execs; i++) {
		k_start[i] = INT64_MAX;
		k_end[i] = INT64_MIN;
	}
	for (size_t i = 0; i < run->n_execs; i++) {
		const tl_exec *k = &run->execs[i];
		tl_device_kind kind = run->devices[k->device].kind;
		bool use = have_all ? kind == TL_DEV_STREAM_ALL : kind == TL_DEV_STREAM;
		if (!use || k->launcher < 0)
			continue;
		if (k->start < k_start[k->launcher])
			k_start[k->launcher] = k->start;
		if (k->end > k_end[k->launcher])
			k_end[k->launcher] = k->end;
	}
	for (size_t i = 0; i < run->n_execs; i++) {
		if (k_end[i] == INT64_MIN)
			continue;
		int64_t end = k_end[i] > run->execs[i].end ? k_end[i] : run->execs[i].end;
		if (mode == TL_OPTIME_GPU)
			v->start[i] = k_start[i];
		v->end[i] = end;
	}
	g_free(k_start);
	g_free(k_end);
}

static int cmp_by_start(const void *a, const void *b, void *ctx)
{
	const tl_lanes *v = ctx;
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
	if (v->start[x] != v->start[y])
		return v->start[x] < v->start[y] ? -1 : 1;
	return x < y ? -1 : (x > y);
}

/* First-fit rows in O(log rows): `busy` is a min-heap of rows by end,
 * `idle` a min-heap of row numbers whose last end is past. */
struct busy_row {
	int64_t end;
	uint32_t sub;
};

struct tl_lanes_fit {
	GArray *busy; /* struct busy_row */
	GArray *idle; /* uint32_t */
	uint32_t n_rows;
};

/* Nesting rows (nest_place below): each a stack of its open slices' ends;
 * past NEST_ROWS rows, slices that nest nowhere go first-fit (a file of
 * staggered overlaps must not cost rows x slices). */
#define NEST_ROWS 8

struct nest_rows {
	GPtrArray *rows;    /* GArray of int64_t ends */
	tl_lanes_fit *more; /* rows NEST_ROWS and after, or NULL */
};

struct thread_rows {
	uint32_t thread;
	uint32_t offset; /* first lane of this thread, once known */
	tl_lanes_fit *rows;
	struct nest_rows nest; /* instead, where slices nest */
};

static bool busy_less(const struct busy_row *a, const struct busy_row *b)
{
	return a->end < b->end || (a->end == b->end && a->sub < b->sub);
}

static void busy_push(GArray *h, struct busy_row r)
{
	g_array_append_val(h, r);
	struct busy_row *v = (struct busy_row *)(void *)h->data;
	for (guint i = h->len - 1; i > 0;) {
		guint p = (i - 1) / 2;
		if (!busy_less(&v[i], &v[p]))
			break;
		struct busy_row t = v[i];
		v[i] = v[p];
		v[p] = t;
		i = p;
	}
}

static struct busy_row busy_pop(GArray *h)
{
	struct busy_row *v = (struct busy_row *)(void *)h->data;
	struct busy_row top = v[0];
	v[0] = v[h->len - 1];
	g_array_set_size(h, h->len - 1);
	for (guint i = 0;;) {
		guint l = 2 * i + 1, r = l + 1, m = i;
		if (l < h->len && busy_less(&v[l], &v[m]))
			m = l;
		if (r < h->len && busy_less(&v[r], &v[m]))
			m = r;
		if (m == i)
			break;
		struct busy_row t = v[i];
		v[i] = v[m];
		v[m] = t;
		i = m;
	}
	return top;
}

static void idle_push(GArray *h, uint32_t sub)
{
	g_array_append_val(h, sub);
	uint32_t *v = (uint32_t *)(void *)h->data;
	for (guint i = h->len - 1; i > 0;) {
		guint p = (i - 1) / 2;
		if (v[i] >= v[p])
			break;
		uint32_t t = v[i];
		v[i] = v[p];
		v[p] = t;
		i = p;
	}
}

static uint32_t idle_pop(GArray *h)
{
	uint32_t *v = (uint32_t *)(void *)h->data;
	uint32_t top = v[0];
	v[0] = v[h->len - 1];
	g_array_set_size(h, h->len - 1);
	for (guint i = 0;;) {
		guint l = 2 * i + 1, r = l + 1, m = i;
		if (l < h->len && v[l] < v[m])
			m = l;
		if (r < h->len && v[r] < v[m])
			m = r;
		if (m == i)
			break;
		uint32_t t = v[i];
		v[i] = v[m];
		v[m] = t;
		i = m;
	}
	return top;
}

tl_lanes_fit *tl_lanes_fit_new(void)
{
	tl_lanes_fit *f = g_new0(tl_lanes_fit, 1);
	f->busy = g_array_new(FALSE, FALSE, sizeof(struct busy_row));
	f->idle = g_array_new(FALSE, FALSE, sizeof(uint32_t));
	return f;
}

uint32_t tl_lanes_fit_place(tl_lanes_fit *f, int64_t start, int64_t end)
{
	while (f->busy->len > 0 && ((struct busy_row *)(void *)f->busy->data)[0].end <= start)
		idle_push(f->idle, busy_pop(f->busy).sub);
	uint32_t sub = f->idle->len > 0 ? idle_pop(f->idle) : f->n_rows++;
	busy_push(f->busy, (struct busy_row){.end = end, .sub = sub});
	return sub;
}

uint32_t tl_lanes_fit_rows(const tl_lanes_fit *f)
{
	return f->n_rows;
}

void tl_lanes_fit_free(tl_lanes_fit *f)
{
	if (f == NULL)
		return;
	g_array_free(f->busy, TRUE);
	g_array_free(f->idle, TRUE);
	g_free(f);
}

/* Nesting rows, for the host planes of TF2/JAX profiles whose slices sit
 * inside each other on one thread (train_function > EagerExecute > ops): a
 * slice goes to the first row where it fits inside the innermost slice still
 * open, or that is free. Each row is a stack of the ends of its open slices.
 * Properly nested slices keep one row, as TensorBoard draws them. */
static void free_stack(gpointer p)
{
	g_array_free(p, TRUE);
}

static uint32_t nest_place(struct nest_rows *nr, int64_t start, int64_t end)
{
	for (guint r = 0; r < nr->rows->len; r++) {
		GArray *st = g_ptr_array_index(nr->rows, r);
		while (st->len > 0 && g_array_index(st, int64_t, st->len - 1) <= start)
			g_array_set_size(st, st->len - 1);
		if (st->len == 0 || g_array_index(st, int64_t, st->len - 1) >= end) {
			g_array_append_val(st, end);
			return r;
		}
	}
	if (nr->rows->len == NEST_ROWS) {
		if (nr->more == NULL)
			nr->more = tl_lanes_fit_new();
		return NEST_ROWS + tl_lanes_fit_place(nr->more, start, end);
	}
	GArray *st = g_array_new(FALSE, FALSE, sizeof(int64_t));
	g_array_append_val(st, end);
	g_ptr_array_add(nr->rows, st);
	return nr->rows->len - 1;
}

static uint32_t nest_rows_count(const struct nest_rows *nr)
{
	return nr->rows->len + (nr->more != NULL ? tl_lanes_fit_rows(nr->more) : 0);
}

/* Where slices nest: a TF2/JAX host plane ("/host:CPU"). */
static bool nests(const tl_device *dev)
{
	return g_str_has_prefix(dev->name, "/host:");
}

/* By start, the longer first: a parent before the children that start
 * with it. */
static int cmp_nesting(const void *a, const void *b, void *ctx)
{
	const tl_lanes *v = ctx;
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
	if (v->start[x] != v->start[y])
		return v->start[x] < v->start[y] ? -1 : 1;
	if (v->end[x] != v->end[y])
		return v->end[x] > v->end[y] ? -1 : 1;
	return x < y ? -1 : (x > y);
}

/* stack: properly nested slices share a row (a viewer that stacks them);
 * else each nesting depth takes a row of its own (parents sort first). */
static void assign_device(tl_lanes *v, const tl_run *run, size_t d, uint32_t *order, bool stack)
{
	const tl_device *dev = &run->devices[d];
	uint32_t n = dev->n_exec;
	for (uint32_t i = 0; i < n; i++)
		order[i] = dev->first_exec + i;
	qsort_r(order, n, sizeof *order, nests(dev) ? cmp_nesting : cmp_by_start, v);
	bool nesting = stack && nests(dev);
	bool threaded = false;
	if (dev->kind == TL_DEV_EXECUTOR)
		for (uint32_t i = 0; i < n; i++)
			if (run->execs[order[i]].thread != 0)
				threaded = true;
	v->threaded[d] = threaded;

	/* Threads in order of their first record; each exec remembers its
	 * thread (in group[]) and row within it (in v->lane, remapped below). */
	GArray *threads = g_array_new(FALSE, FALSE, sizeof(struct thread_rows));
	GHashTable *by_id = g_hash_table_new(g_direct_hash, g_direct_equal);
	uint32_t *group = g_new(uint32_t, n ? n : 1);
	for (uint32_t i = 0; i < n; i++) {
		uint32_t x = order[i];
		uint32_t thread = threaded ? run->execs[x].thread : 0;
		gpointer hit = g_hash_table_lookup(by_id, GUINT_TO_POINTER(thread + 1u));
		guint g;
		if (hit == NULL) {
			struct thread_rows t = {.thread = thread};
			if (nesting)
				t.nest.rows = g_ptr_array_new_with_free_func(free_stack);
			else
				t.rows = tl_lanes_fit_new();
			g_array_append_val(threads, t);
			g = threads->len - 1;
			g_hash_table_insert(by_id, GUINT_TO_POINTER(thread + 1u),
					    GUINT_TO_POINTER(g + 1));
		} else {
			g = GPOINTER_TO_UINT(hit) - 1;
		}
		struct thread_rows *t = &g_array_index(threads, struct thread_rows, g);
		group[i] = g;
		v->lane[x] = nesting ? nest_place(&t->nest, v->start[x], v->end[x])
				     : tl_lanes_fit_place(t->rows, v->start[x], v->end[x]);
	}
	uint32_t nr = 0;
	for (guint g = 0; g < threads->len; g++) {
		struct thread_rows *t = &g_array_index(threads, struct thread_rows, g);
		t->offset = nr;
		nr += nesting ? nest_rows_count(&t->nest) : tl_lanes_fit_rows(t->rows);
	}
	for (uint32_t i = 0; i < n; i++)
		v->lane[order[i]] += g_array_index(threads, struct thread_rows, group[i]).offset;
	v->n_lanes[d] = nr;
	v->lanes[d] = g_new(tl_lane, nr ? nr : 1);
	for (guint g = 0; g < threads->len; g++) {
		struct thread_rows *t = &g_array_index(threads, struct thread_rows, g);
		uint32_t rows = nesting ? nest_rows_count(&t->nest) : tl_lanes_fit_rows(t->rows);
		for (uint32_t s = 0; s < rows; s++)
			v->lanes[d][t->offset + s] = (tl_lane){.thread = t->thread, .sub = s};
		if (nesting) {
			g_ptr_array_free(t->nest.rows, TRUE);
			tl_lanes_fit_free(t->nest.more);
		} else
			tl_lanes_fit_free(t->rows);
	}
	g_array_free(threads, TRUE);
	g_hash_table_destroy(by_id);
	g_free(group);
}

static void build(tl_lanes *v, const tl_run *run, tl_op_time mode, bool stack)
{
	size_t ne = run->n_execs ? run->n_execs : 1;
	size_t nd = run->n_devices ? run->n_devices : 1;
	v->start = g_new(int64_t, ne);
	v->end = g_new(int64_t, ne);
	v->lane = g_new(uint32_t, ne);
	v->n_lanes = g_new0(uint32_t, nd);
	v->lanes = g_new0(tl_lane *, nd);
	v->threaded = g_new0(bool, nd);
	v->n_devices = run->n_devices;
	apply_op_time(v, run, mode);
	uint32_t *order = g_new(uint32_t, ne);
	for (size_t d = 0; d < run->n_devices; d++)
		assign_device(v, run, d, order, stack);
	g_free(order);
}

void tl_lanes_build(tl_lanes *v, const tl_run *run, tl_op_time mode)
{
	build(v, run, mode, true);
}

void tl_lanes_build_flat(tl_lanes *v, const tl_run *run, tl_op_time mode)
{
	build(v, run, mode, false);
}

void tl_lanes_free(tl_lanes *v)
{
	g_free(v->start);
	g_free(v->end);
	g_free(v->lane);
	for (size_t d = 0; v->lanes != NULL && d < v->n_devices; d++)
		g_free(v->lanes[d]);
	g_free(v->lanes);
	g_free(v->n_lanes);
	g_free(v->threaded);
	memset(v, 0, sizeof *v);
}
