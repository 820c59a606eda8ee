/* dot_pack: the components of a graph laid out apart by dot and packed
 * with Graphviz's pack library (pack.h: ccomps, packGraphs), then put back
 * into one graph at their places for neato -n2 ("nop2") to render, as
 * `ccomps -x | dot | gvpack -array_u | neato -n2` does; or, for SVG, each
 * drawn apart by Graphviz at its packed place into one picture. Nothing of
 * the layout is ours: Graphviz lays out, packs and draws. */
#include "emit/dot_pack.h"
#include "emit/dot_read.h"

#include <glib.h>
#include <pack.h>

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* Graphviz's writer of a layout into attributes, what -Tdot writes and
 * neato -n2 reads back: exported by libgvc (its plugins call it), declared
 * in a header it does not install. */
extern void attach_attrs(Agraph_t *g);

#define CC_PREFIX "_tl_cc" /* ccomps' subgraphs, deleted once read */
#define PACK_MARGIN 8	   /* points around each component: gvpack's default */

/* For each attribute of one graph, its namesake in another (NULL: none). */
struct attr_map {
	Agsym_t **to[3]; /* by kind (AGRAPH, AGNODE, AGEDGE), by the from-symbol's id */
	int n[3];
};

/* The process's CPU time in seconds, for TL_GRAPHDOT_DEBUG's lines (the
 * machine may be loaded: wall time says little). */
static double cpu_now(void)
{
	struct timespec t;
	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
	return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

static int kind_of(void *obj)
{
	int k = AGTYPE(obj);
	return k == AGINEDGE ? AGEDGE : k;
}

/* Declares in `to` every attribute of `from` not yet there, with the same
 * default (graph attributes: the value on `from` where `values`, else none),
 * and maps them. */
static void map_attrs(struct attr_map *m, Agraph_t *from, Agraph_t *to, bool values)
{
	static const int kinds[3] = {AGRAPH, AGNODE, AGEDGE};
	for (int k = 0; k < 3; k++) {
		int max = -1;
		for (Agsym_t *s = agnxtattr(from, kinds[k], NULL); s != NULL;
		     s = agnxtattr(from, kinds[k], s))
			if (s->id > max)
				max = s->id;
		m->n[k] = max + 1;
		m->to[k] = g_new0(Agsym_t *, (size_t)(unsigned)m->n[k] + 1);
		for (Agsym_t *s = agnxtattr(from, kinds[k], NULL); s != NULL;
		     s = agnxtattr(from, kinds[k], s)) {
			Agsym_t *t = agattr(to, kinds[k], s->name, NULL);
			if (t == NULL) {
				char *def = kinds[k] != AGRAPH ? s->defval
					    : values	       ? agxget(from, s)
							       : "";
				t = agattr(to, kinds[k], s->name, def);
			}
			m->to[k][s->id] = t;
		}
	}
}

static void map_free(struct attr_map *m)
{
	for (int k = 0; k < 3; k++)
		g_free(m->to[k]);
}

/* Graphviz draws with attribute symbols it keeps in globals (N_style...),
 * set by the last layout made: the frame's, when the parts are drawn (see
 * render_apart). A symbol is found in an object by its number, so the
 * frame and every part declare the same attributes in the same order: the
 * whole graph's (map_attrs), then these, which the frame, the ids and the
 * layouts set, each with the value Graphviz takes for none. */
static void declare_extras(Agraph_t *x)
{
	static const struct {
		int kind;
		const char *name, *def;
	} extras[] = {
	    {AGRAPH, "bb", ""},		{AGRAPH, "notranslate", ""}, {AGRAPH, "id", ""},
	    {AGRAPH, "bgcolor", ""},	{AGNODE, "pos", ""},	     {AGNODE, "fixedsize", "false"},
	    {AGNODE, "width", ""},	{AGNODE, "height", ""},	     {AGNODE, "shape", ""},
	    {AGNODE, "style", ""},	{AGNODE, "label", "\\N"},
	    {AGNODE, "id", ""},		{AGEDGE, "id", ""},
	};
	for (size_t i = 0; i < G_N_ELEMENTS(extras); i++)
		if (agattr(x, extras[i].kind, (char *)extras[i].name, NULL) == NULL)
			agattr(x, extras[i].kind, (char *)extras[i].name, (char *)extras[i].def);
}

/* Whether `a` and `b` declare the same attributes under the same numbers. */
static bool same_attrs(Agraph_t *a, Agraph_t *b)
{
	static const int kinds[3] = {AGRAPH, AGNODE, AGEDGE};
	for (int k = 0; k < 3; k++) {
		Agsym_t *s = agnxtattr(a, kinds[k], NULL), *t = agnxtattr(b, kinds[k], NULL);
		for (; s != NULL && t != NULL;
		     s = agnxtattr(a, kinds[k], s), t = agnxtattr(b, kinds[k], t))
			if (s->id != t->id || strcmp(s->name, t->name) != 0)
				return false;
		if (s != NULL || t != NULL)
			return false;
	}
	return true;
}

/* Sets an attribute, an HTML-like label staying one. */
static void set_attr(void *obj, Agsym_t *sym, char *value)
{
	if (!aghtmlstr(value)) {
		agxset(obj, sym, value);
		return;
	}
	Agraph_t *root = agroot(obj);
	char *html = agstrdup_html(root, value);
	agxset(obj, sym, html); /* finds the HTML string just made */
	agstrfree(root, html);
}

/* Copies the attributes of `from` (of the map's source graph) onto `to`,
 * those already at their default on a new node or edge skipped. */
static void copy_attrs(const struct attr_map *m, void *from, void *to)
{
	int k = kind_of(from);
	Agraph_t *src = agroot(from);
	for (Agsym_t *s = agnxtattr(src, k, NULL); s != NULL; s = agnxtattr(src, k, s)) {
		Agsym_t *t = s->id < m->n[k] ? m->to[k][s->id] : NULL;
		if (t == NULL)
			continue;
		char *v = agxget(from, s);
		if (k != AGRAPH && strcmp(v, t->defval) == 0)
			continue;
		set_attr(to, t, v);
	}
}

struct pack {
	Agraph_t *g; /* the whole graph */
	int n;	     /* components */
	Agraph_t **cc;
	Agraph_t **part;      /* per component, its graph */
	int *comp_of;	      /* per node seq, its component */
	Agnode_t **copy;      /* per node seq, its copy in its component */
	GHashTable *skip;     /* ccomps' subgraphs */
	struct attr_map *map; /* per component, from g */
};

/* The copy of subgraph `s` in each component it has nodes in, below the
 * copies of its parent (`parent`, component -> subgraph), then the same for
 * the subgraphs inside it. */
static void split_subgraph(struct pack *p, Agraph_t *s, GHashTable *parent)
{
	GHashTable *mine = g_hash_table_new(g_direct_hash, g_direct_equal);
	for (Agnode_t *n = agfstnode(s); n != NULL; n = agnxtnode(s, n)) {
		int c = p->comp_of[AGSEQ(n)];
		gpointer key = GINT_TO_POINTER(c + 1);
		Agraph_t *sub = g_hash_table_lookup(mine, key);
		if (sub == NULL) {
			Agraph_t *up =
			    parent != NULL ? g_hash_table_lookup(parent, key) : p->part[c];
			sub = agsubg(up, agnameof(s), 1);
			copy_attrs(&p->map[c], s, sub);
			g_hash_table_insert(mine, key, sub);
		}
		agsubnode(sub, p->copy[AGSEQ(n)], 1);
	}
	for (Agraph_t *c = agfstsubg(s); c != NULL; c = agnxtsubg(c))
		split_subgraph(p, c, mine);
	g_hash_table_destroy(mine);
}

/* Each component as a graph of its own: its nodes and edges, the clusters
 * it has nodes in, the attributes of all of them and of the whole graph
 * (but its label: the title goes once on the packed graph). */
static void split(struct pack *p)
{
	Agraph_t *g = p->g;
	int max_seq = 0;
	for (Agnode_t *n = agfstnode(g); n != NULL; n = agnxtnode(g, n))
		if ((int)AGSEQ(n) > max_seq)
			max_seq = (int)AGSEQ(n);
	size_t slots = (size_t)(unsigned)max_seq + 1;
	p->comp_of = g_new0(int, slots);
	p->copy = g_new0(Agnode_t *, slots);
	for (int c = 0; c < p->n; c++)
		for (Agnode_t *n = agfstnode(p->cc[c]); n != NULL; n = agnxtnode(p->cc[c], n))
			p->comp_of[AGSEQ(n)] = c;
	p->part = g_new0(Agraph_t *, (size_t)(unsigned)p->n);
	p->map = g_new0(struct attr_map, (size_t)(unsigned)p->n);
	Agsym_t *label = agattr(g, AGRAPH, "label", NULL);
	for (int c = 0; c < p->n; c++) {
		p->part[c] = tl_dot_open(agnameof(g));
		map_attrs(&p->map[c], g, p->part[c], true);
		declare_extras(p->part[c]);
		if (label != NULL)
			agxset(p->part[c], p->map[c].to[AGRAPH][label->id], "");
	}
	for (Agnode_t *n = agfstnode(g); n != NULL; n = agnxtnode(g, n)) {
		int c = p->comp_of[AGSEQ(n)];
		Agnode_t *m = agnode(p->part[c], agnameof(n), 1);
		copy_attrs(&p->map[c], n, m);
		p->copy[AGSEQ(n)] = m;
	}
	for (Agnode_t *n = agfstnode(g); n != NULL; n = agnxtnode(g, n)) {
		int c = p->comp_of[AGSEQ(n)];
		for (Agedge_t *e = agfstout(g, n); e != NULL; e = agnxtout(g, e)) {
			Agedge_t *f = agedge(p->part[c], p->copy[AGSEQ(agtail(e))],
					     p->copy[AGSEQ(aghead(e))], NULL, 1);
			copy_attrs(&p->map[c], e, f);
		}
	}
	for (Agraph_t *s = agfstsubg(g); s != NULL; s = agnxtsubg(s))
		if (!g_hash_table_contains(p->skip, s))
			split_subgraph(p, s, NULL);
}

/* The copies of the subgraphs of `s` below `into`, named apart from those
 * of the components before (`names`). */
static void join_subgraphs(const struct attr_map *m, Agraph_t *s, Agraph_t *into, int c,
			   GHashTable *names, GHashTable *node_of)
{
	for (Agraph_t *sub = agfstsubg(s); sub != NULL; sub = agnxtsubg(sub)) {
		const char *name = agnameof(sub);
		char *unique = g_strdup(name);
		for (int k = 2; g_hash_table_contains(names, unique); k++) {
			g_free(unique);
			unique = g_strdup_printf("%s#cc%d.%d", name, c, k);
		}
		g_hash_table_add(names, unique);
		Agraph_t *t = agsubg(into, unique, 1);
		copy_attrs(m, sub, t);
		for (Agnode_t *n = agfstnode(sub); n != NULL; n = agnxtnode(sub, n))
			agsubnode(t, g_hash_table_lookup(node_of, n), 1);
		join_subgraphs(m, sub, t, c, names, node_of);
	}
}

/* Where component `c`'s subgraphs go in the joined graph: the root while
 * the components are few; else one of about sqrt(n) plain subgraphs (not
 * clusters: nothing draws them), each holding about sqrt(n) components'
 * subgraphs. Graphviz's freeing of a layout looks each node and edge up in
 * every top-level subgraph (agdelrec's agapply), so 3,330 components' own
 * subgraphs side by side at the top cost it 3,330 lookups per node: minutes
 * at 50,000 nodes. Grouped, it is about 2 sqrt(n). */
#define GROUP_FROM 64 /* components */

static Agraph_t *group_of(Agraph_t *all, int c, int n)
{
	if (n < GROUP_FROM)
		return all;
	int size = 1;
	while ((long long)size * size < n)
		size++;
	char name[32];
	snprintf(name, sizeof name, CC_PREFIX "group%d", c / size);
	return agsubg(all, name, 1);
}

/* One graph of every component at its place, for neato -n2: the title and
 * graph attributes of the whole, the positions of the parts. */
static Agraph_t *join(struct pack *p)
{
	Agraph_t *all = tl_dot_open(agnameof(p->g));
	struct attr_map root;
	map_attrs(&root, p->g, all, true);
	map_free(&root);
	GHashTable *names = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, NULL);
	GHashTable *node_of = g_hash_table_new(g_direct_hash, g_direct_equal);
	for (int c = 0; c < p->n; c++) {
		Agraph_t *part = p->part[c];
		struct attr_map m;
		map_attrs(&m, part, all, false);
		for (Agnode_t *n = agfstnode(part); n != NULL; n = agnxtnode(part, n)) {
			Agnode_t *a = agnode(all, agnameof(n), 1);
			copy_attrs(&m, n, a);
			g_hash_table_insert(node_of, n, a);
		}
		for (Agnode_t *n = agfstnode(part); n != NULL; n = agnxtnode(part, n))
			for (Agedge_t *e = agfstout(part, n); e != NULL; e = agnxtout(part, e)) {
				Agedge_t *f =
				    agedge(all, g_hash_table_lookup(node_of, n),
					   g_hash_table_lookup(node_of, aghead(e)), NULL, 1);
				copy_attrs(&m, e, f);
			}
		join_subgraphs(&m, part, group_of(all, c, p->n), c, names, node_of);
		map_free(&m);
	}
	g_hash_table_destroy(node_of);
	g_hash_table_destroy(names);
	return all;
}

static void pack_free(struct pack *p, GVC_t *gvc)
{
	for (int c = 0; c < p->n; c++) {
		if (p->part != NULL && p->part[c] != NULL) {
			gvFreeLayout(gvc, p->part[c]);
			agclose(p->part[c]);
		}
		if (p->map != NULL)
			map_free(&p->map[c]);
		agdelete(p->g, p->cc[c]);
	}
	free(p->cc);
	agclean(p->g, AGNODE, "Agnodeinfo_t");
	g_free(p->part);
	g_free(p->map);
	g_free(p->comp_of);
	g_free(p->copy);
	if (p->skip != NULL)
		g_hash_table_destroy(p->skip);
}

/* Each node's position in inches (ND_pos), from its coordinates in points;
 * the array returned holds them all. */
static double *attach_pos(Agraph_t *g)
{
	double *all = g_new(double, 2 * (size_t)(unsigned)agnnodes(g) + 2);
	double *p = all;
	for (Agnode_t *n = agfstnode(g); n != NULL; n = agnxtnode(g, n)) {
		ND_pos(n) = p;
		p[0] = ND_coord(n).x / POINTS_PER_INCH;
		p[1] = ND_coord(n).y / POINTS_PER_INCH;
		p += 2;
	}
	return all;
}

/* The coordinates back from the positions, which go. */
static void reset_coord(Agraph_t *g, double *all)
{
	for (Agnode_t *n = agfstnode(g); n != NULL; n = agnxtnode(g, n)) {
		ND_coord(n).x = ND_pos(n)[0] * POINTS_PER_INCH;
		ND_coord(n).y = ND_pos(n)[1] * POINTS_PER_INCH;
		ND_pos(n) = NULL;
	}
	g_free(all);
}

/* The components but a node named `aside` alone. */
static int counted(const struct pack *p, const char *aside)
{
	int k = 0;
	for (int c = 0; c < p->n; c++) {
		Agnode_t *n = agfstnode(p->cc[c]);
		if (aside != NULL && agnnodes(p->cc[c]) == 1 && strcmp(agnameof(n), aside) == 0)
			continue;
		k++;
	}
	return k;
}

/* ccomps, each component a graph of its own laid out by dot, packGraphs:
 * the parts at their places, their layouts moved there (nodes, edges,
 * clusters, boxes). Returns 1 so, 0 where `g` has fewer than two
 * components (nothing kept), -1 where a layout failed; but for 0, the
 * caller frees `p` (pack_free). */
static int pack_parts(GVC_t *gvc, struct pack *p, const char *aside)
{
	Agraph_t *g = p->g;
	bool debug = getenv("TL_GRAPHDOT_DEBUG") != NULL;
	if (debug)
		fprintf(stderr, "pack: start at %.3f s CPU\n", cpu_now());
	/* ccomps marks the nodes it has seen in their layout record, which
	 * goes once it is done: a layout of `g` starts from a clean one */
	aginit(g, AGNODE, "Agnodeinfo_t", sizeof(Agnodeinfo_t), TRUE);
	p->cc = ccomps(g, &p->n, CC_PREFIX);
	if (p->cc == NULL) {
		agclean(g, AGNODE, "Agnodeinfo_t");
		return 0;
	}
	if (counted(p, aside) < 2) {
		pack_free(p, gvc);
		return 0;
	}
	p->skip = g_hash_table_new(g_direct_hash, g_direct_equal);
	for (int c = 0; c < p->n; c++)
		g_hash_table_add(p->skip, p->cc[c]);
	if (debug)
		fprintf(stderr, "pack: ccomps at %.3f s CPU\n", cpu_now());
	split(p);
	if (debug)
		fprintf(stderr, "pack: %d components split at %.3f s CPU\n", p->n,
			cpu_now());
	for (int c = 0; c < p->n; c++)
		if (gvLayout(gvc, p->part[c], "dot") != 0)
			return -1;
	if (debug)
		fprintf(stderr, "pack: laid out at %.3f s CPU\n", cpu_now());
	packval_t *order = g_new(packval_t, (size_t)(unsigned)p->n);
	for (int c = 0; c < p->n; c++)
		order[c] = (packval_t)c;
	pack_info info = {
	    .margin = PACK_MARGIN,
	    .doSplines = 1, /* edges move with their nodes */
	    .mode = l_array,
	    .vals = order,
	    .flags = PK_USER_VALS,
	};
	/* packGraphs reads and moves the positions in inches, as neato keeps
	 * them; dot keeps points (dot's own packing does the same in doDot:
	 * attachPos, resetCoord) */
	double **pos = g_new0(double *, (size_t)(unsigned)p->n);
	for (int c = 0; c < p->n; c++)
		pos[c] = attach_pos(p->part[c]);
	int rc = packGraphs(p->n, p->part, NULL, &info) != 0 ? -1 : 1;
	for (int c = 0; c < p->n; c++)
		reset_coord(p->part[c], pos[c]);
	g_free(pos);
	g_free(order);
	if (debug)
		fprintf(stderr, "pack: packed at %.3f s CPU\n", cpu_now());
	return rc;
}

/* The packed parts joined into one graph laid out by nop2 (*out). */
static int join_layout(GVC_t *gvc, struct pack *p, Agraph_t **out)
{
	bool debug = getenv("TL_GRAPHDOT_DEBUG") != NULL;
	/* each part's layout as attributes (pos, bb, lp...), as -Tdot has it */
	for (int c = 0; c < p->n; c++)
		attach_attrs(p->part[c]);
	Agraph_t *all = join(p);
	if (debug)
		fprintf(stderr, "pack: joined at %.3f s CPU\n", cpu_now());
	int rc = 0;
	if (gvLayout(gvc, all, "nop2") != 0) {
		agclose(all);
		rc = -1;
	} else {
		*out = all;
	}
	if (debug)
		fprintf(stderr, "pack: nop2 at %.3f s CPU\n", cpu_now());
	return rc;
}

int tl_dot_pack_layout(GVC_t *gvc, Agraph_t *g, const char *aside, Agraph_t **out)
{
	struct pack p = {.g = g};
	*out = NULL;
	int rc = pack_parts(gvc, &p, aside);
	if (rc == 0)
		return 0;
	if (rc > 0)
		rc = join_layout(gvc, &p, out);
	pack_free(&p, gvc);
	return rc;
}

/* ------------------------------------------------------------------ */
/* SVG: each part drawn apart, into one picture                         */

/* Ids for the SVG's groups, unique over the whole picture: "node", "edge"
 * and "clust" numbered on from the parts before, as Graphviz numbers them
 * in one graph. */
struct ids {
	long node, edge, clust;
	GString *buf;
};

static void id_subgraphs(Agraph_t *g, Agsym_t *sym, struct ids *ids)
{
	for (Agraph_t *s = agfstsubg(g); s != NULL; s = agnxtsubg(s)) {
		g_string_printf(ids->buf, "clust%ld", ++ids->clust);
		agxset(s, sym, ids->buf->str);
		id_subgraphs(s, sym, ids);
	}
}

/* Numbers the part's groups, but those of a kind the whole graph `g`
 * gives ids to itself. */
static void set_ids(Agraph_t *g, Agraph_t *part, struct ids *ids)
{
	if (agattr(g, AGRAPH, "id", NULL) == NULL)
		id_subgraphs(part, agattr(part, AGRAPH, "id", NULL), ids);
	if (agattr(g, AGNODE, "id", NULL) == NULL) {
		Agsym_t *ns = agattr(part, AGNODE, "id", NULL);
		for (Agnode_t *n = agfstnode(part); n != NULL; n = agnxtnode(part, n)) {
			g_string_printf(ids->buf, "node%ld", ++ids->node);
			agxset(n, ns, ids->buf->str);
		}
	}
	if (agattr(g, AGEDGE, "id", NULL) == NULL) {
		Agsym_t *es = agattr(part, AGEDGE, "id", NULL);
		for (Agnode_t *n = agfstnode(part); n != NULL; n = agnxtnode(part, n))
			for (Agedge_t *e = agfstout(part, n); e != NULL; e = agnxtout(part, e)) {
				g_string_printf(ids->buf, "edge%ld", ++ids->edge);
				agxset(e, es, ids->buf->str);
			}
	}
}

/* Renders `g` as SVG into a new buffer (*len bytes). */
static char *render_svg(GVC_t *gvc, Agraph_t *g, size_t *len)
{
	char *data = NULL;
	*len = 0;
	FILE *f = open_memstream(&data, len);
	if (f == NULL)
		return NULL;
	int bad = gvRender(gvc, g, "svg", f) != 0;
	if (fclose(f) != 0 || bad) {
		free(data);
		return NULL;
	}
	return data;
}

#define SVG_END "</g>\n</svg>\n" /* the graph's group closed, the picture */

/* What a Graphviz SVG draws inside its graph's group: from past the
 * group's <title> to the group's end. */
static bool svg_body(const char *svg, size_t len, size_t *from, size_t *to)
{
	size_t end = strlen(SVG_END);
	const char *g = strstr(svg, "class=\"graph\"");
	const char *t = g != NULL ? strstr(g, "</title>\n") : NULL;
	if (t == NULL || len < end || strcmp(svg + len - end, SVG_END) != 0)
		return false;
	*from = (size_t)(t - svg) + strlen("</title>\n");
	*to = len - end;
	return *from <= *to;
}

/* Two invisible points at the corners of the parts' box, which neato -n2
 * takes for the frame's box (it reads no "bb"); Graphviz draws an
 * invisible node as only a comment, cut from the picture. */
#define FRAME_CORNER "_tl_frame_corner"

static void frame_corner(Agraph_t *frame, int k, double x, double y)
{
	char name[64], pos[96];
	snprintf(name, sizeof name, FRAME_CORNER "%d", k);
	snprintf(pos, sizeof pos, "%.3f,%.3f", x, y);
	Agnode_t *n = agnode(frame, name, 1);
	agsafeset(n, "shape", "point", "");
	agsafeset(n, "style", "invis", "");
	agsafeset(n, "label", "", "");
	agsafeset(n, "fixedsize", "true", "");
	agsafeset(n, "width", "0", "");
	agsafeset(n, "height", "0", "");
	agsafeset(n, "pos", pos, "");
}

/* The picture: a frame, a graph of the whole graph's attributes (its
 * title, its background) over the parts' box, drawn by Graphviz (nop2);
 * each part drawn apart inside it at its packed place. The parts'
 * coordinates are the picture's, so the frame's transform places them
 * all. Returns 0, -1 where the frame's layout failed, -2 where drawing
 * failed, 1 where the parts cannot be drawn apart (nothing written). */
static int render_apart(GVC_t *gvc, struct pack *p, FILE *f)
{
	boxf bb = GD_bb(p->part[0]);
	for (int c = 1; c < p->n; c++) {
		boxf b = GD_bb(p->part[c]);
		bb.LL.x = MIN(bb.LL.x, b.LL.x);
		bb.LL.y = MIN(bb.LL.y, b.LL.y);
		bb.UR.x = MAX(bb.UR.x, b.UR.x);
		bb.UR.y = MAX(bb.UR.y, b.UR.y);
	}
	Agraph_t *frame = tl_dot_open(agnameof(p->g));
	struct attr_map m;
	map_attrs(&m, p->g, frame, true);
	map_free(&m);
	declare_extras(frame);
	agsafeset(frame, "notranslate", "true", "");
	frame_corner(frame, 0, bb.LL.x, bb.LL.y);
	frame_corner(frame, 1, bb.UR.x, bb.UR.y);
	int rc = -1;
	size_t len = 0, from, to;
	char *svg = NULL;
	if (gvLayout(gvc, frame, "nop2") != 0)
		goto out;
	rc = 1;
	for (int c = 0; c < p->n; c++)
		if (!same_attrs(frame, p->part[c])) {
			gvFreeLayout(gvc, frame);
			goto out;
		}
	rc = -2;
	svg = render_svg(gvc, frame, &len);
	gvFreeLayout(gvc, frame);
	const char *corner = svg != NULL ? strstr(svg, "<!-- " FRAME_CORNER) : NULL;
	if (corner == NULL || !svg_body(svg, len, &from, &to) || (size_t)(corner - svg) > to)
		goto out;
	fwrite(svg, 1, (size_t)(corner - svg), f);
	struct ids ids = {.buf = g_string_new(NULL)};
	for (int c = 0; c < p->n; c++) {
		Agraph_t *part = p->part[c];
		set_ids(p->g, part, &ids);
		/* the frame paints the background once */
		agsafeset(part, "bgcolor", "transparent", "");
		size_t n;
		char *one = render_svg(gvc, part, &n);
		size_t a, b;
		bool ok = one != NULL && svg_body(one, n, &a, &b);
		if (ok)
			fwrite(one + a, 1, b - a, f);
		free(one);
		if (!ok) {
			g_string_free(ids.buf, TRUE);
			goto out;
		}
	}
	g_string_free(ids.buf, TRUE);
	fwrite(svg + to, 1, len - to, f);
	rc = 0;
out:
	free(svg);
	agclose(frame);
	return rc;
}

int tl_dot_pack_render(GVC_t *gvc, Agraph_t *g, const char *aside, const char *format, FILE *f,
		       bool *done)
{
	struct pack p = {.g = g};
	*done = false;
	int rc = pack_parts(gvc, &p, aside);
	if (rc == 0)
		return 0;
	*done = true;
	if (rc > 0 && strcmp(format, "svg") == 0) {
		rc = render_apart(gvc, &p, f);
		if (getenv("TL_GRAPHDOT_DEBUG") != NULL)
			fprintf(stderr, "pack: drawn apart at %.3f s CPU (%d)\n", cpu_now(), rc);
	}
	if (rc > 0) {
		/* other formats, or SVG that cannot be drawn apart: the
		 * joined graph */
		Agraph_t *all = NULL;
		rc = join_layout(gvc, &p, &all);
		if (rc == 0) {
			rc = gvRender(gvc, all, format, f) != 0 ? -2 : 0;
			gvFreeLayout(gvc, all);
			agclose(all);
		}
	}
	pack_free(&p, gvc);
	return rc;
}
