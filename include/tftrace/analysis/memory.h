/*
 * memory: what held memory, buffer by buffer, as the executor's
 * reference counts did it (docs/DESIGN.md, "Memory, precisely", points here:
 * these rules are the definition).
 *
 *   - A buffer is one allocation (allocator + allocation_id, else ptr); every
 *     tensor whose AllocationDescription names it is an alias (forwarding:
 *     Identity, Reshape, Switch...). Forwarding ops whose outputs the dump
 *     does not describe alias their data input 0.
 *   - Born at the producer's allocation record for it, else at the
 *     producer's compute start (all_start + op_start_rel).
 *   - Each reference (a tensor node:slot of one execution) is dropped at the
 *     end of the last consumer execution that reads it (graph data edges,
 *     loops matched by execution order), at its producer's end when nothing
 *     reads it, at step end when the client fetches it (_Retval, a
 *     client-terminated _Send). The buffer dies with its last reference.
 *   - Temporaries: an execution's allocation records that are not its
 *     outputs, born and freed inside it (a negative record is the free).
 *   - A _Recv the dump has no stats for (old TensorFlow, or just missing)
 *     still held its buffer: its size comes from the tensor its _Send read,
 *     its death from its consumers, and its birth, which the dump does not
 *     hold, lies between the step start and its first consumer's start. The
 *     allocator_bytes_in_use samples pin it: the births of all such buffers
 *     of an allocator are chosen together, over the samples in time order,
 *     so that the curve meets every sample (earliest deadline first among
 *     those a sample needs). Each keeps the window of births the samples
 *     leave open and is born in it (the buffer is marked estimated); one
 *     that no sample constrains, or that the samples contradict, is said
 *     so. What the samples show and no record explains is the allocator's
 *     unattributed part; a sample below what the records alone hold is a
 *     contradiction; the band bounds the curve where births are open
 *     (memory_band.c).
 *   - Persistent: variables (memory_stats.persistent_tensor_alloc_ids,
 *     referenced_tensor) are allocated before the step and never freed: the
 *     allocator's baseline.
 * Per allocator the in-use curve sums allocated bytes (requested beside),
 * frees before allocations at one instant; the dump's own
 * allocator_bytes_in_use at each op's end is the check.
 *
 * Times here are microseconds, the unit of the dump's memory records.
 * A tl_memory owns its arrays; it points into the run, which must outlive it.
 */
#ifndef TL_ANALYSIS_MEMORY_H
#define TL_ANALYSIS_MEMORY_H

#include "model/run.h"

#include <stdbool.h>
#include <stdint.h>

#define TL_US_NEVER INT64_MAX  /* free time of a buffer never freed */
#define TL_US_BEFORE INT64_MIN /* alloc time of a buffer made before the step */

typedef enum tl_buffer_kind {
	TL_BUF_OUTPUT = 0,
	TL_BUF_TEMP,
	TL_BUF_PERSISTENT,
} tl_buffer_kind;

const char *tl_memory_kind_name(tl_buffer_kind k);

typedef enum tl_free_cause {
	TL_FREE_LAST_USE = 0, /* end of its last consumer */
	TL_FREE_UNUSED,	      /* no consumer: end of its producer */
	TL_FREE_FETCHED,      /* fetched by the client: step end */
	TL_FREE_RECORD,	      /* a deallocation record (temporaries) */
	TL_FREE_OP_END,	      /* temporary without a free record: op end */
	TL_FREE_NEVER,	      /* persistent */
} tl_free_cause;

const char *tl_memory_cause_name(tl_free_cause c);

/* How a buffer's birth is known. */
typedef enum tl_birth {
	TL_BIRTH_RECORDED = 0,	/* in the dump */
	TL_BIRTH_PINNED,	/* estimated; the samples leave [birth_lo, birth_hi] */
	TL_BIRTH_UNCONSTRAINED, /* estimated; no sample falls in its possible life */
	TL_BIRTH_CONTRADICTED,	/* estimated; no birth meets the samples */
} tl_birth;

/* "recorded", "pinned", "unconstrained", "contradicted" */
const char *tl_memory_birth_name(tl_birth b);

typedef struct tl_tensor_ref {
	int32_t exec; /* producing execution */
	int32_t slot;
} tl_tensor_ref;

typedef struct tl_buffer {
	const char *allocator;
	int64_t allocation_id; /* as in the dump; temporaries get negative ids */
	uint64_t ptr;
	int64_t requested;
	int64_t allocated;
	int64_t alloc_us; /* TL_US_BEFORE for persistent buffers */
	int64_t free_us;  /* TL_US_NEVER when never freed */
	tl_buffer_kind kind;
	tl_free_cause cause;
	bool fetched;
	int32_t producer;			   /* exec, or -1 when unknown */
	int32_t slot;				   /* output slot, -1 for temporaries */
	int32_t last_user;			   /* exec whose end freed it, or -1 */
	const Tensorflow__TensorDescription *desc; /* dtype and shape, or NULL */
	const char *name;			   /* tensor name when no execution produced it */
	bool estimated;				   /* birth not in the dump (an unrecorded _Recv) */
	bool alloc_recorded; /* alloc_us is an allocation record's (else, for an
			      * output, its producer's compute start) */
	int64_t sent_us; /* estimated: its _Send's start (INT64_MAX: unknown) */
	tl_birth birth;
	int64_t birth_lo;   /* estimated: the births the samples allow; */
	int64_t birth_hi;   /* alloc_us lies in it */
	int64_t window_lo;  /* estimated: the births the records allow, before */
	int64_t window_hi;  /* any sample (the band's windows) */
	int64_t guess_us;   /* estimated: the likeliest birth, from how the run's
			     * recorded receives were born before their copies or
			     * after their _Sends (INT64_MAX: no such hint) */
	uint32_t first_ref; /* aliases: mem->refs[first_ref .. + n_refs] */
	uint32_t n_refs;
} tl_buffer;

typedef struct tl_point {
	int64_t us;
	int64_t bytes; /* allocated */
	int64_t requested;
} tl_point;

/* The band around a curve (memory_band.c says how it is derived). */
typedef struct tl_band_point {
	int64_t us;   /* from this instant (after every event at it) to the next point */
	int64_t low;  /* the least the allocator can have held, given every record and sample */
	int64_t high; /* the most */
} tl_band_point;

typedef struct tl_allocator {
	const char *name;
	tl_point *curve; /* change points; curve[0] = [step start, baseline] */
	size_t n_curve;
	int64_t persistent_bytes;
	int64_t persistent_requested;
	int64_t peak_bytes;
	int64_t peak_requested;
	int64_t peak_us;
	uint32_t *live_at_peak; /* buffers, by allocated bytes descending */
	size_t n_live;
	uint32_t *buffers; /* its buffers, in index order */
	size_t n_buffers;
	size_t n_estimated; /* buffers with an estimated birth */
	size_t n_unplaced;  /* ... of which unconstrained or contradicted */
	size_t check_samples;
	int64_t check_max_abs;
	double check_mean_abs;
	/* Where the records leave the curve open (estimated births): the
	 * least and the most it can have been, step points on the curve's
	 * clock, band[0].us = curve[0].us; low == high == the curve where it
	 * is exact. */
	tl_band_point *band;
	size_t n_band;
	int64_t peak_low, peak_high; /* the true peak lies in [peak_low, peak_high] */
	/* The part of the curve the samples show and no record explains,
	 * change points ([t, bytes], requested 0), from each sample to the
	 * next; inside curve. n_unattributed 0: none. */
	tl_point *unattributed;
	size_t n_unattributed;
	/* Samples below what the records alone hold: [t, bytes over]. */
	tl_point *contradictions;
	size_t n_contradictions;
} tl_allocator;

typedef struct tl_memory {
	const tl_run *run;
	tl_buffer *buffers;
	size_t n_buffers;
	tl_tensor_ref *refs;
	size_t n_refs;
	tl_allocator *allocators; /* sorted by name */
	size_t n_allocators;
	int64_t step_start_us;
	int64_t step_end_us;
	bool from_labels; /* consumers guessed from labels (no graphs) */
} tl_memory;

/* The run's buffers, their lifetimes and the allocators' curves. Cannot
 * fail: what the dump lacks is estimated or left out, with a warning. The
 * caller frees it (tl_memory_free); it reads the run, which must outlive
 * it. */
tl_memory *tl_memory_build(const tl_run *run);
void tl_memory_free(tl_memory *mem);

/* The run's buffers with their references, as tl_memory_build finds them,
 * and nothing more: no allocators, curves or check, and the births of
 * unrecorded _Recv buffers not placed by the samples (graph-render's bytes
 * per node, without the curves' cost). Freed with tl_memory_free. */
tl_memory *tl_memory_build_buffers(const tl_run *run);

/* In-use bytes of an allocator after every event at `us`. */
int64_t tl_memory_in_use(const tl_allocator *a, int64_t us);

/* The same, for many instants in about time order: *hint (0 at first) is
 * where the last query fell, and the search walks on from there. */
int64_t tl_memory_in_use_near(const tl_allocator *a, int64_t us, size_t *hint);

/* "node:slot" of a reference, in the run's arena. */
const char *tl_memory_ref_name(const tl_memory *mem, const tl_tensor_ref *r);

/* The op running at an allocator's peak: the producer of the allocation
 * that made it, else NULL. */
const char *tl_memory_peak_op(const tl_memory *mem, const tl_allocator *a);

#endif
