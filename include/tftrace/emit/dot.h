/*
 * dot: the picture tl_graphdot_build made (analysis/graphdot.h) as DOT
 * text, or as an image laid out and rendered in-process by Graphviz
 * (cgraph + gvc).
 *
 * Node ids are the names (the scope's path and '/' for a collapsed scope),
 * "#2", "#3"... appended where the same name is drawn twice (several
 * partitions or runs). Names are escaped so that any bytes (quotes,
 * backslashes, newlines, braces, invalid UTF-8) give valid DOT. Output is
 * deterministic. The caller owns what it passes in; a GString given back
 * is the caller's to free.
 */
#ifndef TL_EMIT_DOT_H
#define TL_EMIT_DOT_H

#include "analysis/graphdot.h"
#include "base/warn.h"
#include "base/output.h"

#include <glib.h>

#include <stdbool.h>
#include <stddef.h>

/* Whether -K and -T name a layout engine and a file format we accept. */
bool tl_dot_engine_known(const char *engine);
bool tl_dot_format_known(const char *format);
/* Whether a format's bytes are binary (refused on a terminal). */
bool tl_dot_format_binary(const char *format);

/* Streams the picture's DOT into `out`. */
void tl_dot_write(const tl_graphdot *gd, tl_output *out);
/* The same DOT in a GString (the caller frees it). */
GString *tl_dot_string(const tl_graphdot *gd);

/* Run by run, where tl_graphdot_streams(opts): the DOT tl_dot_write
 * writes, each run written to scratch files (in $TMPDIR) once added
 * (tl_graphdot_add, then tl_dot_stream_run; `several`: more than one run
 * in all) and let go, so that what is held is one run's picture and the
 * names' ids; tl_dot_stream_end writes the head (the title, which needs
 * every run), the runs' clusters (fills by time, memory or op settled
 * then), edges and legend into `out`. Fails (-1 with err) only on a
 * scratch file's error. */
typedef struct tl_dot_stream tl_dot_stream;
int tl_dot_stream_new(tl_dot_stream **out, tl_graphdot *gd, tl_error *err);
int tl_dot_stream_run(tl_dot_stream *ds, bool several, tl_error *err);
int tl_dot_stream_end(tl_dot_stream *ds, tl_output *out, tl_error *err);
void tl_dot_stream_free(tl_dot_stream *ds);

/* Lays the picture out with its engine (opts.engine, default dot) and
 * renders `format` (svg, png, pdf, ...) into `out`. Graphviz warnings
 * become tl_warn warnings. Not reentrant: Graphviz reports through one
 * process-wide callback. */
int tl_dot_render(const tl_graphdot *gd, const char *format, tl_output *out, tl_error *err);
/* The same into *out, a GString the caller frees (untouched on error). */
int tl_dot_render_string(const tl_graphdot *gd, const char *format, GString **out, tl_error *err);

/* A --diff picture (opts.diff) as JSON for a page that colours an SVG of
 * the same picture itself ("null" without a diff): {"title", "legend_title",
 * "unit" (ns or bytes), "scale" (the largest |change| drawn, in unit),
 * "outline_new", "colors" (the nine fills, faster to slower, [4]
 * unchanged), "legend": [[fill, text]...], "vertices": {id as the SVG's
 * <title>: [fill or "", change text, tooltip, nodes new]}, "nodes": {name:
 * [A, B (in unit), new 0/1, fill or ""]} for every node drawn, a collapsed
 * one's too}. A sum of nodes takes the fill of colors[4 + k] (slower) or
 * colors[4 - k] (faster), k 1..4 for |B - A| in (0, s/64], (s/64, s/16],
 * (s/16, s/4], (s/4, ...) of the scale s; 0 and 0: no fill. With
 * `memory` (NULL, or a --diff picture of the same run by the other
 * statistic, output memory), the object also has "memory": that
 * picture's object, of the same shape. */
void tl_dot_diff_json(const tl_graphdot *gd, const tl_graphdot *memory, tl_output *out);

/* Appends `text` to `s` as a DOT double-quoted string. As a label (escString)
 * a newline becomes a line break and a backslash stays a backslash; as an id
 * a backslash and control characters become '_'. Either way '&' is written
 * "&amp;" (Graphviz reads entities in every string) and invalid UTF-8
 * becomes U+FFFD. */
void tl_dot_quote(GString *s, const char *text, size_t len, bool label);
/* Appends `text` escaped for an HTML-like label. */
void tl_dot_html(GString *s, const char *text);

#endif
