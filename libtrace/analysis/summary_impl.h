/*
 * summary_impl: what the files of the summary share and nobody else
 * sees: a row's values per run, and the row lookups.
 */
#ifndef TL_ANALYSIS_SUMMARY_IMPL_H
#define TL_ANALYSIS_SUMMARY_IMPL_H

#include "analysis/summary.h"

typedef struct tl_summary_vals {
	double v[TL_N_COLS];
} tl_summary_vals;

/* The row of a name (made valid UTF-8), made when missing. */
tl_row *tl_summary_row_get(tl_summary *s, const char *name);
/* The values of a run, added where missing. */
tl_summary_vals *tl_summary_row_run(tl_row *r, size_t run);
/* The values of a run, or NULL when the row did not occur in it. */
const tl_summary_vals *tl_summary_row_vals(const tl_row *r, size_t run);
/* Adds v to a run's values (peak: the larger; the others summed). */
void tl_summary_vals_add(tl_summary_vals *dst, const tl_summary_vals *v);
/* Adds v to the row's run, making the row if need be; returns the row. */
tl_row *tl_summary_row_add(tl_summary *s, const char *name, size_t run, const tl_summary_vals *v);
/* A label kept as valid UTF-8 (bad bytes become U+FFFD), newly allocated. */
char *tl_summary_valid_dup(const char *s);
/* The rows by name (strcmp order); the caller frees the array. */
GPtrArray *tl_summary_sorted_rows(const tl_summary *s);

#endif
