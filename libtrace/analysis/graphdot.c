#include "analysis/graphdot.h"

#include "base/arena.h"
#include "analysis/memory.h"

#include <cgraph.h>
#include <gvc.h>

#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define NONE UINT32_MAX
#define EDGE_LABELS_AUTO 2000   /* auto: edge labels up to this many edges */
#define COST_PER_NODE 40        /* dot's layout budget per --max-nodes node */
#define COST_LABELS 3000        /* edge labels as labels (else xlabels) up to this cost */
#define COST_FAST 8000          /* from this cost on, dot iterates less */

/* ------------------------------------------------------------------ */
/* Options                                                             */

const char *const tl_color_by_names[] = {"none", "device", "time", "memory", "op", NULL};

void tl_graphdot_opts_init(tl_graphdot_opts *o)
{
	*o = (tl_graphdot_opts){.hops = 1, .edge_labels = -1};
	o->max_nodes = tl_graphdot_default_max_nodes(NULL);
}

static const char *const engines[] = {"dot",  "neato", "fdp",   "sfdp",
				      "twopi", "circo", "osage", "patchwork"};

bool tl_graphdot_engine_known(const char *engine)
{
	for (size_t i = 0; i < G_N_ELEMENTS(engines); i++)
		if (strcmp(engine, engines[i]) == 0)
			return true;
	return false;
}

/* Files only: Graphviz also has devices that open windows (x11, gtk). */
static const char *const text_formats[] = {"svg", "dot", "xdot", "json", "plain", "ps", "eps"};
static const char *const binary_formats[] = {"png", "pdf", "svgz", "jpg", "jpeg", "gif",
					     "webp", "bmp", "tiff"};

bool tl_graphdot_format_known(const char *format)
{
	for (size_t i = 0; i < G_N_ELEMENTS(text_formats); i++)
		if (strcmp(format, text_formats[i]) == 0)
			return true;
	return tl_graphdot_format_binary(format);
}

bool tl_graphdot_format_binary(const char *format)
{
	for (size_t i = 0; i < G_N_ELEMENTS(binary_formats); i++)
		if (strcmp(format, binary_formats[i]) == 0)
			return true;
	return false;
}

size_t tl_graphdot_default_max_nodes(const char *engine)
{
	/* What each engine lays out in well under 30 s on one core (see
	 * README, graph-render). */
	if (engine == NULL || strcmp(engine, "dot") == 0)
		return 1500;
	if (strcmp(engine, "sfdp") == 0 || strcmp(engine, "osage") == 0 ||
	    strcmp(engine, "patchwork") == 0)
		return 6000;
	return 1500;
}

/* ------------------------------------------------------------------ */
/* Escaping                                                            */

static const char replacement[] = "\xEF\xBF\xBD"; /* U+FFFD */

/* Length of the valid UTF-8 sequence at p (p[0] >= 0x80), or 0. */
static size_t utf8_len(const char *p, const char *end)
{
	gunichar u = g_utf8_get_char_validated(p, (gssize)(end - p));
	if (u == (gunichar)-1 || u == (gunichar)-2)
		return 0;
	return (size_t)(g_utf8_next_char(p) - p);
}

void tl_dot_quote(GString *s, const char *text, size_t len, bool label)
{
	const char *p = text, *end = text + len;
	bool last_backslash = false;
	g_string_append_c(s, '"');
	while (p < end) {
		unsigned char c = (unsigned char)*p;
		last_backslash = false;
		if (c >= 0x80) {
			size_t n = utf8_len(p, end);
			if (n == 0) {
				g_string_append(s, replacement);
				p++;
			} else {
				g_string_append_len(s, p, (gssize)n);
				p += n;
			}
			continue;
		}
		p++;
		if (c == '"') {
			g_string_append(s, "\\\"");
		} else if (c == '&') {
			/* Graphviz reads HTML entities in every string */
			g_string_append(s, "&amp;");
		} else if (c == '\\') {
			if (label) {
				g_string_append(s, "\\\\");
				last_backslash = true;
			} else {
				g_string_append_c(s, '_');
			}
		} else if (c == '\n' && label) {
			g_string_append(s, "\\n");
		} else if (c < 0x20 || c == 0x7f) {
			if (label)
				g_string_append(s, c == '\t' ? " " : replacement);
			else
				g_string_append_c(s, '_');
		} else {
			g_string_append_c(s, (char)c);
		}
	}
	/* A backslash right before the closing quote would escape it in older
	 * cgraph scanners; an escaped newline (a line continuation) between
	 * them is read as nothing by every version. */
	if (last_backslash)
		g_string_append(s, "\\\n");
	g_string_append_c(s, '"');
}

void tl_dot_html(GString *s, const char *text)
{
	const char *p = text, *end = text + strlen(text);
	while (p < end) {
		unsigned char c = (unsigned char)*p;
		if (c >= 0x80) {
			size_t n = utf8_len(p, end);
			if (n == 0) {
				g_string_append(s, replacement);
				p++;
			} else {
				g_string_append_len(s, p, (gssize)n);
				p += n;
			}
			continue;
		}
		p++;
		switch (c) {
		case '&':
			g_string_append(s, "&amp;");
			break;
		case '<':
			g_string_append(s, "&lt;");
			break;
		case '>':
			g_string_append(s, "&gt;");
			break;
		case '"':
			g_string_append(s, "&quot;");
			break;
		default:
			if (c < 0x20 || c == 0x7f)
				g_string_append(s, replacement);
			else
				g_string_append_c(s, (char)c);
		}
	}
}

/* ------------------------------------------------------------------ */
/* Numbers                                                             */

/* Sums of costs saturate: a hostile dump must not overflow them. */
static int64_t add_sat(int64_t a, int64_t b)
{
	if (b <= 0)
		return a;
	return a > INT64_MAX - b ? INT64_MAX : a + b;
}

/* Three significant digits: "1.23", "12.3", "123". */
static void sig3(GString *s, double v, const char *unit)
{
	if (v < 9.995)
		g_string_append_printf(s, "%.2f %s", v, unit);
	else if (v < 99.95)
		g_string_append_printf(s, "%.1f %s", v, unit);
	else
		g_string_append_printf(s, "%.0f %s", v, unit);
}

static void fmt_time(GString *s, int64_t ns)
{
	if (ns < 1000)
		g_string_append_printf(s, "%" PRId64 " ns", ns);
	else if (ns < 999500)
		sig3(s, (double)ns / 1e3, "us");
	else if (ns < 999500000)
		sig3(s, (double)ns / 1e6, "ms");
	else
		sig3(s, (double)ns / 1e9, "s");
}

/* Binary units, as trace-memory prints them. */
static void fmt_bytes(GString *s, int64_t b)
{
	static const char *const unit[] = {"KB", "MB", "GB", "TB"};
	if (b < 1024) {
		g_string_append_printf(s, "%" PRId64 " B", b);
		return;
	}
	double v = (double)b / 1024.0;
	int u = 0;
	while (v >= 1023.5 && u < 3) {
		v /= 1024.0;
		u++;
	}
	sig3(s, v, unit[u]);
}

/* ------------------------------------------------------------------ */
/* Tensors: dtype, shape and bytes of a node's output slot             */

static const char *dtype_name(int dt)
{
	const ProtobufCEnumValue *v =
		protobuf_c_enum_descriptor_get_value(&tensorflow__data_type__descriptor, dt);
	if (v == NULL || dt == 0)
		return NULL;
	return strncmp(v->name, "DT_", 3) == 0 ? v->name + 3 : v->name;
}

static int dtype_size(int dt)
{
	if (dt > 100)
		dt -= 100;
	switch (dt) {
	case TENSORFLOW__DATA_TYPE__DT_UINT8:
	case TENSORFLOW__DATA_TYPE__DT_INT8:
	case TENSORFLOW__DATA_TYPE__DT_BOOL:
	case TENSORFLOW__DATA_TYPE__DT_QINT8:
	case TENSORFLOW__DATA_TYPE__DT_QUINT8:
	case TENSORFLOW__DATA_TYPE__DT_FLOAT8_E5M2:
	case TENSORFLOW__DATA_TYPE__DT_FLOAT8_E4M3FN:
	case TENSORFLOW__DATA_TYPE__DT_FLOAT8_E4M3FNUZ:
	case TENSORFLOW__DATA_TYPE__DT_FLOAT8_E4M3B11FNUZ:
	case TENSORFLOW__DATA_TYPE__DT_FLOAT8_E5M2FNUZ:
		return 1;
	case TENSORFLOW__DATA_TYPE__DT_INT16:
	case TENSORFLOW__DATA_TYPE__DT_BFLOAT16:
	case TENSORFLOW__DATA_TYPE__DT_QINT16:
	case TENSORFLOW__DATA_TYPE__DT_QUINT16:
	case TENSORFLOW__DATA_TYPE__DT_UINT16:
	case TENSORFLOW__DATA_TYPE__DT_HALF:
		return 2;
	case TENSORFLOW__DATA_TYPE__DT_FLOAT:
	case TENSORFLOW__DATA_TYPE__DT_INT32:
	case TENSORFLOW__DATA_TYPE__DT_QINT32:
	case TENSORFLOW__DATA_TYPE__DT_UINT32:
		return 4;
	case TENSORFLOW__DATA_TYPE__DT_DOUBLE:
	case TENSORFLOW__DATA_TYPE__DT_INT64:
	case TENSORFLOW__DATA_TYPE__DT_UINT64:
	case TENSORFLOW__DATA_TYPE__DT_COMPLEX64:
		return 8;
	case TENSORFLOW__DATA_TYPE__DT_COMPLEX128:
		return 16;
	default:
		return 0;
	}
}

typedef struct tensor_info {
	int dtype;                                  /* 0: unknown */
	const Tensorflow__TensorShapeProto *shape;  /* NULL: unknown */
	int64_t bytes;                              /* 0: unknown */
} tensor_info;

static const Tensorflow__AttrValue *node_attr(const Tensorflow__NodeDef *def, const char *key)
{
	for (size_t i = 0; i < def->n_attr; i++)
		if (def->attr[i]->key != NULL && strcmp(def->attr[i]->key, key) == 0)
			return def->attr[i]->value;
	return NULL;
}

static bool is_predicate(const char *op)
{
	static const char *const ops[] = {"Equal",     "NotEqual",   "Less",    "LessEqual",
					  "Greater",   "GreaterEqual", "IsFinite", "IsNan",
					  "IsInf",     "LogicalAnd", "LogicalOr", "LogicalNot"};
	for (size_t i = 0; i < G_N_ELEMENTS(ops); i++)
		if (strcmp(op, ops[i]) == 0)
			return true;
	return false;
}

/* What the NodeDef says about output `port`: _output_shapes, else for a
 * single-output node its shape or value attr; the dtype from the usual
 * attrs. */
static void tensor_from_def(const tl_gnode *n, int32_t slot, tensor_info *t)
{
	const Tensorflow__NodeDef *def = n->def;
	const Tensorflow__AttrValue *a = node_attr(def, "_output_shapes");
	if (a != NULL && a->value_case == TENSORFLOW__ATTR_VALUE__VALUE_LIST &&
	    (size_t)slot < a->list->n_shape)
		t->shape = a->list->shape[slot];
	if (t->shape == NULL && slot == 0) {
		a = node_attr(def, "value");
		if (a != NULL && a->value_case == TENSORFLOW__ATTR_VALUE__VALUE_TENSOR &&
		    a->tensor->tensor_shape != NULL)
			t->shape = a->tensor->tensor_shape;
		a = node_attr(def, "shape");
		if (t->shape == NULL && a != NULL &&
		    a->value_case == TENSORFLOW__ATTR_VALUE__VALUE_SHAPE)
			t->shape = a->shape;
	}
	if (is_predicate(n->op)) {
		t->dtype = TENSORFLOW__DATA_TYPE__DT_BOOL;
	} else {
		static const char *const keys[] = {"out_type", "output_type", "DstT", "dtype", "T"};
		for (size_t i = 0; i < G_N_ELEMENTS(keys) && t->dtype == 0; i++) {
			a = node_attr(def, keys[i]);
			if (a != NULL && a->value_case == TENSORFLOW__ATTR_VALUE__VALUE_TYPE)
				t->dtype = (int)a->type;
		}
	}
	if (t->shape != NULL && !t->shape->unknown_rank && dtype_size(t->dtype) > 0) {
		int64_t count = 1;
		for (size_t d = 0; d < t->shape->n_dim; d++) {
			int64_t size = t->shape->dim[d]->size;
			if (size < 0 || (size > 0 && count > INT64_MAX / size)) {
				count = -1;
				break;
			}
			count *= size;
		}
		if (count >= 0 && count <= INT64_MAX / 16)
			t->bytes = count * dtype_size(t->dtype);
	}
}

/* The tensor on output `port` of graph node `node`: what its first
 * execution recorded, else what its NodeDef says. */
static tensor_info tensor_of(const tl_run *run, uint32_t node, int32_t slot)
{
	tensor_info t = {0};
	const tl_gnode *n = &run->nodes[node];
	if (slot < 0)
		return t;
	if (n->n_exec > 0) {
		const Tensorflow__NodeExecStats *ns = run->execs[run->node_execs[n->first_exec]].ns;
		for (size_t k = 0; k < ns->n_output; k++) {
			const Tensorflow__NodeOutput *o = ns->output[k];
			if (o->slot != slot || o->tensor_description == NULL)
				continue;
			const Tensorflow__TensorDescription *d = o->tensor_description;
			t.dtype = (int)d->dtype;
			t.shape = d->shape;
			if (d->allocation_description != NULL) {
				t.bytes = d->allocation_description->requested_bytes;
				if (t.bytes <= 0)
					t.bytes = d->allocation_description->allocated_bytes;
				if (t.bytes < 0)
					t.bytes = 0;
			}
			return t;
		}
	}
	tensor_from_def(n, slot, &t);
	return t;
}

/* "float [32x56x56x256]", "int32 scalar" */
static void fmt_tensor(GString *s, const tensor_info *t)
{
	const char *dt = dtype_name(t->dtype);
	if (dt != NULL) {
		for (const char *p = dt; *p != '\0'; p++)
			g_string_append_c(s, g_ascii_tolower(*p));
	}
	if (t->shape == NULL)
		return;
	if (dt != NULL)
		g_string_append_c(s, ' ');
	if (t->shape->unknown_rank) {
		g_string_append(s, "?");
		return;
	}
	if (t->shape->n_dim == 0) {
		g_string_append(s, "scalar");
		return;
	}
	g_string_append_c(s, '[');
	for (size_t d = 0; d < t->shape->n_dim; d++) {
		if (d > 0)
			g_string_append_c(s, 'x');
		int64_t size = t->shape->dim[d]->size;
		if (size < 0)
			g_string_append_c(s, '?');
		else
			g_string_append_printf(s, "%" PRId64, size);
	}
	g_string_append_c(s, ']');
}

/* ------------------------------------------------------------------ */
/* The picture                                                         */

enum ekind { EK_DATA = 0, EK_CONTROL, EK_TRANSFER, EK_TRANSFER_CONTROL };

struct cedge {                  /* an edge after _Send/_Recv pairs are contracted */
	uint32_t src, dst;      /* graph nodes */
	int32_t port;           /* the producer's output slot; -1 for control */
	uint8_t kind;           /* enum ekind */
};

/* A scope is found by its parent and its last component, so that finding
 * every scope of a name costs the name's length, not its length times its
 * depth. */
struct skey {
	uint32_t parent;        /* scope */
	uint32_t len;           /* of comp */
	const char *comp;       /* the last component of the path */
};

struct gkey {                   /* a group: partition and device */
	uint32_t partition;
	const char *device;
};

struct scope {                  /* a name scope of one group of one run */
	const char *path;       /* a prefix of a node name (len bytes) */
	uint32_t len;
	uint32_t depth;         /* components; 0 for a group root */
	uint32_t group;
	uint32_t parent;        /* NONE for a group root */
	uint32_t first_child, last_child, next_sibling;
	uint32_t first_vtx, last_vtx;
	uint32_t n_sub;         /* vertices drawn inside */
	uint32_t fold_top;      /* the outermost folded scope at or above, or NONE */
	uint32_t fold_rep;      /* folded: the first folded sibling of its family */
	uint32_t base_len;      /* last component without its "_N" */
	int64_t num;            /* N, 0 for a bare name */
	uint32_t vtx;           /* the vertex collapsing it, or NONE */
	bool cluster;
	bool fold_seen;         /* counted in its fold vertex */
};

struct group {
	const char *device;
	uint32_t partition;
	uint32_t root;          /* scope */
	int color;
};

struct vtx {
	char *id;               /* quoted DOT id */
	const char *name;       /* plain: the node's name; collapsed: the scope's path */
	uint32_t name_len;
	uint32_t run, group;
	uint32_t scope;         /* where it is drawn */
	uint32_t target;        /* collapsed: the scope (or fold family) it stands for */
	uint32_t next;          /* next vertex drawn in the same scope */
	int32_t node;           /* plain: the graph node; -1 when collapsed */
	bool folded;
	const char *op;         /* plain: op type; collapsed: the most common */
	uint32_t n_ops, n_exec, n_folded;
	int64_t fold_lo, fold_hi;
	int64_t time, bytes;
	GHashTable *ops;        /* collapsed: op -> count */
	char *types;            /* collapsed: "Conv2D 4, Relu 4, +2 types" */
	int color;              /* palette entry, -1 none */
};

struct dedge {                  /* a drawn edge */
	uint32_t src, dst;      /* vertices */
	uint32_t run;
	uint32_t gsrc;          /* the first graph edge's producer and slot */
	int32_t port;
	uint8_t kind;
	uint32_t count;
	int64_t bytes;
};

struct rview {                  /* one run */
	tl_run *run;
	int64_t *time;          /* per graph node, ns */
	int64_t *bytes;         /* per graph node, output buffers */
	uint32_t *n_exec;
	bool *hidden;           /* a matched _Send or _Recv, drawn as an edge */
	bool *kept;
	uint32_t *leaf;         /* node -> scope */
	uint32_t *anc;          /* node -> the scope ancestor_at last found, or NONE */
	uint32_t *sid;          /* per scope, twice (folded or not): a vertex while
				 * assign_ids runs, else NONE; made at its first call */
	uint32_t *vtx;          /* node -> vertex */
	struct cedge *edges;
	size_t n_edges;
	GArray *scopes;         /* struct scope */
	GArray *groups;         /* struct group */
	GHashTable *scope_of;   /* struct skey -> scope + 1 (every scope but the roots) */
	GHashTable *group_by;   /* struct gkey -> group + 1 */
	int max_scope_depth;
	bool draw_groups;
	bool folded;            /* numbered siblings fold */
	size_t n_kept;
};

struct legend_entry {
	const char *color;
	char *text;
};

struct tl_graphdot {
	tl_graphdot_opts opts;
	tl_arena *arena;
	struct rview *views;
	size_t n_runs;
	GArray *vtx;            /* struct vtx */
	GArray *edges;          /* struct dedge */
	GHashTable *ids;        /* quoted ids in use */
	GHashTable *id_next;    /* quoted id -> next suffix to try */
	GArray *legend;         /* struct legend_entry */
	const char *legend_title;
	char *legend_id;
	char *title;
	bool edge_labels;
	bool edge_xlabels;      /* labels placed after layout: no ranks doubled */
	bool fast;              /* a big layout: fewer dot iterations */
	size_t run_budget;      /* max_nodes shared among the runs (0: no limit) */
	tl_graphdot_stats stats;
};

static struct scope *scope_at(struct rview *rv, uint32_t s)
{
	return &g_array_index(rv->scopes, struct scope, s);
}

static struct vtx *vtx_at(const tl_graphdot *gd, uint32_t v)
{
	return &g_array_index(gd->vtx, struct vtx, v);
}

static guint skey_hash(gconstpointer p)
{
	const struct skey *k = p;
	guint h = 5381u + k->parent * 33u;
	for (uint32_t i = 0; i < k->len; i++)
		h = h * 33u + (unsigned char)k->comp[i];
	return h;
}

static gboolean skey_equal(gconstpointer a, gconstpointer b)
{
	const struct skey *x = a, *y = b;
	return x->parent == y->parent && x->len == y->len && memcmp(x->comp, y->comp, x->len) == 0;
}

static guint gkey_hash(gconstpointer p)
{
	const struct gkey *k = p;
	return g_str_hash(k->device) * 31u + k->partition;
}

static gboolean gkey_equal(gconstpointer a, gconstpointer b)
{
	const struct gkey *x = a, *y = b;
	return x->partition == y->partition && strcmp(x->device, y->device) == 0;
}

/* ------------------------------------------------------------------ */
/* Costs per graph node                                                */

static void node_costs(struct rview *rv)
{
	tl_run *run = rv->run;
	size_t n = run->n_nodes;
	int64_t *gpu = g_new0(int64_t, n + 1);
	for (size_t i = 0; i < run->n_execs; i++) {
		const tl_exec *e = &run->execs[i];
		tl_device_kind k = run->devices[e->device].kind;
		int64_t dur = e->end > e->start ? e->end - e->start : 0;
		if ((k == TL_DEV_EXECUTOR || k == TL_DEV_OTHER) && e->gnode >= 0) {
			rv->time[e->gnode] = add_sat(rv->time[e->gnode], dur);
			rv->n_exec[e->gnode]++;
		} else if ((k == TL_DEV_STREAM || k == TL_DEV_MEMCPY) && e->launcher >= 0 &&
			   run->execs[e->launcher].gnode >= 0) {
			int32_t g = run->execs[e->launcher].gnode;
			gpu[g] = add_sat(gpu[g], dur);
		}
	}
	for (size_t i = 0; i < n; i++)
		if (gpu[i] > rv->time[i])
			rv->time[i] = gpu[i];
	g_free(gpu);

	if (!run->has_steps || n == 0)
		return;
	tl_memory *mem = tl_memory_build_buffers(run);
	for (size_t b = 0; b < mem->n_buffers; b++) {
		const tl_buffer *buf = &mem->buffers[b];
		if (buf->kind != TL_BUF_OUTPUT || buf->producer < 0)
			continue;
		int32_t g = run->execs[buf->producer].gnode;
		if (g >= 0)
			rv->bytes[g] = add_sat(rv->bytes[g],
					       buf->allocated > 0 ? buf->allocated : buf->requested);
	}
	tl_memory_free(mem);
}

/* ------------------------------------------------------------------ */
/* _Send/_Recv pairs become edges                                      */

static bool is_send_op(const char *op)
{
	return strcmp(op, "_Send") == 0 || strcmp(op, "_HostSend") == 0;
}

/* The producer feeding a hidden _Recv, through any chain of transfers. */
static bool transfer_source(const struct rview *rv, const uint32_t *send_of, uint32_t recv,
			    uint32_t *src, int32_t *slot)
{
	const tl_run *run = rv->run;
	uint32_t node = recv;
	for (size_t guard = 0; guard <= run->n_nodes; guard++) {
		uint32_t s = send_of[node];
		if (s == NONE)
			return false;
		bool found = false;
		for (uint32_t e = run->in_first[s]; e < run->in_first[s + 1]; e++) {
			const tl_edge *ed = &run->edges[e];
			if (ed->kind == TL_EDGE_DATA) {
				*src = ed->src;
				*slot = ed->src_port;
				found = true;
				break;
			}
		}
		if (!found)
			return false;
		if (!rv->hidden[*src] || send_of[*src] == NONE)
			return true;
		node = *src;
	}
	return false;
}

static void contract_transfers(struct rview *rv)
{
	tl_run *run = rv->run;
	size_t n = run->n_nodes;
	uint32_t *send_of = g_new(uint32_t, n + 1);
	for (size_t i = 0; i < n; i++)
		send_of[i] = NONE;
	for (size_t e = 0; e < run->n_edges; e++) {
		const tl_edge *ed = &run->edges[e];
		if (ed->kind == TL_EDGE_TRANSFER && is_send_op(run->nodes[ed->src].op))
			send_of[ed->dst] = ed->src;
	}
	/* A pair is drawn as an edge when its _Send reads a tensor. */
	for (size_t r = 0; r < n; r++) {
		uint32_t s = send_of[r];
		if (s == NONE)
			continue;
		for (uint32_t e = run->in_first[s]; e < run->in_first[s + 1]; e++) {
			if (run->edges[e].kind == TL_EDGE_DATA) {
				rv->hidden[s] = true;
				rv->hidden[r] = true;
				break;
			}
		}
	}
	rv->edges = g_new(struct cedge, run->n_edges + 1);
	for (size_t e = 0; e < run->n_edges; e++) {
		const tl_edge *ed = &run->edges[e];
		if (ed->kind == TL_EDGE_TRANSFER || rv->hidden[ed->dst])
			continue;
		struct cedge c = {.src = ed->src, .dst = ed->dst, .port = ed->src_port,
				  .kind = ed->kind == TL_EDGE_CONTROL ? EK_CONTROL : EK_DATA};
		if (rv->hidden[ed->src]) {
			if (send_of[ed->src] == NONE)
				continue; /* out of a hidden _Send (control) */
			if (!transfer_source(rv, send_of, ed->src, &c.src, &c.port))
				continue;
			c.kind = ed->kind == TL_EDGE_CONTROL ? EK_TRANSFER_CONTROL : EK_TRANSFER;
		}
		rv->edges[rv->n_edges++] = c;
	}
	g_free(send_of);
}

/* ------------------------------------------------------------------ */
/* Selection: --focus and --top, grown by --hops                       */

static int cmp_cost_desc(const void *a, const void *b, void *ctx)
{
	const int64_t *cost = ctx;
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
	if (cost[x] != cost[y])
		return cost[x] > cost[y] ? -1 : 1;
	return x < y ? -1 : (x > y ? 1 : 0);
}

static void select_nodes(const tl_graphdot *gd, struct rview *rv)
{
	const tl_graphdot_opts *o = &gd->opts;
	tl_run *run = rv->run;
	size_t n = run->n_nodes;
	bool seeded = o->focus != NULL || o->top > 0;
	for (size_t i = 0; i < n; i++)
		rv->kept[i] = !rv->hidden[i] && !seeded;
	if (!seeded)
		return;

	uint32_t *queue = g_new(uint32_t, n + 1);
	uint32_t *dist = g_new(uint32_t, n + 1);
	size_t qn = 0;
	for (size_t i = 0; i < n; i++)
		dist[i] = NONE;
	if (o->focus != NULL) {
		for (size_t i = 0; i < n; i++) {
			if (rv->hidden[i] || !g_regex_match(o->focus, run->nodes[i].name, 0, NULL))
				continue;
			dist[i] = 0;
			queue[qn++] = (uint32_t)i;
		}
	}
	if (o->top > 0) {
		const int64_t *cost = o->color_by == TL_COLOR_MEMORY ? rv->bytes : rv->time;
		uint32_t *order = g_new(uint32_t, n + 1);
		size_t m = 0;
		for (size_t i = 0; i < n; i++)
			if (!rv->hidden[i] && cost[i] > 0)
				order[m++] = (uint32_t)i;
		g_qsort_with_data(order, (gint)m, sizeof *order, cmp_cost_desc, (gpointer)cost);
		for (size_t k = 0; k < m && k < o->top; k++) {
			if (dist[order[k]] == 0)
				continue;
			dist[order[k]] = 0;
			queue[qn++] = order[k];
		}
		g_free(order);
	}

	/* undirected adjacency over the drawn edges */
	uint32_t *first = g_new0(uint32_t, n + 2);
	for (size_t e = 0; e < rv->n_edges; e++) {
		first[rv->edges[e].src + 1]++;
		first[rv->edges[e].dst + 1]++;
	}
	for (size_t i = 0; i < n; i++)
		first[i + 1] += first[i];
	uint32_t *adj = g_new(uint32_t, 2 * rv->n_edges + 1);
	uint32_t *fill = g_new(uint32_t, n + 1);
	memcpy(fill, first, n * sizeof *fill);
	for (size_t e = 0; e < rv->n_edges; e++) {
		adj[fill[rv->edges[e].src]++] = rv->edges[e].dst;
		adj[fill[rv->edges[e].dst]++] = rv->edges[e].src;
	}
	for (size_t q = 0; q < qn; q++) {
		uint32_t v = queue[q];
		if (dist[v] >= (uint32_t)o->hops)
			continue;
		for (uint32_t k = first[v]; k < first[v + 1]; k++) {
			uint32_t w = adj[k];
			if (dist[w] != NONE)
				continue;
			dist[w] = dist[v] + 1;
			queue[qn++] = w;
		}
	}
	for (size_t i = 0; i < n; i++)
		rv->kept[i] = dist[i] != NONE;
	g_free(fill);
	g_free(adj);
	g_free(first);
	g_free(dist);
	g_free(queue);
}

/* ------------------------------------------------------------------ */
/* Groups (partitions) and name scopes                                 */

static uint32_t new_scope(tl_graphdot *gd, struct rview *rv, uint32_t group, uint32_t parent,
			  const char *spath, uint32_t len, uint32_t depth)
{
	struct scope sc = {.path = spath, .len = len, .depth = depth, .group = group,
			   .parent = parent, .first_child = NONE, .last_child = NONE,
			   .next_sibling = NONE, .first_vtx = NONE, .last_vtx = NONE,
			   .fold_top = NONE, .fold_rep = NONE, .vtx = NONE};
	uint32_t idx = rv->scopes->len;
	g_array_append_val(rv->scopes, sc);
	if (parent != NONE) {
		struct scope *p = scope_at(rv, parent);
		if (p->last_child == NONE)
			p->first_child = idx;
		else
			scope_at(rv, p->last_child)->next_sibling = idx;
		p->last_child = idx;
		/* keyed by the component after the parent's path and its '/' */
		uint32_t start = p->depth == 0 ? 0 : p->len + 1;
		struct skey *key = tl_arena_alloc(gd->arena, sizeof *key);
		*key = (struct skey){.parent = parent, .len = len - start, .comp = spath + start};
		g_hash_table_insert(rv->scope_of, key, GUINT_TO_POINTER(idx + 1));
	}
	if ((int)depth > rv->max_scope_depth)
		rv->max_scope_depth = (int)depth;
	return idx;
}

/* The child of `parent` whose path ends with the component comp. */
static uint32_t find_scope(const struct rview *rv, uint32_t parent, const char *comp, uint32_t len)
{
	struct skey key = {.parent = parent, .len = len, .comp = comp};
	gpointer hit = g_hash_table_lookup(rv->scope_of, &key);
	return hit == NULL ? NONE : GPOINTER_TO_UINT(hit) - 1;
}

static uint32_t group_of(tl_graphdot *gd, struct rview *rv, const tl_gnode *nd, uint32_t *cache_g,
			 const char **cache_dev, uint32_t *cache_part)
{
	if (*cache_g != NONE && *cache_part == nd->partition &&
	    (*cache_dev == nd->device || strcmp(*cache_dev, nd->device) == 0))
		return *cache_g;
	struct gkey key = {.partition = nd->partition, .device = nd->device};
	gpointer hit = g_hash_table_lookup(rv->group_by, &key);
	uint32_t g;
	if (hit != NULL) {
		g = GPOINTER_TO_UINT(hit) - 1;
	} else {
		g = rv->groups->len;
		struct group gr = {.device = nd->device, .partition = nd->partition, .color = -1};
		g_array_append_val(rv->groups, gr);
		uint32_t root = new_scope(gd, rv, g, NONE, "", 0, 0);
		g_array_index(rv->groups, struct group, g).root = root;
		struct gkey *k = tl_arena_alloc(gd->arena, sizeof *k);
		*k = key;
		g_hash_table_insert(rv->group_by, k, GUINT_TO_POINTER(g + 1));
	}
	*cache_g = g;
	*cache_dev = nd->device;
	*cache_part = nd->partition;
	return g;
}

static void build_scopes(tl_graphdot *gd, struct rview *rv)
{
	tl_run *run = rv->run;
	uint32_t cache_g = NONE, cache_part = 0;
	const char *cache_dev = NULL;
	for (size_t i = 0; i < run->n_nodes; i++) {
		if (!rv->kept[i])
			continue;
		const tl_gnode *nd = &run->nodes[i];
		uint32_t g = group_of(gd, rv, nd, &cache_g, &cache_dev, &cache_part);
		uint32_t parent = g_array_index(rv->groups, struct group, g).root;
		uint32_t depth = 0, start = 0;
		for (const char *p = strchr(nd->name, '/'); p != NULL; p = strchr(p + 1, '/')) {
			uint32_t len = (uint32_t)(p - nd->name);
			if (len == 0)
				continue;
			depth++;
			uint32_t s = find_scope(rv, parent, nd->name + start, len - start);
			if (s == NONE)
				s = new_scope(gd, rv, g, parent, nd->name, len, depth);
			parent = s;
			start = len + 1;
		}
		rv->leaf[i] = parent;
	}
	/* A node whose name is also a scope ("conv/kernel" beside
	 * "conv/kernel/read") is drawn inside that scope. */
	for (size_t i = 0; i < run->n_nodes; i++) {
		if (!rv->kept[i])
			continue;
		const char *nm = run->nodes[i].name;
		const struct scope *leaf = scope_at(rv, rv->leaf[i]);
		uint32_t start = leaf->depth == 0 ? 0 : leaf->len + 1;
		uint32_t s = find_scope(rv, rv->leaf[i], nm + start, (uint32_t)strlen(nm) - start);
		if (s != NONE)
			rv->leaf[i] = s;
	}
	size_t named = 0;
	for (guint g = 0; g < rv->groups->len; g++)
		if (g_array_index(rv->groups, struct group, g).device[0] != '\0')
			named++;
	rv->draw_groups = rv->groups->len > 1 || named > 0;
}

/* "tower_3" -> base "tower", 3; "dense" -> "dense", 0. */
static void split_number(const char *comp, uint32_t len, uint32_t *base_len, int64_t *num)
{
	uint32_t i = len;
	while (i > 0 && g_ascii_isdigit(comp[i - 1]))
		i--;
	if (i < len && i >= 2 && comp[i - 1] == '_' && len - i <= 12) {
		*base_len = i - 1;
		*num = g_ascii_strtoll(comp + i, NULL, 10);
	} else {
		*base_len = len;
		*num = 0;
	}
}

/* Numbered siblings (tower_0 ... tower_7; dense, dense_1 ...) under one
 * parent path, across the run's partitions: all but the lowest number
 * fold. Paths are numbered (the same path in several partitions, the same
 * number) from their parent's number and their last component, so that no
 * key is longer than a component. */
static void find_folds(struct rview *rv)
{
	guint n = rv->scopes->len;
	uint32_t *path_id = g_new(uint32_t, n + 1);
	int64_t *low = g_new(int64_t, n + 1);
	struct skey *keys = g_new(struct skey, 3 * (size_t)n + 1);
	GHashTable *paths = g_hash_table_new(skey_hash, skey_equal);  /* -> path id */
	GHashTable *lowest = g_hash_table_new(skey_hash, skey_equal); /* -> low + 1 */
	GHashTable *rep = g_hash_table_new(skey_hash, skey_equal);    /* -> scope + 1 */
	uint32_t n_paths = 0;
	for (guint s = 0; s < n; s++) {
		struct scope *sc = scope_at(rv, s);
		if (sc->depth == 0) {
			path_id[s] = 0; /* every root's path is empty */
			continue;
		}
		const struct scope *par = scope_at(rv, sc->parent);
		uint32_t start = par->depth == 0 ? 0 : par->len + 1;
		struct skey *k = &keys[s];
		*k = (struct skey){.parent = path_id[sc->parent], .len = sc->len - start,
				   .comp = sc->path + start};
		gpointer hit = g_hash_table_lookup(paths, k);
		if (hit == NULL) {
			hit = GUINT_TO_POINTER(++n_paths);
			g_hash_table_insert(paths, k, hit);
		}
		path_id[s] = GPOINTER_TO_UINT(hit);
	}
	g_hash_table_destroy(paths);
	for (guint pass = 0; pass < 2; pass++) {
		for (guint s = 0; s < n; s++) {
			struct scope *sc = scope_at(rv, s);
			if (sc->depth == 0)
				continue;
			const struct scope *par = scope_at(rv, sc->parent);
			uint32_t start = par->depth == 0 ? 0 : par->len + 1;
			const char *comp = sc->path + start;
			uint32_t clen = sc->len - start;
			split_number(comp, clen, &sc->base_len, &sc->num);
			if (sc->base_len == 0)
				continue;
			/* the family across partitions: parent path and base */
			struct skey *key = &keys[n + s];
			*key = (struct skey){.parent = path_id[sc->parent], .len = sc->base_len,
					     .comp = comp};
			gpointer hit = g_hash_table_lookup(lowest, key);
			if (pass == 0) {
				if (hit == NULL) {
					low[s] = sc->num;
					g_hash_table_insert(lowest, key, GUINT_TO_POINTER(s + 1));
				} else if (sc->num < low[GPOINTER_TO_UINT(hit) - 1]) {
					low[GPOINTER_TO_UINT(hit) - 1] = sc->num;
				}
			} else if (sc->num > low[GPOINTER_TO_UINT(hit) - 1]) {
				/* one family per parent scope (and so per group) */
				struct skey *fkey = &keys[2 * (size_t)n + s];
				*fkey = (struct skey){.parent = sc->parent, .len = sc->base_len,
						      .comp = comp};
				gpointer r = g_hash_table_lookup(rep, fkey);
				if (r == NULL) {
					g_hash_table_insert(rep, fkey, GUINT_TO_POINTER(s + 1));
					sc->fold_rep = s;
				} else {
					sc->fold_rep = GPOINTER_TO_UINT(r) - 1;
				}
			}
		}
	}
	for (guint s = 0; s < n; s++) {
		struct scope *sc = scope_at(rv, s);
		if (sc->depth == 0)
			continue;
		uint32_t up = scope_at(rv, sc->parent)->fold_top;
		sc->fold_top = up != NONE ? up : (sc->fold_rep != NONE ? s : NONE);
	}
	g_hash_table_destroy(rep);
	g_hash_table_destroy(lowest);
	g_free(keys);
	g_free(low);
	g_free(path_id);
}

/* Node i's scope at `depth` (its leaf's depth is at least that). The walk
 * starts from the last one found for i when that is at least as deep:
 * choose_depth tries depths from the deepest up, so a node's walks cost
 * its depth in all, not its depth at every try. */
static uint32_t ancestor_at(struct rview *rv, uint32_t i, uint32_t depth)
{
	uint32_t s = rv->anc[i];
	if (s == NONE || scope_at(rv, s)->depth < depth)
		s = rv->leaf[i];
	while (scope_at(rv, s)->depth > depth)
		s = scope_at(rv, s)->parent;
	rv->anc[i] = s;
	return s;
}

/* Which scope node i collapses into at `depth` (0: none): a folded
 * scope's family representative (*fold true), a scope at that depth, or
 * NONE when the node is drawn itself. */
static uint32_t collapse_target(struct rview *rv, uint32_t i, int depth, bool *fold)
{
	uint32_t s = rv->leaf[i];
	const struct scope *sc = scope_at(rv, s);
	*fold = false;
	if (sc->fold_top != NONE) {
		const struct scope *f = scope_at(rv, sc->fold_top);
		if (depth == 0 || f->depth <= (uint32_t)depth) {
			*fold = true;
			return f->fold_rep;
		}
	}
	if (depth > 0 && sc->depth >= (uint32_t)depth)
		return ancestor_at(rv, i, (uint32_t)depth);
	return NONE;
}

/* ------------------------------------------------------------------ */
/* Layout cost                                                         */

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
	return x < y ? -1 : (x > y ? 1 : 0);
}

/* What dot's work grows with: the nodes plus the bends of edges that span
 * several ranks (dot draws each bend as a virtual node). Ranks come from a
 * longest-path layering of the graph with its back edges reversed (as dot
 * breaks cycles), then each node with more edges out than in moved down
 * next to its successors (as dot's ranking shortens such edges). `edges`
 * is sorted and holds (src << 32 | dst) pairs without duplicates. */
static uint64_t layout_cost(uint32_t nv, uint64_t *edges, size_t ne)
{
	if (nv == 0)
		return 0;
	uint32_t *first = g_new0(uint32_t, (size_t)nv + 1);
	uint32_t *dst = g_new(uint32_t, ne + 1);
	for (size_t e = 0; e < ne; e++)
		first[(edges[e] >> 32) + 1]++;
	for (uint32_t v = 0; v < nv; v++)
		first[v + 1] += first[v];
	for (size_t e = 0; e < ne; e++)
		dst[e] = (uint32_t)edges[e];
	/* depth-first, without recursion: back edges get reversed */
	uint8_t *state = g_new0(uint8_t, nv);     /* 0 new, 1 on the stack, 2 done */
	uint32_t *stack = g_new(uint32_t, nv);
	uint32_t *next = g_new(uint32_t, nv);
	uint32_t *order = g_new(uint32_t, nv);    /* reverse postorder, filled from the end */
	uint32_t n_order = nv;
	for (uint32_t root = 0; root < nv; root++) {
		if (state[root] != 0)
			continue;
		uint32_t sp = 0;
		stack[sp++] = root;
		state[root] = 1;
		next[root] = first[root];
		while (sp > 0) {
			uint32_t v = stack[sp - 1];
			if (next[v] < first[v + 1]) {
				uint32_t e = next[v]++;
				uint32_t w = dst[e];
				if (state[w] == 1) {
					edges[e] = (uint64_t)w << 32 | v; /* reversed */
				} else if (state[w] == 0) {
					state[w] = 1;
					next[w] = first[w];
					stack[sp++] = w;
				}
				continue;
			}
			state[v] = 2;
			order[--n_order] = v;
			sp--;
		}
	}
	/* after reversing, every edge goes forward in `order` */
	qsort(edges, ne, sizeof *edges, cmp_u64);
	int64_t *rank = g_new0(int64_t, nv);
	uint32_t *indeg = g_new0(uint32_t, nv);
	memset(first, 0, ((size_t)nv + 1) * sizeof *first);
	for (size_t e = 0; e < ne; e++) {
		first[(edges[e] >> 32) + 1]++;
		indeg[(uint32_t)edges[e]]++;
	}
	for (uint32_t v = 0; v < nv; v++)
		first[v + 1] += first[v];
	for (uint32_t k = 0; k < nv; k++) {
		uint32_t v = order[k];
		for (uint32_t e = first[v]; e < first[v + 1]; e++) {
			uint32_t w = (uint32_t)edges[e];
			if (rank[w] < rank[v] + 1)
				rank[w] = rank[v] + 1;
		}
	}
	for (uint32_t k = nv; k-- > 0;) {
		uint32_t v = order[k];
		uint32_t out = first[v + 1] - first[v];
		if (out == 0 || out <= indeg[v])
			continue;
		int64_t low = INT64_MAX;
		for (uint32_t e = first[v]; e < first[v + 1]; e++)
			if (rank[(uint32_t)edges[e]] < low)
				low = rank[(uint32_t)edges[e]];
		if (low - 1 > rank[v])
			rank[v] = low - 1;
	}
	uint64_t cost = nv;
	for (size_t e = 0; e < ne; e++) {
		int64_t span = rank[(uint32_t)edges[e]] - rank[edges[e] >> 32];
		if (span > 1)
			cost += (uint64_t)(span - 1);
	}
	g_free(indeg);
	g_free(rank);
	g_free(order);
	g_free(next);
	g_free(stack);
	g_free(state);
	g_free(dst);
	g_free(first);
	return cost;
}

/* Each kept node's vertex at `depth` (in id), and how many vertices. The
 * slots of the scopes (rv->sid, all NONE between calls) are reset after
 * use, so a try costs the nodes, not the scopes. */
static uint32_t assign_ids(struct rview *rv, int depth, uint32_t *id)
{
	size_t n = rv->run->n_nodes;
	if (rv->sid == NULL) {
		rv->sid = g_new(uint32_t, 2 * (size_t)rv->scopes->len + 1);
		for (size_t s = 0; s < 2 * (size_t)rv->scopes->len; s++)
			rv->sid[s] = NONE;
	}
	uint32_t *slot_of = g_new(uint32_t, n + 1); /* per node: its slot, or NONE */
	uint32_t nv = 0;
	for (size_t i = 0; i < n; i++) {
		slot_of[i] = NONE;
		if (!rv->kept[i])
			continue;
		bool fold;
		uint32_t t = collapse_target(rv, (uint32_t)i, depth, &fold);
		if (t == NONE) {
			id[i] = nv++;
			continue;
		}
		slot_of[i] = 2 * t + (fold ? 1 : 0);
		uint32_t *slot = &rv->sid[slot_of[i]];
		if (*slot == NONE)
			*slot = nv++;
		id[i] = *slot;
	}
	for (size_t i = 0; i < n; i++)
		if (slot_of[i] != NONE)
			rv->sid[slot_of[i]] = NONE;
	g_free(slot_of);
	return nv;
}

/* How many vertices the run draws at `depth`, without the layout cost. */
static uint32_t count_at_depth(struct rview *rv, int depth)
{
	uint32_t *id = g_new(uint32_t, rv->run->n_nodes + 1);
	uint32_t nv = assign_ids(rv, depth, id);
	g_free(id);
	return nv;
}

/* How many vertices the run draws at `depth`, and the layout cost. */
static size_t try_depth(struct rview *rv, int depth, uint64_t *cost)
{
	size_t n = rv->run->n_nodes;
	uint32_t *id = g_new(uint32_t, n + 1);
	uint32_t nv = assign_ids(rv, depth, id);
	uint64_t *pairs = g_new(uint64_t, rv->n_edges + 1);
	size_t m = 0;
	for (size_t e = 0; e < rv->n_edges; e++) {
		const struct cedge *c = &rv->edges[e];
		if (!rv->kept[c->src] || !rv->kept[c->dst] || id[c->src] == id[c->dst])
			continue;
		pairs[m++] = (uint64_t)id[c->src] << 32 | id[c->dst];
	}
	qsort(pairs, m, sizeof *pairs, cmp_u64);
	size_t u = 0;
	for (size_t k = 0; k < m; k++)
		if (u == 0 || pairs[k] != pairs[u - 1])
			pairs[u++] = pairs[k];
	*cost = layout_cost(nv, pairs, u);
	g_free(pairs);
	g_free(id);
	return nv;
}

/* ------------------------------------------------------------------ */
/* Vertices                                                            */

/* The quoted DOT id for `text`: itself, or "text#2", "text#3"... when taken
 * (the same name in several partitions or runs). */
static char *unique_id(tl_graphdot *gd, const char *text, size_t len)
{
	GString *s = g_string_sized_new(len + 8);
	tl_dot_quote(s, text, len, false);
	if (g_hash_table_contains(gd->ids, s->str)) {
		/* where the last search for this name stopped */
		char *base = g_strdup(s->str);
		unsigned k = GPOINTER_TO_UINT(g_hash_table_lookup(gd->id_next, base));
		if (k < 2)
			k = 2;
		for (;; k++) {
			g_string_truncate(s, 0);
			char *alt = g_strdup_printf("%.*s#%u", (int)len, text, k);
			tl_dot_quote(s, alt, strlen(alt), false);
			g_free(alt);
			if (!g_hash_table_contains(gd->ids, s->str))
				break;
		}
		g_hash_table_insert(gd->id_next, base, GUINT_TO_POINTER(k + 1));
	}
	char *id = tl_arena_strdup(gd->arena, s->str);
	g_string_free(s, TRUE);
	g_hash_table_add(gd->ids, id);
	return id;
}

static void make_vertices(tl_graphdot *gd, struct rview *rv, uint32_t run_index, int depth)
{
	tl_run *run = rv->run;
	for (size_t i = 0; i < run->n_nodes; i++) {
		if (!rv->kept[i])
			continue;
		const tl_gnode *nd = &run->nodes[i];
		bool fold;
		uint32_t t = collapse_target(rv, (uint32_t)i, depth, &fold);
		uint32_t vi;
		if (t != NONE && scope_at(rv, t)->vtx != NONE) {
			vi = scope_at(rv, t)->vtx;
		} else {
			struct vtx v = {.run = run_index, .node = -1, .target = t, .color = -1,
					.group = scope_at(rv, rv->leaf[i])->group};
			if (t == NONE) {
				v.node = (int32_t)i;
				v.name = nd->name;
				v.name_len = (uint32_t)strlen(nd->name);
				v.op = nd->op;
				v.id = unique_id(gd, v.name, v.name_len);
			} else {
				const struct scope *sc = scope_at(rv, t);
				v.folded = fold;
				v.name = sc->path;
				v.name_len = sc->len;
				v.ops = g_hash_table_new(g_str_hash, g_str_equal);
				v.fold_lo = INT64_MAX;
				v.fold_hi = INT64_MIN;
				char *text;
				if (fold) {
					/* "parent/base_*" */
					const struct scope *par = scope_at(rv, sc->parent);
					uint32_t start = par->depth == 0 ? 0 : par->len + 1;
					text = g_strdup_printf("%.*s_*/", (int)(start + sc->base_len),
							       sc->path);
				} else {
					text = g_strdup_printf("%.*s/", (int)sc->len, sc->path);
				}
				v.id = unique_id(gd, text, strlen(text));
				g_free(text);
			}
			vi = gd->vtx->len;
			uint32_t where = t == NONE ? rv->leaf[i] : scope_at(rv, t)->parent;
			struct scope *ws = scope_at(rv, where);
			v.scope = where;
			v.next = NONE;
			if (ws->last_vtx == NONE)
				ws->first_vtx = vi;
			else
				vtx_at(gd, ws->last_vtx)->next = vi;
			ws->last_vtx = vi;
			g_array_append_val(gd->vtx, v);
			if (t != NONE)
				scope_at(rv, t)->vtx = vi;
		}
		rv->vtx[i] = vi;
		struct vtx *v = vtx_at(gd, vi);
		v->n_ops++;
		v->n_exec += rv->n_exec[i];
		v->time = add_sat(v->time, rv->time[i]);
		v->bytes = add_sat(v->bytes, rv->bytes[i]);
		if (v->ops != NULL) {
			gpointer c = g_hash_table_lookup(v->ops, nd->op);
			g_hash_table_insert(v->ops, (gpointer)nd->op,
					    GUINT_TO_POINTER(GPOINTER_TO_UINT(c) + 1));
		}
		if (fold) {
			/* which folded scope of the family the node is in */
			uint32_t f = scope_at(rv, rv->leaf[i])->fold_top;
			struct scope *fs = scope_at(rv, f);
			if (!fs->fold_seen) {
				fs->fold_seen = true;
				v->n_folded++;
				if (fs->num < v->fold_lo)
					v->fold_lo = fs->num;
				if (fs->num > v->fold_hi)
					v->fold_hi = fs->num;
			}
		}
	}
}

struct op_count {
	const char *op;
	guint count;
};

static int cmp_op_count(const void *a, const void *b)
{
	const struct op_count *x = a, *y = b;
	if (x->count != y->count)
		return x->count > y->count ? -1 : 1;
	return strcmp(x->op, y->op);
}

/* "Conv2D 4, Relu 4, MatMul 2, +3 types" and the most common op. */
static void summarize_ops(struct vtx *v)
{
	guint n = g_hash_table_size(v->ops);
	struct op_count *oc = g_new(struct op_count, n + 1);
	GHashTableIter it;
	gpointer k, val;
	guint m = 0;
	g_hash_table_iter_init(&it, v->ops);
	while (g_hash_table_iter_next(&it, &k, &val))
		oc[m++] = (struct op_count){.op = k, .count = GPOINTER_TO_UINT(val)};
	qsort(oc, m, sizeof *oc, cmp_op_count);
	GString *s = g_string_new(NULL);
	for (guint i = 0; i < m && i < 3; i++)
		g_string_append_printf(s, "%s%s %u", i > 0 ? ", " : "", oc[i].op, oc[i].count);
	if (m > 3)
		g_string_append_printf(s, ", +%u types", m - 3);
	v->op = m > 0 ? oc[0].op : "";
	v->types = g_string_free(s, FALSE);
	g_free(oc);
	g_hash_table_destroy(v->ops);
	v->ops = NULL;
}

/* ------------------------------------------------------------------ */
/* Edges                                                               */

struct ekey {
	uint32_t src, dst;
	uint32_t kind;
};

static guint ekey_hash(gconstpointer p)
{
	const struct ekey *k = p;
	return k->src * 2654435761u ^ (k->dst * 40503u + k->kind);
}

static gboolean ekey_equal(gconstpointer a, gconstpointer b)
{
	const struct ekey *x = a, *y = b;
	return x->src == y->src && x->dst == y->dst && x->kind == y->kind;
}

static void make_edges(tl_graphdot *gd, struct rview *rv, uint32_t run_index)
{
	GHashTable *agg = g_hash_table_new(ekey_hash, ekey_equal);
	for (size_t e = 0; e < rv->n_edges; e++) {
		const struct cedge *c = &rv->edges[e];
		if (!rv->kept[c->src] || !rv->kept[c->dst])
			continue;
		uint32_t vs = rv->vtx[c->src], vd = rv->vtx[c->dst];
		if (vs == vd)
			continue;
		int64_t bytes = 0;
		if (c->kind == EK_DATA || c->kind == EK_TRANSFER) {
			tensor_info t = tensor_of(rv->run, c->src, c->port);
			bytes = t.bytes;
		}
		bool plain = vtx_at(gd, vs)->node >= 0 && vtx_at(gd, vd)->node >= 0;
		if (!plain) {
			struct ekey key = {.src = vs, .dst = vd, .kind = c->kind};
			gpointer hit = g_hash_table_lookup(agg, &key);
			if (hit != NULL) {
				struct dedge *d =
					&g_array_index(gd->edges, struct dedge, GPOINTER_TO_UINT(hit) - 1);
				d->count++;
				d->bytes = add_sat(d->bytes, bytes);
				continue;
			}
			struct ekey *k = tl_arena_alloc(gd->arena, sizeof *k);
			*k = key;
			g_hash_table_insert(agg, k, GUINT_TO_POINTER(gd->edges->len + 1));
		}
		struct dedge d = {.src = vs, .dst = vd, .run = run_index, .gsrc = c->src,
				  .port = c->port, .kind = c->kind, .count = 1, .bytes = bytes};
		g_array_append_val(gd->edges, d);
		if (c->kind == EK_TRANSFER || c->kind == EK_TRANSFER_CONTROL)
			gd->stats.transfers++;
	}
	g_hash_table_destroy(agg);
}

/* ------------------------------------------------------------------ */
/* Clusters                                                            */

static void mark_clusters(tl_graphdot *gd, struct rview *rv)
{
	guint n = rv->scopes->len;
	for (guint s = 0; s < n; s++) {
		struct scope *sc = scope_at(rv, s);
		sc->n_sub = 0;
		for (uint32_t v = sc->first_vtx; v != NONE; v = vtx_at(gd, v)->next)
			sc->n_sub++;
	}
	/* children come after their parents */
	for (guint s = n; s-- > 0;) {
		struct scope *sc = scope_at(rv, s);
		if (sc->parent != NONE)
			scope_at(rv, sc->parent)->n_sub += sc->n_sub;
	}
	for (guint s = 0; s < n; s++) {
		struct scope *sc = scope_at(rv, s);
		if (sc->depth == 0) {
			sc->cluster = rv->draw_groups && sc->n_sub > 0;
		} else {
			uint32_t items = 0;
			for (uint32_t v = sc->first_vtx; v != NONE; v = vtx_at(gd, v)->next)
				items++;
			for (uint32_t c = sc->first_child; c != NONE; c = scope_at(rv, c)->next_sibling)
				if (scope_at(rv, c)->n_sub > 0)
					items++;
			sc->cluster = items >= 2;
		}
		if (sc->cluster)
			gd->stats.clusters++;
	}
}

/* Length of the path of the nearest drawn cluster at or above s. */
static uint32_t cluster_prefix(struct rview *rv, uint32_t s)
{
	while (s != NONE) {
		const struct scope *sc = scope_at(rv, s);
		if (sc->depth == 0)
			return 0;
		if (sc->cluster)
			return sc->len;
		s = sc->parent;
	}
	return 0;
}

/* ------------------------------------------------------------------ */
/* Colours                                                             */

static const char *const sequential[] = {"#ffffcc", "#ffeda0", "#fed976", "#feb24c", "#fd8d3c",
					 "#fc4e2a", "#e31a1c", "#bd0026", "#800026"};
static const char *const categorical[] = {"#8dd3c7", "#ffffb3", "#bebada", "#fb8072",
					  "#80b1d3", "#fdb462", "#b3de69", "#fccde5",
					  "#bc80bd", "#ccebc5", "#ffed6f", "#d9d9d9"};
#define N_SEQ ((int)G_N_ELEMENTS(sequential))
#define N_CAT ((int)G_N_ELEMENTS(categorical))
#define OTHER_COLOR "#eeeeee"

static void legend_add(tl_graphdot *gd, const char *color, char *text)
{
	struct legend_entry e = {.color = color, .text = text};
	g_array_append_val(gd->legend, e);
}

static int64_t vtx_value(const tl_graphdot *gd, const struct vtx *v)
{
	return gd->opts.color_by == TL_COLOR_MEMORY ? v->bytes : v->time;
}

static void fmt_value(const tl_graphdot *gd, GString *s, int64_t v)
{
	if (gd->opts.color_by == TL_COLOR_MEMORY)
		fmt_bytes(s, v);
	else
		fmt_time(s, v);
}

/* Nine bins on a log scale between the smallest and the largest value. */
static void color_sequential(tl_graphdot *gd)
{
	int64_t lo = INT64_MAX, hi = 0;
	for (guint i = 0; i < gd->vtx->len; i++) {
		int64_t v = vtx_value(gd, vtx_at(gd, i));
		if (v > 0 && v < lo)
			lo = v;
		if (v > hi)
			hi = v;
	}
	gd->legend_title = gd->opts.color_by == TL_COLOR_MEMORY ? "output memory" : "time";
	if (hi == 0) {
		tl_warn("graph-no-cost", "no executions to colour by %s (no step stats)",
			gd->opts.color_by == TL_COLOR_MEMORY ? "memory" : "time");
		return;
	}
	int bins = hi > lo ? N_SEQ : 1;
	double span = hi > lo ? log((double)hi / (double)lo) : 1.0;
	for (guint i = 0; i < gd->vtx->len; i++) {
		struct vtx *v = vtx_at(gd, i);
		int64_t val = vtx_value(gd, v);
		if (val <= 0)
			continue;
		int k = bins == 1 ? N_SEQ - 1 : (int)(N_SEQ * log((double)val / (double)lo) / span);
		v->color = k < 0 ? 0 : (k >= N_SEQ ? N_SEQ - 1 : k);
	}
	for (int k = 0; k < N_SEQ; k++) {
		if (bins == 1 && k != N_SEQ - 1)
			continue;
		GString *s = g_string_new(NULL);
		if (bins == 1) {
			fmt_value(gd, s, lo);
		} else {
			double a = (double)lo * exp(span * k / N_SEQ);
			double b = (double)lo * exp(span * (k + 1) / N_SEQ);
			fmt_value(gd, s, (int64_t)llround(a));
			g_string_append(s, " - ");
			fmt_value(gd, s, (int64_t)llround(b));
		}
		legend_add(gd, sequential[k], g_string_free(s, FALSE));
	}
	legend_add(gd, "#ffffff", g_strdup("not run"));
}

static void color_devices(tl_graphdot *gd)
{
	GHashTable *index = g_hash_table_new(g_str_hash, g_str_equal);
	gd->legend_title = "device";
	for (size_t r = 0; r < gd->n_runs; r++) {
		struct rview *rv = &gd->views[r];
		for (guint g = 0; g < rv->groups->len; g++) {
			struct group *gr = &g_array_index(rv->groups, struct group, g);
			const char *name = gr->device[0] != '\0' ? gr->device : "(no device)";
			gpointer hit = g_hash_table_lookup(index, name);
			if (hit == NULL) {
				guint k = g_hash_table_size(index);
				g_hash_table_insert(index, (gpointer)name, GUINT_TO_POINTER(k + 1));
				legend_add(gd, categorical[k % N_CAT], g_strdup(name));
				gr->color = (int)(k % N_CAT);
			} else {
				gr->color = (int)((GPOINTER_TO_UINT(hit) - 1) % N_CAT);
			}
		}
	}
	for (guint i = 0; i < gd->vtx->len; i++) {
		struct vtx *v = vtx_at(gd, i);
		v->color = g_array_index(gd->views[v->run].groups, struct group, v->group).color;
	}
	g_hash_table_destroy(index);
}

static void color_ops(tl_graphdot *gd)
{
	GHashTable *count = g_hash_table_new(g_str_hash, g_str_equal);
	for (guint i = 0; i < gd->vtx->len; i++) {
		const struct vtx *v = vtx_at(gd, i);
		gpointer c = g_hash_table_lookup(count, v->op);
		g_hash_table_insert(count, (gpointer)v->op, GUINT_TO_POINTER(GPOINTER_TO_UINT(c) + 1));
	}
	guint n = g_hash_table_size(count), m = 0;
	struct op_count *oc = g_new(struct op_count, n + 1);
	GHashTableIter it;
	gpointer k, val;
	g_hash_table_iter_init(&it, count);
	while (g_hash_table_iter_next(&it, &k, &val))
		oc[m++] = (struct op_count){.op = k, .count = GPOINTER_TO_UINT(val)};
	qsort(oc, m, sizeof *oc, cmp_op_count);
	guint named = m > (guint)N_CAT ? (guint)N_CAT - 1 : m;
	GHashTable *slot = g_hash_table_new(g_str_hash, g_str_equal);
	gd->legend_title = "op type";
	for (guint i = 0; i < named; i++) {
		g_hash_table_insert(slot, (gpointer)oc[i].op, GUINT_TO_POINTER(i + 1));
		legend_add(gd, categorical[i],
			   g_strdup_printf("%s (%u)", oc[i].op[0] ? oc[i].op : "(none)", oc[i].count));
	}
	if (named < m) {
		guint rest = 0;
		for (guint i = named; i < m; i++)
			rest += oc[i].count;
		legend_add(gd, OTHER_COLOR, g_strdup_printf("%u other types (%u)", m - named, rest));
	}
	for (guint i = 0; i < gd->vtx->len; i++) {
		struct vtx *v = vtx_at(gd, i);
		gpointer hit = g_hash_table_lookup(slot, v->op);
		v->color = hit != NULL ? (int)GPOINTER_TO_UINT(hit) - 1 : N_CAT;
	}
	g_hash_table_destroy(slot);
	g_hash_table_destroy(count);
	g_free(oc);
}

static const char *vtx_fill(const tl_graphdot *gd, const struct vtx *v)
{
	if (v->color < 0)
		return NULL;
	switch (gd->opts.color_by) {
	case TL_COLOR_TIME:
	case TL_COLOR_MEMORY:
		return sequential[v->color];
	case TL_COLOR_DEVICE:
		return categorical[v->color];
	case TL_COLOR_OP:
		return v->color < N_CAT ? categorical[v->color] : OTHER_COLOR;
	default:
		return NULL;
	}
}

/* ------------------------------------------------------------------ */
/* Build                                                               */

static void view_free(struct rview *rv)
{
	g_free(rv->time);
	g_free(rv->bytes);
	g_free(rv->n_exec);
	g_free(rv->hidden);
	g_free(rv->kept);
	g_free(rv->leaf);
	g_free(rv->anc);
	g_free(rv->sid);
	g_free(rv->vtx);
	g_free(rv->edges);
	if (rv->scopes != NULL)
		g_array_free(rv->scopes, TRUE);
	if (rv->groups != NULL)
		g_array_free(rv->groups, TRUE);
	if (rv->scope_of != NULL)
		g_hash_table_destroy(rv->scope_of);
	if (rv->group_by != NULL)
		g_hash_table_destroy(rv->group_by);
}

void tl_graphdot_free(tl_graphdot *gd)
{
	if (gd == NULL)
		return;
	for (size_t r = 0; r < gd->n_runs; r++)
		view_free(&gd->views[r]);
	g_free(gd->views);
	for (guint i = 0; i < gd->vtx->len; i++) {
		struct vtx *v = vtx_at(gd, i);
		if (v->ops != NULL)
			g_hash_table_destroy(v->ops);
		g_free(v->types);
	}
	g_array_free(gd->vtx, TRUE);
	g_array_free(gd->edges, TRUE);
	for (guint i = 0; i < gd->legend->len; i++)
		g_free(g_array_index(gd->legend, struct legend_entry, i).text);
	g_array_free(gd->legend, TRUE);
	g_hash_table_destroy(gd->ids);
	g_hash_table_destroy(gd->id_next);
	g_free(gd->title);
	tl_arena_free(gd->arena);
	g_free(gd);
}

const tl_graphdot_stats *tl_graphdot_get_stats(const tl_graphdot *gd)
{
	return &gd->stats;
}

static bool engine_is_dot(const tl_graphdot *gd)
{
	return gd->opts.engine == NULL || strcmp(gd->opts.engine, "dot") == 0;
}

/* Whether a run's picture of nv nodes and this layout cost is within its
 * share of the budget: max_nodes nodes over all runs, and for dot a cost
 * of COST_PER_NODE per node allowed. */
static bool fits(const tl_graphdot *gd, size_t nv, uint64_t cost)
{
	size_t max = gd->run_budget;
	if (max == 0)
		return true;
	return nv <= max && (!engine_is_dot(gd) || cost <= (uint64_t)max * COST_PER_NODE);
}

/* The deepest level at or above `from` at which the run fits (0: none). */
static int fitting_depth(tl_graphdot *gd, struct rview *rv, int from, size_t *count,
			 uint64_t *cost)
{
	for (int d = from; d >= 1; d--) {
		/* over the budget by its vertices alone: no need of the
		 * layout cost to know it does not fit */
		if (gd->run_budget > 0 && count_at_depth(rv, d) > gd->run_budget)
			continue;
		*count = try_depth(rv, d, cost);
		if (fits(gd, *count, *cost))
			return d;
	}
	return 0;
}

/* The depth to draw the run at: the one asked for, lowered until the
 * picture fits; when even the top level does not, numbered siblings fold
 * too. */
static int choose_depth(tl_graphdot *gd, struct rview *rv, uint64_t *cost)
{
	int depth = gd->opts.max_depth;
	size_t count = try_depth(rv, depth, cost);
	if (fits(gd, count, *cost))
		return depth;
	gd->stats.auto_collapsed = true;
	int from = depth > 0 ? depth - 1 : rv->max_scope_depth;
	int d = fitting_depth(gd, rv, from, &count, cost);
	bool folded_now = false;
	if (d == 0 && !rv->folded) {
		find_folds(rv);
		rv->folded = true;
		d = fitting_depth(gd, rv, from, &count, cost);
		folded_now = d > 0;
	}
	if (d == 0) {
		d = 1;
		count = try_depth(rv, d, cost);
		tl_warn("graph-auto-collapse-short",
			"'%s': %zu nodes even with every top-level scope drawn as one node: "
			"the layout may take long; --focus or --top draw a part",
			rv->run->label, count);
		return d;
	}
	tl_warn(folded_now ? "graph-auto-fold" : "graph-auto-collapse",
		"'%s': %zu nodes are too many to lay out quickly (--max-nodes %zu%s): "
		"%seach scope at level %d drawn as one node (--max-depth %d); "
		"--max-nodes 0 draws every node",
		rv->run->label, rv->n_kept, gd->opts.max_nodes,
		gd->n_runs > 1 ? ", shared by the runs" : "",
		folded_now ? "numbered scopes folded (--fold) and " : "", d, d);
	return d;
}

static void build_title(tl_graphdot *gd, bool folded)
{
	GString *s = g_string_new(NULL);
	if (gd->n_runs == 1)
		g_string_append(s, gd->views[0].run->label);
	else
		g_string_append_printf(s, "%zu runs", gd->n_runs);
	g_string_append_printf(s, "\n%zu nodes", gd->stats.nodes);
	if (gd->stats.kept != gd->stats.nodes)
		g_string_append_printf(s, ", %zu shown", gd->stats.kept);
	if (gd->stats.transfers > 0)
		g_string_append_printf(s, ", %zu transfers", gd->stats.transfers);
	if (gd->stats.depth > 0)
		g_string_append_printf(s, "; scopes at level %d collapsed", gd->stats.depth);
	if (folded)
		g_string_append(s, "; numbered scopes folded");
	gd->title = g_string_free(s, FALSE);
}

int tl_graphdot_build(tl_graphdot **out, tl_run *const *runs, size_t n_runs,
		      const tl_graphdot_opts *opts, tl_error *err)
{
	if (opts->max_depth < 0 || opts->hops < 0)
		return tl_error_set(err, "negative depth or hops");
	tl_graphdot *gd = g_new0(tl_graphdot, 1);
	gd->opts = *opts;
	gd->arena = tl_arena_new();
	gd->n_runs = n_runs;
	gd->views = g_new0(struct rview, n_runs + 1);
	gd->vtx = g_array_new(FALSE, FALSE, sizeof(struct vtx));
	gd->edges = g_array_new(FALSE, FALSE, sizeof(struct dedge));
	gd->legend = g_array_new(FALSE, FALSE, sizeof(struct legend_entry));
	gd->ids = g_hash_table_new(g_str_hash, g_str_equal);
	gd->id_next = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, NULL);
	bool any_steps = false, any_folded = false;
	if (opts->max_nodes > 0)
		gd->run_budget = n_runs > 1 ? MAX(opts->max_nodes / n_runs, 1) : opts->max_nodes;
	for (size_t r = 0; r < n_runs; r++) {
		struct rview *rv = &gd->views[r];
		tl_run *run = runs[r];
		size_t n = run->n_nodes;
		rv->run = run;
		rv->time = g_new0(int64_t, n + 1);
		rv->bytes = g_new0(int64_t, n + 1);
		rv->n_exec = g_new0(uint32_t, n + 1);
		rv->hidden = g_new0(bool, n + 1);
		rv->kept = g_new0(bool, n + 1);
		rv->leaf = g_new0(uint32_t, n + 1);
		rv->anc = g_new(uint32_t, n + 1);
		for (size_t i = 0; i < n; i++)
			rv->anc[i] = NONE;
		rv->vtx = g_new0(uint32_t, n + 1);
		rv->scopes = g_array_new(FALSE, FALSE, sizeof(struct scope));
		rv->groups = g_array_new(FALSE, FALSE, sizeof(struct group));
		rv->scope_of = g_hash_table_new(skey_hash, skey_equal);
		rv->group_by = g_hash_table_new(gkey_hash, gkey_equal);
		any_steps = any_steps || run->has_steps;
		if (!run->has_graphs)
			tl_warn("graph-none", "no graph in '%s' (a GraphDef or RunMetadata with "
				"partition_graphs draws one)", run->label);
		node_costs(rv);
		contract_transfers(rv);
		select_nodes(gd, rv);
		for (size_t i = 0; i < n; i++) {
			rv->n_kept += rv->kept[i];
			gd->stats.nodes += !rv->hidden[i];
		}
		gd->stats.kept += rv->n_kept;
		build_scopes(gd, rv);
		if (opts->fold) {
			find_folds(rv);
			rv->folded = true;
		}
		uint64_t cost = 0;
		int depth = choose_depth(gd, rv, &cost);
		gd->stats.layout_cost += cost;
		if (depth > gd->stats.depth)
			gd->stats.depth = depth;
		any_folded = any_folded || rv->folded;
		make_vertices(gd, rv, (uint32_t)r, depth);
	}
	if (opts->focus != NULL && gd->stats.kept == 0)
		tl_warn("graph-focus-empty", "--focus matches no node: nothing to draw");
	if (opts->top > 0 && !any_steps)
		tl_warn("graph-top-no-stats", "--top has no costs to rank by (no step stats): "
			"nothing to draw");
	for (guint i = 0; i < gd->vtx->len; i++) {
		struct vtx *v = vtx_at(gd, i);
		if (v->ops != NULL)
			summarize_ops(v);
		if (v->node < 0)
			gd->stats.collapsed++;
	}
	gd->stats.vertices = gd->vtx->len;
	for (size_t r = 0; r < n_runs; r++) {
		make_edges(gd, &gd->views[r], (uint32_t)r);
		mark_clusters(gd, &gd->views[r]);
	}
	gd->stats.edges = gd->edges->len;
	if (opts->edge_labels < 0)
		gd->edge_labels = gd->edges->len <= EDGE_LABELS_AUTO;
	else
		gd->edge_labels = opts->edge_labels > 0;
	/* dot doubles every rank to make room for edge labels */
	gd->edge_xlabels = gd->stats.layout_cost > COST_LABELS;
	gd->fast = engine_is_dot(gd) && gd->stats.layout_cost > COST_FAST;
	if (getenv("TL_GRAPHDOT_DEBUG") != NULL)
		fprintf(stderr, "graphdot: %zu vertices, %zu edges, cost %" PRIu64 "\n",
			gd->stats.vertices, gd->stats.edges, gd->stats.layout_cost);
	switch (opts->color_by) {
	case TL_COLOR_TIME:
	case TL_COLOR_MEMORY:
		color_sequential(gd);
		break;
	case TL_COLOR_DEVICE:
		color_devices(gd);
		break;
	case TL_COLOR_OP:
		color_ops(gd);
		break;
	default:
		break;
	}
	if (gd->legend->len > 0)
		gd->legend_id = unique_id(gd, "legend", 6);
	build_title(gd, any_folded);
	*out = gd;
	return 0;
}

/* ------------------------------------------------------------------ */
/* DOT                                                                 */

struct dotw {
	GString *s;
	tl_output *out;         /* NULL: keep everything in s */
	GString *tmp;
	GHashTable *clusters;   /* quoted cluster ids written */
};

static void w_flush(struct dotw *w, bool force)
{
	if (w->out == NULL || (!force && w->s->len < (1u << 16)))
		return;
	tl_out_bytes(w->out, w->s->str, w->s->len);
	g_string_truncate(w->s, 0);
}

static void w_indent(struct dotw *w, int depth)
{
	for (int i = 0; i < depth; i++)
		g_string_append_c(w->s, '\t');
}

/* Appends the cost line ("1.23 ms, 4.0 MB") of a vertex, if any. */
static void cost_line(const struct vtx *v, GString *s)
{
	if (v->n_exec == 0)
		return;
	g_string_append_c(s, '\n');
	fmt_time(s, v->time);
	if (v->bytes > 0) {
		g_string_append(s, ", ");
		fmt_bytes(s, v->bytes);
	}
	if (v->node >= 0 && v->n_exec > 1)
		g_string_append_printf(s, " (%u runs)", v->n_exec);
}

static void write_vertex(const tl_graphdot *gd, struct dotw *w, struct rview *rv,
			 const struct vtx *v, int depth)
{
	GString *label = w->tmp;
	g_string_truncate(label, 0);
	uint32_t pre = cluster_prefix(rv, v->scope);
	if (v->node >= 0) {
		const char *rel = v->name + (pre > 0 ? pre + 1 : 0);
		if (pre > 0 && pre + 1 > v->name_len) {
			const char *slash = strrchr(v->name, '/');
			rel = slash != NULL ? slash + 1 : v->name;
		}
		g_string_append(label, rel);
		g_string_append_printf(label, "\n%s", v->op);
	} else {
		const struct scope *t = scope_at(rv, v->target);
		uint32_t start = pre > 0 ? pre + 1 : 0;
		if (v->folded) {
			const struct scope *par = scope_at(rv, t->parent);
			uint32_t base_at = par->depth == 0 ? 0 : par->len + 1;
			const char *base = t->path + base_at;
			if (base_at > start)
				g_string_append_len(label, t->path + start, base_at - start);
			if (v->n_folded == 1)
				g_string_append_printf(label, "%.*s_%" PRId64 "/ (folded)",
						       (int)t->base_len, base, v->fold_lo);
			else
				g_string_append_printf(label, "%.*s_%" PRId64 " ... %.*s_%" PRId64
						       "/ (%u folded)", (int)t->base_len, base,
						       v->fold_lo, (int)t->base_len, base, v->fold_hi,
						       v->n_folded);
		} else {
			g_string_append_len(label, t->path + start, t->len - start);
			g_string_append_c(label, '/');
		}
		g_string_append_printf(label, "\n%u op%s: %s", v->n_ops, v->n_ops == 1 ? "" : "s",
				       v->types);
	}
	cost_line(v, label);
	w_indent(w, depth);
	g_string_append(w->s, v->id);
	g_string_append(w->s, " [label=");
	tl_dot_quote(w->s, label->str, label->len, true);
	if (v->node < 0)
		g_string_append(w->s, ", shape=box3d");
	const char *fill = vtx_fill(gd, v);
	if (fill != NULL) {
		g_string_append_printf(w->s, ", fillcolor=\"%s\"", fill);
		if (fill == sequential[N_SEQ - 1] || fill == sequential[N_SEQ - 2] ||
		    fill == sequential[N_SEQ - 3])
			g_string_append(w->s, ", fontcolor=white");
	}
	g_string_append(w->s, "];\n");
	w_flush(w, false);
}

static void open_cluster(struct dotw *w, const char *name, const char *label,
			 size_t label_len, const char *style, int depth)
{
	w_indent(w, depth);
	g_string_append(w->s, "subgraph ");
	/* subgraphs have their own namespace in DOT, kept per document */
	char *id = g_strdup_printf("cluster %s", name);
	size_t mark = w->s->len;
	tl_dot_quote(w->s, id, strlen(id), false);
	for (unsigned k = 2; g_hash_table_contains(w->clusters, w->s->str + mark); k++) {
		g_string_truncate(w->s, mark);
		char *alt = g_strdup_printf("%s#%u", id, k);
		tl_dot_quote(w->s, alt, strlen(alt), false);
		g_free(alt);
	}
	g_hash_table_add(w->clusters, g_strdup(w->s->str + mark));
	g_free(id);
	g_string_append(w->s, " {\n");
	w_indent(w, depth + 1);
	g_string_append(w->s, "label=");
	tl_dot_quote(w->s, label, label_len, true);
	g_string_append_printf(w->s, "; %s\n", style);
}

static void close_cluster(struct dotw *w, int depth)
{
	w_indent(w, depth);
	g_string_append(w->s, "}\n");
}

/* Depth-first over the scopes of one group, without recursion (names can
 * nest deeply). */
static void write_group(const tl_graphdot *gd, struct dotw *w, struct rview *rv, uint32_t g,
			int depth)
{
	const struct group *gr = &g_array_index(rv->groups, struct group, g);
	if (scope_at(rv, gr->root)->n_sub == 0)
		return;
	GArray *stack = g_array_new(FALSE, FALSE, sizeof(uint32_t));
	GArray *opened = g_array_new(FALSE, FALSE, sizeof(int));
	uint32_t s = gr->root;
	g_array_append_val(stack, s);
	int d = depth;
	while (stack->len > 0) {
		uint32_t top = g_array_index(stack, uint32_t, stack->len - 1);
		g_array_set_size(stack, stack->len - 1);
		if (top == NONE) {
			/* closing marker */
			int was = g_array_index(opened, int, opened->len - 1);
			g_array_set_size(opened, opened->len - 1);
			if (was) {
				d--;
				close_cluster(w, d);
			}
			continue;
		}
		struct scope *sc = scope_at(rv, top);
		if (sc->n_sub == 0)
			continue;
		int open = sc->cluster ? 1 : 0;
		if (open) {
			if (sc->depth == 0) {
				char *name = g_strdup_printf("%zu/%u %s", (size_t)(rv - gd->views), g,
							     gr->device);
				char *label = gr->device[0] != '\0'
						      ? g_strdup(gr->device)
						      : g_strdup_printf("partition %u", gr->partition);
				open_cluster(w, name, label, strlen(label),
					     "style=\"rounded,bold\"; color=\"#4a6fa5\"; "
					     "fontcolor=\"#4a6fa5\"; fontsize=12;",
					     d);
				g_free(name);
				g_free(label);
			} else {
				uint32_t pre = cluster_prefix(rv, sc->parent);
				uint32_t start = pre > 0 ? pre + 1 : 0;
				char *name = g_strdup_printf("%zu/%u %.*s", (size_t)(rv - gd->views), g,
							     (int)sc->len, sc->path);
				open_cluster(w, name, sc->path + start, sc->len - start,
					     "style=rounded; color=\"#aaaaaa\"; fontcolor=\"#555555\";",
					     d);
				g_free(name);
			}
			d++;
		}
		g_array_append_val(opened, open);
		for (uint32_t v = sc->first_vtx; v != NONE; v = vtx_at(gd, v)->next)
			write_vertex(gd, w, rv, vtx_at(gd, v), d);
		uint32_t marker = NONE;
		g_array_append_val(stack, marker);
		/* children in order: push in reverse */
		size_t mark = stack->len;
		for (uint32_t c = sc->first_child; c != NONE; c = scope_at(rv, c)->next_sibling)
			g_array_append_val(stack, c);
		for (size_t a = mark, b = stack->len; a + 1 < b; a++, b--) {
			uint32_t t = g_array_index(stack, uint32_t, a);
			g_array_index(stack, uint32_t, a) = g_array_index(stack, uint32_t, b - 1);
			g_array_index(stack, uint32_t, b - 1) = t;
		}
	}
	g_array_free(opened, TRUE);
	g_array_free(stack, TRUE);
}

/* Width grows with the bytes a tensor carries: 1 up to 1 KB, about +1.25
 * per factor of ten, 6 from 10 MB on. */
static double edge_width(int64_t bytes)
{
	if (bytes <= 1000)
		return 1.0;
	double w = 1.0 + 1.25 * log10((double)bytes / 1000.0);
	return w > 6.0 ? 6.0 : w;
}

static void write_edge(const tl_graphdot *gd, struct dotw *w, const struct dedge *d)
{
	const struct vtx *a = vtx_at(gd, d->src), *b = vtx_at(gd, d->dst);
	bool control = d->kind == EK_CONTROL || d->kind == EK_TRANSFER_CONTROL;
	bool transfer = d->kind == EK_TRANSFER || d->kind == EK_TRANSFER_CONTROL;
	g_string_append_c(w->s, '\t');
	g_string_append(w->s, a->id);
	g_string_append(w->s, " -> ");
	g_string_append(w->s, b->id);
	g_string_append(w->s, " [");
	bool sep = false;
	if (gd->edge_labels) {
		GString *label = w->tmp;
		g_string_truncate(label, 0);
		if (d->count > 1) {
			g_string_append_printf(label, "%u %s", d->count,
					       control ? "control" : "tensors");
			if (d->bytes > 0) {
				g_string_append(label, ", ");
				fmt_bytes(label, d->bytes);
			}
		} else if (!control) {
			tensor_info t = tensor_of(gd->views[d->run].run, d->gsrc, d->port);
			fmt_tensor(label, &t);
		}
		if (label->len > 0) {
			g_string_append(w->s, gd->edge_xlabels ? "xlabel=" : "label=");
			tl_dot_quote(w->s, label->str, label->len, true);
			sep = true;
		}
	}
	double width = control ? 1.0 : edge_width(d->bytes);
	if (transfer && width < 2.5)
		width = 2.5;
	if (width > 1.0) {
		g_string_append_printf(w->s, "%spenwidth=%.1f", sep ? ", " : "", width);
		sep = true;
	}
	if (transfer) {
		g_string_append_printf(w->s, "%sstyle=%s, color=\"#1f5fa8\"", sep ? ", " : "",
				       control ? "\"bold,dashed\"" : "bold");
		sep = true;
	} else if (control) {
		g_string_append_printf(w->s, "%sstyle=dashed, color=\"#888888\"", sep ? ", " : "");
		sep = true;
	}
	if (!sep)
		g_string_truncate(w->s, w->s->len - 2);
	else
		g_string_append_c(w->s, ']');
	g_string_append(w->s, ";\n");
	w_flush(w, false);
}

static void write_legend(const tl_graphdot *gd, struct dotw *w)
{
	if (gd->legend->len == 0)
		return;
	g_string_append_c(w->s, '\t');
	g_string_append(w->s, gd->legend_id);
	g_string_append(w->s, " [shape=plaintext, style=\"\", margin=0, label=<<table border=\"0\" "
			      "cellborder=\"1\" cellspacing=\"0\" cellpadding=\"3\">"
			      "<tr><td colspan=\"2\">");
	tl_dot_html(w->s, gd->legend_title);
	g_string_append(w->s, "</td></tr>");
	for (guint i = 0; i < gd->legend->len; i++) {
		const struct legend_entry *e = &g_array_index(gd->legend, struct legend_entry, i);
		g_string_append_printf(w->s, "<tr><td bgcolor=\"%s\" width=\"18\"></td>"
				       "<td align=\"left\">", e->color);
		tl_dot_html(w->s, e->text);
		g_string_append(w->s, "</td></tr>");
	}
	g_string_append(w->s, "</table>>];\n");
}

static void write_all(const tl_graphdot *gd, struct dotw *w)
{
	w->tmp = g_string_new(NULL);
	w->clusters = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, NULL);
	g_string_append(w->s, "digraph \"tftrace\" {\n\tgraph [label=");
	tl_dot_quote(w->s, gd->title, strlen(gd->title), true);
	g_string_append(w->s, ", labelloc=t, fontname=\"Helvetica\", fontsize=14, "
			      "rankdir=TB, newrank=true, nodesep=0.2, ranksep=0.35, "
			      "remincross=false, searchsize=30");
	if (gd->fast)
		g_string_append(w->s, ", nslimit=0.2, mclimit=0.2");
	if (gd->opts.engine != NULL) {
		g_string_append(w->s, ", layout=");
		tl_dot_quote(w->s, gd->opts.engine, strlen(gd->opts.engine), false);
	}
	g_string_append(w->s, "];\n\tnode [shape=box, style=\"rounded,filled\", "
			      "fillcolor=white, fontname=\"Helvetica\", fontsize=10, "
			      "height=0.3, margin=\"0.08,0.03\"];\n"
			      "\tedge [fontname=\"Helvetica\", fontsize=8, arrowsize=0.6, "
			      "color=\"#555555\", fontcolor=\"#555555\"];\n");
	for (size_t r = 0; r < gd->n_runs; r++) {
		struct rview *rv = &gd->views[r];
		int depth = 1;
		if (gd->n_runs > 1) {
			char *name = g_strdup_printf("run %zu", r);
			open_cluster(w, name, rv->run->label, strlen(rv->run->label),
				     "style=\"rounded,filled\"; fillcolor=\"#f7f7f7\"; "
				     "color=\"#999999\"; fontsize=13;",
				     1);
			g_free(name);
			depth = 2;
		}
		for (guint g = 0; g < rv->groups->len; g++)
			write_group(gd, w, rv, g, depth);
		if (gd->n_runs > 1)
			close_cluster(w, 1);
	}
	for (guint e = 0; e < gd->edges->len; e++)
		write_edge(gd, w, &g_array_index(gd->edges, struct dedge, e));
	write_legend(gd, w);
	g_string_append(w->s, "}\n");
	g_string_free(w->tmp, TRUE);
	g_hash_table_destroy(w->clusters);
	w_flush(w, true);
}

void tl_graphdot_write(const tl_graphdot *gd, tl_output *out)
{
	struct dotw w = {.s = g_string_sized_new(1u << 17), .out = out};
	write_all(gd, &w);
	g_string_free(w.s, TRUE);
}

GString *tl_graphdot_dot(const tl_graphdot *gd)
{
	struct dotw w = {.s = g_string_sized_new(1u << 16), .out = NULL};
	write_all(gd, &w);
	return w.s;
}

/* ------------------------------------------------------------------ */
/* Render                                                              */

/* Graphviz reports through one callback, in pieces ("Warning", ": ",
 * the message); lines are gathered here. Errors are kept for the failure
 * message; warnings become ours, the first few each on their own line. */
#define GV_WARNINGS_SHOWN 5
static GString *gv_line;
static GString *gv_error;
static unsigned gv_warnings;

static int gv_message(char *piece)
{
	if (gv_line == NULL)
		gv_line = g_string_new(NULL);
	g_string_append(gv_line, piece);
	char *nl;
	while ((nl = strchr(gv_line->str, '\n')) != NULL) {
		*nl = '\0';
		const char *msg = gv_line->str;
		if (g_str_has_prefix(msg, "Error: ")) {
			if (gv_error != NULL && gv_error->len == 0)
				g_string_append(gv_error, msg + 7);
		} else if (msg[0] != '\0') {
			const char *text = g_str_has_prefix(msg, "Warning: ") ? msg + 9 : msg;
			char *key = g_strdup_printf("graphviz: %s", text);
			if (tl_warning_count(key) > 0 || gv_warnings < GV_WARNINGS_SHOWN) {
				if (tl_warning_count(key) == 0)
					gv_warnings++;
				tl_warn(key, "%s", key);
			} else {
				tl_warn("graphviz-more", "graphviz: more messages");
			}
			g_free(key);
		}
		g_string_erase(gv_line, 0, nl - gv_line->str + 1);
	}
	return 0;
}

int tl_graphdot_render(const tl_graphdot *gd, const char *format, tl_output *out,
		       tl_error *err)
{
	const char *engine = gd->opts.engine != NULL ? gd->opts.engine : "dot";
	GString *dot = tl_graphdot_dot(gd);
	gv_error = g_string_new(NULL);
	agusererrf old = agseterrf(gv_message);
	int rc = 0;
	GVC_t *gvc = gvContext();
	Agraph_t *g = agmemread(dot->str);
	g_string_free(dot, TRUE);
	if (g == NULL) {
		rc = tl_error_set(err, "cannot render: Graphviz did not read the graph (%s)",
				  gv_error->len ? gv_error->str : "no reason given");
	} else if (gvLayout(gvc, g, engine) != 0) {
		rc = tl_error_set(err, "cannot render: %s layout failed%s%s", engine,
				  gv_error->len ? ": " : "", gv_error->str);
	} else {
		char *data = NULL;
		unsigned int len = 0;
		if (gvRenderData(gvc, g, format, &data, &len) != 0) {
			rc = tl_error_set(err, "cannot render %s: %s", format,
					  gv_error->len ? gv_error->str
							: "Graphviz has no renderer for it");
		} else {
			tl_out_bytes(out, data, len);
		}
		if (data != NULL)
			gvFreeRenderData(data);
		gvFreeLayout(gvc, g);
	}
	if (g != NULL)
		agclose(g);
	gvFreeContext(gvc);
	if (gv_line != NULL && gv_line->len > 0)
		gv_message("\n");
	agseterrf(old);
	g_string_free(gv_error, TRUE);
	gv_error = NULL;
	if (gv_line != NULL) {
		g_string_free(gv_line, TRUE);
		gv_line = NULL;
	}
	return rc;
}
