/* SPDX-License-Identifier: MIT */
/*
 * The report tests' fixture loader: JSON files mirroring struct
 * report_input, so that each golden report has a readable input.
 */
#include <criterion/criterion.h>
#include <math.h>
#include <stdlib.h>
#include <stdio.h>
#include <string.h>

#include <jansson.h>

#include "bisect/report.h"
#include "common/xmalloc.h"
#include "tests/support/report_fixture.h"
#include "tests/support/tst.h"

/* Fixtures live in the source tree, wherever the tests run from. */
char *
report_fixture_path(const char *name)
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
fixture_array(struct report_fixture *f, const char *key, size_t size,
    void **out, size_t *n)
{
	json_t *a = json_object_get(f->root, key);

	*n = json_array_size(a);
	*out = xcalloc(*n + 1, size);
	return a;
}

/* Lists of structs, each entry a JSON array of its fields in order. */
static void
fixture_lists(struct report_fixture *f)
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
		    json_array_get(v, 3)), classes, 3),
		    (unsigned)json_integer_value(json_array_get(v, 4)) };
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

/* One side's reproduce steps: arrays of [name, host, workdir, command]. */
static struct report_step *
fixture_steps(json_t *a, size_t *n)
{
	struct report_step *st = xcalloc(json_array_size(a) + 1, sizeof(*st));
	json_t *v;
	size_t i;

	json_array_foreach(a, i, v)
		st[i] = (struct report_step){ json_string_value(json_array_get(v,
		    0)), json_string_value(json_array_get(v, 1)),
		    json_string_value(json_array_get(v, 2)),
		    json_string_value(json_array_get(v, 3)) };
	*n = json_array_size(a);
	return st;
}

/*
 * What was tested, the reproduce steps, the sweep and the also-affects
 * entries ({sweep, benchmark, metric, change, direction, machine,
 * params: [[k, v]...]}).
 */
static void
fixture_tested(struct report_fixture *f)
{
	static const char *const dirs[] = { "higher_is_better",
	    "lower_is_better", "pass_fail", "unknown" };
	struct report_input *in = &f->in;
	json_t *r = f->root, *a, *v, *p;
	size_t i, k;

	in->kconfig = jstr(r, "kconfig");
	in->compiler = jstr(r, "compiler");
	in->machine = jstr(r, "test_machine");
	in->sweep = jstr(r, "sweep");
	in->sweep_prev_ref = jstr(r, "sweep_prev_ref");
	in->sweep_ref = jstr(r, "sweep_ref");
	in->reused_samples = (size_t)json_integer_value(json_object_get(r,
	    "reused_samples"));
	f->sweep_metrics = fixture_strings(json_object_get(r, "sweep_metrics"),
	    &in->n_sweep_metrics);
	in->sweep_metrics = f->sweep_metrics;
	f->steps[0] = fixture_steps(json_object_get(r, "repro_base"),
	    &in->n_repro_base);
	f->steps[1] = fixture_steps(json_object_get(r, "repro_head"),
	    &in->n_repro_head);
	in->repro_base = f->steps[0];
	in->repro_head = f->steps[1];
	f->build_inputs = fixture_strings(json_object_get(r, "build_inputs"),
	    &in->n_build_inputs);
	in->build_inputs = f->build_inputs;
	a = json_object_get(r, "also");
	in->n_also = json_array_size(a);
	f->also = xcalloc(in->n_also + 1, sizeof(*f->also));
	f->also_params = xcalloc(in->n_also + 1, sizeof(*f->also_params));
	json_array_foreach(a, i, v) {
		p = json_object_get(v, "params");
		f->also_params[i] = xcalloc(json_array_size(p) + 1,
		    sizeof(**f->also_params));
		for (k = 0; k < json_array_size(p); k++)
			f->also_params[i][k] = (struct report_param){
			    json_string_value(json_array_get(json_array_get(p,
			    k), 0)), json_string_value(json_array_get(
			    json_array_get(p, k), 1)) };
		f->also[i] = (struct report_also){ .sweep = jstr(v, "sweep"),
		    .benchmark = jstr(v, "benchmark"),
		    .metric = jstr(v, "metric"),
		    .change = json_is_number(json_object_get(v, "change")) ?
		    json_number_value(json_object_get(v, "change")) : NAN,
		    .direction = (enum report_direction)name_index(jstr(v,
		    "direction"), dirs, 4), .machine = jstr(v, "test_machine"),
		    .params = f->also_params[i], .n_params = json_array_size(p) };
	}
	in->also = f->also;
}

/* The culprit's touched functions and the mail, where the file has them. */
static void
fixture_mail(struct report_fixture *f)
{
	struct report_input *in = &f->in;
	struct report_mail *m = &f->mail;
	json_t *o = json_object_get(f->root, "mail");

	f->touched = fixture_strings(json_object_get(f->root, "touched"),
	    &in->n_touched);
	in->touched = f->touched;
	if (o == NULL)
		return;
	m->message_id = jstr(o, "message_id");
	m->in_reply_to = jstr(o, "in_reply_to");
	m->regzbot = json_is_true(json_object_get(o, "regzbot"));
	m->commit_url = jstr(o, "commit_url");
	f->mail_lists[0] = fixture_strings(json_object_get(o, "trailers"),
	    &m->n_trailers);
	f->mail_lists[1] = fixture_strings(json_object_get(o, "to"), &m->n_to);
	f->mail_lists[2] = fixture_strings(json_object_get(o, "cc"), &m->n_cc);
	m->trailers = f->mail_lists[0];
	m->to = f->mail_lists[1];
	m->cc = f->mail_lists[2];
	in->mail = m;
}

/* Rows measured on other host groups; null numbers are NAN. */
static void
fixture_confirm(struct report_fixture *f)
{
	json_t *a = json_object_get(f->root, "confirm"), *o;
	struct report_confirm *r;
	size_t i;

	if (json_array_size(a) == 0)
		return;
	f->confirm = calloc(json_array_size(a), sizeof(*f->confirm));
	cr_assert_not_null(f->confirm);
	json_array_foreach(a, i, o) {
		r = &f->confirm[i];
		r->group = jstr(o, "group");
		r->machine = jstr(o, "machine");
		r->own = json_is_true(json_object_get(o, "own"));
		r->runs = (size_t)json_integer_value(json_object_get(o,
		    "runs"));
		r->effect.verdict = (enum confirm_verdict)json_integer_value(
		    json_object_get(o, "verdict"));
		r->effect.change = json_is_number(json_object_get(o, "change")) ?
		    json_number_value(json_object_get(o, "change")) : NAN;
		r->effect.lo = json_is_number(json_object_get(o, "low")) ?
		    json_number_value(json_object_get(o, "low")) : NAN;
		r->effect.hi = json_is_number(json_object_get(o, "high")) ?
		    json_number_value(json_object_get(o, "high")) : NAN;
		r->effect.parent = r->effect.culprit = NAN;
	}
	f->in.confirm = f->confirm;
	f->in.n_confirm = json_array_size(a);
}

/* Every field of struct report_input has a JSON twin, checked as read. */
void
report_fixture_load(struct report_fixture *f, const char *name)
{
	static const char *const kinds[] = { "culprit", "inconclusive",
	    "not_reproduced" };
	static const char *const dirs[] = { "higher_is_better",
	    "lower_is_better", "pass_fail", "unknown" };
	struct report_input *in = &f->in;
	char *path = report_fixture_path(name);
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
	fixture_tested(f);
	fixture_mail(f);
	fixture_confirm(f);
}

/* The arrays were allocated here, the strings belong to the JSON. */
void
report_fixture_release(struct report_fixture *f)
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
	free(f->steps[0]);
	free(f->steps[1]);
	free(f->build_inputs);
	for (size_t i = 0; f->also_params != NULL && i < f->in.n_also; i++)
		free(f->also_params[i]);
	free(f->also_params);
	free(f->also);
	free(f->sweep_metrics);
	free(f->touched);
	free(f->confirm);
	free(f->mail_lists[0]);
	free(f->mail_lists[1]);
	free(f->mail_lists[2]);
	json_decref(f->root);
}


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

/* Renders input and compares the text with the golden file. */
void
report_fixture_golden(const char *input, const char *golden)
{
	static char msg[4096];
	struct report_fixture f;
	struct bd_error err;
	char *text = NULL, *path, *want;
	const char *update = getenv("REPORT_UPDATE_GOLDEN");
	int rc;

	report_fixture_load(&f, input);
	rc = report_render_text(&f.in, &text, &err);
	report_fixture_release(&f);
	cr_assert_eq(rc, 0, "%s: %s", input, err.msg);
	path = report_fixture_path(golden);
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
