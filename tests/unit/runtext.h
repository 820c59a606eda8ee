/*
 * runtext.h: RunMetadata protobuf text written in a test, piece by piece,
 * as C string literals, so that a hand-built run reads as what it is:
 *
 *   STEP(DEV(CPU, SOURCE(100)
 *                 EXEC("a", 110, 10) OUT(0, "cpu", 1024, 1) END
 *                 EXEC("b", 120, 10) END))
 *   GRAPH(NODE("a", "Const", CPU, "") NODE("b", "Neg", CPU, IN("a")))
 *
 * Numbers are literals (the macros stringify them); times are
 * microseconds. td_run_of_text (testdata.h) builds the run.
 */
#ifndef TL_UNIT_RUNTEXT_H
#define TL_UNIT_RUNTEXT_H

#define CPU "/job:localhost/replica:0/task:0/device:CPU:0"
#define GPU "/job:localhost/replica:0/task:0/device:GPU:0"

#define STEP(devs) "step_stats {\n" devs "}\n"
#define DEV(name, stats) "dev_stats { device: \"" name "\"\n" stats "}\n"
#define GRAPH(nodes) "partition_graphs {\n" nodes "}\n"

/* The executor's _SOURCE, whose scheduled_micros is the step's start. */
#define SOURCE(t)                                                                                  \
	"node_stats { node_name: \"_SOURCE\" all_start_micros: " #t " scheduled_micros: " #t       \
	" all_end_rel_micros: 1 }\n"

/* An execution from `start` for `dur`, computing all along; END closes it. */
#define EXEC(name, start, dur)                                                                     \
	"node_stats { node_name: \"" name "\" all_start_micros: " #start                           \
	" op_end_rel_micros: " #dur " all_end_rel_micros: " #dur
/* The same, computing from start + op_start to start + op_end. */
#define EXEC_OP(name, start, op_start, op_end, dur)                                                \
	"node_stats { node_name: \"" name "\" all_start_micros: " #start                           \
	" op_start_rel_micros: " #op_start " op_end_rel_micros: " #op_end                          \
	" all_end_rel_micros: " #dur
#define END " }\n"

/* An output held in allocation `id` of `alloc` (ptr id * 100). */
#define OUT(slot, alloc, bytes, id)                                                                \
	" output { slot: " #slot " tensor_description { dtype: DT_FLOAT"                           \
	" allocation_description { requested_bytes: " #bytes " allocated_bytes: " #bytes           \
	" allocator_name: \"" alloc "\" allocation_id: " #id " ptr: " #id "00 } } }"
/* An allocator the execution used: its bytes in use at the execution's end
 * (0: none said) and its allocation records (REC...). */
#define MEM(alloc, in_use, records)                                                                \
	" memory { allocator_name: \"" alloc "\" allocator_bytes_in_use: " #in_use records " }"
#define REC(us, bytes) " allocation_records { alloc_micros: " #us " alloc_bytes: " #bytes " }"
/* A variable's execution: its persistent allocation `id` of `bytes`. */
#define PERSISTENT(bytes, id)                                                                      \
	" memory_stats { persistent_memory_size: " #bytes " persistent_tensor_alloc_ids: " #id "}"
/* An allocation the execution reads without owning it (a variable). */
#define REFD(alloc, bytes, id)                                                                     \
	" referenced_tensor { requested_bytes: " #bytes " allocated_bytes: " #bytes                \
	" allocator_name: \"" alloc "\" allocation_id: " #id " ptr: " #id "00 }"

/* A graph node; `more` is its inputs and attributes (IN, ATTR_*), or "". */
#define NODE(name, op, dev, more)                                                                  \
	"node { name: \"" name "\" op: \"" op "\" device: \"" dev "\"" more " }\n"
#define IN(x) " input: \"" x "\""
#define ATTR_S(k, v) " attr { key: \"" k "\" value { s: \"" v "\" } }"
#define ATTR_B(k, v) " attr { key: \"" k "\" value { b: " #v " } }"
/* The attributes that pair a _Send with its _Recv. */
#define XFER(tensor, from, to)                                                                     \
	ATTR_S("tensor_name", tensor) ATTR_S("send_device", from) ATTR_S("recv_device", to)

#endif
