/*
 * bytes-format: the tools' byte units (base/bytes.c, tl_bytes_format), for
 * the tests that hold another formatter to them (the report page's
 * fmtBytes).
 *
 * Reads one number a line on stdin and writes "NUMBER TEXT" a line.
 * Exit status: 0, or 1 on a line that is no number.
 */
#include "base/bytes.h"

#include <stdio.h>
#include <stdlib.h>

int main(void)
{
	char line[128], out[TL_BYTES_FORMAT_MAX];
	while (fgets(line, sizeof line, stdin) != NULL) {
		char *end;
		double v = strtod(line, &end);
		if (end == line || (*end != '\n' && *end != '\0')) {
			fprintf(stderr, "bytes-format: not a number: %s", line);
			return 1;
		}
		tl_bytes_format(out, sizeof out, v);
		printf("%.17g %s\n", v, out);
	}
	return 0;
}
