/* graphdot_diff: per node, the change from A to B that graph-render --diff
 * colours by: trace-summarize --diff's node-view rows, then the names left
 * on one side paired by op type and scope. */
#include "analysis/graphdot_diff.h"

#include "analysis/summary.h"
#include "analysis/summary_diff.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* The runs of A and B as read, which a diff of time and its twin of
 * memory share (tl_graphdot_diff_twin): each side's node-view summary
 * (kept until both are matched) and graph nodes' op types. */
struct sides {
	int refs, unmatched;
	/* the diff finished first: its matching (which names, paired how)
	 * is the twin's too, only the values differ */
	const struct tl_graphdot_diff *matched;
	tl_summary *s[2];
	GHashTable *ops[2]; /* per side: node name -> op type, from the graphs */
	GStringChunk *strings;
	char *label[2]; /* each side's first run's label */
	size_t runs[2];
};

struct tl_graphdot_diff {
	bool memory;
	struct sides *in;
	GHashTable *change; /* name of B -> tl_graphdot_change */
	GArray *gone;	    /* tl_graphdot_gone */
	size_t common;
};

static tl_graphdot_diff *diff_new(bool memory, struct sides *in)
{
	tl_graphdot_diff *d = g_new0(tl_graphdot_diff, 1);
	d->memory = memory;
	d->in = in;
	in->refs++;
	in->unmatched++;
	d->change = g_hash_table_new_full(g_str_hash, g_str_equal, NULL, g_free);
	d->gone = g_array_new(FALSE, FALSE, sizeof(tl_graphdot_gone));
	return d;
}

tl_graphdot_diff *tl_graphdot_diff_new(bool memory)
{
	struct sides *in = g_new0(struct sides, 1);
	in->strings = g_string_chunk_new(1u << 14);
	for (int k = 0; k < 2; k++) {
		in->s[k] = tl_summary_new(TL_VIEW_NODE);
		in->ops[k] = g_hash_table_new(g_str_hash, g_str_equal);
	}
	return diff_new(memory, in);
}

tl_graphdot_diff *tl_graphdot_diff_twin(tl_graphdot_diff *d)
{
	return diff_new(!d->memory, d->in);
}

static void summaries_free(struct sides *in)
{
	for (int k = 0; k < 2; k++) {
		tl_summary_free(in->s[k]);
		in->s[k] = NULL;
	}
}

void tl_graphdot_diff_free(tl_graphdot_diff *d)
{
	if (d == NULL)
		return;
	struct sides *in = d->in;
	if (in->matched == d)
		in->matched = NULL;
	g_hash_table_destroy(d->change);
	g_array_free(d->gone, TRUE);
	g_free(d);
	if (--in->refs > 0)
		return;
	summaries_free(in);
	for (int k = 0; k < 2; k++) {
		g_hash_table_destroy(in->ops[k]);
		g_free(in->label[k]);
	}
	g_string_chunk_free(in->strings);
	g_free(in);
}

bool tl_graphdot_diff_memory(const tl_graphdot_diff *d)
{
	return d->memory;
}

void tl_graphdot_diff_add_run(tl_graphdot_diff *d, int side, const tl_run *run)
{
	struct sides *in = d->in;
	tl_summary_add_run(in->s[side], run);
	if (in->runs[side]++ == 0)
		in->label[side] = g_strdup(run->label);
	for (size_t i = 0; i < run->n_nodes; i++) {
		const tl_gnode *g = &run->nodes[i];
		if (g_hash_table_contains(in->ops[side], g->name))
			continue;
		g_hash_table_insert(in->ops[side],
				    g_string_chunk_insert_const(in->strings, g->name),
				    g_string_chunk_insert_const(in->strings, g->op ? g->op : ""));
	}
}

int64_t tl_graphdot_diff_units(const tl_graphdot_diff *d, double v)
{
	double x = d->memory ? v : v * 1000.0;
	if (!(x == x))
		return 0;
	if (x >= 9.2e18)
		return INT64_MAX;
	if (x <= -9.2e18)
		return -INT64_MAX;
	return (int64_t)llround(x);
}

/* A node's op type: its graph's, else its row's (node rows keep it). */
static const char *op_of(const tl_graphdot_diff *d, int side, const char *name)
{
	const char *op = g_hash_table_lookup(d->in->ops[side], name);
	if (op != NULL)
		return op;
	const tl_row *r = g_hash_table_lookup(d->in->s[side]->rows, name);
	return r != NULL && r->extra != NULL ? r->extra : "";
}

static bool in_side(const tl_graphdot_diff *d, int side, const char *name)
{
	return g_hash_table_contains(d->in->ops[side], name) ||
	       (d->in->s[side] != NULL && g_hash_table_contains(d->in->s[side]->rows, name));
}

/* "op\nscope": the key two unmatched names are paired by. */
static char *pair_key(const tl_graphdot_diff *d, int side, const char *name)
{
	const char *slash = strrchr(name, '/');
	int scope = slash != NULL ? (int)(slash - name) : 0;
	return g_strdup_printf("%s\n%.*s", op_of(d, side, name), scope, name);
}

/* Per pair key, how many names of each side are left and the last one. */
struct left {
	int n[2];
	tl_graphdot_change *c[2];
};

static void pair_by_op_scope(tl_graphdot_diff *d)
{
	GHashTable *left = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, g_free);
	GHashTableIter it;
	gpointer k, v;
	g_hash_table_iter_init(&it, d->change);
	while (g_hash_table_iter_next(&it, &k, &v)) {
		tl_graphdot_change *c = v;
		if (c->in_a && c->in_b)
			continue;
		int side = c->in_b ? 1 : 0;
		char *key = pair_key(d, side, k);
		struct left *l = g_hash_table_lookup(left, key);
		if (l == NULL) {
			l = g_new0(struct left, 1);
			g_hash_table_insert(left, key, l);
		} else {
			g_free(key);
		}
		l->n[side]++;
		l->c[side] = c;
	}
	g_hash_table_iter_init(&it, left);
	while (g_hash_table_iter_next(&it, &k, &v)) {
		struct left *l = v;
		if (l->n[0] != 1 || l->n[1] != 1)
			continue;
		tl_graphdot_change *ca = l->c[0], *cb = l->c[1];
		cb->a = ca->a;
		cb->in_a = true;
		cb->a_name = ca->a_name;
		ca->in_b = true; /* paired: not only in A */
	}
	g_hash_table_destroy(left);
}

static int cmp_gone(const void *x, const void *y)
{
	const tl_graphdot_gone *p = x, *q = y;
	double a = fabs(p->a), b = fabs(q->a);
	if (a != b)
		return a > b ? -1 : 1;
	return strcmp(p->name, q->name);
}

static tl_graphdot_change *change_of(tl_graphdot_diff *d, const char *name)
{
	tl_graphdot_change *c = g_hash_table_lookup(d->change, name);
	if (c != NULL)
		return c;
	const char *own = g_string_chunk_insert_const(d->in->strings, name);
	c = g_new0(tl_graphdot_change, 1);
	c->in_a = in_side(d, 0, own);
	c->in_b = in_side(d, 1, own);
	c->a_name = c->in_a ? own : NULL;
	g_hash_table_insert(d->change, (gpointer)own, c);
	return c;
}

/* A name's statistic in a side, as tl_summary_diff_new gives it (0
 * without a row). */
static double stat_of(const tl_graphdot_diff *d, int side, const char *name,
		      const tl_summary_opts *o)
{
	const tl_summary *s = d->in->s[side];
	const tl_row *r = g_hash_table_lookup(s->rows, name);
	return r != NULL ? tl_summary_row_stat(s, r, o->order_by, o) : 0;
}

/* The twin's matching is the first's (it depends on which names each
 * side has, not on their values): its changes copied, each value read
 * again in the twin's statistic. */
static void finish_as(tl_graphdot_diff *d, const tl_graphdot_diff *first, const tl_summary_opts *o)
{
	GHashTableIter it;
	gpointer k, v;
	g_hash_table_iter_init(&it, first->change);
	while (g_hash_table_iter_next(&it, &k, &v)) {
		tl_graphdot_change *c = g_memdup2(v, sizeof(tl_graphdot_change));
		c->b = stat_of(d, 1, k, o);
		c->a = c->in_a && c->a_name != NULL ? stat_of(d, 0, c->a_name, o) : 0;
		g_hash_table_insert(d->change, k, c);
	}
	for (guint i = 0; i < first->gone->len; i++) {
		tl_graphdot_gone g = g_array_index(first->gone, tl_graphdot_gone, i);
		g.a = stat_of(d, 0, g.name, o);
		g_array_append_val(d->gone, g);
	}
	if (d->gone->len > 1)
		qsort(d->gone->data, d->gone->len, sizeof(tl_graphdot_gone), cmp_gone);
	d->common = first->common;
}

void tl_graphdot_diff_finish(tl_graphdot_diff *d)
{
	tl_summary_opts o;
	tl_summary_opts_init(&o);
	o.order_by = d->memory ? TL_COL_OUTPUT : TL_COL_TOTAL;
	if (d->in->matched != NULL) {
		finish_as(d, d->in->matched, &o);
		if (--d->in->unmatched == 0)
			summaries_free(d->in);
		return;
	}
	tl_summary_diff *sd = tl_summary_diff_new(d->in->s[0], d->in->s[1], &o);
	for (size_t i = 0; i < sd->n; i++) {
		tl_graphdot_change *c = change_of(d, sd->rows[i].name);
		c->a = sd->rows[i].a;
		c->b = sd->rows[i].b;
	}
	tl_summary_diff_free(sd);
	/* the graphs' nodes that no run executed */
	for (int k = 0; k < 2; k++) {
		GHashTableIter it;
		gpointer name;
		g_hash_table_iter_init(&it, d->in->ops[k]);
		while (g_hash_table_iter_next(&it, &name, NULL))
			change_of(d, name);
	}
	pair_by_op_scope(d);
	GHashTableIter it;
	gpointer k, v;
	g_hash_table_iter_init(&it, d->change);
	while (g_hash_table_iter_next(&it, &k, &v)) {
		tl_graphdot_change *c = v;
		if (c->in_a && !c->in_b) {
			tl_graphdot_gone g = {.name = k, .a = c->a};
			g_array_append_val(d->gone, g);
		} else if (c->in_a && g_hash_table_contains(d->in->ops[1], k)) {
			d->common++; /* a node of B's graphs, by name or paired */
		}
	}
	if (d->gone->len > 1)
		qsort(d->gone->data, d->gone->len, sizeof(tl_graphdot_gone), cmp_gone);
	/* only names of B are looked up from here: A's alone go, as their
	 * strings stay in the sides' strings for the gone list */
	g_hash_table_iter_init(&it, d->change);
	while (g_hash_table_iter_next(&it, &k, &v))
		if (!in_side(d, 1, k))
			g_hash_table_iter_remove(&it);
	d->in->matched = d;
	if (--d->in->unmatched == 0)
		summaries_free(d->in);
}

char *tl_graphdot_diff_title(const tl_graphdot_diff *d)
{
	GString *s = g_string_new("change from ");
	for (int k = 0; k < 2; k++) {
		if (k == 1)
			g_string_append(s, " to ");
		g_string_append(s, d->in->label[k] != NULL ? d->in->label[k] : "(no run)");
		if (d->in->runs[k] > 1)
			g_string_append_printf(s, " (%zu runs, averaged)", d->in->runs[k]);
	}
	return g_string_free(s, FALSE);
}

const tl_graphdot_change *tl_graphdot_diff_find(const tl_graphdot_diff *d, const char *name)
{
	return g_hash_table_lookup(d->change, name);
}

const tl_graphdot_gone *tl_graphdot_diff_only_a(const tl_graphdot_diff *d, size_t *n)
{
	*n = d->gone->len;
	return (const tl_graphdot_gone *)(const void *)d->gone->data;
}

size_t tl_graphdot_diff_common(const tl_graphdot_diff *d)
{
	return d->common;
}
