/* SPDX-License-Identifier: MIT */
/*
 * Judging swept refs from stored samples: a ref like its predecessors is
 * compared and unchanged, a ref where one metric moved names it as the
 * headline, too few runs ask for more, and history skips failed refs.
 */
#include <criterion/criterion.h>
#include <stdio.h>
#include <string.h>

#include "config/config.h"
#include "sweep/sweep_judge.h"
#include "store/store.h"
#include "tests/support/stest.h"

TestSuite(sweep_judge, .init = stest_setup, .fini = stest_teardown);

static struct config_metric judge_m[2] = {
	{ "tput", CONFIG_METRIC_NUMERIC, CONFIG_HIGHER_IS_BETTER, AGG_MEAN },
	{ "lat", CONFIG_METRIC_NUMERIC, CONFIG_LOWER_IS_BETTER, AGG_MEAN },
};
static struct config_benchmark judge_b = { .name = "b", .metrics = judge_m,
    .nmetrics = 2, .min_change = 0.01 };
static struct config_sweep judge_w = { .name = "s", .benchmark = "b",
    .samples = 15, .baseline = 5 };
static struct config judge_cfg = { .benchmarks = &judge_b,
    .nbenchmarks = 1, .sweeps = &judge_w, .nsweeps = 1 };

/* A row of ref name at a made-up commit with runs of tput ~ level. */
static int64_t
judge_ref(const char *name, char c, enum store_sweep_ref_state state,
    double level, unsigned runs)
{
	static const double spread[] = { -0.6, 0.3, 0.9, -0.2, 0.4, -0.8,
	    0.1, 0.5 };
	char commit[41], ref[64];
	struct store_sweep_ref row = { .ref = ref, .commit = commit,
	    .state = state };
	struct store_metric m[2];
	struct bd_error err;
	int64_t id;
	unsigned i;

	memset(commit, c, 40);
	commit[40] = '\0';
	snprintf(ref, sizeof(ref), "refs/tags/%s", name);
	cr_assert_eq(store_sweep_advance(stest_db, "s", 1, &row, 1, &id, &err),
	    0, "%s", err.msg);
	for (i = 0; i < runs; i++) {
		m[0] = (struct store_metric){ .name = "tput",
		    .value = level + spread[i % 8] };
		m[1] = (struct store_metric){ .name = "lat",
		    .value = 10 + spread[(i + 3) % 8] / 10 };
		cr_assert_eq(store_sweep_sample_add(stest_db, id, i + 1, m, 2,
		    &err), 0, "%s", err.msg);
	}
	return id;
}

static const char *
jstr(const json_t *o, const char *key)
{
	const json_t *v = json_object_get(o, key);

	return json_is_string(v) ? json_string_value(v) : "(null)";
}

Test(sweep_judge, unchanged_changed_and_more_runs)
{
	struct bd_error err;
	unsigned more;
	json_t *r;
	int64_t same, moved, few, rev;

	stest_db = stest_open();
	judge_ref("next-1", 'a', STORE_SWEEP_BASELINE, 100, 5);
	judge_ref("next-2", 'b', STORE_SWEEP_COMPARED, 100, 5);
	judge_ref("next-3", 'c', STORE_SWEEP_FAILED, 50, 5);
	same = judge_ref("next-4", 'd', STORE_SWEEP_SAMPLING, 100.2, 5);
	cr_assert_eq(sweep_judge_row(stest_db, &judge_cfg, &judge_w, same,
	    0, &more, &rev, &r, &err), 0, "%s", err.msg);
	cr_expect_eq(more, 0);
	/* The failed ref is no reference: the previous is next-2. */
	cr_expect_str_eq(jstr(r, "prev"), "refs/tags/next-2");
	cr_expect_eq(json_array_size(json_object_get(r, "changed")), 0);
	cr_expect_str_eq(jstr(json_array_get(json_object_get(r, "metrics"), 0),
	    "verdict"), "same");
	json_decref(r);

	moved = judge_ref("next-5", 'e', STORE_SWEEP_SAMPLING, 95, 5);
	cr_assert_eq(sweep_judge_row(stest_db, &judge_cfg, &judge_w, moved,
	    0, &more, &rev, &r, &err), 0, "%s", err.msg);
	cr_expect_eq(more, 0);
	/* next-4 was stored as compared: it is now the previous ref. */
	cr_expect_str_eq(jstr(r, "prev"), "refs/tags/next-4");
	cr_expect_str_eq(jstr(r, "headline"), "tput");
	cr_expect_eq(json_array_size(json_object_get(r, "changed")), 1);
	cr_expect_lt(json_real_value(json_object_get(json_array_get(
	    json_object_get(r, "metrics"), 0), "change_prev")), -0.04);
	/* At its own ref: the range is the previous ref to this one. */
	cr_expect_str_eq(jstr(json_object_get(r, "change"), "before"),
	    "refs/tags/next-4");
	cr_expect_str_eq(jstr(json_object_get(r, "change"), "after"),
	    "refs/tags/next-5");
	cr_expect_eq(json_integer_value(json_object_get(json_object_get(r,
	    "change"), "late")), 0);
	json_decref(r);

	few = judge_ref("next-6", 'f', STORE_SWEEP_SAMPLING, 95, 2);
	cr_assert_eq(sweep_judge_row(stest_db, &judge_cfg, &judge_w, few,
	    0, &more, &rev, &r, &err), 0, "%s", err.msg);
	cr_expect_eq(more, 3);
	cr_expect_null(r);
	cr_expect_eq(sweep_judge_row(stest_db, &judge_cfg, &judge_w, few + 99,
	    0, &more, &rev, NULL, &err), -ENOENT);
}
