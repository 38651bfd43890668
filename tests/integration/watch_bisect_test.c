/* SPDX-License-Identifier: MIT */
/*
 * Work waits for the repository: a bisect request naming a revision the
 * mirror does not have yet starts a fetch and is accepted after it; one
 * still missing after the fetch fails with an error naming it.  The
 * mirror did not exist when the daemon started: the first fetch made it.
 */
#include <criterion/criterion.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common/xmalloc.h"
#include "tests/support/svc.h"
#include "tests/support/tst.h"

TestSuite(watch_bisect, .fini = svc_fini, .timeout = 300);

/* The last line of a command's output (a sha), caller frees. */
static char *
git_out(char *const argv[])
{
	char *out, *nl;
	int status;

	out = tst_run_capture(argv, &status);
	cr_assert_not_null(out);
	cr_assert_eq(status, 0, "%s %s failed", argv[0], argv[1]);
	if ((nl = strchr(out, '\n')) != NULL)
		*nl = '\0';
	return out;
}

/* Polls `repo` until the first fetch has succeeded. */
static void
wait_first_fetch(void)
{
	int waited;
	json_t *r, *last;

	for (waited = 0; waited < SVC_WAIT_MS; waited += 100) {
		r = svc_req("{\"cmd\":\"repo\"}");
		last = json_object_get(json_object_get(r, "repo"),
		    "last_fetch");
		if (json_is_true(json_object_get(last, "ok"))) {
			json_decref(r);
			return;
		}
		json_decref(r);
		usleep(100 * 1000);
	}
	cr_assert_fail("the first fetch never succeeded");
}

Test(watch_bisect, a_revision_the_mirror_lacks_waits_for_a_fetch)
{
	char *up, *mirror, *sections, *old, *repo, *sha, *tree;
	json_t *r, *s;
	int64_t id;

	svc_setup("watch-bisect", 1, "2:3", 0);
	cr_assert_eq(tst_daemon_stop(&svc.td, SIGTERM), 0);
	xasprintf(&up, "%s/up.git", svc.dir);
	xasprintf(&mirror, "%s/mirror.git", svc.dir);
	{
		char *argv[] = { "git", "clone", "-q", "--bare", svc.repo, up,
		    NULL };

		cr_assert_eq(tst_run(argv), 0);
	}
	sections = svc_sections(NULL);
	xasprintf(&old, "[repo]\npath = %s\n", svc.repo);
	xasprintf(&repo, "[repo]\npath = %s\nurl = file://%s\n", mirror, up);
	cr_assert_not_null(strstr(sections, old));
	{
		char *p = strstr(sections, old), *t;

		*p = '\0';
		xasprintf(&t, "%s%s%s", sections, repo, p + strlen(old));
		free(sections);
		sections = t;
	}
	cr_assert_eq(tst_daemon_write_config(&svc.td, NULL, sections), 0);
	cr_assert_eq(tst_daemon_start(&svc.td), 0);
	wait_first_fetch();

	/* A commit and tag that only the upstream has. */
	{
		char *argv[] = { "git", "-C", up, "rev-parse",
		    (char *)"HEAD^{tree}", NULL };

		tree = git_out(argv);
	}
	{
		char *argv[] = { "git", "-C", up, "commit-tree", tree, "-p",
		    svc.bad, "-m", "late", NULL };

		sha = git_out(argv);
	}
	{
		char *argv[] = { "git", "-C", up, "tag", "late", sha, NULL };

		cr_assert_eq(tst_run(argv), 0);
	}
	id = svc_bisect_range(svc.good, "late", "runtime_ms", NULL);
	s = svc_status(id);
	cr_assert_str_eq(json_string_value(json_object_get(s, "bad")), sha,
	    "%s", json_dumps(s, 0));
	json_decref(s);
	r = svc_req("{\"cmd\":\"cancel\",\"bisection\":%lld}", (long long)id);
	json_decref(r);

	r = svc_req("{\"cmd\":\"bisect\",\"good\":[\"%s\"],\"bad\":"
	    "\"never-there\",\"benchmark\":\"spin\",\"metric\":\"runtime_ms\","
	    "\"group\":\"lab\"}", svc.good);
	cr_assert(json_is_false(json_object_get(r, "ok")));
	cr_assert_str_eq(tst_daemon_error_code(r), "not-found");
	cr_assert_not_null(strstr(json_string_value(json_object_get(
	    json_object_get(r, "error"), "message")), "never-there"),
	    "%s", json_dumps(r, 0));
	json_decref(r);
	free(up);
	free(mirror);
	free(sections);
	free(old);
	free(repo);
	free(sha);
	free(tree);
}
