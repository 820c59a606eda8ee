/*
 * merge: many runs and trace files into one Chrome trace.
 *
 * Inputs come one at a time (a RunMetadata run, or a whole Chrome trace
 * file), so memory is bounded by the largest input. Every input keeps its
 * processes; under --align wall and pack a process (a device) of the same
 * name keeps one row through time across runs, under overlay each run has
 * its own processes. Chrome inputs get their pids, tids and ids renumbered so
 * inputs never collide, and their repeated metadata folded. A "Runs"
 * process carries one labelled span per run. Alignment:
 *   wall     timestamps as they are, plus --offset per input (clock skew; the
 *            other modes place every run themselves and take no offset);
 *   pack     each run starts after the previous one ends, plus a gap;
 *   overlay  every run starts at zero.
 * Processes are ordered by job and task (/job:worker/task:1 ...), then by
 * first appearance.
 */
#ifndef TL_EMIT_MERGE_H
#define TL_EMIT_MERGE_H

#include "emit/chrome.h"
#include "model/run.h"

typedef enum tl_align {
	TL_ALIGN_WALL = 0,
	TL_ALIGN_PACK,
	TL_ALIGN_OVERLAY,
} tl_align;

/* The --align names, indexed by tl_align, NULL-terminated. */
extern const char *const tl_align_names[];

typedef struct tl_merge_opts {
	tl_align align;
	int64_t gap_ns; /* pack: between runs */
	bool flows;	/* RunMetadata: dataflow arrows */
	bool memory;	/* RunMetadata: memory tracks */
} tl_merge_opts;

typedef struct tl_merge tl_merge;

tl_merge *tl_merge_new(tl_chrome *w, const tl_merge_opts *opts);

/* A RunMetadata run from `input`, shifted by `offset_ns` (wall). */
void tl_merge_run(tl_merge *m, const tl_run *run, const char *input, int64_t offset_ns);

/* A whole Chrome trace (data[0..len) of `input`): read twice (its extent,
 * then its events). JSON damaged after some events keeps the events before
 * it, with one warning (tl_warn_damage); returns -1 with err, writing
 * nothing of this input, when the damage comes before any event or under
 * --strict. */
int tl_merge_chrome(tl_merge *m, const uint8_t *data, size_t len, const char *input,
		    int64_t offset_ns, tl_error *err);

/* Closes the merge: the Runs track, process order, otherData (with the
 * given JSON array of inputs provenance appended by the caller, or NULL). */
void tl_merge_finish(tl_merge *m, const char *tool_version);
void tl_merge_free(tl_merge *m);

/* Start time of a Chrome trace input (for --sort=time); false if none. */
bool tl_merge_first_ts(const uint8_t *data, size_t len, double *us);

#endif
