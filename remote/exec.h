/* SPDX-License-Identifier: MIT */
/*
 * Running one command on a host over an SSH channel.
 *
 * stdout and stderr are appended to a local log file as they arrive, through
 * one fixed buffer: the next read waits until the last write is done, so
 * memory stays the same whatever the command prints, and the SSH window
 * throttles the host meanwhile.  The last tail_max bytes of stdout are kept
 * for the caller (metrics on the last line, a kernel release).
 *
 * The command runs under a small wrapper that reports its process group
 * (sshd starts every command as a session leader) on the first stderr line,
 * which is not logged.  A timeout or a cancel opens a second channel that
 * sends TERM to the whole group, waits kill_grace_ms and sends KILL, so
 * nothing is left running on the host; closing the channel alone would
 * leave the process behind.
 */
#ifndef REMOTE_EXEC_H
#define REMOTE_EXEC_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "common/error.h"
#include "remote/ssh.h"

#define EXEC_BUFSZ		32768	/* the one data buffer of an exec */
#define EXEC_KILL_GRACE_MS	2000

enum exec_status {
	EXEC_EXITED = 0,	/* exit_code is valid */
	EXEC_SIGNALED,		/* signal is valid */
	EXEC_TIMEOUT,		/* ran past timeout_ms; the group was killed */
	EXEC_CANCELLED,		/* exec_cancel(); the group was killed */
	EXEC_LOST,		/* no connection, or it died: infrastructure */
	EXEC_ERROR,		/* a local failure, such as the log file */
};

struct exec_opts {
	const char	*command;	/* run by /bin/sh -c on the host */
	const char	*cwd;		/* made and entered first; NULL: home */
	const char	*log_path;	/* output appended; NULL: dropped */
	/*
	 * Bytes of output the log keeps (0: all): the first half as it
	 * comes, the last half at the end, after a line saying how much
	 * was cut between them.  The result (tail, counts) sees everything.
	 */
	uint64_t	 log_max;
	uint64_t	 timeout_ms;	/* 0: none */
	uint64_t	 kill_grace_ms;	/* TERM to KILL; 0: EXEC_KILL_GRACE_MS */
	uint64_t	 connect_wait_ms; /* retry a connection this long */
	size_t		 tail_max;	/* stdout bytes kept; 0: none */
};

/* Valid only during the callback. */
struct exec_result {
	enum exec_status status;
	int		 exit_code;
	char		 signal[32];	/* "TERM", without SIG */
	uint64_t	 out_bytes;
	uint64_t	 err_bytes;
	const char	*tail;		/* last bytes of stdout */
	size_t		 tail_len;
	bool		 tail_truncated; /* stdout was longer than the tail */
	size_t		 buf_hwm;	/* most bytes ever held in the buffer */
	long		 pgid;		/* remote process group, 0 if unknown */
	struct bd_error	 err;		/* why, when not EXITED */
};

struct exec;
typedef void exec_done_cb(void *arg, const struct exec_result *r);

/*
 * Starts opts->command on c (connecting first if needed).  cb is called
 * exactly once, never from inside exec_start; the exec frees itself after.
 * Returns 0, or negative errno with err set (cb is not called then).  *out
 * (if not NULL) stays valid until cb returns.
 */
int	exec_start(struct ssh_conn *c, const struct exec_opts *opts,
	    exec_done_cb *cb, void *arg, struct exec **out,
	    struct bd_error *err);
/* Kills the remote process group; cb follows with EXEC_CANCELLED. */
void	exec_cancel(struct exec *e);

/* "exited with status 2", "killed by signal TERM", ... for messages. */
void	exec_describe(const struct exec_result *r, char *buf, size_t bufsz);

#endif
