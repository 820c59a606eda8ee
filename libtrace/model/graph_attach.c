#include "model/graph_attach.h"

#include "base/arena.h"
#include "io/input.h"
#include "io/source.h"

#include <glib.h>
#include <stdlib.h>
#include <string.h>

struct tl_graph_attach {
	tl_arena *arena;
	const Tensorflow__GraphDef *graph;
	GHashTable *by_name; /* name (into the GraphDef) -> node + 1 */
};

/* A name's bytes as a hash key without copying: the names live in the
 * GraphDef; lookups hash a (pointer, length) pair. */
typedef struct name_key {
	const char *s;
	size_t len;
} name_key;

static guint key_hash(gconstpointer p)
{
	const name_key *k = p;
	guint h = 5381;
	for (size_t i = 0; i < k->len; i++)
		h = h * 33u + (unsigned char)k->s[i];
	return h;
}

static gboolean key_equal(gconstpointer a, gconstpointer b)
{
	const name_key *x = a, *y = b;
	return x->len == y->len && memcmp(x->s, y->s, x->len) == 0;
}

static int not_a_graph(tl_error *err, tl_format f, const Tensorflow__RunMetadata *meta)
{
	const char *what = f == TL_FORMAT_CHROME	      ? "a Chrome trace"
			   : f == TL_FORMAT_XSPACE	      ? "an XSpace profile"
			   : f == TL_FORMAT_TFRECORD	      ? "a TFRecord stream"
			   : meta != NULL && meta->step_stats ? "a run (step_stats)"
							      : "no single graph";
	return tl_error_set(err, "not a GraphDef (it is %s)", what);
}

int tl_graph_attach_read(tl_graph_attach **out, const char *path, tl_error *err)
{
	*out = NULL;
	tl_source *src = NULL;
	if (tl_source_open(&src, path, TL_FORMAT_AUTO, err) < 0)
		return -1;
	tl_format f = tl_source_format(src);
	const uint8_t *data = NULL;
	size_t len = 0;
	if (f == TL_FORMAT_CHROME && tl_input_map(tl_source_input(src), &data, &len, NULL) == 0) {
		/* which Chrome trace, as every tool names it */
		int rc = tl_error_set(err, "not a GraphDef (it is %s)",
				      tl_format_chrome_kind(data, len));
		tl_source_close(src);
		return rc;
	}
	if (f == TL_FORMAT_CHROME || f == TL_FORMAT_XSPACE || f == TL_FORMAT_TFRECORD) {
		tl_source_close(src);
		return not_a_graph(err, f, NULL);
	}
	tl_arena *arena = NULL;
	Tensorflow__RunMetadata *meta = NULL;
	const char *label = NULL;
	int rc = tl_source_next(src, &arena, &meta, &label, err);
	f = tl_source_format(src); /* as the read found it: an XSpace is known now */
	tl_source_close(src);
	if (rc < 0)
		return -1;
	if (rc == 0 || meta->step_stats != NULL || meta->n_partition_graphs != 1) {
		not_a_graph(err, f, rc > 0 ? meta : NULL);
		tl_arena_free(arena);
		return -1;
	}
	tl_graph_attach *g = g_new0(tl_graph_attach, 1);
	g->arena = arena;
	g->graph = meta->partition_graphs[0];
	g->by_name = g_hash_table_new(key_hash, key_equal);
	for (size_t i = 0; i < g->graph->n_node; i++) {
		const char *name = g->graph->node[i]->name ? g->graph->node[i]->name : "";
		name_key *k = tl_arena_alloc(arena, sizeof *k);
		*k = (name_key){name, strlen(name)};
		if (!g_hash_table_contains(g->by_name, k))
			g_hash_table_insert(g->by_name, k, GSIZE_TO_POINTER(i + 1));
	}
	*out = g;
	return 0;
}

void tl_graph_attach_free(tl_graph_attach *g)
{
	if (g == NULL)
		return;
	g_hash_table_destroy(g->by_name);
	tl_arena_free(g->arena);
	g_free(g);
}

size_t tl_graph_attach_n_nodes(const tl_graph_attach *g)
{
	return g->graph->n_node;
}

const Tensorflow__NodeDef *tl_graph_attach_node(const tl_graph_attach *g, uint32_t node)
{
	return g->graph->node[node];
}

int32_t tl_graph_attach_find(const tl_graph_attach *g, const char *name, size_t len)
{
	name_key k = {name, len};
	gpointer hit = g_hash_table_lookup(g->by_name, &k);
	return hit != NULL ? (int32_t)(GPOINTER_TO_SIZE(hit) - 1) : -1;
}

int32_t tl_graph_attach_input(const tl_graph_attach *g, uint32_t node, int32_t port, int32_t *slot)
{
	const Tensorflow__NodeDef *def = g->graph->node[node];
	int32_t data_pos = 0;
	for (size_t k = 0; k < def->n_input; k++) {
		const char *in = def->input[k];
		if (in == NULL || in[0] == '^')
			continue;
		if (data_pos++ != port)
			continue;
		size_t len = strlen(in);
		const char *colon = memrchr(in, ':', len);
		*slot = 0;
		if (colon != NULL && colon[1] != '\0' &&
		    strspn(colon + 1, "0123456789") == len - (size_t)(colon + 1 - in)) {
			*slot = (int32_t)strtol(colon + 1, NULL, 10);
			len = (size_t)(colon - in);
		}
		return tl_graph_attach_find(g, in, len);
	}
	return -1;
}

static const Tensorflow__AttrValue *attr(const Tensorflow__NodeDef *def, const char *key)
{
	for (size_t i = 0; i < def->n_attr; i++)
		if (def->attr[i]->key != NULL && strcmp(def->attr[i]->key, key) == 0)
			return def->attr[i]->value;
	return NULL;
}

const Tensorflow__TensorShapeProto *tl_graph_attach_declared_shape(const tl_graph_attach *g,
								   uint32_t node)
{
	const Tensorflow__AttrValue *v = attr(g->graph->node[node], "shape");
	return v != NULL && v->value_case == TENSORFLOW__ATTR_VALUE__VALUE_SHAPE ? v->shape : NULL;
}

const Tensorflow__TensorShapeProto *tl_graph_attach_output_shape(const tl_graph_attach *g,
								 uint32_t node, int32_t slot)
{
	const Tensorflow__AttrValue *v = attr(g->graph->node[node], "_output_shapes");
	if (v != NULL && v->value_case == TENSORFLOW__ATTR_VALUE__VALUE_LIST && v->list != NULL &&
	    slot >= 0 && (size_t)slot < v->list->n_shape)
		return v->list->shape[slot];
	return slot == 0 ? tl_graph_attach_declared_shape(g, node) : NULL;
}
