/* fuzz_pbjson: the protobuf JSON reader (pbjson): the sniff, the message
 * guessed from the top-level keys or named, the wire bytes it writes. What
 * converts must unpack with protobuf-c as the message it was read as (the
 * reader never writes wire bytes a decoder refuses), a refusal leaves the
 * output as it was, and the source's decode of the same bytes agrees with
 * the conversion's verdict. */
#include "fuzz.h"

#include "base/arena.h"
#include "io/format.h"
#include "io/pbjson.h"
#include "io/source.h"
#include "tensorflow.pb-c.h"

/* Converts as `d` (NULL: guessed); returns whether it converted. */
static bool convert(const ProtobufCMessageDescriptor *d, const uint8_t *data, size_t size)
{
	GByteArray *wire = g_byte_array_new();
	g_byte_array_append(wire, (const guint8 *)"ab", 2);
	tl_error err;
	bool ok = tl_pbjson_to_wire(data, size, &d, wire, &err) == 0;
	if (!ok && wire->len != 2) {
		fprintf(stderr, "fuzz: a refused document left %u bytes: %s\n", wire->len - 2,
			err.msg);
		abort();
	}
	if (ok) {
		ProtobufCMessage *m =
		    protobuf_c_message_unpack(d, NULL, wire->len - 2, wire->data + 2);
		if (m == NULL) {
			fprintf(stderr, "fuzz: pbjson wrote wire bytes protobuf-c refuses as %s\n",
				d->short_name);
			abort();
		}
		protobuf_c_message_free_unpacked(m, NULL);
	}
	g_byte_array_free(wire, TRUE);
	return ok;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	tl_pbjson_sniff(data, size);
	bool guessed = convert(NULL, data, size);
	convert(&tensorflow__run_metadata__descriptor, data, size);
	convert(&tensorflow__graph_def__descriptor, data, size);
	/* the deepest messages: every scalar kind lives in a TensorProto */
	convert(&tensorflow__tensor_proto__descriptor, data, size);

	tl_arena *arena = tl_arena_new();
	Tensorflow__RunMetadata *meta = NULL;
	tl_error err;
	bool decoded =
	    tl_source_decode_runmeta(data, size, TL_FORMAT_JSON_PROTO, arena, &meta, &err) == 0;
	if (decoded != guessed) {
		fprintf(stderr, "fuzz: pbjson converts (%d) but the source decodes (%d)\n", guessed,
			decoded);
		abort();
	}
	tl_arena_free(arena);
	fuzz_end();
	return 0;
}
