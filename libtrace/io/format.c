/*
 * format: input kinds by name, and the first, cheap decision on what an
 * input is. Which message a protobuf holds is decided later (pbwire for
 * binary, pbtext for text), because that needs more than the first bytes.
 */
#include "io/format.h"

#include "base/utf8.h"

#include "io/chrome_reader.h"
#include "io/pbwire.h"
#include "tensorflow.pb-c.h"
#include "io/tfrecord.h"

#include <glib.h>
#include <stdbool.h>
#include <string.h>

/* The text check looks at this much of the head: enough to see past a
 * comment block, small enough to stay cheap. */
#define TEXT_SNIFF_MAX 4096

static const char *const names[] = {
    [TL_FORMAT_AUTO] = "auto",
    [TL_FORMAT_RUNMETA] = "runmeta",
    [TL_FORMAT_RUNMETA_TEXT] = "runmeta-text",
    [TL_FORMAT_STEPSTATS] = "stepstats",
    [TL_FORMAT_STEPSTATS_TEXT] = "stepstats-text",
    [TL_FORMAT_GRAPHDEF] = "graphdef",
    [TL_FORMAT_GRAPHDEF_TEXT] = "graphdef-text",
    [TL_FORMAT_TFRECORD] = "tfrecord",
    [TL_FORMAT_CHROME] = "chrome",
    [TL_FORMAT_XSPACE] = "xspace",
    [TL_FORMAT_TF2TRACE] = "tf2-trace",
    /* Sniffed families, named for messages; not accepted by --input-format. */
    [TL_FORMAT_BINARY_PROTO] = "binary-proto",
    [TL_FORMAT_TEXT_PROTO] = "text-proto",
};

/* The kinds a user may name: everything up to and including tf2-trace. */
#define N_USER_FORMATS (TL_FORMAT_TF2TRACE + 1)

const char *tl_format_name(tl_format f)
{
	if ((size_t)f >= G_N_ELEMENTS(names))
		return "unknown";
	return names[f];
}

const char *tl_format_names(void)
{
	static char list[256];
	if (list[0] != '\0')
		return list;
	for (int i = 0; i < N_USER_FORMATS; i++) {
		if (i > 0)
			g_strlcat(list, ", ", sizeof list);
		g_strlcat(list, names[i], sizeof list);
	}
	return list;
}

int tl_format_parse(const char *name, tl_format *out)
{
	for (int i = 0; i < N_USER_FORMATS; i++)
		if (strcmp(name, names[i]) == 0) {
			*out = (tl_format)i;
			return 0;
		}
	/* No error argument in the interface: the caller says which option. */
	return -1;
}

static bool is_space(uint8_t c)
{
	return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v';
}

static bool is_ident_start(uint8_t c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_';
}

/* Printable text: UTF-8 without control characters other than whitespace.
 * The head may be a prefix of the input, so a character cut by its end (or
 * by the end of the window) is fine. */
static bool is_printable(const uint8_t *s, size_t n)
{
	static const uint32_t spaces = TL_UTF8_TAB_LF_CR | (1u << '\f') | (1u << '\v');
	return tl_utf8_is_text((const char *)s, n > TEXT_SNIFF_MAX ? TEXT_SNIFF_MAX : n, spaces,
			       true);
}

int tl_format_sniff(const uint8_t *data, size_t len, tl_format *out, tl_error *err)
{
	if (len == 0)
		return tl_error_set(err, "empty input");
	if (tl_tfrecord_sniff(data, len)) {
		*out = TL_FORMAT_TFRECORD;
		return 0;
	}
	size_t i = 0;
	if (len >= 3 && memcmp(data, "\xef\xbb\xbf", 3) == 0)
		i = 3;
	while (i < len && is_space(data[i]))
		i++;
	if (i == len)
		return tl_error_set(err, "empty input (only whitespace)");
	if (data[i] == '{' || data[i] == '[') {
		*out = TL_FORMAT_CHROME;
		return 0;
	}
	if ((is_ident_start(data[i]) || data[i] == '#') && is_printable(data + i, len - i)) {
		*out = TL_FORMAT_TEXT_PROTO;
		return 0;
	}
	*out = TL_FORMAT_BINARY_PROTO;
	return 0;
}

/* ---- neighbours ---------------------------------------------------------- */

/* A neighbour must be explained by its schema, not merely tolerated by it:
 * a few known fields at least, its main field among them. */
#define NEIGHBOUR_MIN_SCORE 6

static const struct neighbour {
	const ProtobufCMessageDescriptor *desc;
	uint32_t main_field; /* XSpace.planes, Trace.trace_events or devices */
	uint32_t other_main;
	const char *what;
} neighbours[] = {
    {&tensorflow__profiler__xspace__descriptor, 1, 1,
     "a TF2/JAX profiler XSpace (tensorflow.profiler.XSpace)"},
    {&tensorflow__profiler__trace__descriptor, 4, 1,
     "a TF 2.0 profiler trace (tensorflow.profiler.Trace, a .trace file)"},
};

/* Whether a top-level field numbered a or b occurs (a quick scan; the walk
 * has already proved the framing). */
static bool has_top_field(const uint8_t *data, size_t len, uint32_t a, uint32_t b)
{
	size_t pos = 0;
	while (pos < len) {
		uint64_t key, v;
		if (!tl_pbwire_varint(data, len, &pos, &key))
			return false;
		if (key >> 3 == a || key >> 3 == b)
			return true;
		switch (key & 7) {
		case 0:
			if (!tl_pbwire_varint(data, len, &pos, &v))
				return false;
			break;
		case 1:
			pos += 8;
			break;
		case 2:
			if (!tl_pbwire_varint(data, len, &pos, &v) || v > len - pos)
				return false;
			pos += (size_t)v;
			break;
		case 5:
			pos += 4;
			break;
		default:
			return false;
		}
	}
	return false;
}

/* The neighbour the bytes are, or NULL; *cut when the walk ran past the
 * end. */
static const struct neighbour *find_neighbour(const uint8_t *data, size_t len, bool *cut_out)
{
	/* The RunMetadata family first: whatever walks as one of them is one,
	 * whatever else it might also fit. */
	const ProtobufCMessageDescriptor *ours = NULL;
	if (tl_pbwire_classify(data, len, &ours, NULL) == 0)
		return NULL;
	const struct neighbour *best = NULL;
	long best_score = NEIGHBOUR_MIN_SCORE - 1;
	for (size_t i = 0; i < G_N_ELEMENTS(neighbours); i++) {
		const struct neighbour *n = &neighbours[i];
		long score = 0;
		bool cut = false;
		bool fits = tl_pbwire_fits(n->desc, data, len, &score, &cut, NULL);
		/* A truncated file is still named when what came before the cut
		 * fitted well. */
		if ((!fits && !cut) || score <= best_score ||
		    !has_top_field(data, len, n->main_field, n->other_main))
			continue;
		best = n;
		best_score = score;
		*cut_out = cut;
	}
	return best;
}

bool tl_format_neighbour(const uint8_t *data, size_t len, tl_error *err)
{
	bool xspace;
	return tl_format_neighbour_xspace(data, len, err, &xspace);
}

bool tl_format_neighbour_xspace(const uint8_t *data, size_t len, tl_error *err, bool *xspace)
{
	bool cut = false;
	const struct neighbour *best = find_neighbour(data, len, &cut);
	*xspace = best == &neighbours[0];
	if (best == NULL)
		return false;
	if (cut)
		tl_error_set(err, "%s (this one is truncated at byte %zu)", best->what, len);
	else
		tl_error_set(err, "%s", best->what);
	return true;
}

bool tl_format_is_xspace(const uint8_t *data, size_t len)
{
	bool cut = false;
	return find_neighbour(data, len, &cut) == &neighbours[0];
}

bool tl_format_is_tf2trace(const uint8_t *data, size_t len)
{
	bool cut = false;
	return find_neighbour(data, len, &cut) == &neighbours[1];
}

/* ---- Chrome trace flavours ------------------------------------------------ */

/* Categories only Kineto writes (PyTorch 1.8 to 2.x). */
static bool kineto_category(const tl_chrome_in_event *ev)
{
	static const char *const cats[] = {
	    "\"cpu_op\"",
	    "\"cuda_runtime\"",
	    "\"cuda_driver\"",
	    "\"gpu_memcpy\"",
	    "\"gpu_memset\"",
	    "\"python_function\"",
	    "\"user_annotation\"",
	    "\"gpu_user_annotation\"",
	    "\"ac2g\"",
	    "\"Operator\"",
	    "\"Runtime\"",
	};
	for (size_t i = 0; i < G_N_ELEMENTS(cats); i++)
		if (tl_chrome_reader_span_is(ev, ev->cat, cats[i]))
			return true;
	return false;
}

/* A TF2 profiler process: its planes are named "/host:CPU", "/device:GPU:0"
 * (timeline.py names them "/job:.../device:CPU:0 Compute"). */
static bool tf2_process(const tl_chrome_in_event *ev, GString *buf)
{
	if (ev->ph != 'M' || !tl_chrome_reader_span_is(ev, ev->name, "\"process_name\"") ||
	    ev->args.len == 0)
		return false;
	const char *args = tl_chrome_reader_span_text(ev, ev->args, buf);
	return strstr(args, "\"/host:") != NULL;
}

const char *tl_format_chrome_kind(const uint8_t *data, size_t len)
{
	static const char *const kineto = "a PyTorch profiler (Kineto) trace";
	static const char *const tf2 = "a TF2 profiler trace (TensorBoard's trace viewer JSON)";
	tl_chrome_reader *r = NULL;
	if (tl_chrome_reader_open(&r, data, len, NULL) < 0)
		return "a Chrome trace";
	const char *kind = NULL;
	GString *buf = g_string_new(NULL);
	tl_chrome_in_event ev;
	int rc;
	while ((rc = tl_chrome_reader_next(r, &ev, NULL)) > 0) {
		if (kineto_category(&ev)) {
			kind = kineto;
			break;
		}
		if (kind == NULL && tf2_process(&ev, buf))
			kind = tf2;
	}
	if (rc == 0 && kind != tf2) {
		const char **keys, **values;
		size_t *key_lens, *value_lens;
		size_t n = tl_chrome_reader_extras(r, &keys, &key_lens, &values, &value_lens);
		static const char *const kineto_keys[] = {"schemaVersion", "deviceProperties",
							  "traceName", "distributedInfo"};
		for (size_t i = 0; i < n && kind == NULL; i++)
			for (size_t k = 0; k < G_N_ELEMENTS(kineto_keys); k++)
				if (key_lens[i] == strlen(kineto_keys[k]) &&
				    memcmp(keys[i], kineto_keys[k], key_lens[i]) == 0)
					kind = kineto;
	}
	g_string_free(buf, TRUE);
	tl_chrome_reader_close(r);
	return kind != NULL ? kind : "a Chrome trace";
}
