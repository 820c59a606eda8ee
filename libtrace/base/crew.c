#include "base/crew.h"

#include "base/warn.h"

#include <glib.h>

/* Below this many items a part is not worth a thread. */
#define PART_MIN 4096
#define PARTS_MAX 16
#define THREADS_MAX 8

struct crew {
	size_t n, parts;
	tl_crew_fn fn;
	void *ctx;
	tl_warn_log **logs; /* per part */
	gint next;
};

struct hand {
	struct crew *crew;
	tl_arena *arena;
};

size_t tl_crew_parts(size_t n)
{
	size_t parts = n / PART_MIN;
	if (parts > PARTS_MAX)
		parts = PARTS_MAX;
	return parts > 0 ? parts : 1;
}

static void work(struct crew *c, tl_arena *arena)
{
	for (;;) {
		gint p = g_atomic_int_add(&c->next, 1);
		if (p < 0 || (size_t)p >= c->parts)
			return;
		size_t lo = c->n * (size_t)p / c->parts;
		size_t hi = c->n * ((size_t)p + 1) / c->parts;
		c->logs[p] = tl_warn_log_begin();
		c->fn(c->ctx, (size_t)p, lo, hi, arena);
		tl_warn_log_end();
	}
}

static gpointer hand_thread(gpointer data)
{
	struct hand *h = data;
	work(h->crew, h->arena);
	return NULL;
}

void tl_crew_for(size_t n, tl_crew_fn fn, void *ctx, tl_arena *arena)
{
	size_t parts = tl_crew_parts(n);
	unsigned threads = g_get_num_processors();
	if (threads > THREADS_MAX)
		threads = THREADS_MAX;
	if (threads > parts)
		threads = (unsigned)parts;
	if (threads <= 1) {
		for (size_t p = 0; p < parts; p++)
			fn(ctx, p, n * p / parts, n * (p + 1) / parts, arena);
		return;
	}
	struct crew c = {.n = n, .parts = parts, .fn = fn, .ctx = ctx};
	c.logs = g_new0(tl_warn_log *, parts);
	GThread *t[THREADS_MAX];
	struct hand h[THREADS_MAX];
	unsigned started = 0;
	while (started + 1 < threads) {
		h[started] = (struct hand){.crew = &c, .arena = tl_arena_new()};
		t[started] = g_thread_try_new("tl-crew", hand_thread, &h[started], NULL);
		if (t[started] == NULL) {
			tl_arena_free(h[started].arena);
			break;
		}
		started++;
	}
	work(&c, arena);
	for (unsigned i = 0; i < started; i++) {
		g_thread_join(t[i]);
		tl_arena_adopt(arena, h[i].arena);
	}
	for (size_t p = 0; p < parts; p++)
		tl_warn_log_tell(c.logs[p]);
	g_free(c.logs);
}
