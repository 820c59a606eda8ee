/* Unit tests of base/progress.c, the progress line on stderr. stderr is
 * pointed at a pseudo-terminal (openpty) and what the terminal receives is
 * read back: with TFTRACE_PROGRESS_DELAY=0 the first report draws
 * "\rPROG: N runs, M MB, R MB/s" at once (MB are 10^6 bytes), a report
 * 0.2 s after the last draws again with the totals so far, and
 * the end clears the line ("\r" then erase to end of line, ESC [ K). With
 * --quiet, or with stderr not a terminal (a pipe), nothing is written at
 * all; with the default delay (0.2 s) a report at once draws nothing. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "base/progress.h"

#include <fcntl.h>
#include <glib.h>
#include <pty.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* stderr redirected to `fd` for the span of one check. */
static int saved = -1;

static void stderr_to(int fd)
{
	fflush(stderr);
	saved = dup(STDERR_FILENO);
	assert_true(saved >= 0);
	assert_true(dup2(fd, STDERR_FILENO) >= 0);
}

static void stderr_back(void)
{
	fflush(stderr);
	assert_true(dup2(saved, STDERR_FILENO) >= 0);
	close(saved);
	saved = -1;
}

/* Everything readable now on `fd` (non-blocking), as a string. */
static char *drain(int fd)
{
	int flags = fcntl(fd, F_GETFL);
	fcntl(fd, F_SETFL, flags | O_NONBLOCK);
	GString *s = g_string_new("");
	char buf[512];
	ssize_t n;
	while ((n = read(fd, buf, sizeof buf)) > 0)
		g_string_append_len(s, buf, n);
	return g_string_free(s, FALSE);
}

/* A terminal without output processing (no "\n" -> "\r\n"). */
static void open_terminal(int *master, int *slave)
{
	assert_int_equal(openpty(master, slave, NULL, NULL, NULL), 0);
	struct termios t;
	assert_int_equal(tcgetattr(*slave, &t), 0);
	cfmakeraw(&t);
	assert_int_equal(tcsetattr(*slave, TCSANOW, &t), 0);
}

static void test_terminal(void **state)
{
	(void)state;
	int master, slave;
	open_terminal(&master, &slave);
	setenv("TFTRACE_PROGRESS_DELAY", "0", 1);
	stderr_to(slave);
	tl_progress p;
	tl_progress_begin(&p, "tool", false);
	tl_progress_add(&p, 1, 3000000); /* drawn: no delay */
	tl_progress_add(&p, 1, 1000000); /* within 0.2 s of it on any but a stalled machine */
	g_usleep(250000);
	tl_progress_run(&p, 500000); /* a third run, 4.5 MB: drawn */
	tl_progress_end(&p);
	stderr_back();
	char *got = drain(master);
	/* two lines, each from the start of the line, then the clear */
	assert_true(g_str_has_prefix(got, "\rtool: 1 run, 3 MB, "));
	const char *second = strstr(got + 1, "\rtool: 3 runs, 4 MB, ");
	if (second == NULL)
		second = strstr(got + 1, "\rtool: 3 runs, 5 MB, ");
	assert_non_null(second);
	assert_true(g_str_has_suffix(got, "\r\033[K"));
	g_free(got);
	close(master);
	close(slave);
	unsetenv("TFTRACE_PROGRESS_DELAY");
}

static void test_quiet_and_delay(void **state)
{
	(void)state;
	int master, slave;
	open_terminal(&master, &slave);
	stderr_to(slave);
	setenv("TFTRACE_PROGRESS_DELAY", "0", 1);
	tl_progress p;
	tl_progress_begin(&p, "tool", true); /* --quiet */
	tl_progress_add(&p, 5, 1000000);
	tl_progress_end(&p);
	unsetenv("TFTRACE_PROGRESS_DELAY"); /* the default: 0.2 s before the first */
	tl_progress_begin(&p, "tool", false);
	tl_progress_add(&p, 5, 1000000);
	tl_progress_input_done(&p, 1000000);
	tl_progress_end(&p);
	stderr_back();
	char *got = drain(master);
	assert_string_equal(got, "");
	g_free(got);
	close(master);
	close(slave);
}

static void test_not_a_terminal(void **state)
{
	(void)state;
	int fds[2];
	assert_int_equal(pipe(fds), 0);
	setenv("TFTRACE_PROGRESS_DELAY", "0", 1);
	stderr_to(fds[1]);
	tl_progress p;
	tl_progress_begin(&p, "tool", false);
	tl_progress_add(&p, 5, 1000000);
	tl_progress_end(&p);
	stderr_back();
	close(fds[1]);
	char *got = drain(fds[0]);
	assert_string_equal(got, "");
	g_free(got);
	close(fds[0]);
	unsetenv("TFTRACE_PROGRESS_DELAY");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_terminal),
	    cmocka_unit_test(test_quiet_and_delay),
	    cmocka_unit_test(test_not_a_terminal),
	};
	return cmocka_run_group_tests_name("base/progress", tests, NULL, NULL);
}
