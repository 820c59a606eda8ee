/*
 * testdata.h: where the unit tests find the files they read.
 *
 * Everything a test needs is in the repository, under $TL_DATA (default
 * tests/data, as make runs the tests from the repository root): fixtures,
 * real/ (real dumps whose source carries a permissive licence; the two large
 * Kineto traces gzip-compressed, NAME.gz, which td_load reads back) and
 * oracle/ (TensorFlow's timeline.py on generated runs, exact/ with the
 * truth). The shared folder ($TL_SHARED, default ../shared) also holds real
 * dumps whose source has no licence, which the repository cannot hold: a
 * test that needs one calls td_shared and is skipped, with a line naming the
 * file and why, where that folder is absent (a user's clone). The
 * folder there but the file missing is a failure, not a skip. Such tests
 * are named test_shared_*, so make check-shared can run them alone.
 *
 * Paths come back g_malloc'd; the caller frees them. td_run_of_text builds
 * a run from RunMetadata text written in the test itself.
 */
#ifndef TL_UNIT_TESTDATA_H
#define TL_UNIT_TESTDATA_H

#include "io/input.h"
#include "model/run.h"
#include "io/source.h"

#include <glib.h>
#include <stdlib.h>
#include <string.h>

static inline const char *td_data_dir(void)
{
	const char *s = getenv("TL_DATA");
	return s != NULL && s[0] != '\0' ? s : "tests/data";
}

/* $TL_DATA/rel: real/NAME, oracle/NAME, ... */
static inline char *td_data(const char *rel)
{
	return g_build_filename(td_data_dir(), rel, NULL);
}

static inline const char *td_shared_dir(void)
{
	const char *s = getenv("TL_SHARED");
	return s != NULL && s[0] != '\0' ? s : "../shared";
}

/* $TL_SHARED/dir/name (name NULL: the folder), for what the repository
 * cannot hold; skips the calling test when there is no shared folder,
 * saying which file it needed. Call it before allocating anything: a skip
 * leaves the test at once. */
static inline char *td_shared(const char *dir, const char *name)
{
	if (!g_file_test(td_shared_dir(), G_FILE_TEST_IS_DIR)) {
		print_message("skip: needs %s/%s%s%s (not redistributable: no licence; no shared "
			      "folder, set TL_SHARED)\n",
			      td_shared_dir(), dir, name != NULL ? "/" : "",
			      name != NULL ? name : "");
		skip();
	}
	return g_build_filename(td_shared_dir(), dir, name, NULL);
}

/* $TL_UNIT_FILTER, a cmocka pattern ('*' and '?'): only the tests whose
 * names match it run (make check-shared runs "test_shared_*", the tests
 * that read the shared folder). Call it first in main. */
static inline void td_filter(void)
{
	const char *f = getenv("TL_UNIT_FILTER");
	if (f != NULL && f[0] != '\0')
		cmocka_set_test_filter(f);
}

/* The whole file, gunzipped when it is gzip (tl_input does what the tools
 * do), so a test reads NAME.gz as it would NAME. */
static inline GBytes *td_load(const char *path)
{
	tl_input *in = NULL;
	tl_error err = {{0}};
	uint8_t *data = NULL;
	size_t len = 0;
	if (tl_input_open(&in, path, &err) != 0 || tl_input_slurp(in, &data, &len, &err) != 0)
		fail_msg("cannot read '%s': %s", path, err.msg);
	tl_input_close(in);
	return g_bytes_new_take(data, len);
}

static inline gint td_compare_paths(gconstpointer a, gconstpointer b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Sorted paths of the files in `dir` whose names end in `suffix` (or in
 * suffix.gz), leaving out those that end in `except` (NULL: none). */
static inline GPtrArray *td_list(const char *dir, const char *suffix, const char *except)
{
	GDir *d = g_dir_open(dir, 0, NULL);
	if (d == NULL)
		fail_msg("cannot open '%s'", dir);
	char *gz = g_strconcat(suffix, ".gz", NULL);
	GPtrArray *paths = g_ptr_array_new_with_free_func(g_free);
	const char *name;
	while ((name = g_dir_read_name(d)) != NULL) {
		if (!g_str_has_suffix(name, suffix) && !g_str_has_suffix(name, gz))
			continue;
		if (except != NULL && g_str_has_suffix(name, except))
			continue;
		g_ptr_array_add(paths, g_build_filename(dir, name, NULL));
	}
	g_dir_close(d);
	g_free(gz);
	g_ptr_array_sort(paths, td_compare_paths);
	return paths;
}

/* The first run of the file at `path` (sniffed, as the tools read it). */
static inline tl_run *td_run_of_file(const char *path)
{
	tl_source *src = NULL;
	tl_error err = {{0}};
	tl_run *run = NULL;
	if (tl_source_open(&src, path, TL_FORMAT_AUTO, &err) < 0)
		fail_msg("open %s: %s", path, err.msg);
	if (tl_run_next(src, &run, &err) != 1)
		fail_msg("read %s: %s", path, err.msg);
	tl_source_close(src);
	return run;
}

/* A run from RunMetadata in protobuf text, labelled `label`; the run owns
 * its arena (tl_run_free). */
static inline tl_run *td_run_of_text(const char *text, const char *label)
{
	tl_arena *arena = tl_arena_new();
	Tensorflow__RunMetadata *meta = NULL;
	tl_error err = {{0}};
	if (tl_source_decode_runmeta((const uint8_t *)text, strlen(text), TL_FORMAT_RUNMETA_TEXT,
				     arena, &meta, &err) < 0)
		fail_msg("decode: %s", err.msg);
	tl_run *run = NULL;
	if (tl_run_build(&run, arena, meta, label, &err) < 0)
		fail_msg("build: %s", err.msg);
	return run;
}

#endif
