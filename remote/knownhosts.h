/* SPDX-License-Identifier: MIT */
/*
 * Host key verification against an OpenSSH known_hosts file.
 *
 * A key that does not match the file, or a host the file does not know, is
 * refused and reported with its SHA256 fingerprint, never accepted silently.
 * The one exception is a host configured with host_key = accept-new: its
 * unknown key is appended to the file, on a line of its own.  A changed key
 * is still refused, and so is a host the file records with a key of another
 * type only, as OpenSSH does.
 *
 * A key on an "@revoked" line whose host patterns match the host (plain
 * names with OpenSSH's '*' and '?' wildcards, or hashed names) is refused
 * whatever the policy and whatever other lines say, and never appended.
 * The handshake offers first the key types the file records for the host,
 * so a server with several host keys shows one that can match.
 *
 * RSA host keys: libssh2 1.10 verifies them with ssh-rsa (SHA-1 signatures)
 * only, not rsa-sha2-256/512; OpenSSH 8.8 and later no longer offer ssh-rsa
 * by default, so a host whose only host key is RSA cannot be reached until
 * it gets an ed25519 or ECDSA host key (or allows ssh-rsa again).
 */
#ifndef REMOTE_KNOWNHOSTS_H
#define REMOTE_KNOWNHOSTS_H

#include <libssh2.h>

#include "common/error.h"
#include "config/config.h"

/*
 * Checks the key of the handshaken session s for address:port.  Returns 0
 * when the key is trusted (*added says it was just recorded), -EPERM for an
 * unknown or changed key, or -EIO when the file cannot be read or written;
 * err says which, with the fingerprint.
 */
int	knownhosts_check(LIBSSH2_SESSION *s, const char *path,
	    const char *address, unsigned port,
	    enum config_host_key_policy policy, int *added,
	    struct bd_error *err);

/*
 * The host key methods to offer for address:port, comma-separated into buf:
 * the types path records for the host first, then the others.  A file that
 * cannot be read gives the default order; knownhosts_check reports it.
 */
void	knownhosts_prefer(LIBSSH2_SESSION *s, const char *path,
	    const char *address, unsigned port, char *buf, size_t bufsz);

/* "SHA256:..." of the session's host key, as ssh-keygen -l prints it. */
void	knownhosts_fingerprint(LIBSSH2_SESSION *s, char *buf, size_t bufsz);

#endif
