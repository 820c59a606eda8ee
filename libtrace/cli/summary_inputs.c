#include "cli/summary_inputs.h"

#include "io/source.h"

#include <glib.h>

/* One input into a summary: runs one at a time (a Chrome trace is one),
 * or a partial. */
static int add_input(tl_summary *s, const char *path, const tl_summary_inputs_opts *o,
		     tl_error *err)
{
	tl_source *src = NULL;
	if (tl_source_open(&src, path, o->combine ? TL_FORMAT_CHROME : o->format, err) < 0)
		return -1;
	int rc = 0;
	if (o->combine) {
		const uint8_t *data;
		size_t len;
		rc = tl_source_map(src, &data, &len, err);
		if (rc == 0)
			rc = tl_summary_read_partial(s, data, len, err);
		if (rc == 0 && o->progress != NULL)
			tl_progress_add(o->progress, 1, len);
	} else {
		tl_run *run = NULL;
		uint64_t done = 0;
		while ((rc = tl_run_next(src, &run, err)) > 0) {
			tl_summary_add_run(s, run);
			tl_run_free(run);
			uint64_t at = tl_source_offset(src);
			if (o->progress != NULL)
				tl_progress_add(o->progress, 1, at - done);
			done = at;
		}
	}
	tl_source_close(src);
	return rc < 0 ? -1 : 0;
}

struct task {
	const tl_summary_inputs_opts *o;
	const char *path;
	tl_summary *s;
	tl_error err;
	int rc;
};

static void run_task(gpointer data, gpointer user)
{
	struct task *t = data;
	t->rc = add_input(t->s, t->path, t->o, &t->err);
}

int tl_summary_add_inputs(tl_summary *s, const char *const *paths, size_t n,
			  const tl_summary_inputs_opts *o, size_t *bad, tl_error *err)
{
	struct task *tasks = g_new0(struct task, n ? n : 1);
	if (o->graph != NULL)
		tl_summary_set_graph(s, o->graph);
	guint cores = g_get_num_processors();
	bool parallel = n > 1 && cores > 1 && !o->combine;
	GThreadPool *pool =
	    parallel ? g_thread_pool_new(run_task, NULL, (gint)MIN(cores, 8u), TRUE, NULL) : NULL;
	for (size_t i = 0; i < n; i++) {
		tasks[i] = (struct task){
		    .o = o, .path = paths[i], .s = parallel ? tl_summary_new(s->view) : s};
		tl_summary_set_graph(tasks[i].s, s->graph);
		if (pool != NULL) {
			g_thread_pool_push(pool, &tasks[i], NULL);
			continue;
		}
		run_task(&tasks[i], NULL);
		if (tasks[i].rc < 0)
			break;
	}
	if (pool != NULL)
		g_thread_pool_free(pool, FALSE, TRUE);
	int rc = 0;
	for (size_t i = 0; i < n; i++) {
		if (rc == 0 && tasks[i].rc < 0) {
			*bad = i;
			*err = tasks[i].err;
			rc = -1;
		}
		if (parallel) {
			if (rc == 0)
				tl_summary_absorb(s, tasks[i].s);
			tl_summary_free(tasks[i].s);
		}
	}
	g_free(tasks);
	if (rc == 0)
		tl_summary_warn_kept_out(s);
	return rc;
}
