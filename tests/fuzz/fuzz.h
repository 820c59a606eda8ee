/*
 * fuzz.h: what the libFuzzer harnesses of tests/fuzz/ share.
 *
 *   - fuzz_input_path: the input bytes as a file the library can open by
 *     name (a memfd, named /proc/self/fd/N), so every harness goes through
 *     the same tl_input / tl_source code the tools use;
 *   - fuzz_out_*: the tools' output (standard output) captured in a memfd,
 *     so a harness can check that what was written is valid JSON or CSV;
 *   - fuzz_end: forgets the warnings of one input (the registry is
 *     process-wide and would otherwise grow over millions of inputs).
 *
 * A harness aborts (a crash libFuzzer reports) when an output is invalid:
 * "never invalid output" is checked, not just "never a crash".
 */
#ifndef TL_FUZZ_H
#define TL_FUZZ_H

#include "base/warn.h"
#include "base/output.h"
#include "io/source.h"

#include <glib.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static int fuzz_in_fd = -1;
static char fuzz_in_name[64];

/* The input as a named file, rewritten for each input. */
static inline const char *fuzz_input_path(const uint8_t *data, size_t size)
{
	if (fuzz_in_fd < 0) {
		fuzz_in_fd = memfd_create("fuzz-input", 0);
		if (fuzz_in_fd < 0)
			abort();
		snprintf(fuzz_in_name, sizeof fuzz_in_name, "/proc/self/fd/%d", fuzz_in_fd);
	}
	if (ftruncate(fuzz_in_fd, 0) != 0 || pwrite(fuzz_in_fd, data, size, 0) != (ssize_t)size)
		abort();
	return fuzz_in_name;
}

static int fuzz_out_fd = -1;
static uint8_t *fuzz_out_data;
static size_t fuzz_out_len;

/* Standard output goes to a memfd from here on; each tl_output opened on
 * standard output after fuzz_out_begin writes there. */
static inline void fuzz_out_begin(void)
{
	if (fuzz_out_fd < 0) {
		fflush(stdout);
		fuzz_out_fd = memfd_create("fuzz-output", 0);
		if (fuzz_out_fd < 0 || dup2(fuzz_out_fd, STDOUT_FILENO) < 0)
			abort();
	}
	if (ftruncate(STDOUT_FILENO, 0) != 0 || lseek(STDOUT_FILENO, 0, SEEK_SET) != 0)
		abort();
}

/* What was written since fuzz_out_begin (valid until the next call). */
static inline const uint8_t *fuzz_out_end(size_t *len)
{
	off_t n = lseek(STDOUT_FILENO, 0, SEEK_CUR);
	if (n < 0)
		abort();
	free(fuzz_out_data);
	fuzz_out_data = malloc((size_t)n + 1);
	if (fuzz_out_data == NULL || pread(STDOUT_FILENO, fuzz_out_data, (size_t)n, 0) != n)
		abort();
	fuzz_out_data[n] = '\0';
	fuzz_out_len = (size_t)n;
	*len = fuzz_out_len;
	return fuzz_out_data;
}

/* A tl_output on standard output (the memfd). */
static inline tl_output *fuzz_output(void)
{
	tl_output *o = NULL;
	fuzz_out_begin();
	if (tl_output_open(&o, NULL, false, NULL, 0, NULL) < 0)
		abort();
	return o;
}

static inline void fuzz_fail(const char *what, const uint8_t *out, size_t len)
{
	fprintf(stderr, "fuzz: %s; output (%zu bytes) begins:\n%.*s\n", what, len,
		(int)(len < 2000 ? len : 2000), (const char *)out);
	abort();
}

/* JSON's grammar (RFC 8259), checked without recursion: strings must be
 * UTF-8 without raw control characters, escapes well formed; numbers of any
 * size are fine (the grammar has no range). Returns NULL when s[0..len) is
 * one value (surrounded by whitespace), else what is wrong, *at where. */
static inline const char *fuzz_json_error(const uint8_t *s, size_t len, size_t *at)
{
	enum { MAX = 1 << 16 };
	static char stack[MAX]; /* '[' or '{' per open container */
	int depth = 0;
	size_t i = 0;
	bool want_value = true; /* else a ',' or a closing bracket */
	bool want_key = false;  /* inside an object, before a key */
#define WS() while (i < len && (s[i] == ' ' || s[i] == '\t' || s[i] == '\n' || s[i] == '\r')) i++
#define FAIL(what) do { *at = i; return what; } while (0)
	for (;;) {
		WS();
		if (want_value) {
			if (i >= len)
				FAIL("unexpected end");
			uint8_t c = s[i];
			if (want_key && c != '"' && c != '}')
				FAIL("object key expected");
			if (c == '[' || c == '{') {
				if (depth == MAX)
					FAIL("nested too deep for the checker");
				stack[depth++] = (char)c;
				i++;
				WS();
				if (i < len && s[i] == (c == '[' ? ']' : '}')) {
					depth--;
					i++;
					want_value = false;
					want_key = false;
				} else {
					want_key = c == '{';
				}
				continue;
			}
			if (c == '"') {
				i++;
				for (;;) {
					if (i >= len)
						FAIL("unterminated string");
					uint8_t d = s[i];
					if (d == '"') {
						i++;
						break;
					}
					if (d < 0x20)
						FAIL("raw control character in a string");
					if (d == '\\') {
						i++;
						if (i >= len)
							FAIL("unterminated escape");
						if (s[i] == 'u') {
							for (int k = 1; k <= 4; k++)
								if (i + k >= len || !g_ascii_isxdigit(s[i + k]))
									FAIL("bad \\u escape");
							i += 5;
						} else if (strchr("\"\\/bfnrt", s[i]) != NULL && s[i] != 0) {
							i++;
						} else {
							FAIL("bad escape");
						}
						continue;
					}
					if (d < 0x80) {
						i++;
						continue;
					}
					const gchar *p = (const gchar *)s + i;
					gunichar u = g_utf8_get_char_validated(p, (gssize)(len - i));
					if (u == (gunichar)-1 || u == (gunichar)-2)
						FAIL("invalid UTF-8 in a string");
					i = (size_t)(g_utf8_next_char(p) - (const gchar *)s);
				}
				if (want_key) {
					WS();
					if (i >= len || s[i] != ':')
						FAIL("':' expected after a key");
					i++;
					want_key = false;
					continue; /* the member's value */
				}
				want_value = false;
				continue;
			}
			if (c == '-' || (c >= '0' && c <= '9')) {
				if (c == '-')
					i++;
				if (i < len && s[i] == '0')
					i++;
				else if (i < len && s[i] >= '1' && s[i] <= '9')
					while (i < len && g_ascii_isdigit(s[i]))
						i++;
				else
					FAIL("bad number");
				if (i < len && s[i] == '.') {
					i++;
					if (i >= len || !g_ascii_isdigit(s[i]))
						FAIL("bad fraction");
					while (i < len && g_ascii_isdigit(s[i]))
						i++;
				}
				if (i < len && (s[i] == 'e' || s[i] == 'E')) {
					i++;
					if (i < len && (s[i] == '+' || s[i] == '-'))
						i++;
					if (i >= len || !g_ascii_isdigit(s[i]))
						FAIL("bad exponent");
					while (i < len && g_ascii_isdigit(s[i]))
						i++;
				}
				want_value = false;
				continue;
			}
			static const char *const words[] = {"true", "false", "null"};
			bool word = false;
			for (int k = 0; k < 3 && !word; k++) {
				size_t n = strlen(words[k]);
				if (len - i >= n && memcmp(s + i, words[k], n) == 0) {
					i += n;
					word = true;
				}
			}
			if (!word)
				FAIL("value expected");
			want_value = false;
			continue;
		}
		/* after a value */
		if (depth == 0) {
			if (i != len)
				FAIL("text after the document");
			return NULL;
		}
		if (i >= len)
			FAIL("unexpected end");
		char open = stack[depth - 1];
		if (s[i] == ',') {
			i++;
			want_value = true;
			want_key = open == '{';
			continue;
		}
		if (s[i] == (open == '[' ? ']' : '}')) {
			i++;
			depth--;
			continue;
		}
		FAIL("',' or a closing bracket expected");
	}
#undef WS
#undef FAIL
}

/* Closes the output and checks that it is one valid JSON document;
 * empty output is allowed when `may_be_empty`. */
static inline void fuzz_check_json(tl_output *o, bool may_be_empty)
{
	if (tl_output_close(o, NULL) < 0)
		abort();
	size_t len;
	const uint8_t *out = fuzz_out_end(&len);
	if (len == 0 && may_be_empty)
		return;
	size_t at = 0;
	const char *why = fuzz_json_error(out, len, &at);
	if (why != NULL) {
		char msg[300];
		snprintf(msg, sizeof msg, "invalid JSON output at byte %zu: %s", at, why);
		fuzz_fail(msg, out, len);
	}
}

/* Closes the output and checks that it is RFC 4180 CSV with the same number
 * of fields on every record as on the first. */
static inline void fuzz_check_csv(tl_output *o)
{
	if (tl_output_close(o, NULL) < 0)
		abort();
	size_t len;
	const uint8_t *s = fuzz_out_end(&len);
	size_t i = 0, fields = 1, want = 0, records = 0;
	while (i < len) {
		if (s[i] == '"') {
			i++;
			for (;;) {
				if (i >= len)
					fuzz_fail("CSV: unterminated quoted field", s, len);
				if (s[i] == '"') {
					if (i + 1 < len && s[i + 1] == '"') {
						i += 2;
						continue;
					}
					i++;
					break;
				}
				i++;
			}
			if (i < len && s[i] != ',' && s[i] != '\n')
				fuzz_fail("CSV: text after a quoted field", s, len);
		} else {
			while (i < len && s[i] != ',' && s[i] != '\n') {
				if (s[i] == '"' || s[i] == '\r')
					fuzz_fail("CSV: quote or CR in an unquoted field", s, len);
				i++;
			}
		}
		if (i >= len)
			fuzz_fail("CSV: last record not ended by a newline", s, len);
		if (s[i] == ',') {
			fields++;
			i++;
			continue;
		}
		/* end of record */
		i++;
		if (records++ == 0)
			want = fields;
		else if (fields != want)
			fuzz_fail("CSV: a record has another number of fields than the header", s,
				  len);
		fields = 1;
	}
}

/* Closes an output whose content is not checked. */
static inline void fuzz_close(tl_output *o)
{
	if (tl_output_close(o, NULL) < 0)
		abort();
	size_t len;
	fuzz_out_end(&len);
}

static inline void fuzz_end(void)
{
	tl_warn_clear();
}

/* The input as a source of runs (RunMetadata, StepStats or GraphDef, in any
 * framing the tools read); NULL, the input done with, when it does not open
 * or is Chrome trace JSON (which the run-reading tools refuse). */
static inline tl_source *fuzz_open_source(const uint8_t *data, size_t size, bool chrome)
{
	tl_error err;
	tl_source *src = NULL;
	if (tl_source_open(&src, fuzz_input_path(data, size), TL_FORMAT_AUTO, &err) < 0 ||
	    (!chrome && tl_source_format(src) == TL_FORMAT_CHROME)) {
		tl_source_close(src);
		fuzz_end();
		return NULL;
	}
	return src;
}

static inline tl_source *fuzz_open_runs(const uint8_t *data, size_t size)
{
	return fuzz_open_source(data, size, false);
}

/* The same, a Chrome trace read as a run too (io/chrome_run.h), with its
 * allocator events: what trace-dataflow and trace-report read. */
static inline tl_source *fuzz_open_runs_chrome(const uint8_t *data, size_t size)
{
	tl_source *src = fuzz_open_source(data, size, true);
	if (src != NULL)
		tl_source_want_allocs(src, true);
	return src;
}

#endif
