/* Unit tests for tf2trace.c: every field of trace_events.proto decoded
 * (Trace, Device, Resource, TraceEvent, the two maps), unknown fields of
 * every wire type skipped, a map key written twice keeping its last value,
 * damage costing the event or device it hits, a file cut at every byte,
 * garbage, the sniff against the other messages, and the XSpace it renders
 * checked by protobuf-c's own decoder (picoseconds kept, args as stats). */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include "base/warn.h"
#include "io/format.h"
#include "io/pbwire.h"
#include "io/tf2trace.h"
#include "tensorflow.pb-c.h"
#include "testdata.h"

#include <glib.h>
#include <string.h>

/* ---- writing a Trace by hand (exact lengths, as protobuf writes) -------- */

static void put_u(GByteArray *o, uint32_t field, uint64_t v)
{
	tl_pbwire_put_tag(o, field, 0);
	tl_pbwire_put_varint(o, v);
}

static void put_s(GByteArray *o, uint32_t field, const char *s)
{
	tl_pbwire_put_bytes(o, field, s, strlen(s));
}

static void put_msg(GByteArray *o, uint32_t field, GByteArray *m)
{
	tl_pbwire_put_bytes(o, field, m->data, m->len);
	g_byte_array_unref(m);
}

/* An unknown field of each wire type, numbered past the known ones. */
static void put_unknown(GByteArray *o)
{
	put_u(o, 40, 7);
	tl_pbwire_put_tag(o, 41, 1);
	tl_pbwire_put_fixed64(o, 0x0102030405060708u);
	put_s(o, 42, "ignored");
	tl_pbwire_put_tag(o, 43, 5);
	tl_pbwire_put_fixed32(o, 99);
}

static GByteArray *resource(const char *name, uint32_t id)
{
	GByteArray *r = g_byte_array_new();
	put_s(r, 1, name);
	put_unknown(r);
	put_u(r, 2, id);
	return r;
}

static GByteArray *entry(uint32_t key, GByteArray *value)
{
	GByteArray *e = g_byte_array_new();
	put_u(e, 1, key);
	put_msg(e, 2, value);
	return e;
}

static GByteArray *device(const char *name, uint32_t id)
{
	GByteArray *d = g_byte_array_new();
	put_s(d, 1, name);
	put_u(d, 2, id);
	return d;
}

static GByteArray *arg(const char *k, const char *v)
{
	GByteArray *a = g_byte_array_new();
	put_s(a, 1, k);
	put_s(a, 2, v);
	return a;
}

static GByteArray *event(uint32_t dev, uint32_t res, const char *name, uint64_t ts,
			 uint64_t dur)
{
	GByteArray *e = g_byte_array_new();
	put_u(e, 1, dev);
	put_u(e, 2, res);
	put_s(e, 3, name);
	put_unknown(e);
	put_u(e, 9, ts);
	put_u(e, 10, dur);
	return e;
}

/* Two devices, the first with two resources (key 7 names resource_id 70),
 * the second with none; three events, the first with two args. */
static GByteArray *sample(size_t *event_ends, size_t *n_ends)
{
	GByteArray *o = g_byte_array_new();
	GByteArray *d = device("/host:CPU", 1);
	put_msg(d, 3, entry(7, resource("tf_Compute", 70)));
	put_unknown(d);
	put_msg(d, 3, entry(8, resource("python3", 8)));
	put_msg(o, 1, entry(1, d));
	put_unknown(o);
	put_msg(o, 1, entry(2, device("/device:GPU:0", 2)));
	GByteArray *e = event(1, 7, "dense/MatMul:MatMul", 1234567891, 2000);
	put_msg(e, 11, arg("correlation_id", "42"));
	put_msg(e, 11, arg("tf_op", "dense/MatMul:MatMul"));
	put_msg(o, 4, e);
	*n_ends = 0;
	event_ends[(*n_ends)++] = o->len;
	put_msg(o, 4, event(2, 13, "volta_sgemm", 1240000000, 500));
	event_ends[(*n_ends)++] = o->len;
	put_msg(o, 4, event(1, 8, "train_function", 1000000000, 900000000));
	event_ends[(*n_ends)++] = o->len;
	return o;
}

static bool span_is(const uint8_t *p, size_t n, const char *s)
{
	return n == strlen(s) && memcmp(p, s, n) == 0;
}

/* ---- decoding ------------------------------------------------------------ */

/* Proves: every field of every message is read where it lies, unknown
 * fields of every wire type skipped at every level, args counted and read
 * back; resources keep their map key beside their resource_id. */
static void test_read_fields(void **state)
{
	(void)state;
	size_t ends[8], n_ends;
	GByteArray *b = sample(ends, &n_ends);
	tl_arena *arena = tl_arena_new();
	tl_tf2trace t;
	tl_error err = {{0}};
	assert_int_equal(tl_tf2trace_read(&t, b->data, b->len, arena, &err), 0);
	assert_int_equal(t.n_dev, 2);
	assert_int_equal(t.dev[0].key, 1);
	assert_int_equal(t.dev[0].id, 1);
	assert_string_equal(t.dev[0].name, "/host:CPU");
	assert_int_equal(t.dev[0].n_res, 2);
	assert_int_equal(t.dev[0].res[0].key, 7);
	assert_int_equal(t.dev[0].res[0].id, 70);
	assert_string_equal(t.dev[0].res[0].name, "tf_Compute");
	assert_string_equal(t.dev[0].res[1].name, "python3");
	assert_string_equal(t.dev[1].name, "/device:GPU:0");
	assert_int_equal(t.dev[1].n_res, 0);
	assert_int_equal(t.n_ev, 3);
	assert_int_equal(t.n_fields_ev, 3);
	const tl_tf2trace_event *e = &t.ev[0];
	assert_int_equal(e->device_id, 1);
	assert_int_equal(e->resource_id, 7);
	assert_true(span_is(e->name, e->name_len, "dense/MatMul:MatMul"));
	assert_int_equal(e->timestamp_ps, 1234567891);
	assert_int_equal(e->duration_ps, 2000);
	assert_int_equal(e->n_args, 2);
	tl_tf2trace_arg a;
	tl_tf2trace_arg_at(e, 1, &a);
	assert_true(span_is(a.key, a.key_len, "tf_op"));
	assert_true(span_is(a.value, a.value_len, "dense/MatMul:MatMul"));
	tl_tf2trace_arg_at(e, 0, &a);
	assert_true(span_is(a.value, a.value_len, "42"));
	assert_int_equal(t.ev[2].duration_ps, 900000000);
	assert_int_equal(t.c.bad_events + t.c.bad_devices, 0);
	assert_false(t.c.cut);
	tl_arena_free(arena);
	g_byte_array_unref(b);
}

/* Proves: a map key written twice keeps the last value (devices and
 * resources), in the place of the first, as protobuf's parsers do. */
static void test_map_last_wins(void **state)
{
	(void)state;
	GByteArray *o = g_byte_array_new();
	GByteArray *d = device("old", 1);
	put_msg(d, 3, entry(5, resource("first", 5)));
	put_msg(d, 3, entry(5, resource("second", 5)));
	put_msg(o, 1, entry(1, d));
	put_msg(o, 1, entry(2, device("other", 2)));
	put_msg(o, 1, entry(1, device("new", 1)));
	put_msg(o, 4, event(1, 5, "x", 1, 1));
	tl_arena *arena = tl_arena_new();
	tl_tf2trace t;
	tl_error err = {{0}};
	assert_int_equal(tl_tf2trace_read(&t, o->data, o->len, arena, &err), 0);
	assert_int_equal(t.n_dev, 2);
	assert_string_equal(t.dev[0].name, "new");
	assert_int_equal(t.dev[0].n_res, 0);
	assert_string_equal(t.dev[1].name, "other");
	g_byte_array_set_size(o, 0);
	d = device("d", 1);
	put_msg(d, 3, entry(5, resource("first", 5)));
	put_msg(d, 3, entry(6, resource("six", 6)));
	put_msg(d, 3, entry(5, resource("second", 5)));
	put_msg(o, 1, entry(1, d));
	assert_int_equal(tl_tf2trace_read(&t, o->data, o->len, arena, &err), 0);
	assert_int_equal(t.dev[0].n_res, 2);
	assert_string_equal(t.dev[0].res[0].name, "second");
	assert_string_equal(t.dev[0].res[1].name, "six");
	tl_arena_free(arena);
	g_byte_array_unref(o);
}

/* Proves: an event whose field has the wrong wire type, or holds a group,
 * or an arg that does not decode, costs that event alone; a device entry
 * that does not decode is counted and left out, its neighbours kept. */
static void test_damage(void **state)
{
	(void)state;
	GByteArray *o = g_byte_array_new();
	put_msg(o, 1, entry(1, device("good", 1)));
	GByteArray *bad = device("bad", 2);
	put_s(bad, 2, "device_id as text");
	put_msg(o, 1, entry(2, bad));
	put_msg(o, 4, event(1, 1, "kept", 10, 1));
	GByteArray *e = event(1, 1, "wrong type", 20, 1);
	put_s(e, 9, "a time as text");
	put_msg(o, 4, e);
	e = event(1, 1, "group", 30, 1);
	tl_pbwire_put_tag(e, 50, 3);
	put_msg(o, 4, e);
	e = event(1, 1, "bad arg", 40, 1);
	GByteArray *a = g_byte_array_new();
	put_u(a, 1, 5); /* a key as a number */
	put_msg(e, 11, a);
	put_msg(o, 4, e);
	put_u(o, 4, 3); /* a trace event as a varint */
	put_msg(o, 4, event(1, 1, "kept too", 50, 1));
	tl_arena *arena = tl_arena_new();
	tl_tf2trace t;
	tl_error err = {{0}};
	assert_int_equal(tl_tf2trace_read(&t, o->data, o->len, arena, &err), 0);
	assert_int_equal(t.n_dev, 1);
	assert_int_equal(t.c.bad_devices, 1);
	assert_int_equal(t.n_ev, 2);
	assert_int_equal(t.n_fields_ev, 6);
	assert_int_equal(t.c.bad_events, 4);
	assert_true(span_is(t.ev[1].name, t.ev[1].name_len, "kept too"));
	assert_false(t.c.cut);
	tl_arena_free(arena);
	g_byte_array_unref(o);
}

/* Proves: a file cut at any byte keeps exactly its whole events before the
 * cut, says where the framing broke, and never reads past the end (the
 * copy handed over is exactly the prefix, so ASan sees any overread). */
static void test_cut_every_byte(void **state)
{
	(void)state;
	size_t ends[8], n_ends;
	GByteArray *b = sample(ends, &n_ends);
	for (size_t n = 1; n < b->len; n++) {
		uint8_t *copy = g_memdup2(b->data, n);
		tl_arena *arena = tl_arena_new();
		tl_tf2trace t;
		tl_error err = {{0}};
		int rc = tl_tf2trace_read(&t, copy, n, arena, &err);
		size_t whole = 0;
		bool boundary = false;
		for (size_t k = 0; k < n_ends; k++) {
			whole += ends[k] <= n;
			boundary |= ends[k] == n;
		}
		if (rc < 0) {
			/* only a cut inside the first field leaves nothing that frames */
			assert_int_equal(whole, 0);
			assert_non_null(strstr(err.msg, "byte 0"));
		} else {
			assert_int_equal(t.n_ev, whole);
			if (boundary)
				assert_false(t.c.cut);
			if (t.c.cut)
				assert_true(t.c.cut_at < n);
		}
		tl_arena_free(arena);
		g_free(copy);
	}
	g_byte_array_unref(b);
}

/* Proves: garbage is an error or counted damage, never a crash: every
 * one-byte change of a good file, and bytes that frame as nothing. */
static void test_garbage(void **state)
{
	(void)state;
	size_t ends[8], n_ends;
	GByteArray *b = sample(ends, &n_ends);
	for (size_t i = 0; i < b->len; i++) {
		for (int v = 0; v < 256; v += 51) {
			uint8_t *copy = g_memdup2(b->data, b->len);
			copy[i] = (uint8_t)(copy[i] ^ (v | 1));
			tl_arena *arena = tl_arena_new();
			const uint8_t *xs;
			size_t xs_len;
			tl_error err = {{0}};
			tl_warn_set_strict(false);
			(void)tl_tf2trace_to_xspace(copy, b->len, "g.trace", arena, &xs, &xs_len,
						    &err);
			tl_arena_free(arena);
			g_free(copy);
		}
	}
	tl_warn_clear();
	tl_arena *arena = tl_arena_new();
	tl_tf2trace t;
	tl_error err = {{0}};
	assert_int_equal(tl_tf2trace_read(&t, (const uint8_t *)"\xff\xff", 2, arena, &err), -1);
	assert_string_equal(err.msg, "no protobuf field frames at byte 0");
	assert_int_equal(tl_tf2trace_read(&t, (const uint8_t *)"\x0f", 1, arena, &err), -1);
	tl_arena_free(arena);
	g_byte_array_unref(b);
}

/* ---- sniffing -------------------------------------------------------------- */

/* Proves: a Trace is told by its first field, a device entry or an event
 * holding a number; an XSpace, a RunMetadata, a StepStats, an event of a
 * name alone (what RunMetadata's function_graphs can look like) and text
 * are not. */
static void test_sniff(void **state)
{
	(void)state;
	size_t ends[8], n_ends;
	GByteArray *b = sample(ends, &n_ends);
	/* unknown fields in its first device and at the top: not by the
	 * sniff (--input-format tf2-trace reads it: test_read_fields) */
	assert_false(tl_tf2trace_sniff(b->data, b->len));
	GByteArray *later = g_byte_array_new();
	GByteArray *ld = device("/host:CPU", 0);
	put_u(ld, 4, 1); /* a Device field of some later version */
	put_msg(later, 1, entry(0, ld));
	for (int i = 0; i < 3; i++) {
		GByteArray *e = g_byte_array_new();
		put_u(e, 2, 3);
		put_s(e, 3, "MatMul");
		put_u(e, 9, 1000u * (unsigned)(i + 1));
		put_u(e, 10, 500);
		put_msg(later, 4, e);
	}
	assert_false(tl_tf2trace_sniff(later->data, later->len));
	assert_true(tl_format_is_tf2trace(later->data, later->len)); /* the walk names it */
	g_byte_array_unref(later);
	GByteArray *plain = g_byte_array_new();
	put_msg(plain, 1, entry(0, device("/host:CPU", 0)));
	assert_false(tl_tf2trace_sniff(plain->data, plain->len)); /* no event */
	put_msg(plain, 4, event(0, 0, "x", 5, 5));
	size_t one = plain->len;
	put_msg(plain, 4, event(0, 0, "y", 6, 5));
	assert_true(tl_tf2trace_sniff(plain->data, plain->len));
	assert_true(tl_tf2trace_sniff(plain->data, one + 3)); /* cut after an event */
	put_u(plain, 5, 1);
	assert_false(tl_tf2trace_sniff(plain->data, plain->len)); /* a field no Trace has */
	g_byte_array_unref(plain);
	GByteArray *ev_first = g_byte_array_new();
	put_msg(ev_first, 4, event(1, 1, "x", 5, 5));
	assert_true(tl_tf2trace_sniff(ev_first->data, ev_first->len));
	GByteArray *name_only = g_byte_array_new();
	GByteArray *e = g_byte_array_new();
	put_s(e, 3, "x");
	put_msg(name_only, 4, e);
	assert_false(tl_tf2trace_sniff(name_only->data, name_only->len));
	const char *files[] = {"real/AMD-AGI_TraceLens_jaxconv08-mi300.xplane.pb",
			       "real/tfprof_testdata_run_meta_cpu_tf12.pb"};
	for (size_t i = 0; i < G_N_ELEMENTS(files); i++) {
		char *path = td_data(files[i]);
		GBytes *x = td_load(path);
		gsize n;
		const uint8_t *d = g_bytes_get_data(x, &n);
		assert_false(tl_tf2trace_sniff(d, n));
		g_bytes_unref(x);
		g_free(path);
	}
	assert_false(tl_tf2trace_sniff((const uint8_t *)"step_stats {", 12));
	assert_false(tl_tf2trace_sniff((const uint8_t *)"", 0));
	/* a step_stats first (RunMetadata): field 1 holds a message, no key */
	GByteArray *rm = g_byte_array_new();
	GByteArray *ss = g_byte_array_new();
	GByteArray *ds = g_byte_array_new();
	put_s(ds, 1, "/job:localhost/replica:0/task:0/device:CPU:0");
	put_msg(ss, 1, ds);
	put_msg(rm, 1, ss);
	assert_false(tl_tf2trace_sniff(rm->data, rm->len));
	g_byte_array_unref(rm);
	g_byte_array_unref(name_only);
	g_byte_array_unref(ev_first);
	g_byte_array_unref(b);
}

/* ---- the XSpace ------------------------------------------------------------ */

static const Tensorflow__Profiler__XLine *
line_named(const Tensorflow__Profiler__XPlane *p, const char *name)
{
	for (size_t i = 0; i < p->n_lines; i++)
		if (strcmp(p->lines[i]->name, name) == 0)
			return p->lines[i];
	return NULL;
}

static const char *md_name(const Tensorflow__Profiler__XPlane *p, int64_t id, bool event)
{
	size_t n = event ? p->n_event_metadata : p->n_stat_metadata;
	for (size_t i = 0; i < n; i++) {
		if (event && p->event_metadata[i]->key == id)
			return p->event_metadata[i]->value->name;
		if (!event && p->stat_metadata[i]->key == id)
			return p->stat_metadata[i]->value->name;
	}
	return NULL;
}

/* Proves: the XSpace (decoded by protobuf-c, not by us) holds a plane per
 * device in the file's order and a line per resource (its map key the
 * line's id), each event at its picosecond (timestamp_ns the trace's zero,
 * offset_ps its timestamp_ps), its args as stats (an
 * integer's text an int64, the rest strings), the events of a resource no
 * device lists on a line of their own, and the hostname of "HOST.trace". */
static void test_to_xspace(void **state)
{
	(void)state;
	size_t ends[8], n_ends;
	GByteArray *b = sample(ends, &n_ends);
	tl_arena *arena = tl_arena_new();
	const uint8_t *xs = NULL;
	size_t xs_len = 0;
	tl_error err = {{0}};
	assert_int_equal(tl_tf2trace_to_xspace(b->data, b->len, "logs/myhost.trace", arena, &xs,
					       &xs_len, &err),
			 0);
	Tensorflow__Profiler__XSpace *x = (Tensorflow__Profiler__XSpace *)protobuf_c_message_unpack(
	    &tensorflow__profiler__xspace__descriptor, NULL, xs_len, xs);
	assert_non_null(x);
	assert_int_equal(x->n_hostnames, 1);
	assert_string_equal(x->hostnames[0], "myhost");
	assert_int_equal(x->n_planes, 2);
	const Tensorflow__Profiler__XPlane *host = x->planes[0], *gpu = x->planes[1];
	assert_string_equal(host->name, "/host:CPU");
	assert_int_equal(host->id, 1);
	assert_int_equal(host->n_lines, 2);
	const Tensorflow__Profiler__XLine *l = line_named(host, "tf_Compute");
	assert_non_null(l);
	assert_int_equal(l->id, 7);
	assert_int_equal(l->timestamp_ns, 0);
	assert_int_equal(l->n_events, 1);
	const Tensorflow__Profiler__XEvent *e = l->events[0];
	assert_int_equal(e->data_case, TENSORFLOW__PROFILER__XEVENT__DATA_OFFSET_PS);
	assert_int_equal(e->offset_ps, 1234567891);
	assert_int_equal(e->duration_ps, 2000);
	assert_string_equal(md_name(host, e->metadata_id, true), "dense/MatMul:MatMul");
	assert_int_equal(e->n_stats, 2);
	assert_string_equal(md_name(host, e->stats[0]->metadata_id, false), "correlation_id");
	assert_int_equal(e->stats[0]->value_case, TENSORFLOW__PROFILER__XSTAT__VALUE_INT64_VALUE);
	assert_int_equal(e->stats[0]->int64_value, 42);
	assert_string_equal(md_name(host, e->stats[1]->metadata_id, false), "tf_op");
	assert_int_equal(e->stats[1]->value_case, TENSORFLOW__PROFILER__XSTAT__VALUE_STR_VALUE);
	assert_string_equal(e->stats[1]->str_value, "dense/MatMul:MatMul");
	l = line_named(host, "python3");
	assert_int_equal(l->timestamp_ns, 0);
	assert_int_equal(l->events[0]->offset_ps, 1000000000);
	assert_int_equal(l->events[0]->duration_ps, 900000000);
	/* resource 13 of the GPU is listed by no device: a line by its id */
	assert_string_equal(gpu->name, "/device:GPU:0");
	assert_int_equal(gpu->n_lines, 1);
	assert_int_equal(gpu->lines[0]->id, 13);
	assert_string_equal(gpu->lines[0]->name, "");
	assert_int_equal(gpu->lines[0]->timestamp_ns, 0);
	assert_int_equal(gpu->lines[0]->events[0]->offset_ps, 1240000000);
	protobuf_c_message_free_unpacked(&x->base, NULL);
	tl_arena_free(arena);
	g_byte_array_unref(b);
}

/* Proves: integer texts become int64 stats only as TF printed them
 * (no '+', no leading zero, no "-0", within int64), the rest strings. */
static void test_int_args(void **state)
{
	(void)state;
	const struct {
		const char *text;
		bool is_int;
		int64_t v;
	} cases[] = {{"0", true, 0},
		     {"-5", true, -5},
		     {"9223372036854775807", true, INT64_MAX},
		     {"-9223372036854775808", true, INT64_MIN},
		     {"9223372036854775808", false, 0},
		     {"007", false, 0},
		     {"-0", false, 0},
		     {"+1", false, 0},
		     {"", false, 0},
		     {"1.5", false, 0},
		     {"12a", false, 0}};
	for (size_t i = 0; i < G_N_ELEMENTS(cases); i++) {
		GByteArray *o = g_byte_array_new();
		GByteArray *e = event(1, 1, "x", 0, 1);
		put_msg(e, 11, arg("v", cases[i].text));
		put_msg(o, 4, e);
		tl_arena *arena = tl_arena_new();
		const uint8_t *xs;
		size_t xs_len;
		tl_error err = {{0}};
		assert_int_equal(
		    tl_tf2trace_to_xspace(o->data, o->len, "x", arena, &xs, &xs_len, &err), 0);
		Tensorflow__Profiler__XSpace *x =
		    (Tensorflow__Profiler__XSpace *)protobuf_c_message_unpack(
			&tensorflow__profiler__xspace__descriptor, NULL, xs_len, xs);
		assert_non_null(x);
		assert_int_equal(x->n_hostnames, 0);
		assert_string_equal(x->planes[0]->name, "/device:unknown:1");
		const Tensorflow__Profiler__XStat *st = x->planes[0]->lines[0]->events[0]->stats[0];
		if (cases[i].is_int) {
			assert_int_equal(st->value_case,
					 TENSORFLOW__PROFILER__XSTAT__VALUE_INT64_VALUE);
			assert_true(st->int64_value == cases[i].v);
		} else {
			assert_int_equal(st->value_case,
					 TENSORFLOW__PROFILER__XSTAT__VALUE_STR_VALUE);
			assert_string_equal(st->str_value, cases[i].text);
		}
		protobuf_c_message_free_unpacked(&x->base, NULL);
		tl_arena_free(arena);
		g_byte_array_unref(o);
	}
}

/* Proves: a file with nothing usable is an error naming it a TF 2.0
 * profiler trace and what is wrong; a time past int64 picoseconds costs its
 * event, a warning (an error under --strict). */
static void test_nothing_usable(void **state)
{
	(void)state;
	tl_arena *arena = tl_arena_new();
	const uint8_t *xs;
	size_t xs_len;
	tl_error err = {{0}};
	GByteArray *o = g_byte_array_new();
	put_msg(o, 1, entry(1, device("/host:CPU", 1)));
	put_msg(o, 1, entry(2, device("/device:GPU:0", 2)));
	assert_int_equal(tl_tf2trace_to_xspace(o->data, o->len, "a", arena, &xs, &xs_len, &err),
			 -1);
	assert_string_equal(err.msg, "a TF 2.0 profiler trace (tensorflow.profiler.Trace) with no "
				     "trace events (2 devices)");
	size_t devices_end = o->len;
	put_u(o, 4, 1);
	assert_int_equal(tl_tf2trace_to_xspace(o->data, o->len, "a", arena, &xs, &xs_len, &err),
			 -1);
	assert_string_equal(err.msg, "a TF 2.0 profiler trace (tensorflow.profiler.Trace) whose 1 "
				     "trace events all fail to decode");
	size_t at = o->len;
	put_msg(o, 4, event(1, 1, "x", 5, 5));
	assert_int_equal(tl_tf2trace_to_xspace(o->data, o->len - 3, "a", arena, &xs, &xs_len, &err),
			 -1);
	assert_non_null(strstr(err.msg, "all fail to decode (and cut short)"));
	(void)at;
	g_byte_array_set_size(o, devices_end);
	put_msg(o, 4, event(1, 1, "x", 5, UINT64_MAX));
	assert_int_equal(tl_tf2trace_to_xspace(o->data, o->len, "a", arena, &xs, &xs_len, &err),
			 -1);
	assert_string_equal(err.msg, "a TF 2.0 profiler trace (tensorflow.profiler.Trace) whose 1 "
				     "trace events all last more than 2^62 ps (53 days)");
	put_msg(o, 4, event(1, 1, "ok", 5, 5));
	tl_warn_set_strict(true);
	assert_int_equal(tl_tf2trace_to_xspace(o->data, o->len, "a", arena, &xs, &xs_len, &err),
			 -1);
	assert_non_null(strstr(err.msg, "1 trace events lasting more than 2^62 ps (53 days)"));
	tl_warn_set_strict(false);
	assert_int_equal(tl_tf2trace_to_xspace(o->data, o->len, "a", arena, &xs, &xs_len, &err),
			 0);
	assert_int_equal(tl_warn_damage_count(), 1);
	tl_warn_clear();
	assert_int_equal(tl_tf2trace_to_xspace((const uint8_t *)"\x07", 1, "a", arena, &xs,
					       &xs_len, &err),
			 -1);
	assert_string_equal(err.msg, "a TF 2.0 profiler trace (tensorflow.profiler.Trace) that does "
				     "not decode: no protobuf field frames at byte 0");
	g_byte_array_unref(o);
	tl_arena_free(arena);
}

/* Proves: a trace is told as written from a RunMetadata (TF 2.0, 2.1) by
 * a StepStats device name or that converter's arguments, and is then
 * rendered as the RunMetadata: node_name from "long name", timeline_label
 * "label@@annotation", times to the ns, thread names less TF's "0". */
static void test_from_runmeta(void **state)
{
	(void)state;
	const char *names[] = {"/job:localhost/replica:0/task:0/device:CPU:0",
			       "/device:GPU:0/stream:7", "/gpu:0/memcpy", "/device:GPU:0/sync"};
	tl_arena *arena = tl_arena_new();
	tl_tf2trace t;
	tl_error err = {{0}};
	for (size_t i = 0; i < G_N_ELEMENTS(names); i++) {
		GByteArray *o = g_byte_array_new();
		put_msg(o, 1, entry(0, device(names[i], 0)));
		put_msg(o, 4, event(0, 0, "x", 1, 1));
		assert_int_equal(tl_tf2trace_read(&t, o->data, o->len, arena, &err), 0);
		assert_true(tl_tf2trace_from_runmeta(&t));
		g_byte_array_unref(o);
	}
	GByteArray *o = g_byte_array_new();
	GByteArray *d = device("/host:CPU", 0);
	put_msg(d, 3, entry(0, resource("0", 0)));
	put_msg(d, 3, entry(5, resource("tf_Compute", 5)));
	put_msg(o, 1, entry(0, d));
	put_msg(o, 4, event(0, 5, "MatMul", 1234567, 1000000));
	assert_int_equal(tl_tf2trace_read(&t, o->data, o->len, arena, &err), 0);
	assert_false(tl_tf2trace_from_runmeta(&t)); /* an XSpace's */
	GByteArray *e = event(0, 5, "MatMul", 2000000, 3000500);
	put_msg(e, 11, arg("long name", "dense/MatMul:MatMul"));
	put_msg(e, 11, arg("label", "kernel"));
	put_msg(e, 11, arg("annotation", "dense/MatMul:MatMul"));
	put_msg(o, 4, e);
	assert_int_equal(tl_tf2trace_read(&t, o->data, o->len, arena, &err), 0);
	assert_true(tl_tf2trace_from_runmeta(&t));
	tl_tf2trace_run run;
	assert_int_equal(tl_tf2trace_render(o->data, o->len, "r.trace", arena, &run, &err), 0);
	assert_null(run.xspace);
	assert_non_null(run.meta);
	const Tensorflow__StepStats *ss = run.meta->step_stats;
	assert_int_equal(ss->n_dev_stats, 1);
	const Tensorflow__DeviceStepStats *ds = ss->dev_stats[0];
	assert_string_equal(ds->device, "/host:CPU");
	assert_int_equal(ds->n_thread_names, 1);
	assert_int_equal(ds->thread_names[0]->key, 5);
	assert_string_equal(ds->thread_names[0]->value, "tf_Compute");
	assert_int_equal(ds->n_node_stats, 2);
	const Tensorflow__NodeExecStats *a = ds->node_stats[0], *b = ds->node_stats[1];
	assert_string_equal(a->node_name, "MatMul");
	assert_string_equal(a->timeline_label, "");
	assert_int_equal(a->all_start_nanos, 1234);
	assert_int_equal(a->all_start_micros, 1);
	assert_int_equal(a->all_end_rel_nanos, 1000); /* 1234.567 to 2234.567 ns: 1234 to 2234 */
	assert_int_equal(a->thread_id, 5);
	assert_string_equal(b->node_name, "dense/MatMul:MatMul");
	assert_string_equal(b->timeline_label, "kernel@@dense/MatMul:MatMul");
	assert_int_equal(b->all_start_micros, 2);
	assert_int_equal(b->all_end_rel_micros, 3); /* 2 to 5.0005 us */
	assert_int_equal(b->all_end_rel_nanos, 3000);
	g_byte_array_unref(o);
	tl_arena_free(arena);
}

/* Proves: a resource whose events lie past 2^62 ps is written as a line
 * per span of 2^62 ps (an XEvent's offset is an int64), each of the
 * resource's id and name, timed from its span's start; the picoseconds
 * stay exact. */
static void test_windows(void **state)
{
	(void)state;
	GByteArray *o = g_byte_array_new();
	GByteArray *d = device("/host:CPU", 1);
	put_msg(d, 3, entry(3, resource("t", 3)));
	put_msg(o, 1, entry(1, d));
	put_msg(o, 4, event(1, 3, "a", 5, 1));
	put_msg(o, 4, event(1, 3, "b", UINT64_MAX - 10, 10));
	tl_arena *arena = tl_arena_new();
	const uint8_t *xs;
	size_t xs_len;
	tl_error err = {{0}};
	assert_int_equal(tl_tf2trace_to_xspace(o->data, o->len, "w", arena, &xs, &xs_len, &err), 0);
	Tensorflow__Profiler__XSpace *x = (Tensorflow__Profiler__XSpace *)protobuf_c_message_unpack(
	    &tensorflow__profiler__xspace__descriptor, NULL, xs_len, xs);
	assert_non_null(x);
	const Tensorflow__Profiler__XPlane *p = x->planes[0];
	assert_int_equal(p->n_lines, 2);
	assert_int_equal(p->lines[0]->id, 3);
	assert_int_equal(p->lines[1]->id, 3);
	assert_string_equal(p->lines[1]->name, "t");
	uint64_t base_ns = (UINT64_C(3) << 62) / 1000;
	assert_true((uint64_t)p->lines[1]->timestamp_ns == base_ns);
	assert_true((uint64_t)p->lines[1]->events[0]->offset_ps ==
		    UINT64_MAX - 10 - base_ns * 1000);
	assert_int_equal(p->lines[1]->events[0]->duration_ps, 10);
	protobuf_c_message_free_unpacked(&x->base, NULL);
	tl_arena_free(arena);
	g_byte_array_unref(o);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_read_fields),	   cmocka_unit_test(test_map_last_wins),
	    cmocka_unit_test(test_damage),	   cmocka_unit_test(test_cut_every_byte),
	    cmocka_unit_test(test_garbage),	   cmocka_unit_test(test_sniff),
	    cmocka_unit_test(test_to_xspace),	   cmocka_unit_test(test_int_args),
	    cmocka_unit_test(test_nothing_usable), cmocka_unit_test(test_from_runmeta),
	    cmocka_unit_test(test_windows),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
