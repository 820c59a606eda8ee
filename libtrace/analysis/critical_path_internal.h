/*
 * critical_path_internal: what analysis/critical_path.c (the dataflow path,
 * the annotation window) and analysis/critical_path_host.c (HTA's rules)
 * share. Only those two include it.
 */
#ifndef TL_ANALYSIS_CRITICAL_PATH_INTERNAL_H
#define TL_ANALYSIS_CRITICAL_PATH_INTERNAL_H

#include "analysis/critical_path.h"

#include <glib.h>

/* An execution's name as its input has it: a Chrome trace's event name,
 * else its node. */
const char *tl_critical_path_name(const tl_run *run, uint32_t e);

/* Executions (uint32_t indices into run, the user data) by start, then
 * by their record's place in the input. */
gint tl_critical_path_cmp_start(gconstpointer a, gconstpointer b, gpointer run);

/* HTA's path among the host events that start in [wb, we] and the kernels
 * they launch; fills everything of *out but span_begin and span_end. */
void tl_critical_path_host(const tl_run *run, int64_t wb, int64_t we, tl_path *out);

#endif
