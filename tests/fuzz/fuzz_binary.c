/* fuzz_binary: the binary protobuf reader: sniffing the family, classifying
 * which message it is (pbwire), decoding it (pbdecode), and building the
 * run's model from it. Also each message forced, as --input-format does. */
#include "fuzz.h"

#include "base/arena.h"
#include "io/format.h"
#include "model/run.h"
#include "io/pbwire.h"
#include "io/source.h"

static void decode(const uint8_t *data, size_t size, tl_format f, bool build)
{
	tl_arena *arena = tl_arena_new();
	Tensorflow__RunMetadata *meta = NULL;
	tl_error err;
	if (tl_source_decode_runmeta(data, size, f, arena, &meta, &err) < 0) {
		if (err.msg[0] == '\0')
			abort(); /* an error says what went wrong */
		tl_arena_free(arena);
		return;
	}
	if (!build) {
		tl_arena_free(arena);
		return;
	}
	tl_run *run = NULL;
	if (tl_run_build(&run, arena, meta, "fuzz", &err) < 0) {
		tl_arena_free(arena);
		return;
	}
	tl_run_free(run);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	tl_format f;
	tl_error err;
	if (tl_format_sniff(data, size, &f, &err) == 0 && f == TL_FORMAT_BINARY_PROTO) {
		const ProtobufCMessageDescriptor *d = NULL;
		tl_pbwire_classify(data, size, &d, &err);
	}
	decode(data, size, TL_FORMAT_BINARY_PROTO, true);
	/* forced kinds: the decoder alone, without the classifier's vetting */
	decode(data, size, TL_FORMAT_RUNMETA, true);
	decode(data, size, TL_FORMAT_STEPSTATS, false);
	decode(data, size, TL_FORMAT_GRAPHDEF, false);
	fuzz_end();
	return 0;
}
