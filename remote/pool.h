/* SPDX-License-Identifier: MIT */
/*
 * The fleet: one entry per configured host with its SSH connection, its
 * group and roles, its lease and its health.
 *
 * Health: a host is UNKNOWN until first contact: the pool probes every
 * host when it starts, and a lease or a probe decides UP or DOWN.  UP and
 * UNKNOWN hosts can be leased.  An infrastructure failure (connection
 * refused or lost, boot timeout, hung command) counts against the host;
 * after quarantine_after of them in a row it is QUARANTINED until an
 * operator undrains it, otherwise it is DOWN until a health probe connects
 * again.  A successful step (or a benchmark failure, which proves the host
 * works) resets the count.  DRAINING hosts finish their lease and take no
 * new one.  The pool only answers and counts; job.c schedules work on it.
 */
#ifndef REMOTE_POOL_H
#define REMOTE_POOL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <uv.h>

#include "common/error.h"
#include "common/names.h"
#include "config/config.h"
#include "remote/ssh.h"
#include "remote/step.h"

#define POOL_HEALTH_MS	5000

enum pool_health {
	POOL_UP = 0,
	POOL_DOWN,
	POOL_QUARANTINED,
	POOL_DRAINING,
	POOL_UNKNOWN,
};

struct pool;
struct pool_host;

struct pool_host_info {
	const char		*name;
	const char		*group;
	unsigned		 roles;		/* enum config_host_role bits */
	enum pool_health	 health;
	/* The health the change callback was last told (POOL_UNKNOWN at
	 * first), so that a listener logs each transition once. */
	enum pool_health	 previous;
	unsigned		 infra_failures;	/* in a row */
	bool			 leased;
	/* Why the host last failed, "" when none or once it is up again;
	 * when, in wall-clock ms since the epoch (0: none). */
	const char		*last_error;
	int64_t			 last_error_ms;
	/* How artifacts reach the host: "sftp", "exec" (its sshd has no
	 * SFTP), NULL before the first copy; copies that failed, the last
	 * one's why, and whether this change is such a failure. */
	const char		*receives;
	unsigned		 copy_failures;
	bool			 copy_failed;
	const char		*copy_error;	/* "" when none */
};

/* Told when a host may have become available (released, back up). */
typedef void pool_avail_cb(void *arg);
/* Told when a host's health or failure count changed (to persist it). */
typedef void pool_change_cb(void *arg, const struct pool_host_info *info);

/*
 * Makes a pool of the n hosts (copied).  health_ms is how often DOWN
 * hosts are probed; 0 means POOL_HEALTH_MS.
 */
int	 pool_new(uv_loop_t *loop, const struct config_host *hosts, size_t n,
	    uint64_t health_ms, struct pool **out, struct bd_error *err);
/* Closes every connection; run the loop afterwards to let them go. */
void	 pool_free(struct pool *p);
void	 pool_set_avail_cb(struct pool *p, pool_avail_cb *cb, void *arg);
void	 pool_set_change_cb(struct pool *p, pool_change_cb *cb, void *arg);
/*
 * Puts back what an operator or a failure streak decided before a restart:
 * DRAINING and QUARANTINED stay; other states start UNKNOWN again.
 * -ENOENT for a host the pool does not have.
 */
int	 pool_restore(struct pool *p, const char *name, enum pool_health h,
	    unsigned failures);

uv_loop_t *pool_loop(const struct pool *p);
struct pool_host *pool_find(struct pool *p, const char *name);
size_t	 pool_count(const struct pool *p);
/* An artifact copy to h ended (see struct pool_host_info). */
void	 pool_note_copy(struct pool *p, struct pool_host *h, bool via_exec,
	    bool failed, const char *why);
void	 pool_info(const struct pool *p, size_t i, struct pool_host_info *out);
/*
 * The words of enum pool_health, the only list of host health words.
 * pool_usable says whether a host in that state may be leased.
 */
extern const struct name_value pool_health_words[];
const char *pool_health_name(enum pool_health h);
bool	 pool_usable(enum pool_health h);

/*
 * Leases a free UP host of group that has every role bit in roles and is
 * not in exclude.  Returns 0, -EBUSY when such hosts exist but are busy or
 * down (wait), or -ENOENT when there is none that could ever serve.
 */
int	 pool_lease(struct pool *p, const char *group, unsigned roles,
	    struct pool_host *const *exclude, size_t nexclude,
	    struct pool_host **out);
/*
 * Undoes a lease that was never used (the job could not get its other
 * host): nothing changed, so nobody is told.  Telling would make the
 * queue dispatch again at once and, in the same loop turn, fail the same
 * way: a live-lock.
 */
void	 pool_unlease(struct pool_host *h);
/*
 * Gives the host back.  outcome is what this host did: INFRA or TIMEOUT
 * count against it, OK and FAILED clear the count, CANCELLED is neutral.
 */
void	 pool_release(struct pool *p, struct pool_host *h,
	    enum step_outcome outcome, const char *why);

/* -EALREADY when the host is draining already. */
int	 pool_drain(struct pool *p, const char *name);
/* Also ends a quarantine; a host not connected is probed before use. */
int	 pool_undrain(struct pool *p, const char *name);

struct ssh_conn *pool_host_conn(struct pool_host *h);
const struct config_host *pool_host_config(const struct pool_host *h);
enum pool_health pool_host_health(const struct pool_host *h);

#endif
