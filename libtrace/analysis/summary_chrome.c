/* A Chrome trace as one run of a summary. The X events are read into a
 * compact array first: the process and thread names that say which slices
 * are device work may come after the events (Kineto writes them last), and
 * self time needs each thread's slices sorted (analysis/summary_nest.h).
 *
 * What counts where:
 *   device (accelerator_micros)  Kineto cat kernel, gpu_memcpy, gpu_memset
 *                  (Kernel, Memcpy, Memset in older Kineto); TF2 trace
 *                  JSON: the "Stream #N" lines of a "/device:..." process
 *                  (its other lines, "TensorFlow Ops", "TensorFlow Name
 *                  Scope", "XLA Ops", ..., are views of the same kernels
 *                  and are left out; "Steps" gives the steps); TF1
 *                  timeline.py: "/stream:N" processes, and "/stream:all"
 *                  and "/memcpy" only where no "/stream:N" is (elsewhere
 *                  they repeat the streams' records, as tl_summary_add_run
 *                  counts them).
 *   left out      Kineto cat Trace (the profiler's own span, "PyTorch
 *                  Profiler (0)") and gpu_user_annotation (a label drawn
 *                  over kernels, not work).
 *   host (cpu_micros)  everything else.
 *
 * Kernels to the ops that launched them (op, node, scope views): Kineto
 * gives a device slice and the runtime call that launched it (cat
 * cuda_runtime, cuda_driver, older Runtime) the same args "correlation";
 * the op is the innermost cpu_op (older Operator) slice around that call
 * on its thread, found from the nesting. The kernel's time goes to that
 * op's row as accelerator time (PyTorch's "Self CUDA": the op's own
 * kernels, not its children's), and to its total and self, as
 * tl_summary_add_run adds a RunMetadata op's kernels: total is host
 * inclusive time plus the op's kernels; each kernel counts once, so the
 * shares still add up. A kernel whose launch or op is not found keeps a
 * row of its own. The kernel, device and step views do not change.
 */
#include "analysis/summary.h"

#include "analysis/summary_impl.h"
#include "analysis/summary_nest.h"
#include "io/chrome_ids.h"
#include "io/chrome_reader.h"

#include <jansson.h>
#include <math.h>
#include <string.h>

enum slice_kind { K_HOST = 0, K_DEVICE, K_SKIP, K_STEPS };
/* what a slice is to the kernel-to-op links */
enum slice_role { R_NONE = 0, R_OP, R_LAUNCH };

/* A correlation id and the slice (index into slices) that carries it. */
typedef struct clink {
	int64_t corr;
	uint32_t slice;
} clink;

typedef struct cslice {
	uint32_t thread, name, key; /* key: the op (op view) or node (node, scope
				     * views) its args give, or UINT32_MAX */
	uint32_t extra;		    /* kernel view: the op, or UINT32_MAX */
	uint8_t cat;		    /* from its cat: K_HOST (none or other), K_DEVICE, K_SKIP */
	uint8_t kind;		    /* decided at the end */
	uint8_t role;		    /* from its cat: enum slice_role */
} cslice;

typedef struct creader {
	tl_summary *s;
	tl_chrome_ids ids;
	uint8_t *thread_kind; /* per thread: K_*, decided at the end */
	GHashTable *str_ix;   /* text -> index + 1 */
	GPtrArray *strs;
	GStringChunk *chunk;
	GArray *slices;		    /* cslice */
	GArray *spans;		    /* tl_summary_slice, parallel */
	GArray *launches, *kernels; /* clink: runtime calls, device slices */
	GString *buf, *buf2;
} creader;

static uint32_t intern(creader *c, const char *text)
{
	gpointer v = g_hash_table_lookup(c->str_ix, text);
	if (v != NULL)
		return GPOINTER_TO_UINT(v) - 1;
	char *copy = g_string_chunk_insert(c->chunk, text);
	g_ptr_array_add(c->strs, copy);
	g_hash_table_insert(c->str_ix, copy, GUINT_TO_POINTER(c->strs->len));
	return c->strs->len - 1;
}

static const char *str_of(const creader *c, uint32_t i)
{
	return g_ptr_array_index(c->strs, i);
}

static json_t *args_of(const tl_chrome_in_event *ev)
{
	json_error_t jerr;
	return ev->args.len ? json_loadb(ev->raw + ev->args.off, ev->args.len, 0, &jerr) : NULL;
}

/* The kind and the role its cat gives a slice. */
static void cat_read(cslice *x, const tl_chrome_in_event *ev, GString *buf)
{
	x->cat = K_HOST;
	x->role = R_NONE;
	if (ev->cat.len == 0)
		return;
	const char *cat = tl_chrome_reader_span_text(ev, ev->cat, buf);
	static const char *const device[] = {"kernel", "gpu_memcpy", "gpu_memset", "memcpy",
					     "memset"};
	for (size_t i = 0; i < G_N_ELEMENTS(device); i++)
		if (g_ascii_strcasecmp(cat, device[i]) == 0)
			x->cat = K_DEVICE;
	if (strcmp(cat, "Trace") == 0 || strcmp(cat, "gpu_user_annotation") == 0)
		x->cat = K_SKIP;
	if (strcmp(cat, "cpu_op") == 0 || strcmp(cat, "Operator") == 0)
		x->role = R_OP;
	/* cuda_runtime, cuda_driver, privateuse1_runtime, ...; older Runtime */
	if (g_str_has_suffix(cat, "_runtime") || g_str_has_suffix(cat, "_driver") ||
	    strcmp(cat, "Runtime") == 0)
		x->role = R_LAUNCH;
}

/* The op and node of TF2's "node:Op#...#" kernel annotations (and
 * "long_name"): node before the last ':', op after it, both before '#'. */
static void split_annotation(const char *a, GString *node, GString *op)
{
	const char *hash = strchr(a, '#');
	size_t n = hash ? (size_t)(hash - a) : strlen(a);
	const char *colon = NULL;
	for (size_t i = 0; i < n; i++)
		if (a[i] == ':')
			colon = a + i;
	g_string_truncate(node, 0);
	g_string_truncate(op, 0);
	if (colon == NULL)
		return;
	g_string_append_len(node, a, colon - a);
	g_string_append_len(op, colon + 1, (gssize)(n - (size_t)(colon + 1 - a)));
}

/* What the args say: the node (args.name, or the annotation's node) and
 * the op (args.op, or the annotation's op); UINT32_MAX where they do not. */
static void read_args(creader *c, const tl_chrome_in_event *ev, uint32_t *node, uint32_t *op)
{
	*node = *op = UINT32_MAX;
	if (ev->args.len == 0)
		return;
	json_t *a = args_of(ev);
	const char *name = json_string_value(json_object_get(a, "name"));
	const char *opname = json_string_value(json_object_get(a, "op"));
	const char *ann = json_string_value(json_object_get(a, "annotation"));
	if (ann == NULL)
		ann = json_string_value(json_object_get(a, "long_name"));
	GString *n = g_string_new(NULL), *o = g_string_new(NULL);
	if (ann != NULL)
		split_annotation(ann, n, o);
	if (name == NULL && n->len > 0)
		name = n->str;
	if (opname == NULL && o->len > 0)
		opname = o->str;
	if (name != NULL)
		*node = intern(c, name);
	if (opname != NULL)
		*op = intern(c, opname);
	g_string_free(n, TRUE);
	g_string_free(o, TRUE);
	json_decref(a);
}

/* ns from the file's microseconds, inside the model's limits. Whole
 * microseconds and the fraction apart: Kineto's epoch timestamps times
 * 1000 are past what a double holds exactly. */
static int64_t to_ns(double us)
{
	double lim = (double)(((int64_t)1 << 61) / 1000);
	if (!(us == us))
		return 0;
	us = us > lim ? lim : us < -lim ? -lim : us;
	double whole = floor(us);
	return (int64_t)whole * 1000 + (int64_t)llround((us - whole) * 1000.0);
}

static void read_slice(creader *c, const tl_chrome_in_event *ev)
{
	cslice x = {
	    .thread = tl_chrome_ids_thread(&c->ids, ev), .key = UINT32_MAX, .extra = UINT32_MAX};
	x.name =
	    intern(c, ev->name.len ? tl_chrome_reader_span_text(ev, ev->name, c->buf) : "unknown");
	cat_read(&x, ev, c->buf);
	tl_summary_view v = c->s->view;
	clink link = {.slice = c->slices->len};
	bool links = v == TL_VIEW_OP || v == TL_VIEW_NODE || v == TL_VIEW_SCOPE;
	if (links && (x.role == R_LAUNCH || x.cat == K_DEVICE) &&
	    tl_chrome_reader_args_int(ev, "\"correlation\"", &link.corr))
		g_array_append_val(x.cat == K_DEVICE ? c->kernels : c->launches, link);
	/* args are parsed only where the view reads them: a 100 MB Kineto
	 * trace has a JSON object of args on every event */
	bool want = v == TL_VIEW_NODE || v == TL_VIEW_SCOPE || v == TL_VIEW_KERNEL ||
		    (v == TL_VIEW_OP && ev->args.len > 0 &&
		     (g_strstr_len(ev->raw + ev->args.off, ev->args.len, "\"annotation\"") ||
		      g_strstr_len(ev->raw + ev->args.off, ev->args.len, "\"op\"")));
	if (want) {
		uint32_t node, op;
		read_args(c, ev, &node, &op);
		x.key = v == TL_VIEW_OP ? op : node;
		x.extra = op;
	}
	int64_t start = to_ns(ev->ts_us), dur = to_ns(ev->dur_us);
	tl_summary_slice sp = {.start = start,
			       .end = dur > 0 && start < INT64_MAX - dur ? start + dur : start};
	g_array_append_val(c->slices, x);
	g_array_append_val(c->spans, sp);
}

static bool is_derived_line(const char *name, bool has_streams)
{
	static const char *const derived[] = {
	    "TensorFlow Ops", "TensorFlow Name Scope", "Framework Ops", "Framework Name Scope",
	    "Source code",    "Launch Stats",	       "XLA Modules",	"XLA TraceMe"};
	for (size_t i = 0; i < G_N_ELEMENTS(derived); i++)
		if (strcmp(name, derived[i]) == 0)
			return true;
	return has_streams && strcmp(name, "XLA Ops") == 0;
}

/* Each thread's kind, from its process's and its own name. */
static void classify_threads(creader *c)
{
	const GPtrArray *procs = c->ids.procs, *threads = c->ids.threads;
	bool tf1_streams = false;
	for (guint i = 0; i < procs->len; i++) {
		const tl_chrome_proc *p = g_ptr_array_index(procs, i);
		if (p->name != NULL && strstr(p->name, "/stream:") != NULL &&
		    !g_str_has_suffix(p->name, "/stream:all"))
			tf1_streams = true;
	}
	bool *stream_lines = g_new0(bool, procs->len + 1); /* per process */
	for (guint i = 0; i < threads->len; i++) {
		const tl_chrome_thread *t = g_ptr_array_index(threads, i);
		if (t->name != NULL && g_str_has_prefix(t->name, "Stream #"))
			stream_lines[t->proc] = true;
	}
	c->thread_kind = g_new(uint8_t, threads->len + 1);
	for (guint i = 0; i < threads->len; i++) {
		const tl_chrome_thread *t = g_ptr_array_index(threads, i);
		const tl_chrome_proc *p = g_ptr_array_index(procs, t->proc);
		const char *pn = p->name != NULL ? p->name : "";
		uint8_t kind = K_HOST;
		if (g_str_has_suffix(pn, "/stream:all") || g_str_has_suffix(pn, "/memcpy"))
			kind = tf1_streams ? K_SKIP : K_DEVICE;
		else if (strstr(pn, "/stream:") != NULL)
			kind = K_DEVICE;
		else if (g_str_has_prefix(pn, "/device:") && !p->tf1) {
			const char *tn = t->name != NULL ? t->name : "";
			kind = strcmp(tn, "Steps") == 0			    ? K_STEPS
			       : is_derived_line(tn, stream_lines[t->proc]) ? K_SKIP
									    : K_DEVICE;
		}
		c->thread_kind[i] = kind;
	}
	g_free(stream_lines);
}

static bool is_step_slice(const creader *c, const cslice *x)
{
	return x->kind == K_STEPS ||
	       (x->kind == K_HOST && g_str_has_prefix(str_of(c, x->name), "ProfilerStep#"));
}

/* The row of a slice in the op, node, scope, device and kernel views, or
 * NULL where the view leaves it out; written into buf when made. */
static const char *row_name(const creader *c, const cslice *x, GString *buf)
{
	switch (c->s->view) {
	case TL_VIEW_DEVICE: {
		const tl_chrome_thread *t = g_ptr_array_index(c->ids.threads, x->thread);
		const tl_chrome_proc *p = g_ptr_array_index(c->ids.procs, t->proc);
		if (p->labels != NULL)
			return p->labels;
		if (p->name != NULL)
			return p->name;
		g_string_printf(buf, "pid %s", p->pid);
		return buf->str;
	}
	case TL_VIEW_KERNEL:
		return x->kind == K_DEVICE ? str_of(c, x->name) : NULL;
	default:
		return str_of(c, x->key != UINT32_MAX ? x->key : x->name);
	}
}

static int cmp_link(const void *a, const void *b)
{
	const clink *x = a, *y = b;
	if (x->corr != y->corr)
		return x->corr < y->corr ? -1 : 1;
	return x->slice < y->slice ? -1 : (x->slice > y->slice);
}

/* The runtime call of a correlation id (the first in the file where
 * several carry it), or NULL. */
static const clink *launch_find(const GArray *launches, int64_t corr)
{
	size_t lo = 0, hi = launches->len;
	while (lo < hi) {
		size_t mid = (lo + hi) / 2;
		if (g_array_index(launches, clink, mid).corr < corr)
			lo = mid + 1;
		else
			hi = mid;
	}
	const clink *l = lo < launches->len ? &g_array_index(launches, clink, lo) : NULL;
	return l != NULL && l->corr == corr ? l : NULL;
}

#define OP_UNSEEN (UINT32_MAX - 1)

/* The innermost op slice (index into sp) around sp[k], or UINT32_MAX.
 * memo[j] keeps the answer for sp[j] and what is above it (OP_UNSEEN
 * where not found yet), so each chain is walked once. */
static uint32_t op_around(const creader *c, const tl_summary_slice *sp, const uint32_t *of,
			  uint32_t *memo, GArray *path, size_t k)
{
	uint32_t found = UINT32_MAX;
	g_array_set_size(path, 0);
	for (int64_t p = sp[k].parent; p >= 0; p = sp[p].parent) {
		if (memo[p] != OP_UNSEEN) {
			found = memo[p];
			break;
		}
		if (g_array_index(c->slices, cslice, of[p]).role == R_OP) {
			found = (uint32_t)p;
			break;
		}
		uint32_t up = (uint32_t)p;
		g_array_append_val(path, up);
	}
	for (guint i = 0; i < path->len; i++)
		memo[g_array_index(path, uint32_t, i)] = found;
	if (found != UINT32_MAX)
		memo[found] = found;
	return found;
}

/* Per slice k of sp, the op slice (index into sp) that launched it, or
 * UINT32_MAX: set for device slices whose runtime call is found nested in
 * an op. NULL where nothing links. */
static uint32_t *link_kernels(creader *c, const tl_summary_slice *sp, const uint32_t *of, size_t n)
{
	if (c->launches->len == 0 || c->kernels->len == 0)
		return NULL;
	qsort(c->launches->data, c->launches->len, sizeof(clink), cmp_link);
	uint32_t *at = g_new(uint32_t, c->slices->len); /* slice -> index into sp */
	memset(at, 0xff, (size_t)c->slices->len * sizeof *at);
	for (size_t k = 0; k < n; k++)
		at[of[k]] = (uint32_t)k;
	uint32_t *memo = g_new(uint32_t, n), *launcher = g_new(uint32_t, n);
	for (size_t k = 0; k < n; k++) {
		memo[k] = OP_UNSEEN;
		launcher[k] = UINT32_MAX;
	}
	GArray *path = g_array_new(FALSE, FALSE, sizeof(uint32_t));
	for (guint i = 0; i < c->kernels->len; i++) {
		const clink *kl = &g_array_index(c->kernels, clink, i);
		const clink *l = launch_find(c->launches, kl->corr);
		uint32_t kk = at[kl->slice];
		if (l == NULL || kk == UINT32_MAX || at[l->slice] == UINT32_MAX)
			continue;
		if (g_array_index(c->slices, cslice, of[kk]).kind == K_DEVICE)
			launcher[kk] = op_around(c, sp, of, memo, path, at[l->slice]);
	}
	g_array_free(path, TRUE);
	g_free(memo);
	g_free(at);
	return launcher;
}

/* A slice's values; a kernel under its op adds no occurrence to it. */
static void slice_vals(const cslice *x, const tl_summary_slice *sp, bool launched,
		       tl_summary_vals *v)
{
	double dur = (double)(sp->end - sp->start) / 1000.0;
	memset(v, 0, sizeof *v);
	v->v[x->kind == K_DEVICE ? TL_COL_ACCEL : TL_COL_CPU] = dur;
	v->v[TL_COL_TOTAL] = dur;
	v->v[TL_COL_SELF] = (double)sp->self / 1000.0;
	v->v[TL_COL_OCCURRENCE] = launched ? 0 : 1;
}

/* launcher: per slice, the op slice that launched it (link_kernels), or
 * NULL. */
static void add_slice_rows(creader *c, size_t ri, const tl_summary_slice *sp, const uint32_t *of,
			   size_t n, const uint32_t *launcher)
{
	GString *buf = g_string_new(NULL);
	for (size_t k = 0; k < n; k++) {
		const cslice *x = &g_array_index(c->slices, cslice, of[k]);
		bool launched = launcher != NULL && launcher[k] != UINT32_MAX;
		const cslice *rx =
		    launched ? &g_array_index(c->slices, cslice, of[launcher[k]]) : x;
		const char *name = row_name(c, rx, buf);
		if (name == NULL)
			continue;
		tl_summary_vals v;
		slice_vals(x, &sp[k], launched, &v);
		tl_row *r = tl_summary_row_add(c->s, name, ri, &v);
		if (c->s->view == TL_VIEW_KERNEL && r->extra == NULL && x->extra != UINT32_MAX)
			r->extra = g_strdup(str_of(c, x->extra));
	}
	g_string_free(buf, TRUE);
}

/* One thread's busy time as disjoint intervals, sorted, with the busy
 * time before each (so the busy time inside a window is two searches). */
typedef struct busy {
	uint64_t thread;
	bool device;
	GArray *iv; /* int64_t start, end, busy before start */
} busy;

static GArray *busy_new(const creader *c, const tl_summary_slice *sp, const uint32_t *of, size_t n)
{
	GArray *out = g_array_new(FALSE, FALSE, sizeof(busy));
	uint32_t *order = tl_summary_nest_order(sp, n);
	busy *b = NULL;
	int64_t acc = 0;
	for (size_t k = 0; k < n; k++) {
		const tl_summary_slice *x = &sp[order[k]];
		if (b == NULL || b->thread != x->thread) {
			const cslice *cs = &g_array_index(c->slices, cslice, of[order[k]]);
			busy nb = {x->thread, cs->kind == K_DEVICE,
				   g_array_new(FALSE, FALSE, 3 * sizeof(int64_t))};
			g_array_append_val(out, nb);
			b = &g_array_index(out, busy, out->len - 1);
			acc = 0;
		}
		int64_t *last =
		    b->iv->len ? (int64_t *)(void *)(b->iv->data) + 3 * (b->iv->len - 1) : NULL;
		if (last != NULL && x->start <= last[1]) {
			if (x->end > last[1]) {
				acc += x->end - last[1];
				last[1] = x->end;
			}
			continue;
		}
		int64_t e[3] = {x->start, x->end, acc};
		acc += x->end - x->start;
		g_array_append_vals(b->iv, e, 1);
	}
	g_free(order);
	return out;
}

/* Busy time of a thread before t. */
static int64_t busy_before(const busy *b, int64_t t)
{
	const int64_t *iv = (const int64_t *)(const void *)b->iv->data;
	size_t lo = 0, hi = b->iv->len; /* first interval starting at or after t */
	while (lo < hi) {
		size_t mid = (lo + hi) / 2;
		if (iv[3 * mid] < t)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo == 0)
		return 0;
	const int64_t *p = iv + 3 * (lo - 1);
	return p[2] + MIN(t, p[1]) - p[0];
}

/* The step view: a row per step (Kineto's ProfilerStep#N, TF2's "Steps"
 * line), or one for the whole trace: its wall time, and the busy time of
 * host threads (cpu) and device lines (accelerator) inside it. */
static void add_step_rows(creader *c, size_t ri, const tl_summary_slice *sp, const uint32_t *of,
			  size_t n, const char *label)
{
	GArray *steps = g_array_new(FALSE, FALSE, sizeof(uint32_t)); /* into c->slices */
	int64_t lo = INT64_MAX, hi = INT64_MIN;
	for (guint i = 0; i < c->slices->len; i++)
		if (is_step_slice(c, &g_array_index(c->slices, cslice, i)))
			g_array_append_val(steps, i);
	for (size_t k = 0; k < n; k++) {
		lo = MIN(lo, sp[k].start);
		hi = MAX(hi, sp[k].end);
	}
	GArray *busy_of = busy_new(c, sp, of, n);
	guint n_rows = steps->len ? steps->len : (n > 0);
	for (guint i = 0; i < n_rows; i++) {
		char *name = g_strdup(label);
		if (steps->len > 0) {
			uint32_t si = g_array_index(steps, uint32_t, i);
			const tl_summary_slice *w = &g_array_index(c->spans, tl_summary_slice, si);
			lo = w->start;
			hi = w->end;
			g_free(name);
			name = g_strdup_printf(
			    "%s %s", label, str_of(c, g_array_index(c->slices, cslice, si).name));
		}
		tl_summary_vals v = {{0}};
		v.v[TL_COL_TOTAL] = v.v[TL_COL_SELF] = (double)(hi - lo) / 1000.0;
		v.v[TL_COL_OCCURRENCE] = 1;
		for (guint b = 0; b < busy_of->len; b++) {
			const busy *t = &g_array_index(busy_of, busy, b);
			double us = (double)(busy_before(t, hi) - busy_before(t, lo)) / 1000.0;
			v.v[t->device ? TL_COL_ACCEL : TL_COL_CPU] += us;
		}
		tl_summary_row_add(c->s, name, ri, &v);
		g_free(name);
	}
	for (guint b = 0; b < busy_of->len; b++)
		g_array_free(g_array_index(busy_of, busy, b).iv, TRUE);
	g_array_free(busy_of, TRUE);
	g_array_free(steps, TRUE);
}

/* The slices that count (host and device), nested per thread; then the
 * view's rows. */
static void add_rows(creader *c, size_t ri, const char *label)
{
	classify_threads(c);
	size_t n = 0;
	tl_summary_slice *sp = g_new(tl_summary_slice, c->slices->len ? c->slices->len : 1);
	uint32_t *of = g_new(uint32_t, c->slices->len ? c->slices->len : 1);
	for (guint i = 0; i < c->slices->len; i++) {
		cslice *x = &g_array_index(c->slices, cslice, i);
		x->kind = x->cat != K_HOST ? x->cat : c->thread_kind[x->thread];
		if (x->kind != K_HOST && x->kind != K_DEVICE)
			continue;
		if (x->kind == K_DEVICE)
			c->s->have_device = true;
		sp[n] = g_array_index(c->spans, tl_summary_slice, i);
		sp[n].thread = x->thread;
		of[n++] = i;
	}
	if (tl_summary_nest(sp, n) > 0)
		c->s->nested = true;
	if (c->s->view == TL_VIEW_STEP) {
		add_step_rows(c, ri, sp, of, n, label);
	} else {
		uint32_t *launcher = link_kernels(c, sp, of, n);
		add_slice_rows(c, ri, sp, of, n, launcher);
		g_free(launcher);
	}
	g_free(sp);
	g_free(of);
}

int tl_summary_add_chrome(tl_summary *s, const uint8_t *data, size_t len, const char *label,
			  tl_error *err)
{
	tl_chrome_reader *r = NULL;
	if (tl_chrome_reader_open(&r, data, len, err) < 0)
		return -1;
	size_t ri = s->n_runs++;
	char *base = g_path_get_basename(label);
	char *valid = tl_summary_valid_dup(base);
	g_ptr_array_add(s->run_labels, g_strdup(valid));
	g_free(base);
	s->from_chrome = true;
	creader c = {
	    .s = s,
	    .str_ix = g_hash_table_new(g_str_hash, g_str_equal),
	    .strs = g_ptr_array_new(),
	    .chunk = g_string_chunk_new(1 << 16),
	    .slices = g_array_new(FALSE, FALSE, sizeof(cslice)),
	    .spans = g_array_new(FALSE, FALSE, sizeof(tl_summary_slice)),
	    .launches = g_array_new(FALSE, FALSE, sizeof(clink)),
	    .kernels = g_array_new(FALSE, FALSE, sizeof(clink)),
	    .buf = g_string_new(NULL),
	    .buf2 = g_string_new(NULL),
	};
	tl_chrome_ids_init(&c.ids);
	tl_chrome_in_event ev;
	int rc;
	while ((rc = tl_chrome_reader_next(r, &ev, err)) > 0) {
		if (ev.ph == 'M')
			tl_chrome_ids_meta(&c.ids, &ev);
		else if (ev.ph == 'X')
			read_slice(&c, &ev);
	}
	if (rc == 0)
		add_rows(&c, ri, valid);
	g_free(valid);
	tl_chrome_ids_free(&c.ids);
	g_free(c.thread_kind);
	g_hash_table_destroy(c.str_ix);
	g_ptr_array_free(c.strs, TRUE);
	g_string_chunk_free(c.chunk);
	g_array_free(c.slices, TRUE);
	g_array_free(c.spans, TRUE);
	g_array_free(c.launches, TRUE);
	g_array_free(c.kernels, TRUE);
	g_string_free(c.buf, TRUE);
	g_string_free(c.buf2, TRUE);
	tl_chrome_reader_close(r);
	return rc < 0 ? -1 : 0;
}
