#include "io/xspace.h"

#include "base/crew.h"
#include "base/runsort.h"
#include "base/limits.h"
#include "io/pbdecode.h"
#include "io/tf2names.h"
#include "io/xspace_wire.h"

#include <glib.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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
    [S_CORRELATION] = TL_TF2_STAT_CORRELATION,
    [S_TF_OP] = TL_TF2_STAT_TF_OP,
    [S_LEVEL0] = TL_TF2_STAT_LEVEL0,
    [S_HLO_OP] = TL_TF2_STAT_HLO_OP,
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

/* Metadata by id: a table where the ids are small (as the profilers write
 * them, 1..n), else sorted pairs searched. */
typedef struct id_map {
	id_ptr *v; /* sorted by id */
	size_t n;
	const void **dense; /* [0, n_dense) or NULL */
	size_t n_dense;
} id_map;

typedef struct xplane {
	const tl_xspace_wire_plane *p;
	plane_kind kind;
	id_map ev_md, st_md;
	int64_t sid[N_STAT_KEYS];
	bool has_sid[N_STAT_KEYS];
	size_t line_base;    /* the lines of the planes before it */
	const uint8_t *data; /* the XSpace's bytes: xev.raw_off counts from here */
	uint8_t *ev_flags;   /* where ev_md is dense: per id, name_flags of its name */
	uint8_t *st_role;    /* where st_md is dense: per id, its ST_* bits */
	uint8_t *mem_mark;   /* where ev_md is dense and allocator events are not kept:
			      * per id, whether it names one (their lines' slots
			      * are counted without them) */
} xplane;

enum ev_flags {
	F_TFOP = 1,	   /* "name:Op" */
	F_MEMORY = 2,	   /* MemoryAllocation / MemoryDeallocation */
	F_STEP = 4,	   /* on a "Steps" line */
	F_CORR = 8,	   /* has a correlation_id */
	F_GROUP = 16,	   /* has a group_id */
	F_AS_OP = 32,	   /* a host launch outside any TF op: tl_xspace.as_op names its op */
	F_LAUNCHED = 64,   /* a device event whose launcher is known (xev.launcher) */
	F_LINKED = 128,	   /* F_LAUNCHED, its launcher an op of the same run: a launch link */
	F_TFOP_SEEN = 256, /* scan_stat met its first tf_op stat */
			   /* bits 9 to 31: that stat's place among the event's stats,
			    * plus one (0: not known), for kernel_tf_op_in */
};

/* One per event of the XSpace (a 100 MB file holds 1.8 million): kept to
 * 64 bytes (each byte of it is a byte of fresh memory the kernel zeroes),
 * what few events have lives beside it (tl_xspace.as_op). */
typedef struct xev {
	const char *name;
	int64_t start, end; /* ns */
	union {
		int64_t corr;	  /* its correlation_id stat, when F_CORR; read by
				   * link_launches alone, which then sets launcher */
		int32_t launcher; /* F_LAUNCHED: the TF op that launched it */
	};
	int64_t group;	  /* its group_id stat, when F_GROUP */
	uint32_t raw_off; /* the XEvent's stats (tl_xspace_wire_event) from
			   * xplane.data: an XSpace is under 2 GiB (one
			   * protobuf message) */
	uint32_t raw_len;
	uint32_t line;	/* of all planes' lines: its device is tl_xspace.line_dev[line],
			 * its plane tl_xspace.line_plane[line] */
	int32_t parent; /* the innermost event around it on its line, or -1 */
	uint32_t run;
	uint32_t flags;
} xev;
_Static_assert(sizeof(xev) == 64, "xev is 64 bytes");

typedef struct xdev {
	const char *name;
	bool threads; /* a host plane: lines are threads */
} xdev;

typedef struct xstep {
	int64_t start, end, group;
	bool has_group;
	const char *name;
} xstep;

typedef struct counts {
	size_t bad_stat, bad_event_md, bad_time, occurrences;
	size_t bad_events;  /* events whose bytes or stats do not decode: skipped */
	size_t cut_lines;   /* lines a field that does not decode cut short */
	size_t bad_planes;  /* planes whose fields do not decode: left out */
	size_t mem_skipped; /* allocator events not kept (tl_xspace.keep_allocs false) */
	bool mem_renamed;   /* one of them a step_name made another: read again, kept */
} counts;

struct tl_xspace {
	tl_xspace_wire space;
	tl_arena *arena; /* the caller's: the events and their tables live there */
	const char *input;
	const char *host; /* or NULL */
	xplane *planes;
	xev *ev;
	size_t n_ev;
	GArray *devs; /* xdev */
	xstep *steps;
	size_t n_steps;
	size_t n_runs;
	uint32_t *run_order, *run_first; /* run r's events: run_order[run_first[r] ..
					  * run_first[r + 1]), in event order */
	GHashTable *as_op; /* event index -> the "X:Op" a host launch outside any TF op
			    * launched for (F_AS_OP) */
	/* Filled as the lines are read, so the passes after reading touch the
	 * events they need, not all of them: in event order, the host and
	 * device events with a correlation_id, and the events of Steps lines. */
	GArray *host_corr, *dev_corr, *step_ev; /* uint32_t */
	size_t n_ops;				/* events that are no allocator event */
	bool keep_allocs;     /* allocator events kept (tl_xspace_allocs); else counted alone */
	size_t n_lines;	      /* of all planes */
	uint32_t *line_dev;   /* per line (xplane.line_base + line): its device, once it
			       * has events */
	uint32_t *line_plane; /* per line: its plane */
	uint8_t *line_stream; /* per line: a device plane's "Stream #N" line (kernels) */
	counts c;	      /* what reading met, said by tl_xspace_warn */
};

/* ---- metadata ----------------------------------------------------------- */

static int cmp_id(const void *a, const void *b)
{
	int64_t x = ((const id_ptr *)a)->id, y = ((const id_ptr *)b)->id;
	return (x > y) - (x < y);
}

static const void *find_id_sparse(const id_map *m, int64_t id)
{
	id_ptr key = {.id = id};
	const id_ptr *hit = bsearch(&key, m->v, m->n, sizeof *m->v, cmp_id);
	return hit != NULL ? hit->p : NULL;
}

/* The table's case inline: it is met per event and per ref stat. */
static inline const void *find_id(const id_map *m, int64_t id)
{
	if (m->dense != NULL)
		return id >= 0 && (uint64_t)id < m->n_dense ? m->dense[id] : NULL;
	return find_id_sparse(m, id);
}

static void map_finish(id_map *m)
{
	qsort(m->v, m->n, sizeof(id_ptr), cmp_id);
	if (m->n == 0 || m->v[0].id < 0 || (uint64_t)m->v[m->n - 1].id >= 4 * m->n + 1024)
		return;
	m->n_dense = (size_t)m->v[m->n - 1].id + 1;
	m->dense = g_new0(const void *, m->n_dense);
	for (size_t i = 0; i < m->n; i++)
		if (m->dense[m->v[i].id] ==
		    NULL) /* a repeated key: the first, as bsearch may not */
			m->dense[m->v[i].id] = m->v[i].p;
}

static void map_free(id_map *m)
{
	g_free(m->v);
	g_free(m->dense);
}

static plane_kind kind_of_plane(const char *name)
{
	if (g_str_has_prefix(name, "/host:"))
		return P_HOST;
	if (g_str_has_prefix(name, "/device:"))
		return P_DEVICE;
	return P_OTHER;
}

static uint32_t name_flags(const char *name);

#define TFOP_AT_SHIFT 9
#define TFOP_AT_MAX ((1u << (32 - TFOP_AT_SHIFT)) - 1)

/* What a stat metadata id is to scan_stats: named (it names metadata
 * with a name), and which of the stats it reads it is. */
enum { ST_NAMED = 1, ST_CORR = 2, ST_GROUP = 4, ST_STEP = 8, ST_TFOP = 16 };

/* Whether stat metadata id `id` is the one of the stats named `k`. */
static bool stat_is(const xplane *x, enum stat_key k, int64_t id)
{
	return x->has_sid[k] && x->sid[k] == id;
}

static void index_plane(xplane *x, const tl_xspace_wire_plane *p, bool keep_allocs, tl_arena *arena)
{
	x->p = p;
	x->kind = kind_of_plane(p->name);
	x->ev_md.v = g_new(id_ptr, p->n_ev_md + 1);
	for (size_t i = 0; i < p->n_ev_md; i++)
		x->ev_md.v[x->ev_md.n++] = (id_ptr){p->ev_md[i].id, p->ev_md[i].name};
	map_finish(&x->ev_md);
	if (x->ev_md.dense != NULL) {
		x->ev_flags = g_new0(uint8_t, x->ev_md.n_dense);
		for (size_t i = 0; i < x->ev_md.n_dense; i++)
			if (x->ev_md.dense[i] != NULL)
				x->ev_flags[i] = (uint8_t)name_flags(x->ev_md.dense[i]);
		if (!keep_allocs) {
			x->mem_mark = g_new(uint8_t, x->ev_md.n_dense);
			for (size_t i = 0; i < x->ev_md.n_dense; i++)
				x->mem_mark[i] = (x->ev_flags[i] & F_MEMORY) != 0;
		}
	}
	x->st_md.v = g_new(id_ptr, p->n_st_md + 1);
	for (size_t i = 0; i < p->n_st_md; i++) {
		const char *n = p->st_md[i].name;
		x->st_md.v[x->st_md.n++] = (id_ptr){p->st_md[i].id, n};
		for (int k = 0; n != NULL && k < N_STAT_KEYS; k++)
			if (!x->has_sid[k] && strcmp(n, stat_names[k]) == 0) {
				x->sid[k] = p->st_md[i].id;
				x->has_sid[k] = true;
			}
	}
	map_finish(&x->st_md);
	if (x->st_md.dense != NULL) {
		x->st_role = g_new0(uint8_t, x->st_md.n_dense);
		for (size_t i = 0; i < x->st_md.n_dense; i++) {
			uint8_t r = x->st_md.dense[i] != NULL ? ST_NAMED : 0;
			r |= stat_is(x, S_CORRELATION, (int64_t)i) ? ST_CORR : 0;
			r |= stat_is(x, S_GROUP, (int64_t)i) ? ST_GROUP : 0;
			r |= stat_is(x, S_STEP_NAME, (int64_t)i) ? ST_STEP : 0;
			r |= stat_is(x, S_TF_OP, (int64_t)i) ? ST_TFOP : 0;
			x->st_role[i] = r;
		}
	}
}

/* ---- stats --------------------------------------------------------------- */

static tl_xspace_wire_event event_of(const xplane *x, const xev *v)
{
	return (tl_xspace_wire_event){.raw = x->data + v->raw_off, .raw_len = v->raw_len};
}

static const xplane *plane_of(const tl_xspace *xs, const xev *v)
{
	return &xs->planes[xs->line_plane[v->line]];
}

/* Line `g` of all planes' lines. */
static const tl_xspace_wire_line *line_at(const tl_xspace *xs, uint32_t g)
{
	const xplane *x = &xs->planes[xs->line_plane[g]];
	return &x->p->lines[g - x->line_base];
}

static const tl_xspace_wire_line *line_of(const tl_xspace *xs, const xev *v)
{
	return line_at(xs, v->line);
}

/* The first stat of an event named `k`: false when it has none. */
static bool stat_get(const xplane *x, const xev *v, enum stat_key k, tl_xspace_wire_stat *st)
{
	if (!x->has_sid[k])
		return false;
	tl_xspace_wire_event ev = event_of(x, v);
	size_t pos = 0;
	while (tl_xspace_wire_next_stat(&ev, &pos, st) > 0)
		if (st->metadata_id == x->sid[k])
			return true;
	return false;
}

/* A stat's text: a string (copied into the arena), or the name of the stat
 * metadata a ref names; NULL for other values. */
static const char *stat_str_in(const xplane *x, const tl_xspace_wire_stat *st, tl_arena *arena)
{
	if (st->kind == TL_XSTAT_STR)
		return tl_arena_strndup(arena, (const char *)st->s, st->s_len);
	if (st->kind == TL_XSTAT_REF)
		return find_id(&x->st_md, (int64_t)st->u);
	return NULL;
}

/* Every stat the reader knows of an event in one pass: st[k] is the first
 * named k, kind TL_XSTAT_NONE where there is none. */
static void stats_all(const xplane *x, const xev *v, tl_xspace_wire_stat st[N_STAT_KEYS])
{
	memset(st, 0, N_STAT_KEYS * sizeof *st);
	tl_xspace_wire_event ev = event_of(x, v);
	tl_xspace_wire_stat s;
	size_t pos = 0;
	while (tl_xspace_wire_next_stat(&ev, &pos, &s) > 0)
		for (int k = 0; k < N_STAT_KEYS; k++)
			if (x->has_sid[k] && s.metadata_id == x->sid[k] &&
			    st[k].kind == TL_XSTAT_NONE)
				st[k] = s;
}

/* The text of an event's stat `k` (in `arena`), or NULL. */
static const char *stat_text(const xplane *x, const xev *v, enum stat_key k, tl_arena *arena)
{
	tl_xspace_wire_stat st;
	return stat_get(x, v, k, &st) ? stat_str_in(x, &st, arena) : NULL;
}

static bool stat_int(const tl_xspace_wire_stat *st, int64_t *out)
{
	switch (st->kind) {
	case TL_XSTAT_INT64:
	case TL_XSTAT_UINT64:
		*out = (int64_t)st->u;
		return true;
	case TL_XSTAT_DOUBLE: {
		double d;
		memcpy(&d, &st->u, sizeof d);
		if (!(d > -9.2e18 && d < 9.2e18)) /* int64's range, and NaN */
			return false;
		*out = (int64_t)d;
		return true;
	}
	default:
		return false;
	}
}

/* One stat of scan_stats'. */
/* Stat k of an event (k SIZE_MAX where its place is not known). */
static inline __attribute__((always_inline)) void scan_stat(const xplane *x, xev *v,
							    const tl_xspace_wire_stat *st, size_t k,
							    counts *c, const char **step,
							    tl_arena *arena)
{
	int64_t id = st->metadata_id;
	unsigned role;
	if (x->st_role != NULL)
		role = id >= 0 && (uint64_t)id < x->st_md.n_dense ? x->st_role[id] : 0;
	else
		role = (find_id(&x->st_md, id) != NULL ? ST_NAMED : 0) |
		       (stat_is(x, S_CORRELATION, id) ? ST_CORR : 0) |
		       (stat_is(x, S_GROUP, id) ? ST_GROUP : 0) |
		       (stat_is(x, S_STEP_NAME, id) ? ST_STEP : 0) |
		       (stat_is(x, S_TF_OP, id) ? ST_TFOP : 0);
	/* the first tf_op stat's place among the event's stats, for
	 * kernel_tf_op_in (known where they were decoded with the event) */
	if ((role & ST_TFOP) && !(v->flags & F_TFOP_SEEN)) {
		v->flags |= F_TFOP_SEEN;
		if (k < TFOP_AT_MAX)
			v->flags |= (uint32_t)(k + 1) << TFOP_AT_SHIFT;
	}
	if (!(role & ST_NAMED) ||
	    (st->kind == TL_XSTAT_REF && find_id(&x->st_md, (int64_t)st->u) == NULL))
		c->bad_stat++;
	else if ((role & ST_CORR) && stat_int(st, &v->corr))
		v->flags |= F_CORR;
	else if ((role & ST_GROUP) && stat_int(st, &v->group))
		v->flags |= F_GROUP;
	else if (role & ST_STEP)
		*step = stat_str_in(x, st, arena);
}

/* One pass over an event's stats (those decoded with it, then any past
 * them): those naming no metadata counted, the correlation and group ids
 * kept, *step the text of its step_name stat (or NULL). False, and nothing
 * counted, for an event one of whose stats is no XStat: it is skipped. */
static bool scan_stats(const xplane *x, xev *v, const tl_xspace_wire_stats *stats, counts *c,
		       const char **step, tl_arena *arena)
{
	*step = NULL;
	if (stats->bad)
		return false;
	if (stats->all) {
		for (size_t k = 0; k < stats->n; k++)
			scan_stat(x, v, &stats->st[k], k, c, step, arena);
		return true;
	}
	/* more than were decoded with it: all checked first, so that a bad
	 * one costs the event and nothing else */
	tl_xspace_wire_event ev = event_of(x, v);
	tl_xspace_wire_stat st;
	size_t pos = 0;
	int rc;
	while ((rc = tl_xspace_wire_next_stat(&ev, &pos, &st)) > 0)
		;
	if (rc < 0)
		return false;
	pos = 0;
	while (tl_xspace_wire_next_stat(&ev, &pos, &st) > 0)
		scan_stat(x, v, &st, SIZE_MAX, c, step, arena);
	return true;
}

/* "dense/MatMul:MatMul": a TF op as TraceMe names it (io/tf2names.h). */
static bool is_tf_op(const char *name)
{
	return tl_tf2_is_tf_op(name, strlen(name));
}

/* What an event's name makes it: F_MEMORY, F_TFOP or neither. */
static uint32_t name_flags(const char *name)
{
	if (strcmp(name, "MemoryAllocation") == 0 || strcmp(name, "MemoryDeallocation") == 0)
		return F_MEMORY;
	return is_tf_op(name) ? F_TFOP : 0;
}

/* ---- events -------------------------------------------------------------- */

static uint32_t device_for(tl_xspace *xs, GHashTable *by_name, const xplane *x,
			   const tl_xspace_wire_line *l, tl_arena *arena)
{
	const char *pname = x->p->name[0] ? x->p->name : "/unnamed";
	const char *lname = l->name;
	char *name;
	long stream;
	if (x->kind == P_HOST)
		name = g_strdup(pname);
	else if (tl_tf2_stream_line(lname, &stream))
		name = g_strdup_printf("%s/stream:%ld", pname, stream);
	else
		name = g_strdup_printf("%s/%s", pname, lname[0] ? lname : "line");
	gpointer hit = g_hash_table_lookup(by_name, name);
	if (hit != NULL) {
		g_free(name);
		return GPOINTER_TO_UINT(hit) - 1;
	}
	xdev d = {.name = tl_arena_strdup(arena, name), .threads = x->kind == P_HOST};
	g_array_append_val(xs->devs, d);
	g_hash_table_insert(by_name, (gpointer)d.name, GUINT_TO_POINTER(xs->devs->len));
	g_free(name);
	return xs->devs->len - 1;
}

/* start and end of an event in ns, false when they leave the limit (the
 * model's, base/limits.h). The format bounds the rest: offset_ps counts from
 * the line's timestamp_ns, which xplane.proto defines as the line's start,
 * and a duration is no less than 0; an event before its line or of negative
 * length is damage. */
static bool event_time(const tl_xspace_wire_line *l, const tl_xspace_wire_event *e, int64_t *start,
		       int64_t *end)
{
	int64_t base = l->timestamp_ns;
	if (base <= -TL_TIME_LIMIT_NS || base >= TL_TIME_LIMIT_NS || e->offset_ps < 0 ||
	    e->duration_ps < 0)
		return false;
	int64_t off = e->offset_ps / 1000, dur_end;
	if (__builtin_add_overflow(e->offset_ps, e->duration_ps, &dur_end))
		return false;
	if (off >= TL_TIME_LIMIT_NS || base + off >= TL_TIME_LIMIT_NS)
		return false;
	*start = base + off;
	*end = base + dur_end / 1000;
	return *end < TL_TIME_LIMIT_NS;
}

static int cmp_ev_start(const void *a, const void *b)
{
	const xev *x = a, *y = b;
	if (x->start != y->start)
		return x->start < y->start ? -1 : 1;
	if (x->end != y->end)
		return x->end > y->end ? -1 : 1; /* the longer one encloses */
	return (x->raw_off > y->raw_off) - (x->raw_off < y->raw_off);
}

/* A list of event indexes a share grows (a GArray's append is a call per
 * item). */
typedef struct u32vec {
	uint32_t *v;
	size_t n, cap;
} u32vec;

static inline void u32vec_push(u32vec *a, uint32_t x)
{
	if (a->n == a->cap) {
		a->cap = a->cap ? 2 * a->cap : 256;
		a->v = g_renew(uint32_t, a->v, a->cap);
	}
	a->v[a->n++] = x;
}

/* A share of the lines, read on a thread of its own: each line's events
 * go to tl_xspace.ev from line_first[line] on (as many places as the line
 * holds events), the stack of open events nest_line keeps, and what the
 * passes after reading need (tl_xspace.host_corr, ...) in event order. */
typedef struct ev_vec {
	const tl_xspace *xs;
	size_t lo, hi; /* its lines, by global index */
	xev *v;	       /* tl_xspace.ev */
	size_t n;      /* where the next event goes */
	const size_t *line_first;
	int32_t *stack;
	size_t stack_cap;
	u32vec host_corr, dev_corr, step_ev;
	size_t n_ops;
	counts c;
	tl_arena *arena;  /* the names it makes */
	size_t *line_end; /* per line (its share's alone): where its events stop */
} ev_vec;

static xev *ev_push(ev_vec *a)
{
	return &a->v[a->n++];
}

/* Event i of a line whose events before it, from the line's first, are
 * in start order: its parent (the innermost event around it, the stack
 * of open events, *depth deep, kept from one event to the next); listed
 * where the later passes need it (tl_xspace.host_corr, ...). */
static inline void nest_one(ev_vec *a, size_t i, plane_kind kind, size_t *depth)
{
	xev *ev = a->v;
	uint32_t me_u = (uint32_t)i;
	if ((ev[i].flags & F_CORR) && kind == P_HOST)
		u32vec_push(&a->host_corr, me_u);
	else if ((ev[i].flags & F_CORR) && kind == P_DEVICE)
		u32vec_push(&a->dev_corr, me_u);
	if (ev[i].flags & F_STEP)
		u32vec_push(&a->step_ev, me_u);
	a->n_ops += !(ev[i].flags & F_MEMORY);
	size_t d = *depth;
	while (d > 0) {
		int32_t top = a->stack[d - 1];
		if (ev[top].end >= ev[i].end && ev[top].start <= ev[i].start)
			break;
		d--;
	}
	ev[i].parent = d > 0 ? a->stack[d - 1] : -1;
	if (d == a->stack_cap) {
		a->stack_cap = a->stack_cap ? 2 * a->stack_cap : 64;
		a->stack = g_renew(int32_t, a->stack, a->stack_cap);
	}
	a->stack[d++] = (int32_t)i;
	*depth = d;
}

static void add_line(ev_vec *out, uint32_t pi, uint32_t li)
{
	const xplane *x = &out->xs->planes[pi];
	const tl_xspace_wire_line *l = &x->p->lines[li];
	tl_arena *arena = out->arena;
	counts *c = &out->c;
	bool steps = strcmp(l->name, "Steps") == 0;
	size_t first = out->n = out->line_first[x->line_base + li];
	/* Profilers write a line's events in start order: each is nested as
	 * it comes, while it is in cache; where one is not, what was done is
	 * undone, the line sorted and nested after. */
	bool in_order = true;
	size_t depth = 0, n_ops = out->n_ops;
	size_t lists[3] = {out->host_corr.n, out->dev_corr.n, out->step_ev.n};
	tl_xspace_wire_event e;
	tl_xspace_wire_stats stats;
	size_t pos = 0;
	int rc;
	size_t slots_end = out->line_first[x->line_base + li + 1];
	while ((rc = tl_xspace_wire_next_event_stats(l, &pos, &e, &stats)) != 0) {
		if (rc == -1) /* the line's own bytes: the walk that counted stopped there too */
			break;
		if (rc == -2) {
			c->bad_events++;
			continue;
		}
		if (e.occurrences) {
			c->occurrences++;
			continue;
		}
		xev v = {.raw_off = (uint32_t)(e.raw - x->data),
			 .raw_len = (uint32_t)e.raw_len,
			 .line = (uint32_t)(x->line_base + li),
			 .parent = -1};
		if (!event_time(l, &e, &v.start, &v.end)) {
			c->bad_time++;
			continue;
		}
		v.name = find_id(&x->ev_md, e.metadata_id);
		bool named_by_md = v.name != NULL;
		if (v.name == NULL) {
			c->bad_event_md++;
			char *n = g_strdup_printf("metadata#%" PRId64, e.metadata_id);
			v.name = tl_arena_strdup(arena, n);
			g_free(n);
		}
		/* TensorBoard names an event with a step_name stat by it */
		const char *step;
		if (!scan_stats(x, &v, &stats, c, &step, arena)) {
			c->bad_events++;
			continue;
		}
		if (step != NULL && step[0] != '\0') {
			v.name = step;
			named_by_md = false;
		}
		if (named_by_md && x->ev_flags != NULL) /* the name's kind, found once */
			v.flags |= x->ev_flags[e.metadata_id];
		else
			v.flags |= name_flags(v.name);
		if (steps)
			v.flags |= F_STEP;
		/* an allocator event where they are not kept: counted; the line
		 * has no slot for it (n_marked), so one a step_name renamed
		 * sends the XSpace to be read again, keeping them */
		if (x->mem_mark != NULL && e.md_first &&
		    (uint64_t)e.metadata_id < x->ev_md.n_dense && x->mem_mark[e.metadata_id]) {
			c->mem_skipped++;
			if (!(v.flags & F_MEMORY))
				c->mem_renamed = true;
			continue;
		}
		size_t i = out->n;
		if (i == slots_end) /* never: the first walk counted them */
			break;
		*ev_push(out) = v;
		if (in_order && i > first && cmp_ev_start(&out->v[i - 1], &out->v[i]) > 0)
			in_order = false;
		if (in_order)
			nest_one(out, i, x->kind, &depth);
	}
	out->line_end[x->line_base + li] = out->n;
	if (in_order)
		return;
	out->host_corr.n = lists[0];
	out->dev_corr.n = lists[1];
	out->step_ev.n = lists[2];
	out->n_ops = n_ops;
	qsort(out->v + first, out->n - first, sizeof(xev), cmp_ev_start);
	depth = 0;
	for (size_t i = first; i < out->n; i++)
		nest_one(out, i, x->kind, &depth);
}

/* ---- reading the lines on threads ---------------------------------------- */

/* Below this many bytes of lines one thread reads them all; the lines are
 * cut into up to SHARES_MAX shares of about equal bytes, which up to
 * THREADS_MAX threads take in turn (the costs per byte of lines differ). */
#define SHARE_MIN ((size_t)2 << 20)
#define SHARES_MAX 8
#define THREADS_MAX 4

static void read_share(ev_vec *a)
{
	const tl_xspace *xs = a->xs;
	size_t pi = 0;
	for (size_t g = a->lo; g < a->hi; g++) {
		while (g >= xs->planes[pi].line_base + xs->planes[pi].p->n_lines)
			pi++;
		add_line(a, (uint32_t)pi, (uint32_t)(g - xs->planes[pi].line_base));
	}
}

/* The first walk: the share's lines' own fields, their events counted
 * (tl_xspace_wire_read_line); a line is read up to its first field that
 * does not decode (counted in cut_lines). */
static void read_share_heads(ev_vec *a)
{
	tl_xspace *xs = (tl_xspace *)a->xs;
	size_t pi = 0;
	for (size_t g = a->lo; g < a->hi; g++) {
		while (g >= xs->planes[pi].line_base + xs->space.planes[pi].n_lines)
			pi++;
		tl_xspace_wire_line *l = &xs->space.planes[pi].lines[g - xs->planes[pi].line_base];
		const xplane *x = &xs->planes[pi];
		tl_xspace_wire_read_line(l, x->mem_mark, x->mem_mark ? x->ev_md.n_dense : 0,
					 a->arena);
		a->c.cut_lines += l->damaged;
	}
}

struct share_queue {
	ev_vec *shares;
	size_t n;
	gint next;
	void (*read)(ev_vec *);
};

static gpointer share_thread(gpointer data)
{
	struct share_queue *q = data;
	for (;;) {
		gint k = g_atomic_int_add(&q->next, 1);
		if (k < 0 || (size_t)k >= q->n)
			return NULL;
		q->read(&q->shares[k]);
	}
}

/* q's shares read with q->read, on up to THREADS_MAX threads. */
static void read_shares(struct share_queue *q)
{
	GThread *t[THREADS_MAX] = {0};
	size_t threads = MIN(MIN(q->n, (size_t)g_get_num_processors()), (size_t)THREADS_MAX);
	q->next = 0;
	for (size_t i = 1; i < threads; i++)
		t[i] = g_thread_try_new("tl-xspace", share_thread, q, NULL);
	share_thread(q);
	for (size_t i = 1; i < threads; i++)
		if (t[i] != NULL)
			g_thread_join(t[i]);
}

/* The lines cut into runs of about equal bytes, one per share: shares[k]
 * reads lines [lo, hi). Returns how many. */
static size_t cut_shares(tl_xspace *xs, ev_vec *shares, size_t *line_end, const size_t *line_first)
{
	size_t total = 0;
	for (size_t p = 0; p < xs->space.n_planes; p++)
		for (size_t l = 0; l < xs->space.planes[p].n_lines; l++)
			total += xs->space.planes[p].lines[l].raw_len;
	size_t n = total / SHARE_MIN;
	if (n > SHARES_MAX)
		n = SHARES_MAX;
	if (n < 1 || g_get_num_processors() < 2)
		n = 1;
	size_t g = 0, done = 0, k = 0;
	for (size_t p = 0; p < xs->space.n_planes; p++)
		for (size_t l = 0; l < xs->space.planes[p].n_lines; l++, g++) {
			if (k + 1 < n && done >= total / n * (k + 1) && g > shares[k].lo) {
				shares[k].hi = g;
				shares[++k].lo = g;
			}
			done += xs->space.planes[p].lines[l].raw_len;
		}
	shares[k].hi = g;
	for (size_t i = 0; i <= k; i++) {
		shares[i].xs = xs;
		shares[i].v = xs->ev;
		shares[i].line_first = line_first;
		shares[i].line_end = line_end;
		shares[i].arena = tl_arena_new();
	}
	return k + 1;
}

static void append_all(GArray *to, u32vec *from)
{
	if (from->n > 0)
		g_array_append_vals(to, from->v, (guint)from->n);
	g_free(from->v);
}

/* The shares' counts added up, their lists put end to end, their names
 * moved into `arena`. */
static void join_shares(tl_xspace *xs, ev_vec *shares, size_t n, counts *c, tl_arena *arena)
{
	for (size_t i = 0; i < n; i++) {
		ev_vec *a = &shares[i];
		append_all(xs->host_corr, &a->host_corr);
		append_all(xs->dev_corr, &a->dev_corr);
		append_all(xs->step_ev, &a->step_ev);
		xs->n_ops += a->n_ops;
		c->bad_stat += a->c.bad_stat;
		c->bad_event_md += a->c.bad_event_md;
		c->bad_time += a->c.bad_time;
		c->occurrences += a->c.occurrences;
		c->bad_events += a->c.bad_events;
		c->cut_lines += a->c.cut_lines;
		c->mem_skipped += a->c.mem_skipped;
		c->mem_renamed |= a->c.mem_renamed;
		tl_arena_adopt(arena, a->arena);
		g_free(a->stack);
	}
}

/* Lines that kept fewer events than they hold (skipped events) leave
 * holes: the events moved down over them, with their parents and the
 * lists. */
static void close_holes(tl_xspace *xs, const size_t *line_first, const size_t *line_end)
{
	size_t *shift = g_new(size_t, xs->n_lines + 1);
	size_t gap = 0;
	for (size_t g = 0; g < xs->n_lines; g++) {
		shift[g] = gap;
		gap += line_first[g + 1] - line_end[g];
	}
	GArray *lists[3] = {xs->host_corr, xs->dev_corr, xs->step_ev};
	for (int k = 0; k < 3; k++)
		for (guint j = 0; j < lists[k]->len; j++) {
			uint32_t *i = &g_array_index(lists[k], uint32_t, j);
			const xev *v = &xs->ev[*i];
			*i -= (uint32_t)shift[v->line];
		}
	for (size_t g = 0; g < xs->n_lines; g++)
		for (size_t i = line_first[g]; i < line_end[g]; i++) {
			xev v = xs->ev[i];
			if (v.parent >= 0)
				v.parent -= (int32_t)shift[g];
			xs->ev[i - shift[g]] = v;
		}
	xs->n_ev = line_first[xs->n_lines] - gap;
	g_free(shift);
}

/* Every line's events into xs->ev, on up to THREADS_MAX threads, as one
 * thread reading the lines in order would put them; the devices of the
 * lines with events, in the lines' order. */
static void read_lines(tl_xspace *xs, tl_arena *arena, counts *c)
{
	size_t *line_first = g_new(size_t, xs->n_lines + 1);
	size_t *line_end = g_new(size_t, xs->n_lines + 1);
	ev_vec shares[SHARES_MAX] = {{0}};
	struct share_queue q = {.shares = shares,
				.n = cut_shares(xs, shares, line_end, line_first),
				.read = read_share_heads};
	read_shares(&q);
	size_t total = 0;
	for (size_t p = 0; p < xs->space.n_planes; p++)
		for (size_t l = 0; l < xs->space.planes[p].n_lines; l++) {
			line_first[xs->planes[p].line_base + l] = total;
			total += xs->space.planes[p].lines[l].n_events -
				 xs->space.planes[p].lines[l].n_marked;
		}
	line_first[xs->n_lines] = total;
	/* in the arena: a big block there is backed by huge pages, where
	 * g_new's 4 KiB pages cost a fault each (140 MB for a 100 MB file) */
	xs->ev = tl_arena_alloc(arena, (line_first[xs->n_lines] + 1) * sizeof(xev));
	for (size_t i = 0; i < q.n; i++)
		shares[i].v = xs->ev;
	q.read = read_share;
	read_shares(&q);
	join_shares(xs, shares, q.n, c, arena);
	bool holes = false;
	xs->n_ev = line_first[xs->n_lines];
	for (size_t g = 0; g < xs->n_lines; g++)
		holes |= line_end[g] != line_first[g + 1];
	if (holes)
		close_holes(xs, line_first, line_end);
	GHashTable *by_name = g_hash_table_new(g_str_hash, g_str_equal);
	xs->line_dev = g_new(uint32_t, xs->n_lines + 1);
	xs->line_stream = g_new0(uint8_t, xs->n_lines + 1);
	for (size_t p = 0; p < xs->space.n_planes; p++)
		for (size_t l = 0; l < xs->space.planes[p].n_lines; l++) {
			size_t g = xs->planes[p].line_base + l;
			const char *lname = xs->space.planes[p].lines[l].name;
			long stream;
			xs->line_stream[g] =
			    xs->planes[p].kind == P_DEVICE && tl_tf2_stream_line(lname, &stream);
			bool kept = line_end[g] > line_first[g];
			xs->line_dev[g] = kept ? device_for(xs, by_name, &xs->planes[p],
							    &xs->space.planes[p].lines[l], arena)
					       : UINT32_MAX;
		}
	g_hash_table_destroy(by_name);
	g_free(line_first);
	g_free(line_end);
}

static uint32_t dev_of(const tl_xspace *xs, const xev *v)
{
	return xs->line_dev[v->line];
}

/* The TF op around host event i (itself when it is one), or -1. */
static int32_t enclosing_op(const xev *ev, int32_t i)
{
	for (int32_t k = i; k >= 0; k = ev[k].parent)
		if (ev[k].flags & F_TFOP)
			return k;
	return -1;
}

/* The "X:Op" a device event names in its tf_op or "level 0" stat (in
 * `arena`), or NULL. */
static const char *kernel_tf_op(const xplane *x, const xev *v, tl_arena *arena)
{
	const char *s = stat_text(x, v, S_TF_OP, arena);
	if (s != NULL && is_tf_op(s))
		return s;
	s = stat_text(x, v, S_LEVEL0, arena);
	return s != NULL && is_tf_op(s) ? s : NULL;
}

/* "cudnn-conv.1" -> "cudnn-conv": an HLO instruction's kind. */
static const char *hlo_kind(tl_arena *arena, const char *hlo)
{
	size_t n = strlen(hlo);
	const char *dot = strrchr(hlo, '.');
	if (dot != NULL && dot[1] != '\0' && strspn(dot + 1, "0123456789") == strlen(dot + 1))
		n = (size_t)(dot - hlo);
	return tl_arena_strndup(arena, hlo, n);
}

/* The "X:Op" a device event ran for, from its own stats: a TF op (tf_op,
 * "level 0"), or for JAX its HLO op ("cudnn-conv.1:cudnn-conv"); NULL. In
 * `arena`. */
static const char *kernel_op(const xplane *x, const xev *v, tl_arena *arena)
{
	const char *s = kernel_tf_op(x, v, arena);
	if (s != NULL)
		return s;
	const char *hlo = stat_text(x, v, S_HLO_OP, arena);
	if (hlo == NULL || hlo[0] == '\0')
		return NULL;
	char *n = g_strdup_printf("%s:%s", hlo, hlo_kind(arena, hlo));
	char *out = tl_arena_strdup(arena, n);
	g_free(n);
	return out;
}

/* Host events by correlation_id: open addressing, the first event of an id
 * kept (a 100 MB XSpace has half a million launches). */
typedef struct corr_table {
	int64_t *key;
	uint32_t *ev; /* event index + 1, 0 for an empty slot */
	size_t mask;
} corr_table;

static size_t corr_slot(const corr_table *t, int64_t id)
{
	size_t i = (size_t)(((uint64_t)id * UINT64_C(0x9E3779B97F4A7C15)) >> 20) & t->mask;
	while (t->ev[i] != 0 && t->key[i] != id)
		i = (i + 1) & t->mask;
	return i;
}

/* The device events of link_launches, on the crew: each to its launcher
 * (writing only to its own entry); bare[k] the host event of device event
 * dev_corr[k] where no op is around it, else -1. */
struct launch_ctx {
	tl_xspace *xs;
	const corr_table *host;
	int32_t *bare;
};

static void launch_part(void *ctx, size_t part, size_t lo, size_t hi, tl_arena *arena)
{
	struct launch_ctx *c = ctx;
	tl_xspace *xs = c->xs;
	const uint32_t *dev = (const uint32_t *)(const void *)xs->dev_corr->data;
	for (size_t k = lo; k < hi; k++) {
		uint32_t i = dev[k];
		c->bare[k] = -1;
		uint32_t hit = c->host->ev[corr_slot(c->host, xs->ev[i].corr)];
		if (hit == 0)
			continue;
		int32_t h = (int32_t)(hit - 1);
		int32_t op = enclosing_op(xs->ev, h);
		int32_t by = op >= 0 ? op : h;
		xs->ev[i].launcher = by; /* its corr is read no more */
		xs->ev[i].flags |= F_LAUNCHED;
		/* a launcher of another run (or an allocator event) has no record
		 * in its run: told here, where its event is at hand (group_runs
		 * came first) */
		if (xs->ev[by].run == xs->ev[i].run && !(xs->ev[by].flags & F_MEMORY))
			xs->ev[i].flags |= F_LINKED;
		if (op < 0)
			c->bare[k] = h;
	}
}

/* Device events to the TF op around the host event of the same
 * correlation_id: the host events' table made, then the device events
 * looked up on the crew (a host event and the ops around it are met at
 * random: memory waits, which two cores halve). */
static void link_launches(tl_xspace *xs)
{
	corr_table host = {0};
	size_t cap = 16;
	while (cap < 2 * (size_t)xs->host_corr->len)
		cap *= 2;
	host.key = g_new(int64_t, cap);
	host.ev = g_new0(uint32_t, cap);
	host.mask = cap - 1;
	for (guint k = 0; k < xs->host_corr->len; k++) {
		uint32_t i = g_array_index(xs->host_corr, uint32_t, k);
		size_t s = corr_slot(&host, xs->ev[i].corr);
		if (host.ev[s] == 0) {
			host.key[s] = xs->ev[i].corr;
			host.ev[s] = i + 1;
		}
	}
	size_t n = xs->dev_corr->len;
	struct launch_ctx c = {.xs = xs, .host = &host, .bare = g_new(int32_t, n + 1)};
	tl_crew_for(n, launch_part, &c, xs->arena);
	/* TF 2.2 to 2.4 and JAX trace no op around a launch: the launch is
	 * the op's time on the host, named by the op its first kernel (in
	 * event order) names. */
	for (size_t k = 0; k < n; k++) {
		int32_t h = c.bare[k];
		if (h < 0 || (xs->ev[h].flags & F_AS_OP))
			continue;
		uint32_t i = g_array_index(xs->dev_corr, uint32_t, k);
		const char *as_op = kernel_op(plane_of(xs, &xs->ev[i]), &xs->ev[i], xs->arena);
		if (as_op != NULL) {
			g_hash_table_insert(xs->as_op, GINT_TO_POINTER(h), (gpointer)as_op);
			xs->ev[h].flags |= F_AS_OP;
		}
	}
	g_free(c.bare);
	g_free(host.key);
	g_free(host.ev);
}

/* ---- steps --------------------------------------------------------------- */

static int cmp_step(const void *a, const void *b)
{
	const xstep *x = a, *y = b;
	return (x->start > y->start) - (x->start < y->start);
}

/* TF writes the Steps line on every GPU plane: a step is one however many
 * planes show it (the same group_id, else the same name), spanning them all. */
static void merge_steps(tl_xspace *xs)
{
	GHashTable *by_group = g_hash_table_new(g_int64_hash, g_int64_equal);
	GHashTable *by_name = g_hash_table_new(g_str_hash, g_str_equal);
	size_t n = 0;
	for (size_t i = 0; i < xs->n_steps; i++) {
		xstep s = xs->steps[i];
		gpointer hit = s.has_group ? g_hash_table_lookup(by_group, &xs->steps[i].group)
					   : g_hash_table_lookup(by_name, s.name);
		if (hit != NULL) {
			xstep *m = &xs->steps[GPOINTER_TO_SIZE(hit) - 1];
			m->start = MIN(m->start, s.start);
			m->end = MAX(m->end, s.end);
			continue;
		}
		xs->steps[n] = s;
		if (s.has_group)
			g_hash_table_insert(by_group, &xs->steps[n].group, GSIZE_TO_POINTER(n + 1));
		else
			g_hash_table_insert(by_name, (gpointer)s.name, GSIZE_TO_POINTER(n + 1));
		n++;
	}
	xs->n_steps = n;
	g_hash_table_destroy(by_group);
	g_hash_table_destroy(by_name);
	qsort(xs->steps, xs->n_steps, sizeof(xstep), cmp_step);
}

static void find_steps(tl_xspace *xs)
{
	size_t n = xs->step_ev->len;
	xs->steps = g_new0(xstep, n + 1);
	for (size_t k = 0; k < n; k++) {
		const xev *v = &xs->ev[g_array_index(xs->step_ev, uint32_t, k)];
		const xplane *x = plane_of(xs, v);
		xstep *s = &xs->steps[xs->n_steps++];
		s->start = v->start;
		s->end = v->end;
		s->has_group = (v->flags & F_GROUP) != 0;
		s->group = v->group;
		const char *name = stat_text(x, v, S_STEP_NAME, xs->arena);
		s->name = name != NULL && name[0] ? name : v->name;
	}
	merge_steps(xs);
	xs->n_runs = xs->n_ops == 0 ? 0 : xs->n_steps >= 2 ? xs->n_steps : 1;
}

/* The step an event goes to (with two steps or more): the step of its
 * group_id, else the last step starting at or before it, else the first.
 * *last caches the latest group looked up (events of one group come
 * together). */
struct group_hit {
	bool valid;
	int64_t group;
	gpointer hit;
};

static uint32_t run_of(const tl_xspace *xs, GHashTable *by_group, const xev *v,
		       struct group_hit *last)
{
	gpointer hit = NULL;
	if (v->flags & F_GROUP) {
		if (!last->valid || last->group != v->group) {
			last->hit = g_hash_table_lookup(by_group, &v->group);
			last->group = v->group;
			last->valid = true;
		}
		hit = last->hit;
	}
	if (hit != NULL)
		return (uint32_t)(GPOINTER_TO_SIZE(hit) - 1);
	size_t lo = 0, hi = xs->n_steps;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (xs->steps[mid].start <= v->start)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo > 0 ? (uint32_t)(lo - 1) : 0;
}

/* group_runs' passes over the events, on the crew: per part, how many of
 * its events each run has, then where they go. */
struct runs_ctx {
	tl_xspace *xs;
	GHashTable *by_group; /* or NULL: one run */
	size_t nr;
	uint32_t *at; /* parts x nr: counts, then the next place */
};

static void runs_part(void *ctx, size_t part, size_t lo, size_t hi, tl_arena *arena)
{
	struct runs_ctx *c = ctx;
	uint32_t *count = c->at + part * c->nr;
	struct group_hit last = {0};
	for (size_t i = lo; i < hi; i++) {
		xev *v = &c->xs->ev[i];
		if (c->by_group != NULL)
			v->run = run_of(c->xs, c->by_group, v, &last);
		if (!(v->flags & F_MEMORY) && v->run < c->nr)
			count[v->run]++;
	}
}

static void order_part(void *ctx, size_t part, size_t lo, size_t hi, tl_arena *arena)
{
	struct runs_ctx *c = ctx;
	uint32_t *at = c->at + part * c->nr;
	const xev *ev = c->xs->ev;
	uint32_t *order = c->xs->run_order;
	for (size_t i = lo; i < hi; i++)
		if (!(ev[i].flags & F_MEMORY) && ev[i].run < c->nr)
			order[at[ev[i].run]++] = (uint32_t)i;
}

/* Each event to its run (run_of), and the events of each run by a
 * counting sort (runs x events would be quadratic in the steps): two
 * passes over the events, each shared out in parts (a part's events of a
 * run go after those of the parts before). */
static void group_runs(tl_xspace *xs)
{
	size_t nr = xs->n_runs ? xs->n_runs : 1;
	xs->run_first = g_new0(uint32_t, nr + 1);
	xs->run_order = tl_arena_alloc(xs->arena, (xs->n_ev + 1) * sizeof(uint32_t));
	struct runs_ctx c = {.xs = xs, .nr = nr};
	if (xs->n_runs > 1) {
		c.by_group = g_hash_table_new(g_int64_hash, g_int64_equal);
		for (size_t s = 0; s < xs->n_steps; s++)
			if (xs->steps[s].has_group)
				g_hash_table_insert(c.by_group, &xs->steps[s].group,
						    GSIZE_TO_POINTER(s + 1));
	}
	size_t parts = tl_crew_parts(xs->n_ev);
	c.at = g_new0(uint32_t, parts * nr);
	tl_crew_for(xs->n_ev, runs_part, &c, xs->arena);
	if (c.by_group != NULL)
		g_hash_table_destroy(c.by_group);
	/* counts to places: run r's events from run_first[r], part by part */
	for (size_t r = 0; r < nr; r++) {
		uint32_t at = xs->run_first[r];
		for (size_t p = 0; p < parts; p++) {
			uint32_t n = c.at[p * nr + r];
			c.at[p * nr + r] = at;
			at += n;
		}
		xs->run_first[r + 1] = at;
	}
	tl_crew_for(xs->n_ev, order_part, &c, xs->arena);
	g_free(c.at);
}

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
		index_plane(&xs->planes[p], &xs->space.planes[p], allocs, arena);
		xs->planes[p].line_base = xs->n_lines;
		xs->planes[p].data = data;
		xs->n_lines += xs->space.planes[p].n_lines;
	}
	xs->line_plane = g_new(uint32_t, xs->n_lines + 1);
	for (size_t p = 0; p < xs->space.n_planes; p++)
		for (size_t l = 0; l < xs->space.planes[p].n_lines; l++)
			xs->line_plane[xs->planes[p].line_base + l] = (uint32_t)p;
	xs->c.bad_planes = space.bad_planes;
	read_lines(xs, arena, &xs->c);
	if (xs->c.mem_renamed) { /* see add_line */
		tl_xspace_free(xs);
		return open_quiet(out, data, len, true, arena, name, err);
	}
	find_steps(xs);
	group_runs(xs);
	link_launches(xs);
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
		map_free(&xs->planes[p].ev_md);
		map_free(&xs->planes[p].st_md);
		g_free(xs->planes[p].ev_flags);
		g_free(xs->planes[p].st_role);
		g_free(xs->planes[p].mem_mark);
	}
	g_free(xs->planes);
	g_free(xs->steps);
	g_free(xs->run_first);
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
		s = kernel_op(x, v, arena);
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

static void fill_exec(const tl_xspace *xs, const xev *v, Tensorflow__NodeExecStats *ns,
		      name_memo *memo, tl_arena *arena)
{
	tensorflow__node_exec_stats__init(ns);
	const xdev *d = &g_array_index(xs->devs, xdev, dev_of(xs, v));
	const tl_xspace_wire_line *l = line_of(xs, v);
	ns->all_start_nanos = v->start;
	ns->all_start_micros = v->start / 1000;
	ns->all_end_rel_nanos = v->end - v->start;
	ns->all_end_rel_micros = v->end / 1000 - ns->all_start_micros;
	ns->op_end_rel_nanos = ns->all_end_rel_nanos;
	ns->op_end_rel_micros = ns->all_end_rel_micros;
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
	const xplane *x = plane_of(xs, v);
	tl_xspace_wire_stat st[N_STAT_KEYS];
	stats_all(x, v, st);
	const char *alloc = stat_str_in(x, &st[S_ALLOCATOR], arena);
	int64_t bytes = 0, addr = 0;
	if (!stat_int(&st[S_ALLOCATION_BYTES], &bytes))
		stat_int(&st[S_REQUESTED_BYTES], &bytes);
	if (bytes < 0) /* a size cannot be; its negation may not exist */
		bytes = 0;
	stat_int(&st[S_ADDR], &addr);
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
	stat_int(&st[S_BYTES_ALLOCATED], &a->total_allocated);
	stat_int(&st[S_RESERVED], &a->total_reserved);
	stat_int(&st[S_PEAK], &a->peak);
	const char *op = stat_str_in(x, &st[S_TF_OP], arena);
	if (op == NULL || op[0] == '\0') {
		/* the TF op around it, else (JAX) the innermost event around it */
		int32_t k = v->parent >= 0 ? enclosing_op(xs->ev, v->parent) : -1;
		if (k < 0)
			k = v->parent;
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

bool tl_xspace_has_allocs(const tl_xspace *xs)
{
	return xs->n_ops < xs->n_ev || xs->c.mem_skipped > 0;
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
	out->clock = "profile's own zero, as TensorBoard shows it";
	for (size_t k = 0; k < n; k++)
		fill_alloc(xs, &xs->ev[order[k]], &out->ev[k], arena);
	g_free(order);
	return 0;
}

int tl_xspace_alloc_events(const uint8_t *data, size_t len, tl_arena *arena, tl_alloc_events *out,
			   tl_error *err)
{
	uint8_t *own = tl_arena_alloc(arena, len + 1);
	if (len > 0)
		memcpy(own, data, len);
	tl_xspace *xs = NULL;
	if (tl_xspace_open(&xs, own, len, true, arena, "XSpace", err) < 0)
		return -1;
	int rc = tl_xspace_allocs(xs, arena, out);
	tl_xspace_free(xs);
	return rc;
}
