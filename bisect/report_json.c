/* SPDX-License-Identifier: MIT */
/*
 * The report as JSON: the raw numbers behind every figure of the text
 * form (means, stddevs, changes), for tools and for `bisectctl report
 * --json`.  Non-finite numbers (an infinite %change) become null.
 */
#include <math.h>
#include <stdlib.h>

#include "bisect/report.h"
#include "common/xmalloc.h"

static const char *const report_kind_names[] = {
	[REPORT_CULPRIT] = "culprit",
	[REPORT_INCONCLUSIVE] = "inconclusive",
	[REPORT_NOT_REPRODUCED] = "not_reproduced",
};

static const char *const report_direction_names[] = {
	[REPORT_HIGHER_IS_BETTER] = "higher_is_better",
	[REPORT_LOWER_IS_BETTER] = "lower_is_better",
	[REPORT_PASS_FAIL] = "pass_fail",
	[REPORT_DIRECTION_UNKNOWN] = "unknown",
};

static const char *const report_class_names[] = {
	[REPORT_UNCLASSIFIED] = "unclassified",
	[REPORT_GOOD] = "good",
	[REPORT_BAD] = "bad",
};



/* A number, or null where JSON has none (an infinite %change). */
static json_t *
report_json_num(double v)
{
	return isfinite(v) ? json_real(v) : json_null();
}

/* Optional strings become null rather than being left out. */
static json_t *
report_json_str(const char *s)
{
	return s != NULL ? json_string(s) : json_null();
}

/*
 * The bisection id is an integer in every reply; the input keeps it as
 * text for the mail and the report's lines.  Anything but a decimal
 * number (a hand-written input) stays a string.
 */
static json_t *
report_json_id(const char *id)
{
	char *end;
	long long v;

	if (id == NULL)
		return json_null();
	v = strtoll(id, &end, 10);
	if (*id != '\0' && *end == '\0' && v > 0)
		return json_integer(v);
	return json_string(id);
}

/* Every summary figure, so a tool can recompute the text's columns. */
static json_t *
report_json_stats(const struct report_stats *st)
{
	return json_pack("{s:I, s:o, s:o, s:o, s:o, s:o, s:o}",
	    "n", (json_int_t)st->n, "mean", report_json_num(st->mean),
	    "stddev", report_json_num(st->stddev),
	    "stddev_percent", report_json_num(report_stddev_pct(st)),
	    "min", report_json_num(st->min),
	    "median", report_json_num(st->median),
	    "max", report_json_num(st->max));
}

/* One table row with the figures it was printed from. */
static json_t *
report_json_row(const struct report_row *r)
{
	json_t *o;

	o = json_pack("{s:s, s:b, s:b, s:b, s:b, s:o, s:o, s:o}",
	    "metric", r->metric, "headline", r->headline, "changed", r->changed,
	    "absolute", r->absolute, "pass_fail", r->pass_fail,
	    "change", report_json_num(r->change),
	    "base", report_json_stats(&r->base),
	    "head", report_json_stats(&r->head));
	if (r->swept)
		json_object_set_new(o, "swept", json_true());
	if (r->touched)
		json_object_set_new(o, "touched", json_true());
	if (r->pass_fail) {
		json_object_set_new(o, "base_fails",
		    json_integer((json_int_t)r->base_fails));
		json_object_set_new(o, "head_fails",
		    json_integer((json_int_t)r->head_fails));
	}
	return o;
}

/* Commit identity for mail and tools. */
static json_t *
report_json_commit(const struct report_commit *c)
{
	return json_pack("{s:s, s:o, s:o, s:o, s:o}", "sha", c->sha,
	    "subject", report_json_str(c->subject),
	    "author", report_json_str(c->author),
	    "committer", report_json_str(c->committer),
	    "date", report_json_str(c->date));
}

/* Raw endpoint samples, for plotting elsewhere. */
static json_t *
report_json_doubles(const double *v, size_t n)
{
	json_t *a = json_array();
	size_t i;

	for (i = 0; i < n; i++)
		json_array_append_new(a, json_real(v[i]));
	return a;
}

/* String lists (revisions, argv, bisect log) as JSON arrays. */
static json_t *
report_json_strings(const char *const *v, size_t n)
{
	json_t *a = json_array();
	size_t i;

	for (i = 0; i < n; i++)
		json_array_append_new(a, json_string(v[i]));
	return a;
}

/* All compared rows, changed or not, so tools can apply their own rule. */
static json_t *
report_json_table(const struct report_summary *ctx)
{
	const struct report_table *t = &ctx->table;
	json_t *rows = json_array();
	size_t i;

	for (i = 0; i < t->n_rows; i++)
		json_array_append_new(rows, report_json_row(&t->rows[i]));
	return json_pack("{s:o, s:o, s:I, s:I, s:o, s:I, s:I}",
	    "base", report_json_str(ctx->in->base.sha),
	    "head", report_json_str(ctx->in->head.sha),
	    "base_runs", (json_int_t)ctx->in->base.runs,
	    "head_runs", (json_int_t)ctx->in->head.runs, "rows", rows,
	    "changed", (json_int_t)t->n_changed,
	    "one_sided", (json_int_t)t->n_one_sided);
}

/* The bisection samples as plotted, with the engine's verdicts. */
static json_t *
report_json_samples(const struct report_input *in)
{
	json_t *a = json_array();
	size_t i;

	for (i = 0; i < in->n_samples; i++)
		json_array_append_new(a, json_pack("{s:o, s:I, s:f, s:s}",
		    "sha", report_json_str(in->samples[i].sha),
		    "position", (json_int_t)in->samples[i].position,
		    "value", in->samples[i].value,
		    "class", report_class_names[in->samples[i].cls]));
	return a;
}

/* The inconclusive candidate set with its masses. */
static json_t *
report_json_candidates(const struct report_input *in)
{
	json_t *a = json_array();
	size_t i;

	for (i = 0; i < in->n_candidates; i++)
		json_array_append_new(a, json_pack("{s:s, s:o, s:f}",
		    "sha", in->candidates[i].sha,
		    "subject", report_json_str(in->candidates[i].subject),
		    "probability", in->candidates[i].probability));
	return a;
}

/* One side's reproduce steps, as the script runs them. */
static json_t *
report_json_steps(const char *sha, const struct report_step *st, size_t n)
{
	json_t *a = json_array();
	size_t i;

	for (i = 0; i < n; i++)
		json_array_append_new(a, json_pack("{s:s, s:s?, s:s?, s:s}",
		    "name", st[i].name, "host", st[i].host, "workdir",
		    st[i].workdir, "command", st[i].command));
	return json_pack("{s:o, s:o}", "sha", report_json_str(sha), "steps",
	    a);
}

/*
 * The reproduce section as data: config, argv, command and bisect log,
 * and the standalone script with its steps for both sides.
 */
static json_t *
report_json_reproduce(const struct report_input *in)
{
	char **av, *cmd, *script;
	size_t ac;
	json_t *o;

	av = report_rerun_argv(in, &ac);
	cmd = report_shell_join(av, ac);
	o = json_pack("{s:o, s:o, s:s, s:o}",
	    "config", report_json_str(in->bench_config),
	    "argv", report_json_strings((const char *const *)av, ac),
	    "command", cmd,
	    "bisect_log", report_json_strings(in->bisect_log,
	    in->n_bisect_log));
	script = report_script(in);
	json_object_set_new(o, "script", report_json_str(script));
	free(script);
	json_object_set_new(o, "base", report_json_steps(in->base.sha,
	    in->repro_base, in->n_repro_base));
	json_object_set_new(o, "head", report_json_steps(in->kind ==
	    REPORT_CULPRIT ? in->culprit.sha : in->head.sha, in->repro_head,
	    in->n_repro_head));
	json_object_set_new(o, "build_inputs", report_json_strings(
	    in->build_inputs, in->n_build_inputs));
	free(cmd);
	report_rerun_argv_free(av);
	return o;
}

/* Builds the object from the same summary as the text. */
static json_t *
report_json_ctx(const struct report_summary *ctx)
{
	const struct report_input *in = ctx->in;
	json_t *o, *params = json_object(), *parents = json_array();
	char *subject = report_summary_subject(ctx);
	size_t i;

	for (i = 0; i < in->n_params; i++)
		json_object_set_new(params, in->params[i].key,
		    json_string(in->params[i].value));
	for (i = 0; i < in->n_parents; i++)
		json_array_append_new(parents,
		    report_json_commit(&in->parents[i]));
	o = json_pack("{s:s, s:o, s:s, s:s, s:o, s:o, s:s, s:s}",
	    "kind", report_kind_names[in->kind], "id", report_json_id(in->id),
	    "subject", subject, "benchmark", in->benchmark, "params", params,
	    "host_group", report_json_str(in->host_group),
	    "metric", in->metric,
	    "direction", report_direction_names[in->direction]);
	free(subject);
	json_object_set_new(o, "kconfig", report_json_str(in->kconfig));
	json_object_set_new(o, "compiler", report_json_str(in->compiler));
	json_object_set_new(o, "test_machine", report_json_str(in->machine));
	json_object_set_new(o, "branch", report_json_str(in->branch));
	json_object_set_new(o, "also_affects", report_also_json(ctx));
	json_object_set_new(o, "headline", json_pack("{s:o, s:s, s:s, s:o}",
	    "change", report_json_num(ctx->headline.change),
	    "word", ctx->word, "text", ctx->phrase,
	    "row", report_json_row(&ctx->headline)));
	if (in->kind == REPORT_CULPRIT) {
		json_object_set_new(o, "culprit",
		    report_json_commit(&in->culprit));
		json_object_set_new(o, "parents", parents);
	} else
		json_decref(parents);
	json_object_set_new(o, "good", report_json_strings(in->good_revs,
	    in->n_good_revs));
	json_object_set_new(o, "bad", json_string(in->bad_rev));
	json_object_set_new(o, "confidence", json_real(in->confidence));
	json_object_set_new(o, "target_confidence",
	    json_real(in->target_confidence));
	json_object_set_new(o, "total_samples",
	    json_integer((json_int_t)in->total_samples));
	json_object_set_new(o, "machine_seconds",
	    json_real(in->machine_seconds));
	json_object_set_new(o, "verdict_note",
	    report_json_str(in->verdict_note));
	if (in->sweep != NULL)
		json_object_set_new(o, "sweep", json_pack("{s:s, s:s?, s:s?, "
		    "s:I, s:o}", "name", in->sweep, "prev_ref",
		    in->sweep_prev_ref, "ref", in->sweep_ref, "reused_samples",
		    (json_int_t)in->reused_samples, "metrics",
		    report_json_strings(in->sweep_metrics,
		    in->n_sweep_metrics)));
	json_object_set_new(o, "drift_sd", in->drift_sd > 0 ?
	    json_real(in->drift_sd) : json_null());
	if (ctx->have_range)
		json_object_set_new(o, "endpoints", json_pack("{s:o, s:o, s:o}",
		    "range", report_json_row(&ctx->range),
		    "good", report_json_doubles(in->good_samples,
		    in->n_good_samples),
		    "bad", report_json_doubles(in->bad_samples,
		    in->n_bad_samples)));
	if (ctx->table.n_rows > 0)
		json_object_set_new(o, "comparison", report_json_table(ctx));
	if (in->kind == REPORT_INCONCLUSIVE) {
		json_object_set_new(o, "candidates",
		    report_json_candidates(in));
		json_object_set_new(o, "candidates_total",
		    json_integer((json_int_t)in->n_candidates_total));
	}
	json_object_set_new(o, "bisection_samples", report_json_samples(in));
	json_object_set_new(o, "n_positions",
	    json_integer((json_int_t)in->n_positions));
	json_object_set_new(o, "culprit_position",
	    json_integer((json_int_t)in->culprit_position));
	json_object_set_new(o, "reproduce", report_json_reproduce(in));
	if (in->verification != NULL)
		json_object_set_new(o, "verification",
		    report_verify_json(in));
	if (in->n_confirm > 0)
		json_object_set_new(o, "confirmation", report_confirm_json(in));
	if (in->n_fixup_lines > 0) {
		json_t *fx = json_array();
		size_t k;

		for (k = 0; k < in->n_fixup_lines; k++)
			json_array_append_new(fx,
			    report_json_str(in->fixup_lines[k]));
		json_object_set_new(o, "fixups", fx);
	}
	json_object_set_new(o, "touched_functions", report_touched_json(in));
	json_object_set_new(o, "branch", report_json_str(in->branch));
	json_object_set_new(o, "repo_url", report_json_str(in->repo_url));
	if (in->mail != NULL)
		json_object_set_new(o, "mail", report_mail_json(ctx));
	return o;
}

/* The JSON form for `bisectctl report --json` and the store. */
json_t *
report_render_json(const struct report_input *in, struct bd_error *err)
{
	struct report_summary ctx;
	json_t *o = NULL;

	if (report_summary_init(&ctx, in, err) == 0)
		o = report_json_ctx(&ctx);
	report_summary_release(&ctx);
	return o;
}
