#include "io/xspace_internal.h"

static const char *const stat_names[N_STAT_KEYS] = {
    [S_CORRELATION] = TL_TF2_STAT_CORRELATION,
    [S_TF_OP] = TL_TF2_STAT_TF_OP,
    [S_LEVEL0] = TL_TF2_STAT_LEVEL0,
    [S_HLO_OP] = TL_TF2_STAT_HLO_OP,
    [S_GROUP] = "group_id",
    [S_STEP_NAME] = "step_name",
    [S_ALLOCATOR] = "allocator_name",
    [S_BYTES_ALLOCATED] = "bytes_allocated",
    [S_ALLOCATION_BYTES] = "allocation_bytes",
    [S_REQUESTED_BYTES] = "requested_bytes",
    [S_ADDR] = "addr",
    [S_PEAK] = "peak_bytes_in_use",
    [S_RESERVED] = "bytes_reserved",
};

/* ---- metadata ----------------------------------------------------------- */




static void map_finish(id_map *m)
{
	qsort(m->v, m->n, sizeof(id_ptr), cmp_id);
	if (m->n == 0 || m->v[0].id < 0 || (uint64_t)m->v[m->n - 1].id >= 4 * m->n + 1024)
		return;
	m->n_dense = (size_t)m->v[m->n - 1].id + 1;
	m->dense = g_new0(const void *, m->n_dense);
	for (size_t i = 0; i < m->n; i++)
		if (m->dense[m->v[i].id] ==
		    NULL) /* a repeated key: the first, as bsearch may not */
			m->dense[m->v[i].id] = m->v[i].p;
}

void tl_xs_map_free(id_map *m)
{
	g_free(m->v);
	g_free(m->dense);
}

static plane_kind kind_of_plane(const char *name)
{
	if (g_str_has_prefix(name, "/host:"))
		return P_HOST;
	if (g_str_has_prefix(name, "/device:"))
		return P_DEVICE;
	return P_OTHER;
}



/* What a stat metadata id is to tl_xs_scan_stats: named (it names metadata
 * with a name), and which of the stats it reads it is. */
enum { ST_NAMED = 1, ST_CORR = 2, ST_GROUP = 4, ST_STEP = 8, ST_TFOP = 16 };

/* Whether stat metadata id `id` is the one of the stats named `k`. */
static bool stat_is(const xplane *x, enum stat_key k, int64_t id)
{
	return x->has_sid[k] && x->sid[k] == id;
}

void tl_xs_index_plane(xplane *x, const tl_xspace_wire_plane *p, bool keep_allocs, tl_arena *arena)
{
	x->p = p;
	x->kind = kind_of_plane(p->name);
	x->ev_md.v = g_new(id_ptr, p->n_ev_md + 1);
	for (size_t i = 0; i < p->n_ev_md; i++)
		x->ev_md.v[x->ev_md.n++] = (id_ptr){p->ev_md[i].id, p->ev_md[i].name};
	map_finish(&x->ev_md);
	if (x->ev_md.dense != NULL) {
		x->ev_flags = g_new0(uint8_t, x->ev_md.n_dense);
		for (size_t i = 0; i < x->ev_md.n_dense; i++)
			if (x->ev_md.dense[i] != NULL)
				x->ev_flags[i] = (uint8_t)tl_xs_name_flags(x->ev_md.dense[i]);
		if (!keep_allocs) {
			x->mem_mark = g_new(uint8_t, x->ev_md.n_dense);
			for (size_t i = 0; i < x->ev_md.n_dense; i++)
				x->mem_mark[i] = (x->ev_flags[i] & F_MEMORY) != 0;
		}
	}
	x->st_md.v = g_new(id_ptr, p->n_st_md + 1);
	for (size_t i = 0; i < p->n_st_md; i++) {
		const char *n = p->st_md[i].name;
		x->st_md.v[x->st_md.n++] = (id_ptr){p->st_md[i].id, n};
		for (int k = 0; n != NULL && k < N_STAT_KEYS; k++)
			if (!x->has_sid[k] && strcmp(n, stat_names[k]) == 0) {
				x->sid[k] = p->st_md[i].id;
				x->has_sid[k] = true;
			}
	}
	map_finish(&x->st_md);
	if (x->st_md.dense != NULL) {
		x->st_role = g_new0(uint8_t, x->st_md.n_dense);
		for (size_t i = 0; i < x->st_md.n_dense; i++) {
			uint8_t r = x->st_md.dense[i] != NULL ? ST_NAMED : 0;
			r |= stat_is(x, S_CORRELATION, (int64_t)i) ? ST_CORR : 0;
			r |= stat_is(x, S_GROUP, (int64_t)i) ? ST_GROUP : 0;
			r |= stat_is(x, S_STEP_NAME, (int64_t)i) ? ST_STEP : 0;
			r |= stat_is(x, S_TF_OP, (int64_t)i) ? ST_TFOP : 0;
			x->st_role[i] = r;
		}
	}
}

/* ---- stats --------------------------------------------------------------- */





/* The first stat of an event named `k`: false when it has none. */
static bool stat_get(const xplane *x, const xev *v, enum stat_key k, tl_xspace_wire_stat *st)
{
	if (!x->has_sid[k])
		return false;
	tl_xspace_wire_event ev = event_of(x, v);
	size_t pos = 0;
	while (tl_xspace_wire_next_stat(&ev, &pos, st) > 0)
		if (st->metadata_id == x->sid[k])
			return true;
	return false;
}

const char *tl_xs_stat_str_in(const xplane *x, const tl_xspace_wire_stat *st, tl_arena *arena)
{
	if (st->kind == TL_XSTAT_STR)
		return tl_arena_strndup(arena, (const char *)st->s, st->s_len);
	if (st->kind == TL_XSTAT_REF)
		return find_id(&x->st_md, (int64_t)st->u);
	return NULL;
}

void tl_xs_stats_all(const xplane *x, const xev *v, tl_xspace_wire_stat st[N_STAT_KEYS])
{
	memset(st, 0, N_STAT_KEYS * sizeof *st);
	tl_xspace_wire_event ev = event_of(x, v);
	tl_xspace_wire_stat s;
	size_t pos = 0;
	while (tl_xspace_wire_next_stat(&ev, &pos, &s) > 0)
		for (int k = 0; k < N_STAT_KEYS; k++)
			if (x->has_sid[k] && s.metadata_id == x->sid[k] &&
			    st[k].kind == TL_XSTAT_NONE)
				st[k] = s;
}

const char *tl_xs_stat_text(const xplane *x, const xev *v, enum stat_key k, tl_arena *arena)
{
	tl_xspace_wire_stat st;
	return stat_get(x, v, k, &st) ? tl_xs_stat_str_in(x, &st, arena) : NULL;
}

bool tl_xs_stat_int(const tl_xspace_wire_stat *st, int64_t *out)
{
	switch (st->kind) {
	case TL_XSTAT_INT64:
	case TL_XSTAT_UINT64:
		*out = (int64_t)st->u;
		return true;
	case TL_XSTAT_DOUBLE: {
		double d;
		memcpy(&d, &st->u, sizeof d);
		if (!(d > -9.2e18 && d < 9.2e18)) /* int64's range, and NaN */
			return false;
		*out = (int64_t)d;
		return true;
	}
	default:
		return false;
	}
}

/* One stat of tl_xs_scan_stats'. */
/* Stat k of an event (k SIZE_MAX where its place is not known). */
static inline __attribute__((always_inline)) void scan_stat(const xplane *x, xev *v,
							    const tl_xspace_wire_stat *st, size_t k,
							    counts *c, const char **step,
							    tl_arena *arena)
{
	int64_t id = st->metadata_id;
	unsigned role;
	if (x->st_role != NULL)
		role = id >= 0 && (uint64_t)id < x->st_md.n_dense ? x->st_role[id] : 0;
	else
		role = (find_id(&x->st_md, id) != NULL ? ST_NAMED : 0) |
		       (stat_is(x, S_CORRELATION, id) ? ST_CORR : 0) |
		       (stat_is(x, S_GROUP, id) ? ST_GROUP : 0) |
		       (stat_is(x, S_STEP_NAME, id) ? ST_STEP : 0) |
		       (stat_is(x, S_TF_OP, id) ? ST_TFOP : 0);
	/* the first tf_op stat's place among the event's stats, for
	 * kernel_tf_op_in (known where they were decoded with the event) */
	if ((role & ST_TFOP) && !(v->flags & F_TFOP_SEEN)) {
		v->flags |= F_TFOP_SEEN;
		if (k < TFOP_AT_MAX)
			v->flags |= (uint32_t)(k + 1) << TFOP_AT_SHIFT;
	}
	if (!(role & ST_NAMED) ||
	    (st->kind == TL_XSTAT_REF && find_id(&x->st_md, (int64_t)st->u) == NULL))
		c->bad_stat++;
	else if ((role & ST_CORR) && tl_xs_stat_int(st, &v->corr))
		v->flags |= F_CORR;
	else if ((role & ST_GROUP) && tl_xs_stat_int(st, &v->group))
		v->flags |= F_GROUP;
	else if (role & ST_STEP)
		*step = tl_xs_stat_str_in(x, st, arena);
}

bool tl_xs_scan_stats(const xplane *x, xev *v, const tl_xspace_wire_stats *stats, counts *c,
		       const char **step, tl_arena *arena)
{
	*step = NULL;
	if (stats->bad)
		return false;
	if (stats->all) {
		for (size_t k = 0; k < stats->n; k++)
			scan_stat(x, v, &stats->st[k], k, c, step, arena);
		return true;
	}
	/* more than were decoded with it: all checked first, so that a bad
	 * one costs the event and nothing else */
	tl_xspace_wire_event ev = event_of(x, v);
	tl_xspace_wire_stat st;
	size_t pos = 0;
	int rc;
	while ((rc = tl_xspace_wire_next_stat(&ev, &pos, &st)) > 0)
		;
	if (rc < 0)
		return false;
	pos = 0;
	while (tl_xspace_wire_next_stat(&ev, &pos, &st) > 0)
		scan_stat(x, v, &st, SIZE_MAX, c, step, arena);
	return true;
}


uint32_t tl_xs_name_flags(const char *name)
{
	if (strcmp(name, "MemoryAllocation") == 0 || strcmp(name, "MemoryDeallocation") == 0)
		return F_MEMORY;
	return is_tf_op(name) ? F_TFOP : 0;
}
