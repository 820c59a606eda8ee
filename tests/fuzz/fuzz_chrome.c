/* fuzz_chrome: the streaming Chrome trace JSON reader (io/chrome_reader): every
 * event, every field's text and number, the extra top-level keys, and an
 * event copied through with its ids rewritten, which must stay valid JSON. */
#include "fuzz.h"

#include "emit/chrome.h"
#include "io/chrome_reader.h"
#include "emit/merge.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	tl_chrome_reader *r = NULL;
	tl_error err;
	double first;
	tl_merge_first_ts(data, size, &first);
	if (tl_chrome_reader_open(&r, data, size, &err) < 0) {
		fuzz_end();
		return 0;
	}
	tl_output *o = fuzz_output();
	tl_output_char(o, '[');
	GString *buf = g_string_new(NULL);
	tl_chrome_in_event ev;
	int rc;
	uint64_t n = 0;
	while ((rc = tl_chrome_reader_next(r, &ev, &err)) > 0) {
		const tl_span *spans[] = {&ev.name, &ev.cat, &ev.ph_span, &ev.pid, &ev.tid, &ev.ts,
					  &ev.dur, &ev.id, &ev.id2, &ev.bind_id, &ev.args};
		for (size_t i = 0; i < sizeof spans / sizeof spans[0]; i++) {
			if (spans[i]->len == 0)
				continue;
			if ((size_t)spans[i]->off + spans[i]->len > ev.raw_len)
				abort();
			double v;
			tl_chrome_reader_span_text(&ev, *spans[i], buf);
			tl_chrome_reader_span_number(&ev, *spans[i], &v);
		}
		if (n++ > 0)
			tl_output_char(o, ',');
		tl_chrome_rewrite rw = {.pid = "7", .tid = "\"t\"", .ts = "1.5", .id = "\"0x1\""};
		tl_chrome_reader_rewrite(o, &ev, &rw);
	}
	tl_output_char(o, ']');
	if (rc == 0) {
		const char **keys, **values;
		size_t *key_lens, *value_lens;
		tl_chrome_reader_extras(r, &keys, &key_lens, &values, &value_lens);
		tl_chrome_reader_time_unit(r);
		fuzz_check_json(o, false);
	} else {
		fuzz_close(o);
	}
	g_string_free(buf, TRUE);
	tl_chrome_reader_close(r);
	fuzz_end();
	return 0;
}
