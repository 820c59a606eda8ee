/* trace-dataflow: TensorFlow RunMetadata to a Chrome trace with exact
 * producer-to-consumer arrows rebuilt from the partition graphs. */
#include "emit/chrome.h"
#include "cli/cli.h"
#include "emit/optrace.h"
#include "base/output.h"
#include "io/source.h"

#include <getopt.h>
#include <math.h>
#include <limits.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char usage[] =
    "Usage: trace-dataflow [OPTIONS] [INPUT...]\n"
    "Turn TensorFlow RunMetadata (binary, text, gzip, TFRecord or TensorBoard events;\n"
    "StepStats too) into a Chrome trace for Perfetto or chrome://tracing, with one\n"
    "arrow per dataflow edge of the partition graphs. TF2/JAX XSpace and Chrome trace\n"
    "JSON (timeline.py, the TF2 trace viewer's, PyTorch Kineto) are read as runs too:\n"
    "their timeline and launch arrows (timeline.py: the arrows of its labels' inputs).\n"
    "No INPUT, or '-', reads stdin.\n"
    "A folder stands for the TensorBoard events files below it, in path order.\n"
    "\n"
    "Output:\n"
    "  -o, --output FILE        write FILE (atomically) instead of stdout; .gz compresses\n"
    "  -z, --gzip               compress the output with gzip\n"
    "  -q, --quiet              no warnings\n"
    "\n"
    "What to show:\n"
    "      --op-time MODE       schedule (default): the executor's record; gpu: from the\n"
    "                           op's first kernel to its last; all: from the op's start\n"
    "                           to its last kernel (as TensorFlow's timeline.py)\n"
    "      --control            also draw control edges (cat \"control\")\n"
    "      --no-flows           no arrows at all\n"
    "      --no-launch-flows    no arrows from ops to their GPU kernels\n"
    "      --no-stream-all      hide the /stream:all rows (they repeat every kernel)\n"
    "      --no-kernels         hide every GPU tracer row (streams, memcpy)\n"
    "\n"
    "Filters (keep big traces loadable):\n"
    "      --device REGEX       keep devices whose normalized name matches REGEX\n"
    "      --min-dur MICROS     drop executions shorter than MICROS\n"
    "      --window BEGIN,END   keep executions overlapping [BEGIN, END], in microseconds\n"
    "                           from the step's first record\n"
    "\n"
    "Input:\n"
    "      --input-format FMT   auto (default), runmeta, runmeta-text, stepstats,\n"
    "                           stepstats-text, graphdef, graphdef-text, "
    "tfrecord, xspace,\n"
    "                           chrome, tf2-trace (TF 2.0 profiler .trace),\n"
    "                           runmeta-json, stepstats-json, graphdef-json\n"
    "                           (-json: protobuf's JSON, as MessageToJson writes "
    "it)\n" TL_CLI_HELP_STRICT TL_CLI_HELP_END "\n"
    "Several runs (several inputs, or a stream of runs) each get their own processes,\n"
    "named \"RUN: DEVICE\". Exit status: 0 ok, 1 bad input or write error, 2 usage.\n";

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

#define JOB(field) offsetof(struct job, field)
static const tl_cli_opt options[] = {
    TL_OPT_CHOICE("op-time", 0, JOB(opts.op_time), tl_op_time_names),
    TL_OPT("control", 0, TL_ARG_FLAG, JOB(opts.control)),
    TL_OPT("no-flows", 0, TL_ARG_CLEAR, JOB(opts.flows)),
    TL_OPT("no-launch-flows", 0, TL_ARG_CLEAR, JOB(opts.launches)),
    TL_OPT("no-stream-all", 0, TL_ARG_CLEAR, JOB(opts.stream_all)),
    TL_OPT("no-kernels", 0, TL_ARG_CLEAR, JOB(opts.kernels)),
    TL_OPT("device", 0, TL_ARG_REGEX, JOB(opts.device_re)),
    TL_OPT_MIN("min-dur", 0, TL_ARG_MICROS, JOB(opts.min_dur_ns), LONG_MIN),
    TL_OPT_CALL("window", 0, parse_window),
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
	    .cli = {.prog = "trace-dataflow", .usage = usage, .needs = TL_NEEDS_TIMELINE},
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
