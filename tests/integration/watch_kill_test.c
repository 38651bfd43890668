/* SPDX-License-Identifier: MIT */
/*
 * The mirror under kill -9: the daemon killed while a large pack arrives
 * leaves a mirror that git fsck and libgit2 accept, the next fetch
 * completes and removes the half-written pack, and no ref event is lost
 * or stored twice.
 */
#include <criterion/criterion.h>
#include <glob.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common/xmalloc.h"
#include "tests/support/tst.h"
#include "tests/support/wtest.h"

TestSuite(watch_kill, .fini = wt_fini, .timeout = 300);

/*
 * Reads watch events until a fetch is mid-transfer: objects received,
 * not all of them.  Returns 1 then, 0 when the fetch ended first.
 */
static int
wait_mid_transfer(int fd)
{
	json_t *ev, *p;
	char *line;
	int mid = -1;

	while (mid < 0 && (line = tst_daemon_read_line(fd)) != NULL) {
		ev = tst_daemon_reply(line);
		if (ev == NULL || strcmp(json_string_value(json_object_get(ev,
		    "event")) ?: "", "repo") != 0) {
			json_decref(ev);
			continue;
		}
		p = json_object_get(ev, "progress");
		if (strcmp(json_string_value(json_object_get(ev, "phase")),
		    "fetching") != 0)
			mid = 0;
		else if (json_integer_value(json_object_get(p,
		    "received_objects")) > 0 &&
		    json_integer_value(json_object_get(p, "received_objects")) <
		    json_integer_value(json_object_get(p, "total_objects")))
			mid = 1;
		json_decref(ev);
	}
	return mid;
}

/* How many temporary packs (libgit2's or git's) the mirror holds. */
static size_t
temp_packs(void)
{
	static const char *const pats[] = { "pack_git2_*", "tmp_pack_*" };
	glob_t g;
	char *pat;
	size_t i, n = 0;

	for (i = 0; i < 2; i++) {
		xasprintf(&pat, "%s/objects/pack/%s", wt.mirror, pats[i]);
		if (glob(pat, 0, NULL, &g) == 0) {
			n += g.gl_pathc;
			globfree(&g);
		}
		free(pat);
	}
	return n;
}

Test(watch_kill, kill9_while_a_large_pack_arrives)
{
	char *url, *keys, *n1, *big, *reply;
	json_t *r;
	int fd, mid;

	wt_setup("watch-kill");
	url = wt_url(NULL);
	xasprintf(&keys, "url = %s\nwatch_refs = refs/tags/* "
	    "refs/heads/master\n", url);
	free(url);
	wt_start(keys);
	free(keys);
	json_decref(wt_wait_fetch(1));
	n1 = wt_up("tag", "next-1", NULL, NULL);
	r = wt_req("{\"cmd\":\"fetch\",\"wait\":true}");
	cr_assert(json_is_true(json_object_get(r, "ok")));
	json_decref(r);

	/* 3000 distinct random blobs: some 48 MiB that do not compress. */
	big = wt_up("big", "next-big", "3000", "16");
	fd = tst_daemon_connect(&wt.td);
	cr_assert_geq(fd, 0);
	reply = tst_daemon_rpc(fd, "{\"cmd\":\"watch\"}");
	cr_assert_not_null(reply);
	free(reply);
	r = wt_req("{\"cmd\":\"fetch\"}");
	cr_assert(json_is_true(json_object_get(r, "ok")));
	json_decref(r);
	mid = wait_mid_transfer(fd);
	cr_assert_neq(tst_daemon_stop(&wt.td, SIGKILL), -1);
	close(fd);
	cr_assert_eq(mid, 1, "the fetch ended before it could be killed (%d)", mid);
	cr_assert_gt(temp_packs(), 0, "kill -9 left no temporary pack");

	/* git accepts what the kill left; libgit2 reads it at restart. */
	cr_assert_eq(wt_git("-C", wt.mirror, "fsck", "--no-progress", NULL),
	    0, "git fsck refuses the mirror after kill -9");
	cr_assert_eq(tst_daemon_start(&wt.td), 0,
	    "bisectd did not restart after kill -9");
	json_decref(wt_wait_ref("refs/tags/next-big", big));
	cr_assert_eq(wt_git("-C", wt.mirror, "fsck", "--no-progress", NULL),
	    0);
	/* The half-written pack of the killed fetch is gone (issue 35). */
	cr_assert_eq(temp_packs(), 0, "a temporary pack outlived the restart");

	cr_assert_eq(wt_count_events("refs/heads/master", "appeared", NULL),
	    1);
	cr_assert_eq(wt_count_events("refs/tags/next-1", "appeared", n1), 1);
	cr_assert_eq(wt_count_events("refs/tags/next-big", "appeared", big),
	    1);
	free(n1);
	free(big);
}
