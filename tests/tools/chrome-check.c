/*
 * chrome-check: a strict checker of the Chrome Trace Event Format, the test
 * suite's judge of the traces trace-dataflow, trace-memory and trace-merge
 * write.
 *
 * A trace passes only if both viewers draw it as meant: catapult's
 * trace-viewer (chrome://tracing) and Perfetto's JSON importer. Where they
 * read an event differently, the stricter reading wins:
 *   - flows (s/t/f) are matched by (cat, name, id) as Perfetto does, and
 *     again by id alone as catapult does; both must give one start, then
 *     steps, then an optional end, and every flow event must bind to a slice
 *     on its thread (a flow that binds to nothing is not drawn);
 *   - slices on one thread (X, B/E pairs) nest or are disjoint, never
 *     partially overlap (equal boundaries are fine);
 *   - B/E balance per thread in file order, as catapult reads them.
 * Strings are valid UTF-8 without raw control characters and object keys are
 * unique: jansson's strict decoder says so or reports where not.
 *
 * Problems go to stderr, one a line, in event order ("event N" is the index
 * in the event array, from 0):
 *   chrome-check: FILE: event N (ph X, name "..."): problem
 * Exit status: 0 valid, 1 problems or unreadable input, 2 usage error.
 */
#include "io/input.h"

#include <getopt.h>
#include <glib.h>
#include <jansson.h>
#include <math.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define PROG "chrome-check"
#define MAX_SHOWN 20
#define NAME_SHOWN 60

enum { EXIT_VALID = 0, EXIT_PROBLEMS = 1, EXIT_USAGE = 2 };

struct opts {
	bool quiet;
	bool stats;
	bool strict_ids;
};

struct problem {
	long long ev; /* event index, -1 for the document */
	size_t seq;   /* order found, to keep the sort stable */
	char *msg;
};

/* A span of time on one thread that flow events can bind to. */
struct slice {
	double start;
	double end;
	size_t ev;
};

/* A B event waiting for its E. */
struct open_begin {
	double ts;
	size_t ev;
};

struct thread {
	char *label;	 /* "pid P tid T", for messages */
	GArray *slices;	 /* struct slice, sorted by start once all are read */
	GArray *open;	 /* struct open_begin, a stack in file order */
	double *max_end; /* max_end[i]: latest end among slices[0..i] */
};

/* One flow, async or object event, to be replayed in time order. */
struct mark {
	double ts;
	size_t ev;
	char ph;
	char *key;     /* what the event is matched by */
	char *alt_key; /* the id alone: flows are matched by it too, as catapult does */
};

struct check {
	const char *file;
	const struct opts *opts;
	json_t *events;
	json_t *stack_frames;
	GPtrArray *problems; /* struct problem * */
	GHashTable *threads; /* "pid\x1ftid" -> struct thread * */
	GHashTable *pids;    /* set of pid keys */
	GArray *flows;	     /* struct mark */
	GArray *asyncs;	     /* struct mark */
	GArray *objects;     /* struct mark */
	size_t phase_count[128];
	size_t nflows;
};

enum need {
	NEED_NAME = 1u << 0,
	NEED_TS = 1u << 1,
	NEED_PID = 1u << 2,
	NEED_TID = 1u << 3,
	NEED_DUR = 1u << 4,
	NEED_CAT = 1u << 5,
	NEED_ID = 1u << 6,     /* "id" */
	NEED_ANY_ID = 1u << 7, /* "id" or "id2" */
	NEED_ARGS = 1u << 8,
};

typedef void (*phase_fn)(struct check *c, size_t i, json_t *ev);

struct phase_rule {
	char ph;
	unsigned need;
	phase_fn check;
};

/* ---- reporting ---- */

static void append_quoted(GString *out, const char *s)
{
	size_t n = strlen(s);
	size_t cut = n;
	if (n > NAME_SHOWN) {
		cut = NAME_SHOWN;
		while (cut > 0 && ((unsigned char)s[cut] & 0xC0) == 0x80)
			cut--; /* do not split a UTF-8 sequence */
	}
	g_string_append_c(out, '"');
	for (size_t k = 0; k < cut; k++) {
		unsigned char ch = (unsigned char)s[k];
		if (ch == '"' || ch == '\\')
			g_string_append_printf(out, "\\%c", ch);
		else if (ch < 0x20 || ch == 0x7f)
			g_string_append_printf(out, "\\x%02x", ch);
		else
			g_string_append_c(out, (char)ch);
	}
	if (cut < n)
		g_string_append(out, "...");
	g_string_append_c(out, '"');
}

/* "event N (ph X, name "...")" */
static void append_event_label(GString *out, json_t *events, size_t i)
{
	json_t *ev = json_array_get(events, i);
	g_string_append_printf(out, "event %zu", i);
	if (!json_is_object(ev))
		return;
	json_t *ph = json_object_get(ev, "ph");
	json_t *name = json_object_get(ev, "name");
	if (json_is_string(ph)) {
		g_string_append(out, " (ph ");
		g_string_append(out, json_string_value(ph));
	} else {
		g_string_append(out, " (no ph");
	}
	if (json_is_string(name)) {
		g_string_append(out, ", name ");
		append_quoted(out, json_string_value(name));
	}
	g_string_append_c(out, ')');
}

static void problem(struct check *c, long long ev, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

static void problem(struct check *c, long long ev, const char *fmt, ...)
{
	GString *msg = g_string_new(NULL);
	if (ev >= 0) {
		append_event_label(msg, c->events, (size_t)ev);
		g_string_append(msg, ": ");
	}
	va_list ap;
	va_start(ap, fmt);
	g_string_append_vprintf(msg, fmt, ap);
	va_end(ap);
	struct problem *p = g_new(struct problem, 1);
	p->ev = ev;
	p->seq = c->problems->len;
	p->msg = g_string_free(msg, FALSE);
	g_ptr_array_add(c->problems, p);
}

static void problem_free(gpointer p)
{
	struct problem *pr = p;
	g_free(pr->msg);
	g_free(pr);
}

static gint problem_order(gconstpointer a, gconstpointer b)
{
	const struct problem *x = *(struct problem *const *)a;
	const struct problem *y = *(struct problem *const *)b;
	if (x->ev != y->ev)
		return x->ev < y->ev ? -1 : 1;
	return x->seq < y->seq ? -1 : x->seq > y->seq;
}

/* ---- small helpers ---- */

static const char *json_kind(const json_t *v)
{
	switch (json_typeof(v)) {
	case JSON_OBJECT:
		return "an object";
	case JSON_ARRAY:
		return "an array";
	case JSON_STRING:
		return "a string";
	case JSON_INTEGER:
	case JSON_REAL:
		return "a number";
	case JSON_TRUE:
	case JSON_FALSE:
		return "a boolean";
	case JSON_NULL:
		return "null";
	}
	return "a value";
}

/* A pid, tid or id as JavaScript would use it as an object key: 5 and "5"
 * are the same process to catapult. */
static char *id_text(json_t *v)
{
	if (json_is_integer(v))
		return g_strdup_printf("%" JSON_INTEGER_FORMAT, json_integer_value(v));
	if (json_is_string(v))
		return g_strdup(json_string_value(v));
	return g_strdup("?");
}

static bool is_id_value(json_t *v)
{
	return json_is_integer(v) || json_is_string(v);
}

static double number(json_t *ev, const char *key)
{
	return json_number_value(json_object_get(ev, key));
}

static const char *string_or(json_t *ev, const char *key, const char *dflt)
{
	json_t *v = json_object_get(ev, key);
	return json_is_string(v) ? json_string_value(v) : dflt;
}

/* One unit in the last place of the larger magnitude: times are doubles in
 * every viewer, and a sum like ts + dur may round by that much. */
static double ulp_of(double a, double b)
{
	double m = fmax(fabs(a), fabs(b));
	return nextafter(m, INFINITY) - m;
}

static bool time_le(double a, double b)
{
	return a <= b + ulp_of(a, b);
}

static char *thread_key(json_t *ev)
{
	char *pid = id_text(json_object_get(ev, "pid"));
	char *tid = id_text(json_object_get(ev, "tid"));
	char *key = g_strdup_printf("%s\x1f%s", pid, tid);
	g_free(pid);
	g_free(tid);
	return key;
}

static void thread_free(gpointer p)
{
	struct thread *t = p;
	g_free(t->label);
	g_array_free(t->slices, TRUE);
	g_array_free(t->open, TRUE);
	g_free(t->max_end);
	g_free(t);
}

static struct thread *thread_of(struct check *c, json_t *ev)
{
	char *key = thread_key(ev);
	struct thread *t = g_hash_table_lookup(c->threads, key);
	if (t != NULL) {
		g_free(key);
		return t;
	}
	t = g_new0(struct thread, 1);
	char *pid = id_text(json_object_get(ev, "pid"));
	char *tid = id_text(json_object_get(ev, "tid"));
	t->label = g_strdup_printf("pid %s tid %s", pid, tid);
	g_free(pid);
	g_free(tid);
	t->slices = g_array_new(FALSE, FALSE, sizeof(struct slice));
	t->open = g_array_new(FALSE, FALSE, sizeof(struct open_begin));
	g_hash_table_insert(c->threads, key, t);
	return t;
}

static void add_slice(struct check *c, json_t *ev, double start, double end, size_t i)
{
	struct slice s = {start, end, i};
	g_array_append_val(thread_of(c, ev)->slices, s);
}

static void add_mark(GArray *marks, json_t *ev, size_t i, char *key, char *alt_key)
{
	struct mark m = {number(ev, "ts"), i, json_string_value(json_object_get(ev, "ph"))[0], key,
			 alt_key};
	g_array_append_val(marks, m);
}

static void marks_free(GArray *marks)
{
	for (guint k = 0; k < marks->len; k++) {
		struct mark *m = &g_array_index(marks, struct mark, k);
		g_free(m->key);
		g_free(m->alt_key);
	}
	g_array_free(marks, TRUE);
}

static gint mark_order(gconstpointer a, gconstpointer b)
{
	const struct mark *x = a;
	const struct mark *y = b;
	if (x->ts != y->ts)
		return x->ts < y->ts ? -1 : 1;
	return x->ev < y->ev ? -1 : x->ev > y->ev;
}

/* ---- phases ---- */

static void on_complete(struct check *c, size_t i, json_t *ev)
{
	double ts = number(ev, "ts");
	add_slice(c, ev, ts, ts + number(ev, "dur"), i);
}

static void on_begin(struct check *c, size_t i, json_t *ev)
{
	struct thread *t = thread_of(c, ev);
	double ts = number(ev, "ts");
	if (t->open->len > 0) {
		struct open_begin *top =
		    &g_array_index(t->open, struct open_begin, t->open->len - 1);
		if (ts < top->ts) {
			problem(c, (long long)i,
				"ts %.17g is before the open B at event %zu (%.17g)", ts, top->ev,
				top->ts);
			return;
		}
	}
	struct open_begin b = {ts, i};
	g_array_append_val(t->open, b);
}

static void on_end(struct check *c, size_t i, json_t *ev)
{
	struct thread *t = thread_of(c, ev);
	double ts = number(ev, "ts");
	if (t->open->len == 0) {
		problem(c, (long long)i, "E without an open B on %s", t->label);
		return;
	}
	struct open_begin b = g_array_index(t->open, struct open_begin, t->open->len - 1);
	g_array_set_size(t->open, t->open->len - 1);
	if (ts < b.ts) {
		problem(c, (long long)i, "ends at %.17g, before its B at event %zu (%.17g)", ts,
			b.ev, b.ts);
		return;
	}
	const char *name = string_or(ev, "name", NULL);
	const char *bname = string_or(json_array_get(c->events, b.ev), "name", "");
	if (name != NULL && strcmp(name, bname) != 0)
		problem(c, (long long)i, "name does not match its B at event %zu", b.ev);
	add_slice(c, ev, b.ts, ts, b.ev);
}

static void on_instant(struct check *c, size_t i, json_t *ev)
{
	const char *s = string_or(ev, "s", "t");
	if (strcmp(s, "t") != 0)
		return; /* process and global instants sit on no thread */
	if (json_object_get(ev, "tid") == NULL) {
		problem(c, (long long)i, "has no tid (required for a thread-scoped instant)");
		return;
	}
	/* catapult makes a thread instant a zero-length slice */
	double ts = number(ev, "ts");
	add_slice(c, ev, ts, ts, i);
}

static void on_counter(struct check *c, size_t i, json_t *ev)
{
	json_t *args = json_object_get(ev, "args");
	if (!json_is_object(args))
		return; /* reported with the field types */
	if (json_object_size(args) == 0) {
		problem(c, (long long)i, "counter has no series in args");
		return;
	}
	for (void *it = json_object_iter(args); it != NULL; it = json_object_iter_next(args, it)) {
		const char *key = json_object_iter_key(it);
		json_t *v = json_object_iter_value(it);
		if (!json_is_number(v))
			problem(c, (long long)i, "counter series args.%s is %s, not a number", key,
				json_kind(v));
	}
}

/* "local:" ids are scoped to their process; "global:" ids and plain ids are
 * not. */
static char *any_id_text(json_t *ev)
{
	json_t *id = json_object_get(ev, "id");
	if (id != NULL)
		return id_text(id);
	json_t *id2 = json_object_get(ev, "id2");
	json_t *global = json_object_get(id2, "global");
	if (global != NULL) {
		char *t = id_text(global);
		char *out = g_strdup_printf("global:%s", t);
		g_free(t);
		return out;
	}
	char *pid = id_text(json_object_get(ev, "pid"));
	char *t = id_text(json_object_get(id2, "local"));
	char *out = g_strdup_printf("local:%s:%s", pid, t);
	g_free(pid);
	g_free(t);
	return out;
}

static void on_async(struct check *c, size_t i, json_t *ev)
{
	char *id = any_id_text(ev);
	char *key = g_strdup_printf("%s\x1f%s\x1f%s", string_or(ev, "cat", ""),
				    string_or(ev, "scope", ""), id);
	g_free(id);
	add_mark(c->asyncs, ev, i, key, NULL);
}

static void on_flow(struct check *c, size_t i, json_t *ev)
{
	const char *bp = string_or(ev, "bp", NULL);
	char ph = json_string_value(json_object_get(ev, "ph"))[0];
	if (bp != NULL && ph != 'f')
		problem(c, (long long)i, "bp is only meaningful on an f event");
	char *id = id_text(json_object_get(ev, "id"));
	char *key = g_strdup_printf("%s\x1f%s\x1f%s", string_or(ev, "cat", ""),
				    string_or(ev, "name", ""), id);
	add_mark(c->flows, ev, i, key, id);
}

static void on_object(struct check *c, size_t i, json_t *ev)
{
	char ph = json_string_value(json_object_get(ev, "ph"))[0];
	if (ph == 'O' && json_object_get(json_object_get(ev, "args"), "snapshot") == NULL)
		problem(c, (long long)i, "object snapshot has no args.snapshot");
	char *pid = id_text(json_object_get(ev, "pid"));
	char *id = id_text(json_object_get(ev, "id"));
	char *key = g_strdup_printf("%s\x1f%s\x1f%s", pid, string_or(ev, "cat", ""), id);
	g_free(pid);
	add_mark(c->objects, ev, i, key, id);
}

static void need_arg(struct check *c, size_t i, json_t *args, const char *key, bool integer)
{
	json_t *v = json_object_get(args, key);
	if (v == NULL)
		problem(c, (long long)i, "has no args.%s", key);
	else if (integer && !json_is_integer(v))
		problem(c, (long long)i, "args.%s is %s, not an integer", key,
			json_is_real(v) ? "a fraction" : json_kind(v));
	else if (!integer && !json_is_string(v))
		problem(c, (long long)i, "args.%s is %s, not a string", key, json_kind(v));
}

static void on_metadata(struct check *c, size_t i, json_t *ev)
{
	const char *name = json_string_value(json_object_get(ev, "name"));
	json_t *args = json_object_get(ev, "args");
	if (!json_is_object(args))
		return; /* reported with the field types */
	bool per_thread = g_str_has_prefix(name, "thread_");
	if (per_thread && json_object_get(ev, "tid") == NULL)
		problem(c, (long long)i, "has no tid (required for %s)", name);
	if (strcmp(name, "process_name") == 0 || strcmp(name, "thread_name") == 0)
		need_arg(c, i, args, "name", false);
	else if (strcmp(name, "process_sort_index") == 0 || strcmp(name, "thread_sort_index") == 0)
		need_arg(c, i, args, "sort_index", true);
	else if (strcmp(name, "process_labels") == 0)
		need_arg(c, i, args, "labels", false);
	else if (strcmp(name, "num_cpus") == 0)
		need_arg(c, i, args, "number", true);
	else
		problem(c, (long long)i,
			"unknown metadata name (known: process_name, process_labels, "
			"process_sort_index, thread_name, thread_sort_index, num_cpus)");
}

static const struct phase_rule rules[] = {
    {'B', NEED_NAME | NEED_TS | NEED_PID | NEED_TID, on_begin},
    {'E', NEED_TS | NEED_PID | NEED_TID, on_end},
    {'X', NEED_NAME | NEED_TS | NEED_PID | NEED_TID | NEED_DUR, on_complete},
    {'i', NEED_NAME | NEED_TS | NEED_PID, on_instant},
    {'I', NEED_NAME | NEED_TS | NEED_PID, on_instant},
    {'C', NEED_NAME | NEED_TS | NEED_PID | NEED_ARGS, on_counter},
    {'b', NEED_NAME | NEED_TS | NEED_PID | NEED_TID | NEED_CAT | NEED_ANY_ID, on_async},
    {'n', NEED_NAME | NEED_TS | NEED_PID | NEED_TID | NEED_CAT | NEED_ANY_ID, on_async},
    {'e', NEED_NAME | NEED_TS | NEED_PID | NEED_TID | NEED_CAT | NEED_ANY_ID, on_async},
    {'S', NEED_NAME | NEED_TS | NEED_PID | NEED_TID | NEED_ANY_ID, NULL},
    {'T', NEED_NAME | NEED_TS | NEED_PID | NEED_TID | NEED_ANY_ID, NULL},
    {'p', NEED_NAME | NEED_TS | NEED_PID | NEED_TID | NEED_ANY_ID, NULL},
    {'F', NEED_NAME | NEED_TS | NEED_PID | NEED_TID | NEED_ANY_ID, NULL},
    {'s', NEED_NAME | NEED_TS | NEED_PID | NEED_TID | NEED_CAT | NEED_ID, on_flow},
    {'t', NEED_NAME | NEED_TS | NEED_PID | NEED_TID | NEED_CAT | NEED_ID, on_flow},
    {'f', NEED_NAME | NEED_TS | NEED_PID | NEED_TID | NEED_CAT | NEED_ID, on_flow},
    {'P', NEED_NAME | NEED_TS | NEED_PID | NEED_TID, NULL},
    {'N', NEED_NAME | NEED_TS | NEED_PID | NEED_TID | NEED_ID, on_object},
    {'O', NEED_NAME | NEED_TS | NEED_PID | NEED_TID | NEED_ID, on_object},
    {'D', NEED_NAME | NEED_TS | NEED_PID | NEED_TID | NEED_ID, on_object},
    {'M', NEED_NAME | NEED_PID | NEED_ARGS, on_metadata},
    {'V', NEED_TS | NEED_ID, NULL},
    {'v', NEED_TS | NEED_PID | NEED_ID, NULL},
    {'R', NEED_NAME | NEED_TS | NEED_PID, NULL},
    {'c', NEED_NAME | NEED_TS | NEED_PID, NULL},
    {'(', NEED_TS | NEED_PID | NEED_TID | NEED_ID, NULL},
    {')', NEED_TS | NEED_PID | NEED_TID | NEED_ID, NULL},
    {'=', NEED_PID | NEED_ID, NULL},
};

static const struct phase_rule *rule_for(char ph)
{
	for (size_t k = 0; k < G_N_ELEMENTS(rules); k++) {
		if (rules[k].ph == ph)
			return &rules[k];
	}
	return NULL;
}

/* ---- field types ---- */

/* Each check returns false when the field is present but unusable. */
static bool check_string(struct check *c, size_t i, json_t *ev, const char *key)
{
	json_t *v = json_object_get(ev, key);
	if (v == NULL || json_is_string(v))
		return true;
	problem(c, (long long)i, "%s is %s, not a string", key, json_kind(v));
	return false;
}

static bool check_number(struct check *c, size_t i, json_t *ev, const char *key, bool nonneg)
{
	json_t *v = json_object_get(ev, key);
	if (v == NULL)
		return true;
	if (!json_is_number(v)) {
		problem(c, (long long)i, "%s is %s, not a number", key, json_kind(v));
		return false;
	}
	if (nonneg && json_number_value(v) < 0) {
		problem(c, (long long)i, "%s is negative (%.17g)", key, json_number_value(v));
		return false;
	}
	return true;
}

static bool check_proc_id(struct check *c, size_t i, json_t *ev, const char *key)
{
	json_t *v = json_object_get(ev, key);
	if (v == NULL || json_is_integer(v))
		return true;
	if (json_is_string(v)) {
		if (c->opts->strict_ids)
			problem(c, (long long)i, "%s is a string (--strict-ids)", key);
		return true;
	}
	problem(c, (long long)i, "%s is %s, not an integer or a string", key,
		json_is_real(v) ? "a fraction" : json_kind(v));
	return false;
}

static bool check_id(struct check *c, size_t i, json_t *ev)
{
	json_t *id = json_object_get(ev, "id");
	json_t *id2 = json_object_get(ev, "id2");
	bool ok = true;
	if (id != NULL && !is_id_value(id)) {
		problem(c, (long long)i, "id is %s, not an integer or a string", json_kind(id));
		ok = false;
	}
	if (id2 == NULL)
		return ok;
	json_t *local = json_object_get(id2, "local");
	json_t *global = json_object_get(id2, "global");
	if (!json_is_object(id2) || json_object_size(id2) != 1 ||
	    !(is_id_value(local) || is_id_value(global))) {
		problem(c, (long long)i, "id2 must be {\"local\": ID} or {\"global\": ID}");
		return false;
	}
	if (id != NULL) {
		problem(c, (long long)i, "has both id and id2");
		return false;
	}
	return ok;
}

static bool check_args(struct check *c, size_t i, json_t *ev)
{
	json_t *v = json_object_get(ev, "args");
	if (v == NULL || json_is_object(v))
		return true;
	if (json_is_string(v) && strcmp(json_string_value(v), "__stripped__") == 0)
		return true;
	problem(c, (long long)i, "args is %s, not an object", json_kind(v));
	return false;
}

static bool check_scope_and_bind(struct check *c, size_t i, json_t *ev, char ph)
{
	const char *s = string_or(ev, "s", NULL);
	if ((ph == 'i' || ph == 'I') && s != NULL && strcmp(s, "g") != 0 && strcmp(s, "p") != 0 &&
	    strcmp(s, "t") != 0) {
		problem(c, (long long)i, "instant scope s is \"%s\", not g, p or t", s);
		return false;
	}
	const char *bp = string_or(ev, "bp", NULL);
	if (bp != NULL && strcmp(bp, "e") != 0) {
		problem(c, (long long)i, "bind point bp is \"%s\"; the only one is \"e\"", bp);
		return false;
	}
	return true;
}

static bool check_stack_frame(struct check *c, size_t i, json_t *ev, const char *key)
{
	json_t *v = json_object_get(ev, key);
	if (v == NULL)
		return true;
	if (!is_id_value(v)) {
		problem(c, (long long)i, "%s is %s, not a stack frame id", key, json_kind(v));
		return false;
	}
	char *id = id_text(v);
	bool found = json_object_get(c->stack_frames, id) != NULL;
	if (!found)
		problem(c, (long long)i, "%s %s is not in stackFrames", key, id);
	g_free(id);
	return found;
}

static bool check_field_types(struct check *c, size_t i, json_t *ev, char ph)
{
	bool ok = true;
	static const char *const strings[] = {"name", "cat", "cname", "scope"};
	for (size_t k = 0; k < G_N_ELEMENTS(strings); k++)
		ok &= check_string(c, i, ev, strings[k]);
	ok &= check_number(c, i, ev, "ts", false);
	ok &= check_number(c, i, ev, "tts", false);
	ok &= check_number(c, i, ev, "dur", true);
	ok &= check_number(c, i, ev, "tdur", true);
	ok &= check_proc_id(c, i, ev, "pid");
	ok &= check_proc_id(c, i, ev, "tid");
	ok &= check_id(c, i, ev);
	ok &= check_args(c, i, ev);
	ok &= check_string(c, i, ev, "s") && check_string(c, i, ev, "bp") &&
	      check_scope_and_bind(c, i, ev, ph);
	ok &= check_stack_frame(c, i, ev, "sf");
	ok &= check_stack_frame(c, i, ev, "esf");
	return ok;
}

static bool check_required(struct check *c, size_t i, json_t *ev, const struct phase_rule *r)
{
	static const struct {
		unsigned flag;
		const char *key;
	} fields[] = {
	    {NEED_NAME, "name"}, {NEED_TS, "ts"},   {NEED_PID, "pid"}, {NEED_TID, "tid"},
	    {NEED_DUR, "dur"},	 {NEED_CAT, "cat"}, {NEED_ID, "id"},   {NEED_ARGS, "args"},
	};
	bool ok = true;
	for (size_t k = 0; k < G_N_ELEMENTS(fields); k++) {
		if ((r->need & fields[k].flag) && json_object_get(ev, fields[k].key) == NULL) {
			problem(c, (long long)i, "has no %s (required for ph %c)", fields[k].key,
				r->ph);
			ok = false;
		}
	}
	if ((r->need & NEED_ANY_ID) && json_object_get(ev, "id") == NULL &&
	    json_object_get(ev, "id2") == NULL) {
		problem(c, (long long)i, "has no id or id2 (required for ph %c)", r->ph);
		ok = false;
	}
	if ((r->need & NEED_ARGS) && json_is_string(json_object_get(ev, "args"))) {
		problem(c, (long long)i, "args were stripped; ph %c needs them", r->ph);
		ok = false;
	}
	return ok;
}

static void check_event(struct check *c, size_t i)
{
	json_t *ev = json_array_get(c->events, i);
	if (!json_is_object(ev)) {
		problem(c, (long long)i, "is %s, not an object", json_kind(ev));
		return;
	}
	if (json_object_size(ev) == 0) {
		problem(c, (long long)i, "is an empty object");
		return;
	}
	json_t *ph = json_object_get(ev, "ph");
	if (ph == NULL) {
		problem(c, (long long)i, "has no ph");
		return;
	}
	const struct phase_rule *r = NULL;
	if (json_is_string(ph) && json_string_length(ph) == 1)
		r = rule_for(json_string_value(ph)[0]);
	if (r == NULL) {
		problem(c, (long long)i, "ph is not a known phase");
		return;
	}
	c->phase_count[(unsigned char)r->ph]++;
	bool typed = check_field_types(c, i, ev, r->ph);
	bool complete = check_required(c, i, ev, r);
	json_t *pid = json_object_get(ev, "pid");
	if (is_id_value(pid)) {
		char *key = id_text(pid);
		g_hash_table_add(c->pids, key);
		if (is_id_value(json_object_get(ev, "tid")))
			(void)thread_of(c, ev);
	}
	if (typed && complete && r->check != NULL)
		r->check(c, i, ev);
}

/* ---- per-thread checks ---- */

static gint slice_order(gconstpointer a, gconstpointer b)
{
	const struct slice *x = a;
	const struct slice *y = b;
	if (x->start != y->start)
		return x->start < y->start ? -1 : 1;
	if (x->end != y->end)
		return x->end > y->end ? -1 : 1; /* the enclosing one first */
	return x->ev < y->ev ? -1 : x->ev > y->ev;
}

static void check_nesting(struct check *c, struct thread *t)
{
	GArray *stack = g_array_new(FALSE, FALSE, sizeof(struct slice));
	for (guint k = 0; k < t->slices->len; k++) {
		struct slice s = g_array_index(t->slices, struct slice, k);
		while (stack->len > 0 &&
		       time_le(g_array_index(stack, struct slice, stack->len - 1).end, s.start))
			g_array_set_size(stack, stack->len - 1);
		if (stack->len > 0) {
			struct slice top = g_array_index(stack, struct slice, stack->len - 1);
			if (!time_le(s.end, top.end)) {
				problem(
				    c, (long long)s.ev,
				    "[%.17g, %.17g] partially overlaps event %zu [%.17g, %.17g] "
				    "on %s",
				    s.start, s.end, top.ev, top.start, top.end, t->label);
				continue;
			}
		}
		g_array_append_val(stack, s);
	}
	g_array_free(stack, TRUE);
}

static void finish_thread(struct check *c, struct thread *t)
{
	for (guint k = 0; k < t->open->len; k++) {
		struct open_begin *b = &g_array_index(t->open, struct open_begin, k);
		problem(c, (long long)b->ev, "B is never ended on %s", t->label);
	}
	g_array_sort(t->slices, slice_order);
	check_nesting(c, t);
	t->max_end = g_new(double, t->slices->len + 1);
	double m = -INFINITY;
	for (guint k = 0; k < t->slices->len; k++) {
		m = fmax(m, g_array_index(t->slices, struct slice, k).end);
		t->max_end[k] = m;
	}
}

/* Number of slices starting at or before ts. */
static guint slices_started_by(const struct thread *t, double ts)
{
	guint lo = 0;
	guint hi = t->slices->len;
	while (lo < hi) {
		guint mid = lo + (hi - lo) / 2;
		if (time_le(g_array_index(t->slices, struct slice, mid).start, ts))
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

static bool has_enclosing_slice(const struct thread *t, double ts)
{
	guint n = slices_started_by(t, ts);
	return n > 0 && time_le(ts, t->max_end[n - 1]);
}

/* An f without bp "e" binds to the next slice that begins on its thread:
 * one starting later, or at the same time but written after it. */
static bool has_next_slice(const struct thread *t, double ts, size_t ev)
{
	for (guint k = t->slices->len; k-- > 0;) {
		const struct slice *s = &g_array_index(t->slices, struct slice, k);
		if (s->start > ts + ulp_of(s->start, ts))
			return true;
		if (time_le(ts, s->start) && s->ev > ev)
			return true;
		if (s->start < ts)
			break;
	}
	return false;
}

/* ---- flows, async slices, objects ---- */

static void check_flow_binding(struct check *c, const struct mark *m)
{
	json_t *ev = json_array_get(c->events, m->ev);
	char *key = thread_key(ev);
	struct thread *t = g_hash_table_lookup(c->threads, key);
	g_free(key);
	bool bind_next = m->ph == 'f' && string_or(ev, "bp", NULL) == NULL;
	bool bound = bind_next ? has_next_slice(t, m->ts, m->ev) : has_enclosing_slice(t, m->ts);
	if (bound)
		return;
	if (bind_next)
		problem(c, (long long)m->ev,
			"flow end binds to no slice: none begins at or after ts %.17g on %s "
			"(not drawn; bp \"e\" binds to the enclosing slice)",
			m->ts, t->label);
	else
		problem(c, (long long)m->ev,
			"flow event binds to no slice: ts %.17g is inside no slice on %s "
			"(not drawn)",
			m->ts, t->label);
}

/* Replays flows in time order, matched by key (or by the id alone), and
 * returns how many started. `seen` holds the events already reported. */
static size_t replay_flows(struct check *c, bool by_id, GHashTable *seen)
{
	GHashTable *open = g_hash_table_new(g_str_hash, g_str_equal); /* key -> mark */
	const char *why = by_id ? " (chrome://tracing matches flows by id alone)" : "";
	size_t started = 0;
	for (guint k = 0; k < c->flows->len; k++) {
		struct mark *m = &g_array_index(c->flows, struct mark, k);
		const char *key = by_id ? m->alt_key : m->key;
		struct mark *prev = g_hash_table_lookup(open, key);
		bool fresh = !g_hash_table_contains(seen, GSIZE_TO_POINTER(m->ev));
		if (m->ph == 's') {
			if (prev != NULL && fresh)
				problem(c, (long long)m->ev,
					"flow id %s starts again while the flow from event %zu "
					"is open%s",
					m->alt_key, prev->ev, why);
			if (prev != NULL)
				g_hash_table_add(seen, GSIZE_TO_POINTER(m->ev));
			g_hash_table_insert(open, (gpointer)key, m);
			started++;
		} else if (prev == NULL) {
			if (fresh)
				problem(
				    c, (long long)m->ev,
				    "flow %s for id %s has no open start (s) at or before its ts%s",
				    m->ph == 't' ? "step" : "end", m->alt_key, why);
			g_hash_table_add(seen, GSIZE_TO_POINTER(m->ev));
		} else if (m->ph == 'f') {
			g_hash_table_remove(open, key);
		} else {
			g_hash_table_insert(open, (gpointer)key, m);
		}
	}
	GHashTableIter it;
	gpointer value;
	g_hash_table_iter_init(&it, open);
	while (g_hash_table_iter_next(&it, NULL, &value)) {
		struct mark *m = value;
		if (m->ph == 's' && !g_hash_table_contains(seen, GSIZE_TO_POINTER(m->ev))) {
			problem(c, (long long)m->ev, "flow id %s starts but has no step or end%s",
				m->alt_key, why);
			g_hash_table_add(seen, GSIZE_TO_POINTER(m->ev));
		}
	}
	g_hash_table_destroy(open);
	return started;
}

static void check_flows(struct check *c)
{
	g_array_sort(c->flows, mark_order);
	for (guint k = 0; k < c->flows->len; k++)
		check_flow_binding(c, &g_array_index(c->flows, struct mark, k));
	GHashTable *seen = g_hash_table_new(g_direct_hash, g_direct_equal);
	c->nflows = replay_flows(c, false, seen);
	(void)replay_flows(c, true, seen);
	g_hash_table_destroy(seen);
}

static void check_asyncs(struct check *c)
{
	g_array_sort(c->asyncs, mark_order);
	GHashTable *stacks =
	    g_hash_table_new_full(g_str_hash, g_str_equal, NULL, (GDestroyNotify)g_ptr_array_unref);
	for (guint k = 0; k < c->asyncs->len; k++) {
		struct mark *m = &g_array_index(c->asyncs, struct mark, k);
		GPtrArray *stack = g_hash_table_lookup(stacks, m->key);
		if (stack == NULL) {
			stack = g_ptr_array_new();
			g_hash_table_insert(stacks, m->key, stack);
		}
		if (m->ph == 'b') {
			g_ptr_array_add(stack, m);
		} else if (m->ph == 'e') {
			const char *name = string_or(json_array_get(c->events, m->ev), "name", "");
			guint at = stack->len;
			while (at-- > 0) {
				struct mark *b = g_ptr_array_index(stack, at);
				if (strcmp(string_or(json_array_get(c->events, b->ev), "name", ""),
					   name) == 0)
					break;
			}
			if (at == G_MAXUINT) {
				problem(c, (long long)m->ev,
					"async end has no open begin (b) with "
					"its cat, id and name");
				continue;
			}
			for (guint j = at + 1; j < stack->len; j++) {
				struct mark *b = g_ptr_array_index(stack, j);
				problem(c, (long long)b->ev,
					"async begin is never ended (event %zu ends its parent)",
					m->ev);
			}
			g_ptr_array_set_size(stack, (gint)at);
		}
	}
	GHashTableIter it;
	gpointer value;
	g_hash_table_iter_init(&it, stacks);
	while (g_hash_table_iter_next(&it, NULL, &value)) {
		GPtrArray *stack = value;
		for (guint j = 0; j < stack->len; j++) {
			struct mark *b = g_ptr_array_index(stack, j);
			problem(c, (long long)b->ev, "async begin is never ended");
		}
	}
	g_hash_table_destroy(stacks);
}

static void check_objects(struct check *c)
{
	g_array_sort(c->objects, mark_order);
	GHashTable *alive = g_hash_table_new(g_str_hash, g_str_equal); /* key -> mark of N */
	for (guint k = 0; k < c->objects->len; k++) {
		struct mark *m = &g_array_index(c->objects, struct mark, k);
		struct mark *born = g_hash_table_lookup(alive, m->key);
		if (m->ph == 'N') {
			if (born != NULL)
				problem(c, (long long)m->ev,
					"object id %s is created again while alive since event %zu",
					m->alt_key, born->ev);
			else
				g_hash_table_insert(alive, m->key, m);
		} else if (m->ph == 'D') {
			if (born == NULL)
				problem(c, (long long)m->ev,
					"object id %s is deleted but not alive (no N before it)",
					m->alt_key);
			else
				g_hash_table_remove(alive, m->key);
		}
	}
	g_hash_table_destroy(alive);
}

/* ---- the document ---- */

static const char *type_name(json_type t)
{
	switch (t) {
	case JSON_OBJECT:
		return "an object";
	case JSON_ARRAY:
		return "an array";
	case JSON_STRING:
		return "a string";
	default:
		return "a value";
	}
}

static void check_container(struct check *c, json_t *root)
{
	json_t *unit = json_object_get(root, "displayTimeUnit");
	const char *u = json_is_string(unit) ? json_string_value(unit) : "";
	if (unit != NULL && strcmp(u, "ms") != 0 && strcmp(u, "ns") != 0)
		problem(c, -1, "displayTimeUnit must be \"ms\" or \"ns\"");
	static const struct {
		const char *key;
		json_type type;
	} kinds[] = {
	    {"otherData", JSON_OBJECT},		{"metadata", JSON_OBJECT},
	    {"stackFrames", JSON_OBJECT},	{"samples", JSON_ARRAY},
	    {"systemTraceEvents", JSON_STRING},
	};
	for (size_t k = 0; k < G_N_ELEMENTS(kinds); k++) {
		json_t *v = json_object_get(root, kinds[k].key);
		if (v != NULL && json_typeof(v) != kinds[k].type)
			problem(c, -1, "%s is %s, not %s", kinds[k].key, json_kind(v),
				type_name(kinds[k].type));
	}
	c->stack_frames = json_object_get(root, "stackFrames");
}

static void check_document(struct check *c, json_t *root)
{
	if (json_is_array(root)) {
		c->events = root;
	} else {
		c->events = json_object_get(root, "traceEvents");
		if (c->events == NULL) {
			problem(c, -1, "the top-level object has no traceEvents");
			return;
		}
		if (!json_is_array(c->events)) {
			problem(c, -1, "traceEvents is %s, not an array", json_kind(c->events));
			return;
		}
		check_container(c, root);
	}
	for (size_t i = 0; i < json_array_size(c->events); i++)
		check_event(c, i);
	GHashTableIter it;
	gpointer value;
	g_hash_table_iter_init(&it, c->threads);
	while (g_hash_table_iter_next(&it, NULL, &value))
		finish_thread(c, value);
	check_flows(c);
	check_asyncs(c);
	check_objects(c);
}

static void print_stats(const struct check *c)
{
	printf("events: %zu\n", json_array_size(c->events));
	for (size_t p = 0; p < G_N_ELEMENTS(c->phase_count); p++) {
		if (c->phase_count[p] > 0)
			printf("ph %c: %zu\n", (char)p, c->phase_count[p]);
	}
	printf("flows: %zu\n", c->nflows);
	printf("pids: %u\n", g_hash_table_size(c->pids));
	printf("tids: %u\n", g_hash_table_size(c->threads));
}

static int report(struct check *c)
{
	g_ptr_array_sort(c->problems, problem_order);
	if (!c->opts->quiet) {
		for (guint k = 0; k < c->problems->len && k < MAX_SHOWN; k++) {
			struct problem *p = g_ptr_array_index(c->problems, k);
			fprintf(stderr, "%s: %s: %s\n", PROG, c->file, p->msg);
		}
		if (c->problems->len > MAX_SHOWN)
			fprintf(stderr, "%s: %s: %u more problems not shown (%u in all)\n", PROG,
				c->file, c->problems->len - MAX_SHOWN, c->problems->len);
	}
	if (c->problems->len > 0)
		return EXIT_PROBLEMS;
	if (c->opts->stats)
		print_stats(c);
	return EXIT_VALID;
}

static json_t *load(const char *path, const char **name, char **owned_name)
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
	*owned_name = g_strdup(tl_input_name(in));
	*name = *owned_name;
	tl_input_close(in);
	json_error_t jerr;
	/* \u0000 is valid JSON (and trace viewers take it); jansson refuses it
	 * unless told */
	json_t *root = json_loadb((const char *)data, len, JSON_REJECT_DUPLICATES | JSON_ALLOW_NUL,
				  &jerr);
	g_free(data);
	if (root == NULL)
		fprintf(stderr, "%s: %s: invalid JSON at line %d, column %d: %s\n", PROG, *name,
			jerr.line, jerr.column, jerr.text);
	return root;
}

static int check_file(const char *path, const struct opts *opts)
{
	const char *name = path;
	char *owned_name = NULL;
	json_t *root = load(path, &name, &owned_name);
	if (root == NULL) {
		g_free(owned_name);
		return EXIT_PROBLEMS;
	}
	struct check c = {
	    .file = name,
	    .opts = opts,
	    .problems = g_ptr_array_new_with_free_func(problem_free),
	    .threads = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, thread_free),
	    .pids = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, NULL),
	    .flows = g_array_new(FALSE, FALSE, sizeof(struct mark)),
	    .asyncs = g_array_new(FALSE, FALSE, sizeof(struct mark)),
	    .objects = g_array_new(FALSE, FALSE, sizeof(struct mark)),
	};
	check_document(&c, root);
	int rc = report(&c);
	g_ptr_array_free(c.problems, TRUE);
	g_hash_table_destroy(c.threads);
	g_hash_table_destroy(c.pids);
	marks_free(c.flows);
	marks_free(c.asyncs);
	marks_free(c.objects);
	json_decref(root);
	g_free(owned_name);
	return rc;
}

static void usage(FILE *to)
{
	fprintf(to, "usage: %s [--quiet] [--stats] [--strict-ids] [FILE|-]...\n", PROG);
}

static void help(void)
{
	usage(stdout);
	printf("\n"
	       "Checks that each FILE (gzip or plain; '-' or none: standard input) is a\n"
	       "valid Chrome trace that chrome://tracing and Perfetto draw as meant.\n"
	       "\n"
	       "  -q, --quiet       print no problems, only set the exit status\n"
	       "  -s, --stats       on success, print event counts by phase, flows,\n"
	       "                    pids and (pid, tid) threads on stdout\n"
	       "      --strict-ids  a pid or tid given as a string is a problem\n"
	       "  -h, --help        print this help\n"
	       "\n"
	       "Exit status: 0 valid, 1 problems found or input unreadable, 2 usage error.\n");
}

int main(int argc, char **argv)
{
	struct opts opts = {0};
	static const struct option longopts[] = {
	    {"quiet", no_argument, NULL, 'q'},
	    {"stats", no_argument, NULL, 's'},
	    {"strict-ids", no_argument, NULL, 'I'},
	    {"help", no_argument, NULL, 'h'},
	    {NULL, 0, NULL, 0},
	};
	for (;;) {
		int opt = getopt_long(argc, argv, "qsh", longopts, NULL);
		if (opt == -1)
			break;
		switch (opt) {
		case 'q':
			opts.quiet = true;
			break;
		case 's':
			opts.stats = true;
			break;
		case 'I':
			opts.strict_ids = true;
			break;
		case 'h':
			help();
			return fclose(stdout) == 0 ? EXIT_VALID : EXIT_PROBLEMS;
		default:
			usage(stderr);
			return EXIT_USAGE;
		}
	}
	int rc = EXIT_VALID;
	if (optind == argc) {
		rc = check_file("-", &opts);
	} else {
		for (int k = optind; k < argc; k++) {
			int one = check_file(argv[k], &opts);
			if (one > rc)
				rc = one;
		}
	}
	if (fclose(stdout) != 0) {
		fprintf(stderr, "%s: cannot write standard output\n", PROG);
		return EXIT_PROBLEMS;
	}
	return rc;
}
