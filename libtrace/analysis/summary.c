#include "analysis/summary.h"

#include "analysis/opcost.h"
#include "base/strsort.h"
#include "base/warn.h"
#include "analysis/summary_internal.h"
#include "analysis/summary_nest.h"
#include "model/nametab.h"

#include <jansson.h>
#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *const col_names[TL_N_COLS] = {
    "total_micros",    "accelerator_micros", "cpu_micros",     "occurrence",
    "requested_bytes", "peak_bytes",	     "residual_bytes", "output_bytes",
    "params",	       "float_ops",	     "self_micros",
};

const char *tl_summary_col_name(int col)
{
	return col >= 0 && col < TL_N_COLS ? col_names[col] : "";
}

int tl_summary_col_parse(const char *s)
{
	for (int i = 0; i < TL_N_COLS; i++)
		if (strcmp(s, col_names[i]) == 0)
			return i;
	/* tfprof's short spellings */
	if (strcmp(s, "micros") == 0 || strcmp(s, "exec_micros") == 0)
		return TL_COL_TOTAL;
	if (strcmp(s, "bytes") == 0)
		return TL_COL_REQUESTED;
	if (strcmp(s, "flops") == 0)
		return TL_COL_FLOPS;
	return -1;
}

const char *const tl_summary_view_names[] = {"op",     "scope", "node", "device",
					     "kernel", "step",	NULL};

const char *tl_summary_view_name(tl_summary_view v)
{
	return tl_summary_view_names[v];
}

const char *const tl_summary_stat_names[] = {"avg", "first", "min",    "max",
					     "p50", "p90",   "stddev", NULL};

/* A row, its name and its first run's values live in the summary's
 * arena; more runs' values, and a shape, in memory of their own. */
static tl_summary_vals *row_own_vals(tl_row *r)
{
	return (tl_summary_vals *)(void *)(r + 1);
}

static void row_free(gpointer p)
{
	tl_row *r = p;
	g_free(r->shape);
	if (r->vals != row_own_vals(r))
		g_free(r->vals);
}

/* A row's name hashed eight bytes at a time (GLib's g_str_hash takes a
 * byte at a time, and a scope view's names are a hundred bytes long). No
 * output depends on the rows' order in the table: every walk over it
 * sorts by a whole order (a value, then the name). */
static guint name_hash(const char *name)
{
	return tl_nametab_name_str(name).hash;
}

/* The hash of the name row_find is looking up, which GLib asks for again
 * when row_find inserts the row under its copy of the name: a new row's
 * name (a kernel's is 200 bytes long) is hashed once, not twice. Per
 * thread: summaries are built on several at once. */
static _Thread_local struct {
	const char *name; /* NULL: none */
	guint hash;
} known_hash;

static guint row_hash(gconstpointer name)
{
	if (name == known_hash.name && name != NULL)
		return known_hash.hash;
	return name_hash(name);
}

tl_summary *tl_summary_new(tl_summary_view view)
{
	tl_summary *s = g_new0(tl_summary, 1);
	s->view = view;
	s->rows = g_hash_table_new_full(row_hash, g_str_equal, NULL, row_free);
	s->arena = tl_arena_new();
	s->run_labels = g_ptr_array_new_with_free_func(g_free);
	return s;
}

void tl_summary_free(tl_summary *s)
{
	if (s == NULL)
		return;
	g_hash_table_destroy(s->rows);
	tl_arena_free(s->arena);
	g_ptr_array_free(s->run_labels, TRUE);
	if (s->kept_out != NULL)
		g_hash_table_destroy(s->kept_out);
	g_free(s);
}

/* Names and labels are kept as valid UTF-8 (bad bytes become U+FFFD), so
 * every table and the partials (JSON, which cannot hold other bytes) carry
 * them, and a combined table equals a direct one. */
char *tl_summary_valid_dup(const char *s)
{
	return g_utf8_validate(s, -1, NULL) ? g_strdup(s) : g_utf8_make_valid(s, -1);
}

/* Whether a name is valid UTF-8: ASCII checked eight bytes at a time,
 * GLib's check (a byte at a time) only for a name with other bytes. */
static bool valid_utf8(const char *name)
{
	size_t len = strlen(name), i = 0;
	uint64_t high = 0;
	for (; i + 8 <= len; i += 8) {
		uint64_t w;
		memcpy(&w, name + i, 8);
		high |= w;
	}
	for (; i < len; i++)
		high |= (unsigned char)name[i];
	if ((high & UINT64_C(0x8080808080808080)) == 0)
		return true;
	return g_utf8_validate(name, (gssize)len, NULL);
}

/* The row of a name, or NULL; with `create`, a new one when none. */
static tl_row *row_find(tl_summary *s, const char *name, bool create)
{
	/* Rows are named in valid UTF-8: a name found is valid, and only a
	 * name not found needs the check. */
	guint hash = name_hash(name);
	known_hash.name = name;
	known_hash.hash = hash;
	tl_row *r = g_hash_table_lookup(s->rows, name);
	known_hash.name = NULL;
	if (r != NULL)
		return r;
	char *valid = valid_utf8(name) ? NULL : g_utf8_make_valid(name, -1);
	if (valid != NULL) {
		name = valid;
		r = g_hash_table_lookup(s->rows, name);
	}
	if (r == NULL && create) {
		/* the row and room for one run: a table of one run (the
		 * report's) makes no allocation of its own per row */
		r = tl_arena_zalloc(s->arena, sizeof *r + sizeof(tl_summary_vals));
		r->name = tl_arena_strdup(s->arena, name);
		r->vals = row_own_vals(r);
		r->cap_vals = 1;
		if (valid == NULL) {
			/* the name looked up first, copied */
			known_hash.name = r->name;
			known_hash.hash = hash;
		}
		g_hash_table_insert(s->rows, r->name, r);
		known_hash.name = NULL;
	}
	g_free(valid);
	return r;
}

tl_row *tl_summary_row_get(tl_summary *s, const char *name)
{
	return row_find(s, name, true);
}

/* The values of a run, added where missing. A row stores the runs from its
 * first on, so a stream of N runs whose rows each hold one (the step view)
 * costs N values, not N squared. */
/* Room for n runs' values (zeroed past the n_vals held). */
static void row_reserve(tl_row *r, size_t n)
{
	if (n <= r->cap_vals)
		return;
	if (n > UINT32_MAX)
		g_error("tl_summary: a row of more than %u runs", UINT32_MAX);
	size_t cap = MAX(n, MIN((size_t)r->cap_vals * 2, (size_t)UINT32_MAX));
	tl_summary_vals *v = g_new0(tl_summary_vals, cap);
	memcpy(v, r->vals, r->n_vals * sizeof *v);
	if (r->vals != row_own_vals(r))
		g_free(r->vals);
	r->vals = v;
	r->cap_vals = (uint32_t)cap;
}

tl_summary_vals *tl_summary_row_run(tl_row *r, size_t run)
{
	if (r->n_vals == 0)
		r->first_run = run;
	if (run < r->first_run) {
		size_t more = r->first_run - run;
		row_reserve(r, r->n_vals + more);
		memmove(r->vals + more, r->vals, r->n_vals * sizeof(tl_summary_vals));
		memset(r->vals, 0, more * sizeof(tl_summary_vals));
		r->n_vals += (uint32_t)more;
		r->first_run = run;
	}
	size_t at = run - r->first_run;
	if (r->n_vals <= at) {
		row_reserve(r, at + 1);
		memset(r->vals + r->n_vals, 0, (at + 1 - r->n_vals) * sizeof(tl_summary_vals));
		r->n_vals = (uint32_t)(at + 1);
	}
	return &r->vals[at];
}

/* The values of a run, or NULL when the row did not occur in it. */
const tl_summary_vals *tl_summary_row_vals(const tl_row *r, size_t run)
{
	if (run < r->first_run || run - r->first_run >= r->n_vals)
		return NULL;
	return &r->vals[run - r->first_run];
}

double tl_summary_row_value(const tl_row *r, size_t run, int col)
{
	const tl_summary_vals *v = tl_summary_row_vals(r, run);
	return v != NULL ? v->v[col] : 0;
}

void tl_summary_vals_add(tl_summary_vals *dst, const tl_summary_vals *v)
{
	for (int c = 0; c < TL_N_COLS; c++) {
		if (c == TL_COL_PEAK)
			dst->v[c] = dst->v[c] > v->v[c] ? dst->v[c] : v->v[c];
		else
			dst->v[c] += v->v[c];
	}
}

tl_row *tl_summary_row_add(tl_summary *s, const char *name, size_t run, const tl_summary_vals *v)
{
	tl_row *r = tl_summary_row_get(s, name);
	tl_summary_vals_add(tl_summary_row_run(r, run), v);
	return r;
}

/* ---- adding runs ------------------------------------------------------- */

/* tfprof's time of a record: from its start to its op_end_rel; a record
 * whose op_end_rel is 0 (or less) counts 1 us ("round quick execution to
 * 1 micro", ExecStep::AddTimeStats). */
static double op_micros(const tl_exec *e)
{
	int64_t d = e->op_end - e->start;
	return d > 0 ? (double)d / 1000.0 : 1.0;
}

/* tfprof's memory of an execution (ExecStep::AddMemoryStats): the
 * allocators' sums, with memory_stats' temporary and persistent sizes. */
static void exec_memory(const Tensorflow__NodeExecStats *ns, tl_summary_vals *v)
{
	double persistent = 0, temp = 0;
	if (ns->memory_stats != NULL) {
		persistent = (double)ns->memory_stats->persistent_memory_size;
		temp = (double)ns->memory_stats->temp_memory_size;
	}
	for (size_t m = 0; m < ns->n_memory; m++) {
		const Tensorflow__AllocatorMemoryUsed *mu = ns->memory[m];
		v->v[TL_COL_REQUESTED] += (double)mu->total_bytes;
		v->v[TL_COL_RESIDUAL] += (double)mu->live_bytes;
		v->v[TL_COL_PEAK] += (double)mu->peak_bytes;
	}
	v->v[TL_COL_REQUESTED] += persistent + temp;
	v->v[TL_COL_PEAK] += persistent + temp;
	v->v[TL_COL_RESIDUAL] += persistent;
	for (size_t k = 0; k < ns->n_output; k++) {
		const Tensorflow__TensorDescription *td = ns->output[k]->tensor_description;
		if (td == NULL || td->allocation_description == NULL)
			continue;
		const Tensorflow__AllocationDescription *ad = td->allocation_description;
		v->v[TL_COL_OUTPUT] += (double)MAX(ad->allocated_bytes, ad->requested_bytes);
	}
}

/* `nested`: whether the execution's device nests (nests()); `times_only`:
 * memory and float_ops left 0 (tl_summary.times_only) */
static void exec_vals(const tl_run *run, uint32_t x, const double *accel, const int64_t *self,
		      bool nested, bool times_only, tl_summary_vals *v)
{
	const tl_exec *e = &run->execs[x];
	memset(v, 0, sizeof *v);
	v->v[TL_COL_CPU] = op_micros(e);
	v->v[TL_COL_ACCEL] = accel[x];
	v->v[TL_COL_TOTAL] = v->v[TL_COL_CPU] + v->v[TL_COL_ACCEL];
	/* the kernels it launched ran on a device, inside no child of it */
	v->v[TL_COL_SELF] =
	    nested ? (double)self[x] / 1000.0 + v->v[TL_COL_ACCEL] : v->v[TL_COL_TOTAL];
	v->v[TL_COL_OCCURRENCE] = 1;
	if (times_only)
		return;
	exec_memory(e->ns, v);
	v->v[TL_COL_FLOPS] = tl_opcost_float_ops(run, x);
}

static const char *row_key(const tl_summary *s, const tl_run *run, const tl_exec *e)
{
	switch (s->view) {
	case TL_VIEW_OP:
		return e->op;
	case TL_VIEW_DEVICE:
		return run->devices[e->device].name;
	case TL_VIEW_SCOPE:
	case TL_VIEW_NODE:
	default:
		return e->node;
	}
}

/* Kernel time per launching execution, tfprof's accelerator time: the
 * records of a GPU's stream:all device, or of its streams where it has
 * none (a kernel is on both: counted once). */
static double *kernel_time(const tl_run *run)
{
	double *accel = g_new0(double, run->n_execs ? run->n_execs : 1);
	/* per executor (+1: tracer devices with none), whether it has stream:all */
	bool *has_all = g_new0(bool, run->n_devices + 1);
	for (size_t d = 0; d < run->n_devices; d++)
		if (run->devices[d].kind == TL_DEV_STREAM_ALL)
			has_all[run->devices[d].executor + 1] = true;
	for (size_t i = 0; i < run->n_execs; i++) {
		const tl_exec *k = &run->execs[i];
		const tl_device *d = &run->devices[k->device];
		bool use = d->kind == TL_DEV_STREAM_ALL ||
			   (d->kind == TL_DEV_STREAM && !has_all[d->executor + 1]);
		if (use && k->launcher >= 0)
			accel[k->launcher] += op_micros(k);
	}
	g_free(has_all);
	return accel;
}

static int cmp_interval(const void *a, const void *b)
{
	const int64_t *x = a, *y = b;
	return x[0] < y[0] ? -1 : (x[0] > y[0]);
}

/* Busy time of a set of intervals (their union), in microseconds. */
static double union_us(GArray *iv)
{
	if (iv->len == 0)
		return 0;
	int64_t *p = (int64_t *)(void *)iv->data;
	size_t n = iv->len / 2;
	if (n > 1)
		qsort(p, n, 2 * sizeof(int64_t), cmp_interval);
	int64_t busy = 0, cs = p[0], ce = p[1];
	for (size_t i = 1; i < n; i++) {
		if (p[2 * i] > ce) {
			busy += ce - cs;
			cs = p[2 * i];
			ce = p[2 * i + 1];
		} else if (p[2 * i + 1] > ce) {
			ce = p[2 * i + 1];
		}
	}
	busy += ce - cs;
	return (double)busy / 1000.0;
}

/* Where executions nest: an XSpace host plane ("/host:CPU"), whose lines
 * hold TraceMe slices inside each other ("MatMul:MatMul" inside
 * "EagerExecute" inside "train_function"). A TF1 executor's records
 * overlap on one thread without being each other's children (an async op
 * ends in a callback while the thread runs others; dumps without
 * thread_id put every op on thread 0), so there none nests. */
static bool nests(const tl_device *d)
{
	return g_str_has_prefix(d->name, "/host:");
}

/* The devices whose executions are host work: executors and host planes. */
static bool is_host(const tl_device *d)
{
	return d->kind == TL_DEV_EXECUTOR || nests(d);
}

/* Time of each host execution not spent in executions nested inside it
 * on the same device and thread: its own time where nothing nests. Sets
 * s->nested when something does. */
static int64_t *exec_self(tl_summary *s, const tl_run *run)
{
	size_t cap = run->n_execs ? run->n_execs : 1;
	int64_t *self = g_new0(int64_t, cap);
	tl_summary_slice *sl = g_new(tl_summary_slice, cap);
	uint32_t *of = g_new(uint32_t, cap);
	size_t n = 0;
	bool *nest_dev = g_new(bool, run->n_devices + 1);
	for (size_t d = 0; d < run->n_devices; d++)
		nest_dev[d] = nests(&run->devices[d]);
	for (uint32_t i = 0; i < run->n_execs; i++) {
		const tl_exec *e = &run->execs[i];
		self[i] = e->end - e->start;
		if (!nest_dev[e->device])
			continue;
		sl[n] = (tl_summary_slice){.thread = (uint64_t)e->device << 32 | e->thread,
					   .start = e->start,
					   .end = MAX(e->end, e->start)};
		of[n++] = i;
	}
	if (tl_summary_nest(sl, n) > 0)
		s->nested = true;
	for (size_t k = 0; k < n; k++)
		self[of[k]] = sl[k].self;
	g_free(nest_dev);
	g_free(sl);
	g_free(of);
	return self;
}

static void add_step_rows(tl_summary *s, const tl_run *run, size_t ri)
{
	tl_summary_vals v = {{0}};
	v.v[TL_COL_TOTAL] = (double)(run->t_end - run->t_begin) / 1000.0;
	v.v[TL_COL_SELF] = v.v[TL_COL_TOTAL];
	v.v[TL_COL_OCCURRENCE] = 1;
	for (size_t d = 0; d < run->n_devices; d++) {
		const tl_device *dev = &run->devices[d];
		if (dev->kind == TL_DEV_STREAM_ALL || dev->kind == TL_DEV_SYNC ||
		    dev->kind == TL_DEV_OTHER)
			continue;
		GArray *iv = g_array_new(FALSE, FALSE, sizeof(int64_t));
		for (uint32_t i = dev->first_exec; i < dev->first_exec + dev->n_exec; i++) {
			g_array_append_val(iv, run->execs[i].start);
			g_array_append_val(iv, run->execs[i].end);
		}
		double busy = union_us(iv);
		g_array_free(iv, TRUE);
		if (dev->kind == TL_DEV_EXECUTOR)
			v.v[TL_COL_CPU] += busy;
		else
			v.v[TL_COL_ACCEL] += busy;
	}
	tl_summary_row_add(s, run->label, ri, &v);
}

typedef struct key_cache key_cache;
static tl_row *cached_find(tl_summary *s, key_cache *c, const char *key, int32_t gnode);

/* Graph nodes per row (occurrence "defined"): the most any one run
 * defines, so a stream, its inputs summarized apart and absorbed, and
 * their partials combined all count the same. The rows are found through
 * the cache of the run's executions (a node's name is the string its
 * executions point at): no row is made here, and none after. */
static void count_defined(tl_summary *s, const tl_run *run, key_cache *cache)
{
	if (s->view == TL_VIEW_KERNEL)
		return;
	/* counted in the rows themselves (a table of counts per run cost a
	 * stream of a thousand runs more than its op rows) */
	GPtrArray *seen = g_ptr_array_new();
	for (uint32_t n = 0; n < run->n_nodes; n++) {
		const tl_gnode *g = &run->nodes[n];
		const char *key = s->view == TL_VIEW_OP	      ? g->op
				  : s->view == TL_VIEW_DEVICE ? g->device
							      : g->name;
		tl_row *r = cached_find(s, cache, key, (int32_t)n);
		if (r == NULL)
			continue;
		if (r->counted++ == 0)
			g_ptr_array_add(seen, r);
	}
	for (guint i = 0; i < seen->len; i++) {
		tl_row *r = g_ptr_array_index(seen, i);
		r->defined = MAX(r->defined, (int64_t)r->counted);
		r->counted = 0;
	}
	g_ptr_array_free(seen, TRUE);
}

void tl_summary_defined_add(GHashTable *counts, tl_row *r)
{
	g_hash_table_insert(counts, r,
			    GSIZE_TO_POINTER(GPOINTER_TO_SIZE(g_hash_table_lookup(counts, r)) + 1));
}

void tl_summary_defined_set(GHashTable *counts)
{
	GHashTableIter it;
	gpointer k, v;
	g_hash_table_iter_init(&it, counts);
	while (g_hash_table_iter_next(&it, &k, &v)) {
		tl_row *r = k;
		r->defined = MAX(r->defined, (int64_t)GPOINTER_TO_SIZE(v));
	}
	g_hash_table_destroy(counts);
}

/* A kernel or copy no record launched, in a profile that records no GPU
 * executor (an XSpace whose host API tracing was off): its own record
 * names its op, the only owner its time has. Where a GPU has an executor
 * (TF1), an unlinked kernel stays out of the op rows, as before. */
static bool orphan_kernel(const tl_run *run, const tl_exec *e)
{
	const tl_device *d = &run->devices[e->device];
	return (d->kind == TL_DEV_STREAM || d->kind == TL_DEV_MEMCPY) && e->launcher < 0 &&
	       d->executor < 0 && run->no_dataflow;
}

static bool exec_is_host(const tl_run *run, const tl_exec *e)
{
	return is_host(&run->devices[e->device]);
}

/* The rows of the last keys looked up, by the key's address: a run's
 * executions point at a few strings many times (every execution of an op
 * type at its one name; of a graph node at the node's name), and a string
 * does not change while the run is added, so the row found for its
 * address stays the row of its text. A slot per graph node first (the
 * last key its executions looked up: a scope view's keys are the nodes'
 * names, each then hashed about once, and the slots are read about in
 * the nodes' order), then 256 slots by address (an op view's few types). */
typedef struct key_slot {
	const char *key;
	tl_row *row;
} key_slot;

enum { KEY_CACHE = 256 };
struct key_cache {
	key_slot *node; /* per graph node */
	size_t n_node;
	key_slot by_address[KEY_CACHE];
};

static key_cache *key_cache_new(size_t n_nodes)
{
	key_cache *c = g_new0(key_cache, 1);
	c->node = g_new0(key_slot, n_nodes ? n_nodes : 1);
	c->n_node = n_nodes;
	return c;
}

static void key_cache_free(key_cache *c)
{
	g_free(c->node);
	g_free(c);
}

/* The row of key, looked up by an execution or a definition of graph node
 * `gnode` (-1: none); with `create`, made where missing. A cache used
 * without `create` stays so: a row not found is remembered as none. */
static tl_row *cached(tl_summary *s, key_cache *c, const char *key, int32_t gnode, bool create)
{
	key_slot *ns = NULL;
	if (gnode >= 0 && (size_t)gnode < c->n_node) {
		ns = &c->node[gnode];
		if (ns->key == key)
			return ns->row;
	}
	uint64_t h = (uint64_t)(uintptr_t)key * UINT64_C(0x9E3779B97F4A7C15);
	key_slot *as = &c->by_address[h >> 56];
	if (as->key != key) {
		as->key = key;
		as->row = create ? tl_summary_row_get(s, key) : row_find(s, key, false);
	}
	if (ns != NULL)
		*ns = *as;
	return as->row;
}

static tl_row *cached_row(tl_summary *s, key_cache *c, const char *key, int32_t gnode)
{
	return cached(s, c, key, gnode, true);
}

static tl_row *cached_find(tl_summary *s, key_cache *c, const char *key, int32_t gnode)
{
	return cached(s, c, key, gnode, false);
}

static void add_kernel_row(tl_summary *s, const tl_run *run, const tl_exec *e, size_t ri)
{
	const char *label = e->ns->timeline_label ? e->ns->timeline_label : "";
	const char *at = strstr(label, "@@");
	size_t len = at ? (size_t)(at - label) : strlen(label);
	char small[256];
	char *kname = len < sizeof small ? small : g_malloc(len + 1);
	memcpy(kname, label, len);
	kname[len] = '\0';
	tl_summary_vals v = {{0}};
	v.v[TL_COL_ACCEL] = v.v[TL_COL_TOTAL] = v.v[TL_COL_SELF] =
	    (double)(e->end - e->start) / 1000.0;
	v.v[TL_COL_OCCURRENCE] = 1;
	tl_row *r = tl_summary_row_add(s, kname, ri, &v);
	if (r->extra == NULL)
		r->extra = tl_summary_arena_dup(s, e->op);
	if (kname != small)
		g_free(kname);
}

/* params: per variable node of the partition graphs, whether it ran or not */
static void add_params(tl_summary *s, const tl_run *run, size_t ri)
{
	if (s->view == TL_VIEW_KERNEL)
		return;
	for (uint32_t n = 0; n < run->n_nodes; n++) {
		const tl_gnode *g = &run->nodes[n];
		if (!tl_opcost_is_variable(g->op))
			continue;
		const Tensorflow__TensorShapeProto *sh = tl_opcost_variable_shape(run, n);
		tl_summary_vals v = {{0}};
		v.v[TL_COL_PARAMS] = tl_opcost_elements(sh);
		const char *key = s->view == TL_VIEW_OP	      ? g->op
				  : s->view == TL_VIEW_DEVICE ? g->device
							      : g->name;
		tl_row *r = tl_summary_row_add(s, key, ri, &v);
		if (r->shape == NULL && s->view != TL_VIEW_OP && s->view != TL_VIEW_DEVICE)
			r->shape = tl_opcost_shape_string(sh);
		if (r->extra == NULL && (s->view == TL_VIEW_NODE || s->view == TL_VIEW_SCOPE))
			r->extra = tl_summary_arena_dup(s, g->op);
	}
}

void tl_summary_add_run(tl_summary *s, const tl_run *run)
{
	size_t ri = s->n_runs++;
	g_ptr_array_add(s->run_labels, tl_summary_valid_dup(run->label));
	if (run->events != NULL) {
		tl_summary_add_slices(s, run, ri);
		return;
	}
	if (run->has_graphs)
		s->have_graph = true;
	if (s->view == TL_VIEW_STEP) {
		add_step_rows(s, run, ri);
		return;
	}
	if (s->graph != NULL && run->has_graphs)
		tl_warn("graph-unused", "a run has partition graphs: --graph is not used for it");
	tl_summary_graph *gm = s->graph != NULL && !run->has_graphs && s->view != TL_VIEW_KERNEL
				   ? tl_summary_graph_new(s, run, exec_is_host)
				   : NULL;
	if (gm != NULL)
		s->have_graph = true;
	double *accel = kernel_time(run);
	int64_t *self = s->view == TL_VIEW_KERNEL ? NULL : exec_self(s, run);
	key_cache *cache = s->view == TL_VIEW_KERNEL ? NULL : key_cache_new(run->n_nodes);
	/* is_host and nests, per device */
	bool *host_dev = g_new(bool, 2 * (run->n_devices + 1));
	bool *nest_dev = host_dev + run->n_devices + 1;
	for (size_t d = 0; d < run->n_devices; d++) {
		host_dev[d] = is_host(&run->devices[d]);
		nest_dev[d] = nests(&run->devices[d]);
	}
	for (uint32_t i = 0; i < run->n_execs; i++) {
		const tl_exec *e = &run->execs[i];
		if (s->view == TL_VIEW_KERNEL) {
			if (run->devices[e->device].kind == TL_DEV_STREAM)
				add_kernel_row(s, run, e, ri);
			continue;
		}
		bool host = host_dev[e->device];
		if (!host && !orphan_kernel(run, e))
			continue;
		int32_t gn = gm != NULL ? tl_summary_graph_node(gm, i) : -1;
		if (gm != NULL && gn < 0) {
			tl_summary_graph_keep_out(s, e->node, 1);
			continue;
		}
		const char *key =
		    gm != NULL ? tl_summary_graph_key(s, gm, (uint32_t)gn) : row_key(s, run, e);
		if (key == NULL)
			key = row_key(s, run, e);
		if (!host) {
			tl_summary_vals v = {{0}};
			v.v[TL_COL_ACCEL] = v.v[TL_COL_TOTAL] = v.v[TL_COL_SELF] = op_micros(e);
			/* occurrence counts the op's executions, not its kernels */
			tl_summary_vals_add(tl_summary_row_run(cached_row(s, cache, key, e->gnode), ri), &v);
			continue;
		}
		if (e->ns->n_memory > 0 || e->ns->memory_stats != NULL)
			s->have_memory = true;
		tl_summary_vals v;
		exec_vals(run, i, accel, self, nest_dev[e->device], s->times_only, &v);
		if (gm != NULL && !s->times_only)
			v.v[TL_COL_FLOPS] = tl_summary_graph_float_ops(gm, i);
		/* node rows remember their op type, for --account-type */
		tl_row *r = cached_row(s, cache, key, e->gnode);
		tl_summary_vals_add(tl_summary_row_run(r, ri), &v);
		if (r->extra == NULL && (s->view == TL_VIEW_NODE || s->view == TL_VIEW_SCOPE))
			r->extra = tl_summary_arena_dup(
			    s, gm != NULL ? tl_summary_graph_op(gm, (uint32_t)gn) : e->op);
	}
	if (gm != NULL) {
		tl_summary_graph_rows(s, gm, ri);
	} else {
		add_params(s, run, ri);
		count_defined(s, run, cache);
	}
	tl_summary_graph_free(gm);
	if (cache != NULL)
		key_cache_free(cache);
	g_free(host_dev);
	g_free(accel);
	g_free(self);
}

void tl_summary_set_graph(tl_summary *s, const tl_graph_attach *g)
{
	if (s != NULL)
		s->graph = g;
}

void tl_summary_warn_kept_out(const tl_summary *s)
{
	if (s->kept_out_execs == 0)
		return;
	char *names = tl_summary_kept_out_names(s, 5);
	tl_warn("graph-kept-out",
		"%zu execution(s) of %u node(s) not in the graph kept out of the tables: %s",
		s->kept_out_execs, g_hash_table_size(s->kept_out), names);
	g_free(names);
}

static int cmp_kept(const void *a, const void *b, void *ctx)
{
	GHashTable *kept = ctx;
	const char *x = *(const char *const *)a, *y = *(const char *const *)b;
	size_t nx = GPOINTER_TO_SIZE(g_hash_table_lookup(kept, x));
	size_t ny = GPOINTER_TO_SIZE(g_hash_table_lookup(kept, y));
	if (nx != ny)
		return nx > ny ? -1 : 1;
	return strcmp(x, y);
}

char *tl_summary_kept_out_names(const tl_summary *s, size_t max)
{
	if (s->kept_out == NULL)
		return g_strdup("");
	guint n = 0;
	gpointer *names = g_hash_table_get_keys_as_array(s->kept_out, &n);
	if (n > 1)
		g_qsort_with_data(names, (gint)n, sizeof *names, cmp_kept, s->kept_out);
	GString *out = g_string_new(NULL);
	for (guint i = 0; i < n && i < max; i++)
		g_string_append_printf(out, "%s%s", i ? ", " : "", (const char *)names[i]);
	if (n > max)
		g_string_append(out, ", ...");
	g_free(names);
	return g_string_free(out, FALSE);
}

/* ---- rows and statistics ---------------------------------------------- */

GPtrArray *tl_summary_sorted_rows(const tl_summary *s)
{
	GPtrArray *rows = g_ptr_array_new();
	GHashTableIter it;
	gpointer k, v;
	g_hash_table_iter_init(&it, s->rows);
	while (g_hash_table_iter_next(&it, &k, &v))
		g_ptr_array_add(rows, v);
	tl_strsort(rows->pdata, rows->len, offsetof(tl_row, name));
	return rows;
}

void tl_summary_opts_init(tl_summary_opts *o)
{
	memset(o, 0, sizeof *o);
	o->select[0] = TL_COL_TOTAL;
	o->select[1] = TL_COL_ACCEL;
	o->select[2] = TL_COL_CPU;
	o->select[3] = TL_COL_OCCURRENCE;
	o->n_select = 4;
	o->order_by = TL_COL_TOTAL;
	o->step = -1;
	o->max_depth = 100;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return x < y ? -1 : (x > y);
}

/* A column of a row over the runs, as the chosen statistic. */
/* The value of a run's column, 0 when the row did not occur in it. */
static double run_value(const tl_row *r, size_t run, int col)
{
	const tl_summary_vals *v = tl_summary_row_vals(r, run);
	return v != NULL ? v->v[col] : 0;
}

/* The k-th smallest (from 0) of the row's values over n runs, of which
 * the m stored ones are sorted in x (the others count 0). */
static double kth(const double *x, size_t m, size_t n, size_t k)
{
	size_t neg = 0; /* stored values below the zeros of the runs not held */
	while (neg < m && x[neg] < 0)
		neg++;
	if (k < neg)
		return x[k];
	if (k < neg + (n - m))
		return 0;
	return x[k - (n - m)];
}

double tl_summary_row_stat(const tl_summary *s, const tl_row *r, int col, const tl_summary_opts *o)
{
	if (col == TL_COL_OCCURRENCE && o->occurrence_defined)
		return (double)r->defined;
	if (s->view == TL_VIEW_STEP) {
		/* a step row is one run: its own values, no statistic */
		for (uint32_t k = 0; k < r->n_vals; k++)
			if (r->vals[k].v[TL_COL_OCCURRENCE] > 0)
				return r->vals[k].v[col];
		return 0;
	}
	size_t first = 0, n = s->n_runs;
	if (o->step >= 0) {
		first = (size_t)o->step;
		n = first < s->n_runs ? 1 : 0;
	}
	if (n == 0)
		return 0;
	/* Only the runs the row holds values for are read (the others are
	 * 0): in a stream of thousands of runs whose rows each occur in a
	 * few, a row costs its own runs, not the stream's. */
	size_t lo = MAX(first, r->first_run);
	size_t hi = MIN(first + n, (size_t)r->first_run + r->n_vals);
	size_t m = hi > lo ? hi - lo : 0;
	double out = 0, sum = 0;
	/* adding the 0 of a run not held leaves a sum as it was, so the sum
	 * is the same as over every run */
	for (size_t k = lo; k < lo + m; k++)
		sum += run_value(r, k, col);
	switch (o->stat) {
	case TL_STAT_AVG:
		out = sum / (double)n;
		break;
	case TL_STAT_FIRST:
		out = run_value(r, first, col);
		break;
	case TL_STAT_MIN:
	case TL_STAT_MAX:
	case TL_STAT_P50:
	case TL_STAT_P90: {
		double *x = g_new(double, m + 1);
		for (size_t i = 0; i < m; i++)
			x[i] = run_value(r, lo + i, col);
		qsort(x, m, sizeof *x, cmp_double);
		size_t k = o->stat == TL_STAT_MIN   ? 0
			   : o->stat == TL_STAT_MAX ? n - 1
			   : o->stat == TL_STAT_P50 ? (size_t)ceil(0.5 * (double)n) - 1
						    : (size_t)ceil(0.9 * (double)n) - 1;
		out = kth(x, m, n, k);
		g_free(x);
		break;
	}
	case TL_STAT_STDDEV: {
		/* every run in order: the sum of squares rounds differently
		 * when the runs not held are added elsewhere */
		double mean = sum / (double)n, ss = 0;
		for (size_t i = 0; i < n; i++) {
			double d = run_value(r, first + i, col) - mean;
			ss += d * d;
		}
		out = sqrt(ss / (double)n);
		break;
	}
	}
	/* params and defined counts do not vary by run */
	if (col == TL_COL_PARAMS && o->stat == TL_STAT_STDDEV)
		out = 0;
	return out;
}

void tl_summary_row_stats(const tl_summary *s, const tl_row *r, const tl_summary_opts *o,
			  double *v)
{
	size_t n = s->n_runs;
	if (o->stat != TL_STAT_AVG || o->step >= 0 || s->view == TL_VIEW_STEP || n == 0) {
		for (int c = 0; c < TL_N_COLS; c++)
			v[c] = tl_summary_row_stat(s, r, c, o);
		return;
	}
	/* the runs the row holds, each column summed in run order as
	 * tl_summary_row_stat sums it, then divided by every run */
	for (int c = 0; c < TL_N_COLS; c++)
		v[c] = 0;
	size_t held = r->first_run < n ? MIN((size_t)r->n_vals, n - r->first_run) : 0;
	for (size_t k = 0; k < held; k++) {
		const tl_summary_vals *x = &r->vals[k];
		for (int c = 0; c < TL_N_COLS; c++)
			v[c] += x->v[c];
	}
	for (int c = 0; c < TL_N_COLS; c++)
		v[c] /= (double)n;
	if (o->occurrence_defined)
		v[TL_COL_OCCURRENCE] = (double)r->defined;
}

/* ---- the flat table ---------------------------------------------------- */

bool tl_summary_name_passes(const tl_summary_opts *o, const tl_row *r)
{
	if (o->show != NULL && !g_regex_match(o->show, r->name, 0, NULL))
		return false;
	if (o->hide != NULL && g_regex_match(o->hide, r->name, 0, NULL))
		return false;
	if (o->account_type != NULL &&
	    !g_regex_match(o->account_type, r->extra != NULL ? r->extra : r->name, 0, NULL))
		return false;
	return true;
}

int tl_summary_step_known(const tl_summary *s, const tl_summary_opts *o, tl_error *err)
{
	if (o->step < 0 || (size_t)o->step < s->n_runs)
		return 0;
	return tl_error_set(err, "run %d (--step) is not in the input: it has %zu run%s%s%zu",
			    o->step, s->n_runs, s->n_runs == 1 ? "" : "s",
			    s->n_runs > 0 ? ", numbered 0 to " : "", s->n_runs > 0 ? s->n_runs - 1 : 0);
}

/* A row of the table: its name passes, and in the step view (a row per
 * run) it is --step's run where one is named. */
static bool row_shown(const tl_summary *s, const tl_summary_opts *o, const tl_row *r)
{
	if (s->view == TL_VIEW_STEP && o->step >= 0 &&
	    ((size_t)o->step < r->first_run || (size_t)o->step >= (size_t)r->first_run + r->n_vals))
		return false;
	return tl_summary_name_passes(o, r);
}

bool tl_summary_values_pass(const tl_summary_opts *o, const double *v)
{
	for (int c = 0; c < TL_N_COLS; c++)
		if (o->min[c] > 0 && v[c] < o->min[c])
			return false;
	return true;
}

static int cmp_line(const void *a, const void *b, void *ctx)
{
	const tl_summary_line *x = a, *y = b;
	int order_col = *(const int *)ctx;
	if (order_col >= 0 && x->v[order_col] != y->v[order_col])
		return x->v[order_col] > y->v[order_col] ? -1 : 1;
	return strcmp(x->row->name, y->row->name);
}

/* The first `keep` lines of the table, in its order (cmp_line: the value,
 * then the name, a whole order since names are unique), without sorting
 * every row by name or by value: a heap of the best `keep` lines so far,
 * its worst on top, then sorted. A row costs its statistics and a
 * comparison with the heap's top. Where an ordering value is NaN (which
 * no order holds: cmp_line then depends on the sort's steps) it gives up:
 * false, and f untouched. */
typedef struct line_heap {
	tl_summary_line *at; /* `cap` lines, the first n a heap */
	size_t n, cap;
	int order_col;
} line_heap;

static void heap_down(line_heap *h, size_t i)
{
	tl_summary_line x = h->at[i];
	for (;;) {
		size_t k = 2 * i + 1;
		if (k >= h->n)
			break;
		if (k + 1 < h->n && cmp_line(&h->at[k + 1], &h->at[k], &h->order_col) > 0)
			k++;
		if (cmp_line(&h->at[k], &x, &h->order_col) <= 0)
			break;
		h->at[i] = h->at[k];
		i = k;
	}
	h->at[i] = x;
}

static void heap_up(line_heap *h, size_t i)
{
	tl_summary_line x = h->at[i];
	while (i > 0) {
		size_t p = (i - 1) / 2;
		if (cmp_line(&h->at[p], &x, &h->order_col) >= 0)
			break;
		h->at[i] = h->at[p];
		i = p;
	}
	h->at[i] = x;
}

static bool flat_kept(tl_summary_flat *f, const tl_summary *s, const tl_summary_opts *o)
{
	size_t rows = g_hash_table_size(s->rows);
	line_heap h = {.cap = MIN(o->keep, rows), .order_col = o->order_by};
	h.at = g_new(tl_summary_line, h.cap ? h.cap : 1);
	double total[TL_N_COLS] = {0};
	size_t n_all = 0;
	GHashTableIter it;
	gpointer k, v;
	g_hash_table_iter_init(&it, s->rows);
	while (g_hash_table_iter_next(&it, &k, &v)) {
		tl_summary_line line = {.row = v};
		if (!row_shown(s, o, line.row))
			continue;
		tl_summary_row_stats(s, line.row, o, line.v);
		if (!o->displayed_only || tl_summary_values_pass(o, line.v))
			for (int c = 0; c < TL_N_COLS; c++)
				total[c] += line.v[c];
		if (!tl_summary_values_pass(o, line.v))
			continue;
		if (o->order_by >= 0 && isnan(line.v[o->order_by])) {
			g_free(h.at);
			return false;
		}
		n_all++;
		if (h.n < h.cap) {
			h.at[h.n++] = line;
			heap_up(&h, h.n - 1);
		} else if (h.n > 0 && cmp_line(&line, &h.at[0], &h.order_col) < 0) {
			h.at[0] = line;
			heap_down(&h, 0);
		}
	}
	if (h.n > 1)
		qsort_r(h.at, h.n, sizeof(tl_summary_line), cmp_line, (void *)&o->order_by);
	f->lines = h.at;
	f->n = h.n;
	f->n_all = n_all;
	memcpy(f->total, total, sizeof total);
	return true;
}

tl_summary_flat *tl_summary_flat_new(const tl_summary *s, const tl_summary_opts *o)
{
	tl_summary_flat *f = g_new0(tl_summary_flat, 1);
	f->share_col = o->order_by >= 0 ? o->order_by : o->select[0];
	if (s->nested && f->share_col == TL_COL_TOTAL)
		f->share_col = TL_COL_SELF;
	if (o->keep > 0 && o->keep < g_hash_table_size(s->rows) && flat_kept(f, s, o))
		return f;
	GPtrArray *rows = tl_summary_sorted_rows(s);
	GArray *shown = g_array_new(FALSE, FALSE, sizeof(tl_summary_line));
	for (guint i = 0; i < rows->len; i++) {
		tl_summary_line line = {.row = g_ptr_array_index(rows, i)};
		tl_summary_row_stats(s, line.row, o, line.v);
		if (!row_shown(s, o, line.row))
			continue;
		if (!o->displayed_only || tl_summary_values_pass(o, line.v))
			for (int c = 0; c < TL_N_COLS; c++)
				f->total[c] += line.v[c];
		if (!tl_summary_values_pass(o, line.v))
			continue;
		g_array_append_val(shown, line);
	}
	if (shown->len > 1)
		qsort_r(shown->data, shown->len, sizeof(tl_summary_line), cmp_line,
			(void *)&o->order_by);
	g_ptr_array_free(rows, TRUE);
	f->n = f->n_all = shown->len;
	f->lines = (tl_summary_line *)(void *)g_array_free(shown, FALSE);
	return f;
}

void tl_summary_flat_free(tl_summary_flat *f)
{
	if (f == NULL)
		return;
	g_free(f->lines);
	g_free(f);
}

void tl_summary_absorb(tl_summary *dst, tl_summary *src)
{
	size_t base = dst->n_runs;
	for (guint i = 0; i < src->run_labels->len; i++)
		g_ptr_array_add(dst->run_labels, g_strdup(g_ptr_array_index(src->run_labels, i)));
	dst->n_runs += src->n_runs;
	dst->have_graph |= src->have_graph;
	dst->have_memory |= src->have_memory;
	dst->from_chrome |= src->from_chrome;
	dst->nested |= src->nested;
	dst->have_device |= src->have_device;
	GHashTableIter it;
	gpointer k, v;
	if (src->kept_out != NULL) {
		g_hash_table_iter_init(&it, src->kept_out);
		while (g_hash_table_iter_next(&it, &k, &v))
			tl_summary_graph_keep_out(dst, k, GPOINTER_TO_SIZE(v));
	}
	g_hash_table_iter_init(&it, src->rows);
	while (g_hash_table_iter_next(&it, &k, &v)) {
		const tl_row *r = v;
		tl_row *d = tl_summary_row_get(dst, r->name);
		d->defined = d->defined > r->defined ? d->defined : r->defined;
		if (d->shape == NULL && r->shape != NULL)
			d->shape = g_strdup(r->shape);
		if (d->extra == NULL && r->extra != NULL)
			d->extra = tl_summary_arena_dup(dst, r->extra);
		for (uint32_t i = 0; i < r->n_vals; i++)
			*tl_summary_row_run(d, base + r->first_run + i) = r->vals[i];
	}
}

/* Where the inputs nest, total_micros alone misleads (a parent's time
 * counts again in each of its children): the default table shows
 * self_micros beside it and is ordered by it. */
static void fit_nested(tl_summary_opts *o, const tl_summary *s)
{
	if (!s->nested)
		return;
	if (!o->order_given)
		o->order_by = TL_COL_SELF;
	if (o->select_given)
		return;
	for (int k = 0; k < o->n_select; k++)
		if (o->select[k] == TL_COL_SELF)
			return;
	int at = 0;
	while (at < o->n_select && o->select[at] != TL_COL_TOTAL)
		at++;
	at = at < o->n_select ? at + 1 : 0;
	memmove(&o->select[at + 1], &o->select[at], (size_t)(o->n_select - at) * sizeof(int));
	o->select[at] = TL_COL_SELF;
	o->n_select++;
}

void tl_summary_opts_fit(tl_summary_opts *o, const tl_summary *s)
{
	int kept = 0;
	for (int k = 0; k < o->n_select; k++) {
		int c = o->select[k];
		bool needs_memory = c == TL_COL_REQUESTED || c == TL_COL_PEAK ||
				    c == TL_COL_RESIDUAL || c == TL_COL_OUTPUT;
		bool needs_graph = c == TL_COL_PARAMS || c == TL_COL_FLOPS;
		bool needs_kernels = c == TL_COL_ACCEL && !s->have_device;
		if (s->from_chrome && (needs_memory || needs_graph || needs_kernels)) {
			if (o->fit_quietly)
				continue;
			tl_warn("chrome-missing",
				"Chrome trace input has no %s data: column %s "
				"left out",
				needs_memory  ? "memory"
				: needs_graph ? "graph"
					      : "device (kernel, copy)",
				tl_summary_col_name(c));
			continue;
		}
		o->select[kept++] = c;
	}
	if (kept == 0)
		o->select[kept++] = TL_COL_TOTAL;
	o->n_select = kept;
	fit_nested(o, s);
}

int tl_summary_opts_select(tl_summary_opts *o, const char *list)
{
	char **parts = g_strsplit(list, ",", -1);
	int n = 0, rc = 0;
	for (char **p = parts; *p != NULL && rc == 0; p++) {
		int c = tl_summary_col_parse(g_strstrip(*p));
		if (c < 0)
			rc = -1;
		else if (n < TL_N_COLS)
			o->select[n++] = c;
	}
	g_strfreev(parts);
	if (rc < 0 || n == 0)
		return -1;
	o->n_select = n;
	o->select_given = true;
	return 0;
}

int tl_summary_opts_order(tl_summary_opts *o, const char *col)
{
	int c = strcmp(col, "name") == 0 ? -1 : tl_summary_col_parse(col);
	if (c < 0 && strcmp(col, "name") != 0)
		return -1;
	o->order_by = c;
	o->order_given = true;
	return 0;
}
