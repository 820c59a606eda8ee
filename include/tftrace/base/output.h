/*
 * output: where a tool's primary output goes, written through one buffer.
 *
 *   - NULL or "-" is standard output; any other path is written to a
 *     temporary file in the same folder and renamed over the path only by a
 *     successful tl_output_close(), so a failure never leaves a truncated or
 *     clobbered file;
 *   - gzip when asked or when the path ends in ".gz";
 *   - a path that names one of the inputs is refused;
 *   - binary output (gzip) to a terminal is refused with a hint.
 * Write errors are sticky and reported by tl_output_close (a full disk is an
 * error too). A closed pipe ends the process by SIGPIPE, quietly, even when
 * SIGPIPE was ignored by the parent.
 */
#ifndef TL_BASE_OUTPUT_H
#define TL_BASE_OUTPUT_H

#include "base/warn.h"

#include <glib.h>

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#define TL_OUTPUT_BUF (1u << 18)

typedef struct tl_output {
	char *buf;
	size_t len;
	/* private */
	int fd;
	char *path;
	char *tmp;
	char *dest; /* what tmp is renamed onto: path, or the file a link names */
	bool gzip;
	void *zs;
	int error;	  /* errno of the first failure, or -1 for zlib */
	GString *memory;  /* not NULL: the output is kept in memory (fd -1) */
	uint64_t flushed; /* bytes handed on by tl_output_flush */
} tl_output;

int tl_output_open(tl_output **out, const char *path, bool gzip, const char *const *inputs,
		   size_t n_inputs, tl_error *err);
/* Flushes, finishes gzip, closes and renames into place. Frees o. */
int tl_output_close(tl_output *o, tl_error *err);
/* Drops everything written (removes the temporary file). Frees o. */
void tl_output_abort(tl_output *o);

/* An output kept in memory: text written on a thread of its own, to be
 * copied into the real output later. tl_output_take ends it (frees o) and
 * hands over what was written. */
tl_output *tl_output_new_memory(void);
GString *tl_output_take(tl_output *o);

/* An output into an unlinked temporary file (in $TMPDIR, else /tmp) that
 * goes with it: pieces written aside by tl_output_tell, copied into the real
 * output later (tl_output_copy). Freed by tl_output_abort. */
int tl_output_new_scratch(tl_output **out, tl_error *err);
/* Bytes written into o so far, flushed or not. */
uint64_t tl_output_tell(const tl_output *o);
/* Copies bytes [from, from + len) of the scratch output `src` into `dst`:
 * 0, or -1 with err (a write or read error of the scratch file). */
int tl_output_copy(tl_output *dst, tl_output *src, uint64_t from, uint64_t len, tl_error *err);
/* Reads up to len bytes at `from` of the scratch output `src` into buf:
 * how many (0 past its end), or -1 with err. */
int64_t tl_output_read(tl_output *src, uint64_t from, void *buf, size_t len, tl_error *err);

void tl_output_flush(tl_output *o);

static inline void tl_output_bytes(tl_output *o, const void *data, size_t n)
{
	if (o->len + n > TL_OUTPUT_BUF) {
		tl_output_flush(o);
		if (n > TL_OUTPUT_BUF / 2) {
			/* large block: write through without copying into buf twice */
			const char *p = data;
			while (n > 0) {
				size_t take = n < TL_OUTPUT_BUF ? n : TL_OUTPUT_BUF;
				memcpy(o->buf, p, take);
				o->len = take;
				tl_output_flush(o);
				p += take;
				n -= take;
			}
			return;
		}
	}
	memcpy(o->buf + o->len, data, n);
	o->len += n;
}

static inline void tl_output_str(tl_output *o, const char *s)
{
	tl_output_bytes(o, s, strlen(s));
}

static inline void tl_output_char(tl_output *o, char c)
{
	if (o->len + 1 > TL_OUTPUT_BUF)
		tl_output_flush(o);
	o->buf[o->len++] = c;
}

void tl_output_int(tl_output *o, int64_t v);
void tl_output_uint(tl_output *o, uint64_t v);
/* A CSV field (RFC 4180): as is, or quoted with quotes doubled when it holds
 * a comma, a quote or a line break. */
void tl_output_csv(tl_output *o, const char *field);
/* printf into the output (slow path). */
void tl_output_printf(tl_output *o, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

#endif
