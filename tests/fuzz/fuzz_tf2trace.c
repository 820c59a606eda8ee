/* fuzz_tf2trace: the TF 2.0 profiler .trace reader (io/tf2trace.h): the
 * input forced as a .trace (--input-format tf2-trace) and sniffed (auto),
 * every run it yields modelled (tl_run_next: through the XSpace or the
 * RunMetadata it renders), each run checked for what the model promises
 * whatever the input (times inside +-2^61 ns and ordered, indexes in
 * range), then written as a Chrome trace, which must be valid JSON; and the
 * wire reader alone, whose spans must lie inside the input. Seeds:
 * tests/fuzz/seeds/tf2trace/, made by xspace-gen --trace (two-steps:
 * --steps 2 --ops 6 --t0 0; cpu-only: --ops 6 --gpus 0 --mem 2 --t0 0) and
 * tests/cli/data/tf2trace/mktrace.py (tf20, bad-event). */
#include "fuzz.h"

#include "base/arena.h"
#include "base/limits.h"
#include "emit/chrome.h"
#include "emit/optrace.h"
#include "io/source.h"
#include "io/tf2trace.h"
#include "model/run.h"

static void check_run(const tl_run *run)
{
	for (size_t i = 0; i < run->n_execs; i++) {
		const tl_exec *e = &run->execs[i];
		if (e->start < -TL_TIME_LIMIT_NS || e->end > TL_TIME_LIMIT_NS || e->end < e->start)
			abort();
		if (e->device >= run->n_devices)
			abort();
		if (e->launcher >= 0 && (size_t)e->launcher >= run->n_execs)
			abort();
	}
}

static void read_runs(const uint8_t *data, size_t size, tl_format forced)
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
	tl_run *run = NULL;
	int rc;
	while ((rc = tl_run_next(src, &run, &err)) > 0) {
		check_run(run);
		tl_optrace_write(&w, run, &opts, &next_pid, &next_flow, NULL);
		tl_run_free(run);
	}
	if (rc < 0 && err.msg[0] == '\0')
		abort();
	tl_chrome_end(&w, "{\"tool\":\"fuzz\"}");
	fuzz_check_json(o, false);
	tl_source_close(src);
}

/* The wire reader: every span it hands out lies inside the input. */
static void wire(const uint8_t *data, size_t size)
{
	tl_arena *arena = tl_arena_new();
	tl_tf2trace t;
	tl_error err;
	if (tl_tf2trace_read(&t, data, size, arena, &err) == 0) {
		for (size_t i = 0; i < t.n_ev; i++) {
			const tl_tf2trace_event *e = &t.ev[i];
			if (e->raw < data || e->raw + e->raw_len > data + size || e->name < data ||
			    e->name + e->name_len > data + size)
				abort();
			for (uint32_t k = 0; k < e->n_args; k++) {
				tl_tf2trace_arg a;
				tl_tf2trace_arg_at(e, k, &a);
				if (a.key_len > 0 && (a.key < data || a.key + a.key_len > data + size))
					abort();
				if (a.value_len > 0 &&
				    (a.value < data || a.value + a.value_len > data + size))
					abort();
			}
		}
		for (size_t d = 0; d < t.n_dev; d++)
			if (t.dev[d].name == NULL)
				abort();
	} else if (err.msg[0] == '\0') {
		abort();
	}
	(void)tl_tf2trace_sniff(data, size);
	tl_arena_free(arena);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	wire(data, size);
	read_runs(data, size, TL_FORMAT_TF2TRACE);
	fuzz_end();
	read_runs(data, size, TL_FORMAT_AUTO);
	fuzz_end();
	return 0;
}
