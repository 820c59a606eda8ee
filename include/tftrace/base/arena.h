/*
 * arena: one bump allocator per run. Everything decoded or built for a run
 * (protobuf-c messages, model arrays, interned strings) is carved from its
 * arena and freed at once with tl_arena_free(): a 100 MB dump does not become
 * millions of small mallocs and frees.
 *
 * The arena owns its blocks. Pointers into it stay valid until it is freed.
 * Blocks after the first are large and backed by huge pages where the system
 * has them (fresh pages cost a fault each). An arena is used by one thread at
 * a time.
 */
#ifndef TL_BASE_ARENA_H
#define TL_BASE_ARENA_H

#include <protobuf-c/protobuf-c.h>
#include <stddef.h>

typedef struct tl_arena tl_arena;

tl_arena *tl_arena_new(void);
void tl_arena_free(tl_arena *a);

/* Memory aligned for any type; never NULL (aborts when out of memory, like
 * g_malloc). Contents are not zeroed by tl_arena_alloc. */
void *tl_arena_alloc(tl_arena *a, size_t size);
void *tl_arena_zalloc(tl_arena *a, size_t size);
char *tl_arena_strdup(tl_arena *a, const char *s);
char *tl_arena_strndup(tl_arena *a, const char *s, size_t n);

/* Moves the blocks of `other` into `a` and frees `other`: what was carved
 * from `other` now lives until `a` is freed (one arena per thread while
 * decoding, one run arena after). */
void tl_arena_adopt(tl_arena *a, tl_arena *other);

/* Bytes handed out so far (for the benchmarks). */
size_t tl_arena_used(const tl_arena *a);

/* A protobuf-c allocator backed by the arena: free is a no-op. The returned
 * struct lives inside the arena. */
ProtobufCAllocator *tl_arena_protobuf(tl_arena *a);

#endif
