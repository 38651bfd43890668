/* SPDX-License-Identifier: MIT */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common/error.h"
#include "common/xmalloc.h"
#include "ctl/termout.h"

/* One filtered stream: where its bytes go and what is pending. */
struct termout {
	FILE	*fp;		/* the stream termout_open made */
	int	 fd;
	int	 raw;		/* termout_raw is writing: no filter */
	int	 held;		/* bytes that ended the last write */
};

/* stdout and stderr are all bisectctl wraps. */
static struct termout	*termout_streams[2];

/* Writes all of buf to fd; 0, or -1 with errno set. */
static int
termout_write_all(int fd, const char *buf, size_t n)
{
	ssize_t w;

	while (n > 0) {
		w = write(fd, buf, n);
		if (w < 0 && errno == EINTR)
			continue;
		if (w < 0)
			return -1;
		buf += w;
		n -= (size_t)w;
	}
	return 0;
}

/*
 * A byte a terminal acts on cannot reach it; UTF-8 text passes whole.  An
 * incomplete character at the end of src (up to three bytes) is held,
 * packed into *held as its length and bytes, since the next write may
 * complete it into a C1 control or a bidi override.
 */
size_t
termout_filter(char *dst, const char *src, size_t n, int *held)
{
	unsigned char *s;
	size_t h = (size_t)*held & 3, i = 0, o = 0, total, k;
	int len;

	s = xmalloc(h + n + 1);
	for (k = 0; k < h; k++)
		s[k] = (unsigned char)((unsigned)*held >> (2 + 8 * k));
	memcpy(s + h, src, n);
	total = h + n;
	*held = 0;
	while (i < total) {
		len = bd_utf8_char(s + i, total - i);
		if (len < 0 && n > 0) {
			/* Cut by the end of this write: the next decides. */
			for (k = 0; i + k < total; k++)
				*held |= (int)((unsigned)s[i + k] <<
				    (2 + 8 * k));
			*held |= (int)k;
			break;
		}
		len = bd_utf8_control(s + i, total - i);
		if (len == 0 || s[i] == '\n' || s[i] == '\t') {
			dst[o++] = (char)s[i++];
			continue;
		}
		dst[o++] = '?';
		i += (size_t)len;
	}
	free(s);
	return o;
}

/* The stream's write function: filtered in chunks, straight to the fd. */
static ssize_t
termout_cookie_write(void *cookie, const char *buf, size_t size)
{
	struct termout *t = cookie;
	char out[4096 + 3];
	size_t done, n, len;

	if (t->raw) {
		/* Bytes held back are followed by no control. */
		len = termout_filter(out, "", 0, &t->held);
		if (termout_write_all(t->fd, out, len) < 0 ||
		    termout_write_all(t->fd, buf, size) < 0)
			return -1;
		return (ssize_t)size;
	}
	for (done = 0; done < size; done += n) {
		n = size - done < 4096 ? size - done : 4096;
		len = termout_filter(out, buf + done, n, &t->held);
		if (termout_write_all(t->fd, out, len) < 0)
			return -1;
	}
	return (ssize_t)size;
}

/* On fclose bytes still held back are written: nothing followed them. */
static int
termout_cookie_close(void *cookie)
{
	struct termout *t = cookie;
	char out[4];
	size_t len, i;
	int rc;

	len = termout_filter(out, "", 0, &t->held);
	rc = termout_write_all(t->fd, out, len);
	for (i = 0; i < 2; i++)
		if (termout_streams[i] == t)
			termout_streams[i] = NULL;
	free(t);
	return rc;
}

/* Output for people goes through one filter, set up once in main. */
FILE *
termout_open(FILE *fp)
{
	static const cookie_io_functions_t io = {
		.write = termout_cookie_write,
		.close = termout_cookie_close,
	};
	struct termout *t;
	size_t i;
	int fd = fileno(fp), mode;

	for (i = 0; i < 2 && termout_streams[i] != NULL; i++)
		;
	if (fd < 0 || i == 2)
		return fp;
	t = xcalloc(1, sizeof(*t));
	t->fd = fd;
	fflush(fp);
	if ((t->fp = fopencookie(t, "w", io)) == NULL) {
		free(t);
		return fp;
	}
	mode = fd == STDERR_FILENO ? _IONBF : isatty(fd) ? _IOLBF : _IOFBF;
	setvbuf(t->fp, NULL, mode, mode == _IONBF ? 0 : BUFSIZ);
	termout_streams[i] = t;
	return t->fp;
}

/* The few sequences bisectctl means to send pass the filter here. */
void
termout_raw(FILE *fp, const char *s)
{
	struct termout *t = NULL;
	size_t i;

	for (i = 0; i < 2; i++)
		if (termout_streams[i] != NULL && termout_streams[i]->fp == fp)
			t = termout_streams[i];
	if (t == NULL) {
		fputs(s, fp);
		return;
	}
	fflush(fp);
	t->raw = 1;
	fputs(s, fp);
	fflush(fp);
	t->raw = 0;
}
