/* SPDX-License-Identifier: MIT */
/*
 * Reports of finished bisections: gathered from the store and the
 * repository into a struct report_input, rendered by bisect/report, stored,
 * and handed to the configured report hook on its standard input with the
 * culprit's author and committer in its environment.
 */
#ifndef DAEMON_REPORTER_H
#define DAEMON_REPORTER_H

#include <git2.h>
#include <uv.h>

#include "config/config.h"

struct bisection;
struct store;

/*
 * Builds, stores and sends the report of a bisection that has a verdict:
 * st holds its runs and samples, cfg its benchmark and report hook (run
 * on loop), repo (may be NULL) the culprit's identity.  All borrowed.
 */
void	reporter_run(struct store *st, const struct config *cfg,
	    git_repository *repo, uv_loop_t *loop, struct bisection *b);

#endif
