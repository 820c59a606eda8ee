/* fuzz_decode: the decoder (pbdecode) against protobuf-c's unpack, on the
 * same bytes read as several message types: the same verdict, the same
 * message (packed, every field and the model's fields), the nesting error
 * tl_pbwire_check_depth gives, and a refused input left unchanged. */
#include "fuzz.h"

#include "base/arena.h"
#include "io/pbdecode.h"
#include "io/pbwire.h"
#include "tensorflow.pb-c.h"

static void differ(const ProtobufCMessageDescriptor *d, const char *what)
{
	fprintf(stderr, "fuzz: pbdecode and protobuf-c differ on a %s: %s\n", d->short_name, what);
	abort();
}

static uint8_t *packed(const ProtobufCMessage *m, size_t *n)
{
	*n = protobuf_c_message_get_packed_size(m);
	uint8_t *buf = malloc(*n + 1);
	if (buf == NULL || protobuf_c_message_pack(m, buf) != *n)
		abort();
	return buf;
}

static void same_message(const ProtobufCMessageDescriptor *d, const ProtobufCMessage *want,
			 const ProtobufCMessage *got)
{
	size_t n1, n2;
	uint8_t *a = packed(want, &n1), *b = packed(got, &n2);
	if (n1 != n2 || memcmp(a, b, n1) != 0)
		differ(d, "decoded messages pack differently");
	free(a);
	free(b);
}

static void one(const ProtobufCMessageDescriptor *d, const uint8_t *data, size_t size)
{
	tl_error deep = {{0}};
	/* protobuf-c recurses without a limit (the stack would overflow):
	 * nesting the decoder refuses is not given to it */
	bool too_deep = tl_pbwire_check_depth(d, data, size, TL_PBWIRE_MAX_DEPTH, &deep) < 0;
	/* in an arena: clearing the model's fields drops what they held */
	tl_arena *ref_arena = tl_arena_new();
	ProtobufCMessage *ref =
	    too_deep ? NULL
		     : protobuf_c_message_unpack(d, tl_arena_protobuf(ref_arena), size, data);
	if (!too_deep && tl_pbdecode_check(d, data, size) != (ref != NULL))
		differ(d, "tl_pbdecode_check's verdict");
	for (int fields = TL_PBDECODE_ALL; fields <= TL_PBDECODE_MODEL; fields++) {
		tl_arena *arena = tl_arena_new();
		uint8_t *copy = tl_arena_alloc(arena, size + 1);
		memcpy(copy, data, size);
		copy[size] = 0xa5;
		ProtobufCMessage *got = NULL;
		tl_error err = {{0}};
		int rc =
		    tl_pbdecode(d, copy, size, fields, 1 + (unsigned)fields, arena, &got, &err);
		if (rc != 0 && (memcmp(copy, data, size) != 0 || copy[size] != 0xa5))
			differ(d, "a refused input was modified");
		if (too_deep) {
			if (rc != -1 || strcmp(err.msg, deep.msg) != 0)
				differ(d, "nesting not refused as tl_pbwire_check_depth words it");
		} else if ((rc == 0) != (ref != NULL)) {
			differ(d, ref != NULL ? "protobuf-c accepts, pbdecode refuses"
					      : "protobuf-c refuses, pbdecode accepts");
		} else if (rc != 0) {
			if (rc != TL_PBDECODE_MALFORMED || strstr(err.msg, "malformed ") != err.msg)
				differ(d, "a refusal that is not 'malformed'");
		} else {
			if (fields == TL_PBDECODE_MODEL)
				tl_pbdecode_clear_skipped(ref);
			same_message(d, ref, got);
		}
		tl_arena_free(arena);
	}
	tl_arena_free(ref_arena);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const ProtobufCMessageDescriptor *const types[] = {
	    &tensorflow__run_metadata__descriptor,    &tensorflow__step_stats__descriptor,
	    &tensorflow__graph_def__descriptor,	      &tensorflow__event__descriptor,
	    &tensorflow__node_exec_stats__descriptor, &tensorflow__node_def__descriptor,
	    &tensorflow__attr_value__descriptor,      &tensorflow__tensor_proto__descriptor,
	};
	for (size_t i = 0; i < sizeof types / sizeof types[0]; i++)
		one(types[i], data, size);
	fuzz_end();
	return 0;
}
