/*
 * group: items grouped by a key in linear time (a counting sort, stable):
 * the items of key k are members[first[k] .. first[k + 1]), in item order.
 * The passes that group executions by node, edges by source, tracer
 * devices by executor and predecessors by execution all use it, so that a
 * million keys never cost a million squared.
 *
 * The two arrays are the caller's (tl_group_free); the keys stay theirs.
 */
#ifndef TL_BASE_GROUP_H
#define TL_BASE_GROUP_H

#include <stddef.h>
#include <stdint.h>

/* A key that puts its item in no group. */
#define TL_GROUP_NONE UINT32_MAX

typedef struct tl_group {
	uint32_t *first;   /* n_keys + 1 entries */
	uint32_t *members; /* item indices */
} tl_group;

/* Groups items [0, n) by key[i] (< n_keys, or TL_GROUP_NONE). Free with
 * tl_group_free. */
void tl_group_by(tl_group *g, const uint32_t *key, size_t n, uint32_t n_keys);
void tl_group_free(tl_group *g);

#endif
