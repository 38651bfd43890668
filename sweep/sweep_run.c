/* SPDX-License-Identifier: MIT */
/*
 * The sweep worker: takes each sweep's oldest unfinished row (the first
 * baseline until it has its runs, then rows being sampled, then pending
 * ones as the schedule allows), has the scheduler run the sweep's
 * benchmark at its commit, stores every result before acting on it,
 * judges the row at each look of the sequential plan (revisiting an
 * earlier row when that places a change point better) and, once a row is
 * compared with changed metrics, hands the change to sweep_found.c.
 *
 * Everything it decides from is in the store (states, run counts,
 * results, links): after a kill -9 a half-sampled row continues with the
 * runs it has, a compared row is only sampled again when a later row's
 * judgement revisits it (its verdict stays), and a compared row with
 * changes but no linked bisection gets its hook call again.
 */
#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bisect/sweep_stats.h"
#include "common/agg.h"
#include "common/log.h"
#include "common/xmalloc.h"
#include "config/config.h"
#include "sched/sched.h"
#include "sweep/sweep_bisect.h"
#include "sweep/sweep_int.h"
#include "sweep/sweep_judge.h"
#include "remote/step.h"
#include "store/store.h"

#define SWEEP_WAKE_MAX	(3600 * (int64_t)1000)	/* wall clock jumps */

/* The runs of a tag's plan: its first baseline gets the cap. */
static void
sweep_plan(const struct config_sweep *w, struct sweep_params *sp)
{
	sweep_judge_plan(w, 0, sp);
}

/* The first of the tag's own looks at or after runs. */
static unsigned
sweep_next_look(const struct sweep_params *sp, unsigned runs)
{
	unsigned look = sp->first;

	while (look < runs && look < sp->own)
		look = look + sp->step < sp->own ? look + sp->step : sp->own;
	return look;
}

/* The in-memory state of a sweep, made when first needed. */
static struct sweep_cur *
sweep_cur_get(struct sweeper *sw, const char *name)
{
	size_t i;

	for (i = 0; i < sw->ncur; i++)
		if (strcmp(sw->cur[i].name, name) == 0)
			return &sw->cur[i];
	sw->cur = xreallocarray(sw->cur, sw->ncur + 1, sizeof(*sw->cur));
	memset(&sw->cur[sw->ncur], 0, sizeof(*sw->cur));
	sw->cur[sw->ncur].name = xstrdup(name);
	return &sw->cur[sw->ncur++];
}

/* Results of a row no sweep samples any more find no state. */
static struct sweep_cur *
sweep_cur_by_row(struct sweeper *sw, int64_t row)
{
	size_t i;

	for (i = 0; i < sw->ncur; i++)
		if (row != 0 && (sw->cur[i].row == row ||
		    sw->cur[i].revisit == row))
			return &sw->cur[i];
	return NULL;
}

static void sweep_run_done(void *arg, int64_t row, int64_t job,
    const struct step_result *r, const char *where);

/* The row's stored runs, copied out of the walk (callbacks may not nest). */
struct sweep_held {
	struct {
		int64_t	 id;
		char	*lab_job;
	}		*v;
	size_t		 n;
};

static int
sweep_held_one(void *arg, const struct store_sweep_job *j)
{
	struct sweep_held *h = arg;

	h->v = xreallocarray(h->v, h->n + 1, sizeof(*h->v));
	h->v[h->n].id = j->id;
	h->v[h->n].lab_job = j->job ? xstrdup(j->job) : NULL;
	h->n++;
	return 0;
}

/*
 * Queues n runs of the row in the scheduler.  Runs stored before a
 * restart come first, so that their lab jobs are followed instead of
 * submitted again; those beyond n are not wanted any more.
 */
static void
sweep_submit(struct sweeper *sw, const struct config_sweep *w,
    struct sweep_cur *c, const struct store_sweep_ref *r, unsigned n)
{
	struct sched_sweep_run req = {
		.sweep = w->name, .row = r->id, .benchmark = w->benchmark,
		.group = w->group, .commit = r->commit,
		.priority = w->priority, .done = sweep_run_done, .arg = sw,
	};
	struct sweep_held held = { NULL, 0 };
	struct bd_error err;
	size_t i;

	if (store_sweep_job_list(sw->env.store, r->id, sweep_held_one, &held,
	    &err) < 0)
		log_warnx("sweep %s: %s", w->name, err.msg);
	for (i = 0; i < held.n; i++) {
		if (sched_sweep_holds(sw->env.sched, held.v[i].id))
			continue;
		if (n == 0) {
			store_sweep_job_del(sw->env.store, held.v[i].id, &err);
			continue;
		}
		req.job = held.v[i].id;
		req.lab_job = held.v[i].lab_job;
		if (sched_run_sweep(sw->env.sched, &req, &err) < 0) {
			/* The rest stay stored, for the next pass to follow. */
			log_warnx("sweep %s: %s", w->name, err.msg);
			n = 0;
			break;
		}
		c->inflight++;
		n--;
	}
	for (i = 0; i < held.n; i++)
		free(held.v[i].lab_job);
	free(held.v);
	req.job = 0;
	req.lab_job = NULL;
	for (; n > 0; n--) {
		if (sched_run_sweep(sw->env.sched, &req, &err) < 0) {
			log_warnx("sweep %s: %s", w->name, err.msg);
			return;
		}
		c->inflight++;
	}
}

static void sweep_mark_failed(struct sweeper *sw, const struct config_sweep *w,
    struct sweep_cur *c, const char *phase, const char *message,
    const char *where);

/*
 * A row that holds `samples` runs without the samples the judge needs
 * (results that carried none of the metrics) fails instead of asking for
 * runs without end.
 */
static void
sweep_no_samples(struct sweeper *sw, const struct config_sweep *w,
    struct sweep_cur *c, unsigned runs)
{
	char msg[128];

	snprintf(msg, sizeof(msg), "%u runs stored, too few of them with the "
	    "sweep's metrics to judge", runs);
	sweep_mark_failed(sw, w, c, "collect", msg, NULL);
}

/* The row is done with: what is still out of it is not wanted. */
static void
sweep_release(struct sweeper *sw, struct sweep_cur *c)
{
	int64_t row = c->row, rev = c->revisit;

	c->row = 0;
	c->inflight = 0;
	c->revisit = 0;
	c->revisits = 0;
	if (row != 0)
		sched_cancel_sweep(sw->env.sched, row);
	if (rev != 0)
		sched_cancel_sweep(sw->env.sched, rev);
	sweeper_kick(sw);
}

/*
 * A revisit of an earlier row under way: its runs are topped up to
 * revisit_to.  1 while it still wants runs, 0 when it is done (or the
 * row is gone) and the current row may be judged again.
 */
static int
sweep_revisit(struct sweeper *sw, const struct config_sweep *w,
    struct sweep_cur *c, const struct sweep_rows *rows)
{
	const struct store_sweep_ref *v = sweep_rows_find(rows, c->revisit);

	if (v != NULL && v->runs < c->revisit_to) {
		if (c->revisit_to - v->runs > c->inflight)
			sweep_submit(sw, w, c, v, c->revisit_to - v->runs -
			    c->inflight);
		return 1;
	}
	if (c->inflight > 0)
		return 1;
	if (v != NULL)
		log_info("sweep %s: %s revisited (%u runs)", w->name, v->ref,
		    v->runs);
	c->revisit = 0;
	return 0;
}

/*
 * Tops the current row up to the runs it wants: a first baseline to the
 * plan's cap; a swept row to its next look, where it is judged
 * (sweep_judge_row stores the verdict when it needs no more), or an
 * earlier row its judgement revisits.
 */
static void
sweep_top_up(struct sweeper *sw, const struct config_sweep *w,
    struct sweep_cur *c)
{
	struct sweep_params sp;
	struct sweep_rows rows;
	const struct store_sweep_ref *r;
	struct bd_error err;
	unsigned want = 0, more = 0;
	json_t *res = NULL;
	int64_t id = c->row, rev = 0;

	sweep_plan(w, &sp);
	if (sweep_rows_load(sw, w->name, &rows, &err) < 0) {
		log_warnx("sweep %s: %s", w->name, err.msg);
		goto out;
	}
	r = sweep_rows_find(&rows, id);
	if (r == NULL || !(r->state == STORE_SWEEP_BASELINE ||
	    r->state == STORE_SWEEP_SAMPLING || (r->state ==
	    STORE_SWEEP_PENDING && !sweeper_row_skipped(r)))) {
		sweep_release(sw, c);	/* rewritten meanwhile */
		goto out;
	}
	if (c->revisit != 0 && sweep_revisit(sw, w, c, &rows))
		goto out;
	if (r->state == STORE_SWEEP_BASELINE)
		want = r->runs < sp.cap ? sp.cap - r->runs : 0;
	else if (r->runs < sweep_next_look(&sp, r->runs))
		want = sweep_next_look(&sp, r->runs) - r->runs;
	else if (sweep_judge_row(sw->env.store, sweeper_config(sw), w, id,
	    c->revisits, &more, &rev, &res, &err) < 0) {
		log_warnx("sweep %s: %s: %s", w->name, r->ref, err.msg);
		sweep_release(sw, c);
		goto out;
	} else if (more == 0) {
		sweep_release(sw, c);
		sweep_found_compared(sw, w, id, res);
		goto out;
	} else if (rev != 0 && sweep_rows_find(&rows, rev) != NULL) {
		c->revisit = rev;
		c->revisit_to = sweep_rows_find(&rows, rev)->runs + more;
		c->revisits++;
		sweep_revisit(sw, w, c, &rows);
		goto out;
	} else if (r->runs >= sp.own) {
		/* Runs whose results lacked the metrics: never more than cap. */
		sweep_no_samples(sw, w, c, r->runs);
		goto out;
	} else
		want = more;
	if (want == 0) {
		if (c->inflight == 0) {
			log_info("sweep %s: baseline %s measured (%u runs)",
			    w->name, r->ref, r->runs);
			sweep_release(sw, c);
		}
		goto out;
	}
	if (want > c->inflight)
		sweep_submit(sw, w, c, r, want - c->inflight);
out:
	json_decref(res);
	sweep_rows_free(&rows);
}

/* A failed build (or benchmark) is the row's verdict: not compared. */
static void
sweep_failed(struct sweeper *sw, const struct config_sweep *w,
    struct sweep_cur *c, const struct step_result *r, const char *where)
{
	sweep_mark_failed(sw, w, c, step_phase_name(r->phase), r->err.msg,
	    where);
}

/* The row's verdict is a failure in phase: stored, logged, released. */
static void
sweep_mark_failed(struct sweeper *sw, const struct config_sweep *w,
    struct sweep_cur *c, const char *phase, const char *message,
    const char *where)
{
	struct bd_error err;
	json_t *o;
	char *text;

	o = json_pack("{s:s, s:s, s:s}", "failed", phase, "message", message,
	    "host", where ? where : "");
	text = json_dumps(o, JSON_COMPACT);
	json_decref(o);
	if (store_sweep_ref_set(sw->env.store, c->row, STORE_SWEEP_FAILED,
	    text, 0, &err) < 0)
		log_warnx("sweep %s: %s", w->name, err.msg);
	else
		log_info("sweep %s: row %" PRId64 " failed in its %s step: %s",
		    w->name, c->row, phase, message);
	free(text);
	sweep_release(sw, c);
}

/*
 * Stores one run's metrics as the row's next run: the run is the unit,
 * so each metric's values in it (one per iteration) become one value, by
 * the metric's configured aggregate.
 */
static void
sweep_store_run(struct sweeper *sw, const struct config_sweep *w,
    int64_t row, int64_t job, const struct step_result *r)
{
	const struct config_benchmark *bc = config_benchmark_find(
	    sweeper_config(sw), w->benchmark);
	const struct config_metric *cm;
	struct store_metric *m;
	struct sweep_rows rows;
	const struct store_sweep_ref *cur;
	struct bd_error err;
	double *v;
	size_t i, j, nv, n = 0;

	if (sweep_rows_load(sw, w->name, &rows, &err) < 0) {
		log_warnx("sweep %s: %s", w->name, err.msg);
		return;
	}
	cur = sweep_rows_find(&rows, row);
	m = xcalloc(r->metrics.n + 1, sizeof(*m));
	v = xcalloc(r->metrics.n + 1, sizeof(*v));
	for (i = 0; i < r->metrics.n; i++) {
		if (r->metrics.v[i].index != 0)
			continue;
		for (nv = 0, j = i; j < r->metrics.n; j++)
			if (strcmp(r->metrics.v[j].name,
			    r->metrics.v[i].name) == 0)
				v[nv++] = r->metrics.v[j].value;
		cm = bc ? config_metric_find(bc, r->metrics.v[i].name) : NULL;
		m[n].name = r->metrics.v[i].name;
		if (agg_apply(cm ? cm->agg : AGG_MEAN, v, nv, &m[n].value) == 0)
			n++;
	}
	free(v);
	if (cur != NULL && store_sweep_run_record(sw->env.store, row,
	    cur->runs + 1, job, m, n, &err) < 0)
		log_warnx("sweep %s: %s", w->name, err.msg);
	free(m);
	sweep_rows_free(&rows);
}

/* The scheduler's word on one run: stored first, then acted on. */
static void
sweep_run_done(void *arg, int64_t row, int64_t job,
    const struct step_result *r, const char *where)
{
	struct sweeper *sw = arg;
	struct sweep_cur *c = sweep_cur_by_row(sw, row);
	const struct config_sweep *w;

	if (c == NULL || sw->stopping)
		return;		/* a run the row no longer wants */
	if (c->inflight > 0)
		c->inflight--;
	if ((w = config_sweep_find(sweeper_config(sw), c->name)) == NULL) {
		sweep_release(sw, c);
		return;
	}
	if (r == NULL) {	/* asked again from the next pass, not here */
		sweeper_kick(sw);
		return;
	}
	if (r->outcome != STEP_OK && row == c->revisit) {
		/* The revisited row keeps its verdict; the judgement goes on. */
		log_warnx("sweep %s: a run revisiting row %" PRId64 " failed: "
		    "%s", w->name, row, r->err.msg);
		if (c->inflight == 0)
			c->revisit = 0;
		c->revisit_to = 0;
		sweep_top_up(sw, w, c);
		return;
	}
	if (r->outcome != STEP_OK) {
		sweep_failed(sw, w, c, r, where);
		return;
	}
	sweep_store_run(sw, w, row, job, r);
	sweep_top_up(sw, w, c);
}

/*
 * The row to sample next, 0 when none: a first baseline without its runs,
 * a half-sampled row, or a pending row the schedule allows (daily: only
 * the newest that was due, the older ones skipped).  *wake gets the next
 * daily time when rows wait for it.
 */
static int64_t
sweep_pick(struct sweeper *sw, const struct config_sweep *w,
    const struct sweep_rows *rows, int64_t *wake)
{
	const struct store_sweep_ref *due = NULL;
	struct sweep_params sp;
	int64_t last, next;
	size_t i;
	int waiting = 0, asked = sweeper_now_pending(sw, w->name);

	sweep_plan(w, &sp);
	for (i = 0; i < rows->n; i++)
		if ((rows->r[i].state == STORE_SWEEP_BASELINE &&
		    rows->r[i].runs < sp.cap) ||
		    rows->r[i].state == STORE_SWEEP_SAMPLING)
			return rows->r[i].id;
	for (i = 0; i < rows->n; i++) {
		if (rows->r[i].state != STORE_SWEEP_PENDING ||
		    sweeper_row_skipped(&rows->r[i]))
			continue;
		if (w->schedule.kind != CONFIG_SCHEDULE_DAILY)
			return rows->r[i].id;
		if (!sweeper_row_due(w, sw->env.now_ms(), asked,
		    rows->r[i].created_ms)) {
			waiting = 1;
			continue;
		}
		if (due != NULL)
			sweeper_skip(sw, w, due, rows->r[i].ref);
		due = &rows->r[i];
	}
	/* Asked: every pending row was due, the newest taken (if any). */
	if (asked)
		sweeper_set_word(sw, w->name, SWEEPER_WATCHING);
	if (due == NULL && waiting) {
		sweeper_daily_due(w->schedule.minute, sw->env.now_ms(), &last,
		    &next);
		if (*wake == 0 || next < *wake)
			*wake = next;
	}
	return due != NULL ? due->id : 0;
}

/* One sweep's turn: the current row topped up, or the next one taken. */
static void
sweep_work_one(struct sweeper *sw, const struct config_sweep *w,
    int64_t *wake)
{
	struct sweep_cur *c = sweep_cur_get(sw, w->name);
	struct sweep_rows rows;
	struct bd_error err;
	int64_t id;

	if (c->row != 0) {
		if (c->inflight == 0)
			sweep_top_up(sw, w, c);
		return;
	}
	if (sweep_rows_load(sw, w->name, &rows, &err) < 0) {
		log_warnx("sweep %s: %s", w->name, err.msg);
		return;
	}
	if (!sw->recovered)
		sweep_found_recover(sw, w, &rows);
	id = sweep_pick(sw, w, &rows, wake);
	sweep_rows_free(&rows);
	if (id == 0)
		return;
	c->row = id;
	c->inflight = 0;
	sweep_top_up(sw, w, c);
}

/* One pass over every sweep, then a wake-up for the next daily time. */
static void
sweep_timer_cb(uv_timer_t *t)
{
	struct sweeper *sw = t->data;
	const struct config *cfg = sweeper_config(sw);
	int64_t wake = 0, now;
	size_t i;

	if (sw->stopping || sw->env.sched == NULL)
		return;
	for (i = 0; i < cfg->nsweeps; i++)
		sweep_work_one(sw, &cfg->sweeps[i], &wake);
	sw->recovered = 1;
	if (wake != 0 && !uv_is_active((uv_handle_t *)&sw->timer)) {
		now = sw->env.now_ms();
		wake = wake > now ? wake - now : 0;
		uv_timer_start(&sw->timer, sweep_timer_cb, (uint64_t)(wake <
		    SWEEP_WAKE_MAX ? wake : SWEEP_WAKE_MAX), 0);
	}
}

/* Coalesced: many events in one loop turn make one pass. */
void
sweeper_kick(struct sweeper *sw)
{
	if (sw == NULL || !sw->timer_ready || sw->stopping)
		return;
	uv_timer_start(&sw->timer, sweep_timer_cb, 0, 0);
}

/* Shutdown: the timer closes so that the loop can end. */
void
sweeper_stop(struct sweeper *sw)
{
	if (sw == NULL || sw->stopping)
		return;
	sw->stopping = 1;
	if (sw->timer_ready)
		uv_close((uv_handle_t *)&sw->timer, NULL);
}
