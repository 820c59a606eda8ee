#include "io/xspace_internal.h"

#include <stdio.h>

/* ---- memory -------------------------------------------------------------- */

/* "GPU_0_bfc" -> /device:GPU:0; other allocators stay on their plane. */
static const char *allocator_device(const char *alloc, const char *plane, tl_arena *arena)
{
	unsigned n;
	char tail[8];
	if (alloc != NULL && sscanf(alloc, "GPU_%u_%7s", &n, tail) == 2) {
		char *d = g_strdup_printf("/device:GPU:%u", n);
		char *out = tl_arena_strdup(arena, d);
		g_free(d);
		return out;
	}
	return tl_arena_strdup(arena, plane != NULL ? plane : "");
}

static void fill_alloc(const tl_xspace *xs, const xev *v, tl_alloc_event *a, tl_arena *arena)
{
	const xplane *x = plane_of(xs, v);
	tl_xspace_wire_stat st[N_STAT_KEYS];
	tl_xs_stats_all(x, v, st);
	const char *alloc = tl_xs_stat_str_in(x, &st[S_ALLOCATOR], arena);
	int64_t bytes = 0, addr = 0;
	if (!tl_xs_stat_int(&st[S_ALLOCATION_BYTES], &bytes))
		tl_xs_stat_int(&st[S_REQUESTED_BYTES], &bytes);
	if (bytes < 0) /* a size cannot be; its negation may not exist */
		bytes = 0;
	tl_xs_stat_int(&st[S_ADDR], &addr);
	*a = (tl_alloc_event){.t_ns = v->start,
			      .device = allocator_device(alloc, x->p->name, arena),
			      .allocator = tl_arena_strdup(arena, alloc != NULL ? alloc : ""),
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
	const char *op = tl_xs_stat_str_in(x, &st[S_TF_OP], arena);
	if (op == NULL || op[0] == '\0') {
		/* the TF op around it, else (JAX) the innermost event around it */
		int32_t k = v->parent >= 0 ? enclosing_op(xs->ev, v->parent) : -1;
		if (k < 0)
			k = v->parent;
		op = k >= 0 ? xs->ev[k].name : NULL;
	}
	a->op = op != NULL ? tl_arena_strdup(arena, op) : NULL;
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

int tl_xspace_allocs(tl_xspace *xs, tl_arena *arena, tl_alloc_events *out)
{
	uint32_t *order = g_new(uint32_t, xs->n_ev + 1);
	size_t n = 0;
	for (size_t i = 0; i < xs->n_ev; i++)
		if (xs->ev[i].flags & F_MEMORY)
			order[n++] = (uint32_t)i;
	qsort_r(order, n, sizeof *order, cmp_alloc_order, xs->ev);
	out->ev = tl_arena_alloc(arena, (n + 1) * sizeof *out->ev);
	out->n = n;
	out->clock = "profile's own zero, as TensorBoard shows it";
	for (size_t k = 0; k < n; k++)
		fill_alloc(xs, &xs->ev[order[k]], &out->ev[k], arena);
	g_free(order);
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
