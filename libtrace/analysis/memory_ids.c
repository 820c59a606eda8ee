/*
 * memory_ids: the birth windows of the estimated buffers (unrecorded _Recv
 * outputs, memory_recv.c) narrowed by the allocation ids the dump records.
 *
 * A BFC allocator numbers its allocations next_allocation_id_++, so its
 * ids increase with allocation time. Where the recorded outputs of an
 * allocator (id > 0, birth in the dump) do increase with their births, an
 * allocation the dump does not give an id, born at t, has an id x between
 * two recorded ones a < x < b that are consecutive among the recorded, and
 * t_a <= t <= t_b: it lies in the time window of an id gap, a gap of
 * b - a - 1 ids (the ids before the first recorded one and after the last
 * are open, their windows unbounded). The gaps hold every such
 * allocation: the unrecorded _Recv buffers, the temporaries (whose births
 * the records give, not their ids), and whatever else the dump leaves out.
 * So:
 *   - a temporary born strictly inside a gap's window (t_a < t < t_b) has
 *     its id in that gap and in no other (the windows of the others end
 *     by t_a or begin at t_b or later): the gap has one id less for the
 *     rest; one born at t_a or t_b may be either side, and takes none;
 *   - an estimated buffer whose id the dump shows (a forwarding consumer
 *     described it) is in the gap its id falls in: its birth is in that
 *     gap's window, and it takes one of its ids;
 *   - every other estimated buffer is born in the window of some gap that
 *     has an id left, within the window the records give it: its window
 *     becomes the hull of those.
 * Nothing here says which buffer took which id; a gap is never required to
 * hold one, since it may hold allocations the dump does not show.
 *
 * Which allocators: each whose recorded ids increase with their births
 * (real CPU allocators may give ids of 0, skipped, or out of order: then
 * its ids say nothing). When the ids of all such allocators are distinct,
 * increase with the births over all of them together, and interleave (the
 * ids of one allocator lie between those of another: counters of their
 * own, each starting at 1, would collide), the file numbers its
 * allocations with one counter, and the gaps are those of the joint
 * sequence (each allocator's own gaps are wider and hold as well); the
 * temporaries of all of them count then. A group whose records the rule
 * contradicts (a gap with fewer ids than the temporaries inside it, an
 * estimated buffer with no gap to be born in) is left as it was.
 * O((n + m) log n) for n recorded ids and m temporaries and estimated
 * buffers.
 */
#include "analysis/memory_internal.h"
#include "base/runsort.h"

#include <glib.h>
#include <stdlib.h>

/* A recorded allocation: its id, when it was made at the earliest and at
 * the latest (its birth; for an output whose birth is its producer's
 * compute start, no allocation record saying when, up to the producer's
 * end), its allocator. */
struct idpt {
	int64_t id;
	int64_t us, us_hi;
	uint32_t alloc;
};

static int cmp_idpt(const void *a, const void *b)
{
	const struct idpt *x = a, *y = b;
	if (x->id != y->id)
		return x->id < y->id ? -1 : 1;
	return x->us < y->us ? -1 : (x->us > y->us);
}

/* cmp_idpt's order for tl_runsort, stable as qsort's merge sort: the
 * points come in allocation order, their ids mostly increasing already. */
static bool before_idpt(const void *a, const void *b, void *ctx)
{
	(void)ctx;
	return cmp_idpt(a, b) < 0;
}

/* A recorded allocation whose id and birth the dump gives. */
static bool has_id(const tl_buffer *b)
{
	return b->allocation_id > 0 && !b->estimated && b->kind == TL_BUF_OUTPUT &&
	       b->alloc_us != TL_US_BEFORE;
}

/* The recorded allocations of allocator a, appended to pts. */
static void points_of(const tl_memory *mem, uint32_t a, GArray *pts)
{
	const tl_allocator *al = &mem->allocators[a];
	for (size_t k = 0; k < al->n_buffers; k++) {
		const tl_buffer *b = &mem->buffers[al->buffers[k]];
		if (!has_id(b))
			continue;
		struct idpt p = {b->allocation_id, b->alloc_us, b->alloc_us, a};
		if (!b->alloc_recorded && b->producer >= 0) {
			int64_t end = exec_end_us(&mem->run->execs[b->producer]);
			p.us_hi = end > p.us ? end : p.us;
		}
		g_array_append_val(pts, p);
	}
}

/* Sorted by id, whether the ids are distinct and can increase with the
 * allocations' times; each time bound tightened by the others' (an
 * allocation is made no earlier than one of a lower id, no later than one
 * of a higher id), so both bounds increase with the id. */
static bool increasing(GArray *pts)
{
	struct idpt *p = (struct idpt *)(void *)pts->data;
	size_t n = pts->len;
	if (n > 1)
		tl_runsort(p, n, sizeof *p, before_idpt, NULL);
	for (size_t i = 1; i < n; i++) {
		if (p[i].id == p[i - 1].id)
			return false;
		if (p[i].us < p[i - 1].us)
			p[i].us = p[i - 1].us;
	}
	for (size_t i = n; i-- > 1;)
		if (p[i - 1].us_hi > p[i].us_hi)
			p[i - 1].us_hi = p[i].us_hi;
	for (size_t i = 0; i < n; i++)
		if (p[i].us > p[i].us_hi)
			return false;
	return true;
}

/* Whether some allocator's ids lie on both sides of another's, in the
 * joint sequence (sorted): some allocator appears in two runs of it. */
static bool interleaved(const GArray *pts, size_t n_alloc)
{
	const struct idpt *p = (const struct idpt *)(const void *)pts->data;
	uint8_t *seen = g_new0(uint8_t, n_alloc + 1);
	bool inter = false;
	for (guint i = 0; i < pts->len && !inter; i++) {
		if (i > 0 && p[i].alloc == p[i - 1].alloc)
			continue;
		inter = seen[p[i].alloc] != 0;
		seen[p[i].alloc] = 1;
	}
	g_free(seen);
	return inter;
}

/* The id gaps of one group: gap j lies between pts[j - 1] and pts[j]
 * (gap 0 before the first, gap n after the last, both open). */
struct gaps {
	const struct idpt *p;
	size_t n;     /* recorded allocations; n + 1 gaps */
	int64_t *ids; /* per gap: how many ids (INT64_MAX: open) */
};

static int64_t gap_lo(const struct gaps *g, size_t j)
{
	return j == 0 ? INT64_MIN : g->p[j - 1].us;
}

static int64_t gap_hi(const struct gaps *g, size_t j)
{
	return j == g->n ? INT64_MAX : g->p[j].us_hi;
}

/* The gap an id falls in: the number of recorded ids below it; SIZE_MAX
 * when the id is a recorded one. */
static size_t gap_of_id(const struct gaps *g, int64_t id)
{
	size_t lo = 0, hi = g->n;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (g->p[mid].id < id)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < g->n && g->p[lo].id == id ? SIZE_MAX : lo;
}

/* The first gap whose window ends at or after t. */
static size_t gap_from(const struct gaps *g, int64_t t)
{
	size_t lo = 0, hi = g->n;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (g->p[mid].us_hi < t)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

/* The group of allocator a, or -1 when its ids say nothing. */
struct groups {
	int32_t *of; /* per allocator */
	int32_t n;
};

static void make_groups(const tl_memory *mem, struct groups *gr, GArray *joint)
{
	size_t na = mem->n_allocators;
	gr->of = g_new(int32_t, na + 1);
	gr->n = 0;
	GArray *own = g_array_new(FALSE, FALSE, sizeof(struct idpt));
	for (uint32_t a = 0; a < na; a++) {
		g_array_set_size(own, 0);
		points_of(mem, a, own);
		gr->of[a] = -1;
		if (own->len > 0 && increasing(own)) {
			gr->of[a] = gr->n++;
			g_array_append_vals(joint, own->data, own->len);
		}
	}
	g_array_free(own, TRUE);
	if (gr->n < 2)
		return;
	/* the joint check tightens the bounds across allocators: on a copy,
	 * kept only when the allocators share one counter */
	GArray *one = g_array_sized_new(FALSE, FALSE, sizeof(struct idpt), joint->len);
	g_array_append_vals(one, joint->data, joint->len);
	if (increasing(one) && interleaved(one, na)) {
		for (uint32_t a = 0; a < na; a++)
			if (gr->of[a] >= 0)
				gr->of[a] = 0;
		gr->n = 1;
		g_array_set_size(joint, 0);
		g_array_append_vals(joint, one->data, one->len);
	}
	g_array_free(one, TRUE);
}

/* The estimated buffers of a group: their indices, and their windows as
 * they narrow. */
struct est {
	uint32_t *b;
	int64_t *lo, *hi;
	size_t n;
};

/* The number of recorded births at or before t: the last gap whose window
 * starts at or before t. */
static size_t gap_upto(const struct gaps *g, int64_t t)
{
	size_t lo = 0, hi = g->n;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (g->p[mid].us <= t)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

/* An allocation the dump gives no id, born in [lo, hi]: its id lies in
 * one of the gaps l .. r (those whose windows meet [lo, hi]). */
struct item {
	size_t l, r;
	size_t est; /* its position in struct est, or SIZE_MAX (a temporary) */
	size_t block;
};

static int cmp_item_l(const void *a, const void *b)
{
	const struct item *x = a, *y = b;
	if (x->l != y->l)
		return x->l < y->l ? -1 : 1;
	return x->r < y->r ? -1 : (x->r > y->r);
}

static int cmp_item_block(const void *a, const void *b)
{
	const struct item *x = a, *y = b;
	if (x->block != y->block)
		return x->block < y->block ? -1 : 1;
	if (x->r != y->r)
		return x->r < y->r ? -1 : 1;
	return x->l < y->l ? -1 : (x->l > y->l);
}

/* The allocations without ids of a group, cut into blocks of items whose
 * gap ranges chain together (no item of one block shares a gap with an
 * item of another, so each block is matched alone). */
struct match {
	const struct gaps *g;
	struct item *it; /* by block, then r, then l */
	size_t n;
	size_t *first; /* per block: it[first[k] .. first[k + 1]) */
	size_t *gap0;  /* per block: its gaps gap0[k] .. gap1[k] */
	size_t *gap1;
	size_t n_blocks;
	int64_t *cap; /* scratch per gap, and one past the last */
	size_t *up;
	size_t budget; /* steps the matching may still take */
};

/* The first gap from j on with an id left (one past the block's last has
 * always one). */
static size_t free_gap(struct match *m, size_t j)
{
	size_t root = j;
	while (m->cap[root] == 0)
		root = m->up[root];
	while (m->cap[j] == 0) {
		size_t next = m->up[j];
		m->up[j] = root;
		j = next;
	}
	return root;
}

/* Whether the items of block k can each take an id of a gap in their
 * range, no gap giving more than it has, with item `u` (SIZE_MAX: none)
 * held to gaps a .. b: the items by their last gap, each in the first gap
 * it can take (the earliest deadline first, which fits them all whenever
 * any assignment does). Costs the block's items and gaps. */
static bool feasible(struct match *m, size_t k, size_t u, size_t a, size_t b)
{
	size_t g0 = m->gap0[k], g1 = m->gap1[k];
	for (size_t j = g0; j <= g1; j++) {
		m->cap[j] = m->g->ids[j];
		m->up[j] = j + 1;
	}
	m->cap[g1 + 1] = 1;
	bool ok = true, u_done = u == SIZE_MAX;
	for (size_t i = m->first[k]; i < m->first[k + 1] && ok; i++) {
		const struct item *x = &m->it[i];
		if (i == u)
			continue;
		if (!u_done && (b < x->r || (b == x->r && a <= x->l))) {
			size_t j = free_gap(m, a);
			ok = j <= b;
			m->cap[j] -= ok;
			u_done = true;
			if (!ok)
				break;
		}
		size_t j = free_gap(m, x->l);
		ok = j <= x->r;
		m->cap[j] -= ok;
	}
	if (ok && !u_done) {
		size_t j = free_gap(m, a);
		ok = j <= b;
	}
	return ok;
}

/* The blocks of the items, sorted for feasible(). */
static void make_blocks(struct match *m)
{
	qsort(m->it, m->n, sizeof *m->it, cmp_item_l);
	size_t n_b = 0, reach = 0;
	m->gap0 = g_new(size_t, m->n + 1);
	m->gap1 = g_new(size_t, m->n + 1);
	for (size_t i = 0; i < m->n; i++) {
		if (i == 0 || m->it[i].l > reach) {
			m->gap0[n_b] = m->it[i].l;
			m->gap1[n_b] = reach = m->it[i].r;
			n_b++;
		}
		if (m->it[i].r > reach)
			m->gap1[n_b - 1] = reach = m->it[i].r;
		m->it[i].block = n_b - 1;
	}
	qsort(m->it, m->n, sizeof *m->it, cmp_item_block);
	m->n_blocks = n_b;
	m->first = g_new(size_t, n_b + 1);
	for (size_t i = 0, k = 0; k <= n_b; k++) {
		while (i < m->n && m->it[i].block < k)
			i++;
		m->first[k] = i;
	}
}

/* Whether a run of feasible() on block k is within the budget (paid). */
static bool afford(struct match *m, size_t k)
{
	size_t cost = m->first[k + 1] - m->first[k] + m->gap1[k] - m->gap0[k] + 1;
	if (cost > m->budget)
		return false;
	m->budget -= cost;
	return true;
}

/* The first gap item i can take with the others placed, and the last:
 * searched by halves (the set of ranges a .. j that fit grows with j). */
static bool item_span(struct match *m, size_t i, size_t *first, size_t *last)
{
	const struct item *x = &m->it[i];
	size_t k = x->block, lo = x->l, hi = x->r;
	/* the ends of its own range first: where they fit (the common case,
	 * slack around it), the search by halves has its answer in one run */
	if (!afford(m, k))
		return false;
	if (feasible(m, k, i, x->l, x->l))
		hi = lo;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (!afford(m, k))
			return false;
		if (feasible(m, k, i, x->l, mid))
			hi = mid;
		else
			lo = mid + 1;
	}
	*first = lo;
	lo = *first;
	hi = x->r;
	if (lo < hi) {
		if (!afford(m, k))
			return false;
		if (feasible(m, k, i, x->r, x->r))
			lo = hi;
	}
	while (lo < hi) {
		size_t mid = lo + (hi - lo + 1) / 2;
		if (!afford(m, k))
			return false;
		if (feasible(m, k, i, mid, x->r))
			lo = mid;
		else
			hi = mid - 1;
	}
	*last = lo;
	return true;
}

/* The items of a group: its temporaries and its estimated buffers; those
 * with an id narrowed to their gap here. False when an id is a recorded
 * one, or a window misses its id's gap. */
static bool make_items(const tl_memory *mem, const struct groups *gr, int32_t grp,
		       const struct gaps *g, struct est *e, GArray *items)
{
	for (size_t a = 0; a < mem->n_allocators; a++) {
		const tl_allocator *al = &mem->allocators[a];
		for (size_t k = 0; k < al->n_buffers && gr->of[a] == grp; k++) {
			const tl_buffer *b = &mem->buffers[al->buffers[k]];
			if (b->kind != TL_BUF_TEMP)
				continue;
			struct item x = {gap_from(g, b->alloc_us), gap_upto(g, b->alloc_us),
					 SIZE_MAX, 0};
			g_array_append_val(items, x);
		}
	}
	for (size_t i = 0; i < e->n; i++) {
		const tl_buffer *b = &mem->buffers[e->b[i]];
		struct item x = {gap_from(g, e->lo[i]), gap_upto(g, e->hi[i]), i, 0};
		if (b->allocation_id > 0) {
			size_t j = gap_of_id(g, b->allocation_id);
			if (j == SIZE_MAX)
				return false; /* two allocations of one id */
			e->lo[i] = e->lo[i] > gap_lo(g, j) ? e->lo[i] : gap_lo(g, j);
			e->hi[i] = e->hi[i] < gap_hi(g, j) ? e->hi[i] : gap_hi(g, j);
			if (e->lo[i] > e->hi[i])
				return false;
			x.l = x.r = j;
		}
		g_array_append_val(items, x);
	}
	return true;
}

/* The windows of a group's estimated buffers, each the hull of the gaps
 * it can take with every other allocation without an id placed too;
 * false when they cannot all be placed. */
static bool match_group(const tl_memory *mem, const struct groups *gr, int32_t grp,
			const struct gaps *g, struct est *e)
{
	GArray *items = g_array_new(FALSE, FALSE, sizeof(struct item));
	struct match m = {.g = g};
	bool ok = make_items(mem, gr, grp, g, e, items);
	m.n = items->len;
	m.it = (struct item *)(void *)g_array_free(items, FALSE);
	if (ok && m.n > 0) {
		make_blocks(&m);
		m.cap = g_new(int64_t, g->n + 2);
		m.up = g_new(size_t, g->n + 2);
		/* every block once, then the searches, within a budget linear
		 * in the group (what it leaves keeps the windows it has) */
		m.budget = 64 * (m.n + g->n) + ((size_t)1 << 20);
		for (size_t k = 0; k < m.n_blocks && ok; k++)
			ok = feasible(&m, k, SIZE_MAX, 0, 0);
		for (size_t i = 0; i < m.n && ok; i++) {
			const struct item *x = &m.it[i];
			size_t first, last;
			if (x->est == SIZE_MAX || x->l == x->r || !item_span(&m, i, &first, &last))
				continue;

			if (gap_lo(g, first) > e->lo[x->est])
				e->lo[x->est] = gap_lo(g, first);
			if (gap_hi(g, last) < e->hi[x->est])
				e->hi[x->est] = gap_hi(g, last);
		}
		g_free(m.cap);
		g_free(m.up);
		g_free(m.first);
		g_free(m.gap0);
		g_free(m.gap1);
	}
	g_free(m.it);
	return ok;
}

/* The estimated outputs of a group's allocators, with their windows. */
static void group_estimated(const tl_memory *mem, const struct groups *gr, int32_t grp,
			    struct est *e)
{
	size_t n = 0;
	for (size_t a = 0; a < mem->n_allocators; a++)
		if (gr->of[a] == grp)
			n += mem->allocators[a].n_estimated;
	e->b = g_new(uint32_t, n + 1);
	e->lo = g_new(int64_t, n + 1);
	e->hi = g_new(int64_t, n + 1);
	e->n = 0;
	for (size_t a = 0; a < mem->n_allocators; a++) {
		const tl_allocator *al = &mem->allocators[a];
		for (size_t k = 0; k < al->n_buffers && gr->of[a] == grp && al->n_estimated > 0;
		     k++) {
			const tl_buffer *b = &mem->buffers[al->buffers[k]];
			if (!b->estimated || b->kind != TL_BUF_OUTPUT || e->n == n)
				continue;
			e->b[e->n] = al->buffers[k];
			e->lo[e->n] = b->window_lo;
			e->hi[e->n] = b->window_hi;
			if (e->lo[e->n] > e->hi[e->n])
				e->lo[e->n] = e->hi[e->n];
			e->n++;
		}
	}
}

/* One group: its estimated buffers' windows narrowed, or left as they
 * were when the records contradict the rule (false then). */
static bool narrow_group(tl_memory *mem, const struct groups *gr, int32_t grp, const GArray *joint,
			 GArray *pts)
{
	struct est e;
	group_estimated(mem, gr, grp, &e);
	g_array_set_size(pts, 0);
	const struct idpt *jp = (const struct idpt *)(const void *)joint->data;
	for (guint i = 0; i < joint->len && e.n > 0; i++)
		if (gr->of[jp[i].alloc] == grp)
			g_array_append_val(pts, jp[i]);
	if (pts->len > 1)
		tl_runsort(pts->data, pts->len, sizeof(struct idpt), before_idpt, NULL);
	struct gaps g = {(const struct idpt *)(const void *)pts->data, pts->len, NULL};
	g.ids = g_new(int64_t, g.n + 1);
	for (size_t j = 1; j < g.n; j++)
		g.ids[j] = g.p[j].id - g.p[j - 1].id - 1;
	g.ids[0] = g.ids[g.n] = INT64_MAX;
	bool ok = e.n > 0 && match_group(mem, gr, grp, &g, &e);
	for (size_t i = 0; i < e.n && ok; i++) {
		tl_buffer *b = &mem->buffers[e.b[i]];
		b->window_lo = b->birth_lo = e.lo[i];
		b->window_hi = b->birth_hi = e.hi[i];
	}
	g_free(e.b);
	g_free(e.lo);
	g_free(e.hi);
	g_free(g.ids);
	return ok || e.n == 0;
}

/* One sample instant of an allocator: the most the estimated buffers born
 * by then can hold (INT64_MAX: the sample says nothing). */
struct top {
	int64_t us;
	int64_t v; /* the dump's value, then the room it leaves */
};

static int cmp_top(const void *a, const void *b)
{
	const struct top *x = a, *y = b;
	if (x->us != y->us)
		return x->us < y->us ? -1 : 1;
	return x->v > y->v ? -1 : (x->v < y->v); /* the largest first */
}

static int cmp_i64(const void *a, const void *b)
{
	int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
	return x < y ? -1 : (x > y);
}

static bool before_top(const void *a, const void *b, void *ctx)
{
	(void)ctx;
	return cmp_top(a, b) < 0;
}

/* The dump's samples, and per allocator with estimated buffers its
 * samples one per instant (the largest value: the bound holds for it
 * whatever the others say), in time order: made once in one pass over
 * the samples (each allocator scanned them all and sorted its own up to
 * four times). */
struct samples_by {
	const GArray *all;
	GArray **tops; /* per allocator, or NULL */
};

static void samples_by_init(struct samples_by *s, const tl_memory *mem, const GArray *samples)
{
	s->all = samples;
	s->tops = g_new0(GArray *, mem->n_allocators + 1);
	for (size_t a = 0; a < mem->n_allocators; a++)
		if (mem->allocators[a].n_estimated > 0)
			s->tops[a] = g_array_new(FALSE, FALSE, sizeof(struct top));
	for (guint i = 0; i < samples->len; i++) {
		const struct dump_sample *d = &g_array_index(samples, struct dump_sample, i);
		if (d->allocator < mem->n_allocators && s->tops[d->allocator] != NULL &&
		    d->in_use > 0) {
			struct top x = {d->us, d->in_use};
			g_array_append_val(s->tops[d->allocator], x);
		}
	}
	for (size_t a = 0; a < mem->n_allocators; a++) {
		GArray *t = s->tops[a];
		if (t == NULL)
			continue;
		if (t->len > 1)
			tl_runsort(t->data, t->len, sizeof(struct top), before_top, NULL);
		guint n = 0;
		struct top *v = (struct top *)(void *)t->data;
		for (guint i = 0; i < t->len; i++)
			if (n == 0 || v[i].us != v[n - 1].us)
				v[n++] = v[i];
		g_array_set_size(t, n);
	}
}

static void samples_by_free(struct samples_by *s, size_t n_allocators)
{
	for (size_t a = 0; a < n_allocators; a++)
		if (s->tops[a] != NULL)
			g_array_free(s->tops[a], TRUE);
	g_free(s->tops);
}

/* A copy of allocator a's samples, one per instant, in time order. */
static GArray *tops_of(const struct samples_by *s, size_t a)
{
	const GArray *own = s->tops[a];
	guint n = own != NULL ? own->len : 0;
	GArray *t = g_array_sized_new(FALSE, FALSE, sizeof(struct top), n);
	if (n > 0)
		g_array_append_vals(t, own->data, n);
	return t;
}

/* Sum of sorted[*at ..] at or before t, added to sum. */
static int64_t sum_upto(const int64_t *sorted_us, const int64_t *size, size_t n, size_t *at,
			int64_t sum, int64_t t)
{
	for (; *at < n && sorted_us[*at] <= t; (*at)++)
		sum = add_sat(sum, size[*at]);
	return sum;
}

struct timed {
	int64_t us, size;
};

static int cmp_timed(const void *a, const void *b)
{
	return cmp_i64(a, b);
}

/* Times and sizes of the estimated buffers, by time (their frees, or
 * their windows' ends), as two parallel arrays. */
static void timed_of(const tl_memory *mem, const GArray *u, bool frees, int64_t *us, int64_t *size)
{
	struct timed *t = g_new(struct timed, u->len + 1);
	for (guint i = 0; i < u->len; i++) {
		const tl_buffer *b = &mem->buffers[g_array_index(u, uint32_t, i)];
		t[i] = (struct timed){frees ? b->free_us : b->window_hi, b->allocated};
	}
	qsort(t, u->len, sizeof *t, cmp_timed);
	for (guint i = 0; i < u->len; i++) {
		us[i] = t[i].us;
		size[i] = t[i].size;
	}
	g_free(t);
}

/* The room each sample leaves for births its records do not force: a
 * sample v at t says the allocator held v = K(t) + D(t) - F(t) + X(t)
 * (memory_band.c: K the recorded buffers, D the estimated bytes born by
 * t, F those freed by t, X >= 0 what no record explains), so D(t) <= v -
 * K(t) + F(t); less Dmin(t), the bytes whose windows end by t. A sample
 * that leaves less than nothing contradicts the records and says nothing
 * here. */
static size_t rooms(const tl_memory *mem, const tl_allocator *a, const GArray *u, GArray *tops)
{
	size_t n_short = 0;
	size_t n = u->len, i_free = 0, i_due = 0, hint = 0;
	int64_t *free_us = g_new(int64_t, n + 1), *free_sz = g_new(int64_t, n + 1);
	int64_t *due_us = g_new(int64_t, n + 1), *due_sz = g_new(int64_t, n + 1);
	timed_of(mem, u, true, free_us, free_sz);
	timed_of(mem, u, false, due_us, due_sz);
	int64_t f = 0, dmin = 0;
	for (guint k = 0; k < tops->len; k++) {
		struct top *x = &g_array_index(tops, struct top, k);
		f = sum_upto(free_us, free_sz, n, &i_free, f, x->us);
		dmin = sum_upto(due_us, due_sz, n, &i_due, dmin, x->us);
		int64_t room = add_sat(add_sat(x->v, -tl_memory_in_use_near(a, x->us, &hint)),
				       add_sat(f, -dmin));
		x->v = room < 0 ? INT64_MAX : room;
		n_short += room < 0;
	}
	g_free(free_us);
	g_free(free_sz);
	g_free(due_us);
	g_free(due_sz);
	return n_short;
}

/* The first sample at or after t. */
static size_t top_from(const GArray *tops, int64_t t)
{
	size_t lo = 0, hi = tops->len;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (g_array_index(tops, struct top, mid).us < t)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

/* The estimated outputs of allocator a. */
static GArray *estimated_list(const tl_memory *mem, const tl_allocator *a)
{
	GArray *u = g_array_new(FALSE, FALSE, sizeof(uint32_t));
	for (size_t k = 0; k < a->n_buffers; k++) {
		const tl_buffer *b = &mem->buffers[a->buffers[k]];
		if (b->estimated && b->kind == TL_BUF_OUTPUT)
			g_array_append_val(u, a->buffers[k]);
	}
	return u;
}

/* The samples of allocator a the windows leave no room for (below what
 * the records and the births due by then hold). */
static size_t shortfalls(const tl_memory *mem, const tl_allocator *a,
			 const struct samples_by *samples)
{
	GArray *u = estimated_list(mem, a);
	GArray *tops = tops_of(samples, (size_t)(a - mem->allocators));
	size_t n = rooms(mem, a, u, tops);
	g_array_free(tops, TRUE);
	g_array_free(u, TRUE);
	return n;
}

/* The rooms of the samples as a tree of minima (leaves from `n`): the
 * latest sample of a span with less room than a size is found in
 * O(log n), where a walk back over the samples took one step each (the
 * walks grew with the windows, 4.5 times faster than the run). */
struct room_tree {
	int64_t *min; /* node i: children 2i, 2i + 1; leaves n .. 2n - 1 */
	size_t n;     /* a power of two */
};

static void room_tree_init(struct room_tree *t, const GArray *tops)
{
	t->n = 1;
	while (t->n < tops->len)
		t->n *= 2;
	t->min = g_new(int64_t, 2 * t->n);
	for (size_t i = 0; i < t->n; i++)
		t->min[t->n + i] =
		    i < tops->len ? g_array_index(tops, struct top, i).v : INT64_MAX;
	for (size_t i = t->n; i-- > 1;)
		t->min[i] = t->min[2 * i] < t->min[2 * i + 1] ? t->min[2 * i] : t->min[2 * i + 1];
}

/* The last sample in lo .. hi whose room is below `size`, or SIZE_MAX:
 * the span cut into whole subtrees (those met from its right end, right
 * to left, then those from its left end, which lie left of them, in
 * reverse), the first one with room below `size` followed down, right
 * child first. */
static size_t room_tree_last_below(const struct room_tree *t, size_t lo, size_t hi, int64_t size)
{
	size_t l = lo + t->n, r = hi + t->n + 1; /* the span [l, r) of leaves */
	size_t left[64], n_left = 0, hit = 0;
	while (l < r && hit == 0) {
		if (r & 1) {
			r--;
			if (t->min[r] < size)
				hit = r;
		}
		if (l & 1)
			left[n_left++] = l++;
		l /= 2;
		r /= 2;
	}
	while (hit == 0 && n_left > 0) {
		n_left--;
		if (t->min[left[n_left]] < size)
			hit = left[n_left];
	}
	if (hit == 0)
		return SIZE_MAX;
	while (hit < t->n)
		hit = t->min[2 * hit + 1] < size ? 2 * hit + 1 : 2 * hit;
	return hit - t->n;
}

/* An estimated buffer that a sample inside its window has no room for
 * (its window not ending by the sample, its bytes more than the room
 * left) was not born by that sample: its window starts after the latest
 * such sample. Windows only start later here, so Dmin and the rooms stay
 * as they were. Whether a window moved. */
static bool exclude_allocator(tl_memory *mem, const tl_allocator *a,
			      const struct samples_by *samples, size_t *budget)
{
	GArray *u = estimated_list(mem, a);
	GArray *tops = tops_of(samples, (size_t)(a - mem->allocators));
	rooms(mem, a, u, tops);
	bool moved = false;
	struct room_tree rt;
	room_tree_init(&rt, tops);
	for (guint i = 0; i < u->len; i++) {
		tl_buffer *b = &mem->buffers[g_array_index(u, uint32_t, i)];
		size_t from = top_from(tops, b->window_lo), k = top_from(tops, b->window_hi);
		/* the samples a walk back from k looked at within the
		 * budget, charged one step each but the one it stopped at:
		 * the budget runs out where it did, and the windows are
		 * those the walk gave */
		if (k <= from || *budget == 0)
			continue;
		size_t lo = k - from > *budget ? k - *budget : from;
		size_t j = room_tree_last_below(&rt, lo, k - 1, b->allocated);
		if (j == SIZE_MAX) {
			*budget -= k - lo;
			continue;
		}
		*budget -= k - 1 - j;
		b->window_lo = b->birth_lo = g_array_index(tops, struct top, j).us + 1;
		moved = true;
	}
	g_free(rt.min);
	g_array_free(tops, TRUE);
	g_array_free(u, TRUE);
	return moved;
}

/* Windows moved by the samples alone, within the budget. */
static void exclude_all(tl_memory *mem, const struct samples_by *samples, bool *moved)
{
	size_t budget = 64 * (mem->n_buffers + samples->all->len) + ((size_t)1 << 20);
	for (size_t a = 0; a < mem->n_allocators; a++)
		if (mem->allocators[a].n_estimated > 0 &&
		    exclude_allocator(mem, &mem->allocators[a], samples, &budget))
			*moved = true;
}

/* The estimated windows as the records gave them, to go back to. */
struct saved {
	uint32_t *b;
	int64_t *lo, *hi;
	size_t n;
};

static void save_windows(const tl_memory *mem, struct saved *s)
{
	s->n = 0;
	for (size_t i = 0; i < mem->n_buffers; i++)
		s->n += mem->buffers[i].estimated;
	s->b = g_new(uint32_t, s->n + 1);
	s->lo = g_new(int64_t, s->n + 1);
	s->hi = g_new(int64_t, s->n + 1);
	s->n = 0;
	for (size_t i = 0; i < mem->n_buffers; i++)
		if (mem->buffers[i].estimated) {
			s->b[s->n] = (uint32_t)i;
			s->lo[s->n] = mem->buffers[i].window_lo;
			s->hi[s->n++] = mem->buffers[i].window_hi;
		}
}

/* The groups whose ids leave some sample less room than the records
 * alone (the dump's ids do not follow the rule there, or the samples say
 * otherwise) go back to the windows the records give. Whether one did. */
static bool revert_groups(tl_memory *mem, const struct groups *gr, const size_t *short0,
			  const struct samples_by *samples, const struct saved *s, bool *bad)
{
	/* bad: set for the groups reverted here (others may be set already) */
	bool *rev = g_new0(bool, (size_t)gr->n + 1);
	bool any = false;
	for (size_t a = 0; a < mem->n_allocators; a++) {
		const tl_allocator *al = &mem->allocators[a];
		if (gr->of[a] >= 0 && al->n_estimated > 0 && !rev[gr->of[a]] &&
		    shortfalls(mem, al, samples) > short0[a])
			rev[gr->of[a]] = bad[gr->of[a]] = any = true;
	}
	for (size_t i = 0; i < s->n && any; i++) {
		tl_buffer *b = &mem->buffers[s->b[i]];
		for (size_t a = 0; a < mem->n_allocators; a++)
			if (mem->allocators[a].name == b->allocator && gr->of[a] >= 0 &&
			    rev[gr->of[a]]) {
				b->window_lo = b->birth_lo = s->lo[i];
				b->window_hi = b->birth_hi = s->hi[i];
			}
	}
	g_free(rev);
	return any;
}

/* The gaps of the groups whose ids held (bad: those that did not), for
 * the band (memory_band.c). */
static struct id_gaps *export_gaps(const tl_memory *mem, const struct groups *gr,
				   const GArray *joint, const bool *bad)
{
	struct id_gaps *x = g_new0(struct id_gaps, 1);
	x->group_of = g_new(int32_t, mem->n_allocators + 1);
	for (size_t a = 0; a < mem->n_allocators; a++)
		x->group_of[a] = gr->of[a] >= 0 && !bad[gr->of[a]] ? gr->of[a] : -1;
	x->n_groups = (size_t)gr->n;
	x->first = g_new0(size_t, (size_t)gr->n + 1);
	x->lo = g_new(int64_t, joint->len + (size_t)gr->n + 1);
	x->hi = g_new(int64_t, joint->len + (size_t)gr->n + 1);
	x->ids = g_new(int64_t, joint->len + (size_t)gr->n + 1);
	GArray *pts = g_array_new(FALSE, FALSE, sizeof(struct idpt));
	const struct idpt *jp = (const struct idpt *)(const void *)joint->data;
	size_t n = 0;
	for (int32_t grp = 0; grp < gr->n; grp++) {
		x->first[grp] = n;
		g_array_set_size(pts, 0);
		for (guint i = 0; i < joint->len && !bad[grp]; i++)
			if (gr->of[jp[i].alloc] == grp)
				g_array_append_val(pts, jp[i]);
		const struct idpt *q = (const struct idpt *)(const void *)pts->data;
		size_t sorted = 1;
		while (sorted < pts->len && cmp_idpt(&q[sorted - 1], &q[sorted]) <= 0)
			sorted++;
		if (sorted < pts->len)
			qsort(pts->data, pts->len, sizeof(struct idpt), cmp_idpt);
		struct gaps g = {(const struct idpt *)(const void *)pts->data, pts->len, NULL};
		for (size_t j = 0; j <= g.n && g.n > 0; j++, n++) {
			x->lo[n] = gap_lo(&g, j);
			x->hi[n] = gap_hi(&g, j);
			x->ids[n] = j == 0 || j == g.n ? INT64_MAX : g.p[j].id - g.p[j - 1].id - 1;
		}
	}
	x->first[gr->n] = n;
	g_array_free(pts, TRUE);
	return x;
}

void tl_memory_id_gaps_free(struct id_gaps *x)
{
	if (x == NULL)
		return;
	g_free(x->group_of);
	g_free(x->first);
	g_free(x->lo);
	g_free(x->hi);
	g_free(x->ids);
	g_free(x);
}

struct id_gaps *tl_memory_ids_narrow(tl_memory *mem, const GArray *all)
{
	struct samples_by by;
	samples_by_init(&by, mem, all);
	const struct samples_by *samples = &by;
	GArray *joint = g_array_new(FALSE, FALSE, sizeof(struct idpt));
	struct groups gr;
	make_groups(mem, &gr, joint);
	struct saved s;
	save_windows(mem, &s);
	size_t *short0 = g_new0(size_t, mem->n_allocators + 1);
	for (size_t a = 0; a < mem->n_allocators; a++)
		if (gr.of[a] >= 0 && mem->allocators[a].n_estimated > 0)
			short0[a] = shortfalls(mem, &mem->allocators[a], samples);
	GArray *pts = g_array_new(FALSE, FALSE, sizeof(struct idpt));
	bool *bad = g_new0(bool, (size_t)gr.n + 1);
	for (int32_t grp = 0; grp < gr.n; grp++)
		bad[grp] = !narrow_group(mem, &gr, grp, joint, pts);
	bool moved = false;
	exclude_all(mem, samples, &moved);
	for (int32_t grp = 0; grp < gr.n && moved; grp++)
		if (!narrow_group(mem, &gr, grp, joint, pts))
			bad[grp] = true;
	if (revert_groups(mem, &gr, short0, samples, &s, bad))
		exclude_all(mem, samples, &moved);
	struct id_gaps *x = export_gaps(mem, &gr, joint, bad);
	g_free(bad);
	g_free(short0);
	g_free(s.b);
	g_free(s.lo);
	g_free(s.hi);
	g_array_free(pts, TRUE);
	g_array_free(joint, TRUE);
	g_free(gr.of);
	samples_by_free(&by, mem->n_allocators);
	return x;
}
