/* A TF 2.0 profiler trace as an XSpace (io/tf2trace.h). One pass decodes
 * the devices and the events (spans into the input); a second groups the
 * events by line and writes the XSpace a plane at a time. */
#include "io/tf2trace.h"

#include "io/pbwire.h"

#include <glib.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

enum { WT_VARINT = 0, WT_I64 = 1, WT_LEN = 2, WT_I32 = 5 };

/* Field numbers (trace_events.proto). */
enum {
	TRACE_DEVICES = 1,
	TRACE_EVENTS = 4,
	DEVICE_NAME = 1,
	DEVICE_ID = 2,
	DEVICE_RESOURCES = 3,
	RESOURCE_NAME = 1,
	RESOURCE_ID = 2,
	EV_DEVICE = 1,
	EV_RESOURCE = 2,
	EV_NAME = 3,
	EV_TS = 9,
	EV_DUR = 10,
	EV_ARGS = 11,
	ENTRY_KEY = 1,
	ENTRY_VALUE = 2,
};

/* XSpace's (xplane.proto), for what is written. */
enum {
	XSPACE_PLANES = 1,
	XSPACE_HOSTNAMES = 4,
	XPLANE_ID = 1,
	XPLANE_NAME = 2,
	XPLANE_LINES = 3,
	XPLANE_EVENT_MD = 4,
	XPLANE_STAT_MD = 5,
	XLINE_ID = 1,
	XLINE_NAME = 2,
	XLINE_TS_NS = 3,
	XLINE_EVENTS = 4,
	XEVENT_MD = 1,
	XEVENT_OFFSET_PS = 2,
	XEVENT_DURATION_PS = 3,
	XEVENT_STATS = 4,
	XSTAT_MD = 1,
	XSTAT_INT64 = 4,
	XSTAT_STR = 5,
	MD_ID = 1,
	MD_NAME = 2,
};

#define WHAT "a TF 2.0 profiler trace (tensorflow.profiler.Trace)"

typedef struct fld {
	uint32_t num;
	unsigned wt;
	uint64_t v;
	const uint8_t *sub;
	size_t sub_len;
} fld;

/* A varint at *pos: the one-byte case (keys, ids, lengths of names) here,
 * the rest by tl_pbwire_varint. */
static inline __attribute__((always_inline)) bool varint(const uint8_t *d, size_t n, size_t *pos,
							 uint64_t *out)
{
	if (*pos < n && d[*pos] < 0x80) {
		*out = d[(*pos)++];
		return true;
	}
	return tl_pbwire_varint(d, n, pos, out);
}

/* The next field at *pos: 1, 0 at the end, -1 when it does not frame. */
static inline __attribute__((always_inline)) int next_field(const uint8_t *d, size_t n,
							    size_t *pos, fld *f)
{
	if (*pos >= n)
		return 0;
	uint64_t key;
	if (!varint(d, n, pos, &key) || key >> 3 == 0 || key >> 3 > UINT32_MAX)
		return -1;
	f->num = (uint32_t)(key >> 3);
	f->wt = (unsigned)(key & 7);
	switch (f->wt) {
	case WT_VARINT:
		return varint(d, n, pos, &f->v) ? 1 : -1;
	case WT_I64:
		if (n - *pos < 8)
			return -1;
		*pos += 8;
		return 1;
	case WT_I32:
		if (n - *pos < 4)
			return -1;
		*pos += 4;
		return 1;
	case WT_LEN:
		if (!varint(d, n, pos, &f->v) || f->v > n - *pos)
			return -1;
		f->sub = d + *pos;
		f->sub_len = (size_t)f->v;
		*pos += f->sub_len;
		return 1;
	default: /* groups: proto3 has none */
		return -1;
	}
}

/* A known field of the wrong wire type makes its message undecodable, as
 * protobuf's parsers have it. */
static bool want(const fld *f, unsigned wt)
{
	return f->wt == wt;
}

/* ---- decoding ------------------------------------------------------------ */

/* A map entry {1: varint key, 2: message}: false when it does not decode. */
static bool read_entry(const uint8_t *d, size_t n, uint32_t *key, const uint8_t **val,
		       size_t *val_len)
{
	size_t pos = 0;
	fld f;
	int rc;
	*key = 0;
	*val = NULL;
	*val_len = 0;
	while ((rc = next_field(d, n, &pos, &f)) > 0) {
		if (f.num == ENTRY_KEY) {
			if (!want(&f, WT_VARINT))
				return false;
			*key = (uint32_t)f.v;
		} else if (f.num == ENTRY_VALUE) {
			if (!want(&f, WT_LEN))
				return false;
			*val = f.sub;
			*val_len = f.sub_len;
		}
	}
	return rc == 0;
}

static const char *str_in(tl_arena *arena, const fld *f)
{
	return tl_arena_strndup(arena, (const char *)f->sub, f->sub_len);
}

static bool read_resource(const uint8_t *d, size_t n, tl_tf2trace_resource *r, tl_arena *arena)
{
	size_t pos = 0;
	fld f;
	int rc;
	while ((rc = next_field(d, n, &pos, &f)) > 0) {
		if (f.num == RESOURCE_NAME) {
			if (!want(&f, WT_LEN))
				return false;
			r->name = str_in(arena, &f);
		} else if (f.num == RESOURCE_ID) {
			if (!want(&f, WT_VARINT))
				return false;
			r->id = (uint32_t)f.v;
		}
	}
	return rc == 0;
}

/* Puts r among d's resources: a key met again keeps the last value. */
static void put_resource(GArray *res, GHashTable *by_key, const tl_tf2trace_resource *r)
{
	gpointer hit = g_hash_table_lookup(by_key, GUINT_TO_POINTER(r->key));
	if (hit != NULL) {
		g_array_index(res, tl_tf2trace_resource, GPOINTER_TO_UINT(hit) - 1) = *r;
		return;
	}
	g_array_append_val(res, *r);
	g_hash_table_insert(by_key, GUINT_TO_POINTER(r->key), GUINT_TO_POINTER(res->len));
}

static bool read_device(const uint8_t *d, size_t n, tl_tf2trace_device *dev, tl_arena *arena)
{
	GArray *res = g_array_new(FALSE, FALSE, sizeof(tl_tf2trace_resource));
	GHashTable *by_key = g_hash_table_new(g_direct_hash, g_direct_equal);
	size_t pos = 0;
	fld f;
	int rc;
	bool ok = true;
	while (ok && (rc = next_field(d, n, &pos, &f)) > 0) {
		if (f.num == DEVICE_NAME) {
			ok = want(&f, WT_LEN);
			if (ok)
				dev->name = str_in(arena, &f);
		} else if (f.num == DEVICE_ID) {
			ok = want(&f, WT_VARINT);
			dev->id = (uint32_t)f.v;
		} else if (f.num == DEVICE_RESOURCES) {
			tl_tf2trace_resource r = {.name = ""};
			const uint8_t *v;
			size_t vn;
			ok = want(&f, WT_LEN) && read_entry(f.sub, f.sub_len, &r.key, &v, &vn) &&
			     read_resource(v, vn, &r, arena);
			if (ok)
				put_resource(res, by_key, &r);
		}
	}
	ok = ok && rc == 0;
	dev->n_res = res->len;
	dev->res = tl_arena_alloc(arena, (res->len + 1) * sizeof *dev->res);
	if (res->len > 0)
		memcpy(dev->res, res->data, res->len * sizeof *dev->res);
	g_array_free(res, TRUE);
	g_hash_table_destroy(by_key);
	return ok;
}

/* An argument entry {1: key, 2: value}, both strings. */
static bool read_arg(const uint8_t *d, size_t n, tl_tf2trace_arg *a)
{
	size_t pos = 0;
	fld f;
	int rc;
	*a = (tl_tf2trace_arg){.key = d, .value = d};
	while ((rc = next_field(d, n, &pos, &f)) > 0) {
		if (f.num != ENTRY_KEY && f.num != ENTRY_VALUE)
			continue;
		if (!want(&f, WT_LEN))
			return false;
		if (f.num == ENTRY_KEY) {
			a->key = f.sub;
			a->key_len = f.sub_len;
		} else {
			a->value = f.sub;
			a->value_len = f.sub_len;
		}
	}
	return rc == 0;
}

static bool read_event(const uint8_t *d, size_t n, tl_tf2trace_event *e)
{
	*e = (tl_tf2trace_event){.raw = d, .raw_len = (uint32_t)n, .name = d};
	size_t pos = 0;
	fld f;
	int rc;
	while ((rc = next_field(d, n, &pos, &f)) > 0) {
		switch (f.num) {
		case EV_DEVICE:
		case EV_RESOURCE:
		case EV_TS:
		case EV_DUR:
			if (!want(&f, WT_VARINT))
				return false;
			if (f.num == EV_DEVICE)
				e->device_id = (uint32_t)f.v;
			else if (f.num == EV_RESOURCE)
				e->resource_id = (uint32_t)f.v;
			else if (f.num == EV_TS)
				e->timestamp_ps = f.v;
			else
				e->duration_ps = f.v;
			break;
		case EV_NAME:
			if (!want(&f, WT_LEN))
				return false;
			e->name = f.sub;
			e->name_len = (uint32_t)f.sub_len;
			break;
		case EV_ARGS: {
			tl_tf2trace_arg a;
			if (!want(&f, WT_LEN) || !read_arg(f.sub, f.sub_len, &a))
				return false;
			e->n_args++;
			break;
		}
		default:
			break;
		}
	}
	return rc == 0;
}

void tl_tf2trace_arg_at(const tl_tf2trace_event *ev, uint32_t i, tl_tf2trace_arg *out)
{
	size_t pos = 0;
	fld f;
	uint32_t k = 0;
	while (next_field(ev->raw, ev->raw_len, &pos, &f) > 0)
		if (f.num == EV_ARGS && k++ == i) {
			read_arg(f.sub, f.sub_len, out);
			return;
		}
	*out = (tl_tf2trace_arg){0};
}

int tl_tf2trace_read(tl_tf2trace *t, const uint8_t *data, size_t len, tl_arena *arena,
		     tl_error *err)
{
	memset(t, 0, sizeof *t);
	if (len > (size_t)INT32_MAX)
		return tl_error_set(err, "%zu bytes is over protobuf's 2 GiB limit for one message",
				    len);
	/* the events' fields counted first (a walk over the top level alone),
	 * so that they are decoded into their array in the arena at once */
	size_t pos = 0, at = 0, n_ev = 0;
	fld f;
	int rc;
	while (next_field(data, len, &pos, &f) > 0)
		n_ev += f.num == TRACE_EVENTS && f.wt == WT_LEN;
	t->ev = tl_arena_alloc(arena, (n_ev + 1) * sizeof *t->ev);
	GArray *devs = g_array_new(FALSE, FALSE, sizeof(tl_tf2trace_device));
	GHashTable *dev_ix = g_hash_table_new(g_direct_hash, g_direct_equal);
	pos = 0;
	while ((rc = next_field(data, len, &pos, &f)) > 0) {
		if (f.num == TRACE_EVENTS && f.wt == WT_LEN) {
			t->n_fields_ev++;
			if (read_event(f.sub, f.sub_len, &t->ev[t->n_ev]))
				t->n_ev++;
			else
				t->c.bad_events++;
		} else if (f.num == TRACE_EVENTS) {
			t->n_fields_ev++;
			t->c.bad_events++;
		} else if (f.num == TRACE_DEVICES) {
			tl_tf2trace_device d = {.name = ""};
			const uint8_t *v;
			size_t vn;
			if (!want(&f, WT_LEN) || !read_entry(f.sub, f.sub_len, &d.key, &v, &vn) ||
			    !read_device(v, vn, &d, arena)) {
				t->c.bad_devices++;
			} else {
				gpointer hit = g_hash_table_lookup(dev_ix, GUINT_TO_POINTER(d.key));
				if (hit != NULL) {
					g_array_index(devs, tl_tf2trace_device,
						      GPOINTER_TO_UINT(hit) - 1) = d;
				} else {
					g_array_append_val(devs, d);
					g_hash_table_insert(dev_ix, GUINT_TO_POINTER(d.key),
							    GUINT_TO_POINTER(devs->len));
				}
			}
		}
		at = pos;
	}
	g_hash_table_destroy(dev_ix);
	if (rc < 0) {
		t->c.cut = true;
		t->c.cut_at = at;
	}
	if (rc < 0 && at == 0) {
		g_array_free(devs, TRUE);
		t->ev = NULL;
		return tl_error_set(err, "no protobuf field frames at byte 0");
	}
	t->n_dev = devs->len;
	t->dev = tl_arena_alloc(arena, (devs->len + 1) * sizeof *t->dev);
	if (devs->len > 0)
		memcpy(t->dev, devs->data, devs->len * sizeof *t->dev);
	g_array_free(devs, TRUE);
	return 0;
}

/* ---- sniffing ------------------------------------------------------------ */

/* Whether d[0..n) walks as a Device: a text name, a varint id, resource
 * entries and nothing else, and a name or an id. */
static bool walks_as_device(const uint8_t *d, size_t n)
{
	size_t pos = 0;
	fld f;
	int rc;
	bool named = false;
	while ((rc = next_field(d, n, &pos, &f)) > 0) {
		if (f.num == DEVICE_NAME) {
			if (f.wt != WT_LEN ||
			    !g_utf8_validate((const char *)f.sub, (gssize)f.sub_len, NULL))
				return false;
			named = true;
		} else if (f.num == DEVICE_ID) {
			if (f.wt != WT_VARINT)
				return false;
			named = true;
		} else if (f.num != DEVICE_RESOURCES || f.wt != WT_LEN) {
			return false;
		}
	}
	return rc == 0 && named;
}

/* Whether a devices map entry starts d[0..n): its key, then a Device. */
static bool walks_as_device_entry(const uint8_t *d, size_t n)
{
	size_t pos = 0;
	fld f;
	int rc;
	bool dev = false;
	while ((rc = next_field(d, n, &pos, &f)) > 0) {
		if (f.num == ENTRY_KEY && f.wt == WT_VARINT)
			continue;
		if (f.num != ENTRY_VALUE || f.wt != WT_LEN || !walks_as_device(f.sub, f.sub_len))
			return false;
		dev = true;
	}
	return rc == 0 && dev;
}

/* Whether d[0..n) decodes as a TraceEvent (fields of later versions
 * passed over) holding one of its numbers (a device, resource, time or
 * duration: a name alone is what many messages' field 3 holds, RunMetadata's
 * function_graphs among them). */
static bool walks_as_event(const uint8_t *d, size_t n)
{
	tl_tf2trace_event e;
	if (!read_event(d, n, &e))
		return false;
	size_t pos = 0;
	fld f;
	bool number = false;
	while (next_field(d, n, &pos, &f) > 0)
		if (f.num == EV_TS || f.num == EV_DUR || f.num == EV_DEVICE || f.num == EV_RESOURCE)
			number = true;
	return number;
}

bool tl_tf2trace_sniff(const uint8_t *data, size_t len)
{
	size_t pos = 0;
	fld f;
	if (next_field(data, len, &pos, &f) <= 0 || f.wt != WT_LEN)
		return false;
	if (f.num == TRACE_DEVICES ? !walks_as_device_entry(f.sub, f.sub_len)
	    : f.num == TRACE_EVENTS ? !walks_as_event(f.sub, f.sub_len)
				    : true)
		return false;
	/* Trace's fields alone, and an event among them before any cut (a
	 * StepStats whose first device has no name can start as a device
	 * entry does; it holds no field 4) */
	bool events = f.num == TRACE_EVENTS;
	int rc;
	pos = 0;
	while ((rc = next_field(data, len, &pos, &f)) > 0) {
		if ((f.num != TRACE_DEVICES && f.num != TRACE_EVENTS) || f.wt != WT_LEN)
			return false;
		events |= f.num == TRACE_EVENTS;
	}
	return events;
}

/* ---- the XSpace ------------------------------------------------------------ */

/* A span of bytes as a hash key. */
typedef struct span {
	const uint8_t *p;
	size_t n;
} span;

static guint span_hash(gconstpointer k)
{
	const span *s = k;
	guint h = 5381;
	for (size_t i = 0; i < s->n; i++)
		h = h * 33 + s->p[i];
	return h;
}

static gboolean span_equal(gconstpointer a, gconstpointer b)
{
	const span *x = a, *y = b;
	return x->n == y->n && (x->n == 0 || memcmp(x->p, y->p, x->n) == 0);
}

/* Names -> ids from 1, in order of first use (a plane's event or stat
 * metadata). */
typedef struct md {
	GHashTable *ids; /* span * -> id */
	GArray *names;	 /* span, names[i] has id i + 1 */
} md;

static void md_init(md *m)
{
	m->ids = g_hash_table_new_full(span_hash, span_equal, g_free, NULL);
	m->names = g_array_new(FALSE, FALSE, sizeof(span));
}

static void md_free(md *m)
{
	g_hash_table_destroy(m->ids);
	g_array_free(m->names, TRUE);
}

static uint64_t md_id(md *m, const uint8_t *p, size_t n)
{
	span key = {p, n};
	gpointer hit = g_hash_table_lookup(m->ids, &key);
	if (hit != NULL)
		return GPOINTER_TO_SIZE(hit);
	g_array_append_val(m->names, key);
	span *k = g_new(span, 1);
	*k = key;
	g_hash_table_insert(m->ids, k, GSIZE_TO_POINTER(m->names->len));
	return m->names->len;
}

/* The metadata map entries of a plane: field `field`, {1: id, 2: {1: id, 2: name}}. */
static void put_md(GByteArray *o, uint32_t field, const md *m)
{
	for (guint i = 0; i < m->names->len; i++) {
		const span *s = &g_array_index(m->names, span, i);
		size_t entry = tl_pbwire_begin_len(o, field);
		tl_pbwire_put_tag(o, ENTRY_KEY, WT_VARINT);
		tl_pbwire_put_varint(o, i + 1);
		size_t val = tl_pbwire_begin_len(o, ENTRY_VALUE);
		tl_pbwire_put_tag(o, MD_ID, WT_VARINT);
		tl_pbwire_put_varint(o, i + 1);
		tl_pbwire_put_bytes(o, MD_NAME, s->p, s->n);
		tl_pbwire_end_len(o, val);
		tl_pbwire_end_len(o, entry);
	}
}

/* An int64 as TF printed one (absl::StrCat): an optional '-', digits, no
 * leading zero. */
static bool int_text(const uint8_t *s, size_t n, int64_t *out)
{
	size_t i = n > 0 && s[0] == '-' ? 1 : 0;
	if (n == i || n - i > 19 || (s[i] == '0' && n - i > 1))
		return false;
	uint64_t v = 0;
	for (size_t k = i; k < n; k++) {
		if (s[k] < '0' || s[k] > '9')
			return false;
		v = v * 10 + (uint64_t)(s[k] - '0');
	}
	if (i == 1 ? v > (uint64_t)INT64_MAX + 1 : v > (uint64_t)INT64_MAX)
		return false;
	if (i == 1 && v == 0)
		return false; /* "-0" */
	*out = i == 1 ? (int64_t)(0 - v) : (int64_t)v;
	return true;
}

/* A line of the XSpace: a resource of a plane, the events of one window
 * of 2^62 ps (an XEvent's offset is an int64: a resource whose events
 * span more than that, as uint64 picoseconds can, is written as a line
 * per window, all of its id and name). */
#define WINDOW_SHIFT 62
typedef struct xline {
	uint32_t plane;
	uint32_t key; /* the resource's key */
	uint32_t window;
	const char *name;
	uint64_t base_ps; /* its window's start: the trace's zero for the first */
	size_t n;	  /* events */
} xline;

typedef struct xplane_out {
	uint32_t key;
	const char *name;
	GArray *lines; /* uint32_t: indexes into the lines */
} xplane_out;

typedef struct builder {
	const tl_tf2trace *t;
	tl_arena *arena;
	GArray *planes;		 /* xplane_out */
	GArray *lines;		 /* xline */
	GHashTable *plane_ix;	 /* device key -> plane index + 1 */
	GHashTable *line_ix;	 /* (plane << 32 | resource key) -> line index + 1 */
	uint32_t *line_of;	 /* per event */
	size_t bad_time;
} builder;

static uint32_t plane_for(builder *b, uint32_t key, const char *name)
{
	gpointer hit = g_hash_table_lookup(b->plane_ix, GUINT_TO_POINTER(key));
	if (hit != NULL)
		return GPOINTER_TO_UINT(hit) - 1;
	xplane_out p = {.key = key, .name = name, .lines = g_array_new(FALSE, FALSE, sizeof(uint32_t))};
	if (p.name == NULL) {
		char *n = g_strdup_printf("/device:unknown:%" PRIu32, key);
		p.name = tl_arena_strdup(b->arena, n);
		g_free(n);
	}
	g_array_append_val(b->planes, p);
	g_hash_table_insert(b->plane_ix, GUINT_TO_POINTER(key), GUINT_TO_POINTER(b->planes->len));
	return b->planes->len - 1;
}

static uint32_t line_for(builder *b, uint32_t plane, uint32_t key, uint32_t window,
			 const char *name)
{
	/* plane < 2^30 (planes are devices, each from at least one entry or
	 * event of an input under 2 GiB), window < 4 */
	int64_t k = (int64_t)(((uint64_t)plane << 34) | ((uint64_t)window << 32) | key);
	gpointer hit = g_hash_table_lookup(b->line_ix, &k);
	if (hit != NULL)
		return GPOINTER_TO_UINT(hit) - 1;
	const char *named = name;
	if (named == NULL && window > 0) /* the name of its window 0 */
		named = g_array_index(b->lines, xline, line_for(b, plane, key, 0, NULL)).name;
	xline l = {.plane = plane, .key = key, .window = window, .name = named != NULL ? named : ""};
	g_array_append_val(b->lines, l);
	int64_t *kk = g_new(int64_t, 1);
	*kk = k;
	g_hash_table_insert(b->line_ix, kk, GUINT_TO_POINTER(b->lines->len));
	uint32_t ix = b->lines->len - 1;
	g_array_append_val(g_array_index(b->planes, xplane_out, plane).lines, ix);
	return ix;
}

/* Planes and lines of the devices' entries, then each event's. */
static void place_events(builder *b)
{
	const tl_tf2trace *t = b->t;
	for (size_t d = 0; d < t->n_dev; d++) {
		const tl_tf2trace_device *dev = &t->dev[d];
		uint32_t p = plane_for(b, dev->key, dev->name);
		for (size_t r = 0; r < dev->n_res; r++)
			line_for(b, p, dev->res[r].key, 0, dev->res[r].name);
	}
	b->line_of = g_new(uint32_t, t->n_ev + 1);
	uint32_t last_dev = 0, last_res = 0, last_win = 0, last_line = UINT32_MAX;
	for (size_t i = 0; i < t->n_ev; i++) {
		const tl_tf2trace_event *e = &t->ev[i];
		uint32_t win = (uint32_t)(e->timestamp_ps >> WINDOW_SHIFT);
		uint32_t l;
		if (last_line != UINT32_MAX && e->device_id == last_dev &&
		    e->resource_id == last_res && win == last_win) {
			l = last_line;
		} else {
			uint32_t p = plane_for(b, e->device_id, NULL);
			l = line_for(b, p, e->resource_id, win, NULL);
			last_dev = e->device_id;
			last_res = e->resource_id;
			last_win = win;
			last_line = l;
		}
		b->line_of[i] = l;
		xline *xl = &g_array_index(b->lines, xline, l);
		xl->base_ps = (uint64_t)xl->window << WINDOW_SHIFT;
		xl->n++;
	}
}

/* An XEvent's offset and duration are int64s: with an offset under 2^62
 * ps, a duration up to 2^62 ps (53 days) keeps its end within them. */
#define MAX_DURATION_PS ((uint64_t)1 << 62)

/* One event into its line's bytes: false (nothing written) where it lasts
 * longer than MAX_DURATION_PS. */
static bool put_event(GByteArray *o, GByteArray *scratch, GByteArray *st,
		      const tl_tf2trace_event *e, uint64_t base_ps, md *ev_md, md *st_md)
{
	uint64_t off = e->timestamp_ps - base_ps; /* under 2^62 */
	if (e->duration_ps > MAX_DURATION_PS)
		return false;
	g_byte_array_set_size(scratch, 0);
	tl_pbwire_put_tag(scratch, XEVENT_MD, WT_VARINT);
	tl_pbwire_put_varint(scratch, md_id(ev_md, e->name, e->name_len));
	tl_pbwire_put_tag(scratch, XEVENT_OFFSET_PS, WT_VARINT); /* written at 0 too: a oneof */
	tl_pbwire_put_varint(scratch, off);
	if (e->duration_ps != 0) {
		tl_pbwire_put_tag(scratch, XEVENT_DURATION_PS, WT_VARINT);
		tl_pbwire_put_varint(scratch, e->duration_ps);
	}
	if (e->n_args > 0) {
		size_t pos = 0;
		fld f;
		while (next_field(e->raw, e->raw_len, &pos, &f) > 0) {
			tl_tf2trace_arg a;
			if (f.num != EV_ARGS || !read_arg(f.sub, f.sub_len, &a))
				continue;
			g_byte_array_set_size(st, 0);
			tl_pbwire_put_tag(st, XSTAT_MD, WT_VARINT);
			tl_pbwire_put_varint(st, md_id(st_md, a.key, a.key_len));
			int64_t v;
			if (int_text(a.value, a.value_len, &v)) {
				tl_pbwire_put_tag(st, XSTAT_INT64, WT_VARINT);
				tl_pbwire_put_varint(st, (uint64_t)v);
			} else {
				tl_pbwire_put_bytes(st, XSTAT_STR, a.value, a.value_len);
			}
			tl_pbwire_put_bytes(scratch, XEVENT_STATS, st->data, st->len);
		}
	}
	tl_pbwire_put_bytes(o, XLINE_EVENTS, scratch->data, scratch->len);
	return true;
}

/* HOST of ".../HOST.trace[.gz]", or NULL. */
static char *host_of(const char *path)
{
	if (path == NULL)
		return NULL;
	const char *base = strrchr(path, '/');
	base = base != NULL ? base + 1 : path;
	size_t n = strlen(base);
	if (n > 3 && strcmp(base + n - 3, ".gz") == 0)
		n -= 3;
	static const char suffix[] = ".trace";
	size_t k = sizeof suffix - 1;
	if (n <= k || strncmp(base + n - k, suffix, k) != 0)
		return NULL;
	return g_strndup(base, n - k);
}

/* The XSpace of the placed events. */
static GByteArray *write_xspace(builder *b, const char *name)
{
	const tl_tf2trace *t = b->t;
	size_t n_lines = b->lines->len;
	/* each line's events, in file order */
	size_t *first = g_new0(size_t, n_lines + 1);
	for (size_t i = 0; i < t->n_ev; i++)
		first[b->line_of[i] + 1]++;
	for (size_t l = 0; l < n_lines; l++)
		first[l + 1] += first[l];
	uint32_t *order = g_new(uint32_t, t->n_ev + 1);
	size_t *fill = g_new(size_t, n_lines + 1);
	memcpy(fill, first, (n_lines + 1) * sizeof *fill);
	for (size_t i = 0; i < t->n_ev; i++)
		order[fill[b->line_of[i]]++] = (uint32_t)i;
	g_free(fill);

	/* an XSpace is smaller than its trace (names and arg keys once per
	 * plane), but for each line's head and each event's offset */
	size_t guess = t->n_ev * 4 + n_lines * 32 + 4096 + (size_t)(t->ev != NULL && t->n_ev > 0
				? (size_t)(t->ev[t->n_ev - 1].raw + t->ev[t->n_ev - 1].raw_len - t->ev[0].raw)
				: 0);
	GByteArray *o = g_byte_array_sized_new((guint)MIN((size_t)G_MAXUINT / 2, guess));
	GByteArray *scratch = g_byte_array_new(), *st = g_byte_array_new();
	for (guint p = 0; p < b->planes->len; p++) {
		const xplane_out *xp = &g_array_index(b->planes, xplane_out, p);
		md ev_md, st_md;
		md_init(&ev_md);
		md_init(&st_md);
		size_t plane = tl_pbwire_begin_len(o, XSPACE_PLANES);
		tl_pbwire_put_tag(o, XPLANE_ID, WT_VARINT);
		tl_pbwire_put_varint(o, xp->key);
		tl_pbwire_put_bytes(o, XPLANE_NAME, xp->name, strlen(xp->name));
		for (guint k = 0; k < xp->lines->len; k++) {
			uint32_t l = g_array_index(xp->lines, uint32_t, k);
			const xline *xl = &g_array_index(b->lines, xline, l);
			uint64_t base_ns = xl->base_ps / 1000;
			size_t line = tl_pbwire_begin_len(o, XPLANE_LINES);
			tl_pbwire_put_tag(o, XLINE_ID, WT_VARINT);
			tl_pbwire_put_varint(o, xl->key);
			tl_pbwire_put_bytes(o, XLINE_NAME, xl->name, strlen(xl->name));
			tl_pbwire_put_tag(o, XLINE_TS_NS, WT_VARINT);
			tl_pbwire_put_varint(o, base_ns);
			for (size_t i = first[l]; i < first[l + 1]; i++)
				if (!put_event(o, scratch, st, &t->ev[order[i]], base_ns * 1000,
					       &ev_md, &st_md))
					b->bad_time++;
			tl_pbwire_end_len(o, line);
		}
		put_md(o, XPLANE_EVENT_MD, &ev_md);
		put_md(o, XPLANE_STAT_MD, &st_md);
		tl_pbwire_end_len(o, plane);
		md_free(&ev_md);
		md_free(&st_md);
	}
	char *host = host_of(name);
	if (host != NULL)
		tl_pbwire_put_bytes(o, XSPACE_HOSTNAMES, host, strlen(host));
	g_free(host);
	g_byte_array_free(scratch, TRUE);
	g_byte_array_free(st, TRUE);
	g_free(order);
	g_free(first);
	return o;
}

/* The error for a trace with no usable event, or 0. */
static int nothing_usable(const tl_tf2trace *t, size_t bad_time, tl_error *err)
{
	if (t->n_ev > bad_time)
		return 0;
	if (t->n_ev > 0)
		return tl_error_set(err,
				    WHAT " whose %zu trace events all last more than 2^62 ps "
					 "(53 days)",
				    t->n_ev);
	if (t->c.bad_events > 0)
		return tl_error_set(err, WHAT " whose %zu trace events all fail to decode%s",
				    t->c.bad_events, t->c.cut ? " (and cut short)" : "");
	if (t->c.cut)
		return tl_error_set(err,
				    WHAT " cut short or damaged at byte %zu, before any whole "
					 "trace event",
				    t->c.cut_at);
	return tl_error_set(err, WHAT " with no trace events (%zu device%s)", t->n_dev,
			    t->n_dev == 1 ? "" : "s");
}

static int warn_counts(const char *name, const tl_tf2trace *t, size_t bad_time, tl_error *err)
{
	if (t->c.cut && tl_warn_damage(err, name, "the events before it are read",
				       "TF 2.0 profiler trace cut short or damaged at byte %zu",
				       t->c.cut_at) < 0)
		return -1;
	if (t->c.bad_events &&
	    tl_warn_damage(err, name, "skipped", "%zu trace events whose bytes do not decode",
			   t->c.bad_events) < 0)
		return -1;
	if (t->c.bad_devices &&
	    tl_warn_damage(err, name, "left out, their events kept on /device:unknown:ID",
			   "%zu device entries whose bytes do not decode", t->c.bad_devices) < 0)
		return -1;
	if (bad_time && tl_warn_damage(err, name, "skipped",
				       "%zu trace events lasting more than 2^62 ps (53 days)",
				       bad_time) < 0)
		return -1;
	return 0;
}

/* ---- a trace written from a RunMetadata (TF 2.0, 2.1) ---------------------- */

/* The first argument of an event named one of keys[0..n) (one walk):
 * its index in keys, or -1. */
static int arg_among(const tl_tf2trace_event *e, const char *const *keys, size_t n,
		     tl_tf2trace_arg *out)
{
	size_t pos = 0;
	fld f;
	while (e->n_args > 0 && next_field(e->raw, e->raw_len, &pos, &f) > 0) {
		tl_tf2trace_arg a;
		if (f.num != EV_ARGS || !read_arg(f.sub, f.sub_len, &a))
			continue;
		for (size_t k = 0; k < n; k++)
			if (a.key_len == strlen(keys[k]) && memcmp(a.key, keys[k], a.key_len) == 0) {
				*out = a;
				return (int)k;
			}
	}
	return -1;
}

/* The argument of an event named `key`, or false. */
static bool arg_named(const tl_tf2trace_event *e, const char *key, tl_tf2trace_arg *out)
{
	return arg_among(e, &key, 1, out) == 0;
}

bool tl_tf2trace_from_runmeta(const tl_tf2trace *t)
{
	for (size_t d = 0; d < t->n_dev; d++) {
		const char *n = t->dev[d].name;
		if (g_str_has_prefix(n, "/job:") || strstr(n, "/stream:") != NULL ||
		    g_str_has_suffix(n, "/memcpy") || g_str_has_suffix(n, "/sync"))
			return true;
	}
	/* ("annotation" alone tells nothing: TF 2.4's XSpaces have a stat of
	 * that name on their kernels) */
	static const char *const keys[] = {"long name", "label"};
	for (size_t i = 0; i < t->n_ev; i++) {
		tl_tf2trace_arg a;
		if (arg_among(&t->ev[i], keys, G_N_ELEMENTS(keys), &a) >= 0)
			return true;
	}
	return false;
}

static char *span_dup(tl_arena *arena, const uint8_t *p, size_t n)
{
	return tl_arena_strndup(arena, (const char *)p, n);
}

/* A device's thread names: its resources but the one TF adds to every
 * device (key 0 named "0"). */
static void thread_names(Tensorflow__DeviceStepStats *ds, const tl_tf2trace_device *dev,
			 tl_arena *arena)
{
	ds->thread_names = tl_arena_alloc(arena, (dev->n_res + 1) * sizeof *ds->thread_names);
	for (size_t r = 0; r < dev->n_res; r++) {
		char own[16];
		snprintf(own, sizeof own, "%" PRIu32, dev->res[r].key);
		if (strcmp(dev->res[r].name, own) == 0)
			continue;
		Tensorflow__DeviceStepStats__ThreadNamesEntry *e = tl_arena_alloc(arena, sizeof *e);
		tensorflow__device_step_stats__thread_names_entry__init(e);
		e->key = dev->res[r].key;
		e->value = (char *)dev->res[r].name;
		ds->thread_names[ds->n_thread_names++] = e;
	}
}

/* One event as the NodeExecStats it was written from: node_name its "long
 * name" argument, else its name (TF wrote the op type alone where they
 * differ); timeline_label its "label" and "annotation" joined again by
 * "@@"; times to the nanosecond. False where its end passes uint64 ps. */
static bool fill_exec(Tensorflow__NodeExecStats *ns, const tl_tf2trace_event *e, tl_arena *arena)
{
	uint64_t end_ps;
	if (__builtin_add_overflow(e->timestamp_ps, e->duration_ps, &end_ps))
		return false;
	tensorflow__node_exec_stats__init(ns);
	tl_tf2trace_arg a, b;
	if (e->n_args > 0 && arg_named(e, "long name", &a))
		ns->node_name = span_dup(arena, a.value, a.value_len);
	else
		ns->node_name = span_dup(arena, e->name, e->name_len);
	if (e->n_args > 0 && arg_named(e, "label", &a)) {
		if (arg_named(e, "annotation", &b)) {
			char *l = tl_arena_alloc(arena, a.value_len + b.value_len + 3);
			memcpy(l, a.value, a.value_len);
			memcpy(l + a.value_len, "@@", 2);
			memcpy(l + a.value_len + 2, b.value, b.value_len);
			l[a.value_len + 2 + b.value_len] = '\0';
			ns->timeline_label = l;
		} else {
			ns->timeline_label = span_dup(arena, a.value, a.value_len);
		}
	}
	int64_t start = (int64_t)(e->timestamp_ps / 1000), end = (int64_t)(end_ps / 1000);
	ns->all_start_nanos = start;
	ns->all_start_micros = (int64_t)(e->timestamp_ps / 1000000);
	ns->all_end_rel_nanos = end - start;
	ns->all_end_rel_micros = (int64_t)(end_ps / 1000000) - ns->all_start_micros;
	ns->op_end_rel_nanos = ns->all_end_rel_nanos;
	ns->op_end_rel_micros = ns->all_end_rel_micros;
	ns->thread_id = e->resource_id;
	return true;
}

/* The RunMetadata (step_stats) a TF 2.0/2.1 trace was written from. */
static Tensorflow__RunMetadata *build_runmeta(const tl_tf2trace *t, tl_arena *arena,
					      size_t *bad_time)
{
	GArray *devs = g_array_new(FALSE, FALSE, sizeof(const tl_tf2trace_device *));
	GHashTable *ix = g_hash_table_new(g_direct_hash, g_direct_equal);
	for (size_t d = 0; d < t->n_dev; d++) {
		const tl_tf2trace_device *dev = &t->dev[d];
		g_array_append_val(devs, dev);
		g_hash_table_insert(ix, GUINT_TO_POINTER(dev->key), GUINT_TO_POINTER(devs->len));
	}
	/* devices only events name, after the others */
	uint32_t *dev_of = g_new(uint32_t, t->n_ev + 1);
	GArray *unknown = g_array_new(FALSE, FALSE, sizeof(tl_tf2trace_device));
	for (size_t i = 0; i < t->n_ev; i++) {
		gpointer hit = g_hash_table_lookup(ix, GUINT_TO_POINTER(t->ev[i].device_id));
		if (hit == NULL) {
			char *n = g_strdup_printf("/device:unknown:%" PRIu32, t->ev[i].device_id);
			tl_tf2trace_device u = {.key = t->ev[i].device_id,
						.name = tl_arena_strdup(arena, n)};
			g_free(n);
			g_array_append_val(unknown, u);
			const tl_tf2trace_device *up = NULL;
			g_array_append_val(devs, up); /* filled below */
			hit = GUINT_TO_POINTER(devs->len);
			g_hash_table_insert(ix, GUINT_TO_POINTER(u.key), hit);
		}
		dev_of[i] = GPOINTER_TO_UINT(hit) - 1;
	}
	tl_tf2trace_device *u = tl_arena_alloc(arena, (unknown->len + 1) * sizeof *u);
	if (unknown->len > 0)
		memcpy(u, unknown->data, unknown->len * sizeof *u);
	for (guint i = 0; i < unknown->len; i++)
		g_array_index(devs, const tl_tf2trace_device *, t->n_dev + i) = &u[i];
	size_t *count = g_new0(size_t, devs->len + 1);
	for (size_t i = 0; i < t->n_ev; i++)
		count[dev_of[i]]++;
	Tensorflow__RunMetadata *meta = tl_arena_alloc(arena, sizeof *meta);
	tensorflow__run_metadata__init(meta);
	Tensorflow__StepStats *ss = tl_arena_alloc(arena, sizeof *ss);
	tensorflow__step_stats__init(ss);
	meta->step_stats = ss;
	ss->n_dev_stats = devs->len;
	ss->dev_stats = tl_arena_alloc(arena, (devs->len + 1) * sizeof *ss->dev_stats);
	for (guint d = 0; d < devs->len; d++) {
		const tl_tf2trace_device *dev = g_array_index(devs, const tl_tf2trace_device *, d);
		Tensorflow__DeviceStepStats *ds = tl_arena_alloc(arena, sizeof *ds);
		tensorflow__device_step_stats__init(ds);
		ds->device = (char *)dev->name;
		ds->node_stats = tl_arena_alloc(arena, (count[d] + 1) * sizeof *ds->node_stats);
		thread_names(ds, dev, arena);
		ss->dev_stats[d] = ds;
	}
	Tensorflow__NodeExecStats *recs = tl_arena_alloc(arena, (t->n_ev + 1) * sizeof *recs);
	for (size_t i = 0; i < t->n_ev; i++) {
		Tensorflow__DeviceStepStats *ds = ss->dev_stats[dev_of[i]];
		if (fill_exec(&recs[i], &t->ev[i], arena))
			ds->node_stats[ds->n_node_stats++] = &recs[i];
		else
			(*bad_time)++;
	}
	g_free(count);
	g_free(dev_of);
	g_array_free(unknown, TRUE);
	g_hash_table_destroy(ix);
	g_array_free(devs, TRUE);
	return meta;
}

/* ---- the whole ------------------------------------------------------------- */

static int to_xspace(const tl_tf2trace *tr, const char *name, tl_arena *arena,
		     const uint8_t **out, size_t *out_len, GByteArray **keep, tl_error *err);

int tl_tf2trace_render(const uint8_t *data, size_t len, const char *name, tl_arena *arena,
		       tl_tf2trace_run *out, tl_error *err)
{
	memset(out, 0, sizeof *out);
	tl_tf2trace t;
	if (tl_tf2trace_read(&t, data, len, arena, err) < 0) {
		char why[sizeof err->msg];
		g_strlcpy(why, err->msg, sizeof why);
		return tl_error_set(err, WHAT " that does not decode: %s", why);
	}
	if (!tl_tf2trace_from_runmeta(&t))
		return to_xspace(&t, name, arena, &out->xspace, &out->xspace_len, &out->xspace_buf,
				 err);
	size_t bad_time = 0;
	Tensorflow__RunMetadata *meta = build_runmeta(&t, arena, &bad_time);
	int rc = nothing_usable(&t, bad_time, err);
	if (rc == 0)
		rc = warn_counts(name, &t, bad_time, err);
	if (rc == 0)
		out->meta = meta;
	return rc;
}

int tl_tf2trace_to_xspace(const uint8_t *data, size_t len, const char *name, tl_arena *arena,
			  const uint8_t **out, size_t *out_len, tl_error *err)
{
	tl_tf2trace t;
	if (tl_tf2trace_read(&t, data, len, arena, err) < 0) {
		char why[sizeof err->msg];
		g_strlcpy(why, err->msg, sizeof why);
		return tl_error_set(err, WHAT " that does not decode: %s", why);
	}
	return to_xspace(&t, name, arena, out, out_len, NULL, err);
}

/* A decoded trace as an XSpace: in the arena, or (keep not NULL) in a
 * buffer handed over in *keep, not copied. */
static int to_xspace(const tl_tf2trace *tr, const char *name, tl_arena *arena,
		     const uint8_t **out, size_t *out_len, GByteArray **keep, tl_error *err)
{
	const tl_tf2trace t = *tr;
	builder b = {
	    .t = &t,
	    .arena = arena,
	    .planes = g_array_new(FALSE, FALSE, sizeof(xplane_out)),
	    .lines = g_array_new(FALSE, FALSE, sizeof(xline)),
	    .plane_ix = g_hash_table_new(g_direct_hash, g_direct_equal),
	    .line_ix = g_hash_table_new_full(g_int64_hash, g_int64_equal, g_free, NULL),
	};
	place_events(&b);
	GByteArray *xs = write_xspace(&b, name);
	int rc = nothing_usable(&t, b.bad_time, err);
	if (rc == 0)
		rc = warn_counts(name, &t, b.bad_time, err);
	if (rc == 0 && keep != NULL) {
		*out = xs->data;
		*out_len = xs->len;
		*keep = xs;
		xs = NULL;
	} else if (rc == 0) {
		uint8_t *copy = tl_arena_alloc(arena, (size_t)xs->len + 1);
		memcpy(copy, xs->data, xs->len);
		*out = copy;
		*out_len = xs->len;
	}
	if (xs != NULL)
		g_byte_array_free(xs, TRUE);
	for (guint p = 0; p < b.planes->len; p++)
		g_array_free(g_array_index(b.planes, xplane_out, p).lines, TRUE);
	g_array_free(b.planes, TRUE);
	g_array_free(b.lines, TRUE);
	g_hash_table_destroy(b.plane_ix);
	g_hash_table_destroy(b.line_ix);
	g_free(b.line_of);
	return rc;
}
