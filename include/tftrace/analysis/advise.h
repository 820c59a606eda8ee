/*
 * advise: tfprof's checkers on one run, as data: the most expensive op
 * types, how busy each GPU's kernels kept it, Conv2D nodes on a GPU in
 * NHWC, batch normalizations built from separate ops. emit/advise.h
 * writes the findings.
 *
 * The result is the caller's (tl_advise_free); its strings belong to the
 * run.
 */
#ifndef TL_ANALYSIS_ADVISE_H
#define TL_ANALYSIS_ADVISE_H

#include "model/run.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef struct tl_advice_op {
	const char *op;
	int64_t ns; /* its executions' time on executors */
	double pct; /* of all executor time */
} tl_advice_op;

typedef struct tl_advice_gpu {
	uint32_t device;  /* a GPU executor */
	double busy_pct;  /* the union of its streams' kernels, of the step */
	bool has_records; /* any GPU tracer record (FULL_TRACE) */
} tl_advice_gpu;

typedef struct tl_advice {
	tl_advice_op top[3]; /* the most expensive op types, most first */
	size_t n_top;
	tl_advice_gpu *gpus;
	size_t n_gpus;
	size_t nhwc; /* Conv2D nodes on a GPU in NHWC */
	const char *nhwc_example;
	size_t unfused_bn; /* batch norms built from separate ops */
	const char *bn_example;
	bool has_graphs;
} tl_advice;

tl_advice *tl_advise_new(const tl_run *run);
void tl_advise_free(tl_advice *a);

#endif
