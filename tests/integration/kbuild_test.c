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
	    "build = echo {commit} >> %s/builds && " KB_COMPILE "\n"
	    "artifact = {workdir}/src-{short}/bench\n"
	    "run = {artifact}\n"
	    "metrics = runtime_ms:lower, ops_per_sec:higher\n"
	    "min_change = 5%%\nverify = none\n"
	    "build_timeout = 2m\nrun_timeout = 1m\n", svc.dir, svc.repo);
	return text;
}

Test(kbuild, a_commit_is_built_once_on_two_hosts)
{
	json_t *b;
	char *builds, *line, *next, *dup;
	int64_t id;

	svc_setup_with("kb-once", 2, "2:3", 0, counted_bench);
	id = svc_bisect_on("counted", svc.good, svc.bad, "runtime_ms", NULL);
	b = svc_wait(id);
	svc_assert_culprit(b);
	json_decref(b);
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
	h = svc_host("h0");
	cr_assert_str_eq(json_string_value(json_object_get(h, "state")),
	    "up");
	json_decref(h);
}
