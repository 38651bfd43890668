/* SPDX-License-Identifier: MIT */
/*
 * A bisection a sweep starts is created with its reused runs and its
 * row's link in one transaction: a row is never linked twice, a failure
 * leaves nothing behind, and an active twin gets the row instead.
 */
#include <criterion/criterion.h>
#include <string.h>

#include "store/store.h"
#include "tests/support/stest.h"

TestSuite(store_sweep_link, .init = stest_setup, .fini = stest_teardown);

/* Two rows (A baseline, B new) with runs of two metrics each. */
static void
link_rows(struct store *s, int64_t ids[2])
{
	struct store_sweep_ref rows[2] = {
		{ .ref = "refs/tags/next-1", .commit = STEST_A, .event = 1,
		  .state = STORE_SWEEP_BASELINE },
		{ .ref = "refs/tags/next-2", .commit = STEST_B, .event = 2,
		  .state = STORE_SWEEP_PENDING },
	};
	struct store_metric m[2] = { { "tput", 10, 0 }, { "lat", 2, 0 } };
	struct bd_error err;
	unsigned run;
	int i;

	cr_assert_eq(store_sweep_advance(s, "n", 2, rows, 2, ids, &err), 0,
	    "%s", err.msg);
	for (i = 0; i < 2; i++)
		for (run = 1; run <= 3; run++) {
			m[0].value = 10 * (i + 1) + run;
			cr_assert_eq(store_sweep_sample_add(s, ids[i], run, m,
			    2, &err), 0, "%s", err.msg);
		}
}

struct link_seen {
	int64_t	linked;
	int64_t	row;
};

static int
link_find(void *arg, const struct store_sweep_ref *r)
{
	struct link_seen *l = arg;

	if (r->id == l->row)
		l->linked = r->bisection;
	return 0;
}

static int64_t
link_of(struct store *s, int64_t row)
{
	struct link_seen l = { -1, row };
	struct bd_error err;

	cr_assert_eq(store_sweep_ref_list(s, "n", link_find, &l, &err), 0);
	return l.linked;
}

struct reused_seen {
	int	n[2];
	int64_t	rows[2];
	int	own;
	int	wrong_commit;
};

static int
reused_collect(void *arg, const struct store_sample *sm)
{
	struct reused_seen *r = arg;
	const char *want[2] = { STEST_A, STEST_B };
	int i;

	if (sm->reused_from == 0)
		r->own++;
	for (i = 0; i < 2; i++)
		if (sm->reused_from == r->rows[i]) {
			r->n[i]++;
			if (strcmp(sm->commit, want[i]) != 0)
				r->wrong_commit++;
		}
	return 0;
}

Test(store_sweep_link, runs_reused_and_row_linked_once)
{
	struct store *s = stest_db = stest_open();
	struct store_bisection b;
	struct store_bisection_stats bs;
	struct reused_seen seen;
	struct bd_error err;
	int64_t ids[2], reuse[2], id = 0, again = 0, other;
	struct store_sweep_link l;

	link_rows(s, ids);
	reuse[0] = ids[1];
	reuse[1] = ids[0];
	l = (struct store_sweep_link){ ids[1], reuse, 2 };
	stest_fill_bisection(&b, "k1", 0);
	b.origin = "{\"sweep\":\"n\"}";
	cr_assert_eq(store_bisection_create_linked(s, &b, &l, &id, &err), 0,
	    "%s", err.msg);
	cr_expect_eq(link_of(s, ids[1]), id);
	bs = stest_stats(s, id);
	cr_expect_eq(bs.runs[STORE_RUN_DONE], 6);
	cr_expect_eq(bs.reused, 6);
	cr_expect_eq(bs.samples, 12);
	memset(&seen, 0, sizeof(seen));
	seen.rows[0] = ids[0];
	seen.rows[1] = ids[1];
	cr_assert_eq(store_sample_list(s, id, NULL, reused_collect, &seen,
	    &err), 0);
	cr_expect_eq(seen.n[0], 6);
	cr_expect_eq(seen.n[1], 6);
	cr_expect_eq(seen.own + seen.wrong_commit, 0);
	cr_assert_eq(store_bisection_get(s, id, &b, &err), 0);
	cr_expect_str_eq(b.origin, "{\"sweep\":\"n\"}");
	store_bisection_release(&b);

	/* The row again (a restart): its bisection, nothing stored. */
	stest_fill_bisection(&b, "k2", 0);
	cr_expect_eq(store_bisection_create_linked(s, &b, &l, &again, &err),
	    -EALREADY);
	cr_expect_eq(again, id);
	cr_expect_eq(stest_stats(s, id).runs[STORE_RUN_DONE], 6);
	cr_expect_eq(store_sweep_ref_link(s, ids[1], id + 1, &again, &err),
	    -EALREADY);
	cr_expect_eq(again, id);

	/* A twin of an active request: the row goes to the twin. */
	other = stest_add_bisection(s, "k3", 0);
	stest_fill_bisection(&b, "k3", 0);
	l = (struct store_sweep_link){ ids[0], reuse, 1 };
	cr_expect_eq(store_bisection_create_linked(s, &b, &l, &again, &err),
	    -EEXIST);
	cr_expect_eq(again, other);
	cr_expect_eq(link_of(s, ids[0]), other);
	cr_expect_eq(stest_stats(s, other).reused, 0);
}

Test(store_sweep_link, a_failure_stores_nothing)
{
	struct store *s = stest_db = stest_open();
	struct store_bisection b;
	struct bd_error err;
	int64_t ids[2], reuse[2], id = 0;
	struct store_sweep_link l;

	link_rows(s, ids);
	reuse[0] = ids[1];
	reuse[1] = ids[1] + 100;	/* no such row */
	l = (struct store_sweep_link){ ids[1], reuse, 2 };
	stest_fill_bisection(&b, "k1", 0);
	cr_expect_eq(store_bisection_create_linked(s, &b, &l, &id, &err),
	    -ENOENT);
	cr_expect_eq(link_of(s, ids[1]), 0);
	/* Without the unknown row it goes through. */
	stest_fill_bisection(&b, "k1", 0);
	l.nreuse = 1;
	cr_assert_eq(store_bisection_create_linked(s, &b, &l, &id, &err), 0,
	    "%s", err.msg);
	cr_expect_eq(stest_stats(s, id).reused, 3);
	cr_expect_eq(link_of(s, ids[1]), id);
	/* Unknown rows to link are refused, nothing stored. */
	l = (struct store_sweep_link){ ids[1] + 100, NULL, 0 };
	stest_fill_bisection(&b, "k9", 0);
	cr_expect_eq(store_bisection_create_linked(s, &b, &l, &id, &err),
	    -ENOENT);
}
