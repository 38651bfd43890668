/* SPDX-License-Identifier: MIT */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>

#include "common/xmalloc.h"
#include "sched/buildcache.h"
#include "common/log.h"
#include "store/store.h"

/*
 * The store keys builds by a text; the config hash makes edits count, and
 * a made commit's tree (fix-ups) names what was built beside its sha.
 */
static void
buildcache_name(const struct cache_key *k, char *buf, size_t len)
{
	snprintf(buf, len, "%s#%016" PRIx64 "%s%s", k->benchmark, k->config,
	    k->tree != NULL ? "@" : "", k->tree != NULL ? k->tree : "");
}

/* Each kept copy joins the hit. */
static int
buildcache_copy(void *arg, const struct store_build_copy *c)
{
	cache_hit_add(arg, c->host, c->artifact, c->sha256);
	return 0;
}

/* A built commit is a hit while any host keeps its artifact. */
static int
buildcache_lookup(void *arg, const struct cache_key *k, struct cache_hit *hit)
{
	struct store *s = arg;
	struct store_build b;
	struct bd_error err;
	char name[512];
	int rc;

	buildcache_name(k, name, sizeof(name));
	store_build_init(&b);
	rc = store_build_lookup(s, k->commit, name, k->group, &b, &err);
	if (rc == 0 && b.state == STORE_BUILD_OK)
		rc = store_build_copy_list(s, b.id, buildcache_copy, hit, &err);
	else if (rc == 0)
		rc = -ENOENT;
	if (rc < 0 && rc != -ENOENT)
		log_warnx("build cache lookup: %s", err.msg);
	store_build_release(&b);
	return rc == 0 && hit->ncopies > 0 ? 0 : -ENOENT;
}

/* The build row of k, or 0 when there is none that built. */
static int64_t
buildcache_id(struct store *s, const struct cache_key *k)
{
	struct store_build b;
	struct bd_error err;
	char name[512];
	int64_t id = 0;

	buildcache_name(k, name, sizeof(name));
	store_build_init(&b);
	if (store_build_lookup(s, k->commit, name, k->group, &b, &err) == 0 &&
	    b.state == STORE_BUILD_OK)
		id = b.id;
	store_build_release(&b);
	return id;
}

/* host keeps a copy of k's artifact with that hash. */
static void
buildcache_hold(void *arg, const struct cache_key *k, const char *host,
    const char *artifact, const char *sha256)
{
	struct store_build_copy c = { host, artifact, sha256, 0 };
	struct bd_error err;
	int64_t id;

	if ((id = buildcache_id(arg, k)) != 0 &&
	    store_build_copy_put(arg, id, &c, &err) < 0)
		log_warnx("build cache: copy on %s not recorded: %s", host,
		    err.msg);
}

/*
 * A build is recorded with its host, which keeps the first copy; copies
 * other hosts keep stay listed, as each has its own hash.
 */
static int
buildcache_store(void *arg, const struct cache_key *k, const char *host,
    const char *artifact, const char *sha256)
{
	struct store *s = arg;
	struct store_build b;
	struct store_build_copy c = { host, artifact, sha256, 0 };
	struct bd_error err;
	char name[512];
	int64_t id;
	int rc;

	buildcache_name(k, name, sizeof(name));
	store_build_init(&b);
	b.commit = k->commit;
	b.benchmark = name;
	b.group = k->group;
	b.host = host;
	b.artifact = artifact;
	b.checksum = sha256;
	b.state = STORE_BUILD_OK;
	if ((rc = store_build_record(s, &b, &id, &err)) == 0)
		rc = store_build_copy_put(s, id, &c, &err);
	if (rc < 0)
		log_warnx("build cache record: %s", err.msg);
	return rc;
}

/* A copy gone or different is forgotten for its host (NULL: all). */
static void
buildcache_forget(void *arg, const struct cache_key *k, const char *host)
{
	struct bd_error err;
	int64_t id;

	if ((id = buildcache_id(arg, k)) != 0 &&
	    store_build_copy_forget(arg, id, host, &err) < 0)
		log_warnx("build cache forget: %s", err.msg);
}

int
buildcache_checksum(struct store *s, const char *group,
    const struct config_benchmark *bc, const char *commit, char **out)
{
	struct cache_key k;
	struct store_build b;
	struct bd_error err;
	char name[512];
	int rc;

	*out = NULL;
	cache_key_init(&k, group, bc, commit, NULL);
	buildcache_name(&k, name, sizeof(name));
	store_build_init(&b);
	rc = store_build_lookup(s, commit, name, group, &b, &err);
	if (rc == 0 && b.state == STORE_BUILD_OK && b.checksum != NULL &&
	    b.checksum[0] != '\0')
		*out = xstrdup(b.checksum);
	else
		rc = -ENOENT;
	store_build_release(&b);
	return rc;
}

/* The checksum joins the stored build row, for the no-op check. */
static void
buildcache_checksum_put(void *arg, const struct cache_key *k,
    const char *sha256)
{
	struct store *s = arg;
	struct store_build b;
	struct bd_error err;
	char name[512];

	buildcache_name(k, name, sizeof(name));
	store_build_init(&b);
	if (store_build_lookup(s, k->commit, name, k->group, &b, &err) == 0 &&
	    b.state == STORE_BUILD_OK) {
		/* A row checked before already has one: it is replaced. */
		free((char *)b.checksum);
		b.checksum = xstrdup(sha256);
		if (store_build_record(s, &b, NULL, &err) < 0)
			log_warnx("build cache checksum: %s", err.msg);
	}
	store_build_release(&b);
}

/* A host described for this command is not asked again. */
static int
buildcache_described(void *arg, const char *host, const char *command)
{
	struct store *s = arg;
	struct bd_error err;
	char *out = NULL;
	int rc;

	rc = store_host_describe_get(s, host, command, &out, &err);
	free(out);
	return rc == 0;
}

/* What the host printed, for the reports' "test machine". */
static void
buildcache_describe(void *arg, const char *host, const char *command,
    const char *output)
{
	struct bd_error err;

	if (store_host_describe_put(arg, host, command, output, &err) < 0)
		log_warnx("host %s: description not kept: %s", host, err.msg);
}

static const struct cache_ops buildcache_ops = {
	.lookup = buildcache_lookup,
	.store = buildcache_store,
	.hold = buildcache_hold,
	.forget = buildcache_forget,
	.checksum = buildcache_checksum_put,
	.described = buildcache_described,
	.describe = buildcache_describe,
};

void
buildcache_bind(struct cache *c, struct store *s)
{
	c->ops = &buildcache_ops;
	c->arg = s;
}
