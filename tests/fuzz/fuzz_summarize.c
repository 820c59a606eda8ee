/* fuzz_summarize: input to trace-summarize's outputs: a Chrome trace or
 * every run of a RunMetadata input into a summary (the view varies with the
 * input's length), printed as text, CSV and JSON; written as a partial and
 * read back; and per run the idle, critical path and advice analyses.
 * JSON and CSV must be valid; the partial must read back. */
#include "fuzz.h"

#include "emit/chrome.h"
#include "io/source.h"
#include "analysis/summary.h"
#include "emit/summary.h"
#include "emit/advise.h"
#include "emit/critical_path.h"
#include "emit/idle.h"

static void tables(tl_summary *s)
{
	tl_summary_opts o;
	tl_summary_opts_init(&o);
	o.n_select = 0;
	for (int c = 0; c < TL_N_COLS; c++)
		o.select[o.n_select++] = c;
	tl_output *out = fuzz_output();
	tl_summary_write(s, &o, tl_table_sink_find("text"), out);
	fuzz_close(out);
	out = fuzz_output();
	tl_summary_write(s, &o, tl_table_sink_find("csv"), out);
	fuzz_check_csv(out);
	o.stat = TL_STAT_P90;
	out = fuzz_output();
	tl_summary_write(s, &o, tl_table_sink_find("json"), out);
	fuzz_check_json(out, false);
}

static void partial(tl_summary *s)
{
	tl_output *out = fuzz_output();
	tl_summary_write_partial(s, out);
	if (tl_output_close(out, NULL) < 0)
		abort();
	size_t len;
	const uint8_t *text = fuzz_out_end(&len);
	uint8_t *copy = g_memdup2(text, len);
	tl_summary *back = tl_summary_new(s->view);
	tl_error err;
	if (tl_summary_read_partial(back, copy, len, &err) < 0) {
		fprintf(stderr, "fuzz: partial does not read back: %s\n", err.msg);
		abort();
	}
	tl_summary_free(back);
	g_free(copy);
}

static void analyses(const tl_run *run)
{
	const tl_table_sink *json = tl_table_sink_find("json"), *csv = tl_table_sink_find("csv"),
			    *text = tl_table_sink_find("text");
	tl_idle *idle = tl_idle_new(run, 3);
	tl_output *out = fuzz_output();
	tl_idle_write(run, idle, json, out);
	fuzz_check_json(out, false);
	out = fuzz_output();
	tl_idle_write(run, idle, csv, out);
	tl_idle_write(run, idle, text, out);
	fuzz_close(out);
	tl_idle_free(idle);
	tl_path p;
	tl_critical_path_find(run, NULL, &p, NULL);
	out = fuzz_output();
	tl_critical_path_write(run, &p, NULL, json, out);
	fuzz_check_json(out, false);
	out = fuzz_output();
	tl_critical_path_write(run, &p, NULL, text, out);
	tl_advice *a = tl_advise_new(run);
	tl_advise_write(run, a, text, out);
	fuzz_close(out);
	out = fuzz_output();
	tl_advise_write(run, a, json, out);
	fuzz_check_json(out, false);
	tl_advise_free(a);
	out = fuzz_output();
	tl_chrome w;
	tl_chrome_begin(&w, out);
	tl_critical_path_trace(&w, run, &p);
	tl_chrome_end(&w, NULL);
	fuzz_check_json(out, false);
	tl_path_clear(&p);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const char *path = fuzz_input_path(data, size);
	tl_error err;
	tl_source *src = NULL;
	if (tl_source_open(&src, path, TL_FORMAT_AUTO, &err) < 0) {
		fuzz_end();
		return 0;
	}
	tl_summary *s = tl_summary_new((tl_summary_view)(size % 6));
	int rc = 0;
	tl_run *run = NULL;
	while ((rc = tl_run_next(src, &run, &err)) > 0) {
		tl_summary_add_run(s, run);
		analyses(run);
		tl_run_free(run);
	}
	tl_source_close(src);
	if (rc == 0) {
		tables(s);
		partial(s);
	}
	tl_summary_free(s);
	fuzz_end();
	return 0;
}
