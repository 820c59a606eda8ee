#include "base/strsort.h"

#include <glib.h>
#include <string.h>

typedef struct key {
	const unsigned char *s;
	void *item;
} key;

typedef struct task {
	size_t lo, n, depth;
} task;

static void swap(key *a, key *b)
{
	key t = *a;
	*a = *b;
	*b = t;
}

/* Small parts: insertion sort on the strings past their common depth. */
static void insertion(key *a, size_t n, size_t d)
{
	for (size_t i = 1; i < n; i++)
		for (size_t j = i;
		     j > 0 && strcmp((const char *)a[j - 1].s + d, (const char *)a[j].s + d) > 0;
		     j--)
			swap(&a[j - 1], &a[j]);
}

static unsigned char median3(unsigned char x, unsigned char y, unsigned char z)
{
	if (x < y)
		return y < z ? y : x < z ? z : x;
	return x < z ? x : y < z ? z : y;
}

static void mkqs(key *keys, size_t count)
{
	GArray *todo = g_array_new(FALSE, FALSE, sizeof(task));
	task t = {0, count, 0};
	g_array_append_val(todo, t);
	while (todo->len > 0) {
		t = g_array_index(todo, task, todo->len - 1);
		g_array_set_size(todo, todo->len - 1);
		key *a = keys + t.lo;
		size_t n = t.n, d = t.depth;
		if (n < 12) {
			insertion(a, n, d);
			continue;
		}
		/* The characters every string of the part shares from d on
		 * (none of them the end): each would take a pass that moves
		 * nothing and leaves one part, so they are stepped over, each
		 * string read once along its length (a scope's names share
		 * long prefixes). */
		size_t common = strlen((const char *)a[0].s + d);
		for (size_t i = 1; i < n && common > 0; i++) {
			const unsigned char *x = a[0].s + d, *y = a[i].s + d;
			size_t k = 0;
			while (k < common && x[k] == y[k])
				k++;
			common = k;
		}
		d += common;
		unsigned char v = median3(a[0].s[d], a[n / 2].s[d], a[n - 1].s[d]);
		/* three ways on the character at depth d: lt | eq | gt */
		size_t lt = 0, i = 0, gt = n;
		while (i < gt) {
			unsigned char c = a[i].s[d];
			if (c < v)
				swap(&a[lt++], &a[i++]);
			else if (c > v)
				swap(&a[i], &a[--gt]);
			else
				i++;
		}
		task parts[3] = {
		    {t.lo, lt, d}, {t.lo + lt, gt - lt, d + 1}, {t.lo + gt, n - gt, d}};
		for (int k = 0; k < 3; k++) {
			/* the equal part at the strings' end is done: they are equal */
			if (parts[k].n < 2 || (k == 1 && v == '\0'))
				continue;
			g_array_append_val(todo, parts[k]);
		}
	}
	g_array_free(todo, TRUE);
}

void tl_strsort(void **items, size_t n, size_t name_offset)
{
	if (n < 2)
		return;
	key *keys = g_new(key, n);
	for (size_t i = 0; i < n; i++) {
		const char *s;
		memcpy(&s, (const char *)items[i] + name_offset, sizeof s);
		keys[i] = (key){.s = (const unsigned char *)s, .item = items[i]};
	}
	mkqs(keys, n);
	for (size_t i = 0; i < n; i++)
		items[i] = keys[i].item;
	g_free(keys);
}
