/*
 * pbdecode_plan: the plans, built from protobuf-c's descriptors, and what
 * TL_PBDECODE_MODEL leaves out.
 */
#include "io/pbdecode_plan.h"

#include "io/pbdecode_internal.h"
#include "io/pbwire.h"
#include "tensorflow.pb-c.h"

#include <glib.h>
#include <stdbool.h>
#include <string.h>

/* What TL_PBDECODE_MODEL leaves out: fields no module of the library and no
 * tool reads (a build against a header with these members renamed compiles;
 * pbtext and the RunMetadata writer of trace-merge read everything and take
 * TL_PBDECODE_ALL). None is a oneof member: a oneof's case must stay
 * truthful. */
static const struct {
	const ProtobufCMessageDescriptor *desc;
	const char *field;
} model_skips[] = {
    {&tensorflow__run_metadata__descriptor, "cost_graph"},
    {&tensorflow__run_metadata__descriptor, "function_graphs"},
    {&tensorflow__run_metadata__descriptor, "session_metadata"},
    {&tensorflow__graph_def__descriptor, "versions"},
    {&tensorflow__graph_def__descriptor, "version"},
    {&tensorflow__graph_def__descriptor, "library"},
    /* a Const's value: its dtype and shape are read, not its contents */
    {&tensorflow__tensor_proto__descriptor, "version_number"},
    {&tensorflow__tensor_proto__descriptor, "tensor_content"},
    {&tensorflow__tensor_proto__descriptor, "half_val"},
    {&tensorflow__tensor_proto__descriptor, "float_val"},
    {&tensorflow__tensor_proto__descriptor, "double_val"},
    {&tensorflow__tensor_proto__descriptor, "int_val"},
    {&tensorflow__tensor_proto__descriptor, "string_val"},
    {&tensorflow__tensor_proto__descriptor, "scomplex_val"},
    {&tensorflow__tensor_proto__descriptor, "int64_val"},
    {&tensorflow__tensor_proto__descriptor, "bool_val"},
    {&tensorflow__tensor_proto__descriptor, "dcomplex_val"},
    {&tensorflow__tensor_proto__descriptor, "resource_handle_val"},
    {&tensorflow__tensor_proto__descriptor, "uint32_val"},
    {&tensorflow__tensor_proto__descriptor, "uint64_val"},
    /* list attributes: only _output_shapes' shapes are read */
    {&tensorflow__attr_value__list_value__descriptor, "s"},
    {&tensorflow__attr_value__list_value__descriptor, "i"},
    {&tensorflow__attr_value__list_value__descriptor, "f"},
    {&tensorflow__attr_value__list_value__descriptor, "b"},
    {&tensorflow__attr_value__list_value__descriptor, "type"},
    {&tensorflow__attr_value__list_value__descriptor, "tensor"},
    {&tensorflow__attr_value__list_value__descriptor, "func"},
};

/* Plans, built on first use per (descriptor, fields) and kept for the life
 * of the process; the lock makes the first use safe from any thread. */
static GMutex plans_lock;
static GHashTable *plans[2];

static bool is_skipped(const ProtobufCMessageDescriptor *d, const ProtobufCFieldDescriptor *fd)
{
	for (size_t i = 0; i < G_N_ELEMENTS(model_skips); i++)
		if (model_skips[i].desc == d && strcmp(model_skips[i].field, fd->name) == 0)
			return true;
	return false;
}

static const tl_pbdecode_plan *plan_build(GHashTable *table, const ProtobufCMessageDescriptor *d,
					  tl_pbdecode_fields fields)
{
	tl_pbdecode_plan *m = g_hash_table_lookup(table, d);
	if (m != NULL)
		return m;
	m = g_new0(tl_pbdecode_plan, 1);
	g_hash_table_insert(table, (gpointer)d,
			    m); /* before the fields: types refer to themselves */
	m->desc = d;
	m->size = (d->sizeof_message + 7) & ~(size_t)7;
	m->tmpl = g_malloc0(m->size);
	protobuf_c_message_init(d, m->tmpl);
	uint32_t max_id = 0;
	for (unsigned i = 0; i < d->n_fields; i++)
		if (d->fields[i].id > max_id)
			max_id = d->fields[i].id;
	g_assert(max_id < 4096);
	m->n_ids = max_id + 1;
	m->by_id = g_new(int16_t, m->n_ids);
	for (uint32_t i = 0; i < m->n_ids; i++)
		m->by_id[i] = -1;
	m->fields = g_new0(tl_pbdecode_plan_field, d->n_fields ? d->n_fields : 1);
	for (unsigned i = 0; i < d->n_fields; i++) {
		const ProtobufCFieldDescriptor *fd = &d->fields[i];
		tl_pbdecode_plan_field *f = &m->fields[i];
		g_assert(fd->label != PROTOBUF_C_LABEL_REQUIRED); /* proto3 schema */
		m->by_id[fd->id] = (int16_t)i;
		f->offset = fd->offset;
		f->qoffset = fd->quantifier_offset;
		f->type = (uint8_t)fd->type;
		if (fd->label == PROTOBUF_C_LABEL_REPEATED)
			f->label = TL_LABEL_REPEATED;
		else if (fd->flags & PROTOBUF_C_FIELD_FLAG_ONEOF)
			f->label = TL_LABEL_ONEOF;
		else
			f->label = TL_LABEL_SINGLE;
		f->has_flag = f->label == TL_LABEL_SINGLE &&
			      fd->label == PROTOBUF_C_LABEL_OPTIONAL && fd->quantifier_offset != 0;
		f->want = tl_pbdecode_wire_type(fd->type);
		f->packable = fd->type != PROTOBUF_C_TYPE_STRING &&
			      fd->type != PROTOBUF_C_TYPE_BYTES &&
			      fd->type != PROTOBUF_C_TYPE_MESSAGE;
		f->elt = (uint8_t)tl_pbwire_elt_size(fd->type);
		f->skip = fields == TL_PBDECODE_MODEL && is_skipped(d, fd);
		g_assert(!(f->skip && f->label == TL_LABEL_ONEOF));
		if (f->label == TL_LABEL_REPEATED && !f->skip) {
			g_assert(m->n_counted < TL_PBDECODE_MAX_COUNTED);
			f->slot = (uint8_t)m->n_counted;
			m->counted[m->n_counted++] = (uint8_t)i;
		}
		if (f->label == TL_LABEL_ONEOF) {
			unsigned g = 0;
			while (d->fields[g].quantifier_offset != fd->quantifier_offset)
				g++;
			f->group = (uint8_t)g;
			/* Empty bytes and strings whose default is not NULL stay
			 * behind (see merge_messages). */
			f->movable =
			    fd->type != PROTOBUF_C_TYPE_STRING || fd->default_value == NULL;
		}
		if (fd->type == PROTOBUF_C_TYPE_MESSAGE)
			f->sub = plan_build(table, fd->descriptor, fields);
	}
	g_assert(d->n_fields <= 64); /* the merge check's bit set */
	m->keep_unknown = fields == TL_PBDECODE_ALL;
	if (m->keep_unknown) {
		g_assert(m->n_counted < TL_PBDECODE_MAX_COUNTED);
		m->unknown_slot = (uint8_t)m->n_counted++;
	}
	/* Every skipped field was found: a renamed field must not be kept
	 * silently. */
	return m;
}

static void plans_check_skips(void)
{
	for (size_t i = 0; i < G_N_ELEMENTS(model_skips); i++)
		g_assert(protobuf_c_message_descriptor_get_field_by_name(model_skips[i].desc,
									 model_skips[i].field));
}

const tl_pbdecode_plan *tl_pbdecode_plan_get(const ProtobufCMessageDescriptor *d,
					     tl_pbdecode_fields fields)
{
	g_mutex_lock(&plans_lock);
	if (plans[fields] == NULL) {
		plans_check_skips();
		plans[fields] = g_hash_table_new(g_direct_hash, g_direct_equal);
	}
	const tl_pbdecode_plan *m = plan_build(plans[fields], d, fields);
	g_mutex_unlock(&plans_lock);
	return m;
}
