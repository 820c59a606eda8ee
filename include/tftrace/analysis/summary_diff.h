/*
 * summary_diff: two summaries (runs A and B) compared row by row: per name
 * in either, a column's statistic in A and B and the occurrences, ordered
 * by impact (the largest absolute change first, then by name).
 * emit/summary_diff.h writes it. The result is the caller's; its names
 * belong to the summaries.
 */
#ifndef TL_ANALYSIS_SUMMARY_DIFF_H
#define TL_ANALYSIS_SUMMARY_DIFF_H

#include "analysis/summary.h"

typedef struct tl_summary_diff_row {
	const char *name;
	double a, b;		 /* the column in A and in B (0 where absent) */
	double calls_a, calls_b; /* occurrences */
} tl_summary_diff_row;

typedef struct tl_summary_diff {
	int col; /* --order-by, else total_micros */
	tl_summary_diff_row *rows;
	size_t n;
} tl_summary_diff;

tl_summary_diff *tl_summary_diff_new(const tl_summary *a, const tl_summary *b,
				     const tl_summary_opts *o);
void tl_summary_diff_free(tl_summary_diff *d);

#endif
