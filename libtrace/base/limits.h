/*
 * limits: bounds every layer checks input against.
 *
 * TL_TIME_LIMIT_NS: the largest time, in nanoseconds either side of zero, a
 * reader accepts from a dump; sums and differences of two such times stay
 * within int64_t, so no later arithmetic on them overflows.
 */
#ifndef TL_BASE_LIMITS_H
#define TL_BASE_LIMITS_H

#include <stdint.h>

#define TL_TIME_LIMIT_NS ((int64_t)1 << 61)

#endif
