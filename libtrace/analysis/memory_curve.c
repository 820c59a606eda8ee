/*
 * memory_curve: the allocators of a tl_memory, their in-use curves and
 * peaks, and the check of each curve against the allocator_bytes_in_use
 * samples of the dump (memory.h says what a curve sums).
 */
#include "analysis/memory_internal.h"

#include <glib.h>
#include <stdlib.h>
#include <string.h>

/* allocator_bytes_in_use, or 0 (not recorded) when out of range. */
static int64_t in_use_of(const Tensorflow__AllocatorMemoryUsed *mu)
{
	int64_t v = mu->allocator_bytes_in_use;
	return v > 0 && v <= TL_MEMORY_BYTES_LIMIT ? v : 0;
}

struct event {
	int64_t us;
	int64_t bytes;
	int64_t requested;
};

static int cmp_event(const void *a, const void *b)
{
	const struct event *x = a, *y = b;
	if (x->us != y->us)
		return x->us < y->us ? -1 : 1;
	/* frees before allocations at one instant */
	if ((x->bytes < 0) != (y->bytes < 0))
		return x->bytes < 0 ? -1 : 1;
	return 0;
}

/* A buffer live at the peak, with what orders the list: allocated bytes
 * descending, then allocation id, then index (the order a stable sort of
 * the allocator's buffers, which are in index order, gives), read once
 * instead of through the buffer at every comparison. */
struct live {
	int64_t allocated;
	int64_t id;
	uint32_t i;
};

static int cmp_live(const void *a, const void *b)
{
	const struct live *x = a, *y = b;
	if (x->allocated != y->allocated)
		return x->allocated > y->allocated ? -1 : 1;
	if (x->id != y->id)
		return x->id < y->id ? -1 : 1;
	return x->i < y->i ? -1 : (x->i > y->i);
}

/* The events in cmp_event's order, kept stable (as qsort's merge sort
 * keeps them): by radix on (time, allocation after free), 11 bits a
 * pass, the passes over bits every key shares skipped. A curve is built
 * up to five times per allocator (memory_band.c rebuilds it as births
 * move), and qsort's comparisons were a tenth of a 100 MB run with
 * unrecorded receives, growing as n log n. */
#define EV_BITS 11
#define EV_BUCKETS (1u << EV_BITS)
#define EV_MIN 512

struct keyed {
	uint64_t key;
	uint32_t at; /* index into the events */
};

/* Returns the events e[0 .. n) sorted, in e or in a new array (e then
 * freed). */
static struct event *sort_events(struct event *e, size_t n)
{
	if (n < 2)
		return e;
	int64_t lo = e[0].us, hi = e[0].us;
	for (size_t i = 1; i < n; i++) {
		lo = e[i].us < lo ? e[i].us : lo;
		hi = e[i].us > hi ? e[i].us : hi;
	}
	/* a few events (the passes' buckets would cost more than the
	 * comparisons: a stream of many small runs), a span the key cannot
	 * hold with its flag bit, or more events than an index holds: qsort */
	if (n < EV_MIN || (uint64_t)hi - (uint64_t)lo >= (UINT64_C(1) << 62) || n > UINT32_MAX) {
		qsort(e, n, sizeof *e, cmp_event);
		return e;
	}
	struct keyed *a = g_new(struct keyed, n), *b = g_new(struct keyed, n);
	uint64_t all = 0;
	for (size_t i = 0; i < n; i++) {
		a[i].key = (((uint64_t)e[i].us - (uint64_t)lo) << 1) | (e[i].bytes >= 0);
		a[i].at = (uint32_t)i;
		all |= a[i].key;
	}
	size_t *count = g_new(size_t, EV_BUCKETS);
	for (unsigned shift = 0; shift < 64 && (all >> shift) != 0; shift += EV_BITS) {
		memset(count, 0, EV_BUCKETS * sizeof *count);
		for (size_t i = 0; i < n; i++)
			count[(a[i].key >> shift) & (EV_BUCKETS - 1)]++;
		size_t sum = 0;
		for (size_t d = 0; d < EV_BUCKETS; d++) {
			size_t c = count[d];
			count[d] = sum;
			sum += c;
		}
		for (size_t i = 0; i < n; i++)
			b[count[(a[i].key >> shift) & (EV_BUCKETS - 1)]++] = a[i];
		struct keyed *t = a;
		a = b;
		b = t;
	}
	g_free(count);
	struct event *out = g_new(struct event, n);
	for (size_t i = 0; i < n; i++)
		out[i] = e[a[i].at];
	g_free(e);
	g_free(a);
	g_free(b);
	return out;
}

/* Whether a buffer counts in the curves being built: estimated births
 * are left out until they are placed. */
static bool counts(const tl_buffer *buf, bool with_estimated)
{
	return with_estimated || !buf->estimated;
}

/* The events, points and live buffers go in arrays sized once (at most
 * two events a buffer, one point an event): a curve is built up to five
 * times per allocator, and appending to GArrays element by element was a
 * third of the building. */
static void build_curve(tl_memory *mem, tl_allocator *a, bool with_estimated)
{
	size_t cap = 2 * a->n_buffers + a->n_unattributed + 1;
	struct event *ev = g_new(struct event, cap);
	size_t n_ev = 0;
	int64_t start = mem->step_start_us;
	a->persistent_bytes = 0;
	a->persistent_requested = 0;
	for (size_t k = 0; k < a->n_buffers; k++) {
		const tl_buffer *buf = &mem->buffers[a->buffers[k]];
		if (!counts(buf, with_estimated))
			continue;
		if (buf->kind == TL_BUF_PERSISTENT) {
			a->persistent_bytes = add_sat(a->persistent_bytes, buf->allocated);
			a->persistent_requested = add_sat(a->persistent_requested, buf->requested);
			continue;
		}
		if (buf->free_us == buf->alloc_us)
			continue; /* never held across an instant */
		ev[n_ev++] = (struct event){buf->alloc_us, buf->allocated, buf->requested};
		if (buf->alloc_us < start)
			start = buf->alloc_us;
		if (buf->free_us != TL_US_NEVER)
			ev[n_ev++] = (struct event){buf->free_us, -buf->allocated, -buf->requested};
	}
	/* the part of the samples no record explains, a step of its own */
	for (size_t k = 0; k < a->n_unattributed; k++) {
		int64_t before = k > 0 ? a->unattributed[k - 1].bytes : 0;
		ev[n_ev++] =
		    (struct event){a->unattributed[k].us, a->unattributed[k].bytes - before, 0};
	}
	ev = sort_events(ev, n_ev);
	tl_point *pts = g_new(tl_point, n_ev + 1);
	size_t n_pts = 0;
	tl_point cur = {
	    .us = start, .bytes = a->persistent_bytes, .requested = a->persistent_requested};
	pts[n_pts++] = cur;
	a->peak_bytes = cur.bytes;
	a->peak_requested = cur.requested;
	a->peak_us = cur.us;
	for (size_t i = 0; i < n_ev;) {
		int64_t us = ev[i].us;
		while (i < n_ev && ev[i].us == us) {
			cur.bytes = add_sat(cur.bytes, ev[i].bytes);
			cur.requested = add_sat(cur.requested, ev[i].requested);
			i++;
		}
		cur.us = us;
		/* change points of the allocated bytes (requested ride along) */
		if (cur.bytes != pts[n_pts - 1].bytes)
			pts[n_pts++] = cur;
		if (cur.bytes > a->peak_bytes) {
			a->peak_bytes = cur.bytes;
			a->peak_us = us;
		}
		if (cur.requested > a->peak_requested)
			a->peak_requested = cur.requested;
	}
	g_free(ev);
	a->n_curve = n_pts;
	a->curve = pts;

	struct live *live = g_new(struct live, a->n_buffers + 1);
	size_t n_live = 0;
	for (size_t k = 0; k < a->n_buffers; k++) {
		uint32_t i = a->buffers[k];
		const tl_buffer *buf = &mem->buffers[i];
		if (!counts(buf, with_estimated))
			continue;
		bool born = buf->kind == TL_BUF_PERSISTENT || buf->alloc_us <= a->peak_us;
		bool alive = buf->free_us == TL_US_NEVER || buf->free_us > a->peak_us;
		if (born && alive && buf->free_us != buf->alloc_us)
			live[n_live++] = (struct live){buf->allocated, buf->allocation_id, i};
	}
	if (n_live > 1)
		qsort(live, n_live, sizeof *live, cmp_live);
	a->n_live = n_live;
	a->live_at_peak = g_new(uint32_t, n_live + 1);
	for (size_t k = 0; k < n_live; k++)
		a->live_at_peak[k] = live[k].i;
	g_free(live);
}

/* The last point of the curve at or before `us` (0 when none is), found
 * from *hint, the point a query near it found: samples read in time
 * order walk the curve instead of binary searching a curve far bigger
 * than the caches for each (a 100 MB dump spent 70 ms checking). */
static size_t curve_point(const tl_allocator *a, int64_t us, size_t *hint)
{
	size_t lo = *hint < a->n_curve ? *hint : 0, hi;
	if (a->curve[lo].us <= us) {
		/* gallop forward: [lo, hi) holds it */
		size_t step = 1;
		hi = lo + 1;
		while (hi < a->n_curve && a->curve[hi].us <= us) {
			lo = hi;
			hi = step < a->n_curve - lo ? lo + step : a->n_curve;
			step *= 2;
		}
	} else {
		/* gallop back */
		size_t step = 1;
		hi = lo;
		while (lo > 0 && a->curve[lo].us > us) {
			hi = lo;
			lo = step < lo ? lo - step : 0;
			step *= 2;
		}
		if (a->curve[lo].us > us) {
			*hint = 0;
			return 0;
		}
	}
	while (hi - lo > 1) {
		size_t mid = lo + (hi - lo) / 2;
		if (a->curve[mid].us <= us)
			lo = mid;
		else
			hi = mid;
	}
	*hint = lo;
	return lo;
}

int64_t tl_memory_in_use_near(const tl_allocator *a, int64_t us, size_t *hint)
{
	if (a->n_curve == 0)
		return 0;
	return a->curve[curve_point(a, us, hint)].bytes;
}

int64_t tl_memory_in_use(const tl_allocator *a, int64_t us)
{
	size_t hint = 0;
	return tl_memory_in_use_near(a, us, &hint);
}

static int cmp_allocator(const void *a, const void *b)
{
	return strcmp(((const tl_allocator *)a)->name, ((const tl_allocator *)b)->name);
}

/* Allocator name -> index + 1 into mem->allocators. */
static GHashTable *allocator_index(const tl_memory *mem)
{
	GHashTable *h = g_hash_table_new(g_str_hash, g_str_equal);
	for (size_t i = 0; i < mem->n_allocators; i++)
		g_hash_table_insert(h, (gpointer)mem->allocators[i].name, GSIZE_TO_POINTER(i + 1));
	return h;
}

/* The allocators (every allocator a buffer names, and every one the dump
 * samples), sorted by name, each with the list of its buffers; and the
 * samples, in execution and record order. */
void tl_memory_curve_allocators(tl_memory *mem, GArray *samples)
{
	const tl_run *run = mem->run;
	GHashTable *names = g_hash_table_new(g_str_hash, g_str_equal);
	/* a buffer's allocator is the builder's one copy of the name, and
	 * runs of buffers share one: only a new pointer is hashed */
	const char *last = NULL;
	for (size_t i = 0; i < mem->n_buffers; i++)
		if (mem->buffers[i].allocator != last) {
			last = mem->buffers[i].allocator;
			g_hash_table_add(names, (gpointer)last);
		}
	for (size_t i = 0; i < run->n_execs; i++) {
		const tl_exec *e = &run->execs[i];
		for (size_t m = 0; m < e->ns->n_memory; m++) {
			const Tensorflow__AllocatorMemoryUsed *mu = e->ns->memory[m];
			const char *n = mu->allocator_name;
			if (n == NULL || mu->allocator_bytes_in_use == 0)
				continue;
			gpointer own = NULL;
			if (last != NULL && strcmp(n, last) == 0) {
				own = (gpointer)last;
			} else if (!g_hash_table_lookup_extended(names, n, &own, NULL)) {
				g_hash_table_add(names, (gpointer)n);
				own = (gpointer)n;
			}
			last = own;
			struct dump_sample smp = {
			    .us = exec_end_us(e), .in_use = in_use_of(mu), .name = own};
			g_array_append_val(samples, smp);
		}
	}
	mem->n_allocators = g_hash_table_size(names);
	mem->allocators = g_new0(tl_allocator, mem->n_allocators ? mem->n_allocators : 1);
	GHashTableIter it;
	gpointer key;
	size_t k = 0;
	g_hash_table_iter_init(&it, names);
	while (g_hash_table_iter_next(&it, &key, NULL))
		mem->allocators[k++].name = key;
	g_hash_table_destroy(names);
	qsort(mem->allocators, mem->n_allocators, sizeof(tl_allocator), cmp_allocator);

	GHashTable *index = allocator_index(mem);
	uint32_t *of = g_new(uint32_t, mem->n_buffers ? mem->n_buffers : 1);
	last = NULL;
	uint32_t last_of = 0;
	for (size_t i = 0; i < mem->n_buffers; i++) {
		if (mem->buffers[i].allocator != last) {
			last = mem->buffers[i].allocator;
			last_of = (uint32_t)GPOINTER_TO_SIZE(g_hash_table_lookup(index, last)) - 1;
		}
		of[i] = last_of;
		tl_allocator *a = &mem->allocators[of[i]];
		a->n_buffers++;
		if (mem->buffers[i].estimated)
			a->n_estimated++;
	}
	for (size_t i = 0; i < mem->n_allocators; i++) {
		tl_allocator *a = &mem->allocators[i];
		a->buffers = g_new(uint32_t, a->n_buffers ? a->n_buffers : 1);
		a->n_buffers = 0;
	}
	for (size_t i = 0; i < mem->n_buffers; i++) {
		tl_allocator *a = &mem->allocators[of[i]];
		a->buffers[a->n_buffers++] = (uint32_t)i;
	}
	g_free(of);
	g_hash_table_destroy(index);
	/* Each sample holds the set's copy of its name: by address, from the
	 * allocators' own names. */
	GHashTable *by_ptr = g_hash_table_new(g_direct_hash, g_direct_equal);
	for (size_t i = 0; i < mem->n_allocators; i++)
		g_hash_table_insert(by_ptr, (gpointer)mem->allocators[i].name, GSIZE_TO_POINTER(i));
	for (guint i = 0; i < samples->len; i++) {
		struct dump_sample *smp = &g_array_index(samples, struct dump_sample, i);
		smp->allocator = (uint32_t)GPOINTER_TO_SIZE(g_hash_table_lookup(by_ptr, smp->name));
	}
	g_hash_table_destroy(by_ptr);
}

void tl_memory_curve_build(tl_memory *mem, bool with_estimated)
{
	for (size_t i = 0; i < mem->n_allocators; i++) {
		tl_allocator *a = &mem->allocators[i];
		g_free(a->curve);
		g_free(a->live_at_peak);
		build_curve(mem, a, with_estimated);
	}
}

void tl_memory_curve_rebuild(tl_memory *mem, tl_allocator *a)
{
	g_free(a->curve);
	g_free(a->live_at_peak);
	build_curve(mem, a, true);
}

/* Calls `fn` for every allocator_bytes_in_use the dump records at an
 * execution's end, with the allocator it names. */
void tl_memory_curve_each_sample(tl_memory *mem, const GArray *samples,
				 void (*fn)(tl_memory *mem, tl_allocator *a, int64_t us,
					    int64_t in_use, void *ctx),
				 void *ctx)
{
	for (guint i = 0; i < samples->len; i++) {
		const struct dump_sample *smp = &g_array_index(samples, struct dump_sample, i);
		if (smp->in_use > 0)
			fn(mem, &mem->allocators[smp->allocator], smp->us, smp->in_use, ctx);
	}
}

struct check_sum {
	double *sum;  /* per allocator */
	size_t *hint; /* per allocator: where its last sample fell */
};

static void check_one(tl_memory *mem, tl_allocator *a, int64_t us, int64_t in_use, void *ctx)
{
	struct check_sum *c = ctx;
	size_t ai = (size_t)(a - mem->allocators);
	int64_t diff = add_sat(tl_memory_in_use_near(a, us, &c->hint[ai]), -in_use);
	if (diff < 0)
		diff = diff == INT64_MIN ? INT64_MAX : -diff;
	if (diff > a->check_max_abs)
		a->check_max_abs = diff;
	c->sum[ai] += (double)diff;
	a->check_samples++;
}

/* The proof: our curve against the allocator's own in-use bytes at the
 * end of every execution that reported them. */
void tl_memory_curve_check(tl_memory *mem, const GArray *samples)
{
	struct check_sum c = {g_new0(double, mem->n_allocators + 1),
			      g_new0(size_t, mem->n_allocators + 1)};
	tl_memory_curve_each_sample(mem, samples, check_one, &c);
	g_free(c.hint);
	for (size_t a = 0; a < mem->n_allocators; a++) {
		tl_allocator *al = &mem->allocators[a];
		al->check_mean_abs = al->check_samples ? c.sum[a] / (double)al->check_samples : 0;
	}
	g_free(c.sum);
}

void tl_memory_curve_free(tl_memory *mem)
{
	for (size_t i = 0; i < mem->n_allocators; i++) {
		g_free(mem->allocators[i].curve);
		g_free(mem->allocators[i].live_at_peak);
		g_free(mem->allocators[i].buffers);
		g_free(mem->allocators[i].band);
		g_free(mem->allocators[i].unattributed);
		g_free(mem->allocators[i].contradictions);
	}
	g_free(mem->allocators);
	mem->allocators = NULL;
	mem->n_allocators = 0;
}
