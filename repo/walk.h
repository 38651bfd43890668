/* SPDX-License-Identifier: MIT */
/*
 * Replays of git's revision walk and merge-base paint on a struct
 * repo_commits, so that sets and orders match git's exactly.  Internal to
 * repo/; not for other modules.
 */
#ifndef REPO_WALK_H
#define REPO_WALK_H

#include <stddef.h>
#include <stdint.h>

#include "common/error.h"
#include "repo/commits.h"

/*
 * git's limit_list(): starts[i] is negative (UNINTERESTING) when neg[i].
 * *out receives the records popped as interesting, in pop order (the
 * caller frees it); some may have been marked uninteresting later, as in
 * git.
 */
int	repo_walk_limit(struct repo_commits *st, const uint32_t *starts,
	    const uint8_t *neg, size_t nstarts, int first_parent,
	    uint32_t **out, size_t *nout, struct bd_error *err);

/*
 * git's get_merge_bases_many(one, twos) without a commit-graph's
 * generation numbers: the merge bases in git's order (caller frees).
 */
int	repo_walk_merge_bases(struct repo_commits *st, uint32_t one,
	    const uint32_t *twos, size_t ntwos, uint32_t **out, size_t *nout,
	    struct bd_error *err);

#endif
