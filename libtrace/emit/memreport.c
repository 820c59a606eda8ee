#include "emit/memreport_internal.h"

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

const char *tl_memreport_name(const tl_memview_block *b, char *buf, size_t size)
{
	if (b->buffer != NULL)
		return b->name;
	/* an input that records tensors (timeline.py's objects) names them; its
	 * addresses are the objects' ordinals */
	if (b->event->what != NULL && b->op != NULL)
		return b->op;
	snprintf(buf, size, "0x%" PRIx64, b->addr);
	return buf;
}

void tl_memreport_us(char *buf, size_t size, int64_t ns)
{
	if (ns == TL_MEMVIEW_BEFORE || ns == TL_MEMVIEW_NEVER) {
		buf[0] = '\0';
		return;
	}
	uint64_t mag = ns < 0 ? (uint64_t)0 - (uint64_t)ns : (uint64_t)ns;
	unsigned frac = (unsigned)(mag % 1000);
	int n = snprintf(buf, size, "%s%" PRIu64, ns < 0 ? "-" : "", mag / 1000);
	if (frac == 0 || n < 0 || (size_t)n + 5 > size)
		return;
	snprintf(buf + n, size - (size_t)n, ".%03u", frac);
	for (size_t k = strlen(buf); buf[k - 1] == '0'; k--)
		buf[k - 1] = '\0';
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

static void note_max(tl_memreport *r, const tl_memview *v, const tl_memview_allocator *a)
{
	struct tl_memreport_max *m = g_hash_table_lookup(r->max_by_name, a->name);
	if (m != NULL) {
		if (a->peak_bytes > m->peak) {
			m->peak = a->peak_bytes;
			g_free(m->run);
			m->run = g_strdup(v->label);
		}
		return;
	}
	m = g_new0(struct tl_memreport_max, 1);
	m->allocator = g_strdup(a->name);
	m->peak = a->peak_bytes;
	m->run = g_strdup(v->label);
	g_ptr_array_add(r->max, m);
	g_hash_table_insert(r->max_by_name, m->allocator, m);
}

/* ---- the live blocks: a table row each (text and CSV) ---------------- */

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
	char peak[24], peak_us[32], rank[24], allocated[24], requested[24], alloc_us[32],
	    free_us[32], allocated_h[32], requested_h[32], born[32], dies[32], addr[24];
	GString *shape, *last;
	tl_memview_block b;
};

/* ms from the origin, as the text report gives times. */
static double ms_of(const tl_memview *v, int64_t ns)
{
	return tl_memview_us(ns - v->origin_ns) / 1000.0;
}

/* When it was born and dies, in ms from the origin, for text. */
static void life_text(const tl_memview *v, const tl_memview_block *b, struct live_text *x)
{
	if (b->alloc_ns == TL_MEMVIEW_BEFORE)
		snprintf(x->born, sizeof x->born, "before");
	else
		snprintf(x->born, sizeof x->born, "%s%.3f", b->estimated ? "~" : "",
			 ms_of(v, b->alloc_ns));
	if (b->free_ns == TL_MEMVIEW_NEVER)
		snprintf(x->dies, sizeof x->dies, "never");
	else if (b->buffer != NULL && b->buffer->fetched)
		snprintf(x->dies, sizeof x->dies, "fetched");
	else
		snprintf(x->dies, sizeof x->dies, "%.3f", ms_of(v, b->free_ns));
}

/* One block as a row; rank 0 (an empty field) for a buffer listed though
 * not live at the peak (an estimated birth that could not be placed). */
static void live_row(tl_table *t, const tl_memview *v, const tl_memview_allocator *a, size_t bi,
		     size_t rank, struct live_text *x)
{
	tl_memview_block *b = &x->b;
	tl_memview_block_get(v, bi, b);
	g_string_truncate(x->shape, 0);
	if (b->buffer != NULL)
		tl_memreport_shape(b->buffer, x->shape);
	else if (b->event->what != NULL)
		g_string_append(x->shape, b->event->what);
	snprintf(x->peak, sizeof x->peak, "%" PRId64, a->peak_bytes);
	tl_memreport_us(x->peak_us, sizeof x->peak_us, a->peak_ns);
	if (rank > 0)
		snprintf(x->rank, sizeof x->rank, "%zu", rank);
	else
		x->rank[0] = '\0';
	snprintf(x->allocated, sizeof x->allocated, "%" PRId64, b->bytes);
	if (b->requested >= 0)
		snprintf(x->requested, sizeof x->requested, "%" PRId64, b->requested);
	else
		x->requested[0] = '\0';
	tl_memreport_us(x->alloc_us, sizeof x->alloc_us, b->alloc_ns);
	tl_memreport_us(x->free_us, sizeof x->free_us, b->free_ns);
	tl_bytes_format(x->allocated_h, sizeof x->allocated_h, (double)b->bytes);
	if (b->requested >= 0)
		tl_bytes_format(x->requested_h, sizeof x->requested_h, (double)b->requested);
	else
		snprintf(x->requested_h, sizeof x->requested_h, "-");
	life_text(v, b, x);
	const char *lc = b->free_op;
	g_string_assign(x->last, lc != NULL ? " -> " : "");
	g_string_append(x->last, lc != NULL ? lc : "");
	const char *dtype = b->buffer != NULL ? tl_memreport_dtype(b->buffer) : "";
	const char *op = b->op_type != NULL ? b->op_type : "";
	const char *tensor = tl_memreport_name(b, x->addr, sizeof x->addr);
	const char *birth = b->buffer != NULL ? tl_memory_birth_name(b->buffer->birth) : "recorded";
	tl_cell c[L_N] = {
	    [L_RUN] = {.s = v->label},
	    [L_ALLOCATOR] = {.s = a->name},
	    [L_PEAK] = {.s = x->peak},
	    [L_PEAK_US] = {.s = x->peak_us},
	    [L_RANK] = {.s = x->rank},
	    [L_ALLOCATED_H] = {.s = x->allocated_h},
	    [L_REQUESTED_H] = {.s = x->requested_h},
	    [L_TENSOR] = {.s = tensor},
	    [L_PRODUCER] = {.s = b->op != NULL ? b->op : ""},
	    [L_OP] = {.s = op},
	    [L_KIND] = {.s = b->kind},
	    [L_DTYPE] = {.s = dtype},
	    [L_DTYPE_T] = {.s = dtype[0] ? dtype + 3 : "-"},
	    [L_SHAPE] = {.s = x->shape->str},
	    [L_SHAPE_T] = {.s = x->shape->len ? x->shape->str : "-"},
	    [L_ALLOCATED] = {.s = x->allocated},
	    [L_REQUESTED] = {.s = x->requested},
	    [L_ALLOC_US] = {.s = x->alloc_us},
	    [L_FREE_US] = {.s = x->free_us},
	    [L_LAST] = {.s = lc != NULL ? lc : ""},
	    [L_BIRTH] = {.s = birth},
	    [L_BORN_T] = {.s = x->born},
	    [L_DIES_T] = {.s = x->dies},
	    [L_TENSOR_T] = {.s = tensor},
	    [L_OP_T] = {.s = op[0] ? op : "?"},
	    [L_LAST_T] = {.s = x->last->str},
	};
	tl_table_row(t, c);
}

static bool block_unplaced(const tl_memview *v, size_t bi)
{
	return v->mem != NULL && tl_memreport_unplaced(&v->mem->buffers[bi]);
}

/* The top blocks live at an allocator's peak, ranked; with `unplaced`,
 * then the unplaced births not among them (CSV). */
static void live_rows(tl_table *t, const tl_memview *v, const tl_memview_allocator *a, size_t top,
		      bool unplaced)
{
	struct live_text x = {.shape = g_string_new(NULL), .last = g_string_new(NULL)};
	size_t n = MIN(a->n_live, top);
	GHashTable *listed =
	    unplaced && a->n_unplaced > 0 ? g_hash_table_new(g_direct_hash, g_direct_equal) : NULL;
	for (size_t k = 0; k < n; k++) {
		live_row(t, v, a, a->live[k], k + 1, &x);
		if (listed != NULL)
			g_hash_table_add(listed, GSIZE_TO_POINTER(a->live[k] + 1));
	}
	for (size_t k = 0; listed != NULL && k < a->n_blocks; k++) {
		size_t bi = a->blocks[k];
		if (block_unplaced(v, bi) && !g_hash_table_contains(listed, GSIZE_TO_POINTER(bi + 1)))
			live_row(t, v, a, bi, 0, &x);
	}
	if (listed != NULL)
		g_hash_table_destroy(listed);
	g_string_free(x.shape, TRUE);
	g_string_free(x.last, TRUE);
}

/* ---- CSV: one table over every run ------------------------------------ */

enum { B_RUN, B_ALLOCATOR, B_T, B_LOW, B_CURVE, B_HIGH, B_N };
static const tl_table_col band_cols[B_N] = {
    [B_RUN] = {"run", NULL, TL_CELL_STR, NULL, NULL},
    [B_ALLOCATOR] = {"allocator", NULL, TL_CELL_STR, NULL, NULL},
    [B_T] = {"t_us", NULL, TL_CELL_STR, NULL, NULL},
    [B_LOW] = {"low", NULL, TL_CELL_STR, NULL, NULL},
    [B_CURVE] = {"curve", NULL, TL_CELL_STR, NULL, NULL},
    [B_HIGH] = {"high", NULL, TL_CELL_STR, NULL, NULL},
};
static const tl_table_spec band_spec = {band_cols, B_N, NULL};

static void csv_begin(tl_memreport *r)
{
	tl_table_begin(&r->table, tl_table_sink_find("csv"), r->out,
		       r->opts.curve ? &band_spec : &live_spec, NULL, NULL, NULL, NULL);
}

/* The curve's value at t_ns: its last point at or before it (the first
 * point where none is: the band starts where the curve does); *hint, 0 at
 * first, walks on from the last query. */
static int64_t curve_at(const tl_memview *v, const tl_memview_allocator *a, int64_t t_ns,
			size_t *hint)
{
	if (a->n_curve == 0)
		return 0;
	while (*hint + 1 < a->n_curve && tl_memview_curve(v, a, *hint + 1).t_ns <= t_ns)
		(*hint)++;
	return tl_memview_curve(v, a, *hint).bytes;
}

/* --curve: a row per band point, the curve beside. */
static void csv_band(tl_memreport *r, const tl_memview *v, const tl_memview_allocator *a)
{
	char t[32], lo[24], mid[24], hi[24];
	size_t hint = 0;
	for (size_t k = 0; k < a->n_band; k++) {
		tl_memview_band_point p = tl_memview_band(v, a, k);
		tl_memreport_us(t, sizeof t, p.t_ns);
		snprintf(lo, sizeof lo, "%" PRId64, p.low);
		snprintf(mid, sizeof mid, "%" PRId64, curve_at(v, a, p.t_ns, &hint));
		snprintf(hi, sizeof hi, "%" PRId64, p.high);
		tl_cell c[B_N] = {
		    [B_RUN] = {.s = v->label}, [B_ALLOCATOR] = {.s = a->name}, [B_T] = {.s = t},
		    [B_LOW] = {.s = lo},       [B_CURVE] = {.s = mid},	    [B_HIGH] = {.s = hi},
		};
		tl_table_row(&r->table, c);
	}
}

static void csv_run(tl_memreport *r, const tl_memview *v)
{
	for (size_t i = 0; i < v->n_allocators; i++)
		if (r->opts.curve)
			csv_band(r, v, &v->allocators[i]);
		else
			live_rows(&r->table, v, &v->allocators[i], r->opts.top, true);
}

static void csv_end(tl_memreport *r)
{
	tl_table_end(&r->table);
}

/* ---- text: per allocator its numbers, then its live buffers ------------ */

/* The births the dump does not hold: how many, and each one the samples
 * could not place. */
static void text_births(tl_output *o, const tl_memview *v, const tl_memview_allocator *a)
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
	tl_memview_block b;
	for (size_t k = 0; k < a->n_blocks; k++) {
		if (!block_unplaced(v, a->blocks[k]))
			continue;
		tl_memview_block_get(v, a->blocks[k], &b);
		tl_bytes_format(b1, sizeof b1, (double)b.bytes);
		tl_output_printf(o, "    %s (%s): %s, %+.3f ms\n", b.name, b1,
				 tl_memreport_unplaced_why(b.buffer), ms_of(v, b.alloc_ns));
	}
}

/* The band in one line: "exact" where it has no width, else its widest,
 * its time-weighted width over the step as a share of the peak, and the
 * peak's range; then the unattributed part and the samples the records
 * alone exceed, where there are some. */
static void text_band(tl_output *o, const tl_memview *v, const tl_memview_allocator *a)
{
	char b1[32], b2[32], b3[32];
	int64_t widest = 0;
	double area = 0;
	int64_t first = a->n_band > 0 ? tl_memview_band(v, a, 0).t_ns : v->start_ns;
	int64_t end = v->end_ns;
	for (size_t k = 0; k < a->n_band; k++) {
		tl_memview_band_point p = tl_memview_band(v, a, k);
		int64_t next = k + 1 < a->n_band ? tl_memview_band(v, a, k + 1).t_ns : end;
		int64_t w = p.high - p.low;
		widest = w > widest ? w : widest;
		if (next > p.t_ns)
			area += (double)(next - p.t_ns) * (double)w;
		end = p.t_ns > end ? p.t_ns : end;
	}
	if (widest == 0 && a->peak_low == a->peak_high) {
		tl_output_str(o, "  band: exact\n");
	} else {
		double span = (double)(end - first);
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
	for (size_t k = 0; k < a->n_unattributed; k++)
		most = a->unattributed[k].bytes > most ? a->unattributed[k].bytes : most;
	if (most > 0) {
		tl_bytes_format(b1, sizeof b1, (double)most);
		tl_output_printf(o,
				 "  unattributed: up to %s that allocator_bytes_in_use shows and "
				 "no record explains\n",
				 b1);
	}
	if (a->n_contradictions > 0) {
		const tl_memview_unattributed *w = &a->contradictions[0];
		for (size_t k = 1; k < a->n_contradictions; k++)
			if (a->contradictions[k].bytes > w->bytes)
				w = &a->contradictions[k];
		tl_bytes_format(b1, sizeof b1, (double)w->bytes);
		tl_output_printf(o,
				 "  contradicted: %zu samples below what the records alone hold, "
				 "by up to %s at %+.3f ms\n",
				 a->n_contradictions, b1, ms_of(v, w->t_ns));
	}
}

/* The unattributed part of the curve at t: the step in effect then. */
static int64_t unattributed_at(const tl_memview_allocator *a, int64_t t_ns)
{
	int64_t x = 0;
	for (size_t k = 0; k < a->n_unattributed && a->unattributed[k].t_ns <= t_ns; k++)
		x = a->unattributed[k].bytes;
	return x;
}

/* The allocator's heading: its peak (and how much of it no record
 * explains, where the samples show some), and for allocator events where
 * the peak comes from. */
static void text_peak(tl_output *o, const tl_memview *v, const tl_memview_allocator *a)
{
	char b1[32];
	tl_bytes_format(b1, sizeof b1, (double)a->peak_bytes);
	tl_output_printf(o, "\nallocator %s", a->name);
	if (v->source == TL_MEMVIEW_EVENTS)
		tl_output_printf(o, " (%s)", a->device);
	tl_output_printf(o, ": peak %s (%" PRId64 " bytes", b1, a->peak_bytes);
	if (a->peak_requested >= 0)
		tl_output_printf(o, "; %" PRId64 " requested", a->peak_requested);
	int64_t x = unattributed_at(a, a->peak_ns);
	if (x > 0) {
		tl_bytes_format(b1, sizeof b1, (double)x);
		tl_output_printf(o, "; %s of it unattributed", b1);
	}
	if (v->source == TL_MEMVIEW_EVENTS)
		tl_output_str(o, a->peak_from_totals
				     ? ", the largest Total Allocated"
				     : ", the running sum of Bytes from the trace's start");
	tl_output_printf(o, ") at %+.3f ms%s%s\n", ms_of(v, a->peak_ns), a->peak_op ? " in " : "",
			 a->peak_op ? a->peak_op : "");
}

/* What the allocator held besides its blocks, and the check. */
static void text_held(tl_output *o, const tl_memview *v, const tl_memview_allocator *a)
{
	char b1[32], b2[32];
	tl_bytes_format(b2, sizeof b2, (double)a->baseline_bytes);
	if (v->source == TL_MEMVIEW_BUFFERS) {
		tl_output_printf(o, "  persistent %s; %zu buffers live at the peak\n", b2,
				 a->n_live);
	} else {
		tl_bytes_format(b1, sizeof b1, (double)a->live_bytes);
		tl_output_printf(o,
				 "  before the first event %s; %zu events, %zu blocks; %zu live "
				 "at the peak (%s), ",
				 b2, a->n_events, a->n_blocks, a->n_live, b1);
		tl_bytes_format(b1, sizeof b1, (double)a->unheld_bytes);
		tl_output_printf(o, "%s held from before the trace or by events without an "
				    "address\n",
				 b1);
		if (a->peak_reserved >= 0) {
			tl_bytes_format(b1, sizeof b1, (double)a->peak_reserved);
			tl_output_printf(o, "  reserved at most %s\n", b1);
		}
		if (a->n_before > 0)
			tl_output_printf(o,
					 "  allocated before the trace started (and freed in it): "
					 "%zu\n",
					 a->n_before);
	}
	const char *what = v->source == TL_MEMVIEW_BUFFERS ? "allocator_bytes_in_use"
							   : "Total Allocated";
	if (a->check_samples > 0) {
		tl_bytes_format(b1, sizeof b1, (double)a->check_max_abs);
		tl_output_printf(o,
				 "  check against %s: %zu samples, max "
				 "error %s, mean %.1f bytes\n",
				 what, a->check_samples, b1, a->check_mean_abs);
	} else {
		tl_output_printf(o, "  check: the %s no %s\n",
				 v->source == TL_MEMVIEW_BUFFERS ? "dump records" : "events carry",
				 what);
	}
}

static void text_allocator(tl_memreport *r, const tl_memview *v, const tl_memview_allocator *a)
{
	tl_output *o = r->out;
	text_peak(o, v, a);
	text_held(o, v, a);
	text_band(o, v, a);
	text_births(o, v, a);
	if (MIN(a->n_live, r->opts.top) == 0)
		return;
	char *head = g_strdup_printf("  %-4s %10s %10s  %-10s %-9s %-16s %9s %9s  %-s\n", "#",
				     "allocated", "requested", "kind", "dtype", "shape", "born ms",
				     "dies ms", "tensor (producer op) -> last consumer");
	tl_table t;
	tl_table_begin(&t, tl_table_sink_find("text"), o, &live_spec, NULL, NULL, NULL, head);
	live_rows(&t, v, a, r->opts.top, false);
	tl_table_end(&t);
	g_free(head);
}

static void text_begin(tl_memreport *r)
{
}

static void text_run(tl_memreport *r, const tl_memview *v)
{
	if (r->runs > 0)
		tl_output_char(r->out, '\n');
	tl_output_printf(r->out, "run %s", v->label);
	if (v->source == TL_MEMVIEW_EVENTS)
		tl_output_printf(r->out, " (allocation events; times in ms from the %s)", v->clock);
	tl_output_char(r->out, '\n');
	if (v->n_allocators == 0)
		tl_output_str(r->out, "  no memory records in this run\n");
	for (size_t i = 0; i < v->n_allocators; i++)
		text_allocator(r, v, &v->allocators[i]);
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

void tl_memreport_run(tl_memreport *r, const tl_memview *v)
{
	r->backend->run(r, v);
	for (size_t i = 0; i < v->n_allocators; i++)
		note_max(r, v, &v->allocators[i]);
	r->runs++;
}

void tl_memreport_abort(tl_memreport *r)
{
	if (r->max == NULL)
		return;
	g_hash_table_destroy(r->max_by_name);
	g_ptr_array_free(r->max, TRUE);
	r->max_by_name = NULL;
	r->max = NULL;
}

void tl_memreport_end(tl_memreport *r)
{
	r->backend->end(r);
	tl_memreport_abort(r);
}
