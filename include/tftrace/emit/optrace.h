/*
 * optrace: one run's op timeline as Chrome trace events: a process per
 * device (executors first, each followed by its GPU tracer rows), a thread
 * per lane, an X event per execution, and flow arrows for dataflow links.
 *
 * Flow encoding: every link is its own flow (its own id) made of one "s"
 * event inside the producer's slice (1 us before its end) and one "f" event
 * with "bp":"e" inside the consumer's slice (1 us after its start; the
 * middle of a slice shorter than 2 us), far enough in that a viewer reading
 * ts as a double never binds it to a neighbouring slice. One producer with
 * many consumers therefore fans out into many arrows, which both Perfetto
 * and chrome://tracing draw. cat is "dataflow", "control", "transfer" or
 * "launch"; name is the tensor ("node:port"), "^node", or the transfer's
 * tensor_name. A transfer arrow that skips a _Recv or _Send without stats
 * says so in the "s" event's args ("recv": node, "recv_recorded": false).
 */
#ifndef TL_EMIT_OPTRACE_H
#define TL_EMIT_OPTRACE_H

#include "emit/chrome.h"
#include "analysis/dataflow.h"
#include "analysis/lanes.h"
#include "model/run.h"

#include <glib.h>

typedef struct tl_optrace_opts {
	tl_op_time op_time;
	bool flows;	      /* dataflow arrows */
	bool control;	      /* control-edge arrows too */
	bool launches;	      /* op -> kernel arrows */
	bool stream_all;      /* show the stream:all repeat of the kernels */
	bool kernels;	      /* show GPU tracer devices at all */
	GRegex *device_re;    /* keep only matching devices (NULL: all) */
	int64_t min_dur_ns;   /* drop shorter executions */
	bool window;	      /* keep executions overlapping [win_begin, win_end] */
	int64_t win_begin_ns; /* relative to the run's first record */
	int64_t win_end_ns;
	const char *prefix; /* prepended to process names ("run: "), or NULL */
	int64_t shift_ns;   /* added to every timestamp (merge alignment) */
	/* When set, process and thread ids come from here (a merge shares one
	 * row per device across runs) instead of *next_pid and lane numbers;
	 * *fresh says whether the caller must still name it. */
	int64_t (*pid_of)(void *ctx, const char *process_name, bool *fresh);
	int64_t (*tid_of)(void *ctx, int64_t pid, const char *thread_name, bool *fresh);
	void *ids_ctx;
} tl_optrace_opts;

void tl_optrace_opts_init(tl_optrace_opts *o);

typedef struct tl_optrace_stats {
	uint64_t slices;
	uint64_t flows;
	uint64_t processes;
} tl_optrace_stats;

/* Writes the run; pids are taken from *next_pid on, flow ids from
 * *next_flow on (both advanced), so several runs share one document. */
void tl_optrace_write(tl_chrome *w, const tl_run *run, const tl_optrace_opts *o, int64_t *next_pid,
		      uint64_t *next_flow, tl_optrace_stats *stats);

/* What the trace names things, for other timelines (trace-report) to show
 * the same rows and arrows: */
/* The devices in display order (each executor followed by its tracer
 * devices: copies, streams by number, stream:all, sync; then the rest) into
 * `order` (run->n_devices entries); returns how many. */
uint32_t tl_optrace_device_order(const tl_run *run, uint32_t *order);
/* A device's thread names by id, when a scan per lane would cost too much;
 * NULL when a scan will do (g_hash_table_destroy it). */
GHashTable *tl_optrace_thread_names(const tl_device *dev);
/* Lane l of device d's name ("tf_Compute 3", "kernels (2)") in buf;
 * `names` from tl_optrace_thread_names. */
const char *tl_optrace_lane_name(const tl_run *run, const tl_lanes *v, uint32_t d, uint32_t l,
				 GHashTable *names, char *buf, size_t size);
/* What an arrow carries: "node:port", "^node", or a transfer's tensor_name. */
void tl_optrace_flow_name(const tl_run *run, const tl_link *l, char *buf, size_t size);

#endif
