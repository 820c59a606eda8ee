/*
 * warn: warnings and damage, the ways libtrace talks back short of an
 * error (base/error.h).
 *
 * Warnings are about degraded fidelity (guessed data, values dropped). They
 * are counted by key and printed once each, with the count, by
 * tl_warn_flush().
 *
 * Damage is input cut short or corrupt where good input lies around it, so
 * that a reader can pass over it and read the rest. What counts as damage:
 *   - a TFRecord or events-file record cut short by the end of the input;
 *   - a record whose length crc or data crc does not match, or whose length
 *     is over the limit (reading resumes at the next record that frames);
 *   - a record that frames correctly but whose message does not decode
 *     (malformed, or nested too deep);
 *   - a gzip stream cut short, or corrupt part way (what came before the
 *     damage is read, as a plain input that ends there).
 * Not damage: an input that is not a stream at all, or a whole-file input
 * (one RunMetadata, a Chrome trace) that does not decode: those are errors;
 * and odd values in well-formed input: those are warnings.
 *
 * The registry is process-wide and locked (trace-summarize reads inputs on
 * worker threads); strictness is set once, before any input is read.
 */
#ifndef TL_BASE_WARN_H
#define TL_BASE_WARN_H

#include "base/error.h"

#include <stdbool.h>
#include <stddef.h>

/* Counts one warning under `key` (a stable identifier); the first message
 * given for a key is the one printed. */
void tl_warn(const char *key, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* tl_warn counted once per `subject` (what the warning is about: a run's
 * label): a fact of one input that several analyses meet is told once for
 * it, not once per analysis. */
void tl_warn_about(const char *key, const char *subject, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

/* A log of the warnings one thread met, held back from the registry: work
 * split over threads (tl_crew_for) tells its parts' logs in the parts'
 * order, so that the lines and counts are those of one thread; a reader
 * holds its warnings until it knows the input reads (an input that fails
 * says one line only). From tl_warn_log_begin() to tl_warn_log_end() the
 * calling thread's tl_warn goes to the log; logs nest (end returns to the
 * log open before). tl_warn_log_tell() counts the log's warnings, in the
 * order met, into the log open on the calling thread, else the registry (a
 * crew's parts' logs, begun on workers, are told on the calling thread),
 * and frees it; tl_warn_log_drop() frees it unsaid. Either
 * ends the log first where it is still open. */
typedef struct tl_warn_log tl_warn_log;
tl_warn_log *tl_warn_log_begin(void);
void tl_warn_log_end(void);
void tl_warn_log_tell(tl_warn_log *log);
void tl_warn_log_drop(tl_warn_log *log);

/* Reports one damage of `input` (its name in messages), described by the
 * format ("record 3 at byte 1234: data crc mismatch"). Strict: fills err
 * with the description and returns -1, and the reader stops with that
 * error. Otherwise warns "'INPUT': DESCRIPTION: THEN" (`then` says what the
 * reader did about it, "record skipped"; may be NULL) and returns 0, and the
 * reader goes on past the damage. The same damage met twice (an input read
 * twice) is one warning; past TL_DAMAGE_SHOWN of one input, the rest are
 * counted on one line. */
int tl_warn_damage(tl_error *err, const char *input, const char *then, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
#define TL_DAMAGE_SHOWN 10

/* --strict: damage is an error (default: a warning). */
void tl_warn_set_strict(bool strict);
bool tl_warn_strict(void);

/* Forgets the damage warnings of `input`: an input that ends in an error
 * says so in one line, whatever damage it showed before. */
void tl_warn_forget_input(const char *input);

/* Distinct damages seen since the last flush or clear (for tests). */
size_t tl_warn_damage_count(void);

/* Prints every warning seen as "prog: warning: MESSAGE" plus " (N times)"
 * when N > 1, then forgets them: damage first, by input name and then in
 * the order met within the input (inputs may be read side by side, so this
 * is what keeps the lines in one order), then the others in first-seen
 * order. */
void tl_warn_flush(const char *prog);

/* Number of distinct warnings pending, damage included (for tests). */
size_t tl_warn_pending(void);

/* Count recorded for a key, 0 if none (for tests). */
size_t tl_warn_count(const char *key);

/* Drops pending warnings and damage without printing (for tests and -q
 * callers). */
void tl_warn_clear(void);

#endif
