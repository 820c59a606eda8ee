/* Unit tests for pbdecode.c: the decoder gives what protobuf-c's
 * protobuf_c_message_unpack gives (compared by packing both), refuses what
 * it refuses, leaves out only the fields TL_PBDECODE_MODEL names, and does
 * not depend on the number of threads. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include "io/pbdecode.h"
#include "io/pbtext.h"
#include "io/pbwire.h"
#include "tensorflow.pb-c.h"

#include <glib.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "testdata.h"

/* A small encoder of its own, so the inputs do not come from the code
 * under test. */
static void put_varint(GByteArray *b, uint64_t v)
{
	do {
		uint8_t c = (uint8_t)(v & 0x7f);
		v >>= 7;
		if (v != 0)
			c |= 0x80;
		g_byte_array_append(b, &c, 1);
	} while (v != 0);
}

static void put_key(GByteArray *b, uint32_t field, unsigned wt)
{
	put_varint(b, ((uint64_t)field << 3) | wt);
}

static void put_int(GByteArray *b, uint32_t field, uint64_t v)
{
	put_key(b, field, 0);
	put_varint(b, v);
}

static void put_bytes(GByteArray *b, uint32_t field, const void *p, size_t n)
{
	put_key(b, field, 2);
	put_varint(b, n);
	g_byte_array_append(b, p, (guint)n);
}

static void put_str(GByteArray *b, uint32_t field, const char *s)
{
	put_bytes(b, field, s, strlen(s));
}

/* Appends `sub` as field `field` and frees it. */
static void put_msg(GByteArray *b, uint32_t field, GByteArray *sub)
{
	put_bytes(b, field, sub->data, sub->len);
	g_byte_array_free(sub, TRUE);
}

static void put_raw(GByteArray *b, const char *hex)
{
	for (const char *p = hex; p[0] != '\0' && p[1] != '\0'; p += 2) {
		while (*p == ' ')
			p++;
		unsigned v;
		sscanf(p, "%2x", &v);
		uint8_t c = (uint8_t)v;
		g_byte_array_append(b, &c, 1);
	}
}

static GByteArray *msg(void)
{
	return g_byte_array_new();
}

static GBytes *pack(const ProtobufCMessage *m)
{
	size_t n = protobuf_c_message_get_packed_size(m);
	uint8_t *buf = g_malloc(n > 0 ? n : 1);
	assert_int_equal(protobuf_c_message_pack(m, buf), n);
	return g_bytes_new_take(buf, n);
}

/* Decodes with tl_pbdecode from a copy in `arena` (one byte more, as the
 * decoder wants); the return code. */
static int decode(const ProtobufCMessageDescriptor *d, const uint8_t *p, size_t n,
		  tl_pbdecode_fields fields, unsigned threads, tl_arena *arena,
		  ProtobufCMessage **out, tl_error *err)
{
	uint8_t *copy = tl_arena_alloc(arena, n + 1);
	memcpy(copy, p, n);
	copy[n] = 0xee;
	int rc = tl_pbdecode(d, copy, n, fields, threads, arena, out, err);
	if (rc != 0) {
		/* a refused input is left as it was */
		assert_memory_equal(copy, p, n);
		assert_int_equal(copy[n], 0xee);
	}
	return rc;
}

/* The heart of these tests: protobuf-c and tl_pbdecode agree on the bytes,
 * in both choices of fields and with 1 and 3 threads. Returns whether
 * protobuf-c accepted them. */
static bool agree(const ProtobufCMessageDescriptor *d, const uint8_t *p, size_t n)
{
	/* in an arena: clearing the model's fields drops what they held */
	tl_arena *ref_arena = tl_arena_new();
	ProtobufCMessage *ref = protobuf_c_message_unpack(d, tl_arena_protobuf(ref_arena), n, p);
	GBytes *want = ref != NULL ? pack(ref) : NULL;
	if (tl_pbdecode_check(d, p, n) != (ref != NULL)) {
		GString *hex = g_string_new(NULL);
		for (size_t i = 0; i < n && i < 64; i++)
			g_string_append_printf(hex, " %02x", p[i]);
		fail_msg("%s: protobuf-c %s, tl_pbdecode_check disagrees:%s", d->short_name,
			 ref != NULL ? "accepts" : "refuses", hex->str);
	}
	for (int fields = TL_PBDECODE_ALL; fields <= TL_PBDECODE_MODEL; fields++) {
		if (ref != NULL && fields == TL_PBDECODE_MODEL) {
			tl_pbdecode_clear_skipped(ref);
			g_bytes_unref(want);
			want = pack(ref);
		}
		for (unsigned threads = 1; threads <= 3; threads += 2) {
			tl_arena *arena = tl_arena_new();
			ProtobufCMessage *got = NULL;
			tl_error err = {{0}};
			int rc = decode(d, p, n, fields, threads, arena, &got, &err);
			if (ref == NULL) {
				if (rc == 0)
					fail_msg("protobuf-c refuses, tl_pbdecode accepts");
			} else {
				if (rc != 0)
					fail_msg("protobuf-c accepts, tl_pbdecode refuses: %s",
						 err.msg);
				GBytes *have = pack(got);
				if (!g_bytes_equal(want, have))
					fail_msg("decoded differently (fields %d, threads %u): "
						 "packed %zu "
						 "vs %zu bytes",
						 fields, threads, g_bytes_get_size(want),
						 g_bytes_get_size(have));
				g_bytes_unref(have);
			}
			tl_arena_free(arena);
		}
	}
	if (want != NULL)
		g_bytes_unref(want);
	bool accepted = ref != NULL;
	tl_arena_free(ref_arena);
	return accepted;
}

static bool agree_b(const ProtobufCMessageDescriptor *d, GByteArray *b)
{
	bool ok = agree(d, b->data, b->len);
	g_byte_array_free(b, TRUE);
	return ok;
}

/* A tensor with contents, as a Const node's "value" holds it. */
static GByteArray *tensor(unsigned k)
{
	GByteArray *t = msg();
	put_int(t, 1, 1);
	GByteArray *shape = msg();
	GByteArray *dim = msg();
	put_int(dim, 1, 4);
	put_msg(shape, 2, dim);
	put_msg(t, 2, shape);
	float vals[4] = {1.5f, 2.5f, (float)k, 4};
	put_bytes(t, 5, vals, sizeof vals); /* float_val, packed */
	put_bytes(t, 4, "\x01\x02\x03", 3); /* tensor_content */
	put_int(t, 7, 7);		    /* int_val, unpacked */
	return t;
}

static GByteArray *attr(const char *key, GByteArray *value)
{
	GByteArray *e = msg();
	put_str(e, 1, key);
	put_msg(e, 2, value);
	return e;
}

/* A RunMetadata with every part the tools read and several they do not,
 * big enough (n_dev devices of n_ops executions, two graphs of n_nodes) to
 * be decoded on several threads. */
static GByteArray *big_runmeta(unsigned n_dev, unsigned n_ops, unsigned n_nodes)
{
	GByteArray *rm = msg();
	GByteArray *ss = msg();
	for (unsigned d = 0; d < n_dev; d++) {
		GByteArray *dev = msg();
		char name[64];
		snprintf(name, sizeof name, "/job:w/replica:0/task:0/device:GPU:%u", d);
		put_str(dev, 1, name);
		for (unsigned i = 0; i < n_ops; i++) {
			GByteArray *ns = msg();
			char node[64], label[160];
			snprintf(node, sizeof node, "tower_%u/layer_%u/MatMul", d, i);
			snprintf(label, sizeof label, "%s = MatMul(tower_%u/layer_%u/x, w)", node,
				 d, i);
			put_str(ns, 1, node);
			put_int(ns, 2, 1000000 + i * 10);
			put_int(ns, 4, 5);
			put_int(ns, 5, 6);
			put_str(ns, 8, label);
			put_int(ns, 10, i % 4);
			GByteArray *mem = msg();
			put_str(mem, 1, "GPU_0_bfc");
			put_int(mem, 2, 4096);
			GByteArray *rec = msg();
			put_int(rec, 1, 1000000 + i * 10);
			put_int(rec, 2, 4096);
			put_msg(mem, 6, rec);
			put_msg(ns, 6, mem);
			GByteArray *out = msg();
			put_int(out, 1, 0);
			GByteArray *td = msg();
			put_int(td, 1, 1);
			GByteArray *ad = msg();
			put_int(ad, 1, 4096);
			put_int(ad, 2, 4096);
			put_str(ad, 3, "GPU_0_bfc");
			put_int(ad, 4, i + 1);
			put_msg(td, 4, ad);
			put_msg(out, 3, td);
			put_msg(ns, 7, out);
			if (i % 5 == 0) {
				GByteArray *ms = msg();
				put_int(ms, 1, 64);
				put_bytes(ms, 5, "\x01\x02\x03", 3); /* packed ids */
				put_int(ms, 5, 9);		     /* and one unpacked */
				put_msg(ns, 12, ms);
			}
			if (i % 7 == 0)
				put_str(ns, 1000, "a field from a newer TensorFlow");
			put_msg(dev, 2, ns);
		}
		GByteArray *tn = msg();
		put_int(tn, 1, 3);
		put_str(tn, 2, "worker thread");
		put_msg(dev, 3, tn);
		put_msg(ss, 1, dev);
	}
	put_msg(rm, 1, ss);
	for (unsigned g = 0; g < 2; g++) {
		GByteArray *gd = msg();
		for (unsigned i = 0; i < n_nodes; i++) {
			GByteArray *nd = msg();
			char node[64];
			snprintf(node, sizeof node, "g%u/n%u", g, i);
			put_str(nd, 1, node);
			put_str(nd, 2, i % 3 == 0 ? "Const" : "Add");
			if (i > 0) {
				char in[64];
				snprintf(in, sizeof in, "g%u/n%u", g, i - 1);
				put_str(nd, 3, in);
				put_str(nd, 3, "^g0/n0");
			}
			put_str(nd, 4, "/job:w/replica:0/task:0/device:CPU:0");
			GByteArray *t = msg();
			put_int(t, 6, 1);
			put_msg(nd, 5, attr("T", t));
			if (i % 3 == 0) {
				GByteArray *v = msg();
				put_msg(v, 8, tensor(i));
				put_msg(nd, 5, attr("value", v));
			}
			GByteArray *l = msg();
			GByteArray *lv = msg();
			GByteArray *shape = msg();
			GByteArray *dim = msg();
			put_int(dim, 1, 32);
			put_msg(shape, 2, dim);
			put_msg(lv, 7, shape);
			put_str(lv, 2, "skipped");
			put_bytes(lv, 3, "\x01\x02", 2);
			put_msg(l, 1, lv);
			put_msg(nd, 5, attr("_output_shapes", l));
			GByteArray *s = msg();
			put_str(s, 2, "tensor_name_x");
			put_msg(nd, 5, attr("tensor_name", s));
			put_msg(gd, 1, nd);
		}
		GByteArray *ver = msg();
		put_int(ver, 1, 27);
		put_msg(gd, 4, ver);
		GByteArray *lib = msg();
		GByteArray *fn = msg();
		GByteArray *sig = msg();
		put_str(sig, 1, "my_function");
		put_msg(fn, 1, sig);
		put_msg(lib, 1, fn);
		put_msg(gd, 2, lib);
		put_msg(rm, 3, gd);
	}
	GByteArray *cg = msg();
	GByteArray *cn = msg();
	put_str(cn, 1, "cost node");
	put_int(cn, 3, 1);
	put_msg(cg, 1, cn);
	put_msg(rm, 2, cg);
	GByteArray *sm = msg();
	put_str(sm, 1, "session");
	put_msg(rm, 5, sm);
	put_int(rm, 77, 1); /* unknown at the top */
	return rm;
}

/* Proves: a big RunMetadata (devices and graphs split across threads)
 * decodes as protobuf-c decodes it, whole and with the model's fields. */
static void test_big_agrees(void **state)
{
	(void)state;
	GByteArray *b = big_runmeta(6, 1500, 2500);
	assert_true(b->len > 2u << 20); /* above the size where threads join */
	assert_true(agree_b(&tensorflow__run_metadata__descriptor, b));
}

/* Proves: the number of threads does not change the result, the model's
 * fields are those read (what it leaves out is absent, the rest present),
 * and a repeated field's elements lie in memory in the order of the
 * bytes. */
static void test_threads_and_fields(void **state)
{
	(void)state;
	GByteArray *b = big_runmeta(4, 800, 2000);
	GBytes *first = NULL;
	for (unsigned threads = 1; threads <= 8; threads *= 2) {
		tl_arena *arena = tl_arena_new();
		ProtobufCMessage *m = NULL;
		tl_error err = {{0}};
		assert_int_equal(decode(&tensorflow__run_metadata__descriptor, b->data, b->len,
					TL_PBDECODE_MODEL, threads, arena, &m, &err),
				 0);
		Tensorflow__RunMetadata *rm = (Tensorflow__RunMetadata *)m;
		assert_null(rm->cost_graph);
		assert_null(rm->session_metadata);
		assert_int_equal(rm->base.n_unknown_fields, 0);
		assert_int_equal(rm->n_partition_graphs, 2);
		Tensorflow__GraphDef *g = rm->partition_graphs[1];
		assert_null(g->library);
		assert_null(g->versions);
		assert_int_equal(g->n_node, 2000);
		Tensorflow__NodeDef *nd = g->node[3];
		assert_string_equal(nd->name, "g1/n3");
		assert_int_equal(nd->n_input, 2);
		assert_string_equal(nd->input[1], "^g0/n0");
		assert_int_equal(nd->n_attr, 4);
		Tensorflow__TensorProto *t = nd->attr[1]->value->tensor;
		assert_int_equal(t->dtype, 1);
		assert_int_equal(t->tensor_shape->dim[0]->size, 4);
		assert_int_equal(t->n_float_val, 0);
		assert_int_equal(t->tensor_content.len, 0);
		Tensorflow__AttrValue__ListValue *l = nd->attr[2]->value->list;
		assert_int_equal(l->n_shape, 1);
		assert_int_equal(l->shape[0]->dim[0]->size, 32);
		assert_int_equal(l->n_s, 0);
		assert_int_equal(l->n_i, 0);
		assert_int_equal(nd->attr[3]->value->value_case, TENSORFLOW__ATTR_VALUE__VALUE_S);
		assert_memory_equal(nd->attr[3]->value->s.data, "tensor_name_x", 13);
		Tensorflow__DeviceStepStats *dev = rm->step_stats->dev_stats[3];
		assert_string_equal(dev->device, "/job:w/replica:0/task:0/device:GPU:3");
		assert_int_equal(dev->n_node_stats, 800);
		Tensorflow__NodeExecStats *ns = dev->node_stats[10];
		assert_string_equal(ns->node_name, "tower_3/layer_10/MatMul");
		assert_int_equal(ns->all_start_micros, 1000100);
		assert_int_equal(ns->memory_stats->n_persistent_tensor_alloc_ids, 4);
		assert_int_equal(ns->memory_stats->persistent_tensor_alloc_ids[3], 9);
		assert_int_equal(
		    ns->output[0]->tensor_description->allocation_description->allocation_id, 11);
		assert_int_equal(dev->n_thread_names, 1);
		/* each device's records in memory in the order of the bytes */
		for (size_t d = 0; d < rm->step_stats->n_dev_stats; d++) {
			Tensorflow__DeviceStepStats *ds = rm->step_stats->dev_stats[d];
			for (size_t k = 1; k < ds->n_node_stats; k++)
				assert_true(ds->node_stats[k - 1] < ds->node_stats[k]);
		}
		GBytes *p = pack(m);
		if (first == NULL)
			first = p;
		else {
			assert_true(g_bytes_equal(first, p));
			g_bytes_unref(p);
		}
		tl_arena_free(arena);
	}
	g_bytes_unref(first);
	g_byte_array_free(b, TRUE);
}

/* Proves: strings point into the input, NUL-terminated over the byte after
 * them, the last one over the byte after the input. */
static void test_strings_in_place(void **state)
{
	(void)state;
	GByteArray *b = msg();
	put_str(b, 1, "node");
	put_str(b, 8, "label at the end");
	tl_arena *arena = tl_arena_new();
	uint8_t *data = tl_arena_alloc(arena, b->len + 1);
	memcpy(data, b->data, b->len);
	data[b->len] = 'x';
	ProtobufCMessage *m = NULL;
	tl_error err = {{0}};
	assert_int_equal(tl_pbdecode(&tensorflow__node_exec_stats__descriptor, data, b->len,
				     TL_PBDECODE_ALL, 1, arena, &m, &err),
			 0);
	Tensorflow__NodeExecStats *ns = (Tensorflow__NodeExecStats *)m;
	assert_ptr_equal(ns->node_name, (char *)data + 2);
	assert_string_equal(ns->node_name, "node");
	assert_string_equal(ns->timeline_label, "label at the end");
	assert_int_equal(data[b->len], 0);
	tl_arena_free(arena);
	g_byte_array_free(b, TRUE);
}

/* Proves: protobuf-c's rules where protobuf's leave room: a oneof keeps its
 * last member, a message field given twice is merged (repeated fields
 * joined, a later proto3 scalar wins even when absent, a string only when
 * present; refused where a oneof is set in neither part, also in fields
 * the model leaves out), repeated scalars packed and not, bools of any
 * wire type. */
static void test_protobuf_c_rules(void **state)
{
	(void)state;
	const ProtobufCMessageDescriptor *attr_d = &tensorflow__attr_value__descriptor;
	GByteArray *b = msg();
	put_str(b, 2, "s first");
	put_int(b, 3, 42); /* i replaces s */
	assert_true(agree_b(attr_d, b));
	b = msg();
	GByteArray *l = msg();
	put_int(l, 3, 1);
	put_msg(b, 1, l);
	l = msg();
	put_int(l, 3, 2);
	put_msg(b, 1, l); /* list twice: the later replaces, no merge */
	assert_true(agree_b(attr_d, b));

	/* NodeOutput.tensor_description twice: merged */
	b = msg();
	GByteArray *td = msg();
	put_int(td, 1, 3);
	GByteArray *ad = msg();
	put_str(ad, 3, "first allocator");
	put_int(ad, 1, 10);
	put_msg(td, 4, ad);
	put_msg(b, 3, td);
	td = msg();
	ad = msg();
	put_int(ad, 2, 20);
	put_msg(td, 4, ad);
	GByteArray *shape = msg();
	put_int(shape, 3, 1);
	put_msg(td, 2, shape);
	put_msg(b, 3, td);
	assert_true(agree_b(&tensorflow__node_output__descriptor, b));

	/* step_stats twice at the top: devices joined */
	b = msg();
	for (int k = 0; k < 2; k++) {
		GByteArray *ss = msg();
		GByteArray *dev = msg();
		put_str(dev, 1, k == 0 ? "/cpu:0" : "/gpu:0");
		put_msg(ss, 1, dev);
		put_msg(b, 1, ss);
	}
	assert_true(agree_b(&tensorflow__run_metadata__descriptor, b));

	/* a message holding a oneof given twice: merged AttrValues */
	b = msg();
	GByteArray *e = msg();
	put_str(e, 1, "k");
	GByteArray *v = msg();
	put_str(v, 2, "earlier");
	put_msg(e, 2, v);
	v = msg();
	put_int(v, 5, 1);
	put_msg(e, 2, v); /* later case b */
	put_msg(b, 5, e);
	e = msg();
	put_str(e, 1, "k3");
	v = msg();
	put_int(v, 3, 5);
	put_msg(e, 2, v);
	put_msg(e, 2, msg()); /* later empty: the earlier i moves over */
	put_msg(e, 2, msg()); /* and again */
	put_msg(b, 5, e);
	e = msg();
	put_str(e, 1, "k4");
	v = msg();
	put_str(v, 9, "placeholder");
	put_msg(e, 2, v);
	put_msg(e, 2, msg()); /* a string member stays behind */
	put_msg(b, 5, e);
	assert_true(agree_b(&tensorflow__node_def__descriptor, b));
	/* ... but where neither part sets it, protobuf-c refuses the input */
	b = msg();
	e = msg();
	put_str(e, 1, "k2");
	put_msg(e, 2, msg());
	put_msg(e, 2, msg());
	put_msg(b, 5, e);
	assert_false(agree_b(&tensorflow__node_def__descriptor, b));
	b = msg();
	e = msg();
	v = msg();
	put_str(v, 9, "placeholder");
	put_msg(e, 2, v);
	put_msg(e, 2, msg());
	put_msg(e, 2, msg()); /* the string stayed behind: now neither */
	put_msg(b, 5, e);
	assert_false(agree_b(&tensorflow__node_def__descriptor, b));
	b = msg();
	GByteArray *gd = msg();
	GByteArray *nd = msg();
	e = msg();
	put_msg(e, 2, msg());
	put_msg(e, 2, msg());
	put_msg(nd, 5, e);
	put_msg(gd, 1, nd);
	GByteArray *fg = msg();
	put_msg(fg, 2, gd);
	put_msg(b, 4, fg); /* in function_graphs, which the model leaves out */
	assert_false(agree_b(&tensorflow__run_metadata__descriptor, b));

	/* packed and unpacked, zigzag-free int64s, a 10-byte varint */
	b = msg();
	put_bytes(b, 5, "\x01\xff\xff\xff\xff\xff\xff\xff\xff\x01", 10);
	put_int(b, 5, 3);
	put_int(b, 5, (uint64_t)-1);
	assert_true(agree_b(&tensorflow__memory_stats__descriptor, b));

	/* bool fields (has_single_reference = 5) of every wire type */
	b = msg();
	put_int(b, 5, 2);
	assert_true(agree_b(&tensorflow__allocation_description__descriptor, b));
	b = msg();
	put_raw(b, "29 80 00 00 00 00 00 00 00");
	assert_true(agree_b(&tensorflow__allocation_description__descriptor, b));
	b = msg();
	put_raw(b, "2d 00 80 00 00");
	assert_true(agree_b(&tensorflow__allocation_description__descriptor, b));
	b = msg();
	put_raw(b, "2a 01 00");
	assert_true(agree_b(&tensorflow__allocation_description__descriptor, b));
	/* packed bools are varints (a value of 2 or of two bytes is true) */
	b = msg();
	put_bytes(b, 5, "\x00\x01\x02\x80\x01", 5);
	assert_true(agree_b(&tensorflow__attr_value__list_value__descriptor, b));
	b = msg();
	put_bytes(b, 5, "\x00\x80", 2);
	assert_false(agree_b(&tensorflow__attr_value__list_value__descriptor, b));
	/* int32 from a 10-byte negative varint: the low 32 bits */
	b = msg();
	put_int(b, 1, (uint64_t)-5);
	put_int(b, 3, (uint64_t)1 << 40);
	assert_true(agree_b(&tensorflow__version_def__descriptor, b));
	/* empty strings and bytes */
	b = msg();
	put_str(b, 1, "");
	put_bytes(b, 2, "", 0);
	assert_true(agree_b(&tensorflow__tagged_run_metadata__descriptor, b));
}

/* Proves: unknown fields of every wire type are kept (all fields) as
 * protobuf-c keeps them, keys past 2^31 included and field 0 where its key
 * is longer than a byte; a length whose 32-bit sum with its prefix wraps
 * is refused. */
static void test_unknown_fields(void **state)
{
	(void)state;
	const ProtobufCMessageDescriptor *d = &tensorflow__allocation_record__descriptor;
	GByteArray *b = msg();
	put_int(b, 1, 7);
	put_int(b, 9, 1);
	put_raw(b, "51 01 02 03 04 05 06 07 08"); /* 10: fixed64 */
	put_raw(b, "5d 01 02 03 04");		  /* 11: fixed32 */
	put_str(b, 12, "unknown text");
	put_raw(b, "80 00 05");		 /* field 0, in a two-byte key */
	put_raw(b, "f8 ff ff ff 0f 01"); /* field 2^29 - 1 */
	put_raw(b, "f8 ff ff ff 7f 01"); /* key 2^32 - 1: past INT_MAX */
	put_int(b, 2, 9);
	assert_true(agree_b(d, b));
	b = msg();
	put_raw(b, "00 05"); /* a one-byte key of field 0: refused */
	assert_false(agree_b(d, b));
	b = msg();
	put_raw(b, "a2 06 fd ff ff ff 0f 00 00 00 00"); /* field 100, length 2^32 - 3 */
	assert_false(agree_b(d, b));
}

/* Proves: what protobuf-c refuses is refused, with the message the tools
 * print: bad keys and varints, lengths past the end, groups, wire types
 * that do not fit, packed runs that do not divide or end mid-varint. */
static void test_refused(void **state)
{
	(void)state;
	const ProtobufCMessageDescriptor *d = &tensorflow__node_exec_stats__descriptor;
	const char *bad[] = {
	    "08",				   /* varint cut */
	    "08 ff ff ff ff ff ff ff ff ff ff 01", /* 11-byte varint */
	    "0a 05 61 62",			   /* length past the end */
	    "0b 0c",				   /* a group */
	    "0f",				   /* wire type 7 */
	    "f8 ff ff ff ff 01 00",		   /* 6-byte key */
	    "10 01 09 00",			   /* node_name as fixed64, cut */
	    "0d 00 00 00 00",			   /* node_name as fixed32 */
	    "12 02 08 01",			   /* all_start_micros as bytes */
	    "32 02 0a",				   /* memory: its content cut */
	    "62 02 2a 01",			   /* memory_stats ids: varint cut */
	    "3a 03 1a 01 0d",			   /* output: tensor_description bad */
	};
	for (size_t i = 0; i < G_N_ELEMENTS(bad); i++) {
		GByteArray *b = msg();
		put_raw(b, bad[i]);
		if (agree_b(d, b))
			fail_msg("accepted: %s", bad[i]);
	}
	/* a packed fixed run whose length does not divide */
	GByteArray *b = msg();
	put_bytes(b, 5, "\x00\x00\x00\x00\x00", 5);
	assert_false(agree_b(&tensorflow__tensor_proto__descriptor, b));
	/* the message */
	b = msg();
	put_raw(b, "0a 05 61 62");
	tl_arena *arena = tl_arena_new();
	ProtobufCMessage *m = NULL;
	tl_error err = {{0}};
	assert_int_equal(decode(&tensorflow__run_metadata__descriptor, b->data, b->len,
				TL_PBDECODE_MODEL, 1, arena, &m, &err),
			 TL_PBDECODE_MALFORMED);
	assert_string_equal(err.msg, "malformed RunMetadata (protobuf decoding failed)");
	tl_arena_free(arena);
	g_byte_array_free(b, TRUE);
}

/* NameAttrList -> attr entry -> AttrValue -> func NameAttrList -> ...:
 * `levels` (a multiple of 3) messages below the top NameAttrList. */
static GByteArray *nested(unsigned levels)
{
	GByteArray *inner = msg();
	put_str(inner, 1, "leaf");
	for (unsigned i = 0; i + 3 <= levels; i += 3) {
		GByteArray *value = msg();
		put_msg(value, 10, inner);
		GByteArray *entry = msg();
		put_str(entry, 1, "k");
		put_msg(entry, 2, value);
		inner = msg();
		put_msg(inner, 2, entry);
	}
	return inner;
}

/* Proves: nesting deeper than 100 levels is refused with the words and the
 * place tl_pbwire_check_depth gives (the check that ran before protobuf-c),
 * also where a malformed field comes first; 100 levels are fine. */
static void test_depth(void **state)
{
	(void)state;
	const ProtobufCMessageDescriptor *d = &tensorflow__name_attr_list__descriptor;
	GByteArray *ok = nested(99);
	assert_true(agree_b(d, ok));
	for (int bad_first = 0; bad_first <= 1; bad_first++) {
		GByteArray *b = msg();
		if (bad_first)
			put_raw(b, "0d 00 00 00 00"); /* name as fixed32: malformed */
		GByteArray *deep = nested(102);
		g_byte_array_append(b, deep->data, deep->len);
		g_byte_array_free(deep, TRUE);
		tl_error want = {{0}};
		assert_int_equal(
		    tl_pbwire_check_depth(d, b->data, b->len, TL_PBWIRE_MAX_DEPTH, &want), -1);
		tl_arena *arena = tl_arena_new();
		ProtobufCMessage *m = NULL;
		tl_error err = {{0}};
		assert_int_equal(decode(d, b->data, b->len, TL_PBDECODE_ALL, 1, arena, &m, &err),
				 -1);
		assert_string_equal(err.msg, want.msg);
		assert_non_null(strstr(err.msg, "messages nested deeper than 100 levels at byte"));
		tl_arena_free(arena);
		g_byte_array_free(b, TRUE);
	}
}

/* Proves: every RunMetadata, StepStats and GraphDef in the repository's
 * data (binary, and text through tl_pbtext_to_wire) decodes as protobuf-c
 * decodes it. */
static void test_data_files_agree(void **state)
{
	(void)state;
	const char *files[] = {"gen-g2-loop.pb",
			       "real/tfprof_testdata_run_meta_cpu_tf12.pb",
			       "exact/gen-g2-loop-quirks.pb",
			       "gen-cpu.pbtxt",
			       "mnist.pbtxt",
			       "fanout.pbtxt",
			       "real/gradckpt_simple2_timeline_graphdef.pbtxt",
			       "real/gradckpt_simple_stepstats.pbtxt",
			       "real/tb_backend_test_run_metadata_step99.pbtxt",
			       "real/tfprof_testdata_graph.pbtxt",
			       "oracle/edge_cases.stepstats.pbtxt"};
	for (size_t i = 0; i < G_N_ELEMENTS(files); i++) {
		char *path = td_data(files[i]);
		GBytes *bytes = td_load(path);
		size_t n;
		const uint8_t *p = g_bytes_get_data(bytes, &n);
		const ProtobufCMessageDescriptor *d = NULL;
		GByteArray *wire = g_byte_array_new();
		tl_error err = {{0}};
		if (g_str_has_suffix(path, ".pbtxt")) {
			d = tl_pbtext_guess((const char *)p, n);
			assert_non_null(d);
			if (tl_pbtext_to_wire(d, (const char *)p, n, wire, &err) < 0)
				fail_msg("%s: %s", path, err.msg);
		} else {
			assert_int_equal(tl_pbwire_classify(p, n, &d, &err), 0);
			g_byte_array_append(wire, p, (guint)n);
		}
		if (!agree(d, wire->data, wire->len))
			fail_msg("%s: refused", path);
		g_byte_array_free(wire, TRUE);
		g_bytes_unref(bytes);
		g_free(path);
	}
}

/* Proves: the shared folder's RunMetadata dumps decode as protobuf-c
 * decodes them. */
static void test_shared_files_agree(void **state)
{
	(void)state;
	char *dir = td_shared("oracle", NULL);
	const char *files[] = {"gen_cpu_s2.pb", "gen_g1_s1.pb", "exact/pub_cpu_s22.pb",
			       "exact/pub_g1_s21.pb"};
	for (size_t i = 0; i < G_N_ELEMENTS(files); i++) {
		char *path = g_build_filename(dir, files[i], NULL);
		GBytes *bytes = td_load(path);
		size_t n;
		const uint8_t *p = g_bytes_get_data(bytes, &n);
		if (!agree(&tensorflow__run_metadata__descriptor, p, n))
			fail_msg("%s: refused", path);
		g_bytes_unref(bytes);
		g_free(path);
	}
	g_free(dir);
}

/* Proves: random bytes and every truncation and single-byte change of a
 * small RunMetadata get the same verdict and contents as from protobuf-c. */
static void test_mutations_agree(void **state)
{
	(void)state;
	GByteArray *b = big_runmeta(1, 2, 3);
	GRand *r = g_rand_new_with_seed(13);
	for (guint cut = 0; cut <= b->len; cut += 1 + cut / 50)
		agree(&tensorflow__run_metadata__descriptor, b->data, cut);
	uint8_t *copy = g_malloc(b->len);
	for (guint i = 0; i < b->len; i += 1 + i / 40) {
		memcpy(copy, b->data, b->len);
		copy[i] = (uint8_t)g_rand_int(r);
		agree(&tensorflow__run_metadata__descriptor, copy, b->len);
	}
	for (unsigned k = 0; k < 200; k++) {
		size_t n = (size_t)g_rand_int_range(r, 0, 64);
		for (size_t i = 0; i < n; i++)
			copy[i] = (uint8_t)g_rand_int(r);
		agree(&tensorflow__run_metadata__descriptor, copy, n);
	}
	g_free(copy);
	g_rand_free(r);
	g_byte_array_free(b, TRUE);
}

int main(void)
{
	td_filter();
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_big_agrees),
	    cmocka_unit_test(test_threads_and_fields),
	    cmocka_unit_test(test_strings_in_place),
	    cmocka_unit_test(test_protobuf_c_rules),
	    cmocka_unit_test(test_unknown_fields),
	    cmocka_unit_test(test_refused),
	    cmocka_unit_test(test_depth),
	    cmocka_unit_test(test_data_files_agree),
	    cmocka_unit_test(test_shared_files_agree),
	    cmocka_unit_test(test_mutations_agree),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
