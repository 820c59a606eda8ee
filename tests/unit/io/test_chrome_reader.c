/* Unit tests of io/chrome_reader.c: the streaming Chrome trace reader checked
 * against jansson on every real dump, each quirk of real files, exact error
 * positions, inputs cut and damaged everywhere, span decoding, and the
 * rewrite of events. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "io/chrome_reader.h"
#include "base/output.h"

#include <glib.h>
#include <inttypes.h>
#include <glib/gstdio.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "testdata.h"
#include "tmpdir.h"

static GBytes *load(const char *path)
{
	char *data = NULL;
	gsize len = 0;
	if (!g_file_get_contents(path, &data, &len, NULL))
		fail_msg("cannot read '%s'", path);
	return g_bytes_new_take(data, len);
}

/* A real dump of the repository: tests/data/real/NAME (NAME.gz read back
 * gunzipped). */
static GBytes *load_real(const char *name)
{
	char *rel = g_build_filename("real", name, NULL);
	char *path = td_data(rel);
	GBytes *b = td_load(path);
	g_free(path);
	g_free(rel);
	return b;
}

/* A dump of the shared folder's realdata/ (the test skips without one). */
static GBytes *load_shared(const char *name)
{
	char *path = td_shared("realdata", name);
	GBytes *b = load(path);
	g_free(path);
	return b;
}

/* The .json traces of the repository's real dumps, .json.gz included. */
static GPtrArray *real_json_files(void)
{
	char *dir = td_data("real");
	GPtrArray *files = td_list(dir, ".json", NULL);
	g_free(dir);
	assert_true(files->len >= 9);
	return files;
}

/* Every .json trace of the shared folder: those of the repository and those
 * whose source has no licence. Skips the test where there is none. */
static GPtrArray *shared_json_files(void)
{
	char *dir = td_shared("realdata", NULL);
	GPtrArray *files = td_list(dir, ".json", NULL);
	g_free(dir);
	assert_true(files->len >= 20);
	return files;
}

/* What one complete read gave: the events' (offset, length) in order, the
 * last return code and its message. */
typedef struct readout {
	GArray *off; /* uint64_t */
	GArray *len; /* size_t */
	int rc;
	char msg[512];
} readout;

static void readout_free(readout *o)
{
	g_array_unref(o->off);
	g_array_unref(o->len);
}

static readout read_doc(const void *data, size_t len)
{
	readout o = {g_array_new(FALSE, FALSE, sizeof(uint64_t)),
		     g_array_new(FALSE, FALSE, sizeof(size_t)), 0, ""};
	tl_chrome_reader *r = NULL;
	tl_error err = {{0}};
	if (tl_chrome_reader_open(&r, data, len, &err) != 0) {
		assert_null(r);
		o.rc = -1;
		snprintf(o.msg, sizeof o.msg, "%s", err.msg);
		return o;
	}
	tl_chrome_in_event ev;
	int rc;
	while ((rc = tl_chrome_reader_next(r, &ev, &err)) == 1) {
		assert_ptr_equal(ev.raw, (const char *)data + ev.offset);
		assert_int_equal(ev.raw[0], '{');
		assert_int_equal(ev.raw[ev.raw_len - 1], '}');
		g_array_append_val(o.off, ev.offset);
		g_array_append_val(o.len, ev.raw_len);
	}
	o.rc = rc;
	if (rc < 0)
		snprintf(o.msg, sizeof o.msg, "%s", err.msg);
	tl_chrome_reader_close(r);
	return o;
}

static readout read_str(const char *s)
{
	return read_doc(s, strlen(s));
}

/* The error of reading s, which must fail. */
static void expect_error(const char *s, size_t len, const char *want)
{
	readout o = read_doc(s, len);
	if (o.rc != -1 || strcmp(o.msg, want) != 0)
		fail_msg("input '%.*s': rc %d '%s', wanted '%s'", (int)len, s, o.rc, o.msg, want);
	readout_free(&o);
}

/* Events of a top-level jansson document: the traceEvents array or the
 * array itself. */
static json_t *jansson_events(json_t *doc)
{
	if (json_is_array(doc))
		return doc;
	return json_object_get(doc, "traceEvents");
}

static size_t jansson_nonempty(json_t *events)
{
	size_t n = 0, i;
	json_t *v;
	json_array_foreach(events, i, v)
	{
		if (!json_is_object(v) || json_object_size(v) > 0)
			n++;
	}
	return n;
}

/* The span as jansson sees it: equal to the jansson value of the key. */
static void check_span(const tl_chrome_in_event *ev, tl_span s, json_t *obj, const char *key)
{
	json_t *want = json_object_get(obj, key);
	if (want == NULL) {
		assert_int_equal(s.len, 0);
		return;
	}
	assert_true(s.len > 0);
	assert_true((size_t)s.off + s.len <= ev->raw_len);
	json_error_t jerr;
	json_t *got = json_loadb(ev->raw + s.off, s.len, JSON_DECODE_ANY, &jerr);
	if (got == NULL || !json_equal(got, want))
		fail_msg("event at byte %llu: key '%s' span '%.*s' differs",
			 (unsigned long long)ev->offset, key, (int)s.len, ev->raw + s.off);
	json_decref(got);
}

static void check_event(const tl_chrome_in_event *ev, json_t *obj, GString *buf)
{
	check_span(ev, ev->name, obj, "name");
	check_span(ev, ev->cat, obj, "cat");
	check_span(ev, ev->ph_span, obj, "ph");
	check_span(ev, ev->pid, obj, "pid");
	check_span(ev, ev->tid, obj, "tid");
	check_span(ev, ev->ts, obj, "ts");
	check_span(ev, ev->dur, obj, "dur");
	check_span(ev, ev->id, obj, "id");
	check_span(ev, ev->id2, obj, "id2");
	check_span(ev, ev->bind_id, obj, "bind_id");
	check_span(ev, ev->args, obj, "args");

	json_t *ph = json_object_get(obj, "ph");
	if (json_is_string(ph) && json_string_length(ph) > 0)
		assert_int_equal(ev->ph, json_string_value(ph)[0]);
	else
		assert_int_equal(ev->ph, 0);
	json_t *ts = json_object_get(obj, "ts");
	if (json_is_number(ts)) {
		assert_true(ev->has_ts);
		assert_true(ev->ts_us == json_number_value(ts));
	}
	json_t *dur = json_object_get(obj, "dur");
	assert_true(ev->dur_us == (json_is_number(dur) ? json_number_value(dur) : 0));
	const char *strs[] = {"name", "pid", "tid", "cat"};
	const tl_span spans[] = {ev->name, ev->pid, ev->tid, ev->cat};
	for (size_t i = 0; i < 4; i++) {
		json_t *v = json_object_get(obj, strs[i]);
		if (json_is_string(v)) {
			tl_chrome_reader_span_text(ev, spans[i], buf);
			assert_int_equal(buf->len, json_string_length(v));
			assert_memory_equal(buf->str, json_string_value(v), buf->len);
		} else if (json_is_number(v)) {
			double d = 0;
			assert_true(tl_chrome_reader_span_number(ev, spans[i], &d));
			assert_true(d == json_number_value(v));
		}
	}
}

/* The extras are the top-level members but traceEvents, in order, each
 * value equal to jansson's. */
static void check_extras(tl_chrome_reader *r, json_t *doc)
{
	const char **keys, **values;
	size_t *key_lens, *value_lens;
	size_t n = tl_chrome_reader_extras(r, &keys, &key_lens, &values, &value_lens);
	if (!json_is_object(doc)) {
		assert_int_equal(n, 0);
		return;
	}
	size_t want = json_object_size(doc) - (json_object_get(doc, "traceEvents") ? 1 : 0);
	assert_int_equal(n, want);
	size_t i = 0;
	const char *key;
	json_t *v;
	json_object_foreach(doc, key, v)
	{
		if (strcmp(key, "traceEvents") == 0)
			continue;
		assert_int_equal(key_lens[i], strlen(key));
		assert_memory_equal(keys[i], key, key_lens[i]);
		json_t *got = json_loadb(values[i], value_lens[i], JSON_DECODE_ANY, NULL);
		assert_non_null(got);
		assert_true(json_equal(got, v));
		json_decref(got);
		i++;
	}
	json_t *unit = json_object_get(doc, "displayTimeUnit");
	if (json_is_string(unit))
		assert_string_equal(tl_chrome_reader_time_unit(r), json_string_value(unit));
	else
		assert_null(tl_chrome_reader_time_unit(r));
}

/* Every file in `files` reads to its end; the events are jansson's
 * non-empty objects of traceEvents, one for one, with every reported span
 * equal (as JSON) to jansson's value of that key, ph, ts and dur parsed to
 * the same doubles, names and string pids decoded to the same text; the
 * extras are the other top-level members, in order. */
static void agree_with_jansson(const GPtrArray *files)
{
	GString *buf = g_string_new(NULL);
	for (guint f = 0; f < files->len; f++) {
		const char *path = g_ptr_array_index(files, f);
		GBytes *b = td_load(path);
		size_t len;
		const uint8_t *data = g_bytes_get_data(b, &len);
		json_error_t jerr;
		json_t *doc = json_loadb((const char *)data, len, 0, &jerr);
		if (doc == NULL)
			fail_msg("jansson cannot read '%s': %s", path, jerr.text);
		json_t *events = jansson_events(doc);
		assert_non_null(events);

		tl_chrome_reader *r = NULL;
		tl_error err = {{0}};
		if (tl_chrome_reader_open(&r, data, len, &err) != 0)
			fail_msg("'%s': %s", path, err.msg);
		tl_chrome_in_event ev;
		size_t n = 0, j = 0;
		int rc;
		while ((rc = tl_chrome_reader_next(r, &ev, &err)) == 1) {
			json_t *obj;
			do
				obj = json_array_get(events, j++);
			while (obj != NULL && json_object_size(obj) == 0);
			assert_non_null(obj);
			check_event(&ev, obj, buf);
			n++;
		}
		if (rc != 0)
			fail_msg("'%s': %s", path, err.msg);
		assert_int_equal(n, jansson_nonempty(events));
		check_extras(r, doc);
		tl_chrome_reader_close(r);
		json_decref(doc);
		g_bytes_unref(b);
	}
	g_string_free(buf, TRUE);
}

/* Proves: agree_with_jansson on every .json trace of tests/data/real (TF1
 * timeline.py, one-line, Kineto with string tids, Kineto with memory
 * events). */
static void test_realdata_agrees_with_jansson(void **state)
{
	GPtrArray *files = real_json_files();
	agree_with_jansson(files);
	g_ptr_array_unref(files);
}

/* The number of events of a real dump by tl_chrome_reader, checked against
 * jansson's non-empty objects of traceEvents and against `want` (0: jansson's
 * count less one, for a trailing {}). */
static void check_count(GBytes *b, size_t want)
{
	size_t len;
	const void *data = g_bytes_get_data(b, &len);
	json_error_t jerr;
	json_t *doc = json_loadb(data, len, 0, &jerr);
	assert_non_null(doc);
	json_t *events = jansson_events(doc);
	readout o = read_doc(data, len);
	assert_int_equal(o.rc, 0);
	assert_int_equal(o.off->len, jansson_nonempty(events));
	if (want != 0)
		assert_int_equal(o.off->len, want);
	else
		assert_int_equal(o.off->len, json_array_size(events) - 1);
	readout_free(&o);
	json_decref(doc);
}

/* Proves: event counts of a few dumps are those jansson gives (non-empty
 * objects of traceEvents) and those the realdata catalogue gives. */
static void test_realdata_counts(void **state)
{
	const char *names[] = {"kineto_resnet50_autograd_api_worker0.pt.trace.json.gz",
			       "AMD-AGI_TraceLens_h100-qwen1.5-0.5b.pt.trace.json.gz",
			       "anna_cpu_timeline_01.json",
			       "ikhlestov_gpu_timeline_03_merged_5_runs.json"};
	const size_t catalogue[] = {79711, 18221, 424, 1002};
	for (size_t i = 0; i < G_N_ELEMENTS(names); i++) {
		GBytes *b = load_real(names[i]);
		check_count(b, catalogue[i]);
		g_bytes_unref(b);
	}
}

/* Proves: a top-level array with a UTF-8 BOM reads (offsets count the BOM),
 * empty {} and { } events are skipped wherever they are, and there are no
 * extras. */
static void test_array_form_bom_empty_events(void **state)
{
	const char *doc = "\xef\xbb\xbf [{}, {\"ph\":\"X\",\"ts\":1}, { \n}, {\"ph\":\"B\"},{}]\n";
	readout o = read_str(doc);
	assert_int_equal(o.rc, 0);
	assert_int_equal(o.off->len, 2);
	assert_int_equal(g_array_index(o.off, uint64_t, 0), 9);
	assert_int_equal(g_array_index(o.len, size_t, 0), 17);
	assert_int_equal(g_array_index(o.off, uint64_t, 1), 34);
	readout_free(&o);

	tl_chrome_reader *r = NULL;
	assert_int_equal(tl_chrome_reader_open(&r, (const uint8_t *)doc, strlen(doc), NULL), 0);
	tl_chrome_in_event ev;
	while (tl_chrome_reader_next(r, &ev, NULL) == 1)
		;
	const char **keys;
	assert_int_equal(tl_chrome_reader_extras(r, &keys, NULL, NULL, NULL), 0);
	assert_null(tl_chrome_reader_time_unit(r));
	tl_chrome_reader_close(r);

	readout only_empty = read_str("[{},{}]");
	assert_int_equal(only_empty.rc, 0);
	assert_int_equal(only_empty.off->len, 0);
	readout_free(&only_empty);
	readout bom_obj = read_str("\xef\xbb\xbf{\"traceEvents\":[{\"a\":1}]}");
	assert_int_equal(bom_obj.rc, 0);
	assert_int_equal(bom_obj.off->len, 1);
	readout_free(&bom_obj);
}

/* Proves: the array form may end without its ']' after an event or after a
 * trailing comma (Chrome's JSON Array Format), but not inside an event or
 * before any '['; the object form may not lose its "]}". */
static void test_array_cut_short(void **state)
{
	const struct {
		const char *doc;
		size_t events;
	} ok[] = {
	    {"[{\"a\":1},{\"a\":2}", 2},
	    {"[{\"a\":1},{\"a\":2}\n", 2},
	    {"[{\"a\":1},\n", 1},
	    {"[{\"a\":1} , ", 1},
	    {"[", 0},
	    {"  [ \n", 0},
	    {"[{},", 0},
	};
	for (size_t i = 0; i < G_N_ELEMENTS(ok); i++) {
		readout o = read_str(ok[i].doc);
		if (o.rc != 0)
			fail_msg("'%s': %s", ok[i].doc, o.msg);
		assert_int_equal(o.off->len, ok[i].events);
		readout_free(&o);
	}
	const char *bad = "[{\"a\":1},{\"a";
	expect_error(bad, strlen(bad), "invalid JSON at byte 12: unexpected end of input");
	bad = "[{\"a\":1},{";
	expect_error(bad, strlen(bad), "invalid JSON at byte 10: unexpected end of input");
	bad = "[{\"a\":1},]";
	expect_error(bad, strlen(bad), "invalid JSON at byte 9: expected a value");
	bad = "{\"traceEvents\":[{\"a\":1}";
	expect_error(bad, strlen(bad), "invalid JSON at byte 23: unexpected end of input");
	bad = "{\"traceEvents\":[{\"a\":1}]";
	expect_error(bad, strlen(bad), "invalid JSON at byte 24: unexpected end of input");
	expect_error("", 0, "invalid JSON at byte 0: unexpected end of input");
	tl_chrome_reader *r = NULL;
	tl_error err = {{0}};
	assert_int_equal(tl_chrome_reader_open(&r, NULL, 0, &err), -1);
	assert_string_equal(err.msg, "invalid JSON at byte 0: unexpected end of input");
	expect_error(" \n", 2, "invalid JSON at byte 2: unexpected end of input");
}

/* Proves: in the object form traceEvents may come anywhere; the other
 * members (Kineto's schemaVersion, deviceProperties, traceName; TF2's
 * displayTimeUnit and metadata; otherData) are extras with their raw key
 * and value text in document order, only once the events are over; the
 * time unit is decoded; an object without traceEvents has no events; a
 * second traceEvents is dropped with a warning. */
static void test_object_form_extras(void **state)
{
	const char *doc =
	    "{\"schemaVersion\": 1, \"deviceProperties\": [{\"id\": 0, \"name\": \"V100\"}],\n"
	    " \"displayTimeUnit\":\"n\\u0073\", \"traceEvents\": [{\"ph\":\"X\"}, {}],"
	    " \"traceName\" : \"w0.pt\" , \"otherData\": {\"v\": [1, 2.5e3, null]}}";
	tl_chrome_reader *r = NULL;
	tl_error err = {{0}};
	assert_int_equal(tl_chrome_reader_open(&r, (const uint8_t *)doc, strlen(doc), &err), 0);
	tl_chrome_in_event ev;
	assert_int_equal(tl_chrome_reader_next(r, &ev, &err), 1);
	const char **keys, **values;
	size_t *key_lens, *value_lens;
	assert_int_equal(tl_chrome_reader_extras(r, &keys, &key_lens, &values, &value_lens), 0);
	assert_null(tl_chrome_reader_time_unit(r));
	assert_int_equal(tl_chrome_reader_next(r, &ev, &err), 0);
	assert_int_equal(tl_chrome_reader_next(r, &ev, &err), 0);
	size_t n = tl_chrome_reader_extras(r, &keys, &key_lens, &values, &value_lens);
	const char *want_keys[] = {"schemaVersion", "deviceProperties", "displayTimeUnit",
				   "traceName", "otherData"};
	const char *want_values[] = {"1", "[{\"id\": 0, \"name\": \"V100\"}]", "\"n\\u0073\"",
				     "\"w0.pt\"", "{\"v\": [1, 2.5e3, null]}"};
	assert_int_equal(n, 5);
	for (size_t i = 0; i < n; i++) {
		assert_int_equal(key_lens[i], strlen(want_keys[i]));
		assert_memory_equal(keys[i], want_keys[i], key_lens[i]);
		assert_int_equal(value_lens[i], strlen(want_values[i]));
		assert_memory_equal(values[i], want_values[i], value_lens[i]);
	}
	assert_string_equal(tl_chrome_reader_time_unit(r), "ns");
	tl_chrome_reader_close(r);

	const char *none = "{\"displayTimeUnit\": \"ms\", \"otherData\": {}}";
	assert_int_equal(tl_chrome_reader_open(&r, (const uint8_t *)none, strlen(none), &err), 0);
	assert_int_equal(tl_chrome_reader_next(r, &ev, &err), 0);
	assert_int_equal(tl_chrome_reader_extras(r, NULL, NULL, NULL, NULL), 2);
	assert_string_equal(tl_chrome_reader_time_unit(r), "ms");
	tl_chrome_reader_close(r);

	/* a second traceEvents list is dropped with a warning, not an extra */
	tl_warn_clear();
	const char *twice = "{\"traceEvents\":[{\"a\":1}], \"traceEvents\":[{\"b\":2}], \"x\":0}";
	assert_int_equal(tl_chrome_reader_open(&r, (const uint8_t *)twice, strlen(twice), &err), 0);
	assert_int_equal(tl_chrome_reader_next(r, &ev, &err), 1);
	assert_int_equal(tl_chrome_reader_next(r, &ev, &err), 0);
	assert_int_equal(tl_chrome_reader_extras(r, &keys, &key_lens, NULL, NULL), 1);
	assert_memory_equal(keys[0], "x", 1);
	assert_int_equal(tl_warn_count("chromein-second-traceevents"), 1);
	tl_warn_clear();
	tl_chrome_reader_close(r);

	readout empty = read_str("{}");
	assert_int_equal(empty.rc, 0);
	assert_int_equal(empty.off->len, 0);
	readout_free(&empty);
}

static tl_chrome_in_event first_event(const char *doc, tl_chrome_reader **r)
{
	tl_error err = {{0}};
	tl_chrome_in_event ev;
	if (tl_chrome_reader_open(r, (const uint8_t *)doc, strlen(doc), &err) != 0)
		fail_msg("'%s': %s", doc, err.msg);
	if (tl_chrome_reader_next(*r, &ev, &err) != 1)
		fail_msg("'%s': no event: %s", doc, err.msg);
	return ev;
}

static bool span_is(const tl_chrome_in_event *ev, tl_span s, const char *text)
{
	return s.len == strlen(text) && memcmp(ev->raw + s.off, text, s.len) == 0;
}

/* Proves: the spans of an event are its top-level members' raw values
 * (strings with quotes): string pids and tids, float ts, numeric-string
 * dur, id2 objects; keys nested in args are not taken; the last of
 * duplicate keys wins; an escaped key is not a match; an escaped ph is
 * decoded; unknown phases and absent ts are reported as such. */
static void test_event_fields(void **state)
{
	tl_chrome_reader *r;
	tl_chrome_in_event ev = first_event(
	    "{\"traceEvents\":[ {\"name\" : \"conv\\\"1\", \"pid\": \"/device:GPU:0\","
	    " \"tid\": \"stream 7\", \"ts\": 1610366392473.637, \"dur\": \"12.5\","
	    " \"args\": {\"pid\": 9, \"ts\": 3}, \"id2\": {\"local\": \"0x1\"},"
	    " \"cat\":\"Op\", \"ph\": \"X\", \"bind_id\": 77, \"id\": \"0xff\", \"extra\": [1]}]}",
	    &r);
	assert_int_equal(ev.offset, 17);
	assert_true(span_is(&ev, ev.name, "\"conv\\\"1\""));
	assert_true(span_is(&ev, ev.pid, "\"/device:GPU:0\""));
	assert_true(span_is(&ev, ev.tid, "\"stream 7\""));
	assert_true(span_is(&ev, ev.ts, "1610366392473.637"));
	assert_true(span_is(&ev, ev.dur, "\"12.5\""));
	assert_true(span_is(&ev, ev.args, "{\"pid\": 9, \"ts\": 3}"));
	assert_true(span_is(&ev, ev.id2, "{\"local\": \"0x1\"}"));
	assert_true(span_is(&ev, ev.cat, "\"Op\""));
	assert_true(span_is(&ev, ev.ph_span, "\"X\""));
	assert_true(span_is(&ev, ev.bind_id, "77"));
	assert_true(span_is(&ev, ev.id, "\"0xff\""));
	assert_int_equal(ev.ph, 'X');
	assert_true(ev.has_ts);
	assert_true(ev.ts_us == 1610366392473.637);
	assert_true(ev.dur_us == 12.5);
	tl_chrome_reader_close(r);

	ev = first_event("[{\"pid\":1,\"p\\u0069d\":2,\"pid\":3,\"ph\":\"\\u0058\",\"ts\":\"x\"}]",
			 &r);
	assert_true(span_is(&ev, ev.pid, "3"));
	assert_int_equal(ev.ph, 'X');
	assert_false(ev.has_ts);
	assert_true(ev.ts_us == 0);
	assert_true(ev.dur_us == 0);
	assert_int_equal(ev.name.len, 0);
	assert_int_equal(ev.args.len, 0);
	tl_chrome_reader_close(r);

	ev = first_event("[{\"ph\":\"zz\",\"ts\":-0}]", &r);
	assert_int_equal(ev.ph, 'z');
	assert_true(ev.has_ts);
	tl_chrome_reader_close(r);
	ev = first_event("[{\"ph\":\"\",\"name\":null}]", &r);
	assert_int_equal(ev.ph, 0);
	assert_true(span_is(&ev, ev.name, "null"));
	tl_chrome_reader_close(r);
	ev = first_event("[{\"ph\":5}]", &r);
	assert_int_equal(ev.ph, 0);
	tl_chrome_reader_close(r);
}

static const char *text_of(const char *value, GString *buf)
{
	tl_chrome_in_event ev = {.raw = value, .raw_len = strlen(value)};
	return tl_chrome_reader_span_text(&ev, (tl_span){0, (uint32_t)strlen(value)}, buf);
}

/* Proves: span text decodes every JSON escape, joins surrogate pairs,
 * turns lone surrogates into U+FFFD, keeps \u0000 (length counts it),
 * passes UTF-8 through, gives a non-string value's text and "" for an
 * absent key. */
static void test_span_text(void **state)
{
	GString *buf = g_string_new("junk");
	assert_string_equal(text_of("\"plain\"", buf), "plain");
	assert_string_equal(text_of("\"\"", buf), "");
	assert_string_equal(text_of("\"a\\\"b\\\\c\\/d\\be\\ff\\ng\\rh\\ti\"", buf),
			    "a\"b\\c/d\be\ff\ng\rh\ti");
	assert_string_equal(text_of("\"\\u00e9\\u20AC\\ud83d\\ude00x\"", buf),
			    "\xc3\xa9\xe2\x82\xac\xf0\x9f\x98\x80x");
	assert_string_equal(text_of("\"\\ud83d-\\ude00\\ud83d\"", buf),
			    "\xef\xbf\xbd-\xef\xbf\xbd\xef\xbf\xbd");
	assert_string_equal(text_of("\"\\ud83d\\u0041\"", buf), "\xef\xbf\xbd"
								"A");
	text_of("\"a\\u0000b\"", buf);
	assert_int_equal(buf->len, 3);
	assert_memory_equal(buf->str, "a\0b", 3);
	assert_string_equal(text_of("\"caf\xc3\xa9\"", buf), "caf\xc3\xa9");
	assert_string_equal(text_of("-12.5e3", buf), "-12.5e3");
	assert_string_equal(text_of("{\"a\": 1}", buf), "{\"a\": 1}");
	tl_chrome_in_event ev = {.raw = "{}", .raw_len = 2};
	assert_string_equal(tl_chrome_reader_span_text(&ev, (tl_span){0, 0}, buf), "");
	g_string_free(buf, TRUE);
}

static bool number_of(const char *value, double *out)
{
	tl_chrome_in_event ev = {.raw = value, .raw_len = strlen(value)};
	return tl_chrome_reader_span_number(&ev, (tl_span){0, (uint32_t)strlen(value)}, out);
}

/* Proves: numbers and numeric strings parse to the doubles strtod gives
 * (integers past 2^53, decimals, exponents); anything else, an absent key
 * or an overflow is refused. */
static void test_span_number(void **state)
{
	const char *good[] = {"0",
			      "-0",
			      "7",
			      "1610366392473637",
			      "12345678901234567890",
			      "1.5",
			      "-1234.567",
			      "0.1",
			      "1e3",
			      "2.5E-3",
			      "1E+2",
			      "\"42\"",
			      "\"-3.25\"",
			      "123456789.123456789",
			      "0.000000000000000000000000001",
			      "1e308"};
	for (size_t i = 0; i < G_N_ELEMENTS(good); i++) {
		double d = -1;
		const char *s = good[i];
		if (!number_of(s, &d))
			fail_msg("'%s' refused", s);
		char *copy = g_strdup(s[0] == '"' ? s + 1 : s);
		char *q = strchr(copy, '"');
		if (q != NULL)
			*q = '\0';
		assert_true(d == g_ascii_strtod(copy, NULL));
		g_free(copy);
	}
	const char *bad[] = {"",       "\"\"",	 "\"x\"", "true", "null", "\"0x1f\"",
			     "01",     "1.",	 ".5",	  "+1",	  "1e",	  "-",
			     "\" 1\"", "\"1 \"", "1e999", "[1]",  "{}",	  "\"1\\u0030\""};
	for (size_t i = 0; i < G_N_ELEMENTS(bad); i++) {
		double d = 0;
		if (number_of(bad[i], &d))
			fail_msg("'%s' accepted as %g", bad[i], d);
	}
	tl_chrome_in_event ev = {.raw = "{}", .raw_len = 2};
	double d;
	assert_false(tl_chrome_reader_span_number(&ev, (tl_span){0, 0}, &d));
}

static int ns_of(const char *value, int64_t *out)
{
	tl_chrome_in_event ev = {.raw = value, .raw_len = strlen(value)};
	return tl_chrome_reader_span_ns(&ev, (tl_span){0, (uint32_t)strlen(value)}, out);
}

/* Proves: a time field's microseconds become nanoseconds from the digits,
 * exactly where a double cannot hold them (epoch us with a fraction),
 * rounded half away from zero, exponents and numeric strings included; a
 * number at or past 2^61 ns either side is -1, anything else 0. */
static void test_span_ns(void **state)
{
	static const struct {
		const char *text;
		int64_t ns;
	} good[] = {
	    {"0", 0},
	    {"-0", 0},
	    {"7", 7000},
	    {"1.5", 1500},
	    {"-1234.567", -1234567},
	    {"0.0005", 1},
	    {"0.0004", 0},
	    {"-0.0005", -1},
	    {"382523.21600000001", 382523216},
	    {"1893456000382523.216", INT64_C(1893456000382523216)},
	    {"-1893456000382523.216", -INT64_C(1893456000382523216)},
	    {"1661389858379670", INT64_C(1661389858379670000)},
	    {"1e3", 1000000},
	    {"2.5E-3", 3},
	    {"1.2345e2", 123450},
	    {"12e-4", 1},
	    {"0e99999", 0},
	    {"0.000000000000000000000000001", 0},
	    {"\"42\"", 42000},
	    {"2305843009213693.951", INT64_C(2305843009213693951)},
	    {"-2305843009213693.951", -INT64_C(2305843009213693951)},
	};
	for (size_t i = 0; i < G_N_ELEMENTS(good); i++) {
		int64_t ns = -42;
		int k = ns_of(good[i].text, &ns);
		if (k != 1 || ns != good[i].ns)
			fail_msg("'%s': %d, %" PRId64 " ns, not %" PRId64, good[i].text, k, ns,
				 good[i].ns);
	}
	const char *past[] = {"2305843009213693.952",
			      "-2305843009213693.952",
			      "2305843009213693.9515",
			      "1e16",
			      "1e400",
			      "99999999999999999999",
			      "-1e99999"};
	for (size_t i = 0; i < G_N_ELEMENTS(past); i++) {
		int64_t ns;
		if (ns_of(past[i], &ns) != -1)
			fail_msg("'%s' not past the limit", past[i]);
	}
	const char *none[] = {"", "\"\"", "\"x\"", "true", "null", "01", "1.", ".5", "[1]"};
	for (size_t i = 0; i < G_N_ELEMENTS(none); i++) {
		int64_t ns;
		if (ns_of(none[i], &ns) != 0)
			fail_msg("'%s' taken for a number", none[i]);
	}
	/* whole us and three decimals at every magnitude up to epoch 2030 */
	for (int64_t us = 1; us < INT64_C(1900000000000000); us = us * 7 + 3)
		for (int f = 0; f < 1000; f += 37) {
			char text[64];
			snprintf(text, sizeof text, "%" PRId64 ".%03d", us, f);
			int64_t ns;
			assert_int_equal(ns_of(text, &ns), 1);
			assert_true(ns == us * 1000 + f);
		}
}

/* Proves: malformed JSON inside events and around them is an error naming
 * the exact byte and what was expected, in strings (control characters,
 * bad escapes, bad \u, invalid UTF-8), numbers, literals and structure;
 * valid JSON that is not a trace says "invalid trace". */
static void test_errors_at_byte(void **state)
{
	const struct {
		const char *doc;
		const char *msg;
	} cases[] = {
	    {"[{\"ph\":\"X\" \"ts\":1}]",
	     "invalid JSON at byte 11: expected ',' or '}' after a value"},
	    {"[{\"ph\":\"X\",}]", "invalid JSON at byte 11: expected a string key"},
	    {"[{\"ph\" \"X\"}]", "invalid JSON at byte 7: expected ':' after a key"},
	    {"[{ph:1}]", "invalid JSON at byte 2: expected a string key"},
	    {"[{\"a\":\"x\ty\"}]", "invalid JSON at byte 8: control character in a string"},
	    {"[{\"a\":\"x\\qy\"}]", "invalid JSON at byte 8: invalid escape in a string"},
	    {"[{\"a\":\"\\u12G4\"}]",
	     "invalid JSON at byte 11: expected a hex digit in a \\u escape"},
	    {"[{\"a\":\"\xc3(\"}]", "invalid JSON at byte 7: invalid UTF-8 in a string"},
	    {"[{\"a\":\"\xc0\xaf\"}]", "invalid JSON at byte 7: invalid UTF-8 in a string"},
	    {"[{\"a\":\"\xed\xa0\x80\"}]", "invalid JSON at byte 7: invalid UTF-8 in a string"},
	    {"[{\"a\":\"\xf4\x90\x80\x80\"}]", "invalid JSON at byte 7: invalid UTF-8 in a string"},
	    {"[{\"a\":\"\xff\"}]", "invalid JSON at byte 7: invalid UTF-8 in a string"},
	    {"[{\"a\":01}]", "invalid JSON at byte 7: expected ',' or '}' after a value"},
	    {"[{\"a\":1.}]", "invalid JSON at byte 8: expected a digit after '.'"},
	    {"[{\"a\":-x}]", "invalid JSON at byte 7: expected a digit"},
	    {"[{\"a\":1e+}]", "invalid JSON at byte 9: expected a digit in the exponent"},
	    {"[{\"a\":+1}]", "invalid JSON at byte 6: expected a value"},
	    {"[{\"a\":.5}]", "invalid JSON at byte 6: expected a value"},
	    {"[{\"a\":tru}]", "invalid JSON at byte 6: expected a value"},
	    {"[{\"a\":nul }]", "invalid JSON at byte 6: expected a value"},
	    {"[{\"a\":True}]", "invalid JSON at byte 6: expected a value"},
	    {"[{\"a\":[1 2]}]", "invalid JSON at byte 9: expected ',' or ']' after a value"},
	    {"[{\"a\":[1,]}]", "invalid JSON at byte 9: expected a value"},
	    {"[{\"a\":{\"b\" 1}}]", "invalid JSON at byte 11: expected ':' after a key"},
	    {"[{\"a\":{\"b\":1]}]", "invalid JSON at byte 12: expected ',' or '}' after a value"},
	    {"[{\"a\":{,}}]", "invalid JSON at byte 7: expected a string key"},
	    {"[{\"a\":1}}]", "invalid JSON at byte 8: expected ',' or ']' after an event"},
	    {"[{\"a\":1}] x", "invalid JSON at byte 10: expected the end of input after the "
			      "top-level value"},
	    {"[{\"a\":1}]]", "invalid JSON at byte 9: expected the end of input after the "
			     "top-level value"},
	    {"{\"traceEvents\":[],}", "invalid JSON at byte 18: expected a string key"},
	    {"{\"traceEvents\":[] \"x\":1}",
	     "invalid JSON at byte 18: expected ',' or '}' after a value"},
	    {"{\"x\":[1}", "invalid JSON at byte 7: expected ',' or ']' after a value"},
	    {"{\"x\"}", "invalid JSON at byte 4: expected ':' after a key"},
	    {"\"x\"", "invalid JSON at byte 0: expected '{' or '['"},
	    {"\xef\xbb\xbfx", "invalid JSON at byte 3: expected '{' or '['"},
	    {"[x]", "invalid JSON at byte 1: expected a value"},
	    {"[1]", "invalid trace at byte 1: an event is not an object"},
	    {"[{},\"a\"]", "invalid trace at byte 4: an event is not an object"},
	    {"{\"traceEvents\": {}}", "invalid trace at byte 16: 'traceEvents' is not an array"},
	    {"{\"traceEvents\": null}", "invalid trace at byte 16: 'traceEvents' is not an array"},
	};
	for (size_t i = 0; i < G_N_ELEMENTS(cases); i++)
		expect_error(cases[i].doc, strlen(cases[i].doc), cases[i].msg);
	const char nul[] = "[{\"a\":\"x\0\"}]";
	expect_error(nul, sizeof nul - 1, "invalid JSON at byte 8: control character in a string");
	const char nul_out[] = "[{\"a\":1}\0]";
	expect_error(nul_out, sizeof nul_out - 1,
		     "invalid JSON at byte 8: expected ',' or ']' after an event");
}

/* Proves: an error is sticky (the same message again), and a finished
 * reader keeps answering 0. */
static void test_sticky_results(void **state)
{
	const char *doc = "[{\"a\":1},{\"a\":x}]";
	tl_chrome_reader *r = NULL;
	tl_error err = {{0}};
	assert_int_equal(tl_chrome_reader_open(&r, (const uint8_t *)doc, strlen(doc), &err), 0);
	tl_chrome_in_event ev;
	assert_int_equal(tl_chrome_reader_next(r, &ev, &err), 1);
	assert_int_equal(tl_chrome_reader_next(r, &ev, &err), -1);
	assert_string_equal(err.msg, "invalid JSON at byte 14: expected a value");
	memset(&err, 0, sizeof err);
	assert_int_equal(tl_chrome_reader_next(r, &ev, &err), -1);
	assert_string_equal(err.msg, "invalid JSON at byte 14: expected a value");
	assert_int_equal(tl_chrome_reader_next(r, &ev, NULL), -1);
	assert_int_equal(tl_chrome_reader_extras(r, NULL, NULL, NULL, NULL), 0);
	tl_chrome_reader_close(r);

	doc = "[{\"a\":1}]";
	assert_int_equal(tl_chrome_reader_open(&r, (const uint8_t *)doc, strlen(doc), &err), 0);
	assert_int_equal(tl_chrome_reader_next(r, &ev, &err), 1);
	assert_int_equal(tl_chrome_reader_next(r, &ev, &err), 0);
	assert_int_equal(tl_chrome_reader_next(r, &ev, &err), 0);
	tl_chrome_reader_close(r);
}

/* `open` brackets inside an event's "args", in the array form: the document
 * is then 2 + open deep. */
static char *deep_doc(size_t open, size_t *len)
{
	GString *s = g_string_new("[{\"args\":");
	for (size_t i = 0; i < open; i++)
		g_string_append(s, i % 2 ? "[" : "{\"k\":");
	g_string_append(s, "1");
	for (size_t i = open; i-- > 0;)
		g_string_append_c(s, i % 2 ? ']' : '}');
	g_string_append(s, "}]");
	*len = s->len;
	return g_string_free(s, FALSE);
}

/* Proves: nesting up to 1000 brackets (the document's own included) reads;
 * one more is an error at that bracket, also a million deep (no stack
 * overflow: the skipper is iterative); the same limit holds in extras. */
static void test_deep_nesting(void **state)
{
	size_t len;
	char *doc = deep_doc(998, &len);
	readout o = read_doc(doc, len);
	if (o.rc != 0)
		fail_msg("998 deep: %s", o.msg);
	assert_int_equal(o.off->len, 1);
	readout_free(&o);
	g_free(doc);

	doc = deep_doc(999, &len);
	/* the 999th bracket of args: "[{\"args\":" is 9 bytes, "{\"k\":" 5, "[" 1 */
	size_t at = 9 + 499 * 5 + 499 * 1;
	assert_true(doc[at] == '{');
	char want[128];
	snprintf(want, sizeof want, "invalid JSON at byte %zu: nesting deeper than 1000", at);
	expect_error(doc, len, want);
	g_free(doc);

	size_t big = 1000000;
	char *brackets = g_malloc(big + 16);
	memcpy(brackets, "[{\"a\":", 6);
	memset(brackets + 6, '[', big);
	expect_error(brackets, big + 6, "invalid JSON at byte 1004: nesting deeper than 1000");
	memcpy(brackets, "{\"x\":", 5);
	memset(brackets + 5, '[', big);
	expect_error(brackets, big + 5, "invalid JSON at byte 1004: nesting deeper than 1000");
	g_free(brackets);
}

/* Events (offset, end) of a complete read. */
static void full_read(const void *data, size_t len, readout *o)
{
	*o = read_doc(data, len);
	assert_int_equal(o->rc, 0);
}

/* What a read of data[0..cut) must give, from the events of the whole:
 * the events that end by the cut, then a clean end only where `clean_end`
 * says, else "unexpected end of input" at the cut. */
static void check_cut(const uint8_t *data, size_t cut, const readout *whole, bool clean)
{
	readout o = read_doc(data, cut);
	size_t n = 0;
	while (n < whole->off->len &&
	       g_array_index(whole->off, uint64_t, n) + g_array_index(whole->len, size_t, n) <= cut)
		n++;
	if (clean) {
		if (o.rc != 0)
			fail_msg("cut at %zu: %s", cut, o.msg);
	} else {
		char want[128];
		snprintf(want, sizeof want, "invalid JSON at byte %zu: unexpected end of input",
			 cut);
		if (o.rc != -1 || strcmp(o.msg, want) != 0)
			fail_msg("cut at %zu: rc %d '%s'", cut, o.rc, o.msg);
	}
	if (o.off->len != n)
		fail_msg("cut at %zu: %u events, wanted %zu", cut, o.off->len, n);
	for (size_t i = 0; i < n; i++) {
		assert_int_equal(g_array_index(o.off, uint64_t, i),
				 g_array_index(whole->off, uint64_t, i));
		assert_int_equal(g_array_index(o.len, size_t, i),
				 g_array_index(whole->len, size_t, i));
	}
	readout_free(&o);
}

static size_t trimmed_len(const uint8_t *data, size_t len)
{
	while (len > 0 && (data[len - 1] == ' ' || data[len - 1] == '\n' || data[len - 1] == '\r' ||
			   data[len - 1] == '\t'))
		len--;
	return len;
}

/* A small Kineto trace of real bytes: the repository's ResNet-50 Kineto
 * trace with its middle left out, at event boundaries: its events up to the
 * first that ends past `min` bytes (numeric pids, string tids), then its
 * last three events (string pids "Traces" and "") and its end. Cutting or
 * rewriting the whole 27 MB file would only cost time. */
static GBytes *kineto_sample(size_t min)
{
	GBytes *whole = load_real("kineto_resnet50_autograd_api_worker0.pt.trace.json.gz");
	size_t len;
	const uint8_t *data = g_bytes_get_data(whole, &len);
	readout o;
	full_read(data, len, &o);
	guint n = o.off->len, k = 0;
	assert_true(n > 10);
#define EV_END(i) (g_array_index(o.off, uint64_t, i) + g_array_index(o.len, size_t, i))
	while (EV_END(k) < min)
		k++;
	assert_true(k + 4 < n);
	GByteArray *doc = g_byte_array_new();
	g_byte_array_append(doc, data, (guint)EV_END(k));
	g_byte_array_append(doc, data + EV_END(n - 4), (guint)(len - EV_END(n - 4)));
#undef EV_END
	readout_free(&o);
	g_bytes_unref(whole);
	return g_byte_array_free_to_bytes(doc);
}

/* Cuts a dump at every `stride` bytes and at every byte around a few event
 * boundaries: exactly the events that end before the cut, then "unexpected
 * end of input" at the cut's byte; only a cut in the trailing whitespace
 * ends cleanly. */
static void check_cuts(GBytes *b, size_t stride)
{
	size_t len;
	const uint8_t *data = g_bytes_get_data(b, &len);
	readout whole;
	full_read(data, len, &whole);
	size_t doc_end = trimmed_len(data, len);
	for (size_t cut = 0; cut <= len; cut += stride)
		check_cut(data, cut, &whole, cut >= doc_end);
	for (guint e = 0; e < whole.off->len; e += whole.off->len / 5 + 1) {
		size_t end =
		    g_array_index(whole.off, uint64_t, e) + g_array_index(whole.len, size_t, e);
		for (size_t cut = end - 3; cut <= end + 3 && cut <= len; cut++)
			check_cut(data, cut, &whole, cut >= doc_end);
	}
	readout_free(&whole);
}

/* Proves: check_cuts on real object-form dumps: a small TF1 one at every
 * byte, a sample of a Kineto one and a one-line one (the five merged runs)
 * at thousands of bytes. */
static void test_cut_real_files(void **state)
{
	GBytes *b = load_real("ikhlestov_cpu_timeline_01.json");
	check_cuts(b, 1);
	g_bytes_unref(b);
	b = kineto_sample(38000);
	check_cuts(b, 13);
	g_bytes_unref(b);
	b = load_real("ikhlestov_gpu_timeline_03_merged_5_runs.json");
	check_cuts(b, 127);
	g_bytes_unref(b);
}

/* Proves: the array form of a real dump (its traceEvents list alone), cut
 * at every byte, gives the events that end before the cut and ends cleanly
 * exactly where only whitespace and at most one comma follow the last
 * event (or the '['), else "unexpected end of input" at the cut. */
static void test_cut_array_form_everywhere(void **state)
{
	GBytes *b = load_real("ikhlestov_cpu_timeline_01.json");
	size_t len;
	const uint8_t *full = g_bytes_get_data(b, &len);
	const uint8_t *open = memchr(full, '[', len);
	assert_non_null(open);
	size_t close = trimmed_len(full, len) - 1; /* the document's '}' */
	while (full[close] != ']')
		close--;
	size_t n = close + 1 - (size_t)(open - full);
	const uint8_t *data = open;
	readout whole;
	full_read(data, n, &whole);
	assert_int_equal(whole.off->len, 19);
	for (size_t cut = 0; cut <= n; cut++) {
		/* clean: after '[' or an event, only whitespace and one comma */
		size_t last = 0;
		for (guint i = 0; i < whole.off->len; i++) {
			size_t end = g_array_index(whole.off, uint64_t, i) +
				     g_array_index(whole.len, size_t, i);
			if (end <= cut)
				last = end;
		}
		bool clean = cut >= 1;
		int commas = 0;
		for (size_t i = last > 0 ? last : 1; i < cut && clean; i++) {
			if (data[i] == ',')
				commas++;
			else if (data[i] == ']' && i + 1 == n)
				;
			else if (!(data[i] == ' ' || data[i] == '\n' || data[i] == '\t' ||
				   data[i] == '\r'))
				clean = false;
		}
		if (commas > 1 || (last == 0 && commas > 0))
			clean = false;
		check_cut(data, cut, &whole, clean);
	}
	readout_free(&whole);
	g_bytes_unref(b);
}

static bool is_digit_byte(uint8_t c)
{
	return c >= '0' && c <= '9';
}

/* Proves: thousands of single-byte corruptions of a real dump never crash,
 * and the reader agrees with jansson on every one: a clean read where
 * jansson parses the document (with its count of non-empty events), an
 * "invalid JSON" error where jansson refuses it; "invalid trace" only where
 * a valid JSON value other than an object stands in for an event. Also random bytes: an error or
 * events, never a crash. */
static void test_corruption_agrees_with_jansson(void **state)
{
	const char *names[] = {"a sample of the Kineto trace", "ikhlestov_gpu_timeline_01.json"};
	const uint8_t subst[] = {'{',  '}',  '[',  ']',	 '"',  '\\', ',',  ':',	 '0', '9',
				 '-',  '+',  'e',  '.',	 ' ',  '\n', 'x',  't',	 'n', 'u',
				 0x00, 0x1f, 0x7f, 0x80, 0xc3, 0xe2, 0xed, 0xf4, 0xff};
	GRand *rng = g_rand_new_with_seed(20240607);
	size_t agreed_ok = 0, agreed_bad = 0;
	for (size_t f = 0; f < G_N_ELEMENTS(names); f++) {
		GBytes *b = f == 0 ? kineto_sample(38000) : load_real(names[f]);
		size_t len;
		const uint8_t *orig = g_bytes_get_data(b, &len);
		uint8_t *data = g_memdup2(orig, len);
		for (int iter = 0; iter < 1500; iter++) {
			size_t at = (size_t)g_rand_int_range(rng, 0, (gint32)len);
			uint8_t was = data[at];
			data[at] = subst[g_rand_int_range(rng, 0, G_N_ELEMENTS(subst))];
			readout o = read_doc(data, len);
			json_error_t jerr;
			json_t *doc = json_loadb((const char *)data, len, 0, &jerr);
			/* jansson refuses numbers out of its range, JSON does not */
			bool range = doc == NULL && (strstr(jerr.text, "overflow") != NULL ||
						     strstr(jerr.text, "too big") != NULL);
			if (range) {
				assert_int_equal(o.rc, 0);
			} else if (o.rc == 0) {
				if (doc == NULL)
					fail_msg("%s: byte %zu -> 0x%02x: read clean, jansson: %s",
						 names[f], at, data[at], jerr.text);
				json_t *events = jansson_events(doc);
				size_t want = events != NULL ? jansson_nonempty(events) : 0;
				assert_int_equal(o.off->len, want);
				agreed_ok++;
			} else if (g_str_has_prefix(o.msg, "invalid JSON")) {
				/* jansson quirk: it skips a NUL byte just after a number */
				char nul_at[64];
				snprintf(nul_at, sizeof nul_at, "invalid JSON at byte %zu:", at);
				if (doc != NULL && data[at] == 0 && at > 0 &&
				    is_digit_byte(data[at - 1]) && g_str_has_prefix(o.msg, nul_at))
					json_decref(g_steal_pointer(&doc));
				if (doc != NULL)
					fail_msg(
					    "%s: byte %zu -> 0x%02x: '%s' but jansson reads it",
					    names[f], at, data[at], o.msg);
				agreed_bad++;
			} else {
				/* a streaming reader stops at the first non-event value,
				 * which must be valid JSON */
				unsigned long long byte = 0;
				assert_int_equal(sscanf(o.msg, "invalid trace at byte %llu", &byte),
						 1);
				json_t *v =
				    json_loadb((const char *)data + byte, len - byte,
					       JSON_DECODE_ANY | JSON_DISABLE_EOF_CHECK, NULL);
				assert_non_null(v);
				assert_false(json_is_object(v));
				json_decref(v);
			}
			json_decref(doc);
			readout_free(&o);
			data[at] = was;
		}
		g_free(data);
		g_bytes_unref(b);
	}
	assert_true(agreed_ok > 100);
	assert_true(agreed_bad > 100);

	for (int iter = 0; iter < 2000; iter++) {
		size_t n = (size_t)g_rand_int_range(rng, 0, 200);
		uint8_t *junk = g_malloc(n + 1);
		bool json_ish = iter % 2 == 0;
		const char alphabet[] = "{}[]\",: \n0123-.eEtrufalsn\\u";
		for (size_t i = 0; i < n; i++)
			junk[i] = json_ish ? (uint8_t)alphabet[g_rand_int_range(
						 rng, 0, (gint32)sizeof alphabet - 1)]
					   : (uint8_t)g_rand_int_range(rng, 0, 256);
		if (n > 0 && json_ish)
			junk[0] = '[';
		readout o = read_doc(junk, n);
		if (o.rc < 0) {
			unsigned long long byte = 0;
			assert_true(sscanf(o.msg, "%*s %*s at byte %llu:", &byte) == 1);
			assert_true(byte <= n);
		}
		readout_free(&o);
		g_free(junk);
	}
	g_rand_free(rng);
}

static char *rewrite_doc(const uint8_t *data, size_t len, const tl_chrome_rewrite *rw,
			 size_t *n_events)
{
	char *path = g_build_filename(tmpdir, "rewrite.json", NULL);
	tl_output *out = NULL;
	tl_error err = {{0}};
	assert_int_equal(tl_output_open(&out, path, false, NULL, 0, &err), 0);
	tl_chrome_reader *r = NULL;
	assert_int_equal(tl_chrome_reader_open(&r, data, len, &err), 0);
	tl_chrome_in_event ev;
	tl_output_char(out, '[');
	size_t n = 0;
	int rc;
	while ((rc = tl_chrome_reader_next(r, &ev, &err)) == 1) {
		if (n++ > 0)
			tl_output_char(out, ',');
		tl_chrome_reader_rewrite(out, &ev, rw);
	}
	assert_int_equal(rc, 0);
	tl_output_str(out, "]\n");
	tl_chrome_reader_close(r);
	assert_int_equal(tl_output_close(out, &err), 0);
	*n_events = n;
	return path;
}

static bool replaced_key(const char *key, const tl_chrome_rewrite *rw, const char **text)
{
	*text = NULL;
	if (strcmp(key, "pid") == 0)
		*text = rw->pid;
	else if (strcmp(key, "tid") == 0)
		*text = rw->tid;
	else if (strcmp(key, "ts") == 0)
		*text = rw->ts;
	else if (strcmp(key, "id") == 0 || strcmp(key, "id2") == 0 || strcmp(key, "bind_id") == 0)
		*text = rw->id;
	return *text != NULL;
}

/* The events of `b` (named `what` in failures), rewritten with new pid,
 * tid, ts and id texts, parse with jansson; each event has the same keys as
 * before (none added, none lost); pid, tid, ts and id/id2/bind_id have the
 * new values where they were present; every other value is unchanged. */
static void check_rewrite(GBytes *b, const char *what)
{
	const tl_chrome_rewrite rw = {"\"P:0\"", "77", "1234.5", "{\"local\":\"0x9\"}"};
	json_t *want_pid = json_string("P:0"), *want_tid = json_integer(77);
	json_t *want_ts = json_real(1234.5), *want_id = json_loads("{\"local\":\"0x9\"}", 0, NULL);
	size_t len;
	const uint8_t *data = g_bytes_get_data(b, &len);
	size_t n = 0;
	char *path = rewrite_doc(data, len, &rw, &n);
	json_error_t jerr;
	json_t *got = json_load_file(path, 0, &jerr);
	if (got == NULL)
		fail_msg("rewrite of '%s' is not JSON: %s at %d", what, jerr.text, jerr.position);
	json_t *orig = json_loadb((const char *)data, len, 0, NULL);
	json_t *events = jansson_events(orig);
	assert_int_equal(json_array_size(got), n);
	size_t j = 0;
	for (size_t i = 0; i < n; i++) {
		json_t *was;
		do
			was = json_array_get(events, j++);
		while (json_object_size(was) == 0);
		json_t *now = json_array_get(got, i);
		assert_int_equal(json_object_size(now), json_object_size(was));
		const char *key;
		json_t *v;
		json_object_foreach(was, key, v)
		{
			json_t *nv = json_object_get(now, key);
			assert_non_null(nv);
			const char *text;
			if (!replaced_key(key, &rw, &text)) {
				assert_true(json_equal(nv, v));
				continue;
			}
			json_t *want = strcmp(key, "pid") == 0	 ? want_pid
				       : strcmp(key, "tid") == 0 ? want_tid
				       : strcmp(key, "ts") == 0	 ? want_ts
								 : want_id;
			assert_true(json_equal(nv, want));
		}
	}
	json_decref(orig);
	json_decref(got);
	g_unlink(path);
	g_free(path);
	json_decref(want_pid);
	json_decref(want_tid);
	json_decref(want_ts);
	json_decref(want_id);
}

/* check_rewrite on each of `files` under 4 MB (the large Kineto ones only
 * cost time: their forms, string pids and tids, are in the sample). */
static void check_rewrite_files(const GPtrArray *files)
{
	for (guint f = 0; f < files->len; f++) {
		GBytes *b = td_load(g_ptr_array_index(files, f));
		if (g_bytes_get_size(b) <= (4u << 20))
			check_rewrite(b, g_ptr_array_index(files, f));
		g_bytes_unref(b);
	}
}

/* Proves: check_rewrite on every real dump of the repository under 4 MB and
 * on the sample of the Kineto trace. */
static void test_rewrite_real(void **state)
{
	GPtrArray *files = real_json_files();
	check_rewrite_files(files);
	g_ptr_array_unref(files);
	GBytes *b = kineto_sample(38000);
	check_rewrite(b, "the sample of the Kineto trace");
	g_bytes_unref(b);
}

/* Proves, on the shared folder's real dumps, those whose source has no
 * licence included (skipped where there is no shared folder):
 * agree_with_jansson and check_rewrite on every .json; the catalogue's event
 * counts of a small Kineto trace and of a TF2 profiler trace whose trailing
 * {} is not an event; check_cuts on a small TF1 dump at every byte and on
 * those two at thousands of bytes. */
static void test_shared_realdata(void **state)
{
	GPtrArray *files = shared_json_files();
	agree_with_jansson(files);
	check_rewrite_files(files);
	g_ptr_array_unref(files);
	GBytes *b = load_shared("crypto_cnn_pytorch_kineto_trace.json");
	check_count(b, 104);
	check_cuts(b, 13);
	g_bytes_unref(b);
	b = load_shared("chess_engine_tf25_trace.json");
	check_count(b, 0);
	check_cuts(b, 211);
	g_bytes_unref(b);
	b = load_shared("dlprof_mkl_base_cpu_timeline.json");
	check_cuts(b, 1);
	g_bytes_unref(b);
}

/* Proves: the rewrite is byte for byte the event with only the present
 * top-level values replaced (nested keys of the same name, spacing, other
 * members and key order untouched), NULL texts keep values, absent keys are
 * not added, and a NULL rewrite copies the event. */
static void test_rewrite_bytes(void **state)
{
#define EV1                                                                                        \
	"{\"pid\" : 1, \"args\": {\"pid\": 2, \"ts\": 3},\"ts\":4.5 ,\"tid\":\"t\", "              \
	"\"bind_id\":5,"                                                                           \
	"\"id2\":{\"global\":1}}"
#define EV2 "{\"name\":\"x\"}"
	const char *doc = "[" EV1 ", " EV2 "]";
	const struct {
		tl_chrome_rewrite rw;
		const char *want;
	} cases[] = {
	    {{"9", "\"T\"", "10.25", "\"0x1\""},
	     "{\"pid\" : 9, \"args\": {\"pid\": 2, \"ts\": 3},\"ts\":10.25 ,\"tid\":\"T\", "
	     "\"bind_id\":\"0x1\",\"id2\":\"0x1\"}{\"name\":\"x\"}"},
	    {{NULL, NULL, "0", NULL},
	     "{\"pid\" : 1, \"args\": {\"pid\": 2, \"ts\": 3},\"ts\":0 ,\"tid\":\"t\", "
	     "\"bind_id\":5,\"id2\":{\"global\":1}}{\"name\":\"x\"}"},
	};
	for (size_t c = 0; c <= G_N_ELEMENTS(cases); c++) {
		size_t n = 0;
		const tl_chrome_rewrite *rw = c < G_N_ELEMENTS(cases) ? &cases[c].rw : NULL;
		char *path = g_build_filename(tmpdir, "bytes.json", NULL);
		tl_output *out = NULL;
		tl_error err = {{0}};
		assert_int_equal(tl_output_open(&out, path, false, NULL, 0, &err), 0);
		tl_chrome_reader *r = NULL;
		assert_int_equal(tl_chrome_reader_open(&r, (const uint8_t *)doc, strlen(doc), &err),
				 0);
		tl_chrome_in_event ev;
		while (tl_chrome_reader_next(r, &ev, &err) == 1) {
			tl_chrome_reader_rewrite(out, &ev, rw);
			n++;
		}
		tl_chrome_reader_close(r);
		assert_int_equal(tl_output_close(out, &err), 0);
		assert_int_equal(n, 2);
		char *got = NULL;
		assert_true(g_file_get_contents(path, &got, NULL, NULL));
		assert_string_equal(got, rw != NULL ? cases[c].want : EV1 EV2);
		g_free(got);
		g_unlink(path);
		g_free(path);
	}
}

/* Proves: an integer of an event's args is found by its key in the raw
 * text, whatever the spacing and the other args, negative too; no args, a
 * missing key or no digits after it give false. */
static void test_args_int(void **state)
{
	(void)state;
	static const char doc[] =
	    "[{\"ph\":\"X\",\"args\":{\"stream\":7,\"correlation\" :\n 675771}},"
	    "{\"ph\":\"X\",\"args\":{\"correlation\":-12,\"x\":1}},"
	    "{\"ph\":\"X\"},"
	    "{\"ph\":\"X\",\"args\":{\"corr\":5}},"
	    "{\"ph\":\"X\",\"args\":{\"correlation\":\"abc\"}}]";
	static const struct {
		bool found;
		int64_t v;
	} want[] = {{true, 675771}, {true, -12}, {false, 0}, {false, 0}, {false, 0}};
	tl_chrome_reader *r = NULL;
	assert_int_equal(tl_chrome_reader_open(&r, (const uint8_t *)doc, strlen(doc), NULL), 0);
	tl_chrome_in_event ev;
	size_t k = 0;
	while (tl_chrome_reader_next(r, &ev, NULL) == 1) {
		assert_true(k < G_N_ELEMENTS(want));
		int64_t v = 0;
		bool found = tl_chrome_reader_args_int(&ev, "\"correlation\"", &v);
		assert_int_equal(found, want[k].found);
		if (found)
			assert_int_equal(v, want[k].v);
		k++;
	}
	assert_int_equal(k, G_N_ELEMENTS(want));
	tl_chrome_reader_close(r);
}

int main(void)
{
	td_filter();
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_realdata_agrees_with_jansson),
	    cmocka_unit_test(test_realdata_counts),
	    cmocka_unit_test(test_array_form_bom_empty_events),
	    cmocka_unit_test(test_array_cut_short),
	    cmocka_unit_test(test_object_form_extras),
	    cmocka_unit_test(test_event_fields),
	    cmocka_unit_test(test_span_text),
	    cmocka_unit_test(test_span_number),
	    cmocka_unit_test(test_span_ns),
	    cmocka_unit_test(test_errors_at_byte),
	    cmocka_unit_test(test_sticky_results),
	    cmocka_unit_test(test_deep_nesting),
	    cmocka_unit_test(test_cut_real_files),
	    cmocka_unit_test(test_cut_array_form_everywhere),
	    cmocka_unit_test(test_corruption_agrees_with_jansson),
	    cmocka_unit_test(test_rewrite_real),
	    cmocka_unit_test(test_rewrite_bytes),
	    cmocka_unit_test(test_shared_realdata),
	    cmocka_unit_test(test_args_int),
	};
	return cmocka_run_group_tests(tests, tmpdir_setup, tmpdir_teardown);
}
