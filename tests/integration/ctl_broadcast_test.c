/* SPDX-License-Identifier: MIT */
/*
 * ctl_server_broadcast() in process: a control server on a test loop, two
 * plain socket clients of which one subscribes, and events that only the
 * subscriber receives, one JSON line each with "event" first.
 */
#include <sys/socket.h>
#include <sys/un.h>

#include <criterion/criterion.h>

#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <jansson.h>
#include <uv.h>

#include "common/xmalloc.h"
#include "server/ctl.h"
#include "server/ctlsock.h"
#include "tests/support/tst.h"

#define CB_GUARD_MS	(60 * 1000)	/* a guard against hangs only */

struct cb {
	char			*dir;
	char			*path;
	uv_loop_t		 loop;
	struct ctl_server	 srv;
	int			 srv_ready;
	int			 lines;		/* requests the server read */
	int			 fd[2];
};

static struct cb cb;

static void
cb_fini(void)
{
	int i;

	for (i = 0; i < 2; i++)
		if (cb.fd[i] > 0)
			close(cb.fd[i]);
	if (cb.srv_ready) {
		ctl_server_stop(&cb.srv);
		uv_run(&cb.loop, UV_RUN_DEFAULT);
		ctl_server_release(&cb.srv);
		uv_loop_close(&cb.loop);
	}
	tst_rmrf(cb.dir);
	free(cb.dir);
	free(cb.path);
	memset(&cb, 0, sizeof(cb));
	tst_leak_check();
}

TestSuite(ctl_broadcast, .fini = cb_fini, .timeout = 120);

/* "watch" subscribes the connection, as the command layer does. */
static void
cb_line(struct ctl_conn *conn, char *line, size_t len, void *arg)
{
	struct cb *c = arg;

	(void)len;
	if (strcmp(line, "watch") == 0)
		conn->subscriptions |= CTL_SUB_EVENTS;
	c->lines++;
	ctl_conn_send(conn, "ok\n", 3);
}

/* A blocking client; the kernel queues the connection until accepted. */
static int
cb_connect(void)
{
	struct sockaddr_un sa;
	int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);

	cr_assert_geq(fd, 0);
	memset(&sa, 0, sizeof(sa));
	sa.sun_family = AF_UNIX;
	snprintf(sa.sun_path, sizeof(sa.sun_path), "%s", cb.path);
	cr_assert_eq(connect(fd, (struct sockaddr *)&sa, sizeof(sa)), 0);
	return fd;
}

/* Runs the loop until the server has read n requests in all. */
static void
cb_until_lines(int n)
{
	while (cb.lines < n)
		uv_run(&cb.loop, UV_RUN_ONCE);
}

/* One line from fd, running the loop so queued output goes out. */
static char *
cb_read_line(int fd)
{
	char buf[4096];
	size_t len = 0;
	struct pollfd pfd = { fd, POLLIN, 0 };
	int waited;
	ssize_t n;

	for (waited = 0; waited < CB_GUARD_MS; waited += 10) {
		uv_run(&cb.loop, UV_RUN_NOWAIT);
		if (poll(&pfd, 1, 10) != 1)
			continue;
		n = read(fd, buf + len, 1);
		cr_assert_eq(n, 1, "the connection closed");
		if (buf[len] == '\n') {
			buf[len] = '\0';
			return xstrdup(buf);
		}
		cr_assert_lt(++len, sizeof(buf) - 1);
		waited = 0;
	}
	return NULL;
}

/* Whether fd has anything to read once the loop has nothing left to do. */
static int
cb_readable(int fd)
{
	struct pollfd pfd = { fd, POLLIN, 0 };

	uv_run(&cb.loop, UV_RUN_NOWAIT);
	return poll(&pfd, 1, 0) == 1;
}

static void
cb_setup(void)
{
	struct bd_error err;
	int lfd = -1;

	memset(&cb, 0, sizeof(cb));
	cr_assert_not_null(cb.dir = tst_tmpdir("ctl-broadcast"));
	xasprintf(&cb.path, "%s/ctl.sock", cb.dir);
	cr_assert_eq(uv_loop_init(&cb.loop), 0);
	cr_assert_eq(ctlsock_listen(cb.path, 0600, NULL, &lfd, &err), 0, "%s",
	    err.msg);
	cr_assert_eq(ctl_server_init(&cb.srv, &cb.loop, lfd, cb.path, cb_line,
	    &cb, &err), 0, "%s", err.msg);
	cb.srv_ready = 1;
}

Test(ctl_broadcast, only_subscribers_get_events)
{
	char *line;
	json_t *ev;
	const char *first;

	cb_setup();
	/* Nobody listens yet: the fields are freed (the leak check sees). */
	ctl_server_broadcast(&cb.srv, "sample", json_pack("{s:i}", "run", 1));
	cb.fd[0] = cb_connect();
	cb.fd[1] = cb_connect();
	cr_assert_eq(write(cb.fd[0], "watch\n", 6), 6);
	cr_assert_eq(write(cb.fd[1], "ping\n", 5), 5);
	cb_until_lines(2);
	line = cb_read_line(cb.fd[0]);
	cr_assert_str_eq(line, "ok");
	free(line);
	line = cb_read_line(cb.fd[1]);
	cr_assert_str_eq(line, "ok");
	free(line);

	ctl_server_broadcast(&cb.srv, "verdict", json_pack("{s:I, s:s}",
	    "bisection", (json_int_t)7, "verdict", "culprit"));
	ctl_server_broadcast(&cb.srv, "host", NULL);
	line = cb_read_line(cb.fd[0]);
	cr_assert_not_null(line, "the subscriber got no event");
	cr_assert_not_null(ev = json_loads(line, 0, NULL), "%s", line);
	first = json_object_iter_key(json_object_iter(ev));
	cr_assert_str_eq(first, "event", "%s", line);
	cr_assert_str_eq(json_string_value(json_object_get(ev, "event")),
	    "verdict");
	cr_assert_eq(json_integer_value(json_object_get(ev, "bisection")), 7);
	cr_assert_str_eq(json_string_value(json_object_get(ev, "verdict")),
	    "culprit");
	json_decref(ev);
	free(line);
	line = cb_read_line(cb.fd[0]);
	cr_assert_str_eq(line, "{\"event\":\"host\"}");
	free(line);
	cr_assert_not(cb_readable(cb.fd[1]),
	    "a connection that did not subscribe got an event");
}
