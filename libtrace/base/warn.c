#include "base/warn.h"

#include <glib.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

struct warning {
	char *key;
	char *msg;
	size_t count;
	char *input; /* damage: the input it is about; NULL for a warning */
	size_t seq;  /* damage: its place among the input's damages */
};

/* Damage met in one input: how many, to cap the lines shown. */
struct input_damage {
	size_t seen;
};

static GPtrArray *warnings;	/* struct warning *, first-seen order */
static GHashTable *by_key;	/* key -> struct warning * */
static GHashTable *damage_seen; /* damage key -> NULL: every damage, shown or not */
static GHashTable *by_input;	/* input -> struct input_damage * */
static GHashTable *subjects;	/* "KEY\x1eSUBJECT" of tl_warn_about, counted */
static size_t damage_total;
static bool strict;
static GMutex lock; /* tools may decode runs on several threads */

static void warning_free(gpointer p)
{
	struct warning *w = p;
	g_free(w->key);
	g_free(w->msg);
	g_free(w->input);
	g_free(w);
}

static void registry_init(void)
{
	if (warnings != NULL)
		return;
	warnings = g_ptr_array_new_with_free_func(warning_free);
	by_key = g_hash_table_new(g_str_hash, g_str_equal);
	damage_seen = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, NULL);
	by_input = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, g_free);
	subjects = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, NULL);
}

/* Whether SUBJECT is new under KEY in `set` (then noted there). */
static bool subject_new(GHashTable *set, const char *key, const char *subject)
{
	char *k = g_strconcat(key, "\x1e", subject, NULL);
	if (g_hash_table_contains(set, k)) {
		g_free(k);
		return false;
	}
	g_hash_table_add(set, k);
	return true;
}

/* A log's subjects told into `set`: one the set already holds was counted
 * there, so the log's warning of its key counts one less (lookup: the log's
 * warnings by key). */
static void subjects_merge(GHashTable *set, GHashTable *from, GHashTable *lookup)
{
	GHashTableIter it;
	gpointer k;
	g_hash_table_iter_init(&it, from);
	while (g_hash_table_iter_next(&it, &k, NULL)) {
		if (!g_hash_table_contains(set, k)) {
			g_hash_table_add(set, g_strdup(k));
			continue;
		}
		char *key = g_strndup(k, strcspn(k, "\x1e"));
		struct warning *w = g_hash_table_lookup(lookup, key);
		if (w != NULL && w->count > 0)
			w->count--;
		g_free(key);
	}
}

/* Counts one more under `key`, or adds it with `msg` (taken over). Called
 * with the lock held. */
static struct warning *count_key(const char *key, char *msg)
{
	struct warning *w = g_hash_table_lookup(by_key, key);
	if (w != NULL) {
		w->count++;
		g_free(msg);
		return w;
	}
	w = g_new0(struct warning, 1);
	w->key = g_strdup(key);
	w->msg = msg;
	w->count = 1;
	g_ptr_array_add(warnings, w);
	g_hash_table_insert(by_key, w->key, w);
	return w;
}

struct tl_warn_log {
	GPtrArray *items; /* struct warning *, first-met order */
	GHashTable *by_key;
	GHashTable *subjects; /* as the registry's */
	tl_warn_log *outer;   /* the log open when this one began, or NULL */
};

static _Thread_local tl_warn_log *logging; /* this thread's open log */

tl_warn_log *tl_warn_log_begin(void)
{
	tl_warn_log *log = g_new0(tl_warn_log, 1);
	log->items = g_ptr_array_new_with_free_func(warning_free);
	log->by_key = g_hash_table_new(g_str_hash, g_str_equal);
	log->subjects = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, NULL);
	log->outer = logging;
	logging = log;
	return log;
}

void tl_warn_log_end(void)
{
	if (logging != NULL)
		logging = logging->outer;
}

void tl_warn_log_drop(tl_warn_log *log)
{
	if (log == NULL)
		return;
	if (logging == log) /* told or dropped before it ended */
		logging = log->outer;
	g_hash_table_destroy(log->by_key);
	g_hash_table_destroy(log->subjects);
	g_ptr_array_free(log->items, TRUE);
	g_free(log);
}

/* One warning of a log told into the log open now (a nested log's). */
static void log_merge(tl_warn_log *into, struct warning *w)
{
	if (w->count == 0) /* its subjects all counted before */
		return;
	struct warning *had = g_hash_table_lookup(into->by_key, w->key);
	if (had != NULL) {
		had->count += w->count;
		return;
	}
	struct warning *c = g_new0(struct warning, 1);
	c->key = g_strdup(w->key);
	c->msg = w->msg;
	w->msg = NULL;
	c->count = w->count;
	g_ptr_array_add(into->items, c);
	g_hash_table_insert(into->by_key, c->key, c);
}

void tl_warn_log_tell(tl_warn_log *log)
{
	if (log == NULL)
		return;
	if (logging == log)
		logging = log->outer;
	if (logging != NULL) {
		subjects_merge(logging->subjects, log->subjects, log->by_key);
		for (guint i = 0; i < log->items->len; i++)
			log_merge(logging, g_ptr_array_index(log->items, i));
		tl_warn_log_drop(log);
		return;
	}
	g_mutex_lock(&lock);
	registry_init();
	subjects_merge(subjects, log->subjects, log->by_key);
	for (guint i = 0; i < log->items->len; i++) {
		struct warning *w = g_ptr_array_index(log->items, i);
		if (w->count == 0)
			continue;
		struct warning *r = count_key(w->key, w->msg);
		w->msg = NULL;
		r->count += w->count - 1;
	}
	g_mutex_unlock(&lock);
	tl_warn_log_drop(log);
}

/* tl_warn into this thread's open log. */
static void log_warning(tl_warn_log *log, const char *key, const char *fmt, va_list ap)
    __attribute__((format(printf, 3, 0)));

static void log_warning(tl_warn_log *log, const char *key, const char *fmt, va_list ap)
{
	struct warning *w = g_hash_table_lookup(log->by_key, key);
	if (w != NULL) {
		w->count++;
		return;
	}
	w = g_new0(struct warning, 1);
	w->key = g_strdup(key);
	w->msg = g_strdup_vprintf(fmt, ap);
	w->count = 1;
	g_ptr_array_add(log->items, w);
	g_hash_table_insert(log->by_key, w->key, w);
}

/* tl_warn, and tl_warn_about where `subject` (not NULL) is new under key. */
static void warn_v(const char *key, const char *subject, const char *fmt, va_list ap)
    __attribute__((format(printf, 3, 0)));

static void warn_v(const char *key, const char *subject, const char *fmt, va_list ap)
{
	if (logging != NULL) {
		if (subject == NULL || subject_new(logging->subjects, key, subject))
			log_warning(logging, key, fmt, ap);
		return;
	}
	g_mutex_lock(&lock);
	registry_init();
	if (subject != NULL && !subject_new(subjects, key, subject)) {
		g_mutex_unlock(&lock);
		return;
	}
	if (g_hash_table_contains(by_key, key)) {
		count_key(key, NULL);
		g_mutex_unlock(&lock);
		return;
	}
	count_key(key, g_strdup_vprintf(fmt, ap));
	g_mutex_unlock(&lock);
}

void tl_warn(const char *key, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	warn_v(key, NULL, fmt, ap);
	va_end(ap);
}

void tl_warn_about(const char *key, const char *subject, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	warn_v(key, subject, fmt, ap);
	va_end(ap);
}

void tl_warn_set_strict(bool on)
{
	strict = on;
}

bool tl_warn_strict(void)
{
	return strict;
}

/* Damage keys start with a byte no warning key holds, so the two never
 * meet; the input and the description make a damage's identity. */
static char *damage_key(const char *input, const char *what)
{
	return g_strdup_printf("\x1f%s\x1f%s", input, what);
}

static void note_damage(const char *input, const char *then, const char *what)
{
	char *key = damage_key(input, what);
	if (g_hash_table_contains(damage_seen, key)) {
		g_free(key);
		return;
	}
	g_hash_table_add(damage_seen, key);
	damage_total++;
	struct input_damage *d = g_hash_table_lookup(by_input, input);
	if (d == NULL) {
		d = g_new0(struct input_damage, 1);
		g_hash_table_insert(by_input, g_strdup(input), d);
	}
	size_t seq = d->seen++;
	struct warning *w;
	if (seq < TL_DAMAGE_SHOWN) {
		char *msg = then != NULL ? g_strdup_printf("'%s': %s: %s", input, what, then)
					 : g_strdup_printf("'%s': %s", input, what);
		w = count_key(key, msg);
	} else {
		char *more = g_strdup_printf("\x1f%s\x1fmore", input);
		w = count_key(more, g_strdup_printf("'%s': more damage passed over", input));
		g_free(more);
	}
	if (w->input == NULL) {
		w->input = g_strdup(input);
		w->seq = seq;
	}
}

int tl_warn_damage(tl_error *err, const char *input, const char *then, const char *fmt, ...)
{
	char what[sizeof err->msg];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(what, sizeof what, fmt, ap);
	va_end(ap);
	if (strict)
		return tl_error_set(err, "%s", what);
	g_mutex_lock(&lock);
	registry_init();
	note_damage(input, then, what);
	g_mutex_unlock(&lock);
	return 0;
}

void tl_warn_forget_input(const char *input)
{
	g_mutex_lock(&lock);
	if (warnings != NULL) {
		for (guint i = warnings->len; i-- > 0;) {
			struct warning *w = g_ptr_array_index(warnings, i);
			if (w->input != NULL && strcmp(w->input, input) == 0) {
				g_hash_table_remove(by_key, w->key);
				g_ptr_array_remove_index(warnings, i);
			}
		}
	}
	g_mutex_unlock(&lock);
}

size_t tl_warn_damage_count(void)
{
	g_mutex_lock(&lock);
	size_t n = damage_total;
	g_mutex_unlock(&lock);
	return n;
}

static void print_warning(const char *prog, const struct warning *w)
{
	if (w->count > 1)
		fprintf(stderr, "%s: warning: %s (%zu times)\n", prog, w->msg, w->count);
	else
		fprintf(stderr, "%s: warning: %s\n", prog, w->msg);
}

static gint damage_order(gconstpointer a, gconstpointer b)
{
	const struct warning *x = *(struct warning *const *)a;
	const struct warning *y = *(struct warning *const *)b;
	int c = strcmp(x->input, y->input);
	if (c != 0)
		return c;
	return x->seq < y->seq ? -1 : x->seq > y->seq;
}

void tl_warn_flush(const char *prog)
{
	g_mutex_lock(&lock);
	if (warnings != NULL) {
		GPtrArray *damage = g_ptr_array_new();
		for (guint i = 0; i < warnings->len; i++) {
			struct warning *w = g_ptr_array_index(warnings, i);
			if (w->input != NULL)
				g_ptr_array_add(damage, w);
		}
		g_ptr_array_sort(damage, damage_order);
		for (guint i = 0; i < damage->len; i++)
			print_warning(prog, g_ptr_array_index(damage, i));
		g_ptr_array_free(damage, TRUE);
		for (guint i = 0; i < warnings->len; i++) {
			struct warning *w = g_ptr_array_index(warnings, i);
			if (w->input == NULL)
				print_warning(prog, w);
		}
	}
	g_mutex_unlock(&lock);
	tl_warn_clear();
}

size_t tl_warn_pending(void)
{
	g_mutex_lock(&lock);
	size_t n = warnings == NULL ? 0 : warnings->len;
	g_mutex_unlock(&lock);
	return n;
}

size_t tl_warn_count(const char *key)
{
	g_mutex_lock(&lock);
	struct warning *w = by_key == NULL ? NULL : g_hash_table_lookup(by_key, key);
	size_t n = w == NULL ? 0 : w->count;
	g_mutex_unlock(&lock);
	return n;
}

void tl_warn_clear(void)
{
	g_mutex_lock(&lock);
	if (warnings != NULL) {
		g_hash_table_destroy(by_key);
		g_hash_table_destroy(damage_seen);
		g_hash_table_destroy(by_input);
		g_hash_table_destroy(subjects);
		g_ptr_array_free(warnings, TRUE);
		warnings = NULL;
		by_key = NULL;
		damage_seen = NULL;
		by_input = NULL;
	}
	damage_total = 0;
	g_mutex_unlock(&lock);
}
