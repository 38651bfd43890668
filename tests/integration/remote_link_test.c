/*
 * remote/ sessions against real OpenSSH servers on loopback ports: host
 * keys, authentication, keepalive and reconnection.
 */
#include <criterion/criterion.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common/xmalloc.h"
#include "remote/exec.h"
#include "remote/ssh.h"
#include "tests/support/rtest.h"
#include "tests/support/sshd.h"
#include "tests/support/tst.h"

TestSuite(remote_link, .init = rtest_setup, .fini = rtest_teardown);

/* ------------------------------------------------------------------ */
/* Sessions: host keys, authentication, keepalive, reconnection. */

struct cres {
	int		 done;
	int		 rc;
	char		 msg[BD_ERROR_MAX];
};

static void
cdone(void *arg, int rc, const struct bd_error *err)
{
	struct cres *r = arg;

	r->rc = rc;
	snprintf(r->msg, sizeof(r->msg), "%s", err ? err->msg : "");
	r->done = 1;
}

static int
try_connect(struct config_host *h, char *msg, size_t msgsz)
{
	struct ssh_conn *c;
	struct ssh_waiter w;
	struct cres r = { 0 };

	cr_assert_eq(ssh_conn_new(&rtest_loop, h, &c), 0);
	ssh_connect(c, &w, 0, cdone, &r);
	rtest_run_until(&r.done);
	snprintf(msg, msgsz, "%s", r.msg);
	ssh_conn_free(c);
	rtest_drain_loop();
	return r.rc;
}

Test(remote_link, host_key_checks)
{
	struct config_host h;
	char msg[BD_ERROR_MAX], *other, *otherpub, *kh, *line;

	cr_assert_eq(sshd_start(&rtest_srv[0], "hostkey"), 0);
	sshd_host(&rtest_srv[0], &h, "h0", NULL);
	cr_assert_eq(try_connect(&h, msg, sizeof(msg)), 0, "%s", msg);

	/* A different key for this host: refused. */
	other = sshd_keygen(&rtest_srv[0], "impostor", NULL, 0);
	xasprintf(&otherpub, "%s.pub", other);
	kh = rtest_path_in(rtest_tmp, "wrong_known_hosts");
	cr_assert_eq(sshd_write_known_hosts(&rtest_srv[0], kh, otherpub), 0);
	h.known_hosts = kh;
	cr_assert_eq(try_connect(&h, msg, sizeof(msg)), -EPERM);
	cr_assert(strstr(msg, "does not match") != NULL, "%s", msg);
	cr_assert(strstr(msg, "SHA256:") != NULL, "%s", msg);
	/* accept-new records unknown keys only, never a changed one. */
	h.host_key = CONFIG_HOST_KEY_ACCEPT_NEW;
	cr_assert_eq(try_connect(&h, msg, sizeof(msg)), -EPERM);
	free(kh);

	/* An unknown host: refused, and nothing is written. */
	kh = rtest_path_in(rtest_tmp, "empty_known_hosts");
	h.known_hosts = kh;
	h.host_key = CONFIG_HOST_KEY_STRICT;
	cr_assert_eq(try_connect(&h, msg, sizeof(msg)), -EPERM);
	cr_assert(strstr(msg, "is not in") != NULL, "%s", msg);
	cr_assert_neq(access(kh, F_OK), 0, "strict mode wrote the file");

	/* accept-new: recorded, then trusted in strict mode. */
	h.host_key = CONFIG_HOST_KEY_ACCEPT_NEW;
	cr_assert_eq(try_connect(&h, msg, sizeof(msg)), 0, "%s", msg);
	line = tst_read_file(kh);
	cr_assert_not_null(line);
	xasprintf(&other, "[127.0.0.1]:%d ssh-ed25519 ", rtest_srv[0].port);
	cr_assert(strncmp(line, other, strlen(other)) == 0, "%s", line);
	h.host_key = CONFIG_HOST_KEY_STRICT;
	cr_assert_eq(try_connect(&h, msg, sizeof(msg)), 0, "%s", msg);
	free(line);
	free(other);
	free(otherpub);
	free(kh);
}

Test(remote_link, passphrase_protected_key)
{
	struct config_host h;
	char msg[BD_ERROR_MAX], *key, *pf;

	cr_assert_eq(sshd_start(&rtest_srv[0], "pass"), 0);
	key = sshd_keygen(&rtest_srv[0], "locked", "s3cret phrase", 1);
	cr_assert_not_null(key);
	pf = tst_write_file(rtest_tmp, "passphrase", "s3cret phrase\n");
	sshd_host(&rtest_srv[0], &h, "h0", NULL);
	h.identity = key;
	h.passphrase_file = pf;
	cr_assert_eq(try_connect(&h, msg, sizeof(msg)), 0, "%s", msg);
	free(pf);
	pf = tst_write_file(rtest_tmp, "wrong", "not it\n");
	h.passphrase_file = pf;
	cr_assert_eq(try_connect(&h, msg, sizeof(msg)), -EPERM);
	cr_assert(strstr(msg, "authentication") != NULL, "%s", msg);
	free(pf);
	free(key);
	/* A key the server does not know: refused, and final. */
	key = sshd_keygen(&rtest_srv[0], "stranger", NULL, 0);
	h.identity = key;
	h.passphrase_file = NULL;
	cr_assert_eq(try_connect(&h, msg, sizeof(msg)), -EPERM);
	cr_assert(strstr(msg, "authentication") != NULL, "%s", msg);
	free(key);
}

static void
stop_sessions_cb(void *s)
{
	sshd_signal_sessions(s, SIGSTOP);
}

Test(remote_link, keepalive_detects_a_dead_peer)
{
	struct config_host h;
	struct ssh_conn *c;
	struct ssh_stats st;
	struct rtest_xres x;

	cr_assert_eq(sshd_start(&rtest_srv[0], "keepalive"), 0);
	sshd_host(&rtest_srv[0], &h, "h0", NULL);
	h.keepalive_ms = 200;
	cr_assert_eq(ssh_conn_new(&rtest_loop, &h, &c), 0);
	/* Silent but alive for a while: probes are answered. */
	rtest_run_cmd(c, "sleep 1", NULL, 0, 0, &x);
	cr_assert_eq(x.status, EXEC_EXITED, "%s", x.msg);
	ssh_get_stats(c, &st);
	cr_assert_geq(st.probes, 1, "no keepalive probe was answered");
	/* Then the host hangs (processes stopped, TCP still up). */
	rtest_run_in(c, "sleep 60", NULL, 0, NULL, &x);
	rtest_later(300, stop_sessions_cb, &rtest_srv[0]);
	rtest_run_until(&x.done);
	cr_assert_eq(x.status, EXEC_LOST, "%d %s", x.status, x.msg);
	cr_assert(strstr(x.msg, "keepalive") != NULL, "%s", x.msg);
	ssh_get_stats(c, &st);
	cr_assert_eq(st.lost, 1);
	ssh_conn_free(c);
	rtest_drain_loop();
}

Test(remote_link, reconnects_with_backoff)
{
	struct config_host h;
	struct ssh_conn *c;
	struct ssh_stats st;
	struct rtest_xres x;

	cr_assert_eq(sshd_start(&rtest_srv[0], "reconnect"), 0);
	c = rtest_conn_for(&rtest_srv[0], &h, "h0");
	rtest_run_cmd(c, "true", NULL, 0, 0, &x);
	cr_assert_eq(x.status, EXEC_EXITED);
	/* The server goes away under an idle session and comes back. */
	sshd_stop(&rtest_srv[0]);
	rtest_later(700, rtest_restart_sshd, &rtest_srv[0]);
	memset(&x, 0, sizeof(x));
	rtest_run_in(c, "echo back", NULL, 0, NULL, &x);
	rtest_run_until(&x.done);
	cr_assert_eq(x.status, EXEC_EXITED, "%d %s", x.status, x.msg);
	ssh_get_stats(c, &st);
	cr_assert_eq(st.connects, 2);
	cr_assert_geq(st.attempts, 3, "refused attempts were retried");
	ssh_conn_free(c);
	rtest_drain_loop();
}
