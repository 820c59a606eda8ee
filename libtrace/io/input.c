#include "io/input.h"

#include <errno.h>
#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <glib.h>
#include <string.h>
#include <unistd.h>
#include <zlib.h>

#define HEAD_MAX TL_INPUT_PEEK_MAX
#define RAW_MAX (256 * 1024)

/* The bytes come from the file through `raw` (read ahead, 256 KiB at a
 * time), then, for gzip, through zlib's inflate; `head` holds what was
 * decompressed ahead for peeking. zlib's own gzread is not used: it drops
 * what it decompressed in a call that meets corrupt data, and cannot say
 * where in the file a stream broke. */
struct tl_input {
	char *name;
	int fd;
	size_t file_size; /* a regular file's size (0: not one) */
	void *map;	  /* what tl_input_map handed out */
	size_t map_len;
	bool map_is_mmap;
	bool gzip;
	z_stream zs;
	bool zs_live;	  /* inflateInit2 done */
	bool member_done; /* the current gzip member ended */
	uint8_t *raw;
	size_t raw_pos, raw_len;
	bool raw_eof;
	uint64_t raw_read; /* bytes read from the file */
	uint64_t offset;   /* bytes handed to the caller */
	uint64_t produced; /* bytes decompressed (or read, plain), to head or caller */
	uint8_t head[HEAD_MAX];
	size_t head_pos; /* next unread byte of head */
	size_t head_len; /* valid bytes in head */
	bool eof;	 /* no more bytes: the end, or damage */
	char *damage;	 /* where a damaged gzip stream stopped */
	bool failed;	 /* a read failed: every further read fails */
	tl_error failure;
};

/* A read that failed: the error sticks, every later read returns it. */
static int fail(tl_input *in, tl_error *err, const char *why)
{
	in->failed = true;
	tl_error_set(&in->failure, "%s", why);
	if (err != NULL)
		*err = in->failure;
	return -1;
}

/* Refills `raw` from the file when it is empty. 0 ok (raw_eof at the end),
 * -1 on a read error. */
static int raw_fill(tl_input *in, tl_error *err)
{
	if (in->raw_pos < in->raw_len || in->raw_eof)
		return 0;
	in->raw_pos = in->raw_len = 0;
	for (;;) {
		ssize_t n = read(in->fd, in->raw, RAW_MAX);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return fail(in, err, strerror(errno));
		if (n == 0)
			in->raw_eof = true;
		in->raw_len = (size_t)n;
		in->raw_read += (uint64_t)n;
		return 0;
	}
}

/* Plain bytes: what is left in `raw`, then straight from the file. */
static long long plain_fill(tl_input *in, uint8_t *buf, size_t n, tl_error *err)
{
	size_t done = 0;
	size_t have = in->raw_len - in->raw_pos;
	if (have > 0) {
		done = have < n ? have : n;
		memcpy(buf, in->raw + in->raw_pos, done);
		in->raw_pos += done;
	}
	while (done < n && !in->raw_eof) {
		ssize_t got = read(in->fd, buf + done, n - done);
		if (got < 0 && errno == EINTR)
			continue;
		if (got < 0)
			return fail(in, err, strerror(errno));
		if (got == 0)
			in->raw_eof = true;
		in->raw_read += (uint64_t)got;
		done += (size_t)got;
	}
	return (long long)done;
}

/* The byte of the file inflate has reached. */
static uint64_t compressed_at(const tl_input *in)
{
	return in->raw_read - (in->raw_len - in->raw_pos);
}

/* `out` bytes of this call were decompressed before the damage. */
static void gzip_damage(tl_input *in, size_t out, const char *what, const char *why)
{
	in->damage = g_strdup_printf("gzip %s at compressed byte %llu, after decompressed byte "
				     "%llu%s%s%s",
				     what, (unsigned long long)compressed_at(in),
				     (unsigned long long)(in->produced + out), why ? " (" : "",
				     why ? why : "", why ? ")" : "");
}

/* After a member's end: another member follows (gzip files may be
 * concatenated), or the bytes after it are ignored, as gzip(1) and zlib do
 * with trailing garbage. 1: next member ready, 0: the end, -1: error. */
static int next_member(tl_input *in, tl_error *err)
{
	if (raw_fill(in, err) < 0)
		return -1;
	if (in->raw_pos == in->raw_len)
		return 0;
	if (in->raw[in->raw_pos] != 0x1f)
		return 0;
	/* the second magic byte may lie in the next read */
	if (in->raw_pos + 1 == in->raw_len) {
		uint8_t first = 0x1f;
		in->raw_pos = in->raw_len;
		if (raw_fill(in, err) < 0)
			return -1;
		if (in->raw_len == 0)
			return 0;
		if (in->raw[0] != 0x8b)
			return 0;
		/* put the first byte back before the second */
		memmove(in->raw + 1, in->raw, in->raw_len);
		in->raw[0] = first;
		in->raw_len++;
	}
	if (in->raw[in->raw_pos + 1] != 0x8b)
		return 0;
	inflateReset(&in->zs);
	in->member_done = false;
	return 1;
}

/* Decompresses up to n bytes into buf. Stops early only at the end of the
 * bytes: the end of the last member, or damage (noted in in->damage). */
static long long gzip_fill(tl_input *in, uint8_t *buf, size_t n, tl_error *err)
{
	in->zs.next_out = buf;
	in->zs.avail_out = (uInt)n;
	while (in->zs.avail_out > 0) {
		if (in->member_done) {
			int more = next_member(in, err);
			if (more < 0)
				return -1;
			if (more == 0) {
				in->eof = true;
				break;
			}
		}
		if (raw_fill(in, err) < 0)
			return -1;
		if (in->raw_pos == in->raw_len) {
			gzip_damage(in, n - in->zs.avail_out, "stream cut short", NULL);
			break;
		}
		in->zs.next_in = in->raw + in->raw_pos;
		in->zs.avail_in = (uInt)(in->raw_len - in->raw_pos);
		int rc = inflate(&in->zs, Z_NO_FLUSH);
		in->raw_pos = in->raw_len - in->zs.avail_in;
		if (rc == Z_STREAM_END) {
			in->member_done = true;
		} else if (rc == Z_DATA_ERROR || rc == Z_NEED_DICT) {
			gzip_damage(in, n - in->zs.avail_out, "data corrupt",
				    in->zs.msg != NULL ? in->zs.msg : "not deflate data");
			break;
		} else if (rc != Z_OK && rc != Z_BUF_ERROR) {
			return fail(in, err, in->zs.msg != NULL ? in->zs.msg : "cannot decompress");
		}
		/* Z_OK and Z_BUF_ERROR (no progress until more input): go on */
	}
	if (in->damage != NULL)
		in->eof = true;
	return (long long)(n - in->zs.avail_out);
}

/* Reads up to n bytes into buf, past `head`. Returns the bytes read (fewer
 * than n only at the end of the bytes: the input's end, or where its gzip
 * stream is damaged, then noted in in->damage), or -1 on a read error,
 * which sticks. */
static long long fill(tl_input *in, uint8_t *buf, size_t n, tl_error *err)
{
	if (in->failed) {
		if (err != NULL)
			*err = in->failure;
		return -1;
	}
	if (in->eof || n == 0)
		return 0;
	if (n > (1u << 30))
		n = 1u << 30;
	long long got = in->gzip ? gzip_fill(in, buf, n, err) : plain_fill(in, buf, n, err);
	if (got < 0)
		return -1;
	in->produced += (uint64_t)got;
	if ((size_t)got < n)
		in->eof = true;
	return got;
}

int tl_input_open(tl_input **out, const char *path, tl_error *err)
{
	bool is_stdin = path == NULL || strcmp(path, "-") == 0;
	int fd = is_stdin ? dup(STDIN_FILENO) : open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return tl_error_set(err, "%s", strerror(errno));
	struct stat st;
	size_t file_size = 0;
	if (fstat(fd, &st) == 0) {
		/* A directory opens fine but reads fail with a poor message. */
		if (!is_stdin && S_ISDIR(st.st_mode)) {
			close(fd);
			return tl_error_set(err, "is a directory");
		}
		/* (standard input may be a file read part way already: its
		 * bytes start where it stands, which a map would not) */
		if (S_ISREG(st.st_mode) && st.st_size > 0 && lseek(fd, 0, SEEK_CUR) == 0)
			file_size = (size_t)st.st_size;
	}
	tl_input *in = g_new0(tl_input, 1);
	in->name = g_strdup(is_stdin ? "<stdin>" : path);
	in->fd = fd;
	in->file_size = file_size;
	in->raw = g_malloc(RAW_MAX + 1);
	*out = in;
	if (raw_fill(in, err) < 0)
		goto failed;
	/* The gzip magic, as zlib's gzread looks for it. A one-byte first read
	 * (a pipe) is topped up so the two bytes can be seen. */
	if (in->raw_len == 1 && !in->raw_eof) {
		ssize_t n;
		do
			n = read(fd, in->raw + 1, RAW_MAX - 1);
		while (n < 0 && errno == EINTR);
		if (n < 0) {
			fail(in, err, strerror(errno));
			goto failed;
		}
		if (n == 0)
			in->raw_eof = true;
		in->raw_len += (size_t)n;
		in->raw_read += (uint64_t)n;
	}
	in->gzip = in->raw_len >= 2 && in->raw[0] == 0x1f && in->raw[1] == 0x8b;
	if (in->gzip) {
		if (inflateInit2(&in->zs, 15 + 16) != Z_OK) {
			tl_error_set(err, "out of memory opening input");
			goto failed;
		}
		in->zs_live = true;
	}
	/* Fill the head so the caller can sniff. */
	long long n = fill(in, in->head, HEAD_MAX, err);
	if (n < 0)
		goto failed;
	in->head_len = (size_t)n;
	return 0;
failed:
	tl_input_close(in);
	*out = NULL;
	return -1;
}

void tl_input_close(tl_input *in)
{
	if (in == NULL)
		return;
	if (in->zs_live)
		inflateEnd(&in->zs);
	close(in->fd);
	if (in->map_is_mmap)
		munmap(in->map, in->map_len);
	else
		g_free(in->map);
	g_free(in->raw);
	g_free(in->damage);
	g_free(in->name);
	g_free(in);
}

const char *tl_input_name(const tl_input *in)
{
	return in->name;
}

bool tl_input_is_gzip(const tl_input *in)
{
	return in->gzip;
}

size_t tl_input_peek(tl_input *in, const uint8_t **data, size_t want, tl_error *err)
{
	if (want > HEAD_MAX)
		want = HEAD_MAX;
	size_t have = in->head_len - in->head_pos;
	if (have < want && !in->eof) {
		memmove(in->head, in->head + in->head_pos, have);
		in->head_pos = 0;
		in->head_len = have;
		while (in->head_len < want && !in->eof) {
			long long n =
			    fill(in, in->head + in->head_len, HEAD_MAX - in->head_len, err);
			if (n < 0)
				break;
			in->head_len += (size_t)n;
		}
		have = in->head_len;
	}
	*data = in->head + in->head_pos;
	return have < want ? have : want;
}

long long tl_input_read(tl_input *in, void *buf, size_t n, tl_error *err)
{
	uint8_t *dst = buf;
	size_t done = 0;
	size_t have = in->head_len - in->head_pos;
	if (have > 0) {
		size_t take = have < n ? have : n;
		memcpy(dst, in->head + in->head_pos, take);
		in->head_pos += take;
		done += take;
	}
	while (done < n && !in->eof) {
		long long got = fill(in, dst + done, n - done, err);
		if (got < 0) {
			in->offset += done;
			return -1;
		}
		done += (size_t)got;
	}
	in->offset += done;
	if (done < n && in->failed) {
		if (err != NULL)
			*err = in->failure;
		return -1;
	}
	return (long long)done;
}

long long tl_input_skip(tl_input *in, uint64_t n, tl_error *err)
{
	uint64_t done = 0;
	size_t have = in->head_len - in->head_pos;
	size_t take = have < n ? have : (size_t)n;
	in->head_pos += take;
	done += take;
	/* The head is drained: it serves as the scratch the skipped bytes are
	 * read into. */
	while (done < n && !in->eof && !in->failed) {
		uint64_t chunk = n - done < HEAD_MAX ? n - done : HEAD_MAX;
		in->head_pos = in->head_len = 0;
		long long got = fill(in, in->head, (size_t)chunk, err);
		if (got < 0)
			break;
		done += (uint64_t)got;
	}
	in->offset += done;
	if (done < n && in->failed) {
		if (err != NULL)
			*err = in->failure;
		return -1;
	}
	return (long long)done;
}

int tl_input_slurp(tl_input *in, uint8_t **data, size_t *len, tl_error *err)
{
	size_t cap = 1u << 20;
	size_t used = 0;
	uint8_t *buf = g_malloc(cap + 1);
	for (;;) {
		if (cap - used < (1u << 16)) {
			cap *= 2;
			buf = g_realloc(buf, cap + 1);
		}
		long long got = tl_input_read(in, buf + used, cap - used, err);
		if (got < 0) {
			g_free(buf);
			return -1;
		}
		if (got == 0)
			break;
		used += (size_t)got;
	}
	buf[used] = '\0';
	*data = buf;
	*len = used;
	return 0;
}

uint64_t tl_input_offset(const tl_input *in)
{
	return in->offset;
}

const char *tl_input_damage(const tl_input *in)
{
	return in->damage;
}

bool tl_input_can_map(const tl_input *in)
{
	return in->map == NULL && !in->gzip && in->file_size > 0 && in->offset == 0 &&
	       in->head_pos == 0;
}

int tl_input_map(tl_input *in, const uint8_t **data, size_t *len, tl_error *err)
{
	/* A plain file read from its start is mapped, not copied: a 100 MB
	 * dump costs no copy and no fresh pages. */
	if (tl_input_can_map(in)) {
		/* Populated at once: one call instead of a fault per page. */
		void *p =
		    mmap(NULL, in->file_size, PROT_READ, MAP_PRIVATE | MAP_POPULATE, in->fd, 0);
		if (p != MAP_FAILED) {
			madvise(p, in->file_size, MADV_SEQUENTIAL);
			in->map = p;
			in->map_len = in->file_size;
			in->map_is_mmap = true;
			in->offset = in->file_size;
			in->head_pos = in->head_len;
			in->eof = true;
		}
	}
	if (in->map == NULL) {
		uint8_t *buf = NULL;
		size_t n = 0;
		if (tl_input_slurp(in, &buf, &n, err) < 0)
			return -1;
		in->map = buf;
		in->map_len = n;
	}
	*data = in->map;
	*len = in->map_len;
	return 0;
}

uint64_t tl_input_size_left(const tl_input *in)
{
	if (in->gzip || in->file_size <= in->offset)
		return 0;
	return (uint64_t)(in->file_size - in->offset);
}

int tl_input_read_all(tl_input *in, tl_arena *arena, uint8_t **data, size_t *len, tl_error *err)
{
	/* A plain file's size is known: one read into one buffer, one byte
	 * bigger, so that reading fewer bytes than asked proves the end. */
	size_t first = 1u << 20;
	if (!in->gzip && in->file_size > in->offset)
		first = (size_t)(in->file_size - in->offset) + 1;
	uint8_t *buf = tl_arena_alloc(arena, first);
	long long got = tl_input_read(in, buf, first, err);
	if (got < 0)
		return -1;
	if ((size_t)got < first) {
		buf[got] = '\0';
		*data = buf;
		*len = (size_t)got;
		return 0;
	}
	/* A pipe, a gzip stream, a file that grew: the rest in growing chunks,
	 * then everything in one buffer. */
	struct chunk {
		uint8_t *p;
		size_t n;
	};
	tl_arena *tmp = tl_arena_new();
	GArray *chunks = g_array_new(FALSE, FALSE, sizeof(struct chunk));
	struct chunk c = {buf, first};
	g_array_append_val(chunks, c);
	size_t total = first, size = first;
	int rc = 0;
	for (;;) {
		if (size < (64u << 20))
			size *= 2;
		c.p = tl_arena_alloc(tmp, size);
		got = tl_input_read(in, c.p, size, err);
		if (got < 0) {
			rc = -1;
			break;
		}
		c.n = (size_t)got;
		g_array_append_val(chunks, c);
		total += c.n;
		if (c.n < size)
			break;
	}
	if (rc == 0) {
		uint8_t *all = tl_arena_alloc(arena, total + 1);
		size_t at = 0;
		for (guint i = 0; i < chunks->len; i++) {
			struct chunk *k = &g_array_index(chunks, struct chunk, i);
			memcpy(all + at, k->p, k->n);
			at += k->n;
		}
		all[total] = '\0';
		*data = all;
		*len = total;
	}
	g_array_free(chunks, TRUE);
	tl_arena_free(tmp);
	return rc;
}
