/* SPDX-License-Identifier: MIT */
/*
 * What was tested, how to redo it and what else changed: the report's
 * parts that come from the configuration, the hosts' descriptions and the
 * other sweeps, gathered for bisect/report.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "common/xmalloc.h"
#include "daemon/reporter_tested.h"
#include "remote/quote.h"
#include "sched/confirm.h"
#include "store/store.h"

/* Keeps s until the release; returns it. */
static const char *
rt_keep(struct reporter_tested *t, char *s)
{
	t->strings = xreallocarray(t->strings, t->nstrings + 1,
	    sizeof(*t->strings));
	t->strings[t->nstrings++] = s;
	return s;
}

/* The metric's configured direction in the report's words. */
enum report_direction
reporter_direction(const struct config_metric *m)
{
	if (m == NULL)
		return REPORT_DIRECTION_UNKNOWN;
	if (m->kind == CONFIG_METRIC_PASS_FAIL)
		return REPORT_PASS_FAIL;
	return m->direction == CONFIG_HIGHER_IS_BETTER ?
	    REPORT_HIGHER_IS_BETTER : REPORT_LOWER_IS_BETTER;
}

/* The benchmark's params as pairs; the config check made them valid. */
static struct report_param *
rt_params(struct reporter_tested *t, const struct config_benchmark *bc,
    size_t *n)
{
	struct report_param *p = NULL;
	const char *s = bc->params, *k, *v;
	size_t kl, vl;

	*n = 0;
	while (s != NULL && config_params_next(&s, &k, &kl, &v, &vl) > 0) {
		p = xreallocarray(p, *n + 1, sizeof(*p));
		p[*n].key = rt_keep(t, xstrndup(k, kl));
		p[(*n)++].value = rt_keep(t, xstrndup(v, vl));
	}
	return p;
}

/*
 * The test machine: what the hosts said about themselves, each different
 * answer once.  NULL when none has answered (or no describe is set).
 */
static const char *
rt_machine(struct reporter_tested *t, struct store *st,
    const struct config_benchmark *bc, const char *const *hosts,
    size_t nhosts)
{
	struct bd_error err;
	char *out, *all = NULL, *next;
	size_t i;

	if (bc->describe == NULL)
		return NULL;
	for (i = 0; i < nhosts; i++) {
		if (store_host_describe_get(st, hosts[i], bc->describe, &out,
		    &err) != 0)
			continue;
		if (all == NULL)
			all = out;
		else if (strstr(all, out) == NULL) {
			xasprintf(&next, "%s; %s", all, out);
			free(all);
			free(out);
			all = next;
		} else
			free(out);
	}
	return all != NULL ? rt_keep(t, all) : NULL;
}

/* The group's hosts of a role, in file order, into a new array. */
static const char **
rt_group_hosts(const struct config *cfg, const char *group, unsigned role,
    size_t *n)
{
	const char **v = xcalloc(cfg->nhosts + 1, sizeof(*v));
	size_t i;

	*n = 0;
	for (i = 0; i < cfg->nhosts; i++)
		if (strcmp(cfg->hosts[i].group, group) == 0 &&
		    (cfg->hosts[i].roles & role))
			v[(*n)++] = cfg->hosts[i].name;
	return v;
}

/* The first host of group with role, or NULL (a lab's group). */
static const struct config_host *
rt_first_host(const struct config *cfg, const char *group, unsigned role)
{
	size_t i;

	for (i = 0; i < cfg->nhosts; i++)
		if (strcmp(cfg->hosts[i].group, group) == 0 &&
		    (cfg->hosts[i].roles & role))
			return &cfg->hosts[i];
	return NULL;
}

/*
 * One command as bisectd runs it on h: placeholders shell-quoted, the
 * artifact path as the step computes it.  NULL when a placeholder has no
 * value there.
 */
static char *
rt_expand(const char *tmpl, const struct config_benchmark *bc,
    const struct config_host *h, const char *sha, enum quote_mode mode)
{
	struct quote_vars v;
	struct bd_error err;
	char *art = NULL, *out = NULL;

	memset(&v, 0, sizeof(v));
	v.commit = sha;
	v.workdir = h->workdir;
	v.host = h->name;
	v.run_id = "repro";
	if (bc->artifact != NULL && quote_expand(bc->artifact, &v, QUOTE_RAW,
	    &art, &err) != 0)
		art = NULL;
	v.artifact = art;
	if (quote_expand(tmpl, &v, mode, &out, &err) != 0)
		out = NULL;
	free(art);
	return out;
}

/* The benchmark's steps for one commit, in the order a run takes them. */
static struct report_step *
rt_steps(struct reporter_tested *t, const struct config *cfg,
    const struct config_benchmark *bc, const char *group,
    const char *test_host, const char *sha, size_t *n)
{
	const struct config_host *build, *test;
	struct report_step *s;
	char *cmd, *path;
	struct {
		const char *name;
		const char *tmpl;
		int on_build;
	} steps[] = {
		{ "build", bc->build, 1 },
		{ "install", bc->install, 0 },
		{ "reboot", bc->reboot, 0 },
		{ "run", bc->run, 0 },
		{ "collect", bc->collect, 0 },
	};
	size_t i;

	*n = 0;
	s = xcalloc(sizeof(steps) / sizeof(steps[0]) + 1, sizeof(*s));
	build = rt_first_host(cfg, config_build_group(cfg, group),
	    CONFIG_ROLE_BUILD);
	test = test_host ? config_host_find(cfg, test_host) : NULL;
	if (test == NULL)
		test = rt_first_host(cfg, group, CONFIG_ROLE_TEST);
	if (sha == NULL || test == NULL)
		return s;
	for (i = 0; i < sizeof(steps) / sizeof(steps[0]); i++) {
		const struct config_host *h = steps[i].on_build ? build : test;

		if (steps[i].tmpl == NULL || h == NULL ||
		    (cmd = rt_expand(steps[i].tmpl, bc, h, sha,
		    QUOTE_SHELL)) == NULL)
			continue;
		s[*n] = (struct report_step){ steps[i].name, h->name,
		    h->workdir, rt_keep(t, cmd) };
		(*n)++;
	}
	if (bc->result_file != NULL && (path = rt_expand(bc->result_file, bc,
	    test, sha, QUOTE_RAW)) != NULL) {
		cmd = quote_shell(path);
		free(path);
		xasprintf(&path, "cat -- %s", cmd);
		free(cmd);
		s[*n] = (struct report_step){ "collect", test->name,
		    test->workdir, rt_keep(t, path) };
		(*n)++;
	}
	return s;
}

/* The walk over one sweep's rows, looking for changes on the tag pair. */
struct rt_walk {
	struct reporter_tested	*t;
	struct report_input	*in;
	struct store		*st;
	const struct config	*cfg;
	const struct config_sweep *w;
};

/* Whether the entry is listed already (a change is seen by later rows). */
static int
rt_also_known(const struct reporter_tested *t, const char *sweep,
    const char *metric)
{
	size_t i;

	for (i = 0; i < t->nalso; i++)
		if (strcmp(t->also[i].sweep, sweep) == 0 &&
		    strcmp(t->also[i].metric, metric) == 0)
			return 1;
	return 0;
}

/* One entry of the table: metric of benchmark on group, seen by sweep. */
static void
rt_also_add(struct rt_walk *wk, const char *sweep, const char *benchmark,
    const char *group, const char *metric, double change)
{
	const struct config_benchmark *bc = config_benchmark_find(wk->cfg,
	    benchmark);
	struct reporter_tested *t = wk->t;
	struct report_also *a;
	const char **hosts;
	size_t nhosts;

	if (bc == NULL)
		return;
	t->also = xreallocarray(t->also, t->nalso + 1, sizeof(*t->also));
	a = &t->also[t->nalso++];
	memset(a, 0, sizeof(*a));
	a->sweep = rt_keep(t, xstrdup(sweep));
	a->benchmark = rt_keep(t, xstrdup(bc->name));
	a->metric = rt_keep(t, xstrdup(metric));
	a->change = change;
	a->direction = reporter_direction(config_metric_find(bc, metric));
	hosts = rt_group_hosts(wk->cfg, group, CONFIG_ROLE_TEST, &nhosts);
	a->machine = rt_machine(t, wk->st, bc, hosts, nhosts);
	free(hosts);
	a->params = rt_params(t, bc, &a->n_params);
	rt_keep(t, (char *)a->params);
}

/* A compared row: its metrics that changed exactly over the tag pair. */
static int
rt_also_row(void *arg, const struct store_sweep_ref *r)
{
	struct rt_walk *wk = arg;
	const struct report_input *in = wk->in;
	const char *name, *before, *after;
	json_t *res, *m;
	size_t i;

	if (r->result == NULL || (res = json_loads(r->result, 0, NULL)) ==
	    NULL)
		return 0;
	json_array_foreach(json_object_get(res, "metrics"), i, m) {
		name = json_string_value(json_object_get(m, "name"));
		before = json_string_value(json_object_get(m, "before"));
		after = json_string_value(json_object_get(m, "after"));
		if (name == NULL || before == NULL || after == NULL ||
		    strcmp(before, in->sweep_prev_ref) != 0 ||
		    strcmp(after, in->sweep_ref) != 0 ||
		    !json_is_number(json_object_get(m, "change_base")) ||
		    strcmp(json_string_value(json_object_get(m, "verdict")) ?
		    json_string_value(json_object_get(m, "verdict")) : "",
		    "changed") != 0)
			continue;
		if ((strcmp(wk->w->name, in->sweep) == 0 &&
		    strcmp(name, in->metric) == 0) ||
		    rt_also_known(wk->t, wk->w->name, name))
			continue;
		rt_also_add(wk, wk->w->name, wk->w->benchmark, wk->w->group,
		    name, json_number_value(json_object_get(m,
		    "change_base")));
	}
	json_decref(res);
	return 0;
}

/* Every sweep's changes over the bisection's tag pair but its own one. */
static void
rt_also(struct reporter_tested *t, struct report_input *in,
    struct store *st, const struct config *cfg)
{
	struct rt_walk wk = { t, in, st, cfg, NULL };
	struct bd_error err;
	size_t i;

	if (in->sweep == NULL || in->sweep_prev_ref == NULL ||
	    in->sweep_ref == NULL)
		return;
	for (i = 0; i < cfg->nsweeps; i++) {
		wk.w = &cfg->sweeps[i];
		(void)store_sweep_ref_list(st, wk.w->name, rt_also_row, &wk,
		    &err);
	}
	/* The sweep's own other metrics: the report measures them itself. */
	for (i = 0; i < in->n_sweep_metrics; i++)
		if (strcmp(in->sweep_metrics[i], in->metric) != 0 &&
		    !rt_also_known(t, in->sweep, in->sweep_metrics[i]))
			rt_also_add(&wk, in->sweep, in->benchmark,
			    in->host_group ? in->host_group : "default",
			    in->sweep_metrics[i], NAN);
	in->also = t->also;
	in->n_also = t->nalso;
}

/* The files build_inputs names, blank-separated in the config, as a list. */
static const char **
rt_inputs(struct reporter_tested *t, const char *list, size_t *n)
{
	const char **v = NULL, *p = list, *e;

	*n = 0;
	while (p != NULL && *p != '\0') {
		while (*p == ' ' || *p == '\t')
			p++;
		if (*p == '\0')
			break;
		for (e = p; *e != '\0' && *e != ' ' && *e != '\t'; e++)
			;
		v = xreallocarray(v, *n + 1, sizeof(*v));
		v[(*n)++] = rt_keep(t, xstrndup(p, (size_t)(e - p)));
		p = e;
	}
	return v;
}

/* Everything the report says about what ran, from config and store. */
void
reporter_tested_fill(struct reporter_tested *t, struct report_input *in,
    struct store *st, const struct config *cfg,
    const struct config_benchmark *bc, const char *group,
    const char *const *hosts, size_t nhosts)
{
	const char *base, *head;

	memset(t, 0, sizeof(*t));
	if (bc != NULL) {
		in->kconfig = bc->kconfig;
		in->compiler = bc->compiler;
		t->params = rt_params(t, bc, &in->n_params);
		in->params = t->params;
		in->machine = rt_machine(t, st, bc, hosts, nhosts);
		base = in->base.sha;
		head = in->kind == REPORT_CULPRIT ? in->culprit.sha :
		    in->head.sha;
		t->steps[0] = rt_steps(t, cfg, bc, group, nhosts ? hosts[0] :
		    NULL, base, &in->n_repro_base);
		t->steps[1] = rt_steps(t, cfg, bc, group, nhosts ? hosts[0] :
		    NULL, head, &in->n_repro_head);
		in->repro_base = t->steps[0];
		in->repro_head = t->steps[1];
		t->inputs = rt_inputs(t, bc->build_inputs, &in->n_build_inputs);
		in->build_inputs = t->inputs;
	}
	rt_also(t, in, st, cfg);
}

void
reporter_tested_release(struct reporter_tested *t)
{
	size_t i;

	for (i = 0; i < t->nstrings; i++)
		free(t->strings[i]);
	free(t->strings);
	free(t->params);
	free(t->steps[0]);
	free(t->steps[1]);
	free(t->also);
	free(t->inputs);
	memset(t, 0, sizeof(*t));
}

void
reporter_tested_confirm(struct reporter_tested *t, struct confirm_rows *r,
    struct report_input *in, struct store *st,
    const struct config_benchmark *bc, struct bisection *b)
{
	char *copy, *h, *save = NULL;
	const char **hosts = NULL;
	size_t i, n;

	confirm_rows_get(b, r);
	for (i = 0; i < r->n && bc != NULL; i++) {
		copy = xstrdup(r->hosts[i]);
		n = 0;
		for (h = strtok_r(copy, " ", &save); h != NULL;
		    h = strtok_r(NULL, " ", &save)) {
			hosts = xreallocarray(hosts, n + 1, sizeof(*hosts));
			hosts[n++] = h;
		}
		r->rows[i].machine = rt_machine(t, st, bc, hosts, n);
		free(copy);
	}
	free(hosts);
	in->confirm = r->rows;
	in->n_confirm = r->n;
}
