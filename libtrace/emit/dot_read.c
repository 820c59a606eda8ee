#include "emit/dot_read.h"

#include <glib.h>
#include <string.h>

/* The text, handed to the parser a line at a time as agmemread does. */
typedef struct text_chan {
	const char *data;
	size_t len, at;
} text_chan;

static int text_read(void *chan, char *buf, int bufsize)
{
	text_chan *c = chan;
	int n = 0;
	while (n < bufsize && c->at < c->len) {
		char ch = c->data[c->at++];
		buf[n++] = ch;
		if (ch == '\n')
			break;
	}
	return n;
}

/* IDs: the k-th name read gets 2k (even, as cgraph wants a named object's
 * ID), an anonymous object the next odd number. The names are the graph's
 * own strings (agstrdup), as cgraph's default IDs are: its writer asks
 * aghtmlstr of a name, which reads the reference count in front of the
 * string, and a name of our own allocation there made it read the heap's
 * bytes (valgrind: an invalid read; the DOT written then quoted some names
 * <so> and others "so" from run to run). The graph frees its strings when
 * it is closed. */
typedef struct seq_ids {
	Agraph_t *g;
	GHashTable *by_name; /* name (the graph's string) -> ID */
	GPtrArray *names;    /* name of ID 2(k + 1) at k */
	IDTYPE next_anonymous;
} seq_ids;

static void *ids_open(Agraph_t *g, Agdisc_t *disc)
{
	(void)disc;
	seq_ids *s = g_new0(seq_ids, 1);
	s->g = g;
	s->by_name = g_hash_table_new(g_str_hash, g_str_equal);
	s->names = g_ptr_array_new();
	s->next_anonymous = 1;
	return s;
}

static long ids_map(void *state, int objtype, char *str, IDTYPE *id, int createflag)
{
	(void)objtype;
	seq_ids *s = state;
	if (str == NULL) {
		*id = s->next_anonymous;
		s->next_anonymous += 2;
		return 1;
	}
	gpointer known;
	if (g_hash_table_lookup_extended(s->by_name, str, NULL, &known)) {
		*id = (IDTYPE)GPOINTER_TO_SIZE(known);
		return 1;
	}
	if (!createflag)
		return 0;
	char *copy = agstrdup(s->g, str);
	g_ptr_array_add(s->names, copy);
	*id = (IDTYPE)s->names->len * 2;
	g_hash_table_insert(s->by_name, copy, GSIZE_TO_POINTER((gsize)*id));
	return 1;
}

static long ids_alloc(void *state, int objtype, IDTYPE id)
{
	(void)state;
	(void)objtype;
	(void)id;
	return 0; /* no object asks for an ID of its own choosing */
}

static void ids_free(void *state, int objtype, IDTYPE id)
{
	(void)state;
	(void)objtype;
	(void)id; /* names live until the graph is closed */
}

static char *ids_print(void *state, int objtype, IDTYPE id)
{
	(void)objtype;
	seq_ids *s = state;
	if (id == 0 || id % 2 != 0 || id / 2 > s->names->len)
		return NULL;
	return g_ptr_array_index(s->names, (guint)(id / 2 - 1));
}

static void ids_close(void *state)
{
	seq_ids *s = state;
	g_hash_table_destroy(s->by_name);
	g_ptr_array_free(s->names, TRUE);
	g_free(s);
}

static void ids_register(void *state, int objtype, void *obj)
{
	(void)state;
	(void)objtype;
	(void)obj;
}

static Agiddisc_t seq_id_disc = {ids_open,  ids_map,   ids_alloc,   ids_free,
				 ids_print, ids_close, ids_register};

Agraph_t *tl_dot_read(const char *text)
{
	Agiodisc_t io = {text_read, AgIoDisc.putstr, AgIoDisc.flush};
	Agdisc_t disc = {&AgMemDisc, &seq_id_disc, &io};
	text_chan chan = {.data = text, .len = strlen(text)};
	return agread(&chan, &disc);
}

Agraph_t *tl_dot_open(const char *name)
{
	/* the graph keeps a pointer to its discipline */
	static Agdisc_t disc = {&AgMemDisc, &seq_id_disc, &AgIoDisc};
	return agopen((char *)name, Agdirected, &disc);
}
