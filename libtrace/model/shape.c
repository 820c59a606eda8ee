#include "model/shape.h"

#include <inttypes.h>
#include <stdbool.h>

/* A dimension in decimal, as "%" PRId64 prints it (a printf per dimension
 * of every buffer showed in trace-memory's profile). */
static void append_int64(GString *s, int64_t v)
{
	char buf[24];
	size_t i = sizeof buf;
	uint64_t mag = v < 0 ? (uint64_t)0 - (uint64_t)v : (uint64_t)v;
	do {
		buf[--i] = (char)('0' + mag % 10);
		mag /= 10;
	} while (mag != 0);
	if (v < 0)
		buf[--i] = '-';
	g_string_append_len(s, buf + i, (gssize)(sizeof buf - i));
}

void tl_shape_append(GString *s, const Tensorflow__TensorShapeProto *sh, unsigned flags)
{
	if (sh == NULL)
		return;
	bool query = (flags & TL_SHAPE_QUERY) != 0;
	if (sh->unknown_rank && query) {
		g_string_append_c(s, '?');
		return;
	}
	if (sh->n_dim == 0) {
		if (flags & TL_SHAPE_SCALAR)
			g_string_append(s, "scalar");
		return;
	}
	for (size_t d = 0; d < sh->n_dim; d++) {
		if (d > 0)
			g_string_append_c(s, 'x');
		int64_t size = sh->dim[d]->size;
		if (size < 0 && query)
			g_string_append_c(s, '?');
		else
			append_int64(s, size);
	}
}
