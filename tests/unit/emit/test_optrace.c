/* Unit tests of optrace.c: an arrow's name, as snprintf would have written
 * it into the caller's buffer (the writer builds it without a format). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "emit/optrace.h"

#include <glib.h>
#include <string.h>

/* Every kind that names the producer, at every length around the buffer's
 * size: the name whole, else cut to size - 1 bytes, NUL ended, and never a
 * byte written past the buffer. */
static void test_flow_name_lengths(void **state)
{
	(void)state;
	char node[80];
	tl_exec exec = {.node = node};
	tl_run run = {.execs = &exec, .n_execs = 1};
	const struct {
		tl_link_kind kind;
		int32_t port;
		const char *before, *after;
	} kinds[] = {
	    {TL_LINK_DATA, 0, "", ""},
	    {TL_LINK_DATA, 3, "", ":3"},
	    {TL_LINK_CONTROL, -1, "^", ""},
	    {TL_LINK_LAUNCH, -1, "", ""},
	};
	for (size_t k = 0; k < G_N_ELEMENTS(kinds); k++)
		for (size_t len = 0; len < 40; len++)
			for (size_t size = 1; size < 40; size++) {
				for (size_t i = 0; i < len; i++)
					node[i] = (char)('a' + i % 26);
				node[len] = '\0';
				tl_link l = {.src = 0,
					     .dst = 0,
					     .src_port = kinds[k].port,
					     .dst_port = 0,
					     .kind = kinds[k].kind,
					     .via_recv = -1,
					     .via_send = -1};
				char got[48], want[48];
				memset(got, '#', sizeof got);
				memset(want, '#', sizeof want);
				tl_optrace_flow_name(&run, &l, got, size);
				char *full =
				    g_strconcat(kinds[k].before, node, kinds[k].after, NULL);
				size_t n = strlen(full) < size - 1 ? strlen(full) : size - 1;
				memcpy(want, full, n);
				want[n] = '\0';
				g_free(full);
				assert_memory_equal(got, want, sizeof got);
			}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_flow_name_lengths),
	};
	return cmocka_run_group_tests_name("optrace", tests, NULL, NULL);
}
