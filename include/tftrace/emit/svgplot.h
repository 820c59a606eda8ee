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
/* The same view by view, for a writer that frees each view before the
 * next: each view's panels into `body` (the picture's height, in its
 * head, is known once every view is drawn), then the head, the body and
 * the end into the output. */
typedef struct tl_svgplot_panels {
	size_t views, panels;
	bool events; /* every view so far is of allocator events */
} tl_svgplot_panels;
void tl_svgplot_memory_panels(tl_svgplot_panels *p, const tl_memview *v, tl_output *body);
void tl_svgplot_memory_end(const tl_svgplot_panels *p, const char *body, size_t len,
			   tl_output *out);

/* The top rows of a summary as bars of `col` (and, for the step view,
 * each run's wall time split into executor-busy, GPU-busy and the rest). */
void tl_svgplot_summary(const tl_summary *s, const tl_summary_opts *o, size_t top, tl_output *out);

#endif
