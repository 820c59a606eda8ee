/*
 * tf2trace: the TF 2.0 and 2.1 profiler's trace (plugins/profile/RUN/HOST.trace,
 * message tensorflow.profiler.Trace of
 * tensorflow/core/profiler/protobuf/trace_events.proto) read as the XSpace
 * it renders, so that every tool reads it through io/xspace.h and names
 * its events, streams and launches by the rules an XSpace gets.
 *
 *   Trace       { map<uint32, Device> devices = 1; repeated TraceEvent trace_events = 4; }
 *   Device      { string name = 1; uint32 device_id = 2; map<uint32, Resource> resources = 3; }
 *   Resource    { string name = 1; uint32 resource_id = 2; }
 *   TraceEvent  { uint32 device_id = 1; uint32 resource_id = 2; string name = 3;
 *                 uint64 timestamp_ps = 9; uint64 duration_ps = 10;
 *                 map<string, string> args = 11; }
 *
 * TensorFlow writes a .trace from an XSpace (ConvertXSpaceToTraceEvents: a
 * plane is a device, a line a resource, an event's display name or name its
 * name, each stat an argument as text), or, before 2.2, from a RunMetadata
 * (ConvertRunMetadataToTraceEvents). The reading undoes the first:
 *   devices     a device is a plane (its map key the plane's id, its name the
 *               plane's), in the file's order; a device no entry names is
 *               "/device:unknown:KEY";
 *   resources   a resource is a line of its device (id and name), in the
 *               order of the device's entry, then those only events name
 *               ("", by id), in order of first event;
 *   events      an event is an XEvent of its line, named by its name;
 *               timestamp_ps and duration_ps are kept to the picosecond (a
 *               line's timestamp_ns is the trace's zero, its session's
 *               start, and an event's offset_ps its timestamp_ps; a
 *               resource with events past 2^62 ps, as uint64 times can be,
 *               has a line per span of 2^62 ps, timed from its start), so
 *               the XSpace reader sees the
 *               times TensorFlow's XSpace held; an argument is a stat of
 *               that name: an int64 where its text is one (correlation_id,
 *               group_id: how TF printed them), else a string (tf_op,
 *               kernel_details, ...).
 * Unknown fields are skipped at every level; a map entry written twice keeps
 * its last value, as protobuf's parsers do.
 *
 * Damage costs what holds it, with one warning per kind and file: an event
 * whose bytes do not decode is skipped; a device entry that does not
 * decode is left out (its events go to "/device:unknown:KEY"); an event
 * lasting more than 2^62 ps (53 days: with its offset, what an XEvent's
 * int64s hold) is skipped; a top-level field whose
 * framing is cut (a file cut short) ends the reading, the events before it
 * kept. A file with no usable event is an error that names it as a TF 2.0
 * profiler trace and says what is wrong.
 */
#ifndef TL_IO_TF2TRACE_H
#define TL_IO_TF2TRACE_H

#include "base/arena.h"
#include "base/warn.h"
#include "tensorflow.pb-c.h"

#include <glib.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* A resource of a device. */
typedef struct tl_tf2trace_resource {
	uint32_t key;	  /* its map key (the id events name) */
	uint32_t id;	  /* resource_id as written */
	const char *name; /* "" when absent */
} tl_tf2trace_resource;

typedef struct tl_tf2trace_device {
	uint32_t key;	  /* its map key (the id events name) */
	uint32_t id;	  /* device_id as written */
	const char *name; /* "" when absent */
	tl_tf2trace_resource *res;
	size_t n_res;
} tl_tf2trace_device;

/* One argument of an event: spans into the input's bytes. */
typedef struct tl_tf2trace_arg {
	const uint8_t *key, *value;
	size_t key_len, value_len;
} tl_tf2trace_arg;

typedef struct tl_tf2trace_event {
	uint32_t device_id, resource_id;
	uint64_t timestamp_ps, duration_ps;
	const uint8_t *name; /* span into the input */
	uint32_t name_len;
	uint32_t n_args;
	const uint8_t *raw; /* the TraceEvent's bytes (its args are read from them) */
	uint32_t raw_len;
} tl_tf2trace_event;

/* What reading met. */
typedef struct tl_tf2trace_counts {
	size_t bad_events;  /* events whose bytes do not decode: skipped */
	size_t bad_devices; /* device entries that do not decode: left out */
	size_t cut_at;	    /* the byte where the top-level framing broke, or 0 */
	bool cut;
} tl_tf2trace_counts;

/* A decoded Trace; strings and arrays live in the arena given to
 * tl_tf2trace_read, spans point into the input, which must outlive it. */
typedef struct tl_tf2trace {
	tl_tf2trace_device *dev; /* in order of their entries, last entry of a key kept */
	size_t n_dev;
	tl_tf2trace_event *ev; /* the good events, in file order */
	size_t n_ev;
	size_t n_fields_ev; /* field 4 entries met, good or not */
	tl_tf2trace_counts c;
} tl_tf2trace;

/* Whether bytes are a Trace by what they hold (autodetection): their
 * first top-level field is a devices map entry (1, length-delimited) holding
 * a key (1, varint) and a Device (2) whose fields are a name (text), a
 * device_id or resources, and no other, or a trace event (4) that decodes
 * as one with a device, resource, time or duration; every top-level field
 * is 1 or 4, length-delimited, and one is an event. Tells a Trace from an
 * XSpace (whose first field, a plane, holds its name as text where a
 * Device entry holds a message, and its lines as field 3), from
 * RunMetadata, StepStats and GraphDef (their field 1 holds no varint key;
 * a StepStats whose first device has no name holds no field 4). A file cut
 * short after an event still is one; a Trace that is not sniffed (no
 * event, a first field damaged) is still named by tl_format_is_tf2trace. */
bool tl_tf2trace_sniff(const uint8_t *data, size_t len);

/* Decodes data[0..len) into *t (into `arena`). Damage is counted in t->c,
 * never an error; -1 only for bytes that are no Trace at all (the first
 * top-level field does not frame), err saying where. */
int tl_tf2trace_read(tl_tf2trace *t, const uint8_t *data, size_t len, tl_arena *arena,
		     tl_error *err);

/* Argument i of an event (0 <= i < ev->n_args). */
void tl_tf2trace_arg_at(const tl_tf2trace_event *ev, uint32_t i, tl_tf2trace_arg *out);

/* Whether a decoded Trace is one TF 2.0 or 2.1 wrote from a RunMetadata
 * (ConvertRunMetadataToTraceEvents): a device named as StepStats names
 * them ("/job:...", ".../stream:N", ".../memcpy", ".../sync"), or an event
 * with that converter's "long name" or "label" argument (not "annotation",
 * which TF 2.4's XSpaces have as a stat). */
bool tl_tf2trace_from_runmeta(const tl_tf2trace *t);

/* What a Trace is read as: the XSpace it was written from (TF 2.2 on), or
 * the RunMetadata (step_stats) it was written from (TF 2.0, 2.1). */
typedef struct tl_tf2trace_run {
	const uint8_t *xspace; /* the XSpace's bytes, or NULL */
	size_t xspace_len;
	GByteArray *xspace_buf;	       /* what holds them: the caller's, to free */
	Tensorflow__RunMetadata *meta; /* or NULL */
} tl_tf2trace_run;

/* Reads a Trace (into `arena`) as what it was written from. From a
 * RunMetadata, each device is a DeviceStepStats of its name (its resources
 * its thread_names, less the "0" TF gives every device), each event a
 * NodeExecStats on its device: node_name its "long name" argument, else
 * its name; timeline_label its "label", "@@" and its "annotation" where it
 * has one (how TF split them); times to the nanosecond; thread_id its
 * resource. That run's model then reads it as it reads any RunMetadata.
 * Damage and errors as tl_tf2trace_to_xspace's. */
int tl_tf2trace_render(const uint8_t *data, size_t len, const char *name, tl_arena *arena,
		       tl_tf2trace_run *out, tl_error *err);

/* Reads a Trace and renders it as the bytes of an XSpace (into `arena`,
 * *out and *out_len), for tl_xspace_open. `name` names the input in
 * warnings and errors, and gives the XSpace its hostname (HOST of
 * ".../HOST.trace[.gz]"). Damage is warned about (base/warn.h; -1 under
 * --strict); a file with no usable event is an error: -1, err filled. */
int tl_tf2trace_to_xspace(const uint8_t *data, size_t len, const char *name, tl_arena *arena,
			  const uint8_t **out, size_t *out_len, tl_error *err);

#endif
