/*
 * xspace: the TF2 and JAX profiler's XSpace (*.xplane.pb, message
 * tensorflow.profiler.XSpace of tsl/profiler/protobuf/xplane.proto) read as
 * RunMetadata, so every tool reads it as it reads a TF1 dump.
 *
 *   planes     "/host:CPU" is a device whose lines are its threads (thread_id
 *              the line's id, thread_names its name); "/device:GPU:N" (TPU
 *              alike) gives one tracer device per stream line
 *              ("Stream #7(Compute)" -> /device:GPU:N/stream:7) and one
 *              pseudo-device per derived line ("TensorFlow Ops",
 *              "TensorFlow Name Scope", "XLA Modules", "XLA Ops", "Steps",
 *              ...: /device:GPU:N/<line name>), drawn but not counted as
 *              op time;
 *   events     one NodeExecStats each: node_name the event metadata's name
 *              ("dense/MatMul:MatMul" becomes node dense/MatMul, op MatMul,
 *              as TF's TraceMe writes them; other names are their own op),
 *              times exact to the nanosecond from timestamp_ns + offset_ps;
 *              a kernel or copy is named after the TF op it ran for (its
 *              tf_op stat, else the op around the host event with the same
 *              correlation_id), its kernel name in timeline_label;
 *   arrows     a kernel's launcher is the TF op around the host event with
 *              the same correlation_id (tl_xspace_links);
 *   steps      the events of a "Steps" line: with two or more, each step is
 *              a run ("HOST.xplane.pb step 12"), an event going to the step
 *              of its group_id stat, else to the step its start falls in;
 *   memory     MemoryAllocation and MemoryDeallocation events are no op
 *              executions: tl_xspace_alloc_events gives them to trace-memory.
 *
 * Odd content costs what it touches, with one warning per kind and file: a
 * stat whose metadata (or ref_value) names no stat metadata is ignored; an
 * event whose metadata_id names no event metadata is named "metadata#ID"; an
 * event whose time leaves +-2^61 ns is skipped; num_occurrences events (an
 * aggregate with no time) are skipped. Bytes that do not decode cost what
 * holds them (io/xspace_wire_internal.h): an event whose bytes or stats do not is
 * skipped, a line keeps its events before the first field that does not,
 * a plane whose own fields do not is left out; only a space whose planes'
 * framing is cut keeps no more than its whole planes before the cut
 * (tl_source).
 *
 * The decoded XSpace lives in the arena given to tl_xspace_open; each run is
 * built into its own arena, copying what it keeps, so runs outlive the
 * tl_xspace.
 */
#ifndef TL_IO_XSPACE_H
#define TL_IO_XSPACE_H

#include "base/arena.h"
#include "base/warn.h"
#include "io/alloc_event.h"
#include "io/links.h"
#include "io/source.h"
#include "tensorflow.pb-c.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef struct tl_xspace tl_xspace;

/* Decodes data[0..len) (which must outlive the tl_xspace, as `arena`
 * must). `name` names the input in warnings. `allocs`: the allocator events
 * are kept for tl_xspace_allocs; without, they are read (their damage
 * told) and counted (tl_xspace_has_allocs), not kept (a third of the
 * events of a profile taken with memory: their memory and time saved).
 * Returns TL_PBDECODE_MALFORMED (io/pbdecode.h) for bytes whose planes do
 * not frame (a refused input is left as it was; damage inside a plane costs
 * what holds it, io/xspace_wire_internal.h), -1 for damage under --strict. */
int tl_xspace_open(tl_xspace **out, const uint8_t *data, size_t len, bool allocs, tl_arena *arena,
		   const char *name, tl_error *err);
void tl_xspace_free(tl_xspace *xs);

/* tl_xspace_open for bytes that may be another message (a binary input
 * whose first bytes fit an XSpace: tl_source tries it first, a whole-file
 * walk cheaper than telling RunMetadata, StepStats and GraphDef apart):
 * no warning; 0 only when they decode as an XSpace with op events, else -1
 * and nothing kept. tl_xspace_warn then says what tl_xspace_open would
 * have. */
int tl_xspace_try_open(tl_xspace **out, const uint8_t *data, size_t len, bool allocs,
		       tl_arena *arena, const char *name);
/* The warnings of what reading met (tl_xspace_open's): -1 under --strict. */
int tl_xspace_warn(const tl_xspace *xs, tl_error *err);

/* Runs: one per step of a "Steps" line holding two or more, else one. */
size_t tl_xspace_n_runs(const tl_xspace *xs);

/* Each record of run i (tl_xspace_run's, in event order) to `each`, its
 * times only: the rest of the record is empty. No run is built. */
void tl_xspace_run_times(const tl_xspace *xs, size_t i, tl_record_fn each, void *ctx);

/* The host the profile was taken on: the XSpace's first hostname, else its
 * file's name less ".xplane.pb" (TensorBoard writes HOST.xplane.pb); NULL
 * when neither tells (stdin). */
const char *tl_xspace_host(const tl_xspace *xs);

/* Run i as a RunMetadata (step_stats only) in `arena`, with its launch
 * links (a kernel's record and its launcher's, io/links.h); *label is
 * "BASE" or "BASE step NAME", all in `arena`. It reads the tl_xspace and
 * writes only to `arena`: runs may be built on several threads at once. */
int tl_xspace_run(const tl_xspace *xs, size_t i, const char *base, tl_arena *arena,
		  Tensorflow__RunMetadata **meta, const char **label, tl_links *links,
		  tl_error *err);

/* Whether it holds MemoryAllocation / MemoryDeallocation events. */
bool tl_xspace_has_allocs(const tl_xspace *xs);

/* The allocator events of the whole XSpace, into `arena` (opened with
 * `allocs`; none otherwise). */
int tl_xspace_allocs(tl_xspace *xs, tl_arena *arena, tl_alloc_events *out);

/* The allocator events in time order (ties in the file's order; ordered on
 * the first call): their count; the first of them from `from` on at or
 * after t (`after`: after t); and those [lo, hi) of that order into
 * out[0 .. hi - lo), their strings in `arena`, each once a call. */
size_t tl_xspace_alloc_count(tl_xspace *xs);
size_t tl_xspace_alloc_first_at(tl_xspace *xs, size_t from, int64_t t, bool after);
void tl_xspace_alloc_fill(tl_xspace *xs, size_t lo, size_t hi, tl_arena *arena,
			  tl_alloc_event *out);

/* tl_xspace_open and tl_xspace_allocs in one, for whole inputs: the bytes
 * are copied. */
int tl_xspace_alloc_events(const uint8_t *data, size_t len, tl_arena *arena, tl_alloc_events *out,
			   tl_error *err);

#endif
