/*
 * chrome_ids: the processes and threads of a Chrome trace as a reader
 * meets them (io/chrome_reader.h), by their pid and tid texts, in order of
 * first mention, with what the metadata events say of them: process_name
 * (timeline.py's "<device> Compute" kept without " Compute", and marked),
 * process_labels (Kineto's "CPU", "GPU 0") and thread_name. The readers
 * that turn a trace into a run (io/chrome_run.c) and into summary rows
 * (io/chrome_kind.h, for summaries) share it.
 */
#ifndef TL_IO_CHROME_IDS_H
#define TL_IO_CHROME_IDS_H

#include "io/chrome_reader.h"

#include <glib.h>
#include <stdbool.h>
#include <stdint.h>

typedef struct tl_chrome_proc {
	char *pid;
	char *name;   /* process_name, " Compute" cut; NULL: none */
	char *labels; /* process_labels; NULL: none */
	bool tf1;     /* named "<device> Compute": timeline.py's */
} tl_chrome_proc;

typedef struct tl_chrome_thread {
	uint32_t proc;
	char *tid;
	char *name; /* thread_name; NULL: none */
} tl_chrome_thread;

typedef struct tl_chrome_ids {
	GPtrArray *procs;   /* tl_chrome_proc * */
	GPtrArray *threads; /* tl_chrome_thread * */
	/* private */
	GHashTable *proc_ix, *thread_ix; /* text -> index + 1 */
	GString *buf, *buf2;
} tl_chrome_ids;

void tl_chrome_ids_init(tl_chrome_ids *ids);
void tl_chrome_ids_free(tl_chrome_ids *ids);

/* The index of the process of pid `pid`, made at its first mention. */
uint32_t tl_chrome_ids_proc(tl_chrome_ids *ids, const char *pid);
/* The index of the thread of an event (its pid and tid). */
uint32_t tl_chrome_ids_thread(tl_chrome_ids *ids, const tl_chrome_in_event *ev);

/* A metadata event ('M'): process_name, process_labels and thread_name are
 * kept; the process it names (index), or -1 for any other event. */
int64_t tl_chrome_ids_meta(tl_chrome_ids *ids, const tl_chrome_in_event *ev);

#endif
