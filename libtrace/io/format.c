/*
 * format: input kinds by name, and the first, cheap decision on what an
 * input is. Which message a protobuf holds is decided later (pbwire for
 * binary, pbtext for text), because that needs more than the first bytes.
 */
#include "io/format.h"
#include "io/format_internal.h"

#include "base/utf8.h"

#include "io/chrome_reader.h"
#include "io/pbjson.h"
#include "io/pbwire.h"
#include "io/tf2names.h"
#include "tensorflow.pb-c.h"
#include "io/tfrecord.h"

#include <glib.h>
#include <jansson.h>
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
    [TL_FORMAT_RUNMETA_JSON] = "runmeta-json",
    [TL_FORMAT_STEPSTATS_JSON] = "stepstats-json",
    [TL_FORMAT_GRAPHDEF_JSON] = "graphdef-json",
    [TL_FORMAT_TF2TRACE] = "tf2-trace",
    /* Sniffed families, named for messages; not accepted by --input-format. */
    [TL_FORMAT_BINARY_PROTO] = "binary-proto",
    [TL_FORMAT_TEXT_PROTO] = "text-proto",
    [TL_FORMAT_JSON_PROTO] = "json-proto",
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
	if ((data[i] == '{' || data[i] == '"') && tl_pbjson_sniff(data + i, len - i)) {
		*out = TL_FORMAT_JSON_PROTO;
		return 0;
	}
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

/* What a Chrome trace holds that tells its writer. Each writer leaves
 * several marks, so one stray field names nothing:
 *   timeline.py (TF1, up to TF 2's tf.compat.v1): processes "<device>
 *     Compute" and "<device> Tensors" and one "Allocators", whatever its
 *     device names ("/job:.../device:GPU:0", TF 1.14's "/host:CPU" and
 *     "/gpu:0 (Quadro P5000)/context#0/stream#1:Kernel"); ops as X events of
 *     cat "Op" with args.op (the strong marks); flows of cat "DataFlow",
 *     tensors of cat "Tensor", allocator counters of cat "Memory" (weak);
 *   the TF2 profiler's trace viewer JSON: processes named for a device alone
 *     ("/device:GPU:0", "/host:CPU"), threads "Stream #N(...)" (the strong
 *     marks); displayTimeUnit, X events without a cat (the weak ones);
 *   Kineto: its top-level keys, or categories only it writes. */
/* (struct chrome_marks is in io/format_internal.h.) */

/* The "name" of a metadata event's args, or NULL (in buf). */
static const char *meta_name(const tl_chrome_in_event *ev, GString *buf)
{
	if (ev->args.len == 0)
		return NULL;
	json_error_t jerr;
	json_t *a = json_loadb(ev->raw + ev->args.off, ev->args.len, 0, &jerr);
	const char *n = json_string_value(json_object_get(a, "name"));
	if (n != NULL)
		g_string_assign(buf, n);
	json_decref(a);
	return n != NULL ? buf->str : NULL;
}

static bool is_device_name(const char *n)
{
	return g_str_has_prefix(n, "/host:") || g_str_has_prefix(n, "/device:") ||
	       g_str_has_prefix(n, "/job:") || g_str_has_prefix(n, "/gpu:") ||
	       g_str_has_prefix(n, "/cpu:");
}

static void note_marks(const tl_chrome_in_event *ev, struct chrome_marks *m, GString *buf)
{
	if (ev->ph == 'M') {
		bool proc = tl_chrome_reader_span_is(ev, ev->name, "\"process_name\"");
		bool thread = tl_chrome_reader_span_is(ev, ev->name, "\"thread_name\"");
		const char *n = proc || thread ? meta_name(ev, buf) : NULL;
		long stream;
		if (n == NULL)
			return;
		if (proc && (g_str_has_suffix(n, " Compute") || g_str_has_suffix(n, " Tensors") ||
			     strcmp(n, "Allocators") == 0))
			m->tf1_strong++;
		else if (proc && is_device_name(n))
			m->tf2_strong++;
		else if (thread && tl_tf2_stream_line(n, &stream))
			m->tf2_strong++;
		return;
	}
	if (ev->cat.len == 0) {
		if (ev->ph == 'X')
			m->tf2_weak = 1;
		return;
	}
	if (ev->ph == 'X' && tl_chrome_reader_span_is(ev, ev->cat, "\"Op\"") && ev->args.len > 0 &&
	    g_strstr_len(ev->raw + ev->args.off, ev->args.len, "\"op\"") != NULL)
		m->tf1_strong++;
	else if (tl_chrome_reader_span_is(ev, ev->cat, "\"DataFlow\"") ||
		 tl_chrome_reader_span_is(ev, ev->cat, "\"Tensor\"") ||
		 tl_chrome_reader_span_is(ev, ev->cat, "\"Memory\""))
		m->tf1_weak = 1;
}

static const char *const kind_kineto = TL_FORMAT_KINETO_KIND;

void tl_chrome_kind_look_init(tl_chrome_kind_look *k)
{
	*k = (tl_chrome_kind_look){.buf = g_string_new(NULL)};
}

void tl_chrome_kind_look_event(tl_chrome_kind_look *k, const tl_chrome_in_event *ev)
{
	if (k->kind != NULL)
		return;
	k->events++;
	if (kineto_category(ev))
		k->kind = kind_kineto;
	else
		note_marks(ev, &k->m, k->buf);
}

const char *tl_chrome_kind_look_end(tl_chrome_kind_look *k, tl_chrome_reader *r, int rc,
				    const uint8_t *data, size_t len)
{
	static const char *const tf2 = "a TF2 profiler trace (TensorBoard's trace viewer JSON)";
	static const char *const tf1 = "a TF1 timeline.py trace";
	const char *kind = k->kind;
	struct chrome_marks m = k->m;
	g_string_free(k->buf, TRUE);
	k->buf = NULL;
	if (rc == 0 && kind == NULL) {
		const char **keys, **values;
		size_t *key_lens, *value_lens;
		size_t n = tl_chrome_reader_extras(r, &keys, &key_lens, &values, &value_lens);
		static const char *const kineto_keys[] = {"schemaVersion", "deviceProperties",
							  "traceName", "distributedInfo",
							  "baseTimeNanoseconds"};
		for (size_t i = 0; i < n && kind == NULL; i++) {
			for (size_t j = 0; j < G_N_ELEMENTS(kineto_keys); j++)
				if (key_lens[i] == strlen(kineto_keys[j]) &&
				    memcmp(keys[i], kineto_keys[j], key_lens[i]) == 0)
					kind = kind_kineto;
			if (key_lens[i] == 15 && memcmp(keys[i], "displayTimeUnit", 15) == 0)
				m.tf2_weak++;
		}
	}
	if (kind != NULL)
		return kind;
	/* no event, and no list of them: some other JSON */
	if (k->events == 0 && (rc < 0 || memmem(data, len, "\"traceEvents\"", 13) == NULL))
		return TL_FORMAT_NOT_A_TRACE;
	/* the strong marks decide; the weak ones only between two writers */
	unsigned one = m.tf1_strong > 0 ? 2 + m.tf1_weak : 0;
	unsigned two = m.tf2_strong > 0 ? 2 + m.tf2_weak : 0;
	if (one == 0 && two == 0)
		return "a Chrome trace";
	return one >= two ? tf1 : tf2;
}

const char *tl_format_chrome_kind(const uint8_t *data, size_t len)
{
	tl_chrome_reader *r = NULL;
	if (tl_chrome_reader_open(&r, data, len, NULL) < 0)
		return TL_FORMAT_NOT_A_TRACE;
	tl_chrome_kind_look look;
	tl_chrome_kind_look_init(&look);
	tl_chrome_in_event ev;
	int rc = 0;
	while (look.kind == NULL && (rc = tl_chrome_reader_next(r, &ev, NULL)) > 0)
		tl_chrome_kind_look_event(&look, &ev);
	const char *kind = tl_chrome_kind_look_end(&look, r, look.kind != NULL ? 1 : rc, data, len);
	tl_chrome_reader_close(r);
	return kind;
}
