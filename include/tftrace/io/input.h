/*
 * input: the bytes of one input, a file or standard input, decompressed on
 * the fly when they start with the gzip magic (zlib's gzread passes plain
 * bytes through). Reads are sequential; the next bytes can be peeked for
 * sniffing and for finding where records start. Offsets in error messages
 * are offsets in the decompressed bytes.
 *
 * A gzip stream cut short or corrupt part way is damage, not an error: the
 * input ends where the good bytes end, and tl_input_damage says so (the
 * reader above decides what that means for what it read). A failing read
 * (an I/O error) is an error.
 *
 * A tl_input owns its file handle and buffers; tl_input_close frees them.
 */
#ifndef TL_IO_INPUT_H
#define TL_IO_INPUT_H

#include "base/arena.h"
#include "base/warn.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef struct tl_input tl_input;

/* Opens `path`; NULL or "-" is standard input. */
int tl_input_open(tl_input **out, const char *path, tl_error *err);
void tl_input_close(tl_input *in);

/* The name used in messages: the path, or "<stdin>". */
const char *tl_input_name(const tl_input *in);
bool tl_input_is_gzip(const tl_input *in);

/* Up to `want` (at most TL_INPUT_PEEK_MAX) bytes from the current position,
 * without consuming them. Returns how many are available (fewer at end of
 * input, or before a read error, which the next tl_input_read returns). */
#define TL_INPUT_PEEK_MAX (64 * 1024)
size_t tl_input_peek(tl_input *in, const uint8_t **data, size_t want, tl_error *err);

/* Consumes n bytes (fewer at end of input); returns how many, or -1 on a
 * read error. */
long long tl_input_skip(tl_input *in, uint64_t n, tl_error *err);

/* Reads up to n bytes; returns how many were read (0 at end of input) or -1
 * on a read or decompression error. */
long long tl_input_read(tl_input *in, void *buf, size_t n, tl_error *err);

/* Reads everything left into one g_malloc'd buffer (NUL-terminated, the NUL
 * not counted in *len). */
int tl_input_slurp(tl_input *in, uint8_t **data, size_t *len, tl_error *err);

/* Everything left, owned by the input until tl_input_close: a plain file is
 * memory-mapped, anything else read into a buffer. */
int tl_input_map(tl_input *in, const uint8_t **data, size_t *len, tl_error *err);

/* Whether tl_input_map would map the input (a plain file not read yet), not
 * read it into memory. */
bool tl_input_can_map(const tl_input *in);

/* Everything left, read into memory of `arena`: *len bytes, writable, and a
 * NUL after them (a decoder may write there too). For a plain file, one
 * read into one buffer of its size. */
int tl_input_read_all(tl_input *in, tl_arena *arena, uint8_t **data, size_t *len, tl_error *err);

/* Bytes left to read in a plain (not gzip) file, from its size; 0 when not
 * known (a pipe, a gzip stream). */
uint64_t tl_input_size_left(const tl_input *in);

/* Bytes consumed so far. */
uint64_t tl_input_offset(const tl_input *in);

/* Once the input has been read up to where its gzip stream is cut short or
 * corrupt: what happened and where ("gzip stream cut short after
 * decompressed byte 106464"); NULL until then, and for sound input. */
const char *tl_input_damage(const tl_input *in);

#endif
