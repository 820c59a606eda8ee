#include "emit/optrace.h"
#include "base/group.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void tl_optrace_opts_init(tl_optrace_opts *o)
{
	memset(o, 0, sizeof *o);
	o->op_time = TL_OPTIME_SCHEDULE;
	o->flows = true;
	o->launches = true;
	o->stream_all = true;
	o->kernels = true;
}

/* Display order of devices: each executor followed by its tracer devices
 * (copies, streams by number, stream:all, sync), then the rest. */
static int tracer_rank(const tl_device *d)
{
	switch (d->kind) {
	case TL_DEV_MEMCPY:
		return 1;
	case TL_DEV_STREAM:
		return 2;
	case TL_DEV_STREAM_ALL:
		return 3;
	case TL_DEV_SYNC:
		return 4;
	default:
		return 5;
	}
}

static long stream_number(const char *name)
{
	const char *s = strstr(name, "/stream:");
	return s != NULL ? strtol(s + 8, NULL, 10) : 0;
}

static int cmp_tracer(const void *a, const void *b, void *ctx)
{
	const tl_run *run = ctx;
	const tl_device *x = &run->devices[*(const uint32_t *)a];
	const tl_device *y = &run->devices[*(const uint32_t *)b];
	if (tracer_rank(x) != tracer_rank(y))
		return tracer_rank(x) - tracer_rank(y);
	long sx = stream_number(x->name), sy = stream_number(y->name);
	if (sx != sy)
		return sx < sy ? -1 : 1;
	return strcmp(x->name, y->name);
}

uint32_t tl_optrace_device_order(const tl_run *run, uint32_t *order)
{
	uint32_t n = 0;
	size_t n_dev = run->n_devices;
	bool *placed = g_new0(bool, n_dev ? n_dev : 1);
	/* tracer devices grouped by executor, in device order */
	uint32_t *executor = g_new(uint32_t, n_dev ? n_dev : 1);
	for (size_t t = 0; t < n_dev; t++)
		executor[t] = run->devices[t].executor >= 0 ? (uint32_t)run->devices[t].executor
							    : TL_GROUP_NONE;
	tl_group tracers;
	tl_group_by(&tracers, executor, n_dev, (uint32_t)n_dev);
	g_free(executor);
	const uint32_t *group_first = tracers.first, *grouped = tracers.members;
	for (uint32_t d = 0; d < n_dev; d++) {
		if (run->devices[d].kind != TL_DEV_EXECUTOR)
			continue;
		order[n++] = d;
		placed[d] = true;
		uint32_t first = n;
		for (uint32_t g = group_first[d]; g < group_first[d + 1]; g++) {
			order[n++] = grouped[g];
			placed[grouped[g]] = true;
		}
		qsort_r(order + first, n - first, sizeof *order, cmp_tracer, (void *)run);
	}
	tl_group_free(&tracers);
	uint32_t first = n;
	for (uint32_t d = 0; d < n_dev; d++)
		if (!placed[d])
			order[n++] = d;
	qsort_r(order + first, n - first, sizeof *order, cmp_tracer, (void *)run);
	g_free(placed);
	return n;
}

static bool device_shown(const tl_device *d, const tl_optrace_opts *o)
{
	if (d->kind == TL_DEV_STREAM_ALL && !o->stream_all)
		return false;
	if (d->kind != TL_DEV_EXECUTOR && d->kind != TL_DEV_OTHER && !o->kernels)
		return false;
	if (o->device_re != NULL && !g_regex_match(o->device_re, d->name, 0, NULL))
		return false;
	return true;
}

static bool exec_shown(const tl_run *run, const tl_lanes *v, uint32_t i, const tl_optrace_opts *o)
{
	int64_t dur = v->end[i] - v->start[i];
	if (dur < o->min_dur_ns)
		return false;
	if (o->window) {
		int64_t b = run->t_begin + o->win_begin_ns, e = run->t_begin + o->win_end_ns;
		if (v->end[i] < b || v->start[i] > e)
			return false;
	}
	return true;
}

/* A device's thread names by id (the last entry for an id wins, as in a
 * protobuf map), when it has so many that a scan per row would cost rows
 * times names; NULL when a scan will do. */
GHashTable *tl_optrace_thread_names(const tl_device *dev)
{
	const Tensorflow__DeviceStepStats *ds = dev->stats;
	if (ds == NULL || ds->n_thread_names <= 8)
		return NULL;
	GHashTable *h = g_hash_table_new(g_direct_hash, g_direct_equal);
	for (size_t i = 0; i < ds->n_thread_names; i++)
		if (ds->thread_names[i]->value)
			g_hash_table_insert(h, GUINT_TO_POINTER(ds->thread_names[i]->key),
					    ds->thread_names[i]->value);
	return h;
}

const char *tl_optrace_lane_name(const tl_run *run, const tl_lanes *v, uint32_t d, uint32_t l,
				 GHashTable *names, char *buf, size_t size)
{
	const tl_device *dev = &run->devices[d];
	const tl_lane *lane = &v->lanes[d][l];
	const char *base = NULL;
	char tmp[64];
	if (v->threaded[d]) {
		const Tensorflow__DeviceStepStats *ds = dev->stats;
		if (names != NULL)
			base = g_hash_table_lookup(names, GUINT_TO_POINTER(lane->thread));
		for (size_t i = 0; names == NULL && ds != NULL && i < ds->n_thread_names; i++)
			if (ds->thread_names[i]->key == lane->thread && ds->thread_names[i]->value)
				base = ds->thread_names[i]->value;
		/* dump thread names repeat (every executor thread is
		 * "tf_Compute"): the id keeps rows apart */
		if (base == NULL)
			snprintf(tmp, sizeof tmp, "thread %u", lane->thread);
		else
			snprintf(tmp, sizeof tmp, "%.40s %u", base, lane->thread);
		base = tmp;
	} else {
		base = dev->kind == TL_DEV_MEMCPY				   ? "copies"
		       : dev->kind == TL_DEV_EXECUTOR || dev->kind == TL_DEV_OTHER ? "ops"
										   : "kernels";
	}
	if (lane->sub == 0)
		snprintf(buf, size, "%s", base);
	else
		snprintf(buf, size, "%s (%u)", base, lane->sub + 1);
	return buf;
}

/* "input<k>" into key (snprintf's cost showed in the profile) */
static void input_key(char key[32], size_t k)
{
	char digits[24];
	size_t n = 0;
	do {
		digits[n++] = (char)('0' + k % 10);
		k /= 10;
	} while (k != 0);
	memcpy(key, "input", 5);
	for (size_t i = 0; i < n; i++)
		key[5 + i] = digits[n - 1 - i];
	key[5 + n] = '\0';
}

static void write_args(tl_chrome *w, const tl_run *run, const tl_exec *e, int32_t iter)
{
	tl_chrome_arg_str(w, "name", e->node);
	tl_chrome_arg_str(w, "op", e->op);
	const tl_device *dev = &run->devices[e->device];
	char key[32];
	if (dev->kind != TL_DEV_EXECUTOR && dev->kind != TL_DEV_OTHER) {
		const char *label = e->ns->timeline_label != NULL ? e->ns->timeline_label : "";
		const char *at = strstr(label, "@@");
		tl_chrome_arg_strn(w, "kernel", label,
				   at != NULL ? (size_t)(at - label) : strlen(label));
		return;
	}
	if (e->gnode >= 0) {
		const Tensorflow__NodeDef *def = run->nodes[e->gnode].def;
		for (size_t k = 0; k < def->n_input; k++) {
			input_key(key, k);
			tl_chrome_arg_str(w, key, def->input[k]);
		}
	} else {
		const char **inputs = NULL;
		size_t n = 0;
		if (tl_run_op_label_parse(run->arena, e->ns->timeline_label, NULL, NULL, &inputs,
					  &n))
			for (size_t k = 0; k < n; k++) {
				input_key(key, k);
				tl_chrome_arg_str(w, key, inputs[k]);
			}
		else if (e->ns->timeline_label != NULL && e->ns->timeline_label[0] != '\0')
			/* a launch's record names its kernel (XSpace) */
			tl_chrome_arg_str(w, "kernel", e->ns->timeline_label);
	}
	if (iter > 0)
		tl_chrome_arg_int(w, "iteration", iter);
}

/* snprintf(buf, size, "%s%s", prefix, s), without parsing a format for
 * every arrow */
static void name_copy(char *buf, size_t size, const char *prefix, const char *s)
{
	size_t p = strlen(prefix);
	if (size == 0)
		return;
	if (p >= size) {
		memcpy(buf, prefix, size - 1);
		buf[size - 1] = '\0';
		return;
	}
	size_t n = strlen(s);
	if (n > size - p - 1)
		n = size - p - 1;
	memcpy(buf, prefix, p);
	memcpy(buf + p, s, n);
	buf[p + n] = '\0';
}

void tl_optrace_flow_name(const tl_run *run, const tl_link *l, char *buf, size_t size)
{
	const tl_exec *src = &run->execs[l->src];
	switch (l->kind) {
	case TL_LINK_DATA:
		if (l->src_port == 0)
			name_copy(buf, size, "", src->node);
		else
			snprintf(buf, size, "%s:%d", src->node, l->src_port);
		break;
	case TL_LINK_CONTROL:
		name_copy(buf, size, "^", src->node);
		break;
	case TL_LINK_TRANSFER: {
		/* through an unrecorded transfer node the tensor is still its */
		int32_t g = l->via_recv >= 0   ? l->via_recv
			    : l->via_send >= 0 ? l->via_send
					       : src->gnode;
		const char *tn =
		    g >= 0 ? tl_run_node_attr_string(run, (uint32_t)g, "tensor_name") : "";
		name_copy(buf, size, "", tn[0] != '\0' ? tn : src->node);
		break;
	}
	case TL_LINK_LAUNCH:
		name_copy(buf, size, "", src->node);
		break;
	}
}

/* An arrow that skips a transfer node the dump has no stats for says so:
 * the tensor went through that _Recv (or _Send) all the same. */
static void via_args(tl_chrome *w, const tl_run *run, const tl_link *l)
{
	if (l->via_send >= 0) {
		tl_chrome_arg_str(w, "send", run->nodes[l->via_send].name);
		tl_chrome_arg_raw(w, "send_recorded", "false");
	}
	if (l->via_recv >= 0) {
		tl_chrome_arg_str(w, "recv", run->nodes[l->via_recv].name);
		tl_chrome_arg_raw(w, "recv_recorded", "false");
	}
}

/* How far inside a slice a flow event sits (at most half the slice):
 * viewers read ts as a double of microseconds, which near today's epoch
 * keeps a quarter of one, so an event 1 ns inside a slice lands on the
 * slice next to it as often as not, and a back-to-back producer and
 * consumer on one thread then show an arrow from a slice to itself. */
#define FLOW_INSET_NS 1000

/* Where an arrow leaves its producer and reaches its consumer: inside both
 * slices (a flow event binds to the slice around it), and never back in
 * time, which viewers drop. A _Recv starts before its _Send (it waits), so
 * its arrow lands where the data arrived, not where it began waiting. */
static bool flow_times(const tl_lanes *v, const tl_link *l, int64_t *s_ts, int64_t *f_ts)
{
	int64_t ss = v->start[l->src], se = v->end[l->src];
	int64_t ds = v->start[l->dst], de = v->end[l->dst];
	int64_t ms = se > ss ? MIN((se - ss) / 2, FLOW_INSET_NS) : 0;
	int64_t md = de > ds ? MIN((de - ds) / 2, FLOW_INSET_NS) : 0;
	int64_t s = se - ms;
	int64_t f = ds + md;
	if (l->kind == TL_LINK_LAUNCH && ds < s)
		s = MAX(ds, ss + ms); /* the launch happens while the op runs */
	if (f < s)
		f = MIN(s, de - md);
	if (f < s)
		s = MAX(f, ss + ms);
	if (f < s)
		return false;
	*s_ts = s;
	*f_ts = f;
	return true;
}

/* One run being written: where each device and lane went. */
struct trace {
	tl_chrome *w;
	const tl_run *run;
	const tl_optrace_opts *o;
	tl_lanes v;
	uint32_t *order; /* devices in the order written */
	uint32_t n_order;
	int64_t *pid_of;   /* per device, or -1 when not shown */
	uint32_t **tid_of; /* per device, per lane */
	bool *shown;	   /* per execution */
	tl_optrace_stats *stats;
};

/* A process per device shown, a thread per lane. */
static void write_processes(struct trace *t, int64_t *next_pid)
{
	const tl_optrace_opts *o = t->o;
	char buf[512];
	for (uint32_t k = 0; k < t->n_order; k++) {
		uint32_t d = t->order[k];
		const tl_device *dev = &t->run->devices[d];
		if (!device_shown(dev, o))
			continue;
		char *pname = o->prefix != NULL ? g_strconcat(o->prefix, dev->name, NULL)
						: g_strdup(dev->name);
		bool fresh = true;
		if (o->pid_of != NULL)
			t->pid_of[d] = o->pid_of(o->ids_ctx, pname, &fresh);
		else
			t->pid_of[d] = (*next_pid)++;
		if (fresh)
			tl_chrome_process(t->w, t->pid_of[d], pname, t->pid_of[d]);
		g_free(pname);
		t->tid_of[d] = g_new(uint32_t, t->v.n_lanes[d] ? t->v.n_lanes[d] : 1);
		GHashTable *names = t->v.threaded[d] ? tl_optrace_thread_names(dev) : NULL;
		for (uint32_t l = 0; l < t->v.n_lanes[d]; l++) {
			const char *tname =
			    tl_optrace_lane_name(t->run, &t->v, d, l, names, buf, sizeof buf);
			bool tfresh = true;
			t->tid_of[d][l] =
			    o->tid_of != NULL
				? (uint32_t)o->tid_of(o->ids_ctx, t->pid_of[d], tname, &tfresh)
				: l;
			if (tfresh)
				tl_chrome_thread(t->w, t->pid_of[d], t->tid_of[d][l], tname,
						 t->tid_of[d][l]);
		}
		if (names != NULL)
			g_hash_table_destroy(names);
		if (t->stats != NULL)
			t->stats->processes++;
	}
}

/* A slice per execution shown. */
static void write_slices(struct trace *t)
{
	const tl_run *run = t->run;
	/* a loop's _Recv with unrecorded executions: the iteration its arrows
	 * say, not its rank */
	int32_t *iters = tl_dataflow_iterations(run);
	for (uint32_t k = 0; k < t->n_order; k++) {
		uint32_t d = t->order[k];
		if (t->pid_of[d] < 0)
			continue;
		const tl_device *dev = &run->devices[d];
		for (uint32_t i = dev->first_exec; i < dev->first_exec + dev->n_exec; i++) {
			if (!exec_shown(run, &t->v, i, t->o))
				continue;
			t->shown[i] = true;
			const tl_exec *e = &run->execs[i];
			tl_chrome_complete(
			    t->w, e->op, "Op", t->pid_of[d], t->tid_of[d][t->v.lane[i]],
			    t->v.start[i] + t->o->shift_ns, t->v.end[i] - t->v.start[i]);
			write_args(t->w, run, e, iters[i]);
			if (t->stats != NULL)
				t->stats->slices++;
		}
	}
	g_free(iters);
}

/* tl_optrace_flow_name's text; where it is the producer's name whole, that
 * name itself, not a copy. */
static const char *flow_name(const tl_run *run, const tl_link *l, char *buf, size_t size)
{
	const char *node = run->execs[l->src].node;
	bool whole = (l->kind == TL_LINK_DATA && l->src_port == 0) || l->kind == TL_LINK_LAUNCH;
	if (whole && strlen(node) < size)
		return node;
	tl_optrace_flow_name(run, l, buf, size);
	return buf;
}

/* An arrow per dataflow link between two slices shown. */
static void write_flows(struct trace *t, uint64_t *next_flow)
{
	const tl_run *run = t->run;
	char buf[512];
	tl_dataflow_opts fo = {.control = t->o->control, .launches = t->o->launches};
	GArray *links = g_array_new(FALSE, FALSE, sizeof(tl_link));
	tl_dataflow_links(run, &fo, links);
	for (guint j = 0; j < links->len; j++) {
		const tl_link *l = &g_array_index(links, tl_link, j);
		if (!t->shown[l->src] || !t->shown[l->dst])
			continue;
		const tl_exec *src = &run->execs[l->src], *dst = &run->execs[l->dst];
		int64_t s_ts, f_ts;
		if (!flow_times(&t->v, l, &s_ts, &f_ts)) {
			tl_warn("flow-backwards", "arrows dropped where the consumer ended "
						  "before its producer started (clock skew between "
						  "devices?)");
			continue;
		}
		const char *name = flow_name(run, l, buf, sizeof buf);
		const char *cat = tl_dataflow_link_kind_name(l->kind);
		uint64_t id = (*next_flow)++;
		tl_chrome_flow(t->w, 's', name, cat, id, t->pid_of[src->device],
			       t->tid_of[src->device][t->v.lane[l->src]], s_ts + t->o->shift_ns);
		via_args(t->w, run, l);
		tl_chrome_flow(t->w, 'f', name, cat, id, t->pid_of[dst->device],
			       t->tid_of[dst->device][t->v.lane[l->dst]], f_ts + t->o->shift_ns);
		if (t->stats != NULL)
			t->stats->flows++;
	}
	g_array_free(links, TRUE);
}

void tl_optrace_write(tl_chrome *w, const tl_run *run, const tl_optrace_opts *o, int64_t *next_pid,
		      uint64_t *next_flow, tl_optrace_stats *stats)
{
	size_t nd = run->n_devices ? run->n_devices : 1;
	struct trace t = {.w = w, .run = run, .o = o, .stats = stats};
	tl_lanes_build(&t.v, run, o->op_time);
	t.order = g_new(uint32_t, nd);
	t.n_order = tl_optrace_device_order(run, t.order);
	t.pid_of = g_new(int64_t, nd);
	for (uint32_t d = 0; d < run->n_devices; d++)
		t.pid_of[d] = -1;
	t.tid_of = g_new0(uint32_t *, nd);
	t.shown = g_new0(bool, run->n_execs ? run->n_execs : 1);
	write_processes(&t, next_pid);
	write_slices(&t);
	if (o->flows)
		write_flows(&t, next_flow);
	g_free(t.shown);
	for (uint32_t d = 0; d < run->n_devices; d++)
		g_free(t.tid_of[d]);
	g_free(t.tid_of);
	g_free(t.pid_of);
	g_free(t.order);
	tl_lanes_free(&t.v);
}
