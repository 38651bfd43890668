/* SPDX-License-Identifier: MIT */
/*
 * Host health in the store: the pool tells every change, and a restart
 * puts back what the operator or a failure streak decided (drain,
 * quarantine).  Other states are found out again by probing.
 */
#include <string.h>
#include <time.h>

#include "common/log.h"
#include "sched/sched_int.h"
#include "remote/pool.h"
#include "store/store.h"

/* The pool's health words and the store's, paired. */
static const struct {
	enum pool_health	pool;
	enum store_host_state	store;
} sched_host_states[] = {
	{ POOL_UNKNOWN,		STORE_HOST_UNKNOWN },
	{ POOL_UP,		STORE_HOST_UP },
	{ POOL_DOWN,		STORE_HOST_DOWN },
	{ POOL_QUARANTINED,	STORE_HOST_QUARANTINED },
	{ POOL_DRAINING,	STORE_HOST_DRAINING },
};
#define SCHED_NHOST_STATES \
	(sizeof(sched_host_states) / sizeof(sched_host_states[0]))

/* The wall clock, for "last seen" (a time operators read, not a duration). */
static int64_t
sched_host_now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/*
 * An administrator reads the journal, not the socket: each transition is
 * logged once, a host lost or set aside as a warning, with why.
 */
static void
sched_host_log(const struct pool_host_info *info)
{
	const char *why = info->last_error[0] != '\0' ? info->last_error :
	    "no error recorded";

	if (info->health == info->previous)
		return;
	if (info->previous == POOL_DRAINING && info->health != POOL_QUARANTINED)
		log_info("host %s: undrained, now %s", info->name,
		    pool_health_name(info->health));
	else if (info->health == POOL_UP)
		log_info("host %s: up", info->name);
	else if (info->health == POOL_DOWN)
		log_warnx("host %s: down: %s", info->name, why);
	else if (info->health == POOL_QUARANTINED)
		log_warnx("host %s: quarantined after %u infrastructure "
		    "failures in a row: %s", info->name, info->infra_failures,
		    why);
	else if (info->health == POOL_DRAINING)
		log_info("host %s: drained: it finishes its current run and "
		    "takes no new one", info->name);
}

/* Writes one host through; a failure is logged, the pool goes on. */
static void
sched_host_changed(void *arg, const struct pool_host_info *info)
{
	struct sched *s = arg;
	struct store_host h, old;
	struct bd_error err;
	size_t i;

	sched_host_log(info);
	if (info->copy_failed)
		log_warnx("host %s: an artifact copy to it failed (%u so far, "
		    "over %s): %s", info->name, info->copy_failures,
		    info->receives, info->copy_error);
	store_host_init(&h);
	h.name = info->name;
	h.group = info->group;
	for (i = 0; i < SCHED_NHOST_STATES; i++)
		if (sched_host_states[i].pool == info->health)
			h.state = sched_host_states[i].store;
	h.consecutive_failures = (int)info->infra_failures;
	if (info->health == POOL_UP)
		h.last_seen_ms = sched_host_now_ms();
	else if (store_host_get(sched_store(s), info->name, &old, &err) == 0) {
		h.last_seen_ms = old.last_seen_ms;
		store_host_release(&old);
	}
	if (store_host_put(sched_store(s), &h, &err) < 0)
		log_warnx("host %s: %s", info->name, err.msg);
}

/*
 * Puts the stored drain and quarantine states back into the pool, then
 * writes every later change through.
 */
void
sched_hosts_bind(struct sched *s)
{
	struct pool_host_info info;
	struct store_host h;
	struct bd_error err;
	size_t i, j;

	for (i = 0; i < pool_count(s->pool); i++) {
		pool_info(s->pool, i, &info);
		if (store_host_get(sched_store(s), info.name, &h, &err) != 0)
			continue;
		for (j = 0; j < SCHED_NHOST_STATES; j++)
			if (sched_host_states[j].store == h.state)
				pool_restore(s->pool, info.name,
				    sched_host_states[j].pool,
				    (unsigned)h.consecutive_failures);
		store_host_release(&h);
	}
	pool_set_change_cb(s->pool, sched_host_changed, s);
}
