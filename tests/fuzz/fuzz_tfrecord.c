/* fuzz_tfrecord: TFRecord framing and TensorBoard event files, through the
 * input layer (gzip sniffing included) and the source that yields one run
 * per record or per tagged_run_metadata, passing over damage or, strict,
 * stopping at it. */
#include "fuzz.h"

#include "io/source.h"
#include "model/run.h"
#include "io/tfrecord.h"

#include <stdlib.h>

/* Runs out of the input, forced as a stream (pass 0) or sniffed; -1 when it
 * does not open as a stream or ends in an error. */
static long count_runs(const char *path, int pass)
{
	tl_error err;
	tl_source *src = NULL;
	if (tl_source_open(&src, path, pass == 0 ? TL_FORMAT_TFRECORD : TL_FORMAT_AUTO, &err) < 0)
		return -1;
	if (pass == 1 && tl_source_format(src) != TL_FORMAT_TFRECORD) {
		tl_source_close(src);
		return -1;
	}
	tl_run *run = NULL;
	long n = 0;
	int rc;
	while ((rc = tl_run_next(src, &run, &err)) > 0) {
		tl_run_free(run);
		n++;
	}
	tl_source_close(src);
	return rc < 0 ? -1 : n;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const char *path = fuzz_input_path(data, size);
	tl_error err;

	/* the framing alone: every call moves on, so damage never loops */
	tl_input *in = NULL;
	if (tl_input_open(&in, path, &err) == 0) {
		GByteArray *rec = g_byte_array_new();
		tl_tfrecord_reader r;
		tl_tfrecord_reader_init(&r, in);
		uint64_t last = 0;
		while (tl_tfrecord_next(&r, rec, &err) > 0) {
			if (tl_input_offset(in) <= last)
				abort();
			last = tl_input_offset(in);
		}
		g_byte_array_free(rec, TRUE);
		tl_input_close(in);
	}

	/* runs out of a stream, forced and sniffed: strict reads the same runs
	 * as lenient where there was no damage, and never runs past damage */
	for (int pass = 0; pass < 2; pass++) {
		tl_warn_clear();
		long lenient = count_runs(path, pass);
		size_t damage = tl_warn_damage_count();
		tl_warn_set_strict(true);
		long strict = count_runs(path, pass);
		tl_warn_set_strict(false);
		if (damage == 0 && strict != lenient)
			abort();
		if (damage > 0 && strict != -1)
			abort();
	}
	fuzz_end();
	return 0;
}
