/* Unit tests of cli/cli.c's option table (tl_cli_parse): every kind of
 * value lands in its field with its type, short and long spellings, the
 * shared options still work, optind is left at the first input. The
 * refusals exit the process; tests/cli cases check their messages.
 * And the help writer (tl_cli_help_wrap, tl_cli_help_text) against text
 * laid out by hand from cli.h's rules: option column 27, lines within 79
 * columns, '\n' a break, the shared options after the tool's. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "cli/cli.h"

#include <getopt.h>
#include <glib.h>
#include <stdio.h>
#include <string.h>

struct job {
	tl_cli cli;
	bool flag, on;
	int count, choice;
	size_t size;
	double number;
	int64_t ns;
	GRegex *re;
	const char *string;
	char called[32];
};

static void call(tl_cli *cli, void *ctx, const char *value)
{
	struct job *job = ctx;
	snprintf(job->called, sizeof job->called, "<%s>", value != NULL ? value : "no value");
}

static const char *const names[] = {"red", "green", "blue", NULL};

#define JOB(f) offsetof(struct job, f)
static const tl_cli_opt opts[] = {
	TL_OPT("flag", 'f', TL_ARG_FLAG, JOB(flag), NULL, "a flag"),
	TL_OPT("no-on", 0, TL_ARG_CLEAR, JOB(on), NULL, "off"),
	TL_OPT_MIN("count", 'c', TL_ARG_COUNT, JOB(count), 1, "N", "a count"),
	TL_OPT("size", 0, TL_ARG_SIZE, JOB(size), "N", "a size"),
	TL_OPT("number", 0, TL_ARG_NUMBER, JOB(number), "X", "a number"),
	TL_OPT("micros", 0, TL_ARG_MICROS, JOB(ns), "MICROS", "a time"),
	TL_OPT("re", 0, TL_ARG_REGEX, JOB(re), "RE", "a regex"),
	TL_OPT_CHOICE("color", 0, JOB(choice), names, "C", "a colour"),
	TL_OPT("name", 'n', TL_ARG_STRING, JOB(string), "S", "a string"),
	TL_OPT_CALL("call", 0, call, "V", "a call with a value"),
	TL_OPT_CALL("mark", 'm', call, NULL, "a call without one"),
	TL_OPT_END,
};

static void test_kinds(void **state)
{
	(void)state;
	char *argv[] = {"prog", "-f", "--no-on", "-c", "7", "--size=12", "--number", "-2.5",
			"--micros", "1.5", "--re", "^a", "--re", "b$", "--color", "blue", "-n", "x",
			"--call", "v", "-q", "-o", "out.json", "in1", "in2", NULL};
	int argc = (int)G_N_ELEMENTS(argv) - 1;
	struct job job = {.cli = {.prog = "prog"}, .on = true};
	optind = 1;
	tl_cli_parse(&job.cli, argc, argv, opts, &job);
	assert_true(job.flag);
	assert_false(job.on);
	assert_int_equal(job.count, 7);
	assert_int_equal(job.size, 12);
	assert_true(job.number == -2.5);
	assert_int_equal(job.ns, 1500);
	/* the second --re replaced the first */
	assert_true(g_regex_match(job.re, "ab", 0, NULL));
	assert_false(g_regex_match(job.re, "ba", 0, NULL));
	assert_int_equal(job.choice, 2);
	assert_string_equal(job.string, "x");
	assert_string_equal(job.called, "<v>");
	assert_true(job.cli.quiet);
	assert_string_equal(job.cli.out_path, "out.json");
	assert_int_equal(optind, argc - 2);
	tl_cli_inputs in = tl_cli_inputs_of(argc, argv, optind);
	assert_int_equal(in.n, 2);
	assert_string_equal(in.paths[1], "in2");
	g_regex_unref(job.re);
}

/* No inputs: standard input alone. */
static void test_stdin(void **state)
{
	(void)state;
	char *argv[] = {"prog", "--flag", NULL};
	struct job job = {.cli = {.prog = "prog"}};
	optind = 1;
	tl_cli_parse(&job.cli, 2, argv, opts, &job);
	tl_cli_inputs in = tl_cli_inputs_of(2, argv, optind);
	assert_int_equal(in.n, 1);
	assert_string_equal(in.paths[0], "-");
}

/* A call row without a value name takes none: the word after it is an
 * input (graph-render's --edge-labels once swallowed the file after it). */
static void test_call_without_value(void **state)
{
	(void)state;
	char *argv[] = {"prog", "--mark", "in1", NULL};
	struct job job = {.cli = {.prog = "prog"}};
	optind = 1;
	tl_cli_parse(&job.cli, 3, argv, opts, &job);
	assert_string_equal(job.called, "<no value>");
	assert_int_equal(optind, 2);
	job.called[0] = '\0';
	char *argv2[] = {"prog", "-m", "--call=v", NULL};
	optind = 1;
	tl_cli_parse(&job.cli, 3, argv2, opts, &job);
	assert_string_equal(job.called, "<v>");
	assert_int_equal(optind, 3);
}

static char *wrapped(const char *text, size_t col, size_t indent, size_t width)
{
	GString *out = g_string_new(NULL);
	tl_cli_help_wrap(out, text, col, indent, width);
	return g_string_free(out, FALSE);
}

#define ASSERT_WRAP(text, col, indent, width, want)                                                \
	do {                                                                                       \
		char *got = wrapped(text, col, indent, width);                                     \
		assert_string_equal(got, want);                                                    \
		g_free(got);                                                                       \
	} while (0)

static void test_wrap(void **state)
{
	(void)state;
	/* a line may fill the width exactly, not one column more */
	ASSERT_WRAP("aaaa bb", 0, 0, 7, "aaaa bb\n");
	ASSERT_WRAP("aaaa bb", 0, 0, 6, "aaaa\nbb\n");
	ASSERT_WRAP("aaa bbb ccc", 0, 0, 7, "aaa bbb\nccc\n");
	/* a word longer than the width stands alone, whole */
	ASSERT_WRAP("x verylongword y", 0, 0, 5, "x\nverylongword\ny\n");
	/* the first line goes on from col; the later ones are indented */
	ASSERT_WRAP("ab cd", 5, 2, 8, "ab\n  cd\n");
	/* a '\n' breaks where it stands; a blank line has no spaces */
	ASSERT_WRAP("a\n\nb c", 0, 4, 79, "a\n\n    b c\n");
	/* spaces that open a line of text indent its continuations too */
	ASSERT_WRAP("  cmd one two", 0, 0, 10, "  cmd one\n  two\n");
	/* runs of spaces between words count as one */
	ASSERT_WRAP("a   b", 0, 0, 79, "a b\n");
	ASSERT_WRAP("", 0, 0, 79, "\n");
}

/* The text with each run of spaces and newlines made one space. */
static char *flatten(const char *text)
{
	GString *out = g_string_new(NULL);
	for (const char *p = text; *p != '\0'; p++) {
		bool space = *p == ' ' || *p == '\n';
		if (!space)
			g_string_append_c(out, *p);
		else if (out->len > 0 && out->str[out->len - 1] != ' ')
			g_string_append_c(out, ' ');
	}
	return g_string_free(out, FALSE);
}

static void test_help_text(void **state)
{
	(void)state;
	static const tl_cli_help help = {
	    .synopsis = "[OPTIONS] FILE",
	    .about = "Does one thing.",
	    .notes = "A note.",
	};
	static const tl_cli_opt table[] = {
	    TL_OPT_HEAD("Group:"),
	    TL_OPT("flag", 'f', TL_ARG_FLAG, 0, NULL, "a flag"),
	    TL_OPT("count", 0, TL_ARG_COUNT, 0, "N",
		   "how many of the things that the tool counts are kept, at most"),
	    TL_OPT("hidden", 0, TL_ARG_FLAG, 0, NULL, NULL),
	    TL_OPT("min-COL", 0, TL_HELP_LINE, 0, "VALUE", "one line, two options"),
	    TL_OPT("a-rather-long-name", 0, TL_ARG_STRING, 0, "X", "two spaces after"),
	    TL_OPT_TEXT("Verbatim:\n  kept   as it   stands\n"),
	    TL_OPT_END,
	};
	tl_cli cli = {.prog = "prog", .help = &help, .needs = TL_NEEDS_GRAPH};
	char *text = tl_cli_help_text(&cli, table);
	const char *want_head =
	    "Usage: prog [OPTIONS] FILE\n"
	    "Does one thing.\n"
	    "No INPUT, or '-', reads stdin. A folder stands for the TensorBoard events files\n"
	    "below it, in path order.\n"
	    "\n"
	    "Group:\n"
	    "  -f, --flag               a flag\n"
	    "      --count N            how many of the things that the tool counts are\n"
	    "                           kept, at most\n"
	    "      --min-COL VALUE      one line, two options\n"
	    "      --a-rather-long-name X  two spaces after\n"
	    "\n"
	    "Verbatim:\n"
	    "  kept   as it   stands\n"
	    "\n"
	    "Common options:\n"
	    "  -o, --output FILE        write FILE (atomically) instead of stdout; .gz\n"
	    "                           compresses\n"
	    "  -z, --gzip               compress the output with gzip\n"
	    "  -q, --quiet              no warnings\n"
	    "      --input-format FMT   ";
	assert_memory_equal(text, want_head, strlen(want_head));
	assert_null(strstr(text, "hidden"));
	assert_non_null(strstr(text, "\n  -h, --help               this help\n"
				     "  -V, --version            version\n\nDamaged input"));
	assert_true(g_str_has_suffix(text, "\n\nA note.\n\n"
					   "Exit status: 0 ok, 1 bad input or write error, 2 usage.\n"));
	/* a graph tool's --input-format lists the kinds that can hold a
	 * graph, in tl_format_names' order */
	char *flat = flatten(text);
	assert_non_null(strstr(flat, "sniffed): runmeta, runmeta-text, graphdef, graphdef-text, "
				     "tfrecord, runmeta-json, graphdef-json (-text:"));
	/* every line within 79 columns, none ending in a space */
	char **lines = g_strsplit(text, "\n", -1);
	for (char **l = lines; *l != NULL; l++) {
		assert_true(strlen(*l) <= 79);
		assert_false(g_str_has_suffix(*l, " "));
	}
	g_strfreev(lines);
	g_free(flat);
	g_free(text);
	/* a timeline tool's list: every kind but GraphDef's */
	cli.needs = TL_NEEDS_TIMELINE;
	text = tl_cli_help_text(&cli, table);
	flat = flatten(text);
	assert_non_null(strstr(flat, "sniffed): runmeta, runmeta-text, stepstats, stepstats-text, "
				     "tfrecord, chrome, xspace, runmeta-json, stepstats-json, "
				     "tf2-trace (-text:"));
	g_free(flat);
	g_free(text);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_kinds),
	    cmocka_unit_test(test_stdin),
	    cmocka_unit_test(test_call_without_value),
	    cmocka_unit_test(test_wrap),
	    cmocka_unit_test(test_help_text),
	};
	return cmocka_run_group_tests_name("cli", tests, NULL, NULL);
}
