/* SPDX-License-Identifier: MIT */
/* The sweep tests' look at the real daemon (tests/support/sweepsvc.h). */
#include <criterion/criterion.h>

#include <dirent.h>
#include <signal.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common/xmalloc.h"
#include "tests/support/daemon.h"
#include "tests/support/svc.h"
#include "tests/support/sweepsvc.h"
#include "tests/support/tst.h"

/* Runs sweep-tag.sh on the fixture repository; the sha it printed. */
char *
sweepsvc_tag(const char *op, const char *name, const char *rev)
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

void
sweepsvc_restart_mirrored(const char *sweeps, const char *min_change,
    const char *extra)
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
	/* A status other than 0 has shown the daemon's log already. */
	rc = tst_daemon_stop(&svc.td, SIGTERM);
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
	xasprintf(&t, "%s%s%s%s%s", sections, repo, p + strlen(old), sweeps,
	    extra ? extra : "");
	cr_assert_eq(tst_daemon_write_config(&svc.td, NULL, t), 0);
	cr_assert_eq(tst_daemon_start(&svc.td), 0);
	free(t);
	free(sections);
	free(old);
	free(repo);
}

/* `sweep NAME` (caller decrefs). */
json_t *
sweepsvc_show(const char *name)
{
	json_t *r = svc_req("{\"cmd\":\"sweep\",\"name\":\"%s\"}", name);

	cr_assert(json_is_true(json_object_get(r, "ok")), "%s",
	    json_dumps(r, 0));
	return r;
}

/* The row of ref at commit in a `sweep` reply (borrowed), or NULL. */
json_t *
sweepsvc_row(const json_t *r, const char *ref, const char *commit)
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

const char *
sweepsvc_row_state(const json_t *row)
{
	return row ? json_string_value(json_object_get(row, "state")) : "";
}

/* Polls `sweep NAME` until ref at commit is in state; the reply. */
json_t *
sweepsvc_wait(const char *name, const char *ref, const char *commit,
    const char *state)
{
	json_t *r;
	int waited;

	for (waited = 0; waited < SVC_WAIT_MS; waited += 100) {
		r = sweepsvc_show(name);
		if (strcmp(sweepsvc_row_state(sweepsvc_row(r, ref, commit)),
		    state) == 0)
			return r;
		json_decref(r);
		usleep(100 * 1000);
	}
	r = sweepsvc_show(name);
	cr_assert_fail("%s at %.12s never became %s: %s", ref, commit, state,
	    json_dumps(r, JSON_INDENT(1)));
	return NULL;
}

/*
 * The run ids that logged steps for row id ("sweep-ROW-JOB", the sweep job
 * stored before the run): a run that a restart follows again keeps its id.
 */
size_t
sweepsvc_log_runs(int64_t id)
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
int64_t
sweepsvc_jobs_left(int64_t id)
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
