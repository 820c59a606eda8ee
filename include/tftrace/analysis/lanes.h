/*
 * lanes: how each execution is shown on a timeline: its interval under an
 * --op-time mode and its row (lane) within its device.
 *
 * op-time, as TensorFlow's timeline.py defines it: "schedule" shows the
 * executor's own record; "gpu" shows an op from its first kernel's start to
 * the later of its last kernel's end and its own end; "all" from its own
 * start to that same end. Kernels are matched per execution (a loop's
 * iterations keep their own kernels), not per node name.
 *
 * Lanes never overlap: on executors each dump thread_id gets its own row
 * (extra rows only when one thread's records overlap, e.g. async _Recv);
 * elsewhere rows are filled first-fit. Touching intervals share a row.
 * On a TF2/JAX host plane ("/host:CPU"), whose slices sit inside each other
 * on one thread, a row holds properly nested slices (the viewer draws them
 * as a stack): extra rows only for partial overlaps.
 */
#ifndef TL_ANALYSIS_LANES_H
#define TL_ANALYSIS_LANES_H

#include "model/run.h"

typedef enum tl_op_time {
	TL_OPTIME_SCHEDULE = 0,
	TL_OPTIME_GPU,
	TL_OPTIME_ALL,
} tl_op_time;

/* The --op-time names, indexed by tl_op_time, NULL-terminated. */
extern const char *const tl_op_time_names[];

typedef struct tl_lane {
	uint32_t thread; /* dump thread id (0 when none) */
	uint32_t sub;	 /* 0 for the thread's first row */
} tl_lane;

typedef struct tl_lanes {
	int64_t *start, *end; /* per exec, ns, as shown */
	uint32_t *lane;	      /* per exec: its row within its device */
	uint32_t *n_lanes;    /* per device */
	tl_lane **lanes;      /* per device: its rows, in display order */
	bool *threaded;	      /* per device: rows come from thread ids */
	size_t n_devices;
} tl_lanes;

void tl_lanes_build(tl_lanes *v, const tl_run *run, tl_op_time mode);
/* The same for a viewer that draws each row flat (trace-report's page): on
 * a host plane each nesting depth gets its own row, parents above. */
void tl_lanes_build_flat(tl_lanes *v, const tl_run *run, tl_op_time mode);
void tl_lanes_free(tl_lanes *v);

/* First-fit rows: intervals given in order of start each take the lowest
 * row free at their start (a row is free once its last interval ended;
 * touching intervals share a row), in O(log rows) each. */
typedef struct tl_lanes_fit tl_lanes_fit;

tl_lanes_fit *tl_lanes_fit_new(void);
/* The row of [start, end); rows are numbered from 0 in order of use. */
uint32_t tl_lanes_fit_place(tl_lanes_fit *f, int64_t start, int64_t end);
/* Rows used so far. */
uint32_t tl_lanes_fit_rows(const tl_lanes_fit *f);
void tl_lanes_fit_free(tl_lanes_fit *f);

#endif
