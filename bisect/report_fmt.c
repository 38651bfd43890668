/* SPDX-License-Identifier: MIT */
/*
 * Number formatting for reports, derived from the 0-day reports in
 * ../shared/reference/ (lkp-tests' compare output):
 *
 *   means          |v| < 1000: two decimals (0.15, 54.43)
 *                  1000 <= |v| <= 1e8: an integer (881807)
 *                  |v| > 1e8: four significant digits (1.297e+08, 1.37e+09)
 *   %change        one decimal with a sign (+16.9%, -0.6), two significant
 *                  digits from 100000 on (+1.2e+05%)
 *   ±%stddev       a whole percent, truncated (±201%), shown from 2% on
 *
 * Two departures, both deliberate: integers are rounded where lkp
 * truncates (the references cannot tell the two apart), and a nonzero
 * mean below 0.005 keeps three significant digits (0.00123, 1e-07)
 * instead of printing a misleading 0.00.
 *
 * Also here: the change in words ("16.9% improvement"), the subject line,
 * and the shell-quoted bisectctl command of the reproduce section.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bisect/report.h"
#include "common/xmalloc.h"

/* Writes the name of a non-finite number, so no caller prints "nan%". */
static int
report_fmt_nonfinite(char *buf, size_t len, double v, const char *suffix)
{
	if (isfinite(v))
		return 0;
	if (isnan(v))
		snprintf(buf, len, "n/a");
	else
		snprintf(buf, len, "%sinf%s", v < 0 ? "-" : "+", suffix);
	return 1;
}

/* Means in the table, in lkp's three magnitudes. */
void
report_fmt_value(char *buf, size_t len, double v)
{
	double a = fabs(v);

	if (report_fmt_nonfinite(buf, len, v, ""))
		return;
	if (v == 0)
		v = 0;		/* no "-0.00" */
	if (a > 0 && a < 0.005)
		snprintf(buf, len, "%.3g", v);
	else if (a < 1000)
		snprintf(buf, len, "%.2f", v);
	else if (a > 1e8)
		snprintf(buf, len, "%.4g", v);
	else
		snprintf(buf, len, "%.0f", v);
}

/* The %change column: a percentage, or a plain delta for absolute metrics. */
void
report_fmt_change(char *buf, size_t len, double change, bool absolute)
{
	const char *unit = absolute ? "" : "%";

	if (report_fmt_nonfinite(buf, len, change, unit))
		return;
	if (change == 0)
		change = 0;
	if (fabs(change) < 100000)
		snprintf(buf, len, "%+.1f%s", change, unit);
	else
		snprintf(buf, len, "%+.2g%s", change, unit);
}

/* Noise below 2% is not worth a column entry, as in the references. */
void
report_fmt_stddev(char *buf, size_t len, double pct, bool ascii)
{
	long whole;

	if (!(pct >= 2) || !isfinite(pct)) {
		snprintf(buf, len, "      ");
		return;
	}
	whole = pct > 999999 ? 999999 : (long)pct;
	snprintf(buf, len, "%s%3ld%%", ascii ? "+-" : " \u00b1", whole);
}

/* Machine time reads better in hours and minutes than in seconds. */
void
report_fmt_duration(char *buf, size_t len, double seconds)
{
	long s, d, h, m;

	if (!isfinite(seconds) || seconds < 0)
		seconds = 0;
	s = lround(seconds);
	d = s / 86400;
	h = s / 3600 % 24;
	m = s / 60 % 60;
	s %= 60;
	if (d > 0)
		snprintf(buf, len, "%ldd %02ldh %02ldm", d, h, m);
	else if (h > 0)
		snprintf(buf, len, "%ldh %02ldm %02lds", h, m, s);
	else if (m > 0)
		snprintf(buf, len, "%ldm %02lds", m, s);
	else
		snprintf(buf, len, "%lds", s);
}

/*
 * Three significant digits read well (61.2%, 99.4%), but a confidence of
 * 0.99999 must never print as 100%: add digits until it does not.
 */
void
report_fmt_prob(char *buf, size_t len, double p)
{
	int prec;

	if (report_fmt_nonfinite(buf, len, p, "%"))
		return;
	for (prec = 3; prec < 12; prec++) {
		snprintf(buf, len, "%.*g%%", prec, 100 * p);
		if (p >= 1 || strcmp(buf, "100%") != 0)
			return;
	}
}

/* The direction turns a signed change into a verdict a reader can act on. */
const char *
report_change_word(const struct report_input *in, double change)
{
	if (change == 0 || isnan(change))
		return "change";
	switch (in->direction) {
	case REPORT_HIGHER_IS_BETTER:
		return change > 0 ? "improvement" : "regression";
	case REPORT_LOWER_IS_BETTER:
	case REPORT_PASS_FAIL:		/* more failures is worse */
		return change > 0 ? "regression" : "improvement";
	case REPORT_DIRECTION_UNKNOWN:
		break;
	}
	return "change";
}

/*
 * The change as lkp words it: the signed number without a plus,
 * "16.9% improvement", "-4.7% regression"; "2.8 point" for a percentage
 * metric and "50.0% failure rate" for pass/fail.
 */
void
report_change_phrase(char *buf, size_t len, const struct report_row *r,
    const char *word)
{
	char num[REPORT_FMT_MAX];
	const char *n;

	report_fmt_change(num, sizeof(num), r->change, r->absolute);
	n = num[0] == '+' ? num + 1 : num;
	if (r->pass_fail)
		snprintf(buf, len, "%s%% failure rate %s", n, word);
	else if (r->absolute)
		snprintf(buf, len, "%s point %s", n, word);
	else
		snprintf(buf, len, "%s %s", n, word);
}

/* "an" before a number read as eight..., eleven or eighteen. */
const char *
report_article(const char *phrase)
{
	size_t digits = strspn(phrase, "0123456789");

	if (phrase[0] == '8' || (digits == 2 &&
	    (strncmp(phrase, "11", 2) == 0 || strncmp(phrase, "18", 2) == 0)))
		return "an";
	return "a";
}

/* lkp's "[mm/page_alloc]": the subject's prefix up to ": ", if short. */
static int
report_subject_prefix(const char *subject)
{
	const char *colon;

	if (subject == NULL || (colon = strstr(subject, ": ")) == NULL ||
	    colon == subject || colon - subject > 40)
		return 0;
	return (int)(colon - subject);
}

/* lkp names every metric testcase.metric; a bare metric gets the prefix. */
void
report_metric_label(char *buf, size_t len, const char *benchmark,
    const char *metric)
{
	if (strchr(metric, '.') != NULL || benchmark == NULL)
		snprintf(buf, len, "%s", metric);
	else
		snprintf(buf, len, "%s.%s", benchmark, metric);
}

/*
 * Subjects follow lkp's "[branch] [prefix] sha: metric change" so mail
 * filters keep working.  A merge's own subject ("Merge branch ...") names
 * no subsystem, so a merge culprit takes its first parent's.
 */
char *
report_summary_subject(const struct report_summary *ctx)
{
	const struct report_input *in = ctx->in;
	const char *subj;
	char *s, *branch = NULL, metric[256];
	int plen;

	report_metric_label(metric, sizeof(metric), in->benchmark, in->metric);
	if (in->branch != NULL)
		xasprintf(&branch, "[%s] ", in->branch);
	switch (in->kind) {
	case REPORT_CULPRIT:
		subj = in->culprit.subject;
		plen = report_subject_prefix(subj);
		if (plen == 0 && in->n_parents > 1) {
			subj = in->parents[0].subject;
			plen = report_subject_prefix(subj);
		}
		xasprintf(&s, "%s%s%.*s%s%.10s: %s %s", branch ? branch : "",
		    plen ? "[" : "", plen, plen ? subj : "",
		    plen ? "] " : "", in->culprit.sha, metric, ctx->phrase);
		break;
	case REPORT_INCONCLUSIVE:
		xasprintf(&s, "%sbisection %s inconclusive: %s %s",
		    branch ? branch : "", in->id, metric, ctx->phrase);
		break;
	default:
		xasprintf(&s, "%sbisection %s: %s change not reproduced",
		    branch ? branch : "", in->id, metric);
		break;
	}
	free(branch);
	return s;
}

/* Characters that need no quoting in a POSIX shell word. */
static bool
report_shell_safe(const char *s)
{
	return *s != '\0' && strspn(s, "abcdefghijklmnopqrstuvwxyz"
	    "ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_./:=@%+,-") == strlen(s);
}

/*
 * Users paste the command into a shell, so every word must survive it
 * literally.
 */
char *
report_shell_join(char *const *argv, size_t argc)
{
	size_t i, len = 1;
	char *out, *o;
	const char *p;

	for (i = 0; i < argc; i++)
		len += 4 * strlen(argv[i]) + 3;
	o = out = xmalloc(len);
	for (i = 0; i < argc; i++) {
		if (i > 0)
			*o++ = ' ';
		if (report_shell_safe(argv[i])) {
			o = stpcpy(o, argv[i]);
			continue;
		}
		*o++ = '\'';
		for (p = argv[i]; *p != '\0'; p++) {
			if (*p == '\'')
				o = stpcpy(o, "'\\''");
			else
				*o++ = *p;
		}
		*o++ = '\'';
	}
	*o = '\0';
	return out;
}

/* An argument vector first, so tools can run it without a shell. */
char **
report_rerun_argv(const struct report_input *in, size_t *argc)
{
	char **av = xreallocarray(NULL, 2 * in->n_good_revs + 17, sizeof(*av));
	size_t n = 0, i;

	av[n++] = xstrdup("bisectctl");
	av[n++] = xstrdup("bisect");
	for (i = 0; i < in->n_good_revs; i++) {
		av[n++] = xstrdup("--good");
		av[n++] = xstrdup(in->good_revs[i]);
	}
	av[n++] = xstrdup("--bad");
	av[n++] = xstrdup(in->bad_rev);
	av[n++] = xstrdup("--benchmark");
	av[n++] = xstrdup(in->benchmark);
	av[n++] = xstrdup("--metric");
	av[n++] = xstrdup(in->metric);
	if (in->host_group != NULL) {
		av[n++] = xstrdup("--group");
		av[n++] = xstrdup(in->host_group);
	}
	if (in->target_confidence > 0) {
		av[n++] = xstrdup("--confidence");
		xasprintf(&av[n++], "%g", in->target_confidence);
	}
	if (in->max_samples > 0) {
		av[n++] = xstrdup("--max-samples");
		xasprintf(&av[n++], "%zu", in->max_samples);
	}
	if (in->first_parent)
		av[n++] = xstrdup("--first-parent");
	av[n] = NULL;
	*argc = n;
	return av;
}

/* Frees what report_rerun_argv() built. */
void
report_rerun_argv_free(char **av)
{
	size_t i;

	for (i = 0; av[i] != NULL; i++)
		free(av[i]);
	free(av);
}
