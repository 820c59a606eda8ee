/*
 * bytes: a byte count for people, in the one unit system of every report,
 * plot and graph label: tfprof's decimal units.
 *
 * The caller owns the buffer; nothing is allocated.
 */
#ifndef TL_BASE_BYTES_H
#define TL_BASE_BYTES_H

#include <stddef.h>

/* "512B", "1.20KB", "12.35MB", "3.00GB": tfprof's decimal units (1 KB =
 * 1000 B), two decimals, no space; below 1000 the whole number of bytes.
 * A negative count keeps its sign ("-1.20KB"). Writes at most size bytes,
 * the NUL included (TL_BYTES_FORMAT_MAX hold any int64_t count), and
 * returns the length of what it wrote. */
#define TL_BYTES_FORMAT_MAX 32
size_t tl_bytes_format(char *buf, size_t size, double bytes);

#endif
