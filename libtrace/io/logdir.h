/*
 * logdir: a folder given as an input. A TensorBoard log folder stands for
 * the events files (events.out.tfevents.*) anywhere below it, and the
 * profile plugin's files (plugins/profile/RUN/HOST.xplane.pb, and
 * HOST.trace where RUN holds no *.xplane.pb, as TensorBoard's profile
 * plugin reads them), sorted by path, each read as if it had been given;
 * a .trace left out for an XSpace beside it is said in one warning; a
 * folder without any is
 * described in one line (what it holds, what to pass instead), and so is a
 * log folder whose events files hold no run metadata.
 *
 * The caller owns the arrays and strings handed out.
 */
#ifndef TL_IO_LOGDIR_H
#define TL_IO_LOGDIR_H

#include "base/warn.h"

#include <glib.h>
#include <stdbool.h>

/* A folder (following a symbolic link to one). */
bool tl_logdir_is_folder(const char *path);

/* True when `name` (a file name without folder) is a TensorBoard events
 * file: "events.out.tfevents." and more. */
bool tl_logdir_is_events_name(const char *name);

/* The events files below `folder`, every level down (links to folders are
 * not followed, so a loop cannot trap the walk), sorted by path (strcmp):
 * a GPtrArray of g_malloc'd paths that frees them. None: -1 and err says
 * what the folder holds ("a folder with no TensorBoard events files
 * (events.out.tfevents.*) below it; it holds 2 *.xplane.pb (TF2/JAX profiler
 * XSpace, not read yet); pass files, not the folder"). */
int tl_logdir_events(const char *folder, GPtrArray **out, tl_error *err);

/* The error for a log folder whose `n_events` events files held no run:
 * always -1. */
int tl_logdir_no_runs(const char *folder, size_t n_events, tl_error *err);

#endif
