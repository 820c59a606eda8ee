/*
 * xspace_wire_internal: an XSpace's bytes walked directly, for io/xspace*.c. Planes,
 * lines and metadata become small structs (names copied into the arena);
 * events and their stats stay bytes, read by the iterators below when they
 * are needed. A 100 MB XSpace holds some 1.6 million events and 5 million
 * stats: as protobuf-c structs they took 400 MB and most of the time.
 *
 * What protobuf-c refuses (a field's wire type not its declared one, a
 * length past the end, a bad varint) costs what holds it, the rest kept: a
 * plane whose own fields do not decode is left out (bad_planes); a line is
 * read up to the first field that does not (`damaged`: its events before
 * it stay); an event whose bytes or stats do not is told by the iterators
 * (-2, the walk going on), so a reader that has walked every event and
 * stat once and kept the good ones meets no error after. Only the space's
 * own framing refuses all (tl_xspace_wire_read's -1). Unknown fields are
 * skipped, as protobuf does.
 */
#ifndef TL_IO_XSPACE_WIRE_INTERNAL_H
#define TL_IO_XSPACE_WIRE_INTERNAL_H

#include "base/arena.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef struct tl_xspace_wire_line {
	int64_t id, timestamp_ns;
	const char *name, *display_name; /* "" when absent */
	const uint8_t *raw;		 /* the XLine's bytes: its events are read from them */
	size_t raw_len;
	size_t n_events; /* its field 4 entries (not read) */
	size_t n_marked; /* of them, those whose first field is a metadata_id
			  * tl_xspace_wire_read_line was told to mark */
	bool damaged;	 /* a field did not decode: raw_len ends before it */
} tl_xspace_wire_line;

/* An event or stat metadata entry: its map key and its name (for events
 * the display_name where there is one). name is NULL for an entry with no
 * value. */
typedef struct tl_xspace_wire_meta {
	int64_t id;
	const char *name;
} tl_xspace_wire_meta;

typedef struct tl_xspace_wire_plane {
	const char *name;
	tl_xspace_wire_line *lines;
	size_t n_lines;
	tl_xspace_wire_meta *ev_md, *st_md; /* in the file's order */
	size_t n_ev_md, n_st_md;
} tl_xspace_wire_plane;

typedef struct tl_xspace_wire {
	tl_xspace_wire_plane *planes;
	size_t n_planes;
	const char *host;  /* the first of its hostnames, or NULL */
	size_t bad_planes; /* planes left out: their fields do not decode */
} tl_xspace_wire;

/* Walks data[0..len) into *out, everything in `arena`; -1 when the bytes
 * are no XSpace. */
int tl_xspace_wire_read(tl_xspace_wire *out, const uint8_t *data, size_t len, tl_arena *arena);

/* tl_xspace_wire_read but for the lines' own fields: a line is its bytes
 * (raw, raw_len; the rest zero, its names ""), read by
 * tl_xspace_wire_read_line, which walks all its events (the reader calls
 * it on several threads, a share of the lines each). */
int tl_xspace_wire_read_planes(tl_xspace_wire *out, const uint8_t *data, size_t len,
			       tl_arena *arena);

/* A line's fields from its bytes (names into `arena`), its events counted;
 * with `mark` (mark[id] for ids below n_mark), those whose first field is
 * a metadata_id it marks counted in n_marked too (the event's first bytes,
 * which the walk reads anyway). Read up to its first field that does not
 * decode (`damaged`, raw_len cut there); 0. */
int tl_xspace_wire_read_line(tl_xspace_wire_line *l, const uint8_t *mark, size_t n_mark,
			     tl_arena *arena);

typedef struct tl_xspace_wire_event {
	int64_t metadata_id, offset_ps, duration_ps;
	bool occurrences;   /* num_occurrences set (the oneof's last member): no time */
	bool md_first;	    /* its first field is its metadata_id (n_marked's rule) */
	const uint8_t *raw; /* the XEvent's bytes from its first stat on (its end when it has
			     * none), for its stats; increasing in file order */
	size_t raw_len;
} tl_xspace_wire_event;

typedef enum tl_xspace_wire_kind {
	TL_XSTAT_NONE = 0,
	TL_XSTAT_DOUBLE = 2,
	TL_XSTAT_UINT64 = 3,
	TL_XSTAT_INT64 = 4,
	TL_XSTAT_STR = 5,
	TL_XSTAT_BYTES = 6,
	TL_XSTAT_REF = 7,
} tl_xspace_wire_kind;

typedef struct tl_xspace_wire_stat {
	int64_t metadata_id;
	tl_xspace_wire_kind kind; /* the oneof's last member set */
	uint64_t u;		  /* a number's bits (double, uint64, int64, ref) */
	const uint8_t *s;	  /* a string's bytes (not NUL-terminated) */
	size_t s_len;
} tl_xspace_wire_stat;

/* The stats of an event in order: *pos starts at 0; 1 with *st, 0 at the
 * end, -1 for bytes that are no XStat. */
int tl_xspace_wire_next_stat(const tl_xspace_wire_event *ev, size_t *pos, tl_xspace_wire_stat *st);

/* An event's stats as tl_xspace_wire_next_event_stats decodes them in the
 * walk that reads the event: its first st[0 .. n), all of them when `all`
 * (else the rest are read with tl_xspace_wire_next_stat). `bad`: one of
 * them is no XStat (where tl_xspace_wire_next_stat gives -1), st[] then
 * ending before it. */
#define TL_XSPACE_WIRE_STATS 16

typedef struct tl_xspace_wire_stats {
	size_t n;
	bool all, bad;
	tl_xspace_wire_stat st[TL_XSPACE_WIRE_STATS];
} tl_xspace_wire_stats;

/* Stat k of an event (0 its first, as tl_xspace_wire_next_stat counts
 * them): the k before it stepped over, not decoded. True with *st where
 * there is one and it decodes. */
bool tl_xspace_wire_stat_nth(const tl_xspace_wire_event *ev, size_t k, tl_xspace_wire_stat *st);

/* The events of a line in order, each with its stats decoded in the same
 * walk (a stat that is none is said in stats->bad, not refused): *pos
 * starts at 0; 1 with *ev, 0 at the end, -2 for an event whose bytes are
 * no XEvent (the walk goes on after it), -1 where the line's own bytes stop
 * framing (the walk ends). */
int tl_xspace_wire_next_event_stats(const tl_xspace_wire_line *l, size_t *pos,
				    tl_xspace_wire_event *ev, tl_xspace_wire_stats *stats);

#endif
