#include "analysis/memview.h"

#include <glib.h>

#include <inttypes.h>
#include <stdio.h>

/* RunMetadata's microseconds as view nanoseconds; the sentinels kept. */
static int64_t ns_of_us(int64_t us)
{
	if (us == TL_US_BEFORE)
		return TL_MEMVIEW_BEFORE;
	if (us == TL_US_NEVER)
		return TL_MEMVIEW_NEVER;
	int64_t ns;
	if (__builtin_mul_overflow(us, (int64_t)1000, &ns))
		return us > 0 ? INT64_MAX - 1 : INT64_MIN + 1;
	return ns;
}

double tl_memview_us(int64_t ns)
{
	if (ns % 1000 == 0)
		return (double)(ns / 1000);
	return (double)ns / 1000.0;
}

/* ---- RunMetadata buffers ---------------------------------------------- */

/* The device of an allocator: that of the first of its buffers an
 * execution produced, else "". */
static const char *buffers_device(const tl_memory *mem, const tl_allocator *a)
{
	for (size_t k = 0; k < a->n_buffers; k++) {
		int32_t p = mem->buffers[a->buffers[k]].producer;
		if (p >= 0)
			return mem->run->devices[mem->run->execs[p].device].name;
	}
	return "";
}

/* Change points of the memory analysis (microseconds) on the view's clock. */
static tl_memview_unattributed *steps_of(const tl_point *p, size_t n)
{
	if (n == 0)
		return NULL;
	tl_memview_unattributed *s = g_new(tl_memview_unattributed, n);
	for (size_t k = 0; k < n; k++)
		s[k] = (tl_memview_unattributed){ns_of_us(p[k].us), p[k].bytes};
	return s;
}

/* The band, the peak's range, the unattributed part and the contradicted
 * samples of a RunMetadata allocator (analysis/memory.h). A band of zero
 * width everywhere is left as the curve (band NULL). */
static void band_from_memory(tl_memview_allocator *va, const tl_allocator *a)
{
	bool wide = false;
	for (size_t k = 0; k < a->n_band && !wide; k++)
		wide = a->band[k].low != a->band[k].high;
	va->band = NULL;
	va->n_band = a->n_curve;
	if (wide) {
		va->band = g_new(tl_memview_band_point, a->n_band);
		for (size_t k = 0; k < a->n_band; k++)
			va->band[k] = (tl_memview_band_point){ns_of_us(a->band[k].us), a->band[k].low,
							      a->band[k].high};
		va->n_band = a->n_band;
	}
	va->peak_low = a->peak_low;
	va->peak_high = a->peak_high;
	va->unattributed = steps_of(a->unattributed, a->n_unattributed);
	va->n_unattributed = a->n_unattributed;
	va->contradictions = steps_of(a->contradictions, a->n_contradictions);
	va->n_contradictions = a->n_contradictions;
}

static void view_allocator(const tl_memory *mem, const tl_allocator *a, tl_memview_allocator *va)
{
	va->name = a->name;
	va->device = buffers_device(mem, a);
	va->n_curve = a->n_curve;
	va->baseline_bytes = a->persistent_bytes;
	va->baseline_requested = a->persistent_requested;
	va->peak_bytes = a->peak_bytes;
	va->peak_requested = a->peak_requested;
	va->peak_ns = ns_of_us(a->peak_us);
	va->peak_op = tl_memory_peak_op(mem, a);
	va->peak_reserved = -1;
	va->live = g_new(size_t, a->n_live ? a->n_live : 1);
	for (size_t k = 0; k < a->n_live; k++)
		va->live[k] = a->live_at_peak[k];
	va->n_live = a->n_live;
	va->blocks = g_new(size_t, a->n_buffers ? a->n_buffers : 1);
	for (size_t k = 0; k < a->n_buffers; k++)
		va->blocks[k] = a->buffers[k];
	va->n_blocks = a->n_buffers;
	va->check_samples = a->check_samples;
	va->check_max_abs = a->check_max_abs;
	va->check_mean_abs = a->check_mean_abs;
	va->n_estimated = a->n_estimated;
	va->n_unplaced = a->n_unplaced;
	va->mem_allocator = a;
	band_from_memory(va, a);
}

tl_memview *tl_memview_from_memory(const tl_memory *mem)
{
	tl_memview *v = g_new0(tl_memview, 1);
	v->source = TL_MEMVIEW_BUFFERS;
	v->label = mem->run->label;
	v->start_ns = ns_of_us(mem->step_start_us);
	v->end_ns = ns_of_us(mem->step_end_us);
	v->origin_ns = v->start_ns;
	v->mem = mem;
	v->n_blocks = mem->n_buffers;
	v->n_allocators = mem->n_allocators;
	v->allocators = g_new0(tl_memview_allocator, mem->n_allocators ? mem->n_allocators : 1);
	for (size_t i = 0; i < mem->n_allocators; i++)
		view_allocator(mem, &mem->allocators[i], &v->allocators[i]);
	return v;
}

/* ---- allocator events --------------------------------------------------- */

tl_memview *tl_memview_from_allocs(const tl_allocs *al)
{
	tl_memview *v = g_new0(tl_memview, 1);
	v->source = TL_MEMVIEW_EVENTS;
	v->label = al->label;
	v->clock = al->clock;
	v->start_ns = al->start_ns;
	v->end_ns = al->end_ns;
	v->origin_ns = 0;
	v->allocs = al;
	v->n_blocks = al->n_blocks;
	v->n_allocators = al->n_allocators;
	v->allocators = g_new0(tl_memview_allocator, al->n_allocators ? al->n_allocators : 1);
	for (size_t i = 0; i < al->n_allocators; i++) {
		const tl_allocs_allocator *a = &al->allocators[i];
		tl_memview_allocator *va = &v->allocators[i];
		va->name = a->name;
		va->device = a->device;
		va->n_curve = a->n_curve;
		va->n_band = a->n_curve; /* the events are exact: zero width */
		va->baseline_bytes = a->baseline;
		va->baseline_requested = -1;
		va->peak_bytes = a->peak_bytes;
		va->peak_requested = -1;
		va->peak_ns = a->peak_ns;
		va->peak_op = a->peak_op;
		va->peak_low = a->peak_bytes;
		va->peak_high = a->peak_bytes;
		va->peak_reserved = a->peak_reserved;
		va->peak_from_totals = a->peak_from_totals;
		va->live = g_new(size_t, a->n_live ? a->n_live : 1);
		for (size_t k = 0; k < a->n_live; k++)
			va->live[k] = a->live[k];
		va->n_live = a->n_live;
		va->blocks = g_new(size_t, a->n_blocks ? a->n_blocks : 1);
		for (size_t k = 0; k < a->n_blocks; k++)
			va->blocks[k] = a->first_block + k;
		va->n_blocks = a->n_blocks;
		va->check_samples = a->check_samples;
		va->check_max_abs = a->check_max_abs;
		va->check_mean_abs = a->check_mean_abs;
		va->n_events = a->n_events;
		va->n_before = a->n_before;
		va->n_never_freed = a->n_never_freed;
		va->live_bytes = a->live_bytes;
		va->unheld_bytes = a->unattributed_bytes;
		va->ev_allocator = a;
	}
	return v;
}

void tl_memview_free(tl_memview *v)
{
	if (v == NULL)
		return;
	for (size_t i = 0; i < v->n_allocators; i++) {
		g_free(v->allocators[i].live);
		g_free(v->allocators[i].blocks);
		g_free(v->allocators[i].band);
		g_free(v->allocators[i].unattributed);
		g_free(v->allocators[i].contradictions);
	}
	g_free(v->allocators);
	g_free(v);
}

/* ---- the accessors ------------------------------------------------------ */

tl_memview_point tl_memview_curve(const tl_memview *v, const tl_memview_allocator *a, size_t k)
{
	if (a->mem_allocator != NULL) {
		const tl_point *p = &a->mem_allocator->curve[k];
		return (tl_memview_point){ns_of_us(p->us), p->bytes, p->requested, -1};
	}
	const tl_alloc_point *p = &a->ev_allocator->curve[k];
	return (tl_memview_point){p->t_ns, p->bytes, -1, p->reserved};
}

tl_memview_band_point tl_memview_band(const tl_memview *v, const tl_memview_allocator *a,
				      size_t k)
{
	if (a->band != NULL)
		return a->band[k];
	tl_memview_point p = tl_memview_curve(v, a, k);
	return (tl_memview_band_point){p.t_ns, p.bytes, p.bytes};
}

bool tl_memview_band_wide(const tl_memview *v, const tl_memview_allocator *a)
{
	for (size_t k = 0; a->band != NULL && k < a->n_band; k++)
		if (a->band[k].low != a->band[k].high)
			return true;
	return false;
}

/* The name of a buffer: its first tensor, "node (temp)", "allocation N". */
static const char *buffer_name(const tl_memory *mem, const tl_buffer *b)
{
	if (b->name != NULL && b->n_refs == 0)
		return b->name;
	if (b->n_refs > 0)
		return tl_memory_ref_name(mem, &mem->refs[b->first_ref]);
	char *s = b->producer >= 0
		      ? g_strdup_printf("%s (temp)", mem->run->execs[b->producer].node)
		      : g_strdup_printf("allocation %" PRId64, b->allocation_id);
	const char *out = tl_arena_strdup(mem->run->arena, s);
	g_free(s);
	return out;
}

static void buffer_block(const tl_memory *mem, const tl_buffer *b, tl_memview_block *out)
{
	const tl_exec *prod = b->producer >= 0 ? &mem->run->execs[b->producer] : NULL;
	bool consumed = b->last_user >= 0 && b->cause != TL_FREE_UNUSED && b->kind != TL_BUF_TEMP;
	*out = (tl_memview_block){
	    .name = buffer_name(mem, b),
	    .kind = tl_memory_kind_name(b->kind),
	    .op = prod != NULL ? prod->node : NULL,
	    .op_type = prod != NULL ? prod->op : NULL,
	    .free_op = consumed ? mem->run->execs[b->last_user].node : NULL,
	    .bytes = b->allocated,
	    .requested = b->requested,
	    .alloc_ns = ns_of_us(b->alloc_us),
	    .free_ns = ns_of_us(b->free_us),
	    .estimated = b->estimated,
	    .addr = b->ptr,
	    .buffer = b,
	};
}

static void event_block(const tl_alloc_block *b, tl_memview_block *out)
{
	*out = (tl_memview_block){
	    .name = b->op != NULL			 ? b->op
		    : b->alloc_ns == TL_ALLOCS_BEFORE ? "before the trace"
						      : "allocation",
	    .kind = "block",
	    .op = b->op,
	    .op_type = b->op, /* a profiler's op is named by its type (aten::mul) */
	    .free_op = b->free_op,
	    .bytes = b->bytes,
	    .requested = -1,
	    .alloc_ns = b->alloc_ns == TL_ALLOCS_BEFORE ? TL_MEMVIEW_BEFORE : b->alloc_ns,
	    .free_ns = b->free_ns == TL_ALLOCS_NEVER ? TL_MEMVIEW_NEVER : b->free_ns,
	    .addr = b->addr,
	    .event = b,
	};
}

void tl_memview_block_get(const tl_memview *v, size_t i, tl_memview_block *out)
{
	if (v->mem != NULL)
		buffer_block(v->mem, &v->mem->buffers[i], out);
	else
		event_block(&v->allocs->blocks[i], out);
}
