/*
 * tmpdir.h: a fresh temporary folder for a CMocka test group, made by the
 * group's setup and removed with all it holds by its teardown:
 *
 *   return cmocka_run_group_tests_name("x", tests, tmpdir_setup, tmpdir_teardown);
 *
 * Tests put their files under `tmpdir`.
 */
#ifndef TL_UNIT_TMPDIR_H
#define TL_UNIT_TMPDIR_H

#include <glib.h>
#include <glib/gstdio.h>

static char *tmpdir;

static int tmpdir_setup(void **state)
{
	(void)state;
	tmpdir = g_dir_make_tmp("tl-unit-XXXXXX", NULL);
	return tmpdir == NULL;
}

/* Removes `path` and, for a folder, everything below it. */
static int tmpdir_remove(const char *path)
{
	GDir *dir = g_dir_open(path, 0, NULL);
	int rc = 0;
	if (dir != NULL) {
		const char *name;
		while ((name = g_dir_read_name(dir)) != NULL) {
			char *child = g_build_filename(path, name, NULL);
			rc |= tmpdir_remove(child);
			g_free(child);
		}
		g_dir_close(dir);
	}
	return rc | (g_remove(path) != 0);
}

static int tmpdir_teardown(void **state)
{
	(void)state;
	int rc = tmpdir_remove(tmpdir);
	g_free(tmpdir);
	tmpdir = NULL;
	return rc;
}

#endif
