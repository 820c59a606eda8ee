/*
 * pbdecode: the decoder. Descriptor driven: a plan per message type (built
 * once from protobuf-c's descriptors, per choice of fields) says for each
 * field number where the value goes and how; both passes walk the bytes
 * with it.
 *
 * The rules are protobuf-c 1.4's (protobuf_c_message_unpack and what it
 * calls), so that the same bytes give the same verdict and the same
 * structs: keys of at most 5 bytes, lengths read as 32 bits, wire types
 * checked per field type (a bool takes any), repeated scalars packed or not,
 * a oneof keeps its last member, a message field given twice is merged
 * (merge_messages), unknown fields kept with their bytes.
 *
 * Here: the two passes over the bytes and the threads that share them. The
 * plans are pbdecode_plan.c's; reading one field off the wire, what both
 * passes do for every field, is inline in pbdecode_internal.h.
 */
#include "io/pbdecode.h"

#include "io/pbdecode_plan.h"
#include "io/pbdecode_internal.h"
#include "io/pbwire.h"

#include <glib.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

/* protobuf-c keeps the fields of one message in slabs of 16 << i entries,
 * i < 23; one field more is an error ("too many fields"). */
#define MAX_FIELDS ((uint64_t)16 * ((UINT64_C(1) << 23) - 1))
/* Parallel decoding: inputs from PARALLEL_MIN bytes; the elements of
 * repeated message fields at most SPLIT_DEPTH levels down are decoded as
 * items, batches of consecutive elements of one field of about SPLIT_MIN
 * bytes, on up to MAX_THREADS threads. */
#define PARALLEL_MIN (1u << 20)
#define SPLIT_DEPTH 2
#define SPLIT_MIN (256u * 1024)
#define MAX_THREADS 8

/* A packed run of `type`: how many values, false where protobuf-c refuses
 * it (a fixed size that does not divide, a varint over 10 bytes or cut;
 * bools are varints too). */
static bool packed_count(uint8_t type, const uint8_t *v, size_t n, size_t *count)
{
	uint8_t want = tl_pbdecode_wire_type(type);
	if (want == TL_WT_32 || want == TL_WT_64) {
		size_t size = want == TL_WT_32 ? 4 : 8;
		*count = n / size;
		return n % size == 0;
	}
	size_t c = 0, run = 0;
	for (size_t i = 0; i < n; i++) {
		if (v[i] & 0x80) {
			if (++run == 10)
				return false;
		} else {
			run = 0;
			c++;
		}
	}
	*count = c;
	return run == 0;
}

/* Unpacks a checked packed run into out; returns how many values. */
static size_t packed_unpack(uint8_t type, const uint8_t *v, size_t n, uint8_t *out)
{
	uint8_t want = tl_pbdecode_wire_type(type);
	if (want == TL_WT_32 || want == TL_WT_64) {
		memcpy(out, v, n);
		return n / (want == TL_WT_32 ? 4 : 8);
	}
	size_t count = 0;
	size_t i = 0;
	while (i < n) {
		size_t s = 1;
		while (v[i + s - 1] & 0x80)
			s++;
		uint64_t x = tl_pbdecode_wire_varint(v + i, s);
		switch (type) {
		case PROTOBUF_C_TYPE_BOOL: {
			protobuf_c_boolean y = tl_pbdecode_wire_bool(v + i, s);
			memcpy(out + count * sizeof y, &y, sizeof y);
			break;
		}
		case PROTOBUF_C_TYPE_SINT32: {
			int32_t y = tl_pbdecode_wire_unzigzag32((uint32_t)x);
			memcpy(out + count * 4, &y, 4);
			break;
		}
		case PROTOBUF_C_TYPE_SINT64: {
			int64_t y = tl_pbdecode_wire_unzigzag64(x);
			memcpy(out + count * 8, &y, 8);
			break;
		}
		case PROTOBUF_C_TYPE_INT64:
		case PROTOBUF_C_TYPE_UINT64:
			memcpy(out + count * 8, &x, 8);
			break;
		default: { /* int32, uint32, enum: the low 32 bits */
			uint32_t y = (uint32_t)x;
			memcpy(out + count * 4, &y, 4);
			break;
		}
		}
		count++;
		i += s;
	}
	return count;
}

struct u32vec {
	uint32_t *v;
	size_t n, cap;
};

static size_t u32vec_reserve(struct u32vec *vec, size_t n)
{
	if (vec->cap - vec->n < n) {
		size_t cap = vec->cap ? vec->cap : 1024;
		while (cap - vec->n < n)
			cap *= 2;
		vec->v = g_renew(uint32_t, vec->v, cap);
		vec->cap = cap;
	}
	size_t at = vec->n;
	vec->n += n;
	return at;
}

/* An element of a repeated message field decoded apart from its parent. */
struct elem {
	uint8_t *p;
	size_t len;
	ProtobufCMessage *msg; /* carved by the parent's fill */
};

/* A batch of elements (of one field of one parent) decoded by one thread. */
struct item {
	const tl_pbdecode_plan *plan;
	unsigned depth;	   /* of the elements */
	GArray *elems;	   /* struct elem */
	size_t payload;	   /* their bytes */
	size_t filled;	   /* elements the parent has carved so far */
	struct u32vec rec; /* pass 1's counts, in pass 2's order */
	size_t bytes;	   /* what pass 2 carves */
	uint8_t *region;
	bool ok, deep;
};

/* The open batches of one parent message, one per repeated field. */
struct batches {
	int32_t item[TL_PBDECODE_MAX_COUNTED];
	size_t bytes[TL_PBDECODE_MAX_COUNTED];
};

/* Pass 1: checks, counts, sizes. */
struct scan {
	struct u32vec *rec; /* per message with counted fields, its counts */
	size_t bytes;	    /* what pass 2 will carve */
	bool deep;	    /* refused for nesting */
	GArray *items;	    /* struct item; NULL: no splitting */
};

static void batches_init(struct batches *b)
{
	for (unsigned i = 0; i < TL_PBDECODE_MAX_COUNTED; i++)
		b->item[i] = -1;
}

/* The batch the next element of fp goes to: the open one, or a new one
 * (numbered in the order both passes meet them). */
static int32_t batch_take(struct batches *b, const tl_pbdecode_plan_field *fp, size_t vlen,
			  int32_t *next)
{
	int32_t *it = &b->item[fp->slot];
	if (*it < 0) {
		*it = (*next)++;
		b->bytes[fp->slot] = 0;
	}
	int32_t at = *it;
	/* Per-element cost counts too, so many small elements close a batch. */
	b->bytes[fp->slot] += vlen + 64;
	if (b->bytes[fp->slot] >= SPLIT_MIN)
		*it = -1;
	return at;
}

/* A message field given twice is merged by protobuf-c (merge_messages),
 * which refuses the whole input where a oneof is set in neither part.
 * Whether that happens depends on what the parts hold, so where pass 1
 * meets such a field it replays the merges on a sketch of each part: its
 * oneofs' cases and its message fields, no more. */
struct sketch {
	uint32_t cases[64]; /* by the oneof's first member */
	bool movable[64];
	struct sketch *subs[64]; /* message fields (not oneof members) */
};

static bool sketch_merge(struct sketch *e, struct sketch *l, const tl_pbdecode_plan *m)
{
	for (unsigned i = 0; i < m->desc->n_fields; i++) {
		const tl_pbdecode_plan_field *fp = &m->fields[i];
		if (fp->label == TL_LABEL_ONEOF) {
			unsigned g = fp->group;
			if (l->cases[g] != 0)
				continue;
			if (e->cases[g] == 0)
				return false;
			if (e->movable[g]) {
				l->cases[g] = e->cases[g];
				l->movable[g] = true;
				e->cases[g] = 0;
			}
			continue;
		}
		if (fp->label != TL_LABEL_SINGLE || fp->type != PROTOBUF_C_TYPE_MESSAGE)
			continue;
		if (e->subs[i] != NULL && l->subs[i] != NULL) {
			if (!sketch_merge(e->subs[i], l->subs[i], fp->sub))
				return false;
		} else if (e->subs[i] != NULL) {
			l->subs[i] = e->subs[i];
			e->subs[i] = NULL;
		}
	}
	return true;
}

/* The sketch of the (checked) message in p[0..len), its own merges
 * replayed; NULL where one of them fails. */
static struct sketch *sketch_of(tl_arena *tmp, const tl_pbdecode_plan *m, uint8_t *p, size_t len)
{
	struct sketch *sk = tl_arena_zalloc(tmp, sizeof *sk);
	size_t pos = 0;
	while (pos < len) {
		tl_pbdecode_wire_field w;
		tl_pbdecode_wire_read(p, len, &pos, &w);
		const tl_pbdecode_plan_field *fp = tl_pbdecode_plan_find(m, w.tag);
		if (fp == NULL)
			continue;
		if (fp->label == TL_LABEL_ONEOF) {
			sk->cases[fp->group] = w.tag;
			sk->movable[fp->group] =
			    fp->movable && (fp->type != PROTOBUF_C_TYPE_BYTES || w.vlen > 0);
			continue;
		}
		if (fp->label != TL_LABEL_SINGLE || fp->type != PROTOBUF_C_TYPE_MESSAGE)
			continue;
		unsigned i = (unsigned)(fp - m->fields);
		struct sketch *sub = sketch_of(tmp, fp->sub, w.val, w.vlen);
		if (sub == NULL)
			return NULL;
		if (sk->subs[i] != NULL && !sketch_merge(sk->subs[i], sub, fp->sub))
			return NULL;
		sk->subs[i] = sub;
	}
	return sk;
}

static bool merges_succeed(const tl_pbdecode_plan *m, uint8_t *p, size_t len)
{
	tl_arena *tmp = tl_arena_new();
	bool ok = sketch_of(tmp, m, p, len) != NULL;
	tl_arena_free(tmp);
	return ok;
}

static bool scan_message(struct scan *s, const tl_pbdecode_plan *m, uint8_t *p, size_t len,
			 unsigned depth, bool store)
{
	uint32_t cnt[TL_PBDECODE_MAX_COUNTED];
	size_t rec_at = 0;
	if (store) {
		/* only what is used: a rep stos of the whole array costs more
		 * than many a message's walk */
		for (unsigned r = 0; r < m->n_counted; r++)
			cnt[r] = 0;
		rec_at = u32vec_reserve(s->rec, m->n_counted);
	}
	struct batches bs;
	bool split = store && s->items != NULL && depth + 1 <= SPLIT_DEPTH;
	if (split)
		batches_init(&bs);
	uint64_t n_fields = 0;
	uint64_t given = 0; /* message fields met, for the merge check */
	bool merged = false;
	size_t pos = 0;
	while (pos < len) {
		if (++n_fields > MAX_FIELDS)
			return false;
		tl_pbdecode_wire_field w;
		if (!tl_pbdecode_wire_read(p, len, &pos, &w))
			return false;
		const tl_pbdecode_plan_field *fp = tl_pbdecode_plan_find(m, w.tag);
		if (fp == NULL) {
			if (store && m->keep_unknown)
				cnt[m->unknown_slot]++;
			continue;
		}
		bool st = store && !fp->skip;
		if (fp->label == TL_LABEL_REPEATED && w.wt == TL_WT_LEN && fp->packable) {
			size_t n;
			if (!packed_count(fp->type, w.val, w.vlen, &n))
				return false;
			if (st)
				cnt[fp->slot] += (uint32_t)n;
			continue;
		}
		if (fp->want != TL_WT_ANY && w.wt != fp->want)
			return false;
		if (st && fp->label == TL_LABEL_REPEATED)
			cnt[fp->slot]++;
		if (fp->type != PROTOBUF_C_TYPE_MESSAGE)
			continue;
		if (depth + 1 > TL_PBWIRE_MAX_DEPTH) {
			s->deep = true;
			return false;
		}
		if (fp->label == TL_LABEL_SINGLE) {
			uint64_t bit = UINT64_C(1) << (fp - m->fields);
			merged |= (given & bit) != 0;
			given |= bit;
		}
		if (st)
			s->bytes += fp->sub->size;
		if (split && st && fp->label == TL_LABEL_REPEATED) {
			int32_t next = (int32_t)s->items->len;
			int32_t at = batch_take(&bs, fp, w.vlen, &next);
			if (at == (int32_t)s->items->len) {
				struct item fresh = {.plan = fp->sub, .depth = depth + 1};
				fresh.elems = g_array_new(FALSE, FALSE, sizeof(struct elem));
				g_array_append_val(s->items, fresh);
			}
			struct item *it = &g_array_index(s->items, struct item, at);
			struct elem e = {.p = w.val, .len = w.vlen};
			g_array_append_val(it->elems, e);
			it->payload += w.vlen;
			continue;
		}
		if (!scan_message(s, fp->sub, w.val, w.vlen, depth + 1, st))
			return false;
	}
	if (merged && !merges_succeed(m, p, len))
		return false;
	if (store) {
		if (m->n_counted > 0)
			memcpy(s->rec->v + rec_at, cnt, m->n_counted * sizeof cnt[0]);
		for (unsigned r = 0; r < m->n_counted; r++) {
			if (cnt[r] == 0)
				continue;
			size_t elt = m->keep_unknown && r == m->unknown_slot
					 ? sizeof(ProtobufCMessageUnknownField)
					 : m->fields[m->counted[r]].elt;
			s->bytes += ((size_t)cnt[r] * elt + 7) & ~(size_t)7;
		}
	}
	return true;
}

/* Pass 2: fills. Nothing can fail: pass 1 checked every byte. */
struct fill {
	uint8_t *cur, *end; /* what pass 1 sized */
	tl_arena *overflow; /* for what it could not size (merges) */
	const uint32_t *rec;
	uint8_t *nul;  /* where the last string's NUL goes, once the next key is read */
	GArray *items; /* the root's fill: batches to hand elements to */
	int32_t next_item;
};

static inline void *carve(struct fill *f, size_t n)
{
	n = (n + 7) & ~(size_t)7;
	if ((size_t)(f->end - f->cur) >= n) {
		void *p = f->cur;
		f->cur += n;
		return p;
	}
	return tl_arena_alloc(f->overflow, n);
}

static inline ProtobufCMessage *new_message(struct fill *f, const tl_pbdecode_plan *m)
{
	ProtobufCMessage *msg = carve(f, m->size);
	memcpy(msg, m->tmpl, m->size);
	return msg;
}

static uint32_t read_u32(const void *p)
{
	uint32_t v;
	memcpy(&v, p, sizeof v);
	return v;
}

static void write_u32(void *p, uint32_t v)
{
	memcpy(p, &v, sizeof v);
}

/* protobuf-c's merge_messages: a message field given twice is the later
 * one, with what the earlier one had and the later one lacks. Its rules,
 * not protobuf's: a proto3 scalar of the later one wins even when absent;
 * a string or bytes when present; repeated fields are joined. */
static void merge_messages(struct fill *f, ProtobufCMessage *earlier, ProtobufCMessage *latter)
{
	const ProtobufCMessageDescriptor *d = latter->descriptor;
	uint8_t *eb = (uint8_t *)earlier, *lb = (uint8_t *)latter;
	for (unsigned i = 0; i < d->n_fields; i++) {
		const ProtobufCFieldDescriptor *fd = &d->fields[i];
		if (fd->label == PROTOBUF_C_LABEL_REPEATED) {
			size_t *ne = (size_t *)(eb + fd->quantifier_offset);
			size_t *nl = (size_t *)(lb + fd->quantifier_offset);
			uint8_t **pe = (uint8_t **)(eb + fd->offset);
			uint8_t **pl = (uint8_t **)(lb + fd->offset);
			if (*ne == 0)
				continue;
			if (*nl > 0) {
				size_t el = tl_pbwire_elt_size(fd->type);
				uint8_t *joined = carve(f, (*ne + *nl) * el);
				memcpy(joined, *pe, *ne * el);
				memcpy(joined + *ne * el, *pl, *nl * el);
				*pl = joined;
				*nl += *ne;
			} else {
				*nl = *ne;
				*pl = *pe;
			}
			*ne = 0;
			*pe = NULL;
			continue;
		}
		uint8_t *ec = eb + fd->quantifier_offset, *lc = lb + fd->quantifier_offset;
		const ProtobufCFieldDescriptor *field = fd;
		if (fd->flags & PROTOBUF_C_FIELD_FLAG_ONEOF) {
			if (read_u32(lc) != 0)
				continue;
			/* Neither set: protobuf-c reads fields[-1] here; nothing
			 * to merge. */
			field = protobuf_c_message_descriptor_get_field(d, read_u32(ec));
			if (field == NULL)
				continue;
		}
		uint8_t *ee = eb + field->offset, *le = lb + field->offset;
		bool need = false;
		switch (field->type) {
		case PROTOBUF_C_TYPE_MESSAGE: {
			ProtobufCMessage *em = *(ProtobufCMessage **)ee;
			ProtobufCMessage *lm = *(ProtobufCMessage **)le;
			if (em != NULL && lm != NULL)
				merge_messages(f, em, lm);
			else
				need = em != NULL;
			break;
		}
		case PROTOBUF_C_TYPE_BYTES: {
			const uint8_t *ed = ((ProtobufCBinaryData *)ee)->data;
			const uint8_t *ld = ((ProtobufCBinaryData *)le)->data;
			const ProtobufCBinaryData *def = field->default_value;
			need = (ed != NULL && (def == NULL || ed != def->data)) &&
			       (ld == NULL || (def != NULL && ld == def->data));
			break;
		}
		case PROTOBUF_C_TYPE_STRING: {
			const char *es = *(char **)ee, *ls = *(char **)le;
			need = es != field->default_value && ls == field->default_value;
			break;
		}
		default:
			/* a oneof's case, or (proto3) the descriptor pointer: set */
			need = read_u32(ec) != 0 && read_u32(lc) == 0;
			break;
		}
		if (!need)
			continue;
		size_t el = tl_pbwire_elt_size(field->type);
		memcpy(le, ee, el);
		memset(ee, 0, el);
		if (field->quantifier_offset != 0) {
			write_u32(lc, read_u32(ec));
			write_u32(ec, 0);
		}
	}
}

static void fill_message(struct fill *f, const tl_pbdecode_plan *m, uint8_t *p, size_t len,
			 unsigned depth, ProtobufCMessage *msg);

/* One value of a singular field, a oneof member or a repeated element. */
static void set_value(struct fill *f, const tl_pbdecode_plan_field *fp, uint8_t *mem,
		      const tl_pbdecode_wire_field *w, unsigned depth)
{
	switch (fp->type) {
	case PROTOBUF_C_TYPE_INT32:
	case PROTOBUF_C_TYPE_UINT32:
	case PROTOBUF_C_TYPE_ENUM:
		write_u32(mem, (uint32_t)tl_pbdecode_wire_varint(w->val, w->vlen));
		break;
	case PROTOBUF_C_TYPE_SINT32: {
		int32_t v =
		    tl_pbdecode_wire_unzigzag32((uint32_t)tl_pbdecode_wire_varint(w->val, w->vlen));
		memcpy(mem, &v, 4);
		break;
	}
	case PROTOBUF_C_TYPE_INT64:
	case PROTOBUF_C_TYPE_UINT64: {
		uint64_t v = tl_pbdecode_wire_varint(w->val, w->vlen);
		memcpy(mem, &v, 8);
		break;
	}
	case PROTOBUF_C_TYPE_SINT64: {
		int64_t v = tl_pbdecode_wire_unzigzag64(tl_pbdecode_wire_varint(w->val, w->vlen));
		memcpy(mem, &v, 8);
		break;
	}
	case PROTOBUF_C_TYPE_SFIXED32:
	case PROTOBUF_C_TYPE_FIXED32:
	case PROTOBUF_C_TYPE_FLOAT:
		memcpy(mem, w->val, 4);
		break;
	case PROTOBUF_C_TYPE_SFIXED64:
	case PROTOBUF_C_TYPE_FIXED64:
	case PROTOBUF_C_TYPE_DOUBLE:
		memcpy(mem, w->val, 8);
		break;
	case PROTOBUF_C_TYPE_BOOL: {
		/* the key's whole value, a length's prefix included */
		protobuf_c_boolean b = tl_pbdecode_wire_bool(w->at, w->span);
		memcpy(mem, &b, sizeof b);
		break;
	}
	case PROTOBUF_C_TYPE_STRING:
		*(char **)mem = (char *)w->val;
		f->nul = w->val + w->vlen;
		break;
	case PROTOBUF_C_TYPE_BYTES: {
		ProtobufCBinaryData *bd = (ProtobufCBinaryData *)mem;
		bd->len = w->vlen;
		bd->data = w->vlen > 0 ? w->val : NULL;
		break;
	}
	case PROTOBUF_C_TYPE_MESSAGE: {
		ProtobufCMessage *sub = new_message(f, fp->sub);
		fill_message(f, fp->sub, w->val, w->vlen, depth + 1, sub);
		ProtobufCMessage **pm = (ProtobufCMessage **)mem;
		if (*pm != NULL)
			merge_messages(f, *pm, sub);
		*pm = sub;
		break;
	}
	}
}

static void fill_message(struct fill *f, const tl_pbdecode_plan *m, uint8_t *p, size_t len,
			 unsigned depth, ProtobufCMessage *msg)
{
	uint8_t *base = (uint8_t *)msg;
	const uint32_t *cnt = f->rec;
	if (m->n_counted > 0) /* the record is NULL where no message had counts */
		f->rec += m->n_counted;
	for (unsigned r = 0; r < m->n_counted; r++) {
		if (cnt[r] == 0)
			continue;
		if (m->keep_unknown && r == m->unknown_slot) {
			msg->unknown_fields =
			    carve(f, (size_t)cnt[r] * sizeof(ProtobufCMessageUnknownField));
			continue;
		}
		const tl_pbdecode_plan_field *fp = &m->fields[m->counted[r]];
		*(void **)(base + fp->offset) = carve(f, (size_t)cnt[r] * fp->elt);
	}
	struct batches bs;
	bool split = f->items != NULL && depth + 1 <= SPLIT_DEPTH;
	if (split)
		batches_init(&bs);
	size_t pos = 0;
	while (pos < len) {
		tl_pbdecode_wire_field w;
		tl_pbdecode_wire_read(p, len, &pos, &w);
		if (f->nul != NULL) {
			*f->nul = '\0';
			f->nul = NULL;
		}
		const tl_pbdecode_plan_field *fp = tl_pbdecode_plan_find(m, w.tag);
		if (fp == NULL) {
			if (m->keep_unknown) {
				ProtobufCMessageUnknownField *u =
				    &msg->unknown_fields[msg->n_unknown_fields++];
				u->tag = w.tag;
				u->wire_type = (ProtobufCWireType)w.wt;
				u->len = w.span;
				u->data = w.at;
			}
			continue;
		}
		if (fp->skip)
			continue;
		uint8_t *mem = base + fp->offset;
		if (fp->label == TL_LABEL_REPEATED) {
			size_t *n = (size_t *)(base + fp->qoffset);
			uint8_t *arr = *(uint8_t **)mem;
			if (w.wt == TL_WT_LEN && fp->packable) {
				if (w.vlen > 0) /* else no values, maybe no array */
					*n += packed_unpack(fp->type, w.val, w.vlen,
							    arr + *n * fp->elt);
				continue;
			}
			if (fp->type != PROTOBUF_C_TYPE_MESSAGE) {
				set_value(f, fp, arr + *n * fp->elt, &w, depth);
				(*n)++;
				continue;
			}
			ProtobufCMessage *sub = new_message(f, fp->sub);
			((ProtobufCMessage **)arr)[(*n)++] = sub;
			if (split) {
				int32_t at = batch_take(&bs, fp, w.vlen, &f->next_item);
				struct item *it = &g_array_index(f->items, struct item, at);
				g_array_index(it->elems, struct elem, it->filled++).msg = sub;
				continue;
			}
			fill_message(f, fp->sub, w.val, w.vlen, depth + 1, sub);
			continue;
		}
		if (fp->label == TL_LABEL_ONEOF) {
			/* The member before is cleared (its size of the union),
			 * as parse_oneof_member does. */
			uint32_t was = read_u32(base + fp->qoffset);
			if (was != 0)
				memset(mem, 0, tl_pbdecode_plan_find(m, was)->elt);
			set_value(f, fp, mem, &w, depth);
			write_u32(base + fp->qoffset, w.tag);
			continue;
		}
		set_value(f, fp, mem, &w, depth);
		if (fp->has_flag)
			*(protobuf_c_boolean *)(base + fp->qoffset) = 1;
	}
}

static void fill_flush(struct fill *f)
{
	if (f->nul != NULL)
		*f->nul = '\0';
	f->nul = NULL;
}

/* The batches, on several threads: pass 1 for all of them, then (once
 * everything is known to decode) pass 2. */
struct crew {
	GArray *items;
	size_t *order; /* largest first, so the last to finish are small */
	gint next;
	int pass;
};

struct worker {
	struct crew *crew;
	tl_arena *overflow;
};

static void item_scan(struct item *it)
{
	struct scan s = {.rec = &it->rec};
	it->ok = true;
	for (guint i = 0; i < it->elems->len && it->ok; i++) {
		struct elem *e = &g_array_index(it->elems, struct elem, i);
		it->ok = scan_message(&s, it->plan, e->p, e->len, it->depth, true);
	}
	it->deep = s.deep;
	it->bytes = s.bytes;
}

static void item_fill(struct item *it, tl_arena *overflow)
{
	struct fill f = {.cur = it->region,
			 .end = it->region + it->bytes,
			 .overflow = overflow,
			 .rec = it->rec.v};
	for (guint i = 0; i < it->elems->len; i++) {
		struct elem *e = &g_array_index(it->elems, struct elem, i);
		fill_message(&f, it->plan, e->p, e->len, it->depth, e->msg);
	}
	fill_flush(&f);
}

static void crew_work(struct crew *c, tl_arena *overflow)
{
	for (;;) {
		gint i = g_atomic_int_add(&c->next, 1);
		if (i < 0 || (guint)i >= c->items->len)
			return;
		struct item *it = &g_array_index(c->items, struct item, c->order[i]);
		if (c->pass == 1)
			item_scan(it);
		else
			item_fill(it, overflow);
	}
}

static gpointer crew_thread(gpointer data)
{
	struct worker *w = data;
	crew_work(w->crew, w->overflow);
	return NULL;
}

/* Runs one pass over the batches on up to `threads` threads (this one
 * included); pass 2's helpers allocate what they must from arenas of their
 * own, which `arena` adopts. */
static void crew_run(struct crew *c, int pass, unsigned threads, tl_arena *arena)
{
	c->pass = pass;
	g_atomic_int_set(&c->next, 0);
	GThread *t[MAX_THREADS];
	struct worker w[MAX_THREADS];
	unsigned n = 0;
	while (n + 1 < threads) {
		w[n] = (struct worker){.crew = c, .overflow = pass == 2 ? tl_arena_new() : NULL};
		t[n] = g_thread_try_new("tl-decode", crew_thread, &w[n], NULL);
		if (t[n] == NULL) {
			tl_arena_free(w[n].overflow);
			break;
		}
		n++;
	}
	crew_work(c, arena);
	for (unsigned i = 0; i < n; i++) {
		g_thread_join(t[i]);
		tl_arena_adopt(arena, w[i].overflow);
	}
}

static int by_payload(const void *a, const void *b, void *data)
{
	GArray *items = data;
	const struct item *x = &g_array_index(items, struct item, *(const size_t *)a);
	const struct item *y = &g_array_index(items, struct item, *(const size_t *)b);
	if (x->payload != y->payload)
		return x->payload > y->payload ? -1 : 1;
	return *(const size_t *)a < *(const size_t *)b ? -1 : 1;
}

static void items_free(GArray *items)
{
	if (items == NULL)
		return;
	for (guint i = 0; i < items->len; i++) {
		struct item *it = &g_array_index(items, struct item, i);
		g_array_free(it->elems, TRUE);
		g_free(it->rec.v);
	}
	g_array_free(items, TRUE);
}

static unsigned threads_for(unsigned asked, size_t n_items)
{
	unsigned n = asked ? asked : (unsigned)g_get_num_processors();
	if (n > MAX_THREADS)
		n = MAX_THREADS;
	if (n > n_items)
		n = (unsigned)n_items;
	return n ? n : 1;
}

/* Refused: the nesting error where there is one (the same words, and the
 * same first place, as the check that used to run before protobuf-c),
 * else malformed. */
static int refuse(const ProtobufCMessageDescriptor *desc, const uint8_t *data, size_t len,
		  tl_error *err)
{
	if (tl_pbwire_check_depth(desc, data, len, TL_PBWIRE_MAX_DEPTH, err) < 0)
		return -1;
	tl_error_set(err, "malformed %s (protobuf decoding failed)", desc->short_name);
	return TL_PBDECODE_MALFORMED;
}

int tl_pbdecode(const ProtobufCMessageDescriptor *desc, uint8_t *data, size_t len,
		tl_pbdecode_fields fields, unsigned threads, tl_arena *arena,
		ProtobufCMessage **out, tl_error *err)
{
	const tl_pbdecode_plan *root = tl_pbdecode_plan_get(desc, fields);
	struct u32vec rec = {0};
	struct scan s = {.rec = &rec};
	if (len >= PARALLEL_MIN)
		s.items = g_array_new(FALSE, FALSE, sizeof(struct item));
	bool ok = scan_message(&s, root, data, len, 0, true);
	s.bytes += root->size;
	struct crew crew = {.items = s.items};
	unsigned n_threads = 1;
	if (ok && s.items != NULL && s.items->len > 0) {
		crew.order = g_new(size_t, s.items->len);
		for (guint i = 0; i < s.items->len; i++)
			crew.order[i] = i;
		qsort_r(crew.order, s.items->len, sizeof *crew.order, by_payload, s.items);
		n_threads = threads_for(threads, s.items->len);
		crew_run(&crew, 1, n_threads, arena);
		for (guint i = 0; i < s.items->len && ok; i++)
			ok = g_array_index(s.items, struct item, i).ok;
	}
	if (!ok) {
		g_free(crew.order);
		items_free(s.items);
		g_free(rec.v);
		return refuse(desc, data, len, err);
	}
	size_t total = s.bytes;
	for (guint i = 0; s.items != NULL && i < s.items->len; i++)
		total += g_array_index(s.items, struct item, i).bytes;
	uint8_t *region = tl_arena_alloc(arena, total);
	struct fill f = {.cur = region,
			 .end = region + s.bytes,
			 .overflow = arena,
			 .rec = rec.v,
			 .items = s.items};
	ProtobufCMessage *msg = new_message(&f, root);
	fill_message(&f, root, data, len, 0, msg);
	fill_flush(&f);
	if (s.items != NULL && s.items->len > 0) {
		uint8_t *at = region + s.bytes;
		for (guint i = 0; i < s.items->len; i++) {
			struct item *it = &g_array_index(s.items, struct item, i);
			it->region = at;
			at += it->bytes;
		}
		crew_run(&crew, 2, n_threads, arena);
	}
	g_free(crew.order);
	items_free(s.items);
	g_free(rec.v);
	*out = msg;
	return 0;
}

bool tl_pbdecode_check(const ProtobufCMessageDescriptor *desc, const uint8_t *data, size_t len)
{
	const tl_pbdecode_plan *root = tl_pbdecode_plan_get(desc, TL_PBDECODE_ALL);
	struct scan s = {0};
	/* Pass 1 without storing reads the bytes and writes nothing. */
	return scan_message(&s, root, (uint8_t *)(uintptr_t)data, len, 0, false);
}

static void clear_message(const tl_pbdecode_plan *m, ProtobufCMessage *msg)
{
	uint8_t *base = (uint8_t *)msg;
	msg->n_unknown_fields = 0;
	msg->unknown_fields = NULL;
	for (unsigned i = 0; i < m->desc->n_fields; i++) {
		const tl_pbdecode_plan_field *fp = &m->fields[i];
		uint8_t *mem = base + fp->offset;
		if (fp->skip) {
			if (fp->label == TL_LABEL_REPEATED) {
				*(size_t *)(base + fp->qoffset) = 0;
				*(void **)mem = NULL;
			} else {
				memcpy(mem, (uint8_t *)m->tmpl + fp->offset, fp->elt);
				if (fp->has_flag)
					*(protobuf_c_boolean *)(base + fp->qoffset) = 0;
			}
			continue;
		}
		if (fp->type != PROTOBUF_C_TYPE_MESSAGE)
			continue;
		if (fp->label == TL_LABEL_REPEATED) {
			size_t n = *(size_t *)(base + fp->qoffset);
			for (size_t k = 0; k < n; k++)
				clear_message(fp->sub, (*(ProtobufCMessage ***)mem)[k]);
			continue;
		}
		if (fp->label == TL_LABEL_ONEOF &&
		    read_u32(base + fp->qoffset) != m->desc->fields[i].id)
			continue;
		if (*(ProtobufCMessage **)mem != NULL)
			clear_message(fp->sub, *(ProtobufCMessage **)mem);
	}
}

void tl_pbdecode_clear_skipped(ProtobufCMessage *msg)
{
	clear_message(tl_pbdecode_plan_get(msg->descriptor, TL_PBDECODE_MODEL), msg);
}
