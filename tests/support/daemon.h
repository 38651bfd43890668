/* SPDX-License-Identifier: MIT */
/*
 * The real bisectd for integration tests: a temp directory with a config,
 * the daemon from $BISECTD_BIN in the foreground, its stderr in a log file,
 * and line-oriented clients for its control socket.
 *
 * Functions are prefixed tst_daemon_ (the library's daemon_ is taken).  A
 * struct tst_daemon owns its directory and process: tst_daemon_release()
 * kills a daemon still running and removes the directory, and is safe on a
 * zeroed struct and twice, so a suite's .fini can call it after a failure.
 * Daemons are started with PR_SET_PDEATHSIG, so a crashed test worker
 * leaves none behind.  Waits are bounded (TST_DAEMON_WAIT_MS) so that a
 * broken daemon fails a test instead of hanging it.
 */
#ifndef TESTS_SUPPORT_DAEMON_H
#define TESTS_SUPPORT_DAEMON_H

#include <sys/types.h>

#include <jansson.h>

#define TST_DAEMON_WAIT_MS	20000

struct tst_daemon {
	char	*dir;		/* temp dir, removed by release */
	char	*conf;		/* dir/bisectd.conf */
	char	*sock;		/* dir/run/bisectd.sock (run/ made by bisectd) */
	char	*db;		/* dir/state.db */
	char	*log;		/* dir/bisectd.log: the daemon's stderr */
	pid_t	 pid;		/* 0 when not running */
};

/*
 * Makes the directory and writes the config: a [daemon] section with the
 * test's socket and database plus the lines in daemon_extra (may be NULL),
 * then sections (may be NULL).  Returns 0 or -1.
 */
int	tst_daemon_setup(struct tst_daemon *td, const char *tag,
	    const char *daemon_extra, const char *sections);
/* Rewrites the config file the same way, for reload tests. */
int	tst_daemon_write_config(const struct tst_daemon *td,
	    const char *daemon_extra, const char *sections);
/* Writes text as the whole config file (for broken configs). */
int	tst_daemon_write_raw(const struct tst_daemon *td, const char *text);

/*
 * Starts `bisectd -f -c conf` with stderr to logname in td->dir and returns
 * its pid without waiting; -1 when it cannot be started.
 */
pid_t	tst_daemon_spawn(const struct tst_daemon *td, const char *logname);
/* Spawns td's daemon and waits until its socket answers; 0 or -1. */
int	tst_daemon_start(struct tst_daemon *td);
/* Waits for pid to end; its exit status, 128+signal, or -1 on timeout. */
int	tst_daemon_wait(pid_t pid);
/*
 * Sends sig to td's daemon and waits: as tst_daemon_wait.  A status other
 * than 0 or sig's own shows the end of the daemon's log.
 */
int	tst_daemon_stop(struct tst_daemon *td, int sig);
/* Prints why, then the end of td's log, to stderr (not a test failure). */
void	tst_daemon_show_log(const struct tst_daemon *td, const char *why);
void	tst_daemon_release(struct tst_daemon *td);

/* A connected client socket with a receive timeout, or -1. */
int	tst_daemon_connect(const struct tst_daemon *td);
/* Sends text as is (add the newline yourself); 0 or -1. */
int	tst_daemon_send(int fd, const char *text, size_t len);
/* The next line from fd without its newline (caller frees); NULL at EOF. */
char	*tst_daemon_read_line(int fd);
/* Sends line plus a newline and returns the reply line (caller frees). */
char	*tst_daemon_rpc(int fd, const char *line);
/* One request on a fresh connection; the reply line or NULL. */
char	*tst_daemon_request(const struct tst_daemon *td, const char *line);
/*
 * Parses a reply line and frees it: the object (caller decrefs), or NULL
 * when the line is not a JSON object.
 */
json_t	*tst_daemon_reply(char *line);
/* error.code of a reply, or "(none)". */
const char *tst_daemon_error_code(const json_t *reply);
/* Runs argv (at most 11 words) with stderr into stdout; as tst_run_capture. */
char	*tst_daemon_run_both(const char *const *argv, int *status);
/* Waits until the daemon's log contains text; 1 when it does, 0 if not. */
int	tst_daemon_log_wait(const struct tst_daemon *td, const char *logname,
	    const char *text);

#endif
