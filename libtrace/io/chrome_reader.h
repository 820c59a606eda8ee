/*
 * chrome_reader: Chrome trace JSON read event by event, without building a
 * document: the reader walks the (mapped) input, finds each event object of
 * "traceEvents" (or of a top-level array), and reports where its fields'
 * values are, so a tool can copy an event through and rewrite only what it
 * must (pid, tid, ids, ts). Memory stays at the input's size.
 *
 * Tolerated, as real files have them: a top-level array or an object with
 * traceEvents anywhere among its keys, empty {} events, string pids and tids,
 * float timestamps, displayTimeUnit, Kineto's extra top-level keys, unknown
 * phases, a missing closing bracket after the last event (timeline files cut
 * short by the profiler). Invalid JSON inside an event is an error naming
 * its byte offset.
 */
#ifndef TL_IO_CHROME_READER_H
#define TL_IO_CHROME_READER_H

#include "base/warn.h"
#include "base/output.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef struct tl_span {
	uint32_t off; /* offset of the value in the event's raw text */
	uint32_t len; /* 0: the key is absent */
} tl_span;

typedef struct tl_chrome_in_event {
	const char *raw; /* the event object, '{' .. '}' */
	size_t raw_len;
	uint64_t offset; /* of raw in the input */
	char ph;	 /* first char of "ph", 0 when absent */
	/* raw value spans; strings include their quotes */
	tl_span name, cat, ph_span, pid, tid, ts, dur, id, id2, bind_id, args;
	bool has_ts;
	double ts_us;  /* parsed ts (microseconds as in the file) */
	double dur_us; /* parsed dur, 0 when absent */
} tl_chrome_in_event;

typedef struct tl_chrome_reader tl_chrome_reader;

/* Reads from data[0..len) which must stay valid while the reader is used. */
int tl_chrome_reader_open(tl_chrome_reader **out, const uint8_t *data, size_t len, tl_error *err);
/* 1: *ev holds the next event (valid until the next call); 0: no more;
 * -1: malformed input ("invalid JSON at byte N: ..."). Empty {} events are
 * skipped. */
int tl_chrome_reader_next(tl_chrome_reader *r, tl_chrome_in_event *ev, tl_error *err);
/* After the events: raw JSON of the top-level keys other than traceEvents
 * (e.g. otherData, displayTimeUnit), as a list of (key, value) spans into
 * the input; n is their count. Only valid once next() returned 0. */
size_t tl_chrome_reader_extras(tl_chrome_reader *r, const char ***keys, size_t **key_lens,
			       const char ***values, size_t **value_lens);
/* displayTimeUnit when given ("ns" or "ms"), else NULL; valid once next()
 * returned 0. */
const char *tl_chrome_reader_time_unit(tl_chrome_reader *r);
void tl_chrome_reader_close(tl_chrome_reader *r);

/* The text of a string value span without quotes and with escapes decoded
 * (\n, \", \\, \uXXXX with surrogate pairs) into buf (g_string semantics:
 * buf is reset). Returns buf->str. For a number span, its text. */
struct _GString;
const char *tl_chrome_reader_span_text(const tl_chrome_in_event *ev, tl_span s,
				       struct _GString *buf);

/* Whether a value span is exactly `quoted`, a JSON text such as "\"X\""
 * (a string with its quotes), byte for byte. */
bool tl_chrome_reader_span_is(const tl_chrome_in_event *ev, tl_span s, const char *quoted);

/* Parses a number or numeric string value span into *out; false otherwise. */
bool tl_chrome_reader_span_number(const tl_chrome_in_event *ev, tl_span s, double *out);

/* A time field (ts, dur: microseconds) of a number or numeric string value
 * span, in nanoseconds, from the text's digits (a double cannot hold a
 * fraction of an epoch microsecond), rounded half away from zero. 1: *out
 * set; 0: absent or no number; -1: a number at or beyond TL_TIME_LIMIT_NS
 * (base/limits.h) either side of zero, the model's one bound on times. */
int tl_chrome_reader_span_ns(const tl_chrome_in_event *ev, tl_span s, int64_t *out);

/* The integer after `quoted_key` (a JSON key with its quotes, such as
 * "\"correlation\"") in the event's args, found in the raw text: parsing
 * every event's args costs more than reading the file. False when the key
 * is not there or no integer follows it. */
bool tl_chrome_reader_args_int(const tl_chrome_in_event *ev, const char *quoted_key, int64_t *out);

/* Copies an event to `out`, replacing the values of pid, tid and ts (when
 * present in the event) and of id/id2/bind_id by the given JSON texts
 * (NULL: keep as is; for ts pass a number text). Any replaced key that is
 * absent is not added. */
typedef struct tl_chrome_rewrite {
	const char *pid;
	const char *tid;
	const char *ts;
	const char *id;
} tl_chrome_rewrite;

void tl_chrome_reader_rewrite(tl_output *out, const tl_chrome_in_event *ev,
			      const tl_chrome_rewrite *rw);

#endif
