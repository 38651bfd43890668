/*
 * Host key checks against an OpenSSH known_hosts file, read with libssh2.
 */
#include <sys/stat.h>

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "remote/knownhosts.h"

#define KNOWNHOSTS_LINE_MAX 4096

struct knownhosts_type {
	int	hostkey;	/* LIBSSH2_HOSTKEY_TYPE_* */
	int	mask;		/* LIBSSH2_KNOWNHOST_KEY_* */
};

/* The two libssh2 enumerations for key types, paired. */
static const struct knownhosts_type knownhosts_types[] = {
	{ LIBSSH2_HOSTKEY_TYPE_RSA,		LIBSSH2_KNOWNHOST_KEY_SSHRSA },
	{ LIBSSH2_HOSTKEY_TYPE_DSS,		LIBSSH2_KNOWNHOST_KEY_SSHDSS },
	{ LIBSSH2_HOSTKEY_TYPE_ECDSA_256,	LIBSSH2_KNOWNHOST_KEY_ECDSA_256 },
	{ LIBSSH2_HOSTKEY_TYPE_ECDSA_384,	LIBSSH2_KNOWNHOST_KEY_ECDSA_384 },
	{ LIBSSH2_HOSTKEY_TYPE_ECDSA_521,	LIBSSH2_KNOWNHOST_KEY_ECDSA_521 },
	{ LIBSSH2_HOSTKEY_TYPE_ED25519,		LIBSSH2_KNOWNHOST_KEY_ED25519 },
};

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
	LIBSSH2_KNOWNHOSTS *kh;
	struct libssh2_knownhost *found = NULL;
	char name[300], fp[80];
	const char *key;
	size_t keylen, i;
	int type, mask = LIBSSH2_KNOWNHOST_KEY_UNKNOWN, rc;

	*added = 0;
	key = libssh2_session_hostkey(s, &keylen, &type);
	if (key == NULL)
		return bd_error_set(err, -EPERM, "the server sent no host key");
	for (i = 0; i < sizeof(knownhosts_types) / sizeof(knownhosts_types[0]);
	    i++) {
		if (knownhosts_types[i].hostkey == type)
			mask = knownhosts_types[i].mask;
	}
	knownhosts_name(address, port, name, sizeof(name));
	knownhosts_fingerprint(s, fp, sizeof(fp));
	if ((kh = libssh2_knownhost_init(s)) == NULL)
		return bd_error_set(err, -ENOMEM, "libssh2_knownhost_init failed");
	if (access(path, F_OK) == 0 &&
	    libssh2_knownhost_readfile(kh, path,
	    LIBSSH2_KNOWNHOST_FILE_OPENSSH) < 0) {
		rc = bd_error_set(err, -EIO, "cannot read known_hosts file %s",
		    path);
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
	libssh2_knownhost_free(kh);
	return rc;
}
