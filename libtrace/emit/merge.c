#include "emit/merge.h"

#include "io/chrome_reader.h"
#include "analysis/lanes.h"
#include "analysis/memory.h"
#include "emit/memtrace.h"
#include "emit/optrace.h"

#include <glib.h>
#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

const char *const tl_align_names[] = {"wall", "pack", "overlay", NULL};

struct span_rec {
	char *label;
	char *input;
	int64_t begin_ns, end_ns;
	int64_t shift_ns;
};

struct proc {
	char *name;
	int64_t pid;
	uint32_t next_tid;
};

struct tl_merge {
	tl_chrome *w;
	tl_merge_opts opts;
	int64_t next_pid;
	GPtrArray *procs;	 /* struct proc *, by creation */
	GHashTable *pid_by_name; /* name -> struct proc * */
	GHashTable *proc_by_pid; /* pid -> struct proc * */
	GHashTable *tid_by_key;	 /* "pid\x1fname" -> tid + 1 */
	GHashTable *meta_seen;	 /* folded metadata events */
	uint64_t next_flow;
	uint64_t next_id;
	bool have_cursor;
	int64_t cursor_ns; /* pack: where the next run starts */
	GPtrArray *spans;  /* struct span_rec * */
	size_t inputs;
};

static void span_free(gpointer p)
{
	struct span_rec *s = p;
	g_free(s->label);
	g_free(s->input);
	g_free(s);
}

static void proc_free(gpointer p)
{
	struct proc *pr = p;
	g_free(pr->name);
	g_free(pr);
}

tl_merge *tl_merge_new(tl_chrome *w, const tl_merge_opts *opts)
{
	tl_merge *m = g_new0(tl_merge, 1);
	m->w = w;
	m->opts = *opts;
	m->next_pid = 2; /* pid 1 is the Runs track */
	m->procs = g_ptr_array_new_with_free_func(proc_free);
	m->pid_by_name = g_hash_table_new(g_str_hash, g_str_equal);
	m->proc_by_pid = g_hash_table_new(g_int64_hash, g_int64_equal);
	m->tid_by_key = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, NULL);
	m->meta_seen = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, NULL);
	m->next_flow = 1;
	m->next_id = 1;
	m->spans = g_ptr_array_new_with_free_func(span_free);
	return m;
}

void tl_merge_free(tl_merge *m)
{
	if (m == NULL)
		return;
	g_ptr_array_free(m->procs, TRUE);
	g_hash_table_destroy(m->pid_by_name);
	g_hash_table_destroy(m->proc_by_pid);
	g_hash_table_destroy(m->tid_by_key);
	g_hash_table_destroy(m->meta_seen);
	g_ptr_array_free(m->spans, TRUE);
	g_free(m);
}

static struct proc *proc_named(tl_merge *m, const char *name, bool *fresh)
{
	struct proc *p = g_hash_table_lookup(m->pid_by_name, name);
	*fresh = p == NULL;
	if (p != NULL)
		return p;
	p = g_new0(struct proc, 1);
	p->name = g_strdup(name);
	p->pid = m->next_pid++;
	g_ptr_array_add(m->procs, p);
	g_hash_table_insert(m->pid_by_name, p->name, p);
	g_hash_table_insert(m->proc_by_pid, &p->pid, p);
	return p;
}

static int64_t pid_cb(void *ctx, const char *name, bool *fresh)
{
	return proc_named(ctx, name, fresh)->pid;
}

static int64_t tid_cb(void *ctx, int64_t pid, const char *name, bool *fresh)
{
	tl_merge *m = ctx;
	char *key = g_strdup_printf("%" G_GINT64_FORMAT "\x1f%s", pid, name);
	gpointer hit = g_hash_table_lookup(m->tid_by_key, key);
	*fresh = hit == NULL;
	if (hit != NULL) {
		g_free(key);
		return (int64_t)GPOINTER_TO_SIZE(hit) - 1;
	}
	struct proc *p = g_hash_table_lookup(m->proc_by_pid, &pid);
	uint32_t tid = p != NULL ? p->next_tid++ : 0;
	g_hash_table_insert(m->tid_by_key, key, GSIZE_TO_POINTER((gsize)tid + 1));
	return tid;
}

/* Shifted times stay within twice the model's time limit (2^62 ns), so
 * that adding a shift never overflows: a pack of many very long runs, or
 * an absurd offset, gets its shift clamped, with a warning. Inputs hold
 * begin <= end within that range (times of a run, or of the usable events
 * of a Chrome trace). */
#define SHIFTED_LIMIT_NS (2 * TL_TIME_LIMIT_NS)

static int64_t sub_sat(int64_t a, int64_t b)
{
	int64_t r;
	if (__builtin_sub_overflow(a, b, &r))
		return b < 0 ? INT64_MAX : INT64_MIN;
	return r;
}

static int64_t clamp_shift(int64_t shift, int64_t begin_ns, int64_t end_ns)
{
	int64_t lo = -SHIFTED_LIMIT_NS - begin_ns, hi = SHIFTED_LIMIT_NS - end_ns;
	if (shift >= lo && shift <= hi)
		return shift;
	tl_warn("merge-shift-range", "alignment would move times beyond 146 years from 1970; "
				     "shift clamped");
	return shift < lo ? lo : hi;
}

/* The shift that aligns a run starting at begin_ns and ending at end_ns. */
static int64_t align_shift(tl_merge *m, int64_t begin_ns, int64_t end_ns, int64_t offset_ns)
{
	int64_t shift = offset_ns;
	switch (m->opts.align) {
	case TL_ALIGN_WALL:
		break;
	case TL_ALIGN_PACK:
		if (!m->have_cursor) {
			m->cursor_ns = clamp_shift(offset_ns, begin_ns, end_ns) + begin_ns;
			m->have_cursor = true;
		}
		shift = sub_sat(m->cursor_ns, begin_ns);
		break;
	case TL_ALIGN_OVERLAY:
		shift = -begin_ns;
		break;
	}
	shift = clamp_shift(shift, begin_ns, end_ns);
	if (m->opts.align == TL_ALIGN_PACK)
		m->cursor_ns = end_ns + shift + m->opts.gap_ns;
	return shift;
}

static void add_span(tl_merge *m, const char *label, const char *input, int64_t begin_ns,
		     int64_t end_ns, int64_t shift_ns)
{
	struct span_rec *s = g_new0(struct span_rec, 1);
	s->label = g_strdup(label);
	s->input = g_strdup(input);
	s->begin_ns = begin_ns + shift_ns;
	s->end_ns = end_ns + shift_ns;
	s->shift_ns = shift_ns;
	g_ptr_array_add(m->spans, s);
}

void tl_merge_run(tl_merge *m, const tl_run *run, const char *input, int64_t offset_ns)
{
	int64_t shift = align_shift(m, run->t_begin, run->t_end, offset_ns);
	/* Overlaid runs each get their processes; otherwise a run's devices
	 * are shared with the other runs of its host (the steps of one
	 * profile), and hosts are kept apart: two TF2 hosts both have a
	 * /host:CPU and a /device:GPU:0. */
	char *prefix = m->opts.align == TL_ALIGN_OVERLAY ? g_strdup_printf("%s: ", run->label)
		       : run->host != NULL		 ? g_strdup_printf("%s: ", run->host)
							 : NULL;
	tl_optrace_opts oo;
	tl_optrace_opts_init(&oo);
	oo.flows = m->opts.flows;
	oo.prefix = prefix;
	oo.shift_ns = shift;
	oo.pid_of = pid_cb;
	oo.tid_of = tid_cb;
	oo.ids_ctx = m;
	int64_t unused_pid = 0;
	tl_optrace_write(m->w, run, &oo, &unused_pid, &m->next_flow, NULL);
	if (m->opts.memory) {
		tl_memory *mem = tl_memory_build(run);
		tl_memview *view = tl_memview_from_memory(mem);
		tl_memtrace_opts mo = {.objects = false, .shift_ns = shift};
		char *mprefix = g_strdup_printf("%s: ", run->label);
		tl_memtrace_write(m->w, view, &mo, mprefix, &m->next_pid, &m->next_id);
		g_free(mprefix);
		tl_memview_free(view);
		tl_memory_free(mem);
	}
	g_free(prefix);
	add_span(m, run->label, input, run->t_begin, run->t_end, shift);
}

/* ---- Chrome inputs ----------------------------------------------------- */

/* The key of an id-bearing event: its family (flow, async, object), id
 * and category; and whether the event starts one. */
static char *id_key(const tl_chrome_in_event *ev, GString *buf, bool *start)
{
	char cls = ev->ph;
	switch (ev->ph) {
	case 's':
	case 't':
	case 'f':
		cls = 's';
		break;
	case 'b':
	case 'n':
	case 'e':
		cls = 'b';
		break;
	case 'S':
	case 'T':
	case 'p':
	case 'F':
		cls = 'S';
		break;
	case 'N':
	case 'O':
	case 'D':
		cls = 'N';
		break;
	default:
		break;
	}
	*start = ev->ph == 's' || ev->ph == 'b' || ev->ph == 'S' || ev->ph == 'N';
	return g_strdup_printf("%c%s\x1f%.*s", cls, tl_chrome_reader_span_text(ev, ev->id, buf),
			       (int)ev->cat.len, ev->raw + ev->cat.off);
}

struct chrome_scan {
	GHashTable *starts; /* id key -> number of starting events */
	double min_us, max_us;
	int64_t min_ns, max_ns; /* the same from the digits (ns_of) */
	bool any;
	size_t events;		 /* events read before the end or the damage */
	size_t drawn;		 /* those of them not metadata */
	size_t placed;		 /* those of them whose times are usable */
	GHashTable *proc_name;	 /* pid text -> name */
	GHashTable *thread_name; /* "pid\x1ftid" text -> name */
};

static char *span_dup(const tl_chrome_in_event *ev, tl_span s, GString *buf)
{
	return g_strdup(tl_chrome_reader_span_text(ev, s, buf));
}

/* The "name" argument of a metadata event. */
static char *meta_arg_name(const tl_chrome_in_event *ev, GString *buf)
{
	if (ev->args.len == 0)
		return NULL;
	json_error_t jerr;
	json_t *args = json_loadb(ev->raw + ev->args.off, ev->args.len, 0, &jerr);
	const char *n = json_string_value(json_object_get(args, "name"));
	char *out = n != NULL ? g_strdup(n) : NULL;
	json_decref(args);
	(void)buf;
	return out;
}

/* An event's ts and dur, where present, are finite numbers within the
 * model's time limit (what a shift can move); other events are dropped. */
static bool chrome_times_usable(const tl_chrome_in_event *ev)
{
	double limit = (double)TL_TIME_LIMIT_US;
	if (ev->ts.len > 0 && !(ev->has_ts && fabs(ev->ts_us) <= limit))
		return false;
	double dur;
	if (ev->dur.len > 0 &&
	    !(tl_chrome_reader_span_number(ev, ev->dur, &dur) && fabs(dur) <= limit))
		return false;
	return true;
}

/* A usable event's ts or dur in ns from its digits (a double cannot hold a
 * fraction of an epoch microsecond), else from the double. */
static int64_t ns_of(const tl_chrome_in_event *ev, tl_span s, double us)
{
	int64_t ns;
	if (tl_chrome_reader_span_ns(ev, s, &ns) > 0)
		return ns;
	return (int64_t)llround(us * 1000.0);
}

static int scan_chrome(const uint8_t *data, size_t len, struct chrome_scan *sc, tl_error *err)
{
	tl_chrome_reader *r = NULL;
	if (tl_chrome_reader_open(&r, data, len, err) < 0)
		return -1;
	GString *buf = g_string_new(NULL);
	tl_chrome_in_event ev;
	int rc;
	while ((rc = tl_chrome_reader_next(r, &ev, err)) > 0) {
		sc->events++;
		sc->drawn += ev.ph != 'M';
		if (!chrome_times_usable(&ev))
			continue;
		sc->placed += ev.ph != 'M';
		if (ev.ph == 'M') {
			bool proc = tl_chrome_reader_span_is(&ev, ev.name, "\"process_name\"");
			bool thread = tl_chrome_reader_span_is(&ev, ev.name, "\"thread_name\"");
			if (!proc && !thread)
				continue;
			char *name = meta_arg_name(&ev, buf);
			if (name == NULL)
				continue;
			char *pid = span_dup(&ev, ev.pid, buf);
			if (proc) {
				g_hash_table_replace(sc->proc_name, pid, name);
			} else {
				char *key = g_strdup_printf(
				    "%s\x1f%s", pid, tl_chrome_reader_span_text(&ev, ev.tid, buf));
				g_free(pid);
				g_hash_table_replace(sc->thread_name, key, name);
			}
			continue;
		}
		if (ev.id.len > 0 && sc->starts != NULL) {
			bool start;
			char *key = id_key(&ev, buf, &start);
			guint n = GPOINTER_TO_UINT(g_hash_table_lookup(sc->starts, key));
			g_hash_table_replace(sc->starts, key,
					     GUINT_TO_POINTER(n + (start ? 1 : 0)));
		}
		if (!ev.has_ts)
			continue;
		double end = ev.ts_us + (ev.dur_us > 0 ? ev.dur_us : 0);
		int64_t t_ns = ns_of(&ev, ev.ts, ev.ts_us), d_ns = ns_of(&ev, ev.dur, ev.dur_us);
		int64_t end_ns = t_ns + (d_ns > 0 ? d_ns : 0);
		if (!sc->any || ev.ts_us < sc->min_us)
			sc->min_us = ev.ts_us;
		if (!sc->any || end > sc->max_us)
			sc->max_us = end;
		if (!sc->any || t_ns < sc->min_ns)
			sc->min_ns = t_ns;
		if (!sc->any || end_ns > sc->max_ns)
			sc->max_ns = end_ns;
		sc->any = true;
	}
	g_string_free(buf, TRUE);
	tl_chrome_reader_close(r);
	return rc;
}

bool tl_merge_first_ts(const uint8_t *data, size_t len, double *us)
{
	struct chrome_scan sc = {0};
	sc.proc_name = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, g_free);
	sc.thread_name = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, g_free);
	tl_error err;
	/* damage is told when the input is merged; its events before count */
	scan_chrome(data, len, &sc, &err);
	bool ok = sc.any;
	*us = sc.min_us;
	g_hash_table_destroy(sc.proc_name);
	g_hash_table_destroy(sc.thread_name);
	return ok;
}

/* Ids are per input, renumbered so inputs never collide. An id started
 * once keeps one new id whatever the order of its events (Kineto writes
 * flow ends before starts); an id started several times (hand-merged
 * timelines reuse them) gets a fresh id at each start, kept until the next,
 * so each flow stays paired. */
static uint64_t renumber_id(tl_merge *m, GHashTable *id_map, GHashTable *starts,
			    const tl_chrome_in_event *ev, GString *buf)
{
	bool start;
	char *key = id_key(ev, buf, &start);
	bool reused = GPOINTER_TO_UINT(g_hash_table_lookup(starts, key)) > 1;
	gpointer hit = g_hash_table_lookup(id_map, key);
	if (hit != NULL && !(start && reused)) {
		g_free(key);
		return (uint64_t)GPOINTER_TO_SIZE(hit);
	}
	uint64_t nid = m->next_flow++;
	g_hash_table_replace(id_map, key, GSIZE_TO_POINTER((gsize)nid));
	return nid;
}

static void format_us(char *buf, size_t size, double us)
{
	snprintf(buf, size, "%.3f", us);
	char *dot = strchr(buf, '.');
	if (dot == NULL)
		return;
	char *end = buf + strlen(buf) - 1;
	while (end > dot && *end == '0')
		*end-- = '\0';
	if (end == dot)
		*end = '\0';
}

/* ns as microseconds text, as tl_json_micros writes them. */
static void format_ns(char *buf, size_t size, int64_t ns)
{
	uint64_t mag = ns < 0 ? (uint64_t)0 - (uint64_t)ns : (uint64_t)ns;
	int n = snprintf(buf, size, "%s%" G_GUINT64_FORMAT ".%03u", ns < 0 ? "-" : "", mag / 1000,
			 (unsigned)(mag % 1000));
	char *end = buf + n - 1;
	while (*end == '0')
		*end-- = '\0';
	if (*end == '.')
		*end = '\0';
}

/* One Chrome trace input being merged. */
struct chrome_input {
	tl_merge *m;
	struct chrome_scan *sc;
	GHashTable *pid_map; /* its pid text -> our pid */
	GHashTable *id_map;  /* its flow ids -> ours */
	GString *buf;
	const char *label; /* the input's file name */
	double shift_us;
	int64_t shift_ns;
};

/* Our process for the event's pid: named after its process_name, else the
 * pid itself when it is a string, else "FILE: pid N". */
static int64_t input_pid(struct chrome_input *ci, const tl_chrome_in_event *ev, const char *pid_s)
{
	gpointer hit = g_hash_table_lookup(ci->pid_map, pid_s);
	if (hit != NULL)
		return (int64_t)GPOINTER_TO_SIZE(hit);
	tl_merge *m = ci->m;
	const char *known = g_hash_table_lookup(ci->sc->proc_name, pid_s);
	bool is_string = ev->pid.len > 0 && ev->raw[ev->pid.off] == '"';
	char *name = known != NULL ? g_strdup(known)
		     : is_string   ? g_strdup(pid_s)
				   : g_strdup_printf("%s: pid %s", ci->label, pid_s);
	if (m->opts.align == TL_ALIGN_OVERLAY) {
		char *p = g_strdup_printf("%s: %s", ci->label, name);
		g_free(name);
		name = p;
	}
	bool fresh;
	struct proc *p = proc_named(m, name, &fresh);
	if (fresh)
		tl_chrome_process(m->w, p->pid, name, p->pid);
	g_free(name);
	g_hash_table_insert(ci->pid_map, g_strdup(pid_s), GSIZE_TO_POINTER((gsize)p->pid));
	return p->pid;
}

/* The thread: its name, else its id, keeps one row per process. */
static int64_t input_tid(struct chrome_input *ci, const tl_chrome_in_event *ev, int64_t pid,
			 const char *pid_s)
{
	if (ev->tid.len == 0)
		return 0;
	char *tkey =
	    g_strdup_printf("%s\x1f%s", pid_s, tl_chrome_reader_span_text(ev, ev->tid, ci->buf));
	const char *tname = g_hash_table_lookup(ci->sc->thread_name, tkey);
	char *tlabel = tname != NULL ? g_strdup(tname)
				     : g_strdup_printf("thread %s", strchr(tkey, '\x1f') + 1);
	bool fresh;
	int64_t tid = tid_cb(ci->m, pid, tlabel, &fresh);
	if (fresh)
		tl_chrome_thread(ci->m->w, pid, tid, tlabel, tid);
	g_free(tlabel);
	g_free(tkey);
	return tid;
}

/* Metadata the merge writes itself: process and thread names and order. */
static bool ours(const tl_chrome_in_event *ev)
{
	return ev->ph == 'M' && (tl_chrome_reader_span_is(ev, ev->name, "\"process_name\"") ||
				 tl_chrome_reader_span_is(ev, ev->name, "\"thread_name\"") ||
				 tl_chrome_reader_span_is(ev, ev->name, "\"process_sort_index\"") ||
				 tl_chrome_reader_span_is(ev, ev->name, "\"thread_sort_index\""));
}

/* Metadata already written for this process and thread (hand-merged files
 * repeat it): written once. */
static bool repeated(tl_merge *m, const tl_chrome_in_event *ev, int64_t pid, int64_t tid)
{
	if (ev->ph != 'M')
		return false;
	char *key = g_strdup_printf("%" G_GINT64_FORMAT "/%" G_GINT64_FORMAT "/%.*s/%.*s", pid, tid,
				    (int)ev->name.len, ev->raw + ev->name.off, (int)ev->args.len,
				    ev->raw + ev->args.off);
	return !g_hash_table_add(m->meta_seen, key);
}

/* The event copied through with our pid, tid, shifted ts and flow id. */
static void write_event(struct chrome_input *ci, const tl_chrome_in_event *ev, int64_t pid,
			int64_t tid)
{
	char pid_txt[32], tid_txt[32], ts_txt[64], id_txt[32];
	tl_chrome_rewrite rw = {.pid = pid_txt, .tid = ev->tid.len ? tid_txt : NULL};
	snprintf(pid_txt, sizeof pid_txt, "%" G_GINT64_FORMAT, pid);
	snprintf(tid_txt, sizeof tid_txt, "%" G_GINT64_FORMAT, tid);
	int64_t ns;
	if (ev->has_ts && tl_chrome_reader_span_ns(ev, ev->ts, &ns) > 0) {
		/* from its digits: a double cannot hold a fraction of an epoch us */
		format_ns(ts_txt, sizeof ts_txt, ns + ci->shift_ns);
		rw.ts = ts_txt;
	} else if (ev->has_ts) {
		format_us(ts_txt, sizeof ts_txt, ev->ts_us + ci->shift_us);
		rw.ts = ts_txt;
	}
	if (ev->id.len > 0) {
		snprintf(id_txt, sizeof id_txt, "%" G_GUINT64_FORMAT,
			 renumber_id(ci->m, ci->id_map, ci->sc->starts, ev, ci->buf));
		rw.id = id_txt;
	}
	tl_chrome_raw(ci->m->w);
	tl_chrome_reader_rewrite(ci->m->w->out, ev, &rw);
}

static void scan_free(struct chrome_scan *sc)
{
	g_hash_table_destroy(sc->proc_name);
	g_hash_table_destroy(sc->thread_name);
	g_hash_table_destroy(sc->starts);
}

int tl_merge_chrome(tl_merge *m, const uint8_t *data, size_t len, const char *input,
		    int64_t offset_ns, tl_error *err)
{
	struct chrome_scan sc = {0};
	sc.proc_name = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, g_free);
	sc.thread_name = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, g_free);
	sc.starts = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, NULL);
	int rc = scan_chrome(data, len, &sc, err);
	/* Damage after some events keeps them, as every reader of Chrome
	 * JSON does (io/chrome_run.c): one warning, or the error under
	 * --strict; damage before any event but metadata is the input's
	 * error. */
	size_t keep = sc.events;
	if (rc < 0 && sc.drawn > 0) {
		char why[sizeof err->msg];
		g_strlcpy(why, err->msg, sizeof why);
		rc = tl_warn_damage(err, input, "the events before it are read", "%s", why);
	}
	/* nothing to merge: one error, as every reader of Chrome JSON says */
	if (rc == 0 && sc.drawn == 0)
		rc = tl_error_set(err, "a Chrome trace with no events but metadata: nothing to "
				       "merge");
	else if (rc == 0 && sc.placed == 0)
		rc = tl_error_set(err,
				  "a Chrome trace whose %zu events all have a ts or dur that is no "
				  "number within 73 years of 1970: nothing to merge",
				  sc.drawn);
	if (rc < 0) {
		scan_free(&sc);
		return -1;
	}
	m->inputs++;
	char *label = g_path_get_basename(input);
	int64_t begin_ns = sc.min_ns;
	int64_t end_ns = sc.max_ns;
	int64_t shift = align_shift(m, begin_ns, end_ns, offset_ns);
	struct chrome_input ci = {
	    .m = m,
	    .sc = &sc,
	    .pid_map = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, NULL),
	    .id_map = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, NULL),
	    .buf = g_string_new(NULL),
	    .label = label,
	    .shift_us = (double)shift / 1000.0,
	    .shift_ns = shift,
	};
	tl_chrome_reader *r = NULL;
	tl_chrome_reader_open(&r, data, len, err);
	tl_chrome_in_event ev;
	tl_error again;
	for (size_t k = 0; k < keep && tl_chrome_reader_next(r, &ev, &again) > 0; k++) {
		if (!chrome_times_usable(&ev)) {
			tl_warn("chrome-time-range",
				"events whose ts or dur is not a number within "
				"73 years of 1970 dropped");
			continue;
		}
		char *pid_s =
		    g_strdup(ev.pid.len ? tl_chrome_reader_span_text(&ev, ev.pid, ci.buf) : "0");
		int64_t pid = input_pid(&ci, &ev, pid_s);
		if (!ours(&ev)) {
			int64_t tid = input_tid(&ci, &ev, pid, pid_s);
			if (!repeated(m, &ev, pid, tid))
				write_event(&ci, &ev, pid, tid);
		}
		g_free(pid_s);
	}
	tl_chrome_reader_close(r);
	g_string_free(ci.buf, TRUE);
	g_hash_table_destroy(ci.pid_map);
	g_hash_table_destroy(ci.id_map);
	scan_free(&sc);
	if (sc.any)
		add_span(m, label, input, begin_ns, end_ns, shift);
	g_free(label);
	return 0;
}

/* ---- closing ----------------------------------------------------------- */

/* "/job:worker/replica:0/task:1" of a process name, or "" */
static char *task_of(const char *name)
{
	const char *job = strstr(name, "/job:");
	if (job == NULL)
		return g_strdup("");
	const char *task = strstr(job, "/task:");
	if (task == NULL)
		return g_strdup("");
	const char *end = task + 6;
	while (g_ascii_isdigit(*end))
		end++;
	return g_strndup(job, (gsize)(end - job));
}

struct order_item {
	char *task;
	size_t first;
	int64_t pid;
};

static int cmp_order(const void *a, const void *b)
{
	const struct order_item *x = a, *y = b;
	int c = strcmp(x->task, y->task);
	if (c != 0)
		return c;
	return x->first < y->first ? -1 : (x->first > y->first);
}

static int cmp_span(const void *a, const void *b)
{
	const struct span_rec *x = *(struct span_rec *const *)a;
	const struct span_rec *y = *(struct span_rec *const *)b;
	if (x->begin_ns != y->begin_ns)
		return x->begin_ns < y->begin_ns ? -1 : 1;
	return 0;
}

static void write_runs_track(tl_merge *m)
{
	tl_chrome *w = m->w;
	tl_chrome_process(w, 1, "Runs", 0);
	/* spans may overlap (workers of one step): first-fit rows */
	GPtrArray *sorted = g_ptr_array_new();
	for (guint i = 0; i < m->spans->len; i++)
		g_ptr_array_add(sorted, g_ptr_array_index(m->spans, i));
	g_ptr_array_sort(sorted, cmp_span);
	tl_lanes_fit *rows = tl_lanes_fit_new();
	for (guint i = 0; i < sorted->len; i++) {
		struct span_rec *s = g_ptr_array_index(sorted, i);
		uint32_t had = tl_lanes_fit_rows(rows);
		uint32_t row = tl_lanes_fit_place(rows, s->begin_ns, s->end_ns);
		if (row == had) {
			char name[32];
			snprintf(name, sizeof name, row == 0 ? "runs" : "runs (%u)", row + 1);
			tl_chrome_thread(w, 1, row, name, row);
		}
		tl_chrome_complete(w, s->label, "run", 1, row, s->begin_ns,
				   s->end_ns - s->begin_ns);
		tl_chrome_arg_str(w, "input", s->input);
		tl_chrome_arg_micros(w, "shift_us", s->shift_ns);
	}
	tl_lanes_fit_free(rows);
	g_ptr_array_free(sorted, TRUE);
}

void tl_merge_finish(tl_merge *m, const char *tool_version)
{
	write_runs_track(m);
	guint n = m->procs->len;
	struct order_item *items = g_new(struct order_item, n ? n : 1);
	for (guint i = 0; i < n; i++) {
		struct proc *p = g_ptr_array_index(m->procs, i);
		items[i] = (struct order_item){task_of(p->name), i, p->pid};
	}
	qsort(items, n, sizeof *items, cmp_order);
	for (guint i = 0; i < n; i++) {
		tl_chrome_event(m->w, 'M', "process_sort_index", NULL, items[i].pid, 0, 0, -1);
		tl_chrome_arg_int(m->w, "sort_index", (int64_t)i + 1);
		g_free(items[i].task);
	}
	g_free(items);

	json_t *other = json_object();
	json_object_set_new(other, "tool", json_string(tool_version));
	const char *align = m->opts.align == TL_ALIGN_WALL   ? "wall"
			    : m->opts.align == TL_ALIGN_PACK ? "pack"
							     : "overlay";
	json_object_set_new(other, "align", json_string(align));
	json_t *runs = json_array();
	for (guint i = 0; i < m->spans->len; i++) {
		struct span_rec *s = g_ptr_array_index(m->spans, i);
		json_array_append_new(runs,
				      json_pack("{s:s,s:s,s:f}", "run", s->label, "input", s->input,
						"shift_us", (double)s->shift_ns / 1000.0));
	}
	json_object_set_new(other, "runs", runs);
	char *text = json_dumps(other, JSON_COMPACT | JSON_ENSURE_ASCII | JSON_PRESERVE_ORDER);
	tl_chrome_end(m->w, text);
	free(text);
	json_decref(other);
}
