/* fuzz-replay: runs files through the fuzz harnesses' code without
 * libFuzzer, so the regression inputs of tests/fuzz/regressions/ are
 * replayed by the test suite (under ASan and UBSan with make check).
 *
 *   fuzz-replay [--harness NAME] FILE...
 *
 * Each file goes through every harness (or the one named). A defect aborts
 * (the harnesses check their outputs); otherwise one line per file on
 * stderr, "FILE: ok (N harnesses)", and exit 0. Standard output is taken
 * by the harnesses to capture what the library writes. */
#include <glib.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#define HARNESSES(X) X(binary) X(text) X(tfrecord) X(chrome) X(dataflow) X(memory) X(merge) X(summarize) \
	X(graph) X(decode) X(xspace) X(pbjson) X(tf2trace) X(tlmem)

#define DECLARE(name) int fuzz_##name##_one(const uint8_t *data, size_t size);
HARNESSES(DECLARE)

static const struct {
	const char *name;
	int (*one)(const uint8_t *data, size_t size);
} harnesses[] = {
#define ENTRY(name) {#name, fuzz_##name##_one},
	HARNESSES(ENTRY)
};

int main(int argc, char **argv)
{
	const char *only = NULL;
	int first = 1;
	if (argc > 2 && strcmp(argv[1], "--harness") == 0) {
		only = argv[2];
		first = 3;
	}
	if (first >= argc) {
		fprintf(stderr, "usage: fuzz-replay [--harness NAME] FILE...\n");
		return 2;
	}
	size_t n_h = sizeof harnesses / sizeof harnesses[0];
	for (int i = first; i < argc; i++) {
		gchar *data = NULL;
		gsize len = 0;
		GError *gerr = NULL;
		if (!g_file_get_contents(argv[i], &data, &len, &gerr)) {
			fprintf(stderr, "fuzz-replay: cannot read '%s': %s\n", argv[i], gerr->message);
			g_error_free(gerr);
			return 1;
		}
		size_t ran = 0;
		for (size_t h = 0; h < n_h; h++) {
			if (only != NULL && strcmp(only, harnesses[h].name) != 0)
				continue;
			/* a copy of exactly len bytes, so ASan sees reads past the end */
			uint8_t *copy = g_malloc(len ? len : 1);
			memcpy(copy, data, len);
			harnesses[h].one(copy, len);
			g_free(copy);
			ran++;
		}
		g_free(data);
		if (ran == 0) {
			fprintf(stderr, "fuzz-replay: no harness named '%s'\n", only);
			return 2;
		}
		fprintf(stderr, "%s: ok (%zu harnesses)\n", argv[i], ran);
	}
	return 0;
}
