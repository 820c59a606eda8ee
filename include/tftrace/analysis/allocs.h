/*
 * allocs: the memory analysis of allocator events recorded by address
 * (io/alloc_event.h: PyTorch/Kineto "[memory]" instants, the XSpace's
 * MemoryAllocation/MemoryDeallocation), per allocator:
 *   - the blocks: each allocation matched with its free by address (a free
 *     closes the latest open allocation at its address, so a reused address
 *     pairs correctly); a free with no open allocation is a block allocated
 *     before the trace started;
 *   - the curve: bytes in use after each event, the running sum of Bytes
 *     plus a baseline: where the events carry the allocator's total, what it
 *     held before the first event (its total less its Bytes), else the
 *     blocks allocated before the trace that the trace frees;
 *   - the peak: the largest total the allocator reported where the events
 *     carry totals, else the curve's largest value (peak_from_totals says
 *     which), its time and op, and the blocks live there, largest first;
 *   - the check: the curve against the allocator's totals at every event
 *     that carries one (samples, largest and mean difference).
 * Events are taken per allocator in time order, ties in input order.
 *
 * tl_allocs_build copies nothing of the events but their order: the
 * result points at their strings, which must outlive it. The result owns
 * its arrays (tl_allocs_free).
 */
#ifndef TL_ANALYSIS_ALLOCS_H
#define TL_ANALYSIS_ALLOCS_H

#include "io/alloc_event.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define TL_ALLOCS_BEFORE INT64_MIN /* alloc_ns of a block allocated before the trace */
#define TL_ALLOCS_NEVER INT64_MAX  /* free_ns of a block the trace never frees */

/* One allocation, matched with its free. */
typedef struct tl_alloc_block {
	uint64_t addr;
	int64_t bytes;
	int64_t alloc_ns; /* or TL_ALLOCS_BEFORE */
	int64_t free_ns;  /* or TL_ALLOCS_NEVER */
	const char *op;	  /* the op it was allocated in, or NULL (unknown, or before the trace) */
	const char *free_op;
	size_t alloc_ev, free_ev; /* indexes in the input; SIZE_MAX: none */
	const char *what;	  /* its allocation's dtype and shape, or NULL */
	int64_t allocated;	  /* its allocation's allocated bytes where bytes are
				     those requested (timeline.py); 0: not recorded */
} tl_alloc_block;

/* A point of the curve: in use after the event at t_ns. */
typedef struct tl_alloc_point {
	int64_t t_ns;
	int64_t bytes;
	int64_t reserved; /* the allocator's reserved bytes, -1: not recorded */
} tl_alloc_point;

typedef struct tl_allocs_allocator {
	const char *name;   /* the allocator */
	const char *device; /* its device */
	size_t n_events;
	tl_alloc_point *curve; /* one per event, in time order */
	size_t n_curve;
	int64_t baseline; /* in use before the first event */
	bool peak_from_totals;
	int64_t peak_bytes;
	int64_t peak_ns;
	const char *peak_op;
	int64_t peak_reserved; /* the largest reserved total; -1: none recorded */
	size_t *live;	       /* indexes in tl_allocs.blocks, live at the peak, largest first */
	size_t n_live;
	int64_t live_bytes;	      /* their sum */
	int64_t unattributed_bytes;   /* peak_bytes less live_bytes: held from before the trace */
	size_t n_before;	      /* frees with no open allocation */
	size_t n_no_addr;	      /* events without an address */
	size_t n_never_freed;	      /* blocks still open at the end */
	size_t first_block, n_blocks; /* its blocks in tl_allocs.blocks, by allocation */
	/* the check against the allocator's totals */
	size_t check_samples;
	int64_t check_max_abs;
	double check_mean_abs;
} tl_allocs_allocator;

typedef struct tl_allocs {
	const char *label;	  /* the input's name, for reports */
	const char *clock;	  /* what the times count from */
	int64_t start_ns, end_ns; /* the first and last event */
	tl_alloc_block *blocks;
	size_t n_blocks;
	tl_allocs_allocator *allocators; /* by device, then allocator name */
	size_t n_allocators;
} tl_allocs;

/* The analysis of `ev` (label: the input's name, kept as a pointer).
 * Warns (base/warn.h, one line per kind with a count) of frees with no
 * allocation, frees not of their allocation's size, events with no
 * address. */
tl_allocs *tl_allocs_build(const tl_alloc_events *ev, const char *label);
void tl_allocs_free(tl_allocs *a);

#endif
