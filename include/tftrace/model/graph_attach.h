/*
 * graph_attach: a GraphDef given beside runs that carry no partition
 * graphs (trace-summarize --graph, tfprof's --graph_path): its nodes by
 * name, their declared and output shapes, and the producers of their data
 * inputs. A run's executions are matched to its nodes by node name, as
 * tfprof does (a record's name up to its first ':'); the run itself is
 * not changed.
 *
 * The graph owns its arena (the decoded GraphDef and the index); it is
 * read-only once made, so summaries on several threads share one.
 */
#ifndef TL_MODEL_GRAPH_ATTACH_H
#define TL_MODEL_GRAPH_ATTACH_H

#include "base/error.h"
#include "tensorflow.pb-c.h"

#include <stddef.h>
#include <stdint.h>

typedef struct tl_graph_attach tl_graph_attach;

/* Reads a GraphDef (binary or text, plain or gzip). Anything else (a
 * RunMetadata, a StepStats, a Chrome trace) is an error naming what it is. */
int tl_graph_attach_read(tl_graph_attach **out, const char *path, tl_error *err);
void tl_graph_attach_free(tl_graph_attach *g);

size_t tl_graph_attach_n_nodes(const tl_graph_attach *g);
const Tensorflow__NodeDef *tl_graph_attach_node(const tl_graph_attach *g, uint32_t node);
/* The node named name[0 .. len), or -1. A name defined twice is its first
 * definition. */
int32_t tl_graph_attach_find(const tl_graph_attach *g, const char *name, size_t len);

/* The node whose data input `port` a node reads, with the producer's
 * output slot in *slot; -1 when none (or it names no node). */
int32_t tl_graph_attach_input(const tl_graph_attach *g, uint32_t node, int32_t port, int32_t *slot);
/* A node's output `slot` as the graph declares it: its _output_shapes
 * entry, else (slot 0) its "shape" attribute; NULL when neither. */
const Tensorflow__TensorShapeProto *tl_graph_attach_output_shape(const tl_graph_attach *g,
								 uint32_t node, int32_t slot);
/* A node's "shape" attribute (variables, placeholders), or NULL. */
const Tensorflow__TensorShapeProto *tl_graph_attach_declared_shape(const tl_graph_attach *g,
								   uint32_t node);

#endif
