/* SPDX-License-Identifier: MIT */
/*
 * tests/bench/wild-cost.awk, the reader of `sim --trace` that prices the
 * outlier model's wild runs (docs/statistics.md, "The simulator"), on small
 * traces written here whose every figure is worked out by hand.  It runs
 * under each awk found (mawk is Debian's default, gawk the common other),
 * since a script that only one of them reads right gives wrong figures
 * without a word.
 */
#include <criterion/criterion.h>
#include <stdlib.h>
#include <string.h>

#include "common/xmalloc.h"
#include "tests/support/tst.h"

/*
 * The suite's temp dir: made before each test and removed after it,
 * also after a failed assertion.
 */
static char *wild_dir;

static void
wild_init(void)
{
	cr_assert_not_null(wild_dir = tst_tmpdir("wildcost"));
}

static void
wild_fini(void)
{
	if (wild_dir != NULL)
		tst_rmrf(wild_dir);
	free(wild_dir);
	wild_dir = NULL;
	tst_leak_check();
}

TestSuite(wild_cost, .init = wild_init, .fini = wild_fini);

static const char *const wild_cost_awks[] = { "awk", "mawk", "gawk" };

/* One line of `sim --trace`; the script reads only these fields. */
struct trace_row {
	int		 trial, sample;
	const char	*commit, *truth;
	double		 value;
	int		 wild;
};

/* A trace, the exit status the script must give, and what it prints. */
struct wild_case {
	const struct trace_row	*rows;	/* ends at a NULL commit */
	const char		*raw;	/* instead of rows, as it is */
	int			 status;
	const char *const	*lines;	/* each printed, NULL-terminated */
	const char		*absent; /* never printed, or NULL */
};

/* The rows as `sim --trace` prints them (caller frees). */
static char *
trace_text(const struct trace_row *r)
{
	char *text = xstrdup(""), *old;

	for (; r->commit != NULL; r++) {
		old = text;
		xasprintf(&text, "%strace trial %d sample %d commit %s truth %s "
		    "value %.3f p_bad 0.5000 top 0 mass 0.0010 levels 20.000 "
		    "22.000 scale 1.000 confirmed 0 lbf 0.00 left 90 wild %d\n",
		    old, r->trial, r->sample, r->commit, r->truth, r->value,
		    r->wild);
		free(old);
	}
	return text;
}

/*
 * Runs the script over the case's trace under each awk on this machine
 * and checks what it printed.  Fails unless at least one awk ran.
 */
static void
run_case(const struct wild_case *wc)
{
	const char *src = getenv("BISECTD_SRCDIR");
	char *text, *trace, *script, *out;
	const char *const *line;
	size_t i, ran = 0;
	int status;

	cr_assert_not_null(src, "BISECTD_SRCDIR is not set");
	text = wc->raw != NULL ? xstrdup(wc->raw) : trace_text(wc->rows);
	trace = tst_write_file(wild_dir, "trace", text);
	cr_assert_not_null(trace);
	xasprintf(&script, "%s/tests/bench/wild-cost.awk", src);
	for (i = 0; i < sizeof(wild_cost_awks) / sizeof(wild_cost_awks[0]);
	    i++) {
		out = tst_run_capture((char *const[]){
		    (char *)wild_cost_awks[i], "-f", script, trace, NULL },
		    &status);
		if (out == NULL || status == 127) {
			free(out);
			continue;	/* this awk is not installed */
		}
		ran++;
		cr_assert_eq(status, wc->status, "%s exited %d:\n%s",
		    wild_cost_awks[i], status, out);
		for (line = wc->lines; *line != NULL; line++)
			cr_assert_not_null(strstr(out, *line),
			    "%s: no \"%s\" in:\n%s", wild_cost_awks[i], *line,
			    out);
		cr_assert(wc->absent == NULL || strstr(out, wc->absent) == NULL,
		    "%s: \"%s\" in:\n%s", wild_cost_awks[i], wc->absent, out);
		free(out);
	}
	cr_assert_gt(ran, 0, "no awk could be run");
	free(script);
	free(trace);
	free(text);
}

/*
 * Four trials of a row at N = 100 (the bad endpoint is commit 99): none,
 * one wild run at a candidate far beyond both levels, one at the good
 * endpoint next to the bad level, and two.  Samples 10, 14, 20 and 18:
 * 15.5 a trial; one wild run costs (14 + 20) / 2 - 10 = 7, two cost
 * (18 - 10) / 2 = 4 each.
 */
Test(wild_cost, a_trace_is_priced_by_wild_runs_and_where_they_fell)
{
	static const struct trace_row rows[] = {
		{ 0, 1, "99", "bad", 22.0, 0 },
		{ 0, 2, "good", "good", 20.0, 0 },
		{ 0, 10, "40", "good", 20.1, 0 },
		{ 1, 1, "99", "bad", 22.1, 0 },
		{ 1, 2, "good", "good", 19.9, 0 },
		{ 1, 3, "50", "bad", 22.0, 0 },
		{ 1, 14, "30", "good", 31.0, 1 },
		{ 2, 1, "99", "bad", 22.0, 0 },
		{ 2, 2, "good", "good", 21.8, 1 },
		{ 2, 3, "good", "good", 20.0, 0 },
		{ 2, 20, "60", "bad", 22.2, 0 },
		{ 3, 1, "99", "bad", 22.0, 0 },
		{ 3, 2, "good", "good", 20.0, 0 },
		{ 3, 5, "70", "bad", 21.0, 1 },
		{ 3, 18, "80", "bad", 5.0, 1 },
		{ 0, 0, NULL, NULL, 0, 0 },
	};
	static const char *const lines[] = {
		"trials 4, samples 15.50, wild runs per trial 1.00\n",
		"0            1    10.00          -\n",
		"1            2    17.00       7.00\n",
		"2            1    18.00       4.00\n",
		"  candidate, beyond both                   "
		    "1 trials    14.00 samples (+4.00)\n",
		"  endpoint, near the other level           "
		    "1 trials    20.00 samples (+10.00)\n",
		NULL,
	};

	run_case(&(struct wild_case){ .rows = rows, .lines = lines });
}

/*
 * Counts of 0 and 3 wild runs and none between: the row for 3 must
 * still be printed.
 */
Test(wild_cost, a_gap_in_the_counts_hides_no_row)
{
	static const struct trace_row rows[] = {
		{ 0, 1, "99", "bad", 22.0, 0 },
		{ 0, 12, "good", "good", 20.0, 0 },
		{ 1, 1, "99", "bad", 22.0, 0 },
		{ 1, 2, "good", "good", 20.0, 0 },
		{ 1, 3, "10", "good", 40.0, 1 },
		{ 1, 4, "20", "good", 40.0, 1 },
		{ 1, 30, "30", "bad", 0.0, 1 },
		{ 0, 0, NULL, NULL, 0, 0 },
	};
	static const char *const lines[] = {
		"0            1    12.00          -\n",
		"3            1    30.00       6.00\n",
		NULL,
	};

	run_case(&(struct wild_case){ .rows = rows, .lines = lines,
	    .absent = "\n1     " });
}

/*
 * At N = 50 the bad endpoint is commit 49, the highest the row sampled:
 * a wild run there is an endpoint's, not a candidate's.
 */
Test(wild_cost, the_bad_endpoint_is_the_highest_commit_sampled)
{
	static const struct trace_row rows[] = {
		{ 0, 1, "49", "bad", 22.0, 0 },
		{ 0, 8, "good", "good", 20.0, 0 },
		{ 1, 1, "49", "bad", 22.0, 0 },
		{ 1, 2, "good", "good", 20.0, 0 },
		{ 1, 16, "49", "bad", 20.5, 1 },
		{ 0, 0, NULL, NULL, 0, 0 },
	};
	static const char *const lines[] = {
		"  endpoint, near the other level           "
		    "1 trials    16.00 samples (+8.00)\n",
		NULL,
	};

	run_case(&(struct wild_case){ .rows = rows, .lines = lines,
	    .absent = "candidate" });
}

/* Input that cannot be priced says why instead of dividing by zero. */
Test(wild_cost, a_row_without_a_clean_trial_or_without_trace_says_so)
{
	static const struct trace_row rows[] = {
		{ 0, 1, "99", "bad", 22.0, 0 },
		{ 0, 2, "good", "good", 20.0, 0 },
		{ 0, 9, "40", "good", 35.0, 1 },
		{ 0, 0, NULL, NULL, 0, 0 },
	};
	static const char *const all_wild[] = {
		"every trial had a wild run", NULL,
	};
	static const char *const empty[] = { "no trace lines", NULL };

	run_case(&(struct wild_case){ .rows = rows, .lines = all_wild });
	run_case(&(struct wild_case){
	    .raw = "== dag=linear n=1000 noise=outlier d=8\n", .status = 1,
	    .lines = empty });
}
