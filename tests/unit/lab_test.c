/* SPDX-License-Identifier: MIT */
/*
 * Lab pieces that need no lab: the [lab] section and its checks, the job
 * template renderer (quoting by where a value lands), the YAML check, and
 * the folding of LAVA's test-case pages into metrics, skips and errors.
 */
#include <criterion/criterion.h>

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <yaml.h>

#include "common/xmalloc.h"
#include "config/config.h"
#include "remote/lava_result.h"
#include "tests/support/tst.h"

TestSuite(lab, .fini = tst_leak_check);

/* A lab row with a template file holding text, in a fresh temp dir. */
static char *
lab_with_template(struct config_lab *l, const char *text)
{
	char *dir = tst_tmpdir("lab");

	cr_assert_not_null(dir);
	memset(l, 0, sizeof(*l));
	l->name = xstrdup("l1");
	l->device_type = xstrdup("ssh");
	l->group = xstrdup("g");
	l->priority = 50;
	l->job_template = tst_write_file(dir, "job.yaml", text);
	cr_assert_not_null(l->job_template);
	return dir;
}

static const struct config_lab_values lab_values = {
	.commit = "0123456789abcdef0123456789abcdef01234567",
	.run_id = "7", .benchmark = "spin", .job_name = "bisectd-x-run-7",
};

/* Renders the template and returns the output (caller frees). */
static char *
lab_render(const char *tmpl, const struct config_lab_values *v,
    const char *artifact, int *rcp, struct bd_error *err)
{
	struct config_lab l;
	char *dir = lab_with_template(&l, tmpl), *out = NULL;

	if (artifact != NULL)
		l.artifact_url = xstrdup(artifact);
	*rcp = config_lab_render(&l, v, &out, err);
	config_lab_release(&l);
	tst_rmrf(dir);
	free(dir);
	return out;
}

Test(lab, placeholders_are_escaped_by_where_they_land)
{
	struct config_lab_values v = lab_values;
	struct bd_error err;
	char *out;
	int rc;

	v.benchmark = "it's \"quoted\"";
	out = lab_render("device_type: {device_type}\njob_name: {job_name}\n"
	    "priority: {priority}\ntimeouts:\n  job: {minutes: 5}\n"
	    "meta:\n  bench: {benchmark}\n  at: \"{short} of {benchmark}\"\n"
	    "run:\n  steps:\n  - echo {benchmark} {run_id}\n"
	    "  - make ARTIFACT={artifact_url}\nafter: {short}\n", &v,
	    "http://a.example/{short}/bzImage", &rc, &err);
	cr_assert_eq(rc, 0, "%s", err.msg);
	cr_expect_not_null(strstr(out, "device_type: \"ssh\"\n"), "%s", out);
	cr_expect_not_null(strstr(out, "priority: 50\n"), "%s", out);
	cr_expect_not_null(strstr(out, "job: {minutes: 5}\n"), "%s", out);
	cr_expect_not_null(strstr(out,
	    "bench: \"it's \\\"quoted\\\"\"\n"), "%s", out);
	cr_expect_not_null(strstr(out,
	    "at: \"0123456789ab of it's \\\"quoted\\\"\"\n"), "%s", out);
	/* In a command: shell-quoted first, the steps stay commands. */
	cr_expect_not_null(strstr(out, "  - echo 'it'\\''s \"quoted\"' 7\n"),
	    "%s", out);
	cr_expect_not_null(strstr(out, "  - make ARTIFACT=http://a.example/"
	    "0123456789ab/bzImage\n"), "%s", out);
	cr_expect_not_null(strstr(out, "after: \"0123456789ab\"\n"), "%s",
	    out);
	free(out);
}

Test(lab, value_that_cannot_be_placed_is_refused)
{
	struct config_lab_values v = lab_values;
	struct bd_error err;
	char *out;
	int rc;

	v.benchmark = "a: b";
	out = lab_render("x: run {benchmark} now\n", &v, NULL, &rc, &err);
	cr_expect_eq(rc, -EINVAL);
	cr_expect_null(out);
	cr_expect_not_null(strstr(err.msg, "line 1"), "%s", err.msg);
	cr_expect_not_null(strstr(err.msg, "{benchmark}"), "%s", err.msg);
}

Test(lab, rendered_template_must_be_yaml)
{
	struct bd_error err;
	char *out;
	int rc;

	out = lab_render("a: [1, 2\nb: 3\n", &lab_values, NULL, &rc, &err);
	cr_expect_eq(rc, -EINVAL);
	cr_expect_null(out);
	cr_expect_not_null(strstr(err.msg, "YAML line"), "%s", err.msg);
	cr_expect_eq(config_yaml_check("- a\n- b\n", 8, &err), -EINVAL);
	cr_expect_not_null(strstr(err.msg, "mapping"), "%s", err.msg);
	cr_expect_eq(config_yaml_check("a: 1\n", 5, &err), 0);
	cr_expect_eq(config_yaml_check("", 0, &err), -EINVAL);
}

/* bisectd -n: a [lab] is checked with its template rendered. */
Test(lab, config_checks_the_lab_section)
{
	char *dir = tst_tmpdir("labcfg"), *conf, *text, *all = NULL, *t;
	struct config cfg;
	struct config_errors errs = { NULL, 0 };
	size_t i;

	cr_assert_not_null(dir);
	free(tst_write_file(dir, "bad.yaml", "a: [1\n"));
	free(tst_write_file(dir, "good.yaml", "device_type: {device_type}\n"
	    "job_name: {job_name}\n"));
	xasprintf(&text, "[host h]\naddress = 127.0.0.1\nuser = u\n"
	    "identity = k\nknown_hosts = kh\ngroup = g\n\n"
	    "[lab a]\nurl = ftp://x\ntoken_file = t\ndevice_type = ssh\n"
	    "group = g\njob_template = bad.yaml\n\n"
	    "[lab b]\nurl = http://x\ntoken_file = t\ndevice_type = ssh\n"
	    "group = lava\njob_template = good.yaml\ntags = ok,not/ok\n");
	conf = tst_write_file(dir, "c.conf", text);
	config_init(&cfg);
	cr_assert_eq(config_load(&cfg, conf, &errs), -EINVAL);
	for (i = 0; i < errs.n; i++) {
		xasprintf(&t, "%s%s\n", all ? all : "", errs.msgs[i]);
		free(all);
		all = t;
	}
	cr_expect_not_null(strstr(all, "[lab a] url: must start with http"),
	    "%s", all);
	cr_expect_not_null(strstr(all, "[lab a] job_template: YAML line"),
	    "%s", all);
	cr_expect_not_null(strstr(all, "group g is also served by [host h]"),
	    "%s", all);
	cr_expect_not_null(strstr(all, "invalid tag 'not/ok'"), "%s", all);
	cr_expect_null(strstr(all, "[lab b] job_template"), "%s", all);
	free(all);
	config_errors_release(&errs);
	free(conf);
	free(text);
	tst_rmrf(dir);
	free(dir);
}

/* The lab's url as the daemon has it (no trailing '/'). */
#define LAB_BASE	"http://127.0.0.1:8000"

/* A page as LAVA 2023.01 answers it (trimmed from a real reply). */
static const char lab_page1[] =
"{\"count\":5,\"next\":\"http://lab/api/v0.2/jobs/9/tests/?limit=2&offset=2\","
"\"results\":["
"{\"name\":\"validate\",\"result\":\"pass\",\"measurement\":null,"
"\"metadata\":\"case: validate\\ndefinition: lava\\nresult: pass\\n\"},"
"{\"name\":\"runtime_ms\",\"result\":\"pass\",\"measurement\":\"12.5000000000\","
"\"metadata\":\"case: runtime_ms\\ndefinition: 0_bench\\nresult: pass\\n\"}"
"]}";
static const char lab_page2[] =
"{\"count\":5,\"next\":null,\"results\":["
"{\"name\":\"build\",\"result\":\"fail\",\"measurement\":null,"
"\"metadata\":\"definition: 0_bench\\n\"},"
"{\"name\":\"job\",\"result\":\"fail\",\"measurement\":null,"
"\"metadata\":\"case: job\\ndefinition: lava\\nerror_msg: Connection closed\\n"
"error_type: Infrastructure\\nresult: fail\\n\"},"
"{\"name\":\"smoke\",\"result\":\"pass\",\"measurement\":null,"
"\"metadata\":\"definition: 0_bench\\n\"}"
"]}";

Test(lab, test_case_pages_fold_into_a_result)
{
	struct lava_result r;
	struct bd_error err;
	char *next = NULL;

	lava_result_init(&r);
	cr_assert_eq(lava_result_page(&r, lab_page1, strlen(lab_page1),
	    "build", LAB_BASE, &next, &err), 0, "%s", err.msg);
	/* LAVA names the host it believes it has; the base's host is kept. */
	cr_assert_str_eq(next, "http://127.0.0.1:8000/api/v0.2/jobs/9/tests/?"
	    "limit=2&offset=2");
	free(next);
	cr_assert_eq(r.metrics.n, 1);
	cr_expect_str_eq(r.metrics.v[0].name, "runtime_ms");
	cr_expect_float_eq(r.metrics.v[0].value, 12.5, 1e-12);
	/* One value per case: a sweep keeps only the first of each metric. */
	cr_expect_eq(r.metrics.v[0].index, 0);
	cr_expect(!r.build_failed);
	cr_assert_eq(lava_result_page(&r, lab_page2, strlen(lab_page2),
	    "build", LAB_BASE, &next, &err), 0, "%s", err.msg);
	cr_expect_null(next);
	cr_expect(r.build_failed);
	cr_expect_str_eq(r.error_type, "Infrastructure");
	cr_expect_str_eq(r.error_msg, "Connection closed");
	cr_expect_eq(r.metrics.n, 1);
	/* The same case twice, or a measurement that is no number: refused. */
	cr_expect_eq(lava_result_page(&r, lab_page1, strlen(lab_page1),
	    "build", LAB_BASE, &next, &err), -EINVAL);
	cr_expect_not_null(strstr(err.msg, "twice"), "%s", err.msg);
	free(next);
	lava_result_release(&r);
	{
		static const char bad[] = "{\"results\":[{\"name\":\"x\","
		    "\"result\":\"pass\",\"measurement\":\"1.2.3\"}]}";

		cr_expect_eq(lava_result_page(&r, bad, strlen(bad), "build",
		    LAB_BASE, &next, &err), -EINVAL);
	}
	cr_expect_not_null(strstr(err.msg, "not a decimal number"), "%s",
	    err.msg);
	lava_result_release(&r);
	cr_expect_eq(lava_result_page(&r, "[]", 2, "build", LAB_BASE, &next,
	    &err), -EINVAL);
	lava_result_release(&r);
}

/* One page a lab might send, and what lava_result_page must make of it. */
struct lab_page_case {
	const char	*what;
	const char	*base;
	const char	*body;
	int		 rc;
	const char	*next;		/* expected URL, NULL: none */
	const char	*msg;		/* in the error when rc < 0 */
	size_t		 nmetrics;	/* when rc == 0 */
};

#define LAB_CASE(nx, extra)						\
	"{\"next\":" nx ",\"results\":[{\"name\":\"ops\",\"result\":"	\
	"\"pass\",\"measurement\":\"1.5\",\"metadata\":\"definition: b\\n\"}"	\
	extra "]}"

static const struct lab_page_case lab_page_cases[] = {
	{ "a link to another host keeps only its path and query",
	  "https://lab.example/lava",
	  LAB_CASE("\"http://127.0.0.1:9/lava/api/v0.2/jobs/3/tests/?offset=2\"",
	  ""), 0, "https://lab.example/lava/api/v0.2/jobs/3/tests/?offset=2",
	  NULL, 1 },
	{ "userinfo cannot smuggle a host", LAB_BASE,
	  LAB_CASE("\"http://127.0.0.1:8000@127.0.0.1:9/api/v0.2/x/?o=2\"", ""),
	  0, LAB_BASE "/api/v0.2/x/?o=2", NULL, 1 },
	{ "a relative link", LAB_BASE,
	  LAB_CASE("\"/api/v0.2/jobs/3/tests/?offset=2\"", ""), 0,
	  LAB_BASE "/api/v0.2/jobs/3/tests/?offset=2", NULL, 1 },
	{ "a link outside the API", LAB_BASE,
	  LAB_CASE("\"http://127.0.0.1:8000/accounts/logout/\"", ""), -EINVAL,
	  NULL, "is not under", 0 },
	{ "a link outside the base's path", "http://127.0.0.1:8000/lava",
	  LAB_CASE("\"http://127.0.0.1:8000/lavax/api/v0.2/\"", ""), -EINVAL,
	  NULL, "is not under", 0 },
	{ "a scheme in the query is no host", LAB_BASE,
	  LAB_CASE("\"/api/?u=http://127.0.0.1:9/\"", ""), 0,
	  LAB_BASE "/api/?u=http://127.0.0.1:9/", NULL, 1 },
	{ "a link with a space or a newline", LAB_BASE,
	  LAB_CASE("\"/api/v0.2/x/?a=b\\r\\nHost: y\"", ""), -EINVAL, NULL,
	  "is not under", 0 },
	{ "a measurement as a JSON number", LAB_BASE,
	  LAB_CASE("null", ",{\"name\":\"n\",\"result\":\"pass\","
	  "\"measurement\":2.5}"), 0, NULL, NULL, 2 },
	{ "a hexadecimal float (strtod reads 8)", LAB_BASE,
	  LAB_CASE("null", ",{\"name\":\"n\",\"result\":\"pass\","
	  "\"measurement\":\"0x1p3\"}"), -EINVAL, NULL,
	  "'0x1p3' is not a decimal number", 0 },
	{ "infinity as a word", LAB_BASE,
	  LAB_CASE("null", ",{\"name\":\"n\",\"result\":\"pass\","
	  "\"measurement\":\"inf\"}"), -EINVAL, NULL,
	  "not a decimal number", 0 },
	{ "nan as a word", LAB_BASE,
	  LAB_CASE("null", ",{\"name\":\"n\",\"result\":\"pass\","
	  "\"measurement\":\"nan\"}"), -EINVAL, NULL,
	  "not a decimal number", 0 },
	{ "a leading space", LAB_BASE,
	  LAB_CASE("null", ",{\"name\":\"n\",\"result\":\"pass\","
	  "\"measurement\":\" 8\"}"), -EINVAL, NULL,
	  "not a decimal number", 0 },
	{ "a decimal too large for a double", LAB_BASE,
	  LAB_CASE("null", ",{\"name\":\"n\",\"result\":\"pass\","
	  "\"measurement\":\"1e999\"}"), -EINVAL, NULL,
	  "not a decimal number", 0 },
	{ "a signed decimal with an exponent", LAB_BASE,
	  LAB_CASE("null", ",{\"name\":\"n\",\"result\":\"pass\","
	  "\"measurement\":\"-.5e-3\"}"), 0, NULL, NULL, 2 },
	{ "a measured case whose name is no metric name", LAB_BASE,
	  LAB_CASE("null", ",{\"name\":\"a\\nb\",\"result\":\"pass\","
	  "\"measurement\":\"2\"}"), -EINVAL, NULL,
	  "not a valid metric name", 0 },
	{ "a comma in a measured case's name", LAB_BASE,
	  LAB_CASE("null", ",{\"name\":\"a,b\",\"result\":\"pass\","
	  "\"measurement\":\"2\"}"), -EINVAL, NULL,
	  "not a valid metric name", 0 },
	{ "an unmeasured case's name is not a metric", LAB_BASE,
	  LAB_CASE("null", ",{\"name\":\"a\\tb\",\"result\":\"pass\","
	  "\"measurement\":null}"), 0, NULL, NULL, 1 },
};

/* Every case of lab_page_cases through a fresh result. */
Test(lab, test_case_pages_from_a_hostile_lab)
{
	size_t i;

	for (i = 0; i < sizeof(lab_page_cases) / sizeof(lab_page_cases[0]);
	    i++) {
		const struct lab_page_case *c = &lab_page_cases[i];
		struct lava_result r;
		struct bd_error err = { 0 };
		char *next = NULL;
		int rc;

		lava_result_init(&r);
		rc = lava_result_page(&r, c->body, strlen(c->body), "build",
		    c->base, &next, &err);
		cr_expect_eq(rc, c->rc, "%s: rc %d (%s)", c->what, rc,
		    err.msg);
		if (c->next != NULL)
			cr_expect(next != NULL && strcmp(next, c->next) == 0,
			    "%s: next %s", c->what, next ? next : "(null)");
		else
			cr_expect_null(next, "%s: next %s", c->what, next);
		if (c->msg != NULL)
			cr_expect_not_null(strstr(err.msg, c->msg), "%s: %s",
			    c->what, err.msg);
		if (rc == 0)
			cr_expect_eq(r.metrics.n, c->nmetrics, "%s: %zu metrics",
			    c->what, r.metrics.n);
		free(next);
		lava_result_release(&r);
	}
}

/* A lab that never stops paging, or measures without end, is cut off. */
Test(lab, test_case_pages_and_metrics_are_bounded)
{
	static const char empty[] = "{\"next\":\"/api/v0.2/x/\",\"results\":[]}";
	struct lava_result r;
	struct bd_error err = { 0 };
	char *next, *body, *p;
	size_t i, n;
	int rc = 0;

	lava_result_init(&r);
	for (i = 0; i <= LAVA_RESULT_MAX_PAGES && rc == 0; i++) {
		rc = lava_result_page(&r, empty, strlen(empty), "build",
		    LAB_BASE, &next, &err);
		free(next);
	}
	cr_expect_eq(rc, -EINVAL);
	cr_expect_eq(i, LAVA_RESULT_MAX_PAGES + 1, "cut off after %zu", i);
	cr_expect_not_null(strstr(err.msg, "pages"), "%s", err.msg);
	lava_result_release(&r);

	/* One page with a case more than the bound, all names distinct. */
	n = LAVA_RESULT_MAX_METRICS + 1;
	body = p = xcalloc(n * 64 + 64, 1);
	p += sprintf(p, "{\"next\":null,\"results\":[");
	for (i = 0; i < n; i++)
		p += sprintf(p, "%s{\"name\":\"m%zu\",\"result\":\"pass\","
		    "\"measurement\":\"1\"}", i ? "," : "", i);
	sprintf(p, "]}");
	rc = lava_result_page(&r, body, strlen(body), "build", LAB_BASE, &next,
	    &err);
	cr_expect_eq(rc, -EINVAL);
	cr_expect_not_null(strstr(err.msg, "measured test cases"), "%s",
	    err.msg);
	cr_expect_eq(r.metrics.n, LAVA_RESULT_MAX_METRICS);
	free(next);
	free(body);
	lava_result_release(&r);
}

/* {artifact} and {build_host} name where the build host left the build. */
Test(lab, artifact_url_names_the_build)
{
	struct config_lab_values v = lab_values;
	struct config_lab l;
	char *out;

	memset(&l, 0, sizeof(l));
	l.artifact_url = xstrdup("http://{build_host}:8080{artifact}?c={short}"
	    "&b={benchmark}&r={run_id}&x={nope}");
	v.artifact = "/srv/out-0123/bench";
	v.build_host = "b1";
	out = config_lab_artifact(&l, &v);
	cr_expect_str_eq(out, "http://b1:8080/srv/out-0123/bench?"
	    "c=0123456789ab&b=spin&r=7&x={nope}");
	free(out);
	/* Nothing built: the placeholders are empty. */
	out = config_lab_artifact(&l, &lab_values);
	cr_expect_str_eq(out, "http://:8080?c=0123456789ab&b=spin&r=7&"
	    "x={nope}");
	free(out);
	config_lab_release(&l);
}

/* Loads text as c.conf in a fresh dir; returns all messages joined. */
static char *
lab_load_errors(const char *dir, const char *text, int *rc)
{
	struct config cfg;
	struct config_errors errs = { NULL, 0 };
	char *conf = tst_write_file(dir, "c.conf", text), *all = xstrdup(""),
	    *t;
	size_t i;

	config_init(&cfg);
	*rc = config_load(&cfg, conf, &errs);
	for (i = 0; i < errs.n; i++) {
		xasprintf(&t, "%s%s\n", all, errs.msgs[i]);
		free(all);
		all = t;
	}
	config_errors_release(&errs);
	config_release(&cfg);
	free(conf);
	return all;
}

/* bisectd -n: build_group names SSH build hosts and needs artifact_url. */
Test(lab, config_checks_build_group)
{
	char *dir = tst_tmpdir("labbg"), *text, *all;
	static const char hosts[] =
	    "[host b]\naddress = 127.0.0.1\nuser = u\nidentity = k\n"
	    "known_hosts = kh\ngroup = builders\nroles = build\n\n"
	    "[host t]\naddress = 127.0.0.1\nuser = u\nidentity = k\n"
	    "known_hosts = kh\ngroup = testers\nroles = test\n\n";
	static const char lab[] =
	    "[lab %s]\nurl = http://x\ntoken_file = t\ndevice_type = ssh\n"
	    "group = %s\njob_template = %s\n%s\n";
	int rc;

	cr_assert_not_null(dir);
	free(tst_write_file(dir, "uses.yaml", "device_type: {device_type}\n"
	    "job_name: {job_name}\nrun:\n  steps:\n  - run {artifact_url}\n"));
	free(tst_write_file(dir, "ignores.yaml", "device_type: "
	    "{device_type}\njob_name: {job_name}\n"));
	{
		char *a, *b, *c, *d, *e;

		xasprintf(&a, lab, "ok", "g1", "uses.yaml", "build_group = "
		    "builders\nartifact_url = http://f/{short}/{artifact}");
		xasprintf(&b, lab, "nourl", "g2", "uses.yaml",
		    "build_group = builders");
		xasprintf(&c, lab, "notbuild", "g3", "uses.yaml", "build_group "
		    "= testers\nartifact_url = {artifact}");
		xasprintf(&d, lab, "unused", "g4", "ignores.yaml",
		    "build_group = builders\nartifact_url = /x/{short}");
		xasprintf(&e, lab, "typo", "g5", "uses.yaml", "build_group = "
		    "g1\nartifact_url = /x/{shrt}");
		xasprintf(&text, "%s%s%s%s%s%s", hosts, a, b, c, d, e);
		free(a);
		free(b);
		free(c);
		free(d);
		free(e);
	}
	all = lab_load_errors(dir, text, &rc);
	cr_expect_eq(rc, -EINVAL);
	cr_expect_null(strstr(all, ": [lab ok] "), "%s", all);
	cr_expect_not_null(strstr(all, "[lab nourl] build_group: needs "
	    "artifact_url"), "%s", all);
	cr_expect_not_null(strstr(all, "[lab notbuild] build_group: no [host] "
	    "with the build role has group = testers"), "%s", all);
	cr_expect_not_null(strstr(all, "[lab unused] job_template: must use "
	    "{artifact_url}"), "%s", all);
	cr_expect_not_null(strstr(all, "[lab typo] artifact_url: unknown "
	    "placeholder {shrt}"), "%s", all);
	cr_expect_not_null(strstr(all, "[lab typo] build_group: group g1 is "
	    "served by [lab ok]"), "%s", all);
	free(all);
	free(text);
	tst_rmrf(dir);
	free(dir);
}

/* A lab's builds are cached under its build_group, others under their own. */
Test(lab, build_group_is_where_builds_are_cached)
{
	char *dir = tst_tmpdir("labbc"), *conf;
	struct config cfg;
	struct config_errors errs = { NULL, 0 };

	cr_assert_not_null(dir);
	free(tst_write_file(dir, "j.yaml", "device_type: {device_type}\n"
	    "job_name: {job_name}\nkernel: {artifact_url}\n"));
	conf = tst_write_file(dir, "c.conf", "[host b]\naddress = 127.0.0.1\n"
	    "user = u\nidentity = k\nknown_hosts = kh\ngroup = builders\n\n"
	    "[lab l]\nurl = http://x\ntoken_file = t\ndevice_type = ssh\n"
	    "group = lava\njob_template = j.yaml\nbuild_group = builders\n"
	    "artifact_url = {artifact}\n\n"
	    "[lab m]\nurl = http://x\ntoken_file = t\ndevice_type = ssh\n"
	    "group = lava2\njob_template = j.yaml\n");
	config_init(&cfg);
	cr_assert_eq(config_load(&cfg, conf, &errs), 0, "%s",
	    errs.n ? errs.msgs[0] : "");
	cr_expect_str_eq(config_build_group(&cfg, "lava"), "builders");
	cr_expect_str_eq(config_build_group(&cfg, "lava2"), "lava2");
	cr_expect_str_eq(config_build_group(&cfg, "builders"), "builders");
	config_release(&cfg);
	config_errors_release(&errs);
	free(conf);
	tst_rmrf(dir);
	free(dir);
}
