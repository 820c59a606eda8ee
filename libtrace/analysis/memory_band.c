/*
 * memory_band: per allocator, the curve made to meet every
 * allocator_bytes_in_use sample the records allow, the part of it no
 * record explains, the samples the records alone exceed, and the band:
 * the least and the most the allocator can have held at every instant.
 *
 * Terms. K(t): the recorded buffers' bytes in use after every event at t
 * (exact). The estimated buffers i (unrecorded _Recv outputs) have known
 * sizes s_i and frees f_i and a birth b_i the records only bound:
 * lo_i <= b_i <= hi_i <= f_i (window_lo, window_hi; memory_recv.c, narrowed
 * by the allocation ids and the samples in memory_ids.c). Let
 *   D(t) = sum of s_i with b_i <= t       (bytes born by t, nondecreasing)
 *   F(t) = sum of s_i with f_i <= t       (known)
 * Every buffer dead by t was born by then (b_i <= hi_i <= f_i), so their
 * bytes in use are U(t) = D(t) - F(t), and the allocator held
 *   H(t) = K(t) + D(t) - F(t) + X(t)
 * where X is memory no record explains (X >= 0). The windows alone give
 *   Dmin(t) = sum s_i with hi_i <= t  <=  D(t)  <=  Dmax(t) = sum s_i with lo_i <= t.
 *
 * Samples. A sample v_k at t_k fixes H(t_k) = v_k. With the placed births
 * (memory_birth.c) the curve is C(t) = K(t) + Dp(t) - F(t), Dp the placed
 * D. Its residual r_k = v_k - C(t_k) is what the sample shows beyond the
 * placement.
 *   - r_k < 0: the placement bears too much by t_k. Births that may come
 *     later (hi_i > t_k) and were placed at or before t_k move to t_k + 1,
 *     the latest placed first: that lowers C at t_k and at earlier
 *     samples only (which it leaves at or below their value, the walk
 *     being in time order), never at later ones. When every such birth
 *     has moved and C(t_k) is still above v_k, the records alone hold
 *     more than the sample, K(t_k) + Dmin(t_k) - F(t_k) > v_k: a
 *     contradiction, reported with its excess.
 *   - r_k > 0: memory the placement does not explain; it is the
 *     unattributed part X, a step of r_k from t_k to the next sample (0
 *     before the first sample and after the step's end). The curve,
 *     C + X, then meets every sample that is not a contradiction.
 * We take the least X the samples show (the placed births explain all
 * they can): where r_k = 0, D(t_k) is P_k = Dp(t_k); where r_k > 0, D(t_k)
 * lies in [Dmin(t_k), min(P_k + r_k, Dmax(t_k))] and X(t_k) = v_k - K(t_k)
 * + F(t_k) - D(t_k). So every sample k that is met pins D(t_k) to a range
 * [A_k, C_k] (made monotone: A_k >= A_{k-1}, C_k <= C_{k+1}, D being
 * nondecreasing).
 *
 * The band. For t_k <= t < t_{k+1} (t_0 = -inf, no pin; after the last
 * pin no t_{k+1}):
 *   D(t) >= Dmin(t)
 *   D(t) >= A_k + sum s_i with lo_i > t_k, hi_i <= t
 *          (born after t_k, since not possible by then, and by t, being due)
 *   D(t) <= Dmax(t)
 *   D(t) <= C_{k+1} - sum s_i with lo_i > t, hi_i <= t_{k+1}
 *          (due by t_{k+1} but not possible by t)
 *   D(t) <= C_k + (Dmax(t) - Dmin(t_k)), and D(t_k) <= C_k
 *          (born by t_k, or born after it: then not due by it, possible by t)
 * and H(t) = C(t) + X(t) + (D(t) - Dp(t)) + (X_true - X): with the sample
 * k's range, X_true - X lies in [P_k - C_k, P_k - A_k]. So
 *   low(t)  = curve(t) - Dp(t) + Dlow(t)  + (P_k - C_k)
 *   high(t) = curve(t) - Dp(t) + Dhigh(t) + (P_k - A_k)
 * and, where the allocation ids follow the rule (memory_ids.c), by the
 * room they leave (struct room below): the births between two pins
 * number at most the ids of the gaps there, so
 *   D(t) <= C_k + the largest R(t_k, t) estimated sizes possible there
 *   D(t) >= A_{k+1} - the largest R(t, t_{k+1}) sizes possible there
 * with R(x, y) the ids of the gaps whose windows meet (x, y], less the
 * other allocations held to those gaps (a joint matching of the births
 * into the ids would be exact; this counts them, which bounds it, and
 * each bound stops where it cannot narrow the band, within a budget
 * linear in the group, where it gives no bound);
 * each bound a sum of bounds every true history meets: the truth lies in
 * the band whenever the records hold (sizes, frees, windows) and the
 * samples say what they say. The placed births may weigh more by t than
 * these bounds allow (each birth fits its window, but the ids leave no
 * room for all of them by t): then births placed by t move to the next
 * instant of the band, between the same samples and inside their windows
 * (unplace), so the curve is a history the bounds allow where it can be,
 * and the band, which holds the curve, is not widened around it. Where
 * every pin is exact and no window is open, low == high == curve. The
 * true peak lies in [max low, max high].
 * Each bound is a running sum over the estimated buffers sorted by lo,
 * hi and placed birth, swept once with the curve's points and the pins:
 * O((n + m) log(n + m)) for n curve points and m estimated buffers.
 */
#include "analysis/memory_internal.h"
#include "base/warn.h"

#include <glib.h>
#include <stdlib.h>
#include <string.h>

/* One sample instant of an allocator: the dump's value. */
struct smp {
	int64_t us;
	int64_t v;
};

/* The first of n samples (in time order) at or after us: n where none. */
static size_t smp_first_at(const struct smp *s, size_t n, int64_t us)
{
	size_t lo = 0, hi = n;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (s[mid].us < us)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

/* A pinned sample: D(t) at it lies in [a, c]; p the placed D. */
struct pin {
	int64_t us;
	int64_t p, a, c;
};

/* An estimated buffer's instant (lo, hi or placed birth) and its size. */
struct mark {
	int64_t us;
	int64_t size;
	int64_t lo, hi; /* its window, for the sums the bounds take */
	uint32_t buf;	/* the buffer */
};

static int cmp_smp(const void *a, const void *b)
{
	const struct smp *x = a, *y = b;
	if (x->us != y->us)
		return x->us < y->us ? -1 : 1;
	return x->v < y->v ? -1 : (x->v > y->v);
}

static int cmp_mark(const void *a, const void *b)
{
	const struct mark *x = a, *y = b;
	return x->us < y->us ? -1 : (x->us > y->us);
}

static int cmp_i64(const void *a, const void *b)
{
	int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
	return x < y ? -1 : (x > y);
}

/* The samples of every allocator the band has work on, per allocator,
 * one per instant (the least where the dump gives several at one
 * instant), in time order; NULL for the others. */
static GArray **samples_by_allocator(tl_memory *mem, const GArray *samples)
{
	/* only the allocators the band has work on: estimated births, or a
	 * sample off the curve (one walk of the curves, as the check's) */
	bool *busy = g_new0(bool, mem->n_allocators + 1);
	size_t *hint = g_new0(size_t, mem->n_allocators + 1);
	for (size_t a = 0; a < mem->n_allocators; a++)
		busy[a] = mem->allocators[a].n_estimated > 0;
	for (guint i = 0; i < samples->len; i++) {
		const struct dump_sample *d = &g_array_index(samples, struct dump_sample, i);
		const tl_allocator *a = &mem->allocators[d->allocator];
		if (d->in_use > 0 && !busy[d->allocator] &&
		    tl_memory_in_use_near(a, d->us, &hint[d->allocator]) != d->in_use)
			busy[d->allocator] = true;
	}
	g_free(hint);
	GArray **by = g_new0(GArray *, mem->n_allocators + 1);
	for (guint i = 0; i < samples->len; i++) {
		const struct dump_sample *d = &g_array_index(samples, struct dump_sample, i);
		if (d->in_use <= 0 || !busy[d->allocator])
			continue;
		if (by[d->allocator] == NULL)
			by[d->allocator] = g_array_new(FALSE, FALSE, sizeof(struct smp));
		struct smp s = {d->us, d->in_use};
		g_array_append_val(by[d->allocator], s);
	}
	for (size_t a = 0; a < mem->n_allocators; a++) {
		GArray *s = by[a];
		if (s == NULL)
			continue;
		if (s->len > 1)
			qsort(s->data, s->len, sizeof(struct smp), cmp_smp);
		guint n = 0;
		for (guint i = 0; i < s->len; i++)
			if (n == 0 || g_array_index(s, struct smp, i).us !=
					  g_array_index(s, struct smp, n - 1).us)
				g_array_index(s, struct smp, n++) = g_array_index(s, struct smp, i);
		g_array_set_size(s, n);
	}
	g_free(busy);
	return by;
}

/* The estimated buffers of an allocator that hold memory at some instant. */
static GArray *estimated_of(tl_memory *mem, const tl_allocator *a)
{
	GArray *u = g_array_new(FALSE, FALSE, sizeof(uint32_t));
	for (size_t k = 0; k < a->n_buffers && a->n_estimated > 0; k++) {
		tl_buffer *b = &mem->buffers[a->buffers[k]];
		if (!b->estimated || b->kind == TL_BUF_PERSISTENT)
			continue;
		if (b->window_lo > b->window_hi)
			b->window_lo = b->window_hi;
		g_array_append_val(u, a->buffers[k]);
	}
	return u;
}

/* Latest placed birth first; the larger first among equal births. */
static int cmp_latest(const void *a, const void *b, void *ctx)
{
	const tl_buffer *bufs = ctx;
	const tl_buffer *x = &bufs[*(const uint32_t *)a], *y = &bufs[*(const uint32_t *)b];
	if (x->alloc_us != y->alloc_us)
		return x->alloc_us > y->alloc_us ? -1 : 1;
	if (x->allocated != y->allocated)
		return x->allocated > y->allocated ? -1 : 1;
	return *(const uint32_t *)a < *(const uint32_t *)b ? -1 : 1;
}

/* Moves the birth of buffer b to t (after a sample at t - 1). */
static void delay_birth(tl_buffer *b, int64_t t)
{
	b->alloc_us = t;
	b->birth_lo = t;
	if (b->birth_hi < t)
		b->birth_hi = t;
	if (b->birth_hi > b->window_hi)
		b->birth_hi = b->window_hi;
}

/* Sample at t over the curve by `over`: births placed by t that may come
 * later move just after it, latest first, as many as it takes (those
 * that fit the excess first, then the smallest that covers the rest).
 * Whether some moved. */
static bool unbear(tl_memory *mem, const GArray *u, int64_t t, int64_t over)
{
	GArray *cand = g_array_new(FALSE, FALSE, sizeof(uint32_t));
	for (guint i = 0; i < u->len; i++) {
		uint32_t bi = g_array_index(u, uint32_t, i);
		const tl_buffer *b = &mem->buffers[bi];
		if (b->alloc_us <= t && b->window_hi > t && b->free_us > t &&
		    b->alloc_us < b->free_us)
			g_array_append_val(cand, bi);
	}
	if (cand->len > 1)
		g_qsort_with_data(cand->data, (gint)cand->len, sizeof(uint32_t), cmp_latest,
				  mem->buffers);
	bool moved = false;
	uint8_t *taken = g_new0(uint8_t, cand->len + 1);
	for (guint i = 0; i < cand->len && over > 0; i++) {
		tl_buffer *b = &mem->buffers[g_array_index(cand, uint32_t, i)];
		if (b->allocated > over)
			continue;
		over -= b->allocated;
		delay_birth(b, t + 1);
		taken[i] = 1;
		moved = true;
	}
	/* the rest: the smallest one that covers it */
	guint best = cand->len;
	for (guint i = 0; i < cand->len && over > 0; i++) {
		const tl_buffer *b = &mem->buffers[g_array_index(cand, uint32_t, i)];
		if (!taken[i] && b->allocated >= over &&
		    (best == cand->len ||
		     b->allocated < mem->buffers[g_array_index(cand, uint32_t, best)].allocated))
			best = i;
	}
	if (over > 0 && best < cand->len) {
		delay_birth(&mem->buffers[g_array_index(cand, uint32_t, best)], t + 1);
		moved = true;
	}
	g_free(taken);
	g_array_free(cand, TRUE);
	return moved;
}

/* Residuals of the samples against the curve: v - curve(t). */
static void residuals(const tl_allocator *a, const GArray *s, int64_t *r)
{
	size_t hint = 0;
	for (guint k = 0; k < s->len; k++) {
		const struct smp *x = &g_array_index(s, struct smp, k);
		r[k] = add_sat(x->v, -tl_memory_in_use_near(a, x->us, &hint));
	}
}

/* No sample above the curve where moving births can bring it down. */
static void repair(tl_memory *mem, tl_allocator *a, const GArray *s, const GArray *u)
{
	if (u->len == 0 || s->len == 0)
		return;
	int64_t *r = g_new(int64_t, s->len);
	residuals(a, s, r);
	bool moved = false;
	for (guint k = 0; k < s->len; k++)
		if (r[k] < 0 && unbear(mem, u, g_array_index(s, struct smp, k).us, -r[k]))
			moved = true;
	g_free(r);
	if (moved)
		tl_memory_curve_rebuild(mem, a);
}

/* Births move freely between two samples: no sample sees the difference.
 * Each estimated birth takes a place in the span between the samples
 * around it that its window allows: the likeliest one the run's recorded
 * receives suggest (guess_us, memory_recv.c), else a quarter of the way
 * from the span's start to its _Send's start (a _Recv starts when its
 * partition gets to it, soon after the step starts or its frame does, at
 * the latest about when its _Send starts), at the span's start when the
 * _Send is not known or started before it. Whether some birth moved. */
static bool settle(tl_memory *mem, const GArray *s, const GArray *u)
{
	const struct smp *sv = (const struct smp *)(void *)s->data;
	bool moved = false;
	for (guint i = 0; i < u->len; i++) {
		tl_buffer *b = &mem->buffers[g_array_index(u, uint32_t, i)];
		if (b->birth != TL_BIRTH_PINNED)
			continue; /* kept where the report says it is */
		size_t lo = smp_first_at(sv, s->len, b->alloc_us);
		int64_t from = lo > 0 ? add_sat(sv[lo - 1].us, 1) : b->window_lo;
		int64_t to = lo < s->len ? sv[lo].us : b->window_hi;
		from = from > b->window_lo ? from : b->window_lo;
		to = to < b->window_hi ? to : b->window_hi;
		if (from > to || b->alloc_us < from || b->alloc_us > to)
			continue;
		int64_t t;
		if (b->guess_us != INT64_MAX) {
			t = b->guess_us < from ? from : (b->guess_us > to ? to : b->guess_us);
		} else {
			int64_t sent = b->sent_us < to ? b->sent_us : to;
			t = sent > from ? from + (sent - from) / 4 : from;
		}
		if (t != b->alloc_us) {
			b->alloc_us = t;
			moved = true;
		}
	}
	return moved;
}

/* The unattributed step and the contradictions, from the residuals (in
 * r, as they were before the step); the curve rebuilt with the step. */
static void unattributed(tl_memory *mem, tl_allocator *a, const GArray *s, int64_t *r)
{
	residuals(a, s, r);
	GArray *un = g_array_new(FALSE, FALSE, sizeof(tl_point));
	GArray *co = g_array_new(FALSE, FALSE, sizeof(tl_point));
	int64_t cur = 0;
	for (guint k = 0; k < s->len; k++) {
		int64_t t = g_array_index(s, struct smp, k).us;
		int64_t x = r[k] > 0 ? r[k] : 0;
		if (r[k] < 0) {
			tl_point c = {.us = t, .bytes = -r[k]};
			g_array_append_val(co, c);
		}
		if (x != cur) {
			tl_point p = {.us = t, .bytes = x};
			g_array_append_val(un, p);
			cur = x;
		}
	}
	int64_t last = s->len > 0 ? g_array_index(s, struct smp, s->len - 1).us : 0;
	if (cur != 0 && mem->step_end_us > last) {
		tl_point p = {.us = mem->step_end_us, .bytes = 0};
		g_array_append_val(un, p);
	}
	a->n_contradictions = co->len;
	a->contradictions = (tl_point *)(void *)g_array_free(co, co->len == 0);
	a->n_unattributed = un->len;
	a->unattributed = (tl_point *)(void *)g_array_free(un, un->len == 0);
	if (a->n_unattributed > 0)
		tl_memory_curve_rebuild(mem, a);
	if (a->n_contradictions > 0)
		tl_warn("memory-contradiction",
			"allocator_bytes_in_use samples below what the records alone hold (the "
			"report's contradictions say where and by how much); the curve stays "
			"above them");
}

/* Zero width: the band is the curve. */
static void band_exact(tl_allocator *a)
{
	a->n_band = a->n_curve;
	a->band = g_new(tl_band_point, a->n_curve ? a->n_curve : 1);
	for (size_t i = 0; i < a->n_curve; i++)
		a->band[i] = (tl_band_point){a->curve[i].us, a->curve[i].bytes, a->curve[i].bytes};
	a->peak_low = a->peak_high = a->peak_bytes;
}

/* The marks of the estimated buffers by window start, window end and
 * placed birth, each sorted. */
static void marks_of(const tl_memory *mem, const GArray *u, struct mark *lo, struct mark *hi,
		     struct mark *born)
{
	for (guint i = 0; i < u->len; i++) {
		const tl_buffer *b = &mem->buffers[g_array_index(u, uint32_t, i)];
		struct mark m = {0, b->allocated, b->window_lo, b->window_hi,
				 g_array_index(u, uint32_t, i)};
		lo[i] = m;
		lo[i].us = b->window_lo;
		hi[i] = m;
		hi[i].us = b->window_hi;
		born[i] = m;
		born[i].us = b->alloc_us;
	}
	qsort(lo, u->len, sizeof *lo, cmp_mark);
	qsort(hi, u->len, sizeof *hi, cmp_mark);
	qsort(born, u->len, sizeof *born, cmp_mark);
}

/* Sum of the sizes of marks[0 .. n) at or before t, from *at on. */
static int64_t sum_to(const struct mark *m, size_t n, size_t *at, int64_t sum, int64_t t)
{
	for (; *at < n && m[*at].us <= t; (*at)++)
		sum += m[*at].size;
	return sum;
}

/* The pins: each met sample's range of D (see the top). */
static size_t make_pins(const struct smp *s, size_t n_s, const int64_t *r, const int64_t *resid0,
			const struct mark *lo, const struct mark *hi, const struct mark *born,
			size_t n_u, struct pin *pins)
{
	size_t ilo = 0, ihi = 0, ib = 0, n = 0;
	int64_t dmax = 0, dmin = 0, dp = 0;
	for (size_t k = 0; k < n_s; k++) {
		int64_t t = s[k].us;
		dmax = sum_to(lo, n_u, &ilo, dmax, t);
		dmin = sum_to(hi, n_u, &ihi, dmin, t);
		dp = sum_to(born, n_u, &ib, dp, t);
		if (r[k] < 0)
			continue; /* a contradiction pins nothing */
		struct pin p = {.us = t, .p = dp, .a = dp, .c = dp};
		if (resid0[k] > 0) {
			p.a = dmin < dp ? dmin : dp;
			int64_t c = add_sat(dp, resid0[k]);
			p.c = c < dmax ? c : dmax;
			if (p.c < dp)
				p.c = dp;
		}
		pins[n++] = p;
	}
	for (size_t k = 1; k < n; k++)
		if (pins[k].a < pins[k - 1].a)
			pins[k].a = pins[k - 1].a;
	for (size_t k = n; k-- > 1;)
		if (pins[k - 1].c > pins[k].c)
			pins[k - 1].c = pins[k].c;
	return n;
}

/* The room the allocation ids leave (struct id_gaps): every allocation
 * the dump gives no id, born at t, took an id of a gap whose window holds
 * t. So the estimated births of an allocator in (x, y] number at most the
 * ids of the gaps whose windows meet (x, y], less one for each other
 * allocation without an id (a temporary, another allocator's estimated
 * birth) whose gaps all lie among those; and they weigh at most the
 * largest that many of its estimated buffers whose windows meet (x, y].
 * Between two pins that bounds D from the pin before (D(t) <= C_k + that
 * weight over (t_k, t]) and from the pin after (D(t) >= A_{k+1} - that
 * weight over (t, t_{k+1}]): where the ids leave room for one birth in a
 * stretch, two large buffers both possible there count once. */
struct span {
	size_t l, r;   /* the gaps an allocation may have its id from */
	size_t alloc;  /* its allocator (SIZE_MAX: a temporary) */
};

struct cand {
	int64_t size, lo, hi; /* an estimated buffer of the allocator: its window */
};

/* The gaps of a group and the allocations without ids in it, made once. */
struct group_room {
	const int64_t *lo, *hi, *ids; /* the group's gaps; n 0: no bound */
	size_t n;
	int64_t *cum;	    /* cum[j]: the ids of gaps 1 .. j - 1 */
	int64_t *one;	    /* one[j]: the temporaries held to one gap, of gaps < j */
	struct span *multi; /* the other allocations without ids, by l */
	size_t n_multi;
};

/* One allocator's view: its group's room and its own estimated buffers. */
struct room {
	const struct group_room *g; /* NULL: no bound */
	size_t self;
	struct cand *cand; /* largest first */
	size_t n_cand;
	size_t budget; /* steps the bounds may still take */
};

static int cmp_span(const void *a, const void *b)
{
	const struct span *x = a, *y = b;
	if (x->l != y->l)
		return x->l < y->l ? -1 : 1;
	if (x->r != y->r)
		return x->r < y->r ? -1 : 1;
	return x->alloc < y->alloc ? -1 : (x->alloc > y->alloc);
}

static int cmp_cand(const void *a, const void *b)
{
	const struct cand *x = a, *y = b;
	if (x->size != y->size)
		return x->size > y->size ? -1 : 1;
	if (x->lo != y->lo)
		return x->lo < y->lo ? -1 : 1;
	return x->hi < y->hi ? -1 : (x->hi > y->hi);
}

/* The first gap whose window ends after x (at or after, `at`). */
static size_t gap_after(const struct group_room *m, int64_t x, bool at)
{
	size_t lo = 0, hi = m->n;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (m->hi[mid] < x || (!at && m->hi[mid] == x))
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

/* The last gap whose window starts at or before y (gap 0 starts first). */
static size_t gap_before(const struct group_room *m, int64_t y)
{
	size_t lo = 0, hi = m->n;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (m->lo[mid] <= y)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo > 0 ? lo - 1 : 0;
}

/* The room of group g (gaps, the temporaries and estimated births of
 * its allocators); n 0 where it has no gap but the open ones. */
static void group_room_make(struct group_room *m, const tl_memory *mem, const struct id_gaps *gaps,
			    int32_t g)
{
	memset(m, 0, sizeof *m);
	size_t f = gaps->first[g];
	if (gaps->first[g + 1] - f < 3)
		return;
	m->n = gaps->first[g + 1] - f;
	m->lo = gaps->lo + f;
	m->hi = gaps->hi + f;
	m->ids = gaps->ids + f;
	m->cum = g_new(int64_t, m->n + 1);
	m->one = g_new0(int64_t, m->n + 1);
	m->cum[0] = m->cum[1] = 0;
	for (size_t j = 1; j + 1 < m->n; j++)
		m->cum[j + 1] = add_sat(m->cum[j], m->ids[j]);
	m->cum[m->n] = m->cum[m->n - 1];
	GArray *o = g_array_new(FALSE, FALSE, sizeof(struct span));
	for (size_t k = 0; k < mem->n_allocators; k++) {
		const tl_allocator *al = &mem->allocators[k];
		if (gaps->group_of[k] != g)
			continue;
		for (size_t i = 0; i < al->n_buffers; i++) {
			const tl_buffer *b = &mem->buffers[al->buffers[i]];
			struct span x = {0, 0, k};
			if (b->kind == TL_BUF_TEMP) {
				x = (struct span){gap_after(m, b->alloc_us, true),
						  gap_before(m, b->alloc_us), SIZE_MAX};
			} else if (b->estimated && b->kind == TL_BUF_OUTPUT) {
				x.l = gap_after(m, b->window_lo, true);
				x.r = gap_before(m, b->window_hi);
			} else {
				continue;
			}
			if (x.l == 0 || x.r + 1 >= m->n || x.l > x.r)
				continue; /* open: it holds no id of a closed gap */
			if (x.l == x.r && x.alloc == SIZE_MAX)
				m->one[x.l + 1]++;
			else
				g_array_append_val(o, x);
		}
	}
	for (size_t j = 1; j <= m->n; j++)
		m->one[j] += m->one[j - 1];
	if (o->len > 1)
		qsort(o->data, o->len, sizeof(struct span), cmp_span);
	m->n_multi = o->len;
	m->multi = (struct span *)(void *)g_array_free(o, FALSE);
}

static void group_room_free(struct group_room *m)
{
	g_free(m->cum);
	g_free(m->one);
	g_free(m->multi);
}

/* Allocator a's room: its group's, and its estimated buffers (u). */
static void room_make(struct room *m, const tl_memory *mem, const tl_allocator *a, const GArray *u,
		      const struct id_gaps *gaps, const struct group_room *groups)
{
	memset(m, 0, sizeof *m);
	size_t ai = (size_t)(a - mem->allocators);
	if (gaps == NULL || gaps->group_of[ai] < 0 || groups[gaps->group_of[ai]].n == 0)
		return;
	m->g = &groups[gaps->group_of[ai]];
	m->self = ai;
	m->n_cand = u->len;
	m->cand = g_new(struct cand, u->len + 1);
	for (guint i = 0; i < u->len; i++) {
		const tl_buffer *b = &mem->buffers[g_array_index(u, uint32_t, i)];
		m->cand[i] = (struct cand){b->allocated, b->window_lo, b->window_hi};
	}
	qsort(m->cand, m->n_cand, sizeof *m->cand, cmp_cand);
	m->budget = 2 * (m->g->n + m->g->n_multi + m->n_cand) + ((size_t)1 << 18);
}

/* The most bytes the allocator's estimated births in (x, y] can weigh by
 * the ids, when under `cap` (else INT64_MAX: no bound, or none that
 * helps). */
static int64_t room_weight(struct room *m, int64_t x, int64_t y, int64_t cap)
{
	const struct group_room *g = m->g;
	if (g == NULL || cap <= 0)
		return INT64_MAX;
	if (y <= x)
		return 0;
	size_t jl = gap_after(g, x, false), jr = gap_before(g, y);
	if (jl > jr)
		return 0;
	if (jl == 0 || jr + 1 >= g->n)
		return INT64_MAX; /* an open gap: any number */
	int64_t births = (g->cum[jr + 1] - g->cum[jl]) - (g->one[jr + 1] - g->one[jl]);
	/* the other allocations held to these gaps (as many as the budget
	 * counts: fewer only leaves more room) */
	size_t lo = 0, hi = g->n_multi;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (g->multi[mid].l < jl)
			lo = mid + 1;
		else
			hi = mid;
	}
	for (size_t i = lo; i < g->n_multi && g->multi[i].l <= jr && m->budget > 0; i++) {
		m->budget--;
		births -= g->multi[i].r <= jr && g->multi[i].alloc != m->self;
	}
	int64_t w = 0;
	for (size_t i = 0; i < m->n_cand && births > 0; i++) {
		if (m->budget == 0 || w >= cap)
			return INT64_MAX;
		m->budget--;
		const struct cand *c = &m->cand[i];
		if (c->lo <= y && c->hi > x) {
			w = add_sat(w, c->size);
			births--;
		}
	}
	return w < cap ? w : INT64_MAX;
}

/* Every instant where the band may change: the curve's points, the
 * windows' ends, the placed births, the pins and the instants after them;
 * sorted, once each. */
static int64_t *band_instants(const tl_allocator *a, const struct mark *lo, const struct mark *hi,
			      const struct mark *born, size_t n_u, const struct pin *pins,
			      size_t n_pins, const struct room *room, size_t *n_out)
{
	size_t n_gaps = room->g != NULL ? room->g->n : 0;
	size_t cap = a->n_curve + 3 * n_u + 2 * n_pins + 2 * n_gaps + 1, n = 0;
	int64_t *t = g_new(int64_t, cap);
	for (size_t i = 0; i < a->n_curve; i++)
		t[n++] = a->curve[i].us;
	for (size_t i = 0; i < n_u; i++) {
		t[n++] = lo[i].us;
		t[n++] = hi[i].us;
		t[n++] = born[i].us;
	}
	/* a pin holds D at its instant only: the band opens just after it */
	for (size_t i = 0; i < n_pins; i++) {
		t[n++] = pins[i].us;
		t[n++] = add_sat(pins[i].us, 1);
	}
	/* where the room the ids leave changes: a gap with ids opens, closes */
	/* (only those within the windows of its estimated buffers) */
	int64_t from = INT64_MAX, to = INT64_MIN;
	for (size_t i = 0; i < n_u && n_gaps > 0; i++) {
		from = lo[i].us < from ? lo[i].us : from;
		to = hi[i].us > to ? hi[i].us : to;
	}
	for (size_t j = 1; j + 1 < n_gaps; j++)
		if (room->g->ids[j] > 0 && room->g->hi[j] >= from && room->g->lo[j] <= to) {
			t[n++] = room->g->lo[j];
			t[n++] = room->g->hi[j];
		}
	qsort(t, n, sizeof *t, cmp_i64);
	size_t m = 0;
	for (size_t i = 0; i < n; i++)
		if (m == 0 || t[i] != t[m - 1])
			t[m++] = t[i];
	*n_out = m;
	return t;
}

/* The sweep's state: running sums over the marks, and the interval. */
struct sweep {
	const struct mark *lo, *hi, *born;
	size_t n_u, ilo, ihi, ib;
	int64_t dmax, dmin, dp;
	const struct pin *pins;
	size_t n_pins, k; /* pins[0 .. k) at or before t */
	int64_t must_a;	  /* born after pin k-1, due by t */
	int64_t must_b;	  /* due by pin k, not possible by t */
	int64_t dmin_at;  /* Dmin at pin k-1 */
	struct room *room;
};

/* Entering the interval after pin k - 1 (k = 0: before every pin): the
 * buffers due by the next pin whose window opens after this one. */
static void enter(struct sweep *w)
{
	int64_t from = w->k > 0 ? w->pins[w->k - 1].us : INT64_MIN;
	w->must_a = 0;
	w->must_b = 0;
	w->dmin_at = w->dmin;
	if (w->k >= w->n_pins)
		return;
	int64_t next = w->pins[w->k].us;
	for (size_t i = w->ilo; i < w->n_u && w->lo[i].us <= next; i++)
		if (w->lo[i].us > from && w->lo[i].hi <= next)
			w->must_b += w->lo[i].size;
}

static void advance(struct sweep *w, int64_t t)
{
	while (w->k < w->n_pins && w->pins[w->k].us <= t) {
		/* Dmin at the pin itself: the marks at it first */
		w->dmin = sum_to(w->hi, w->n_u, &w->ihi, w->dmin, w->pins[w->k].us);
		w->k++;
		enter(w);
	}
	int64_t from = w->k > 0 ? w->pins[w->k - 1].us : INT64_MIN;
	int64_t next = w->k < w->n_pins ? w->pins[w->k].us : INT64_MAX;
	for (; w->ilo < w->n_u && w->lo[w->ilo].us <= t; w->ilo++) {
		const struct mark *m = &w->lo[w->ilo];
		w->dmax += m->size;
		if (m->us > from && m->hi <= next)
			w->must_b -= m->size;
	}
	for (; w->ihi < w->n_u && w->hi[w->ihi].us <= t; w->ihi++) {
		const struct mark *m = &w->hi[w->ihi];
		w->dmin += m->size;
		if (w->k > 0 && m->lo > from)
			w->must_a += m->size;
	}
	w->dp = sum_to(w->born, w->n_u, &w->ib, w->dp, t);
}

/* The bounds on D at t (after advance), holding until `until` (the
 * instant before the next point), and the pin's adjustments (see the
 * top). */
struct raw {
	int64_t dlow, dhigh, adj_low, adj_high;
};

static struct raw band_raw(struct sweep *w, int64_t t, int64_t until)
{
	int64_t dlow = w->dmin, dhigh = w->dmax, adj_low = 0, adj_high = 0;
	if (w->k > 0) {
		const struct pin *p = &w->pins[w->k - 1];
		int64_t a = add_sat(p->a, w->must_a);
		dlow = a > dlow ? a : dlow;
		int64_t c = add_sat(p->c, add_sat(w->dmax, -w->dmin_at));
		if (p->us == t && p->c < c)
			c = p->c;
		dhigh = c < dhigh ? c : dhigh;
		adj_low = p->p - p->c;
		adj_high = p->p - p->a;
	}
	if (w->k < w->n_pins) {
		int64_t c = add_sat(w->pins[w->k].c, -w->must_b);
		dhigh = c < dhigh ? c : dhigh;
	}
	/* what the ids leave room for since the pin before, and until the
	 * pin after */
	if (w->k > 0) {
		int64_t r = room_weight(w->room, w->pins[w->k - 1].us, until,
					add_sat(dhigh, -w->pins[w->k - 1].c));
		int64_t c = r == INT64_MAX ? INT64_MAX : add_sat(w->pins[w->k - 1].c, r);
		dhigh = c < dhigh ? c : dhigh;
	}
	if (w->k < w->n_pins) {
		int64_t r = room_weight(w->room, t, w->pins[w->k].us, add_sat(w->pins[w->k].a, -dlow));
		int64_t a = r == INT64_MAX ? INT64_MIN : add_sat(w->pins[w->k].a, -r);
		dlow = a > dlow ? a : dlow;
	}
	return (struct raw){dlow, dhigh, adj_low, adj_high};
}

/* The band at t around the curve's value there, the placed births
 * weighing dp by then. */
static tl_band_point band_point(int64_t t, int64_t curve, int64_t dp, struct raw x)
{
	int64_t base = add_sat(curve, -dp);
	tl_band_point b = {t, add_sat(add_sat(base, x.dlow), x.adj_low),
			   add_sat(add_sat(base, x.dhigh), x.adj_high)};
	/* the placed history is one the records allow */
	if (b.low > curve)
		b.low = curve;
	if (b.high < curve)
		b.high = curve;
	if (b.low < 0)
		b.low = 0;
	return b;
}

/* Where the placed births weigh more by t than the bounds allow (the ids
 * leave no room for them all by then, though each alone fits), births
 * placed by t that may come at the next band instant (inside their
 * windows, no sample of the allocator in between, so every sample reads
 * as it did) move there: the latest placed first, as many as it takes
 * (those that fit the excess first, then the smallest that covers the
 * rest), as unbear() does. The candidates: the placed births in (after,
 * t] (born[from .. to)), within the steps left. The bytes moved. */
struct unplace {
	tl_memory *mem;
	const struct smp *s;
	size_t n_s;
	const struct mark *born;
	GArray *cand;
	size_t budget;
};

static int64_t unplace(struct unplace *x, size_t from, size_t to, int64_t t, int64_t next,
		       int64_t over)
{
	tl_memory *mem = x->mem;
	GArray *cand = x->cand;
	g_array_set_size(cand, 0);
	for (size_t i = from; i < to && x->budget > 0; i++, x->budget--) {
		uint32_t bi = x->born[i].buf;
		const tl_buffer *b = &mem->buffers[bi];
		if (b->birth != TL_BIRTH_PINNED || b->alloc_us > t || b->window_hi < next ||
		    b->birth_hi < next || b->free_us <= next)
			continue;
		size_t lo = smp_first_at(x->s, x->n_s, b->alloc_us);
		if (lo < x->n_s && x->s[lo].us < next)
			continue;
		g_array_append_val(cand, bi);
	}
	if (cand->len > 1)
		g_qsort_with_data(cand->data, (gint)cand->len, sizeof(uint32_t), cmp_latest,
				  mem->buffers);
	int64_t moved = 0;
	guint best = cand->len;
	for (guint i = 0; i < cand->len && over > 0; i++) {
		tl_buffer *b = &mem->buffers[g_array_index(cand, uint32_t, i)];
		if (b->allocated > over)
			continue;
		over -= b->allocated;
		moved += b->allocated;
		b->alloc_us = next;
	}
	for (guint i = 0; i < cand->len && over > 0; i++) {
		const tl_buffer *b = &mem->buffers[g_array_index(cand, uint32_t, i)];
		if (b->alloc_us != next && b->allocated >= over &&
		    (best == cand->len ||
		     b->allocated < mem->buffers[g_array_index(cand, uint32_t, best)].allocated))
			best = i;
	}
	if (over > 0 && best < cand->len) {
		tl_buffer *b = &mem->buffers[g_array_index(cand, uint32_t, best)];
		moved += b->allocated;
		b->alloc_us = next;
	}
	return moved;
}

/* After births moved (unplace), the curve before the instant they were
 * found at may have fallen out of the band there: the band widened to the
 * curve wherever it is not inside (the curve changes only at the band's
 * instants, so a walk of both finds every such stretch), and the peak's
 * range made again from it. */
/* Walks the band and the curve together: with out NULL, whether the
 * curve leaves the band somewhere; else the band widened to the curve
 * appended to out (and the peak's range from it). */
static bool band_walk(tl_allocator *a, GArray *out)
{
	size_t i = 0, j = 0;
	int64_t t = a->band[0].us;
	for (;;) {
		while (i + 1 < a->n_band && a->band[i + 1].us <= t)
			i++;
		while (j + 1 < a->n_curve && a->curve[j + 1].us <= t)
			j++;
		tl_band_point b = a->band[i];
		b.us = t;
		if (a->curve[j].us <= t) {
			int64_t c = a->curve[j].bytes;
			if (out == NULL && (c < b.low || c > b.high))
				return true;
			b.low = c < b.low ? c : b.low;
			b.high = c > b.high ? c : b.high;
		}
		if (out == NULL)
			goto next;
		const tl_band_point *last =
		    out->len > 0 ? &g_array_index(out, tl_band_point, out->len - 1) : NULL;
		if (last == NULL || last->low != b.low || last->high != b.high)
			g_array_append_val(out, b);
		a->peak_low = b.low > a->peak_low ? b.low : a->peak_low;
		a->peak_high = b.high > a->peak_high ? b.high : a->peak_high;
	next:;
		int64_t nb = i + 1 < a->n_band ? a->band[i + 1].us : INT64_MAX;
		int64_t nc = a->curve[j].us > t ? a->curve[j].us
			     : j + 1 < a->n_curve ? a->curve[j + 1].us
						  : INT64_MAX;
		t = nb < nc ? nb : nc;
		if (t == INT64_MAX)
			break;
	}
	return false;
}

static void band_hold_curve(tl_allocator *a)
{
	if (a->n_band == 0 || a->n_curve == 0 || !band_walk(a, NULL))
		return;
	GArray *out = g_array_sized_new(FALSE, FALSE, sizeof(tl_band_point), a->n_band + 1);
	int64_t low = a->peak_low, high = a->peak_high;
	a->peak_low = a->peak_high = 0;
	band_walk(a, out);
	a->peak_low = a->peak_low < low ? a->peak_low : low;
	a->peak_high = a->peak_high > high ? a->peak_high : high;
	g_free(a->band);
	a->n_band = out->len;
	a->band = (tl_band_point *)(void *)g_array_free(out, FALSE);
}

static void band_estimated(tl_memory *mem, tl_allocator *a, const struct smp *s, size_t n_s,
			   const int64_t *r, const int64_t *resid0, const GArray *u,
			   const struct id_gaps *gaps, const struct group_room *groups)
{
	size_t n_u = u->len;
	struct mark *lo = g_new(struct mark, n_u + 1), *hi = g_new(struct mark, n_u + 1),
		    *born = g_new(struct mark, n_u + 1);
	marks_of(mem, u, lo, hi, born);
	struct pin *pins = g_new(struct pin, n_s + 1);
	size_t n_pins = make_pins(s, n_s, r, resid0, lo, hi, born, n_u, pins);
	struct room room;
	room_make(&room, mem, a, u, gaps, groups);
	size_t n_t;
	int64_t *ts = band_instants(a, lo, hi, born, n_u, pins, n_pins, &room, &n_t);
	struct sweep w = {.lo = lo,
			  .hi = hi,
			  .born = born,
			  .n_u = n_u,
			  .pins = pins,
			  .n_pins = n_pins,
			  .room = &room};
	struct unplace un = {mem, s, n_s, born, g_array_new(FALSE, FALSE, sizeof(uint32_t)),
			     4 * (n_u + n_t) + ((size_t)1 << 16)};
	enter(&w);
	GArray *band = g_array_sized_new(FALSE, FALSE, sizeof(tl_band_point), a->n_curve + 1);
	int64_t start = a->n_curve > 0 ? a->curve[0].us : mem->step_start_us;
	size_t hint = 0, from = 0;
	bool moved = false;
	a->peak_low = a->peak_high = 0;
	for (size_t i = 0; i < n_t; i++) {
		advance(&w, ts[i]);
		if (ts[i] < start)
			continue;
		int64_t until = i + 1 < n_t ? ts[i + 1] - 1 : INT64_MAX;
		struct raw x = band_raw(&w, ts[i], until);
		int64_t curve = tl_memory_in_use_near(a, ts[i], &hint), dp = w.dp;
		/* the births placed since the pin before (born[from .. ib)) */
		int64_t after = w.k > 0 ? pins[w.k - 1].us : INT64_MIN;
		while (from < w.ib && born[from].us <= after)
			from++;
		int64_t over = add_sat(dp, -add_sat(x.dhigh, x.adj_high));
		if (over > 0 && i + 1 < n_t &&
		    (w.k >= n_pins || ts[i + 1] <= pins[w.k].us)) {
			int64_t m = unplace(&un, from, w.ib, ts[i], ts[i + 1], over);
			curve -= m;
			dp -= m;
			moved = moved || m > 0;
		}
		tl_band_point b = band_point(ts[i], curve, dp, x);
		if (b.low > a->peak_low)
			a->peak_low = b.low;
		if (b.high > a->peak_high)
			a->peak_high = b.high;
		const tl_band_point *last =
		    band->len > 0 ? &g_array_index(band, tl_band_point, band->len - 1) : NULL;
		if (last == NULL || last->low != b.low || last->high != b.high)
			g_array_append_val(band, b);
	}
	a->n_band = band->len;
	a->band = (tl_band_point *)(void *)g_array_free(band, FALSE);
	if (moved) {
		tl_memory_curve_rebuild(mem, a);
		band_hold_curve(a);
	}
	if (a->peak_low > a->peak_bytes)
		a->peak_low = a->peak_bytes;
	if (a->peak_high < a->peak_bytes)
		a->peak_high = a->peak_bytes;
	g_array_free(un.cand, TRUE);
	g_free(room.cand);
	g_free(ts);
	g_free(pins);
	g_free(lo);
	g_free(hi);
	g_free(born);
}

static void band_allocator(tl_memory *mem, tl_allocator *a, const GArray *s,
			   const struct id_gaps *gaps, const struct group_room *groups)
{
	GArray *u = estimated_of(mem, a);
	size_t n_s = s != NULL ? s->len : 0;
	const struct smp *sv = n_s > 0 ? (const struct smp *)(void *)s->data : NULL;
	int64_t *r = g_new(int64_t, n_s + 1), *resid0 = g_new(int64_t, n_s + 1);
	if (n_s > 0) {
		repair(mem, a, s, u);
		if (settle(mem, s, u))
			tl_memory_curve_rebuild(mem, a);
		unattributed(mem, a, s, resid0);
	}
	/* after the step, the samples above the placement are met */
	for (size_t k = 0; k < n_s; k++)
		r[k] = resid0[k] > 0 ? 0 : resid0[k];
	if (u->len == 0)
		band_exact(a);
	else
		band_estimated(mem, a, sv, n_s, r, resid0, u, gaps, groups);
	g_free(r);
	g_free(resid0);
	g_array_free(u, TRUE);
}

void tl_memory_band_build(tl_memory *mem, const GArray *samples, const struct id_gaps *gaps)
{
	GArray **by = samples_by_allocator(mem, samples);
	/* the rooms of the groups, made after the births are placed (their
	 * windows do not move from here on) */
	size_t n_groups = gaps != NULL ? gaps->n_groups : 0;
	struct group_room *groups = g_new0(struct group_room, n_groups + 1);
	for (size_t g = 0; g < n_groups; g++)
		group_room_make(&groups[g], mem, gaps, (int32_t)g);
	for (size_t i = 0; i < mem->n_allocators; i++) {
		band_allocator(mem, &mem->allocators[i], by[i], gaps, groups);
		if (by[i] != NULL)
			g_array_free(by[i], TRUE);
	}
	for (size_t g = 0; g < n_groups; g++)
		group_room_free(&groups[g]);
	g_free(groups);
	g_free(by);
}
