/* SPDX-License-Identifier: MIT */
/*
 * Host key checks against an OpenSSH known_hosts file, read with libssh2.
 */
#include <sys/stat.h>

#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common/xmalloc.h"
#include "remote/knownhosts.h"

#define KNOWNHOSTS_LINE_MAX 4096

struct knownhosts_type {
	int		 hostkey;	/* LIBSSH2_HOSTKEY_TYPE_* */
	int		 mask;		/* LIBSSH2_KNOWNHOST_KEY_* */
	const char	*method;	/* offered in the handshake; NULL: never */
};

/*
 * The two libssh2 enumerations for key types, paired, in the order the
 * handshake offers them when known_hosts records none for the host.  DSA
 * is never offered: OpenSSH disabled it long ago.  libssh2 1.10 knows RSA
 * host keys only as ssh-rsa (SHA-1 signatures), not rsa-sha2-256/512.
 */
static const struct knownhosts_type knownhosts_types[] = {
	{ LIBSSH2_HOSTKEY_TYPE_ED25519,	LIBSSH2_KNOWNHOST_KEY_ED25519,
	  "ssh-ed25519" },
	{ LIBSSH2_HOSTKEY_TYPE_ECDSA_256, LIBSSH2_KNOWNHOST_KEY_ECDSA_256,
	  "ecdsa-sha2-nistp256" },
	{ LIBSSH2_HOSTKEY_TYPE_ECDSA_384, LIBSSH2_KNOWNHOST_KEY_ECDSA_384,
	  "ecdsa-sha2-nistp384" },
	{ LIBSSH2_HOSTKEY_TYPE_ECDSA_521, LIBSSH2_KNOWNHOST_KEY_ECDSA_521,
	  "ecdsa-sha2-nistp521" },
	{ LIBSSH2_HOSTKEY_TYPE_RSA,	LIBSSH2_KNOWNHOST_KEY_SSHRSA,
	  "ssh-rsa" },
	{ LIBSSH2_HOSTKEY_TYPE_DSS,	LIBSSH2_KNOWNHOST_KEY_SSHDSS, NULL },
};
#define KNOWNHOSTS_NTYPES \
	(sizeof(knownhosts_types) / sizeof(knownhosts_types[0]))

/* Base64 without padding, the form OpenSSH prints fingerprints in. */
static void
knownhosts_b64(const unsigned char *in, size_t n, char *out, size_t outsz)
{
	static const char tab[] =
	    "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
	size_t i, o = 0;
	unsigned v;

	for (i = 0; i < n && o + 5 < outsz; i += 3) {
		v = (unsigned)in[i] << 16;
		if (i + 1 < n)
			v |= (unsigned)in[i + 1] << 8;
		if (i + 2 < n)
			v |= in[i + 2];
		out[o++] = tab[(v >> 18) & 63];
		out[o++] = tab[(v >> 12) & 63];
		if (i + 1 < n)
			out[o++] = tab[(v >> 6) & 63];
		if (i + 2 < n)
			out[o++] = tab[v & 63];
	}
	out[o] = '\0';
}

/* Lets the operator compare with `ssh-keygen -lf` on the host. */
void
knownhosts_fingerprint(LIBSSH2_SESSION *s, char *buf, size_t bufsz)
{
	const char *h = libssh2_hostkey_hash(s, LIBSSH2_HOSTKEY_HASH_SHA256);
	char b64[64];

	if (h == NULL) {
		snprintf(buf, bufsz, "(no fingerprint)");
		return;
	}
	knownhosts_b64((const unsigned char *)h, 32, b64, sizeof(b64));
	snprintf(buf, bufsz, "SHA256:%s", b64);
}

/* Host names in known_hosts carry the port unless it is 22. */
static void
knownhosts_name(const char *address, unsigned port, char *buf, size_t bufsz)
{
	if (port == 22)
		snprintf(buf, bufsz, "%s", address);
	else
		snprintf(buf, bufsz, "[%s]:%u", address, port);
}

/*
 * Whether the file's last byte is a newline (or the file is empty), so an
 * appended entry never lands on an unfinished last line.
 */
static int
knownhosts_ends_line(int fd)
{
	struct stat st;
	char c;

	if (fstat(fd, &st) == -1 || st.st_size == 0)
		return 1;
	if (pread(fd, &c, 1, st.st_size - 1) != 1)
		return 1;
	return c == '\n';
}

/*
 * Appends one line with O_APPEND so concurrent writers cannot interleave,
 * after a newline when the file's last line is unfinished.
 */
static int
knownhosts_append(LIBSSH2_KNOWNHOSTS *kh, const char *path, const char *name,
    const char *key, size_t keylen, int mask, struct bd_error *err)
{
	struct libssh2_knownhost *entry = NULL;
	char line[KNOWNHOSTS_LINE_MAX + 1], *start;
	size_t len = 0;
	int fd, rc;

	rc = libssh2_knownhost_addc(kh, name, NULL, key, keylen, NULL, 0,
	    LIBSSH2_KNOWNHOST_TYPE_PLAIN | LIBSSH2_KNOWNHOST_KEYENC_RAW | mask,
	    &entry);
	if (rc == 0)
		rc = libssh2_knownhost_writeline(kh, entry, line + 1,
		    sizeof(line) - 2, &len, LIBSSH2_KNOWNHOST_FILE_OPENSSH);
	if (rc != 0)
		return bd_error_set(err, -EIO,
		    "cannot format a known_hosts line for %s (libssh2 %d)",
		    name, rc);
	if (len == 0 || line[len] != '\n')
		line[++len] = '\n';
	fd = open(path, O_RDWR | O_APPEND | O_CREAT | O_CLOEXEC, 0600);
	if (fd == -1)
		return bd_error_set(err, -EIO, "cannot open %s: %s", path,
		    strerror(errno));
	/* line[0] is a spare newline, written only after an unfinished line. */
	line[0] = '\n';
	start = knownhosts_ends_line(fd) ? line + 1 : line;
	len += (size_t)(line + 1 - start);
	if (write(fd, start, len) != (ssize_t)len) {
		rc = errno;
		close(fd);
		return bd_error_set(err, -EIO, "cannot write %s: %s", path,
		    strerror(rc));
	}
	if (close(fd) == -1)
		return bd_error_set(err, -EIO, "cannot write %s: %s", path,
		    strerror(errno));
	return 0;
}

/*
 * OpenSSH's host pattern match: '*' any run of characters, '?' one,
 * letters in either case.  fnmatch would take "[127.0.0.1]" for a
 * bracket expression.
 */
static int
knownhosts_match(const char *pat, size_t patlen, const char *s)
{
	if (patlen == 0)
		return *s == '\0';
	if (*pat == '*') {
		for (;; s++) {
			if (knownhosts_match(pat + 1, patlen - 1, s))
				return 1;
			if (*s == '\0')
				return 0;
		}
	}
	if (*s == '\0' || (*pat != '?' && tolower((unsigned char)*pat) !=
	    tolower((unsigned char)*s)))
		return 0;
	return knownhosts_match(pat + 1, patlen - 1, s + 1);
}

/* Reads one line into kh the way libssh2_knownhost_readfile would. */
static int
knownhosts_add_line(LIBSSH2_KNOWNHOSTS *kh, const char *hosts, size_t hlen,
    const char *rest)
{
	char *line;
	int rc;

	xasprintf(&line, "%.*s %s", (int)hlen, hosts, rest);
	rc = libssh2_knownhost_readline(kh, line, strlen(line),
	    LIBSSH2_KNOWNHOST_FILE_OPENSSH);
	free(line);
	return rc;
}

/*
 * A "@revoked PATTERNS KEYTYPE KEY" line, when it applies to this host,
 * goes into the revoked collection under a name this host matches: the
 * host's own name for a plain pattern (wildcards included), the hash for a
 * hashed one, which libssh2 matches.  A negated pattern that matches makes
 * the line not apply, as in OpenSSH.
 */
static int
knownhosts_revoked_line(LIBSSH2_KNOWNHOSTS *revoked, const char *line,
    const char *name, const char *address)
{
	const char *hosts = line, *rest, *p, *comma;
	size_t hlen, plen;
	int plain = 0, neg, rc = 0;

	hlen = strcspn(hosts, " \t");
	rest = hosts + hlen + strspn(hosts + hlen, " \t");
	if (hlen == 0 || *rest == '\0')
		return -1;
	for (p = hosts; p < hosts + hlen; p = comma + 1) {
		if ((comma = memchr(p, ',', (size_t)(hosts + hlen - p))) == NULL)
			comma = hosts + hlen;
		plen = (size_t)(comma - p);
		if ((neg = *p == '!'))
			p++, plen--;
		if (plen >= 3 && strncmp(p, "|1|", 3) == 0) {
			if (!neg && knownhosts_add_line(revoked, p, plen,
			    rest) != 0)
				rc = -1;
		} else if (knownhosts_match(p, plen, name) ||
		    knownhosts_match(p, plen, address)) {
			if (neg)
				return 0;
			plain = 1;
		}
	}
	if (plain && knownhosts_add_line(revoked, name, strlen(name),
	    rest) != 0)
		rc = -1;
	return rc;
}

/*
 * Reads the file line by line into kh as libssh2 would (it reads a marker
 * such as "@revoked" as a host name no host has, so such a line never
 * matches there); revoked keys for this host go into revoked as well (may
 * be NULL).  @cert-authority lines do nothing: certificates are not used.
 * A missing file is an empty one.
 */
static int
knownhosts_load(LIBSSH2_KNOWNHOSTS *kh, LIBSSH2_KNOWNHOSTS *revoked,
    const char *path, const char *name, const char *address,
    struct bd_error *err)
{
	char *line = NULL, *p;
	size_t cap = 0, len;
	unsigned lineno = 0;
	ssize_t n;
	FILE *fp;
	int rc = 0;

	if ((fp = fopen(path, "re")) == NULL) {
		if (errno == ENOENT)
			return 0;
		return bd_error_set(err, -EIO, "cannot read known_hosts file "
		    "%s: %s", path, strerror(errno));
	}
	while (rc == 0 && (n = getline(&line, &cap, fp)) != -1) {
		lineno++;
		len = (size_t)n;
		if (len > 0 && line[len - 1] == '\n')
			line[--len] = '\0';
		p = line + strspn(line, " \t");
		/* Marker lines too, as libssh2_knownhost_readfile reads
		 * them: a file it cannot read is never trusted. */
		if (libssh2_knownhost_readline(kh, p, strlen(p),
		    LIBSSH2_KNOWNHOST_FILE_OPENSSH) != 0) {
			rc = bd_error_set(err, -EIO, "cannot read known_hosts "
			    "file %s: line %u is not a host key line", path,
			    lineno);
			continue;
		}
		len = strcspn(p, " \t");
		if (len != strlen("@revoked") ||
		    strncmp(p, "@revoked", len) != 0 || revoked == NULL)
			continue;
		p += len + strspn(p + len, " \t");
		if (knownhosts_revoked_line(revoked, p, name, address) != 0)
			rc = bd_error_set(err, -EIO, "cannot read known_hosts "
			    "file %s: line %u is not a valid @revoked line",
			    path, lineno);
	}
	if (rc == 0 && ferror(fp))
		rc = bd_error_set(err, -EIO, "cannot read known_hosts file "
		    "%s", path);
	free(line);
	fclose(fp);
	return rc;
}

/*
 * Offering first the key types the file records for the host makes the
 * server present a key that can match: a host recorded with its ECDSA key
 * only, serving ed25519 and ECDSA, then shows its ECDSA key, as it does to
 * OpenSSH.  Which types are recorded is asked of libssh2 with a key of each
 * type that matches nothing: a mismatch means an entry of that type.
 */
void
knownhosts_prefer(LIBSSH2_SESSION *s, const char *path, const char *address,
    unsigned port, char *buf, size_t bufsz)
{
	LIBSSH2_KNOWNHOSTS *kh;
	struct libssh2_knownhost *found;
	struct bd_error err;
	char name[300];
	int recorded[KNOWNHOSTS_NTYPES] = { 0 }, pass;
	size_t i, o = 0;

	knownhosts_name(address, port, name, sizeof(name));
	if ((kh = libssh2_knownhost_init(s)) != NULL &&
	    knownhosts_load(kh, NULL, path, name, address, &err) == 0) {
		for (i = 0; i < KNOWNHOSTS_NTYPES; i++)
			recorded[i] = libssh2_knownhost_checkp(kh, address,
			    (int)port, "-", 1, LIBSSH2_KNOWNHOST_TYPE_PLAIN |
			    LIBSSH2_KNOWNHOST_KEYENC_RAW |
			    knownhosts_types[i].mask, &found) ==
			    LIBSSH2_KNOWNHOST_CHECK_MISMATCH;
	}
	if (kh != NULL)
		libssh2_knownhost_free(kh);
	buf[0] = '\0';
	for (pass = 1; pass >= 0; pass--)
		for (i = 0; i < KNOWNHOSTS_NTYPES; i++)
			if (recorded[i] == pass &&
			    knownhosts_types[i].method != NULL && o < bufsz)
				o += (size_t)snprintf(buf + o, bufsz - o,
				    "%s%s", o > 0 ? "," : "",
				    knownhosts_types[i].method);
}

/*
 * libssh2 answers NOTFOUND when the file records this host with a key of
 * another type only.  OpenSSH calls that a changed key; so does this check,
 * by asking again with the key type left out (any recorded key then
 * mismatches).
 */
static int
knownhosts_other_type(LIBSSH2_KNOWNHOSTS *kh, const char *address,
    unsigned port, const char *key, size_t keylen)
{
	struct libssh2_knownhost *found = NULL;

	return libssh2_knownhost_checkp(kh, address, (int)port, key, keylen,
	    LIBSSH2_KNOWNHOST_TYPE_PLAIN | LIBSSH2_KNOWNHOST_KEYENC_RAW,
	    &found) == LIBSSH2_KNOWNHOST_CHECK_MISMATCH;
}

/*
 * The file is read on every connect: it is small, and an operator's edit
 * (removing a stale key after a reinstall) must take effect without a
 * restart.
 */
int
knownhosts_check(LIBSSH2_SESSION *s, const char *path, const char *address,
    unsigned port, enum config_host_key_policy policy, int *added,
    struct bd_error *err)
{
	LIBSSH2_KNOWNHOSTS *kh, *revoked;
	struct libssh2_knownhost *found = NULL;
	char name[300], fp[80];
	const char *key;
	size_t keylen, i;
	int type, mask = LIBSSH2_KNOWNHOST_KEY_UNKNOWN, rc;

	*added = 0;
	key = libssh2_session_hostkey(s, &keylen, &type);
	if (key == NULL)
		return bd_error_set(err, -EPERM, "the server sent no host key");
	for (i = 0; i < KNOWNHOSTS_NTYPES; i++) {
		if (knownhosts_types[i].hostkey == type)
			mask = knownhosts_types[i].mask;
	}
	knownhosts_name(address, port, name, sizeof(name));
	knownhosts_fingerprint(s, fp, sizeof(fp));
	kh = libssh2_knownhost_init(s);
	revoked = libssh2_knownhost_init(s);
	if (kh == NULL || revoked == NULL) {
		rc = bd_error_set(err, -ENOMEM, "libssh2_knownhost_init failed");
		goto out;
	}
	if ((rc = knownhosts_load(kh, revoked, path, name, address, err)) != 0)
		goto out;
	if (libssh2_knownhost_checkp(revoked, address, (int)port, key, keylen,
	    LIBSSH2_KNOWNHOST_TYPE_PLAIN | LIBSSH2_KNOWNHOST_KEYENC_RAW,
	    &found) == LIBSSH2_KNOWNHOST_CHECK_MATCH) {
		rc = bd_error_set(err, -EPERM, "REVOKED HOST KEY DETECTED: "
		    "%s marks the key %s offers (%s) as @revoked: refusing "
		    "to connect", path, name, fp);
		goto out;
	}
	rc = libssh2_knownhost_checkp(kh, address, (int)port, key, keylen,
	    LIBSSH2_KNOWNHOST_TYPE_PLAIN | LIBSSH2_KNOWNHOST_KEYENC_RAW | mask,
	    &found);
	switch (rc) {
	case LIBSSH2_KNOWNHOST_CHECK_MATCH:
		rc = 0;
		break;
	case LIBSSH2_KNOWNHOST_CHECK_MISMATCH:
		rc = bd_error_set(err, -EPERM,
		    "host key for %s does not match %s (server offers %s): "
		    "refusing to connect; if the host was reinstalled, "
		    "remove its old entry", name, path, fp);
		break;
	case LIBSSH2_KNOWNHOST_CHECK_NOTFOUND:
		if (knownhosts_other_type(kh, address, port, key, keylen)) {
			rc = bd_error_set(err, -EPERM,
			    "host key for %s has changed: %s records a key of "
			    "another type for it (server offers %s): refusing "
			    "to connect; if the host was reinstalled, remove "
			    "its old entry", name, path, fp);
			break;
		}
		if (policy != CONFIG_HOST_KEY_ACCEPT_NEW) {
			rc = bd_error_set(err, -EPERM,
			    "host %s is not in %s (server offers %s): refusing "
			    "to connect; add its key or set host_key = "
			    "accept-new", name, path, fp);
			break;
		}
		rc = knownhosts_append(kh, path, name, key, keylen, mask, err);
		if (rc == 0)
			*added = 1;
		break;
	default:
		rc = bd_error_set(err, -EIO, "cannot check the host key of %s",
		    name);
		break;
	}
out:
	if (kh != NULL)
		libssh2_knownhost_free(kh);
	if (revoked != NULL)
		libssh2_knownhost_free(revoked);
	return rc;
}
