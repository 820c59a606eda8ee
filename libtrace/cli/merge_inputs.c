#include "cli/merge_inputs.h"

#include "cli/cli.h"

#include "emit/runmeta.h"
#include "io/source.h"

#include <stdlib.h>
#include <string.h>

const char *const tl_merge_order_names[] = {"given", "name", "time", NULL};

struct input {
	const char *path;
	double start_us;
	size_t given;
};

static int cmp_name(const void *a, const void *b)
{
	const struct input *x = a, *y = b;
	int c = strcmp(x->path, y->path);
	return c != 0 ? c : (x->given < y->given ? -1 : 1);
}

static int cmp_time(const void *a, const void *b)
{
	const struct input *x = a, *y = b;
	if (x->start_us != y->start_us)
		return x->start_us < y->start_us ? -1 : 1;
	return x->given < y->given ? -1 : 1;
}

/* When an input starts: its first run, or its earliest event. */
static int input_start(struct input *in, tl_format format, tl_error *err)
{
	tl_source *src = NULL;
	if (tl_source_open(&src, in->path, format, err) < 0)
		return -1;
	int rc = 0;
	in->start_us = 0;
	if (tl_source_format(src) == TL_FORMAT_CHROME) {
		const uint8_t *data;
		size_t len;
		rc = tl_source_map(src, &data, &len, err);
		if (rc == 0)
			tl_merge_first_ts(data, len, &in->start_us);
	} else {
		tl_run *run = NULL;
		rc = tl_run_next(src, &run, err);
		if (rc > 0) {
			in->start_us = (double)run->t_begin / 1000.0;
			tl_run_free(run);
		}
	}
	tl_source_close(src);
	return rc < 0 ? -1 : 0;
}

int tl_merge_inputs_order(const char **paths, size_t n, const tl_merge_inputs_opts *o,
			  const char **bad, tl_error *err)
{
	if (o->order == TL_MERGE_GIVEN)
		return 0;
	struct input *inputs = g_new(struct input, n ? n : 1);
	int rc = 0;
	for (size_t i = 0; i < n; i++)
		inputs[i] = (struct input){.path = paths[i], .given = i};
	for (size_t i = 0; i < n && rc == 0 && o->order == TL_MERGE_TIME; i++)
		if (input_start(&inputs[i], o->format, err) < 0) {
			*bad = inputs[i].path;
			rc = -1;
		}
	if (rc == 0) {
		qsort(inputs, n, sizeof *inputs, o->order == TL_MERGE_NAME ? cmp_name : cmp_time);
		for (size_t i = 0; i < n; i++)
			paths[i] = inputs[i].path;
	}
	g_free(inputs);
	return rc;
}

static int64_t offset_of(const tl_merge_inputs_opts *o, const char *path)
{
	int64_t *ns = o->offsets != NULL ? g_hash_table_lookup(o->offsets, path) : NULL;
	return ns != NULL ? *ns : 0;
}

struct merge_each {
	const tl_merge_inputs_opts *o;
	tl_merge *m;
	tl_output *out;
	const char *path;
};

/* One run into the merge, and what it wrote out now (a pipeline's next
 * tool sees it while the inputs are read). */
static int merge_one(tl_run **run, void *ctx, tl_error *err)
{
	const struct merge_each *e = ctx;
	tl_merge_run(e->m, *run, e->path, offset_of(e->o, e->path));
	tl_output_flush(e->out);
	return 0;
}

/* The runs of one input into the merge, by the one loop over a source's
 * runs: an input that records no timeline (a GraphDef) is refused before
 * anything of it is written. */
static int merge_runs(const tl_merge_inputs_opts *o, tl_merge *m, tl_output *out, tl_source *src,
		      const char *path, tl_error *err)
{
	struct merge_each e = {o, m, out, path};
	return tl_cli_source_runs(o->cli, src, NULL, o->progress, merge_one, &e, err);
}

/* One input into the merge (or the RunMetadata stream). */
static int merge_input(const tl_merge_inputs_opts *o, tl_merge *m, tl_output *out, const char *path,
		       tl_error *err)
{
	tl_source *src = NULL;
	if (tl_source_open(&src, path, o->format, err) < 0)
		return -1;
	int rc = 0;
	if (tl_source_format(src) == TL_FORMAT_CHROME) {
		if (o->runmeta) {
			rc = tl_error_set(err, "a Chrome trace cannot become RunMetadata "
					       "(--format runmeta takes RunMetadata inputs)");
		} else {
			const uint8_t *data;
			size_t len;
			rc = tl_source_map(src, &data, &len, err);
			if (rc == 0)
				rc = tl_merge_chrome(m, data, len, path, offset_of(o, path), err);
		}
	} else if (o->runmeta) {
		tl_arena *arena = NULL;
		Tensorflow__RunMetadata *meta = NULL;
		const char *label = NULL;
		while ((rc = tl_source_next(src, &arena, &meta, &label, err)) > 0) {
			tl_runmeta_write(out, meta);
			tl_output_flush(out);
			tl_arena_free(arena);
		}
	} else {
		rc = merge_runs(o, m, out, src, path, err);
	}
	if (o->progress != NULL)
		tl_progress_input_done(o->progress, tl_source_offset(src));
	tl_source_close(src);
	return rc < 0 ? -1 : 0;
}

int tl_merge_inputs_write(tl_output *out, const char *const *paths, size_t n,
			  const tl_merge_inputs_opts *o, const char **bad, tl_error *err)
{
	tl_chrome w;
	tl_merge *m = NULL;
	if (!o->runmeta) {
		tl_chrome_begin(&w, out);
		m = tl_merge_new(&w, o->merge);
	}
	int rc = 0;
	for (size_t i = 0; i < n && rc == 0; i++)
		if (merge_input(o, m, out, paths[i], err) < 0) {
			*bad = paths[i];
			rc = -1;
		}
	if (m != NULL) {
		if (rc == 0)
			tl_merge_finish(m, o->tool);
		tl_merge_free(m);
	}
	return rc;
}
