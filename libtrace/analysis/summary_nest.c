#include "analysis/summary_nest.h"

#include <glib.h>
#include <stdlib.h>

static int cmp_slice(const void *a, const void *b, void *ctx)
{
	const tl_summary_slice *sl = ctx;
	uint32_t i = *(const uint32_t *)a, j = *(const uint32_t *)b;
	const tl_summary_slice *x = &sl[i], *y = &sl[j];
	if (x->thread != y->thread)
		return x->thread < y->thread ? -1 : 1;
	if (x->start != y->start)
		return x->start < y->start ? -1 : 1;
	if (x->end != y->end)
		return x->end > y->end ? -1 : 1; /* the longer one first: the parent */
	return i < j ? -1 : (i > j);
}

uint32_t *tl_summary_nest_order(const tl_summary_slice *slices, size_t n)
{
	uint32_t *order = g_new(uint32_t, n ? n : 1);
	for (size_t i = 0; i < n; i++)
		order[i] = (uint32_t)i;
	if (n > 1)
		qsort_r(order, n, sizeof *order, cmp_slice, (void *)slices);
	return order;
}

/* An open slice: how much of it its children cover so far, and where the
 * covered part ends (children come by start, so the next one's cover
 * begins at the later of its start and this). */
struct open {
	uint32_t index;
	int64_t covered, cover_end;
};

static void close_slice(tl_summary_slice *slices, const struct open *o)
{
	tl_summary_slice *s = &slices[o->index];
	s->self = s->end - s->start - o->covered;
}

size_t tl_summary_nest(tl_summary_slice *slices, size_t n)
{
	uint32_t *order = tl_summary_nest_order(slices, n);
	GArray *stack = g_array_new(FALSE, FALSE, sizeof(struct open));
	size_t nested = 0;
	for (size_t k = 0; k < n; k++) {
		tl_summary_slice *s = &slices[order[k]];
		if (k > 0 && slices[order[k - 1]].thread != s->thread) {
			for (guint i = 0; i < stack->len; i++)
				close_slice(slices, &g_array_index(stack, struct open, i));
			g_array_set_size(stack, 0);
		}
		/* pop what ended before s starts, then what s overlaps only in
		 * part (it ends before s does): s is their sibling */
		while (stack->len > 0) {
			struct open *top = &g_array_index(stack, struct open, stack->len - 1);
			const tl_summary_slice *t = &slices[top->index];
			if (t->end > s->start && t->end >= s->end)
				break;
			close_slice(slices, top);
			g_array_set_size(stack, stack->len - 1);
		}
		s->parent = -1;
		if (stack->len > 0) {
			struct open *p = &g_array_index(stack, struct open, stack->len - 1);
			int64_t pend = slices[p->index].end;
			int64_t c0 = MAX(s->start, p->cover_end), c1 = MIN(s->end, pend);
			if (c1 > c0) {
				p->covered += c1 - c0;
				p->cover_end = c1;
			}
			s->parent = p->index;
			nested++;
		}
		struct open o = {order[k], 0, s->start};
		g_array_append_val(stack, o);
	}
	for (guint i = 0; i < stack->len; i++)
		close_slice(slices, &g_array_index(stack, struct open, i));
	g_array_free(stack, TRUE);
	g_free(order);
	return nested;
}
