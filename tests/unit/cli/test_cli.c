/* Unit tests of cli/cli.c's option table (tl_cli_parse): every kind of
 * value lands in its field with its type, short and long spellings, the
 * shared options still work, optind is left at the first input. The
 * refusals exit the process; tests/cli cases check their messages. */
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
	snprintf(job->called, sizeof job->called, "<%s>", value);
}

static const char *const names[] = {"red", "green", "blue", NULL};

#define JOB(f) offsetof(struct job, f)
static const tl_cli_opt opts[] = {
	TL_OPT("flag", 'f', TL_ARG_FLAG, JOB(flag)),
	TL_OPT("no-on", 0, TL_ARG_CLEAR, JOB(on)),
	TL_OPT_MIN("count", 'c', TL_ARG_COUNT, JOB(count), 1),
	TL_OPT("size", 0, TL_ARG_SIZE, JOB(size)),
	TL_OPT("number", 0, TL_ARG_NUMBER, JOB(number)),
	TL_OPT("micros", 0, TL_ARG_MICROS, JOB(ns)),
	TL_OPT("re", 0, TL_ARG_REGEX, JOB(re)),
	TL_OPT_CHOICE("color", 0, JOB(choice), names),
	TL_OPT("name", 'n', TL_ARG_STRING, JOB(string)),
	TL_OPT_CALL("call", 0, call),
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

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_kinds),
	    cmocka_unit_test(test_stdin),
	};
	return cmocka_run_group_tests_name("cli", tests, NULL, NULL);
}
