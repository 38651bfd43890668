/* SPDX-License-Identifier: MIT */
/*
 * The misbehaving lab of tests/support/fakelab.h: one thread answers one
 * request a connection, in the order they come, with Connection: close.
 */
#include <criterion/criterion.h>

#include <arpa/inet.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <unistd.h>

#include "common/xmalloc.h"
#include "tests/support/fakelab.h"

#define FAKELAB_REQ_MAX	(256 * 1024)

static void
fakelab_reply(int fd, int status, const char *body)
{
	char *out;

	xasprintf(&out, "HTTP/1.1 %d %s\r\nContent-Type: application/json\r\n"
	    "Content-Length: %zu\r\nConnection: close\r\n\r\n%s", status,
	    status < 300 ? "OK" : "Not Found", strlen(body), body);
	/* A client that went away is no failure of the lab. */
	(void)!write(fd, out, strlen(out));
	free(out);
}

/*
 * Reads one request: the head, then as many body bytes as it announces
 * (after a 100 Continue when asked).  NULL when the client gave up.
 */
static char *
fakelab_read(int fd)
{
	char *buf = xmalloc(FAKELAB_REQ_MAX + 1), *end, *cl;
	size_t got = 0, want = 0;
	ssize_t n;

	for (;;) {
		buf[got] = '\0';
		if ((end = strstr(buf, "\r\n\r\n")) != NULL) {
			if (want == 0) {
				cl = strcasestr(buf, "\r\nContent-Length:");
				want = (size_t)(end + 4 - buf) + (cl != NULL &&
				    cl < end ? strtoul(cl + 17, NULL, 10) : 0);
				if (strcasestr(buf, "\r\nExpect: 100") != NULL)
					(void)!write(fd, "HTTP/1.1 100 Continue"
					    "\r\n\r\n", 25);
			}
			if (got >= want)
				return buf;
		}
		if (got == FAKELAB_REQ_MAX ||
		    (n = read(fd, buf + got, FAKELAB_REQ_MAX - got)) <= 0)
			break;
		got += (size_t)n;
	}
	free(buf);
	return NULL;
}

/* The API as the daemon uses it; every job stays Running. */
static void
fakelab_answer(struct fakelab *fl, int fd, const char *method,
    const char *path)
{
	char body[128];
	int job;

	if (strncmp(path, "/api/v0.2/devicetypes/", 22) == 0)
		fakelab_reply(fd, 200, "{\"name\":\"ssh\"}");
	else if (strcmp(method, "POST") == 0 &&
	    strcmp(path, "/api/v0.2/jobs/") == 0) {
		pthread_mutex_lock(&fl->lock);
		job = ++fl->next_job;
		pthread_mutex_unlock(&fl->lock);
		snprintf(body, sizeof(body), "{\"message\":\"job(s) "
		    "successfully submitted\",\"job_ids\":[%d]}", job);
		fakelab_reply(fd, 201, body);
	} else if (strcmp(path, "/api/v0.2/jobs/") == 0)
		fakelab_reply(fd, 200, "{\"count\":0,\"results\":[]}");
	else if (sscanf(path, "/api/v0.2/jobs/%d/", &job) == 1 &&
	    strstr(path, "/cancel/") != NULL) {
		if (!fl->hang_cancel) {
			fakelab_reply(fd, 200, "{\"message\":\"Job cancel "
			    "signal sent.\"}");
			return;
		}
		pthread_mutex_lock(&fl->lock);
		fl->held = xreallocarray(fl->held, fl->nheld + 1,
		    sizeof(*fl->held));
		fl->held[fl->nheld++] = dup(fd);
		pthread_mutex_unlock(&fl->lock);
	} else if (sscanf(path, "/api/v0.2/jobs/%d/", &job) == 1) {
		snprintf(body, sizeof(body), "{\"id\":%d,\"state\":\"Running\","
		    "\"health\":\"Unknown\"}", job);
		fakelab_reply(fd, 200, body);
	} else
		fakelab_reply(fd, 404, "{\"detail\":\"Not found.\"}");
}

static void *
fakelab_serve(void *arg)
{
	struct fakelab *fl = arg;
	struct timeval tv = { .tv_sec = 10 };
	char *req, method[16], path[512], *q, *line;
	int fd;

	while ((fd = accept(fl->lfd, NULL, NULL)) >= 0) {
		setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
		if ((req = fakelab_read(fd)) == NULL ||
		    sscanf(req, "%15s %511s", method, path) != 2) {
			free(req);
			close(fd);
			continue;
		}
		free(req);
		if ((q = strchr(path, '?')) != NULL)
			*q = '\0';
		xasprintf(&line, "%s %s", method, path);
		pthread_mutex_lock(&fl->lock);
		fl->reqs = xreallocarray(fl->reqs, fl->nreqs + 1,
		    sizeof(*fl->reqs));
		fl->reqs[fl->nreqs++] = line;
		pthread_mutex_unlock(&fl->lock);
		fakelab_answer(fl, fd, method, path);
		close(fd);
	}
	return NULL;
}

void
fakelab_start(struct fakelab *fl, int hang_cancel)
{
	struct sockaddr_in a;
	socklen_t alen = sizeof(a);

	memset(fl, 0, sizeof(*fl));
	fl->inited = 1;
	fl->lfd = -1;
	fl->hang_cancel = hang_cancel;
	pthread_mutex_init(&fl->lock, NULL);
	memset(&a, 0, sizeof(a));
	a.sin_family = AF_INET;
	a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	fl->lfd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
	cr_assert_geq(fl->lfd, 0);
	cr_assert_eq(bind(fl->lfd, (struct sockaddr *)&a, sizeof(a)), 0);
	cr_assert_eq(listen(fl->lfd, 16), 0);
	cr_assert_eq(getsockname(fl->lfd, (struct sockaddr *)&a, &alen), 0);
	snprintf(fl->url, sizeof(fl->url), "http://127.0.0.1:%d",
	    ntohs(a.sin_port));
	cr_assert_eq(pthread_create(&fl->thread, NULL, fakelab_serve, fl), 0);
	fl->started = 1;
}

void
fakelab_release(struct fakelab *fl)
{
	size_t i;

	if (!fl->inited)
		return;
	if (fl->lfd >= 0) {
		shutdown(fl->lfd, SHUT_RDWR);
		close(fl->lfd);
	}
	if (fl->started)
		pthread_join(fl->thread, NULL);
	for (i = 0; i < fl->nheld; i++)
		close(fl->held[i]);
	free(fl->held);
	for (i = 0; i < fl->nreqs; i++)
		free(fl->reqs[i]);
	free(fl->reqs);
	pthread_mutex_destroy(&fl->lock);
	memset(fl, 0, sizeof(*fl));
}

long
fakelab_find(struct fakelab *fl, size_t from, const char *line)
{
	long at = -1;
	size_t i;

	pthread_mutex_lock(&fl->lock);
	for (i = from; i < fl->nreqs && at < 0; i++)
		if (strcmp(fl->reqs[i], line) == 0)
			at = (long)i;
	pthread_mutex_unlock(&fl->lock);
	return at;
}

size_t
fakelab_count(struct fakelab *fl, const char *prefix)
{
	size_t i, n = 0;

	pthread_mutex_lock(&fl->lock);
	for (i = 0; i < fl->nreqs; i++)
		if (strncmp(fl->reqs[i], prefix, strlen(prefix)) == 0)
			n++;
	pthread_mutex_unlock(&fl->lock);
	return n;
}

char *
fakelab_text(struct fakelab *fl)
{
	char *out = xstrdup(""), *t;
	size_t i;

	pthread_mutex_lock(&fl->lock);
	for (i = 0; i < fl->nreqs; i++) {
		xasprintf(&t, "%s%s\n", out, fl->reqs[i]);
		free(out);
		out = t;
	}
	pthread_mutex_unlock(&fl->lock);
	return out;
}
