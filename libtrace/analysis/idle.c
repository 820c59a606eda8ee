#include "analysis/idle.h"

#include <glib.h>
#include <stdlib.h>

bool tl_idle_counts(const tl_device *d)
{
	return d->kind == TL_DEV_EXECUTOR || d->kind == TL_DEV_STREAM || d->kind == TL_DEV_MEMCPY;
}

static int cmp_gap(const void *a, const void *b)
{
	const tl_idle_gap *x = a, *y = b;
	int64_t lx = x->end - x->begin, ly = y->end - y->begin;
	if (lx != ly)
		return lx > ly ? -1 : 1;
	return x->begin < y->begin ? -1 : (x->begin > y->begin);
}

/* One device: its executions are sorted by start. */
static void device_idle(const tl_run *run, const tl_device *dev, int64_t span, size_t top_gaps,
			tl_idle_device *out)
{
	GArray *gaps = g_array_new(FALSE, FALSE, sizeof(tl_idle_gap));
	int64_t busy = 0, cs = INT64_MIN, ce = INT64_MIN;
	uint32_t last = dev->first_exec;
	for (uint32_t i = dev->first_exec; i < dev->first_exec + dev->n_exec; i++) {
		const tl_exec *e = &run->execs[i];
		if (cs == INT64_MIN) {
			cs = e->start;
			ce = e->end;
			last = i;
		} else if (e->start > ce) {
			busy += ce - cs;
			tl_idle_gap g = {ce, e->start, last, i};
			g_array_append_val(gaps, g);
			cs = e->start;
			ce = e->end;
			last = i;
		} else if (e->end > ce) {
			ce = e->end;
			last = i;
		}
	}
	busy += ce - cs;
	if (gaps->len > 1)
		qsort(gaps->data, gaps->len, sizeof(tl_idle_gap), cmp_gap);
	out->busy_ns = busy;
	out->idle_ns = span - busy;
	out->busy_pct = span > 0 ? 100.0 * (double)busy / (double)span : 0;
	out->n_gaps = gaps->len;
	out->n_longest = MIN(gaps->len, top_gaps);
	g_array_set_size(gaps, (guint)out->n_longest);
	out->longest = (tl_idle_gap *)(void *)g_array_free(gaps, FALSE);
}

tl_idle *tl_idle_new(const tl_run *run, size_t top_gaps)
{
	tl_idle *idle = g_new0(tl_idle, 1);
	idle->span_ns = run->t_end - run->t_begin;
	idle->devices = g_new0(tl_idle_device, run->n_devices ? run->n_devices : 1);
	for (size_t d = 0; d < run->n_devices; d++) {
		const tl_device *dev = &run->devices[d];
		if (!tl_idle_counts(dev) || dev->n_exec == 0)
			continue;
		tl_idle_device *out = &idle->devices[idle->n_devices++];
		out->device = (uint32_t)d;
		device_idle(run, dev, idle->span_ns, top_gaps, out);
	}
	return idle;
}

void tl_idle_free(tl_idle *idle)
{
	if (idle == NULL)
		return;
	for (size_t i = 0; i < idle->n_devices; i++)
		g_free(idle->devices[i].longest);
	g_free(idle->devices);
	g_free(idle);
}
