/*
 * xspace-gen: a deterministic generator of TF2 profiler XSpace files
 * (tensorflow.profiler.XSpace, *.xplane.pb) for tests and benchmarks of the
 * XSpace reader (io/xspace.h), and of the same run as Chrome trace JSON
 * (--format).
 *
 * What it writes is shaped like what TF 2.x's profiler writes for a Keras
 * training loop on GPUs (compare shared/realdata/semisupcv_*.xplane.pb):
 *   - a "/host:CPU" plane: a "python3" line with one "train_function" slice
 *     per step, and --threads "tf_Compute/N" lines; each op of a step is an
 *     event "model/layer_L/name_K:Op" on one of them, holding a nested
 *     "cuLaunchKernel" event with a correlation_id stat (GPUs only) and the
 *     op's MemoryAllocation / MemoryDeallocation events (--mem per op; stats
 *     allocator_name as a ref_value, bytes_allocated, allocation_bytes,
 *     requested_bytes, bytes_reserved, addr, peak_bytes_in_use, tf_op);
 *   - per GPU a "/device:GPU:N" plane: a "Stream #7(Compute)" line with the
 *     kernel of each op placed there (correlation_id as its launch, tf_op as
 *     a ref_value, kernel_details), and the derived lines "TensorFlow Ops"
 *     (one event per op), "TensorFlow Name Scope" ("model" per step, then
 *     runs of one layer) and "Steps" (one event per step, named by its
 *     number).
 * Op K of a step runs on thread K % threads and GPU K % gpus; a buffer
 * allocated in op K is freed in op K + 2 (the step's last op frees what is
 * left), so every allocator is empty between steps. Fields are written in
 * field order, as TensorFlow's serializer does (a plane's lines before its
 * metadata maps).
 *
 * --hostile KIND adds damage the reader must survive beside the good events
 * above, which stay as they are (the truth's counts hold): stat-ref,
 * missing-metadata, time-overflow, occurrences, million-lines, empty-plane,
 * alloc-extremes (allocator events with int64's extremes), bad-bytes (events
 * whose bytes or stats do not decode, a line cut short by an entry whose
 * length runs past it);
 * truncated cuts the file in the middle of an event. --size BYTES picks the
 * ops per step that make a file of about that size.
 *
 * --trace FILE writes the same run as a TF 2.0 profiler trace
 * (tensorflow.profiler.Trace, the .trace file) by TensorFlow's own rules
 * (ConvertXSpaceToTraceEvents, tensorflow/core/profiler/convert/
 * xplane_to_trace_events.cc, TF 2.3 and 2.4): the XSpace written is decoded
 * again (protobuf-c); the "/host:CPU" plane becomes device 501
 * (kHostThreadsDeviceId), each "/device:GPU:" plane device 1 + its id
 * (kFirstDeviceId), other planes nothing; a device's name is its plane's,
 * its resources its lines (key and resource_id the line's display_id, else
 * its id, as uint32; name its display_name, else its name); each event
 * becomes a trace event on its plane's device and its line's resource, named
 * by its metadata's display_name where it has one (its name then an
 * argument "long_name") else by its name, or by its step_name stat's text,
 * timestamp_ps the line's timestamp_ns * 1000 + offset_ps, duration_ps its
 * own, and each stat with a value an argument named by its stat metadata,
 * its value as text (int64 and uint64 in decimal, a double as "%.17g", a
 * string as itself, a ref_value the name of the stat metadata it refers to;
 * bytes are left out). Devices are written host first, then in plane
 * order, resources in line order, events plane by plane and line by line. Times must fit: --t0 NS moves every line's
 * timestamp_ns (default a 2020 wall clock, 1608569000000000000, whose
 * picoseconds pass uint64; TensorFlow's .trace counts from the session's
 * start), and --trace refuses times that do not fit uint64 picoseconds.
 * --from-xspace FILE writes no run of its own: the XSpace FILE (a real one)
 * becomes the --trace file by the same rules; where its times are a wall
 * clock (a line's timestamp_ns * 1000 past int64), they are first counted
 * from its earliest line's timestamp_ns, as TensorFlow's .trace counts them
 * from the session's start (TF 2.3 and later save XSpaces so counted).
 *
 * The truth (on standard error, or --truth FILE) is one "key value" line per
 * count: steps, ops, op_type TYPE N, launches, kernels, gpu_kernels GPU N,
 * tf_ops_events, memory_events, allocations, deallocations, peak ALLOCATOR
 * BYTES (the largest bytes_allocated), and what the hostile kind added.
 *
 * --format trace-viewer and --format kineto write the same run (no memory
 * events) as TensorBoard's trace viewer JSON and as a PyTorch profiler
 * (Kineto) trace, by the rules written above trace_viewer_json below: the
 * three files give one kernel table, and the truth holds for each (but
 * tf_ops_events, the XSpace's and the trace viewer's "TensorFlow Ops" line,
 * which Kineto has not).
 *
 * Same arguments, same bytes. Exit status: 0 ok, 1 cannot write, 2 usage.
 */
#include "io/pbwire.h"
#include "tensorflow.pb-c.h"

#include <errno.h>
#include <getopt.h>
#include <glib.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef Tensorflow__Profiler__XEvent xevent;
typedef Tensorflow__Profiler__XStat xstat;

#define MAX_GPUS 64
#define MAX_THREADS 256
#define MAX_MEM 16
#define MAX_STATS 24
#define T0_DEFAULT INT64_C(1608569000000000000) /* a 2020 wall clock, as real files have */
static int64_t t0_ns = T0_DEFAULT;		      /* --t0 */
#define T0_NS t0_ns
#define OP_GAP_NS 20000			   /* between the starts of two ops */
#define MARGIN_NS 10000			   /* before the first op and after the last */
#define STEP_GAP_NS 5000
#define WIRE_LEN 2
#define LINE_TF_OPS INT64_C(-559038734) /* the derived lines' ids in real files */
#define LINE_SCOPES INT64_C(-559038735)
#define LINE_STEPS INT64_C(-559038737)
#define MILLION_LINES 1000000

enum hostile {
	H_NONE,
	H_STAT_REF,
	H_MISSING_MD,
	H_TIME_OVERFLOW,
	H_OCCURRENCES,
	H_MILLION_LINES,
	H_EMPTY_PLANE,
	H_TRUNCATED,
	H_ALLOC_EXTREMES,
	H_BAD_BYTES
};
static const char *const hostile_names[] = {
    "none",	     "stat-ref",    "missing-metadata", "time-overflow",  "occurrences",
    "million-lines", "empty-plane", "truncated",	"alloc-extremes", "bad-bytes"};

struct cfg {
	uint64_t seed;
	int steps, ops, gpus, threads, mem;
	long long size; /* --size target in bytes, 0: none */
	int64_t spread;	/* --step-spread: ns (step_len_ns) */
	enum hostile hostile;
	bool no_launches; /* --no-launches: host API tracing off (kernels, no launch events) */
	enum { F_XSPACE, F_TRACE_VIEWER, F_KINETO } format;
	const char *out, *truth;
	const char *host;  /* the XSpace's hostname ("": none written) */
	const char *trace; /* --trace: the same run as a .trace into this file */
	const char *from;  /* --from-xspace: this XSpace, not a generated one */
};

/* What was generated, for the truth. */
struct truth {
	long ops, launches, kernels, tf_ops, allocs, deallocs;
	long op_type[8];
	long gpu_kernels[MAX_GPUS];
	int64_t peak[MAX_GPUS + 1]; /* largest bytes_allocated per allocator */
	long bad_stat_ids, bad_stat_refs, unnamed, overflow, far, occurrences, extra_lines;
	long empty_planes, extreme_allocs;
	long bad_events, cut_lines, cut_line_events;
	size_t cut_at, full_len;
};

/* ------------------------------------------------------------------ */
/* Random numbers: splitmix64, one stream per (step, op)               */

static uint64_t splitmix(uint64_t *s)
{
	uint64_t z = (*s += 0x9e3779b97f4a7c15ull);
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	return z ^ (z >> 31);
}

static uint64_t stream_seed(uint64_t seed, uint64_t a, uint64_t b)
{
	uint64_t s = seed ^ (a * 0xd1b54a32d192ed03ull) ^ (b * 0x8cb92ba72f3d8dd7ull);
	splitmix(&s);
	return s;
}

/* ------------------------------------------------------------------ */
/* Metadata: name -> id, ids from 1 in order of first use              */

struct md {
	GHashTable *ids;
	GPtrArray *names; /* names->pdata[i] has id i + 1 */
};

static void md_init(struct md *m)
{
	m->ids = g_hash_table_new(g_str_hash, g_str_equal);
	m->names = g_ptr_array_new_with_free_func(g_free);
}

static void md_free(struct md *m)
{
	g_hash_table_destroy(m->ids);
	g_ptr_array_free(m->names, TRUE);
}

static int64_t md_id(struct md *m, const char *name)
{
	gpointer v = g_hash_table_lookup(m->ids, name);
	if (v != NULL)
		return (int64_t)GPOINTER_TO_SIZE(v);
	char *copy = g_strdup(name);
	g_ptr_array_add(m->names, copy);
	g_hash_table_insert(m->ids, copy, GSIZE_TO_POINTER(m->names->len));
	return (int64_t)m->names->len;
}

/* ------------------------------------------------------------------ */
/* Writing: an event packed into its line's bytes at once, a line into */
/* its plane's, a plane into the file's                                */

struct event {
	xevent e;
	xstat s[MAX_STATS];
	xstat *sp[MAX_STATS];
};

struct line {
	GByteArray *bytes; /* the events, packed */
	int64_t id, ts_ns;
	char name[64];
};

struct plane {
	GByteArray *bytes; /* the lines, packed */
	int64_t id;
	const char *name;
	struct md ev, st;
};

/* A length-delimited field holding a packed message. */
static void put_msg(GByteArray *out, uint32_t field, const ProtobufCMessage *m)
{
	size_t n = protobuf_c_message_get_packed_size(m);
	tl_pbwire_put_tag(out, field, WIRE_LEN);
	tl_pbwire_put_varint(out, n);
	size_t at = out->len;
	g_byte_array_set_size(out, (guint)(at + n));
	protobuf_c_message_pack(m, out->data + at);
}

static void put_bytes(GByteArray *out, uint32_t field, const GByteArray *head,
		      const GByteArray *body, const GByteArray *tail)
{
	tl_pbwire_put_tag(out, field, WIRE_LEN);
	tl_pbwire_put_varint(out, head->len + body->len + tail->len);
	g_byte_array_append(out, head->data, head->len);
	g_byte_array_append(out, body->data, body->len);
	g_byte_array_append(out, tail->data, tail->len);
}

static void ev_begin(struct event *ev, int64_t md, int64_t off_ps, int64_t dur_ps)
{
	xevent init = TENSORFLOW__PROFILER__XEVENT__INIT;
	ev->e = init;
	ev->e.metadata_id = md;
	ev->e.data_case = TENSORFLOW__PROFILER__XEVENT__DATA_OFFSET_PS;
	ev->e.offset_ps = off_ps;
	ev->e.duration_ps = dur_ps;
	ev->e.stats = ev->sp;
}

static xstat *ev_stat(struct event *ev, int64_t md, Tensorflow__Profiler__XStat__ValueCase c)
{
	g_assert(ev->e.n_stats < MAX_STATS);
	xstat init = TENSORFLOW__PROFILER__XSTAT__INIT;
	xstat *s = &ev->s[ev->e.n_stats];
	*s = init;
	s->metadata_id = md;
	s->value_case = c;
	ev->sp[ev->e.n_stats++] = s;
	return s;
}

static void ev_u64(struct event *ev, int64_t md, uint64_t v)
{
	ev_stat(ev, md, TENSORFLOW__PROFILER__XSTAT__VALUE_UINT64_VALUE)->uint64_value = v;
}

static void ev_i64(struct event *ev, int64_t md, int64_t v)
{
	ev_stat(ev, md, TENSORFLOW__PROFILER__XSTAT__VALUE_INT64_VALUE)->int64_value = v;
}

static void ev_ref(struct event *ev, int64_t md, uint64_t ref)
{
	ev_stat(ev, md, TENSORFLOW__PROFILER__XSTAT__VALUE_REF_VALUE)->ref_value = ref;
}

static void ev_str(struct event *ev, int64_t md, const char *s)
{
	ev_stat(ev, md, TENSORFLOW__PROFILER__XSTAT__VALUE_STR_VALUE)->str_value = (char *)s;
}

static void line_begin(struct line *l, int64_t id, const char *name, int64_t ts_ns)
{
	l->bytes = g_byte_array_new();
	l->id = id;
	l->ts_ns = ts_ns;
	g_strlcpy(l->name, name, sizeof l->name);
}

static void line_put(struct line *l, struct event *ev)
{
	put_msg(l->bytes, 4, &ev->e.base);
}

/* An event at t_ns (on the line's clock) lasting dur_ns. */
static void ev_at(struct event *ev, const struct line *l, int64_t md, int64_t t_ns, int64_t dur_ns)
{
	ev_begin(ev, md, (t_ns - l->ts_ns) * 1000, dur_ns * 1000);
}

/* The line into its plane: id, name, timestamp_ns, then the events. */
static void line_end(struct plane *p, struct line *l)
{
	Tensorflow__Profiler__XLine head = TENSORFLOW__PROFILER__XLINE__INIT;
	head.id = l->id;
	head.name = l->name;
	head.timestamp_ns = l->ts_ns;
	GByteArray *h = g_byte_array_new(), *none = g_byte_array_new();
	/* XLine's fields 1..3 packed alone are its head */
	size_t n = protobuf_c_message_get_packed_size(&head.base);
	g_byte_array_set_size(h, (guint)n);
	protobuf_c_message_pack(&head.base, h->data);
	put_bytes(p->bytes, 3, h, l->bytes, none);
	g_byte_array_free(h, TRUE);
	g_byte_array_free(none, TRUE);
	g_byte_array_free(l->bytes, TRUE);
	l->bytes = NULL;
}

static void plane_begin(struct plane *p, int64_t id, const char *name)
{
	p->bytes = g_byte_array_new();
	p->id = id;
	p->name = name;
	md_init(&p->ev);
	md_init(&p->st);
}

/* The plane into the file: id and name, the lines, then the metadata maps
 * (the order TensorFlow writes). */
static void plane_end(GByteArray *file, struct plane *p)
{
	Tensorflow__Profiler__XPlane head = TENSORFLOW__PROFILER__XPLANE__INIT;
	head.id = p->id;
	head.name = (char *)p->name;
	GByteArray *h = g_byte_array_new(), *t = g_byte_array_new();
	g_byte_array_set_size(h, (guint)protobuf_c_message_get_packed_size(&head.base));
	protobuf_c_message_pack(&head.base, h->data);
	/* the maps' entries, each a repeated field 4 (events) or 5 (stats) */
	for (guint i = 0; i < p->ev.names->len; i++) {
		Tensorflow__Profiler__XEventMetadata m =
		    TENSORFLOW__PROFILER__XEVENT_METADATA__INIT;
		Tensorflow__Profiler__XPlane__EventMetadataEntry e =
		    TENSORFLOW__PROFILER__XPLANE__EVENT_METADATA_ENTRY__INIT;
		m.id = e.key = i + 1;
		m.name = p->ev.names->pdata[i];
		e.value = &m;
		put_msg(t, 4, &e.base);
	}
	for (guint i = 0; i < p->st.names->len; i++) {
		Tensorflow__Profiler__XStatMetadata m = TENSORFLOW__PROFILER__XSTAT_METADATA__INIT;
		Tensorflow__Profiler__XPlane__StatMetadataEntry e =
		    TENSORFLOW__PROFILER__XPLANE__STAT_METADATA_ENTRY__INIT;
		m.id = e.key = i + 1;
		m.name = p->st.names->pdata[i];
		e.value = &m;
		put_msg(t, 5, &e.base);
	}
	put_bytes(file, 1, h, p->bytes, t);
	g_byte_array_free(h, TRUE);
	g_byte_array_free(t, TRUE);
	g_byte_array_free(p->bytes, TRUE);
	md_free(&p->ev);
	md_free(&p->st);
}

/* ------------------------------------------------------------------ */
/* The model: ops, their names, times and buffers                      */

static const char *const op_types[8] = {"MatMul", "BiasAdd", "Relu", "Conv2D",
					"AddV2",  "Mul",     "Cast", "Softmax"};
static const char *const kernels[8] = {
    "volta_sgemm_128x64_nn",
    "void tensorflow::BiasNHWCKernel<float>(int, float const*, float const*, float*, int)",
    "void Eigen::internal::EigenMetaKernel<Relu>(float*, int)",
    "volta_scudnn_128x64_relu_interior_nn_v1",
    "void Eigen::internal::EigenMetaKernel<AddV2>(float*, int)",
    "void Eigen::internal::EigenMetaKernel<Mul>(float*, int)",
    "void Eigen::internal::EigenMetaKernel<Cast>(float*, int)",
    "void tensorflow::functor::SoftmaxKernel<float>(int, float const*, float*)"};

struct buf {
	uint64_t addr;
	int64_t size;
	int alloc; /* allocator: the GPU, or 0 ("cpu") without GPUs */
};

/* Everything one generation shares. */
struct gen {
	const struct cfg *cfg;
	struct truth *truth;
	int n_alloc;
	char alloc_names[MAX_GPUS + 1][24];
	int64_t in_use[MAX_GPUS + 1], peak[MAX_GPUS + 1];
	uint64_t next_addr[MAX_GPUS + 1];
	struct buf *bufs; /* a step's buffers, op K's at [K * mem, (K + 1) * mem) */
};

/* Step s lasts what its ops take, plus (s * 7 mod 5) times --step-spread
 * (0 2 4 1 3, then again): its "train_function" and "Steps" events end
 * that much later, its ops stay where they are in it. */
static int64_t step_len_ns(const struct cfg *c, int s)
{
	return (int64_t)c->ops * OP_GAP_NS + 2 * MARGIN_NS + (int64_t)(s * 7 % 5) * c->spread;
}

static int64_t step_start_ns(const struct cfg *c, int s)
{
	static const int64_t before[5] = {0, 0, 2, 6, 7}; /* the spreads of steps s - s % 5 .. s - 1 */
	int64_t spreads = (int64_t)(s / 5) * 10 + before[s % 5];
	return T0_NS + (int64_t)s * (step_len_ns(c, 0) + STEP_GAP_NS) + spreads * c->spread;
}

static int64_t op_start_ns(const struct cfg *c, int s, int k)
{
	return step_start_ns(c, s) + MARGIN_NS + (int64_t)k * OP_GAP_NS;
}

static void op_name(char *out, size_t n, int k)
{
	const char *t = op_types[k % 8];
	char *lower = g_ascii_strdown(t, -1);
	snprintf(out, n, "model/layer_%d/%s_%d:%s", k / 4, lower, k, t);
	g_free(lower);
}

static int64_t op_dur_ns(const struct cfg *c, int s, int k)
{
	uint64_t r = stream_seed(c->seed, 1 + (uint64_t)s, (uint64_t)k);
	return 8000 + (int64_t)(splitmix(&r) % 2000);
}

static int64_t kernel_dur_ns(const struct cfg *c, int s, int k)
{
	uint64_t r = stream_seed(c->seed, 100001 + (uint64_t)s, (uint64_t)k);
	return 6000 + (int64_t)(splitmix(&r) % 4000);
}

static int64_t buf_size(const struct cfg *c, int s, int k, int j)
{
	uint64_t r = stream_seed(c->seed, 200001 + (uint64_t)s, (uint64_t)k * MAX_MEM + j);
	return 256 * (1 + (int64_t)(splitmix(&r) % 4096));
}

static uint64_t correlation_id(const struct cfg *c, int s, int k)
{
	return 1 + (uint64_t)s * (uint64_t)c->ops + (uint64_t)k;
}

/* The stat metadata every plane registers first, in this order, so that
 * ids do not depend on which event uses one first. */
struct sids {
	int64_t group_id, step_num, step_name, correlation_id, context_id, kernel_details, tf_op;
	int64_t allocator_name, bytes_reserved, bytes_allocated, peak_bytes_in_use, requested_bytes,
	    allocation_bytes, addr, note;
};

static void sids_register(struct md *st, struct sids *si)
{
	si->group_id = md_id(st, "group_id");
	si->step_num = md_id(st, "step_num");
	si->step_name = md_id(st, "step_name");
	si->correlation_id = md_id(st, "correlation_id");
	si->context_id = md_id(st, "context_id");
	si->kernel_details = md_id(st, "kernel_details");
	si->tf_op = md_id(st, "tf_op");
	si->allocator_name = md_id(st, "allocator_name");
	si->bytes_reserved = md_id(st, "bytes_reserved");
	si->bytes_allocated = md_id(st, "bytes_allocated");
	si->peak_bytes_in_use = md_id(st, "peak_bytes_in_use");
	si->requested_bytes = md_id(st, "requested_bytes");
	si->allocation_bytes = md_id(st, "allocation_bytes");
	si->addr = md_id(st, "addr");
	si->note = md_id(st, "note");
}

/* ------------------------------------------------------------------ */
/* The host plane                                                      */

struct host {
	struct gen *g;
	struct plane p;
	struct sids si;
	struct line *threads;
};

static void mem_event(struct host *h, struct line *l, int64_t t, const struct buf *b, bool alloc,
		      int64_t tf_op_ref)
{
	struct gen *g = h->g;
	int a = b->alloc;
	g->in_use[a] += alloc ? b->size : -b->size;
	if (g->in_use[a] > g->peak[a])
		g->peak[a] = g->in_use[a];
	int64_t md = md_id(&h->p.ev, alloc ? "MemoryAllocation" : "MemoryDeallocation");
	int64_t alloc_ref = md_id(&h->p.st, g->alloc_names[a]);
	struct event ev;
	ev_at(&ev, l, md, t, 0);
	ev_ref(&ev, h->si.allocator_name, (uint64_t)alloc_ref);
	ev_i64(&ev, h->si.bytes_reserved, INT64_C(1) << 34);
	ev_i64(&ev, h->si.bytes_allocated, g->in_use[a]);
	ev_i64(&ev, h->si.peak_bytes_in_use, g->peak[a]);
	ev_i64(&ev, h->si.requested_bytes, b->size);
	ev_i64(&ev, h->si.allocation_bytes, b->size);
	ev_i64(&ev, h->si.addr, (int64_t)b->addr);
	ev_ref(&ev, h->si.tf_op, (uint64_t)tf_op_ref);
	line_put(l, &ev);
	if (alloc)
		g->truth->allocs++;
	else
		g->truth->deallocs++;
}

/* The buffers of op k, freed from *t on. */
static void free_op(struct host *h, struct line *l, int k, int64_t *t, int64_t tf_op_ref)
{
	for (int j = 0; j < h->g->cfg->mem; j++) {
		mem_event(h, l, *t, &h->g->bufs[k * h->g->cfg->mem + j], false, tf_op_ref);
		*t += 10;
	}
}

/* --hostile alloc-extremes: an allocation and a free of sizes, totals,
 * peaks and addresses at the ends of int64, beside the good ones. */
static void host_alloc_extremes(struct host *h, struct line *l, int64_t t)
{
	int64_t alloc_ref = md_id(&h->p.st, h->g->alloc_names[0]);
	for (int i = 0; i < 2; i++) {
		struct event ev;
		int64_t md = md_id(&h->p.ev, i == 0 ? "MemoryAllocation" : "MemoryDeallocation");
		ev_at(&ev, l, md, t + 7900 + i, 0);
		ev_ref(&ev, h->si.allocator_name, (uint64_t)alloc_ref);
		ev_i64(&ev, h->si.allocation_bytes, i == 0 ? INT64_MAX : INT64_MIN);
		ev_i64(&ev, h->si.bytes_allocated, i == 0 ? INT64_MIN : INT64_MAX);
		ev_i64(&ev, h->si.peak_bytes_in_use, i == 0 ? INT64_MAX : -1);
		ev_i64(&ev, h->si.bytes_reserved, INT64_MIN);
		ev_i64(&ev, h->si.addr, i == 0 ? -1 : INT64_MIN);
		ev_u64(&ev, h->si.tf_op, UINT64_MAX); /* a tf_op of the wrong type */
		line_put(l, &ev);
		h->g->truth->extreme_allocs++;
	}
}

/* What --hostile adds after op k's events, on its thread's line. */
static void host_hostile(struct host *h, struct line *l, int k, int64_t t)
{
	struct truth *tr = h->g->truth;
	struct event ev;
	if (h->g->cfg->hostile == H_ALLOC_EXTREMES && k % 5 == 0)
		host_alloc_extremes(h, l, t);
	if (h->g->cfg->hostile == H_MISSING_MD && k % 3 == 0) {
		ev_at(&ev, l, 900000 + k, t + 12000, 1000);
		line_put(l, &ev);
		tr->unnamed++;
	}
	if (h->g->cfg->hostile == H_BAD_BYTES && k % 4 == 1) {
		/* an event whose metadata_id comes as bytes, then one whose
		 * stat's uint64 value does */
		static const uint8_t bad_event[] = {0x0a, 0x01, 0x00};
		tl_pbwire_put_bytes(l->bytes, 4, bad_event, sizeof bad_event);
		static const uint8_t bad_stat[] = {0x08, 0x01, 0x10, 0x02, 0x18, 0x03, 0x22,
						   0x05, 0x08, 0x01, 0x1a, 0x01, 0x00};
		tl_pbwire_put_bytes(l->bytes, 4, bad_stat, sizeof bad_stat);
		tr->bad_events += 2;
	}
	if (h->g->cfg->hostile == H_OCCURRENCES && k % 4 == 0) {
		ev_begin(&ev, md_id(&h->p.ev, "TraceMeCounter"), 0, 0);
		ev.e.data_case = TENSORFLOW__PROFILER__XEVENT__DATA_NUM_OCCURRENCES;
		ev.e.num_occurrences = 3;
		line_put(l, &ev);
		tr->occurrences++;
	}
}

/* Op k of step s on its thread: the op, its allocations, its launch, the
 * frees of op k - 2 (and in the last op, of what is left). */
static void host_op(struct host *h, int s, int k)
{
	const struct cfg *c = h->g->cfg;
	struct gen *g = h->g;
	struct line *l = &h->threads[k % c->threads];
	char name[96];
	op_name(name, sizeof name, k);
	int64_t t = op_start_ns(c, s, k);
	int64_t op_md = md_id(&h->p.ev, name);
	int64_t op_ref = md_id(&h->p.st, name);
	struct event ev;
	ev_at(&ev, l, op_md, t, op_dur_ns(c, s, k));
	ev_i64(&ev, h->si.group_id, s);
	if (c->hostile == H_STAT_REF && k % 3 == 0) {
		ev_i64(&ev, 1000000 + k, k); /* no such stat metadata */
		g->truth->bad_stat_ids++;
	}
	line_put(l, &ev);
	g->truth->ops++;
	g->truth->op_type[k % 8]++;
	int a = c->gpus > 0 ? k % c->gpus : 0;
	for (int j = 0; j < c->mem; j++) {
		struct buf *b = &g->bufs[k * c->mem + j];
		b->alloc = a;
		b->size = buf_size(c, s, k, j);
		b->addr = g->next_addr[a];
		g->next_addr[a] += (uint64_t)b->size;
		mem_event(h, l, t + 200 + 10 * j, b, true, op_ref);
	}
	if (c->gpus > 0 && !c->no_launches) {
		ev_at(&ev, l, md_id(&h->p.ev, "cuLaunchKernel"), t + 1000, 2000);
		ev_u64(&ev, h->si.correlation_id, correlation_id(c, s, k));
		ev_i64(&ev, h->si.group_id, s);
		line_put(l, &ev);
		g->truth->launches++;
	}
	int64_t ft = t + 6000;
	if (k >= 2)
		free_op(h, l, k - 2, &ft, op_ref);
	if (k == c->ops - 1) {
		if (k >= 1)
			free_op(h, l, k - 1, &ft, op_ref);
		free_op(h, l, k, &ft, op_ref);
	}
	host_hostile(h, l, k, t);
}

/* --hostile time-overflow: lines whose times leave +-2^61 ns (counted as
 * overflow) and events far out but representable (counted as far). */
static void host_time_overflow(struct host *h)
{
	const struct {
		int64_t ts, off, dur;
		bool out;
	} evs[] = {
	    {INT64_MAX - 1, 0, 1000, true},
	    {INT64_MAX - 1, 1000000, 1000, true},
	    {INT64_MAX - 1, INT64_MAX, INT64_MAX, true},
	    {INT64_MIN + 1, 0, 1000, true},
	    {INT64_MIN + 1, INT64_MIN, 1000, true},
	    {INT64_MIN + 1, 0, INT64_MAX, true},
	    {T0_NS, INT64_MAX, INT64_MAX, false},
	    {T0_NS, INT64_MIN, INT64_MAX, false},
	    {T0_NS, 0, INT64_MIN, false},
	    {T0_NS, 1000, -1000, false},
	};
	int64_t md = md_id(&h->p.ev, "hostile_time");
	for (size_t i = 0; i < G_N_ELEMENTS(evs);) {
		struct line l;
		char name[64];
		snprintf(name, sizeof name, "tf_hostile/%zu", 2000 + i);
		line_begin(&l, (int64_t)(2000 + i), name, evs[i].ts);
		size_t j = i;
		for (; j < G_N_ELEMENTS(evs) && evs[j].ts == evs[i].ts; j++) {
			struct event ev;
			ev_begin(&ev, md, evs[j].off, evs[j].dur);
			line_put(&l, &ev);
			if (evs[j].out)
				h->g->truth->overflow++;
			else
				h->g->truth->far++;
		}
		line_end(&h->p, &l);
		i = j;
	}
}

static void host_million_lines(struct host *h)
{
	int64_t md = md_id(&h->p.ev, "Idle");
	for (int i = 0; i < MILLION_LINES; i++) {
		struct line l;
		char name[64];
		snprintf(name, sizeof name, "tf_idle/%d", 10000 + i);
		line_begin(&l, 10000 + i, name, T0_NS);
		struct event ev;
		ev_begin(&ev, md, (int64_t)(i % 1000) * 1000, 1000);
		line_put(&l, &ev);
		line_end(&h->p, &l);
	}
	h->g->truth->extra_lines += MILLION_LINES;
}

static void host_plane(struct gen *g, GByteArray *file)
{
	const struct cfg *c = g->cfg;
	struct host h = {.g = g};
	plane_begin(&h.p, 0, "/host:CPU");
	sids_register(&h.p.st, &h.si);
	struct line main_line;
	line_begin(&main_line, 1, "python3", T0_NS);
	h.threads = g_new0(struct line, (size_t)c->threads);
	for (int t = 0; t < c->threads; t++) {
		char name[64];
		snprintf(name, sizeof name, "tf_Compute/%d", 1000 + t);
		line_begin(&h.threads[t], 1000 + t, name, T0_NS);
	}
	int64_t train_md = md_id(&h.p.ev, "train_function");
	for (int s = 0; s < c->steps; s++) {
		struct event ev;
		ev_at(&ev, &main_line, train_md, step_start_ns(c, s), step_len_ns(c, s));
		ev_i64(&ev, h.si.group_id, s);
		ev_i64(&ev, h.si.step_num, s);
		line_put(&main_line, &ev);
		for (int k = 0; k < c->ops; k++)
			host_op(&h, s, k);
	}
	line_end(&h.p, &main_line);
	for (int t = 0; t < c->threads; t++)
		line_end(&h.p, &h.threads[t]);
	g_free(h.threads);
	if (c->hostile == H_TIME_OVERFLOW)
		host_time_overflow(&h);
	if (c->hostile == H_MILLION_LINES)
		host_million_lines(&h);
	if (c->hostile == H_BAD_BYTES) {
		/* a line of three events, then an entry whose length runs past
		 * the line: the line is cut short there */
		struct line cut;
		line_begin(&cut, 7, "tf_damaged", T0_NS);
		int64_t md = md_id(&h.p.ev, "tf_damaged/op:NoOp");
		for (int i = 0; i < 3; i++) {
			struct event ev;
			ev_at(&ev, &cut, md, step_start_ns(c, 0) + MARGIN_NS / 2 + i * 10, 5);
			line_put(&cut, &ev);
		}
		static const uint8_t overlong[] = {0x22, 0x7f, 0x08, 0x01};
		g_byte_array_append(cut.bytes, overlong, sizeof overlong);
		line_end(&h.p, &cut);
		g->truth->cut_lines++;
		g->truth->cut_line_events += 3;
	}
	plane_end(file, &h.p);
}

/* ------------------------------------------------------------------ */
/* The GPU planes                                                      */

struct gpu {
	struct gen *g;
	int n;
	struct plane p;
	struct sids si;
	struct line stream, ops, scopes, steps;
};

static int64_t kernel_start_ns(const struct cfg *c, int s, int k)
{
	return op_start_ns(c, s, k) + 4000;
}

static int64_t kernel_end_ns(const struct cfg *c, int s, int k)
{
	return kernel_start_ns(c, s, k) + kernel_dur_ns(c, s, k);
}

static void gpu_kernel(struct gpu *d, int s, int k)
{
	const struct cfg *c = d->g->cfg;
	struct truth *tr = d->g->truth;
	char name[96];
	op_name(name, sizeof name, k);
	int64_t t = kernel_start_ns(c, s, k), dur = kernel_dur_ns(c, s, k);
	int64_t kmd = md_id(&d->p.ev, kernels[k % 8]);
	int64_t op_ref = md_id(&d->p.st, name);
	struct event ev;
	ev_at(&ev, &d->stream, kmd, t, dur);
	ev_u64(&ev, d->si.correlation_id, correlation_id(c, s, k));
	ev_u64(&ev, d->si.context_id, 1);
	ev_str(&ev, d->si.kernel_details, "regs:32 static_shared:0 grid:128,1,1 block:256,1,1");
	ev_ref(&ev, d->si.tf_op, (uint64_t)op_ref);
	ev_i64(&ev, d->si.group_id, s);
	if (c->hostile == H_STAT_REF && k % 3 == 0) {
		ev_ref(&ev, d->si.note, 2000000 + (uint64_t)k); /* no such stat metadata */
		tr->bad_stat_refs++;
	}
	line_put(&d->stream, &ev);
	tr->kernels++;
	tr->gpu_kernels[d->n]++;
	if (c->hostile == H_MISSING_MD && k % 3 == 0) {
		ev_at(&ev, &d->stream, 900000 + k, t + dur + 500, 1000);
		line_put(&d->stream, &ev);
		tr->unnamed++;
	}
	if (c->hostile == H_OCCURRENCES && k % 4 == 0) {
		ev_begin(&ev, kmd, 0, 0);
		ev.e.data_case = TENSORFLOW__PROFILER__XEVENT__DATA_NUM_OCCURRENCES;
		ev.e.num_occurrences = 2;
		line_put(&d->stream, &ev);
		tr->occurrences++;
	}
	ev_at(&ev, &d->ops, md_id(&d->p.ev, name), t, dur);
	ev_i64(&ev, d->si.group_id, s);
	line_put(&d->ops, &ev);
	tr->tf_ops++;
}

/* Step s on this GPU: its "Steps" event, its "model" scope, then its ops
 * with a "layer_L" scope over each run of one layer. */
static void gpu_step(struct gpu *d, int s)
{
	const struct cfg *c = d->g->cfg;
	int G = c->gpus;
	char sname[32];
	snprintf(sname, sizeof sname, "%d", s);
	struct event ev;
	ev_at(&ev, &d->steps, md_id(&d->p.ev, sname), step_start_ns(c, s), step_len_ns(c, s));
	ev_i64(&ev, d->si.group_id, s);
	ev_str(&ev, d->si.step_name, sname);
	line_put(&d->steps, &ev);
	if (d->n >= c->ops)
		return;
	int last = d->n + (c->ops - 1 - d->n) / G * G;
	int64_t first_t = kernel_start_ns(c, s, d->n);
	ev_at(&ev, &d->scopes, md_id(&d->p.ev, "model"), first_t,
	      kernel_end_ns(c, s, last) - first_t);
	ev_i64(&ev, d->si.group_id, s);
	line_put(&d->scopes, &ev);
	for (int k = d->n; k < c->ops; k += G) {
		if (k == d->n || (k - G) / 4 != k / 4) {
			int end = k;
			while (end + G < c->ops && (end + G) / 4 == k / 4)
				end += G;
			char layer[32];
			snprintf(layer, sizeof layer, "layer_%d", k / 4);
			int64_t lt = kernel_start_ns(c, s, k);
			ev_at(&ev, &d->scopes, md_id(&d->p.ev, layer), lt,
			      kernel_end_ns(c, s, end) - lt);
			ev_i64(&ev, d->si.group_id, s);
			line_put(&d->scopes, &ev);
		}
		gpu_kernel(d, s, k);
	}
}

/* A line of one event at a time that leaves +-2^61 ns. */
static void gpu_time_overflow(struct gpu *d)
{
	struct line l;
	line_begin(&l, 9, "Stream #9(Compute)", INT64_MAX - 1);
	struct event ev;
	ev_begin(&ev, md_id(&d->p.ev, kernels[0]), 5000, 1000);
	ev_u64(&ev, d->si.correlation_id, 1);
	line_put(&l, &ev);
	line_end(&d->p, &l);
	d->g->truth->overflow++;
}

static void gpu_plane(struct gen *g, GByteArray *file, int n)
{
	const struct cfg *c = g->cfg;
	struct gpu d = {.g = g, .n = n};
	char pname[32];
	snprintf(pname, sizeof pname, "/device:GPU:%d", n);
	plane_begin(&d.p, n + 1, pname);
	sids_register(&d.p.st, &d.si);
	line_begin(&d.stream, 7, "Stream #7(Compute)", T0_NS);
	line_begin(&d.ops, LINE_TF_OPS, "TensorFlow Ops", T0_NS);
	line_begin(&d.scopes, LINE_SCOPES, "TensorFlow Name Scope", T0_NS);
	line_begin(&d.steps, LINE_STEPS, "Steps", T0_NS);
	for (int s = 0; s < c->steps; s++)
		gpu_step(&d, s);
	line_end(&d.p, &d.stream);
	line_end(&d.p, &d.ops);
	line_end(&d.p, &d.scopes);
	line_end(&d.p, &d.steps);
	if (c->hostile == H_TIME_OVERFLOW && n == 0)
		gpu_time_overflow(&d);
	plane_end(file, &d.p);
}

/* --hostile empty-plane: a plane with nothing in it, a GPU plane with a name
 * and no lines, a host plane with one line of no events. */
static void empty_planes(struct gen *g, GByteArray *file)
{
	tl_pbwire_put_tag(file, 1, WIRE_LEN);
	tl_pbwire_put_varint(file, 0);
	struct plane p;
	char name[32];
	snprintf(name, sizeof name, "/device:GPU:%d", g->cfg->gpus);
	plane_begin(&p, 100, name);
	plane_end(file, &p);
	plane_begin(&p, 101, "/host:empty");
	struct line l;
	line_begin(&l, 1, "idle", T0_NS);
	line_end(&p, &l);
	plane_end(file, &p);
	g->truth->empty_planes = 3;
}

/* ------------------------------------------------------------------ */
/* The same run as Chrome trace JSON (--format)                        */
/*                                                                    */
/* trace-viewer: TensorBoard's trace viewer JSON of the XSpace above   */
/* (what its converter writes, compare realdata's chess_engine_tf25_   */
/* trace.json): {"displayTimeUnit":"ns","metadata":{"highres-ticks":  */
/* true},"traceEvents":[...]}; a process per plane (pid 1 + N for      */
/* /device:GPU:N, 501 for /host:CPU) with process_name and             */
/* process_sort_index, a thread per line (tid: the line's id as an     */
/* unsigned 32-bit number) with thread_name and thread_sort_index,     */
/* then each line's events as "X" events, ts and dur in microseconds   */
/* with three decimals, ts from the profile's start (T0), every stat   */
/* an arg holding a string (a ref_value: the name it refers to).       */
/*                                                                    */
/* kineto: PyTorch's profiler (Kineto, 2023 and later: compare         */
/* realdata's AMD-AGI_*.pt.trace.json) for the same run: each op a     */
/* "cpu_op" on its thread of the host process (pid 4242, tid 1000 + t, */
/* as the XSpace's lines), its launch a "cuda_runtime"                 */
/* "cudaLaunchKernel" with args "correlation", its kernel a "kernel"   */
/* on pid N (GPU N), tid 7 ("stream 7 "), with the same               */
/* "correlation"; "ac2g" flow events from launch to kernel; per step a */
/* "user_annotation" "ProfilerStep#S" on the main thread (tid 4242)    */
/* and a "gpu_user_annotation" of that name on each GPU's stream over  */
/* its kernels (as Kineto draws it: a label, not work); the            */
/* metadata (process_name "python3", process_labels "CPU" and "GPU N", */
/* thread_name) after the events, then the profiler's "Trace" span;    */
/* ts in microseconds from "baseTimeNanoseconds" (T0), three decimals. */
/*                                                                    */
/* Neither JSON has the XSpace's memory events (--mem is XSpace only); */
/* the op names, kernels, durations and correlation ids are the       */
/* XSpace's, so the three give one kernel table.                      */

#define TV_HOST_PID 501
#define KINETO_PID 4242

static void json_us(GString *o, int64_t ns)
{
	/* ns >= 0 here: every time is from T0 on */
	g_string_append_printf(o, "%" PRId64 ".%03d", ns / 1000, (int)(ns % 1000));
}

static void json_str(GString *o, const char *s)
{
	g_string_append_c(o, '"');
	for (const char *p = s; *p; p++) {
		if (*p == '"' || *p == '\\')
			g_string_append_c(o, '\\');
		g_string_append_c(o, *p);
	}
	g_string_append_c(o, '"');
}

/* ---- trace viewer ---- */

static void tv_meta(GString *o, int pid, const char *pname, int sort)
{
	g_string_append_printf(
	    o, "{\"ph\":\"M\",\"pid\":%d,\"name\":\"process_name\",\"args\":{\"name\":", pid);
	json_str(o, pname);
	g_string_append_printf(o,
			       "}},\n{\"ph\":\"M\",\"pid\":%d,\"name\":\"process_sort_index\","
			       "\"args\":{\"sort_index\":%d}},\n",
			       pid, sort);
}

static void tv_thread(GString *o, int pid, int64_t line_id, const char *name)
{
	uint32_t tid = (uint32_t)line_id;
	g_string_append_printf(o,
			       "{\"ph\":\"M\",\"pid\":%d,\"tid\":%" PRIu32
			       ",\"name\":\"thread_name\",\"args\":{\"name\":",
			       pid, tid);
	json_str(o, name);
	g_string_append_printf(o,
			       "}},\n{\"ph\":\"M\",\"pid\":%d,\"tid\":%" PRIu32
			       ",\"name\":\"thread_sort_index\",\"args\":{\"sort_index\":%" PRIu32
			       "}},\n",
			       pid, tid, tid);
}

/* An "X" event; args: NULL-ended key, value pairs (strings). */
static void tv_event(GString *o, int pid, int64_t line_id, int64_t t, int64_t dur, const char *name,
		     const char *const *args)
{
	g_string_append_printf(o, "{\"ph\":\"X\",\"pid\":%d,\"tid\":%" PRIu32 ",\"ts\":", pid,
			       (uint32_t)line_id);
	json_us(o, t - T0_NS);
	g_string_append(o, ",\"dur\":");
	json_us(o, dur);
	g_string_append(o, ",\"name\":");
	json_str(o, name);
	if (args != NULL && args[0] != NULL) {
		g_string_append(o, ",\"args\":{");
		for (int i = 0; args[i] != NULL; i += 2) {
			if (i > 0)
				g_string_append_c(o, ',');
			json_str(o, args[i]);
			g_string_append_c(o, ':');
			json_str(o, args[i + 1]);
		}
		g_string_append_c(o, '}');
	}
	g_string_append(o, "},\n");
}

static void tv_host(const struct cfg *c, GString *o, struct truth *tr)
{
	tv_meta(o, TV_HOST_PID, "/host:CPU", TV_HOST_PID);
	tv_thread(o, TV_HOST_PID, 1, "python3");
	for (int t = 0; t < c->threads; t++) {
		char name[64];
		snprintf(name, sizeof name, "tf_Compute/%d", 1000 + t);
		tv_thread(o, TV_HOST_PID, 1000 + t, name);
	}
	for (int s = 0; s < c->steps; s++) {
		char sn[24];
		snprintf(sn, sizeof sn, "%d", s);
		const char *a[] = {"group_id", sn, "step_num", sn, NULL};
		tv_event(o, TV_HOST_PID, 1, step_start_ns(c, s), step_len_ns(c, s), "train_function",
			 a);
	}
	for (int t = 0; t < c->threads; t++)
		for (int s = 0; s < c->steps; s++)
			for (int k = t; k < c->ops; k += c->threads) {
				char name[96], sn[24], corr[24];
				op_name(name, sizeof name, k);
				snprintf(sn, sizeof sn, "%d", s);
				int64_t at = op_start_ns(c, s, k);
				const char *a[] = {"group_id", sn, NULL};
				tv_event(o, TV_HOST_PID, 1000 + t, at, op_dur_ns(c, s, k), name, a);
				tr->ops++;
				tr->op_type[k % 8]++;
				if (c->gpus == 0 || c->no_launches)
					continue;
				snprintf(corr, sizeof corr, "%" PRIu64, correlation_id(c, s, k));
				const char *la[] = {"correlation_id", corr, "group_id", sn, NULL};
				tv_event(o, TV_HOST_PID, 1000 + t, at + 1000, 2000,
					 "cuLaunchKernel", la);
				tr->launches++;
			}
}

static void tv_gpu(const struct cfg *c, GString *o, struct truth *tr, int n)
{
	int pid = 1 + n, G = c->gpus;
	char pname[32];
	snprintf(pname, sizeof pname, "/device:GPU:%d", n);
	tv_meta(o, pid, pname, pid);
	tv_thread(o, pid, 7, "Stream #7(Compute)");
	tv_thread(o, pid, LINE_STEPS, "Steps");
	tv_thread(o, pid, LINE_SCOPES, "TensorFlow Name Scope");
	tv_thread(o, pid, LINE_TF_OPS, "TensorFlow Ops");
	for (int s = 0; s < c->steps; s++)
		for (int k = n; k < c->ops; k += G) {
			char name[96], sn[24], corr[24];
			op_name(name, sizeof name, k);
			snprintf(sn, sizeof sn, "%d", s);
			snprintf(corr, sizeof corr, "%" PRIu64, correlation_id(c, s, k));
			const char *a[] = {"correlation_id",
					   corr,
					   "context_id",
					   "1",
					   "kernel_details",
					   "regs:32 static_shared:0 grid:128,1,1 block:256,1,1",
					   "tf_op",
					   name,
					   "group_id",
					   sn,
					   NULL};
			tv_event(o, pid, 7, kernel_start_ns(c, s, k), kernel_dur_ns(c, s, k),
				 kernels[k % 8], a);
			tr->kernels++;
			tr->gpu_kernels[n]++;
		}
	for (int s = 0; s < c->steps; s++) {
		char sn[24];
		snprintf(sn, sizeof sn, "%d", s);
		const char *a[] = {"group_id", sn, "step_name", sn, NULL};
		tv_event(o, pid, LINE_STEPS, step_start_ns(c, s), step_len_ns(c, s), sn, a);
	}
	for (int s = 0; s < c->steps && n < c->ops; s++) {
		char sn[24];
		snprintf(sn, sizeof sn, "%d", s);
		const char *a[] = {"group_id", sn, NULL};
		int last = n + (c->ops - 1 - n) / G * G;
		int64_t first_t = kernel_start_ns(c, s, n);
		tv_event(o, pid, LINE_SCOPES, first_t, kernel_end_ns(c, s, last) - first_t, "model",
			 a);
		for (int k = n; k < c->ops; k += G) {
			if (k != n && (k - G) / 4 == k / 4)
				continue;
			int end = k;
			while (end + G < c->ops && (end + G) / 4 == k / 4)
				end += G;
			char layer[32];
			snprintf(layer, sizeof layer, "layer_%d", k / 4);
			int64_t lt = kernel_start_ns(c, s, k);
			tv_event(o, pid, LINE_SCOPES, lt, kernel_end_ns(c, s, end) - lt, layer, a);
		}
	}
	for (int s = 0; s < c->steps; s++)
		for (int k = n; k < c->ops; k += G) {
			char name[96], sn[24];
			op_name(name, sizeof name, k);
			snprintf(sn, sizeof sn, "%d", s);
			const char *a[] = {"group_id", sn, NULL};
			tv_event(o, pid, LINE_TF_OPS, kernel_start_ns(c, s, k),
				 kernel_dur_ns(c, s, k), name, a);
			tr->tf_ops++;
		}
}

static GString *trace_viewer_json(const struct cfg *c, struct truth *tr)
{
	GString *o = g_string_new("{\"displayTimeUnit\":\"ns\",\"metadata\":{\"highres-ticks\":"
				  "true},\"traceEvents\":[\n");
	for (int n = 0; n < c->gpus; n++)
		tv_gpu(c, o, tr, n);
	tv_host(c, o, tr);
	/* TensorBoard ends the array with an empty event */
	g_string_append(o, "{}]}\n");
	return o;
}

/* ---- Kineto ---- */

static void k_event(GString *o, const char *ph, const char *cat, const char *name, int pid,
		    int64_t tid, int64_t t, int64_t dur, const char *args)
{
	g_string_append_printf(o, "  {\n    \"ph\": \"%s\", \"cat\": \"%s\", \"name\": ", ph, cat);
	json_str(o, name);
	g_string_append_printf(o, ", \"pid\": %d, \"tid\": %" PRId64 ",\n    \"ts\": ", pid, tid);
	json_us(o, t - T0_NS);
	g_string_append(o, ", \"dur\": ");
	json_us(o, dur);
	if (args != NULL)
		g_string_append_printf(o, ",\n    \"args\": {\n      %s\n    }", args);
	g_string_append(o, "\n  },\n");
}

static void k_flow(GString *o, char ph, uint64_t id, int pid, int64_t tid, int64_t t)
{
	g_string_append_printf(o,
			       "  {\n    \"ph\": \"%c\", \"id\": %" PRIu64
			       ", \"pid\": %d, \"tid\": %" PRId64 ", \"ts\": ",
			       ph, id, pid, tid);
	json_us(o, t - T0_NS);
	g_string_append_printf(o, ",\n    \"cat\": \"ac2g\", \"name\": \"ac2g\"%s\n  },\n",
			       ph == 'f' ? ", \"bp\": \"e\"" : "");
}

static void k_meta(GString *o, const char *what, int pid, int64_t tid, const char *key,
		   const char *value)
{
	g_string_append_printf(
	    o,
	    "  {\n    \"name\": \"%s\", \"ph\": \"M\", \"ts\": 0.000, \"pid\": %d, "
	    "\"tid\": %" PRId64 ",\n    \"args\": {\n      \"%s\": ",
	    what, pid, tid, key);
	json_str(o, value);
	g_string_append(o, "\n    }\n  },\n");
}

static void k_op(const struct cfg *c, GString *o, struct truth *tr, int s, int k, uint64_t *ext)
{
	char name[96], args[256];
	op_name(name, sizeof name, k);
	int64_t tid = 1000 + k % c->threads, at = op_start_ns(c, s, k);
	uint64_t e = (*ext)++;
	snprintf(args, sizeof args,
		 "\"External id\": %" PRIu64 ", \"Record function id\": 0, "
		 "\"Ev Idx\": %" PRIu64,
		 e, e - 1);
	k_event(o, "X", "cpu_op", name, KINETO_PID, tid, at, op_dur_ns(c, s, k), args);
	tr->ops++;
	tr->op_type[k % 8]++;
	if (c->gpus == 0 || c->no_launches)
		return;
	uint64_t corr = correlation_id(c, s, k);
	snprintf(args, sizeof args,
		 "\"External id\": %" PRIu64 ", \"cbid\": 211, \"correlation\": %" PRIu64, e, corr);
	k_event(o, "X", "cuda_runtime", "cudaLaunchKernel", KINETO_PID, tid, at + 1000, 2000, args);
	k_flow(o, 's', corr, KINETO_PID, tid, at + 1000);
	tr->launches++;
}

static void k_kernel(const struct cfg *c, GString *o, struct truth *tr, int s, int k)
{
	int n = k % c->gpus;
	uint64_t corr = correlation_id(c, s, k);
	char args[512];
	snprintf(args, sizeof args,
		 "\"External id\": %" PRIu64 ", \"queued\": 0, \"device\": %d, \"context\": 1, "
		 "\"stream\": 7, \"correlation\": %" PRIu64 ", \"registers per thread\": 32, "
		 "\"shared memory\": 0, \"grid\": [128, 1, 1], \"block\": [256, 1, 1]",
		 (uint64_t)s * (uint64_t)c->ops + (uint64_t)k + 1, n, corr);
	int64_t at = kernel_start_ns(c, s, k);
	k_event(o, "X", "kernel", kernels[k % 8], n, 7, at, kernel_dur_ns(c, s, k), args);
	if (!c->no_launches)
		k_flow(o, 'f', corr, n, 7, at);
	tr->kernels++;
	tr->gpu_kernels[n]++;
}

static GString *kineto_json(const struct cfg *c, struct truth *tr)
{
	GString *o = g_string_new("{\n  \"schemaVersion\": 1,\n  \"traceEvents\": [\n");
	uint64_t ext = 1;
	for (int s = 0; s < c->steps; s++) {
		char step[32];
		snprintf(step, sizeof step, "ProfilerStep#%d", s);
		k_event(o, "X", "user_annotation", step, KINETO_PID, KINETO_PID,
			step_start_ns(c, s), step_len_ns(c, s), NULL);
		for (int k = 0; k < c->ops; k++)
			k_op(c, o, tr, s, k, &ext);
		for (int n = 0; n < c->gpus && n < c->ops; n++) {
			int last = n + (c->ops - 1 - n) / c->gpus * c->gpus;
			int64_t t0 = kernel_start_ns(c, s, n);
			k_event(o, "X", "gpu_user_annotation", step, n, 7, t0,
				kernel_end_ns(c, s, last) - t0, NULL);
		}
		for (int k = 0; k < c->ops && c->gpus > 0; k++)
			k_kernel(c, o, tr, s, k);
	}
	k_meta(o, "process_name", KINETO_PID, 0, "name", "python3");
	k_meta(o, "process_labels", KINETO_PID, 0, "labels", "CPU");
	char name[64];
	snprintf(name, sizeof name, "thread %d (python3)", KINETO_PID);
	k_meta(o, "thread_name", KINETO_PID, KINETO_PID, "name", name);
	for (int t = 0; t < c->threads; t++) {
		snprintf(name, sizeof name, "thread %d (python3)", 1000 + t);
		k_meta(o, "thread_name", KINETO_PID, 1000 + t, "name", name);
	}
	for (int n = 0; n < c->gpus; n++) {
		snprintf(name, sizeof name, "GPU %d", n);
		k_meta(o, "process_name", n, 0, "name", "python3");
		k_meta(o, "process_labels", n, 0, "labels", name);
		k_meta(o, "thread_name", n, 7, "name", "stream 7 ");
	}
	g_string_append(o, "  {\n    \"ph\": \"X\", \"cat\": \"Trace\", \"ts\": 0.000, \"dur\": ");
	json_us(o, step_start_ns(c, c->steps - 1) + step_len_ns(c, c->steps - 1) - T0_NS);
	g_string_append(
	    o, ",\n    \"pid\": \"Spans\", \"tid\": \"PyTorch Profiler\",\n    \"name\": "
	       "\"PyTorch Profiler (0)\",\n    \"args\": {\n      \"Op count\": 0\n    }\n  "
	       "}\n  ],\n  \"traceName\": \"xspace-gen\",\n  \"displayTimeUnit\": \"ms\",\n");
	g_string_append_printf(o, "  \"baseTimeNanoseconds\": %" PRId64 "\n}\n", T0_NS);
	return o;
}

/* ------------------------------------------------------------------ */
/* The whole file                                                      */

static GByteArray *generate(const struct cfg *c, struct truth *tr)
{
	memset(tr, 0, sizeof *tr);
	if (c->format != F_XSPACE) {
		GString *j = c->format == F_KINETO ? kineto_json(c, tr) : trace_viewer_json(c, tr);
		GByteArray *out = g_byte_array_sized_new((guint)j->len);
		g_byte_array_append(out, (const guint8 *)j->str, (guint)j->len);
		g_string_free(j, TRUE);
		tr->full_len = out->len;
		return out;
	}
	struct gen g = {.cfg = c, .truth = tr};
	g.n_alloc = c->gpus > 0 ? c->gpus : 1;
	for (int a = 0; a < g.n_alloc; a++) {
		if (c->gpus > 0)
			snprintf(g.alloc_names[a], sizeof g.alloc_names[a], "GPU_%d_bfc", a);
		else
			snprintf(g.alloc_names[a], sizeof g.alloc_names[a], "cpu");
		g.next_addr[a] = UINT64_C(0x7f0000000000) + ((uint64_t)a << 36);
	}
	g.bufs = g_new0(struct buf, (size_t)c->ops * (size_t)(c->mem > 0 ? c->mem : 1));
	GByteArray *file = g_byte_array_new();
	host_plane(&g, file);
	for (int n = 0; n < c->gpus; n++)
		gpu_plane(&g, file, n);
	if (c->hostile == H_EMPTY_PLANE)
		empty_planes(&g, file);
	if (c->host[0])
		tl_pbwire_put_bytes(file, 4, c->host, strlen(c->host));
	for (int a = 0; a < g.n_alloc; a++)
		tr->peak[a] = g.peak[a];
	g_free(g.bufs);
	tr->full_len = file->len;
	if (c->hostile == H_TRUNCATED) {
		tr->cut_at = file->len * 3 / 5 + 1;
		g_byte_array_set_size(file, (guint)tr->cut_at);
	}
	return file;
}

/* --size: the ops per step that make about `size` bytes, from the sizes at
 * two op counts (a file grows linearly with its ops). */
static int ops_for_size(const struct cfg *c)
{
	struct cfg t = *c;
	struct truth tr;
	t.hostile = H_NONE;
	t.ops = 64;
	GByteArray *a = generate(&t, &tr);
	t.ops = 128;
	GByteArray *b = generate(&t, &tr);
	double per_op = (double)(b->len - a->len) / 64.0;
	double fixed = (double)a->len - 64.0 * per_op;
	g_byte_array_free(a, TRUE);
	g_byte_array_free(b, TRUE);
	double ops = ((double)c->size - fixed) / per_op;
	return ops < 1 ? 1 : ops > 10000000 ? 10000000 : (int)ops;
}

static void truth_write(FILE *f, const struct cfg *c, const struct truth *tr)
{
	fprintf(f, "steps %d\nops_per_step %d\nops %ld\n", c->steps, c->ops, tr->ops);
	for (int s = 0; c->spread > 0 && s < c->steps; s++)
		fprintf(f, "step_wall %d %" PRId64 "\n", s, step_len_ns(c, s));
	int types = 0;
	for (int i = 0; i < 8; i++)
		types += tr->op_type[i] > 0;
	fprintf(f, "op_types %d\n", types);
	for (int i = 0; i < 8; i++)
		if (tr->op_type[i] > 0)
			fprintf(f, "op_type %s %ld\n", op_types[i], tr->op_type[i]);
	fprintf(f, "launches %ld\nkernels %ld\ntf_ops_events %ld\n", tr->launches, tr->kernels,
		tr->tf_ops);
	for (int n = 0; n < c->gpus; n++)
		fprintf(f, "gpu_kernels %d %ld\n", n, tr->gpu_kernels[n]);
	fprintf(f, "memory_events %ld\nallocations %ld\ndeallocations %ld\n",
		tr->allocs + tr->deallocs, tr->allocs, tr->deallocs);
	for (int a = 0; a < (c->gpus > 0 ? c->gpus : 1); a++) {
		if (c->mem == 0)
			break;
		if (c->gpus > 0)
			fprintf(f, "peak GPU_%d_bfc %" PRId64 "\n", a, tr->peak[a]);
		else
			fprintf(f, "peak cpu %" PRId64 "\n", tr->peak[a]);
	}
	fprintf(f, "hostile %s\n", hostile_names[c->hostile]);
	const struct {
		const char *key;
		long v;
	} extra[] = {{"bad_stat_ids", tr->bad_stat_ids},
		     {"bad_stat_refs", tr->bad_stat_refs},
		     {"unnamed_events", tr->unnamed},
		     {"overflow_events", tr->overflow},
		     {"far_events", tr->far},
		     {"occurrence_events", tr->occurrences},
		     {"extra_lines", tr->extra_lines},
		     {"empty_planes", tr->empty_planes},
		     {"extreme_allocs", tr->extreme_allocs},
		     {"bad_events", tr->bad_events},
		     {"cut_lines", tr->cut_lines},
		     {"cut_line_events", tr->cut_line_events}};
	for (size_t i = 0; i < G_N_ELEMENTS(extra); i++)
		if (extra[i].v > 0)
			fprintf(f, "%s %ld\n", extra[i].key, extra[i].v);
	if (c->hostile == H_TRUNCATED)
		fprintf(f, "truncated_at %zu of %zu\n", tr->cut_at, tr->full_len);
}

/* ------------------------------------------------------------------ */
/* Command line                                                        */

static const char usage_text[] =
    "usage: xspace-gen [OPTION]... [-o FILE]\n"
    "Writes a synthetic TF2 profiler XSpace (*.xplane.pb), the same bytes for the\n"
    "same options, and what it holds (the truth) on standard error.\n"
    "  --steps N        training steps (default 1)\n"
    "  --ops N          ops per step (default 20)\n"
    "  --gpus N         GPU planes, 0..64 (default 1)\n"
    "  --threads N      host tf_Compute threads (default 1)\n"
    "  --mem N          buffers allocated per op, 0..16 (default 1)\n"
    "  --size BYTES     as many ops per step as make about BYTES\n"
    "  --seed N         durations and sizes (default 1)\n"
    "  --step-spread NS step S lasts (S * 7 mod 5) * NS longer than its ops need\n"
    "                   (0 2 4 1 3 ...; the truth lists step_wall S NS); default 0\n"
    "  --no-launches    no host launch events (host API tracing off): kernels stand\n"
    "                   alone, named by their tf_op stat\n"
    "  --hostile KIND   stat-ref, missing-metadata, time-overflow, occurrences,\n"
    "                   million-lines, empty-plane, truncated, alloc-extremes,\n"
    "                   bad-bytes\n"
    "  --truth FILE     the truth into FILE, not standard error\n"
    "  --host NAME      the XSpace's hostname (default xspace-gen; '' writes none)\n"
    "  --format FMT     xspace (default); trace-viewer (the same run as TensorBoard's\n"
    "                   trace viewer JSON) or kineto (as a PyTorch profiler trace):\n"
    "                   no memory events, no --hostile, no --trace\n"
    "  -o FILE          the XSpace into FILE (default: standard output)\n"
    "  --t0 NS          the lines' timestamp_ns (default 1608569000000000000)\n"
    "  --trace FILE     also the same run as a TF 2.0 profiler .trace into FILE\n"
    "  --from-xspace F  with --trace: the XSpace F as a .trace (times from its\n"
    "                   earliest line), nothing generated\n";

static _Noreturn void usage_error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

static _Noreturn void usage_error(const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	fprintf(stderr, "xspace-gen: ");
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fprintf(stderr, "\nusage: xspace-gen [OPTION]... [-o FILE] (--help says more)\n");
	exit(2);
}

static long long parse_num(const char *opt, const char *v, long long lo, long long hi)
{
	char *end = NULL;
	errno = 0;
	long long x = strtoll(v, &end, 10);
	if (end == v || *end != '\0' || errno != 0 || x < lo || x > hi)
		usage_error("option '--%s' wants an integer in %lld..%lld, not '%s'", opt, lo, hi,
			    v);
	return x;
}

static void parse_args(int argc, char **argv, struct cfg *c)
{
	enum { O_HOSTILE = 256, O_TRUTH, O_NO_LAUNCHES, O_HOST, O_TRACE, O_FROM, O_FORMAT, O_NUM };
	long long steps = c->steps, ops = c->ops, gpus = c->gpus, threads = c->threads;
	long long mem = c->mem, size = 0, seed = (long long)c->seed, t0 = t0_ns, spread = 0;
	const struct {
		struct option o;
		long long *v, lo, hi;
	} nums[] = {
	    {{"steps", required_argument, NULL, O_NUM}, &steps, 1, 100000},
	    {{"ops", required_argument, NULL, O_NUM + 1}, &ops, 1, 10000000},
	    {{"gpus", required_argument, NULL, O_NUM + 2}, &gpus, 0, MAX_GPUS},
	    {{"threads", required_argument, NULL, O_NUM + 3}, &threads, 1, MAX_THREADS},
	    {{"mem", required_argument, NULL, O_NUM + 4}, &mem, 0, MAX_MEM},
	    {{"size", required_argument, NULL, O_NUM + 5}, &size, 1, 2000000000},
	    {{"seed", required_argument, NULL, O_NUM + 6}, &seed, 0, INT64_MAX},
	    {{"t0", required_argument, NULL, O_NUM + 7}, &t0, 0, T0_DEFAULT},
	    {{"step-spread", required_argument, NULL, O_NUM + 8}, &spread, 0, 1000000000},
	};
	struct option opts[G_N_ELEMENTS(nums) + 9] = {
	    {"trace", required_argument, NULL, O_TRACE},
	    {"from-xspace", required_argument, NULL, O_FROM},
	    {"format", required_argument, NULL, O_FORMAT},
	    {"host", required_argument, NULL, O_HOST},
	    {"hostile", required_argument, NULL, O_HOSTILE},
	    {"truth", required_argument, NULL, O_TRUTH},
	    {"no-launches", no_argument, NULL, O_NO_LAUNCHES},
	    {"help", no_argument, NULL, 'h'}};
	for (size_t i = 0; i < G_N_ELEMENTS(nums); i++)
		opts[8 + i] = nums[i].o;
	int o;
	opterr = 0;
	while ((o = getopt_long(argc, argv, "ho:", opts, NULL)) != -1) {
		if (o >= O_NUM && o < O_NUM + (int)G_N_ELEMENTS(nums)) {
			int i = o - O_NUM;
			*nums[i].v = parse_num(nums[i].o.name, optarg, nums[i].lo, nums[i].hi);
		} else if (o == O_HOSTILE) {
			size_t i = 1;
			while (i < G_N_ELEMENTS(hostile_names) && strcmp(hostile_names[i], optarg))
				i++;
			if (i == G_N_ELEMENTS(hostile_names))
				usage_error("no hostile kind '%s'", optarg);
			c->hostile = (enum hostile)i;
		} else if (o == O_HOST) {
			c->host = optarg;
		} else if (o == O_FORMAT) {
			if (strcmp(optarg, "xspace") == 0)
				c->format = F_XSPACE;
			else if (strcmp(optarg, "trace-viewer") == 0)
				c->format = F_TRACE_VIEWER;
			else if (strcmp(optarg, "kineto") == 0)
				c->format = F_KINETO;
			else
				usage_error("no format '%s' (xspace, trace-viewer, kineto)",
					    optarg);
		} else if (o == O_NO_LAUNCHES) {
			c->no_launches = true;
		} else if (o == O_TRUTH) {
			c->truth = optarg;
		} else if (o == O_TRACE) {
			c->trace = optarg;
		} else if (o == O_FROM) {
			c->from = optarg;
		} else if (o == 'o') {
			c->out = optarg;
		} else if (o == 'h') {
			fputs(usage_text, stdout);
			exit(0);
		} else {
			usage_error("unknown option or missing value: '%s'", argv[optind - 1]);
		}
	}
	if (optind < argc)
		usage_error("unexpected argument '%s' (xspace-gen reads no input)", argv[optind]);
	c->steps = (int)steps, c->ops = (int)ops, c->gpus = (int)gpus, c->threads = (int)threads;
	c->mem = (int)mem, c->size = size, c->seed = (uint64_t)seed, c->spread = spread;
	t0_ns = t0;
	if (c->format != F_XSPACE && c->hostile != H_NONE)
		usage_error("--hostile makes damaged XSpaces only (not --format %s)",
			    c->format == F_KINETO ? "kineto" : "trace-viewer");
	if (c->format != F_XSPACE && (c->trace != NULL || c->from != NULL))
		usage_error("--trace and --from-xspace go with --format xspace");
	if (c->format != F_XSPACE)
		c->mem = 0; /* the JSON formats hold no memory events */
}

static int write_all(const char *path, const void *data, size_t len)
{
	FILE *f = path != NULL && strcmp(path, "-") != 0 ? fopen(path, "wb") : stdout;
	if (f == NULL || fwrite(data, 1, len, f) != len ||
	    (f != stdout ? fclose(f) : fflush(f)) != 0) {
		fprintf(stderr, "xspace-gen: cannot write %s: %s\n",
			path ? path : "standard output", strerror(errno));
		return 1;
	}
	return 0;
}

/* ------------------------------------------------------------------ */
/* --trace: the XSpace as TensorFlow renders it into a Trace           */

typedef Tensorflow__Profiler__TraceEvent tevent;

static const char *md_name_of(const Tensorflow__Profiler__XPlane *p, int64_t id, bool event,
			      const char **display)
{
	*display = NULL;
	if (event) {
		for (size_t i = 0; i < p->n_event_metadata; i++)
			if (p->event_metadata[i]->key == id && p->event_metadata[i]->value) {
				const char *d = p->event_metadata[i]->value->display_name;
				*display = d != NULL && d[0] ? d : NULL;
				return p->event_metadata[i]->value->name;
			}
		return NULL;
	}
	for (size_t i = 0; i < p->n_stat_metadata; i++)
		if (p->stat_metadata[i]->key == id && p->stat_metadata[i]->value)
			return p->stat_metadata[i]->value->name;
	return NULL;
}

/* A stat's value as TensorFlow's XStatVisitor::ToString writes it; NULL:
 * no value, or bytes (left out). */
static char *stat_text(const Tensorflow__Profiler__XPlane *p, const xstat *s)
{
	const char *ignored;
	switch (s->value_case) {
	case TENSORFLOW__PROFILER__XSTAT__VALUE_INT64_VALUE:
		return g_strdup_printf("%" PRId64, s->int64_value);
	case TENSORFLOW__PROFILER__XSTAT__VALUE_UINT64_VALUE:
		return g_strdup_printf("%" PRIu64, s->uint64_value);
	case TENSORFLOW__PROFILER__XSTAT__VALUE_DOUBLE_VALUE:
		return g_strdup_printf("%.17g", s->double_value);
	case TENSORFLOW__PROFILER__XSTAT__VALUE_STR_VALUE:
		return g_strdup(s->str_value);
	case TENSORFLOW__PROFILER__XSTAT__VALUE_REF_VALUE: {
		const char *n = md_name_of(p, (int64_t)s->ref_value, false, &ignored);
		return g_strdup(n != NULL ? n : "");
	}
	default:
		return NULL;
	}
}

#define FIRST_DEVICE_ID 1
#define HOST_THREADS_DEVICE_ID 501

/* A line's resource id and name, as TF's XLineVisitor gives them. */
static uint32_t line_display_id(const Tensorflow__Profiler__XLine *l)
{
	return (uint32_t)(l->display_id != 0 ? l->display_id : l->id);
}

static const char *line_display_name(const Tensorflow__Profiler__XLine *l)
{
	return l->display_name != NULL && l->display_name[0] ? l->display_name : l->name;
}

/* The device id of a plane, or -1 for one TF does not write. */
static int64_t plane_device_id(const Tensorflow__Profiler__XPlane *p)
{
	if (strcmp(p->name, "/host:CPU") == 0)
		return HOST_THREADS_DEVICE_ID;
	if (g_str_has_prefix(p->name, "/device:GPU:"))
		return FIRST_DEVICE_ID + (int64_t)(uint32_t)p->id;
	return -1;
}

static void put_trace_event(GByteArray *o, const Tensorflow__Profiler__XPlane *p,
			    const Tensorflow__Profiler__XLine *l, const xevent *e)
{
	const char *display, *ignored;
	const char *name = md_name_of(p, e->metadata_id, true, &display);
	size_t n_args = e->n_stats + 1;
	Tensorflow__Profiler__TraceEvent__ArgsEntry *args = g_new0(
	    Tensorflow__Profiler__TraceEvent__ArgsEntry, n_args);
	Tensorflow__Profiler__TraceEvent__ArgsEntry **argp = g_new0(
	    Tensorflow__Profiler__TraceEvent__ArgsEntry *, n_args);
	tevent te = TENSORFLOW__PROFILER__TRACE_EVENT__INIT;
	te.device_id = (uint32_t)plane_device_id(p);
	te.resource_id = line_display_id(l);
	te.name = (char *)(display != NULL ? display : name != NULL ? name : "");
	int64_t ts = l->timestamp_ns * 1000 + e->offset_ps;
	te.timestamp_ps = (uint64_t)ts;
	te.duration_ps = (uint64_t)e->duration_ps;
	te.args = argp;
	GPtrArray *texts = g_ptr_array_new_with_free_func(g_free);
	if (display != NULL) {
		Tensorflow__Profiler__TraceEvent__ArgsEntry init =
		    TENSORFLOW__PROFILER__TRACE_EVENT__ARGS_ENTRY__INIT;
		args[te.n_args] = init;
		args[te.n_args].key = "long_name";
		args[te.n_args].value = (char *)(name != NULL ? name : "");
		argp[te.n_args] = &args[te.n_args];
		te.n_args++;
	}
	for (size_t k = 0; k < e->n_stats; k++) {
		char *v = stat_text(p, e->stats[k]);
		if (v == NULL)
			continue;
		g_ptr_array_add(texts, v);
		const char *key = md_name_of(p, e->stats[k]->metadata_id, false, &ignored);
		if (key != NULL && strcmp(key, "step_name") == 0)
			te.name = v;
		Tensorflow__Profiler__TraceEvent__ArgsEntry init =
		    TENSORFLOW__PROFILER__TRACE_EVENT__ARGS_ENTRY__INIT;
		args[te.n_args] = init;
		args[te.n_args].key = (char *)(key != NULL ? key : "");
		args[te.n_args].value = v;
		argp[te.n_args] = &args[te.n_args];
		te.n_args++;
	}
	put_msg(o, 4, &te.base);
	g_ptr_array_free(texts, TRUE);
	g_free(args);
	g_free(argp);
}

static int write_trace(const char *path, const GByteArray *xspace, bool from_zero)
{
	Tensorflow__Profiler__XSpace *xs = (Tensorflow__Profiler__XSpace *)protobuf_c_message_unpack(
	    &tensorflow__profiler__xspace__descriptor, NULL, xspace->len, xspace->data);
	if (xs == NULL) {
		fprintf(stderr, "xspace-gen: --trace: the XSpace written does not decode\n");
		return 1;
	}
	if (from_zero) { /* a wall clock: every line's time from the earliest line's */
		int64_t origin = INT64_MAX, last = INT64_MIN;
		for (size_t p = 0; p < xs->n_planes; p++)
			for (size_t l = 0; l < xs->planes[p]->n_lines; l++) {
				int64_t t = xs->planes[p]->lines[l]->timestamp_ns;
				origin = t < origin ? t : origin;
				last = t > last ? t : last;
			}
		if (origin >= 0 && last <= INT64_MAX / 1000)
			origin = 0;
		for (size_t p = 0; p < xs->n_planes; p++)
			for (size_t l = 0; l < xs->planes[p]->n_lines; l++)
				xs->planes[p]->lines[l]->timestamp_ns -= origin;
	}
	/* the host plane first, then the GPUs' in their order */
	size_t *order = g_new(size_t, xs->n_planes + 1), n_order = 0;
	for (int pass = 0; pass < 2; pass++)
		for (size_t p = 0; p < xs->n_planes; p++) {
			int64_t id = plane_device_id(xs->planes[p]);
			if (id >= 0 && (id == HOST_THREADS_DEVICE_ID) == (pass == 0))
				order[n_order++] = p;
		}
	GByteArray *o = g_byte_array_new();
	for (size_t k = 0; k < n_order; k++) {
		const Tensorflow__Profiler__XPlane *pl = xs->planes[order[k]];
		Tensorflow__Profiler__Device dev = TENSORFLOW__PROFILER__DEVICE__INIT;
		dev.name = pl->name;
		dev.device_id = (uint32_t)plane_device_id(pl);
		dev.n_resources = pl->n_lines;
		dev.resources = g_new0(Tensorflow__Profiler__Device__ResourcesEntry *, pl->n_lines + 1);
		Tensorflow__Profiler__Device__ResourcesEntry *re =
		    g_new0(Tensorflow__Profiler__Device__ResourcesEntry, pl->n_lines + 1);
		Tensorflow__Profiler__Resource *res =
		    g_new0(Tensorflow__Profiler__Resource, pl->n_lines + 1);
		for (size_t l = 0; l < pl->n_lines; l++) {
			Tensorflow__Profiler__Device__ResourcesEntry ei =
			    TENSORFLOW__PROFILER__DEVICE__RESOURCES_ENTRY__INIT;
			Tensorflow__Profiler__Resource ri = TENSORFLOW__PROFILER__RESOURCE__INIT;
			res[l] = ri;
			res[l].name = (char *)line_display_name(pl->lines[l]);
			res[l].resource_id = line_display_id(pl->lines[l]);
			re[l] = ei;
			re[l].key = res[l].resource_id;
			re[l].value = &res[l];
			dev.resources[l] = &re[l];
		}
		Tensorflow__Profiler__Trace__DevicesEntry de =
		    TENSORFLOW__PROFILER__TRACE__DEVICES_ENTRY__INIT;
		de.key = dev.device_id;
		de.value = &dev;
		put_msg(o, 1, &de.base);
		g_free(dev.resources);
		g_free(re);
		g_free(res);
	}
	int rc = 0;
	for (size_t k = 0; k < n_order && rc == 0; k++) {
		const Tensorflow__Profiler__XPlane *pl = xs->planes[order[k]];
		for (size_t l = 0; l < pl->n_lines && rc == 0; l++) {
			const Tensorflow__Profiler__XLine *ln = pl->lines[l];
			for (size_t e = 0; e < ln->n_events; e++) {
				const xevent *ev = ln->events[e];
				int64_t ps;
				if (ln->timestamp_ns < 0 || ln->timestamp_ns > INT64_MAX / 1000 ||
				    __builtin_add_overflow(ln->timestamp_ns * 1000, ev->offset_ps,
							   &ps) ||
				    ps < 0) {
					fprintf(stderr, "xspace-gen: --trace: an event's time does "
							"not fit uint64 picoseconds (see --t0)\n");
					rc = 1;
					break;
				}
				put_trace_event(o, pl, ln, ev);
			}
		}
	}
	g_free(order);
	protobuf_c_message_free_unpacked(&xs->base, NULL);
	if (rc == 0)
		rc = write_all(path, o->data, o->len);
	g_byte_array_free(o, TRUE);
	return rc;
}

int main(int argc, char **argv)
{
	struct cfg c = {.seed = 1,
			.steps = 1,
			.ops = 20,
			.gpus = 1,
			.threads = 1,
			.mem = 1,
			.host = "xspace-gen"};
	parse_args(argc, argv, &c);
	if (c.from != NULL) {
		gchar *bytes = NULL;
		gsize n = 0;
		GError *gerr = NULL;
		if (c.trace == NULL)
			usage_error("--from-xspace wants --trace FILE");
		if (!g_file_get_contents(c.from, &bytes, &n, &gerr)) {
			fprintf(stderr, "xspace-gen: cannot read %s: %s\n", c.from, gerr->message);
			g_error_free(gerr);
			return 1;
		}
		GByteArray *x = g_byte_array_new_take((guint8 *)bytes, n);
		int rc = write_trace(c.trace, x, true);
		g_byte_array_free(x, TRUE);
		return rc;
	}
	if (c.size > 0)
		c.ops = ops_for_size(&c);
	if (c.threads > c.ops)
		c.threads = c.ops;
	struct truth tr;
	GByteArray *file = generate(&c, &tr);
	if (c.size > 0 && c.ops > 1 && (double)file->len > 1.01 * (double)c.size) {
		/* larger numbers take more varint bytes: once more, scaled */
		c.ops = (int)((double)c.ops * (double)c.size / (double)file->len);
		if (c.ops < 1)
			c.ops = 1;
		if (c.threads > c.ops)
			c.threads = c.ops;
		g_byte_array_free(file, TRUE);
		file = generate(&c, &tr);
	}
	int rc = write_all(c.out, file->data, file->len);
	if (rc == 0 && c.trace != NULL)
		rc = write_trace(c.trace, file, false);
	g_byte_array_free(file, TRUE);
	if (rc != 0)
		return rc;
	FILE *t = c.truth != NULL ? fopen(c.truth, "w") : stderr;
	if (t == NULL) {
		fprintf(stderr, "xspace-gen: cannot write %s: %s\n", c.truth, strerror(errno));
		return 1;
	}
	truth_write(t, &c, &tr);
	if (t != stderr && fclose(t) != 0)
		return 1;
	return 0;
}
