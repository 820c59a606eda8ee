/* graphdot_color: the vertices' fill colours and the legend that explains
 * them. By time or memory: nine bins of a sequential palette on a log scale
 * between the smallest and the largest cost; by device or op type: a
 * categorical palette, the most common op types first; by the change from
 * another run (--diff): a diverging palette, four bins each way on a log
 * scale of the largest change. */
#include "analysis/graphdot_picture.h"

#include "analysis/graphdot_diff.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static const char *const sequential[] = {"#ffffcc", "#ffeda0", "#fed976", "#feb24c", "#fd8d3c",
					 "#fc4e2a", "#e31a1c", "#bd0026", "#800026"};
static const char *const categorical[] = {"#8dd3c7", "#ffffb3", "#bebada", "#fb8072",
					  "#80b1d3", "#fdb462", "#b3de69", "#fccde5",
					  "#bc80bd", "#ccebc5", "#ffed6f", "#d9d9d9"};
/* ColorBrewer's RdBu reversed: faster (less) blue, slower (more) red; the
 * middle a grey that white ("0 in both") stands apart from */
static const char *const diverging[] = {"#2166ac", "#4393c3", "#92c5de", "#d1e5f0", "#e5e5e5",
					"#fddbc7", "#f4a582", "#d6604d", "#b2182b"};
#define N_DIV ((int)G_N_ELEMENTS(diverging))
#define NEUTRAL (N_DIV / 2)
#define NEW_OUTLINE "#1b7837"
#define N_SEQ ((int)G_N_ELEMENTS(sequential))
#define N_CAT ((int)G_N_ELEMENTS(categorical))
#define OTHER_COLOR "#eeeeee"

static void legend_add(tl_graphdot *gd, const char *color, char *text)
{
	struct legend_entry e = {.color = color, .text = text};
	g_array_append_val(gd->legend, e);
}

/* A line for the costs from lo to hi (range), or for lo alone. */
static void legend_add_costs(tl_graphdot *gd, const char *color, int64_t lo, int64_t hi, bool range)
{
	struct legend_entry e = {.color = color, .lo = lo, .hi = hi, .range = range};
	g_array_append_val(gd->legend, e);
}

static int64_t vtx_value(const tl_graphdot *gd, const struct vtx *v)
{
	return gd->opts.color_by == TL_COLOR_MEMORY ? v->bytes : v->time;
}

/* The smallest cost over 0 and the largest of the vertices into *lo and
 * *hi (kept as they were where none is larger or smaller). */
static void cost_range(const tl_graphdot *gd, int64_t *lo, int64_t *hi)
{
	for (guint i = 0; i < gd->vtx->len; i++) {
		int64_t v = vtx_value(gd, vtx_at(gd, i));
		if (v > 0 && v < *lo)
			*lo = v;
		if (v > *hi)
			*hi = v;
	}
}

/* The bin of a cost over 0 among the nine between lo and hi (span:
 * log(hi / lo), or 1 where hi is lo). */
static int cost_bin(int64_t val, int64_t lo, int64_t hi, double span)
{
	if (hi <= lo)
		return N_SEQ - 1;
	int k = (int)(N_SEQ * log((double)val / (double)lo) / span);
	return k < 0 ? 0 : (k >= N_SEQ ? N_SEQ - 1 : k);
}

/* The legend of the nine bins between lo and hi; false (with a warning)
 * where there is no cost. */
static bool sequential_legend(tl_graphdot *gd, int64_t lo, int64_t hi, double *span_out)
{
	gd->legend_title = gd->opts.color_by == TL_COLOR_MEMORY ? "output memory" : "time";
	if (hi == 0) {
		tl_warn("graph-no-cost", "no executions to colour by %s (no step stats)",
			gd->opts.color_by == TL_COLOR_MEMORY ? "memory" : "time");
		return false;
	}
	int bins = hi > lo ? N_SEQ : 1;
	double span = hi > lo ? log((double)hi / (double)lo) : 1.0;
	*span_out = span;
	for (int k = 0; k < N_SEQ; k++) {
		if (bins == 1 && k != N_SEQ - 1)
			continue;
		if (bins == 1) {
			legend_add_costs(gd, sequential[k], lo, lo, false);
		} else {
			double a = (double)lo * exp(span * k / N_SEQ);
			double b = (double)lo * exp(span * (k + 1) / N_SEQ);
			legend_add_costs(gd, sequential[k], (int64_t)llround(a),
					 (int64_t)llround(b), true);
		}
	}
	legend_add(gd, "#ffffff", g_strdup("not run"));
	return true;
}

/* Nine bins on a log scale between the smallest and the largest value. */
static void color_sequential(tl_graphdot *gd)
{
	int64_t lo = INT64_MAX, hi = 0;
	double span = 1.0;
	cost_range(gd, &lo, &hi);
	if (!sequential_legend(gd, lo, hi, &span))
		return;
	for (guint i = 0; i < gd->vtx->len; i++) {
		struct vtx *v = vtx_at(gd, i);
		int64_t val = vtx_value(gd, v);
		if (val > 0)
			v->color = cost_bin(val, lo, hi, span);
	}
}

/* The colour of each group of view r by its device, the devices
 * numbered in the order met (gd->dev_index), a legend line for each new. */
static void color_groups(tl_graphdot *gd, struct rview *rv)
{
	for (guint g = 0; g < rv->groups->len; g++) {
		struct group *gr = &g_array_index(rv->groups, struct group, g);
		const char *name = gr->device[0] != '\0' ? gr->device : "(no device)";
		gpointer hit = g_hash_table_lookup(gd->dev_index, name);
		if (hit == NULL) {
			guint k = g_hash_table_size(gd->dev_index);
			g_hash_table_insert(gd->dev_index, (gpointer)name, GUINT_TO_POINTER(k + 1));
			legend_add(gd, categorical[k % N_CAT], g_strdup(name));
			gr->color = (int)(k % N_CAT);
		} else {
			gr->color = (int)((GPOINTER_TO_UINT(hit) - 1) % N_CAT);
		}
	}
}

static void color_devices(tl_graphdot *gd)
{
	gd->legend_title = "device";
	if (gd->dev_index == NULL)
		gd->dev_index = g_hash_table_new(g_str_hash, g_str_equal);
	for (size_t r = 0; r < gd->n_runs; r++)
		color_groups(gd, &gd->views[r]);
	for (guint i = 0; i < gd->vtx->len; i++) {
		struct vtx *v = vtx_at(gd, i);
		v->color = g_array_index(gd->views[v->run].groups, struct group, v->group).color;
	}
}

/* The legend of the op types by their count (op -> count), the most
 * common first: N_CAT - 1 named, the rest "other"; *slot gets op -> its
 * colour + 1 (none: the others). */
static void ops_legend(tl_graphdot *gd, GHashTable *count, GHashTable *slot)
{
	guint m = 0;
	struct op_count *oc = tl_graphdot_ops_ranked(count, &m);
	guint named = m > (guint)N_CAT ? (guint)N_CAT - 1 : m;
	gd->legend_title = "op type";
	for (guint i = 0; i < named; i++) {
		g_hash_table_insert(slot, (gpointer)oc[i].op, GUINT_TO_POINTER(i + 1));
		legend_add(
		    gd, categorical[i],
		    g_strdup_printf("%s (%u)", oc[i].op[0] ? oc[i].op : "(none)", oc[i].count));
	}
	if (named < m) {
		guint rest = 0;
		for (guint i = named; i < m; i++)
			rest += oc[i].count;
		legend_add(gd, OTHER_COLOR,
			   g_strdup_printf("%u other types (%u)", m - named, rest));
	}
	g_free(oc);
}

static void color_ops(tl_graphdot *gd)
{
	GHashTable *count = g_hash_table_new(g_str_hash, g_str_equal);
	for (guint i = 0; i < gd->vtx->len; i++) {
		const struct vtx *v = vtx_at(gd, i);
		gpointer c = g_hash_table_lookup(count, v->op);
		g_hash_table_insert(count, (gpointer)v->op,
				    GUINT_TO_POINTER(GPOINTER_TO_UINT(c) + 1));
	}
	GHashTable *slot = g_hash_table_new(g_str_hash, g_str_equal);
	ops_legend(gd, count, slot);
	for (guint i = 0; i < gd->vtx->len; i++) {
		struct vtx *v = vtx_at(gd, i);
		gpointer hit = g_hash_table_lookup(slot, v->op);
		v->color = hit != NULL ? (int)GPOINTER_TO_UINT(hit) - 1 : N_CAT;
	}
	g_hash_table_destroy(slot);
	g_hash_table_destroy(count);
}

/* ------------------------------------------------------------------ */
/* --diff                                                              */

/* Per vertex, the sums over its nodes of their statistic in A and in B,
 * and how many are new (only in B). */
static void diff_sums(tl_graphdot *gd)
{
	const tl_graphdot_diff *d = gd->opts.diff;
	for (size_t r = 0; r < gd->n_runs; r++) {
		struct rview *rv = &gd->views[r];
		for (size_t i = 0; i < rv->run->n_nodes; i++) {
			if (!rv->kept[i] || rv->hidden[i])
				continue;
			struct vtx *v = vtx_at(gd, rv->vtx[i]);
			const tl_graphdot_change *c =
			    tl_graphdot_diff_find(d, rv->run->nodes[i].name);
			if (c != NULL)
				v->diff_b += c->b;
			if (c == NULL || !c->in_a) {
				v->n_new++;
				continue;
			}
			v->n_matched++;
			v->diff_a += c->a;
		}
	}
}

/* The bin of a change against the largest one, s: unchanged (exactly)
 * NEUTRAL; else 1 to 4 steps away, slower up and faster down, for |delta|
 * in (0, s/64], (s/64, s/16], (s/16, s/4] and (s/4, s]. */
static int diff_bin(double delta, double s)
{
	if (delta == 0 || !(s > 0))
		return NEUTRAL;
	double m = fabs(delta);
	int k = m > s / 4 ? 4 : m > s / 16 ? 3 : m > s / 64 ? 2 : 1;
	return delta > 0 ? NEUTRAL + k : NEUTRAL - k;
}

/* The ranges of the bins up to the largest change each way, slower first. */
static void diff_legend_bins(tl_graphdot *gd, double s, double max_up, double max_down)
{
	const double edge[] = {0, s / 64, s / 16, s / 4, s};
	for (int k = 4; k >= 1; k--) {
		if (max_up > edge[k - 1])
			legend_add_costs(
			    gd, diverging[NEUTRAL + k],
			    tl_graphdot_diff_units(gd->opts.diff, edge[k - 1]),
			    tl_graphdot_diff_units(gd->opts.diff, MIN(edge[k], max_up)), true);
	}
	legend_add(gd, diverging[NEUTRAL], g_strdup("no change"));
	for (int k = 1; k <= 4; k++) {
		if (max_down > edge[k - 1])
			legend_add_costs(
			    gd, diverging[NEUTRAL - k],
			    tl_graphdot_diff_units(gd->opts.diff, -MIN(edge[k], max_down)),
			    tl_graphdot_diff_units(gd->opts.diff, -edge[k - 1]), true);
	}
}

/* A line of text and a cost (a change). */
static void legend_add_text_cost(tl_graphdot *gd, const char *color, char *text, int64_t cost)
{
	struct legend_entry e = {.color = color, .text = text, .lo = cost, .text_cost = true};
	g_array_append_val(gd->legend, e);
}

/* The nodes only in A: their count and summed change, and the largest. */
static void diff_legend_gone(tl_graphdot *gd, double s)
{
	size_t n = 0;
	const tl_graphdot_gone *gone = tl_graphdot_diff_only_a(gd->opts.diff, &n);
	if (n == 0)
		return;
	double sum = 0;
	for (size_t i = 0; i < n; i++)
		sum += gone[i].a;
	legend_add_text_cost(
	    gd, "#ffffff",
	    g_strdup_printf("only in A (not drawn): %zu node%s, in all", n, n == 1 ? "" : "s"),
	    tl_graphdot_diff_units(gd->opts.diff, -sum));
	for (size_t i = 0; i < n && i < 5; i++)
		legend_add_text_cost(gd, diverging[diff_bin(-gone[i].a, s)], g_strdup(gone[i].name),
				     tl_graphdot_diff_units(gd->opts.diff, -gone[i].a));
	if (n > 5)
		legend_add(gd, "#ffffff", g_strdup_printf("... %zu more", n - 5));
}

static void color_diff(tl_graphdot *gd)
{
	bool memory = gd->opts.color_by == TL_COLOR_MEMORY;
	gd->legend_title = memory ? "output memory change, B - A" : "time change, B - A";
	gd->outline_new = NEW_OUTLINE;
	diff_sums(gd);
	double max_up = 0, max_down = 0;
	uint32_t n_new = 0, n_matched = 0;
	for (guint i = 0; i < gd->vtx->len; i++) {
		const struct vtx *v = vtx_at(gd, i);
		double delta = v->diff_b - v->diff_a;
		max_up = MAX(max_up, delta);
		max_down = MAX(max_down, -delta);
		n_new += v->n_new;
		n_matched += v->n_matched;
	}
	double s = MAX(max_up, max_down);
	gd->diff_scale = s;
	for (guint i = 0; i < gd->vtx->len; i++) {
		struct vtx *v = vtx_at(gd, i);
		if (v->diff_a != 0 || v->diff_b != 0)
			v->color = diff_bin(v->diff_b - v->diff_a, s);
	}
	if (n_matched == 0 && n_new > 0)
		tl_warn("graph-diff-disjoint",
			"A and B have no node drawn in common: every node is new (only in B)");
	diff_legend_bins(gd, s, max_up, max_down);
	legend_add(gd, "#ffffff", g_strdup(memory ? "no output in A nor B" : "not run in A nor B"));
	if (n_new > 0)
		legend_add(gd, "#ffffff",
			   g_strdup_printf("only in B (new): %u node%s, green dashed outline",
					   n_new, n_new == 1 ? "" : "s"));
	diff_legend_gone(gd, s);
}

const char *tl_graphdot_diff_fill(const tl_graphdot *gd, double a, double b, bool *dark)
{
	if (a == 0 && b == 0) {
		*dark = false;
		return NULL;
	}
	int k = diff_bin(b - a, gd->diff_scale);
	*dark = k <= 1 || k >= N_DIV - 2;
	return diverging[k];
}

const char *const *tl_graphdot_diff_palette(size_t *n)
{
	*n = N_DIV;
	return diverging;
}

static const char *vtx_fill(const tl_graphdot *gd, const struct vtx *v)
{
	if (v->color < 0)
		return NULL;
	if (gd->opts.diff != NULL)
		return diverging[v->color];
	switch (gd->opts.color_by) {
	case TL_COLOR_TIME:
	case TL_COLOR_MEMORY:
		return sequential[v->color];
	case TL_COLOR_DEVICE:
		return categorical[v->color];
	case TL_COLOR_OP:
		return v->color < N_CAT ? categorical[v->color] : OTHER_COLOR;
	default:
		return NULL;
	}
}

/* The three darkest of the sequential palette and the two darkest each
 * way of the diverging one. */
static bool fill_is_dark(const char *fill)
{
	return fill != NULL &&
	       (fill == sequential[N_SEQ - 1] || fill == sequential[N_SEQ - 2] ||
		fill == sequential[N_SEQ - 3] || fill == diverging[0] || fill == diverging[1] ||
		fill == diverging[N_DIV - 1] || fill == diverging[N_DIV - 2]);
}

void tl_graphdot_color(tl_graphdot *gd)
{
	switch (gd->opts.diff != NULL ? -1 : (int)gd->opts.color_by) {
	case -1:
		color_diff(gd);
		break;
	case TL_COLOR_TIME:
	case TL_COLOR_MEMORY:
		color_sequential(gd);
		break;
	case TL_COLOR_DEVICE:
		color_devices(gd);
		break;
	case TL_COLOR_OP:
		color_ops(gd);
		break;
	default:
		break;
	}
	for (guint i = 0; i < gd->vtx->len; i++) {
		struct vtx *v = vtx_at(gd, i);
		v->fill = vtx_fill(gd, v);
		v->fill_dark = fill_is_dark(v->fill);
	}
}

/* ------------------------------------------------------------------ */
/* Run by run                                                          */

void tl_graphdot_color_run(tl_graphdot *gd)
{
	switch (gd->opts.color_by) {
	case TL_COLOR_TIME:
	case TL_COLOR_MEMORY:
		cost_range(gd, &gd->cost_lo, &gd->cost_hi);
		break;
	case TL_COLOR_DEVICE:
		if (gd->dev_index == NULL)
			gd->dev_index = g_hash_table_new(g_str_hash, g_str_equal);
		color_groups(gd, &gd->views[0]);
		for (guint i = 0; i < gd->vtx->len; i++) {
			struct vtx *v = vtx_at(gd, i);
			v->color = g_array_index(gd->views[v->run].groups, struct group, v->group)
				       .color;
			v->fill = vtx_fill(gd, v);
			v->fill_dark = fill_is_dark(v->fill);
		}
		break;
	case TL_COLOR_OP:
		if (gd->op_index == NULL) {
			gd->op_index = g_hash_table_new(g_str_hash, g_str_equal);
			gd->ops = g_ptr_array_new();
			gd->op_counts = g_array_new(FALSE, TRUE, sizeof(guint));
		}
		for (guint i = 0; i < gd->vtx->len; i++) {
			const struct vtx *v = vtx_at(gd, i);
			gpointer hit = g_hash_table_lookup(gd->op_index, v->op);
			if (hit == NULL) {
				g_ptr_array_add(gd->ops, (gpointer)v->op);
				g_array_set_size(gd->op_counts, gd->ops->len);
				hit = GUINT_TO_POINTER(gd->ops->len);
				g_hash_table_insert(gd->op_index, (gpointer)v->op, hit);
			}
			g_array_index(gd->op_counts, guint, GPOINTER_TO_UINT(hit) - 1)++;
		}
		break;
	default:
		break;
	}
}

bool tl_graphdot_fill_key(const tl_graphdot *gd, const struct vtx *v, int64_t *key)
{
	switch (gd->opts.color_by) {
	case TL_COLOR_TIME:
	case TL_COLOR_MEMORY:
		*key = vtx_value(gd, v);
		return *key > 0;
	case TL_COLOR_OP:
		*key = (int64_t)GPOINTER_TO_UINT(g_hash_table_lookup(gd->op_index, v->op)) - 1;
		return true;
	default:
		return false;
	}
}

void tl_graphdot_color_stream_end(tl_graphdot *gd)
{
	switch (gd->opts.color_by) {
	case TL_COLOR_TIME:
	case TL_COLOR_MEMORY:
		gd->cost_span = 1.0;
		sequential_legend(gd, gd->cost_lo, gd->cost_hi, &gd->cost_span);
		break;
	case TL_COLOR_DEVICE:
		gd->legend_title = "device";
		break;
	case TL_COLOR_OP: {
		GHashTable *count = g_hash_table_new(g_str_hash, g_str_equal);
		GHashTable *slot = g_hash_table_new(g_str_hash, g_str_equal);
		guint n = gd->ops != NULL ? gd->ops->len : 0;
		for (guint k = 0; k < n; k++)
			g_hash_table_insert(
			    count, g_ptr_array_index(gd->ops, k),
			    GUINT_TO_POINTER(g_array_index(gd->op_counts, guint, k)));
		ops_legend(gd, count, slot);
		gd->op_slot = g_new(int, n + 1);
		for (guint k = 0; k < n; k++) {
			gpointer hit = g_hash_table_lookup(slot, g_ptr_array_index(gd->ops, k));
			gd->op_slot[k] = hit != NULL ? (int)GPOINTER_TO_UINT(hit) - 1 : N_CAT;
		}
		g_hash_table_destroy(slot);
		g_hash_table_destroy(count);
		break;
	}
	default:
		break;
	}
}

const char *tl_graphdot_stream_fill(const tl_graphdot *gd, int64_t key, bool *dark)
{
	const char *fill;
	if (gd->opts.color_by == TL_COLOR_OP) {
		int k = gd->op_slot[key];
		fill = k < N_CAT ? categorical[k] : OTHER_COLOR;
	} else {
		fill = sequential[cost_bin(key, gd->cost_lo, gd->cost_hi, gd->cost_span)];
	}
	*dark = fill_is_dark(fill);
	return fill;
}
