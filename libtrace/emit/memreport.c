#include "emit/memreport.h"

#include <glib.h>
#include <inttypes.h>
#include <jansson.h>
#include <stdlib.h>
#include <stdio.h>
#include <string.h>

struct max_entry {
	char *allocator;
	int64_t peak;
	char *run;
};

static void max_entry_free(gpointer p)
{
	struct max_entry *m = p;
	g_free(m->allocator);
	g_free(m->run);
	g_free(m);
}

const char *tl_memory_peak_op(const tl_memory *mem, const tl_allocator *a)
{
	for (size_t i = 0; i < a->n_live; i++) {
		const tl_buffer *b = &mem->buffers[a->live_at_peak[i]];
		if (b->kind != TL_BUF_PERSISTENT && b->alloc_us == a->peak_us && b->producer >= 0)
			return mem->run->execs[b->producer].node;
	}
	return NULL;
}

static const char *dtype_name(const tl_buffer *b)
{
	if (b->desc == NULL)
		return "";
	const ProtobufCEnumValue *v = protobuf_c_enum_descriptor_get_value(
		&tensorflow__data_type__descriptor, (int)b->desc->dtype);
	return v != NULL ? v->name : "";
}

/* "32x56x56x128", "scalar", or "" when unknown. */
static void shape_text(const tl_buffer *b, GString *s)
{
	g_string_truncate(s, 0);
	if (b->desc == NULL || b->desc->shape == NULL)
		return;
	const Tensorflow__TensorShapeProto *sh = b->desc->shape;
	if (sh->n_dim == 0) {
		g_string_append(s, "scalar");
		return;
	}
	for (size_t i = 0; i < sh->n_dim; i++)
		g_string_append_printf(s, "%s%" PRId64, i ? "x" : "", sh->dim[i]->size);
}

static const char *tensor_name(const tl_memory *mem, const tl_buffer *b)
{
	if (b->name != NULL && b->n_refs == 0)
		return b->name;
	if (b->n_refs > 0)
		return tl_tensor_ref_name(mem, &mem->refs[b->first_ref]);
	if (b->producer >= 0) {
		char *s = g_strdup_printf("%s (temp)", mem->run->execs[b->producer].node);
		const char *out = tl_arena_strdup(mem->run->arena, s);
		g_free(s);
		return out;
	}
	char *s = g_strdup_printf("allocation %" PRId64, b->allocation_id);
	const char *out = tl_arena_strdup(mem->run->arena, s);
	g_free(s);
	return out;
}

static const char *producer_name(const tl_memory *mem, const tl_buffer *b)
{
	return b->producer >= 0 ? mem->run->execs[b->producer].node : "";
}

static const char *producer_op(const tl_memory *mem, const tl_buffer *b)
{
	return b->producer >= 0 ? mem->run->execs[b->producer].op : "";
}

static const char *last_consumer(const tl_memory *mem, const tl_buffer *b)
{
	if (b->last_user < 0 || b->cause == TL_FREE_UNUSED || b->kind == TL_BUF_TEMP)
		return NULL;
	return mem->run->execs[b->last_user].node;
}

/* An estimated birth the samples could not place. */
static bool unplaced(const tl_buffer *b)
{
	return b->birth == TL_BIRTH_UNCONSTRAINED || b->birth == TL_BIRTH_CONTRADICTED;
}

static const char *unplaced_why(const tl_buffer *b)
{
	return b->birth == TL_BIRTH_CONTRADICTED
		   ? "next to a sample the births could not meet; born at the start of its window"
		   : "no sample constrains it; born at its first consumer's start";
}

/* "12.3 MB", "512 B" */
static void human_bytes(int64_t v, char *buf, size_t size)
{
	double a = (double)(v < 0 ? -v : v);
	const char *unit[] = {"B", "KB", "MB", "GB", "TB"};
	int u = 0;
	while (a >= 1024.0 && u < 4) {
		a /= 1024.0;
		u++;
	}
	if (u == 0)
		snprintf(buf, size, "%" PRId64 " B", v);
	else
		snprintf(buf, size, "%s%.1f %s", v < 0 ? "-" : "", a, unit[u]);
}

void tl_memreport_begin(tl_memreport *r, tl_output *out, const tl_memreport_opts *opts)
{
	*r = (tl_memreport){.out = out, .opts = *opts};
	r->max = g_ptr_array_new_with_free_func(max_entry_free);
	r->max_by_name = g_hash_table_new(g_str_hash, g_str_equal);
	if (opts->format == TL_REPORT_JSON)
		tl_out_str(out, "{\"runs\":[");
	else if (opts->format == TL_REPORT_CSV)
		tl_out_str(out,
			   "run,allocator,peak_bytes,peak_us,rank,tensor,producer,op,kind,dtype,"
			   "shape,allocated_bytes,requested_bytes,alloc_us,free_us,"
			   "last_consumer,birth\n");
}

static void note_max(tl_memreport *r, const tl_memory *mem, const tl_allocator *a)
{
	struct max_entry *m = g_hash_table_lookup(r->max_by_name, a->name);
	if (m != NULL) {
		if (a->peak_bytes > m->peak) {
			m->peak = a->peak_bytes;
			g_free(m->run);
			m->run = g_strdup(mem->run->label);
		}
		return;
	}
	m = g_new0(struct max_entry, 1);
	m->allocator = g_strdup(a->name);
	m->peak = a->peak_bytes;
	m->run = g_strdup(mem->run->label);
	g_ptr_array_add(r->max, m);
	g_hash_table_insert(r->max_by_name, m->allocator, m);
}

/* ---- JSON -------------------------------------------------------------- */

static void json_us(tl_output *o, int64_t us)
{
	if (us == TL_US_BEFORE || us == TL_US_NEVER)
		tl_out_str(o, "null");
	else
		tl_out_int(o, us);
}

static void json_buffer(tl_output *o, const tl_memory *mem, const tl_buffer *b, GString *tmp)
{
	tl_out_str(o, "{\"tensor\":");
	tl_json_string(o, tensor_name(mem, b));
	tl_out_str(o, ",\"tensors\":[");
	for (uint32_t k = 0; k < b->n_refs; k++) {
		if (k)
			tl_out_char(o, ',');
		tl_json_string(o, tl_tensor_ref_name(mem, &mem->refs[b->first_ref + k]));
	}
	tl_out_str(o, "],\"allocator\":");
	tl_json_string(o, b->allocator);
	tl_out_str(o, ",\"allocation_id\":");
	tl_out_int(o, b->allocation_id);
	tl_out_str(o, ",\"kind\":\"");
	tl_out_str(o, tl_buffer_kind_name(b->kind));
	tl_out_str(o, "\",\"producer\":");
	tl_json_string(o, producer_name(mem, b));
	tl_out_str(o, ",\"op\":");
	tl_json_string(o, producer_op(mem, b));
	tl_out_str(o, ",\"slot\":");
	tl_out_int(o, b->slot);
	tl_out_str(o, ",\"dtype\":");
	tl_json_string(o, dtype_name(b));
	tl_out_str(o, ",\"shape\":[");
	if (b->desc != NULL && b->desc->shape != NULL)
		for (size_t i = 0; i < b->desc->shape->n_dim; i++) {
			if (i)
				tl_out_char(o, ',');
			tl_out_int(o, b->desc->shape->dim[i]->size);
		}
	(void)tmp;
	tl_out_str(o, "],\"allocated_bytes\":");
	tl_out_int(o, b->allocated);
	tl_out_str(o, ",\"requested_bytes\":");
	tl_out_int(o, b->requested);
	tl_out_str(o, ",\"alloc_us\":");
	json_us(o, b->alloc_us);
	tl_out_str(o, ",\"free_us\":");
	json_us(o, b->free_us);
	tl_out_str(o, ",\"last_consumer\":");
	const char *lc = last_consumer(mem, b);
	if (lc != NULL)
		tl_json_string(o, lc);
	else
		tl_out_str(o, "null");
	tl_out_str(o, ",\"free_cause\":\"");
	tl_out_str(o, tl_free_cause_name(b->cause));
	tl_out_str(o, "\",\"fetched\":");
	tl_out_str(o, b->fetched ? "true" : "false");
	if (b->estimated) {
		tl_out_str(o, ",\"estimated\":true,\"birth\":\"");
		tl_out_str(o, tl_birth_name(b->birth));
		tl_out_str(o, "\",\"birth_window_us\":[");
		tl_out_int(o, b->birth_lo);
		tl_out_char(o, ',');
		tl_out_int(o, b->birth_hi);
		tl_out_char(o, ']');
	}
	tl_out_char(o, '}');
}

static void json_run(tl_memreport *r, const tl_memory *mem)
{
	tl_output *o = r->out;
	GString *tmp = g_string_new(NULL);
	if (r->runs > 0)
		tl_out_char(o, ',');
	tl_out_str(o, "\n{\"run\":");
	tl_json_string(o, mem->run->label);
	tl_out_str(o, ",\"step_start_us\":");
	tl_out_int(o, mem->step_start_us);
	tl_out_str(o, ",\"step_end_us\":");
	tl_out_int(o, mem->step_end_us);
	tl_out_str(o, ",\"allocators\":[");
	for (size_t i = 0; i < mem->n_allocators; i++) {
		const tl_allocator *a = &mem->allocators[i];
		tl_out_str(o, i ? ",\n{" : "\n{");
		tl_out_str(o, "\"allocator\":");
		tl_json_string(o, a->name);
		tl_out_str(o, ",\"peak_bytes\":");
		tl_out_int(o, a->peak_bytes);
		tl_out_str(o, ",\"peak_requested_bytes\":");
		tl_out_int(o, a->peak_requested);
		tl_out_str(o, ",\"peak_us\":");
		tl_out_int(o, a->peak_us);
		tl_out_str(o, ",\"peak_op\":");
		const char *op = tl_memory_peak_op(mem, a);
		if (op != NULL)
			tl_json_string(o, op);
		else
			tl_out_str(o, "null");
		tl_out_str(o, ",\"persistent_bytes\":");
		tl_out_int(o, a->persistent_bytes);
		tl_out_str(o, ",\"curve\":[");
		for (size_t p = 0; p < a->n_curve; p++) {
			tl_out_str(o, p ? ",[" : "[");
			tl_out_int(o, a->curve[p].us);
			tl_out_char(o, ',');
			tl_out_int(o, a->curve[p].bytes);
			tl_out_char(o, ']');
		}
		tl_out_str(o, "],\"live_at_peak\":[");
		for (size_t k = 0; k < a->n_live; k++) {
			if (k)
				tl_out_char(o, ',');
			json_buffer(o, mem, &mem->buffers[a->live_at_peak[k]], tmp);
		}
		tl_out_str(o, "],\"estimated\":");
		tl_out_uint(o, a->n_estimated);
		tl_out_str(o, ",\"unplaced\":[");
		bool first = true;
		for (size_t k = 0; k < a->n_buffers && a->n_unplaced > 0; k++) {
			const tl_buffer *b = &mem->buffers[a->buffers[k]];
			if (!unplaced(b))
				continue;
			if (!first)
				tl_out_char(o, ',');
			first = false;
			json_buffer(o, mem, b, tmp);
		}
		tl_out_str(o, "],\"check\":{\"samples\":");
		tl_out_uint(o, a->check_samples);
		tl_out_str(o, ",\"max_abs_error_bytes\":");
		tl_out_int(o, a->check_max_abs);
		tl_out_printf(o, ",\"mean_abs_error_bytes\":%.6g}}", a->check_mean_abs);
	}
	tl_out_char(o, ']');
	if (r->opts.buffers) {
		tl_out_str(o, ",\"buffers\":[");
		for (size_t i = 0; i < mem->n_buffers; i++) {
			tl_out_str(o, i ? ",\n" : "\n");
			json_buffer(o, mem, &mem->buffers[i], tmp);
		}
		tl_out_char(o, ']');
	}
	tl_out_char(o, '}');
	g_string_free(tmp, TRUE);
}

/* ---- CSV --------------------------------------------------------------- */

static void csv_field(tl_output *o, const char *s)
{
	if (strpbrk(s, ",\"\n\r") == NULL) {
		tl_out_str(o, s);
		return;
	}
	tl_out_char(o, '"');
	for (const char *p = s; *p; p++) {
		if (*p == '"')
			tl_out_char(o, '"');
		tl_out_char(o, *p);
	}
	tl_out_char(o, '"');
}

static void csv_us(tl_output *o, int64_t us)
{
	if (us != TL_US_BEFORE && us != TL_US_NEVER)
		tl_out_int(o, us);
}

/* One buffer as a CSV row; rank 0 (an empty field) for a buffer listed
 * though not live at the peak (an estimated birth that could not be
 * placed). */
static void csv_row(tl_output *o, const tl_memory *mem, const tl_allocator *a, const tl_buffer *b,
		    size_t rank, GString *shape)
{
	shape_text(b, shape);
	csv_field(o, mem->run->label);
	tl_out_char(o, ',');
	csv_field(o, a->name);
	tl_out_char(o, ',');
	tl_out_int(o, a->peak_bytes);
	tl_out_char(o, ',');
	tl_out_int(o, a->peak_us);
	tl_out_char(o, ',');
	if (rank > 0)
		tl_out_uint(o, rank);
	tl_out_char(o, ',');
	csv_field(o, tensor_name(mem, b));
	tl_out_char(o, ',');
	csv_field(o, producer_name(mem, b));
	tl_out_char(o, ',');
	csv_field(o, producer_op(mem, b));
	tl_out_char(o, ',');
	tl_out_str(o, tl_buffer_kind_name(b->kind));
	tl_out_char(o, ',');
	tl_out_str(o, dtype_name(b));
	tl_out_char(o, ',');
	csv_field(o, shape->str);
	tl_out_char(o, ',');
	tl_out_int(o, b->allocated);
	tl_out_char(o, ',');
	tl_out_int(o, b->requested);
	tl_out_char(o, ',');
	csv_us(o, b->alloc_us);
	tl_out_char(o, ',');
	csv_us(o, b->free_us);
	tl_out_char(o, ',');
	const char *lc = last_consumer(mem, b);
	csv_field(o, lc != NULL ? lc : "");
	tl_out_char(o, ',');
	tl_out_str(o, tl_birth_name(b->birth));
	tl_out_char(o, '\n');
}

static void csv_run(tl_memreport *r, const tl_memory *mem)
{
	tl_output *o = r->out;
	GString *shape = g_string_new(NULL);
	for (size_t i = 0; i < mem->n_allocators; i++) {
		const tl_allocator *a = &mem->allocators[i];
		size_t n = a->n_live < r->opts.top ? a->n_live : r->opts.top;
		GHashTable *listed =
		    a->n_unplaced > 0 ? g_hash_table_new(g_direct_hash, g_direct_equal) : NULL;
		for (size_t k = 0; k < n; k++) {
			csv_row(o, mem, a, &mem->buffers[a->live_at_peak[k]], k + 1, shape);
			if (listed != NULL)
				g_hash_table_add(listed, GUINT_TO_POINTER(a->live_at_peak[k] + 1));
		}
		for (size_t k = 0; listed != NULL && k < a->n_buffers; k++) {
			uint32_t bi = a->buffers[k];
			if (unplaced(&mem->buffers[bi]) &&
			    !g_hash_table_contains(listed, GUINT_TO_POINTER(bi + 1)))
				csv_row(o, mem, a, &mem->buffers[bi], 0, shape);
		}
		if (listed != NULL)
			g_hash_table_destroy(listed);
	}
	g_string_free(shape, TRUE);
}

/* ---- text -------------------------------------------------------------- */

/* The births the dump does not hold: how many, and each one the samples
 * could not place. */
static void text_births(tl_output *o, const tl_memory *mem, const tl_allocator *a)
{
	if (a->n_estimated == 0)
		return;
	tl_out_printf(o, "  births not in the dump (~): %zu buffers of _Recv without stats",
		      a->n_estimated);
	if (a->n_unplaced == 0) {
		tl_out_str(o, ", all placed by allocator_bytes_in_use\n");
		return;
	}
	tl_out_printf(o, "; %zu not placed by allocator_bytes_in_use:\n", a->n_unplaced);
	char b1[32];
	for (size_t k = 0; k < a->n_buffers; k++) {
		const tl_buffer *b = &mem->buffers[a->buffers[k]];
		if (!unplaced(b))
			continue;
		human_bytes(b->allocated, b1, sizeof b1);
		tl_out_printf(o, "    %s (%s): %s, %+.3f ms\n", tensor_name(mem, b), b1,
			      unplaced_why(b), (double)(b->alloc_us - mem->step_start_us) / 1000.0);
	}
}

static void text_run(tl_memreport *r, const tl_memory *mem)
{
	tl_output *o = r->out;
	char b1[32], b2[32], b3[32];
	GString *shape = g_string_new(NULL);
	if (r->runs > 0)
		tl_out_char(o, '\n');
	tl_out_printf(o, "run %s\n", mem->run->label);
	if (mem->n_allocators == 0)
		tl_out_str(o, "  no memory records in this run\n");
	for (size_t i = 0; i < mem->n_allocators; i++) {
		const tl_allocator *a = &mem->allocators[i];
		human_bytes(a->peak_bytes, b1, sizeof b1);
		human_bytes(a->persistent_bytes, b2, sizeof b2);
		const char *op = tl_memory_peak_op(mem, a);
		tl_out_printf(o, "\nallocator %s: peak %s (%" PRId64 " bytes; %" PRId64
				 " requested) at %+.3f ms%s%s\n",
			      a->name, b1, a->peak_bytes, a->peak_requested,
			      (double)(a->peak_us - mem->step_start_us) / 1000.0,
			      op ? " in " : "", op ? op : "");
		tl_out_printf(o, "  persistent %s; %zu buffers live at the peak\n", b2, a->n_live);
		if (a->check_samples > 0) {
			human_bytes(a->check_max_abs, b3, sizeof b3);
			tl_out_printf(o, "  check against allocator_bytes_in_use: %zu samples, max "
					 "error %s, mean %.1f bytes\n",
				      a->check_samples, b3, a->check_mean_abs);
		} else {
			tl_out_str(o, "  check: the dump records no allocator_bytes_in_use\n");
		}
		text_births(o, mem, a);
		size_t n = a->n_live < r->opts.top ? a->n_live : r->opts.top;
		if (n == 0)
			continue;
		tl_out_printf(o, "  %-4s %10s %10s  %-10s %-9s %-16s %9s %9s  %-s\n", "#", "allocated",
			      "requested", "kind", "dtype", "shape", "born ms", "dies ms",
			      "tensor (producer op) -> last consumer");
		for (size_t k = 0; k < n; k++) {
			const tl_buffer *b = &mem->buffers[a->live_at_peak[k]];
			shape_text(b, shape);
			human_bytes(b->allocated, b1, sizeof b1);
			human_bytes(b->requested, b2, sizeof b2);
			char born[24], dies[24];
			if (b->alloc_us == TL_US_BEFORE)
				snprintf(born, sizeof born, "before");
			else
				snprintf(born, sizeof born, "%s%.3f", b->estimated ? "~" : "",
					 (double)(b->alloc_us - mem->step_start_us) / 1000.0);
			if (b->free_us == TL_US_NEVER)
				snprintf(dies, sizeof dies, "never");
			else if (b->fetched)
				snprintf(dies, sizeof dies, "fetched");
			else
				snprintf(dies, sizeof dies, "%.3f",
					 (double)(b->free_us - mem->step_start_us) / 1000.0);
			const char *lc = last_consumer(mem, b);
			tl_out_printf(o, "  %-4zu %10s %10s  %-10s %-9s %-16s %9s %9s  %s (%s)%s%s\n",
				      k + 1, b1, b2, tl_buffer_kind_name(b->kind),
				      dtype_name(b)[0] ? dtype_name(b) + 3 : "-",
				      shape->len ? shape->str : "-", born, dies, tensor_name(mem, b),
				      producer_op(mem, b)[0] ? producer_op(mem, b) : "?",
				      lc ? " -> " : "", lc ? lc : "");
		}
	}
	g_string_free(shape, TRUE);
}

void tl_memreport_run(tl_memreport *r, const tl_memory *mem)
{
	switch (r->opts.format) {
	case TL_REPORT_JSON:
		json_run(r, mem);
		break;
	case TL_REPORT_CSV:
		csv_run(r, mem);
		break;
	case TL_REPORT_TEXT:
		text_run(r, mem);
		break;
	}
	for (size_t i = 0; i < mem->n_allocators; i++)
		note_max(r, mem, &mem->allocators[i]);
	r->runs++;
}

void tl_memreport_end(tl_memreport *r)
{
	tl_output *o = r->out;
	if (r->opts.format == TL_REPORT_JSON) {
		tl_out_str(o, "],\n\"max\":[");
		for (guint i = 0; i < r->max->len; i++) {
			struct max_entry *m = g_ptr_array_index(r->max, i);
			tl_out_str(o, i ? ",{\"allocator\":" : "{\"allocator\":");
			tl_json_string(o, m->allocator);
			tl_out_str(o, ",\"peak_bytes\":");
			tl_out_int(o, m->peak);
			tl_out_str(o, ",\"run\":");
			tl_json_string(o, m->run);
			tl_out_char(o, '}');
		}
		tl_out_str(o, "]}\n");
	} else if (r->opts.format == TL_REPORT_TEXT && r->runs > 1) {
		tl_out_printf(o, "\nmaximum over %zu runs\n", r->runs);
		char b1[32];
		for (guint i = 0; i < r->max->len; i++) {
			struct max_entry *m = g_ptr_array_index(r->max, i);
			human_bytes(m->peak, b1, sizeof b1);
			tl_out_printf(o, "  %-20s %10s  (%" PRId64 " bytes) in %s\n", m->allocator, b1,
				      m->peak, m->run);
		}
	}
	g_hash_table_destroy(r->max_by_name);
	g_ptr_array_free(r->max, TRUE);
}

/* ---- Chrome events ----------------------------------------------------- */

void tl_memtrace_write(tl_chrome *w, const tl_memory *mem, const tl_memtrace_opts *o,
		       const char *prefix, int64_t *next_pid, uint64_t *next_id)
{
	GString *shape = g_string_new(NULL);
	for (size_t i = 0; i < mem->n_allocators; i++) {
		const tl_allocator *a = &mem->allocators[i];
		int64_t pid = (*next_pid)++;
		char *pname = g_strdup_printf("%sMemory: %s", prefix ? prefix : "", a->name);
		tl_chrome_process(w, pid, pname, pid);
		g_free(pname);
		tl_chrome_thread(w, pid, 0, "tensors", 0);
		for (size_t p = 0; p < a->n_curve; p++) {
			tl_chrome_event(w, 'C', a->name, NULL, pid, 0, a->curve[p].us * 1000 + o->shift_ns, -1);
			tl_chrome_arg_int(w, "allocated", a->curve[p].bytes);
			tl_chrome_arg_int(w, "requested", a->curve[p].requested);
		}
		for (size_t k = 0; k < a->n_buffers; k++) {
			const tl_buffer *b = &mem->buffers[a->buffers[k]];
			if (b->free_us == b->alloc_us)
				continue;
			int64_t born = b->alloc_us == TL_US_BEFORE ? mem->step_start_us : b->alloc_us;
			int64_t dies = b->free_us == TL_US_NEVER ? mem->step_end_us : b->free_us;
			if (dies < born)
				dies = born;
			const char *name = tensor_name(mem, b);
			int64_t id = (int64_t)(*next_id)++;
			shape_text(b, shape);
			const char *lc = last_consumer(mem, b);
			if (o->objects) {
				/* catapult's object model: created, one snapshot, deleted */
				tl_chrome_event(w, 'N', name, "tensor", pid, 0, born * 1000 + o->shift_ns, id);
				json_t *snap = json_pack(
					"{s:s,s:I,s:I,s:s,s:s,s:s,s:s,s:s}", "kind",
					tl_buffer_kind_name(b->kind), "allocated_bytes",
					(json_int_t)b->allocated, "requested_bytes",
					(json_int_t)b->requested, "dtype", dtype_name(b), "shape",
					shape->str, "producer", producer_name(mem, b), "last_consumer",
					lc ? lc : "", "free_cause", tl_free_cause_name(b->cause));
				char *text = json_dumps(snap, JSON_COMPACT | JSON_ENSURE_ASCII);
				tl_chrome_event(w, 'O', name, "tensor", pid, 0, born * 1000 + o->shift_ns, id);
				tl_chrome_arg_raw(w, "snapshot", text != NULL ? text : "{}");
				free(text);
				json_decref(snap);
			} else {
				tl_chrome_event(w, 'b', name, "tensor", pid, 0, born * 1000 + o->shift_ns, id);
				tl_chrome_arg_str(w, "kind", tl_buffer_kind_name(b->kind));
				tl_chrome_arg_int(w, "allocated_bytes", b->allocated);
				tl_chrome_arg_int(w, "requested_bytes", b->requested);
				tl_chrome_arg_str(w, "dtype", dtype_name(b));
				tl_chrome_arg_str(w, "shape", shape->str);
				tl_chrome_arg_str(w, "producer", producer_name(mem, b));
				tl_chrome_arg_str(w, "last_consumer", lc ? lc : "");
				tl_chrome_arg_str(w, "free_cause", tl_free_cause_name(b->cause));
				if (b->estimated)
					tl_chrome_arg_str(w, "birth", tl_birth_name(b->birth));
			}
			tl_chrome_event(w, o->objects ? 'D' : 'e', name, "tensor", pid, 0, dies * 1000 + o->shift_ns,
					id);
		}
	}
	g_string_free(shape, TRUE);
}
