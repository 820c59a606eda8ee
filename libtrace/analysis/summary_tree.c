#include "analysis/summary.h"

#include "analysis/summary_internal.h"

#include <string.h>

/* A scope's name is a prefix of the name of the row that made it (the
 * rows outlive the tree), so a tree of D levels over names of length L
 * holds no copy of a path; a node is found by its parent and its last
 * component, so a name costs its length, not L times D. */

static guint tnode_hash(gconstpointer p)
{
	const tl_summary_scope *t = p;
	guint h = (guint)(gsize)t->parent;
	for (size_t i = t->comp; i < t->len; i++)
		h = h * 33u + (unsigned char)t->name[i];
	return h;
}

static gboolean tnode_equal(gconstpointer a, gconstpointer b)
{
	const tl_summary_scope *x = a, *y = b;
	return x->parent == y->parent && x->len - x->comp == y->len - y->comp &&
	       memcmp(x->name + x->comp, y->name + y->comp, x->len - x->comp) == 0;
}

/* The child of t whose path is name[0 .. len), its last component from
 * `comp` on. */
static tl_summary_scope *child(tl_summary_scope *t, const char *name, size_t comp, size_t len,
			       GHashTable *index, tl_arena *arena)
{
	tl_summary_scope key = {
	    .name = name, .len = (uint32_t)len, .comp = (uint32_t)comp, .parent = t};
	tl_summary_scope *c = g_hash_table_lookup(index, &key);
	if (c == NULL) {
		c = tl_arena_alloc(arena, sizeof *c);
		*c = key;
		if (t->last_kid != NULL)
			t->last_kid->next = c;
		else
			t->first_kid = c;
		t->last_kid = c;
		t->n_kids++;
		g_hash_table_add(index, c);
	}
	return c;
}

const char *tl_summary_tree_name(const tl_summary_scope *t, GString *buf)
{
	if (t->row != NULL && t->row->name == t->name && t->name[t->len] == '\0')
		return t->name;
	g_string_truncate(buf, 0);
	g_string_append_len(buf, t->name, (gssize)t->len);
	return buf->str;
}

static void sum_tree(tl_summary_scope *t)
{
	if (t->self != NULL)
		memcpy(t->total, t->self, sizeof t->total);
	t->n_defined = t->parent != NULL;
	for (tl_summary_scope *c = t->first_kid; c != NULL; c = c->next) {
		sum_tree(c);
		for (int k = 0; k < TL_N_COLS; k++)
			t->total[k] += c->total[k];
		t->n_defined += c->n_defined;
	}
}

/* By the ordering column, then by name as strcmp orders them. */
static int cmp_tnode(const void *a, const void *b, void *ctx)
{
	const tl_summary_scope *x = *(tl_summary_scope *const *)a,
			       *y = *(tl_summary_scope *const *)b;
	int order_col = *(const int *)ctx;
	if (order_col >= 0 && x->total[order_col] != y->total[order_col])
		return x->total[order_col] > y->total[order_col] ? -1 : 1;
	int c = memcmp(x->name, y->name, x->len < y->len ? x->len : y->len);
	if (c != 0)
		return c;
	return x->len < y->len ? -1 : (x->len > y->len);
}

tl_summary_scope **tl_summary_tree_kids(const tl_summary_scope *t, const tl_summary_opts *o)
{
	tl_summary_scope **kids = g_new(tl_summary_scope *, t->n_kids + 1);
	size_t n = 0;
	for (tl_summary_scope *c = t->first_kid; c != NULL; c = c->next)
		kids[n++] = c;
	if (n > 1)
		qsort_r(kids, n, sizeof *kids, cmp_tnode, (void *)&o->order_by);
	return kids;
}

bool tl_summary_tree_match(const GRegex *re, const tl_summary_scope *t)
{
	return g_regex_match_full(re, t->name, (gssize)t->len, 0, 0, NULL, NULL);
}

tl_summary_tree *tl_summary_tree_new(const tl_summary *s, const tl_summary_opts *o)
{
	tl_summary_tree *tree = g_new0(tl_summary_tree, 1);
	/* the nodes and their values live in the tree's arena */
	tree->arena = tl_arena_new();
	tl_summary_scope *root = tl_arena_zalloc(tree->arena, sizeof *root);
	root->name = "";
	tree->root = root;
	tree->index = g_hash_table_new(tnode_hash, tnode_equal);
	GPtrArray *rows = tl_summary_sorted_rows(s);
	/* The scopes of the last name walked, and where each ends in it: the
	 * names come sorted, so the next shares most of them (a scope is its
	 * path: the same bytes up to a component's end, the same scope), and
	 * only the scopes past the shared ones are looked up. */
	typedef struct step {
		tl_summary_scope *t;
		size_t end;
	} step;
	GArray *path = g_array_new(FALSE, FALSE, sizeof(step));
	const char *prev = "";
	for (guint i = 0; i < rows->len; i++) {
		const tl_row *r = g_ptr_array_index(rows, i);
		if (!tl_summary_name_passes(o, r))
			continue;
		size_t common = 0;
		while (prev[common] != '\0' && prev[common] == r->name[common])
			common++;
		/* walk the scopes of the name: a/b/c -> a, a/b, a/b/c */
		tl_summary_scope *t = root;
		const char *p = r->name;
		guint depth = 0;
		for (;; depth++) {
			const char *slash = strchr(p, '/');
			size_t len = slash ? (size_t)(slash - r->name) : strlen(r->name);
			if (depth < path->len && len <= common &&
			    g_array_index(path, step, depth).end == len) {
				t = g_array_index(path, step, depth).t;
			} else {
				t = child(t, r->name, (size_t)(p - r->name), len, tree->index,
					  tree->arena);
				if (depth >= path->len)
					g_array_set_size(path, depth + 1);
				g_array_index(path, step, depth) = (step){t, len};
			}
			if (slash == NULL)
				break;
			p = slash + 1;
		}
		g_array_set_size(path, depth + 1);
		prev = r->name;
		if (t->row == NULL)
			t->name = r->name; /* its own name, terminated */
		t->row = r;
		if (t->self == NULL)
			t->self = tl_arena_alloc(tree->arena, TL_N_COLS * sizeof(double));
		tl_summary_row_stats(s, r, o, t->self);
	}
	g_array_free(path, TRUE);
	g_ptr_array_free(rows, TRUE);
	sum_tree(root);
	return tree;
}

void tl_summary_tree_free(tl_summary_tree *tree)
{
	if (tree == NULL)
		return;
	g_hash_table_destroy(tree->index);
	tl_arena_free(tree->arena);
	g_free(tree);
}
