#include "analysis/summary.h"

#include "analysis/summary_internal.h"

#include <jansson.h>
#include <string.h>

/* A partial is JSON lines: a header ({"tftrace_partial":1, "view", the
 * runs' labels, what the inputs held}), then a row per line with its
 * values per run (emit/summary.c writes it). */
int tl_summary_read_partial(tl_summary *s, const uint8_t *data, size_t len, tl_error *err)
{
	const char *p = (const char *)data, *end = p + len;
	size_t line = 0, base = s->n_runs, n_runs = 0;
	while (p < end) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		size_t n = nl ? (size_t)(nl - p) : (size_t)(end - p);
		line++;
		json_error_t jerr;
		json_t *o = json_loadb(p, n, 0, &jerr);
		p += n + (nl != NULL);
		if (o == NULL)
			return tl_error_set(err, "line %zu: not a partial aggregate (%s)", line,
					    jerr.text);
		/* A header starts each partial; partials concatenated (as from
		 * `parallel ... | trace-summarize --combine`) add their runs after
		 * those read so far. */
		if (line == 1 || json_object_get(o, "tftrace_partial") != NULL) {
			base = s->n_runs;
			const char *view = json_string_value(json_object_get(o, "view"));
			if (json_integer_value(json_object_get(o, "tftrace_partial")) != 1 ||
			    view == NULL) {
				json_decref(o);
				return tl_error_set(err, "line %zu: not a trace-summarize partial",
						    line);
			}
			if (strcmp(view, tl_summary_view_name(s->view)) != 0) {
				char *msg = g_strdup(view);
				json_decref(o);
				tl_error_set(err,
					     "partial of --view=%s, not %s (--combine takes partials "
					     "of the --view it is given)",
					     msg, tl_summary_view_name(s->view));
				g_free(msg);
				return -1;
			}
			json_t *labels = json_object_get(o, "runs");
			n_runs = json_array_size(labels);
			for (size_t i = 0; i < n_runs; i++)
				g_ptr_array_add(s->run_labels, g_strdup(json_string_value(
								   json_array_get(labels, i))));
			s->have_graph |= json_is_true(json_object_get(o, "graph"));
			s->have_memory |= json_is_true(json_object_get(o, "memory"));
			s->from_chrome |= json_is_true(json_object_get(o, "chrome"));
			s->nested |= json_is_true(json_object_get(o, "nested"));
			s->have_device |= json_is_true(json_object_get(o, "device"));
			s->n_runs += n_runs;
			json_decref(o);
			continue;
		}
		const char *name = json_string_value(json_object_get(o, "name"));
		json_t *runs = json_object_get(o, "v");
		if (name == NULL || !json_is_array(runs) || json_array_size(runs) != n_runs) {
			json_decref(o);
			return tl_error_set(err, "line %zu: malformed row", line);
		}
		tl_row *r = tl_summary_row_get(s, name);
		json_int_t def = json_integer_value(json_object_get(o, "defined"));
		if (def > r->defined)
			r->defined = def; /* one graph, defined once however many runs */
		const char *shape = json_string_value(json_object_get(o, "shape"));
		if (shape != NULL && r->shape == NULL)
			r->shape = g_strdup(shape);
		const char *extra = json_string_value(json_object_get(o, "extra"));
		if (extra != NULL && r->extra == NULL)
			r->extra = tl_summary_arena_dup(s, extra);
		for (size_t k = 0; k < n_runs; k++) {
			json_t *vs = json_array_get(runs, k);
			tl_summary_vals *dst = tl_summary_row_run(r, base + k);
			for (int c = 0; c < TL_N_COLS; c++)
				dst->v[c] = json_number_value(json_array_get(vs, (size_t)c));
		}
		json_decref(o);
	}
	if (line == 0)
		return tl_error_set(err, "empty input");
	return 0;
}
