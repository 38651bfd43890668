/* SPDX-License-Identifier: MIT */
/*
 * Reports of finished bisections as text: the change in words, the
 * culprit (or the candidates, or the endpoint distributions), the
 * comparison table, plots and the reproduce section.  The JSON form
 * (report_json.c) starts from the same struct report_summary.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bisect/report.h"
#include "common/xmalloc.h"

/* Zeroed fields mean "absent" everywhere, so a caller sets only what it has. */
void
report_input_init(struct report_input *in)
{
	memset(in, 0, sizeof(*in));
	in->culprit_position = -1;
	in->target_confidence = 0.99;
	in->direction = REPORT_HIGHER_IS_BETTER;
}

/*
 * A metric without a name or a NaN sample would poison every figure of its
 * row.
 */
static int
report_check_values(const struct report_side *s, const char *what,
    struct bd_error *err)
{
	size_t i;

	if (s->n_values > 0 && s->values == NULL)
		return bd_error_set(err, -EINVAL, "%s: values missing", what);
	for (i = 0; i < s->n_values; i++) {
		if (s->values[i].metric == NULL || *s->values[i].metric == '\0')
			return bd_error_set(err, -EINVAL,
			    "%s: sample %zu has no metric name", what, i);
		if (!isfinite(s->values[i].value))
			return bd_error_set(err, -EINVAL,
			    "%s: sample %zu of %s is not a finite number",
			    what, i, s->values[i].metric);
	}
	if (s->n_values > 0 && s->sha == NULL)
		return bd_error_set(err, -EINVAL, "%s: commit missing", what);
	return 0;
}

/* Endpoint samples feed the headline and the plots; they must be numbers. */
static int
report_check_array(const double *v, size_t n, const char *what,
    struct bd_error *err)
{
	size_t i;

	if (n > 0 && v == NULL)
		return bd_error_set(err, -EINVAL, "%s: values missing", what);
	for (i = 0; i < n; i++) {
		if (!isfinite(v[i]))
			return bd_error_set(err, -EINVAL,
			    "%s: sample %zu is not a finite number", what, i);
	}
	return 0;
}

/* Plot marks and positions index tables, so they are checked before use. */
static int
report_check_samples(const struct report_input *in, struct bd_error *err)
{
	const struct report_sample *s;
	size_t i;

	if (in->n_samples > 0 && in->samples == NULL)
		return bd_error_set(err, -EINVAL, "bisection samples missing");
	for (i = 0; i < in->n_samples; i++) {
		s = &in->samples[i];
		if (!isfinite(s->value))
			return bd_error_set(err, -EINVAL, "bisection sample "
			    "%zu is not a finite number", i);
		if ((unsigned)s->cls > REPORT_BAD)
			return bd_error_set(err, -EINVAL, "bisection sample "
			    "%zu has an unknown class %d", i, (int)s->cls);
		if (in->n_positions > 0 &&
		    (s->position < 0 || s->position > in->n_positions))
			return bd_error_set(err, -EINVAL, "bisection sample "
			    "%zu at position %ld outside 0..%ld", i,
			    s->position, in->n_positions);
	}
	return 0;
}

/* Each kind of report needs its own parts; say which one is missing. */
static int
report_check_kind(const struct report_input *in, struct bd_error *err)
{
	double sum = 0;
	size_t i;

	switch (in->kind) {
	case REPORT_CULPRIT:
		if (in->culprit.sha == NULL)
			return bd_error_set(err, -EINVAL,
			    "culprit sha missing");
		if (in->n_parents > 0 && in->parents == NULL)
			return bd_error_set(err, -EINVAL, "parents missing");
		for (i = 0; i < in->n_parents; i++) {
			if (in->parents[i].sha == NULL)
				return bd_error_set(err, -EINVAL,
				    "parent %zu has no sha", i);
		}
		if (in->base.n_values == 0 || in->head.n_values == 0)
			return bd_error_set(err, -EINVAL, "no samples at the "
			    "culprit or its parent");
		return 0;
	case REPORT_INCONCLUSIVE:
		if (in->n_candidates == 0 || in->candidates == NULL)
			return bd_error_set(err, -EINVAL, "an inconclusive "
			    "report needs candidates");
		for (i = 0; i < in->n_candidates; i++) {
			double p = in->candidates[i].probability;

			if (in->candidates[i].sha == NULL ||
			    !(p >= 0 && p <= 1))
				return bd_error_set(err, -EINVAL, "candidate "
				    "%zu needs a sha and a probability in "
				    "[0, 1]", i);
			sum += p;
		}
		if (sum > 1 + 1e-9)
			return bd_error_set(err, -EINVAL, "candidate "
			    "probabilities add up to %g, over 1", sum);
		/* FALLTHROUGH */
	case REPORT_NOT_REPRODUCED:
		if (in->n_good_samples == 0 || in->n_bad_samples == 0)
			return bd_error_set(err, -EINVAL, "endpoint samples of "
			    "%s missing", in->metric);
		return 0;
	}
	return bd_error_set(err, -EINVAL, "unknown report kind %d",
	    (int)in->kind);
}

/* Bad input gets a message naming the field, never a half-written report. */
int
report_validate(const struct report_input *in, struct bd_error *err)
{
	size_t i;
	int rc;

	if (in->id == NULL || in->benchmark == NULL || in->metric == NULL ||
	    in->bad_rev == NULL)
		return bd_error_set(err, -EINVAL, "id, benchmark, metric and "
		    "bad revision are required");
	if ((unsigned)in->direction > REPORT_DIRECTION_UNKNOWN)
		return bd_error_set(err, -EINVAL, "unknown direction %d",
		    (int)in->direction);
	if (in->n_good_revs == 0 || in->good_revs == NULL)
		return bd_error_set(err, -EINVAL, "no good revision");
	for (i = 0; i < in->n_good_revs; i++) {
		if (in->good_revs[i] == NULL)
			return bd_error_set(err, -EINVAL, "good revision %zu "
			    "missing", i);
	}
	for (i = 0; i < in->n_params; i++) {
		if (in->params[i].key == NULL || in->params[i].value == NULL)
			return bd_error_set(err, -EINVAL, "parameter %zu "
			    "incomplete", i);
	}
	for (i = 0; i < in->n_bisect_log; i++) {
		if (in->bisect_log[i] == NULL)
			return bd_error_set(err, -EINVAL, "bisect log line %zu "
			    "missing", i);
	}
	for (i = 0; i < in->n_sweep_metrics; i++) {
		if (in->sweep_metrics[i] == NULL)
			return bd_error_set(err, -EINVAL, "sweep metric %zu "
			    "missing", i);
	}
	if ((rc = report_tested_validate(in, err)) != 0)
		return rc;
	if (in->reused_samples > in->total_samples)
		return bd_error_set(err, -EINVAL, "more reused samples than "
		    "samples");
	if (!(in->confidence >= 0 && in->confidence <= 1) ||
	    !(in->target_confidence >= 0 && in->target_confidence <= 1))
		return bd_error_set(err, -EINVAL, "confidence outside [0, 1]");
	if (!(in->machine_seconds >= 0) || !isfinite(in->machine_seconds))
		return bd_error_set(err, -EINVAL, "machine time is not a "
		    "finite number of seconds");
	if (!(in->min_change >= 0))
		return bd_error_set(err, -EINVAL, "negative minimum change");
	if (!(in->drift_sd >= 0) || !isfinite(in->drift_sd))
		return bd_error_set(err, -EINVAL, "drift is not a finite size");
	if ((rc = report_check_values(&in->base, "base", err)) != 0 ||
	    (rc = report_check_values(&in->head, "head", err)) != 0 ||
	    (rc = report_check_array(in->good_samples, in->n_good_samples,
	    "good endpoint", err)) != 0 ||
	    (rc = report_check_array(in->bad_samples, in->n_bad_samples,
	    "bad endpoint", err)) != 0 ||
	    (rc = report_check_samples(in, err)) != 0)
		return rc;
	return report_check_kind(in, err);
}

/* Text and JSON must agree, so both start from this one computation. */
int
report_summary_init(struct report_summary *ctx, const struct report_input *in,
    struct bd_error *err)
{
	int rc;

	memset(ctx, 0, sizeof(*ctx));
	ctx->in = in;
	if ((rc = report_validate(in, err)) != 0)
		return rc;
	if (in->base.n_values > 0 || in->head.n_values > 0) {
		if ((rc = report_table_build(in, &ctx->table, err)) != 0)
			return rc;
		report_touched_sort(in, &ctx->table);
	}
	if (in->n_good_samples > 0 && in->n_bad_samples > 0) {
		report_row_compute(&ctx->range, in, in->metric,
		    in->good_samples, in->n_good_samples, in->bad_samples,
		    in->n_bad_samples);
		ctx->have_range = true;
	}
	/* validate() guarantees the headline row or the endpoints. */
	ctx->headline = in->kind == REPORT_CULPRIT ? ctx->table.rows[0] :
	    ctx->range;
	ctx->word = report_change_word(in, ctx->headline.change);
	report_change_phrase(ctx->phrase, sizeof(ctx->phrase), &ctx->headline,
	    ctx->word);
	return 0;
}

/* The table is the only part of a summary that owns memory. */
void
report_summary_release(struct report_summary *ctx)
{
	report_table_release(&ctx->table);
}

/* The daemon needs the subject for mail headers without rendering the body. */
char *
report_subject(const struct report_input *in)
{
	struct report_summary ctx;
	char *s;

	if (report_summary_init(&ctx, in, NULL) != 0) {
		report_summary_release(&ctx);
		return NULL;
	}
	s = report_summary_subject(&ctx);
	report_summary_release(&ctx);
	return s;
}

/* One line per commit, sha and subject, as lkp prints "commit:". */
static void
report_write_commit(FILE *fp, const char *label,
    const struct report_commit *c)
{
	fprintf(fp, "%s: %s", label, c->sha);
	if (c->subject != NULL)
		fprintf(fp, " (\"%s\")", c->subject);
	fprintf(fp, "\n");
}

/* The request's revisions as given, so a reader can find them again. */
static void
report_write_endpoints(FILE *fp, const struct report_input *in)
{
	size_t i;

	for (i = 0; i < in->n_good_revs; i++)
		fprintf(fp, "good: %s\n", in->good_revs[i]);
	fprintf(fp, "bad: %s\n", in->bad_rev);
}

/* What ran where, in lkp's "testcase / parameters" layout. */
static void
report_write_testcase(FILE *fp, const struct report_input *in)
{
	size_t i;

	fprintf(fp, "testcase: %s\n", in->benchmark);
	report_tested_write(fp, in);
	if (in->host_group != NULL)
		fprintf(fp, "host group: %s\n", in->host_group);
	if (in->n_params > 0) {
		fprintf(fp, "parameters:\n\n");
		for (i = 0; i < in->n_params; i++)
			fprintf(fp, "\t%s: %s\n", in->params[i].key,
			    in->params[i].value);
	}
	fprintf(fp, "\n");
}

/*
 * The change across the whole range and the culprit's share of it: a
 * commit that explains only part of the range's change is worth knowing
 * about (the usual question on a 0-day report is "what about the rest of
 * the series?").
 */
/*
 * The culprit's share as the verification measured it (the one the
 * sub-range threshold uses), so that the report states one share per
 * culprit: NAN when the verification has none for it.
 */
static double
report_verified_share(const struct report_input *in)
{
	const struct report_verification *v = in->verification;
	size_t i;

	if (v == NULL || in->culprit.sha == NULL)
		return NAN;
	for (i = 0; i < v->n_culprits; i++)
		if (v->culprits[i].sha != NULL &&
		    strcmp(v->culprits[i].sha, in->culprit.sha) == 0)
			return v->culprits[i].share;
	return NAN;
}

static void
report_write_range(FILE *fp, const struct report_summary *ctx)
{
	char phrase[128];
	double total, share;

	if (!ctx->have_range)
		return;
	report_change_phrase(phrase, sizeof(phrase), &ctx->range,
	    report_change_word(ctx->in, ctx->range.change));
	fprintf(fp, "whole range: %s from good to bad", phrase);
	total = ctx->range.head.mean - ctx->range.base.mean;
	share = report_verified_share(ctx->in);
	if (!isfinite(share) && total != 0)
		share = (ctx->headline.head.mean - ctx->headline.base.mean) /
		    total;
	if (isfinite(share) && !ctx->headline.pass_fail)
		fprintf(fp, "; this commit accounts for %.0f%% of it",
		    100 * share);
	fprintf(fp, "\n");
}

/* What the verdict rests on: confidence, samples and machine time. */
static void
report_write_bisection(FILE *fp, const struct report_summary *ctx)
{
	const struct report_input *in = ctx->in;
	char p[REPORT_FMT_MAX], t[REPORT_FMT_MAX], d[REPORT_FMT_MAX];

	report_fmt_prob(p, sizeof(p), in->confidence);
	report_fmt_prob(t, sizeof(t), in->target_confidence);
	report_fmt_duration(d, sizeof(d), in->machine_seconds);
	fprintf(fp, "bisection: %s\n", in->id);
	if (in->sweep != NULL)
		fprintf(fp, "sweep: %s, a change from %s to %s\n", in->sweep,
		    in->sweep_prev_ref ? in->sweep_prev_ref : "its previous ref",
		    in->sweep_ref ? in->sweep_ref : "its new ref");
	if (in->kind == REPORT_CULPRIT) {
		report_write_endpoints(fp, in);
		fprintf(fp, "confidence: %s that %.10s is the first commit "
		    "with the change (target %s)\n", p, in->culprit.sha, t);
	}
	if (in->sweep != NULL && in->reused_samples > 0)
		fprintf(fp, "cost: %zu samples, %zu of them reused from sweep "
		    "%s, %s of machine time\n", in->total_samples,
		    in->reused_samples, in->sweep, d);
	else
		fprintf(fp, "cost: %zu samples, %s of machine time\n",
		    in->total_samples, d);
	if (in->kind == REPORT_CULPRIT)
		report_write_range(fp, ctx);
	if (in->verdict_note != NULL)
		fprintf(fp, "note: %s\n", in->verdict_note);
	if (in->drift_sd > 0)
		fprintf(fp, "drift: the test machine drifted by %.1f noise sd "
		    "during the bisection; the values were adjusted for it\n",
		    in->drift_sd);
	fprintf(fp, "\n");
}

/* An inconclusive bisection still narrows the range; list what is left. */
static void
report_write_candidates(FILE *fp, const struct report_input *in)
{
	char p[REPORT_FMT_MAX], t[REPORT_FMT_MAX];
	double sum = 0;
	size_t i, others;

	for (i = 0; i < in->n_candidates; i++)
		sum += in->candidates[i].probability;
	report_fmt_prob(p, sizeof(p), sum);
	report_fmt_prob(t, sizeof(t), in->target_confidence);
	fprintf(fp, "No commit reached the target confidence of %s. The change "
	    "is most likely in\none of these %zu commits, %s together:\n\n",
	    t, in->n_candidates, p);
	fprintf(fp, "   probability  commit\n");
	for (i = 0; i < in->n_candidates; i++) {
		report_fmt_prob(p, sizeof(p), in->candidates[i].probability);
		fprintf(fp, "%14s  %.12s", p, in->candidates[i].sha);
		if (in->candidates[i].subject != NULL)
			fprintf(fp, " (\"%s\")", in->candidates[i].subject);
		fprintf(fp, "\n");
	}
	others = in->n_candidates_total > in->n_candidates ?
	    in->n_candidates_total - in->n_candidates : 0;
	if (others > 0) {
		report_fmt_prob(p, sizeof(p), sum < 1 ? 1 - sum : 0);
		fprintf(fp, "  (%zu other candidate%s hold%s %s)\n", others,
		    others == 1 ? "" : "s", others == 1 ? "s" : "", p);
	}
	fprintf(fp, "\n");
}

/*
 * Every summary figure of one endpoint on one line, for side-by-side
 * reading.
 */
static void
report_write_dist_row(FILE *fp, const char *label,
    const struct report_stats *st)
{
	char v[5][REPORT_FMT_MAX];

	report_fmt_value(v[0], sizeof(v[0]), st->mean);
	report_fmt_value(v[1], sizeof(v[1]), st->stddev);
	report_fmt_value(v[2], sizeof(v[2]), st->min);
	report_fmt_value(v[3], sizeof(v[3]), st->median);
	report_fmt_value(v[4], sizeof(v[4]), st->max);
	fprintf(fp, "%-8s %5zu %11s %11s %7.1f%% %11s %11s %11s\n", label,
	    st->n, v[0], v[1], report_stddev_pct(st), v[2], v[3], v[4]);
}

/* Both endpoint distributions, for a change that did not reproduce. */
static void
report_write_distributions(FILE *fp, const struct report_summary *ctx)
{
	const struct report_row *r = &ctx->range;
	char ch[REPORT_FMT_MAX];

	fprintf(fp, "The endpoints' samples of %s:\n\n", ctx->in->metric);
	fprintf(fp, "endpoint     n        mean      stddev  stddev%%"
	    "         min      median         max\n");
	report_write_dist_row(fp, "good", &r->base);
	report_write_dist_row(fp, "bad", &r->head);
	report_fmt_change(ch, sizeof(ch), r->change, r->absolute);
	fprintf(fp, "\nchange of the means: %s; the samples %s\n\n", ch,
	    r->changed ? "separate by the table's rule" : "overlap");
}

/*
 * The run is the unit: where runs printed several values of the metric,
 * a reader must know that each point is a run's aggregate, and where the
 * raw values are.
 */
static void
report_write_run_note(FILE *fp, const struct report_input *in)
{
	unsigned lo = 0, hi = 0, k;
	size_t i;

	for (i = 0; i < in->n_samples; i++) {
		k = in->samples[i].nvalues ? in->samples[i].nvalues : 1;
		lo = lo == 0 || k < lo ? k : lo;
		hi = k > hi ? k : hi;
	}
	if (hi <= 1)
		return;
	fprintf(fp, "Each point is one run: the %s of its ", in->run_aggregate ?
	    in->run_aggregate : "mean");
	if (lo == hi)
		fprintf(fp, "%u values", hi);
	else
		fprintf(fp, "%u to %u values", lo, hi);
	fprintf(fp, " of %s (one per iteration; `bisectctl samples %s` "
	    "lists them).\n\n", in->metric, in->id ? in->id : "ID");
}

/*
 * The samples behind the verdict, drawn so that a mail reader can judge the
 * noise.
 */
static void
report_write_plots(FILE *fp, const struct report_input *in)
{
	struct report_point *pts;
	struct report_plot p;
	char title[256], xlabel[128], mark[64];
	size_t i, n = in->n_samples + in->n_good_samples + in->n_bad_samples;

	pts = xreallocarray(NULL, n ? n : 1, sizeof(*pts));
	report_write_run_note(fp, in);
	if (in->n_samples > 0) {
		for (i = 0; i < in->n_samples; i++)
			pts[i] = (struct report_point){ (double)(i + 1),
			    in->samples[i].value, in->samples[i].cls };
		snprintf(title, sizeof(title), "%s, bisection samples in the "
		    "order taken", in->metric);
		p = (struct report_plot){ .title = title, .xlabel = "sample",
		    .pts = pts, .n = in->n_samples, .xmin = 1,
		    .xmax = (double)in->n_samples };
		report_plot_write(fp, &p);
		fprintf(fp, "\n");
	}
	if (in->n_samples > 0 && in->n_positions > 0) {
		for (i = 0; i < in->n_samples; i++)
			pts[i].x = (double)in->samples[i].position;
		snprintf(title, sizeof(title), "%s, bisection samples by "
		    "commit position", in->metric);
		snprintf(xlabel, sizeof(xlabel), "position (0 good end, %ld "
		    "bad end)", in->n_positions);
		snprintf(mark, sizeof(mark), "culprit, position %ld",
		    in->culprit_position);
		p = (struct report_plot){ .title = title, .xlabel = xlabel,
		    .pts = pts, .n = in->n_samples, .xmin = 0,
		    .xmax = (double)in->n_positions,
		    .has_mark = in->culprit_position >= 0,
		    .mark_x = (double)in->culprit_position,
		    .mark_label = mark };
		report_plot_write(fp, &p);
		fprintf(fp, "\n");
	}
	if (in->n_good_samples + in->n_bad_samples > 0) {
		for (i = 0; i < in->n_good_samples; i++)
			pts[i] = (struct report_point){ (double)(i + 1),
			    in->good_samples[i], REPORT_GOOD };
		for (i = 0; i < in->n_bad_samples; i++)
			pts[in->n_good_samples + i] = (struct report_point){
			    (double)(i + 1), in->bad_samples[i], REPORT_BAD };
		snprintf(title, sizeof(title), "%s, samples at the good and "
		    "bad endpoints", in->metric);
		p = (struct report_plot){ .title = title,
		    .xlabel = "sample at each endpoint", .pts = pts,
		    .n = in->n_good_samples + in->n_bad_samples, .xmin = 1,
		    .xmax = (double)(in->n_good_samples > in->n_bad_samples ?
		    in->n_good_samples : in->n_bad_samples) };
		report_plot_write(fp, &p);
		fprintf(fp, "\n");
	}
	free(pts);
}

/* Writes text with every line indented by eight spaces, as lkp does. */
static void
report_write_indented(FILE *fp, const char *text)
{
	const char *nl;

	while (*text != '\0') {
		nl = strchr(text, '\n');
		if (nl == NULL)
			nl = text + strlen(text);
		if (nl > text)
			fprintf(fp, "        %.*s", (int)(nl - text), text);
		fprintf(fp, "\n");
		text = *nl ? nl + 1 : nl;
	}
}

/* Everything needed to run the same bisection again, ready to paste. */
static void
report_write_reproduce(FILE *fp, const struct report_input *in)
{
	char **av, *cmd, *script;
	size_t ac, i;

	fprintf(fp, "To reproduce:\n\n");
	if ((script = report_script(in)) != NULL) {
		fprintf(fp, "        # without bisectd: save as repro.sh, run "
		    "with TREE=/path/to/linux sh repro.sh\n");
		report_write_indented(fp, script);
		fprintf(fp, "\n");
		free(script);
	} else if (in->bench_config != NULL) {
		fprintf(fp, "        # the benchmark, as configured in "
		    "bisectd.conf\n");
		report_write_indented(fp, in->bench_config);
		fprintf(fp, "\n");
	}
	av = report_rerun_argv(in, &ac);
	cmd = report_shell_join(av, ac);
	fprintf(fp, "        # run the same bisection again\n");
	fprintf(fp, "        %s\n\n", cmd);
	free(cmd);
	report_rerun_argv_free(av);
	if (in->n_bisect_log > 0) {
		fprintf(fp, "        # the bisection's steps, for `git bisect "
		    "replay FILE`\n");
		for (i = 0; i < in->n_bisect_log; i++)
			fprintf(fp, "        %s\n", in->bisect_log[i]);
		fprintf(fp, "\n");
	}
}

/* The first sentence says what happened, as the 0-day reports do. */
static void
report_write_lead(FILE *fp, const struct report_summary *ctx)
{
	const struct report_input *in = ctx->in;
	const struct report_row *h = &ctx->headline;
	char fails[96] = "", metric[256];
	size_t i;

	report_metric_label(metric, sizeof(metric), in->benchmark, in->metric);

	if (h->pass_fail)
		snprintf(fails, sizeof(fails), " (fail:runs %zu:%zu -> "
		    "%zu:%zu)", h->base_fails, h->base.n, h->head_fails,
		    h->head.n);
	switch (in->kind) {
	case REPORT_CULPRIT:
		fprintf(fp, "bisectd noticed %s %s of %s%s on:\n\n",
		    report_article(ctx->phrase), ctx->phrase, metric,
		    fails);
		report_write_commit(fp, "commit", &in->culprit);
		if (in->repo_url != NULL)
			fprintf(fp, "%s\n", in->repo_url);
		if (in->culprit.author != NULL)
			fprintf(fp, "author: %s\n", in->culprit.author);
		if (in->culprit.committer != NULL)
			fprintf(fp, "committer: %s\n", in->culprit.committer);
		if (in->culprit.date != NULL)
			fprintf(fp, "date: %s\n", in->culprit.date);
		for (i = 0; i < in->n_parents; i++)
			report_write_commit(fp, "parent", &in->parents[i]);
		break;
	case REPORT_INCONCLUSIVE:
		fprintf(fp, "bisectd noticed %s %s of %s%s\nbetween the "
		    "commits below, but could not isolate the commit that made "
		    "it:\n\n", report_article(ctx->phrase), ctx->phrase,
		    metric, fails);
		report_write_endpoints(fp, in);
		break;
	case REPORT_NOT_REPRODUCED:
		fprintf(fp, "bisectd could not reproduce a change of %s "
		    "between:\n\n", metric);
		report_write_endpoints(fp, in);
		break;
	}
	fprintf(fp, "\n");
}

/*
 * Sections in the order of the 0-day reports: change, culprit, details,
 * plots.
 */
static void
report_write_ctx(FILE *fp, const struct report_summary *ctx)
{
	const struct report_input *in = ctx->in;
	char *subject = report_summary_subject(ctx);
	size_t i;

	fprintf(fp, "%s\n\n", subject);
	free(subject);
	report_verify_write_flags(fp, in);
	report_write_lead(fp, ctx);
	report_confirm_write_headline(fp, in);
	report_mail_write_tags(fp, ctx);
	report_write_testcase(fp, in);
	report_also_write(fp, ctx);
	report_write_bisection(fp, ctx);
	if (in->kind == REPORT_INCONCLUSIVE)
		report_write_candidates(fp, in);
	if (in->n_fixup_lines > 0) {
		fprintf(fp, "Fix-ups:\n");
		for (i = 0; i < in->n_fixup_lines; i++)
			fprintf(fp, "  %s\n", in->fixup_lines[i]);
		fprintf(fp, "\n");
	}
	report_verify_write(fp, in);
	report_confirm_write(fp, in);
	if (in->kind == REPORT_NOT_REPRODUCED)
		report_write_distributions(fp, ctx);
	report_touched_write(fp, ctx);
	if (ctx->table.n_rows > 0) {
		fprintf(fp, "Details are as below:\n");
		fprintf(fp, "-------------------------------------------------"
		    "------------------------------------------------->\n\n");
		report_table_write(fp, in, &ctx->table);
		fprintf(fp, "\n");
	}
	report_write_plots(fp, in);
	report_write_reproduce(fp, in);
	report_mail_write_regzbot(fp, ctx);
	fprintf(fp, "--\nbisectd, bisection %s\n", in->id);
}

/* Validates first so that a bad input writes nothing to fp. */
static int
report_write_text(const struct report_input *in, FILE *fp,
    struct bd_error *err)
{
	struct report_summary ctx;
	int rc;

	if ((rc = report_summary_init(&ctx, in, err)) == 0)
		report_write_ctx(fp, &ctx);
	report_summary_release(&ctx);
	return rc;
}

/*
 * A string for the store and the hook; open_memstream keeps one writer.
 * Subjects and authors come from commits, and the text goes to mail and
 * terminals, so its controls other than newline and tab are shown as '?'.
 */
int
report_render_text(const struct report_input *in, char **out,
    struct bd_error *err)
{
	size_t len;
	FILE *fp;
	int rc;

	*out = NULL;
	if ((fp = open_memstream(out, &len)) == NULL)
		return bd_error_set(err, -ENOMEM, "open_memstream failed");
	rc = report_write_text(in, fp, err);
	fclose(fp);
	if (rc != 0) {
		free(*out);
		*out = NULL;
	} else
		bd_utf8_text(*out);
	return rc;
}
