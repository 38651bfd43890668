/* SPDX-License-Identifier: MIT */
/*
 * Store errors on a bisection's path (a probe's run row, a result, the
 * verdict): a bisection never stays `running` with nothing to do.  An
 * error the disk may get over (full, busy, I/O, read-only) is retried
 * with back-off: the scheduler is kicked again, which asks every engine
 * anew, and `status` shows the error as trouble meanwhile.  Any other
 * error (a constraint the row breaks), or trouble that outlasts
 * SCHED_STORE_GIVEUP_MS, ends the bisection `failed` with the message.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "common/log.h"
#include "sched/bisection.h"
#include "sched/sched.h"
#include "sched/sched_int.h"

/* Whether the store may succeed later with the same request. */
static int
sched_store_transient(int code)
{
	switch (code) {
	case -ENOSPC:
	case -EIO:
	case -EBUSY:
	case -ENOMEM:
	case -EROFS:
	case -EACCES:
	case -EAGAIN:
		return 1;
	}
	return 0;
}

/* The back-off is over: everything is asked again. */
static void
sched_store_retry(uv_timer_t *t)
{
	struct sched *s = t->data;

	log_info("retrying the work the store refused (%s)", s->store_trouble);
	s->store_trouble[0] = '\0';
	sched_unstored_retry(s);
	sched_kick(s);
}

void
sched_store_init(struct sched *s, uv_loop_t *loop)
{
	uv_timer_init(loop, &s->store_retry);
	s->store_retry.data = s;
	s->store_backoff_ms = SCHED_STORE_BACKOFF_MS;
}

void
sched_store_close(struct sched *s)
{
	uv_close((uv_handle_t *)&s->store_retry, NULL);
}

int
sched_store_error(struct sched *s, struct bisection *b,
    const struct bd_error *err)
{
	int64_t now = sched_clock_ms(s);
	char why[512];

	if (s->stopping)
		return 0;
	/* An error long after the last one starts the back-off afresh. */
	if (!s->store_failing ||
	    now - s->store_last_ms > 2 * (int64_t)SCHED_STORE_BACKOFF_MAX_MS) {
		s->store_failing = 1;
		s->store_backoff_ms = SCHED_STORE_BACKOFF_MS;
		s->store_since_ms = now;
	}
	s->store_last_ms = now;
	if (!sched_store_transient(err->code) ||
	    now - s->store_since_ms > SCHED_STORE_GIVEUP_MS) {
		snprintf(why, sizeof(why), "the database refused its state: "
		    "%.400s", err->msg);
		sched_fail(s, b, why);
		return -1;
	}
	if (uv_is_active((uv_handle_t *)&s->store_retry))
		return 0;	/* one retry covers every error meanwhile */
	snprintf(s->store_trouble, sizeof(s->store_trouble), "the database "
	    "refused a write (%.400s); retrying in %" PRIu64 " s", err->msg,
	    (s->store_backoff_ms + 999) / 1000);
	log_warnx("bisection %" PRId64 ": %s", b->id, s->store_trouble);
	store_scrub(store_path(sched_store(s)), s->store_trouble,
	    sizeof(s->store_trouble));
	uv_timer_start(&s->store_retry, sched_store_retry,
	    s->store_backoff_ms, 0);
	s->store_backoff_ms *= 2;
	if (s->store_backoff_ms > SCHED_STORE_BACKOFF_MAX_MS)
		s->store_backoff_ms = SCHED_STORE_BACKOFF_MAX_MS;
	return 0;
}

const char *
sched_store_trouble(const struct sched *s)
{
	return s->store_trouble;
}
