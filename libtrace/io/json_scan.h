/*
 * json_scan: the JSON scanning primitives under the Chrome trace reader
 * (io/chrome_reader.c). Each scanner takes the first byte of its token and
 * returns the byte after it, or NULL with the first error recorded in the
 * tl_json_scan (where and what); it reads up to the scan's `end` in memory
 * it does not own. Everything scanned is validated as JSON (RFC 8259,
 * strings as UTF-8). Private to the library (tftrace.h does not include
 * it; it is not installed).
 */
#ifndef TL_IO_JSON_SCAN_H
#define TL_IO_JSON_SCAN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef struct tl_json_scan {
	const uint8_t *end; /* the end of the input */
	/* where and what the first error was */
	const uint8_t *err_at;
	const char *err_what;
	bool err_json; /* "invalid JSON" rather than "invalid trace" */
} tl_json_scan;

/* Fills the scanner's tables, once per process; before any string is
 * scanned. */
void tl_json_scan_init(void);

/* Records an error at `at` (or at the end of input); returns NULL. */
const uint8_t *tl_json_scan_fail(tl_json_scan *s, const uint8_t *at, const char *what);
const uint8_t *tl_json_scan_fail_eof(tl_json_scan *s);

static inline bool tl_json_scan_is_ws(uint8_t c)
{
	return c == ' ' || c == '\n' || c == '\r' || c == '\t';
}

/* The first byte at or after p that is not whitespace (end when none). */
static inline const uint8_t *tl_json_scan_ws(const uint8_t *p, const uint8_t *end)
{
	while (p < end && tl_json_scan_is_ws(*p))
		p++;
	return p;
}

static inline bool tl_json_scan_is_digit(uint8_t c)
{
	return c >= '0' && c <= '9';
}

/* The value of a hex digit, -1 for any other byte. */
static inline int tl_json_scan_hex_value(uint8_t c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	c |= 0x20;
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	return -1;
}

/* A number, by JSON's grammar. */
const uint8_t *tl_json_scan_number(tl_json_scan *s, const uint8_t *p);

/* A member's key (p at its quote) and colon: *key and *key_len are the key's
 * raw text between the quotes; returns the start of the value, whitespace
 * skipped. */
const uint8_t *tl_json_scan_member_key(tl_json_scan *s, const uint8_t *p, const uint8_t **key,
				       size_t *key_len);

/* One value starting at p (whitespace skipped), `depth` brackets being
 * open around it; no more than 1000 may be open, the document's own
 * included. */
const uint8_t *tl_json_scan_value(tl_json_scan *s, const uint8_t *p, int depth);

#endif
