/*
 * table: the one sink for tables (trace-summarize's views and diff, idle
 * time, the critical path, tfprof's advice, trace-memory's report). An
 * analysis hands over rows of cells; a backend, picked by name from a
 * table of hook structs, writes them:
 *
 *   text   each row as its columns' printf formats, one after another, then
 *          a newline; a heading the caller wrote (titles, aligned headers)
 *          comes first;
 *   csv    a header of the columns' CSV names, then one line per row,
 *          strings quoted as RFC 4180 wants;
 *   json   {meta..., "<rows>":[ one object per row ]}, a row's sub-rows as
 *          an array inside it.
 *
 * A column says how each backend writes it: its CSV name, its JSON key,
 * the printf format of its number in CSV and JSON, its format in text.
 * A column without a name or format in a backend is not in that backend
 * (text shows milliseconds where data has microseconds: two columns). A row may
 * carry sub-rows (a device's longest gaps) of a second column set: text
 * prints them under it, JSON nests them, CSV leaves them out.
 *
 * The caller owns everything it passes; the table holds no copy, and a
 * tl_table lives on the caller's stack from tl_table_begin to
 * tl_table_end.
 */
#ifndef TL_EMIT_TABLE_H
#define TL_EMIT_TABLE_H

#include "base/output.h"

#include <stdbool.h>
#include <stddef.h>

typedef enum tl_cell_kind {
	TL_CELL_STR = 0, /* cell.s */
	TL_CELL_NUM,	 /* cell.v with the column's num format */
	TL_CELL_AUTO,	 /* cell.v: integral values as integers, others with 3 decimals */
} tl_cell_kind;

typedef struct tl_table_col {
	const char *csv;  /* CSV header name, or NULL: not in CSV */
	const char *json; /* JSON key, or NULL: not in JSON */
	tl_cell_kind kind;
	const char *num;  /* TL_CELL_NUM: printf format of v in CSV and JSON ("%.3f") */
	const char *text; /* text: printf format of the cell, or NULL: not in text; a %s
			   * format takes cell.s (a cell may carry both v and a human s) */
} tl_table_col;

typedef struct tl_cell {
	const char *s;
	double v;
} tl_cell;

typedef struct tl_table_spec {
	const tl_table_col *cols;
	size_t n_cols;
	const char *json_rows; /* JSON: the key of the rows' array ("rows") */
} tl_table_spec;

typedef struct tl_table tl_table;

/* A backend: what to write at each step. */
typedef struct tl_table_sink {
	const char *name;
	void (*begin)(tl_table *t, const tl_cell *meta);
	void (*row)(tl_table *t, const tl_cell *cells);
	void (*sub_row)(tl_table *t, const tl_cell *cells);
	void (*end)(tl_table *t);
	/* Optional: whether the sink writes no more rows (a page that keeps
	 * the first N); rows past it are counted (tl_table_skip_row), not
	 * formatted. NULL: never. */
	bool (*full)(const tl_table *t);
} tl_table_sink;

struct tl_table {
	const tl_table_sink *sink;
	tl_output *out;
	const tl_table_spec *spec;
	const tl_table_spec *sub;  /* the sub-rows' columns, or NULL */
	const tl_table_spec *meta; /* JSON: fields before the rows, or NULL */
	const char *text_head;	   /* text: written first (titles, column heads) */
	size_t rows, sub_rows;	   /* written so far (sub_rows: under the last row) */
};

/* The backends by name: "text", "csv", "json"; NULL for another name. */
const tl_table_sink *tl_table_sink_find(const char *name);
/* The names, NULL-terminated, in the order --format lists them. */
extern const char *const tl_table_sink_names[];

/* Starts a table: `t` is filled from the arguments (sub, meta and
 * text_head may be NULL; meta_cells has one cell per meta column). */
void tl_table_begin(tl_table *t, const tl_table_sink *sink, tl_output *out,
		    const tl_table_spec *spec, const tl_table_spec *sub, const tl_table_spec *meta,
		    const tl_cell *meta_cells, const char *text_head);
void tl_table_row(tl_table *t, const tl_cell *cells);
/* Whether the sink takes no more rows: the caller may then count the
 * rest with tl_table_skip_row instead of making their cells. */
bool tl_table_full(const tl_table *t);
void tl_table_skip_row(tl_table *t);
/* A sub-row of the last row written. */
void tl_table_sub_row(tl_table *t, const tl_cell *cells);
void tl_table_end(tl_table *t);

#endif
