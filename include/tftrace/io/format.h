/*
 * format: the kinds of input libtrace reads, their names on the command line
 * (--input-format), and sniffing a kind from an input's first bytes.
 */
#ifndef TL_IO_FORMAT_H
#define TL_IO_FORMAT_H

#include "base/warn.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef enum tl_format {
	TL_FORMAT_AUTO = 0,
	TL_FORMAT_RUNMETA,	/* binary RunMetadata */
	TL_FORMAT_RUNMETA_TEXT, /* protobuf text format RunMetadata */
	TL_FORMAT_STEPSTATS,	/* binary StepStats */
	TL_FORMAT_STEPSTATS_TEXT,
	TL_FORMAT_GRAPHDEF, /* binary GraphDef */
	TL_FORMAT_GRAPHDEF_TEXT,
	TL_FORMAT_TFRECORD,	/* TFRecord of RunMetadata, or TensorBoard events */
	TL_FORMAT_CHROME,	/* Chrome trace event JSON */
	TL_FORMAT_XSPACE,	/* TF2/JAX profiler XSpace (*.xplane.pb) */
	TL_FORMAT_RUNMETA_JSON, /* RunMetadata in protobuf's proto3 JSON mapping */
	TL_FORMAT_STEPSTATS_JSON,
	TL_FORMAT_GRAPHDEF_JSON,
	TL_FORMAT_TF2TRACE,	/* TF 2.0 profiler Trace (*.trace, io/tf2trace.h) */
	TL_FORMAT_BINARY_PROTO, /* sniffed: binary protobuf, message not yet known */
	TL_FORMAT_TEXT_PROTO,	/* sniffed: protobuf text, message not yet known */
	TL_FORMAT_JSON_PROTO,	/* sniffed: protobuf JSON, message not yet known */
} tl_format;

/* "runmeta", "runmeta-text", "stepstats", ... ; "auto" for TL_FORMAT_AUTO. */
const char *tl_format_name(tl_format f);
int tl_format_parse(const char *name, tl_format *out);
/* The list of names for --help: "auto, runmeta, runmeta-text, ..." */
const char *tl_format_names(void);

/* Decides the family from the first bytes of the (decompressed) input:
 * TFRecord framing (length + masked crc32c of the length), protobuf JSON
 * (pbjson.h's tl_pbjson_sniff: an object with a top-level key of a
 * RunMetadata, StepStats or GraphDef, or a JSON string holding one), Chrome
 * JSON (any other '{' or '['), protobuf text (printable, starts with a
 * field name or comment), else binary protobuf. Binary/text/JSON protobuf
 * are refined by pbwire/pbtext/pbjson later. */
int tl_format_sniff(const uint8_t *data, size_t len, tl_format *out, tl_error *err);

/* Names a neighbour of a RunMetadata: a binary protobuf that walks
 * (pbwire's walk, the schemas in tensorflow.proto's Profiler message) as a
 * TF2/JAX profiler XSpace (*.xplane.pb) or a TF 2.0 profiler Trace
 * (*.trace), which their own readers then read. Call it on bytes that are
 * none of RunMetadata, StepStats and GraphDef; it never takes one of those
 * for a neighbour. True with the message in err ("a TF2/JAX profiler
 * XSpace (tensorflow.profiler.XSpace)"); false (err untouched) otherwise. */
bool tl_format_neighbour(const uint8_t *data, size_t len, tl_error *err);

/* Whether binary bytes that are none of RunMetadata, StepStats and GraphDef
 * walk as a TF2/JAX profiler XSpace (tl_format_neighbour's test; a file cut
 * short counts). */
bool tl_format_is_xspace(const uint8_t *data, size_t len);
/* The same for a TF 2.0 profiler Trace (a .trace that tl_tf2trace_sniff
 * did not take, its first field damaged). */
bool tl_format_is_tf2trace(const uint8_t *data, size_t len);

/* tl_format_neighbour, and in *xspace whether the neighbour is the XSpace
 * (tl_format_is_xspace): one walk for both. */
bool tl_format_neighbour_xspace(const uint8_t *data, size_t len, tl_error *err, bool *xspace);

/* What kind of Chrome trace JSON the bytes hold, as a noun phrase for
 * messages, told by what the file holds (format.c lists each writer's
 * marks), never by one field: "a PyTorch profiler (Kineto) trace" (Kineto's
 * top-level keys schemaVersion, deviceProperties, traceName,
 * distributedInfo or baseTimeNanoseconds, or its event categories); "a TF1
 * timeline.py trace" ("<device> Compute"/"Tensors" and "Allocators"
 * processes, "Op" events with args.op, whatever the device names: TF 1.14's
 * "/host:CPU Compute" is one); "a TF2 profiler trace (TensorBoard's trace
 * viewer JSON)" (processes named for a device alone, "Stream #N" threads);
 * else "a Chrome trace". Reads the whole input event by event; invalid JSON
 * ends the look, not the answer. */
const char *tl_format_chrome_kind(const uint8_t *data, size_t len);

/* tl_format_chrome_kind's answer for a PyTorch profiler trace. */
#define TL_FORMAT_KINETO_KIND "a PyTorch profiler (Kineto) trace"

/* tl_format_chrome_kind's answer for JSON that is no trace at all (no event
 * read, and no traceEvents list): the tools say only that. */
#define TL_FORMAT_NOT_A_TRACE                                                                      \
	"a JSON document that is no Chrome trace (no traceEvents list of event objects)"

#endif
