/*
 * memreport_impl: what the report's backends (text and CSV in
 * memreport.c, JSON in memreport_json.c) and the memory trace share.
 */
#ifndef TL_EMIT_MEMREPORT_IMPL_H
#define TL_EMIT_MEMREPORT_IMPL_H

#include "emit/memreport.h"

#include <glib.h>

/* A report backend: what each step of tl_memreport_* writes. */
struct tl_memreport_backend {
	const char *name;
	void (*begin)(tl_memreport *r);
	void (*run)(tl_memreport *r, const tl_memory *mem);
	void (*end)(tl_memreport *r);
};

extern const struct tl_memreport_backend tl_memreport_json;

/* The largest peak of an allocator over the runs so far. */
struct tl_memreport_max {
	char *allocator;
	int64_t peak;
	char *run;
};

/* "DT_FLOAT", or "" when unknown. */
const char *tl_memreport_dtype(const tl_buffer *b);
/* "32x56x56x128", "scalar", or "" when unknown, into s. */
void tl_memreport_shape(const tl_buffer *b, GString *s);
/* The buffer's name: its first tensor, "node (temp)", "allocation N". */
const char *tl_memreport_tensor(const tl_memory *mem, const tl_buffer *b);
const char *tl_memreport_producer(const tl_memory *mem, const tl_buffer *b);
const char *tl_memreport_op(const tl_memory *mem, const tl_buffer *b);
/* The last consumer, or NULL (unused, temporaries). */
const char *tl_memreport_last_consumer(const tl_memory *mem, const tl_buffer *b);
/* An estimated birth the samples could not place, and why. */
bool tl_memreport_unplaced(const tl_buffer *b);
const char *tl_memreport_unplaced_why(const tl_buffer *b);

#endif
