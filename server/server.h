/* SPDX-License-Identifier: MIT */
/*
 * What the control commands act on: the daemon's parts, lent to the
 * command layer.  The daemon fills it once its parts exist, keeps it up
 * to date (the repository appears after the first clone), and keeps
 * everything in it alive while the control socket runs.  The command
 * layer reaches the daemon's life cycle (reload, events, the clock) only
 * through the functions here, so it depends on nothing above it.
 */
#ifndef SERVER_SERVER_H
#define SERVER_SERVER_H

#include <stdint.h>

#include <git2.h>
#include <jansson.h>
#include <uv.h>

#include "config/config.h"

struct audit;
struct sched;
struct store;
struct sweeper;
struct watcher;

struct server {
	uv_loop_t		*loop;
	struct store		*store;
	struct sched		*sched;
	struct watcher		*watcher;
	struct sweeper		*sweeper;
	git_repository		*repo;		/* NULL until there is a mirror */
	struct audit		*audit;
	int64_t			 started_ms;	/* wall clock, for uptime */
	/* The configuration in effect (a reload replaces it). */
	const struct config	*(*config)(void *arg);
	/* daemon_reload(): 0, or -EINVAL with errs filled. */
	int	(*reload)(void *arg, struct config_errors *errs,
		    json_t *restart_needed, json_t *not_applied);
	/* An event to the watchers (fields stolen). */
	void	(*event)(void *arg, const char *kind, json_t *fields);
	/* The wall clock, ms since the epoch. */
	int64_t	(*now_ms)(void);
	void			*arg;
};

/* The configuration in effect. */
static inline const struct config *
server_config(const struct server *srv)
{
	return srv->config(srv->arg);
}

#endif
