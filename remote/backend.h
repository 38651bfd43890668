/* SPDX-License-Identifier: MIT */
/*
 * Where runs go: one interface, two implementations.  A host group is
 * served either by SSH hosts (the pool and its job queue, remote/job.h) or
 * by a lab engine (LAVA, remote/lava.h); the scheduler submits a run spec
 * to the group's backend and hears back through the same callbacks:
 *
 *   record  once, with a result worth storing: STEP_OK with metrics, or
 *           STEP_FAILED (a build failure: skip; a run failure);
 *   done    once, when the work is over.  Infrastructure failures
 *           (STEP_INFRA, STEP_TIMEOUT) are retried inside the backend and
 *           never recorded; done then carries the last of them.
 *   job     (labs only) the lab's job id as soon as the lab accepted it,
 *           to be stored with the run before anything else happens, and
 *           job events for the watch stream.
 */
#ifndef REMOTE_BACKEND_H
#define REMOTE_BACKEND_H

#include <stdint.h>

#include <jansson.h>

#include "common/error.h"
#include "remote/cache.h"
#include "remote/step.h"

typedef void backend_record_cb(void *arg, const struct step_result *r,
    const char *where);
typedef void backend_done_cb(void *arg, const struct step_result *last,
    unsigned attempts);
/* The lab accepted job for the run; the caller stores it. */
typedef void backend_job_cb(void *arg, const char *lab, const char *job);
/* An event for the watch stream; fields is stolen. */
typedef void backend_event_cb(void *arg, const char *kind, json_t *fields);

/* One run.  Strings are copied; bench and cache outlive the run. */
struct backend_spec {
	const struct config_benchmark *bench;
	const char	*commit;
	/* The tree commit holds (hex), when it is a made commit such as a
	 * probe with fix-ups; the build cache keys on it.  NULL: not given. */
	const char	*tree;
	const char	*run_id;
	const char	*group;
	const char	*log_dir;
	const struct cache *cache;
	unsigned	 max_attempts;		/* 0: the backend's default */
	/* Labs: the job recorded for this run (NULL: none yet), and whether
	 * the run may have been submitted by an earlier process. */
	const char	*lab_job;
	int		 resumed;
	/* Labs: where a build host left the artifact ({artifact} and
	 * {build_host} of artifact_url); NULL when nothing was built. */
	const char	*artifact;
	const char	*build_host;
	backend_record_cb *record;
	backend_job_cb	*job;
	/* SSH: a step's phase starts its work on host (see step.h); the
	 * first call is the run's start.  May be NULL. */
	void		(*progress)(void *arg, enum step_phase phase,
			    const char *host);
	void		*arg;			/* of record, job, progress */
};

struct backend;
struct backend_run;

struct backend_ops {
	const char *kind;			/* "ssh", "lava" */
	int	(*submit)(struct backend *be, const struct backend_spec *spec,
		    backend_done_cb *cb, void *arg, struct backend_run **out,
		    struct bd_error *err);
	void	(*cancel)(struct backend_run *r);
	/* Stops following without touching the remote work (shutdown). */
	void	(*detach)(struct backend_run *r);
	const char *(*where)(const struct backend_run *r);
	/* Runs group could start now, before the caller's waiting ones. */
	unsigned (*free_slots)(struct backend *be, const char *group);
	/* Runs at once when the group is busy: k probes in parallel. */
	unsigned (*capacity)(struct backend *be, const char *group);
	/* Why group cannot run now ("" when it can), for status. */
	const char *(*trouble)(struct backend *be, const char *group);
	void	(*free)(struct backend *be);
};

struct backend {
	const struct backend_ops *ops;
	void		*impl;
};

/* Every run handle starts with its backend. */
struct backend_run {
	struct backend	*be;
};

static inline int
backend_submit(struct backend *be, const struct backend_spec *spec,
    backend_done_cb *cb, void *arg, struct backend_run **out,
    struct bd_error *err)
{
	return be->ops->submit(be, spec, cb, arg, out, err);
}

/* The done callback follows with STEP_CANCELLED. */
static inline void
backend_cancel(struct backend_run *r)
{
	r->be->ops->cancel(r);
}

/* As cancel, but lab jobs go on in the lab and are found again later. */
static inline void
backend_detach(struct backend_run *r)
{
	r->be->ops->detach(r);
}

/* Host or lab job the run is on now; NULL while it waits. */
static inline const char *
backend_where(const struct backend_run *r)
{
	return r->be->ops->where(r);
}

struct pool;
struct job_queue;

/*
 * The SSH implementation over the pool and its job queue (borrowed, they
 * outlive it); freed with its ops' free.
 */
struct backend *backend_ssh_new(struct pool *p, struct job_queue *q);
/*
 * The same over build hosts, for builds only: a run leases a build host
 * of its group, builds the commit (recorded in the spec's cache) and
 * records STEP_OK with the artifact's path, or STEP_FAILED when the build
 * fails; its slots count build hosts.  remote/labbuild.h uses it.
 */
struct backend *backend_ssh_build_new(struct pool *p, struct job_queue *q);

#endif
