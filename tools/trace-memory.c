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

static const char usage[] =
    "Usage: trace-memory [OPTIONS] [INPUT...]\n"
    "Rebuild what held memory in a TensorFlow step, buffer by buffer, from RunMetadata\n"
    "(binary, text, gzip, TFRecord or TensorBoard events) and its partition graphs,\n"
    "or the allocator's curves from a PyTorch profiler trace's [memory] events or a\n"
    "timeline.py trace's memory (show_memory=True).\n"
    "Writes a Chrome trace (ops, one memory counter per allocator, every buffer's\n"
    "lifetime) or, with --report, the peak per allocator and what was live at it.\n"
    "No INPUT, or '-', reads stdin.\n"
    "A folder stands for the TensorBoard events files below it, in path order.\n"
    "\n"
    "Report:\n"
    "  -r, --report             print the report instead of a trace\n"
    "      --format FMT         report as text (default), csv or json\n"
    "      --top N              buffers listed per allocator (default 10; 0: all)\n"
    "      --buffers            json: list every buffer of the run too\n"
    "      --curve              csv: the curve and its band instead, one row per point:\n"
    "                           run,allocator,t_us,low,curve,high\n"
    "\n"
    "Picture:\n"
    "      --plot svg           an SVG of the in-use curve per allocator, the peak marked\n"
    "                           and the largest buffers live at it named\n"
    "\n"
    "Trace:\n"
    "      --objects            tensors as catapult object events (N/O/D) instead of\n"
    "                           async slices\n"
    "      --no-ops             memory tracks only, no op slices\n"
    "      --no-flows           no dataflow arrows between the ops\n"
    "\n"
    "Output and input:\n"
    "  -o, --output FILE        write FILE (atomically) instead of stdout; .gz compresses\n"
    "  -z, --gzip               compress the output with gzip\n"
    "  -q, --quiet              no warnings\n"
    "      --input-format FMT   auto (default), runmeta, runmeta-text, stepstats,\n"
    "                           stepstats-text, tfrecord, chrome (Kineto), xspace,\n"
    "                           tf2-trace, runmeta-json, stepstats-json (protobuf's\n"
    "                           JSON)\n" TL_CLI_HELP_STRICT TL_CLI_HELP_END "\n"
    "Each \"check\" compares the curve with the allocator's own numbers in the input\n"
    "(allocator_bytes_in_use, Total Allocated, timeline.py's counters). A _Recv with no\n"
    "stats still held a buffer, born where those samples allow (\"~\"; JSON \"estimated\",\n"
    "\"birth\", \"birth_window_us\", \"unplaced\"; CSV \"birth\"), and born between the\n"
    "recorded allocations whose allocation_ids leave a gap for it. What a sample shows\n"
    "and no record explains is the curve's \"unattributed\" part (the text tells how\n"
    "much of the peak it is); a sample below what the records alone hold is a\n"
    "\"contradiction\" (and a warning). The band is the least and most each allocator\n"
    "can have held given every record and sample (text: the \"band:\" line; JSON:\n"
    "\"band\", \"peak_range\"; CSV: --curve; the plot: grey), of zero width where the\n"
    "curve is exact. The JSON format is in the README.\n"
    "Besides RunMetadata: a PyTorch (Kineto) trace recorded with profile_memory=True,\n"
    "a TF2/JAX XSpace's MemoryAllocation events and a TF1 timeline.py trace made with\n"
    "show_memory=True (tensor objects as blocks, in requested bytes; its counters are\n"
    "the totals checked) give the same report, plot and trace, by block and op.\n"
    "Exit status: 0 ok, 1 bad input or write error, 2 usage.\n";

struct job {
	tl_cli cli;
	bool report;
	int plot;   /* --plot: 0 for svg, -1 for none */
	int format; /* --format: an index in tl_memreport_formats, -1 for none */
	int top;    /* --top: 0 for all */
	tl_memreport_opts ropts;
	tl_memtrace_opts topts;
	bool ops;
	bool flows;
	GPtrArray *allocs; /* tl_alloc_input *: inputs of allocation events */
};

#define JOB(field) offsetof(struct job, field)
static const tl_cli_opt options[] = {
    TL_OPT("report", 'r', TL_ARG_FLAG, JOB(report)),
    TL_OPT_CHOICE("plot", 0, JOB(plot), ((const char *const[]){"svg", NULL})),
    TL_OPT_CHOICE("format", 0, JOB(format), tl_memreport_formats),
    TL_OPT("top", 0, TL_ARG_COUNT, JOB(top)),
    TL_OPT("buffers", 0, TL_ARG_FLAG, JOB(ropts.buffers)),
    TL_OPT("curve", 0, TL_ARG_FLAG, JOB(ropts.curve)),
    TL_OPT("objects", 0, TL_ARG_FLAG, JOB(topts.objects)),
    TL_OPT("no-ops", 0, TL_ARG_CLEAR, JOB(ops)),
    TL_OPT("no-flows", 0, TL_ARG_CLEAR, JOB(flows)),
    TL_OPT_END,
};

static void parse_args(struct job *job, int argc, char **argv)
{
	tl_cli_parse(&job->cli, argc, argv, options, job);
	if (!job->report && (job->format >= 0 || job->ropts.buffers))
		tl_cli_usage_error(&job->cli, "--format and --buffers go with --report");
	job->ropts.format = job->format >= 0 ? tl_memreport_formats[job->format] : NULL;
	if (job->ropts.curve && (job->ropts.format == NULL || strcmp(job->ropts.format, "csv") != 0))
		tl_cli_usage_error(&job->cli, "--curve goes with --report --format csv");
	job->ropts.top = job->top == 0 ? SIZE_MAX : (size_t)job->top;
}

/* One input's memory, whichever its source: the analysis and its view. */
struct memory {
	tl_memory *mem;
	tl_allocs *allocs;
	tl_memview *view;
	tl_run *run;			 /* RunMetadata: the run, freed with it */
	const tl_alloc_input *in;	 /* allocator events: the input */
};

/* Input i: run i, else allocator-event input i (never both kinds). */
static void memory_build(struct job *job, GPtrArray *runs, guint i, struct memory *m)
{
	*m = (struct memory){0};
	if (job->allocs->len > 0) {
		m->in = g_ptr_array_index(job->allocs, i);
		m->allocs = tl_allocs_build(&m->in->events, m->in->label);
		m->view = tl_memview_from_allocs(m->allocs);
		return;
	}
	m->run = g_ptr_array_index(runs, i);
	g_ptr_array_index(runs, i) = NULL;
	m->mem = tl_memory_build(m->run);
	m->view = tl_memview_from_memory(m->mem);
}

static void memory_free(struct memory *m)
{
	tl_memview_free(m->view);
	tl_memory_free(m->mem);
	tl_allocs_free(m->allocs);
	tl_run_free(m->run);
}

static guint n_inputs(struct job *job, GPtrArray *runs)
{
	return job->allocs->len > 0 ? job->allocs->len : runs->len;
}

static void write_trace(struct job *job, tl_output *out, GPtrArray *runs)
{
	tl_chrome w;
	tl_chrome_begin(&w, out);
	int64_t next_pid = 1;
	uint64_t next_flow = 1, next_id = 1;
	tl_optrace_opts oo;
	tl_optrace_opts_init(&oo);
	oo.flows = job->flows;
	guint n = n_inputs(job, runs);
	for (guint r = 0; r < n; r++) {
		struct memory m;
		memory_build(job, runs, r, &m);
		char *prefix = n > 1 ? g_strdup_printf("%s: ", m.view->label) : NULL;
		tl_memtrace_write(&w, m.view, &job->topts, prefix, &next_pid, &next_id);
		if (job->ops && m.run != NULL) {
			oo.prefix = prefix;
			tl_optrace_write(&w, m.run, &oo, &next_pid, &next_flow, NULL);
		} else if (job->ops) {
			tl_memtrace_ops(&w, m.in->ops, m.in->n_ops, &next_pid);
		}
		memory_free(&m);
		g_free(prefix);
	}
	tl_chrome_end(&w, "{\"tool\":\"trace-memory " TL_VERSION "\"}");
}

static void write_plot(struct job *job, tl_output *out, GPtrArray *runs)
{
	guint n = n_inputs(job, runs);
	struct memory *ms = g_new0(struct memory, n ? n : 1);
	const tl_memview **views = g_new0(const tl_memview *, n ? n : 1);
	for (guint r = 0; r < n; r++) {
		memory_build(job, runs, r, &ms[r]);
		views[r] = ms[r].view;
	}
	tl_svgplot_memory(views, n, out);
	for (guint r = 0; r < n; r++)
		memory_free(&ms[r]);
	g_free(views);
	g_free(ms);
}

static void write_report(struct job *job, tl_output *out, GPtrArray *runs)
{
	tl_memreport rep;
	tl_memreport_begin(&rep, out, &job->ropts);
	guint n = n_inputs(job, runs);
	for (guint r = 0; r < n; r++) {
		struct memory m;
		memory_build(job, runs, r, &m);
		tl_memreport_run(&rep, m.view);
		memory_free(&m);
	}
	tl_memreport_end(&rep);
}

static int read_inputs(void *ctx, const tl_cli_inputs *in, GPtrArray *runs, tl_error *err)
{
	struct job *job = ctx;
	if (tl_alloc_inputs_read(&job->cli, in, runs, job->allocs) != TL_EXIT_OK)
		return tl_error_set(err, "%s", "");
	if (job->allocs->len > 0 && runs->len > 0)
		return tl_error_set(err, "give RunMetadata and PyTorch memory traces in separate "
					 "calls");
	return 0;
}

static int write_memory(void *ctx, const tl_cli_inputs *in, GPtrArray *runs, tl_output *out,
			tl_error *err)
{
	struct job *job = ctx;
	if (job->plot >= 0)
		write_plot(job, out, runs);
	else if (job->report)
		write_report(job, out, runs);
	else
		write_trace(job, out, runs);
	return 0;
}

int main(int argc, char **argv)
{
	struct job job = {.cli = {.prog = "trace-memory", .usage = usage, .needs = TL_NEEDS_MEMORY},
			  .ops = true,
			  .flows = true,
			  .plot = -1,
			  .format = -1,
			  .top = 10};
	parse_args(&job, argc, argv);
	job.allocs = tl_alloc_inputs_new();
	static const tl_cli_tool tool = {
	    .stream = true, .prepare = read_inputs, .write = write_memory};
	int status = tl_cli_run(&job.cli, argc, argv, &tool, &job);
	g_ptr_array_free(job.allocs, TRUE);
	return status;
}
