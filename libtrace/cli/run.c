#include "cli/cli.h"

#include "model/run.h"

#include <getopt.h>

/* A failed step's message, unless the tool has said it already. */
static int failed(const tl_cli *cli, const tl_error *err)
{
	if (err->msg[0] != '\0')
		tl_cli_error(cli, "%s", err->msg);
	return TL_EXIT_INPUT;
}

void tl_cli_free_runs(GPtrArray *runs)
{
	for (guint r = 0; r < runs->len; r++)
		tl_run_free(g_ptr_array_index(runs, r));
	g_ptr_array_free(runs, TRUE);
}

static int open_write_close(tl_cli *cli, const tl_cli_inputs *in, GPtrArray *runs,
			    const tl_cli_tool *tool, void *ctx)
{
	tl_error err = {{0}};
	if (tool->prepare != NULL && tool->prepare(ctx, in, runs, &err) < 0)
		return failed(cli, &err);
	tl_output *out = NULL;
	if (tl_output_open(&out, cli->out_path, cli->gzip, in->paths, in->n, &err) < 0)
		return failed(cli, &err);
	if (tool->write(ctx, in, runs, out, &err) < 0) {
		tl_output_abort(out);
		return failed(cli, &err);
	}
	if (tl_output_close(out, &err) < 0)
		return failed(cli, &err);
	return TL_EXIT_OK;
}

/* Run by run: where the stream stands. */
struct stream {
	tl_cli *cli;
	const tl_cli_tool *tool;
	void *ctx;
	const tl_cli_inputs *in;
	tl_output *out; /* opened just before the first run is given */
	tl_run *first;	/* the first run, held until a second is read */
	size_t first_input;
	size_t input; /* the input being read */
	size_t given; /* runs given to the tool */
};

/* Opens the output and begins it, once. An error message left empty has
 * been said already. */
static int stream_open(struct stream *s, tl_error *err)
{
	if (s->out != NULL)
		return 0;
	if (tl_output_open(&s->out, s->cli->out_path, s->cli->gzip, s->in->paths, s->in->n, err) <
	    0) {
		s->out = NULL;
		return -1;
	}
	if (s->tool->begin != NULL)
		return s->tool->begin(s->ctx, s->in, s->out, err);
	return 0;
}

/* One run to the tool, then what it wrote to the output (so that it
 * flows while the inputs are read). */
static int stream_give(struct stream *s, tl_run **run, size_t input, bool several, tl_error *err)
{
	if (stream_open(s, err) < 0)
		return -1;
	tl_cli_step step = {.index = s->given++, .input = input, .several = several};
	int rc = s->tool->run(s->ctx, run, &step, s->out, err);
	tl_run_free(*run);
	*run = NULL;
	if (rc == 0)
		tl_output_flush(s->out);
	return rc;
}

/* A tool's own refusal (not the input's) is its line "prog: msg", said
 * here so that tl_cli_read_inputs says nothing more. */
static int tool_failed(struct stream *s, tl_error *err)
{
	failed(s->cli, err);
	err->msg[0] = '\0';
	return -1;
}

/* A run read: the first is held until the second comes. */
static int stream_run(tl_run **run, void *ctx, tl_error *err)
{
	struct stream *s = ctx;
	if (s->given == 0 && s->first == NULL) {
		s->first = *run;
		s->first_input = s->input;
		*run = NULL;
		return 0;
	}
	if (s->first != NULL && stream_give(s, &s->first, s->first_input, true, err) < 0)
		return tool_failed(s, err);
	if (stream_give(s, run, s->input, true, err) < 0)
		return tool_failed(s, err);
	return 0;
}

static int stream_input(tl_source *src, tl_progress *prog, void *ctx, tl_error *err)
{
	struct stream *s = ctx;
	tl_run *first = NULL;
	if (s->tool->input != NULL) {
		int took = s->tool->input(s->ctx, src, &first, err);
		if (took != 0) {
			s->input++;
			return took < 0 ? -1 : 0;
		}
	}
	if (first == NULL && tl_cli_source_as_runs(s->cli, src, err) < 0)
		return -1;
	int rc = tl_cli_source_runs(s->cli, src, first, prog, stream_run, s, err);
	s->input++;
	return rc;
}

static int stream_inputs(tl_cli *cli, const tl_cli_inputs *in, const tl_cli_tool *tool, void *ctx)
{
	tl_error err = {{0}};
	if (tool->prepare != NULL && tool->prepare(ctx, in, NULL, &err) < 0)
		return failed(cli, &err);
	struct stream s = {.cli = cli, .tool = tool, .ctx = ctx, .in = in};
	int status = tl_cli_read_inputs(cli, in, cli->format, stream_input, &s);
	if (status == TL_EXIT_OK && s.first != NULL &&
	    stream_give(&s, &s.first, s.first_input, false, &err) < 0)
		status = failed(cli, &err);
	if (status == TL_EXIT_OK && stream_open(&s, &err) < 0)
		status = failed(cli, &err);
	if (status == TL_EXIT_OK && tool->end != NULL && tool->end(ctx, in, s.out, &err) < 0)
		status = failed(cli, &err);
	tl_run_free(s.first);
	if (status != TL_EXIT_OK) {
		tl_output_abort(s.out);
		return status;
	}
	if (tl_output_close(s.out, &err) < 0)
		return failed(cli, &err);
	return TL_EXIT_OK;
}

int tl_cli_run(tl_cli *cli, int argc, char **argv, const tl_cli_tool *tool, void *ctx)
{
	if (tool->binary != NULL && tl_cli_refuse_terminal(cli, tool->binary))
		return TL_EXIT_INPUT;
	tl_cli_inputs in = tl_cli_inputs_of(argc, argv, optind);
	if (tool->run != NULL) {
		int status = stream_inputs(cli, &in, tool, ctx);
		tl_cli_finish(cli);
		return status;
	}
	GPtrArray *runs = g_ptr_array_new();
	int status = TL_EXIT_OK;
	if (!tool->stream)
		status = tl_cli_read_runs(cli, &in, cli->format, runs);
	if (status == TL_EXIT_OK)
		status = open_write_close(cli, &in, runs, tool, ctx);
	tl_cli_free_runs(runs);
	tl_cli_finish(cli);
	return status;
}
