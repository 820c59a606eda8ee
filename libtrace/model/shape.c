#include "model/shape.h"

#include <inttypes.h>
#include <stdbool.h>

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
			g_string_append_printf(s, "%" PRId64, size);
	}
}
