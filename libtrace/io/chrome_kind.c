/* What each slice of a Chrome trace is to a table (io/chrome_kind.h). */
#include "io/chrome_kind.h"

#include <glib.h>
#include <string.h>

uint8_t tl_chrome_kind_of_cat(const char *cat)
{
	static const char *const device[] = {"kernel", "gpu_memcpy", "gpu_memset", "memcpy",
					     "memset"};
	uint8_t k = 0;
	for (size_t i = 0; i < G_N_ELEMENTS(device); i++)
		if (g_ascii_strcasecmp(cat, device[i]) == 0)
			k = TL_SLICE_DEVICE | TL_CHROME_KIND_BY_CAT;
	if (strcmp(cat, "Trace") == 0 || strcmp(cat, "gpu_user_annotation") == 0)
		k = TL_SLICE_SKIP | TL_CHROME_KIND_BY_CAT;
	if (strcmp(cat, "cpu_op") == 0 || strcmp(cat, "Operator") == 0)
		k |= TL_SLICE_OP;
	return k;
}

static bool is_derived_line(const char *name, bool has_streams)
{
	static const char *const derived[] = {
	    "TensorFlow Ops", "TensorFlow Name Scope", "Framework Ops", "Framework Name Scope",
	    "Source code",    "Launch Stats",	       "XLA Modules",	"XLA TraceMe"};
	for (size_t i = 0; i < G_N_ELEMENTS(derived); i++)
		if (strcmp(name, derived[i]) == 0)
			return true;
	return has_streams && strcmp(name, "XLA Ops") == 0;
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
		if (t->name != NULL && g_str_has_prefix(t->name, "Stream #"))
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
			k = strcmp(tn, "Steps") == 0			 ? TL_SLICE_STEP
			    : is_derived_line(tn, stream_lines[t->proc]) ? TL_SLICE_SKIP
									 : TL_SLICE_DEVICE;
		}
		kind[i] = k;
	}
	g_free(stream_lines);
	return kind;
}
