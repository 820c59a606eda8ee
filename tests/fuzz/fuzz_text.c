/* fuzz_text: the protobuf text format reader (pbtext): guessing the message
 * from the first field, parsing to wire format, decoding. What parses is
 * printed back (tl_pbtext_print) and must parse again to the same bytes:
 * the printer never writes what the reader refuses. */
#include "fuzz.h"

#include "base/arena.h"
#include "io/format.h"
#include "io/pbtext.h"
#include "io/source.h"

#include "../tools/pbtext_print.h"

static void round_trip(const ProtobufCMessageDescriptor *d, const uint8_t *wire, size_t len)
{
	ProtobufCMessage *msg = protobuf_c_message_unpack(d, NULL, len, wire);
	if (msg == NULL)
		return;
	GString *text = g_string_new(NULL);
	tl_pbtext_print(msg, text);
	GByteArray *again = g_byte_array_new();
	tl_error err;
	if (tl_pbtext_to_wire(d, text->str, text->len, again, &err) < 0) {
		fprintf(stderr, "fuzz: printed text does not parse: %s\n%s\n", err.msg, text->str);
		abort();
	}
	ProtobufCMessage *msg2 = protobuf_c_message_unpack(d, NULL, again->len, again->data);
	if (msg2 == NULL) {
		fprintf(stderr, "fuzz: printed text does not decode\n%s\n", text->str);
		abort();
	}
	GString *text2 = g_string_new(NULL);
	tl_pbtext_print(msg2, text2);
	if (!g_string_equal(text, text2)) {
		fprintf(stderr, "fuzz: text round trip differs:\n%s\n---\n%s\n", text->str,
			text2->str);
		abort();
	}
	g_string_free(text2, TRUE);
	protobuf_c_message_free_unpacked(msg2, NULL);
	g_byte_array_free(again, TRUE);
	g_string_free(text, TRUE);
	protobuf_c_message_free_unpacked(msg, NULL);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	tl_format f;
	tl_error err;
	tl_format_sniff(data, size, &f, &err);
	const ProtobufCMessageDescriptor *d = tl_pbtext_guess((const char *)data, size);
	if (d == NULL)
		d = &tensorflow__run_metadata__descriptor;
	GByteArray *wire = g_byte_array_new();
	if (tl_pbtext_to_wire(d, (const char *)data, size, wire, &err) == 0)
		round_trip(d, wire->data, wire->len);
	else if (wire->len != 0)
		abort(); /* an error leaves the output as it was */
	g_byte_array_free(wire, TRUE);

	tl_arena *arena = tl_arena_new();
	Tensorflow__RunMetadata *meta = NULL;
	tl_source_decode_runmeta(data, size, TL_FORMAT_TEXT_PROTO, arena, &meta, &err);
	tl_arena_free(arena);
	fuzz_end();
	return 0;
}
