/*
 * dot_pack: a graph of several connected components laid out by dot one
 * component at a time and packed, in-process, as Graphviz's own tools do it
 * on the command line:
 *
 *     ccomps -x | dot | gvpack -array_u | neato -n2
 *
 * ccomps (Graphviz's pack library) finds the components; each becomes a
 * graph of its own, with the clusters it has nodes in; dot lays each out;
 * packGraphs places them in an array, in the order ccomps found them
 * (array_u); one graph holding them all, at their places, is then laid out
 * by neato -n2 (Graphviz's "nop2": positions as given), ready to render.
 * dot's crossing minimisation then works on each component alone instead
 * of on all of them at once, which is what made graphs of hundreds of
 * components take minutes.
 *
 * A cluster with nodes in several components is drawn once per component,
 * as gvpack draws it. The caller owns the graphs it passes and gets.
 */
#ifndef TL_EMIT_DOT_PACK_H
#define TL_EMIT_DOT_PACK_H

#include <cgraph.h>
#include <gvc.h>

#include <stdbool.h>
#include <stdio.h>

/* Where `g` has two components or more (a node named `aside`, the legend,
 * alone not counted; NULL: none), lays them out apart with dot and packs
 * them: *out is a new graph, laid out (free with gvFreeLayout and agclose).
 * Otherwise *out is NULL and `g` is as it was. Returns 0, or -1 where a
 * layout failed (Graphviz's error handler is told why). */
int tl_dot_pack_layout(GVC_t *gvc, Agraph_t *g, const char *aside, Agraph_t **out);

/* The same, drawn in `format` (a Graphviz -T name) into `f`, *done set;
 * where `g` has fewer than two components, nothing is written and *done
 * is false. SVG is drawn one component at a time, each at its packed
 * place inside one picture (a frame of the whole graph's title and
 * background), so that no step works on the joined graph: neato -n2 on
 * a joined graph of thousands of components took minutes. Group ids
 * ("node", "edge", "clust") are numbered over the whole picture. Other
 * formats draw the joined graph. Returns 0, -1 where a layout failed,
 * -2 where drawing failed (Graphviz's error handler is told why). */
int tl_dot_pack_render(GVC_t *gvc, Agraph_t *g, const char *aside, const char *format, FILE *f,
		       bool *done);

#endif
