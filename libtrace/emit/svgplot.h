/*
 * svgplot: pictures as plain SVG, written by the project (no plotting
 * library): a memory curve per allocator with its band, its peak and the
 * largest blocks live there, and horizontal bars for a summary table.
 */
#ifndef TL_EMIT_SVGPLOT_H
#define TL_EMIT_SVGPLOT_H

#include "analysis/memview.h"
#include "base/output.h"
#include "analysis/summary.h"

/* One panel per allocator of each memory view, whatever its source: the
 * curve, the band shaded where it has width, the peak, the blocks live
 * there. */
void tl_svgplot_memory(const tl_memview *const *views, size_t n, tl_output *out);

/* The top rows of a summary as bars of `col` (and, for the step view,
 * each run's wall time split into executor-busy, GPU-busy and the rest). */
void tl_svgplot_summary(const tl_summary *s, const tl_summary_opts *o, size_t top, tl_output *out);

#endif
