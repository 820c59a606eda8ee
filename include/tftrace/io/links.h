/*
 * links: launch links an input names itself (an XSpace's correlation ids,
 * a Kineto trace's, a Chrome trace's flow events), as its readers hand
 * them to the model (model/run.c), which makes them its executions'
 * launchers. The records of the run are one array, and a link names two of
 * them by their places in it: the model finds an execution's record by
 * its place, with no table of addresses (a run of a 100 MB XSpace has half
 * a million links). A reader may also mark records whose node_name is
 * not TF's "node:Op" (whole).
 */
#ifndef TL_IO_LINKS_H
#define TL_IO_LINKS_H

#include "tensorflow.pb-c.h"

#include <stddef.h>
#include <stdint.h>

/* What a slice of a Chrome trace is (io/chrome_kind.h): host work, device
 * work (a kernel, a copy), a step, or a repeat of other slices that tables
 * leave out; TL_SLICE_OP marks an op whose launches are its own (Kineto's
 * cpu_op), TL_SLICE_RUNTIME a runtime or driver call (Kineto's cuda_runtime,
 * cuda_driver, ...), the host events HTA's critical path reads. */
enum {
	TL_SLICE_HOST = 0,
	TL_SLICE_DEVICE = 1,
	TL_SLICE_SKIP = 2,
	TL_SLICE_STEP = 3,
	TL_SLICE_KIND = 3, /* the mask of the kinds above */
	TL_SLICE_OP = 4,
	TL_SLICE_RUNTIME = 8,
};

/* A slice's event as the file has it: its name, the node and op its args
 * (or a "node:Op" in them) give (NULL: none), its thread (the place of its
 * pid and tid among the file's, by first mention) and its kind. */
typedef struct tl_slice_event {
	const char *name, *node, *op;
	uint32_t thread;
	uint8_t kind;
} tl_slice_event;

/* A Kineto cuda_sync event (PyTorch 2.1 on): what kind of wait, the
 * record of the runtime call it is (by its correlation), its stream, and
 * for an event wait the stream and the cudaEventRecord call of the event
 * (by wait_on_stream and wait_on_cuda_event_record_corr_id). Places are
 * records' (UINT32_MAX: none); streams -1 where the args hold none. */
enum {
	TL_SYNC_CONTEXT = 1, /* "Context Sync": cudaDeviceSynchronize */
	TL_SYNC_STREAM,	     /* "Stream Sync": cudaStreamSynchronize */
	TL_SYNC_EVENT,	     /* "Event Sync": cudaEventSynchronize */
	TL_SYNC_WAIT,	     /* "Stream Wait Event": cudaStreamWaitEvent */
};
typedef struct tl_sync_rec {
	uint32_t rec, call, record;
	int64_t stream, wait_stream;
	uint8_t kind;
} tl_sync_rec;

typedef struct tl_links {
	const Tensorflow__NodeExecStats *recs; /* the run's records, recs[0 .. n_recs) */
	size_t n_recs;
	const uint32_t *pairs; /* pairs[2k]: a record's place, pairs[2k + 1]: its launcher's */
	size_t n;	       /* pairs */
	/* NULL, or per record: 1 where a GPU record's node_name is one name,
	 * its node and its op, not TF's "node:Op" (a PyTorch kernel's C++ name
	 * holds "::") */
	const uint8_t *whole;
	/* A Chrome trace's slices (io/chrome_kind.h), per record: what it is
	 * to a summary and the event as the file has it; NULL for other
	 * inputs. */
	const tl_slice_event *events;
	/* A Kineto trace's cuda_sync events, in file order; NULL, 0: none. */
	const tl_sync_rec *syncs;
	size_t n_syncs;
} tl_links;

#endif
