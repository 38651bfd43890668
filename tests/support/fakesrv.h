/* SPDX-License-Identifier: MIT */
/*
 * A fake bisectd for testing bisectctl without the daemon: a unix socket
 * server in a thread of the test, on a socket in a fresh temp directory,
 * that answers each request line with replies the test chose and streams
 * event lines to watch connections.  It records every request line so the
 * test can check what bisectctl sent.
 *
 * Use: fakesrv_init(), fakesrv_reply()/fakesrv_event() to script it,
 * fakesrv_start(), run bisectctl with fakesrv_ctl(), look at
 * fakesrv_request(), and fakesrv_release() (safe on a zeroed struct and
 * twice, so a suite's .fini may call it after a failed assertion).
 * Scripting after fakesrv_start() is not supported.
 *
 * Replies: each request's "cmd" picks the next scripted reply for that
 * command; the last one repeats.  An empty reply line closes the
 * connection without answering.  A command without a script gets an
 * unknown-command error; watch without a script gets
 * {"ok":true,"watching":true}.
 */
#ifndef TESTS_SUPPORT_FAKESRV_H
#define TESTS_SUPPORT_FAKESRV_H

#include <pthread.h>
#include <stddef.h>

#include <jansson.h>

/* When the scripted events go out on watch connections. */
enum fakesrv_mode {
	/* All right after the watch reply; then the connection is closed. */
	FAKESRV_AT_ONCE = 0,
	/*
	 * One more event each time the fake answers a request that is not
	 * watch, so a client that asks for the status after every event
	 * sees status replies and events in a fixed order.  Never closed.
	 */
	FAKESRV_LOCKSTEP,
};

struct fakesrv_script {
	char	*cmd;
	char	**lines;
	size_t	 n;
	size_t	 next;
};

struct fakesrv {
	char			*dir;		/* temp dir, removed by release */
	char			*path;		/* dir/ctl.sock */
	enum fakesrv_mode	 mode;
	int			 inited;	/* 0: zeroed, release does nothing */
	int			 lfd;
	int			 wake[2];	/* release wakes the thread */
	int			 started;
	pthread_t		 thread;
	pthread_mutex_t		 lock;		/* guards requests */
	struct fakesrv_script	*scripts;
	size_t			 nscripts;
	char			**events;
	size_t			 nevents;
	size_t			 released;	/* events watchers may get */
	char			**requests;
	size_t			 nrequests;
};

void	fakesrv_init(struct fakesrv *fs, enum fakesrv_mode mode);
/* Adds line (copied) as the next reply to requests whose cmd is cmd. */
void	fakesrv_reply(struct fakesrv *fs, const char *cmd, const char *line);
/* Adds line (copied) to the event stream. */
void	fakesrv_event(struct fakesrv *fs, const char *line);
/* Makes the directory, binds the socket and starts the thread; 0 or -1. */
int	fakesrv_start(struct fakesrv *fs, const char *tag);
/* Stops the thread, closes every connection, removes the directory. */
void	fakesrv_release(struct fakesrv *fs);

size_t	fakesrv_nrequests(struct fakesrv *fs);
/*
 * The i-th request line as JSON (the caller decrefs), or NULL when there
 * is none or it is not JSON.
 */
json_t	*fakesrv_request(struct fakesrv *fs, size_t i);
/* The last request whose cmd is cmd (caller decrefs), or NULL. */
json_t	*fakesrv_last(struct fakesrv *fs, const char *cmd);

/*
 * fakesrv_reply (cmd not NULL) or fakesrv_event (cmd NULL) with text
 * written with ' in place of ", so that JSON in C literals stays readable.
 */
void	fakesrv_script(struct fakesrv *fs, const char *cmd, const char *text);

/* What one bisectctl run printed; fakesrv_out_release frees it. */
struct fakesrv_out {
	char	*out;		/* stdout */
	char	*err;		/* stderr */
	int	 status;	/* exit status, 128 + signal when killed */
};

/*
 * fakesrv_ctl into o, after freeing what o held from an earlier run.
 * Returns 0, or -1 when bisectctl could not run.
 */
int	fakesrv_run(struct fakesrv_out *o, const char *sock, int tty,
	    const char *const *args);
void	fakesrv_out_release(struct fakesrv_out *o);
/* How many newlines s has. */
size_t	fakesrv_count_lines(const char *s);

/*
 * Runs $BISECTCTL_BIN [-s sock] args... (args ends with NULL; sock NULL:
 * no -s) with stdin from /dev/null.  Returns its stdout and stores its
 * stderr in *errp (both the caller's to free) and its exit status (128 +
 * signal when killed) in *status; NULL when it could not run.  With tty,
 * stdout is a pseudo-terminal instead of a pipe.
 */
char	*fakesrv_ctl(const char *sock, const char *const *args, int tty,
	    int *status, char **errp);

#endif
