/* SPDX-License-Identifier: MIT */
/*
 * Readiness through systemd's notify protocol, against the real daemon: a
 * datagram socket of the test's own stands in for the service manager.
 */
#include <sys/socket.h>
#include <sys/time.h>
#include <sys/un.h>

#include <criterion/criterion.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "tests/support/daemon.h"
#include "tests/support/tst.h"

static struct tst_daemon td;
static int mgr = -1;

static void
notify_cleanup(void)
{
	tst_daemon_release(&td);
	if (mgr >= 0)
		close(mgr);
	mgr = -1;
}

TestSuite(notify, .fini = tst_leak_check);

/* One datagram from the daemon, NUL-terminated, or "" after the timeout. */
static void
notify_recv(char *buf, size_t size)
{
	ssize_t n = recv(mgr, buf, size - 1, 0);

	buf[n > 0 ? n : 0] = '\0';
}

Test(notify, ready_once_listening_and_stopping_on_sigterm,
    .fini = notify_cleanup)
{
	struct sockaddr_un sun = { .sun_family = AF_UNIX };
	struct timeval tv = { .tv_sec = TST_DAEMON_WAIT_MS / 1000 };
	char path[512], buf[256];
	json_t *r;

	cr_assert_eq(tst_daemon_setup(&td, "notify", NULL, NULL), 0);
	snprintf(path, sizeof(path), "%s/notify.sock", td.dir);
	mgr = socket(AF_UNIX, SOCK_DGRAM, 0);
	cr_assert_geq(mgr, 0);
	strcpy(sun.sun_path, path);
	cr_assert_eq(bind(mgr, (struct sockaddr *)&sun, sizeof(sun)), 0);
	setsockopt(mgr, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));

	setenv("NOTIFY_SOCKET", path, 1);
	cr_assert_eq(tst_daemon_start(&td), 0, "bisectd did not start");
	unsetenv("NOTIFY_SOCKET");

	notify_recv(buf, sizeof(buf));
	cr_expect_str_eq(buf, "READY=1");
	/* Ready means answering: the socket was listening before the datagram. */
	r = tst_daemon_reply(tst_daemon_request(&td, "{\"cmd\":\"ping\"}"));
	cr_assert_not_null(r);
	cr_expect(json_is_true(json_object_get(r, "ok")));
	json_decref(r);

	cr_expect_eq(tst_daemon_stop(&td, SIGTERM), 0);
	notify_recv(buf, sizeof(buf));
	cr_expect_str_eq(buf, "STOPPING=1");
}

Test(notify, a_missing_manager_is_logged_and_the_daemon_serves,
    .fini = notify_cleanup)
{
	json_t *r;

	cr_assert_eq(tst_daemon_setup(&td, "notify", NULL, NULL), 0);
	setenv("NOTIFY_SOCKET", "/nonexistent/notify.sock", 1);
	cr_assert_eq(tst_daemon_start(&td), 0, "bisectd did not start");
	unsetenv("NOTIFY_SOCKET");
	cr_expect_eq(tst_daemon_log_wait(&td, "bisectd.log",
	    "cannot notify the service manager"), 1);
	r = tst_daemon_reply(tst_daemon_request(&td, "{\"cmd\":\"ping\"}"));
	cr_assert_not_null(r);
	cr_expect(json_is_true(json_object_get(r, "ok")));
	json_decref(r);
	cr_expect_eq(tst_daemon_stop(&td, SIGTERM), 0);
}
