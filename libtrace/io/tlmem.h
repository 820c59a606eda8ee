/*
 * tlmem: the memory of a TF1 timeline.py trace made with show_memory=True
 * (tensorflow/python/client/timeline.py), as allocator events
 * (io/alloc_event.h) for the memory analysis (analysis/allocs.h).
 *
 * What timeline.py writes, and what becomes of it:
 *   tensors    per device a process "<device> Tensors" holding one tensor
 *              object per entry of a NodeExecStats' output[]: "N" (created,
 *              at its producer's start), "O" (a snapshot at its producer's
 *              end - 1, args.snapshot.tensor_description: the output's
 *              TensorDescription in protobuf text format with its quotes
 *              stripped), "D" (deleted, at the latest of its producer's
 *              end and its consumers' ends - 1), keyed by id and name (the
 *              tensor's name, "node" or "node:N"; timeline.py's ids repeat
 *              once a name has been produced twice, so the pair is the key).
 *              Each object is an allocation at its N (+requested_bytes of
 *              its allocation_description: what timeline.py counts) and a
 *              free at its D, on the allocator its description names (its
 *              protobuf escapes decoded, as timeline.py's counters name it;
 *              no allocator_name is the allocator "(none)"), with the
 *              tensor's name as op, its dtype and shape ("float[10,10]") and
 *              allocated_bytes (where recorded) beside. Its address is its
 *              place among the file's N events from 1: timeline.py keeps
 *              no address apart (a forwarded tensor shares its input's ptr).
 *              An allocator's device is the device of its first object (an
 *              allocator such as cuda_host_bfc serves several).
 *   counters   process "Allocators": per allocator "C" events (cat
 *              "Memory", args {ALLOCATOR: bytes}), timeline.py's own
 *              running sum of its objects, one after each allocation and
 *              free in its order (time, then bytes, frees first, then
 *              name). The events are given in that order too, and each
 *              counter becomes the total_allocated of the event it follows,
 *              so the analysis checks the curve against every counter.
 *              Counters that do not follow the objects one for one (a file
 *              edited by hand) are samples of their own instead (bytes 0,
 *              address 0, the last counter at each time), with a warning.
 *
 * What timeline.py leaves out (docs/trace-memory.md has the list): allocation
 * records, allocator_bytes_in_use, temporaries and persistent memory; a
 * forwarded tensor (Identity, Reshape) counts again; a node run several
 * times keeps only its last run's tensor: the earlier objects have an N and
 * an O but no D and are in no counter. An object with no D and a later
 * object of its name is such a one, and is left out as the counters leave it
 * (one warning with a count); any other object with no D (a file cut short:
 * the D and C events come last) is kept, never freed.
 *
 * Times are nanoseconds from the trace's start (the earliest ts of any
 * event but metadata, as io/kineto_memory.h counts; the side stream's, the
 * file's own clock). Odd objects are skipped with one warning per kind (no O, an O
 * with no N, a D with no N, no usable ts, bytes beyond +-2^62).
 */
#ifndef TL_IO_TLMEM_H
#define TL_IO_TLMEM_H

#include "base/arena.h"
#include "base/error.h"
#include "io/alloc_event.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Whether data[0..len) may hold timeline.py memory (a cheap look at its
 * bytes: a process "Allocators" and a tensor or counter category); false
 * means it holds none. */
bool tl_tlmem_maybe(const uint8_t *data, size_t len);

/* The memory of the trace as a side stream of its timeline (io/source.c,
 * for the tools that ask for allocator events: trace-report), its times in
 * nanoseconds on the file's own clock, as io/chrome_run.h's run has them
 * (clock "the run's clock"): damage keeps the events before it, and nothing
 * is said (the timeline's reader says the damage; trace-memory, which reads
 * the memory as its main stream, the rest). out->n 0: no memory events. -1
 * with err filled only when the data is no Chrome JSON at all. */
int tl_tlmem_alloc_events(const uint8_t *data, size_t len, tl_arena *arena, tl_alloc_events *out,
			  tl_error *err);

/* The memory as the input's main stream (trace-memory): JSON damage after
 * some memory events keeps the events before it with one warning naming
 * `name` (under --strict, the error). out->n 0 and nothing said: the trace
 * has no timeline.py memory events (damaged or not; the caller says what it
 * is). -1 with err filled: the data is no Chrome JSON, or under --strict. */
int tl_tlmem_read(const uint8_t *data, size_t len, const char *name, tl_arena *arena,
		  tl_alloc_events *out, tl_error *err);

#endif
