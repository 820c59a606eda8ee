#include "model/nametab.h"

#include <glib.h>
#include <stdbool.h>
#include <string.h>

/* A slot: the hash of (scope, name), and where its record is in the pool,
 * in units of RECORD_ALIGN bytes (0: a free slot). */
struct slot {
	uint32_t hash;
	uint32_t at;
};

/* A pool record: the key and its value, the name's bytes after it, padded
 * to RECORD_ALIGN. Records lie in the order they were put. */
struct record {
	uint32_t scope;
	uint32_t value;
	uint32_t len;
	char name[];
};

#define RECORD_ALIGN 8
/* The pool's first unit is no record, so that 0 marks a free slot. */
#define POOL_FIRST RECORD_ALIGN

struct tl_nametab {
	struct slot *slots;
	size_t mask; /* slots - 1, a power of two minus one */
	size_t used;
	unsigned char *pool;
	size_t pool_used, pool_size; /* bytes */
};

#define MUL64 UINT64_C(0x9E3779B97F4A7C15)

static uint64_t mix(uint64_t h, uint64_t w)
{
	h = (h ^ w) * MUL64;
	return h ^ (h >> 29);
}

tl_name tl_nametab_name(const char *s, size_t len)
{
	if (len >= UINT32_MAX)
		len = UINT32_MAX - 1;
	uint64_t h = (uint64_t)len * MUL64;
	size_t i = 0;
	for (; i + 8 <= len; i += 8) {
		uint64_t w;
		memcpy(&w, s + i, 8);
		h = mix(h, w);
	}
	if (i < len) {
		uint64_t w = 0;
		memcpy(&w, s + i, len - i);
		h = mix(h, w);
	}
	h = mix(h, 0);
	return (tl_name){.s = s, .len = (uint32_t)len, .hash = (uint32_t)(h >> 32)};
}

tl_name tl_nametab_name_str(const char *s)
{
	return tl_nametab_name(s, strlen(s));
}

/* The hash a slot holds: the name's and the scope's together. Its low bits
 * pick the first slot tried. */
static uint32_t key_hash(uint32_t scope, uint32_t hash)
{
	uint64_t h = ((uint64_t)hash << 32 | scope) * MUL64;
	return (uint32_t)(h >> 32);
}

static const struct record *record_at(const tl_nametab *t, uint32_t at)
{
	return (const struct record *)(t->pool + (size_t)at * RECORD_ALIGN);
}

tl_nametab *tl_nametab_new(size_t expect)
{
	tl_nametab *t = g_new0(tl_nametab, 1);
	size_t n = 16;
	while (n < expect * 2)
		n *= 2;
	t->slots = g_new0(struct slot, n);
	t->mask = n - 1;
	/* names of about 40 bytes, as TensorFlow's scoped node names are */
	t->pool_size = POOL_FIRST + (expect > 0 ? expect : 16) * 64;
	t->pool = g_malloc(t->pool_size);
	t->pool_used = POOL_FIRST;
	return t;
}

void tl_nametab_free(tl_nametab *t)
{
	if (t == NULL)
		return;
	g_free(t->pool);
	g_free(t->slots);
	g_free(t);
}

size_t tl_nametab_size(const tl_nametab *t)
{
	return t->used;
}

static inline bool same(const struct record *r, uint32_t scope, tl_name name)
{
	return r->scope == scope && r->len == name.len && memcmp(r->name, name.s, name.len) == 0;
}

/* The slot that holds (scope, name), or the free slot where it would go. */
static inline __attribute__((always_inline)) size_t find(const tl_nametab *t, uint32_t scope,
							  tl_name name, uint32_t h)
{
	for (size_t i = h & t->mask;; i = (i + 1) & t->mask) {
		const struct slot *s = &t->slots[i];
		if (s->at == 0)
			return i;
		if (s->hash == h && same(record_at(t, s->at), scope, name))
			return i;
	}
}

uint32_t tl_nametab_get(const tl_nametab *t, uint32_t scope, tl_name name)
{
	const struct slot *s = &t->slots[find(t, scope, name, key_hash(scope, name.hash))];
	return s->at != 0 ? record_at(t, s->at)->value : TL_NAMETAB_NONE;
}

static void grow(tl_nametab *t)
{
	struct slot *old = t->slots;
	size_t n = t->mask + 1;
	t->slots = g_new0(struct slot, n * 2);
	t->mask = n * 2 - 1;
	for (size_t k = 0; k < n; k++) {
		if (old[k].at == 0)
			continue;
		size_t i = old[k].hash & t->mask;
		while (t->slots[i].at != 0)
			i = (i + 1) & t->mask;
		t->slots[i] = old[k];
	}
	g_free(old);
}

/* Copies the record of (scope, name) -> value into the pool; returns its
 * place in RECORD_ALIGN units. */
static uint32_t pool_add(tl_nametab *t, uint32_t scope, tl_name name, uint32_t value)
{
	size_t size = (sizeof(struct record) + name.len + RECORD_ALIGN - 1) / RECORD_ALIGN *
		      RECORD_ALIGN;
	/* A slot says where a record is in 32 bits of units: 32 GiB of names,
	 * more than any run's input leaves room for in memory. */
	if (t->pool_used + size > (size_t)UINT32_MAX * RECORD_ALIGN)
		g_error("nametab: over %zu bytes of names", (size_t)UINT32_MAX * RECORD_ALIGN);
	if (t->pool_used + size > t->pool_size) {
		while (t->pool_used + size > t->pool_size)
			t->pool_size *= 2;
		t->pool = g_realloc(t->pool, t->pool_size);
	}
	struct record *r = (struct record *)(t->pool + t->pool_used);
	r->scope = scope;
	r->value = value;
	r->len = name.len;
	if (name.len > 0)
		memcpy(r->name, name.s, name.len);
	uint32_t at = (uint32_t)(t->pool_used / RECORD_ALIGN);
	t->pool_used += size;
	return at;
}

uint32_t tl_nametab_put(tl_nametab *t, uint32_t scope, tl_name name, uint32_t value)
{
	uint32_t h = key_hash(scope, name.hash);
	struct slot *s = &t->slots[find(t, scope, name, h)];
	if (s->at != 0)
		return record_at(t, s->at)->value;
	s->hash = h;
	s->at = pool_add(t, scope, name, value);
	if (++t->used * 2 > t->mask + 1)
		grow(t);
	return value;
}
