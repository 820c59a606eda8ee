/*
 * alloc_event: one allocator event of a profile that records allocations
 * by address (PyTorch/Kineto "[memory]" instants, the TF2/JAX XSpace's
 * MemoryAllocation and MemoryDeallocation events), as its readers hand them
 * to the memory analysis, and the tensor objects and allocator counters of
 * a TF1 timeline.py trace made with show_memory=True (io/tlmem.h).
 * RunMetadata records memory per op instead and does not come this way.
 *
 * The readers own the events and their strings (an arena); times are
 * nanoseconds on the input's own clock, in the input's order.
 */
#ifndef TL_IO_ALLOC_EVENT_H
#define TL_IO_ALLOC_EVENT_H

#include <stddef.h>
#include <stdint.h>

typedef struct tl_alloc_event {
	int64_t t_ns;
	const char *device;	 /* "/device:GPU:0", "/host:CPU" */
	const char *allocator;	 /* "GPU_0_bfc", "cuda:0"; the device when the input names none */
	uint64_t addr;		 /* 0: not recorded */
	int64_t bytes;		 /* > 0 an allocation, < 0 a free */
	int64_t total_allocated; /* the allocator's bytes in use after it; -1: not recorded */
	int64_t total_reserved;	 /* the allocator's reserved bytes after it; -1: not recorded */
	int64_t peak;		 /* the allocator's own peak so far; -1: not recorded */
	const char *op;		 /* the op it happened in, or NULL */
	/* what an input that records tensors rather than blocks says of one
	 * (timeline.py: io/tlmem.h), on its allocation; else NULL and 0 */
	const char *what;  /* dtype and shape, "float[10,10]" */
	int64_t allocated; /* the bytes the allocator gave where bytes are those
			      requested; 0: not recorded */
} tl_alloc_event;

typedef struct tl_alloc_events {
	tl_alloc_event *ev;
	size_t n;
	const char *clock; /* what t_ns counts from, for reports ("trace start") */
} tl_alloc_events;

/* Producers: tl_xspace_alloc_events (io/xspace.h), tl_kineto_alloc_events
 * (io/kineto_memory.h), tl_tlmem_alloc_events (io/tlmem.h). */

#endif
