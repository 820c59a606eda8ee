/*
 * strsort: items sorted by a string of theirs, in strcmp's order, by
 * multikey quicksort (Bentley and Sedgewick): each character is looked at
 * about once per level instead of once per comparison, which matters for
 * the names these tools sort (node names and scopes that share long
 * prefixes: "gradients/model/block_3/conv2d_7/..."). No recursion: a
 * hostile name of a million shared characters costs time, not stack.
 */
#ifndef TL_BASE_STRSORT_H
#define TL_BASE_STRSORT_H

#include <stddef.h>

/* Sorts items[0..n) by the NUL-terminated string at byte `name_offset` of
 * each item (a `const char *` field), strcmp's order. Items with equal
 * strings end in an unspecified order. */
void tl_strsort(void **items, size_t n, size_t name_offset);

#endif
