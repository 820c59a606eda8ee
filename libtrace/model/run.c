/*
 * run: a decoded RunMetadata as a tl_run (run.h): device names and kinds,
 * the labels as timeline.py reads them, the devices and their executions
 * with their times checked, and the links of each execution to its graph
 * node (run_graph.c builds the graphs) and of each GPU record to the op
 * that launched it.
 */
#include "model/run_internal.h"
#include "base/group.h"

#include "base/crew.h"
#include "base/runsort.h"

#include <glib.h>
#include <stdlib.h>
#include <string.h>

const char *tl_run_device_kind_name(tl_device_kind k)
{
	switch (k) {
	case TL_DEV_EXECUTOR:
		return "executor";
	case TL_DEV_STREAM:
		return "gpu-stream";
	case TL_DEV_MEMCPY:
		return "memcpy";
	case TL_DEV_STREAM_ALL:
		return "stream-all";
	case TL_DEV_SYNC:
		return "sync";
	case TL_DEV_OTHER:
		break;
	}
	return "other";
}

/* A path segment like "cpu:0" or "gpu:1" (old spelling) or "CPU:0". */
static bool is_bare_device_segment(const char *seg, size_t len)
{
	const char *colon = memchr(seg, ':', len);
	if (colon == NULL || colon == seg || colon + 1 == seg + len)
		return false;
	size_t kind_len = (size_t)(colon - seg);
	static const char *const not_devices[] = {"job", "replica", "task", "device", "stream"};
	for (size_t i = 0; i < G_N_ELEMENTS(not_devices); i++)
		if (strlen(not_devices[i]) == kind_len &&
		    strncmp(seg, not_devices[i], kind_len) == 0)
			return false;
	for (const char *p = colon + 1; p < seg + len; p++)
		if (!g_ascii_isdigit(*p))
			return false;
	for (const char *p = seg; p < colon; p++)
		if (!g_ascii_isalnum(*p) && *p != '_')
			return false;
	return true;
}

void tl_run_device_normalize_append(GString *s, const char *raw, size_t len)
{
	const char *p = raw, *end = raw + len;
	const char *slash = memchr(p, '/', len);
	if (slash == NULL)
		slash = end;
	g_string_append_len(s, p, (gssize)(slash - p));
	p = slash;
	while (p < end) {
		/* p is at a '/': the segment after it */
		g_string_append_c(s, '/');
		p++;
		const char *next = memchr(p, '/', (size_t)(end - p));
		size_t seg = next != NULL ? (size_t)(next - p) : (size_t)(end - p);
		if (is_bare_device_segment(p, seg)) {
			const char *colon = memchr(p, ':', seg);
			g_string_append(s, "device:");
			for (const char *q = p; q < colon; q++)
				g_string_append_c(s, g_ascii_toupper(*q));
			g_string_append_len(s, colon, (gssize)(p + seg - colon));
		} else {
			g_string_append_len(s, p, (gssize)seg);
		}
		p += seg;
	}
}

const char *tl_run_device_normalize(tl_arena *arena, const char *raw)
{
	if (raw == NULL || raw[0] == '\0')
		return "";
	size_t len = strlen(raw);
	GString *s = g_string_sized_new(len + 16);
	tl_run_device_normalize_append(s, raw, len);
	const char *out = tl_arena_strndup(arena, s->str, s->len);
	g_string_free(s, TRUE);
	return out;
}

tl_device_kind tl_run_device_kind_of(const char *name)
{
	if (strstr(name, "/stream:all") != NULL)
		return TL_DEV_STREAM_ALL;
	if (strstr(name, "/stream:") != NULL)
		return TL_DEV_STREAM;
	if (g_str_has_suffix(name, "/memcpy"))
		return TL_DEV_MEMCPY;
	if (g_str_has_suffix(name, "/sync"))
		return TL_DEV_SYNC;
	/* An executor's name ends at its device ("/device:GPU:0", "/host:CPU",
	 * as the TF2 profiler names its planes); anything under it is a
	 * pseudo-device (an XSpace's "/device:GPU:0/TensorFlow Ops" line). */
	const char *dev = strstr(name, "/device:");
	if (dev == NULL && g_str_has_prefix(name, "/host:"))
		dev = name;
	if (dev != NULL && strchr(dev + 1, '/') == NULL)
		return TL_DEV_EXECUTOR;
	if (dev == NULL && g_str_has_prefix(name, "/job:"))
		return TL_DEV_EXECUTOR;
	return TL_DEV_OTHER;
}

void tl_run_kernel_label_parse(tl_arena *arena, const char *label, const char *node_name,
			       const char **name, const char **op)
{
	/* As timeline.py: the text between "@@" and the first '#' when both
	 * are there in that order, else the record's node_name; then split at
	 * ':' into node and op. */
	const char *full = node_name != NULL ? node_name : "";
	size_t full_len = strlen(full);
	if (label != NULL) {
		const char *at = strstr(label, "@@");
		const char *hash = at != NULL ? strchr(label, '#') : NULL;
		if (at != NULL && hash != NULL && at + 2 < hash) {
			full = at + 2;
			full_len = (size_t)(hash - full);
		}
	}
	const char *colon = memchr(full, ':', full_len);
	if (colon == NULL) {
		*name = tl_arena_strndup(arena, full, full_len);
		*op = "unknown";
		return;
	}
	*name = tl_arena_strndup(arena, full, (size_t)(colon - full));
	const char *op_begin = colon + 1;
	const char *op_stop = memchr(op_begin, ':', (size_t)(full + full_len - op_begin));
	if (op_stop == NULL)
		op_stop = full + full_len;
	*op = tl_arena_strndup(arena, op_begin, (size_t)(op_stop - op_begin));
}

bool tl_run_op_label_parse(tl_arena *arena, const char *label, const char **name, const char **op,
			   const char ***inputs, size_t *n_inputs)
{
	/* timeline.py matches r"(.*) = (.*)\((.*)\)": greedy groups, so the
	 * last " = ", then the last '(' that has a ')' after it, then the last
	 * ')'. */
	if (label == NULL)
		return false;
	const char *eq = NULL, *open = NULL, *close = NULL;
	/* The usual label, "name = Op()": the op a word between the last
	 * " = " and a closing "()", found from the end (what the scans below
	 * find for it). */
	size_t len = strlen(label);
	if (len >= 5 && label[len - 1] == ')' && label[len - 2] == '(') {
		const char *w = label + len - 2;
		while (w > label && (g_ascii_isalnum(w[-1]) || w[-1] == '_'))
			w--;
		if (w - label >= 3 && w[-3] == ' ' && w[-2] == '=' && w[-1] == ' ') {
			close = label + len - 1;
			open = label + len - 2;
			eq = w - 3;
		}
	}
	if (eq == NULL) {
		close = strrchr(label, ')');
		if (close == NULL)
			return false;
		/* the last " = " starting before the ')' (it cannot reach it) */
		for (const char *p = close; p - label >= 3 && eq == NULL;) {
			p--;
			if (p[-2] == ' ' && p[-1] == '=' && p[0] == ' ')
				eq = p - 2;
		}
		if (eq == NULL)
			return false;
		for (const char *p = eq + 3; p < close; p++)
			if (*p == '(')
				open = p;
		if (open == NULL)
			return false;
	}
	const char *nn = label;
	if (nn[0] == '[') {
		const char *rb = strstr(nn, "] ");
		if (rb != NULL && rb < eq)
			nn = rb + 2;
	}
	if (name != NULL)
		*name = tl_arena_strndup(arena, nn, (size_t)(eq - nn));
	if (op != NULL)
		*op = tl_arena_strndup(arena, eq + 3, (size_t)(open - (eq + 3)));
	if (inputs != NULL) {
		const char *in = open + 1;
		size_t in_len = (size_t)(close - in);
		size_t n = 0;
		if (in_len > 0) {
			n = 1;
			for (const char *p = in; p + 1 < close; p++)
				if (p[0] == ',' && p[1] == ' ')
					n++;
		}
		const char **arr = tl_arena_alloc(arena, (n ? n : 1) * sizeof *arr);
		size_t k = 0;
		const char *start = in;
		for (const char *p = in; n > 0 && p <= close; p++) {
			if (p == close || (p[0] == ',' && p + 1 < close && p[1] == ' ')) {
				arr[k++] = tl_arena_strndup(arena, start, (size_t)(p - start));
				start = p + 2;
				if (p != close)
					p++;
			}
		}
		*inputs = arr;
		*n_inputs = k;
	}
	return true;
}

/* ---- building ---------------------------------------------------------- */

/* The microsecond fields obey TL_TIME_LIMIT_NS whichever unit is used (the
 * memory analysis reads them). */
#define TIME_LIMIT_US TL_TIME_LIMIT_US

/* TF 1.3's GPU tracer wrote a kernel's launch time in nanoseconds into
 * scheduled_micros: read as microseconds it lies about 1000 times further
 * from 1970 than the record's start (after the kernel it launched, which
 * cannot be), read as nanoseconds it lands near the start. */
#define NANOS_SCHEDULED_AFTER_US ((int64_t)1000000)	  /* 1 s after the start */
#define NANOS_SCHEDULED_NEAR_US ((int64_t)3600 * 1000000) /* within an hour of it */

static bool in_range_us(int64_t us)
{
	return us >= -TIME_LIMIT_US && us <= TIME_LIMIT_US;
}

static bool in_range_ns(int64_t ns)
{
	return ns >= -TL_TIME_LIMIT_NS && ns <= TL_TIME_LIMIT_NS;
}

static int64_t ns_time(int64_t micros, int64_t nanos, bool use_nanos)
{
	return use_nanos ? nanos : micros * 1000;
}

/* A start and a time relative to it are each within the limit, and so is
 * their sum (which cannot overflow then). */
static bool rel_in_range(int64_t start, int64_t rel, int64_t limit)
{
	return start >= -limit && start <= limit && rel >= -limit && rel <= limit &&
	       start + rel >= -limit && start + rel <= limit;
}

static bool is_tracer_kind(tl_device_kind kind)
{
	return kind == TL_DEV_STREAM || kind == TL_DEV_STREAM_ALL || kind == TL_DEV_MEMCPY ||
	       kind == TL_DEV_SYNC;
}

/* `start_us` is in range (checked first). */
static bool scheduled_is_nanos(int64_t scheduled, int64_t start_us)
{
	if (scheduled <= start_us + NANOS_SCHEDULED_AFTER_US)
		return false;
	int64_t as_us = scheduled / 1000;
	return as_us >= start_us - NANOS_SCHEDULED_NEAR_US &&
	       as_us <= start_us + NANOS_SCHEDULED_NEAR_US;
}

/* scheduled_micros serves one thing, the memory analysis' step start (the
 * _SOURCE record of an executor): out of range it is ignored, never the
 * execution. */
static void check_scheduled(Tensorflow__NodeExecStats *ns, tl_device_kind kind)
{
	int64_t s = ns->scheduled_micros;
	if (s == 0)
		return;
	if (is_tracer_kind(kind) && scheduled_is_nanos(s, ns->all_start_micros)) {
		ns->scheduled_micros = s / 1000;
		return;
	}
	if (!in_range_us(s)) {
		tl_warn("scheduled-range", "scheduled_micros beyond 73 years from 1970 ignored "
					   "(the executions are kept)");
		ns->scheduled_micros = 0;
	}
}

/* The compute span (op_start_rel, op_end_rel) serves only the memory
 * analysis (when outputs are born, when temporaries die); out of range it
 * is ignored: the compute span becomes the execution's span. One unit's
 * fields: `unit` "micros" or "nanos", the warning keys with it. */
struct span_fields {
	int64_t start, *op_start_rel, *op_end_rel, all_end_rel, limit;
	const char *unit, *start_key, *end_key;
};

static void check_compute_span(const struct span_fields *f)
{
	if (!rel_in_range(f->start, *f->op_start_rel, f->limit)) {
		tl_warn(f->start_key,
			"op_start_rel_%s beyond 73 years from 1970 ignored (the "
			"execution's start used)",
			f->unit);
		*f->op_start_rel = 0;
	}
	if (!rel_in_range(f->start, *f->op_end_rel, f->limit)) {
		tl_warn(f->end_key,
			"op_end_rel_%s beyond 73 years from 1970 ignored (the "
			"execution's end used)",
			f->unit);
		*f->op_end_rel = f->all_end_rel;
	}
}

/* What keeps a record's times from serving, with the warning each is told
 * by (in exec_times_usable): its start or end (the record is skipped), or
 * its *_nanos fields (the micros serve). */
enum time_fault {
	TIMES_OK,
	START_RANGE,
	END_RANGE,
	NANOS_NONE, /* no *_nanos fields: nothing to say */
	NANOS_START_RANGE,
	NANOS_END_RANGE,
	NANOS_MISMATCH,
};

static const struct {
	const char *key, *text;
} time_faults[] = {
    [START_RANGE] = {"start-range",
		     "executions whose all_start_micros is beyond 73 years from 1970 skipped"},
    [END_RANGE] = {"end-range", "executions whose all_end_rel_micros puts their end beyond 73 "
				"years from 1970 skipped"},
    [NANOS_START_RANGE] = {"start-nanos-range",
			   "all_start_nanos beyond 73 years from 1970 ignored; using microseconds"},
    [NANOS_END_RANGE] = {"end-nanos-range",
			 "all_end_rel_nanos beyond 73 years from 1970 ignored; using microseconds"},
    [NANOS_MISMATCH] = {"nanos-mismatch",
			"nanosecond times disagree with microsecond times; using microseconds"},
};

static void tell_fault(enum time_fault f)
{
	if (time_faults[f].key != NULL)
		tl_warn(time_faults[f].key, "%s", time_faults[f].text);
}

/* Whether the start and end place the record at all. */
static enum time_fault placed(const Tensorflow__NodeExecStats *ns)
{
	if (!in_range_us(ns->all_start_micros))
		return START_RANGE;
	if (!rel_in_range(ns->all_start_micros, ns->all_end_rel_micros, TIME_LIMIT_US))
		return END_RANGE;
	return TIMES_OK;
}

/* The *_nanos fields are a finer copy of the micros: when the two that
 * place the execution are unusable, the micros serve. */
static enum time_fault nanos_fault(const Tensorflow__NodeExecStats *ns)
{
	if (ns->all_start_nanos == 0)
		return NANOS_NONE;
	if (!in_range_ns(ns->all_start_nanos))
		return NANOS_START_RANGE;
	if (!rel_in_range(ns->all_start_nanos, ns->all_end_rel_nanos, TL_TIME_LIMIT_NS))
		return NANOS_END_RANGE;
	int64_t diff = ns->all_start_nanos / 1000 - ns->all_start_micros;
	if (diff < -1 || diff > 1)
		return NANOS_MISMATCH;
	return TIMES_OK;
}

/* A placed record's span in ns (from the *_nanos fields when `nanos`); an
 * end before the start is the start (fill_exec says so). */
static void exec_span(const Tensorflow__NodeExecStats *ns, bool nanos, int64_t *start,
		      int64_t *end)
{
	*start = ns_time(ns->all_start_micros, ns->all_start_nanos, nanos);
	*end = *start + ns_time(ns->all_end_rel_micros, ns->all_end_rel_nanos, nanos);
	if (*end < *start)
		*end = *start;
}

/* What an out-of-range time costs depends on who needs it. The start and
 * the end place the execution on every timeline: without them the record
 * is skipped, and the warning names the field. Every other time field is
 * ignored (cleared in the record, so no analysis reads it) and the
 * execution kept. *nanos says whether the *_nanos fields are used. */
static bool exec_times_usable(Tensorflow__NodeExecStats *ns, tl_device_kind kind, bool *nanos)
{
	enum time_fault f = placed(ns);
	if (f != TIMES_OK) {
		tell_fault(f);
		return false;
	}
	/* the usual case first: both in range, nothing to say */
	if (!rel_in_range(ns->all_start_micros, ns->op_start_rel_micros, TIME_LIMIT_US) ||
	    !rel_in_range(ns->all_start_micros, ns->op_end_rel_micros, TIME_LIMIT_US))
		check_compute_span(&(struct span_fields){.start = ns->all_start_micros,
							 .op_start_rel = &ns->op_start_rel_micros,
							 .op_end_rel = &ns->op_end_rel_micros,
							 .all_end_rel = ns->all_end_rel_micros,
							 .limit = TIME_LIMIT_US,
							 .unit = "micros",
							 .start_key = "op-start-range",
							 .end_key = "op-end-range"});
	check_scheduled(ns, kind);
	f = nanos_fault(ns);
	tell_fault(f);
	*nanos = f == TIMES_OK;
	if (*nanos &&
	    (!rel_in_range(ns->all_start_nanos, ns->op_start_rel_nanos, TL_TIME_LIMIT_NS) ||
	     !rel_in_range(ns->all_start_nanos, ns->op_end_rel_nanos, TL_TIME_LIMIT_NS)))
		check_compute_span(&(struct span_fields){.start = ns->all_start_nanos,
							 .op_start_rel = &ns->op_start_rel_nanos,
							 .op_end_rel = &ns->op_end_rel_nanos,
							 .all_end_rel = ns->all_end_rel_nanos,
							 .limit = TL_TIME_LIMIT_NS,
							 .unit = "nanos",
							 .start_key = "op-start-nanos-range",
							 .end_key = "op-end-nanos-range"});
	return true;
}

static int cmp_exec_start(const void *a, const void *b)
{
	const tl_exec *x = a, *y = b;
	if (x->start != y->start)
		return x->start < y->start ? -1 : 1;
	/* Ties keep the dump's order: the records' places in it, not their
	 * addresses (which follow it only within one block of the decoder's
	 * memory: a later block may lie lower). */
	if (x->seq != y->seq)
		return x->seq < y->seq ? -1 : 1;
	return 0;
}

/* Sorts a device's executions by cmp_exec_start (a total order: any sort
 * gives the same result). Dumps mostly list a device's records in start
 * order, or in a few sorted runs: those are merged (base/runsort), the rest
 * (over MERGE_RUNS_MAX runs) sorted. */
#define MERGE_RUNS_MAX 64

static bool exec_before(const void *a, const void *b, void *ctx)
{
	(void)ctx;
	return cmp_exec_start(a, b) < 0;
}

static void sort_execs(tl_exec *e, size_t n)
{
	size_t runs = 1;
	for (size_t k = 1; k < n && runs <= MERGE_RUNS_MAX; k++)
		runs += cmp_exec_start(&e[k - 1], &e[k]) > 0;
	if (runs == 1)
		return;
	if (runs > MERGE_RUNS_MAX)
		qsort(e, n, sizeof *e, cmp_exec_start);
	else
		tl_runsort(e, n, sizeof *e, exec_before, NULL);
}

/* The devices of the dump, one per normalized name in order of first
 * appearance (real dumps name some twice); owner[i] is the device of
 * dev_stats[i]. */
static void collect_devices(struct run_builder *b, const Tensorflow__StepStats *ss, size_t n_dev,
			    uint32_t *owner)
{
	tl_run *run = b->run;
	for (size_t i = 0; i < n_dev; i++) {
		const char *name = tl_run_device_normalize(run->arena, ss->dev_stats[i]->device);
		gpointer hit = g_hash_table_lookup(b->device_index, name);
		if (hit != NULL) {
			owner[i] = GPOINTER_TO_UINT(hit) - 1;
			continue;
		}
		tl_device *d = &run->devices[run->n_devices];
		d->name = name;
		d->raw = ss->dev_stats[i]->device != NULL ? ss->dev_stats[i]->device : "";
		d->kind = tl_run_device_kind_of(name);
		d->executor = -1;
		d->stats = ss->dev_stats[i];
		owner[i] = (uint32_t)run->n_devices;
		g_hash_table_insert(b->device_index, (gpointer)name,
				    GUINT_TO_POINTER(run->n_devices + 1));
		run->n_devices++;
	}
}

/* dev_stats entries grouped by their device, in dump order: device d's
 * are grouped[group_first[d] .. group_first[d + 1]). The caller frees
 * both arrays. */
static void group_dev_stats(size_t n_devices, size_t n_dev, const uint32_t *owner,
			    uint32_t **group_first_out, uint32_t **grouped_out)
{
	tl_group g;
	tl_group_by(&g, owner, n_dev, (uint32_t)n_devices);
	*group_first_out = g.first;
	*grouped_out = g.members;
}

/* Execution e of device d from its record, times in ns (from the *_nanos
 * fields when `nanos`). */
static void fill_exec(tl_exec *e, Tensorflow__NodeExecStats *ns, bool nanos, uint32_t d,
		      uint32_t seq)
{
	e->ns = ns;
	e->node = e->op = NULL; /* link_execs_part's */
	e->iter = 0;		/* index_node_execs' where it has a node */
	e->seq = seq;
	exec_span(ns, nanos, &e->start, &e->end);
	e->op_start = e->start + ns_time(ns->op_start_rel_micros, ns->op_start_rel_nanos, nanos);
	e->op_end = e->start + ns_time(ns->op_end_rel_micros, ns->op_end_rel_nanos, nanos);
	if (ns_time(ns->all_end_rel_micros, ns->all_end_rel_nanos, nanos) < 0)
		tl_warn("negative-duration", "execution with a negative duration treated as zero");
	e->device = d;
	e->thread = ns->thread_id;
	e->gnode = -1;
	e->launcher = -1;
}

/* The executions of device d, from its dev_stats entries grouped[first ..
 * last), placed from run->execs[pos] on and sorted by start; returns the
 * position after them. */
static size_t fill_device_execs(tl_run *run, uint32_t d, const uint32_t *grouped, uint32_t first,
				uint32_t last, size_t pos)
{
	const Tensorflow__StepStats *ss = run->meta->step_stats;
	tl_device *dev = &run->devices[d];
	dev->first_exec = (uint32_t)pos;
	for (uint32_t g = first; g < last; g++) {
		const Tensorflow__DeviceStepStats *ds = ss->dev_stats[grouped[g]];
		for (size_t j = 0; j < ds->n_node_stats; j++) {
			Tensorflow__NodeExecStats *ns = ds->node_stats[j];
			bool nanos = false;
			if (!exec_times_usable(ns, dev->kind, &nanos))
				continue;
			if (nanos)
				run->has_nanos = true;
			tl_exec *e = &run->execs[pos];
			fill_exec(e, ns, nanos, d, (uint32_t)pos);
			run->t_begin = MIN(run->t_begin, e->start);
			run->t_end = MAX(run->t_end, e->end);
			pos++;
		}
	}
	dev->n_exec = (uint32_t)(pos - dev->first_exec);
	sort_execs(run->execs + dev->first_exec, dev->n_exec);
	return pos;
}

/* Every suffix of an executor's name that starts at a '/' names it (the
 * first executor with it wins), so a tracer whose part starts with '/'
 * finds its executor by one lookup, not by a scan of all devices. Suffix
 * -> device index + 1; the keys point into the device names. */
static GHashTable *executor_suffixes(const tl_run *run)
{
	GHashTable *by_suffix = g_hash_table_new(g_str_hash, g_str_equal);
	for (size_t e = 0; e < run->n_devices; e++) {
		const tl_device *x = &run->devices[e];
		if (x->kind != TL_DEV_EXECUTOR)
			continue;
		for (const char *p = strchr(x->name, '/'); p != NULL; p = strchr(p + 1, '/'))
			if ((p == x->name || p[-1] != ':') && !g_hash_table_contains(by_suffix, p))
				g_hash_table_insert(by_suffix, (gpointer)p,
						    GSIZE_TO_POINTER(e + 1));
	}
	return by_suffix;
}

/* Tracer devices belong to the executor whose name ends with their
 * device part: /device:GPU:0/stream:7 -> .../device:GPU:0. */
static void attach_tracers(tl_run *run)
{
	GHashTable *by_suffix = executor_suffixes(run);
	for (size_t d = 0; d < run->n_devices; d++) {
		tl_device *dev = &run->devices[d];
		if (dev->kind == TL_DEV_EXECUTOR || dev->kind == TL_DEV_OTHER)
			continue;
		const char *cut = strstr(dev->name, "/stream:");
		if (cut == NULL)
			cut = strrchr(dev->name, '/');
		size_t len = (size_t)(cut - dev->name);
		if (len > 0 && dev->name[0] == '/') {
			char *part = g_strndup(dev->name, len);
			gpointer hit = g_hash_table_lookup(by_suffix, part);
			g_free(part);
			if (hit != NULL)
				dev->executor = (int32_t)(GPOINTER_TO_SIZE(hit) - 1);
			continue;
		}
		for (size_t e = 0; e < run->n_devices; e++) {
			const tl_device *x = &run->devices[e];
			size_t xl = strlen(x->name);
			if (x->kind == TL_DEV_EXECUTOR && xl >= len &&
			    strncmp(x->name + xl - len, dev->name, len) == 0 &&
			    (xl == len || x->name[xl - len - 1] != ':')) {
				dev->executor = (int32_t)e;
				break;
			}
		}
	}
	g_hash_table_destroy(by_suffix);
}

/* The devices and their executions. Devices named twice become one
 * device: pass one groups dev_stats by name, pass two copies their
 * records. */
static void build_devices(struct run_builder *b)
{
	tl_run *run = b->run;
	const Tensorflow__StepStats *ss = run->meta->step_stats;
	size_t n_dev = ss != NULL ? ss->n_dev_stats : 0;
	size_t n_exec = 0;
	for (size_t i = 0; i < n_dev; i++)
		n_exec += ss->dev_stats[i]->n_node_stats;
	run->devices = tl_arena_zalloc(run->arena, (n_dev ? n_dev : 1) * sizeof *run->devices);
	/* every field is set as it is filled (fill_exec) */
	run->execs = tl_arena_alloc(run->arena, (n_exec ? n_exec : 1) * sizeof *run->execs);

	uint32_t *owner = g_new(uint32_t, n_dev ? n_dev : 1);
	collect_devices(b, ss, n_dev, owner);
	uint32_t *group_first, *grouped;
	group_dev_stats(run->n_devices, n_dev, owner, &group_first, &grouped);
	g_free(owner);
	size_t pos = 0;
	for (size_t d = 0; d < run->n_devices; d++)
		pos = fill_device_execs(run, (uint32_t)d, grouped, group_first[d],
					group_first[d + 1], pos);
	run->n_execs = pos;
	g_free(grouped);
	g_free(group_first);
	attach_tracers(run);
}

/* Which partition holds each executor device's nodes. */
static void map_partitions(struct run_builder *b)
{
	tl_run *run = b->run;
	b->partition_of_dev = g_new(int32_t, run->n_devices ? run->n_devices : 1);
	for (size_t d = 0; d < run->n_devices; d++)
		b->partition_of_dev[d] = -1;
	size_t n_part = run->meta->n_partition_graphs;
	for (size_t p = 0; p < n_part; p++) {
		const Tensorflow__GraphDef *g = run->meta->partition_graphs[p];
		const char *dev = "";
		for (size_t i = 0; i < g->n_node && dev[0] == '\0'; i++)
			dev = tl_run_device_normalize(run->arena, g->node[i]->device);
		gpointer hit = g_hash_table_lookup(b->device_index, dev);
		if (hit != NULL) {
			b->partition_of_dev[GPOINTER_TO_UINT(hit) - 1] = (int32_t)p;
		} else if (n_part == 1) {
			/* A lone graph without placement: it ran on the only
			 * executor. */
			for (size_t d = 0; d < run->n_devices; d++)
				if (run->devices[d].kind == TL_DEV_EXECUTOR)
					b->partition_of_dev[d] = (int32_t)p;
		}
	}
}

/* The op type a timeline label names (tl_run_op_label_parse), or NULL;
 * parsed once per label where records share their label (an XSpace's run
 * does: one string per event name), remembered by the label's address in a
 * table where a label takes the slot of the one before. */
#define LABEL_MEMO_SLOTS 1024

struct label_op {
	const char *label; /* NULL: an empty slot */
	const char *op;
};

static const char *label_op(struct label_op *memo, const char *label, tl_arena *arena)
{
	if (label == NULL)
		return NULL;
	uint64_t h = (uint64_t)(uintptr_t)label * UINT64_C(0x9E3779B97F4A7C15);
	struct label_op *m = &memo[(h >> 40) & (LABEL_MEMO_SLOTS - 1)];
	if (m->label != label) {
		m->label = label;
		if (!tl_run_op_label_parse(arena, label, NULL, &m->op, NULL, NULL))
			m->op = NULL;
	}
	return m->op;
}

/* Each execution of lo..hi-1 to its graph node, op and name. */
static void link_execs_part(void *ctx, size_t part, size_t lo, size_t hi, tl_arena *arena)
{
	struct run_builder *b = ctx;
	tl_run *run = b->run;
	struct label_op *memo = g_new0(struct label_op, LABEL_MEMO_SLOTS);
	for (size_t i = lo; i < hi; i++) {
		tl_exec *e = &run->execs[i];
		const tl_device *dev = &run->devices[e->device];
		const char *raw_name = e->ns->node_name != NULL ? e->ns->node_name : "";
		if (dev->kind == TL_DEV_EXECUTOR || dev->kind == TL_DEV_OTHER) {
			e->node = raw_name;
			/* hashed here where a graph may hold it, else by
			 * link_tracer_records where it needs it */
			int32_t p = b->partition_of_dev[e->device];
			if (p >= 0) {
				b->exec_names[i] = tl_nametab_name_str(raw_name);
				uint32_t hit =
				    tl_nametab_get(b->node_by_name, (uint32_t)p, b->exec_names[i]);
				if (hit != TL_NAMETAB_NONE) {
					e->gnode = (int32_t)hit;
					e->node = run->nodes[hit].name; /* the same bytes */
				}
			}
			/* The graph knows the op type; the label (what timeline.py
			 * reads) serves when the node is not in a graph. */
			const char *op = NULL;
			if (strcmp(raw_name, "RecvTensor") == 0)
				op = "RecvTensor";
			else if (e->gnode >= 0 && run->nodes[e->gnode].op[0] != '\0')
				op = run->nodes[e->gnode].op;
			else
				op = label_op(memo, e->ns->timeline_label, arena);
			/* No graph node is named "X:Op" (TF refuses ':'): the record
			 * names its node and op itself (an XSpace's kernel launch). */
			const char *colon = strrchr(raw_name, ':');
			if (op == NULL && e->gnode < 0 && colon != NULL && colon[1] != '\0') {
				e->node =
				    tl_arena_strndup(arena, raw_name, (size_t)(colon - raw_name));
				op = colon + 1;
			}
			e->op = op != NULL ? op : "unknown";
		} else {
			tl_run_kernel_label_parse(arena, e->ns->timeline_label, raw_name, &e->node,
						  &e->op);
		}
	}
	g_free(memo);
}

/* Executions per graph node, in start order; iter = rank. */
static void index_node_execs(tl_run *run)
{
	if (run->n_nodes == 0) { /* no graph: no execution has a node */
		run->node_execs = tl_arena_alloc(run->arena, sizeof(uint32_t));
		return;
	}
	uint32_t *count = g_new0(uint32_t, run->n_nodes + 1);
	for (size_t i = 0; i < run->n_execs; i++)
		if (run->execs[i].gnode >= 0)
			count[run->execs[i].gnode]++;
	uint32_t total = 0;
	for (size_t n = 0; n < run->n_nodes; n++) {
		run->nodes[n].first_exec = total;
		total += count[n];
		count[n] = 0;
	}
	run->node_execs = tl_arena_alloc(run->arena, (total ? total : 1) * sizeof(uint32_t));
	/* execs are sorted by start within each device and a node lives on one
	 * device, so filling in exec order yields start order. */
	for (size_t i = 0; i < run->n_execs; i++) {
		tl_exec *e = &run->execs[i];
		if (e->gnode < 0)
			continue;
		tl_gnode *n = &run->nodes[e->gnode];
		e->iter = count[e->gnode];
		run->node_execs[n->first_exec + count[e->gnode]++] = (uint32_t)i;
		n->n_exec++;
	}
	g_free(count);
}

/* The executions of each (executor, node name) form a group. Those of a
 * graph node on the device that ran it first are grouped by the node;
 * those the graphs lack, or of a node that ran on several devices (a lone
 * graph without placement serves every executor), by device and name. */
struct node_groups {
	uint32_t *of_node; /* per graph node: its group, or TL_NAMETAB_NONE */
	uint32_t *device;  /* per graph node: the device of that group */
	tl_nametab *other; /* (device, name) -> group */
};

/* The group of the executions of `name` on executor device `dev`, or
 * TL_NAMETAB_NONE when it ran none there. */
static uint32_t group_named(const struct run_builder *b, const struct node_groups *ng, int32_t dev,
			    const char *name)
{
	tl_name nm = tl_nametab_name_str(name);
	int32_t p = b->partition_of_dev[dev];
	if (p >= 0) {
		uint32_t n = tl_nametab_get(b->node_by_name, (uint32_t)p, nm);
		if (n != TL_NAMETAB_NONE && ng->of_node[n] != TL_NAMETAB_NONE &&
		    ng->device[n] == (uint32_t)dev)
			return ng->of_node[n];
	}
	return tl_nametab_get(ng->other, (uint32_t)dev, nm);
}

struct launchers {
	const struct run_builder *b;
	const struct node_groups *groups;
	GHashTable *cands; /* read only */
	const uint32_t *first, *members;
};

/* The launcher of each tracer record among executions lo..hi-1. */
static void launchers_part(void *ctx, size_t part, size_t lo_exec, size_t hi_exec, tl_arena *arena)
{
	const struct launchers *l = ctx;
	tl_run *run = l->b->run;
	for (size_t i = lo_exec; i < hi_exec; i++) {
		tl_exec *e = &run->execs[i];
		const tl_device *dev = &run->devices[e->device];
		if (dev->kind == TL_DEV_EXECUTOR || dev->kind == TL_DEV_OTHER || dev->executor < 0)
			continue;
		const char **c = NULL;
		uint32_t g = group_named(l->b, l->groups, dev->executor, e->node);
		if (g == TL_NAMETAB_NONE)
			c = g_hash_table_lookup(l->cands, e->node);
		for (int k = 0; c != NULL && k < 4 && g == TL_NAMETAB_NONE; k++)
			if (c[k] != NULL)
				g = group_named(l->b, l->groups, dev->executor, c[k]);
		if (g == TL_NAMETAB_NONE)
			continue;
		/* the latest execution starting <= kernel start, else the first */
		const uint32_t *m = l->members + l->first[g];
		uint32_t lo = 0, hi = l->first[g + 1] - l->first[g];
		while (lo < hi) {
			uint32_t mid = lo + (hi - lo) / 2;
			if (run->execs[m[mid]].start <= e->start)
				lo = mid + 1;
			else
				hi = mid;
		}
		e->launcher = (int32_t)m[lo > 0 ? lo - 1 : 0];
	}
}

/* Kernels and copies to the op that launched them: same node name on the
 * tracer's executor, the latest execution that started at or before the
 * kernel (a loop runs a node several times). Copies are named after the
 * transfer's tensor (edge_N_x), which names a _Send/_Recv node. */
static void link_tracer_records(struct run_builder *b)
{
	tl_run *run = b->run;
	/* launchers_part looks for launchers on the executors of tracer
	 * devices: with none (an XSpace, a Chrome trace) there is nothing to
	 * group */
	bool any = false;
	for (size_t d = 0; d < run->n_devices && !any; d++)
		any = run->devices[d].kind != TL_DEV_EXECUTOR &&
		      run->devices[d].kind != TL_DEV_OTHER && run->devices[d].executor >= 0;
	if (!any)
		return;
	/* The executions of each group, in start order (a device's executions
	 * are sorted by start): members[first[g] .. first[g + 1]) for group g. */
	struct node_groups ng = {.of_node = g_new(uint32_t, run->n_nodes ? run->n_nodes : 1),
				 .device = g_new(uint32_t, run->n_nodes ? run->n_nodes : 1),
				 .other = tl_nametab_new(0)};
	for (size_t n = 0; n < run->n_nodes; n++)
		ng.of_node[n] = TL_NAMETAB_NONE;
	uint32_t *group = g_new(uint32_t, run->n_execs ? run->n_execs : 1);
	uint32_t n_groups = 0;
	for (size_t i = 0; i < run->n_execs; i++) {
		const tl_exec *e = &run->execs[i];
		group[i] = TL_GROUP_NONE;
		if (run->devices[e->device].kind != TL_DEV_EXECUTOR)
			continue;
		if (e->gnode >= 0 && ng.of_node[e->gnode] == TL_NAMETAB_NONE) {
			ng.of_node[e->gnode] = n_groups++;
			ng.device[e->gnode] = e->device;
		}
		if (e->gnode >= 0 && ng.device[e->gnode] == e->device) {
			group[i] = ng.of_node[e->gnode];
		} else {
			if (b->partition_of_dev[e->device] < 0)
				b->exec_names[i] = tl_nametab_name_str(
				    e->ns->node_name != NULL ? e->ns->node_name : "");
			group[i] = tl_nametab_put(ng.other, e->device, b->exec_names[i], n_groups);
			if (group[i] == n_groups)
				n_groups++;
		}
	}
	tl_group grouped;
	tl_group_by(&grouped, group, run->n_execs, n_groups);
	uint32_t *first = grouped.first, *members = grouped.members;
	g_free(group);
	/* Transfer tensors: a copy is named after the tensor_name of a
	 * _Send/_Recv pair. It is tied to whichever of the pair ran on its GPU;
	 * old dumps often lack stats for both, and then to the node the _Send
	 * reads or the first node reading the _Recv. Candidates per tensor, in
	 * that order: recv, send, send's producer, recv's consumer. */
	GHashTable *cands = g_hash_table_new(g_str_hash, g_str_equal); /* tn -> const char *[4] */
	int32_t *first_reader = g_new(int32_t, run->n_nodes ? run->n_nodes : 1);
	for (size_t n = 0; n < run->n_nodes; n++)
		first_reader[n] = -1;
	for (size_t k = 0; k < run->n_edges; k++) {
		const tl_edge *edge = &run->edges[k];
		if (edge->kind == TL_EDGE_DATA && first_reader[edge->src] < 0)
			first_reader[edge->src] = (int32_t)edge->dst;
	}
	for (size_t n = 0; n < run->n_nodes; n++) {
		const tl_gnode *g = &run->nodes[n];
		bool recv = is_recv(g->op);
		if (!recv && !is_send(g->op))
			continue;
		const char *tn = tl_run_node_attr_string(run, (uint32_t)n, "tensor_name");
		if (tn[0] == '\0')
			continue;
		const char **c = g_hash_table_lookup(cands, tn);
		if (c == NULL) {
			c = tl_arena_zalloc(run->arena, 4 * sizeof *c);
			g_hash_table_insert(cands, (gpointer)tn, c);
		}
		if (recv) {
			c[0] = g->name;
			if (first_reader[n] >= 0)
				c[3] = run->nodes[first_reader[n]].name;
		} else {
			c[1] = g->name;
			for (uint32_t k = run->in_first[n]; k < run->in_first[n + 1]; k++)
				if (run->edges[k].kind == TL_EDGE_DATA)
					c[2] = run->nodes[run->edges[k].src].name;
		}
	}
	g_free(first_reader);
	struct launchers l = {
	    .b = b, .groups = &ng, .cands = cands, .first = first, .members = members};
	tl_crew_for(run->n_execs, launchers_part, &l, run->arena);
	g_hash_table_destroy(cands);
	tl_nametab_free(ng.other);
	g_free(ng.of_node);
	g_free(ng.device);
	g_free(first);
	g_free(members);
}

int tl_run_build(tl_run **out, tl_arena *arena, Tensorflow__RunMetadata *meta, const char *label,
		 tl_error *err)
{
	tl_run *run = tl_arena_zalloc(arena, sizeof *run);
	run->arena = arena;
	run->meta = meta;
	run->label = tl_arena_strdup(arena, label != NULL ? label : "");
	run->has_steps = meta->step_stats != NULL && meta->step_stats->n_dev_stats > 0;
	size_t total = 0;
	if (meta->step_stats != NULL)
		for (size_t i = 0; i < meta->step_stats->n_dev_stats; i++)
			total += meta->step_stats->dev_stats[i]->n_node_stats;
	if (total > INT32_MAX)
		return tl_error_set(err, "too many node_stats (%zu) to index", total);

	struct run_builder b = {.run = run};
	run->t_begin = INT64_MAX;
	run->t_end = INT64_MIN;
	b.device_index = g_hash_table_new(g_str_hash, g_str_equal);
	build_devices(&b);
	tl_run_graph_build(&b);
	map_partitions(&b);
	b.exec_names = g_new(tl_name, run->n_execs ? run->n_execs : 1);
	tl_crew_for(run->n_execs, link_execs_part, &b, run->arena);
	index_node_execs(run);
	link_tracer_records(&b);
	g_free(b.exec_names);
	tl_run_graph_warn_cycles(run);
	tl_nametab_free(b.node_by_name);
	g_hash_table_destroy(b.device_index);
	g_free(b.partition_of_dev);

	/* t_begin and t_end were found as the executions were filled */
	if (run->n_execs == 0)
		run->t_begin = run->t_end = 0;
	*out = run;
	return 0;
}

void tl_run_free(tl_run *run)
{
	if (run != NULL)
		tl_arena_free(run->arena);
}

int32_t tl_run_find_node(const tl_run *run, const char *device, const char *name)
{
	for (size_t i = 0; i < run->n_nodes; i++)
		if (strcmp(run->nodes[i].name, name) == 0 &&
		    (device == NULL || strcmp(run->nodes[i].device, device) == 0))
			return (int32_t)i;
	return -1;
}

/* Launchers the input names itself (io/links.h): they replace what names
 * gave; and records it says are named whole get their node_name as node
 * and op. An execution's record is found by its place among the input's
 * records. */
static void set_launchers(tl_run *run, const tl_links *l)
{
	int32_t *exec_of = g_new(int32_t, l->n_recs + 1);
	for (size_t i = 0; i < l->n_recs; i++)
		exec_of[i] = -1;
	uintptr_t base = (uintptr_t)l->recs;
	for (size_t e = 0; e < run->n_execs; e++) {
		uintptr_t at = (uintptr_t)run->execs[e].ns - base;
		size_t i = at / sizeof *l->recs;
		if (at % sizeof *l->recs == 0 && i < l->n_recs)
			exec_of[i] = (int32_t)e;
	}
	for (size_t k = 0; k < l->n; k++) {
		uint32_t rec = l->pairs[2 * k], by = l->pairs[2 * k + 1];
		if (rec >= l->n_recs || by >= l->n_recs)
			continue;
		if (exec_of[rec] >= 0 && exec_of[by] >= 0)
			run->execs[exec_of[rec]].launcher = exec_of[by];
	}
	for (size_t i = 0; l->whole != NULL && i < l->n_recs; i++) {
		if (!l->whole[i] || exec_of[i] < 0)
			continue;
		tl_exec *e = &run->execs[exec_of[i]];
		e->node = e->op = e->ns->node_name != NULL ? e->ns->node_name : "";
	}
	g_free(exec_of);
}

/* The events of a Chrome trace's slices (io/links.h), by the places of the
 * executions' records. */
static void set_events(tl_run *run, const tl_links *l)
{
	uint32_t *rec = tl_arena_alloc(run->arena, (run->n_execs + 1) * sizeof *rec);
	uintptr_t base = (uintptr_t)l->recs;
	for (size_t e = 0; e < run->n_execs; e++)
		rec[e] = (uint32_t)(((uintptr_t)run->execs[e].ns - base) / sizeof *l->recs);
	run->rec = rec;
	run->events = l->events;
	run->syncs = l->syncs;
	run->n_syncs = l->n_syncs;
}

/* The allocator events of the run's input: a Kineto trace's (already in
 * the run's arena); an XSpace's, those within the run's span when the
 * XSpace is cut into steps. */
static void attach_allocs(tl_source *src, tl_run *run)
{
	const tl_alloc_events *ch = tl_source_chrome_allocs(src);
	if (ch != NULL) {
		tl_alloc_events *copy = tl_arena_alloc(run->arena, sizeof *copy);
		*copy = *ch;
		run->allocs = copy;
		return;
	}
	if (tl_source_format(src) != TL_FORMAT_XSPACE)
		return;
	tl_alloc_events ev;
	if (tl_source_xspace_span_allocs(src, run->t_begin, run->t_end, run->arena, &ev) < 0 ||
	    ev.n == 0)
		return;
	ev.clock = "the run's clock";
	tl_alloc_events *own = tl_arena_alloc(run->arena, sizeof *own);
	*own = ev;
	run->allocs = own;
}

int tl_run_next(tl_source *src, tl_run **run, tl_error *err)
{
	tl_arena *arena = NULL;
	Tensorflow__RunMetadata *meta = NULL;
	const char *label = NULL;
	/* The model reads a part of the RunMetadata: the rest is not stored. */
	int rc = tl_source_next_model(src, &arena, &meta, &label, err);
	if (rc <= 0)
		return rc;
	if (tl_run_build(run, arena, meta, label, err) < 0) {
		tl_arena_free(arena);
		return -1;
	}
	tl_links links;
	tl_source_links(src, &links);
	const char *kind = tl_source_no_dataflow(src);
	(*run)->no_dataflow = kind != NULL;
	(*run)->input_kind = kind != NULL ? tl_arena_strdup((*run)->arena, kind) : NULL;
	if (tl_source_wants_allocs(src))
		attach_allocs(src, *run);
	const char *host = tl_source_host(src);
	(*run)->host = host != NULL ? tl_arena_strdup((*run)->arena, host) : NULL;
	if (links.n > 0 || links.whole != NULL)
		set_launchers(*run, &links);
	if (links.events != NULL)
		set_events(*run, &links);
	return 1;
}

/* tl_run_walls_ahead's span of one run: its records as tl_run_build places
 * them (fill_device_execs), said nothing about. */
struct wall {
	int64_t lo, hi;
};

static void widen_wall(const Tensorflow__NodeExecStats *ns, void *ctx)
{
	struct wall *w = ctx;
	int64_t start, end;
	if (placed(ns) != TIMES_OK)
		return;
	exec_span(ns, nanos_fault(ns) == TIMES_OK, &start, &end);
	w->lo = MIN(w->lo, start);
	w->hi = MAX(w->hi, end);
}

size_t tl_run_walls_ahead(tl_source *src, int64_t **walls)
{
	size_t n = tl_source_runs_ahead(src);
	*walls = n > 0 ? g_new(int64_t, n) : NULL;
	for (size_t r = 0; r < n; r++) {
		struct wall w = {INT64_MAX, INT64_MIN};
		tl_source_run_times(src, r, widen_wall, &w);
		(*walls)[r] = w.lo <= w.hi ? w.hi - w.lo : 0;
	}
	return n;
}
