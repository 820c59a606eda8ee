/* What each slice of a Chrome trace is to a table (io/chrome_kind.h). */
#include "io/chrome_kind.h"

#include "io/tf2names.h"

#include <glib.h>
#include <string.h>

uint8_t tl_chrome_kind_of_cat(const char *cat)
{
	switch (tl_kineto_cat_of(cat)) { /* Kineto's cats: io/tf2names.h */
	case TL_KINETO_DEVICE:
		return TL_SLICE_DEVICE | TL_CHROME_KIND_BY_CAT;
	case TL_KINETO_LABEL:
		return TL_SLICE_SKIP | TL_CHROME_KIND_BY_CAT;
	case TL_KINETO_OP:
		return TL_SLICE_OP;
	case TL_KINETO_LAUNCH:
		return TL_SLICE_RUNTIME;
	default:
		return 0;
	}
}

uint8_t *tl_chrome_kind_threads(const tl_chrome_ids *ids)
{
	const GPtrArray *procs = ids->procs, *threads = ids->threads;
	bool tf1_streams = false;
	for (guint i = 0; i < procs->len; i++) {
		const tl_chrome_proc *p = g_ptr_array_index(procs, i);
		if (p->name != NULL && strstr(p->name, "/stream:") != NULL &&
		    !g_str_has_suffix(p->name, "/stream:all"))
			tf1_streams = true;
	}
	bool *stream_lines = g_new0(bool, procs->len + 1); /* per process */
	for (guint i = 0; i < threads->len; i++) {
		const tl_chrome_thread *t = g_ptr_array_index(threads, i);
		long stream;
		if (tl_tf2_stream_line(t->name, &stream))
			stream_lines[t->proc] = true;
	}
	uint8_t *kind = g_new(uint8_t, threads->len + 1);
	for (guint i = 0; i < threads->len; i++) {
		const tl_chrome_thread *t = g_ptr_array_index(threads, i);
		const tl_chrome_proc *p = g_ptr_array_index(procs, t->proc);
		const char *pn = p->name != NULL ? p->name : "";
		uint8_t k = TL_SLICE_HOST;
		if (g_str_has_suffix(pn, "/stream:all") || g_str_has_suffix(pn, "/memcpy"))
			k = tf1_streams ? TL_SLICE_SKIP : TL_SLICE_DEVICE;
		else if (strstr(pn, "/stream:") != NULL)
			k = TL_SLICE_DEVICE;
		else if (g_str_has_prefix(pn, "/device:") && !p->tf1) {
			const char *tn = t->name != NULL ? t->name : "";
			k = strcmp(tn, "Steps") == 0				? TL_SLICE_STEP
			    : tl_tf2_is_derived_line(tn, stream_lines[t->proc]) ? TL_SLICE_SKIP
										: TL_SLICE_DEVICE;
		}
		kind[i] = k;
	}
	g_free(stream_lines);
	return kind;
}
