/* SPDX-License-Identifier: MIT */
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <sys/wait.h>

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pty.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common/xmalloc.h"
#include "tests/support/fakesrv.h"
#include "tests/support/tst.h"

#define FAKESRV_CONNS	32

static const char fakesrv_watching[] = "{\"ok\":true,\"watching\":true}";

/* One client connection of the fake, with its partial input. */
struct fakesrv_conn {
	int	 fd;		/* -1: free slot */
	char	*in;
	size_t	 len;
	size_t	 cap;
	int	 watching;
	size_t	 sent;		/* events sent so far */
};

/* Marks the struct live, so release knows what there is to undo. */
void
fakesrv_init(struct fakesrv *fs, enum fakesrv_mode mode)
{
	memset(fs, 0, sizeof(*fs));
	fs->mode = mode;
	fs->lfd = -1;
	fs->wake[0] = fs->wake[1] = -1;
	pthread_mutex_init(&fs->lock, NULL);
	fs->inited = 1;
}

/* Appends a copy of s to a growing vector of strings. */
static void
push(char ***v, size_t *n, const char *s)
{
	*v = xreallocarray(*v, *n + 1, sizeof(**v));
	(*v)[(*n)++] = xstrdup(s);
}

/* Scripts are per command so tests can mix commands in any order. */
void
fakesrv_reply(struct fakesrv *fs, const char *cmd, const char *line)
{
	struct fakesrv_script *s = NULL;
	size_t i;

	for (i = 0; i < fs->nscripts; i++)
		if (strcmp(fs->scripts[i].cmd, cmd) == 0)
			s = &fs->scripts[i];
	if (s == NULL) {
		fs->scripts = xreallocarray(fs->scripts, fs->nscripts + 1,
		    sizeof(*fs->scripts));
		s = &fs->scripts[fs->nscripts++];
		memset(s, 0, sizeof(*s));
		s->cmd = xstrdup(cmd);
	}
	push(&s->lines, &s->n, line);
}

/* Events go to every watcher in the order they were added. */
void
fakesrv_event(struct fakesrv *fs, const char *line)
{
	push(&fs->events, &fs->nevents, line);
}

/* The scripted reply for cmd, or NULL when the test scripted none. */
static const char *
script_next(struct fakesrv *fs, const char *cmd)
{
	struct fakesrv_script *s;
	size_t i;

	for (i = 0; i < fs->nscripts; i++) {
		s = &fs->scripts[i];
		if (strcmp(s->cmd, cmd) == 0)
			return s->lines[s->next < s->n - 1 ? s->next++ :
			    s->n - 1];
	}
	return NULL;
}

/* Blocking writes are fine: the peer is a test's client that reads. */
static void
conn_write(struct fakesrv_conn *c, const char *line)
{
	char *buf;
	size_t off = 0, n;
	ssize_t w;

	n = (size_t)xasprintf(&buf, "%s\n", line);
	while (off < n) {
		w = send(c->fd, buf + off, n - off, MSG_NOSIGNAL);
		if (w == -1 && errno == EINTR)
			continue;
		if (w <= 0)
			break;
		off += (size_t)w;
	}
	free(buf);
}

/* Frees the slot for the next client; safe on a free slot. */
static void
conn_close(struct fakesrv_conn *c)
{
	if (c->fd != -1)
		close(c->fd);
	free(c->in);
	memset(c, 0, sizeof(*c));
	c->fd = -1;
}

/* Sends a watcher the events released so far; AT_ONCE then hangs up. */
static void
conn_flush(struct fakesrv *fs, struct fakesrv_conn *c)
{
	if (c->fd == -1 || !c->watching)
		return;
	while (c->sent < fs->released)
		conn_write(c, fs->events[c->sent++]);
	if (fs->mode == FAKESRV_AT_ONCE)
		conn_close(c);
}

/* Records the request line and answers it as the script says. */
static void
conn_answer(struct fakesrv *fs, struct fakesrv_conn *conns,
    struct fakesrv_conn *c, const char *line)
{
	json_t *req = json_loads(line, 0, NULL), *reply;
	const char *cmd = json_string_value(json_object_get(req, "cmd"));
	const char *out;
	char *err = NULL;
	size_t i;
	int watch;

	pthread_mutex_lock(&fs->lock);
	push(&fs->requests, &fs->nrequests, line);
	pthread_mutex_unlock(&fs->lock);
	watch = cmd != NULL && strcmp(cmd, "watch") == 0;
	out = script_next(fs, cmd != NULL ? cmd : "");
	if (out == NULL && watch)
		out = fakesrv_watching;
	if (out == NULL) {
		xasprintf(&err, "{\"ok\":false,\"error\":{\"code\":"
		    "\"unknown-command\",\"message\":\"fake: no reply for "
		    "%s\"}}", cmd != NULL ? cmd : "(no cmd)");
		out = err;
	}
	if (*out == '\0')
		conn_close(c);
	else
		conn_write(c, out);
	reply = json_loads(out, 0, NULL);
	if (watch && c->fd != -1 && json_is_true(json_object_get(reply,
	    "ok"))) {
		c->watching = 1;
		conn_flush(fs, c);
	} else if (!watch && fs->mode == FAKESRV_LOCKSTEP &&
	    fs->released < fs->nevents) {
		fs->released++;
		for (i = 0; i < FAKESRV_CONNS; i++)
			conn_flush(fs, &conns[i]);
	}
	json_decref(reply);
	json_decref(req);
	free(err);
}

/* Reads what arrived and answers each whole line. */
static void
conn_input(struct fakesrv *fs, struct fakesrv_conn *conns,
    struct fakesrv_conn *c)
{
	char *nl, *line;
	ssize_t n;
	size_t len;

	if (c->cap - c->len < 4096) {
		c->cap = c->cap ? c->cap * 2 : 8192;
		c->in = xreallocarray(c->in, c->cap, 1);
	}
	n = read(c->fd, c->in + c->len, c->cap - c->len);
	if (n <= 0) {
		conn_close(c);
		return;
	}
	c->len += (size_t)n;
	while (c->fd != -1 && (nl = memchr(c->in, '\n', c->len)) != NULL) {
		len = (size_t)(nl - c->in);
		line = xstrndup(c->in, len);
		memmove(c->in, nl + 1, c->len - len - 1);
		c->len -= len + 1;
		conn_answer(fs, conns, c, line);
		free(line);
	}
}

/* Accepts into a free slot; more clients than slots are turned away. */
static void
fakesrv_accept(struct fakesrv *fs, struct fakesrv_conn *conns)
{
	int fd = accept4(fs->lfd, NULL, NULL, SOCK_CLOEXEC);
	size_t i;

	if (fd == -1)
		return;
	for (i = 0; i < FAKESRV_CONNS; i++)
		if (conns[i].fd == -1) {
			conns[i].fd = fd;
			return;
		}
	close(fd);
}

/* The server thread: one poll over the wake pipe, listener and clients. */
static void *
fakesrv_main(void *arg)
{
	struct fakesrv *fs = arg;
	struct fakesrv_conn conns[FAKESRV_CONNS];
	struct pollfd pfd[FAKESRV_CONNS + 2];
	size_t i;

	for (i = 0; i < FAKESRV_CONNS; i++) {
		memset(&conns[i], 0, sizeof(conns[i]));
		conns[i].fd = -1;
	}
	for (;;) {
		pfd[0].fd = fs->wake[0];
		pfd[1].fd = fs->lfd;
		for (i = 0; i < FAKESRV_CONNS; i++)
			pfd[i + 2].fd = conns[i].fd;
		for (i = 0; i < FAKESRV_CONNS + 2; i++) {
			pfd[i].events = POLLIN;
			pfd[i].revents = 0;
		}
		if (poll(pfd, FAKESRV_CONNS + 2, -1) == -1 && errno != EINTR)
			break;
		if (pfd[0].revents != 0)
			break;
		if (pfd[1].revents & POLLIN)
			fakesrv_accept(fs, conns);
		for (i = 0; i < FAKESRV_CONNS; i++)
			if (conns[i].fd != -1 && pfd[i + 2].fd == conns[i].fd &&
			    pfd[i + 2].revents != 0)
				conn_input(fs, conns, &conns[i]);
	}
	for (i = 0; i < FAKESRV_CONNS; i++)
		conn_close(&conns[i]);
	return NULL;
}

/* A socket per test in its own temp dir, so parallel workers never meet. */
int
fakesrv_start(struct fakesrv *fs, const char *tag)
{
	struct sockaddr_un sun;

	if (fs->mode == FAKESRV_AT_ONCE)
		fs->released = fs->nevents;
	fs->dir = tst_tmpdir(tag);
	if (fs->dir == NULL)
		return -1;
	xasprintf(&fs->path, "%s/ctl.sock", fs->dir);
	memset(&sun, 0, sizeof(sun));
	sun.sun_family = AF_UNIX;
	if (strlen(fs->path) >= sizeof(sun.sun_path))
		return -1;
	strcpy(sun.sun_path, fs->path);
	fs->lfd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (fs->lfd == -1 ||
	    bind(fs->lfd, (struct sockaddr *)&sun, sizeof(sun)) == -1 ||
	    listen(fs->lfd, 16) == -1 || pipe2(fs->wake, O_CLOEXEC) == -1)
		return -1;
	if (pthread_create(&fs->thread, NULL, fakesrv_main, fs) != 0)
		return -1;
	fs->started = 1;
	return 0;
}

/* Frees a vector of strings from push(). */
static void
strv_free(char **v, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		free(v[i]);
	free(v);
}

/* The thread is joined before anything it reads is freed. */
void
fakesrv_release(struct fakesrv *fs)
{
	size_t i;

	if (!fs->inited)
		return;
	if (fs->started) {
		if (write(fs->wake[1], "x", 1) == -1)
			abort();
		pthread_join(fs->thread, NULL);
		fs->started = 0;
	}
	if (fs->lfd != -1)
		close(fs->lfd);
	for (i = 0; i < 2; i++)
		if (fs->wake[i] != -1)
			close(fs->wake[i]);
	tst_rmrf(fs->dir);
	for (i = 0; i < fs->nscripts; i++) {
		free(fs->scripts[i].cmd);
		strv_free(fs->scripts[i].lines, fs->scripts[i].n);
	}
	free(fs->scripts);
	strv_free(fs->events, fs->nevents);
	strv_free(fs->requests, fs->nrequests);
	free(fs->dir);
	free(fs->path);
	pthread_mutex_destroy(&fs->lock);
	memset(fs, 0, sizeof(*fs));
}

/* Under the lock: the server thread appends while the test reads. */
size_t
fakesrv_nrequests(struct fakesrv *fs)
{
	size_t n;

	pthread_mutex_lock(&fs->lock);
	n = fs->nrequests;
	pthread_mutex_unlock(&fs->lock);
	return n;
}

/* Parsed here so tests assert on fields, not on spelling. */
json_t *
fakesrv_request(struct fakesrv *fs, size_t i)
{
	json_t *r = NULL;

	pthread_mutex_lock(&fs->lock);
	if (i < fs->nrequests)
		r = json_loads(fs->requests[i], 0, NULL);
	pthread_mutex_unlock(&fs->lock);
	return r;
}

/* The newest wins: a test usually checks what its last run sent. */
json_t *
fakesrv_last(struct fakesrv *fs, const char *cmd)
{
	json_t *r;
	const char *c;
	size_t i;

	for (i = fakesrv_nrequests(fs); i-- > 0; ) {
		r = fakesrv_request(fs, i);
		c = json_string_value(json_object_get(r, "cmd"));
		if (c != NULL && strcmp(c, cmd) == 0)
			return r;
		json_decref(r);
	}
	return NULL;
}

/* Appends what fd has to a growing buffer; 0 at end of input. */
static int
drain(int fd, char **buf, size_t *len, size_t *cap)
{
	ssize_t n;

	if (*cap - *len < 4096) {
		*cap = *cap ? *cap * 2 : 8192;
		*buf = xreallocarray(*buf, *cap, 1);
	}
	n = read(fd, *buf + *len, *cap - *len - 1);
	if (n == -1 && errno == EINTR)
		return 1;
	if (n <= 0)		/* a pty master reads EIO once the child is gone */
		return 0;
	*len += (size_t)n;
	(*buf)[*len] = '\0';
	return 1;
}

/* The child: stdout and stderr set up by the parent, then bisectctl. */
static void __attribute__((noreturn))
ctl_exec(const char *sock, const char *const *args, int out, int err)
{
	const char *argv[32];
	size_t n = 0;
	int devnull;

	prctl(PR_SET_PDEATHSIG, SIGKILL);
	argv[n++] = tst_env_path("BISECTCTL_BIN");
	if (sock != NULL) {
		argv[n++] = "-s";
		argv[n++] = sock;
	}
	while (*args != NULL && n < 31)
		argv[n++] = *args++;
	argv[n] = NULL;
	devnull = open("/dev/null", O_RDONLY);
	dup2(devnull, 0);
	dup2(out, 1);
	dup2(err, 2);
	execv(argv[0], (char *const *)argv);
	_exit(127);
}

/*
 * Reads stdout and stderr together with poll(2), so a child that fills
 * one pipe while the test waits on the other cannot deadlock.
 */
char *
fakesrv_ctl(const char *sock, const char *const *args, int tty, int *status,
    char **errp)
{
	struct pollfd pfd[2];
	char *buf[2] = { NULL, NULL };
	size_t len[2] = { 0, 0 }, cap[2] = { 0, 0 };
	int outp[2] = { -1, -1 }, errpipe[2], open_n, st, i;
	pid_t pid;

	if (pipe2(errpipe, O_CLOEXEC) == -1)
		return NULL;
	if ((tty ? openpty(&outp[0], &outp[1], NULL, NULL, NULL) :
	    pipe2(outp, O_CLOEXEC)) == -1) {
		close(errpipe[0]);
		close(errpipe[1]);
		return NULL;
	}
	pid = fork();
	if (pid == 0) {
		close(outp[0]);
		ctl_exec(sock, args, outp[1], errpipe[1]);
	}
	close(outp[1]);
	close(errpipe[1]);
	pfd[0].fd = outp[0];
	pfd[1].fd = errpipe[0];
	for (i = 0; i < 2; i++) {
		cap[i] = 8192;
		buf[i] = xmalloc(cap[i]);
		buf[i][0] = '\0';
	}
	for (open_n = pid == -1 ? 0 : 2; open_n > 0; ) {
		for (i = 0; i < 2; i++) {
			pfd[i].events = POLLIN;
			pfd[i].revents = 0;
		}
		if (poll(pfd, 2, -1) == -1 && errno != EINTR)
			break;
		for (i = 0; i < 2; i++)
			if (pfd[i].fd != -1 && pfd[i].revents != 0 &&
			    !drain(pfd[i].fd, &buf[i], &len[i], &cap[i])) {
				pfd[i].fd = -1;
				open_n--;
			}
	}
	close(outp[0]);
	close(errpipe[0]);
	if (pid == -1 || waitpid(pid, &st, 0) == -1) {
		free(buf[0]);
		free(buf[1]);
		return NULL;
	}
	*status = WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
	*errp = buf[1];
	return buf[0];
}

/* JSON in C literals reads better with ' than with \". */
void
fakesrv_script(struct fakesrv *fs, const char *cmd, const char *text)
{
	char *s = xstrdup(text), *p;

	for (p = s; *p != '\0'; p++)
		if (*p == '\'')
			*p = '"';
	if (cmd != NULL)
		fakesrv_reply(fs, cmd, s);
	else
		fakesrv_event(fs, s);
	free(s);
}

/* Keeps the last run's output until the next run or release. */
int
fakesrv_run(struct fakesrv_out *o, const char *sock, int tty,
    const char *const *args)
{
	fakesrv_out_release(o);
	o->out = fakesrv_ctl(sock, args, tty, &o->status, &o->err);
	return o->out != NULL ? 0 : -1;
}

/* Safe on a zeroed struct and twice. */
void
fakesrv_out_release(struct fakesrv_out *o)
{
	free(o->out);
	free(o->err);
	memset(o, 0, sizeof(*o));
}

/* Tests count output lines to see that nothing was printed twice. */
size_t
fakesrv_count_lines(const char *s)
{
	size_t n = 0;

	for (; *s != '\0'; s++)
		n += *s == '\n';
	return n;
}
