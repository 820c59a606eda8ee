/*
 * format_internal: tl_format_chrome_kind's look at a Chrome trace, one event
 * at a time, private to io/: format.c reads the file through it, and
 * chrome_run.c feeds it the events of its own pass, so that a run read from
 * a trace knows its writer without reading the file a second time. The
 * answer is the same either way.
 */
#ifndef TL_IO_FORMAT_INTERNAL_H
#define TL_IO_FORMAT_INTERNAL_H

#include "io/chrome_reader.h"

#include <glib.h>
#include <stddef.h>
#include <stdint.h>

/* The marks each writer leaves (format.c says which). */
struct chrome_marks {
	unsigned tf1_strong, tf1_weak, tf2_strong, tf2_weak;
};

typedef struct tl_chrome_kind_look {
	struct chrome_marks m;
	size_t events;	  /* looked at, up to a Kineto one */
	const char *kind; /* Kineto's, once an event of its categories is met */
	GString *buf;
} tl_chrome_kind_look;

void tl_chrome_kind_look_init(tl_chrome_kind_look *k);
/* Every event the reader gives, in order. */
void tl_chrome_kind_look_event(tl_chrome_kind_look *k, const tl_chrome_in_event *ev);
/* After the last event: rc is the reader's last answer (0 at the end, < 0
 * at bad JSON), r still open (its top-level keys are read); data and len
 * the whole input. Returns tl_format_chrome_kind's answer and frees k. */
const char *tl_chrome_kind_look_end(tl_chrome_kind_look *k, tl_chrome_reader *r, int rc,
				    const uint8_t *data, size_t len);

#endif
