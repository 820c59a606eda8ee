/*
 * report_graph: the run's graph as data for the page's graph tab
 * (libtrace/emit/report/graphview.js lays it out in the browser), every
 * node the picture (analysis/graphdot) draws with its costs, and the edges
 * between them with _Send/_Recv pairs contracted, as graph-render draws
 * them. Names are cut at '/' into a table of scopes (parent, last
 * component) and a leaf, and every text is interned, as the page's
 * "strings" are:
 *
 *   {"max_nodes": N, "strings": ["", "gradients", "Conv2D", ...],
 *    "devices": [s, ...],                 device names (strings index)
 *    "scopes": [parent, name, ...],       scope k + 1: its parent scope
 *                                         (0: the top) and last component
 *    "nodes": [scope, leaf, op, device, ...],   four per node
 *    "time_us": [...], "bytes": [...], "execs": [...],   per node
 *    "edges": [from, to, kind, ...]}      node indexes; kind 0 data,
 *                                         1 control, 2 a _Send/_Recv pair,
 *                                         3 a control one
 */
#include "emit/report_internal.h"

#include "analysis/graphdot_picture.h"
#include "emit/json.h"
#include "model/nametab.h"

#include <glib.h>

#include <inttypes.h>
#include <stdint.h>
#include <string.h>

/* Every text once. A scope component is looked up in place, hashed once
 * by the name table (a copy and GLib's hash per component were an eighth
 * of trace-report on the 100 MB one-run dump). */
typedef struct interner {
	tl_nametab *index; /* text -> its index in strs */
	GPtrArray *strs;   /* the texts, in chunk */
	GStringChunk *chunk;
} interner;

static uint32_t intern(interner *in, const char *s, size_t len)
{
	if (len >= UINT32_MAX - 1) { /* past what the table holds: not shared */
		g_ptr_array_add(in->strs, g_string_chunk_insert_len(in->chunk, s, (gssize)len));
		return in->strs->len - 1;
	}
	tl_name name = tl_nametab_name(s, len);
	uint32_t k = tl_nametab_get(in->index, 0, name);
	if (k != TL_NAMETAB_NONE)
		return k;
	k = in->strs->len;
	name.s = g_string_chunk_insert_len(in->chunk, s, (gssize)len);
	g_ptr_array_add(in->strs, (gpointer)name.s);
	tl_nametab_put(in->index, 0, name, k);
	return k;
}

/* (parent scope, component) keys: g_int64_hash's high ^ low would put
 * most of them in few buckets */
static guint pair_hash(gconstpointer p)
{
	uint64_t x = *(const uint64_t *)p * UINT64_C(0x9e3779b97f4a7c15);
	return (guint)(x >> 32);
}

/* An unsigned array: "name":[a,b,...], a line break every 32 values. */
static void write_u32s(tl_output *out, const char *name, const uint32_t *v, size_t n)
{
	tl_output_printf(out, ",\n\"%s\":[", name);
	for (size_t i = 0; i < n; i++) {
		if (i > 0)
			tl_output_str(out, i % 32 == 0 ? ",\n" : ",");
		tl_output_uint(out, v[i]);
	}
	tl_output_char(out, ']');
}

void tl_report_graph_data(tl_output *out, const tl_graphdot *gd, size_t max_nodes)
{
	const struct rview *rv = &gd->views[0];
	const tl_run *run = rv->run;
	interner in = {tl_nametab_new(1024), g_ptr_array_new(), g_string_chunk_new(1 << 16)};
	intern(&in, "", 0);
	/* (parent scope, component) -> scope; scope 0 is the top */
	GHashTable *scope_of = g_hash_table_new_full(pair_hash, g_int64_equal, g_free, NULL);
	GArray *scopes = g_array_new(FALSE, FALSE, sizeof(uint32_t));
	GArray *nodes = g_array_new(FALSE, FALSE, sizeof(uint32_t));
	GArray *devices = g_array_new(FALSE, FALSE, sizeof(uint32_t));
	GHashTable *device_of = g_hash_table_new(g_str_hash, g_str_equal);
	uint32_t *index = g_new(uint32_t, run->n_nodes + 1);
	size_t n = 0;
	for (size_t i = 0; i < run->n_nodes; i++) {
		index[i] = NONE;
		if (!rv->kept[i] || rv->hidden[i])
			continue;
		const tl_gnode *nd = &run->nodes[i];
		const char *name = nd->name != NULL ? nd->name : "";
		uint32_t scope = 0;
		for (const char *p = name, *slash; (slash = strchr(p, '/')) != NULL;
		     p = slash + 1) {
			uint32_t c = intern(&in, p, (size_t)(slash - p));
			gint64 key = ((gint64)scope << 32) | c;
			gpointer hit = g_hash_table_lookup(scope_of, &key);
			if (hit == NULL) {
				g_array_append_val(scopes, scope);
				g_array_append_val(scopes, c);
				scope = scopes->len / 2;
				g_hash_table_insert(scope_of, g_memdup2(&key, sizeof key),
						    GUINT_TO_POINTER(scope));
			} else {
				scope = GPOINTER_TO_UINT(hit);
			}
			name = slash + 1;
		}
		const char *dev = nd->device != NULL ? nd->device : "";
		gpointer dhit = g_hash_table_lookup(device_of, dev);
		uint32_t d;
		if (dhit == NULL) {
			d = devices->len;
			uint32_t s = intern(&in, dev, strlen(dev));
			g_array_append_val(devices, s);
			g_hash_table_insert(device_of, (gpointer)dev, GUINT_TO_POINTER(d + 1));
		} else {
			d = GPOINTER_TO_UINT(dhit) - 1;
		}
		uint32_t row[4] = {scope, intern(&in, name, strlen(name)),
				   intern(&in, nd->op != NULL ? nd->op : "",
					  nd->op != NULL ? strlen(nd->op) : 0),
				   d};
		g_array_append_vals(nodes, row, 4);
		index[i] = (uint32_t)n++;
	}
	tl_output_printf(out, "{\"max_nodes\":%zu,\n\"strings\":[", max_nodes);
	for (guint k = 0; k < in.strs->len; k++) {
		if (k > 0)
			tl_output_str(out, k % 8 == 0 ? ",\n" : ",");
		tl_report_string(out, g_ptr_array_index(in.strs, k));
	}
	tl_output_char(out, ']');
	write_u32s(out, "devices", (const uint32_t *)(void *)devices->data, devices->len);
	write_u32s(out, "scopes", (const uint32_t *)(void *)scopes->data, scopes->len);
	write_u32s(out, "nodes", (const uint32_t *)(void *)nodes->data, nodes->len);
	tl_output_str(out, ",\n\"time_us\":[");
	for (size_t i = 0, k = 0; i < run->n_nodes; i++) {
		if (index[i] == NONE)
			continue;
		if (k > 0)
			tl_output_str(out, k % 32 == 0 ? ",\n" : ",");
		tl_json_micros(out, rv->time[i]);
		k++;
	}
	tl_output_str(out, "],\n\"bytes\":[");
	for (size_t i = 0, k = 0; i < run->n_nodes; i++) {
		if (index[i] == NONE)
			continue;
		if (k > 0)
			tl_output_str(out, k % 32 == 0 ? ",\n" : ",");
		tl_output_int(out, rv->bytes[i]);
		k++;
	}
	tl_output_str(out, "],\n\"execs\":[");
	for (size_t i = 0, k = 0; i < run->n_nodes; i++) {
		if (index[i] == NONE)
			continue;
		if (k > 0)
			tl_output_str(out, k % 32 == 0 ? ",\n" : ",");
		tl_output_uint(out, rv->n_exec[i]);
		k++;
	}
	tl_output_str(out, "],\n\"edges\":[");
	size_t m = 0;
	for (size_t e = 0; e < rv->n_edges; e++) {
		const struct cedge *c = &rv->edges[e];
		if (c->src >= run->n_nodes || c->dst >= run->n_nodes || index[c->src] == NONE ||
		    index[c->dst] == NONE)
			continue;
		if (m > 0)
			tl_output_str(out, m % 16 == 0 ? ",\n" : ",");
		tl_output_uint(out, index[c->src]);
		tl_output_char(out, ',');
		tl_output_uint(out, index[c->dst]);
		tl_output_char(out, ',');
		tl_output_uint(out, (unsigned)c->kind);
		m++;
	}
	tl_output_str(out, "]}");
	g_free(index);
	g_hash_table_destroy(device_of);
	g_array_free(devices, TRUE);
	g_array_free(nodes, TRUE);
	g_array_free(scopes, TRUE);
	g_hash_table_destroy(scope_of);
	tl_nametab_free(in.index);
	g_ptr_array_free(in.strs, TRUE);
	g_string_chunk_free(in.chunk);
}
