/* SPDX-License-Identifier: MIT */
/*
 * The lab tests' direct look at a LAVA lab (its REST API v0.2 at url) and
 * at the daemon's database, to check what the daemon did there.
 */
#ifndef TESTS_SUPPORT_LAVAAPI_H
#define TESTS_SUPPORT_LAVAAPI_H

#include <stdint.h>

#include <jansson.h>

/* BISECTD_TEST_LAVA_URL, or NULL when unset or empty. */
const char *lavaapi_url(void);
/* Skips the calling test, by name, when there is no lab to test against. */
void	 lavaapi_require(void);
/* GET url/api/v0.2/PATH, parsed; caller decrefs. */
json_t	*lavaapi_get(const char *url, const char *path);
/* The instance id in the daemon's database at db (caller frees). */
char	*lavaapi_instance(const char *db);
/* The lab's jobs for one run of that instance, oldest first. */
json_t	*lavaapi_jobs_of(const char *url, const char *instance, int64_t run);
/*
 * Every run of bisection id of the svc daemon (tests/support/svc.h) that
 * has samples has exactly one job in the lab at lavaapi_url(): none was
 * submitted twice.
 */
void	 lavaapi_assert_one_job_per_run(int64_t id);
/* The first lab's row in the svc daemon's `hosts` (caller decrefs). */
json_t	*lavaapi_lab_row(void);
/* Runs of bisection id of the svc daemon in state, from its status. */
int64_t	 lavaapi_runs(int64_t id, const char *state);
/* A bisection of the svc fixture's range with benchmark on group "lava". */
int64_t	 lavaapi_bisect(const char *benchmark);

#endif
