/*
 * advise (sink): tfprof's checkers on a run (analysis/advise.h) as a table
 * of findings, one row each: text prints each checker's name over its
 * findings, CSV and JSON give (checker, finding) pairs.
 *
 * Writes into the caller's output and keeps nothing.
 */
#ifndef TL_EMIT_ADVISE_H
#define TL_EMIT_ADVISE_H

#include "analysis/advise.h"
#include "emit/table.h"

void tl_advise_write(const tl_run *run, const tl_advice *a, const tl_table_sink *sink,
		     tl_output *out);

#endif
