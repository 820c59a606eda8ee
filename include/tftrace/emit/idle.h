/*
 * idle (sink): a run's idle analysis (analysis/idle.h) as a table: a row per
 * device with busy and idle time, and its longest gaps under it (text: a
 * line each, in milliseconds; JSON: "longest"; CSV: the devices only).
 *
 * Writes into the caller's output and keeps nothing.
 */
#ifndef TL_EMIT_IDLE_H
#define TL_EMIT_IDLE_H

#include "analysis/idle.h"
#include "emit/table.h"

void tl_idle_write(const tl_run *run, const tl_idle *idle, const tl_table_sink *sink,
		   tl_output *out);

#endif
