#include "io/xspace_internal.h"

#include "base/crew.h"
#include "base/runsort.h"
#include "io/pbdecode.h"
#include <stdio.h>

/* ---- open ---------------------------------------------------------------- */

/* Odd content is damage (--strict: the error); aggregate events are what
 * some profilers write, and only said. */
static int warn_counts(const char *input, const counts *c, tl_error *err)
{
	if (c->bad_stat && tl_warn_damage(err, input, "ignored", "%zu stats name no stat metadata",
					  c->bad_stat) < 0)
		return -1;
	if (c->bad_event_md &&
	    tl_warn_damage(err, input, "named metadata#ID", "%zu events name no event metadata",
			   c->bad_event_md) < 0)
		return -1;
	if (c->bad_time &&
	    tl_warn_damage(err, input, "skipped",
			   "%zu events with times beyond +-2^61 ns or negative", c->bad_time) < 0)
		return -1;
	if (c->bad_planes &&
	    tl_warn_damage(err, input, "left out", "%zu planes whose fields do not decode",
			   c->bad_planes) < 0)
		return -1;
	if (c->cut_lines &&
	    tl_warn_damage(err, input, "their events before it kept",
			   "%zu lines cut short by a field that does not decode", c->cut_lines) < 0)
		return -1;
	if (c->bad_events &&
	    tl_warn_damage(err, input, "skipped", "%zu events whose bytes or stats do not decode",
			   c->bad_events) < 0)
		return -1;
	if (c->occurrences)
		tl_warn("xspace-occurrences",
			"%s: %zu aggregate events (num_occurrences, no time) skipped", input,
			c->occurrences);
	return 0;
}

/* HOST of ".../HOST.xplane.pb[.gz]", or NULL. */
static const char *host_of_path(const char *path, tl_arena *arena)
{
	const char *base = strrchr(path, '/');
	base = base != NULL ? base + 1 : path;
	size_t n = strlen(base);
	if (n > 3 && strcmp(base + n - 3, ".gz") == 0)
		n -= 3;
	static const char suffix[] = ".xplane.pb";
	size_t k = sizeof suffix - 1;
	if (n <= k || strncmp(base + n - k, suffix, k) != 0)
		return NULL;
	return tl_arena_strndup(arena, base, n - k);
}

/* tl_xspace_open but for its warnings. */
static int open_quiet(tl_xspace **out, const uint8_t *data, size_t len, bool allocs,
		      tl_arena *arena, const char *name, tl_error *err)
{
	tl_xspace_wire space;
	/* 4 GiB: the wire reader's 32-bit offsets; protobuf itself refuses
	 * messages of 2 GiB and more */
	if (len > UINT32_MAX || tl_xspace_wire_read_planes(&space, data, len, arena) < 0) {
		tl_error_set(err, "malformed XSpace (protobuf decoding failed)");
		return TL_PBDECODE_MALFORMED;
	}
	tl_xspace *xs = g_new0(tl_xspace, 1);
	xs->space = space;
	xs->arena = arena;
	xs->input = tl_arena_strdup(arena, name != NULL ? name : "");
	xs->keep_allocs = allocs;
	xs->host =
	    space.host != NULL && space.host[0] ? space.host : host_of_path(xs->input, arena);
	xs->planes = g_new0(xplane, xs->space.n_planes + 1);
	xs->devs = g_array_new(FALSE, FALSE, sizeof(xdev));
	xs->as_op = g_hash_table_new(g_direct_hash, g_direct_equal);
	xs->host_corr = g_array_new(FALSE, FALSE, sizeof(uint32_t));
	xs->dev_corr = g_array_new(FALSE, FALSE, sizeof(uint32_t));
	xs->step_ev = g_array_new(FALSE, FALSE, sizeof(uint32_t));
	for (size_t p = 0; p < xs->space.n_planes; p++) {
		tl_xs_index_plane(&xs->planes[p], &xs->space.planes[p], allocs, arena);
		xs->planes[p].line_base = xs->n_lines;
		xs->planes[p].data = data;
		xs->n_lines += xs->space.planes[p].n_lines;
	}
	xs->line_plane = g_new(uint32_t, xs->n_lines + 1);
	for (size_t p = 0; p < xs->space.n_planes; p++)
		for (size_t l = 0; l < xs->space.planes[p].n_lines; l++)
			xs->line_plane[xs->planes[p].line_base + l] = (uint32_t)p;
	xs->c.bad_planes = space.bad_planes;
	tl_xs_read_lines(xs, arena, &xs->c);
	if (xs->c.mem_renamed) { /* see add_line */
		tl_xspace_free(xs);
		return open_quiet(out, data, len, true, arena, name, err);
	}
	tl_xs_find_steps(xs);
	tl_xs_group_runs(xs);
	tl_xs_link_launches(xs);
	*out = xs;
	return 0;
}

int tl_xspace_warn(const tl_xspace *xs, tl_error *err)
{
	return warn_counts(xs->input, &xs->c, err);
}

int tl_xspace_open(tl_xspace **out, const uint8_t *data, size_t len, bool allocs, tl_arena *arena,
		   const char *name, tl_error *err)
{
	int rc = open_quiet(out, data, len, allocs, arena, name, err);
	if (rc < 0)
		return rc;
	if (tl_xspace_warn(*out, err) < 0) {
		tl_xspace_free(*out);
		*out = NULL;
		return -1;
	}
	return 0;
}

int tl_xspace_try_open(tl_xspace **out, const uint8_t *data, size_t len, bool allocs,
		       tl_arena *arena, const char *name)
{
	tl_error ignored = {{0}};
	tl_xspace *xs = NULL;
	if (open_quiet(&xs, data, len, allocs, arena, name, &ignored) < 0)
		return -1;
	if (xs->n_runs == 0) {
		tl_xspace_free(xs);
		return -1;
	}
	*out = xs;
	return 0;
}

void tl_xspace_free(tl_xspace *xs)
{
	if (xs == NULL)
		return;
	for (size_t p = 0; p < xs->space.n_planes; p++) {
		tl_xs_map_free(&xs->planes[p].ev_md);
		tl_xs_map_free(&xs->planes[p].st_md);
		g_free(xs->planes[p].ev_flags);
		g_free(xs->planes[p].st_role);
		g_free(xs->planes[p].mem_mark);
	}
	g_free(xs->planes);
	g_free(xs->steps);
	g_free(xs->run_first);
	g_free(xs->alloc_order);
	g_array_free(xs->devs, TRUE);
	g_hash_table_destroy(xs->as_op);
	g_array_free(xs->host_corr, TRUE);
	g_array_free(xs->dev_corr, TRUE);
	g_array_free(xs->step_ev, TRUE);
	g_free(xs->line_dev);
	g_free(xs->line_plane);
	g_free(xs->line_stream);
	g_free(xs);
}

size_t tl_xspace_n_runs(const tl_xspace *xs)
{
	return xs->n_runs;
}

const char *tl_xspace_host(const tl_xspace *xs)
{
	return xs->host;
}

/* ---- runs ---------------------------------------------------------------- */

/* A stat's text as kernel_tf_op reads it, in place (its bytes or the
 * name of the stat metadata it refers to): false for other values. */
static bool stat_span(const xplane *x, const tl_xspace_wire_stat *st, const char **s, size_t *n)
{
	if (st->kind == TL_XSTAT_STR) {
		*s = (const char *)st->s;
		*n = st->s_len;
		return true;
	}
	if (st->kind != TL_XSTAT_REF)
		return false;
	*s = find_id(&x->st_md, (int64_t)st->u);
	*n = *s != NULL ? strlen(*s) : 0;
	return *s != NULL;
}

/* is_tf_op of a text that may hold a NUL (a string stat): as is_tf_op
 * reads it, up to its first NUL. */
static bool span_is_tf_op(const char *s, size_t n, size_t *len)
{
	const char *nul = memchr(s, '\0', n);
	*len = nul != NULL ? (size_t)(nul - s) : n;
	return tl_tf2_is_tf_op(s, *len);
}

/* kernel_tf_op in one walk over the stats, copied into `arena`, or NULL. */
static const char *kernel_tf_op_in(const xplane *x, const xev *v, tl_arena *arena)
{
	if (!x->has_sid[S_TF_OP] && !x->has_sid[S_LEVEL0])
		return NULL;
	tl_xspace_wire_stat tf = {0}, l0 = {0}, st;
	tl_xspace_wire_event ev = event_of(x, v);
	/* the first tf_op stat where reading told where it is: what the walk
	 * below returns first when it names a TF op */
	uint32_t hint = v->flags >> TFOP_AT_SHIFT;
	const char *s;
	size_t n, len;
	if (hint != 0 && tl_xspace_wire_stat_nth(&ev, hint - 1, &tf) &&
	    tf.metadata_id == x->sid[S_TF_OP] && stat_span(x, &tf, &s, &n) &&
	    span_is_tf_op(s, n, &len))
		return tl_arena_strndup(arena, s, len);
	size_t pos = 0;
	bool seen_tf = false, seen_l0 = false;
	while (tl_xspace_wire_next_stat(&ev, &pos, &st) > 0) {
		if (!seen_tf && x->has_sid[S_TF_OP] && st.metadata_id == x->sid[S_TF_OP]) {
			seen_tf = true;
			tf = st;
			if (stat_span(x, &tf, &s, &n) && span_is_tf_op(s, n, &len))
				return tl_arena_strndup(arena, s, len); /* the first one wins */
		} else if (!seen_l0 && x->has_sid[S_LEVEL0] && st.metadata_id == x->sid[S_LEVEL0]) {
			seen_l0 = true;
			l0 = st;
		}
	}
	if (seen_l0 && stat_span(x, &l0, &s, &n) && span_is_tf_op(s, n, &len))
		return tl_arena_strndup(arena, s, len);
	return NULL;
}

/* node_name "X:Op" of a device event: the TF op it ran for. */
static const char *device_node_name(const tl_xspace *xs, const xev *v, tl_arena *arena)
{
	const xplane *x = plane_of(xs, v);
	const char *s = kernel_tf_op_in(x, v, arena);
	if (s != NULL)
		return s;
	if ((v->flags & F_LAUNCHED) && (xs->ev[v->launcher].flags & F_TFOP))
		s = xs->ev[v->launcher].name;
	if (s == NULL)
		s = tl_xs_kernel_op(x, v, arena);
	return s != NULL ? tl_arena_strdup(arena, s) : "";
}

/* The strings a run makes of an event's name, made once per name where
 * they can be: most events share their name with many (the name of their
 * XEventMetadata), and one copy in the run then serves them all, saving
 * the copies and, in tl_run_build, the comparisons of equal names (one
 * pointer is one name). A table by the name's address, a name taking its
 * slot from the one before (the strings are the same either way). */
#define MEMO_SLOTS 1024

typedef struct name_memo {
	const char *name; /* xev.name, or NULL */
	const char *node, *label;
} name_memo;

static name_memo *memo_slot(name_memo *memo, const char *name)
{
	uintptr_t h = (uintptr_t)name * (uintptr_t)UINT64_C(0x9E3779B97F4A7C15);
	return &memo[(h >> 40) & (MEMO_SLOTS - 1)];
}

/* A copy of `name` in the run. */
static const char *name_copy(name_memo *copies, const char *name, tl_arena *arena)
{
	name_memo *m = memo_slot(copies, name);
	if (m->name != name) {
		m->name = name;
		m->label = tl_arena_strdup(arena, name);
	}
	return m->label;
}

/* The node name and "node = Op()" label of a host event named `name`
 * ("X:Op" when F_TFOP). */
static const name_memo *op_names(name_memo *memo, const char *name, uint32_t flags, tl_arena *arena)
{
	name_memo *m = memo_slot(memo, name);
	if (m->name == name)
		return m;
	const char *colon = (flags & F_TFOP) ? strrchr(name, ':') : NULL;
	size_t nlen = colon != NULL ? (size_t)(colon - name) : strlen(name);
	m->node = tl_arena_strndup(arena, name, nlen);
	/* "node = Op()", the label timeline.py reads the op type from */
	const char *op = colon != NULL ? colon + 1 : name;
	size_t op_len = strlen(op);
	char *label = tl_arena_alloc(arena, nlen + op_len + 6);
	memcpy(label, name, nlen);
	memcpy(label + nlen, " = ", 3);
	memcpy(label + nlen + 3, op, op_len);
	memcpy(label + nlen + 3 + op_len, "()", 3);
	m->label = label;
	m->name = name;
	return m;
}

/* An event's times as its record holds them: to the nanosecond, and in
 * the micros every reader knows. */
static void set_times(Tensorflow__NodeExecStats *ns, const xev *v)
{
	ns->all_start_nanos = v->start;
	ns->all_start_micros = v->start / 1000;
	ns->all_end_rel_nanos = v->end - v->start;
	ns->all_end_rel_micros = v->end / 1000 - ns->all_start_micros;
	ns->op_end_rel_nanos = ns->all_end_rel_nanos;
	ns->op_end_rel_micros = ns->all_end_rel_micros;
}

static void fill_exec(const tl_xspace *xs, const xev *v, Tensorflow__NodeExecStats *ns,
		      name_memo *memo, tl_arena *arena)
{
	tensorflow__node_exec_stats__init(ns);
	const xdev *d = &g_array_index(xs->devs, xdev, dev_of(xs, v));
	const tl_xspace_wire_line *l = line_of(xs, v);
	set_times(ns, v);
	ns->thread_id = d->threads ? (uint32_t)l->id : 0;
	if (xs->line_stream[v->line]) {
		ns->node_name = (char *)device_node_name(xs, v, arena);
		ns->timeline_label = (char *)name_copy(memo + MEMO_SLOTS, v->name, arena);
		return;
	}
	if (v->flags & F_AS_OP) {
		/* "X:Op" names the node and its op (model/run.c), the kernel
		 * name stays in the label */
		const char *as_op = g_hash_table_lookup(xs->as_op, GINT_TO_POINTER(v - xs->ev));
		ns->node_name = tl_arena_strdup(arena, as_op);
		ns->timeline_label = (char *)name_copy(memo + MEMO_SLOTS, v->name, arena);
		return;
	}
	const name_memo *m = op_names(memo, v->name, v->flags, arena);
	ns->node_name = (char *)m->node;
	ns->timeline_label = (char *)m->label;
}

/* thread_names of a host device: the lines of the run's events, once each. */
static void name_thread(Tensorflow__DeviceStepStats *ds, const tl_xspace_wire_line *l,
			uint8_t *seen, tl_arena *arena)
{
	if (*seen)
		return;
	*seen = 1;
	Tensorflow__DeviceStepStats__ThreadNamesEntry *t = tl_arena_alloc(arena, sizeof *t);
	tensorflow__device_step_stats__thread_names_entry__init(t);
	t->key = (uint32_t)l->id;
	const char *n = l->display_name[0] ? l->display_name : l->name;
	t->value = tl_arena_strdup(arena, n != NULL ? n : "");
	ds->thread_names[ds->n_thread_names++] = t;
}

/* The run's devices, those with events in it (count[d] of device d), in the
 * XSpace's order; slot[d] is device d's place among them. */
static Tensorflow__StepStats *run_devices(const tl_xspace *xs, const uint32_t *count, int32_t *slot,
					  tl_arena *arena)
{
	size_t nd = xs->devs->len;
	Tensorflow__StepStats *ss = tl_arena_alloc(arena, sizeof *ss);
	tensorflow__step_stats__init(ss);
	ss->dev_stats = tl_arena_alloc(arena, (nd + 1) * sizeof *ss->dev_stats);
	for (size_t d = 0; d < nd; d++) {
		slot[d] = -1;
		if (count[d] == 0)
			continue;
		const xdev *xd = &g_array_index(xs->devs, xdev, d);
		Tensorflow__DeviceStepStats *ds = tl_arena_alloc(arena, sizeof *ds);
		tensorflow__device_step_stats__init(ds);
		ds->device = tl_arena_strdup(arena, xd->name);
		ds->node_stats = tl_arena_alloc(arena, count[d] * sizeof *ds->node_stats);
		if (xd->threads)
			ds->thread_names =
			    tl_arena_alloc(arena, count[d] * sizeof *ds->thread_names);
		slot[d] = (int32_t)ss->n_dev_stats;
		ss->dev_stats[ss->n_dev_stats++] = ds;
	}
	return ss;
}

/* What the passes of tl_xspace_run read of the run's event k, gathered in
 * one pass over their 64-byte entries. */
typedef struct run_ev {
	int64_t start;
	uint32_t dev, line;
} run_ev;

/* A device's records in start order, ties in event order (their places in
 * the run's one array): as the model would sort them (it keeps ties in
 * the order they come), sorted here on the thread that builds the run,
 * not on the one that models it. A host device has a line per thread, each
 * in order: their runs are merged. */
struct rec_order {
	const Tensorflow__NodeExecStats *recs;
	const run_ev *re;
};

static bool rec_before(const void *pa, const void *pb, void *ctx)
{
	const struct rec_order *o = ctx;
	const Tensorflow__NodeExecStats *a = *(Tensorflow__NodeExecStats *const *)pa;
	const Tensorflow__NodeExecStats *b = *(Tensorflow__NodeExecStats *const *)pb;
	int64_t x = o->re[a - o->recs].start, y = o->re[b - o->recs].start;
	if (x != y)
		return x < y;
	return a < b;
}

static void sort_records(Tensorflow__DeviceStepStats *ds, const Tensorflow__NodeExecStats *recs,
			 const run_ev *re)
{
	struct rec_order o = {recs, re};
	tl_runsort(ds->node_stats, ds->n_node_stats, sizeof *ds->node_stats, rec_before, &o);
}

/* The records of a run, filled on the crew: recs[k] is event ev[k]'s. */
struct fill_ctx {
	const tl_xspace *xs;
	const uint32_t *ev;
	Tensorflow__NodeExecStats *recs;
};

static void fill_part(void *ctx, size_t part, size_t lo, size_t hi, tl_arena *arena)
{
	const struct fill_ctx *f = ctx;
	name_memo *memo = g_new0(name_memo, 2 * MEMO_SLOTS); /* op_names', then name_copy's */
	for (size_t k = lo; k < hi; k++)
		fill_exec(f->xs, &f->xs->ev[f->ev[k]], &f->recs[k], memo, arena);
	g_free(memo);
}

int tl_xspace_run(const tl_xspace *xs, size_t run, const char *base, tl_arena *arena,
		  Tensorflow__RunMetadata **meta_out, const char **label, tl_links *links,
		  tl_error *err)
{
	const uint32_t *ev = xs->run_order + xs->run_first[run];
	size_t n = xs->run_first[run + 1] - xs->run_first[run];
	int32_t *slot = g_new(int32_t, xs->devs->len + 1);
	uint32_t *count = g_new0(uint32_t, xs->devs->len + 1);
	uint32_t *launched = g_new(uint32_t, 2 * n + 2); /* k, launcher */
	size_t n_launched = 0;
	run_ev *re = g_new(run_ev, n + 1);
	for (size_t k = 0; k < n; k++) {
		const xev *v = &xs->ev[ev[k]];
		if (v->flags & F_LINKED) {
			launched[n_launched++] = (uint32_t)k;
			launched[n_launched++] = (uint32_t)v->launcher;
		}
		re[k] = (run_ev){.start = v->start, .dev = dev_of(xs, v), .line = v->line};
		count[re[k].dev]++;
	}
	Tensorflow__RunMetadata *meta = tl_arena_alloc(arena, sizeof *meta);
	tensorflow__run_metadata__init(meta);
	Tensorflow__StepStats *ss = meta->step_stats = run_devices(xs, count, slot, arena);
	g_free(count);
	uint8_t *seen = g_new0(uint8_t, xs->n_lines + 1); /* per line: its thread named */
	/* one array, the records in event order (io/links.h) */
	Tensorflow__NodeExecStats *recs = tl_arena_alloc(arena, (n + 1) * sizeof *recs);
	for (size_t k = 0; k < n; k++) {
		Tensorflow__DeviceStepStats *ds = ss->dev_stats[slot[re[k].dev]];
		ds->node_stats[ds->n_node_stats++] = &recs[k];
		if (g_array_index(xs->devs, xdev, re[k].dev).threads)
			name_thread(ds, line_at(xs, re[k].line), &seen[re[k].line], arena);
	}
	g_free(seen);
	/* the records themselves (their names' strings) on every core */
	tl_crew_for(n, fill_part, &(struct fill_ctx){.xs = xs, .ev = ev, .recs = recs}, arena);
	for (size_t d = 0; d < ss->n_dev_stats; d++)
		sort_records(ss->dev_stats[d], recs, re);
	g_free(re);
	/* launched: (k, its launcher's event) pairs, the launcher in this run
	 * (F_LINKED) */
	uint32_t *kept = tl_arena_alloc(arena, (n_launched + 1) * sizeof *kept);
	size_t n_kept = 0;
	for (size_t j = 0; j + 1 < n_launched; j += 2) {
		uint32_t k = launched[j], by = launched[j + 1];
		/* the launcher among the run's events, which are in event order */
		size_t lo = 0, hi = n;
		while (lo < hi) {
			size_t mid = lo + (hi - lo) / 2;
			if (ev[mid] < by)
				lo = mid + 1;
			else
				hi = mid;
		}
		if (lo == n || ev[lo] != by)
			continue;
		kept[n_kept++] = k;
		kept[n_kept++] = (uint32_t)lo;
	}
	g_free(launched);
	*links = (tl_links){.recs = recs, .n_recs = n, .pairs = kept, .n = n_kept / 2};
	g_free(slot);
	char *l = xs->n_runs > 1 ? g_strdup_printf("%s step %s", base, xs->steps[run].name)
				 : g_strdup(base);
	*label = tl_arena_strdup(arena, l);
	g_free(l);
	*meta_out = meta;
	(void)err;
	return 0;
}

void tl_xspace_run_times(const tl_xspace *xs, size_t run, tl_record_fn each, void *ctx)
{
	Tensorflow__NodeExecStats ns;
	tensorflow__node_exec_stats__init(&ns);
	for (uint32_t k = xs->run_first[run]; k < xs->run_first[run + 1]; k++) {
		set_times(&ns, &xs->ev[xs->run_order[k]]);
		each(&ns, ctx);
	}
}
