/* report_page: trace-report's HTML page: the template filled with the
 * style, the data of every run (report_run_data.c for each), the steps,
 * the diff and the scripts, run by run into a scratch file. */
#include "emit/report_internal.h"

#include "analysis/summary_diff.h"
#include "emit/dot.h"
#include "emit/json.h"
#include "emit/summary_diff.h"

#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
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
		else
			tl_json_number3(t->out, v);
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
static void write_diff(tl_output *out, tl_summary *const *s, size_t max_rows)
{
	tl_summary_opts o;
	tl_summary_opts_init(&o);
	o.fit_quietly = true;
	tl_summary_opts_fit(&o, s[0]);
	tl_summary_diff *d = tl_summary_diff_new(s[0], s[1], &o);
	tl_report_sink sink;
	tl_report_sink_init(&sink, max_rows);
	tl_summary_diff_write(d, &sink.sink, out);
	tl_summary_diff_free(d);
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

/* ---- --runs ----------------------------------------------------------- */

static bool run_number(const char *s, int64_t *v)
{
	char *end = NULL;
	if (!g_ascii_isdigit(*s))
		return false;
	errno = 0;
	long long n = strtoll(s, &end, 10);
	if (errno != 0 || *end != '\0')
		return false;
	*v = n;
	return true;
}

int tl_report_picks_parse(const char *list, tl_report_pick **picks, size_t *n)
{
	char **items = g_strsplit(list, ",", -1);
	GArray *out = g_array_new(FALSE, FALSE, sizeof(tl_report_pick));
	bool ok = items[0] != NULL;
	for (char **it = items; *it != NULL && ok; it++) {
		tl_report_pick p;
		char *dash = strchr(*it, '-');
		if (strcmp(*it, "median") == 0) {
			p.from = p.to = TL_REPORT_MEDIAN;
		} else if (strcmp(*it, "slowest") == 0) {
			p.from = p.to = TL_REPORT_SLOWEST;
		} else if (dash != NULL) {
			*dash = '\0';
			ok = run_number(*it, &p.from) && run_number(dash + 1, &p.to) &&
			     p.from <= p.to;
		} else {
			ok = run_number(*it, &p.from);
			p.to = p.from;
		}
		if (ok)
			g_array_append_val(out, p);
	}
	g_strfreev(items);
	*n = out->len;
	*picks = (tl_report_pick *)(void *)g_array_free(out, !ok);
	return ok ? 0 : -1;
}

/* ---- the runs as they come --------------------------------------------- */

/* A run's time in one op type (the op view's total_micros, self_micros
 * where slices nest) and its executions. */
typedef struct op_time {
	uint32_t op;
	double us, calls;
} op_time;

typedef struct step {
	char *label;
	tl_report_digest dg; /* its ops moved to `ops` */
	uint64_t print;	     /* its graphs' fingerprint, 0: none drawn */
	tl_report_pieces at;
	op_time *ops;
	size_t n_ops;
} step;

struct tl_report {
	const tl_report_opts *o;
	tl_output *scratch;
	GArray *steps;	      /* step */
	GHashTable *first;    /* graphs' fingerprint (in a step) -> the first run with them */
	tl_summary *ab[2];    /* the op views of runs 0 and 1: a two-run page's diff */
	GHashTable *op_index; /* op name -> index + 1 */
	GPtrArray *op_names;  /* char * */
	bool nested;	      /* some run's slices nest: op times are self_micros */
	/* A two-run page's graph colouring (report_diff.c): run 0's side of
	 * the diff, kept until run 1 comes; then run 1's picture coloured,
	 * written aside (graph_diff: offset and length, 0 until written). */
	tl_graphdot_diff *gdiff;
	bool steps0; /* run 0 has a timeline */
	uint64_t graph_diff[2];
	/* The first run, kept until a second comes (add_own): its side of the
	 * colouring (a node-view summary, a tenth of a one-run page's time) is
	 * made only then, so a page of one run never makes it. */
	tl_run *run0;
	tl_run *run1; /* the second run, kept until a third comes (add_own) */
	/* Where the input told every run's wall time before the first came
	 * (tl_report_expect): per run, whether the page will hold its
	 * timeline; the others are made compact. NULL: any run may be. */
	bool *ahead;
	size_t n_ahead;
};

int tl_report_new(tl_report **out, const tl_report_opts *o, tl_error *err)
{
	tl_output *scratch = NULL;
	if (tl_output_new_scratch(&scratch, err) < 0)
		return -1;
	tl_report *r = g_new0(tl_report, 1);
	r->o = o;
	r->scratch = scratch;
	r->steps = g_array_new(FALSE, TRUE, sizeof(step));
	r->first = g_hash_table_new_full(g_int64_hash, g_int64_equal, g_free, NULL);
	r->op_index = g_hash_table_new(g_str_hash, g_str_equal);
	r->op_names = g_ptr_array_new_with_free_func(g_free);
	*out = r;
	return 0;
}

void tl_report_free(tl_report *r)
{
	if (r == NULL)
		return;
	g_free(r->ahead);
	for (guint i = 0; i < r->steps->len; i++) {
		step *st = &g_array_index(r->steps, step, i);
		g_free(st->label);
		g_free(st->dg.peak_allocator);
		g_free(st->ops);
	}
	g_array_free(r->steps, TRUE);
	g_hash_table_destroy(r->first);
	for (int k = 0; k < 2; k++)
		if (r->ab[k] != NULL)
			tl_summary_free(r->ab[k]);
	g_hash_table_destroy(r->op_index);
	g_ptr_array_free(r->op_names, TRUE);
	tl_graphdot_diff_free(r->gdiff);
	tl_run_free(r->run0);
	tl_run_free(r->run1);
	tl_output_abort(r->scratch);
	g_free(r);
}

/* The run's op times, by the page's op numbers. */
static void keep_ops(tl_report *r, step *st, const tl_summary *sum)
{
	tl_summary_opts o;
	tl_summary_opts_init(&o);
	int col = sum->nested ? TL_COL_SELF : TL_COL_TOTAL;
	r->nested = r->nested || sum->nested;
	st->ops = g_new(op_time, g_hash_table_size(sum->rows) + 1);
	GHashTableIter it;
	gpointer v;
	g_hash_table_iter_init(&it, sum->rows);
	while (g_hash_table_iter_next(&it, NULL, &v)) {
		const tl_row *row = v;
		guint id = GPOINTER_TO_UINT(g_hash_table_lookup(r->op_index, row->name));
		if (id == 0) {
			char *name = g_strdup(row->name);
			g_ptr_array_add(r->op_names, name);
			id = r->op_names->len;
			g_hash_table_insert(r->op_index, name, GUINT_TO_POINTER(id));
		}
		st->ops[st->n_ops++] = (op_time){
		    .op = id - 1,
		    .us = tl_summary_row_stat(sum, row, col, &o),
		    .calls = tl_summary_row_stat(sum, row, TL_COL_OCCURRENCE, &o),
		};
	}
}

/* Whether run k's timeline may be on the page: where every run's time
 * was told ahead, whether the picks name k; else always, unless --runs
 * names runs by number only (no median or slowest, which only the end
 * knows) and none of them is k. */
static bool timeline_known(const tl_report *r, size_t k)
{
	const tl_report_opts *o = r->o;
	if (r->ahead != NULL && k < r->n_ahead)
		return r->ahead[k];
	if (o->picks == NULL)
		return true;
	bool named = false;
	for (size_t i = 0; i < o->n_picks; i++) {
		const tl_report_pick *q = &o->picks[i];
		if (q->from == TL_REPORT_MEDIAN || q->from == TL_REPORT_SLOWEST)
			return true;
		named = named || (q->from <= (int64_t)k && (int64_t)k <= q->to);
	}
	return named;
}

/* The two-run page's graph colouring, of run 1 against run 0 (gdiff). */
static void graph_diff_of(tl_report *r, const tl_run *run1)
{
	r->graph_diff[0] = tl_output_tell(r->scratch);
	tl_report_graph_diff(r->scratch, r->gdiff, r->steps0, run1, r->o);
	r->graph_diff[1] = tl_output_tell(r->scratch) - r->graph_diff[0];
	tl_graphdot_diff_free(r->gdiff);
	r->gdiff = NULL;
}

/* Run 0's side of the two-run page's colouring. */
static void graph_diff_begin(tl_report *r, const tl_run *run0)
{
	r->gdiff = tl_graphdot_diff_new(false);
	tl_graphdot_diff_add_run(r->gdiff, 0, run0);
	r->steps0 = run0->has_steps;
}

static int add_run(tl_report *r, const tl_run *run, tl_run **keep, tl_error *err)
{
	size_t k = r->steps->len;
	if (k == 1 && r->run0 != NULL) {
		/* a second run: now run 0's side, before this run's own data */
		graph_diff_begin(r, r->run0);
		tl_run_free(r->run0);
		r->run0 = NULL;
	}
	if (k == 2 && r->run1 != NULL) {
		/* a third run: no two-run page, no colouring */
		tl_run_free(r->run1);
		r->run1 = NULL;
		tl_graphdot_diff_free(r->gdiff);
		r->gdiff = NULL;
	}
	g_array_set_size(r->steps, k + 1);
	step *st = &g_array_index(r->steps, step, k);
	st->label = g_strdup(run->label);
	st->print = r->o->graph ? graph_print(run) : 0;
	bool draw = st->print != 0 && !g_hash_table_contains(r->first, &st->print);
	if (draw)
		g_hash_table_insert(r->first, g_memdup2(&st->print, sizeof st->print),
				    GSIZE_TO_POINTER(k));
	int rc = tl_report_run(r->scratch, run, r->o, draw, timeline_known(r, k), &st->at,
			       &st->dg, err);
	if (rc == 0 && k == 0 && r->o->graph && keep != NULL) {
		r->run0 = *keep;
		*keep = NULL;
	} else if (rc == 0 && k == 0 && r->o->graph) {
		graph_diff_begin(r, run);
	} else if (rc == 0 && k == 1 && r->gdiff != NULL && keep != NULL) {
		r->run1 = *keep;
		*keep = NULL;
	} else if (rc == 0 && k == 1 && r->gdiff != NULL) {
		graph_diff_of(r, run);
	}
	tl_summary *ops = st->dg.ops;
	st->dg.ops = NULL;
	if (ops != NULL) {
		keep_ops(r, st, ops);
		if (k < 2)
			r->ab[k] = ops;
		else
			tl_summary_free(ops);
	}
	if (rc == 0 && r->scratch->error != 0)
		return tl_error_set(err, "cannot write a temporary file in '%s': %s",
				    g_get_tmp_dir(), g_strerror(r->scratch->error));
	return rc;
}

int tl_report_add(tl_report *r, const tl_run *run, tl_error *err)
{
	return add_run(r, run, NULL, err);
}

int tl_report_add_own(tl_report *r, tl_run **run, tl_error *err)
{
	return add_run(r, *run, run, err);
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

/* ---- the page's runs ---------------------------------------------------- */

typedef struct page {
	tl_report *r;
	size_t n;
	bool *timeline; /* per run: the page holds its timeline */
	size_t median, slowest;
} page;

static const step *step_at(const tl_report *r, size_t k)
{
	return &g_array_index(r->steps, step, k);
}

static int cmp_duration(const void *a, const void *b, void *ctx)
{
	const int64_t *wall = ctx;
	size_t x = *(const size_t *)a, y = *(const size_t *)b;
	if (wall[x] != wall[y])
		return wall[x] < wall[y] ? -1 : 1;
	return (x > y) - (x < y);
}

/* Of n runs whose wall times are wall[]: the median (the lower one of an
 * even count) and the slowest, ties to the lower run number; then which
 * runs the picks name (timeline[], n of them). */
static int pick_runs(const tl_report_opts *o, const int64_t *wall, size_t n, size_t *median,
		     size_t *slowest, bool *timeline, tl_error *err)
{
	size_t *order = g_new(size_t, n);
	for (size_t k = 0; k < n; k++)
		order[k] = k;
	g_qsort_with_data(order, (gint)n, sizeof *order, cmp_duration, (gpointer)wall);
	*median = order[(n - 1) / 2];
	*slowest = order[n - 1];
	g_free(order);
	static const tl_report_pick both[] = {{TL_REPORT_MEDIAN, TL_REPORT_MEDIAN},
					      {TL_REPORT_SLOWEST, TL_REPORT_SLOWEST}};
	const tl_report_pick *picks = o->picks != NULL ? o->picks : both;
	size_t n_picks = o->picks != NULL ? o->n_picks : G_N_ELEMENTS(both);
	for (size_t i = 0; i < n_picks; i++) {
		const tl_report_pick *q = &picks[i];
		if (q->from == TL_REPORT_MEDIAN || q->from == TL_REPORT_SLOWEST) {
			timeline[q->from == TL_REPORT_MEDIAN ? *median : *slowest] = true;
			continue;
		}
		if (q->to >= (int64_t)n)
			return tl_error_set(err,
					    "run %" PRId64
					    " (--runs) is not in the input: it has %zu "
					    "run%s, numbered 0 to %zu",
					    q->to, n, n == 1 ? "" : "s", n - 1);
		for (int64_t k = q->from; k <= q->to; k++)
			timeline[k] = true;
	}
	return 0;
}

void tl_report_expect(tl_report *r, const int64_t *wall, size_t n)
{
	g_free(r->ahead);
	r->ahead = NULL;
	if (n == 0 || r->steps->len > 0)
		return;
	size_t median, slowest;
	tl_error err = {{0}};
	r->ahead = g_new0(bool, n);
	r->n_ahead = n;
	if (pick_runs(r->o, wall, n, &median, &slowest, r->ahead, &err) < 0) {
		/* a pick past the last run: the end says so */
		g_free(r->ahead);
		r->ahead = NULL;
	}
}

/* The page's picks, from the runs' wall times as their timelines found
 * them. A run picked whose timeline was not made (the times told ahead
 * were not the runs': not expected) is shown as the others are, told. */
static int page_pick(page *p, tl_report *r, tl_error *err)
{
	p->r = r;
	p->n = r->steps->len;
	int64_t *wall = g_new(int64_t, p->n);
	for (size_t k = 0; k < p->n; k++)
		wall[k] = step_at(r, k)->dg.duration_ns;
	p->timeline = g_new0(bool, p->n);
	int rc = pick_runs(r->o, wall, p->n, &p->median, &p->slowest, p->timeline, err);
	g_free(wall);
	for (size_t k = 0; rc == 0 && k < p->n; k++)
		if (p->timeline[k] && step_at(r, k)->at.full[1] == 0) {
			tl_warn("report-ahead",
				"run %zu's timeline was not made: the input's times told "
				"ahead were not its runs' (--runs %zu makes a page with it)",
				k, k);
			p->timeline[k] = false;
		}
	return rc;
}

static int copy_piece(tl_output *out, tl_report *r, const uint64_t *piece, tl_error *err)
{
	return tl_output_copy(out, r->scratch, piece[0], piece[1], err);
}

/* A run's "graph": its picture where it was drawn (the first run with its
 * graphs), else that run's number, or null without graphs. */
static int write_graph_value(tl_output *out, tl_report *r, size_t k, tl_error *err)
{
	const step *st = step_at(r, k);
	tl_output_str(out, ",\n\"graph\":");
	if (st->print == 0) {
		tl_output_str(out, "null");
		return 0;
	}
	size_t first = GPOINTER_TO_SIZE(g_hash_table_lookup(r->first, &st->print));
	if (first == k)
		return copy_piece(out, r, st->at.graph, err);
	tl_output_printf(out, "{\"run\":%zu}", first);
	return 0;
}

static int write_run(tl_output *out, const page *p, size_t k, tl_error *err)
{
	const step *st = step_at(p->r, k);
	if (p->timeline[k])
		return copy_piece(out, p->r, st->at.full, err) < 0 ||
			       copy_piece(out, p->r, st->at.rest, err) < 0 ||
			       write_graph_value(out, p->r, k, err) < 0 ||
			       copy_piece(out, p->r, st->at.tail, err) < 0
			   ? -1
			   : 0;
	if (copy_piece(out, p->r, st->at.compact, err) < 0 ||
	    write_graph_value(out, p->r, k, err) < 0)
		return -1;
	tl_output_char(out, '}');
	return 0;
}

static int write_data(tl_output *out, const page *p, const char *title, tl_error *err)
{
	const tl_report_opts *o = p->r->o;
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
	for (size_t k = 0; k < p->n; k++) {
		if (k > 0)
			tl_output_str(out, ",\n");
		if (write_run(out, p, k, err) < 0)
			return -1;
	}
	tl_output_str(out, "],\n\"diff\":");
	if (p->n == 2 && p->r->ab[0] != NULL && p->r->ab[1] != NULL)
		write_diff(out, p->r->ab, o->table_rows);
	else
		tl_output_str(out, "null");
	if (p->n == 2) {
		tl_output_str(out, ",\n\"graph_diff\":");
		if (p->r->graph_diff[1] == 0)
			tl_output_str(out, "null");
		else if (copy_piece(out, p->r, p->r->graph_diff, err) < 0)
			return -1;
	}
	tl_output_char(out, '}');
	return 0;
}

/* ---- the steps: every run, for the page's runs.js ------------------------ */

/* A word of a command line, quoted for a POSIX shell where it needs it. */
static void shell_word(GString *cmd, const char *w)
{
	bool plain = w[0] != '\0';
	for (const char *c = w; *c != '\0' && plain; c++)
		plain = g_ascii_isalnum(*c) || strchr("_./:=@%+,-", *c) != NULL;
	g_string_append_c(cmd, ' ');
	if (plain) {
		g_string_append(cmd, w);
		return;
	}
	char *q = g_shell_quote(w);
	g_string_append(cmd, q);
	g_free(q);
}

/* The command line that makes a page with run k's timeline. */
static char *page_command(const tl_report_opts *o, size_t k)
{
	GString *cmd = g_string_new(o->prog != NULL ? o->prog : "trace-report");
	g_string_append_printf(cmd, " --runs %zu -o run-%zu.html", k, k);
	for (size_t i = 0; i < o->n_inputs; i++)
		shell_word(cmd, o->inputs[i]);
	return g_string_free(cmd, FALSE);
}

static void write_step(tl_output *out, const page *p, size_t k)
{
	const step *st = step_at(p->r, k);
	tl_output_str(out, k > 0 ? ",\n{\"label\":" : "\n{\"label\":");
	tl_report_string(out, st->label);
	tl_output_str(out, ",\"duration_us\":");
	tl_json_micros(out, st->dg.duration_ns);
	tl_output_str(out, ",\"slices\":");
	tl_output_uint(out, st->dg.slices);
	tl_output_str(out, ",\"arrows\":");
	tl_output_uint(out, st->dg.arrows);
	tl_output_str(out, ",\"critical_path_us\":");
	if (st->dg.critical_ns >= 0)
		tl_json_micros(out, st->dg.critical_ns);
	else
		tl_output_str(out, "null");
	tl_output_str(out, ",\"peak_bytes\":");
	if (st->dg.peak_bytes >= 0) {
		tl_output_int(out, st->dg.peak_bytes);
		tl_output_str(out, ",\"peak_allocator\":");
		tl_report_string(out, st->dg.peak_allocator);
	} else {
		tl_output_str(out, "null");
	}
	tl_output_str(out, p->timeline[k] ? ",\"timeline\":true" : ",\"timeline\":false");
	if (!p->timeline[k]) {
		char *cmd = page_command(p->r->o, k);
		tl_output_str(out, ",\"command\":");
		tl_report_string(out, cmd);
		g_free(cmd);
	}
	tl_output_char(out, '}');
}

typedef struct op_order {
	size_t op;
	double total;
	const char *name;
} op_order;

static int cmp_op_order(const void *a, const void *b)
{
	const op_order *x = a, *y = b;
	if (x->total != y->total)
		return x->total > y->total ? -1 : 1;
	return strcmp(x->name, y->name);
}

/* Every run's time and executions per op type, as columns by op (the most
 * time over all runs first): the page's diff of any run with the median. */
static void write_ops(tl_output *out, const tl_report *r)
{
	size_t n_ops = r->op_names->len, n = r->steps->len;
	op_order *ord = g_new(op_order, n_ops + 1);
	for (size_t i = 0; i < n_ops; i++)
		ord[i] = (op_order){i, 0, g_ptr_array_index(r->op_names, i)};
	size_t cells = n_ops * n + 1;
	double *us = g_new0(double, cells), *calls = g_new0(double, cells);
	for (size_t k = 0; k < n; k++) {
		const step *st = step_at(r, k);
		for (size_t i = 0; i < st->n_ops; i++) {
			us[st->ops[i].op * n + k] = st->ops[i].us;
			calls[st->ops[i].op * n + k] = st->ops[i].calls;
			ord[st->ops[i].op].total += st->ops[i].us;
		}
	}
	qsort(ord, n_ops, sizeof *ord, cmp_op_order);
	tl_output_str(out, ",\n\"ops\":{\"column\":");
	tl_report_string(out, r->nested ? "self_micros" : "total_micros");
	tl_output_str(out, ",\"names\":[");
	for (size_t i = 0; i < n_ops; i++) {
		if (i > 0)
			tl_output_char(out, ',');
		tl_report_string(out, ord[i].name);
	}
	for (int part = 0; part < 2; part++) {
		tl_output_str(out, part == 0 ? "],\n\"us\":[" : "],\n\"calls\":[");
		const double *v = part == 0 ? us : calls;
		for (size_t i = 0; i < n_ops; i++) {
			tl_output_str(out, i > 0 ? ",\n[" : "\n[");
			for (size_t k = 0; k < n; k++) {
				if (k > 0)
					tl_output_char(out, ',');
				tl_json_number3(out, v[ord[i].op * n + k]);
			}
			tl_output_char(out, ']');
		}
	}
	tl_output_str(out, "]}");
	g_free(us);
	g_free(calls);
	g_free(ord);
}

/* A page of several runs: their steps as data, and runs.js, which shows
 * them (before report.js, which then finds the tab runs.js adds). */
static void write_steps(tl_output *out, const page *p)
{
	tl_output_str(out, "<script type=\"application/json\" id=\"tftrace-steps\">");
	tl_output_printf(out, "{\"median\":%zu,\"slowest\":%zu,\n\"runs\":[", p->median,
			 p->slowest);
	for (size_t k = 0; k < p->n; k++)
		write_step(out, p, k);
	tl_output_char(out, ']');
	write_ops(out, p->r);
	tl_output_str(out, "}</script>\n");
	write_asset(out, "<script>\n", tl_report_runs_js, tl_report_runs_js_len, "</script>\n");
}

int tl_report_finish(tl_report *r, tl_output *out, tl_error *err)
{
	if (r->steps->len == 0)
		return tl_error_set(err, "no run in the input");
	tl_run_free(r->run0); /* one run: no colouring */
	r->run0 = NULL;
	if (r->run1 != NULL) {
		graph_diff_of(r, r->run1);
		tl_run_free(r->run1);
		r->run1 = NULL;
		if (r->scratch->error != 0)
			return tl_error_set(err, "cannot write a temporary file in '%s': %s",
					    g_get_tmp_dir(), g_strerror(r->scratch->error));
	}
	page p = {0};
	if (page_pick(&p, r, err) < 0) {
		g_free(p.timeline);
		return -1;
	}
	const tl_report_opts *o = r->o;
	char *title = o->title != NULL ? g_strdup(o->title)
				       : g_strdup_printf("tftrace report: %s",
							 o->n_inputs > 0 ? o->inputs[0] : "stdin");
	GString *html_title = g_string_new(NULL);
	tl_dot_html(html_title, title);
	const char *tpl = (const char *)tl_report_report_html,
		   *end = tpl + tl_report_report_html_len;
	int rc = 0;
	for (const char *q = tpl; q < end && rc == 0;) {
		const char *nl = memchr(q, '\n', (size_t)(end - q));
		const char *next = nl != NULL ? nl + 1 : end;
		size_t n;
		const char *m = marker(q, (size_t)((nl != NULL ? nl : end) - q), &n);
		if (m != NULL && is(m, n, "title")) {
			tl_output_bytes(out, html_title->str, html_title->len);
			tl_output_char(out, '\n');
		} else if (m != NULL && is(m, n, "css")) {
			write_asset(out, "<style>\n", tl_report_report_css,
				    tl_report_report_css_len, "</style>\n");
		} else if (m != NULL && is(m, n, "runs-css")) {
			if (p.n > 1)
				write_asset(out, "<style>\n", tl_report_runs_css,
					    tl_report_runs_css_len, "</style>\n");
		} else if (m != NULL && is(m, n, "js")) {
			write_asset(out, "<script>\n", tl_report_graphview_js,
				    tl_report_graphview_js_len, "</script>\n");
			write_asset(out, "<script>\n", tl_report_report_js, tl_report_report_js_len,
				    "</script>\n");
		} else if (m != NULL && is(m, n, "format")) {
			write_asset(out, "<script>\n", tl_report_format_js, tl_report_format_js_len,
				    "</script>\n");
		} else if (m != NULL && is(m, n, "runs")) {
			if (p.n > 1)
				write_steps(out, &p);
		} else if (m != NULL && is(m, n, "data")) {
			tl_output_str(out,
				      "<script type=\"application/json\" id=\"tftrace-data\">");
			rc = write_data(out, &p, title, err);
			tl_output_str(out, "</script>\n");
		} else {
			tl_output_bytes(out, q, (size_t)(next - q));
		}
		q = next;
	}
	g_string_free(html_title, TRUE);
	g_free(title);
	g_free(p.timeline);
	return rc;
}

int tl_report_write(tl_output *out, tl_run *const *runs, size_t n_runs, const tl_report_opts *o,
		    tl_error *err)
{
	tl_report *r = NULL;
	if (tl_report_new(&r, o, err) < 0)
		return -1;
	int rc = 0;
	for (size_t k = 0; k < n_runs && rc == 0; k++)
		rc = tl_report_add(r, runs[k], err);
	if (rc == 0)
		rc = tl_report_finish(r, out, err);
	tl_report_free(r);
	return rc;
}
