/* SPDX-License-Identifier: MIT */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/xmalloc.h"
#include "remote/cache.h"

struct cache_mem_entry {
	char			*group, *benchmark, *commit, *tree;
	uint64_t		 config;
	char			*host, *artifact, *sha256;
	struct cache_mem_entry	*next;
};

struct cache_mem {
	struct cache_mem_entry	*head;
};

/* One FNV-1a step over a string, with a separator after it. */
static uint64_t
cache_fnv(uint64_t h, const char *s)
{
	if (s == NULL)
		s = "";
	for (; *s != '\0'; s++) {
		h ^= (unsigned char)*s;
		h *= 0x100000001b3ULL;
	}
	h ^= 0xff;		/* separator: ("ab","c") differs from ("a","bc") */
	return h * 0x100000001b3ULL;
}

/*
 * FNV-1a over a file's bytes; a file that cannot be read hashes as its
 * error, so it can neither hit an old build nor be mistaken for empty.
 */
static uint64_t
cache_fnv_file(uint64_t h, const char *path)
{
	unsigned char buf[8192];
	size_t n, i;
	FILE *f;

	h = cache_fnv(h, path);
	if ((f = fopen(path, "rb")) == NULL)
		return cache_fnv(h, strerror(errno));
	while ((n = fread(buf, 1, sizeof(buf), f)) > 0)
		for (i = 0; i < n; i++) {
			h ^= buf[i];
			h *= 0x100000001b3ULL;
		}
	if (ferror(f))
		h = cache_fnv(h, "read error");
	fclose(f);
	return cache_fnv(h, "");
}

/*
 * What the build step produces depends on its two templates and on the
 * contents of the build_inputs files (read at every key: they are small,
 * and an edit must count from the next build on).
 */
uint64_t
cache_config_hash(const struct config_benchmark *b)
{
	uint64_t h = 0xcbf29ce484222325ULL;
	char *copy, *word, *save = NULL;

	h = cache_fnv(h, b->build);
	h = cache_fnv(h, b->artifact);
	if (b->build_inputs == NULL)
		return h;
	copy = xstrdup(b->build_inputs);
	for (word = strtok_r(copy, " ", &save); word != NULL;
	    word = strtok_r(NULL, " ", &save))
		h = cache_fnv_file(h, word);
	free(copy);
	return h;
}

/* The key names the build, not the run: no host, no run id. */
void
cache_key_init(struct cache_key *k, const char *group,
    const struct config_benchmark *b, const char *commit, const char *tree)
{
	k->group = group;
	k->benchmark = b->name;
	k->commit = commit;
	k->tree = tree;
	k->config = cache_config_hash(b);
}

/* A NULL cache never hits, so callers need no special case. */
int
cache_lookup(const struct cache *c, const struct cache_key *k,
    struct cache_hit *hit)
{
	int rc;

	hit->copies = NULL;
	hit->ncopies = 0;
	if (c == NULL || c->ops == NULL)
		return -ENOENT;
	rc = c->ops->lookup(c->arg, k, hit);
	if (rc == 0 && hit->ncopies == 0)
		rc = -ENOENT;
	if (rc != 0)
		cache_hit_release(hit);
	return rc;
}

/* A NULL cache stores nothing, so callers need no special case. */
int
cache_store(const struct cache *c, const struct cache_key *k,
    const char *host, const char *artifact, const char *sha256)
{
	if (c == NULL || c->ops == NULL)
		return 0;
	return c->ops->store(c->arg, k, host, artifact ? artifact : "",
	    sha256);
}

/*
 * A test host that checked a relayed copy keeps it by its hash: it can
 * serve the commit when the build host cannot.
 */
void
cache_hold(const struct cache *c, const struct cache_key *k,
    const char *host, const char *artifact, const char *sha256)
{
	if (c != NULL && c->ops != NULL && c->ops->hold != NULL)
		c->ops->hold(c->arg, k, host, artifact ? artifact : "",
		    sha256);
}

/* Called when host's copy named by the cache turned out gone or other. */
void
cache_forget(const struct cache *c, const struct cache_key *k,
    const char *host)
{
	if (c != NULL && c->ops != NULL)
		c->ops->forget(c->arg, k, host);
}

/*
 * Two commits whose artifacts have one checksum built the same thing: the
 * verification of a culprit asks the cache for it.
 */
void
cache_checksum(const struct cache *c, const struct cache_key *k,
    const char *sha256)
{
	if (c != NULL && c->ops != NULL && c->ops->checksum != NULL)
		c->ops->checksum(c->arg, k, sha256);
}

/* Without a store behind the cache, a host describes itself every run. */
int
cache_described(const struct cache *c, const char *host, const char *command)
{
	if (c == NULL || c->ops == NULL || c->ops->described == NULL)
		return 0;
	return c->ops->described(c->arg, host, command);
}

/* Kept only where the cache has a store. */
void
cache_describe(const struct cache *c, const char *host, const char *command,
    const char *output)
{
	if (c != NULL && c->ops != NULL && c->ops->describe != NULL)
		c->ops->describe(c->arg, host, command, output);
}

/* Both backends fill hits one copy at a time. */
void
cache_hit_add(struct cache_hit *hit, const char *host, const char *artifact,
    const char *sha256)
{
	struct cache_copy *cp;

	hit->copies = xreallocarray(hit->copies, hit->ncopies + 1,
	    sizeof(*hit->copies));
	cp = &hit->copies[hit->ncopies++];
	cp->host = xstrdup(host);
	cp->artifact = xstrdup(artifact ? artifact : "");
	cp->sha256 = sha256 != NULL && sha256[0] != '\0' ?
	    xstrdup(sha256) : NULL;
}

/* A test host that keeps a copy itself needs nothing relayed. */
const struct cache_copy *
cache_hit_on(const struct cache_hit *hit, const char *host)
{
	size_t i;

	for (i = 0; i < hit->ncopies; i++)
		if (strcmp(hit->copies[i].host, host) == 0)
			return &hit->copies[i];
	return NULL;
}

/* Frees the copies a lookup handed out. */
void
cache_hit_release(struct cache_hit *hit)
{
	size_t i;

	for (i = 0; i < hit->ncopies; i++) {
		free(hit->copies[i].host);
		free(hit->copies[i].artifact);
		free(hit->copies[i].sha256);
	}
	free(hit->copies);
	hit->copies = NULL;
	hit->ncopies = 0;
}

/*
 * One build: the same group, benchmark, templates and commit, and the same
 * tree (both the commit's own, or equal: fix-ups make another build).
 */
int
cache_key_eq(const struct cache_key *a, const struct cache_key *b)
{
	return a->config == b->config && strcmp(a->group, b->group) == 0 &&
	    strcmp(a->benchmark, b->benchmark) == 0 &&
	    strcmp(a->commit, b->commit) == 0 &&
	    (a->tree == NULL || b->tree == NULL ? a->tree == b->tree :
	    strcmp(a->tree, b->tree) == 0);
}

/* Whether e is a copy of k's build. */
static int
cache_mem_match(const struct cache_mem_entry *e, const struct cache_key *k)
{
	const struct cache_key ek = { e->group, e->benchmark, e->commit,
	    e->tree, e->config };

	return cache_key_eq(&ek, k);
}

/* Hands out copies, newest first, so entries may be replaced meanwhile. */
static int
cache_mem_lookup(void *arg, const struct cache_key *k, struct cache_hit *hit)
{
	struct cache_mem *m = arg;
	struct cache_mem_entry *e;

	for (e = m->head; e != NULL; e = e->next)
		if (cache_mem_match(e, k))
			cache_hit_add(hit, e->host, e->artifact, e->sha256);
	return hit->ncopies > 0 ? 0 : -ENOENT;
}

/* Frees one entry and the strings it owns. */
static void
cache_mem_entry_free(struct cache_mem_entry *e)
{
	free(e->group);
	free(e->benchmark);
	free(e->commit);
	free(e->tree);
	free(e->host);
	free(e->artifact);
	free(e->sha256);
	free(e);
}

/* Drops host's copy of k (host NULL: every copy of k). */
static void
cache_mem_forget(void *arg, const struct cache_key *k, const char *host)
{
	struct cache_mem *m = arg;
	struct cache_mem_entry **pp, *e;

	for (pp = &m->head; (e = *pp) != NULL;) {
		if (cache_mem_match(e, k) &&
		    (host == NULL || strcmp(e->host, host) == 0)) {
			*pp = e->next;
			cache_mem_entry_free(e);
		} else
			pp = &e->next;
	}
}

/* One entry per copy; a host's newer copy replaces its older one. */
static void
cache_mem_hold(void *arg, const struct cache_key *k, const char *host,
    const char *artifact, const char *sha256)
{
	struct cache_mem *m = arg;
	struct cache_mem_entry *e;

	cache_mem_forget(m, k, host);
	e = xcalloc(1, sizeof(*e));
	e->group = xstrdup(k->group);
	e->benchmark = xstrdup(k->benchmark);
	e->commit = xstrdup(k->commit);
	e->tree = k->tree != NULL ? xstrdup(k->tree) : NULL;
	e->config = k->config;
	e->host = xstrdup(host);
	e->artifact = xstrdup(artifact);
	e->sha256 = sha256 != NULL ? xstrdup(sha256) : NULL;
	e->next = m->head;
	m->head = e;
}

/* The build host keeps the first copy. */
static int
cache_mem_store(void *arg, const struct cache_key *k, const char *host,
    const char *artifact, const char *sha256)
{
	cache_mem_hold(arg, k, host, artifact, sha256);
	return 0;
}

/* The checksum joins the copies of its key that have none. */
static void
cache_mem_checksum(void *arg, const struct cache_key *k, const char *sha256)
{
	struct cache_mem *m = arg;
	struct cache_mem_entry *e;

	for (e = m->head; e != NULL; e = e->next)
		if (cache_mem_match(e, k) && e->sha256 == NULL)
			e->sha256 = xstrdup(sha256);
}

static const struct cache_ops cache_mem_ops = {
	.lookup = cache_mem_lookup,
	.store = cache_mem_store,
	.hold = cache_mem_hold,
	.forget = cache_mem_forget,
	.checksum = cache_mem_checksum,
	/* hosts describe themselves every run */
};

/* An empty cache; cache_mem_free() releases it. */
struct cache_mem *
cache_mem_new(void)
{
	return xcalloc(1, sizeof(struct cache_mem));
}

/* Frees every entry, then the cache. */
void
cache_mem_free(struct cache_mem *m)
{
	struct cache_mem_entry *e, *next;

	if (m == NULL)
		return;
	for (e = m->head; e != NULL; e = next) {
		next = e->next;
		cache_mem_entry_free(e);
	}
	free(m);
}

/* Lets code that takes a struct cache use the in-memory one. */
void
cache_mem_bind(struct cache_mem *m, struct cache *c)
{
	c->ops = &cache_mem_ops;
	c->arg = m;
}
