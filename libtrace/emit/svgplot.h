/*
 * svgplot: pictures as plain SVG, written by the project (no plotting
 * library): a memory curve per allocator with its peak and the largest
 * buffers live there, and horizontal bars for a summary table.
 */
#ifndef TL_EMIT_SVGPLOT_H
#define TL_EMIT_SVGPLOT_H

#include "analysis/allocs.h"
#include "analysis/memory.h"
#include "base/output.h"
#include "analysis/summary.h"

/* One panel per allocator of each run. */
void tl_svgplot_memory(const tl_memory *const *mems, size_t n, tl_output *out);

/* The same panels for allocator events (PyTorch [memory], XSpace
 * MemoryAllocation): the curve, the peak, the blocks live there. */
void tl_svgplot_allocs(const tl_allocs *const *allocs, size_t n, tl_output *out);

/* The top rows of a summary as bars of `col` (and, for the step view,
 * each run's wall time split into executor-busy, GPU-busy and the rest). */
void tl_svgplot_summary(const tl_summary *s, const tl_summary_opts *o, size_t top, tl_output *out);

#endif
