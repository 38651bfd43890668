/* SPDX-License-Identifier: MIT */
/*
 * The known_hosts check (remote/knownhosts.c) against a real host key: a
 * loopback sshd is started once and one session handshaken with it; every
 * input is then a known_hosts file that the check reads.  Oracles: the
 * answer is trust, -EPERM or -EIO with a message; only accept-new records
 * a key, only for a host the file has no key for, and what it records is
 * matched by the next check with every earlier entry kept; a file is
 * never changed otherwise.  In strict mode a host whose key changed is
 * never told to use accept-new.
 *
 * Input: one byte of flags (bit 0: accept-new, bit 1: port 22, bit 2: no
 * file at all), then the file.  "@HOST@" in it becomes the host's name in
 * known_hosts form and "@KEY@" the server's real key, so seeds can hold
 * matching entries.
 */
#include <sys/socket.h>

#include <arpa/inet.h>
#include <netinet/in.h>

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <libssh2.h>

#include "common/xmalloc.h"
#include "remote/knownhosts.h"
#include "tests/fuzz/fuzz.h"
#include "tests/support/sshd.h"
#include "tests/support/tst.h"

static struct sshd	 fuzz_sshd;
static LIBSSH2_SESSION	*fuzz_session;
static char		*fuzz_key;	/* "ssh-ed25519 AAAA..." */
static char		*fuzz_path;	/* the known_hosts file under test */

/* One handshake for the whole run: the check only reads the session. */
static void
fuzz_kh_session(void)
{
	struct sockaddr_in sa;
	char type[64], key[512];
	FILE *fp;
	int fd;

	if (sshd_start(&fuzz_sshd, "fuzz-knownhosts") != 0)
		fuzz_fail("cannot start sshd");
	if ((fp = fopen(fuzz_sshd.host_pub, "r")) == NULL ||
	    fscanf(fp, "%63s %511s", type, key) != 2)
		fuzz_fail("cannot read %s", fuzz_sshd.host_pub);
	fclose(fp);
	xasprintf(&fuzz_key, "%s %s", type, key);
	xasprintf(&fuzz_path, "%s/fuzz_known_hosts", fuzz_sshd.dir);
	memset(&sa, 0, sizeof(sa));
	sa.sin_family = AF_INET;
	sa.sin_port = htons((uint16_t)fuzz_sshd.port);
	sa.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (fd == -1 || connect(fd, (struct sockaddr *)&sa, sizeof(sa)) != 0)
		fuzz_fail("cannot connect to sshd on port %d", fuzz_sshd.port);
	if (libssh2_init(0) != 0 ||
	    (fuzz_session = libssh2_session_init()) == NULL ||
	    libssh2_session_handshake(fuzz_session, fd) != 0)
		fuzz_fail("no SSH handshake with sshd on port %d",
		    fuzz_sshd.port);
}

/* The input with @HOST@ and @KEY@ replaced, written to fuzz_path. */
static void
fuzz_kh_write(const uint8_t *data, size_t size, const char *host)
{
	FILE *fp;
	size_t i;

	if ((fp = fopen(fuzz_path, "w")) == NULL)
		fuzz_fail("cannot write %s", fuzz_path);
	for (i = 0; i < size; i++) {
		if (size - i >= 6 && memcmp(data + i, "@HOST@", 6) == 0) {
			fputs(host, fp);
			i += 5;
		} else if (size - i >= 5 && memcmp(data + i, "@KEY@", 5) == 0) {
			fputs(fuzz_key, fp);
			i += 4;
		} else
			fputc(data[i], fp);
	}
	if (fclose(fp) != 0)
		fuzz_fail("cannot write %s", fuzz_path);
}

/*
 * Entries libssh2 reads from the file (-1 when it refuses it), and in
 * *named whether one is a plain entry for host, of any key type.
 */
static int
fuzz_kh_entries(const char *host, int *named)
{
	LIBSSH2_KNOWNHOSTS *kh;
	struct libssh2_knownhost *e = NULL, *prev = NULL;
	int n = 0;

	*named = 0;
	if (access(fuzz_path, F_OK) != 0)
		return 0;
	if ((kh = libssh2_knownhost_init(fuzz_session)) == NULL)
		fuzz_fail("libssh2_knownhost_init failed");
	if (libssh2_knownhost_readfile(kh, fuzz_path,
	    LIBSSH2_KNOWNHOST_FILE_OPENSSH) < 0) {
		libssh2_knownhost_free(kh);
		return -1;
	}
	while (libssh2_knownhost_get(kh, &e, prev) == 0) {
		n++;
		if ((e->typemask & LIBSSH2_KNOWNHOST_TYPE_MASK) ==
		    LIBSSH2_KNOWNHOST_TYPE_PLAIN && e->name != NULL &&
		    strcmp(e->name, host) == 0)
			*named = 1;
		prev = e;
	}
	libssh2_knownhost_free(kh);
	return n;
}

/* An accepted new key is recorded so that the next check trusts it. */
static void
fuzz_kh_added(int before, int named, const char *host, unsigned port)
{
	struct bd_error err;
	int after, again, rc, dummy;

	if (named && fuzz_strict())
		fuzz_fail("accept-new recorded a key for %s, which the file "
		    "already has a key of another type for", host);
	after = fuzz_kh_entries(host, &dummy);
	rc = knownhosts_check(fuzz_session, fuzz_path, "127.0.0.1", port,
	    CONFIG_HOST_KEY_STRICT, &again, &err);
	if ((after != before + 1 || rc != 0) && fuzz_strict())
		fuzz_fail("after accept-new the file has %d entries, not %d, "
		    "and the next check says %d (%s)", after, before + 1, rc,
		    rc != 0 ? err.msg : "trusted");
}

/* sshd and its temp dir go when the run ends. */
static void
fuzz_kh_cleanup(void)
{
	sshd_cleanup(&fuzz_sshd);
}

int
LLVMFuzzerInitialize(int *argc, char ***argv)
{
	(void)argc;
	(void)argv;
	atexit(fuzz_kh_cleanup);
	fuzz_kh_session();
	return 0;
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	enum config_host_key_policy policy;
	struct bd_error err;
	char host[64], *before_text, *after_text;
	unsigned port;
	int rc, added = -1, named, before;

	if (size == 0)
		return 0;
	policy = (data[0] & 1) ? CONFIG_HOST_KEY_ACCEPT_NEW :
	    CONFIG_HOST_KEY_STRICT;
	port = (data[0] & 2) ? 22 : (unsigned)fuzz_sshd.port;
	if (port == 22)
		snprintf(host, sizeof(host), "127.0.0.1");
	else
		snprintf(host, sizeof(host), "[127.0.0.1]:%u", port);
	unlink(fuzz_path);
	if (!(data[0] & 4))
		fuzz_kh_write(data + 1, size - 1, host);
	before = fuzz_kh_entries(host, &named);
	before_text = tst_read_file(fuzz_path);
	bd_error_clear(&err);
	rc = knownhosts_check(fuzz_session, fuzz_path, "127.0.0.1", port,
	    policy, &added, &err);
	if (rc != 0 && rc != -EPERM && rc != -EIO)
		fuzz_fail("knownhosts_check returned %d", rc);
	if (rc != 0 && err.msg[0] == '\0')
		fuzz_fail("knownhosts_check failed without a message");
	if (rc != 0 && added)
		fuzz_fail("a refused key was recorded");
	if (rc == 0 && added) {
		if (policy != CONFIG_HOST_KEY_ACCEPT_NEW)
			fuzz_fail("strict mode recorded a key");
		if (before < 0)
			fuzz_fail("a key was recorded in a file libssh2 "
			    "cannot read");
		fuzz_kh_added(before, named, host, port);
	} else {
		after_text = tst_read_file(fuzz_path);
		if ((before_text == NULL) != (after_text == NULL) ||
		    (before_text != NULL &&
		    strcmp(before_text, after_text) != 0))
			fuzz_fail("the file changed without a key recorded");
		free(after_text);
	}
	if (rc == -EPERM && policy == CONFIG_HOST_KEY_STRICT && named &&
	    strstr(err.msg, "accept-new") != NULL && fuzz_strict())
		fuzz_fail("a changed key for %s suggests accept-new: %s", host,
		    err.msg);
	free(before_text);
	return 0;
}
