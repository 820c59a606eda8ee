#include "io/source.h"

#include "io/chrome_run.h"
#include "io/logdir.h"
#include "io/pbdecode.h"
#include "io/pbjson.h"
#include "io/pbtext.h"
#include "io/pbwire.h"
#include "io/tf2trace.h"
#include "io/tfrecord.h"
#include "io/tlmem.h"
#include "io/xspace.h"

#include <glib.h>
#include <glib/gstdio.h>
#include <inttypes.h>
#include <string.h>

struct tl_source {
	tl_input *in;
	tl_format format;
	bool events; /* TFRecord of Event messages (TensorBoard) */
	const char *message; /* a whole message read: "a RunMetadata", ... */
	bool done;
	size_t count;		/* runs produced */
	size_t records;		/* records that framed */
	size_t damaged;		/* damage met */
	size_t undecoded;	/* records that framed but hold no RunMetadata/Event */
	char *first_damage;	/* what it was, for when nothing could be read */
	bool input_damage_told; /* the gzip stream's own damage reported */
	char *base;		/* name used in labels */
	GByteArray *rec;
	tl_tfrecord_reader reader;
	/* A folder input: its events files, read one after the other. */
	char *folder;
	tl_format folder_format; /* --input-format: auto or tfrecord */
	GPtrArray *files;
	guint next_file;
	char *label_dir;      /* the file's folder below `folder`, or NULL */
	uint64_t offset_done; /* bytes of the files already read */
	size_t folder_runs;
	/* An XSpace: decoded once into its own arena, a run per step; the
	 * links of the run last produced; the next run, built on a thread of
	 * its own while the caller works on this one. */
	tl_xspace *xs;
	tl_arena *xs_arena;
	size_t xs_next;
	tl_links xs_links;
	struct xs_job *xs_ahead;
	/* A Chrome trace: the run last read (its links, kind and allocator
	 * events live in that run's arena). */
	bool chrome_read;
	tl_chrome_run chrome;
	bool want_allocs;
	bool keep_allocs; /* tl_source_keep_xspace_allocs */
	bool tf2trace;	  /* the XSpace is a TF 2.0 .trace's (io/tf2trace.h) */
	GByteArray *tf2_xspace; /* its bytes, which the XSpace reads where they lie */
};

/* What a TF 2.0 profiler trace is called in messages. */
#define TF2TRACE_KIND "a TF 2.0 profiler trace (.trace)"

static const ProtobufCMessageDescriptor *descriptor_for(tl_format f)
{
	switch (f) {
	case TL_FORMAT_RUNMETA:
	case TL_FORMAT_RUNMETA_TEXT:
	case TL_FORMAT_RUNMETA_JSON:
		return &tensorflow__run_metadata__descriptor;
	case TL_FORMAT_STEPSTATS:
	case TL_FORMAT_STEPSTATS_TEXT:
	case TL_FORMAT_STEPSTATS_JSON:
		return &tensorflow__step_stats__descriptor;
	case TL_FORMAT_GRAPHDEF:
	case TL_FORMAT_GRAPHDEF_TEXT:
	case TL_FORMAT_GRAPHDEF_JSON:
		return &tensorflow__graph_def__descriptor;
	default:
		return NULL;
	}
}

static bool is_text_format(tl_format f)
{
	return f == TL_FORMAT_RUNMETA_TEXT || f == TL_FORMAT_STEPSTATS_TEXT ||
	       f == TL_FORMAT_GRAPHDEF_TEXT || f == TL_FORMAT_TEXT_PROTO;
}

static bool is_json_format(tl_format f)
{
	return f == TL_FORMAT_RUNMETA_JSON || f == TL_FORMAT_STEPSTATS_JSON ||
	       f == TL_FORMAT_GRAPHDEF_JSON || f == TL_FORMAT_JSON_PROTO;
}

/* Text and JSON are turned into wire bytes, whose size is checked then. */
static bool is_wire_format(tl_format f)
{
	return !is_text_format(f) && !is_json_format(f);
}

static int too_big(uint64_t len, tl_error *err)
{
	return tl_error_set(err,
			    "%" PRIu64 " bytes is over protobuf's 2 GiB limit for one message "
			    "(a TFRecord stream of runs has no such limit)",
			    len);
}

/* The message a descriptor decodes, as a noun phrase for messages. */
static const char *message_kind(const ProtobufCMessageDescriptor *d)
{
	if (d == &tensorflow__step_stats__descriptor)
		return "a StepStats";
	if (d == &tensorflow__graph_def__descriptor)
		return "a GraphDef";
	return "a RunMetadata";
}

/* Wraps a decoded StepStats or GraphDef into a RunMetadata. */
static Tensorflow__RunMetadata *wrap(tl_arena *arena, const ProtobufCMessageDescriptor *d,
				     ProtobufCMessage *msg)
{
	if (d == &tensorflow__run_metadata__descriptor)
		return (Tensorflow__RunMetadata *)msg;
	Tensorflow__RunMetadata *meta = tl_arena_alloc(arena, sizeof *meta);
	tensorflow__run_metadata__init(meta);
	if (d == &tensorflow__step_stats__descriptor) {
		meta->step_stats = (Tensorflow__StepStats *)msg;
	} else {
		meta->n_partition_graphs = 1;
		meta->partition_graphs = tl_arena_alloc(arena, sizeof(Tensorflow__GraphDef *));
		meta->partition_graphs[0] = (Tensorflow__GraphDef *)msg;
	}
	return meta;
}

/* Decodes one whole message: `data` is the input as read; `own`, where not
 * NULL, is the same bytes writable in the arena (one more byte after
 * them), decoded in place. Text is turned into wire bytes first, kept in
 * the arena too (the strings point into them). */
static int decode_whole(const uint8_t *data, uint8_t *own, size_t len, tl_format format,
			tl_pbdecode_fields fields, tl_arena *arena, Tensorflow__RunMetadata **out,
			bool *xspace, const char **message, tl_error *err)
{
	*xspace = false;
	if (format == TL_FORMAT_AUTO && tl_format_sniff(data, len, &format, err) < 0)
		return -1;
	if (format == TL_FORMAT_CHROME || format == TL_FORMAT_TFRECORD)
		return tl_error_set(err, "a %s input holds no single RunMetadata",
				    tl_format_name(format));
	const ProtobufCMessageDescriptor *d = descriptor_for(format);
	if (is_wire_format(format) && len > (size_t)INT32_MAX)
		return too_big(len, err);
	if (!is_wire_format(format)) {
		if (d == NULL && is_text_format(format))
			d = tl_pbtext_guess((const char *)data, len);
		if (d == NULL && is_text_format(format))
			return tl_error_set(err, "not protobuf text of a RunMetadata, StepStats "
						 "or GraphDef (first field is none of theirs)");
		GByteArray *wire = g_byte_array_sized_new((guint)(len / 2 + 64));
		int rc = is_text_format(format)
			     ? tl_pbtext_to_wire(d, (const char *)data, len, wire, err)
			     : tl_pbjson_to_wire(data, len, &d, wire, err);
		if (rc < 0) {
			g_byte_array_free(wire, TRUE);
			return -1;
		}
		own = tl_arena_alloc(arena, (size_t)wire->len + 1);
		memcpy(own, wire->data, wire->len);
		len = wire->len;
		g_byte_array_free(wire, TRUE);
	} else {
		if (d == NULL && tl_pbwire_classify(data, len, &d, err) < 0) {
			/* names it, if it is one */
			tl_format_neighbour_xspace(data, len, err, xspace);
			return -1;
		}
		if (own == NULL) {
			own = tl_arena_alloc(arena, len + 1);
			memcpy(own, data, len);
		}
	}
	ProtobufCMessage *msg = NULL;
	if (tl_pbdecode(d, own, len, fields, 0, arena, &msg, err) < 0)
		return -1;
	*out = wrap(arena, d, msg);
	*message = message_kind(d);
	return 0;
}

int tl_source_decode_runmeta(const uint8_t *data, size_t len, tl_format format, tl_arena *arena,
			     Tensorflow__RunMetadata **out, tl_error *err)
{
	bool xspace;
	const char *message;
	return decode_whole(data, NULL, len, format, TL_PBDECODE_ALL, arena, out, &xspace, &message,
			    err);
}

/* One damage of the input, described in err: a warning, and the source
 * goes on; or, under --strict, the error. */
static int source_damage(tl_source *src, tl_error *err, const char *then)
{
	if (src->damaged++ == 0)
		src->first_damage = g_strdup(err->msg);
	return tl_warn_damage(err, tl_input_name(src->in), then, "%s", err->msg);
}

/* The input's own damage (a gzip stream cut short), once it is known and
 * the bytes before it have been read. */
static int report_input_damage(tl_source *src, tl_error *err)
{
	const char *what = tl_input_damage(src->in);
	if (what == NULL || src->input_damage_told)
		return 0;
	src->input_damage_told = true;
	tl_error_set(err, "%s", what);
	return source_damage(src, err, "read what came before it");
}

/* Adds the input's damage to an error it may explain (a document cut
 * short by its gzip stream), or not (a cut in the gzip trailer loses no
 * data): both are said. */
static int note_input_damage(tl_source *src, tl_error *err)
{
	const char *what = tl_input_damage(src->in);
	if (what != NULL) {
		char why[sizeof err->msg];
		g_strlcpy(why, err->msg, sizeof why);
		tl_error_set(err, "%s; %s", why, what);
	}
	return -1;
}

/* Opens one file into `src`, in the state of a fresh source. */
static int open_file(tl_source *src, const char *path, tl_format forced, tl_error *err)
{
	if (tl_input_open(&src->in, path, err) < 0)
		return -1;
	g_free(src->base);
	src->base = g_path_get_basename(tl_input_name(src->in));
	src->format = forced;
	tl_tfrecord_reader_init(&src->reader, src->in);
	if (forced == TL_FORMAT_AUTO) {
		const uint8_t *head = NULL;
		size_t n = tl_input_peek(src->in, &head, TL_INPUT_PEEK_MAX, err);
		if (tl_format_sniff(head, n, &src->format, err) < 0)
			return note_input_damage(src, err);
		/* A stream whose first header is damaged frames as nothing at
		 * byte 0; a whole record further on tells it apart. */
		if (src->format != TL_FORMAT_TFRECORD && tl_tfrecord_sniff_damaged(head, n))
			src->format = TL_FORMAT_TFRECORD;
	}
	return 0;
}

/* A file of a folder that cannot be read is damage of the folder: the
 * other files are read (under --strict, the error). */
static int folder_file_damage(tl_source *src, tl_error *err)
{
	const char *file = g_ptr_array_index(src->files, src->next_file - 1);
	char why[sizeof err->msg];
	g_strlcpy(why, err->msg, sizeof why);
	return tl_warn_damage(err, src->folder, "file skipped", "%s: %s", file, why);
}

/* Whether an XSpace read keeps its allocator events (tl_xspace_open). */
static bool xspace_allocs(const tl_source *src)
{
	return src->want_allocs || src->keep_allocs;
}

/* A run of an XSpace being built (tl_xspace_run), on a thread or not. */
typedef struct xs_job {
	const tl_xspace *xs;
	size_t run;
	const char *base;
	tl_arena *arena;
	Tensorflow__RunMetadata *meta;
	const char *label;
	tl_links links;
	tl_error err;
	int rc;
	GThread *thread; /* or NULL: built on the caller's */
} xs_job;

static gpointer xs_job_run(gpointer data)
{
	xs_job *j = data;
	j->rc = tl_xspace_run(j->xs, j->run, j->base, j->arena, &j->meta, &j->label, &j->links,
			      &j->err);
	return NULL;
}

static xs_job *xs_job_new(const tl_source *src, size_t run)
{
	xs_job *j = g_new(xs_job, 1);
	*j = (xs_job){.xs = src->xs, .run = run, .base = src->base, .arena = tl_arena_new()};
	return j;
}

/* The job done: its thread joined. */
static void xs_job_wait(xs_job *j)
{
	if (j->thread != NULL)
		g_thread_join(j->thread);
	j->thread = NULL;
}

static void close_xspace(tl_source *src)
{
	if (src->xs_ahead != NULL) {
		xs_job_wait(src->xs_ahead);
		tl_arena_free(src->xs_ahead->arena);
		g_free(src->xs_ahead);
		src->xs_ahead = NULL;
	}
	src->xs_links = (tl_links){0};
	src->tf2trace = false;
	tl_xspace_free(src->xs);
	src->xs = NULL;
	if (src->tf2_xspace != NULL)
		g_byte_array_free(src->tf2_xspace, TRUE);
	src->tf2_xspace = NULL;
	if (src->xs_arena != NULL)
		tl_arena_free(src->xs_arena);
	src->xs_arena = NULL;
}

/* The next events file of a folder, in the state of a fresh source. */
static int open_next_file(tl_source *src, tl_error *err)
{
	const char *path = g_ptr_array_index(src->files, src->next_file);
	src->next_file++;
	close_xspace(src); /* first: a run being built reads the input's map */
	if (src->in != NULL)
		src->offset_done += tl_input_offset(src->in);
	tl_input_close(src->in);
	src->in = NULL;
	src->xs_next = 0;
	src->done = src->events = src->input_damage_told = false;
	src->count = src->records = src->damaged = src->undecoded = 0;
	src->chrome_read = false;
	g_free(src->first_damage);
	src->first_damage = NULL;
	g_free(src->label_dir);
	src->label_dir = NULL;
	/* Runs of files in subfolders are told apart by the subfolder
	 * ("train/step10", "eval/step10"). */
	size_t cut = strlen(src->folder);
	char *dir = g_path_get_dirname(path);
	if (strlen(dir) > cut && strncmp(dir, src->folder, cut) == 0) {
		const char *rel = dir + cut;
		while (*rel == G_DIR_SEPARATOR)
			rel++;
		if (*rel != '\0')
			src->label_dir = g_strdup(rel);
	}
	g_free(dir);
	/* An events file that holds nothing yet (a job just started) is no
	 * damage: there is nothing in it to read. */
	GStatBuf st;
	if (g_stat(path, &st) == 0 && st.st_size == 0) {
		src->done = true;
		return 0;
	}
	if (open_file(src, path, src->folder_format, err) < 0)
		return -1;
	if (src->format == TL_FORMAT_CHROME)
		return tl_error_set(err, "Chrome trace JSON named like an events file");
	return 0;
}

/* A folder stands for the TensorBoard events files below it. */
static int open_folder(tl_source *src, const char *path, tl_format forced, tl_error *err)
{
	if (forced != TL_FORMAT_AUTO && forced != TL_FORMAT_TFRECORD)
		return tl_error_set(err,
				    "a folder stands for the TensorBoard events files below "
				    "it, which are not %s input",
				    tl_format_name(forced));
	if (tl_logdir_events(path, &src->files, err) < 0)
		return -1;
	src->folder = g_strdup(path);
	src->folder_format = forced;
	if (open_next_file(src, err) < 0) {
		if (folder_file_damage(src, err) < 0)
			return -1;
		src->done = true;
	}
	return 0;
}

int tl_source_open(tl_source **out, const char *path, tl_format forced, tl_error *err)
{
	tl_source *src = g_new0(tl_source, 1);
	src->rec = g_byte_array_new();
	int rc;
	if (tl_logdir_is_folder(path))
		rc = open_folder(src, path, forced, err);
	else
		rc = open_file(src, path, forced, err);
	if (rc < 0) {
		tl_source_close(src);
		return -1;
	}
	*out = src;
	return 0;
}

void tl_source_close(tl_source *src)
{
	if (src == NULL)
		return;
	close_xspace(src); /* first: a run being built reads the input's map */
	tl_input_close(src->in);
	g_byte_array_free(src->rec, TRUE);
	g_free(src->first_damage);
	g_free(src->base);
	g_free(src->folder);
	g_free(src->label_dir);
	if (src->files != NULL)
		g_ptr_array_free(src->files, TRUE);
	g_free(src);
}

const char *tl_source_name(const tl_source *src)
{
	return src->folder != NULL ? src->folder : tl_input_name(src->in);
}

uint64_t tl_source_offset(const tl_source *src)
{
	return src->offset_done + (src->in != NULL ? tl_input_offset(src->in) : 0);
}

int tl_source_xspace_allocs(tl_source *src, tl_arena *arena, tl_alloc_events *out)
{
	if (src->xs == NULL)
		return -1;
	return tl_xspace_allocs(src->xs, arena, out);
}

int tl_source_xspace_span_allocs(tl_source *src, int64_t t_begin, int64_t t_end, tl_arena *arena,
				 tl_alloc_events *out)
{
	*out = (tl_alloc_events){0};
	if (src->xs == NULL)
		return -1;
	size_t lo = 0, hi = tl_xspace_alloc_count(src->xs);
	if (tl_xspace_n_runs(src->xs) > 1) {
		lo = tl_xspace_alloc_first_at(src->xs, 0, t_begin, false);
		hi = tl_xspace_alloc_first_at(src->xs, lo, t_end, true);
	}
	if (hi == lo)
		return 0;
	out->ev = tl_arena_alloc(arena, (hi - lo) * sizeof *out->ev);
	out->n = hi - lo;
	tl_xspace_alloc_fill(src->xs, lo, hi, arena, out->ev);
	return 0;
}

void tl_source_links(const tl_source *src, tl_links *out)
{
	*out = (tl_links){0};
	if (src->chrome_read)
		*out = src->chrome.links;
	else if (src->xs != NULL)
		*out = src->xs_links;
}

const char *tl_source_no_dataflow(const tl_source *src)
{
	if (src->xs != NULL)
		return src->tf2trace ? TF2TRACE_KIND : "a TF2/JAX profile (XSpace)";
	if (src->chrome_read && !src->chrome.dataflow)
		return src->chrome.kind;
	return NULL;
}

bool tl_source_tf2trace(const tl_source *src)
{
	return src->xs != NULL && src->tf2trace;
}

bool tl_source_xspace_steps(const tl_source *src)
{
	return src->xs != NULL && tl_xspace_n_runs(src->xs) > 1;
}

size_t tl_source_runs_ahead(const tl_source *src)
{
	if (src->xs == NULL || src->files != NULL || tl_xspace_n_runs(src->xs) < 2)
		return 0;
	return tl_xspace_n_runs(src->xs);
}

void tl_source_run_times(const tl_source *src, size_t i, tl_record_fn each, void *ctx)
{
	if (src->xs != NULL && i < tl_xspace_n_runs(src->xs))
		tl_xspace_run_times(src->xs, i, each, ctx);
}

void tl_source_want_allocs(tl_source *src, bool want)
{
	src->want_allocs = want;
}

bool tl_source_wants_allocs(const tl_source *src)
{
	return src->want_allocs;
}

void tl_source_keep_xspace_allocs(tl_source *src)
{
	src->keep_allocs = true;
}

const tl_alloc_events *tl_source_chrome_allocs(const tl_source *src)
{
	return src->chrome_read && src->chrome.allocs.n > 0 ? &src->chrome.allocs : NULL;
}

const char *tl_source_kind(const tl_source *src)
{
	if (src->folder != NULL)
		return "a log folder";
	if (src->xs != NULL || src->format == TL_FORMAT_XSPACE)
		return src->tf2trace ? TF2TRACE_KIND : "a TF2/JAX profile (XSpace)";
	if (src->chrome_read)
		return src->chrome.kind;
	if (src->format == TL_FORMAT_TFRECORD)
		return src->events ? "a TensorBoard events file" : "a TFRecord stream of RunMetadata";
	return src->message != NULL ? src->message : "a protobuf";
}

tl_format tl_source_format(const tl_source *src)
{
	return src->format;
}

tl_input *tl_source_input(tl_source *src)
{
	return src->in;
}

const char *tl_source_host(const tl_source *src)
{
	return src->xs != NULL ? tl_xspace_host(src->xs) : NULL;
}

int tl_source_map(tl_source *src, const uint8_t **data, size_t *len, tl_error *err)
{
	if (tl_input_map(src->in, data, len, err) < 0)
		return -1;
	return report_input_damage(src, err);
}

/* The next run of the XSpace being read. */
static int next_xspace(tl_source *src, tl_arena **arena_out, Tensorflow__RunMetadata **meta,
		       const char **label, tl_error *err)
{
	src->xs_links = (tl_links){0};
	size_t n_runs = src->xs != NULL ? tl_xspace_n_runs(src->xs) : 0;
	if (src->xs == NULL || src->xs_next >= n_runs)
		return 0;
	/* Runs are built in turn, the next one on a thread of its own while
	 * the caller works on this one (a run of an XSpace is a tenth of the
	 * reading; the first two are built at once); building one says
	 * nothing on stderr, so the lines printed are the same. */
	xs_job *j = src->xs_ahead;
	src->xs_ahead = NULL;
	if (src->xs_next + 1 < n_runs && g_get_num_processors() > 1) {
		xs_job *ahead = xs_job_new(src, src->xs_next + 1);
		ahead->thread = g_thread_try_new("tl-xspace-run", xs_job_run, ahead, NULL);
		if (ahead->thread == NULL) {
			tl_arena_free(ahead->arena);
			g_free(ahead);
		} else {
			src->xs_ahead = ahead;
		}
	}
	if (j == NULL) {
		j = xs_job_new(src, src->xs_next);
		xs_job_run(j);
	}
	xs_job_wait(j);
	if (j->rc < 0) {
		*err = j->err;
		tl_arena_free(j->arena);
		g_free(j);
		return -1;
	}
	src->xs_next++;
	src->count++;
	src->xs_links = j->links;
	*arena_out = j->arena;
	*meta = j->meta;
	*label = j->label;
	g_free(j);
	return 1;
}

/* The bytes of whole top-level fields at the start of a message cut short:
 * an XSpace's planes before the cut. */
static size_t whole_fields_prefix(const uint8_t *data, size_t len)
{
	size_t pos = 0, good = 0;
	while (pos < len) {
		uint64_t key, v;
		if (!tl_pbwire_varint(data, len, &pos, &key) || (key & 7) != 2 ||
		    !tl_pbwire_varint(data, len, &pos, &v) || v > len - pos)
			break;
		pos += (size_t)v;
		good = pos;
	}
	return good;
}

/* The first run of the XSpace just opened. */
static int xspace_opened(tl_source *src, tl_arena **arena_out, Tensorflow__RunMetadata **meta,
			 const char **label, tl_error *err)
{
	if (report_input_damage(src, err) < 0)
		return -1;
	if (tl_xspace_n_runs(src->xs) == 0 && !tl_xspace_has_allocs(src->xs))
		return tl_error_set(err, src->tf2trace ? "a TF 2.0 profiler trace with no events"
						       : "an XSpace with no events");
	return next_xspace(src, arena_out, meta, label, err);
}

/* An XSpace read into `arena` (which the source keeps): decoded, then its
 * first run. A file cut short keeps the planes before the cut. */
static int start_xspace(tl_source *src, tl_arena *arena, const uint8_t *data, size_t len,
			tl_arena **arena_out, Tensorflow__RunMetadata **meta, const char **label,
			tl_error *err)
{
	src->format = TL_FORMAT_XSPACE;
	src->xs_arena = arena;
	const char *name = tl_input_name(src->in);
	int rc = tl_xspace_open(&src->xs, data, len, xspace_allocs(src), arena, name, err);
	if (rc == -1)
		return -1;
	if (rc < 0) {
		size_t whole = whole_fields_prefix(data, len);
		tl_error cut = *err;
		if (whole == 0 && len > 0)
			tl_error_set(err,
				     "an XSpace cut short at byte %zu, inside its first plane: "
				     "nothing whole before the cut",
				     len);
		if (whole == 0 || whole == len) {
			note_input_damage(src, err);
			return -1;
		}
		tl_error_set(err, "XSpace cut short or damaged after byte %zu", whole);
		if (source_damage(src, err, "the planes before it are read") < 0)
			return -1;
		/* the decoder leaves a refused input as it was */
		if (tl_xspace_open(&src->xs, data, whole, xspace_allocs(src), arena, name, err) <
		    0) {
			*err = cut;
			return -1;
		}
	}
	return xspace_opened(src, arena_out, meta, label, err);
}

/* A TF 2.0 profiler trace (io/tf2trace.h), read as what it was written
 * from: a RunMetadata (TF 2.0, 2.1), one run in `arena`; or an XSpace (TF
 * 2.2 on), into `arena` (which the source then keeps), read as one. */
static int start_tf2trace(tl_source *src, tl_arena *arena, const uint8_t *data, size_t len,
			  tl_arena **arena_out, Tensorflow__RunMetadata **meta,
			  const char **label, tl_error *err)
{
	const char *name = tl_input_name(src->in);
	tl_tf2trace_run tr;
	if (tl_tf2trace_render(data, len, name, arena, &tr, err) < 0) {
		tl_arena_free(arena);
		return note_input_damage(src, err);
	}
	if (tr.meta != NULL) {
		if (report_input_damage(src, err) < 0) {
			tl_arena_free(arena);
			return -1;
		}
		*meta = tr.meta;
		src->message = TF2TRACE_KIND;
		*label = tl_arena_strdup(arena, src->base);
		*arena_out = arena;
		return 1;
	}
	src->format = TL_FORMAT_XSPACE;
	src->xs_arena = arena;
	src->tf2_xspace = tr.xspace_buf;
	if (tl_xspace_open(&src->xs, tr.xspace, tr.xspace_len, xspace_allocs(src), arena, name,
			   err) < 0)
		return -1;
	src->tf2trace = true;
	return xspace_opened(src, arena_out, meta, label, err);
}

/* Whether a binary file opens as an XSpace does: field 1 (a plane) whose
 * own first field is XPlane's id (1, varint) or name (2, bytes), where a
 * RunMetadata, StepStats or GraphDef has field 1 as bytes. Only a guess
 * between mapping the file (an XSpace is read where it lies) and reading it
 * into the run's arena (a mapped RunMetadata would be held twice, the map
 * beside the decoder's copy); the decoders decide what it is. */
static bool opens_as_xspace(tl_source *src)
{
	const uint8_t *head = NULL;
	tl_error ignored = {0};
	size_t n = tl_input_peek(src->in, &head, 16, &ignored);
	size_t pos = 0;
	uint64_t key, len;
	if (!tl_pbwire_varint(head, n, &pos, &key) || key != ((1u << 3) | 2) ||
	    !tl_pbwire_varint(head, n, &pos, &len) || pos >= n)
		return false;
	return head[pos] == ((1u << 3) | 0) || head[pos] == ((2u << 3) | 2);
}

static int next_whole(tl_source *src, tl_pbdecode_fields fields, tl_arena **arena_out,
		      Tensorflow__RunMetadata **meta, const char **label, tl_error *err)
{
	/* A binary file too big for one message is refused by its size, not
	 * read first (a sparse 2 GB file took half a minute under ASan). */
	uint64_t left = tl_input_size_left(src->in);
	if (left > (uint64_t)INT32_MAX && src->format != TL_FORMAT_AUTO &&
	    is_wire_format(src->format)) {
		src->done = true;
		return too_big(left, err);
	}
	/* Read into the run's arena, where the decoder leaves the strings. */
	tl_arena *arena = tl_arena_new();
	const uint8_t *data = NULL;
	uint8_t *own = NULL;
	size_t len = 0;
	int got;
	bool xspace_head = src->format == TL_FORMAT_BINARY_PROTO && opens_as_xspace(src);
	if ((src->format == TL_FORMAT_XSPACE || src->format == TL_FORMAT_TF2TRACE || xspace_head) &&
	    tl_input_can_map(src->in)) {
		/* An XSpace is mapped and read where it lies; should it be a
		 * RunMetadata after all, the decoder copies it into the arena. */
		got = tl_input_map(src->in, &data, &len, err);
	} else {
		got = tl_input_read_all(src->in, arena, &own, &len, err);
		data = own;
	}
	if (got < 0) {
		tl_arena_free(arena);
		return -1;
	}
	src->done = true;
	if (len == 0) {
		tl_arena_free(arena);
		tl_error_set(err, "empty input");
		return note_input_damage(src, err);
	}
	if (src->format == TL_FORMAT_TF2TRACE ||
	    (src->format == TL_FORMAT_BINARY_PROTO && tl_tf2trace_sniff(data, len)))
		return start_tf2trace(src, arena, data, len, arena_out, meta, label, err);
	if (src->format == TL_FORMAT_XSPACE)
		return start_xspace(src, arena, data, len, arena_out, meta, label, err);
	/* Bytes that start as an XSpace does and decode as one with events are
	 * one (no RunMetadata, StepStats or GraphDef does: their first field
	 * holds a message whose first field is a message or a string, and
	 * where it is not, it holds no line of events); the rest go the way
	 * below, which tells the three apart and names what else they are. */
	if (xspace_head && tl_xspace_try_open(&src->xs, data, len, xspace_allocs(src), arena,
					      tl_input_name(src->in)) == 0) {
		src->format = TL_FORMAT_XSPACE;
		src->xs_arena = arena;
		if (tl_xspace_warn(src->xs, err) < 0)
			return -1;
		return xspace_opened(src, arena_out, meta, label, err);
	}
	/* Bytes that start as an XSpace does, their planes' framing cut by
	 * the end of the input: an XSpace cut short (whole planes before the
	 * cut are read), not a RunMetadata cut short. */
	if (xspace_head && whole_fields_prefix(data, len) < len)
		return start_xspace(src, arena, data, len, arena_out, meta, label, err);
	bool xspace;
	int rc = decode_whole(data, own, len, src->format, fields, arena, meta, &xspace,
			      &src->message, err);
	/* What is none of RunMetadata, StepStats and GraphDef may be an XSpace
	 * (decode_whole leaves refused bytes as they were, and has walked them
	 * as one: tl_format_is_xspace). */
	if (rc < 0 && src->format == TL_FORMAT_BINARY_PROTO && xspace)
		return start_xspace(src, arena, data, len, arena_out, meta, label, err);
	/* and a Trace whose first field is damaged, which only its walk tells */
	if (rc < 0 && src->format == TL_FORMAT_BINARY_PROTO && tl_format_is_tf2trace(data, len))
		return start_tf2trace(src, arena, data, len, arena_out, meta, label, err);
	if (rc == 0)
		rc = report_input_damage(src, err);
	else
		note_input_damage(src, err);
	if (rc < 0) {
		tl_arena_free(arena);
		return -1;
	}
	*label = tl_arena_strdup(arena, src->base);
	*arena_out = arena;
	return 1;
}

/* A record stream is a TensorBoard events file when its first record that
 * frames is an Event: one naming the file version, or, where that record was
 * lost, one holding a tagged_run_metadata or starting with Event's
 * wall_time (field 1 as a double, which no RunMetadata starts with: its
 * field 1 is a message). */
static bool looks_like_event(const GByteArray *rec)
{
	/* An empty record is an Event of no kind (and its data may be NULL). */
	if (rec->len == 0)
		return false;
	/* The first pass alone refuses what is no Event without a copy (a
	 * stream of 100 MB RunMetadata records is not copied to learn that). */
	if (!tl_pbdecode_check(&tensorflow__event__descriptor, rec->data, rec->len))
		return false;
	if (rec->data[0] == 0x09)
		return true;
	tl_arena *arena = tl_arena_new();
	uint8_t *copy = tl_arena_alloc(arena, (size_t)rec->len + 1);
	memcpy(copy, rec->data, rec->len);
	ProtobufCMessage *msg = NULL;
	tl_error err = {{0}};
	bool yes = false;
	if (tl_pbdecode(&tensorflow__event__descriptor, copy, rec->len, TL_PBDECODE_ALL, 1, arena,
			&msg, &err) == 0) {
		Tensorflow__Event *ev = (Tensorflow__Event *)msg;
		bool version = ev->what_case == TENSORFLOW__EVENT__WHAT_FILE_VERSION &&
			       g_str_has_prefix(ev->file_version, "brain.Event");
		yes = version || ev->what_case == TENSORFLOW__EVENT__WHAT_TAGGED_RUN_METADATA;
	}
	tl_arena_free(arena);
	return yes;
}

/* The end of a record stream: the input's own damage, and an error when
 * damage left nothing to read. */
static int end_of_records(tl_source *src, tl_error *err)
{
	src->done = true;
	if (report_input_damage(src, err) < 0)
		return -1;
	/* every record framed, both crcs held, and none decodes: records of
	 * another message (tf.train.Example, ...), not damage */
	if (src->count == 0 && src->records > 0 && src->undecoded == src->records &&
	    src->damaged == src->undecoded)
		return tl_error_set(err,
				    "a TFRecord file of neither RunMetadata nor TensorBoard events "
				    "(all %zu records frame, none decodes as one; the first: %s)",
				    src->records, src->first_damage);
	if (src->count == 0 && src->damaged > 1)
		return tl_error_set(err, "nothing readable: %s (and %zu more damaged)",
				    src->first_damage, src->damaged - 1);
	if (src->count == 0 && src->damaged == 1)
		return tl_error_set(err, "nothing readable: %s", src->first_damage);
	if (src->records == 0)
		return tl_error_set(err, "empty input");
	/* An events file of scalars alone has nothing any tool draws; in a
	 * folder such files are the rule and the folder says so at its end. */
	if (src->count == 0 && src->events && src->files == NULL)
		return tl_error_set(err,
				    "a TensorBoard events file with no run metadata among "
				    "its %zu records (tagged_run_metadata, what "
				    "FileWriter.add_run_metadata writes)",
				    src->records);
	return 0;
}

/* Damage the record reader passed over. */
static int record_damage(tl_source *src, tl_error *err)
{
	const tl_tfrecord_reader *r = &src->reader;
	if (!r->cut)
		return source_damage(src, err, r->then);
	/* A record cut short by a gzip stream cut short: the cause first. */
	tl_error what = *err;
	if (report_input_damage(src, err) < 0)
		return -1;
	*err = what;
	return source_damage(src, err, "the runs before it were read");
}

/* A record that framed but does not decode: damage too. */
static int undecodable(tl_source *src, tl_arena *arena, tl_error *err, const char *why)
{
	char what[sizeof err->msg];
	g_strlcpy(what, why, sizeof what);
	tl_arena_free(arena);
	src->undecoded++;
	tl_error_set(err, "record %llu at byte %llu: %s", (unsigned long long)src->reader.number,
		     (unsigned long long)src->reader.at, what);
	return source_damage(src, err, "record skipped");
}

static int next_record(tl_source *src, tl_pbdecode_fields fields, tl_arena **arena_out,
		       Tensorflow__RunMetadata **meta, const char **label, tl_error *err)
{
	for (;;) {
		int rc = tl_tfrecord_next(&src->reader, src->rec, err);
		if (rc == 0)
			return end_of_records(src, err);
		if (rc == TL_TFRECORD_DAMAGED) {
			if (record_damage(src, err) < 0)
				break;
			continue;
		}
		if (rc < 0)
			break;
		if (src->records++ == 0)
			src->events = looks_like_event(src->rec);
		/* The record's bytes move into the run's arena: the decoder
		 * leaves the strings there. */
		tl_arena *arena = tl_arena_new();
		uint8_t *payload = tl_arena_alloc(arena, (size_t)src->rec->len + 1);
		if (src->rec->len > 0) /* an empty record's data may be NULL */
			memcpy(payload, src->rec->data, src->rec->len);
		size_t payload_len = src->rec->len;
		const char *tag = NULL;
		if (src->events) {
			ProtobufCMessage *msg = NULL;
			if (tl_pbdecode(&tensorflow__event__descriptor, payload, payload_len,
					TL_PBDECODE_ALL, 1, arena, &msg, err) < 0) {
				if (undecodable(src, arena, err, "malformed Event") < 0)
					break;
				continue;
			}
			Tensorflow__Event *ev = (Tensorflow__Event *)msg;
			if (ev->what_case != TENSORFLOW__EVENT__WHAT_TAGGED_RUN_METADATA) {
				tl_arena_free(arena);
				continue;
			}
			payload = ev->tagged_run_metadata->run_metadata.data;
			payload_len = ev->tagged_run_metadata->run_metadata.len;
			if (payload == NULL) /* empty: the decoder still writes payload[0] */
				payload = tl_arena_zalloc(arena, 1);
			tag = ev->tagged_run_metadata->tag;
			if (tag == NULL || tag[0] == '\0')
				tag = tl_arena_strdup(arena, "(untagged)");
		}
		ProtobufCMessage *msg = NULL;
		rc = tl_pbdecode(&tensorflow__run_metadata__descriptor, payload, payload_len,
				 fields, 0, arena, &msg, err);
		if (rc < 0) {
			const char *why =
			    rc == TL_PBDECODE_MALFORMED ? "malformed RunMetadata" : err->msg;
			if (undecodable(src, arena, err, why) < 0)
				break;
			continue;
		}
		src->count++;
		*meta = (Tensorflow__RunMetadata *)msg;
		if (tag == NULL) {
			/* The record's number, so a run keeps its name whatever
			 * damage around it was passed over. */
			char *name = g_strdup_printf("%s#%llu", src->base,
						     (unsigned long long)src->reader.number);
			tag = tl_arena_strdup(arena, name);
			g_free(name);
		}
		*label = tag;
		*arena_out = arena;
		return 1;
	}
	src->done = true;
	return -1;
}

/* A Chrome trace: one run of the whole file (io/chrome_run.h). */
static int next_chrome(tl_source *src, tl_arena **arena_out, Tensorflow__RunMetadata **meta,
		       const char **label, tl_error *err)
{
	src->done = true;
	const uint8_t *data = NULL;
	size_t len = 0;
	if (tl_source_map(src, &data, &len, err) < 0)
		return -1;
	tl_arena *arena = tl_arena_new();
	if (tl_chrome_run_read(data, len, tl_input_name(src->in), arena, &src->chrome, err) < 0) {
		tl_arena_free(arena);
		return note_input_damage(src, err);
	}
	/* timeline.py's memory, for the tools that ask for allocator events
	 * (io/tlmem.h; a second pass over the file, which the others skip) */
	if (src->want_allocs && src->chrome.allocs.n == 0 && src->chrome.dataflow &&
	    tl_tlmem_alloc_events(data, len, arena, &src->chrome.allocs, err) < 0) {
		tl_arena_free(arena);
		return note_input_damage(src, err);
	}
	src->chrome_read = true;
	src->count++;
	*meta = src->chrome.meta;
	*label = tl_arena_strdup(arena, src->base);
	*arena_out = arena;
	return 1;
}

static int next_in_file(tl_source *src, tl_pbdecode_fields fields, tl_arena **arena,
			Tensorflow__RunMetadata **meta, const char **label, tl_error *err)
{
	if (src->xs != NULL)
		return next_xspace(src, arena, meta, label, err);
	if (src->done)
		return 0;
	switch (src->format) {
	case TL_FORMAT_CHROME:
		return next_chrome(src, arena, meta, label, err);
	case TL_FORMAT_TFRECORD:
		return next_record(src, fields, arena, meta, label, err);
	default:
		return next_whole(src, fields, arena, meta, label, err);
	}
}

static int source_next(tl_source *src, tl_pbdecode_fields fields, tl_arena **arena,
		       Tensorflow__RunMetadata **meta, const char **label, tl_error *err)
{
	if (src->files == NULL)
		return next_in_file(src, fields, arena, meta, label, err);
	for (;;) {
		int rc = next_in_file(src, fields, arena, meta, label, err);
		if (rc < 0 && folder_file_damage(src, err) < 0)
			return -1;
		if (rc > 0) {
			src->folder_runs++;
			if (src->label_dir != NULL) {
				char *l = g_strdup_printf("%s/%s", src->label_dir, *label);
				*label = tl_arena_strdup(*arena, l);
				g_free(l);
			}
			return 1;
		}
		if (src->next_file == src->files->len)
			return src->folder_runs > 0
				   ? 0
				   : tl_logdir_no_runs(src->folder, src->files->len, err);
		if (open_next_file(src, err) < 0) {
			if (folder_file_damage(src, err) < 0)
				return -1;
			src->done = true;
		}
	}
}

int tl_source_next(tl_source *src, tl_arena **arena, Tensorflow__RunMetadata **meta,
		   const char **label, tl_error *err)
{
	return source_next(src, TL_PBDECODE_ALL, arena, meta, label, err);
}

int tl_source_next_model(tl_source *src, tl_arena **arena, Tensorflow__RunMetadata **meta,
			 const char **label, tl_error *err)
{
	return source_next(src, TL_PBDECODE_MODEL, arena, meta, label, err);
}
