#include "emit/report_impl.h"

#include "analysis/summary_diff.h"
#include "emit/dot.h"
#include "emit/json.h"
#include "emit/summary_diff.h"

#include <math.h>
#include <string.h>

void tl_report_opts_init(tl_report_opts *o)
{
	memset(o, 0, sizeof *o);
	o->graph = true;
	o->graph_max_nodes = 400;
	o->max_live = 200;
	o->table_rows = 2000;
}

void tl_report_string(tl_output *out, const char *s)
{
	tl_json_string_script(out, s != NULL ? s : "", s != NULL ? strlen(s) : 0);
}

/* ---- the table sink --------------------------------------------------- */

static const char *unit_of(const char *name)
{
	if (g_str_has_suffix(name, "_micros"))
		return "us";
	if (g_str_has_suffix(name, "_bytes"))
		return "bytes";
	if (g_str_has_suffix(name, "_pct"))
		return "%";
	return "";
}

/* The columns' names, or their units (a diff's "delta" has the unit of
 * the A and B before it). */
static void names(tl_table *t, bool units)
{
	bool first = true;
	const char *last = "";
	tl_output_char(t->out, '[');
	for (size_t i = 0; i < t->spec->n_cols; i++) {
		const char *csv = t->spec->cols[i].csv;
		if (csv == NULL)
			continue;
		if (!first)
			tl_output_char(t->out, ',');
		const char *unit = strcmp(csv, "delta") == 0 ? last : unit_of(csv);
		if (unit[0] != '\0')
			last = unit;
		tl_report_string(t->out, units ? unit : csv);
		first = false;
	}
	tl_output_char(t->out, ']');
}

static void sink_begin(tl_table *t, const tl_cell *meta)
{
	tl_output_str(t->out, "{\"columns\":");
	names(t, false);
	tl_output_str(t->out, ",\"units\":");
	names(t, true);
	tl_output_str(t->out, ",\"rows\":[");
}

/* A cell as trace-summarize's CSV writes it: numbers raw (a non-finite
 * one, which JSON cannot hold, as null). */
static bool sink_full(const tl_table *t)
{
	const tl_report_sink *rs = (const tl_report_sink *)t->sink;
	return rs->max_rows > 0 && t->rows >= rs->max_rows;
}

static void sink_row(tl_table *t, const tl_cell *cells)
{
	if (sink_full(t))
		return;
	tl_output_str(t->out, t->rows > 0 ? ",\n[" : "\n[");
	bool first = true;
	for (size_t i = 0; i < t->spec->n_cols; i++) {
		const tl_table_col *col = &t->spec->cols[i];
		if (col->csv == NULL)
			continue;
		if (!first)
			tl_output_char(t->out, ',');
		first = false;
		double v = cells[i].v;
		if (col->kind == TL_CELL_STR)
			tl_report_string(t->out, cells[i].s);
		else if (!isfinite(v))
			tl_output_str(t->out, "null");
		else if (v == floor(v) && fabs(v) < 9e15)
			tl_output_printf(t->out, "%.0f", v);
		else
			tl_output_printf(t->out, "%.3f", v);
	}
	tl_output_char(t->out, ']');
}

/* The page's tables are flat: sub-rows are left out. */
static void sink_sub_row(tl_table *t, const tl_cell *cells)
{
}

static void sink_end(tl_table *t)
{
	tl_output_str(t->out, "],\"rows_total\":");
	tl_output_uint(t->out, t->rows);
	tl_output_char(t->out, '}');
}

void tl_report_sink_init(tl_report_sink *s, size_t max_rows)
{
	s->sink = (tl_table_sink){
	    .name = "report",
	    .begin = sink_begin,
	    .row = sink_row,
	    .sub_row = sink_sub_row,
	    .end = sink_end,
	    .full = sink_full,
	};
	s->max_rows = max_rows;
}

/* ---- the data --------------------------------------------------------- */

/* trace-summarize --diff of the op view: run 0 as A, run 1 as B. */
static void write_diff(tl_output *out, tl_run *const *runs, size_t max_rows)
{
	tl_summary *s[2];
	for (int k = 0; k < 2; k++) {
		s[k] = tl_summary_new(TL_VIEW_OP);
		tl_summary_add_run(s[k], runs[k]);
	}
	tl_summary_opts o;
	tl_summary_opts_init(&o);
	o.fit_quietly = true;
	tl_summary_opts_fit(&o, s[0]);
	tl_summary_diff *d = tl_summary_diff_new(s[0], s[1], &o);
	tl_report_sink sink;
	tl_report_sink_init(&sink, max_rows);
	tl_summary_diff_write(d, &sink.sink, out);
	tl_summary_diff_free(d);
	tl_summary_free(s[0]);
	tl_summary_free(s[1]);
}

/* A fingerprint of a run's partition graphs: runs of one model share it,
 * and their picture is drawn once. 0: no graphs. */
static uint64_t graph_print(const tl_run *run)
{
	if (run->n_nodes == 0)
		return 0;
	uint64_t h = 1469598103934665603ull ^ run->n_nodes ^ ((uint64_t)run->n_edges << 32);
	for (size_t i = 0; i < run->n_nodes; i++) {
		const char *parts[] = {run->nodes[i].name, run->nodes[i].op, run->nodes[i].device};
		for (size_t k = 0; k < G_N_ELEMENTS(parts); k++) {
			for (const char *p = parts[k]; p != NULL && *p != '\0'; p++)
				h = (h ^ (unsigned char)*p) * 1099511628211ull;
			h = (h ^ 0xff) * 1099511628211ull;
		}
	}
	for (size_t i = 0; i < run->n_edges; i++) {
		const tl_edge *e = &run->edges[i];
		h = (h ^ e->src ^ ((uint64_t)e->dst << 24) ^ ((uint64_t)e->kind << 56)) *
		    1099511628211ull;
		h = (h ^ (uint32_t)e->src_port ^ ((uint64_t)(uint32_t)e->dst_port << 32)) *
		    1099511628211ull;
	}
	return h ? h : 1;
}

static int write_data(tl_output *out, tl_run *const *runs, size_t n_runs, const char *title,
		      const tl_report_opts *o, tl_error *err)
{
	tl_output_str(out, "{\"format\":\"tftrace-report/1\",\"generator\":");
	tl_report_string(out, o->generator);
	tl_output_str(out, ",\"title\":");
	tl_report_string(out, title);
	tl_output_str(out, ",\"inputs\":[");
	for (size_t i = 0; i < o->n_inputs; i++) {
		if (i > 0)
			tl_output_char(out, ',');
		tl_report_string(out, o->inputs[i]);
	}
	tl_output_str(out, "],\n\"runs\":[");
	uint64_t *prints = g_new0(uint64_t, n_runs);
	GHashTable *first = g_hash_table_new(g_int64_hash, g_int64_equal);
	int rc = 0;
	for (size_t r = 0; r < n_runs && rc == 0; r++) {
		prints[r] = o->graph ? graph_print(runs[r]) : 0;
		int32_t graph_of = -1;
		gpointer k;
		if (prints[r] != 0 && g_hash_table_lookup_extended(first, &prints[r], NULL, &k))
			graph_of = GPOINTER_TO_INT(k);
		else if (prints[r] != 0)
			g_hash_table_insert(first, &prints[r], GINT_TO_POINTER((int)r));
		if (r > 0)
			tl_output_str(out, ",\n");
		rc = tl_report_run(out, runs[r], o, graph_of, err);
	}
	g_hash_table_destroy(first);
	g_free(prints);
	if (rc < 0)
		return -1;
	tl_output_str(out, "],\n\"diff\":");
	if (n_runs == 2)
		write_diff(out, runs, o->table_rows);
	else
		tl_output_str(out, "null");
	if (n_runs == 2) {
		tl_output_str(out, ",\n\"graph_diff\":");
		tl_report_graph_diff(out, runs, o);
	}
	tl_output_char(out, '}');
	return 0;
}

/* ---- the page --------------------------------------------------------- */

static void write_asset(tl_output *out, const char *open, const unsigned char *data, size_t len,
			const char *close)
{
	tl_output_str(out, open);
	tl_output_bytes(out, data, len);
	tl_output_str(out, close);
}

/* Which marker a template line is ("<!--tftrace:NAME-->" alone on it,
 * blanks around allowed), or NULL. */
static const char *marker(const char *line, size_t len, size_t *name_len)
{
	while (len > 0 && (line[len - 1] == ' ' || line[len - 1] == '\t' || line[len - 1] == '\r'))
		len--;
	while (len > 0 && (*line == ' ' || *line == '\t')) {
		line++;
		len--;
	}
	static const char head[] = "<!--tftrace:", tail[] = "-->";
	size_t h = sizeof head - 1, t = sizeof tail - 1;
	if (len <= h + t || memcmp(line, head, h) != 0 || memcmp(line + len - t, tail, t) != 0)
		return NULL;
	*name_len = len - h - t;
	return line + h;
}

static bool is(const char *name, size_t len, const char *want)
{
	return len == strlen(want) && memcmp(name, want, len) == 0;
}

int tl_report_write(tl_output *out, tl_run *const *runs, size_t n_runs, const tl_report_opts *o,
		    tl_error *err)
{
	char *title = o->title != NULL ? g_strdup(o->title)
				       : g_strdup_printf("tftrace report: %s",
							 o->n_inputs > 0 ? o->inputs[0] : "stdin");
	GString *html_title = g_string_new(NULL);
	tl_dot_html(html_title, title);
	const char *tpl = (const char *)tl_report_report_html,
		   *end = tpl + tl_report_report_html_len;
	int rc = 0;
	for (const char *p = tpl; p < end && rc == 0;) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		const char *next = nl != NULL ? nl + 1 : end;
		size_t n;
		const char *m = marker(p, (size_t)((nl != NULL ? nl : end) - p), &n);
		if (m != NULL && is(m, n, "title")) {
			tl_output_bytes(out, html_title->str, html_title->len);
			tl_output_char(out, '\n');
		} else if (m != NULL && is(m, n, "css")) {
			write_asset(out, "<style>\n", tl_report_report_css,
				    tl_report_report_css_len, "</style>\n");
		} else if (m != NULL && is(m, n, "js")) {
			write_asset(out, "<script>\n", tl_report_report_js, tl_report_report_js_len,
				    "</script>\n");
		} else if (m != NULL && is(m, n, "data")) {
			tl_output_str(out,
				      "<script type=\"application/json\" id=\"tftrace-data\">");
			rc = write_data(out, runs, n_runs, title, o, err);
			tl_output_str(out, "</script>\n");
		} else {
			tl_output_bytes(out, p, (size_t)(next - p));
		}
		p = next;
	}
	g_string_free(html_title, TRUE);
	g_free(title);
	return rc;
}
