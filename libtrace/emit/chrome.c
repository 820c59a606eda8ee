#include "emit/chrome.h"

#include <stdio.h>

static void close_event(tl_chrome *w)
{
	if (!w->in_event)
		return;
	if (w->in_args)
		tl_output_char(w->out, '}');
	tl_output_char(w->out, '}');
	w->in_event = false;
	w->in_args = false;
}

void tl_chrome_begin(tl_chrome *w, tl_output *out)
{
	*w = (tl_chrome){.out = out};
	tl_output_str(out, "{\"traceEvents\":[\n");
}

static void open_event(tl_chrome *w, char ph)
{
	close_event(w);
	if (w->events++ > 0)
		tl_output_str(w->out, ",\n");
	tl_output_str(w->out, "{\"ph\":\"");
	tl_output_char(w->out, ph);
	tl_output_char(w->out, '"');
	w->in_event = true;
}

/* ,"k": for a literal key, its length known when compiled */
#define key(o, k) tl_output_bytes((o), ",\"" k "\":", sizeof(",\"" k "\":") - 1)

void tl_chrome_event(tl_chrome *w, char ph, const char *name, const char *cat, int64_t pid,
		     int64_t tid, int64_t ts_ns, int64_t id)
{
	open_event(w, ph);
	tl_output *o = w->out;
	if (name != NULL) {
		key(o, "name");
		tl_json_string(o, name);
	}
	if (cat != NULL) {
		key(o, "cat");
		tl_json_string(o, cat);
	}
	key(o, "pid");
	tl_output_int(o, pid);
	key(o, "tid");
	tl_output_int(o, tid);
	if (ph != 'M') {
		key(o, "ts");
		tl_json_micros(o, ts_ns);
	}
	if (id >= 0) {
		key(o, "id");
		tl_output_int(o, id);
	}
}

void tl_chrome_process(tl_chrome *w, int64_t pid, const char *name, int64_t sort_index)
{
	tl_chrome_event(w, 'M', "process_name", NULL, pid, 0, 0, -1);
	tl_chrome_arg_str(w, "name", name);
	tl_chrome_event(w, 'M', "process_sort_index", NULL, pid, 0, 0, -1);
	tl_chrome_arg_int(w, "sort_index", sort_index);
}

void tl_chrome_thread(tl_chrome *w, int64_t pid, int64_t tid, const char *name, int64_t sort_index)
{
	tl_chrome_event(w, 'M', "thread_name", NULL, pid, tid, 0, -1);
	tl_chrome_arg_str(w, "name", name);
	tl_chrome_event(w, 'M', "thread_sort_index", NULL, pid, tid, 0, -1);
	tl_chrome_arg_int(w, "sort_index", sort_index);
}

void tl_chrome_complete(tl_chrome *w, const char *name, const char *cat, int64_t pid, int64_t tid,
			int64_t ts_ns, int64_t dur_ns)
{
	tl_chrome_event(w, 'X', name, cat, pid, tid, ts_ns, -1);
	key(w->out, "dur");
	tl_json_micros(w->out, dur_ns);
}

void tl_chrome_flow(tl_chrome *w, char ph, const char *name, const char *cat, uint64_t id,
		    int64_t pid, int64_t tid, int64_t ts_ns)
{
	tl_chrome_event(w, ph, name, cat, pid, tid, ts_ns, (int64_t)id);
	if (ph == 'f')
		tl_output_str(w->out, ",\"bp\":\"e\"");
}

void tl_chrome_counter(tl_chrome *w, const char *name, int64_t pid, int64_t ts_ns,
		       const char *series, int64_t value)
{
	tl_chrome_event(w, 'C', name, NULL, pid, 0, ts_ns, -1);
	tl_chrome_arg_int(w, series, value);
}

static void arg_key(tl_chrome *w, const char *k)
{
	tl_output *o = w->out;
	if (!w->in_args) {
		tl_output_str(o, ",\"args\":{");
		w->in_args = true;
	} else {
		tl_output_char(o, ',');
	}
	tl_json_string(o, k);
	tl_output_char(o, ':');
}

void tl_chrome_arg_str(tl_chrome *w, const char *k, const char *value)
{
	arg_key(w, k);
	tl_json_string(w->out, value);
}

void tl_chrome_arg_strn(tl_chrome *w, const char *k, const char *value, size_t n)
{
	arg_key(w, k);
	tl_json_string_len(w->out, value, n);
}

void tl_chrome_arg_int(tl_chrome *w, const char *k, int64_t value)
{
	arg_key(w, k);
	tl_output_int(w->out, value);
}

void tl_chrome_arg_micros(tl_chrome *w, const char *k, int64_t ns)
{
	arg_key(w, k);
	tl_json_micros(w->out, ns);
}

void tl_chrome_arg_raw(tl_chrome *w, const char *k, const char *json)
{
	arg_key(w, k);
	tl_output_str(w->out, json);
}

void tl_chrome_raw(tl_chrome *w)
{
	close_event(w);
	if (w->events++ > 0)
		tl_output_str(w->out, ",\n");
}

void tl_chrome_end(tl_chrome *w, const char *other)
{
	close_event(w);
	tl_output_str(w->out, "\n]");
	if (other != NULL) {
		tl_output_str(w->out, ",\"otherData\":");
		tl_output_str(w->out, other);
	}
	tl_output_str(w->out, "}\n");
}
