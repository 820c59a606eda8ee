#include "analysis/allocs.h"

#include "base/warn.h"

#include <glib.h>

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

/* Positions are an event's rank in its allocator's time order; a block
 * allocated before the trace sits at -1, one never freed at POS_NEVER. */
#define POS_NEVER PTRDIFF_MAX

struct pos {
	ptrdiff_t alloc, free;
};

/* What one allocator's pass keeps beside the blocks. */
struct pass {
	const tl_alloc_events *in;
	const size_t *order; /* the allocator's events, in time order */
	size_t n;
	GArray *blocks;	  /* tl_alloc_block, of every allocator */
	GArray *pos;	  /* struct pos per block */
	GArray *prev;	  /* size_t per block: the earlier open block at its address + 1 */
	GHashTable *open; /* addr -> latest open block + 1 */
	int64_t *run;	  /* running sum of Bytes after each event */
	int64_t before;	  /* bytes of the blocks allocated before the trace */
	size_t n_mismatch;
};

static int64_t add_sat(int64_t a, int64_t b)
{
	int64_t r;
	if (__builtin_add_overflow(a, b, &r))
		return b > 0 ? INT64_MAX : INT64_MIN;
	return r;
}

static int64_t abs_sat(int64_t a)
{
	return a == INT64_MIN ? INT64_MAX : a < 0 ? -a : a;
}

/* By time, then input order. */
static gint cmp_time(gconstpointer a, gconstpointer b, gpointer user)
{
	const tl_alloc_events *in = user;
	size_t i = *(const size_t *)a, j = *(const size_t *)b;
	if (in->ev[i].t_ns != in->ev[j].t_ns)
		return in->ev[i].t_ns < in->ev[j].t_ns ? -1 : 1;
	return i < j ? -1 : i > j;
}

static const char *str_or_empty(const char *s)
{
	return s != NULL ? s : "";
}

static void add_block(struct pass *p, const tl_alloc_block *b, ptrdiff_t alloc_pos,
		      ptrdiff_t free_pos, size_t prev)
{
	struct pos pp = {alloc_pos, free_pos};
	g_array_append_val(p->blocks, *b);
	g_array_append_val(p->pos, pp);
	g_array_append_val(p->prev, prev);
}

/* A free at position k: closes the latest open block at its address, or
 * is a block allocated before the trace. */
static void take_free(struct pass *p, tl_allocs_allocator *a, size_t k)
{
	size_t i = p->order[k];
	const tl_alloc_event *e = &p->in->ev[i];
	uint64_t key = e->addr;
	size_t top = GPOINTER_TO_SIZE(g_hash_table_lookup(p->open, &key));
	if (top == 0) {
		tl_alloc_block b = {.addr = e->addr,
				    .bytes = e->bytes == INT64_MIN ? INT64_MAX : -e->bytes,
				    .alloc_ns = TL_ALLOCS_BEFORE,
				    .free_ns = e->t_ns,
				    .free_op = e->op,
				    .alloc_ev = SIZE_MAX,
				    .free_ev = i};
		add_block(p, &b, -1, (ptrdiff_t)k, 0);
		p->before = add_sat(p->before, b.bytes);
		a->n_before++;
		tl_warn("allocs-before",
			"a free matches no allocation of the trace: a block allocated before "
			"it started, counted as live from its start");
		return;
	}
	tl_alloc_block *b = &g_array_index(p->blocks, tl_alloc_block, top - 1);
	b->free_ns = e->t_ns;
	b->free_ev = i;
	b->free_op = e->op;
	g_array_index(p->pos, struct pos, top - 1).free = (ptrdiff_t)k;
	if (b->bytes != abs_sat(e->bytes))
		p->n_mismatch++;
	size_t prev = g_array_index(p->prev, size_t, top - 1);
	if (prev != 0)
		g_hash_table_insert(p->open, g_memdup2(&key, sizeof key), GSIZE_TO_POINTER(prev));
	else
		g_hash_table_remove(p->open, &key);
}

static void take_alloc(struct pass *p, size_t k)
{
	size_t i = p->order[k];
	const tl_alloc_event *e = &p->in->ev[i];
	uint64_t key = e->addr;
	size_t prev = GPOINTER_TO_SIZE(g_hash_table_lookup(p->open, &key));
	tl_alloc_block b = {.addr = e->addr,
			    .bytes = e->bytes,
			    .alloc_ns = e->t_ns,
			    .free_ns = TL_ALLOCS_NEVER,
			    .op = e->op,
			    .alloc_ev = i,
			    .free_ev = SIZE_MAX,
			    .what = e->what,
			    .allocated = e->allocated};
	add_block(p, &b, (ptrdiff_t)k, POS_NEVER, prev);
	g_hash_table_insert(p->open, g_memdup2(&key, sizeof key), GSIZE_TO_POINTER(p->blocks->len));
}

/* The blocks and the running sum. */
static void match(struct pass *p, tl_allocs_allocator *a)
{
	int64_t run = 0;
	for (size_t k = 0; k < p->n; k++) {
		const tl_alloc_event *e = &p->in->ev[p->order[k]];
		run = add_sat(run, e->bytes);
		p->run[k] = run;
		if (e->addr == 0 && e->bytes != 0) {
			a->n_no_addr++;
			tl_warn("allocs-no-addr", "an allocator event without an address is in "
						  "the curve, in no allocation");
		} else if (e->bytes > 0)
			take_alloc(p, k);
		else if (e->bytes < 0)
			take_free(p, a, k);
	}
}

/* The baseline, the curve, the peak and the check. */
static ptrdiff_t curve_and_peak(struct pass *p, tl_allocs_allocator *a)
{
	const tl_alloc_event *ev = p->in->ev;
	a->baseline = p->before;
	for (size_t k = 0; k < p->n; k++)
		if (ev[p->order[k]].total_allocated >= 0) {
			a->baseline = add_sat(ev[p->order[k]].total_allocated, -p->run[k]);
			a->peak_from_totals = true;
			break;
		}
	a->curve = g_new(tl_alloc_point, p->n ? p->n : 1);
	a->n_curve = p->n;
	a->peak_reserved = -1;
	ptrdiff_t peak = -1;
	a->peak_bytes = a->peak_from_totals ? -1 : a->baseline;
	double sum_abs = 0;
	for (size_t k = 0; k < p->n; k++) {
		const tl_alloc_event *e = &ev[p->order[k]];
		tl_alloc_point *pt = &a->curve[k];
		*pt = (tl_alloc_point){e->t_ns, add_sat(a->baseline, p->run[k]), e->total_reserved};
		int64_t v = a->peak_from_totals ? e->total_allocated : pt->bytes;
		if (v > a->peak_bytes) {
			a->peak_bytes = v;
			peak = (ptrdiff_t)k;
		}
		if (e->total_reserved > a->peak_reserved)
			a->peak_reserved = e->total_reserved;
		if (e->total_allocated >= 0) {
			int64_t d = abs_sat(add_sat(pt->bytes, -e->total_allocated));
			a->check_samples++;
			if (d > a->check_max_abs)
				a->check_max_abs = d;
			sum_abs += (double)d;
		}
	}
	if (a->check_samples > 0)
		a->check_mean_abs = sum_abs / (double)a->check_samples;
	size_t at = peak >= 0 ? p->order[peak] : p->order[0];
	a->peak_ns = ev[at].t_ns;
	a->peak_op = peak >= 0 ? ev[at].op : NULL;
	return peak;
}

/* Largest first, then earliest, then by address. */
static gint cmp_live(gconstpointer x, gconstpointer y, gpointer user)
{
	const tl_alloc_block *bl = user;
	const tl_alloc_block *a = &bl[*(const size_t *)x], *b = &bl[*(const size_t *)y];
	if (a->bytes != b->bytes)
		return a->bytes > b->bytes ? -1 : 1;
	if (a->alloc_ns != b->alloc_ns)
		return a->alloc_ns < b->alloc_ns ? -1 : 1;
	return a->addr < b->addr ? -1 : a->addr > b->addr;
}

static void live_at(struct pass *p, tl_allocs_allocator *a, ptrdiff_t peak)
{
	GArray *live = g_array_new(FALSE, FALSE, sizeof(size_t));
	for (size_t b = a->first_block; b < a->first_block + a->n_blocks; b++) {
		const struct pos *pp = &g_array_index(p->pos, struct pos, b);
		const tl_alloc_block *bl = &g_array_index(p->blocks, tl_alloc_block, b);
		if (pp->free == POS_NEVER)
			a->n_never_freed++;
		if (pp->alloc <= peak && pp->free > peak) {
			g_array_append_val(live, b);
			a->live_bytes = add_sat(a->live_bytes, bl->bytes);
		}
	}
	g_array_sort_with_data(live, cmp_live, p->blocks->data);
	a->n_live = live->len;
	a->live = (size_t *)(void *)g_array_free(live, FALSE);
	a->unattributed_bytes = add_sat(a->peak_bytes, -a->live_bytes);
}

static void warn_allocator(const struct pass *p, const tl_allocs_allocator *a)
{
	if (p->n_mismatch > 0)
		tl_warn("allocs-size",
			"allocator '%s': %zu frees are not of their allocation's size (the curve "
			"follows the frees' Bytes)",
			a->name, p->n_mismatch);
}

static void build_allocator(struct pass *p, tl_allocs_allocator *a, GArray *idx)
{
	g_array_sort_with_data(idx, cmp_time, (gpointer)p->in);
	p->order = (const size_t *)(void *)idx->data;
	p->n = idx->len;
	p->run = g_new(int64_t, p->n ? p->n : 1);
	p->before = 0;
	p->n_mismatch = 0;
	p->open = g_hash_table_new_full(g_int64_hash, g_int64_equal, g_free, NULL);
	const tl_alloc_event *first = &p->in->ev[p->order[0]];
	a->name = first->allocator != NULL ? first->allocator : str_or_empty(first->device);
	a->device = str_or_empty(first->device);
	a->n_events = p->n;
	a->first_block = p->blocks->len;
	match(p, a);
	a->n_blocks = p->blocks->len - a->first_block;
	ptrdiff_t peak = curve_and_peak(p, a);
	live_at(p, a, peak);
	warn_allocator(p, a);
	g_hash_table_destroy(p->open);
	g_free(p->run);
}

/* By device, then allocator name. */
static gint cmp_group(gconstpointer x, gconstpointer y)
{
	return strcmp(*(const char *const *)x, *(const char *const *)y);
}

static void free_index(gpointer p)
{
	g_array_free(p, TRUE);
}

tl_allocs *tl_allocs_build(const tl_alloc_events *ev, const char *label)
{
	tl_allocs *r = g_new0(tl_allocs, 1);
	r->label = label;
	r->clock = ev->clock != NULL ? ev->clock : "trace start";
	GHashTable *groups = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, free_index);
	for (size_t i = 0; i < ev->n; i++) {
		const tl_alloc_event *e = &ev->ev[i];
		char *key = g_strdup_printf("%s\x1f%s", str_or_empty(e->device),
					    e->allocator ? e->allocator : str_or_empty(e->device));
		GArray *idx = g_hash_table_lookup(groups, key);
		if (idx == NULL) {
			idx = g_array_new(FALSE, FALSE, sizeof(size_t));
			g_hash_table_insert(groups, key, idx);
		} else {
			g_free(key);
		}
		g_array_append_val(idx, i);
		if (i == 0 || e->t_ns < r->start_ns)
			r->start_ns = e->t_ns;
		if (i == 0 || e->t_ns > r->end_ns)
			r->end_ns = e->t_ns;
	}
	guint n = 0;
	gpointer *keys = g_hash_table_get_keys_as_array(groups, &n);
	qsort(keys, n, sizeof *keys, cmp_group);
	r->allocators = g_new0(tl_allocs_allocator, n ? n : 1);
	r->n_allocators = n;
	struct pass p = {.in = ev};
	p.blocks = g_array_new(FALSE, FALSE, sizeof(tl_alloc_block));
	p.pos = g_array_new(FALSE, FALSE, sizeof(struct pos));
	p.prev = g_array_new(FALSE, FALSE, sizeof(size_t));
	for (guint g = 0; g < n; g++)
		build_allocator(&p, &r->allocators[g], g_hash_table_lookup(groups, keys[g]));
	r->n_blocks = p.blocks->len;
	r->blocks = (tl_alloc_block *)(void *)g_array_free(p.blocks, FALSE);
	g_array_free(p.pos, TRUE);
	g_array_free(p.prev, TRUE);
	g_free(keys);
	g_hash_table_destroy(groups);
	return r;
}

void tl_allocs_free(tl_allocs *a)
{
	if (a == NULL)
		return;
	for (size_t i = 0; i < a->n_allocators; i++) {
		g_free(a->allocators[i].curve);
		g_free(a->allocators[i].live);
	}
	g_free(a->allocators);
	g_free(a->blocks);
	g_free(a);
}
