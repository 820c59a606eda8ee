/* Unit tests of emit/dot.c: DOT escaping that cgraph reads back, and an
 * in-process SVG render of a hand-written two-device run. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "emit/dot.h"
#include "emit/dot_read.h"
#include "io/source.h"

#include <cgraph.h>
#include <glib.h>
#include <glib/gstdio.h>
#include <string.h>

#include "testdata.h"

#define TWO_DEV "tests/cli/data/graph/two-dev.pbtxt"

static char *quoted(const char *text, size_t len, bool label)
{
	GString *s = g_string_new(NULL);
	tl_dot_quote(s, text, len, label);
	return g_string_free(s, FALSE);
}

/* The exact bytes written for the awkward characters. */
static void test_quote(void **state)
{
	(void)state;
	struct {
		const char *in;
		bool label;
		const char *out;
	} cases[] = {
		{"plain/name_1", false, "\"plain/name_1\""},
		{"a\"b", false, "\"a\\\"b\""},
		{"a\"b", true, "\"a\\\"b\""},
		{"back\\slash", true, "\"back\\\\slash\""},
		{"back\\slash", false, "\"back_slash\""},
		/* a final backslash gets a line continuation before the quote */
		{"trail\\", true, "\"trail\\\\\\\n\""},
		{"two\nlines", true, "\"two\\nlines\""},
		{"two\nlines", false, "\"two_lines\""},
		{"tab\tx\r", true, "\"tab x\xEF\xBF\xBD\""},
		{"{braces} [x] <y>", true, "\"{braces} [x] <y>\""},
		{"a&b", true, "\"a&amp;b\""},
		{"caf\xC3\xA9", true, "\"caf\xC3\xA9\""},
		{"bad\xFF\xC3", false, "\"bad\xEF\xBF\xBD\xEF\xBF\xBD\""},
	};
	for (size_t i = 0; i < G_N_ELEMENTS(cases); i++) {
		char *q = quoted(cases[i].in, strlen(cases[i].in), cases[i].label);
		assert_string_equal(q, cases[i].out);
		g_free(q);
	}
	GString *h = g_string_new(NULL);
	tl_dot_html(h, "Op\"<&>\xFF");
	assert_string_equal(h->str, "Op&quot;&lt;&amp;&gt;\xEF\xBF\xBD");
	g_string_free(h, TRUE);
}

/* Whatever the bytes, cgraph reads the quoted id and label back: the id as
 * written (sanitized), the label as the text (escString decoding aside). */
static void test_quote_parses(void **state)
{
	(void)state;
	const char *names[] = {"x\"", "\\", "a\\\"b\\", "\\\\\"\"", "\n\n", "{}", "}{\"",
			       "\xFF\xFE", "x\\\n", "--", "a -> b; c [label=x]", "<b>", "&amp;"};
	for (size_t i = 0; i < G_N_ELEMENTS(names); i++) {
		char *id = quoted(names[i], strlen(names[i]), false);
		char *label = quoted(names[i], strlen(names[i]), true);
		char *dot = g_strdup_printf("digraph { %s [label=%s]; %s -> %s }", id, label, id,
					    id);
		Agraph_t *g = agmemread(dot);
		assert_non_null(g);
		assert_int_equal(agnnodes(g), 1);
		assert_int_equal(agnedges(g), 1);
		agclose(g);
		g_free(dot);
		g_free(label);
		g_free(id);
	}
}

/* The streamed DOT is the DOT in memory; ids stay unique when a name is
 * drawn twice ("model/" on both devices), and the legend's cost lines are
 * written in the colouring's unit. */
static void test_write(void **state)
{
	(void)state;
	tl_run *run = td_run_of_file(TWO_DEV);
	tl_graphdot_opts o;
	tl_graphdot_opts_init(&o);
	o.max_depth = 1;
	o.color_by = TL_COLOR_TIME;
	tl_graphdot *gd = NULL;
	tl_error err = {{0}};
	assert_int_equal(tl_graphdot_build(&gd, &run, 1, &o, &err), 0);
	char *dir = g_dir_make_tmp("graphdot-XXXXXX", NULL);
	assert_non_null(dir);
	char *path = g_build_filename(dir, "g.dot", NULL);
	tl_output *out = NULL;
	assert_int_equal(tl_output_open(&out, path, false, NULL, 0, &err), 0);
	tl_dot_write(gd, out);
	assert_int_equal(tl_output_close(out, &err), 0);
	char *written = NULL;
	assert_true(g_file_get_contents(path, &written, NULL, NULL));
	GString *dot = tl_dot_string(gd);
	assert_string_equal(written, dot->str);
	assert_non_null(strstr(dot->str, "\t\t\"model/\" [label="));
	assert_non_null(strstr(dot->str, "\t\t\"model/#2\" [label="));
	assert_non_null(strstr(dot->str, "colspan=\"2\">time</td>"));
	assert_non_null(strstr(dot->str, ">1.00 us - 1.50 us</td>"));
	assert_non_null(strstr(dot->str, "\t\"legend\" [shape=plaintext"));
	g_string_free(dot, TRUE);
	g_free(written);
	g_unlink(path);
	g_rmdir(dir);
	g_free(path);
	g_free(dir);
	tl_graphdot_free(gd);
	tl_run_free(run);
}

/* In-process layout and SVG: every node and cluster of the picture is in
 * the file. */
static void test_render_svg(void **state)
{
	(void)state;
	tl_run *run = td_run_of_file(TWO_DEV);
	tl_graphdot_opts o;
	tl_graphdot_opts_init(&o);
	tl_graphdot *gd = NULL;
	tl_error err = {{0}};
	assert_int_equal(tl_graphdot_build(&gd, &run, 1, &o, &err), 0);
	char *dir = g_dir_make_tmp("graphdot-XXXXXX", NULL);
	assert_non_null(dir);
	char *path = g_build_filename(dir, "g.svg", NULL);
	tl_output *out = NULL;
	assert_int_equal(tl_output_open(&out, path, false, NULL, 0, &err), 0);
	assert_int_equal(tl_dot_render(gd, "svg", out, &err), 0);
	assert_int_equal(tl_output_close(out, &err), 0);
	char *svg = NULL;
	assert_true(g_file_get_contents(path, &svg, NULL, NULL));
	size_t nodes = 0, clusters = 0;
	for (const char *p = svg; (p = strstr(p, "class=\"node\"")) != NULL; p++)
		nodes++;
	for (const char *p = svg; (p = strstr(p, "class=\"cluster\"")) != NULL; p++)
		clusters++;
	assert_int_equal(nodes, tl_graphdot_get_stats(gd)->vertices);
	assert_int_equal(clusters, tl_graphdot_get_stats(gd)->clusters);
	assert_non_null(strstr(svg, "<title>model/dense/MatMul</title>"));
	g_free(svg);
	g_unlink(path);
	g_rmdir(dir);
	g_free(path);
	g_free(dir);
	tl_graphdot_free(gd);
	tl_run_free(run);
}

/* Subgraphs (the clusters Graphviz lays out and draws in this order) come
 * in the order the text names them, whatever the heap looks like: cgraph's
 * own reader orders them by the addresses of their interned names, which
 * holes in the heap reorder. */
static void test_read_order(void **state)
{
	(void)state;
	enum { N = 300, HOLD = 4000 };
	GString *t = g_string_new("digraph g {\n");
	for (int i = 0; i < N; i++) {
		g_string_append_printf(t, "subgraph cluster_%d { n%d; }\n", i, i);
		if (i % 3 == 0)
			g_string_append_printf(t, "n%d [label=\"%0*d\"];\n", i,
					       40 + (i * 37) % 500, 7);
	}
	g_string_append(t, "}\n");
	void *hold[HOLD];
	for (int i = 0; i < HOLD; i++)
		hold[i] = g_malloc((gsize)(24 + (i % 7) * 8));
	for (int i = HOLD / 2; i < HOLD; i += 2) {
		g_free(hold[i]);
		hold[i] = NULL;
	}
	Agraph_t *g = tl_dot_read(t->str);
	assert_non_null(g);
	int k = 0;
	for (Agraph_t *s = agfstsubg(g); s != NULL; s = agnxtsubg(s), k++) {
		char want[32];
		g_snprintf(want, sizeof want, "cluster_%d", k);
		assert_string_equal(agnameof(s), want);
	}
	assert_int_equal(k, N);
	assert_int_equal(agnnodes(g), N);
	assert_non_null(agnode(g, "n299", 0));
	assert_null(agnode(g, "n300", 0));
	agclose(g);
	for (int i = 0; i < HOLD; i++)
		g_free(hold[i]);
	g_string_free(t, TRUE);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_quote),
		cmocka_unit_test(test_quote_parses),
		cmocka_unit_test(test_write),
		cmocka_unit_test(test_render_svg),
		cmocka_unit_test(test_read_order),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
