/*
 * chrome_kind: what each slice of a Chrome trace is to a table of where
 * time went (io/links.h's TL_SLICE_*), from its cat and from the process
 * and thread it is on. io/chrome_run.c marks every record of its run with
 * it; analysis/summary_slices.c counts by it.
 *
 *   device     Kineto cat kernel, gpu_memcpy, gpu_memset (Kernel, Memcpy,
 *              Memset in older Kineto); TF2 trace JSON: the lines of a
 *              "/device:..." process but those below (its "Stream #N"
 *              lines, "XLA Ops" where it has none); TF1 timeline.py:
 *              "/stream:N" processes, and "/stream:all" and "/memcpy" only
 *              where no "/stream:N" is (elsewhere they repeat the streams'
 *              records, as the summary of a RunMetadata counts them).
 *   skip       Kineto cat Trace (the profiler's own span, "PyTorch
 *              Profiler (0)") and gpu_user_annotation (a label drawn over
 *              kernels, not work); TF2's "TensorFlow Ops", "TensorFlow Name
 *              Scope", "XLA Ops" (beside streams), ... lines: views of the
 *              same kernels.
 *   step       TF2's "Steps" line.
 *   host       everything else.
 *   op         (a flag) Kineto cat cpu_op, older Operator: an op, whose
 *              kernels are those launched by runtime calls inside it.
 *   runtime    (a flag) Kineto cat cuda_runtime, cuda_driver, ...: a
 *              runtime call (analysis/critical_path_host.c reads them).
 */
#ifndef TL_IO_CHROME_KIND_H
#define TL_IO_CHROME_KIND_H

#include "io/chrome_ids.h"
#include "io/links.h"

#include <stdint.h>

/* What a slice's cat says: TL_SLICE_OP or TL_SLICE_RUNTIME, and a kind where the cat decides
 * it (then with CHROME_KIND_BY_CAT set); 0 where its thread decides. */
#define TL_CHROME_KIND_BY_CAT 0x80
uint8_t tl_chrome_kind_of_cat(const char *cat);

/* Per thread of ids (its index), the kind of the slices on it whose cat
 * does not decide: an array the caller frees with g_free. */
uint8_t *tl_chrome_kind_threads(const tl_chrome_ids *ids);

#endif
