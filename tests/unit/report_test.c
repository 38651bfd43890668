/*
 * Tests of the report module: golden reports for every kind, number
 * formatting, the %change and stddev formulas against rows of the 0-day
 * references, the significance rule, plots and the JSON form.
 *
 * Golden files live in tests/fixtures/report/; REPORT_UPDATE_GOLDEN=1
 * rewrites them from the current output (then read the diff by eye).
 */
#include <criterion/criterion.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "bisect/report.h"
#include "common/xmalloc.h"
#include "tests/support/tst.h"

TestSuite(report, .fini = tst_leak_check);

/* ---- fixture inputs: JSON files mirroring struct report_input ---- */

struct fixture {
	json_t			*root;
	struct report_input	 in;
	struct report_param	*params;
	struct report_commit	*parents;
	const char		**good;
	struct report_value	*values[2];
	double			*endpoints[2];
	struct report_sample	*samples;
	struct report_candidate	*cands;
	const char		**log;
};

static char *
fixture_path(const char *name)
{
	const char *src = getenv("BISECTD_SRCDIR");
	char *p;

	xasprintf(&p, "%s/tests/fixtures/report/%s", src ? src : ".", name);
	return p;
}

static const char *
jstr(json_t *o, const char *key)
{
	json_t *v = json_object_get(o, key);

	return json_is_string(v) ? json_string_value(v) : NULL;
}

static int
name_index(const char *s, const char *const *names, int n)
{
	int i;

	for (i = 0; s != NULL && i < n; i++) {
		if (strcmp(s, names[i]) == 0)
			return i;
	}
	cr_assert_fail("fixture: unknown name \"%s\"", s ? s : "(none)");
	return 0;
}

static void
fixture_commit(json_t *o, struct report_commit *c)
{
	c->sha = jstr(o, "sha");
	c->subject = jstr(o, "subject");
	c->author = jstr(o, "author");
	c->committer = jstr(o, "committer");
	c->date = jstr(o, "date");
}

static void
fixture_side(json_t *o, struct report_side *s, struct report_value **vp)
{
	json_t *vals = json_object_get(o, "values"), *arr, *v;
	const char *metric;
	size_t n = 0, i;

	s->sha = jstr(o, "sha");
	s->subject = jstr(o, "subject");
	s->runs = (size_t)json_integer_value(json_object_get(o, "runs"));
	json_object_foreach(vals, metric, arr)
		n += json_array_size(arr);
	*vp = xcalloc(n ? n : 1, sizeof(**vp));
	json_object_foreach(vals, metric, arr) {
		json_array_foreach(arr, i, v) {
			(*vp)[s->n_values].metric = metric;
			(*vp)[s->n_values++].value = json_number_value(v);
		}
	}
	s->values = *vp;
}

static double *
fixture_doubles(json_t *arr, size_t *n)
{
	double *d = xcalloc(json_array_size(arr) + 1, sizeof(*d));
	json_t *v;
	size_t i;

	json_array_foreach(arr, i, v)
		d[i] = json_number_value(v);
	*n = json_array_size(arr);
	return d;
}

static const char **
fixture_strings(json_t *arr, size_t *n)
{
	const char **s = xcalloc(json_array_size(arr) + 1, sizeof(*s));
	json_t *v;
	size_t i;

	json_array_foreach(arr, i, v)
		s[i] = json_string_value(v);
	*n = json_array_size(arr);
	return s;
}

/* The JSON array root[key] and a zeroed C array of as many elements. */
static json_t *
fixture_array(struct fixture *f, const char *key, size_t size, void **out,
    size_t *n)
{
	json_t *a = json_object_get(f->root, key);

	*n = json_array_size(a);
	*out = xcalloc(*n + 1, size);
	return a;
}

/* Lists of structs, each entry a JSON array of its fields in order. */
static void
fixture_lists(struct fixture *f)
{
	static const char *const classes[] = { "unclassified", "good", "bad" };
	struct report_input *in = &f->in;
	json_t *a, *v;
	size_t i;

	a = fixture_array(f, "params", sizeof(*f->params), (void **)&f->params,
	    &in->n_params);
	json_array_foreach(a, i, v)
		f->params[i] = (struct report_param){
		    json_string_value(json_array_get(v, 0)),
		    json_string_value(json_array_get(v, 1)) };
	in->params = f->params;

	a = fixture_array(f, "parents", sizeof(*f->parents),
	    (void **)&f->parents, &in->n_parents);
	json_array_foreach(a, i, v)
		fixture_commit(v, &f->parents[i]);
	in->parents = f->parents;

	a = fixture_array(f, "samples", sizeof(*f->samples),
	    (void **)&f->samples, &in->n_samples);
	json_array_foreach(a, i, v)
		f->samples[i] = (struct report_sample){
		    json_string_value(json_array_get(v, 0)),
		    (long)json_integer_value(json_array_get(v, 1)),
		    json_number_value(json_array_get(v, 2)),
		    (enum report_class)name_index(json_string_value(
		    json_array_get(v, 3)), classes, 3) };
	in->samples = f->samples;

	a = fixture_array(f, "candidates", sizeof(*f->cands),
	    (void **)&f->cands, &in->n_candidates);
	json_array_foreach(a, i, v)
		f->cands[i] = (struct report_candidate){
		    json_string_value(json_array_get(v, 0)),
		    json_string_value(json_array_get(v, 1)),
		    json_number_value(json_array_get(v, 2)) };
	in->candidates = f->cands;
}

static void
fixture_load(struct fixture *f, const char *name)
{
	static const char *const kinds[] = { "culprit", "inconclusive",
	    "not_reproduced" };
	static const char *const dirs[] = { "higher_is_better",
	    "lower_is_better", "pass_fail", "unknown" };
	struct report_input *in = &f->in;
	char *path = fixture_path(name);
	json_error_t jerr;
	json_t *r;

	memset(f, 0, sizeof(*f));
	f->root = r = json_load_file(path, 0, &jerr);
	cr_assert_not_null(r, "%s: %s (line %d)", path, jerr.text, jerr.line);
	free(path);
	report_input_init(in);
	in->kind = (enum report_kind)name_index(jstr(r, "kind"), kinds, 3);
	in->direction = (enum report_direction)name_index(jstr(r, "direction"),
	    dirs, 4);
	in->id = jstr(r, "id");
	in->branch = jstr(r, "branch");
	in->repo_url = jstr(r, "repo_url");
	in->benchmark = jstr(r, "benchmark");
	in->host_group = jstr(r, "host_group");
	in->metric = jstr(r, "metric");
	in->bad_rev = jstr(r, "bad");
	in->verdict_note = jstr(r, "verdict_note");
	in->bench_config = jstr(r, "bench_config");
	in->confidence = json_number_value(json_object_get(r, "confidence"));
	in->target_confidence = json_number_value(json_object_get(r,
	    "target_confidence"));
	in->max_samples = (size_t)json_integer_value(json_object_get(r,
	    "max_samples"));
	in->first_parent = json_is_true(json_object_get(r, "first_parent"));
	in->total_samples = (size_t)json_integer_value(json_object_get(r,
	    "total_samples"));
	in->machine_seconds = json_number_value(json_object_get(r,
	    "machine_seconds"));
	in->n_positions = (long)json_integer_value(json_object_get(r,
	    "n_positions"));
	if (json_object_get(r, "culprit_position") != NULL)
		in->culprit_position = (long)json_integer_value(
		    json_object_get(r, "culprit_position"));
	in->n_candidates_total = (size_t)json_integer_value(
	    json_object_get(r, "n_candidates_total"));
	if (json_object_get(r, "culprit") != NULL)
		fixture_commit(json_object_get(r, "culprit"), &in->culprit);
	f->good = fixture_strings(json_object_get(r, "good"),
	    &in->n_good_revs);
	in->good_revs = f->good;
	f->log = fixture_strings(json_object_get(r, "bisect_log"),
	    &in->n_bisect_log);
	in->bisect_log = f->log;
	f->endpoints[0] = fixture_doubles(json_object_get(r, "good_samples"),
	    &in->n_good_samples);
	f->endpoints[1] = fixture_doubles(json_object_get(r, "bad_samples"),
	    &in->n_bad_samples);
	in->good_samples = f->endpoints[0];
	in->bad_samples = f->endpoints[1];
	if (json_object_get(r, "base") != NULL)
		fixture_side(json_object_get(r, "base"), &in->base,
		    &f->values[0]);
	if (json_object_get(r, "head") != NULL)
		fixture_side(json_object_get(r, "head"), &in->head,
		    &f->values[1]);
	fixture_lists(f);
}

static void
fixture_release(struct fixture *f)
{
	free(f->params);
	free(f->parents);
	free(f->good);
	free(f->values[0]);
	free(f->values[1]);
	free(f->endpoints[0]);
	free(f->endpoints[1]);
	free(f->samples);
	free(f->cands);
	free(f->log);
	json_decref(f->root);
}

/* ---- golden files ---- */


/*
 * The first differing line, like the top of a diff, into msg ("" when the
 * texts are equal), so that the caller can free everything before failing.
 */
static void
first_difference(char *msg, size_t len, const char *name, const char *want,
    const char *got)
{
	const char *w = want, *g = got;
	int line = 1;

	msg[0] = '\0';
	while (*w != '\0' && *w == *g) {
		if (*w == '\n')
			line++;
		w++;
		g++;
	}
	if (*w == '\0' && *g == '\0')
		return;
	while (w > want && w[-1] != '\n')
		w--, g--;
	snprintf(msg, len, "%s differs at line %d (REPORT_UPDATE_GOLDEN=1 "
	    "rewrites it):\n- %.*s\n+ %.*s", name, line, (int)strcspn(w, "\n"),
	    w, (int)strcspn(g, "\n"), g);
}

static void
check_golden(const char *input, const char *golden)
{
	static char msg[4096];
	struct fixture f;
	struct bd_error err;
	char *text = NULL, *path, *want;
	const char *update = getenv("REPORT_UPDATE_GOLDEN");
	int rc;

	fixture_load(&f, input);
	rc = report_render_text(&f.in, &text, &err);
	fixture_release(&f);
	cr_assert_eq(rc, 0, "%s: %s", input, err.msg);
	path = fixture_path(golden);
	if (update != NULL && strcmp(update, "1") == 0) {
		FILE *fp = fopen(path, "w");

		if (fp != NULL) {
			fputs(text, fp);
			fclose(fp);
			fprintf(stderr, "report: rewrote %s\n", path);
		}
	}
	want = tst_read_file(path);
	free(path);
	if (want != NULL)
		first_difference(msg, sizeof(msg), golden, want, text);
	free(want);
	free(text);
	cr_assert_not_null(want, "missing golden file %s", golden);
	cr_assert_str_empty(msg, "%s", msg);
}

Test(report, golden_culprit)
{
	check_golden("culprit.input.json", "culprit.txt");
}

Test(report, golden_inconclusive)
{
	check_golden("inconclusive.input.json", "inconclusive.txt");
}

Test(report, golden_not_reproduced)
{
	check_golden("not_reproduced.input.json", "not_reproduced.txt");
}

Test(report, golden_pass_fail)
{
	check_golden("pass_fail.input.json", "pass_fail.txt");
}

/* The whole report in ASCII mode is plain ASCII, plots included. */
Test(report, ascii_flag_gives_plain_ascii)
{
	struct fixture f;
	struct bd_error err;
	const unsigned char *p;
	char *text;

	fixture_load(&f, "culprit.input.json");
	f.in.flags |= REPORT_ASCII;
	cr_assert_eq(report_render_text(&f.in, &text, &err), 0, "%s", err.msg);
	for (p = (const unsigned char *)text; *p != '\0'; p++)
		cr_assert_lt(*p, 0x80, "non-ASCII byte at offset %td",
		    (const char *)p - text);
	cr_assert_not_null(strstr(text, "+-  2%"));
	free(text);
	fixture_release(&f);
}

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
	char *path = fixture_path("lkp-reference-rows.txt"), line[512];
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

/* ---- headline wording ---- */

/* A small culprit report of one metric with three runs a side. */
struct mini {
	struct report_input	in;
	struct report_value	base[3];
	struct report_value	head[3];
	const char		*good[1];
};

static void
mini_init(struct mini *m, const char *metric, double b, double h,
    enum report_direction dir)
{
	int i;

	memset(m, 0, sizeof(*m));
	report_input_init(&m->in);
	m->in.id = "7";
	m->in.benchmark = "bench";
	m->in.metric = metric;
	m->in.direction = dir;
	m->in.culprit = (struct report_commit){ .sha =
	    "6ccdcb6d3a741c4e005ca6ffd4a62ddf8b5bead3",
	    .subject = "mm, pcp: reduce detecting time" };
	m->good[0] = "v6.6";
	m->in.good_revs = m->good;
	m->in.n_good_revs = 1;
	m->in.bad_rev = "v6.7";
	for (i = 0; i < 3; i++) {
		/* Spread of +-0.1%: separated, no ± shown. */
		double f = 1 + (i - 1) * 1e-3;

		m->base[i] = (struct report_value){ metric, b * f };
		m->head[i] = (struct report_value){ metric, h * f };
	}
	m->in.base = (struct report_side){ .sha =
	    "1f4f7f0f8845dbac0123456789abcdef01234567", .values = m->base,
	    .n_values = 3, .runs = 3 };
	m->in.head = (struct report_side){ .sha = m->in.culprit.sha,
	    .values = m->head, .n_values = 3, .runs = 3 };
}

/* Renders m and expects its "noticed" sentence and subject. */
static void
expect_noticed(struct mini *m, const char *noticed, const char *subject_end)
{
	struct bd_error err;
	char *text, *subject;

	cr_assert_eq(report_render_text(&m->in, &text, &err), 0, "%s", err.msg);
	cr_expect_not_null(strstr(text, noticed), "want \"%s\" in:\n%.400s",
	    noticed, text);
	subject = report_subject(&m->in);
	cr_assert_not_null(subject);
	cr_expect_eq(strcmp(subject + strlen(subject) - strlen(subject_end),
	    subject_end), 0, "subject \"%s\"", subject);
	free(subject);
	free(text);
}

Test(report, headline_wording_as_references)
{
	struct mini m;

	/* "a 16.9% improvement of vm-scalability.throughput" */
	mini_init(&m, "vm-scalability.throughput", 1.1095e8, 1.297e8,
	    REPORT_HIGHER_IS_BETTER);
	expect_noticed(&m, "bisectd noticed a 16.9% improvement of "
	    "vm-scalability.throughput on:", "[mm, pcp] 6ccdcb6d3a: "
	    "vm-scalability.throughput 16.9% improvement");
	/* "a -4.7% regression of stress-ng.judy.ops_per_sec" */
	mini_init(&m, "stress-ng.judy.ops_per_sec", 2853, 2719,
	    REPORT_HIGHER_IS_BETTER);
	expect_noticed(&m, "noticed a -4.7% regression of "
	    "stress-ng.judy.ops_per_sec on:",
	    "stress-ng.judy.ops_per_sec -4.7% regression");
	/* Lower is better: a rise is a regression, a fall an improvement. */
	mini_init(&m, "fio.read_clat_mean_us", 100, 112,
	    REPORT_LOWER_IS_BETTER);
	expect_noticed(&m, "noticed a 12.0% regression of", "12.0% regression");
	mini_init(&m, "fio.read_clat_mean_us", 100, 90, REPORT_LOWER_IS_BETTER);
	expect_noticed(&m, "noticed a -10.0% improvement of",
	    "-10.0% improvement");
	mini_init(&m, "x.y", 100, 90, REPORT_DIRECTION_UNKNOWN);
	expect_noticed(&m, "noticed a -10.0% change of x.y", "-10.0% change");
	/* A percentage metric changes by points. */
	mini_init(&m, "mpstat.cpu.all.idle%", 30.09, 32.89,
	    REPORT_HIGHER_IS_BETTER);
	expect_noticed(&m, "noticed a 2.8 point improvement of "
	    "mpstat.cpu.all.idle%", "2.8 point improvement");
	/* "an" where the number is read eight..., eleven, eighteen. */
	mini_init(&m, "m.x", 100, 108.2, REPORT_HIGHER_IS_BETTER);
	expect_noticed(&m, "noticed an 8.2% improvement", "8.2% improvement");
	mini_init(&m, "m.x", 100, 118, REPORT_HIGHER_IS_BETTER);
	expect_noticed(&m, "noticed an 18.0% improvement", "18.0% improvement");
	mini_init(&m, "m.x", 100, 111.5, REPORT_HIGHER_IS_BETTER);
	expect_noticed(&m, "noticed an 11.5% improvement", "11.5% improvement");
	mini_init(&m, "m.x", 100, 101.8, REPORT_HIGHER_IS_BETTER);
	expect_noticed(&m, "noticed a 1.8% improvement", "1.8% improvement");
}

/* ---- plots ---- */

static char *
plot_text(const struct report_plot *p)
{
	char *buf = NULL;
	size_t len;
	FILE *fp = open_memstream(&buf, &len);

	cr_assert_not_null(fp);
	report_plot_write(fp, p);
	fclose(fp);
	return buf;
}

/* Splits text into at most max lines (pointers into text, NULs placed). */
static int
split_lines(char *text, char **lines, int max)
{
	int n = 0;
	char *nl;

	while (*text != '\0' && n < max) {
		lines[n++] = text;
		if ((nl = strchr(text, '\n')) == NULL)
			break;
		*nl = '\0';
		text = nl + 1;
	}
	return n;
}

Test(report, plot_frame_size_marks_and_legend)
{
	static const struct report_point pts[] = {
		{ 1, 0, REPORT_GOOD }, { 10, 100, REPORT_BAD },
		{ 5, 50, REPORT_UNCLASSIFIED }, { 7, NAN, REPORT_BAD },
	};
	struct report_plot p = { .title = "m, samples", .xlabel = "sample",
	    .pts = pts, .n = 4, .xmin = 1, .xmax = 10 };
	char *text = plot_text(&p), *lines[40], *top, *bottom;
	int n = split_lines(text, lines, 40), i;

	/* Title, 20 frame lines, the x axis and one legend line. */
	cr_assert_eq(n, 1 + REPORT_PLOT_HEIGHT + 2, "%d lines", n);
	for (i = 0; i < n; i++) {
		const unsigned char *c;

		cr_expect_leq(strlen(lines[i]), REPORT_PLOT_WIDTH, "line %d",
		    i);
		for (c = (const unsigned char *)lines[i]; *c; c++)
			cr_expect_lt(*c, 0x80, "line %d not ASCII", i);
	}
	top = strchr(lines[1], '+');
	bottom = strchr(lines[REPORT_PLOT_HEIGHT], '+');
	cr_assert_not_null(top);
	cr_assert_not_null(bottom);
	/* 100 is the top of the range, at the last column; 0 the bottom. */
	cr_expect_eq(top[strlen(top) - 2], 'O', "top: %s", lines[1]);
	cr_expect_eq(bottom[1], '*', "bottom: %s", lines[REPORT_PLOT_HEIGHT]);
	cr_expect_eq(strlen(lines[1]), REPORT_PLOT_WIDTH);
	/* 50 is half way: row 9.5 of 0..19 rounds to row 10. */
	cr_expect_not_null(strchr(lines[1 + 10], '?'), "%s", lines[11]);
	cr_expect_not_null(strstr(lines[n - 1], "[*] bisect-good sample"));
	cr_expect_not_null(strstr(lines[n - 1], "[O] bisect-bad sample"));
	cr_expect_not_null(strstr(lines[n - 1], "[?] unclassified sample"));
	cr_expect_null(strstr(lines[n - 1], "[#]"));
	cr_expect_not_null(strstr(lines[n - 2], "sample"));
	/* Tick labels: 100 on the top line, 0 on the bottom one. */
	cr_expect_eq(strncmp(lines[1], "100 +", 5), 0, "%s", lines[1]);
	cr_expect_eq(strncmp(lines[REPORT_PLOT_HEIGHT], "  0 +", 5), 0, "%s",
	    lines[REPORT_PLOT_HEIGHT]);
	free(text);
}

Test(report, plot_mixed_cells_marker_and_empty)
{
	static const struct report_point pts[] = {
		{ 3, 7, REPORT_GOOD }, { 3, 7, REPORT_BAD },
		{ 4, 7, REPORT_BAD },
	};
	struct report_plot p = { .title = "t", .xlabel = "x", .pts = pts,
	    .n = 3, .xmin = 0, .xmax = 8, .has_mark = true, .mark_x = 6,
	    .mark_label = "culprit, position 6" };
	char *text = plot_text(&p), *lines[40];
	int n, i, marked = 0;

	/* All values equal: the range is widened around them. */
	cr_expect_not_null(strstr(text, "#"), "%s", text);
	cr_expect_not_null(strstr(text, "[#] samples of different kinds"));
	cr_expect_not_null(strstr(text, "[:] culprit, position 6"));
	n = split_lines(text, lines, 40);
	/* The marker column runs through every inner frame line. */
	for (i = 2; i < n && i < REPORT_PLOT_HEIGHT; i++)
		marked += strchr(lines[i], ':') != NULL;
	cr_expect_eq(marked, REPORT_PLOT_HEIGHT - 2);
	free(text);
	p.n = 0;
	text = plot_text(&p);
	cr_expect_str_eq(text, "                                       t\n"
	    "(no samples)\n");
	free(text);
}

/* ---- JSON ---- */

static struct report_stats
stats_from_json(json_t *o)
{
	struct report_stats st = {
		.n = (size_t)json_integer_value(json_object_get(o, "n")),
		.mean = json_number_value(json_object_get(o, "mean")),
		.stddev = json_number_value(json_object_get(o, "stddev")),
		.min = json_number_value(json_object_get(o, "min")),
		.median = json_number_value(json_object_get(o, "median")),
		.max = json_number_value(json_object_get(o, "max")),
	};

	return st;
}

/*
 * Renders both forms of a fixture, parses the JSON text back, and checks
 * that every table row of the text is what the JSON's numbers format to.
 */
static json_t *
json_roundtrip(struct fixture *f, char **text, int *rows_checked)
{
	struct bd_error err;
	json_error_t jerr;
	json_t *o, *back, *rows, *r;
	char *dump, line[1024], want[1100];
	size_t i;

	cr_assert_eq(report_render_text(&f->in, text, &err), 0, "%s", err.msg);
	o = report_render_json(&f->in, &err);
	cr_assert_not_null(o, "%s", err.msg);
	dump = json_dumps(o, JSON_COMPACT);
	json_decref(o);
	back = json_loads(dump, 0, &jerr);
	cr_assert_not_null(back, "JSON does not parse: %s", jerr.text);
	free(dump);
	*rows_checked = 0;
	rows = json_object_get(json_object_get(back, "comparison"), "rows");
	json_array_foreach(rows, i, r) {
		struct report_row row = {
			.metric = json_string_value(json_object_get(r,
			    "metric")),
			.base = stats_from_json(json_object_get(r, "base")),
			.head = stats_from_json(json_object_get(r, "head")),
			.change = json_number_value(json_object_get(r,
			    "change")),
			.absolute = json_is_true(json_object_get(r,
			    "absolute")),
			.pass_fail = json_is_true(json_object_get(r,
			    "pass_fail")),
			.base_fails = (size_t)json_integer_value(
			    json_object_get(r, "base_fails")),
			.head_fails = (size_t)json_integer_value(
			    json_object_get(r, "head_fails")),
		};

		report_row_format(line, sizeof(line), &row,
		    f->in.flags & REPORT_ASCII);
		snprintf(want, sizeof(want), "\n%s\n", line);
		if (json_is_true(json_object_get(r, "changed")) ||
		    json_is_true(json_object_get(r, "headline"))) {
			cr_expect_not_null(strstr(*text, want),
			    "JSON row not in the text: %s", line);
			(*rows_checked)++;
		} else
			cr_expect_null(strstr(*text, want),
			    "unchanged row in the text: %s", line);
	}
	return back;
}

Test(report, json_culprit_carries_the_numbers)
{
	struct fixture f;
	json_t *o, *rep;
	char *text, *cmd;
	int rows;

	fixture_load(&f, "culprit.input.json");
	o = json_roundtrip(&f, &text, &rows);
	cr_expect_eq(rows, 20);
	cr_expect_str_eq(json_string_value(json_object_get(o, "kind")),
	    "culprit");
	cr_expect_str_eq(json_string_value(json_object_get(json_object_get(o,
	    "culprit"), "sha")), f.in.culprit.sha);
	cr_expect_str_eq(json_string_value(json_object_get(json_object_get(o,
	    "headline"), "text")), "16.9% improvement");
	cr_expect_not_null(strstr(text, json_string_value(json_object_get(o,
	    "subject"))));
	cr_expect_eq(json_integer_value(json_object_get(json_object_get(o,
	    "comparison"), "changed")), 20);
	cr_expect_eq(json_array_size(json_object_get(json_object_get(o,
	    "endpoints"), "good")), 6);
	cr_expect_eq(json_array_size(json_object_get(o, "bisection_samples")),
	    f.in.n_samples);
	rep = json_object_get(o, "reproduce");
	cmd = xstrdup(json_string_value(json_object_get(rep, "command")));
	cr_expect_not_null(strstr(text, cmd));
	cr_expect_str_eq(json_string_value(json_array_get(json_object_get(rep,
	    "argv"), 0)), "bisectctl");
	cr_expect_eq(json_array_size(json_object_get(rep, "bisect_log")),
	    f.in.n_bisect_log);
	free(cmd);
	free(text);
	json_decref(o);
	fixture_release(&f);
}

Test(report, json_other_kinds)
{
	static const char *const inputs[] = { "inconclusive.input.json",
	    "not_reproduced.input.json", "pass_fail.input.json" };
	static const int want_rows[] = { 4, 2, 1 };
	struct fixture f;
	json_t *o, *c;
	char *text;
	size_t i;
	int rows;

	for (i = 0; i < 3; i++) {
		fixture_load(&f, inputs[i]);
		o = json_roundtrip(&f, &text, &rows);
		cr_expect_eq(rows, want_rows[i], "%s: %d rows", inputs[i],
		    rows);
		if (f.in.kind == REPORT_INCONCLUSIVE) {
			c = json_object_get(o, "candidates");
			cr_expect_eq(json_array_size(c), f.in.n_candidates);
			cr_expect_float_eq(json_number_value(json_object_get(
			    json_array_get(c, 0), "probability")),
			    f.in.candidates[0].probability, 1e-12);
		}
		if (f.in.kind == REPORT_NOT_REPRODUCED)
			cr_expect_str_eq(json_string_value(json_object_get(o,
			    "kind")), "not_reproduced");
		free(text);
		json_decref(o);
		fixture_release(&f);
	}
}

/* A relative change from a zero base is infinite: "+inf%" and null. */
Test(report, infinite_change_is_null_in_json)
{
	struct mini m;
	struct bd_error err;
	json_t *o, *row;
	char *text;

	mini_init(&m, "m.count", 0, 5, REPORT_LOWER_IS_BETTER);
	cr_assert_eq(report_render_text(&m.in, &text, &err), 0, "%s", err.msg);
	cr_expect_not_null(strstr(text, "+inf% "), "%s", text);
	o = report_render_json(&m.in, &err);
	cr_assert_not_null(o);
	row = json_array_get(json_object_get(json_object_get(o, "comparison"),
	    "rows"), 0);
	cr_expect(json_is_null(json_object_get(row, "change")));
	json_decref(o);
	free(text);
}

/* ---- bad input ---- */

static void
expect_invalid(const struct report_input *in, const char *msg_part)
{
	struct bd_error err;
	char *text = (char *)"x";
	json_t *o;

	bd_error_clear(&err);
	cr_expect_eq(report_render_text(in, &text, &err), -EINVAL);
	cr_expect_null(text);
	cr_expect_not_null(strstr(err.msg, msg_part), "message \"%s\" lacks "
	    "\"%s\"", err.msg, msg_part);
	o = report_render_json(in, &err);
	cr_expect_null(o);
	json_decref(o);
	cr_expect_null(report_subject(in));
}

Test(report, bad_input_is_refused_with_a_message)
{
	struct report_candidate cand[2] = { { "a", NULL, 0.7 },
	    { "b", NULL, 0.6 } };
	struct report_sample smp = { "a", 50, 1, REPORT_GOOD };
	double ep[1] = { 1 };
	struct mini m;

	mini_init(&m, "m.x", 1, 2, REPORT_HIGHER_IS_BETTER);
	m.head[1].value = NAN;
	expect_invalid(&m.in, "m.x is not a finite number");

	mini_init(&m, "m.x", 1, 2, REPORT_HIGHER_IS_BETTER);
	m.in.culprit.sha = NULL;
	expect_invalid(&m.in, "culprit sha");

	mini_init(&m, "m.x", 1, 2, REPORT_HIGHER_IS_BETTER);
	m.head[0].metric = m.head[1].metric = m.head[2].metric = "m.other";
	expect_invalid(&m.in, "no samples of m.x");

	mini_init(&m, "m.x", 1, 2, REPORT_HIGHER_IS_BETTER);
	m.in.n_good_revs = 0;
	expect_invalid(&m.in, "good revision");

	mini_init(&m, "m.x", 1, 2, REPORT_HIGHER_IS_BETTER);
	m.in.samples = &smp;
	m.in.n_samples = 1;
	m.in.n_positions = 10;
	expect_invalid(&m.in, "position 50 outside 0..10");

	mini_init(&m, "m.x", 1, 2, REPORT_HIGHER_IS_BETTER);
	m.in.kind = REPORT_INCONCLUSIVE;
	m.in.good_samples = m.in.bad_samples = ep;
	m.in.n_good_samples = m.in.n_bad_samples = 1;
	expect_invalid(&m.in, "needs candidates");
	m.in.candidates = cand;
	m.in.n_candidates = 2;
	expect_invalid(&m.in, "add up to 1.3");

	mini_init(&m, "m.x", 1, 2, REPORT_HIGHER_IS_BETTER);
	m.in.kind = REPORT_NOT_REPRODUCED;
	expect_invalid(&m.in, "endpoint samples of m.x missing");

	mini_init(&m, "m.x", 1, 2, REPORT_HIGHER_IS_BETTER);
	m.in.confidence = 1.5;
	expect_invalid(&m.in, "confidence");
}

/* ---- reproduce section ---- */

Test(report, rerun_command_quotes_for_the_shell)
{
	static const char *const nasty[] = { "a b", "it's", "$(touch x)",
	    "`id`", "new\nline", "", "plain-1.2_x/y:z=w@v%+,", "~user",
	    "v6.1^", "*", NULL };
	char *argv[16], *joined, *cmd, *out, want[512] = "";
	size_t n = 0;
	int status;

	argv[n++] = (char *)"printf";
	argv[n++] = (char *)"[%s]";
	for (; nasty[n - 2] != NULL; n++) {
		argv[n] = (char *)nasty[n - 2];
		snprintf(want + strlen(want), sizeof(want) - strlen(want),
		    "[%s]", nasty[n - 2]);
	}
	joined = report_shell_join(argv, n);
	cr_expect_not_null(strstr(joined, " plain-1.2_x/y:z=w@v%+, "),
	    "safe words stay bare: %s", joined);
	xasprintf(&cmd, "%s", joined);
	{
		char *const sh[] = { (char *)"/bin/sh", (char *)"-c", cmd,
		    NULL };

		out = tst_run_capture(sh, &status);
	}
	cr_assert_not_null(out);
	cr_expect_eq(status, 0);
	cr_expect_str_eq(out, want);
	free(out);
	free(cmd);
	free(joined);
}

Test(report, rerun_argv_has_every_request_field)
{
	static const char *const good[] = { "v6.17", "v6.17-rc7" };
	struct mini m;
	char **av, *s;
	size_t n;

	mini_init(&m, "m.x", 1, 2, REPORT_HIGHER_IS_BETTER);
	m.in.good_revs = good;
	m.in.n_good_revs = 2;
	m.in.host_group = "icl 1s";
	m.in.target_confidence = 0.995;
	m.in.max_samples = 80;
	m.in.first_parent = true;
	av = report_rerun_argv(&m.in, &n);
	cr_assert_null(av[n]);
	s = report_shell_join(av, n);
	cr_expect_str_eq(s, "bisectctl bisect --good v6.17 --good v6.17-rc7 "
	    "--bad v6.7 --benchmark bench --metric m.x --group 'icl 1s' "
	    "--confidence 0.995 --max-samples 80 --first-parent");
	free(s);
	report_rerun_argv_free(av);
}

/* A narrow range at a large level still gets distinct tick labels. */
Test(report, plot_ticks_distinct_on_narrow_ranges)
{
	static const struct report_point pts[] = {
		{ 1, 123456789.1, REPORT_GOOD }, { 2, 123456789.3, REPORT_BAD },
	};
	struct report_plot p = { .pts = pts, .n = 2, .xmin = 1, .xmax = 2 };
	char *text = plot_text(&p), *lines[40], *labels[REPORT_PLOT_HEIGHT];
	int n = split_lines(text, lines, 40), i, j, nl = 0;

	cr_assert_geq(n, REPORT_PLOT_HEIGHT);
	for (i = 0; i < REPORT_PLOT_HEIGHT; i++) {
		char *plus = strchr(lines[i], '+'), *lab = lines[i];

		if (plus == NULL)
			continue;
		*plus = '\0';
		lab += strspn(lab, " ");
		if (*lab != '\0')
			labels[nl++] = lab;
	}
	cr_assert_geq(nl, 3, "%d tick labels", nl);
	for (i = 0; i < nl; i++)
		for (j = i + 1; j < nl; j++)
			cr_expect_str_neq(labels[i], labels[j]);
	free(text);
}
