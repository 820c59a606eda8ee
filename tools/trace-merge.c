/* trace-merge: many session runs, workers and trace files into one aligned,
 * labelled Chrome trace (or one TFRecord stream of RunMetadata). */
#include "emit/chrome.h"
#include "cli/cli.h"
#include "emit/merge.h"
#include "base/output.h"
#include "cli/merge_inputs.h"

#include <getopt.h>
#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static const tl_cli_help help = {
    .synopsis = "[OPTIONS] INPUT...",
    .about = "Merge many TensorFlow runs and traces into one Chrome trace: RunMetadata (binary, "
	     "text, gzip), TFRecord streams and TensorBoard event files of many runs, and Chrome "
	     "trace JSON from timeline.py, the TF2 profiler or PyTorch (Kineto).",
    .notes = "Every run gets a labelled span on the \"Runs\" track; where runs share a device, "
	     "the device keeps one row through time.",
};

struct job {
	tl_cli cli;
	tl_merge_opts mopts;
	tl_merge_order sort;
	enum { OUT_CHROME, OUT_RUNMETA } format; /* --format, as `formats` names them */
	GHashTable *offsets; /* input path -> offset ns (boxed) */
	tl_merge_inputs_opts o;
	const char **paths; /* in the order asked for */
};

static void parse_offset(tl_cli *cli, void *ctx, const char *value)
{
	struct job *job = ctx;
	const char *eq = strrchr(value, '=');
	if (eq == NULL || eq == value)
		tl_cli_usage_error(cli, "option '--offset' wants INPUT=MICROS, not '%s'", value);
	int64_t *ns = g_new(int64_t, 1);
	*ns = tl_cli_micros(cli, "--offset", eq + 1, -INFINITY);
	g_hash_table_replace(job->offsets, g_strndup(value, (gsize)(eq - value)), ns);
}

static const char *const formats[] = {"chrome", "runmeta", NULL};

#define JOB(field) offsetof(struct job, field)
static const tl_cli_opt options[] = {
    TL_OPT_HEAD("Alignment:"),
    TL_OPT_CHOICE("align", 0, JOB(mopts.align), tl_align_names, "MODE",
		  "wall (default): timestamps as they are; pack: each run right after the "
		  "previous one; overlay: every run from zero, each in its own processes, to "
		  "compare steps"),
    TL_OPT_MIN("gap", 0, TL_ARG_MICROS, JOB(mopts.gap_ns), 0, "MICROS",
	       "pack: gap between runs (default 0)"),
    TL_OPT_CALL("offset", 0, parse_offset, "INPUT=MICROS",
		"wall: shift one input, named as the command line names it (clock skew "
		"between machines); repeatable"),
    TL_OPT_CHOICE("sort", 0, JOB(sort), tl_merge_order_names, "ORDER",
		  "given (default), name or time: the order of inputs"),
    TL_OPT_HEAD("Layers from RunMetadata inputs:"),
    TL_OPT("flows", 0, TL_ARG_FLAG, JOB(mopts.flows), NULL,
	   "dataflow arrows, as trace-dataflow draws them"),
    TL_OPT("memory", 0, TL_ARG_FLAG, JOB(mopts.memory), NULL,
	   "memory counters and buffer lifetimes, as trace-memory"),
    TL_OPT_HEAD("Output:"),
    TL_OPT_CHOICE("format", 0, JOB(format), formats, "FMT",
		  "chrome (default), or runmeta: a TFRecord stream of the RunMetadata inputs "
		  "that every tool reads (binary: refused on a terminal, exit 1)"),
    TL_OPT_END,
};

/* The inputs in the order asked for, before anything is written. */
static int order_inputs(void *ctx, const tl_cli_inputs *in, GPtrArray *runs, tl_error *err)
{
	struct job *job = ctx;
	job->paths = g_memdup2(in->paths, in->n * sizeof *in->paths);
	const char *bad = NULL;
	if (tl_merge_inputs_order(job->paths, in->n, &job->o, &bad, err) == 0)
		return 0;
	tl_cli_input_error(&job->cli, bad, err);
	err->msg[0] = '\0';
	return -1;
}

static int merge(void *ctx, const tl_cli_inputs *in, GPtrArray *runs, tl_output *out, tl_error *err)
{
	struct job *job = ctx;
	tl_progress progress;
	tl_progress_begin(&progress, job->cli.prog, job->cli.quiet);
	job->o.progress = &progress;
	const char *bad = NULL;
	int rc = tl_merge_inputs_write(out, job->paths, in->n, &job->o, &bad, err);
	tl_progress_end(&progress);
	if (rc < 0) {
		tl_cli_input_error(&job->cli, bad, err);
		err->msg[0] = '\0';
	}
	return rc;
}

/* Each --offset INPUT is one of the inputs, spelled as on the command line
 * (an offset that shifts nothing is a mistake to say). */
static void offsets_name_inputs(tl_cli *cli, GHashTable *offsets, tl_cli_inputs in)
{
	GHashTableIter it;
	gpointer key;
	g_hash_table_iter_init(&it, offsets);
	while (g_hash_table_iter_next(&it, &key, NULL)) {
		bool named = false;
		for (size_t i = 0; i < in.n && !named; i++)
			named = strcmp(in.paths[i], key) == 0;
		if (!named)
			tl_cli_usage_error(cli,
					   "option '--offset' names '%s', which is no input (name "
					   "one as the command line does)",
					   (const char *)key);
	}
}

int main(int argc, char **argv)
{
	struct job job = {
	    .cli = {.prog = "trace-merge", .help = &help, .needs = TL_NEEDS_TIMELINE}};
	job.offsets = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, g_free);
	tl_cli_parse(&job.cli, argc, argv, options, &job);
	if (g_hash_table_size(job.offsets) > 0 && job.mopts.align != TL_ALIGN_WALL)
		tl_cli_usage_error(&job.cli, "--offset goes with --align wall (pack and overlay "
					     "place every run themselves)");
	offsets_name_inputs(&job.cli, job.offsets, tl_cli_inputs_of(argc, argv, optind));
	job.o = (tl_merge_inputs_opts){.format = job.cli.format,
				       .order = job.sort,
				       .runmeta = job.format == OUT_RUNMETA,
				       .offsets = job.offsets,
				       .merge = &job.mopts,
				       .tool = "trace-merge " TL_VERSION,
				       .cli = &job.cli};
	tl_cli_tool tool = {.stream = true, .prepare = order_inputs, .write = merge};
	if (job.format == OUT_RUNMETA)
		tool.binary = "binary RunMetadata";
	int status = tl_cli_run(&job.cli, argc, argv, &tool, &job);
	g_free(job.paths);
	g_hash_table_destroy(job.offsets);
	return status;
}
