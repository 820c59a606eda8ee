#include "cli/cli.h"

#include "io/source.h"
#include "model/run.h"

#include <errno.h>
#include <getopt.h>
#include <math.h>
#ifdef __GLIBC__
#include <malloc.h>
#endif
#include <stddef.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

void tl_cli_input_error(const tl_cli *cli, const char *path, const tl_error *err)
{
	const char *name = (path == NULL || strcmp(path, "-") == 0) ? "<stdin>" : path;
	fprintf(stderr, "%s: cannot read '%s': %s\n", cli->prog, name, err->msg);
	tl_warn_forget_input(name);
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

bool tl_cli_to_terminal(const tl_cli *cli)
{
	return (cli->out_path == NULL || strcmp(cli->out_path, "-") == 0) && isatty(STDOUT_FILENO);
}

bool tl_cli_refuse_terminal(const tl_cli *cli, const char *what)
{
	if (!tl_cli_to_terminal(cli))
		return false;
	tl_cli_error(cli, "refusing to write %s to a terminal (redirect it, or use -o FILE)", what);
	return true;
}

void tl_cli_version(const tl_cli *cli)
{
	printf("%s (tftrace) %s\n", cli->prog, TL_VERSION);
}

int tl_cli_choice(const tl_cli *cli, const char *opt, const char *value, const char *const *names)
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
	tl_cli_usage_error(cli, "option '%s' wants %s, not '%s'", opt, list->str, value);
}

tl_format tl_cli_format(const tl_cli *cli, const char *value)
{
	tl_format f;
	if (tl_format_parse(value, &f) < 0)
		tl_cli_usage_error(cli, "option '--input-format' wants one of %s, not '%s'",
				   tl_format_names(), value);
	return f;
}

int64_t tl_cli_micros(const tl_cli *cli, const char *opt, const char *value, double min_us)
{
	char *end = NULL;
	errno = 0;
	double v = strtod(value, &end);
	if (end == value || *end != '\0' || errno != 0 || !isfinite(v) || v < -9e12 || v > 9e12)
		tl_cli_usage_error(cli, "option '%s' wants microseconds, not '%s'", opt, value);
	if (v < min_us)
		tl_cli_usage_error(cli, "option '%s' wants microseconds of at least %g, not '%s'",
				   opt, min_us, value);
	return (int64_t)llround(v * 1000.0);
}

#define COUNT_MAX 100000000L

long tl_cli_count(const tl_cli *cli, const char *opt, const char *value, long min)
{
	char *end = NULL;
	errno = 0;
	long v = strtol(value, &end, 10);
	if (end == value || *end != '\0' || errno != 0 || v < min || v > COUNT_MAX) {
		if (min > 0)
			tl_cli_usage_error(cli,
					   "option '%s' wants a count of at least %ld, not '%s'",
					   opt, min, value);
		tl_cli_usage_error(cli, "option '%s' wants a count, not '%s'", opt, value);
	}
	return v;
}

double tl_cli_number(const tl_cli *cli, const char *opt, const char *value)
{
	char *end = NULL;
	double v = strtod(value, &end);
	if (end == value || *end != '\0' || !isfinite(v))
		tl_cli_usage_error(cli, "option '%s' wants a number, not '%s'", opt, value);
	return v;
}

GRegex *tl_cli_regex(const tl_cli *cli, const char *opt, const char *value)
{
	GError *gerr = NULL;
	GRegex *re = g_regex_new(value, G_REGEX_OPTIMIZE, 0, &gerr);
	if (re == NULL) {
		/* tl_cli_usage_error exits; the message lives until then */
		tl_cli_usage_error(cli, "option '%s' wants a regular expression, not '%s': %s", opt,
				   value, gerr->message);
	}
	return re;
}

/* One option's value into the job. */
static void take(tl_cli *cli, const tl_cli_opt *o, void *job, const char *arg)
{
	char *at = (char *)job + o->offset;
	char opt[64];
	snprintf(opt, sizeof opt, "--%s", o->name);
	switch (o->kind) {
	case TL_ARG_FLAG:
	case TL_ARG_CLEAR:
		*(bool *)(void *)at = o->kind == TL_ARG_FLAG;
		break;
	case TL_ARG_COUNT:
		*(int *)(void *)at = (int)tl_cli_count(cli, opt, arg, o->min);
		break;
	case TL_ARG_SIZE:
		*(size_t *)(void *)at = (size_t)tl_cli_count(cli, opt, arg, o->min);
		break;
	case TL_ARG_NUMBER:
		*(double *)(void *)at = tl_cli_number(cli, opt, arg);
		break;
	case TL_ARG_MICROS:
		*(int64_t *)(void *)at = tl_cli_micros(cli, opt, arg, (double)o->min);
		break;
	case TL_ARG_REGEX: {
		GRegex **re = (GRegex **)(void *)at;
		if (*re != NULL)
			g_regex_unref(*re);
		*re = tl_cli_regex(cli, opt, arg);
		break;
	}
	case TL_ARG_CHOICE:
		*(int *)(void *)at = tl_cli_choice(cli, opt, arg, o->choices);
		break;
	case TL_ARG_STRING:
		*(const char **)(void *)at = arg;
		break;
	case TL_ARG_CALL:
		o->call(cli, job, arg);
		break;
	case TL_ARG_END:
	case TL_HELP_HEAD:
	case TL_HELP_TEXT:
	case TL_HELP_LINE:
		break; /* not options: never given to getopt */
	}
}

/* The options every tool takes, written after the tool's own; their
 * values go into the tl_cli (the `job` of these rows). */
static void opt_input_format(tl_cli *cli, void *job, const char *value)
{
	cli->format = tl_cli_format(cli, value);
}

static void opt_strict(tl_cli *cli, void *job, const char *value)
{
	cli->strict = true;
	tl_warn_set_strict(true);
}

static void opt_help(tl_cli *cli, void *job, const char *value)
{
	char *text = tl_cli_help_text(cli, cli->opts);
	fputs(text, stdout);
	g_free(text);
	exit(TL_EXIT_OK);
}

static void opt_version(tl_cli *cli, void *job, const char *value)
{
	tl_cli_version(cli);
	exit(TL_EXIT_OK);
}

#define CLI(field) offsetof(tl_cli, field)
static const tl_cli_opt shared[] = {
    TL_OPT_HEAD("Common options:"),
    TL_OPT("output", 'o', TL_ARG_STRING, CLI(out_path), "FILE",
	   "write FILE (atomically) instead of stdout; .gz compresses"),
    TL_OPT("gzip", 'z', TL_ARG_FLAG, CLI(gzip), NULL, "compress the output with gzip"),
    TL_OPT("quiet", 'q', TL_ARG_FLAG, CLI(quiet), NULL, "no warnings"),
    /* its kinds are listed by input_format_help */
    TL_OPT_CALL("input-format", 0, opt_input_format, "FMT",
		"force the kind of every input (default auto: sniffed):"),
    TL_OPT_CALL("strict", 0, opt_strict, NULL,
		"damage is an error (a stream record cut short or corrupt, a gzip stream "
		"cut short), as bad input is"),
    TL_OPT_CALL("help", 'h', opt_help, NULL, "this help"),
    TL_OPT_CALL("version", 'V', opt_version, NULL, "version"),
    TL_OPT_END,
};

/* Whether the kind (forced with --input-format) can record what the tool
 * shows: a GraphDef holds no timeline; a StepStats, a Chrome trace, an
 * XSpace and a TF 2.0 trace hold no graph. */
static bool kind_shows(tl_format f, tl_cli_needs needs)
{
	switch (f) {
	case TL_FORMAT_GRAPHDEF:
	case TL_FORMAT_GRAPHDEF_TEXT:
	case TL_FORMAT_GRAPHDEF_JSON:
		return needs == TL_NEEDS_RUN || needs == TL_NEEDS_GRAPH;
	case TL_FORMAT_STEPSTATS:
	case TL_FORMAT_STEPSTATS_TEXT:
	case TL_FORMAT_STEPSTATS_JSON:
	case TL_FORMAT_CHROME:
	case TL_FORMAT_XSPACE:
	case TL_FORMAT_TF2TRACE:
		return needs != TL_NEEDS_GRAPH;
	default:
		return true;
	}
}

/* --input-format's help: the names tl_format_parse takes (every one of
 * tl_format_names) that can record what the tool shows, then what the
 * less plain ones mean. */
static char *input_format_help(const tl_cli *cli, const char *head)
{
	static const struct {
		const char *name; /* a suffix where it starts with '-' */
		const char *means;
	} notes[] = {
	    {"-text", "protobuf's text format"},
	    {"-json", "protobuf's JSON, as MessageToJson writes it"},
	    {"tf2-trace", "the TF 2.0 profiler's .trace"},
	};
	bool used[G_N_ELEMENTS(notes)] = {false};
	GString *h = g_string_new(head);
	char **names = g_strsplit(tl_format_names(), ", ", -1);
	const char *sep = " ";
	for (char **n = names; *n != NULL; n++) {
		tl_format f;
		if (tl_format_parse(*n, &f) < 0 || f == TL_FORMAT_AUTO ||
		    !kind_shows(f, cli->needs))
			continue;
		g_string_append_printf(h, "%s%s", sep, *n);
		sep = ", ";
		for (size_t i = 0; i < G_N_ELEMENTS(notes); i++)
			used[i] = used[i] ||
				  (notes[i].name[0] == '-' ? g_str_has_suffix(*n, notes[i].name)
							   : strcmp(*n, notes[i].name) == 0);
	}
	g_strfreev(names);
	sep = " (";
	for (size_t i = 0; i < G_N_ELEMENTS(notes); i++) {
		if (!used[i])
			continue;
		g_string_append_printf(h, "%s%s: %s", sep, notes[i].name, notes[i].means);
		sep = "; ";
	}
	if (strcmp(sep, "; ") == 0)
		g_string_append_c(h, ')');
	return g_string_free(h, FALSE);
}

/* The rule for damaged input and for bad input, every tool's. */
static const char damage_rule[] =
    "Damaged input is read past: a record of a TFRecord stream or events file that is "
    "cut short, fails its crc or does not decode is skipped, a gzip stream cut short "
    "gives what came before the cut, each with a warning naming record and byte.\n"
    "Bad input (an input that does not read, or records nothing this tool shows) is "
    "one line naming it and exit 1, wherever it comes: with -o FILE no file is left; "
    "on standard output what was written before it stays (trace-dataflow, trace-memory "
    "and trace-merge write each run as soon as it is read).\n";

static const char inputs_rule[] =
    "No INPUT, or '-', reads stdin. A folder stands for the TensorBoard events files "
    "below it, in path order.\n";

void tl_cli_help_wrap(GString *out, const char *text, size_t col, size_t indent, size_t width)
{
	const char *p = text;
	do {
		const char *eol = strchr(p, '\n');
		const char *end = eol != NULL ? eol : p + strlen(p);
		if (p != text && end > p) { /* a line after a '\n' of text, not blank */
			g_string_append_printf(out, "%*s", (int)indent, "");
			col = indent;
		}
		size_t lead = strspn(p, " ");
		if (lead > (size_t)(end - p))
			lead = (size_t)(end - p);
		g_string_append_printf(out, "%*s", (int)lead, "");
		col += lead;
		size_t start = col; /* where a word opens a line of this text */
		for (const char *w = p + lead; w < end;) {
			const char *we = w;
			while (we < end && *we != ' ')
				we++;
			size_t len = (size_t)(we - w);
			if (col > start && col + 1 + len > width) {
				g_string_append_printf(out, "\n%*s", (int)(indent + lead), "");
				col = start = indent + lead;
			} else if (col > start) {
				g_string_append_c(out, ' ');
				col++;
			}
			g_string_append_len(out, w, (gssize)len);
			col += len;
			for (w = we; w < end && *w == ' '; w++)
				;
		}
		g_string_append_c(out, '\n');
		p = eol != NULL ? eol + 1 : end;
	} while (*p != '\0');
}

/* One option's line(s): "  -o, --output FILE" (or "      --gzip"), its
 * help from TL_CLI_HELP_COLUMN (two spaces after a longer left part). */
static void write_option(GString *out, const tl_cli_opt *o, const char *help)
{
	size_t at = out->len;
	if (o->short_name != 0)
		g_string_append_printf(out, "  -%c, --%s", o->short_name, o->name);
	else
		g_string_append_printf(out, "      --%s", o->name);
	if (o->arg != NULL)
		g_string_append_printf(out, " %s", o->arg);
	size_t col = out->len - at;
	size_t pad = col + 2 <= TL_CLI_HELP_COLUMN ? TL_CLI_HELP_COLUMN - col : 2;
	g_string_append_printf(out, "%*s", (int)pad, "");
	tl_cli_help_wrap(out, help, col + pad, TL_CLI_HELP_COLUMN, TL_CLI_HELP_WIDTH);
}

/* A table's rows for --help, in order. */
static void write_rows(GString *out, const tl_cli *cli, const tl_cli_opt *opts)
{
	for (const tl_cli_opt *o = opts; o->kind != TL_ARG_END; o++) {
		if (o->help == NULL)
			continue;
		if (o->kind == TL_HELP_HEAD) {
			g_string_append_printf(out, "\n%s\n", o->help);
		} else if (o->kind == TL_HELP_TEXT) {
			g_string_append_printf(out, "\n%s", o->help);
		} else if (o->call == opt_input_format) {
			char *help = input_format_help(cli, o->help);
			write_option(out, o, help);
			g_free(help);
		} else {
			write_option(out, o, o->help);
		}
	}
}

char *tl_cli_help_text(const tl_cli *cli, const tl_cli_opt *opts)
{
	static const tl_cli_help none = {"[OPTIONS] [INPUT...]", NULL, NULL, NULL};
	const tl_cli_help *h = cli->help != NULL ? cli->help : &none;
	GString *out = g_string_new(NULL);
	g_string_append_printf(out, "Usage: %s %s\n", cli->prog, h->synopsis);
	if (h->about != NULL)
		tl_cli_help_wrap(out, h->about, 0, 0, TL_CLI_HELP_WIDTH);
	tl_cli_help_wrap(out, inputs_rule, 0, 0, TL_CLI_HELP_WIDTH);
	if (opts != NULL)
		write_rows(out, cli, opts);
	write_rows(out, cli, shared);
	g_string_append_c(out, '\n');
	tl_cli_help_wrap(out, damage_rule, 0, 0, TL_CLI_HELP_WIDTH);
	if (h->notes != NULL) {
		g_string_append_c(out, '\n');
		tl_cli_help_wrap(out, h->notes, 0, 0, TL_CLI_HELP_WIDTH);
	}
	g_string_append_c(out, '\n');
	char *exit_line =
	    g_strdup_printf("Exit status: 0 ok, 1 %s, 2 usage.",
			    h->exit_1 != NULL ? h->exit_1 : "bad input or write error");
	tl_cli_help_wrap(out, exit_line, 0, 0, TL_CLI_HELP_WIDTH);
	g_free(exit_line);
	return g_string_free(out, FALSE);
}

#define TL_OPT_BASE 0x100

/* A tool reads runs one after the other, each freeing what the one before
 * allocated in about the same sizes. glibc's malloc gives memory above its
 * trim threshold back to the kernel at each free, and serves a block from
 * its mmap threshold up (dynamic, 128 KiB to 32 MiB) by a mapping of its
 * own, unmapped when freed: the next run then faults the same memory in
 * again, each page zeroed by the kernel (a tenth of trace-memory's time on
 * a stream of 1 MB runs). Kept instead (up to 256 MiB free at the heap's
 * top; blocks of 32 MiB and more still mapped, as glibc maps them at the
 * most), the memory is reused: the peak RSS is the largest run's, as before. */
static void malloc_keep(void)
{
#if defined(__GLIBC__) && defined(M_TRIM_THRESHOLD) && defined(M_MMAP_THRESHOLD)
	mallopt(M_MMAP_THRESHOLD, 32 << 20);
	mallopt(M_TRIM_THRESHOLD, 256 << 20);
#endif
}

/* Whether the row is an option getopt is to know. */
static bool is_option(const tl_cli_opt *o)
{
	return o->kind != TL_HELP_HEAD && o->kind != TL_HELP_TEXT && o->kind != TL_HELP_LINE;
}

static bool takes_value(const tl_cli_opt *o)
{
	switch (o->kind) {
	case TL_ARG_FLAG:
	case TL_ARG_CLEAR:
		return false;
	case TL_ARG_CALL:
		return o->arg != NULL;
	default:
		return true;
	}
}

void tl_cli_parse(tl_cli *cli, int argc, char **argv, const tl_cli_opt *opts, void *job)
{
	malloc_keep();
	/* the tool's rows, then the shared ones: getopt_long's value for
	 * row i is TL_OPT_BASE + i */
	GPtrArray *rows = g_ptr_array_new();
	for (const tl_cli_opt *o = opts; o->kind != TL_ARG_END; o++)
		if (is_option(o))
			g_ptr_array_add(rows, (gpointer)o);
	guint n_tool = rows->len;
	for (const tl_cli_opt *o = shared; o->kind != TL_ARG_END; o++)
		if (is_option(o))
			g_ptr_array_add(rows, (gpointer)o);
	struct option *lo = g_new0(struct option, rows->len + 1);
	GString *shorts = g_string_new(NULL);
	for (guint i = 0; i < rows->len; i++) {
		const tl_cli_opt *o = g_ptr_array_index(rows, i);
		bool has_arg = takes_value(o);
		lo[i] = (struct option){o->name, has_arg ? required_argument : no_argument, NULL,
					(int)(TL_OPT_BASE + i)};
		if (o->short_name != 0) {
			g_string_append_c(shorts, (char)o->short_name);
			if (has_arg)
				g_string_append_c(shorts, ':');
		}
	}
	cli->opts = opts;
	int c;
	while ((c = getopt_long(argc, argv, shorts->str, lo, NULL)) != -1) {
		guint i = 0;
		for (; i < rows->len; i++) {
			const tl_cli_opt *r = g_ptr_array_index(rows, i);
			if (c == (int)(TL_OPT_BASE + i) ||
			    (r->short_name != 0 && c == r->short_name))
				break;
		}
		if (i == rows->len) { /* getopt has said what ('?' or ':') */
			fprintf(stderr, "Try '%s --help' for more information.\n", cli->prog);
			exit(TL_EXIT_USAGE);
		}
		take(cli, g_ptr_array_index(rows, i), i < n_tool ? job : (void *)cli, optarg);
	}
	cli->opts = NULL;
	g_string_free(shorts, TRUE);
	g_free(lo);
	g_ptr_array_free(rows, TRUE);
}

void tl_cli_finish(const tl_cli *cli)
{
	if (cli->quiet)
		tl_warn_clear();
	else
		tl_warn_flush(cli->prog);
}

tl_cli_inputs tl_cli_inputs_of(int argc, char **argv, int first)
{
	static const char *const stdin_only[] = {"-"};
	if (first < argc)
		return (tl_cli_inputs){.paths = (const char *const *)argv + first,
				       .n = (size_t)(argc - first)};
	return (tl_cli_inputs){.paths = stdin_only, .n = 1};
}

/* Who reads an input that lacks what one tool shows, by what it holds. */
static const char *readers(bool steps, bool graphs)
{
	if (steps)
		return "trace-dataflow, trace-memory, trace-summarize, trace-merge and "
		       "trace-report "
		       "read its timeline";
	if (graphs)
		return "graph-render draws it, trace-summarize and trace-report read it";
	return "it records nothing any tool shows";
}

int tl_cli_holds(const tl_cli *cli, const tl_source *src, bool steps, bool graphs, tl_error *err)
{
	const char *kind = tl_source_kind(src);
	bool runmeta = strcmp(kind, "a RunMetadata") == 0;
	switch (cli->needs) {
	case TL_NEEDS_GRAPH:
		if (graphs)
			return 0;
		return tl_error_set(err, "this is %s, which holds no partition graph (%s%s)", kind,
				    runmeta ? "capture with RunOptions(output_partition_graphs="
					      "True); "
					    : "",
				    readers(steps, graphs));
	case TL_NEEDS_TIMELINE:
	case TL_NEEDS_MEMORY:
		if (steps)
			return 0;
		return tl_error_set(err, "this is %s, which records no %s (%s%s)", kind,
				    cli->needs == TL_NEEDS_MEMORY ? "memory" : "timeline",
				    runmeta ? "no step_stats: capture with RunOptions(trace_level="
					      "FULL_TRACE); "
					    : "",
				    readers(steps, graphs));
	case TL_NEEDS_RUN:
		break;
	}
	if (steps || graphs)
		return 0;
	return tl_error_set(err,
			    "this is %s, which records neither a timeline (step_stats) nor "
			    "a graph",
			    kind);
}

/* A tool that takes no Chrome trace as runs (graph-render: it draws
 * partition graphs, which a Chrome trace has none of) says which kind it
 * was given, and who reads it. */
static int chrome_refusal(tl_source *src, tl_error *err)
{
	const uint8_t *data = NULL;
	size_t len = 0;
	const char *kind = "a Chrome trace";
	if (tl_input_map(tl_source_input(src), &data, &len, NULL) == 0)
		kind = tl_format_chrome_kind(data, len);
	if (strcmp(kind, TL_FORMAT_NOT_A_TRACE) == 0)
		return tl_error_set(err, "this is %s", kind);
	return tl_error_set(err,
			    "this is %s, which holds no partition graph (trace-report, "
			    "trace-dataflow, trace-summarize and trace-merge read it)",
			    kind);
}

int tl_cli_read_inputs(const tl_cli *cli, const tl_cli_inputs *in, tl_format format,
		       tl_cli_source_fn read, void *ctx)
{
	tl_error err = {{0}};
	tl_progress prog;
	tl_progress_begin(&prog, cli->prog, cli->quiet);
	for (size_t i = 0; i < in->n; i++) {
		tl_source *src = NULL;
		if (tl_source_open(&src, in->paths[i], format, &err) < 0) {
			tl_progress_end(&prog);
			tl_cli_input_error(cli, in->paths[i], &err);
			return TL_EXIT_INPUT;
		}
		int rc = read(src, &prog, ctx, &err);
		tl_progress_input_done(&prog, tl_source_offset(src));
		tl_source_close(src);
		if (rc < 0) {
			tl_progress_end(&prog);
			if (err.msg[0] != '\0')
				tl_cli_input_error(cli, in->paths[i], &err);
			return TL_EXIT_INPUT;
		}
	}
	tl_progress_end(&prog);
	return TL_EXIT_OK;
}

/* Whether a run records what the tool shows (cli->needs). */
static bool shows(const tl_cli *cli, const tl_run *run)
{
	switch (cli->needs) {
	case TL_NEEDS_GRAPH:
		return run->has_graphs;
	case TL_NEEDS_TIMELINE:
	case TL_NEEDS_MEMORY:
		return run->has_steps;
	case TL_NEEDS_RUN:
		break;
	}
	return run->has_steps || run->has_graphs;
}

static int give(tl_run **run, tl_cli_run_fn each, void *ctx, tl_error *err)
{
	int rc = each(run, ctx, err);
	tl_run_free(*run);
	*run = NULL;
	return rc;
}

int tl_cli_source_runs(const tl_cli *cli, tl_source *src, tl_run *first, tl_progress *prog,
		       tl_cli_run_fn each, void *ctx, tl_error *err)
{
	GPtrArray *held = NULL; /* made for the first run held back: most inputs hold none */
	bool shown = cli == NULL, steps = false, graphs = false;
	tl_run *run = first;
	int rc = 1;
	if (run == NULL)
		rc = tl_run_next(src, &run, err);
	for (; rc > 0; rc = tl_run_next(src, &run, err)) {
		if (prog != NULL)
			tl_progress_run(prog, tl_source_offset(src));
		steps = steps || run->has_steps;
		graphs = graphs || run->has_graphs;
		if (!shown && !shows(cli, run)) {
			if (held == NULL)
				held = g_ptr_array_new_with_free_func((GDestroyNotify)tl_run_free);
			g_ptr_array_add(held, run);
			continue;
		}
		shown = true;
		for (guint i = 0; held != NULL && rc > 0 && i < held->len; i++)
			if (give((tl_run **)&g_ptr_array_index(held, i), each, ctx, err) < 0)
				rc = -1;
		if (held != NULL)
			g_ptr_array_set_size(held, 0);
		if (rc > 0 && give(&run, each, ctx, err) < 0)
			rc = -1;
		tl_run_free(run);
		if (rc < 0)
			break;
	}
	if (rc == 0 && held != NULL && held->len > 0)
		rc = tl_cli_holds(cli, src, steps, graphs, err);
	for (guint i = 0; rc == 0 && held != NULL && i < held->len; i++)
		rc = give((tl_run **)&g_ptr_array_index(held, i), each, ctx, err);
	if (held != NULL)
		g_ptr_array_free(held, TRUE);
	return rc < 0 ? -1 : 0;
}

struct runs_read {
	const tl_cli *cli;
	GPtrArray *runs;
};

static int keep_run(tl_run **run, void *ctx, tl_error *err)
{
	g_ptr_array_add(ctx, *run);
	*run = NULL;
	return 0;
}

int tl_cli_source_as_runs(const tl_cli *cli, tl_source *src, tl_error *err)
{
	if (tl_source_format(src) == TL_FORMAT_CHROME && !cli->chrome_runs)
		return chrome_refusal(src, err);
	tl_source_want_allocs(src, cli->want_allocs);
	return 0;
}

static int read_runs(tl_source *src, tl_progress *prog, void *ctx, tl_error *err)
{
	const struct runs_read *r = ctx;
	if (tl_cli_source_as_runs(r->cli, src, err) < 0)
		return -1;
	return tl_cli_source_runs(r->cli, src, NULL, prog, keep_run, r->runs, err);
}

int tl_cli_read_runs(const tl_cli *cli, const tl_cli_inputs *in, tl_format format, GPtrArray *runs)
{
	struct runs_read r = {cli, runs};
	return tl_cli_read_inputs(cli, in, format, read_runs, &r);
}
