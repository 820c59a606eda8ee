#include "emit/table.h"

#include "emit/json.h"

#include <math.h>
#include <string.h>

/* The formats are the columns' own, chosen by the analyses that define
 * them; none comes from input. */
#pragma GCC diagnostic ignored "-Wformat-nonliteral"

static const char *cell_str(const tl_cell *c)
{
	return c->s != NULL ? c->s : "";
}

/* Integral values as integers, others with three decimals. */
static void write_auto(tl_output *out, double v)
{
	if (v == floor(v) && fabs(v) < 9e15)
		tl_output_printf(out, "%.0f", v);
	else
		tl_output_printf(out, "%.3f", v);
}

static void write_number(tl_output *out, const tl_table_col *col, const tl_cell *c)
{
	if (col->kind == TL_CELL_AUTO)
		write_auto(out, c->v);
	else
		tl_output_printf(out, col->num, c->v);
}

/* ---- text ---------------------------------------------------------------- */

static void text_cells(tl_table *t, const tl_table_spec *spec, const tl_cell *cells)
{
	for (size_t i = 0; i < spec->n_cols; i++) {
		const tl_table_col *col = &spec->cols[i];
		if (col->text == NULL)
			continue;
		if (col->kind == TL_CELL_STR || cells[i].s != NULL)
			tl_output_printf(t->out, col->text, cell_str(&cells[i]));
		else
			tl_output_printf(t->out, col->text, cells[i].v);
	}
	tl_output_char(t->out, '\n');
}

static void text_begin(tl_table *t, const tl_cell *meta)
{
	if (t->text_head != NULL)
		tl_output_str(t->out, t->text_head);
}

static void text_row(tl_table *t, const tl_cell *cells)
{
	text_cells(t, t->spec, cells);
}

static void text_sub_row(tl_table *t, const tl_cell *cells)
{
	text_cells(t, t->sub, cells);
}

static void text_end(tl_table *t)
{
}

/* ---- csv ----------------------------------------------------------------- */

static void csv_begin(tl_table *t, const tl_cell *meta)
{
	bool first = true;
	for (size_t i = 0; i < t->spec->n_cols; i++) {
		if (t->spec->cols[i].csv == NULL)
			continue;
		if (!first)
			tl_output_char(t->out, ',');
		tl_output_str(t->out, t->spec->cols[i].csv);
		first = false;
	}
	tl_output_char(t->out, '\n');
}

static void csv_row(tl_table *t, const tl_cell *cells)
{
	bool first = true;
	for (size_t i = 0; i < t->spec->n_cols; i++) {
		const tl_table_col *col = &t->spec->cols[i];
		if (col->csv == NULL)
			continue;
		if (!first)
			tl_output_char(t->out, ',');
		if (col->kind == TL_CELL_STR)
			tl_output_csv(t->out, cell_str(&cells[i]));
		else
			write_number(t->out, col, &cells[i]);
		first = false;
	}
	tl_output_char(t->out, '\n');
}

/* CSV is one flat table: sub-rows are left out. */
static void csv_sub_row(tl_table *t, const tl_cell *cells)
{
}

static void csv_end(tl_table *t)
{
}

/* ---- json ---------------------------------------------------------------- */

/* The fields of a row (or the meta) with a JSON key; returns how many. */
static size_t json_fields(tl_table *t, const tl_table_spec *spec, const tl_cell *cells)
{
	size_t n = 0;
	bool first = true;
	for (size_t i = 0; i < spec->n_cols; i++) {
		const tl_table_col *col = &spec->cols[i];
		if (col->json == NULL)
			continue;
		if (!first)
			tl_output_char(t->out, ',');
		tl_json_string(t->out, col->json);
		tl_output_char(t->out, ':');
		if (col->kind == TL_CELL_STR)
			tl_json_string(t->out, cell_str(&cells[i]));
		else
			write_number(t->out, col, &cells[i]);
		first = false;
		n++;
	}
	return n;
}

/* The last row stays open for its sub-rows until the next row or the end. */
static void json_close_row(tl_table *t)
{
	if (t->rows == 0)
		return;
	if (t->sub != NULL)
		tl_output_char(t->out, ']');
	tl_output_char(t->out, '}');
}

static void json_begin(tl_table *t, const tl_cell *meta)
{
	tl_output_char(t->out, '{');
	if (t->meta != NULL && json_fields(t, t->meta, meta) > 0)
		tl_output_char(t->out, ',');
	tl_json_string(t->out, t->spec->json_rows != NULL ? t->spec->json_rows : "rows");
	tl_output_str(t->out, ":[");
}

static void json_row(tl_table *t, const tl_cell *cells)
{
	json_close_row(t);
	tl_output_str(t->out, t->rows > 0 ? ",\n{" : "\n{");
	size_t n = json_fields(t, t->spec, cells);
	if (t->sub != NULL) {
		if (n > 0)
			tl_output_char(t->out, ',');
		tl_json_string(t->out, t->sub->json_rows != NULL ? t->sub->json_rows : "rows");
		tl_output_str(t->out, ":[");
	}
}

static void json_sub_row(tl_table *t, const tl_cell *cells)
{
	tl_output_str(t->out, t->sub_rows > 0 ? ",{" : "{");
	json_fields(t, t->sub, cells);
	tl_output_char(t->out, '}');
}

static void json_end(tl_table *t)
{
	json_close_row(t);
	tl_output_str(t->out, "]}\n");
}

/* ---- the backends and the calls ------------------------------------------ */

static const tl_table_sink text_sink = {
    .name = "text",
    .begin = text_begin,
    .row = text_row,
    .sub_row = text_sub_row,
    .end = text_end,
};
static const tl_table_sink csv_sink = {
    .name = "csv",
    .begin = csv_begin,
    .row = csv_row,
    .sub_row = csv_sub_row,
    .end = csv_end,
};
static const tl_table_sink json_sink = {
    .name = "json",
    .begin = json_begin,
    .row = json_row,
    .sub_row = json_sub_row,
    .end = json_end,
};
static const tl_table_sink *const sinks[] = {&text_sink, &csv_sink, &json_sink};

const char *const tl_table_sink_names[] = {"text", "csv", "json", NULL};

const tl_table_sink *tl_table_sink_find(const char *name)
{
	for (size_t i = 0; i < sizeof sinks / sizeof sinks[0]; i++)
		if (strcmp(sinks[i]->name, name) == 0)
			return sinks[i];
	return NULL;
}

void tl_table_begin(tl_table *t, const tl_table_sink *sink, tl_output *out,
		    const tl_table_spec *spec, const tl_table_spec *sub, const tl_table_spec *meta,
		    const tl_cell *meta_cells, const char *text_head)
{
	*t = (tl_table){.sink = sink,
			.out = out,
			.spec = spec,
			.sub = sub,
			.meta = meta,
			.text_head = text_head};
	sink->begin(t, meta_cells);
}

void tl_table_row(tl_table *t, const tl_cell *cells)
{
	t->sink->row(t, cells);
	t->rows++;
	t->sub_rows = 0;
}

bool tl_table_full(const tl_table *t)
{
	return t->sink->full != NULL && t->sink->full(t);
}

void tl_table_skip_row(tl_table *t)
{
	t->rows++;
	t->sub_rows = 0;
}

void tl_table_sub_row(tl_table *t, const tl_cell *cells)
{
	t->sink->sub_row(t, cells);
	t->sub_rows++;
}

void tl_table_end(tl_table *t)
{
	t->sink->end(t);
}
