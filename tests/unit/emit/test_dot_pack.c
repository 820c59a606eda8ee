/* Unit tests of emit/dot_pack.c: components laid out apart by dot and
 * packed with Graphviz's pack library. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "emit/dot_pack.h"
#include "emit/dot_read.h"

#include <cgraph.h>
#include <glib.h>
#include <gvc.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The box of a node's "pos" and size ("x,y" in points; width and height
 * in inches), grown into *box (x0 y0 x1 y1). */
static void grow_box(Agnode_t *n, double *b)
{
	double x, y;
	assert_int_equal(sscanf(agget(n, "pos"), "%lf,%lf", &x, &y), 2);
	double w = atof(agget(n, "width")) * 36, h = atof(agget(n, "height")) * 36;
	b[0] = MIN(b[0], x - w);
	b[1] = MIN(b[1], y - h);
	b[2] = MAX(b[2], x + w);
	b[3] = MAX(b[3], y + h);
}

/* Three components (a scope with nodes in two of them) and the legend are
 * laid out apart and packed: every node and edge once, at a position, the
 * scope drawn once per component, the components' boxes apart; one
 * component and the legend stay one graph for dot. */
static void test_pack(void **state)
{
	(void)state;
	GVC_t *gvc = gvContext();
	Agraph_t *g = tl_dot_read("digraph g { label=\"title\";\n"
				  "subgraph \"cluster x\" { label=x; a; c; }\n"
				  "a -> b; c -> d; d -> e; f -> g2; legend [shape=plaintext]; }\n");
	assert_non_null(g);
	Agraph_t *out = NULL;
	assert_int_equal(tl_dot_pack_layout(gvc, g, "legend", &out), 0);
	assert_non_null(out);
	assert_int_equal(agnnodes(out), 8);
	assert_int_equal(agnedges(out), 4);
	assert_string_equal(agget(out, "label"), "title");
	int clusters = 0;
	for (Agraph_t *s = agfstsubg(out); s != NULL; s = agnxtsubg(s), clusters++) {
		assert_true(g_str_has_prefix(agnameof(s), "cluster x"));
		assert_string_equal(agget(s, "label"), "x");
		assert_int_equal(agnnodes(s), 1);
	}
	assert_int_equal(clusters, 2);
	static const char *const comps[][3] = {
	    {"a", "b", NULL}, {"c", "d", "e"}, {"f", "g2", NULL}, {"legend", NULL, NULL}};
	double bb[4][4];
	for (int c = 0; c < 4; c++) {
		bb[c][0] = bb[c][1] = 1e9;
		bb[c][2] = bb[c][3] = -1e9;
		for (int i = 0; i < 3 && comps[c][i] != NULL; i++)
			grow_box(agnode(out, (char *)comps[c][i], 0), bb[c]);
	}
	for (int c = 0; c < 4; c++)
		for (int d = c + 1; d < 4; d++)
			assert_false(bb[c][0] < bb[d][2] && bb[d][0] < bb[c][2] &&
				     bb[c][1] < bb[d][3] && bb[d][1] < bb[c][3]);
	gvFreeLayout(gvc, out);
	agclose(out);
	agclose(g);

	g = tl_dot_read("digraph g { a -> b; b -> c; legend; }\n");
	assert_int_equal(tl_dot_pack_layout(gvc, g, "legend", &out), 0);
	assert_null(out);
	assert_int_equal(agnnodes(g), 4);
	assert_null(agfstsubg(g)); /* ccomps' subgraphs gone */
	agclose(g);
}

/* Graphviz's messages, counted. */
static int messages;
static int count_message(char *text)
{
	(void)text;
	messages++;
	return 0;
}

/* The count of `needle` in `hay`. */
static int count(const char *hay, const char *needle)
{
	int k = 0;
	for (const char *p = strstr(hay, needle); p != NULL; p = strstr(p + 1, needle))
		k++;
	return k;
}

/* Renders `dot` packed in `format`: the bytes written, *done as told. */
static char *render(GVC_t *gvc, const char *dot, const char *format, bool *done)
{
	Agraph_t *g = tl_dot_read(dot);
	assert_non_null(g);
	char *data = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&data, &len);
	assert_non_null(f);
	assert_int_equal(tl_dot_pack_render(gvc, g, "legend", format, f, done), 0);
	assert_int_equal(fclose(f), 0);
	agclose(g);
	return data;
}

/* SVG drawn one component at a time: one document, the title once, every
 * node and edge once with an id of its own, each cluster copy drawn, the
 * frame's helper points not in it; another format draws the joined graph;
 * one component is left to the caller, nothing written. */
static void test_render(void **state)
{
	(void)state;
	GVC_t *gvc = gvContext();
	static const char dot[] = "digraph g { label=\"the title\";\n"
				  "subgraph \"cluster x\" { label=x; a; c; }\n"
				  "a -> b; c -> d; d -> e; f -> g2; legend [shape=plaintext];\n"
				  "e [style=filled, fillcolor=red]; }\n";
	bool done = false;
	agusererrf old = agseterrf(count_message);
	messages = 0;
	char *svg = render(gvc, dot, "svg", &done);
	/* every part drawn with its own attributes (Graphviz's drawing
	 * finds them by number, in the globals of the frame laid out last) */
	assert_int_equal(messages, 0);
	assert_int_equal(count(svg, "fill=\"red\""), 1);
	assert_true(done);
	assert_int_equal(count(svg, "<?xml"), 1);
	assert_int_equal(count(svg, "<svg"), 1);
	assert_int_equal(count(svg, "</svg>"), 1);
	assert_true(g_str_has_suffix(svg, "</g>\n</svg>\n"));
	assert_int_equal(count(svg, ">the title</text>"), 1);
	assert_int_equal(count(svg, "class=\"node\""), 8);
	assert_int_equal(count(svg, "class=\"edge\""), 4);
	assert_int_equal(count(svg, "class=\"cluster\""), 2);
	assert_int_equal(count(svg, "<title>cluster x</title>"), 2);
	assert_int_equal(count(svg, "_tl_frame"), 0);
	assert_int_equal(count(svg, "<polygon fill=\"white\" stroke=\"transparent\""), 1);
	static const char *const ids[] = {"node1\"", "node8\"", "edge1\"", "edge4\"",
					  "clust1\"", "clust2\""};
	for (size_t i = 0; i < G_N_ELEMENTS(ids); i++) {
		char *id = g_strconcat("id=\"", ids[i], NULL);
		assert_int_equal(count(svg, id), 1);
		g_free(id);
	}
	assert_int_equal(count(svg, "id=\"node9\""), 0);
	free(svg);

	char *plain = render(gvc, dot, "plain", &done);
	assert_true(done);
	assert_int_equal(count(plain, "\nnode "), 8);
	assert_int_equal(count(plain, "\nedge "), 4);
	free(plain);

	char *none = render(gvc, "digraph g { a -> b; legend; }\n", "svg", &done);
	assert_false(done);
	assert_true(none == NULL || none[0] == '\0');
	free(none);
	assert_int_equal(messages, 0);
	agseterrf(old);
	gvFreeContext(gvc);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_pack),
	    cmocka_unit_test(test_render),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
