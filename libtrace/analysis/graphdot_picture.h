/*
 * graphdot_picture: the picture tl_graphdot_build makes, as the files that
 * make it and the sink that writes it share it. Private to libtrace (not
 * installed): the analysis files (analysis/graphdot*.c) fill it, the DOT
 * writer (emit/dot.c) reads it and adds nothing but DOT's spelling (ids,
 * escaping, units, attributes).
 *
 *   graphdot.c         the build: per run, costs, selection, scopes, the
 *                      depth, then vertices, edges, clusters and colours;
 *   graphdot_select.c  _Send/_Recv pairs contracted into edges, --focus and
 *                      --top grown by --hops;
 *   graphdot_scope.c   partitions and name scopes, numbered siblings folded,
 *                      which scope a node collapses into, clusters;
 *   graphdot_layout.c  what the layout will cost, and so the depth to draw;
 *   graphdot_color.c   fill colours and the legend (with a diff: each
 *                      node's change, graphdot_diff.c);
 *   graphdot_tensor.c  the dtype, shape and bytes of a node's output.
 *
 * Everything hangs off the tl_graphdot, which owns it (its arena, arrays
 * and tables). It keeps no run: each run added (tl_graphdot_add) leaves
 * behind its costs, edges and a copy of its graph's nodes (name, op,
 * device, partition; the strings interned, so a stream of one graph holds
 * them once), and the run can be freed then.
 */
#ifndef TL_ANALYSIS_GRAPHDOT_PICTURE_H
#define TL_ANALYSIS_GRAPHDOT_PICTURE_H

#include "analysis/graphdot.h"
#include "base/arena.h"
#include "model/run.h"

#include <glib.h>

#include <stdbool.h>
#include <stdint.h>

#define NONE UINT32_MAX

enum ekind { EK_DATA = 0, EK_CONTROL, EK_TRANSFER, EK_TRANSFER_CONTROL };

struct cedge {		   /* an edge after _Send/_Recv pairs are contracted */
	uint32_t src, dst; /* graph nodes */
	int32_t port;	   /* the producer's output slot; -1 for control */
	uint8_t kind;	   /* enum ekind */
};

struct scope {		  /* a name scope of one group of one run */
	const char *path; /* a prefix of a node name (len bytes) */
	uint32_t len;
	uint32_t depth; /* components; 0 for a group root */
	uint32_t group;
	uint32_t parent; /* NONE for a group root */
	uint32_t first_child, last_child, next_sibling;
	uint32_t first_vtx, last_vtx;
	uint32_t n_sub;	   /* vertices drawn inside */
	uint32_t fold_top; /* the outermost folded scope at or above, or NONE */
	uint32_t fold_rep; /* folded: the first folded sibling of its family */
	uint32_t base_len; /* last component without its "_N" */
	int64_t num;	   /* N, 0 for a bare name */
	uint32_t vtx;	   /* the vertex collapsing it, or NONE */
	bool cluster;
	bool fold_seen; /* counted in its fold vertex */
};

struct group {
	const char *device;
	uint32_t partition;
	uint32_t root; /* scope */
	int color;
};

struct vtx {
	const char *key; /* what its id is made of (key_len bytes): plain, the
			  * node's name; collapsed, the path and a '/' (folded,
			  * the path up to the base, then "_*" and a '/') */
	uint32_t key_len;
	const char *name; /* plain: the node's name; collapsed: the scope's path */
	uint32_t name_len;
	uint32_t run, group;
	uint32_t scope;	 /* where it is drawn */
	uint32_t target; /* collapsed: the scope (or fold family) it stands for */
	uint32_t next;	 /* next vertex drawn in the same scope */
	int32_t node;	 /* plain: the graph node; -1 when collapsed */
	bool folded;
	const char *op; /* plain: op type; collapsed: the most common */
	uint32_t n_ops, n_exec, n_folded;
	int64_t fold_lo, fold_hi;
	int64_t time, bytes;
	GHashTable *ops;  /* collapsed: op -> count */
	char *types;	  /* collapsed: "Conv2D 4, Relu 4, +2 types" */
	int color;	  /* palette entry, -1 none */
	const char *fill; /* its fill colour, NULL: none */
	bool fill_dark;	  /* a dark fill: white text */

	/* --diff: over its nodes, the statistic summed in A and in B, how
	 * many are only in B and how many also in A */
	double diff_a, diff_b;
	uint32_t n_new, n_matched;
};

struct dedge {		   /* a drawn edge */
	uint32_t src, dst; /* vertices */
	uint32_t run;
	uint32_t gsrc; /* the first graph edge's producer and slot */
	int32_t port;
	uint8_t kind;
	uint32_t count;
	int64_t bytes;
	const char *tensor; /* the first graph edge's dtype and shape ("float
			     * [32x128]"), NULL when unknown or a control edge */
};

struct rview { /* one run */
	tl_run *run; /* the copy of the run's nodes (what it needs of them),
		      * label and has_*; no executions, edges or protos */
	int64_t *time;	/* per graph node, ns */
	int64_t *bytes; /* per graph node, output buffers */
	uint32_t *n_exec;
	bool *hidden; /* a matched _Send or _Recv, drawn as an edge */
	bool *kept;
	uint32_t *leaf; /* node -> scope */
	uint32_t *anc;	/* node -> the scope ancestor_at last found, or NONE;
			 * from the depth's choice to the vertices (finish) */
	uint32_t *sid;	/* per scope, twice (folded or not): a vertex while
			 * the layout numbers them, else NONE; made at its
			 * first call (graphdot_layout.c), freed with anc */
	uint32_t *vtx;	/* node -> vertex (made by finish) */
	struct cedge *edges;
	size_t n_edges;
	int64_t *ebytes;      /* per edge, the tensor's bytes (data and transfer) */
	const char **etensor; /* per edge, its dtype and shape (interned), or NULL */
	tl_warn_log *warnings;    /* said while it was added, told at the end */
	GArray *scopes;	      /* struct scope */
	GArray *groups;	      /* struct group */
	GHashTable *scope_of; /* (parent, last component) -> scope + 1 (every scope
			       * but the roots; graphdot_scope.c); freed once built */
	GHashTable *group_by; /* (partition, device) -> group + 1; freed once built */
	/* Arrays the same as the run before's are that run's (a stream of one
	 * graph holds them once); these say which are its own. */
	bool own_nodes, own_edges, own_tensors, own_kept, own_leaf;
	int max_scope_depth;
	bool draw_groups;
	bool folded; /* numbered siblings fold */
	size_t n_kept;
};

/* A line of the legend: a colour and its text, or (text NULL) a value of
 * the colouring's unit (time or bytes), or a range of them. */
struct legend_entry {
	const char *color;
	char *text;
	int64_t lo, hi;
	bool range;
	bool text_cost; /* text, then the cost lo */
};

struct tl_graphdot {
	tl_graphdot_opts opts;
	tl_arena *arena;
	struct rview *views;
	size_t n_runs, cap_runs;
	/* Run by run (tl_graphdot_stream): the runs already written and let
	 * go, so that views[0] is run n_dropped; the label of the first run
	 * (a picture of one run is titled with it); the warnings of the runs
	 * let go, told at the end; the cross-run state of the colours: device
	 * -> its index + 1, op -> its index + 1 and the ops by index with
	 * their counts, the least and the most cost. */
	size_t n_dropped;
	const char *first_label;
	tl_warn_log *held;
	GHashTable *dev_index, *op_index;
	GPtrArray *ops;
	GArray *op_counts; /* guint per op index */
	int64_t cost_lo, cost_hi;
	double cost_span; /* log(hi / lo), settled at the end */
	int *op_slot;	  /* per op index, its colour (N_CAT: the others) */
	GStringChunk *strings; /* the runs' names, ops, devices, labels, tensors */
	struct tl_nametab *interned; /* text -> its index in interned_strs */
	GPtrArray *interned_strs;    /* the texts in strings, each once */
	bool any_steps, any_folded;
	GArray *vtx;	/* struct vtx */
	GArray *edges;	/* struct dedge */
	GArray *legend; /* struct legend_entry */
	const char *legend_title;
	char *title;
	bool edge_labels;
	bool edge_xlabels; /* labels placed after layout: no ranks doubled */
	bool fast;	   /* a big layout: fewer dot iterations */
	size_t run_budget; /* max_nodes shared among the runs (0: no limit) */
	tl_graphdot_stats stats;

	/* --diff: the outline of nodes only in B, and the largest |change|
	 * drawn (the scale of its colours' steps) */
	const char *outline_new;
	double diff_scale;
};

static inline struct scope *scope_at(struct rview *rv, uint32_t s)
{
	return &g_array_index(rv->scopes, struct scope, s);
}

static inline struct vtx *vtx_at(const tl_graphdot *gd, uint32_t v)
{
	return &g_array_index(gd->vtx, struct vtx, v);
}

/* graphdot.c */
struct op_count {
	const char *op;
	guint count;
};
/* The op types of `count` (op -> count) by count, most first, then by
 * name; *n of them. The caller frees the array. */
struct op_count *tl_graphdot_ops_ranked(GHashTable *count, guint *n);

/* graphdot_select.c */
/* Hides matched _Send/_Recv pairs and makes rv->edges, each pair drawn
 * as an edge from the tensor's producer to the consumer. */
void tl_graphdot_select_contract(struct rview *rv);
/* Marks rv->kept: every node drawn, or the seeds of --focus and --top
 * and what lies --hops edges from them. */
void tl_graphdot_select_nodes(const tl_graphdot *gd, struct rview *rv);

/* graphdot_scope.c */
/* The empty arrays and tables of the run's groups and scopes. */
void tl_graphdot_scope_init(struct rview *rv);
/* A group per partition and device of the kept nodes, and their scopes. */
void tl_graphdot_scope_build(tl_graphdot *gd, struct rview *rv);
/* Finds the numbered sibling families; from then on they fold. */
void tl_graphdot_scope_fold(struct rview *rv);
/* Which scope node i collapses into at `depth` (0: none): a folded
 * scope's family representative (*fold true), a scope at that depth, or
 * NONE when the node is drawn itself. */
uint32_t tl_graphdot_scope_target(struct rview *rv, uint32_t i, int depth, bool *fold);
/* Counts the vertices drawn in each scope and marks those drawn as
 * clusters (a partition; a scope holding two things or more). */
void tl_graphdot_scope_clusters(tl_graphdot *gd, struct rview *rv);

/* Run by run, for a picture that nothing decided at the end changes but
 * its head, fills and edge labels (--max-nodes 0, not laid out, no diff;
 * tl_graphdot_streams): after tl_graphdot_add, tl_graphdot_stream_run
 * makes the run's vertices, edges and clusters (in gd->vtx and gd->edges,
 * views[0] the run), the writer writes them, tl_graphdot_stream_drop lets
 * them and the run go; tl_graphdot_stream_finish makes the rest (the
 * warnings held, edge labels, the legend, the title) as finish does. */
void tl_graphdot_stream_run(tl_graphdot *gd);
void tl_graphdot_stream_drop(tl_graphdot *gd);
void tl_graphdot_stream_finish(tl_graphdot *gd);

/* graphdot_layout.c */
/* The depth to draw the run at (its layout cost in *cost): the one asked
 * for, lowered until the picture fits its share of max_nodes. */
int tl_graphdot_layout_depth(tl_graphdot *gd, struct rview *rv, uint64_t *cost);
/* Edge labels on or off, as labels or xlabels, and dot's effort, from the
 * options and the layout cost of every run. */
void tl_graphdot_layout_hints(tl_graphdot *gd);
/* Run by run: whether the runs so far settle the edge labels (on or off,
 * as labels or xlabels) whatever runs come; if so, set as hints sets them. */
bool tl_graphdot_layout_labels_settled(tl_graphdot *gd);

/* graphdot_color.c */
/* The vertices' fill colours and the legend, as opts.color_by asks. */
void tl_graphdot_color(tl_graphdot *gd);
/* Run by run: the fills known from the runs so far (by device), and what
 * the rest need kept (the cost range, the op counts); *key gets what a
 * fill settled at the end is made of (tl_graphdot_stream_fill), and the
 * result is true where the vertex has one: by time or memory its cost
 * (> 0), by op its op's index. */
void tl_graphdot_color_run(tl_graphdot *gd);
bool tl_graphdot_fill_key(const tl_graphdot *gd, const struct vtx *v, int64_t *key);
/* At the end: the legend, and the fill of a key (*dark: white text). */
void tl_graphdot_color_stream_end(tl_graphdot *gd);
const char *tl_graphdot_stream_fill(const tl_graphdot *gd, int64_t key, bool *dark);

/* --diff: the fill of a change from a to b (the diff's units) against
 * the picture's scale, NULL where both are 0; *dark: white text on it. */
const char *tl_graphdot_diff_fill(const tl_graphdot *gd, double a, double b, bool *dark);
/* --diff: the palette, faster to slower, the middle (N/2) unchanged. */
const char *const *tl_graphdot_diff_palette(size_t *n);

/* graphdot_tensor.c */
typedef struct tl_graphdot_tensor {
	int dtype;				   /* 0: unknown */
	const Tensorflow__TensorShapeProto *shape; /* NULL: unknown */
	int64_t bytes;				   /* 0: unknown */
} tl_graphdot_tensor;

/* The tensor on output `slot` of graph node `node`: what its first
 * execution recorded, else what its NodeDef says. */
tl_graphdot_tensor tl_graphdot_tensor_of(const tl_run *run, uint32_t node, int32_t slot);
/* The dtype's name without "DT_" ("FLOAT"), NULL when unknown. */
const char *tl_graphdot_tensor_dtype(int dtype);
/* "float [32x56x56x256]", "int32 scalar" appended to s; nothing when
 * neither is known. */
void tl_graphdot_tensor_text(GString *s, const tl_graphdot_tensor *t);

#endif
