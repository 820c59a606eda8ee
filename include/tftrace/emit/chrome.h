/*
 * chrome: a streaming writer of the Chrome Trace Event Format (JSON object
 * form), event by event into a tl_output: the document is never held in
 * memory. Output is compact and deterministic; every string is escaped
 * (quotes, backslashes, control characters) and invalid UTF-8 is replaced by
 * U+FFFD, so any dump yields valid JSON.
 *
 * Timestamps are given in nanoseconds and written in microseconds (the
 * format's unit) with up to three decimals, so nanosecond dumps lose nothing.
 *
 * Usage: tl_chrome_begin; per event tl_chrome_event (+ args via
 * tl_chrome_arg_*; closed by the next event or by tl_chrome_end);
 * tl_chrome_end writes otherData and closes the document.
 */
#ifndef TL_EMIT_CHROME_H
#define TL_EMIT_CHROME_H

#include "base/output.h"
#include "emit/json.h"

#include <stdbool.h>
#include <stdint.h>

typedef struct tl_chrome {
	tl_output *out;
	uint64_t events;
	bool in_event;
	bool in_args;
	bool args_empty;
} tl_chrome;

void tl_chrome_begin(tl_chrome *w, tl_output *out);

/* Metadata events. */
void tl_chrome_process(tl_chrome *w, int64_t pid, const char *name, int64_t sort_index);
void tl_chrome_thread(tl_chrome *w, int64_t pid, int64_t tid, const char *name, int64_t sort_index);

/* A complete event (ph X). */
void tl_chrome_complete(tl_chrome *w, const char *name, const char *cat, int64_t pid, int64_t tid,
			int64_t ts_ns, int64_t dur_ns);
/* A flow event: ph 's' (start) or 'f' (finish, bound to the enclosing slice
 * with bp "e") or 't' (step). */
void tl_chrome_flow(tl_chrome *w, char ph, const char *name, const char *cat, uint64_t id,
		    int64_t pid, int64_t tid, int64_t ts_ns);
/* A counter event (ph C) with one series. */
void tl_chrome_counter(tl_chrome *w, const char *name, int64_t pid, int64_t ts_ns,
		       const char *series, int64_t value);
/* Any event: the caller supplies the phase and optional id (id < 0: none). */
void tl_chrome_event(tl_chrome *w, char ph, const char *name, const char *cat, int64_t pid,
		     int64_t tid, int64_t ts_ns, int64_t id);

/* Arguments of the event just started. */
void tl_chrome_arg_str(tl_chrome *w, const char *key, const char *value);
void tl_chrome_arg_strn(tl_chrome *w, const char *key, const char *value, size_t n);
void tl_chrome_arg_int(tl_chrome *w, const char *key, int64_t value);
void tl_chrome_arg_micros(tl_chrome *w, const char *key, int64_t ns);
/* Raw JSON value (caller guarantees validity). */
void tl_chrome_arg_raw(tl_chrome *w, const char *key, const char *json);

/* Starts an event the caller writes itself as raw JSON text to w->out
 * (one complete object, e.g. copied from another trace). */
void tl_chrome_raw(tl_chrome *w);

/* Closes the event list; `other` is raw JSON for otherData (or NULL). */
void tl_chrome_end(tl_chrome *w, const char *other);

#endif
