/* graphdot: the build of the picture (tl_graphdot_build), run by run:
 * costs per node, selection, scopes, the depth, vertices and edges; then
 * clusters, layout hints, colours and the title. What each step decides
 * is in graphdot_picture.h; DOT is written by emit/dot.c. */
#include "analysis/graphdot_picture.h"

#include "analysis/graphdot_diff.h"
#include "analysis/memory.h"
#include "base/arena.h"
#include "model/nametab.h"

#include <stdlib.h>
#include <string.h>

/* ------------------------------------------------------------------ */
/* Options                                                             */

const char *const tl_color_by_names[] = {"none", "device", "time", "memory", "op", NULL};

void tl_graphdot_opts_init(tl_graphdot_opts *o)
{
	*o = (tl_graphdot_opts){.hops = 1, .edge_labels = TL_EDGE_LABELS_AUTO};
	o->max_nodes = tl_graphdot_default_max_nodes(NULL);
}

size_t tl_graphdot_default_max_nodes(const char *engine)
{
	/* What each engine lays out in well under 30 s on one core (see
	 * docs/graph-render.md). */
	if (engine == NULL || strcmp(engine, "dot") == 0)
		return 1500;
	if (strcmp(engine, "sfdp") == 0 || strcmp(engine, "osage") == 0 ||
	    strcmp(engine, "patchwork") == 0)
		return 6000;
	return 1500;
}

/* ------------------------------------------------------------------ */
/* Numbers                                                             */

/* Sums of costs saturate: a hostile dump must not overflow them. */
static int64_t add_sat(int64_t a, int64_t b)
{
	if (b <= 0)
		return a;
	return a > INT64_MAX - b ? INT64_MAX : a + b;
}

/* ------------------------------------------------------------------ */
/* Costs per graph node                                                */

static void node_costs(struct rview *rv, const tl_run *run, const tl_memory *have)
{
	size_t n = run->n_nodes;
	int64_t *gpu = g_new0(int64_t, n + 1);
	for (size_t i = 0; i < run->n_execs; i++) {
		const tl_exec *e = &run->execs[i];
		tl_device_kind k = run->devices[e->device].kind;
		int64_t dur = e->end > e->start ? e->end - e->start : 0;
		if ((k == TL_DEV_EXECUTOR || k == TL_DEV_OTHER) && e->gnode >= 0) {
			rv->time[e->gnode] = add_sat(rv->time[e->gnode], dur);
			rv->n_exec[e->gnode]++;
		} else if ((k == TL_DEV_STREAM || k == TL_DEV_MEMCPY) && e->launcher >= 0 &&
			   run->execs[e->launcher].gnode >= 0) {
			int32_t g = run->execs[e->launcher].gnode;
			gpu[g] = add_sat(gpu[g], dur);
		}
	}
	for (size_t i = 0; i < n; i++)
		if (gpu[i] > rv->time[i])
			rv->time[i] = gpu[i];
	g_free(gpu);

	if (!run->has_steps || n == 0)
		return;
	tl_memory *built = have == NULL ? tl_memory_build_buffers(run) : NULL;
	const tl_memory *mem = have != NULL ? have : built;
	for (size_t b = 0; b < mem->n_buffers; b++) {
		const tl_buffer *buf = &mem->buffers[b];
		if (buf->kind != TL_BUF_OUTPUT || buf->producer < 0)
			continue;
		int32_t g = run->execs[buf->producer].gnode;
		if (g >= 0)
			rv->bytes[g] = add_sat(rv->bytes[g], buf->allocated > 0 ? buf->allocated
										: buf->requested);
	}
	tl_memory_free(built);
}

/* ------------------------------------------------------------------ */
/* Vertices                                                            */

/* A vertex for node i (t NONE) or for the scope or fold family t,
 * appended to the vertices drawn where it is drawn. */
static uint32_t new_vertex(tl_graphdot *gd, struct rview *rv, uint32_t run_index, uint32_t i,
			   uint32_t t, bool fold)
{
	const tl_gnode *nd = &rv->run->nodes[i];
	struct vtx v = {.run = run_index,
			.node = -1,
			.target = t,
			.color = -1,
			.group = scope_at(rv, rv->leaf[i])->group};
	if (t == NONE) {
		v.node = (int32_t)i;
		v.name = nd->name;
		v.name_len = (uint32_t)strlen(nd->name);
		v.op = nd->op;
		v.key = v.name;
		v.key_len = v.name_len;
	} else {
		const struct scope *sc = scope_at(rv, t);
		v.folded = fold;
		v.name = sc->path;
		v.name_len = sc->len;
		v.ops = g_hash_table_new(g_str_hash, g_str_equal);
		v.fold_lo = INT64_MAX;
		v.fold_hi = INT64_MIN;
		char *text;
		if (fold) {
			/* "parent/base_*" */
			const struct scope *par = scope_at(rv, sc->parent);
			uint32_t start = par->depth == 0 ? 0 : par->len + 1;
			text = g_strdup_printf("%.*s_*/", (int)(start + sc->base_len), sc->path);
		} else {
			text = g_strdup_printf("%.*s/", (int)sc->len, sc->path);
		}
		v.key = tl_arena_strdup(gd->arena, text);
		v.key_len = (uint32_t)strlen(text);
		g_free(text);
	}
	uint32_t vi = gd->vtx->len;
	uint32_t where = t == NONE ? rv->leaf[i] : scope_at(rv, t)->parent;
	struct scope *ws = scope_at(rv, where);
	v.scope = where;
	v.next = NONE;
	if (ws->last_vtx == NONE)
		ws->first_vtx = vi;
	else
		vtx_at(gd, ws->last_vtx)->next = vi;
	ws->last_vtx = vi;
	g_array_append_val(gd->vtx, v);
	if (t != NONE)
		scope_at(rv, t)->vtx = vi;
	return vi;
}

static void make_vertices(tl_graphdot *gd, struct rview *rv, uint32_t run_index, int depth)
{
	tl_run *run = rv->run;
	for (size_t i = 0; i < run->n_nodes; i++) {
		if (!rv->kept[i])
			continue;
		const tl_gnode *nd = &run->nodes[i];
		bool fold;
		uint32_t t = tl_graphdot_scope_target(rv, (uint32_t)i, depth, &fold);
		uint32_t vi;
		if (t != NONE && scope_at(rv, t)->vtx != NONE)
			vi = scope_at(rv, t)->vtx;
		else
			vi = new_vertex(gd, rv, run_index, (uint32_t)i, t, fold);
		rv->vtx[i] = vi;
		struct vtx *v = vtx_at(gd, vi);
		v->n_ops++;
		v->n_exec += rv->n_exec[i];
		v->time = add_sat(v->time, rv->time[i]);
		v->bytes = add_sat(v->bytes, rv->bytes[i]);
		if (v->ops != NULL) {
			gpointer c = g_hash_table_lookup(v->ops, nd->op);
			g_hash_table_insert(v->ops, (gpointer)nd->op,
					    GUINT_TO_POINTER(GPOINTER_TO_UINT(c) + 1));
		}
		if (fold) {
			/* which folded scope of the family the node is in */
			uint32_t f = scope_at(rv, rv->leaf[i])->fold_top;
			struct scope *fs = scope_at(rv, f);
			if (!fs->fold_seen) {
				fs->fold_seen = true;
				v->n_folded++;
				if (fs->num < v->fold_lo)
					v->fold_lo = fs->num;
				if (fs->num > v->fold_hi)
					v->fold_hi = fs->num;
			}
		}
	}
}

static int cmp_op_count(const void *a, const void *b)
{
	const struct op_count *x = a, *y = b;
	if (x->count != y->count)
		return x->count > y->count ? -1 : 1;
	return strcmp(x->op, y->op);
}

struct op_count *tl_graphdot_ops_ranked(GHashTable *count, guint *n)
{
	struct op_count *oc = g_new(struct op_count, g_hash_table_size(count) + 1);
	GHashTableIter it;
	gpointer k, val;
	guint m = 0;
	g_hash_table_iter_init(&it, count);
	while (g_hash_table_iter_next(&it, &k, &val))
		oc[m++] = (struct op_count){.op = k, .count = GPOINTER_TO_UINT(val)};
	qsort(oc, m, sizeof *oc, cmp_op_count);
	*n = m;
	return oc;
}

/* "Conv2D 4, Relu 4, MatMul 2, +3 types" and the most common op. */
static void summarize_ops(struct vtx *v)
{
	guint m = 0;
	struct op_count *oc = tl_graphdot_ops_ranked(v->ops, &m);
	GString *s = g_string_new(NULL);
	for (guint i = 0; i < m && i < 3; i++)
		g_string_append_printf(s, "%s%s %u", i > 0 ? ", " : "", oc[i].op, oc[i].count);
	if (m > 3)
		g_string_append_printf(s, ", +%u types", m - 3);
	v->op = m > 0 ? oc[0].op : "";
	v->types = g_string_free(s, FALSE);
	g_free(oc);
	g_hash_table_destroy(v->ops);
	v->ops = NULL;
}

/* ------------------------------------------------------------------ */
/* Edges                                                               */

struct ekey {
	uint32_t src, dst;
	uint32_t kind;
};

static guint ekey_hash(gconstpointer p)
{
	const struct ekey *k = p;
	return k->src * 2654435761u ^ (k->dst * 40503u + k->kind);
}

static gboolean ekey_equal(gconstpointer a, gconstpointer b)
{
	const struct ekey *x = a, *y = b;
	return x->src == y->src && x->dst == y->dst && x->kind == y->kind;
}

static void make_edges(tl_graphdot *gd, struct rview *rv, uint32_t run_index)
{
	GHashTable *agg = g_hash_table_new(ekey_hash, ekey_equal);
	for (size_t e = 0; e < rv->n_edges; e++) {
		const struct cedge *c = &rv->edges[e];
		if (!rv->kept[c->src] || !rv->kept[c->dst])
			continue;
		uint32_t vs = rv->vtx[c->src], vd = rv->vtx[c->dst];
		if (vs == vd)
			continue;
		int64_t bytes = rv->ebytes[e];
		bool plain = vtx_at(gd, vs)->node >= 0 && vtx_at(gd, vd)->node >= 0;
		if (!plain) {
			struct ekey key = {.src = vs, .dst = vd, .kind = c->kind};
			gpointer hit = g_hash_table_lookup(agg, &key);
			if (hit != NULL) {
				struct dedge *d = &g_array_index(gd->edges, struct dedge,
								 GPOINTER_TO_UINT(hit) - 1);
				d->count++;
				d->bytes = add_sat(d->bytes, bytes);
				continue;
			}
			struct ekey *k = tl_arena_alloc(gd->arena, sizeof *k);
			*k = key;
			g_hash_table_insert(agg, k, GUINT_TO_POINTER(gd->edges->len + 1));
		}
		struct dedge d = {.src = vs,
				  .dst = vd,
				  .run = run_index,
				  .gsrc = c->src,
				  .port = c->port,
				  .kind = c->kind,
				  .count = 1,
				  .bytes = bytes,
				  .tensor = rv->etensor[e]};
		g_array_append_val(gd->edges, d);
		if (c->kind == EK_TRANSFER || c->kind == EK_TRANSFER_CONTROL)
			gd->stats.transfers++;
	}
	g_hash_table_destroy(agg);
}

/* ------------------------------------------------------------------ */
/* Build                                                               */

static void view_free(struct rview *rv)
{
	g_free(rv->time);
	g_free(rv->bytes);
	g_free(rv->n_exec);
	if (rv->own_kept) {
		g_free(rv->hidden);
		g_free(rv->kept);
	}
	if (rv->own_leaf)
		g_free(rv->leaf);
	g_free(rv->anc);
	g_free(rv->sid);
	g_free(rv->vtx);
	if (rv->own_edges)
		g_free(rv->edges);
	if (rv->own_tensors) {
		g_free(rv->ebytes);
		g_free(rv->etensor);
	}
	if (rv->scopes != NULL)
		g_array_free(rv->scopes, TRUE);
	if (rv->groups != NULL)
		g_array_free(rv->groups, TRUE);
	if (rv->scope_of != NULL)
		g_hash_table_destroy(rv->scope_of);
	if (rv->group_by != NULL)
		g_hash_table_destroy(rv->group_by);
	if (rv->warnings != NULL)
		tl_warn_log_drop(rv->warnings);
	if (rv->run != NULL) {
		if (rv->own_nodes)
			g_free(rv->run->nodes);
		g_free(rv->run);
	}
}

void tl_graphdot_free(tl_graphdot *gd)
{
	if (gd == NULL)
		return;
	for (size_t r = 0; r < gd->n_runs; r++)
		view_free(&gd->views[r]);
	g_free(gd->views);
	for (guint i = 0; i < gd->vtx->len; i++) {
		struct vtx *v = vtx_at(gd, i);
		if (v->ops != NULL)
			g_hash_table_destroy(v->ops);
		g_free(v->types);
	}
	g_array_free(gd->vtx, TRUE);
	g_array_free(gd->edges, TRUE);
	for (guint i = 0; i < gd->legend->len; i++)
		g_free(g_array_index(gd->legend, struct legend_entry, i).text);
	g_array_free(gd->legend, TRUE);
	g_free(gd->title);
	g_string_chunk_free(gd->strings);
	tl_nametab_free(gd->interned);
	g_ptr_array_free(gd->interned_strs, TRUE);
	tl_arena_free(gd->arena);
	if (gd->held != NULL)
		tl_warn_log_drop(gd->held);
	if (gd->dev_index != NULL)
		g_hash_table_destroy(gd->dev_index);
	if (gd->op_index != NULL) {
		g_hash_table_destroy(gd->op_index);
		g_ptr_array_free(gd->ops, TRUE);
		g_array_free(gd->op_counts, TRUE);
	}
	g_free(gd->op_slot);
	g_free(gd);
}

const tl_graphdot_stats *tl_graphdot_get_stats(const tl_graphdot *gd)
{
	return &gd->stats;
}

static void build_title(tl_graphdot *gd, bool folded)
{
	GString *s = g_string_new(NULL);
	size_t n_runs = gd->n_dropped + gd->n_runs;
	if (n_runs == 1)
		g_string_append(s, gd->first_label);
	else
		g_string_append_printf(s, "%zu runs", n_runs);
	g_string_append_printf(s, "\n%zu nodes", gd->stats.nodes);
	if (gd->stats.kept != gd->stats.nodes)
		g_string_append_printf(s, ", %zu shown", gd->stats.kept);
	if (gd->stats.transfers > 0)
		g_string_append_printf(s, ", %zu transfers", gd->stats.transfers);
	if (gd->stats.depth > 0)
		g_string_append_printf(s, "; scopes at level %d collapsed", gd->stats.depth);
	if (folded)
		g_string_append(s, "; numbered scopes folded");
	if (gd->opts.diff != NULL) {
		char *from = tl_graphdot_diff_title(gd->opts.diff);
		g_string_append_printf(s, "\n%s", from);
		g_free(from);
	}
	gd->title = g_string_free(s, FALSE);
}

/* One copy of each text, so that equal texts are equal pointers. A run's
 * names are hashed once each by the name table (eight bytes at a time):
 * GLib's g_string_chunk_insert_const hashed a new one twice, a byte at a
 * time, and was a twentieth of graph-render on a 10 MB run. */
static const char *intern(tl_graphdot *gd, const char *s)
{
	if (s == NULL)
		return NULL;
	size_t len = strlen(s);
	if (len >= UINT32_MAX - 1) /* past what the table holds: a copy of its own */
		return g_string_chunk_insert(gd->strings, s);
	tl_name name = tl_nametab_name(s, len);
	uint32_t i = tl_nametab_get(gd->interned, 0, name);
	if (i != TL_NAMETAB_NONE)
		return g_ptr_array_index(gd->interned_strs, i);
	name.s = g_string_chunk_insert_len(gd->strings, s, (gssize)len);
	i = gd->interned_strs->len;
	g_ptr_array_add(gd->interned_strs, (gpointer)name.s);
	tl_nametab_put(gd->interned, 0, name, i);
	return name.s;
}

/* What the picture keeps of a run: its label and has_*, and its nodes'
 * names, ops, devices and partitions (interned); the rest is the run's. */
static tl_run *keep_of(tl_graphdot *gd, const tl_run *run)
{
	tl_run *k = g_new0(tl_run, 1);
	k->label = intern(gd, run->label);
	k->has_steps = run->has_steps;
	k->has_graphs = run->has_graphs;
	k->n_nodes = run->n_nodes;
	k->nodes = g_new0(tl_gnode, run->n_nodes + 1);
	for (size_t i = 0; i < run->n_nodes; i++) {
		const tl_gnode *nd = &run->nodes[i];
		k->nodes[i] = (tl_gnode){.name = intern(gd, nd->name),
					 .op = intern(gd, nd->op),
					 .device = intern(gd, nd->device),
					 .partition = nd->partition};
	}
	const struct rview *prev = gd->n_runs > 1 ? &gd->views[gd->n_runs - 2] : NULL;
	bool same = prev != NULL && prev->run->n_nodes == k->n_nodes;
	for (size_t i = 0; same && i < k->n_nodes; i++) {
		const tl_gnode *a = &k->nodes[i], *b = &prev->run->nodes[i];
		same = a->name == b->name && a->op == b->op && a->device == b->device &&
		       a->partition == b->partition;
	}
	if (same) {
		g_free(k->nodes);
		k->nodes = prev->run->nodes;
	}
	gd->views[gd->n_runs - 1].own_nodes = !same;
	return k;
}

/* Where this run's arrays are the same as the run before's, its view
 * points to that run's and frees its own. */
static void share_with_prev(tl_graphdot *gd, struct rview *rv)
{
	struct rview *prev = gd->n_runs > 1 ? &gd->views[gd->n_runs - 2] : NULL;
	size_t n = rv->run->n_nodes;
	rv->own_edges = rv->own_tensors = rv->own_kept = rv->own_leaf = true;
	if (prev == NULL || prev->run->n_nodes != n || prev->n_edges != rv->n_edges)
		return;
	bool same = true;
	for (size_t e = 0; same && e < rv->n_edges; e++) {
		const struct cedge *a = &rv->edges[e], *b = &prev->edges[e];
		same = a->src == b->src && a->dst == b->dst && a->port == b->port &&
		       a->kind == b->kind;
	}
	if (same) {
		g_free(rv->edges);
		rv->edges = prev->edges;
		rv->own_edges = false;
	}
	if (memcmp(rv->ebytes, prev->ebytes, rv->n_edges * sizeof *rv->ebytes) == 0 &&
	    memcmp(rv->etensor, prev->etensor, rv->n_edges * sizeof *rv->etensor) == 0) {
		g_free(rv->ebytes);
		g_free(rv->etensor);
		rv->ebytes = prev->ebytes;
		rv->etensor = prev->etensor;
		rv->own_tensors = false;
	}
	if (memcmp(rv->hidden, prev->hidden, n * sizeof *rv->hidden) == 0 &&
	    memcmp(rv->kept, prev->kept, n * sizeof *rv->kept) == 0) {
		g_free(rv->hidden);
		g_free(rv->kept);
		rv->hidden = prev->hidden;
		rv->kept = prev->kept;
		rv->own_kept = false;
	}
	if (memcmp(rv->leaf, prev->leaf, n * sizeof *rv->leaf) == 0) {
		g_free(rv->leaf);
		rv->leaf = prev->leaf;
		rv->own_leaf = false;
	}
}

/* The bytes and the dtype and shape of each data edge's tensor, where
 * both its ends are kept, from the run's step stats or graph. */
static void edge_tensors(tl_graphdot *gd, struct rview *rv, const tl_run *run)
{
	rv->ebytes = g_new0(int64_t, rv->n_edges + 1);
	rv->etensor = g_new0(const char *, rv->n_edges + 1);
	if (gd->opts.untyped_edges)
		return;
	GString *text = g_string_new(NULL);
	for (size_t e = 0; e < rv->n_edges; e++) {
		const struct cedge *c = &rv->edges[e];
		if (!rv->kept[c->src] || !rv->kept[c->dst] ||
		    (c->kind != EK_DATA && c->kind != EK_TRANSFER))
			continue;
		tl_graphdot_tensor t = tl_graphdot_tensor_of(run, c->src, c->port);
		rv->ebytes[e] = t.bytes;
		g_string_truncate(text, 0);
		tl_graphdot_tensor_text(text, &t);
		if (text->len > 0)
			rv->etensor[e] = intern(gd, text->str);
	}
	g_string_free(text, TRUE);
}

int tl_graphdot_begin(tl_graphdot **out, const tl_graphdot_opts *opts, tl_error *err)
{
	if (opts->max_depth < 0 || opts->hops < 0)
		return tl_error_set(err, "negative depth or hops");
	tl_graphdot *gd = g_new0(tl_graphdot, 1);
	gd->opts = *opts;
	gd->opts.memory = NULL;
	if (opts->diff != NULL)
		gd->opts.color_by =
		    tl_graphdot_diff_memory(opts->diff) ? TL_COLOR_MEMORY : TL_COLOR_TIME;
	gd->arena = tl_arena_new();
	gd->strings = g_string_chunk_new(64 * 1024);
	gd->interned = tl_nametab_new(1024);
	gd->interned_strs = g_ptr_array_new();
	gd->vtx = g_array_new(FALSE, FALSE, sizeof(struct vtx));
	gd->edges = g_array_new(FALSE, FALSE, sizeof(struct dedge));
	gd->legend = g_array_new(FALSE, FALSE, sizeof(struct legend_entry));
	gd->cost_lo = INT64_MAX;
	*out = gd;
	return 0;
}

/* Each vertex's ops summed up, the collapsed ones counted. */
static void summarize_vertices(tl_graphdot *gd)
{
	for (guint i = 0; i < gd->vtx->len; i++) {
		struct vtx *v = vtx_at(gd, i);
		if (v->ops != NULL)
			summarize_ops(v);
		if (v->node < 0)
			gd->stats.collapsed++;
	}
}

/* Run r's vertices at the depth its layout cost allows (its ancestors and
 * scope ids are let go after), counted in the stats. */
static void run_vertices(tl_graphdot *gd, struct rview *rv, uint32_t r)
{
	size_t n = rv->run->n_nodes;
	rv->anc = g_new(uint32_t, n + 1);
	for (size_t i = 0; i < n; i++)
		rv->anc[i] = NONE;
	rv->vtx = g_new0(uint32_t, n + 1);
	uint64_t cost = 0;
	int depth = tl_graphdot_layout_depth(gd, rv, &cost);
	gd->stats.layout_cost += cost;
	if (depth > gd->stats.depth)
		gd->stats.depth = depth;
	make_vertices(gd, rv, r, depth);
	g_free(rv->anc);
	g_free(rv->sid);
	rv->anc = rv->sid = NULL;
	gd->any_folded = gd->any_folded || rv->folded;
}
/* One run's costs, what is kept, the tensors of its edges and its scopes;
 * then it is let go. The depth it is drawn at waits for the end, when the
 * runs' share of max_nodes is known. */
void tl_graphdot_add(tl_graphdot *gd, const tl_run *run, const tl_memory *memory)
{
	if (gd->n_runs == gd->cap_runs) {
		gd->cap_runs = gd->cap_runs == 0 ? 4 : 2 * gd->cap_runs;
		gd->views = g_renew(struct rview, gd->views, gd->cap_runs + 1);
	}
	struct rview *rv = &gd->views[gd->n_runs++];
	*rv = (struct rview){0};
	rv->warnings = tl_warn_log_begin();
	if (!run->has_graphs)
		tl_warn("graph-none",
			"no graph in '%s' (a GraphDef or RunMetadata with "
			"partition_graphs draws one)",
			run->label);
	size_t n = run->n_nodes;
	rv->run = (tl_run *)run; /* while it is added: contract and select read it */
	rv->time = g_new0(int64_t, n + 1);
	rv->bytes = g_new0(int64_t, n + 1);
	rv->n_exec = g_new0(uint32_t, n + 1);
	rv->hidden = g_new0(bool, n + 1);
	rv->kept = g_new0(bool, n + 1);
	rv->leaf = g_new0(uint32_t, n + 1);
	tl_graphdot_scope_init(rv);
	gd->any_steps = gd->any_steps || run->has_steps;
	node_costs(rv, run, memory);
	tl_graphdot_select_contract(rv);
	tl_graphdot_select_nodes(gd, rv);
	edge_tensors(gd, rv, run);
	rv->run = keep_of(gd, run);
	if (gd->n_dropped + gd->n_runs == 1)
		gd->first_label = rv->run->label;
	for (size_t i = 0; i < n; i++) {
		rv->n_kept += rv->kept[i];
		gd->stats.nodes += !rv->hidden[i];
	}
	gd->stats.kept += rv->n_kept;
	tl_graphdot_scope_build(gd, rv);
	g_hash_table_destroy(rv->scope_of);
	g_hash_table_destroy(rv->group_by);
	rv->scope_of = rv->group_by = NULL;
	share_with_prev(gd, rv);
	if (gd->opts.fold)
		tl_graphdot_scope_fold(rv);
	tl_warn_log_end();
}

void tl_graphdot_finish(tl_graphdot *gd)
{
	size_t n_runs = gd->n_runs;
	const tl_graphdot_opts *opts = &gd->opts;
	if (opts->max_nodes > 0)
		gd->run_budget = n_runs > 1 ? MAX(opts->max_nodes / n_runs, 1) : opts->max_nodes;
	for (size_t r = 0; r < n_runs; r++) {
		struct rview *rv = &gd->views[r];
		tl_warn_log_tell(rv->warnings);
		rv->warnings = NULL;
		run_vertices(gd, rv, (uint32_t)r);
	}
	if (opts->focus != NULL && gd->stats.kept == 0)
		tl_warn("graph-focus-empty", "--focus matches no node: nothing to draw");
	if (opts->top > 0 && !gd->any_steps)
		tl_warn("graph-top-no-stats", "--top has no costs to rank by (no step stats): "
					      "nothing to draw");
	summarize_vertices(gd);
	gd->stats.vertices = gd->vtx->len;
	for (size_t r = 0; r < n_runs; r++) {
		make_edges(gd, &gd->views[r], (uint32_t)r);
		tl_graphdot_scope_clusters(gd, &gd->views[r]);
	}
	gd->stats.edges = gd->edges->len;
	tl_graphdot_layout_hints(gd);
	tl_graphdot_color(gd);
	build_title(gd, gd->any_folded);
}

/* ------------------------------------------------------------------ */
/* Run by run                                                          */

bool tl_graphdot_streams(const tl_graphdot_opts *opts)
{
	return opts->max_nodes == 0 && !opts->laid_out && opts->diff == NULL;
}

/* The run's vertices, edges and clusters, as finish makes them: with no
 * budget to share (--max-nodes 0, not laid out) the depth of a run is its
 * own, and nothing of it waits for the runs after it but the fills. */
void tl_graphdot_stream_run(tl_graphdot *gd)
{
	struct rview *rv = &gd->views[0];
	run_vertices(gd, rv, 0);
	summarize_vertices(gd);
	gd->stats.vertices += gd->vtx->len;
	make_edges(gd, rv, 0);
	tl_graphdot_scope_clusters(gd, rv);
	gd->stats.edges += gd->edges->len;
	tl_graphdot_color_run(gd);
}

/* Lets the written run go: its view, vertices and edges. Its warnings
 * join those held, told at the end in the order finish tells them. */
void tl_graphdot_stream_drop(tl_graphdot *gd)
{
	for (size_t r = 0; r < gd->n_runs; r++) {
		struct rview *rv = &gd->views[r];
		tl_warn_log *all = tl_warn_log_begin();
		tl_warn_log_tell(gd->held);
		tl_warn_log_tell(rv->warnings);
		tl_warn_log_end();
		gd->held = all;
		rv->warnings = NULL;
		view_free(rv);
	}
	gd->n_dropped += gd->n_runs;
	gd->n_runs = 0;
	for (guint i = 0; i < gd->vtx->len; i++)
		g_free(vtx_at(gd, i)->types);
	g_array_set_size(gd->vtx, 0);
	g_array_set_size(gd->edges, 0);
	tl_arena_free(gd->arena);
	gd->arena = tl_arena_new();
}

void tl_graphdot_stream_finish(tl_graphdot *gd)
{
	tl_warn_log_tell(gd->held);
	gd->held = NULL;
	if (gd->opts.focus != NULL && gd->stats.kept == 0)
		tl_warn("graph-focus-empty", "--focus matches no node: nothing to draw");
	if (gd->opts.top > 0 && !gd->any_steps)
		tl_warn("graph-top-no-stats", "--top has no costs to rank by (no step stats): "
					      "nothing to draw");
	tl_graphdot_layout_hints(gd);
	tl_graphdot_color_stream_end(gd);
	build_title(gd, gd->any_folded);
}

int tl_graphdot_build(tl_graphdot **out, tl_run *const *runs, size_t n_runs,
		      const tl_graphdot_opts *opts, tl_error *err)
{
	tl_graphdot *gd;
	if (tl_graphdot_begin(&gd, opts, err) != 0)
		return -1;
	for (size_t r = 0; r < n_runs; r++)
		tl_graphdot_add(gd, runs[r], opts->memory != NULL ? opts->memory[r] : NULL);
	tl_graphdot_finish(gd);
	*out = gd;
	return 0;
}
