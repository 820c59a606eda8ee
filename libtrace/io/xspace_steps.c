#include "io/xspace_internal.h"

#include "base/crew.h"

/* ---- steps --------------------------------------------------------------- */

static int cmp_step(const void *a, const void *b)
{
	const xstep *x = a, *y = b;
	return (x->start > y->start) - (x->start < y->start);
}

/* TF writes the Steps line on every GPU plane: a step is one however many
 * planes show it (the same group_id, else the same name), spanning them all. */
static void merge_steps(tl_xspace *xs)
{
	GHashTable *by_group = g_hash_table_new(g_int64_hash, g_int64_equal);
	GHashTable *by_name = g_hash_table_new(g_str_hash, g_str_equal);
	size_t n = 0;
	for (size_t i = 0; i < xs->n_steps; i++) {
		xstep s = xs->steps[i];
		gpointer hit = s.has_group ? g_hash_table_lookup(by_group, &xs->steps[i].group)
					   : g_hash_table_lookup(by_name, s.name);
		if (hit != NULL) {
			xstep *m = &xs->steps[GPOINTER_TO_SIZE(hit) - 1];
			m->start = MIN(m->start, s.start);
			m->end = MAX(m->end, s.end);
			continue;
		}
		xs->steps[n] = s;
		if (s.has_group)
			g_hash_table_insert(by_group, &xs->steps[n].group, GSIZE_TO_POINTER(n + 1));
		else
			g_hash_table_insert(by_name, (gpointer)s.name, GSIZE_TO_POINTER(n + 1));
		n++;
	}
	xs->n_steps = n;
	g_hash_table_destroy(by_group);
	g_hash_table_destroy(by_name);
	qsort(xs->steps, xs->n_steps, sizeof(xstep), cmp_step);
}

void tl_xs_find_steps(tl_xspace *xs)
{
	size_t n = xs->step_ev->len;
	xs->steps = g_new0(xstep, n + 1);
	for (size_t k = 0; k < n; k++) {
		const xev *v = &xs->ev[g_array_index(xs->step_ev, uint32_t, k)];
		const xplane *x = plane_of(xs, v);
		xstep *s = &xs->steps[xs->n_steps++];
		s->start = v->start;
		s->end = v->end;
		s->has_group = (v->flags & F_GROUP) != 0;
		s->group = v->group;
		const char *name = tl_xs_stat_text(x, v, S_STEP_NAME, xs->arena);
		s->name = name != NULL && name[0] ? name : v->name;
	}
	merge_steps(xs);
	xs->n_runs = xs->n_ops == 0 ? 0 : xs->n_steps >= 2 ? xs->n_steps : 1;
}

/* The step an event goes to (with two steps or more): the step of its
 * group_id, else the last step starting at or before it, else the first.
 * *last caches the latest group looked up (events of one group come
 * together). */
struct group_hit {
	bool valid;
	int64_t group;
	gpointer hit;
};

static uint32_t run_of(const tl_xspace *xs, GHashTable *by_group, const xev *v,
		       struct group_hit *last)
{
	gpointer hit = NULL;
	if (v->flags & F_GROUP) {
		if (!last->valid || last->group != v->group) {
			last->hit = g_hash_table_lookup(by_group, &v->group);
			last->group = v->group;
			last->valid = true;
		}
		hit = last->hit;
	}
	if (hit != NULL)
		return (uint32_t)(GPOINTER_TO_SIZE(hit) - 1);
	size_t lo = 0, hi = xs->n_steps;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (xs->steps[mid].start <= v->start)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo > 0 ? (uint32_t)(lo - 1) : 0;
}

/* tl_xs_group_runs' passes over the events, on the crew: per part, how many of
 * its events each run has, then where they go. */
struct runs_ctx {
	tl_xspace *xs;
	GHashTable *by_group; /* or NULL: one run */
	size_t nr;
	uint32_t *at; /* parts x nr: counts, then the next place */
};

static void runs_part(void *ctx, size_t part, size_t lo, size_t hi, tl_arena *arena)
{
	struct runs_ctx *c = ctx;
	uint32_t *count = c->at + part * c->nr;
	struct group_hit last = {0};
	for (size_t i = lo; i < hi; i++) {
		xev *v = &c->xs->ev[i];
		if (c->by_group != NULL)
			v->run = run_of(c->xs, c->by_group, v, &last);
		if (!(v->flags & F_MEMORY) && v->run < c->nr)
			count[v->run]++;
	}
}

static void order_part(void *ctx, size_t part, size_t lo, size_t hi, tl_arena *arena)
{
	struct runs_ctx *c = ctx;
	uint32_t *at = c->at + part * c->nr;
	const xev *ev = c->xs->ev;
	uint32_t *order = c->xs->run_order;
	for (size_t i = lo; i < hi; i++)
		if (!(ev[i].flags & F_MEMORY) && ev[i].run < c->nr)
			order[at[ev[i].run]++] = (uint32_t)i;
}

void tl_xs_group_runs(tl_xspace *xs)
{
	size_t nr = xs->n_runs ? xs->n_runs : 1;
	xs->run_first = g_new0(uint32_t, nr + 1);
	xs->run_order = tl_arena_alloc(xs->arena, (xs->n_ev + 1) * sizeof(uint32_t));
	struct runs_ctx c = {.xs = xs, .nr = nr};
	if (xs->n_runs > 1) {
		c.by_group = g_hash_table_new(g_int64_hash, g_int64_equal);
		for (size_t s = 0; s < xs->n_steps; s++)
			if (xs->steps[s].has_group)
				g_hash_table_insert(c.by_group, &xs->steps[s].group,
						    GSIZE_TO_POINTER(s + 1));
	}
	size_t parts = tl_crew_parts(xs->n_ev);
	c.at = g_new0(uint32_t, parts * nr);
	tl_crew_for(xs->n_ev, runs_part, &c, xs->arena);
	if (c.by_group != NULL)
		g_hash_table_destroy(c.by_group);
	/* counts to places: run r's events from run_first[r], part by part */
	for (size_t r = 0; r < nr; r++) {
		uint32_t at = xs->run_first[r];
		for (size_t p = 0; p < parts; p++) {
			uint32_t n = c.at[p * nr + r];
			c.at[p * nr + r] = at;
			at += n;
		}
		xs->run_first[r + 1] = at;
	}
	tl_crew_for(xs->n_ev, order_part, &c, xs->arena);
	g_free(c.at);
}
