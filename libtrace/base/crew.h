/*
 * crew: a loop over [0, n) shared out over the machine's cores (up to 8),
 * for the per-item passes of building a run (edges of a million nodes,
 * executions linked to their nodes) that would otherwise leave the second
 * core idle.
 *
 * The range is cut into parts by n alone, never by the number of threads,
 * and a part's warnings are told in part order after all are done
 * (tl_warn_log): the result and the lines printed are those of one thread
 * running the parts in order. Each thread allocates from an arena of its
 * own, which the caller's arena adopts at the end. `fn` must write only
 * to what its part owns: items lo..hi-1, or slots indexed by its part.
 */
#ifndef TL_BASE_CREW_H
#define TL_BASE_CREW_H

#include "base/arena.h"

#include <stddef.h>

/* Called once per part, on some thread: items lo..hi-1 of part `part`;
 * `arena`: the thread's own, for whatever the part allocates. */
typedef void (*tl_crew_fn)(void *ctx, size_t part, size_t lo, size_t hi, tl_arena *arena);

/* How many parts tl_crew_for cuts [0, n) into (for per-part slots). */
size_t tl_crew_parts(size_t n);

/* Runs fn over every part of [0, n); returns when all are done. */
void tl_crew_for(size_t n, tl_crew_fn fn, void *ctx, tl_arena *arena);

#endif
