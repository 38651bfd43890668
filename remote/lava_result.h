/* SPDX-License-Identifier: MIT */
/*
 * What a finished LAVA job says: its test cases, page by page, folded
 * into metrics, a build failure, or the lab's error of an Incomplete job.
 * Pure: JSON in, fields out; remote/lava.c does the requests.
 */
#ifndef REMOTE_LAVA_RESULT_H
#define REMOTE_LAVA_RESULT_H

#include <stdbool.h>

#include <jansson.h>

#include "common/error.h"
#include "remote/metrics.h"

/*
 * Pages of test cases one job may span, and measured cases it may report:
 * a lab that sends more is broken or hostile, and the daemon's one event
 * loop must not spend itself on following or checking them.
 */
#define LAVA_RESULT_MAX_PAGES	100
#define LAVA_RESULT_MAX_METRICS	4096

struct lava_result {
	struct metrics	 metrics;	/* cases with a measurement, owned */
	unsigned	 pages;		/* folded so far */
	bool		 build_failed;	/* build_case ended fail */
	char		 error_type[64];	/* of LAVA's "job" case; "" none */
	char		 error_msg[256];
};

void	lava_result_init(struct lava_result *r);
void	lava_result_release(struct lava_result *r);
/*
 * Folds one page of GET /jobs/ID/tests/ into r.  A measured case must have
 * a valid metric name (bd_metric_name_valid) and a finite number.  *next
 * is set to the next page's URL on the lab at base (caller frees) or
 * NULL: the next request carries the lab's token, so only the path and
 * query of the lab's link are kept, after base's scheme and authority,
 * and a link outside base's path + "/api/" is refused.  Returns 0 or
 * -EINVAL.
 */
int	lava_result_page(struct lava_result *r, const char *body, size_t len,
	    const char *build_case, const char *base, char **next,
	    struct bd_error *err);
/* A value of "key: value" in a case's metadata text; "" when absent. */
void	lava_result_meta(const char *meta, const char *key, char *out,
	    size_t outsz);

#endif
