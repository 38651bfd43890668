/* SPDX-License-Identifier: MIT */
/*
 * Build first, then the lab (remote/labbuild.h) over two fake backends
 * that do what the test says when it says it: a commit is built once, a
 * failed build is a skip with no lab job, a lost build host ends the run
 * unrecorded, and cancels reach the build only when nobody waits for it.
 */
#include <criterion/criterion.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/xmalloc.h"
#include "config/config.h"
#include "remote/cache.h"
#include "remote/labbuild.h"
#include "tests/support/tst.h"

TestSuite(labbuild, .fini = tst_leak_check);

#define FAKE_MAX	8

/* One submission a fake backend took. */
struct fake_run {
	struct backend_run base;		/* first */
	char		*commit, *group, *artifact, *build_host, *run_id;
	backend_done_cb	*cb;
	void		*arg;
	backend_record_cb *record;
	void		*rarg;
	const char	*where;
	int		 over, cancelled, detached;
};

struct fake {
	struct backend	 be;
	struct fake_run	*runs[FAKE_MAX];
	size_t		 n;
	unsigned	 capacity, free;
	const char	*trouble;
	int		 async_cancel;	/* a cancel ends the run later */
};

static int
fake_submit(struct backend *be, const struct backend_spec *spec,
    backend_done_cb *cb, void *arg, struct backend_run **out,
    struct bd_error *err)
{
	struct fake *f = be->impl;
	struct fake_run *r = xcalloc(1, sizeof(*r));

	(void)err;
	cr_assert_lt(f->n, FAKE_MAX);
	r->base.be = be;
	r->commit = xstrdup(spec->commit);
	r->run_id = xstrdup(spec->run_id);
	r->group = xstrdup(spec->group);
	r->artifact = spec->artifact ? xstrdup(spec->artifact) : NULL;
	r->build_host = spec->build_host ? xstrdup(spec->build_host) : NULL;
	r->cb = cb;
	r->arg = arg;
	r->record = spec->record;
	r->rarg = spec->arg;
	f->runs[f->n++] = r;
	*out = &r->base;
	return 0;
}

/* Ends run i: optionally a result first, then done. */
static void
fake_end(struct fake *f, size_t i, int record, enum step_outcome o,
    const char *host, const char *artifact, const char *msg)
{
	struct fake_run *r = f->runs[i];
	struct step_result res;

	cr_assert(!r->over, "run %zu ended twice", i);
	memset(&res, 0, sizeof(res));
	res.outcome = o;
	res.phase = o == STEP_FAILED ? STEP_PHASE_BUILD : STEP_PHASE_DONE;
	res.host = host;
	res.artifact = artifact;
	res.built = true;
	bd_error_set(&res.err, o == STEP_OK ? 0 : -EIO, "%s", msg);
	r->over = 1;
	if (record)
		r->record(r->rarg, &res, host);
	r->cb(r->arg, &res, 1);
}

static void
fake_cancel(struct backend_run *br)
{
	struct fake_run *r = (struct fake_run *)br;
	struct step_result res;

	memset(&res, 0, sizeof(res));
	res.outcome = STEP_CANCELLED;
	r->cancelled = 1;
	if (((struct fake *)br->be->impl)->async_cancel)
		return;
	r->over = 1;
	r->cb(r->arg, &res, 1);
}

static void
fake_detach(struct backend_run *br)
{
	((struct fake_run *)br)->detached = 1;
	fake_cancel(br);
}

static const char *
fake_where(const struct backend_run *br)
{
	return ((const struct fake_run *)br)->where;
}

static unsigned
fake_free_slots(struct backend *be, const char *group)
{
	(void)group;
	return ((struct fake *)be->impl)->free;
}

static unsigned
fake_capacity(struct backend *be, const char *group)
{
	(void)group;
	return ((struct fake *)be->impl)->capacity;
}

static const char *
fake_trouble(struct backend *be, const char *group)
{
	(void)group;
	return ((struct fake *)be->impl)->trouble;
}

/* Frees the runs' records; the fake itself is static in each test. */
static void
fake_release(struct backend *be)
{
	struct fake *f = be->impl;
	size_t i;

	for (i = 0; i < f->n; i++) {
		free(f->runs[i]->commit);
		free(f->runs[i]->run_id);
		free(f->runs[i]->group);
		free(f->runs[i]->artifact);
		free(f->runs[i]->build_host);
		free(f->runs[i]);
	}
	f->n = 0;
}

static const struct backend_ops fake_ops = {
	.kind = "fake", .submit = fake_submit, .cancel = fake_cancel,
	.detach = fake_detach, .where = fake_where,
	.free_slots = fake_free_slots, .capacity = fake_capacity,
	.trouble = fake_trouble, .free = fake_release,
};

static void
fake_init(struct fake *f)
{
	memset(f, 0, sizeof(*f));
	f->be.ops = &fake_ops;
	f->be.impl = f;
	f->capacity = 2;
	f->free = 2;
	f->trouble = "";
}

/* What the scheduler heard of one run. */
struct heard {
	int		 records, dones;
	enum step_outcome recorded, ended;
	enum step_phase	 phase;
	char		 host[64];
};

static void
heard_record(void *arg, const struct step_result *r, const char *host)
{
	struct heard *h = arg;

	h->records++;
	h->recorded = r->outcome;
	h->phase = r->phase;
	snprintf(h->host, sizeof(h->host), "%s", host ? host : "");
}

static void
heard_done(void *arg, const struct step_result *last, unsigned attempts)
{
	struct heard *h = arg;

	(void)attempts;
	h->dones++;
	h->ended = last->outcome;
}

/* The test's world: a builder, a lab, the wrapper and a build cache. */
static struct {
	struct fake	 builder, lab;
	struct backend	*lb;
	struct cache_mem *mem;
	struct cache	 cache;
	struct config_benchmark bench;
} w;

static void
world_up(void)
{
	fake_init(&w.builder);
	fake_init(&w.lab);
	/* The wrapper frees its builder: here that frees the records. */
	w.lb = labbuild_new(&w.builder.be, "builders", &w.lab.be);
	w.mem = cache_mem_new();
	cache_mem_bind(w.mem, &w.cache);
	memset(&w.bench, 0, sizeof(w.bench));
	w.bench.name = "spin";
	w.bench.build = "make";
	w.bench.artifact = "{workdir}/out-{short}";
	w.bench.run = "run";
}

static void
world_down(void)
{
	w.lb->ops->free(w.lb);
	fake_release(&w.lab.be);
	cache_mem_free(w.mem);
}

/* A run of commit (built as tree when not NULL: a probe with fix-ups). */
static struct backend_run *
submit_tree(const char *commit, const char *tree, const char *run_id,
    struct heard *h)
{
	struct backend_spec spec;
	struct backend_run *r = NULL;
	struct bd_error err;

	memset(&spec, 0, sizeof(spec));
	spec.bench = &w.bench;
	spec.commit = commit;
	spec.tree = tree;
	spec.run_id = run_id;
	spec.group = "lava";
	spec.cache = &w.cache;
	spec.record = heard_record;
	spec.arg = h;
	memset(h, 0, sizeof(*h));
	cr_assert_eq(backend_submit(w.lb, &spec, heard_done, h, &r, &err), 0,
	    "%s", err.msg);
	return r;
}

static struct backend_run *
submit(const char *commit, const char *run_id, struct heard *h)
{
	return submit_tree(commit, NULL, run_id, h);
}

static const char C1[] = "1111111111111111111111111111111111111111";
static const char C2[] = "2222222222222222222222222222222222222222";

/* Built on the build group, then the lab fetches what the build left. */
Test(labbuild, builds_then_hands_the_artifact_to_the_lab)
{
	struct heard h;
	struct backend_run *r;

	world_up();
	r = submit(C1, "1", &h);
	cr_assert_eq(w.builder.n, 1);
	cr_expect_str_eq(w.builder.runs[0]->group, "builders");
	cr_expect_eq(w.lab.n, 0, "the lab got the run before its build");
	cr_expect_null(backend_where(r));
	w.builder.runs[0]->where = "b1";
	cr_expect_str_eq(backend_where(r), "b1");
	/* A run on a build host holds a lab slot. */
	cr_expect_eq(w.lb->ops->free_slots(w.lb, "lava"), 1);
	fake_end(&w.builder, 0, 1, STEP_OK, "b1", "/w/out-111111111111", "");
	cr_assert_eq(w.lab.n, 1);
	cr_expect_str_eq(w.lab.runs[0]->group, "lava");
	cr_expect_str_eq(w.lab.runs[0]->artifact, "/w/out-111111111111");
	cr_expect_str_eq(w.lab.runs[0]->build_host, "b1");
	cr_expect_eq(h.records, 0, "the build's success is no sample");
	w.lab.runs[0]->where = "lab1";
	cr_expect_str_eq(backend_where(r), "lab1");
	fake_end(&w.lab, 0, 1, STEP_OK, "lab1", NULL, "");
	cr_expect_eq(h.records, 1);
	cr_expect_eq(h.recorded, STEP_OK);
	cr_expect_eq(h.dones, 1);
	cr_expect_eq(h.ended, STEP_OK);
	world_down();
}

/* A commit in the build cache goes to the lab with no build. */
Test(labbuild, cached_commit_is_not_built_again)
{
	struct cache_key k;
	struct heard h;

	world_up();
	cache_key_init(&k, "builders", &w.bench, C1, NULL);
	cr_assert_eq(cache_store(&w.cache, &k, "b2", "/w/out-c1", NULL), 0);
	submit(C1, "1", &h);
	cr_expect_eq(w.builder.n, 0);
	cr_assert_eq(w.lab.n, 1);
	cr_expect_str_eq(w.lab.runs[0]->artifact, "/w/out-c1");
	cr_expect_str_eq(w.lab.runs[0]->build_host, "b2");
	/* Cached for another group: built here. */
	cache_key_init(&k, "lava", &w.bench, C2, NULL);
	cr_assert_eq(cache_store(&w.cache, &k, "b2", "/w/out-c2", NULL), 0);
	submit(C2, "2", &h);
	cr_expect_eq(w.builder.n, 1);
	fake_end(&w.lab, 0, 1, STEP_OK, "lab1", NULL, "");
	fake_end(&w.builder, 0, 0, STEP_CANCELLED, NULL, NULL, "stop");
	world_down();
}

/*
 * A commit with fix-ups is another tree: the plain commit's cached build
 * is not taken for it, nor its build under way, and a second run of the
 * same tree waits for the first one's build.
 */
Test(labbuild, a_commit_with_fixups_is_not_its_plain_build)
{
	static const char tree[] = "3333333333333333333333333333333333333333";
	struct cache_key k;
	struct heard h1, h2, h3;
	char *t = xstrdup(tree);

	world_up();
	cache_key_init(&k, "builders", &w.bench, C1, NULL);
	cr_assert_eq(cache_store(&w.cache, &k, "b2", "/w/out-c1", NULL), 0);
	/* The caller's string may go once submitted. */
	submit_tree(C1, t, "1", &h1);
	free(t);
	cr_expect_eq(w.builder.n, 1, "the plain build was taken");
	cr_expect_eq(w.lab.n, 0);
	submit_tree(C1, tree, "2", &h2);
	cr_expect_eq(w.builder.n, 1, "the same tree was built twice");
	submit(C1, "3", &h3);
	cr_expect_eq(w.builder.n, 1);
	cr_assert_eq(w.lab.n, 1, "the plain commit waited for the tree");
	cr_expect_str_eq(w.lab.runs[0]->artifact, "/w/out-c1");
	fake_end(&w.lab, 0, 1, STEP_OK, "lab1", NULL, "");
	fake_end(&w.builder, 0, 0, STEP_CANCELLED, NULL, NULL, "stop");
	world_down();
}

/*
 * A lab job on a cached artifact that ends as an infrastructure failure
 * (the artifact may be gone) makes the cache forget it: the next run
 * builds the commit again.  A benchmark's own failure keeps the build.
 */
Test(labbuild, a_cached_artifact_the_lab_could_not_use_is_built_again)
{
	struct cache_key k;
	struct cache_hit hit;
	struct heard h;

	world_up();
	cache_key_init(&k, "builders", &w.bench, C1, NULL);
	cr_assert_eq(cache_store(&w.cache, &k, "b2", "/w/out-c1", NULL), 0);
	submit(C1, "1", &h);
	cr_assert_eq(w.lab.n, 1);
	fake_end(&w.lab, 0, 0, STEP_FAILED, "lab1", NULL, "benchmark failed");
	cr_expect_eq(cache_lookup(&w.cache, &k, &hit), 0, "a failed "
	    "benchmark says nothing of the artifact");
	cache_hit_release(&hit);
	submit(C1, "2", &h);
	cr_assert_eq(w.lab.n, 2);
	cr_expect_eq(w.builder.n, 0);
	fake_end(&w.lab, 1, 0, STEP_INFRA, "lab1", NULL, "download failed");
	cr_expect_eq(h.dones, 1);
	cr_expect_eq(h.ended, STEP_INFRA);
	cr_expect_neq(cache_lookup(&w.cache, &k, &hit), 0, "still cached");
	submit(C1, "3", &h);
	cr_expect_eq(w.builder.n, 1, "the next run did not build again");
	fake_end(&w.builder, 0, 0, STEP_CANCELLED, NULL, NULL, "stop");
	world_down();
}

/* Runs of a commit being built wait for that build; others get theirs. */
Test(labbuild, one_build_per_commit_in_flight)
{
	struct heard h1, h2, h3;

	world_up();
	submit(C1, "1", &h1);
	submit(C1, "2", &h2);
	submit(C2, "3", &h3);
	cr_assert_eq(w.builder.n, 2, "C1 built twice or C2 not at all");
	cr_expect_str_eq(w.builder.runs[0]->commit, C1);
	cr_expect_str_eq(w.builder.runs[1]->commit, C2);
	fake_end(&w.builder, 0, 1, STEP_OK, "b1", "/w/c1", "");
	cr_assert_eq(w.lab.n, 2);
	cr_expect_str_eq(w.lab.runs[0]->run_id, "1");
	cr_expect_str_eq(w.lab.runs[1]->run_id, "2");
	cr_expect_str_eq(w.lab.runs[1]->artifact, "/w/c1");
	fake_end(&w.builder, 1, 1, STEP_OK, "b2", "/w/c2", "");
	cr_assert_eq(w.lab.n, 3);
	cr_expect_str_eq(w.lab.runs[2]->build_host, "b2");
	fake_end(&w.lab, 0, 1, STEP_OK, "lab1", NULL, "");
	fake_end(&w.lab, 1, 1, STEP_OK, "lab1", NULL, "");
	fake_end(&w.lab, 2, 1, STEP_OK, "lab1", NULL, "");
	cr_expect_eq(h1.dones + h2.dones + h3.dones, 3);
	world_down();
}

/* A failed build: every waiting run is skipped and no lab job is made. */
Test(labbuild, failed_build_is_a_skip_without_a_lab_job)
{
	struct heard h1, h2;

	world_up();
	submit(C1, "1", &h1);
	submit(C1, "2", &h2);
	fake_end(&w.builder, 0, 1, STEP_FAILED, "b1", NULL,
	    "build on b1 exited with 2");
	cr_expect_eq(w.lab.n, 0);
	cr_expect_eq(h1.records, 1);
	cr_expect_eq(h1.recorded, STEP_FAILED);
	cr_expect_eq(h1.phase, STEP_PHASE_BUILD);
	cr_expect_str_eq(h1.host, "b1");
	cr_expect_eq(h1.ended, STEP_FAILED);
	cr_expect_eq(h2.records, 1);
	cr_expect_eq(h2.dones, 1);
	world_down();
}

/* The build hosts are lost: the run ends unrecorded, an infra retry. */
Test(labbuild, unreachable_build_host_is_infrastructure)
{
	struct heard h;

	world_up();
	submit(C1, "1", &h);
	fake_end(&w.builder, 0, 0, STEP_INFRA, "b1", NULL,
	    "no usable build host left");
	cr_expect_eq(w.lab.n, 0);
	cr_expect_eq(h.records, 0);
	cr_expect_eq(h.dones, 1);
	cr_expect_eq(h.ended, STEP_INFRA);
	/* No build host at all: no slot, and status says why. */
	w.builder.capacity = 0;
	cr_expect_eq(w.lb->ops->free_slots(w.lb, "lava"), 0);
	cr_expect_not_null(strstr(w.lb->ops->trouble(w.lb, "lava"),
	    "build_group builders"));
	w.lab.trouble = "token refused";
	cr_expect_str_eq(w.lb->ops->trouble(w.lb, "lava"), "token refused");
	world_down();
}

/* The build stops only when its last waiting run is cancelled. */
Test(labbuild, cancel_reaches_the_build_when_nobody_waits)
{
	struct heard h1, h2, h3;
	struct backend_run *r1, *r2, *r3;

	world_up();
	r1 = submit(C1, "1", &h1);
	r2 = submit(C1, "2", &h2);
	backend_cancel(r1);
	cr_expect_eq(h1.dones, 1);
	cr_expect_eq(h1.ended, STEP_CANCELLED);
	cr_expect(!w.builder.runs[0]->cancelled);
	backend_cancel(r2);
	cr_expect_eq(h2.dones, 1);
	cr_expect(w.builder.runs[0]->cancelled);
	/* In the lab: the cancel goes to the lab's run; shutdown detaches. */
	r3 = submit(C2, "3", &h3);
	fake_end(&w.builder, 1, 1, STEP_OK, "b1", "/w/c2", "");
	backend_detach(r3);
	cr_expect(w.lab.runs[0]->detached);
	cr_expect_eq(h3.dones, 1);
	cr_expect_eq(h1.records + h2.records + h3.records, 0);
	world_down();
}

/*
 * A build host takes its time to stop: the run ends when the build has,
 * never before (the pool outlives every run), and a build that finished
 * meanwhile sends nothing to the lab.
 */
Test(labbuild, last_run_ends_only_when_its_build_has_stopped)
{
	struct heard h1, h2;
	struct backend_run *r;

	world_up();
	w.builder.async_cancel = 1;
	r = submit(C1, "1", &h1);
	w.builder.runs[0]->where = "b1";
	backend_cancel(r);
	cr_expect(w.builder.runs[0]->cancelled);
	cr_expect_eq(h1.dones, 0, "ended while its build still ran");
	cr_expect_str_eq(backend_where(r), "b1");
	/* A second cancel asks nothing more. */
	backend_cancel(r);
	fake_end(&w.builder, 0, 0, STEP_CANCELLED, NULL, NULL, "killed");
	cr_expect_eq(h1.dones, 1);
	cr_expect_eq(h1.ended, STEP_CANCELLED);
	/* Detached at shutdown while the build succeeds: no lab job. */
	r = submit(C2, "2", &h2);
	backend_detach(r);
	cr_expect(w.builder.runs[1]->detached);
	fake_end(&w.builder, 1, 1, STEP_OK, "b1", "/w/c2", "");
	cr_expect_eq(w.lab.n, 0);
	cr_expect_eq(h2.records, 0);
	cr_expect_eq(h2.dones, 1);
	cr_expect_eq(h2.ended, STEP_CANCELLED);
	world_down();
}
