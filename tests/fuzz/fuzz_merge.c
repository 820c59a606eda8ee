/* fuzz_merge: input to trace-merge's output: a Chrome trace through the
 * streaming reader and the merge (renumbering, folding, alignment), or the
 * runs of a RunMetadata input with arrows and memory tracks; the input is
 * merged twice (as two inputs would be) and the result must be valid JSON.
 * The alignment varies with the input's length. */
#include "fuzz.h"

#include "emit/chrome.h"
#include "emit/merge.h"
#include "io/source.h"

static int add(tl_merge *m, const char *path, int64_t offset_ns)
{
	tl_error err;
	tl_source *src = NULL;
	if (tl_source_open(&src, path, TL_FORMAT_AUTO, &err) < 0)
		return -1;
	int rc = 0;
	if (tl_source_format(src) == TL_FORMAT_CHROME) {
		const uint8_t *data;
		size_t len;
		rc = tl_input_map(tl_source_input(src), &data, &len, &err);
		if (rc == 0)
			rc = tl_merge_chrome(m, data, len, path, offset_ns, &err);
	} else {
		tl_run *run = NULL;
		while ((rc = tl_run_next(src, &run, &err)) > 0) {
			tl_merge_run(m, run, path, offset_ns);
			tl_run_free(run);
		}
	}
	tl_source_close(src);
	return rc < 0 ? -1 : 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const char *path = fuzz_input_path(data, size);
	tl_merge_opts opts = {.align = (tl_align)(size % 3), .gap_ns = 1000,
			      .flows = size % 2 == 0, .memory = size % 4 < 2};
	tl_output *o = fuzz_output();
	tl_chrome w;
	tl_chrome_begin(&w, o);
	tl_merge *m = tl_merge_new(&w, &opts);
	bool ok = add(m, path, 0) == 0 && add(m, path, -1500000) == 0;
	if (ok) {
		tl_merge_finish(m, "fuzz");
		tl_merge_free(m);
		fuzz_check_json(o, false);
	} else {
		/* the tool drops its output on a bad input */
		tl_merge_free(m);
		fuzz_close(o);
	}
	fuzz_end();
	return 0;
}
