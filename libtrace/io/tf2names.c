#include "io/tf2names.h"

#include <glib.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

bool tl_tf2_stream_line(const char *name, long *stream)
{
	if (name == NULL || !g_str_has_prefix(name, "Stream #"))
		return false;
	char *end = NULL;
	*stream = strtol(name + 8, &end, 10);
	return end != name + 8;
}

bool tl_tf2_is_tf_op(const char *s, size_t n)
{
	const char *colon = n > 0 ? memrchr(s, ':', n) : NULL;
	if (colon == NULL || colon == s || colon + 1 == s + n || colon[-1] == ':')
		return false;
	for (const char *p = colon + 1; p < s + n; p++)
		if (!g_ascii_isalnum(*p) && *p != '_')
			return false;
	return true;
}

bool tl_tf2_split_tf_op(const char *s, size_t *node_len, const char **op, size_t *op_len)
{
	if (s == NULL)
		return false;
	const char *hash = strchr(s, '#');
	size_t n = hash != NULL ? (size_t)(hash - s) : strlen(s);
	if (!tl_tf2_is_tf_op(s, n))
		return false;
	const char *colon = memrchr(s, ':', n);
	*node_len = (size_t)(colon - s);
	*op = colon + 1;
	*op_len = n - (size_t)(colon + 1 - s);
	return true;
}

bool tl_tf2_is_derived_line(const char *name, bool has_streams)
{
	static const char *const derived[] = {
	    "TensorFlow Ops", "TensorFlow Name Scope", "Framework Ops", "Framework Name Scope",
	    "Source code",    "Launch Stats",	       "XLA Modules",	"XLA TraceMe"};
	if (name == NULL)
		return false;
	for (size_t i = 0; i < G_N_ELEMENTS(derived); i++)
		if (strcmp(name, derived[i]) == 0)
			return true;
	return has_streams && strcmp(name, "XLA Ops") == 0;
}

tl_kineto_cat tl_kineto_cat_of(const char *cat)
{
	static const char *const device[] = {"kernel", "gpu_memcpy", "gpu_memset", "memcpy",
					     "memset"};
	if (cat == NULL || cat[0] == '\0')
		return TL_KINETO_OTHER;
	for (size_t i = 0; i < G_N_ELEMENTS(device); i++)
		if (g_ascii_strcasecmp(cat, device[i]) == 0)
			return TL_KINETO_DEVICE;
	if (g_str_has_suffix(cat, "_runtime") || g_str_has_suffix(cat, "_driver") ||
	    strcmp(cat, "Runtime") == 0)
		return TL_KINETO_LAUNCH;
	if (strcmp(cat, "cpu_op") == 0 || strcmp(cat, "Operator") == 0)
		return TL_KINETO_OP;
	if (strcmp(cat, "Trace") == 0 || strcmp(cat, "gpu_user_annotation") == 0)
		return TL_KINETO_LABEL;
	return TL_KINETO_OTHER;
}

static bool gpu_number(const char *s, unsigned *gpu)
{
	char rest;
	return s != NULL && sscanf(s, "GPU %u%c", gpu, &rest) == 1;
}

bool tl_kineto_gpu_process(const char *labels, const char *name, unsigned *gpu)
{
	if (labels != NULL)
		return gpu_number(labels, gpu);
	return gpu_number(name, gpu);
}

/* "stream 7", "stream 7 ": 7 */
static bool stream_text(const char *s, long *stream)
{
	if (s == NULL || !g_str_has_prefix(s, "stream ") || !g_ascii_isdigit(s[7]))
		return false;
	char *end = NULL;
	*stream = strtol(s + 7, &end, 10);
	while (*end == ' ')
		end++;
	return *end == '\0';
}

/* "7": a GPU event's tid, its stream id as Kineto writes it */
static bool stream_id(const char *tid, long *stream)
{
	if (tid == NULL || !g_ascii_isdigit(tid[0]))
		return false;
	char *end = NULL;
	*stream = strtol(tid, &end, 10);
	return *end == '\0';
}

bool tl_kineto_stream_thread(const char *tid, const char *thread_name, long *stream)
{
	if (stream_text(tid, stream) || stream_text(thread_name, stream))
		return true;
	/* a thread_name that says otherwise ("Device 0") wins */
	return (thread_name == NULL || thread_name[0] == '\0') && stream_id(tid, stream);
}

/* The integer after "key": a number, or a string of digits. */
static bool int_after(const char *p, const char *end, int64_t *out)
{
	while (p < end && (*p == ' ' || *p == '\t' || *p == '\n' || *p == '\r'))
		p++;
	if (p == end || *p != ':')
		return false;
	p++;
	while (p < end && (*p == ' ' || *p == '\t' || *p == '\n' || *p == '\r'))
		p++;
	bool quoted = p < end && *p == '"';
	if (quoted)
		p++;
	char num[24];
	size_t n = 0;
	while (p + n < end && n < sizeof num - 1 &&
	       (g_ascii_isdigit(p[n]) || (n == 0 && p[n] == '-')))
		n++;
	if (n == 0 || (quoted && (p + n == end || p[n] != '"')))
		return false;
	memcpy(num, p, n);
	num[n] = '\0';
	char *stop = NULL;
	*out = g_ascii_strtoll(num, &stop, 10);
	return stop == num + n;
}

bool tl_names_args_correlation(const char *args, size_t len, int64_t *out)
{
	/* one pass over the quotes for both keys (most events have neither):
	 * Kineto's "correlation" wins where a text has both */
	static const char stem[] = "\"correlation";
	const size_t sl = sizeof stem - 1;
	const char *p = args, *end = args + len;
	bool have_id = false;
	int64_t id = 0, v;
	while ((p = memchr(p, '"', (size_t)(end - p))) != NULL) {
		if ((size_t)(end - p) <= sl || p[1] != 'c' || memcmp(p, stem, sl) != 0) {
			p++;
			continue;
		}
		const char *k = p + sl;
		if (*k == '"' && int_after(k + 1, end, &v)) {
			*out = v;
			return true;
		}
		if (!have_id && end - k >= 4 && memcmp(k, "_id\"", 4) == 0 &&
		    int_after(k + 4, end, &v)) {
			have_id = true;
			id = v;
		}
		p = k;
	}
	if (have_id)
		*out = id;
	return have_id;
}
