/* dot: the picture of tl_graphdot_build as DOT text, streamed or in
 * memory, and laid out and rendered in-process by Graphviz (cgraph + gvc).
 * What is drawn was decided by the analysis (analysis/graphdot*.c); here it
 * gets DOT's spelling: quoted ids made unique, escaped labels, units,
 * clusters, attributes. */
#include "emit/dot.h"
#include "emit/dot_pack.h"
#include "emit/dot_read.h"
#include "emit/json.h"

#include "analysis/graphdot_picture.h"
#include "analysis/graphdot_diff.h"
#include "base/utf8.h"
#include "base/bytes.h"

#include <cgraph.h>
#include <gvc.h>

#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ------------------------------------------------------------------ */
/* Engines and formats                                                 */

static const char *const engines[] = {"dot",   "neato", "fdp",	 "sfdp",
				      "twopi", "circo", "osage", "patchwork"};

bool tl_dot_engine_known(const char *engine)
{
	for (size_t i = 0; i < G_N_ELEMENTS(engines); i++)
		if (strcmp(engine, engines[i]) == 0)
			return true;
	return false;
}

/* Files only: Graphviz also has devices that open windows (x11, gtk). */
static const char *const text_formats[] = {"svg", "dot", "xdot", "json", "plain", "ps", "eps"};
static const char *const binary_formats[] = {"png", "pdf",  "svgz", "jpg", "jpeg",
					     "gif", "webp", "bmp",  "tiff"};

bool tl_dot_format_known(const char *format)
{
	for (size_t i = 0; i < G_N_ELEMENTS(text_formats); i++)
		if (strcmp(format, text_formats[i]) == 0)
			return true;
	return tl_dot_format_binary(format);
}

bool tl_dot_format_binary(const char *format)
{
	for (size_t i = 0; i < G_N_ELEMENTS(binary_formats); i++)
		if (strcmp(format, binary_formats[i]) == 0)
			return true;
	return false;
}

/* ------------------------------------------------------------------ */
/* Escaping                                                            */

static const char replacement[] = "\xEF\xBF\xBD"; /* U+FFFD */

/* Copies the character at p (p[0] >= 0x80), or U+FFFD for a byte that
 * starts none; returns the byte after what it read. */
static const char *append_utf8(GString *s, const char *p, const char *end)
{
	int32_t cp;
	const char *next = tl_utf8_next(p, end, &cp);
	if (cp < 0)
		g_string_append(s, replacement);
	else
		g_string_append_len(s, p, next - p);
	return next;
}

void tl_dot_quote(GString *s, const char *text, size_t len, bool label)
{
	const char *p = text, *end = text + len;
	bool last_backslash = false;
	g_string_append_c(s, '"');
	while (p < end) {
		unsigned char c = (unsigned char)*p;
		last_backslash = false;
		if (c >= 0x80) {
			p = append_utf8(s, p, end);
			continue;
		}
		p++;
		if (c == '"') {
			g_string_append(s, "\\\"");
		} else if (c == '&') {
			/* Graphviz reads HTML entities in every string */
			g_string_append(s, "&amp;");
		} else if (c == '\\') {
			if (label) {
				g_string_append(s, "\\\\");
				last_backslash = true;
			} else {
				g_string_append_c(s, '_');
			}
		} else if (c == '\n' && label) {
			g_string_append(s, "\\n");
		} else if (c < 0x20 || c == 0x7f) {
			if (label)
				g_string_append(s, c == '\t' ? " " : replacement);
			else
				g_string_append_c(s, '_');
		} else {
			g_string_append_c(s, (char)c);
		}
	}
	/* A backslash right before the closing quote would escape it in older
	 * cgraph scanners; an escaped newline (a line continuation) between
	 * them is read as nothing by every version. */
	if (last_backslash)
		g_string_append(s, "\\\n");
	g_string_append_c(s, '"');
}

void tl_dot_html(GString *s, const char *text)
{
	const char *p = text, *end = text + strlen(text);
	while (p < end) {
		unsigned char c = (unsigned char)*p;
		if (c >= 0x80) {
			p = append_utf8(s, p, end);
			continue;
		}
		p++;
		switch (c) {
		case '&':
			g_string_append(s, "&amp;");
			break;
		case '<':
			g_string_append(s, "&lt;");
			break;
		case '>':
			g_string_append(s, "&gt;");
			break;
		case '"':
			g_string_append(s, "&quot;");
			break;
		default:
			if (c < 0x20 || c == 0x7f)
				g_string_append(s, replacement);
			else
				g_string_append_c(s, (char)c);
		}
	}
}

/* ------------------------------------------------------------------ */
/* Labels: times, byte sizes, tensors                                  */

/* Three significant digits: "1.23", "12.3", "123". */
static void sig3(GString *s, double v, const char *unit)
{
	if (v < 9.995)
		g_string_append_printf(s, "%.2f %s", v, unit);
	else if (v < 99.95)
		g_string_append_printf(s, "%.1f %s", v, unit);
	else
		g_string_append_printf(s, "%.0f %s", v, unit);
}

static void fmt_time(GString *s, int64_t ns)
{
	if (ns < 1000)
		g_string_append_printf(s, "%" PRId64 " ns", ns);
	else if (ns < 999500)
		sig3(s, (double)ns / 1e3, "us");
	else if (ns < 999500000)
		sig3(s, (double)ns / 1e6, "ms");
	else
		sig3(s, (double)ns / 1e9, "s");
}

/* tfprof's decimal units, as the memory report and plots print them. */
static void fmt_bytes(GString *s, int64_t b)
{
	char buf[TL_BYTES_FORMAT_MAX];
	g_string_append_len(s, buf, (gssize)tl_bytes_format(buf, sizeof buf, (double)b));
}

/* ------------------------------------------------------------------ */
/* DOT                                                                 */

/* Length of the path of the nearest drawn cluster at or above s. */
static uint32_t cluster_prefix(struct rview *rv, uint32_t s)
{
	while (s != NONE) {
		const struct scope *sc = scope_at(rv, s);
		if (sc->depth == 0)
			return 0;
		if (sc->cluster)
			return sc->len;
		s = sc->parent;
	}
	return 0;
}

/* The node ids in use, kept by name and not one by one: a stream of one
 * graph gives each name an id per run ("name", "name#2" ... "name#100"),
 * and these are the name's record with the span 2..100. An id is taken
 * where its quoted string is an id itself (plain) or is "X#k" with k
 * among those given from X (the last '#' of "X#k" is the suffix's, as k
 * has none, so the pair is found from the string alone). */
struct idrec {
	const char *key; /* its quoted string (the table's key) */
	size_t key_len;
	bool plain;	 /* the quoted string is an id */
	unsigned next;	 /* where the last search for a free "#k" stopped, or 0 */
	unsigned lo, hi; /* the last span of k given ("X#k" taken), 0 0: none */
	GArray *spans;	 /* earlier spans (lo, hi pairs), or NULL */
};

struct idtab {
	GHashTable *recs; /* quoted string -> struct idrec (both owned) */
	GString *tmp, *alt;
};

static void idrec_free(gpointer p)
{
	struct idrec *r = p;
	if (r->spans != NULL)
		g_array_free(r->spans, TRUE);
	g_free(r);
}

static struct idtab *idtab_new(void)
{
	struct idtab *t = g_new0(struct idtab, 1);
	t->recs = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, idrec_free);
	t->tmp = g_string_new(NULL);
	t->alt = g_string_new(NULL);
	return t;
}

static void idtab_free(struct idtab *t)
{
	if (t == NULL)
		return;
	g_hash_table_destroy(t->recs);
	g_string_free(t->tmp, TRUE);
	g_string_free(t->alt, TRUE);
	g_free(t);
}

static struct idrec *id_rec(struct idtab *t, const char *q)
{
	struct idrec *r = g_hash_table_lookup(t->recs, q);
	if (r == NULL) {
		r = g_new0(struct idrec, 1);
		char *key = g_strdup(q);
		r->key = key;
		r->key_len = strlen(key);
		g_hash_table_insert(t->recs, key, r);
	}
	return r;
}

static bool span_has(const struct idrec *r, unsigned k)
{
	if (r->lo != 0 && k >= r->lo && k <= r->hi)
		return true;
	for (guint i = 0; r->spans != NULL && i + 1 < r->spans->len; i += 2)
		if (k >= g_array_index(r->spans, unsigned, i) &&
		    k <= g_array_index(r->spans, unsigned, i + 1))
			return true;
	return false;
}

/* A quoted "X#k" (k as %u writes it, 2 or more) as X's record key (X and
 * the closing quote, in t->tmp) and k; false for any other string. */
static bool split_suffix(struct idtab *t, const char *q, size_t n, unsigned *k)
{
	if (n < 4 || q[n - 1] != '"')
		return false;
	size_t h = n - 1;
	while (h > 0 && q[h - 1] >= '0' && q[h - 1] <= '9')
		h--;
	if (h == 0 || h == n - 1 || q[h - 1] != '#' || q[h] == '0' || n - 1 - h > 10)
		return false;
	uint64_t v = 0;
	for (size_t i = h; i < n - 1; i++)
		v = v * 10 + (uint64_t)(q[i] - '0');
	if (v > G_MAXUINT)
		return false;
	*k = (unsigned)v;
	g_string_truncate(t->tmp, 0);
	g_string_append_len(t->tmp, q, (gssize)(h - 1));
	g_string_append_c(t->tmp, '"');
	return true;
}

static void span_add(struct idrec *r, unsigned k)
{
	if (r->lo != 0 && k == r->hi + 1) {
		r->hi = k;
		return;
	}
	if (r->lo != 0) {
		if (r->spans == NULL)
			r->spans = g_array_new(FALSE, FALSE, sizeof(unsigned));
		g_array_append_val(r->spans, r->lo);
		g_array_append_val(r->spans, r->hi);
	}
	r->lo = r->hi = k;
}

/* The record of the quoted "X#k" q (n bytes) and its k: base's where q is
 * base's string with "#k" before its closing quote (a name drawn again,
 * the usual case: no search), else X's found by the string; NULL where q
 * is not of that form (*of_form false) or X has none (X's key then in
 * t->tmp). */
static struct idrec *suffix_rec(struct idtab *t, struct idrec *base, const char *q, size_t n,
				unsigned *k, bool *of_form)
{
	size_t b = base != NULL ? base->key_len : 0;
	if (b >= 2 && n > b + 1 && q[n - 1] == '"' && q[b - 1] == '#' && q[b] != '0' &&
	    n - 1 - b <= 10 && memcmp(q, base->key, b - 1) == 0) {
		uint64_t v = 0;
		size_t i = b;
		while (i < n - 1 && q[i] >= '0' && q[i] <= '9')
			v = v * 10 + (uint64_t)(q[i++] - '0');
		if (i == n - 1 && v <= G_MAXUINT) {
			*k = (unsigned)v;
			*of_form = true;
			return base;
		}
	}
	*of_form = split_suffix(t, q, n, k);
	return *of_form ? g_hash_table_lookup(t->recs, t->tmp->str) : NULL;
}

static bool id_taken(struct idtab *t, struct idrec *base, const char *q, size_t n)
{
	const struct idrec *r = g_hash_table_lookup(t->recs, q);
	if (r != NULL && r->plain)
		return true;
	unsigned k;
	bool of_form;
	r = suffix_rec(t, base, q, n, &k, &of_form);
	return r != NULL && span_has(r, k);
}

/* The quoted DOT id for `text`: itself, or "text#2", "text#3"... when taken
 * (the same name in several partitions or runs). The caller frees it. */
static char *unique_id(struct idtab *t, const char *text, size_t len)
{
	GString *s = g_string_sized_new(len + 8);
	tl_dot_quote(s, text, len, false);
	if (!id_taken(t, NULL, s->str, s->len)) {
		id_rec(t, s->str)->plain = true;
		return g_string_free(s, FALSE);
	}
	/* where the last search for this name stopped */
	struct idrec *base = id_rec(t, s->str);
	unsigned k = base->next < 2 ? 2 : base->next;
	for (;; k++) {
		char num[16];
		size_t p = sizeof num;
		unsigned v = k;
		do {
			num[--p] = (char)('0' + v % 10);
			v /= 10;
		} while (v != 0);
		g_string_truncate(t->alt, 0);
		g_string_append_len(t->alt, text, (gssize)len);
		g_string_append_c(t->alt, '#');
		g_string_append_len(t->alt, num + p, (gssize)(sizeof num - p));
		g_string_truncate(s, 0);
		tl_dot_quote(s, t->alt->str, t->alt->len, false);
		if (!id_taken(t, base, s->str, s->len))
			break;
	}
	base->next = k + 1;
	unsigned got;
	bool of_form;
	struct idrec *x = suffix_rec(t, base, s->str, s->len, &got, &of_form);
	if (x == NULL && of_form)
		x = id_rec(t, t->tmp->str);
	if (x != NULL)
		span_add(x, got);
	return g_string_free(s, FALSE);
}

struct dotw {
	GString *s;
	tl_output *out; /* NULL: keep everything in s */
	GString *tmp;
	GHashTable *clusters; /* quoted cluster ids written (of the run) */
	struct idtab *ids;    /* node ids in use */
	char **vtx_id;	      /* per vertex, its quoted id (owned) */
	char *legend_id;
	tl_output *fills; /* run by run: the keys of fills settled at the end */
};

/* Every vertex's id, in the order of the vertices. */
static void make_ids(const tl_graphdot *gd, struct dotw *w)
{
	if (w->ids == NULL)
		w->ids = idtab_new();
	w->vtx_id = g_new(char *, gd->vtx->len + 1);
	for (guint i = 0; i < gd->vtx->len; i++) {
		const struct vtx *v = vtx_at(gd, i);
		w->vtx_id[i] = unique_id(w->ids, v->key, v->key_len);
	}
}

/* The legend's id, after every vertex's. */
static void make_legend_id(const tl_graphdot *gd, struct dotw *w)
{
	if (w->ids == NULL)
		w->ids = idtab_new();
	w->legend_id = gd->legend->len > 0 ? unique_id(w->ids, "legend", 6) : NULL;
}

static void free_vtx_ids(const tl_graphdot *gd, struct dotw *w)
{
	for (guint i = 0; w->vtx_id != NULL && i < gd->vtx->len; i++)
		g_free(w->vtx_id[i]);
	g_free(w->vtx_id);
	w->vtx_id = NULL;
}

static void free_ids(const tl_graphdot *gd, struct dotw *w)
{
	free_vtx_ids(gd, w);
	g_free(w->legend_id);
	w->legend_id = NULL;
	idtab_free(w->ids);
	w->ids = NULL;
}

static void w_flush(struct dotw *w, bool force)
{
	if (w->out == NULL || (!force && w->s->len < (1u << 16)))
		return;
	tl_output_bytes(w->out, w->s->str, w->s->len);
	g_string_truncate(w->s, 0);
}

static void w_indent(struct dotw *w, int depth)
{
	for (int i = 0; i < depth; i++)
		g_string_append_c(w->s, '\t');
}

/* Appends the cost line ("1.23 ms, 4.0 MB") of a vertex, if any. */
static void cost_line(const struct vtx *v, GString *s)
{
	if (v->n_exec == 0)
		return;
	g_string_append_c(s, '\n');
	fmt_time(s, v->time);
	if (v->bytes > 0) {
		g_string_append(s, ", ");
		fmt_bytes(s, v->bytes);
	}
	if (v->node >= 0 && v->n_exec > 1)
		g_string_append_printf(s, " (%u runs)", v->n_exec);
}

/* A cost in the unit of the colouring: bytes by memory, else time. */
static void fmt_cost(const tl_graphdot *gd, GString *s, int64_t v)
{
	if (gd->opts.color_by == TL_COLOR_MEMORY)
		fmt_bytes(s, v);
	else
		fmt_time(s, v);
}

/* A change: "+1.23 ms", "-4.0 MB", "0". */
static void fmt_change(const tl_graphdot *gd, GString *s, int64_t v)
{
	if (v == 0) {
		g_string_append_c(s, '0');
		return;
	}
	g_string_append_c(s, v > 0 ? '+' : '-');
	fmt_cost(gd, s, v > 0 ? v : (v == INT64_MIN ? INT64_MAX : -v));
}

static void fmt_pct(GString *s, double a, double b)
{
	if (a != 0)
		g_string_append_printf(s, " (%+.1f%%)", 100.0 * (b - a) / a);
}

/* --diff: the label's line, "+1.23 ms (+45.0%)", "new: +2.00 ms" or,
 * collapsed, "+1.23 ms, 2 new". */
static void diff_line(const tl_graphdot *gd, const struct vtx *v, GString *s)
{
	if (v->diff_a == 0 && v->diff_b == 0 && v->n_new == 0)
		return; /* run in neither: as a node not run, no line */
	g_string_append_c(s, '\n');
	if (v->node >= 0 && v->n_new > 0) {
		g_string_append(s, "new");
		if (v->diff_b != 0) {
			g_string_append(s, ": ");
			fmt_change(gd, s, tl_graphdot_diff_units(gd->opts.diff, v->diff_b));
		}
		return;
	}
	int64_t change = tl_graphdot_diff_units(gd->opts.diff, v->diff_b - v->diff_a);
	if (change == 0 && v->diff_a == v->diff_b)
		g_string_append(s, "no change");
	else
		fmt_change(gd, s, change);
	if (v->node >= 0 && v->diff_a != v->diff_b)
		fmt_pct(s, v->diff_a, v->diff_b);
	else if (v->n_new > 0)
		g_string_append_printf(s, ", %u new", v->n_new);
}

/* --diff: the tooltip (A's and B's values, the change) and the outline of
 * what is new. */
static void diff_tooltip(const tl_graphdot *gd, const struct vtx *v, GString *t)
{
	if (v->node >= 0 && v->n_new > 0) {
		g_string_append(t, "new: only in B; B ");
		fmt_cost(gd, t, tl_graphdot_diff_units(gd->opts.diff, v->diff_b));
	} else {
		g_string_append(t, "A ");
		fmt_cost(gd, t, tl_graphdot_diff_units(gd->opts.diff, v->diff_a));
		g_string_append(t, ", B ");
		fmt_cost(gd, t, tl_graphdot_diff_units(gd->opts.diff, v->diff_b));
		g_string_append(t, ", B - A ");
		fmt_change(gd, t, tl_graphdot_diff_units(gd->opts.diff, v->diff_b - v->diff_a));
		if (v->diff_a != v->diff_b)
			fmt_pct(t, v->diff_a, v->diff_b);
	}
	if (v->node >= 0) {
		const tl_graphdot_change *c = tl_graphdot_diff_find(gd->opts.diff, v->name);
		if (c != NULL && c->a_name != NULL && strcmp(c->a_name, v->name) != 0)
			g_string_append_printf(t, "; matched by op and scope to A's %s", c->a_name);
	} else if (v->n_new > 0) {
		g_string_append_printf(t, "; %u of %u nodes new (only in B)", v->n_new,
				       v->n_new + v->n_matched);
	}
}

static void diff_attrs(const tl_graphdot *gd, struct dotw *w, const struct vtx *v)
{
	GString *t = g_string_new(NULL);
	diff_tooltip(gd, v, t);
	g_string_append(w->s, ", tooltip=");
	tl_dot_quote(w->s, t->str, t->len, true);
	if (v->n_new > 0)
		g_string_append_printf(
		    w->s, ", color=\"%s\", penwidth=2, style=\"rounded,filled,dashed\"",
		    gd->outline_new);
	g_string_free(t, TRUE);
}

/* Where a fill settles at the end (run by run), the vertex's line holds
 * this byte, which no DOT we write holds otherwise (tl_dot_quote writes
 * no control character). */
#define FILL_MARK '\x01'

static void write_vertex(const tl_graphdot *gd, struct dotw *w, struct rview *rv, uint32_t vi,
			 int depth)
{
	const struct vtx *v = vtx_at(gd, vi);
	GString *label = w->tmp;
	g_string_truncate(label, 0);
	uint32_t pre = cluster_prefix(rv, v->scope);
	if (v->node >= 0) {
		const char *rel = v->name + (pre > 0 ? pre + 1 : 0);
		if (pre > 0 && pre + 1 > v->name_len) {
			const char *slash = strrchr(v->name, '/');
			rel = slash != NULL ? slash + 1 : v->name;
		}
		g_string_append(label, rel);
		g_string_append_printf(label, "\n%s", v->op);
	} else {
		const struct scope *t = scope_at(rv, v->target);
		uint32_t start = pre > 0 ? pre + 1 : 0;
		if (v->folded) {
			const struct scope *par = scope_at(rv, t->parent);
			uint32_t base_at = par->depth == 0 ? 0 : par->len + 1;
			const char *base = t->path + base_at;
			if (base_at > start)
				g_string_append_len(label, t->path + start, base_at - start);
			if (v->n_folded == 1)
				g_string_append_printf(label, "%.*s_%" PRId64 "/ (folded)",
						       (int)t->base_len, base, v->fold_lo);
			else
				g_string_append_printf(
				    label, "%.*s_%" PRId64 " ... %.*s_%" PRId64 "/ (%u folded)",
				    (int)t->base_len, base, v->fold_lo, (int)t->base_len, base,
				    v->fold_hi, v->n_folded);
		} else {
			g_string_append_len(label, t->path + start, t->len - start);
			g_string_append_c(label, '/');
		}
		g_string_append_printf(label, "\n%u op%s: %s", v->n_ops, v->n_ops == 1 ? "" : "s",
				       v->types);
	}
	if (gd->opts.diff != NULL)
		diff_line(gd, v, label);
	else
		cost_line(v, label);
	w_indent(w, depth);
	g_string_append(w->s, w->vtx_id[vi]);
	g_string_append(w->s, " [label=");
	tl_dot_quote(w->s, label->str, label->len, true);
	if (v->node < 0)
		g_string_append(w->s, ", shape=box3d");
	int64_t key;
	if (w->fills != NULL && tl_graphdot_fill_key(gd, v, &key)) {
		/* its fill settles at the end: a mark, and its key aside */
		g_string_append_c(w->s, FILL_MARK);
		tl_output_bytes(w->fills, &key, sizeof key);
	} else if (v->fill != NULL) {
		g_string_append_printf(w->s, ", fillcolor=\"%s\"", v->fill);
		if (v->fill_dark)
			g_string_append(w->s, ", fontcolor=white");
	}
	if (gd->opts.diff != NULL)
		diff_attrs(gd, w, v);
	g_string_append(w->s, "];\n");
	w_flush(w, false);
}

static void open_cluster(struct dotw *w, const char *name, const char *label, size_t label_len,
			 const char *style, int depth)
{
	w_indent(w, depth);
	g_string_append(w->s, "subgraph ");
	/* subgraphs have their own namespace in DOT, kept per document */
	char *id = g_strdup_printf("cluster %s", name);
	size_t mark = w->s->len;
	tl_dot_quote(w->s, id, strlen(id), false);
	for (unsigned k = 2; g_hash_table_contains(w->clusters, w->s->str + mark); k++) {
		g_string_truncate(w->s, mark);
		char *alt = g_strdup_printf("%s#%u", id, k);
		tl_dot_quote(w->s, alt, strlen(alt), false);
		g_free(alt);
	}
	g_hash_table_add(w->clusters, g_strdup(w->s->str + mark));
	g_free(id);
	g_string_append(w->s, " {\n");
	w_indent(w, depth + 1);
	g_string_append(w->s, "label=");
	tl_dot_quote(w->s, label, label_len, true);
	g_string_append_printf(w->s, "; %s\n", style);
}

static void close_cluster(struct dotw *w, int depth)
{
	w_indent(w, depth);
	g_string_append(w->s, "}\n");
}

/* The run's number among every run of the picture. */
static size_t run_number(const tl_graphdot *gd, const struct rview *rv)
{
	return gd->n_dropped + (size_t)(rv - gd->views);
}

/* Depth-first over the scopes of one group, without recursion (names can
 * nest deeply). */
static void write_group(const tl_graphdot *gd, struct dotw *w, struct rview *rv, uint32_t g,
			int depth)
{
	const struct group *gr = &g_array_index(rv->groups, struct group, g);
	if (scope_at(rv, gr->root)->n_sub == 0)
		return;
	GArray *stack = g_array_new(FALSE, FALSE, sizeof(uint32_t));
	GArray *opened = g_array_new(FALSE, FALSE, sizeof(int));
	uint32_t s = gr->root;
	g_array_append_val(stack, s);
	int d = depth;
	while (stack->len > 0) {
		uint32_t top = g_array_index(stack, uint32_t, stack->len - 1);
		g_array_set_size(stack, stack->len - 1);
		if (top == NONE) {
			/* closing marker */
			int was = g_array_index(opened, int, opened->len - 1);
			g_array_set_size(opened, opened->len - 1);
			if (was) {
				d--;
				close_cluster(w, d);
			}
			continue;
		}
		struct scope *sc = scope_at(rv, top);
		if (sc->n_sub == 0)
			continue;
		int open = sc->cluster ? 1 : 0;
		if (open) {
			if (sc->depth == 0) {
				char *name = g_strdup_printf("%zu/%u %s", run_number(gd, rv), g,
							     gr->device);
				char *label = gr->device[0] != '\0'
						  ? g_strdup(gr->device)
						  : g_strdup_printf("partition %u", gr->partition);
				open_cluster(w, name, label, strlen(label),
					     "style=\"rounded,bold\"; color=\"#4a6fa5\"; "
					     "fontcolor=\"#4a6fa5\"; fontsize=12;",
					     d);
				g_free(name);
				g_free(label);
			} else {
				uint32_t pre = cluster_prefix(rv, sc->parent);
				uint32_t start = pre > 0 ? pre + 1 : 0;
				char *name =
				    g_strdup_printf("%zu/%u %.*s", run_number(gd, rv), g,
						    (int)sc->len, sc->path);
				open_cluster(
				    w, name, sc->path + start, sc->len - start,
				    "style=rounded; color=\"#aaaaaa\"; fontcolor=\"#555555\";", d);
				g_free(name);
			}
			d++;
		}
		g_array_append_val(opened, open);
		for (uint32_t v = sc->first_vtx; v != NONE; v = vtx_at(gd, v)->next)
			write_vertex(gd, w, rv, v, d);
		uint32_t marker = NONE;
		g_array_append_val(stack, marker);
		/* children in order: push in reverse */
		size_t mark = stack->len;
		for (uint32_t c = sc->first_child; c != NONE; c = scope_at(rv, c)->next_sibling)
			g_array_append_val(stack, c);
		for (size_t a = mark, b = stack->len; a + 1 < b; a++, b--) {
			uint32_t t = g_array_index(stack, uint32_t, a);
			g_array_index(stack, uint32_t, a) = g_array_index(stack, uint32_t, b - 1);
			g_array_index(stack, uint32_t, b - 1) = t;
		}
	}
	g_array_free(opened, TRUE);
	g_array_free(stack, TRUE);
}

/* Width grows with the bytes a tensor carries: 1 up to 1 KB, about +1.25
 * per factor of ten, 6 from 10 MB on. */
static double edge_width(int64_t bytes)
{
	if (bytes <= 1000)
		return 1.0;
	double w = 1.0 + 1.25 * log10((double)bytes / 1000.0);
	return w > 6.0 ? 6.0 : w;
}

static void write_edge_ids(const tl_graphdot *gd, struct dotw *w, const char *src,
			   const char *dst, const struct dedge *d)
{
	bool control = d->kind == EK_CONTROL || d->kind == EK_TRANSFER_CONTROL;
	bool transfer = d->kind == EK_TRANSFER || d->kind == EK_TRANSFER_CONTROL;
	g_string_append_c(w->s, '\t');
	g_string_append(w->s, src);
	g_string_append(w->s, " -> ");
	g_string_append(w->s, dst);
	g_string_append(w->s, " [");
	bool sep = false;
	if (gd->edge_labels) {
		GString *label = w->tmp;
		g_string_truncate(label, 0);
		if (d->count > 1) {
			g_string_append_printf(label, "%u %s", d->count,
					       control ? "control" : "tensors");
			if (d->bytes > 0) {
				g_string_append(label, ", ");
				fmt_bytes(label, d->bytes);
			}
		} else if (!control && d->tensor != NULL) {
			g_string_append(label, d->tensor);
		}
		if (label->len > 0) {
			g_string_append(w->s, gd->edge_xlabels ? "xlabel=" : "label=");
			tl_dot_quote(w->s, label->str, label->len, true);
			sep = true;
		}
	}
	double width = control ? 1.0 : edge_width(d->bytes);
	if (transfer && width < 2.5)
		width = 2.5;
	if (width > 1.0) {
		g_string_append_printf(w->s, "%spenwidth=%.1f", sep ? ", " : "", width);
		sep = true;
	}
	if (transfer) {
		g_string_append_printf(w->s, "%sstyle=%s, color=\"#1f5fa8\"", sep ? ", " : "",
				       control ? "\"bold,dashed\"" : "bold");
		sep = true;
	} else if (control) {
		g_string_append_printf(w->s, "%sstyle=dashed, color=\"#888888\"", sep ? ", " : "");
		sep = true;
	}
	if (!sep)
		g_string_truncate(w->s, w->s->len - 2);
	else
		g_string_append_c(w->s, ']');
	g_string_append(w->s, ";\n");
	w_flush(w, false);
}

static void write_edge(const tl_graphdot *gd, struct dotw *w, const struct dedge *d)
{
	write_edge_ids(gd, w, w->vtx_id[d->src], w->vtx_id[d->dst], d);
}

/* A legend line's text into s (replaced). */
static void legend_text(const tl_graphdot *gd, const struct legend_entry *e, GString *s)
{
	g_string_truncate(s, 0);
	if (e->text != NULL) {
		g_string_append(s, e->text);
		if (e->text_cost) {
			g_string_append_c(s, ' ');
			fmt_change(gd, s, e->lo);
		}
	} else if (gd->opts.diff != NULL) {
		fmt_change(gd, s, e->lo);
		g_string_append(s, " to ");
		fmt_change(gd, s, e->hi);
	} else {
		fmt_cost(gd, s, e->lo);
		if (e->range) {
			g_string_append(s, " - ");
			fmt_cost(gd, s, e->hi);
		}
	}
}

static void write_legend(const tl_graphdot *gd, struct dotw *w)
{
	if (gd->legend->len == 0)
		return;
	g_string_append_c(w->s, '\t');
	g_string_append(w->s, w->legend_id);
	g_string_append(w->s, " [shape=plaintext, style=\"\", margin=0, label=<<table border=\"0\" "
			      "cellborder=\"1\" cellspacing=\"0\" cellpadding=\"3\">"
			      "<tr><td colspan=\"2\">");
	tl_dot_html(w->s, gd->legend_title);
	g_string_append(w->s, "</td></tr>");
	for (guint i = 0; i < gd->legend->len; i++) {
		const struct legend_entry *e = &g_array_index(gd->legend, struct legend_entry, i);
		g_string_append_printf(w->s,
				       "<tr><td bgcolor=\"%s\" width=\"18\"></td>"
				       "<td align=\"left\">",
				       e->color);
		legend_text(gd, e, w->tmp);
		tl_dot_html(w->s, w->tmp->str);
		g_string_append(w->s, "</td></tr>");
	}
	g_string_append(w->s, "</table>>];\n");
}

/* The graph's title and the attributes every node and edge share. */
static void write_head(const tl_graphdot *gd, struct dotw *w)
{
	g_string_append(w->s, "digraph \"tftrace\" {\n\tgraph [label=");
	tl_dot_quote(w->s, gd->title, strlen(gd->title), true);
	g_string_append(w->s, ", labelloc=t, fontname=\"Helvetica\", fontsize=14, rankdir=TB, ");
	/* newrank ranks the whole graph at once, clusters as constraints: on
	 * a big layout it made dot ten times slower (a 200-node generated
	 * training graph: 1.5 s against 0.1 s) */
	if (!gd->fast)
		g_string_append(w->s, "newrank=true, ");
	g_string_append(w->s, "nodesep=0.2, ranksep=0.35, remincross=false, searchsize=30");
	if (gd->fast)
		g_string_append(w->s, ", nslimit=0.2, mclimit=0.2");
	if (gd->opts.engine != NULL) {
		g_string_append(w->s, ", layout=");
		tl_dot_quote(w->s, gd->opts.engine, strlen(gd->opts.engine), false);
	}
	g_string_append(w->s, "];\n\tnode [shape=box, style=\"rounded,filled\", "
			      "fillcolor=white, fontname=\"Helvetica\", fontsize=10, "
			      "height=0.3, margin=\"0.08,0.03\"];\n"
			      "\tedge [fontname=\"Helvetica\", fontsize=8, arrowsize=0.6, "
			      "color=\"#555555\", fontcolor=\"#555555\"];\n");
}

/* View r's clusters: the run's own when the picture has several runs. */
static void write_run(const tl_graphdot *gd, struct dotw *w, size_t r, bool several)
{
	struct rview *rv = &gd->views[r];
	int depth = 1;
	/* cluster ids hold the run's number: no run's can be another's */
	g_hash_table_remove_all(w->clusters);
	if (several) {
		char *name = g_strdup_printf("run %zu", run_number(gd, rv));
		open_cluster(w, name, rv->run->label, strlen(rv->run->label),
			     "style=\"rounded,filled\"; fillcolor=\"#f7f7f7\"; "
			     "color=\"#999999\"; fontsize=13;",
			     1);
		g_free(name);
		depth = 2;
	}
	for (guint g = 0; g < rv->groups->len; g++)
		write_group(gd, w, rv, g, depth);
	if (several)
		close_cluster(w, 1);
}

static void debug_stats(const tl_graphdot *gd)
{
	if (getenv("TL_GRAPHDOT_DEBUG") != NULL)
		fprintf(stderr, "graphdot: %zu vertices, %zu edges, cost %" PRIu64 "\n",
			gd->stats.vertices, gd->stats.edges, gd->stats.layout_cost);
}

/* Writes the whole DOT; *legend (where not NULL) gets the legend's node
 * name, NULL when there is no legend (the caller frees it). */
static void write_all(const tl_graphdot *gd, struct dotw *w, char **legend)
{
	debug_stats(gd);
	w->tmp = g_string_new(NULL);
	w->clusters = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, NULL);
	make_ids(gd, w);
	make_legend_id(gd, w);
	write_head(gd, w);
	for (size_t r = 0; r < gd->n_runs; r++)
		write_run(gd, w, r, gd->n_runs > 1);
	for (guint e = 0; e < gd->edges->len; e++)
		write_edge(gd, w, &g_array_index(gd->edges, struct dedge, e));
	write_legend(gd, w);
	g_string_append(w->s, "}\n");
	g_string_free(w->tmp, TRUE);
	g_hash_table_destroy(w->clusters);
	if (legend != NULL) /* its quoted id, quotes aside ("legend", "legend#2") */
		*legend = w->legend_id != NULL
			      ? g_strndup(w->legend_id + 1, strlen(w->legend_id) - 2)
			      : NULL;
	free_ids(gd, w);
	w_flush(w, true);
}

void tl_dot_write(const tl_graphdot *gd, tl_output *out)
{
	struct dotw w = {.s = g_string_sized_new(1u << 17), .out = out};
	write_all(gd, &w, NULL);
	g_string_free(w.s, TRUE);
}

static GString *dot_string(const tl_graphdot *gd, char **legend)
{
	struct dotw w = {.s = g_string_sized_new(1u << 16), .out = NULL};
	write_all(gd, &w, legend);
	return w.s;
}

GString *tl_dot_string(const tl_graphdot *gd)
{
	return dot_string(gd, NULL);
}

/* ------------------------------------------------------------------ */
/* Run by run                                                          */

/* An edge whose label waits until the labels are settled, with its
 * ends' ids. */
struct pending_edge {
	struct dedge d;
	char *src, *dst;
};

struct tl_dot_stream {
	tl_graphdot *gd;
	struct dotw w;
	tl_output *body;    /* scratch: each run's clusters */
	tl_output *edges;   /* scratch: the edges, their labels settled */
	GArray *pending;    /* struct pending_edge, while the labels are not */
	bool labels_known;
};

int tl_dot_stream_new(tl_dot_stream **out, tl_graphdot *gd, tl_error *err)
{
	tl_dot_stream *ds = g_new0(tl_dot_stream, 1);
	ds->gd = gd;
	ds->pending = g_array_new(FALSE, FALSE, sizeof(struct pending_edge));
	ds->w.s = g_string_sized_new(1u << 17);
	ds->w.tmp = g_string_new(NULL);
	ds->w.clusters = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, NULL);
	ds->w.ids = idtab_new();
	int rc = tl_output_new_scratch(&ds->body, err);
	if (rc == 0)
		rc = tl_output_new_scratch(&ds->edges, err);
	if (rc == 0 && (gd->opts.color_by == TL_COLOR_TIME || gd->opts.color_by == TL_COLOR_MEMORY ||
			gd->opts.color_by == TL_COLOR_OP))
		rc = tl_output_new_scratch(&ds->w.fills, err);
	*out = ds;
	return rc;
}

void tl_dot_stream_free(tl_dot_stream *ds)
{
	if (ds == NULL)
		return;
	for (guint i = 0; i < ds->pending->len; i++) {
		struct pending_edge *p = &g_array_index(ds->pending, struct pending_edge, i);
		g_free(p->src);
		g_free(p->dst);
	}
	g_array_free(ds->pending, TRUE);
	free_ids(ds->gd, &ds->w);
	g_string_free(ds->w.s, TRUE);
	g_string_free(ds->w.tmp, TRUE);
	g_hash_table_destroy(ds->w.clusters);
	if (ds->body != NULL)
		tl_output_abort(ds->body);
	if (ds->edges != NULL)
		tl_output_abort(ds->edges);
	if (ds->w.fills != NULL)
		tl_output_abort(ds->w.fills);
	g_free(ds);
}

/* The edges held while their labels were not settled, into the edges'
 * scratch (their labels settled now). */
static void flush_pending(tl_dot_stream *ds)
{
	struct dotw *w = &ds->w;
	w->out = ds->edges;
	for (guint i = 0; i < ds->pending->len; i++) {
		struct pending_edge *p = &g_array_index(ds->pending, struct pending_edge, i);
		write_edge_ids(ds->gd, w, p->src, p->dst, &p->d);
		g_free(p->src);
		g_free(p->dst);
	}
	g_array_set_size(ds->pending, 0);
	w_flush(w, true);
}

/* The run's edges: written where their labels are settled, else held
 * (a few: labels wait only while the picture is small). */
static void stream_edges(tl_dot_stream *ds)
{
	tl_graphdot *gd = ds->gd;
	struct dotw *w = &ds->w;
	if (!ds->labels_known && tl_graphdot_layout_labels_settled(gd)) {
		ds->labels_known = true;
		flush_pending(ds);
	}
	w->out = ds->edges;
	for (guint e = 0; e < gd->edges->len; e++) {
		const struct dedge *d = &g_array_index(gd->edges, struct dedge, e);
		if (ds->labels_known) {
			write_edge(gd, w, d);
			continue;
		}
		struct pending_edge p = {.d = *d,
					 .src = g_strdup(w->vtx_id[d->src]),
					 .dst = g_strdup(w->vtx_id[d->dst])};
		g_array_append_val(ds->pending, p);
	}
	w_flush(w, true);
}

int tl_dot_stream_run(tl_dot_stream *ds, bool several, tl_error *err)
{
	tl_graphdot *gd = ds->gd;
	struct dotw *w = &ds->w;
	tl_graphdot_stream_run(gd);
	make_ids(gd, w);
	w->out = ds->body;
	write_run(gd, w, 0, several);
	w_flush(w, true);
	stream_edges(ds);
	free_vtx_ids(gd, w);
	tl_graphdot_stream_drop(gd);
	int e = ds->body->error != 0 ? ds->body->error : ds->edges->error;
	if (e == 0 && w->fills != NULL)
		e = w->fills->error;
	if (e != 0)
		return tl_error_set(err, "cannot use a temporary file in '%s': %s",
				    g_get_tmp_dir(), e > 0 ? g_strerror(e) : "write failed");
	return 0;
}

/* A sequential reader of a scratch output. */
struct sread {
	tl_output *src;
	uint64_t at;
	char *buf;
	size_t len, pos;
};

/* Bytes at the reader, at least `want` where the scratch holds them
 * (fewer: its end); -1 with err. */
static int64_t sread_fill(struct sread *r, size_t want, tl_error *err)
{
	if (r->len - r->pos >= want)
		return (int64_t)(r->len - r->pos);
	memmove(r->buf, r->buf + r->pos, r->len - r->pos);
	r->len -= r->pos;
	r->pos = 0;
	while (r->len < want) {
		int64_t got = tl_output_read(r->src, r->at, r->buf + r->len,
					     TL_OUTPUT_BUF - r->len, err);
		if (got < 0)
			return -1;
		if (got == 0)
			break;
		r->at += (uint64_t)got;
		r->len += (size_t)got;
	}
	return (int64_t)r->len;
}

/* The clusters' scratch into out, each mark replaced by its fill. */
static int copy_filled(tl_dot_stream *ds, tl_output *out, tl_error *err)
{
	struct sread body = {.src = ds->body, .buf = g_malloc(TL_OUTPUT_BUF)};
	struct sread keys = {.src = ds->w.fills, .buf = g_malloc(TL_OUTPUT_BUF)};
	int rc = 0;
	for (;;) {
		int64_t have = sread_fill(&body, 1, err);
		if (have <= 0) {
			rc = (int)have;
			break;
		}
		const char *p = body.buf + body.pos;
		const char *mark = memchr(p, FILL_MARK, (size_t)have);
		size_t plain = mark != NULL ? (size_t)(mark - p) : (size_t)have;
		tl_output_bytes(out, p, plain);
		body.pos += plain;
		if (mark == NULL)
			continue;
		body.pos++;
		int64_t key;
		if (sread_fill(&keys, sizeof key, err) < (int64_t)sizeof key) {
			rc = -1;
			if (err != NULL && err->msg[0] == '\0')
				tl_error_set(err, "cannot use a temporary file in '%s': short read",
					     g_get_tmp_dir());
			break;
		}
		memcpy(&key, keys.buf + keys.pos, sizeof key);
		keys.pos += sizeof key;
		bool dark;
		const char *fill = tl_graphdot_stream_fill(ds->gd, key, &dark);
		tl_output_str(out, ", fillcolor=\"");
		tl_output_str(out, fill);
		tl_output_str(out, dark ? "\", fontcolor=white" : "\"");
	}
	g_free(body.buf);
	g_free(keys.buf);
	return rc;
}

int tl_dot_stream_end(tl_dot_stream *ds, tl_output *out, tl_error *err)
{
	tl_graphdot *gd = ds->gd;
	struct dotw *w = &ds->w;
	tl_graphdot_stream_finish(gd);
	debug_stats(gd);
	flush_pending(ds);
	make_legend_id(gd, w);
	w->out = out;
	write_head(gd, w);
	w_flush(w, true);
	int rc = 0;
	if (w->fills != NULL)
		rc = copy_filled(ds, out, err);
	else
		rc = tl_output_copy(out, ds->body, 0, tl_output_tell(ds->body), err);
	if (rc == 0)
		rc = tl_output_copy(out, ds->edges, 0, tl_output_tell(ds->edges), err);
	if (rc != 0)
		return -1;
	write_legend(gd, w);
	g_string_append(w->s, "}\n");
	w_flush(w, true);
	return 0;
}

/* ------------------------------------------------------------------ */
/* Render                                                              */

/* Graphviz reports through one callback, in pieces ("Warning", ": ",
 * the message); lines are gathered here. Errors are kept for the failure
 * message; warnings become ours, the first few each on their own line. */
#define GV_WARNINGS_SHOWN 5
static GString *gv_line;
static GString *gv_error;
static unsigned gv_warnings;

static int gv_message(char *piece)
{
	if (gv_line == NULL)
		gv_line = g_string_new(NULL);
	g_string_append(gv_line, piece);
	char *nl;
	while ((nl = strchr(gv_line->str, '\n')) != NULL) {
		*nl = '\0';
		const char *msg = gv_line->str;
		if (g_str_has_prefix(msg, "Error: ")) {
			if (gv_error != NULL && gv_error->len == 0)
				g_string_append(gv_error, msg + 7);
		} else if (msg[0] != '\0') {
			const char *text = g_str_has_prefix(msg, "Warning: ") ? msg + 9 : msg;
			char *key = g_strdup_printf("graphviz: %s", text);
			if (tl_warn_count(key) > 0 || gv_warnings < GV_WARNINGS_SHOWN) {
				if (tl_warn_count(key) == 0)
					gv_warnings++;
				tl_warn(key, "%s", key);
			} else {
				tl_warn("graphviz-more", "graphviz: more messages");
			}
			g_free(key);
		}
		g_string_erase(gv_line, 0, nl - gv_line->str + 1);
	}
	return 0;
}

int tl_dot_render(const tl_graphdot *gd, const char *format, tl_output *out, tl_error *err)
{
	GString *data = NULL;
	if (tl_dot_render_string(gd, format, &data, err) < 0)
		return -1;
	tl_output_bytes(out, data->str, data->len);
	g_string_free(data, TRUE);
	return 0;
}

/* One Graphviz context for the process, made at the first render and
 * never freed: freeing it frees the font names the text-size cache of
 * Graphviz's pango plugin still points at, so that a second context's
 * render reads freed memory (trace-report renders a graph per run). */
static GVC_t *shared_context(void)
{
	static gsize made = 0;
	static GVC_t *gvc;
	if (g_once_init_enter(&made)) {
		gvc = gvContext();
		g_once_init_leave(&made, 1);
	}
	return gvc;
}

int tl_dot_render_string(const tl_graphdot *gd, const char *format, GString **out, tl_error *err)
{
	const char *engine = gd->opts.engine != NULL ? gd->opts.engine : "dot";
	char *legend = NULL;
	GString *dot = dot_string(gd, &legend);
	gv_error = g_string_new(NULL);
	agusererrf old = agseterrf(gv_message);
	int rc = 0;
	GVC_t *gvc = shared_context();
	Agraph_t *g = tl_dot_read(dot->str);
	g_string_free(dot, TRUE);
	/* a memory stream, which grows its buffer by doubling: gvRenderData
	 * grows its own a page at a time, and copied most of a 100 MB
	 * picture over and over */
	char *data = NULL;
	size_t len = 0;
	FILE *f = NULL;
	bool packed = false;
	int prc = 0;
	if (g == NULL) {
		rc = tl_error_set(err, "cannot render: Graphviz did not read the graph (%s)",
				  gv_error->len ? gv_error->str : "no reason given");
	} else if ((f = open_memstream(&data, &len)) == NULL) {
		rc = tl_error_set(err, "cannot render %s: out of memory", format);
	} else if (strcmp(engine, "dot") == 0 && gd->fast &&
		   (prc = tl_dot_pack_render(gvc, g, legend, format, f, &packed)) == -1) {
		/* a big layout's components laid out apart and packed
		 * (emit/dot_pack.h); a small one stays whole, its partitions
		 * and scopes one box each */
		rc = tl_error_set(err, "cannot render: %s layout failed%s%s", engine,
				  gv_error->len ? ": " : "", gv_error->str);
	} else if (!packed && gvLayout(gvc, g, engine) != 0) {
		rc = tl_error_set(err, "cannot render: %s layout failed%s%s", engine,
				  gv_error->len ? ": " : "", gv_error->str);
	} else {
		int bad = prc != 0;
		if (!packed) {
			bad = gvRender(gvc, g, format, f) != 0;
			gvFreeLayout(gvc, g);
		}
		if (fclose(f) != 0)
			bad = 1;
		f = NULL;
		if (bad) {
			rc = tl_error_set(err, "cannot render %s: %s", format,
					  gv_error->len ? gv_error->str
							: "Graphviz has no renderer for it");
		} else {
			*out = g_string_new_len(data, (gssize)len);
		}
	}
	if (f != NULL)
		fclose(f);
	free(data);
	if (g != NULL)
		agclose(g);
	g_free(legend);
	if (gv_line != NULL && gv_line->len > 0)
		gv_message("\n");
	agseterrf(old);
	g_string_free(gv_error, TRUE);
	gv_error = NULL;
	if (gv_line != NULL) {
		g_string_free(gv_line, TRUE);
		gv_line = NULL;
	}
	return rc;
}

/* ------------------------------------------------------------------ */
/* --diff as data, for a page that colours the picture itself          */

/* A quoted DOT id as the SVG's <title> holds it: without its quotes, a
 * quote unescaped, "&amp;" as '&' (Graphviz reads the entity). */
static void json_id(tl_output *out, const char *quoted, GString *tmp)
{
	size_t n = strlen(quoted);
	g_string_truncate(tmp, 0);
	for (size_t i = 1; i + 1 < n; i++) {
		if (quoted[i] == '\\' && quoted[i + 1] == '"')
			continue;
		if (strncmp(quoted + i, "&amp;", 5) == 0) {
			g_string_append_c(tmp, '&');
			i += 4;
			continue;
		}
		g_string_append_c(tmp, quoted[i]);
	}
	tl_json_string_script(out, tmp->str, tmp->len);
}

static void json_str(tl_output *out, const char *s)
{
	tl_json_string_script(out, s != NULL ? s : "", s != NULL ? strlen(s) : 0);
}

static void json_vertices(const tl_graphdot *gd, struct dotw *w, tl_output *out)
{
	GString *t = g_string_new(NULL);
	tl_output_str(out, ",\"vertices\":{");
	for (guint i = 0; i < gd->vtx->len; i++) {
		const struct vtx *v = vtx_at(gd, i);
		if (i > 0)
			tl_output_char(out, ',');
		json_id(out, w->vtx_id[i], w->tmp);
		tl_output_str(out, ":[");
		json_str(out, v->fill);
		tl_output_char(out, ',');
		g_string_truncate(t, 0);
		diff_line(gd, v, t);
		json_str(out, t->len > 0 ? t->str + 1 : ""); /* without its line break */
		tl_output_char(out, ',');
		g_string_truncate(t, 0);
		diff_tooltip(gd, v, t);
		json_str(out, t->str);
		tl_output_printf(out, ",%u]", v->n_new);
	}
	tl_output_char(out, '}');
	g_string_free(t, TRUE);
}

/* Every node drawn (a collapsed one too): its values in A and B, in the
 * legend's unit, whether it is new, and its fill at the picture's scale. */
static void json_nodes(const tl_graphdot *gd, tl_output *out)
{
	tl_output_str(out, ",\"nodes\":{");
	bool first = true;
	for (size_t r = 0; r < gd->n_runs; r++) {
		const struct rview *rv = &gd->views[r];
		for (size_t i = 0; i < rv->run->n_nodes; i++) {
			if (!rv->kept[i] || rv->hidden[i])
				continue;
			const char *name = rv->run->nodes[i].name;
			const tl_graphdot_change *c = tl_graphdot_diff_find(gd->opts.diff, name);
			double a = c != NULL && c->in_a ? c->a : 0, b = c != NULL ? c->b : 0;
			bool dark;
			const char *fill = tl_graphdot_diff_fill(gd, a, b, &dark);
			if (!first)
				tl_output_char(out, ',');
			first = false;
			json_str(out, name);
			tl_output_printf(out, ":[%" PRId64 ",%" PRId64 ",%d,",
					 tl_graphdot_diff_units(gd->opts.diff, a),
					 tl_graphdot_diff_units(gd->opts.diff, b),
					 c == NULL || !c->in_a);
			json_str(out, fill);
			tl_output_char(out, ']');
		}
	}
	tl_output_char(out, '}');
}

/* The members of tl_dot_diff_json's object. */
static void diff_json_members(const tl_graphdot *gd, tl_output *out)
{
	struct dotw w = {.s = g_string_new(NULL), .tmp = g_string_new(NULL)};
	make_ids(gd, &w);
	make_legend_id(gd, &w);
	tl_output_str(out, "\"title\":");
	char *title = tl_graphdot_diff_title(gd->opts.diff);
	json_str(out, title);
	g_free(title);
	tl_output_str(out, ",\"legend_title\":");
	json_str(out, gd->legend_title);
	bool memory = gd->opts.color_by == TL_COLOR_MEMORY;
	tl_output_printf(
	    out, ",\"unit\":\"%s\",\"scale\":%" PRId64 ",\"outline_new\":", memory ? "bytes" : "ns",
	    tl_graphdot_diff_units(gd->opts.diff, gd->diff_scale));
	json_str(out, gd->outline_new);
	size_t n = 0;
	const char *const *pal = tl_graphdot_diff_palette(&n);
	tl_output_str(out, ",\"colors\":[");
	for (size_t k = 0; k < n; k++) {
		if (k > 0)
			tl_output_char(out, ',');
		json_str(out, pal[k]);
	}
	tl_output_str(out, "],\"legend\":[");
	for (guint i = 0; i < gd->legend->len; i++) {
		const struct legend_entry *e = &g_array_index(gd->legend, struct legend_entry, i);
		legend_text(gd, e, w.tmp);
		tl_output_str(out, i > 0 ? ",[" : "[");
		json_str(out, e->color);
		tl_output_char(out, ',');
		json_str(out, w.tmp->str);
		tl_output_char(out, ']');
	}
	tl_output_char(out, ']');
	json_vertices(gd, &w, out);
	json_nodes(gd, out);
	free_ids(gd, &w);
	g_string_free(w.s, TRUE);
	g_string_free(w.tmp, TRUE);
}

void tl_dot_diff_json(const tl_graphdot *gd, const tl_graphdot *memory, tl_output *out)
{
	if (gd->opts.diff == NULL) {
		tl_output_str(out, "null");
		return;
	}
	tl_output_char(out, '{');
	diff_json_members(gd, out);
	if (memory != NULL && memory->opts.diff != NULL) {
		tl_output_str(out, ",\"memory\":{");
		diff_json_members(memory, out);
		tl_output_char(out, '}');
	}
	tl_output_char(out, '}');
}
