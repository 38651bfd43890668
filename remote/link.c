/* SPDX-License-Identifier: MIT */
#include <netinet/in.h>
#include <netinet/tcp.h>

#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common/xmalloc.h"
#include "remote/knownhosts.h"
#include "remote/link.h"

/*
 * Every block libssh2 allocates for a session carries this header and sits
 * on its link's list, so the blocks libssh2 1.10 forgets to free when a
 * session ends before key exchange finished (its curve25519 keys, for
 * one) are freed with the link instead of leaking once per broken
 * handshake.
 */
struct link_block {
	struct link_block	*prev;
	struct link_block	*next;
	size_t			 count;
};

#define LINK_HDR	32	/* sizeof(struct link_block), 16-byte aligned */

_Static_assert(sizeof(struct link_block) <= LINK_HDR, "link_block header");

/* Keeps the meter in step with the heap after every change. */
static void
link_heap(struct link *l, size_t plus, size_t minus)
{
	l->heap = l->heap + plus - minus;
	if (l->meter == NULL)
		return;
	l->meter->heap_now = l->heap;
	if (l->heap > l->meter->heap_peak)
		l->meter->heap_peak = l->heap;
}

/* Puts a block (new or moved by realloc) at the head of the link's list. */
static void
link_block_insert(struct link *l, struct link_block *b)
{
	b->prev = NULL;
	b->next = l->blocks;
	if (b->next != NULL)
		b->next->prev = b;
	l->blocks = b;
}

static void
link_block_remove(struct link *l, struct link_block *b)
{
	if (b->prev != NULL)
		b->prev->next = b->next;
	else
		l->blocks = b->next;
	if (b->next != NULL)
		b->next->prev = b->prev;
}

/* libssh2's heap, counted per link so memory per session is measurable. */
static LIBSSH2_ALLOC_FUNC(link_alloc)
{
	struct link *l = *abstract;
	struct link_block *b = malloc(count + LINK_HDR);

	if (b == NULL)
		return NULL;
	b->count = count;
	link_block_insert(l, b);
	link_heap(l, count, 0);
	return (char *)b + LINK_HDR;
}

static LIBSSH2_FREE_FUNC(link_free)
{
	struct link *l = *abstract;
	struct link_block *b;

	if (ptr == NULL)
		return;
	b = (struct link_block *)((char *)ptr - LINK_HDR);
	link_block_remove(l, b);
	link_heap(l, 0, b->count);
	free(b);
}

static LIBSSH2_REALLOC_FUNC(link_realloc)
{
	struct link *l = *abstract;
	struct link_block *b, *nb;
	size_t old;

	if (ptr == NULL)
		return link_alloc(count, abstract);
	b = (struct link_block *)((char *)ptr - LINK_HDR);
	old = b->count;
	link_block_remove(l, b);
	if ((nb = realloc(b, count + LINK_HDR)) == NULL) {
		link_block_insert(l, b);
		return NULL;
	}
	nb->count = count;
	link_block_insert(l, nb);
	link_heap(l, count, old);
	return (char *)nb + LINK_HDR;
}

/* Frees what libssh2 left allocated after freeing its session. */
static void
link_reclaim(struct link *l)
{
	struct link_block *b;

	while ((b = l->blocks) != NULL) {
		link_block_remove(l, b);
		free(b);
	}
	l->heap = 0;
}

/* Every byte from the peer proves it alive; the keepalive reads this. */
static LIBSSH2_RECV_FUNC(link_recv)
{
	struct link *l = *abstract;
	ssize_t n = recv(socket, buffer, length, flags);

	if (n < 0)
		return -errno;
	if (l->meter != NULL) {
		l->meter->last_rx = uv_now(l->meter->loop);
		l->meter->rx_bytes += (uint64_t)n;
	}
	return n;
}

/* Starts a non-blocking connect; the poll tells when it is done. */
int
link_open(uv_loop_t *loop, const struct sockaddr *sa, socklen_t len,
    const struct link_params *p, struct link_meter *meter, void *data,
    struct link **out, struct bd_error *err)
{
	struct link *l;
	int fd, one = 1;

	fd = socket(sa->sa_family, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC,
	    0);
	if (fd == -1)
		return bd_error_set(err, -errno, "%s: socket: %s", p->name,
		    strerror(errno));
	setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
	if (connect(fd, sa, len) == -1 && errno != EINPROGRESS) {
		int e = errno;

		close(fd);
		return bd_error_set(err, -e, "%s: cannot connect to %s port "
		    "%u: %s", p->name, p->address, p->port, strerror(e));
	}
	l = xcalloc(1, sizeof(*l));
	l->fd = fd;
	l->meter = meter;
	l->data = data;
	l->phase = LINK_CONNECTING;
	uv_poll_init_socket(loop, &l->poll, fd);
	l->poll.data = l;
	l->polling = 1;
	*out = l;
	return 0;
}

/* Changes the poll only when the events change: epoll calls cost. */
void
link_poll(struct link *l, int events, uv_poll_cb cb)
{
	if (l->events == events)
		return;
	l->events = events;
	if (events == 0)
		uv_poll_stop(&l->poll);
	else
		uv_poll_start(&l->poll, events, cb);
}

/* Maps libssh2's block directions to poll events (readable at least). */
int
link_events(LIBSSH2_SESSION *s)
{
	int d = libssh2_session_block_directions(s), ev = 0;

	if (d & LIBSSH2_SESSION_BLOCK_INBOUND)
		ev |= UV_READABLE;
	if (d & LIBSSH2_SESSION_BLOCK_OUTBOUND)
		ev |= UV_WRITABLE;
	return ev ? ev : UV_READABLE;
}

/* Wipes the passphrase as soon as authentication no longer needs it. */
static void
link_forget_passphrase(struct link *l)
{
	if (l->passphrase == NULL)
		return;
	explicit_bzero(l->passphrase, strlen(l->passphrase));
	free(l->passphrase);
	l->passphrase = NULL;
}

/* The passphrase file holds one line; a trailing newline is not part of it. */
static int
link_read_passphrase(struct link *l, const struct link_params *p,
    struct bd_error *err)
{
	char buf[1024];
	ssize_t n;
	int fd;

	if (p->passphrase_file == NULL)
		return 0;
	fd = open(p->passphrase_file, O_RDONLY | O_CLOEXEC);
	if (fd == -1)
		return bd_error_set(err, -EPERM, "%s: cannot read passphrase "
		    "file %s: %s", p->name, p->passphrase_file,
		    strerror(errno));
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n < 0)
		return bd_error_set(err, -EPERM, "%s: cannot read %s",
		    p->name, p->passphrase_file);
	while (n > 0 && (buf[n - 1] == '\n' || buf[n - 1] == '\r'))
		n--;
	buf[n] = '\0';
	l->passphrase = xstrdup(buf);
	explicit_bzero(buf, sizeof(buf));
	return 0;
}

/* A libssh2 failure during login, with libssh2's own words. */
static int
link_login_error(struct link *l, const struct link_params *p, int final,
    const char *what, struct bd_error *err)
{
	char *msg = NULL;

	int rc = libssh2_session_last_error(l->s, &msg, NULL, 0);

	return bd_error_set(err, final ? -EPERM : -ECONNRESET,
	    "%s: %s %s failed: %s (libssh2 %d)%s", p->name, p->address, what,
	    msg != NULL ? msg : "unknown error", rc,
	    rc == LIBSSH2_ERROR_KEX_FAILURE ? "; if the host has only an RSA "
	    "host key: libssh2 1.10 verifies RSA host keys with ssh-rsa "
	    "(SHA-1) only, not rsa-sha2-256/512, which OpenSSH 8.8 and later "
	    "refuse by default; give the host an ed25519 or ECDSA host key"
	    : "");
}

/* The TCP connect finished (or failed) when the socket became writable. */
static int
link_connected(struct link *l, const struct link_params *p,
    struct bd_error *err)
{
	socklen_t len = sizeof(int);
	char pref[256];
	int soerr = 0;

	if (getsockopt(l->fd, SOL_SOCKET, SO_ERROR, &soerr, &len) == -1)
		soerr = errno;
	if (soerr != 0)
		return bd_error_set(err, -soerr, "%s: cannot connect to %s "
		    "port %u: %s", p->name, p->address, p->port,
		    strerror(soerr));
	l->s = libssh2_session_init_ex(link_alloc, link_free, link_realloc,
	    l);
	if (l->s == NULL)
		return bd_error_set(err, -ENOMEM, "%s: libssh2_session_init "
		    "failed", p->name);
	libssh2_session_set_blocking(l->s, 0);
	libssh2_session_callback_set(l->s, LIBSSH2_CALLBACK_RECV,
	    (void *)link_recv);
	knownhosts_prefer(l->s, p->known_hosts, p->address, p->port, pref,
	    sizeof(pref));
	libssh2_session_method_pref(l->s, LIBSSH2_METHOD_HOSTKEY, pref);
	l->phase = LINK_HANDSHAKE;
	return 0;
}

/* The peer closed the connection (or it broke): nothing more to read. */
static int
link_peer_gone(const struct link *l)
{
	char c;
	ssize_t n = recv(l->fd, &c, 1, MSG_PEEK | MSG_DONTWAIT);

	return n == 0 || (n < 0 && errno != EAGAIN && errno != EWOULDBLOCK);
}

/*
 * Only a refusal is final: the server rejected the key, or the key file
 * cannot be used (unreadable, wrong passphrase).  libssh2 1.10 reports a
 * connection dropped while waiting for the answer with the same code as a
 * rejection, but a server that rejects keeps the connection open: a gone
 * peer (a host rebooting mid-login) is worth another attempt.
 */
static int
link_auth_final(const struct link *l, int rc)
{
	if (link_peer_gone(l))
		return 0;
	switch (rc) {
	case LIBSSH2_ERROR_AUTHENTICATION_FAILED:
	case LIBSSH2_ERROR_PUBLICKEY_UNVERIFIED:
	case LIBSSH2_ERROR_PUBLICKEY_PROTOCOL:
	case LIBSSH2_ERROR_FILE:
	case LIBSSH2_ERROR_METHOD_NONE:
	case LIBSSH2_ERROR_METHOD_NOT_SUPPORTED:
		return 1;
	default:
		return 0;
	}
}

/* Each phase resumes where libssh2 said EAGAIN. */
int
link_login(struct link *l, const struct link_params *p, uv_poll_cb cb,
    int *final, struct bd_error *err)
{
	int rc;

	*final = 0;
	if (l->phase == LINK_CONNECTING &&
	    (rc = link_connected(l, p, err)) != 0)
		return rc;
	if (l->phase == LINK_HANDSHAKE) {
		rc = libssh2_session_handshake(l->s, l->fd);
		if (rc == LIBSSH2_ERROR_EAGAIN)
			goto again;
		if (rc != 0)
			return link_login_error(l, p, 0, "SSH handshake", err);
		*final = 1;
		rc = knownhosts_check(l->s, p->known_hosts, p->address,
		    p->port, p->policy, &l->key_added, err);
		if (rc == 0)
			rc = link_read_passphrase(l, p, err);
		if (rc != 0)
			return rc;
		*final = 0;
		l->phase = LINK_AUTH;
	}
	rc = libssh2_userauth_publickey_fromfile_ex(l->s, p->user,
	    (unsigned)strlen(p->user), NULL, p->identity, l->passphrase);
	if (rc == LIBSSH2_ERROR_EAGAIN)
		goto again;
	link_forget_passphrase(l);
	if (rc != 0) {
		*final = link_auth_final(l, rc);
		return link_login_error(l, p, *final, "public key "
		    "authentication", err);
	}
	l->phase = LINK_UP;
	link_poll(l, 0, cb);
	return 0;
again:
	link_poll(l, link_events(l->s), cb);
	return LIBSSH2_ERROR_EAGAIN;
}

/* Turns the socket's pending error into words. */
const char *
link_socket_error(const struct link *l)
{
	socklen_t len = sizeof(int);
	int soerr = 0;

	if (getsockopt(l->fd, SOL_SOCKET, SO_ERROR, &soerr, &len) == -1)
		soerr = errno;
	return soerr != 0 ? strerror(soerr) : "socket error";
}

/* The poll handle is closed: the socket and the link can go. */
static void
link_closed(uv_handle_t *h)
{
	struct link *l = h->data;

	close(l->fd);
	free(l);
}

/*
 * Shuts the socket down before libssh2 frees the session, so its last
 * sends fail at once instead of blocking the loop.
 */
void
link_close(struct link *l, int graceful)
{
	link_forget_passphrase(l);
	if (l->s != NULL) {
		if (graceful && l->phase == LINK_UP)
			libssh2_session_disconnect(l->s, "bisectd closing");
		shutdown(l->fd, SHUT_RDWR);
		libssh2_session_set_blocking(l->s, 1);
		libssh2_session_free(l->s);
		l->s = NULL;
		link_reclaim(l);
	}
	if (l->meter != NULL)
		l->meter->heap_now = 0;
	l->meter = NULL;
	uv_poll_stop(&l->poll);
	uv_close((uv_handle_t *)&l->poll, link_closed);
}
