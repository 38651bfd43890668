/* SPDX-License-Identifier: MIT */
/*
 * The SSH backend: runs go to the job queue over the host pool, which
 * already retries infrastructure failures on another host of the group.
 */
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "common/error.h"
#include "common/xmalloc.h"
#include "config/config.h"
#include "remote/backend.h"
#include "remote/job.h"
#include "remote/pool.h"

struct backend_ssh {
	struct backend	 be;
	struct pool	*pool;
	struct job_queue *q;
	unsigned	 roles;			/* of the hosts it counts */
	bool		 build_only;
	char		 trouble[BD_ERROR_MAX];	/* backend_ssh_trouble's */
};

struct backend_ssh_run {
	struct backend_run base;		/* first */
	struct job	*job;
	backend_done_cb	*cb;
	void		*arg;
	backend_record_cb *record;
	void		*record_arg;
};

static void
backend_ssh_record(void *arg, const struct step_result *r, const char *host)
{
	struct backend_ssh_run *sr = arg;

	sr->record(sr->record_arg, r, host);
}

/* The handle goes before the caller hears the end. */
static void
backend_ssh_done(void *arg, const struct step_result *last,
    unsigned attempts)
{
	struct backend_ssh_run *sr = arg;
	backend_done_cb *cb = sr->cb;
	void *cbarg = sr->arg;

	free(sr);
	cb(cbarg, last, attempts);
}

static int
backend_ssh_submit(struct backend *be, const struct backend_spec *spec,
    backend_done_cb *cb, void *arg, struct backend_run **out,
    struct bd_error *err)
{
	struct backend_ssh *b = be->impl;
	struct backend_ssh_run *sr = xcalloc(1, sizeof(*sr));
	struct job_spec js;
	int rc;

	sr->base.be = be;
	sr->cb = cb;
	sr->arg = arg;
	sr->record = spec->record;
	sr->record_arg = spec->arg;
	memset(&js, 0, sizeof(js));
	js.bench = spec->bench;
	js.commit = spec->commit;
	js.tree = spec->tree;
	js.run_id = spec->run_id;
	js.group = spec->group;
	js.log_dir = spec->log_dir;
	js.cache = spec->cache;
	js.max_attempts = spec->max_attempts;
	js.build_only = b->build_only;
	js.record = backend_ssh_record;
	js.record_arg = sr;
	js.progress = spec->progress;
	js.progress_arg = spec->arg;
	*out = &sr->base;
	if ((rc = job_submit(b->q, &js, backend_ssh_done, sr, &sr->job,
	    err)) < 0) {
		free(sr);
		*out = NULL;
	}
	return rc;
}

static void
backend_ssh_cancel(struct backend_run *r)
{
	job_cancel(((struct backend_ssh_run *)r)->job);
}

static const char *
backend_ssh_where(const struct backend_run *r)
{
	return job_host(((const struct backend_ssh_run *)r)->job);
}

/* Hosts of group with the backend's role that are usable, and of those
 * the ones not leased. */
static unsigned
backend_ssh_count(struct backend_ssh *b, const char *group, int free_only)
{
	struct pool_host_info hi;
	unsigned n = 0;
	size_t i;

	for (i = 0; i < pool_count(b->pool); i++) {
		pool_info(b->pool, i, &hi);
		if ((hi.roles & b->roles) && pool_usable(hi.health) &&
		    strcmp(hi.group, group) == 0 && !(free_only && hi.leased))
			n++;
	}
	return n;
}

static unsigned
backend_ssh_free_slots(struct backend *be, const char *group)
{
	return backend_ssh_count(be->impl, group, 1);
}

static unsigned
backend_ssh_capacity(struct backend *be, const char *group)
{
	return backend_ssh_count(be->impl, group, 0);
}

/*
 * A group with no usable host of the backend's role left (each down,
 * quarantined or drained) holds its bisections until an operator acts:
 * status must say so, naming a host and why it failed, not wait in
 * silence.  `hosts` tells the rest.
 */
static const char *
backend_ssh_trouble(struct backend *be, const char *group)
{
	struct backend_ssh *b = be->impl;
	struct pool_host_info hi;
	const char *role = b->roles & CONFIG_ROLE_TEST ? "test" : "build";
	unsigned n = 0;
	size_t i, first = 0;

	if (backend_ssh_count(b, group, 0) > 0)
		return "";
	for (i = 0; i < pool_count(b->pool); i++) {
		pool_info(b->pool, i, &hi);
		if ((hi.roles & b->roles) && strcmp(hi.group, group) == 0 &&
		    n++ == 0)
			first = i;
	}
	if (n == 0) {
		snprintf(b->trouble, sizeof(b->trouble), "no %s host in "
		    "group %s", role, group);
		return b->trouble;
	}
	/* A host that is down is probed again; the others wait for a
	 * person. */
	pool_info(b->pool, first, &hi);
	snprintf(b->trouble, sizeof(b->trouble), "no usable %s host in group "
	    "%s (0 of %u): %s is %s%s%s%s%s", role, group, n, hi.name,
	    pool_health_name(hi.health), *hi.last_error != '\0' ?
	    " after: " : "", hi.last_error,
	    hi.health == POOL_DOWN ? "" : "; bisectctl undrain ",
	    hi.health == POOL_DOWN ? "" : hi.name);
	return b->trouble;
}

static void
backend_ssh_free(struct backend *be)
{
	free(be->impl);
}

static const struct backend_ops backend_ssh_ops = {
	.kind = "ssh",
	.submit = backend_ssh_submit,
	.cancel = backend_ssh_cancel,
	.detach = backend_ssh_cancel,
	.where = backend_ssh_where,
	.free_slots = backend_ssh_free_slots,
	.capacity = backend_ssh_capacity,
	.trouble = backend_ssh_trouble,
	.free = backend_ssh_free,
};

/* Both SSH backends share the ops; only what they lease differs. */
static struct backend *
backend_ssh_make(struct pool *p, struct job_queue *q, unsigned roles,
    bool build_only)
{
	struct backend_ssh *b = xcalloc(1, sizeof(*b));

	b->be.ops = &backend_ssh_ops;
	b->be.impl = b;
	b->pool = p;
	b->q = q;
	b->roles = roles;
	b->build_only = build_only;
	return &b->be;
}

struct backend *
backend_ssh_new(struct pool *p, struct job_queue *q)
{
	return backend_ssh_make(p, q, CONFIG_ROLE_TEST, false);
}

struct backend *
backend_ssh_build_new(struct pool *p, struct job_queue *q)
{
	return backend_ssh_make(p, q, CONFIG_ROLE_BUILD, true);
}
