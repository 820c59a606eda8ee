/*
 * mem-truth-check: proves a memory analysis exact against the truth of a
 * generated run (trace-gen --truth, or the truth files in
 * shared/oracle/exact), and proves a truth consistent with its dump.
 *
 *   mem-truth-check [--run N] [--skip-unrecorded] [--curve-within PCT [--windows]]
 *                   TRUTH.json REPORT.json
 *
 * compares run N (default 0) of a trace-memory JSON report (--report
 * --format=json --buffers) with the truth: per allocator the curve point by
 * point, peak_bytes, peak_us and the allocation ids live at the peak (as a
 * set); per buffer, keyed by (allocator, allocation_id), its kind, alloc and
 * free times, sizes and producer. Temporaries have no allocation id in a dump,
 * so the report's id for them is its own: they are matched by (allocator,
 * producer, alloc time, allocated bytes) instead, their requested size (in no
 * dump) is not compared, and their report ids are translated to the truth's
 * before the peak sets are compared. A buffer not found by id (the output of
 * an execution without stats, whose id a report cannot know) is matched by
 * its tensor, "producer:slot", so the differences name what the report
 * guessed. Report buffers the truth does not have are differences too.
 * --skip-unrecorded ignores the truth buffers whose producer left no stats
 * (producer_recorded false) and compares buffers only. --curve-within PCT
 * compares each allocator's curve with the truth's at every instant where
 * either changes, in place of point by point, peak time and peak set: it
 * may be PCT percent of the truth's peak off at most, and the largest
 * deviation is printed (a report that estimates births the dump does not
 * hold). The report's birth_window_us (where it estimated a birth, the
 * window of births it allows) makes a slack: over a window the curve may be
 * that buffer's bytes off; the deviation beyond the slack is printed too,
 * and --windows applies PCT to it. With --skip-unrecorded the recorded
 * buffers are compared too. A truth that is an array (one object per step)
 * gives element N; a single object serves any run.
 *
 *   mem-truth-check --dump RUN TRUTH.json
 *
 * checks the truth against the dump it describes (binary, text or TFRecord
 * RunMetadata; run i of the dump against element i of a truth array): every
 * AllocatorMemoryUsed.allocator_bytes_in_use equals the allocator's truth
 * curve at the execution's end (all_start_micros + all_end_rel_micros); every
 * allocation description in outputs and referenced_tensor names a truth
 * buffer with the same ptr and sizes, a fresh output (has_single_reference)
 * allocated at its execution's compute start; every recorded output buffer of
 * the truth appears in some NodeOutput; the step bounds are the dump's; and
 * the truth agrees with itself (each curve recomputed from the buffers, peaks,
 * persistent and final bytes).
 *
 *   mem-truth-check --band RUN [--run N] [--max-distance PCT] [--max-width PCT]
 *                   TRUTH.json REPORT.json
 *
 * scores run N of a report's curve and band (trace-memory --report
 * --format=json) against the truth, per allocator: at every instant where
 * the dump RUN records allocator_bytes_in_use the curve is the truth's;
 * the truth lies inside the band [low, high] at every instant where the
 * truth, the curve or the band changes; the time-weighted distance of the
 * curve from the truth over the step, and the band's time-weighted width,
 * are at most PCT percent of the truth's peak (defaults 0.5 and 2); the
 * truth's peak is inside peak_range, and the report's peak is the truth's
 * where a sample lands on it. One line per allocator with the figures.
 *
 * Prints a summary line and the first 20 differences on stdout. Exit status:
 * 0 all match, 1 some difference or an input unreadable, 2 usage error.
 */
#include "io/input.h"
#include "io/source.h"

#include <getopt.h>
#include <glib.h>
#include <inttypes.h>
#include <jansson.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define PROG "mem-truth-check"
#define MAX_SHOWN 20

enum { EXIT_MATCH = 0, EXIT_DIFFER = 1, EXIT_USAGE = 2 };

/* ------------------------------------------------------------------ */
/* Differences                                                         */

struct diffs {
	unsigned n;
	GPtrArray *shown; /* the first MAX_SHOWN, owned */
};

static void diff(struct diffs *d, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static void diff(struct diffs *d, const char *fmt, ...)
{
	d->n++;
	if (d->shown->len >= MAX_SHOWN)
		return;
	va_list ap;
	va_start(ap, fmt);
	g_ptr_array_add(d->shown, g_strdup_vprintf(fmt, ap));
	va_end(ap);
}

static void diffs_print(const struct diffs *d)
{
	for (guint i = 0; i < d->shown->len; i++)
		printf("%s\n", (const char *)g_ptr_array_index(d->shown, i));
	if (d->n > d->shown->len)
		printf("... and %u more differences\n", d->n - d->shown->len);
}

/* ------------------------------------------------------------------ */
/* JSON                                                                */

static json_t *load_json(const char *path)
{
	tl_error err = {{0}};
	tl_input *in = NULL;
	uint8_t *data = NULL;
	size_t len = 0;
	if (tl_input_open(&in, path, &err) < 0 || tl_input_slurp(in, &data, &len, &err) < 0) {
		fprintf(stderr, "%s: cannot read '%s': %s\n", PROG, path, err.msg);
		tl_input_close(in);
		return NULL;
	}
	tl_input_close(in);
	json_error_t jerr;
	json_t *root = json_loadb((const char *)data, len, 0, &jerr);
	g_free(data);
	if (root == NULL)
		fprintf(stderr, "%s: cannot read '%s': invalid JSON at line %d, column %d: %s\n",
			PROG, path, jerr.line, jerr.column, jerr.text);
	return root;
}

/* 1: an integer in *v; 0: null or absent; -1: something else. */
static int opt_int(json_t *o, const char *key, int64_t *v)
{
	json_t *x = json_object_get(o, key);
	*v = 0;
	if (x == NULL || json_is_null(x))
		return 0;
	if (!json_is_integer(x))
		return -1;
	*v = (int64_t)json_integer_value(x);
	return 1;
}

static int64_t get_int(json_t *o, const char *key)
{
	int64_t v;
	opt_int(o, key, &v);
	return v;
}

static const char *get_str(json_t *o, const char *key)
{
	const char *s = json_string_value(json_object_get(o, key));
	return s != NULL ? s : "";
}

/* How a nullable integer reads in a message. */
static const char *show_int(char *buf, size_t size, int has, int64_t v)
{
	if (has == 0)
		return "null";
	if (has < 0)
		return "not an integer";
	snprintf(buf, size, "%" PRId64, v);
	return buf;
}

static char *buf_key(const char *alloc, int64_t id)
{
	return g_strdup_printf("%s\x1f%" PRId64, alloc, id);
}

/* The truth for run `run`: element `run` of an array, or the one object. */
static json_t *truth_for(json_t *truth, size_t run)
{
	if (json_is_array(truth))
		return json_array_get(truth, run);
	return json_is_object(truth) ? truth : NULL;
}

static int cmp_i64(const void *a, const void *b)
{
	int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
	return (x > y) - (x < y);
}

struct ev {
	int64_t t, delta;
};

static int cmp_ev(const void *a, const void *b)
{
	const struct ev *x = a, *y = b;
	return (x->t > y->t) - (x->t < y->t);
}

/* ------------------------------------------------------------------ */
/* Curves                                                              */

struct point {
	int64_t t, bytes;
};

struct curve {
	struct point *p;
	size_t n;
};

static void curve_free(gpointer p)
{
	struct curve *c = p;
	g_free(c->p);
	g_free(c);
}

static struct curve *curve_read(json_t *arr)
{
	struct curve *c = g_new0(struct curve, 1);
	c->n = json_array_size(arr);
	c->p = g_new(struct point, c->n + 1);
	for (size_t i = 0; i < c->n; i++) {
		json_t *pt = json_array_get(arr, i);
		c->p[i].t = json_integer_value(json_array_get(pt, 0));
		c->p[i].bytes = json_integer_value(json_array_get(pt, 1));
	}
	return c;
}

/* The value of the last point at or before t; false before the first. */
static bool curve_at(const struct curve *c, int64_t t, int64_t *bytes)
{
	size_t lo = 0, hi = c->n; /* first point after t */
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (c->p[mid].t <= t)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo == 0)
		return false;
	*bytes = c->p[lo - 1].bytes;
	return true;
}

/* How far one curve is from another: the largest difference of their values
 * at every instant where either changes (before its first point a curve has
 * its first value), less `slack` there when given (a curve of how much the
 * report says it may be off). */
struct deviation {
	int64_t off; /* |report - truth| - slack */
	int64_t t;
	int64_t report, truth, slack;
};

static int64_t value_at(const struct curve *c, int64_t t)
{
	int64_t v = 0;
	if (!curve_at(c, t, &v) && c->n > 0)
		v = c->p[0].bytes;
	return v;
}

static void add_times(GArray *times, const struct curve *c)
{
	for (size_t i = 0; c != NULL && i < c->n; i++)
		g_array_append_val(times, c->p[i].t);
}

static struct deviation curve_deviation(const struct curve *report, const struct curve *truth,
					const struct curve *slack)
{
	struct deviation d = {0};
	GArray *times = g_array_new(FALSE, FALSE, sizeof(int64_t));
	add_times(times, report);
	add_times(times, truth);
	add_times(times, slack);
	g_array_sort(times, cmp_i64);
	for (guint i = 0; i < times->len; i++) {
		int64_t t = g_array_index(times, int64_t, i);
		if (i > 0 && t == g_array_index(times, int64_t, i - 1))
			continue;
		int64_t r = value_at(report, t), w = value_at(truth, t);
		int64_t sl = slack != NULL ? value_at(slack, t) : 0;
		int64_t off = (r > w ? r - w : w - r) - sl;
		if (off > d.off)
			d = (struct deviation){off, t, r, w, sl};
	}
	g_array_free(times, TRUE);
	return d;
}

/* The report's uncertainty on one allocator: the bytes of the buffers
 * whose birth it estimated, over [birth_window_us[0], birth_window_us[1])
 * (born at one end, truly born anywhere in it). */
static struct curve *window_slack(json_t *bufs, const char *alloc)
{
	size_t nb = json_array_size(bufs);
	struct ev *ev = g_new(struct ev, 2 * nb + 1);
	size_t n = 0;
	for (size_t i = 0; i < nb; i++) {
		json_t *b = json_array_get(bufs, i);
		json_t *win = json_object_get(b, "birth_window_us");
		if (strcmp(get_str(b, "allocator"), alloc) != 0 || json_array_size(win) != 2)
			continue;
		int64_t lo = json_integer_value(json_array_get(win, 0));
		int64_t hi = json_integer_value(json_array_get(win, 1));
		if (lo >= hi)
			continue;
		ev[n++] = (struct ev){lo, get_int(b, "allocated_bytes")};
		ev[n++] = (struct ev){hi, -get_int(b, "allocated_bytes")};
	}
	qsort(ev, n, sizeof *ev, cmp_ev);
	struct curve *c = g_new0(struct curve, 1);
	c->p = g_new(struct point, n + 2);
	c->p[c->n++] = (struct point){INT64_MIN, 0};
	int64_t cur = 0;
	for (size_t i = 0; i < n;) {
		int64_t t = ev[i].t;
		while (i < n && ev[i].t == t)
			cur += ev[i++].delta;
		c->p[c->n++] = (struct point){t, cur};
	}
	g_free(ev);
	return c;
}

/* ------------------------------------------------------------------ */
/* Truth against a trace-memory report                                 */

struct rbuf {
	json_t *j;
	const char *alloc;
	const char *kind;
	int64_t id;
	bool used;
};

struct worst {
	double frac; /* of the allocator's peak */
	const char *alloc;
	struct deviation at;
};

struct cmp {
	struct diffs d;
	bool skip_unrecorded;
	double within; /* --curve-within, as a fraction; < 0 when not given */
	bool windows;  /* --windows: less the report's birth windows */
	struct worst raw, beyond;
	struct rbuf *rb;
	size_t n_rb;
	GHashTable *by_key;   /* "alloc\x1fid" -> rbuf index + 1, non-temporaries */
	GHashTable *any_key;  /* the same over every report buffer */
	GHashTable *temp_ids; /* "alloc\x1freport id" -> truth id (int64_t *) */
	unsigned buffers, buffers_ok, skipped_n;
	unsigned allocators, allocators_ok;
};

static void check_field(struct cmp *c, bool *ok, const char *what, const char *field, int has_r,
			int64_t r, int has_t, int64_t t)
{
	if (has_r == has_t && r == t)
		return;
	char b1[32], b2[32];
	diff(&c->d, "buffer %s: %s is %s in the report, %s in the truth", what, field,
	     show_int(b1, sizeof b1, has_r, r), show_int(b2, sizeof b2, has_t, t));
	*ok = false;
}

static void check_str(struct cmp *c, bool *ok, const char *what, const char *field, const char *r,
		      const char *t)
{
	if (strcmp(r, t) == 0)
		return;
	diff(&c->d, "buffer %s: %s is \"%s\" in the report, \"%s\" in the truth", what, field, r,
	     t);
	*ok = false;
}

static bool is_temp(json_t *b)
{
	return strcmp(get_str(b, "kind"), "temp") == 0;
}

/* A temporary's requested size is in no dump (its records hold the allocated
 * size), so it is compared for the others only. */
static bool same_buffer(struct cmp *c, json_t *t, json_t *r, const char *what)
{
	bool ok = true;
	int64_t tv, rv;
	int th, rh;
	check_str(c, &ok, what, "kind", get_str(r, "kind"), get_str(t, "kind"));
	check_str(c, &ok, what, "producer", get_str(r, "producer"), get_str(t, "producer"));
	if (!is_temp(t)) {
		rh = opt_int(r, "allocation_id", &rv);
		th = opt_int(t, "allocation_id", &tv);
		check_field(c, &ok, what, "allocation_id", rh, rv, th, tv);
	}
	rh = opt_int(r, "alloc_us", &rv);
	th = opt_int(t, "alloc_micros", &tv);
	check_field(c, &ok, what, "alloc_us", rh, rv, th, tv);
	rh = opt_int(r, "free_us", &rv);
	th = opt_int(t, "free_micros", &tv);
	check_field(c, &ok, what, "free_us", rh, rv, th, tv);
	if (!is_temp(t)) {
		rh = opt_int(r, "requested_bytes", &rv);
		th = opt_int(t, "bytes_requested", &tv);
		check_field(c, &ok, what, "requested_bytes", rh, rv, th, tv);
	}
	rh = opt_int(r, "allocated_bytes", &rv);
	th = opt_int(t, "bytes_allocated", &tv);
	check_field(c, &ok, what, "allocated_bytes", rh, rv, th, tv);
	return ok;
}

static void index_report(struct cmp *c, json_t *bufs)
{
	c->n_rb = json_array_size(bufs);
	c->rb = g_new0(struct rbuf, c->n_rb + 1);
	for (size_t i = 0; i < c->n_rb; i++) {
		struct rbuf *b = &c->rb[i];
		b->j = json_array_get(bufs, i);
		b->alloc = get_str(b->j, "allocator");
		b->kind = get_str(b->j, "kind");
		b->id = get_int(b->j, "allocation_id");
		char *key = buf_key(b->alloc, b->id);
		if (strcmp(b->kind, "temp") != 0 && !g_hash_table_contains(c->by_key, key))
			g_hash_table_insert(c->by_key, g_strdup(key), GSIZE_TO_POINTER(i + 1));
		if (!g_hash_table_contains(c->any_key, key))
			g_hash_table_insert(c->any_key, g_strdup(key), GSIZE_TO_POINTER(i + 1));
		g_free(key);
	}
}

static struct rbuf *lookup(GHashTable *h, struct rbuf *rb, const char *key)
{
	gsize i = GPOINTER_TO_SIZE(g_hash_table_lookup(h, key));
	return i > 0 && !rb[i - 1].used ? &rb[i - 1] : NULL;
}

/* The unused report buffer that passes `fits`, one with the truth's free
 * time first. */
static struct rbuf *find_unused(struct cmp *c, json_t *t,
				bool (*fits)(const struct rbuf *, json_t *))
{
	struct rbuf *best = NULL;
	for (size_t i = 0; i < c->n_rb; i++) {
		struct rbuf *b = &c->rb[i];
		if (b->used || strcmp(b->alloc, get_str(t, "allocator")) != 0 || !fits(b, t))
			continue;
		if (get_int(b->j, "free_us") == get_int(t, "free_micros"))
			return b;
		if (best == NULL)
			best = b;
	}
	return best;
}

/* A temporary of the same producer, alloc time and allocated size. */
static bool same_temp(const struct rbuf *b, json_t *t)
{
	return strcmp(b->kind, "temp") == 0 &&
	       strcmp(get_str(b->j, "producer"), get_str(t, "producer")) == 0 &&
	       get_int(b->j, "alloc_us") == get_int(t, "alloc_micros") &&
	       get_int(b->j, "allocated_bytes") == get_int(t, "bytes_allocated");
}

/* A buffer whose tensor is the truth buffer's own (its producer's slot):
 * how a report names a buffer whose id it could not know (the output of
 * an execution without stats). */
static bool same_tensor(const struct rbuf *b, json_t *t)
{
	char *own =
	    g_strdup_printf("%s:%" PRId64, get_str(t, "producer"), get_int(t, "output_slot"));
	bool yes = strcmp(b->kind, "temp") != 0 && strcmp(get_str(b->j, "tensor"), own) == 0;
	g_free(own);
	return yes;
}

static char *describe(json_t *t)
{
	if (is_temp(t))
		return g_strdup_printf("%s temp of '%s' at %" PRId64, get_str(t, "allocator"),
				       get_str(t, "producer"), get_int(t, "alloc_micros"));
	return g_strdup_printf("%s#%" PRId64 " (%s of '%s')", get_str(t, "allocator"),
			       get_int(t, "allocation_id"), get_str(t, "kind"),
			       get_str(t, "producer"));
}

/* The report buffer of each truth buffer: by (allocator, id), temporaries
 * by what a dump shows of them, then what is left by tensor name. */
static struct rbuf **match_buffers(struct cmp *c, json_t *tbufs)
{
	size_t n = json_array_size(tbufs);
	struct rbuf **m = g_new0(struct rbuf *, n + 1);
	for (size_t i = 0; i < n; i++) {
		json_t *t = json_array_get(tbufs, i);
		if (is_temp(t)) {
			m[i] = find_unused(c, t, same_temp);
		} else {
			char *key = buf_key(get_str(t, "allocator"), get_int(t, "allocation_id"));
			m[i] = lookup(c->by_key, c->rb, key);
			if (m[i] == NULL)
				m[i] = lookup(c->any_key, c->rb, key);
			g_free(key);
		}
		if (m[i] != NULL)
			m[i]->used = true;
	}
	for (size_t i = 0; i < n; i++) {
		json_t *t = json_array_get(tbufs, i);
		if (m[i] != NULL || is_temp(t))
			continue;
		m[i] = find_unused(c, t, same_tensor);
		if (m[i] != NULL)
			m[i]->used = true;
	}
	return m;
}

static void compare_buffers(struct cmp *c, json_t *tbufs)
{
	struct rbuf **m = match_buffers(c, tbufs);
	for (size_t i = 0; i < json_array_size(tbufs); i++) {
		json_t *t = json_array_get(tbufs, i);
		if (c->skip_unrecorded && json_is_false(json_object_get(t, "producer_recorded"))) {
			c->skipped_n++;
			continue;
		}
		c->buffers++;
		char *what = describe(t);
		if (m[i] == NULL)
			diff(&c->d, "buffer %s: not in the report", what);
		else if (same_buffer(c, t, m[i]->j, what))
			c->buffers_ok++;
		if (m[i] != NULL && is_temp(t)) {
			int64_t *tid = g_new(int64_t, 1);
			*tid = get_int(t, "allocation_id");
			g_hash_table_insert(c->temp_ids, buf_key(m[i]->alloc, m[i]->id), tid);
		}
		g_free(what);
	}
	for (size_t i = 0; i < c->n_rb; i++) {
		struct rbuf *b = &c->rb[i];
		if (!b->used)
			diff(&c->d, "buffer %s#%" PRId64 " (%s of '%s'): not in the truth",
			     b->alloc, b->id, b->kind, get_str(b->j, "producer"));
	}
	g_free(m);
}

/* The ids of an array of integers or of objects with allocation_id, sorted;
 * report temporaries translated to the truth's ids. */
static int64_t *id_set(struct cmp *c, json_t *arr, const char *alloc, size_t *n)
{
	*n = json_array_size(arr);
	int64_t *ids = g_new(int64_t, *n + 1);
	for (size_t i = 0; i < *n; i++) {
		json_t *x = json_array_get(arr, i);
		int64_t id = json_is_object(x) ? get_int(x, "allocation_id")
					       : (int64_t)json_integer_value(x);
		if (json_is_object(x) && c != NULL) {
			char *key = buf_key(alloc, id);
			const int64_t *tid = g_hash_table_lookup(c->temp_ids, key);
			g_free(key);
			if (tid != NULL)
				id = *tid;
		}
		ids[i] = id;
	}
	qsort(ids, *n, sizeof *ids, cmp_i64);
	return ids;
}

static void show_ids(GString *s, const char *label, const int64_t *a, size_t na, const int64_t *b,
		     size_t nb)
{
	/* the ids of a not in b, at most 8 */
	unsigned shown = 0, more = 0;
	size_t j = 0;
	for (size_t i = 0; i < na; i++) {
		while (j < nb && b[j] < a[i])
			j++;
		if (j < nb && b[j] == a[i])
			continue;
		if (shown == 8) {
			more++;
			continue;
		}
		g_string_append_printf(s, "%s%" PRId64, shown == 0 ? label : ",", a[i]);
		shown++;
	}
	if (more > 0)
		g_string_append_printf(s, ",+%u", more);
}

static bool same_peak_ids(struct cmp *c, const char *name, json_t *ta, json_t *ra)
{
	size_t nt, nr;
	int64_t *t = id_set(NULL, json_object_get(ta, "peak_allocation_ids"), name, &nt);
	int64_t *r = id_set(c, json_object_get(ra, "live_at_peak"), name, &nr);
	bool same = nt == nr && memcmp(t, r, nt * sizeof *t) == 0;
	if (!same) {
		GString *s = g_string_new(NULL);
		show_ids(s, "; only in the report: ", r, nr, t, nt);
		show_ids(s, "; only in the truth: ", t, nt, r, nr);
		diff(&c->d, "allocator %s: live_at_peak has %zu buffers, the truth %zu%s", name, nr,
		     nt, s->str);
		g_string_free(s, TRUE);
	}
	g_free(t);
	g_free(r);
	return same;
}

static bool same_curve(struct cmp *c, const char *name, json_t *tc, json_t *rc)
{
	size_t nt = json_array_size(tc), nr = json_array_size(rc);
	for (size_t i = 0; i < nt || i < nr; i++) {
		json_t *tp = json_array_get(tc, i), *rp = json_array_get(rc, i);
		int64_t tt = json_integer_value(json_array_get(tp, 0));
		int64_t tb = json_integer_value(json_array_get(tp, 1));
		int64_t rt = json_integer_value(json_array_get(rp, 0));
		int64_t rb = json_integer_value(json_array_get(rp, 1));
		if (tp != NULL && rp != NULL && tt == rt && tb == rb)
			continue;
		GString *s = g_string_new(NULL);
		g_string_append_printf(s, "allocator %s: curve point %zu is ", name, i);
		if (rp != NULL)
			g_string_append_printf(s, "[%" PRId64 ", %" PRId64 "]", rt, rb);
		else
			g_string_append(s, "missing");
		g_string_append(s, " in the report, ");
		if (tp != NULL)
			g_string_append_printf(s, "[%" PRId64 ", %" PRId64 "]", tt, tb);
		else
			g_string_append(s, "missing");
		g_string_append_printf(s, " in the truth (%zu and %zu points)", nr, nt);
		json_t *before = i > 0 ? json_array_get(rc, i - 1) : NULL;
		if (rp != NULL && before != NULL &&
		    json_integer_value(json_array_get(before, 1)) == rb)
			g_string_append(s, "; the report's point repeats the value before it");
		diff(&c->d, "%s", s->str);
		g_string_free(s, TRUE);
		return false;
	}
	return true;
}

static bool same_int(struct cmp *c, const char *name, const char *rf, json_t *r, const char *tf,
		     json_t *t)
{
	int64_t rv, tv;
	int rh = opt_int(r, rf, &rv), th = opt_int(t, tf, &tv);
	if (rh == th && rv == tv)
		return true;
	char b1[32], b2[32];
	diff(&c->d, "%s: %s is %s in the report, %s is %s in the truth", name, rf,
	     show_int(b1, sizeof b1, rh, rv), tf, show_int(b2, sizeof b2, th, tv));
	return false;
}

static json_t *report_allocator(json_t *list, const char *name)
{
	for (size_t i = 0; i < json_array_size(list); i++) {
		json_t *a = json_array_get(list, i);
		if (strcmp(get_str(a, "allocator"), name) == 0)
			return a;
	}
	return NULL;
}

/* --curve-within: the report's curve may differ from the truth's by at most
 * a fraction of the truth's peak at every instant (an estimate, where the
 * dump does not hold every birth). */
static double of_peak(int64_t off, int64_t peak)
{
	if (off <= 0)
		return 0.0;
	return peak > 0 ? (double)off / (double)peak : 1.0 / 0.0;
}

/* Remembers the largest deviation of every allocator, raw and beyond the
 * report's birth windows. */
static void note_worst(struct worst *w, const char *name, struct deviation d, double frac)
{
	if (w->alloc == NULL || frac > w->frac) {
		w->frac = frac;
		w->alloc = name;
		w->at = d;
	}
}

static bool curve_within(struct cmp *c, const char *name, json_t *ta, json_t *ra, json_t *bufs)
{
	struct curve *t = curve_read(json_object_get(ta, "curve"));
	struct curve *r = curve_read(json_object_get(ra, "curve"));
	struct curve *slack = window_slack(bufs, name);
	struct deviation raw = curve_deviation(r, t, NULL);
	struct deviation beyond = curve_deviation(r, t, slack);
	int64_t peak = get_int(ta, "peak_bytes");
	curve_free(t);
	curve_free(r);
	curve_free(slack);
	note_worst(&c->raw, name, raw, of_peak(raw.off, peak));
	note_worst(&c->beyond, name, beyond, of_peak(beyond.off, peak));
	struct deviation d = c->windows ? beyond : raw;
	double frac = of_peak(d.off, peak);
	if (frac <= c->within)
		return true;
	diff(&c->d,
	     "allocator %s: the curve is %" PRId64 " bytes off%s at %" PRId64 " (%" PRId64
	     " in the report, %" PRId64 " in the truth), %.4f%% of the peak %" PRId64,
	     name, d.off, c->windows ? " beyond the birth windows" : "", d.t, d.report, d.truth,
	     100.0 * frac, peak);
	return false;
}

static void compare_allocators(struct cmp *c, json_t *truth, json_t *run)
{
	json_t *tallocs = json_object_get(truth, "allocators");
	json_t *rallocs = json_object_get(run, "allocators");
	const char *name;
	json_t *ta;
	same_int(c, "run", "step_start_us", run, "step_start_micros", truth);
	same_int(c, "run", "step_end_us", run, "step_end_micros", truth);
	json_object_foreach(tallocs, name, ta)
	{
		c->allocators++;
		json_t *ra = report_allocator(rallocs, name);
		if (ra == NULL) {
			diff(&c->d, "allocator %s: not in the report", name);
			continue;
		}
		if (c->within >= 0) {
			c->allocators_ok +=
			    curve_within(c, name, ta, ra, json_object_get(run, "buffers"));
			continue;
		}
		char *label = g_strdup_printf("allocator %s", name);
		bool ok =
		    same_curve(c, name, json_object_get(ta, "curve"), json_object_get(ra, "curve"));
		ok = same_int(c, label, "peak_bytes", ra, "peak_bytes", ta) && ok;
		ok = same_int(c, label, "peak_us", ra, "peak_micros", ta) && ok;
		ok = same_peak_ids(c, name, ta, ra) && ok;
		g_free(label);
		c->allocators_ok += ok;
	}
	for (size_t i = 0; i < json_array_size(rallocs); i++) {
		const char *rn = get_str(json_array_get(rallocs, i), "allocator");
		if (json_object_get(tallocs, rn) == NULL)
			diff(&c->d, "allocator %s: not in the truth", rn);
	}
}

static void print_worst(const char *what, const struct worst *w)
{
	if (w->alloc == NULL)
		return;
	printf("%s: %.4f%% of the peak", what, 100.0 * w->frac);
	if (w->at.off > 0)
		printf(", allocator %s at %" PRId64 " (%" PRId64 " bytes in the report, %" PRId64
		       " in the truth)",
		       w->alloc, w->at.t, w->at.report, w->at.truth);
	printf("\n");
}

static int compare_report(const char *truth_path, json_t *truth_doc, const char *report_path,
			  json_t *report, size_t run_index, bool skip_unrecorded, double within,
			  bool windows)
{
	json_t *truth = truth_for(truth_doc, run_index);
	json_t *runs = json_object_get(report, "runs");
	json_t *run = json_array_get(runs, run_index);
	if (truth == NULL || !json_is_array(json_object_get(truth, "buffers"))) {
		fprintf(stderr, "%s: cannot read '%s': no truth for run %zu\n", PROG, truth_path,
			run_index);
		return EXIT_DIFFER;
	}
	if (!json_is_object(run)) {
		fprintf(stderr, "%s: cannot read '%s': no run %zu (it has %zu)\n", PROG,
			report_path, run_index, json_array_size(runs));
		return EXIT_DIFFER;
	}
	if (!json_is_array(json_object_get(run, "buffers"))) {
		fprintf(stderr,
			"%s: cannot read '%s': run %zu has no buffers (trace-memory --buffers "
			"writes them)\n",
			PROG, report_path, run_index);
		return EXIT_DIFFER;
	}
	struct cmp c;
	memset(&c, 0, sizeof c);
	c.d.shown = g_ptr_array_new_with_free_func(g_free);
	c.skip_unrecorded = skip_unrecorded;
	c.within = within;
	c.windows = windows;
	c.by_key = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, NULL);
	c.any_key = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, NULL);
	c.temp_ids = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, g_free);
	index_report(&c, json_object_get(run, "buffers"));
	compare_buffers(&c, json_object_get(truth, "buffers"));
	if (!skip_unrecorded || within >= 0)
		compare_allocators(&c, truth, run);
	printf("truth: %u of %u buffers match", c.buffers_ok, c.buffers);
	if (skip_unrecorded)
		printf(" (%u unrecorded skipped)", c.skipped_n);
	if (within >= 0)
		printf(", %u of %u allocator curves within %g%% of their peak%s\n", c.allocators_ok,
		       c.allocators, 100.0 * within, windows ? " beyond the birth windows" : "");
	else if (skip_unrecorded)
		printf(", allocator curves not compared\n");
	else
		printf(", %u of %u allocator curves match\n", c.allocators_ok, c.allocators);
	if (within >= 0) {
		print_worst("largest deviation", &c.raw);
		print_worst("beyond the report's birth windows", &c.beyond);
	}
	diffs_print(&c.d);
	int rc = c.d.n == 0 ? EXIT_MATCH : EXIT_DIFFER;
	g_ptr_array_free(c.d.shown, TRUE);
	g_hash_table_destroy(c.by_key);
	g_hash_table_destroy(c.any_key);
	g_hash_table_destroy(c.temp_ids);
	g_free(c.rb);
	return rc;
}

/* ------------------------------------------------------------------ */
/* Truth against its dump                                              */

struct tb { /* a truth buffer */
	json_t *j;
	bool seen; /* named by some NodeOutput */
};

struct dump {
	struct diffs d;
	const char *label;   /* the run's name in messages */
	GHashTable *curves;  /* allocator -> struct curve * */
	GHashTable *buffers; /* "alloc\x1fid" -> struct tb * */
	GHashTable *ids;     /* "id" -> struct tb * (ids are unique in a file) */
	unsigned in_use, in_use_ok, outputs, outputs_ok;
	int64_t step_start, step_end;
};

/* The curve of one allocator as the rules make it from the buffers. */
static struct curve *curve_from_buffers(json_t *bufs, const char *alloc, int64_t t0)
{
	size_t nb = json_array_size(bufs);
	struct ev *ev = g_new(struct ev, 2 * nb + 1);
	size_t n = 0;
	int64_t base = 0;
	for (size_t i = 0; i < nb; i++) {
		json_t *b = json_array_get(bufs, i);
		if (strcmp(get_str(b, "allocator"), alloc) != 0)
			continue;
		int64_t size = get_int(b, "bytes_allocated"), ta, tf;
		int ha = opt_int(b, "alloc_micros", &ta), hf = opt_int(b, "free_micros", &tf);
		if (ha == 0)
			base += size;
		else
			ev[n++] = (struct ev){ta, size};
		if (hf != 0)
			ev[n++] = (struct ev){tf, -size};
	}
	qsort(ev, n, sizeof *ev, cmp_ev);
	struct curve *c = g_new0(struct curve, 1);
	c->p = g_new(struct point, n + 2);
	c->p[c->n++] = (struct point){t0, base};
	int64_t cur = base;
	for (size_t i = 0; i < n;) {
		int64_t t = ev[i].t;
		while (i < n && ev[i].t == t)
			cur += ev[i++].delta;
		if (cur != c->p[c->n - 1].bytes)
			c->p[c->n++] = (struct point){t, cur};
	}
	g_free(ev);
	return c;
}

/* The truth's own allocator figures against its buffers. */
static void check_allocator(struct dump *k, json_t *truth, const char *name, json_t *a,
			    const struct curve *c)
{
	struct curve *want = curve_from_buffers(json_object_get(truth, "buffers"), name,
						get_int(truth, "step_start_micros"));
	bool same = want->n == c->n;
	for (size_t i = 0; same && i < c->n; i++)
		same = want->p[i].t == c->p[i].t && want->p[i].bytes == c->p[i].bytes;
	if (!same)
		diff(&k->d,
		     "%s: allocator %s: the curve (%zu points) is not the one its buffers "
		     "make (%zu points)",
		     k->label, name, c->n, want->n);
	curve_free(want);
	if (c->n == 0)
		return;
	size_t pk = 0;
	for (size_t i = 1; i < c->n; i++)
		if (c->p[i].bytes > c->p[pk].bytes)
			pk = i;
	if (get_int(a, "peak_bytes") != c->p[pk].bytes || get_int(a, "peak_micros") != c->p[pk].t)
		diff(&k->d,
		     "%s: allocator %s: peak %" PRId64 " bytes at %" PRId64
		     ", the curve's is %" PRId64 " at %" PRId64,
		     k->label, name, get_int(a, "peak_bytes"), get_int(a, "peak_micros"),
		     c->p[pk].bytes, c->p[pk].t);
	if (get_int(a, "persistent_bytes") != c->p[0].bytes ||
	    get_int(a, "final_bytes") != c->p[c->n - 1].bytes)
		diff(&k->d,
		     "%s: allocator %s: persistent %" PRId64 " and final %" PRId64
		     " bytes, the curve starts at %" PRId64 " and ends at %" PRId64,
		     k->label, name, get_int(a, "persistent_bytes"), get_int(a, "final_bytes"),
		     c->p[0].bytes, c->p[c->n - 1].bytes);
	/* the buffers live after every event at the peak */
	int64_t t = c->p[pk].t, sum = 0;
	size_t n_ids = 0;
	json_t *bufs = json_object_get(truth, "buffers");
	for (size_t i = 0; i < json_array_size(bufs); i++) {
		json_t *b = json_array_get(bufs, i);
		int64_t ta, tf;
		int ha = opt_int(b, "alloc_micros", &ta), hf = opt_int(b, "free_micros", &tf);
		if (strcmp(get_str(b, "allocator"), name) != 0 || (ha != 0 && ta > t) ||
		    (hf != 0 && tf <= t))
			continue;
		n_ids++;
		sum += get_int(b, "bytes_allocated");
		bool listed = false;
		json_t *ids = json_object_get(a, "peak_allocation_ids");
		for (size_t j = 0; j < json_array_size(ids) && !listed; j++)
			listed = json_integer_value(json_array_get(ids, j)) ==
				 get_int(b, "allocation_id");
		if (!listed)
			diff(&k->d,
			     "%s: allocator %s: buffer %" PRId64 " is live at the peak but "
			     "not in peak_allocation_ids",
			     k->label, name, get_int(b, "allocation_id"));
	}
	if (n_ids != json_array_size(json_object_get(a, "peak_allocation_ids")) ||
	    sum != c->p[pk].bytes)
		diff(&k->d,
		     "%s: allocator %s: %zu peak_allocation_ids, %zu buffers live at the peak "
		     "(%" PRId64 " bytes)",
		     k->label, name, json_array_size(json_object_get(a, "peak_allocation_ids")),
		     n_ids, sum);
}

static void dump_index_truth(struct dump *k, json_t *truth)
{
	const char *name;
	json_t *a;
	json_object_foreach(json_object_get(truth, "allocators"), name, a)
	{
		struct curve *c = curve_read(json_object_get(a, "curve"));
		g_hash_table_insert(k->curves, g_strdup(name), c);
		check_allocator(k, truth, name, a, c);
	}
	json_t *bufs = json_object_get(truth, "buffers");
	for (size_t i = 0; i < json_array_size(bufs); i++) {
		json_t *b = json_array_get(bufs, i);
		if (strcmp(get_str(b, "kind"), "temp") == 0)
			continue;
		struct tb *t = g_new0(struct tb, 1);
		t->j = b;
		int64_t id = get_int(b, "allocation_id");
		g_hash_table_insert(k->buffers, buf_key(get_str(b, "allocator"), id), t);
		g_hash_table_insert(k->ids, g_strdup_printf("%" PRId64, id), t);
	}
}

static void check_in_use(struct dump *k, const Tensorflow__NodeExecStats *ns, int64_t end)
{
	for (size_t m = 0; m < ns->n_memory; m++) {
		const Tensorflow__AllocatorMemoryUsed *am = ns->memory[m];
		const char *alloc = am->allocator_name != NULL ? am->allocator_name : "";
		const struct curve *c = g_hash_table_lookup(k->curves, alloc);
		int64_t want = 0;
		k->in_use++;
		if (c == NULL) {
			diff(&k->d,
			     "%s: '%s' ends at %" PRId64 ": allocator %s is not in the truth",
			     k->label, ns->node_name, end, alloc);
		} else if (!curve_at(c, end, &want)) {
			diff(&k->d, "%s: '%s' ends at %" PRId64 ", before the %s curve starts",
			     k->label, ns->node_name, end, alloc);
		} else if (want != am->allocator_bytes_in_use) {
			diff(&k->d,
			     "%s: '%s' ends at %" PRId64 ": allocator_bytes_in_use %" PRId64
			     " on %s, the truth curve has %" PRId64,
			     k->label, ns->node_name, end, am->allocator_bytes_in_use, alloc, want);
		} else {
			k->in_use_ok++;
		}
	}
}

/* An allocation description against the truth buffer it names. */
static bool check_desc(struct dump *k, const Tensorflow__NodeExecStats *ns,
		       const Tensorflow__AllocationDescription *ad, const char *where,
		       int64_t compute_start, bool fresh)
{
	const char *alloc = ad->allocator_name != NULL ? ad->allocator_name : "";
	char *key = buf_key(alloc, ad->allocation_id);
	struct tb *t = g_hash_table_lookup(k->buffers, key);
	g_free(key);
	if (t == NULL) {
		diff(&k->d, "%s: '%s' %s: %s#%" PRId64 " is not in the truth", k->label,
		     ns->node_name, where, alloc, ad->allocation_id);
		return false;
	}
	t->seen = true;
	int64_t at, ptr = get_int(t->j, "ptr");
	bool ok = ptr == (int64_t)ad->ptr &&
		  get_int(t->j, "bytes_requested") == ad->requested_bytes &&
		  get_int(t->j, "bytes_allocated") == ad->allocated_bytes;
	if (!ok)
		diff(&k->d,
		     "%s: '%s' %s: %s#%" PRId64 " has ptr %" PRIu64 ", %" PRId64 "/%" PRId64
		     " bytes, the truth %" PRId64 ", %" PRId64 "/%" PRId64,
		     k->label, ns->node_name, where, alloc, ad->allocation_id, ad->ptr,
		     ad->requested_bytes, ad->allocated_bytes, ptr,
		     get_int(t->j, "bytes_requested"), get_int(t->j, "bytes_allocated"));
	if (fresh && opt_int(t->j, "alloc_micros", &at) == 1 && at != compute_start) {
		diff(&k->d,
		     "%s: '%s' %s: fresh %s#%" PRId64 " allocated at %" PRId64
		     " in the truth, the compute start is %" PRId64,
		     k->label, ns->node_name, where, alloc, ad->allocation_id, at, compute_start);
		ok = false;
	}
	return ok;
}

static void check_persistent_ids(struct dump *k, const Tensorflow__NodeExecStats *ns)
{
	const Tensorflow__MemoryStats *ms = ns->memory_stats;
	for (size_t i = 0; ms != NULL && i < ms->n_persistent_tensor_alloc_ids; i++) {
		char *key = g_strdup_printf("%" PRId64, ms->persistent_tensor_alloc_ids[i]);
		struct tb *t = g_hash_table_lookup(k->ids, key);
		g_free(key);
		if (t == NULL || strcmp(get_str(t->j, "kind"), "persistent") != 0)
			diff(&k->d,
			     "%s: '%s': persistent_tensor_alloc_ids %" PRId64
			     " is no persistent buffer of the truth",
			     k->label, ns->node_name, ms->persistent_tensor_alloc_ids[i]);
	}
}

static void check_exec(struct dump *k, const Tensorflow__NodeExecStats *ns)
{
	int64_t end = ns->all_start_micros + ns->all_end_rel_micros;
	int64_t compute_start = ns->all_start_micros + ns->op_start_rel_micros;
	if (end > k->step_end)
		k->step_end = end;
	if (ns->node_name != NULL && strcmp(ns->node_name, "_SOURCE") == 0 &&
	    ns->scheduled_micros < k->step_start)
		k->step_start = ns->scheduled_micros;
	check_in_use(k, ns, end);
	for (size_t i = 0; i < ns->n_output; i++) {
		const Tensorflow__NodeOutput *no = ns->output[i];
		const Tensorflow__AllocationDescription *ad =
		    no->tensor_description != NULL ? no->tensor_description->allocation_description
						   : NULL;
		if (ad == NULL || ad->allocation_id == 0)
			continue;
		char where[32];
		snprintf(where, sizeof where, "output slot %d", no->slot);
		k->outputs++;
		k->outputs_ok +=
		    check_desc(k, ns, ad, where, compute_start, ad->has_single_reference);
	}
	for (size_t i = 0; i < ns->n_referenced_tensor; i++)
		check_desc(k, ns, ns->referenced_tensor[i], "referenced_tensor", 0, false);
	check_persistent_ids(k, ns);
}

static void check_unseen(struct dump *k)
{
	GHashTableIter it;
	gpointer key, val;
	g_hash_table_iter_init(&it, k->buffers);
	while (g_hash_table_iter_next(&it, &key, &val)) {
		struct tb *t = val;
		if (t->seen || strcmp(get_str(t->j, "kind"), "output") != 0 ||
		    json_is_false(json_object_get(t->j, "producer_recorded")))
			continue;
		diff(&k->d, "%s: output %s#%" PRId64 " of '%s' is in no NodeOutput of the dump",
		     k->label, get_str(t->j, "allocator"), get_int(t->j, "allocation_id"),
		     get_str(t->j, "producer"));
	}
}

static void check_run(struct dump *k, const Tensorflow__RunMetadata *rm, json_t *truth)
{
	k->curves = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, curve_free);
	k->buffers = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, g_free);
	k->ids = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, NULL);
	k->step_start = INT64_MAX;
	k->step_end = INT64_MIN;
	dump_index_truth(k, truth);
	const Tensorflow__StepStats *ss = rm->step_stats;
	for (size_t d = 0; ss != NULL && d < ss->n_dev_stats; d++) {
		const Tensorflow__DeviceStepStats *ds = ss->dev_stats[d];
		if (ds->device == NULL || strncmp(ds->device, "/job:", 5) != 0)
			continue;
		for (size_t i = 0; i < ds->n_node_stats; i++)
			check_exec(k, ds->node_stats[i]);
	}
	check_unseen(k);
	if (k->step_start != get_int(truth, "step_start_micros") ||
	    k->step_end != get_int(truth, "step_end_micros"))
		diff(&k->d,
		     "%s: the dump's step is [%" PRId64 ", %" PRId64 "], the truth's [%" PRId64
		     ", %" PRId64 "]",
		     k->label, k->step_start, k->step_end, get_int(truth, "step_start_micros"),
		     get_int(truth, "step_end_micros"));
	g_hash_table_destroy(k->curves);
	g_hash_table_destroy(k->buffers);
	g_hash_table_destroy(k->ids);
}

static int check_dump(const char *dump_path, const char *truth_path)
{
	json_t *truth = load_json(truth_path);
	if (truth == NULL)
		return EXIT_DIFFER;
	tl_source *src = NULL;
	tl_error err = {{0}};
	if (tl_source_open(&src, dump_path, TL_FORMAT_AUTO, &err) < 0) {
		fprintf(stderr, "%s: cannot read '%s': %s\n", PROG, dump_path, err.msg);
		json_decref(truth);
		return EXIT_DIFFER;
	}
	struct dump k;
	memset(&k, 0, sizeof k);
	k.d.shown = g_ptr_array_new_with_free_func(g_free);
	int rc = EXIT_MATCH;
	size_t runs = 0;
	for (;; runs++) {
		tl_arena *arena = NULL;
		Tensorflow__RunMetadata *rm = NULL;
		const char *label = NULL;
		int got = tl_source_next(src, &arena, &rm, &label, &err);
		if (got < 0) {
			fprintf(stderr, "%s: cannot read '%s': %s\n", PROG, dump_path, err.msg);
			rc = EXIT_DIFFER;
		}
		if (got <= 0)
			break;
		json_t *t = json_is_array(truth) || runs == 0 ? truth_for(truth, runs) : NULL;
		char *name = g_strdup_printf("run %zu", runs);
		k.label = name;
		if (t == NULL || !json_is_object(json_object_get(t, "allocators")))
			diff(&k.d, "%s: no truth for it in '%s'", name, truth_path);
		else
			check_run(&k, rm, t);
		g_free(name);
		tl_arena_free(arena);
	}
	if (rc == EXIT_MATCH && json_is_array(truth) && json_array_size(truth) > runs)
		diff(&k.d, "the truth describes %zu runs, the dump holds %zu",
		     json_array_size(truth), runs);
	tl_source_close(src);
	json_decref(truth);
	if (rc == EXIT_MATCH) {
		printf("dump: %u of %u allocator_bytes_in_use match the truth curves, %u of %u "
		       "output buffers match\n",
		       k.in_use_ok, k.in_use, k.outputs_ok, k.outputs);
		diffs_print(&k.d);
		rc = k.d.n == 0 ? EXIT_MATCH : EXIT_DIFFER;
	}
	g_ptr_array_free(k.d.shown, TRUE);
	return rc;
}

/* ------------------------------------------------------------------ */
/* The band: the report's curve and band scored against the truth        */

/* The dump's allocator_bytes_in_use instants of run `run`, per allocator:
 * name -> GArray of int64_t (the execution's end), read from the dump
 * itself. NULL (said) when it cannot be read. */
static GHashTable *sample_instants(const char *dump_path, size_t run)
{
	tl_source *src = NULL;
	tl_error err = {{0}};
	if (tl_source_open(&src, dump_path, TL_FORMAT_AUTO, &err) < 0) {
		fprintf(stderr, "%s: cannot read '%s': %s\n", PROG, dump_path, err.msg);
		return NULL;
	}
	GHashTable *by = g_hash_table_new_full(g_str_hash, g_str_equal, g_free,
					       (GDestroyNotify)g_array_unref);
	bool found = false;
	for (size_t i = 0; !found; i++) {
		tl_arena *arena = NULL;
		Tensorflow__RunMetadata *rm = NULL;
		const char *label = NULL;
		int got = tl_source_next(src, &arena, &rm, &label, &err);
		if (got < 0)
			fprintf(stderr, "%s: cannot read '%s': %s\n", PROG, dump_path, err.msg);
		if (got <= 0)
			break;
		found = i == run;
		const Tensorflow__StepStats *ss = found ? rm->step_stats : NULL;
		for (size_t d = 0; ss != NULL && d < ss->n_dev_stats; d++) {
			const Tensorflow__DeviceStepStats *ds = ss->dev_stats[d];
			if (ds->device == NULL || strncmp(ds->device, "/job:", 5) != 0)
				continue;
			for (size_t n = 0; n < ds->n_node_stats; n++) {
				const Tensorflow__NodeExecStats *ns = ds->node_stats[n];
				int64_t end = ns->all_start_micros + ns->all_end_rel_micros;
				for (size_t m = 0; m < ns->n_memory; m++) {
					const Tensorflow__AllocatorMemoryUsed *mu = ns->memory[m];
					if (mu->allocator_bytes_in_use <= 0 ||
					    mu->allocator_name == NULL)
						continue;
					GArray *t = g_hash_table_lookup(by, mu->allocator_name);
					if (t == NULL) {
						t = g_array_new(FALSE, FALSE, sizeof(int64_t));
						g_hash_table_insert(by, g_strdup(mu->allocator_name),
								    t);
					}
					g_array_append_val(t, end);
				}
			}
		}
		tl_arena_free(arena);
	}
	tl_source_close(src);
	if (!found) {
		fprintf(stderr, "%s: cannot read '%s': no run %zu\n", PROG, dump_path, run);
		g_hash_table_destroy(by);
		return NULL;
	}
	return by;
}

/* The report's band as two curves, low and high. */
static void band_read(json_t *arr, struct curve *low, struct curve *high)
{
	size_t n = json_array_size(arr);
	low->n = high->n = n;
	low->p = g_new(struct point, n + 1);
	high->p = g_new(struct point, n + 1);
	for (size_t i = 0; i < n; i++) {
		json_t *pt = json_array_get(arr, i);
		low->p[i].t = high->p[i].t = json_integer_value(json_array_get(pt, 0));
		low->p[i].bytes = json_integer_value(json_array_get(pt, 1));
		high->p[i].bytes = json_integer_value(json_array_get(pt, 2));
	}
}

struct band_limits {
	double distance; /* time-weighted |curve - truth|, a fraction of the peak */
	double width;	 /* time-weighted band width, the same */
};

struct band_score {
	size_t samples, samples_met;
	size_t instants, inside;
	double distance, width; /* fractions of the truth's peak */
	int64_t worst_t, worst_truth, worst_low, worst_high;
	bool peak_sampled, peak_exact, peak_in_range;
};

/* Every instant where the truth, the curve or the band changes, and the
 * segments between them up to the step's end: inside, distance, width. */
static void score_instants(struct band_score *sc, const struct curve *truth,
			   const struct curve *curve, const struct curve *low,
			   const struct curve *high, int64_t t0, int64_t t1, int64_t peak)
{
	GArray *times = g_array_new(FALSE, FALSE, sizeof(int64_t));
	add_times(times, truth);
	add_times(times, curve);
	add_times(times, low);
	g_array_sort(times, cmp_i64);
	double dist = 0, width = 0;
	for (guint i = 0; i < times->len; i++) {
		int64_t t = g_array_index(times, int64_t, i);
		if (i > 0 && t == g_array_index(times, int64_t, i - 1))
			continue;
		int64_t w = value_at(truth, t), c = value_at(curve, t);
		int64_t lo = value_at(low, t), hi = value_at(high, t);
		sc->instants++;
		if (lo <= w && w <= hi) {
			sc->inside++;
		} else if (sc->instants - sc->inside == 1) {
			sc->worst_t = t;
			sc->worst_truth = w;
			sc->worst_low = lo;
			sc->worst_high = hi;
		}
		int64_t next = t1;
		for (guint j = i + 1; j < times->len; j++)
			if (g_array_index(times, int64_t, j) != t) {
				next = g_array_index(times, int64_t, j);
				break;
			}
		if (t < t0 || next > t1 || next <= t)
			continue;
		dist += (double)(c > w ? c - w : w - c) * (double)(next - t);
		width += (double)(hi - lo) * (double)(next - t);
	}
	g_array_free(times, TRUE);
	double span = t1 > t0 ? (double)(t1 - t0) : 1.0;
	sc->distance = peak > 0 ? dist / span / (double)peak : 0;
	sc->width = peak > 0 ? width / span / (double)peak : 0;
}

static bool score_allocator(struct diffs *d, const char *name, json_t *ta, json_t *ra,
			    GArray *samples, int64_t t0, int64_t t1,
			    const struct band_limits *lim)
{
	struct curve *truth = curve_read(json_object_get(ta, "curve"));
	struct curve *curve = curve_read(json_object_get(ra, "curve"));
	struct curve low = {0}, high = {0};
	band_read(json_object_get(ra, "band"), &low, &high);
	int64_t peak = get_int(ta, "peak_bytes");
	struct band_score sc = {0};
	for (guint i = 0; samples != NULL && i < samples->len; i++) {
		int64_t t = g_array_index(samples, int64_t, i);
		int64_t w = value_at(truth, t);
		sc.samples++;
		if (value_at(curve, t) == w)
			sc.samples_met++;
		else if (sc.samples - sc.samples_met == 1)
			diff(d,
			     "allocator %s: the curve is %" PRId64 " at the sample at %" PRId64
			     ", the truth %" PRId64,
			     name, value_at(curve, t), t, w);
		if (w == peak)
			sc.peak_sampled = true;
	}
	score_instants(&sc, truth, curve, &low, &high, t0, t1, peak);
	json_t *range = json_object_get(ra, "peak_range");
	int64_t plo = json_integer_value(json_array_get(range, 0));
	int64_t phi = json_integer_value(json_array_get(range, 1));
	sc.peak_exact = get_int(ra, "peak_bytes") == peak;
	sc.peak_in_range = json_array_size(range) == 2 && plo <= peak && peak <= phi;
	bool ok = sc.samples_met == sc.samples && sc.inside == sc.instants &&
		  sc.distance <= lim->distance && sc.width <= lim->width && sc.peak_in_range &&
		  (!sc.peak_sampled || sc.peak_exact);
	printf("allocator %s: %zu of %zu samples met, truth in the band at %zu of %zu instants, "
	       "distance %.4f%%, width %.4f%% of the peak; peak %s%s\n",
	       name, sc.samples_met, sc.samples, sc.inside, sc.instants, 100.0 * sc.distance,
	       100.0 * sc.width, sc.peak_exact ? "exact" : "not exact",
	       sc.peak_in_range ? ", in peak_range" : ", outside peak_range");
	if (sc.inside < sc.instants)
		diff(d,
		     "allocator %s: the truth %" PRId64 " at %" PRId64 " is outside the band [%" PRId64
		     ", %" PRId64 "]",
		     name, sc.worst_truth, sc.worst_t, sc.worst_low, sc.worst_high);
	if (sc.distance > lim->distance)
		diff(d, "allocator %s: the curve is %.4f%% of the peak from the truth, over %g%%",
		     name, 100.0 * sc.distance, 100.0 * lim->distance);
	if (sc.width > lim->width)
		diff(d, "allocator %s: the band is %.4f%% of the peak wide, over %g%%", name,
		     100.0 * sc.width, 100.0 * lim->width);
	if (!sc.peak_in_range)
		diff(d, "allocator %s: the truth's peak %" PRId64 " is outside peak_range [%" PRId64
			", %" PRId64 "]",
		     name, peak, plo, phi);
	if (sc.peak_sampled && !sc.peak_exact)
		diff(d, "allocator %s: a sample lands on the peak %" PRId64 ", the report's is %" PRId64,
		     name, peak, get_int(ra, "peak_bytes"));
	curve_free(truth);
	curve_free(curve);
	g_free(low.p);
	g_free(high.p);
	return ok;
}

static int check_band(const char *dump_path, const char *truth_path, const char *report_path,
		      size_t run_index, const struct band_limits *lim)
{
	json_t *truth_doc = load_json(truth_path);
	json_t *report = truth_doc == NULL ? NULL : load_json(report_path);
	GHashTable *samples = report == NULL ? NULL : sample_instants(dump_path, run_index);
	int rc = EXIT_DIFFER;
	json_t *truth = truth_doc != NULL ? truth_for(truth_doc, run_index) : NULL;
	json_t *run = json_array_get(json_object_get(report, "runs"), run_index);
	if (samples == NULL) {
		/* said */
	} else if (truth == NULL || !json_is_object(json_object_get(truth, "allocators"))) {
		fprintf(stderr, "%s: cannot read '%s': no truth for run %zu\n", PROG, truth_path,
			run_index);
	} else if (!json_is_object(run)) {
		fprintf(stderr, "%s: cannot read '%s': no run %zu\n", PROG, report_path,
			run_index);
	} else {
		struct diffs d = {0, g_ptr_array_new_with_free_func(g_free)};
		int64_t t0 = get_int(truth, "step_start_micros");
		int64_t t1 = get_int(truth, "step_end_micros");
		const char *name;
		json_t *ta;
		unsigned n = 0, ok = 0;
		json_object_foreach(json_object_get(truth, "allocators"), name, ta)
		{
			n++;
			json_t *ra = report_allocator(json_object_get(run, "allocators"), name);
			if (ra == NULL || !json_is_array(json_object_get(ra, "band"))) {
				diff(&d, "allocator %s: not in the report, or without a band",
				     name);
				continue;
			}
			ok += score_allocator(&d, name, ta, ra, g_hash_table_lookup(samples, name),
					      t0, t1, lim);
		}
		printf("band: %u of %u allocators hold (every sample met, the truth in the "
		       "band, distance <= %g%%, width <= %g%% of the peak, sampled peaks exact)\n",
		       ok, n, 100.0 * lim->distance, 100.0 * lim->width);
		diffs_print(&d);
		rc = d.n == 0 ? EXIT_MATCH : EXIT_DIFFER;
		g_ptr_array_free(d.shown, TRUE);
	}
	if (samples != NULL)
		g_hash_table_destroy(samples);
	json_decref(truth_doc);
	json_decref(report);
	return rc;
}

/* ------------------------------------------------------------------ */
/* Command line                                                        */

static void usage(FILE *to)
{
	fprintf(to,
		"usage: %s [--run N] [--skip-unrecorded] [--curve-within PCT [--windows]] "
		"TRUTH.json REPORT.json\n"
		"       %s --dump RUN TRUTH.json\n"
		"       %s --band RUN [--run N] [--max-distance PCT] [--max-width PCT] "
		"TRUTH.json REPORT.json\n",
		PROG, PROG, PROG);
}

static void help(void)
{
	usage(stdout);
	printf("\nThe first form checks run N (default 0) of a trace-memory JSON report\n"
	       "(--report --format=json --buffers) against the truth of a generated run\n"
	       "(trace-gen --truth, or shared/oracle/exact/*.truth.json): every allocator\n"
	       "curve point by point, its peak and the buffers live at the peak, every\n"
	       "buffer's kind, alloc and free times, sizes and producer. Temporaries are\n"
	       "matched by (allocator, producer, alloc time, allocated bytes), a buffer\n"
	       "whose id the report could not know by its tensor (producer:slot).\n"
	       "--skip-unrecorded leaves out the buffers whose producer left no stats and\n"
	       "compares buffers only. --curve-within PCT compares each allocator's curve\n"
	       "with the truth's at every instant where either changes, and accepts it if\n"
	       "it is never more than PCT percent of the truth's peak off (for reports\n"
	       "that estimate what the dump does not hold); the largest deviation is\n"
	       "printed, raw and beyond the windows the report gives the births it\n"
	       "estimated (birth_window_us: the curve may be off by those buffers' bytes\n"
	       "there). --windows applies PCT to the deviation beyond the windows. With\n"
	       "--skip-unrecorded the recorded buffers are compared too.\n"
	       "\nThe second form checks the truth against its dump: every\n"
	       "allocator_bytes_in_use is the truth curve at the execution's end, every\n"
	       "allocation description names a truth buffer, the step bounds agree, and the\n"
	       "truth's curves and peaks are the ones its buffers make.\n"
	       "\nThe third form scores a report's curve and band (trace-memory --report\n"
	       "--format=json) against the truth, per allocator: the curve is the truth\n"
	       "at every instant where the dump RUN records allocator_bytes_in_use; the\n"
	       "truth lies in the band at every instant where truth, curve or band\n"
	       "changes; the time-weighted distance of the curve from the truth is at\n"
	       "most --max-distance PCT (default 0.5) and the band's time-weighted width\n"
	       "at most --max-width PCT (default 2) percent of the truth's peak; the\n"
	       "truth's peak lies in peak_range, and is the report's peak where a sample\n"
	       "lands on it.\n"
	       "\nExit status: 0 all match, 1 some difference or input unreadable,\n"
	       "2 usage error.\n");
}

static bool parse_run(const char *s, size_t *out)
{
	char *end = NULL;
	unsigned long long v = strtoull(s, &end, 10);
	if (s[0] < '0' || s[0] > '9' || end == s || *end != '\0' || v > 1000000)
		return false;
	*out = (size_t)v;
	return true;
}

/* A percentage, kept as a fraction. */
static bool parse_percent(const char *s, double *out)
{
	char *end = NULL;
	double v = strtod(s, &end);
	if (end == s || *end != '\0' || !(v >= 0.0 && v <= 100.0))
		return false;
	*out = v / 100.0;
	return true;
}

static int run_compare(const char *truth_path, const char *report_path, size_t run_index,
		       bool skip_unrecorded, double within, bool windows)
{
	json_t *truth = load_json(truth_path);
	json_t *report = truth == NULL ? NULL : load_json(report_path);
	int rc = EXIT_DIFFER;
	if (report != NULL)
		rc = compare_report(truth_path, truth, report_path, report, run_index,
				    skip_unrecorded, within, windows);
	json_decref(truth);
	json_decref(report);
	return rc;
}

int main(int argc, char **argv)
{
	static const struct option longopts[] = {
	    {"help", no_argument, NULL, 'h'},
	    {"run", required_argument, NULL, 'r'},
	    {"skip-unrecorded", no_argument, NULL, 's'},
	    {"dump", required_argument, NULL, 'd'},
	    {"curve-within", required_argument, NULL, 'w'},
	    {"windows", no_argument, NULL, 'W'},
	    {"band", required_argument, NULL, 'b'},
	    {"max-distance", required_argument, NULL, 'D'},
	    {"max-width", required_argument, NULL, 'B'},
	    {NULL, 0, NULL, 0},
	};
	size_t run_index = 0;
	bool skip_unrecorded = false, run_given = false;
	double within = -1;
	bool windows = false;
	const char *dump = NULL, *band = NULL;
	struct band_limits lim = {0.005, 0.02};
	for (;;) {
		int opt = getopt_long(argc, argv, "h", longopts, NULL);
		if (opt == -1)
			break;
		switch (opt) {
		case 'h':
			help();
			return fclose(stdout) == 0 ? EXIT_MATCH : EXIT_DIFFER;
		case 'r':
			if (!parse_run(optarg, &run_index)) {
				fprintf(stderr, "%s: --run wants a run index, not '%s'\n", PROG,
					optarg);
				usage(stderr);
				return EXIT_USAGE;
			}
			run_given = true;
			break;
		case 's':
			skip_unrecorded = true;
			break;
		case 'd':
			dump = optarg;
			break;
		case 'w':
			if (!parse_percent(optarg, &within)) {
				fprintf(stderr,
					"%s: --curve-within wants a percentage in [0, 100], not "
					"'%s'\n",
					PROG, optarg);
				usage(stderr);
				return EXIT_USAGE;
			}
			break;
		case 'W':
			windows = true;
			break;
		case 'b':
			band = optarg;
			break;
		case 'D':
		case 'B':
			if (!parse_percent(optarg, opt == 'D' ? &lim.distance : &lim.width)) {
				fprintf(stderr,
					"%s: --max-%s wants a percentage in [0, 100], not '%s'\n",
					PROG, opt == 'D' ? "distance" : "width", optarg);
				usage(stderr);
				return EXIT_USAGE;
			}
			break;
		default:
			usage(stderr);
			return EXIT_USAGE;
		}
	}
	if (band != NULL && (dump != NULL || skip_unrecorded || within >= 0)) {
		fprintf(stderr,
			"%s: --band scores a curve and its band; --dump, --skip-unrecorded and "
			"--curve-within go without it\n",
			PROG);
		usage(stderr);
		return EXIT_USAGE;
	}
	int want = dump != NULL ? 1 : 2;
	if (argc - optind != want) {
		fprintf(stderr, "%s: expected %d input%s, got %d\n", PROG, want,
			want == 1 ? "" : "s", argc - optind);
		usage(stderr);
		return EXIT_USAGE;
	}
	if (windows && within < 0) {
		fprintf(stderr, "%s: --windows goes with --curve-within\n", PROG);
		usage(stderr);
		return EXIT_USAGE;
	}
	if (dump != NULL && (run_given || skip_unrecorded || within >= 0)) {
		fprintf(stderr,
			"%s: --dump checks every run; --run, --skip-unrecorded and "
			"--curve-within are for reports\n",
			PROG);
		usage(stderr);
		return EXIT_USAGE;
	}
	int rc;
	if (band != NULL)
		rc = check_band(band, argv[optind], argv[optind + 1], run_index, &lim);
	else if (dump != NULL)
		rc = check_dump(dump, argv[optind]);
	else
		rc = run_compare(argv[optind], argv[optind + 1], run_index, skip_unrecorded,
				 within, windows);
	if (fclose(stdout) != 0) {
		fprintf(stderr, "%s: cannot write standard output\n", PROG);
		return EXIT_DIFFER;
	}
	return rc;
}
