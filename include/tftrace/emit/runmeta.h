/*
 * runmeta: runs written back as RunMetadata, one TFRecord record each
 * (what TensorFlow's record writers frame), so a stream of many dumps is
 * one file every tool reads run by run.
 *
 * Writes into the caller's output and keeps nothing.
 */
#ifndef TL_EMIT_RUNMETA_H
#define TL_EMIT_RUNMETA_H

#include "base/output.h"
#include "tensorflow.pb-c.h"

void tl_runmeta_write(tl_output *out, const Tensorflow__RunMetadata *meta);

#endif
