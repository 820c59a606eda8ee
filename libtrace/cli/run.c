#include "cli/cli.h"

#include <getopt.h>

/* A failed step's message, unless the tool has said it already. */
static int failed(const tl_cli *cli, const tl_error *err)
{
	if (err->msg[0] != '\0')
		tl_cli_error(cli, "%s", err->msg);
	return TL_EXIT_INPUT;
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

int tl_cli_run(tl_cli *cli, int argc, char **argv, const tl_cli_tool *tool, void *ctx)
{
	if (tool->binary != NULL && tl_cli_refuse_terminal(cli, tool->binary))
		return TL_EXIT_INPUT;
	tl_cli_inputs in = tl_cli_inputs_of(argc, argv, optind);
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
