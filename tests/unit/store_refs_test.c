/* SPDX-License-Identifier: MIT */
/*
 * Ref events and the ref snapshot: one transaction for both, seq order,
 * the schema's checks, a v1 database gaining the tables, and no event lost
 * or stored twice when the writer is killed mid-stream.
 */
#include <sys/wait.h>

#include <criterion/criterion.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common/xmalloc.h"
#include "store/store.h"
#include "tests/support/stest.h"

TestSuite(store_refs, .init = stest_setup, .fini = stest_teardown);

struct refs_seen {
	int64_t	 seq[256];
	int	 change[256];
	char	 text[4096];
	int	 n;
};

static int
refs_collect(void *arg, const struct store_ref_event *ev)
{
	struct refs_seen *r = arg;
	size_t len = strlen(r->text);

	if (r->n < 256) {
		r->seq[r->n] = ev->seq;
		r->change[r->n] = ev->change;
	}
	r->n++;
	snprintf(r->text + len, sizeof(r->text) - len, "%s %s %s;", ev->ref,
	    ev->old_id ? ev->old_id : "-", ev->new_id ? ev->new_id : "-");
	return 0;
}

static int
refs_snap(void *arg, const struct store_ref *sr)
{
	char *buf = arg;
	size_t len = strlen(buf);

	snprintf(buf + len, 4096 - len, "%s=%c;", sr->ref, sr->id[0]);
	return 0;
}

static int
refs_count(void *arg, const struct store_ref *sr)
{
	(void)sr;
	(*(int *)arg)++;
	return 0;
}

Test(store_refs, events_and_snapshot_together)
{
	struct store_ref_event ev[2] = {
		{ .ref = "refs/tags/next-1", .new_id = STEST_A,
		  .change = 0 },
		{ .ref = "refs/heads/master", .new_id = STEST_B, .change = 0 },
	};
	struct store_ref_event ev2[2] = {
		{ .ref = "refs/tags/next-1", .old_id = STEST_A,
		  .new_id = STEST_C, .change = 1 },
		{ .ref = "refs/heads/master", .old_id = STEST_B, .change = 2 },
	};
	struct refs_seen seen;
	struct bd_error err;
	char snap[4096] = "";
	int64_t last = -1;

	stest_db = stest_open();
	cr_assert_eq(store_ref_event_last(stest_db, &last, &err), 0);
	cr_assert_eq(last, 0);
	cr_assert_eq(store_ref_event_add(stest_db, ev, 2, 1000, &err), 0,
	    "%s", err.msg);
	cr_assert(ev[0].seq > 0 && ev[1].seq > ev[0].seq);
	cr_assert_eq(store_ref_list(stest_db, refs_snap, snap, &err), 0);
	cr_assert_str_eq(snap, "refs/heads/master=b;refs/tags/next-1=a;");
	cr_assert_eq(store_ref_event_add(stest_db, ev2, 2, 2000, &err), 0,
	    "%s", err.msg);
	snap[0] = '\0';
	cr_assert_eq(store_ref_list(stest_db, refs_snap, snap, &err), 0);
	cr_assert_str_eq(snap, "refs/tags/next-1=c;");

	memset(&seen, 0, sizeof(seen));
	cr_assert_eq(store_ref_event_list_since(stest_db, ev[1].seq,
	    refs_collect, &seen, &err), 0);
	cr_assert_eq(seen.n, 2);
	cr_assert_eq(seen.seq[0], ev2[0].seq);
	cr_assert_eq(seen.change[0], 1);
	cr_assert_eq(seen.change[1], 2);
	cr_assert_str_eq(seen.text, "refs/tags/next-1 " STEST_A " " STEST_C
	    ";refs/heads/master " STEST_B " -;");
	cr_assert_eq(store_ref_event_last(stest_db, &last, &err), 0);
	cr_assert_eq(last, ev2[1].seq);
}

Test(store_refs, a_bad_event_stores_nothing)
{
	struct store_ref_event ev[2] = {
		{ .ref = "refs/tags/next-1", .new_id = STEST_A, .change = 0 },
		/* moved without an old id: the schema refuses it */
		{ .ref = "refs/tags/next-2", .new_id = STEST_B, .change = 1 },
	};
	struct refs_seen seen;
	struct bd_error err;
	char snap[4096] = "";

	stest_db = stest_open();
	cr_assert_lt(store_ref_event_add(stest_db, ev, 2, 1000, &err), 0);
	cr_assert_eq(ev[0].seq, 0);
	memset(&seen, 0, sizeof(seen));
	cr_assert_eq(store_ref_event_list_since(stest_db, 0, refs_collect,
	    &seen, &err), 0);
	cr_assert_eq(seen.n, 0);
	cr_assert_eq(store_ref_list(stest_db, refs_snap, snap, &err), 0);
	cr_assert_str_eq(snap, "");
	ev[0].change = 7;
	cr_assert_eq(store_ref_event_add(stest_db, ev, 1, 1000, &err),
	    -EINVAL);
}

/*
 * A child writes batches of events until it is killed; whatever it
 * committed is there once, each batch whole, with its snapshot.
 */
Test(store_refs, kill9_keeps_whole_batches)
{
	struct refs_seen seen;
	struct bd_error err;
	int status, i, nsnap = 0;

	stest_db = stest_open();
	store_close(stest_db);
	stest_db = NULL;
	stest_child = fork();
	cr_assert_neq(stest_child, -1);
	if (stest_child == 0) {
		struct store *s;
		struct store_ref_event ev[2];
		char ref[64];

		if (store_open(&s, stest_dbpath, NULL) != 0)
			_exit(2);
		for (i = 0;; i++) {
			snprintf(ref, sizeof(ref), "refs/tags/next-%d", i);
			memset(ev, 0, sizeof(ev));
			ev[0].ref = ref;
			ev[0].new_id = STEST_A;
			ev[0].change = 0;
			ev[1].ref = "refs/heads/master";
			ev[1].old_id = i ? STEST_B : NULL;
			ev[1].new_id = STEST_B;
			ev[1].change = i ? 1 : 0;
			if (store_ref_event_add(s, ev, 2, i, NULL) != 0)
				_exit(3);
		}
	}
	usleep(300 * 1000);
	kill(stest_child, SIGKILL);
	waitpid(stest_child, &status, 0);
	stest_child = 0;
	cr_assert(WIFSIGNALED(status), "writer exited on its own: %d", status);
	stest_db = stest_open();
	memset(&seen, 0, sizeof(seen));
	cr_assert_eq(store_ref_event_list_since(stest_db, 0, refs_collect,
	    &seen, &err), 0);
	cr_assert_gt(seen.n, 0);
	cr_assert_eq(seen.n % 2, 0, "a batch was split: %d events", seen.n);
	for (i = 1; i < seen.n && i < 256; i++)
		cr_assert_eq(seen.seq[i], seen.seq[i - 1] + 1);
	/* The snapshot holds master and one tag per stored batch. */
	cr_assert_eq(store_ref_list(stest_db, refs_count, &nsnap, &err), 0);
	cr_assert_eq(nsnap, seen.n / 2 + 1);
}
