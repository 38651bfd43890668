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
	int	 held;		/* a c2 that ended the last write */
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

/* A byte a terminal acts on cannot reach it; UTF-8 text passes whole. */
size_t
termout_filter(char *dst, const char *src, size_t n, int *held)
{
	const unsigned char *s = (const unsigned char *)src;
	size_t i = 0, o = 0;
	int k;

	if (*held && n > 0 && s[0] >= 0x80 && s[0] <= 0x9f) {
		dst[o++] = '?';
		i = 1;
	} else if (*held)
		dst[o++] = (char)0xc2;
	*held = 0;
	while (i < n) {
		if (s[i] == 0xc2 && i + 1 == n) {
			*held = 1;
			break;
		}
		k = bd_utf8_control(s + i, n - i);
		if (k == 0 || s[i] == '\n' || s[i] == '\t') {
			dst[o++] = (char)s[i++];
			continue;
		}
		dst[o++] = '?';
		i += (size_t)k;
	}
	return o;
}

/* The stream's write function: filtered in chunks, straight to the fd. */
static ssize_t
termout_cookie_write(void *cookie, const char *buf, size_t size)
{
	struct termout *t = cookie;
	char out[4096 + 1];
	size_t done, n, len;

	if (t->raw) {
		/* A c2 held back is followed by no C1 control. */
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

/* On fclose a c2 still held back is written: nothing followed it. */
static int
termout_cookie_close(void *cookie)
{
	struct termout *t = cookie;
	char out[1];
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
