/* trace-dataflow: TensorFlow RunMetadata to a Chrome trace with exact
 * producer-to-consumer arrows rebuilt from the partition graphs. */
#include "emit/chrome.h"
#include "cli/cli.h"
#include "emit/optrace.h"
#include "base/output.h"
#include "io/source.h"

#include <getopt.h>
#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct job {
	tl_cli cli;
	tl_optrace_opts opts;
	tl_chrome w;
	int64_t next_pid;
	uint64_t next_flow;
};

static void parse_window(tl_cli *cli, void *ctx, const char *value)
{
	struct job *job = ctx;
	const char *comma = strchr(value, ',');
	if (comma == NULL)
		tl_cli_usage_error(cli, "option '--window' wants BEGIN,END, not '%s'", value);
	char *begin = g_strndup(value, (gsize)(comma - value));
	job->opts.win_begin_ns = tl_cli_micros(cli, "--window", begin, -INFINITY);
	job->opts.win_end_ns = tl_cli_micros(cli, "--window", comma + 1, -INFINITY);
	g_free(begin);
	if (job->opts.win_end_ns < job->opts.win_begin_ns)
		tl_cli_usage_error(cli, "option '--window': END is before BEGIN");
	job->opts.window = true;
}

static const tl_cli_help help = {
    .synopsis = "[OPTIONS] [INPUT...]",
    .about = "Turn TensorFlow RunMetadata (binary, text, gzip, TFRecord or TensorBoard events; "
	     "StepStats too) into a Chrome trace for Perfetto or chrome://tracing, with one "
	     "arrow per dataflow edge of the partition graphs. TF2/JAX XSpace and Chrome trace "
	     "JSON (timeline.py, the TF2 trace viewer's, PyTorch Kineto) are read as runs too: "
	     "their timeline and launch arrows (timeline.py: the arrows of its labels' inputs).",
    .notes = "Several runs (several inputs, or a stream of runs) each get their own "
	     "processes, named \"RUN: DEVICE\".",
};

#define JOB(field) offsetof(struct job, field)
static const tl_cli_opt options[] = {
    TL_OPT_HEAD("What to show:"),
    TL_OPT_CHOICE("op-time", 0, JOB(opts.op_time), tl_op_time_names, "MODE",
		  "schedule (default): the executor's record; gpu: from the op's first kernel to "
		  "its last; all: from the op's start to its last kernel (as TensorFlow's "
		  "timeline.py)"),
    TL_OPT("control", 0, TL_ARG_FLAG, JOB(opts.control), NULL,
	   "also draw control edges (cat \"control\")"),
    TL_OPT("no-flows", 0, TL_ARG_CLEAR, JOB(opts.flows), NULL, "no arrows at all"),
    TL_OPT("no-launch-flows", 0, TL_ARG_CLEAR, JOB(opts.launches), NULL,
	   "no arrows from ops to their GPU kernels"),
    TL_OPT("no-stream-all", 0, TL_ARG_CLEAR, JOB(opts.stream_all), NULL,
	   "hide the /stream:all rows (they repeat every kernel)"),
    TL_OPT("no-kernels", 0, TL_ARG_CLEAR, JOB(opts.kernels), NULL,
	   "hide every GPU tracer row (streams, memcpy)"),
    TL_OPT_HEAD("Filters (keep big traces loadable):"),
    TL_OPT("device", 0, TL_ARG_REGEX, JOB(opts.device_re), "REGEX",
	   "keep devices whose normalized name matches REGEX"),
    TL_OPT_MIN("min-dur", 0, TL_ARG_MICROS, JOB(opts.min_dur_ns), 0, "MICROS",
	       "drop executions shorter than MICROS"),
    TL_OPT_CALL("window", 0, parse_window, "BEGIN,END",
		"keep executions overlapping [BEGIN, END], in microseconds from the step's "
		"first record"),
    TL_OPT_END,
};

/* Run by run (tl_cli_run): each run is written as it is read, then
 * freed. */
static int begin_trace(void *ctx, const tl_cli_inputs *in, tl_output *out, tl_error *err)
{
	struct job *job = ctx;
	tl_chrome_begin(&job->w, out);
	return 0;
}

static int write_run(void *ctx, tl_run **run, const tl_cli_step *step, tl_output *out,
		     tl_error *err)
{
	struct job *job = ctx;
	char *prefix = step->several ? g_strdup_printf("%s: ", (*run)->label) : NULL;
	job->opts.prefix = prefix;
	tl_optrace_write(&job->w, *run, &job->opts, &job->next_pid, &job->next_flow, NULL);
	job->opts.prefix = NULL;
	g_free(prefix);
	return 0;
}

static int end_trace(void *ctx, const tl_cli_inputs *in, tl_output *out, tl_error *err)
{
	struct job *job = ctx;
	tl_chrome_end(&job->w, "{\"tool\":\"trace-dataflow " TL_VERSION "\"}");
	return 0;
}

int main(int argc, char **argv)
{
	struct job job = {
	    .cli = {.prog = "trace-dataflow", .help = &help, .needs = TL_NEEDS_TIMELINE},
	    .next_pid = 1,
	    .next_flow = 1};
	tl_optrace_opts_init(&job.opts);
	tl_cli_parse(&job.cli, argc, argv, options, &job);
	job.cli.chrome_runs = true;
	static const tl_cli_tool tool = {.begin = begin_trace, .run = write_run, .end = end_trace};
	int status = tl_cli_run(&job.cli, argc, argv, &tool, &job);
	if (job.opts.device_re != NULL)
		g_regex_unref(job.opts.device_re);
	return status;
}
