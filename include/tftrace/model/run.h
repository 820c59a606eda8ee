/*
 * run: one run (one session.run step) as arrays, built from a decoded
 * RunMetadata.
 *
 *   devices   every dev_stats entry, names normalized (/cpu:0 ->
 *             /device:CPU:0, /gpu:0/stream:12 -> /device:GPU:0/stream:12),
 *             with their kind; tracer devices point at their executor.
 *   execs     every NodeExecStats: op executions on executor devices, GPU
 *             kernels and memcpys on tracer devices (linked to the op that
 *             launched them through the @@node:Op annotation or the
 *             edge_N_tensor name of a transfer).
 *   nodes     every NodeDef of the partition graphs, with their executions.
 *   edges     data edges (with ports), control edges, and _Send -> _Recv
 *             transfers matched by tensor_name + send_device + recv_device.
 *
 * Times are nanoseconds (the dump's *_nanos fields where present, else
 * micros * 1000). Everything lives in the run's arena and belongs to the
 * tl_run; the RunMetadata it was built from belongs to it too.
 */
#ifndef TL_MODEL_RUN_H
#define TL_MODEL_RUN_H

#include "base/arena.h"
#include "base/limits.h"
#include "io/source.h"
#include "base/warn.h"
#include "tensorflow.pb-c.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Times and durations beyond +-2^61 ns (73 years either side of 1970) are
 * refused. Within the limit the sum of any two times, or of a time and a
 * merge shift, stays inside int64, so no later arithmetic overflows.
 *
 * What an out-of-range field costs depends on which outputs need it (one
 * warning per field, with a count):
 *   all_start_micros, all_end_rel_micros   place the execution on every
 *       timeline and in every table: the execution is skipped, and the
 *       warning names the field;
 *   all_start_nanos, all_end_rel_nanos     a finer copy: the micros serve;
 *   op_start_rel_*, op_end_rel_*           the compute span, read only by the
 *       memory analysis: ignored, the execution's own start and end serve;
 *   scheduled_micros                       read only by the memory analysis
 *       (the step start, from _SOURCE): ignored.
 * An ignored field is cleared in the run's RunMetadata (op_end_rel set to
 * all_end_rel), so analyses that read the NodeExecStats see it as absent.
 * The memory fields (sizes, allocation records, allocator_bytes_in_use) are
 * checked where they are used (analysis/memory.c), and cost only their record.
 *
 * TF 1.3's GPU tracer wrote scheduled_micros in nanoseconds on its devices
 * (/gpu:0/stream:N, stream:all, memcpy). On a tracer device a
 * scheduled_micros more than 1 s after the record's all_start_micros (a
 * launch after its kernel started, impossible) whose value / 1000 lies
 * within an hour of all_start_micros is read as nanoseconds and stored
 * divided by 1000; no warning, it is what that version wrote. */
#define TL_TIME_LIMIT_US (TL_TIME_LIMIT_NS / 1000)

typedef enum tl_device_kind {
	TL_DEV_EXECUTOR = 0, /* a TensorFlow device's executor: ops */
	TL_DEV_STREAM,	     /* GPU tracer: kernels of one CUDA stream */
	TL_DEV_MEMCPY,	     /* GPU tracer: copies */
	TL_DEV_STREAM_ALL,   /* GPU tracer: every stream again (a repeat) */
	TL_DEV_SYNC,	     /* GPU tracer: synchronisation */
	TL_DEV_OTHER,	     /* any other pseudo-device */
} tl_device_kind;

const char *tl_run_device_kind_name(tl_device_kind k);

typedef struct tl_device {
	const char *name; /* normalized */
	const char *raw;  /* as written in the dump */
	tl_device_kind kind;
	int32_t executor;    /* tracer devices: their executor device, or -1 */
	uint32_t first_exec; /* execs of this device: [first_exec, first_exec + n_exec) */
	uint32_t n_exec;
	const Tensorflow__DeviceStepStats *stats;
} tl_device;

typedef struct tl_exec {
	const Tensorflow__NodeExecStats *ns;
	const char *node; /* node name; for tracer records the launching node */
	const char *op;	  /* op type; for kernels the launching op's type */
	int64_t start;	  /* all_start, ns */
	int64_t end;	  /* all_start + all_end_rel, ns */
	int64_t op_start; /* all_start + op_start_rel, ns */
	int64_t op_end;	  /* all_start + op_end_rel, ns */
	uint32_t device;
	uint32_t thread;  /* the dump's thread_id (0 when absent) */
	int32_t gnode;	  /* graph node, or -1 */
	uint32_t iter;	  /* rank among the executions of the same node on this device */
	int32_t launcher; /* tracer records: the exec that launched it, or -1 */
	uint32_t seq;	  /* its record's place in the dump, across devices */
} tl_exec;

typedef struct tl_gnode {
	const char *name;
	const char *op;
	const char *device; /* normalized NodeDef.device */
	uint32_t partition; /* index in partition_graphs */
	const Tensorflow__NodeDef *def;
	uint32_t first_exec; /* into run->node_execs */
	uint32_t n_exec;
} tl_gnode;

typedef enum tl_edge_kind {
	TL_EDGE_DATA = 0,
	TL_EDGE_CONTROL,
	TL_EDGE_TRANSFER, /* _Send -> matching _Recv, across partitions */
} tl_edge_kind;

typedef struct tl_edge {
	uint32_t src, dst; /* graph nodes */
	int32_t src_port;  /* output slot; -1 for control and transfer */
	int32_t dst_port;  /* input position among data inputs; -1 for control */
	tl_edge_kind kind;
} tl_edge;

typedef struct tl_run {
	tl_arena *arena;
	const char *label; /* file name, "file#N" or the event tag */
	Tensorflow__RunMetadata *meta;

	tl_device *devices;
	size_t n_devices;
	tl_exec *execs; /* grouped by device, each device sorted by start */
	size_t n_execs;
	tl_gnode *nodes;
	size_t n_nodes;
	tl_edge *edges; /* sorted by (dst, kind, dst_port) */
	size_t n_edges;
	uint32_t *node_execs; /* per node, its executions on its device by start */
	uint32_t *in_first;   /* per node: first edge whose dst is it (n_nodes + 1 entries) */

	bool has_steps;		/* step_stats present */
	bool has_graphs;	/* partition graphs present */
	bool has_nanos;		/* times came from *_nanos fields */
	bool no_dataflow;	/* the input kind records none (an XSpace): none is guessed */
	const char *input_kind; /* with no_dataflow: what it is ("a TF2/JAX profile (XSpace)") */
	/* The allocator events of its input (an XSpace's MemoryAllocation and
	 * MemoryDeallocation, a Kineto trace's [memory]) on the run's clock,
	 * where the source was asked for them (tl_source_want_allocs); NULL
	 * otherwise or when it has none. In the run's arena. */
	const tl_alloc_events *allocs;
	const char *host;	/* the host it ran on, where the input says (an XSpace), or NULL */
	/* A Chrome trace's slices (io/links.h): execution e is the slice of
	 * record rec[e] (its place in the file), events[rec[e]] its event;
	 * both NULL for other inputs. In the run's arena. */
	const tl_slice_event *events;
	const uint32_t *rec;
	/* A Kineto trace's cuda_sync events (io/links.h), their places those
	 * of rec's records; NULL, 0 for other inputs. In the run's arena. */
	const tl_sync_rec *syncs;
	size_t n_syncs;
	int64_t t_begin, t_end; /* span of all execs, ns */
} tl_run;

/* Builds the model of `meta` (which must live in `arena`); takes ownership
 * of the arena. Never fails on odd content (odd records are skipped with a
 * warning); returns -1 only for inputs too large to index. */
int tl_run_build(tl_run **out, tl_arena *arena, Tensorflow__RunMetadata *meta, const char *label,
		 tl_error *err);
void tl_run_free(tl_run *run);

/* The next run of a source, modelled (tl_source_next_model, then
 * tl_run_build): 1 with *run the caller's, 0 at the end, -1 on error. */
int tl_run_next(tl_source *src, tl_run **run, tl_error *err);

/* Each run's wall time in ns, as tl_run_build finds it (t_end - t_begin),
 * for a source that knows all its runs before it gives the first (a file
 * holding an XSpace of several steps, once its first run is read):
 * returns their count and *walls (g_free'd by the caller); 0 (and NULL)
 * where the source cannot tell. */
size_t tl_run_walls_ahead(tl_source *src, int64_t **walls);

/* Normalizes a device name into the arena; NULL/empty gives "". */
const char *tl_run_device_normalize(tl_arena *arena, const char *raw);
tl_device_kind tl_run_device_kind_of(const char *normalized);

/* Graph node by normalized device and name, or -1. */
int32_t tl_run_find_node(const tl_run *run, const char *device, const char *name);

/* A string attribute of a graph node ("" when absent), copied into the
 * run's arena. */
const char *tl_run_node_attr_string(const tl_run *run, uint32_t node, const char *key);

/* Parses "name:Op" or a kernel label "...@@name:Op#...#" as timeline.py
 * does; writes pointers into the arena. */
void tl_run_kernel_label_parse(tl_arena *arena, const char *label, const char *node_name,
			       const char **name, const char **op);

/* Parses "name = Op(in0, in1)" labels (optionally prefixed by "[alloc ...] ").
 * Returns false when the label has another shape. Input names are arena
 * strings. */
bool tl_run_op_label_parse(tl_arena *arena, const char *label, const char **name, const char **op,
			   const char ***inputs, size_t *n_inputs);

#endif
