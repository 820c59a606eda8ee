/*
 * oracle-parity: proves that our Chrome trace shows every op that
 * TensorFlow's timeline.py showed (the references in ../shared/oracle/).
 *
 * An oracle op is an X event on a process named "<device> Compute". It is
 * matched by an X event of ours on the same device (our process_name is the
 * device itself, or the device plus " Compute"), with the same name (the op
 * type) and args.name (the node), starting in the same microsecond
 * (ours.ts - oracle ts in [0, 1]: ours may carry the nanoseconds timeline.py
 * drops) and lasting as long to within 1 us. Each of our events matches at
 * most one oracle op. Device names are compared normalized on both sides:
 * "/cpu:0" and "/device:CPU:0", "/gpu:0/stream:12" and
 * "/device:GPU:0/stream:12" are the same device.
 *
 * Prints "parity: M of N oracle ops matched" and up to 20 unmatched ops.
 * Exit status: 0 all matched, 1 some unmatched or an input unreadable,
 * 2 usage error.
 */
#include "io/input.h"

#include <getopt.h>
#include <glib.h>
#include <jansson.h>
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#define PROG "oracle-parity"
#define MAX_SHOWN 20
#define COMPUTE_SUFFIX " Compute"

enum { EXIT_MATCHED = 0, EXIT_UNMATCHED = 1, EXIT_USAGE = 2 };

struct op {
	char *device; /* normalized */
	const char *name;
	const char *node; /* args.name, "" when absent */
	double ts;
	double dur;
	bool used;
};

struct trace {
	const char *path;
	json_t *root;
	GPtrArray *ops; /* struct op * */
};

static json_t *load_json(const char *path)
{
	tl_error err = {{0}};
	tl_input *in = NULL;
	uint8_t *data = NULL;
	size_t len = 0;
	if (tl_input_open(&in, path, &err) < 0 || tl_input_slurp(in, &data, &len, &err) < 0) {
		fprintf(stderr, "%s: cannot read '%s': %s\n", PROG, path, err.msg);
		tl_input_close(in);
		return NULL;
	}
	tl_input_close(in);
	json_error_t jerr;
	json_t *root = json_loadb((const char *)data, len, 0, &jerr);
	g_free(data);
	if (root == NULL)
		fprintf(stderr, "%s: cannot read '%s': invalid JSON at line %d, column %d: %s\n",
			PROG, path, jerr.line, jerr.column, jerr.text);
	return root;
}

static json_t *events_of(json_t *root)
{
	return json_is_array(root) ? root : json_object_get(root, "traceEvents");
}

static char *pid_text(json_t *pid)
{
	if (json_is_integer(pid))
		return g_strdup_printf("%" JSON_INTEGER_FORMAT, json_integer_value(pid));
	if (json_is_string(pid))
		return g_strdup(json_string_value(pid));
	return NULL;
}

/* pid -> process_name, from the M events. */
static GHashTable *process_names(json_t *events)
{
	GHashTable *names = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, NULL);
	for (size_t i = 0; i < json_array_size(events); i++) {
		json_t *ev = json_array_get(events, i);
		json_t *ph = json_object_get(ev, "ph");
		json_t *name = json_object_get(ev, "name");
		json_t *pname = json_object_get(json_object_get(ev, "args"), "name");
		if (!json_is_string(ph) || strcmp(json_string_value(ph), "M") != 0 ||
		    !json_is_string(name) || strcmp(json_string_value(name), "process_name") != 0 ||
		    !json_is_string(pname))
			continue;
		char *pid = pid_text(json_object_get(ev, "pid"));
		if (pid != NULL)
			g_hash_table_insert(names, pid, (gpointer)json_string_value(pname));
	}
	return names;
}

/* "cpu:0" -> "device:CPU:0", for the device kinds old TensorFlow spelled in
 * lower case; other segments are kept. */
static void append_segment(GString *out, const char *seg)
{
	static const char *const kinds[] = {"cpu", "gpu", "tpu", "sycl"};
	for (size_t k = 0; k < G_N_ELEMENTS(kinds); k++) {
		size_t n = strlen(kinds[k]);
		const char *num = seg + n + 1;
		if (strncmp(seg, kinds[k], n) != 0 || seg[n] != ':' || *num == '\0' ||
		    strspn(num, "0123456789") != strlen(num))
			continue;
		char *upper = g_ascii_strup(kinds[k], -1);
		g_string_append_printf(out, "device:%s:%s", upper, num);
		g_free(upper);
		return;
	}
	g_string_append(out, seg);
}

static char *normalize_device(const char *process_name)
{
	size_t len = strlen(process_name);
	size_t slen = strlen(COMPUTE_SUFFIX);
	if (len >= slen && strcmp(process_name + len - slen, COMPUTE_SUFFIX) == 0)
		len -= slen;
	char *name = g_strndup(process_name, len);
	char **segs = g_strsplit(name, "/", -1);
	GString *out = g_string_new(NULL);
	for (char **s = segs; *s != NULL; s++) {
		if (s != segs)
			g_string_append_c(out, '/');
		append_segment(out, *s);
	}
	g_strfreev(segs);
	g_free(name);
	return g_string_free(out, FALSE);
}

static void op_free(gpointer p)
{
	struct op *op = p;
	g_free(op->device);
	g_free(op);
}

/* The X events on processes with a name; only those named "* Compute" when
 * compute_only. */
static GPtrArray *collect_ops(json_t *events, bool compute_only)
{
	GPtrArray *ops = g_ptr_array_new_with_free_func(op_free);
	GHashTable *names = process_names(events);
	for (size_t i = 0; i < json_array_size(events); i++) {
		json_t *ev = json_array_get(events, i);
		json_t *ph = json_object_get(ev, "ph");
		json_t *name = json_object_get(ev, "name");
		if (!json_is_string(ph) || strcmp(json_string_value(ph), "X") != 0 ||
		    !json_is_string(name))
			continue;
		char *pid = pid_text(json_object_get(ev, "pid"));
		const char *pname = pid == NULL ? NULL : g_hash_table_lookup(names, pid);
		g_free(pid);
		if (pname == NULL || (compute_only && !g_str_has_suffix(pname, COMPUTE_SUFFIX)))
			continue;
		json_t *node = json_object_get(json_object_get(ev, "args"), "name");
		struct op *op = g_new0(struct op, 1);
		op->device = normalize_device(pname);
		op->name = json_string_value(name);
		op->node = json_is_string(node) ? json_string_value(node) : "";
		op->ts = json_number_value(json_object_get(ev, "ts"));
		op->dur = json_number_value(json_object_get(ev, "dur"));
		g_ptr_array_add(ops, op);
	}
	g_hash_table_destroy(names);
	return ops;
}

static char *op_key(const struct op *op)
{
	return g_strdup_printf("%s\x1f%s\x1f%s", op->device, op->name, op->node);
}

/* key -> GPtrArray of our ops with that device, name and node */
static GHashTable *index_ops(GPtrArray *ops)
{
	GHashTable *index = g_hash_table_new_full(g_str_hash, g_str_equal, g_free,
						  (GDestroyNotify)g_ptr_array_unref);
	for (guint k = 0; k < ops->len; k++) {
		struct op *op = g_ptr_array_index(ops, k);
		char *key = op_key(op);
		GPtrArray *same = g_hash_table_lookup(index, key);
		if (same == NULL) {
			same = g_ptr_array_new();
			g_hash_table_insert(index, key, same);
		} else {
			g_free(key);
		}
		g_ptr_array_add(same, op);
	}
	return index;
}

/* Ours may carry the nanoseconds of the same microsecond (ts in [T, T+1)).
 * A JSON reader holds an epoch-scale timestamp as a double with a
 * quarter-microsecond step, so T.905 can read back as T+1: the upper bound
 * itself is accepted only where doubles cannot hold nanoseconds. */
static bool times_match(const struct op *ours, const struct op *oracle)
{
	double dt = ours->ts - oracle->ts;
	double step = nextafter(ours->ts, INFINITY) - ours->ts;
	bool start_ok = dt >= 0.0 && (dt < 1.0 || (dt == 1.0 && step > 0.001));
	return start_ok && fabs(ours->dur - oracle->dur) < 1.0;
}

/* The unused op of ours that matches best (closest duration), or NULL. */
static struct op *best_match(GPtrArray *same, const struct op *oracle)
{
	struct op *best = NULL;
	for (guint k = 0; same != NULL && k < same->len; k++) {
		struct op *op = g_ptr_array_index(same, k);
		if (op->used || !times_match(op, oracle))
			continue;
		if (best == NULL || fabs(op->dur - oracle->dur) < fabs(best->dur - oracle->dur))
			best = op;
	}
	return best;
}

/* The unused op of ours nearest in time, to say how an unmatched op differs. */
static struct op *nearest(GPtrArray *same, const struct op *oracle)
{
	struct op *near = NULL;
	for (guint k = 0; same != NULL && k < same->len; k++) {
		struct op *op = g_ptr_array_index(same, k);
		if (op->used)
			continue;
		if (near == NULL || fabs(op->ts - oracle->ts) < fabs(near->ts - oracle->ts))
			near = op;
	}
	return near;
}

static void print_unmatched(const struct op *oracle, const struct op *near)
{
	printf("unmatched: %s %s \"%s\" ts %.17g dur %.17g", oracle->device, oracle->name,
	       oracle->node, oracle->ts, oracle->dur);
	if (near != NULL)
		printf(" (ours nearest: ts %.17g dur %.17g)\n", near->ts, near->dur);
	else
		printf(" (not in ours)\n");
}

/* Nodes named with --except: where timeline.py is known to be wrong (it
 * merges a loop's iterations by node name under --op-time gpu/all). */
static GPtrArray *excepted_nodes;

static bool is_excepted(const struct op *op)
{
	for (guint k = 0; excepted_nodes != NULL && k < excepted_nodes->len; k++)
		if (strcmp(g_ptr_array_index(excepted_nodes, k), op->node) == 0)
			return true;
	return false;
}

static int compare(GPtrArray *oracle_ops, GPtrArray *our_ops)
{
	GHashTable *index = index_ops(our_ops);
	GPtrArray *unmatched = g_ptr_array_new();
	guint excepted = 0;
	for (guint k = 0; k < oracle_ops->len; k++) {
		struct op *want = g_ptr_array_index(oracle_ops, k);
		if (is_excepted(want)) {
			excepted++;
			continue;
		}
		char *key = op_key(want);
		struct op *got = best_match(g_hash_table_lookup(index, key), want);
		g_free(key);
		if (got != NULL)
			got->used = true;
		else
			g_ptr_array_add(unmatched, want);
	}
	printf("parity: %u of %u oracle ops matched", oracle_ops->len - excepted - unmatched->len,
	       oracle_ops->len - excepted);
	if (excepted > 0)
		printf(" (%u excepted)", excepted);
	printf("\n");
	for (guint k = 0; k < unmatched->len && k < MAX_SHOWN; k++) {
		struct op *want = g_ptr_array_index(unmatched, k);
		char *key = op_key(want);
		print_unmatched(want, nearest(g_hash_table_lookup(index, key), want));
		g_free(key);
	}
	if (unmatched->len > MAX_SHOWN)
		printf("unmatched: %u more not shown\n", unmatched->len - MAX_SHOWN);
	int rc = unmatched->len == 0 ? EXIT_MATCHED : EXIT_UNMATCHED;
	g_ptr_array_free(unmatched, TRUE);
	g_hash_table_destroy(index);
	return rc;
}

static int compare_traces(const char *oracle_path, json_t *oracle, const char *ours_path,
			  json_t *ours)
{
	if (!json_is_array(events_of(oracle)) || !json_is_array(events_of(ours))) {
		fprintf(stderr, "%s: cannot read '%s': no traceEvents array\n", PROG,
			json_is_array(events_of(oracle)) ? ours_path : oracle_path);
		return EXIT_UNMATCHED;
	}
	GPtrArray *oracle_ops = collect_ops(events_of(oracle), true);
	GPtrArray *our_ops = collect_ops(events_of(ours), false);
	int rc = EXIT_UNMATCHED;
	if (oracle_ops->len == 0)
		fprintf(stderr, "%s: '%s' has no X events on a \"* Compute\" process\n", PROG,
			oracle_path);
	else
		rc = compare(oracle_ops, our_ops);
	g_ptr_array_free(oracle_ops, TRUE);
	g_ptr_array_free(our_ops, TRUE);
	return rc;
}

static int run(const char *oracle_path, const char *ours_path)
{
	json_t *oracle = load_json(oracle_path);
	json_t *ours = oracle == NULL ? NULL : load_json(ours_path);
	int rc = EXIT_UNMATCHED;
	if (oracle != NULL && ours != NULL)
		rc = compare_traces(oracle_path, oracle, ours_path, ours);
	json_decref(oracle);
	json_decref(ours);
	return rc;
}

static void usage(FILE *to)
{
	fprintf(to, "usage: %s [--except NODE]... ORACLE.json OURS.json\n", PROG);
}

int main(int argc, char **argv)
{
	static const struct option longopts[] = {
	    {"help", no_argument, NULL, 'h'},
	    {"except", required_argument, NULL, 'x'},
	    {NULL, 0, NULL, 0},
	};
	for (;;) {
		int opt = getopt_long(argc, argv, "h", longopts, NULL);
		if (opt == -1)
			break;
		if (opt == 'x') {
			if (excepted_nodes == NULL)
				excepted_nodes = g_ptr_array_new();
			g_ptr_array_add(excepted_nodes, optarg);
			continue;
		}
		if (opt != 'h') {
			usage(stderr);
			return EXIT_USAGE;
		}
		usage(stdout);
		printf("\nChecks that OURS ('-': standard input) has every op of ORACLE, a trace\n"
		       "written by TensorFlow's timeline.py, on the same device, with the same\n"
		       "op type and node name, start (to the microsecond) and duration (to 1 us).\n"
		       "--except NODE skips the oracle's ops of that node (where timeline.py\n"
		       "is known to be wrong).\n"
		       "\nExit status: 0 all matched, 1 some unmatched or input unreadable,\n"
		       "2 usage error.\n");
		return fclose(stdout) == 0 ? EXIT_MATCHED : EXIT_UNMATCHED;
	}
	if (argc - optind != 2) {
		fprintf(stderr, "%s: expected 2 inputs, got %d\n", PROG, argc - optind);
		usage(stderr);
		return EXIT_USAGE;
	}
	int rc = run(argv[optind], argv[optind + 1]);
	if (excepted_nodes != NULL)
		g_ptr_array_free(excepted_nodes, TRUE);
	if (fclose(stdout) != 0) {
		fprintf(stderr, "%s: cannot write standard output\n", PROG);
		return EXIT_UNMATCHED;
	}
	return rc;
}
