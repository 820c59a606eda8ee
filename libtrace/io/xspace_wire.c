#include "io/xspace_wire_internal.h"

#include "io/pbwire.h"

#include <glib.h>
#include <string.h>

enum { WT_VARINT = 0, WT_FIXED64 = 1, WT_LEN = 2, WT_FIXED32 = 5 };

/* One field of a message. */
typedef struct field {
	uint32_t number;
	unsigned wt;
	uint64_t v;	    /* varint and fixed values */
	const uint8_t *sub; /* WT_LEN: the bytes */
	size_t sub_len;
} field;

/* A varint of two to eight bytes from the eight at d (readable): its value
 * and length, 0 when it is longer. The bytes' low seven bits are gathered
 * by halving steps (pairs into 14 bits, those into 28, those into 56), no
 * loop over the bytes: times in ps take six or seven. Little-endian, as
 * the machines we build for. */
static inline __attribute__((always_inline)) unsigned varint_word(const uint8_t *d, uint64_t *out)
{
	uint64_t w;
	memcpy(&w, d, 8);
	uint64_t stop = ~w & UINT64_C(0x8080808080808080);
	if (stop == 0)
		return 0;
	unsigned len = ((unsigned)__builtin_ctzll(stop) >> 3) + 1;
	uint64_t x = w & UINT64_C(0x7f7f7f7f7f7f7f7f);
	if (len < 8)
		x &= (UINT64_C(1) << (8 * len)) - 1;
	x = ((x & UINT64_C(0x7f007f007f007f00)) >> 1) | (x & UINT64_C(0x007f007f007f007f));
	x = ((x & UINT64_C(0x3fff00003fff0000)) >> 2) | (x & UINT64_C(0x00003fff00003fff));
	x = ((x & UINT64_C(0x0fffffff00000000)) >> 4) | (x & UINT64_C(0x000000000fffffff));
	*out = x;
	return len;
}

/* A varint, as tl_pbwire_varint reads it, inline: the one-byte case (most
 * keys, ids and small values) first, then up to eight bytes at once where
 * eight are left, then byte by byte. */
static inline __attribute__((always_inline)) bool varint(const uint8_t *d, size_t n, size_t *pos,
							 uint64_t *out)
{
	size_t p = *pos;
	if (p < n && d[p] < 0x80) {
		*out = d[p];
		*pos = p + 1;
		return true;
	}
	if (p < n && n - p >= 8) {
		unsigned len = varint_word(d + p, out);
		if (len != 0) {
			*pos = p + len;
			return true;
		}
	}
	uint64_t v = 0;
	for (unsigned i = 0; i < 10 && p < n; i++) {
		uint8_t b = d[p++];
		v |= (uint64_t)(b & 0x7f) << (7 * i);
		if ((b & 0x80) == 0) {
			*pos = p;
			*out = v;
			return true;
		}
	}
	return false;
}

/* varint for a field inside a bigger message: `avail` bytes are readable
 * from d (n of them the field's), so the eight-bytes-at-once read serves
 * near the field's end too (a stat's value is its last bytes). Refuses
 * what varint refuses. */
static inline __attribute__((always_inline)) bool varint_in(const uint8_t *d, size_t n, size_t *pos,
							    uint64_t *out, size_t avail)
{
	size_t p = *pos;
	if (p < n && d[p] < 0x80) {
		*out = d[p];
		*pos = p + 1;
		return true;
	}
	if (p + 1 < n && d[p] >= 0x80 && d[p + 1] < 0x80) { /* ids and lengths to 16383 */
		*out = (uint64_t)(d[p] & 0x7f) | ((uint64_t)d[p + 1] << 7);
		*pos = p + 2;
		return true;
	}
	if (p < n && avail - p >= 8) {
		uint64_t v;
		unsigned len = varint_word(d + p, &v);
		if (len != 0 && len <= n - p) {
			*out = v;
			*pos = p + len;
			return true;
		}
	}
	return varint(d, n, pos, out);
}

/* The next field at *pos: 1, 0 at the end, -1 for bytes that do not frame
 * (groups, wire types 6 and 7, field 0, cut values). */
static inline __attribute__((always_inline)) int next_field(const uint8_t *d, size_t n, size_t *pos,
							    field *f)
{
	if (*pos >= n)
		return 0;
	uint64_t key;
	if (!varint(d, n, pos, &key) || key >> 3 == 0 || key >> 3 > UINT32_MAX)
		return -1;
	f->number = (uint32_t)(key >> 3);
	f->wt = (unsigned)(key & 7);
	switch (f->wt) {
	case WT_VARINT:
		return varint(d, n, pos, &f->v) ? 1 : -1;
	case WT_FIXED64:
		if (n - *pos < 8)
			return -1;
		memcpy(&f->v, d + *pos, 8); /* little-endian, as the machines we build for */
		*pos += 8;
		return 1;
	case WT_LEN:
		if (!varint(d, n, pos, &f->v) || f->v > n - *pos)
			return -1;
		f->sub = d + *pos;
		f->sub_len = (size_t)f->v;
		*pos += (size_t)f->v;
		return 1;
	case WT_FIXED32: {
		if (n - *pos < 4)
			return -1;
		uint32_t x;
		memcpy(&x, d + *pos, 4);
		f->v = x;
		*pos += 4;
		return 1;
	}
	default:
		return -1;
	}
}

/* Whether a known field has its declared wire type (a repeated varint may
 * come packed). */
static bool wt_is(const field *f, unsigned want, bool packable)
{
	return f->wt == want || (packable && f->wt == WT_LEN);
}

static const char *copy_str(const field *f, tl_arena *arena)
{
	return tl_arena_strndup(arena, (const char *)f->sub, f->sub_len);
}

/* ---- stats and events ---------------------------------------------------- */

/* A stat as profilers write it, metadata_id then one value: true when it
 * is one, read into *st (what read_stat would give); false for any other
 * shape, left to read_stat's walk. */
static inline __attribute__((always_inline)) bool
read_stat_usual(const uint8_t *d, size_t n, tl_xspace_wire_stat *st, size_t avail)
{
	size_t pos = 1;
	uint64_t v;
	if (n < 3 || d[0] != ((1u << 3) | WT_VARINT) || !varint_in(d, n, &pos, &v, avail) ||
	    pos >= n)
		return false;
	st->metadata_id = (int64_t)v;
	st->u = 0;
	st->s = NULL;
	st->s_len = 0;
	unsigned key = d[pos++];
	/* tested in the order they are met: numbers and refs, strings, doubles */
	if (key == ((3u << 3) | WT_VARINT) || key == ((4u << 3) | WT_VARINT) ||
	    key == ((7u << 3) | WT_VARINT)) {
		st->kind = (tl_xspace_wire_kind)(key >> 3);
		return varint_in(d, n, &pos, &st->u, avail) && pos == n;
	}
	if (key == ((5u << 3) | WT_LEN) || key == ((6u << 3) | WT_LEN)) {
		if (!varint_in(d, n, &pos, &v, avail) || v != n - pos)
			return false;
		st->kind = (tl_xspace_wire_kind)(key >> 3);
		st->s = d + pos;
		st->s_len = (size_t)v;
		return true;
	}
	if (key == ((2u << 3) | WT_FIXED64)) {
		if (n - pos != 8)
			return false;
		memcpy(&st->u, d + pos, 8);
		st->kind = TL_XSTAT_DOUBLE;
		return true;
	}
	return false;
}

static int read_stat(const uint8_t *d, size_t n, tl_xspace_wire_stat *st)
{
	*st = (tl_xspace_wire_stat){0};
	size_t pos = 0;
	field f = {0};
	int rc;
	while ((rc = next_field(d, n, &pos, &f)) > 0) {
		switch (f.number) {
		case 1:
			if (!wt_is(&f, WT_VARINT, false))
				return -1;
			st->metadata_id = (int64_t)f.v;
			break;
		case 2:
			if (!wt_is(&f, WT_FIXED64, false))
				return -1;
			st->kind = TL_XSTAT_DOUBLE;
			st->u = f.v;
			break;
		case 3:
		case 4:
		case 7:
			if (!wt_is(&f, WT_VARINT, false))
				return -1;
			st->kind = (tl_xspace_wire_kind)f.number;
			st->u = f.v;
			break;
		case 5:
		case 6:
			if (!wt_is(&f, WT_LEN, false))
				return -1;
			st->kind = (tl_xspace_wire_kind)f.number;
			st->s = f.sub;
			st->s_len = f.sub_len;
			break;
		default:
			break;
		}
	}
	return rc;
}

/* One field of an XEvent at d[at..): 0, or -1 for a field of the wrong
 * wire type. */
static int event_field(const uint8_t *d, size_t at, const field *f, tl_xspace_wire_event *ev,
		       const uint8_t *end)
{
	if (f->number == 4) { /* stats: checked as they are read */
		if (!wt_is(f, WT_LEN, false))
			return -1;
		if (ev->raw == end) /* the stats are read from the first on */
			ev->raw = d + at;
		return 0;
	}
	if (f->number > 5)
		return 0;
	if (!wt_is(f, WT_VARINT, false))
		return -1;
	if (f->number == 1)
		ev->metadata_id = (int64_t)f->v;
	else if (f->number == 3)
		ev->duration_ps = (int64_t)f->v;
	else if (f->number == 2 || f->number == 5) {
		ev->occurrences = f->number == 5;
		ev->offset_ps = f->number == 2 ? (int64_t)f->v : 0;
	}
	return 0;
}

/* A stat's bytes at d[0..len) into stats, as read_event's walk takes it. */
static inline __attribute__((always_inline)) void
event_stat(const uint8_t *d, size_t len, tl_xspace_wire_stats *stats, size_t avail)
{
	if (!stats->bad && stats->n < TL_XSPACE_WIRE_STATS) {
		tl_xspace_wire_stat *st = &stats->st[stats->n];
		if (read_stat_usual(d, len, st, avail) || read_stat(d, len, st) == 0)
			stats->n++;
		else
			stats->bad = true;
	} else {
		stats->all = false; /* checked when read */
	}
}

/* The event as profilers write it: metadata_id, offset_ps, duration_ps,
 * then the stats, nothing else: read in that order, no dispatch on each
 * key (read_event's walk would give the same). False for any other shape,
 * left to the walk, which starts again. */
static inline __attribute__((always_inline)) bool read_event_usual(const uint8_t *d, size_t n,
								   tl_xspace_wire_event *ev,
								   tl_xspace_wire_stats *stats,
								   size_t avail)
{
	size_t pos = 0;
	uint64_t v;
	if (n == 0 || d[0] != ((1u << 3) | WT_VARINT))
		return false;
	pos = 1;
	if (!varint_in(d, n, &pos, &v, avail))
		return false;
	*ev = (tl_xspace_wire_event){.metadata_id = (int64_t)v, .raw = d + n, .md_first = true};
	if (pos < n && d[pos] == ((2u << 3) | WT_VARINT)) {
		pos++;
		if (!varint_in(d, n, &pos, &v, avail))
			return false;
		ev->offset_ps = (int64_t)v;
	}
	if (pos < n && d[pos] == ((3u << 3) | WT_VARINT)) {
		pos++;
		if (!varint_in(d, n, &pos, &v, avail))
			return false;
		ev->duration_ps = (int64_t)v;
	}
	stats->n = 0;
	stats->all = true;
	stats->bad = false;
	if (pos < n && d[pos] == ((4u << 3) | WT_LEN))
		ev->raw = d + pos;
	while (pos < n && d[pos] == ((4u << 3) | WT_LEN)) {
		pos++;
		if (!varint_in(d, n, &pos, &v, avail) || v > n - pos)
			return false;
		event_stat(d + pos, (size_t)v, stats, avail - pos);
		pos += (size_t)v;
	}
	if (pos != n)
		return false;
	ev->raw_len = (size_t)(d + n - ev->raw);
	return true;
}

/* An XEvent's fields, its stats decoded into *stats as they are met (as
 * tl_xspace_wire_next_stat reads them; one that is none said in
 * stats->bad): 0, or -1 for bytes that are no XEvent. */
static inline __attribute__((always_inline)) int read_event(const uint8_t *d, size_t n,
							    tl_xspace_wire_event *ev,
							    tl_xspace_wire_stats *stats,
							    size_t avail)
{
	if (read_event_usual(d, n, ev, stats, avail))
		return 0;
	*ev = (tl_xspace_wire_event){.raw = d + n,
				     .md_first = n > 0 && d[0] == ((1u << 3) | WT_VARINT)};
	stats->n = 0;
	stats->all = true;
	stats->bad = false;
	size_t pos = 0;
	field f = {0};
	while (pos < n) {
		size_t at = pos;
		/* the one-byte keys of the fields profilers write go straight
		 * to the field (what event_field would make of them) */
		uint64_t v;
		switch (d[pos]) {
		case (1u << 3) | WT_VARINT:
			pos++;
			if (!varint_in(d, n, &pos, &v, avail))
				return -1;
			ev->metadata_id = (int64_t)v;
			continue;
		case (2u << 3) | WT_VARINT:
			pos++;
			if (!varint_in(d, n, &pos, &v, avail))
				return -1;
			ev->occurrences = false;
			ev->offset_ps = (int64_t)v;
			continue;
		case (3u << 3) | WT_VARINT:
			pos++;
			if (!varint_in(d, n, &pos, &v, avail))
				return -1;
			ev->duration_ps = (int64_t)v;
			continue;
		case (5u << 3) | WT_VARINT:
			pos++;
			if (!varint_in(d, n, &pos, &v, avail))
				return -1;
			ev->occurrences = true;
			ev->offset_ps = 0;
			continue;
		case (4u << 3) | WT_LEN:
			pos++;
			if (!varint_in(d, n, &pos, &f.v, avail) || f.v > n - pos)
				return -1;
			event_stat(d + pos, (size_t)f.v, stats, avail - pos);
			pos += (size_t)f.v;
			if (ev->raw == d + n)
				ev->raw = d + at;
			continue;
		default: {
			int rc = next_field(d, n, &pos, &f);
			if (rc < 0)
				return -1;
			if (f.number == 4)
				stats->all = false; /* a stat after an odd key: read in
						     * order by next_stat */
			break;
		}
		}
		if (event_field(d, at, &f, ev, d + n) < 0)
			return -1;
	}
	ev->raw_len = (size_t)(d + n - ev->raw);
	return 0;
}

/* The next field 4 of a message (a line's events, an event's stats), whose
 * wire type the first walk has checked: 1, 0 at the end, -1. */
static int next_repeated(const uint8_t *d, size_t n, size_t *pos, field *f)
{
	int rc;
	while ((rc = next_field(d, n, pos, f)) > 0)
		if (f->number == 4)
			return 1;
	return rc;
}

/* next_repeated where the next field is the one sought (key 4, length
 * delimited, as it mostly is): its bytes without the general walk. */
static inline int next_repeated_fast(const uint8_t *d, size_t n, size_t *pos, field *f)
{
	size_t p = *pos;
	uint64_t len;
	if (p < n && d[p] == ((4u << 3) | WT_LEN)) {
		p++;
		if (!varint(d, n, &p, &len) || len > n - p)
			return -1;
		f->sub = d + p;
		f->sub_len = (size_t)len;
		*pos = p + (size_t)len;
		return 1;
	}
	return next_repeated(d, n, pos, f);
}

int tl_xspace_wire_next_event_stats(const tl_xspace_wire_line *l, size_t *pos,
				    tl_xspace_wire_event *ev, tl_xspace_wire_stats *stats)
{
	field f = {0};
	int rc = next_repeated_fast(l->raw, l->raw_len, pos, &f);
	if (rc <= 0)
		return rc;
	/* the line's bytes past the event are readable */
	return read_event(f.sub, f.sub_len, ev, stats, (size_t)(l->raw + l->raw_len - f.sub)) < 0
		   ? -2
		   : 1;
}

bool tl_xspace_wire_stat_nth(const tl_xspace_wire_event *ev, size_t k, tl_xspace_wire_stat *st)
{
	size_t pos = 0;
	field f = {0};
	for (size_t i = 0; i < k; i++)
		if (next_repeated_fast(ev->raw, ev->raw_len, &pos, &f) <= 0)
			return false;
	return tl_xspace_wire_next_stat(ev, &pos, st) > 0;
}

int tl_xspace_wire_next_stat(const tl_xspace_wire_event *ev, size_t *pos, tl_xspace_wire_stat *st)
{
	field f = {0};
	int rc = next_repeated_fast(ev->raw, ev->raw_len, pos, &f);
	if (rc <= 0)
		return rc;
	if (read_stat_usual(f.sub, f.sub_len, st, (size_t)(ev->raw + ev->raw_len - f.sub)))
		return 1;
	return read_stat(f.sub, f.sub_len, st) < 0 ? -1 : 1;
}

/* ---- lines, metadata, planes --------------------------------------------- */

static int read_line(const uint8_t *d, size_t n, tl_xspace_wire_line *l, const uint8_t *mark,
		     size_t n_mark, tl_arena *arena)
{
	*l = (tl_xspace_wire_line){.name = "", .display_name = "", .raw = d, .raw_len = n};
	size_t pos = 0, at = 0;
	field f = {0};
	for (;;) {
		/* the events, most of a line's bytes: counted, read later */
		while (pos < n && d[pos] == ((4u << 3) | WT_LEN)) {
			uint64_t len;
			size_t p = pos + 1;
			at = pos;
			if (!varint(d, n, &p, &len) || len > n - p)
				goto damaged;
			if (mark != NULL && len >= 2 && d[p] == ((1u << 3) | WT_VARINT)) {
				size_t q = p + 1;
				uint64_t id;
				if (varint(d, p + (size_t)len, &q, &id) && id < n_mark && mark[id])
					l->n_marked++;
			}
			pos = p + (size_t)len;
			l->n_events++;
		}
		at = pos;
		int rc = next_field(d, n, &pos, &f);
		if (rc == 0)
			return 0;
		if (rc < 0)
			goto damaged;
		switch (f.number) {
		case 1:
		case 3:
		case 9:
		case 10:
			if (!wt_is(&f, WT_VARINT, false))
				goto damaged;
			if (f.number == 1)
				l->id = (int64_t)f.v;
			else if (f.number == 3)
				l->timestamp_ns = (int64_t)f.v;
			break;
		case 2:
		case 11:
			if (!wt_is(&f, WT_LEN, false))
				goto damaged;
			*(f.number == 2 ? &l->name : &l->display_name) = copy_str(&f, arena);
			break;
		case 4: /* events: checked as they are read (tl_xspace_wire_next_event) */
			if (!wt_is(&f, WT_LEN, false))
				goto damaged;
			l->n_events++;
			break;
		default:
			break;
		}
	}
damaged:
	/* what came before is kept: the events counted, read up to here */
	l->damaged = true;
	l->raw_len = at;
	return 0;
}

/* XEventMetadata (event: true) or XStatMetadata: its name. */
static int read_meta_value(const uint8_t *d, size_t n, bool event, const char **name,
			   tl_arena *arena)
{
	const char *plain = "", *display = "";
	size_t pos = 0;
	field f = {0};
	int rc;
	while ((rc = next_field(d, n, &pos, &f)) > 0) {
		bool len_field = f.number == 2 || f.number == 3 || (event && f.number >= 4);
		if (f.number == 1 || (event && f.number == 6)) {
			if (!wt_is(&f, WT_VARINT, f.number == 6))
				return -1;
		} else if (len_field && f.number <= 5) {
			if (!wt_is(&f, WT_LEN, false))
				return -1;
			if (f.number == 2)
				plain = copy_str(&f, arena);
			else if (event && f.number == 4)
				display = copy_str(&f, arena);
		}
	}
	*name = display[0] != '\0' ? display : plain;
	return rc;
}

/* A map entry (key 1, value 2) of event_metadata or stat_metadata. */
static int read_meta(const uint8_t *d, size_t n, bool event, tl_xspace_wire_meta *m,
		     tl_arena *arena)
{
	*m = (tl_xspace_wire_meta){0};
	size_t pos = 0;
	field f = {0};
	int rc;
	while ((rc = next_field(d, n, &pos, &f)) > 0) {
		if (f.number == 1) {
			if (!wt_is(&f, WT_VARINT, false))
				return -1;
			m->id = (int64_t)f.v;
		} else if (f.number == 2) {
			if (!wt_is(&f, WT_LEN, false) ||
			    read_meta_value(f.sub, f.sub_len, event, &m->name, arena) < 0)
				return -1;
		}
	}
	return rc;
}

/* Appends to a growing array in a GArray, then moves it into the arena. */
static void *to_arena(GArray *a, size_t elt, size_t *n, tl_arena *arena)
{
	*n = a->len;
	void *out = tl_arena_alloc(arena, (a->len ? a->len : 1) * elt);
	if (a->len)
		memcpy(out, a->data, a->len * elt);
	g_array_free(a, TRUE);
	return out;
}

static int read_plane_fields(const uint8_t *d, size_t n, tl_xspace_wire_plane *p, GArray *lines,
			     GArray *ev_md, GArray *st_md, bool read_lines, tl_arena *arena)
{
	size_t pos = 0;
	field f = {0};
	int rc;
	while ((rc = next_field(d, n, &pos, &f)) > 0) {
		if (f.number == 1) {
			if (!wt_is(&f, WT_VARINT, false))
				return -1;
			continue;
		}
		if (f.number > 6)
			continue;
		if (!wt_is(&f, WT_LEN, false))
			return -1;
		if (f.number == 2) {
			p->name = copy_str(&f, arena);
		} else if (f.number == 3) {
			tl_xspace_wire_line l = {
			    .name = "", .display_name = "", .raw = f.sub, .raw_len = f.sub_len};
			if (read_lines && read_line(f.sub, f.sub_len, &l, NULL, 0, arena) < 0)
				return -1;
			g_array_append_val(lines, l);
		} else if (f.number == 4 || f.number == 5) {
			tl_xspace_wire_meta m;
			if (read_meta(f.sub, f.sub_len, f.number == 4, &m, arena) < 0)
				return -1;
			g_array_append_val(f.number == 4 ? ev_md : st_md, m);
		} else {
			tl_xspace_wire_stat st;
			if (read_stat(f.sub, f.sub_len, &st) < 0)
				return -1;
		}
	}
	return rc;
}

static int read_plane(const uint8_t *d, size_t n, tl_xspace_wire_plane *p, bool read_lines,
		      tl_arena *arena)
{
	*p = (tl_xspace_wire_plane){.name = ""};
	GArray *lines = g_array_new(FALSE, FALSE, sizeof(tl_xspace_wire_line));
	GArray *ev_md = g_array_new(FALSE, FALSE, sizeof(tl_xspace_wire_meta));
	GArray *st_md = g_array_new(FALSE, FALSE, sizeof(tl_xspace_wire_meta));
	int rc = read_plane_fields(d, n, p, lines, ev_md, st_md, read_lines, arena);
	p->lines = to_arena(lines, sizeof(tl_xspace_wire_line), &p->n_lines, arena);
	p->ev_md = to_arena(ev_md, sizeof(tl_xspace_wire_meta), &p->n_ev_md, arena);
	p->st_md = to_arena(st_md, sizeof(tl_xspace_wire_meta), &p->n_st_md, arena);
	return rc;
}

static int read_space(tl_xspace_wire *out, const uint8_t *data, size_t len, bool read_lines,
		      tl_arena *arena)
{
	GArray *planes = g_array_new(FALSE, FALSE, sizeof(tl_xspace_wire_plane));
	out->host = NULL;
	out->bad_planes = 0;
	size_t pos = 0;
	field f = {0};
	int rc;
	while ((rc = next_field(data, len, &pos, &f)) > 0) {
		if (f.number > 4)
			continue;
		if (!wt_is(&f, WT_LEN, false)) {
			rc = -1;
			break;
		}
		if (f.number == 4 && out->host == NULL) {
			out->host = copy_str(&f, arena);
			continue;
		}
		if (f.number != 1)
			continue; /* errors, warnings, more hostnames */
		tl_xspace_wire_plane p;
		if (read_plane(f.sub, f.sub_len, &p, read_lines, arena) < 0) {
			out->bad_planes++; /* it alone: the space's framing holds */
			continue;
		}
		g_array_append_val(planes, p);
	}
	out->planes = to_arena(planes, sizeof(tl_xspace_wire_plane), &out->n_planes, arena);
	return rc < 0 ? -1 : 0;
}

int tl_xspace_wire_read(tl_xspace_wire *out, const uint8_t *data, size_t len, tl_arena *arena)
{
	return read_space(out, data, len, true, arena);
}

int tl_xspace_wire_read_planes(tl_xspace_wire *out, const uint8_t *data, size_t len,
			       tl_arena *arena)
{
	return read_space(out, data, len, false, arena);
}

int tl_xspace_wire_read_line(tl_xspace_wire_line *l, const uint8_t *mark, size_t n_mark,
			     tl_arena *arena)
{
	return read_line(l->raw, l->raw_len, l, mark, n_mark, arena);
}
