/*
 * pbtext_print: protobuf messages printed as text the way Python's
 * str(message) writes them, for the tests: trace-gen writes its text dumps
 * with it, the unit tests and the text fuzzer read what it prints back
 * through the library's reader (io/pbtext.h). No tool prints text format,
 * so it lives here, not in the library.
 */
#include "pbtext_print.h"

#include "io/pbtext.h"
#include "io/pbwire.h"

#include <inttypes.h>
#include <math.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void put_indent(GString *out, int indent)
{
	static const char spaces[] = "                                ";
	while (indent > 0) {
		int n = indent < (int)sizeof spaces - 1 ? indent : (int)sizeof spaces - 1;
		g_string_append_len(out, spaces, n);
		indent -= n;
	}
}

/* C escapes with octal for bytes outside printable ASCII (text_format's
 * CEscape with as_utf8=False). */
static void put_escaped(GString *out, const uint8_t *s, size_t n)
{
	g_string_append_c(out, '"');
	for (size_t i = 0; i < n; i++) {
		uint8_t c = s[i];
		switch (c) {
		case '\n':
			g_string_append(out, "\\n");
			break;
		case '\r':
			g_string_append(out, "\\r");
			break;
		case '\t':
			g_string_append(out, "\\t");
			break;
		case '"':
			g_string_append(out, "\\\"");
			break;
		case '\'':
			g_string_append(out, "\\'");
			break;
		case '\\':
			g_string_append(out, "\\\\");
			break;
		default:
			if (c < 0x20 || c >= 0x7f)
				g_string_append_printf(out, "\\%03o", c);
			else
				g_string_append_c(out, (char)c);
			break;
		}
	}
	g_string_append_c(out, '"');
}

/* Python's repr(float): the shortest digits that read back to the same
 * double, positional when the exponent is in [-4, 16), else d.ddde+XX. */
static void put_double(GString *out, double v)
{
	if (isnan(v)) {
		g_string_append(out, "nan");
		return;
	}
	if (isinf(v)) {
		g_string_append(out, v < 0 ? "-inf" : "inf");
		return;
	}
	if (v == 0) {
		g_string_append(out, signbit(v) ? "-0.0" : "0.0");
		return;
	}
	char buf[48];
	for (int prec = 1; prec <= 17; prec++) {
		snprintf(buf, sizeof buf, "%.*e", prec - 1, v);
		if (strtod(buf, NULL) == v)
			break;
	}
	const char *s = buf;
	if (*s == '-') {
		g_string_append_c(out, '-');
		s++;
	}
	char digits[24];
	int nd = 0;
	for (; *s != '\0' && *s != 'e' && nd < (int)sizeof digits; s++) {
		if (*s != '.')
			digits[nd++] = *s;
	}
	int exp10 = *s == 'e' ? atoi(s + 1) : 0;
	while (nd > 1 && digits[nd - 1] == '0')
		nd--;
	if (exp10 < -4 || exp10 >= 16) {
		g_string_append_c(out, digits[0]);
		if (nd > 1) {
			g_string_append_c(out, '.');
			g_string_append_len(out, digits + 1, nd - 1);
		}
		g_string_append_printf(out, "e%c%02d", exp10 < 0 ? '-' : '+', abs(exp10));
	} else if (exp10 >= 0) {
		for (int i = 0; i <= exp10; i++)
			g_string_append_c(out, i < nd ? digits[i] : '0');
		g_string_append_c(out, '.');
		if (nd > exp10 + 1)
			g_string_append_len(out, digits + exp10 + 1, nd - exp10 - 1);
		else
			g_string_append_c(out, '0');
	} else {
		g_string_append(out, "0.");
		for (int i = 0; i < -exp10 - 1; i++)
			g_string_append_c(out, '0');
		g_string_append_len(out, digits, nd);
	}
}

/* Python prints a float field as the double of the shortest %g (from 6
 * digits up) that rounds back to the same float. */
static void put_float(GString *out, float f)
{
	double r = f;
	if (!isnan(f) && !isinf(f)) {
		char buf[48];
		for (int prec = 6; prec <= 17; prec++) {
			snprintf(buf, sizeof buf, "%.*g", prec, (double)f);
			r = strtod(buf, NULL);
			if (tl_pbtext_round_float(r) == f)
				break;
		}
	}
	put_double(out, r);
}

static void print_body(const ProtobufCMessage *msg, GString *out, int indent);

static void print_value(GString *out, const ProtobufCFieldDescriptor *f, const void *p, int indent)
{
	put_indent(out, indent);
	g_string_append(out, f->name);
	if (f->type == PROTOBUF_C_TYPE_MESSAGE) {
		const ProtobufCMessage *sub = *(const ProtobufCMessage *const *)p;
		g_string_append(out, " {\n");
		if (sub != NULL)
			print_body(sub, out, indent + 2);
		put_indent(out, indent);
		g_string_append(out, "}\n");
		return;
	}
	g_string_append(out, ": ");
	switch (f->type) {
	case PROTOBUF_C_TYPE_INT32:
	case PROTOBUF_C_TYPE_SINT32:
	case PROTOBUF_C_TYPE_SFIXED32:
		g_string_append_printf(out, "%" PRId32, *(const int32_t *)p);
		break;
	case PROTOBUF_C_TYPE_UINT32:
	case PROTOBUF_C_TYPE_FIXED32:
		g_string_append_printf(out, "%" PRIu32, *(const uint32_t *)p);
		break;
	case PROTOBUF_C_TYPE_INT64:
	case PROTOBUF_C_TYPE_SINT64:
	case PROTOBUF_C_TYPE_SFIXED64:
		g_string_append_printf(out, "%" PRId64, *(const int64_t *)p);
		break;
	case PROTOBUF_C_TYPE_UINT64:
	case PROTOBUF_C_TYPE_FIXED64:
		g_string_append_printf(out, "%" PRIu64, *(const uint64_t *)p);
		break;
	case PROTOBUF_C_TYPE_FLOAT:
		put_float(out, *(const float *)p);
		break;
	case PROTOBUF_C_TYPE_DOUBLE:
		put_double(out, *(const double *)p);
		break;
	case PROTOBUF_C_TYPE_BOOL:
		g_string_append(out, *(const protobuf_c_boolean *)p ? "true" : "false");
		break;
	case PROTOBUF_C_TYPE_ENUM: {
		int32_t v = *(const int32_t *)p;
		const ProtobufCEnumValue *ev =
		    protobuf_c_enum_descriptor_get_value(f->descriptor, v);
		if (ev != NULL)
			g_string_append(out, ev->name);
		else
			g_string_append_printf(out, "%" PRId32, v);
		break;
	}
	case PROTOBUF_C_TYPE_STRING: {
		const char *s = *(const char *const *)p;
		put_escaped(out, (const uint8_t *)(s != NULL ? s : ""), s != NULL ? strlen(s) : 0);
		break;
	}
	case PROTOBUF_C_TYPE_BYTES: {
		const ProtobufCBinaryData *b = p;
		put_escaped(out, b->data, b->len);
		break;
	}
	case PROTOBUF_C_TYPE_MESSAGE:
		break;
	}
	g_string_append_c(out, '\n');
}

/* Whether a singular field is printed: set oneof members and non-NULL
 * messages always, proto3 scalars only when not zero. */
static bool field_present(const ProtobufCMessage *msg, const ProtobufCFieldDescriptor *f)
{
	const char *base = (const char *)msg;
	const void *p = base + f->offset;
	if (f->flags & PROTOBUF_C_FIELD_FLAG_ONEOF)
		return *(const uint32_t *)(base + f->quantifier_offset) == f->id;
	if (f->type == PROTOBUF_C_TYPE_MESSAGE)
		return *(const void *const *)p != NULL;
	if (f->label == PROTOBUF_C_LABEL_REQUIRED)
		return true;
	if (f->type == PROTOBUF_C_TYPE_STRING) {
		const char *s = *(const char *const *)p;
		if (f->label == PROTOBUF_C_LABEL_OPTIONAL)
			return s != NULL && (f->default_value == NULL ||
					     s != *(const char *const *)f->default_value);
		return s != NULL && s[0] != '\0';
	}
	if (f->label == PROTOBUF_C_LABEL_OPTIONAL)
		return *(const protobuf_c_boolean *)(base + f->quantifier_offset);
	if (f->type == PROTOBUF_C_TYPE_BYTES)
		return ((const ProtobufCBinaryData *)p)->len > 0;
	static const uint8_t zero[8];
	return memcmp(p, zero, tl_pbwire_elt_size(f->type)) != 0;
}

/* protoc's map<K, V>: a repeated XxxEntry message with key = 1, value = 2. */
static bool is_map_field(const ProtobufCFieldDescriptor *f)
{
	if (f->type != PROTOBUF_C_TYPE_MESSAGE || f->label != PROTOBUF_C_LABEL_REPEATED)
		return false;
	const ProtobufCMessageDescriptor *d = f->descriptor;
	return d->n_fields == 2 && d->fields[0].id == 1 && d->fields[1].id == 2 &&
	       strcmp(d->fields[0].name, "key") == 0 && strcmp(d->fields[1].name, "value") == 0 &&
	       g_str_has_suffix(d->short_name, "Entry");
}

struct map_item {
	const ProtobufCMessage *entry;
	size_t index;
};

static int compare_map_keys(const ProtobufCMessage *a, const ProtobufCMessage *b)
{
	const ProtobufCFieldDescriptor *k = &a->descriptor->fields[0];
	const void *pa = (const char *)a + k->offset;
	const void *pb = (const char *)b + k->offset;
	switch (k->type) {
	case PROTOBUF_C_TYPE_STRING: {
		const char *sa = *(const char *const *)pa;
		const char *sb = *(const char *const *)pb;
		return strcmp(sa != NULL ? sa : "", sb != NULL ? sb : "");
	}
	case PROTOBUF_C_TYPE_INT32:
	case PROTOBUF_C_TYPE_SINT32:
	case PROTOBUF_C_TYPE_SFIXED32: {
		int32_t x = *(const int32_t *)pa, y = *(const int32_t *)pb;
		return (x > y) - (x < y);
	}
	case PROTOBUF_C_TYPE_INT64:
	case PROTOBUF_C_TYPE_SINT64:
	case PROTOBUF_C_TYPE_SFIXED64: {
		int64_t x = *(const int64_t *)pa, y = *(const int64_t *)pb;
		return (x > y) - (x < y);
	}
	case PROTOBUF_C_TYPE_UINT64:
	case PROTOBUF_C_TYPE_FIXED64: {
		uint64_t x = *(const uint64_t *)pa, y = *(const uint64_t *)pb;
		return (x > y) - (x < y);
	}
	case PROTOBUF_C_TYPE_BOOL: {
		int x = *(const protobuf_c_boolean *)pa != 0,
		    y = *(const protobuf_c_boolean *)pb != 0;
		return x - y;
	}
	default: {
		uint32_t x = *(const uint32_t *)pa, y = *(const uint32_t *)pb;
		return (x > y) - (x < y);
	}
	}
}

static int compare_map_items(const void *a, const void *b)
{
	const struct map_item *x = a, *y = b;
	int c = compare_map_keys(x->entry, y->entry);
	if (c != 0)
		return c;
	return (x->index > y->index) - (x->index < y->index);
}

/* Python prints a map sorted by key, one entry per key (the last one read),
 * and the value of an entry even when it is an empty message. */
static void print_map(GString *out, const ProtobufCFieldDescriptor *f,
		      const ProtobufCMessage *const *entries, size_t n, int indent)
{
	struct map_item *items = g_new(struct map_item, n);
	for (size_t i = 0; i < n; i++) {
		items[i].entry = entries[i];
		items[i].index = i;
	}
	qsort(items, n, sizeof *items, compare_map_items);
	const ProtobufCFieldDescriptor *value =
	    &((const ProtobufCMessageDescriptor *)f->descriptor)->fields[1];
	for (size_t i = 0; i < n; i++) {
		if (i + 1 < n && compare_map_keys(items[i].entry, items[i + 1].entry) == 0)
			continue;
		const ProtobufCMessage *e = items[i].entry;
		put_indent(out, indent);
		g_string_append(out, f->name);
		g_string_append(out, " {\n");
		print_body(e, out, indent + 2);
		if (value->type == PROTOBUF_C_TYPE_MESSAGE &&
		    *(const void *const *)((const char *)e + value->offset) == NULL) {
			put_indent(out, indent + 2);
			g_string_append(out, "value {\n");
			put_indent(out, indent + 2);
			g_string_append(out, "}\n");
		}
		put_indent(out, indent);
		g_string_append(out, "}\n");
	}
	g_free(items);
}

static void print_body(const ProtobufCMessage *msg, GString *out, int indent)
{
	const ProtobufCMessageDescriptor *d = msg->descriptor;
	const char *base = (const char *)msg;
	for (unsigned i = 0; i < d->n_fields; i++) {
		const ProtobufCFieldDescriptor *f = &d->fields[i];
		if (f->label != PROTOBUF_C_LABEL_REPEATED) {
			if (field_present(msg, f))
				print_value(out, f, base + f->offset, indent);
			continue;
		}
		size_t n = *(const size_t *)(base + f->quantifier_offset);
		const char *array = *(const char *const *)(base + f->offset);
		if (n == 0)
			continue;
		if (is_map_field(f)) {
			print_map(out, f, (const ProtobufCMessage *const *)array, n, indent);
			continue;
		}
		size_t size = tl_pbwire_elt_size(f->type);
		for (size_t j = 0; j < n; j++)
			print_value(out, f, array + j * size, indent);
	}
}

void tl_pbtext_print(const ProtobufCMessage *msg, GString *out)
{
	print_body(msg, out, 0);
}
