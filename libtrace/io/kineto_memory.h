/*
 * kineto_memory: the allocator events of a PyTorch profiler (Kineto) trace,
 * the "[memory]" instant events that torch.profiler.profile(profile_memory=
 * True) records: one per allocation (+Bytes) or free (-Bytes) at an Addr,
 * with the caching allocator's totals after it.
 *
 * Read with the streaming Chrome reader (io/chrome_reader.h) in one pass;
 * the memory stays at the input's size plus the events kept.
 *
 * Names, as the rest of tftrace has them: "Device Type" 1 (CUDA; ROCm builds
 * report theirs as CUDA too) and 6 (HIP) device N is "/device:GPU:N" with
 * allocator "cuda:N" (what PyTorch calls it); 0 (CPU) is "/host:CPU" with
 * allocator "cpu"; another type T is "/device:<c10 name>:N" with allocator
 * "<c10 name in lower case>:N" ("/device:XPU:0", "xpu:0").
 *
 * The op of an event is the innermost op slice (ph "X", cat "cpu_op", the
 * older "Operator", or "user_annotation": ProfilerStep#N, record_function)
 * of the same pid and tid whose [ts, ts + dur] holds the event's ts.
 *
 * Times (t_ns) are nanoseconds from the trace's start: the earliest ts of
 * any event but metadata ("M"); events stay in the file's order. A ts is
 * refused only past the model's limit (base/limits.h): Kineto writes epoch
 * microseconds, or microseconds from baseTimeNanoseconds, and both pass.
 *
 * Odd values are warnings (base/warn.h), one line per kind with a count,
 * naming the first event's byte: an event whose Bytes is missing, not a
 * whole number or beyond +-2^62, or whose Device Type is missing, is skipped;
 * a missing or unreadable Addr is 0 (the event counts in the curve but
 * matches no other); an unreadable total is -1 (not recorded).
 */
#ifndef TL_IO_KINETO_MEMORY_H
#define TL_IO_KINETO_MEMORY_H

#include "base/arena.h"
#include "base/error.h"
#include "io/alloc_event.h"

#include <stddef.h>
#include <stdint.h>

/* One op slice of the trace, as the memory trace draws it. */
typedef struct tl_kineto_op {
	int64_t t_ns; /* from the trace's start, as the events */
	int64_t dur_ns;
	const char *name;
	const char *thread; /* "pid/tid" as the file writes them */
} tl_kineto_op;

typedef struct tl_kineto_ops {
	tl_kineto_op *op;
	size_t n;
} tl_kineto_ops;

/* The [memory] events of the trace in data[0..len) into *out, their strings
 * and array in `arena` (the caller's), as a side stream of its timeline
 * (io/chrome_run.c), which they never cost: a trace without any, or whose
 * every one is unusable (warned of by kind), gives out->n 0; JSON damage
 * keeps the events before it, unsaid (the timeline's reader says it). -1
 * with err filled only when the data is no Chrome JSON at all. */
int tl_kineto_alloc_events(const uint8_t *data, size_t len, tl_arena *arena, tl_alloc_events *out,
			   tl_error *err);

/* The [memory] events as the input's main stream (trace-memory), and the op
 * slices in `ops` (may be NULL), in the file's order. -1 with err filled:
 * the JSON is invalid, or it has [memory] events and none is usable. */
int tl_kineto_memory_read(const uint8_t *data, size_t len, tl_arena *arena, tl_alloc_events *out,
			  tl_kineto_ops *ops, tl_error *err);

#endif
