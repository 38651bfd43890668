/* SPDX-License-Identifier: MIT */
/*
 * The build-only SSH backend (backend_ssh_build_new) against real OpenSSH
 * servers on loopback: a lab group's build leases a build host, never a
 * test host, records the artifact's path and stores it in the build
 * cache, runs none of the test steps, and a failing build is recorded as
 * the commit's failure.
 */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <uv.h>

#include "common/xmalloc.h"
#include "remote/backend.h"
#include "remote/cache.h"
#include "remote/job.h"
#include "remote/pool.h"
#include "tests/support/rtest.h"
#include "tests/support/sshd.h"
#include "tests/support/tst.h"

TestSuite(remote_build, .init = rtest_setup, .fini = rtest_teardown);

#define COMMIT	"0123456789abcdef0123456789abcdef01234567"
#define SHORT	"0123456789ab"

/* What the builder reported for one build. */
struct bres {
	int		 done, records;
	enum step_outcome recorded, ended;
	enum step_phase	 phase;
	char		 host[64], artifact[512], msg[BD_ERROR_MAX];
};

static void
brecord(void *arg, const struct step_result *r, const char *host)
{
	struct bres *x = arg;

	x->records++;
	x->recorded = r->outcome;
	x->phase = r->phase;
	snprintf(x->host, sizeof(x->host), "%s", host);
	snprintf(x->artifact, sizeof(x->artifact), "%s",
	    r->artifact ? r->artifact : "");
	snprintf(x->msg, sizeof(x->msg), "%s", r->err.msg);
}

static void
bdone(void *arg, const struct step_result *r, unsigned attempts)
{
	struct bres *x = arg;

	(void)attempts;
	x->ended = r->outcome;
	x->done = 1;
}

static void
build(struct backend *be, const struct config_benchmark *b,
    const struct cache *cache, struct bres *x)
{
	struct backend_spec spec;
	struct backend_run *r;
	struct bd_error err;

	memset(x, 0, sizeof(*x));
	memset(&spec, 0, sizeof(spec));
	spec.bench = b;
	spec.commit = COMMIT;
	spec.run_id = "b1";
	spec.group = "g";
	spec.log_dir = rtest_tmp;
	spec.cache = cache;
	spec.record = brecord;
	spec.arg = x;
	cr_assert_eq(backend_submit(be, &spec, bdone, x, &r, &err), 0, "%s",
	    err.msg);
	rtest_run_until(&x->done);
}

Test(remote_build, builds_on_a_build_host_and_runs_nothing)
{
	struct config_host hosts[2];
	struct config_benchmark b;
	struct cache_mem *cm = cache_mem_new();
	struct cache cache;
	struct cache_key k;
	struct cache_hit hit;
	struct pool *p;
	struct job_queue *q;
	struct backend *be;
	struct bd_error err;
	struct bres x;
	char *art, *ran;

	cr_assert_eq(sshd_start(&rtest_srv[0], "tester"), 0);
	cr_assert_eq(sshd_start(&rtest_srv[1], "builder"), 0);
	sshd_host(&rtest_srv[0], &hosts[0], "tester", "g");
	sshd_host(&rtest_srv[1], &hosts[1], "builder", "g");
	hosts[0].roles = CONFIG_ROLE_TEST;
	hosts[1].roles = CONFIG_ROLE_BUILD;
	cache_mem_bind(cm, &cache);
	cr_assert_eq(pool_new(&rtest_loop, hosts, 2, 0, &p, &err), 0);
	q = job_queue_new(p);
	be = backend_ssh_build_new(p, q);
	/* Its slots are build hosts: one here. */
	cr_expect_eq(be->ops->capacity(be, "g"), 1);
	rtest_bench_init(&b, "touch ran; echo '{\"score\": 1}'");
	b.build = "mkdir -p out && echo {commit} > {artifact}";
	b.artifact = "{workdir}/out/art-{short}";
	build(be, &b, &cache, &x);
	cr_assert_eq(x.ended, STEP_OK, "%s", x.msg);
	cr_assert_eq(x.records, 1);
	cr_expect_eq(x.recorded, STEP_OK);
	cr_expect_str_eq(x.host, "builder");
	art = rtest_path_in(rtest_srv[1].dir, "out/art-" SHORT);
	cr_expect_str_eq(x.artifact, art);
	cr_expect_eq(access(art, F_OK), 0, "no artifact at %s", art);
	/* The build cache names the build host and the path. */
	cache_key_init(&k, "g", &b, COMMIT, NULL);
	cr_assert_eq(cache_lookup(&cache, &k, &hit), 0);
	cr_expect_str_eq(hit.copies[0].host, "builder");
	cr_expect_str_eq(hit.copies[0].artifact, art);
	cache_hit_release(&hit);
	/* Nothing ran on either host. */
	ran = rtest_path_in(rtest_srv[0].dir, "ran");
	cr_expect_neq(access(ran, F_OK), 0, "the run step ran on the tester");
	free(ran);
	ran = rtest_path_in(rtest_srv[1].dir, "ran");
	cr_expect_neq(access(ran, F_OK), 0, "the run step ran on the builder");
	free(ran);
	free(art);

	/* A build that fails is the commit's failure, recorded once. */
	b.build = "echo broken >&2; exit 2";
	b.artifact = "{workdir}/out/other-{short}";
	build(be, &b, &cache, &x);
	cr_expect_eq(x.ended, STEP_FAILED);
	cr_expect_eq(x.records, 1);
	cr_expect_eq(x.phase, STEP_PHASE_BUILD);
	cr_expect_not_null(strstr(x.msg, "build on builder"), "%s", x.msg);
	be->ops->free(be);
	job_queue_free(q);
	pool_free(p);
	rtest_drain_loop();
	cache_mem_free(cm);
}

/* No build host in the group: no slot, and a build ends unrecorded. */
Test(remote_build, no_build_host_is_infrastructure)
{
	struct config_host h;
	struct config_benchmark b;
	struct pool *p;
	struct job_queue *q;
	struct backend *be;
	struct bd_error err;
	struct bres x;

	cr_assert_eq(sshd_start(&rtest_srv[0], "tester"), 0);
	sshd_host(&rtest_srv[0], &h, "tester", "g");
	h.roles = CONFIG_ROLE_TEST;
	cr_assert_eq(pool_new(&rtest_loop, &h, 1, 0, &p, &err), 0);
	q = job_queue_new(p);
	be = backend_ssh_build_new(p, q);
	cr_expect_eq(be->ops->capacity(be, "g"), 0);
	rtest_bench_init(&b, "true");
	b.build = "true";
	build(be, &b, NULL, &x);
	cr_expect_eq(x.ended, STEP_INFRA);
	cr_expect_eq(x.records, 0);
	be->ops->free(be);
	job_queue_free(q);
	pool_free(p);
	rtest_drain_loop();
}
