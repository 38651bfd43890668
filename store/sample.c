/* SPDX-License-Identifier: MIT */
/*
 * Samples: the measured values, read back to rebuild the engine and to
 * answer `samples ID`.  They are written by store_run_finish, and copied
 * from a sweep's samples by store_bisection_create_linked.
 */
#include <stdlib.h>
#include <string.h>

#include "common/xmalloc.h"
#include "store/store_int.h"

struct store_sample_each {
	store_sample_cb	 cb;
	void		*arg;
};

/* Strings point into the row: the callback contract says they die with it. */
static int
store_sample_row(void *arg, sqlite3_stmt *st)
{
	struct store_sample_each *e = arg;
	struct store_sample sm;

	memset(&sm, 0, sizeof(sm));
	sm.run = sqlite3_column_int64(st, 0);
	sm.commit = (const char *)sqlite3_column_text(st, 1);
	sm.host = (const char *)sqlite3_column_text(st, 2);
	sm.metric = (const char *)sqlite3_column_text(st, 3);
	sm.value = sqlite3_column_double(st, 4);
	sm.attempt = sqlite3_column_int(st, 5);
	sm.seq = sqlite3_column_int64(st, 6);
	sm.index = (unsigned)sqlite3_column_int64(st, 7);
	sm.reused_from = sqlite3_column_int64(st, 8);
	return e->cb(e->arg, &sm);
}

int
store_sample_list(struct store *s, int64_t bisection, const char *commit,
    store_sample_cb cb, void *arg, struct bd_error *err)
{
	struct store_sample_each e = { cb, arg };
	sqlite3_stmt *st;

	st = store_stmt(s, STMT_SAMPLE_LIST);
	sqlite3_bind_int64(st, 1, bisection);
	store_bind_text(st, 2, commit);
	return store_each(s, st, store_sample_row, &e, err, "list samples");
}

/* One run's values, metric by metric, while the walk is inside the run. */
struct store_run_values {
	const char	*only;
	store_agg_cb	 agg_of;
	void		*agg_arg;
	store_sample_cb	 cb;
	void		*arg;
	struct store_sample first;	/* the run's first row, strings owned */
	char		**metrics;	/* distinct metrics in the run */
	double		**values;
	size_t		 *nvalues, nmetrics;
	int		 rc;
};

static void
store_run_values_clear(struct store_run_values *r)
{
	size_t i;

	for (i = 0; i < r->nmetrics; i++) {
		free(r->metrics[i]);
		free(r->values[i]);
	}
	free(r->metrics);
	free(r->values);
	free(r->nvalues);
	free((char *)r->first.commit);
	free((char *)r->first.host);
	r->metrics = NULL;
	r->values = NULL;
	r->nvalues = NULL;
	r->nmetrics = 0;
	memset(&r->first, 0, sizeof(r->first));
}

/* Hands the buffered run on, one aggregated sample per metric. */
static int
store_run_values_flush(struct store_run_values *r)
{
	struct store_sample sm;
	size_t i;
	int rc = 0;

	for (i = 0; i < r->nmetrics && rc == 0; i++) {
		sm = r->first;
		sm.metric = r->metrics[i];
		sm.index = 0;
		sm.nvalues = (unsigned)r->nvalues[i];
		if (agg_apply(r->agg_of(r->agg_arg, sm.metric), r->values[i],
		    r->nvalues[i], &sm.value) < 0)
			continue;	/* stored before the bound: not a value */
		rc = r->cb(r->arg, &sm);
	}
	store_run_values_clear(r);
	return rc;
}

static int
store_run_values_row(void *arg, const struct store_sample *sm)
{
	struct store_run_values *r = arg;
	size_t i;
	int rc;

	if (r->only != NULL && strcmp(sm->metric, r->only) != 0)
		return 0;
	if (r->first.commit != NULL && sm->run != r->first.run &&
	    (rc = store_run_values_flush(r)) != 0)
		return r->rc = rc;
	if (r->first.commit == NULL) {
		r->first = *sm;
		r->first.commit = xstrdup(sm->commit);
		r->first.host = sm->host ? xstrdup(sm->host) : NULL;
		r->first.metric = NULL;
	}
	for (i = 0; i < r->nmetrics; i++)
		if (strcmp(r->metrics[i], sm->metric) == 0)
			break;
	if (i == r->nmetrics) {
		r->metrics = xreallocarray(r->metrics, i + 1, sizeof(char *));
		r->values = xreallocarray(r->values, i + 1, sizeof(double *));
		r->nvalues = xreallocarray(r->nvalues, i + 1, sizeof(size_t));
		r->metrics[i] = xstrdup(sm->metric);
		r->values[i] = NULL;
		r->nvalues[i] = 0;
		r->nmetrics++;
	}
	r->values[i] = xreallocarray(r->values[i], r->nvalues[i] + 1,
	    sizeof(double));
	r->values[i][r->nvalues[i]++] = sm->value;
	return 0;
}

/* The statistics' view of the samples: see store.h. */
int
store_run_value_list(struct store *s, int64_t bisection, const char *commit,
    const char *metric, store_agg_cb agg_of, void *agg_arg,
    store_sample_cb cb, void *arg, struct bd_error *err)
{
	struct store_run_values r;
	int rc;

	memset(&r, 0, sizeof(r));
	r.only = metric;
	r.agg_of = agg_of;
	r.agg_arg = agg_arg;
	r.cb = cb;
	r.arg = arg;
	rc = store_sample_list(s, bisection, commit, store_run_values_row, &r,
	    err);
	if (rc == 0 && r.rc == 0 && r.first.commit != NULL)
		rc = store_run_values_flush(&r);
	store_run_values_clear(&r);
	return rc;
}
