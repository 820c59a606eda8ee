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

typedef struct tl_links {
	const Tensorflow__NodeExecStats *recs; /* the run's records, recs[0 .. n_recs) */
	size_t n_recs;
	const uint32_t *pairs; /* pairs[2k]: a record's place, pairs[2k + 1]: its launcher's */
	size_t n;	       /* pairs */
	/* NULL, or per record: 1 where a GPU record's node_name is one name,
	 * its node and its op, not TF's "node:Op" (a PyTorch kernel's C++ name
	 * holds "::") */
	const uint8_t *whole;
} tl_links;

#endif
