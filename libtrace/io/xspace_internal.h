/*
 * xspace_internal: what the files of the XSpace reader (io/xspace*.c)
 * share, and no other file includes: the event table and its planes, the
 * stats the reader looks at, and the passes over them, one file each:
 *   xspace_stats.c   metadata tables and the stats of an event;
 *   xspace_events.c  the lines read into events (on threads), nesting, and
 *                    kernels linked to the TF ops that launched them;
 *   xspace_steps.c   the steps, and each event's run;
 *   xspace.c         opening an XSpace, and a run as RunMetadata;
 *   xspace_memory.c  allocator events.
 */
#ifndef TL_IO_XSPACE_INTERNAL_H
#define TL_IO_XSPACE_INTERNAL_H

#include "io/xspace.h"
#include "io/tf2names.h"
#include "io/xspace_wire_internal.h"

#include <glib.h>
#include <stdbool.h>
#include <stdint.h>
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
	uint32_t *alloc_order; /* the allocator events in time order (tl_xspace_alloc_count's) */
	size_t n_allocs;
	size_t n_lines;	      /* of all planes */
	uint32_t *line_dev;   /* per line (xplane.line_base + line): its device, once it
			       * has events */
	uint32_t *line_plane; /* per line: its plane */
	uint8_t *line_stream; /* per line: a device plane's "Stream #N" line (kernels) */
	counts c;	      /* what reading met, said by tl_xspace_warn */
};

#define TFOP_AT_SHIFT 9
#define TFOP_AT_MAX ((1u << (32 - TFOP_AT_SHIFT)) - 1)

/* Small lookups met per event, inline in every pass. */

static inline int cmp_id(const void *a, const void *b)
{
	int64_t x = ((const id_ptr *)a)->id, y = ((const id_ptr *)b)->id;
	return (x > y) - (x < y);
}

static inline const void *find_id_sparse(const id_map *m, int64_t id)
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

static inline tl_xspace_wire_event event_of(const xplane *x, const xev *v)
{
	return (tl_xspace_wire_event){.raw = x->data + v->raw_off, .raw_len = v->raw_len};
}

static inline const xplane *plane_of(const tl_xspace *xs, const xev *v)
{
	return &xs->planes[xs->line_plane[v->line]];
}

/* Line `g` of all planes' lines. */
static inline const tl_xspace_wire_line *line_at(const tl_xspace *xs, uint32_t g)
{
	const xplane *x = &xs->planes[xs->line_plane[g]];
	return &x->p->lines[g - x->line_base];
}

static inline const tl_xspace_wire_line *line_of(const tl_xspace *xs, const xev *v)
{
	return line_at(xs, v->line);
}

/* "dense/MatMul:MatMul": a TF op as TraceMe names it (io/tf2names.h). */
static inline bool is_tf_op(const char *name)
{
	return tl_tf2_is_tf_op(name, strlen(name));
}

static inline uint32_t dev_of(const tl_xspace *xs, const xev *v)
{
	return xs->line_dev[v->line];
}

/* The TF op around host event i (itself when it is one), or -1. */
static inline int32_t enclosing_op(const xev *ev, int32_t i)
{
	for (int32_t k = i; k >= 0; k = ev[k].parent)
		if (ev[k].flags & F_TFOP)
			return k;
	return -1;
}

/* ---- xspace_stats.c ---- */

void tl_xs_map_free(id_map *m);

void tl_xs_index_plane(xplane *x, const tl_xspace_wire_plane *p, bool keep_allocs, tl_arena *arena);

/* A stat's text: a string (copied into the arena), or the name of the stat
 * metadata a ref names; NULL for other values. */
const char *tl_xs_stat_str_in(const xplane *x, const tl_xspace_wire_stat *st, tl_arena *arena);

/* Every stat the reader knows of an event in one pass: st[k] is the first
 * named k, kind TL_XSTAT_NONE where there is none. */
void tl_xs_stats_all(const xplane *x, const xev *v, tl_xspace_wire_stat st[N_STAT_KEYS]);

/* The text of an event's stat `k` (in `arena`), or NULL. */
const char *tl_xs_stat_text(const xplane *x, const xev *v, enum stat_key k, tl_arena *arena);

bool tl_xs_stat_int(const tl_xspace_wire_stat *st, int64_t *out);

/* One pass over an event's stats (those decoded with it, then any past
 * them): those naming no metadata counted, the correlation and group ids
 * kept, *step the text of its step_name stat (or NULL). False, and nothing
 * counted, for an event one of whose stats is no XStat: it is skipped. */
bool tl_xs_scan_stats(const xplane *x, xev *v, const tl_xspace_wire_stats *stats, counts *c,
		       const char **step, tl_arena *arena);

/* What an event's name makes it: F_MEMORY, F_TFOP or neither. */
uint32_t tl_xs_name_flags(const char *name);

/* ---- xspace_events.c ---- */

/* Every line's events into xs->ev, on up to THREADS_MAX threads, as one
 * thread reading the lines in order would put them; the devices of the
 * lines with events, in the lines' order. */
void tl_xs_read_lines(tl_xspace *xs, tl_arena *arena, counts *c);

/* The "X:Op" a device event ran for, from its own stats: a TF op (tf_op,
 * "level 0"), or for JAX its HLO op ("cudnn-conv.1:cudnn-conv"); NULL. In
 * `arena`. */
const char *tl_xs_kernel_op(const xplane *x, const xev *v, tl_arena *arena);

/* Device events to the TF op around the host event of the same
 * correlation_id: the host events' table made, then the device events
 * looked up on the crew (a host event and the ops around it are met at
 * random: memory waits, which two cores halve). */
void tl_xs_link_launches(tl_xspace *xs);

/* ---- xspace_steps.c ---- */

void tl_xs_find_steps(tl_xspace *xs);

/* Each event to its run (run_of), and the events of each run by a
 * counting sort (runs x events would be quadratic in the steps): two
 * passes over the events, each shared out in parts (a part's events of a
 * run go after those of the parts before). */
void tl_xs_group_runs(tl_xspace *xs);

#endif
