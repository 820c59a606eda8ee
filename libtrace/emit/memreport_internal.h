/*
 * memreport_internal: what the report's backends (text and CSV in
 * memreport.c, JSON in memreport_json.c) and the memory trace share.
 */
#ifndef TL_EMIT_MEMREPORT_INTERNAL_H
#define TL_EMIT_MEMREPORT_INTERNAL_H

#include "emit/memreport.h"

#include <glib.h>

/* A report backend: what each step of tl_memreport_* writes. */
struct tl_memreport_backend {
	const char *name;
	void (*begin)(tl_memreport *r);
	void (*run)(tl_memreport *r, const tl_memview *v);
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
/* An estimated birth the samples could not place, and why. */
bool tl_memreport_unplaced(const tl_buffer *b);
const char *tl_memreport_unplaced_why(const tl_buffer *b);
/* What the report calls a block: a buffer's name, an event block's
 * address ("0x7f..."), into buf for the latter. */
const char *tl_memreport_name(const tl_memview_block *b, char *buf, size_t size);
/* Microseconds of a view time as the JSON and CSV give them: whole, or
 * with up to three decimals; "" for the sentinels. */
void tl_memreport_us(char *buf, size_t size, int64_t ns);

#endif
