/*
 * tf2names: how the TF2 profiler and PyTorch's Kineto name things, in one
 * place, for every reader of their files: the XSpace reader (io/xspace.c),
 * the Chrome JSON readers (io/chrome_run.c, and trace-summarize's reader of
 * Chrome JSON). Each rule is a function of the text a file holds; nothing
 * here allocates or keeps state.
 *
 *   TF2 (XSpace, and the trace viewer JSON TensorBoard makes of it)
 *     - a GPU stream is a line (a JSON thread) "Stream #N(...)" of a
 *       "/device:..." plane (a JSON process named so): tl_tf2_stream_line;
 *     - a TF op is named "node:Op" (TraceMe names, the tf_op stat, the
 *       kernel annotation up to its first '#'): tl_tf2_is_tf_op,
 *       tl_tf2_split_tf_op;
 *     - a device plane's other lines ("TensorFlow Ops", "TensorFlow Name
 *       Scope", "XLA Ops" where streams are, ...) are views of the same
 *       kernels, not more work: tl_tf2_is_derived_line;
 *     - a kernel and the host call that launched it share a correlation id:
 *       the stat (and JSON arg) "correlation_id", a number or, in the JSON,
 *       a string of digits.
 *   Kineto (PyTorch profiler JSON)
 *     - a GPU is a process whose process_labels (or process_name) is
 *       "GPU N": tl_kineto_gpu_process;
 *     - its streams are threads: tid "stream N" (older Kineto) or tid N
 *       with thread_name "stream N ": tl_kineto_stream_thread;
 *     - an event's cat says what it is: tl_kineto_cat_of (kernel, gpu_memcpy,
 *       gpu_memset: device work; cuda_runtime, cuda_driver, ...: a launch;
 *       cpu_op: an op; Trace, gpu_user_annotation: labels over work);
 *     - a device event and its launch share args "correlation".
 *   Either: tl_names_args_correlation reads the correlation id of a JSON
 *   args object under either key.
 */
#ifndef TL_IO_TF2NAMES_H
#define TL_IO_TF2NAMES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* The XSpace stats these rules read, by name. */
#define TL_TF2_STAT_CORRELATION "correlation_id"
#define TL_TF2_STAT_TF_OP "tf_op"
#define TL_TF2_STAT_LEVEL0 "level 0"
#define TL_TF2_STAT_HLO_OP "hlo_op"

/* "Stream #7(Compute)" -> 7: whether a device line is a GPU stream. */
bool tl_tf2_stream_line(const char *name, long *stream);

/* "dense/MatMul:MatMul": a TF op as TraceMe names it, s[0..n): a node
 * before the last ':' (not ending in ':') and a type of letters, digits
 * and '_' after it. */
bool tl_tf2_is_tf_op(const char *s, size_t n);

/* A "node:Op" text, up to its first '#' (TF2's kernel annotations
 * "node:Op#id=1#"): *node_len and the op span; false where it is none. */
bool tl_tf2_split_tf_op(const char *s, size_t *node_len, const char **op, size_t *op_len);

/* Whether a device plane's line repeats its streams' kernels ("TensorFlow
 * Ops", "TensorFlow Name Scope", ...; "XLA Ops" where the plane has
 * streams). "Steps" is none: it gives the steps. */
bool tl_tf2_is_derived_line(const char *name, bool has_streams);

typedef enum tl_kineto_cat {
	TL_KINETO_OTHER = 0,
	TL_KINETO_DEVICE, /* kernel, gpu_memcpy, gpu_memset (Kernel, Memcpy, Memset) */
	TL_KINETO_LAUNCH, /* cuda_runtime, cuda_driver, privateuse1_runtime, Runtime */
	TL_KINETO_OP,	  /* cpu_op (Operator) */
	TL_KINETO_LABEL,  /* Trace (the profiler's span), gpu_user_annotation */
} tl_kineto_cat;

tl_kineto_cat tl_kineto_cat_of(const char *cat);

/* "GPU 3" as process_labels, else as process_name -> 3. */
bool tl_kineto_gpu_process(const char *labels, const char *name, unsigned *gpu);

/* The stream of a thread of a Kineto GPU process: tid "stream 7", or
 * thread_name "stream 7 " (its tid 7), or with no thread_name a tid of
 * digits (Kineto's GPU events have their stream as tid). */
bool tl_kineto_stream_thread(const char *tid, const char *thread_name, long *stream);

/* The correlation id in the raw text of a JSON args object args[0..len):
 * Kineto's "correlation" or TF2's "correlation_id", a number or a string of
 * digits. Found in the text, not parsed: every device event has one. */
bool tl_names_args_correlation(const char *args, size_t len, int64_t *out);

#endif
