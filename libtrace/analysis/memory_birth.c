/*
 * memory_birth: the births the dump does not hold, those of the buffers of
 * unrecorded _Recv nodes (memory_recv.c), placed per allocator by its
 * allocator_bytes_in_use samples.
 *
 * The estimated buffers of an allocator are born together. Buffers of one
 * size are interchangeable for every sum, so what the samples decide is,
 * per size, how many were born by each sample; within a size the earliest
 * deadlines (birth_hi, the latest birth possible) are born first. Every buffer dead by
 * a sample was born by then (a birth is never after its deadline, nor its
 * deadline after its death), so a sample of allocator_bytes_in_use says
 * exactly how many bytes were born by then: the dump's value, less the
 * curve of the other buffers, plus the bytes of the estimated buffers
 * already dead. The samples are walked from the last: at the end of the
 * step every buffer was born; going back, each sample says how many bytes
 * were born after it, and those are unborn there: the fewest buffers whose
 * sizes meet it exactly (at most SET_MAX, in the order of their _Send's
 * start, latest first), else an exact fill of many by dynamic programming,
 * never one whose deadline has passed. Walking back, the uncertain bursts
 * of the step start (many receives before the first sample) come last,
 * where a wrong guess cannot spoil the samples after them. Each buffer
 * keeps the window between the samples around its birth (birth_lo,
 * birth_hi) and is born at its start. A sample that cannot be met sends the
 * choice back to an earlier-walked sample that had another exact set (at
 * most RERUN_MAX walks); the walk that met the most samples stands. A walk
 * is O(S + U log U) for S samples and U estimated buffers, plus searches
 * bounded per walk by a budget linear in S + U (each look at the K sizes
 * costs K) and DP_MAX for the exact fills.
 */
#include "analysis/memory_internal.h"

#include <glib.h>
#include <stdlib.h>
#include <string.h>

#define ALT_MAX 4		 /* exact sets one sample may try */
#define RERUN_MAX 16		 /* walks per allocator after the first */
#define SET_MAX 3		 /* buffers in one exact set searched for */
#define SEARCH_STEPS 4096	 /* set-search steps per sample */
#define DP_MAX ((size_t)1 << 22) /* 64-bit words of one exact fill's bitsets */
#define FILL_ORDERS 4		 /* orders an exact fill may try */

struct sample {
	int64_t us;
	int64_t residual; /* the dump's in-use minus the curve without estimates */
};

static int cmp_sample(const void *a, const void *b)
{
	const struct sample *x = a, *y = b;
	if (x->us != y->us)
		return x->us < y->us ? -1 : 1;
	return x->residual < y->residual ? -1 : (x->residual > y->residual);
}

/* The estimated buffers of one size. */
struct klass {
	int64_t size;
	uint32_t *m; /* members (positions in placer.u), by deadline */
	size_t n;
	size_t born;  /* m[0 .. born) are born by the sample being walked */
	size_t due;   /* m[0 .. due) have their deadline by then */
	size_t used;  /* members the set being built unbears */
	size_t rank;  /* position in the search's order ... */
	size_t stamp; /* ... when this is the search's stamp */
};

struct placer {
	tl_buffer *bufs;
	const struct sample *s; /* one per instant, by time */
	size_t n_s;
	uint32_t *u; /* the estimated buffers */
	size_t n_u;
	int64_t *lo0, *hi0; /* per position in u: the windows before any sample */
	tl_birth *birth0;   /* pinned or unconstrained */
	size_t *step_of;    /* the walk step that unbore it (n_s: born by the first sample) */
	struct klass *k;
	size_t n_k;
	uint32_t *members;    /* the classes' member lists, end to end */
	GHashTable *by_size;  /* size -> class */
	uint32_t *by_free;    /* positions by free time */
	uint32_t *by_due;     /* positions by deadline */
	uint32_t *class_of;   /* per position: its class */
	struct klass **order; /* the classes one search looks at */
	size_t n_order;
	size_t stamp;
	size_t steps;	 /* set-search steps left in this walk */
	size_t dp_steps; /* exact-fill bitset words left in this walk */
	uint8_t *alt;	 /* per walk step: which exact set to take */
	uint8_t *n_alt;	 /* per walk step: exact sets (or fill orders) to try */
	uint8_t *missed; /* per walk step: the sample not met */
	size_t misses;
	struct mark *mark; /* per walk step: the walk's state as it began */
};

/* What a walk step starts from, besides the buffers' windows and the
 * classes' counts (both rebuilt from step_of and the positions), so that a
 * walk whose choices change at step c starts again from there: the steps
 * before c made the same choices, and so are what they were. */
struct mark {
	int64_t total, dead;
	size_t steps, dp_steps, n_dead, n_due, misses;
};

static tl_buffer *member(const struct placer *p, uint32_t pos)
{
	return &p->bufs[p->u[pos]];
}

/* Narrows a buffer's window to [lo, hi] and bears it there. */
static void place(struct placer *p, uint32_t pos, int64_t lo, int64_t hi)
{
	tl_buffer *b = member(p, pos);
	if (lo < b->birth_lo)
		lo = b->birth_lo;
	if (hi > b->birth_hi)
		hi = b->birth_hi;
	if (lo > hi)
		lo = hi;
	b->birth_lo = lo;
	b->birth_hi = hi;
	/* no sample says anything: the least it can have lived */
	b->alloc_us = b->birth == TL_BIRTH_UNCONSTRAINED ? hi : lo;
}

/* Members a class can unbear at this sample: born, deadline not passed. */
static size_t spare(const struct klass *c)
{
	return c->born - c->due - c->used;
}

/* Exact sets: multisets of sizes summing to a need, fewest buffers first,
 * then in the search's order. */
struct search {
	struct placer *p;
	size_t steps;
	size_t want; /* the index of the set to keep */
	size_t found;
	size_t depth;
	struct klass *stack[SET_MAX];
	struct klass *keep[SET_MAX];
	size_t n_keep;
};

static void found_set(struct search *s)
{
	if (s->found == s->want || s->found == 0) {
		memcpy(s->keep, s->stack, s->depth * sizeof *s->stack);
		s->n_keep = s->depth;
	}
	s->found++;
}

/* Sets of `left` more buffers from order[from ..] summing to `need`. */
static void sets(struct search *s, size_t from, size_t left, int64_t need)
{
	struct placer *p = s->p;
	if (s->found >= ALT_MAX || s->steps == 0)
		return;
	if (left == 1) {
		s->steps--;
		struct klass *c = g_hash_table_lookup(p->by_size, &need);
		if (c == NULL || c->stamp != p->stamp || c->rank < from || spare(c) == 0)
			return;
		s->stack[s->depth++] = c;
		found_set(s);
		s->depth--;
		return;
	}
	for (size_t i = from; i < p->n_order && s->found < ALT_MAX && s->steps > 0; i++) {
		s->steps--;
		struct klass *c = p->order[i];
		if (spare(c) == 0 || c->size >= need)
			continue;
		c->used++;
		s->stack[s->depth++] = c;
		sets(s, i, left - 1, need - c->size);
		s->depth--;
		c->used--;
	}
}

/* The next member a class would unbear: its born one with the latest
 * deadline. Classes whose next one was sent last come first (data sent
 * late arrives late), then the latest deadline, then the larger size. */
static int cmp_unbear(const void *a, const void *b, void *ctx)
{
	const struct placer *p = ctx;
	const struct klass *x = *(struct klass *const *)a, *y = *(struct klass *const *)b;
	const tl_buffer *bx = member(p, x->m[x->born - 1]), *by = member(p, y->m[y->born - 1]);
	if (bx->sent_us != by->sent_us)
		return bx->sent_us > by->sent_us ? -1 : 1;
	if (bx->birth_hi != by->birth_hi)
		return bx->birth_hi > by->birth_hi ? -1 : 1;
	return x->size > y->size ? -1 : (x->size < y->size);
}

static int cmp_class_size(const void *a, const void *b)
{
	const struct klass *x = *(struct klass *const *)a, *y = *(struct klass *const *)b;
	return x->size > y->size ? -1 : (x->size < y->size);
}

/* The classes a need can draw on, in the order above; false when the
 * walk's search budget cannot pay for looking at every class. */
static bool search_order(struct placer *p, int64_t need)
{
	p->n_order = 0;
	if (p->steps < p->n_k)
		return false;
	p->steps -= p->n_k;
	p->stamp++;
	for (size_t i = 0; i < p->n_k; i++) {
		struct klass *c = &p->k[i];
		if (c->size > 0 && c->size <= need && spare(c) > 0)
			p->order[p->n_order++] = c;
	}
	qsort_r(p->order, p->n_order, sizeof *p->order, cmp_unbear, p);
	for (size_t i = 0; i < p->n_order; i++) {
		p->order[i]->rank = i;
		p->order[i]->stamp = p->stamp;
	}
	return true;
}

static int64_t gcd64(int64_t a, int64_t b)
{
	while (b != 0) {
		int64_t r = a % b;
		a = b;
		b = r;
	}
	return a;
}

/* The bitsets of an exact fill, one row per item. */
struct reach {
	uint64_t *bits;
	size_t *top;  /* per row: words written; the words above are 0 */
	size_t words; /* per row */
};

static bool reach_has(const struct reach *r, size_t row, size_t sum)
{
	return sum / 64 < r->top[row] && (r->bits[row * r->words + sum / 64] >> (sum % 64) & 1);
}

/* Many births in one window (a burst at the step start): an exact sum
 * over the classes' spare members, by dynamic programming over the need in
 * units of the sizes' greatest common divisor (each class split into 1, 2,
 * 4... members), the search's order first. Sets c->used; false when there
 * is none or its bitsets would take more than DP_MAX words. */
static bool exact_fill(struct placer *p, int64_t need)
{
	int64_t unit = need;
	size_t n_items = 0;
	for (size_t i = 0; i < p->n_order; i++) {
		unit = gcd64(unit, p->order[i]->size);
		for (size_t c = spare(p->order[i]), piece = 1; c > 0; piece *= 2) {
			c -= piece < c ? piece : c;
			n_items++;
		}
	}
	size_t n = (size_t)(need / unit);
	size_t words = n / 64 + 1;
	if (n_items == 0 || words > DP_MAX / n_items || n_items * words > p->dp_steps)
		return false;
	p->dp_steps -= n_items * words;
	struct item {
		struct klass *c;
		size_t take;
		size_t w;
	} *items = g_new(struct item, n_items);
	size_t m = 0;
	for (size_t i = 0; i < p->n_order; i++) {
		struct klass *k = p->order[i];
		for (size_t c = spare(k), piece = 1; c > 0; piece *= 2) {
			size_t take = piece < c ? piece : c;
			items[m++] = (struct item){k, take, take * (size_t)(k->size / unit)};
			c -= take;
		}
	}
	/* reach[it]: the sums (bits 0..n) items before `it` make, one bitset
	 * per item so that the sum is taken apart again. Row `it` is written
	 * up to word top[it]; its words above are 0 (no sum of the items
	 * before reaches them), so neither written nor read. */
	struct reach r = {g_new(uint64_t, (n_items + 1) * words), g_new(size_t, n_items + 1),
			  words};
	r.bits[0] = 1;
	r.top[0] = 1;
	size_t used = 0; /* items looked at: the first whose bitset holds n */
	while (used < n_items && !reach_has(&r, used, n)) {
		const uint64_t *from = r.bits + used * words;
		uint64_t *to = r.bits + (used + 1) * words;
		size_t w = items[used].w, ws = w / 64, bs = w % 64, top = r.top[used];
		size_t t = top + ws + 1 < words ? top + ws + 1 : words;
		/* to = from | from << w, word by word */
		memcpy(to, from, top * sizeof *to);
		memset(to + top, 0, (t - top) * sizeof *to);
		for (size_t y = 0; y < top && y + ws < t; y++)
			to[y + ws] |= from[y] << bs;
		for (size_t y = 0; bs != 0 && y < top && y + ws + 1 < t; y++)
			to[y + ws + 1] |= from[y] >> (64 - bs);
		r.top[used + 1] = t;
		used++;
	}
	bool met = reach_has(&r, used, n);
	/* the last item needed for v is the first whose bitset holds v */
	for (size_t v = n; met && v > 0;) {
		size_t k = 0;
		while (!reach_has(&r, k + 1, v))
			k++;
		items[k].c->used += items[k].take;
		v -= items[k].w;
	}
	g_free(r.bits);
	g_free(r.top);
	g_free(items);
	return met;
}

static int cmp_class_size_up(const void *a, const void *b)
{
	return -cmp_class_size(a, b);
}

/* The orders an exact fill may take, each a choice a later sample can send
 * back to: the search's (latest _Send first), reversed, larger sizes
 * first, smaller sizes first. */
static void fill_order(struct placer *p, size_t which)
{
	if (which == 1) {
		for (size_t i = 0, j = p->n_order; i + 1 < j; i++, j--) {
			struct klass *x = p->order[i];
			p->order[i] = p->order[j - 1];
			p->order[j - 1] = x;
		}
	} else if (which == 2) {
		qsort(p->order, p->n_order, sizeof *p->order, cmp_class_size);
	} else if (which == 3) {
		qsort(p->order, p->n_order, sizeof *p->order, cmp_class_size_up);
	}
}

/* No exact set found: largest sizes first, each class gives as many as
 * fit, so the bytes come as close below the need as a first fit gets;
 * whether that meets it exactly. */
static bool fill(struct placer *p, int64_t need)
{
	qsort(p->order, p->n_order, sizeof *p->order, cmp_class_size);
	for (size_t i = 0; i < p->n_order && need > 0; i++) {
		struct klass *c = p->order[i];
		size_t m = (size_t)(need / c->size);
		if (m > spare(c))
			m = spare(c);
		c->used += m;
		need -= (int64_t)m * c->size;
	}
	return need == 0;
}

/* Walk step q, at sample time t (the next sample at `next`): `need` bytes
 * were born after t. The exact set alt[q] of a few buffers is unborn (the
 * first if there are fewer); with none, an exact fill of many; else the
 * closest fill, and the sample is missed. */
static bool unbear(struct placer *p, size_t q, int64_t need, int64_t t, int64_t next,
		   int64_t *unborn)
{
	*unborn = 0;
	p->n_alt[q] = 0;
	if (!search_order(p, need))
		return false;
	struct search s = {.p = p, .want = p->alt[q]};
	s.steps = p->steps < SEARCH_STEPS ? p->steps : SEARCH_STEPS;
	size_t budget = s.steps;
	for (size_t size = 1; size <= SET_MAX && s.found < ALT_MAX && s.steps > 0; size++)
		sets(&s, 0, size, need);
	p->steps -= budget - s.steps;
	p->n_alt[q] = (uint8_t)(s.found < ALT_MAX ? s.found : ALT_MAX);
	bool met = true;
	if (s.found > 0) {
		for (size_t i = 0; i < s.n_keep; i++)
			s.keep[i]->used++;
	} else {
		fill_order(p, p->alt[q]);
		if (exact_fill(p, need))
			p->n_alt[q] = FILL_ORDERS;
		else
			met = fill(p, need);
	}
	for (size_t i = 0; i < p->n_order; i++) {
		struct klass *c = p->order[i];
		*unborn += (int64_t)c->used * c->size;
		for (; c->used > 0; c->used--) {
			uint32_t pos = c->m[--c->born];
			place(p, pos, t + 1, next);
			p->step_of[pos] = q;
		}
	}
	return met;
}

/* One walk over the samples, from the last, with the choices in p->alt,
 * from step `from` on: the steps before it are the last walk's, whose
 * choices (p->alt[0 .. from)) were the same. A buffer unborn at a step
 * from `from` on, or born by the first sample (the walk's end), takes its
 * window before any sample again; the classes count again the members the
 * earlier steps unbore and the deadlines passed at `from`. */
static void walk(struct placer *p, size_t from)
{
	int64_t total = 0, dead = 0;
	size_t n_dead = p->n_u, n_due = p->n_u;
	if (from > p->n_s)
		from = p->n_s;
	for (size_t i = 0; i < p->n_k; i++)
		p->k[i].born = p->k[i].due = p->k[i].n;
	for (size_t i = 0; i < p->n_u; i++) {
		tl_buffer *b = member(p, (uint32_t)i);
		if (from > 0 && p->step_of[i] < from) {
			p->k[p->class_of[i]].born--;
			continue;
		}
		b->birth_lo = p->lo0[i];
		b->birth_hi = p->hi0[i];
		b->birth = p->birth0[i];
		p->step_of[i] = p->n_s;
		total = add_sat(total, b->allocated);
	}
	dead = total;
	p->misses = 0;
	p->steps = 256 * (p->n_s + p->n_u) + ((size_t)1 << 20);
	p->dp_steps = 4 * DP_MAX;
	if (from > 0) {
		const struct mark *m = &p->mark[from];
		total = m->total;
		dead = m->dead;
		p->steps = m->steps;
		p->dp_steps = m->dp_steps;
		n_dead = m->n_dead;
		n_due = m->n_due;
		p->misses = m->misses;
		for (size_t i = n_due; i < p->n_u; i++)
			p->k[p->class_of[p->by_due[i]]].due--;
	}
	for (size_t q = from; q < p->n_s; q++) {
		p->mark[q] =
		    (struct mark){total, dead, p->steps, p->dp_steps, n_dead, n_due, p->misses};
		size_t j = p->n_s - 1 - q;
		int64_t t = p->s[j].us;
		int64_t next = q > 0 ? p->s[j + 1].us : INT64_MAX;
		for (; n_dead > 0 && member(p, p->by_free[n_dead - 1])->free_us > t; n_dead--)
			dead -= member(p, p->by_free[n_dead - 1])->allocated;
		for (; n_due > 0 && member(p, p->by_due[n_due - 1])->birth_hi > t; n_due--)
			p->k[p->class_of[p->by_due[n_due - 1]]].due--;
		/* bytes born by t, and how many of ours were born since */
		int64_t need = add_sat(total, -add_sat(p->s[j].residual, dead));
		bool met = need == 0;
		p->n_alt[q] = 0;
		if (need > 0) {
			int64_t unborn = 0;
			met = unbear(p, q, need, t, next, &unborn);
			total -= unborn;
		}
		p->missed[q] = !met;
		p->misses += !met;
	}
	p->mark[p->n_s] =
	    (struct mark){total, dead, p->steps, p->dp_steps, n_dead, n_due, p->misses};
	int64_t first = p->n_s > 0 ? p->s[0].us : INT64_MAX;
	for (size_t i = 0; i < p->n_k; i++)
		for (size_t m = 0; m < p->k[i].born; m++)
			place(p, p->k[i].m[m], INT64_MIN, first);
}

/* The latest walk step before `miss` (and from `from` on) with an exact set
 * not tried yet, or SIZE_MAX. */
static size_t choice_before(const struct placer *p, size_t from, size_t miss)
{
	for (size_t c = miss; c-- > from;)
		if (p->alt[c] + 1 < p->n_alt[c])
			return c;
	return SIZE_MAX;
}

/* Walks until every sample is met or RERUN_MAX walks more were tried: at
 * the first miss not yet accepted, the latest earlier choice takes its
 * next exact set; a miss no choice before it can mend is accepted. The walk
 * with the fewest misses is the last one made. */
static void search_births(struct placer *p)
{
	walk(p, 0);
	size_t best = p->misses, accepted = 0;
	uint8_t *best_alt = g_memdup2(p->alt, p->n_s + 1);
	for (int r = 0; r < RERUN_MAX && p->misses > 0; r++) {
		size_t c = SIZE_MAX;
		for (size_t q = accepted; q < p->n_s && c == SIZE_MAX; q++) {
			if (!p->missed[q])
				continue;
			c = choice_before(p, accepted, q);
			if (c == SIZE_MAX)
				accepted = q + 1;
		}
		if (c == SIZE_MAX)
			break;
		p->alt[c]++;
		memset(p->alt + c + 1, 0, p->n_s - c - 1);
		walk(p, c);
		if (p->misses < best) {
			best = p->misses;
			memcpy(best_alt, p->alt, p->n_s);
		}
	}
	if (p->misses > best) {
		size_t d = 0;
		while (d < p->n_s && p->alt[d] == best_alt[d])
			d++;
		memcpy(p->alt, best_alt, p->n_s);
		walk(p, d);
	}
	g_free(best_alt);
}

/* Births next to a sample that could not be met: the samples contradict
 * them (or something the dump does not show). */
static void mark_contradicted(struct placer *p)
{
	for (size_t i = 0; i < p->n_u; i++) {
		size_t q = p->step_of[i];
		tl_buffer *b = member(p, (uint32_t)i);
		bool near =
		    (q < p->n_s && p->missed[q]) || (q > 0 && q <= p->n_s && p->missed[q - 1]);
		if (near && b->birth == TL_BIRTH_PINNED)
			b->birth = TL_BIRTH_CONTRADICTED;
	}
}

struct by_key {
	const struct placer *p;
	bool free; /* by free time, else by deadline */
};

static int cmp_pos(const void *a, const void *b, void *ctx)
{
	const struct by_key *k = ctx;
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
	const tl_buffer *bx = member(k->p, x), *by = member(k->p, y);
	int64_t vx = k->free ? bx->free_us : bx->birth_hi,
		vy = k->free ? by->free_us : by->birth_hi;
	if (vx != vy)
		return vx < vy ? -1 : 1;
	return x < y ? -1 : (x > y);
}

/* Whether some sample falls where the buffer may live, [birth_lo, free). */
static bool sampled(const struct placer *p, const tl_buffer *b)
{
	size_t lo = 0, hi = p->n_s; /* first sample at or after birth_lo */
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (p->s[mid].us < b->birth_lo)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < p->n_s && p->s[lo].us < b->free_us;
}

/* The classes: positions by deadline, cut where the size changes after a
 * stable sort by size. */
static void make_classes(struct placer *p)
{
	struct by_key key = {p, false};
	qsort_r(p->by_due, p->n_u, sizeof *p->by_due, cmp_pos, &key);
	p->by_size = g_hash_table_new(g_int64_hash, g_int64_equal);
	p->k = g_new0(struct klass, p->n_u + 1);
	p->members = g_new(uint32_t, p->n_u + 1);
	for (size_t i = 0; i < p->n_u; i++) {
		uint32_t pos = p->by_due[i];
		struct klass *c = g_hash_table_lookup(p->by_size, &member(p, pos)->allocated);
		if (c == NULL) {
			c = &p->k[p->n_k++];
			c->size = member(p, pos)->allocated;
			g_hash_table_insert(p->by_size, &c->size, c);
		}
		c->n++;
	}
	/* members of each class, in deadline order */
	size_t off = 0;
	for (size_t i = 0; i < p->n_k; i++) {
		p->k[i].m = p->members + off;
		off += p->k[i].n;
		p->k[i].n = 0;
	}
	for (size_t i = 0; i < p->n_u; i++) {
		uint32_t pos = p->by_due[i];
		struct klass *c = g_hash_table_lookup(p->by_size, &member(p, pos)->allocated);
		p->class_of[pos] = (uint32_t)(c - p->k);
		c->m[c->n++] = pos;
	}
	p->order = g_new(struct klass *, p->n_k + 1);
}

static void place_allocator(tl_memory *mem, tl_allocator *a, GArray *samples)
{
	/* one value per instant: the samples of one instant agree, or the dump
	 * contradicts itself and the check says so */
	if (samples->len > 1)
		qsort(samples->data, samples->len, sizeof(struct sample), cmp_sample);
	struct sample *s = (struct sample *)(void *)samples->data;
	size_t n_s = 0;
	for (guint i = 0; i < samples->len; i++)
		if (n_s == 0 || s[i].us != s[n_s - 1].us)
			s[n_s++] = s[i];
	struct placer p = {.bufs = mem->buffers, .s = s, .n_s = n_s};
	size_t n = a->n_estimated + 1;
	p.u = g_new(uint32_t, n);
	for (size_t i = 0; i < a->n_buffers; i++) {
		tl_buffer *b = &mem->buffers[a->buffers[i]];
		if (!b->estimated)
			continue;
		if (b->birth_lo > b->birth_hi)
			b->birth_lo = b->birth_hi;
		p.u[p.n_u++] = a->buffers[i];
	}
	p.lo0 = g_new(int64_t, n);
	p.hi0 = g_new(int64_t, n);
	p.birth0 = g_new(tl_birth, n);
	p.step_of = g_new(size_t, n);
	p.by_free = g_new(uint32_t, n);
	p.by_due = g_new(uint32_t, n);
	p.class_of = g_new(uint32_t, n);
	for (size_t i = 0; i < p.n_u; i++) {
		const tl_buffer *b = member(&p, (uint32_t)i);
		p.lo0[i] = b->birth_lo;
		p.hi0[i] = b->birth_hi;
		p.birth0[i] = sampled(&p, b) ? TL_BIRTH_PINNED : TL_BIRTH_UNCONSTRAINED;
		p.by_free[i] = p.by_due[i] = (uint32_t)i;
	}
	struct by_key key = {&p, true};
	qsort_r(p.by_free, p.n_u, sizeof *p.by_free, cmp_pos, &key);
	make_classes(&p);
	p.alt = g_new0(uint8_t, n_s + 1);
	p.n_alt = g_new0(uint8_t, n_s + 1);
	p.missed = g_new0(uint8_t, n_s + 1);
	p.mark = g_new(struct mark, n_s + 1);
	search_births(&p);
	mark_contradicted(&p);
	for (size_t i = 0; i < p.n_u; i++)
		if (member(&p, (uint32_t)i)->birth != TL_BIRTH_PINNED)
			a->n_unplaced++;
	g_hash_table_destroy(p.by_size);
	g_free(p.members);
	g_free(p.k);
	g_free(p.order);
	g_free(p.alt);
	g_free(p.n_alt);
	g_free(p.missed);
	g_free(p.mark);
	g_free(p.lo0);
	g_free(p.hi0);
	g_free(p.birth0);
	g_free(p.step_of);
	g_free(p.by_free);
	g_free(p.by_due);
	g_free(p.class_of);
	g_free(p.u);
}

struct collected {
	GArray **samples; /* per allocator with estimated buffers: struct sample */
	size_t *hint;	  /* per allocator: where its last sample fell */
};

static void collect_sample(tl_memory *mem, tl_allocator *a, int64_t us, int64_t in_use, void *ctx)
{
	struct collected *c = ctx;
	size_t k = (size_t)(a - mem->allocators);
	if (c->samples[k] == NULL)
		return;
	int64_t ours = tl_memory_in_use_near(a, us, &c->hint[k]);
	struct sample s = {us, add_sat(in_use, ours == INT64_MIN ? INT64_MAX : -ours)};
	g_array_append_val(c->samples[k], s);
}

/* Births of the estimated buffers of every allocator that has some, from
 * the curves built without them. */
void tl_memory_birth_place(tl_memory *mem, const GArray *all)
{
	GArray **samples = g_new0(GArray *, mem->n_allocators + 1);
	for (size_t a = 0; a < mem->n_allocators; a++)
		if (mem->allocators[a].n_estimated > 0)
			samples[a] = g_array_new(FALSE, FALSE, sizeof(struct sample));
	struct collected c = {samples, g_new0(size_t, mem->n_allocators + 1)};
	tl_memory_curve_each_sample(mem, all, collect_sample, &c);
	g_free(c.hint);
	for (size_t a = 0; a < mem->n_allocators; a++) {
		if (samples[a] == NULL)
			continue;
		place_allocator(mem, &mem->allocators[a], samples[a]);
		g_array_free(samples[a], TRUE);
	}
	g_free(samples);
}
