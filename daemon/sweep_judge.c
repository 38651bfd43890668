/*
 * Loads the samples of a swept ref and of the refs before it from the
 * store, hands them to the sweep statistics and stores the verdict.
 */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "bisect/stats.h"
#include "bisect/sweep_stats.h"
#include "common/xmalloc.h"
#include "config/config.h"
#include "daemon/sweep_judge.h"
#include "store/store.h"

#define JUDGE_METRICS_MAX	64

/* The rows of the sweep: ids and states, oldest first. */
struct judge_rows {
	int64_t		*id;
	enum store_sweep_ref_state *state;
	char		**ref;
	size_t		 n;
};

static int
judge_row(void *arg, const struct store_sweep_ref *r)
{
	struct judge_rows *rows = arg;

	rows->id = xreallocarray(rows->id, rows->n + 1, sizeof(*rows->id));
	rows->state = xreallocarray(rows->state, rows->n + 1,
	    sizeof(*rows->state));
	rows->ref = xreallocarray(rows->ref, rows->n + 1, sizeof(*rows->ref));
	rows->id[rows->n] = r->id;
	rows->state[rows->n] = r->state;
	rows->ref[rows->n] = xstrdup(r->ref);
	rows->n++;
	return 0;
}

static void
judge_rows_free(struct judge_rows *rows)
{
	size_t i;

	for (i = 0; i < rows->n; i++)
		free(rows->ref[i]);
	free(rows->id);
	free(rows->state);
	free(rows->ref);
}

/* One metric's runs at one row. */
struct judge_runs {
	const char	*metric;
	double		*v;
	size_t		 n;
	unsigned	 runs;		/* distinct runs of any metric */
};

static int
judge_sample(void *arg, unsigned run, const char *metric, double value)
{
	struct judge_runs *r = arg;

	if (run > r->runs)
		r->runs = run;
	if (strcmp(metric, r->metric) != 0)
		return 0;
	r->v = xreallocarray(r->v, r->n + 1, sizeof(*r->v));
	r->v[r->n++] = value;
	return 0;
}

static int
judge_load(struct store *st, int64_t id, const char *metric,
    struct judge_runs *out, struct bd_error *err)
{
	memset(out, 0, sizeof(*out));
	out->metric = metric;
	return store_sweep_sample_list(st, id, judge_sample, out, err);
}

/* See sweep_judge.h: the plots read runs the way the verdicts do. */
int
sweep_judge_runs(struct store *st, int64_t id, const char *metric,
    double **v, size_t *n, unsigned *runs, struct bd_error *err)
{
	struct judge_runs r;
	int rc = judge_load(st, id, metric, &r, err);

	if (rc < 0) {
		free(r.v);
		r.v = NULL;
		r.n = 0;
	}
	*v = r.v;
	*n = r.n;
	if (runs != NULL)
		*runs = r.runs;
	return rc;
}

/* Median and relative standard deviation of the new ref's runs. */
static void
judge_spread(const struct judge_runs *r, double *median, double *sd_pct)
{
	double *c, mean = 0, q = 0;
	size_t i;

	*median = *sd_pct = NAN;
	if (r->n == 0)
		return;
	c = xreallocarray(NULL, r->n, sizeof(*c));
	memcpy(c, r->v, r->n * sizeof(*c));
	*median = stats_median_inplace(c, r->n);
	free(c);
	for (i = 0; i < r->n; i++)
		mean += r->v[i] / (double)r->n;
	for (i = 0; i < r->n; i++)
		q += (r->v[i] - mean) * (r->v[i] - mean);
	if (r->n > 1 && mean != 0)
		*sd_pct = 100 * sqrt(q / (double)(r->n - 1)) / fabs(mean);
}

static const char *const judge_verdicts[] = {
	[SWEEP_SAME] = "same",
	[SWEEP_CHANGED] = "changed",
	[SWEEP_BORDERLINE] = "borderline",
	[SWEEP_UNTESTED] = "untested",
};

/* A number, or null where it cannot be told (JSON has no NaN). */
static json_t *
judge_num(double v)
{
	return isfinite(v) ? json_real(v) : json_null();
}

/* The result object of n judged metrics. */
static json_t *
judge_result(const struct config_metric **m, size_t n,
    const struct judge_runs *cur, const struct sweep_metric_out *out,
    const char *prev, unsigned runs)
{
	json_t *a = json_array(), *changed = json_array();
	double med, sd;
	size_t i, h = sweep_stats_headline(out, n);

	for (i = 0; i < n; i++) {
		judge_spread(&cur[i], &med, &sd);
		json_array_append_new(a, json_pack("{s:s, s:o, s:o, s:o, s:o, "
		    "s:o, s:o, s:s}", "name", m[i]->name, "median",
		    judge_num(med), "stddev_pct", judge_num(sd), "change_prev",
		    judge_num(out[i].rel_prev), "change_base",
		    judge_num(out[i].rel_base), "effect",
		    judge_num(out[i].effect), "p_adj", judge_num(out[i].p_adj),
		    "verdict", judge_verdicts[out[i].verdict]));
		if (out[i].verdict == SWEEP_CHANGED)
			json_array_append_new(changed, json_string(m[i]->name));
	}
	return json_pack("{s:o, s:i, s:o, s:o, s:o}", "prev", prev != NULL ?
	    json_string(prev) : json_null(), "runs", (int)runs, "metrics", a,
	    "changed", changed, "headline", h < n ? json_string(m[h]->name) :
	    json_null());
}

int
sweep_judge_row(struct store *st, const struct config *cfg,
    const struct config_sweep *w, int64_t id, unsigned *more,
    json_t **result, struct bd_error *err)
{
	const struct config_metric *m[JUDGE_METRICS_MAX];
	const struct config_benchmark *b = config_benchmark_find(cfg,
	    w->benchmark);
	struct judge_rows rows = { 0 };
	struct judge_runs *cur = NULL, *hist = NULL;
	struct sweep_metric_in *in = NULL;
	struct sweep_metric_out *out = NULL;
	struct sweep_series *tags = NULL;
	struct sweep_params sp;
	size_t nm, i, j, at, k = 0, *hi = NULL;
	unsigned runs = 0;
	json_t *res = NULL;
	char *text;
	int rc;

	*more = 0;
	if (b == NULL)
		return bd_error_set(err, -ENOENT, "sweep %s: no [benchmark %s]",
		    w->name, w->benchmark);
	nm = config_sweep_metrics(cfg, w, m, JUDGE_METRICS_MAX);
	if (nm > JUDGE_METRICS_MAX)
		nm = JUDGE_METRICS_MAX;
	if ((rc = store_sweep_ref_list(st, w->name, judge_row, &rows, err)) < 0)
		goto out;
	for (at = 0; at < rows.n && rows.id[at] != id; at++)
		;
	if (at == rows.n) {
		rc = bd_error_set(err, -ENOENT, "sweep %s has no ref %lld",
		    w->name, (long long)id);
		goto out;
	}
	/* The history: the last `baseline` measured refs before this one. */
	hi = xcalloc(w->baseline + 1, sizeof(*hi));
	for (i = at; i-- > 0 && k < w->baseline;)
		if (rows.state[i] == STORE_SWEEP_COMPARED ||
		    rows.state[i] == STORE_SWEEP_BASELINE)
			hi[k++] = i;
	cur = xcalloc(nm + 1, sizeof(*cur));
	hist = xcalloc(nm * k + 1, sizeof(*hist));
	tags = xcalloc(nm * k + 1, sizeof(*tags));
	in = xcalloc(nm + 1, sizeof(*in));
	out = xcalloc(nm + 1, sizeof(*out));
	for (i = 0; i < nm; i++) {
		if ((rc = judge_load(st, id, m[i]->name, &cur[i], err)) < 0)
			goto out;
		if (cur[i].runs > runs)
			runs = cur[i].runs;
		/* Oldest first: hi[] runs from the newest back. */
		for (j = 0; j < k; j++) {
			struct judge_runs *h = &hist[i * k + (k - 1 - j)];

			if ((rc = judge_load(st, rows.id[hi[j]], m[i]->name, h,
			    err)) < 0)
				goto out;
			tags[i * k + (k - 1 - j)] = (struct sweep_series){
			    h->v, h->n };
		}
		in[i].cur = (struct sweep_series){ cur[i].v, cur[i].n };
		in[i].tags = tags + i * k;
		in[i].ntags = k;
	}
	sweep_params_default(&sp);
	sp.cap = w->samples;
	sp.min_change = b->min_change;
	if (sp.first > sp.cap)
		sp.first = sp.cap;
	if (runs < sp.first) {
		*more = sp.first - runs;
		goto out;
	}
	*more = sweep_stats_judge(&sp, in, nm, out);
	res = judge_result(m, nm, cur, out, k > 0 ? rows.ref[hi[0]] : NULL,
	    runs);
	if (*more == 0) {
		text = json_dumps(res, JSON_COMPACT);
		rc = store_sweep_ref_set(st, id, STORE_SWEEP_COMPARED, text, 0,
		    err);
		free(text);
	}
out:
	for (i = 0; cur != NULL && i < nm; i++)
		free(cur[i].v);
	for (i = 0; hist != NULL && i < nm * k; i++)
		free(hist[i].v);
	free(cur);
	free(hist);
	free(tags);
	free(in);
	free(out);
	free(hi);
	judge_rows_free(&rows);
	if (rc == 0 && result != NULL)
		*result = res;
	else
		json_decref(res);
	return rc;
}
