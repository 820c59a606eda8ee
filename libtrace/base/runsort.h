/*
 * runsort: a stable sort for arrays that are mostly in order already, as
 * the records of a dump are: a device's executions in start order, or in a
 * few ordered runs (a host's threads, one run each). The runs are found in
 * one pass and merged pairwise (O(n log runs)), through one buffer of n
 * items; an array in order costs one pass and no buffer.
 */
#ifndef TL_BASE_RUNSORT_H
#define TL_BASE_RUNSORT_H

#include <stdbool.h>
#include <stddef.h>

/* Whether item a goes strictly before item b. */
typedef bool (*tl_runsort_before)(const void *a, const void *b, void *ctx);

/* Sorts base[0..n) (items of `size` bytes) by `before`, stably: items
 * neither of which goes before the other keep their order. Returns how
 * many ordered runs it found (1: nothing moved). */
size_t tl_runsort(void *base, size_t n, size_t size, tl_runsort_before before, void *ctx);

#endif
