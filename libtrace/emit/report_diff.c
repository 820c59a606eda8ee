/* report_diff: the two-run page's graph colouring, graph-render --diff's
 * (analysis/graphdot_diff.h) as data the graph tab applies: by the change
 * in time, and (its member "memory") in output memory, as graph-render
 * --diff --color-by memory colours it. */
#include "emit/report_internal.h"

#include "analysis/graphdot.h"
#include "analysis/graphdot_diff.h"
#include "emit/dot.h"

/* The picture the page draws of the second run (report_run_data.c),
 * coloured by d; NULL when it cannot be built. */
static tl_graphdot *diff_picture(tl_graphdot_diff *d, const tl_run *run1, const tl_report_opts *o)
{
	tl_graphdot_opts go;
	tl_graphdot_opts_init(&go);
	go.max_nodes = o->graph_max_nodes;
	go.diff = d;
	tl_graphdot *gd = NULL;
	tl_error err = {{0}};
	if (tl_graphdot_build(&gd, (tl_run *const *)&run1, 1, &go, &err) < 0) {
		tl_graphdot_free(gd);
		return NULL;
	}
	return gd;
}

void tl_report_graph_diff(tl_output *out, tl_graphdot_diff *d, bool steps0, const tl_run *run1,
			  const tl_report_opts *o)
{
	if (!o->graph || run1->n_nodes == 0 || !steps0 || !run1->has_steps) {
		tl_output_str(out, "null");
		return;
	}
	/* the change in memory, from the same summaries of the two runs */
	tl_graphdot_diff *mem = tl_graphdot_diff_twin(d);
	tl_graphdot_diff_add_run(d, 1, run1);
	tl_graphdot_diff_finish(d);
	tl_graphdot_diff_finish(mem);
	if (tl_graphdot_diff_common(d) == 0) {
		/* two different graphs: nothing to compare (graph-render --diff
		 * warns and draws every node new) */
		tl_output_str(out, "null");
		tl_graphdot_diff_free(mem);
		return;
	}
	tl_graphdot *gd = diff_picture(d, run1, o);
	tl_graphdot *gm = gd != NULL ? diff_picture(mem, run1, o) : NULL;
	if (gd != NULL)
		tl_dot_diff_json(gd, gm, out);
	else
		tl_output_str(out, "null");
	tl_graphdot_free(gm);
	tl_graphdot_free(gd);
	tl_graphdot_diff_free(mem);
}
