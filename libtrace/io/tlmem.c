#include "io/tlmem.h"

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

/* Bytes and counter values: int64 in TensorFlow (requested_bytes). The
 * curve adds and subtracts them, and within +-2^62 any two add without
 * overflowing: the arithmetic's bound, as io/kineto_memory.c has it. */
#define VALUE_MAX ((int64_t)1 << 62)

/* The name of the allocator of a description with no allocator_name
 * (timeline.py's ''). */
#define NO_ALLOCATOR "(none)"

/* One tensor object while reading. */
struct obj {
	int64_t create_ns, delete_ns;
	bool has_snapshot, has_delete, bad;
	const char *name;      /* the tensor's name, in the arena */
	const char *pid;       /* its process's pid text, in the arena */
	const char *allocator; /* from its snapshot */
	const char *what;      /* dtype and shape */
	int64_t requested, allocated;
	uint64_t offset; /* of its N, for warnings */
};

/* One counter while reading. */
struct counter {
	int64_t t_ns, value;
	const char *allocator;
	const char *pid;
};

/* One event out, before its order is set. */
struct out_ev {
	tl_alloc_event e;
	const char *name; /* the tensor's, for the order; NULL for a sample */
	int64_t order;	  /* bytes, as the order has them */
	size_t seq;	  /* the object's place, then alloc (0) or free (1) */
};

struct treader {
	tl_arena *arena;
	GArray *objs;	    /* struct obj */
	GArray *counters;   /* struct counter */
	GHashTable *keys;   /* "pid\x1fid\x1fname" -> latest object + 1 */
	GHashTable *strs;   /* interned strings in the arena */
	GHashTable *pnames; /* pid text -> process name, in the arena */
	int64_t origin;
	bool has_origin;
	GString *buf, *buf2;
	tl_warn_log *warns; /* said once the input reads */
	bool side;	    /* a side stream: on the run's clock, its warnings dropped */
};

static const char *intern(struct treader *r, const char *s)
{
	const char *k = g_hash_table_lookup(r->strs, s);
	if (k == NULL) {
		k = tl_arena_strdup(r->arena, s);
		g_hash_table_insert(r->strs, (gpointer)k, (gpointer)k);
	}
	return k;
}

static const char *intern_span(struct treader *r, const tl_chrome_in_event *ev, tl_span s)
{
	g_string_truncate(r->buf2, 0);
	g_string_append_len(r->buf2, ev->raw + s.off, s.len);
	return intern(r, r->buf2->str);
}

static void held(struct treader *r, const char *key, uint64_t offset, const char *what)
{
	tl_warn(key, "%s (at byte %" PRIu64 ")", what, offset);
}

/* A whole number within +-VALUE_MAX, from text (a JSON number or the
 * digits of a protobuf field). */
static bool text_int(const char *text, int64_t *out)
{
	char *end = NULL;
	errno = 0;
	long long i = strtoll(text, &end, 10);
	if (end != text && *end == '\0' && errno == 0) {
		if (i > VALUE_MAX || i < -VALUE_MAX)
			return false;
		*out = (int64_t)i;
		return true;
	}
	double d = strtod(text, &end);
	if (end == text || *end != '\0' || !isfinite(d) || d != floor(d) ||
	    fabs(d) > (double)VALUE_MAX)
		return false;
	*out = (int64_t)d;
	return true;
}

/* The object's key: pid, id and name as the file writes them. */
static const char *obj_key(struct treader *r, const tl_chrome_in_event *ev)
{
	g_string_truncate(r->buf, 0);
	g_string_append_len(r->buf, ev->raw + ev->pid.off, ev->pid.len);
	g_string_append_c(r->buf, '\x1f');
	g_string_append_len(r->buf, ev->raw + ev->id.off, ev->id.len);
	g_string_append_c(r->buf, '\x1f');
	g_string_append_len(r->buf, ev->raw + ev->name.off, ev->name.len);
	return r->buf->str;
}

static bool ts_of(const tl_chrome_in_event *ev, int64_t *ns)
{
	return ev->has_ts && tl_chrome_reader_span_ns(ev, ev->ts, ns) == 1;
}

static void take_create(struct treader *r, const tl_chrome_in_event *ev)
{
	struct obj o = {.offset = ev->offset};
	if (!ts_of(ev, &o.create_ns)) {
		held(r, "tlmem-ts", ev->offset,
		     "a tensor object event has no usable ts: its tensor is left out");
		o.bad = true;
	}
	o.name = intern(r, tl_chrome_reader_span_text(ev, ev->name, r->buf2));
	o.pid = intern_span(r, ev, ev->pid);
	g_array_append_val(r->objs, o);
	g_hash_table_insert(r->keys, g_strdup(obj_key(r, ev)), GUINT_TO_POINTER(r->objs->len));
}

static struct obj *find(struct treader *r, const tl_chrome_in_event *ev)
{
	guint i = GPOINTER_TO_UINT(g_hash_table_lookup(r->keys, obj_key(r, ev)));
	return i > 0 ? &g_array_index(r->objs, struct obj, i - 1) : NULL;
}

/* Protobuf text escapes (\n, \t, \\, \', \", \ooo, \xHH) decoded, in place. */
static void unescape(char *s)
{
	char *w = s;
	for (const char *p = s; *p != '\0';) {
		if (*p != '\\' || p[1] == '\0') {
			*w++ = *p++;
			continue;
		}
		p++;
		char c = *p;
		if (c >= '0' && c <= '7') {
			int v = 0, n = 0;
			while (n < 3 && *p >= '0' && *p <= '7') {
				v = v * 8 + (*p++ - '0');
				n++;
			}
			*w++ = (char)(v & 0xff);
			continue;
		}
		if ((c == 'x' || c == 'X') && tl_json_scan_hex_value((uint8_t)p[1]) >= 0) {
			int v = 0, n = 0;
			p++;
			while (n < 2 && tl_json_scan_hex_value((uint8_t)*p) >= 0) {
				v = v * 16 + tl_json_scan_hex_value((uint8_t)*p++);
				n++;
			}
			*w++ = (char)v;
			continue;
		}
		p++;
		*w++ = c == 'n' ? '\n' : c == 't' ? '\t' : c == 'r' ? '\r' : c;
	}
	*w = '\0';
}

/* A DataType's name as a dtype: "DT_FLOAT" -> "float", "DT_FLOAT_REF" ->
 * "float_ref"; another text as it is. */
static void dtype_text(GString *out, const char *v)
{
	if (g_str_has_prefix(v, "DT_"))
		v += 3;
	for (; *v != '\0'; v++)
		g_string_append_c(out, g_ascii_tolower(*v));
}

/* The parts of a TensorDescription's text this reader uses. */
struct desc {
	GString *dtype, *dims;
	bool has_shape, unknown_rank, has_alloc;
	int64_t requested, allocated;
	char *allocator;
};

/* The description, one field or block per line as str() writes it. */
static bool parse_desc(char *text, struct desc *d)
{
	const char *path[8];
	size_t depth = 0;
	bool ok = true;
	char *save = NULL;
	for (char *line = strtok_r(text, "\n", &save); line != NULL;
	     line = strtok_r(NULL, "\n", &save)) {
		g_strstrip(line);
		size_t n = strlen(line);
		if (n == 0)
			continue;
		if (strcmp(line, "}") == 0) {
			if (depth == 0)
				return false;
			depth--;
			continue;
		}
		if (line[n - 1] == '{') {
			line[n - 1] = '\0';
			g_strstrip(line);
			if (depth == G_N_ELEMENTS(path))
				return false;
			path[depth++] = line;
			if (depth == 1 && strcmp(line, "shape") == 0)
				d->has_shape = true;
			if (depth == 1 && strcmp(line, "allocation_description") == 0)
				d->has_alloc = true;
			continue;
		}
		char *colon = strchr(line, ':');
		if (colon == NULL)
			continue;
		*colon = '\0';
		char *key = g_strstrip(line), *val = colon + 1;
		while (*val == ' ')
			val++;
		if (depth == 0 && strcmp(key, "dtype") == 0) {
			dtype_text(d->dtype, val);
		} else if (depth == 2 && strcmp(path[0], "shape") == 0 &&
			   strcmp(path[1], "dim") == 0 && strcmp(key, "size") == 0) {
			int64_t v;
			if (d->dims->len > 0)
				g_string_append_c(d->dims, ',');
			if (text_int(val, &v) && v >= 0)
				g_string_append_printf(d->dims, "%" PRId64, v);
			else
				g_string_append_c(d->dims, '?');
		} else if (depth == 1 && strcmp(path[0], "shape") == 0 &&
			   strcmp(key, "unknown_rank") == 0) {
			d->unknown_rank = strcmp(val, "true") == 0;
		} else if (depth == 1 && strcmp(path[0], "allocation_description") == 0) {
			if (strcmp(key, "requested_bytes") == 0)
				ok = ok && text_int(val, &d->requested) && d->requested >= 0;
			else if (strcmp(key, "allocated_bytes") == 0)
				ok = ok && text_int(val, &d->allocated) && d->allocated >= 0;
			else if (strcmp(key, "allocator_name") == 0) {
				g_free(d->allocator);
				d->allocator = g_strdup(val);
				unescape(d->allocator);
			}
		}
	}
	return ok && depth == 0;
}

/* The span of args.snapshot.tensor_description, or len 0. */
static tl_span desc_span(const tl_chrome_in_event *ev)
{
	tl_span none = {0, 0};
	if (ev->args.len < 2 || ev->raw[ev->args.off] != '{')
		return none;
	const uint8_t *base = (const uint8_t *)ev->raw;
	tl_json_scan s = {.end = base + ev->args.off + ev->args.len};
	const char *want[2] = {"snapshot", "tensor_description"};
	const uint8_t *p = tl_json_scan_ws(base + ev->args.off + 1, s.end);
	for (int level = 0; level < 2;) {
		if (p == NULL || p >= s.end || *p != '"')
			return none;
		const uint8_t *key;
		size_t klen;
		const uint8_t *v = tl_json_scan_member_key(&s, p, &key, &klen);
		const uint8_t *vend = v != NULL ? tl_json_scan_value(&s, v, 3) : NULL;
		if (vend == NULL)
			return none;
		if (klen == strlen(want[level]) && memcmp(key, want[level], klen) == 0) {
			if (level == 1)
				return *v == '"'
					   ? (tl_span){(uint32_t)(v - base), (uint32_t)(vend - v)}
					   : none;
			if (*v != '{')
				return none;
			level++;
			s.end = vend;
			p = tl_json_scan_ws(v + 1, s.end);
			continue;
		}
		p = tl_json_scan_ws(vend, s.end);
		if (p < s.end && *p == ',')
			p = tl_json_scan_ws(p + 1, s.end);
	}
	return none;
}

static void take_snapshot(struct treader *r, const tl_chrome_in_event *ev)
{
	struct obj *o = find(r, ev);
	if (o == NULL) {
		held(r, "tlmem-no-create", ev->offset,
		     "a tensor snapshot (O) follows no creation (N) of its id and name: skipped");
		return;
	}
	tl_span s = desc_span(ev);
	if (s.len == 0) {
		held(r, "tlmem-desc", ev->offset,
		     "a tensor snapshot (O) has no args.snapshot.tensor_description: its "
		     "tensor is left out");
		o->bad = true;
		return;
	}
	char *text = g_strdup(tl_chrome_reader_span_text(ev, s, r->buf));
	struct desc d = {.dtype = g_string_new(NULL), .dims = g_string_new(NULL)};
	if (!parse_desc(text, &d)) {
		held(r, "tlmem-desc", ev->offset,
		     "a tensor snapshot (O) has a tensor_description that does not read "
		     "(unbalanced braces, or bytes that are no whole number within 0..2^62): "
		     "its tensor is left out");
		o->bad = true;
	} else {
		o->has_snapshot = true;
		o->requested = d.requested;
		o->allocated = d.allocated;
		o->allocator = intern(
		    r, d.allocator != NULL && d.allocator[0] != '\0' ? d.allocator : NO_ALLOCATOR);
		GString *w = d.dtype;
		if (w->len == 0)
			g_string_assign(w, "?");
		if (d.unknown_rank)
			g_string_append(w, "[?]");
		else if (d.has_shape)
			g_string_append_printf(w, "[%s]", d.dims->str);
		o->what = intern(r, w->str);
	}
	g_string_free(d.dtype, TRUE);
	g_string_free(d.dims, TRUE);
	g_free(d.allocator);
	g_free(text);
}

static void take_delete(struct treader *r, const tl_chrome_in_event *ev)
{
	struct obj *o = find(r, ev);
	if (o == NULL || o->has_delete) {
		held(r, "tlmem-no-create", ev->offset,
		     "a tensor deletion (D) follows no open creation (N) of its id and name: "
		     "skipped");
		return;
	}
	if (!ts_of(ev, &o->delete_ns)) {
		held(r, "tlmem-ts", ev->offset,
		     "a tensor object event has no usable ts: its tensor is left out");
		o->bad = true;
		return;
	}
	o->has_delete = true;
}

/* A counter of cat "Memory": its value is the member of args named as the
 * event (timeline.py: {ALLOCATOR: bytes}), else args' only member. */
static void take_counter(struct treader *r, const tl_chrome_in_event *ev)
{
	if (ev->args.len < 2 || ev->raw[ev->args.off] != '{' || ev->name.len < 2)
		return;
	const uint8_t *base = (const uint8_t *)ev->raw;
	tl_json_scan s = {.end = base + ev->args.off + ev->args.len};
	const uint8_t *p = tl_json_scan_ws(base + ev->args.off + 1, s.end);
	const uint8_t *name = base + ev->name.off + 1;
	size_t name_len = ev->name.len - 2;
	tl_span val = {0, 0}, only = {0, 0};
	size_t members = 0;
	while (p != NULL && p < s.end && *p == '"') {
		const uint8_t *key;
		size_t klen;
		const uint8_t *v = tl_json_scan_member_key(&s, p, &key, &klen);
		const uint8_t *vend = v != NULL ? tl_json_scan_value(&s, v, 2) : NULL;
		if (vend == NULL)
			break;
		tl_span sp = {(uint32_t)(v - base), (uint32_t)(vend - v)};
		members++;
		only = sp;
		if (klen == name_len && memcmp(key, name, klen) == 0)
			val = sp;
		p = tl_json_scan_ws(vend, s.end);
		if (p < s.end && *p == ',')
			p = tl_json_scan_ws(p + 1, s.end);
	}
	if (val.len == 0 && members == 1)
		val = only;
	struct counter c;
	char text[64];
	if (val.len == 0 || val.len >= sizeof text || !ts_of(ev, &c.t_ns)) {
		held(r, "tlmem-counter", ev->offset,
		     "an allocator counter (C) has no usable ts or value: skipped");
		return;
	}
	memcpy(text, ev->raw + val.off, val.len);
	text[val.len] = '\0';
	if (!text_int(text, &c.value) || c.value < -VALUE_MAX) {
		held(r, "tlmem-counter", ev->offset,
		     "an allocator counter (C) has no usable ts or value: skipped");
		return;
	}
	const char *a = tl_chrome_reader_span_text(ev, ev->name, r->buf2);
	c.allocator = intern(r, a[0] != '\0' ? a : NO_ALLOCATOR);
	c.pid = intern_span(r, ev, ev->pid);
	g_array_append_val(r->counters, c);
}

static void take_process_name(struct treader *r, const tl_chrome_in_event *ev)
{
	if (!tl_chrome_reader_span_is(ev, ev->name, "\"process_name\"") || ev->args.len < 2)
		return;
	const uint8_t *base = (const uint8_t *)ev->raw;
	tl_json_scan s = {.end = base + ev->args.off + ev->args.len};
	const uint8_t *p = tl_json_scan_ws(base + ev->args.off + 1, s.end);
	while (p != NULL && p < s.end && *p == '"') {
		const uint8_t *key;
		size_t klen;
		const uint8_t *v = tl_json_scan_member_key(&s, p, &key, &klen);
		const uint8_t *vend = v != NULL ? tl_json_scan_value(&s, v, 2) : NULL;
		if (vend == NULL)
			return;
		if (klen == 4 && memcmp(key, "name", 4) == 0 && *v == '"') {
			tl_span sp = {(uint32_t)(v - base), (uint32_t)(vend - v)};
			const char *n = intern(r, tl_chrome_reader_span_text(ev, sp, r->buf));
			g_hash_table_insert(r->pnames, (gpointer)intern_span(r, ev, ev->pid),
					    (gpointer)n);
			return;
		}
		p = tl_json_scan_ws(vend, s.end);
		if (p < s.end && *p == ',')
			p = tl_json_scan_ws(p + 1, s.end);
	}
}

static void take(struct treader *r, const tl_chrome_in_event *ev)
{
	int64_t t;
	if (ev->ph != 'M' && ts_of(ev, &t)) {
		if (!r->has_origin || t < r->origin)
			r->origin = t;
		r->has_origin = true;
	}
	switch (ev->ph) {
	case 'M':
		take_process_name(r, ev);
		break;
	case 'N':
		if (tl_chrome_reader_span_is(ev, ev->cat, "\"Tensor\""))
			take_create(r, ev);
		break;
	case 'O':
		if (tl_chrome_reader_span_is(ev, ev->cat, "\"Tensor\""))
			take_snapshot(r, ev);
		break;
	case 'D':
		if (tl_chrome_reader_span_is(ev, ev->cat, "\"Tensor\""))
			take_delete(r, ev);
		break;
	case 'C':
		if (tl_chrome_reader_span_is(ev, ev->cat, "\"Memory\""))
			take_counter(r, ev);
		break;
	default:
		break;
	}
}

/* The device of a tensors process: its name less " Tensors". */
static const char *device_of(struct treader *r, const char *pid)
{
	const char *n = g_hash_table_lookup(r->pnames, pid);
	if (n == NULL) {
		char *s = g_strdup_printf("pid %s", pid);
		const char *d = intern(r, s);
		g_free(s);
		return d;
	}
	if (!g_str_has_suffix(n, " Tensors"))
		return n;
	char *s = g_strndup(n, strlen(n) - 8);
	const char *d = intern(r, s);
	g_free(s);
	return d;
}

/* timeline.py's order: time, then bytes (frees first), then name; then
 * the object's place and alloc before free. A tensor freed at its creation's
 * time (a producer of no duration that nothing reads) is freed right after
 * its allocation, where timeline.py frees it first (its counters dip below
 * what was live for no time; the totals, taken per time, agree). Samples
 * (name NULL) come after the events of their time. */
static gint cmp_out(gconstpointer a, gconstpointer b)
{
	const struct out_ev *x = a, *y = b;
	if (x->e.t_ns != y->e.t_ns)
		return x->e.t_ns < y->e.t_ns ? -1 : 1;
	if ((x->name == NULL) != (y->name == NULL))
		return x->name == NULL ? 1 : -1;
	if (x->order != y->order)
		return x->order < y->order ? -1 : 1;
	int c = x->name != NULL ? strcmp(x->name, y->name) : 0;
	if (c != 0)
		return c;
	return x->seq < y->seq ? -1 : x->seq > y->seq;
}

/* The allocation and free events of the objects kept. */
static void object_events(struct treader *r, bool damaged, GArray *out, GHashTable *devices)
{
	size_t overwritten = 0, undeleted = 0;
	/* later[i]: a later object has object i's name */
	bool *later = g_new0(bool, r->objs->len + 1);
	GHashTable *seen = g_hash_table_new(g_str_hash, g_str_equal);
	for (guint i = r->objs->len; i-- > 0;) {
		const struct obj *o = &g_array_index(r->objs, struct obj, i);
		later[i] = g_hash_table_contains(seen, o->name);
		g_hash_table_add(seen, (gpointer)o->name);
	}
	g_hash_table_destroy(seen);
	for (guint i = 0; i < r->objs->len; i++) {
		const struct obj *o = &g_array_index(r->objs, struct obj, i);
		if (o->bad)
			continue;
		if (!o->has_snapshot) {
			held(r, "tlmem-no-snapshot", o->offset,
			     "a tensor object has no snapshot (O) with its description: left out");
			continue;
		}
		if (!o->has_delete && later[i]) {
			overwritten++;
			continue;
		}
		if (!o->has_delete && !damaged)
			undeleted++;
		const char *dev = g_hash_table_lookup(devices, o->allocator);
		if (dev == NULL) {
			dev = device_of(r, o->pid);
			g_hash_table_insert(devices, (gpointer)o->allocator, (gpointer)dev);
		}
		struct out_ev a = {.e = {.t_ns = o->create_ns,
					 .device = dev,
					 .allocator = o->allocator,
					 .addr = (uint64_t)i + 1,
					 .bytes = o->requested,
					 .total_allocated = -1,
					 .total_reserved = -1,
					 .peak = -1,
					 .op = o->name,
					 .what = o->what,
					 .allocated = o->allocated},
				   .name = o->name,
				   .order = o->requested,
				   .seq = (size_t)i * 2};
		g_array_append_val(out, a);
		if (!o->has_delete)
			continue;
		struct out_ev f = a;
		f.e.t_ns = o->delete_ns > o->create_ns ? o->delete_ns : o->create_ns;
		f.e.bytes = -o->requested;
		f.order = o->delete_ns > o->create_ns ? -o->requested : o->requested;
		f.e.op = NULL;
		f.e.what = NULL;
		f.e.allocated = 0;
		f.seq++;
		g_array_append_val(out, f);
	}
	g_free(later);
	if (overwritten > 0)
		tl_warn("tlmem-overwritten",
			"%zu tensor objects have no deletion (D) and a later object of their name: "
			"timeline.py keeps only the last run of a node run several times in a "
			"step, and leaves the earlier ones out of its counters; left out here too",
			overwritten);
	if (undeleted > 0)
		tl_warn("tlmem-undeleted",
			"%zu tensor objects have no deletion (D): counted as never freed",
			undeleted);
}

/* The counters of one allocator's time, in file order. */
struct group {
	int64_t t_ns;
	size_t n;
	int64_t last;
};

static void free_groups(gpointer p)
{
	g_array_free(p, TRUE);
}

/* A counter with no event of its allocator at its time: a sample. */
static void add_sample(GArray *out, const char *allocator, GHashTable *devices,
		       const struct group *g)
{
	const char *dev = g_hash_table_lookup(devices, allocator);
	struct out_ev s = {.e = {.t_ns = g->t_ns,
				 .device = dev != NULL ? dev : "",
				 .allocator = allocator,
				 .total_allocated = g->last,
				 .total_reserved = -1,
				 .peak = -1}};
	g_array_append_val(out, s);
}

/* Each allocator's counters (those of the "Allocators" process), taken per
 * time: the last counter of a time (the allocator's total after every
 * event of that microsecond, whatever their order within it) is the
 * total_allocated of the allocator's last event of that time, or a sample
 * of its own (bytes 0, address 0) where it has none. timeline.py writes one
 * counter per event; where the numbers differ (an edited file), a warning.
 * In a damaged file the last time of each allocator's counters may be cut
 * short, and is left out. */
static void counters_onto(struct treader *r, bool damaged, GArray *out, GHashTable *devices)
{
	GHashTable *per = g_hash_table_new_full(g_str_hash, g_str_equal, NULL, free_groups);
	for (guint i = 0; i < r->counters->len; i++) {
		const struct counter *c = &g_array_index(r->counters, struct counter, i);
		const char *pn = g_hash_table_lookup(r->pnames, c->pid);
		if (pn == NULL || strcmp(pn, "Allocators") != 0)
			continue;
		GArray *gs = g_hash_table_lookup(per, c->allocator);
		if (gs == NULL) {
			gs = g_array_new(FALSE, FALSE, sizeof(struct group));
			g_hash_table_insert(per, (gpointer)c->allocator, gs);
		}
		struct group *last =
		    gs->len > 0 ? &g_array_index(gs, struct group, gs->len - 1) : NULL;
		if (last != NULL && last->t_ns == c->t_ns) {
			last->n++;
			last->last = c->value;
		} else {
			struct group g = {c->t_ns, 1, c->value};
			g_array_append_val(gs, g);
		}
	}
	GHashTableIter it;
	gpointer key, val;
	g_hash_table_iter_init(&it, per);
	while (g_hash_table_iter_next(&it, &key, &val)) {
		GArray *gs = val;
		if (damaged && gs->len > 0)
			g_array_set_size(gs, gs->len - 1);
		/* the allocator's events by time, against its counters' times */
		guint k = 0, n_events = out->len;
		bool odd = false, has_events = false;
		for (guint i = 0; i < n_events;) {
			struct out_ev *e = &g_array_index(out, struct out_ev, i);
			if (e->name == NULL || strcmp(e->e.allocator, key) != 0) {
				i++;
				continue;
			}
			int64_t t = e->e.t_ns;
			size_t n = 0;
			has_events = true;
			guint last = i;
			for (; i < n_events; i++) {
				const struct out_ev *f = &g_array_index(out, struct out_ev, i);
				if (f->e.t_ns != t)
					break;
				if (f->name != NULL && strcmp(f->e.allocator, key) == 0) {
					n++;
					last = i;
				}
			}
			for (; k < gs->len && g_array_index(gs, struct group, k).t_ns < t; k++) {
				odd = true;
				add_sample(out, key, devices, &g_array_index(gs, struct group, k));
			}
			if (k < gs->len && g_array_index(gs, struct group, k).t_ns == t) {
				const struct group *g = &g_array_index(gs, struct group, k++);
				g_array_index(out, struct out_ev, last).e.total_allocated = g->last;
				odd = odd || g->n != n;
			} else if (k < gs->len || !damaged) {
				odd = odd || gs->len > 0;
			}
		}
		for (; k < gs->len; k++) {
			odd = odd || has_events;
			add_sample(out, key, devices, &g_array_index(gs, struct group, k));
		}
		if (odd && gs->len > 0)
			tl_warn("tlmem-counters",
				"allocator '%s': its counters (C) do not follow its tensor objects "
				"one for one (an edited file): each time's last counter is taken "
				"as the allocator's total at that time",
				(const char *)key);
	}
	g_hash_table_destroy(per);
}

static void finish(struct treader *r, bool damaged, tl_alloc_events *out)
{
	GArray *evs = g_array_new(FALSE, FALSE, sizeof(struct out_ev));
	GHashTable *devices = g_hash_table_new(g_str_hash, g_str_equal);
	object_events(r, damaged, evs, devices);
	g_array_sort(evs, cmp_out);
	counters_onto(r, damaged, evs, devices);
	g_array_sort(evs, cmp_out);
	out->n = evs->len;
	out->ev = tl_arena_alloc(r->arena, (evs->len ? evs->len : 1) * sizeof *out->ev);
	/* the side stream keeps the file's clock, the run's */
	int64_t origin = r->side ? 0 : r->origin;
	for (guint i = 0; i < evs->len; i++) {
		out->ev[i] = g_array_index(evs, struct out_ev, i).e;
		out->ev[i].t_ns -= origin;
	}
	out->clock = r->side ? "the run's clock" : "trace start";
	g_hash_table_destroy(devices);
	g_array_free(evs, TRUE);
}

bool tl_tlmem_maybe(const uint8_t *data, size_t len)
{
	return memmem(data, len, "\"Allocators\"", 12) != NULL &&
	       (memmem(data, len, "\"Tensor\"", 8) != NULL ||
		memmem(data, len, "\"Memory\"", 8) != NULL);
}

static void treader_init(struct treader *r, tl_arena *arena)
{
	*r = (struct treader){.arena = arena};
	r->objs = g_array_new(FALSE, FALSE, sizeof(struct obj));
	r->counters = g_array_new(FALSE, FALSE, sizeof(struct counter));
	r->keys = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, NULL);
	r->strs = g_hash_table_new(g_str_hash, g_str_equal);
	r->pnames = g_hash_table_new(g_str_hash, g_str_equal);
	r->buf = g_string_new(NULL);
	r->buf2 = g_string_new(NULL);
}

static void treader_free(struct treader *r)
{
	g_array_free(r->objs, TRUE);
	g_array_free(r->counters, TRUE);
	g_hash_table_destroy(r->keys);
	g_hash_table_destroy(r->strs);
	g_hash_table_destroy(r->pnames);
	g_string_free(r->buf, TRUE);
	g_string_free(r->buf2, TRUE);
	tl_warn_log_drop(r->warns);
}

/* side: as tl_tlmem_alloc_events; else tl_tlmem_read (name set). */
static int read_memory(const uint8_t *data, size_t len, const char *name, tl_arena *arena,
		       tl_alloc_events *out, bool side, tl_error *err)
{
	*out = (tl_alloc_events){0};
	if (!tl_tlmem_maybe(data, len))
		return 0;
	tl_chrome_reader *cr = NULL;
	if (tl_chrome_reader_open(&cr, data, len, err) < 0)
		return -1;
	struct treader r;
	treader_init(&r, arena);
	r.warns = tl_warn_log_begin();
	tl_chrome_in_event ev;
	int rc;
	while ((rc = tl_chrome_reader_next(cr, &ev, err)) > 0)
		take(&r, &ev);
	tl_chrome_reader_close(cr);
	bool damaged = rc < 0;
	bool any = r.objs->len > 0 || r.counters->len > 0;
	if (damaged && (side || !any))
		rc = 0;
	if (rc < 0) {
		char why[sizeof err->msg];
		g_strlcpy(why, err->msg, sizeof why);
		rc = tl_warn_damage(err, name, "the events before it are read", "%s", why);
	}
	if (rc == 0 && any) {
		r.side = side;
		finish(&r, damaged, out);
	}
	tl_warn_log_end();
	if (rc == 0 && any && !side) {
		tl_warn_log_tell(r.warns);
		r.warns = NULL;
	}
	treader_free(&r);
	return rc < 0 ? -1 : 0;
}

int tl_tlmem_alloc_events(const uint8_t *data, size_t len, tl_arena *arena, tl_alloc_events *out,
			  tl_error *err)
{
	return read_memory(data, len, NULL, arena, out, true, err);
}

int tl_tlmem_read(const uint8_t *data, size_t len, const char *name, tl_arena *arena,
		  tl_alloc_events *out, tl_error *err)
{
	return read_memory(data, len, name, arena, out, false, err);
}
