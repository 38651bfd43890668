/* SPDX-License-Identifier: MIT */
/*
 * Tests of the report module on whole reports: golden reports for every
 * kind, the ASCII mode, the headline wording, the JSON form, refused input
 * and the reproduce section.  Number formatting and the formulas are in
 * report_format_test.c, plots in report_plot_test.c.
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
#include "tests/support/report_fixture.h"
#include "tests/support/tst.h"

TestSuite(report, .fini = tst_leak_check);

/* ---- golden files ---- */

#define check_golden report_fixture_golden

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

/* Config, compiler, test machine, n per side and the reproduce script. */
Test(report, golden_tested)
{
	check_golden("tested.input.json", "tested.txt");
}

/* A merge culprit with a bare metric name, on a tree's branch. */
Test(report, golden_merge)
{
	check_golden("merge.input.json", "merge.txt");
}

/* A sweep-started bisection lists what else changed over its tags. */
Test(report, golden_sweep_also_affects)
{
	check_golden("sweep_also.input.json", "sweep_also.txt");
}

/* The whole report in ASCII mode is plain ASCII, plots included. */
Test(report, ascii_flag_gives_plain_ascii)
{
	struct report_fixture f;
	struct bd_error err;
	const unsigned char *p;
	char *text;

	report_fixture_load(&f, "culprit.input.json");
	f.in.flags |= REPORT_ASCII;
	cr_assert_eq(report_render_text(&f.in, &text, &err), 0, "%s", err.msg);
	for (p = (const unsigned char *)text; *p != '\0'; p++)
		cr_assert_lt(*p, 0x80, "non-ASCII byte at offset %td",
		    (const char *)p - text);
	cr_assert_not_null(strstr(text, "+-  2%"));
	free(text);
	report_fixture_release(&f);
}

/*
 * Points are runs: where a run printed many values of the metric, the
 * report says each point is their aggregate and where the raw ones are;
 * with one value a run it says nothing.
 */
Test(report, a_run_of_many_values_is_one_point_and_says_so)
{
	struct report_fixture f;
	struct bd_error err;
	char *text, *want;
	size_t i;

	report_fixture_load(&f, "culprit.input.json");
	cr_assert_eq(report_render_text(&f.in, &text, &err), 0, "%s", err.msg);
	cr_assert_null(strstr(text, "Each point is one run"), "%s", text);
	free(text);
	for (i = 0; i < f.in.n_samples; i++)
		f.samples[i].nvalues = 200;
	f.in.run_aggregate = "median";
	cr_assert_eq(report_render_text(&f.in, &text, &err), 0, "%s", err.msg);
	xasprintf(&want, "Each point is one run: the median of its 200 values "
	    "of %s (one per iteration; `bisectctl samples %s` lists them).",
	    f.in.metric, f.in.id);
	cr_assert_not_null(strstr(text, want), "%s", text);
	free(want);
	free(text);
	report_fixture_release(&f);
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

/*
 * A culprit whose subject carries an escape sequence, a CR and a C1
 * control: the text for mail and terminals shows each as '?', keeps its
 * lines, and the subject line stays one line.
 */
Test(report, a_hostile_commit_subject_leaves_no_control_in_the_text)
{
	struct mini m;
	struct bd_error err;
	char *text;

	mini_init(&m, "ops", 100, 90, REPORT_HIGHER_IS_BETTER);
	m.in.culprit.subject = "mm\x1b[2J: fix\r\nBcc: x \xc2\x9b" "1m";
	cr_assert_eq(report_render_text(&m.in, &text, &err), 0, "%s", err.msg);
	tst_assert_no_controls("the text report", text, 1);
	cr_expect_eq(strncmp(text, "[mm?[2J] 6ccdcb6d3a: bench.ops", 30), 0,
	    "subject line: %.80s", text);
	cr_expect_not_null(strstr(text, "(\"mm?[2J: fix?\nBcc: x ?1m\")"),
	    "%s", text);
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
json_roundtrip(struct report_fixture *f, char **text, int *rows_checked)
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
	struct report_fixture f;
	json_t *o, *rep;
	char *text, *cmd;
	int rows;

	report_fixture_load(&f, "culprit.input.json");
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
	report_fixture_release(&f);
}

/* A string member of a member of o, or NULL. */
static const char *
jpath(json_t *o, const char *a, const char *b)
{
	return json_string_value(json_object_get(b ? json_object_get(o, a) :
	    o, b ? b : a));
}

/*
 * Every field of what was tested and how to redo it is in the JSON, and
 * the script there is the text's, line for line.
 */
Test(report, json_says_what_was_tested_and_carries_the_script)
{
	struct report_fixture f;
	json_t *o, *rep, *steps;
	char *text, *line, *save = NULL, *script;
	int rows;

	report_fixture_load(&f, "tested.input.json");
	o = json_roundtrip(&f, &text, &rows);
	cr_expect_str_eq(jpath(o, "kconfig", NULL), "x86_64-rhel-9.4");
	cr_expect_str_eq(jpath(o, "compiler", NULL), "gcc-14");
	cr_expect_str_eq(jpath(o, "test_machine", NULL), f.in.machine);
	cr_expect_str_eq(jpath(o, "params", "runtime"), "300s");
	cr_expect_str_eq(jpath(o, "branch", NULL), "linux-next:master");
	cr_expect_eq(json_integer_value(json_object_get(json_object_get(o,
	    "comparison"), "base_runs")), 6);
	cr_expect_eq(json_integer_value(json_object_get(json_object_get(o,
	    "comparison"), "head_runs")), 6);
	rep = json_object_get(o, "reproduce");
	cr_expect_eq(json_array_size(json_object_get(rep, "build_inputs")), 2);
	steps = json_object_get(json_object_get(rep, "head"), "steps");
	cr_expect_eq(json_array_size(steps), 3);
	cr_expect_str_eq(jpath(json_array_get(steps, 0), "host", NULL), "bld1");
	cr_expect_str_eq(jpath(rep, "head", "sha"), f.in.culprit.sha);
	cr_expect_str_eq(jpath(rep, "base", "sha"), f.in.base.sha);
	cr_assert_not_null(jpath(rep, "script", NULL));
	script = xstrdup(jpath(rep, "script", NULL));
	for (line = strtok_r(script, "\n", &save); line != NULL;
	    line = strtok_r(NULL, "\n", &save))
		cr_expect_not_null(strstr(text, line), "not in the text: %s",
		    line);
	free(script);
	cr_expect_eq(json_array_size(json_object_get(o, "also_affects")), 0);
	free(text);
	json_decref(o);
	report_fixture_release(&f);
}

/* The also-affects entries as data, with lkp's words for the change. */
Test(report, json_sweep_lists_what_else_changed)
{
	struct report_fixture f;
	json_t *o, *a;
	char *text;
	int rows;

	report_fixture_load(&f, "sweep_also.input.json");
	o = json_roundtrip(&f, &text, &rows);
	a = json_object_get(o, "also_affects");
	/* The third has no change of its own and no row: left out. */
	cr_assert_eq(json_array_size(a), 2);
	cr_expect_str_eq(jpath(json_array_get(a, 1), "benchmark", NULL),
	    "stress-ng");
	cr_expect_str_eq(jpath(json_array_get(a, 1), "text", NULL),
	    "-6.6% regression");
	cr_expect_str_eq(jpath(json_array_get(a, 1), "params", "fs"), "btrfs");
	cr_expect_str_eq(jpath(json_array_get(a, 0), "sweep", NULL), "next-vm");
	/* No change of its own: the table's, parent to culprit. */
	cr_expect_str_eq(jpath(json_array_get(a, 0), "text", NULL),
	    "17.3% improvement");
	cr_expect_str_eq(jpath(json_array_get(a, 0), "measured", NULL),
	    "culprit");
	cr_expect_not_null(strstr(text, "| testcase: change | stress-ng: "
	    "stress-ng.ops_per_sec -6.6% regression"), "%s", text);
	free(text);
	json_decref(o);
	report_fixture_release(&f);
}

/*
 * A merge's own subject names no subsystem: the subject takes its first
 * parent's; a bare metric is named testcase.metric.
 */
Test(report, merge_subject_takes_the_first_parents_subsystem)
{
	struct report_fixture f;
	char *s;

	report_fixture_load(&f, "merge.input.json");
	s = report_subject(&f.in);
	cr_expect_str_eq(s, "[linux:master] [mm/rmap] 6698721815: "
	    "vm-scalability.throughput 16.9% improvement");
	free(s);
	f.in.n_parents = 1;
	s = report_subject(&f.in);
	cr_expect_str_eq(s, "[linux:master] 6698721815: "
	    "vm-scalability.throughput 16.9% improvement");
	free(s);
	report_fixture_release(&f);
}

Test(report, json_other_kinds)
{
	static const char *const inputs[] = { "inconclusive.input.json",
	    "not_reproduced.input.json", "pass_fail.input.json" };
	static const int want_rows[] = { 4, 2, 1 };
	struct report_fixture f;
	json_t *o, *c;
	char *text;
	size_t i;
	int rows;

	for (i = 0; i < 3; i++) {
		report_fixture_load(&f, inputs[i]);
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
		report_fixture_release(&f);
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
	struct report_sample smp = { "a", 50, 1, REPORT_GOOD, 1 };
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

/* Drift the engine found is one line of the text and one JSON field. */
Test(report, drift_is_said_in_text_and_json)
{
	struct report_fixture f;
	struct bd_error err;
	char *text, *plain;
	json_t *j;

	report_fixture_load(&f, "culprit.input.json");
	cr_assert_eq(report_render_text(&f.in, &plain, &err), 0, "%s", err.msg);
	cr_assert_null(strstr(plain, "drift"), "no drift, no line");
	j = report_render_json(&f.in, &err);
	cr_assert_not_null(j, "%s", err.msg);
	cr_assert(json_is_null(json_object_get(j, "drift_sd")));
	json_decref(j);
	f.in.drift_sd = 1.75;
	cr_assert_eq(report_render_text(&f.in, &text, &err), 0, "%s", err.msg);
	cr_assert_not_null(strstr(text, "drift: the test machine drifted by "
	    "1.8 noise sd during the bisection"), "%s", text);
	j = report_render_json(&f.in, &err);
	cr_assert_not_null(j, "%s", err.msg);
	cr_assert_float_eq(json_real_value(json_object_get(j, "drift_sd")),
	    1.75, 1e-12);
	json_decref(j);
	f.in.drift_sd = NAN;
	cr_assert_eq(report_validate(&f.in, &err), -EINVAL);
	free(text);
	free(plain);
	report_fixture_release(&f);
}
