/*
 * graphdot: the partition graphs of runs as a picture, what is drawn and
 * how it is grouped; emit/dot.h writes it as DOT or renders it.
 *
 * tl_graphdot_build decides what is drawn:
 *   - one cluster per partition (device) of each run, name scopes as nested
 *     clusters (a scope gets a cluster when it holds two things or more);
 *   - a matched _Send/_Recv pair is not drawn as two nodes but as one bold
 *     edge from the tensor's producer to each consumer of the _Recv, across
 *     partitions; data edges carry dtype and shape and grow wider with their
 *     bytes; control edges are dashed;
 *   - costs from the step stats, per node: time (the sum of its executions,
 *     or of the GPU kernels and copies it launched when those took longer)
 *     and memory (the bytes of the output buffers it allocated, as
 *     analysis/memory.c rebuilds them, so an alias is not counted twice);
 *   - selection: --focus (names matching a regex) and --top (the most
 *     expensive nodes), each grown by --hops over the edges;
 *   - collapsing: a scope deeper than max_depth becomes one node carrying its
 *     op count, op types and summed costs; numbered siblings (tower_0 ...
 *     tower_7, dense, dense_1 ...) fold into the first of them plus one node
 *     for the rest; above max_nodes the depth is lowered until the picture
 *     fits, with a warning saying so;
 *   - colours (by device, time, memory or op type) and their legend; or,
 *     with a diff, by each node's change from another run.
 * The same runs and options give the same picture.
 *
 * A tl_graphdot keeps nothing of the runs it was built from: what it
 * needs of each (its nodes' names, ops and devices, costs, edges and
 * their tensors) is copied out, so runs can be added one by one and freed
 * as they come (tl_graphdot_begin, _add, _finish), its memory that of the
 * picture and not of the runs' step stats.
 */
#ifndef TL_ANALYSIS_GRAPHDOT_H
#define TL_ANALYSIS_GRAPHDOT_H

#include "base/warn.h"
#include "model/run.h"

#include <glib.h>

#include <stdbool.h>
#include <stddef.h>

typedef enum tl_color_by {
	TL_COLOR_NONE = 0,
	TL_COLOR_DEVICE,
	TL_COLOR_TIME,
	TL_COLOR_MEMORY,
	TL_COLOR_OP,
} tl_color_by;

/* The --color-by names, indexed by tl_color_by, NULL-terminated. */
extern const char *const tl_color_by_names[];

/* Whether edges carry their dtype and shape (--edge-labels). */
typedef enum tl_edge_labels {
	TL_EDGE_LABELS_AUTO = -1, /* off above 2000 edges */
	TL_EDGE_LABELS_OFF,
	TL_EDGE_LABELS_ON,
} tl_edge_labels;

typedef struct tl_graphdot_opts {
	tl_color_by color_by;
	int max_depth;	     /* each scope at this level drawn as one node; 0: no limit */
	bool fold;	     /* fold numbered sibling scopes */
	const GRegex *focus; /* seeds: nodes whose name matches (NULL: none) */
	size_t top;	     /* seeds: the N most expensive nodes (0: none) */
	int hops;	     /* seeds grow by this many edges (default 1) */
	size_t max_nodes;    /* lower the depth above this many nodes, over all runs (0: never) */
	tl_edge_labels edge_labels;
	const char *engine;  /* layout engine (NULL: dot), written as the graph's layout */
	bool laid_out;	     /* laid out in-process (-T): max_nodes 0 keeps to the
			      * layout budget (graphdot_layout.c) */
	/* Per run, its memory analysis (analysis/memory.h) where the caller
	 * has built it already; NULL, or a NULL entry: built here. */
	const struct tl_memory *const *memory;
	/* --diff: each node coloured by its change from A (color_by TIME or
	 * MEMORY says which), the runs drawn being B's (analysis/graphdot_diff.h) */
	const struct tl_graphdot_diff *diff;
	/* the picture is counted, never drawn (trace-report's graph data):
	 * no edge's tensor is looked up (its dtype, shape and bytes), which
	 * reads each producer's step stats again */
	bool untyped_edges;
} tl_graphdot_opts;

void tl_graphdot_opts_init(tl_graphdot_opts *o);

/* The engine's default node threshold for auto-collapse. */
size_t tl_graphdot_default_max_nodes(const char *engine);

typedef struct tl_graphdot tl_graphdot;

typedef struct tl_graphdot_stats {
	size_t nodes;	  /* graph nodes of the runs, _Send/_Recv pairs drawn as edges excluded */
	size_t kept;	  /* of which --focus and --top keep */
	size_t vertices;  /* drawn nodes */
	size_t collapsed; /* of which collapsed scopes or folded siblings */
	size_t edges;	  /* drawn edges */
	size_t transfers; /* of which _Send/_Recv pairs */
	size_t clusters;  /* partition and scope clusters */
	int depth;	  /* the max depth used (0: none) */
	uint64_t layout_cost; /* nodes + bends of long edges, what dot's time grows with */
	bool auto_collapsed;  /* the depth was lowered to fit max_nodes */
} tl_graphdot_stats;

/* Builds the picture of `runs` (one cluster per run when there are
 * several). Fails only when asked for something impossible. The same as
 * begin, add each run, finish. */
int tl_graphdot_build(tl_graphdot **out, tl_run *const *runs, size_t n_runs,
		      const tl_graphdot_opts *opts, tl_error *err);

/* Run by run: begin (fails as build does; opts.memory is not used, each
 * run's is given to add), add each run in order (the run may be freed
 * as soon as add returns; `memory` is its memory analysis or NULL: built
 * here), then finish, which decides what the collapse budget shared by the
 * runs leaves of each and makes the picture; the warnings said about each
 * run while it was added are told then, in the order build tells them.
 * Then the picture is what build makes of the same runs. */
int tl_graphdot_begin(tl_graphdot **out, const tl_graphdot_opts *opts, tl_error *err);
void tl_graphdot_add(tl_graphdot *gd, const tl_run *run, const struct tl_memory *memory);
void tl_graphdot_finish(tl_graphdot *gd);
void tl_graphdot_free(tl_graphdot *gd);
/* Whether the picture of these options can be written run by run, each
 * run let go once written (emit/dot.h's tl_dot_stream): every node drawn
 * (max_nodes 0, no budget shared by the runs), as DOT (not laid out), no
 * diff. */
bool tl_graphdot_streams(const tl_graphdot_opts *opts);
const tl_graphdot_stats *tl_graphdot_get_stats(const tl_graphdot *gd);

#endif
