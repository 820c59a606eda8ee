#include "io/xspace.h"

#include "io/pbdecode.h"

#include <glib.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define TIME_LIMIT_NS ((int64_t)1 << 61)

/* The stats the reader looks at, by name. */
enum stat_key {
	S_CORRELATION = 0,
	S_TF_OP,
	S_LEVEL0,
	S_HLO_OP,
	S_GROUP,
	S_STEP_NAME,
	S_ALLOCATOR,
	S_BYTES_ALLOCATED,
	S_ALLOCATION_BYTES,
	S_REQUESTED_BYTES,
	S_ADDR,
	S_PEAK,
	S_RESERVED,
	N_STAT_KEYS
};

static const char *const stat_names[N_STAT_KEYS] = {
    [S_CORRELATION] = "correlation_id",
    [S_TF_OP] = "tf_op",
    [S_LEVEL0] = "level 0",
    [S_HLO_OP] = "hlo_op",
    [S_GROUP] = "group_id",
    [S_STEP_NAME] = "step_name",
    [S_ALLOCATOR] = "allocator_name",
    [S_BYTES_ALLOCATED] = "bytes_allocated",
    [S_ALLOCATION_BYTES] = "allocation_bytes",
    [S_REQUESTED_BYTES] = "requested_bytes",
    [S_ADDR] = "addr",
    [S_PEAK] = "peak_bytes_in_use",
    [S_RESERVED] = "bytes_reserved",
};

typedef struct id_ptr {
	int64_t id;
	const void *p;
} id_ptr;

typedef enum plane_kind { P_HOST, P_DEVICE, P_OTHER } plane_kind;

typedef struct xplane {
	const Tensorflow__Profiler__XPlane *p;
	plane_kind kind;
	id_ptr *ev_md, *st_md; /* sorted by id */
	size_t n_ev_md, n_st_md;
	int64_t sid[N_STAT_KEYS];
	bool has_sid[N_STAT_KEYS];
} xplane;

enum ev_flags {
	F_TFOP = 1,   /* "name:Op" */
	F_MEMORY = 2, /* MemoryAllocation / MemoryDeallocation */
	F_STEP = 4,   /* on a "Steps" line */
};

typedef struct xev {
	const Tensorflow__Profiler__XEvent *e;
	const char *name;
	int64_t start, end; /* ns */
	uint32_t plane, line;
	uint32_t dev;
	int32_t parent; /* the innermost event around it on its line, or -1 */
	int32_t launcher; /* device events: the TF op that launched it, or -1 */
	const char *as_op; /* a host launch outside any TF op: the "X:Op" it launched for */
	uint32_t run;
	uint32_t flags;
} xev;

typedef struct xdev {
	const char *name;
	const Tensorflow__Profiler__XPlane *plane;
	bool threads; /* a host plane: lines are threads */
} xdev;

typedef struct xstep {
	int64_t start, end, group;
	bool has_group;
	const char *name;
} xstep;

struct tl_xspace {
	const Tensorflow__Profiler__XSpace *space;
	const char *input;
	xplane *planes;
	xev *ev;
	size_t n_ev;
	GArray *devs; /* xdev */
	xstep *steps;
	size_t n_steps;
	size_t n_runs;
	GPtrArray *links; /* of the run last built */
};

/* ---- metadata ----------------------------------------------------------- */

static int cmp_id(const void *a, const void *b)
{
	int64_t x = ((const id_ptr *)a)->id, y = ((const id_ptr *)b)->id;
	return (x > y) - (x < y);
}

static const void *find_id(const id_ptr *v, size_t n, int64_t id)
{
	id_ptr key = {.id = id};
	const id_ptr *hit = bsearch(&key, v, n, sizeof *v, cmp_id);
	return hit != NULL ? hit->p : NULL;
}

static plane_kind kind_of_plane(const char *name)
{
	if (g_str_has_prefix(name, "/host:"))
		return P_HOST;
	if (g_str_has_prefix(name, "/device:"))
		return P_DEVICE;
	return P_OTHER;
}

static void index_plane(xplane *x, const Tensorflow__Profiler__XPlane *p)
{
	x->p = p;
	x->kind = kind_of_plane(p->name != NULL ? p->name : "");
	x->ev_md = g_new(id_ptr, p->n_event_metadata + 1);
	for (size_t i = 0; i < p->n_event_metadata; i++) {
		const Tensorflow__Profiler__XPlane__EventMetadataEntry *m = p->event_metadata[i];
		x->ev_md[x->n_ev_md++] = (id_ptr){m->key, m->value};
	}
	qsort(x->ev_md, x->n_ev_md, sizeof(id_ptr), cmp_id);
	x->st_md = g_new(id_ptr, p->n_stat_metadata + 1);
	for (size_t i = 0; i < p->n_stat_metadata; i++) {
		const Tensorflow__Profiler__XPlane__StatMetadataEntry *m = p->stat_metadata[i];
		x->st_md[x->n_st_md++] = (id_ptr){m->key, m->value};
		const char *n = m->value != NULL ? m->value->name : NULL;
		for (int k = 0; n != NULL && k < N_STAT_KEYS; k++)
			if (!x->has_sid[k] && strcmp(n, stat_names[k]) == 0) {
				x->sid[k] = m->key;
				x->has_sid[k] = true;
			}
	}
	qsort(x->st_md, x->n_st_md, sizeof(id_ptr), cmp_id);
}

/* ---- stats --------------------------------------------------------------- */

typedef struct counts {
	size_t bad_stat, bad_event_md, bad_time, occurrences;
} counts;

static const Tensorflow__Profiler__XStat *stat_of(const xplane *x,
						  const Tensorflow__Profiler__XEvent *e,
						  enum stat_key k)
{
	if (!x->has_sid[k])
		return NULL;
	for (size_t i = 0; i < e->n_stats; i++)
		if (e->stats[i]->metadata_id == x->sid[k])
			return e->stats[i];
	return NULL;
}

/* A stat's text: a string, or the name of the stat metadata a ref names. */
static const char *stat_str(const xplane *x, const Tensorflow__Profiler__XStat *s)
{
	if (s == NULL)
		return NULL;
	if (s->value_case == TENSORFLOW__PROFILER__XSTAT__VALUE_STR_VALUE)
		return s->str_value;
	if (s->value_case == TENSORFLOW__PROFILER__XSTAT__VALUE_REF_VALUE) {
		const Tensorflow__Profiler__XStatMetadata *m =
		    find_id(x->st_md, x->n_st_md, (int64_t)s->ref_value);
		return m != NULL ? m->name : NULL;
	}
	return NULL;
}

static bool stat_int(const Tensorflow__Profiler__XStat *s, int64_t *out)
{
	if (s == NULL)
		return false;
	switch (s->value_case) {
	case TENSORFLOW__PROFILER__XSTAT__VALUE_INT64_VALUE:
		*out = s->int64_value;
		return true;
	case TENSORFLOW__PROFILER__XSTAT__VALUE_UINT64_VALUE:
		*out = (int64_t)s->uint64_value;
		return true;
	case TENSORFLOW__PROFILER__XSTAT__VALUE_DOUBLE_VALUE:
		if (!(s->double_value > -9.2e18 && s->double_value < 9.2e18))
			return false;
		*out = (int64_t)s->double_value;
		return true;
	default:
		return false;
	}
}

/* Stats naming no metadata, counted once per event. */
static void count_bad_stats(const xplane *x, const Tensorflow__Profiler__XEvent *e, counts *c)
{
	for (size_t i = 0; i < e->n_stats; i++) {
		const Tensorflow__Profiler__XStat *s = e->stats[i];
		if (find_id(x->st_md, x->n_st_md, s->metadata_id) == NULL ||
		    (s->value_case == TENSORFLOW__PROFILER__XSTAT__VALUE_REF_VALUE &&
		     find_id(x->st_md, x->n_st_md, (int64_t)s->ref_value) == NULL))
			c->bad_stat++;
	}
}

/* "dense/MatMul:MatMul": a TF op as TraceMe names it (the type one word). */
static bool is_tf_op(const char *name)
{
	const char *colon = strrchr(name, ':');
	if (colon == NULL || colon == name || colon[1] == '\0' || colon[-1] == ':')
		return false;
	for (const char *p = colon + 1; *p; p++)
		if (!g_ascii_isalnum(*p) && *p != '_')
			return false;
	return true;
}

/* ---- events -------------------------------------------------------------- */

static bool is_stream_line(const char *name, long *stream)
{
	if (!g_str_has_prefix(name, "Stream #"))
		return false;
	char *end = NULL;
	*stream = strtol(name + 8, &end, 10);
	return end != name + 8;
}

static uint32_t device_for(tl_xspace *xs, GHashTable *by_name, const xplane *x,
			   const Tensorflow__Profiler__XLine *l, tl_arena *arena)
{
	const char *pname = x->p->name != NULL && x->p->name[0] ? x->p->name : "/unnamed";
	const char *lname = l->name != NULL ? l->name : "";
	char *name;
	long stream;
	if (x->kind == P_HOST)
		name = g_strdup(pname);
	else if (is_stream_line(lname, &stream))
		name = g_strdup_printf("%s/stream:%ld", pname, stream);
	else
		name = g_strdup_printf("%s/%s", pname, lname[0] ? lname : "line");
	gpointer hit = g_hash_table_lookup(by_name, name);
	if (hit != NULL) {
		g_free(name);
		return GPOINTER_TO_UINT(hit) - 1;
	}
	xdev d = {.name = tl_arena_strdup(arena, name), .plane = x->p, .threads = x->kind == P_HOST};
	g_array_append_val(xs->devs, d);
	g_hash_table_insert(by_name, (gpointer)d.name, GUINT_TO_POINTER(xs->devs->len));
	g_free(name);
	return xs->devs->len - 1;
}

/* start and end of an event in ns, false when they leave the limit. */
static bool event_time(const Tensorflow__Profiler__XLine *l, const Tensorflow__Profiler__XEvent *e,
		       int64_t *start, int64_t *end)
{
	int64_t base = l->timestamp_ns;
	if (base <= -TIME_LIMIT_NS || base >= TIME_LIMIT_NS || e->offset_ps < 0 ||
	    e->duration_ps < 0)
		return false;
	int64_t off = e->offset_ps / 1000, dur_end;
	if (__builtin_add_overflow(e->offset_ps, e->duration_ps, &dur_end))
		return false;
	if (off >= TIME_LIMIT_NS || base + off >= TIME_LIMIT_NS)
		return false;
	*start = base + off;
	*end = base + dur_end / 1000;
	return *end < TIME_LIMIT_NS;
}

static int cmp_ev_start(const void *a, const void *b)
{
	const xev *x = a, *y = b;
	if (x->start != y->start)
		return x->start < y->start ? -1 : 1;
	if (x->end != y->end)
		return x->end > y->end ? -1 : 1; /* the longer one encloses */
	return (x->e > y->e) - (x->e < y->e);
}

/* Parents within one line's events ev[lo..hi), sorted by start. */
static void nest_line(xev *ev, size_t lo, size_t hi)
{
	GArray *stack = g_array_new(FALSE, FALSE, sizeof(int32_t));
	for (size_t i = lo; i < hi; i++) {
		while (stack->len > 0) {
			int32_t top = g_array_index(stack, int32_t, stack->len - 1);
			if (ev[top].end >= ev[i].end && ev[top].start <= ev[i].start)
				break;
			g_array_set_size(stack, stack->len - 1);
		}
		ev[i].parent = stack->len > 0 ? g_array_index(stack, int32_t, stack->len - 1) : -1;
		int32_t me = (int32_t)i;
		g_array_append_val(stack, me);
	}
	g_array_free(stack, TRUE);
}

static void add_line(tl_xspace *xs, GArray *out, GHashTable *by_name, uint32_t pi, uint32_t li,
		     tl_arena *arena, counts *c)
{
	const xplane *x = &xs->planes[pi];
	const Tensorflow__Profiler__XLine *l = x->p->lines[li];
	uint32_t dev = UINT32_MAX;
	bool steps = l->name != NULL && strcmp(l->name, "Steps") == 0;
	size_t first = out->len;
	for (size_t i = 0; i < l->n_events; i++) {
		const Tensorflow__Profiler__XEvent *e = l->events[i];
		if (e->data_case == TENSORFLOW__PROFILER__XEVENT__DATA_NUM_OCCURRENCES) {
			c->occurrences++;
			continue;
		}
		xev v = {.e = e, .plane = pi, .line = li, .parent = -1, .launcher = -1};
		if (!event_time(l, e, &v.start, &v.end)) {
			c->bad_time++;
			continue;
		}
		const Tensorflow__Profiler__XEventMetadata *m =
		    find_id(x->ev_md, x->n_ev_md, e->metadata_id);
		if (m == NULL) {
			c->bad_event_md++;
			char *n = g_strdup_printf("metadata#%" PRId64, e->metadata_id);
			v.name = tl_arena_strdup(arena, n);
			g_free(n);
		} else {
			v.name = m->display_name != NULL && m->display_name[0] ? m->display_name
										: m->name;
			if (v.name == NULL)
				v.name = "";
		}
		count_bad_stats(x, e, c);
		if (strcmp(v.name, "MemoryAllocation") == 0 ||
		    strcmp(v.name, "MemoryDeallocation") == 0)
			v.flags |= F_MEMORY;
		else if (is_tf_op(v.name))
			v.flags |= F_TFOP;
		if (steps)
			v.flags |= F_STEP;
		if (dev == UINT32_MAX)
			dev = device_for(xs, by_name, x, l, arena);
		v.dev = dev;
		g_array_append_val(out, v);
	}
	xev *ev = (xev *)(void *)out->data;
	qsort(ev + first, out->len - first, sizeof(xev), cmp_ev_start);
	nest_line(ev, first, out->len);
}

/* The TF op around host event i (itself when it is one), or -1. */
static int32_t enclosing_op(const xev *ev, int32_t i)
{
	for (int32_t k = i; k >= 0; k = ev[k].parent)
		if (ev[k].flags & F_TFOP)
			return k;
	return -1;
}

/* The "X:Op" a device event names in its tf_op or "level 0" stat, or NULL. */
static const char *kernel_tf_op(const xplane *x, const Tensorflow__Profiler__XEvent *e)
{
	const char *s = stat_str(x, stat_of(x, e, S_TF_OP));
	if (s != NULL && is_tf_op(s))
		return s;
	s = stat_str(x, stat_of(x, e, S_LEVEL0));
	return s != NULL && is_tf_op(s) ? s : NULL;
}

/* Device events to the TF op around the host event of the same
 * correlation_id. */
static void link_launches(tl_xspace *xs)
{
	GHashTable *host = g_hash_table_new(g_int64_hash, g_int64_equal);
	int64_t *keys = g_new(int64_t, xs->n_ev + 1);
	for (size_t i = 0; i < xs->n_ev; i++) {
		const xplane *x = &xs->planes[xs->ev[i].plane];
		if (x->kind != P_HOST || !stat_int(stat_of(x, xs->ev[i].e, S_CORRELATION), &keys[i]))
			continue;
		if (!g_hash_table_contains(host, &keys[i]))
			g_hash_table_insert(host, &keys[i], GSIZE_TO_POINTER(i + 1));
	}
	for (size_t i = 0; i < xs->n_ev; i++) {
		const xplane *x = &xs->planes[xs->ev[i].plane];
		int64_t corr;
		if (x->kind != P_DEVICE || !stat_int(stat_of(x, xs->ev[i].e, S_CORRELATION), &corr))
			continue;
		gpointer hit = g_hash_table_lookup(host, &corr);
		if (hit == NULL)
			continue;
		int32_t h = (int32_t)(GPOINTER_TO_SIZE(hit) - 1);
		int32_t op = enclosing_op(xs->ev, h);
		xs->ev[i].launcher = op >= 0 ? op : h;
		/* TF 2.2 to 2.4 trace no op around a launch: the launch is the
		 * op's time on the host, named by the TF op its kernel names. */
		if (op < 0 && xs->ev[h].as_op == NULL)
			xs->ev[h].as_op = kernel_tf_op(x, xs->ev[i].e);
	}
	g_hash_table_destroy(host);
	g_free(keys);
}

/* ---- steps --------------------------------------------------------------- */

static int cmp_step(const void *a, const void *b)
{
	const xstep *x = a, *y = b;
	return (x->start > y->start) - (x->start < y->start);
}

static void find_steps(tl_xspace *xs, tl_arena *arena)
{
	size_t n = 0;
	for (size_t i = 0; i < xs->n_ev; i++)
		n += (xs->ev[i].flags & F_STEP) != 0;
	xs->steps = g_new0(xstep, n + 1);
	for (size_t i = 0; i < xs->n_ev; i++) {
		const xev *v = &xs->ev[i];
		if (!(v->flags & F_STEP))
			continue;
		const xplane *x = &xs->planes[v->plane];
		xstep *s = &xs->steps[xs->n_steps++];
		s->start = v->start;
		s->end = v->end;
		s->has_group = stat_int(stat_of(x, v->e, S_GROUP), &s->group);
		const char *name = stat_str(x, stat_of(x, v->e, S_STEP_NAME));
		s->name = name != NULL && name[0] ? name : v->name;
	}
	qsort(xs->steps, xs->n_steps, sizeof(xstep), cmp_step);
	size_t ops = 0;
	for (size_t i = 0; i < xs->n_ev; i++)
		ops += !(xs->ev[i].flags & F_MEMORY);
	xs->n_runs = ops == 0 ? 0 : xs->n_steps >= 2 ? xs->n_steps : 1;
	if (xs->n_runs <= 1)
		return;
	GHashTable *by_group = g_hash_table_new(g_int64_hash, g_int64_equal);
	for (size_t s = 0; s < xs->n_steps; s++)
		if (xs->steps[s].has_group)
			g_hash_table_insert(by_group, &xs->steps[s].group, GSIZE_TO_POINTER(s + 1));
	for (size_t i = 0; i < xs->n_ev; i++) {
		xev *v = &xs->ev[i];
		const xplane *x = &xs->planes[v->plane];
		int64_t g;
		gpointer hit = NULL;
		if (stat_int(stat_of(x, v->e, S_GROUP), &g))
			hit = g_hash_table_lookup(by_group, &g);
		if (hit != NULL) {
			v->run = (uint32_t)(GPOINTER_TO_SIZE(hit) - 1);
			continue;
		}
		/* the last step starting at or before it, else the first */
		size_t lo = 0, hi = xs->n_steps;
		while (lo < hi) {
			size_t mid = lo + (hi - lo) / 2;
			if (xs->steps[mid].start <= v->start)
				lo = mid + 1;
			else
				hi = mid;
		}
		v->run = lo > 0 ? (uint32_t)(lo - 1) : 0;
	}
	g_hash_table_destroy(by_group);
	(void)arena;
}

/* ---- open ---------------------------------------------------------------- */

static void warn_counts(const char *input, const counts *c)
{
	if (c->bad_stat)
		tl_warn("xspace-stat", "%s: %zu stats name no stat metadata (ignored)", input,
			c->bad_stat);
	if (c->bad_event_md)
		tl_warn("xspace-event-metadata",
			"%s: %zu events name no event metadata (named metadata#ID)", input,
			c->bad_event_md);
	if (c->bad_time)
		tl_warn("xspace-time",
			"%s: %zu events with times beyond +-2^61 ns or negative (skipped)", input,
			c->bad_time);
	if (c->occurrences)
		tl_warn("xspace-occurrences",
			"%s: %zu aggregate events (num_occurrences, no time) skipped", input,
			c->occurrences);
}

int tl_xspace_open(tl_xspace **out, uint8_t *data, size_t len, tl_arena *arena, const char *name,
		   tl_error *err)
{
	ProtobufCMessage *msg = NULL;
	if (tl_pbdecode(&tensorflow__profiler__xspace__descriptor, data, len, TL_PBDECODE_ALL, 0,
			arena, &msg, err) < 0)
		return tl_error_set(err, "malformed XSpace (protobuf decoding failed)");
	tl_xspace *xs = g_new0(tl_xspace, 1);
	xs->space = (const Tensorflow__Profiler__XSpace *)msg;
	xs->input = tl_arena_strdup(arena, name != NULL ? name : "");
	xs->planes = g_new0(xplane, xs->space->n_planes + 1);
	xs->devs = g_array_new(FALSE, FALSE, sizeof(xdev));
	xs->links = g_ptr_array_new();
	GArray *ev = g_array_new(FALSE, FALSE, sizeof(xev));
	GHashTable *by_name = g_hash_table_new(g_str_hash, g_str_equal);
	counts c = {0};
	for (size_t p = 0; p < xs->space->n_planes; p++) {
		index_plane(&xs->planes[p], xs->space->planes[p]);
		for (size_t l = 0; l < xs->space->planes[p]->n_lines; l++)
			add_line(xs, ev, by_name, (uint32_t)p, (uint32_t)l, arena, &c);
	}
	g_hash_table_destroy(by_name);
	xs->n_ev = ev->len;
	xs->ev = (xev *)(void *)g_array_free(ev, FALSE);
	warn_counts(xs->input, &c);
	link_launches(xs);
	find_steps(xs, arena);
	*out = xs;
	return 0;
}

void tl_xspace_free(tl_xspace *xs)
{
	if (xs == NULL)
		return;
	for (size_t p = 0; p < xs->space->n_planes; p++) {
		g_free(xs->planes[p].ev_md);
		g_free(xs->planes[p].st_md);
	}
	g_free(xs->planes);
	g_free(xs->ev);
	g_free(xs->steps);
	g_array_free(xs->devs, TRUE);
	g_ptr_array_free(xs->links, TRUE);
	g_free(xs);
}

size_t tl_xspace_n_runs(const tl_xspace *xs)
{
	return xs->n_runs;
}

size_t tl_xspace_links(const tl_xspace *xs, const Tensorflow__NodeExecStats *const **pairs)
{
	*pairs = (const Tensorflow__NodeExecStats *const *)xs->links->pdata;
	return xs->links->len / 2;
}

/* ---- runs ---------------------------------------------------------------- */

/* "cudnn-conv.1" -> "cudnn-conv": an HLO instruction's kind. */
static const char *hlo_kind(tl_arena *arena, const char *hlo)
{
	size_t n = strlen(hlo);
	const char *dot = strrchr(hlo, '.');
	if (dot != NULL && dot[1] != '\0' && strspn(dot + 1, "0123456789") == strlen(dot + 1))
		n = (size_t)(dot - hlo);
	return tl_arena_strndup(arena, hlo, n);
}

/* node_name "X:Op" of a device event: the TF op it ran for. */
static const char *device_node_name(const tl_xspace *xs, const xev *v, tl_arena *arena)
{
	const xplane *x = &xs->planes[v->plane];
	const char *s = kernel_tf_op(x, v->e);
	if (s != NULL)
		return tl_arena_strdup(arena, s);
	if (v->launcher >= 0 && (xs->ev[v->launcher].flags & F_TFOP))
		return tl_arena_strdup(arena, xs->ev[v->launcher].name);
	const char *hlo = stat_str(x, stat_of(x, v->e, S_HLO_OP));
	if (hlo != NULL && hlo[0] != '\0') {
		/* JAX: the op's path names the node, the HLO kind its type */
		char *n = g_strdup_printf("%s:%s", hlo, hlo_kind(arena, hlo));
		char *out = tl_arena_strdup(arena, n);
		g_free(n);
		return out;
	}
	return "";
}

static void fill_exec(const tl_xspace *xs, const xev *v, Tensorflow__NodeExecStats *ns,
		      tl_arena *arena)
{
	tensorflow__node_exec_stats__init(ns);
	const xdev *d = &g_array_index(xs->devs, xdev, v->dev);
	const Tensorflow__Profiler__XLine *l = xs->planes[v->plane].p->lines[v->line];
	ns->all_start_nanos = v->start;
	ns->all_start_micros = v->start / 1000;
	ns->all_end_rel_nanos = v->end - v->start;
	ns->all_end_rel_micros = v->end / 1000 - ns->all_start_micros;
	ns->op_end_rel_nanos = ns->all_end_rel_nanos;
	ns->op_end_rel_micros = ns->all_end_rel_micros;
	ns->thread_id = d->threads ? (uint32_t)l->id : 0;
	const xplane *x = &xs->planes[v->plane];
	if (x->kind == P_DEVICE && g_str_has_prefix(l->name != NULL ? l->name : "", "Stream #")) {
		ns->node_name = (char *)device_node_name(xs, v, arena);
		ns->timeline_label = tl_arena_strdup(arena, v->name);
		return;
	}
	const char *name = v->as_op != NULL ? v->as_op : v->name;
	const char *colon = (v->flags & F_TFOP) || v->as_op != NULL ? strrchr(name, ':') : NULL;
	size_t nlen = colon != NULL ? (size_t)(colon - name) : strlen(name);
	ns->node_name = tl_arena_strndup(arena, name, nlen);
	char *label = g_strdup_printf("%s = %s()", ns->node_name, colon != NULL ? colon + 1 : name);
	ns->timeline_label = tl_arena_strdup(arena, label);
	g_free(label);
}

/* thread_names of a host device: its lines that have events in the run. */
static void name_threads(const tl_xspace *xs, const xdev *d, Tensorflow__DeviceStepStats *ds,
			 tl_arena *arena)
{
	const Tensorflow__Profiler__XPlane *p = d->plane;
	ds->thread_names = tl_arena_alloc(arena, (p->n_lines + 1) * sizeof *ds->thread_names);
	for (size_t i = 0; i < p->n_lines; i++) {
		const Tensorflow__Profiler__XLine *l = p->lines[i];
		Tensorflow__DeviceStepStats__ThreadNamesEntry *t = tl_arena_alloc(arena, sizeof *t);
		tensorflow__device_step_stats__thread_names_entry__init(t);
		t->key = (uint32_t)l->id;
		const char *n = l->display_name != NULL && l->display_name[0] ? l->display_name
									       : l->name;
		t->value = tl_arena_strdup(arena, n != NULL ? n : "");
		ds->thread_names[ds->n_thread_names++] = t;
	}
	(void)xs;
}

int tl_xspace_run(tl_xspace *xs, size_t run, const char *base, tl_arena *arena,
		  Tensorflow__RunMetadata **meta_out, const char **label, tl_error *err)
{
	size_t nd = xs->devs->len;
	uint32_t *count = g_new0(uint32_t, nd + 1);
	int32_t *slot = g_new(int32_t, nd + 1);
	for (size_t i = 0; i < xs->n_ev; i++)
		if (xs->ev[i].run == run && !(xs->ev[i].flags & F_MEMORY))
			count[xs->ev[i].dev]++;
	Tensorflow__RunMetadata *meta = tl_arena_alloc(arena, sizeof *meta);
	tensorflow__run_metadata__init(meta);
	Tensorflow__StepStats *ss = tl_arena_alloc(arena, sizeof *ss);
	tensorflow__step_stats__init(ss);
	meta->step_stats = ss;
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
			name_threads(xs, xd, ds, arena);
		slot[d] = (int32_t)ss->n_dev_stats;
		ss->dev_stats[ss->n_dev_stats++] = ds;
	}
	Tensorflow__NodeExecStats **ns_of = g_new0(Tensorflow__NodeExecStats *, xs->n_ev + 1);
	for (size_t i = 0; i < xs->n_ev; i++) {
		const xev *v = &xs->ev[i];
		if (v->run != run || (v->flags & F_MEMORY))
			continue;
		Tensorflow__DeviceStepStats *ds = ss->dev_stats[slot[v->dev]];
		Tensorflow__NodeExecStats *ns = tl_arena_alloc(arena, sizeof *ns);
		fill_exec(xs, v, ns, arena);
		ds->node_stats[ds->n_node_stats++] = ns;
		ns_of[i] = ns;
	}
	g_ptr_array_set_size(xs->links, 0);
	for (size_t i = 0; i < xs->n_ev; i++) {
		const xev *v = &xs->ev[i];
		if (ns_of[i] == NULL || v->launcher < 0 || ns_of[v->launcher] == NULL)
			continue;
		g_ptr_array_add(xs->links, ns_of[i]);
		g_ptr_array_add(xs->links, ns_of[v->launcher]);
	}
	g_free(ns_of);
	g_free(count);
	g_free(slot);
	char *l = xs->n_runs > 1 ? g_strdup_printf("%s step %s", base, xs->steps[run].name)
				 : g_strdup(base);
	*label = tl_arena_strdup(arena, l);
	g_free(l);
	*meta_out = meta;
	(void)err;
	return 0;
}

/* ---- memory -------------------------------------------------------------- */

/* "GPU_0_bfc" -> /device:GPU:0; other allocators stay on their plane. */
static const char *allocator_device(const char *alloc, const char *plane, tl_arena *arena)
{
	unsigned n;
	char tail[8];
	if (alloc != NULL && sscanf(alloc, "GPU_%u_%7s", &n, tail) == 2) {
		char *d = g_strdup_printf("/device:GPU:%u", n);
		char *out = tl_arena_strdup(arena, d);
		g_free(d);
		return out;
	}
	return tl_arena_strdup(arena, plane != NULL ? plane : "");
}

static void fill_alloc(const tl_xspace *xs, const xev *v, tl_alloc_event *a, tl_arena *arena)
{
	const xplane *x = &xs->planes[v->plane];
	const Tensorflow__Profiler__XEvent *e = v->e;
	const char *alloc = stat_str(x, stat_of(x, e, S_ALLOCATOR));
	int64_t bytes = 0, addr = 0;
	if (!stat_int(stat_of(x, e, S_ALLOCATION_BYTES), &bytes))
		stat_int(stat_of(x, e, S_REQUESTED_BYTES), &bytes);
	stat_int(stat_of(x, e, S_ADDR), &addr);
	*a = (tl_alloc_event){.t_ns = v->start,
			      .device = allocator_device(alloc, x->p->name, arena),
			      .allocator = tl_arena_strdup(arena, alloc != NULL ? alloc : ""),
			      .addr = (uint64_t)addr,
			      .bytes = strcmp(v->name, "MemoryDeallocation") == 0 ? -bytes : bytes,
			      .total_allocated = -1,
			      .total_reserved = -1,
			      .peak = -1};
	if (a->allocator[0] == '\0')
		a->allocator = a->device;
	stat_int(stat_of(x, e, S_BYTES_ALLOCATED), &a->total_allocated);
	stat_int(stat_of(x, e, S_RESERVED), &a->total_reserved);
	stat_int(stat_of(x, e, S_PEAK), &a->peak);
	const char *op = stat_str(x, stat_of(x, e, S_TF_OP));
	if (op == NULL || op[0] == '\0') {
		int32_t k = v->parent >= 0 ? enclosing_op(xs->ev, v->parent) : -1;
		op = k >= 0 ? xs->ev[k].name : NULL;
	}
	a->op = op != NULL ? tl_arena_strdup(arena, op) : NULL;
}

static int cmp_alloc_order(const void *a, const void *b, void *ctx)
{
	const xev *ev = ctx;
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
	if (ev[x].start != ev[y].start)
		return ev[x].start < ev[y].start ? -1 : 1;
	return (x > y) - (x < y); /* one instant: the file's order */
}

int tl_xspace_allocs(tl_xspace *xs, tl_arena *arena, tl_alloc_events *out)
{
	uint32_t *order = g_new(uint32_t, xs->n_ev + 1);
	size_t n = 0;
	for (size_t i = 0; i < xs->n_ev; i++)
		if (xs->ev[i].flags & F_MEMORY)
			order[n++] = (uint32_t)i;
	qsort_r(order, n, sizeof *order, cmp_alloc_order, xs->ev);
	out->ev = tl_arena_alloc(arena, (n + 1) * sizeof *out->ev);
	out->n = n;
	out->clock = "the profile's clock";
	for (size_t k = 0; k < n; k++)
		fill_alloc(xs, &xs->ev[order[k]], &out->ev[k], arena);
	g_free(order);
	return 0;
}

int tl_xspace_alloc_events(const uint8_t *data, size_t len, tl_arena *arena,
			   tl_alloc_events *out, tl_error *err)
{
	uint8_t *own = tl_arena_alloc(arena, len + 1);
	if (len > 0)
		memcpy(own, data, len);
	tl_xspace *xs = NULL;
	if (tl_xspace_open(&xs, own, len, arena, "XSpace", err) < 0)
		return -1;
	int rc = tl_xspace_allocs(xs, arena, out);
	tl_xspace_free(xs);
	return rc;
}
