#include "io/xspace_internal.h"

#include "base/crew.h"
#include "base/limits.h"
#include <inttypes.h>
#include <stdio.h>

/* ---- events -------------------------------------------------------------- */

static uint32_t device_for(tl_xspace *xs, GHashTable *by_name, const xplane *x,
			   const tl_xspace_wire_line *l, tl_arena *arena)
{
	const char *pname = x->p->name[0] ? x->p->name : "/unnamed";
	const char *lname = l->name;
	char *name;
	long stream;
	if (x->kind == P_HOST)
		name = g_strdup(pname);
	else if (tl_tf2_stream_line(lname, &stream))
		name = g_strdup_printf("%s/stream:%ld", pname, stream);
	else
		name = g_strdup_printf("%s/%s", pname, lname[0] ? lname : "line");
	gpointer hit = g_hash_table_lookup(by_name, name);
	if (hit != NULL) {
		g_free(name);
		return GPOINTER_TO_UINT(hit) - 1;
	}
	xdev d = {.name = tl_arena_strdup(arena, name), .threads = x->kind == P_HOST};
	g_array_append_val(xs->devs, d);
	g_hash_table_insert(by_name, (gpointer)d.name, GUINT_TO_POINTER(xs->devs->len));
	g_free(name);
	return xs->devs->len - 1;
}

/* start and end of an event in ns, false when they leave the limit (the
 * model's, base/limits.h). The format bounds the rest: offset_ps counts from
 * the line's timestamp_ns, which xplane.proto defines as the line's start,
 * and a duration is no less than 0; an event before its line or of negative
 * length is damage. */
static bool event_time(const tl_xspace_wire_line *l, const tl_xspace_wire_event *e, int64_t *start,
		       int64_t *end)
{
	int64_t base = l->timestamp_ns;
	if (base <= -TL_TIME_LIMIT_NS || base >= TL_TIME_LIMIT_NS || e->offset_ps < 0 ||
	    e->duration_ps < 0)
		return false;
	int64_t off = e->offset_ps / 1000, dur_end;
	if (__builtin_add_overflow(e->offset_ps, e->duration_ps, &dur_end))
		return false;
	if (off >= TL_TIME_LIMIT_NS || base + off >= TL_TIME_LIMIT_NS)
		return false;
	*start = base + off;
	*end = base + dur_end / 1000;
	return *end < TL_TIME_LIMIT_NS;
}

static int cmp_ev_start(const void *a, const void *b)
{
	const xev *x = a, *y = b;
	if (x->start != y->start)
		return x->start < y->start ? -1 : 1;
	if (x->end != y->end)
		return x->end > y->end ? -1 : 1; /* the longer one encloses */
	return (x->raw_off > y->raw_off) - (x->raw_off < y->raw_off);
}

/* A list of event indexes a share grows (a GArray's append is a call per
 * item). */
typedef struct u32vec {
	uint32_t *v;
	size_t n, cap;
} u32vec;

static inline void u32vec_push(u32vec *a, uint32_t x)
{
	if (a->n == a->cap) {
		a->cap = a->cap ? 2 * a->cap : 256;
		a->v = g_renew(uint32_t, a->v, a->cap);
	}
	a->v[a->n++] = x;
}

/* A share of the lines, read on a thread of its own: each line's events
 * go to tl_xspace.ev from line_first[line] on (as many places as the line
 * holds events), the stack of open events nest_line keeps, and what the
 * passes after reading need (tl_xspace.host_corr, ...) in event order. */
typedef struct ev_vec {
	const tl_xspace *xs;
	size_t lo, hi; /* its lines, by global index */
	xev *v;	       /* tl_xspace.ev */
	size_t n;      /* where the next event goes */
	const size_t *line_first;
	int32_t *stack;
	size_t stack_cap;
	u32vec host_corr, dev_corr, step_ev;
	size_t n_ops;
	counts c;
	tl_arena *arena;  /* the names it makes */
	size_t *line_end; /* per line (its share's alone): where its events stop */
} ev_vec;

static xev *ev_push(ev_vec *a)
{
	return &a->v[a->n++];
}

/* Event i of a line whose events before it, from the line's first, are
 * in start order: its parent (the innermost event around it, the stack
 * of open events, *depth deep, kept from one event to the next); listed
 * where the later passes need it (tl_xspace.host_corr, ...). */
static inline void nest_one(ev_vec *a, size_t i, plane_kind kind, size_t *depth)
{
	xev *ev = a->v;
	uint32_t me_u = (uint32_t)i;
	if ((ev[i].flags & F_CORR) && kind == P_HOST)
		u32vec_push(&a->host_corr, me_u);
	else if ((ev[i].flags & F_CORR) && kind == P_DEVICE)
		u32vec_push(&a->dev_corr, me_u);
	if (ev[i].flags & F_STEP)
		u32vec_push(&a->step_ev, me_u);
	a->n_ops += !(ev[i].flags & F_MEMORY);
	size_t d = *depth;
	while (d > 0) {
		int32_t top = a->stack[d - 1];
		if (ev[top].end >= ev[i].end && ev[top].start <= ev[i].start)
			break;
		d--;
	}
	ev[i].parent = d > 0 ? a->stack[d - 1] : -1;
	if (d == a->stack_cap) {
		a->stack_cap = a->stack_cap ? 2 * a->stack_cap : 64;
		a->stack = g_renew(int32_t, a->stack, a->stack_cap);
	}
	a->stack[d++] = (int32_t)i;
	*depth = d;
}

static void add_line(ev_vec *out, uint32_t pi, uint32_t li)
{
	const xplane *x = &out->xs->planes[pi];
	const tl_xspace_wire_line *l = &x->p->lines[li];
	tl_arena *arena = out->arena;
	counts *c = &out->c;
	bool steps = strcmp(l->name, "Steps") == 0;
	size_t first = out->n = out->line_first[x->line_base + li];
	/* Profilers write a line's events in start order: each is nested as
	 * it comes, while it is in cache; where one is not, what was done is
	 * undone, the line sorted and nested after. */
	bool in_order = true;
	size_t depth = 0, n_ops = out->n_ops;
	size_t lists[3] = {out->host_corr.n, out->dev_corr.n, out->step_ev.n};
	tl_xspace_wire_event e;
	tl_xspace_wire_stats stats;
	size_t pos = 0;
	int rc;
	size_t slots_end = out->line_first[x->line_base + li + 1];
	while ((rc = tl_xspace_wire_next_event_stats(l, &pos, &e, &stats)) != 0) {
		if (rc == -1) /* the line's own bytes: the walk that counted stopped there too */
			break;
		if (rc == -2) {
			c->bad_events++;
			continue;
		}
		if (e.occurrences) {
			c->occurrences++;
			continue;
		}
		xev v = {.raw_off = (uint32_t)(e.raw - x->data),
			 .raw_len = (uint32_t)e.raw_len,
			 .line = (uint32_t)(x->line_base + li),
			 .parent = -1};
		if (!event_time(l, &e, &v.start, &v.end)) {
			c->bad_time++;
			continue;
		}
		v.name = find_id(&x->ev_md, e.metadata_id);
		bool named_by_md = v.name != NULL;
		if (v.name == NULL) {
			c->bad_event_md++;
			char *n = g_strdup_printf("metadata#%" PRId64, e.metadata_id);
			v.name = tl_arena_strdup(arena, n);
			g_free(n);
		}
		/* TensorBoard names an event with a step_name stat by it */
		const char *step;
		if (!tl_xs_scan_stats(x, &v, &stats, c, &step, arena)) {
			c->bad_events++;
			continue;
		}
		if (step != NULL && step[0] != '\0') {
			v.name = step;
			named_by_md = false;
		}
		if (named_by_md && x->ev_flags != NULL) /* the name's kind, found once */
			v.flags |= x->ev_flags[e.metadata_id];
		else
			v.flags |= tl_xs_name_flags(v.name);
		if (steps)
			v.flags |= F_STEP;
		/* an allocator event where they are not kept: counted; the line
		 * has no slot for it (n_marked), so one a step_name renamed
		 * sends the XSpace to be read again, keeping them */
		if (x->mem_mark != NULL && e.md_first &&
		    (uint64_t)e.metadata_id < x->ev_md.n_dense && x->mem_mark[e.metadata_id]) {
			c->mem_skipped++;
			if (!(v.flags & F_MEMORY))
				c->mem_renamed = true;
			continue;
		}
		size_t i = out->n;
		if (i == slots_end) /* never: the first walk counted them */
			break;
		*ev_push(out) = v;
		if (in_order && i > first && cmp_ev_start(&out->v[i - 1], &out->v[i]) > 0)
			in_order = false;
		if (in_order)
			nest_one(out, i, x->kind, &depth);
	}
	out->line_end[x->line_base + li] = out->n;
	if (in_order)
		return;
	out->host_corr.n = lists[0];
	out->dev_corr.n = lists[1];
	out->step_ev.n = lists[2];
	out->n_ops = n_ops;
	qsort(out->v + first, out->n - first, sizeof(xev), cmp_ev_start);
	depth = 0;
	for (size_t i = first; i < out->n; i++)
		nest_one(out, i, x->kind, &depth);
}

/* ---- reading the lines on threads ---------------------------------------- */

/* Below this many bytes of lines one thread reads them all; the lines are
 * cut into up to SHARES_MAX shares of about equal bytes, which up to
 * THREADS_MAX threads take in turn (the costs per byte of lines differ). */
#define SHARE_MIN ((size_t)2 << 20)
#define SHARES_MAX 8
#define THREADS_MAX 4

static void read_share(ev_vec *a)
{
	const tl_xspace *xs = a->xs;
	size_t pi = 0;
	for (size_t g = a->lo; g < a->hi; g++) {
		while (g >= xs->planes[pi].line_base + xs->planes[pi].p->n_lines)
			pi++;
		add_line(a, (uint32_t)pi, (uint32_t)(g - xs->planes[pi].line_base));
	}
}

/* The first walk: the share's lines' own fields, their events counted
 * (tl_xspace_wire_read_line); a line is read up to its first field that
 * does not decode (counted in cut_lines). */
static void read_share_heads(ev_vec *a)
{
	tl_xspace *xs = (tl_xspace *)a->xs;
	size_t pi = 0;
	for (size_t g = a->lo; g < a->hi; g++) {
		while (g >= xs->planes[pi].line_base + xs->space.planes[pi].n_lines)
			pi++;
		tl_xspace_wire_line *l = &xs->space.planes[pi].lines[g - xs->planes[pi].line_base];
		const xplane *x = &xs->planes[pi];
		tl_xspace_wire_read_line(l, x->mem_mark, x->mem_mark ? x->ev_md.n_dense : 0,
					 a->arena);
		a->c.cut_lines += l->damaged;
	}
}

struct share_queue {
	ev_vec *shares;
	size_t n;
	gint next;
	void (*read)(ev_vec *);
};

static gpointer share_thread(gpointer data)
{
	struct share_queue *q = data;
	for (;;) {
		gint k = g_atomic_int_add(&q->next, 1);
		if (k < 0 || (size_t)k >= q->n)
			return NULL;
		q->read(&q->shares[k]);
	}
}

/* q's shares read with q->read, on up to THREADS_MAX threads. */
static void read_shares(struct share_queue *q)
{
	GThread *t[THREADS_MAX] = {0};
	size_t threads = MIN(MIN(q->n, (size_t)g_get_num_processors()), (size_t)THREADS_MAX);
	q->next = 0;
	for (size_t i = 1; i < threads; i++)
		t[i] = g_thread_try_new("tl-xspace", share_thread, q, NULL);
	share_thread(q);
	for (size_t i = 1; i < threads; i++)
		if (t[i] != NULL)
			g_thread_join(t[i]);
}

/* The lines cut into runs of about equal bytes, one per share: shares[k]
 * reads lines [lo, hi). Returns how many. */
static size_t cut_shares(tl_xspace *xs, ev_vec *shares, size_t *line_end, const size_t *line_first)
{
	size_t total = 0;
	for (size_t p = 0; p < xs->space.n_planes; p++)
		for (size_t l = 0; l < xs->space.planes[p].n_lines; l++)
			total += xs->space.planes[p].lines[l].raw_len;
	size_t n = total / SHARE_MIN;
	if (n > SHARES_MAX)
		n = SHARES_MAX;
	if (n < 1 || g_get_num_processors() < 2)
		n = 1;
	size_t g = 0, done = 0, k = 0;
	for (size_t p = 0; p < xs->space.n_planes; p++)
		for (size_t l = 0; l < xs->space.planes[p].n_lines; l++, g++) {
			if (k + 1 < n && done >= total / n * (k + 1) && g > shares[k].lo) {
				shares[k].hi = g;
				shares[++k].lo = g;
			}
			done += xs->space.planes[p].lines[l].raw_len;
		}
	shares[k].hi = g;
	for (size_t i = 0; i <= k; i++) {
		shares[i].xs = xs;
		shares[i].v = xs->ev;
		shares[i].line_first = line_first;
		shares[i].line_end = line_end;
		shares[i].arena = tl_arena_new();
	}
	return k + 1;
}

static void append_all(GArray *to, u32vec *from)
{
	if (from->n > 0)
		g_array_append_vals(to, from->v, (guint)from->n);
	g_free(from->v);
}

/* The shares' counts added up, their lists put end to end, their names
 * moved into `arena`. */
static void join_shares(tl_xspace *xs, ev_vec *shares, size_t n, counts *c, tl_arena *arena)
{
	for (size_t i = 0; i < n; i++) {
		ev_vec *a = &shares[i];
		append_all(xs->host_corr, &a->host_corr);
		append_all(xs->dev_corr, &a->dev_corr);
		append_all(xs->step_ev, &a->step_ev);
		xs->n_ops += a->n_ops;
		c->bad_stat += a->c.bad_stat;
		c->bad_event_md += a->c.bad_event_md;
		c->bad_time += a->c.bad_time;
		c->occurrences += a->c.occurrences;
		c->bad_events += a->c.bad_events;
		c->cut_lines += a->c.cut_lines;
		c->mem_skipped += a->c.mem_skipped;
		c->mem_renamed |= a->c.mem_renamed;
		tl_arena_adopt(arena, a->arena);
		g_free(a->stack);
	}
}

/* Lines that kept fewer events than they hold (skipped events) leave
 * holes: the events moved down over them, with their parents and the
 * lists. */
static void close_holes(tl_xspace *xs, const size_t *line_first, const size_t *line_end)
{
	size_t *shift = g_new(size_t, xs->n_lines + 1);
	size_t gap = 0;
	for (size_t g = 0; g < xs->n_lines; g++) {
		shift[g] = gap;
		gap += line_first[g + 1] - line_end[g];
	}
	GArray *lists[3] = {xs->host_corr, xs->dev_corr, xs->step_ev};
	for (int k = 0; k < 3; k++)
		for (guint j = 0; j < lists[k]->len; j++) {
			uint32_t *i = &g_array_index(lists[k], uint32_t, j);
			const xev *v = &xs->ev[*i];
			*i -= (uint32_t)shift[v->line];
		}
	for (size_t g = 0; g < xs->n_lines; g++)
		for (size_t i = line_first[g]; i < line_end[g]; i++) {
			xev v = xs->ev[i];
			if (v.parent >= 0)
				v.parent -= (int32_t)shift[g];
			xs->ev[i - shift[g]] = v;
		}
	xs->n_ev = line_first[xs->n_lines] - gap;
	g_free(shift);
}

void tl_xs_read_lines(tl_xspace *xs, tl_arena *arena, counts *c)
{
	size_t *line_first = g_new(size_t, xs->n_lines + 1);
	size_t *line_end = g_new(size_t, xs->n_lines + 1);
	ev_vec shares[SHARES_MAX] = {{0}};
	struct share_queue q = {.shares = shares,
				.n = cut_shares(xs, shares, line_end, line_first),
				.read = read_share_heads};
	read_shares(&q);
	size_t total = 0;
	for (size_t p = 0; p < xs->space.n_planes; p++)
		for (size_t l = 0; l < xs->space.planes[p].n_lines; l++) {
			line_first[xs->planes[p].line_base + l] = total;
			total += xs->space.planes[p].lines[l].n_events -
				 xs->space.planes[p].lines[l].n_marked;
		}
	line_first[xs->n_lines] = total;
	/* in the arena: a big block there is backed by huge pages, where
	 * g_new's 4 KiB pages cost a fault each (140 MB for a 100 MB file) */
	xs->ev = tl_arena_alloc(arena, (line_first[xs->n_lines] + 1) * sizeof(xev));
	for (size_t i = 0; i < q.n; i++)
		shares[i].v = xs->ev;
	q.read = read_share;
	read_shares(&q);
	join_shares(xs, shares, q.n, c, arena);
	bool holes = false;
	xs->n_ev = line_first[xs->n_lines];
	for (size_t g = 0; g < xs->n_lines; g++)
		holes |= line_end[g] != line_first[g + 1];
	if (holes)
		close_holes(xs, line_first, line_end);
	GHashTable *by_name = g_hash_table_new(g_str_hash, g_str_equal);
	xs->line_dev = g_new(uint32_t, xs->n_lines + 1);
	xs->line_stream = g_new0(uint8_t, xs->n_lines + 1);
	for (size_t p = 0; p < xs->space.n_planes; p++)
		for (size_t l = 0; l < xs->space.planes[p].n_lines; l++) {
			size_t g = xs->planes[p].line_base + l;
			const char *lname = xs->space.planes[p].lines[l].name;
			long stream;
			xs->line_stream[g] =
			    xs->planes[p].kind == P_DEVICE && tl_tf2_stream_line(lname, &stream);
			bool kept = line_end[g] > line_first[g];
			xs->line_dev[g] = kept ? device_for(xs, by_name, &xs->planes[p],
							    &xs->space.planes[p].lines[l], arena)
					       : UINT32_MAX;
		}
	g_hash_table_destroy(by_name);
	g_free(line_first);
	g_free(line_end);
}



/* The "X:Op" a device event names in its tf_op or "level 0" stat (in
 * `arena`), or NULL. */
static const char *kernel_tf_op(const xplane *x, const xev *v, tl_arena *arena)
{
	const char *s = tl_xs_stat_text(x, v, S_TF_OP, arena);
	if (s != NULL && is_tf_op(s))
		return s;
	s = tl_xs_stat_text(x, v, S_LEVEL0, arena);
	return s != NULL && is_tf_op(s) ? s : NULL;
}

/* "cudnn-conv.1" -> "cudnn-conv": an HLO instruction's kind. */
static const char *hlo_kind(tl_arena *arena, const char *hlo)
{
	size_t n = strlen(hlo);
	const char *dot = strrchr(hlo, '.');
	if (dot != NULL && dot[1] != '\0' && strspn(dot + 1, "0123456789") == strlen(dot + 1))
		n = (size_t)(dot - hlo);
	return tl_arena_strndup(arena, hlo, n);
}

const char *tl_xs_kernel_op(const xplane *x, const xev *v, tl_arena *arena)
{
	const char *s = kernel_tf_op(x, v, arena);
	if (s != NULL)
		return s;
	const char *hlo = tl_xs_stat_text(x, v, S_HLO_OP, arena);
	if (hlo == NULL || hlo[0] == '\0')
		return NULL;
	char *n = g_strdup_printf("%s:%s", hlo, hlo_kind(arena, hlo));
	char *out = tl_arena_strdup(arena, n);
	g_free(n);
	return out;
}

/* Host events by correlation_id: open addressing, the first event of an id
 * kept (a 100 MB XSpace has half a million launches). */
typedef struct corr_table {
	int64_t *key;
	uint32_t *ev; /* event index + 1, 0 for an empty slot */
	size_t mask;
} corr_table;

static size_t corr_slot(const corr_table *t, int64_t id)
{
	size_t i = (size_t)(((uint64_t)id * UINT64_C(0x9E3779B97F4A7C15)) >> 20) & t->mask;
	while (t->ev[i] != 0 && t->key[i] != id)
		i = (i + 1) & t->mask;
	return i;
}

/* The device events of tl_xs_link_launches, on the crew: each to its launcher
 * (writing only to its own entry); bare[k] the host event of device event
 * dev_corr[k] where no op is around it, else -1. */
struct launch_ctx {
	tl_xspace *xs;
	const corr_table *host;
	int32_t *bare;
};

static void launch_part(void *ctx, size_t part, size_t lo, size_t hi, tl_arena *arena)
{
	struct launch_ctx *c = ctx;
	tl_xspace *xs = c->xs;
	const uint32_t *dev = (const uint32_t *)(const void *)xs->dev_corr->data;
	for (size_t k = lo; k < hi; k++) {
		uint32_t i = dev[k];
		c->bare[k] = -1;
		uint32_t hit = c->host->ev[corr_slot(c->host, xs->ev[i].corr)];
		if (hit == 0)
			continue;
		int32_t h = (int32_t)(hit - 1);
		int32_t op = enclosing_op(xs->ev, h);
		int32_t by = op >= 0 ? op : h;
		xs->ev[i].launcher = by; /* its corr is read no more */
		xs->ev[i].flags |= F_LAUNCHED;
		/* a launcher of another run (or an allocator event) has no record
		 * in its run: told here, where its event is at hand (tl_xs_group_runs
		 * came first) */
		if (xs->ev[by].run == xs->ev[i].run && !(xs->ev[by].flags & F_MEMORY))
			xs->ev[i].flags |= F_LINKED;
		if (op < 0)
			c->bare[k] = h;
	}
}

void tl_xs_link_launches(tl_xspace *xs)
{
	corr_table host = {0};
	size_t cap = 16;
	while (cap < 2 * (size_t)xs->host_corr->len)
		cap *= 2;
	host.key = g_new(int64_t, cap);
	host.ev = g_new0(uint32_t, cap);
	host.mask = cap - 1;
	for (guint k = 0; k < xs->host_corr->len; k++) {
		uint32_t i = g_array_index(xs->host_corr, uint32_t, k);
		size_t s = corr_slot(&host, xs->ev[i].corr);
		if (host.ev[s] == 0) {
			host.key[s] = xs->ev[i].corr;
			host.ev[s] = i + 1;
		}
	}
	size_t n = xs->dev_corr->len;
	struct launch_ctx c = {.xs = xs, .host = &host, .bare = g_new(int32_t, n + 1)};
	tl_crew_for(n, launch_part, &c, xs->arena);
	/* TF 2.2 to 2.4 and JAX trace no op around a launch: the launch is
	 * the op's time on the host, named by the op its first kernel (in
	 * event order) names. */
	for (size_t k = 0; k < n; k++) {
		int32_t h = c.bare[k];
		if (h < 0 || (xs->ev[h].flags & F_AS_OP))
			continue;
		uint32_t i = g_array_index(xs->dev_corr, uint32_t, k);
		const char *as_op = tl_xs_kernel_op(plane_of(xs, &xs->ev[i]), &xs->ev[i], xs->arena);
		if (as_op != NULL) {
			g_hash_table_insert(xs->as_op, GINT_TO_POINTER(h), (gpointer)as_op);
			xs->ev[h].flags |= F_AS_OP;
		}
	}
	g_free(c.bare);
	g_free(host.key);
	g_free(host.ev);
}
