/*
 * progress: a line on stderr for long work: "tool: 12 runs, 340 MB,
 * 120 MB/s", shared by the threads of one tool.
 *
 * The caller owns the tl_progress (on its stack); only stderr is written.
 */
#ifndef TL_BASE_PROGRESS_H
#define TL_BASE_PROGRESS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Redrawn at most 5 times a second, only when stderr is a terminal and not
 * --quiet; cleared at the end. The first line comes after
 * $TFTRACE_PROGRESS_DELAY seconds (default 0.2), as git's
 * GIT_PROGRESS_DELAY: the tests set 0 to see it on small inputs. */
typedef struct tl_progress {
	const char *prog;
	bool on, drawn;
	double started, last;
	uint64_t bytes; /* done in earlier inputs */
	size_t runs;
} tl_progress;

void tl_progress_begin(tl_progress *p, const char *prog, bool quiet);
/* After a run: the input's bytes consumed so far. */
void tl_progress_run(tl_progress *p, uint64_t input_offset);
/* At the end of an input of `size` bytes. */
void tl_progress_input_done(tl_progress *p, uint64_t size);
/* From any thread (inputs read side by side): `runs` more runs and `bytes`
 * more input consumed. */
void tl_progress_add(tl_progress *p, size_t runs, uint64_t bytes);
void tl_progress_end(tl_progress *p);

#endif
