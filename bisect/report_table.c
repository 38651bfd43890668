/* SPDX-License-Identifier: MIT */
/*
 * The comparison table: per-metric statistics of the base and head runs,
 * the significance rule, and the lkp-style rendering
 *
 *     base ±%stddev     %change       new ±%stddev  metric
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "bisect/report.h"
#include "common/xmalloc.h"

/* qsort order for samples. */
static int
report_cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

/* Sorts a copy so the caller's samples keep their order. */
void
report_stats_compute(const double *v, size_t n, struct report_stats *st)
{
	double *s, sum = 0, sq = 0;
	size_t i;

	memset(st, 0, sizeof(*st));
	if (n == 0)
		return;
	s = xreallocarray(NULL, n, sizeof(*s));
	memcpy(s, v, n * sizeof(*s));
	qsort(s, n, sizeof(*s), report_cmp_double);
	for (i = 0; i < n; i++)
		sum += s[i];
	st->n = n;
	st->mean = sum / n;
	for (i = 0; i < n; i++)
		sq += (s[i] - st->mean) * (s[i] - st->mean);
	st->stddev = sqrt(sq / n);
	st->min = s[0];
	st->max = s[n - 1];
	st->median = n % 2 ? s[n / 2] : (s[n / 2 - 1] + s[n / 2]) / 2;
	free(s);
}

/* The ± column is relative to the level, as in the references. */
double
report_stddev_pct(const struct report_stats *st)
{
	if (st->mean == 0)
		return 0;
	return 100 * st->stddev / fabs(st->mean);
}

/* Metric name conventions are suffixes, case aside. */
static bool
report_has_suffix(const char *s, const char *suffix)
{
	size_t n = strlen(s), m = strlen(suffix);

	return n >= m && strcasecmp(s + n - m, suffix) == 0;
}

/*
 * A metric that is itself a percentage or a profile share gets an absolute
 * difference: "30.09 +2.8 32.89 mpstat.cpu.all.idle%" says more than
 * "+9.3%" of a percentage.  The rule is by name, as lkp-tests does it:
 * names starting with "perf-profile." or ending in "%" (the references
 * show "vm-scalability.stddev% +1053.6"), and, for benchmarks that spell
 * it out, names ending in "percent", "pct" or "utilization".  Only the
 * end of the name counts: the references print
 * "vm-scalability.time.percent_of_cpu_this_job_got -3.9%" as relative.
 */
bool
report_metric_absolute(const char *metric)
{
	static const char *const suffixes[] = {
		"%", "percent", "pct", "utilization",
	};
	size_t i;

	if (strncmp(metric, "perf-profile.", 13) == 0)
		return true;
	for (i = 0; i < sizeof(suffixes) / sizeof(suffixes[0]); i++) {
		if (report_has_suffix(metric, suffixes[i]))
			return true;
	}
	return false;
}

/*
 * Relative to |base| so that the sign always says "went up" or "went
 * down", also for metrics with negative values.
 */
double
report_change(const struct report_stats *base,
    const struct report_stats *head, bool absolute)
{
	double d = head->mean - base->mean;

	if (absolute)
		return d;
	if (base->mean == 0)
		return d == 0 ? 0 : (d > 0 ? INFINITY : -INFINITY);
	return 100 * d / fabs(base->mean);
}

/*
 * The table lists a metric when its change is clear from the samples
 * themselves, the non-overlap rule of lkp-tests (lib/changed_stat.rb) that
 * kernel developers know from 0-day reports.  A metric changed when:
 *
 *  1. one side has at least 3 samples and the other at least 1 (with
 *     fewer the rule below is too easy to meet by chance);
 *  2. the samples separate: every head sample is above the base median and
 *     the head median is above every base sample,
 *         min(head) > median(base) and median(head) > max(base),
 *     or the mirror image for a decrease;
 *  3. the means differ by at least min_change (a fraction, default 1%)
 *     of |mean(base)|: lkp drops smaller changes as noise-level even when
 *     separated.  A zero base mean passes with any nonzero difference.
 *
 * The median is the middle sample (the mean of the two middle ones for an
 * even count), where lkp takes the upper one.  docs/statistics.md carries
 * the same rule.
 */
bool
report_metric_changed(const struct report_stats *base,
    const struct report_stats *head, double min_change)
{
	bool up, down;

	if (base->n == 0 || head->n == 0 || (base->n < 3 && head->n < 3))
		return false;
	up = head->min > base->median && head->median > base->max;
	down = head->max < base->median && head->median < base->min;
	if (!up && !down)
		return false;
	return fabs(head->mean - base->mean) >= min_change * fabs(base->mean);
}

/* One sample with the side it came from, for grouping by metric. */
struct report_tagged {
	const char	*metric;
	double		 value;
	int		 side;		/* 0 base, 1 head */
};

/* Groups samples by metric name, base before head. */
static int
report_cmp_tagged(const void *a, const void *b)
{
	const struct report_tagged *x = a, *y = b;
	int c = strcmp(x->metric, y->metric);

	return c != 0 ? c : x->side - y->side;
}

/* Length of the metric's prefix up to its first dot, the "monitor". */
static size_t
report_prefix_len(const char *metric)
{
	const char *dot = strchr(metric, '.');

	return dot ? (size_t)(dot - metric) : strlen(metric);
}

/*
 * The headline leads, then the benchmark's own metrics (those sharing the
 * headline's prefix, as lkp puts the testcase's stats first), then the
 * monitors'.
 */
static int
report_row_rank(const struct report_row *r, const char *headline)
{
	size_t n = report_prefix_len(headline);

	if (r->headline)
		return 0;
	if (report_prefix_len(r->metric) == n &&
	    strncmp(r->metric, headline, n) == 0)
		return 1;
	return 2;
}

/* Orders rows by rank, then by name, so equal inputs give equal reports. */
static int
report_cmp_row(const void *a, const void *b, void *headline)
{
	const struct report_row *x = a, *y = b;
	int rx = report_row_rank(x, headline);
	int ry = report_row_rank(y, headline);

	return rx != ry ? rx - ry : strcmp(x->metric, y->metric);
}

/* A pass/fail sample counts as a failure when nonzero. */
static size_t
report_count_fails(const double *v, size_t n)
{
	size_t i, f = 0;

	for (i = 0; i < n; i++)
		f += v[i] != 0;
	return f;
}

/* All figures of one row from the raw samples of both sides. */
void
report_row_compute(struct report_row *r, const struct report_input *in,
    const char *metric, const double *bv, size_t nb, const double *hv,
    size_t nh)
{
	double min_change = in->min_change > 0 ? in->min_change :
	    REPORT_MIN_CHANGE;
	size_t i;

	memset(r, 0, sizeof(*r));
	r->metric = metric;
	r->headline = strcmp(r->metric, in->metric) == 0;
	for (i = 0; i < in->n_sweep_metrics; i++)
		if (strcmp(r->metric, in->sweep_metrics[i]) == 0)
			r->swept = true;
	r->pass_fail = r->headline && in->direction == REPORT_PASS_FAIL;
	report_stats_compute(bv, nb, &r->base);
	report_stats_compute(hv, nh, &r->head);
	if (r->pass_fail) {
		r->base_fails = report_count_fails(bv, nb);
		r->head_fails = report_count_fails(hv, nh);
		r->change = 100.0 * r->head_fails / nh -
		    100.0 * r->base_fails / nb;
		r->absolute = true;
		r->changed = r->change != 0;
		return;
	}
	r->absolute = report_metric_absolute(r->metric);
	r->change = report_change(&r->base, &r->head, r->absolute);
	r->changed = report_metric_changed(&r->base, &r->head, min_change);
}

/* Groups the flat (metric, value) rows of both sides into table rows. */
int
report_table_build(const struct report_input *in, struct report_table *t,
    struct bd_error *err)
{
	struct report_tagged *all;
	double *bv, *hv;
	size_t n = in->base.n_values + in->head.n_values, i, j, nb, nh;
	bool have_headline = false;
	int rc = 0;

	memset(t, 0, sizeof(*t));
	all = xreallocarray(NULL, n ? n : 1, sizeof(*all));
	bv = xreallocarray(NULL, n ? n : 1, sizeof(*bv));
	hv = xreallocarray(NULL, n ? n : 1, sizeof(*hv));
	t->rows = xreallocarray(NULL, n ? n : 1, sizeof(*t->rows));
	for (i = 0; i < in->base.n_values; i++)
		all[i] = (struct report_tagged){ in->base.values[i].metric,
		    in->base.values[i].value, 0 };
	for (i = 0; i < in->head.n_values; i++)
		all[in->base.n_values + i] = (struct report_tagged){
		    in->head.values[i].metric, in->head.values[i].value, 1 };
	qsort(all, n, sizeof(*all), report_cmp_tagged);

	for (i = 0; i < n; i = j) {
		nb = nh = 0;
		for (j = i; j < n && strcmp(all[j].metric, all[i].metric) == 0;
		    j++) {
			if (all[j].side == 0)
				bv[nb++] = all[j].value;
			else
				hv[nh++] = all[j].value;
		}
		if (nb == 0 || nh == 0) {
			t->n_one_sided++;
			continue;
		}
		report_row_compute(&t->rows[t->n_rows], in, all[i].metric,
		    bv, nb, hv, nh);
		have_headline |= t->rows[t->n_rows].headline;
		t->n_changed += t->rows[t->n_rows].changed;
		t->n_rows++;
	}
	if (!have_headline) {
		rc = bd_error_set(err, -EINVAL,
		    "no samples of %s at both %s and %s", in->metric,
		    in->base.sha ? in->base.sha : "the base",
		    in->head.sha ? in->head.sha : "the head");
		report_table_release(t);
		goto out;
	}
	qsort_r(t->rows, t->n_rows, sizeof(*t->rows), report_cmp_row,
	    (void *)in->metric);
out:
	free(all);
	free(bv);
	free(hv);
	return rc;
}

/* Frees the rows; the metric names belong to the input. */
void
report_table_release(struct report_table *t)
{
	free(t->rows);
	memset(t, 0, sizeof(*t));
}

/* The fail:runs cell of lkp's failure table: blank when nothing failed. */
static int
report_fmt_fails(char *buf, size_t len, size_t fails, size_t runs)
{
	if (fails == 0)
		return snprintf(buf, len, "%11s:%-4zu", "", runs);
	return snprintf(buf, len, "%11zu:%-4zu", fails, runs);
}

/* Column widths of lkp's compare output, so rows line up with 0-day's. */
void
report_row_format(char *buf, size_t len, const struct report_row *r,
    bool ascii)
{
	char bval[REPORT_FMT_MAX], hval[REPORT_FMT_MAX], ch[REPORT_FMT_MAX];
	char bsd[REPORT_FMT_MAX], hsd[REPORT_FMT_MAX];
	char bf[REPORT_FMT_MAX], hf[REPORT_FMT_MAX];

	if (r->pass_fail) {
		report_fmt_fails(bf, sizeof(bf), r->base_fails, r->base.n);
		report_fmt_fails(hf, sizeof(hf), r->head_fails, r->head.n);
		snprintf(buf, len, "%s%10.0f%% %s  %s", bf, r->change, hf,
		    r->metric);
		return;
	}
	report_fmt_value(bval, sizeof(bval), r->base.mean);
	report_fmt_value(hval, sizeof(hval), r->head.mean);
	report_fmt_change(ch, sizeof(ch), r->change, r->absolute);
	/* The %change column is 10 wide plus "% " or two spaces. */
	if (!r->absolute && ch[strlen(ch) - 1] == '%')
		ch[strlen(ch) - 1] = '\0';
	report_fmt_stddev(bsd, sizeof(bsd), report_stddev_pct(&r->base), ascii);
	report_fmt_stddev(hsd, sizeof(hsd), report_stddev_pct(&r->head), ascii);
	snprintf(buf, len, "%10s%s%10s%s%10s%s  %s", bval, bsd, ch,
	    r->absolute ? "  " : "% ", hval, hsd, r->metric);
}

/* lkp lists the test's axes by key name. */
static int
report_cmp_param(const void *a, const void *b)
{
	const struct report_param *x = a, *y = b;

	return strcmp(x->key, y->key);
}

/* lkp's "key/key/...:" line over "value/value/...": the test's identity. */
static void
report_write_axes(FILE *fp, const struct report_input *in)
{
	struct report_param *p;
	size_t n = 0, i;

	p = xreallocarray(NULL, in->n_params + 4, sizeof(*p));
	p[n++] = (struct report_param){ "benchmark", in->benchmark };
	if (in->host_group != NULL)
		p[n++] = (struct report_param){ "host_group", in->host_group };
	if (in->compiler != NULL)
		p[n++] = (struct report_param){ "compiler", in->compiler };
	if (in->kconfig != NULL)
		p[n++] = (struct report_param){ "kconfig", in->kconfig };
	for (i = 0; i < in->n_params; i++)
		p[n++] = in->params[i];
	qsort(p, n, sizeof(*p), report_cmp_param);
	for (i = 0; i < n; i++)
		fprintf(fp, "%s%s", i ? "/" : "", p[i].key);
	fprintf(fp, ":\n  ");
	for (i = 0; i < n; i++)
		fprintf(fp, "%s%s", i ? "/" : "", p[i].value);
	fprintf(fp, "\n\n");
	free(p);
}

/* A compared commit with its subject and how many runs it had. */
static void
report_write_side(FILE *fp, const struct report_side *s, const char *label)
{
	fprintf(fp, "  %.10s", s->sha);
	if (s->subject != NULL)
		fprintf(fp, " (\"%s\")", s->subject);
	if (label != NULL)
		fprintf(fp, " %s", label);
	if (s->runs > 0)
		fprintf(fp, "  %zu run%s", s->runs, s->runs == 1 ? "" : "s");
	fprintf(fp, "\n");
}

/*
 * n of each column, as a row of the table: a side of 2 runs must not look
 * like a side of 10.  The headline's sample counts where no run count is
 * given.
 */
static void
report_write_runs(FILE *fp, const struct report_input *in,
    const struct report_table *t)
{
	size_t nb = in->base.runs, nh = in->head.runs;

	if (nb == 0 || nh == 0) {
		nb = nb ? nb : t->rows[0].base.n;
		nh = nh ? nh : t->rows[0].head.n;
	}
	fprintf(fp, "%10zu%6s%10s  %10zu%6s  runs\n", nb, "", "", nh, "");
}

/* What the table's rules are, under it, so nobody has to guess. */
static void
report_table_notes(FILE *fp, const struct report_input *in,
    const struct report_table *t)
{
	bool ascii = in->flags & REPORT_ASCII;
	size_t numeric = t->n_rows, changed = t->n_changed;

	fprintf(fp, "\n");
	if (t->n_rows > 0 && t->rows[0].pass_fail) {
		fprintf(fp, "fail:runs counts the runs that reported a "
		    "failure; %%reproduction is the\ndifference of the failure "
		    "rates.\n");
		numeric--;
		changed -= t->rows[0].changed;
	}
	if (numeric == 0)
		return;
	fprintf(fp, "%zu of %zu metrics changed: every sample of one side "
	    "lies beyond the other side's\nmedian, its median beyond the "
	    "other side's extremes, and the means differ by at\nleast %g%%. "
	    "Metrics ending in %% or starting with perf-profile. show an "
	    "absolute\ndifference instead of a %%change; %s is shown "
	    "from a 2%% relative stddev.\n", changed, numeric,
	    100 * (in->min_change > 0 ? in->min_change : REPORT_MIN_CHANGE),
	    ascii ? "+-" : "\u00b1");
}

/* The lkp comparison table, headline first, changed rows only. */
void
report_table_write(FILE *fp, const struct report_input *in,
    const struct report_table *t)
{
	bool ascii = in->flags & REPORT_ASCII, culprit;
	char line[1024];
	size_t i, shown = 0;

	culprit = in->kind == REPORT_CULPRIT;
	for (i = 0; i < 89; i++)
		fputc('=', fp);
	fputc('\n', fp);
	report_write_axes(fp, in);
	fprintf(fp, "commit:\n");
	report_write_side(fp, &in->base, culprit ? NULL : "(good)");
	report_write_side(fp, &in->head, culprit ? NULL : "(bad)");
	fprintf(fp, "\n%16.16s %27.27s\n", in->base.sha, in->head.sha);
	fprintf(fp, "---------------- ---------------------------\n");

	if (t->n_rows > 0 && t->rows[0].pass_fail) {
		fprintf(fp, "       fail:runs  %%reproduction    fail:runs\n");
		fprintf(fp, "           |             |             |\n");
		report_row_format(line, sizeof(line), &t->rows[0], ascii);
		fprintf(fp, "%s\n", line);
		shown++;
	}
	if (shown < t->n_rows) {
		fprintf(fp, "         %%stddev     %%change         "
		    "%%stddev\n");
		fprintf(fp, "             \\          |                \\\n");
		report_write_runs(fp, in, t);
	}
	for (i = shown; i < t->n_rows; i++) {
		if (!t->rows[i].changed && !t->rows[i].headline &&
		    !t->rows[i].swept && !t->rows[i].touched)
			continue;
		report_row_format(line, sizeof(line), &t->rows[i], ascii);
		fprintf(fp, "%s%s\n", line, t->rows[i].touched ?
		    "  (touched)" : "");
	}
	report_table_notes(fp, in, t);
	for (i = 0; i < t->n_rows && !t->rows[i].touched; i++)
		;
	if (i < t->n_rows)
		fprintf(fp, "(touched): the culprit's diff changes this "
		    "function; these rows come first.\n");
	if (t->n_one_sided > 0)
		fprintf(fp, "%zu metric%s measured on one side only %s not "
		    "compared.\n", t->n_one_sided,
		    t->n_one_sided == 1 ? "" : "s",
		    t->n_one_sided == 1 ? "is" : "are");
}
