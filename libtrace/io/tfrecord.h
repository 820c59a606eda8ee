/*
 * tfrecord: TFRecord framing (what tf.io.TFRecordWriter and TensorBoard's
 * event writer produce): each record is
 *   uint64 length (little endian), uint32 masked crc32c(length),
 *   data[length], uint32 masked crc32c(data).
 * Both CRCs are checked on read. A TensorBoard events file is a TFRecord
 * stream of Event messages; trace-merge --format=runmeta writes a stream of
 * RunMetadata.
 */
#ifndef TL_IO_TFRECORD_H
#define TL_IO_TFRECORD_H

#include "base/warn.h"
#include "io/input.h"

#include <glib.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

/* CRC-32C (Castagnoli), and TensorFlow's masked form of it. */
uint32_t tl_tfrecord_crc32c(uint32_t crc, const void *data, size_t len);
uint32_t tl_tfrecord_crc32c_masked(const void *data, size_t len);
/* tl_tfrecord_crc32c by tables alone, where the processor's crc
 * instruction is used when it has one (the tests compare the two). */
uint32_t tl_tfrecord_crc32c_soft(uint32_t crc, const void *data, size_t len);

/* True when the first 12 bytes are a plausible record header (the length's
 * masked crc matches). */
bool tl_tfrecord_sniff(const uint8_t *data, size_t len);

/* True when a whole record that frames correctly (both crcs hold) starts
 * somewhere after byte 0 of data[0..len): a stream whose first header is
 * damaged, as far as its first bytes can tell. */
bool tl_tfrecord_sniff_damaged(const uint8_t *data, size_t len);

/* Largest record accepted (a length prefix beyond it is damage, not an
 * allocation). The format's bound: a record holds one protobuf message
 * (an Event, a RunMetadata), and protobuf refuses messages of 2 GiB and
 * more. */
#define TL_TFRECORD_MAX (1ull << 31)

/* Reads the records of one input in order, numbering them from 1 (as runs
 * are labelled). Damage does not stop it: a record cut short by the end,
 * or whose crc fails, is reported and passed over, and reading resumes at
 * the next offset where a record's length crc holds. Each byte is looked at
 * a bounded number of times (after a data crc failure the length, whose
 * crc held, says where the next record starts), so a damaged stream reads
 * in time linear in its size. The reader borrows the input. */
typedef struct tl_tfrecord_reader {
	tl_input *in;
	uint64_t next;	 /* number of the next record */
	uint64_t number; /* the record last read or passed over */
	uint64_t at;	 /* its first byte */
	bool cut;	 /* the damage passed over is the input's end */
	char then[96];	 /* what the reader did about the damage */
} tl_tfrecord_reader;

void tl_tfrecord_reader_init(tl_tfrecord_reader *r, tl_input *in);

enum { TL_TFRECORD_DAMAGED = 2 };

/* The next record into `rec` (replacing its contents): 1 when a record was
 * read, 0 at the end of input, -1 when the input cannot be read (err says
 * why), TL_TFRECORD_DAMAGED when damage was passed over: err says what
 * ("record 3 at byte 1234: data crc mismatch", "record 4 at byte 5678 is cut
 * short"), r->then what was done ("record skipped", "skipped to the record
 * at byte 9000"), and the next call goes on after it. */
int tl_tfrecord_next(tl_tfrecord_reader *r, GByteArray *rec, tl_error *err);

/* Appends one framed record to `out`. */
void tl_tfrecord_frame(GByteArray *out, const void *data, size_t len);

#endif
