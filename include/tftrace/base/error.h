/*
 * error: how a function that can fail says why. It takes a `tl_error *`
 * (may be NULL) and, on failure, fills it with one line saying what went
 * wrong and where ("truncated at byte 4096 (expected RunMetadata)") and
 * returns a negative value. The tool adds "tool: cannot read 'FILE': " in
 * front. The caller owns the tl_error (usually on its stack).
 */
#ifndef TL_BASE_ERROR_H
#define TL_BASE_ERROR_H

typedef struct tl_error {
	char msg[512];
} tl_error;

/* Fills err (when not NULL) from the format; always returns -1. */
int tl_error_set(tl_error *err, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

#endif
