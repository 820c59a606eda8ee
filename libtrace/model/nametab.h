/*
 * nametab: a hash table from (scope, name) to a 32-bit value, for the
 * lookups a run is built from (node names within a partition, executions
 * within a device). A 100 MB dump asks it a million times, each name a
 * cold line of the input: so a name is hashed eight bytes at a time, once,
 * and compared only where hash, scope and length agree; a name may be a
 * prefix of a longer string ("node:1" names "node"); nothing is allocated
 * per entry.
 *
 * The table keeps pointers to the names, not copies: they must outlive it.
 * The caller owns the table (tl_nametab_free).
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
