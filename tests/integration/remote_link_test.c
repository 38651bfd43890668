/* SPDX-License-Identifier: MIT */
/*
 * remote/ sessions against real OpenSSH servers on loopback ports: host
 * keys, authentication, keepalive and reconnection.
 */
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <netinet/in.h>
#include <arpa/inet.h>

#include <criterion/criterion.h>
#include <fcntl.h>
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
	free(other);
	xasprintf(&other, "[127.0.0.1]:%d ssh-ed25519 ", rtest_srv[0].port);
	cr_assert(strncmp(line, other, strlen(other)) == 0, "%s", line);
	h.host_key = CONFIG_HOST_KEY_STRICT;
	cr_assert_eq(try_connect(&h, msg, sizeof(msg)), 0, "%s", msg);
	free(line);
	free(other);
	free(otherpub);
	free(kh);
}

/*
 * A known_hosts file that records this host with a key of another type
 * only: OpenSSH calls that a changed key, and so must accept-new.  The
 * strict message never suggests accept-new for it.
 */
Test(remote_link, a_key_of_another_type_is_a_changed_key)
{
	struct config_host h;
	char msg[BD_ERROR_MAX], *key, *pub, *kh, *before, *after;

	cr_assert_eq(sshd_start(&rtest_srv[0], "keytype"), 0);
	sshd_host(&rtest_srv[0], &h, "h0", NULL);
	key = rtest_path_in(rtest_tmp, "ecdsa_key");
	xasprintf(&pub, "%s.pub", key);
	cr_assert_eq(tst_run((char *[]){ "ssh-keygen", "-q", "-t", "ecdsa",
	    "-N", "", "-f", key, NULL }), 0);
	kh = rtest_path_in(rtest_tmp, "ecdsa_known_hosts");
	cr_assert_eq(sshd_write_known_hosts(&rtest_srv[0], kh, pub), 0);
	before = tst_read_file(kh);
	h.known_hosts = kh;

	h.host_key = CONFIG_HOST_KEY_STRICT;
	cr_assert_eq(try_connect(&h, msg, sizeof(msg)), -EPERM);
	cr_assert_not_null(strstr(msg, "has changed"), "%s", msg);
	cr_assert_null(strstr(msg, "accept-new"), "%s", msg);

	h.host_key = CONFIG_HOST_KEY_ACCEPT_NEW;
	cr_assert_eq(try_connect(&h, msg, sizeof(msg)), -EPERM, "accepted");
	cr_assert_not_null(strstr(msg, "has changed"), "%s", msg);
	after = tst_read_file(kh);
	cr_assert_str_eq(after, before, "accept-new wrote the file");
	free(after);
	free(before);
	free(kh);
	free(pub);
	free(key);
}

/* "TYPE KEY" of a public key file, for known_hosts lines of a test's own. */
static char *
read_pub(const char *pubfile)
{
	char type[64], key[1024], *text, *out;

	text = tst_read_file(pubfile);
	cr_assert_not_null(text);
	cr_assert_eq(sscanf(text, "%63s %1023s", type, key), 2);
	free(text);
	xasprintf(&out, "%s %s", type, key);
	return out;
}

/*
 * A key on an @revoked line for this host is refused as OpenSSH refuses
 * it: with strict even when a plain line records the same key, with
 * accept-new without appending it, and through a wildcard pattern; a
 * revoked line for another host or negating this one does not apply.
 */
Test(remote_link, revoked_host_keys_are_refused)
{
	static const struct {
		const char	*what;
		const char	*fmt;	/* %1$d port, %2$s the server's key */
		enum config_host_key_policy policy;
		int		 refused;
	} cases[] = {
		{ "strict, revoked and plain",
		  "@revoked [127.0.0.1]:%1$d %2$s\n[127.0.0.1]:%1$d %2$s\n",
		  CONFIG_HOST_KEY_STRICT, 1 },
		{ "strict, plain then revoked",
		  "[127.0.0.1]:%1$d %2$s\n@revoked [127.0.0.1]:%1$d %2$s\n",
		  CONFIG_HOST_KEY_STRICT, 1 },
		{ "accept-new, revoked only",
		  "@revoked [127.0.0.1]:%1$d %2$s\n", CONFIG_HOST_KEY_ACCEPT_NEW,
		  1 },
		{ "a wildcard pattern",
		  "@revoked  *,other %2$s\n[127.0.0.1]:%1$d %2$s\n",
		  CONFIG_HOST_KEY_STRICT, 1 },
		{ "another host's revoked key",
		  "@revoked [127.0.0.1]:1 %2$s\n[127.0.0.1]:%1$d %2$s\n",
		  CONFIG_HOST_KEY_STRICT, 0 },
		{ "a negated pattern",
		  "@revoked *,![127.0.0.1]:%1$d %2$s\n[127.0.0.1]:%1$d %2$s\n",
		  CONFIG_HOST_KEY_STRICT, 0 },
		{ "a certificate authority line is skipped",
		  "@cert-authority * %2$s\n[127.0.0.1]:%1$d %2$s\n",
		  CONFIG_HOST_KEY_STRICT, 0 },
	};
	struct config_host h;
	char msg[BD_ERROR_MAX], *key, *text, *kh, *after;
	size_t i;
	int rc;

	cr_assert_eq(sshd_start(&rtest_srv[0], "revoked"), 0);
	sshd_host(&rtest_srv[0], &h, "h0", NULL);
	key = read_pub(rtest_srv[0].host_pub);
	kh = rtest_path_in(rtest_tmp, "revoked_known_hosts");
	h.known_hosts = kh;
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wformat-nonliteral"
		xasprintf(&text, cases[i].fmt, rtest_srv[0].port, key);
#pragma GCC diagnostic pop
		free(tst_write_file(rtest_tmp, "revoked_known_hosts", text));
		h.host_key = cases[i].policy;
		rc = try_connect(&h, msg, sizeof(msg));
		if (cases[i].refused) {
			cr_expect_eq(rc, -EPERM, "%s: accepted", cases[i].what);
			cr_expect_not_null(strstr(msg, "REVOKED HOST KEY"),
			    "%s: %s", cases[i].what, msg);
		} else {
			cr_expect_eq(rc, 0, "%s: %s", cases[i].what, msg);
		}
		after = tst_read_file(kh);
		cr_expect_str_eq(after, text, "%s: the file was written",
		    cases[i].what);
		free(after);
		free(text);
	}
	free(kh);
	free(key);
}

/*
 * A host recorded with its ECDSA key only, serving ed25519 and ECDSA, is
 * the same host: the handshake asks for the recorded type first.
 */
Test(remote_link, a_recorded_key_of_a_server_with_two_keys_connects)
{
	struct config_host h;
	char msg[BD_ERROR_MAX], *pub, *kh;

	cr_assert_eq(sshd_start(&rtest_srv[0], "twokeys"), 0);
	sshd_host(&rtest_srv[0], &h, "h0", NULL);
	cr_assert_not_null(pub = sshd_host_key(&rtest_srv[0], "ecdsa", 0));
	kh = rtest_path_in(rtest_tmp, "ecdsa_only_known_hosts");
	cr_assert_eq(sshd_write_known_hosts(&rtest_srv[0], kh, pub), 0);
	h.known_hosts = kh;
	h.host_key = CONFIG_HOST_KEY_STRICT;
	cr_assert_eq(try_connect(&h, msg, sizeof(msg)), 0, "%s", msg);
	/* The ed25519 key alone is still recognised, too. */
	h.known_hosts = rtest_srv[0].known_hosts;
	cr_assert_eq(try_connect(&h, msg, sizeof(msg)), 0, "%s", msg);
	free(kh);
	free(pub);
}

/*
 * libssh2 1.10 cannot verify an RSA host key with rsa-sha2-256/512, and
 * OpenSSH 9 no longer offers ssh-rsa: the error says so and what to do.
 */
Test(remote_link, an_rsa_only_host_is_refused_with_the_reason)
{
	struct config_host h;
	char msg[BD_ERROR_MAX], *pub, *kh;

	cr_assert_eq(sshd_start(&rtest_srv[0], "rsaonly"), 0);
	sshd_host(&rtest_srv[0], &h, "h0", NULL);
	cr_assert_not_null(pub = sshd_host_key(&rtest_srv[0], "rsa", 1));
	kh = rtest_path_in(rtest_tmp, "rsa_known_hosts");
	cr_assert_eq(sshd_write_known_hosts(&rtest_srv[0], kh, pub), 0);
	h.known_hosts = kh;
	cr_assert_neq(try_connect(&h, msg, sizeof(msg)), 0, "connected");
	cr_assert_not_null(strstr(msg, "rsa-sha2-256/512"), "%s", msg);
	cr_assert_not_null(strstr(msg, "ed25519 or ECDSA host key"), "%s",
	    msg);
	free(kh);
	free(pub);
}

/*
 * accept-new appending to a file whose last line has no newline starts a
 * new line: both entries stay readable, and a later changed key for the
 * host is still refused.
 */
Test(remote_link, accept_new_appends_after_an_unfinished_line)
{
	struct config_host h;
	char msg[BD_ERROR_MAX], type[64], key[512], *other, *otherpub, *kh,
	    *text, *first, *nl, *want, *dst;

	cr_assert_eq(sshd_start(&rtest_srv[0], "nonl"), 0);
	sshd_host(&rtest_srv[0], &h, "h0", NULL);
	other = sshd_keygen(&rtest_srv[0], "neighbour", NULL, 0);
	xasprintf(&otherpub, "%s.pub", other);
	text = tst_read_file(otherpub);
	cr_assert_not_null(text);
	cr_assert_eq(sscanf(text, "%63s %511s", type, key), 2);
	free(text);
	/* Another host's entry, the file's last line, no final newline. */
	xasprintf(&first, "[127.0.0.1]:1 %s %s", type, key);
	kh = tst_write_file(rtest_tmp, "nonl_known_hosts", first);
	h.known_hosts = kh;
	h.host_key = CONFIG_HOST_KEY_ACCEPT_NEW;
	cr_assert_eq(try_connect(&h, msg, sizeof(msg)), 0, "%s", msg);

	text = tst_read_file(kh);
	cr_assert_not_null(text);
	nl = strchr(text, '\n');
	cr_assert_not_null(nl, "%s", text);
	cr_assert_eq((size_t)(nl - text), strlen(first), "%s", text);
	cr_assert(strncmp(text, first, strlen(first)) == 0, "%s", text);
	xasprintf(&want, "[127.0.0.1]:%d ssh-ed25519 ", rtest_srv[0].port);
	cr_assert(strncmp(nl + 1, want, strlen(want)) == 0, "%s", text);
	free(text);

	/* The recorded key is trusted in strict mode... */
	h.host_key = CONFIG_HOST_KEY_STRICT;
	cr_assert_eq(try_connect(&h, msg, sizeof(msg)), 0, "%s", msg);
	/* ...and the host reinstalled with another key is refused. */
	sshd_stop(&rtest_srv[0]);
	xasprintf(&dst, "%s/host_key", rtest_srv[0].dir);
	cr_assert_eq(tst_run((char *[]){ "cp", other, dst, NULL }), 0);
	cr_assert_eq(tst_run((char *[]){ "cp", otherpub,
	    rtest_srv[0].host_pub, NULL }), 0);
	cr_assert_eq(sshd_restart(&rtest_srv[0]), 0);
	h.host_key = CONFIG_HOST_KEY_ACCEPT_NEW;
	cr_assert_eq(try_connect(&h, msg, sizeof(msg)), -EPERM, "accepted");
	cr_assert_not_null(strstr(msg, "does not match"), "%s", msg);
	free(dst);
	free(want);
	free(first);
	free(otherpub);
	free(other);
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

/* ------------------------------------------------------------------ */
/* A peer that stops in the middle of key exchange. */

/* Appends an SSH string (uint32 length, bytes) to buf at *n. */
static void
kex_put_str(unsigned char *buf, size_t *n, const char *str)
{
	uint32_t len = (uint32_t)strlen(str), be = htonl(len);

	memcpy(buf + *n, &be, 4);
	memcpy(buf + *n + 4, str, len);
	*n += 4 + len;
}

/* The unencrypted binary packet of a server KEXINIT: curve25519 only. */
static size_t
kex_server_init(unsigned char *pkt)
{
	static const char *lists[] = { "curve25519-sha256",
	    "ssh-ed25519,ecdsa-sha2-nistp256,rsa-sha2-256,ssh-rsa",
	    "aes128-ctr", "aes128-ctr", "hmac-sha2-256", "hmac-sha2-256",
	    "none", "none", "", "" };
	size_t n = 5, i, pad;
	uint32_t be;

	pkt[n++] = 20;				/* SSH_MSG_KEXINIT */
	memset(pkt + n, 0x5a, 16);		/* cookie */
	n += 16;
	for (i = 0; i < sizeof(lists) / sizeof(lists[0]); i++)
		kex_put_str(pkt, &n, lists[i]);
	pkt[n++] = 0;				/* first_kex_packet_follows */
	memset(pkt + n, 0, 4);			/* reserved */
	n += 4;
	for (pad = 4; (n + pad) % 8 != 0; pad++)
		;
	memset(pkt + n, 0, pad);
	pkt[4] = (unsigned char)pad;
	be = htonl((uint32_t)(n + pad - 4));
	memcpy(pkt, &be, 4);
	return n + pad;
}

/* Reads exactly len bytes; 0 on success. */
static int
kex_read(int fd, unsigned char *buf, size_t len)
{
	ssize_t r;
	size_t got = 0;

	while (got < len) {
		if ((r = read(fd, buf + got, len - got)) <= 0)
			return -1;
		got += (size_t)r;
	}
	return 0;
}

/*
 * The child's side: sends a banner and KEXINIT, reads the client's banner
 * and packets, writes one byte to done once the client's ECDH_INIT (30)
 * arrived (its curve25519 keys exist then), and answers nothing more.
 */
static void __attribute__((noreturn))
kex_stall_peer(int lfd, int done)
{
	unsigned char pkt[1024], c = 0;
	size_t n = kex_server_init(pkt);
	uint32_t len;
	int fd = accept(lfd, NULL, NULL);

	if (fd == -1 || write(fd, "SSH-2.0-stall\r\n", 15) != 15 ||
	    write(fd, pkt, n) != (ssize_t)n)
		_exit(1);
	while (c != '\n')			/* the client's banner */
		if (kex_read(fd, &c, 1) != 0)
			_exit(1);
	for (;;) {
		if (kex_read(fd, pkt, 5) != 0)
			_exit(1);
		memcpy(&len, pkt, 4);
		len = ntohl(len);
		if (len < 1 || len > sizeof(pkt) - 5 ||
		    kex_read(fd, pkt + 5, len - 1) != 0)
			_exit(1);
		if (pkt[5] == 30)
			break;
	}
	if (write(done, "k", 1) != 1)
		_exit(1);
	while (read(fd, pkt, sizeof(pkt)) > 0)
		;
	_exit(0);
}

static void
kex_done_cb(uv_poll_t *p, int status, int events)
{
	(void)status;
	(void)events;
	*(int *)p->data = 1;
	uv_poll_stop(p);
}

/*
 * libssh2 1.10 frees a session that is still in key exchange without its
 * curve25519 keys; the link frees them.  Leaking here once per stalled
 * handshake made the daemon's exit under ASan fail at random.
 */
/*
 * A loopback listener whose accepted connection peer(lfd, done) serves in
 * a child; *pid is the child, *done the read end of its pipe.  h is the
 * first server's host (its key and known_hosts) at the listener's port.
 */
static void
peer_start(void (*peer)(int, int), struct config_host *h, pid_t *pid,
    int *done)
{
	struct sockaddr_in sin = { .sin_family = AF_INET };
	socklen_t sl = sizeof(sin);
	int lfd, pfd[2];

	/* The real server only lends its user key and known_hosts file. */
	if (rtest_srv[0].pid == 0)
		cr_assert_eq(sshd_start(&rtest_srv[0], "peer"), 0);
	sin.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	cr_assert_neq(lfd = socket(AF_INET, SOCK_STREAM, 0), -1);
	cr_assert_eq(bind(lfd, (struct sockaddr *)&sin, sizeof(sin)), 0);
	cr_assert_eq(listen(lfd, 1), 0);
	cr_assert_eq(getsockname(lfd, (struct sockaddr *)&sin, &sl), 0);
	cr_assert_eq(pipe2(pfd, O_CLOEXEC), 0);
	cr_assert_neq(*pid = fork(), -1);
	if (*pid == 0) {
		prctl(PR_SET_PDEATHSIG, SIGKILL);
		peer(lfd, pfd[1]);
	}
	close(lfd);
	close(pfd[1]);
	*done = pfd[0];
	sshd_host(&rtest_srv[0], h, "h0", NULL);
	h->port = ntohs(sin.sin_port);
	h->host_key = CONFIG_HOST_KEY_ACCEPT_NEW;
}

/* Kills and reaps the peer, then asks LeakSanitizer. */
static void
peer_stop(pid_t pid, int done)
{
	int status;

	close(done);
	kill(pid, SIGKILL);
	cr_assert_eq(waitpid(pid, &status, 0), pid);
	tst_leak_check();
}

Test(remote_link, a_session_freed_in_key_exchange_leaves_no_heap)
{
	struct config_host h;
	struct ssh_conn *c;
	struct ssh_waiter w;
	struct ssh_stats st;
	struct cres r = { 0 };
	uv_poll_t poll;
	int done, seen = 0;
	pid_t pid;

	peer_start(kex_stall_peer, &h, &pid, &done);
	cr_assert_eq(ssh_conn_new(&rtest_loop, &h, &c), 0);
	ssh_connect(c, &w, 0, cdone, &r);
	uv_poll_init(&rtest_loop, &poll, done);
	poll.data = &seen;
	uv_poll_start(&poll, UV_READABLE, kex_done_cb);
	rtest_run_until(&seen);
	cr_assert(!r.done, "the handshake ended early: %s", r.msg);
	ssh_get_stats(c, &st);
	cr_assert_gt(st.heap_now, 0, "libssh2 holds no key exchange state");
	ssh_conn_free(c);
	uv_close((uv_handle_t *)&poll, NULL);
	rtest_drain_loop();
	peer_stop(pid, done);
}

/* The child's side of a host that accepts and never says a word. */
static void __attribute__((noreturn))
silent_peer(int lfd, int done)
{
	char buf[4096];
	int fd = accept(lfd, NULL, NULL);

	if (fd == -1 || write(done, "a", 1) != 1)
		_exit(1);
	while (read(fd, buf, sizeof(buf)) > 0)
		;
	_exit(0);
}

/*
 * A host that accepts the connection and never answers (no SSH banner)
 * ends the attempt at connect_timeout with a message that says so, both
 * for a failing first connect and while key exchange stalls; nothing of
 * either session is left behind.
 */
Test(remote_link, a_peer_that_accepts_and_never_answers_times_out)
{
	void (*peers[])(int, int) = { silent_peer, kex_stall_peer };
	struct config_host h;
	struct ssh_conn *c;
	struct ssh_waiter w;
	struct cres r;
	int done;
	size_t i;
	pid_t pid;

	for (i = 0; i < 2; i++) {
		memset(&r, 0, sizeof(r));
		peer_start(peers[i], &h, &pid, &done);
		h.connect_timeout_ms = 400;
		cr_assert_eq(ssh_conn_new(&rtest_loop, &h, &c), 0);
		ssh_connect(c, &w, 0, cdone, &r);
		rtest_run_until(&r.done);
		cr_assert_lt(r.rc, 0, "peer %zu: connected to nobody", i);
		cr_assert(strstr(r.msg, "no answer from 127.0.0.1") != NULL,
		    "peer %zu: %s", i, r.msg);
		ssh_conn_free(c);
		rtest_drain_loop();
		peer_stop(pid, done);
	}
}
