/* fuzz_graph: input to graph-render's output: every run of a sniffed input
 * (partition graphs or a GraphDef) through tl_graphdot_build and the DOT
 * writer; the DOT must be UTF-8 and Graphviz's own parser (cgraph) must read
 * it back without a word, holding as many nodes as the writer says it drew. Coloring, scope
 * collapse, folding, --top and the node limit vary with the input's
 * length. Layout (gvLayout) is left out: it is Graphviz's code, and slow. */
#include "fuzz.h"

#include "analysis/graphdot.h"
#include "emit/dot.h"
#include "io/source.h"

#include <graphviz/cgraph.h>

/* cgraph's warnings and errors come here instead of stderr. */
static char cgraph_said[512];

static int cgraph_message(char *msg)
{
	if (cgraph_said[0] == '\0')
		g_strlcpy(cgraph_said, msg, sizeof cgraph_said);
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	tl_source *src = fuzz_open_runs(data, size);
	if (src == NULL)
		return 0;
	tl_error err;
	GPtrArray *runs = g_ptr_array_new_with_free_func((GDestroyNotify)tl_run_free);
	tl_run *run = NULL;
	while (tl_run_next(src, &run, &err) > 0)
		g_ptr_array_add(runs, run);
	tl_source_close(src);

	tl_graphdot_opts opts;
	tl_graphdot_opts_init(&opts);
	opts.color_by = (tl_color_by)(size % 5);
	opts.max_depth = (int)(size / 5 % 4);
	opts.fold = size % 3 == 0;
	opts.top = size % 7 == 0 ? 3 : 0;
	opts.max_nodes = size % 11 == 0 ? 5 : 0;
	tl_graphdot *gd = NULL;
	if (tl_graphdot_build(&gd, (tl_run *const *)runs->pdata, runs->len, &opts, &err) == 0) {
		GString *dot = tl_dot_string(gd);
		if (!g_utf8_validate(dot->str, (gssize)dot->len, NULL))
			fuzz_fail("DOT is not UTF-8 (Graphviz's default charset)",
				  (const uint8_t *)dot->str, dot->len);
		agseterr(AGWARN); /* warnings too */
		agseterrf(cgraph_message);
		cgraph_said[0] = '\0';
		Agraph_t *g = agmemread(dot->str);
		if (g == NULL || cgraph_said[0] != '\0') {
			fprintf(stderr, "fuzz: cgraph said: %s\n", cgraph_said);
			fuzz_fail("DOT not read back by cgraph without a word",
				  (const uint8_t *)dot->str, dot->len);
		}
		size_t drawn = tl_graphdot_get_stats(gd)->vertices;
		if ((size_t)agnnodes(g) < drawn)
			fuzz_fail("cgraph reads fewer nodes than were drawn",
				  (const uint8_t *)dot->str, dot->len);
		agclose(g);
		g_string_free(dot, TRUE);
		tl_graphdot_free(gd);
	}
	g_ptr_array_free(runs, TRUE);
	fuzz_end();
	return 0;
}
