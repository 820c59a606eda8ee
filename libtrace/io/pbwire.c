/*
 * pbwire: decoding side of the binary wire format (the encoders live in
 * pbwire_enc.c). Classification walks the bytes against each candidate
 * schema through protobuf-c's descriptors, so it knows no message by hand.
 */
#include "io/pbwire.h"

#include "base/utf8.h"

#include "tensorflow.pb-c.h"

#include <stdarg.h>
#include <stdio.h>

/* How much of the input the walk looks at. The top level is always walked to
 * the end (that proves the field boundaries line up); below it, only the
 * first few occurrences of each field are entered, at most MAX_DEPTH levels
 * down, and at most WALK_BUDGET fields in all, so a 100 MB dump classifies
 * in milliseconds. */
#define MAX_DEPTH 4
#define ENTER_TOP 16
#define ENTER_DEEP 4
#define WALK_BUDGET (1u << 20)
#define TEXT_CHECK_MAX 1024
#define MAX_TRACKED_FIELDS 64

/* Unknown fields are tolerated (newer TensorFlow adds fields) but a schema
 * that explains the bytes with known fields should win. */
#define UNKNOWN_PENALTY 2

struct walk {
	const uint8_t *base; /* start of the whole input, for byte offsets */
	size_t budget;	     /* fields left to visit below the top level */
	char fail[200];	     /* why the schema does not fit, when it does not */
	size_t fail_at;
	uint64_t past_end; /* field number that ran past the end of input, or 0 */
};

enum { WT_VARINT = 0, WT_FIXED64 = 1, WT_LEN = 2, WT_FIXED32 = 5 };

bool tl_pbwire_varint(const uint8_t *data, size_t len, size_t *pos, uint64_t *out)
{
	uint64_t v = 0;
	size_t p = *pos;
	for (unsigned i = 0; i < 10; i++) {
		if (p >= len)
			return false;
		uint8_t b = data[p++];
		v |= (uint64_t)(b & 0x7f) << (7 * i);
		if ((b & 0x80) == 0) {
			*pos = p;
			*out = v;
			return true;
		}
	}
	return false;
}

static bool walk_fail(struct walk *w, const uint8_t *at, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

static bool walk_fail(struct walk *w, const uint8_t *at, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(w->fail, sizeof w->fail, fmt, ap);
	va_end(ap);
	w->fail_at = (size_t)(at - w->base);
	return false;
}

static unsigned wire_type_of(ProtobufCType type)
{
	switch (type) {
	case PROTOBUF_C_TYPE_SFIXED32:
	case PROTOBUF_C_TYPE_FIXED32:
	case PROTOBUF_C_TYPE_FLOAT:
		return WT_FIXED32;
	case PROTOBUF_C_TYPE_SFIXED64:
	case PROTOBUF_C_TYPE_FIXED64:
	case PROTOBUF_C_TYPE_DOUBLE:
		return WT_FIXED64;
	case PROTOBUF_C_TYPE_STRING:
	case PROTOBUF_C_TYPE_BYTES:
	case PROTOBUF_C_TYPE_MESSAGE:
		return WT_LEN;
	default:
		return WT_VARINT;
	}
}

/* Repeated scalars may come packed (one length-delimited run) whatever the
 * .proto says: parsers must accept both. */
static bool wire_type_fits(const ProtobufCFieldDescriptor *f, unsigned wt)
{
	unsigned want = wire_type_of(f->type);
	if (wt == want)
		return true;
	return wt == WT_LEN && f->label == PROTOBUF_C_LABEL_REPEATED && want != WT_LEN;
}

static bool packed_fits(const ProtobufCFieldDescriptor *f, const uint8_t *v, size_t n)
{
	switch (wire_type_of(f->type)) {
	case WT_FIXED32:
		return n % 4 == 0;
	case WT_FIXED64:
		return n % 8 == 0;
	default:
		/* A run of varints ends with a byte that has no continuation bit. */
		return n == 0 || (v[n - 1] & 0x80) == 0;
	}
}

/* Names, devices and labels are text: valid UTF-8 without control
 * characters other than tab and line breaks. Only a prefix is checked; a
 * character cut by the end of that prefix is fine. */
static bool looks_like_text(const uint8_t *s, size_t n)
{
	bool cut = n > TEXT_CHECK_MAX;
	return tl_utf8_is_text((const char *)s, cut ? TEXT_CHECK_MAX : n, TL_UTF8_TAB_LF_CR, cut);
}

static bool walk_message(struct walk *w, const ProtobufCMessageDescriptor *desc, const uint8_t *p,
			 size_t len, unsigned depth, long *score);

/* Checks the content of one length-delimited known field and adds to the
 * score what it proves. */
static bool walk_len_field(struct walk *w, const ProtobufCFieldDescriptor *f, const uint8_t *at,
			   const uint8_t *v, size_t n, unsigned depth, long *score)
{
	if (wire_type_of(f->type) != WT_LEN) {
		if (!packed_fits(f, v, n))
			return walk_fail(w, at, "field %u at byte %zu is a bad packed list", f->id,
					 (size_t)(at - w->base));
		*score += 1;
		return true;
	}
	switch (f->type) {
	case PROTOBUF_C_TYPE_STRING:
		if (!looks_like_text(v, n))
			return walk_fail(w, at, "field %u at byte %zu is not text", f->id,
					 (size_t)(at - w->base));
		*score += 2; /* a field, and text where text belongs */
		return true;
	case PROTOBUF_C_TYPE_MESSAGE: {
		*score += 1;
		if (depth + 1 > MAX_DEPTH)
			return true;
		long sub = 0;
		if (!walk_message(w, f->descriptor, v, n, depth + 1, &sub))
			return false;
		*score += sub;
		return true;
	}
	default:
		*score += 1;
		return true;
	}
}

/* Reads one field's value by wire type: [*vstart, *vstart + *vlen). */
static bool skip_value(struct walk *w, const uint8_t *p, size_t len, size_t *pos, uint64_t num,
		       unsigned wt, const uint8_t *at, size_t *vstart, size_t *vlen)
{
	uint64_t v;
	size_t here = *pos;
	switch (wt) {
	case WT_VARINT:
		if (!tl_pbwire_varint(p, len, pos, &v))
			return walk_fail(w, at, "field %llu at byte %zu has a bad varint",
					 (unsigned long long)num, (size_t)(at - w->base));
		break;
	case WT_FIXED64:
	case WT_FIXED32: {
		size_t size = wt == WT_FIXED64 ? 8 : 4;
		if (len - here < size && (w->past_end = num) != 0)
			return walk_fail(w, at, "field %llu at byte %zu runs past the end",
					 (unsigned long long)num, (size_t)(at - w->base));
		*pos += size;
		break;
	}
	case WT_LEN:
		if ((!tl_pbwire_varint(p, len, pos, &v) || v > len - *pos) &&
		    (w->past_end = num) != 0)
			return walk_fail(w, at, "field %llu at byte %zu runs past the end",
					 (unsigned long long)num, (size_t)(at - w->base));
		here = *pos;
		*pos += (size_t)v;
		break;
	default:
		/* Groups (3, 4) are unused by these schemas; 6 and 7 do not exist. */
		return walk_fail(w, at, "field %llu at byte %zu has wire type %u",
				 (unsigned long long)num, (size_t)(at - w->base), wt);
	}
	*vstart = here;
	*vlen = *pos - here;
	return true;
}

/* Walks the fields of one message of type `desc`. False when the bytes cannot
 * be that message; otherwise *score says how much of it was explained. */
static bool walk_message(struct walk *w, const ProtobufCMessageDescriptor *desc, const uint8_t *p,
			 size_t len, unsigned depth, long *score)
{
	unsigned char entered[MAX_TRACKED_FIELDS] = {0};
	unsigned enter_max = depth == 0 ? ENTER_TOP : ENTER_DEEP;
	size_t known = 0, unknown = 0;
	const uint8_t *first_unknown = NULL;
	uint64_t first_unknown_num = 0;
	size_t pos = 0;
	while (pos < len) {
		if (depth > 0) {
			if (w->budget == 0)
				return true; /* the rest stays unverified */
			w->budget--;
		}
		const uint8_t *at = p + pos;
		/* keys lie between strings passed over: fetch ahead */
		__builtin_prefetch(at + 1024);
		uint64_t key;
		if (!tl_pbwire_varint(p, len, &pos, &key))
			return walk_fail(w, at, "bad field key at byte %zu",
					 (size_t)(at - w->base));
		uint64_t num = key >> 3;
		unsigned wt = (unsigned)(key & 7);
		if (num == 0 || num > 536870911u) /* protobuf's field numbers: 1 .. 2^29 - 1 */
			return walk_fail(w, at, "field number %llu at byte %zu",
					 (unsigned long long)num, (size_t)(at - w->base));
		size_t vstart = 0, vlen = 0;
		if (!skip_value(w, p, len, &pos, num, wt, at, &vstart, &vlen))
			return false;
		const ProtobufCFieldDescriptor *f =
		    protobuf_c_message_descriptor_get_field(desc, (unsigned)num);
		if (f == NULL) {
			if (unknown++ == 0) {
				first_unknown = at;
				first_unknown_num = num;
			}
			*score -= UNKNOWN_PENALTY;
			continue;
		}
		if (!wire_type_fits(f, wt))
			return walk_fail(w, at, "field %llu at byte %zu has wire type %u",
					 (unsigned long long)num, (size_t)(at - w->base), wt);
		known++;
		size_t idx = (size_t)(f - desc->fields);
		if (idx >= MAX_TRACKED_FIELDS || entered[idx] >= enter_max)
			continue;
		entered[idx]++;
		if (wt != WT_LEN) {
			*score += 1;
			continue;
		}
		if (!walk_len_field(w, f, at, p + vstart, vlen, depth, score))
			return false;
	}
	/* A message made only of unknown fields is garbage read as that type. */
	if (known == 0 && unknown > 0)
		return walk_fail(w, first_unknown, "field %llu at byte %zu is not in %s",
				 (unsigned long long)first_unknown_num,
				 (size_t)(first_unknown - w->base), desc->short_name);
	return true;
}

int tl_pbwire_classify(const uint8_t *data, size_t len, const ProtobufCMessageDescriptor **out,
		       tl_error *err)
{
	/* In order of preference when two fit equally well. */
	const ProtobufCMessageDescriptor *const candidates[] = {
	    &tensorflow__run_metadata__descriptor,
	    &tensorflow__step_stats__descriptor,
	    &tensorflow__graph_def__descriptor,
	};
	if (len == 0)
		return tl_error_set(err, "empty input");
	const ProtobufCMessageDescriptor *best = NULL;
	long best_score = 0;
	struct walk furthest = {.fail_at = 0, .fail = ""};
	bool have_fail = false;
	const ProtobufCMessageDescriptor *truncated = NULL;
	struct walk truncated_walk = {.fail_at = 0, .fail = ""};
	for (size_t i = 0; i < G_N_ELEMENTS(candidates); i++) {
		struct walk w = {.base = data, .budget = WALK_BUDGET};
		long score = 0;
		bool fits = walk_message(&w, candidates[i], data, len, 0, &score);
		if (fits && score <= 0)
			fits = walk_fail(&w, data, "mostly fields unknown to %s",
					 candidates[i]->short_name);
		if (fits) {
			if (best == NULL || score > best_score) {
				best = candidates[i];
				best_score = score;
			}
		} else if (truncated == NULL && w.past_end != 0 &&
			   protobuf_c_message_descriptor_get_field(candidates[i],
								   (unsigned)w.past_end) != NULL) {
			/* A field this schema knows, cut off by the end of the
			 * input: a truncated file rather than another kind. */
			truncated = candidates[i];
			truncated_walk = w;
		}
		if (!fits && (!have_fail || w.fail_at > furthest.fail_at)) {
			/* The schema that got furthest has the most telling complaint. */
			furthest = w;
			have_fail = true;
		}
	}
	if (best == NULL && truncated != NULL)
		return tl_error_set(err, "truncated at byte %zu (expected %s: %s)", len,
				    truncated->short_name, truncated_walk.fail);
	if (best == NULL)
		return tl_error_set(err, "not a RunMetadata, StepStats or GraphDef (%s)",
				    furthest.fail);
	*out = best;
	return 0;
}

bool tl_pbwire_fits(const ProtobufCMessageDescriptor *desc, const uint8_t *data, size_t len,
		    long *score, bool *cut, tl_error *err)
{
	struct walk w = {.base = data, .budget = WALK_BUDGET};
	*score = 0;
	bool fits = walk_message(&w, desc, data, len, 0, score);
	if (cut != NULL)
		*cut = !fits && w.past_end != 0;
	if (!fits)
		tl_error_set(err, "%s", w.fail);
	return fits;
}

/* The nesting check keeps, per open message, its type and where it ends;
 * walking needs no recursion, so the check itself cannot overflow. */
struct open_msg {
	const ProtobufCMessageDescriptor *desc;
	size_t end;
};

int tl_pbwire_check_depth(const ProtobufCMessageDescriptor *desc, const uint8_t *data, size_t len,
			  unsigned max_depth, tl_error *err)
{
	struct open_msg *stack = g_new(struct open_msg, max_depth + 1);
	unsigned depth = 0;
	stack[0] = (struct open_msg){.desc = desc, .end = len};
	size_t pos = 0;
	int rc = 0;
	for (;;) {
		/* Close finished messages; a malformed one is abandoned here and
		 * left for protobuf-c to report. */
		while (pos >= stack[depth].end) {
			pos = stack[depth].end;
			if (depth == 0)
				goto done;
			depth--;
		}
		size_t end = stack[depth].end;
		size_t at = pos;
		uint64_t key, v;
		if (!tl_pbwire_varint(data, end, &pos, &key)) {
			pos = end;
			continue;
		}
		unsigned wt = (unsigned)(key & 7);
		switch (wt) {
		case WT_VARINT:
			if (!tl_pbwire_varint(data, end, &pos, &v))
				pos = end;
			continue;
		case WT_FIXED64:
			pos = end - pos < 8 ? end : pos + 8;
			continue;
		case WT_FIXED32:
			pos = end - pos < 4 ? end : pos + 4;
			continue;
		case WT_LEN:
			break;
		default:
			pos = end;
			continue;
		}
		if (!tl_pbwire_varint(data, end, &pos, &v) || v > end - pos) {
			pos = end;
			continue;
		}
		const ProtobufCFieldDescriptor *f = NULL;
		if (key >> 3 <= UINT32_MAX)
			f = protobuf_c_message_descriptor_get_field(stack[depth].desc,
								    (unsigned)(key >> 3));
		if (f == NULL || f->type != PROTOBUF_C_TYPE_MESSAGE) {
			pos += (size_t)v;
			continue;
		}
		if (depth + 1 > max_depth) {
			rc = tl_error_set(
			    err,
			    "messages nested deeper than %u levels at byte %zu "
			    "(%s in %s)",
			    max_depth, at,
			    ((const ProtobufCMessageDescriptor *)f->descriptor)->short_name,
			    stack[depth].desc->short_name);
			goto done;
		}
		depth++;
		stack[depth] = (struct open_msg){.desc = f->descriptor, .end = pos + (size_t)v};
	}
done:
	g_free(stack);
	return rc;
}

size_t tl_pbwire_elt_size(ProtobufCType type)
{
	switch (type) {
	case PROTOBUF_C_TYPE_INT32:
	case PROTOBUF_C_TYPE_SINT32:
	case PROTOBUF_C_TYPE_SFIXED32:
	case PROTOBUF_C_TYPE_UINT32:
	case PROTOBUF_C_TYPE_FIXED32:
	case PROTOBUF_C_TYPE_FLOAT:
	case PROTOBUF_C_TYPE_ENUM:
		return 4;
	case PROTOBUF_C_TYPE_INT64:
	case PROTOBUF_C_TYPE_SINT64:
	case PROTOBUF_C_TYPE_SFIXED64:
	case PROTOBUF_C_TYPE_UINT64:
	case PROTOBUF_C_TYPE_FIXED64:
	case PROTOBUF_C_TYPE_DOUBLE:
		return 8;
	case PROTOBUF_C_TYPE_BOOL:
		return sizeof(protobuf_c_boolean);
	case PROTOBUF_C_TYPE_STRING:
	case PROTOBUF_C_TYPE_MESSAGE:
		return sizeof(void *);
	case PROTOBUF_C_TYPE_BYTES:
		return sizeof(ProtobufCBinaryData);
	}
	return 0;
}
