/*
 * shape: a tensor's shape as text, the one spelling of every report and
 * label: its dimensions joined by 'x' ("32x56x56x128"). What rank 0 and an
 * unknown size read as differs by reader, so the caller says it:
 *
 *   caller                  rank 0     unknown size   unknown rank
 *   summary (tfprof)        ""         -1             ""
 *   memory report, trace    "scalar"   -1             "scalar"
 *   graph labels            "scalar"   ?              ?
 *
 * Here rather than in base/ because it reads the schema's
 * TensorShapeProto, which the base layer sits below. The shape belongs to
 * the caller (usually the run); the text is appended to the caller's GString.
 */
#ifndef TL_MODEL_SHAPE_H
#define TL_MODEL_SHAPE_H

#include "tensorflow.pb-c.h"

#include <glib.h>

enum {
	TL_SHAPE_SCALAR = 1 << 0, /* rank 0 reads "scalar" (else nothing) */
	TL_SHAPE_QUERY = 1 << 1,  /* an unknown size or rank reads "?" (else -1 and
				     as rank 0) */
};

/* Appends sh as text (see above); a NULL shape appends nothing. */
void tl_shape_append(GString *s, const Tensorflow__TensorShapeProto *sh, unsigned flags);

#endif
