/* SPDX-License-Identifier: MIT */
#include <sys/prctl.h>
#include <sys/wait.h>

#include <criterion/criterion.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "common/xmalloc.h"
#include "tests/support/tst.h"
#include "tests/support/wtest.h"

struct wtest wt;

/* Milliseconds of a monotonic clock, for the hang guards. */
static long long
wt_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (long long)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

void
wt_fini(void)
{
	int status;

	if (wt.td_ready)
		tst_daemon_release(&wt.td);
	if (wt.gitd > 0) {
		kill(wt.gitd, SIGTERM);
		waitpid(wt.gitd, &status, 0);
	}
	if (wt.dir != NULL)
		tst_rmrf(wt.dir);
	free(wt.dir);
	free(wt.mirror);
	memset(&wt, 0, sizeof(wt));
	tst_leak_check();
}

char *
wt_up(const char *op, const char *a1, const char *a2, const char *a3)
{
	char *script, *out, *nl, *last;
	int status;

	xasprintf(&script, "%s/tests/fixtures/watch/upstream.sh",
	    tst_env_path("BISECTD_SRCDIR"));
	{
		char *argv[] = { "sh", script, (char *)op, wt.dir, (char *)a1,
		    (char *)a2, (char *)a3, NULL };

		out = tst_run_capture(argv, &status);
	}
	free(script);
	cr_assert_not_null(out);
	cr_assert_eq(status, 0, "upstream.sh %s failed:\n%s", op, out);
	while ((nl = strrchr(out, '\n')) != NULL && nl[1] == '\0')
		*nl = '\0';
	last = strrchr(out, '\n');
	last = xstrdup(last != NULL ? last + 1 : out);
	free(out);
	return last;
}

/* Whether the git daemon answers on its port and is our child. */
static int
wt_gitd_ready(void)
{
	char *path, *pid;
	int ok;

	xasprintf(&path, "%s/gitd.pid", wt.dir);
	pid = tst_read_file(path);
	free(path);
	ok = pid != NULL && atoi(pid) == (int)wt.gitd;
	free(pid);
	return ok;
}

/* git daemon in the foreground as our child; it dies with the test. */
static void
wt_gitd_start(void)
{
	char port[32], pidfile[512], base[512], srv[512], *exec, *nl;
	char *xargv[] = { "git", "--exec-path", NULL };
	long long t0;
	int status;

	/* git runs git-daemon as a child: start it directly, to own its pid. */
	exec = tst_run_capture(xargv, &status);
	cr_assert_not_null(exec);
	if ((nl = strchr(exec, '\n')) != NULL)
		*nl = '\0';
	xasprintf(&nl, "%s/git-daemon", exec);
	free(exec);
	exec = nl;

	wt.port = tst_free_port();
	cr_assert_gt(wt.port, 0);
	snprintf(port, sizeof(port), "--port=%d", wt.port);
	snprintf(pidfile, sizeof(pidfile), "--pid-file=%s/gitd.pid", wt.dir);
	snprintf(base, sizeof(base), "--base-path=%s/srv", wt.dir);
	snprintf(srv, sizeof(srv), "%s/srv", wt.dir);
	wt.gitd = fork();
	cr_assert_neq(wt.gitd, -1);
	if (wt.gitd == 0) {
		char *argv[] = { exec, "--reuseaddr",
		    "--listen=127.0.0.1", port, pidfile, "--export-all",
		    base, srv, NULL };

		prctl(PR_SET_PDEATHSIG, SIGKILL);
		execv(exec, argv);
		_exit(127);
	}
	free(exec);
	for (t0 = wt_now(); !wt_gitd_ready(); usleep(20 * 1000))
		cr_assert_lt(wt_now() - t0, WT_WAIT_MS, "git daemon did "
		    "not start");
	/* The pid file comes before the listen: wait for a fetchable ref. */
	for (t0 = wt_now();; usleep(50 * 1000)) {
		char *url = wt_url(NULL);

		int rc = wt_git("ls-remote", "-q", url, NULL, NULL);
		free(url);
		if (rc == 0)
			break;
		cr_assert_lt(wt_now() - t0, WT_WAIT_MS, "git daemon does "
		    "not serve");
	}
}

void
wt_setup(const char *tag)
{
	char *sha;

	memset(&wt, 0, sizeof(wt));
	cr_assert_not_null(wt.dir = tst_tmpdir(tag));
	xasprintf(&wt.mirror, "%s/mirror.git", wt.dir);
	sha = wt_up("init", NULL, NULL, NULL);
	free(sha);
	wt_gitd_start();
}

char *
wt_url(const char *name)
{
	char *url;

	xasprintf(&url, "git://127.0.0.1:%d/%s", wt.port,
	    name != NULL ? name : "next.git");
	return url;
}

void
wt_start(const char *repo_keys)
{
	char *sections;

	xasprintf(&sections, "[repo]\npath = %s\n%s\n", wt.mirror, repo_keys);
	cr_assert_eq(tst_daemon_setup(&wt.td, "wt", NULL, sections), 0);
	wt.td_ready = 1;
	free(sections);
	cr_assert_eq(tst_daemon_start(&wt.td), 0, "bisectd did not start");
}

json_t *
wt_req(const char *line)
{
	json_t *r = tst_daemon_reply(tst_daemon_request(&wt.td, line));

	cr_assert_not_null(r, "no reply to %s", line);
	return r;
}

const char *
wt_ref_id(const json_t *repo, const char *ref)
{
	json_t *v;
	size_t i;

	json_array_foreach(json_object_get(repo, "refs"), i, v)
		if (strcmp(json_string_value(json_object_get(v, "ref")),
		    ref) == 0)
			return json_string_value(json_object_get(v, "id"));
	return NULL;
}

json_t *
wt_wait_ref(const char *ref, const char *id)
{
	long long t0 = wt_now();
	const char *have;
	json_t *r;

	for (;; usleep(100 * 1000)) {
		r = wt_req("{\"cmd\":\"repo\"}");
		have = wt_ref_id(json_object_get(r, "repo"), ref);
		if (id == NULL ? have == NULL : have != NULL &&
		    strcmp(have, id) == 0)
			return r;
		cr_assert_lt(wt_now() - t0, WT_WAIT_MS, "%s never became %s: "
		    "%s", ref, id ? id : "absent", json_dumps(r, 0));
		json_decref(r);
	}
}

json_t *
wt_wait_fetch(int ok)
{
	long long t0 = wt_now();
	json_t *r, *last;

	for (;; usleep(100 * 1000)) {
		r = wt_req("{\"cmd\":\"repo\"}");
		last = json_object_get(json_object_get(r, "repo"),
		    "last_fetch");
		if (json_is_object(last) &&
		    json_is_true(json_object_get(last, "ok")) == ok)
			return r;
		cr_assert_lt(wt_now() - t0, WT_WAIT_MS, "no fetch ended %s: %s",
		    ok ? "ok" : "failed", json_dumps(r, 0));
		json_decref(r);
	}
}

int
wt_count_events(const char *ref, const char *change, const char *id)
{
	json_t *r = wt_req("{\"cmd\":\"repo\",\"since\":0}"), *v;
	const char *nid;
	size_t i;
	int n = 0;

	json_array_foreach(json_object_get(r, "events"), i, v) {
		nid = json_string_value(json_object_get(v, "new"));
		if (strcmp(json_string_value(json_object_get(v, "ref")),
		    ref) == 0 && strcmp(json_string_value(json_object_get(v,
		    "change")), change) == 0 && (id == NULL ||
		    (nid != NULL && strcmp(nid, id) == 0)))
			n++;
	}
	json_decref(r);
	return n;
}

int
wt_git(const char *a1, const char *a2, const char *a3, const char *a4,
    const char *a5)
{
	char *argv[] = { "git", (char *)a1, (char *)a2, (char *)a3,
	    (char *)a4, (char *)a5, NULL };
	char *out;
	int status;

	out = tst_run_capture(argv, &status);
	free(out);
	return status;
}
