/*
 * limits: bounds every layer checks input against.
 *
 * A reader refuses a value only where the format cannot express it or the
 * arithmetic cannot hold it; a bound drawn from the files at hand is a bug
 * (epoch microseconds, picoseconds, relative and negative times all occur).
 *
 * TL_TIME_LIMIT_NS: the largest time, in nanoseconds either side of zero, a
 * reader accepts from a dump; sums and differences of two such times stay
 * within int64_t, so no later arithmetic on them overflows. It is an
 * arithmetic bound, not a format's: 2^61 ns is about 73 years, so epoch
 * times up to 2043 (epoch microseconds up to 2.3e15, nanoseconds up to
 * 2.3e18) and relative times of either sign all fit.
 */
#ifndef TL_BASE_LIMITS_H
#define TL_BASE_LIMITS_H

#include <stdint.h>

#define TL_TIME_LIMIT_NS ((int64_t)1 << 61)

#endif
