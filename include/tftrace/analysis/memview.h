/*
 * memview: one allocator view for every source of memory records, what
 * every memory output (trace-memory's report, CSV, JSON, plot and trace,
 * trace-merge's memory tracks, trace-report's memory tab) is written from:
 *   - RunMetadata/StepStats buffers (analysis/memory.h, tl_memory);
 *   - allocator events recorded by address (analysis/allocs.h, tl_allocs):
 *     XSpace MemoryAllocation, Kineto [memory], and whatever else feeds
 *     io/alloc_event.h.
 * Per allocator: its name and device, the in-use curve (allocated bytes;
 * requested and reserved where recorded), the band the truth lies in
 * (low <= curve <= high; zero width where the curve is exact), the peak
 * (bytes, time, op, and the range the true peak lies in), the baseline
 * (persistent bytes, or what was held before the first event), the blocks
 * live at the peak, the part of the curve no record explains
 * (unattributed), the check against the allocator's own numbers, and its
 * blocks, each with where it was allocated and freed.
 *
 * Times are nanoseconds on the source's clock (RunMetadata's whole
 * microseconds times 1000, saturated at the int64 range; allocator events
 * as recorded); `origin_ns` is what the source's outputs count relative
 * times from (the step's start for RunMetadata, the clock's zero for
 * allocator events). The view copies only what it reshapes (per allocator
 * the index lists, the band where it is not the curve); the curve and the
 * blocks are read through the accessors below from the analysis, which
 * must outlive the view, as must its run or events. A view owns its arrays
 * (tl_memview_free); the analysis stays the caller's.
 */
#ifndef TL_ANALYSIS_MEMVIEW_H
#define TL_ANALYSIS_MEMVIEW_H

#include "analysis/allocs.h"
#include "analysis/memory.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define TL_MEMVIEW_BEFORE INT64_MIN /* alloc_ns of a block held before the step or trace */
#define TL_MEMVIEW_NEVER INT64_MAX  /* free_ns of a block never freed in it */

typedef enum tl_memview_source {
	TL_MEMVIEW_BUFFERS = 0, /* RunMetadata/StepStats buffers */
	TL_MEMVIEW_EVENTS,	/* allocator events recorded by address */
} tl_memview_source;

/* In use after every event at t_ns. */
typedef struct tl_memview_point {
	int64_t t_ns;
	int64_t bytes;	   /* allocated */
	int64_t requested; /* -1: not recorded */
	int64_t reserved;  /* -1: not recorded */
} tl_memview_point;

/* From t_ns (after every event at it) to the next point, the allocator
 * held at least low and at most high bytes. */
typedef struct tl_memview_band_point {
	int64_t t_ns;
	int64_t low;
	int64_t high;
} tl_memview_band_point;

/* The part of the curve no record explains, from t_ns to the next one. */
typedef struct tl_memview_unattributed {
	int64_t t_ns;
	int64_t bytes;
} tl_memview_unattributed;

/* One buffer or block, as tl_memview_block fills it. */
typedef struct tl_memview_block {
	const char *name;    /* its tensor, "node (temp)", or the op it was allocated in */
	const char *kind;    /* "output", "temp", "persistent" (buffers); "block" (events) */
	const char *op;	     /* allocated in: the producer's node or the event's op; NULL */
	const char *op_type; /* the producer's op type; NULL */
	const char *free_op; /* freed by: the last consumer or the free's op; NULL */
	int64_t bytes;	     /* allocated */
	int64_t requested;   /* -1: not recorded */
	int64_t alloc_ns;    /* or TL_MEMVIEW_BEFORE */
	int64_t free_ns;     /* or TL_MEMVIEW_NEVER */
	bool estimated;	     /* its birth is not in the dump (buffers) */
	uint64_t addr;	     /* 0: not recorded */
	/* the source's detail: exactly one is set */
	const tl_buffer *buffer;    /* RunMetadata: dtype, shape, aliases, free cause, birth */
	const tl_alloc_block *event; /* allocator events: its events */
} tl_memview_block;

typedef struct tl_memview_allocator {
	const char *name;
	const char *device; /* "" when unknown */
	size_t n_curve;
	size_t n_band;
	int64_t baseline_bytes;	    /* persistent, or held before the first event */
	int64_t baseline_requested; /* -1: not recorded */
	int64_t peak_bytes;
	int64_t peak_requested; /* -1: not recorded */
	int64_t peak_ns;
	const char *peak_op; /* or NULL */
	int64_t peak_low, peak_high; /* the true peak lies in [peak_low, peak_high] */
	int64_t peak_reserved;	     /* the largest reserved total; -1: not recorded */
	bool peak_from_totals;	     /* events: the peak is the largest total they carry */
	size_t *live;		     /* blocks live at the peak, largest first */
	size_t n_live;
	size_t *blocks; /* its blocks, in the source's order */
	size_t n_blocks;
	tl_memview_unattributed *unattributed; /* NULL: none */
	size_t n_unattributed;
	/* buffers: samples below what the records alone hold, by how much */
	tl_memview_unattributed *contradictions; /* NULL: none */
	size_t n_contradictions;
	/* the check of the curve against the allocator's own numbers */
	size_t check_samples;
	int64_t check_max_abs;
	double check_mean_abs;
	/* buffers: births the dump does not hold, of which not placed */
	size_t n_estimated, n_unplaced;
	/* events: counts the event report gives */
	size_t n_events, n_before, n_never_freed;
	int64_t live_bytes;	    /* the blocks live at the peak, summed */
	int64_t unheld_bytes;	    /* peak_bytes less live_bytes: held from before the trace */
	/* the sources (one is set) */
	const tl_allocator *mem_allocator;
	const tl_allocs_allocator *ev_allocator;
	tl_memview_band_point *band; /* owned; NULL: zero width, the curve */
} tl_memview_allocator;

typedef struct tl_memview {
	tl_memview_source source;
	const char *label;	/* the run or input */
	const char *clock;	/* events: what the times count from; NULL for buffers */
	int64_t start_ns, end_ns; /* the step, or the first and last event */
	int64_t origin_ns;	  /* what relative times in the outputs count from */
	tl_memview_allocator *allocators;
	size_t n_allocators;
	size_t n_blocks;
	const tl_memory *mem;	/* buffers */
	const tl_allocs *allocs; /* events */
} tl_memview;

/* The view of a RunMetadata analysis (which must outlive it). */
tl_memview *tl_memview_from_memory(const tl_memory *mem);

/* The view of an allocator-event analysis (which must outlive it). */
tl_memview *tl_memview_from_allocs(const tl_allocs *allocs);

void tl_memview_free(tl_memview *v);

/* The k-th point of an allocator's curve, k < n_curve. */
tl_memview_point tl_memview_curve(const tl_memview *v, const tl_memview_allocator *a, size_t k);

/* The k-th point of an allocator's band, k < n_band. */
tl_memview_band_point tl_memview_band(const tl_memview *v, const tl_memview_allocator *a,
				      size_t k);

/* Block i of the view (i < n_blocks; the allocators' blocks and live
 * lists index them). */
void tl_memview_block_get(const tl_memview *v, size_t i, tl_memview_block *out);

/* Whether the band has width anywhere. */
bool tl_memview_band_wide(const tl_memview *v, const tl_memview_allocator *a);

/* Microseconds of a view time, as a double: exact for whole microseconds
 * (RunMetadata's), the same quotient as ns / 1000.0 otherwise. */
double tl_memview_us(int64_t ns);

#endif
