/* fuzz_tlmem: a timeline.py show_memory trace's tensor objects and counters
 * (io/tlmem.h), as the main stream and as the side stream, through the
 * allocator analysis (analysis/allocs.h) to the report as text, CSV and
 * JSON and the memory trace; CSV and JSON must be valid. */
#include "fuzz.h"

#include "analysis/allocs.h"
#include "analysis/memview.h"
#include "emit/chrome.h"
#include "emit/memreport.h"
#include "emit/memtrace.h"
#include "io/tlmem.h"

#include <string.h>

static void report(tl_memview *v, const char *f)
{
	tl_output *o = fuzz_output();
	tl_memreport rep;
	tl_memreport_opts opts = {.format = f, .top = SIZE_MAX, .buffers = true};
	tl_memreport_begin(&rep, o, &opts);
	tl_memreport_run(&rep, v);
	tl_memreport_end(&rep);
	if (strcmp(f, "json") == 0)
		fuzz_check_json(o, false);
	else if (strcmp(f, "csv") == 0)
		fuzz_check_csv(o);
	else
		fuzz_close(o);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	tl_error err;
	tl_arena *side = tl_arena_new();
	tl_alloc_events ev;
	tl_tlmem_alloc_events(data, size, side, &ev, &err);
	tl_arena_free(side);
	tl_arena *arena = tl_arena_new();
	if (tl_tlmem_read(data, size, "fuzz.json", arena, &ev, &err) == 0 && ev.n > 0) {
		tl_allocs *a = tl_allocs_build(&ev, "fuzz.json");
		tl_memview *v = tl_memview_from_allocs(a);
		report(v, "text");
		report(v, "csv");
		report(v, "json");
		tl_output *o = fuzz_output();
		tl_chrome w;
		tl_chrome_begin(&w, o);
		int64_t next_pid = 1;
		uint64_t next_id = 1;
		tl_memtrace_opts topts = {.objects = size % 2 == 0};
		tl_memtrace_write(&w, v, &topts, NULL, &next_pid, &next_id);
		tl_chrome_end(&w, NULL);
		fuzz_check_json(o, false);
		tl_memview_free(v);
		tl_allocs_free(a);
	}
	tl_arena_free(arena);
	fuzz_end();
	return 0;
}
