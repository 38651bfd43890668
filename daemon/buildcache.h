/*
 * The build cache of the remote layer backed by the store, so that a commit
 * built for one bisection is reused by every later one of the same host
 * group and benchmark configuration, also across restarts.
 */
#ifndef DAEMON_BUILDCACHE_H
#define DAEMON_BUILDCACHE_H

#include "remote/cache.h"

struct store;

/* Points c at s; s must outlive every use of c. */
void	buildcache_bind(struct cache *c, struct store *s);

#endif
