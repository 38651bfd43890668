/* SPDX-License-Identifier: MIT */
/*
 * The LAVA backend: a host group served by a LAVA lab through its REST API
 * v0.2 (checked against LAVA 2023.01), all of it on the event loop through
 * remote/http.
 *
 * A run becomes one job: the lab's job template rendered for the commit,
 * described as "bisectd-INSTANCE-run-RUN" (the template's job_name is
 * {job_name}), submitted with POST /jobs/, followed with GET /jobs/ID/ at
 * poll_interval doubling to four times that, and read with GET
 * /jobs/ID/tests/ page by page.  Every test case with a measurement is a
 * metric named as the case; a failing build_case is a skip; Incomplete with
 * error_type Infrastructure is resubmitted (never a sample); other
 * Incomplete jobs are run failures.  A job not Finished by its deadline
 * (the benchmark's timeouts of what the job does plus the lab's
 * queue_allowance, from submission) is cancelled at the lab without
 * waiting for the answer and resubmitted like an infrastructure
 * failure.  A resumed run first asks the lab for
 * a job of its description, so a job submitted just before a crash is
 * followed, never submitted again.
 *
 * Health: the lab is probed when made and, while in trouble, every few
 * poll intervals (the token file is read again each time): a refused
 * token, an unknown device type or an unreachable lab stop new runs and
 * show in `hosts` and in the bisection's status.
 */
#ifndef REMOTE_LAVA_H
#define REMOTE_LAVA_H

#include <stdbool.h>

#include <uv.h>

#include "common/error.h"
#include "common/names.h"
#include "config/config.h"
#include "remote/backend.h"

enum lava_health {
	LAVA_UNKNOWN = 0,	/* not contacted yet */
	LAVA_OK,
	LAVA_TOKEN_REFUSED,
	LAVA_DEVICE_TYPE_UNKNOWN,
	LAVA_UNREACHABLE,
	LAVA_TOKEN_UNREADABLE,
	LAVA_JOB_REFUSED,	/* the lab rejected the rendered definition */
};
/* "unknown", "ok", "token refused", ... the only list of these words. */
extern const struct name_value lava_health_words[];

/* Where the backend reports; borrowed, outlives the backend. */
struct lava_env {
	uv_loop_t	*loop;
	const char	*instance;		/* copied; marks this database's jobs */
	backend_event_cb *event;		/* NULL: dropped */
	void		(*avail)(void *arg);	/* the lab may take runs again */
	void		*arg;			/* of event and avail */
};

struct lava_info {
	const char	*name;
	const char	*url;
	const char	*device_type;
	const char	*group;
	unsigned	 queued;		/* being submitted or waiting in the lab */
	unsigned	 running;
	unsigned	 max_jobs;
	enum lava_health health;
	const char	*last_error;		/* "" when none */
};

/* A backend for lab (copied).  Its ops' free closes it on the loop. */
int	 lava_new(const struct lava_env *env, const struct config_lab *lab,
	    struct backend **out, struct bd_error *err);
/* 1 when be is a LAVA backend. */
bool	 lava_is(const struct backend *be);
void	 lava_info(const struct backend *be, struct lava_info *out);

#endif
