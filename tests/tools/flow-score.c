/*
 * flow-score: scores the dataflow arrows of a Chrome trace (what
 * trace-dataflow writes) against the flow truth of a generated run
 * (trace-gen --flows-truth).
 *
 *   flow-score [--list N] [--exact] [--double] TRUTH.json TRACE.json
 *
 * An arrow is a flow of cat "dataflow" or "transfer" (launch and control
 * arrows are not data): its "s" event binds to the slice around it on its
 * thread, its "f" event to the slice around it on its own, as the viewers
 * bind them. A slice is an execution: its process names the device (a
 * "RUN#N: " prefix names run N of a stream, matched with element N - 1 of a
 * truth array), args.name the node, and its rank among the slices of that
 * node on that process, by start, says which execution it is. Truth ends are
 * [device, node, rank] the same way (the device normalized as the model
 * does). Arrows and true flows are compared as multisets of (producer
 * execution, consumer execution) pairs.
 *
 * Timestamps are read exactly (microseconds with up to 3 decimals, to the
 * nanosecond); --double reads them as the viewers do, as a double of
 * microseconds (near today's epoch that keeps a quarter of one), to see
 * which slices the arrows bind to in Perfetto or chrome://tracing.
 *
 * Prints, all on stdout:
 *   flows: T true, D drawn, M matched
 *   recall R% (M of T), precision P% (M of D)
 *   cross-device: recall R% (m of t), precision P% (m of d)
 *   self: S, unbound: U, ambiguous: A
 * then, with --list N, up to N missed flows and N wrong arrows. "self"
 * counts arrows from an execution to itself, "unbound" arrows with an end
 * on no slice (neither is in any truth), "ambiguous" arrows with an end on
 * two slices at once (the end of one and the start of the next on a
 * thread), which a viewer may bind either way.
 *
 * Exit status: 0 scored (with --exact: and every flow found, no arrow
 * wrong), 1 not exact under --exact or an input unreadable, 2 usage error.
 */
#include "base/arena.h"
#include "io/chrome_reader.h"
#include "io/input.h"
#include "model/run.h"

#include <getopt.h>
#include <glib.h>
#include <inttypes.h>
#include <jansson.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define PROG "flow-score"

enum { EXIT_OK = 0, EXIT_FAIL = 1, EXIT_USAGE = 2 };

static void usage(FILE *f)
{
	fprintf(f, "usage: %s [--list N] [--exact] [--double] TRUTH.json TRACE.json\n", PROG);
}

static void help(void)
{
	usage(stdout);
	fputs("Scores the dataflow and transfer arrows of a Chrome trace against the flow\n"
	      "truth of a generated run (trace-gen --flows-truth): recall and precision,\n"
	      "overall and for arrows between devices.\n"
	      "\n"
	      "  --list N   also print up to N missed flows and N wrong arrows\n"
	      "  --exact    exit 1 unless recall and precision are both 100%\n"
	      "  --double   read timestamps as the viewers do (a double of microseconds),\n"
	      "             not exactly\n"
	      "  -h, --help this help\n"
	      "\n"
	      "Exit status: 0 scored, 1 not exact (--exact) or unreadable input, 2 usage.\n",
	      stdout);
}

static uint8_t *slurp(const char *path, size_t *len)
{
	tl_error err = {{0}};
	tl_input *in = NULL;
	uint8_t *data = NULL;
	if (tl_input_open(&in, path, &err) < 0 || tl_input_slurp(in, &data, len, &err) < 0) {
		fprintf(stderr, "%s: cannot read '%s': %s\n", PROG, path, err.msg);
		tl_input_close(in);
		return NULL;
	}
	tl_input_close(in);
	return data;
}

/* ------------------------------------------------------------------ */
/* Executions and pairs                                                */

/* A pair multiset: "producer\x1e consumer" -> count, plus whether the two
 * ends are on different devices. */
struct pairs {
	GHashTable *count; /* char * (owned) -> GUINT */
	GHashTable *cross; /* the same keys (not owned) -> 1 when cross-device */
	uint64_t total, cross_total;
};

static void pairs_init(struct pairs *p)
{
	p->count = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, NULL);
	p->cross = g_hash_table_new(g_str_hash, g_str_equal);
	p->total = p->cross_total = 0;
}

static void pairs_free(struct pairs *p)
{
	g_hash_table_destroy(p->cross);
	g_hash_table_destroy(p->count);
}

static void pairs_add(struct pairs *p, const char *src, const char *dst, bool cross)
{
	char *key = g_strconcat(src, "\x1e", dst, NULL);
	gpointer orig = NULL, val = NULL;
	if (g_hash_table_lookup_extended(p->count, key, &orig, &val)) {
		/* insert keeps the stored key and frees this one */
		g_hash_table_insert(p->count, key, GUINT_TO_POINTER(GPOINTER_TO_UINT(val) + 1));
	} else {
		g_hash_table_insert(p->count, key, GUINT_TO_POINTER(1));
		orig = key;
	}
	if (cross)
		g_hash_table_insert(p->cross, orig, GUINT_TO_POINTER(1));
	p->total++;
	p->cross_total += cross;
}

/* "run\x1f device\x1f node\x1f rank" */
static char *exec_key(unsigned run, const char *device, const char *node, int64_t rank)
{
	return g_strdup_printf("%u\x1f%s\x1f%s\x1f%" PRId64, run, device, node, rank);
}

/* "run R: DEVICE NODE #K" for one end */
static void show_end(const char *key, size_t len, GString *out)
{
	char *end = g_strndup(key, len);
	char **f = g_strsplit(end, "\x1f", 4);
	if (g_strv_length(f) == 4)
		g_string_append_printf(out, "run %s: %s %s #%s", f[0], f[1], f[2], f[3]);
	g_strfreev(f);
	g_free(end);
}

static void show_key(const char *key, GString *out)
{
	const char *mid = strchr(key, '\x1e');
	show_end(key, (size_t)(mid - key), out);
	g_string_append(out, " -> ");
	show_end(mid + 1, strlen(mid + 1), out);
}

/* ------------------------------------------------------------------ */
/* The truth                                                           */

static bool truth_end(json_t *end, unsigned run, tl_arena *arena, char **key, const char **dev)
{
	const char *d = json_string_value(json_array_get(end, 0));
	const char *n = json_string_value(json_array_get(end, 1));
	json_t *k = json_array_get(end, 2);
	if (d == NULL || n == NULL || !json_is_integer(k))
		return false;
	*dev = tl_run_device_normalize(arena, d);
	*key = exec_key(run, *dev, n, (int64_t)json_integer_value(k));
	return true;
}

static int load_truth(const char *path, struct pairs *truth)
{
	size_t len = 0;
	uint8_t *data = slurp(path, &len);
	if (data == NULL)
		return -1;
	json_error_t jerr;
	json_t *root = json_loadb((const char *)data, len, 0, &jerr);
	g_free(data);
	if (root == NULL) {
		fprintf(stderr, "%s: cannot read '%s': invalid JSON at line %d, column %d: %s\n",
			PROG, path, jerr.line, jerr.column, jerr.text);
		return -1;
	}
	tl_arena *arena = tl_arena_new();
	int rc = 0;
	size_t n_runs = json_is_array(root) ? json_array_size(root) : 1;
	for (size_t r = 0; r < n_runs && rc == 0; r++) {
		json_t *step = json_is_array(root) ? json_array_get(root, r) : root;
		json_t *flows = json_object_get(step, "flows");
		if (!json_is_array(flows)) {
			fprintf(stderr,
				"%s: cannot read '%s': no \"flows\" array (not a flow truth)\n",
				PROG, path);
			rc = -1;
			break;
		}
		for (size_t i = 0; i < json_array_size(flows); i++) {
			json_t *f = json_array_get(flows, i);
			char *src = NULL, *dst = NULL;
			const char *sd = NULL, *dd = NULL;
			if (!truth_end(json_object_get(f, "src"), (unsigned)r, arena, &src, &sd) ||
			    !truth_end(json_object_get(f, "dst"), (unsigned)r, arena, &dst, &dd)) {
				fprintf(stderr,
					"%s: cannot read '%s': flow %zu of run %zu has no "
					"[device, node, rank] ends\n",
					PROG, path, i, r);
				g_free(src);
				rc = -1;
				break;
			}
			pairs_add(truth, src, dst, strcmp(sd, dd) != 0);
			g_free(src);
			g_free(dst);
		}
	}
	tl_arena_free(arena);
	json_decref(root);
	return rc;
}

/* ------------------------------------------------------------------ */
/* The trace                                                           */

struct slice {
	int64_t pid, tid;
	int64_t start, end; /* ns */
	const char *node;   /* interned */
	size_t ev;
	int64_t rank;
};

struct flowev {
	uint64_t id;
	int64_t pid, tid, ts;
	char ph;
};

/* Microseconds as written ("1729046459521170.819") to exact nanoseconds;
 * a double would lose them at today's epoch. With `as_double`, what a
 * viewer makes of them: a double, times 1000. */
static bool parse_ts(const char *s, bool as_double, int64_t *ns)
{
	if (as_double) {
		char *end = NULL;
		double d = strtod(s, &end);
		if (end == s)
			return false;
		*ns = (int64_t)(d * 1000.0);
		return true;
	}
	bool neg = *s == '-';
	if (neg)
		s++;
	int64_t v = 0;
	const char *p = s;
	for (; *p >= '0' && *p <= '9'; p++)
		v = v * 10 + (*p - '0');
	if (p == s)
		return false;
	int64_t frac = 0;
	int digits = 0;
	if (*p == '.') {
		for (p++; *p >= '0' && *p <= '9'; p++)
			if (digits < 3) {
				frac = frac * 10 + (*p - '0');
				digits++;
			}
	}
	if (*p != '\0') {
		double d = strtod(neg ? s - 1 : s, NULL);
		*ns = (int64_t)(d * 1000.0);
		return true;
	}
	for (; digits < 3; digits++)
		frac *= 10;
	*ns = (v * 1000 + frac) * (neg ? -1 : 1);
	return true;
}

static bool span_int(const tl_chrome_in_event *ev, tl_span s, int64_t *out)
{
	double d;
	if (s.len == 0 || !tl_chrome_reader_span_number(ev, s, &d))
		return false;
	*out = (int64_t)d;
	return true;
}

/* args.name of an event, or NULL */
static char *args_name(const tl_chrome_in_event *ev)
{
	if (ev->args.len == 0)
		return NULL;
	json_t *a = json_loadb(ev->raw + ev->args.off, ev->args.len, 0, NULL);
	const char *n = json_string_value(json_object_get(a, "name"));
	char *out = n != NULL ? g_strdup(n) : NULL;
	json_decref(a);
	return out;
}

struct trace {
	GArray *slices;	     /* struct slice */
	GArray *flows;	     /* struct flowev */
	GHashTable *process; /* pid (int64 *) -> char * name */
	GStringChunk *names;
};

static int read_trace(const char *path, bool as_double, struct trace *t)
{
	size_t len = 0;
	uint8_t *data = slurp(path, &len);
	if (data == NULL)
		return -1;
	tl_error err = {{0}};
	tl_chrome_reader *r = NULL;
	if (tl_chrome_reader_open(&r, data, len, &err) < 0) {
		fprintf(stderr, "%s: cannot read '%s': %s\n", PROG, path, err.msg);
		g_free(data);
		return -1;
	}
	GString *buf = g_string_new(NULL);
	tl_chrome_in_event ev;
	int rc;
	size_t index = 0;
	while ((rc = tl_chrome_reader_next(r, &ev, &err)) == 1) {
		int64_t pid = 0, tid = 0;
		span_int(&ev, ev.pid, &pid);
		span_int(&ev, ev.tid, &tid);
		if (ev.ph == 'M') {
			const char *nm = tl_chrome_reader_span_text(&ev, ev.name, buf);
			if (strcmp(nm, "process_name") != 0)
				continue;
			char *pn = args_name(&ev);
			if (pn == NULL)
				continue;
			int64_t *k = g_new(int64_t, 1);
			*k = pid;
			g_hash_table_insert(t->process, k, pn);
		} else if (ev.ph == 'X') {
			int64_t ts, dur = 0;
			if (!parse_ts(tl_chrome_reader_span_text(&ev, ev.ts, buf), as_double, &ts))
				continue;
			if (ev.dur.len > 0)
				parse_ts(tl_chrome_reader_span_text(&ev, ev.dur, buf), as_double,
					 &dur);
			char *node = args_name(&ev);
			struct slice s = {
			    pid,
			    tid,
			    ts,
			    ts + dur,
			    g_string_chunk_insert_const(t->names, node != NULL ? node : ""),
			    index++,
			    0};
			g_free(node);
			g_array_append_val(t->slices, s);
		} else if (ev.ph == 's' || ev.ph == 'f') {
			const char *cat = tl_chrome_reader_span_text(&ev, ev.cat, buf);
			if (strcmp(cat, "dataflow") != 0 && strcmp(cat, "transfer") != 0)
				continue;
			struct flowev f = {0, pid, tid, 0, ev.ph};
			int64_t id = 0;
			if (!span_int(&ev, ev.id, &id) ||
			    !parse_ts(tl_chrome_reader_span_text(&ev, ev.ts, buf), as_double,
				      &f.ts))
				continue;
			f.id = (uint64_t)id;
			g_array_append_val(t->flows, f);
		}
	}
	if (rc < 0)
		fprintf(stderr, "%s: cannot read '%s': %s\n", PROG, path, err.msg);
	g_string_free(buf, TRUE);
	tl_chrome_reader_close(r);
	g_free(data);
	return rc < 0 ? -1 : 0;
}

static gint cmp_by_node(gconstpointer a, gconstpointer b)
{
	const struct slice *x = a, *y = b;
	if (x->pid != y->pid)
		return x->pid < y->pid ? -1 : 1;
	if (x->node != y->node)
		return strcmp(x->node, y->node);
	if (x->start != y->start)
		return x->start < y->start ? -1 : 1;
	return (x->ev > y->ev) - (x->ev < y->ev);
}

static gint cmp_by_thread(gconstpointer a, gconstpointer b)
{
	const struct slice *x = a, *y = b;
	if (x->pid != y->pid)
		return x->pid < y->pid ? -1 : 1;
	if (x->tid != y->tid)
		return x->tid < y->tid ? -1 : 1;
	if (x->start != y->start)
		return x->start < y->start ? -1 : 1;
	return (x->ev > y->ev) - (x->ev < y->ev);
}

static gint cmp_flow(gconstpointer a, gconstpointer b)
{
	const struct flowev *x = a, *y = b;
	if (x->id != y->id)
		return x->id < y->id ? -1 : 1;
	return (x->ph == 'f') - (y->ph == 'f');
}

/* The slice of (pid, tid) around ts: slices on one thread never partly
 * overlap, so it is the last one starting at or before ts, or the one it
 * nests in. *ambiguous: the slice before it holds ts too. */
static const struct slice *bind(const GArray *sl, int64_t pid, int64_t tid, int64_t ts,
				bool *ambiguous)
{
	guint lo = 0, hi = sl->len;
	while (lo < hi) {
		guint mid = lo + (hi - lo) / 2;
		const struct slice *s = &g_array_index(sl, struct slice, mid);
		bool before = s->pid < pid || (s->pid == pid &&
					       (s->tid < tid || (s->tid == tid && s->start <= ts)));
		if (before)
			lo = mid + 1;
		else
			hi = mid;
	}
	for (guint i = lo; i-- > 0;) {
		const struct slice *s = &g_array_index(sl, struct slice, i);
		if (s->pid != pid || s->tid != tid)
			return NULL;
		if (s->end < ts)
			continue;
		const struct slice *p = i > 0 ? s - 1 : NULL;
		if (p != NULL && p->pid == pid && p->tid == tid && p->end >= ts)
			*ambiguous = true;
		return s;
	}
	return NULL;
}

/* Run index and device of a process named "DEVICE" or "LABEL#N: DEVICE". */
static const char *process_device(const char *name, unsigned *run)
{
	*run = 0;
	const char *colon = strstr(name, ": ");
	if (colon == NULL)
		return name;
	const char *hash = colon;
	while (hash > name && hash[-1] >= '0' && hash[-1] <= '9')
		hash--;
	if (hash == colon || hash == name || hash[-1] != '#')
		return colon + 2;
	*run = (unsigned)strtoul(hash, NULL, 10) - 1;
	return colon + 2;
}

static char *slice_key(const struct trace *t, const struct slice *s, const char **dev)
{
	const char *pn = g_hash_table_lookup(t->process, &s->pid);
	unsigned run = 0;
	*dev = process_device(pn != NULL ? pn : "", &run);
	return exec_key(run, *dev, s->node, s->rank);
}

/* ------------------------------------------------------------------ */
/* Scoring                                                             */

static uint64_t matched(const struct pairs *a, const struct pairs *b, bool cross_only)
{
	uint64_t m = 0;
	GHashTableIter it;
	gpointer key, val;
	g_hash_table_iter_init(&it, a->count);
	while (g_hash_table_iter_next(&it, &key, &val)) {
		if (cross_only && !g_hash_table_contains(a->cross, key))
			continue;
		guint x = GPOINTER_TO_UINT(val);
		guint y = GPOINTER_TO_UINT(g_hash_table_lookup(b->count, key));
		m += x < y ? x : y;
	}
	return m;
}

static void pct(char *buf, size_t size, uint64_t num, uint64_t den)
{
	if (den == 0)
		snprintf(buf, size, "-");
	else
		snprintf(buf, size, "%.2f%%", 100.0 * (double)num / (double)den);
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Up to n keys of a with more copies than in b, sorted. */
static void list_excess(const char *what, const struct pairs *a, const struct pairs *b, unsigned n)
{
	GPtrArray *keys = g_ptr_array_new();
	GHashTableIter it;
	gpointer key, val;
	g_hash_table_iter_init(&it, a->count);
	while (g_hash_table_iter_next(&it, &key, &val))
		if (GPOINTER_TO_UINT(val) > GPOINTER_TO_UINT(g_hash_table_lookup(b->count, key)))
			g_ptr_array_add(keys, key);
	if (keys->len > 0) /* pdata is NULL while empty */
		qsort(keys->pdata, keys->len, sizeof(gpointer), cmp_str);
	GString *s = g_string_new(NULL);
	for (guint i = 0; i < keys->len && i < n; i++) {
		g_string_truncate(s, 0);
		show_key(g_ptr_array_index(keys, i), s);
		printf("%s: %s\n", what, s->str);
	}
	if (keys->len > n)
		printf("... and %u more %s\n", keys->len - n, what);
	g_string_free(s, TRUE);
	g_ptr_array_free(keys, TRUE);
}

int main(int argc, char **argv)
{
	static const struct option longopts[] = {
	    {"help", no_argument, NULL, 'h'},
	    {"list", required_argument, NULL, 'l'},
	    {"exact", no_argument, NULL, 'e'},
	    {"double", no_argument, NULL, 'd'},
	    {NULL, 0, NULL, 0},
	};
	unsigned list = 0;
	bool exact = false, as_double = false;
	for (;;) {
		int opt = getopt_long(argc, argv, "h", longopts, NULL);
		if (opt == -1)
			break;
		char *end = NULL;
		switch (opt) {
		case 'h':
			help();
			return fclose(stdout) == 0 ? EXIT_OK : EXIT_FAIL;
		case 'l':
			list = (unsigned)strtoul(optarg, &end, 10);
			if (end == optarg || *end != '\0') {
				fprintf(stderr, "%s: --list wants a count, not '%s'\n", PROG,
					optarg);
				usage(stderr);
				return EXIT_USAGE;
			}
			break;
		case 'e':
			exact = true;
			break;
		case 'd':
			as_double = true;
			break;
		default:
			usage(stderr);
			return EXIT_USAGE;
		}
	}
	if (argc - optind != 2) {
		fprintf(stderr, "%s: expected 2 inputs, got %d\n", PROG, argc - optind);
		usage(stderr);
		return EXIT_USAGE;
	}
	struct pairs truth, drawn;
	pairs_init(&truth);
	pairs_init(&drawn);
	struct trace t = {g_array_new(FALSE, FALSE, sizeof(struct slice)),
			  g_array_new(FALSE, FALSE, sizeof(struct flowev)),
			  g_hash_table_new_full(g_int64_hash, g_int64_equal, g_free, g_free),
			  g_string_chunk_new(1 << 16)};
	int rc = EXIT_OK;
	if (load_truth(argv[optind], &truth) < 0 ||
	    read_trace(argv[optind + 1], as_double, &t) < 0) {
		rc = EXIT_FAIL;
		goto out;
	}
	/* ranks by node, then slices by thread for binding */
	g_array_sort(t.slices, cmp_by_node);
	for (guint i = 0; i < t.slices->len; i++) {
		struct slice *s = &g_array_index(t.slices, struct slice, i);
		const struct slice *p = i > 0 ? s - 1 : NULL;
		s->rank = p != NULL && p->pid == s->pid && p->node == s->node ? p->rank + 1 : 0;
	}
	g_array_sort(t.slices, cmp_by_thread);
	g_array_sort(t.flows, cmp_flow);
	uint64_t self = 0, unbound = 0, ambiguous = 0;
	for (guint i = 0; i < t.flows->len; i++) {
		const struct flowev *s = &g_array_index(t.flows, struct flowev, i);
		const struct flowev *f = i + 1 < t.flows->len ? s + 1 : NULL;
		if (s->ph != 's')
			continue;
		if (f == NULL || f->id != s->id || f->ph != 'f') {
			unbound++;
			continue;
		}
		i++;
		bool amb = false;
		const struct slice *a = bind(t.slices, s->pid, s->tid, s->ts, &amb);
		const struct slice *b = bind(t.slices, f->pid, f->tid, f->ts, &amb);
		if (a == NULL || b == NULL) {
			unbound++;
			continue;
		}
		ambiguous += amb;
		if (a == b)
			self++;
		const char *da = NULL, *db = NULL;
		char *ka = slice_key(&t, a, &da);
		char *kb = slice_key(&t, b, &db);
		pairs_add(&drawn, ka, kb, strcmp(da, db) != 0);
		g_free(ka);
		g_free(kb);
	}
	uint64_t m = matched(&truth, &drawn, false);
	uint64_t mc_t = matched(&truth, &drawn, true), mc_d = matched(&drawn, &truth, true);
	char r1[32], p1[32], r2[32], p2[32];
	pct(r1, sizeof r1, m, truth.total);
	pct(p1, sizeof p1, m, drawn.total);
	pct(r2, sizeof r2, mc_t, truth.cross_total);
	pct(p2, sizeof p2, mc_d, drawn.cross_total);
	printf("flows: %" PRIu64 " true, %" PRIu64 " drawn, %" PRIu64 " matched\n", truth.total,
	       drawn.total, m);
	printf("recall %s (%" PRIu64 " of %" PRIu64 "), precision %s (%" PRIu64 " of %" PRIu64
	       ")\n",
	       r1, m, truth.total, p1, m, drawn.total);
	printf("cross-device: recall %s (%" PRIu64 " of %" PRIu64 "), precision %s (%" PRIu64
	       " of %" PRIu64 ")\n",
	       r2, mc_t, truth.cross_total, p2, mc_d, drawn.cross_total);
	printf("self: %" PRIu64 ", unbound: %" PRIu64 ", ambiguous: %" PRIu64 "\n", self, unbound,
	       ambiguous);
	if (list > 0) {
		list_excess("missed", &truth, &drawn, list);
		list_excess("wrong", &drawn, &truth, list);
	}
	if (exact && (m != truth.total || m != drawn.total || unbound > 0 || ambiguous > 0))
		rc = EXIT_FAIL;
out:
	if (fclose(stdout) != 0)
		rc = EXIT_FAIL;
	pairs_free(&truth);
	pairs_free(&drawn);
	g_array_free(t.slices, TRUE);
	g_array_free(t.flows, TRUE);
	g_hash_table_destroy(t.process);
	g_string_chunk_free(t.names);
	return rc;
}
