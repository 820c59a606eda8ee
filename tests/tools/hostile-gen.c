/* hostile-gen: writes hostile but well-formed inputs for the tests
 * (tests/cli/hostile.test): legal protobuf (or JSON, or text) whose content
 * is absurd, so each tool must answer with a warning or an error and valid
 * output, never a crash, a hang or invalid output.
 *
 *   hostile-gen CASE [-o FILE]
 *
 * RunMetadata (binary) cases:
 *   cycle           data and control cycles between graph nodes, a self-loop
 *   missing-input   inputs naming nodes no graph defines, ports out of range
 *   send-no-recv    _Send without its _Recv, _Recv without its _Send
 *   million-exec    one node executed 1,000,000 times, read by a node run once
 *   names           names, devices, ops, labels, allocators and tensor names
 *                   with quotes, backslashes, newlines, braces, commas, control
 *                   characters and invalid UTF-8
 *   extreme-times   int64 extremes and negative timestamps and durations
 *   alloc-collide   allocation ids shared by unrelated tensors, on several
 *                   allocators and devices, negative and extreme ids and sizes
 *   million-devices 1,000,000 devices of one execution each
 *   deep-binary     a GraphDef nested 100,000 messages deep (AttrValue.func)
 * TFRecord:
 *   deep-tfrecord   a stream of two runs, the second a RunMetadata whose
 *                   partition graph is nested 100,000 messages deep
 * Protobuf text:
 *   deep-text       a RunMetadata nested 100,000 levels deep
 * Neighbours of a RunMetadata, binary protobuf the tools must name, not read:
 *   tf2-trace       a small TF 2.0 profiler Trace (tensorflow.profiler.Trace, the
 *                   .trace file): two devices with resources, four events
 *   xspace          a small TF2/JAX profiler XSpace (tensorflow.profiler.XSpace):
 *                   a host plane whose plane id is omitted (proto3 zero)
 * Chrome trace JSON:
 *   chrome-names    event, process and thread names with escapes, lone
 *                   surrogates, NUL and control characters, as string pids,
 *                   tids, ids and argument keys
 *   chrome-bad-utf8 the same with raw invalid UTF-8 in a string (not JSON)
 *   chrome-extreme  timestamps and durations of 1e300, -1e300, 1e400 (inf),
 *                   negative, and ids colliding across kinds
 *   chrome-deep     an event whose args nest 100,000 arrays deep
 *
 * Output is deterministic. Exit status 0, or 2 on a usage error.
 */
#include "io/pbwire.h"
#include "io/tfrecord.h"

#include <glib.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { VARINT = 0, LEN = 2 };

/* ---- wire helpers ------------------------------------------------------ */

static void put_str(GByteArray *o, uint32_t field, const char *s)
{
	tl_pbwire_put_bytes(o, field, s, strlen(s));
}

static void put_int(GByteArray *o, uint32_t field, int64_t v)
{
	tl_pbwire_put_tag(o, field, VARINT);
	tl_pbwire_put_varint(o, (uint64_t)v);
}

struct exec_opts {
	const char *name;
	const char *label;
	int64_t start_us, op_start_rel, op_end_rel, end_rel;
	bool nanos;
	int64_t start_ns, end_rel_ns;
	uint32_t thread;
	/* one output (slot 0) when allocator is set */
	const char *allocator;
	int64_t alloc_id, bytes;
	/* one allocation record when record_us is set */
	bool record;
	int64_t record_us, record_bytes;
};

static void put_exec(GByteArray *o, const struct exec_opts *e)
{
	size_t m = tl_pbwire_begin_len(o, 2); /* DeviceStepStats.node_stats */
	put_str(o, 1, e->name);
	put_int(o, 2, e->start_us);
	put_int(o, 3, e->op_start_rel);
	put_int(o, 4, e->op_end_rel);
	put_int(o, 5, e->end_rel);
	if (e->allocator != NULL) {
		size_t mem = tl_pbwire_begin_len(o, 6); /* AllocatorMemoryUsed */
		put_str(o, 1, e->allocator);
		put_int(o, 2, e->bytes);
		put_int(o, 3, e->bytes);
		if (e->record) {
			size_t r = tl_pbwire_begin_len(o, 6);
			put_int(o, 1, e->record_us);
			put_int(o, 2, e->record_bytes);
			tl_pbwire_end_len(o, r);
		}
		put_int(o, 5, e->bytes);
		tl_pbwire_end_len(o, mem);
		size_t out = tl_pbwire_begin_len(o, 7); /* NodeOutput */
		put_int(o, 1, 0);
		size_t td = tl_pbwire_begin_len(o, 3); /* TensorDescription */
		put_int(o, 1, 1);                      /* DT_FLOAT */
		size_t sh = tl_pbwire_begin_len(o, 2);
		size_t dim = tl_pbwire_begin_len(o, 2);
		put_int(o, 1, e->bytes / 4);
		tl_pbwire_end_len(o, dim);
		tl_pbwire_end_len(o, sh);
		size_t ad = tl_pbwire_begin_len(o, 4); /* AllocationDescription */
		put_int(o, 1, e->bytes);
		put_int(o, 2, e->bytes);
		put_str(o, 3, e->allocator);
		put_int(o, 4, e->alloc_id);
		tl_pbwire_end_len(o, ad);
		tl_pbwire_end_len(o, td);
		tl_pbwire_end_len(o, out);
	}
	put_str(o, 8, e->label != NULL ? e->label : "");
	if (e->thread != 0)
		put_int(o, 10, e->thread);
	if (e->nanos) {
		put_int(o, 13, e->start_ns);
		put_int(o, 16, e->end_rel_ns);
	}
	tl_pbwire_end_len(o, m);
}

/* Starts RunMetadata.step_stats and returns its mark. */
static size_t begin_steps(GByteArray *o)
{
	return tl_pbwire_begin_len(o, 1);
}

static size_t begin_device(GByteArray *o, const char *device)
{
	size_t m = tl_pbwire_begin_len(o, 1); /* StepStats.dev_stats */
	put_str(o, 1, device);
	return m;
}

static void put_thread_name(GByteArray *o, uint32_t id, const char *name)
{
	size_t m = tl_pbwire_begin_len(o, 3);
	put_int(o, 1, id);
	put_str(o, 2, name);
	tl_pbwire_end_len(o, m);
}

static void put_attr_s(GByteArray *o, const char *key, const char *value)
{
	size_t m = tl_pbwire_begin_len(o, 5); /* NodeDef.attr entry */
	put_str(o, 1, key);
	size_t v = tl_pbwire_begin_len(o, 2);
	put_str(o, 2, value);
	tl_pbwire_end_len(o, v);
	tl_pbwire_end_len(o, m);
}

static void put_attr_b(GByteArray *o, const char *key, bool value)
{
	size_t m = tl_pbwire_begin_len(o, 5);
	put_str(o, 1, key);
	size_t v = tl_pbwire_begin_len(o, 2);
	put_int(o, 5, value);
	tl_pbwire_end_len(o, v);
	tl_pbwire_end_len(o, m);
}

/* A NodeDef into the open GraphDef; inputs NULL-terminated. */
static void put_node(GByteArray *o, const char *name, const char *op, const char *device,
		     const char *const *inputs)
{
	size_t m = tl_pbwire_begin_len(o, 1);
	put_str(o, 1, name);
	put_str(o, 2, op);
	for (size_t i = 0; inputs != NULL && inputs[i] != NULL; i++)
		put_str(o, 3, inputs[i]);
	put_str(o, 4, device);
	tl_pbwire_end_len(o, m);
}

/* A _Send or _Recv NodeDef. */
static void put_transfer(GByteArray *o, const char *name, bool send, const char *device,
			 const char *input, const char *tensor, const char *from, const char *to)
{
	size_t m = tl_pbwire_begin_len(o, 1);
	put_str(o, 1, name);
	put_str(o, 2, send ? "_Send" : "_Recv");
	if (input != NULL)
		put_str(o, 3, input);
	put_str(o, 4, device);
	put_attr_s(o, "tensor_name", tensor);
	put_attr_s(o, "send_device", from);
	put_attr_s(o, "recv_device", to);
	put_attr_b(o, "client_terminated", false);
	tl_pbwire_end_len(o, m);
}

#define CPU "/job:localhost/replica:0/task:0/device:CPU:0"
#define GPU "/job:localhost/replica:0/task:0/device:GPU:0"

static struct exec_opts ex(const char *name, const char *op, int64_t start, int64_t dur)
{
	static char labels[64][256];
	static unsigned next;
	char *label = labels[next++ % 64];
	snprintf(label, 256, "%s = %s()", name, op);
	return (struct exec_opts){.name = name, .label = label, .start_us = start,
				  .op_start_rel = 0, .op_end_rel = dur, .end_rel = dur,
				  .thread = 1};
}

/* ---- RunMetadata cases ------------------------------------------------- */

static void gen_cycle(GByteArray *o)
{
	static const char *const names[] = {"a", "b", "c", "self", "x", "y"};
	static const char *const ops[] = {"Const", "Add", "Mul", "Identity", "NoOp", "NoOp"};
	size_t s = begin_steps(o);
	size_t d = begin_device(o, CPU);
	for (int i = 0; i < 6; i++) {
		struct exec_opts e = ex(names[i], ops[i], 1000 + 20 * i, 10);
		e.allocator = "cpu";
		e.alloc_id = i + 1;
		e.bytes = 64;
		put_exec(o, &e);
	}
	tl_pbwire_end_len(o, d);
	tl_pbwire_end_len(o, s);
	size_t g = tl_pbwire_begin_len(o, 3);
	put_node(o, "a", "Const", CPU, NULL);
	put_node(o, "b", "Add", CPU, (const char *const[]){"a", "c", NULL});
	put_node(o, "c", "Mul", CPU, (const char *const[]){"b", NULL});
	put_node(o, "self", "Identity", CPU, (const char *const[]){"self", NULL});
	put_node(o, "x", "NoOp", CPU, (const char *const[]){"^y", NULL});
	put_node(o, "y", "NoOp", CPU, (const char *const[]){"^x", NULL});
	tl_pbwire_end_len(o, g);
}

static void gen_missing_input(GByteArray *o)
{
	size_t s = begin_steps(o);
	size_t d = begin_device(o, CPU);
	struct exec_opts a = ex("a", "Const", 1000, 10);
	struct exec_opts b = ex("b", "Add", 1020, 10);
	struct exec_opts c = ex("c", "Identity", 1040, 10);
	put_exec(o, &a);
	put_exec(o, &b);
	put_exec(o, &c);
	tl_pbwire_end_len(o, d);
	tl_pbwire_end_len(o, s);
	size_t g = tl_pbwire_begin_len(o, 3);
	put_node(o, "a", "Const", CPU, NULL);
	put_node(o, "b", "Add", CPU, (const char *const[]){"ghost:0", "a:7", "^ghost2", NULL});
	put_node(o, "c", "Identity", CPU, (const char *const[]){"b:-1", ":", "", "^", NULL});
	put_node(o, "d", "Identity", "/device:TPU:99", (const char *const[]){"c", NULL});
	tl_pbwire_end_len(o, g);
}

static void gen_send_no_recv(GByteArray *o)
{
	size_t s = begin_steps(o);
	size_t d = begin_device(o, CPU);
	struct exec_opts a = ex("a", "Const", 1000, 10);
	struct exec_opts snd = ex("a/_0", "_Send", 1020, 5);
	put_exec(o, &a);
	put_exec(o, &snd);
	tl_pbwire_end_len(o, d);
	d = begin_device(o, GPU);
	struct exec_opts rcv = ex("b/_1", "_Recv", 1030, 5);
	struct exec_opts b = ex("b", "Neg", 1040, 10);
	put_exec(o, &rcv);
	put_exec(o, &b);
	tl_pbwire_end_len(o, d);
	tl_pbwire_end_len(o, s);
	size_t g = tl_pbwire_begin_len(o, 3);
	put_node(o, "a", "Const", CPU, NULL);
	put_transfer(o, "a/_0", true, CPU, "a", "edge_1_a", CPU, GPU);
	tl_pbwire_end_len(o, g);
	g = tl_pbwire_begin_len(o, 3);
	put_transfer(o, "b/_1", false, GPU, NULL, "edge_9_nowhere", CPU, GPU);
	put_node(o, "b", "Neg", GPU, (const char *const[]){"b/_1", NULL});
	tl_pbwire_end_len(o, g);
}

static void gen_million_exec(GByteArray *o)
{
	size_t s = begin_steps(o);
	size_t d = begin_device(o, CPU);
	struct exec_opts e = ex("init", "Const", 1000, 1);
	put_exec(o, &e);
	for (int64_t i = 0; i < 1000000; i++) {
		e = (struct exec_opts){.name = "loop/body", .start_us = 1002 + 2 * i,
				       .op_end_rel = 1, .end_rel = 1, .thread = 1};
		if (i % 1000 == 0) {
			e.allocator = "cpu";
			e.alloc_id = i + 10;
			e.bytes = 256;
		}
		put_exec(o, &e);
	}
	e = ex("sum", "Sum", 1002 + 2000000, 5);
	put_exec(o, &e);
	tl_pbwire_end_len(o, d);
	tl_pbwire_end_len(o, s);
	size_t g = tl_pbwire_begin_len(o, 3);
	put_node(o, "init", "Const", CPU, NULL);
	put_node(o, "loop/body", "Add", CPU, (const char *const[]){"init", "loop/body", NULL});
	put_node(o, "sum", "Sum", CPU, (const char *const[]){"loop/body", NULL});
	tl_pbwire_end_len(o, g);
}

/* Names a dump may hold and every output must carry safely. */
static const char *const bad_names[] = {
	"quote\"d",
	"back\\slash",
	"new\nline",
	"carriage\rreturn",
	"{brace}[bracket]",
	"comma,separated;semi",
	"tab\tname",
	"ctrl\x01\x1f\x7f",
	"bad utf8 \xff\xfe",
	"cut utf8 \xe2\x82",
	"overlong \xc0\xaf",
	"surrogate \xed\xa0\x80",
	"emoji \xf0\x9f\x98\x80 ok",
	"<html>&amp;</html>",
	"dot \"label\" -> \\N { node }",
	"-- sql '; drop",
};

#define N_BAD (sizeof bad_names / sizeof bad_names[0])

static void gen_names(GByteArray *o)
{
	char dev[2][256];
	snprintf(dev[0], sizeof dev[0], "/job:\"w\"\n{x}/replica:0/task:0/device:CPU:0");
	snprintf(dev[1], sizeof dev[1], "/job:w\xff/replica:0/task:0/device:GPU:0");
	char gpu_stream[300];
	snprintf(gpu_stream, sizeof gpu_stream, "%s/stream:7", dev[1]);
	size_t s = begin_steps(o);
	for (int k = 0; k < 2; k++) {
		size_t d = begin_device(o, dev[k]);
		for (size_t i = 0; i < N_BAD; i++) {
			char label[600];
			snprintf(label, sizeof label, "%s = %s(%s)", bad_names[i],
				 bad_names[(i + 1) % N_BAD], i > 0 ? bad_names[i - 1] : "");
			struct exec_opts e = {.name = bad_names[i], .label = label,
					      .start_us = 1000 + 10 * (int64_t)i + 3 * k,
					      .op_end_rel = 5, .end_rel = 5, .thread = 1 + (uint32_t)i % 3,
					      .allocator = bad_names[(i + k) % N_BAD],
					      .alloc_id = 1 + (int64_t)i, .bytes = 1024 * (1 + (int64_t)i)};
			put_exec(o, &e);
		}
		for (uint32_t t = 1; t <= 3; t++)
			put_thread_name(o, t, bad_names[t + 3]);
		tl_pbwire_end_len(o, d);
	}
	size_t d = begin_device(o, gpu_stream);
	for (size_t i = 0; i < N_BAD; i++) {
		char label[600];
		snprintf(label, sizeof label, "kernel %s@@%s:%s#id=%zu#", bad_names[i], bad_names[i],
			 bad_names[(i + 1) % N_BAD], i);
		struct exec_opts e = {.name = bad_names[i], .label = label,
				      .start_us = 1001 + 10 * (int64_t)i, .op_end_rel = 2, .end_rel = 2};
		put_exec(o, &e);
	}
	tl_pbwire_end_len(o, d);
	tl_pbwire_end_len(o, s);
	for (int k = 0; k < 2; k++) {
		size_t g = tl_pbwire_begin_len(o, 3);
		for (size_t i = 0; i < N_BAD; i++) {
			const char *in[3] = {i > 0 ? bad_names[i - 1] : NULL, NULL, NULL};
			put_node(o, bad_names[i], bad_names[(i + 1) % N_BAD], dev[k], in);
		}
		put_transfer(o, k == 0 ? "send \"x\"\n" : "recv {x}\xff", k == 0, dev[k],
			     k == 0 ? bad_names[N_BAD - 1] : NULL, "edge_1_\"quoted\"\n\xff", dev[0],
			     dev[1]);
		tl_pbwire_end_len(o, g);
	}
}

static void gen_extreme_times(GByteArray *o)
{
	static const int64_t starts[] = {INT64_MAX, INT64_MIN, -1, -1000000, 0,
					 INT64_MAX / 1000, INT64_MIN / 1000 - 1,
					 (int64_t)1 << 62, 1700000000000000};
	static const int64_t rels[] = {INT64_MAX, INT64_MIN, -5, 0, 1, INT64_MAX / 1000};
	size_t s = begin_steps(o);
	size_t d = begin_device(o, CPU);
	int n = 0;
	for (size_t i = 0; i < G_N_ELEMENTS(starts); i++)
		for (size_t j = 0; j < G_N_ELEMENTS(rels); j++) {
			char name[32];
			snprintf(name, sizeof name, "t%d", n);
			struct exec_opts e = {.name = name, .start_us = starts[i],
					      .op_start_rel = rels[(j + 1) % G_N_ELEMENTS(rels)],
					      .op_end_rel = rels[(j + 2) % G_N_ELEMENTS(rels)],
					      .end_rel = rels[j], .thread = 1 + (uint32_t)(n % 2),
					      .allocator = "cpu", .alloc_id = n + 1,
					      .bytes = rels[(j + 3) % G_N_ELEMENTS(rels)],
					      .record = true, .record_us = starts[(i + j) % G_N_ELEMENTS(starts)],
					      .record_bytes = rels[(j + 4) % G_N_ELEMENTS(rels)]};
			if (n % 3 == 0) {
				e.nanos = true;
				e.start_ns = starts[(i + 1) % G_N_ELEMENTS(starts)];
				e.end_rel_ns = rels[(j + 5) % G_N_ELEMENTS(rels)];
			}
			put_exec(o, &e);
			n++;
		}
	tl_pbwire_end_len(o, d);
	/* a GPU stream too, for op-time gpu and kernel sums */
	d = begin_device(o, GPU "/stream:7");
	for (size_t i = 0; i < G_N_ELEMENTS(starts); i++) {
		char label[64];
		snprintf(label, sizeof label, "k@@t%zu:Op", i);
		struct exec_opts e = {.name = "t0", .label = label, .start_us = starts[i],
				      .end_rel = rels[i % G_N_ELEMENTS(rels)]};
		put_exec(o, &e);
	}
	tl_pbwire_end_len(o, d);
	tl_pbwire_end_len(o, s);
	size_t g = tl_pbwire_begin_len(o, 3);
	put_node(o, "t0", "Const", CPU, NULL);
	for (int i = 1; i < n; i++) {
		char name[32], in[32];
		snprintf(name, sizeof name, "t%d", i);
		snprintf(in, sizeof in, "t%d", i - 1);
		put_node(o, name, "Add", CPU, (const char *const[]){in, NULL});
	}
	tl_pbwire_end_len(o, g);
}

static void gen_alloc_collide(GByteArray *o)
{
	static const char *const allocs[] = {"cpu", "GPU_0_bfc", "cpu"};
	static const char *const devs[] = {CPU, GPU, CPU};
	static const int64_t ids[] = {1, 1, 1, 0, -1, INT64_MAX, INT64_MIN, 1};
	static const int64_t sizes[] = {100, 1 << 20, 0, -64, INT64_MAX, 7, 100, 200};
	size_t s = begin_steps(o);
	for (size_t k = 0; k < 3; k++) {
		size_t d = begin_device(o, devs[k]);
		for (size_t i = 0; i < G_N_ELEMENTS(ids); i++) {
			char name[32];
			snprintf(name, sizeof name, "n%zu_%zu", k, i);
			struct exec_opts e = ex(name, "Op", 1000 + 10 * (int64_t)i, 5);
			e.allocator = allocs[(i + k) % 3];
			e.alloc_id = ids[i];
			e.bytes = sizes[i];
			e.record = true;
			e.record_us = 1000 + 10 * (int64_t)i + 1;
			e.record_bytes = i % 2 ? sizes[i] : -sizes[i];
			put_exec(o, &e);
		}
		tl_pbwire_end_len(o, d);
	}
	tl_pbwire_end_len(o, s);
	size_t g = tl_pbwire_begin_len(o, 3);
	for (size_t k = 0; k < 3; k += 2)
		for (size_t i = 0; i < G_N_ELEMENTS(ids); i++) {
			char name[32], in[32];
			snprintf(name, sizeof name, "n%zu_%zu", k, i);
			snprintf(in, sizeof in, "n%zu_%zu", k, (i + 1) % G_N_ELEMENTS(ids));
			put_node(o, name, "Identity", CPU, (const char *const[]){in, NULL});
		}
	tl_pbwire_end_len(o, g);
}

static void gen_million_devices(GByteArray *o)
{
	size_t s = begin_steps(o);
	for (int i = 0; i < 1000000; i++) {
		char dev[64];
		snprintf(dev, sizeof dev, "/device:CPU:%d", i);
		size_t d = begin_device(o, dev);
		struct exec_opts e = {.name = "op", .start_us = 1000 + i, .op_end_rel = 1,
				      .end_rel = 1};
		put_exec(o, &e);
		tl_pbwire_end_len(o, d);
	}
	tl_pbwire_end_len(o, s);
}

/* Bytes of a varint. */
static size_t varint_size(uint64_t v)
{
	size_t n = 1;
	for (; v >= 0x80; v >>= 7)
		n++;
	return n;
}

/* Appends the tag and the length of a length-delimited field of len bytes. */
static void put_len(GByteArray *o, uint32_t field, size_t len)
{
	tl_pbwire_put_tag(o, field, LEN);
	tl_pbwire_put_varint(o, len);
}

/* GraphDef { node { attr { value: AttrValue { func { attr { value ... */
/* Written from the outside in, with every length worked out first from the
 * inside out, so each byte is written once: building each level around a
 * copy of the one inside it was quadratic (33 s for 1.2 MB). The lengths
 * are minimal varints, so the bytes are those of any protobuf encoder. */
static void gen_deep_binary(GByteArray *o)
{
	enum { LEVELS = 33334 }; /* three messages a level: 100,002 deep */
	/* value[i]: bytes of the AttrValue at level i (0 innermost, {s: "x"});
	 * entry[i]: of the AttrEntry {key: "k", value: value[i]};
	 * nal[i]: of the NameAttrList {attr: entry[i - 1]} in value[i]. */
	size_t *value = g_new(size_t, LEVELS + 1);
	size_t *entry = g_new(size_t, LEVELS + 1);
	size_t *nal = g_new(size_t, LEVELS + 1);
	value[0] = 3;
	entry[0] = 3 + 1 + varint_size(value[0]) + value[0];
	for (int i = 1; i <= LEVELS; i++) {
		nal[i] = 1 + varint_size(entry[i - 1]) + entry[i - 1];
		value[i] = 1 + varint_size(nal[i]) + nal[i];
		entry[i] = 3 + 1 + varint_size(value[i]) + value[i];
	}
	size_t node = 6 + 4 + 1 + varint_size(entry[LEVELS]) + entry[LEVELS];
	put_len(o, 1, node); /* GraphDef.node */
	put_str(o, 1, "deep");
	put_str(o, 2, "Op");
	put_len(o, 5, entry[LEVELS]); /* NodeDef.attr */
	for (int i = LEVELS; i >= 1; i--) {
		put_str(o, 1, "k");
		put_len(o, 2, value[i]);
		put_len(o, 10, nal[i]);	     /* AttrValue.func */
		put_len(o, 2, entry[i - 1]); /* NameAttrList.attr */
	}
	put_str(o, 1, "k");
	put_len(o, 2, value[0]);
	put_str(o, 2, "x"); /* AttrValue.s */
	g_free(value);
	g_free(entry);
	g_free(nal);
}

static void gen_deep_tfrecord(GByteArray *o)
{
	GByteArray *run = g_byte_array_new();
	gen_cycle(run);
	tl_tfrecord_frame(o, run->data, run->len);
	GByteArray *graph = g_byte_array_new();
	gen_deep_binary(graph);
	g_byte_array_set_size(run, 0);
	tl_pbwire_put_bytes(run, 3, graph->data, graph->len); /* partition_graphs */
	tl_tfrecord_frame(o, run->data, run->len);
	g_byte_array_free(graph, TRUE);
	g_byte_array_free(run, TRUE);
}

/* ---- text and JSON cases ----------------------------------------------- */

static void gen_deep_text(GString *t)
{
	g_string_append(t, "partition_graphs {\n  node {\n    name: \"deep\"\n    op: \"Op\"\n");
	for (int i = 0; i < 100000; i++)
		g_string_append(t, "attr { key: \"k\" value { func { ");
	for (int i = 0; i < 100000; i++)
		g_string_append(t, "} } } ");
	g_string_append(t, "\n  }\n}\n");
}

static const char *const json_names[] = {
	"quote\\\"d",
	"back\\\\slash",
	"new\\nline",
	"nul\\u0000char",
	"lone \\ud800 surrogate",
	"low \\udc00 first",
	"{brace},[bracket]",
	"ctrl \\u0001\\u001f",
	"emoji \\ud83d\\ude00 ok",
};

static void gen_chrome_names(GString *t)
{
	g_string_append(t, "{\"traceEvents\":[\n");
	size_t n = G_N_ELEMENTS(json_names);
	for (size_t i = 0; i < n; i++) {
		g_string_append_printf(t,
				       "{\"ph\":\"M\",\"name\":\"process_name\",\"pid\":\"%s\","
				       "\"args\":{\"name\":\"%s\"}},\n",
				       json_names[i], json_names[(i + 1) % n]);
		g_string_append_printf(t,
				       "{\"ph\":\"M\",\"name\":\"thread_name\",\"pid\":\"%s\","
				       "\"tid\":\"%s\",\"args\":{\"name\":\"%s\"}},\n",
				       json_names[i], json_names[(i + 2) % n], json_names[(i + 3) % n]);
		g_string_append_printf(t,
				       "{\"ph\":\"X\",\"name\":\"%s\",\"cat\":\"%s\",\"pid\":\"%s\","
				       "\"tid\":\"%s\",\"ts\":%zu,\"dur\":5,\"args\":{\"name\":\"%s\","
				       "\"%s\":\"%s\"}},\n",
				       json_names[i], json_names[(i + 4) % n], json_names[i],
				       json_names[(i + 2) % n], 100 + 10 * i, json_names[(i + 5) % n],
				       /* a NUL in a key is valid JSON that jansson (chrome-check)
					* cannot hold */
				       strstr(json_names[(i + 6) % n], "u0000") ? "key"
									       : json_names[(i + 6) % n],
				       json_names[(i + 7) % n]);
		g_string_append_printf(t,
				       "{\"ph\":\"s\",\"name\":\"%s\",\"cat\":\"flow\",\"id\":\"%s\","
				       "\"pid\":\"%s\",\"tid\":\"%s\",\"ts\":%zu},\n"
				       "{\"ph\":\"f\",\"bp\":\"e\",\"name\":\"%s\",\"cat\":\"flow\","
				       "\"id\":\"%s\",\"pid\":\"%s\",\"tid\":\"%s\",\"ts\":%zu},\n",
				       json_names[i], json_names[i], json_names[i],
				       json_names[(i + 2) % n], 102 + 10 * i, json_names[i],
				       json_names[i], json_names[i], json_names[(i + 2) % n],
				       103 + 10 * i);
	}
	g_string_append(t, "{}],\"otherData\":{\"\\ud800\":\"\\u00ff\"}}\n");
}

static void gen_chrome_bad_utf8(GString *t)
{
	gen_chrome_names(t);
	char *at = strstr(t->str, "new\\nline");
	at[3] = '\xff';
}

static void gen_chrome_extreme(GString *t)
{
	static const char *const ts[] = {"1e300", "-1e300", "1e400", "-1e400", "-5",
					 "9223372036854775807", "-9223372036854775808",
					 "18446744073709551616", "0.0000001", "1e-400",
					 "\"12\"", "\"nan\"", "\"inf\"", "1700000000000000"};
	g_string_append(t, "{\"traceEvents\":[\n");
	size_t n = G_N_ELEMENTS(ts);
	for (size_t i = 0; i < n; i++) {
		g_string_append_printf(t,
				       "{\"ph\":\"X\",\"name\":\"op%zu\",\"pid\":1,\"tid\":%zu,"
				       "\"ts\":%s,\"dur\":%s,\"args\":{\"name\":\"n%zu\"}},\n",
				       i, i % 3, ts[i], ts[(i + 3) % n], i);
		g_string_append_printf(t,
				       "{\"ph\":\"B\",\"name\":\"b%zu\",\"pid\":2,\"tid\":1,\"ts\":%s},\n"
				       "{\"ph\":\"E\",\"pid\":2,\"tid\":1,\"ts\":%s},\n",
				       i, ts[i], ts[(i + 1) % n]);
		g_string_append_printf(t,
				       "{\"ph\":\"b\",\"name\":\"a\",\"cat\":\"c\",\"id\":%s,\"pid\":1,"
				       "\"tid\":1,\"ts\":%s},\n"
				       "{\"ph\":\"C\",\"name\":\"ctr\",\"pid\":3,\"ts\":%s,"
				       "\"args\":{\"v\":%s}},\n",
				       ts[(i + 5) % n], ts[i], ts[i], ts[(i + 2) % n]);
	}
	g_string_append(t, "{\"ph\":\"X\",\"name\":\"last\",\"pid\":9223372036854775807,"
			   "\"tid\":-9223372036854775808,\"ts\":1,\"dur\":1}]}\n");
}

static void gen_chrome_deep(GString *t)
{
	g_string_append(t, "{\"traceEvents\":[{\"ph\":\"X\",\"name\":\"deep\",\"pid\":1,"
			   "\"tid\":1,\"ts\":1,\"dur\":2,\"args\":{\"a\":");
	for (int i = 0; i < 100000; i++)
		g_string_append_c(t, '[');
	for (int i = 0; i < 100000; i++)
		g_string_append_c(t, ']');
	g_string_append(t, "}}]}\n");
}

/* ---- neighbours ---------------------------------------------------------- */

static void put_fixed_or_int(GByteArray *o, uint32_t field, uint64_t v)
{
	tl_pbwire_put_tag(o, field, VARINT);
	tl_pbwire_put_varint(o, v);
}

/* tensorflow/core/profiler/protobuf/trace_events.proto, field by field. */
static void gen_tf2_trace(GByteArray *o)
{
	static const struct {
		uint32_t id;
		const char *name;
		const char *resources[2];
	} devs[] = {{1, "/host:CPU", {"tf_Compute", "tf_data"}},
		    {2, "/device:GPU:0", {"Stream #13(Compute)", "Stream #14(MemcpyH2D)"}}};
	for (size_t d = 0; d < G_N_ELEMENTS(devs); d++) {
		size_t entry = tl_pbwire_begin_len(o, 1); /* Trace.devices */
		put_fixed_or_int(o, 1, devs[d].id);
		size_t dev = tl_pbwire_begin_len(o, 2);
		put_str(o, 1, devs[d].name);
		put_fixed_or_int(o, 2, devs[d].id);
		for (uint32_t r = 0; r < 2; r++) {
			size_t re = tl_pbwire_begin_len(o, 3); /* Device.resources */
			put_fixed_or_int(o, 1, r + 1);
			size_t res = tl_pbwire_begin_len(o, 2);
			put_str(o, 1, devs[d].resources[r]);
			put_fixed_or_int(o, 2, r + 1);
			tl_pbwire_end_len(o, res);
			tl_pbwire_end_len(o, re);
		}
		tl_pbwire_end_len(o, dev);
		tl_pbwire_end_len(o, entry);
	}
	static const char *const names[] = {"MatMul", "Conv2D", "volta_sgemm_128x64_nn",
					    "MemcpyH2D"};
	for (uint32_t i = 0; i < G_N_ELEMENTS(names); i++) {
		size_t ev = tl_pbwire_begin_len(o, 4); /* Trace.trace_events */
		put_fixed_or_int(o, 1, i < 2 ? 1 : 2);
		put_fixed_or_int(o, 2, 1 + i % 2);
		put_str(o, 3, names[i]);
		put_fixed_or_int(o, 9, 1000000ull * (i + 1));
		put_fixed_or_int(o, 10, 250000ull * (i + 1));
		size_t arg = tl_pbwire_begin_len(o, 11); /* TraceEvent.args */
		put_str(o, 1, "long_name");
		put_str(o, 2, names[i]);
		tl_pbwire_end_len(o, arg);
		tl_pbwire_end_len(o, ev);
	}
}

/* tsl/profiler/protobuf/xplane.proto, field by field. */
static void gen_xspace(GByteArray *o)
{
	size_t plane = tl_pbwire_begin_len(o, 1); /* XSpace.planes; id 0 omitted */
	put_str(o, 2, "/host:CPU");
	size_t line = tl_pbwire_begin_len(o, 3);
	put_int(o, 1, 7);
	put_str(o, 2, "tf_Compute");
	put_int(o, 3, 1700000000000000000ll);
	for (int i = 0; i < 3; i++) {
		size_t ev = tl_pbwire_begin_len(o, 4);
		put_int(o, 1, 1 + i % 2);
		put_int(o, 2, 1000000ll * i);
		put_int(o, 3, 400000);
		tl_pbwire_end_len(o, ev);
	}
	tl_pbwire_end_len(o, line);
	static const char *const ops[] = {"MatMul", "Relu"};
	for (int i = 0; i < 2; i++) {
		size_t entry = tl_pbwire_begin_len(o, 4); /* XPlane.event_metadata */
		put_int(o, 1, i + 1);
		size_t md = tl_pbwire_begin_len(o, 2);
		put_int(o, 1, i + 1);
		put_str(o, 2, ops[i]);
		tl_pbwire_end_len(o, md);
		tl_pbwire_end_len(o, entry);
	}
	tl_pbwire_end_len(o, plane);
	put_str(o, 4, "worker-0");
}

/* ---- main -------------------------------------------------------------- */

static const struct {
	const char *name;
	void (*wire)(GByteArray *o);
	void (*text)(GString *t);
} cases[] = {
	{"cycle", gen_cycle, NULL},
	{"missing-input", gen_missing_input, NULL},
	{"send-no-recv", gen_send_no_recv, NULL},
	{"million-exec", gen_million_exec, NULL},
	{"names", gen_names, NULL},
	{"extreme-times", gen_extreme_times, NULL},
	{"alloc-collide", gen_alloc_collide, NULL},
	{"million-devices", gen_million_devices, NULL},
	{"deep-binary", gen_deep_binary, NULL},
	{"deep-tfrecord", gen_deep_tfrecord, NULL},
	{"deep-text", NULL, gen_deep_text},
	{"tf2-trace", gen_tf2_trace, NULL},
	{"xspace", gen_xspace, NULL},
	{"chrome-names", NULL, gen_chrome_names},
	{"chrome-bad-utf8", NULL, gen_chrome_bad_utf8},
	{"chrome-extreme", NULL, gen_chrome_extreme},
	{"chrome-deep", NULL, gen_chrome_deep},
};

static _Noreturn void usage(void)
{
	fprintf(stderr, "usage: hostile-gen CASE [-o FILE]\ncases:");
	for (size_t i = 0; i < G_N_ELEMENTS(cases); i++)
		fprintf(stderr, " %s", cases[i].name);
	fputc('\n', stderr);
	exit(2);
}

int main(int argc, char **argv)
{
	const char *out = NULL;
	if (argc == 4 && strcmp(argv[2], "-o") == 0)
		out = argv[3];
	else if (argc != 2)
		usage();
	for (size_t i = 0; i < G_N_ELEMENTS(cases); i++) {
		if (strcmp(argv[1], cases[i].name) != 0)
			continue;
		const void *data;
		size_t len;
		GByteArray *wire = g_byte_array_new();
		GString *text = g_string_new(NULL);
		if (cases[i].wire != NULL) {
			cases[i].wire(wire);
			data = wire->data;
			len = wire->len;
		} else {
			cases[i].text(text);
			data = text->str;
			len = text->len;
		}
		FILE *f = out != NULL ? fopen(out, "wb") : stdout;
		if (f == NULL || fwrite(data, 1, len, f) != len || (out != NULL && fclose(f) != 0) ||
		    (out == NULL && fflush(stdout) != 0)) {
			perror("hostile-gen");
			return 1;
		}
		g_byte_array_free(wire, TRUE);
		g_string_free(text, TRUE);
		return 0;
	}
	usage();
}
