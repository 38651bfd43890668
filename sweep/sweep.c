/* SPDX-License-Identifier: MIT */
/*
 * Sweeps follow the watcher's ref events (see sweep.h): matching refs
 * become rows to sweep, the cursor moves with them, and the commands
 * `sweeps` and `sweep NAME` read the rows back.
 */
#include <errno.h>
#include <fnmatch.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bisect/sweep_plot.h"
#include "common/log.h"
#include "common/xmalloc.h"
#include "config/config.h"
#include "sweep/sweep.h"
#include "sweep/sweep_int.h"
#include "sweep/sweep_judge.h"
#include "repo/mirror.h"
#include "store/store.h"

#define TAG_PREFIX	"refs/tags/"

int
sweeper_new(const struct sweeper_env *env, struct sweeper **out,
    struct bd_error *err)
{
	struct sweeper *sw = xcalloc(1, sizeof(*sw));
	int rc;

	sw->env = *env;
	*out = sw;
	if (env->loop != NULL) {
		if ((rc = uv_timer_init(env->loop, &sw->timer)) < 0)
			return bd_error_set(err, -EIO, "sweeps: %s",
			    uv_strerror(rc));
		sw->timer.data = sw;
		sw->timer_ready = 1;
	}
	return 0;
}

/* After the loop ended (the timer was closed by sweeper_stop). */
void
sweeper_free(struct sweeper *sw)
{
	size_t i;

	if (sw == NULL)
		return;
	for (i = 0; i < sw->ncur; i++)
		free(sw->cur[i].name);
	free(sw->cur);
	free(sw);
}

const struct config *
sweeper_config(struct sweeper *sw)
{
	return sw->env.config(sw->env.config_arg);
}

/* Tag patterns are written as the tag (next-*) or as the full ref. */
int
sweeper_match(const char *glob, const char *ref)
{
	if (fnmatch(glob, ref, 0) == 0)
		return 1;
	return strncmp(ref, TAG_PREFIX, strlen(TAG_PREFIX)) == 0 &&
	    fnmatch(glob, ref + strlen(TAG_PREFIX), 0) == 0;
}

/* The first baseline: the start ref, or the newest matching one by name. */
struct sweeper_first {
	const struct config_sweep *w;
	char	 ref[256];
	char	 commit[48];
};

static int
sweeper_first_ref(void *arg, const struct store_ref *r)
{
	struct sweeper_first *f = arg;
	const char *start = f->w->start;

	if (start != NULL) {
		if (strcmp(r->ref, start) != 0 &&
		    !(strncmp(r->ref, TAG_PREFIX, strlen(TAG_PREFIX)) == 0 &&
		    strcmp(r->ref + strlen(TAG_PREFIX), start) == 0))
			return 0;
	} else if (!sweeper_match(f->w->tag_pattern, r->ref) ||
	    strcmp(r->ref, f->ref) <= 0)
		return 0;
	snprintf(f->ref, sizeof(f->ref), "%s", r->ref);
	snprintf(f->commit, sizeof(f->commit), "%s", r->id);
	return 0;
}

/* A sweep seen for the first time: its baseline and its cursor. */
static int
sweeper_init_one(struct sweeper *sw, const struct config_sweep *w,
    int64_t *cursor, struct bd_error *err)
{
	struct sweeper_first f = { .w = w };
	struct store_sweep_ref row;
	int64_t last;
	int rc;

	if ((rc = store_ref_event_last(sw->env.store, &last, err)) < 0 ||
	    (rc = store_ref_list(sw->env.store, sweeper_first_ref, &f,
	    err)) < 0)
		return rc;
	memset(&row, 0, sizeof(row));
	row.ref = f.ref;
	row.commit = f.commit;
	row.event = last;
	row.state = STORE_SWEEP_BASELINE;
	rc = store_sweep_advance(sw->env.store, w->name, last, &row,
	    f.ref[0] != '\0', NULL, err);
	if (rc == 0) {
		*cursor = last;
		log_info("sweep %s: %s%s, from ref event %" PRId64, w->name,
		    f.ref[0] ? "first baseline " : "no matching ref yet",
		    f.ref, last);
	}
	return rc;
}

/* The sweep's cursor, initialising the sweep when it has none. */
static int
sweeper_cursor(struct sweeper *sw, const struct config_sweep *w,
    int64_t *cursor, struct bd_error *err)
{
	struct store_sweep st;
	int rc;

	rc = store_sweep_get(sw->env.store, w->name, &st, err);
	if (rc == -ENOENT)
		return sweeper_init_one(sw, w, cursor, err);
	if (rc < 0)
		return rc;
	*cursor = st.cursor;
	store_sweep_release(&st);
	return 0;
}

int
sweeper_start(struct sweeper *sw, int64_t *replay_from, struct bd_error *err)
{
	const struct config *cfg = sweeper_config(sw);
	int64_t c, last, lo = INT64_MAX;
	size_t i;
	int rc;

	/* Before the mirror's first fetch there is nothing to start from:
	 * the first event initialises each sweep from the full snapshot. */
	if ((rc = store_ref_event_last(sw->env.store, &last, err)) < 0)
		return rc;
	for (i = 0; last > 0 && i < cfg->nsweeps; i++) {
		if ((rc = sweeper_cursor(sw, &cfg->sweeps[i], &c, err)) < 0)
			return rc;
		if (c < lo)
			lo = c;
	}
	*replay_from = lo == INT64_MAX ? 0 : lo;
	sweeper_kick(sw);
	return 0;
}

/* One event for one sweep: a row when it matches; the cursor always. */
static void
sweeper_event_one(struct sweeper *sw, const struct config_sweep *w,
    const struct ref_event *ev)
{
	struct store_sweep_ref row;
	struct bd_error err;
	int64_t cursor, id = 0;
	int match;

	if (sweeper_cursor(sw, w, &cursor, &err) < 0) {
		log_warnx("sweep %s: %s", w->name, err.msg);
		return;
	}
	if (ev->seq <= cursor)
		return;
	match = ev->new_id != NULL && sweeper_match(w->tag_pattern, ev->ref);
	memset(&row, 0, sizeof(row));
	row.ref = ev->ref;
	row.commit = ev->new_id;
	row.event = ev->seq;
	row.state = STORE_SWEEP_PENDING;
	if (store_sweep_advance(sw->env.store, w->name, ev->seq, &row, match,
	    &id, &err) < 0) {
		log_warnx("sweep %s: ref event %" PRId64 ": %s", w->name,
		    ev->seq, err.msg);
		return;
	}
	if (match && id != 0)
		log_info("sweep %s: %s %s at %.12s, to sweep", w->name,
		    ev->ref, ev->change == REF_MOVED ? "rewritten" : "appeared",
		    ev->new_id);
}

void
sweeper_ref_event(void *arg, const struct ref_event *ev)
{
	struct sweeper *sw = arg;
	const struct config *cfg = sweeper_config(sw);
	size_t i;

	for (i = 0; i < cfg->nsweeps; i++)
		sweeper_event_one(sw, &cfg->sweeps[i], ev);
	sweeper_kick(sw);
}

/* What the rows of one sweep add up to, for both commands. */
struct sweeper_view {
	const struct config_sweep *w;
	json_t		*refs;		/* NULL: counts only */
	json_t		*last;		/* newest row not rewritten */
	unsigned	 pending, changes, failed, skipped;
	unsigned	 due;		/* pending rows the schedule allows now */
	int		 now_asked;	/* read before the walk: no nesting */
	int64_t		 now_ms;
};

static int
sweeper_view_row(void *arg, const struct store_sweep_ref *r)
{
	struct sweeper_view *v = arg;
	json_error_t jerr;
	json_t *o, *res;

	res = r->result != NULL ? json_loads(r->result, 0, &jerr) : NULL;
	o = json_pack("{s:I, s:o, s:s, s:s, s:i, s:o, s:o, s:I}",
	    "id", (json_int_t)r->id, "ref", mirror_ref_json(r->ref), "commit", r->commit,
	    "state", sweeper_row_state(r), "runs",
	    (int)r->runs, "result", res != NULL ? res : json_null(),
	    "bisection", r->bisection ? json_integer(r->bisection) :
	    json_null(), "created_ms", (json_int_t)r->created_ms);
	if (sweeper_row_skipped(r))
		v->skipped++;
	else if (r->state == STORE_SWEEP_SAMPLING) {
		v->pending++;
		v->due++;
	} else if (r->state == STORE_SWEEP_PENDING) {
		v->pending++;
		if (sweeper_row_due(v->w, v->now_ms, v->now_asked,
		    r->created_ms))
			v->due++;
	}
	if (r->state == STORE_SWEEP_FAILED)
		v->failed++;
	if (r->state == STORE_SWEEP_COMPARED && res != NULL &&
	    json_array_size(json_object_get(res, "changed")) > 0)
		v->changes++;
	if (r->state != STORE_SWEEP_REWRITTEN) {
		json_decref(v->last);
		v->last = json_incref(o);
	}
	if (v->refs != NULL)
		json_array_append(v->refs, o);
	json_decref(o);
	return 0;
}

/* One sweep's summary object, filling v from its rows. */
static json_t *
sweeper_summary(struct sweeper *sw, const struct config_sweep *w,
    struct sweeper_view *v, struct bd_error *err)
{
	struct store_sweep st;
	int64_t cursor = 0, next_ms;
	json_t *o, *next;

	if (store_sweep_get(sw->env.store, w->name, &st, err) == 0) {
		cursor = st.cursor;
		store_sweep_release(&st);
	}
	v->w = w;
	v->now_asked = sweeper_now_pending(sw, w->name);
	v->now_ms = sw->env.now_ms();
	if (store_sweep_ref_list(sw->env.store, w->name, sweeper_view_row, v,
	    err) < 0)
		return NULL;
	next = sweeper_next(sw, w, v->pending, v->due, &next_ms);
	o = json_pack("{s:s, s:s, s:s, s:I, s:O, s:s, s:o, s:o, s:i, s:i, "
	    "s:i, s:i}", "name", w->name, "benchmark", w->benchmark,
	    "tag_pattern", w->tag_pattern, "cursor", (json_int_t)cursor,
	    "last", v->last != NULL ? v->last : json_null(), "state",
	    v->due > 0 ? "sweeping" : v->pending > 0 ? "waiting" : "idle",
	    "next", next, "next_ms", next_ms ? json_integer(next_ms) :
	    json_null(), "pending", (int)v->pending, "changes",
	    (int)v->changes, "failed", (int)v->failed, "skipped",
	    (int)v->skipped);
	json_decref(v->last);
	v->last = NULL;
	return o;
}

json_t *
sweeper_list(struct sweeper *sw, struct bd_error *err)
{
	const struct config *cfg = sweeper_config(sw);
	json_t *a = json_array(), *o;
	struct sweeper_view v;
	size_t i;

	for (i = 0; i < cfg->nsweeps; i++) {
		memset(&v, 0, sizeof(v));
		if ((o = sweeper_summary(sw, &cfg->sweeps[i], &v, err)) == NULL) {
			json_decref(a);
			return NULL;
		}
		json_array_append_new(a, o);
	}
	return json_pack("{s:o}", "sweeps", a);
}

/*
 * The row id of metric's change point in a row's result (its first row
 * after the change), 0 when the row did not report metric changed.
 */
static int64_t
sweeper_changed(const json_t *row, const char *metric)
{
	const json_t *v;
	size_t i;

	json_array_foreach(json_object_get(json_object_get(row, "result"),
	    "metrics"), i, v)
		if (json_is_string(json_object_get(v, "name")) && strcmp(
		    json_string_value(json_object_get(v, "name")), metric) ==
		    0 && json_is_string(json_object_get(v, "verdict")) &&
		    strcmp(json_string_value(json_object_get(v, "verdict")),
		    "changed") == 0)
			return json_is_integer(json_object_get(v, "after_row")) ?
			    json_integer_value(json_object_get(v, "after_row")) :
			    json_integer_value(json_object_get(row, "id"));
	return 0;
}

/* One metric's trend over the rows that were not rewritten, as text. */
static json_t *
sweeper_plot(struct sweeper *sw, const char *metric, const json_t *rows)
{
	struct sweep_plot_ref *refs;
	struct {
		double	*v;
		size_t	 n;
	} *runs;
	struct bd_error err;
	const json_t *row;
	size_t i, j, n = 0, change = SIZE_MAX, found = SIZE_MAX, len = 0;
	int64_t *ids, at;
	char *text = NULL;
	FILE *fp;
	json_t *o;

	runs = xcalloc(json_array_size(rows) + 1, sizeof(*runs));
	refs = xcalloc(json_array_size(rows) + 1, sizeof(*refs));
	ids = xcalloc(json_array_size(rows) + 1, sizeof(*ids));
	json_array_foreach(rows, i, row) {
		if (strcmp(json_string_value(json_object_get(row, "state")),
		    "rewritten") == 0)
			continue;
		if (sweep_judge_runs(sw->env.store, json_integer_value(
		    json_object_get(row, "id")), metric, &runs[n].v,
		    &runs[n].n, NULL, &err) < 0)
			log_warnx("sweep plot: %s", err.msg);
		refs[n].label = json_string_value(json_object_get(row, "ref"));
		if (strncmp(refs[n].label, TAG_PREFIX, strlen(TAG_PREFIX)) == 0)
			refs[n].label += strlen(TAG_PREFIX);
		refs[n].v = runs[n].v;
		refs[n].n = runs[n].n;
		ids[n] = json_integer_value(json_object_get(row, "id"));
		/* The first change reported, at its change point. */
		at = change == SIZE_MAX ? sweeper_changed(row, metric) : 0;
		for (j = 0; at != 0 && j <= n; j++)
			if (ids[j] == at) {
				change = j;
				found = n;
			}
		n++;
	}
	fp = open_memstream(&text, &len);
	if (fp != NULL) {
		sweep_plot_write(fp, metric, refs, n, change, found);
		fclose(fp);
	}
	o = json_pack("{s:s, s:s}", "metric", metric, "text",
	    text != NULL ? text : "");
	for (i = 0; i < n; i++)
		free(runs[i].v);
	free(runs);
	free(refs);
	free(ids);
	free(text);
	return o;
}

/* A trend plot per watched metric. */
static json_t *
sweeper_plots(struct sweeper *sw, const struct config_sweep *w,
    const json_t *rows)
{
	const struct config *cfg = sweeper_config(sw);
	const struct config_metric *m[64];
	json_t *a = json_array();
	size_t i, n = config_sweep_metrics(cfg, w, m, 64);

	for (i = 0; i < n && i < 64; i++)
		json_array_append_new(a, sweeper_plot(sw, m[i]->name, rows));
	return a;
}

json_t *
sweeper_show(struct sweeper *sw, const char *name, struct bd_error *err)
{
	const struct config_sweep *w = config_sweep_find(sweeper_config(sw),
	    name);
	struct sweeper_view v;
	json_t *o;

	if (w == NULL) {
		bd_error_set(err, -ENOENT, "no [sweep %s] is configured", name);
		return NULL;
	}
	memset(&v, 0, sizeof(v));
	v.refs = json_array();
	if ((o = sweeper_summary(sw, w, &v, err)) == NULL) {
		json_decref(v.refs);
		return NULL;
	}
	return json_pack("{s:o, s:o, s:o}", "sweep", o, "plots",
	    sweeper_plots(sw, w, v.refs), "refs", v.refs);
}

/* The newest matching ref, as for a first baseline, now to be swept. */
int
sweeper_now(struct sweeper *sw, const char *name, struct bd_error *err)
{
	const struct config_sweep *w = config_sweep_find(sweeper_config(sw),
	    name);
	struct config_sweep any;
	struct sweeper_first f;
	struct store_sweep_ref row;
	int64_t cursor;
	int rc;

	if (w == NULL)
		return bd_error_set(err, -ENOENT, "no [sweep %s] is configured",
		    name);
	if ((rc = sweeper_cursor(sw, w, &cursor, err)) < 0)
		return rc;
	any = *w;
	any.start = NULL;
	memset(&f, 0, sizeof(f));
	f.w = &any;
	if ((rc = store_ref_list(sw->env.store, sweeper_first_ref, &f,
	    err)) < 0)
		return rc;
	if (f.ref[0] == '\0')
		return bd_error_set(err, -ENOENT, "sweep %s: no ref matches %s",
		    name, w->tag_pattern);
	memset(&row, 0, sizeof(row));
	row.ref = f.ref;
	row.commit = f.commit;
	row.event = cursor;
	row.state = STORE_SWEEP_PENDING;
	rc = store_sweep_advance(sw->env.store, name, cursor, &row, 1, NULL,
	    err);
	if (rc == 0) {
		log_info("sweep %s: %s at %.12s queued by request", name, f.ref,
		    f.commit);
		sweeper_now_asked(sw, w);
	}
	return rc;
}
