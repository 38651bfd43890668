/* SPDX-License-Identifier: MIT */
/*
 * The daily schedule of a sweep: which HH:MM (UTC) was last passed and
 * which comes next, on either side of the time and of midnight.
 */
#include <criterion/criterion.h>
#include <stdint.h>

#include "sweep/sweep.h"

TestSuite(sweep_daily);

#define MIN_MS	(60 * (int64_t)1000)
#define DAY_MS	(24 * 60 * MIN_MS)
/* 2026-12-01 00:00 UTC. */
#define DAY0	((int64_t)1796083200 * 1000)

Test(sweep_daily, last_and_next_around_the_time)
{
	int64_t last, next;

	/* 06:00, asked at 05:59: yesterday's was the last. */
	sweeper_daily_due(6 * 60, DAY0 + 359 * MIN_MS, &last, &next);
	cr_expect_eq(last, DAY0 - DAY_MS + 360 * MIN_MS);
	cr_expect_eq(next, DAY0 + 360 * MIN_MS);
	/* At 06:00 exactly it is due: today's is the last. */
	sweeper_daily_due(6 * 60, DAY0 + 360 * MIN_MS, &last, &next);
	cr_expect_eq(last, DAY0 + 360 * MIN_MS);
	cr_expect_eq(next, DAY0 + DAY_MS + 360 * MIN_MS);
	/* 23:59, asked just after midnight. */
	sweeper_daily_due(23 * 60 + 59, DAY0 + MIN_MS, &last, &next);
	cr_expect_eq(last, DAY0 - MIN_MS);
	cr_expect_eq(next, DAY0 + DAY_MS - MIN_MS);
	/* 00:00, asked at 12:00. */
	sweeper_daily_due(0, DAY0 + 720 * MIN_MS, &last, &next);
	cr_expect_eq(last, DAY0);
	cr_expect_eq(next, DAY0 + DAY_MS);
}
