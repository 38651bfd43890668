/* SPDX-License-Identifier: MIT */
/*
 * The build cache: a commit built once for a benchmark configuration on one
 * host group is not built again.
 *
 * The key is (group, benchmark, commit, config) where config is a hash of
 * the benchmark's build and artifact templates, so editing the build
 * command invalidates old builds.  A hit names every host that keeps the
 * artifact (the build host and each test host a copy was checked on),
 * with the kept copy's path and sha256 there, so a commit is not built
 * again while any of them can serve it; a copy found gone or different
 * is forgotten for its host alone.  The daemon backs the cache with its store
 * through struct cache_ops; struct cache_mem is an in-memory one for tests
 * and for running without a store.  All calls are synchronous and cheap.
 */
#ifndef REMOTE_CACHE_H
#define REMOTE_CACHE_H

#include <stdint.h>

#include "config/config.h"

struct cache_key {
	const char	*group;
	const char	*benchmark;
	const char	*commit;
	const char	*tree;		/* built tree (hex) or NULL */
	uint64_t	 config;	/* cache_config_hash() */
};

/* One host's kept copy of a build's artifact; strings owned by the hit. */
struct cache_copy {
	char	*host;
	char	*artifact;	/* "" when the build names no artifact */
	char	*sha256;	/* the kept artifact's, hex; NULL: not known */
};

/* Every host that keeps the artifact, the most recently kept first. */
struct cache_hit {
	struct cache_copy	*copies;
	size_t			 ncopies;
};

struct cache_ops {
	/* 0 and hit filled (at least one copy) when found, -ENOENT when not. */
	int	(*lookup)(void *arg, const struct cache_key *k,
		    struct cache_hit *hit);
	/* host built k and keeps artifact (sha256 NULL: not known yet). */
	int	(*store)(void *arg, const struct cache_key *k,
		    const char *host, const char *artifact,
		    const char *sha256);
	/* host checked and keeps a copy of k's artifact; may be NULL. */
	void	(*hold)(void *arg, const struct cache_key *k,
		    const char *host, const char *artifact,
		    const char *sha256);
	/* host's copy (host NULL: every copy) turned out gone or other. */
	void	(*forget)(void *arg, const struct cache_key *k,
		    const char *host);
	/* The stored build's artifact has this sha256 (hex); may be NULL. */
	void	(*checksum)(void *arg, const struct cache_key *k,
		    const char *sha256);
	/*
	 * Test hosts describe themselves once per describe command: whether
	 * host has done so for command, and keeping what it printed.  Either
	 * may be NULL (never described, nothing kept).
	 */
	int	(*described)(void *arg, const char *host, const char *command);
	void	(*describe)(void *arg, const char *host, const char *command,
		    const char *output);
};

struct cache {
	const struct cache_ops	*ops;
	void			*arg;
};

/* FNV-1a of the templates that decide what a build produces. */
uint64_t cache_config_hash(const struct config_benchmark *b);
/* Whether a and b name one build (tree NULL: the commit's own). */
int	 cache_key_eq(const struct cache_key *a, const struct cache_key *b);
/* tree: the built tree when it is not commit's own (fix-ups), or NULL. */
void	 cache_key_init(struct cache_key *k, const char *group,
	    const struct config_benchmark *b, const char *commit,
	    const char *tree);

/* These accept a NULL cache (nothing cached, nothing stored). */
int	 cache_lookup(const struct cache *c, const struct cache_key *k,
	    struct cache_hit *hit);
int	 cache_store(const struct cache *c, const struct cache_key *k,
	    const char *host, const char *artifact, const char *sha256);
void	 cache_hold(const struct cache *c, const struct cache_key *k,
	    const char *host, const char *artifact, const char *sha256);
void	 cache_forget(const struct cache *c, const struct cache_key *k,
	    const char *host);
void	 cache_checksum(const struct cache *c, const struct cache_key *k,
	    const char *sha256);
/* 1 when host has described itself for command; 0 otherwise. */
int	 cache_described(const struct cache *c, const char *host,
	    const char *command);
void	 cache_describe(const struct cache *c, const char *host,
	    const char *command, const char *output);
/* Appends a copy to hit (the strings are copied; sha256 may be NULL). */
void	 cache_hit_add(struct cache_hit *hit, const char *host,
	    const char *artifact, const char *sha256);
/* The copy kept on host, or NULL. */
const struct cache_copy *cache_hit_on(const struct cache_hit *hit,
	    const char *host);
void	 cache_hit_release(struct cache_hit *hit);

struct cache_mem;
struct cache_mem *cache_mem_new(void);
void	 cache_mem_free(struct cache_mem *m);
/* Points c at m; m must outlive every use of c. */
void	 cache_mem_bind(struct cache_mem *m, struct cache *c);

#endif
