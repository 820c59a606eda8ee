#include "emit/runmeta.h"

#include "io/tfrecord.h"

#include <glib.h>

void tl_runmeta_write(tl_output *out, const Tensorflow__RunMetadata *meta)
{
	size_t n = protobuf_c_message_get_packed_size(&meta->base);
	uint8_t *buf = g_malloc(n ? n : 1);
	protobuf_c_message_pack(&meta->base, buf);
	GByteArray *rec = g_byte_array_sized_new((guint)n + 16);
	tl_tfrecord_frame(rec, buf, n);
	tl_output_bytes(out, rec->data, rec->len);
	g_byte_array_free(rec, TRUE);
	g_free(buf);
}
