/*
 * read-bench: the readers alone, for scripts/bench.sh: reads every run of
 * each FILE as the tools do (tl_source_open, tl_run_next: decoding and
 * the model) and discards it, so the time of a run of it is the reader's
 * and nothing after. Prints "FILE RUNS EXECS" per file on stdout.
 *
 * Usage: read-bench FILE...
 * Exit status: 0, 1 when a file cannot be read, 2 on a usage error.
 */
#include "model/run.h"

#include <stdio.h>

int main(int argc, char **argv)
{
	if (argc < 2) {
		fprintf(stderr, "usage: read-bench FILE...\n");
		return 2;
	}
	int status = 0;
	for (int i = 1; i < argc; i++) {
		tl_error err = {{0}};
		tl_source *src = NULL;
		if (tl_source_open(&src, argv[i], TL_FORMAT_AUTO, &err) < 0) {
			fprintf(stderr, "read-bench: cannot read '%s': %s\n", argv[i], err.msg);
			status = 1;
			continue;
		}
		size_t runs = 0, execs = 0;
		tl_run *run = NULL;
		int rc;
		while ((rc = tl_run_next(src, &run, &err)) > 0) {
			runs++;
			execs += run->n_execs;
			tl_run_free(run);
		}
		if (rc < 0) {
			fprintf(stderr, "read-bench: cannot read '%s': %s\n", argv[i], err.msg);
			status = 1;
		}
		tl_source_close(src);
		printf("%s %zu %zu\n", argv[i], runs, execs);
	}
	return status;
}
