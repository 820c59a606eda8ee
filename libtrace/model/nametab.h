/*
 * nametab: a hash table from (scope, name) to a 32-bit value, for the
 * lookups a run is built from (node names within a partition, executions
 * within a device). A 100 MB dump asks it a million times, each name a
 * cold line of the input: so a name is hashed eight bytes at a time, once,
 * and compared only where hash and scope agree; a name may be a prefix of a
 * longer string ("node:1" names "node").
 *
 * The table copies each name it is given into a pool of its own, beside its
 * scope and value, and a slot holds only the hash and where the copy is (8
 * bytes): a lookup touches one line of slots and one of the pool, never the
 * input, whose names lie one to a line across megabytes. A 10 MB run's 9,000
 * nodes then take about 0.7 MB, where slots of pointers into the run took
 * 0.8 MB of slots and a line of the run per name, and missed the caches.
 * The caller owns the table (tl_nametab_free); the names need not outlive it.
 */
#ifndef TL_MODEL_NAMETAB_H
#define TL_MODEL_NAMETAB_H

#include <stddef.h>
#include <stdint.h>

typedef struct tl_nametab tl_nametab;

/* What tl_nametab_get returns for a name it does not hold. */
#define TL_NAMETAB_NONE UINT32_MAX

/* A name as the table sees it: its bytes and their hash. */
typedef struct tl_name {
	const char *s;
	uint32_t len;
	uint32_t hash;
} tl_name;

/* s[0..len): len at most UINT32_MAX - 1 (longer names are cut there). */
tl_name tl_nametab_name(const char *s, size_t len);
tl_name tl_nametab_name_str(const char *s);

/* `expect`: how many entries to size for (the table grows past it). */
tl_nametab *tl_nametab_new(size_t expect);
void tl_nametab_free(tl_nametab *t);
size_t tl_nametab_size(const tl_nametab *t);

/* The value of (scope, name), or TL_NAMETAB_NONE. */
uint32_t tl_nametab_get(const tl_nametab *t, uint32_t scope, tl_name name);

/* Adds (scope, name) -> value unless the table holds it; returns the value
 * the table holds for it afterwards (the older one when it was there). */
uint32_t tl_nametab_put(tl_nametab *t, uint32_t scope, tl_name name, uint32_t value);

#endif
