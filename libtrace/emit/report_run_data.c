/* report_run_data: one run's data for the page: its slices, arrows,
 * memory, tables, critical path, idle time and graph, as the page's JSON. */
#include "emit/report_internal.h"

#include "analysis/allocs.h"
#include "analysis/critical_path.h"
#include "analysis/dataflow.h"
#include "analysis/graphdot.h"
#include "analysis/idle.h"
#include "analysis/lanes.h"
#include "analysis/memory.h"
#include "analysis/memview.h"
#include "emit/dot.h"
#include "emit/json.h"
#include "emit/optrace.h"
#include "emit/summary.h"
#include "model/nametab.h"

#include <inttypes.h>
#include <stdio.h>
#include <string.h>

/* The run's strings, each once, index 0 being "". The run's own strings
 * repeat as pointers (every execution of a node points at one name), so a
 * table by pointer answers most lookups without reading the text; the
 * text is then hashed eight bytes at a time (model/nametab.h's hash) into
 * a table of the strings where they lie: the run's own (its arena outlives
 * the table) are not copied, only those made for the page are. A kernel's
 * name is its record's label up to "@@", which is not copied either (a
 * 100 MB dump's 52,000 names of 300 bytes were copied twice, into the
 * page's strings and into a name table's pool). */
typedef struct str_ref {
	const char *s;
	uint32_t len;
	uint32_t hash; /* tl_nametab_name's */
} str_ref;

/* A slot of the text table: a string's index + 1 (0: free) and its hash,
 * so that a probe reads the string only where the hashes agree. */
typedef struct text_slot {
	uint32_t id1;
	uint32_t hash;
} text_slot;

typedef struct strtab {
	const char **ptr; /* open addressing: the caller's pointers (NULL: free) */
	uint32_t *ptr_index;
	size_t ptr_mask, ptr_used;
	text_slot *text; /* open addressing by hash */
	size_t text_mask;
	GArray *strs; /* str_ref, by index */
	GStringChunk *chunk;
} strtab;

/* `expect`: about how many strings (the tables grow past it); the pointer
 * table starts small, as most lookups go through a graph node's cache. */
static void strtab_init(strtab *t, size_t expect)
{
	size_t n = 1024;
	t->ptr = g_new0(const char *, n);
	t->ptr_index = g_new(uint32_t, n);
	t->ptr_mask = n - 1;
	t->ptr_used = 0;
	size_t m = 16;
	while (m < expect * 2)
		m *= 2;
	t->text = g_new0(text_slot, m);
	t->text_mask = m - 1;
	t->strs = g_array_sized_new(FALSE, FALSE, sizeof(str_ref), (guint)expect);
	t->chunk = g_string_chunk_new(1 << 16);
	str_ref empty = {.s = "", .len = 0};
	g_array_append_val(t->strs, empty);
}

static void text_grow(strtab *t)
{
	size_t n = t->text_mask + 1;
	g_free(t->text);
	t->text = g_new0(text_slot, n * 2);
	t->text_mask = n * 2 - 1;
	const str_ref *r = (const str_ref *)(void *)t->strs->data;
	for (guint k = 1; k < t->strs->len; k++) {
		size_t i = r[k].hash & t->text_mask;
		while (t->text[i].id1 != 0)
			i = (i + 1) & t->text_mask;
		t->text[i] = (text_slot){.id1 = k + 1, .hash = r[k].hash};
	}
}

/* s[0..len), which need not outlive the call; or, `kept`, bytes of the
 * run, which outlive the table and are not copied. */
static uint32_t strtab_add(strtab *t, const char *s, size_t len, bool kept)
{
	if (s == NULL || len == 0)
		return 0;
	tl_name name = tl_nametab_name(s, len);
	const str_ref *r = (const str_ref *)(void *)t->strs->data;
	size_t i = name.hash & t->text_mask;
	for (; t->text[i].id1 != 0; i = (i + 1) & t->text_mask) {
		if (t->text[i].hash != name.hash)
			continue;
		const str_ref *x = &r[t->text[i].id1 - 1];
		if (x->len == name.len && memcmp(x->s, s, name.len) == 0)
			return t->text[i].id1 - 1;
	}
	uint32_t id = t->strs->len;
	str_ref add = {.s = s, .len = name.len, .hash = name.hash};
	if (!kept)
		add.s = g_string_chunk_insert_len(t->chunk, s, (gssize)name.len);
	g_array_append_val(t->strs, add);
	t->text[i] = (text_slot){.id1 = id + 1, .hash = name.hash};
	if ((size_t)t->strs->len * 2 > t->text_mask + 1)
		text_grow(t);
	return id;
}

static uint32_t strtab_of(strtab *t, const char *s)
{
	return s != NULL ? strtab_add(t, s, strlen(s), false) : 0;
}

/* A string of the run (which outlives the table). */
static uint32_t strtab_of_run(strtab *t, const char *s)
{
	return s != NULL ? strtab_add(t, s, strlen(s), true) : 0;
}

static size_t ptr_slot(const strtab *t, const char *s)
{
	uint64_t h = (uint64_t)(uintptr_t)s * UINT64_C(0x9E3779B97F4A7C15);
	return (size_t)(h >> 32) & t->ptr_mask;
}

static void ptr_grow(strtab *t)
{
	const char **old = t->ptr;
	uint32_t *old_index = t->ptr_index;
	size_t n = t->ptr_mask + 1;
	t->ptr = g_new0(const char *, n * 2);
	t->ptr_index = g_new(uint32_t, n * 2);
	t->ptr_mask = n * 2 - 1;
	for (size_t k = 0; k < n; k++) {
		if (old[k] == NULL)
			continue;
		size_t i = ptr_slot(t, old[k]);
		while (t->ptr[i] != NULL)
			i = (i + 1) & t->ptr_mask;
		t->ptr[i] = old[k];
		t->ptr_index[i] = old_index[k];
	}
	g_free(old);
	g_free(old_index);
}

/* The same for a string that lives as long as the table (the run's). */
static uint32_t strtab_of_kept(strtab *t, const char *s)
{
	if (s == NULL)
		return 0;
	size_t i = ptr_slot(t, s);
	for (; t->ptr[i] != NULL; i = (i + 1) & t->ptr_mask)
		if (t->ptr[i] == s)
			return t->ptr_index[i];
	uint32_t v = strtab_of_run(t, s);
	t->ptr[i] = s;
	t->ptr_index[i] = v;
	if (++t->ptr_used * 2 > t->ptr_mask)
		ptr_grow(t);
	return v;
}

static void strtab_free(strtab *t)
{
	g_free(t->ptr);
	g_free(t->ptr_index);
	g_free(t->text);
	g_array_free(t->strs, TRUE);
	g_string_chunk_free(t->chunk);
}

typedef struct node_str {
	const char *s;
	uint32_t id;
} node_str;

/* The run as the page draws it: rows (a lane of a device each, devices in
 * trace-dataflow's order) and slices (an execution each, by row, then
 * start). */
typedef struct layout {
	const tl_run *run;
	tl_lanes v;
	uint32_t *order; /* devices in display order */
	uint32_t n_order;
	uint32_t *row_first; /* per device: its first row */
	uint32_t n_rows;
	uint32_t *exec_of; /* per slice */
	int32_t *slice_of; /* per execution */
	int64_t *bytes;	   /* per slice: output bytes it allocated */
	strtab strings;
	node_str *node_name, *node_op; /* per graph node: its strings' last index */
} layout;

/* Each device's executions are in start order; a stable counting sort by
 * lane keeps that order within each row. */
static void layout_build(layout *l, const tl_run *run)
{
	size_t nd = run->n_devices ? run->n_devices : 1, ne = run->n_execs ? run->n_execs : 1;
	l->run = run;
	tl_lanes_build_flat(&l->v, run, TL_OPTIME_SCHEDULE);
	l->order = g_new(uint32_t, nd);
	l->n_order = tl_optrace_device_order(run, l->order);
	l->row_first = g_new0(uint32_t, nd);
	l->exec_of = g_new(uint32_t, ne);
	l->slice_of = g_new(int32_t, ne);
	l->bytes = g_new0(int64_t, ne);
	uint32_t row = 0, slice = 0;
	for (uint32_t k = 0; k < l->n_order; k++) {
		uint32_t d = l->order[k];
		const tl_device *dev = &run->devices[d];
		uint32_t lanes = l->v.n_lanes[d];
		l->row_first[d] = row;
		row += lanes;
		uint32_t *at = g_new0(uint32_t, (size_t)lanes + 1);
		for (uint32_t i = dev->first_exec; i < dev->first_exec + dev->n_exec; i++)
			at[l->v.lane[i] + 1]++;
		for (uint32_t j = 0; j < lanes; j++)
			at[j + 1] += at[j];
		for (uint32_t i = dev->first_exec; i < dev->first_exec + dev->n_exec; i++) {
			uint32_t s = slice + at[l->v.lane[i]]++;
			l->exec_of[s] = i;
			l->slice_of[i] = (int32_t)s;
		}
		slice += dev->n_exec;
		g_free(at);
	}
	l->n_rows = row;
	strtab_init(&l->strings, run->n_nodes + 1024);
	l->node_name = g_new0(node_str, run->n_nodes + 1);
	l->node_op = g_new0(node_str, run->n_nodes + 1);
}

static void layout_free(layout *l)
{
	strtab_free(&l->strings);
	g_free(l->node_name);
	g_free(l->node_op);
	g_free(l->bytes);
	g_free(l->slice_of);
	g_free(l->exec_of);
	g_free(l->row_first);
	g_free(l->order);
	tl_lanes_free(&l->v);
}

static int32_t slice_of(const layout *l, int32_t exec)
{
	return exec >= 0 ? l->slice_of[exec] : -1;
}

/* A time of the run (ns) as microseconds from its first record. */
static void rel_ns(tl_output *out, const layout *l, int64_t ns)
{
	tl_json_micros(out, ns - l->run->t_begin);
}

static const char *row_kind(const tl_device *d)
{
	switch (d->kind) {
	case TL_DEV_EXECUTOR:
		return strstr(d->name, "/host:") != NULL ? "host" : "executor";
	case TL_DEV_STREAM:
		return "stream";
	case TL_DEV_MEMCPY:
		return "memcpy";
	case TL_DEV_STREAM_ALL:
		return "stream-all";
	case TL_DEV_SYNC:
		return "pseudo";
	default:
		return "other";
	}
}

static void write_rows(tl_output *out, layout *l)
{
	const tl_run *run = l->run;
	char buf[512];
	tl_output_str(out, ",\n\"rows\":[");
	bool first = true;
	for (uint32_t k = 0; k < l->n_order; k++) {
		uint32_t d = l->order[k];
		const tl_device *dev = &run->devices[d];
		GHashTable *names = l->v.threaded[d] ? tl_optrace_thread_names(dev) : NULL;
		for (uint32_t lane = 0; lane < l->v.n_lanes[d]; lane++) {
			tl_output_str(out, first ? "\n{\"device\":" : ",\n{\"device\":");
			first = false;
			tl_report_string(out, dev->name);
			tl_output_str(out, ",\"track\":");
			tl_report_string(
			    out, tl_optrace_lane_name(run, &l->v, d, lane, names, buf, sizeof buf));
			tl_output_str(out, ",\"kind\":\"");
			tl_output_str(out, row_kind(dev));
			tl_output_str(out, "\"}");
		}
		if (names != NULL)
			g_hash_table_destroy(names);
	}
	tl_output_char(out, ']');
}

/* 0 op execution, 1 GPU kernel, 2 memcpy, 3 other */
static int slice_kind(const tl_device *d)
{
	switch (d->kind) {
	case TL_DEV_EXECUTOR:
	case TL_DEV_OTHER:
		return 0;
	case TL_DEV_STREAM:
	case TL_DEV_STREAM_ALL:
		return 1;
	case TL_DEV_MEMCPY:
		return 2;
	default:
		return 3;
	}
}

/* A string of an execution of graph node g, as the page's index: the
 * node's last answer when the execution points at the same string (a node
 * in a loop runs many times), else its text (a graph node's strings are
 * its own: the pointer table would only grow); without a node, the
 * pointer table. */
static uint32_t node_string(layout *l, node_str *cache, int32_t g, const char *s)
{
	if (g < 0)
		return strtab_of_kept(&l->strings, s);
	if (cache[g].s != s || s == NULL) {
		cache[g].s = s;
		cache[g].id = strtab_of_run(&l->strings, s);
	}
	return cache[g].id;
}

/* A tracer record's own strings are copies, one per record: the text is
 * looked up, never the pointer. */
static uint32_t record_string(layout *l, const char *s)
{
	return strtab_of_run(&l->strings, s);
}

/* What a slice shows: an op's node, a tracer record's kernel (its label
 * up to "@@"), else its node. */
static uint32_t slice_name(layout *l, const tl_exec *e)
{
	const tl_device *dev = &l->run->devices[e->device];
	const char *label = e->ns != NULL ? e->ns->timeline_label : NULL;
	if (slice_kind(dev) == 0)
		return node_string(l, l->node_name, e->gnode, e->node);
	if (label == NULL || label[0] == '\0')
		return record_string(l, e->node);
	const char *at = strstr(label, "@@");
	size_t len = at != NULL ? (size_t)(at - label) : strlen(label);
	return len > 0 ? strtab_add(&l->strings, label, len, true) : record_string(l, e->node);
}

/* An execution's op or node: through its graph node's cache for an op;
 * for a tracer record, its launcher's when they say the same (a kernel
 * names the node that launched it), else by text. */
static uint32_t exec_string(layout *l, const tl_exec *e, node_str *cache, const char *s)
{
	if (slice_kind(&l->run->devices[e->device]) == 0)
		return node_string(l, cache, e->gnode, s);
	if (e->launcher >= 0 && s != NULL) {
		const tl_exec *op = &l->run->execs[e->launcher];
		const char *same = cache == l->node_op ? op->op : op->node;
		if (same != NULL && slice_kind(&l->run->devices[op->device]) == 0 &&
		    strcmp(s, same) == 0)
			return node_string(l, cache, op->gnode, same);
	}
	return record_string(l, s);
}

enum { COL_ROW, COL_START, COL_DUR, COL_NAME, COL_OP, COL_NODE, COL_KIND, COL_BYTES, N_COLS };

static void slice_bytes(layout *l, const tl_memory *mem);

static void write_slice_col(tl_output *out, layout *l, int col, GString *buf)
{
	static const char *const keys[N_COLS] = {"row", "start", "dur",	 "name",
						 "op",	"node",	 "kind", "bytes"};
	const tl_run *run = l->run;
	tl_output_str(out, col == 0 ? "\"" : ",\n\"");
	tl_output_str(out, keys[col]);
	tl_output_str(out, "\":[");
	size_t n = run->n_execs;
	for (size_t s = 0; s < n; s++) {
		uint32_t i = l->exec_of[s];
		const tl_exec *e = &run->execs[i];
		if (s > 0)
			tl_output_char(out, ',');
		switch (col) {
		case COL_ROW:
			tl_output_uint(out, l->row_first[e->device] + l->v.lane[i]);
			break;
		case COL_START:
			rel_ns(out, l, l->v.start[i]);
			break;
		case COL_DUR:
			tl_json_micros(out, l->v.end[i] - l->v.start[i]);
			break;
		case COL_NAME:
			tl_output_uint(out, slice_name(l, e));
			break;
		case COL_OP:
			tl_output_uint(out, exec_string(l, e, l->node_op, e->op));
			break;
		case COL_NODE:
			tl_output_uint(out, exec_string(l, e, l->node_name, e->node));
			break;
		case COL_KIND:
			tl_output_int(out, slice_kind(&run->devices[e->device]));
			break;
		default:
			tl_output_int(out, l->bytes[s]);
		}
	}
	tl_output_char(out, ']');
}

/* Work on a thread of its own while the page is written; its warnings are
 * held in a log and told when it is joined, in order. */
typedef struct aside {
	GThread *thread; /* NULL: never started */
	tl_warn_log *log;
	void (*work)(void *ctx);
	void *ctx;
} aside;

static gpointer aside_run(gpointer p)
{
	aside *a = p;
	a->log = tl_warn_log_begin();
	a->work(a->ctx);
	tl_warn_log_end();
	return NULL;
}

/* `name`: the thread's, at most 15 characters (Linux keeps no more). */
static void aside_start(aside *a, const char *name, void (*work)(void *), void *ctx)
{
	*a = (aside){.work = work, .ctx = ctx};
	a->thread = g_thread_new(name, aside_run, a);
}

static void aside_join(aside *a)
{
	g_thread_join(a->thread);
	tl_warn_log_tell(a->log);
}

/* The memory analysis of the run, aside while the rows and slices are
 * written (which neither read nor grow the run's arena, as the analysis
 * does). */
typedef struct memory_job {
	const tl_run *run;
	tl_memory *mem;
	aside bg;
} memory_job;

static void memory_build(void *p)
{
	memory_job *j = p;
	j->mem = tl_memory_build(j->run);
}

static tl_memory *memory_join(memory_job *j)
{
	aside_join(&j->bg);
	return j->mem;
}

/* The columns, bytes last: it waits for the memory analysis. */
static tl_memory *write_slices(tl_output *out, layout *l, memory_job *mj)
{
	GString *buf = g_string_new(NULL);
	tl_output_str(out, ",\n\"slices\":{");
	for (int c = 0; c < COL_BYTES; c++)
		write_slice_col(out, l, c, buf);
	tl_memory *mem = memory_join(mj);
	slice_bytes(l, mem);
	write_slice_col(out, l, COL_BYTES, buf);
	tl_output_char(out, '}');
	g_string_free(buf, TRUE);
	return mem;
}

/* The tensor an arrow carries, as trace-dataflow names it: a node's first
 * output and a launch are the node's own name. */
static uint32_t arrow_tensor(layout *l, const tl_link *k, char *buf, size_t size)
{
	const tl_exec *src = &l->run->execs[k->src];
	if ((k->kind == TL_LINK_DATA && k->src_port == 0) || k->kind == TL_LINK_LAUNCH)
		return exec_string(l, src, l->node_name, src->node);
	tl_optrace_flow_name(l->run, k, buf, size);
	return strtab_of(&l->strings, buf);
}

/* The arrows trace-dataflow draws by default: data, transfers, launches. */
static size_t write_arrows(tl_output *out, layout *l)
{
	const tl_run *run = l->run;
	tl_dataflow_opts fo = {.control = false, .launches = true};
	GArray *links = g_array_new(FALSE, FALSE, sizeof(tl_link));
	tl_dataflow_links(run, &fo, links);
	char buf[512];
	static const char *const keys[] = {"from", "to", "kind"};
	tl_output_str(out, ",\n\"arrows\":{");
	for (int c = 0; c < 4; c++) {
		tl_output_str(out, c == 0 ? "\"" : ",\n\"");
		tl_output_str(out, c < 3 ? keys[c] : "tensor");
		tl_output_str(out, "\":[");
		for (guint j = 0; j < links->len; j++) {
			const tl_link *k = &g_array_index(links, tl_link, j);
			if (j > 0)
				tl_output_char(out, ',');
			if (c == 0)
				tl_output_int(out, l->slice_of[k->src]);
			else if (c == 1)
				tl_output_int(out, l->slice_of[k->dst]);
			else if (c == 2)
				tl_output_int(out, k->kind == TL_LINK_TRANSFER ? 1
						   : k->kind == TL_LINK_LAUNCH ? 2
									       : 0);
			else
				tl_output_uint(out, arrow_tensor(l, k, buf, sizeof buf));
		}
		tl_output_char(out, ']');
	}
	tl_output_char(out, '}');
	size_t n = links->len;
	g_array_free(links, TRUE);
	return n;
}

/* ---- memory ----------------------------------------------------------- */

/* Each slice's output bytes: the output buffers its execution allocated,
 * as the memory analysis rebuilt them (an alias is not counted twice). */
static void slice_bytes(layout *l, const tl_memory *mem)
{
	for (size_t b = 0; b < mem->n_buffers; b++) {
		const tl_buffer *buf = &mem->buffers[b];
		if (buf->kind == TL_BUF_OUTPUT && buf->producer >= 0)
			l->bytes[l->slice_of[buf->producer]] += buf->allocated;
	}
}

/* Each allocator's own number in the dump: the largest
 * allocator_bytes_in_use its executions' AllocatorMemoryUsed records (what
 * the curve is checked against), in one pass over the run: allocator name
 * -> int64_t * (g_free'd by the table). */
static GHashTable *reported_peaks(const tl_run *run)
{
	GHashTable *peaks = g_hash_table_new_full(g_str_hash, g_str_equal, NULL, g_free);
	/* the record before's allocator first: a run has a few allocators,
	 * and records of one follow each other */
	const char *last = NULL;
	int64_t *last_peak = NULL;
	for (size_t i = 0; i < run->n_execs; i++) {
		const Tensorflow__NodeExecStats *ns = run->execs[i].ns;
		for (size_t m = 0; ns != NULL && m < ns->n_memory; m++) {
			const Tensorflow__AllocatorMemoryUsed *mu = ns->memory[m];
			if (mu->allocator_name == NULL || mu->allocator_bytes_in_use <= 0)
				continue;
			int64_t *peak = last_peak;
			if (last == NULL || strcmp(last, mu->allocator_name) != 0) {
				peak = g_hash_table_lookup(peaks, mu->allocator_name);
				if (peak == NULL) {
					peak = g_new0(int64_t, 1);
					g_hash_table_insert(peaks, mu->allocator_name, peak);
				}
				last = mu->allocator_name;
				last_peak = peak;
			}
			if (mu->allocator_bytes_in_use > *peak)
				*peak = mu->allocator_bytes_in_use;
		}
	}
	return peaks;
}

/* The executions of each name, by start: for the slice an allocator
 * event's op names. Only the names the live lists ask for (a few hundred
 * blocks per allocator) are indexed, not every execution's. */
typedef struct op_index {
	GHashTable *by_name; /* node name -> GArray of uint32_t executions */
} op_index;

static int cmp_exec_start(const void *a, const void *b, void *ctx)
{
	const tl_run *run = ctx;
	int64_t x = run->execs[*(const uint32_t *)a].start,
		y = run->execs[*(const uint32_t *)b].start;
	return (x > y) - (x < y);
}

static void free_list(gpointer p)
{
	g_array_free(p, TRUE);
}

/* A name a live block will look up, with an empty list. */
static void op_index_want(op_index *ix, const char *name)
{
	if (name != NULL && !g_hash_table_contains(ix->by_name, name))
		g_hash_table_insert(ix->by_name, (gpointer)name,
				    g_array_new(FALSE, FALSE, sizeof(uint32_t)));
}

/* The names the event blocks listed live at each allocator's peak (as
 * write_live lists them) were allocated and freed in, then their
 * executions. */
static void op_index_build(op_index *ix, const tl_run *run, const tl_memview *v, size_t max_live)
{
	ix->by_name = g_hash_table_new_full(g_str_hash, g_str_equal, NULL, free_list);
	tl_memview_block b;
	for (size_t k = 0; k < v->n_allocators; k++) {
		const tl_memview_allocator *a = &v->allocators[k];
		size_t n = max_live > 0 && a->n_live > max_live ? max_live : a->n_live;
		for (size_t j = 0; j < n && a->n_curve > 0; j++) {
			tl_memview_block_get(v, a->live[j], &b);
			if (b.buffer != NULL)
				continue;
			if (b.alloc_ns != TL_MEMVIEW_BEFORE)
				op_index_want(ix, b.op);
			if (b.free_ns != TL_MEMVIEW_NEVER)
				op_index_want(ix, b.free_op);
		}
	}
	if (g_hash_table_size(ix->by_name) == 0)
		return;
	for (uint32_t i = 0; i < run->n_execs; i++) {
		const char *name = run->execs[i].node;
		GArray *list = name != NULL ? g_hash_table_lookup(ix->by_name, name) : NULL;
		if (list != NULL)
			g_array_append_val(list, i);
	}
	GHashTableIter it;
	gpointer list;
	g_hash_table_iter_init(&it, ix->by_name);
	while (g_hash_table_iter_next(&it, NULL, &list))
		g_array_sort_with_data(list, cmp_exec_start, (gpointer)run);
}

/* The slice of an execution of `name` running at t: the latest to start
 * of those that cover t (the innermost where they nest); where none does
 * (a profiler records an op's allocation just before the op's own event),
 * the first to start after t for an allocation (`after`), the last to end
 * before it for a free; -1 when there is none. */
static int32_t op_slice_at(const op_index *ix, const layout *l, const char *name, int64_t t,
			   bool after)
{
	GArray *list = name != NULL ? g_hash_table_lookup(ix->by_name, name) : NULL;
	if (list == NULL)
		return -1;
	const uint32_t *x = (const uint32_t *)(void *)list->data;
	size_t lo = 0, hi = list->len;
	while (lo < hi) { /* the first to start after t */
		size_t mid = lo + (hi - lo) / 2;
		if (l->run->execs[x[mid]].start <= t)
			lo = mid + 1;
		else
			hi = mid;
	}
	int64_t best_end = INT64_MIN;
	int32_t before = -1;
	for (size_t k = lo; k > 0; k--) {
		const tl_exec *e = &l->run->execs[x[k - 1]];
		if (e->end >= t)
			return l->slice_of[x[k - 1]];
		if (e->end > best_end) {
			best_end = e->end;
			before = l->slice_of[x[k - 1]];
		}
	}
	if (after)
		return lo < list->len ? l->slice_of[x[lo]] : -1;
	return before;
}

/* The slices a block was allocated and freed in: a buffer's producer and
 * last consumer; an event block's ops, by name and time. */
static void block_slices(const layout *l, const op_index *ix, const tl_memview_block *b,
			 int32_t *from, int32_t *to)
{
	if (b->buffer != NULL) {
		*from = slice_of(l, b->buffer->producer);
		*to = slice_of(l, b->buffer->last_user);
		return;
	}
	*from = b->alloc_ns == TL_MEMVIEW_BEFORE ? -1 : op_slice_at(ix, l, b->op, b->alloc_ns, true);
	*to = b->free_ns == TL_MEMVIEW_NEVER ? -1 : op_slice_at(ix, l, b->free_op, b->free_ns, false);
}

/* What the memory tab calls a block: a buffer's tensor; "OP @0xADDR" for
 * an event block. */
static const char *block_name(const tl_memview_block *b, char *buf, size_t size)
{
	if (b->buffer != NULL)
		return b->buffer->n_refs > 0 ? b->name : b->buffer->name;
	if (b->op != NULL)
		snprintf(buf, size, "%s @0x%" PRIx64, b->op, b->addr);
	else
		snprintf(buf, size, "@0x%" PRIx64, b->addr);
	return buf;
}

static void write_live(tl_output *out, const layout *l, const op_index *ix, const tl_memview *v,
		       const tl_memview_allocator *a, size_t max)
{
	size_t n = max > 0 && a->n_live > max ? max : a->n_live;
	tl_output_str(out, ",\"live\":[");
	char name[512];
	tl_memview_block b;
	for (size_t k = 0; k < n; k++) {
		tl_memview_block_get(v, a->live[k], &b);
		int32_t from, to;
		block_slices(l, ix, &b, &from, &to);
		tl_output_str(out, k > 0 ? ",\n{\"tensor\":" : "\n{\"tensor\":");
		tl_report_string(out, block_name(&b, name, sizeof name));
		tl_output_str(out, ",\"bytes\":");
		tl_output_int(out, b.bytes);
		tl_output_str(out, ",\"producer\":");
		tl_output_int(out, from);
		tl_output_str(out, ",\"last_consumer\":");
		tl_output_int(out, to);
		tl_output_str(out, ",\"start_us\":");
		rel_ns(out, l, b.alloc_ns == TL_MEMVIEW_BEFORE ? v->start_ns : b.alloc_ns);
		tl_output_str(out, ",\"end_us\":");
		rel_ns(out, l, b.free_ns == TL_MEMVIEW_NEVER ? v->end_ns : b.free_ns);
		if (b.event != NULL) {
			tl_output_str(out, ",\"op\":");
			tl_report_string(out, b.op);
		}
		tl_output_char(out, '}');
	}
	tl_output_char(out, ']');
}

/* The band, where it has width: {"t":[...],"low":[...],"high":[...]}. */
static void write_band(tl_output *out, const layout *l, const tl_memview *v,
		       const tl_memview_allocator *a)
{
	if (!tl_memview_band_wide(v, a))
		return;
	static const char *const keys[] = {",\"band\":{\"t\":[", "],\"low\":[", "],\"high\":["};
	for (int part = 0; part < 3; part++) {
		tl_output_str(out, keys[part]);
		for (size_t i = 0; i < a->n_band; i++) {
			tl_memview_band_point p = tl_memview_band(v, a, i);
			if (i > 0)
				tl_output_char(out, ',');
			if (part == 0)
				rel_ns(out, l, p.t_ns == TL_MEMVIEW_BEFORE ? v->start_ns : p.t_ns);
			else
				tl_output_int(out, part == 1 ? p.low : p.high);
		}
	}
	tl_output_str(out, "],\"peak_range\":[");
	tl_output_int(out, a->peak_low);
	tl_output_char(out, ',');
	tl_output_int(out, a->peak_high);
	tl_output_str(out, "]}");
}

/* One allocator of the view, whatever its source: its in-use curve, its
 * band where it has width, its peak, the allocator's own peak where the
 * dump has it (RunMetadata: the largest allocator_bytes_in_use; events:
 * the largest total, which is then the peak) and the blocks live there. */
static void write_allocator(tl_output *out, const layout *l, const op_index *ix,
			    const tl_memview *v, const tl_memview_allocator *a, GHashTable *peaks,
			    size_t max_live)
{
	bool events = v->source == TL_MEMVIEW_EVENTS;
	tl_output_str(out, "{\"allocator\":");
	tl_report_string(out, a->name);
	tl_output_str(out, ",\"device\":");
	tl_report_string(out, a->device);
	tl_output_str(out, events ? ",\"from\":\"allocator events\",\"t\":[" : ",\"t\":[");
	for (size_t i = 0; i < a->n_curve; i++) {
		if (i > 0)
			tl_output_char(out, ',');
		int64_t t = tl_memview_curve(v, a, i).t_ns;
		rel_ns(out, l, t == TL_MEMVIEW_BEFORE ? v->start_ns : t);
	}
	tl_output_str(out, "],\"bytes\":[");
	for (size_t i = 0; i < a->n_curve; i++) {
		if (i > 0)
			tl_output_char(out, ',');
		tl_output_int(out, tl_memview_curve(v, a, i).bytes);
	}
	tl_output_char(out, ']');
	write_band(out, l, v, a);
	tl_output_str(out, ",\"peak_bytes\":");
	tl_output_int(out, a->peak_bytes);
	tl_output_str(out, ",\"peak_us\":");
	rel_ns(out, l, a->peak_ns);
	if (events) {
		tl_output_str(out, ",\"peak_op\":");
		tl_report_string(out, a->peak_op);
		tl_output_str(out, ",\"baseline_bytes\":");
		tl_output_int(out, a->baseline_bytes);
		tl_output_str(out, ",\"unattributed_bytes\":");
		tl_output_int(out, a->unheld_bytes);
	}
	tl_output_str(out, ",\"reported_peak_bytes\":");
	const int64_t *reported = peaks != NULL ? g_hash_table_lookup(peaks, a->name) : NULL;
	if (reported != NULL)
		tl_output_int(out, *reported);
	else if (events && a->peak_from_totals)
		tl_output_int(out, a->peak_bytes);
	else
		tl_output_str(out, "null");
	write_live(out, l, ix, v, a, max_live);
	tl_output_char(out, '}');
}

static void write_view(tl_output *out, const layout *l, const op_index *ix, const tl_memview *v,
		       GHashTable *peaks, size_t max_live, bool *first, tl_report_digest *dg)
{
	for (size_t k = 0; k < v->n_allocators; k++) {
		if (v->allocators[k].n_curve == 0)
			continue;
		if (v->allocators[k].peak_bytes > dg->peak_bytes) {
			dg->peak_bytes = v->allocators[k].peak_bytes;
			g_free(dg->peak_allocator);
			dg->peak_allocator = g_strdup(v->allocators[k].name);
		}
		tl_output_str(out, *first ? "\n" : ",\n");
		*first = false;
		write_allocator(out, l, ix, v, &v->allocators[k], peaks, max_live);
	}
}

/* The allocators of the run's RunMetadata, then those of its allocator
 * events (tl_run.allocs; the analysis warns as trace-memory does). */
static void write_memory(tl_output *out, const layout *l, const tl_memory *mem, size_t max_live,
			 tl_report_digest *dg)
{
	tl_output_str(out, ",\n\"memory\":[");
	GHashTable *peaks = reported_peaks(l->run);
	op_index ix = {NULL};
	bool first = true;
	tl_memview *v = tl_memview_from_memory(mem);
	write_view(out, l, &ix, v, peaks, max_live, &first, dg);
	tl_memview_free(v);
	g_hash_table_destroy(peaks);
	const tl_alloc_events *ev = l->run->allocs;
	if (ev != NULL && ev->n > 0) {
		tl_allocs *al = tl_allocs_build(ev, l->run->label);
		v = tl_memview_from_allocs(al);
		op_index_build(&ix, l->run, v, max_live);
		write_view(out, l, &ix, v, NULL, max_live, &first, dg);
		tl_memview_free(v);
		g_hash_table_destroy(ix.by_name);
		tl_allocs_free(al);
	}
	tl_output_char(out, ']');
}

/* ---- tables, critical path, idle -------------------------------------- */

static bool has_kernels(const tl_run *run)
{
	for (size_t d = 0; d < run->n_devices; d++)
		if (slice_kind(&run->devices[d]) == 1 && run->devices[d].n_exec > 0)
			return true;
	return false;
}

/* trace-summarize's op, kernel and scope views of the run, summed and
 * written out aside (into memory) while the timeline is written (the run
 * is only read), one after the other on one thread: each view's rows are
 * freed before the next is summed, whose rows then take the same memory
 * (two threads had both views' rows at once, and paid the kernel for
 * fresh pages for each). The views are claimed in order from a counter:
 * a view the thread has not begun when the main thread comes to wait for
 * the tables is summed there instead (the page's main work done, a core
 * is free: the devices bench shape's scope view, begun last, waited for
 * the kernel view's 0.3 s). The longest view is claimed first (by the
 * thread, which begins at once), so that the main thread, done with its
 * own work, takes the next longest rather than waiting for a long view
 * the thread began last (one-run's scope view, 0.25 s, began after its
 * kernel view). Each view's text is the same whichever thread sums it,
 * and its warnings are held in a log of its own, told in view order. */
typedef struct tables_job {
	const tl_run *run;
	size_t max_rows;
	tl_summary_view views[3];
	int n_views;
	int order[3];	     /* the views by their cost, the longest first */
	GString *text[3];    /* each view's table, or NULL: none */
	tl_warn_log *log[3]; /* each view's warnings, or NULL */
	tl_summary *op;	     /* the op view's sums, kept for the caller */
	gint next;	     /* the next place of `order` to claim (atomic) */
	aside bg;
} tables_job;

/* A view's cost, from what it sums: the op view a fifth of a microsecond
 * for each op execution, the scope view about 2.7 (its tree), the kernel
 * view about 3.6 for each kernel record (measured on the one-run and
 * devices bench shapes). */
static double view_cost(const tl_run *run, tl_summary_view view)
{
	size_t ops = 0, kernels = 0;
	for (size_t d = 0; d < run->n_devices; d++) {
		const tl_device *dev = &run->devices[d];
		if (slice_kind(dev) == 0)
			ops += dev->n_exec;
		else if (dev->kind == TL_DEV_STREAM)
			kernels += dev->n_exec;
	}
	switch (view) {
	case TL_VIEW_KERNEL:
		return 3.6 * (double)kernels;
	case TL_VIEW_SCOPE:
		return 2.7 * (double)ops;
	default:
		return 0.2 * (double)ops;
	}
}

/* Each view with trace-summarize's default columns; the kernel view only
 * where the run has kernels. */
static void tables_sum(void *p)
{
	tables_job *j = p;
	for (;;) {
		int at = g_atomic_int_add(&j->next, 1);
		if (at >= j->n_views)
			break;
		int k = j->order[at];
		if (j->views[k] == TL_VIEW_KERNEL && !has_kernels(j->run))
			continue;
		j->log[k] = tl_warn_log_begin();
		tl_output *out = tl_output_new_memory();
		tl_report_sink sink;
		tl_report_sink_init(&sink, j->max_rows);
		tl_summary *sum = tl_summary_new(j->views[k]);
		sum->times_only = true; /* the page shows no memory or float_ops */
		tl_summary_add_run(sum, j->run);
		tl_summary_opts o;
		tl_summary_opts_init(&o);
		o.fit_quietly = true;
		o.keep = j->max_rows; /* the rows the sink takes, the rest counted */
		tl_summary_opts_fit(&o, sum);
		tl_summary_write(sum, &o, &sink.sink, out);
		if (j->views[k] == TL_VIEW_OP)
			j->op = sum;
		else
			tl_summary_free(sum);
		j->text[k] = tl_output_take(out);
		tl_warn_log_end();
	}
}

static void tables_start(tables_job *j, const tl_run *run, size_t max_rows, int n_views,
			 const tl_summary_view *views)
{
	*j = (tables_job){.run = run, .max_rows = max_rows, .n_views = n_views};
	memcpy(j->views, views, (size_t)n_views * sizeof *views);
	double cost[3];
	for (int k = 0; k < n_views; k++) {
		cost[k] = view_cost(run, views[k]);
		/* insertion by cost, the longest first; ties in view order */
		int at = k;
		while (at > 0 && cost[j->order[at - 1]] < cost[k]) {
			j->order[at] = j->order[at - 1];
			at--;
		}
		j->order[at] = k;
	}
	aside_start(&j->bg, "tl-rep-tables", tables_sum, j);
}

static void write_table(tl_output *out, const char *key, const GString *text)
{
	tl_output_str(out, key);
	if (text == NULL) {
		tl_output_str(out, "null");
		return;
	}
	tl_output_bytes(out, text->str, text->len);
}

static void drop_table(GString *text)
{
	if (text != NULL)
		g_string_free(text, TRUE);
}

/* {"op": ..., "scope": ..., "kernel": ...} of the job's op, kernel and
 * scope views; the op table stays the caller's (the compact object writes
 * it again). */
static GString *write_tables(tl_output *out, tables_job *j)
{
	/* the views the thread has not claimed, here; every view's warnings
	 * told in view order, whichever thread summed it */
	tables_sum(j);
	aside_join(&j->bg);
	for (int k = 0; k < j->n_views; k++)
		tl_warn_log_tell(j->log[k]);
	write_table(out, ",\n\"tables\":{\"op\":", j->text[0]);
	write_table(out, ",\n\"scope\":", j->text[2]);
	write_table(out, ",\n\"kernel\":", j->text[1]);
	tl_output_char(out, '}');
	drop_table(j->text[2]);
	drop_table(j->text[1]);
	return j->text[0];
}

/* The run's critical path (tl_critical_path's n steps, freed here); the
 * path's length, or -1 without one. */
static int64_t write_critical_path(tl_output *out, const layout *l, tl_path_step *steps, size_t n)
{
	tl_output_str(out, ",\n\"critical_path\":");
	if (n == 0) {
		g_free(steps);
		tl_output_str(out, "null");
		return -1;
	}
	int64_t length = 0;
	tl_output_str(out, "{\"slices\":[");
	for (size_t i = 0; i < n; i++) {
		if (i > 0)
			tl_output_char(out, ',');
		tl_output_int(out, l->slice_of[steps[i].exec]);
		length += steps[i].wait_ns + steps[i].gated_ns;
	}
	tl_output_str(out, "],\"length_us\":");
	tl_json_micros(out, length);
	tl_output_char(out, '}');
	g_free(steps);
	return length;
}

static void write_idle(tl_output *out, const tl_run *run)
{
	tl_idle *idle = tl_idle_new(run, 0);
	tl_output_str(out, ",\n\"idle\":[");
	for (size_t k = 0; k < idle->n_devices; k++) {
		const tl_idle_device *d = &idle->devices[k];
		tl_output_str(out, k > 0 ? ",\n{\"device\":" : "\n{\"device\":");
		tl_report_string(out, run->devices[d->device].name);
		tl_output_str(out, ",\"busy_us\":");
		tl_json_micros(out, d->busy_ns);
		tl_output_str(out, ",\"idle_us\":");
		tl_json_micros(out, d->idle_ns);
		tl_output_printf(out, ",\"idle_fraction\":%.4f}",
				 idle->span_ns > 0 ? (double)d->idle_ns / (double)idle->span_ns
						   : 0.0);
	}
	tl_output_char(out, ']');
	tl_idle_free(idle);
}

/* ---- the graph -------------------------------------------------------- */

/* Graphviz's SVG from its <svg> element on, without the namespace
 * declarations (an <svg> inside HTML needs none, and the page holds no
 * URL). */
static const char *svg_element(GString *svg)
{
	static const char *const ns[] = {" xmlns=\"http://www.w3.org/2000/svg\"",
					 " xmlns:xlink=\"http://www.w3.org/1999/xlink\""};
	const char *at = strstr(svg->str, "<svg");
	if (at == NULL)
		return svg->str;
	const char *tag_end = strchr(at, '>');
	for (size_t k = 0; k < G_N_ELEMENTS(ns); k++) {
		char *p = strstr(at, ns[k]);
		if (p != NULL && (tag_end == NULL || p < tag_end)) {
			size_t len = strlen(ns[k]);
			memmove(p, p + len, strlen(p + len) + 1);
			tag_end = strchr(at, '>');
		}
	}
	return at;
}

/* The run's graph: as data always (emit/report_graph.c), for the page to
 * lay out and open scope by scope (graphview.js); and, when its layout
 * cost is within max_nodes (or max_nodes is 0), also graph-render -T svg
 * of every node, laid out by Graphviz (graphviz_draws). Above that the
 * page draws it: Graphviz's time grows faster than the nodes (a collapsed
 * picture of 200 scopes of a 6,000-node graph took it 0.8 s, a dump of
 * 2,200 devices 19 s, 200 nodes in 92 scope clusters 1 to 10 s), and the
 * page lays out a view of a few hundred nodes in milliseconds. Built from
 * the memory analysis the page already has, aside while the rest is
 * written (the picture has its own arena and only reads the run). */
typedef struct graph_job {
	const tl_run *run;
	const tl_memory *mem;
	size_t max_nodes;
	GString *svg;  /* or NULL: the page lays it out */
	GString *data; /* tl_report_graph_data */
	int rc;
	tl_error err;
	aside bg; /* bg.thread NULL: no graph drawn */
} graph_job;

/* The picture of the run, every node drawn (max_depth 0), or only its
 * top-level scopes (1): the data reads only what is per graph node, so
 * a graph the page lays out is built at depth 1, where its vertices and
 * edges are few, and without the edges' tensors, which only a drawn
 * picture labels (a second pass over the step stats). */
static int graph_build(graph_job *j, int max_depth, tl_graphdot **gd)
{
	tl_graphdot_opts go;
	tl_graphdot_opts_init(&go);
	go.max_nodes = 0;
	go.max_depth = max_depth;
	go.untyped_edges = max_depth > 0;
	go.memory = &j->mem;
	tl_run *const runs[] = {(tl_run *)j->run};
	return tl_graphdot_build(gd, runs, 1, &go, &j->err);
}

/* Whether Graphviz lays out the picture of every node (built at depth
 * 0): its layout cost, the nodes plus a node for each rank a long edge
 * crosses (dot lays out each bend as one), plus one for each partition
 * and scope cluster, is at most max_nodes (0: always). dot's time grows
 * about as the square of that sum, on this project's 2-core machine 0.05 s
 * at 400 (the default), 0.25 s at 1,000, 1 to 10 s at 2,000 to 5,000 (the
 * runs-1000 bench shape's first run: 213 nodes, 93 clusters, 4,944 for
 * the nodes and bends; 0.7 s), whatever the count of nodes alone; the page
 * lays out a view of a few hundred nodes in milliseconds. */
static bool graphviz_draws(const tl_graphdot_stats *st, size_t max_nodes)
{
	return max_nodes == 0 || st->layout_cost + st->clusters <= max_nodes;
}

static void graph_render(void *p)
{
	graph_job *j = p;
	bool whole = j->max_nodes == 0 || j->run->n_nodes <= j->max_nodes;
	tl_graphdot *gd = NULL;
	j->rc = graph_build(j, whole ? 0 : 1, &gd);
	if (j->rc < 0)
		return;
	if (!whole && tl_graphdot_get_stats(gd)->nodes <= j->max_nodes) {
		/* few nodes once _Send/_Recv pairs are edges */
		tl_graphdot_free(gd);
		whole = true;
		j->rc = graph_build(j, 0, &gd);
		if (j->rc < 0)
			return;
	}
	/* the data is the same at either depth (it reads only what is per
	 * graph node) */
	tl_output *data = tl_output_new_memory();
	tl_report_graph_data(data, gd, j->max_nodes);
	j->data = tl_output_take(data);
	if (whole && graphviz_draws(tl_graphdot_get_stats(gd), j->max_nodes))
		j->rc = tl_dot_render_string(gd, "svg", &j->svg, &j->err);
	tl_graphdot_free(gd);
}

/* Starts the graph's picture, unless there is none to draw. */
static void graph_start(graph_job *j, const tl_run *run, const tl_memory *mem,
			const tl_report_opts *o, bool draw)
{
	*j = (graph_job){.run = run, .mem = mem, .max_nodes = o->graph_max_nodes};
	if (draw && o->graph && run->n_nodes > 0)
		aside_start(&j->bg, "tl-rep-graph", graph_render, j);
}

/* The picture's value, {"svg": ..., "data": ...} or {"data": ...}, when
 * one was drawn. */
static int write_graph(tl_output *out, graph_job *j, tl_error *err)
{
	if (j->bg.thread == NULL)
		return 0;
	aside_join(&j->bg);
	if (j->rc < 0) {
		*err = j->err;
		if (j->svg != NULL)
			g_string_free(j->svg, TRUE);
		if (j->data != NULL)
			g_string_free(j->data, TRUE);
		return -1;
	}
	tl_output_char(out, '{');
	if (j->svg != NULL) {
		tl_output_str(out, "\"svg\":");
		tl_report_string(out, svg_element(j->svg));
		tl_output_str(out, ",\n");
		g_string_free(j->svg, TRUE);
	}
	tl_output_str(out, "\"data\":");
	tl_output_bytes(out, j->data->str, j->data->len);
	tl_output_char(out, '}');
	g_string_free(j->data, TRUE);
	return 0;
}

static void write_strings(tl_output *out, const layout *l)
{
	tl_output_str(out, ",\n\"strings\":[");
	const str_ref *r = (const str_ref *)(void *)l->strings.strs->data;
	for (guint i = 0; i < l->strings.strs->len; i++) {
		if (i > 0)
			tl_output_str(out, i % 8 == 0 ? ",\n" : ",");
		tl_json_string_script(out, r[i].s, r[i].len);
	}
	tl_output_char(out, ']');
}

static void write_head(tl_output *out, const tl_run *run)
{
	tl_output_str(out, "{\"label\":");
	tl_report_string(out, run->label);
	tl_output_str(out, ",\"origin_us\":");
	tl_json_micros(out, run->t_begin);
	tl_output_str(out, ",\"duration_us\":");
	tl_json_micros(out, run->t_end - run->t_begin);
}

/* The run without its timeline: its op table and idle time. */
static void write_compact(tl_output *out, const tl_run *run, const GString *op_table,
			  const GString *idle)
{
	write_head(out, run);
	tl_output_str(out, ",\"timeline\":false");
	write_table(out, ",\n\"tables\":{\"op\":", op_table);
	tl_output_str(out, ",\"scope\":null,\"kernel\":null}");
	tl_output_bytes(out, idle->str, idle->len);
}

static void piece_end(const tl_output *out, uint64_t *piece)
{
	piece[1] = tl_output_tell(out) - piece[0];
}

/* The largest allocator peak of a memory view into the digest, as
 * write_view finds it. */
static void view_peak(const tl_memview *v, tl_report_digest *dg)
{
	for (size_t k = 0; k < v->n_allocators; k++) {
		if (v->allocators[k].n_curve == 0 || v->allocators[k].peak_bytes <= dg->peak_bytes)
			continue;
		dg->peak_bytes = v->allocators[k].peak_bytes;
		g_free(dg->peak_allocator);
		dg->peak_allocator = g_strdup(v->allocators[k].name);
	}
}

/* A run whose timeline the page will not hold (--runs named others): its
 * digest (the same counts, path length and peak the timeline's writing
 * finds), its graph where it is drawn, and its compact object; no full
 * or tail piece (both left empty), no scope or kernel table. */
static int report_compact(tl_output *out, const tl_run *run, const tl_report_opts *o,
			  bool draw_graph, tl_report_pieces *at, tl_report_digest *dg,
			  tl_error *err)
{
	tables_job op;
	static const tl_summary_view op_view[] = {TL_VIEW_OP};
	tables_start(&op, run, o->table_rows, 1, op_view);
	memory_job memory = {.run = run};
	aside_start(&memory.bg, "tl-rep-memory", memory_build, &memory);
	*dg = (tl_report_digest){
	    .duration_ns = run->t_end - run->t_begin, .slices = run->n_execs, .peak_bytes = -1};
	memset(at, 0, sizeof *at);
	tl_dataflow_opts fo = {.control = false, .launches = true};
	GArray *links = g_array_new(FALSE, FALSE, sizeof(tl_link));
	tl_dataflow_links(run, &fo, links);
	dg->arrows = links->len;
	g_array_free(links, TRUE);
	tl_path_step *steps = NULL;
	size_t n = tl_critical_path(run, &steps);
	dg->critical_ns = n == 0 ? -1 : 0;
	for (size_t i = 0; i < n; i++)
		dg->critical_ns += steps[i].wait_ns + steps[i].gated_ns;
	g_free(steps);
	tl_memory *mem = memory_join(&memory);
	graph_job graph;
	graph_start(&graph, run, mem, o, draw_graph);
	tl_memview *v = tl_memview_from_memory(mem);
	view_peak(v, dg);
	tl_memview_free(v);
	const tl_alloc_events *ev = run->allocs;
	if (ev != NULL && ev->n > 0) {
		tl_allocs *al = tl_allocs_build(ev, run->label);
		v = tl_memview_from_allocs(al);
		view_peak(v, dg);
		tl_memview_free(v);
		tl_allocs_free(al);
	}
	tl_output *idle_out = tl_output_new_memory();
	write_idle(idle_out, run);
	GString *idle = tl_output_take(idle_out);
	aside_join(&op.bg);
	tl_warn_log_tell(op.log[0]);
	dg->ops = op.op;
	at->graph[0] = tl_output_tell(out);
	int rc = write_graph(out, &graph, err);
	piece_end(out, at->graph);
	tl_memory_free(mem);
	at->compact[0] = tl_output_tell(out);
	write_compact(out, run, op.text[0], idle);
	piece_end(out, at->compact);
	drop_table(op.text[0]);
	g_string_free(idle, TRUE);
	return rc;
}

int tl_report_run(tl_output *out, const tl_run *run, const tl_report_opts *o, bool draw_graph,
		  bool timeline, tl_report_pieces *at, tl_report_digest *dg, tl_error *err)
{
	if (!timeline)
		return report_compact(out, run, o, draw_graph, at, dg, err);
	tables_job tables;
	static const tl_summary_view views[] = {TL_VIEW_OP, TL_VIEW_KERNEL, TL_VIEW_SCOPE};
	tables_start(&tables, run, o->table_rows, 3, views);
	memory_job memory = {.run = run};
	aside_start(&memory.bg, "tl-rep-memory", memory_build, &memory);
	layout l;
	layout_build(&l, run);
	*dg = (tl_report_digest){
	    .duration_ns = run->t_end - run->t_begin, .slices = run->n_execs, .peak_bytes = -1};
	at->full[0] = tl_output_tell(out);
	write_head(out, run);
	write_rows(out, &l);
	tl_memory *mem = write_slices(out, &l, &memory);
	graph_job graph;
	graph_start(&graph, run, mem, o, draw_graph);
	dg->arrows = write_arrows(out, &l);
	write_memory(out, &l, mem, o->max_live, dg);
	piece_end(out, at->full);
	/* What needs no table is done before the tables are waited for (they
	 * take the longest aside): the strings are all known once the
	 * slices and arrows are written, and go first into the scratch. */
	at->tail[0] = tl_output_tell(out);
	write_strings(out, &l);
	tl_output_char(out, '}');
	piece_end(out, at->tail);
	tl_path_step *steps = NULL;
	size_t n_steps = tl_critical_path(run, &steps);
	tl_output *idle_out = tl_output_new_memory();
	write_idle(idle_out, run);
	GString *idle = tl_output_take(idle_out);
	at->rest[0] = tl_output_tell(out);
	GString *op_table = write_tables(out, &tables);
	dg->ops = tables.op;
	dg->critical_ns = write_critical_path(out, &l, steps, n_steps);
	tl_output_bytes(out, idle->str, idle->len);
	piece_end(out, at->rest);
	at->graph[0] = tl_output_tell(out);
	int rc = write_graph(out, &graph, err);
	piece_end(out, at->graph);
	tl_memory_free(mem);
	at->compact[0] = tl_output_tell(out);
	write_compact(out, run, op_table, idle);
	piece_end(out, at->compact);
	drop_table(op_table);
	g_string_free(idle, TRUE);
	layout_free(&l);
	return rc;
}
