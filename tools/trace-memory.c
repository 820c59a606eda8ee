/* trace-memory: exact tensor and buffer lifetimes and per-allocator memory
 * curves from TensorFlow RunMetadata, checked against the allocator's own
 * numbers in the dump; allocator curves, peaks and live blocks from inputs
 * that record allocations by address (PyTorch [memory] events). */
#include "emit/chrome.h"
#include "cli/alloc_inputs.h"
#include "cli/cli.h"
#include "analysis/allocs.h"
#include "analysis/memory.h"
#include "analysis/memview.h"
#include "emit/memreport.h"
#include "emit/memtrace.h"
#include "emit/optrace.h"
#include "base/output.h"
#include "emit/svgplot.h"

#include <getopt.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const tl_cli_help help = {
    .synopsis = "[OPTIONS] [INPUT...]",
    .about = "Rebuild what held memory in a TensorFlow step, buffer by buffer, from RunMetadata "
	     "(binary, text, gzip, TFRecord or TensorBoard events) and its partition graphs, or "
	     "the allocator's curves from a PyTorch profiler trace's [memory] events or a "
	     "timeline.py trace's memory (show_memory=True).\n"
	     "Writes a Chrome trace (ops, one memory counter per allocator, every buffer's "
	     "lifetime) or, with --report, the peak per allocator and what was live at it.",
    .notes = "Each \"check\" compares the curve with the allocator's own numbers in the input "
	     "(allocator_bytes_in_use, Total Allocated, timeline.py's counters). A _Recv with no "
	     "stats still held a buffer, born where those samples and the gaps of the recorded "
	     "allocation_ids allow (\"~\"; JSON \"estimated\", \"birth\", \"birth_window_us\", "
	     "\"unplaced\"; CSV \"birth\"). What a sample shows and no record explains is the "
	     "curve's \"unattributed\" part (the text tells how much of the peak it is); a "
	     "sample below what the records alone hold is a \"contradiction\" (and a warning). "
	     "The band is the least and most each allocator can have held given every record "
	     "and sample (text: the \"band:\" line; JSON: \"band\", \"peak_range\"; CSV: "
	     "--curve; the plot: grey), zero-wide where the curve is exact. JSON: "
	     "docs/trace-memory.md.\n"
	     "Besides RunMetadata: a PyTorch (Kineto) trace recorded with profile_memory=True, "
	     "a TF2/JAX XSpace's MemoryAllocation events and a TF1 timeline.py trace made with "
	     "show_memory=True (tensor objects as blocks, in requested bytes; its counters are "
	     "the totals checked) give the same report, plot and trace, by block and op.",
};

struct job {
	tl_cli cli;
	bool report;
	enum { PLOT_NONE = -1, PLOT_SVG } plot; /* --plot */
	int top;    /* --top: 0 for all */
	tl_memreport_opts ropts;
	tl_memtrace_opts topts;
	bool ops, flows; /* --no-ops, --no-flows */
	GPtrArray *allocs; /* tl_alloc_input *: inputs of allocation events */
	/* The output: runs written as read; allocator events (whole files)
	 * at the end; the plot's panels as runs come, its head at the end. */
	tl_chrome w;
	int64_t next_pid;
	uint64_t next_flow, next_id;
	tl_optrace_opts oo;
	tl_memreport rep;
	tl_svgplot_panels panels; /* --plot: the panels drawn into body */
	tl_output *body;
	size_t runs; /* RunMetadata runs given */
};

/* --format: one of tl_memreport_formats, into ropts.format (NULL: not
 * given). */
static void parse_format(tl_cli *cli, void *ctx, const char *value)
{
	struct job *job = ctx;
	job->ropts.format =
	    tl_memreport_formats[tl_cli_choice(cli, "--format", value, tl_memreport_formats)];
}

#define JOB(field) offsetof(struct job, field)
static const tl_cli_opt options[] = {
    TL_OPT_HEAD("Report:"),
    TL_OPT("report", 'r', TL_ARG_FLAG, JOB(report), NULL, "print the report instead of a trace"),
    TL_OPT_CALL("format", 0, parse_format, "FMT", "report as text (default), csv or json"),
    TL_OPT("top", 0, TL_ARG_COUNT, JOB(top), "N",
	   "buffers listed per allocator (default 10; 0: all)"),
    TL_OPT("buffers", 0, TL_ARG_FLAG, JOB(ropts.buffers), NULL,
	   "json: list every buffer of the run too"),
    TL_OPT("curve", 0, TL_ARG_FLAG, JOB(ropts.curve), NULL,
	   "csv: the curve and its band instead, one row per point:\n"
	   "run,allocator,t_us,low,curve,high"),
    TL_OPT_HEAD("Picture:"),
    TL_OPT_CHOICE("plot", 0, JOB(plot), ((const char *const[]){"svg", NULL}), "svg",
		  "an SVG of the in-use curve per allocator, the peak marked and the largest "
		  "buffers live at it named"),
    TL_OPT_HEAD("Trace:"),
    TL_OPT("objects", 0, TL_ARG_FLAG, JOB(topts.objects), NULL,
	   "tensors as catapult object events (N/O/D) instead of async slices"),
    TL_OPT("no-ops", 0, TL_ARG_CLEAR, JOB(ops), NULL, "memory tracks only, no op slices"),
    TL_OPT("no-flows", 0, TL_ARG_CLEAR, JOB(flows), NULL, "no dataflow arrows between the ops"),
    TL_OPT_END,
};

static void parse_args(struct job *job, int argc, char **argv)
{
	tl_cli_parse(&job->cli, argc, argv, options, job);
	if (!job->report && (job->ropts.format != NULL || job->ropts.buffers))
		tl_cli_usage_error(&job->cli, "--format and --buffers go with --report");
	if (job->ropts.curve &&
	    (job->ropts.format == NULL || strcmp(job->ropts.format, "csv") != 0))
		tl_cli_usage_error(&job->cli, "--curve goes with --report --format csv");
	job->ropts.top = job->top == 0 ? SIZE_MAX : (size_t)job->top;
}

/* One input's memory, whichever its source: the analysis and its view;
 * `run` (RunMetadata) or `in` (allocator events). */
struct memory {
	tl_memory *mem;
	tl_allocs *allocs;
	tl_memview *view;
	tl_run *run;		  /* freed with it */
	const tl_alloc_input *in; /* the caller's */
};

/* One view into the output, then freed. */
static void write_view(struct job *job, struct memory *m, bool several)
{
	if (m->run != NULL) {
		m->mem = tl_memory_build(m->run);
		m->view = tl_memview_from_memory(m->mem);
	} else {
		m->allocs = tl_allocs_build(&m->in->events, m->in->label);
		m->view = tl_memview_from_allocs(m->allocs);
	}
	char *prefix = several ? g_strdup_printf("%s: ", m->view->label) : NULL;
	if (job->plot == PLOT_SVG) {
		tl_svgplot_memory_panels(&job->panels, m->view, job->body);
	} else if (job->report) {
		tl_memreport_run(&job->rep, m->view);
	} else {
		tl_memtrace_write(&job->w, m->view, &job->topts, prefix, &job->next_pid,
				  &job->next_id);
		job->oo.prefix = prefix;
		if (job->ops && m->run != NULL)
			tl_optrace_write(&job->w, m->run, &job->oo, &job->next_pid, &job->next_flow,
					 NULL);
		else if (job->ops)
			tl_memtrace_ops(&job->w, m->in->ops, m->in->n_ops, &job->next_pid);
	}
	g_free(prefix);
	tl_memview_free(m->view);
	tl_memory_free(m->mem);
	tl_allocs_free(m->allocs);
	tl_run_free(m->run);
}

static const char mixed[] = "give RunMetadata and PyTorch memory traces in separate calls";

/* An input of allocator events is kept for the end; a RunMetadata's runs
 * come one by one (write_run). */
static int take_input(void *ctx, tl_source *src, tl_run **first, tl_error *err)
{
	struct job *job = ctx;
	int took = tl_alloc_inputs_take(job->allocs, src, first, err);
	if (took > 0 && job->runs > 0) {
		tl_cli_error(&job->cli, "%s", mixed);
		return tl_error_set(err, "%s", "");
	}
	return took;
}

static int begin_memory(void *ctx, const tl_cli_inputs *in, tl_output *out, tl_error *err)
{
	struct job *job = ctx;
	if (job->plot == PLOT_SVG)
		job->body = tl_output_new_memory();
	else if (job->report)
		tl_memreport_begin(&job->rep, out, &job->ropts);
	else
		tl_chrome_begin(&job->w, out);
	return 0;
}

static int write_run(void *ctx, tl_run **run, const tl_cli_step *step, tl_output *out,
		     tl_error *err)
{
	struct job *job = ctx;
	if (job->allocs->len > 0)
		return tl_error_set(err, "%s", mixed);
	job->runs++;
	struct memory m = {.run = *run};
	*run = NULL;
	write_view(job, &m, step->several);
	return 0;
}

static int end_memory(void *ctx, const tl_cli_inputs *in, tl_output *out, tl_error *err)
{
	struct job *job = ctx;
	if (job->allocs->len > 0 && job->runs > 0)
		return tl_error_set(err, "%s", mixed);
	for (guint i = 0; i < job->allocs->len; i++) {
		struct memory m = {.in = g_ptr_array_index(job->allocs, i)};
		write_view(job, &m, job->allocs->len > 1);
	}
	if (job->plot == PLOT_SVG) {
		GString *body = tl_output_take(job->body);
		job->body = NULL;
		tl_svgplot_memory_end(&job->panels, body->str, body->len, out);
		g_string_free(body, TRUE);
	} else if (job->report) {
		tl_memreport_end(&job->rep);
	} else {
		tl_chrome_end(&job->w, "{\"tool\":\"trace-memory " TL_VERSION "\"}");
	}
	return 0;
}

int main(int argc, char **argv)
{
	struct job job = {.cli = {.prog = "trace-memory", .help = &help, .needs = TL_NEEDS_MEMORY},
			  .ops = true, .flows = true,
			  .plot = PLOT_NONE,
			  .top = 10,
			  .next_pid = 1,
			  .next_flow = 1,
			  .next_id = 1};
	parse_args(&job, argc, argv);
	job.allocs = tl_alloc_inputs_new();
	tl_optrace_opts_init(&job.oo);
	job.oo.flows = job.flows;
	static const tl_cli_tool tool = {
	    .input = take_input, .begin = begin_memory, .run = write_run, .end = end_memory};
	int status = tl_cli_run(&job.cli, argc, argv, &tool, &job);
	if (job.body != NULL)
		g_string_free(tl_output_take(job.body), TRUE);
	tl_memreport_abort(&job.rep);
	g_ptr_array_free(job.allocs, TRUE);
	return status;
}
