/* fuzz_xspace: the TF2/JAX profiler XSpace reader (io/xspace.h): the input
 * forced as an XSpace (--input-format xspace) and sniffed (auto), every run
 * it yields modelled (tl_run_next), each run checked for what the model
 * promises whatever the input (times inside +-2^61 ns and ordered, indexes
 * in range), then written as a Chrome trace, which must be valid JSON; the
 * forced read keeps the allocator events, each run's within its span, and
 * checks every run's wall against the one told ahead (tl_run_walls_ahead);
 * and the allocator events (tl_xspace_alloc_events), checked for their
 * invariants. Seeds: tests/fuzz/seeds/xspace/, made by xspace-gen:
 *   two-steps      --steps 2 --ops 6
 *   two-gpus       --steps 2 --ops 8 --gpus 2 --threads 2
 *   cpu-only       --ops 6 --gpus 0 --mem 2
 *   spread         --steps 3 --ops 6 --mem 2 --step-spread 5000
 *   KIND           --steps 2 --ops 6 --hostile KIND (all but million-lines) */
#include "fuzz.h"

#include "emit/chrome.h"
#include "emit/optrace.h"
#include "base/arena.h"
#include "io/source.h"
#include "model/run.h"

#include "io/xspace.h"

/* What tl_run_build promises of any run (model/run.h). */
static void check_run(const tl_run *run)
{
	for (size_t i = 0; i < run->n_execs; i++) {
		const tl_exec *e = &run->execs[i];
		if (e->start < -TL_TIME_LIMIT_NS || e->start > TL_TIME_LIMIT_NS ||
		    e->end < -TL_TIME_LIMIT_NS || e->end > TL_TIME_LIMIT_NS || e->end < e->start)
			abort();
		if (e->device >= run->n_devices)
			abort();
		if (e->launcher >= 0 && (size_t)e->launcher >= run->n_execs)
			abort();
		if (e->start < run->t_begin || e->end > run->t_end)
			abort();
	}
	for (size_t d = 0; d < run->n_devices; d++) {
		const tl_device *dev = &run->devices[d];
		if ((size_t)dev->first_exec + dev->n_exec > run->n_execs || dev->name == NULL)
			abort();
		if (dev->executor >= 0 && (size_t)dev->executor >= run->n_devices)
			abort();
	}
}

/* A run's allocator events: within its span where the XSpace has steps. */
static void check_allocs(const tl_run *run, bool steps)
{
	if (run->allocs == NULL)
		return;
	for (size_t i = 0; i < run->allocs->n; i++) {
		const tl_alloc_event *a = &run->allocs->ev[i];
		if (a->device == NULL || a->allocator == NULL)
			abort();
		if (steps && (a->t_ns < run->t_begin || a->t_ns > run->t_end))
			abort();
	}
}

static void read_runs(const uint8_t *data, size_t size, tl_format forced, bool allocs)
{
	tl_error err;
	tl_source *src = NULL;
	if (tl_source_open(&src, fuzz_input_path(data, size), forced, &err) < 0) {
		if (err.msg[0] == '\0')
			abort(); /* an error says what went wrong */
		tl_source_close(src);
		return;
	}
	if (tl_source_format(src) == TL_FORMAT_CHROME) {
		tl_source_close(src);
		return;
	}
	tl_optrace_opts opts;
	tl_optrace_opts_init(&opts);
	tl_output *o = fuzz_output();
	tl_chrome w;
	tl_chrome_begin(&w, o);
	int64_t next_pid = 1;
	uint64_t next_flow = 1;
	tl_source_want_allocs(src, allocs);
	tl_run *run = NULL;
	int rc;
	int64_t *walls = NULL;
	size_t n_walls = 0, k = 0;
	for (; (rc = tl_run_next(src, &run, &err)) > 0; k++) {
		if (k == 0)
			n_walls = tl_run_walls_ahead(src, &walls);
		check_run(run);
		if (n_walls > 0 && (k >= n_walls || walls[k] != run->t_end - run->t_begin))
			abort();
		check_allocs(run, n_walls > 0);
		tl_optrace_write(&w, run, &opts, &next_pid, &next_flow, NULL);
		tl_run_free(run);
	}
	if (rc < 0 && err.msg[0] == '\0')
		abort();
	if (rc == 0 && n_walls > 0 && k != n_walls)
		abort();
	g_free(walls);
	tl_chrome_end(&w, "{\"tool\":\"fuzz\"}");
	fuzz_check_json(o, false);
	tl_source_close(src);
}

/* The allocator events of the input, as trace-memory reads them: each one
 * on a named device and allocator, at a time the model accepts. */
static void alloc_events(const uint8_t *data, size_t size)
{
	tl_arena *arena = tl_arena_new();
	tl_alloc_events ev;
	tl_error err;
	if (tl_xspace_alloc_events(data, size, arena, &ev, &err) < 0) {
		if (err.msg[0] == '\0')
			abort(); /* an error says what went wrong */
		tl_arena_free(arena);
		return;
	}
	for (size_t i = 0; i < ev.n; i++) {
		const tl_alloc_event *a = &ev.ev[i];
		if (a->device == NULL || a->allocator == NULL || a->allocator[0] == '\0')
			abort();
		if (a->t_ns < -TL_TIME_LIMIT_NS || a->t_ns > TL_TIME_LIMIT_NS)
			abort();
	}
	tl_arena_free(arena);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	read_runs(data, size, TL_FORMAT_XSPACE, true);
	fuzz_end();
	read_runs(data, size, TL_FORMAT_AUTO, false);
	fuzz_end();
	alloc_events(data, size);
	fuzz_end();
	return 0;
}
