#include "emit/summary.h"

#include "base/bytes.h"
#include "emit/json.h"

#include <inttypes.h>
#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static bool col_is_time(int c)
{
	return c == TL_COL_TOTAL || c == TL_COL_ACCEL || c == TL_COL_CPU || c == TL_COL_SELF;
}

static bool col_is_bytes(int c)
{
	return c == TL_COL_REQUESTED || c == TL_COL_PEAK || c == TL_COL_RESIDUAL ||
	       c == TL_COL_OUTPUT;
}

void tl_summary_human(int c, double v, char *buf, size_t size)
{
	if (col_is_time(c)) {
		if (v >= 1e6)
			snprintf(buf, size, "%.2fsec", v / 1e6);
		else if (v >= 1e3)
			snprintf(buf, size, "%.2fms", v / 1e3);
		else
			snprintf(buf, size, "%.0fus", v);
	} else if (col_is_bytes(c)) {
		tl_bytes_format(buf, size, v);
	} else if (c == TL_COL_OCCURRENCE) {
		snprintf(buf, size, "%.4g", v);
	} else {
		if (v >= 1e9)
			snprintf(buf, size, "%.2fb", v / 1e9);
		else if (v >= 1e6)
			snprintf(buf, size, "%.2fm", v / 1e6);
		else if (v >= 1e3)
			snprintf(buf, size, "%.2fk", v / 1e3);
		else
			snprintf(buf, size, "%.0f", v);
	}
}

/* ---- the flat views --------------------------------------------------- */

/* name, each selected column (text: human units; CSV and JSON: raw), then
 * (text) share and cumulative share */
static tl_table_col *flat_cols(const tl_summary_opts *o, size_t wname, char *name_fmt, size_t *n)
{
	tl_table_col *cols = g_new0(tl_table_col, (size_t)o->n_select + 3);
	snprintf(name_fmt, 32, "%%-%zu.%zus", wname, wname);
	cols[0] = (tl_table_col){"name", "name", TL_CELL_STR, NULL, name_fmt};
	for (int k = 0; k < o->n_select; k++) {
		const char *key = tl_summary_col_name(o->select[k]);
		cols[1 + k] = (tl_table_col){key, key, TL_CELL_AUTO, NULL, "  %18s"};
	}
	cols[1 + o->n_select] = (tl_table_col){NULL, NULL, TL_CELL_NUM, NULL, "  %6.2f%%"};
	cols[2 + o->n_select] = (tl_table_col){NULL, NULL, TL_CELL_NUM, NULL, "  %6.2f%%"};
	*n = (size_t)o->n_select + 3;
	return cols;
}

static char *flat_head(const tl_summary_opts *o, size_t wname)
{
	GString *h = g_string_new(NULL);
	g_string_append_printf(h, "%-*s", (int)wname, "name");
	for (int k = 0; k < o->n_select; k++)
		g_string_append_printf(h, "  %18s", tl_summary_col_name(o->select[k]));
	g_string_append_printf(h, "  %7s  %7s\n", "share", "cum");
	return g_string_free(h, FALSE);
}

static void write_flat(const tl_summary *s, const tl_summary_opts *o, const tl_table_sink *sink,
		       tl_output *out)
{
	tl_summary_flat *f = tl_summary_flat_new(s, o);
	size_t wname = 4;
	for (size_t i = 0; i < f->n; i++)
		wname = MAX(wname, strlen(f->lines[i].row->name));
	wname = MIN(wname, 80);
	char name_fmt[32];
	size_t n_cols;
	tl_table_col *cols = flat_cols(o, wname, name_fmt, &n_cols);
	tl_table_spec spec = {cols, n_cols, "rows"};
	static const tl_table_col meta_cols[] = {
	    {NULL, "view", TL_CELL_STR, NULL, NULL},
	    {NULL, "runs", TL_CELL_NUM, "%.0f", NULL},
	};
	static const tl_table_spec meta = {meta_cols, 2, NULL};
	tl_cell meta_cells[] = {{.s = tl_summary_view_name(s->view)}, {.v = (double)s->n_runs}};
	/* only text shows a number as its text (tl_summary_human), and only
	 * text writes a head line (a page's tables are a thousand a page) */
	bool text = strcmp(sink->name, "text") == 0;
	char *head = text ? flat_head(o, wname) : NULL;
	tl_table t;
	tl_table_begin(&t, sink, out, &spec, NULL, &meta, meta_cells, head);
	tl_cell *cells = g_new0(tl_cell, n_cols);
	struct human {
		char s[48];
	} *human = g_new(struct human, (size_t)o->n_select);
	double cum = 0, total = f->total[f->share_col];
	for (size_t i = 0; i < f->n; i++) {
		if (tl_table_full(&t)) {
			tl_table_skip_row(&t);
			continue;
		}
		const tl_summary_line *line = &f->lines[i];
		cells[0].s = line->row->name;
		for (int k = 0; k < o->n_select; k++) {
			int c = o->select[k];
			if (!text) {
				/* CSV, JSON and the page write the number itself */
				cells[1 + k] = (tl_cell){.v = line->v[c]};
				continue;
			}
			tl_summary_human(c, line->v[c], human[k].s, sizeof human[k].s);
			/* tfprof's "run|defined" where a graph defines the nodes */
			if (c == TL_COL_OCCURRENCE && s->have_graph && !o->occurrence_defined &&
			    s->view != TL_VIEW_KERNEL && s->view != TL_VIEW_STEP)
				snprintf(human[k].s + strlen(human[k].s),
					 sizeof human[k].s - strlen(human[k].s), "|%" PRId64,
					 line->row->defined);
			cells[1 + k] = (tl_cell){.s = human[k].s, .v = line->v[c]};
		}
		double share = total > 0 ? 100.0 * line->v[f->share_col] / total : 0;
		cum += share;
		cells[1 + o->n_select].v = share;
		cells[2 + o->n_select].v = cum;
		tl_table_row(&t, cells);
	}
	/* the lines opts.keep left out, counted as a sink that is full
	 * counts them */
	for (size_t i = f->n; i < f->n_all; i++)
		tl_table_skip_row(&t);
	tl_table_end(&t);
	g_free(human);
	g_free(cells);
	g_free(head);
	g_free(cols);
	tl_summary_flat_free(f);
}

/* ---- the scope tree ----------------------------------------------------- */

static const char *col_unit(int c)
{
	switch (c) {
	case TL_COL_PARAMS:
		return " params";
	case TL_COL_FLOPS:
		return " flops";
	default:
		return "";
	}
}

/* The order tfprof prints a node's items in, whatever the order of
 * --select (tfprof_show.cc FormatNode), self_micros beside the times. */
static const int tfprof_order[] = {
    TL_COL_PARAMS, TL_COL_FLOPS, TL_COL_REQUESTED, TL_COL_PEAK, TL_COL_RESIDUAL,   TL_COL_OUTPUT,
    TL_COL_TOTAL,  TL_COL_SELF,	 TL_COL_ACCEL,	   TL_COL_CPU,	TL_COL_OCCURRENCE,
};

static bool selected(const tl_summary_opts *o, int c)
{
	for (int k = 0; k < o->n_select; k++)
		if (o->select[k] == c)
			return true;
	return false;
}

/* tfprof's legend words */
static const char *col_legend(int c)
{
	switch (c) {
	case TL_COL_PARAMS:
		return "# parameters";
	case TL_COL_FLOPS:
		return "# float_ops";
	case TL_COL_REQUESTED:
		return "requested bytes";
	case TL_COL_PEAK:
		return "peak bytes";
	case TL_COL_RESIDUAL:
		return "residual bytes";
	case TL_COL_OUTPUT:
		return "output bytes";
	case TL_COL_TOTAL:
		return "total execution time";
	case TL_COL_SELF:
		return "self execution time";
	case TL_COL_ACCEL:
		return "accelerator execution time";
	case TL_COL_CPU:
		return "cpu execution time";
	case TL_COL_OCCURRENCE:
		return "op count (run|defined)";
	default:
		return tl_summary_col_name(c);
	}
}

/* What writing a tree needs at every node. */
struct tree_writer {
	const tl_summary_opts *o;
	tl_table *t;	/* text and CSV: a row per node */
	tl_output *out; /* JSON */
	GString *buf, *line;
	tl_cell *cells;
	bool text; /* the sink shows tfprof's line (only text does) */
};

/* One item "self/total": "--" for a value tfprof does not account (the
 * root's; a scope that is no node where --account-type picks nodes). */
static void tree_item(GString *line, int c, const tl_summary_scope *t, bool root)
{
	char a[48], b[48];
	tl_summary_human(c, t->self != NULL ? t->self[c] : 0, a, sizeof a);
	tl_summary_human(c, t->total[c], b, sizeof b);
	g_string_append_printf(line, "%s/%s%s", root ? "--" : a, b, col_unit(c));
	if (c == TL_COL_OCCURRENCE)
		/* tfprof's run|defined: each node is one definition */
		g_string_append_printf(line, "|%s/%u", root ? "--" : "1", t->n_defined);
}

/* tfprof's line: name (shape, self/total units, ...) */
static const char *tree_line(struct tree_writer *w, const tl_summary_scope *t, int depth,
			     const char *name, bool root)
{
	const tl_summary_opts *o = w->o;
	g_string_printf(w->line, "%*s%s (", depth * 2, "", name);
	bool first = true;
	/* the shape goes with the params, as tfprof shows it (a scalar: "1") */
	if (t->row != NULL && t->row->shape != NULL && selected(o, TL_COL_PARAMS)) {
		g_string_append_printf(w->line, "%s", t->row->shape[0] ? t->row->shape : "1");
		first = false;
	}
	for (size_t k = 0; k < G_N_ELEMENTS(tfprof_order); k++) {
		int c = tfprof_order[k];
		if (!selected(o, c))
			continue;
		if (!first)
			g_string_append(w->line, ", ");
		first = false;
		tree_item(w->line, c, t, root || (t->row == NULL && o->account_type != NULL));
	}
	g_string_append_c(w->line, ')');
	return w->line->str;
}

static void tree_node(struct tree_writer *w, const tl_summary_scope *t, int depth, bool root)
{
	const tl_summary_opts *o = w->o;
	/* a sink that takes no more rows still counts them: unformatted, in
	 * any order */
	bool full = tl_table_full(w->t);
	if (full) {
		tl_table_skip_row(w->t);
	} else {
		const char *name = root ? "_TFProfRoot" : tl_summary_tree_name(t, w->buf);
		w->cells[0].s = name;
		w->cells[1].s = w->text ? tree_line(w, t, depth, name, root) : "";
		for (int k = 0; k < o->n_select; k++)
			w->cells[2 + k].v = t->total[o->select[k]];
		tl_table_row(w->t, w->cells);
	}
	if (depth >= o->max_depth)
		return;
	if (!root && o->trim != NULL && tl_summary_tree_match(o->trim, t))
		return;
	if (full) {
		for (const tl_summary_scope *c = t->first_kid; c != NULL; c = c->next)
			if (tl_summary_values_pass(o, c->total))
				tree_node(w, c, depth + 1, false);
		return;
	}
	tl_summary_scope **kids = tl_summary_tree_kids(t, o);
	for (uint32_t i = 0; i < t->n_kids; i++) {
		if (!tl_summary_values_pass(o, kids[i]->total))
			continue;
		tree_node(w, kids[i], depth + 1, false);
	}
	g_free(kids);
}

/* --start: the subtrees whose scope matches, each written from depth 0
 * (the first match on each path). */
static void tree_started(struct tree_writer *w, const tl_summary_scope *t)
{
	tl_summary_scope **kids = tl_summary_tree_kids(t, w->o);
	for (uint32_t i = 0; i < t->n_kids; i++) {
		if (tl_summary_tree_match(w->o->start, kids[i]))
			tree_node(w, kids[i], 0, false);
		else
			tree_started(w, kids[i]);
	}
	g_free(kids);
}

static void json_tree(struct tree_writer *w, const tl_summary_scope *t, int depth, bool root)
{
	const tl_summary_opts *o = w->o;
	tl_output_str(w->out, "{\"name\":");
	tl_json_string(w->out, root ? "_TFProfRoot" : tl_summary_tree_name(t, w->buf));
	for (int k = 0; k < o->n_select; k++) {
		tl_output_str(w->out, ",\"");
		tl_output_str(w->out, tl_summary_col_name(o->select[k]));
		tl_output_str(w->out, "\":");
		double v = t->total[o->select[k]];
		if (v == floor(v) && fabs(v) < 9e15)
			tl_output_printf(w->out, "%.0f", v);
		else
			tl_output_printf(w->out, "%.3f", v);
	}
	tl_output_str(w->out, ",\"children\":[");
	bool first = true;
	if (depth < o->max_depth)
		for (const tl_summary_scope *c = t->first_kid; c != NULL; c = c->next) {
			if (!tl_summary_values_pass(o, c->total))
				continue;
			if (!first)
				tl_output_char(w->out, ',');
			first = false;
			json_tree(w, c, depth + 1, false);
		}
	tl_output_str(w->out, "]}");
}

/* tfprof's legend: its words, in its order */
static char *tree_head(const tl_summary_opts *o)
{
	GString *h = g_string_new("node name");
	for (size_t k = 0; k < G_N_ELEMENTS(tfprof_order); k++)
		if (selected(o, tfprof_order[k]))
			g_string_append_printf(h, " | %s", col_legend(tfprof_order[k]));
	g_string_append_c(h, '\n');
	return g_string_free(h, FALSE);
}

/* The tree: nested objects in JSON (not a table); text and CSV as a table
 * of a row per node (text: the indented line; CSV: name and totals). */
static void write_tree(const tl_summary *s, const tl_summary_opts *o, const tl_table_sink *sink,
		       tl_output *out)
{
	tl_summary_tree *tree = tl_summary_tree_new(s, o);
	struct tree_writer w = {
	    .o = o, .out = out, .buf = g_string_new(NULL), .line = g_string_new(NULL)};
	if (strcmp(sink->name, "json") == 0) {
		json_tree(&w, tree->root, 0, true);
		tl_output_char(out, '\n');
	} else {
		size_t n_cols = (size_t)o->n_select + 2;
		tl_table_col *cols = g_new0(tl_table_col, n_cols);
		cols[0] = (tl_table_col){"name", NULL, TL_CELL_STR, NULL, NULL};
		cols[1] = (tl_table_col){NULL, NULL, TL_CELL_STR, NULL, "%s"};
		for (int k = 0; k < o->n_select; k++)
			cols[2 + k] = (tl_table_col){tl_summary_col_name(o->select[k]), NULL,
						     TL_CELL_AUTO, NULL, NULL};
		tl_table_spec spec = {cols, n_cols, NULL};
		/* only text writes the legend */
		char *head = strcmp(sink->name, "text") == 0 ? tree_head(o) : NULL;
		tl_table t;
		w.t = &t;
		w.cells = g_new0(tl_cell, n_cols);
		w.text = strcmp(sink->name, "text") == 0;
		tl_table_begin(&t, sink, out, &spec, NULL, NULL, NULL, head);
		if (o->start != NULL)
			tree_started(&w, tree->root);
		else
			tree_node(&w, tree->root, 0, true);
		tl_table_end(&t);
		g_free(w.cells);
		g_free(head);
		g_free(cols);
	}
	g_string_free(w.buf, TRUE);
	g_string_free(w.line, TRUE);
	tl_summary_tree_free(tree);
}

void tl_summary_write(const tl_summary *s, const tl_summary_opts *o, const tl_table_sink *sink,
		      tl_output *out)
{
	if (s->view == TL_VIEW_SCOPE)
		write_tree(s, o, sink, out);
	else
		write_flat(s, o, sink, out);
}

/* ---- partial aggregates ------------------------------------------------ */

void tl_summary_write_partial(const tl_summary *s, tl_output *out)
{
	json_t *head = json_pack("{s:i,s:s,s:b,s:b,s:b,s:b,s:b}", "tftrace_partial", 1, "view",
				 tl_summary_view_name(s->view), "graph", s->have_graph, "memory",
				 s->have_memory, "chrome", s->from_chrome, "nested", s->nested,
				 "device", s->have_device);
	json_t *labels = json_array();
	for (guint i = 0; i < s->run_labels->len; i++)
		json_array_append_new(labels, json_string(g_ptr_array_index(s->run_labels, i)));
	json_object_set_new(head, "runs", labels);
	char *text = json_dumps(head, JSON_COMPACT | JSON_PRESERVE_ORDER | JSON_ENSURE_ASCII);
	tl_output_str(out, text);
	tl_output_char(out, '\n');
	free(text);
	json_decref(head);
	GPtrArray *rows = tl_summary_sorted_rows(s);
	for (guint i = 0; i < rows->len; i++) {
		const tl_row *r = g_ptr_array_index(rows, i);
		json_t *o = json_object();
		json_object_set_new(o, "name", json_string(r->name));
		json_object_set_new(o, "defined", json_integer(r->defined));
		if (r->shape != NULL)
			json_object_set_new(o, "shape", json_string(r->shape));
		if (r->extra != NULL)
			json_object_set_new(o, "extra", json_string(r->extra));
		json_t *runs = json_array();
		for (guint k = 0; k < s->n_runs; k++) {
			json_t *vs = json_array();
			for (int c = 0; c < TL_N_COLS; c++) {
				json_array_append_new(vs, json_real(tl_summary_row_value(r, k, c)));
			}
			json_array_append_new(runs, vs);
		}
		json_object_set_new(o, "v", runs);
		text = json_dumps(o, JSON_COMPACT | JSON_PRESERVE_ORDER | JSON_ENSURE_ASCII |
					 JSON_REAL_PRECISION(17));
		tl_output_str(out, text);
		tl_output_char(out, '\n');
		free(text);
		json_decref(o);
	}
	g_ptr_array_free(rows, TRUE);
}
