/* A Chrome trace as one RunMetadata (io/chrome_run.h). One pass with the
 * streaming reader collects processes, threads, slices and flow points
 * (names may come after the events: Kineto writes them last); devices,
 * threads and links are decided at the end. */
#include "io/chrome_run.h"

#include "base/limits.h"
#include "io/chrome_ids.h"
#include "io/chrome_kind.h"
#include "io/chrome_reader.h"
#include "io/format.h"
#include "io/format_internal.h"
#include "io/kineto_memory.h"
#include "io/tf2names.h"

#include <glib.h>
#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

enum role { R_NONE = 0, R_LAUNCH, R_DEVICE };

/* Where a thread went: its device, and its thread_id there (1..). */
typedef struct cplace {
	uint32_t dev;
	uint32_t id;
	bool placed;
} cplace;

typedef struct cslice {
	int64_t start, end;
	uint32_t thread;
	uint8_t role;
	bool catless; /* no cat: a TF2 trace viewer event, told by its thread */
	bool has_corr;
	int64_t corr;
	const char *name;   /* the event's name (arena) */
	const char *node;   /* args name, or the node of a "node:Op"; NULL */
	const char *op;	    /* args op, or the op of a "node:Op"; NULL */
	const char *inputs; /* timeline.py's inputN args joined by ", "; NULL */
	uint8_t kind;	    /* what its cat says (tl_chrome_kind_of_cat) */
} cslice;

typedef struct cflow {
	char *key; /* id and cat */
	int64_t ts;
	uint32_t thread;
	uint32_t order;
	bool enclosing; /* binds to the slice around it (s, bp "e") */
} cflow;

typedef struct cdev {
	const char *name;
	uint32_t n_exec;
	uint32_t n_threads;
	bool tracer;
} cdev;

typedef struct counts {
	size_t bad_time, unmatched_end, unclosed_begin;
} counts;

/* A cuda_sync slice's args as read (correlations, not yet records). */
typedef struct csync {
	uint32_t slice;
	uint8_t kind;
	int64_t corr, stream, wait_stream, wait_corr; /* -1: absent */
} csync;

typedef struct creader {
	tl_arena *arena;
	GArray *syncs; /* csync */
	tl_chrome_ids ids;
	cplace *place; /* per slot (slot_of), made when the devices are decided */
	long *kstream; /* per thread of ids: its Kineto GPU stream, or -1 */
	GArray *slices, *flows;
	GHashTable *open_b; /* thread index + 1 -> GArray of cslice (a B stack) */
	GString *buf, *buf2;
	GHashTable *names;  /* an event name -> its one copy in the arena */
	GHashTable *labels; /* such a copy -> its label "name = name()" */
	counts c;
	int64_t origin; /* earliest ts of any event but metadata, as kineto_memory reads it */
	bool has_origin;
	bool tf1;
} creader;

/* ---- reading ---------------------------------------------------------- */

static json_t *args_of(const tl_chrome_in_event *ev)
{
	json_error_t jerr;
	return ev->args.len ? json_loadb(ev->raw + ev->args.off, ev->args.len, 0, &jerr) : NULL;
}

/* process_name (timeline.py's "<device> Compute" marks the file),
 * process_labels, thread_name */
static void read_meta(creader *c, const tl_chrome_in_event *ev)
{
	int64_t named = tl_chrome_ids_meta(&c->ids, ev);
	if (named >= 0 &&
	    ((const tl_chrome_proc *)g_ptr_array_index(c->ids.procs, (guint)named))->tf1)
		c->tf1 = true;
}

/* node and op of a "node:Op" text (up to a '#', as TF2's annotations). */
static bool split_tf_op(creader *c, const char *s, cslice *x)
{
	size_t node_len, op_len;
	const char *op;
	if (!tl_tf2_split_tf_op(s, &node_len, &op, &op_len))
		return false;
	x->node = tl_arena_strndup(c->arena, s, node_len);
	x->op = tl_arena_strndup(c->arena, op, op_len);
	return true;
}

/* The args keys read_args reads, as bits: which of them an event's args
 * text holds, in one pass over its quotes (most events hold none). */
enum { K_NAME = 1, K_OP = 2, K_LONG_NAME = 4, K_ANNOTATION = 8, K_TF_OP = 16, K_CORR = 32 };
static const char *const arg_keys[] = {"\"name\"", "\"op\"", "\"long_name\"", "\"annotation\"",
				       "\"" TL_TF2_STAT_TF_OP "\""};

static bool text_is(const char *p, const char *end, const char *lit, size_t n)
{
	return (size_t)(end - p) >= n && memcmp(p, lit, n) == 0;
}

#define TEXT_IS(p, end, lit) text_is(p, end, lit, sizeof lit - 1)

static unsigned args_keys(const tl_chrome_in_event *ev)
{
	const char *p = ev->raw + ev->args.off, *end = p + ev->args.len;
	unsigned keys = 0;
	while ((p = memchr(p, '"', (size_t)(end - p))) != NULL && p + 1 < end) {
		switch (p[1]) { /* arg_keys by their first letter */
		case 'n':
			keys |= TEXT_IS(p, end, "\"name\"") ? K_NAME : 0;
			break;
		case 'o':
			keys |= TEXT_IS(p, end, "\"op\"") ? K_OP : 0;
			break;
		case 'l':
			keys |= TEXT_IS(p, end, "\"long_name\"") ? K_LONG_NAME : 0;
			break;
		case 'a':
			keys |= TEXT_IS(p, end, "\"annotation\"") ? K_ANNOTATION : 0;
			break;
		case 't':
			keys |= TEXT_IS(p, end, "\"" TL_TF2_STAT_TF_OP "\"") ? K_TF_OP : 0;
			break;
		case 'c': /* "correlation" or "correlation_id" (io/tf2names.h) */
			keys |= TEXT_IS(p, end, "\"correlation") ? K_CORR : 0;
			break;
		default:
			break;
		}
		p++;
	}
	return keys;
}

/* A string arg of a flat args object with no escapes, in place: the value
 * after `quoted` (a key with its quotes) and ':'; false where it is none
 * or the text holds what only a parser reads (nesting, escapes). */
static bool flat_arg(const tl_chrome_in_event *ev, const char *quoted, const char **v, size_t *n)
{
	const char *a = ev->raw + ev->args.off, *end = a + ev->args.len;
	size_t kl = strlen(quoted);
	for (const char *p = a; (p = memmem(p, (size_t)(end - p), quoted, kl)) != NULL;) {
		const char *q = p + kl;
		while (q < end && (*q == ' ' || *q == '\t' || *q == '\n' || *q == '\r'))
			q++;
		if (q == end || *q != ':') {
			p = q;
			continue;
		}
		q++;
		while (q < end && (*q == ' ' || *q == '\t' || *q == '\n' || *q == '\r'))
			q++;
		if (q == end || *q != '"')
			return false;
		const char *close = memchr(q + 1, '"', (size_t)(end - q - 1));
		if (close == NULL || memchr(q + 1, '\\', (size_t)(close - q - 1)) != NULL)
			return false;
		*v = q + 1;
		*n = (size_t)(close - q - 1);
		return true;
	}
	return false;
}

/* TF2's node:Op of a flat args object (the keys in read_args' order), in
 * place; 1 found, 0 none, -1 a parser must read the args. */
static int tf2_node_op_flat(creader *c, const tl_chrome_in_event *ev, unsigned keys, cslice *x)
{
	const char *a = ev->raw + ev->args.off;
	if (memchr(a + 1, '{', ev->args.len - 1) != NULL || memchr(a, '[', ev->args.len) != NULL ||
	    memchr(a, '\\', ev->args.len) != NULL)
		return -1;
	static const unsigned order[] = {K_TF_OP, K_LONG_NAME, K_ANNOTATION};
	for (size_t i = 0; i < G_N_ELEMENTS(order); i++) {
		if (!(keys & order[i]))
			continue;
		size_t k = (size_t)__builtin_ctz(order[i]);
		const char *v;
		size_t n;
		if (!flat_arg(ev, arg_keys[k], &v, &n))
			continue;
		char *s = g_strndup(v, n);
		bool ok = split_tf_op(c, s, x);
		g_free(s);
		if (ok)
			return 1;
	}
	return 0;
}

/* What timeline.py's args (name, op, input0..) and TF2's (tf_op, long_name,
 * annotation: the first that is "node:Op", as the XSpace reader takes the
 * tf_op stat first) say of a slice. */
static void read_args(creader *c, const tl_chrome_in_event *ev, unsigned keys, cslice *x)
{
	if ((keys & ~(unsigned)K_CORR) == 0)
		return;
	/* TF2's kernels: their annotation or tf_op read in place */
	if (!(keys & (K_NAME | K_OP)) && tf2_node_op_flat(c, ev, keys, x) >= 0)
		return;
	json_t *a = args_of(ev);
	if (!json_is_object(a)) {
		json_decref(a);
		return;
	}
	const char *name = json_string_value(json_object_get(a, "name"));
	const char *op = json_string_value(json_object_get(a, "op"));
	if (name != NULL && op != NULL) {
		x->node = tl_arena_strdup(c->arena, name);
		x->op = tl_arena_strdup(c->arena, op);
		GString *in = g_string_new(NULL);
		for (int i = 0;; i++) {
			char key[24];
			snprintf(key, sizeof key, "input%d", i);
			const char *v = json_string_value(json_object_get(a, key));
			if (v == NULL)
				break;
			if (i > 0)
				g_string_append(in, ", ");
			g_string_append(in, v);
		}
		if (in->len > 0)
			x->inputs = tl_arena_strndup(c->arena, in->str, in->len);
		g_string_free(in, TRUE);
	} else if (!split_tf_op(c, json_string_value(json_object_get(a, TL_TF2_STAT_TF_OP)), x) &&
		   !split_tf_op(c, json_string_value(json_object_get(a, "long_name")), x)) {
		split_tf_op(c, json_string_value(json_object_get(a, "annotation")), x);
	}
	/* either alone names the node or the op all the same */
	if (x->node == NULL && name != NULL)
		x->node = tl_arena_strdup(c->arena, name);
	if (x->op == NULL && op != NULL)
		x->op = tl_arena_strdup(c->arena, op);
	json_decref(a);
}

/* ns of a ts or dur, from its digits (epoch microseconds with a fraction
 * are past a double); absent or no number is 0, as the reader's ts_us and
 * dur_us. False past the model's limit (base/limits.h), the one bound on a
 * time or a duration. */
static bool to_ns(const tl_chrome_in_event *ev, tl_span s, int64_t *out)
{
	int k = tl_chrome_reader_span_ns(ev, s, out);
	if (k == 0)
		*out = 0;
	return k >= 0;
}

static void add_slice(creader *c, cslice *x)
{
	g_array_append_val(c->slices, *x);
}

/* The role its cat gives a slice: a runtime call, a device slice. */
static uint8_t role_of(const tl_chrome_in_event *ev, GString *buf)
{
	if (ev->cat.len == 0)
		return R_NONE;
	switch (tl_kineto_cat_of(tl_chrome_reader_span_text(ev, ev->cat, buf))) {
	case TL_KINETO_DEVICE:
		return R_DEVICE;
	case TL_KINETO_LAUNCH:
		return R_LAUNCH;
	default:
		return R_NONE;
	}
}

/* The slice an X or B event opens (times unset). */
static cslice slice_of_event(creader *c, const tl_chrome_in_event *ev)
{
	cslice x = {.thread = tl_chrome_ids_thread(&c->ids, ev)};
	const char *name =
	    ev->name.len ? tl_chrome_reader_span_text(ev, ev->name, c->buf) : "unknown";
	x.name = g_hash_table_lookup(c->names, name);
	if (x.name == NULL) {
		x.name = tl_arena_strdup(c->arena, name);
		g_hash_table_add(c->names, (gpointer)x.name);
	}
	x.role = role_of(ev, c->buf);
	x.catless = ev->cat.len == 0;
	if (ev->cat.len > 0)
		x.kind = tl_chrome_kind_of_cat(tl_chrome_reader_span_text(ev, ev->cat, c->buf));
	if (ev->args.len > 0) {
		unsigned keys = args_keys(ev);
		read_args(c, ev, keys, &x);
		/* a role from the cat (Kineto), or none yet: TF2's events have
		 * no cat, their thread tells (link_correlations) */
		if ((keys & K_CORR) && (x.role != R_NONE || x.catless))
			x.has_corr = tl_names_args_correlation(ev->raw + ev->args.off, ev->args.len,
							       &x.corr);
	}
	return x;
}

/* An integer arg of an args object; -1 where absent or not one. */
static int64_t int_arg(json_t *a, const char *key)
{
	json_t *v = json_object_get(a, key);
	return json_is_integer(v) && json_integer_value(v) >= 0 ? (int64_t)json_integer_value(v)
								: -1;
}

/* Kineto's cuda_sync slices, for the critical path's sync edges (its
 * args parsed: a few per step). */
static void read_sync(creader *c, const tl_chrome_in_event *ev)
{
	static const char *const kinds[] = {"Context Sync", "Stream Sync", "Event Sync",
					    "Stream Wait Event"};
	/* the raw value, quotes and all: Kineto writes it plain */
	if (ev->cat.len != 11 || memcmp(ev->raw + ev->cat.off, "\"cuda_sync\"", 11) != 0)
		return;
	const char *name = ev->name.len ? tl_chrome_reader_span_text(ev, ev->name, c->buf) : "";
	uint8_t kind = 0;
	for (size_t i = 0; i < G_N_ELEMENTS(kinds); i++)
		if (strcmp(name, kinds[i]) == 0)
			kind = (uint8_t)(TL_SYNC_CONTEXT + i);
	json_t *a = kind != 0 ? args_of(ev) : NULL;
	if (json_is_object(a)) {
		csync y = {.slice = c->slices->len - 1,
			   .kind = kind,
			   .corr = int_arg(a, "correlation"),
			   .stream = int_arg(a, "stream"),
			   .wait_stream = int_arg(a, "wait_on_stream"),
			   .wait_corr = int_arg(a, "wait_on_cuda_event_record_corr_id")};
		g_array_append_val(c->syncs, y);
	}
	json_decref(a);
}

static void read_complete(creader *c, const tl_chrome_in_event *ev)
{
	int64_t start, dur;
	if (!ev->has_ts || !to_ns(ev, ev->ts, &start) || !to_ns(ev, ev->dur, &dur) || dur < 0 ||
	    start + dur >= TL_TIME_LIMIT_NS) {
		c->c.bad_time++;
		return;
	}
	cslice x = slice_of_event(c, ev);
	x.start = start;
	x.end = start + dur;
	add_slice(c, &x);
	read_sync(c, ev);
}

static GArray *b_stack(creader *c, uint32_t thread)
{
	gpointer key = GUINT_TO_POINTER(thread + 1);
	GArray *st = g_hash_table_lookup(c->open_b, key);
	if (st == NULL) {
		st = g_array_new(FALSE, FALSE, sizeof(cslice));
		g_hash_table_insert(c->open_b, key, st);
	}
	return st;
}

static void read_begin_end(creader *c, const tl_chrome_in_event *ev)
{
	int64_t t;
	if (!ev->has_ts || !to_ns(ev, ev->ts, &t)) {
		c->c.bad_time++;
		return;
	}
	if (ev->ph == 'B') {
		cslice x = slice_of_event(c, ev);
		x.start = t;
		g_array_append_val(b_stack(c, x.thread), x);
		return;
	}
	GArray *st = b_stack(c, tl_chrome_ids_thread(&c->ids, ev));
	if (st->len == 0) {
		c->c.unmatched_end++;
		return;
	}
	cslice x = g_array_index(st, cslice, st->len - 1);
	g_array_set_size(st, st->len - 1);
	if (t < x.start) {
		c->c.bad_time++;
		return;
	}
	x.end = t;
	add_slice(c, &x);
}

static void read_flow(creader *c, const tl_chrome_in_event *ev)
{
	int64_t t;
	if (ev->id.len == 0 || !ev->has_ts || !to_ns(ev, ev->ts, &t))
		return;
	const char *id = tl_chrome_reader_span_text(ev, ev->id, c->buf);
	const char *cat = ev->cat.len ? tl_chrome_reader_span_text(ev, ev->cat, c->buf2) : "";
	cflow f = {.key = g_strjoin("\x1f", id, cat, NULL),
		   .ts = t,
		   .thread = tl_chrome_ids_thread(&c->ids, ev),
		   .order = c->flows->len};
	/* bp: the binding point, in the raw text */
	f.enclosing = ev->ph == 's' || memmem(ev->raw, ev->raw_len, "\"bp\":\"e\"", 8) != NULL ||
		      memmem(ev->raw, ev->raw_len, "\"bp\": \"e\"", 9) != NULL;
	g_array_append_val(c->flows, f);
}

static void read_event(creader *c, const tl_chrome_in_event *ev)
{
	int64_t t;
	if (ev->ph != 'M' && ev->has_ts && to_ns(ev, ev->ts, &t)) {
		/* kineto_memory's clock, computed as it does: its events are
		 * placed on ours by it */
		if (!c->has_origin || t < c->origin)
			c->origin = t;
		c->has_origin = true;
	}
	switch (ev->ph) {
	case 'M':
		read_meta(c, ev);
		break;
	case 'X':
		read_complete(c, ev);
		break;
	case 'B':
	case 'E':
		read_begin_end(c, ev);
		break;
	case 's':
	case 't':
	case 'f':
		read_flow(c, ev);
		break;
	default:
		break;
	}
}

/* ---- devices ---------------------------------------------------------- */

/* A Kineto GPU's stream of each thread (-1: none): its device slices go to
 * a stream device of their own, as a RunMetadata's /device:GPU:0/stream:N,
 * the rest of the thread (syncs, annotations) staying where it was. */
static void find_kineto_streams(creader *c)
{
	guint n = c->ids.threads->len;
	c->kstream = g_new(long, n + 1);
	for (guint i = 0; i < n; i++) {
		const tl_chrome_thread *th = g_ptr_array_index(c->ids.threads, i);
		const tl_chrome_proc *p = g_ptr_array_index(c->ids.procs, th->proc);
		unsigned gpu;
		long stream;
		bool tf2 = p->name != NULL && g_str_has_prefix(p->name, "/device:");
		c->kstream[i] = !p->tf1 && !tf2 &&
					tl_kineto_gpu_process(p->labels, p->name, &gpu) &&
					tl_kineto_stream_thread(th->tid, th->name, &stream)
				    ? stream
				    : -1;
	}
}

/* Where a slice is placed: its thread's slot, or, for a Kineto device
 * slice on a stream, the slot of that stream's device. */
static uint32_t slot_of(const creader *c, const cslice *x)
{
	return 2 * x->thread + (x->role == R_DEVICE && c->kstream[x->thread] >= 0);
}

/* The device name of a slot (before two processes of one name are told
 * apart). */
static char *device_name(const creader *c, uint32_t slot)
{
	const tl_chrome_thread *t = g_ptr_array_index(c->ids.threads, slot / 2);
	const tl_chrome_proc *p = g_ptr_array_index(c->ids.procs, t->proc);
	const char *pn = p->name;
	if (pn != NULL && p->tf1) /* " Compute" cut already */
		return g_strdup(pn);
	if (pn != NULL && g_str_has_prefix(pn, "/device:")) {
		long stream;
		if (tl_tf2_stream_line(t->name, &stream))
			return g_strdup_printf("%s/stream:%ld", pn, stream);
		if (t->name != NULL && t->name[0] != '\0')
			return g_strdup_printf("%s/%s", pn, t->name);
		return g_strdup_printf("%s/tid %s", pn, t->tid);
	}
	unsigned gpu;
	if (tl_kineto_gpu_process(p->labels, pn, &gpu)) {
		if (slot % 2 == 1)
			return g_strdup_printf("/device:GPU:%u/stream:%ld", gpu,
					       c->kstream[slot / 2]);
		return g_strdup_printf("/device:GPU:%u", gpu);
	}
	if (p->labels != NULL && strcmp(p->labels, "CPU") == 0)
		return g_strdup("/host:CPU");
	if (pn != NULL && pn[0] != '\0')
		return g_strdup(pn);
	return g_strdup_printf("pid %s", p->pid);
}

static bool is_tracer_name(const char *n)
{
	return strstr(n, "/stream:") != NULL || g_str_has_suffix(n, "/memcpy") ||
	       g_str_has_suffix(n, "/sync");
}

/* Each slot that holds a slice to its device, devices in order of their
 * first slice; a name two processes share gets " (pid N)" on the later. */
static GArray *place_threads(creader *c)
{
	GArray *devs = g_array_new(FALSE, FALSE, sizeof(cdev));
	GHashTable *by_name = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, NULL);
	GHashTable *owner = g_hash_table_new(g_str_hash, g_str_equal); /* name -> its process */
	find_kineto_streams(c);
	c->place = g_new0(cplace, 2 * (size_t)c->ids.threads->len + 1);
	for (guint i = 0; i < c->slices->len; i++) {
		cslice *x = &g_array_index(c->slices, cslice, i);
		uint32_t slot = slot_of(c, x);
		cplace *t = &c->place[slot];
		if (!t->placed) {
			const tl_chrome_thread *th = g_ptr_array_index(c->ids.threads, x->thread);
			const tl_chrome_proc *p = g_ptr_array_index(c->ids.procs, th->proc);
			char *name = device_name(c, slot);
			const tl_chrome_proc *own = g_hash_table_lookup(owner, name);
			if (own != NULL && own != p) {
				char *n2 = g_strdup_printf("%s (pid %s)", name, p->pid);
				g_free(name);
				name = n2;
			}
			gpointer hit = g_hash_table_lookup(by_name, name);
			if (hit == NULL) {
				cdev d = {.name = tl_arena_strdup(c->arena, name),
					  .tracer = is_tracer_name(name)};
				g_array_append_val(devs, d);
				hit = GUINT_TO_POINTER(devs->len);
				g_hash_table_insert(owner, (gpointer)d.name, (gpointer)p);
				g_hash_table_insert(by_name, name, hit);
			} else {
				g_free(name);
			}
			t->dev = GPOINTER_TO_UINT(hit) - 1;
			t->id = ++g_array_index(devs, cdev, t->dev).n_threads;
			t->placed = true;
		}
		g_array_index(devs, cdev, t->dev).n_exec++;
	}
	g_hash_table_destroy(owner);
	g_hash_table_destroy(by_name);
	return devs;
}

/* ---- the RunMetadata -------------------------------------------------- */

static void fill_exec(creader *c, const cslice *x, const cdev *d, Tensorflow__NodeExecStats *ns)
{
	tensorflow__node_exec_stats__init(ns);
	ns->all_start_nanos = x->start;
	ns->all_start_micros = x->start / 1000;
	ns->all_end_rel_nanos = x->end - x->start;
	ns->all_end_rel_micros = x->end / 1000 - ns->all_start_micros;
	ns->op_end_rel_nanos = ns->all_end_rel_nanos;
	ns->op_end_rel_micros = ns->all_end_rel_micros;
	ns->thread_id = c->place[slot_of(c, x)].id;
	const char *node = x->node != NULL ? x->node : x->name;
	const char *op = x->op != NULL ? x->op : x->name;
	if (d->tracer) {
		/* the model reads "node:Op" from a tracer record's node_name;
		 * the kernel stays in the label */
		ns->node_name = x->op != NULL ? g_strconcat(node, ":", op, NULL) : g_strdup(node);
		char *copy = tl_arena_strdup(c->arena, ns->node_name);
		g_free(ns->node_name);
		ns->node_name = copy;
		ns->timeline_label = (char *)x->name;
		return;
	}
	ns->node_name = (char *)node;
	bool bare = x->node == NULL && x->op == NULL && x->inputs == NULL;
	ns->timeline_label = bare ? g_hash_table_lookup(c->labels, x->name) : NULL;
	if (ns->timeline_label != NULL)
		return;
	/* "node = Op(in0, in1)", the label timeline.py writes and reads */
	const char *in = x->inputs != NULL ? x->inputs : "";
	size_t nn = strlen(node), no = strlen(op), ni = strlen(in);
	char *label = tl_arena_alloc(c->arena, nn + no + ni + 6);
	char *p = label;
	memcpy(p, node, nn);
	memcpy(p += nn, " = ", 3);
	memcpy(p += 3, op, no);
	*(p += no) = '(';
	memcpy(p + 1, in, ni);
	memcpy(p + 1 + ni, ")", 2);
	ns->timeline_label = label;
	if (bare)
		g_hash_table_insert(c->labels, (gpointer)x->name, label);
}

static void name_threads(creader *c, Tensorflow__DeviceStepStats **ds)
{
	for (guint slot = 0; slot < 2 * c->ids.threads->len; slot++) {
		const tl_chrome_thread *th = g_ptr_array_index(c->ids.threads, slot / 2);
		const cplace *t = &c->place[slot];
		if (!t->placed)
			continue;
		Tensorflow__DeviceStepStats *d = ds[t->dev];
		Tensorflow__DeviceStepStats__ThreadNamesEntry *e =
		    tl_arena_alloc(c->arena, sizeof *e);
		tensorflow__device_step_stats__thread_names_entry__init(e);
		e->key = t->id;
		char *n = th->name != NULL && th->name[0] != '\0'
			      ? g_strdup(th->name)
			      : g_strdup_printf("tid %s", th->tid);
		e->value = tl_arena_strdup(c->arena, n);
		g_free(n);
		d->thread_names[d->n_thread_names++] = e;
	}
}

/* The run's records: recs[i] is slice i's. */
static Tensorflow__RunMetadata *build_meta(creader *c, const GArray *devs,
					   Tensorflow__NodeExecStats *recs)
{
	tl_arena *arena = c->arena;
	Tensorflow__RunMetadata *meta = tl_arena_alloc(arena, sizeof *meta);
	tensorflow__run_metadata__init(meta);
	Tensorflow__StepStats *ss = tl_arena_alloc(arena, sizeof *ss);
	tensorflow__step_stats__init(ss);
	meta->step_stats = ss;
	ss->n_dev_stats = devs->len;
	ss->dev_stats = tl_arena_alloc(arena, (devs->len + 1) * sizeof *ss->dev_stats);
	for (guint d = 0; d < devs->len; d++) {
		const cdev *cd = &g_array_index(devs, cdev, d);
		Tensorflow__DeviceStepStats *ds = tl_arena_alloc(arena, sizeof *ds);
		tensorflow__device_step_stats__init(ds);
		ds->device = (char *)cd->name;
		ds->node_stats = tl_arena_alloc(arena, (cd->n_exec + 1) * sizeof *ds->node_stats);
		ds->thread_names =
		    tl_arena_alloc(arena, (cd->n_threads + 1) * sizeof *ds->thread_names);
		ss->dev_stats[d] = ds;
	}
	for (guint i = 0; i < c->slices->len; i++) {
		const cslice *x = &g_array_index(c->slices, cslice, i);
		const cplace *t = &c->place[slot_of(c, x)];
		Tensorflow__DeviceStepStats *ds = ss->dev_stats[t->dev];
		Tensorflow__NodeExecStats *ns = &recs[i];
		fill_exec(c, x, &g_array_index(devs, cdev, t->dev), ns);
		ds->node_stats[ds->n_node_stats++] = ns;
	}
	name_threads(c, ss->dev_stats);
	return meta;
}

/* ---- links ------------------------------------------------------------ */

typedef struct linker {
	GArray *pairs;	 /* uint32_t: record, launcher (slice indexes: their records' places) */
	GHashTable *has; /* slice index + 1 with a launcher */
} linker;

static void link_add(linker *l, uint32_t rec, uint32_t launcher)
{
	if (rec == launcher || !g_hash_table_add(l->has, GUINT_TO_POINTER(rec + 1)))
		return;
	uint32_t pair[2] = {rec, launcher};
	g_array_append_vals(l->pairs, pair, 2);
}

/* What each thread is to correlation ids in a TF2 trace viewer file, whose
 * events have no cat: 1 a host thread (a "/host:..." process: launches),
 * 2 a GPU stream ("Stream #N" of a "/device:..." process: kernels and
 * copies), 0 neither. */
static uint8_t *tf2_corr_sides(const creader *c)
{
	guint n = c->ids.threads->len;
	uint8_t *side = g_new0(uint8_t, n + 1);
	for (guint i = 0; i < n; i++) {
		const tl_chrome_thread *th = g_ptr_array_index(c->ids.threads, i);
		const tl_chrome_proc *p = g_ptr_array_index(c->ids.procs, th->proc);
		long stream;
		if (p->name == NULL || p->tf1)
			continue;
		if (g_str_has_prefix(p->name, "/host:"))
			side[i] = 1;
		else if (g_str_has_prefix(p->name, "/device:") &&
			 tl_tf2_stream_line(th->name, &stream))
			side[i] = 2;
	}
	return side;
}

/* A device slice to the launch of its correlation id (the first in the
 * file where several carry it): Kineto's runtime call (by cat), or TF2's
 * host event (by thread). */
typedef struct corr_at {
	int64_t corr;
	uint32_t at; /* the slice */
} corr_at;

static int cmp_corr_at(const void *a, const void *b)
{
	const corr_at *x = a, *y = b;
	if (x->corr != y->corr)
		return x->corr < y->corr ? -1 : 1;
	return (x->at > y->at) - (x->at < y->at);
}

static void link_correlations(creader *c, linker *l)
{
	/* the launches sorted by id, the first in the file first: no table of
	 * a half million small keys */
	uint8_t *side = tf2_corr_sides(c);
	GArray *launch = g_array_new(FALSE, FALSE, sizeof(corr_at));
	for (guint i = 0; i < c->slices->len; i++) {
		const cslice *x = &g_array_index(c->slices, cslice, i);
		if (x->has_corr && (x->role == R_LAUNCH || (x->catless && side[x->thread] == 1))) {
			corr_at k = {.corr = x->corr, .at = i};
			g_array_append_val(launch, k);
		}
	}
	if (launch->len > 0) /* an empty GArray's data is NULL */
		qsort(launch->data, launch->len, sizeof(corr_at), cmp_corr_at);
	const corr_at *v = (const corr_at *)(const void *)launch->data;
	for (guint i = 0; i < c->slices->len && launch->len > 0; i++) {
		const cslice *x = &g_array_index(c->slices, cslice, i);
		if (!x->has_corr || !(x->role == R_DEVICE || (x->catless && side[x->thread] == 2)))
			continue;
		size_t lo = 0, hi = launch->len; /* the first of x->corr */
		while (lo < hi) {
			size_t mid = lo + (hi - lo) / 2;
			if (v[mid].corr < x->corr)
				lo = mid + 1;
			else
				hi = mid;
		}
		if (lo < launch->len && v[lo].corr == x->corr)
			link_add(l, i, v[lo].at);
	}
	g_free(side);
	g_array_free(launch, TRUE);
}

/* The first launch slice of correlation id `corr` in v[0 .. n), or
 * UINT32_MAX. */
static uint32_t launch_of(const corr_at *v, size_t n, int64_t corr)
{
	size_t lo = 0, hi = n;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (v[mid].corr < corr)
			lo = mid + 1;
		else
			hi = mid;
	}
	return corr >= 0 && lo < n && v[lo].corr == corr ? v[lo].at : UINT32_MAX;
}

/* The cuda_sync slices with their runtime calls (and an event wait's
 * cudaEventRecord) found by correlation id. */
static const tl_sync_rec *resolve_syncs(creader *c)
{
	if (c->syncs->len == 0)
		return NULL;
	GArray *launch = g_array_new(FALSE, FALSE, sizeof(corr_at));
	for (guint i = 0; i < c->slices->len; i++) {
		const cslice *x = &g_array_index(c->slices, cslice, i);
		if (x->has_corr && x->role == R_LAUNCH) {
			corr_at k = {.corr = x->corr, .at = i};
			g_array_append_val(launch, k);
		}
	}
	if (launch->len > 0)
		qsort(launch->data, launch->len, sizeof(corr_at), cmp_corr_at);
	const corr_at *v = (const corr_at *)(const void *)launch->data;
	tl_sync_rec *out = tl_arena_alloc(c->arena, c->syncs->len * sizeof *out);
	for (guint i = 0; i < c->syncs->len; i++) {
		const csync *y = &g_array_index(c->syncs, csync, i);
		out[i] = (tl_sync_rec){.rec = y->slice,
				       .call = launch_of(v, launch->len, y->corr),
				       .record = launch_of(v, launch->len, y->wait_corr),
				       .stream = y->stream,
				       .wait_stream = y->wait_stream,
				       .kind = y->kind};
	}
	g_array_free(launch, TRUE);
	return out;
}

static int cmp_thread_start(const void *a, const void *b, void *ctx)
{
	const cslice *s = ctx;
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
	if (s[x].thread != s[y].thread)
		return s[x].thread < s[y].thread ? -1 : 1;
	if (s[x].start != s[y].start)
		return s[x].start < s[y].start ? -1 : 1;
	if (s[x].end != s[y].end)
		return s[x].end > s[y].end ? -1 : 1;
	return (x > y) - (x < y);
}

static int cmp_flow(const void *a, const void *b)
{
	const cflow *x = a, *y = b;
	int k = strcmp(x->key, y->key);
	if (k != 0)
		return k;
	if (x->ts != y->ts)
		return x->ts < y->ts ? -1 : 1;
	return (x->order > y->order) - (x->order < y->order);
}

/* The slice a flow point binds to, or -1: by[lo..hi) are its thread's
 * slices by start. The innermost around it looks back a bounded way (a
 * thread's slices nest a few deep). */
static int64_t bind_flow(const cslice *s, const uint32_t *by, size_t lo, size_t hi, const cflow *f)
{
	size_t a = lo, b = hi; /* first slice starting after f->ts */
	while (a < b) {
		size_t mid = a + (b - a) / 2;
		if (s[by[mid]].start <= f->ts)
			a = mid + 1;
		else
			b = mid;
	}
	if (!f->enclosing)
		return a < hi ? (int64_t)by[a] : -1;
	for (size_t k = a, steps = 0; k > lo && steps < 256; k--, steps++)
		if (s[by[k - 1]].end >= f->ts)
			return by[k - 1];
	return -1;
}

/* Flow events: each bound point the next one's launcher. */
static void link_flows(creader *c, linker *l)
{
	size_t n = c->slices->len, nt = c->ids.threads->len;
	if (c->flows->len == 0 || n == 0)
		return;
	const cslice *s = (const cslice *)(const void *)c->slices->data;
	/* by thread in the file's order, then each thread by start (a
	 * thread's slices mostly come in that order already) */
	size_t *first = g_new0(size_t, nt + 1), *next = g_new(size_t, nt + 1);
	for (size_t i = 0; i < n; i++)
		first[s[i].thread + 1]++;
	for (size_t t = 0; t < nt; t++)
		first[t + 1] += first[t];
	memcpy(next, first, (nt + 1) * sizeof *next);
	uint32_t *by = g_new(uint32_t, n);
	for (size_t i = 0; i < n; i++)
		by[next[s[i].thread]++] = (uint32_t)i;
	g_free(next);
	for (size_t t = 0; t < nt; t++) {
		size_t lo = first[t], hi = first[t + 1], k = lo + 1;
		while (k < hi && cmp_thread_start(&by[k - 1], &by[k], (void *)s) < 0)
			k++;
		if (k < hi)
			qsort_r(by + lo, hi - lo, sizeof *by, cmp_thread_start, (void *)s);
	}
	qsort(c->flows->data, c->flows->len, sizeof(cflow), cmp_flow);
	int64_t prev = -1;
	for (guint i = 0; i < c->flows->len; i++) {
		const cflow *f = &g_array_index(c->flows, cflow, i);
		bool same = i > 0 && strcmp(f->key, g_array_index(c->flows, cflow, i - 1).key) == 0;
		if (!same)
			prev = -1;
		int64_t at = f->thread < nt
				 ? bind_flow(s, by, first[f->thread], first[f->thread + 1], f)
				 : -1;
		if (at >= 0 && prev >= 0)
			link_add(l, (uint32_t)at, (uint32_t)prev);
		if (at >= 0)
			prev = at;
	}
	g_free(first);
	g_free(by);
}

/* Per slice, whether its record is named whole (io/links.h): a Kineto
 * kernel or copy on a stream names no TF op, and its C++ name is no
 * "node:Op"; NULL where none is. */
static const uint8_t *whole_names(const creader *c)
{
	uint8_t *whole = NULL;
	for (guint i = 0; i < c->slices->len; i++) {
		const cslice *x = &g_array_index(c->slices, cslice, i);
		if (slot_of(c, x) % 2 == 0 || x->op != NULL)
			continue;
		if (whole == NULL)
			whole = tl_arena_zalloc(c->arena, c->slices->len);
		whole[i] = 1;
	}
	return whole;
}

/* ---- what each slice is to a summary (io/chrome_kind.h) ---------------- */

static const tl_slice_event *slice_events(creader *c)
{
	uint8_t *by_thread = tl_chrome_kind_threads(&c->ids);
	tl_slice_event *out = tl_arena_alloc(c->arena, (c->slices->len + 1) * sizeof *out);
	for (guint i = 0; i < c->slices->len; i++) {
		const cslice *x = &g_array_index(c->slices, cslice, i);
		uint8_t k = x->kind & TL_CHROME_KIND_BY_CAT ? x->kind & TL_SLICE_KIND
							    : by_thread[x->thread];
		out[i] = (tl_slice_event){.name = x->name,
					  .node = x->node,
					  .op = x->op,
					  .thread = x->thread,
					  .kind = k | (x->kind & (TL_SLICE_OP | TL_SLICE_RUNTIME))};
	}
	g_free(by_thread);
	return out;
}

/* ---- the whole -------------------------------------------------------- */

static int warn_counts(const char *input, const counts *k, tl_error *err)
{
	if (k->bad_time &&
	    tl_warn_damage(err, input, "skipped",
			   "%zu slices with no usable ts or dur, a negative duration, or "
			   "times beyond +-2^61 ns",
			   k->bad_time) < 0)
		return -1;
	if (k->unmatched_end &&
	    tl_warn_damage(err, input, "skipped", "%zu \"E\" events with no open \"B\"",
			   k->unmatched_end) < 0)
		return -1;
	if (k->unclosed_begin &&
	    tl_warn_damage(err, input, "dropped", "%zu \"B\" events never closed by an \"E\"",
			   k->unclosed_begin) < 0)
		return -1;
	return 0;
}

static void creader_free(creader *c)
{
	tl_chrome_ids_free(&c->ids);
	g_free(c->place);
	g_free(c->kstream);
	g_array_free(c->slices, TRUE);
	g_array_free(c->syncs, TRUE);
	for (guint i = 0; i < c->flows->len; i++)
		g_free(g_array_index(c->flows, cflow, i).key);
	g_array_free(c->flows, TRUE);
	g_hash_table_destroy(c->open_b);
	g_string_free(c->buf, TRUE);
	g_string_free(c->buf2, TRUE);
	g_hash_table_destroy(c->names);
	g_hash_table_destroy(c->labels);
}

static void stack_free(gpointer p)
{
	g_array_free(p, TRUE);
}

/* Kineto's [memory] events, moved onto the run's clock. */
static int read_allocs(creader *c, const uint8_t *data, size_t len, tl_chrome_run *out,
		       tl_error *err)
{
	out->allocs = (tl_alloc_events){0};
	if (memmem(data, len, "\"[memory]\"", 10) == NULL)
		return 0;
	if (tl_kineto_alloc_events(data, len, c->arena, &out->allocs, err) < 0)
		return -1;
	for (size_t i = 0; i < out->allocs.n; i++)
		out->allocs.ev[i].t_ns += c->origin;
	out->allocs.clock = "the run's clock";
	return 0;
}

int tl_chrome_run_read(const uint8_t *data, size_t len, const char *name, tl_arena *arena,
		       tl_chrome_run *out, tl_error *err)
{
	memset(out, 0, sizeof *out);
	tl_chrome_reader *r = NULL;
	if (tl_chrome_reader_open(&r, data, len, err) < 0)
		return -1;
	creader c = {
	    .arena = arena,
	    /* a slice is rarely under 100 bytes of JSON */
	    .slices =
		g_array_sized_new(FALSE, FALSE, sizeof(cslice), (guint)MIN(len / 128, 1u << 24)),
	    .flows = g_array_new(FALSE, FALSE, sizeof(cflow)),
	    .syncs = g_array_new(FALSE, FALSE, sizeof(csync)),
	    .open_b = g_hash_table_new_full(g_direct_hash, g_direct_equal, NULL, stack_free),
	    .buf = g_string_new(NULL),
	    .buf2 = g_string_new(NULL),
	    .names = g_hash_table_new(g_str_hash, g_str_equal),
	    .labels = g_hash_table_new(g_direct_hash, g_direct_equal),
	};
	tl_chrome_ids_init(&c.ids);
	tl_chrome_in_event ev;
	int rc;
	/* the writer told in the same pass (tl_format_chrome_kind read the
	 * whole file again: a sixth of trace-summarize on a TF2 trace) */
	tl_chrome_kind_look look;
	tl_chrome_kind_look_init(&look);
	while ((rc = tl_chrome_reader_next(r, &ev, err)) > 0) {
		read_event(&c, &ev);
		tl_chrome_kind_look_event(&look, &ev);
	}
	const char *kind = tl_chrome_kind_look_end(&look, r, rc, data, len);
	tl_chrome_reader_close(r);
	if (rc < 0 && c.slices->len > 0) {
		char why[sizeof err->msg];
		g_strlcpy(why, err->msg, sizeof why);
		rc = tl_warn_damage(err, name, "the events before it are read", "%s", why);
	}
	GHashTableIter it;
	gpointer k, v;
	g_hash_table_iter_init(&it, c.open_b);
	while (g_hash_table_iter_next(&it, &k, &v))
		c.c.unclosed_begin += ((GArray *)v)->len;
	if (rc == 0 && c.slices->len == 0 &&
	    strcmp(tl_format_chrome_kind(data, len), TL_FORMAT_NOT_A_TRACE) == 0)
		rc = tl_error_set(err, "this is %s", TL_FORMAT_NOT_A_TRACE);
	else if (rc == 0 && c.slices->len == 0 && c.c.bad_time > 0)
		rc = tl_error_set(err,
				  "a Chrome trace whose %zu slices all have no usable ts or dur, a "
				  "negative duration, or times beyond +-2^61 ns: nothing to draw",
				  c.c.bad_time);
	else if (rc == 0 && c.slices->len == 0)
		rc = tl_error_set(err, "a Chrome trace with no complete events (ph \"X\", or "
				       "\"B\"/\"E\" pairs): nothing to draw");
	if (rc == 0)
		rc = warn_counts(name, &c.c, err);
	if (rc == 0)
		rc = read_allocs(&c, data, len, out, err);
	if (rc < 0) {
		creader_free(&c);
		return -1;
	}
	GArray *devs = place_threads(&c);
	Tensorflow__NodeExecStats *recs =
	    tl_arena_alloc(arena, ((size_t)c.slices->len + 1) * sizeof *recs);
	out->meta = build_meta(&c, devs, recs);
	linker l = {.pairs = g_array_new(FALSE, FALSE, sizeof(uint32_t)),
		    .has = g_hash_table_new(g_direct_hash, g_direct_equal)};
	link_correlations(&c, &l);
	/* timeline.py's flows are the inputs its labels name */
	if (!c.tf1)
		link_flows(&c, &l);
	uint32_t *pairs = tl_arena_alloc(arena, ((size_t)l.pairs->len + 1) * sizeof *pairs);
	if (l.pairs->len > 0)
		memcpy(pairs, l.pairs->data, l.pairs->len * sizeof *pairs);
	out->links = (tl_links){.recs = recs,
				.n_recs = c.slices->len,
				.pairs = pairs,
				.n = l.pairs->len / 2,
				.whole = whole_names(&c)};
	out->links.events = slice_events(&c);
	out->links.syncs = resolve_syncs(&c);
	out->links.n_syncs = c.syncs->len;
	g_array_free(l.pairs, TRUE);
	g_hash_table_destroy(l.has);
	g_array_free(devs, TRUE);
	out->dataflow = c.tf1;
	out->kind = c.tf1 ? "a TF1 timeline.py trace" : kind;
	creader_free(&c);
	return 0;
}
