/* SPDX-License-Identifier: MIT */
/*
 * What a lab says when it refuses us reaches the operator: the lab's
 * health changes to "token refused" with the lab's words in the message,
 * as an event and in lava_info(), also when the quoted words end in the
 * middle of a UTF-8 character.  The lab is a one-thread HTTP responder on
 * 127.0.0.1 that answers every request with 401 and a body the test
 * chose.
 */
#include <criterion/criterion.h>

#include <arpa/inet.h>
#include <netinet/in.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include <jansson.h>
#include <uv.h>

#include "common/error.h"
#include "common/xmalloc.h"
#include "remote/lava.h"
#include "tests/support/tst.h"

/* The responder and what the test saw; reset by the suite's init. */
static struct {
	int		 lfd;
	pthread_t	 thread;
	int		 started;
	const char	*body;
	char		*dir;
	char		*message;	/* of the last lab-health event */
	int		 events, null_events;
} lh;

/* Answers each connection with 401 and lh.body, until the socket closes. */
static void *
lh_serve(void *arg)
{
	char req[4096], *head;
	int fd;

	(void)arg;
	while ((fd = accept(lh.lfd, NULL, NULL)) >= 0) {
		ssize_t n, got = 0;

		while (got < (ssize_t)sizeof(req) - 1 &&
		    (n = read(fd, req + got, sizeof(req) - 1 - (size_t)got)) > 0) {
			got += n;
			req[got] = '\0';
			if (strstr(req, "\r\n\r\n") != NULL)
				break;
		}
		xasprintf(&head, "HTTP/1.1 401 Unauthorized\r\nContent-Type: "
		    "text/plain; charset=utf-8\r\nContent-Length: %zu\r\n"
		    "Connection: close\r\n\r\n%s", strlen(lh.body), lh.body);
		/* A client that went away is no failure of the responder. */
		(void)!write(fd, head, strlen(head));
		free(head);
		close(fd);
	}
	return NULL;
}

static void
lh_init(void)
{
	memset(&lh, 0, sizeof(lh));
	lh.lfd = -1;
}

static void
lh_fini(void)
{
	if (lh.lfd >= 0) {
		shutdown(lh.lfd, SHUT_RDWR);
		close(lh.lfd);
	}
	if (lh.started)
		pthread_join(lh.thread, NULL);
	if (lh.dir != NULL) {
		tst_rmrf(lh.dir);
		free(lh.dir);
	}
	free(lh.message);
	tst_leak_check();
}

TestSuite(lava_health, .init = lh_init, .fini = lh_fini, .timeout = 120);

/* Listens on 127.0.0.1 and an ephemeral port; returns the port. */
static int
lh_listen(void)
{
	struct sockaddr_in a;
	socklen_t alen = sizeof(a);

	memset(&a, 0, sizeof(a));
	a.sin_family = AF_INET;
	a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	lh.lfd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
	cr_assert_geq(lh.lfd, 0);
	cr_assert_eq(bind(lh.lfd, (struct sockaddr *)&a, sizeof(a)), 0);
	cr_assert_eq(listen(lh.lfd, 8), 0);
	cr_assert_eq(getsockname(lh.lfd, (struct sockaddr *)&a, &alen), 0);
	cr_assert_eq(pthread_create(&lh.thread, NULL, lh_serve, NULL), 0);
	lh.started = 1;
	return ntohs(a.sin_port);
}

static void
lh_event(void *arg, const char *kind, json_t *fields)
{
	const char *m;

	(void)arg;
	if (strcmp(kind, "lab-health") != 0) {
		json_decref(fields);
		return;
	}
	lh.events++;
	if (fields == NULL) {
		lh.null_events++;
		return;
	}
	m = json_string_value(json_object_get(fields, "message"));
	free(lh.message);
	lh.message = m != NULL ? xstrdup(m) : NULL;
	json_decref(fields);
}

/*
 * A refusal whose quoted body is cut inside a character: 119 bytes of
 * text, then an e-acute across the 120-byte quote.
 */
Test(lava_health, a_refusal_reaches_the_operator_whatever_the_lab_said)
{
	char body[200], url[64], *tok;
	struct config_lab lab;
	struct lava_env env;
	struct lava_info info;
	struct backend *be = NULL;
	struct bd_error err;
	uv_loop_t loop;
	int i;

	memset(body, 'x', 119);
	snprintf(body + 119, sizeof(body) - 119, "\xc3\xa9 denied");
	lh.body = body;
	snprintf(url, sizeof(url), "http://127.0.0.1:%d/", lh_listen());
	lh.dir = tst_tmpdir("lavahealth");
	cr_assert_not_null(lh.dir);
	tok = tst_write_file(lh.dir, "token", "secret\n");
	memset(&lab, 0, sizeof(lab));
	lab.name = (char *)"lab1";
	lab.url = url;
	lab.token_file = tok;
	lab.device_type = (char *)"ssh";
	lab.group = (char *)"g";
	lab.poll_interval_ms = 60000;
	memset(&env, 0, sizeof(env));
	cr_assert_eq(uv_loop_init(&loop), 0);
	env.loop = &loop;
	env.event = lh_event;
	cr_assert_eq(lava_new(&env, &lab, &be, &err), 0, "%s", err.msg);
	free(tok);
	/* Each turn handles what the responder sent; the bound only stops
	 * a lab that never answers. */
	for (i = 0; i < 100000 && lh.events == 0; i++)
		uv_run(&loop, UV_RUN_ONCE);
	lava_info(be, &info);
	cr_expect_eq(info.health, LAVA_TOKEN_REFUSED);
	cr_expect_eq(lh.events, 1);
	cr_expect_eq(lh.null_events, 0, "the health event was lost");
	cr_expect(lh.message != NULL && strstr(lh.message, "token refused"),
	    "message: %s", lh.message ? lh.message : "(none)");
	{
		/* jansson takes only UTF-8: what the labs reply can hold. */
		json_t *s = json_string(info.last_error ? info.last_error : "");

		cr_expect_not_null(s, "last_error is not UTF-8");
		json_decref(s);
	}
	be->ops->free(be);
	uv_run(&loop, UV_RUN_DEFAULT);
	cr_expect_eq(uv_loop_close(&loop), 0);
}
