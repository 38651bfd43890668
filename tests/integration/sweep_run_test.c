/* SPDX-License-Identifier: MIT */
/*
 * Sweeps that run, end to end: the service fixture's repository (with its
 * benchmark at every commit) is the upstream the real daemon mirrors and
 * sweeps.  Tags appear during the tests; with no operator action the
 * daemon fetches them, runs the benchmark on the SSH hosts, compares each
 * tag and bisects what changed.
 */
#include <signal.h>
#include <time.h>

#include <criterion/criterion.h>

#include <dirent.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common/xmalloc.h"
#include "store/store.h"
#include "tests/support/svc.h"
#include "tests/support/sweepsvc.h"
#include "tests/support/tst.h"

TestSuite(sweep_run, .fini = svc_fini, .timeout = 600);

/* The sweep sections the tests add; small caps keep them quick. */
#define SWEEP_S \
	"[sweep s]\nbenchmark = spin\ngroup = lab\ntag_pattern = next-*\n" \
	"samples = 3\nbaseline = 3\n"
/* Five runs a tag: a window wide enough to see a tag being sampled. */
#define SWEEP_S5 \
	"[sweep s]\nbenchmark = spin\ngroup = lab\ntag_pattern = next-*\n" \
	"samples = 5\nbaseline = 3\n"

/* How many rows of the reply have ref (any commit). */
static int
sweep_count(const json_t *r, const char *ref)
{
	json_t *v;
	char full[128];
	size_t i;
	int n = 0;

	snprintf(full, sizeof(full), "refs/tags/%s", ref);
	json_array_foreach(json_object_get(r, "refs"), i, v)
		n += strcmp(json_string_value(json_object_get(v, "ref")),
		    full) == 0;
	return n;
}

/* The bisections the daemon has (`list`). */
static size_t
sweep_bisections(void)
{
	json_t *r = svc_req("{\"cmd\":\"list\"}"), *b;
	size_t i, n = 0;

	/* Children that verification starts are not the sweep's. */
	json_array_foreach(json_object_get(r, "bisections"), i, b)
		n += json_is_null(json_object_get(b, "parent"));
	json_decref(r);
	return n;
}

/* The changed metrics of a compared row. */
static size_t
sweep_changed(const json_t *row)
{
	return json_array_size(json_object_get(json_object_get(row, "result"),
	    "changed"));
}

/* The first-parent history of master, oldest first: [init, work 1, M1...]. */
static char **
sweep_mainline(size_t *n)
{
	char *out, *p, *nl, **v = NULL;
	int status;

	{
		char *argv[] = { "git", "-C", svc.repo, "rev-list",
		    "--first-parent", "--reverse", "master", NULL };

		out = tst_run_capture(argv, &status);
	}
	cr_assert_eq(status, 0);
	*n = 0;
	for (p = out; (nl = strchr(p, '\n')) != NULL; p = nl + 1) {
		*nl = '\0';
		v = xreallocarray(v, *n + 1, sizeof(*v));
		v[(*n)++] = xstrdup(p);
	}
	free(out);
	return v;
}

/* The result of row id, copied out of the walk. */
struct sweep_result {
	int64_t	 id;
	char	*result;
};

static int
sweep_result_row(void *arg, const struct store_sweep_ref *r)
{
	struct sweep_result *sr = arg;

	if (r->id == sr->id && r->result != NULL)
		sr->result = xstrdup(r->result);
	return 0;
}

/*
 * Clears the link of row id in the stopped daemon's database, as a kill -9
 * between the verdict and the bisection's start would leave it.
 */
static void
sweep_unlink(int64_t id)
{
	struct sweep_result sr = { id, NULL };
	struct store *st;
	struct bd_error err;

	cr_assert_eq(store_open(&st, svc.td.db, &err), 0, "%s", err.msg);
	cr_assert_eq(store_sweep_ref_list(st, "s", sweep_result_row, &sr,
	    &err), 0, "%s", err.msg);
	cr_assert_not_null(sr.result);
	cr_assert_eq(store_sweep_ref_set(st, id, STORE_SWEEP_COMPARED,
	    sr.result, 0, &err), 0, "%s", err.msg);
	store_close(st);
	free(sr.result);
}

Test(sweep_run, a_change_between_two_tags_is_found_and_bisected_alone)
{
	char **ml, *t1, *t2, *t3, *t4;
	json_t *r, *row, *b;
	size_t nml, i;
	int64_t rowid, bis;
	int killed = 0, waited;

	/* Mainline: init, work 1, M1, work 2, M2 (topic 2, the culprit)... */
	svc_setup("sweep-change", 1, "2:3", 0);
	ml = sweep_mainline(&nml);
	cr_assert_geq(nml, 7);
	t1 = sweepsvc_tag("at", "next-1", ml[2]);
	/*
	 * The planted change is +50% runtime; a loaded machine shifted a
	 * quiet tag's runs by 5-8% at the fixture's 5% floor (two of three
	 * full runs beside a fuzzer).  Found or not, no load reaches 15%.
	 */
	sweepsvc_restart_mirrored(SWEEP_S5, "15%", NULL);
	json_decref(sweepsvc_wait("s", "next-1", t1, "baseline"));

	t2 = sweepsvc_tag("at", "next-2", ml[3]);
	r = sweepsvc_wait("s", "next-2", t2, "compared");
	cr_expect_eq(sweep_changed(sweepsvc_row(r, "next-2", t2)), 0, "%s",
	    json_dumps(r, 0));
	cr_expect_eq(json_integer_value(json_object_get(sweepsvc_row(r, "next-1",
	    t1), "runs")), 5);
	json_decref(r);

	/* The change appears in next-3; a kill -9 while it is sampled. */
	t3 = sweepsvc_tag("at", "next-3", ml[4]);
	for (waited = 0; waited < SVC_WAIT_MS && !killed; waited += 20) {
		r = sweepsvc_show("s");
		row = sweepsvc_row(r, "next-3", t3);
		if (strcmp(sweepsvc_row_state(row), "sampling") == 0) {
			cr_assert_eq(tst_daemon_stop(&svc.td, SIGKILL),
			    128 + SIGKILL);
			killed = 1;
		}
		cr_assert(strcmp(sweepsvc_row_state(row), "compared") != 0,
		    "next-3 was compared before it was seen sampling");
		json_decref(r);
		usleep(20 * 1000);
	}
	cr_assert(killed);
	cr_assert_eq(tst_daemon_start(&svc.td), 0);
	r = sweepsvc_wait("s", "next-3", t3, "compared");
	row = sweepsvc_row(r, "next-3", t3);
	cr_expect_eq(json_integer_value(json_object_get(row, "runs")), 5,
	    "%s", json_dumps(row, 0));
	cr_assert_gt(sweep_changed(row), 0, "%s", json_dumps(r, 0));
	rowid = json_integer_value(json_object_get(row, "id"));
	json_decref(r);
	/*
	 * The run the kill interrupted was followed again as the stored run it
	 * was (a lab finds its job by that id): one run id per stored run,
	 * and none left in flight once the row is compared.
	 */
	cr_expect_eq(sweepsvc_log_runs(rowid), 5);
	cr_expect_eq(sweepsvc_jobs_left(rowid), 0);

	/* The bisection is linked; lose the link to a kill -9: linked again,
	 * to the same bisection. */
	for (waited = 0, bis = 0; waited < SVC_WAIT_MS && bis == 0;
	    waited += 100) {
		r = sweepsvc_show("s");
		bis = json_integer_value(json_object_get(sweepsvc_row(r, "next-3",
		    t3), "bisection"));
		json_decref(r);
		if (bis == 0)
			usleep(100 * 1000);
	}
	cr_assert_gt(bis, 0);
	cr_assert_eq(tst_daemon_stop(&svc.td, SIGKILL), 128 + SIGKILL);
	sweep_unlink(rowid);
	cr_assert_eq(tst_daemon_start(&svc.td), 0);
	for (waited = 0, i = 0; waited < SVC_WAIT_MS && i == 0;
	    waited += 100) {
		r = sweepsvc_show("s");
		i = (size_t)json_integer_value(json_object_get(sweepsvc_row(r,
		    "next-3", t3), "bisection"));
		json_decref(r);
		if (i == 0)
			usleep(100 * 1000);
	}
	cr_expect_eq((int64_t)i, bis);
	cr_expect_eq(sweep_bisections(), 1);

	/* It names the planted culprit; the next tag changes nothing. */
	b = svc_wait(bis);
	svc_assert_culprit(b);
	cr_expect_str_eq(json_string_value(json_object_get(b, "bad")), t3);
	{
		const json_t *g = json_array_get(json_object_get(b, "good"), 0);

		cr_expect_str_eq(json_string_value(g), t2);
	}
	json_decref(b);
	t4 = sweepsvc_tag("at", "next-4", ml[6]);
	r = sweepsvc_wait("s", "next-4", t4, "compared");
	cr_expect_eq(sweep_changed(sweepsvc_row(r, "next-4", t4)), 0, "%s",
	    json_dumps(r, 0));
	/* Every tag once, one bisection, one change. */
	cr_expect_eq(json_array_size(json_object_get(r, "refs")), 4);
	cr_expect_eq(sweep_count(r, "next-3"), 1);
	cr_expect_eq(json_integer_value(json_object_get(json_object_get(r,
	    "sweep"), "changes")), 1);
	json_decref(r);
	cr_expect_eq(sweep_bisections(), 1);
	for (i = 0; i < nml; i++)
		free(ml[i]);
	free(ml);
	free(t1);
	free(t2);
	free(t3);
	free(t4);
}

/* A daily time half a day away, so that nothing is due during the test. */
static char *
sweep_daily_far(void)
{
	time_t t = time(NULL) + 12 * 3600;
	struct tm tm;
	char *s;

	gmtime_r(&t, &tm);
	xasprintf(&s, SWEEP_S "[sweep d]\nbenchmark = spin\ngroup = lab\n"
	    "tag_pattern = next-*\nsamples = 3\nschedule = daily %02d:%02d\n",
	    tm.tm_hour, tm.tm_min);
	return s;
}

Test(sweep_run, quiet_tags_start_nothing_broken_and_rewritten_tags_shown)
{
	char *t[13], *rw, *daily, *out, name[32];
	const char *argv[6];
	json_t *r, *row, *d;
	int i, status, skipped = 0;

	svc_setup("sweep-quiet", 2, "4:6", 0);
	t[0] = sweepsvc_tag("tag", "next-00", NULL);
	daily = sweep_daily_far();
	/* A floor the planted-free tags cannot reach when the machine's load
	 * shifts a whole tag's runs: what is tested here is that nothing is
	 * started, the false-alarm rate is make bench-sweep's. */
	sweepsvc_restart_mirrored(daily, "15%", NULL);
	free(daily);
	json_decref(sweepsvc_wait("s", "next-00", t[0], "baseline"));

	/* Ten tags with no change: compared, nothing changed, no bisection. */
	for (i = 1; i <= 10; i++) {
		snprintf(name, sizeof(name), "next-%02d", i);
		t[i] = sweepsvc_tag("tag", name, NULL);
	}
	r = sweepsvc_wait("s", "next-10", t[10], "compared");
	for (i = 1; i <= 10; i++) {
		snprintf(name, sizeof(name), "next-%02d", i);
		row = sweepsvc_row(r, name, t[i]);
		cr_expect_str_eq(sweepsvc_row_state(row), "compared");
		cr_expect_eq(sweep_changed(row), 0, "%s: %s", name,
		    json_dumps(row, 0));
		cr_expect_eq(json_integer_value(json_object_get(row, "runs")),
		    3);
	}
	json_decref(r);
	cr_expect_eq(sweep_bisections(), 0);

	/* The daily sweep waited; --now sweeps the newest, skips the rest. */
	r = svc_req("{\"cmd\":\"sweeps\"}");
	d = json_array_get(json_object_get(r, "sweeps"), 1);
	cr_expect_str_eq(json_string_value(json_object_get(d, "state")),
	    "waiting", "%s", json_dumps(d, 0));
	cr_expect(json_integer_value(json_object_get(d, "next_ms")) >
	    (json_int_t)time(NULL) * 1000, "%s", json_dumps(d, 0));
	cr_expect_eq(json_integer_value(json_object_get(d, "pending")), 10);
	cr_expect(strlen(json_string_value(json_object_get(d, "next"))) == 20 &&
	    strstr(json_string_value(json_object_get(d, "next")), " UTC") !=
	    NULL, "%s", json_dumps(d, 0));
	json_decref(r);
	json_decref(svc_req("{\"cmd\":\"sweep\",\"name\":\"d\",\"now\":true}"));
	r = sweepsvc_wait("d", "next-10", t[10], "compared");
	for (i = 1; i < 10; i++) {
		snprintf(name, sizeof(name), "next-%02d", i);
		skipped += strcmp(sweepsvc_row_state(sweepsvc_row(r, name, t[i])),
		    "skipped") == 0;
	}
	cr_expect_eq(skipped, 9, "%s", json_dumps(r, 0));
	cr_expect_str_eq(json_string_value(json_object_get(json_object_get(r,
	    "sweep"), "state")), "idle");
	json_decref(r);

	/* A tag that does not build: failed, not compared; the next tag is
	 * compared with the one before the failed one. */
	t[11] = sweepsvc_tag("broken", "next-11", NULL);
	r = sweepsvc_wait("s", "next-11", t[11], "failed");
	row = sweepsvc_row(r, "next-11", t[11]);
	cr_expect_null(json_object_get(json_object_get(row, "result"),
	    "metrics"));
	cr_expect_str_eq(json_string_value(json_object_get(json_object_get(
	    row, "result"), "failed")), "build", "%s", json_dumps(row, 0));
	cr_expect_eq(json_integer_value(json_object_get(json_object_get(r,
	    "sweep"), "failed")), 1);
	json_decref(r);
	t[12] = sweepsvc_tag("tag", "next-12", NULL);
	r = sweepsvc_wait("s", "next-12", t[12], "compared");
	cr_expect_str_eq(json_string_value(json_object_get(json_object_get(
	    sweepsvc_row(r, "next-12", t[12]), "result"), "prev")),
	    "refs/tags/next-10");
	json_decref(r);

	/* A rewritten tag: swept again, the old commit shown rewritten. */
	rw = sweepsvc_tag("rewrite", "next-12", NULL);
	r = sweepsvc_wait("s", "next-12", rw, "compared");
	cr_expect_str_eq(sweepsvc_row_state(sweepsvc_row(r, "next-12", t[12])),
	    "rewritten");
	cr_expect_eq(sweep_count(r, "next-12"), 2);
	cr_expect_eq(sweep_changed(sweepsvc_row(r, "next-12", rw)), 0);
	json_decref(r);
	cr_expect_eq(sweep_bisections(), 0);

	/* What bisectctl prints of it. */
	argv[0] = tst_env_path("BISECTCTL_BIN");
	argv[1] = "-s";
	argv[2] = svc.td.sock;
	argv[3] = "sweep";
	argv[4] = "s";
	argv[5] = NULL;
	out = tst_daemon_run_both(argv, &status);
	cr_assert_eq(status, 0, "%s", out);
	cr_expect(strstr(out, "build step failed") != NULL &&
	    strstr(out, "rewritten") != NULL && strstr(out, "compared") !=
	    NULL, "%s", out);
	free(out);
	argv[4] = "d";
	out = tst_daemon_run_both(argv, &status);
	cr_assert_eq(status, 0, "%s", out);
	cr_expect(strstr(out, "skipped: next-10 is newer") != NULL, "%s", out);
	free(out);
	for (i = 0; i <= 12; i++)
		free(t[i]);
	free(rw);
}
