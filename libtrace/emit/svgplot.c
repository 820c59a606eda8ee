#include "emit/svgplot.h"

#include "base/utf8.h"
#include "base/bytes.h"
#include "emit/chrome.h"

#include <glib.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define WIDTH 960
#define FONT "font-family=\"DejaVu Sans, Arial, sans-serif\""

/* Text content, escaped for XML; invalid UTF-8 and control characters are
 * replaced so the document stays well-formed. */
static void xml_text(tl_output *o, const char *s)
{
	const char *end = s + strlen(s);
	for (const char *p = s; p < end;) {
		unsigned char c = (unsigned char)*p;
		if (c >= 0x80) {
			int32_t cp;
			const char *next = tl_utf8_next(p, end, &cp);
			if (cp < 0)
				tl_output_str(o, "\xef\xbf\xbd"); /* U+FFFD */
			else
				tl_output_bytes(o, p, (size_t)(next - p));
			p = next;
			continue;
		}
		p++;
		switch (c) {
		case '<':
			tl_output_str(o, "&lt;");
			break;
		case '>':
			tl_output_str(o, "&gt;");
			break;
		case '&':
			tl_output_str(o, "&amp;");
			break;
		case '"':
			tl_output_str(o, "&quot;");
			break;
		default:
			/* XML 1.0 allows no control characters but tab, CR, LF */
			tl_output_char(o, c < 0x20 ? ' ' : (char)c);
		}
	}
}

static void svg_begin(tl_output *o, int height, const char *title)
{
	tl_output_printf(o,
			 "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
			 "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" height=\"%d\" "
			 "viewBox=\"0 0 %d %d\" " FONT " font-size=\"12\">\n"
			 "<rect width=\"100%%\" height=\"100%%\" fill=\"white\"/>\n"
			 "<title>",
			 WIDTH, height, WIDTH, height);
	xml_text(o, title);
	tl_output_str(o, "</title>\n");
}

/* A "nice" axis step: 1, 2 or 5 times a power of ten. */
static double nice_step(double range, int ticks)
{
	double raw = range / ticks;
	double p = pow(10, floor(log10(raw > 0 ? raw : 1)));
	double m = raw / p;
	return (m < 1.5 ? 1 : m < 3.5 ? 2 : m < 7.5 ? 5 : 10) * p;
}

/* A name of at most max - 1 bytes, cut with "..." where longer. */
static void xml_text_short(tl_output *o, const char *name, size_t max)
{
	char shortn[64];
	if (max > sizeof shortn)
		max = sizeof shortn;
	snprintf(shortn, max, "%s", name);
	if (strlen(name) >= max)
		memcpy(shortn + max - 4, "...", 4);
	xml_text(o, shortn);
}

/* One memory panel, whatever analysis it comes from: times in
 * microseconds. */
typedef struct panel_point {
	double us, bytes;
} panel_point;

typedef struct panel_band {
	double us, low, high;
} panel_band;

typedef struct panel_live {
	int64_t bytes;
	const char *name, *kind;
} panel_live;

typedef struct panel {
	const char *run, *allocator;
	double t0, t1; /* the x axis */
	double origin; /* what "+x ms" counts from */
	int64_t peak_bytes;
	double peak_us;
	const char *peak_op; /* or NULL */
	const panel_point *curve;
	size_t n_curve;
	const panel_band *band; /* NULL: zero width */
	size_t n_band;
	const panel_live *live; /* largest first */
	size_t n_live;
} panel;

/* Beside a memory panel: the largest buffers live at the peak. */
static void plot_live(tl_output *o, const panel *pn, int tx, int py)
{
	char size[TL_BYTES_FORMAT_MAX];
	tl_output_printf(o,
			 "<text x=\"%d\" y=\"%d\" font-weight=\"bold\">live at the "
			 "peak</text>\n",
			 tx, py + 10);
	for (size_t k = 0; k < pn->n_live && k < 8; k++) {
		tl_bytes_format(size, sizeof size, (double)pn->live[k].bytes);
		tl_output_printf(o, "<text x=\"%d\" y=\"%d\">%s ", tx, py + 28 + (int)k * 18, size);
		xml_text_short(o, pn->live[k].name, 48);
		tl_output_printf(o, " (%s)</text>\n", pn->live[k].kind);
	}
}

enum { PANEL_H = 300 };

/* The band, where it has width: a grey area from its high steps forward to
 * its low steps back. */
static void plot_band(tl_output *o, const panel *pn, int px, int py, int plot_w, int plot_h,
		      double t0, double t1, double ymax)
{
	if (pn->band == NULL || pn->n_band == 0)
		return;
	tl_output_str(o, "<path fill=\"#999\" fill-opacity=\"0.35\" stroke=\"none\" d=\"");
	for (size_t k = 0; k < pn->n_band; k++) {
		double x = px + (pn->band[k].us - t0) / (t1 - t0) * plot_w;
		double x2 = k + 1 < pn->n_band ? px + (pn->band[k + 1].us - t0) / (t1 - t0) * plot_w
					       : px + plot_w;
		double y = py + plot_h - pn->band[k].high / ymax * plot_h;
		tl_output_printf(o, "%s%.1f %.1f L%.1f %.1f", k ? " L" : "M", x, y, x2, y);
	}
	for (size_t k = pn->n_band; k-- > 0;) {
		double x = px + (pn->band[k].us - t0) / (t1 - t0) * plot_w;
		double x2 = k + 1 < pn->n_band ? px + (pn->band[k + 1].us - t0) / (t1 - t0) * plot_w
					       : px + plot_w;
		double y = py + plot_h - pn->band[k].low / ymax * plot_h;
		tl_output_printf(o, " L%.1f %.1f L%.1f %.1f", x2, y, x, y);
	}
	tl_output_str(
	    o, " Z\"><title>band: the least and most the allocator can have held</title></path>\n");
}

/* The panel whose top is at y0: title, axes, the curve as filled steps, the
 * peak marked, the live set beside it. */
static void plot_panel(tl_output *o, const panel *pn, int y0)
{
	const int left = 80, top_pad = 40, plot_w = 600, plot_h = 200;
	double t0 = pn->t0, t1 = pn->t1;
	if (pn->n_curve > 0 && pn->curve[0].us < t0)
		t0 = pn->curve[0].us;
	if (t1 <= t0)
		t1 = t0 + 1;
	double ymax = pn->peak_bytes > 0 ? (double)pn->peak_bytes * 1.1 : 1;
	int px = left, py = y0 + top_pad;
	char b1[32], b2[32];
	tl_bytes_format(b1, sizeof b1, (double)pn->peak_bytes);
	tl_output_printf(o, "<g>\n<text x=\"%d\" y=\"%d\" font-size=\"14\" font-weight=\"bold\">",
			 left, y0 + 22);
	xml_text(o, pn->run);
	tl_output_str(o, ": ");
	xml_text(o, pn->allocator);
	tl_output_printf(o, " (peak %s)</text>\n", b1);
	/* axes and grid */
	tl_output_printf(o,
			 "<rect x=\"%d\" y=\"%d\" width=\"%d\" height=\"%d\" "
			 "fill=\"none\" stroke=\"#999\"/>\n",
			 px, py, plot_w, plot_h);
	double ystep = nice_step(ymax, 4);
	for (double v = 0; v <= ymax; v += ystep) {
		int yy = py + plot_h - (int)(v / ymax * plot_h);
		tl_bytes_format(b2, sizeof b2, v);
		tl_output_printf(o,
				 "<line x1=\"%d\" y1=\"%d\" x2=\"%d\" y2=\"%d\" "
				 "stroke=\"#eee\"/><text x=\"%d\" y=\"%d\" "
				 "text-anchor=\"end\" fill=\"#555\">%s</text>\n",
				 px, yy, px + plot_w, yy, px - 4, yy + 4, b2);
	}
	/* ticks in ms from the origin, where the peak's time counts from */
	double lo = (t0 - pn->origin) / 1000.0, hi = (t1 - pn->origin) / 1000.0;
	double xstep = nice_step(hi - lo, 6);
	for (double v = ceil(lo / xstep) * xstep; v <= hi; v += xstep) {
		int xx = px + (int)((v - lo) / (hi - lo) * plot_w);
		tl_output_printf(o,
				 "<text x=\"%d\" y=\"%d\" text-anchor=\"middle\" "
				 "fill=\"#555\">%g ms</text>\n",
				 xx, py + plot_h + 16, v);
	}
	plot_band(o, pn, px, py, plot_w, plot_h, t0, t1, ymax);
	/* the curve as steps, filled */
	tl_output_printf(o,
			 "<path fill=\"#4e79a7\" fill-opacity=\"0.35\" "
			 "stroke=\"#4e79a7\" d=\"M%d %d",
			 px, py + plot_h);
	double prev_y = py + plot_h;
	for (size_t k = 0; k < pn->n_curve; k++) {
		double x = px + (pn->curve[k].us - t0) / (t1 - t0) * plot_w;
		double y = py + plot_h - pn->curve[k].bytes / ymax * plot_h;
		tl_output_printf(o, " L%.1f %.1f L%.1f %.1f", x, prev_y, x, y);
		prev_y = y;
	}
	tl_output_printf(o, " L%d %.1f L%d %d Z\"/>\n", px + plot_w, prev_y, px + plot_w,
			 py + plot_h);
	/* the peak */
	double kx = px + (pn->peak_us - t0) / (t1 - t0) * plot_w;
	double ky = py + plot_h - (double)pn->peak_bytes / ymax * plot_h;
	bool right_half = kx > px + plot_w / 2.0;
	tl_output_printf(o,
			 "<circle cx=\"%.1f\" cy=\"%.1f\" r=\"4\" fill=\"#e15759\"/>\n"
			 "<text x=\"%.1f\" y=\"%.1f\" fill=\"#e15759\" "
			 "text-anchor=\"%s\">peak %s at +%.3f ms",
			 kx, ky, right_half ? kx - 6 : kx + 6, ky - 6 < py + 12 ? py + 12 : ky - 6,
			 right_half ? "end" : "start", b1, (pn->peak_us - pn->origin) / 1000.0);
	if (pn->peak_op != NULL) {
		tl_output_str(o, " in ");
		xml_text(o, pn->peak_op);
	}
	tl_output_str(o, "</text>\n");
	plot_live(o, pn, px + plot_w + 16, py);
	tl_output_str(o, "</g>\n");
}

static void plot_begin(tl_output *o, size_t panels, const char *none)
{
	int height = (int)(panels ? panels : 1) * PANEL_H + 10;
	svg_begin(o, height, "trace-memory: in-use bytes per allocator");
	if (panels == 0)
		tl_output_printf(o, "<text x=\"20\" y=\"30\">%s</text>\n", none);
}

/* What the plot calls a block: a buffer's tensor, else its producer; an
 * event block's op, else its address (into buf). */
static const char *live_name(const tl_memview_block *b, char *buf, size_t size)
{
	if (b->buffer != NULL) {
		if (b->buffer->n_refs == 0 && b->buffer->name == NULL)
			return b->op != NULL ? b->op : "?";
		return b->name;
	}
	if (b->op != NULL)
		return b->op;
	snprintf(buf, size, "0x%" PRIx64, b->addr);
	return buf;
}

static void view_panel(tl_output *o, const tl_memview *v, const tl_memview_allocator *al, int y0)
{
	panel_point *pts = g_new(panel_point, al->n_curve + 1);
	for (size_t k = 0; k < al->n_curve; k++) {
		tl_memview_point p = tl_memview_curve(v, al, k);
		pts[k] = (panel_point){tl_memview_us(p.t_ns), (double)p.bytes};
	}
	panel_band *band = NULL;
	if (tl_memview_band_wide(v, al)) {
		band = g_new(panel_band, al->n_band + 1);
		for (size_t k = 0; k < al->n_band; k++) {
			tl_memview_band_point p = tl_memview_band(v, al, k);
			band[k] =
			    (panel_band){tl_memview_us(p.t_ns), (double)p.low, (double)p.high};
		}
	}
	panel_live *live = g_new(panel_live, al->n_live + 1);
	typedef char addr_text[24];
	addr_text *addrs = g_new(addr_text, al->n_live + 1);
	tl_memview_block b;
	for (size_t k = 0; k < al->n_live; k++) {
		tl_memview_block_get(v, al->live[k], &b);
		const char *kind = b.buffer != NULL		     ? b.kind
				   : b.alloc_ns == TL_MEMVIEW_BEFORE ? "before the trace"
								     : "block";
		live[k] = (panel_live){b.bytes, live_name(&b, addrs[k], sizeof addrs[k]), kind};
	}
	bool events = v->source == TL_MEMVIEW_EVENTS;
	char *title = events ? g_strdup_printf("%s on %s", al->name, al->device) : NULL;
	panel pn = {.run = v->label,
		    .allocator = events ? title : al->name,
		    .t0 = tl_memview_us(v->start_ns),
		    .t1 = tl_memview_us(v->end_ns),
		    .origin = tl_memview_us(v->origin_ns),
		    .peak_bytes = al->peak_bytes,
		    .peak_us = tl_memview_us(al->peak_ns),
		    .peak_op = al->peak_op,
		    .curve = pts,
		    .n_curve = al->n_curve,
		    .band = band,
		    .n_band = band != NULL ? al->n_band : 0,
		    .live = live,
		    .n_live = al->n_live};
	plot_panel(o, &pn, y0);
	g_free(title);
	g_free(addrs);
	g_free(pts);
	g_free(band);
	g_free(live);
}

void tl_svgplot_memory_panels(tl_svgplot_panels *p, const tl_memview *v, tl_output *body)
{
	p->views++;
	p->events = (p->views == 1 || p->events) && v->source == TL_MEMVIEW_EVENTS;
	for (size_t a = 0; a < v->n_allocators; a++, p->panels++)
		view_panel(body, v, &v->allocators[a], (int)p->panels * PANEL_H);
}

void tl_svgplot_memory_end(const tl_svgplot_panels *p, const char *body, size_t len, tl_output *o)
{
	plot_begin(o, p->panels,
		   p->views > 0 && p->events ? "no allocator events in the input"
					     : "no memory records in the input");
	tl_output_bytes(o, body, len);
	tl_output_str(o, "</svg>\n");
}

void tl_svgplot_memory(const tl_memview *const *views, size_t n, tl_output *o)
{
	tl_svgplot_panels p = {0};
	tl_output *body = tl_output_new_memory();
	for (size_t m = 0; m < n; m++)
		tl_svgplot_memory_panels(&p, views[m], body);
	GString *text = tl_output_take(body);
	tl_svgplot_memory_end(&p, text->str, text->len, o);
	g_string_free(text, TRUE);
}

static const char *const palette[] = {"#4e79a7", "#f28e2b", "#e15759", "#76b7b2", "#59a14f",
				      "#edc948", "#b07aa1", "#ff9da7", "#9c755f", "#bab0ac"};

struct bar {
	const tl_row *row;
	double v;
};

/* By value, largest first, then name; `by_name` (a bool): by name alone. */
static int cmp_bar(const void *a, const void *b, void *by_name)
{
	const struct bar *x = a, *y = b;
	if (!*(const bool *)by_name && x->v != y->v)
		return x->v > y->v ? -1 : 1;
	return strcmp(x->row->name, y->row->name);
}

enum { BAR_LEFT = 330 };

/* A step's bar: its wall time, executors and GPU streams busy inside it. */
static void step_bar(tl_output *out, const tl_summary *s, const tl_summary_opts *o, const tl_row *r,
		     int y, double scale)
{
	double wall = tl_summary_row_stat(s, r, TL_COL_TOTAL, o);
	double cpu = tl_summary_row_stat(s, r, TL_COL_CPU, o);
	double gpu = tl_summary_row_stat(s, r, TL_COL_ACCEL, o);
	int left = BAR_LEFT;
	tl_output_printf(out,
			 "<rect x=\"%d\" y=\"%d\" width=\"%.1f\" height=\"16\" "
			 "fill=\"#ddd\"/>\n",
			 left, y, wall * scale);
	tl_output_printf(out,
			 "<rect x=\"%d\" y=\"%d\" width=\"%.1f\" height=\"7\" "
			 "fill=\"%s\"/>\n",
			 left, y + 1, (cpu < wall ? cpu : wall) * scale, palette[0]);
	tl_output_printf(out,
			 "<rect x=\"%d\" y=\"%d\" width=\"%.1f\" height=\"7\" "
			 "fill=\"%s\"/>\n",
			 left, y + 8, (gpu < wall ? gpu : wall) * scale, palette[1]);
	tl_output_printf(out, "<text x=\"%.1f\" y=\"%d\">%.3f ms</text>\n", left + wall * scale + 6,
			 y + 13, wall / 1000.0);
}

/* A row's bar of width w, labelled with its value in the column's unit. */
static void value_bar(tl_output *out, int col, double x, int y, double w, const char *fill)
{
	int left = BAR_LEFT;
	tl_output_printf(out,
			 "<rect x=\"%d\" y=\"%d\" width=\"%.1f\" height=\"16\" fill=\"%s\"/>\n",
			 left, y, w, fill);
	char label[48];
	if (col == TL_COL_TOTAL || col == TL_COL_CPU || col == TL_COL_ACCEL || col == TL_COL_SELF)
		snprintf(label, sizeof label, "%.3f ms", x / 1000.0);
	else if (col == TL_COL_REQUESTED || col == TL_COL_PEAK || col == TL_COL_RESIDUAL ||
		 col == TL_COL_OUTPUT)
		tl_bytes_format(label, sizeof label, x);
	else
		snprintf(label, sizeof label, "%.6g", x);
	tl_output_printf(out, "<text x=\"%.1f\" y=\"%d\">%s</text>\n", left + w + 6, y + 13, label);
}

void tl_svgplot_summary(const tl_summary *s, const tl_summary_opts *o, size_t top, tl_output *out)
{
	int col = o->order_by >= 0 ? o->order_by : o->select[0];
	GPtrArray *rows = g_ptr_array_new();
	GArray *vals = g_array_new(FALSE, FALSE, sizeof(double));
	GHashTableIter it;
	gpointer k, v;
	g_hash_table_iter_init(&it, s->rows);
	while (g_hash_table_iter_next(&it, &k, &v))
		g_ptr_array_add(rows, v);
	/* order by the column, then name; keep the top N */
	struct bar *bars = g_new(struct bar, rows->len ? rows->len : 1);
	for (guint i = 0; i < rows->len; i++) {
		bars[i].row = g_ptr_array_index(rows, i);
		bars[i].v = tl_summary_row_stat(s, bars[i].row, col, o);
	}
	bool by_name = s->view == TL_VIEW_STEP; /* steps in run order */
	if (rows->len > 1)
		qsort_r(bars, rows->len, sizeof *bars, cmp_bar, &by_name);
	for (guint i = 0; i < rows->len; i++) {
		rows->pdata[i] = (gpointer)bars[i].row;
		g_array_append_val(vals, bars[i].v);
	}
	g_free(bars);
	size_t n = rows->len < top ? rows->len : top;
	bool steps = s->view == TL_VIEW_STEP;
	int bar_h = 22, left = BAR_LEFT, bar_w = 520;
	int height = 60 + (int)n * bar_h + (steps ? 40 : 0);
	char title[128];
	snprintf(title, sizeof title, "trace-summarize: %s by %s (%s over %zu runs)",
		 tl_summary_view_name(s->view), tl_summary_col_name(col),
		 o->stat == TL_STAT_AVG ? "average" : "statistic", s->n_runs);
	svg_begin(out, height, title);
	tl_output_printf(out, "<text x=\"20\" y=\"24\" font-size=\"15\" font-weight=\"bold\">");
	xml_text(out, title);
	tl_output_str(out, "</text>\n");
	double vmax = n > 0 ? g_array_index(vals, double, 0) : 1;
	if (steps) {
		double mx = 1;
		for (size_t i = 0; i < n; i++) {
			const tl_row *r = g_ptr_array_index(rows, i);
			double w = tl_summary_row_stat(s, r, TL_COL_TOTAL, o);
			mx = w > mx ? w : mx;
		}
		vmax = mx;
		tl_output_printf(
		    out,
		    "<rect x=\"%d\" y=\"36\" width=\"12\" height=\"12\" fill=\"%s\"/>"
		    "<text x=\"%d\" y=\"46\">executors busy</text>"
		    "<rect x=\"%d\" y=\"36\" width=\"12\" height=\"12\" fill=\"%s\"/>"
		    "<text x=\"%d\" y=\"46\">GPU streams busy</text>"
		    "<rect x=\"%d\" y=\"36\" width=\"12\" height=\"12\" fill=\"#ddd\"/>"
		    "<text x=\"%d\" y=\"46\">step wall time</text>\n",
		    left, palette[0], left + 16, left + 140, palette[1], left + 156, left + 290,
		    left + 306);
	}
	for (size_t i = 0; i < n; i++) {
		const tl_row *r = g_ptr_array_index(rows, i);
		double x = g_array_index(vals, double, i);
		int y = 60 + (steps ? 20 : 0) + (int)i * bar_h;
		tl_output_printf(out, "<text x=\"%d\" y=\"%d\" text-anchor=\"end\">", left - 8,
				 y + 14);
		xml_text_short(out, r->name, 56);
		tl_output_str(out, "</text>\n");
		if (steps) {
			step_bar(out, s, o, r, y, vmax > 0 ? bar_w / vmax : 0);
			continue;
		}
		value_bar(out, col, x, y, vmax > 0 ? x / vmax * bar_w : 0,
			  palette[i % G_N_ELEMENTS(palette)]);
	}
	tl_output_str(out, "</svg>\n");
	g_array_free(vals, TRUE);
	g_ptr_array_free(rows, TRUE);
}
