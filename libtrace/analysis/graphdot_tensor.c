/* graphdot_tensor: the tensor on an output of a graph node (dtype, shape,
 * bytes), from what an execution recorded or what the NodeDef says. The
 * edges' bytes (width) and labels (dtype and shape) come from here. */
#include "analysis/graphdot_picture.h"

#include "model/shape.h"

#include <string.h>

const char *tl_graphdot_tensor_dtype(int dt)
{
	const ProtobufCEnumValue *v =
	    protobuf_c_enum_descriptor_get_value(&tensorflow__data_type__descriptor, dt);
	if (v == NULL || dt == 0)
		return NULL;
	return strncmp(v->name, "DT_", 3) == 0 ? v->name + 3 : v->name;
}

static int dtype_size(int dt)
{
	if (dt > 100)
		dt -= 100;
	switch (dt) {
	case TENSORFLOW__DATA_TYPE__DT_UINT8:
	case TENSORFLOW__DATA_TYPE__DT_INT8:
	case TENSORFLOW__DATA_TYPE__DT_BOOL:
	case TENSORFLOW__DATA_TYPE__DT_QINT8:
	case TENSORFLOW__DATA_TYPE__DT_QUINT8:
	case TENSORFLOW__DATA_TYPE__DT_FLOAT8_E5M2:
	case TENSORFLOW__DATA_TYPE__DT_FLOAT8_E4M3FN:
	case TENSORFLOW__DATA_TYPE__DT_FLOAT8_E4M3FNUZ:
	case TENSORFLOW__DATA_TYPE__DT_FLOAT8_E4M3B11FNUZ:
	case TENSORFLOW__DATA_TYPE__DT_FLOAT8_E5M2FNUZ:
		return 1;
	case TENSORFLOW__DATA_TYPE__DT_INT16:
	case TENSORFLOW__DATA_TYPE__DT_BFLOAT16:
	case TENSORFLOW__DATA_TYPE__DT_QINT16:
	case TENSORFLOW__DATA_TYPE__DT_QUINT16:
	case TENSORFLOW__DATA_TYPE__DT_UINT16:
	case TENSORFLOW__DATA_TYPE__DT_HALF:
		return 2;
	case TENSORFLOW__DATA_TYPE__DT_FLOAT:
	case TENSORFLOW__DATA_TYPE__DT_INT32:
	case TENSORFLOW__DATA_TYPE__DT_QINT32:
	case TENSORFLOW__DATA_TYPE__DT_UINT32:
		return 4;
	case TENSORFLOW__DATA_TYPE__DT_DOUBLE:
	case TENSORFLOW__DATA_TYPE__DT_INT64:
	case TENSORFLOW__DATA_TYPE__DT_UINT64:
	case TENSORFLOW__DATA_TYPE__DT_COMPLEX64:
		return 8;
	case TENSORFLOW__DATA_TYPE__DT_COMPLEX128:
		return 16;
	default:
		return 0;
	}
}

static const Tensorflow__AttrValue *node_attr(const Tensorflow__NodeDef *def, const char *key)
{
	for (size_t i = 0; i < def->n_attr; i++)
		if (def->attr[i]->key != NULL && strcmp(def->attr[i]->key, key) == 0)
			return def->attr[i]->value;
	return NULL;
}

static bool is_predicate(const char *op)
{
	static const char *const ops[] = {"Equal",   "NotEqual",     "Less",	  "LessEqual",
					  "Greater", "GreaterEqual", "IsFinite",  "IsNan",
					  "IsInf",   "LogicalAnd",   "LogicalOr", "LogicalNot"};
	for (size_t i = 0; i < G_N_ELEMENTS(ops); i++)
		if (strcmp(op, ops[i]) == 0)
			return true;
	return false;
}

/* What the NodeDef says about output `port`: _output_shapes, else for a
 * single-output node its shape or value attr; the dtype from the usual
 * attrs. */
static void tensor_from_def(const tl_gnode *n, int32_t slot, tl_graphdot_tensor *t)
{
	const Tensorflow__NodeDef *def = n->def;
	const Tensorflow__AttrValue *a = node_attr(def, "_output_shapes");
	if (a != NULL && a->value_case == TENSORFLOW__ATTR_VALUE__VALUE_LIST &&
	    (size_t)slot < a->list->n_shape)
		t->shape = a->list->shape[slot];
	if (t->shape == NULL && slot == 0) {
		a = node_attr(def, "value");
		if (a != NULL && a->value_case == TENSORFLOW__ATTR_VALUE__VALUE_TENSOR &&
		    a->tensor->tensor_shape != NULL)
			t->shape = a->tensor->tensor_shape;
		a = node_attr(def, "shape");
		if (t->shape == NULL && a != NULL &&
		    a->value_case == TENSORFLOW__ATTR_VALUE__VALUE_SHAPE)
			t->shape = a->shape;
	}
	if (is_predicate(n->op)) {
		t->dtype = TENSORFLOW__DATA_TYPE__DT_BOOL;
	} else {
		static const char *const keys[] = {"out_type", "output_type", "DstT", "dtype", "T"};
		for (size_t i = 0; i < G_N_ELEMENTS(keys) && t->dtype == 0; i++) {
			a = node_attr(def, keys[i]);
			if (a != NULL && a->value_case == TENSORFLOW__ATTR_VALUE__VALUE_TYPE)
				t->dtype = (int)a->type;
		}
	}
	if (t->shape != NULL && !t->shape->unknown_rank && dtype_size(t->dtype) > 0) {
		int64_t count = 1;
		for (size_t d = 0; d < t->shape->n_dim; d++) {
			int64_t size = t->shape->dim[d]->size;
			if (size < 0 || (size > 0 && count > INT64_MAX / size)) {
				count = -1;
				break;
			}
			count *= size;
		}
		if (count >= 0 && count <= INT64_MAX / 16)
			t->bytes = count * dtype_size(t->dtype);
	}
}

tl_graphdot_tensor tl_graphdot_tensor_of(const tl_run *run, uint32_t node, int32_t slot)
{
	tl_graphdot_tensor t = {0};
	const tl_gnode *n = &run->nodes[node];
	if (slot < 0)
		return t;
	if (n->n_exec > 0) {
		const Tensorflow__NodeExecStats *ns = run->execs[run->node_execs[n->first_exec]].ns;
		for (size_t k = 0; k < ns->n_output; k++) {
			const Tensorflow__NodeOutput *o = ns->output[k];
			if (o->slot != slot || o->tensor_description == NULL)
				continue;
			const Tensorflow__TensorDescription *d = o->tensor_description;
			t.dtype = (int)d->dtype;
			t.shape = d->shape;
			if (d->allocation_description != NULL) {
				t.bytes = d->allocation_description->requested_bytes;
				if (t.bytes <= 0)
					t.bytes = d->allocation_description->allocated_bytes;
				if (t.bytes < 0)
					t.bytes = 0;
			}
			return t;
		}
	}
	tensor_from_def(n, slot, &t);
	return t;
}

/* "float [32x56x56x256]", "int32 scalar" */
void tl_graphdot_tensor_text(GString *s, const tl_graphdot_tensor *t)
{
	const char *dt = tl_graphdot_tensor_dtype(t->dtype);
	if (dt != NULL) {
		for (const char *p = dt; *p != '\0'; p++)
			g_string_append_c(s, g_ascii_tolower(*p));
	}
	if (t->shape == NULL)
		return;
	if (dt != NULL)
		g_string_append_c(s, ' ');
	bool dims = !t->shape->unknown_rank && t->shape->n_dim > 0;
	if (dims)
		g_string_append_c(s, '[');
	tl_shape_append(s, t->shape, TL_SHAPE_SCALAR | TL_SHAPE_QUERY);
	if (dims)
		g_string_append_c(s, ']');
}
