/*
 * dot_read: Graphviz's reader for DOT text, but with object IDs given in
 * the order the text names them.
 *
 * cgraph's own reader (agmemread) makes a named object's ID the address of
 * its interned name, and keeps a graph's subgraphs sorted by ID: the
 * clusters were laid out and drawn in the order of heap addresses, which
 * change from run to run (a thread, a different allocation before), so the
 * same graph came out as different pictures. Here the first name read gets
 * the first ID, and the same text gives the same picture.
 */
#ifndef TL_EMIT_DOT_READ_H
#define TL_EMIT_DOT_READ_H

#include <cgraph.h>

/* The graph of `text` (NUL-terminated), or NULL where Graphviz cannot read
 * it (its error handler is told why). Free with agclose. */
Agraph_t *tl_dot_read(const char *text);
/* An empty directed graph whose objects get their IDs the same way, in the
 * order they are made. Free with agclose. */
Agraph_t *tl_dot_open(const char *name);

#endif
