/* SPDX-License-Identifier: MIT */
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
#include "sweep/sweep_judge.h"
#include "store/store.h"

#define JUDGE_METRICS_MAX	64

/* The rows of the sweep: ids and states, oldest first. */
struct judge_rows {
	int64_t		*id;
	enum store_sweep_ref_state *state;
	char		**ref;
	json_t		**result;	/* compared rows' results, else NULL */
	unsigned	*runs;
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
	rows->result = xreallocarray(rows->result, rows->n + 1,
	    sizeof(*rows->result));
	rows->runs = xreallocarray(rows->runs, rows->n + 1, sizeof(*rows->runs));
	rows->id[rows->n] = r->id;
	rows->state[rows->n] = r->state;
	rows->ref[rows->n] = xstrdup(r->ref);
	rows->result[rows->n] = r->state == STORE_SWEEP_COMPARED &&
	    r->result != NULL ? json_loads(r->result, 0, NULL) : NULL;
	rows->runs[rows->n] = r->runs;
	rows->n++;
	return 0;
}

static void
judge_rows_free(struct judge_rows *rows)
{
	size_t i;

	for (i = 0; i < rows->n; i++) {
		free(rows->ref[i]);
		json_decref(rows->result[i]);
	}
	free(rows->id);
	free(rows->state);
	free(rows->ref);
	free(rows->result);
	free(rows->runs);
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

/* The ref a window index names, as JSON (null: none). */
static json_t *
judge_ref(const struct judge_rows *rows, const size_t *win, size_t tag)
{
	return tag != SWEEP_NONE ? json_string(rows->ref[win[tag]]) :
	    json_null();
}

/* The change point of one metric: set for changed and borderline ones. */
static void
judge_point(json_t *o, const struct judge_rows *rows, const size_t *win,
    const struct sweep_metric_out *out)
{
	int on = (out->verdict == SWEEP_CHANGED ||
	    out->verdict == SWEEP_BORDERLINE) && out->at != SWEEP_NONE &&
	    out->at > 0;

	json_object_set_new(o, "after", on ? judge_ref(rows, win, out->at) :
	    json_null());
	json_object_set_new(o, "after_row", on ? json_integer(
	    rows->id[win[out->at]]) : json_null());
	json_object_set_new(o, "before", on ? judge_ref(rows, win,
	    out->at - 1) : json_null());
	json_object_set_new(o, "late", on ? json_integer(out->late) :
	    json_null());
}

/*
 * The headline's change point, and the range its bisection takes: from
 * the ref before the earliest first-ref-after the data cannot rule out to
 * the latest (sweep_stats' at_first and at_last), the point's own pair
 * when they agree.
 */
static json_t *
judge_change(const struct judge_rows *rows, const size_t *win,
    const struct sweep_metric_out *o)
{
	size_t first = o->at_first != SWEEP_NONE && o->at_first > 0 &&
	    o->at_first <= o->at ? o->at_first : o->at;
	size_t last = o->at_last != SWEEP_NONE && o->at_last >= o->at ?
	    o->at_last : o->at;

	return json_pack("{s:s, s:I, s:s, s:I, s:i, s:{s:s, s:I, s:s, s:I}}",
	    "before", rows->ref[win[o->at - 1]], "before_row",
	    (json_int_t)rows->id[win[o->at - 1]], "after",
	    rows->ref[win[o->at]], "after_row",
	    (json_int_t)rows->id[win[o->at]], "late", (int)o->late, "range",
	    "good", rows->ref[win[first - 1]], "good_row",
	    (json_int_t)rows->id[win[first - 1]], "bad", rows->ref[win[last]],
	    "bad_row", (json_int_t)rows->id[win[last]]);
}

/* The result object of n judged metrics; win[i] maps metric i's tags. */
static json_t *
judge_result(const struct config_metric **m, size_t n,
    const struct judge_runs *cur, const struct sweep_metric_out *out,
    const struct judge_rows *rows, size_t *const *win, const char *prev,
    unsigned runs)
{
	json_t *a = json_array(), *changed = json_array(), *o, *ch;
	double med, sd;
	size_t i, h = sweep_stats_headline(out, n);

	for (i = 0; i < n; i++) {
		judge_spread(&cur[i], &med, &sd);
		o = json_pack("{s:s, s:o, s:o, s:o, s:o, s:o, s:o, s:s}",
		    "name", m[i]->name, "median", judge_num(med), "stddev_pct",
		    judge_num(sd), "change_prev", judge_num(out[i].rel_prev),
		    "change_base", judge_num(out[i].rel), "effect",
		    judge_num(out[i].effect), "p_adj", judge_num(out[i].p_adj),
		    "verdict", judge_verdicts[out[i].verdict]);
		judge_point(o, rows, win[i], &out[i]);
		json_array_append_new(a, o);
		if (out[i].verdict == SWEEP_CHANGED)
			json_array_append_new(changed, json_string(m[i]->name));
	}
	ch = json_null();
	if (h < n && out[h].at != SWEEP_NONE && out[h].at > 0)
		ch = judge_change(rows, win[h], &out[h]);
	return json_pack("{s:o, s:i, s:o, s:o, s:o, s:o}", "prev", prev != NULL ?
	    json_string(prev) : json_null(), "runs", (int)runs, "metrics", a,
	    "changed", changed, "headline", h < n ? json_string(m[h]->name) :
	    json_null(), "change", ch);
}

/* A string member, "" when absent. */
static const char *
judge_str(const json_t *o, const char *key)
{
	const char *v = json_string_value(json_object_get(o, key));

	return v != NULL ? v : "";
}

/*
 * The first row of metric's window: the first ref after the metric's
 * last reported change point before row index at, or 0.
 */
static size_t
judge_since(const struct judge_rows *rows, size_t at, const char *metric)
{
	const json_t *mm, *after;
	size_t i, j, k;

	for (i = at; i-- > 0;) {
		json_array_foreach(json_object_get(rows->result[i], "metrics"),
		    j, mm) {
			if (strcmp(judge_str(mm, "name"), metric) != 0 ||
			    strcmp(judge_str(mm, "verdict"), "changed") != 0)
				continue;
			after = json_object_get(mm, "after_row");
			for (k = 0; json_is_integer(after) && k <= i; k++)
				if (rows->id[k] == json_integer_value(after))
					return k;
			return i;
		}
	}
	return 0;
}

/* The sampling plan of a sweep; see sweep_judge.h. */
void
sweep_judge_plan(const struct config_sweep *w, double min_change,
    struct sweep_params *sp)
{
	sweep_params_default(sp);
	sp->cap = w->samples;
	sp->base = w->baseline;
	sp->min_change = min_change;
	if (sp->first > sp->cap)
		sp->first = sp->cap;
	if (sp->own > sp->cap)
		sp->own = sp->cap;
	if (sp->step == 0)
		sp->step = 1;
}

/* Row indices of metric's window, oldest first, row index at last. */
static size_t
judge_window(const struct judge_rows *rows, size_t at, size_t since,
    size_t max, size_t *win)
{
	size_t i, k = 0;

	win[k++] = at;
	for (i = at; i-- > since && k < max;)
		if (rows->state[i] == STORE_SWEEP_COMPARED ||
		    rows->state[i] == STORE_SWEEP_BASELINE)
			win[k++] = i;
	for (i = 0; i < k / 2; i++) {
		size_t t = win[i];

		win[i] = win[k - 1 - i];
		win[k - 1 - i] = t;
	}
	return k;
}

/* The newest measured row before index at (the good side), or at. */
static size_t
judge_prev(const struct judge_rows *rows, size_t at)
{
	size_t i;

	for (i = at; i-- > 0;)
		if (rows->state[i] == STORE_SWEEP_COMPARED ||
		    rows->state[i] == STORE_SWEEP_BASELINE)
			return i;
	return at;
}

/* See sweep_judge.h. */
int
sweep_judge_row(struct store *st, const struct config *cfg,
    const struct config_sweep *w, int64_t id, unsigned revisits,
    unsigned *more, int64_t *revisit, json_t **result, struct bd_error *err)
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
	size_t nm, i, j, at, prev, max, **win = NULL, *nwin = NULL, r;
	unsigned runs = 0;
	json_t *res = NULL;
	char *text;
	int rc;

	*more = 0;
	*revisit = 0;
	if (b == NULL)
		return bd_error_set(err, -ENOENT, "sweep %s: no [benchmark %s]",
		    w->name, w->benchmark);
	sweep_judge_plan(w, b->min_change, &sp);
	max = sp.base + SWEEP_SPLITS;
	if (max > SWEEP_TAGS_MAX)
		max = SWEEP_TAGS_MAX;
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
	prev = judge_prev(&rows, at);
	cur = xcalloc(nm + 1, sizeof(*cur));
	hist = xcalloc(nm * max + 1, sizeof(*hist));
	tags = xcalloc(nm * max + 1, sizeof(*tags));
	win = xcalloc(nm + 1, sizeof(*win));
	nwin = xcalloc(nm + 1, sizeof(*nwin));
	in = xcalloc(nm + 1, sizeof(*in));
	out = xcalloc(nm + 1, sizeof(*out));
	for (i = 0; i < nm; i++) {
		win[i] = xcalloc(max, sizeof(**win));
		nwin[i] = judge_window(&rows, at, judge_since(&rows, at,
		    m[i]->name), max, win[i]);
		for (j = 0; j < nwin[i]; j++) {
			struct judge_runs *h = &hist[i * max + j];

			if ((rc = judge_load(st, rows.id[win[i][j]], m[i]->name,
			    h, err)) < 0)
				goto out;
			tags[i * max + j] = (struct sweep_series){ h->v, h->n };
		}
		cur[i] = hist[i * max + nwin[i] - 1];
		if (cur[i].runs > runs)
			runs = cur[i].runs;
		in[i].tags = tags + i * max;
		in[i].ntags = nwin[i];
	}
	if (runs < sp.first) {
		*more = sp.first - runs;
		goto out;
	}
	*more = sweep_stats_judge(&sp, in, nm, out);
	if (*more == 0 && revisits < SWEEP_REVISITS_MAX &&
	    (r = sweep_stats_revisit(out, nm)) < nm &&
	    rows.runs[win[r][out[r].revisit]] < sp.cap) {
		j = win[r][out[r].revisit];
		*revisit = rows.id[j];
		*more = sp.cap - rows.runs[j] < sp.step ? sp.cap - rows.runs[j] :
		    sp.step;
	}
	res = judge_result(m, nm, cur, out, &rows, win, prev != at ?
	    rows.ref[prev] : NULL, runs);
	if (*more == 0) {
		text = json_dumps(res, JSON_COMPACT);
		rc = store_sweep_ref_set(st, id, STORE_SWEEP_COMPARED, text, 0,
		    err);
		free(text);
	}
out:
	for (i = 0; hist != NULL && i < nm * max; i++)
		free(hist[i].v);
	for (i = 0; win != NULL && i < nm; i++)
		free(win[i]);
	free(win);
	free(nwin);
	free(cur);
	free(hist);
	free(tags);
	free(in);
	free(out);
	judge_rows_free(&rows);
	if (rc == 0 && result != NULL)
		*result = res;
	else
		json_decref(res);
	return rc;
}
