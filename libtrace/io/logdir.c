/*
 * logdir: folders as inputs. One walk both collects the events files and
 * counts what else is there, by name, for the one-line description a folder
 * without runs gets. The walk is iterative (a queue of folders), so no
 * nesting depth can overflow the stack.
 */
#include "io/logdir.h"

#include "base/warn.h"

#include <errno.h>
#include <string.h>
#include <sys/stat.h>

#define EVENTS_PREFIX "events.out.tfevents."

/* What else a TensorBoard log folder holds, by file name: the profile
 * plugin's files (plugins/profile/RUN/HOST.*) and dumps people keep beside
 * them. The first matching suffix wins. */
enum kind { K_EVENTS, K_XPLANE, K_KINETO, K_TRACE_JSON, K_TRACE, K_PROTO, K_JSON, K_OTHER, K_N };

static const struct {
	const char *suffix[4];
	const char *pattern; /* as the description writes it */
	const char *what;
} kinds[K_N] = {
    [K_EVENTS] = {{NULL}, "events.out.tfevents.*", NULL},
    [K_XPLANE] = {{".xplane.pb", NULL}, "*.xplane.pb", "TF2/JAX profiler XSpace"},
    [K_KINETO] = {{".pt.trace.json", ".pt.trace.json.gz", NULL},
		  "*.pt.trace.json",
		  "PyTorch traces, which trace-merge and trace-summarize read"},
    [K_TRACE_JSON] = {{".trace.json", ".trace.json.gz", NULL},
		      "*.trace.json",
		      "profiler trace JSON, which trace-merge and trace-summarize read"},
    [K_TRACE] = {{".trace", NULL}, "*.trace", "TF 2.0 profiler traces"},
    [K_PROTO] = {{".pb", ".pbtxt", ".pb.gz", ".pbtxt.gz"}, "*.pb or *.pbtxt", "protobuf"},
    [K_JSON] = {{".json", ".json.gz", NULL}, "*.json", "JSON"},
    [K_OTHER] = {{NULL}, "other", NULL},
};

struct walk {
	GPtrArray *events; /* paths */
	GPtrArray *traces; /* the *.trace files, read where their folder holds no XSpace */
	GHashTable *xplane_dirs; /* folders holding a *.xplane.pb */
	size_t count[K_N];
	size_t traces_left; /* *.trace beside an XSpace: not read */
};

bool tl_logdir_is_folder(const char *path)
{
	struct stat st;
	return path != NULL && strcmp(path, "-") != 0 && stat(path, &st) == 0 &&
	       S_ISDIR(st.st_mode);
}

bool tl_logdir_is_events_name(const char *name)
{
	return g_str_has_prefix(name, EVENTS_PREFIX) && name[strlen(EVENTS_PREFIX)] != '\0';
}

static enum kind kind_of(const char *name)
{
	if (tl_logdir_is_events_name(name))
		return K_EVENTS;
	for (int k = K_XPLANE; k < K_OTHER; k++)
		for (size_t i = 0; i < G_N_ELEMENTS(kinds[k].suffix) && kinds[k].suffix[i]; i++)
			if (g_str_has_suffix(name, kinds[k].suffix[i]))
				return (enum kind)k;
	return K_OTHER;
}

static int cmp_path(gconstpointer a, gconstpointer b)
{
	return strcmp(*(const char *const *)a, *(const char *const *)b);
}

/* Walks every folder below `folder`; a folder that cannot be opened is an
 * error (a log folder half read would be a silent loss). */
static int walk(const char *folder, struct walk *w, tl_error *err)
{
	GPtrArray *todo = g_ptr_array_new_with_free_func(g_free);
	g_ptr_array_add(todo, g_strdup(folder));
	int rc = 0;
	while (todo->len > 0 && rc == 0) {
		char *dir = g_ptr_array_steal_index(todo, todo->len - 1);
		GError *gerr = NULL;
		GDir *d = g_dir_open(dir, 0, &gerr);
		if (d == NULL) {
			rc = tl_error_set(err, "cannot open the folder '%s' inside it (%s)", dir,
					  gerr->message);
			g_error_free(gerr);
			g_free(dir);
			break;
		}
		const char *name;
		while ((name = g_dir_read_name(d)) != NULL) {
			char *path = g_build_filename(dir, name, NULL);
			struct stat lst, st;
			bool link = lstat(path, &lst) == 0 && S_ISLNK(lst.st_mode);
			if (stat(path, &st) != 0) {
				g_free(path); /* a dangling link */
				continue;
			}
			if (S_ISDIR(st.st_mode)) {
				if (!link)
					g_ptr_array_add(todo, path);
				else
					g_free(path);
				continue;
			}
			enum kind k = kind_of(name);
			w->count[k]++;
			/* runs: events files, and the profile plugin's XSpaces
			 * and TF 2.0 traces */
			if (k == K_XPLANE)
				g_hash_table_add(w->xplane_dirs, g_strdup(dir));
			if ((k == K_EVENTS || k == K_XPLANE) && S_ISREG(st.st_mode))
				g_ptr_array_add(w->events, path);
			else if (k == K_TRACE && S_ISREG(st.st_mode))
				g_ptr_array_add(w->traces, path);
			else
				g_free(path);
		}
		g_dir_close(d);
		g_free(dir);
	}
	g_ptr_array_free(todo, TRUE);
	/* A run folder (plugins/profile/RUN) read as TensorBoard's profile
	 * plugin reads it: where it holds an XSpace, its tools are made from
	 * the XSpaces alone (_get_tools in tensorboard_plugin_profile's
	 * profile_plugin.py), and a .trace beside them is not read. */
	for (guint i = 0; i < w->traces->len; i++) {
		char *path = g_ptr_array_index(w->traces, i);
		char *dir = g_path_get_dirname(path);
		if (g_hash_table_contains(w->xplane_dirs, dir)) {
			w->traces_left++;
			g_free(path);
		} else {
			g_ptr_array_add(w->events, path);
		}
		g_free(dir);
	}
	g_ptr_array_set_size(w->traces, 0);
	g_ptr_array_sort(w->events, cmp_path);
	return rc;
}

static void walk_init(struct walk *w)
{
	*w = (struct walk){.events = g_ptr_array_new_with_free_func(g_free),
			   .traces = g_ptr_array_new(),
			   .xplane_dirs = g_hash_table_new_full(g_str_hash, g_str_equal, g_free,
								NULL)};
}

static void walk_free(struct walk *w)
{
	g_ptr_array_free(w->events, TRUE);
	for (guint i = 0; i < w->traces->len; i++)
		g_free(g_ptr_array_index(w->traces, i));
	g_ptr_array_free(w->traces, TRUE);
	g_hash_table_destroy(w->xplane_dirs);
}

/* "2 *.xplane.pb (TF2/JAX profiler XSpace, not read yet) and 3 other
 * files", every kind but the events files. */
static void describe(const struct walk *w, GString *s)
{
	size_t n = 0, total = 0;
	for (int k = K_XPLANE; k < K_N; k++)
		total += w->count[k] > 0;
	for (int k = K_XPLANE; k < K_N; k++) {
		if (w->count[k] == 0)
			continue;
		if (n > 0)
			g_string_append(s, n + 1 == total ? " and " : ", ");
		n++;
		if (k == K_OTHER) {
			g_string_append_printf(s, "%zu other file%s", w->count[k],
					       w->count[k] == 1 ? "" : "s");
			continue;
		}
		g_string_append_printf(s, "%zu %s (%s)", w->count[k], kinds[k].pattern,
				       kinds[k].what);
	}
}

int tl_logdir_events(const char *folder, GPtrArray **out, tl_error *err)
{
	struct walk w;
	walk_init(&w);
	if (walk(folder, &w, err) < 0) {
		walk_free(&w);
		return -1;
	}
	if (w.traces_left > 0)
		tl_warn("logdir-trace-beside-xplane",
			"'%s': %zu *.trace (TF 2.0 profiler trace) left out: their run folder "
			"holds *.xplane.pb, which TensorBoard's profile plugin reads instead",
			folder, w.traces_left);
	if (w.events->len > 0) {
		*out = w.events;
		w.events = g_ptr_array_new();
		walk_free(&w);
		return 0;
	}
	walk_free(&w);
	GString *s = g_string_new("a folder with no TensorBoard events files "
				  "(events.out.tfevents.*) below it");
	size_t files = 0;
	for (int k = K_XPLANE; k < K_N; k++)
		files += w.count[k];
	if (files == 0) {
		g_string_append(s, ", nor any other file");
	} else {
		g_string_append(s, "; it holds ");
		describe(&w, s);
	}
	if (files > 0)
		g_string_append(s, "; pass the files, not the folder");
	else
		g_string_append(s, "; tftrace reads RunMetadata, their TFRecord streams, events "
				   "files and Chrome trace JSON");
	tl_error_set(err, "%s", s->str);
	g_string_free(s, TRUE);
	return -1;
}

int tl_logdir_no_runs(const char *folder, size_t n_events, tl_error *err)
{
	struct walk w;
	walk_init(&w);
	GString *s = g_string_new(NULL);
	g_string_printf(s,
			"a TensorBoard log folder whose %zu events file%s hold%s no run metadata "
			"(tagged_run_metadata, what FileWriter.add_run_metadata writes)",
			n_events, n_events == 1 ? "" : "s", n_events == 1 ? "s" : "");
	tl_error ignored;
	if (walk(folder, &w, &ignored) == 0) {
		size_t files = 0;
		for (int k = K_XPLANE; k < K_N; k++)
			files += w.count[k];
		if (files > 0) {
			g_string_append(s, "; it also holds ");
			describe(&w, s);
		}
	}
	walk_free(&w);
	int rc = tl_error_set(err, "%s", s->str);
	g_string_free(s, TRUE);
	return rc;
}
