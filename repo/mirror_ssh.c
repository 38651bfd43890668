/* SPDX-License-Identifier: MIT */
/*
 * ssh:// for the mirror, with the rules of [host] sections: the key in
 * identity, and the server's host key checked against an OpenSSH
 * known_hosts file, an unknown or changed key refused.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <libssh2.h>

#include "repo/mirror_int.h"

/* One try with the configured key: a refused key is not offered again. */
int
mirror_ssh_credentials(git_credential **out, const char *url,
    const char *user, unsigned int allowed, void *payload)
{
	struct mirror_ssh *s = payload;

	(void)url;
	if (s->tries++ > 0 || s->o->identity == NULL ||
	    !(allowed & GIT_CREDENTIAL_SSH_KEY))
		return GIT_PASSTHROUGH;
	return git_credential_ssh_key_new(out, user != NULL ? user : "git",
	    NULL, s->o->identity, NULL);
}

/* The port of an ssh:// url, 22 when it names none. */
static int
mirror_ssh_port(const char *url)
{
	const char *h, *c;

	if (strncmp(url, "ssh://", 6) != 0)
		return 22;
	h = url + 6;
	if ((c = strchr(h, '@')) != NULL && c < strchr(h, '/'))
		h = c + 1;
	if (*h == '[' && (c = strchr(h, ']')) != NULL)
		h = c + 1;
	c = strpbrk(h, ":/");
	return c != NULL && *c == ':' ? atoi(c + 1) : 22;
}

/* Whether the raw key is in the known_hosts file for host:port. */
static int
mirror_ssh_known(struct mirror_ssh *s, const char *host,
    const git_cert_hostkey *hk)
{
	LIBSSH2_SESSION *ses;
	LIBSSH2_KNOWNHOSTS *kh;
	int rc, port = mirror_ssh_port(s->url);

	if ((ses = libssh2_session_init()) == NULL)
		return 0;
	if ((kh = libssh2_knownhost_init(ses)) == NULL) {
		libssh2_session_free(ses);
		return 0;
	}
	rc = libssh2_knownhost_readfile(kh, s->o->known_hosts,
	    LIBSSH2_KNOWNHOST_FILE_OPENSSH);
	if (rc < 0)
		snprintf(s->why, sizeof(s->why), "cannot read known_hosts %s",
		    s->o->known_hosts);
	else {
		rc = libssh2_knownhost_checkp(kh, host, port, hk->hostkey,
		    hk->hostkey_len, LIBSSH2_KNOWNHOST_TYPE_PLAIN |
		    LIBSSH2_KNOWNHOST_KEYENC_RAW, NULL);
		snprintf(s->why, sizeof(s->why), "host key of %s:%d is %s in "
		    "%s", host, port, rc == LIBSSH2_KNOWNHOST_CHECK_MISMATCH ?
		    "changed (not the one)" : "not", s->o->known_hosts);
		rc = rc == LIBSSH2_KNOWNHOST_CHECK_MATCH;
	}
	libssh2_knownhost_free(kh);
	libssh2_session_free(ses);
	return rc > 0;
}

/* ssh host keys against known_hosts; TLS keeps libgit2's own verdict. */
int
mirror_ssh_certificate(git_cert *cert, int valid, const char *host,
    void *payload)
{
	struct mirror_ssh *s = payload;
	const git_cert_hostkey *hk = (const git_cert_hostkey *)cert;

	(void)valid;
	if (cert->cert_type != GIT_CERT_HOSTKEY_LIBSSH2)
		return GIT_PASSTHROUGH;
	if (s->o->known_hosts == NULL || !(hk->type & GIT_CERT_SSH_RAW)) {
		snprintf(s->why, sizeof(s->why), "no known_hosts to check the "
		    "host key of %s", host);
		s->refused = 1;
		return GIT_ECERTIFICATE;
	}
	if (!mirror_ssh_known(s, host, hk)) {
		s->refused = 1;
		return GIT_ECERTIFICATE;
	}
	return 0;
}
