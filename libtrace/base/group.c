#include "base/group.h"

#include <glib.h>

void tl_group_by(tl_group *g, const uint32_t *key, size_t n, uint32_t n_keys)
{
	/* first[k + 2] counts key k; summed, first[k + 1] is where k starts,
	 * and filling moves it to where k ends, which is where k + 1 starts */
	uint32_t *first = g_new0(uint32_t, (size_t)n_keys + 2);
	uint32_t *members = g_new(uint32_t, n ? n : 1);
	for (size_t i = 0; i < n; i++)
		if (key[i] != TL_GROUP_NONE)
			first[key[i] + 2]++;
	for (uint32_t k = 0; k < n_keys; k++)
		first[k + 2] += first[k + 1];
	for (size_t i = 0; i < n; i++)
		if (key[i] != TL_GROUP_NONE)
			members[first[key[i] + 1]++] = (uint32_t)i;
	g->first = first;
	g->members = members;
}

void tl_group_free(tl_group *g)
{
	g_free(g->first);
	g_free(g->members);
	g->first = g->members = NULL;
}
