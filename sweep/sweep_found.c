/* SPDX-License-Identifier: MIT */
/*
 * What the sweep worker found: copies of a sweep's rows to decide from,
 * and a compared row with changed metrics handed to sweep_bisect_start on
 * the range of its change point (the last ref before it to the first ref
 * after it), also again after a restart when the bisection was never
 * linked.
 */
#include <stdlib.h>
#include <string.h>

#include "common/log.h"
#include "common/xmalloc.h"
#include "config/config.h"
#include "sweep/sweep_bisect.h"
#include "sweep/sweep_int.h"
#include "store/store.h"

/* Rows are copied: the worker acts on them after the walk. */
static int
sweep_rows_add(void *arg, const struct store_sweep_ref *r)
{
	struct sweep_rows *rows = arg;
	struct store_sweep_ref *c;

	rows->r = xreallocarray(rows->r, rows->n + 1, sizeof(*rows->r));
	c = &rows->r[rows->n++];
	*c = *r;
	c->sweep = xstrdup(r->sweep);
	c->ref = xstrdup(r->ref);
	c->commit = xstrdup(r->commit);
	c->result = r->result != NULL ? xstrdup(r->result) : NULL;
	return 0;
}

/* Frees the copies sweep_rows_add made. */
void
sweep_rows_free(struct sweep_rows *rows)
{
	size_t i;

	for (i = 0; i < rows->n; i++) {
		free((char *)rows->r[i].sweep);
		free((char *)rows->r[i].ref);
		free((char *)rows->r[i].commit);
		free((char *)rows->r[i].result);
	}
	free(rows->r);
	rows->r = NULL;
	rows->n = 0;
}

/* Every decision starts from what the store holds now. */
int
sweep_rows_load(struct sweeper *sw, const char *name, struct sweep_rows *rows,
    struct bd_error *err)
{
	memset(rows, 0, sizeof(*rows));
	return store_sweep_ref_list(sw->env.store, name, sweep_rows_add, rows,
	    err);
}

/* One row of the copies by id, NULL when it is gone. */
const struct store_sweep_ref *
sweep_rows_find(const struct sweep_rows *rows, int64_t id)
{
	size_t i;

	for (i = 0; i < rows->n; i++)
		if (rows->r[i].id == id)
			return &rows->r[i];
	return NULL;
}

/* One row of the copies by id, NULL when it is gone or id is not one. */
static const struct store_sweep_ref *
sweep_found_row(const struct sweep_rows *rows, const json_t *id)
{
	return json_is_integer(id) ? sweep_rows_find(rows,
	    json_integer_value(id)) : NULL;
}

/*
 * A compared row whose result names changed metrics starts a bisection,
 * on the range of the headline's change point: from the last ref before
 * it to the first ref after it, or wider when the data leave the point a
 * ref or two uncertain ("range"; results stored before it had none), and
 * refs before r when the change was found late.  r is the row the change
 * is linked to.
 */
void
sweep_found_changed(struct sweeper *sw, const struct config_sweep *w,
    const struct sweep_rows *rows, const struct store_sweep_ref *r,
    const json_t *res)
{
	const json_t *changed = json_object_get(res, "changed"), *v;
	const json_t *pt = json_object_get(res, "change"), *rg;
	const struct store_sweep_ref *good, *bad;
	const char **names;
	struct sweep_change ch;
	struct bd_error err;
	int64_t bisection;
	size_t i, n = 0;

	if (json_array_size(changed) == 0 || !json_is_string(json_object_get(
	    res, "headline")))
		return;
	rg = json_object_get(pt, "range");
	good = sweep_found_row(rows, json_object_get(rg != NULL ? rg : pt,
	    rg != NULL ? "good_row" : "before_row"));
	bad = sweep_found_row(rows, json_object_get(rg != NULL ? rg : pt,
	    rg != NULL ? "bad_row" : "after_row"));
	if (good == NULL || bad == NULL) {
		log_errx("sweep %s: %s changed with no range to bisect",
		    w->name, r->ref);
		return;
	}
	names = xcalloc(json_array_size(changed), sizeof(*names));
	json_array_foreach(changed, i, v)
		if (json_is_string(v))
			names[n++] = json_string_value(v);
	memset(&ch, 0, sizeof(ch));
	ch.sweep = w->name;
	ch.row = r->id;
	ch.bad_row = bad->id;
	ch.prev_row = good->id;
	ch.ref = bad->ref;
	ch.commit = bad->commit;
	ch.prev_ref = good->ref;
	ch.prev_commit = good->commit;
	ch.benchmark = w->benchmark;
	ch.group = w->group;
	ch.headline = json_string_value(json_object_get(res, "headline"));
	ch.metrics = names;
	ch.nmetrics = n;
	ch.priority = w->priority;
	ch.fixups = w->fixups;
	if (sweep_bisect_start(sw->env.sched, sw->env.store, &ch, &bisection,
	    &err) < 0)
		log_errx("sweep %s: %s: cannot start a bisection: %s",
		    w->name, r->ref, err.msg);
	free(names);
}

/* A row just compared: the log line, and the change if there is one. */
void
sweep_found_compared(struct sweeper *sw, const struct config_sweep *w,
    int64_t id, const json_t *res)
{
	struct sweep_rows rows;
	const struct store_sweep_ref *r;
	const json_t *pt = json_object_get(res, "change");
	struct bd_error err;

	if (sweep_rows_load(sw, w->name, &rows, &err) < 0) {
		log_warnx("sweep %s: %s", w->name, err.msg);
		return;
	}
	if ((r = sweep_rows_find(&rows, id)) != NULL) {
		log_info("sweep %s: %s compared after %u runs, %zu metrics "
		    "changed", w->name, r->ref, r->runs,
		    json_array_size(json_object_get(res, "changed")));
		if (json_is_object(pt) && json_integer_value(json_object_get(
		    pt, "late")) > 0)
			log_info("sweep %s: the change between %s and %s was "
			    "found %lld refs late", w->name, json_string_value(
			    json_object_get(pt, "before")), json_string_value(
			    json_object_get(pt, "after")), (long long)
			    json_integer_value(json_object_get(pt, "late")));
		sweep_found_changed(sw, w, &rows, r, res);
	}
	sweep_rows_free(&rows);
}

/*
 * Once per start: compared rows with changes and no linked bisection (a
 * kill -9 between the verdict and the hook) get the hook again.
 */
void
sweep_found_recover(struct sweeper *sw, const struct config_sweep *w,
    const struct sweep_rows *rows)
{
	json_error_t jerr;
	json_t *res;
	size_t i;

	for (i = 0; i < rows->n; i++) {
		if (rows->r[i].state != STORE_SWEEP_COMPARED ||
		    rows->r[i].bisection != 0 || rows->r[i].result == NULL)
			continue;
		if ((res = json_loads(rows->r[i].result, 0, &jerr)) == NULL)
			continue;
		if (json_array_size(json_object_get(res, "changed")) > 0) {
			log_info("sweep %s: %s changed and has no bisection "
			    "yet", w->name, rows->r[i].ref);
			sweep_found_changed(sw, w, rows, &rows->r[i], res);
		}
		json_decref(res);
	}
}

