#include "base/progress.h"

#include <glib.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#define PROGRESS_PERIOD 0.2

/* $TFTRACE_PROGRESS_DELAY: seconds before the first line; anything but a
 * number >= 0 leaves the default. */
static double progress_delay(void)
{
	const char *s = getenv("TFTRACE_PROGRESS_DELAY");
	char *end = NULL;
	double d = s != NULL ? g_ascii_strtod(s, &end) : -1;
	if (s == NULL || end == s || *end != '\0' || !(d >= 0 && d <= 1e6))
		return PROGRESS_PERIOD;
	return d;
}

void tl_progress_begin(tl_progress *p, const char *prog, bool quiet)
{
	*p = (tl_progress){.prog = prog, .on = !quiet && isatty(STDERR_FILENO)};
	p->started = g_get_monotonic_time() / 1e6;
	/* a line is drawn PROGRESS_PERIOD after the last one */
	p->last = p->started - PROGRESS_PERIOD + (p->on ? progress_delay() : 0);
}

/* One lock for every progress line: workers of one tool report to it. */
G_LOCK_DEFINE_STATIC(progress);

static void progress_draw(tl_progress *p, uint64_t bytes, bool force)
{
	double now = g_get_monotonic_time() / 1e6;
	if (!p->on || (!force && now - p->last < PROGRESS_PERIOD))
		return;
	p->last = now;
	p->drawn = true;
	double mb = (double)bytes / 1e6, dt = now - p->started;
	fprintf(stderr, "\r%s: %zu run%s, %.0f MB, %.0f MB/s   ", p->prog, p->runs,
		p->runs == 1 ? "" : "s", mb, dt > 0 ? mb / dt : 0);
	fflush(stderr);
}

void tl_progress_run(tl_progress *p, uint64_t input_offset)
{
	G_LOCK(progress);
	p->runs++;
	progress_draw(p, p->bytes + input_offset, false);
	G_UNLOCK(progress);
}

void tl_progress_input_done(tl_progress *p, uint64_t size)
{
	G_LOCK(progress);
	p->bytes += size;
	progress_draw(p, p->bytes, false);
	G_UNLOCK(progress);
}

void tl_progress_add(tl_progress *p, size_t runs, uint64_t bytes)
{
	G_LOCK(progress);
	p->runs += runs;
	p->bytes += bytes;
	progress_draw(p, p->bytes, false);
	G_UNLOCK(progress);
}

void tl_progress_end(tl_progress *p)
{
	if (p->drawn) {
		fprintf(stderr, "\r\033[K");
		fflush(stderr);
	}
}
