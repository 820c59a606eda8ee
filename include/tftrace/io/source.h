/*
 * source: runs out of one input. Sniffs the kind of input (or takes the
 * one forced with --input-format), decodes it, and yields one RunMetadata
 * per run:
 *   - a binary, text or JSON (proto3 JSON mapping, io/pbjson.h) RunMetadata:
 *     one run;
 *   - a StepStats or a GraphDef: one run holding it (step_stats, or one
 *     partition graph);
 *   - a TFRecord stream of RunMetadata, or a TensorBoard events file: one
 *     run per record / per tagged_run_metadata, read one at a time;
 *   - a folder: the TensorBoard events files below it (logdir.h), in path
 *     order, each as above; runs of a file in a subfolder are labelled
 *     "subfolder/tag". A folder without events files, or whose events files
 *     hold no run, is an error that says what it holds.
 *   - Chrome trace JSON: one run of the whole file (io/chrome_run.h), for
 *     the tools that draw runs; the readers of whole documents
 *     (trace-summarize, trace-merge, trace-memory) take its bytes with
 *     tl_source_map() instead.
 *
 * Damage (base/warn.h) is passed over with a warning, or is the error under
 * --strict: in a stream, a record cut short, failing its crc or not
 * decoding loses that record only, and runs keep the names of their
 * records ("file#3" is the third record); a gzip stream cut short gives what
 * came before the cut, to whatever reads it. A stream whose damage leaves
 * no run is an error ("nothing readable: ..."), as is a whole-file input
 * that does not decode. A stream whose first header is damaged is still
 * recognised when a whole record follows within the first 64 KiB (events
 * files, small runs); --input-format tfrecord reads it in any case.
 *
 * Each run comes with its own arena, which the caller owns (tl_run_build
 * takes it over); the input's bytes are read into it, and the decoded
 * messages' strings point there (pbdecode.h).
 */
#ifndef TL_IO_SOURCE_H
#define TL_IO_SOURCE_H

#include "base/arena.h"
#include "base/warn.h"
#include "io/alloc_event.h"
#include "io/format.h"
#include "io/input.h"
#include "io/links.h"
#include "tensorflow.pb-c.h"

typedef struct tl_source tl_source;

int tl_source_open(tl_source **out, const char *path, tl_format forced, tl_error *err);
void tl_source_close(tl_source *src);

const char *tl_source_name(const tl_source *src);
/* What the input is, as a noun phrase for messages, once a run was read:
 * "a RunMetadata", "a StepStats", "a GraphDef", "a TensorBoard events
 * file", "a TF2/JAX profile (XSpace)", a Chrome trace's kind
 * (tl_format_chrome_kind), "a log folder". */
const char *tl_source_kind(const tl_source *src);
/* The input's kind once sniffed (TL_FORMAT_CHROME: read tl_source_map). */
tl_format tl_source_format(const tl_source *src);
tl_input *tl_source_input(tl_source *src);
/* Launch links the input names itself for the run last produced (an
 * XSpace's or a Kineto trace's correlation ids, a Chrome trace's flows;
 * io/links.h); none (n 0) for other inputs. */
void tl_source_links(const tl_source *src, tl_links *out);

/* What kind of input the run last produced is, where that kind records
 * no dataflow and none is guessed ("a TF2/JAX profile (XSpace)", "a PyTorch
 * profiler (Kineto) trace", ...); NULL where it records one (RunMetadata,
 * timeline.py's labels). */
const char *tl_source_no_dataflow(const tl_source *src);

/* Whether the runs should carry the allocator events of their input
 * (tl_run.allocs: an XSpace's, a Kineto trace's), for tools that draw
 * them; off by default. */
void tl_source_want_allocs(tl_source *src, bool want);
bool tl_source_wants_allocs(const tl_source *src);

/* Whether the XSpace being read is a TF 2.0 profiler trace's (.trace,
 * io/tf2trace.h), which tl_source_format calls an XSpace. */
bool tl_source_tf2trace(const tl_source *src);

/* Whether the XSpace being read is cut into runs by its steps. */
bool tl_source_xspace_steps(const tl_source *src);

/* The runs this source will give, where it knows them all before it gives
 * the first: a file (not a folder) holding an XSpace of several steps,
 * once its first run is read (tl_source_next_model). 0 elsewhere. */
size_t tl_source_runs_ahead(const tl_source *src);

/* Each record of run i (of tl_source_runs_ahead's) to `each`, its times
 * only (the rest of the record empty); nothing is built. */
typedef void (*tl_record_fn)(const Tensorflow__NodeExecStats *ns, void *ctx);
void tl_source_run_times(const tl_source *src, size_t i, tl_record_fn each, void *ctx);

/* The allocator events of the Chrome trace run last read ([memory],
 * on the run's clock, in that run's arena), or NULL. */
const tl_alloc_events *tl_source_chrome_allocs(const tl_source *src);

/* The host the current file's runs were taken on, where the input kind
 * records it (an XSpace: tl_xspace_host); NULL otherwise. Valid until the
 * next run. */
const char *tl_source_host(const tl_source *src);

/* The allocator events of the XSpace being read (once its first run, or
 * the end, has been asked for), into `arena`; -1 when the input is no
 * XSpace. An XSpace keeps them only where asked before it is read: by
 * tl_source_want_allocs, or by tl_source_keep_xspace_allocs (for a reader
 * of them alone, whose runs need not carry them); none otherwise. */
void tl_source_keep_xspace_allocs(tl_source *src);
int tl_source_xspace_allocs(tl_source *src, tl_arena *arena, tl_alloc_events *out);
/* The same, those of one run: from t_begin to t_end (both in) where the
 * XSpace is cut into steps, else all. They are ordered once per XSpace;
 * each run's are made from the XSpace's bytes into its own arena (no copy
 * of every event is kept beside the runs'). */
int tl_source_xspace_span_allocs(tl_source *src, int64_t t_begin, int64_t t_end, tl_arena *arena,
				 tl_alloc_events *out);

/* Bytes read so far (a folder: over all its files), for progress. */
uint64_t tl_source_offset(const tl_source *src);

/* Everything left of the input in one piece (tl_input_map), for readers of
 * whole documents (Chrome JSON, partials); a gzip stream cut short is
 * damage, reported here. */
int tl_source_map(tl_source *src, const uint8_t **data, size_t *len, tl_error *err);

/* The next run's RunMetadata, every field decoded (what protobuf-c would
 * give: trace-merge --format runmeta writes it back): 1 when one was
 * produced (*arena and *meta are the caller's, *label lives in the arena),
 * 0 at the end, -1 on error. */
int tl_source_next(tl_source *src, tl_arena **arena, Tensorflow__RunMetadata **meta,
		   const char **label, tl_error *err);

/* tl_source_next, but only the fields the model and the analyses read are
 * decoded (TL_PBDECODE_MODEL: no tensor contents, cost graphs, ...); see
 * tl_run_next (model/run.h). */
int tl_source_next_model(tl_source *src, tl_arena **arena, Tensorflow__RunMetadata **meta,
			 const char **label, tl_error *err);

/* Decodes one complete message (binary or text, StepStats and GraphDef
 * wrapped) into a RunMetadata in `arena`, every field; the bytes are
 * copied into the arena first. `format` may be a sniffed family
 * (TL_FORMAT_BINARY_PROTO, TL_FORMAT_TEXT_PROTO) or a forced kind. */
int tl_source_decode_runmeta(const uint8_t *data, size_t len, tl_format format, tl_arena *arena,
			     Tensorflow__RunMetadata **out, tl_error *err);

#endif
