/* SPDX-License-Identifier: MIT */
/*
 * Sweep runs in the scheduler: a queue beside the bisections' probes.  A
 * queued run gets a host only where sched_group() hands it one, after the
 * bisections of higher priority took what they wanted, and then goes
 * through its group's backend with the build cache like any probe.
 */
#include <sys/stat.h>

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/log.h"
#include "common/xmalloc.h"
#include "config/config.h"
#include "sched/sched.h"
#include "sched/sched_int.h"
#include "remote/backend.h"
#include "store/store.h"

struct sched_sweep_job {
	struct sched		*s;
	char			*sweep;
	char			*benchmark;
	char			*group;
	char			 sha[GIT_OID_HEXSZ + 1];
	int64_t			 row;
	int			 priority;
	int64_t			 stored;	/* its sweep_jobs row */
	int			 resumed;	/* stored before a restart */
	char			*lab_job;	/* the lab's job it had, or NULL */
	int			 submitted;
	int			 recorded;	/* done has been told */
	struct backend_run	*job;		/* NULL: queued or ended */
	struct config_hold	*cfg_hold;	/* what bench points into */
	sched_sweep_cb		*done;
	void			*arg;
	TAILQ_ENTRY(sched_sweep_job) entry;
};

/* A sweep-run event for the watch stream: started, or ended with how. */
static void
sched_sweep_emit(struct sched *s, const struct sched_sweep_job *j,
    const char *state, const char *outcome)
{
	json_t *o = json_pack("{s:s, s:I, s:s, s:s}", "sweep", j->sweep, "row",
	    (json_int_t)j->row, "commit", j->sha, "state", state);

	if (outcome != NULL)
		json_object_set_new(o, "outcome", json_string(outcome));
	sched_emit(s, "sweep-run", o);
}

/* A job leaves the queue with the configuration hold it had. */
static void
sched_sweep_job_free(struct sched *s, struct sched_sweep_job *j)
{
	TAILQ_REMOVE(&s->sweeps, j, entry);
	if (j->cfg_hold != NULL)
		config_drop(j->cfg_hold);
	free(j->sweep);
	free(j->benchmark);
	free(j->group);
	free(j->lab_job);
	free(j);
}

/*
 * A run that ended without a stored result is not followed again; at
 * shutdown it stays, for the next start to find.
 */
static void
sched_sweep_forget(struct sched *s, struct sched_sweep_job *j)
{
	struct bd_error err;

	if (!s->stopping && store_sweep_job_del(sched_store(s), j->stored,
	    &err) < 0)
		log_warnx("sweep %s: %s", j->sweep, err.msg);
}

/* A lab accepted the run's job: stored before it is followed. */
static void
sched_sweep_lab(void *arg, const char *lab, const char *job)
{
	struct sched_sweep_job *j = arg;
	struct bd_error err;

	if (store_sweep_job_lab(sched_store(j->s), j->stored, lab, job,
	    &err) < 0)
		log_warnx("sweep %s: %s", j->sweep, err.msg);
}

/* Queued only: hosts are handed out by sched_group() on the next kick. */
int
sched_run_sweep(struct sched *s, const struct sched_sweep_run *req,
    struct bd_error *err)
{
	struct sched_sweep_job *j;
	int64_t stored = req->job;
	int rc;

	if (s->stopping)
		return bd_error_set(err, -ESHUTDOWN, "the daemon is stopping");
	if (config_benchmark_find(sched_config(s), req->benchmark) == NULL)
		return bd_error_set(err, -ENOENT, "sweep %s: no [benchmark %s]",
		    req->sweep, req->benchmark);
	/* The row exists before the work, as a bisection's run does. */
	if (stored == 0 && (rc = store_sweep_job_add(sched_store(s), req->row,
	    &stored, err)) < 0)
		return rc;
	j = xcalloc(1, sizeof(*j));
	j->s = s;
	j->sweep = xstrdup(req->sweep);
	j->benchmark = xstrdup(req->benchmark);
	j->group = xstrdup(req->group ? req->group : CONFIG_DEFAULT_GROUP);
	snprintf(j->sha, sizeof(j->sha), "%s", req->commit);
	j->row = req->row;
	j->priority = req->priority;
	j->stored = stored;
	j->resumed = req->job != 0;
	j->lab_job = req->lab_job ? xstrdup(req->lab_job) : NULL;
	j->done = req->done;
	j->arg = req->arg;
	TAILQ_INSERT_TAIL(&s->sweeps, j, entry);
	sched_kick(s);
	return 0;
}

/* The result goes to the sweep before anything else hears of it. */
static void
sched_sweep_record(void *arg, const struct step_result *r, const char *where)
{
	struct sched_sweep_job *j = arg;

	if (j->recorded)
		return;
	j->recorded = 1;
	j->done(j->arg, j->row, j->stored, r, where);
}

/* The run is over; one that recorded nothing tells the sweep so. */
static void
sched_sweep_ended(void *arg, const struct step_result *last,
    unsigned attempts)
{
	struct sched_sweep_job *j = arg;
	struct sched *s = j->s;

	j->job = NULL;
	sched_sweep_forget(s, j);
	if (!s->stopping)
		sched_sweep_emit(s, j, "ended", step_outcome_name(
		    last->outcome));
	if (!j->recorded) {
		j->recorded = 1;
		if (last->outcome != STEP_CANCELLED)
			log_warnx("sweep %s: a run at %.12s failed on the fleet "
			    "%u times: %s", j->sweep, j->sha, attempts,
			    last->err.msg);
		j->done(j->arg, j->row, j->stored, NULL, NULL);
	}
	sched_sweep_job_free(s, j);
	if (s->stopping)
		sched_stop_check(s);
	else
		sched_kick(s);
}

/* WORKDIR/logs/sweep-ROW, where the steps of the row's runs log. */
static char *
sched_sweep_log_dir(struct sched *s, int64_t row)
{
	const char *workdir = sched_config(s)->daemon.workdir;
	char *dir;

	mkdir(workdir, 0755);
	xasprintf(&dir, "%s/logs", workdir);
	mkdir(dir, 0755);
	free(dir);
	xasprintf(&dir, "%s/logs/sweep-%" PRId64, workdir, row);
	mkdir(dir, 0755);
	return dir;
}

/* Hands one queued run to its group's backend. */
static int
sched_sweep_submit(struct sched *s, struct sched_sweep_job *j)
{
	const struct config *cfg = sched_config(s);
	const struct config_benchmark *bench;
	struct backend_spec spec;
	struct bd_error err;
	char run_id[64], *logdir;
	int rc;

	if ((bench = config_benchmark_find(cfg, j->benchmark)) == NULL) {
		log_warnx("sweep %s: [benchmark %s] is no longer configured",
		    j->sweep, j->benchmark);
		return -ENOENT;
	}
	j->cfg_hold = config_hold(cfg);
	/* Stable across restarts: a lab finds the job by it. */
	snprintf(run_id, sizeof(run_id), "sweep-%" PRId64 "-%" PRId64, j->row,
	    j->stored);
	logdir = sched_sweep_log_dir(s, j->row);
	memset(&spec, 0, sizeof(spec));
	spec.bench = bench;
	spec.commit = j->sha;
	spec.run_id = run_id;
	spec.group = j->group;
	spec.log_dir = logdir;
	spec.cache = &s->cache;
	spec.record = sched_sweep_record;
	spec.job = sched_sweep_lab;
	spec.lab_job = j->lab_job;
	spec.resumed = j->resumed;
	spec.arg = j;
	j->submitted = 1;
	rc = backend_submit(sched_backend(s, j->group), &spec,
	    sched_sweep_ended, j, &j->job, &err);
	free(logdir);
	if (rc < 0)
		log_warnx("sweep %s: cannot submit a run at %.12s: %s",
		    j->sweep, j->sha, err.msg);
	else
		sched_sweep_emit(s, j, "started", NULL);
	return rc;
}

/* Oldest first among the runs the priority rule lets through. */
unsigned
sched_sweep_give(struct sched *s, const char *group, int prio, int eq,
    unsigned nfree)
{
	struct sched_sweep_job *j, *tj;
	unsigned used = 0;

	TAILQ_FOREACH_SAFE(j, &s->sweeps, entry, tj) {
		if (used >= nfree || s->stopping)
			break;
		if (j->submitted || strcmp(j->group, group) != 0 ||
		    j->priority < prio || (j->priority == prio && !eq))
			continue;
		if (sched_sweep_submit(s, j) < 0) {
			sched_sweep_forget(s, j);
			j->recorded = 1;
			j->done(j->arg, j->row, j->stored, NULL, NULL);
			sched_sweep_job_free(s, j);
			continue;
		}
		used++;
	}
	return used;
}

/* Submitted runs without a host hold a slot the pool already counted. */
unsigned
sched_sweep_waiting(struct sched *s, const char *group)
{
	struct sched_sweep_job *j;
	unsigned n = 0;

	TAILQ_FOREACH(j, &s->sweeps, entry)
		if (j->job != NULL && strcmp(j->group, group) == 0 &&
		    backend_where(j->job) == NULL)
			n++;
	return n;
}

/* A row that is done with (compared, failed) wants none of its runs. */
void
sched_cancel_sweep(struct sched *s, int64_t row)
{
	struct sched_sweep_job *j, *tj;

	TAILQ_FOREACH_SAFE(j, &s->sweeps, entry, tj) {
		if (j->row != row || j->recorded)
			continue;
		if (j->job != NULL) {
			backend_cancel(j->job);
			continue;
		}
		if (j->submitted)	/* ending: its callback is on the way */
			continue;
		sched_sweep_forget(s, j);
		j->recorded = 1;
		j->done(j->arg, j->row, j->stored, NULL, NULL);
		sched_sweep_job_free(s, j);
	}
}

/* Queued runs are dropped: the sweep asks for them again after a restart. */
void
sched_sweep_stop(struct sched *s)
{
	struct sched_sweep_job *j, *tj;

	TAILQ_FOREACH_SAFE(j, &s->sweeps, entry, tj) {
		j->recorded = 1;
		if (j->job != NULL)
			backend_detach(j->job);
		else if (!j->submitted)
			sched_sweep_job_free(s, j);
	}
}

/* For `hosts`: what a host does when it runs a sweep. */
json_t *
sched_sweep_on_host(struct sched *s, const char *host)
{
	struct sched_sweep_job *j;
	const char *h;

	TAILQ_FOREACH(j, &s->sweeps, entry) {
		h = j->job != NULL ? backend_where(j->job) : NULL;
		if (h != NULL && strcmp(h, host) == 0)
			return json_pack("{s:s, s:I, s:s}", "sweep", j->sweep,
			    "row", (json_int_t)j->row, "commit", j->sha);
	}
	return NULL;
}

int
sched_sweep_holds(struct sched *s, int64_t stored)
{
	struct sched_sweep_job *j;

	TAILQ_FOREACH(j, &s->sweeps, entry)
		if (j->stored == stored)
			return 1;
	return 0;
}

/* The fleet may close only once no sweep job can call back. */
int
sched_sweep_busy(struct sched *s)
{
	return !TAILQ_EMPTY(&s->sweeps);
}

/* After the loop ended: whatever is left is memory only. */
void
sched_sweep_free(struct sched *s)
{
	while (!TAILQ_EMPTY(&s->sweeps))
		sched_sweep_job_free(s, TAILQ_FIRST(&s->sweeps));
}
