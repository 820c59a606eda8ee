#include "base/arena.h"

#include <glib.h>
#include <stdint.h>
#include <string.h>
#include <sys/mman.h>

/* Blocks grow: the first is small and malloc'd (a small run costs what it
 * touches); later ones double up to BLOCK_MAX and are mapped 2 MiB aligned
 * with MADV_HUGEPAGE. A fresh 4 KiB page costs a page fault; where faults are
 * dear (a virtual machine: tens of microseconds each) a 100 MB run spent more
 * time faulting its arena in than decoding, and one fault per 2 MiB page
 * removes that cost. */
#define BLOCK_FIRST (64u << 10)
#define BLOCK_MAX (64u << 20)
#define HUGE_PAGE (2u << 20)
#define ALIGN 16

struct block {
	struct block *next;
	size_t size; /* usable bytes in data */
	size_t used;
	size_t mapped; /* bytes mapped (block included), or 0: g_malloc'd */
	_Alignas(ALIGN) unsigned char data[];
};

struct tl_arena {
	struct block *head; /* the block allocations come from */
	size_t total;
	size_t next_size; /* size of the next block */
	ProtobufCAllocator pb;
};

static void *pb_alloc(void *data, size_t size)
{
	return tl_arena_alloc(data, size);
}

static void pb_free(void *data, void *ptr)
{
	(void)data;
	(void)ptr;
}

tl_arena *tl_arena_new(void)
{
	tl_arena *a = g_new0(tl_arena, 1);
	a->pb.alloc = pb_alloc;
	a->pb.free = pb_free;
	a->pb.allocator_data = a;
	a->next_size = BLOCK_FIRST;
	return a;
}

/* Mapped blocks of freed arenas, kept for the next arena of the process:
 * a tool reads runs one after the other, each arena taking the sizes the
 * last one took, and a block taken again costs no fresh pages (the kernel
 * zeroes each one it maps: for a file of many runs that was a fifth of the
 * reading time). At most CACHE_MAX bytes are kept, so the memory held is
 * what one run used. */
#define CACHE_MAX (256u << 20)
static GMutex cache_lock;
static struct block *cache;
static size_t cache_bytes;

static void block_free(struct block *b)
{
	if (b->mapped == 0) {
		g_free(b);
		return;
	}
	g_mutex_lock(&cache_lock);
	if (cache_bytes + b->mapped <= CACHE_MAX) {
		b->next = cache;
		cache = b;
		cache_bytes += b->mapped;
		b = NULL;
	}
	g_mutex_unlock(&cache_lock);
	if (b != NULL)
		munmap(b, b->mapped);
}

/* The smallest cached block of `mapped` bytes or more (up to twice as
 * many: a big block is kept for a big request), or NULL. A run's arrays
 * (a record per execution) differ in size from one run to the next by a
 * few records: an exact size would seldom be found again. */
static struct block *cache_take(size_t mapped)
{
	g_mutex_lock(&cache_lock);
	struct block **best = NULL;
	for (struct block **at = &cache; *at != NULL; at = &(*at)->next)
		if ((*at)->mapped >= mapped && (*at)->mapped / 2 <= mapped &&
		    (best == NULL || (*at)->mapped < (*best)->mapped))
			best = at;
	struct block *b = best != NULL ? *best : NULL;
	if (b != NULL) {
		*best = b->next;
		cache_bytes -= b->mapped;
	}
	g_mutex_unlock(&cache_lock);
	return b;
}

void tl_arena_free(tl_arena *a)
{
	if (a == NULL)
		return;
	struct block *b = a->head;
	while (b != NULL) {
		struct block *next = b->next;
		block_free(b);
		b = next;
	}
	g_free(a);
}

/* `bytes` (a multiple of HUGE_PAGE) of fresh zeroed memory aligned to
 * HUGE_PAGE, so the kernel can back it with huge pages. */
static void *map_aligned(size_t bytes)
{
	size_t span = bytes + HUGE_PAGE;
	unsigned char *p =
	    mmap(NULL, span, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (p == MAP_FAILED)
		g_error("arena: cannot map %zu bytes", bytes);
	uintptr_t at = ((uintptr_t)p + HUGE_PAGE - 1) & ~(uintptr_t)(HUGE_PAGE - 1);
	size_t head = (size_t)(at - (uintptr_t)p);
	if (head > 0)
		munmap(p, head);
	if (span - head > bytes)
		munmap((unsigned char *)at + bytes, span - head - bytes);
#ifdef MADV_HUGEPAGE
	madvise((void *)at, bytes, MADV_HUGEPAGE);
#endif
	return (void *)at;
}

static struct block *block_new(size_t want)
{
	size_t head = offsetof(struct block, data);
	if (want > SIZE_MAX - head - HUGE_PAGE)
		g_error("arena: allocation of %zu bytes overflows", want);
	struct block *b;
	size_t mapped = 0;
	if (want + head < HUGE_PAGE) {
		b = g_malloc(head + want);
	} else {
		mapped = (want + head + HUGE_PAGE - 1) & ~(size_t)(HUGE_PAGE - 1);
		b = cache_take(mapped);
		if (b != NULL)
			mapped = b->mapped;
		else
			b = map_aligned(mapped);
		want = mapped - head;
	}
	b->next = NULL;
	b->size = want;
	b->used = 0;
	b->mapped = mapped;
	return b;
}

void *tl_arena_alloc(tl_arena *a, size_t size)
{
	size_t need = (size + (ALIGN - 1)) & ~(size_t)(ALIGN - 1);
	if (need < size)
		g_error("arena: allocation of %zu bytes overflows", size);
	struct block *b = a->head;
	if (b != NULL && b->size - b->used >= need) {
		void *p = b->data + b->used;
		b->used += need;
		a->total += need;
		return p;
	}
	if (b != NULL && need > a->next_size / 2) {
		/* A big request gets its own block behind the current one, so
		 * the current block's free space is not lost. */
		struct block *big = block_new(need);
		big->next = b->next;
		b->next = big;
		big->used = need;
		a->total += need;
		return big->data;
	}
	/* The block's header counts, so a block of next_size maps exactly. */
	size_t room = a->next_size - offsetof(struct block, data);
	size_t size_new = room > need ? room : need;
	if (a->next_size < BLOCK_MAX)
		a->next_size *= 2;
	b = block_new(size_new);
	b->next = a->head;
	a->head = b;
	b->used = need;
	a->total += need;
	return b->data;
}

void *tl_arena_zalloc(tl_arena *a, size_t size)
{
	void *p = tl_arena_alloc(a, size);
	memset(p, 0, size);
	return p;
}

char *tl_arena_strndup(tl_arena *a, const char *s, size_t n)
{
	char *p = tl_arena_alloc(a, n + 1);
	memcpy(p, s, n);
	p[n] = '\0';
	return p;
}

char *tl_arena_strdup(tl_arena *a, const char *s)
{
	return tl_arena_strndup(a, s, strlen(s));
}

void tl_arena_adopt(tl_arena *a, tl_arena *other)
{
	if (other == NULL)
		return;
	struct block *last = other->head;
	if (last != NULL) {
		while (last->next != NULL)
			last = last->next;
		/* Behind the current block: allocations go on from it. */
		if (a->head == NULL) {
			a->head = other->head;
		} else {
			last->next = a->head->next;
			a->head->next = other->head;
		}
	}
	a->total += other->total;
	g_free(other);
}

size_t tl_arena_used(const tl_arena *a)
{
	return a->total;
}

ProtobufCAllocator *tl_arena_protobuf(tl_arena *a)
{
	return &a->pb;
}
