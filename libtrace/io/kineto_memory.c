#include "io/kineto_memory.h"

#include "base/limits.h"
#include "base/warn.h"
#include "io/chrome_reader.h"
#include "io/json_scan.h"

#include <glib.h>

#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Bytes and totals: int64 in Kineto (c10's allocator counters). The curve
 * adds and subtracts them in pairs, and within +-2^62 any two add without
 * overflowing an int64: the arithmetic's bound; past it a value is damage. */
#define VALUE_MAX ((int64_t)1 << 62)
/* Times and durations have one bound, the model's (TL_TIME_LIMIT_NS in
 * base/limits.h, about 73 years either side of zero): epoch microseconds,
 * relative and negative times all pass. */

/* An op slice while reading: its thread is an index in the threads seen. */
struct slice {
	int64_t start, end;
	const char *name;
	uint32_t thread;
};

struct kreader {
	tl_arena *arena;
	GArray *events;		/* tl_alloc_event */
	GArray *threads;	/* uint32_t per event: its thread */
	GArray *slices;		/* struct slice */
	GHashTable *thread_ids; /* "pid/tid" -> index + 1 */
	GPtrArray *thread_names;
	GHashTable *names;   /* op name -> its copy in the arena */
	GHashTable *devices; /* (type << 32 | id) -> tl_alloc_event holding the names */
	int64_t origin;
	bool has_origin;
	size_t seen;
	GString *buf;
	tl_warn_log *warns; /* said only when the input reads */
};

/* The values of one [memory] event's args. */
struct mem_args {
	tl_span addr, bytes, total_alloc, total_res, dev_type, dev_id;
};

/* A number's text, a JSON number or the inside of a string, into text[64];
 * false when absent, empty or too long to be one. */
static bool span_number_text(const tl_chrome_in_event *ev, tl_span s, char text[64])
{
	if (s.len == 0)
		return false;
	const char *v = ev->raw + s.off;
	size_t n = s.len;
	if (v[0] == '"') {
		v++;
		n = n >= 2 ? n - 2 : 0;
	}
	if (n == 0 || n >= 64)
		return false;
	memcpy(text, v, n);
	text[n] = '\0';
	return true;
}

/* A whole number (a JSON number or a numeric string) within +-VALUE_MAX. */
static bool span_int(const tl_chrome_in_event *ev, tl_span s, int64_t *out)
{
	char text[64];
	if (!span_number_text(ev, s, text))
		return false;
	char *end = NULL;
	errno = 0;
	long long i = strtoll(text, &end, 10);
	if (*end == '\0' && errno == 0) {
		if (i > VALUE_MAX || i < -VALUE_MAX)
			return false;
		*out = (int64_t)i;
		return true;
	}
	double d = strtod(text, &end);
	if (*end != '\0' || !isfinite(d) || d != floor(d) || fabs(d) > (double)VALUE_MAX)
		return false;
	*out = (int64_t)d;
	return true;
}

/* An address: a whole number in [0, 2^64), decimal or "0x..." hex. */
static bool span_addr(const tl_chrome_in_event *ev, tl_span s, uint64_t *out)
{
	char text[64];
	if (!span_number_text(ev, s, text) || text[0] == '-')
		return false;
	char *end = NULL;
	errno = 0;
	unsigned long long a = strtoull(text, &end, 0);
	if (*end != '\0' || errno != 0)
		return false;
	*out = (uint64_t)a;
	return true;
}

/* The spans of the args this reader uses; false when args is no object. */
static bool scan_args(const tl_chrome_in_event *ev, struct mem_args *a)
{
	memset(a, 0, sizeof *a);
	if (ev->args.len < 2 || ev->raw[ev->args.off] != '{')
		return false;
	const uint8_t *base = (const uint8_t *)ev->raw;
	tl_json_scan s = {.end = base + ev->args.off + ev->args.len};
	const uint8_t *p = tl_json_scan_ws(base + ev->args.off + 1, s.end);
	while (p != NULL && p < s.end && *p == '"') {
		const uint8_t *key;
		size_t klen;
		const uint8_t *v = tl_json_scan_member_key(&s, p, &key, &klen);
		const uint8_t *vend = v != NULL ? tl_json_scan_value(&s, v, 2) : NULL;
		if (vend == NULL)
			return false;
		tl_span sp = {(uint32_t)(v - base), (uint32_t)(vend - v)};
#define KEY(k) (klen == sizeof(k) - 1 && memcmp(key, k, klen) == 0)
		if (KEY("Addr"))
			a->addr = sp;
		else if (KEY("Bytes"))
			a->bytes = sp;
		else if (KEY("Total Allocated"))
			a->total_alloc = sp;
		else if (KEY("Total Reserved"))
			a->total_res = sp;
		else if (KEY("Device Type"))
			a->dev_type = sp;
		else if (KEY("Device Id"))
			a->dev_id = sp;
#undef KEY
		p = tl_json_scan_ws(vend, s.end);
		if (p < s.end && *p == ',')
			p = tl_json_scan_ws(p + 1, s.end);
	}
	return true;
}

/* c10::DeviceType's names, by number (c10/core/DeviceType.h). */
static const char *const c10_types[] = {"CPU", "CUDA", "MKLDNN",     "OPENGL", "OPENCL", "IDEEP",
					"HIP", "FPGA", "MAIA",	     "XLA",    "Vulkan", "Metal",
					"XPU", "MPS",  "Meta",	     "HPU",    "VE",	 "Lazy",
					"IPU", "MTIA", "PrivateUse1"};

/* The event's device and allocator names, made once per (type, id). */
static void device_names(struct kreader *r, int64_t type, int64_t id, tl_alloc_event *e)
{
	uint64_t key = (uint64_t)(uint32_t)type << 32 | (uint32_t)id;
	const tl_alloc_event *known = g_hash_table_lookup(r->devices, &key);
	if (known != NULL) {
		e->device = known->device;
		e->allocator = known->allocator;
		return;
	}
	char *dev, *alloc;
	if (type == 0) {
		dev = g_strdup("/host:CPU");
		alloc = g_strdup("cpu");
	} else if (type == 1 || type == 6) {
		dev = g_strdup_printf("/device:GPU:%" PRId64, id);
		alloc = g_strdup_printf("cuda:%" PRId64, id);
	} else {
		char tname[32];
		if (type > 0 && (size_t)type < G_N_ELEMENTS(c10_types))
			snprintf(tname, sizeof tname, "%s", c10_types[type]);
		else
			snprintf(tname, sizeof tname, "TYPE%" PRId64, type);
		dev = g_strdup_printf("/device:%s:%" PRId64, tname, id);
		char *lower = g_ascii_strdown(tname, -1);
		alloc = g_strdup_printf("%s:%" PRId64, lower, id);
		g_free(lower);
	}
	e->device = tl_arena_strdup(r->arena, dev);
	e->allocator = tl_arena_strdup(r->arena, alloc);
	g_free(dev);
	g_free(alloc);
	uint64_t *k = tl_arena_alloc(r->arena, sizeof *k);
	*k = key;
	tl_alloc_event *names = tl_arena_alloc(r->arena, sizeof *names);
	*names = *e;
	g_hash_table_insert(r->devices, k, names);
}

static uint32_t thread_of(struct kreader *r, const tl_chrome_in_event *ev)
{
	g_string_truncate(r->buf, 0);
	g_string_append_len(r->buf, ev->raw + ev->pid.off, ev->pid.len);
	g_string_append_c(r->buf, '/');
	g_string_append_len(r->buf, ev->raw + ev->tid.off, ev->tid.len);
	gpointer v = g_hash_table_lookup(r->thread_ids, r->buf->str);
	if (v != NULL)
		return (uint32_t)(GPOINTER_TO_UINT(v) - 1);
	char *name = tl_arena_strdup(r->arena, r->buf->str);
	g_ptr_array_add(r->thread_names, name);
	g_hash_table_insert(r->thread_ids, name, GUINT_TO_POINTER(r->thread_names->len));
	return r->thread_names->len - 1;
}

/* ts or dur in ns from its digits, as io/chrome_run.c reads the same
 * file's timeline (its clock and ours must agree to the nanosecond); absent
 * or no number is 0; false past the limit. */
static bool ns_of(const tl_chrome_in_event *ev, tl_span s, int64_t *ns)
{
	int k = tl_chrome_reader_span_ns(ev, s, ns);
	if (k == 0)
		*ns = 0;
	return k >= 0;
}

/* Notes a [memory] event that is read in part or skipped, in the reader's
 * warning log: said once the input has read (an input that fails says one
 * line only). */
static void damaged(struct kreader *r, const char *key, const tl_chrome_in_event *ev,
		    const char *what)
{
	tl_warn(key, "a [memory] event (at byte %" PRIu64 ") %s", ev->offset, what);
}

/* A [memory] event into r->events; skipped with a warning when damaged. */
static void take_memory(struct kreader *r, const tl_chrome_in_event *ev)
{
	r->seen++;
	struct mem_args a;
	if (!scan_args(ev, &a)) {
		damaged(r, "kineto-memory-args", ev, "has no args: skipped");
		return;
	}
	tl_alloc_event e = {.total_allocated = -1, .total_reserved = -1, .peak = -1};
	int64_t type, id = 0;
	if (!ev->has_ts || !ns_of(ev, ev->ts, &e.t_ns)) {
		damaged(r, "kineto-memory-ts", ev,
			"has no ts, or one beyond 73 years from 0: skipped");
		return;
	}
	if (!span_int(ev, a.bytes, &e.bytes)) {
		damaged(r, "kineto-memory-bytes", ev,
			"has no Bytes that is a whole number within +-2^62: skipped");
		return;
	}
	/* c10's DeviceType and DeviceIndex are 8- and 16-bit; the bound is
	 * the (type, id) key's, two 32-bit halves */
	if (!span_int(ev, a.dev_type, &type) || type < 0 || type > INT32_MAX) {
		damaged(r, "kineto-memory-device", ev, "has no Device Type: skipped");
		return;
	}
	if (a.dev_id.len > 0 && (!span_int(ev, a.dev_id, &id) || id < -1 || id > INT32_MAX)) {
		damaged(r, "kineto-memory-device-id", ev,
			"has an unreadable Device Id: taken as 0");
		id = 0;
	}
	if (!span_addr(ev, a.addr, &e.addr)) {
		damaged(r, "kineto-memory-addr", ev,
			"has no usable Addr: in the curve, matched with no other event");
		e.addr = 0;
	}
	if (a.total_alloc.len > 0 &&
	    (!span_int(ev, a.total_alloc, &e.total_allocated) || e.total_allocated < 0)) {
		damaged(r, "kineto-memory-total", ev, "has an unreadable Total Allocated: ignored");
		e.total_allocated = -1;
	}
	if (a.total_res.len > 0 &&
	    (!span_int(ev, a.total_res, &e.total_reserved) || e.total_reserved < 0)) {
		damaged(r, "kineto-memory-reserved", ev,
			"has an unreadable Total Reserved: ignored");
		e.total_reserved = -1;
	}
	device_names(r, type, id, &e);
	uint32_t t = thread_of(r, ev);
	g_array_append_val(r->events, e);
	g_array_append_val(r->threads, t);
}

static bool is_op_slice(const tl_chrome_in_event *ev)
{
	return ev->ph == 'X' && (tl_chrome_reader_span_is(ev, ev->cat, "\"cpu_op\"") ||
				 tl_chrome_reader_span_is(ev, ev->cat, "\"Operator\"") ||
				 tl_chrome_reader_span_is(ev, ev->cat, "\"user_annotation\""));
}

static void take_slice(struct kreader *r, const tl_chrome_in_event *ev)
{
	int64_t start, dur;
	if (!ev->has_ts || !ns_of(ev, ev->ts, &start) || !ns_of(ev, ev->dur, &dur) || dur < 0 ||
	    start + dur >= TL_TIME_LIMIT_NS)
		return;
	const char *text = tl_chrome_reader_span_text(ev, ev->name, r->buf);
	const char *name = g_hash_table_lookup(r->names, text);
	if (name == NULL) {
		name = tl_arena_strdup(r->arena, text);
		g_hash_table_insert(r->names, (gpointer)name, (gpointer)name);
	}
	struct slice s = {
	    .start = start, .end = start + dur, .name = name, .thread = thread_of(r, ev)};
	g_array_append_val(r->slices, s);
}

/* By thread, then start, the outer (longer) slice first. */
static gint cmp_slice(gconstpointer a, gconstpointer b)
{
	const struct slice *x = a, *y = b;
	if (x->thread != y->thread)
		return x->thread < y->thread ? -1 : 1;
	if (x->start != y->start)
		return x->start < y->start ? -1 : 1;
	if (x->end != y->end)
		return x->end > y->end ? -1 : 1;
	return 0;
}

/* Event indexes by thread, then time, then file order. */
static gint cmp_event(gconstpointer a, gconstpointer b, gpointer user)
{
	const struct kreader *r = user;
	uint32_t i = *(const uint32_t *)a, j = *(const uint32_t *)b;
	uint32_t ti = g_array_index(r->threads, uint32_t, i);
	uint32_t tj = g_array_index(r->threads, uint32_t, j);
	if (ti != tj)
		return ti < tj ? -1 : 1;
	int64_t xi = g_array_index(r->events, tl_alloc_event, i).t_ns;
	int64_t xj = g_array_index(r->events, tl_alloc_event, j).t_ns;
	if (xi != xj)
		return xi < xj ? -1 : 1;
	return i < j ? -1 : i > j;
}

/* Each event's op: one sweep per thread over the slices in start order,
 * with the stack of those open at the event's time. */
static void assign_ops(struct kreader *r)
{
	size_t n = r->events->len;
	if (n == 0 || r->slices->len == 0)
		return;
	g_array_sort(r->slices, cmp_slice);
	uint32_t *order = g_new(uint32_t, n);
	for (size_t i = 0; i < n; i++)
		order[i] = (uint32_t)i;
	g_qsort_with_data(order, (gint)n, sizeof *order, cmp_event, r);
	const struct slice *sl = (const struct slice *)(void *)r->slices->data;
	size_t ns = r->slices->len, next = 0, depth = 0;
	const struct slice **stack = g_new(const struct slice *, ns);
	uint32_t cur = UINT32_MAX;
	for (size_t k = 0; k < n; k++) {
		tl_alloc_event *e = &g_array_index(r->events, tl_alloc_event, order[k]);
		uint32_t th = g_array_index(r->threads, uint32_t, order[k]);
		if (th != cur) {
			cur = th;
			depth = 0;
			while (next < ns && sl[next].thread < th)
				next++;
		}
		for (; next < ns && sl[next].thread == th && sl[next].start <= e->t_ns; next++) {
			while (depth > 0 && stack[depth - 1]->end < sl[next].start)
				depth--;
			stack[depth++] = &sl[next];
		}
		while (depth > 0 && stack[depth - 1]->end < e->t_ns)
			depth--;
		e->op = depth > 0 ? stack[depth - 1]->name : NULL;
	}
	g_free(stack);
	g_free(order);
}

static void finish(struct kreader *r, tl_alloc_events *out, tl_kineto_ops *ops)
{
	assign_ops(r);
	size_t n = r->events->len;
	out->ev = tl_arena_alloc(r->arena, (n ? n : 1) * sizeof *out->ev);
	for (size_t i = 0; i < n; i++) {
		out->ev[i] = g_array_index(r->events, tl_alloc_event, i);
		out->ev[i].t_ns -= r->origin;
	}
	out->n = n;
	out->clock = "trace start";
	if (ops == NULL)
		return;
	size_t m = r->slices->len;
	ops->op = tl_arena_alloc(r->arena, (m ? m : 1) * sizeof *ops->op);
	ops->n = m;
	for (size_t i = 0; i < m; i++) {
		const struct slice *s = &g_array_index(r->slices, struct slice, i);
		ops->op[i] =
		    (tl_kineto_op){.t_ns = s->start - r->origin,
				   .dur_ns = s->end - s->start,
				   .name = s->name,
				   .thread = g_ptr_array_index(r->thread_names, s->thread)};
	}
}

static void kreader_init(struct kreader *r, tl_arena *arena)
{
	*r = (struct kreader){.arena = arena};
	r->events = g_array_new(FALSE, FALSE, sizeof(tl_alloc_event));
	r->threads = g_array_new(FALSE, FALSE, sizeof(uint32_t));
	r->slices = g_array_new(FALSE, FALSE, sizeof(struct slice));
	r->thread_ids = g_hash_table_new(g_str_hash, g_str_equal);
	r->thread_names = g_ptr_array_new();
	r->names = g_hash_table_new(g_str_hash, g_str_equal);
	r->devices = g_hash_table_new(g_int64_hash, g_int64_equal);
	r->buf = g_string_new(NULL);
}

static void kreader_free(struct kreader *r)
{
	g_array_free(r->events, TRUE);
	g_array_free(r->threads, TRUE);
	g_array_free(r->slices, TRUE);
	g_hash_table_destroy(r->thread_ids);
	g_ptr_array_free(r->thread_names, TRUE);
	g_hash_table_destroy(r->names);
	g_hash_table_destroy(r->devices);
	g_string_free(r->buf, TRUE);
	tl_warn_log_drop(r->warns);
}

/* side: the events are a side stream of a timeline read from the same
 * data, which has said what damage it met: JSON damage keeps the events
 * before it and none usable is no error, both without a further word. */
static int read_memory(const uint8_t *data, size_t len, const char *name, tl_arena *arena,
		       tl_alloc_events *out, tl_kineto_ops *ops, bool side, tl_error *err)
{
	*out = (tl_alloc_events){0};
	if (ops != NULL)
		*ops = (tl_kineto_ops){0};
	tl_chrome_reader *cr = NULL;
	if (tl_chrome_reader_open(&cr, data, len, err) < 0)
		return -1;
	struct kreader r;
	kreader_init(&r, arena);
	r.warns = tl_warn_log_begin();
	tl_chrome_in_event ev;
	int rc;
	size_t events = 0;
	while ((rc = tl_chrome_reader_next(cr, &ev, err)) > 0) {
		events++;
		int64_t t;
		if (ev.ph != 'M' && ev.has_ts && ns_of(&ev, ev.ts, &t)) {
			if (!r.has_origin || t < r.origin)
				r.origin = t;
			r.has_origin = true;
		}
		if ((ev.ph == 'i' || ev.ph == 'I') &&
		    tl_chrome_reader_span_is(&ev, ev.name, "\"[memory]\""))
			take_memory(&r, &ev);
		else if (is_op_slice(&ev))
			take_slice(&r, &ev);
	}
	tl_chrome_reader_close(cr);
	tl_warn_log_end();
	if (rc < 0 && side)
		rc = 0;
	if (rc < 0 && events > 0) {
		char why[sizeof err->msg];
		g_strlcpy(why, err->msg, sizeof why);
		rc = tl_warn_damage(err, name, "the events before it are read", "%s", why);
	}
	if (rc == 0 && !side && r.seen > 0 && r.events->len == 0)
		rc = tl_error_set(err, "none of its %zu [memory] events is usable", r.seen);
	if (rc == 0) {
		finish(&r, out, ops);
		tl_warn_log_tell(r.warns);
		r.warns = NULL;
	}
	kreader_free(&r);
	return rc < 0 ? -1 : 0;
}

int tl_kineto_memory_read(const uint8_t *data, size_t len, const char *name, tl_arena *arena,
			  tl_alloc_events *out, tl_kineto_ops *ops, tl_error *err)
{
	return read_memory(data, len, name, arena, out, ops, false, err);
}

int tl_kineto_alloc_events(const uint8_t *data, size_t len, tl_arena *arena, tl_alloc_events *out,
			   tl_error *err)
{
	return read_memory(data, len, NULL, arena, out, NULL, true, err);
}
