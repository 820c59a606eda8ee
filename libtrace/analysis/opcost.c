#include "analysis/opcost.h"

#include "model/shape.h"

#include <glib.h>
#include <string.h>

double tl_opcost_elements(const Tensorflow__TensorShapeProto *sh)
{
	if (sh == NULL || sh->unknown_rank)
		return 0;
	double n = 1;
	for (size_t i = 0; i < sh->n_dim; i++)
		n *= sh->dim[i]->size > 0 ? (double)sh->dim[i]->size : 0;
	/* no tensor holds more (and the float ops built on it stay finite) */
	return n < 9.2e18 ? n : 9.2e18;
}

char *tl_opcost_shape_string(const Tensorflow__TensorShapeProto *sh)
{
	if (sh == NULL)
		return NULL;
	GString *s = g_string_new(NULL);
	tl_shape_append(s, sh, 0);
	return g_string_free(s, FALSE);
}

static const Tensorflow__TensorShapeProto *attr_shape(const Tensorflow__NodeDef *def,
						      const char *key)
{
	for (size_t i = 0; def != NULL && i < def->n_attr; i++) {
		const Tensorflow__AttrValue *v = def->attr[i]->value;
		if (def->attr[i]->key != NULL && strcmp(def->attr[i]->key, key) == 0 && v != NULL &&
		    v->value_case == TENSORFLOW__ATTR_VALUE__VALUE_SHAPE)
			return v->shape;
	}
	return NULL;
}

bool tl_opcost_op_in(const char *op, const char *const *ops, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (op[0] == ops[i][0] && strcmp(op, ops[i]) == 0)
			return true;
	return false;
}

bool tl_opcost_is_variable(const char *op)
{
	static const char *const ops[] = {"VariableV2", "Variable", "VarHandleOp"};
	return tl_opcost_op_in(op, ops, G_N_ELEMENTS(ops));
}

const Tensorflow__TensorShapeProto *tl_opcost_exec_shape(const tl_exec *e, int32_t slot)
{
	for (size_t k = 0; k < e->ns->n_output; k++)
		if (e->ns->output[k]->slot == slot && e->ns->output[k]->tensor_description != NULL)
			return e->ns->output[k]->tensor_description->shape;
	return NULL;
}

/* Shape of data input `port` of an execution, from its producer's outputs. */
static const Tensorflow__TensorShapeProto *input_shape(const tl_run *run, uint32_t x, int32_t port)
{
	const tl_exec *e = &run->execs[x];
	if (e->gnode < 0)
		return NULL;
	uint32_t n = (uint32_t)e->gnode;
	for (uint32_t k = run->in_first[n]; k < run->in_first[n + 1]; k++) {
		const tl_edge *edge = &run->edges[k];
		if (edge->kind != TL_EDGE_DATA || edge->dst_port != port)
			continue;
		const tl_gnode *src = &run->nodes[edge->src];
		for (uint32_t i = 0; i < src->n_exec; i++) {
			const Tensorflow__TensorShapeProto *sh = tl_opcost_exec_shape(
			    &run->execs[run->node_execs[src->first_exec + i]], edge->src_port);
			if (sh != NULL)
				return sh;
		}
		/* a variable's declared shape */
		return attr_shape(src->def, "shape");
	}
	return NULL;
}

static bool is_elementwise(const char *op)
{
	static const char *const ops[] = {
	    "Add",	   "AddV2", "Sub",     "Mul",	  "Div",     "RealDiv",	 "BiasAdd",
	    "Relu",	   "Relu6", "Tanh",    "Sigmoid", "Neg",     "Square",	 "Sqrt",
	    "Rsqrt",	   "Exp",   "Log",     "Maximum", "Minimum", "ReluGrad", "TanhGrad",
	    "SigmoidGrad", "AddN",  "Softmax", "Pow"};
	return tl_opcost_op_in(op, ops, G_N_ELEMENTS(ops));
}

double tl_opcost_float_ops_of(const char *op, const Tensorflow__TensorShapeProto *out,
			      const Tensorflow__TensorShapeProto *in0,
			      const Tensorflow__TensorShapeProto *in1, bool transpose_a)
{
	double out_n = tl_opcost_elements(out);
	if (out_n == 0)
		return 0; /* each case below counts per output element */
	if (strcmp(op, "MatMul") == 0) {
		/* 2 m n k: k is the contracted dimension of input 0 */
		if (in0 == NULL || in0->n_dim != 2 || out_n == 0)
			return 0;
		double k = (double)in0->dim[transpose_a ? 0 : 1]->size;
		return k > 0 ? 2.0 * out_n * k : 0;
	}
	if (strcmp(op, "Conv2D") == 0) {
		/* 2 * output elements * kh * kw * input channels (filter HWIO) */
		if (in1 == NULL || in1->n_dim != 4 || out_n == 0)
			return 0;
		/* in doubles: int64 products of hostile sizes overflow */
		double kh = (double)in1->dim[0]->size, kw = (double)in1->dim[1]->size;
		double cin = (double)in1->dim[2]->size;
		return kh > 0 && kw > 0 && cin > 0 ? 2.0 * out_n * kh * kw * cin : 0;
	}
	if (is_elementwise(op))
		return out_n;
	return 0;
}

bool tl_opcost_transpose_a(const Tensorflow__NodeDef *def)
{
	const Tensorflow__AttrValue *ta = NULL;
	for (size_t i = 0; def != NULL && i < def->n_attr; i++)
		if (def->attr[i]->key != NULL && strcmp(def->attr[i]->key, "transpose_a") == 0)
			ta = def->attr[i]->value;
	return ta != NULL && ta->value_case == TENSORFLOW__ATTR_VALUE__VALUE_B && ta->b;
}

/* Float operations of one execution, from its shapes (0 when unknown). */
double tl_opcost_float_ops(const tl_run *run, uint32_t x)
{
	const tl_exec *e = &run->execs[x];
	bool matmul = strcmp(e->op, "MatMul") == 0, conv = strcmp(e->op, "Conv2D") == 0;
	const Tensorflow__NodeDef *def = e->gnode >= 0 ? run->nodes[e->gnode].def : NULL;
	return tl_opcost_float_ops_of(
	    e->op, tl_opcost_exec_shape(e, 0), matmul ? input_shape(run, x, 0) : NULL,
	    conv ? input_shape(run, x, 1) : NULL, matmul && tl_opcost_transpose_a(def));
}

const Tensorflow__TensorShapeProto *tl_opcost_variable_shape(const tl_run *run, uint32_t node)
{
	const tl_gnode *g = &run->nodes[node];
	const Tensorflow__TensorShapeProto *sh = attr_shape(g->def, "shape");
	if (sh == NULL && g->n_exec > 0)
		sh = tl_opcost_exec_shape(&run->execs[run->node_execs[g->first_exec]], 0);
	return sh;
}
