/*
 * opcost: what an op costs, from the shapes the dump records: float
 * operations of an execution (MatMul 2mnk, Conv2D 2*out*kh*kw*cin,
 * element-wise ops one per output element, others 0), and the elements
 * of a variable (its declared shape, else what its first execution
 * produced). Shapes belong to the run.
 */
#ifndef TL_ANALYSIS_OPCOST_H
#define TL_ANALYSIS_OPCOST_H

#include "model/run.h"

#include <stdbool.h>
#include <stdint.h>

/* Float operations of one execution (0 when its shapes are unknown). */
double tl_opcost_float_ops(const tl_run *run, uint32_t exec);

/* The same from the shapes themselves: the output (slot 0) and data
 * inputs 0 and 1 (NULL where unknown; MatMul reads in0, Conv2D in1). */
double tl_opcost_float_ops_of(const char *op, const Tensorflow__TensorShapeProto *out,
			      const Tensorflow__TensorShapeProto *in0,
			      const Tensorflow__TensorShapeProto *in1, bool transpose_a);
/* A MatMul node's transpose_a attribute (false when absent or def NULL). */
bool tl_opcost_transpose_a(const Tensorflow__NodeDef *def);
/* The shape an execution's record gives its output `slot`, or NULL. */
const Tensorflow__TensorShapeProto *tl_opcost_exec_shape(const tl_exec *e, int32_t slot);

/* VariableV2, Variable, VarHandleOp. */
bool tl_opcost_is_variable(const char *op);
/* Whether op is one of ops[0..n) (asked per execution: the first letters
 * are compared before the rest). */
bool tl_opcost_op_in(const char *op, const char *const *ops, size_t n);
/* A variable node's shape, or NULL. */
const Tensorflow__TensorShapeProto *tl_opcost_variable_shape(const tl_run *run, uint32_t node);

/* Elements of a shape (0 when unknown; capped where no tensor could be). */
double tl_opcost_elements(const Tensorflow__TensorShapeProto *sh);
/* "784x128"; g_malloc'd, NULL for NULL. */
char *tl_opcost_shape_string(const Tensorflow__TensorShapeProto *sh);

#endif
