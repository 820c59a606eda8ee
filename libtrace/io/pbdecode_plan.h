/*
 * pbdecode_plan: what the decoder knows of a message type, built once from
 * protobuf-c's descriptors per choice of fields (tl_pbdecode_fields): for
 * each field number, how its value is read, where it goes and whether it is
 * stored. Private to the decoder (pbdecode.c walks the bytes with it); a
 * plan lives as long as the process.
 */
#ifndef TL_IO_PBDECODE_PLAN_H
#define TL_IO_PBDECODE_PLAN_H

#include "io/pbdecode.h"

#include <protobuf-c/protobuf-c.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* How a field holds its values. */
enum { TL_LABEL_SINGLE, TL_LABEL_ONEOF, TL_LABEL_REPEATED };

/* Repeated fields of one message type, plus its unknown fields. */
#define TL_PBDECODE_MAX_COUNTED 32

typedef struct tl_pbdecode_plan tl_pbdecode_plan;

/* How one field is read and where its value goes. */
typedef struct tl_pbdecode_plan_field {
	uint32_t offset;  /* the member */
	uint32_t qoffset; /* its count, oneof case or has_ flag */
	uint8_t type;	  /* ProtobufCType */
	uint8_t label;	  /* TL_LABEL_* */
	uint8_t want;	  /* wire type protobuf-c accepts for one value */
	bool skip;	  /* checked, not stored */
	bool packable;
	bool has_flag; /* proto2 optional scalar: set its has_ flag */
	uint8_t elt;   /* bytes of one value */
	uint8_t slot;  /* repeated, not skipped: its count's place in the record */
	uint8_t group; /* oneof member: index of its oneof's first member */
	bool movable;  /* oneof member: merge_messages moves it to a later message */
	const tl_pbdecode_plan *sub;
} tl_pbdecode_plan_field;

/* One message type's plan. */
struct tl_pbdecode_plan {
	const ProtobufCMessageDescriptor *desc;
	void *tmpl; /* an initialized message */
	size_t size;
	uint32_t n_ids;
	int16_t *by_id; /* field number -> index in fields, or -1 */
	tl_pbdecode_plan_field *fields;
	unsigned n_counted;
	bool keep_unknown;
	uint8_t unknown_slot;
	uint8_t counted[TL_PBDECODE_MAX_COUNTED]; /* slot -> field index */
};

/* The plan of `desc` for `fields`, built on first use (from any thread). */
const tl_pbdecode_plan *tl_pbdecode_plan_get(const ProtobufCMessageDescriptor *desc,
					     tl_pbdecode_fields fields);

/* The plan of field number `tag`; NULL for a field the type lacks. */
static inline const tl_pbdecode_plan_field *tl_pbdecode_plan_find(const tl_pbdecode_plan *m,
								  uint32_t tag)
{
	if (tag >= m->n_ids || m->by_id[tag] < 0)
		return NULL;
	return &m->fields[m->by_id[tag]];
}

#endif
