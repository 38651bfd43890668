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

/* Runs sweep-tag.sh on the fixture repository; the sha it printed. */
static char *
sweep_tag(const char *op, const char *name, const char *rev)
{
	char *mk, *out, *nl;
	int status;

	xasprintf(&mk, "%s/tests/fixtures/e2e/sweep-tag.sh",
	    tst_env_path("BISECTD_SRCDIR"));
	{
		char *argv[] = { "sh", mk, svc.repo, (char *)op, (char *)name,
		    (char *)rev, NULL };

		out = tst_run_capture(argv, &status);
	}
	free(mk);
	cr_assert_not_null(out);
	cr_assert_eq(status, 0, "sweep-tag.sh %s %s: %s", op, name, out);
	if ((nl = strchr(out, '\n')) != NULL)
		*nl = '\0';
	cr_assert_eq(strlen(out), 40, "%s", out);
	return out;
}

/*
 * The daemon again, now mirroring the fixture repository (its tags
 * next-*) with the sweep sections added; min_change (NULL: the fixture's
 * 5%) replaces the benchmark's floor.
 */
static void
sweep_restart_mirrored(const char *sweeps, const char *min_change)
{
	char *sections, *old, *repo, *p, *t, host[16];
	int i, waited, rc;

	/* Not in the middle of its first probes of the hosts. */
	for (i = 0; i < svc.nhosts; i++) {
		snprintf(host, sizeof(host), "h%d", i);
		for (waited = 0; waited < SVC_WAIT_MS && strcmp(
		    svc_host_state(host), "up") != 0; waited += 100)
			usleep(100 * 1000);
	}
	if ((rc = tst_daemon_stop(&svc.td, SIGTERM)) != 0) {
		char *log = tst_read_file(svc.td.log);

		cr_log_error("bisectd.log:\n%s", log ? log : "(none)");
		free(log);
	}
	cr_assert_eq(rc, 0, "bisectd exited with %d", rc);
	sections = svc_sections(NULL);
	if (min_change != NULL) {
		cr_assert_not_null(p = strstr(sections, "min_change = 5%\n"));
		*p = '\0';
		xasprintf(&t, "%smin_change = %s\n%s", sections, min_change,
		    p + strlen("min_change = 5%\n"));
		free(sections);
		sections = t;
	}
	xasprintf(&old, "[repo]\npath = %s\n", svc.repo);
	xasprintf(&repo, "[repo]\npath = %s/mirror.git\nurl = file://%s\n"
	    "fetch_interval = 1s\nwatch_refs = refs/tags/next-*\n", svc.dir,
	    svc.repo);
	cr_assert_not_null(p = strstr(sections, old));
	*p = '\0';
	xasprintf(&t, "%s%s%s%s", sections, repo, p + strlen(old), sweeps);
	cr_assert_eq(tst_daemon_write_config(&svc.td, NULL, t), 0);
	cr_assert_eq(tst_daemon_start(&svc.td), 0);
	free(t);
	free(sections);
	free(old);
	free(repo);
}

/* `sweep NAME` (caller decrefs). */
static json_t *
sweep_show(const char *name)
{
	json_t *r = svc_req("{\"cmd\":\"sweep\",\"name\":\"%s\"}", name);

	cr_assert(json_is_true(json_object_get(r, "ok")), "%s",
	    json_dumps(r, 0));
	return r;
}

/* The row of ref at commit in a `sweep` reply (borrowed), or NULL. */
static json_t *
sweep_row(const json_t *r, const char *ref, const char *commit)
{
	json_t *v;
	char full[128];
	size_t i;

	snprintf(full, sizeof(full), "refs/tags/%s", ref);
	json_array_foreach(json_object_get(r, "refs"), i, v)
		if (strcmp(json_string_value(json_object_get(v, "ref")),
		    full) == 0 && strcmp(json_string_value(json_object_get(v,
		    "commit")), commit) == 0)
			return v;
	return NULL;
}

static const char *
sweep_row_state(const json_t *row)
{
	return row ? json_string_value(json_object_get(row, "state")) : "";
}

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

/* Polls `sweep NAME` until ref at commit is in state; the reply. */
static json_t *
sweep_wait(const char *name, const char *ref, const char *commit,
    const char *state)
{
	json_t *r;
	int waited;

	for (waited = 0; waited < SVC_WAIT_MS; waited += 100) {
		r = sweep_show(name);
		if (strcmp(sweep_row_state(sweep_row(r, ref, commit)),
		    state) == 0)
			return r;
		json_decref(r);
		usleep(100 * 1000);
	}
	r = sweep_show(name);
	cr_assert_fail("%s at %.12s never became %s: %s", ref, commit, state,
	    json_dumps(r, JSON_INDENT(1)));
	return NULL;
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

/*
 * The run ids that logged steps for row id ("sweep-ROW-JOB", the sweep job
 * stored before the run): a run that a restart follows again keeps its id.
 */
static size_t
sweep_log_runs(int64_t id)
{
	char *dir, prefix[64], seen[64][64];
	struct dirent *de;
	size_t n = 0, i, len;
	DIR *d;

	xasprintf(&dir, "%s/work/logs/sweep-%lld", svc.td.dir, (long long)id);
	cr_assert_not_null(d = opendir(dir), "no %s", dir);
	snprintf(prefix, sizeof(prefix), "sweep-%lld-", (long long)id);
	while ((de = readdir(d)) != NULL) {
		if (strncmp(de->d_name, prefix, strlen(prefix)) != 0)
			continue;
		len = strlen(prefix) + strspn(de->d_name + strlen(prefix),
		    "0123456789");
		for (i = 0; i < n; i++)
			if (strlen(seen[i]) == len &&
			    strncmp(seen[i], de->d_name, len) == 0)
				break;
		if (i == n && n < 64)
			snprintf(seen[n++], sizeof(seen[0]), "%.*s", (int)len,
			    de->d_name);
	}
	closedir(d);
	free(dir);
	return n;
}

/* Sweep runs of row id still stored as in flight, read beside the daemon. */
static int64_t
sweep_jobs_left(int64_t id)
{
	sqlite3 *db;
	sqlite3_stmt *st;
	int64_t n;

	cr_assert_eq(sqlite3_open_v2(svc.td.db, &db, SQLITE_OPEN_READONLY,
	    NULL), SQLITE_OK);
	sqlite3_busy_timeout(db, 5000);
	cr_assert_eq(sqlite3_prepare_v2(db, "SELECT count(*) FROM sweep_jobs"
	    " WHERE sweep_ref = ?1", -1, &st, NULL), SQLITE_OK,
	    "%s", sqlite3_errmsg(db));
	sqlite3_bind_int64(st, 1, id);
	cr_assert_eq(sqlite3_step(st), SQLITE_ROW);
	n = sqlite3_column_int64(st, 0);
	sqlite3_finalize(st);
	sqlite3_close(db);
	return n;
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
	t1 = sweep_tag("at", "next-1", ml[2]);
	/*
	 * The planted change is +50% runtime; a loaded machine shifted a
	 * quiet tag's runs by 5-8% at the fixture's 5% floor (two of three
	 * full runs beside a fuzzer).  Found or not, no load reaches 15%.
	 */
	sweep_restart_mirrored(SWEEP_S5, "15%");
	json_decref(sweep_wait("s", "next-1", t1, "baseline"));

	t2 = sweep_tag("at", "next-2", ml[3]);
	r = sweep_wait("s", "next-2", t2, "compared");
	cr_expect_eq(sweep_changed(sweep_row(r, "next-2", t2)), 0, "%s",
	    json_dumps(r, 0));
	cr_expect_eq(json_integer_value(json_object_get(sweep_row(r, "next-1",
	    t1), "runs")), 5);
	json_decref(r);

	/* The change appears in next-3; a kill -9 while it is sampled. */
	t3 = sweep_tag("at", "next-3", ml[4]);
	for (waited = 0; waited < SVC_WAIT_MS && !killed; waited += 20) {
		r = sweep_show("s");
		row = sweep_row(r, "next-3", t3);
		if (strcmp(sweep_row_state(row), "sampling") == 0) {
			cr_assert_eq(tst_daemon_stop(&svc.td, SIGKILL),
			    128 + SIGKILL);
			killed = 1;
		}
		cr_assert(strcmp(sweep_row_state(row), "compared") != 0,
		    "next-3 was compared before it was seen sampling");
		json_decref(r);
		usleep(20 * 1000);
	}
	cr_assert(killed);
	cr_assert_eq(tst_daemon_start(&svc.td), 0);
	r = sweep_wait("s", "next-3", t3, "compared");
	row = sweep_row(r, "next-3", t3);
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
	cr_expect_eq(sweep_log_runs(rowid), 5);
	cr_expect_eq(sweep_jobs_left(rowid), 0);

	/* The bisection is linked; lose the link to a kill -9: linked again,
	 * to the same bisection. */
	for (waited = 0, bis = 0; waited < SVC_WAIT_MS && bis == 0;
	    waited += 100) {
		r = sweep_show("s");
		bis = json_integer_value(json_object_get(sweep_row(r, "next-3",
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
		r = sweep_show("s");
		i = (size_t)json_integer_value(json_object_get(sweep_row(r,
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
	t4 = sweep_tag("at", "next-4", ml[6]);
	r = sweep_wait("s", "next-4", t4, "compared");
	cr_expect_eq(sweep_changed(sweep_row(r, "next-4", t4)), 0, "%s",
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
	t[0] = sweep_tag("tag", "next-00", NULL);
	daily = sweep_daily_far();
	/* A floor the planted-free tags cannot reach when the machine's load
	 * shifts a whole tag's runs: what is tested here is that nothing is
	 * started, the false-alarm rate is make bench-sweep's. */
	sweep_restart_mirrored(daily, "15%");
	free(daily);
	json_decref(sweep_wait("s", "next-00", t[0], "baseline"));

	/* Ten tags with no change: compared, nothing changed, no bisection. */
	for (i = 1; i <= 10; i++) {
		snprintf(name, sizeof(name), "next-%02d", i);
		t[i] = sweep_tag("tag", name, NULL);
	}
	r = sweep_wait("s", "next-10", t[10], "compared");
	for (i = 1; i <= 10; i++) {
		snprintf(name, sizeof(name), "next-%02d", i);
		row = sweep_row(r, name, t[i]);
		cr_expect_str_eq(sweep_row_state(row), "compared");
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
	r = sweep_wait("d", "next-10", t[10], "compared");
	for (i = 1; i < 10; i++) {
		snprintf(name, sizeof(name), "next-%02d", i);
		skipped += strcmp(sweep_row_state(sweep_row(r, name, t[i])),
		    "skipped") == 0;
	}
	cr_expect_eq(skipped, 9, "%s", json_dumps(r, 0));
	cr_expect_str_eq(json_string_value(json_object_get(json_object_get(r,
	    "sweep"), "state")), "idle");
	json_decref(r);

	/* A tag that does not build: failed, not compared; the next tag is
	 * compared with the one before the failed one. */
	t[11] = sweep_tag("broken", "next-11", NULL);
	r = sweep_wait("s", "next-11", t[11], "failed");
	row = sweep_row(r, "next-11", t[11]);
	cr_expect_null(json_object_get(json_object_get(row, "result"),
	    "metrics"));
	cr_expect_str_eq(json_string_value(json_object_get(json_object_get(
	    row, "result"), "failed")), "build", "%s", json_dumps(row, 0));
	cr_expect_eq(json_integer_value(json_object_get(json_object_get(r,
	    "sweep"), "failed")), 1);
	json_decref(r);
	t[12] = sweep_tag("tag", "next-12", NULL);
	r = sweep_wait("s", "next-12", t[12], "compared");
	cr_expect_str_eq(json_string_value(json_object_get(json_object_get(
	    sweep_row(r, "next-12", t[12]), "result"), "prev")),
	    "refs/tags/next-10");
	json_decref(r);

	/* A rewritten tag: swept again, the old commit shown rewritten. */
	rw = sweep_tag("rewrite", "next-12", NULL);
	r = sweep_wait("s", "next-12", rw, "compared");
	cr_expect_str_eq(sweep_row_state(sweep_row(r, "next-12", t[12])),
	    "rewritten");
	cr_expect_eq(sweep_count(r, "next-12"), 2);
	cr_expect_eq(sweep_changed(sweep_row(r, "next-12", rw)), 0);
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
