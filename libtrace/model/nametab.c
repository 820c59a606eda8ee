#include "model/nametab.h"

#include <glib.h>
#include <stdbool.h>
#include <string.h>

struct entry {
	const char *name; /* NULL: a free slot */
	uint32_t len;
	uint32_t hash;
	uint32_t scope;
	uint32_t value;
};

struct tl_nametab {
	struct entry *slots;
	size_t mask; /* slots - 1, a power of two minus one */
	size_t used;
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

static size_t slot_of(const tl_nametab *t, uint32_t scope, uint32_t hash)
{
	uint64_t h = ((uint64_t)hash << 32 | scope) * MUL64;
	return (size_t)(h >> 32) & t->mask;
}

tl_nametab *tl_nametab_new(size_t expect)
{
	tl_nametab *t = g_new0(tl_nametab, 1);
	size_t n = 16;
	while (n < expect * 2)
		n *= 2;
	t->slots = g_new0(struct entry, n);
	t->mask = n - 1;
	return t;
}

void tl_nametab_free(tl_nametab *t)
{
	if (t == NULL)
		return;
	g_free(t->slots);
	g_free(t);
}

size_t tl_nametab_size(const tl_nametab *t)
{
	return t->used;
}

static bool same(const struct entry *e, uint32_t scope, tl_name name)
{
	return e->hash == name.hash && e->scope == scope && e->len == name.len &&
	       (e->name == name.s || memcmp(e->name, name.s, name.len) == 0);
}

uint32_t tl_nametab_get(const tl_nametab *t, uint32_t scope, tl_name name)
{
	for (size_t i = slot_of(t, scope, name.hash);; i = (i + 1) & t->mask) {
		const struct entry *e = &t->slots[i];
		if (e->name == NULL)
			return TL_NAMETAB_NONE;
		if (same(e, scope, name))
			return e->value;
	}
}

static void grow(tl_nametab *t)
{
	struct entry *old = t->slots;
	size_t n = t->mask + 1;
	t->slots = g_new0(struct entry, n * 2);
	t->mask = n * 2 - 1;
	for (size_t k = 0; k < n; k++) {
		if (old[k].name == NULL)
			continue;
		size_t i = slot_of(t, old[k].scope, old[k].hash);
		while (t->slots[i].name != NULL)
			i = (i + 1) & t->mask;
		t->slots[i] = old[k];
	}
	g_free(old);
}

uint32_t tl_nametab_put(tl_nametab *t, uint32_t scope, tl_name name, uint32_t value)
{
	size_t i = slot_of(t, scope, name.hash);
	for (;; i = (i + 1) & t->mask) {
		struct entry *e = &t->slots[i];
		if (e->name == NULL)
			break;
		if (same(e, scope, name))
			return e->value;
	}
	/* A name of no bytes still needs a pointer that marks the slot used. */
	t->slots[i] = (struct entry){.name = name.s != NULL ? name.s : "",
				     .len = name.len,
				     .hash = name.hash,
				     .scope = scope,
				     .value = value};
	if (++t->used * 2 > t->mask + 1)
		grow(t);
	return value;
}
