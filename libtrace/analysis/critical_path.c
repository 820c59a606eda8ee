#include "analysis/critical_path.h"
#include "analysis/critical_path_internal.h"
#include "base/group.h"

#include "analysis/dataflow.h"
#include "analysis/idle.h"

#include <glib.h>
#include <inttypes.h>
#include <string.h>

/* A step's own share of the path: from when its predecessor released it
 * (or its start, if later) to its end; with the waits this adds up to the
 * path's span even where a _Recv started before its _Send. */
static void set_gated(const tl_run *run, tl_path_step *steps, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		const tl_exec *e = &run->execs[steps[i].exec];
		int64_t from = e->start;
		if (i > 0 && run->execs[steps[i - 1].exec].end > from)
			from = run->execs[steps[i - 1].exec].end;
		steps[i].gated_ns = e->end > from ? e->end - from : 0;
	}
}

/* Each execution's predecessors (dataflow links, launches, the previous
 * kernel on its stream) among the used ones, by destination: those of x
 * are pred[first[x] .. first[x + 1]). */
static void build_preds(const tl_run *run, const bool *used, uint32_t **first_out,
			uint32_t **pred_out)
{
	GArray *pred_src = g_array_new(FALSE, FALSE, sizeof(uint32_t));
	GArray *pred_dst = g_array_new(FALSE, FALSE, sizeof(uint32_t));
	tl_dataflow_opts fo = {.control = true, .launches = true};
	GArray *links = g_array_new(FALSE, FALSE, sizeof(tl_link));
	tl_dataflow_links(run, &fo, links);
	for (guint j = 0; j < links->len; j++) {
		const tl_link *l = &g_array_index(links, tl_link, j);
		if (!used[l->src] || !used[l->dst])
			continue;
		g_array_append_val(pred_src, l->src);
		g_array_append_val(pred_dst, l->dst);
	}
	g_array_free(links, TRUE);
	for (size_t d = 0; d < run->n_devices; d++) {
		const tl_device *dev = &run->devices[d];
		if (dev->kind != TL_DEV_STREAM && dev->kind != TL_DEV_MEMCPY)
			continue;
		for (uint32_t i = dev->first_exec + 1; i < dev->first_exec + dev->n_exec; i++) {
			uint32_t p = i - 1;
			g_array_append_val(pred_src, p);
			g_array_append_val(pred_dst, i);
		}
	}
	/* by destination, then each member (a link) becomes its source */
	tl_group g;
	tl_group_by(&g, (const uint32_t *)(void *)pred_dst->data, pred_dst->len,
		    (uint32_t)run->n_execs);
	for (guint k = 0; k < pred_dst->len; k++)
		g.members[k] = g_array_index(pred_src, uint32_t, g.members[k]);
	g_array_free(pred_src, TRUE);
	g_array_free(pred_dst, TRUE);
	*first_out = g.first;
	*pred_out = g.members;
}

/* The dataflow path among the executions of the idle-counted devices that
 * start in [wb, we]. */
static size_t dataflow_path(const tl_run *run, int64_t wb, int64_t we, tl_path_step **steps)
{
	*steps = NULL;
	if (run->n_execs == 0)
		return 0;
	bool *used = g_new0(bool, run->n_execs);
	for (size_t i = 0; i < run->n_execs; i++)
		used[i] = tl_idle_counts(&run->devices[run->execs[i].device]) &&
			  run->execs[i].start >= wb && run->execs[i].start <= we;
	uint32_t *first, *pred;
	build_preds(run, used, &first, &pred);

	int64_t best_end = INT64_MIN;
	uint32_t cur = 0;
	for (uint32_t i = 0; i < run->n_execs; i++)
		if (used[i] && run->execs[i].end > best_end) {
			best_end = run->execs[i].end;
			cur = i;
		}
	/* a window with nothing in it (without one, as ever: the first) */
	if (best_end == INT64_MIN && wb != INT64_MIN) {
		g_free(first);
		g_free(pred);
		g_free(used);
		return 0;
	}
	GArray *path = g_array_new(FALSE, FALSE, sizeof(tl_path_step));
	bool *on_path = g_new0(bool, run->n_execs);
	for (;;) {
		on_path[cur] = true;
		int64_t start = run->execs[cur].start;
		int32_t best = -1;
		int64_t best_t = INT64_MIN;
		for (uint32_t k = first[cur]; k < first[cur + 1]; k++) {
			uint32_t p = pred[k];
			int64_t pe = run->execs[p].end;
			/* the predecessor that released it: latest end, not after
			 * this start (clock skew aside), not already on the path */
			int64_t t = pe <= start ? pe : start;
			if (!on_path[p] && t > best_t) {
				best_t = t;
				best = (int32_t)p;
			}
		}
		tl_path_step st = {.exec = cur,
				   .wait_ns = best >= 0 && run->execs[best].end < start
						  ? start - run->execs[best].end
						  : 0};
		g_array_append_val(path, st);
		if (best < 0)
			break;
		cur = (uint32_t)best;
	}
	/* first execution first */
	tl_path_step *p = (tl_path_step *)(void *)path->data;
	for (guint i = 0; i < path->len / 2; i++) {
		tl_path_step t = p[i];
		p[i] = p[path->len - 1 - i];
		p[path->len - 1 - i] = t;
	}
	size_t n = path->len;
	*steps = (tl_path_step *)(void *)g_array_free(path, FALSE);
	set_gated(run, *steps, n);
	g_free(on_path);
	g_free(first);
	g_free(pred);
	g_free(used);
	return n;
}

/* The window of the instance-th execution whose name holds `text`. */
static int annotation_window(const tl_run *run, const tl_path_opts *o, int64_t *wb, int64_t *we,
			     tl_error *err)
{
	GArray *hits = g_array_new(FALSE, FALSE, sizeof(uint32_t));
	for (uint32_t i = 0; i < run->n_execs; i++)
		if (strstr(tl_critical_path_name(run, i), o->annotation) != NULL)
			g_array_append_val(hits, i);
	/* by start, then by place in the input */
	g_array_sort_with_data(hits, tl_critical_path_cmp_start, (gpointer)run);
	int rc = 0;
	if (o->instance >= hits->len) {
		rc = tl_error_set(err,
				  "no instance %" PRIu32 " of annotation '%s' in '%s' (%u found)",
				  o->instance, o->annotation, run->label, hits->len);
	} else {
		const tl_exec *e = &run->execs[g_array_index(hits, uint32_t, o->instance)];
		*wb = e->start;
		*we = e->end;
	}
	g_array_free(hits, TRUE);
	return rc;
}

int tl_critical_path_find(const tl_run *run, const tl_path_opts *o, tl_path *out,
			  tl_error *err)
{
	*out = (tl_path){.span_begin = run->t_begin, .span_end = run->t_end};
	int64_t wb = INT64_MIN, we = INT64_MAX;
	if (o != NULL && o->annotation != NULL) {
		if (annotation_window(run, o, &wb, &we, err) < 0)
			return -1;
		out->span_begin = wb;
		out->span_end = we;
	}
	if (run->no_dataflow) {
		tl_critical_path_host(run, wb, we, out);
		return 0;
	}
	out->rules = TL_PATH_DATAFLOW;
	out->n = dataflow_path(run, wb, we, &out->steps);
	if (out->n > 0) {
		out->begin = run->execs[out->steps[0].exec].start;
		out->end = run->execs[out->steps[out->n - 1].exec].end;
	}
	return 0;
}

size_t tl_critical_path(const tl_run *run, tl_path_step **steps)
{
	tl_path p;
	tl_critical_path_find(run, NULL, &p, NULL);
	*steps = p.steps;
	return p.n;
}

void tl_path_clear(tl_path *p)
{
	g_free(p->steps);
	p->steps = NULL;
	p->n = 0;
}
