/*
 * merge_inputs: trace-merge's inputs, in the order asked for, read one at
 * a time into the merge (runs and whole Chrome traces) or written back as
 * a RunMetadata stream. Memory stays bounded by the largest input.
 */
#ifndef TL_CLI_MERGE_INPUTS_H
#define TL_CLI_MERGE_INPUTS_H

#include "base/progress.h"
#include "emit/merge.h"
#include "io/format.h"

#include <glib.h>

typedef enum tl_merge_order {
	TL_MERGE_GIVEN = 0, /* as on the command line */
	TL_MERGE_NAME,	    /* by path */
	TL_MERGE_TIME,	    /* by when each starts (its first run, its earliest event) */
} tl_merge_order;

/* The --sort names, indexed by tl_merge_order, NULL-terminated. */
extern const char *const tl_merge_order_names[];

typedef struct tl_merge_inputs_opts {
	tl_format format; /* --input-format */
	tl_merge_order order;
	bool runmeta;	     /* a RunMetadata stream instead of a Chrome trace */
	GHashTable *offsets; /* path -> int64_t ns added to its times, or NULL */
	const tl_merge_opts *merge;
	tl_progress *progress; /* or NULL */
	const char *tool;      /* "trace-merge 0.1.0", for the trace's metadata */
	const struct tl_cli *cli; /* what an input must record (tl_cli_holds), or NULL */
} tl_merge_inputs_opts;

/* Puts paths[0..n) in the order asked for (reading each input's start for
 * TL_MERGE_TIME). On bad input returns -1 with *bad the path and err. */
int tl_merge_inputs_order(const char **paths, size_t n, const tl_merge_inputs_opts *o,
			  const char **bad, tl_error *err);

/* Every input into `out`, in the order given. On bad input returns -1
 * with *bad the path and err; what was written is the caller's to drop. */
int tl_merge_inputs_write(tl_output *out, const char *const *paths, size_t n,
			  const tl_merge_inputs_opts *o, const char **bad, tl_error *err);

#endif
