/* SPDX-License-Identifier: MIT */
/*
 * Samples on the fleet: each job runs the steps of one (benchmark, commit)
 * on leased hosts of one group and retries infrastructure failures on
 * another host of the group.
 *
 * A job waits in a FIFO queue until a test host (and, when the commit is
 * not in the build cache and the test host cannot build, a build host) is
 * free.  STEP_OK and STEP_FAILED results go to the recorder exactly once;
 * STEP_INFRA and STEP_TIMEOUT are never recorded: the host is charged in
 * the pool and the job runs again elsewhere, up to max_attempts times.
 */
#ifndef REMOTE_JOB_H
#define REMOTE_JOB_H

#include <stdint.h>

#include "common/error.h"
#include "remote/cache.h"
#include "remote/pool.h"
#include "remote/step.h"

#define JOB_MAX_ATTEMPTS	3

/* Called once with a result worth storing (STEP_OK or STEP_FAILED). */
typedef void job_record_cb(void *arg, const struct step_result *r,
    const char *host);
/* Called once when the job is over; last is its final attempt's result. */
typedef void job_done_cb(void *arg, const struct step_result *last,
    unsigned attempts);

/* Strings are copied; bench and cache must outlive the job. */
struct job_spec {
	const struct config_benchmark *bench;
	const char	*commit;
	const char	*tree;		/* see backend_spec; NULL */
	const char	*run_id;
	const char	*group;
	const char	*log_dir;
	const struct cache *cache;
	unsigned	 max_attempts;		/* 0: JOB_MAX_ATTEMPTS */
	uint64_t	 connect_wait_ms;
	uint64_t	 kill_grace_ms;
	uint64_t	 boot_retry_ms;
	/* Only build, on a build host of group (step_spec.build_only); the
	 * caller looked in the cache already. */
	bool		 build_only;
	job_record_cb	*record;
	void		*record_arg;
	/* Each attempt's phases as they start (step_spec.phase_cb). */
	void		(*progress)(void *arg, enum step_phase phase,
			    const char *host);
	void		*progress_arg;
};

struct job_queue;
struct job;

/* One queue per pool; it takes the pool's availability callback. */
struct job_queue *job_queue_new(struct pool *p);
/* Only with no job queued or running. */
void	 job_queue_free(struct job_queue *q);

/*
 * Also tells cb (after the queue has placed what it can) whenever a host
 * may have become free: the caller can then submit more work.
 */
void	 job_queue_set_avail_cb(struct job_queue *q, pool_avail_cb *cb,
	    void *arg);

int	 job_submit(struct job_queue *q, const struct job_spec *spec,
	    job_done_cb *cb, void *arg, struct job **out,
	    struct bd_error *err);
/*
 * Cancels a job: a running one is killed on its host and cb follows with
 * STEP_CANCELLED; a waiting one gets cb at once, inside this call.
 */
void	 job_cancel(struct job *j);

/* The test host the job runs on now; NULL while it waits for one. */
const char *job_host(const struct job *j);

#endif
