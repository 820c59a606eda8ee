#include "emit/memreport_internal.h"

#include "emit/json.h"

#include <inttypes.h>

/* The JSON report: one document over the runs, its schema in memreport.h. */

static void json_time(tl_output *o, int64_t ns)
{
	if (ns == TL_MEMVIEW_BEFORE || ns == TL_MEMVIEW_NEVER)
		tl_output_str(o, "null");
	else
		tl_json_micros(o, ns);
}

static void json_str_or_null(tl_output *o, const char *s)
{
	if (s != NULL)
		tl_json_string(o, s);
	else
		tl_output_str(o, "null");
}

/* A RunMetadata buffer: its tensors, producer, dtype and shape, the cause
 * of its free, and where its birth is estimated, the window. */
static void json_buffer(tl_output *o, const tl_memview *v, const tl_memview_block *vb)
{
	const tl_memory *mem = v->mem;
	const tl_buffer *b = vb->buffer;
	tl_output_str(o, "{\"tensor\":");
	tl_json_string(o, vb->name);
	tl_output_str(o, ",\"tensors\":[");
	for (uint32_t k = 0; k < b->n_refs; k++) {
		if (k)
			tl_output_char(o, ',');
		tl_json_string(o, tl_memory_ref_name(mem, &mem->refs[b->first_ref + k]));
	}
	tl_output_str(o, "],\"allocator\":");
	tl_json_string(o, b->allocator);
	tl_output_str(o, ",\"allocation_id\":");
	tl_output_int(o, b->allocation_id);
	tl_output_str(o, ",\"kind\":\"");
	tl_output_str(o, vb->kind);
	tl_output_str(o, "\",\"producer\":");
	tl_json_string(o, vb->op != NULL ? vb->op : "");
	tl_output_str(o, ",\"op\":");
	tl_json_string(o, vb->op_type != NULL ? vb->op_type : "");
	tl_output_str(o, ",\"slot\":");
	tl_output_int(o, b->slot);
	tl_output_str(o, ",\"dtype\":");
	tl_json_string(o, tl_memreport_dtype(b));
	tl_output_str(o, ",\"shape\":[");
	if (b->desc != NULL && b->desc->shape != NULL)
		for (size_t i = 0; i < b->desc->shape->n_dim; i++) {
			if (i)
				tl_output_char(o, ',');
			tl_output_int(o, b->desc->shape->dim[i]->size);
		}
	tl_output_str(o, "],\"allocated_bytes\":");
	tl_output_int(o, vb->bytes);
	tl_output_str(o, ",\"requested_bytes\":");
	tl_output_int(o, vb->requested);
	tl_output_str(o, ",\"alloc_us\":");
	json_time(o, vb->alloc_ns);
	tl_output_str(o, ",\"free_us\":");
	json_time(o, vb->free_ns);
	tl_output_str(o, ",\"last_consumer\":");
	json_str_or_null(o, vb->free_op);
	tl_output_str(o, ",\"free_cause\":\"");
	tl_output_str(o, tl_memory_cause_name(b->cause));
	tl_output_str(o, "\",\"fetched\":");
	tl_output_str(o, b->fetched ? "true" : "false");
	if (b->estimated) {
		tl_output_str(o, ",\"estimated\":true,\"birth\":\"");
		tl_output_str(o, tl_memory_birth_name(b->birth));
		tl_output_str(o, "\",\"birth_window_us\":[");
		tl_output_int(o, b->birth_lo);
		tl_output_char(o, ',');
		tl_output_int(o, b->birth_hi);
		tl_output_char(o, ']');
	}
	tl_output_char(o, '}');
}

/* An allocator event block: its address, the ops of its events. */
static void json_event_block(tl_output *o, const char *allocator, const tl_memview_block *b)
{
	char addr[24];
	tl_output_str(o, "{\"tensor\":");
	tl_json_string(o, tl_memreport_name(b, addr, sizeof addr));
	tl_output_str(o, ",\"allocator\":");
	tl_json_string(o, allocator);
	tl_output_str(o, ",\"kind\":\"");
	tl_output_str(o, b->kind);
	tl_output_str(o, "\",\"op\":");
	json_str_or_null(o, b->op);
	tl_output_str(o, ",\"allocated_bytes\":");
	tl_output_int(o, b->bytes);
	tl_output_str(o, ",\"alloc_us\":");
	json_time(o, b->alloc_ns);
	tl_output_str(o, ",\"free_us\":");
	json_time(o, b->free_ns);
	tl_output_str(o, ",\"addr\":");
	tl_output_uint(o, b->addr);
	tl_output_str(o, ",\"free_op\":");
	json_str_or_null(o, b->free_op);
	tl_output_char(o, '}');
}

static void json_block(tl_output *o, const tl_memview *v, const char *allocator, size_t i)
{
	tl_memview_block b;
	tl_memview_block_get(v, i, &b);
	if (b.buffer != NULL)
		json_buffer(o, v, &b);
	else
		json_event_block(o, allocator, &b);
}

/* curve, band, peak_range, unattributed, contradictions (samples below
 * what the records alone hold: [t, bytes over]). */
static void json_curve(tl_output *o, const tl_memview *v, const tl_memview_allocator *a)
{
	tl_output_str(o, ",\"curve\":[");
	for (size_t p = 0; p < a->n_curve; p++) {
		tl_memview_point pt = tl_memview_curve(v, a, p);
		tl_output_str(o, p ? ",[" : "[");
		tl_json_micros(o, pt.t_ns);
		tl_output_char(o, ',');
		tl_output_int(o, pt.bytes);
		tl_output_char(o, ']');
	}
	tl_output_str(o, "],\"band\":[");
	for (size_t p = 0; p < a->n_band; p++) {
		tl_memview_band_point bp = tl_memview_band(v, a, p);
		tl_output_str(o, p ? ",[" : "[");
		tl_json_micros(o, bp.t_ns);
		tl_output_char(o, ',');
		tl_output_int(o, bp.low);
		tl_output_char(o, ',');
		tl_output_int(o, bp.high);
		tl_output_char(o, ']');
	}
	tl_output_str(o, "],\"peak_range\":[");
	tl_output_int(o, a->peak_low);
	tl_output_char(o, ',');
	tl_output_int(o, a->peak_high);
	const struct {
		const char *key;
		const tl_memview_unattributed *p;
		size_t n;
	} steps[] = {{"],\"unattributed\":[", a->unattributed, a->n_unattributed},
		     {"],\"contradictions\":[", a->contradictions, a->n_contradictions}};
	for (size_t k = 0; k < G_N_ELEMENTS(steps); k++) {
		tl_output_str(o, steps[k].key);
		for (size_t p = 0; p < steps[k].n; p++) {
			tl_output_str(o, p ? ",[" : "[");
			tl_json_micros(o, steps[k].p[p].t_ns);
			tl_output_char(o, ',');
			tl_output_int(o, steps[k].p[p].bytes);
			tl_output_char(o, ']');
		}
	}
	tl_output_char(o, ']');
}

/* What only allocator events give. */
static void json_event_counts(tl_output *o, const tl_memview_allocator *a)
{
	tl_output_printf(o, ",\"peak_from\":\"%s\",\"peak_reserved_bytes\":",
			 a->peak_from_totals ? "total_allocated" : "running_sum");
	if (a->peak_reserved >= 0)
		tl_output_int(o, a->peak_reserved);
	else
		tl_output_str(o, "null");
	tl_output_printf(o,
			 ",\"events\":%zu,\"blocks\":%zu,\"allocated_before_trace\":%zu,"
			 "\"never_freed\":%zu,\"live_bytes\":%" PRId64
			 ",\"unattributed_bytes\":%" PRId64,
			 a->n_events, a->n_blocks, a->n_before, a->n_never_freed, a->live_bytes,
			 a->unheld_bytes);
}

static void json_allocator(tl_output *o, const tl_memview *v, const tl_memview_allocator *a)
{
	tl_output_str(o, "\"allocator\":");
	tl_json_string(o, a->name);
	tl_output_str(o, ",\"device\":");
	tl_json_string(o, a->device);
	tl_output_str(o, ",\"peak_bytes\":");
	tl_output_int(o, a->peak_bytes);
	tl_output_str(o, ",\"peak_requested_bytes\":");
	if (a->peak_requested >= 0)
		tl_output_int(o, a->peak_requested);
	else
		tl_output_str(o, "null");
	tl_output_str(o, ",\"peak_us\":");
	tl_json_micros(o, a->peak_ns);
	tl_output_str(o, ",\"peak_op\":");
	json_str_or_null(o, a->peak_op);
	tl_output_str(o, ",\"persistent_bytes\":");
	tl_output_int(o, a->baseline_bytes);
	json_curve(o, v, a);
	tl_output_str(o, ",\"live_at_peak\":[");
	for (size_t k = 0; k < a->n_live; k++) {
		if (k)
			tl_output_char(o, ',');
		json_block(o, v, a->name, a->live[k]);
	}
	tl_output_str(o, "],\"estimated\":");
	tl_output_uint(o, a->n_estimated);
	tl_output_str(o, ",\"unplaced\":[");
	bool first = true;
	for (size_t k = 0; k < a->n_blocks && a->n_unplaced > 0; k++) {
		size_t bi = a->blocks[k];
		if (v->mem == NULL || !tl_memreport_unplaced(&v->mem->buffers[bi]))
			continue;
		if (!first)
			tl_output_char(o, ',');
		first = false;
		json_block(o, v, a->name, bi);
	}
	tl_output_str(o, "],\"check\":{\"samples\":");
	tl_output_uint(o, a->check_samples);
	tl_output_str(o, ",\"max_abs_error_bytes\":");
	tl_output_int(o, a->check_max_abs);
	tl_output_printf(o, ",\"mean_abs_error_bytes\":%.6g}", a->check_mean_abs);
	if (v->source == TL_MEMVIEW_EVENTS)
		json_event_counts(o, a);
	tl_output_char(o, '}');
}

/* The allocator of view block i, for --buffers. */
static const char *block_allocator(const tl_memview *v, size_t i)
{
	if (v->mem != NULL)
		return v->mem->buffers[i].allocator;
	for (size_t k = 0; k < v->n_allocators; k++) {
		const tl_memview_allocator *a = &v->allocators[k];
		if (a->n_blocks > 0 && i >= a->blocks[0] && i < a->blocks[0] + a->n_blocks)
			return a->name;
	}
	return "";
}

static void json_run(tl_memreport *r, const tl_memview *v)
{
	tl_output *o = r->out;
	if (r->runs > 0)
		tl_output_char(o, ',');
	tl_output_str(o, "\n{\"run\":");
	tl_json_string(o, v->label);
	if (v->source == TL_MEMVIEW_EVENTS) {
		tl_output_str(o, ",\"source\":\"allocation events\",\"clock\":");
		tl_json_string(o, v->clock);
	}
	tl_output_str(o, ",\"step_start_us\":");
	tl_json_micros(o, v->start_ns);
	tl_output_str(o, ",\"step_end_us\":");
	tl_json_micros(o, v->end_ns);
	tl_output_str(o, ",\"allocators\":[");
	for (size_t i = 0; i < v->n_allocators; i++) {
		tl_output_str(o, i ? ",\n{" : "\n{");
		json_allocator(o, v, &v->allocators[i]);
	}
	tl_output_char(o, ']');
	if (r->opts.buffers) {
		tl_output_str(o, ",\"buffers\":[");
		for (size_t i = 0; i < v->n_blocks; i++) {
			tl_output_str(o, i ? ",\n" : "\n");
			json_block(o, v, block_allocator(v, i), i);
		}
		tl_output_char(o, ']');
	}
	tl_output_char(o, '}');
}

static void json_begin(tl_memreport *r)
{
	tl_output_str(r->out, "{\"runs\":[");
}

static void json_end(tl_memreport *r)
{
	tl_output *o = r->out;
	tl_output_str(o, "],\n\"max\":[");
	for (guint i = 0; i < r->max->len; i++) {
		const struct tl_memreport_max *m = g_ptr_array_index(r->max, i);
		tl_output_str(o, i ? ",{\"allocator\":" : "{\"allocator\":");
		tl_json_string(o, m->allocator);
		tl_output_str(o, ",\"peak_bytes\":");
		tl_output_int(o, m->peak);
		tl_output_str(o, ",\"run\":");
		tl_json_string(o, m->run);
		tl_output_char(o, '}');
	}
	tl_output_str(o, "]}\n");
}

const struct tl_memreport_backend tl_memreport_json = {
    .name = "json",
    .begin = json_begin,
    .run = json_run,
    .end = json_end,
};
