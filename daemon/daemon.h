/* SPDX-License-Identifier: MIT */
/*
 * The daemon's life cycle: one libuv loop that owns the configuration, the
 * store and the control socket; signals; reload; orderly shutdown.
 *
 * bisectd's main loads the configuration, optionally detaches, then calls
 * daemon_init(), daemon_run() and daemon_release().  struct daemon owns
 * everything it points to; handlers reach it through the command layer and
 * must not keep pointers into d->cfg across a reload (it is replaced whole)
 * unless they take a config_hold() on it: a replaced configuration is freed
 * when the last hold on it is dropped (each run holds the one it started
 * under).
 */
#ifndef DAEMON_DAEMON_H
#define DAEMON_DAEMON_H

#include <stdint.h>

#include <jansson.h>
#include <uv.h>

#include "common/error.h"
#include "config/config.h"
#include "server/audit.h"
#include "server/ctl.h"
#include "server/server.h"

struct store;
struct sched;
struct watcher;
struct git_repository;

struct daemon {
	uv_loop_t	 loop;
	struct config	 cfg;		/* the configuration in effect */
	char		*config_path;	/* reloaded from here */
	struct store	*store;
	struct sched	*sched;		/* bisections, hosts, jobs */
	struct watcher	*watcher;	/* fetches into the mirror */
	struct sweeper	*sweeper;	/* nightly sweeps of new tags */
	struct git_repository *repo;	/* lent to the scheduler; may be NULL */
	struct ctl_server ctl;
	struct server	 srv;		/* what the commands act on */
	struct audit	 audit;		/* rate of stored rejections */
	uv_signal_t	 sigint;
	uv_signal_t	 sigterm;
	uv_signal_t	 sighup;
	int64_t		 started_ms;	/* wall clock, for version/uptime */
	int		 loop_ready;	/* loop initialised: must be closed */
	int		 ctl_ready;	/* control socket handed to the loop */
	int		 stopping;
	int		 git_ready;	/* libgit2 initialised */
	int		 lock_fd;	/* store_lock on the database; -1: none */
};

/*
 * Checks what startup needs beyond the file's syntax (the operators
 * groups and the socket_group exist).  Returns 0, or a negative errno with err naming file and key.
 */
int	daemon_config_check(const struct config *cfg, struct bd_error *err);
/*
 * Takes ownership of *cfg (left initialised and empty), opens the store,
 * binds the control socket and installs the signal handlers.  On failure
 * returns a negative errno with err filled; daemon_release() still cleans up.
 */
int	daemon_init(struct daemon *d, const char *config_path,
	    struct config *cfg, struct bd_error *err);
/* Runs the loop until a shutdown has closed every handle. */
void	daemon_run(struct daemon *d);
/* Starts the orderly shutdown (also what SIGINT and SIGTERM do). */
void	daemon_shutdown(struct daemon *d);
/*
 * Reads the configuration file again and swaps it in when it is valid.
 * Returns 0, or -EINVAL with every error in errs (caller releases errs) and
 * the old configuration kept.  Every changed key is compared from the
 * config tables: live ones are applied, and those that only take effect
 * after a restart are appended to restart_needed when not NULL ("socket"
 * for a [daemon] key, "[host a] port", "[host b]" for a section added or
 * removed, and "hosts" once for any [host] change).  A live key that
 * cannot be applied (socket_group naming no group) is appended as a
 * message to not_applied when not NULL; the rest still applies.
 */
int	daemon_reload(struct daemon *d, struct config_errors *errs,
	    json_t *restart_needed, json_t *not_applied);
/* Closes the store, removes the socket file and frees everything. */
void	daemon_release(struct daemon *d);

/*
 * Sends an event to the connections that watch (fields, an object or
 * NULL, is stolen); "time_ms" is added.  Nobody hears it before the
 * control socket runs.
 */
void	daemon_event(struct daemon *d, const char *kind, json_t *fields);

/*
 * main blocks SIGINT, SIGTERM and SIGHUP before anything else; daemon_init
 * unblocks them once the loop handles them, so none is lost or fatal.
 */
void	daemon_signals_block(void);
void	daemon_signals_unblock(void);

/* Milliseconds since the epoch, the time base of stored events. */
int64_t	daemon_now_ms(void);

/*
 * Detaching from the terminal in two halves: begin forks and leaves the
 * original process waiting for a byte on a pipe, so that a failure during
 * startup still gives the caller an error message and a non-zero exit.
 * finish (in the daemon) redirects stdio, switches logging to syslog and
 * releases the waiting parent.  begin returns the pipe's write end.
 */
int	daemon_detach_begin(struct bd_error *err);
void	daemon_detach_finish(int ready_fd, const char *progname, int level);

#endif
