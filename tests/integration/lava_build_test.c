/* SPDX-License-Identifier: MIT */
/*
 * A lab group with a build_group, end to end: the real LAVA of
 * tests/support/lava-up.sh (BISECTD_TEST_LAVA_URL and _TOKEN), one sshd
 * build host (group "lab") and the real daemon.  Each commit is built on
 * the build host, where a log counts the builds; the lab's job only runs
 * what it finds at {artifact_url} (here a plain path: the `ssh` device is
 * this machine), building nothing itself.  Without the URL every test is
 * skipped by name.
 */
#include <criterion/criterion.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <jansson.h>
#include <sqlite3.h>

#include "common/xmalloc.h"
#include "tests/support/lavaapi.h"
#include "tests/support/lavajob.h"
#include "tests/support/svc.h"
#include "tests/support/tst.h"

TestSuite(lava_build, .fini = svc_fini, .timeout = 1800);

/* No run ended for this long: the test is stuck (a guard, not a timing
 * check). */
#define LB_STALL_S	240

/* Whether one commit (the first built that is not good, bad or the
 * culprit) fails to build. */
static int lb_fail_one;

/* The build script, the run script, the template, the benchmark, [lab]. */
static char *
lb_sections(void)
{
	char *text, *t, *fail, *script;

	if (lb_fail_one)
		xasprintf(&fail, "case \"$1\" in %s|%s|%s) ;; *)\n"
		    "  [ -s %s/broken ] || echo \"$1\" > %s/broken\n"
		    "  if [ \"$(cat %s/broken)\" = \"$1\" ]; then\n"
		    "    echo 'bench.c: does not build' >&2; exit 1\n"
		    "  fi;;\nesac\n", svc.good, svc.bad, svc.culprit, svc.dir,
		    svc.dir, svc.dir);
	else
		fail = xstrdup("");
	/* build.sh COMMIT DIR LOG: every build is a line of LOG. */
	xasprintf(&t, "#!/bin/sh\nset -e\necho \"$1\" >> \"$3\"\n%s"
	    "rm -rf \"$2\"\nmkdir -p \"$2\"\n"
	    "git -C %s archive \"$1\" | tar -x -C \"$2\"\n"
	    "cc -O2 -o \"$2/bench\" \"$2/bench.c\"\n", fail, svc.repo);
	free(tst_write_file(svc.dir, "hbuild.sh", t));
	free(t);
	free(fail);
	script = lavajob_report_script("\"$1\"");
	free(tst_write_file(svc.dir, "runart.sh", script));
	free(script);
	xasprintf(&t, "          - sh %s/runart.sh {artifact_url}\n", svc.dir);
	script = lavajob_template(t);
	free(t);
	free(tst_write_file(svc.dir, "job.yaml", script));
	free(script);
	xasprintf(&t, "%s\n", getenv("BISECTD_TEST_LAVA_TOKEN"));
	free(tst_write_file(svc.dir, "token", t));
	free(t);
	xasprintf(&text, "[benchmark labspin]\n"
	    "build = sh %s/hbuild.sh {commit} {workdir}/src-{short} "
	    "{workdir}/builds.log\n"
	    "artifact = {workdir}/src-{short}/bench\nrun = {artifact}\n"
	    "metrics = runtime_ms:lower, ops_per_sec:higher\n"
	    "min_change = 5%%\nbuild_timeout = 2m\nrun_timeout = 1m\n\n"
	    "[lab lab1]\ntype = lava\nurl = %s\ntoken_file = %s/token\n"
	    "device_type = ssh\ngroup = lava\njob_template = %s/job.yaml\n"
	    "max_jobs = 2\npoll_interval = 500ms\nbuild_group = lab\n"
	    "artifact_url = {artifact}\n", svc.dir, lavaapi_url(), svc.dir,
	    svc.dir);
	return text;
}

static void
lb_setup(const char *tag)
{
	lavaapi_require();
	svc_setup_with(tag, 1, NULL, 0, lb_sections);
}

static const char *
lb_str(json_t *o, const char *key)
{
	const char *s = json_string_value(json_object_get(o, key));

	return s != NULL ? s : "(none)";
}

/* Runs of the bisection in status b, in all states or in one. */
static int64_t
lb_runs(json_t *b, const char *state)
{
	json_t *runs = json_object_get(b, "runs"), *v;
	const char *k;
	int64_t n = 0;

	if (state != NULL)
		return json_integer_value(json_object_get(runs, state));
	json_object_foreach(runs, k, v)
		n += json_integer_value(v);
	return n;
}

/*
 * What a stuck test says: the newest lab job of the bisection's latest
 * runs (its state, health and failure comment) and the lab's last error.
 * Run ids count from 1 in the test's fresh database.  Caller frees.
 */
static char *
lb_stuck(json_t *b)
{
	char *inst = lavaapi_instance(svc.td.db), *msg, *status, *t;
	json_t *l = lavaapi_lab_row(), *jobs, *j;
	int64_t run;

	status = json_dumps(b, JSON_COMPACT);
	xasprintf(&msg, "no lab job yet; lab health %s, last error: %s; "
	    "status %s", lb_str(l, "health"), lb_str(l, "last_error"), status);
	for (run = lb_runs(b, NULL); run >= 1; run--) {
		jobs = lavaapi_jobs_of(lavaapi_url(), inst, run);
		j = json_array_get(jobs, json_array_size(jobs) - 1);
		if (j != NULL) {
			free(msg);
			xasprintf(&msg, "run %lld's last lab job %lld is %s, "
			    "%s (%s); lab health %s, last error: %s; status %s",
			    (long long)run, (long long)json_integer_value(
			    json_object_get(j, "id")), lb_str(j, "state"),
			    lb_str(j, "health"), lb_str(j, "failure_comment"),
			    lb_str(l, "health"), lb_str(l, "last_error"),
			    status);
			json_decref(jobs);
			break;
		}
		json_decref(jobs);
	}
	free(status);
	/* Its verification's bisections, whose runs are its progress then. */
	status = svc_children_text(b);
	xasprintf(&t, "%s%s", msg, status);
	free(status);
	free(msg);
	msg = t;
	json_decref(l);
	free(inst);
	return msg;
}

static int
lb_ended(json_t *b)
{
	const char *st = lb_str(b, "state");

	return strcmp(st, "queued") != 0 && strcmp(st, "running") != 0;
}

static int
lb_skipped(json_t *b)
{
	return lb_ended(b) || lb_runs(b, "skipped") > 0;
}

/*
 * Polls bisection id until done(status) holds and returns that status.
 * Fails once no run has ended for LB_STALL_S, in it or in the bisections
 * its verification started, with lb_stuck's words.
 */
static json_t *
lb_wait(int64_t id, int (*done)(json_t *b))
{
	int64_t ended = -1, n;
	json_t *b;
	char *why;
	int idle = 0;

	for (;;) {
		b = svc_status(id);
		if (done(b))
			return b;
		n = svc_runs_ended(b);
		if (n != ended) {
			ended = n;
			idle = 0;
		} else if (++idle > LB_STALL_S * 5) {
			why = lb_stuck(b);
			cr_assert_fail("bisection %lld is stuck: %s",
			    (long long)id, why);
		}
		json_decref(b);
		usleep(200 * 1000);
	}
}

/* The lab answers before the bisection starts. */
static void
lb_wait_lab_ok(void)
{
	json_t *l;
	int i;

	for (i = 0; i < LB_STALL_S * 5; i++) {
		l = lavaapi_lab_row();
		if (strcmp(lb_str(l, "health"), "ok") == 0) {
			json_decref(l);
			return;
		}
		json_decref(l);
		usleep(200 * 1000);
	}
	l = lavaapi_lab_row();
	cr_assert_fail("the lab never became ok: %s, %s", lb_str(l, "health"),
	    lb_str(l, "last_error"));
}

/* The commits of the bisection's runs in state (one SQL string each). */
static json_t *
lb_run_revs(int64_t id, const char *state)
{
	sqlite3 *db;
	sqlite3_stmt *st;
	json_t *out = json_array();

	cr_assert_eq(sqlite3_open_v2(svc.td.db, &db, SQLITE_OPEN_READONLY,
	    NULL), SQLITE_OK);
	cr_assert_eq(sqlite3_prepare_v2(db, "SELECT id, rev, host FROM runs "
	    "WHERE bisection = ? AND state = ? ORDER BY id", -1, &st, NULL),
	    SQLITE_OK);
	sqlite3_bind_int64(st, 1, id);
	sqlite3_bind_text(st, 2, state, -1, SQLITE_STATIC);
	while (sqlite3_step(st) == SQLITE_ROW)
		json_array_append_new(out, json_pack("{s:I, s:s, s:s}", "run",
		    (json_int_t)sqlite3_column_int64(st, 0), "rev",
		    (const char *)sqlite3_column_text(st, 1), "host",
		    sqlite3_column_text(st, 2) ? (const char *)
		    sqlite3_column_text(st, 2) : ""));
	sqlite3_finalize(st);
	sqlite3_close(db);
	return out;
}

/* How often the build host built commit. */
static int
lb_builds_of(const char *log, const char *commit)
{
	const char *p;
	int n = 0;

	for (p = log; (p = strstr(p, commit)) != NULL; p += 40)
		n++;
	return n;
}

static char *
lb_build_log(void)
{
	char *path, *log;

	xasprintf(&path, "%s/w0/builds.log", svc.dir);
	log = tst_read_file(path);
	free(path);
	cr_assert_not_null(log, "the build host built nothing");
	return log;
}

/*
 * Every commit is built once on the build host and run in the lab from
 * the built artifact: the job fetches it at {artifact_url}, and the
 * bisection finds the planted culprit.
 */
Test(lava_build, lab_runs_what_the_build_host_built)
{
	json_t *b, *runs, *r, *jobs, *job;
	char *log, *inst, *path, *want;
	const char *def;
	size_t i, lines = 0;

	lb_setup("lava-build");
	lb_wait_lab_ok();
	r = lavaapi_lab_row();
	cr_expect_str_eq(lb_str(r, "build_group"), "lab");
	json_decref(r);
	b = lb_wait(lavaapi_bisect("labspin"), lb_ended);
	svc_assert_culprit(b);
	svc_assert_samples_consistent(json_integer_value(json_object_get(b,
	    "id")));
	lavaapi_assert_one_job_per_run(json_integer_value(json_object_get(b,
	    "id")));
	log = lb_build_log();
	runs = lb_run_revs(json_integer_value(json_object_get(b, "id")),
	    "done");
	cr_assert_gt(json_array_size(runs), 2);
	json_array_foreach(runs, i, r)
		cr_expect_eq(lb_builds_of(log, lb_str(r, "rev")), 1,
		    "%s built %d times:\n%s", lb_str(r, "rev"),
		    lb_builds_of(log, lb_str(r, "rev")), log);
	for (i = 0; log[i] != '\0'; i++)
		lines += log[i] == '\n';
	/* Nothing else was built: one line per distinct commit sampled. */
	{
		json_t *seen = json_object();

		json_array_foreach(runs, i, r)
			json_object_set_new(seen, lb_str(r, "rev"),
			    json_true());
		cr_expect_eq(lines, json_object_size(seen), "%s", log);
		json_decref(seen);
	}
	/* The job ran the build host's artifact, and built nothing itself. */
	r = json_array_get(runs, 0);
	inst = lavaapi_instance(svc.td.db);
	jobs = lavaapi_jobs_of(lavaapi_url(), inst, json_integer_value(
	    json_object_get(r, "run")));
	xasprintf(&path, "jobs/%lld/", (long long)json_integer_value(
	    json_object_get(json_array_get(jobs, 0), "id")));
	job = lavaapi_get(lavaapi_url(), path);
	def = json_string_value(json_object_get(job, "original_definition"));
	cr_assert_not_null(def, "job %s has no original_definition", path);
	xasprintf(&want, "runart.sh %s/w0/src-%.12s/bench", svc.dir,
	    lb_str(r, "rev"));
	cr_expect_not_null(strstr(def, want), "%s not in:\n%s", want, def);
	cr_expect_null(strstr(def, "hbuild.sh"), "%s", def);
	free(want);
	free(path);
	json_decref(job);
	json_decref(jobs);
	free(inst);
	json_decref(runs);
	free(log);
	json_decref(b);
}

/*
 * A commit that does not build on the build host is skipped, and no lab
 * job is made for it; the commits that built went to the lab once each.
 */
Test(lava_build, failed_build_is_skipped_without_a_lab_job)
{
	json_t *b, *skipped, *r, *jobs;
	char *log, *inst, *path, *broken;
	int64_t id;
	size_t i;

	lb_fail_one = 1;
	lb_setup("lava-build-fail");
	lb_wait_lab_ok();
	id = lavaapi_bisect("labspin");
	b = lb_wait(id, lb_skipped);
	json_decref(b);
	xasprintf(&path, "%s/broken", svc.dir);
	broken = tst_read_file(path);
	free(path);
	cr_assert_not_null(broken, "no commit failed to build");
	skipped = lb_run_revs(id, "skipped");
	cr_assert_geq(json_array_size(skipped), 1);
	inst = lavaapi_instance(svc.td.db);
	log = lb_build_log();
	json_array_foreach(skipped, i, r) {
		cr_expect_eq(strncmp(broken, lb_str(r, "rev"), 40), 0,
		    "run %lld at %s skipped, not the broken %s",
		    (long long)json_integer_value(json_object_get(r, "run")),
		    lb_str(r, "rev"), broken);
		cr_expect_str_eq(lb_str(r, "host"), "h0");
		jobs = lavaapi_jobs_of(lavaapi_url(), inst, json_integer_value(
		    json_object_get(r, "run")));
		cr_expect_eq(json_array_size(jobs), 0, "run %lld has %zu lab "
		    "jobs", (long long)json_integer_value(json_object_get(r,
		    "run")), json_array_size(jobs));
		json_decref(jobs);
	}
	cr_expect_geq(lb_builds_of(log, lb_str(json_array_get(skipped, 0),
	    "rev")), 1, "%s", log);
	lavaapi_assert_one_job_per_run(id);
	json_decref(svc_req("{\"cmd\":\"cancel\",\"bisection\":%lld}",
	    (long long)id));
	json_decref(skipped);
	free(log);
	free(inst);
	free(broken);
}
