/*
 * trace-gen: a deterministic generator of realistic TensorFlow RunMetadata
 * (step_stats + partition_graphs), for tests and benchmarks.
 *
 * It builds a training graph (layers in name scopes, their gradients and
 * SGD updates; data-parallel towers with two or more GPUs), places it on
 * CPU:0 and the GPUs, rewrites every cross-device data edge into a
 * _Send/_Recv pair as TensorFlow's partitioner does, runs a simulated
 * executor (a few threads per device, GPU kernels on CUDA streams, memcpys on
 * copy streams) and records what TensorFlow's StepStatsCollector and its
 * CUPTI tracer would: NodeExecStats in micros and nanos, timeline labels,
 * allocations, outputs, and the /stream:N, /stream:all, /memcpy and /sync
 * pseudo-devices.
 *
 * Memory follows the rules written down in shared/oracle/exact/README.md
 * (sizes, forwarding, loop matching, release, fetches, persistent variables,
 * temporaries, ids and pointers), so every allocator_bytes_in_use in the
 * output is what an exact lifetime analysis of the same dump must reproduce.
 *
 * Same arguments, same bytes: the only randomness is splitmix64 seeded from
 * --seed, and a value drawn for one purpose never shifts another (each layer,
 * tower and step has its own stream).
 *
 * Simplified on purpose: a while-loop body is its ops alone (no Enter,
 * Merge, Switch, NextIteration or Exit, so the graph stays a DAG), cross-device
 * control edges are never made, and there is one worker (no /job:ps, no
 * RecvTensor; --tasks makes independent replicas, not one model across
 * tasks). Every execution is recorded unless --quirks asks for what
 * real dumps do: about 30% of _Recv executions without NodeExecStats, and a
 * Switch (one per tower, on the loss) that may record only its live output.
 * --split-loop puts the loop body's Relu on the CPU, as TensorFlow places an
 * op without a GPU kernel, so a _Send/_Recv pair each way runs in every
 * iteration (and with --quirks some of those _Recv executions go unrecorded).
 * --unrecorded-recv sets the share of unrecorded _Recv executions.
 *
 * For benchmarks of shapes real dumps take: --tasks N puts N worker tasks in
 * one run, each a replica of the model on its own devices and tracer rows
 * (1,100 tasks of one GPU: about 10,000 devices and streams), and
 * --scope-depth D nests every node D name scopes deeper, and --components N
 * adds N - 1 small graphs beside the model (a GraphDef's initializers and
 * unused constants), so that a task's graph has N connected components.
 *
 * --truth FILE writes what really happened to memory beside the dump, in the
 * shape of the truth files in shared/oracle/exact: per allocator the exact in-use
 * curve and its peak, and every buffer with its lifetime and aliases.
 * --flows-truth FILE writes which execution read which: a flow per data edge
 * and recorded consumer execution, per recorded _Recv (from its _Send), and
 * from the _Send straight to the consumer where the _Recv left no stats.
 *
 * Exit status: 0 ok, 1 cannot write the output, 2 usage error.
 */
#include "base/arena.h"
#include "cli/cli.h"
#include "base/output.h"
#include "io/tfrecord.h"
#include "tensorflow.pb-c.h"

#include "pbtext_print.h"

#include <errno.h>
#include <glib.h>
#include <inttypes.h>
#include <jansson.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define MAX_GPUS 8
#define MAX_DEV (MAX_GPUS + 1)
#define MAX_ALLOC (MAX_GPUS + 2)
#define MAX_THREADS 8
#define MAX_STREAMS 4
#define MAX_KERNELS 3
#define DEFAULT_OPS 200
#define SIZE_MB_MAX 1900.0

enum out_format { FMT_BINARY, FMT_TEXT, FMT_TFRECORD };

struct cfg {
	uint64_t seed;
	long ops;
	int gpus;
	int steps;
	int loop;
	double size_mb;
	enum out_format format;
	bool old_names;
	bool tf13; /* TF 1.3: old names, nanosecond scheduled_micros on tracer rows */
	const char *out;
	bool quirks;		 /* unrecorded _Recv executions, one-slot Switch outputs */
	bool split_loop;	 /* the loop body's Relu on the CPU: transfers every iteration */
	const char *truth;	 /* where --truth writes, or NULL */
	const char *flows_truth; /* where --flows-truth writes, or NULL */
	int unrecorded_recv;	 /* percent of _Recv executions without stats, -1: unset */
	int tasks;		 /* worker tasks in one run, 0: one local task */
	int scope_depth;	 /* name scopes above every node of the model */
	int components;		 /* connected components per task, 0: as the model has */
};

/* The percent of _Recv executions left without stats: --unrecorded-recv,
 * else --quirks' 30, else none. */
static int unrecorded_percent(const struct cfg *cfg)
{
	if (cfg->unrecorded_recv >= 0)
		return cfg->unrecorded_recv;
	return cfg->quirks ? 30 : 0;
}

/* ------------------------------------------------------------------ */
/* Random numbers                                                      */

static uint64_t splitmix(uint64_t *s)
{
	uint64_t z = (*s += 0x9e3779b97f4a7c15ull);
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	return z ^ (z >> 31);
}

/* An independent stream per (purpose, index), so that adding a draw in one
 * place never changes what another place draws. */
static uint64_t stream_seed(uint64_t seed, uint64_t tag, uint64_t index)
{
	uint64_t s = seed ^ (tag * 0xd1b54a32d192ed03ull);
	splitmix(&s);
	s ^= index * 0x8cb92ba72f3d8dd7ull;
	return splitmix(&s);
}

/* Uniform in [lo, hi]. */
static int64_t rnd(uint64_t *s, int64_t lo, int64_t hi)
{
	if (hi <= lo)
		return lo;
	uint64_t span = (uint64_t)(hi - lo) + 1;
	return lo + (int64_t)(splitmix(s) % span);
}

static bool chance(uint64_t *s, int percent)
{
	return (int)(splitmix(s) % 100) < percent;
}

enum {
	TAG_PLAN = 1,
	TAG_LAYER,
	TAG_DEVICES,
	TAG_STEP,
	TAG_MEMORY,
	TAG_KERNEL,
	TAG_QUIRK,
	TAG_ISLAND,
};

/* ------------------------------------------------------------------ */
/* Data types and ops                                                  */

enum {
	F32 = TENSORFLOW__DATA_TYPE__DT_FLOAT,
	I32 = TENSORFLOW__DATA_TYPE__DT_INT32,
	I64 = TENSORFLOW__DATA_TYPE__DT_INT64,
	BOOL = TENSORFLOW__DATA_TYPE__DT_BOOL,
	F32REF = TENSORFLOW__DATA_TYPE__DT_FLOAT_REF,
};

static int64_t dtype_size(int dt)
{
	switch (dt) {
	case I64:
		return 8;
	case BOOL:
		return 1;
	default:
		return 4;
	}
}

static bool dtype_is_int(int dt)
{
	return dt == I32 || dt == I64 || dt == BOOL;
}

enum op {
	OP_CONST,
	OP_VAR,
	OP_IDENTITY,
	OP_RESHAPE,
	OP_SHAPE,
	OP_SHAPEN,
	OP_CONV,
	OP_CONV_BI,
	OP_CONV_BF,
	OP_MATMUL,
	OP_BIASADD,
	OP_BIASADDGRAD,
	OP_RELU,
	OP_RELUGRAD,
	OP_ADD,
	OP_ADDN,
	OP_SUB,
	OP_MUL,
	OP_SUM,
	OP_MEAN,
	OP_SOFTMAX,
	OP_FBN,
	OP_FBNGRAD,
	OP_SPLIT,
	OP_CONCAT,
	OP_MAXPOOL,
	OP_MAXPOOLGRAD,
	OP_XENT,
	OP_FILL,
	OP_TILE,
	OP_EXPANDDIMS,
	OP_ARGMAX,
	OP_EQUAL,
	OP_CAST,
	OP_APPLYGD,
	OP_NOOP,
	OP_ARG,
	OP_RETVAL,
	OP_SEND,
	OP_RECV,
	OP_HOSTSEND,
	OP_HOSTRECV,
	OP_SWITCH,
	N_OPS
};

/* Cost classes: how an op's time grows with the bytes it touches. */
enum { COST_NONE, COST_LIGHT, COST_REDUCE, COST_HEAVY };

#define F_FORWARD 1u /* every output aliases the buffer of data input 0 */
#define F_TEMP 2u    /* may allocate scratch buffers while it computes */
#define F_HOSTOUT 4u /* outputs live in host memory when placed on a GPU */

#define SWAP_KERNEL                                                                                \
	"void tensorflow::functor::SwapDimension1And2InTensor3UsingTiles<unsigned int, 256, "      \
	"32, 32, false>(unsigned int const*, tensorflow::functor::Dimension<3>, unsigned int*)"
#define SHUFFLE_KERNEL                                                                             \
	"void tensorflow::functor::ShuffleInTensor3Simple<float, 2, 1, 0, false>(int, "            \
	"float const*, tensorflow::functor::Dimension<3>, float*)"
#define EIGEN_ASSIGN                                                                               \
	"Eigen::TensorAssignOp<Eigen::TensorMap<Eigen::Tensor<float, 1, 1, long>, 16, "            \
	"Eigen::MakePointer>, "
#define EIGEN_CMAP                                                                                 \
	"Eigen::TensorMap<Eigen::Tensor<float const, 1, 1, long>, 16, Eigen::MakePointer> const"
#define EIGEN_BINARY(OP)                                                                           \
	"void Eigen::internal::EigenMetaKernel<Eigen::TensorEvaluator<" EIGEN_ASSIGN               \
	"Eigen::TensorCwiseBinaryOp<Eigen::internal::" OP                                          \
	"<float const, float const>, " EIGEN_CMAP ", " EIGEN_CMAP                                  \
	"> const> const, Eigen::GpuDevice>, long>(Eigen::"                                         \
	"TensorEvaluator<" EIGEN_ASSIGN "Eigen::TensorCwiseBinaryOp<Eigen::internal::" OP          \
	"<float const, float const>, " EIGEN_CMAP ", " EIGEN_CMAP "> const> const, "               \
	"Eigen::GpuDevice>, long)"
#define EIGEN_UNARY(OP)                                                                            \
	"void Eigen::internal::EigenMetaKernel<Eigen::TensorEvaluator<" EIGEN_ASSIGN               \
	"Eigen::TensorCwiseUnaryOp<Eigen::internal::" OP "<float>, " EIGEN_CMAP                    \
	"> const> const, Eigen::GpuDevice>, long>(Eigen::TensorEvaluator<" EIGEN_ASSIGN            \
	"Eigen::TensorCwiseUnaryOp<Eigen::internal::" OP "<float>, " EIGEN_CMAP "> const> "        \
	"const, Eigen::GpuDevice>, long)"

static const char *const k_conv[] = {SWAP_KERNEL, "volta_scudnn_128x64_relu_interior_nn_v1",
				     SHUFFLE_KERNEL, NULL};
static const char *const k_conv_bi[] = {
    SWAP_KERNEL,
    "void cudnn::detail::dgrad_engine<float, 128, 6, 8, 3, 3, 5, false>(int, int, int, "
    "float const*, int, float const*, int, float*, kernel_grad_params, unsigned long long, "
    "int, unsigned long long, int, float, int, int, int)",
    SHUFFLE_KERNEL, NULL};
static const char *const k_conv_bf[] = {
    "void cudnn::detail::wgrad_alg0_engine<float, 128, 5, 5, 3, 3, 3, false, 512>(int, int, "
    "int, float const*, int, float*, float const*, kernel_grad_params, unsigned long long, "
    "int, float, int, int, int, int)",
    SWAP_KERNEL, NULL};
static const char *const k_matmul[] = {"volta_sgemm_128x64_nn", "volta_sgemm_64x32_sliced1x4_tn",
				       "volta_sgemm_128x64_nt", NULL};
static const char *const k_biasadd[] = {
    "void tensorflow::BiasNHWCKernel<float>(int, float const*, float const*, float*, int)", NULL};
static const char *const k_biasaddgrad[] = {
    "void tensorflow::BiasGradNHWC_SharedAtomics<float>(int, float const*, float*, int)", NULL};
static const char *const k_relu[] = {EIGEN_UNARY("scalar_relu_op"), NULL};
static const char *const k_relugrad[] = {EIGEN_BINARY("scalar_relu_grad_op"), NULL};
static const char *const k_add[] = {EIGEN_BINARY("scalar_sum_op"), NULL};
static const char *const k_sub[] = {EIGEN_BINARY("scalar_difference_op"), NULL};
static const char *const k_mul[] = {EIGEN_BINARY("scalar_product_op"), NULL};
static const char *const k_sum[] = {
    "void tensorflow::functor::BlockReduceKernel<float*, float*, 256, "
    "tensorflow::functor::Sum<float> >(float*, float*, int, tensorflow::functor::Sum<float>, "
    "std::iterator_traits<float*>::value_type)",
    "void tensorflow::functor::CleanupSegments<float*, float*, cub::Sum>(float*, float*, int, "
    "int, int, cub::Sum, std::iterator_traits<float*>::value_type)",
    NULL};
static const char *const k_softmax[] = {
    "void tensorflow::functor::RowReduceKernel<float const*, float*, cub::Max>(float const*, "
    "float*, int, int, cub::Max, std::iterator_traits<float const*>::value_type)",
    "void tensorflow::functor::RowReduceKernel<cub::TransformInputIterator<float, "
    "tensorflow::(anonymous namespace)::SubtractAndExpFunctor<float, float>, "
    "cub::CountingInputIterator<int, int>, long>, float*, cub::Sum>(cub::"
    "TransformInputIterator<float, tensorflow::(anonymous namespace)::SubtractAndExpFunctor"
    "<float, float>, cub::CountingInputIterator<int, int>, long>, float*, int, int, cub::Sum, "
    "std::iterator_traits<cub::TransformInputIterator<float, tensorflow::(anonymous "
    "namespace)::SubtractAndExpFunctor<float, float>, cub::CountingInputIterator<int, int>, "
    "long> >::value_type)",
    "void tensorflow::(anonymous namespace)::GenerateNormalizedProb<float, float>(float "
    "const*, float const*, float const*, float*, int, int, bool)",
    NULL};
static const char *const k_fbn[] = {
    SWAP_KERNEL,
    "void cudnn::bn_fw_tr_1C11_kernel_NCHW<float, float, int, 512, true, 1>(cudnnTensorStruct, "
    "float const*, cudnnTensorStruct, float*, float const*, float const*, float, float, "
    "float*, float*, float*, float*, float, float)",
    SWAP_KERNEL, NULL};
static const char *const k_fbngrad[] = {
    SWAP_KERNEL,
    "void cudnn::bn_bw_1C11_kernel_new<float, float, float2, 512, true, 1>(float, float, "
    "float, float, cudnnTensorStruct, float const*, cudnnTensorStruct, float const*, "
    "cudnnTensorStruct, float*, float const*, float*, float*, float const*, float const*, "
    "float)",
    SWAP_KERNEL, NULL};
static const char *const k_split[] = {
    "void tensorflow::SplitOpKernel<float>(float const*, int, int, int, "
    "tensorflow::GpuDeviceArrayStruct<float*, 8>)",
    NULL};
static const char *const k_concat[] = {
    "void tensorflow::concat_variable_kernel<float, int, true>(tensorflow::"
    "GpuDeviceArrayStruct<float const*, 8>, tensorflow::GpuDeviceArrayStruct<int, 8>, int, "
    "int, float*)",
    NULL};
static const char *const k_maxpool[] = {
    SWAP_KERNEL,
    "void cudnn::detail::pooling_fw_4d_kernel<float, float, cudnn::detail::maxpooling_func"
    "<float, (cudnnNanPropagation_t)0>, 0, false>(cudnnTensorStruct, float const*, "
    "cudnnTensorStruct, float*, cudnnPoolingStruct, float, float, int, "
    "cudnn::reduced_divisor, cudnn::reduced_divisor)",
    SWAP_KERNEL, NULL};
static const char *const k_maxpoolgrad[] = {
    "void cudnn::detail::pooling_bw_kernel_max_nchw<float, float, cudnn::detail::"
    "maxpooling_func<float, (cudnnNanPropagation_t)0>, false>(cudnnTensorStruct, float "
    "const*, cudnnTensorStruct, float const*, cudnnTensorStruct, float const*, "
    "cudnnTensorStruct, float*, cudnnPoolingStruct, float, float, int, "
    "cudnn::reduced_divisor, cudnn::reduced_divisor, cudnn::reduced_divisor, "
    "cudnn::reduced_divisor)",
    SWAP_KERNEL, NULL};
static const char *const k_xent[] = {
    "void tensorflow::functor::RowReduceKernel<float const*, float*, cub::Max>(float const*, "
    "float*, int, int, cub::Max, std::iterator_traits<float const*>::value_type)",
    "void Eigen::internal::EigenMetaKernel<Eigen::TensorEvaluator<Eigen::TensorAssignOp<"
    "Eigen::TensorMap<Eigen::Tensor<float, 2, 1, int>, 16, Eigen::MakePointer>, "
    "Eigen::TensorGeneratorOp<tensorflow::generator::SparseXentGradGenerator<float, int>, "
    "Eigen::TensorMap<Eigen::Tensor<float, 2, 1, int>, 16, Eigen::MakePointer> const> const> "
    "const, Eigen::GpuDevice>, int>(Eigen::TensorEvaluator<Eigen::TensorAssignOp<"
    "Eigen::TensorMap<Eigen::Tensor<float, 2, 1, int>, 16, Eigen::MakePointer>, "
    "Eigen::TensorGeneratorOp<tensorflow::generator::SparseXentGradGenerator<float, int>, "
    "Eigen::TensorMap<Eigen::Tensor<float, 2, 1, int>, 16, Eigen::MakePointer> const> const> "
    "const, Eigen::GpuDevice>, int)",
    NULL};
static const char *const k_fill[] = {EIGEN_UNARY("scalar_constant_op"), NULL};
static const char *const k_tile[] = {
    "void tensorflow::TileKernel<float>(int, float const*, int, int const*, int const*, "
    "float*)",
    NULL};
static const char *const k_argmax[] = {
    "void tensorflow::functor::BlockReduceKernel<cub::ArgIndexInputIterator<float const*, "
    "int, float>, long long*, 256, cub::ArgMax>(cub::ArgIndexInputIterator<float const*, int, "
    "float>, long long*, int, cub::ArgMax, std::iterator_traits<cub::ArgIndexInputIterator<"
    "float const*, int, float> >::value_type)",
    NULL};
static const char *const k_cast[] = {EIGEN_UNARY("scalar_cast_op"), NULL};
static const char *const k_apply[] = {EIGEN_BINARY("scalar_difference_op"), NULL};

struct opinfo {
	const char *name;
	unsigned flags;
	int cost;
	int max_kernels;
	const char *const *kernels; /* NULL-terminated; NULL: launches no kernel */
};

static const struct opinfo OPS[N_OPS] = {
    [OP_CONST] = {"Const", 0, COST_NONE, 0, NULL},
    [OP_VAR] = {"VariableV2", 0, COST_NONE, 0, NULL},
    [OP_IDENTITY] = {"Identity", F_FORWARD, COST_NONE, 0, NULL},
    [OP_RESHAPE] = {"Reshape", F_FORWARD, COST_NONE, 0, NULL},
    [OP_SHAPE] = {"Shape", F_HOSTOUT, COST_NONE, 0, NULL},
    [OP_SHAPEN] = {"ShapeN", F_HOSTOUT, COST_NONE, 0, NULL},
    [OP_CONV] = {"Conv2D", F_TEMP, COST_HEAVY, 3, k_conv},
    [OP_CONV_BI] = {"Conv2DBackpropInput", F_TEMP, COST_HEAVY, 3, k_conv_bi},
    [OP_CONV_BF] = {"Conv2DBackpropFilter", F_TEMP, COST_HEAVY, 2, k_conv_bf},
    [OP_MATMUL] = {"MatMul", F_TEMP, COST_HEAVY, 1, k_matmul},
    [OP_BIASADD] = {"BiasAdd", 0, COST_LIGHT, 1, k_biasadd},
    [OP_BIASADDGRAD] = {"BiasAddGrad", 0, COST_REDUCE, 1, k_biasaddgrad},
    [OP_RELU] = {"Relu", 0, COST_LIGHT, 1, k_relu},
    [OP_RELUGRAD] = {"ReluGrad", 0, COST_LIGHT, 1, k_relugrad},
    [OP_ADD] = {"Add", 0, COST_LIGHT, 1, k_add},
    [OP_ADDN] = {"AddN", 0, COST_LIGHT, 1, k_add},
    [OP_SUB] = {"Sub", 0, COST_LIGHT, 1, k_sub},
    [OP_MUL] = {"Mul", 0, COST_LIGHT, 1, k_mul},
    [OP_SUM] = {"Sum", F_TEMP, COST_REDUCE, 2, k_sum},
    [OP_MEAN] = {"Mean", 0, COST_REDUCE, 2, k_sum},
    [OP_SOFTMAX] = {"Softmax", 0, COST_REDUCE, 3, k_softmax},
    [OP_FBN] = {"FusedBatchNorm", F_TEMP, COST_REDUCE, 3, k_fbn},
    [OP_FBNGRAD] = {"FusedBatchNormGrad", 0, COST_REDUCE, 3, k_fbngrad},
    [OP_SPLIT] = {"Split", 0, COST_LIGHT, 1, k_split},
    [OP_CONCAT] = {"ConcatV2", 0, COST_LIGHT, 1, k_concat},
    [OP_MAXPOOL] = {"MaxPool", 0, COST_REDUCE, 3, k_maxpool},
    [OP_MAXPOOLGRAD] = {"MaxPoolGrad", 0, COST_REDUCE, 2, k_maxpoolgrad},
    [OP_XENT] = {"SparseSoftmaxCrossEntropyWithLogits", F_TEMP, COST_REDUCE, 2, k_xent},
    [OP_FILL] = {"Fill", 0, COST_LIGHT, 1, k_fill},
    [OP_TILE] = {"Tile", 0, COST_LIGHT, 1, k_tile},
    [OP_EXPANDDIMS] = {"ExpandDims", 0, COST_NONE, 0, NULL},
    [OP_ARGMAX] = {"ArgMax", 0, COST_REDUCE, 1, k_argmax},
    [OP_EQUAL] = {"Equal", 0, COST_LIGHT, 1, k_sub},
    [OP_CAST] = {"Cast", 0, COST_LIGHT, 1, k_cast},
    [OP_APPLYGD] = {"ApplyGradientDescent", F_FORWARD, COST_LIGHT, 1, k_apply},
    [OP_NOOP] = {"NoOp", 0, COST_NONE, 0, NULL},
    [OP_ARG] = {"_Arg", 0, COST_NONE, 0, NULL},
    [OP_RETVAL] = {"_Retval", 0, COST_NONE, 0, NULL},
    [OP_SEND] = {"_Send", 0, COST_NONE, 0, NULL},
    [OP_RECV] = {"_Recv", 0, COST_NONE, 0, NULL},
    [OP_HOSTSEND] = {"_HostSend", 0, COST_NONE, 0, NULL},
    [OP_HOSTRECV] = {"_HostRecv", 0, COST_NONE, 0, NULL},
    [OP_SWITCH] = {"Switch", F_FORWARD, COST_NONE, 0, NULL},
};

static bool op_is_send(int op)
{
	return op == OP_SEND || op == OP_HOSTSEND;
}

static bool op_is_recv(int op)
{
	return op == OP_RECV || op == OP_HOSTRECV;
}

/* ------------------------------------------------------------------ */
/* The graph                                                           */

struct shape {
	int nd;
	int64_t d[4];
};

struct tmeta {
	int dtype;
	struct shape shape;
};

struct ref {
	int node;
	int port; /* -1: a control input */
};

struct node {
	const char *name;
	int op;
	int dev;
	int in_off, n_in;   /* in model.refs, in NodeDef order */
	int out_off, n_out; /* in model.outs */
	int n_uses;	    /* data and control consumers */
	bool loop;	    /* executes --loop times per step */
	bool target;	    /* a NoOp grouping the step's dead ends */
	int run_first;	    /* loop body this node belongs to (first and last node) */
	int run_last;
	/* Split: num_split; Conv2D: stride; MatMul: 1 transpose_a, 2 transpose_b;
	 * Sum/Mean: keep_dims; _Arg/_Retval: index; AddN/ConcatV2: N */
	int aux;
	const int32_t *ivals; /* Const content: int values, or one float */
	int n_ivals;
	float fval;
	/* _Send/_Recv */
	int peer;
	int send_dev, recv_dev;
	bool client;
	const char *tensor_name;
	int first_send;	   /* on a producer: its first _Send */
	int next_send;	   /* on a _Send: the next _Send of the same producer */
	int exec_off;	   /* this node's executions in step.exec_of */
	const char *label; /* "name = Op(in0, in1)" */
	const char *annot; /* "name:Op", the CUPTI annotation */
};

struct model {
	tl_arena *arena;
	bool count_only; /* building only to count nodes: no names */
	struct node *nodes;
	int n_nodes, cap_nodes;
	struct ref *refs;
	int n_refs, cap_refs;
	struct tmeta *outs;
	int n_outs, cap_outs;
	GHashTable *names;
	const char *prefix; /* the scopes every model node sits in, or NULL */
	int n_model;	    /* nodes before partitioning */
	int *order;	    /* every node once, producers first, each _Send then its _Recv */
	int n_order;
};

#define GROW(arr, n, cap)                                                                          \
	do {                                                                                       \
		if ((n) >= (cap)) {                                                                \
			(cap) = (cap) ? 2 * (cap) : 256;                                           \
			(arr) = g_realloc_n((arr), (size_t)(cap), sizeof *(arr));                  \
		}                                                                                  \
	} while (0)

static struct shape shape0(void)
{
	return (struct shape){0, {0, 0, 0, 0}};
}

static struct shape shape1(int64_t a)
{
	return (struct shape){1, {a, 0, 0, 0}};
}

static struct shape shape2(int64_t a, int64_t b)
{
	return (struct shape){2, {a, b, 0, 0}};
}

static struct shape shape4(int64_t a, int64_t b, int64_t c, int64_t d)
{
	return (struct shape){4, {a, b, c, d}};
}

static int64_t shape_elems(const struct shape *s)
{
	int64_t e = 1;
	for (int i = 0; i < s->nd; i++)
		e *= s->d[i];
	return e;
}

static int64_t tmeta_bytes(const struct tmeta *t)
{
	return shape_elems(&t->shape) * dtype_size(t->dtype);
}

static const struct tmeta *meta_of(const struct model *m, struct ref r)
{
	return &m->outs[m->nodes[r.node].out_off + r.port];
}

static const char *unique_name(struct model *m, const char *name)
{
	gpointer key, val;
	if (!g_hash_table_lookup_extended(m->names, name, &key, &val)) {
		char *s = tl_arena_strdup(m->arena, name);
		g_hash_table_insert(m->names, s, GINT_TO_POINTER(0));
		return s;
	}
	/* TensorFlow makes a taken name unique with _1, _2, ... */
	int k = GPOINTER_TO_INT(val);
	char tmp[1024];
	do {
		k++;
		snprintf(tmp, sizeof tmp, "%s_%d", name, k);
	} while (g_hash_table_contains(m->names, tmp));
	g_hash_table_insert(m->names, key, GINT_TO_POINTER(k));
	char *s = tl_arena_strdup(m->arena, tmp);
	g_hash_table_insert(m->names, s, GINT_TO_POINTER(0));
	return s;
}

static int node_new(struct model *m, const char *name, int op, int dev, bool loop)
{
	GROW(m->nodes, m->n_nodes, m->cap_nodes);
	int id = m->n_nodes++;
	struct node *n = &m->nodes[id];
	memset(n, 0, sizeof *n);
	n->name = m->count_only ? "" : unique_name(m, name);
	n->op = op;
	n->dev = dev;
	n->loop = loop;
	n->run_first = n->run_last = -1;
	n->peer = -1;
	n->send_dev = n->recv_dev = -1;
	n->first_send = n->next_send = -1;
	n->in_off = m->n_refs;
	n->out_off = m->n_outs;
	return id;
}

static void node_input(struct model *m, int id, struct ref r)
{
	GROW(m->refs, m->n_refs, m->cap_refs);
	m->refs[m->n_refs++] = r;
	m->nodes[id].n_in++;
	m->nodes[r.node].n_uses++;
}

static struct ref node_output(struct model *m, int id, int dtype, struct shape s)
{
	GROW(m->outs, m->n_outs, m->cap_outs);
	m->outs[m->n_outs++] = (struct tmeta){dtype, s};
	int slot = m->nodes[id].n_out++;
	return (struct ref){id, slot};
}

/* ------------------------------------------------------------------ */
/* The model: layers, their gradients, towers, updates                 */

enum layer_kind {
	L_CONV,	    /* Conv2D + BiasAdd + Relu */
	L_CONV_BN,  /* Conv2D + FusedBatchNorm + Relu */
	L_RES,	    /* Conv2D + BiasAdd + Add(skip) + Relu */
	L_MIXED,    /* Split, Relu | Conv2D, ConcatV2 */
	L_POOL,	    /* MaxPool */
	L_FLATTEN,  /* Reshape to [B, H*W*C] */
	L_GAP,	    /* Mean over H, W */
	L_DENSE,    /* MatMul + BiasAdd + Relu */
	L_ATTN,	    /* MatMul + Softmax + Mul + Add */
	L_RESDENSE, /* MatMul + BiasAdd + Add(skip) + Relu */
	L_LOOP,	    /* a while-loop body: MatMul + BiasAdd + Relu + Add */
};

struct plan {
	int kind;
	char scope[40];	 /* "conv2d_3" */
	char scope2[48]; /* "batch_normalization_2" for L_CONV_BN, "while/rnn" */
	int stride;
	int64_t ch; /* output channels or units */
	bool tuple; /* gradients grouped by tuple/control_dependency */
	int vars[5];
};

struct var {
	int node, read;
	struct shape shape;
	bool trainable;
	struct ref grads[MAX_GPUS];
	int n_grads;
};

struct layer {
	struct ref x, y;
	struct ref t[6];
};

struct bld {
	struct model *m;
	const struct cfg *cfg;
	int n_dev;
	int dev;     /* device of the current tower */
	int var_dev; /* device of variables and their updates */
	char tw[24]; /* "tower_0/" or "" */
	bool in_loop;
	bool moving_avg; /* this tower updates batch-norm moving averages */
	bool full;	 /* more than the smallest model: preprocessing, metrics */
	int64_t batch, height, ch0, units, classes;
	struct var *vars;
	int n_vars, cap_vars;
	int lr; /* GradientDescent/learning_rate */
	char buf[1024];
	char sc[256]; /* scope of the layer being built, tower included */
	char gs[320]; /* its gradient scope */
};

static const char *nm(struct bld *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static const char *nm(struct bld *b, const char *fmt, ...)
{
	if (b->m->count_only)
		return "";
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(b->buf, sizeof b->buf, fmt, ap);
	va_end(ap);
	return b->buf;
}

/* A node of the model (not a _Send/_Recv of the partitioner, whose names
 * come from their producer's): below the model's prefix, if any. */
static int model_node(struct model *m, const char *name, int op, int dev, bool loop)
{
	if (m->prefix == NULL || m->count_only)
		return node_new(m, name, op, dev, loop);
	char *full = g_strconcat(m->prefix, name, NULL);
	int id = node_new(m, full, op, dev, loop);
	g_free(full);
	return id;
}

static int add(struct bld *b, const char *name, int op, int dev, const struct ref *in, int n_in)
{
	int id = model_node(b->m, name, op, dev, b->in_loop);
	for (int i = 0; i < n_in; i++)
		node_input(b->m, id, in[i]);
	return id;
}

#define IN(...)                                                                                    \
	(const struct ref[]){__VA_ARGS__},                                                         \
	    (int)(sizeof((const struct ref[]){__VA_ARGS__}) / sizeof(struct ref))

static struct ref nref(int node)
{
	return (struct ref){node, 0};
}

static struct ref pref(struct ref r, int port)
{
	return (struct ref){r.node, port};
}

static struct ref cref(struct ref r)
{
	return (struct ref){r.node, -1};
}

/* A one-output op of type F32 on the tower's device. */
static struct ref op1(struct bld *b, const char *name, int op, struct shape s, const struct ref *in,
		      int n_in)
{
	int id = add(b, name, op, b->dev, in, n_in);
	return node_output(b->m, id, F32, s);
}

static struct ref op1_aux(struct bld *b, const char *name, int op, int aux, struct shape s,
			  const struct ref *in, int n_in)
{
	struct ref r = op1(b, name, op, s, in, n_in);
	b->m->nodes[r.node].aux = aux;
	return r;
}

static struct ref const_i32(struct bld *b, int dev, const char *name, struct shape s,
			    const int32_t *vals, int n)
{
	int id = add(b, name, OP_CONST, dev, NULL, 0);
	struct node *nd = &b->m->nodes[id];
	if (!b->m->count_only) {
		int32_t *v = tl_arena_alloc(b->m->arena, sizeof *v * (size_t)n);
		memcpy(v, vals, sizeof *v * (size_t)n);
		nd->ivals = v;
		nd->n_ivals = n;
	}
	return node_output(b->m, id, I32, s);
}

static struct ref const_f32(struct bld *b, int dev, const char *name, struct shape s, float v)
{
	int id = add(b, name, OP_CONST, dev, NULL, 0);
	b->m->nodes[id].fval = v;
	return node_output(b->m, id, F32, s);
}

static int var_get(struct bld *b, struct plan *p, int k, const char *scope, const char *leaf,
		   struct shape s, bool trainable)
{
	if (p->vars[k] >= 0)
		return p->vars[k];
	bool loop = b->in_loop;
	b->in_loop = false;
	GROW(b->vars, b->n_vars, b->cap_vars);
	struct var *v = &b->vars[b->n_vars];
	memset(v, 0, sizeof *v);
	v->shape = s;
	v->trainable = trainable;
	v->node = add(b, nm(b, "%s/%s", scope, leaf), OP_VAR, b->var_dev, NULL, 0);
	node_output(b->m, v->node, F32REF, s);
	v->read =
	    add(b, nm(b, "%s/%s/read", scope, leaf), OP_IDENTITY, b->var_dev, IN(nref(v->node)));
	node_output(b->m, v->read, F32, s);
	b->in_loop = loop;
	p->vars[k] = b->n_vars++;
	return p->vars[k];
}

static struct ref rd(struct bld *b, int v)
{
	return nref(b->vars[v].read);
}

static void grad_add(struct bld *b, int v, struct ref g)
{
	struct var *var = &b->vars[v];
	if (var->n_grads < MAX_GPUS)
		var->grads[var->n_grads++] = g;
}

static void scopes(struct bld *b, const char *scope)
{
	if (b->m->count_only)
		return;
	snprintf(b->sc, sizeof b->sc, "%s%s", b->tw, scope);
	snprintf(b->gs, sizeof b->gs, "%sgradients/%s%s", b->tw, b->tw, scope);
}

/* Groups two gradients as tf.tuple does: a NoOp waiting for both, and an
 * Identity of each with a control input on it. */
static void tuple2(struct bld *b, const char *scope, struct ref *a, struct ref *c)
{
	char gscope[512];
	snprintf(gscope, sizeof gscope, "%s", scope); /* scope may be b->buf */
	int gd =
	    add(b, nm(b, "%s/tuple/group_deps", gscope), OP_NOOP, b->dev, IN(cref(*a), cref(*c)));
	struct ref g = nref(gd);
	struct shape sa = meta_of(b->m, *a)->shape, scc = meta_of(b->m, *c)->shape;
	*a = op1(b, nm(b, "%s/tuple/control_dependency", gscope), OP_IDENTITY, sa, IN(*a, cref(g)));
	*c = op1(b, nm(b, "%s/tuple/control_dependency_1", gscope), OP_IDENTITY, scc,
		 IN(*c, cref(g)));
}

static struct ref shapen(struct bld *b, const char *name, struct ref x, struct ref k)
{
	int id = add(b, name, OP_SHAPEN, b->dev, IN(x, k));
	b->m->nodes[id].aux = 2;
	struct ref r = node_output(b->m, id, I32, shape1(meta_of(b->m, x)->shape.nd));
	node_output(b->m, id, I32, shape1(4));
	return r;
}

/* Conv2DBackpropInput and Conv2DBackpropFilter of a Conv2D(x, k). */
static struct ref conv_grads(struct bld *b, const char *scope, struct ref x, int kv, struct ref dy,
			     bool need_dx)
{
	char gscope[512];
	snprintf(gscope, sizeof gscope, "%s", scope); /* scope may be b->buf */
	struct ref kr = rd(b, kv);
	struct ref sn = shapen(b, nm(b, "%s/ShapeN", gscope), x, kr);
	struct ref dx = {-1, 0};
	if (need_dx)
		dx = op1(b, nm(b, "%s/Conv2DBackpropInput", gscope), OP_CONV_BI,
			 meta_of(b->m, x)->shape, IN(pref(sn, 0), kr, dy));
	struct ref dk = op1(b, nm(b, "%s/Conv2DBackpropFilter", gscope), OP_CONV_BF,
			    b->vars[kv].shape, IN(x, pref(sn, 1), dy));
	grad_add(b, kv, dk);
	return dx;
}

static struct ref addn(struct bld *b, const struct ref *in, int n)
{
	struct shape s = meta_of(b->m, in[0])->shape;
	return op1_aux(b, nm(b, "%sgradients/AddN", b->tw), OP_ADDN, n, s, in, n);
}

static struct shape conv_out(struct shape x, int stride, int64_t ch)
{
	int64_t h = (x.d[1] + stride - 1) / stride, w = (x.d[2] + stride - 1) / stride;
	return shape4(x.d[0], h, w, ch);
}

static void fwd_conv(struct bld *b, struct plan *p, struct layer *l)
{
	struct shape xs = meta_of(b->m, l->x)->shape;
	int kv = var_get(b, p, 0, p->scope, "kernel", shape4(3, 3, xs.d[3], p->ch), true);
	int bv = var_get(b, p, 1, p->scope, "bias", shape1(p->ch), true);
	struct shape ys = conv_out(xs, p->stride, p->ch);
	l->t[0] =
	    op1_aux(b, nm(b, "%s/Conv2D", b->sc), OP_CONV, p->stride, ys, IN(l->x, rd(b, kv)));
	l->t[1] = op1(b, nm(b, "%s/BiasAdd", b->sc), OP_BIASADD, ys, IN(l->t[0], rd(b, bv)));
	l->y = op1(b, nm(b, "%s/Relu", b->sc), OP_RELU, ys, IN(l->t[1]));
}

static struct ref bwd_conv(struct bld *b, struct plan *p, struct layer *l, struct ref dy,
			   bool need_dx)
{
	struct shape ys = meta_of(b->m, l->y)->shape;
	struct ref rg =
	    op1(b, nm(b, "%s/Relu_grad/ReluGrad", b->gs), OP_RELUGRAD, ys, IN(dy, l->y));
	struct ref bg = op1(b, nm(b, "%s/BiasAdd_grad/BiasAddGrad", b->gs), OP_BIASADDGRAD,
			    shape1(p->ch), IN(rg));
	if (p->tuple)
		tuple2(b, nm(b, "%s/BiasAdd_grad", b->gs), &rg, &bg);
	grad_add(b, p->vars[1], bg);
	return conv_grads(b, nm(b, "%s/Conv2D_grad", b->gs), l->x, p->vars[0], rg, need_dx);
}

static void fwd_conv_bn(struct bld *b, struct plan *p, struct layer *l)
{
	struct shape xs = meta_of(b->m, l->x)->shape;
	int kv = var_get(b, p, 0, p->scope, "kernel", shape4(3, 3, xs.d[3], p->ch), true);
	int gv = var_get(b, p, 1, p->scope2, "gamma", shape1(p->ch), true);
	int bv = var_get(b, p, 2, p->scope2, "beta", shape1(p->ch), true);
	int mv = var_get(b, p, 3, p->scope2, "moving_mean", shape1(p->ch), false);
	int vv = var_get(b, p, 4, p->scope2, "moving_variance", shape1(p->ch), false);
	struct shape ys = conv_out(xs, p->stride, p->ch);
	char bn[96];
	snprintf(bn, sizeof bn, "%s%s", b->tw, p->scope2);
	l->t[0] =
	    op1_aux(b, nm(b, "%s/Conv2D", b->sc), OP_CONV, p->stride, ys, IN(l->x, rd(b, kv)));
	struct ref c0 = const_f32(b, b->dev, nm(b, "%s/Const", bn), shape1(0), 0.0f);
	struct ref c1 = const_f32(b, b->dev, nm(b, "%s/Const_1", bn), shape1(0), 0.0f);
	int fbn = add(b, nm(b, "%s/FusedBatchNorm", bn), OP_FBN, b->dev,
		      IN(l->t[0], rd(b, gv), rd(b, bv), c0, c1));
	l->t[1] = node_output(b->m, fbn, F32, ys);
	for (int i = 0; i < 4; i++)
		node_output(b->m, fbn, F32, shape1(p->ch));
	l->y = op1(b, nm(b, "%s/Relu", b->sc), OP_RELU, ys, IN(l->t[1]));
	if (!b->moving_avg)
		return;
	/* The moving averages: dead ends the step still runs (grouped later). */
	for (int i = 0; i < 2; i++) {
		const char *suffix = i == 0 ? "" : "_1";
		struct ref dec = const_f32(
		    b, b->dev, nm(b, "%s/AssignMovingAvg%s/decay", bn, suffix), shape0(), 0.01f);
		struct ref s =
		    op1(b, nm(b, "%s/AssignMovingAvg%s/sub", bn, suffix), OP_SUB, shape1(p->ch),
			IN(rd(b, i == 0 ? mv : vv), pref(nref(fbn), 1 + i)));
		op1(b, nm(b, "%s/AssignMovingAvg%s/mul", bn, suffix), OP_MUL, shape1(p->ch),
		    IN(s, dec));
	}
}

static struct ref bwd_conv_bn(struct bld *b, struct plan *p, struct layer *l, struct ref dy,
			      bool need_dx)
{
	struct shape ys = meta_of(b->m, l->y)->shape;
	struct ref rg =
	    op1(b, nm(b, "%s/Relu_grad/ReluGrad", b->gs), OP_RELUGRAD, ys, IN(dy, l->y));
	int fbn = l->t[1].node;
	int id = add(b,
		     nm(b, "%sgradients/%s%s/FusedBatchNorm_grad/FusedBatchNormGrad", b->tw, b->tw,
			p->scope2),
		     OP_FBNGRAD, b->dev,
		     IN(rg, l->t[0], rd(b, p->vars[1]), pref(nref(fbn), 3), pref(nref(fbn), 4)));
	struct ref dconv = node_output(b->m, id, F32, ys);
	struct ref dg = node_output(b->m, id, F32, shape1(p->ch));
	struct ref db = node_output(b->m, id, F32, shape1(p->ch));
	node_output(b->m, id, F32, shape1(0));
	node_output(b->m, id, F32, shape1(0));
	grad_add(b, p->vars[1], dg);
	grad_add(b, p->vars[2], db);
	return conv_grads(b, nm(b, "%s/Conv2D_grad", b->gs), l->x, p->vars[0], dconv, need_dx);
}

static void fwd_res(struct bld *b, struct plan *p, struct layer *l)
{
	struct shape xs = meta_of(b->m, l->x)->shape;
	int kv = var_get(b, p, 0, p->scope, "kernel", shape4(3, 3, xs.d[3], xs.d[3]), true);
	int bv = var_get(b, p, 1, p->scope, "bias", shape1(xs.d[3]), true);
	l->t[0] = op1_aux(b, nm(b, "%s/Conv2D", b->sc), OP_CONV, 1, xs, IN(l->x, rd(b, kv)));
	l->t[1] = op1(b, nm(b, "%s/BiasAdd", b->sc), OP_BIASADD, xs, IN(l->t[0], rd(b, bv)));
	l->t[2] = op1(b, nm(b, "%s/add", b->sc), OP_ADD, xs, IN(l->x, l->t[1]));
	l->y = op1(b, nm(b, "%s/Relu", b->sc), OP_RELU, xs, IN(l->t[2]));
}

static struct ref bwd_res(struct bld *b, struct plan *p, struct layer *l, struct ref dy,
			  bool need_dx)
{
	struct shape xs = meta_of(b->m, l->x)->shape;
	struct ref rg =
	    op1(b, nm(b, "%s/Relu_grad/ReluGrad", b->gs), OP_RELUGRAD, xs, IN(dy, l->y));
	struct ref bg = op1(b, nm(b, "%s/BiasAdd_grad/BiasAddGrad", b->gs), OP_BIASADDGRAD,
			    shape1(xs.d[3]), IN(rg));
	grad_add(b, p->vars[1], bg);
	struct ref dxc =
	    conv_grads(b, nm(b, "%s/Conv2D_grad", b->gs), l->x, p->vars[0], rg, need_dx);
	if (!need_dx)
		return dxc;
	return addn(b, IN(rg, dxc));
}

static void fwd_mixed(struct bld *b, struct plan *p, struct layer *l)
{
	struct shape xs = meta_of(b->m, l->x)->shape;
	struct shape hs = shape4(xs.d[0], xs.d[1], xs.d[2], xs.d[3] / 2);
	int kv = var_get(b, p, 0, p->scope, "kernel", shape4(1, 1, hs.d[3], hs.d[3]), true);
	int32_t three = 3;
	struct ref ax =
	    const_i32(b, b->dev, nm(b, "%s/split/split_dim", b->sc), shape0(), &three, 1);
	int sp = add(b, nm(b, "%s/split", b->sc), OP_SPLIT, b->dev, IN(ax, l->x));
	b->m->nodes[sp].aux = 2;
	l->t[0] = node_output(b->m, sp, F32, hs);
	l->t[1] = node_output(b->m, sp, F32, hs);
	l->t[2] = op1(b, nm(b, "%s/Relu", b->sc), OP_RELU, hs, IN(l->t[0]));
	l->t[3] = op1_aux(b, nm(b, "%s/Conv2D", b->sc), OP_CONV, 1, hs, IN(l->t[1], rd(b, kv)));
	struct ref ax2 = const_i32(b, b->dev, nm(b, "%s/concat/axis", b->sc), shape0(), &three, 1);
	l->y = op1_aux(b, nm(b, "%s/concat", b->sc), OP_CONCAT, 2, xs, IN(l->t[2], l->t[3], ax2));
}

static struct ref bwd_mixed(struct bld *b, struct plan *p, struct layer *l, struct ref dy,
			    bool need_dx)
{
	struct shape xs = meta_of(b->m, l->x)->shape;
	struct shape hs = meta_of(b->m, l->t[0])->shape;
	int32_t three = 3;
	struct ref ax = const_i32(b, b->dev, nm(b, "%s/concat_grad/Split/split_dim", b->gs),
				  shape0(), &three, 1);
	int sp = add(b, nm(b, "%s/concat_grad/Split", b->gs), OP_SPLIT, b->dev, IN(ax, dy));
	b->m->nodes[sp].aux = 2;
	struct ref d0 = node_output(b->m, sp, F32, hs);
	struct ref d1 = node_output(b->m, sp, F32, hs);
	struct ref dci =
	    conv_grads(b, nm(b, "%s/Conv2D_grad", b->gs), l->t[1], p->vars[0], d1, need_dx);
	if (!need_dx)
		return dci;
	struct ref da =
	    op1(b, nm(b, "%s/Relu_grad/ReluGrad", b->gs), OP_RELUGRAD, hs, IN(d0, l->t[2]));
	struct ref ax2 =
	    const_i32(b, b->dev, nm(b, "%s/split_grad/concat/axis", b->gs), shape0(), &three, 1);
	return op1_aux(b, nm(b, "%s/split_grad/concat", b->gs), OP_CONCAT, 2, xs, IN(da, dci, ax2));
}

static void fwd_pool(struct bld *b, struct plan *p, struct layer *l)
{
	(void)p;
	struct shape xs = meta_of(b->m, l->x)->shape;
	l->y = op1(b, nm(b, "%s/MaxPool", b->sc), OP_MAXPOOL, conv_out(xs, 2, xs.d[3]), IN(l->x));
}

static struct ref bwd_pool(struct bld *b, struct layer *l, struct ref dy)
{
	return op1(b, nm(b, "%s/MaxPool_grad/MaxPoolGrad", b->gs), OP_MAXPOOLGRAD,
		   meta_of(b->m, l->x)->shape, IN(l->x, l->y, dy));
}

static void fwd_flatten(struct bld *b, struct layer *l)
{
	struct shape xs = meta_of(b->m, l->x)->shape;
	int64_t f = xs.d[1] * xs.d[2] * xs.d[3];
	int32_t dims[2] = {-1, (int32_t)f};
	struct ref s = const_i32(b, b->dev, nm(b, "%s/Reshape/shape", b->sc), shape1(2), dims, 2);
	l->y = op1(b, nm(b, "%s/Reshape", b->sc), OP_RESHAPE, shape2(xs.d[0], f), IN(l->x, s));
}

static struct ref bwd_flatten(struct bld *b, struct layer *l, struct ref dy)
{
	int id = add(b, nm(b, "%s/Reshape_grad/Shape", b->gs), OP_SHAPE, b->dev, IN(l->x));
	struct ref s = node_output(b->m, id, I32, shape1(4));
	return op1(b, nm(b, "%s/Reshape_grad/Reshape", b->gs), OP_RESHAPE,
		   meta_of(b->m, l->x)->shape, IN(dy, s));
}

static void fwd_gap(struct bld *b, struct layer *l)
{
	struct shape xs = meta_of(b->m, l->x)->shape;
	int32_t axes[2] = {1, 2};
	struct ref ri =
	    const_i32(b, b->dev, nm(b, "%s/Mean/reduction_indices", b->sc), shape1(2), axes, 2);
	l->y = op1(b, nm(b, "%s/Mean", b->sc), OP_MEAN, shape2(xs.d[0], xs.d[3]), IN(l->x, ri));
}

static struct ref bwd_gap(struct bld *b, struct layer *l, struct ref dy)
{
	struct shape xs = meta_of(b->m, l->x)->shape;
	int32_t dims[4] = {(int32_t)xs.d[0], 1, 1, (int32_t)xs.d[3]};
	int32_t mult[4] = {1, (int32_t)xs.d[1], (int32_t)xs.d[2], 1};
	struct ref s =
	    const_i32(b, b->dev, nm(b, "%s/Mean_grad/Reshape/shape", b->gs), shape1(4), dims, 4);
	struct ref r = op1(b, nm(b, "%s/Mean_grad/Reshape", b->gs), OP_RESHAPE,
			   shape4(xs.d[0], 1, 1, xs.d[3]), IN(dy, s));
	struct ref mu =
	    const_i32(b, b->dev, nm(b, "%s/Mean_grad/Tile/multiples", b->gs), shape1(4), mult, 4);
	struct ref t = op1(b, nm(b, "%s/Mean_grad/Tile", b->gs), OP_TILE, xs, IN(r, mu));
	struct ref c = const_f32(b, b->dev, nm(b, "%s/Mean_grad/mul/y", b->gs), shape0(),
				 1.0f / (float)(xs.d[1] * xs.d[2]));
	return op1(b, nm(b, "%s/Mean_grad/mul", b->gs), OP_MUL, xs, IN(t, c));
}

static void fwd_dense(struct bld *b, struct plan *p, struct layer *l)
{
	struct shape xs = meta_of(b->m, l->x)->shape;
	struct shape ys = shape2(xs.d[0], p->ch);
	int kv = var_get(b, p, 0, p->scope, "kernel", shape2(xs.d[1], p->ch), true);
	int bv = var_get(b, p, 1, p->scope, "bias", shape1(p->ch), true);
	l->t[0] = op1(b, nm(b, "%s/MatMul", b->sc), OP_MATMUL, ys, IN(l->x, rd(b, kv)));
	l->t[1] = op1(b, nm(b, "%s/BiasAdd", b->sc), OP_BIASADD, ys, IN(l->t[0], rd(b, bv)));
	if (p->kind == L_RESDENSE) {
		l->t[2] = op1(b, nm(b, "%s/add", b->sc), OP_ADD, ys, IN(l->x, l->t[1]));
		l->y = op1(b, nm(b, "%s/Relu", b->sc), OP_RELU, ys, IN(l->t[2]));
	} else {
		l->y = op1(b, nm(b, "%s/Relu", b->sc), OP_RELU, ys, IN(l->t[1]));
	}
}

/* The gradients of MatMul(x, k) for an upstream gradient d. */
static struct ref matmul_grads(struct bld *b, const char *scope, struct ref x, int kv, struct ref d,
			       bool need_dx, bool tuple)
{
	char gscope[512];
	snprintf(gscope, sizeof gscope, "%s", scope); /* scope may be b->buf */
	struct ref dk =
	    op1_aux(b, nm(b, "%s/MatMul_1", gscope), OP_MATMUL, 1, b->vars[kv].shape, IN(x, d));
	struct ref dx = {-1, 0};
	if (need_dx) {
		dx = op1_aux(b, nm(b, "%s/MatMul", gscope), OP_MATMUL, 2, meta_of(b->m, x)->shape,
			     IN(d, rd(b, kv)));
		if (tuple)
			tuple2(b, gscope, &dx, &dk);
	}
	grad_add(b, kv, dk);
	return dx;
}

static struct ref bwd_dense(struct bld *b, struct plan *p, struct layer *l, struct ref dy,
			    bool need_dx)
{
	struct shape ys = meta_of(b->m, l->y)->shape;
	struct ref rg =
	    op1(b, nm(b, "%s/Relu_grad/ReluGrad", b->gs), OP_RELUGRAD, ys, IN(dy, l->y));
	struct ref bg = op1(b, nm(b, "%s/BiasAdd_grad/BiasAddGrad", b->gs), OP_BIASADDGRAD,
			    shape1(p->ch), IN(rg));
	grad_add(b, p->vars[1], bg);
	struct ref dx = matmul_grads(b, nm(b, "%s/MatMul_grad", b->gs), l->x, p->vars[0], rg,
				     need_dx, p->tuple);
	if (!need_dx || p->kind != L_RESDENSE)
		return dx;
	return addn(b, IN(rg, dx));
}

static void fwd_attn(struct bld *b, struct plan *p, struct layer *l)
{
	struct shape xs = meta_of(b->m, l->x)->shape;
	int wv = var_get(b, p, 0, p->scope, "kernel", shape2(xs.d[1], xs.d[1]), true);
	l->t[0] = op1(b, nm(b, "%s/MatMul", b->sc), OP_MATMUL, xs, IN(l->x, rd(b, wv)));
	l->t[1] = op1(b, nm(b, "%s/Softmax", b->sc), OP_SOFTMAX, xs, IN(l->t[0]));
	l->t[2] = op1(b, nm(b, "%s/mul", b->sc), OP_MUL, xs, IN(l->t[1], l->x));
	l->y = op1(b, nm(b, "%s/add", b->sc), OP_ADD, xs, IN(l->t[2], l->x));
}

static struct ref bwd_attn(struct bld *b, struct plan *p, struct layer *l, struct ref dy,
			   bool need_dx)
{
	struct shape xs = meta_of(b->m, l->x)->shape;
	struct ref sm = l->t[1];
	struct ref dsm = op1(b, nm(b, "%s/mul_grad/Mul", b->gs), OP_MUL, xs, IN(dy, l->x));
	struct ref m1 = op1(b, nm(b, "%s/Softmax_grad/mul", b->gs), OP_MUL, xs, IN(dsm, sm));
	int32_t one = 1;
	struct ref ri = const_i32(b, b->dev, nm(b, "%s/Softmax_grad/Sum/reduction_indices", b->gs),
				  shape1(1), &one, 1);
	struct ref s = op1_aux(b, nm(b, "%s/Softmax_grad/Sum", b->gs), OP_SUM, 1,
			       shape2(xs.d[0], 1), IN(m1, ri));
	struct ref sub = op1(b, nm(b, "%s/Softmax_grad/sub", b->gs), OP_SUB, xs, IN(dsm, s));
	struct ref dq = op1(b, nm(b, "%s/Softmax_grad/mul_1", b->gs), OP_MUL, xs, IN(sub, sm));
	struct ref dx3 =
	    matmul_grads(b, nm(b, "%s/MatMul_grad", b->gs), l->x, p->vars[0], dq, need_dx, false);
	if (!need_dx)
		return dx3;
	struct ref dx2 = op1(b, nm(b, "%s/mul_grad/Mul_1", b->gs), OP_MUL, xs, IN(sm, dy));
	return addn(b, IN(dy, dx2, dx3));
}

static void fwd_loop(struct bld *b, struct plan *p, struct layer *l)
{
	struct shape xs = meta_of(b->m, l->x)->shape;
	int kv = var_get(b, p, 0, p->scope, "kernel", shape2(xs.d[1], xs.d[1]), false);
	int bv = var_get(b, p, 1, p->scope, "bias", shape1(xs.d[1]), false);
	struct ref kr = rd(b, kv), br = rd(b, bv);
	b->in_loop = true;
	l->t[0] = op1(b, nm(b, "%s/MatMul", b->sc), OP_MATMUL, xs, IN(l->x, kr));
	l->t[1] = op1(b, nm(b, "%s/BiasAdd", b->sc), OP_BIASADD, xs, IN(l->t[0], br));
	/* --split-loop: as TensorFlow places an op without a GPU kernel, the
	 * Relu runs on the CPU, so its input and output cross devices in
	 * every iteration */
	int dev = b->dev;
	if (b->cfg->split_loop)
		b->dev = 0;
	l->t[2] = op1(b, nm(b, "%s/Relu", b->sc), OP_RELU, xs, IN(l->t[1]));
	b->dev = dev;
	l->y = op1(b, nm(b, "%s/add", b->sc), OP_ADD, xs, IN(l->t[2], l->x));
	b->in_loop = false;
}

static struct ref bwd_loop(struct bld *b, struct layer *l, struct ref dy)
{
	/* The loop is not differentiated: its skip connection passes dy on. */
	return op1(b, nm(b, "%s/add_grad/tuple/control_dependency", b->gs), OP_IDENTITY,
		   meta_of(b->m, l->x)->shape, IN(dy));
}

static bool has_params(int kind)
{
	return kind != L_POOL && kind != L_FLATTEN && kind != L_GAP && kind != L_LOOP;
}

static void forward(struct bld *b, struct plan *p, struct layer *l)
{
	scopes(b, p->kind == L_LOOP ? p->scope2 : p->scope);
	switch (p->kind) {
	case L_CONV:
		fwd_conv(b, p, l);
		break;
	case L_CONV_BN:
		fwd_conv_bn(b, p, l);
		break;
	case L_RES:
		fwd_res(b, p, l);
		break;
	case L_MIXED:
		fwd_mixed(b, p, l);
		break;
	case L_POOL:
		fwd_pool(b, p, l);
		break;
	case L_FLATTEN:
		fwd_flatten(b, l);
		break;
	case L_GAP:
		fwd_gap(b, l);
		break;
	case L_DENSE:
	case L_RESDENSE:
		fwd_dense(b, p, l);
		break;
	case L_ATTN:
		fwd_attn(b, p, l);
		break;
	case L_LOOP:
		fwd_loop(b, p, l);
		break;
	}
}

/* Returns the gradient for the layer's input (node -1 when not needed). */
static struct ref backward(struct bld *b, struct plan *p, struct layer *l, struct ref dy,
			   bool need_dx)
{
	struct ref none = {-1, 0};
	scopes(b, p->kind == L_LOOP ? p->scope2 : p->scope);
	switch (p->kind) {
	case L_CONV:
		return bwd_conv(b, p, l, dy, need_dx);
	case L_CONV_BN:
		return bwd_conv_bn(b, p, l, dy, need_dx);
	case L_RES:
		return bwd_res(b, p, l, dy, need_dx);
	case L_MIXED:
		return bwd_mixed(b, p, l, dy, need_dx);
	case L_POOL:
		return need_dx ? bwd_pool(b, l, dy) : none;
	case L_FLATTEN:
		return need_dx ? bwd_flatten(b, l, dy) : none;
	case L_GAP:
		return need_dx ? bwd_gap(b, l, dy) : none;
	case L_DENSE:
	case L_RESDENSE:
		return bwd_dense(b, p, l, dy, need_dx);
	case L_ATTN:
		return bwd_attn(b, p, l, dy, need_dx);
	case L_LOOP:
		return need_dx ? bwd_loop(b, l, dy) : none;
	}
	return none;
}

/* Draws the model's global sizes (the same whatever --ops is). */
static void model_params(struct bld *b)
{
	uint64_t r = stream_seed(b->cfg->seed, TAG_PLAN, 0);
	static const int64_t batches[] = {16, 32, 32, 64};
	static const int64_t heights[] = {28, 32, 32, 56};
	static const int64_t chans[] = {16, 32, 32, 64};
	static const int64_t units[] = {256, 512, 512, 1024};
	static const int64_t classes[] = {10, 100, 1000, 1000};
	b->batch = batches[rnd(&r, 0, 3)];
	b->height = heights[rnd(&r, 0, 3)];
	b->ch0 = chans[rnd(&r, 0, 3)];
	b->units = units[rnd(&r, 0, 3)];
	b->classes = classes[rnd(&r, 0, 3)];
}

static void plan_scope(char *dst, size_t size, const char *base, int *counter)
{
	if (*counter == 0)
		snprintf(dst, size, "%s", base);
	else
		snprintf(dst, size, "%s_%d", base, *counter);
	(*counter)++;
}

enum { C_CONV, C_BN, C_RES, C_MIXED, C_POOL, C_DENSE, C_ATTN, C_RESD, C_RNN, N_COUNTERS };

static const char *const SCOPE_BASE[N_COUNTERS] = {
    "conv2d", "batch_normalization", "res_block", "mixed", "max_pooling2d",
    "dense",  "attention",	     "residual",  "rnn",
};

static void plan_init(struct plan *p, int kind, int counter, int *counters, uint64_t *r)
{
	memset(p, 0, sizeof *p);
	p->kind = kind;
	p->stride = 1;
	p->tuple = chance(r, 50);
	for (int i = 0; i < 5; i++)
		p->vars[i] = -1;
	plan_scope(p->scope, sizeof p->scope, SCOPE_BASE[counter], &counters[counter]);
	if (kind == L_CONV_BN)
		plan_scope(p->scope2, sizeof p->scope2, SCOPE_BASE[C_BN], &counters[C_BN]);
	if (kind == L_LOOP)
		snprintf(p->scope2, sizeof p->scope2, "while/%s", p->scope);
}

/* The layers of an L-layer model: about half convolutional (with
 * downsampling every fourth layer), a global pool or flatten, then dense
 * layers; the loop body sits a third into the dense part. The last entry is
 * the logits layer. L = 0 is the smallest model: logits on a feature vector. */
static struct plan *plan_make(const struct bld *b, int L, int *n_out)
{
	int la = (L + 1) / 2, lb = L - la;
	int cap = L + 4;
	struct plan *pl = g_new0(struct plan, cap);
	int counters[N_COUNTERS] = {0};
	int n = 0;
	int64_t h = b->height, c = 3;
	for (int i = 0; i < la; i++) {
		uint64_t r = stream_seed(b->cfg->seed, TAG_PLAN, 1 + (uint64_t)i);
		struct plan *p = &pl[n++];
		bool down = h > 7 && i % 4 == 3;
		int64_t pick = rnd(&r, 0, 99);
		if (i == 0) {
			plan_init(p, pick < 50 ? L_CONV : L_CONV_BN, C_CONV, counters, &r);
			p->ch = b->ch0;
		} else if (down && pick < 30) {
			plan_init(p, L_POOL, C_POOL, counters, &r);
			p->ch = c;
		} else if (down) {
			plan_init(p, pick < 65 ? L_CONV : L_CONV_BN, C_CONV, counters, &r);
			p->stride = 2;
			p->ch = c * 2 > 512 ? 512 : c * 2;
		} else if (pick < 30) {
			plan_init(p, L_CONV, C_CONV, counters, &r);
			p->ch = c;
		} else if (pick < 55) {
			plan_init(p, L_CONV_BN, C_CONV, counters, &r);
			p->ch = c;
		} else if (pick < 75) {
			plan_init(p, L_RES, C_RES, counters, &r);
			p->ch = c;
		} else {
			plan_init(p, L_MIXED, C_MIXED, counters, &r);
			p->ch = c;
		}
		if (down)
			h = (h + 1) / 2;
		c = p->ch;
	}
	uint64_t r0 = stream_seed(b->cfg->seed, TAG_PLAN, 1000000);
	if (L > 0) {
		struct plan *flat = &pl[n++];
		memset(flat, 0, sizeof *flat);
		flat->kind = la == 0 ? L_FLATTEN : L_GAP;
		snprintf(flat->scope, sizeof flat->scope, "%s",
			 la == 0 ? "flatten" : "global_average_pooling2d");
		for (int i = 0; i < 5; i++)
			flat->vars[i] = -1;
	}
	if (b->cfg->loop > 1 && lb == 0) {
		struct plan *lp = &pl[n++];
		plan_init(lp, L_LOOP, C_RNN, counters, &r0);
		lp->ch = b->units;
	}
	for (int j = 0; j < lb; j++) {
		uint64_t r = stream_seed(b->cfg->seed, TAG_PLAN, 2000000 + (uint64_t)j);
		struct plan *p = &pl[n++];
		int64_t pick = rnd(&r, 0, 99);
		if (j == 0 || pick < 40)
			plan_init(p, L_DENSE, C_DENSE, counters, &r);
		else if (pick < 65)
			plan_init(p, L_ATTN, C_ATTN, counters, &r);
		else
			plan_init(p, L_RESDENSE, C_RESD, counters, &r);
		p->ch = b->units;
		if (b->cfg->loop > 1 && j == lb / 3) {
			struct plan *lp = &pl[n++];
			plan_init(lp, L_LOOP, C_RNN, counters, &r);
			lp->ch = b->units;
		}
	}
	struct plan *logits = &pl[n];
	plan_init(logits, L_DENSE, C_DENSE, counters, &r0);
	snprintf(logits->scope, sizeof logits->scope, "logits");
	logits->ch = b->classes;
	*n_out = n;
	return pl;
}

/* With --quirks the per-example loss passes a Switch, as through a
 * tf.cond: the Sum reads the true branch (slot 1), nothing reads slot 0. */
static struct ref cond_switch(struct bld *b, const char *scope, struct ref x)
{
	char sc[160];
	snprintf(sc, sizeof sc, "%s", scope); /* scope may be b->buf */
	struct tmeta t = *meta_of(b->m, x);
	int pid = add(b, nm(b, "%s/cond/pred_id", sc), OP_CONST, b->dev, NULL, 0);
	b->m->nodes[pid].fval = 1.0f;
	struct ref pred = node_output(b->m, pid, BOOL, shape0());
	int sw = add(b, nm(b, "%s/cond/Switch", sc), OP_SWITCH, b->dev, IN(x, pred));
	node_output(b->m, sw, t.dtype, t.shape);
	node_output(b->m, sw, t.dtype, t.shape);
	return (struct ref){sw, 1};
}

/* The logits layer, the loss and the start of the backward pass. */
static struct ref build_loss(struct bld *b, struct plan *lp, struct ref x, struct ref labels,
			     bool need_dx, struct ref *loss, struct ref *logits)
{
	bool tiny = !b->full; /* the loss is the plain sum */
	struct model *m = b->m;
	scopes(b, lp->scope);
	struct shape xs = meta_of(m, x)->shape;
	int64_t bt = xs.d[0];
	struct shape ys = shape2(bt, b->classes);
	int kv = var_get(b, lp, 0, lp->scope, "kernel", shape2(xs.d[1], b->classes), true);
	int bv = var_get(b, lp, 1, lp->scope, "bias", shape1(b->classes), true);
	struct ref mm = op1(b, nm(b, "%s/MatMul", b->sc), OP_MATMUL, ys, IN(x, rd(b, kv)));
	struct ref lg = op1(b, nm(b, "%s/BiasAdd", b->sc), OP_BIASADD, ys, IN(mm, rd(b, bv)));
	*logits = lg;

	char ls[64], gl[160], gx[320];
	snprintf(ls, sizeof ls, "%sloss", b->tw);
	snprintf(gl, sizeof gl, "%sgradients/%sloss", b->tw, b->tw);
	snprintf(gx, sizeof gx,
		 "%s/SparseSoftmaxCrossEntropyWithLogits/SparseSoftmaxCrossEntropyWithLogits_grad",
		 gl);
	int xe = add(b,
		     nm(b,
			"%s/SparseSoftmaxCrossEntropyWithLogits/"
			"SparseSoftmaxCrossEntropyWithLogits",
			ls),
		     OP_XENT, b->dev, IN(lg, labels));
	struct ref xl = node_output(m, xe, F32, shape1(bt));
	struct ref xg = node_output(m, xe, F32, ys);
	int32_t zero = 0, one = 1, minus1 = -1;
	struct ref ax = const_i32(b, b->dev, nm(b, "%s/Const", ls), shape1(1), &zero, 1);
	struct ref xs_in = b->cfg->quirks ? cond_switch(b, ls, xl) : xl;
	struct ref sum = op1_aux(b, nm(b, "%s/Sum", ls), OP_SUM, 0, shape0(), IN(xs_in, ax));
	struct ref scale = {-1, 0};
	*loss = sum;
	if (!tiny) {
		scale = const_f32(b, b->dev, nm(b, "%s/mul/y", ls), shape0(), 1.0f / (float)bt);
		*loss = op1(b, nm(b, "%s/mul", ls), OP_MUL, shape0(), IN(sum, scale));
	}

	int gsh = add(b, nm(b, "%sgradients/Shape", b->tw), OP_SHAPE, b->dev, IN(*loss));
	struct ref gshape = node_output(m, gsh, I32, shape1(0));
	struct ref gy = const_f32(b, b->dev, nm(b, "%sgradients/grad_ys_0", b->tw), shape0(), 1.0f);
	struct ref fill =
	    op1(b, nm(b, "%sgradients/Fill", b->tw), OP_FILL, shape0(), IN(gshape, gy));
	struct ref mg = fill;
	if (!tiny)
		mg = op1(b, nm(b, "%s/mul_grad/Mul", gl), OP_MUL, shape0(), IN(fill, scale));
	struct ref rsh =
	    const_i32(b, b->dev, nm(b, "%s/Sum_grad/Reshape/shape", gl), shape1(1), &one, 1);
	struct ref rs =
	    op1(b, nm(b, "%s/Sum_grad/Reshape", gl), OP_RESHAPE, shape1(1), IN(mg, rsh));
	int sh2 = add(b, nm(b, "%s/Sum_grad/Shape", gl), OP_SHAPE, b->dev, IN(xl));
	struct ref xshape = node_output(m, sh2, I32, shape1(1));
	struct ref tile =
	    op1(b, nm(b, "%s/Sum_grad/Tile", gl), OP_TILE, shape1(bt), IN(rs, xshape));
	struct ref ed = const_i32(b, b->dev, nm(b, "%s/ExpandDims/dim", gx), shape0(), &minus1, 1);
	struct ref ex =
	    op1(b, nm(b, "%s/ExpandDims", gx), OP_EXPANDDIMS, shape2(bt, 1), IN(tile, ed));
	struct ref dl = op1(b, nm(b, "%s/mul", gx), OP_MUL, ys, IN(ex, xg));

	scopes(b, lp->scope);
	struct ref bg = op1(b, nm(b, "%s/BiasAdd_grad/BiasAddGrad", b->gs), OP_BIASADDGRAD,
			    shape1(b->classes), IN(dl));
	grad_add(b, bv, bg);
	return matmul_grads(b, nm(b, "%s/MatMul_grad", b->gs), x, kv, dl, need_dx, lp->tuple);
}

static void build_tower(struct bld *b, struct plan *pl, int n, struct ref x, struct ref labels,
			struct ref *loss, struct ref *logits)
{
	struct layer *ls = g_new0(struct layer, n);
	bool *need = g_new0(bool, n);
	bool params = false;
	for (int i = 0; i < n; i++) {
		need[i] = params;
		ls[i].x = x;
		forward(b, &pl[i], &ls[i]);
		x = ls[i].y;
		if (has_params(pl[i].kind))
			params = true;
	}
	struct ref dy = build_loss(b, &pl[n], x, labels, params, loss, logits);
	for (int i = n - 1; i >= 0 && dy.node >= 0; i--)
		dy = backward(b, &pl[i], &ls[i], dy, need[i]);
	g_free(ls);
	g_free(need);
}

static struct ref feed(struct bld *b, const char *what, int index, int dtype, struct shape s)
{
	int id;
	if (b->cfg->old_names) {
		id = add(b, nm(b, "_recv_%s_0", what), OP_RECV, 0, NULL, 0);
		struct node *n = &b->m->nodes[id];
		n->client = true;
		n->send_dev = n->recv_dev = 0;
		if (!b->m->count_only)
			n->tensor_name = tl_arena_strdup(b->m->arena, nm(b, "%s:0", what));
	} else {
		id = add(b, nm(b, "_arg_%s_0_%d", what, index), OP_ARG, 0, NULL, 0);
		b->m->nodes[id].aux = index;
	}
	return node_output(b->m, id, dtype, s);
}

static void fetch(struct bld *b, struct ref r, int index)
{
	const char *name = b->m->nodes[r.node].name;
	if (b->cfg->old_names) {
		int id = add(b, nm(b, "_send_%s_%d", name, r.port), OP_SEND, 0, IN(r));
		struct node *n = &b->m->nodes[id];
		n->client = true;
		n->send_dev = n->recv_dev = 0;
		if (!b->m->count_only)
			n->tensor_name = tl_arena_strdup(b->m->arena, nm(b, "%s:%d", name, r.port));
	} else {
		int id =
		    add(b, nm(b, "_retval_%s_%d_%d", name, r.port, index), OP_RETVAL, 0, IN(r));
		b->m->nodes[id].aux = index;
	}
}

static void build_metrics(struct bld *b, struct ref logits, struct ref labels, struct ref *acc)
{
	struct model *m = b->m;
	int64_t bt = meta_of(m, logits)->shape.d[0];
	int32_t one = 1, zero = 0;
	struct ref dim = const_i32(b, 0, "accuracy/ArgMax/dimension", shape0(), &one, 1);
	int am = add(b, "accuracy/ArgMax", OP_ARGMAX, 0, IN(logits, dim));
	struct ref amr = node_output(m, am, I64, shape1(bt));
	int cl = add(b, "accuracy/Cast", OP_CAST, 0, IN(labels));
	struct ref clr = node_output(m, cl, I64, shape1(bt));
	int eq = add(b, "accuracy/Equal", OP_EQUAL, 0, IN(amr, clr));
	struct ref eqr = node_output(m, eq, BOOL, shape1(bt));
	int c1 = add(b, "accuracy/Cast_1", OP_CAST, 0, IN(eqr));
	struct ref c1r = node_output(m, c1, F32, shape1(bt));
	struct ref mc = const_i32(b, 0, "accuracy/Const", shape1(1), &zero, 1);
	int mean = add(b, "accuracy/Mean", OP_MEAN, 0, IN(c1r, mc));
	*acc = node_output(m, mean, F32, shape0());
}

static void build_updates(struct bld *b)
{
	int vd = b->var_dev;
	int gpus = b->cfg->gpus;
	struct ref lr = const_f32(b, vd, "GradientDescent/learning_rate", shape0(), 0.01f);
	struct ref scale = {-1, 0};
	if (gpus >= 2)
		scale = const_f32(b, vd, "average_gradients/mul/y", shape0(), 1.0f / (float)gpus);
	for (int i = 0; i < b->n_vars; i++) {
		struct var *v = &b->vars[i];
		if (!v->trainable || v->n_grads == 0)
			continue;
		struct ref g = v->grads[0];
		struct shape s = v->shape;
		if (v->n_grads > 1) {
			int an =
			    add(b, "average_gradients/AddN", OP_ADDN, vd, v->grads, v->n_grads);
			b->m->nodes[an].aux = v->n_grads;
			struct ref sum = node_output(b->m, an, F32, s);
			int mu = add(b, "average_gradients/mul", OP_MUL, vd, IN(sum, scale));
			g = node_output(b->m, mu, F32, s);
		}
		const char *vname = b->m->nodes[v->node].name;
		int ap = add(b, nm(b, "GradientDescent/update_%s/ApplyGradientDescent", vname),
			     OP_APPLYGD, vd, IN(nref(v->node), lr, g));
		node_output(b->m, ap, F32REF, s);
	}
}

/* Extra summary ops that make --ops exact: Sum over axis 0 of variables. */
static void build_pads(struct bld *b, long n)
{
	int vd = b->var_dev;
	if (n <= 0 || b->n_vars == 0)
		return;
	if (n == 1) {
		struct var *v = &b->vars[0];
		int id = add(b, nm(b, "summaries/%s/Identity", b->m->nodes[v->node].name),
			     OP_IDENTITY, vd, IN(nref(v->read)));
		node_output(b->m, id, F32, v->shape);
		return;
	}
	int32_t zero = 0;
	struct ref ax = const_i32(b, vd, "summaries/Const", shape1(1), &zero, 1);
	for (long k = 0; k < n - 1; k++) {
		struct var *v = &b->vars[k % b->n_vars];
		struct shape s = v->shape;
		struct shape o = shape0();
		for (int i = 1; i < s.nd; i++)
			o.d[o.nd++] = s.d[i];
		int id = add(b, nm(b, "summaries/%s/Sum", b->m->nodes[v->node].name), OP_SUM, vd,
			     IN(nref(v->read), ax));
		node_output(b->m, id, F32, o);
	}
}

/* Every node whose outputs nobody reads becomes a control input of its
 * device's target NoOp, as session.run(train_op) would have it: a step runs
 * only what its fetches and targets need. */
static void build_targets(struct bld *b)
{
	struct model *m = b->m;
	int n = m->n_nodes;
	int *dead = g_new(int, n);
	for (int d = 0; d < b->n_dev; d++) {
		int nd = 0;
		for (int i = 0; i < n; i++) {
			const struct node *x = &m->nodes[i];
			if (x->dev != d || x->n_uses > 0 || x->target || x->op == OP_RETVAL ||
			    (x->op == OP_SEND && x->client))
				continue;
			dead[nd++] = i;
		}
		if (nd == 0)
			continue;
		int id = model_node(m, d == b->var_dev ? "GradientDescent" : "group_deps", OP_NOOP,
				    d, false);
		for (int i = 0; i < nd; i++)
			node_input(m, id, (struct ref){dead[i], -1});
		m->nodes[id].target = true;
	}
	g_free(dead);
}

/* --components N: N - 1 small graphs beside the model, connected neither to
 * it nor to each other, as a GraphDef's initializers and unused constants
 * are: each a chain on the CPU of a Const and up to 11 Identity ops (four in
 * ten a lone Const), four scopes deep, its last node a target of its own
 * (not grouped under the step's NoOp, which would join them). */
static void build_islands(struct bld *b, int n)
{
	char scope[128];
	for (int k = 0; k < n; k++) {
		uint64_t r = stream_seed(b->cfg->seed, TAG_ISLAND, (uint64_t)k);
		int len = chance(&r, 40) ? 1 : (int)rnd(&r, 2, 12);
		int64_t width = rnd(&r, 1, 256);
		snprintf(scope, sizeof scope, "init_ops/block_%d/unit_%d/var_%d/Initializer", k / 64,
			 k / 8 % 8, k % 8);
		struct ref x = const_f32(b, 0, nm(b, "%s/Const", scope), shape1(width), 0.5f);
		for (int i = 1; i < len; i++) {
			int id = add(b, nm(b, "%s/Identity", scope), OP_IDENTITY, 0, IN(x));
			x = node_output(b->m, id, F32, shape1(width));
		}
		b->m->nodes[x.node].target = true;
	}
}

static void build_model(struct bld *b, int L, long pads)
{
	const struct cfg *cfg = b->cfg;
	int gpus = cfg->gpus;
	int n_plan;
	struct plan *pl = plan_make(b, L, &n_plan);
	b->var_dev = gpus == 1 ? 1 : 0;
	int64_t bt = gpus >= 2 ? b->batch * gpus : b->batch;
	int64_t h = b->height;
	b->dev = 0;
	b->tw[0] = '\0';
	b->full = L > 0;
	/* the smallest model reads a feature vector, the others an image */
	struct shape xs = b->full ? shape4(bt, h, h, 3) : shape2(bt, h * h * 3);
	struct shape ts = xs;
	ts.d[0] = b->batch;
	struct ref x = feed(b, "input", 0, F32, xs);
	struct ref labels = feed(b, "labels", 1, I32, shape1(bt));
	if (b->full) {
		struct ref mean = const_f32(b, 0, "preprocess/sub/y", shape1(3), 0.5f);
		x = op1(b, "preprocess/sub", OP_SUB, xs, IN(x, mean));
		struct ref sc = const_f32(b, 0, "preprocess/mul/y", shape0(), 1.0f / 255.0f);
		x = op1(b, "preprocess/mul", OP_MUL, xs, IN(x, sc));
	}

	struct ref loss, logits0, labels0 = labels;
	if (gpus >= 2) {
		int32_t zero = 0;
		struct ref sd = const_i32(b, 0, "split/split_dim", shape0(), &zero, 1);
		int sp = add(b, "split", OP_SPLIT, 0, IN(sd, x));
		b->m->nodes[sp].aux = gpus;
		for (int g = 0; g < gpus; g++)
			node_output(b->m, sp, F32, ts);
		struct ref sd1 = const_i32(b, 0, "split_1/split_dim", shape0(), &zero, 1);
		int spl = add(b, "split_1", OP_SPLIT, 0, IN(sd1, labels));
		b->m->nodes[spl].aux = gpus;
		for (int g = 0; g < gpus; g++)
			node_output(b->m, spl, I32, shape1(b->batch));
		struct ref losses[MAX_GPUS];
		for (int g = 0; g < gpus; g++) {
			struct ref lg;
			b->dev = 1 + g;
			b->moving_avg = g == 0;
			snprintf(b->tw, sizeof b->tw, "tower_%d/", g);
			build_tower(b, pl, n_plan, pref(nref(sp), g), pref(nref(spl), g),
				    &losses[g], &lg);
			if (g == 0)
				logits0 = lg;
		}
		b->dev = 0;
		b->tw[0] = '\0';
		int tl = add(b, "total_loss", OP_ADDN, 0, losses, gpus);
		b->m->nodes[tl].aux = gpus;
		loss = node_output(b->m, tl, F32, shape0());
		labels0 = pref(nref(spl), 0);
	} else {
		b->dev = b->var_dev;
		b->moving_avg = true;
		build_tower(b, pl, n_plan, x, labels, &loss, &logits0);
		b->dev = 0;
	}
	fetch(b, loss, 0);
	if (b->full) {
		struct ref acc;
		build_metrics(b, logits0, labels0, &acc);
		fetch(b, acc, 1);
	}
	b->dev = b->var_dev;
	build_updates(b);
	build_pads(b, pads);
	if (cfg->components > 1)
		build_islands(b, cfg->components - 1);
	build_targets(b);
	g_free(pl);
}

static struct model *model_new(bool count_only)
{
	struct model *m = g_new0(struct model, 1);
	m->arena = tl_arena_new();
	m->count_only = count_only;
	m->names = g_hash_table_new(g_str_hash, g_str_equal);
	return m;
}

static void model_free(struct model *m)
{
	if (m == NULL)
		return;
	g_free(m->nodes);
	g_free(m->refs);
	g_free(m->outs);
	g_free(m->order);
	g_hash_table_destroy(m->names);
	tl_arena_free(m->arena);
	g_free(m);
}

static struct model *model_build(const struct cfg *cfg, int L, long pads, bool count_only,
				 const char *prefix, struct var **vars, int *n_vars)
{
	struct bld b;
	memset(&b, 0, sizeof b);
	b.m = model_new(count_only);
	b.m->prefix = prefix != NULL ? tl_arena_strdup(b.m->arena, prefix) : NULL;
	b.cfg = cfg;
	b.n_dev = 1 + cfg->gpus;
	model_params(&b);
	build_model(&b, L, pads);
	b.m->n_model = b.m->n_nodes;
	if (vars != NULL) {
		*vars = b.vars;
		*n_vars = b.n_vars;
	} else {
		g_free(b.vars);
	}
	return b.m;
}

static long count_nodes(const struct cfg *cfg, int L)
{
	struct model *m = model_build(cfg, L, 0, true, NULL, NULL, NULL);
	long n = m->n_nodes;
	model_free(m);
	return n;
}

/* The largest layer count whose model fits in `ops` nodes (the rest is
 * padded); -1 when even one layer is too many, with the minimum in *min. */
static int layers_for(const struct cfg *cfg, long ops, long *min)
{
	long c0 = count_nodes(cfg, 0);
	*min = c0;
	if (ops < c0)
		return -1;
	int lo = 0, hi = 1;
	while (count_nodes(cfg, hi) <= ops) {
		lo = hi;
		if (hi > (1 << 24))
			return lo;
		hi *= 2;
	}
	while (hi - lo > 1) {
		int mid = lo + (hi - lo) / 2;
		if (count_nodes(cfg, mid) <= ops)
			lo = mid;
		else
			hi = mid;
	}
	return lo;
}

/* ------------------------------------------------------------------ */
/* Devices, partitioning                                               */

struct devinfo {
	const char *name; /* "/job:localhost/replica:0/task:0/device:GPU:0" */
	int64_t incarnation;
	int n_thr;
	uint32_t tid[MAX_THREADS];
	bool thread_names;
	/* GPUs only */
	int n_streams;
	int stream[MAX_STREAMS]; /* compute streams */
	int s_htod, s_dtoh, s_dtod;
	const char *stream_prefix; /* "/device:GPU:0/stream:" */
	const char *memcpy_dev;
	const char *sync_dev;
};

enum { ALLOC_CPU = 0 }; /* then GPU_g_bfc at 1 + g, cuda_host_bfc last */

struct pbuf {
	int alloc;
	int64_t req, size;
	int64_t id;
	uint64_t ptr;
};

struct gen {
	struct cfg cfg;
	int task; /* --tasks: this worker task, else -1 */
	struct model *m;
	struct var *vars;
	int n_vars;
	int n_dev;
	struct devinfo dev[MAX_DEV];
	int n_alloc;
	const char *alloc_name[MAX_ALLOC];
	uint64_t next_ptr[MAX_ALLOC];
	int64_t next_id;
	/* persistent buffers: one per VariableV2, by node */
	int *pbuf_of; /* node -> index in pbufs, -1 */
	struct pbuf *pbufs;
	int n_pbufs;
	int64_t t_next;	 /* start of the next step, ns */
	int64_t step_id; /* TensorFlow's step id of the next step */
	Tensorflow__GraphDef **graphs;
	int n_graphs;
};

static const char *astrf(tl_arena *a, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static const char *astrf(tl_arena *a, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	char *s = g_strdup_vprintf(fmt, ap);
	va_end(ap);
	const char *r = tl_arena_strdup(a, s);
	g_free(s);
	return r;
}

/* A stream of this generator's own: with --tasks each task draws its own
 * threads, timings and memory (its replica of the model is the same). */
static uint64_t gen_seed(const struct gen *g, uint64_t tag, uint64_t index)
{
	if (g->task >= 0)
		index |= (uint64_t)(g->task + 1) << 32;
	return stream_seed(g->cfg.seed, tag, index);
}

static uint32_t fresh_tid(uint64_t *r, const uint32_t *used, int n_used)
{
	for (;;) {
		uint32_t t = (uint32_t)rnd(r, 1200, 65500);
		bool dup = false;
		for (int i = 0; i < n_used; i++)
			dup = dup || used[i] == t;
		if (!dup)
			return t;
	}
}

static void devices_init(struct gen *g)
{
	tl_arena *a = g->m->arena;
	bool old = g->cfg.old_names;
	uint64_t r = gen_seed(g, TAG_DEVICES, 0);
	uint32_t used[MAX_DEV * MAX_THREADS];
	int n_used = 0;
	/* a worker task names its tracer's rows after itself too, so that
	 * tasks do not share them */
	const char *job = "/job:localhost/replica:0/task:0";
	const char *tracer = "";
	if (g->task >= 0)
		job = tracer = astrf(a, "/job:worker/replica:0/task:%d", g->task);
	g->n_dev = 1 + g->cfg.gpus;
	for (int d = 0; d < g->n_dev; d++) {
		struct devinfo *di = &g->dev[d];
		int gpu = d - 1;
		if (d == 0)
			di->name = astrf(a, "%s/%s", job, old ? "cpu:0" : "device:CPU:0");
		else
			di->name = astrf(a, "%s/%s:%d", job, old ? "gpu" : "device:GPU", gpu);
		di->incarnation = (int64_t)splitmix(&r);
		di->n_thr = d == 0 ? (int)rnd(&r, 4, MAX_THREADS) : (int)rnd(&r, 2, 4);
		for (int i = 0; i < di->n_thr; i++) {
			di->tid[i] = fresh_tid(&r, used, n_used);
			used[n_used++] = di->tid[i];
		}
		di->thread_names = !old && chance(&r, 50);
		if (d == 0)
			continue;
		/* CUDA stream ids as CUPTI numbers them: each GPU's context
		 * has compute streams and three copy streams. */
		static const int compute_ids[MAX_STREAMS] = {7, 12, 16, 17};
		int base = 16 * gpu;
		di->n_streams = (int)rnd(&r, 2, 4);
		for (int i = 0; i < di->n_streams; i++)
			di->stream[i] = base + compute_ids[i];
		di->s_htod = base + 13;
		di->s_dtoh = base + 14;
		di->s_dtod = base + 15;
		di->stream_prefix =
		    astrf(a, old ? "%s/gpu:%d/stream:" : "%s/device:GPU:%d/stream:", tracer, gpu);
		di->memcpy_dev =
		    astrf(a, old ? "%s/gpu:%d/memcpy" : "%s/device:GPU:%d/memcpy", tracer, gpu);
		di->sync_dev = astrf(a, "%s/device:GPU:%d/sync", tracer, gpu);
	}
	g->n_alloc = g->n_dev + 1;
	g->alloc_name[ALLOC_CPU] = "cpu";
	for (int i = 0; i < g->cfg.gpus; i++)
		g->alloc_name[1 + i] = astrf(a, "GPU_%d_bfc", i);
	g->alloc_name[g->n_alloc - 1] = "cuda_host_bfc";
	/* A separate address range per allocator, as BFC regions are. */
	for (int i = 0; i < g->n_alloc; i++)
		g->next_ptr[i] = 0x7f0000000000ull - (uint64_t)(i + 1) * 0x40000000000ull +
				 (uint64_t)rnd(&r, 1, 4095) * 0x100000ull;
}

static bool is_gpu(int dev)
{
	return dev > 0;
}

/* Where an output slot's buffer comes from: int32 tensors and Shape outputs
 * of GPU ops stay in host memory (cuda_host_bfc), as TensorFlow keeps them. */
static int alloc_of(const struct gen *g, const struct node *n, const struct tmeta *t)
{
	if (!is_gpu(n->dev))
		return ALLOC_CPU;
	if ((OPS[n->op].flags & F_HOSTOUT) || dtype_is_int(t->dtype) || n->op == OP_HOSTRECV)
		return g->n_alloc - 1;
	return n->dev;
}

static int device_alloc(const struct gen *g, int dev)
{
	(void)g;
	return is_gpu(dev) ? dev : ALLOC_CPU;
}

/* Rewrites each cross-device data edge as TensorFlow's graph partitioner
 * does: one _Send on the producer's device and one _Recv on the consumer's
 * per (tensor, destination device), named "<producer>/_N" with a counter,
 * tensor_name "edge_<edge id>_<producer>". Tensors in host memory on a GPU
 * use _HostSend/_HostRecv on the GPU side. */
static void partition(struct gen *g)
{
	struct model *m = g->m;
	GHashTable *seen = g_hash_table_new(g_direct_hash, g_direct_equal);
	int counter = 0;
	int n_model = m->n_model;
	for (int c = 0; c < n_model; c++) {
		for (int i = 0; i < m->nodes[c].n_in; i++) {
			int ri = m->nodes[c].in_off + i;
			struct ref r = m->refs[ri];
			int src_dev = m->nodes[r.node].dev, dst_dev = m->nodes[c].dev;
			if (src_dev == dst_dev)
				continue;
			if (r.port < 0) {
				fprintf(stderr,
					"trace-gen: internal error: control edge '%s' -> '%s' "
					"crosses devices\n",
					m->nodes[r.node].name, m->nodes[c].name);
				abort();
			}
			guint key = ((guint)r.node << 8) | ((guint)r.port << 4) | (guint)dst_dev;
			gpointer hit = g_hash_table_lookup(seen, GUINT_TO_POINTER(key));
			if (hit != NULL) {
				int recv = GPOINTER_TO_INT(hit) - 1;
				m->refs[ri] = (struct ref){recv, 0};
				m->nodes[recv].n_uses++;
				continue;
			}
			struct tmeta t = *meta_of(m, r);
			if (t.dtype == F32REF)
				t.dtype = F32;
			bool host = dtype_is_int(t.dtype);
			const char *src = m->nodes[r.node].name;
			/* an edge inside a loop body is sent every iteration */
			bool in_loop = m->nodes[r.node].loop && m->nodes[c].loop;
			int send = node_new(m, astrf(m->arena, "%s/_%d", src, counter),
					    host && is_gpu(src_dev) ? OP_HOSTSEND : OP_SEND,
					    src_dev, in_loop);
			node_input(m, send, r);
			int recv = node_new(m, astrf(m->arena, "%s/_%d", src, counter + 1),
					    host && is_gpu(dst_dev) ? OP_HOSTRECV : OP_RECV,
					    dst_dev, in_loop);
			node_output(m, recv, t.dtype, t.shape);
			counter += 2;
			const char *tn = astrf(m->arena, "edge_%d_%s", ri + 1, src);
			int pair[2] = {send, recv};
			for (int k = 0; k < 2; k++) {
				struct node *x = &m->nodes[pair[k]];
				x->peer = pair[1 - k];
				x->send_dev = src_dev;
				x->recv_dev = dst_dev;
				x->tensor_name = tn;
			}
			/* keep the producer's sends in creation order */
			int *link = &m->nodes[r.node].first_send;
			while (*link >= 0)
				link = &m->nodes[*link].next_send;
			*link = send;
			m->refs[ri] = (struct ref){recv, 0};
			m->nodes[recv].n_uses++;
			g_hash_table_insert(seen, GUINT_TO_POINTER(key), GINT_TO_POINTER(recv + 1));
		}
	}
	g_hash_table_destroy(seen);
}

static void push_order(struct model *m, int n)
{
	m->order[m->n_order++] = n;
}

/* A node's _Send/_Recv pairs, those inside its loop body or the others. */
static void push_sends(struct model *m, int n, bool in_loop)
{
	for (int s = m->nodes[n].first_send; s >= 0; s = m->nodes[s].next_send) {
		if (m->nodes[s].loop != in_loop)
			continue;
		push_order(m, s);
		push_order(m, m->nodes[s].peer);
	}
}

/* Loop bodies are runs of consecutive loop nodes. The order lists each node
 * once, a body's nodes together (each followed by the pairs it sends inside
 * the body, --split-loop), and a node's other _Send/_Recv pairs right after
 * it (after the whole body for body nodes: they send the last iteration). */
static void make_order(struct model *m)
{
	for (int n = 0; n < m->n_model; n++) {
		if (!m->nodes[n].loop)
			continue;
		int first = n;
		while (n + 1 < m->n_model && m->nodes[n + 1].loop)
			n++;
		for (int k = first; k <= n; k++) {
			m->nodes[k].run_first = first;
			m->nodes[k].run_last = n;
			for (int t = m->nodes[k].first_send; t >= 0; t = m->nodes[t].next_send) {
				if (!m->nodes[t].loop)
					continue;
				int pair[2] = {t, m->nodes[t].peer};
				for (int j = 0; j < 2; j++) {
					m->nodes[pair[j]].run_first = first;
					m->nodes[pair[j]].run_last = n;
				}
			}
		}
	}
	m->order = g_new(int, m->n_nodes);
	m->n_order = 0;
	for (int n = 0; n < m->n_model; n++) {
		struct node *x = &m->nodes[n];
		if (x->loop) {
			int first = x->run_first, last = x->run_last;
			for (int k = first; k <= last; k++) {
				push_order(m, k);
				push_sends(m, k, true);
			}
			for (int k = first; k <= last; k++)
				push_sends(m, k, false);
			n = last;
			continue;
		}
		push_order(m, n);
		push_sends(m, n, false);
	}
}

static void input_str(GString *s, const struct model *m, struct ref r)
{
	if (r.port < 0)
		g_string_append_c(s, '^');
	g_string_append(s, m->nodes[r.node].name);
	if (r.port > 0)
		g_string_append_printf(s, ":%d", r.port);
}

/* timeline_label as TensorFlow's executor writes it (without the memory
 * prefix, added per execution), and the "name:Op" CUPTI annotation. */
static void make_labels(struct gen *g)
{
	struct model *m = g->m;
	GString *s = g_string_new(NULL);
	for (int n = 0; n < m->n_nodes; n++) {
		struct node *x = &m->nodes[n];
		const char *op = OPS[x->op].name;
		g_string_printf(s, "%s = %s(", x->name, op);
		if (op_is_send(x->op) || op_is_recv(x->op)) {
			int other = op_is_send(x->op) ? x->recv_dev : x->send_dev;
			g_string_append_printf(s, "%s @%s)", x->tensor_name, g->dev[other].name);
		} else {
			for (int i = 0; i < x->n_in; i++) {
				if (i > 0)
					g_string_append(s, ", ");
				input_str(s, m, m->refs[x->in_off + i]);
			}
			g_string_append_c(s, ')');
		}
		x->label = tl_arena_strdup(m->arena, s->str);
		x->annot = astrf(m->arena, "%s:%s", x->name, op);
	}
	g_string_free(s, TRUE);
}

static void persistent_init(struct gen *g)
{
	struct model *m = g->m;
	g->pbuf_of = g_new(int, m->n_nodes);
	g->pbufs = g_new0(struct pbuf, g->n_vars + 1);
	for (int n = 0; n < m->n_nodes; n++)
		g->pbuf_of[n] = -1;
	/* ids 1..P in creation order, then a gap before the step's buffers */
	for (int n = 0; n < m->n_nodes; n++) {
		struct node *x = &m->nodes[n];
		if (x->op != OP_VAR)
			continue;
		struct pbuf *p = &g->pbufs[g->n_pbufs];
		p->alloc = device_alloc(g, x->dev);
		p->req = tmeta_bytes(&m->outs[x->out_off]);
		p->size = p->req <= 256 ? 256 : (p->req + 255) / 256 * 256;
		p->id = g->n_pbufs + 1;
		p->ptr = g->next_ptr[p->alloc];
		g->next_ptr[p->alloc] += (uint64_t)p->size;
		g->pbuf_of[n] = g->n_pbufs++;
	}
	g->next_id = g->n_pbufs + 1 + 16;
}

/* ------------------------------------------------------------------ */
/* The simulated executor                                              */

struct exec {
	int node, iter;
	int64_t sched, start, op_start, op_end, end; /* ns */
	int64_t ready;				     /* its outputs usable on the device */
	uint32_t tid;
	int slot_off; /* output buffers, node.n_out of them, in step.slots */
	int kern_off, n_kern;
	int temp_off, n_temp;
	int mem_off, n_mem;
	int64_t us_start, us_op_start, us_op_end, us_end;
	bool unrecorded; /* --quirks: no NodeExecStats, the buffers still exist */
	int only_slot;	 /* --quirks: the one output slot recorded, or -1 */
};

struct kern {
	int exec;
	int stream;
	int k; /* index in the op's kernel list */
	int64_t start, end;
	uint32_t regs, shm, grid[3], block[3];
};

enum { COPY_HTOD, COPY_DTOH, COPY_DTOD };

struct mcpy {
	int exec; /* the _Recv it delivers to */
	int gpu;  /* the GPU whose tracer saw it */
	int stream;
	int kind;
	int64_t bytes, start, end;
	bool async;
};

struct syncrec {
	int gpu;
	int64_t start, end;
	uint32_t tid;
};

struct extra { /* _SOURCE and _SINK */
	int dev;
	const char *name;
	int64_t sched, start, op_start, op_end, end;
	uint32_t tid;
};

struct buf {
	int alloc;
	int kind; /* BUF_* */
	int64_t req, size;
	int64_t t_alloc, t_free; /* micros */
	int64_t id;
	uint64_t ptr;
	int order;
	int owner; /* the execution that allocated it, -1 for persistent */
	bool fetched;
};

enum { BUF_PERSIST, BUF_OUT, BUF_TEMP };

struct mem { /* one AllocatorMemoryUsed */
	int alloc;
	int64_t total, peak, live, in_use;
	int rec_off, n_rec;
};

struct rec {
	int64_t t, bytes;
};

struct devrun {
	int64_t src_end;
	int64_t thr_free[MAX_THREADS];
	int64_t stream_free[MAX_STREAMS];
	int64_t copy_free[3];
};

struct step {
	int index;
	int64_t step_id;
	uint64_t rng;
	int64_t t0, t_end; /* ns */
	int64_t us_end;	   /* step end in micros, for fetched buffers */
	int *exec_of;	   /* node.exec_off + iteration -> exec */
	GArray *execs, *kerns, *mcpys, *syncs, *extras;
	int *slots; /* buffer of each output slot of each exec */
	int n_slots;
	int *temps;
	int n_temps;
	struct buf *bufs;
	int n_bufs, cap_bufs;
	GArray *mems, *recs;
	struct devrun dr[MAX_DEV];
	tl_arena *arena; /* the step's protobuf messages */
};

#define EXEC(st, i) (&g_array_index((st)->execs, struct exec, (i)))

static int n_exec_of(const struct gen *g, const struct node *n)
{
	return n->loop ? g->cfg.loop : 1;
}

/* The execution of producer p that execution `iter` of consumer c reads:
 * the same iteration when both ran as often, the only one when p ran once,
 * the last one when c ran once. */
static int producer_exec(const struct gen *g, const struct step *st, int p, int c, int iter)
{
	const struct node *pn = &g->m->nodes[p], *cn = &g->m->nodes[c];
	int pc = n_exec_of(g, pn), cc = n_exec_of(g, cn);
	int k = pc == cc ? iter : (pc == 1 ? 0 : pc - 1);
	return st->exec_of[pn->exec_off + k];
}

static int64_t max64(int64_t a, int64_t b)
{
	return a > b ? a : b;
}

static int64_t min64(int64_t a, int64_t b)
{
	return a < b ? a : b;
}

static int64_t work_bytes(const struct model *m, const struct node *n)
{
	int64_t out = 0, in = 0;
	for (int i = 0; i < n->n_out; i++)
		out += tmeta_bytes(&m->outs[n->out_off + i]);
	for (int i = 0; i < n->n_in; i++) {
		struct ref r = m->refs[n->in_off + i];
		if (r.port >= 0)
			in += tmeta_bytes(meta_of(m, r));
	}
	return OPS[n->op].cost == COST_HEAVY ? in + out : max64(in, out);
}

/* Compute time of an op on a CPU, ns. */
static int64_t cpu_time(const struct model *m, const struct node *n, uint64_t *r)
{
	int64_t bytes = work_bytes(m, n);
	int64_t t;
	switch (OPS[n->op].cost) {
	case COST_LIGHT:
		t = 1500 + bytes * rnd(r, 70, 130) / 1000;
		break;
	case COST_REDUCE:
		t = 2000 + bytes * rnd(r, 150, 260) / 1000;
		break;
	case COST_HEAVY:
		t = 6000 + bytes * rnd(r, 800, 1400) / 1000;
		break;
	default:
		t = rnd(r, 1200, 4000);
	}
	return t > 200000000 ? 200000000 : t;
}

/* Time of an op's kernels on a GPU, ns. */
static int64_t gpu_time(const struct model *m, const struct node *n, uint64_t *r)
{
	int64_t bytes = work_bytes(m, n);
	int64_t t;
	switch (OPS[n->op].cost) {
	case COST_REDUCE:
		t = 3000 + bytes * rnd(r, 5, 8) / 1000;
		break;
	case COST_HEAVY:
		t = 8000 + bytes * rnd(r, 15, 30) / 1000;
		break;
	default:
		t = 1800 + bytes * rnd(r, 3, 5) / 1000;
	}
	return t > 50000000 ? 50000000 : t;
}

static int pick_thread(const struct devrun *dr, int n_thr, int64_t ready)
{
	/* the thread that went idle last before the op became ready (it runs
	 * the op inline), else the one that frees up first */
	int best = -1;
	for (int i = 0; i < n_thr; i++)
		if (dr->thr_free[i] <= ready && (best < 0 || dr->thr_free[i] > dr->thr_free[best]))
			best = i;
	if (best >= 0)
		return best;
	best = 0;
	for (int i = 1; i < n_thr; i++)
		if (dr->thr_free[i] < dr->thr_free[best])
			best = i;
	return best;
}

static int kernel_count(const struct opinfo *oi)
{
	int n = 0;
	while (oi->kernels[n] != NULL)
		n++;
	return n;
}

/* Which kernels of the op's list one execution launches: the main one
 * (the middle of a transpose-compute-transpose triple) and maybe its
 * neighbours. MatMul launches the GEMM of its transposition. */
static int first_kernel(const struct node *n, int nk, int avail)
{
	if (n->op == OP_MATMUL)
		return n->aux;
	if (avail == 3 && nk < 3)
		return nk == 1 ? 1 : 0;
	return 0;
}

static void launch_kernels(struct gen *g, struct step *st, int ei, int64_t data_ready,
			   int64_t *launch_cost)
{
	struct exec *e = EXEC(st, ei);
	const struct node *n = &g->m->nodes[e->node];
	const struct opinfo *oi = &OPS[n->op];
	uint64_t *r = &st->rng;
	*launch_cost = 0;
	e->n_kern = 0;
	if (!is_gpu(n->dev) || oi->kernels == NULL)
		return;
	const struct devinfo *di = &g->dev[n->dev];
	struct devrun *dr = &st->dr[n->dev];
	int avail = kernel_count(oi);
	int nk = (int)rnd(r, 1, oi->max_kernels);
	int k0 = first_kernel(n, nk, avail);
	int core = (n->op != OP_MATMUL && avail == 3) ? 1 - k0 : 0;
	int si = (int)((uint32_t)e->node * 2654435761u % (uint32_t)di->n_streams);
	int64_t total = gpu_time(g->m, n, r);
	int64_t t = max64(dr->stream_free[si], data_ready);
	int64_t launch = e->op_start;
	e->kern_off = (int)st->kerns->len;
	for (int j = 0; j < nk; j++) {
		int64_t lat = rnd(r, 3000, 9000);
		launch += lat;
		*launch_cost += lat;
		int64_t share =
		    nk == 1 ? total : (j == core ? total * 7 / 10 : total * 3 / 10 / (nk - 1));
		struct kern k;
		memset(&k, 0, sizeof k);
		k.exec = ei;
		k.stream = di->stream[si];
		k.k = (k0 + j) % avail;
		k.start = max64(t + rnd(r, 500, 2500), launch + rnd(r, 1500, 5000));
		k.end = k.start + (share < 1200 ? 1200 : share);
		k.regs = (uint32_t)(8 * rnd(r, 2, 31));
		k.shm = (uint32_t)(1024 * rnd(r, 0, 48));
		k.grid[0] = (uint32_t)rnd(r, 1, 8192);
		k.grid[1] = (uint32_t)(chance(r, 70) ? 1 : rnd(r, 2, 64));
		k.grid[2] = 1;
		k.block[0] = (uint32_t)(32 * rnd(r, 1, 32));
		k.block[1] = k.block[2] = 1;
		t = k.end;
		g_array_append_val(st->kerns, k);
		e->n_kern++;
	}
	dr->stream_free[si] = t;
	e->ready = t;
}

static int new_exec(struct gen *g, struct step *st, int n, int iter)
{
	struct exec e;
	memset(&e, 0, sizeof e);
	e.node = n;
	e.iter = iter;
	e.only_slot = -1;
	int ei = (int)st->execs->len;
	g_array_append_val(st->execs, e);
	st->exec_of[g->m->nodes[n].exec_off + iter] = ei;
	return ei;
}

/* A _Recv is asynchronous: it starts when its partition gets to it (soon
 * after the step starts, at the latest when its _Send starts) and ends when
 * the tensor has arrived, by memcpy when either side is GPU memory. */
static void run_recv(struct gen *g, struct step *st, int ei)
{
	struct model *m = g->m;
	uint64_t *r = &st->rng;
	struct exec *e = EXEC(st, ei);
	const struct node *n = &m->nodes[e->node];
	const struct exec *s = EXEC(st, st->exec_of[m->nodes[n->peer].exec_off + e->iter]);
	struct devrun *dr = &st->dr[n->dev];
	const struct devinfo *di = &g->dev[n->dev];
	int64_t floor = dr->src_end;
	/* inside a loop (--split-loop) iteration k waits for its frame to get
	 * there, after iteration k - 1 */
	if (e->iter > 0)
		floor = EXEC(st, st->exec_of[n->exec_off + e->iter - 1])->end;
	int64_t span = max64(0, s->start - floor);
	int64_t u = rnd(r, 0, 1000);
	e->sched = floor + span * (u * u / 1000) / 1000 + rnd(r, 0, 800);
	e->start = e->sched + rnd(r, 200, 2000);
	e->tid = di->tid[rnd(r, 0, di->n_thr - 1)];
	const struct tmeta *t = &m->outs[n->out_off];
	int64_t bytes = tmeta_bytes(t);
	int src = n->send_dev, dst = n->dev;
	int64_t arrive;
	if (!dtype_is_int(t->dtype) && (is_gpu(src) || is_gpu(dst))) {
		struct mcpy c;
		memset(&c, 0, sizeof c);
		c.exec = ei;
		c.bytes = bytes;
		c.async = chance(r, 60);
		c.kind = !is_gpu(src) ? COPY_HTOD : (!is_gpu(dst) ? COPY_DTOH : COPY_DTOD);
		int gdev = c.kind == COPY_HTOD ? dst : src;
		c.gpu = gdev - 1;
		const struct devinfo *gi = &g->dev[gdev];
		int64_t *cf = &st->dr[gdev].copy_free[c.kind];
		c.stream = c.kind == COPY_HTOD ? gi->s_htod
					       : (c.kind == COPY_DTOH ? gi->s_dtoh : gi->s_dtod);
		c.start = max64(max64(s->start + rnd(r, 1000, 3000), s->ready),
				max64(e->start, *cf + rnd(r, 300, 1500)));
		int64_t per_kb = c.kind == COPY_DTOD ? 50 : 85;
		c.end = c.start + bytes * per_kb / 1000 + rnd(r, 1500, 4000);
		*cf = c.end;
		g_array_append_val(st->mcpys, c);
		if (!g->cfg.old_names && c.kind == COPY_DTOH && chance(r, 30)) {
			struct syncrec y = {c.gpu, c.start - rnd(r, 0, 2000),
					    c.end + rnd(r, 500, 3000), s->tid};
			g_array_append_val(st->syncs, y);
		}
		arrive = c.end;
	} else {
		arrive = max64(s->end, s->ready) + rnd(r, 500, 2000);
	}
	/* the rendezvous completes a _Recv only after its _Send is done */
	e->end = max64(e->start + 2500, max64(arrive, s->end) + rnd(r, 800, 4000));
	e->op_start = e->start + rnd(r, 0, 1200);
	e->op_end = max64(e->op_start, e->end - rnd(r, 500, 1500));
	e->ready = arrive;
}

static void run_exec(struct gen *g, struct step *st, int n, int iter)
{
	struct model *m = g->m;
	uint64_t *r = &st->rng;
	int ei = new_exec(g, st, n, iter);
	const struct node *x = &m->nodes[n];
	if (op_is_recv(x->op) && !x->client) {
		run_recv(g, st, ei);
		return;
	}
	struct devrun *dr = &st->dr[x->dev];
	const struct devinfo *di = &g->dev[x->dev];
	int64_t ready = dr->src_end, data_ready = dr->src_end;
	for (int i = 0; i < x->n_in; i++) {
		struct ref in = m->refs[x->in_off + i];
		const struct exec *p = EXEC(st, producer_exec(g, st, in.node, n, iter));
		ready = max64(ready, p->end);
		if (in.port >= 0)
			data_ready = max64(data_ready, p->ready);
	}
	if (x->loop && iter > 0 && n == x->run_first)
		ready = max64(
		    ready, EXEC(st, st->exec_of[m->nodes[x->run_last].exec_off + iter - 1])->end);
	int th = pick_thread(dr, di->n_thr, ready);
	struct exec *e = EXEC(st, ei);
	e->tid = di->tid[th];
	e->sched = ready + rnd(r, 0, 400);
	e->start = max64(e->sched, dr->thr_free[th]) + rnd(r, 300, 3000);
	e->op_start = e->start + rnd(r, 300, 2500);
	int64_t launch = 0;
	e->ready = 0;
	launch_kernels(g, st, ei, data_ready, &launch);
	e = EXEC(st, ei);
	int64_t dur;
	if (!is_gpu(x->dev))
		dur = cpu_time(m, x, r);
	else
		dur = launch + rnd(r, 1200, 4000);
	if (dur < 1200)
		dur = 1200;
	e->op_end = e->op_start + dur;
	e->end = e->op_end + rnd(r, 200, 3000);
	dr->thr_free[th] = e->end;
	/* consumers on the device wait for the kernels too; a _Send's data
	 * is ready when its producer's kernels are done */
	e->ready = max64(e->ready, e->end);
	if (op_is_send(x->op))
		e->ready = max64(data_ready, e->start);
}

static void add_extra(struct step *st, int dev, const char *name, int64_t start, int64_t dur,
		      uint32_t tid)
{
	struct extra x = {dev, name, start, start, start, start + dur, start + dur, tid};
	g_array_append_val(st->extras, x);
}

static void schedule(struct gen *g, struct step *st)
{
	struct model *m = g->m;
	uint64_t *r = &st->rng;
	for (int d = 0; d < g->n_dev; d++) {
		struct devrun *dr = &st->dr[d];
		int64_t s = st->t0 + rnd(r, 0, 3000) + 400 * d;
		int64_t dur = rnd(r, 1000, 5000);
		add_extra(st, d, "_SOURCE", s, dur, g->dev[d].tid[0]);
		dr->src_end = s + dur;
		for (int i = 0; i < MAX_THREADS; i++)
			dr->thr_free[i] = dr->src_end;
		for (int i = 0; i < MAX_STREAMS; i++)
			dr->stream_free[i] = st->t0;
		for (int i = 0; i < 3; i++)
			dr->copy_free[i] = st->t0;
	}
	int K = g->cfg.loop;
	for (int i = 0; i < m->n_order; i++) {
		int n = m->order[i];
		const struct node *x = &m->nodes[n];
		if (!x->loop) {
			run_exec(g, st, n, 0);
			continue;
		}
		int first = x->run_first, last = x->run_last;
		for (int k = 0; k < K; k++) {
			for (int b = first; b <= last; b++) {
				run_exec(g, st, b, k);
				for (int t = m->nodes[b].first_send; t >= 0;
				     t = m->nodes[t].next_send) {
					if (!m->nodes[t].loop)
						continue;
					run_exec(g, st, t, k);
					run_exec(g, st, m->nodes[t].peer, k);
				}
			}
		}
		/* the body and the pairs it sends inside it */
		while (i + 1 < m->n_order && m->nodes[m->order[i + 1]].loop &&
		       m->nodes[m->order[i + 1]].run_first == first)
			i++;
	}
	/* the step ends when the last op of any device does; TF<1.4 also
	 * recorded each partition's _SINK */
	int64_t dev_end[MAX_DEV];
	for (int d = 0; d < g->n_dev; d++)
		dev_end[d] = st->dr[d].src_end;
	for (guint i = 0; i < st->execs->len; i++) {
		const struct exec *e = EXEC(st, i);
		int d = m->nodes[e->node].dev;
		dev_end[d] = max64(dev_end[d], e->end);
	}
	st->t_end = 0;
	for (int d = 0; d < g->n_dev; d++) {
		if (g->cfg.old_names) {
			int64_t s = dev_end[d] + rnd(r, 500, 3000);
			int64_t dur = rnd(r, 1000, 4000);
			add_extra(st, d, "_SINK", s, dur, g->dev[d].tid[0]);
			dev_end[d] = s + dur;
		}
		st->t_end = max64(st->t_end, dev_end[d]);
	}
	for (guint i = 0; i < st->execs->len; i++) {
		struct exec *e = EXEC(st, i);
		e->us_start = e->start / 1000;
		e->us_op_start = e->op_start / 1000;
		e->us_op_end = e->op_end / 1000;
		e->us_end = e->end / 1000;
	}
	st->us_end = st->t_end / 1000;
}

/* ------------------------------------------------------------------ */
/* Memory, by the rules of shared/oracle/exact/README.md                */

static int64_t alloc_size(int64_t req)
{
	return req <= 256 ? 256 : (req + 255) / 256 * 256;
}

static int buf_new(struct step *st, int alloc, int kind, int64_t req, int64_t t_alloc, int owner)
{
	GROW(st->bufs, st->n_bufs, st->cap_bufs);
	struct buf *b = &st->bufs[st->n_bufs];
	memset(b, 0, sizeof *b);
	b->alloc = alloc;
	b->kind = kind;
	b->req = req;
	b->size = alloc_size(req);
	b->t_alloc = t_alloc;
	b->t_free = INT64_MIN;
	b->order = st->n_bufs;
	b->owner = owner;
	return st->n_bufs++;
}

static struct ref first_data_input(const struct model *m, const struct node *x)
{
	for (int i = 0; i < x->n_in; i++)
		if (m->refs[x->in_off + i].port >= 0)
			return m->refs[x->in_off + i];
	return (struct ref){-1, 0};
}

static bool is_fetch(const struct node *x)
{
	return x->op == OP_RETVAL || (x->op == OP_SEND && x->client);
}

/* Output buffers: fresh at the compute start, or the input's for
 * forwarding ops, or the variable's persistent one; plus temporaries. */
static void assign_buffers(struct gen *g, struct step *st, uint64_t *r)
{
	struct model *m = g->m;
	for (int i = 0; i < g->n_pbufs; i++) {
		const struct pbuf *p = &g->pbufs[i];
		int b = buf_new(st, p->alloc, BUF_PERSIST, p->req, -1, -1);
		st->bufs[b].id = p->id;
		st->bufs[b].ptr = p->ptr;
		st->bufs[b].t_free = INT64_MAX;
	}
	int total = 0;
	for (guint i = 0; i < st->execs->len; i++)
		total += m->nodes[EXEC(st, i)->node].n_out;
	st->slots = g_new(int, total > 0 ? total : 1);
	st->temps = g_new(int, 2 * st->execs->len + 1);
	st->n_slots = 0;
	st->n_temps = 0;
	for (guint i = 0; i < st->execs->len; i++) {
		struct exec *e = EXEC(st, i);
		const struct node *x = &m->nodes[e->node];
		e->slot_off = st->n_slots;
		for (int s = 0; s < x->n_out; s++) {
			int b;
			if (x->op == OP_VAR) {
				b = g->pbuf_of[e->node];
			} else if (OPS[x->op].flags & F_FORWARD) {
				struct ref in = first_data_input(m, x);
				const struct exec *p =
				    EXEC(st, producer_exec(g, st, in.node, e->node, e->iter));
				b = st->slots[p->slot_off + in.port];
			} else {
				const struct tmeta *t = &m->outs[x->out_off + s];
				b = buf_new(st, alloc_of(g, x, t), BUF_OUT, tmeta_bytes(t),
					    e->us_op_start, (int)i);
			}
			st->slots[st->n_slots++] = b;
		}
		e->temp_off = st->n_temps;
		e->n_temp = 0;
		if (!(OPS[x->op].flags & F_TEMP) || !chance(r, 40))
			continue;
		int nt = (int)rnd(r, 1, 2);
		int64_t work = work_bytes(m, x);
		for (int k = 0; k < nt; k++) {
			int64_t req = work * rnd(r, 5, 40) / 100;
			if (req < 256)
				req = 256;
			if (req > (1ll << 30))
				req = 1ll << 30;
			int64_t ta = rnd(r, e->us_op_start, e->us_op_end - 1);
			int64_t tf = rnd(r, ta + 1, e->us_op_end);
			/* two temporaries of one size alive at once would leave the
			 * records ambiguous (which free ends which?): the second
			 * grows by 256 bytes, so the dump tells them apart */
			const struct buf *t0 = k > 0 ? &st->bufs[st->temps[st->n_temps - 1]] : NULL;
			if (t0 != NULL && t0->size == alloc_size(req) && ta < t0->t_free &&
			    t0->t_alloc < tf)
				req = alloc_size(req) + 256;
			int b = buf_new(st, device_alloc(g, x->dev), BUF_TEMP, req, ta, (int)i);
			st->bufs[b].t_free = tf;
			st->temps[st->n_temps++] = b;
			e->n_temp++;
		}
	}
}

/* A reference (tensor, producer execution) is dropped when the last
 * execution reading it ends, or when its producer ends if nobody reads it;
 * a buffer is freed at the latest drop of any reference aliasing it, and a
 * fetched one at the end of the step. */
static void free_times(struct gen *g, struct step *st)
{
	struct model *m = g->m;
	int64_t *drop = g_new(int64_t, st->n_slots > 0 ? st->n_slots : 1);
	for (int i = 0; i < st->n_slots; i++)
		drop[i] = -1;
	for (guint i = 0; i < st->execs->len; i++) {
		const struct exec *e = EXEC(st, i);
		const struct node *x = &m->nodes[e->node];
		for (int k = 0; k < x->n_in; k++) {
			struct ref in = m->refs[x->in_off + k];
			if (in.port < 0)
				continue;
			const struct exec *p =
			    EXEC(st, producer_exec(g, st, in.node, e->node, e->iter));
			int sl = p->slot_off + in.port;
			drop[sl] = max64(drop[sl], e->us_end);
			if (is_fetch(x))
				st->bufs[st->slots[sl]].fetched = true;
		}
	}
	for (guint i = 0; i < st->execs->len; i++) {
		const struct exec *e = EXEC(st, i);
		int n_out = m->nodes[e->node].n_out;
		for (int s = 0; s < n_out; s++) {
			int sl = e->slot_off + s;
			struct buf *b = &st->bufs[st->slots[sl]];
			if (b->kind == BUF_PERSIST)
				continue;
			b->t_free = max64(b->t_free, drop[sl] >= 0 ? drop[sl] : e->us_end);
		}
	}
	for (int i = 0; i < st->n_bufs; i++)
		if (st->bufs[i].fetched && st->bufs[i].kind != BUF_PERSIST)
			st->bufs[i].t_free = st->us_end;
	g_free(drop);
}

static const struct step *sort_step;

static int cmp_alloc_order(const void *a, const void *b)
{
	const struct buf *x = &sort_step->bufs[*(const int *)a],
			 *y = &sort_step->bufs[*(const int *)b];
	if (x->t_alloc != y->t_alloc)
		return x->t_alloc < y->t_alloc ? -1 : 1;
	return (x->order > y->order) - (x->order < y->order);
}

/* allocation_id increases with (alloc time, creation order) over the whole
 * file; pointers are 256-aligned, never reused, per allocator. */
static void assign_ids(struct gen *g, struct step *st)
{
	int n = 0;
	int *idx = g_new(int, st->n_bufs + 1);
	for (int i = 0; i < st->n_bufs; i++)
		if (st->bufs[i].kind != BUF_PERSIST)
			idx[n++] = i;
	sort_step = st;
	qsort(idx, (size_t)n, sizeof *idx, cmp_alloc_order);
	for (int i = 0; i < n; i++) {
		struct buf *b = &st->bufs[idx[i]];
		b->id = g->next_id++;
		b->ptr = g->next_ptr[b->alloc];
		g->next_ptr[b->alloc] += (uint64_t)b->size;
	}
	g_free(idx);
}

struct mev { /* an allocation event of one execution */
	int alloc;
	int64_t t, bytes;
	int seq;
};

static int cmp_mev(const void *a, const void *b)
{
	const struct mev *x = a, *y = b;
	if (x->t != y->t)
		return x->t < y->t ? -1 : 1;
	bool xa = x->bytes > 0, ya = y->bytes > 0;
	if (xa != ya)
		return xa ? 1 : -1; /* frees first */
	return (x->seq > y->seq) - (x->seq < y->seq);
}

/* One AllocatorMemoryUsed per allocator the execution allocated on, in
 * order of first allocation, with its own records (frees of outputs are
 * recorded nowhere). */
static void exec_memory(struct gen *g, struct step *st, int ei)
{
	struct exec *e = EXEC(st, ei);
	const struct node *x = &g->m->nodes[e->node];
	struct mev ev[64];
	int nev = 0;
	for (int s = 0; s < x->n_out && nev < 60; s++) {
		const struct buf *b = &st->bufs[st->slots[e->slot_off + s]];
		if (b->owner == ei && b->kind == BUF_OUT)
			ev[nev++] = (struct mev){b->alloc, b->t_alloc, b->size, s};
	}
	for (int k = 0; k < e->n_temp; k++) {
		const struct buf *b = &st->bufs[st->temps[e->temp_off + k]];
		ev[nev++] = (struct mev){b->alloc, b->t_alloc, b->size, 100 + k};
		ev[nev++] = (struct mev){b->alloc, b->t_free, -b->size, 100 + k};
	}
	e->mem_off = (int)st->mems->len;
	e->n_mem = 0;
	int order[MAX_ALLOC];
	int n_order = 0;
	for (int i = 0; i < nev; i++) {
		bool seen = false;
		for (int k = 0; k < n_order; k++)
			seen = seen || order[k] == ev[i].alloc;
		if (!seen)
			order[n_order++] = ev[i].alloc;
	}
	qsort(ev, (size_t)nev, sizeof ev[0], cmp_mev);
	for (int k = 0; k < n_order; k++) {
		struct mem mu;
		memset(&mu, 0, sizeof mu);
		mu.alloc = order[k];
		mu.rec_off = (int)st->recs->len;
		int64_t run = 0;
		for (int i = 0; i < nev; i++) {
			if (ev[i].alloc != mu.alloc)
				continue;
			struct rec rc = {ev[i].t, ev[i].bytes};
			g_array_append_val(st->recs, rc);
			mu.n_rec++;
			run += ev[i].bytes;
			if (ev[i].bytes > 0)
				mu.total += ev[i].bytes;
			mu.peak = max64(mu.peak, run);
		}
		for (int s = 0; s < x->n_out; s++) {
			const struct buf *b = &st->bufs[st->slots[e->slot_off + s]];
			if (b->owner == ei && b->kind == BUF_OUT && b->alloc == mu.alloc &&
			    b->t_free > e->us_end)
				mu.live += b->size;
		}
		g_array_append_val(st->mems, mu);
		e->n_mem++;
	}
}

struct aev {
	int alloc;
	int64_t t, delta;
	int query; /* -1: an event; else the index of a mem asking at t */
};

static int cmp_aev(const void *a, const void *b)
{
	const struct aev *x = a, *y = b;
	if (x->alloc != y->alloc)
		return x->alloc - y->alloc;
	if (x->t != y->t)
		return x->t < y->t ? -1 : 1;
	/* at one microsecond: frees, allocations, then the questions */
	int kx = x->query >= 0 ? 2 : (x->delta < 0 ? 0 : 1);
	int ky = y->query >= 0 ? 2 : (y->delta < 0 ? 0 : 1);
	return kx - ky;
}

/* allocator_bytes_in_use of every AllocatorMemoryUsed: the allocator's
 * persistent baseline plus every step buffer alive after all events at the
 * execution's end, whoever allocated it. */
static void in_use(struct gen *g, struct step *st)
{
	size_t n = 2 * (size_t)st->n_bufs + st->mems->len;
	struct aev *v = g_new(struct aev, n + 1);
	size_t k = 0;
	int64_t base[MAX_ALLOC] = {0};
	for (int i = 0; i < st->n_bufs; i++) {
		const struct buf *b = &st->bufs[i];
		if (b->kind == BUF_PERSIST) {
			base[b->alloc] += b->size;
			continue;
		}
		v[k++] = (struct aev){b->alloc, b->t_alloc, b->size, -1};
		v[k++] = (struct aev){b->alloc, b->t_free, -b->size, -1};
	}
	for (guint i = 0; i < st->execs->len; i++) {
		const struct exec *e = EXEC(st, i);
		for (int j = 0; j < e->n_mem; j++) {
			int mi = e->mem_off + j;
			int a = g_array_index(st->mems, struct mem, mi).alloc;
			v[k++] = (struct aev){a, e->us_end, 0, mi};
		}
	}
	qsort(v, k, sizeof *v, cmp_aev);
	int64_t cur = 0;
	int alloc = -1;
	for (size_t i = 0; i < k; i++) {
		if (v[i].alloc != alloc) {
			alloc = v[i].alloc;
			cur = base[alloc];
		}
		if (v[i].query >= 0)
			g_array_index(st->mems, struct mem, v[i].query).in_use = cur;
		else
			cur += v[i].delta;
	}
	g_free(v);
}

static void memory(struct gen *g, struct step *st)
{
	uint64_t r = gen_seed(g, TAG_MEMORY, (uint64_t)st->index);
	assign_buffers(g, st, &r);
	free_times(g, st);
	assign_ids(g, st);
	for (guint i = 0; i < st->execs->len; i++)
		exec_memory(g, st, (int)i);
	in_use(g, st);
}

/* What real dumps get wrong, by the rules' "recorded vs simulated": some
 * _Recv executions leave no stats (their buffers stay in every in-use
 * figure), and a Switch may list only its live output. Drawn from a stream
 * of their own, so the run without --quirks is unchanged. */
static void quirks(struct gen *g, struct step *st)
{
	int pct = unrecorded_percent(&g->cfg);
	if (!g->cfg.quirks && pct == 0)
		return;
	uint64_t r = gen_seed(g, TAG_QUIRK, (uint64_t)st->index);
	for (guint i = 0; i < st->execs->len; i++) {
		struct exec *e = EXEC(st, i);
		const struct node *x = &g->m->nodes[e->node];
		if (x->op == OP_RECV && !x->client)
			e->unrecorded = chance(&r, pct);
		else if (x->op == OP_SWITCH && chance(&r, 50))
			e->only_slot = 1;
	}
}

/* ------------------------------------------------------------------ */
/* Protobuf messages                                                   */

#define PB_NEW(a, T, INIT) pb_init((a), sizeof(T), &(T)INIT)

static void *pb_init(tl_arena *a, size_t size, const void *init)
{
	void *p = tl_arena_alloc(a, size);
	memcpy(p, init, size);
	return p;
}

static Tensorflow__TensorShapeProto *shape_pb(tl_arena *a, const struct shape *s)
{
	Tensorflow__TensorShapeProto *sp =
	    PB_NEW(a, Tensorflow__TensorShapeProto, TENSORFLOW__TENSOR_SHAPE_PROTO__INIT);
	if (s->nd == 0)
		return sp;
	sp->n_dim = (size_t)s->nd;
	sp->dim = tl_arena_alloc(a, sizeof *sp->dim * (size_t)s->nd);
	Tensorflow__TensorShapeProto__Dim *dims = tl_arena_alloc(a, sizeof *dims * (size_t)s->nd);
	for (int i = 0; i < s->nd; i++) {
		Tensorflow__TensorShapeProto__Dim init = TENSORFLOW__TENSOR_SHAPE_PROTO__DIM__INIT;
		dims[i] = init;
		dims[i].size = s->d[i];
		sp->dim[i] = &dims[i];
	}
	return sp;
}

struct attrs {
	tl_arena *a;
	Tensorflow__NodeDef__AttrEntry *e[12];
	size_t n;
};

static Tensorflow__AttrValue *attr(struct attrs *at, const char *key)
{
	Tensorflow__NodeDef__AttrEntry *e =
	    PB_NEW(at->a, Tensorflow__NodeDef__AttrEntry, TENSORFLOW__NODE_DEF__ATTR_ENTRY__INIT);
	e->key = (char *)key;
	/* its INIT macro leaves braces out around the oneof union */
	e->value = tl_arena_alloc(at->a, sizeof *e->value);
	tensorflow__attr_value__init(e->value);
	at->e[at->n++] = e;
	return e->value;
}

static void at_type(struct attrs *at, const char *key, int dt)
{
	Tensorflow__AttrValue *v = attr(at, key);
	v->value_case = TENSORFLOW__ATTR_VALUE__VALUE_TYPE;
	v->type = (Tensorflow__DataType)dt;
}

static void at_s(struct attrs *at, const char *key, const char *s)
{
	Tensorflow__AttrValue *v = attr(at, key);
	v->value_case = TENSORFLOW__ATTR_VALUE__VALUE_S;
	v->s.data = (uint8_t *)s;
	v->s.len = strlen(s);
}

static void at_i(struct attrs *at, const char *key, int64_t i)
{
	Tensorflow__AttrValue *v = attr(at, key);
	v->value_case = TENSORFLOW__ATTR_VALUE__VALUE_I;
	v->i = i;
}

static void at_b(struct attrs *at, const char *key, bool b)
{
	Tensorflow__AttrValue *v = attr(at, key);
	v->value_case = TENSORFLOW__ATTR_VALUE__VALUE_B;
	v->b = b;
}

static void at_f(struct attrs *at, const char *key, float f)
{
	Tensorflow__AttrValue *v = attr(at, key);
	v->value_case = TENSORFLOW__ATTR_VALUE__VALUE_F;
	v->f = f;
}

static void at_shape(struct attrs *at, const char *key, const struct shape *s)
{
	Tensorflow__AttrValue *v = attr(at, key);
	v->value_case = TENSORFLOW__ATTR_VALUE__VALUE_SHAPE;
	v->shape = shape_pb(at->a, s);
}

static void at_ilist(struct attrs *at, const char *key, int64_t a, int64_t b, int64_t c, int64_t d)
{
	Tensorflow__AttrValue *v = attr(at, key);
	v->value_case = TENSORFLOW__ATTR_VALUE__VALUE_LIST;
	v->list = PB_NEW(at->a, Tensorflow__AttrValue__ListValue,
			 TENSORFLOW__ATTR_VALUE__LIST_VALUE__INIT);
	v->list->n_i = 4;
	v->list->i = tl_arena_alloc(at->a, 4 * sizeof(int64_t));
	v->list->i[0] = a;
	v->list->i[1] = b;
	v->list->i[2] = c;
	v->list->i[3] = d;
}

static void at_const(struct attrs *at, const struct node *x, const struct tmeta *t)
{
	Tensorflow__AttrValue *v = attr(at, "value");
	v->value_case = TENSORFLOW__ATTR_VALUE__VALUE_TENSOR;
	Tensorflow__TensorProto *tp =
	    PB_NEW(at->a, Tensorflow__TensorProto, TENSORFLOW__TENSOR_PROTO__INIT);
	tp->dtype = (Tensorflow__DataType)t->dtype;
	tp->tensor_shape = shape_pb(at->a, &t->shape);
	if (shape_elems(&t->shape) > 0) {
		if (t->dtype == I32) {
			tp->n_int_val = (size_t)x->n_ivals;
			tp->int_val = (int32_t *)x->ivals;
		} else if (t->dtype == BOOL) {
			tp->n_bool_val = 1;
			tp->bool_val = tl_arena_alloc(at->a, sizeof *tp->bool_val);
			tp->bool_val[0] = x->fval != 0.0f;
		} else {
			tp->n_float_val = 1;
			tp->float_val = tl_arena_alloc(at->a, sizeof(float));
			tp->float_val[0] = x->fval;
		}
	}
	v->tensor = tp;
}

static int cmp_attr(const void *a, const void *b)
{
	const Tensorflow__NodeDef__AttrEntry *x = *(Tensorflow__NodeDef__AttrEntry *const *)a;
	const Tensorflow__NodeDef__AttrEntry *y = *(Tensorflow__NodeDef__AttrEntry *const *)b;
	return strcmp(x->key, y->key);
}

static int strip_ref(int dt)
{
	return dt == F32REF ? F32 : dt;
}

static void conv_attrs(struct attrs *at, int stride)
{
	at_s(at, "data_format", "NHWC");
	at_ilist(at, "dilations", 1, 1, 1, 1);
	at_s(at, "padding", "SAME");
	at_ilist(at, "strides", 1, stride, stride, 1);
	at_b(at, "use_cudnn_on_gpu", true);
}

static void transfer_attrs(struct attrs *at, const struct gen *g, const struct node *x)
{
	at_b(at, "client_terminated", x->client);
	at_s(at, "recv_device", g->dev[x->recv_dev].name);
	at_s(at, "send_device", g->dev[x->send_dev].name);
	at_i(at, "send_device_incarnation", g->dev[x->send_dev].incarnation);
	at_s(at, "tensor_name", x->tensor_name);
}

/* The attrs TensorFlow gives each op. */
static void node_attrs(struct attrs *at, const struct gen *g, const struct node *x)
{
	const struct model *m = g->m;
	const struct tmeta *out = x->n_out > 0 ? &m->outs[x->out_off] : NULL;
	struct ref in0 = first_data_input(m, x);
	int t_in = in0.node >= 0 ? strip_ref(meta_of(m, in0)->dtype) : F32;
	int t = out != NULL ? strip_ref(out->dtype) : t_in;
	switch (x->op) {
	case OP_CONST:
		at_type(at, "dtype", out->dtype);
		at_const(at, x, out);
		break;
	case OP_VAR:
		at_s(at, "container", "");
		at_type(at, "dtype", F32);
		at_shape(at, "shape", &out->shape);
		at_s(at, "shared_name", "");
		break;
	case OP_RESHAPE:
		at_type(at, "T", t);
		at_type(at, "Tshape", I32);
		break;
	case OP_SHAPE:
	case OP_SHAPEN:
		if (x->op == OP_SHAPEN)
			at_i(at, "N", x->aux);
		at_type(at, "T", t_in);
		at_type(at, "out_type", I32);
		break;
	case OP_CONV:
	case OP_CONV_BI:
	case OP_CONV_BF:
		at_type(at, "T", F32);
		conv_attrs(at, x->op == OP_CONV ? x->aux : 1);
		break;
	case OP_MATMUL:
		at_type(at, "T", F32);
		at_b(at, "transpose_a", x->aux & 1);
		at_b(at, "transpose_b", (x->aux & 2) != 0);
		break;
	case OP_BIASADD:
	case OP_BIASADDGRAD:
		at_type(at, "T", F32);
		at_s(at, "data_format", "NHWC");
		break;
	case OP_ADDN:
	case OP_CONCAT:
		at_i(at, "N", x->aux);
		at_type(at, "T", t);
		if (x->op == OP_CONCAT)
			at_type(at, "Tidx", I32);
		break;
	case OP_SUM:
	case OP_MEAN:
		at_type(at, "T", t);
		at_type(at, "Tidx", I32);
		at_b(at, "keep_dims", x->aux != 0);
		break;
	case OP_FBN:
	case OP_FBNGRAD:
		at_type(at, "T", F32);
		at_s(at, "data_format", "NHWC");
		at_f(at, "epsilon", 0.001f);
		at_b(at, "is_training", true);
		break;
	case OP_SPLIT:
		at_type(at, "T", t);
		at_i(at, "num_split", x->aux);
		break;
	case OP_MAXPOOL:
	case OP_MAXPOOLGRAD:
		at_type(at, "T", F32);
		at_s(at, "data_format", "NHWC");
		at_ilist(at, "ksize", 1, 2, 2, 1);
		at_s(at, "padding", "SAME");
		at_ilist(at, "strides", 1, 2, 2, 1);
		break;
	case OP_XENT:
		at_type(at, "T", F32);
		at_type(at, "Tlabels", I32);
		break;
	case OP_FILL:
		at_type(at, "T", t);
		at_type(at, "index_type", I32);
		break;
	case OP_TILE:
		at_type(at, "T", t);
		at_type(at, "Tmultiples", I32);
		break;
	case OP_EXPANDDIMS:
		at_type(at, "T", t);
		at_type(at, "Tdim", I32);
		break;
	case OP_ARGMAX:
		at_type(at, "T", t_in);
		at_type(at, "Tidx", I32);
		at_type(at, "output_type", I64);
		break;
	case OP_EQUAL:
		at_type(at, "T", t_in);
		break;
	case OP_CAST:
		at_type(at, "DstT", t);
		at_type(at, "SrcT", t_in);
		at_b(at, "Truncate", false);
		break;
	case OP_APPLYGD:
		at_type(at, "T", F32);
		at_b(at, "use_locking", false);
		break;
	case OP_NOOP:
		break;
	case OP_ARG:
		at_type(at, "T", t);
		at_i(at, "index", x->aux);
		break;
	case OP_RETVAL:
		at_type(at, "T", t_in);
		at_i(at, "index", x->aux);
		break;
	case OP_SEND:
	case OP_HOSTSEND:
		at_type(at, "T", t_in);
		transfer_attrs(at, g, x);
		break;
	case OP_RECV:
	case OP_HOSTRECV:
		transfer_attrs(at, g, x);
		at_type(at, "tensor_type", t);
		break;
	default:
		at_type(at, "T", t);
	}
}

static Tensorflow__NodeDef *node_def(struct gen *g, int n)
{
	struct model *m = g->m;
	tl_arena *a = m->arena;
	const struct node *x = &m->nodes[n];
	Tensorflow__NodeDef *nd = PB_NEW(a, Tensorflow__NodeDef, TENSORFLOW__NODE_DEF__INIT);
	nd->name = (char *)x->name;
	nd->op = (char *)OPS[x->op].name;
	nd->device = (char *)g->dev[x->dev].name;
	if (x->n_in > 0) {
		nd->n_input = (size_t)x->n_in;
		nd->input = tl_arena_alloc(a, sizeof(char *) * (size_t)x->n_in);
		GString *s = g_string_new(NULL);
		for (int i = 0; i < x->n_in; i++) {
			g_string_truncate(s, 0);
			input_str(s, m, m->refs[x->in_off + i]);
			nd->input[i] = tl_arena_strdup(a, s->str);
		}
		g_string_free(s, TRUE);
	}
	struct attrs at = {a, {NULL}, 0};
	node_attrs(&at, g, x);
	if (at.n > 0) {
		qsort(at.e, at.n, sizeof at.e[0], cmp_attr);
		nd->n_attr = at.n;
		nd->attr = tl_arena_alloc(a, sizeof(at.e[0]) * at.n);
		memcpy(nd->attr, at.e, sizeof(at.e[0]) * at.n);
	}
	return nd;
}

/* One GraphDef per device, as RunOptions.output_partition_graphs gives. */
static void make_graphs(struct gen *g)
{
	struct model *m = g->m;
	tl_arena *a = m->arena;
	int producer = g->cfg.old_names ? 21 : 1205;
	g->graphs = tl_arena_alloc(a, sizeof *g->graphs * (size_t)g->n_dev);
	g->n_graphs = 0;
	for (int d = 0; d < g->n_dev; d++) {
		int count = 0;
		for (int i = 0; i < m->n_order; i++)
			count += m->nodes[m->order[i]].dev == d;
		if (count == 0)
			continue;
		Tensorflow__GraphDef *gd =
		    PB_NEW(a, Tensorflow__GraphDef, TENSORFLOW__GRAPH_DEF__INIT);
		gd->n_node = (size_t)count;
		gd->node = tl_arena_alloc(a, sizeof *gd->node * (size_t)count);
		size_t k = 0;
		for (int i = 0; i < m->n_order; i++)
			if (m->nodes[m->order[i]].dev == d)
				gd->node[k++] = node_def(g, m->order[i]);
		gd->versions = PB_NEW(a, Tensorflow__VersionDef, TENSORFLOW__VERSION_DEF__INIT);
		gd->versions->producer = producer;
		g->graphs[g->n_graphs++] = gd;
	}
}

static Tensorflow__NodeExecStats *ns_new(tl_arena *a, const char *name, int64_t sched,
					 int64_t start, int64_t op_start, int64_t op_end,
					 int64_t end, bool nanos)
{
	Tensorflow__NodeExecStats *ns =
	    PB_NEW(a, Tensorflow__NodeExecStats, TENSORFLOW__NODE_EXEC_STATS__INIT);
	ns->node_name = (char *)name;
	/* as TensorFlow computes them: each time truncated to micros, then
	 * relative to the truncated start */
	int64_t s = start / 1000;
	ns->all_start_micros = s;
	ns->op_start_rel_micros = op_start / 1000 - s;
	ns->op_end_rel_micros = op_end / 1000 - s;
	ns->all_end_rel_micros = end / 1000 - s;
	ns->scheduled_micros = sched / 1000;
	if (nanos) {
		ns->all_start_nanos = start;
		ns->op_start_rel_nanos = op_start - start;
		ns->op_end_rel_nanos = op_end - start;
		ns->all_end_rel_nanos = end - start;
		ns->scheduled_nanos = sched;
	}
	return ns;
}

static Tensorflow__AllocationDescription *alloc_desc(tl_arena *a, const struct gen *g,
						     const struct buf *b, bool single)
{
	Tensorflow__AllocationDescription *ad =
	    PB_NEW(a, Tensorflow__AllocationDescription, TENSORFLOW__ALLOCATION_DESCRIPTION__INIT);
	ad->requested_bytes = b->req;
	ad->allocated_bytes = b->size;
	ad->allocator_name = (char *)g->alloc_name[b->alloc];
	ad->allocation_id = b->id;
	ad->has_single_reference = single;
	ad->ptr = b->ptr;
	return ad;
}

static void exec_memory_pb(struct gen *g, struct step *st, const struct exec *e,
			   Tensorflow__NodeExecStats *ns, GString *prefix)
{
	tl_arena *a = st->arena;
	if (e->n_mem == 0)
		return;
	ns->n_memory = (size_t)e->n_mem;
	ns->memory = tl_arena_alloc(a, sizeof *ns->memory * (size_t)e->n_mem);
	for (int j = 0; j < e->n_mem; j++) {
		const struct mem *mu = &g_array_index(st->mems, struct mem, e->mem_off + j);
		Tensorflow__AllocatorMemoryUsed *am = PB_NEW(
		    a, Tensorflow__AllocatorMemoryUsed, TENSORFLOW__ALLOCATOR_MEMORY_USED__INIT);
		am->allocator_name = (char *)g->alloc_name[mu->alloc];
		am->total_bytes = mu->total;
		am->peak_bytes = mu->peak;
		am->live_bytes = mu->live;
		am->allocator_bytes_in_use = mu->in_use;
		am->n_allocation_records = (size_t)mu->n_rec;
		am->allocation_records =
		    tl_arena_alloc(a, sizeof *am->allocation_records * (size_t)mu->n_rec);
		Tensorflow__AllocationRecord *recs =
		    tl_arena_alloc(a, sizeof *recs * (size_t)mu->n_rec);
		for (int k = 0; k < mu->n_rec; k++) {
			const struct rec *rc =
			    &g_array_index(st->recs, struct rec, mu->rec_off + k);
			Tensorflow__AllocationRecord init = TENSORFLOW__ALLOCATION_RECORD__INIT;
			recs[k] = init;
			recs[k].alloc_micros = rc->t;
			recs[k].alloc_bytes = rc->bytes;
			am->allocation_records[k] = &recs[k];
		}
		ns->memory[j] = am;
		/* TensorFlow's executor prefixes the label with what an op
		 * allocated, when it is at least 0.1 MB */
		if (mu->total >= 0.1 * 1048576.0)
			g_string_append_printf(
			    prefix, "[%s %.1fMB %.1fMB] ", g->alloc_name[mu->alloc],
			    (double)mu->total / 1048576.0, (double)mu->peak / 1048576.0);
	}
}

static void exec_outputs_pb(struct gen *g, struct step *st, int ei, const struct exec *e,
			    Tensorflow__NodeExecStats *ns)
{
	tl_arena *a = st->arena;
	const struct model *m = g->m;
	const struct node *x = &m->nodes[e->node];
	if (x->n_out == 0)
		return;
	ns->n_output = e->only_slot >= 0 ? 1 : (size_t)x->n_out;
	ns->output = tl_arena_alloc(a, sizeof *ns->output * ns->n_output);
	size_t k = 0;
	for (int s = 0; s < x->n_out; s++) {
		if (e->only_slot >= 0 && s != e->only_slot)
			continue;
		const struct tmeta *t = &m->outs[x->out_off + s];
		const struct buf *b = &st->bufs[st->slots[e->slot_off + s]];
		Tensorflow__NodeOutput *no =
		    PB_NEW(a, Tensorflow__NodeOutput, TENSORFLOW__NODE_OUTPUT__INIT);
		no->slot = s;
		no->tensor_description =
		    PB_NEW(a, Tensorflow__TensorDescription, TENSORFLOW__TENSOR_DESCRIPTION__INIT);
		no->tensor_description->dtype = (Tensorflow__DataType)t->dtype;
		no->tensor_description->shape = shape_pb(a, &t->shape);
		no->tensor_description->allocation_description =
		    alloc_desc(a, g, b, b->owner == ei && b->kind == BUF_OUT);
		ns->output[k++] = no;
	}
}

/* referenced_tensor: the persistent buffers (variables) an execution reads
 * through a data input, directly or through a forwarding op. */
static void exec_refs_pb(struct gen *g, struct step *st, const struct exec *e,
			 Tensorflow__NodeExecStats *ns)
{
	const struct model *m = g->m;
	const struct node *x = &m->nodes[e->node];
	int found[8];
	int n = 0;
	for (int i = 0; i < x->n_in && n < 8; i++) {
		struct ref in = m->refs[x->in_off + i];
		if (in.port < 0)
			continue;
		const struct exec *p = EXEC(st, producer_exec(g, st, in.node, e->node, e->iter));
		int b = st->slots[p->slot_off + in.port];
		if (st->bufs[b].kind != BUF_PERSIST)
			continue;
		bool dup = false;
		for (int k = 0; k < n; k++)
			dup = dup || found[k] == b;
		if (!dup)
			found[n++] = b;
	}
	if (n == 0)
		return;
	ns->n_referenced_tensor = (size_t)n;
	ns->referenced_tensor =
	    tl_arena_alloc(st->arena, sizeof *ns->referenced_tensor * (size_t)n);
	for (int k = 0; k < n; k++)
		ns->referenced_tensor[k] = alloc_desc(st->arena, g, &st->bufs[found[k]], false);
}

static void exec_memstats_pb(struct gen *g, struct step *st, const struct exec *e,
			     Tensorflow__NodeExecStats *ns)
{
	tl_arena *a = st->arena;
	const struct node *x = &g->m->nodes[e->node];
	int64_t temp = 0;
	for (int k = 0; k < e->n_temp; k++)
		temp += st->bufs[st->temps[e->temp_off + k]].size;
	if (x->op != OP_VAR && temp == 0)
		return;
	Tensorflow__MemoryStats *ms =
	    PB_NEW(a, Tensorflow__MemoryStats, TENSORFLOW__MEMORY_STATS__INIT);
	ms->temp_memory_size = temp;
	if (x->op == OP_VAR) {
		const struct buf *b = &st->bufs[g->pbuf_of[e->node]];
		ms->persistent_memory_size = b->size;
		ms->n_persistent_tensor_alloc_ids = 1;
		ms->persistent_tensor_alloc_ids = tl_arena_alloc(a, sizeof(int64_t));
		ms->persistent_tensor_alloc_ids[0] = b->id;
	}
	ns->memory_stats = ms;
}

static Tensorflow__NodeExecStats *exec_pb(struct gen *g, struct step *st, int ei, GString *tmp)
{
	const struct exec *e = EXEC(st, ei);
	const struct node *x = &g->m->nodes[e->node];
	Tensorflow__NodeExecStats *ns = ns_new(st->arena, x->name, e->sched, e->start, e->op_start,
					       e->op_end, e->end, !g->cfg.old_names);
	ns->thread_id = e->tid;
	g_string_truncate(tmp, 0);
	exec_memory_pb(g, st, e, ns, tmp);
	exec_outputs_pb(g, st, ei, e, ns);
	exec_refs_pb(g, st, e, ns);
	exec_memstats_pb(g, st, e, ns);
	if (tmp->len == 0) {
		ns->timeline_label = (char *)x->label;
	} else {
		g_string_append(tmp, x->label);
		ns->timeline_label = tl_arena_strdup(st->arena, tmp->str);
	}
	return ns;
}

static Tensorflow__NodeExecStats *extra_pb(struct gen *g, struct step *st, const struct extra *x)
{
	Tensorflow__NodeExecStats *ns = ns_new(st->arena, x->name, x->sched, x->start, x->op_start,
					       x->op_end, x->end, !g->cfg.old_names);
	ns->thread_id = x->tid;
	ns->timeline_label =
	    (char *)(strcmp(x->name, "_SOURCE") == 0 ? "_SOURCE = NoOp()" : "_SINK = NoOp()");
	return ns;
}

/* A CUPTI record: no nanos and no op start, at least one microsecond long,
 * as TensorFlow's device tracer writes them. */
static Tensorflow__NodeExecStats *tracer_ns(tl_arena *a, const char *name, int64_t start,
					    int64_t end)
{
	Tensorflow__NodeExecStats *ns =
	    PB_NEW(a, Tensorflow__NodeExecStats, TENSORFLOW__NODE_EXEC_STATS__INIT);
	ns->node_name = (char *)name;
	ns->all_start_micros = start / 1000;
	int64_t us = (end - start) / 1000;
	ns->op_end_rel_micros = ns->all_end_rel_micros = us < 1 ? 1 : us;
	return ns;
}

static Tensorflow__NodeExecStats *kern_pb(struct gen *g, struct step *st, const struct kern *k)
{
	const struct exec *e = EXEC(st, k->exec);
	const struct node *x = &g->m->nodes[e->node];
	Tensorflow__NodeExecStats *ns = tracer_ns(st->arena, x->annot, k->start, k->end);
	if (g->cfg.tf13)
		ns->scheduled_micros = min64(e->op_start, k->start);
	const char *kname = OPS[x->op].kernels[k->k];
	char tail[64] = "";
	if (!g->cfg.old_names) {
		/* newer TensorFlow adds "#id=step,iter_num=k#" to the annotation;
		 * dumps show both forms side by side, about 1 in 4 without */
		if ((uint32_t)e->node * 2654435761u >> 30 != 0)
			snprintf(tail, sizeof tail, "#id=%" PRId64 ",iter_num=%d#", st->step_id,
				 e->iter);
		ns->thread_id = e->tid;
	}
	ns->timeline_label =
	    (char *)astrf(st->arena, "%s regs:%u shm:%u grid:%u,%u,%u block:%u,%u,%u@@%s%s", kname,
			  k->regs, k->shm, k->grid[0], k->grid[1], k->grid[2], k->block[0],
			  k->block[1], k->block[2], x->annot, tail);
	return ns;
}

static const char *const COPY_KIND[3] = {"HtoD", "DtoH", "DtoD"};
static const char *const COPY_WHAT[3] = {"(Pinned to Device)", "(Device to Pinned)",
					 "(Device to Device)"};

/* TF<1.4 named a memcpy by its edge and the copy kind; newer TensorFlow by
 * the CUPTI annotation of the op that issued it ("x/_5:_Recv"), with the
 * misspelled " aync" that TensorFlow really writes. */
static Tensorflow__NodeExecStats *mcpy_pb(struct gen *g, struct step *st, const struct mcpy *c)
{
	const struct exec *e = EXEC(st, c->exec);
	const struct node *x = &g->m->nodes[e->node];
	tl_arena *a = st->arena;
	Tensorflow__NodeExecStats *ns;
	if (g->cfg.old_names) {
		ns = tracer_ns(a, astrf(a, "%s:MEMCPY%s", x->tensor_name, COPY_KIND[c->kind]),
			       c->start, c->end);
		if (g->cfg.tf13)
			ns->scheduled_micros = min64(e->op_start, c->start);
		ns->timeline_label =
		    (char *)astrf(a, "MEMCPY%s %" PRId64 " bytes %s", COPY_KIND[c->kind], c->bytes,
				  COPY_WHAT[c->kind]);
		return ns;
	}
	ns = tracer_ns(a, x->annot, c->start, c->end);
	ns->thread_id = e->tid;
	char to[32] = "";
	if (c->kind == COPY_DTOD)
		snprintf(to, sizeof to, " to device:%d", x->dev - 1);
	ns->timeline_label = (char *)astrf(a, "%s bytes:%" PRId64 "%s%s", x->annot, c->bytes,
					   c->async ? " aync" : "", to);
	return ns;
}

static Tensorflow__NodeExecStats *sync_pb(struct step *st, const struct syncrec *y)
{
	Tensorflow__NodeExecStats *ns =
	    tracer_ns(st->arena, "cuStreamSynchronize", y->start, y->end);
	ns->thread_id = y->tid;
	ns->timeline_label = (char *)astrf(st->arena, "ThreadId %u", y->tid);
	return ns;
}

/* ------------------------------------------------------------------ */
/* One step's RunMetadata                                              */

struct item {
	int64_t k1, k2;
	int idx;
	Tensorflow__NodeExecStats *ns;
};

static int cmp_item(const void *a, const void *b)
{
	const struct item *x = a, *y = b;
	if (x->k1 != y->k1)
		return x->k1 < y->k1 ? -1 : 1;
	if (x->k2 != y->k2)
		return x->k2 < y->k2 ? -1 : 1;
	return (x->idx > y->idx) - (x->idx < y->idx);
}

struct devlist {
	Tensorflow__DeviceStepStats **dev;
	size_t n, cap;
	size_t node_stats;
};

static void dev_add(struct devlist *dl, tl_arena *a, const char *name, struct item *items, size_t n)
{
	if (n == 0)
		return;
	qsort(items, n, sizeof *items, cmp_item);
	Tensorflow__DeviceStepStats *ds =
	    PB_NEW(a, Tensorflow__DeviceStepStats, TENSORFLOW__DEVICE_STEP_STATS__INIT);
	ds->device = (char *)name;
	ds->n_node_stats = n;
	ds->node_stats = tl_arena_alloc(a, sizeof *ds->node_stats * n);
	for (size_t i = 0; i < n; i++)
		ds->node_stats[i] = items[i].ns;
	GROW(dl->dev, dl->n, dl->cap);
	dl->dev[dl->n++] = ds;
	dl->node_stats += n;
}

static void thread_names(tl_arena *a, Tensorflow__DeviceStepStats *ds, const struct devinfo *di)
{
	ds->n_thread_names = (size_t)di->n_thr;
	ds->thread_names = tl_arena_alloc(a, sizeof *ds->thread_names * (size_t)di->n_thr);
	for (int i = 0; i < di->n_thr; i++) {
		Tensorflow__DeviceStepStats__ThreadNamesEntry *e =
		    PB_NEW(a, Tensorflow__DeviceStepStats__ThreadNamesEntry,
			   TENSORFLOW__DEVICE_STEP_STATS__THREAD_NAMES_ENTRY__INIT);
		e->key = di->tid[i];
		e->value = "tf_Compute";
		ds->thread_names[i] = e;
	}
}

/* Node stats in the order the collector saves them: at completion. */
static void compute_devices(struct gen *g, struct step *st, struct devlist *dl, struct item *items)
{
	GString *tmp = g_string_new(NULL);
	for (int d = 0; d < g->n_dev; d++) {
		size_t n = 0;
		for (guint i = 0; i < st->extras->len; i++) {
			const struct extra *x = &g_array_index(st->extras, struct extra, i);
			if (x->dev == d)
				items[n++] = (struct item){x->end, x->start, -1 - (int)i,
							   extra_pb(g, st, x)};
		}
		for (guint i = 0; i < st->execs->len; i++) {
			const struct exec *e = EXEC(st, i);
			if (g->m->nodes[e->node].dev == d && !e->unrecorded)
				items[n++] = (struct item){e->end, e->start, (int)i,
							   exec_pb(g, st, (int)i, tmp)};
		}
		size_t before = dl->n;
		dev_add(dl, st->arena, g->dev[d].name, items, n);
		if (dl->n > before && g->dev[d].thread_names)
			thread_names(st->arena, dl->dev[before], &g->dev[d]);
	}
	g_string_free(tmp, TRUE);
}

/* The CUPTI pseudo-devices of one GPU: kernels on /stream:all and their
 * stream, memcpys on /memcpy and their stream, cuStreamSynchronize on
 * /sync (TF 1.14 and later). One message serves both lists: the wire
 * encoding is the same. */
static void tracer_devices(struct gen *g, struct step *st, int gpu, struct devlist *dl,
			   struct item *items, Tensorflow__NodeExecStats **kpb,
			   Tensorflow__NodeExecStats **cpb)
{
	const struct devinfo *di = &g->dev[1 + gpu];
	tl_arena *a = st->arena;
	size_t n = 0;
	for (guint i = 0; i < st->mcpys->len; i++) {
		const struct mcpy *c = &g_array_index(st->mcpys, struct mcpy, i);
		if (c->gpu == gpu)
			items[n++] = (struct item){c->start, c->end, (int)i, cpb[i]};
	}
	dev_add(dl, a, di->memcpy_dev, items, n);
	n = 0;
	for (guint i = 0; i < st->kerns->len; i++) {
		const struct kern *k = &g_array_index(st->kerns, struct kern, i);
		if (g->m->nodes[EXEC(st, k->exec)->node].dev == 1 + gpu)
			items[n++] = (struct item){k->start, k->end, (int)i, kpb[i]};
	}
	dev_add(dl, a, astrf(a, "%sall", di->stream_prefix), items, n);
	int ids[MAX_STREAMS + 3];
	int n_ids = 0;
	for (int i = 0; i < di->n_streams; i++)
		ids[n_ids++] = di->stream[i];
	ids[n_ids++] = di->s_htod;
	ids[n_ids++] = di->s_dtoh;
	ids[n_ids++] = di->s_dtod;
	for (int s = 0; s < n_ids; s++) {
		n = 0;
		for (guint i = 0; i < st->kerns->len; i++) {
			const struct kern *k = &g_array_index(st->kerns, struct kern, i);
			if (k->stream == ids[s] &&
			    g->m->nodes[EXEC(st, k->exec)->node].dev == 1 + gpu)
				items[n++] = (struct item){k->start, k->end, (int)i, kpb[i]};
		}
		for (guint i = 0; i < st->mcpys->len; i++) {
			const struct mcpy *c = &g_array_index(st->mcpys, struct mcpy, i);
			if (c->gpu == gpu && c->stream == ids[s])
				items[n++] = (struct item){c->start, c->end, (int)i, cpb[i]};
		}
		dev_add(dl, a, astrf(a, "%s%d", di->stream_prefix, ids[s]), items, n);
	}
	n = 0;
	for (guint i = 0; i < st->syncs->len; i++) {
		const struct syncrec *y = &g_array_index(st->syncs, struct syncrec, i);
		if (y->gpu == gpu)
			items[n++] = (struct item){y->start, y->end, (int)i, sync_pb(st, y)};
	}
	dev_add(dl, a, di->sync_dev, items, n);
}

static Tensorflow__RunMetadata *step_pb(struct gen *g, struct step *st, size_t *node_stats)
{
	tl_arena *a = st->arena;
	size_t cap =
	    st->execs->len + st->extras->len + st->kerns->len + st->mcpys->len + st->syncs->len + 1;
	struct item *items = g_new(struct item, cap);
	struct devlist dl = {NULL, 0, 0, 0};
	compute_devices(g, st, &dl, items);
	Tensorflow__NodeExecStats **kpb = g_new(Tensorflow__NodeExecStats *, st->kerns->len + 1);
	Tensorflow__NodeExecStats **cpb = g_new(Tensorflow__NodeExecStats *, st->mcpys->len + 1);
	for (guint i = 0; i < st->kerns->len; i++)
		kpb[i] = kern_pb(g, st, &g_array_index(st->kerns, struct kern, i));
	for (guint i = 0; i < st->mcpys->len; i++)
		cpb[i] = mcpy_pb(g, st, &g_array_index(st->mcpys, struct mcpy, i));
	for (int gpu = 0; gpu < g->cfg.gpus; gpu++)
		tracer_devices(g, st, gpu, &dl, items, kpb, cpb);
	g_free(kpb);
	g_free(cpb);
	g_free(items);

	Tensorflow__RunMetadata *rm =
	    PB_NEW(a, Tensorflow__RunMetadata, TENSORFLOW__RUN_METADATA__INIT);
	rm->step_stats = PB_NEW(a, Tensorflow__StepStats, TENSORFLOW__STEP_STATS__INIT);
	rm->step_stats->n_dev_stats = dl.n;
	rm->step_stats->dev_stats = tl_arena_alloc(a, sizeof *dl.dev * (dl.n + 1));
	if (dl.n > 0)
		memcpy(rm->step_stats->dev_stats, dl.dev, sizeof *dl.dev * dl.n);
	g_free(dl.dev);
	rm->n_partition_graphs = (size_t)g->n_graphs;
	rm->partition_graphs = g->graphs;
	*node_stats = dl.node_stats;
	return rm;
}

static struct step *step_run(struct gen *g, int index, int total_execs)
{
	struct step *st = g_new0(struct step, 1);
	st->index = index;
	st->rng = gen_seed(g, TAG_STEP, (uint64_t)index);
	st->t0 = g->t_next;
	st->step_id = g->step_id + index;
	st->exec_of = g_new(int, total_execs > 0 ? total_execs : 1);
	st->execs = g_array_sized_new(FALSE, FALSE, sizeof(struct exec), (guint)total_execs);
	st->kerns = g_array_new(FALSE, FALSE, sizeof(struct kern));
	st->mcpys = g_array_new(FALSE, FALSE, sizeof(struct mcpy));
	st->syncs = g_array_new(FALSE, FALSE, sizeof(struct syncrec));
	st->extras = g_array_new(FALSE, FALSE, sizeof(struct extra));
	st->mems = g_array_new(FALSE, FALSE, sizeof(struct mem));
	st->recs = g_array_new(FALSE, FALSE, sizeof(struct rec));
	st->arena = tl_arena_new();
	schedule(g, st);
	memory(g, st);
	quirks(g, st);
	g->t_next = st->t_end + rnd(&st->rng, 2000000, 15000000);
	return st;
}

static void step_free(struct step *st)
{
	g_free(st->exec_of);
	g_array_free(st->execs, TRUE);
	g_array_free(st->kerns, TRUE);
	g_array_free(st->mcpys, TRUE);
	g_array_free(st->syncs, TRUE);
	g_array_free(st->extras, TRUE);
	g_array_free(st->mems, TRUE);
	g_array_free(st->recs, TRUE);
	g_free(st->slots);
	g_free(st->temps);
	g_free(st->bufs);
	tl_arena_free(st->arena);
	g_free(st);
}

/* ------------------------------------------------------------------ */
/* The truth (--truth): what really happened to memory                 */

#define TRUTH_FORMAT "trace-gen exact-memory truth, version 1"

/* The rules simulated above, one line each. */
static const char *const SEMANTICS[] = {
    "Allocators are process-wide and keyed by allocator_name: 'cpu' for CPU:0 ops, "
    "'GPU_<g>_bfc' for GPU:<g> ops, 'cuda_host_bfc' for the host-memory outputs of GPU ops "
    "(int32, int64 and bool tensors, Shape, ShapeN, _HostRecv), shared by all GPUs.",
    "bytes_requested = elements * dtype size (float and int32 4, int64 8, bool 1; a scalar "
    "is 1 element); bytes_allocated = max(256, bytes_requested rounded up to a multiple of "
    "256) on every allocator; in-use figures, peaks and records count bytes_allocated.",
    "Only data inputs (NodeDef inputs without '^') hold buffers; cross-device edges are "
    "already _Send/_Recv (or _HostSend/_HostRecv) pairs, so a node reads a same-device "
    "producer or a _Recv.",
    "Every output slot of an execution gets a fresh buffer at its compute start "
    "(all_start_micros + op_start_rel_micros), except that Identity, Reshape, Switch (both "
    "slots) and ApplyGradientDescent alias the buffer of data input 0 and VariableV2 "
    "outputs its persistent buffer.",
    "A loop node runs K times a step (K NodeExecStats of one node_name, ranked by "
    "all_start_micros); execution k of a consumer reads producer execution k when both ran "
    "K times, the only one when the producer ran once, the last one when the consumer ran "
    "once.",
    "A reference (tensor, producer execution) is dropped at the latest all_end "
    "(all_start_micros + all_end_rel_micros) of the executions reading it, or at its "
    "producer's all_end when none reads it; a forwarding op reads its input and adds "
    "references; a buffer is freed at the latest drop of any reference aliasing it.",
    "A buffer read by a _Retval or a client-terminated _Send is fetched and freed at "
    "step_end_micros, the latest all_end of the NodeExecStats of the '/job:' devices.",
    "VariableV2 buffers are persistent: allocated before the step (alloc_micros null), never "
    "freed (free_micros null), the allocator's baseline from step_start_micros (the earliest "
    "scheduled_micros of the _SOURCE stats); they appear in the VariableV2 execution's "
    "memory_stats and in referenced_tensor of every execution reading them.",
    "Conv2D, Conv2DBackpropInput, Conv2DBackpropFilter, MatMul, FusedBatchNorm, Sum and "
    "SparseSoftmaxCrossEntropyWithLogits executions may allocate 1-2 temporaries on the "
    "device's allocator at t_a in [compute start, compute end - 1], freed at t_f in "
    "[t_a + 1, compute end] (compute end = all_start_micros + op_end_rel_micros); "
    "temp_memory_size is their sum. Two temporaries of one execution alive at once never "
    "have the same bytes_allocated, so its records tell which free ends which.",
    "Every step buffer has free_micros > alloc_micros. At one microsecond frees come before "
    "allocations; a curve point [t, bytes] is the in-use total after every event at t "
    "(baseline plus the step buffers with alloc_micros <= t < free_micros), listed where it "
    "changes, after the first point [step_start_micros, baseline].",
    "peak_bytes is the largest curve value, peak_micros the first time it is reached, "
    "peak_allocation_ids the buffers live after every event at peak_micros.",
    "allocator_bytes_in_use of an AllocatorMemoryUsed is its allocator's curve value at the "
    "execution's all_end, whoever allocated or freed; an execution has one "
    "AllocatorMemoryUsed per allocator it allocated a fresh output or temporary on, in order "
    "of first allocation, recording its own allocations and its temporaries' frees (frees "
    "of outputs are recorded nowhere).",
    "allocation_id is unique in the file: persistent buffers 1..P, then a gap, then "
    "increasing with (alloc_micros, creation order) across steps; ptr is 256-aligned, never "
    "reused, in an address range of its own per allocator.",
    "With --quirks about 30% of _Recv executions have no NodeExecStats (their buffers exist, "
    "producer_recorded false, and count in every allocator_bytes_in_use), and a Switch may "
    "record only its output slot 1 (both slots still alias data input 0).",
};

static const char *const KIND_NAME[] = {
    [BUF_PERSIST] = "persistent", [BUF_OUT] = "output", [BUF_TEMP] = "temp"};

/* Who made each buffer of a step, and which tensors name it. */
struct truth_ctx {
	const struct gen *g;
	const struct step *st;
	int *node_of;	     /* buffer -> producing node */
	int *slot_of;	     /* buffer -> its producer's output slot, -1 for temporaries */
	GPtrArray **aliases; /* buffer -> "node:slot" (owned), first use first */
};

static json_t *jint(int64_t v)
{
	return json_integer((json_int_t)v);
}

static void add_alias(GPtrArray *names, const char *node, int slot)
{
	char *s = g_strdup_printf("%s:%d", node, slot);
	for (guint k = 0; k < names->len; k++) {
		if (strcmp(g_ptr_array_index(names, k), s) == 0) {
			g_free(s);
			return;
		}
	}
	g_ptr_array_add(names, s);
}

static void truth_ctx_init(struct truth_ctx *c, const struct gen *g, const struct step *st)
{
	const struct model *m = g->m;
	int n = st->n_bufs > 0 ? st->n_bufs : 1;
	c->g = g;
	c->st = st;
	c->node_of = g_new(int, n);
	c->slot_of = g_new(int, n);
	c->aliases = g_new0(GPtrArray *, n);
	for (int i = 0; i < st->n_bufs; i++) {
		const struct buf *b = &st->bufs[i];
		c->node_of[i] = b->owner >= 0 ? EXEC(st, b->owner)->node : -1;
		c->slot_of[i] = -1;
		c->aliases[i] = g_ptr_array_new_with_free_func(g_free);
	}
	/* persistent buffers come first in step.bufs, in g->pbufs order */
	for (int v = 0; v < m->n_nodes; v++)
		if (g->pbuf_of[v] >= 0)
			c->node_of[g->pbuf_of[v]] = v;
	for (guint i = 0; i < st->execs->len; i++) {
		const struct exec *e = EXEC(st, i);
		const struct node *x = &m->nodes[e->node];
		for (int s = 0; s < x->n_out; s++) {
			int b = st->slots[e->slot_off + s];
			if (c->node_of[b] == e->node && c->slot_of[b] < 0)
				c->slot_of[b] = s;
			add_alias(c->aliases[b], x->name, s);
		}
	}
}

static void truth_ctx_free(struct truth_ctx *c)
{
	for (int i = 0; i < c->st->n_bufs; i++)
		g_ptr_array_free(c->aliases[i], TRUE);
	g_free(c->aliases);
	g_free(c->node_of);
	g_free(c->slot_of);
}

static bool buf_recorded(const struct truth_ctx *c, const struct buf *b)
{
	return b->owner < 0 || !EXEC(c->st, b->owner)->unrecorded;
}

static json_t *truth_buffer(const struct truth_ctx *c, int bi)
{
	const struct gen *g = c->g;
	const struct buf *b = &c->st->bufs[bi];
	const struct node *x = &g->m->nodes[c->node_of[bi]];
	bool persist = b->kind == BUF_PERSIST;
	json_t *o = json_object();
	json_object_set_new(o, "allocator", json_string(g->alloc_name[b->alloc]));
	json_object_set_new(o, "allocation_id", jint(b->id));
	json_object_set_new(o, "ptr", jint((int64_t)b->ptr));
	json_object_set_new(o, "bytes_requested", jint(b->req));
	json_object_set_new(o, "bytes_allocated", jint(b->size));
	json_object_set_new(o, "alloc_micros", persist ? json_null() : jint(b->t_alloc));
	json_object_set_new(o, "free_micros", persist ? json_null() : jint(b->t_free));
	json_object_set_new(o, "kind", json_string(KIND_NAME[b->kind]));
	json_object_set_new(o, "producer", json_string(x->name));
	json_object_set_new(o, "producer_op", json_string(OPS[x->op].name));
	json_object_set_new(o, "producer_exec",
			    jint(b->owner >= 0 ? EXEC(c->st, b->owner)->iter : 0));
	json_object_set_new(o, "device", json_string(g->dev[x->dev].name));
	json_object_set_new(o, "output_slot",
			    c->slot_of[bi] >= 0 ? jint(c->slot_of[bi]) : json_null());
	json_t *al = json_array();
	for (guint k = 0; k < c->aliases[bi]->len; k++)
		json_array_append_new(al, json_string(g_ptr_array_index(c->aliases[bi], k)));
	json_object_set_new(o, "aliases", al);
	json_object_set_new(o, "fetched", json_boolean(b->fetched));
	json_object_set_new(o, "producer_recorded", json_boolean(buf_recorded(c, b)));
	return o;
}

struct cpt {
	int64_t t, delta;
};

static int cmp_cpt(const void *a, const void *b)
{
	const struct cpt *x = a, *y = b;
	return (x->t > y->t) - (x->t < y->t);
}

static int cmp_i64(const void *a, const void *b)
{
	int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
	return (x > y) - (x < y);
}

/* The buffers live after every event at t, by id. */
static json_t *live_ids(const struct truth_ctx *c, int alloc, int64_t t)
{
	const struct step *st = c->st;
	int64_t *ids = g_new(int64_t, st->n_bufs + 1);
	size_t n = 0;
	for (int i = 0; i < st->n_bufs; i++) {
		const struct buf *b = &st->bufs[i];
		if (b->alloc == alloc &&
		    (b->kind == BUF_PERSIST || (b->t_alloc <= t && t < b->t_free)))
			ids[n++] = b->id;
	}
	qsort(ids, n, sizeof *ids, cmp_i64);
	json_t *a = json_array();
	for (size_t i = 0; i < n; i++)
		json_array_append_new(a, jint(ids[i]));
	g_free(ids);
	return a;
}

/* One allocator's in-use curve and its peak; NULL when no buffer lives
 * there. */
static json_t *truth_allocator(const struct truth_ctx *c, int alloc, int64_t t0)
{
	const struct gen *g = c->g;
	const struct step *st = c->st;
	struct cpt *ev = g_new(struct cpt, 2 * (size_t)st->n_bufs + 1);
	size_t n = 0;
	int64_t base = 0;
	int count[3] = {0, 0, 0};
	bool on_dev[MAX_DEV] = {false};
	for (int i = 0; i < st->n_bufs; i++) {
		const struct buf *b = &st->bufs[i];
		if (b->alloc != alloc)
			continue;
		count[b->kind]++;
		on_dev[g->m->nodes[c->node_of[i]].dev] = true;
		if (b->kind == BUF_PERSIST) {
			base += b->size;
			continue;
		}
		ev[n++] = (struct cpt){b->t_alloc, b->size};
		ev[n++] = (struct cpt){b->t_free, -b->size};
	}
	if (count[0] + count[1] + count[2] == 0) {
		g_free(ev);
		return NULL;
	}
	qsort(ev, n, sizeof *ev, cmp_cpt);
	json_t *curve = json_array();
	json_array_append_new(curve, json_pack("[II]", (json_int_t)t0, (json_int_t)base));
	int64_t cur = base, last = base, peak = base, peak_t = t0;
	for (size_t i = 0; i < n;) {
		int64_t t = ev[i].t;
		while (i < n && ev[i].t == t)
			cur += ev[i++].delta;
		if (cur == last)
			continue;
		json_array_append_new(curve, json_pack("[II]", (json_int_t)t, (json_int_t)cur));
		last = cur;
		if (cur > peak) {
			peak = cur;
			peak_t = t;
		}
	}
	g_free(ev);
	json_t *devs = json_array();
	for (int d = 0; d < g->n_dev; d++)
		if (on_dev[d])
			json_array_append_new(devs, json_string(g->dev[d].name));
	json_t *o = json_object();
	json_object_set_new(o, "devices", devs);
	json_object_set_new(o, "num_buffers",
			    json_pack("{s:i,s:i,s:i}", "output", count[BUF_OUT], "persistent",
				      count[BUF_PERSIST], "temp", count[BUF_TEMP]));
	json_object_set_new(o, "peak_bytes", jint(peak));
	json_object_set_new(o, "peak_micros", jint(peak_t));
	json_object_set_new(o, "peak_allocation_ids", live_ids(c, alloc, peak_t));
	json_object_set_new(o, "persistent_bytes", jint(base));
	json_object_set_new(o, "final_bytes", jint(last));
	json_object_set_new(o, "curve", curve);
	return o;
}

static const struct step *sort_ids_step;

static int cmp_buf_id(const void *a, const void *b)
{
	int64_t x = sort_ids_step->bufs[*(const int *)a].id;
	int64_t y = sort_ids_step->bufs[*(const int *)b].id;
	return (x > y) - (x < y);
}

static json_t *truth_args(const struct gen *g, const struct step *st)
{
	static const char *const fmt[] = {"binary", "text", "tfrecord"};
	const struct cfg *cfg = &g->cfg;
	json_t *o = json_object();
	json_object_set_new(o, "seed", jint((int64_t)cfg->seed));
	json_object_set_new(o, "ops", jint(g->m->n_model));
	json_object_set_new(o, "gpus", jint(cfg->gpus));
	json_object_set_new(o, "loop", jint(cfg->loop));
	json_object_set_new(o, "steps", jint(cfg->steps));
	json_object_set_new(o, "step", jint(st->index));
	json_object_set_new(o, "format", json_string(fmt[cfg->format]));
	json_object_set_new(o, "old_names", json_boolean(cfg->old_names));
	json_object_set_new(o, "quirks", json_boolean(cfg->quirks));
	/* these absent when unset: older truths stay byte for byte */
	if (cfg->split_loop)
		json_object_set_new(o, "split_loop", json_true());
	if (cfg->unrecorded_recv >= 0)
		json_object_set_new(o, "unrecorded_recv", jint(cfg->unrecorded_recv));
	if (cfg->scope_depth > 0)
		json_object_set_new(o, "scope_depth", jint(cfg->scope_depth));
	if (cfg->components > 0)
		json_object_set_new(o, "components", jint(cfg->components));
	return o;
}

/* What every truth object of a step opens with: its format, the options
 * that made it and the rules it follows. */
static json_t *truth_head(const struct gen *g, const struct step *st, const char *format,
			  const char *const *semantics, size_t n)
{
	json_t *o = json_object();
	json_object_set_new(o, "format", json_string(format));
	json_object_set_new(o, "args", truth_args(g, st));
	json_t *sem = json_array();
	for (size_t i = 0; i < n; i++)
		json_array_append_new(sem, json_string(semantics[i]));
	json_object_set_new(o, "semantics", sem);
	return o;
}

static json_t *truth_summary(const struct truth_ctx *c)
{
	const struct step *st = c->st;
	int count[3] = {0, 0, 0}, fetched = 0, unrecorded = 0;
	for (int i = 0; i < st->n_bufs; i++) {
		const struct buf *b = &st->bufs[i];
		count[b->kind]++;
		fetched += b->fetched;
		unrecorded += !buf_recorded(c, b);
	}
	return json_pack("{s:i,s:{s:i,s:i,s:i},s:i,s:i}", "buffers", st->n_bufs, "by_kind",
			 "output", count[BUF_OUT], "persistent", count[BUF_PERSIST], "temp",
			 count[BUF_TEMP], "fetched", fetched, "unrecorded_producer", unrecorded);
}

/* The earliest scheduled_micros of the step's _SOURCE stats. */
static int64_t step_start_micros(const struct step *st)
{
	int64_t t = INT64_MAX;
	for (guint i = 0; i < st->extras->len; i++) {
		const struct extra *x = &g_array_index(st->extras, struct extra, i);
		if (strcmp(x->name, "_SOURCE") == 0 && x->sched / 1000 < t)
			t = x->sched / 1000;
	}
	return t;
}

static json_t *truth_step(const struct gen *g, const struct step *st)
{
	struct truth_ctx c;
	truth_ctx_init(&c, g, st);
	int64_t t0 = step_start_micros(st);
	json_t *o = truth_head(g, st, TRUTH_FORMAT, SEMANTICS, G_N_ELEMENTS(SEMANTICS));
	json_object_set_new(o, "step_start_micros", jint(t0));
	json_object_set_new(o, "step_end_micros", jint(st->us_end));
	json_object_set_new(o, "summary", truth_summary(&c));
	json_t *allocs = json_object();
	for (int a = 0; a < g->n_alloc; a++) {
		json_t *ao = truth_allocator(&c, a, t0);
		if (ao != NULL)
			json_object_set_new(allocs, g->alloc_name[a], ao);
	}
	json_object_set_new(o, "allocators", allocs);
	int *idx = g_new(int, st->n_bufs + 1);
	for (int i = 0; i < st->n_bufs; i++)
		idx[i] = i;
	sort_ids_step = st;
	qsort(idx, (size_t)st->n_bufs, sizeof *idx, cmp_buf_id);
	json_t *bufs = json_array();
	for (int i = 0; i < st->n_bufs; i++)
		json_array_append_new(bufs, truth_buffer(&c, idx[i]));
	g_free(idx);
	json_object_set_new(o, "buffers", bufs);
	truth_ctx_free(&c);
	return o;
}

/* ------------------------------------------------------------------ */
/* The flow truth (--flows-truth): which execution read which          */

#define FLOWS_FORMAT "trace-gen flow truth, version 1"

static const char *const FLOW_SEMANTICS[] = {
    "One flow per data edge of the partition graphs (NodeDef inputs without '^') and "
    "execution of its consumer that has NodeExecStats: from the producer execution it read "
    "to that consumer execution (kind \"data\").",
    "One flow per recorded _Recv execution from the _Send execution that delivered its "
    "tensor (kind \"transfer\"; the two ends are on different devices).",
    "A data edge from a _Recv execution that has no NodeExecStats (--quirks) becomes a flow "
    "from the _Send execution that delivered its tensor straight to the consumer execution "
    "(kind \"unrecorded_recv\", with \"recv\" naming the _Recv node).",
    "An end is [device, node_name, k]: device as the dump writes it, k the rank of the "
    "execution among the recorded executions of that node (by all_start), from 0.",
    "Which producer execution a consumer execution read follows the loop rule of the memory "
    "truth: the same iteration when both ran as often, the only one when the producer ran "
    "once, the last one when the consumer ran once.",
    "cross_device: the two ends are on different devices.",
};

static gint cmp_exec_start(gconstpointer a, gconstpointer b, gpointer data)
{
	const struct step *st = data;
	const struct exec *x = EXEC(st, *(const int *)a), *y = EXEC(st, *(const int *)b);
	if (x->start != y->start)
		return x->start < y->start ? -1 : 1;
	return (x->iter > y->iter) - (x->iter < y->iter);
}

/* Rank of each recorded execution among the recorded executions of its
 * node, by start (iterations break ties); -1 for unrecorded ones. */
static int *recorded_ranks(const struct gen *g, const struct step *st)
{
	const struct model *m = g->m;
	int *rank = g_new(int, st->execs->len + 1);
	GArray *list = g_array_new(FALSE, FALSE, sizeof(int));
	for (int n = 0; n < m->n_nodes; n++) {
		const struct node *x = &m->nodes[n];
		g_array_set_size(list, 0);
		for (int k = 0; k < n_exec_of(g, x); k++) {
			int ei = st->exec_of[x->exec_off + k];
			rank[ei] = -1;
			if (!EXEC(st, ei)->unrecorded)
				g_array_append_val(list, ei);
		}
		g_array_sort_with_data(list, cmp_exec_start, (gpointer)st);
		for (guint i = 0; i < list->len; i++)
			rank[g_array_index(list, int, i)] = (int)i;
	}
	g_array_free(list, TRUE);
	return rank;
}

static json_t *flow_end(const struct gen *g, const struct step *st, const int *rank, int ei)
{
	const struct node *x = &g->m->nodes[EXEC(st, ei)->node];
	return json_pack("[s,s,i]", g->dev[x->dev].name, x->name, rank[ei]);
}

static void flow_add(json_t *flows, const struct gen *g, const struct step *st, const int *rank,
		     int src, int dst, const char *kind, const char *recv, int *counts)
{
	const struct model *m = g->m;
	bool cross = m->nodes[EXEC(st, src)->node].dev != m->nodes[EXEC(st, dst)->node].dev;
	json_t *f = json_pack("{s:o,s:o,s:s,s:b}", "src", flow_end(g, st, rank, src), "dst",
			      flow_end(g, st, rank, dst), "kind", kind, "cross_device", cross);
	if (recv != NULL)
		json_object_set_new(f, "recv", json_string(recv));
	json_array_append_new(flows, f);
	counts[0]++;
	counts[1] += cross;
	counts[2] += recv != NULL;
}

/* The _Send execution that delivered the tensor of _Recv execution ri. */
static int sender_exec(const struct gen *g, const struct step *st, int ri)
{
	const struct exec *r = EXEC(st, ri);
	return producer_exec(g, st, g->m->nodes[r->node].peer, r->node, r->iter);
}

static json_t *flows_step(const struct gen *g, const struct step *st)
{
	const struct model *m = g->m;
	int *rank = recorded_ranks(g, st);
	int counts[3] = {0, 0, 0};
	json_t *flows = json_array();
	for (guint i = 0; i < st->execs->len; i++) {
		const struct exec *e = EXEC(st, i);
		const struct node *x = &m->nodes[e->node];
		if (e->unrecorded)
			continue;
		if (op_is_recv(x->op) && !x->client)
			flow_add(flows, g, st, rank, sender_exec(g, st, (int)i), (int)i, "transfer",
				 NULL, counts);
		for (int k = 0; k < x->n_in; k++) {
			struct ref in = m->refs[x->in_off + k];
			if (in.port < 0)
				continue;
			int p = producer_exec(g, st, in.node, e->node, e->iter);
			if (EXEC(st, p)->unrecorded)
				flow_add(flows, g, st, rank, sender_exec(g, st, p), (int)i,
					 "unrecorded_recv", m->nodes[in.node].name, counts);
			else
				flow_add(flows, g, st, rank, p, (int)i, "data", NULL, counts);
		}
	}
	g_free(rank);
	json_t *o = truth_head(g, st, FLOWS_FORMAT, FLOW_SEMANTICS, G_N_ELEMENTS(FLOW_SEMANTICS));
	json_object_set_new(o, "summary",
			    json_pack("{s:i,s:i,s:i}", "flows", counts[0], "cross_device",
				      counts[1], "unrecorded_recv", counts[2]));
	json_object_set_new(o, "flows", flows);
	return o;
}

/* ------------------------------------------------------------------ */
/* The generator                                                       */

struct result {
	GByteArray *bytes;
	long ops;
	size_t node_stats;
	json_t *truth; /* --truth: one object per step */
	json_t *flows; /* --flows-truth: one object per step */
};

static void gen_free(struct gen *g)
{
	if (g == NULL)
		return;
	model_free(g->m);
	g_free(g->vars);
	g_free(g->pbuf_of);
	g_free(g->pbufs);
	g_free(g);
}

/* The name scopes above every model node: "worker_K/" for a task of
 * --tasks, then --scope-depth levels "block_1/block_2/.../"; NULL for none. */
static char *model_prefix(const struct cfg *cfg, int task)
{
	if (task < 0 && cfg->scope_depth == 0)
		return NULL;
	GString *s = g_string_new(NULL);
	if (task >= 0)
		g_string_append_printf(s, "worker_%d/", task);
	for (int i = 1; i <= cfg->scope_depth; i++)
		g_string_append_printf(s, "block_%d/", i);
	return g_string_free(s, FALSE);
}

/* The generator of one task (-1: the one local task) for a model of L
 * layers and `pads` extra nodes. */
static struct gen *gen_new(const struct cfg *cfg, int L, long pads, int task)
{
	struct gen *g = g_new0(struct gen, 1);
	g->cfg = *cfg;
	g->task = task;
	char *prefix = model_prefix(cfg, task);
	g->m = model_build(cfg, L, pads, false, prefix, &g->vars, &g->n_vars);
	g_free(prefix);
	devices_init(g);
	partition(g);
	make_order(g->m);
	make_labels(g);
	persistent_init(g);
	int off = 0;
	for (int n = 0; n < g->m->n_nodes; n++) {
		g->m->nodes[n].exec_off = off;
		off += n_exec_of(g, &g->m->nodes[n]);
	}
	make_graphs(g);
	uint64_t r = stream_seed(cfg->seed, TAG_STEP, 1u << 30);
	g->t_next = (1700000000ll + rnd(&r, 0, 86400 * 365)) * 1000000000ll + rnd(&r, 0, 999999999);
	g->step_id = rnd(&r, 1, 64);
	return g;
}

static int total_execs(const struct gen *g)
{
	int n = 0;
	for (int i = 0; i < g->m->n_nodes; i++)
		n += n_exec_of(g, &g->m->nodes[i]);
	return n;
}

/* Protobuf messages stop at 2 GB, and a GByteArray at 4 GB. */
static bool fits(size_t have, size_t len, bool message)
{
	return (!message || len <= (size_t)INT32_MAX) && len <= (size_t)G_MAXUINT - 64 - have;
}

static int emit_step(struct gen *g, Tensorflow__RunMetadata *rm, GByteArray *out)
{
	size_t len = 0;
	if (g->cfg.format != FMT_TEXT) {
		len = protobuf_c_message_get_packed_size(&rm->base);
		if (!fits(out->len, len, true))
			return -1;
	}
	switch (g->cfg.format) {
	case FMT_BINARY: {
		size_t at = out->len;
		g_byte_array_set_size(out, (guint)(at + len));
		protobuf_c_message_pack(&rm->base, out->data + at);
		break;
	}
	case FMT_TFRECORD: {
		uint8_t *buf = g_malloc(len > 0 ? len : 1);
		protobuf_c_message_pack(&rm->base, buf);
		tl_tfrecord_frame(out, buf, len);
		g_free(buf);
		break;
	}
	case FMT_TEXT: {
		GString *s = g_string_new(NULL);
		tl_pbtext_print(&rm->base, s);
		bool ok = fits(out->len, s->len, false);
		if (ok)
			g_byte_array_append(out, (const guint8 *)s->str, (guint)s->len);
		g_string_free(s, TRUE);
		return ok ? 0 : -1;
	}
	}
	return 0;
}

enum { GEN_OK = 0, GEN_TOO_FEW = -1, GEN_TOO_BIG = -2 };

/* One run of all tasks, as the master of a distributed step gathers it:
 * every task's step stats and partition graphs in task order. The arrays
 * live in `a`; the messages stay those of each task's step. */
static Tensorflow__RunMetadata *runs_join(tl_arena *a, Tensorflow__RunMetadata *const *rms, int n)
{
	size_t n_dev = 0, n_graphs = 0;
	for (int t = 0; t < n; t++) {
		n_dev += rms[t]->step_stats->n_dev_stats;
		n_graphs += rms[t]->n_partition_graphs;
	}
	Tensorflow__RunMetadata *rm =
	    PB_NEW(a, Tensorflow__RunMetadata, TENSORFLOW__RUN_METADATA__INIT);
	rm->step_stats = PB_NEW(a, Tensorflow__StepStats, TENSORFLOW__STEP_STATS__INIT);
	rm->step_stats->dev_stats =
	    tl_arena_alloc(a, sizeof *rm->step_stats->dev_stats * (n_dev + 1));
	rm->partition_graphs = tl_arena_alloc(a, sizeof *rm->partition_graphs * (n_graphs + 1));
	for (int t = 0; t < n; t++) {
		const Tensorflow__StepStats *ss = rms[t]->step_stats;
		for (size_t i = 0; i < ss->n_dev_stats; i++)
			rm->step_stats->dev_stats[rm->step_stats->n_dev_stats++] = ss->dev_stats[i];
		for (size_t i = 0; i < rms[t]->n_partition_graphs; i++)
			rm->partition_graphs[rm->n_partition_graphs++] =
			    rms[t]->partition_graphs[i];
	}
	return rm;
}

/* Generates every step of the run with `ops` graph nodes (per task) into
 * r->bytes. */
static int generate(const struct cfg *cfg, long ops, struct result *res, long *min_ops)
{
	int L = layers_for(cfg, ops, min_ops);
	if (L < 0)
		return GEN_TOO_FEW;
	long pads = ops - count_nodes(cfg, L);
	int rc = GEN_OK;
	int n_gen = cfg->tasks > 0 ? cfg->tasks : 1;
	struct gen **gens = g_new(struct gen *, n_gen);
	for (int t = 0; t < n_gen; t++)
		gens[t] = gen_new(cfg, L, pads, cfg->tasks > 0 ? t : -1);
	res->bytes = g_byte_array_new();
	res->ops = gens[0]->m->n_model;
	res->node_stats = 0;
	json_decref(res->truth);
	res->truth = cfg->truth != NULL ? json_array() : NULL;
	json_decref(res->flows);
	res->flows = cfg->flows_truth != NULL ? json_array() : NULL;
	struct step **st = g_new(struct step *, n_gen);
	Tensorflow__RunMetadata **rms = g_new(Tensorflow__RunMetadata *, n_gen);
	for (int s = 0; s < cfg->steps && rc == GEN_OK; s++) {
		for (int t = 0; t < n_gen; t++) {
			size_t ns = 0;
			st[t] = step_run(gens[t], s, total_execs(gens[t]));
			rms[t] = step_pb(gens[t], st[t], &ns);
			res->node_stats += ns;
		}
		/* --truth and --flows-truth are of the one local task */
		if (res->truth != NULL)
			json_array_append_new(res->truth, truth_step(gens[0], st[0]));
		if (res->flows != NULL)
			json_array_append_new(res->flows, flows_step(gens[0], st[0]));
		Tensorflow__RunMetadata *rm =
		    n_gen == 1 ? rms[0] : runs_join(st[0]->arena, rms, n_gen);
		if (emit_step(gens[0], rm, res->bytes) < 0)
			rc = GEN_TOO_BIG;
		for (int t = 0; t < n_gen; t++)
			step_free(st[t]);
	}
	g_free(st);
	g_free(rms);
	for (int t = 0; t < n_gen; t++)
		gen_free(gens[t]);
	g_free(gens);
	return rc;
}

/* ------------------------------------------------------------------ */
/* Command line                                                        */

/* Output bytes grow almost linearly with the node count (names lengthen a
 * little): fit a line through two small runs, generate at its estimate, and
 * refit with that run while still off by over 3%. The first run has 2000
 * nodes in all steps and tasks together, so that it stays small. */
static void generate_size(const struct cfg *cfg, double target, struct result *res, long *min_ops)
{
	long copies = (long)cfg->steps * (cfg->tasks > 0 ? cfg->tasks : 1);
	long n0 = 2000 / copies, n1;
	if (generate(cfg, n0, res, min_ops) < 0) {
		n0 = *min_ops;
		generate(cfg, n0, res, min_ops);
	}
	double s0 = (double)res->bytes->len, s1;
	long est = (long)((double)n0 * target / s0);
	if (est <= n0) {
		g_byte_array_free(res->bytes, TRUE);
		generate(cfg, est > *min_ops ? est : *min_ops, res, min_ops);
		return;
	}
	n1 = est / 8 > 2 * n0 ? est / 8 : 2 * n0;
	g_byte_array_free(res->bytes, TRUE);
	generate(cfg, n1, res, min_ops);
	s1 = (double)res->bytes->len;
	for (int round = 0;; round++) {
		double slope = (s1 - s0) / (double)(n1 - n0);
		est = slope > 0 ? n1 + (long)((target - s1) / slope)
				: (long)((double)n1 * target / s1);
		if (est < *min_ops)
			est = *min_ops;
		g_byte_array_free(res->bytes, TRUE);
		generate(cfg, est, res, min_ops);
		double got = (double)res->bytes->len;
		if (round == 2 || est == n1 || (got > target * 0.97 && got < target * 1.03))
			return;
		n0 = n1;
		s0 = s1;
		n1 = est;
		s1 = got;
	}
}

static const char USAGE[] =
    "Usage: trace-gen [OPTIONS]\n"
    "Writes a deterministic, realistic TensorFlow RunMetadata (step_stats and\n"
    "partition_graphs of a training step) for tests and benchmarks.\n"
    "\n"
    "  --seed N             random seed (default 1); same options, same bytes\n"
    "  --ops N              graph nodes in the model, before _Send/_Recv (default 200)\n"
    "  --gpus G             GPUs, 0..8 (default 1); 2 or more: one tower per GPU,\n"
    "                       variables on the CPU\n"
    "  --steps S            steps (session runs) to write; more than 1 needs\n"
    "                       --format=tfrecord (default 1)\n"
    "  --loop K             a while-loop body in the model runs K times per step\n"
    "                       (default 1: no loop)\n"
    "  --size-mb M          grow --ops until the output is about M MB (10^6 bytes),\n"
    "                       all steps and tasks together\n"
    "  --format F           binary (RunMetadata wire format, default), text\n"
    "                       (protobuf text format) or tfrecord (one record per step)\n"
    "  --old-names          TensorFlow < 1.4 names: /cpu:0, /gpu:0/stream:12, no\n"
    "                       nanosecond fields, _SINK stats, client _Send/_Recv feeds\n"
    "  --tf13               TensorFlow 1.3 as its tfprof test data shows: --old-names,\n"
    "                       and the GPU tracer's records (/gpu:0/stream:N, stream:all,\n"
    "                       memcpy) carry the launch time in nanoseconds in their\n"
    "                       scheduled_micros field\n"
    "  --quirks             what real dumps do: about 30% of _Recv executions leave\n"
    "                       no NodeExecStats (their buffers still count in every\n"
    "                       allocator_bytes_in_use), and a Switch on the loss may\n"
    "                       record only its output slot 1\n"
    "  --split-loop         the while-loop body's Relu runs on the CPU (as TensorFlow\n"
    "                       places an op without a GPU kernel), so a _Send/_Recv pair\n"
    "                       each way runs every iteration; with --quirks some of\n"
    "                       those _Recv executions leave no stats too\n"
    "  --unrecorded-recv P  P% (0..100) of _Recv executions leave no NodeExecStats\n"
    "                       (their buffers still count); with --quirks it replaces\n"
    "                       the 30%\n"
    "  --tasks N            N worker tasks (1..100000) in one run, as a distributed\n"
    "                       master gathers them: task K's devices are\n"
    "                       /job:worker/replica:0/task:K/device:..., its GPU tracer's\n"
    "                       rows /job:worker/replica:0/task:K/device:GPU:0/stream:7,\n"
    "                       its nodes under the scope worker_K/; each task runs its\n"
    "                       own replica of the model (--ops and --size-mb: per task\n"
    "                       and in all), with its own timings; no --truth\n"
    "  --scope-depth D      every node of the model under D (1..40) more name\n"
    "                       scopes: block_1/block_2/.../block_D/\n"
    "  --components N       N (1..100000) connected components in each task's graph:\n"
    "                       the model and N - 1 small graphs beside it on the CPU,\n"
    "                       as a GraphDef's initializers and unused constants (a\n"
    "                       Const and up to 11 Identity ops under\n"
    "                       init_ops/block_*/unit_*/var_*/Initializer/), counted\n"
    "                       in --ops\n"
    "  --truth FILE         also write the run's true memory behaviour as JSON, in\n"
    "                       the shape of shared/oracle/exact/*.truth.json: per\n"
    "                       allocator the exact in-use curve and peak, every buffer\n"
    "                       with its lifetime and aliases; one object, or with\n"
    "                       --steps S > 1 an array of S objects, one per step\n"
    "  --flows-truth FILE   also write which execution read which as JSON: one flow per\n"
    "                       data edge and consumer execution (from the producer\n"
    "                       execution it read), per recorded _Recv (from its _Send),\n"
    "                       and, where a _Recv was not recorded, from its _Send\n"
    "                       straight to the consumer; shaped like --truth\n"
    "  -o, --output FILE    write FILE instead of standard output ('.gz' compresses)\n"
    "  -v, --verbose        print what was generated to standard error\n"
    "  -h, --help           show this help\n"
    "      --version        show the version\n"
    "\n"
    "Exit status: 0 ok, 1 cannot write the output, 2 usage error.\n";

static long parse_long(const tl_cli *cli, const char *opt, const char *v, long lo, long hi)
{
	char *end = NULL;
	errno = 0;
	long x = strtol(v, &end, 10);
	if (end == v || *end != '\0' || errno != 0 || x < lo || x > hi)
		tl_cli_usage_error(cli, "option '%s' wants an integer in %ld..%ld, not '%s'", opt,
				   lo, hi, v);
	return x;
}

static uint64_t parse_seed(const tl_cli *cli, const char *v)
{
	char *end = NULL;
	errno = 0;
	unsigned long long x = strtoull(v, &end, 0);
	if (end == v || *end != '\0' || errno != 0 || v[0] == '-')
		tl_cli_usage_error(cli, "option '--seed' wants a non-negative integer, not '%s'",
				   v);
	return (uint64_t)x;
}

static double parse_mb(const tl_cli *cli, const char *v)
{
	char *end = NULL;
	errno = 0;
	double x = strtod(v, &end);
	if (end == v || *end != '\0' || errno != 0 || !(x > 0.0) || x > SIZE_MB_MAX)
		tl_cli_usage_error(cli, "option '--size-mb' wants a size in (0, %.0f], not '%s'",
				   SIZE_MB_MAX, v);
	return x;
}

static const char *need_value(const tl_cli *cli, int argc, char **argv, int *i, const char *opt,
			      const char *inline_value)
{
	if (inline_value != NULL)
		return inline_value;
	if (*i + 1 >= argc)
		tl_cli_usage_error(cli, "option '%s' needs a value", opt);
	return argv[++*i];
}

static void parse_args(const tl_cli *cli, int argc, char **argv, struct cfg *cfg, bool *verbose)
{
	for (int i = 1; i < argc; i++) {
		const char *a = argv[i];
		const char *eq = NULL;
		char opt[64];
		snprintf(opt, sizeof opt, "%s", a);
		if (strncmp(a, "--", 2) == 0 && (eq = strchr(a, '=')) != NULL) {
			size_t len = (size_t)(eq - a);
			snprintf(opt, sizeof opt, "%.*s", (int)(len < 63 ? len : 63), a);
			eq++;
		}
		if (strcmp(opt, "-h") == 0 || strcmp(opt, "--help") == 0) {
			fputs(USAGE, stdout);
			exit(TL_EXIT_OK);
		} else if (strcmp(opt, "--version") == 0) {
			tl_cli_version(cli);
			exit(TL_EXIT_OK);
		} else if (strcmp(opt, "--seed") == 0) {
			cfg->seed = parse_seed(cli, need_value(cli, argc, argv, &i, opt, eq));
		} else if (strcmp(opt, "--ops") == 0) {
			cfg->ops = parse_long(cli, opt, need_value(cli, argc, argv, &i, opt, eq), 1,
					      1000000);
		} else if (strcmp(opt, "--gpus") == 0) {
			cfg->gpus = (int)parse_long(
			    cli, opt, need_value(cli, argc, argv, &i, opt, eq), 0, MAX_GPUS);
		} else if (strcmp(opt, "--steps") == 0) {
			cfg->steps = (int)parse_long(
			    cli, opt, need_value(cli, argc, argv, &i, opt, eq), 1, 100000);
		} else if (strcmp(opt, "--loop") == 0) {
			cfg->loop = (int)parse_long(
			    cli, opt, need_value(cli, argc, argv, &i, opt, eq), 1, 10000);
		} else if (strcmp(opt, "--size-mb") == 0) {
			cfg->size_mb = parse_mb(cli, need_value(cli, argc, argv, &i, opt, eq));
		} else if (strcmp(opt, "--format") == 0) {
			const char *v = need_value(cli, argc, argv, &i, opt, eq);
			if (strcmp(v, "binary") == 0)
				cfg->format = FMT_BINARY;
			else if (strcmp(v, "text") == 0)
				cfg->format = FMT_TEXT;
			else if (strcmp(v, "tfrecord") == 0)
				cfg->format = FMT_TFRECORD;
			else
				tl_cli_usage_error(cli,
						   "unknown format '%s' (one of: binary, text, "
						   "tfrecord)",
						   v);
		} else if (strcmp(opt, "--old-names") == 0 && eq == NULL) {
			cfg->old_names = true;
		} else if (strcmp(opt, "--tf13") == 0 && eq == NULL) {
			cfg->old_names = true;
			cfg->tf13 = true;
		} else if (strcmp(opt, "--quirks") == 0 && eq == NULL) {
			cfg->quirks = true;
		} else if (strcmp(opt, "--split-loop") == 0 && eq == NULL) {
			cfg->split_loop = true;
		} else if (strcmp(opt, "--unrecorded-recv") == 0) {
			cfg->unrecorded_recv = (int)parse_long(
			    cli, opt, need_value(cli, argc, argv, &i, opt, eq), 0, 100);
		} else if (strcmp(opt, "--tasks") == 0) {
			cfg->tasks = (int)parse_long(
			    cli, opt, need_value(cli, argc, argv, &i, opt, eq), 1, 100000);
		} else if (strcmp(opt, "--scope-depth") == 0) {
			cfg->scope_depth = (int)parse_long(
			    cli, opt, need_value(cli, argc, argv, &i, opt, eq), 1, 40);
		} else if (strcmp(opt, "--components") == 0) {
			cfg->components = (int)parse_long(
			    cli, opt, need_value(cli, argc, argv, &i, opt, eq), 1, 100000);
		} else if (strcmp(opt, "--truth") == 0) {
			cfg->truth = need_value(cli, argc, argv, &i, opt, eq);
		} else if (strcmp(opt, "--flows-truth") == 0) {
			cfg->flows_truth = need_value(cli, argc, argv, &i, opt, eq);
		} else if (strcmp(opt, "-o") == 0 || strcmp(opt, "--output") == 0) {
			cfg->out = need_value(cli, argc, argv, &i, opt, eq);
		} else if ((strcmp(opt, "-v") == 0 || strcmp(opt, "--verbose") == 0) &&
			   eq == NULL) {
			*verbose = true;
		} else if (a[0] == '-') {
			tl_cli_usage_error(cli, "unknown option '%s'", opt);
		} else {
			tl_cli_usage_error(
			    cli, "unexpected argument '%s' (trace-gen reads no input)", a);
		}
	}
	if (cfg->steps > 1 && cfg->format != FMT_TFRECORD)
		tl_cli_usage_error(cli,
				   "--steps %d needs --format=tfrecord (binary and text hold "
				   "one run)",
				   cfg->steps);
	if (cfg->tasks > 0 && (cfg->truth != NULL || cfg->flows_truth != NULL))
		tl_cli_usage_error(cli, "--tasks does not write %s (it holds one task's truth)",
				   cfg->truth != NULL ? "--truth" : "--flows-truth");
	bool out_stdout = cfg->out == NULL || strcmp(cfg->out, "-") == 0;
	if (cfg->truth != NULL && strcmp(cfg->truth, "-") == 0 && out_stdout)
		tl_cli_usage_error(cli, "--truth - and the run cannot both go to standard output");
	if (cfg->truth != NULL && cfg->out != NULL && strcmp(cfg->truth, cfg->out) == 0 &&
	    !out_stdout)
		tl_cli_usage_error(cli, "--truth '%s' is also the output", cfg->truth);
	const char *ft = cfg->flows_truth;
	if (ft != NULL && strcmp(ft, "-") == 0 &&
	    (out_stdout || (cfg->truth != NULL && strcmp(cfg->truth, "-") == 0)))
		tl_cli_usage_error(cli, "--flows-truth - and another output cannot both go to "
					"standard output");
	if (ft != NULL && strcmp(ft, "-") != 0 &&
	    ((cfg->out != NULL && strcmp(ft, cfg->out) == 0) ||
	     (cfg->truth != NULL && strcmp(ft, cfg->truth) == 0)))
		tl_cli_usage_error(cli, "--flows-truth '%s' is also another output", ft);
}

/* One truth object for one step, else the array of them. */
static int write_truth(const tl_cli *cli, const char *path, json_t *truth, size_t flags)
{
	json_t *doc = json_array_size(truth) == 1 ? json_array_get(truth, 0) : truth;
	char *text = json_dumps(doc, flags | JSON_PRESERVE_ORDER);
	tl_output *o = NULL;
	tl_error err;
	int rc = TL_EXIT_OK;
	if (tl_output_open(&o, path, false, NULL, 0, &err) < 0) {
		tl_cli_error(cli, "%s", err.msg);
		rc = TL_EXIT_INPUT;
	} else {
		tl_output_str(o, text);
		tl_output_char(o, '\n');
		if (tl_output_close(o, &err) < 0) {
			tl_cli_error(cli, "%s", err.msg);
			rc = TL_EXIT_INPUT;
		}
	}
	free(text);
	return rc;
}

/* A step's flow truth with one flow a line: a 100 MB run has a million of
 * them, which an indented dump would triple in size. */
static void flows_text(GString *s, json_t *step)
{
	g_string_append_c(s, '{');
	const char *key;
	json_t *v;
	bool first = true;
	json_object_foreach(step, key, v)
	{
		json_t *ks = json_string(key);
		char *k = json_dumps(ks, JSON_ENCODE_ANY);
		g_string_append_printf(s, "%s\n%s: ", first ? "" : ",", k);
		free(k);
		json_decref(ks);
		first = false;
		if (strcmp(key, "flows") != 0) {
			char *t =
			    json_dumps(v, JSON_COMPACT | JSON_PRESERVE_ORDER | JSON_ENCODE_ANY);
			g_string_append(s, t);
			free(t);
			continue;
		}
		g_string_append_c(s, '[');
		for (size_t i = 0; i < json_array_size(v); i++) {
			char *t =
			    json_dumps(json_array_get(v, i), JSON_COMPACT | JSON_PRESERVE_ORDER);
			g_string_append_printf(s, "%s\n%s", i > 0 ? "," : "", t);
			free(t);
		}
		g_string_append(s, "\n]");
	}
	g_string_append(s, "\n}");
}

static int write_flows(const tl_cli *cli, const char *path, json_t *flows)
{
	GString *s = g_string_new(NULL);
	size_t n = json_array_size(flows);
	if (n != 1)
		g_string_append(s, "[\n");
	for (size_t i = 0; i < n; i++) {
		if (i > 0)
			g_string_append(s, ",\n");
		flows_text(s, json_array_get(flows, i));
	}
	g_string_append(s, n != 1 ? "\n]\n" : "\n");
	tl_output *o = NULL;
	tl_error err;
	int rc = TL_EXIT_OK;
	if (tl_output_open(&o, path, false, NULL, 0, &err) < 0) {
		tl_cli_error(cli, "%s", err.msg);
		rc = TL_EXIT_INPUT;
	} else {
		tl_output_bytes(o, s->str, s->len);
		if (tl_output_close(o, &err) < 0) {
			tl_cli_error(cli, "%s", err.msg);
			rc = TL_EXIT_INPUT;
		}
	}
	g_string_free(s, TRUE);
	return rc;
}

/* Written at once: the whole output was built in memory. */
static int write_output(const tl_cli *cli, const struct cfg *cfg, const GByteArray *bytes)
{
	tl_output *o = NULL;
	tl_error err;
	if (tl_output_open(&o, cfg->out, false, NULL, 0, &err) < 0) {
		tl_cli_error(cli, "%s", err.msg);
		return TL_EXIT_INPUT;
	}
	tl_output_bytes(o, bytes->data, bytes->len);
	if (tl_output_close(o, &err) < 0) {
		tl_cli_error(cli, "%s", err.msg);
		return TL_EXIT_INPUT;
	}
	return TL_EXIT_OK;
}

int main(int argc, char **argv)
{
	tl_cli cli = {.prog = "trace-gen"};
	struct cfg cfg = {.seed = 1,
			  .ops = DEFAULT_OPS,
			  .gpus = 1,
			  .steps = 1,
			  .loop = 1,
			  .format = FMT_BINARY,
			  .unrecorded_recv = -1};
	bool verbose = false;
	parse_args(&cli, argc, argv, &cfg, &verbose);
	bool to_stdout = cfg.out == NULL || strcmp(cfg.out, "-") == 0;
	if (to_stdout && cfg.format != FMT_TEXT && isatty(STDOUT_FILENO))
		tl_cli_usage_error(&cli, "refusing to write binary output to a terminal (redirect "
					 "it, use -o FILE or --format=text)");

	long ops = cfg.ops, min_ops = 0;
	struct result res = {NULL, 0, 0, NULL, NULL};
	if (cfg.size_mb > 0) {
		generate_size(&cfg, cfg.size_mb * 1e6, &res, &min_ops);
		ops = res.ops;
	} else {
		int rc = generate(&cfg, ops, &res, &min_ops);
		if (rc == GEN_TOO_FEW)
			tl_cli_usage_error(&cli,
					   "--ops %ld is too small for this model (at least %ld "
					   "with --gpus %d --loop %d%s)",
					   ops, min_ops, cfg.gpus, cfg.loop,
					   cfg.quirks ? " --quirks" : "");
		if (rc == GEN_TOO_BIG)
			tl_cli_usage_error(&cli,
					   "--ops %ld makes a step over protobuf's 2 GB limit (or "
					   "the output over 4 GB)",
					   ops);
	}
	if (verbose)
		fprintf(stderr, "trace-gen: %ld ops%s, %zu node_stats in %d step(s), %u bytes\n",
			ops, cfg.tasks > 0 ? " per task" : "", res.node_stats, cfg.steps,
			res.bytes->len);
	int rc = write_output(&cli, &cfg, res.bytes);
	if (rc == TL_EXIT_OK && res.truth != NULL)
		rc = write_truth(&cli, cfg.truth, res.truth, JSON_INDENT(1));
	if (rc == TL_EXIT_OK && res.flows != NULL)
		rc = write_flows(&cli, cfg.flows_truth, res.flows);
	g_byte_array_free(res.bytes, TRUE);
	json_decref(res.truth);
	json_decref(res.flows);
	return rc;
}
