/* SPDX-License-Identifier: MIT */
/*
 * What a real kernel on several hosts showed (issue 34), each against the
 * real daemon and real sshd hosts: every sample comes from the artifact
 * built for its commit even when the build always writes one fixed path;
 * one build per commit at a time; exit 75 asks for another try; one failed
 * run at an endpoint does not fail the bisection; and a hung benchmark
 * ends the bisection failed within its retry budget instead of looping.
 */
#include <criterion/criterion.h>
#include <jansson.h>
#include <signal.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common/xmalloc.h"
#include "tests/support/svc.h"
#include "tests/support/tst.h"

TestSuite(kbuild, .fini = svc_fini, .timeout = 900);

/* The fixture's compile of bench.c into the commit's own directory. */
#define KB_COMPILE \
	"mkdir -p {workdir}/src-{short} {workdir}/out && git -C %s archive " \
	"{commit} | tar -x -C {workdir}/src-{short} && cc -O2 -o " \
	"{workdir}/src-{short}/bench {workdir}/src-{short}/bench.c"

/*
 * A kernel build in miniature: the artifact is always the same path, as
 * with O= and arch/x86/boot/bzImage, and holds the commit it was built
 * from; the run notes every time it sees another commit's artifact, as a
 * check of the booted kernel's release string would.
 */
static char *
fixed_bench(void)
{
	char *text;

	xasprintf(&text, "\n[benchmark fixed]\n"
	    "build = " KB_COMPILE " && echo {commit} > {workdir}/out/kernel\n"
	    "artifact = {workdir}/out/kernel\n"
	    "run = if [ \"$(cat {artifact})\" != {commit} ]; then echo {commit} "
	    ">> %s/stale; fi; {workdir}/src-{short}/bench\n"
	    "metrics = runtime_ms:lower, ops_per_sec:higher\n"
	    "min_change = 5%%\nverify = none\n"
	    "build_timeout = 2m\nrun_timeout = 1m\n", svc.repo, svc.dir);
	return text;
}

/* Reads a file of svc.dir, or NULL when it does not exist. */
static char *
kb_read(const char *name)
{
	char *path, *text = NULL;
	FILE *f;
	long n;

	xasprintf(&path, "%s/%s", svc.dir, name);
	if ((f = fopen(path, "r")) != NULL) {
		fseek(f, 0, SEEK_END);
		n = ftell(f);
		rewind(f);
		text = xmalloc((size_t)n + 1);
		text[fread(text, 1, (size_t)n, f)] = '\0';
		fclose(f);
	}
	free(path);
	return text;
}

Test(kbuild, a_fixed_artifact_path_never_runs_another_commits_build)
{
	json_t *b;
	char *stale, *kept;
	int64_t id;

	svc_setup_with("kb-fixed", 1, "2:3", 0, fixed_bench);
	id = svc_bisect_on("fixed", svc.good, svc.bad, "runtime_ms", NULL);
	b = svc_wait(id);
	stale = kb_read("stale");
	cr_assert_null(stale, "runs saw the artifact of another commit at: %s",
	    stale);
	svc_assert_culprit(b);
	json_decref(b);
	/* The kept copies are there, named by their hash. */
	xasprintf(&kept, "%s/w0/.bisectd/artifacts", svc.dir);
	cr_assert_eq(access(kept, R_OK), 0, "no %s", kept);
	free(kept);
}

/*
 * Two hosts that both build: the build script notes each build, and no
 * commit may be built twice (the cache and one build per commit at a
 * time; relays go over SFTP or exec).
 */
static char *
counted_bench(void)
{
	char *text;

	xasprintf(&text, "\n[benchmark counted]\n"
	    "build = echo {commit} >> %s/builds && sleep 2 && " KB_COMPILE
	    "\n"
	    "artifact = {workdir}/src-{short}/bench\n"
	    "run = {artifact}\n"
	    "metrics = runtime_ms:lower, ops_per_sec:higher\n"
	    "min_change = 5%%\nverify = none\n"
	    "build_timeout = 2m\nrun_timeout = 1m\n", svc.dir, svc.repo);
	return text;
}

/* No commit appears twice in the builds file counted_bench writes. */
static void
kb_assert_built_once(void)
{
	char *builds, *line, *next, *dup;

	builds = kb_read("builds");
	cr_assert_not_null(builds);
	cr_log_info("builds:\n%s", builds);
	/* Each line (a sha and a newline) appears once in the file. */
	for (line = builds; (next = strchr(line, '\n')) != NULL;
	    line = next + 1) {
		*next = '\0';
		dup = strstr(next + 1, line);
		cr_assert_null(dup, "%s was built twice", line);
		*next = '\n';
	}
	free(builds);
}

Test(kbuild, a_commit_is_built_once_on_two_hosts)
{
	json_t *b;
	int64_t id;

	svc_setup_with("kb-once", 2, "2:3", 0, counted_bench);
	id = svc_bisect_on("counted", svc.good, svc.bad, "runtime_ms", NULL);
	b = svc_wait(id);
	svc_assert_culprit(b);
	json_decref(b);
	kb_assert_built_once();
}

/* The hosts the store lists as keeping an artifact of commit. */
static int
kb_copies(const char *commit, const char *host)
{
	sqlite3 *db;
	sqlite3_stmt *st;
	int n;

	cr_assert_eq(sqlite3_open_v2(svc.td.db, &db, SQLITE_OPEN_READONLY,
	    NULL), SQLITE_OK);
	cr_assert_eq(sqlite3_prepare_v2(db, "SELECT count(*) FROM build_hosts"
	    " JOIN builds ON builds.id = build_hosts.build"
	    " WHERE builds.rev = ?1 AND build_hosts.host = ?2"
	    " AND length(build_hosts.sha256) = 64", -1, &st, NULL),
	    SQLITE_OK, "%s", sqlite3_errmsg(db));
	sqlite3_bind_text(st, 1, commit, -1, SQLITE_STATIC);
	sqlite3_bind_text(st, 2, host, -1, SQLITE_STATIC);
	cr_assert_eq(sqlite3_step(st), SQLITE_ROW);
	n = sqlite3_column_int(st, 0);
	sqlite3_finalize(st);
	sqlite3_close(db);
	return n;
}

/*
 * Every commit is built on h0 and relayed to h1, the only test host, which
 * keeps the checked copies.  With h0 gone (its sshd stopped) and h1 now
 * able to build, a second bisection of the range takes the commits h1
 * keeps from h1 itself: none is built again, and the store lists both
 * hosts for each endpoint.
 */
Test(kbuild, a_relayed_copy_serves_when_its_build_host_is_down)
{
	json_t *b;
	char *more;
	int64_t id;

	svc_set_roles(0, "build");
	svc_set_roles(1, "test");
	svc_setup_with("kb-held", 2, "2:3", 0, counted_bench);
	id = svc_bisect_on("counted", svc.good, svc.bad, "runtime_ms", NULL);
	b = svc_wait(id);
	svc_assert_culprit(b);
	json_decref(b);
	cr_assert_eq(tst_daemon_stop(&svc.td, SIGTERM), 0);
	cr_assert_eq(kb_copies(svc.good, "h0"), 1);
	cr_assert_eq(kb_copies(svc.good, "h1"), 1);
	cr_assert_eq(kb_copies(svc.bad, "h0"), 1);
	cr_assert_eq(kb_copies(svc.bad, "h1"), 1);
	sshd_stop(&svc.host[0]);
	svc_set_roles(1, "build,test");
	more = counted_bench();
	svc_restart(more);
	free(more);
	id = svc_bisect_on("counted", svc.good, svc.bad, "ops_per_sec", NULL);
	b = svc_wait(id);
	svc_assert_culprit(b);
	json_decref(b);
	kb_assert_built_once();
}

/*
 * A flaky run: the good endpoint's first run exits 75 (try again), the bad
 * endpoint's second run exits 1 after its first one succeeded.
 */
static char *
flaky_bench(void)
{
	char *text;

	xasprintf(&text, "\n[benchmark flaky]\n"
	    "build = " KB_COMPILE "\n"
	    "artifact = {workdir}/src-{short}/bench\n"
	    "run = c=%s/n-{short}; n=$(cat $c 2>/dev/null || echo 0); "
	    "n=$((n + 1)); echo $n > $c; "
	    "if [ {commit} = %s ] && [ $n = 1 ]; then exit 75; fi; "
	    "if [ {commit} = %s ] && [ $n = 2 ]; then exit 1; fi; "
	    "{artifact}\n"
	    "metrics = runtime_ms:lower, ops_per_sec:higher\n"
	    "min_change = 5%%\nverify = none\n"
	    "build_timeout = 2m\nrun_timeout = 1m\n", svc.repo, svc.dir,
	    svc.good, svc.bad);
	return text;
}

Test(kbuild, a_retry_request_and_one_failed_run_do_not_fail_the_bisection)
{
	json_t *b, *h;
	char *dump;
	int64_t id;

	svc_setup_with("kb-flaky", 1, "2:3", 0, flaky_bench);
	id = svc_bisect_on("flaky", svc.good, svc.bad, "runtime_ms", NULL);
	b = svc_wait(id);
	dump = json_dumps(b, JSON_COMPACT);
	cr_log_info("%s", dump);
	free(dump);
	svc_assert_culprit(b);
	json_decref(b);

	/* Exit 75 was tried again, not recorded; exit 1 was recorded. */
	b = svc_status(id);
	dump = json_dumps(json_object_get(b, "runs"), JSON_COMPACT);
	cr_assert_eq(json_integer_value(json_object_get(json_object_get(b,
	    "runs"), "skipped")), 1, "runs %s", dump);
	cr_assert_eq(json_integer_value(json_object_get(json_object_get(b,
	    "runs"), "failed-infra")), 0, "runs %s", dump);
	free(dump);
	json_decref(b);
	/* Neither charged the host. */
	h = svc_host("h0");
	cr_assert_str_eq(json_string_value(json_object_get(h, "state")),
	    "up");
	json_decref(h);
}

/* A benchmark that hangs every time. */
static char *
hung_bench(void)
{
	char *text;

	xasprintf(&text, "\n[benchmark hung]\n"
	    "build = " KB_COMPILE "\n"
	    "artifact = {workdir}/src-{short}/bench\n"
	    "run = sleep 100000\n"
	    "metrics = runtime_ms:lower\n"
	    "min_change = 5%%\nverify = none\nretry_budget = 4\n"
	    "build_timeout = 2m\nrun_timeout = 1s\n", svc.repo);
	return text;
}

Test(kbuild, a_hung_benchmark_ends_the_bisection_failed)
{
	json_t *b, *h;
	const char *detail;
	char *dump;
	int64_t id;

	svc_setup_with("kb-hung", 1, "2:3", 0, hung_bench);
	id = svc_bisect_on("hung", svc.good, svc.bad, "runtime_ms", NULL);
	b = svc_wait(id);
	dump = json_dumps(b, JSON_COMPACT);
	cr_assert_str_eq(json_string_value(json_object_get(b, "state")),
	    "failed", "%s", dump);
	detail = json_string_value(json_object_get(b, "message"));
	cr_assert_not_null(detail, "%s", dump);
	cr_assert_not_null(strstr(detail, "retry_budget 4"), "%s", dump);
	free(dump);
	json_decref(b);
	/* The log says it at the error level, which log_level = error keeps. */
	xasprintf(&dump, "[error] bisection %lld failed: ", (long long)id);
	cr_assert(tst_daemon_log_wait(&svc.td, "bisectd.log", dump),
	    "no log line: %s", dump);
	free(dump);
	h = svc_host("h0");
	cr_assert_str_eq(json_string_value(json_object_get(h, "state")),
	    "up");
	json_decref(h);
}

/*
 * The README's build recipe, from "cd {workdir}/linux" up to its make: a
 * benchmark that builds through it must build what bisectd asks for,
 * the revert of a culprit included.
 */
static char *
readme_recipe(void)
{
	char *path, *text, *start, *end, *recipe;
	FILE *f;
	long n;

	xasprintf(&path, "%s/README.md", tst_env_path("BISECTD_SRCDIR"));
	cr_assert_not_null(f = fopen(path, "r"), "%s", path);
	fseek(f, 0, SEEK_END);
	n = ftell(f);
	rewind(f);
	text = xmalloc((size_t)n + 1);
	text[fread(text, 1, (size_t)n, f)] = '\0';
	fclose(f);
	free(path);
	start = strstr(text, "build = cd {workdir}/linux && ");
	cr_assert_not_null(start, "no build recipe in README.md");
	start += strlen("build = ");
	end = strstr(start, " && make");
	cr_assert_not_null(end, "the README's recipe runs no make");
	recipe = xstrndup(start, (size_t)(end - start));
	free(text);
	return recipe;
}

static char *
recipe_bench(void)
{
	char *text, *recipe = readme_recipe();

	xasprintf(&text, "\n[benchmark recipe]\n"
	    "build = mkdir -p {workdir}/out-{short} && { [ -d {workdir}/linux ] "
	    "|| git clone -q %s {workdir}/linux; } && %s && cc -O2 -o "
	    "{workdir}/out-{short}/bench bench.c\n"
	    "artifact = {workdir}/out-{short}/bench\n"
	    "run = {artifact}\n"
	    "metrics = runtime_ms:lower, ops_per_sec:higher\n"
	    "min_change = 5%%\nverify = revert\n"
	    "build_timeout = 2m\nrun_timeout = 1m\n", svc.repo, recipe);
	free(recipe);
	return text;
}

Test(kbuild, the_readme_recipe_builds_the_revert)
{
	json_t *b, *v;
	char *dump;
	int64_t id;

	svc_setup_case_with("kb-recipe", 1, "restore", recipe_bench);
	id = svc_bisect_on("recipe", svc.good, svc.bad, "runtime_ms", NULL);
	b = svc_wait(id);
	dump = json_dumps(b, JSON_COMPACT);
	svc_assert_culprit(b);
	v = json_object_get(b, "verification");
	cr_assert_not_null(v, "%s", dump);
	cr_assert_str_eq(json_string_value(json_object_get(v, "result")),
	    "restores", "%s", dump);
	free(dump);
	json_decref(b);
}

/*
 * A host whose sshd has no SFTP subsystem still receives the artifacts
 * built on the other host (cat over an exec channel), and hosts says so.
 */
Test(kbuild, artifacts_reach_a_host_without_sftp)
{
	json_t *b, *h;
	char *dump;
	int64_t id;

	/* h0 builds, h1 runs: every artifact must reach h1. */
	svc_set_nosftp(1u << 1);
	svc_set_roles(0, "build");
	svc_set_roles(1, "test");
	svc_setup_with("kb-nosftp", 2, "2:3", 0, counted_bench);
	id = svc_bisect_on("counted", svc.good, svc.bad, "runtime_ms", NULL);
	b = svc_wait(id);
	svc_assert_culprit(b);
	json_decref(b);
	h = svc_host("h1");
	dump = json_dumps(h, JSON_COMPACT);
	cr_assert_str_eq(json_string_value(json_object_get(h, "receives")),
	    "exec", "%s", dump);
	cr_assert_eq(json_integer_value(json_object_get(h, "copy_failures")),
	    0, "%s", dump);
	cr_assert_str_eq(json_string_value(json_object_get(h, "state")), "up",
	    "%s", dump);
	free(dump);
	json_decref(h);
}

/*
 * A run that builds is running, in the store and in status, from the
 * moment its build starts, and status says what it does where.
 */
Test(kbuild, status_shows_the_phase_of_a_run_while_it_builds)
{
	json_t *b, *f;
	const char *phase, *host;
	char *dump = NULL;
	int waited, seen = 0;
	size_t i;
	int64_t id;

	svc_setup_with("kb-phase", 1, "2:3", 0, counted_bench);
	id = svc_bisect_on("counted", svc.good, svc.bad, "runtime_ms", NULL);
	for (waited = 0; waited < SVC_WAIT_MS && !seen; waited += 100) {
		b = svc_status(id);
		json_array_foreach(json_object_get(b, "in_flight"), i, f) {
			phase = json_string_value(json_object_get(f, "phase"));
			host = json_string_value(json_object_get(f, "host"));
			if (phase != NULL && strcmp(phase, "build") == 0 &&
			    host != NULL && strcmp(host, "h0") == 0 &&
			    json_is_integer(json_object_get(f,
			    "phase_seconds"))) {
				free(dump);
				dump = json_dumps(b, JSON_COMPACT);
				cr_assert_geq(json_integer_value(json_object_get(
				    json_object_get(b, "runs"), "running")), 1,
				    "a building run is not running: %s", dump);
				cr_assert(json_is_integer(json_object_get(b,
				    "elapsed_seconds")), "%s", dump);
				seen = 1;
			}
		}
		json_decref(b);
		if (!seen)
			usleep(100 * 1000);
	}
	cr_assert(seen, "no status showed a run building on h0");
	free(dump);
	b = svc_wait(id);
	svc_assert_culprit(b);
	json_decref(b);
}

/* Builds that take a while and runs that take a second at least. */
static char *
slow_bench(void)
{
	char *text;

	xasprintf(&text, "\n[benchmark slow]\n"
	    "build = sleep 4 && " KB_COMPILE "\n"
	    "artifact = {workdir}/src-{short}/bench\n"
	    "run = sleep 1 && {artifact}\n"
	    "metrics = runtime_ms:lower, ops_per_sec:higher\n"
	    "min_change = 5%%\nverify = none\n"
	    "build_timeout = 2m\nrun_timeout = 1m\n", svc.repo);
	return text;
}

/*
 * The estimate of time left follows measured durations: during the first
 * build it is at least what that build has taken so far (not the pace of
 * runs nobody has measured), and a later bisection of the benchmark
 * starts from the runs measured before, each at least the run's second.
 */
Test(kbuild, the_estimate_follows_measured_build_and_run_times)
{
	json_t *b, *f, *r;
	const char *phase;
	char *dump;
	double est, left;
	int waited, seen = 0;
	size_t i;
	int64_t id;

	svc_setup_with("kb-eta", 1, "2:3", 0, slow_bench);
	id = svc_bisect_on("slow", svc.good, svc.bad, "runtime_ms", NULL);
	for (waited = 0; waited < SVC_WAIT_MS && !seen; waited += 100) {
		b = svc_status(id);
		dump = json_dumps(b, JSON_COMPACT);
		json_array_foreach(json_object_get(b, "in_flight"), i, f) {
			phase = json_string_value(json_object_get(f, "phase"));
			if (phase == NULL || strcmp(phase, "build") != 0 ||
			    json_integer_value(json_object_get(f,
			    "phase_seconds")) < 2 ||
			    json_integer_value(json_object_get(b,
			    "samples")) != 0)
				continue;
			cr_assert(json_is_number(json_object_get(b,
			    "est_seconds_left")), "no estimate: %s", dump);
			est = json_number_value(json_object_get(b,
			    "est_seconds_left"));
			cr_assert_geq(est, (double)json_integer_value(
			    json_object_get(f, "phase_seconds")),
			    "the estimate is shorter than the build so far: %s",
			    dump);
			seen = 1;
			break;
		}
		free(dump);
		json_decref(b);
		if (!seen)
			usleep(100 * 1000);
	}
	cr_assert(seen, "no status during the first build");
	b = svc_wait(id);
	svc_assert_culprit(b);
	json_decref(b);
	/* The commits are kept: the next bisection's pace is the runs'. */
	id = svc_bisect_on("slow", svc.good, svc.bad, "ops_per_sec", NULL);
	for (waited = 0, seen = 0; waited < SVC_WAIT_MS && !seen;
	    waited += 100) {
		b = svc_status(id);
		left = json_number_value(json_object_get(b,
		    "est_samples_left"));
		if (left > 0) {
			dump = json_dumps(b, JSON_COMPACT);
			cr_assert(json_is_number(json_object_get(b,
			    "est_seconds_left")), "no estimate: %s", dump);
			est = json_number_value(json_object_get(b,
			    "est_seconds_left"));
			cr_assert_geq(est, left * 1.0, "runs take a second at "
			    "least: %s", dump);
			free(dump);
			seen = 1;
		}
		json_decref(b);
		if (!seen)
			usleep(100 * 1000);
	}
	cr_assert(seen, "no estimate of the second bisection");
	r = svc_req("{\"cmd\":\"cancel\",\"bisection\":%lld}", (long long)id);
	json_decref(r);
	svc_wait_quiet(id);
}
