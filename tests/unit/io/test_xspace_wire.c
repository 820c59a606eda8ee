/* Unit tests for xspace_wire.c: varints of every length read where they
 * lie (the eight-bytes-at-once path and the byte-by-byte one, at the end
 * of an event too), an event's stats decoded in the walk that reads it as
 * tl_xspace_wire_next_stat reads them, events counted by the line walk,
 * and damage refused. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include "io/pbwire.h"
#include "io/xspace_wire_internal.h"

#include <glib.h>
#include <string.h>

/* XStat: metadata_id 1, then a uint64 value (field 3). */
static void put_stat_u64(GByteArray *ev, int64_t md, uint64_t v)
{
	size_t m = tl_pbwire_begin_len(ev, 4);
	tl_pbwire_put_tag(ev, 1, 0);
	tl_pbwire_put_varint(ev, (uint64_t)md);
	tl_pbwire_put_tag(ev, 3, 0);
	tl_pbwire_put_varint(ev, v);
	tl_pbwire_end_len(ev, m);
}

static void put_stat_str(GByteArray *ev, int64_t md, const char *s)
{
	size_t m = tl_pbwire_begin_len(ev, 4);
	tl_pbwire_put_tag(ev, 1, 0);
	tl_pbwire_put_varint(ev, (uint64_t)md);
	tl_pbwire_put_bytes(ev, 5, s, strlen(s));
	tl_pbwire_end_len(ev, m);
}

/* An XSpace of one plane and one line holding the events `events` (each
 * an XEvent's bytes). */
static GByteArray *space_of(GPtrArray *events)
{
	GByteArray *b = g_byte_array_new();
	size_t plane = tl_pbwire_begin_len(b, 1);
	tl_pbwire_put_bytes(b, 2, "/host:CPU", 9);
	size_t line = tl_pbwire_begin_len(b, 3);
	tl_pbwire_put_tag(b, 1, 0);
	tl_pbwire_put_varint(b, 7);
	for (guint i = 0; i < events->len; i++) {
		GByteArray *e = g_ptr_array_index(events, i);
		tl_pbwire_put_bytes(b, 4, e->data, e->len);
	}
	tl_pbwire_end_len(b, line);
	tl_pbwire_end_len(b, plane);
	return b;
}

static GByteArray *event_of(uint64_t md, uint64_t offset, uint64_t duration)
{
	GByteArray *e = g_byte_array_new();
	tl_pbwire_put_tag(e, 1, 0);
	tl_pbwire_put_varint(e, md);
	tl_pbwire_put_tag(e, 2, 0);
	tl_pbwire_put_varint(e, offset);
	tl_pbwire_put_tag(e, 3, 0);
	tl_pbwire_put_varint(e, duration);
	return e;
}

static void free_events(GPtrArray *events)
{
	for (guint i = 0; i < events->len; i++)
		g_byte_array_free(g_ptr_array_index(events, i), TRUE);
	g_ptr_array_free(events, TRUE);
}

/* Values at every varint length's edges, 1 to 10 bytes. */
static const uint64_t edges[] = {
    0,
    1,
    127,
    128,
    16383,
    16384,
    (UINT64_C(1) << 21) - 1,
    UINT64_C(1) << 21,
    (UINT64_C(1) << 28) - 1,
    UINT64_C(1) << 28,
    UINT64_C(1) << 35,
    (UINT64_C(1) << 42) + 12345,
    (UINT64_C(1) << 49) - 1,
    UINT64_C(1) << 49,
    (UINT64_C(1) << 56) - 1,
    UINT64_C(1) << 56,
    UINT64_C(0x0123456789abcdef),
    UINT64_C(1) << 63,
    UINT64_MAX,
};

/* Each value as an offset (followed by a duration: the 8-byte path) and as
 * a duration (the event's last field: fewer than 8 bytes left, the
 * byte-by-byte path, for the shorter ones), and as a stat's value. */
static void test_varint_lengths(void **state)
{
	(void)state;
	size_t n = G_N_ELEMENTS(edges);
	GPtrArray *events = g_ptr_array_new();
	for (size_t i = 0; i < n; i++) {
		GByteArray *e = event_of(i + 1, edges[i], edges[n - 1 - i]);
		put_stat_u64(e, 2, edges[i]);
		g_ptr_array_add(events, e);
	}
	GByteArray *b = space_of(events);
	tl_arena *arena = tl_arena_new();
	tl_xspace_wire w;
	assert_int_equal(tl_xspace_wire_read(&w, b->data, b->len, arena), 0);
	assert_int_equal(w.n_planes, 1);
	assert_int_equal(w.planes[0].n_lines, 1);
	const tl_xspace_wire_line *l = &w.planes[0].lines[0];
	assert_int_equal(l->n_events, n);
	size_t pos = 0;
	tl_xspace_wire_event ev;
	tl_xspace_wire_stats st;
	for (size_t i = 0; i < n; i++) {
		assert_int_equal(tl_xspace_wire_next_event_stats(l, &pos, &ev, &st), 1);
		assert_int_equal(ev.metadata_id, (int64_t)(i + 1));
		assert_true((uint64_t)ev.offset_ps == edges[i]);
		assert_true((uint64_t)ev.duration_ps == edges[n - 1 - i]);
		assert_int_equal(st.n, 1);
		assert_true(st.all);
		assert_false(st.bad);
		assert_int_equal(st.st[0].metadata_id, 2);
		assert_int_equal(st.st[0].kind, TL_XSTAT_UINT64);
		assert_true(st.st[0].u == edges[i]);
	}
	assert_int_equal(tl_xspace_wire_next_event_stats(l, &pos, &ev, &st), 0);
	tl_arena_free(arena);
	g_byte_array_free(b, TRUE);
	free_events(events);
}

/* The stats decoded with the event are what tl_xspace_wire_next_stat
 * reads; past TL_XSPACE_WIRE_STATS the rest are left to it. */
static void test_stats_in_walk(void **state)
{
	(void)state;
	GPtrArray *events = g_ptr_array_new();
	GByteArray *few = event_of(1, 10, 20);
	put_stat_str(few, 3, "dense/MatMul:MatMul");
	put_stat_u64(few, 4, 99);
	g_ptr_array_add(events, few);
	GByteArray *many = event_of(2, 30, 40);
	for (int k = 0; k < TL_XSPACE_WIRE_STATS + 3; k++)
		put_stat_u64(many, 10 + k, (uint64_t)k << 30);
	g_ptr_array_add(events, many);
	GByteArray *b = space_of(events);
	tl_arena *arena = tl_arena_new();
	tl_xspace_wire w;
	assert_int_equal(tl_xspace_wire_read(&w, b->data, b->len, arena), 0);
	const tl_xspace_wire_line *l = &w.planes[0].lines[0];
	size_t pos = 0;
	tl_xspace_wire_event ev;
	tl_xspace_wire_stats st;
	for (int e = 0; e < 2; e++) {
		assert_int_equal(tl_xspace_wire_next_event_stats(l, &pos, &ev, &st), 1);
		size_t spos = 0, k = 0;
		tl_xspace_wire_stat one;
		while (tl_xspace_wire_next_stat(&ev, &spos, &one) > 0) {
			if (k < st.n) {
				assert_int_equal(one.metadata_id, st.st[k].metadata_id);
				assert_int_equal(one.kind, st.st[k].kind);
				assert_true(one.u == st.st[k].u);
				assert_int_equal(one.s_len, st.st[k].s_len);
			}
			/* stat k stepped to: the walk's k-th */
			tl_xspace_wire_stat nth;
			assert_true(tl_xspace_wire_stat_nth(&ev, k, &nth));
			assert_int_equal(nth.metadata_id, one.metadata_id);
			assert_true(nth.u == one.u);
			k++;
		}
		tl_xspace_wire_stat past;
		assert_false(tl_xspace_wire_stat_nth(&ev, k, &past));
		if (e == 0) {
			assert_true(st.all);
			assert_int_equal(st.n, 2);
			assert_int_equal(k, 2);
			assert_memory_equal(st.st[0].s, "dense/MatMul:MatMul", 19);
		} else {
			assert_false(st.all);
			assert_int_equal(st.n, TL_XSPACE_WIRE_STATS);
			assert_int_equal(k, TL_XSPACE_WIRE_STATS + 3);
		}
	}
	tl_arena_free(arena);
	g_byte_array_free(b, TRUE);
	free_events(events);
}

/* A stat that is none (a uint64 value field sent as a string) is said in
 * `bad`, the event still read; a varint cut by the event's end refuses the
 * event. */
static void test_damage(void **state)
{
	(void)state;
	GPtrArray *events = g_ptr_array_new();
	GByteArray *bad = event_of(1, 5, 6);
	size_t m = tl_pbwire_begin_len(bad, 4);
	tl_pbwire_put_tag(bad, 1, 0);
	tl_pbwire_put_varint(bad, 2);
	tl_pbwire_put_bytes(bad, 3, "x", 1);
	tl_pbwire_end_len(bad, m);
	g_ptr_array_add(events, bad);
	/* an offset whose varint the event's end cuts after three bytes, the
	 * line going on: the bytes after it (the next event's) would end it */
	GByteArray *cut = g_byte_array_new();
	tl_pbwire_put_tag(cut, 2, 0);
	static const uint8_t open_varint[] = {0x80, 0x80, 0x80};
	g_byte_array_append(cut, open_varint, sizeof open_varint);
	g_ptr_array_add(events, cut);
	GByteArray *after = event_of(3, 1, 2);
	put_stat_u64(after, 2, 5);
	g_ptr_array_add(events, after);
	GByteArray *b = space_of(events);
	tl_arena *arena = tl_arena_new();
	tl_xspace_wire w;
	assert_int_equal(tl_xspace_wire_read(&w, b->data, b->len, arena), 0);
	const tl_xspace_wire_line *l = &w.planes[0].lines[0];
	size_t pos = 0;
	tl_xspace_wire_event ev;
	tl_xspace_wire_stats st;
	assert_int_equal(tl_xspace_wire_next_event_stats(l, &pos, &ev, &st), 1);
	assert_true(st.bad);
	assert_int_equal(st.n, 0);
	size_t spos = 0;
	tl_xspace_wire_stat one;
	assert_int_equal(tl_xspace_wire_next_stat(&ev, &spos, &one), -1);
	/* the cut event costs itself: the walk goes on to the next */
	assert_int_equal(tl_xspace_wire_next_event_stats(l, &pos, &ev, &st), -2);
	assert_int_equal(tl_xspace_wire_next_event_stats(l, &pos, &ev, &st), 1);
	assert_int_equal(ev.metadata_id, 3);
	assert_int_equal(tl_xspace_wire_next_event_stats(l, &pos, &ev, &st), 0);
	tl_arena_free(arena);
	g_byte_array_free(b, TRUE);
	free_events(events);
}

/* A line whose bytes stop framing after two events (an event entry whose
 * length runs past the line): read up to there, `damaged`, the two events
 * counted and read, the walk ending where the count did; a plane whose
 * own fields do not decode is left out, the next one read. */
static void test_line_and_plane_damage(void **state)
{
	(void)state;
	GByteArray *b = g_byte_array_new();
	size_t plane = tl_pbwire_begin_len(b, 1);
	tl_pbwire_put_bytes(b, 2, "/host:CPU", 9);
	size_t line = tl_pbwire_begin_len(b, 3);
	for (int i = 0; i < 2; i++) {
		GByteArray *e = event_of((uint64_t)i + 1, 10, 20);
		tl_pbwire_put_bytes(b, 4, e->data, e->len);
		g_byte_array_free(e, TRUE);
	}
	static const uint8_t overlong[] = {0x22, 0x7f, 0x08, 0x01};
	g_byte_array_append(b, overlong, sizeof overlong);
	tl_pbwire_end_len(b, line);
	tl_pbwire_end_len(b, plane);
	/* a plane whose name is sent as a varint */
	size_t bad = tl_pbwire_begin_len(b, 1);
	tl_pbwire_put_tag(b, 2, 0);
	tl_pbwire_put_varint(b, 7);
	tl_pbwire_end_len(b, bad);
	size_t good = tl_pbwire_begin_len(b, 1);
	tl_pbwire_put_bytes(b, 2, "/device:GPU:0", 13);
	tl_pbwire_end_len(b, good);
	tl_arena *arena = tl_arena_new();
	tl_xspace_wire w;
	assert_int_equal(tl_xspace_wire_read(&w, b->data, b->len, arena), 0);
	assert_int_equal(w.n_planes, 2);
	assert_int_equal(w.bad_planes, 1);
	assert_string_equal(w.planes[1].name, "/device:GPU:0");
	const tl_xspace_wire_line *l = &w.planes[0].lines[0];
	assert_true(l->damaged);
	assert_int_equal(l->n_events, 2);
	size_t pos = 0;
	tl_xspace_wire_event ev;
	tl_xspace_wire_stats st;
	assert_int_equal(tl_xspace_wire_next_event_stats(l, &pos, &ev, &st), 1);
	assert_int_equal(tl_xspace_wire_next_event_stats(l, &pos, &ev, &st), 1);
	assert_int_equal(ev.metadata_id, 2);
	assert_int_equal(tl_xspace_wire_next_event_stats(l, &pos, &ev, &st), 0);
	tl_arena_free(arena);
	g_byte_array_free(b, TRUE);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_varint_lengths),
	    cmocka_unit_test(test_stats_in_walk),
	    cmocka_unit_test(test_damage),
	    cmocka_unit_test(test_line_and_plane_damage),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
