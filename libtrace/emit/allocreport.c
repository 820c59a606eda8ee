#include "emit/allocreport.h"

#include "base/bytes.h"
#include "emit/json.h"

#include <inttypes.h>
#include <stdio.h>
#include <string.h>

/* The largest peak of an allocator over the inputs so far. */
struct peak_max {
	char *allocator;
	int64_t peak;
	char *run;
};

static void max_free(gpointer p)
{
	struct peak_max *m = p;
	g_free(m->allocator);
	g_free(m->run);
	g_free(m);
}

static void note_max(tl_allocreport *r, const tl_allocs *a, const tl_allocs_allocator *al)
{
	for (guint i = 0; i < r->max->len; i++) {
		struct peak_max *m = g_ptr_array_index(r->max, i);
		if (strcmp(m->allocator, al->name) != 0)
			continue;
		if (al->peak_bytes > m->peak) {
			m->peak = al->peak_bytes;
			g_free(m->run);
			m->run = g_strdup(a->label);
		}
		return;
	}
	struct peak_max *m = g_new0(struct peak_max, 1);
	m->allocator = g_strdup(al->name);
	m->peak = al->peak_bytes;
	m->run = g_strdup(a->label);
	g_ptr_array_add(r->max, m);
}

static const char *peak_from(const tl_allocs_allocator *al)
{
	return al->peak_from_totals ? "the largest Total Allocated"
				    : "the running sum of Bytes from the trace's start";
}

/* ms from the clock, or "before" / "never". */
static void ms_text(char *buf, size_t size, int64_t ns)
{
	if (ns == TL_ALLOCS_BEFORE)
		snprintf(buf, size, "before");
	else if (ns == TL_ALLOCS_NEVER)
		snprintf(buf, size, "never");
	else
		snprintf(buf, size, "%.3f", (double)ns / 1e6);
}

/* ---- text ---------------------------------------------------------------- */

static void text_live(tl_allocreport *r, const tl_allocs *a, const tl_allocs_allocator *al)
{
	tl_output *o = r->out;
	size_t n = MIN(al->n_live, r->top);
	if (n == 0)
		return;
	tl_output_printf(o, "  %-4s %10s %12s %12s  %-18s %s\n", "#", "allocated", "born ms",
			 "freed ms", "addr", "op");
	char size[32], born[32], dies[32];
	for (size_t k = 0; k < n; k++) {
		const tl_alloc_block *b = &a->blocks[al->live[k]];
		tl_bytes_format(size, sizeof size, (double)b->bytes);
		ms_text(born, sizeof born, b->alloc_ns);
		ms_text(dies, sizeof dies, b->free_ns);
		tl_output_printf(o, "  %-4zu %10s %12s %12s  0x%-16" PRIx64 " ", k + 1, size, born,
				 dies, b->addr);
		if (b->op != NULL)
			tl_output_printf(o, "%s\n", b->op);
		else if (b->alloc_ns == TL_ALLOCS_BEFORE && b->free_op != NULL)
			tl_output_printf(o, "? (freed in %s)\n", b->free_op);
		else
			tl_output_str(o, "?\n");
	}
	if (al->n_live > n)
		tl_output_printf(o, "  ... %zu more (--top 0 lists all)\n", al->n_live - n);
}

static void text_allocator(tl_allocreport *r, const tl_allocs *a, const tl_allocs_allocator *al)
{
	tl_output *o = r->out;
	char b1[32], b2[32], b3[32];
	tl_bytes_format(b1, sizeof b1, (double)al->peak_bytes);
	tl_output_printf(o, "\nallocator %s (%s): peak %s (%" PRId64 " bytes, %s) at %.3f ms%s%s\n",
			 al->name, al->device, b1, al->peak_bytes, peak_from(al),
			 (double)al->peak_ns / 1e6, al->peak_op ? " in " : "",
			 al->peak_op ? al->peak_op : "");
	tl_bytes_format(b1, sizeof b1, (double)al->live_bytes);
	tl_bytes_format(b2, sizeof b2, (double)al->unattributed_bytes);
	tl_output_printf(o,
			 "  %zu events, %zu allocations; %zu live at the peak (%s), %s held "
			 "from before the trace or by events without an address\n",
			 al->n_events, al->n_blocks, al->n_live, b1, b2);
	if (al->peak_reserved >= 0) {
		tl_bytes_format(b3, sizeof b3, (double)al->peak_reserved);
		tl_output_printf(o, "  reserved at most %s\n", b3);
	}
	if (al->n_before > 0)
		tl_output_printf(o, "  allocated before the trace started (and freed in it): %zu\n",
				 al->n_before);
	if (al->check_samples > 0) {
		tl_bytes_format(b3, sizeof b3, (double)al->check_max_abs);
		tl_output_printf(o,
				 "  check of the running sum against Total Allocated: %zu "
				 "samples, max error %s, mean %.1f bytes\n",
				 al->check_samples, b3, al->check_mean_abs);
	} else {
		tl_output_str(o, "  check: the events record no Total Allocated\n");
	}
	text_live(r, a, al);
}

static void text_run(tl_allocreport *r, const tl_allocs *a)
{
	if (r->runs > 0)
		tl_output_char(r->out, '\n');
	tl_output_printf(r->out, "run %s (allocation events; times in ms from the %s)\n", a->label,
			 a->clock);
	for (size_t i = 0; i < a->n_allocators; i++)
		text_allocator(r, a, &a->allocators[i]);
}

static void text_end(tl_allocreport *r)
{
	if (r->runs <= 1)
		return;
	tl_output_printf(r->out, "\nmaximum over %zu runs\n", r->runs);
	char b1[32];
	for (guint i = 0; i < r->max->len; i++) {
		const struct peak_max *m = g_ptr_array_index(r->max, i);
		tl_bytes_format(b1, sizeof b1, (double)m->peak);
		tl_output_printf(r->out, "  %-20s %10s  (%" PRId64 " bytes) in %s\n", m->allocator,
				 b1, m->peak, m->run);
	}
}

/* ---- CSV: one row per live block -------------------------------------- */

enum {
	C_RUN,
	C_ALLOC,
	C_DEVICE,
	C_PEAK,
	C_FROM,
	C_PEAK_US,
	C_RANK,
	C_BYTES,
	C_OP,
	C_ADDR,
	C_ALLOC_US,
	C_FREE_US,
	C_N
};
static const tl_table_col csv_cols[C_N] = {
    [C_RUN] = {"run", NULL, TL_CELL_STR, NULL, NULL},
    [C_ALLOC] = {"allocator", NULL, TL_CELL_STR, NULL, NULL},
    [C_DEVICE] = {"device", NULL, TL_CELL_STR, NULL, NULL},
    [C_PEAK] = {"peak_bytes", NULL, TL_CELL_STR, NULL, NULL},
    [C_FROM] = {"peak_from", NULL, TL_CELL_STR, NULL, NULL},
    [C_PEAK_US] = {"peak_us", NULL, TL_CELL_STR, NULL, NULL},
    [C_RANK] = {"rank", NULL, TL_CELL_STR, NULL, NULL},
    [C_BYTES] = {"allocated_bytes", NULL, TL_CELL_STR, NULL, NULL},
    [C_OP] = {"op", NULL, TL_CELL_STR, NULL, NULL},
    [C_ADDR] = {"addr", NULL, TL_CELL_STR, NULL, NULL},
    [C_ALLOC_US] = {"alloc_us", NULL, TL_CELL_STR, NULL, NULL},
    [C_FREE_US] = {"free_us", NULL, TL_CELL_STR, NULL, NULL},
};
static const tl_table_spec csv_spec = {csv_cols, C_N, NULL};

/* Microseconds with three decimals; empty for before / never. */
static void us_text(char *buf, size_t size, int64_t ns)
{
	if (ns == TL_ALLOCS_BEFORE || ns == TL_ALLOCS_NEVER)
		buf[0] = '\0';
	else
		snprintf(buf, size, "%.3f", (double)ns / 1e3);
}

static void csv_run(tl_allocreport *r, const tl_allocs *a)
{
	char peak[24], peak_us[32], rank[24], bytes[24], addr[24], alloc_us[32], free_us[32];
	for (size_t i = 0; i < a->n_allocators; i++) {
		const tl_allocs_allocator *al = &a->allocators[i];
		snprintf(peak, sizeof peak, "%" PRId64, al->peak_bytes);
		us_text(peak_us, sizeof peak_us, al->peak_ns);
		for (size_t k = 0; k < MIN(al->n_live, r->top); k++) {
			const tl_alloc_block *b = &a->blocks[al->live[k]];
			snprintf(rank, sizeof rank, "%zu", k + 1);
			snprintf(bytes, sizeof bytes, "%" PRId64, b->bytes);
			snprintf(addr, sizeof addr, "%" PRIu64, b->addr);
			us_text(alloc_us, sizeof alloc_us, b->alloc_ns);
			us_text(free_us, sizeof free_us, b->free_ns);
			tl_cell c[C_N] = {
			    [C_RUN] = {.s = a->label},
			    [C_ALLOC] = {.s = al->name},
			    [C_DEVICE] = {.s = al->device},
			    [C_PEAK] = {.s = peak},
			    [C_FROM] = {.s = al->peak_from_totals ? "total_allocated"
								  : "running_sum"},
			    [C_PEAK_US] = {.s = peak_us},
			    [C_RANK] = {.s = rank},
			    [C_BYTES] = {.s = bytes},
			    [C_OP] = {.s = b->op != NULL ? b->op : ""},
			    [C_ADDR] = {.s = addr},
			    [C_ALLOC_US] = {.s = alloc_us},
			    [C_FREE_US] = {.s = free_us},
			};
			tl_table_row(&r->table, c);
		}
	}
}

/* ---- JSON ------------------------------------------------------------------ */

static void json_time(tl_output *o, int64_t ns)
{
	if (ns == TL_ALLOCS_BEFORE || ns == TL_ALLOCS_NEVER)
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

static void json_block(tl_output *o, const tl_alloc_block *b)
{
	tl_output_str(o, "{\"op\":");
	json_str_or_null(o, b->op);
	tl_output_str(o, ",\"addr\":");
	tl_output_uint(o, b->addr);
	tl_output_str(o, ",\"allocated_bytes\":");
	tl_output_int(o, b->bytes);
	tl_output_str(o, ",\"alloc_us\":");
	json_time(o, b->alloc_ns);
	tl_output_str(o, ",\"free_us\":");
	json_time(o, b->free_ns);
	tl_output_str(o, ",\"free_op\":");
	json_str_or_null(o, b->free_op);
	tl_output_char(o, '}');
}

static void json_allocator(tl_output *o, const tl_allocs *a, const tl_allocs_allocator *al)
{
	tl_output_str(o, "{\"allocator\":");
	tl_json_string(o, al->name);
	tl_output_str(o, ",\"device\":");
	tl_json_string(o, al->device);
	tl_output_printf(o, ",\"peak_bytes\":%" PRId64 ",\"peak_from\":\"%s\",\"peak_us\":",
			 al->peak_bytes, al->peak_from_totals ? "total_allocated" : "running_sum");
	tl_json_micros(o, al->peak_ns);
	tl_output_str(o, ",\"peak_op\":");
	json_str_or_null(o, al->peak_op);
	tl_output_str(o, ",\"peak_reserved_bytes\":");
	if (al->peak_reserved >= 0)
		tl_output_int(o, al->peak_reserved);
	else
		tl_output_str(o, "null");
	tl_output_printf(o,
			 ",\"baseline_bytes\":%" PRId64 ",\"events\":%zu,\"blocks\":%zu,"
			 "\"allocated_before_trace\":%zu,\"never_freed\":%zu,"
			 "\"live_bytes\":%" PRId64 ",\"unattributed_bytes\":%" PRId64
			 ",\"curve\":[",
			 al->baseline, al->n_events, al->n_blocks, al->n_before, al->n_never_freed,
			 al->live_bytes, al->unattributed_bytes);
	for (size_t p = 0; p < al->n_curve; p++) {
		tl_output_str(o, p ? ",[" : "[");
		tl_json_micros(o, al->curve[p].t_ns);
		tl_output_char(o, ',');
		tl_output_int(o, al->curve[p].bytes);
		tl_output_char(o, ']');
	}
	tl_output_str(o, "],\"live_at_peak\":[");
	for (size_t k = 0; k < al->n_live; k++) {
		if (k)
			tl_output_char(o, ',');
		json_block(o, &a->blocks[al->live[k]]);
	}
	tl_output_printf(o,
			 "],\"check\":{\"samples\":%zu,\"max_abs_error_bytes\":%" PRId64
			 ",\"mean_abs_error_bytes\":%.6g}}",
			 al->check_samples, al->check_max_abs, al->check_mean_abs);
}

static void json_run(tl_allocreport *r, const tl_allocs *a)
{
	tl_output *o = r->out;
	tl_output_str(o, r->runs > 0 ? ",\n{\"run\":" : "\n{\"run\":");
	tl_json_string(o, a->label);
	tl_output_str(o, ",\"source\":\"allocation events\",\"clock\":");
	tl_json_string(o, a->clock);
	tl_output_str(o, ",\"step_start_us\":");
	tl_json_micros(o, a->start_ns);
	tl_output_str(o, ",\"step_end_us\":");
	tl_json_micros(o, a->end_ns);
	tl_output_str(o, ",\"allocators\":[");
	for (size_t i = 0; i < a->n_allocators; i++) {
		tl_output_str(o, i ? ",\n" : "\n");
		json_allocator(o, a, &a->allocators[i]);
	}
	tl_output_str(o, "]}");
}

static void json_end(tl_allocreport *r)
{
	tl_output *o = r->out;
	tl_output_str(o, "],\n\"max\":[");
	for (guint i = 0; i < r->max->len; i++) {
		const struct peak_max *m = g_ptr_array_index(r->max, i);
		tl_output_str(o, i ? ",{\"allocator\":" : "{\"allocator\":");
		tl_json_string(o, m->allocator);
		tl_output_printf(o, ",\"peak_bytes\":%" PRId64 ",\"run\":", m->peak);
		tl_json_string(o, m->run);
		tl_output_char(o, '}');
	}
	tl_output_str(o, "]}\n");
}

/* ---- the calls -------------------------------------------------------------- */

static bool is(const tl_allocreport *r, const char *name)
{
	return r->format != NULL && strcmp(r->format, name) == 0;
}

void tl_allocreport_begin(tl_allocreport *r, tl_output *out, const char *format, size_t top)
{
	*r = (tl_allocreport){.out = out, .format = format, .top = top};
	r->max = g_ptr_array_new_with_free_func(max_free);
	if (is(r, "csv"))
		tl_table_begin(&r->table, tl_table_sink_find("csv"), out, &csv_spec, NULL, NULL,
			       NULL, NULL);
	else if (is(r, "json"))
		tl_output_str(out, "{\"runs\":[");
}

void tl_allocreport_run(tl_allocreport *r, const tl_allocs *a)
{
	if (is(r, "csv"))
		csv_run(r, a);
	else if (is(r, "json"))
		json_run(r, a);
	else
		text_run(r, a);
	for (size_t i = 0; i < a->n_allocators; i++)
		note_max(r, a, &a->allocators[i]);
	r->runs++;
}

void tl_allocreport_end(tl_allocreport *r)
{
	if (is(r, "csv"))
		tl_table_end(&r->table);
	else if (is(r, "json"))
		json_end(r);
	else
		text_end(r);
	g_ptr_array_free(r->max, TRUE);
}
