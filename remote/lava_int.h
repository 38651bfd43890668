/* SPDX-License-Identifier: MIT */
/*
 * Shared by remote/lava.c (the lab: token, health, backend) and
 * remote/lava_job.c (one run's job: submit or find, poll, read, retry).
 * Not for other modules.
 */
#ifndef REMOTE_LAVA_INT_H
#define REMOTE_LAVA_INT_H

#include <stdint.h>

#include <uv.h>

#include "common/queue.h"
#include "remote/http.h"
#include "remote/lava.h"
#include "remote/lava_result.h"

#define LAVA_TIMEOUT_MS		30000
#define LAVA_MAX_ATTEMPTS	3
#define LAVA_TOKEN_MAX		512

/* What a run waits for. */
enum lava_phase {
	LAVA_LOOKUP,		/* a job of its description, after a restart */
	LAVA_SUBMIT,
	LAVA_POLL,
	LAVA_TESTS,
	LAVA_PAUSE,		/* timer before the next poll or attempt */
};

struct lava;

struct lava_run {
	struct backend_run base;		/* first */
	struct lava	*l;
	const struct config_benchmark *bench;
	char		*commit, *run_id, *desc, *job;
	char		*artifact, *build_host;	/* NULL: nothing built */
	backend_record_cb *record;
	backend_job_cb	*jobcb;
	void		*arg;
	backend_done_cb	*done;
	void		*done_arg;
	enum lava_phase	 phase, after;		/* after: what PAUSE leads to */
	struct http_req	*req;
	uv_timer_t	 timer;
	uint64_t	 delay_ms;
	uint64_t	 deadline;		/* loop time the job must end by */
	unsigned	 attempts, max_attempts;
	int		 cancelled, detached;
	char		 state[16];		/* LAVA's state of the job */
	struct lava_result res;
	TAILQ_ENTRY(lava_run) entry;
};
TAILQ_HEAD(lava_run_list, lava_run);

struct lava {
	struct backend	 be;
	struct lava_env	 env;
	char		*instance;
	struct config_lab lab;			/* strings owned */
	char		*base;			/* url without a trailing '/' */
	char		*token;			/* NULL until read */
	struct http	*http;
	enum lava_health health;
	char		 last_error[BD_ERROR_MAX];
	uv_timer_t	 probe;
	struct http_req	*probe_req;
	struct lava_run_list runs;
	size_t		 nruns;
};

/* lava.c */
int	lava_read_token(struct lava *l);
/* Adds "lab" to fields (stolen) and hands it to the event sink. */
void	lava_emit(struct lava *l, const char *kind, json_t *fields);
/* why NULL keeps last_error; a change is an event, OK again kicks. */
void	lava_set_health(struct lava *l, enum lava_health h, const char *why);
/* 1 when an HTTP failure was the token, the device type or no reply. */
int	lava_classify(struct lava *l, long status, const char *body,
	    const struct bd_error *err, const char *what);

/* lava_job.c: the backend ops of one run. */
int	lava_job_submit(struct backend *be, const struct backend_spec *spec,
	    backend_done_cb *cb, void *arg, struct backend_run **out,
	    struct bd_error *err);
void	lava_job_cancel(struct backend_run *br);
void	lava_job_detach(struct backend_run *br);
const char *lava_job_where(const struct backend_run *br);

#endif
