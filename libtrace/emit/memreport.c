#include "emit/memreport_impl.h"

#include "base/bytes.h"
#include "model/shape.h"

#include <inttypes.h>
#include <stdio.h>
#include <string.h>

static void max_free(gpointer p)
{
	struct tl_memreport_max *m = p;
	g_free(m->allocator);
	g_free(m->run);
	g_free(m);
}

const char *tl_memreport_dtype(const tl_buffer *b)
{
	if (b->desc == NULL)
		return "";
	const ProtobufCEnumValue *v = protobuf_c_enum_descriptor_get_value(
	    &tensorflow__data_type__descriptor, (int)b->desc->dtype);
	return v != NULL ? v->name : "";
}

/* "32x56x56x128", "scalar", or "" when unknown. */
void tl_memreport_shape(const tl_buffer *b, GString *s)
{
	g_string_truncate(s, 0);
	if (b->desc != NULL)
		tl_shape_append(s, b->desc->shape, TL_SHAPE_SCALAR);
}

const char *tl_memreport_tensor(const tl_memory *mem, const tl_buffer *b)
{
	if (b->name != NULL && b->n_refs == 0)
		return b->name;
	if (b->n_refs > 0)
		return tl_memory_ref_name(mem, &mem->refs[b->first_ref]);
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

const char *tl_memreport_producer(const tl_memory *mem, const tl_buffer *b)
{
	return b->producer >= 0 ? mem->run->execs[b->producer].node : "";
}

const char *tl_memreport_op(const tl_memory *mem, const tl_buffer *b)
{
	return b->producer >= 0 ? mem->run->execs[b->producer].op : "";
}

const char *tl_memreport_last_consumer(const tl_memory *mem, const tl_buffer *b)
{
	if (b->last_user < 0 || b->cause == TL_FREE_UNUSED || b->kind == TL_BUF_TEMP)
		return NULL;
	return mem->run->execs[b->last_user].node;
}

/* An estimated birth the samples could not place. */
bool tl_memreport_unplaced(const tl_buffer *b)
{
	return b->birth == TL_BIRTH_UNCONSTRAINED || b->birth == TL_BIRTH_CONTRADICTED;
}

const char *tl_memreport_unplaced_why(const tl_buffer *b)
{
	return b->birth == TL_BIRTH_CONTRADICTED
		   ? "next to a sample the births could not meet; born at the start of its window"
		   : "no sample constrains it; born at its first consumer's start";
}

static void note_max(tl_memreport *r, const tl_memory *mem, const tl_allocator *a)
{
	struct tl_memreport_max *m = g_hash_table_lookup(r->max_by_name, a->name);
	if (m != NULL) {
		if (a->peak_bytes > m->peak) {
			m->peak = a->peak_bytes;
			g_free(m->run);
			m->run = g_strdup(mem->run->label);
		}
		return;
	}
	m = g_new0(struct tl_memreport_max, 1);
	m->allocator = g_strdup(a->name);
	m->peak = a->peak_bytes;
	m->run = g_strdup(mem->run->label);
	g_ptr_array_add(r->max, m);
	g_hash_table_insert(r->max_by_name, m->allocator, m);
}

/* ---- the live buffers: a table row each (text and CSV) --------------- */

enum {
	L_RUN,
	L_ALLOCATOR,
	L_PEAK,
	L_PEAK_US,
	L_RANK,
	L_ALLOCATED_H,
	L_REQUESTED_H,
	L_TENSOR,
	L_PRODUCER,
	L_OP,
	L_KIND,
	L_DTYPE,
	L_DTYPE_T,
	L_SHAPE,
	L_SHAPE_T,
	L_ALLOCATED,
	L_REQUESTED,
	L_ALLOC_US,
	L_FREE_US,
	L_LAST,
	L_BIRTH,
	L_BORN_T,
	L_DIES_T,
	L_TENSOR_T,
	L_OP_T,
	L_LAST_T,
	L_N
};
static const tl_table_col live_cols[L_N] = {
    [L_RUN] = {"run", NULL, TL_CELL_STR, NULL, NULL},
    [L_ALLOCATOR] = {"allocator", NULL, TL_CELL_STR, NULL, NULL},
    [L_PEAK] = {"peak_bytes", NULL, TL_CELL_STR, NULL, NULL},
    [L_PEAK_US] = {"peak_us", NULL, TL_CELL_STR, NULL, NULL},
    [L_RANK] = {"rank", NULL, TL_CELL_STR, NULL, "  %-4s"},
    [L_ALLOCATED_H] = {NULL, NULL, TL_CELL_STR, NULL, " %10s"},
    [L_REQUESTED_H] = {NULL, NULL, TL_CELL_STR, NULL, " %10s"},
    [L_TENSOR] = {"tensor", NULL, TL_CELL_STR, NULL, NULL},
    [L_PRODUCER] = {"producer", NULL, TL_CELL_STR, NULL, NULL},
    [L_OP] = {"op", NULL, TL_CELL_STR, NULL, NULL},
    [L_KIND] = {"kind", NULL, TL_CELL_STR, NULL, "  %-10s"},
    [L_DTYPE] = {"dtype", NULL, TL_CELL_STR, NULL, NULL},
    [L_DTYPE_T] = {NULL, NULL, TL_CELL_STR, NULL, " %-9s"},
    [L_SHAPE] = {"shape", NULL, TL_CELL_STR, NULL, NULL},
    [L_SHAPE_T] = {NULL, NULL, TL_CELL_STR, NULL, " %-16s"},
    [L_ALLOCATED] = {"allocated_bytes", NULL, TL_CELL_STR, NULL, NULL},
    [L_REQUESTED] = {"requested_bytes", NULL, TL_CELL_STR, NULL, NULL},
    [L_ALLOC_US] = {"alloc_us", NULL, TL_CELL_STR, NULL, NULL},
    [L_FREE_US] = {"free_us", NULL, TL_CELL_STR, NULL, NULL},
    [L_LAST] = {"last_consumer", NULL, TL_CELL_STR, NULL, NULL},
    [L_BIRTH] = {"birth", NULL, TL_CELL_STR, NULL, NULL},
    [L_BORN_T] = {NULL, NULL, TL_CELL_STR, NULL, " %9s"},
    [L_DIES_T] = {NULL, NULL, TL_CELL_STR, NULL, " %9s"},
    [L_TENSOR_T] = {NULL, NULL, TL_CELL_STR, NULL, "  %s"},
    [L_OP_T] = {NULL, NULL, TL_CELL_STR, NULL, " (%s)"},
    [L_LAST_T] = {NULL, NULL, TL_CELL_STR, NULL, "%s"},
};
static const tl_table_spec live_spec = {live_cols, L_N, NULL};

/* The texts of one row; integers as the dump has them (64-bit exact). */
struct live_text {
	char peak[24], peak_us[24], rank[24], allocated[24], requested[24], alloc_us[24],
	    free_us[24], allocated_h[32], requested_h[32], born[32], dies[32];
	GString *shape, *last;
};

static void us_text(char *buf, size_t size, int64_t us)
{
	if (us != TL_US_BEFORE && us != TL_US_NEVER)
		snprintf(buf, size, "%" PRId64, us);
	else
		buf[0] = '\0';
}

/* When it was born and dies, in ms from the step's start, for text. */
static void life_text(const tl_memory *mem, const tl_buffer *b, struct live_text *x)
{
	if (b->alloc_us == TL_US_BEFORE)
		snprintf(x->born, sizeof x->born, "before");
	else
		snprintf(x->born, sizeof x->born, "%s%.3f", b->estimated ? "~" : "",
			 (double)(b->alloc_us - mem->step_start_us) / 1000.0);
	if (b->free_us == TL_US_NEVER)
		snprintf(x->dies, sizeof x->dies, "never");
	else if (b->fetched)
		snprintf(x->dies, sizeof x->dies, "fetched");
	else
		snprintf(x->dies, sizeof x->dies, "%.3f",
			 (double)(b->free_us - mem->step_start_us) / 1000.0);
}

/* One buffer as a row; rank 0 (an empty field) for a buffer listed though
 * not live at the peak (an estimated birth that could not be placed). */
static void live_row(tl_table *t, const tl_memory *mem, const tl_allocator *a, const tl_buffer *b,
		     size_t rank, struct live_text *x)
{
	tl_memreport_shape(b, x->shape);
	snprintf(x->peak, sizeof x->peak, "%" PRId64, a->peak_bytes);
	snprintf(x->peak_us, sizeof x->peak_us, "%" PRId64, a->peak_us);
	if (rank > 0)
		snprintf(x->rank, sizeof x->rank, "%zu", rank);
	else
		x->rank[0] = '\0';
	snprintf(x->allocated, sizeof x->allocated, "%" PRId64, b->allocated);
	snprintf(x->requested, sizeof x->requested, "%" PRId64, b->requested);
	us_text(x->alloc_us, sizeof x->alloc_us, b->alloc_us);
	us_text(x->free_us, sizeof x->free_us, b->free_us);
	tl_bytes_format(x->allocated_h, sizeof x->allocated_h, (double)b->allocated);
	tl_bytes_format(x->requested_h, sizeof x->requested_h, (double)b->requested);
	life_text(mem, b, x);
	const char *lc = tl_memreport_last_consumer(mem, b);
	g_string_assign(x->last, lc != NULL ? " -> " : "");
	g_string_append(x->last, lc != NULL ? lc : "");
	const char *dtype = tl_memreport_dtype(b), *op = tl_memreport_op(mem, b);
	const char *tensor = tl_memreport_tensor(mem, b);
	tl_cell c[L_N] = {
	    [L_RUN] = {.s = mem->run->label},
	    [L_ALLOCATOR] = {.s = a->name},
	    [L_PEAK] = {.s = x->peak},
	    [L_PEAK_US] = {.s = x->peak_us},
	    [L_RANK] = {.s = x->rank},
	    [L_ALLOCATED_H] = {.s = x->allocated_h},
	    [L_REQUESTED_H] = {.s = x->requested_h},
	    [L_TENSOR] = {.s = tensor},
	    [L_PRODUCER] = {.s = tl_memreport_producer(mem, b)},
	    [L_OP] = {.s = op},
	    [L_KIND] = {.s = tl_memory_kind_name(b->kind)},
	    [L_DTYPE] = {.s = dtype},
	    [L_DTYPE_T] = {.s = dtype[0] ? dtype + 3 : "-"},
	    [L_SHAPE] = {.s = x->shape->str},
	    [L_SHAPE_T] = {.s = x->shape->len ? x->shape->str : "-"},
	    [L_ALLOCATED] = {.s = x->allocated},
	    [L_REQUESTED] = {.s = x->requested},
	    [L_ALLOC_US] = {.s = x->alloc_us},
	    [L_FREE_US] = {.s = x->free_us},
	    [L_LAST] = {.s = lc != NULL ? lc : ""},
	    [L_BIRTH] = {.s = tl_memory_birth_name(b->birth)},
	    [L_BORN_T] = {.s = x->born},
	    [L_DIES_T] = {.s = x->dies},
	    [L_TENSOR_T] = {.s = tensor},
	    [L_OP_T] = {.s = op[0] ? op : "?"},
	    [L_LAST_T] = {.s = x->last->str},
	};
	tl_table_row(t, c);
}

/* The top buffers live at an allocator's peak, ranked; with `unplaced`,
 * then the unplaced births not among them (CSV). */
static void live_rows(tl_table *t, const tl_memory *mem, const tl_allocator *a, size_t top,
		      bool unplaced)
{
	struct live_text x = {.shape = g_string_new(NULL), .last = g_string_new(NULL)};
	size_t n = MIN(a->n_live, top);
	GHashTable *listed =
	    unplaced && a->n_unplaced > 0 ? g_hash_table_new(g_direct_hash, g_direct_equal) : NULL;
	for (size_t k = 0; k < n; k++) {
		live_row(t, mem, a, &mem->buffers[a->live_at_peak[k]], k + 1, &x);
		if (listed != NULL)
			g_hash_table_add(listed, GUINT_TO_POINTER(a->live_at_peak[k] + 1));
	}
	for (size_t k = 0; listed != NULL && k < a->n_buffers; k++) {
		uint32_t bi = a->buffers[k];
		if (tl_memreport_unplaced(&mem->buffers[bi]) &&
		    !g_hash_table_contains(listed, GUINT_TO_POINTER(bi + 1)))
			live_row(t, mem, a, &mem->buffers[bi], 0, &x);
	}
	if (listed != NULL)
		g_hash_table_destroy(listed);
	g_string_free(x.shape, TRUE);
	g_string_free(x.last, TRUE);
}

/* ---- CSV: one table over every run ------------------------------------ */

static void csv_begin(tl_memreport *r)
{
	tl_table_begin(&r->table, tl_table_sink_find("csv"), r->out, &live_spec, NULL, NULL, NULL,
		       NULL);
}

static void csv_run(tl_memreport *r, const tl_memory *mem)
{
	for (size_t i = 0; i < mem->n_allocators; i++)
		live_rows(&r->table, mem, &mem->allocators[i], r->opts.top, true);
}

static void csv_end(tl_memreport *r)
{
	tl_table_end(&r->table);
}

/* ---- text: per allocator its numbers, then its live buffers ------------ */

/* The births the dump does not hold: how many, and each one the samples
 * could not place. */
static void text_births(tl_output *o, const tl_memory *mem, const tl_allocator *a)
{
	if (a->n_estimated == 0)
		return;
	tl_output_printf(o, "  births not in the dump (~): %zu buffers of _Recv without stats",
			 a->n_estimated);
	if (a->n_unplaced == 0) {
		tl_output_str(o, ", all placed by allocator_bytes_in_use\n");
		return;
	}
	tl_output_printf(o, "; %zu not placed by allocator_bytes_in_use:\n", a->n_unplaced);
	char b1[32];
	for (size_t k = 0; k < a->n_buffers; k++) {
		const tl_buffer *b = &mem->buffers[a->buffers[k]];
		if (!tl_memreport_unplaced(b))
			continue;
		tl_bytes_format(b1, sizeof b1, (double)b->allocated);
		tl_output_printf(o, "    %s (%s): %s, %+.3f ms\n", tl_memreport_tensor(mem, b), b1,
				 tl_memreport_unplaced_why(b),
				 (double)(b->alloc_us - mem->step_start_us) / 1000.0);
	}
}

/* The band in one line (exact, or its widest and its time-weighted width
 * as a share of the peak, and the peak's range); then the unattributed
 * part and the samples the records alone exceed, where there are some. */
static void text_band(tl_output *o, const tl_memory *mem, const tl_allocator *a)
{
	char b1[32], b2[32], b3[32];
	int64_t widest = 0;
	double area = 0;
	int64_t end = mem->step_end_us;
	if (a->n_band > 0 && a->band[a->n_band - 1].us > end)
		end = a->band[a->n_band - 1].us;
	for (size_t p = 0; p < a->n_band; p++) {
		int64_t w = a->band[p].high - a->band[p].low;
		int64_t next = p + 1 < a->n_band ? a->band[p + 1].us : end;
		widest = w > widest ? w : widest;
		area += (double)w * (double)(next - a->band[p].us);
	}
	if (widest == 0) {
		tl_output_str(o, "  band: exact\n");
	} else {
		double span = a->n_band > 0 ? (double)(end - a->band[0].us) : 0;
		double pct = span > 0 && a->peak_bytes > 0
				 ? 100.0 * area / span / (double)a->peak_bytes
				 : 0;
		tl_bytes_format(b1, sizeof b1, (double)widest);
		tl_bytes_format(b2, sizeof b2, (double)a->peak_low);
		tl_bytes_format(b3, sizeof b3, (double)a->peak_high);
		tl_output_printf(o,
				 "  band: up to %s wide, %.2f%% of the peak time-weighted; peak "
				 "between %s and %s\n",
				 b1, pct, b2, b3);
	}
	int64_t most = 0;
	for (size_t p = 0; p < a->n_unattributed; p++)
		most = a->unattributed[p].bytes > most ? a->unattributed[p].bytes : most;
	if (most > 0) {
		tl_bytes_format(b1, sizeof b1, (double)most);
		tl_output_printf(o,
				 "  unattributed: up to %s that allocator_bytes_in_use shows and "
				 "no record explains\n",
				 b1);
	}
	if (a->n_contradictions > 0) {
		const tl_point *w = &a->contradictions[0];
		for (size_t k = 1; k < a->n_contradictions; k++)
			if (a->contradictions[k].bytes > w->bytes)
				w = &a->contradictions[k];
		tl_bytes_format(b1, sizeof b1, (double)w->bytes);
		tl_output_printf(o,
				 "  contradicted: %zu samples below what the records alone hold, "
				 "by up to %s at %+.3f ms\n",
				 a->n_contradictions, b1,
				 (double)(w->us - mem->step_start_us) / 1000.0);
	}
}

static void text_allocator(tl_memreport *r, const tl_memory *mem, const tl_allocator *a)
{
	tl_output *o = r->out;
	char b1[32], b2[32], b3[32];
	tl_bytes_format(b1, sizeof b1, (double)a->peak_bytes);
	tl_bytes_format(b2, sizeof b2, (double)a->persistent_bytes);
	const char *op = tl_memory_peak_op(mem, a);
	tl_output_printf(
	    o,
	    "\nallocator %s: peak %s (%" PRId64 " bytes; %" PRId64 " requested) at %+.3f ms%s%s\n",
	    a->name, b1, a->peak_bytes, a->peak_requested,
	    (double)(a->peak_us - mem->step_start_us) / 1000.0, op ? " in " : "", op ? op : "");
	tl_output_printf(o, "  persistent %s; %zu buffers live at the peak\n", b2, a->n_live);
	if (a->check_samples > 0) {
		tl_bytes_format(b3, sizeof b3, (double)a->check_max_abs);
		tl_output_printf(o,
				 "  check against allocator_bytes_in_use: %zu samples, max "
				 "error %s, mean %.1f bytes\n",
				 a->check_samples, b3, a->check_mean_abs);
	} else {
		tl_output_str(o, "  check: the dump records no allocator_bytes_in_use\n");
	}
	text_band(o, mem, a);
	text_births(o, mem, a);
	if (MIN(a->n_live, r->opts.top) == 0)
		return;
	char *head = g_strdup_printf("  %-4s %10s %10s  %-10s %-9s %-16s %9s %9s  %-s\n", "#",
				     "allocated", "requested", "kind", "dtype", "shape", "born ms",
				     "dies ms", "tensor (producer op) -> last consumer");
	tl_table t;
	tl_table_begin(&t, tl_table_sink_find("text"), o, &live_spec, NULL, NULL, NULL, head);
	live_rows(&t, mem, a, r->opts.top, false);
	tl_table_end(&t);
	g_free(head);
}

static void text_begin(tl_memreport *r)
{
}

static void text_run(tl_memreport *r, const tl_memory *mem)
{
	if (r->runs > 0)
		tl_output_char(r->out, '\n');
	tl_output_printf(r->out, "run %s\n", mem->run->label);
	if (mem->n_allocators == 0)
		tl_output_str(r->out, "  no memory records in this run\n");
	for (size_t i = 0; i < mem->n_allocators; i++)
		text_allocator(r, mem, &mem->allocators[i]);
}

static void text_end(tl_memreport *r)
{
	if (r->runs <= 1)
		return;
	tl_output_printf(r->out, "\nmaximum over %zu runs\n", r->runs);
	char b1[32];
	for (guint i = 0; i < r->max->len; i++) {
		const struct tl_memreport_max *m = g_ptr_array_index(r->max, i);
		tl_bytes_format(b1, sizeof b1, (double)m->peak);
		tl_output_printf(r->out, "  %-20s %10s  (%" PRId64 " bytes) in %s\n", m->allocator,
				 b1, m->peak, m->run);
	}
}

/* ---- the backends and the calls ---------------------------------------- */

static const struct tl_memreport_backend text_backend = {
    .name = "text",
    .begin = text_begin,
    .run = text_run,
    .end = text_end,
};
static const struct tl_memreport_backend csv_backend = {
    .name = "csv",
    .begin = csv_begin,
    .run = csv_run,
    .end = csv_end,
};
static const struct tl_memreport_backend *const backends[] = {
    &text_backend,
    &csv_backend,
    &tl_memreport_json,
};

const char *const tl_memreport_formats[] = {"text", "csv", "json", NULL};

void tl_memreport_begin(tl_memreport *r, tl_output *out, const tl_memreport_opts *opts)
{
	*r = (tl_memreport){.out = out, .opts = *opts, .backend = &text_backend};
	for (size_t i = 0; i < G_N_ELEMENTS(backends); i++)
		if (opts->format != NULL && strcmp(opts->format, backends[i]->name) == 0)
			r->backend = backends[i];
	r->max = g_ptr_array_new_with_free_func(max_free);
	r->max_by_name = g_hash_table_new(g_str_hash, g_str_equal);
	r->backend->begin(r);
}

void tl_memreport_run(tl_memreport *r, const tl_memory *mem)
{
	r->backend->run(r, mem);
	for (size_t i = 0; i < mem->n_allocators; i++)
		note_max(r, mem, &mem->allocators[i]);
	r->runs++;
}

void tl_memreport_end(tl_memreport *r)
{
	r->backend->end(r);
	g_hash_table_destroy(r->max_by_name);
	g_ptr_array_free(r->max, TRUE);
}
