/* trace-memory: exact tensor and buffer lifetimes and per-allocator memory
 * curves from TensorFlow RunMetadata, checked against the allocator's own
 * numbers in the dump; allocator curves, peaks and live blocks from inputs
 * that record allocations by address (PyTorch [memory] events). */
#include "emit/chrome.h"
#include "cli/alloc_inputs.h"
#include "cli/cli.h"
#include "analysis/allocs.h"
#include "emit/allocreport.h"
#include "analysis/memory.h"
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
    "Every report line \"check\" compares the rebuilt curve with allocator_bytes_in_use\n"
    "where the dump records it. A _Recv the dump holds no stats for still held a buffer:\n"
    "its birth is placed so that the curve meets those samples (\"~\" in the text report;\n"
    "JSON: \"estimated\", \"birth\" and \"birth_window_us\" per buffer, \"unplaced\" per\n"
    "allocator; CSV: the \"birth\" column), and one no sample constrains, or that the\n"
    "samples contradict, is listed. The JSON format is in the README.\n"
    "A PyTorch profiler (Kineto) trace recorded with profile_memory=True gives per\n"
    "allocator the peak (the largest \"Total Allocated\"), the blocks live at it by\n"
    "op, and the check of the running sum of \"Bytes\" against the totals;\n"
    "--buffers, --objects and --no-flows do not apply to it. The same holds for a TF2/JAX\n"
    "XSpace's MemoryAllocation/MemoryDeallocation events, and for a TF1 timeline.py\n"
    "trace made with show_memory=True: its tensor objects are the blocks (named by\n"
    "tensor, sized in requested bytes, as timeline.py counts them) and its allocator\n"
    "counters the totals checked; what timeline.py leaves out is in the README.\n"
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
	job->ropts.top = job->top == 0 ? SIZE_MAX : (size_t)job->top;
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
	for (guint r = 0; r < runs->len; r++) {
		tl_run *run = g_ptr_array_index(runs, r);
		char *prefix = runs->len > 1 ? g_strdup_printf("%s: ", run->label) : NULL;
		tl_memory *mem = tl_memory_build(run);
		tl_memtrace_write(&w, mem, &job->topts, prefix, &next_pid, &next_id);
		if (job->ops) {
			oo.prefix = prefix;
			tl_optrace_write(&w, run, &oo, &next_pid, &next_flow, NULL);
		}
		tl_memory_free(mem);
		g_free(prefix);
		tl_run_free(run);
		g_ptr_array_index(runs, r) = NULL;
	}
	tl_chrome_end(&w, "{\"tool\":\"trace-memory " TL_VERSION "\"}");
}

static void write_plot(tl_output *out, GPtrArray *runs)
{
	tl_memory **mems = g_new0(tl_memory *, runs->len ? runs->len : 1);
	for (guint r = 0; r < runs->len; r++)
		mems[r] = tl_memory_build(g_ptr_array_index(runs, r));
	tl_svgplot_memory((const tl_memory *const *)mems, runs->len, out);
	for (guint r = 0; r < runs->len; r++)
		tl_memory_free(mems[r]);
	g_free(mems);
}

static void write_report(struct job *job, tl_output *out, GPtrArray *runs)
{
	tl_memreport rep;
	tl_memreport_begin(&rep, out, &job->ropts);
	for (guint r = 0; r < runs->len; r++) {
		tl_run *run = g_ptr_array_index(runs, r);
		tl_memory *mem = tl_memory_build(run);
		tl_memreport_run(&rep, mem);
		tl_memory_free(mem);
		tl_run_free(run);
		g_ptr_array_index(runs, r) = NULL;
	}
	tl_memreport_end(&rep);
}

/* Inputs of allocation events (PyTorch [memory], XSpace): the plot, the
 * report or the trace. */
static void write_allocs(struct job *job, tl_output *out)
{
	tl_allocreport r;
	tl_chrome w;
	int64_t next_pid = 1;
	uint64_t next_id = 1;
	if (job->plot >= 0) {
		tl_allocs **all = g_new0(tl_allocs *, job->allocs->len + 1);
		for (guint i = 0; i < job->allocs->len; i++) {
			const tl_alloc_input *in = g_ptr_array_index(job->allocs, i);
			all[i] = tl_allocs_build(&in->events, in->label);
		}
		tl_svgplot_allocs((const tl_allocs *const *)all, job->allocs->len, out);
		for (guint i = 0; i < job->allocs->len; i++)
			tl_allocs_free(all[i]);
		g_free(all);
		return;
	}
	if (job->report)
		tl_allocreport_begin(&r, out, job->ropts.format, job->ropts.top);
	else
		tl_chrome_begin(&w, out);
	for (guint i = 0; i < job->allocs->len; i++) {
		const tl_alloc_input *in = g_ptr_array_index(job->allocs, i);
		tl_allocs *a = tl_allocs_build(&in->events, in->label);
		if (job->report)
			tl_allocreport_run(&r, a);
		else
			tl_allocreport_trace(&w, a, in->ops, job->ops ? in->n_ops : 0, &next_pid,
					     &next_id);
		tl_allocs_free(a);
	}
	if (job->report)
		tl_allocreport_end(&r);
	else
		tl_chrome_end(&w, "{\"tool\":\"trace-memory " TL_VERSION "\"}");
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
	if (job->allocs->len > 0)
		write_allocs(job, out);
	else if (job->plot >= 0)
		write_plot(out, runs);
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
