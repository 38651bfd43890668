/* SPDX-License-Identifier: MIT */
/*
 * Tests of the report module's numbers: formatting, the %change and
 * stddev formulas against rows of the 0-day references, and the
 * significance rule.
 */
#include <criterion/criterion.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "bisect/report.h"
#include "common/xmalloc.h"
#include "tests/support/report_fixture.h"
#include "tests/support/tst.h"

/* ---- number formatting ---- */

static const struct {
	double		 v;
	const char	*want;
} value_cases[] = {
	{ 0.15, "0.15" },		/* references: 0.15 ± 3% */
	{ 881807, "881807" },		/* 881807 ± 13% */
	{ 881807.4, "881807" },
	{ 1.11e8, "1.11e+08" },		/* 1.11e+08 ± 2% */
	{ 1.297e8, "1.297e+08" },
	{ 1.37e9, "1.37e+09" },		/* 1.37e+09, trailing zero dropped */
	{ 5.569e12, "5.569e+12" },
	{ 54.43, "54.43" },
	{ 1296, "1296" },
	{ 0, "0.00" },
	{ -0.0, "0.00" },		/* never "-0.00" */
	{ -0.6, "-0.60" },
	{ -120543.2, "-120543" },
	{ -1.11e8 - 1, "-1.11e+08" },
	{ 999.994, "999.99" },
	{ 999.996, "1000.00" },		/* %.2f rounding, still < 1000 */
	{ 1000, "1000" },
	{ 1e8, "100000000" },		/* exponent form only above 1e8 */
	{ 100000001, "1e+08" },
	{ 0.0021, "0.0021" },		/* tiny: three significant digits */
	{ 0.00123456, "0.00123" },
	{ 1e-7, "1e-07" },
	{ -0.004, "-0.004" },
	{ 0.005, "0.01" },
	{ NAN, "n/a" },
	{ INFINITY, "+inf" },
};

Test(report, fmt_value_across_magnitudes)
{
	char buf[REPORT_FMT_MAX];
	size_t i;

	for (i = 0; i < sizeof(value_cases) / sizeof(value_cases[0]); i++) {
		report_fmt_value(buf, sizeof(buf), value_cases[i].v);
		cr_expect_str_eq(buf, value_cases[i].want, "value %.17g",
		    value_cases[i].v);
	}
}

Test(report, fmt_change_relative_and_absolute)
{
	char buf[REPORT_FMT_MAX];

	report_fmt_change(buf, sizeof(buf), 16.9, false);
	cr_expect_str_eq(buf, "+16.9%");
	report_fmt_change(buf, sizeof(buf), -4.66, false);
	cr_expect_str_eq(buf, "-4.7%");
	report_fmt_change(buf, sizeof(buf), -0.6, true);
	cr_expect_str_eq(buf, "-0.6");
	report_fmt_change(buf, sizeof(buf), 1053.6, true);
	cr_expect_str_eq(buf, "+1053.6");
	report_fmt_change(buf, sizeof(buf), 0.01, true);
	cr_expect_str_eq(buf, "+0.0");
	report_fmt_change(buf, sizeof(buf), -0.0, false);
	cr_expect_str_eq(buf, "+0.0%");
	report_fmt_change(buf, sizeof(buf), 123456, false);
	cr_expect_str_eq(buf, "+1.2e+05%");
	report_fmt_change(buf, sizeof(buf), -INFINITY, false);
	cr_expect_str_eq(buf, "-inf%");
}

Test(report, fmt_stddev_threshold_and_truncation)
{
	char buf[REPORT_FMT_MAX];

	report_fmt_stddev(buf, sizeof(buf), 1.99, false);
	cr_expect_str_eq(buf, "      ");
	report_fmt_stddev(buf, sizeof(buf), 2.0, false);
	cr_expect_str_eq(buf, " \u00b1  2%");
	report_fmt_stddev(buf, sizeof(buf), 201.9, false);	/* ±201% */
	cr_expect_str_eq(buf, " \u00b1201%");
	report_fmt_stddev(buf, sizeof(buf), 13.7, true);
	cr_expect_str_eq(buf, "+- 13%");
	report_fmt_stddev(buf, sizeof(buf), NAN, false);
	cr_expect_str_eq(buf, "      ");
}

Test(report, fmt_duration_and_probability)
{
	char buf[REPORT_FMT_MAX];

	report_fmt_duration(buf, sizeof(buf), 45.4);
	cr_expect_str_eq(buf, "45s");
	report_fmt_duration(buf, sizeof(buf), 723);
	cr_expect_str_eq(buf, "12m 03s");
	report_fmt_duration(buf, sizeof(buf), 18252);
	cr_expect_str_eq(buf, "5h 04m 12s");
	report_fmt_duration(buf, sizeof(buf), 2 * 86400 + 3 * 3600 + 240);
	cr_expect_str_eq(buf, "2d 03h 04m");
	report_fmt_prob(buf, sizeof(buf), 0.9942);
	cr_expect_str_eq(buf, "99.4%");
	report_fmt_prob(buf, sizeof(buf), 0.99);
	cr_expect_str_eq(buf, "99%");
	/* Never rounded up to 100%. */
	report_fmt_prob(buf, sizeof(buf), 0.99999);
	cr_expect_str_eq(buf, "99.999%");
	report_fmt_prob(buf, sizeof(buf), 1);
	cr_expect_str_eq(buf, "100%");
}

/* ---- statistics ---- */

Test(report, stats_population_stddev_and_median)
{
	static const double v[] = { 9, 2, 4, 4, 5, 4, 7, 5 };
	static const double odd[] = { 3, 1, 2 };
	static const double pair[] = { 98, 102 };
	struct report_stats st;
	char buf[REPORT_FMT_MAX];

	report_stats_compute(v, 8, &st);
	cr_expect_eq(st.n, 8);
	cr_expect_float_eq(st.mean, 5, 1e-12);
	cr_expect_float_eq(st.stddev, 2, 1e-12);	/* divides by n */
	cr_expect_float_eq(st.median, 4.5, 1e-12);
	cr_expect_eq(st.min, 2);
	cr_expect_eq(st.max, 9);
	report_stats_compute(odd, 3, &st);
	cr_expect_eq(st.median, 2);
	/* 98 and 102: stddev 2 of mean 100 is exactly the 2% threshold. */
	report_stats_compute(pair, 2, &st);
	cr_expect_float_eq(report_stddev_pct(&st), 2, 1e-12);
	report_fmt_stddev(buf, sizeof(buf), report_stddev_pct(&st), true);
	cr_expect_str_eq(buf, "+-  2%");
}

Test(report, absolute_metrics_by_name)
{
	/* As printed in the references: absolute deltas ... */
	cr_expect(report_metric_absolute("mpstat.cpu.all.idle%"));
	cr_expect(report_metric_absolute("vm-scalability.stddev%"));
	cr_expect(report_metric_absolute("perf-stat.i.cache-miss-rate%"));
	cr_expect(report_metric_absolute(
	    "perf-profile.self.cycles-pp.sched_setaffinity"));
	/* ... and relative ones. */
	cr_expect_not(report_metric_absolute(
	    "vm-scalability.time.percent_of_cpu_this_job_got"));
	cr_expect_not(report_metric_absolute("perf-stat.i.MPKI"));
	cr_expect_not(report_metric_absolute("turbostat.RAMWatt"));
	/* Spelled-out percentages of other benchmarks. */
	cr_expect(report_metric_absolute("cpu.busy_percent"));
	cr_expect(report_metric_absolute("gpu.utilization"));
	cr_expect(report_metric_absolute("net.drop_pct"));
}

static struct report_stats
stats_of(const double *v, size_t n)
{
	struct report_stats st;

	report_stats_compute(v, n, &st);
	return st;
}

Test(report, changed_rule)
{
	static const double base[] = { 100, 101, 102, 103, 104, 105 };
	static const double up[] = { 106, 107, 108, 109, 110, 111 };
	static const double down[] = { 90, 91, 92, 93, 94, 95 };
	/* All above the base median, but the median not above its max. */
	static const double half[] = { 103, 103.5, 104, 104.5, 110, 111 };
	/* Separated, yet the means differ by 0.2%. */
	static const double near[] = { 102.5, 102.6, 102.7, 102.8, 102.9,
	    103 };
	static const double nearb[] = { 102.2, 102.3, 102.3, 102.4, 102.4,
	    102.4 };
	static const double one[] = { 120 };
	static const double zero[] = { 0, 0, 0 };
	static const double pos[] = { 1, 2, 3 };
	struct report_stats b = stats_of(base, 6), h;

	h = stats_of(up, 6);
	cr_expect(report_metric_changed(&b, &h, 0.01));
	h = stats_of(down, 6);
	cr_expect(report_metric_changed(&b, &h, 0.01));
	cr_expect(report_metric_changed(&h, &b, 0.01), "mirror image");
	h = stats_of(half, 6);
	cr_expect_not(report_metric_changed(&b, &h, 0.01));
	h = stats_of(base, 6);
	cr_expect_not(report_metric_changed(&b, &h, 0.01), "identical");
	b = stats_of(nearb, 6);
	h = stats_of(near, 6);
	cr_expect_not(report_metric_changed(&b, &h, 0.01));
	cr_expect(report_metric_changed(&b, &h, 0.001));
	/* Three against one is enough; one against one is not. */
	b = stats_of(base, 6);
	h = stats_of(one, 1);
	cr_expect(report_metric_changed(&b, &h, 0.01));
	b = stats_of(base, 1);
	cr_expect_not(report_metric_changed(&b, &h, 0.01));
	/* A zero base mean passes with any separated difference. */
	b = stats_of(zero, 3);
	h = stats_of(pos, 3);
	cr_expect(report_metric_changed(&b, &h, 0.01));
}

Test(report, change_formula)
{
	static const double a[] = { 1.1095e8 }, b[] = { 1.297e8 };
	static const double n1[] = { -120543 }, n2[] = { -90211 };
	static const double z[] = { 0 };
	struct report_stats sa = stats_of(a, 1), sb = stats_of(b, 1);
	char buf[REPORT_FMT_MAX];

	/* The headline of the 2026 reference: 1.11e+08 -> 1.297e+08. */
	report_fmt_change(buf, sizeof(buf), report_change(&sa, &sb, false),
	    false);
	cr_expect_str_eq(buf, "+16.9%");
	cr_expect_float_eq(report_change(&sa, &sb, true), 1.297e8 - 1.1095e8,
	    1e-3);
	/* Negative levels: relative to |base|, so rising is positive. */
	sa = stats_of(n1, 1);
	sb = stats_of(n2, 1);
	cr_expect_float_eq(report_change(&sa, &sb, false),
	    100.0 * 30332 / 120543, 1e-9);
	sa = stats_of(z, 1);
	cr_expect(isinf(report_change(&sa, &sb, false)));
	cr_expect_eq(report_change(&sa, &sa, false), 0);
}

/* The older swap-w-seq reference prints whole percents: 41%, -77%, -87%. */
Test(report, change_formula_older_reference)
{
	static const double rows[][3] = {
		{ 8564707, 12093174, 41 },	/* vm-scalability.throughput */
		{ 9411, 2120, -77 },		/* vmstat.system.cs */
		{ 158697, 21118, -87 },		/* perf-stat.context-switches */
		{ 3653557, 4873708, 33 },	/* vmstat.swap.so */
	};
	struct report_stats a, b;
	size_t i;

	for (i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
		a = stats_of(&rows[i][0], 1);
		b = stats_of(&rows[i][1], 1);
		cr_expect_eq(lround(report_change(&a, &b, false)),
		    (long)rows[i][2], "row %zu", i);
	}
}

/* ---- rows of the reference reports ---- */

/* Half a unit of the last printed digit of s ("1.297e+08": 5e4). */
static double
half_unit(const char *s)
{
	const char *dot = strchr(s, '.'), *e = strchr(s, 'e');
	int decimals = 0, exp = e ? atoi(e + 1) : 0;

	if (dot != NULL)
		decimals = (int)((e ? e : s + strlen(s)) - dot - 1);
	return 0.5 * pow(10, exp - decimals);
}

struct ref_row {
	char	 base[32], head[32], change[32], metric[256];
	double	 base_sd, head_sd;	/* printed ±%, or 0 */
};

/* Reads an optional "± N%" or "±N%" at tok[*i]: the percent, or 0. */
static double
ref_sd(char **tok, int n, int *i)
{
	if (*i >= n || strncmp(tok[*i], "\u00b1", 2) != 0)
		return 0;
	if (tok[*i][2] != '\0')
		return atof(tok[(*i)++] + 2);
	(*i)++;
	return *i < n ? atof(tok[(*i)++]) : 0;
}

/* Splits "1.11e+08 ± 2% +16.9% 1.297e+08 metric" into its fields. */
static bool
ref_row_parse(char *line, struct ref_row *r)
{
	char *tok[12], *save = NULL, *t;
	int n = 0, i = 0;

	for (t = strtok_r(line, " ", &save); t != NULL && n < 12;
	    t = strtok_r(NULL, " ", &save))
		tok[n++] = t;
	memset(r, 0, sizeof(*r));
	if (n < 4)
		return false;
	snprintf(r->base, sizeof(r->base), "%s", tok[i++]);
	r->base_sd = ref_sd(tok, n, &i);
	if (i + 2 >= n)
		return false;
	snprintf(r->change, sizeof(r->change), "%s", tok[i++]);
	snprintf(r->head, sizeof(r->head), "%s", tok[i++]);
	r->head_sd = ref_sd(tok, n, &i);
	if (i != n - 1)
		return false;
	snprintf(r->metric, sizeof(r->metric), "%s", tok[i]);
	return true;
}

/* Squeezes runs of spaces to one and drops leading and trailing ones. */
static void
collapse_spaces(char *s)
{
	char *o = s, *p;

	for (p = s; *p != '\0'; p++) {
		if (*p == ' ' && (o == s || o[-1] == ' '))
			continue;
		*o++ = *p;
	}
	if (o > s && o[-1] == ' ')
		o--;
	*o = '\0';
}

/* A value near x that prints as want, i steps of the way across. */
static bool
value_near(const char *want, int i, int k, double *out)
{
	char buf[REPORT_FMT_MAX];
	double x = strtod(want, NULL) + half_unit(want) * 0.999 * i / k;

	report_fmt_value(buf, sizeof(buf), x);
	*out = x;
	return strcmp(buf, want) == 0;
}

/*
 * Finds means that print as the row's two values and whose %change prints
 * as the row's, then renders the row from samples with those means and
 * the printed ±% and compares it with the reference text.
 */
static bool
ref_row_check(const struct ref_row *r, const char *want, char *got,
    size_t len)
{
	const int k = 40;
	struct report_input in;
	struct report_row row;
	double mb, mh, bv[2], hv[2], sdb, sdh;
	char ch[REPORT_FMT_MAX];
	bool abs = report_metric_absolute(r->metric);
	int i, j;

	report_input_init(&in);
	in.metric = "(none)";
	for (i = -k; i <= k; i++) {
		if (!value_near(r->base, i, k, &mb))
			continue;
		for (j = -k; j <= k; j++) {
			struct report_stats sb = { .n = 1, .mean = mb };
			struct report_stats sh = { .n = 1 };

			if (!value_near(r->head, j, k, &mh))
				continue;
			sh.mean = mh;
			report_fmt_change(ch, sizeof(ch),
			    report_change(&sb, &sh, abs), abs);
			if (strcmp(ch, r->change) != 0)
				continue;
			sdb = fabs(mb) / 100 *
			    (r->base_sd ? r->base_sd + 0.5 : 1);
			sdh = fabs(mh) / 100 *
			    (r->head_sd ? r->head_sd + 0.5 : 1);
			bv[0] = mb - sdb;
			bv[1] = mb + sdb;
			hv[0] = mh - sdh;
			hv[1] = mh + sdh;
			report_row_compute(&row, &in, r->metric, bv, 2, hv, 2);
			report_row_format(got, len, &row, false);
			collapse_spaces(got);
			return strcmp(got, want) == 0;
		}
	}
	snprintf(got, len, "(no means print as %s %s %s)", r->base, r->change,
	    r->head);
	return false;
}

/*
 * Where the printed means pin the %change down to one printed figure (the
 * changes at the corners of their rounding intervals all print alike), the
 * formula must give the printed figure.  This catches a wrong formula,
 * such as a change relative to the new value, that the search above could
 * absorb.  Returns 1 when pinned and right, 0 when not pinned, -1 wrong.
 */
static int
ref_row_pinned_change(const struct ref_row *r, char *got, size_t len)
{
	bool abs = report_metric_absolute(r->metric);
	double b = strtod(r->base, NULL), h = strtod(r->head, NULL);
	double ub = half_unit(r->base), uh = half_unit(r->head);
	char first[REPORT_FMT_MAX], buf[REPORT_FMT_MAX];
	int c;

	for (c = 0; c < 4; c++) {
		struct report_stats sb = { .n = 1 }, sh = { .n = 1 };

		sb.mean = b + (c & 1 ? ub : -ub);
		sh.mean = h + (c & 2 ? uh : -uh);

		report_fmt_change(c ? buf : first, sizeof(buf),
		    report_change(&sb, &sh, abs), abs);
		if (c > 0 && strcmp(first, buf) != 0)
			return 0;
	}
	snprintf(got, len, "%s", first);
	return strcmp(first, r->change) == 0 ? 1 : -1;
}

Test(report, reference_rows_reproduced)
{
	char *path = report_fixture_path("lkp-reference-rows.txt"), line[512];
	char copy[512], got[512];
	struct ref_row r;
	FILE *fp = fopen(path, "r");
	int rows = 0, precise = 0, pinned;

	free(path);
	cr_assert_not_null(fp, "reference rows fixture missing");
	while (fgets(line, sizeof(line), fp) != NULL) {
		if (line[0] == '#' || line[0] == '\n')
			continue;
		line[strcspn(line, "\n")] = '\0';
		snprintf(copy, sizeof(copy), "%s", line);
		cr_assert(ref_row_parse(copy, &r), "cannot parse: %s", line);
		cr_expect_eq(report_metric_absolute(r.metric),
		    strchr(r.change, '%') == NULL, "absolute rule: %s", line);
		cr_expect(ref_row_check(&r, line, got, sizeof(got)),
		    "\nwant: %s\ngot:  %s", line, got);
		pinned = ref_row_pinned_change(&r, got, sizeof(got));
		cr_expect_neq(pinned, -1, "%%change from the printed means is "
		    "%s: %s", got, line);
		precise += pinned == 1;
		rows++;
	}
	fclose(fp);
	cr_expect_geq(rows, 100, "only %d reference rows", rows);
	cr_expect_geq(precise, 40, "only %d rows pin their %%change", precise);
	fprintf(stderr, "report: %d reference rows re-rendered, %d with a "
	    "%%change pinned by the printed means\n", rows, precise);
}
