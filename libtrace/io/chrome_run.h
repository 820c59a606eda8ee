/*
 * chrome_run: a Chrome trace JSON file read as one run (one RunMetadata,
 * step_stats only), so trace-report and trace-dataflow read the timelines
 * people have on disk as they read a TF1 dump: TF1 timeline.py output, the
 * TF2 profiler's trace-viewer JSON, PyTorch profiler (Kineto) traces, and
 * any other Chrome trace.
 *
 *   devices    a process is a device, named by its process_name: timeline.py's
 *              "/job:.../device:GPU:0 Compute" less " Compute" (its
 *              "/gpu:0/stream:12 Compute" a GPU tracer device, as in the dump
 *              timeline.py read); a TF2 "/device:..." process gives one device
 *              per line, as an XSpace does ("Stream #7(Compute)" ->
 *              /device:GPU:0/stream:7, "TensorFlow Ops" ->
 *              /device:GPU:0/TensorFlow Ops); a Kineto process by its
 *              process_labels, else its process_name ("CPU" -> /host:CPU,
 *              "GPU 0" -> /device:GPU:0: Kineto names every process
 *              "python3"), and a Kineto GPU's stream (tid "stream 7", or
 *              thread_name "stream 7 ") is a stream device of its own for
 *              its kernels, copies and memsets (/device:GPU:0/stream:7, as
 *              a RunMetadata's GPU tracer names it), the rest of the
 *              thread (syncs, annotations) staying on /device:GPU:0; a
 *              process with no name "pid N". Two processes of one name are
 *              told apart by " (pid N)". The naming rules are io/tf2names.h.
 *   threads    a device's threads are its threads (thread_id 1, 2, ... in
 *              order of first slice; thread_names their thread_name, else
 *              "tid T");
 *   slices     every complete event ("X", and "B"/"E" pairs of one thread) is
 *              an execution, times exact to the nanosecond (us with fractions
 *              -> ns). The node and op are timeline.py's args name and op
 *              (either alone too; with both, its inputN args in the label
 *              "node = Op(in0, in1)", the
 *              labels trace-dataflow reads producer-consumer edges from);
 *              a TF2 "node:Op" name or annotation is split as an XSpace's;
 *              else the event's name is both. A tracer record's node is
 *              "node:Op" (TF2's tf_op, long_name or annotation) and its
 *              label the event's name (the kernel); a Kineto kernel's,
 *              which names no TF op, is its name whole (tl_links.whole).
 *   arrows     correlation ids, under either key: a Kineto device slice's
 *              launcher is the runtime call (cat cuda_runtime, cuda_driver,
 *              ...) with its "correlation"; a TF2 kernel's or copy's (on a
 *              "Stream #N" line) is the host event with its
 *              "correlation_id" (a string of digits in TensorBoard's JSON);
 *              flow events (s, t, f) of other files link the
 *              slices they bind to (s and bp "e": the innermost slice around
 *              them; t and f: the next slice to start on their thread), each
 *              step the next's launcher. timeline.py's flows are the tensors
 *              its labels name, and are not read twice.
 *   dataflow   only timeline.py's labels carry one; other files record none,
 *              and none is invented (tl_chrome_run.dataflow false).
 *   memory     Kineto's "[memory]" events (io/kineto_memory.h), on the run's
 *              clock.
 *   kinds      what each slice is to a summary (io/chrome_kind.h), with its
 *              event's name, node and op (tl_links.events).
 *
 * Damage costs what it touches, with one warning per kind: a slice with no
 * usable ts, a negative or unusable dur, or a time past +-2^61 ns is
 * skipped; an "E" with no open "B" on its thread is skipped, a "B" never
 * closed is dropped; invalid JSON after some events keeps the events before
 * it. A file with no slice is an error.
 */
#ifndef TL_IO_CHROME_RUN_H
#define TL_IO_CHROME_RUN_H

#include "base/arena.h"
#include "base/warn.h"
#include "io/alloc_event.h"
#include "io/links.h"
#include "tensorflow.pb-c.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef struct tl_chrome_run {
	Tensorflow__RunMetadata *meta;
	/* launch links: a record and its launcher's, by their places among
	 * the run's records (one per complete event, in the file's order) */
	tl_links links;
	bool dataflow;		/* labels name inputs (timeline.py) */
	const char *kind;	/* "a TF1 timeline.py trace", ... (tl_format_chrome_kind) */
	tl_alloc_events allocs; /* Kineto [memory] events, times on the run's clock; n 0: none */
} tl_chrome_run;

/* Reads data[0..len) (which need only live through the call) into *out,
 * everything in `arena`; `name` names the input in warnings. -1 with err
 * filled: no slice, invalid JSON before any, or damage under --strict. */
int tl_chrome_run_read(const uint8_t *data, size_t len, const char *name, tl_arena *arena,
		       tl_chrome_run *out, tl_error *err);

#endif
