/*
 * diff_inputs: graph-render --diff's two inputs, A then B, each any input
 * graph-render reads (every run of it: a stream's runs are averaged, as
 * trace-summarize --diff does). A's runs go into the diff and are freed; B's
 * go into the diff and are kept for the picture. Each input must record a
 * timeline (step_stats: there are no times to compare without one), B a
 * graph too.
 */
#ifndef TL_CLI_DIFF_INPUTS_H
#define TL_CLI_DIFF_INPUTS_H

#include "analysis/graphdot_diff.h"
#include "cli/cli.h"

/* Reads in->paths[0] as A and in->paths[1] as B into d (then matched:
 * tl_graphdot_diff_finish), B's runs into runs_b (tl_run *, the caller's).
 * On bad input prints its error line and returns TL_EXIT_INPUT. */
int tl_cli_read_diff(const tl_cli *cli, const tl_cli_inputs *in, tl_graphdot_diff *d,
		     GPtrArray *runs_b);

#endif
