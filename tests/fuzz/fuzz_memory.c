/* fuzz_memory: input to trace-memory's outputs: every run's buffer
 * lifetimes (tl_memory_build), the report as text, CSV and JSON, and the
 * memory trace; CSV and JSON must be valid. */
#include "fuzz.h"

#include "emit/chrome.h"
#include "analysis/memory.h"
#include "analysis/memview.h"
#include "emit/memreport.h"
#include "emit/memtrace.h"
#include "io/source.h"

#include <string.h>

static void report(tl_memview *const *views, size_t n, const char *f)
{
	tl_output *o = fuzz_output();
	tl_memreport rep;
	tl_memreport_opts opts = {.format = f, .top = SIZE_MAX, .buffers = true};
	tl_memreport_begin(&rep, o, &opts);
	for (size_t i = 0; i < n; i++)
		tl_memreport_run(&rep, views[i]);
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
	tl_source *src = fuzz_open_runs(data, size);
	if (src == NULL)
		return 0;
	tl_error err;
	GPtrArray *runs = g_ptr_array_new();
	GPtrArray *mems = g_ptr_array_new();
	GPtrArray *views = g_ptr_array_new();
	tl_run *run = NULL;
	while (runs->len < 8 && tl_run_next(src, &run, &err) > 0) {
		g_ptr_array_add(runs, run);
		g_ptr_array_add(mems, tl_memory_build(run));
		g_ptr_array_add(views, tl_memview_from_memory(g_ptr_array_index(mems, mems->len - 1)));
	}
	tl_source_close(src);
	tl_memory **m = (tl_memory **)mems->pdata;
	tl_memview **v = (tl_memview **)views->pdata;
	report(v, views->len, "text");
	report(v, views->len, "csv");
	report(v, views->len, "json");

	tl_output *o = fuzz_output();
	tl_chrome w;
	tl_chrome_begin(&w, o);
	int64_t next_pid = 1;
	uint64_t next_id = 1;
	tl_memtrace_opts topts = {.objects = size % 2 == 0};
	for (guint i = 0; i < mems->len; i++)
		tl_memtrace_write(&w, v[i], &topts, i > 0 ? "next: " : NULL, &next_pid, &next_id);
	tl_chrome_end(&w, NULL);
	fuzz_check_json(o, false);

	for (guint i = 0; i < mems->len; i++) {
		tl_memview_free(v[i]);
		tl_memory_free(m[i]);
	}
	g_ptr_array_free(views, TRUE);
	for (guint i = 0; i < runs->len; i++)
		tl_run_free(g_ptr_array_index(runs, i));
	g_ptr_array_free(mems, TRUE);
	g_ptr_array_free(runs, TRUE);
	fuzz_end();
	return 0;
}
