/* fuzz_dataflow: input to trace-dataflow's output: every run of a sniffed
 * input (a Chrome trace too, with its allocator events) through the model, the dataflow links, the
 * lanes and the Chrome trace writer; the trace must be valid JSON. The --op-time mode and the
 * optional arrows vary with the input's length. */
#include "fuzz.h"

#include "analysis/allocs.h"
#include "emit/chrome.h"
#include "emit/optrace.h"
#include "io/source.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	tl_source *src = fuzz_open_runs_chrome(data, size);
	if (src == NULL)
		return 0;
	tl_error err;
	tl_optrace_opts opts;
	tl_optrace_opts_init(&opts);
	opts.op_time = (tl_op_time)(size % 3);
	opts.control = size % 2 == 0;
	opts.stream_all = size % 5 != 0;
	tl_output *o = fuzz_output();
	tl_chrome w;
	tl_chrome_begin(&w, o);
	int64_t next_pid = 1;
	uint64_t next_flow = 1;
	tl_run *run = NULL;
	int runs = 0;
	while (tl_run_next(src, &run, &err) > 0) {
		opts.prefix = runs++ > 0 ? "next: " : NULL;
		tl_optrace_write(&w, run, &opts, &next_pid, &next_flow, NULL);
		if (run->allocs != NULL) /* what trace-report's Memory tab reads */
			tl_allocs_free(tl_allocs_build(run->allocs, run->label));
		tl_run_free(run);
	}
	tl_chrome_end(&w, "{\"tool\":\"fuzz\"}");
	fuzz_check_json(o, false);
	tl_source_close(src);
	fuzz_end();
	return 0;
}
