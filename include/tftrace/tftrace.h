/*
 * tftrace.h: libtrace's public interface, the one header a program using
 * the installed library includes (pkg-config --cflags tftrace).
 *
 * Data flows one way, as the folders under libtrace/ are laid out:
 *   io        an input's bytes become runs (tl_source: RunMetadata binary
 *             or text, StepStats, GraphDef, TFRecord streams, events files,
 *             Chrome trace JSON), every kind sniffed or forced;
 *   model     a run as arrays: devices, executions, kernels, graph nodes
 *             and edges (tl_run);
 *   analysis  what a run means: dataflow links, lanes, buffer lifetimes
 *             and allocator curves, tfprof-style aggregates, idle time and
 *             the critical path, the graph to draw;
 *   emit      sinks: Chrome trace JSON, tables (text, CSV, JSON), SVG
 *             plots, DOT and images, RunMetadata streams.
 * Everything a run owns lives in its arena (base/arena.h) and goes with
 * tl_run_free(); functions that can fail return a negative value and fill
 * a tl_error (base/error.h).
 *
 * This header and the ones it includes are the installed API: they live
 * in the tree under include/tftrace/ (each in its layer's folder), and
 * make install installs that folder as it stands. They include only each
 * other (and the generated tensorflow.pb-c.h, installed beside them);
 * the library's own headers under libtrace/ (wire format, decoding, the
 * command line's helpers) are not installed.
 */
#ifndef TFTRACE_H
#define TFTRACE_H

#include "base/arena.h"
#include "base/warn.h"
#include "base/output.h"
#include "io/source.h"
#include "model/run.h"
#include "analysis/dataflow.h"
#include "analysis/lanes.h"
#include "analysis/memory.h"
#include "analysis/summary.h"
#include "analysis/summary_diff.h"
#include "analysis/idle.h"
#include "analysis/critical_path.h"
#include "analysis/advise.h"
#include "analysis/graphdot.h"
#include "emit/chrome.h"
#include "emit/optrace.h"
#include "emit/memreport.h"
#include "emit/memtrace.h"
#include "emit/svgplot.h"
#include "emit/dot.h"
#include "emit/merge.h"
#include "emit/table.h"
#include "emit/idle.h"
#include "emit/critical_path.h"
#include "emit/advise.h"
#include "emit/summary.h"
#include "emit/summary_diff.h"
#include "emit/run_analyses.h"
#include "emit/runmeta.h"

#endif
