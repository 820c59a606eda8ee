/*
 * memory_internal: what the files of the memory analysis share, and no one
 * else (tftrace.h does not include it; it is not installed):
 *   memory.c        the buffers and their references, the public entry points;
 *   memory_recv.c   the buffers of _Recv nodes the dump has no stats for;
 *   memory_curve.c  the allocators, their curves, and the check against
 *                   the dump's allocator_bytes_in_use samples;
 *   memory_ids.c    their birth windows, narrowed by the allocation ids;
 *   memory_birth.c  the births of those _Recv buffers, placed by the samples;
 *   memory_band.c   the curve made to meet the samples, its unattributed
 *                   part, and the band of what the records leave open.
 * The builder's arrays belong to the builder until memory.c moves them into
 * the tl_memory; the names it makes live in the run's arena.
 */
#ifndef TL_ANALYSIS_MEMORY_INTERNAL_H
#define TL_ANALYSIS_MEMORY_INTERNAL_H

#include "analysis/memory.h"

#include <glib.h>

/* Sizes beyond 1 PiB (or negative) are refused, as are allocator samples
 * and records beyond it or beyond the model's time limit; the sums of sizes
 * in the curves saturate instead of overflowing. 2^50 is an arithmetic
 * bound, not a guess at devices: the birth placement (memory_birth.c) adds
 * sizes times counts unchecked, and 2^50 leaves 2^13 such terms room in an
 * int64 (a 64-bit process holds at most 2^48 bytes with 4-level paging). */
#define TL_MEMORY_BYTES_LIMIT ((int64_t)1 << 50)

/* One reference being built: which buffer, when it is dropped. */
struct ref {
	tl_tensor_ref r;
	uint32_t buffer;
	int64_t drop_us; /* INT64_MIN until a consumer is seen */
	int32_t dropper;
	int32_t next; /* the execution's previous reference, or -1 */
	bool fetched;
};

struct buf_key;
struct key_table;
struct flat;

/* Allocator names kept beside the table, found by address alone. */
#define TL_MEMORY_NAMES_NEAR 16

struct memory_builder {
	const tl_run *run;
	tl_arena *arena;	  /* the run's arena, for names */
	GArray *buffers;	  /* tl_buffer */
	GArray *refs;		  /* struct ref */
	struct key_table *by_key; /* (allocator, id, ptr) -> buffer (memory.c) */
	int32_t *ref_head;	  /* per execution: its last reference, or -1 */
	struct flat *flat;	  /* the executions' records, copied out (memory.c) */
	int64_t next_temp_id;
	int64_t *min_ends; /* tl_dataflow_min_ends, made when first needed */
	/* Each allocator name once: a buffer's allocator is this pointer, so
	 * tables of buffers key on it without hashing its text. */
	GHashTable *allocator_names; /* name -> the same name */
	const char *last_allocator;
	const char *names_near[TL_MEMORY_NAMES_NEAR]; /* the first copies made */
	unsigned n_names_near;
};

/* The builder's one copy of allocator name s. */
const char *tl_memory_allocator_name(struct memory_builder *b, const char *s);

/* One allocator_bytes_in_use sample of the dump, read once: the passes
 * over the samples (the placing of unrecorded births, the check) walk
 * these instead of the decoded records again, which on a 100 MB dump lie
 * far beyond the caches. */
struct dump_sample {
	int64_t us;	    /* the end of the execution that reported it */
	int64_t in_use;	    /* 0: the sample names its allocator, no more */
	const char *name;   /* the allocator set's own copy of the name */
	uint32_t allocator; /* index into mem->allocators */
};

static inline int64_t add_sat(int64_t a, int64_t b)
{
	int64_t r;
	if (__builtin_add_overflow(a, b, &r))
		return b > 0 ? INT64_MAX : INT64_MIN;
	return r;
}

static inline int64_t exec_start_us(const tl_exec *e)
{
	return e->ns->all_start_micros;
}

static inline int64_t exec_end_us(const tl_exec *e)
{
	return e->ns->all_start_micros + e->ns->all_end_rel_micros;
}

static inline tl_buffer *buffer_at(struct memory_builder *b, uint32_t i)
{
	return &g_array_index(b->buffers, tl_buffer, i);
}

/* The reference to output `slot` of execution `exec`, or -1. Slots are
 * told apart by their low 20 bits (as they always were). */
static inline int32_t find_ref(struct memory_builder *b, int32_t exec, int32_t slot)
{
	if (exec < 0 || (size_t)exec >= b->run->n_execs)
		return -1;
	for (int32_t r = b->ref_head[exec]; r >= 0;) {
		const struct ref *ref = &g_array_index(b->refs, struct ref, r);
		if (((ref->r.slot ^ slot) & 0xfffff) == 0)
			return r;
		r = ref->next;
	}
	return -1;
}

/* memory.c */

/* Appends a copy of `proto`, found by `key` (when it has an id or a ptr)
 * from then on; returns its index. */
uint32_t tl_memory_new_buffer(struct memory_builder *b, const tl_buffer *proto,
			      const struct buf_key *key);
/* Ops whose outputs always share their data input 0's buffer. */
bool tl_memory_is_forwarding_op(const char *op);
/* A _Retval, or a _Send whose tensor goes to the client. */
bool tl_memory_is_fetch_node(const tl_run *run, uint32_t n);

/* memory_recv.c: buffers of _Recv nodes that ran (their consumers did) but
 * left no stats, estimated; mem's step bounds must be set. */
void tl_memory_recv_add(struct memory_builder *b, tl_memory *mem);

/* memory_curve.c */

/* The allocators (every allocator a buffer names, and every one the dump
 * samples), sorted by name, each with the list of its buffers; and the
 * samples (struct dump_sample), in execution and record order. */
void tl_memory_curve_allocators(tl_memory *mem, GArray *samples);
/* (Re)builds every allocator's curve, peak and buffers live at it;
 * estimated births count only `with_estimated`. */
void tl_memory_curve_build(tl_memory *mem, bool with_estimated);
/* Builds one allocator's curve again, estimated births and its
 * unattributed part included. */
void tl_memory_curve_rebuild(tl_memory *mem, tl_allocator *a);
/* Calls `fn` for every allocator_bytes_in_use the dump records at an
 * execution's end, with the allocator it names. */
void tl_memory_curve_each_sample(tl_memory *mem, const GArray *samples,
				 void (*fn)(tl_memory *mem, tl_allocator *a, int64_t us,
					    int64_t in_use, void *ctx),
				 void *ctx);
/* The check of every curve against the samples. */
void tl_memory_curve_check(tl_memory *mem, const GArray *samples);
void tl_memory_curve_free(tl_memory *mem);

/* The id gaps of the allocators whose ids follow the rule (memory_ids.c),
 * per group (allocators that share a counter): gap j of group g is
 * first[g] + j, between the g's recorded allocations j - 1 and j (its
 * first and last gaps open), the window [lo, hi] of the births its ids
 * were given in, and how many ids it has (INT64_MAX: open). Every
 * allocation the dump gives no id (an estimated birth, a temporary) takes
 * one id of a gap whose window holds its birth. */
struct id_gaps {
	int32_t *group_of; /* per allocator: its group, -1: its ids say nothing */
	size_t n_groups;
	size_t *first; /* per group, and one past the last */
	int64_t *lo, *hi, *ids;
};

/* memory_ids.c: the windows of the estimated births narrowed by the
 * allocation ids the dump records (window_* and birth_*); their gaps. */
struct id_gaps *tl_memory_ids_narrow(tl_memory *mem, const GArray *samples);
void tl_memory_id_gaps_free(struct id_gaps *x);

/* memory_birth.c: births of the estimated buffers of every allocator that
 * has some, from the curves built without them. */
void tl_memory_birth_place(tl_memory *mem, const GArray *samples);

/* memory_band.c: per allocator, the curve made to meet every sample the
 * records allow (births the samples cannot have seen yet moved after
 * them, the rest the unattributed part), the samples the records alone
 * exceed, and the band; from the curves with the estimated births
 * placed. */
void tl_memory_band_build(tl_memory *mem, const GArray *samples, const struct id_gaps *gaps);

#endif
