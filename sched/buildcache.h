/* SPDX-License-Identifier: MIT */
/*
 * The build cache of the remote layer backed by the store, so that a commit
 * built for one bisection is reused by every later one of the same host
 * group and benchmark configuration, also across restarts.
 */
#ifndef SCHED_BUILDCACHE_H
#define SCHED_BUILDCACHE_H

#include "remote/cache.h"

struct store;

/* Points c at s; s must outlive every use of c. */
void	buildcache_bind(struct cache *c, struct store *s);
/*
 * The checksum recorded for the good build of commit by benchmark b on
 * group: 0 and *out (the caller frees it), or -ENOENT when there is none.
 */
int	buildcache_checksum(struct store *s, const char *group,
	    const struct config_benchmark *b, const char *commit, char **out);

#endif
