/* SPDX-License-Identifier: MIT */
/*
 * The report's fix-up lines: which commits were measured with which
 * fix-ups, which were skipped and why, and the broken stretch an
 * inconclusive answer lies in.
 */
#ifndef DAEMON_REPORTER_FIXUP_H
#define DAEMON_REPORTER_FIXUP_H

#include <stddef.h>

#include <git2.h>

#include "sched/bisection.h"
#include "store/store.h"

/*
 * Lines for b (none when no fix-up was used and nothing was skipped);
 * inconclusive adds the broken stretch and n_set, the set's size.  The
 * lines and the array are the caller's to free.
 */
void	reporter_fixup_lines(struct store *st, git_repository *repo,
	    struct bisection *b, int inconclusive, size_t n_set,
	    char ***lines, size_t *n);

#endif
