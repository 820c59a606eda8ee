/* graphdot_scope: where each node is drawn. One group per partition
 * (device) of a run, its name scopes as a tree under it; numbered siblings
 * (tower_0 ... tower_7, dense, dense_1 ...) found as families that fold;
 * which scope a node collapses into at a depth; which scopes are drawn as
 * clusters (a scope gets one when it holds two things or more). */
#include "analysis/graphdot_picture.h"

#include <string.h>

/* A scope is found by its parent and its last component, so that finding
 * every scope of a name costs the name's length, not its length times its
 * depth. */
struct skey {
	uint32_t parent;  /* scope */
	uint32_t len;	  /* of comp */
	const char *comp; /* the last component of the path */
};

struct gkey { /* a group: partition and device */
	uint32_t partition;
	const char *device;
};

static guint skey_hash(gconstpointer p)
{
	const struct skey *k = p;
	guint h = 5381u + k->parent * 33u;
	for (uint32_t i = 0; i < k->len; i++)
		h = h * 33u + (unsigned char)k->comp[i];
	return h;
}

static gboolean skey_equal(gconstpointer a, gconstpointer b)
{
	const struct skey *x = a, *y = b;
	return x->parent == y->parent && x->len == y->len && memcmp(x->comp, y->comp, x->len) == 0;
}

static guint gkey_hash(gconstpointer p)
{
	const struct gkey *k = p;
	return g_str_hash(k->device) * 31u + k->partition;
}

static gboolean gkey_equal(gconstpointer a, gconstpointer b)
{
	const struct gkey *x = a, *y = b;
	return x->partition == y->partition && strcmp(x->device, y->device) == 0;
}

void tl_graphdot_scope_init(struct rview *rv)
{
	rv->scopes = g_array_new(FALSE, FALSE, sizeof(struct scope));
	rv->groups = g_array_new(FALSE, FALSE, sizeof(struct group));
	rv->scope_of = g_hash_table_new_full(skey_hash, skey_equal, g_free, NULL);
	rv->group_by = g_hash_table_new_full(gkey_hash, gkey_equal, g_free, NULL);
}

/* ------------------------------------------------------------------ */
/* Groups (partitions) and name scopes                                 */

static uint32_t new_scope(tl_graphdot *gd, struct rview *rv, uint32_t group, uint32_t parent,
			  const char *spath, uint32_t len, uint32_t depth)
{
	struct scope sc = {.path = spath,
			   .len = len,
			   .depth = depth,
			   .group = group,
			   .parent = parent,
			   .first_child = NONE,
			   .last_child = NONE,
			   .next_sibling = NONE,
			   .first_vtx = NONE,
			   .last_vtx = NONE,
			   .fold_top = NONE,
			   .fold_rep = NONE,
			   .vtx = NONE};
	uint32_t idx = rv->scopes->len;
	g_array_append_val(rv->scopes, sc);
	if (parent != NONE) {
		struct scope *p = scope_at(rv, parent);
		if (p->last_child == NONE)
			p->first_child = idx;
		else
			scope_at(rv, p->last_child)->next_sibling = idx;
		p->last_child = idx;
		/* keyed by the component after the parent's path and its '/' */
		uint32_t start = p->depth == 0 ? 0 : p->len + 1;
		struct skey *key = g_new(struct skey, 1);
		*key = (struct skey){.parent = parent, .len = len - start, .comp = spath + start};
		g_hash_table_insert(rv->scope_of, key, GUINT_TO_POINTER(idx + 1));
	}
	if ((int)depth > rv->max_scope_depth)
		rv->max_scope_depth = (int)depth;
	return idx;
}

/* The child of `parent` whose path ends with the component comp. */
static uint32_t find_scope(const struct rview *rv, uint32_t parent, const char *comp, uint32_t len)
{
	struct skey key = {.parent = parent, .len = len, .comp = comp};
	gpointer hit = g_hash_table_lookup(rv->scope_of, &key);
	return hit == NULL ? NONE : GPOINTER_TO_UINT(hit) - 1;
}

static uint32_t group_of(tl_graphdot *gd, struct rview *rv, const tl_gnode *nd, uint32_t *cache_g,
			 const char **cache_dev, uint32_t *cache_part)
{
	if (*cache_g != NONE && *cache_part == nd->partition &&
	    (*cache_dev == nd->device || strcmp(*cache_dev, nd->device) == 0))
		return *cache_g;
	struct gkey key = {.partition = nd->partition, .device = nd->device};
	gpointer hit = g_hash_table_lookup(rv->group_by, &key);
	uint32_t g;
	if (hit != NULL) {
		g = GPOINTER_TO_UINT(hit) - 1;
	} else {
		g = rv->groups->len;
		struct group gr = {.device = nd->device, .partition = nd->partition, .color = -1};
		g_array_append_val(rv->groups, gr);
		uint32_t root = new_scope(gd, rv, g, NONE, "", 0, 0);
		g_array_index(rv->groups, struct group, g).root = root;
		struct gkey *k = g_new(struct gkey, 1);
		*k = key;
		g_hash_table_insert(rv->group_by, k, GUINT_TO_POINTER(g + 1));
	}
	*cache_g = g;
	*cache_dev = nd->device;
	*cache_part = nd->partition;
	return g;
}

void tl_graphdot_scope_build(tl_graphdot *gd, struct rview *rv)
{
	tl_run *run = rv->run;
	uint32_t cache_g = NONE, cache_part = 0;
	const char *cache_dev = NULL;
	for (size_t i = 0; i < run->n_nodes; i++) {
		if (!rv->kept[i])
			continue;
		const tl_gnode *nd = &run->nodes[i];
		uint32_t g = group_of(gd, rv, nd, &cache_g, &cache_dev, &cache_part);
		uint32_t parent = g_array_index(rv->groups, struct group, g).root;
		uint32_t depth = 0, start = 0;
		for (const char *p = strchr(nd->name, '/'); p != NULL; p = strchr(p + 1, '/')) {
			uint32_t len = (uint32_t)(p - nd->name);
			if (len == 0)
				continue;
			depth++;
			uint32_t s = find_scope(rv, parent, nd->name + start, len - start);
			if (s == NONE)
				s = new_scope(gd, rv, g, parent, nd->name, len, depth);
			parent = s;
			start = len + 1;
		}
		rv->leaf[i] = parent;
	}
	/* A node whose name is also a scope ("conv/kernel" beside
	 * "conv/kernel/read") is drawn inside that scope. */
	for (size_t i = 0; i < run->n_nodes; i++) {
		if (!rv->kept[i])
			continue;
		const char *nm = run->nodes[i].name;
		const struct scope *leaf = scope_at(rv, rv->leaf[i]);
		uint32_t start = leaf->depth == 0 ? 0 : leaf->len + 1;
		uint32_t s = find_scope(rv, rv->leaf[i], nm + start, (uint32_t)strlen(nm) - start);
		if (s != NONE)
			rv->leaf[i] = s;
	}
	size_t named = 0;
	for (guint g = 0; g < rv->groups->len; g++)
		if (g_array_index(rv->groups, struct group, g).device[0] != '\0')
			named++;
	rv->draw_groups = rv->groups->len > 1 || named > 0;
}

/* "tower_3" -> base "tower", 3; "dense" -> "dense", 0. */
static void split_number(const char *comp, uint32_t len, uint32_t *base_len, int64_t *num)
{
	uint32_t i = len;
	while (i > 0 && g_ascii_isdigit(comp[i - 1]))
		i--;
	if (i < len && i >= 2 && comp[i - 1] == '_' && len - i <= 12) {
		*base_len = i - 1;
		*num = g_ascii_strtoll(comp + i, NULL, 10);
	} else {
		*base_len = len;
		*num = 0;
	}
}

/* Numbered siblings (tower_0 ... tower_7; dense, dense_1 ...) under one
 * parent path, across the run's partitions: all but the lowest number
 * fold. Paths are numbered (the same path in several partitions, the same
 * number) from their parent's number and their last component, so that no
 * key is longer than a component. */
void tl_graphdot_scope_fold(struct rview *rv)
{
	guint n = rv->scopes->len;
	uint32_t *path_id = g_new(uint32_t, n + 1);
	int64_t *low = g_new(int64_t, n + 1);
	struct skey *keys = g_new(struct skey, 3 * (size_t)n + 1);
	GHashTable *paths = g_hash_table_new(skey_hash, skey_equal);  /* -> path id */
	GHashTable *lowest = g_hash_table_new(skey_hash, skey_equal); /* -> low + 1 */
	GHashTable *rep = g_hash_table_new(skey_hash, skey_equal);    /* -> scope + 1 */
	uint32_t n_paths = 0;
	for (guint s = 0; s < n; s++) {
		struct scope *sc = scope_at(rv, s);
		if (sc->depth == 0) {
			path_id[s] = 0; /* every root's path is empty */
			continue;
		}
		const struct scope *par = scope_at(rv, sc->parent);
		uint32_t start = par->depth == 0 ? 0 : par->len + 1;
		struct skey *k = &keys[s];
		*k = (struct skey){.parent = path_id[sc->parent],
				   .len = sc->len - start,
				   .comp = sc->path + start};
		gpointer hit = g_hash_table_lookup(paths, k);
		if (hit == NULL) {
			hit = GUINT_TO_POINTER(++n_paths);
			g_hash_table_insert(paths, k, hit);
		}
		path_id[s] = GPOINTER_TO_UINT(hit);
	}
	g_hash_table_destroy(paths);
	for (guint pass = 0; pass < 2; pass++) {
		for (guint s = 0; s < n; s++) {
			struct scope *sc = scope_at(rv, s);
			if (sc->depth == 0)
				continue;
			const struct scope *par = scope_at(rv, sc->parent);
			uint32_t start = par->depth == 0 ? 0 : par->len + 1;
			const char *comp = sc->path + start;
			uint32_t clen = sc->len - start;
			split_number(comp, clen, &sc->base_len, &sc->num);
			if (sc->base_len == 0)
				continue;
			/* the family across partitions: parent path and base */
			struct skey *key = &keys[n + s];
			*key = (struct skey){
			    .parent = path_id[sc->parent], .len = sc->base_len, .comp = comp};
			gpointer hit = g_hash_table_lookup(lowest, key);
			if (pass == 0) {
				if (hit == NULL) {
					low[s] = sc->num;
					g_hash_table_insert(lowest, key, GUINT_TO_POINTER(s + 1));
				} else if (sc->num < low[GPOINTER_TO_UINT(hit) - 1]) {
					low[GPOINTER_TO_UINT(hit) - 1] = sc->num;
				}
			} else if (sc->num > low[GPOINTER_TO_UINT(hit) - 1]) {
				/* one family per parent scope (and so per group) */
				struct skey *fkey = &keys[2 * (size_t)n + s];
				*fkey = (struct skey){
				    .parent = sc->parent, .len = sc->base_len, .comp = comp};
				gpointer r = g_hash_table_lookup(rep, fkey);
				if (r == NULL) {
					g_hash_table_insert(rep, fkey, GUINT_TO_POINTER(s + 1));
					sc->fold_rep = s;
				} else {
					sc->fold_rep = GPOINTER_TO_UINT(r) - 1;
				}
			}
		}
	}
	for (guint s = 0; s < n; s++) {
		struct scope *sc = scope_at(rv, s);
		if (sc->depth == 0)
			continue;
		uint32_t up = scope_at(rv, sc->parent)->fold_top;
		sc->fold_top = up != NONE ? up : (sc->fold_rep != NONE ? s : NONE);
	}
	g_hash_table_destroy(rep);
	g_hash_table_destroy(lowest);
	g_free(keys);
	g_free(low);
	g_free(path_id);
	rv->folded = true;
}

/* Node i's scope at `depth` (its leaf's depth is at least that). The walk
 * starts from the last one found for i when that is at least as deep:
 * tl_graphdot_layout_depth tries depths from the deepest up, so a node's
 * walks cost its depth in all, not its depth at every try. */
static uint32_t ancestor_at(struct rview *rv, uint32_t i, uint32_t depth)
{
	uint32_t s = rv->anc[i];
	if (s == NONE || scope_at(rv, s)->depth < depth)
		s = rv->leaf[i];
	while (scope_at(rv, s)->depth > depth)
		s = scope_at(rv, s)->parent;
	rv->anc[i] = s;
	return s;
}

uint32_t tl_graphdot_scope_target(struct rview *rv, uint32_t i, int depth, bool *fold)
{
	uint32_t s = rv->leaf[i];
	const struct scope *sc = scope_at(rv, s);
	*fold = false;
	if (sc->fold_top != NONE) {
		const struct scope *f = scope_at(rv, sc->fold_top);
		if (depth == 0 || f->depth <= (uint32_t)depth) {
			*fold = true;
			return f->fold_rep;
		}
	}
	if (depth > 0 && sc->depth >= (uint32_t)depth)
		return ancestor_at(rv, i, (uint32_t)depth);
	return NONE;
}
/* ------------------------------------------------------------------ */
/* Clusters                                                            */

void tl_graphdot_scope_clusters(tl_graphdot *gd, struct rview *rv)
{
	guint n = rv->scopes->len;
	for (guint s = 0; s < n; s++) {
		struct scope *sc = scope_at(rv, s);
		sc->n_sub = 0;
		for (uint32_t v = sc->first_vtx; v != NONE; v = vtx_at(gd, v)->next)
			sc->n_sub++;
	}
	/* children come after their parents */
	for (guint s = n; s-- > 0;) {
		struct scope *sc = scope_at(rv, s);
		if (sc->parent != NONE)
			scope_at(rv, sc->parent)->n_sub += sc->n_sub;
	}
	for (guint s = 0; s < n; s++) {
		struct scope *sc = scope_at(rv, s);
		if (sc->depth == 0) {
			sc->cluster = rv->draw_groups && sc->n_sub > 0;
		} else {
			uint32_t items = 0;
			for (uint32_t v = sc->first_vtx; v != NONE; v = vtx_at(gd, v)->next)
				items++;
			for (uint32_t c = sc->first_child; c != NONE;
			     c = scope_at(rv, c)->next_sibling)
				if (scope_at(rv, c)->n_sub > 0)
					items++;
			sc->cluster = items >= 2;
		}
		if (sc->cluster)
			gd->stats.clusters++;
	}
}
