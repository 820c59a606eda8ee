/* trace-merge: many session runs, workers and trace files into one aligned,
 * labelled Chrome trace (or one TFRecord stream of RunMetadata). */
#include "emit/chrome.h"
#include "cli/cli.h"
#include "emit/merge.h"
#include "base/output.h"
#include "io/source.h"
#include "io/tfrecord.h"

#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static const char usage[] =
	"Usage: trace-merge [OPTIONS] INPUT...\n"
	"Merge many TensorFlow runs and traces into one Chrome trace: RunMetadata (binary,\n"
	"text, gzip), TFRecord streams and TensorBoard event files of many runs, and Chrome\n"
	"trace JSON from timeline.py, the TF2 profiler or PyTorch (Kineto). '-' reads stdin.\n"
	"A folder stands for the TensorBoard events files below it, in path order.\n"
	"\n"
	"Alignment:\n"
	"      --align MODE         wall (default): timestamps as they are; pack: each run\n"
	"                           right after the previous one; overlay: every run from\n"
	"                           zero, each in its own processes, to compare steps\n"
	"      --gap MICROS         pack: gap between runs (default 0)\n"
	"      --offset INPUT=MICROS  shift one input (clock skew between machines);\n"
	"                           repeatable\n"
	"      --sort ORDER         given (default), name or time: the order of inputs\n"
	"\n"
	"Layers from RunMetadata inputs:\n"
	"      --flows              dataflow arrows, as trace-dataflow draws them\n"
	"      --memory             memory counters and buffer lifetimes, as trace-memory\n"
	"\n"
	"Output:\n"
	"      --format FMT         chrome (default), or runmeta: a TFRecord stream of the\n"
	"                           RunMetadata inputs that every tool reads (binary:\n"
	"                           refused on a terminal, exit 1)\n"
	"  -o, --output FILE        write FILE (atomically) instead of stdout; .gz compresses\n"
	"  -z, --gzip               compress the output with gzip\n"
	"  -q, --quiet              no warnings\n"
	"      --input-format FMT   force the kind of every input (default: sniffed)\n"
	"      --strict             damage is an error (a stream record cut short or\n"
	"                           corrupt, a gzip stream cut short): exit 1, no -o file\n"
	"                           (stdout keeps what was written before the damage)\n"
	"  -h, --help               this help\n"
	"  -V, --version            version\n"
	"\n"
	"Damaged input is read past: a record of a TFRecord stream or events file that is\n"
	"cut short, fails its crc or does not decode is skipped, a gzip stream cut short\n"
	"gives what came before the cut, each with a warning naming record and byte.\n"
	"\n"
	"Every run gets a labelled span on the \"Runs\" track; where runs share a device,\n"
	"the device keeps one row through time. Exit status: 0 ok, 1 bad input or write\n"
	"error, 2 usage.\n";

enum {
	OPT_ALIGN = 256,
	OPT_GAP,
	OPT_OFFSET,
	OPT_SORT,
	OPT_FLOWS,
	OPT_MEMORY,
	OPT_FORMAT,
};

static const struct option long_opts[] = {
	{"align", required_argument, NULL, OPT_ALIGN},
	{"gap", required_argument, NULL, OPT_GAP},
	{"offset", required_argument, NULL, OPT_OFFSET},
	{"sort", required_argument, NULL, OPT_SORT},
	{"flows", no_argument, NULL, OPT_FLOWS},
	{"memory", no_argument, NULL, OPT_MEMORY},
	{"format", required_argument, NULL, OPT_FORMAT},
	TL_CLI_LONG_OPTIONS,
	{NULL, 0, NULL, 0},
};

enum sort_order { SORT_GIVEN, SORT_NAME, SORT_TIME };

struct job {
	tl_cli cli;
	tl_merge_opts mopts;
	enum sort_order sort;
	bool runmeta;
	GHashTable *offsets; /* input path -> offset ns (boxed) */
};

static void parse_args(struct job *job, int argc, char **argv)
{
	int c;
	while ((c = getopt_long(argc, argv, "o:zqhV", long_opts, NULL)) != -1) {
		switch (c) {
		case OPT_ALIGN: {
			static const char *const names[] = {"wall", "pack", "overlay", NULL};
			static const tl_align values[] = {TL_ALIGN_WALL, TL_ALIGN_PACK,
							  TL_ALIGN_OVERLAY};
			job->mopts.align = values[tl_cli_choice(&job->cli, "--align", optarg, names)];
			break;
		}
		case OPT_GAP:
			job->mopts.gap_ns = tl_cli_micros(&job->cli, "--gap", optarg);
			if (job->mopts.gap_ns < 0)
				tl_cli_usage_error(&job->cli, "option '--gap' must not be negative");
			break;
		case OPT_OFFSET: {
			const char *eq = strrchr(optarg, '=');
			if (eq == NULL || eq == optarg)
				tl_cli_usage_error(&job->cli, "option '--offset' wants INPUT=MICROS, "
						   "not '%s'", optarg);
			int64_t *ns = g_new(int64_t, 1);
			*ns = tl_cli_micros(&job->cli, "--offset", eq + 1);
			g_hash_table_replace(job->offsets, g_strndup(optarg, (gsize)(eq - optarg)),
					     ns);
			break;
		}
		case OPT_SORT: {
			static const char *const names[] = {"given", "name", "time", NULL};
			static const enum sort_order values[] = {SORT_GIVEN, SORT_NAME, SORT_TIME};
			job->sort = values[tl_cli_choice(&job->cli, "--sort", optarg, names)];
			break;
		}
		case OPT_FLOWS:
			job->mopts.flows = true;
			break;
		case OPT_MEMORY:
			job->mopts.memory = true;
			break;
		case OPT_FORMAT:
			job->runmeta = tl_cli_choice(&job->cli, "--format", optarg,
						     (const char *const[]){"chrome", "runmeta", NULL}) == 1;
			break;
		default:
			tl_cli_option(&job->cli, c, optarg);
		}
	}
}

struct input {
	const char *path;
	double start_us;
	size_t given;
};

static int cmp_name(const void *a, const void *b)
{
	const struct input *x = a, *y = b;
	int c = strcmp(x->path, y->path);
	return c != 0 ? c : (x->given < y->given ? -1 : 1);
}

static int cmp_time(const void *a, const void *b)
{
	const struct input *x = a, *y = b;
	if (x->start_us != y->start_us)
		return x->start_us < y->start_us ? -1 : 1;
	return x->given < y->given ? -1 : 1;
}

/* When an input starts: its first run, or its earliest event. */
static int input_start(struct job *job, struct input *in)
{
	tl_error err = {{0}};
	tl_source *src = NULL;
	if (tl_source_open(&src, in->path, job->cli.format, &err) < 0) {
		tl_cli_input_error(&job->cli, in->path, &err);
		return -1;
	}
	int rc = 0;
	in->start_us = 0;
	if (tl_source_format(src) == TL_FORMAT_CHROME) {
		const uint8_t *data;
		size_t len;
		rc = tl_source_map(src, &data, &len, &err);
		if (rc == 0)
			tl_merge_first_ts(data, len, &in->start_us);
	} else {
		tl_run *run = NULL;
		rc = tl_source_next_run(src, &run, &err);
		if (rc > 0) {
			in->start_us = (double)run->t_begin / 1000.0;
			tl_run_free(run);
		}
	}
	tl_source_close(src);
	if (rc < 0) {
		tl_cli_input_error(&job->cli, in->path, &err);
		return -1;
	}
	return 0;
}

static int64_t offset_of(struct job *job, const char *path)
{
	int64_t *ns = g_hash_table_lookup(job->offsets, path);
	return ns != NULL ? *ns : 0;
}

/* One input into the merge (or the RunMetadata stream). */
static tl_progress progress;

static int merge_input(struct job *job, tl_merge *m, tl_output *out, const char *path)
{
	tl_error err = {{0}};
	tl_source *src = NULL;
	if (tl_source_open(&src, path, job->cli.format, &err) < 0) {
		tl_cli_input_error(&job->cli, path, &err);
		return -1;
	}
	int rc = 0;
	if (tl_source_format(src) == TL_FORMAT_CHROME) {
		if (job->runmeta) {
			rc = tl_error_set(&err, "a Chrome trace cannot become RunMetadata "
					  "(--format runmeta takes RunMetadata inputs)");
		} else {
			const uint8_t *data;
			size_t len;
			rc = tl_source_map(src, &data, &len, &err);
			if (rc == 0)
				rc = tl_merge_chrome(m, data, len, path, offset_of(job, path), &err);
		}
	} else if (job->runmeta) {
		tl_arena *arena = NULL;
		Tensorflow__RunMetadata *meta = NULL;
		const char *label = NULL;
		GByteArray *rec = g_byte_array_new();
		while ((rc = tl_source_next(src, &arena, &meta, &label, &err)) > 0) {
			size_t n = protobuf_c_message_get_packed_size(&meta->base);
			uint8_t *buf = g_malloc(n ? n : 1);
			protobuf_c_message_pack(&meta->base, buf);
			g_byte_array_set_size(rec, 0);
			tl_tfrecord_frame(rec, buf, n);
			tl_out_bytes(out, rec->data, rec->len);
			g_free(buf);
			tl_arena_free(arena);
		}
		g_byte_array_free(rec, TRUE);
	} else {
		tl_run *run = NULL;
		while ((rc = tl_source_next_run(src, &run, &err)) > 0) {
			tl_merge_run(m, run, path, offset_of(job, path));
			tl_run_free(run);
			tl_progress_run(&progress, tl_source_offset(src));
		}
	}
	tl_progress_input_done(&progress, tl_source_offset(src));
	tl_source_close(src);
	if (rc < 0) {
		tl_progress_end(&progress);
		tl_cli_input_error(&job->cli, path, &err);
		return -1;
	}
	return 0;
}

int main(int argc, char **argv)
{
	struct job job = {.cli = {.prog = "trace-merge", .usage = usage}};
	job.offsets = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, g_free);
	parse_args(&job, argc, argv);
	tl_cli_inputs in = tl_cli_inputs_of(argc, argv, optind);
	if (job.runmeta && !job.cli.gzip && tl_cli_refuse_terminal(&job.cli, "binary RunMetadata")) {
		g_hash_table_destroy(job.offsets);
		return TL_EXIT_INPUT;
	}

	struct input *inputs = g_new(struct input, in.n);
	for (size_t i = 0; i < in.n; i++)
		inputs[i] = (struct input){.path = in.paths[i], .given = i};
	int status = TL_EXIT_OK;
	if (job.sort == SORT_TIME)
		for (size_t i = 0; i < in.n && status == TL_EXIT_OK; i++)
			if (input_start(&job, &inputs[i]) < 0)
				status = TL_EXIT_INPUT;
	if (job.sort == SORT_NAME)
		qsort(inputs, in.n, sizeof *inputs, cmp_name);
	else if (job.sort == SORT_TIME)
		qsort(inputs, in.n, sizeof *inputs, cmp_time);

	tl_output *out = NULL;
	tl_error err = {{0}};
	if (status == TL_EXIT_OK &&
	    tl_output_open(&out, job.cli.out_path, job.cli.gzip, in.paths, in.n, &err) < 0) {
		tl_cli_error(&job.cli, "%s", err.msg);
		status = TL_EXIT_INPUT;
	}
	if (status == TL_EXIT_OK) {
		tl_chrome w;
		tl_merge *m = NULL;
		if (!job.runmeta) {
			tl_chrome_begin(&w, out);
			m = tl_merge_new(&w, &job.mopts);
		}
		tl_progress_begin(&progress, job.cli.prog, job.cli.quiet);
		for (size_t i = 0; i < in.n && status == TL_EXIT_OK; i++)
			if (merge_input(&job, m, out, inputs[i].path) < 0)
				status = TL_EXIT_INPUT;
		tl_progress_end(&progress);
		if (m != NULL) {
			if (status == TL_EXIT_OK)
				tl_merge_finish(m, "trace-merge " TL_VERSION);
			tl_merge_free(m);
		}
		if (status != TL_EXIT_OK) {
			tl_output_abort(out);
		} else if (tl_output_close(out, &err) < 0) {
			tl_cli_error(&job.cli, "%s", err.msg);
			status = TL_EXIT_INPUT;
		}
	}
	g_free(inputs);
	g_hash_table_destroy(job.offsets);
	tl_cli_finish(&job.cli);
	return status;
}
