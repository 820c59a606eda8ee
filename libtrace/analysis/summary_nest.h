/*
 * summary_nest: self (exclusive) time of slices that nest, as profilers
 * draw them on one thread (a Kineto op inside its caller, "EagerExecute"
 * inside "train_function").
 *
 * Per thread, a slice is the child of the innermost open slice that
 * contains it (ties: the longer one is the parent, then the earlier in
 * the caller's order). A slice that starts inside another but ends after
 * it overlaps it partially: it is not its child but its sibling (the child
 * of the next slice out that contains it), and nothing is subtracted
 * twice. A slice's self time is its duration minus the union of its
 * children's spans, cut at its end. Sorting once (by thread, start, longer
 * first) and a stack make it n log n.
 *
 * The caller owns the slices; tl_summary_nest fills their self and parent.
 */
#ifndef TL_ANALYSIS_SUMMARY_NEST_H
#define TL_ANALYSIS_SUMMARY_NEST_H

#include <stddef.h>
#include <stdint.h>

typedef struct tl_summary_slice {
	uint64_t thread;    /* slices nest only within one thread */
	int64_t start, end; /* ns, end >= start */
	int64_t self;	    /* out: ns not covered by children */
	int64_t parent;	    /* out: index of the parent slice, or -1 */
} tl_summary_slice;

/* Fills self and parent of every slice; returns how many have a parent
 * (0: nothing nests, every self is the duration). */
size_t tl_summary_nest(tl_summary_slice *slices, size_t n);

/* The indices of the slices sorted by (thread, start, longer first,
 * index): an array of n the caller frees with g_free. */
uint32_t *tl_summary_nest_order(const tl_summary_slice *slices, size_t n);

#endif
