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
	if (rc == 0 && b.state == STORE_BUILD_OK && b.host != NULL) {
		hit->host = xstrdup(b.host);
		hit->artifact = xstrdup(b.artifact ? b.artifact : "");
		hit->sha256 = b.checksum != NULL && b.checksum[0] != '\0' ?
		    xstrdup(b.checksum) : NULL;
	} else {
		if (rc < 0 && rc != -ENOENT)
			log_warnx("build cache lookup: %s", err.msg);
		rc = -ENOENT;
	}
	store_build_release(&b);
	return rc;
}

static int
buildcache_put(void *arg, const struct cache_key *k, const char *host,
    const char *artifact, enum store_build_state state)
{
	struct store *s = arg;
	struct store_build b;
	struct bd_error err;
	char name[512];
	int rc;

	buildcache_name(k, name, sizeof(name));
	store_build_init(&b);
	b.commit = k->commit;
	b.benchmark = name;
	b.group = k->group;
	b.host = host;
	b.artifact = artifact;
	b.state = state;
	rc = store_build_record(s, &b, NULL, &err);
	if (rc < 0)
		log_warnx("build cache record: %s", err.msg);
	return rc;
}

static int
buildcache_store(void *arg, const struct cache_key *k, const char *host,
    const char *artifact)
{
	return buildcache_put(arg, k, host, artifact, STORE_BUILD_OK);
}

/* A vanished artifact is recorded as failed so the next lookup rebuilds. */
static void
buildcache_forget(void *arg, const struct cache_key *k)
{
	buildcache_put(arg, k, "", "", STORE_BUILD_FAILED);
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
	cache_key_init(&k, group, bc, commit);
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
