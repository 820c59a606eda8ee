#include "cli.h"

#include "source.h"

#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

void tl_cli_input_error(const tl_cli *cli, const char *path, const tl_error *err)
{
	const char *name = (path == NULL || strcmp(path, "-") == 0) ? "<stdin>" : path;
	fprintf(stderr, "%s: cannot read '%s': %s\n", cli->prog, name, err->msg);
}

void tl_cli_error(const tl_cli *cli, const char *fmt, ...)
{
	va_list ap;
	fprintf(stderr, "%s: ", cli->prog);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
}

void tl_cli_usage_error(const tl_cli *cli, const char *fmt, ...)
{
	va_list ap;
	fprintf(stderr, "%s: ", cli->prog);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fprintf(stderr, "\nTry '%s --help' for more information.\n", cli->prog);
	exit(TL_EXIT_USAGE);
}

void tl_cli_version(const tl_cli *cli)
{
	printf("%s (tftrace) %s\n", cli->prog, TL_VERSION);
}

void tl_cli_option(tl_cli *cli, int c, const char *arg)
{
	switch (c) {
	case 'o':
		cli->out_path = arg;
		return;
	case 'z':
		cli->gzip = true;
		return;
	case 'q':
		cli->quiet = true;
		return;
	case TL_OPT_INPUT_FORMAT:
		cli->format = tl_cli_format(cli, arg);
		return;
	case 'h':
		fputs(cli->usage, stdout);
		exit(TL_EXIT_OK);
	case 'V':
		tl_cli_version(cli);
		exit(TL_EXIT_OK);
	default:
		fprintf(stderr, "Try '%s --help' for more information.\n", cli->prog);
		exit(TL_EXIT_USAGE);
	}
}

int tl_cli_choice(const tl_cli *cli, const char *opt, const char *value,
		  const char *const *names)
{
	int n = 0;
	for (; names[n] != NULL; n++)
		if (strcmp(names[n], value) == 0)
			return n;
	GString *list = g_string_new(NULL);
	for (int i = 0; i < n; i++) {
		if (i > 0)
			g_string_append(list, i == n - 1 ? " or " : ", ");
		g_string_append(list, names[i]);
	}
	/* tl_cli_usage_error exits; the list lives until then. */
	tl_cli_usage_error(cli, "unknown %s '%s' (%s)", opt, value, list->str);
}

tl_format tl_cli_format(const tl_cli *cli, const char *value)
{
	tl_format f;
	if (tl_format_parse(value, &f) < 0)
		tl_cli_usage_error(cli, "unknown input format '%s' (one of: %s)", value,
				   tl_format_names());
	return f;
}

int64_t tl_cli_micros(const tl_cli *cli, const char *opt, const char *value)
{
	char *end = NULL;
	errno = 0;
	double v = strtod(value, &end);
	if (end == value || *end != '\0' || errno != 0 || !isfinite(v) || v < -9e12 || v > 9e12)
		tl_cli_usage_error(cli, "option '%s' wants microseconds, not '%s'", opt, value);
	return (int64_t)llround(v * 1000.0);
}

void tl_cli_finish(const tl_cli *cli)
{
	if (cli->quiet)
		tl_warnings_clear();
	else
		tl_warnings_flush(cli->prog);
}

tl_cli_inputs tl_cli_inputs_of(int argc, char **argv, int first)
{
	static const char *const stdin_only[] = {"-"};
	if (first < argc)
		return (tl_cli_inputs){.paths = (const char *const *)argv + first,
				       .n = (size_t)(argc - first)};
	return (tl_cli_inputs){.paths = stdin_only, .n = 1};
}

void tl_progress_begin(tl_progress *p, const tl_cli *cli)
{
	*p = (tl_progress){.cli = cli, .on = !cli->quiet && isatty(STDERR_FILENO)};
	p->started = p->last = g_get_monotonic_time() / 1e6;
}

/* One lock for every progress line: workers of one tool report to it. */
G_LOCK_DEFINE_STATIC(progress);

static void progress_draw(tl_progress *p, uint64_t bytes, bool force)
{
	double now = g_get_monotonic_time() / 1e6;
	if (!p->on || (!force && now - p->last < 0.2))
		return;
	p->last = now;
	double mb = (double)bytes / 1e6, dt = now - p->started;
	fprintf(stderr, "\r%s: %zu run%s, %.0f MB, %.0f MB/s   ", p->cli->prog, p->runs,
		p->runs == 1 ? "" : "s", mb, dt > 0 ? mb / dt : 0);
	fflush(stderr);
}

void tl_progress_run(tl_progress *p, uint64_t input_offset)
{
	G_LOCK(progress);
	p->runs++;
	progress_draw(p, p->bytes + input_offset, false);
	G_UNLOCK(progress);
}

void tl_progress_input_done(tl_progress *p, uint64_t size)
{
	G_LOCK(progress);
	p->bytes += size;
	progress_draw(p, p->bytes, false);
	G_UNLOCK(progress);
}

void tl_progress_add(tl_progress *p, size_t runs, uint64_t bytes)
{
	G_LOCK(progress);
	p->runs += runs;
	p->bytes += bytes;
	progress_draw(p, p->bytes, false);
	G_UNLOCK(progress);
}

void tl_progress_end(tl_progress *p)
{
	if (p->on && p->last > p->started) {
		fprintf(stderr, "\r\033[K");
		fflush(stderr);
	}
}

int tl_cli_read_runs(const tl_cli *cli, const tl_cli_inputs *in, tl_format format,
		     GPtrArray *runs)
{
	tl_error err = {{0}};
	tl_progress prog;
	tl_progress_begin(&prog, cli);
	for (size_t i = 0; i < in->n; i++) {
		tl_source *src = NULL;
		if (tl_source_open(&src, in->paths[i], format, &err) < 0) {
			tl_cli_input_error(cli, in->paths[i], &err);
			return TL_EXIT_INPUT;
		}
		int rc = 0;
		if (tl_source_format(src) == TL_FORMAT_CHROME) {
			rc = tl_error_set(&err, "this is a Chrome trace, not a RunMetadata "
					  "(trace-merge and trace-summarize read it)");
		} else {
			tl_run *run = NULL;
			while ((rc = tl_source_next_run(src, &run, &err)) > 0) {
				g_ptr_array_add(runs, run);
				tl_progress_run(&prog, tl_input_offset(tl_source_input(src)));
			}
		}
		tl_progress_input_done(&prog, tl_input_offset(tl_source_input(src)));
		tl_source_close(src);
		if (rc < 0) {
			tl_progress_end(&prog);
			tl_cli_input_error(cli, in->paths[i], &err);
			return TL_EXIT_INPUT;
		}
	}
	tl_progress_end(&prog);
	return TL_EXIT_OK;
}

void tl_cli_free_runs(GPtrArray *runs)
{
	for (guint r = 0; r < runs->len; r++)
		tl_run_free(g_ptr_array_index(runs, r));
	g_ptr_array_free(runs, TRUE);
}
