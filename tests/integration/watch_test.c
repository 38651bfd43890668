/* SPDX-License-Identifier: MIT */
/*
 * The mirror against a real upstream: linux-next-like tags served by
 * `git daemon` (and file://) are noticed by the periodic fetch alone,
 * each change stored once as a ref event with old and new ids, old ids
 * kept reachable; failures (closed port, a repository the server lacks,
 * a glob matching nothing) show in `repo` while the daemon keeps serving.
 */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common/xmalloc.h"
#include "tests/support/tst.h"
#include "tests/support/wtest.h"

TestSuite(watch, .fini = wt_fini, .timeout = 300);

/* Until a fetch that changed no ref has ended. */
static void
watch_idle_fetch(void)
{
	json_t *r, *last;
	int i;

	for (i = 0; i < 600; i++, usleep(100 * 1000)) {
		r = wt_req("{\"cmd\":\"repo\"}");
		last = json_object_get(json_object_get(r, "repo"),
		    "last_fetch");
		if (json_is_true(json_object_get(last, "ok")) &&
		    json_integer_value(json_object_get(last, "changes")) == 0 &&
		    json_is_integer(json_object_get(last, "finished_ms"))) {
			json_decref(r);
			return;
		}
		json_decref(r);
	}
	cr_assert_fail("no fetch without changes ended in 60 s");
}

Test(watch, new_and_rewritten_next_tags_are_noticed)
{
	char *url, *keys, *n1, *n2, *n2b, *n3, *keep, *log, *line, *save;
	json_t *r;

	wt_setup("watch-next");
	url = wt_url(NULL);
	xasprintf(&keys, "url = %s\nfetch_interval = 1s\n"
	    "watch_refs = refs/tags/next-* refs/heads/master\n", url);
	wt_start(keys);
	free(keys);
	free(url);
	json_decref(wt_wait_fetch(1));
	/* git made the first clone; the mirror is where it belongs. */
	cr_assert(tst_daemon_log_wait(&wt.td, "bisectd.log",
	    "with git clone --mirror"));
	cr_assert_eq(wt_git("-C", wt.mirror, "rev-parse", "--git-dir", NULL),
	    0);
	/* The first clone created the mirror: master is watched. */
	cr_assert_eq(wt_count_events("refs/heads/master", "appeared", NULL),
	    1);

	n1 = wt_up("tag", "next-1", NULL, NULL);
	json_decref(wt_wait_ref("refs/tags/next-1", n1));
	n2 = wt_up("tag", "next-2", NULL, NULL);
	json_decref(wt_wait_ref("refs/tags/next-2", n2));
	/* linux-next: the previous tag is not an ancestor of the next. */
	cr_assert_neq(wt_git("-C", wt.mirror, "merge-base", "--is-ancestor",
	    n1), 0);
	n2b = wt_up("rewrite", "next-2", NULL, NULL);
	cr_assert_str_neq(n2, n2b);
	json_decref(wt_wait_ref("refs/tags/next-2", n2b));
	n3 = wt_up("tag", "next-3", NULL, NULL);
	r = wt_wait_ref("refs/tags/next-3", n3);
	json_decref(r);

	cr_assert_eq(wt_count_events("refs/tags/next-1", "appeared", n1), 1);
	cr_assert_eq(wt_count_events("refs/tags/next-2", "appeared", n2), 1);
	cr_assert_eq(wt_count_events("refs/tags/next-2", "moved", n2b), 1);
	cr_assert_eq(wt_count_events("refs/tags/next-2", "moved", NULL), 1);
	cr_assert_eq(wt_count_events("refs/tags/next-3", "appeared", n3), 1);
	/* Unwatched refs make no events. */
	cr_assert_eq(wt_count_events("refs/heads/t1", "appeared", NULL), 0);

	/* The rewritten tag's old commit stays in the mirror, by a ref. */
	xasprintf(&keep, "refs/bisectd/keep/%s", n2);
	cr_assert_eq(wt_git("-C", wt.mirror, "rev-parse", "--verify", keep),
	    0);
	cr_assert_eq(wt_git("-C", wt.mirror, "cat-file", "-e", n2), 0);
	cr_assert_eq(wt_git("-C", wt.mirror, "fsck", "--no-progress", NULL),
	    0);
	free(keep);

	/* A deleted tag disappears, with its old id kept. */
	free(wt_up("drop", "next-1", NULL, NULL));
	json_decref(wt_wait_ref("refs/tags/next-1", NULL));
	cr_assert_eq(wt_count_events("refs/tags/next-1", "disappeared",
	    NULL), 1);
	cr_assert_eq(wt_git("-C", wt.mirror, "cat-file", "-e", n1), 0);

	/*
	 * At log_level info a fetch is logged when it changed refs; the
	 * fetches every second that changed nothing are debug lines.
	 */
	watch_idle_fetch();
	log = tst_read_file(wt.td.log);
	cr_assert_not_null(log);
	cr_expect_not_null(strstr(log, "[info] fetched "), "%s", log);
	cr_expect_not_null(strstr(log, "[debug] fetched "), "%s", log);
	for (line = strtok_r(log, "\n", &save); line != NULL;
	    line = strtok_r(NULL, "\n", &save))
		if (strstr(line, " fetch") != NULL)
			cr_expect((strstr(line, "[info] fetched ") != NULL &&
			    strstr(line, ": 0 ref") == NULL) ||
			    (strstr(line, "[debug] ") != NULL &&
			    strstr(line, "ref change(s)") == NULL), "%s", line);
	free(log);
	free(n1);
	free(n2);
	free(n2b);
	free(n3);
}

/* The `repo` state after the one fetch that --wait waited for. */
static json_t *
fetch_wait(int ok)
{
	json_t *r = wt_req("{\"cmd\":\"fetch\",\"wait\":true}");

	cr_assert_eq(json_is_true(json_object_get(r, "ok")), ok, "%s",
	    json_dumps(r, 0));
	return r;
}

/* Reloads a config with these [repo] keys; the reload must succeed. */
static void
reload_with(const char *keys)
{
	char *sections;
	json_t *r;

	xasprintf(&sections, "[repo]\npath = %s\n%s\n", wt.mirror, keys);
	cr_assert_eq(tst_daemon_write_config(&wt.td, NULL, sections), 0);
	free(sections);
	r = wt_req("{\"cmd\":\"reload\"}");
	cr_assert(json_is_true(json_object_get(r, "ok")), "%s",
	    json_dumps(r, 0));
	json_decref(r);
}

/* The daemon still answers, and `repo` says what the last fetch did. */
static void
assert_failed_with(const char *words)
{
	json_t *r = wt_req("{\"cmd\":\"repo\"}"), *repo, *last;
	const char *err;

	repo = json_object_get(r, "repo");
	last = json_object_get(repo, "last_fetch");
	cr_assert(json_is_false(json_object_get(last, "ok")), "%s",
	    json_dumps(r, 0));
	err = json_string_value(json_object_get(last, "error"));
	cr_assert_not_null(err);
	cr_assert(strstr(err, words) != NULL, "error '%s' lacks '%s'", err,
	    words);
	cr_assert_geq(json_integer_value(json_object_get(repo, "failures")),
	    1);
	json_decref(r);
	r = wt_req("{\"cmd\":\"ping\"}");
	cr_assert(json_is_true(json_object_get(r, "ok")));
	json_decref(r);
}

Test(watch, failures_show_in_repo_and_the_daemon_serves)
{
	char *keys, *url, *n1;
	json_t *r, *g;
	int closed = tst_free_port();

	wt_setup("watch-fail");
	/* file:// as the second transport; fetches only on demand. */
	xasprintf(&keys, "url = file://%s/srv/next.git\n"
	    "watch_refs = refs/tags/next-* refs/tags/none-*\n", wt.dir);
	wt_start(keys);
	free(keys);
	json_decref(wt_wait_fetch(1));
	n1 = wt_up("tag", "next-1", NULL, NULL);
	r = fetch_wait(1);
	cr_assert_str_eq(wt_ref_id(json_object_get(r, "repo"),
	    "refs/tags/next-1"), n1);
	/* A glob that matches nothing says so. */
	g = json_array_get(json_object_get(json_object_get(r, "repo"),
	    "watch_refs"), 1);
	cr_assert_str_eq(json_string_value(json_object_get(g, "glob")),
	    "refs/tags/none-*");
	cr_assert_eq(json_integer_value(json_object_get(g, "matches")), 0);
	json_decref(r);

	/* A closed port. */
	xasprintf(&keys, "url = git://127.0.0.1:%d/next.git\n", closed);
	reload_with(keys);
	free(keys);
	json_decref(fetch_wait(0));
	assert_failed_with("127.0.0.1");
	r = wt_req("{\"cmd\":\"repo\"}");
	cr_assert(json_is_integer(json_object_get(json_object_get(r, "repo"),
	    "next_fetch_ms")), "a failure plans a retry: %s",
	    json_dumps(r, 0));
	json_decref(r);

	/* A repository the server does not have. */
	url = wt_url("nothere.git");
	xasprintf(&keys, "url = %s\n", url);
	reload_with(keys);
	free(keys);
	free(url);
	json_decref(fetch_wait(0));
	assert_failed_with("nothere.git");

	/* Back to a good url: the refs are as they were, no event twice. */
	url = wt_url(NULL);
	xasprintf(&keys, "url = %s\nwatch_refs = refs/tags/next-*\n", url);
	reload_with(keys);
	free(keys);
	free(url);
	json_decref(fetch_wait(1));
	cr_assert_eq(wt_count_events("refs/tags/next-1", "appeared", n1), 1);
	free(n1);
}

/* A [repo] path without url: never fetched into, fetch is a conflict. */
Test(watch, a_path_without_url_never_fetches)
{
	json_t *r, *repo;

	wt_setup("watch-nourl");
	wt_start("");
	r = wt_req("{\"cmd\":\"fetch\",\"wait\":true}");
	cr_assert_str_eq(tst_daemon_error_code(r), "conflict");
	json_decref(r);
	r = wt_req("{\"cmd\":\"repo\"}");
	repo = json_object_get(r, "repo");
	cr_assert(json_is_null(json_object_get(repo, "url")));
	cr_assert(json_is_null(json_object_get(repo, "last_fetch")));
	cr_assert(json_is_null(json_object_get(repo, "next_fetch_ms")));
	json_decref(r);
	cr_assert_neq(wt_git("-C", wt.mirror, "rev-parse", "--git-dir", NULL),
	    0, "the mirror was created without a url");
}
