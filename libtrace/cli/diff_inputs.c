#include "cli/diff_inputs.h"

int tl_cli_read_diff(const tl_cli *cli, const tl_cli_inputs *in, tl_graphdot_diff *d,
		     GPtrArray *runs_b)
{
	/* no times to compare without a timeline: the same line as a tool
	 * that shows one */
	tl_cli timeline = *cli;
	timeline.needs = TL_NEEDS_TIMELINE;
	const tl_cli_inputs a = {in->paths, 1}, b = {in->paths + 1, 1};
	GPtrArray *runs_a = g_ptr_array_new();
	int status = tl_cli_read_runs(&timeline, &a, cli->format, runs_a);
	for (guint r = 0; status == TL_EXIT_OK && r < runs_a->len; r++)
		tl_graphdot_diff_add_run(d, 0, g_ptr_array_index(runs_a, r));
	tl_cli_free_runs(runs_a);
	if (status != TL_EXIT_OK)
		return status;
	status = tl_cli_read_runs(&timeline, &b, cli->format, runs_b);
	if (status != TL_EXIT_OK)
		return status;
	bool graphs = false;
	for (guint r = 0; r < runs_b->len; r++) {
		const tl_run *run = g_ptr_array_index(runs_b, r);
		graphs = graphs || run->has_graphs;
		tl_graphdot_diff_add_run(d, 1, run);
	}
	if (!graphs) {
		tl_error err = {{0}};
		tl_error_set(&err, "B holds no partition graph to draw (capture with "
				   "RunOptions(output_partition_graphs=True))");
		tl_cli_input_error(cli, b.paths[0], &err);
		return TL_EXIT_INPUT;
	}
	tl_graphdot_diff_finish(d);
	return TL_EXIT_OK;
}
