#include "base/output.h"

#include <errno.h>
#include <fcntl.h>
#include <glib.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>

static bool same_file(const char *a, const char *b)
{
	struct stat sa, sb;
	if (a == NULL || b == NULL || strcmp(b, "-") == 0)
		return false;
	if (stat(a, &sa) != 0 || stat(b, &sb) != 0)
		return false;
	return sa.st_dev == sb.st_dev && sa.st_ino == sb.st_ino;
}

/* Whether `path` names the file standard output already is (/dev/stdout,
 * /dev/fd/1, or a link of one's own to /proc/self/fd/1): written through
 * fd 1 then, as "-" is, so a shell's ">>" keeps appending and nothing is
 * renamed over the link. */
static bool is_stdout(const char *path)
{
	struct stat sp, so;
	return stat(path, &sp) == 0 && fstat(STDOUT_FILENO, &so) == 0 &&
	       sp.st_dev == so.st_dev && sp.st_ino == so.st_ino;
}

/* The file `path` names once its links are followed (a link's target may
 * not exist yet); `path` itself where it is no link, or where the links
 * loop or cannot be read (then the rename reports it). */
static char *link_target(const char *path)
{
	char *at = g_strdup(path);
	struct stat st;
	for (int hops = 0; hops < 40 && lstat(at, &st) == 0 && S_ISLNK(st.st_mode); hops++) {
		char *to = g_file_read_link(at, NULL);
		if (to == NULL)
			break;
		char *dir = g_path_get_dirname(at);
		g_free(at);
		at = g_path_is_absolute(to) ? g_strdup(to) : g_build_filename(dir, to, NULL);
		g_free(dir);
		g_free(to);
	}
	return at;
}

int tl_output_open(tl_output **out, const char *path, bool gzip, const char *const *inputs,
		   size_t n_inputs, tl_error *err)
{
	bool to_stdout = path == NULL || strcmp(path, "-") == 0 || is_stdout(path);
	if (path != NULL && strcmp(path, "-") != 0) {
		if (g_str_has_suffix(path, ".gz"))
			gzip = true;
		for (size_t i = 0; i < n_inputs; i++)
			if (same_file(path, inputs[i]))
				return tl_error_set(err, "output '%s' is also an input", path);
	}
	if (to_stdout && gzip && isatty(STDOUT_FILENO)) {
		return tl_error_set(err, "refusing to write compressed output to a terminal "
					 "(redirect it, or use -o FILE)");
	}
	tl_output *o = g_new0(tl_output, 1);
	o->fd = -1;
	o->buf = g_malloc(TL_OUTPUT_BUF);
	o->gzip = gzip;
	struct stat st;
	if (to_stdout) {
		o->fd = STDOUT_FILENO;
	} else if (stat(path, &st) == 0 && !S_ISREG(st.st_mode)) {
		/* A device or a pipe (/dev/stdout, a FIFO): no rename possible,
		 * write to it directly. */
		o->fd = open(path, O_WRONLY | O_CLOEXEC);
		if (o->fd < 0) {
			int e = errno;
			tl_output_abort(o);
			return tl_error_set(err, "cannot write '%s': %s", path, strerror(e));
		}
		o->path = g_strdup(path);
	} else {
		/* A link to a plain file stays a link: the new file is made
		 * beside the file it names and renamed onto that. */
		o->path = g_strdup(path);
		o->dest = link_target(path);
		char *dir = g_path_get_dirname(o->dest);
		char *base = g_path_get_basename(o->dest);
		o->tmp = g_strdup_printf("%s/.%s.XXXXXX", dir, base);
		g_free(dir);
		g_free(base);
		o->fd = g_mkstemp_full(o->tmp, O_WRONLY | O_CLOEXEC, 0666 & ~(mode_t)0);
		if (o->fd < 0) {
			int e = errno;
			g_free(o->tmp);
			o->tmp = NULL;
			tl_output_abort(o);
			return tl_error_set(err, "cannot write '%s': %s", path, strerror(e));
		}
		/* mkstemp makes 0600; give the file the usual umask mode */
		mode_t mask = umask(0);
		umask(mask);
		fchmod(o->fd, 0666 & ~mask);
	}
	if (gzip) {
		z_stream *zs = g_new0(z_stream, 1);
		if (deflateInit2(zs, 6, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY) != Z_OK) {
			g_free(zs);
			tl_output_abort(o);
			return tl_error_set(err, "cannot start gzip compression");
		}
		o->zs = zs;
	}
	*out = o;
	return 0;
}

static void write_all(tl_output *o, const void *data, size_t n)
{
	const char *p = data;
	while (n > 0 && o->error == 0) {
		ssize_t w = write(o->fd, p, n);
		if (w < 0) {
			if (errno == EINTR)
				continue;
			if (errno == EPIPE) {
				/* SIGPIPE was ignored (a parent's choice, inherited):
				 * end as a closed pipe ends any Unix tool, quietly. */
				signal(SIGPIPE, SIG_DFL);
				raise(SIGPIPE);
			}
			o->error = errno;
			return;
		}
		p += w;
		n -= (size_t)w;
	}
}

static void deflate_out(tl_output *o, const void *data, size_t n, int flush)
{
	z_stream *zs = o->zs;
	unsigned char chunk[1 << 16];
	zs->next_in = (unsigned char *)(uintptr_t)data;
	zs->avail_in = (uInt)n;
	do {
		zs->next_out = chunk;
		zs->avail_out = sizeof chunk;
		int rc = deflate(zs, flush);
		if (rc == Z_STREAM_ERROR) {
			o->error = -1;
			return;
		}
		write_all(o, chunk, sizeof chunk - zs->avail_out);
	} while (zs->avail_out == 0 && o->error == 0);
}

tl_output *tl_output_new_memory(void)
{
	tl_output *o = g_new0(tl_output, 1);
	o->buf = g_malloc(TL_OUTPUT_BUF);
	o->fd = -1;
	o->memory = g_string_new(NULL);
	return o;
}

int tl_output_new_scratch(tl_output **out, tl_error *err)
{
	char *path = g_build_filename(g_get_tmp_dir(), "tftrace-XXXXXX", NULL);
	int fd = g_mkstemp_full(path, O_RDWR | O_CLOEXEC, 0600);
	int e = errno;
	if (fd >= 0)
		unlink(path);
	g_free(path);
	if (fd < 0)
		return tl_error_set(err, "cannot make a temporary file in '%s': %s",
				    g_get_tmp_dir(), strerror(e));
	tl_output *o = g_new0(tl_output, 1);
	o->buf = g_malloc(TL_OUTPUT_BUF);
	o->fd = fd;
	*out = o;
	return 0;
}

uint64_t tl_output_tell(const tl_output *o)
{
	return o->flushed + o->len;
}

static int scratch_error(int e, tl_error *err)
{
	return tl_error_set(err, "cannot use a temporary file in '%s': %s", g_get_tmp_dir(),
			    e > 0 ? strerror(e) : "short read");
}

/* From a scratch file into a plain file, the kernel copies the bytes
 * (copy_file_range), not read into the buffer and written out again (a
 * 100 MB run's page is 42 MB). False where it cannot (a pipe, another
 * file system, an older kernel), for the buffer's way to do the rest. */
static bool copy_in_kernel(tl_output *dst, tl_output *src, uint64_t *from, uint64_t *len)
{
	if (dst->fd < 0 || dst->gzip || dst->memory != NULL || dst->error != 0)
		return false;
	tl_output_flush(dst);
	while (*len > 0) {
		off_t at = (off_t)*from;
		ssize_t got = copy_file_range(src->fd, &at, dst->fd, NULL, (size_t)*len, 0);
		if (got < 0 && errno == EINTR)
			continue;
		if (got <= 0)
			return false;
		*from += (uint64_t)got;
		*len -= (uint64_t)got;
		dst->flushed += (uint64_t)got;
	}
	return true;
}

int tl_output_copy(tl_output *dst, tl_output *src, uint64_t from, uint64_t len, tl_error *err)
{
	tl_output_flush(src);
	if (src->error != 0)
		return scratch_error(src->error, err);
	if (len >= TL_OUTPUT_BUF && copy_in_kernel(dst, src, &from, &len))
		return 0;
	while (len > 0) {
		if (dst->len == TL_OUTPUT_BUF)
			tl_output_flush(dst);
		size_t room = TL_OUTPUT_BUF - dst->len;
		size_t want = len < room ? (size_t)len : room;
		ssize_t got = pread(src->fd, dst->buf + dst->len, want, (off_t)from);
		if (got < 0 && errno == EINTR)
			continue;
		if (got <= 0)
			return scratch_error(got < 0 ? errno : 0, err);
		dst->len += (size_t)got;
		from += (uint64_t)got;
		len -= (uint64_t)got;
	}
	return 0;
}

int64_t tl_output_read(tl_output *src, uint64_t from, void *buf, size_t len, tl_error *err)
{
	tl_output_flush(src);
	if (src->error != 0)
		return scratch_error(src->error, err);
	for (;;) {
		ssize_t got = pread(src->fd, buf, len, (off_t)from);
		if (got < 0 && errno == EINTR)
			continue;
		if (got < 0)
			return scratch_error(errno, err);
		return got;
	}
}

void tl_output_flush(tl_output *o)
{
	if (o->len == 0)
		return;
	o->flushed += o->len;
	if (o->memory != NULL)
		g_string_append_len(o->memory, o->buf, (gssize)o->len);
	else if (o->gzip)
		deflate_out(o, o->buf, o->len, Z_NO_FLUSH);
	else
		write_all(o, o->buf, o->len);
	o->len = 0;
}

static void release(tl_output *o)
{
	if (o->zs != NULL) {
		deflateEnd(o->zs);
		g_free(o->zs);
	}
	g_free(o->buf);
	g_free(o->path);
	g_free(o->dest);
	g_free(o->tmp);
	if (o->memory != NULL)
		g_string_free(o->memory, TRUE);
	g_free(o);
}

GString *tl_output_take(tl_output *o)
{
	tl_output_flush(o);
	GString *text = o->memory;
	o->memory = NULL;
	release(o);
	return text;
}

int tl_output_close(tl_output *o, tl_error *err)
{
	tl_output_flush(o);
	if (o->gzip && o->error == 0)
		deflate_out(o, NULL, 0, Z_FINISH);
	int rc = 0;
	const char *name = o->path != NULL ? o->path : "standard output";
	if (o->fd >= 0 && o->fd != STDOUT_FILENO && close(o->fd) < 0 && o->error == 0) {
		o->error = errno;
	}
	if (o->error != 0) {
		rc = tl_error_set(err, "cannot write '%s': %s", name,
				  o->error > 0 ? strerror(o->error) : "compression failed");
		if (o->tmp != NULL)
			unlink(o->tmp);
	} else if (o->tmp != NULL && rename(o->tmp, o->dest) < 0) {
		rc = tl_error_set(err, "cannot write '%s': %s", name, strerror(errno));
		unlink(o->tmp);
	}
	release(o);
	return rc;
}

void tl_output_abort(tl_output *o)
{
	if (o == NULL)
		return;
	if (o->fd >= 0 && o->fd != STDOUT_FILENO)
		close(o->fd);
	if (o->tmp != NULL)
		unlink(o->tmp);
	release(o);
}

/* "00" to "99": two digits per division, written from the end. */
static const char digit_pairs[201] = "00010203040506070809"
				     "10111213141516171819"
				     "20212223242526272829"
				     "30313233343536373839"
				     "40414243444546474849"
				     "50515253545556575859"
				     "60616263646566676869"
				     "70717273747576777879"
				     "80818283848586878889"
				     "90919293949596979899";

void tl_output_uint(tl_output *o, uint64_t v)
{
	/* 20 digits at most (UINT64_MAX), written in place from the end: the
	 * count first, by comparisons */
	static const uint64_t pow10[20] = {1u,
					   10u,
					   100u,
					   1000u,
					   10000u,
					   100000u,
					   1000000u,
					   10000000u,
					   100000000u,
					   1000000000u,
					   10000000000u,
					   100000000000u,
					   1000000000000u,
					   10000000000000u,
					   100000000000000u,
					   1000000000000000u,
					   10000000000000000u,
					   100000000000000000u,
					   1000000000000000000u,
					   10000000000000000000u};
	if (o->len + 20 > TL_OUTPUT_BUF)
		tl_output_flush(o);
	size_t n = 1;
	while (n < 20 && v >= pow10[n])
		n++;
	char *p = o->buf + o->len + n;
	o->len += n;
	while (v >= 100) {
		unsigned pair = (unsigned)(v % 100) * 2;
		v /= 100;
		p -= 2;
		p[0] = digit_pairs[pair];
		p[1] = digit_pairs[pair + 1];
	}
	if (v >= 10) {
		p[-2] = digit_pairs[v * 2];
		p[-1] = digit_pairs[v * 2 + 1];
	} else {
		p[-1] = (char)('0' + v);
	}
}

void tl_output_int(tl_output *o, int64_t v)
{
	if (v < 0) {
		tl_output_char(o, '-');
		tl_output_uint(o, (uint64_t)0 - (uint64_t)v);
		return;
	}
	tl_output_uint(o, (uint64_t)v);
}

void tl_output_csv(tl_output *o, const char *field)
{
	if (strpbrk(field, ",\"\n\r") == NULL) {
		tl_output_str(o, field);
		return;
	}
	tl_output_char(o, '"');
	for (const char *p = field; *p != '\0'; p++) {
		if (*p == '"')
			tl_output_char(o, '"');
		tl_output_char(o, *p);
	}
	tl_output_char(o, '"');
}

void tl_output_printf(tl_output *o, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	char *s = g_strdup_vprintf(fmt, ap);
	va_end(ap);
	tl_output_str(o, s);
	g_free(s);
}
