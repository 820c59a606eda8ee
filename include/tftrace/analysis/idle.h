/*
 * idle: where a step's devices waited. Per device that does timed work
 * (executors, GPU streams, copy engines), the busy time as the union of its
 * executions, the idle time as the rest of the step, and the gaps between
 * busy stretches, longest first, with the executions on either side.
 *
 * tl_idle_new returns data only (emit/idle.h writes it); the result is the
 * caller's, freed with tl_idle_free, and refers to the run by index.
 */
#ifndef TL_ANALYSIS_IDLE_H
#define TL_ANALYSIS_IDLE_H

#include "model/run.h"

#include <stddef.h>
#include <stdint.h>

typedef struct tl_idle_gap {
	int64_t begin, end;	/* ns */
	uint32_t before, after; /* the executions that end it and start after it */
} tl_idle_gap;

typedef struct tl_idle_device {
	uint32_t device;
	int64_t busy_ns, idle_ns;
	double busy_pct;      /* of the step */
	size_t n_gaps;	      /* every gap */
	tl_idle_gap *longest; /* the longest, at most top_gaps, longest first */
	size_t n_longest;
} tl_idle_device;

typedef struct tl_idle {
	int64_t span_ns;	 /* the step: first start to last end */
	tl_idle_device *devices; /* in device order; devices without executions left out */
	size_t n_devices;
} tl_idle;

tl_idle *tl_idle_new(const tl_run *run, size_t top_gaps);
void tl_idle_free(tl_idle *idle);

/* Whether a device's records are time it was busy (not a repeat of other
 * records, such as stream:all). */
bool tl_idle_counts(const tl_device *d);

#endif
