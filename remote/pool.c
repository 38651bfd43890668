/* SPDX-License-Identifier: MIT */
/*
 * The host pool: leases, health and probes.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "common/xmalloc.h"
#include "remote/pool.h"

struct pool_host {
	struct pool		*pool;
	struct config_host	 cfg;		/* deep copy */
	struct ssh_conn		*conn;
	enum pool_health	 health;
	enum pool_health	 told;		/* to the change callback */
	unsigned		 failures;
	bool			 leased;
	bool			 probing;
	struct ssh_waiter	 waiter;
	char			 last_error[BD_ERROR_MAX];
	int64_t			 last_error_ms;	/* wall clock; 0: none */
	const char		*receives;	/* "sftp", "exec"; NULL: no copy yet */
	unsigned		 copy_failures;
	bool			 copy_failed;	/* only while telling it */
	char			 copy_error[BD_ERROR_MAX];
};

struct pool {
	uv_loop_t		*loop;
	struct pool_host	*hosts;
	size_t			 n;
	uv_timer_t		 health;
	pool_avail_cb		*avail;
	void			*avail_arg;
	pool_change_cb		*change;
	void			*change_arg;
};

const struct name_value pool_health_words[] = {
	{ "up", POOL_UP },
	{ "down", POOL_DOWN },
	{ "quarantined", POOL_QUARANTINED },
	{ "draining", POOL_DRAINING },
	{ "unknown", POOL_UNKNOWN },
	{ NULL, 0 },
};

/* Names for logs and the control protocol. */
const char *
pool_health_name(enum pool_health h)
{
	return name_of(pool_health_words, (int)h);
}

/* Hosts not yet contacted are leased too: the lease's connect probes. */
bool
pool_usable(enum pool_health h)
{
	return h == POOL_UP || h == POOL_UNKNOWN;
}

/*
 * Lets the daemon persist what a restart must remember, and log each
 * transition once: the listener hears the health it was told before.
 */
static void
pool_changed(struct pool_host *h)
{
	struct pool *p = h->pool;
	struct pool_host_info info;

	if (p->change == NULL)
		return;
	pool_info(p, (size_t)(h - p->hosts), &info);
	h->told = h->health;
	p->change(p->change_arg, &info);
}

/*
 * Why the host failed, dated by the wall clock: an operator reads it next
 * to the journal, so the time is the one the journal shows.
 */
static void
pool_set_error(struct pool_host *h, const char *why)
{
	struct timespec ts;

	snprintf(h->last_error, sizeof(h->last_error), "%s", why);
	clock_gettime(CLOCK_REALTIME, &ts);
	h->last_error_ms = (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* A host that answers again has no current error to show. */
static void
pool_clear_error(struct pool_host *h)
{
	h->last_error[0] = '\0';
	h->last_error_ms = 0;
}

/* Lets the scheduler place waiting work. */
static void
pool_tell(struct pool *p)
{
	if (p->avail != NULL)
		p->avail(p->avail_arg);
}

/* A DOWN host answered: it may be leased again. */
static void
pool_on_probe(void *arg, int rc, const struct bd_error *err)
{
	struct pool_host *h = arg;

	h->probing = false;
	if (rc != 0) {
		pool_set_error(h, err->msg);
		if (h->health == POOL_UNKNOWN) {
			h->health = POOL_DOWN;
			pool_changed(h);
		}
		return;
	}
	if (h->health == POOL_DOWN || h->health == POOL_UNKNOWN) {
		h->health = POOL_UP;
		pool_clear_error(h);
		pool_changed(h);
		pool_tell(h->pool);
	}
}

/*
 * DOWN hosts are tried again now and then; one answer brings them back.
 * Hosts never contacted are tried too, so that their state is known.
 */
static void
pool_on_health(uv_timer_t *t)
{
	struct pool *p = t->data;
	size_t i;

	for (i = 0; i < p->n; i++) {
		struct pool_host *h = &p->hosts[i];

		if ((h->health != POOL_DOWN && h->health != POOL_UNKNOWN) ||
		    h->leased || h->probing)
			continue;
		h->probing = true;
		ssh_connect(h->conn, &h->waiter, 0, pool_on_probe, h);
	}
}

/* Copies the hosts and makes one connection each, and probes them all. */
int
pool_new(uv_loop_t *loop, const struct config_host *hosts, size_t n,
    uint64_t health_ms, struct pool **out, struct bd_error *err)
{
	struct pool *p = xcalloc(1, sizeof(*p));
	size_t i;
	int rc;

	p->loop = loop;
	p->hosts = xcalloc(n ? n : 1, sizeof(*p->hosts));
	for (i = 0; i < n; i++) {
		struct pool_host *h = &p->hosts[i];

		h->pool = p;
		h->health = POOL_UNKNOWN;
		h->told = POOL_UNKNOWN;
		config_host_copy(&h->cfg, &hosts[i]);
		if ((rc = ssh_conn_new(loop, &h->cfg, &h->conn)) != 0) {
			p->n = i;
			config_host_release(&h->cfg);
			pool_free(p);
			return bd_error_set(err, rc, "cannot set up host %s",
			    hosts[i].name);
		}
		p->n = i + 1;
	}
	uv_timer_init(loop, &p->health);
	p->health.data = p;
	health_ms = health_ms ? health_ms : POOL_HEALTH_MS;
	uv_timer_start(&p->health, pool_on_health, health_ms, health_ms);
	uv_unref((uv_handle_t *)&p->health);
	pool_on_health(&p->health);	/* first contact: every host, now */
	*out = p;
	return 0;
}

/* The health timer is closed: the pool can go. */
static void
pool_freed(uv_handle_t *t)
{
	free(t->data);
}

/* Closes every connection; the pool goes once its timer is closed. */
void
pool_free(struct pool *p)
{
	size_t i;

	for (i = 0; i < p->n; i++) {
		ssh_waiter_cancel(&p->hosts[i].waiter);
		ssh_conn_free(p->hosts[i].conn);
		config_host_release(&p->hosts[i].cfg);
	}
	free(p->hosts);
	if (p->health.data == NULL) {
		free(p);		/* pool_new failed before the timer */
		return;
	}
	uv_close((uv_handle_t *)&p->health, pool_freed);
}

/* One listener: the job queue. */
void
pool_set_avail_cb(struct pool *p, pool_avail_cb *cb, void *arg)
{
	p->avail = cb;
	p->avail_arg = arg;
}

/* One listener: the daemon, which writes health through to the store. */
void
pool_set_change_cb(struct pool *p, pool_change_cb *cb, void *arg)
{
	p->change = cb;
	p->change_arg = arg;
}

/* A drain or a quarantine outlives a restart; nothing else is trusted. */
int
pool_restore(struct pool *p, const char *name, enum pool_health health,
    unsigned failures)
{
	struct pool_host *h = pool_find(p, name);

	if (h == NULL)
		return -ENOENT;
	if (health == POOL_DRAINING || health == POOL_QUARANTINED) {
		h->health = health;
		h->told = health;	/* not a transition: logged before */
		h->failures = failures;
	}
	return 0;
}

/* The loop the pool runs on, for modules that need timers. */
uv_loop_t *
pool_loop(const struct pool *p)
{
	return p->loop;
}

/* Looks a host up by its configured name. */
struct pool_host *
pool_find(struct pool *p, const char *name)
{
	size_t i;

	for (i = 0; i < p->n; i++) {
		if (strcmp(p->hosts[i].cfg.name, name) == 0)
			return &p->hosts[i];
	}
	return NULL;
}

/* For listing hosts. */
size_t
pool_count(const struct pool *p)
{
	return p->n;
}

/* A snapshot of one host for status views. */
void
pool_info(const struct pool *p, size_t i, struct pool_host_info *out)
{
	const struct pool_host *h = &p->hosts[i];

	out->name = h->cfg.name;
	out->group = h->cfg.group;
	out->roles = h->cfg.roles;
	out->health = h->health;
	out->previous = h->told;
	out->infra_failures = h->failures;
	out->leased = h->leased;
	out->last_error = h->last_error;
	out->last_error_ms = h->last_error_ms;
	out->receives = h->receives;
	out->copy_failures = h->copy_failures;
	out->copy_failed = h->copy_failed;
	out->copy_error = h->copy_error;
}

/*
 * How an artifact copy to h went: the way it takes ("sftp", "exec") and,
 * for a failure, the count and why; the change callback hears a failure
 * while copy_failed is set, so the daemon can log it.
 */
void
pool_note_copy(struct pool *p, struct pool_host *h, bool via_exec,
    bool failed, const char *why)
{
	const char *way = via_exec ? "exec" : "sftp";

	(void)p;
	if (!failed && h->receives == way)
		return;
	h->receives = way;
	if (failed) {
		h->copy_failures++;
		snprintf(h->copy_error, sizeof(h->copy_error), "%s",
		    why ? why : "");
		h->copy_failed = true;
	}
	pool_changed(h);
	h->copy_failed = false;
}

/* Hosts a job failed on are not leased to it again. */
static bool
pool_excluded(const struct pool_host *h, struct pool_host *const *ex,
    size_t n)
{
	size_t i;

	for (i = 0; i < n; i++) {
		if (ex[i] == h)
			return true;
	}
	return false;
}

/* Hosts in configuration order: the first free one wins. */
int
pool_lease(struct pool *p, const char *group, unsigned roles,
    struct pool_host *const *exclude, size_t nexclude,
    struct pool_host **out)
{
	bool could = false;
	size_t i;

	for (i = 0; i < p->n; i++) {
		struct pool_host *h = &p->hosts[i];

		if (strcmp(h->cfg.group, group) != 0 ||
		    (h->cfg.roles & roles) != roles ||
		    pool_excluded(h, exclude, nexclude))
			continue;
		if (h->health == POOL_QUARANTINED ||
		    h->health == POOL_DRAINING)
			continue;
		could = true;
		if (!pool_usable(h->health) || h->leased)
			continue;
		h->leased = true;
		*out = h;
		return 0;
	}
	*out = NULL;
	return could ? -EBUSY : -ENOENT;
}

void
pool_unlease(struct pool_host *h)
{
	h->leased = false;
}

/* Counts infrastructure failures towards quarantine; success clears them. */
void
pool_release(struct pool *p, struct pool_host *h, enum step_outcome o,
    const char *why)
{
	h->leased = false;
	if (o == STEP_INFRA || o == STEP_TIMEOUT) {
		h->failures++;
		if (why != NULL)
			pool_set_error(h, why);
		if (h->cfg.quarantine_after > 0 &&
		    h->failures >= h->cfg.quarantine_after) {
			if (h->health != POOL_DRAINING)
				h->health = POOL_QUARANTINED;
		} else if (pool_usable(h->health) && !ssh_is_ready(h->conn))
			h->health = POOL_DOWN;
		pool_changed(h);
	} else if (o == STEP_OK || o == STEP_FAILED) {
		h->failures = 0;
		pool_clear_error(h);
		if (h->health == POOL_UNKNOWN)
			h->health = POOL_UP;
		pool_changed(h);
	}
	pool_tell(p);
}

/* The host finishes its lease and takes no new one. */
int
pool_drain(struct pool *p, const char *name)
{
	struct pool_host *h = pool_find(p, name);

	if (h == NULL)
		return -ENOENT;
	if (h->health == POOL_DRAINING)
		return -EALREADY;
	h->health = POOL_DRAINING;
	pool_changed(h);
	return 0;
}

/*
 * Back into service; also lifts a quarantine.  A host whose connection is
 * up is up at once (that is what a probe would find); any other is probed
 * now and stays down until it answers.
 */
int
pool_undrain(struct pool *p, const char *name)
{
	struct pool_host *h = pool_find(p, name);

	if (h == NULL)
		return -ENOENT;
	h->failures = 0;
	h->health = h->conn != NULL && ssh_is_ready(h->conn) ? POOL_UP :
	    POOL_DOWN;
	if (h->health == POOL_UP)
		pool_clear_error(h);
	pool_changed(h);
	pool_tell(p);
	pool_on_health(&p->health);
	return 0;
}

/* The host's one connection, reused by every step. */
struct ssh_conn *
pool_host_conn(struct pool_host *h)
{
	return h->conn;
}

/* The pool's copy of the host's configuration. */
const struct config_host *
pool_host_config(const struct pool_host *h)
{
	return &h->cfg;
}

/* For schedulers that count usable hosts. */
enum pool_health
pool_host_health(const struct pool_host *h)
{
	return h->health;
}
