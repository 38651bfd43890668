/* SPDX-License-Identifier: MIT */
/*
 * The LAVA backend end to end: a real LAVA (tests/support/lava-up.sh, its
 * URL and token in BISECTD_TEST_LAVA_URL and BISECTD_TEST_LAVA_TOKEN) whose
 * `ssh` device is an sshd on 127.0.0.1, the fixture repository, and the
 * real daemon with one [lab] serving group "lava".  The job template
 * builds the fixture's benchmark at the commit and reports its metrics as
 * lava-test-case measurements.  Without the URL every test is skipped by
 * name.
 */
#include <criterion/criterion.h>

#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <jansson.h>

#include "common/xmalloc.h"
#include "tests/support/daemon.h"
#include "tests/support/lavaapi.h"
#include "tests/support/lavajob.h"
#include "tests/support/svc.h"
#include "tests/support/sweepsvc.h"
#include "tests/support/tst.h"

TestSuite(lava, .fini = svc_fini, .timeout = 1800);

#define LAVA_WAIT_S	240	/* a guard against hangs, not a timing check */

/* What the lab section of one test looks like. */
static struct {
	int		 crash_first;	/* each commit's first job loses its connection */
	int		 hold;		/* jobs wait 60 s first: still running when cancelled */
	const char	*token;		/* NULL: the lab's */
	const char	*device_type;	/* NULL: ssh */
} lt;

static char	*lava_diag(int64_t id);

static const char *
lava_url(void)
{
	return lavaapi_url();
}

static void
lava_require(void)
{
	lavaapi_require();
}

/* Scripts the job runs on the device, the template and the [lab]. */
static char *
lava_sections(void)
{
	char *text, *t;

	/*
	 * Jobs of one commit run at once on the two devices (a sweep's runs,
	 * verification): each builds aside and the first one's build stays,
	 * so no job removes the bench another one is running.
	 */
	xasprintf(&t, "#!/bin/sh\nset -e\nd=%s/b-$2\n"
	    "[ -x \"$d/bench\" ] && exit 0\nt=$(mktemp -d \"$d.XXXXXX\")\n"
	    "git -C %s archive \"$1\" | tar -x -C \"$t\"\n"
	    "cc -O2 -o \"$t/bench\" \"$t/bench.c\"\n"
	    "mv -T \"$t\" \"$d\" 2>/dev/null || rm -rf \"$t\"\n", svc.dir,
	    svc.repo);
	free(tst_write_file(svc.dir, "build.sh", t));
	free(t);
	xasprintf(&t, "%s/b-$1/bench", svc.dir);
	{
		char *script = lavajob_report_script(t);

		free(tst_write_file(svc.dir, "run.sh", script));
		free(script);
	}
	free(t);
	/* Killing this connection's sshd closes LAVA's connection: an
	 * infrastructure error as the lab reports it. */
	xasprintf(&t, "#!/bin/sh\nm=%s/crashed-$1\n[ -e \"$m\" ] && exit 0\n"
	    "touch \"$m\"\np=$$\n"
	    "while [ \"$(ps -o comm= -p \"$p\")\" != sshd ]; do\n"
	    "  p=$(ps -o ppid= -p \"$p\" | tr -d ' ')\n"
	    "  [ \"$p\" -gt 1 ] || exit 1\ndone\nkill -9 \"$p\"\nsleep 30\n",
	    svc.dir);
	free(tst_write_file(svc.dir, "crash.sh", t));
	free(t);
	{
		char *steps, *crash;

		if (lt.crash_first)
			xasprintf(&crash, "          - sh %s/crash.sh {short}\n",
			    svc.dir);
		else if (lt.hold)
			crash = xstrdup("          - sleep 60\n");
		else
			crash = xstrdup("");
		xasprintf(&steps, "%s          - lava-test-case build --shell "
		    "sh %s/build.sh {commit} {short}\n          - sh %s/run.sh "
		    "{short}\n", crash, svc.dir, svc.dir);
		t = lavajob_template(steps);
		free(steps);
		free(crash);
	}
	free(tst_write_file(svc.dir, "job.yaml", t));
	free(t);
	xasprintf(&t, "%s\n", lt.token ? lt.token :
	    getenv("BISECTD_TEST_LAVA_TOKEN"));
	free(tst_write_file(svc.dir, "token", t));
	free(t);
	xasprintf(&text, "[lab lab1]\ntype = lava\nurl = %s\n"
	    "token_file = %s/token\ndevice_type = %s\ngroup = lava\n"
	    "job_template = %s/job.yaml\nmax_jobs = 2\npoll_interval = 500ms\n",
	    lava_url(), svc.dir, lt.device_type ? lt.device_type : "ssh",
	    svc.dir);
	return text;
}

static void
lava_setup(const char *tag)
{
	lava_require();
	svc_setup_with(tag, 0, NULL, 0, lava_sections);
}

/* GET on the lab's API (path after /api/v0.2/), parsed; caller decrefs. */
static json_t *
lava_get(const char *path)
{
	return lavaapi_get(lava_url(), path);
}

/* The daemon's instance id, from its database. */
static char *
lava_instance(void)
{
	return lavaapi_instance(svc.td.db);
}

/* The lab's jobs for one run of this daemon, oldest first. */
static json_t *
lava_jobs_of(const char *instance, int64_t run)
{
	return lavaapi_jobs_of(lava_url(), instance, run);
}

/* The lab's row in `hosts` (caller decrefs). */
static json_t *
lava_lab_row(void)
{
	return lavaapi_lab_row();
}

/* Waits until the lab's health word is want; returns the row. */
static json_t *
lava_wait_health(const char *want)
{
	json_t *l;
	int i;

	for (i = 0; i < LAVA_WAIT_S * 5; i++) {
		l = lava_lab_row();
		if (strcmp(json_string_value(json_object_get(l, "health")),
		    want) == 0)
			return l;
		json_decref(l);
		usleep(200 * 1000);
	}
	cr_assert_fail("the lab never became %s", want);
	return NULL;
}

static void
lava_wait_runs(int64_t id, const char *state, int64_t n)
{
	int i;

	for (i = 0; i < LAVA_WAIT_S * 5; i++) {
		if (lavaapi_runs(id, state) >= n)
			return;
		usleep(200 * 1000);
	}
	{
		char *why = lava_diag(id);

		cr_assert_fail("bisection %lld never had %lld %s runs: %s",
		    (long long)id, (long long)n, state, why);
		free(why);
	}
}

/* Every run of this daemon has one lab job, none submitted twice. */
static void
lava_assert_one_job_per_run(int64_t id)
{
	lavaapi_assert_one_job_per_run(id);
}

/* The failed cases of lab job job ("name: error_msg; ..."), caller frees. */
static char *
lava_job_failures(json_int_t job)
{
	json_t *r, *t, *meta;
	char path[96], *out = xstrdup(""), *n;
	size_t i;

	snprintf(path, sizeof(path), "jobs/%lld/tests/?limit=200",
	    (long long)job);
	r = lava_get(path);
	json_array_foreach(json_object_get(r, "results"), i, t) {
		const char *res = json_string_value(json_object_get(t,
		    "result"));
		const char *msg = NULL;

		if (res == NULL || strcmp(res, "fail") != 0)
			continue;
		/* metadata is YAML text in 2023.01; keep its error line. */
		meta = json_object_get(t, "metadata");
		if (json_is_string(meta))
			msg = strstr(json_string_value(meta), "error_msg");
		xasprintf(&n, "%s %s: %.160s;", out,
		    json_string_value(json_object_get(t, "name")),
		    msg ? msg : "-");
		free(out);
		out = n;
	}
	json_decref(r);
	return out;
}

/*
 * Why a lab test is stuck, in one message: the bisection's state, runs and
 * trouble, and the lab's newest jobs of this daemon with their health and
 * failed cases.  Caller frees.
 */
static char *
lava_diag(int64_t id)
{
	json_t *b = svc_status(id), *r, *j;
	char *inst = lava_instance(), *runs, *out, *n, *fail, *kids, path[160];
	size_t i;

	runs = json_dumps(json_object_get(b, "runs"), JSON_COMPACT);
	kids = svc_children_text(b);
	xasprintf(&out, "bisection %lld %s, runs %s, trouble %s%s; lab jobs:",
	    (long long)id, json_string_value(json_object_get(b, "state")),
	    runs ? runs : "-", json_string_value(json_object_get(b,
	    "trouble")) ? json_string_value(json_object_get(b, "trouble")) :
	    "none", kids);
	free(kids);
	free(runs);
	json_decref(b);
	snprintf(path, sizeof(path), "jobs/?description__contains=bisectd-%s"
	    "&ordering=-id&limit=3", inst);
	r = lava_get(path);
	json_array_foreach(json_object_get(r, "results"), i, j) {
		const char *c = json_string_value(json_object_get(j,
		    "failure_comment"));
		const char *h = json_string_value(json_object_get(j, "health"));

		fail = h != NULL && strcmp(h, "Incomplete") == 0 ?
		    lava_job_failures(json_integer_value(json_object_get(j,
		    "id"))) : xstrdup("");
		xasprintf(&n, "%s [%lld %s %s %s%s]", out, (long long)
		    json_integer_value(json_object_get(j, "id")),
		    json_string_value(json_object_get(j, "state")), h,
		    c ? c : "", fail);
		free(fail);
		free(out);
		out = n;
	}
	json_decref(r);
	free(inst);
	return out;
}

/*
 * Waits for the bisection to end: a lab run takes seconds, and under a
 * full parallel test run a whole bisection may take longer than
 * svc_wait's guard.  It gives up when no run has ended for LAVA_WAIT_S,
 * in the bisection or in those its verification started (a lab job that
 * never completes, retried for ever), and says what the lab saw.  A guard
 * against hangs, not a timing check.
 */
static json_t *
lava_wait(int64_t id)
{
	const char *st;
	json_t *b;
	int64_t ended = -1, n;
	int still = 0;

	for (;;) {
		b = svc_status(id);
		st = json_string_value(json_object_get(b, "state"));
		if (strcmp(st, "queued") != 0 && strcmp(st, "running") != 0)
			return b;
		n = svc_runs_ended(b);
		json_decref(b);
		if (n != ended) {
			ended = n;
			still = 0;
		} else if (++still > LAVA_WAIT_S * 5)
			break;
		usleep(200 * 1000);
	}
	{
		char *why = lava_diag(id);

		cr_assert_fail("bisection %lld did not finish: %s",
		    (long long)id, why);
		free(why);
	}
	return NULL;
}

/* A bisection of the fixture's range on the lab's group. */
static int64_t
lava_bisect(void)
{
	return lavaapi_bisect("spin");
}

/* Every run goes through the lab, and the planted culprit is found. */
Test(lava, culprit)
{
	json_t *b, *l;
	int64_t id;

	lava_setup("lava-culprit");
	l = lava_wait_health("ok");
	cr_assert_str_eq(json_string_value(json_object_get(l, "device_type")),
	    "ssh");
	json_decref(l);
	id = lava_bisect();
	b = lava_wait(id);
	svc_assert_culprit(b);
	json_decref(b);
	svc_assert_samples_consistent(id);
	lava_assert_one_job_per_run(id);
}

/*
 * Each commit's first job loses its connection (Incomplete, error_type
 * Infrastructure): it is submitted again, and only the second job's
 * measurements become samples.
 */
Test(lava, infrastructure_failure_retried)
{
	json_t *jobs, *j, *r, *s;
	char *inst;
	int64_t id, run;
	size_t i, n = 0;

	lt.crash_first = 1;
	lava_setup("lava-infra");
	json_decref(lava_wait_health("ok"));
	id = lava_bisect();
	lava_wait_runs(id, "done", 2);
	inst = lava_instance();
	r = svc_req("{\"cmd\":\"samples\",\"bisection\":%lld}",
	    (long long)id);
	json_array_foreach(json_object_get(r, "samples"), i, s) {
		run = json_integer_value(json_object_get(s, "run"));
		jobs = lava_jobs_of(inst, run);
		cr_assert_eq(json_array_size(jobs), 2, "run %lld: %zu jobs",
		    (long long)run, json_array_size(jobs));
		j = json_array_get(jobs, 0);
		cr_assert_str_eq(json_string_value(json_object_get(j,
		    "health")), "Incomplete");
		j = json_array_get(jobs, 1);
		cr_assert_str_eq(json_string_value(json_object_get(j,
		    "health")), "Complete");
		json_decref(jobs);
		n++;
	}
	json_decref(r);
	free(inst);
	cr_assert_geq(n, 2);
	cr_assert_eq(lavaapi_runs(id, "failed-infra"), 0);
	svc_assert_samples_consistent(id);
	json_decref(svc_req("{\"cmd\":\"cancel\",\"bisection\":%lld}",
	    (long long)id));
}

/* A lab trouble shows in hosts and in the waiting bisection's status. */
static void
lava_assert_trouble(const char *health, const char *words)
{
	json_t *l = lava_wait_health(health), *b;
	const char *e = json_string_value(json_object_get(l, "last_error"));
	int64_t id;

	cr_assert_not_null(strstr(e, words), "last_error: %s", e);
	json_decref(l);
	id = lava_bisect();
	b = svc_status(id);
	e = json_string_value(json_object_get(b, "trouble"));
	cr_assert_not_null(e, "status names no trouble");
	cr_assert_not_null(strstr(e, words), "trouble: %s", e);
	cr_assert_eq(json_array_size(json_object_get(b, "in_flight")), 0);
	json_decref(b);
}

Test(lava, bad_token)
{
	lt.token = "not-the-token";
	lava_setup("lava-token");
	lava_assert_trouble("token refused", "token refused");
}

Test(lava, unknown_device_type)
{
	lt.device_type = "nosuchboard";
	lava_setup("lava-devtype");
	lava_assert_trouble("device type unknown", "device type nosuchboard");
}

/*
 * kill -9 with jobs in the lab: the restarted daemon follows the jobs it
 * had (found by their description when not yet recorded), submits none
 * twice, loses no sample and still finds the culprit.
 */
Test(lava, kill9_no_double_submit)
{
	json_t *b;
	int64_t id;

	lava_setup("lava-kill");
	json_decref(lava_wait_health("ok"));
	id = lava_bisect();
	lava_wait_runs(id, "done", 2);
	{
		int i;

		for (i = 0; i < LAVA_WAIT_S * 10; i++) {
			json_t *l = lava_lab_row();
			json_int_t q = json_integer_value(json_object_get(l,
			    "queued")) + json_integer_value(json_object_get(l,
			    "running"));

			json_decref(l);
			if (q > 0)
				break;
			usleep(100 * 1000);
		}
	}
	cr_assert_neq(tst_daemon_stop(&svc.td, SIGKILL), -1);
	cr_assert_eq(tst_daemon_start(&svc.td), 0, "bisectd did not restart");
	b = lava_wait(id);
	svc_assert_culprit(b);
	json_decref(b);
	svc_assert_samples_consistent(id);
	lava_assert_one_job_per_run(id);
}

/* Cancel of a bisection cancels its jobs in the lab; watch shows them. */
Test(lava, cancel_cancels_jobs)
{
	json_t *r, *jobs, *j;
	char *inst, path[64];
	int64_t id;
	int i, fd, seen = 0;

	lt.hold = 1;
	lava_setup("lava-cancel");
	json_decref(lava_wait_health("ok"));
	fd = tst_daemon_connect(&svc.td);
	cr_assert_geq(fd, 0);
	free(tst_daemon_rpc(fd, "{\"cmd\":\"watch\"}"));
	id = lava_bisect();
	inst = lava_instance();
	/* The watch stream carries the job's events. */
	for (i = 0; i < 1000 && !seen; i++) {
		char *line = tst_daemon_read_line(fd);

		cr_assert_not_null(line, "the watch stream ended");
		seen = strstr(line, "\"event\":\"lab-job\"") != NULL &&
		    strstr(line, "\"state\":\"submitted\"") != NULL;
		free(line);
	}
	close(fd);
	cr_assert(seen, "no lab-job event on the watch stream");
	for (i = 0; i < LAVA_WAIT_S * 10; i++) {
		jobs = lava_jobs_of(inst, 1);
		if (json_array_size(jobs) > 0)
			break;
		json_decref(jobs);
		jobs = NULL;
		usleep(100 * 1000);
	}
	cr_assert_not_null(jobs, "run 1 never reached the lab");
	snprintf(path, sizeof(path), "jobs/%lld/", (long long)
	    json_integer_value(json_object_get(json_array_get(jobs, 0),
	    "id")));
	json_decref(jobs);
	r = svc_req("{\"cmd\":\"cancel\",\"bisection\":%lld}", (long long)id);
	cr_assert(json_is_true(json_object_get(r, "ok")));
	json_decref(r);
	for (i = 0; i < LAVA_WAIT_S * 5; i++) {
		j = lava_get(path);
		if (strcmp(json_string_value(json_object_get(j, "state")),
		    "Finished") == 0)
			break;
		json_decref(j);
		j = NULL;
		usleep(200 * 1000);
	}
	cr_assert_not_null(j, "the job never finished");
	cr_assert_str_eq(json_string_value(json_object_get(j, "health")),
	    "Canceled");
	json_decref(j);
	free(inst);
}

/* The lab's jobs of this daemon's sweep runs (caller decrefs). */
static json_t *
lava_sweep_jobs(void)
{
	char *inst = lava_instance(), path[160];
	json_t *r, *res;

	snprintf(path, sizeof(path), "jobs/?description__contains=bisectd-%s-"
	    "run-sweep-&ordering=id&limit=200", inst);
	r = lava_get(path);
	res = json_incref(json_object_get(r, "results"));
	json_decref(r);
	free(inst);
	cr_assert(json_is_array(res));
	return res;
}

/* Runs stored for ref's row at commit in `sweep s`. */
static int64_t
lava_sweep_runs(const char *ref, const char *commit, int64_t *row)
{
	json_t *r = sweepsvc_show("s"), *v = sweepsvc_row(r, ref, commit);
	int64_t n;

	cr_assert_not_null(v, "no row %s", ref);
	n = json_integer_value(json_object_get(v, "runs"));
	*row = json_integer_value(json_object_get(v, "id"));
	json_decref(r);
	return n;
}

/*
 * kill -9 while a sweep's run is a job in the lab: the restarted daemon
 * follows that job (recorded, or found by its run's description) instead
 * of submitting another, so the lab holds one job per stored run, each
 * description once, and nothing is left in flight once the tag is
 * compared.
 */
Test(lava, kill9_sweep_job_followed_not_resubmitted)
{
	char *t1, *t2, *lab;
	json_t *jobs, *j, *seen = json_object();
	int64_t runs1, runs2, row1, row2;
	size_t i;
	int n;

	lava_setup("lava-sweep");
	json_decref(lava_wait_health("ok"));
	t1 = sweepsvc_tag("tag", "next-1", NULL);
	lab = lava_sections();
	/* New commits with the same bench.c: a 15% floor keeps them equal. */
	sweepsvc_restart_mirrored("[sweep s]\nbenchmark = spin\ngroup = lava\n"
	    "tag_pattern = next-*\nsamples = 3\nbaseline = 3\n", "15%", lab);
	free(lab);
	for (n = 0; n < LAVA_WAIT_S * 10; n++) {
		json_t *l = lava_lab_row();
		json_int_t q = json_integer_value(json_object_get(l,
		    "running"));

		json_decref(l);
		if (q > 0)
			break;
		usleep(100 * 1000);
	}
	cr_assert_lt(n, LAVA_WAIT_S * 10, "no sweep run reached the lab");
	cr_assert_neq(tst_daemon_stop(&svc.td, SIGKILL), -1);
	cr_assert_eq(tst_daemon_start(&svc.td), 0, "bisectd did not restart");
	for (n = 0; n < LAVA_WAIT_S * 5 && lava_sweep_runs("next-1", t1,
	    &row1) < 3; n++)
		usleep(200 * 1000);
	t2 = sweepsvc_tag("tag", "next-2", NULL);
	json_decref(sweepsvc_wait("s", "next-2", t2, "compared"));
	runs1 = lava_sweep_runs("next-1", t1, &row1);
	runs2 = lava_sweep_runs("next-2", t2, &row2);
	cr_expect_eq(runs1, 3);
	cr_expect_eq(runs2, 3);
	jobs = lava_sweep_jobs();
	json_array_foreach(jobs, i, j) {
		const char *d = json_string_value(json_object_get(j,
		    "description"));

		cr_expect_null(json_object_get(seen, d), "%s submitted twice",
		    d);
		json_object_set_new(seen, d, json_true());
	}
	cr_expect_eq((int64_t)json_array_size(jobs), runs1 + runs2,
	    "%zu lab jobs for %lld stored runs", json_array_size(jobs),
	    (long long)(runs1 + runs2));
	cr_expect_eq(sweepsvc_jobs_left(row1), 0);
	cr_expect_eq(sweepsvc_jobs_left(row2), 0);
	json_decref(jobs);
	json_decref(seen);
	free(t1);
	free(t2);
}
