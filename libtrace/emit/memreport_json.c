#include "emit/memreport_impl.h"

#include "emit/json.h"

/* The JSON report: one document over the runs, its schema in memreport.h. */

static void json_us(tl_output *o, int64_t us)
{
	if (us == TL_US_BEFORE || us == TL_US_NEVER)
		tl_output_str(o, "null");
	else
		tl_output_int(o, us);
}

static void json_buffer(tl_output *o, const tl_memory *mem, const tl_buffer *b)
{
	tl_output_str(o, "{\"tensor\":");
	tl_json_string(o, tl_memreport_tensor(mem, b));
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
	tl_output_str(o, tl_memory_kind_name(b->kind));
	tl_output_str(o, "\",\"producer\":");
	tl_json_string(o, tl_memreport_producer(mem, b));
	tl_output_str(o, ",\"op\":");
	tl_json_string(o, tl_memreport_op(mem, b));
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
	tl_output_int(o, b->allocated);
	tl_output_str(o, ",\"requested_bytes\":");
	tl_output_int(o, b->requested);
	tl_output_str(o, ",\"alloc_us\":");
	json_us(o, b->alloc_us);
	tl_output_str(o, ",\"free_us\":");
	json_us(o, b->free_us);
	tl_output_str(o, ",\"last_consumer\":");
	const char *lc = tl_memreport_last_consumer(mem, b);
	if (lc != NULL)
		tl_json_string(o, lc);
	else
		tl_output_str(o, "null");
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

/* The band, the peak's range, the unattributed part and the samples the
 * records alone exceed: times on the curve's clock (memory.h). */
static void json_band(tl_output *o, const tl_allocator *a)
{
	tl_output_str(o, ",\"band\":[");
	for (size_t p = 0; p < a->n_band; p++) {
		tl_output_str(o, p ? ",[" : "[");
		tl_output_int(o, a->band[p].us);
		tl_output_char(o, ',');
		tl_output_int(o, a->band[p].low);
		tl_output_char(o, ',');
		tl_output_int(o, a->band[p].high);
		tl_output_char(o, ']');
	}
	tl_output_str(o, "],\"peak_range\":[");
	tl_output_int(o, a->peak_low);
	tl_output_char(o, ',');
	tl_output_int(o, a->peak_high);
	const struct {
		const char *key;
		const tl_point *p;
		size_t n;
	} steps[] = {{"],\"unattributed\":[", a->unattributed, a->n_unattributed},
		     {"],\"contradictions\":[", a->contradictions, a->n_contradictions}};
	for (size_t k = 0; k < G_N_ELEMENTS(steps); k++) {
		tl_output_str(o, steps[k].key);
		for (size_t p = 0; p < steps[k].n; p++) {
			tl_output_str(o, p ? ",[" : "[");
			tl_output_int(o, steps[k].p[p].us);
			tl_output_char(o, ',');
			tl_output_int(o, steps[k].p[p].bytes);
			tl_output_char(o, ']');
		}
	}
	tl_output_char(o, ']');
}

static void json_run(tl_memreport *r, const tl_memory *mem)
{
	tl_output *o = r->out;
	if (r->runs > 0)
		tl_output_char(o, ',');
	tl_output_str(o, "\n{\"run\":");
	tl_json_string(o, mem->run->label);
	tl_output_str(o, ",\"step_start_us\":");
	tl_output_int(o, mem->step_start_us);
	tl_output_str(o, ",\"step_end_us\":");
	tl_output_int(o, mem->step_end_us);
	tl_output_str(o, ",\"allocators\":[");
	for (size_t i = 0; i < mem->n_allocators; i++) {
		const tl_allocator *a = &mem->allocators[i];
		tl_output_str(o, i ? ",\n{" : "\n{");
		tl_output_str(o, "\"allocator\":");
		tl_json_string(o, a->name);
		tl_output_str(o, ",\"peak_bytes\":");
		tl_output_int(o, a->peak_bytes);
		tl_output_str(o, ",\"peak_requested_bytes\":");
		tl_output_int(o, a->peak_requested);
		tl_output_str(o, ",\"peak_us\":");
		tl_output_int(o, a->peak_us);
		tl_output_str(o, ",\"peak_op\":");
		const char *op = tl_memory_peak_op(mem, a);
		if (op != NULL)
			tl_json_string(o, op);
		else
			tl_output_str(o, "null");
		tl_output_str(o, ",\"persistent_bytes\":");
		tl_output_int(o, a->persistent_bytes);
		tl_output_str(o, ",\"curve\":[");
		for (size_t p = 0; p < a->n_curve; p++) {
			tl_output_str(o, p ? ",[" : "[");
			tl_output_int(o, a->curve[p].us);
			tl_output_char(o, ',');
			tl_output_int(o, a->curve[p].bytes);
			tl_output_char(o, ']');
		}
		tl_output_str(o, "],\"live_at_peak\":[");
		for (size_t k = 0; k < a->n_live; k++) {
			if (k)
				tl_output_char(o, ',');
			json_buffer(o, mem, &mem->buffers[a->live_at_peak[k]]);
		}
		tl_output_str(o, "],\"estimated\":");
		tl_output_uint(o, a->n_estimated);
		tl_output_str(o, ",\"unplaced\":[");
		bool first = true;
		for (size_t k = 0; k < a->n_buffers && a->n_unplaced > 0; k++) {
			const tl_buffer *b = &mem->buffers[a->buffers[k]];
			if (!tl_memreport_unplaced(b))
				continue;
			if (!first)
				tl_output_char(o, ',');
			first = false;
			json_buffer(o, mem, b);
		}
		tl_output_str(o, "],\"check\":{\"samples\":");
		tl_output_uint(o, a->check_samples);
		tl_output_str(o, ",\"max_abs_error_bytes\":");
		tl_output_int(o, a->check_max_abs);
		tl_output_printf(o, ",\"mean_abs_error_bytes\":%.6g}", a->check_mean_abs);
		json_band(o, a);
		tl_output_char(o, '}');
	}
	tl_output_char(o, ']');
	if (r->opts.buffers) {
		tl_output_str(o, ",\"buffers\":[");
		for (size_t i = 0; i < mem->n_buffers; i++) {
			tl_output_str(o, i ? ",\n" : "\n");
			json_buffer(o, mem, &mem->buffers[i]);
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
