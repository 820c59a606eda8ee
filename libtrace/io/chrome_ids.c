#include "io/chrome_ids.h"

#include <jansson.h>
#include <string.h>

static void proc_free(gpointer p)
{
	tl_chrome_proc *x = p;
	g_free(x->pid);
	g_free(x->name);
	g_free(x->labels);
	g_free(x);
}

static void thread_free(gpointer p)
{
	tl_chrome_thread *x = p;
	g_free(x->tid);
	g_free(x->name);
	g_free(x);
}

void tl_chrome_ids_init(tl_chrome_ids *ids)
{
	ids->procs = g_ptr_array_new_with_free_func(proc_free);
	ids->threads = g_ptr_array_new_with_free_func(thread_free);
	ids->proc_ix = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, NULL);
	ids->thread_ix = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, NULL);
	ids->buf = g_string_new(NULL);
	ids->buf2 = g_string_new(NULL);
}

void tl_chrome_ids_free(tl_chrome_ids *ids)
{
	g_ptr_array_free(ids->procs, TRUE);
	g_ptr_array_free(ids->threads, TRUE);
	g_hash_table_destroy(ids->proc_ix);
	g_hash_table_destroy(ids->thread_ix);
	g_string_free(ids->buf, TRUE);
	g_string_free(ids->buf2, TRUE);
}

uint32_t tl_chrome_ids_proc(tl_chrome_ids *ids, const char *pid)
{
	gpointer v = g_hash_table_lookup(ids->proc_ix, pid);
	if (v != NULL)
		return GPOINTER_TO_UINT(v) - 1;
	tl_chrome_proc *p = g_new0(tl_chrome_proc, 1);
	p->pid = g_strdup(pid);
	g_ptr_array_add(ids->procs, p);
	g_hash_table_insert(ids->proc_ix, g_strdup(pid), GUINT_TO_POINTER(ids->procs->len));
	return ids->procs->len - 1;
}

static const char *pid_of(tl_chrome_ids *ids, const tl_chrome_in_event *ev)
{
	return ev->pid.len ? tl_chrome_reader_span_text(ev, ev->pid, ids->buf) : "";
}

uint32_t tl_chrome_ids_thread(tl_chrome_ids *ids, const tl_chrome_in_event *ev)
{
	const char *pid = pid_of(ids, ev);
	const char *tid = ev->tid.len ? tl_chrome_reader_span_text(ev, ev->tid, ids->buf2) : "";
	char *key = g_strjoin("\x1f", pid, tid, NULL);
	gpointer v = g_hash_table_lookup(ids->thread_ix, key);
	if (v != NULL) {
		g_free(key);
		return GPOINTER_TO_UINT(v) - 1;
	}
	tl_chrome_thread *t = g_new0(tl_chrome_thread, 1);
	t->tid = g_strdup(tid);
	t->proc = tl_chrome_ids_proc(ids, pid);
	g_ptr_array_add(ids->threads, t);
	g_hash_table_insert(ids->thread_ix, key, GUINT_TO_POINTER(ids->threads->len));
	return ids->threads->len - 1;
}

int64_t tl_chrome_ids_meta(tl_chrome_ids *ids, const tl_chrome_in_event *ev)
{
	bool pname = tl_chrome_reader_span_is(ev, ev->name, "\"process_name\"");
	bool plabel = tl_chrome_reader_span_is(ev, ev->name, "\"process_labels\"");
	bool tname = tl_chrome_reader_span_is(ev, ev->name, "\"thread_name\"");
	if (!pname && !plabel && !tname)
		return -1;
	json_error_t jerr;
	json_t *a =
	    ev->args.len ? json_loadb(ev->raw + ev->args.off, ev->args.len, 0, &jerr) : NULL;
	const char *n = json_string_value(json_object_get(a, plabel ? "labels" : "name"));
	int64_t named = -1;
	if (n != NULL && tname) {
		uint32_t ti = tl_chrome_ids_thread(ids, ev); /* may grow the array */
		tl_chrome_thread *t = g_ptr_array_index(ids->threads, ti);
		g_free(t->name);
		t->name = g_strdup(n);
		named = t->proc;
	} else if (n != NULL) {
		named = tl_chrome_ids_proc(ids, pid_of(ids, ev)); /* may grow the array */
		tl_chrome_proc *p = g_ptr_array_index(ids->procs, (guint)named);
		char **field = plabel ? &p->labels : &p->name;
		g_free(*field);
		*field = g_strdup(n);
		if (pname && g_str_has_suffix(n, " Compute")) {
			(*field)[strlen(n) - 8] = '\0';
			p->tf1 = true;
		}
	}
	json_decref(a);
	return named;
}
