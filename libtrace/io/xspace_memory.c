#include "io/xspace_internal.h"

#include <stdio.h>

/* ---- memory -------------------------------------------------------------- */

/* The strings of the allocator events, each once in the arena: an
 * XSpace names a handful of allocators and devices and one op per
 * allocation, so a copy per event was most of the events' memory. */
struct strings {
	tl_arena *arena;
	GHashTable *text;    /* text -> itself, in the arena */
	GHashTable *at;	     /* a string that stays where it is (a stat metadata's name,
				an event's) -> its text in the arena */
	GHashTable *device;  /* allocator (interned) -> its GPU device, or the allocator
				itself where it names none (the plane's then) */
	GString *buf;
};

static const char *intern(struct strings *ss, const char *s, size_t len)
{
	g_string_append_len(g_string_truncate(ss->buf, 0), s, (gssize)len);
	const char *hit = g_hash_table_lookup(ss->text, ss->buf->str);
	if (hit == NULL) {
		hit = tl_arena_strndup(ss->arena, s, len);
		g_hash_table_insert(ss->text, (gpointer)hit, (gpointer)hit);
	}
	return hit;
}

static const char *intern_str(struct strings *ss, const char *s)
{
	return s != NULL ? intern(ss, s, strlen(s)) : NULL;
}

/* intern_str for a string that stays where it is: found by its address. */
static const char *intern_at(struct strings *ss, const char *s)
{
	if (s == NULL)
		return NULL;
	const char *hit = g_hash_table_lookup(ss->at, s);
	if (hit == NULL) {
		hit = intern_str(ss, s);
		g_hash_table_insert(ss->at, (gpointer)s, (gpointer)hit);
	}
	return hit;
}

/* A string stat's text (or a ref_value's stat metadata name), interned. */
static const char *stat_text(struct strings *ss, const xplane *x, const tl_xspace_wire_stat *st)
{
	if (st->kind == TL_XSTAT_STR)
		return intern(ss, (const char *)st->s, st->s_len);
	return intern_at(ss, tl_xs_stat_str_in(x, st, NULL));
}

/* "GPU_0_bfc" -> /device:GPU:0; other allocators stay on their plane. */
static const char *allocator_device(struct strings *ss, const char *alloc, const char *plane)
{
	const char *dev = alloc != NULL ? g_hash_table_lookup(ss->device, alloc) : NULL;
	if (dev == NULL && alloc != NULL) {
		unsigned n;
		char tail[8];
		dev = alloc;
		if (sscanf(alloc, "GPU_%u_%7s", &n, tail) == 2) {
			char *d = g_strdup_printf("/device:GPU:%u", n);
			dev = intern_str(ss, d);
			g_free(d);
		}
		g_hash_table_insert(ss->device, (gpointer)alloc, (gpointer)dev);
	}
	return dev != NULL && dev != alloc ? dev : intern_at(ss, plane != NULL ? plane : "");
}

static void fill_alloc(const tl_xspace *xs, const xev *v, tl_alloc_event *a, struct strings *ss)
{
	const xplane *x = plane_of(xs, v);
	tl_xspace_wire_stat st[N_STAT_KEYS];
	tl_xs_stats_all(x, v, st);
	const char *alloc = stat_text(ss, x, &st[S_ALLOCATOR]);
	int64_t bytes = 0, addr = 0;
	if (!tl_xs_stat_int(&st[S_ALLOCATION_BYTES], &bytes))
		tl_xs_stat_int(&st[S_REQUESTED_BYTES], &bytes);
	if (bytes < 0) /* a size cannot be; its negation may not exist */
		bytes = 0;
	tl_xs_stat_int(&st[S_ADDR], &addr);
	*a = (tl_alloc_event){.t_ns = v->start,
			      .device = allocator_device(ss, alloc, x->p->name),
			      .allocator = alloc != NULL ? alloc : intern_str(ss, ""),
			      .addr = (uint64_t)addr,
			      .bytes = strcmp(v->name, "MemoryDeallocation") == 0 ? -bytes : bytes,
			      .total_allocated = -1,
			      .total_reserved = -1,
			      .peak = -1};
	if (a->allocator[0] == '\0')
		a->allocator = a->device;
	tl_xs_stat_int(&st[S_BYTES_ALLOCATED], &a->total_allocated);
	tl_xs_stat_int(&st[S_RESERVED], &a->total_reserved);
	tl_xs_stat_int(&st[S_PEAK], &a->peak);
	const char *op = stat_text(ss, x, &st[S_TF_OP]);
	if (op == NULL || op[0] == '\0') {
		/* the TF op around it, else (JAX) the innermost event around it */
		int32_t k = v->parent >= 0 ? enclosing_op(xs->ev, v->parent) : -1;
		if (k < 0)
			k = v->parent;
		op = k >= 0 ? intern_at(ss, xs->ev[k].name) : NULL;
	}
	a->op = op;
}

static int cmp_alloc_order(const void *a, const void *b, void *ctx)
{
	const xev *ev = ctx;
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
	if (ev[x].start != ev[y].start)
		return ev[x].start < ev[y].start ? -1 : 1;
	return (x > y) - (x < y); /* one instant: the file's order */
}

bool tl_xspace_has_allocs(const tl_xspace *xs)
{
	return xs->n_ops < xs->n_ev || xs->c.mem_skipped > 0;
}

size_t tl_xspace_alloc_count(tl_xspace *xs)
{
	if (xs->alloc_order != NULL)
		return xs->n_allocs;
	uint32_t *order = g_new(uint32_t, xs->n_ev + 1);
	size_t n = 0;
	for (size_t i = 0; i < xs->n_ev; i++)
		if (xs->ev[i].flags & F_MEMORY)
			order[n++] = (uint32_t)i;
	qsort_r(order, n, sizeof *order, cmp_alloc_order, xs->ev);
	xs->alloc_order = order;
	xs->n_allocs = n;
	return n;
}

size_t tl_xspace_alloc_first_at(tl_xspace *xs, size_t from, int64_t t, bool after)
{
	size_t lo = from, hi = tl_xspace_alloc_count(xs);
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		int64_t at = xs->ev[xs->alloc_order[mid]].start;
		if (at < t || (after && at == t))
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

void tl_xspace_alloc_fill(tl_xspace *xs, size_t lo, size_t hi, tl_arena *arena,
			  tl_alloc_event *out)
{
	tl_xspace_alloc_count(xs);
	struct strings ss = {.arena = arena,
			     .text = g_hash_table_new(g_str_hash, g_str_equal),
			     .at = g_hash_table_new(g_direct_hash, g_direct_equal),
			     .device = g_hash_table_new(g_direct_hash, g_direct_equal),
			     .buf = g_string_new(NULL)};
	for (size_t k = lo; k < hi; k++)
		fill_alloc(xs, &xs->ev[xs->alloc_order[k]], &out[k - lo], &ss);
	g_hash_table_destroy(ss.text);
	g_hash_table_destroy(ss.at);
	g_hash_table_destroy(ss.device);
	g_string_free(ss.buf, TRUE);
}

int tl_xspace_allocs(tl_xspace *xs, tl_arena *arena, tl_alloc_events *out)
{
	size_t n = tl_xspace_alloc_count(xs);
	out->ev = tl_arena_alloc(arena, (n + 1) * sizeof *out->ev);
	out->n = n;
	out->clock = "profile's own zero, as TensorBoard shows it";
	tl_xspace_alloc_fill(xs, 0, n, arena, out->ev);
	return 0;
}

int tl_xspace_alloc_events(const uint8_t *data, size_t len, tl_arena *arena, tl_alloc_events *out,
			   tl_error *err)
{
	uint8_t *own = tl_arena_alloc(arena, len + 1);
	if (len > 0)
		memcpy(own, data, len);
	tl_xspace *xs = NULL;
	if (tl_xspace_open(&xs, own, len, true, arena, "XSpace", err) < 0)
		return -1;
	int rc = tl_xspace_allocs(xs, arena, out);
	tl_xspace_free(xs);
	return rc;
}
