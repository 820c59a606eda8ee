/* report_diff: the two-run page's graph colouring, graph-render --diff's
 * (analysis/graphdot_diff.h) as data the graph tab applies. */
#include "emit/report_internal.h"

#include "analysis/graphdot.h"
#include "analysis/graphdot_diff.h"
#include "emit/dot.h"

void tl_report_graph_diff(tl_output *out, tl_graphdot_diff *d, bool steps0, const tl_run *run1,
			  const tl_report_opts *o)
{
	if (!o->graph || run1->n_nodes == 0 || !steps0 || !run1->has_steps) {
		tl_output_str(out, "null");
		return;
	}
	tl_graphdot_diff_add_run(d, 1, run1);
	tl_graphdot_diff_finish(d);
	if (tl_graphdot_diff_common(d) == 0) {
		/* two different graphs: nothing to compare (graph-render --diff
		 * warns and draws every node new) */
		tl_output_str(out, "null");
		return;
	}
	/* the picture the page draws of the second run (report_run_data.c) */
	tl_graphdot_opts go;
	tl_graphdot_opts_init(&go);
	go.max_nodes = o->graph_max_nodes;
	go.diff = d;
	tl_graphdot *gd = NULL;
	tl_error err = {{0}};
	if (tl_graphdot_build(&gd, (tl_run *const *)&run1, 1, &go, &err) == 0)
		tl_dot_diff_json(gd, out);
	else
		tl_output_str(out, "null");
	tl_graphdot_free(gd);
}
