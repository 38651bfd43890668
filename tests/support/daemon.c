/* SPDX-License-Identifier: MIT */
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <sys/un.h>
#include <sys/wait.h>

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "common/xmalloc.h"
#include "tests/support/daemon.h"
#include "tests/support/tst.h"

#define TST_DAEMON_POLL_MS	10

/* The poll interval of every bounded wait below. */
static void
tst_daemon_nap(void)
{
	struct timespec ts = { 0, TST_DAEMON_POLL_MS * 1000000L };

	nanosleep(&ts, NULL);
}

/* Any text, valid or not: reload tests need broken files too. */
int
tst_daemon_write_raw(const struct tst_daemon *td, const char *text)
{
	char *path;
	int rc;

	/* Written aside and renamed, so a reload never reads half a file. */
	path = tst_write_file(td->dir, "bisectd.conf.new", text);
	if (path == NULL)
		return -1;
	rc = rename(path, td->conf) == -1 ? -1 : 0;
	free(path);
	return rc;
}

/* Every test daemon logs at debug level, so failures explain themselves. */
int
tst_daemon_write_config(const struct tst_daemon *td, const char *daemon_extra,
    const char *sections)
{
	char *text;
	int rc;

	xasprintf(&text, "[daemon]\nsocket = %s\ndatabase = %s\n"
	    "workdir = %s/work\nlog_level = debug\n%s\n%s",
	    td->sock, td->db, td->dir, daemon_extra ? daemon_extra : "",
	    sections ? sections : "");
	rc = tst_daemon_write_raw(td, text);
	free(text);
	return rc;
}

/* Paths live under one temp dir so release removes everything. */
int
tst_daemon_setup(struct tst_daemon *td, const char *tag,
    const char *daemon_extra, const char *sections)
{
	memset(td, 0, sizeof(*td));
	td->dir = tst_tmpdir(tag);
	if (td->dir == NULL)
		return -1;
	xasprintf(&td->conf, "%s/bisectd.conf", td->dir);
	xasprintf(&td->sock, "%s/run/bisectd.sock", td->dir);
	xasprintf(&td->db, "%s/state.db", td->dir);
	xasprintf(&td->log, "%s/bisectd.log", td->dir);
	return tst_daemon_write_config(td, daemon_extra, sections);
}

/* Foreground mode keeps the pid ours to wait for and to signal. */
pid_t
tst_daemon_spawn(const struct tst_daemon *td, const char *logname)
{
	const char *bin = tst_env_path("BISECTD_BIN");
	char *logpath;
	pid_t pid;
	int fd;

	if (*bin == '\0')
		return -1;
	xasprintf(&logpath, "%s/%s", td->dir, logname);
	pid = fork();
	if (pid == 0) {
		/* The daemon must not outlive a crashed test worker. */
		prctl(PR_SET_PDEATHSIG, SIGKILL);
		fd = open(logpath, O_WRONLY | O_CREAT | O_APPEND, 0644);
		if (fd != -1) {
			dup2(fd, STDERR_FILENO);
			dup2(fd, STDOUT_FILENO);
		}
		execl(bin, "bisectd", "-f", "-c", td->conf, (char *)NULL);
		_exit(127);
	}
	free(logpath);
	return pid;
}

/* Readiness is "the socket answers", the same test bisectd itself uses. */
static int
tst_daemon_answers(const struct tst_daemon *td)
{
	int fd = tst_daemon_connect(td);

	if (fd == -1)
		return 0;
	close(fd);
	return 1;
}

/* Fails fast when the daemon exits instead of waiting the full bound. */
int
tst_daemon_start(struct tst_daemon *td)
{
	int waited, st;

	td->pid = tst_daemon_spawn(td, "bisectd.log");
	if (td->pid <= 0) {
		td->pid = 0;
		return -1;
	}
	for (waited = 0; waited < TST_DAEMON_WAIT_MS;
	    waited += TST_DAEMON_POLL_MS) {
		if (tst_daemon_answers(td))
			return 0;
		if (waitpid(td->pid, &st, WNOHANG) == td->pid) {
			td->pid = 0;
			return -1;
		}
		tst_daemon_nap();
	}
	return -1;
}

/*
 * Bounded, so a daemon that never exits fails the test instead of hanging
 * it.
 */
int
tst_daemon_wait(pid_t pid)
{
	int waited, st;
	pid_t r;

	for (waited = 0; waited < TST_DAEMON_WAIT_MS;
	    waited += TST_DAEMON_POLL_MS) {
		r = waitpid(pid, &st, WNOHANG);
		if (r == pid)
			return WIFEXITED(st) ? WEXITSTATUS(st) :
			    128 + WTERMSIG(st);
		if (r == -1)
			return -1;
		tst_daemon_nap();
	}
	return -1;
}

/*
 * A daemon that did not stop cleanly says why in its log (a sanitizer's
 * report, a fatal line); the end of it goes to stderr before the test's
 * directory is removed.
 */
void
tst_daemon_show_log(const struct tst_daemon *td, const char *why)
{
	char *text = td->log != NULL ? tst_read_file(td->log) : NULL;
	size_t len = text != NULL ? strlen(text) : 0;

	fprintf(stderr, "%s; the end of %s:\n%s\n", why,
	    td->log != NULL ? td->log : "its log",
	    text == NULL ? "(no log)" : text + (len > 6000 ? len - 6000 : 0));
	free(text);
}

/* Signals and waits; the pid is forgotten only once reaped. */
int
tst_daemon_stop(struct tst_daemon *td, int sig)
{
	char why[64];
	int rc;

	if (td->pid <= 0)
		return -1;
	kill(td->pid, sig);
	rc = tst_daemon_wait(td->pid);
	if (rc != -1)
		td->pid = 0;
	if (rc != 0 && rc != 128 + sig) {
		snprintf(why, sizeof(why), "bisectd exited with status %d", rc);
		tst_daemon_show_log(td, why);
	}
	return rc;
}

/* Runs from fini, after failures too: kill, reap, remove. */
void
tst_daemon_release(struct tst_daemon *td)
{
	if (td->pid > 0) {
		kill(td->pid, SIGKILL);
		waitpid(td->pid, NULL, 0);
	}
	if (td->dir != NULL && getenv("BISECTD_TEST_KEEP") == NULL)
		tst_rmrf(td->dir);
	free(td->dir);
	free(td->conf);
	free(td->sock);
	free(td->db);
	free(td->log);
	memset(td, 0, sizeof(*td));
}

/* Timeouts on both directions keep a hung daemon from hanging the test. */
int
tst_daemon_connect(const struct tst_daemon *td)
{
	struct sockaddr_un sun;
	struct timeval tv = { TST_DAEMON_WAIT_MS / 1000, 0 };
	int fd;

	memset(&sun, 0, sizeof(sun));
	sun.sun_family = AF_UNIX;
	if (strlen(td->sock) >= sizeof(sun.sun_path))
		return -1;
	strcpy(sun.sun_path, td->sock);
	fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (fd == -1)
		return -1;
	if (connect(fd, (struct sockaddr *)&sun, sizeof(sun)) == -1) {
		close(fd);
		return -1;
	}
	setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
	setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof(tv));
	return fd;
}

/* Loops over short writes; large lines need several. */
int
tst_daemon_send(int fd, const char *text, size_t len)
{
	ssize_t n;

	while (len > 0) {
		n = send(fd, text, len, MSG_NOSIGNAL);
		if (n == -1 && errno == EINTR)
			continue;
		if (n <= 0)
			return -1;
		text += n;
		len -= (size_t)n;
	}
	return 0;
}

/* Byte by byte: slow, but never reads past the line another call wants. */
char *
tst_daemon_read_line(int fd)
{
	char *buf = NULL, c;
	size_t len = 0, cap = 0;
	ssize_t n;

	for (;;) {
		n = recv(fd, &c, 1, 0);
		if (n == -1 && errno == EINTR)
			continue;
		if (n != 1) {
			free(buf);
			return NULL;
		}
		if (c == '\n')
			break;
		if (len + 2 > cap) {
			cap = cap ? cap * 2 : 256;
			buf = xreallocarray(buf, cap, 1);
		}
		buf[len++] = c;
	}
	if (buf == NULL)
		buf = xmalloc(1);
	buf[len] = '\0';
	return buf;
}

/* The common request-reply step of most tests. */
char *
tst_daemon_rpc(int fd, const char *line)
{
	char *text;
	int rc;

	xasprintf(&text, "%s\n", line);
	rc = tst_daemon_send(fd, text, strlen(text));
	free(text);
	return rc == 0 ? tst_daemon_read_line(fd) : NULL;
}

/* For one-off requests where the connection does not matter. */
char *
tst_daemon_request(const struct tst_daemon *td, const char *line)
{
	int fd = tst_daemon_connect(td);
	char *reply;

	if (fd == -1)
		return NULL;
	reply = tst_daemon_rpc(fd, line);
	close(fd);
	return reply;
}

/* Reads the whole file each time: logs in tests are small. */
static int
tst_daemon_file_has(const char *path, const char *text)
{
	char *buf = tst_read_file(path);
	int found = buf != NULL && strstr(buf, text) != NULL;

	free(buf);
	return found;
}

/* The daemon logs asynchronously to the test; wait, bounded. */
int
tst_daemon_log_wait(const struct tst_daemon *td, const char *logname,
    const char *text)
{
	char *path;
	int waited, found = 0;

	xasprintf(&path, "%s/%s", td->dir, logname);
	for (waited = 0; waited < TST_DAEMON_WAIT_MS && !found;
	    waited += TST_DAEMON_POLL_MS) {
		found = tst_daemon_file_has(path, text);
		if (!found)
			tst_daemon_nap();
	}
	free(path);
	return found;
}

/* Frees the line in every case so callers can chain it. */
json_t *
tst_daemon_reply(char *line)
{
	json_t *r = json_loads(line, 0, NULL);

	free(line);
	if (r != NULL && !json_is_object(r)) {
		json_decref(r);
		r = NULL;
	}
	return r;
}

/* Never NULL, so it can go straight into a string assertion. */
const char *
tst_daemon_error_code(const json_t *reply)
{
	const char *c = json_string_value(json_object_get(
	    json_object_get(reply, "error"), "code"));

	return c != NULL ? c : "(none)";
}

/* sh only joins the streams; the words reach the program untouched. */
char *
tst_daemon_run_both(const char *const *argv, int *status)
{
	const char *av[16] = { "sh", "-c", "exec \"$@\" 2>&1", "sh" };
	size_t i;

	for (i = 0; argv[i] != NULL && i < 11; i++)
		av[4 + i] = argv[i];
	av[4 + i] = NULL;
	return tst_run_capture((char *const *)av, status);
}
