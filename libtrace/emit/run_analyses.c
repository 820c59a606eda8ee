#include "emit/run_analyses.h"

#include "emit/advise.h"
#include "emit/critical_path.h"
#include "emit/idle.h"

#include <glib.h>

void tl_run_analyses_write(const tl_run *run, const tl_run_analyses *what, const tl_table_sink *sink,
			 tl_output *out, tl_chrome *overlay)
{
	if (what->advise) {
		tl_advice *a = tl_advise_new(run);
		tl_advise_write(run, a, sink, out);
		tl_advise_free(a);
	}
	if (what->idle) {
		tl_idle *idle = tl_idle_new(run, what->top_gaps);
		tl_idle_write(run, idle, sink, out);
		tl_idle_free(idle);
	}
	if (what->critical_path) {
		tl_path_step *steps = NULL;
		size_t n = tl_critical_path(run, &steps);
		tl_critical_path_write(run, steps, n, sink, out);
		if (overlay != NULL)
			tl_critical_path_trace(overlay, run, steps, n);
		g_free(steps);
	}
}
