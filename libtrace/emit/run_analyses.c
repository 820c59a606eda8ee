#include "emit/run_analyses.h"

#include "emit/advise.h"
#include "emit/critical_path.h"
#include "emit/idle.h"

#include <glib.h>

int tl_run_analyses_write(const tl_run *run, const tl_run_analyses *what, const tl_table_sink *sink,
			  tl_output *out, tl_chrome *overlay, tl_error *err)
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
		tl_path p;
		if (tl_critical_path_find(run, &what->path, &p, err) < 0)
			return -1;
		tl_critical_path_write(run, &p, &what->path, sink, out);
		if (overlay != NULL)
			tl_critical_path_trace(overlay, run, &p);
		tl_path_clear(&p);
	}
	return 0;
}
