/* SPDX-License-Identifier: MIT */
/*
 * remote/step.c, relay, build cache, job queue and host pool against real
 * OpenSSH servers on loopback ports: the step pipeline, bad results,
 * reboots, and the fleet (relay, retries on another host, health).
 */
#include <criterion/criterion.h>

#include <sys/stat.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <uv.h>

#include "common/xmalloc.h"
#include "remote/cache.h"
#include "remote/exec.h"
#include "remote/job.h"
#include "remote/metrics.h"
#include "remote/pool.h"
#include "remote/relay.h"
#include "remote/ssh.h"
#include "remote/step.h"
#include "tests/support/rtest.h"
#include "tests/support/sshd.h"
#include "tests/support/tst.h"

TestSuite(remote_step, .init = rtest_setup, .fini = rtest_teardown);

/* ------------------------------------------------------------------ */
/* Steps: the pipeline, bad results, reboots. */

#define COMMIT	"0123456789abcdef0123456789abcdef01234567"
#define SHORT	"0123456789ab"

struct sres {
	int		 done;
	enum step_outcome outcome;
	enum step_phase	 phase;
	char		 host[64];
	char		 msg[BD_ERROR_MAX];
	double		 score;
	size_t		 nmetrics;
	bool		 built, power_cycled;
	unsigned	 attempts;
	int		 records;
	char		 record_host[64];
};

static void
sres_fill(struct sres *x, const struct step_result *r)
{
	const struct metrics_value *v = metrics_find(&r->metrics, "score");

	x->outcome = r->outcome;
	x->phase = r->phase;
	snprintf(x->host, sizeof(x->host), "%s", r->host ? r->host : "");
	snprintf(x->msg, sizeof(x->msg), "%s", r->err.msg);
	x->score = v != NULL ? v->value : -1;
	x->nmetrics = r->metrics.n;
	x->built = r->built;
	x->power_cycled = r->power_cycled;
}

static void
sdone(void *arg, const struct step_result *r)
{
	struct sres *x = arg;

	sres_fill(x, r);
	x->done = 1;
}

static void
run_step(struct config_benchmark *b, struct config_host *h,
    struct ssh_conn *c, struct sres *x)
{
	struct step_spec s;
	struct bd_error err;

	memset(x, 0, sizeof(*x));
	memset(&s, 0, sizeof(s));
	s.bench = b;
	s.commit = COMMIT;
	s.run_id = "run1";
	s.log_dir = rtest_tmp;
	s.test.cfg = s.build.cfg = h;
	s.test.conn = s.build.conn = c;
	s.connect_wait_ms = 2000;
	s.kill_grace_ms = 300;
	s.boot_retry_ms = 100;
	cr_assert_eq(step_start(&rtest_loop, &s, sdone, x, NULL, &err), 0, "%s",
	    err.msg);
	rtest_run_until(&x->done);
}

Test(remote_step, step_pipeline_on_one_host)
{
	struct config_benchmark b;
	struct config_host h;
	struct ssh_conn *c;
	struct sres x;
	char *p, *s;

	cr_assert_eq(sshd_start(&rtest_srv[0], "pipeline"), 0);
	c = rtest_conn_for(&rtest_srv[0], &h, "h0");
	rtest_bench_init(&b, "cat installed; echo progress >&2; "
	    "echo '{\"score\": 42.5, \"n\": 3}'");
	b.build = "echo built-{short} > {artifact}";
	b.artifact = "{workdir}/art-{short}";
	b.install = "cp {artifact} installed";
	run_step(&b, &h, c, &x);
	cr_assert_eq(x.outcome, STEP_OK, "%s: %s", step_phase_name(x.phase),
	    x.msg);
	cr_assert_float_eq(x.score, 42.5, 1e-12);
	cr_assert_eq(x.nmetrics, 2);
	cr_assert(x.built);
	p = rtest_path_in(rtest_srv[0].dir, "installed");
	s = tst_read_file(p);
	cr_assert_str_eq(s, "built-" SHORT "\n");
	free(s);
	free(p);
	p = rtest_path_in(rtest_tmp, "run1-run.log");
	s = tst_read_file(p);
	cr_assert_not_null(s, "per-phase log written");
	cr_assert(strstr(s, "progress") != NULL && strstr(s, "built-") !=
	    NULL, "%s", s);
	free(s);
	free(p);

	/* A failing build is the commit's fault: FAILED, not INFRA. */
	b.build = "echo broken >&2; exit 2";
	run_step(&b, &h, c, &x);
	cr_assert_eq(x.outcome, STEP_FAILED);
	cr_assert_eq(x.phase, STEP_PHASE_BUILD);
	cr_assert(strstr(x.msg, "exited with status 2") != NULL, "%s", x.msg);
	ssh_conn_free(c);
	rtest_drain_loop();
}

Test(remote_step, step_rejects_bad_results)
{
	static const struct {
		const char	*run;
		const char	*result_file;
		const char	*err;
	} cases[] = {
		{ "echo '{\"score\": \"fast\"}'", NULL, "not a number" },
		{ "echo '{score: 1}'", NULL, "not valid JSON" },
		{ "echo done", NULL, "not valid JSON" },
		{ "true", NULL, "output is empty" },
		{ "echo '{\"n\": 1}'", NULL, "no value for metric" },
		{ "echo '{\"score\": 3}' > r.json", "{workdir}/r.json", NULL },
		{ "echo '{\"score\": [[3]]}' > r.json", "{workdir}/r.json",
		    "not a number" },
		{ "true", "{workdir}/missing.json", "no such file" },
	};
	struct config_benchmark b;
	struct config_host h;
	struct ssh_conn *c;
	struct sres x;
	const char *from;
	size_t i;

	cr_assert_eq(sshd_start(&rtest_srv[0], "results"), 0);
	c = rtest_conn_for(&rtest_srv[0], &h, "h0");
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		rtest_bench_init(&b, cases[i].run);
		b.result_file = (char *)cases[i].result_file;
		run_step(&b, &h, c, &x);
		if (cases[i].err == NULL) {
			cr_assert_eq(x.outcome, STEP_OK, "%s", x.msg);
			cr_assert_float_eq(x.score, 3.0, 1e-12);
			continue;
		}
		cr_assert_eq(x.outcome, STEP_FAILED, "case %zu: %s", i,
		    x.msg);
		cr_assert_eq(x.phase, STEP_PHASE_COLLECT);
		cr_assert(strstr(x.msg, cases[i].err) != NULL, "case %zu: %s",
		    i, x.msg);
		/* Issue 35 item 18: the message names the configured source. */
		from = cases[i].result_file ? "result_file: " :
		    "run output (last line): ";
		cr_assert(strncmp(x.msg, from, strlen(from)) == 0,
		    "case %zu: %s", i, x.msg);
	}
	/* Only a collect command's output is blamed on collect. */
	rtest_bench_init(&b, "true");
	b.collect = "echo done";
	run_step(&b, &h, c, &x);
	cr_assert_eq(x.outcome, STEP_FAILED, "%s", x.msg);
	cr_assert(strncmp(x.msg, "collect: ", 9) == 0, "%s", x.msg);
	ssh_conn_free(c);
	rtest_drain_loop();
}

/*
 * Issue 35 item 8: a step printing 2 MB keeps a log of its first and last
 * 32 KiB with a line saying what was cut; the metrics on the last line
 * are read all the same.
 */
Test(remote_step, step_log_is_capped_keeping_head_and_tail)
{
	struct config_benchmark b;
	struct config_host h;
	struct ssh_conn *c;
	struct sres x;
	struct stat st;
	char *p, *s;

	cr_assert_eq(sshd_start(&rtest_srv[0], "logcap"), 0);
	c = rtest_conn_for(&rtest_srv[0], &h, "h0");
	rtest_bench_init(&b, "echo FIRST-LINE; head -c 2000000 /dev/zero | "
	    "tr '\\0' x; echo; "
	    "echo '{\"score\": 7}'");
	b.log_max_kib = 64;
	run_step(&b, &h, c, &x);
	cr_assert_eq(x.outcome, STEP_OK, "%s", x.msg);
	cr_assert_float_eq(x.score, 7.0, 1e-12);
	p = rtest_path_in(rtest_tmp, "run1-run.log");
	cr_assert_eq(stat(p, &st), 0);
	cr_assert_leq(st.st_size, 64 * 1024 + 200, "%lld bytes",
	    (long long)st.st_size);
	s = tst_read_file(p);
	cr_assert_not_null(s);
	cr_assert(strncmp(s, "FIRST-LINE\n", 11) == 0);
	cr_assert_not_null(strstr(s, "bytes of output cut here"));
	cr_assert_not_null(strstr(s, "{\"score\": 7}\n"));
	free(s);
	free(p);
	ssh_conn_free(c);
	rtest_drain_loop();
}

/* Plays the host's reboot: watches for the flag, then stops sshd. */
static struct watch {
	uv_timer_t	 t;
	struct sshd	*s;
	char		*flag;
	const char	*kernel;	/* written to dir/kernel, or NULL */
	uint64_t	 back_ms;	/* restart after, 0: never */
	int		 fired;
} wt;

static void
watch_restart(void *arg)
{
	rtest_restart_sshd(arg);
}

static void
watch_cb(uv_timer_t *t)
{
	char *k;

	if (wt.fired || access(wt.flag, F_OK) != 0)
		return;
	wt.fired = 1;
	uv_timer_stop(t);
	sshd_stop(wt.s);
	if (wt.kernel != NULL) {
		k = tst_write_file(wt.s->dir, "kernel", wt.kernel);
		free(k);
	}
	if (wt.back_ms > 0)
		rtest_later(wt.back_ms, watch_restart, wt.s);
}

static void
watch_start(struct sshd *s, const char *flag, const char *kernel,
    uint64_t back_ms)
{
	free(wt.flag);
	memset(&wt, 0, sizeof(wt));
	wt.s = s;
	wt.flag = rtest_path_in(s->dir, flag);
	wt.kernel = kernel;
	wt.back_ms = back_ms;
	uv_timer_init(&rtest_loop, &wt.t);
	uv_timer_start(&wt.t, watch_cb, 20, 20);
}

static void
watch_stop(void)
{
	uv_close((uv_handle_t *)&wt.t, NULL);
	free(wt.flag);
	wt.flag = NULL;
}

Test(remote_step, step_reboot_waits_for_the_new_kernel)
{
	struct config_benchmark b;
	struct config_host h;
	struct ssh_conn *c;
	struct ssh_stats st;
	struct sres x;
	char *k;

	cr_assert_eq(sshd_start(&rtest_srv[0], "reboot"), 0);
	k = tst_write_file(rtest_srv[0].dir, "kernel", "old-kernel\n");
	free(k);
	c = rtest_conn_for(&rtest_srv[0], &h, "h0");
	rtest_bench_init(&b, "echo '{\"score\": 1}'");
	b.reboot = "touch reboot-requested";
	b.boot_check = "cat kernel";
	b.expect_kernel = "kernel-{short}";
	b.boot_timeout_ms = 20000;
	watch_start(&rtest_srv[0], "reboot-requested", "kernel-" SHORT "\n",
	    800);
	run_step(&b, &h, c, &x);
	watch_stop();
	cr_assert_eq(x.outcome, STEP_OK, "%s: %s", step_phase_name(x.phase),
	    x.msg);
	cr_assert(wt.fired, "the host was rebooted");
	cr_assert(!x.power_cycled);
	ssh_get_stats(c, &st);
	cr_assert_geq(st.connects, 2, "reconnected after the reboot");
	ssh_conn_free(c);
	rtest_drain_loop();
}

Test(remote_step, step_boot_timeout_runs_power_cycle)
{
	struct config_benchmark b;
	struct config_host h;
	struct ssh_conn *c;
	struct sres x;
	char *marker;

	cr_assert_eq(sshd_start(&rtest_srv[0], "powercycle"), 0);
	c = rtest_conn_for(&rtest_srv[0], &h, "h0");
	h.power_cycle = "touch {workdir}/power-cycled-{host}";
	rtest_bench_init(&b, "echo '{\"score\": 1}'");
	b.reboot = "touch reboot-requested";
	b.boot_check = "uname -r";
	b.boot_timeout_ms = 1200;
	watch_start(&rtest_srv[0], "reboot-requested", NULL, 0);
	run_step(&b, &h, c, &x);
	watch_stop();
	cr_assert_eq(x.outcome, STEP_INFRA, "%s", x.msg);
	cr_assert_eq(x.phase, STEP_PHASE_BOOT);
	cr_assert_str_eq(x.host, "h0");
	cr_assert(x.power_cycled, "%s", x.msg);
	cr_assert(strstr(x.msg, "boot timeout") != NULL &&
	    strstr(x.msg, "after a power cycle") != NULL, "%s", x.msg);
	marker = rtest_path_in(rtest_srv[0].dir, "power-cycled-h0");
	cr_assert_eq(access(marker, F_OK), 0, "power_cycle did not run");
	free(marker);
	cr_assert(step_outcome_retryable(x.outcome));
	ssh_conn_free(c);
	rtest_drain_loop();
}

/* ------------------------------------------------------------------ */
/* The fleet: relay, build cache, retries, health. */

static void
jrecord(void *arg, const struct step_result *r, const char *host)
{
	struct sres *x = arg;

	(void)r;
	x->records++;
	snprintf(x->record_host, sizeof(x->record_host), "%s", host);
}

static void
jdone(void *arg, const struct step_result *r, unsigned attempts)
{
	struct sres *x = arg;

	sres_fill(x, r);
	x->attempts = attempts;
	x->done = 1;
}

static void
run_job(struct job_queue *q, struct config_benchmark *b, const char *group,
    const struct cache *cache, struct sres *x)
{
	struct job_spec j;
	struct bd_error err;

	memset(x, 0, sizeof(*x));
	memset(&j, 0, sizeof(j));
	j.bench = b;
	j.commit = COMMIT;
	j.run_id = "job1";
	j.group = group;
	j.log_dir = rtest_tmp;
	j.cache = cache;
	j.connect_wait_ms = 1000;
	j.kill_grace_ms = 300;
	j.record = jrecord;
	j.record_arg = x;
	cr_assert_eq(job_submit(q, &j, jdone, x, NULL, &err), 0, "%s",
	    err.msg);
	rtest_run_until(&x->done);
}

static int
count_lines(const char *path)
{
	char *s = tst_read_file(path), *p;
	int n = 0;

	for (p = s; p != NULL && *p != '\0'; p++)
		n += *p == '\n';
	free(s);
	return n;
}

Test(remote_step, relay_and_build_cache_between_hosts)
{
	struct config_host hosts[2];
	struct config_benchmark b;
	struct cache_mem *cm = cache_mem_new();
	struct cache cache;
	struct pool *p;
	struct job_queue *q;
	struct bd_error err;
	struct sres x;
	char *art0, *art1, *builds, *cmp[4] = { "cmp", NULL, NULL, NULL };

	cr_assert_eq(sshd_start(&rtest_srv[0], "builder"), 0);
	cr_assert_eq(sshd_start(&rtest_srv[1], "tester"), 0);
	sshd_host(&rtest_srv[0], &hosts[0], "builder", "g");
	sshd_host(&rtest_srv[1], &hosts[1], "tester", "g");
	hosts[0].roles = CONFIG_ROLE_BUILD;
	hosts[1].roles = CONFIG_ROLE_TEST;
	cache_mem_bind(cm, &cache);
	cr_assert_eq(pool_new(&rtest_loop, hosts, 2, 0, &p, &err), 0);
	q = job_queue_new(p);
	rtest_bench_init(&b, "sha256sum {artifact} > installed-sum && "
	    "echo '{\"score\": 5}'");
	b.build = "mkdir -p out && head -c 3000000 /dev/urandom > {artifact} "
	    "&& echo {host} >> builds";
	b.artifact = "{workdir}/out/art-{short}";
	run_job(q, &b, "g", &cache, &x);
	cr_assert_eq(x.outcome, STEP_OK, "%s: %s", step_phase_name(x.phase),
	    x.msg);
	cr_assert(x.built);
	cr_assert_eq(x.records, 1);
	cr_assert_str_eq(x.record_host, "tester");
	art0 = rtest_path_in(rtest_srv[0].dir, "out/art-" SHORT);
	art1 = rtest_path_in(rtest_srv[1].dir, "out/art-" SHORT);
	cmp[1] = art0;
	cmp[2] = art1;
	cr_assert_eq(tst_run(cmp), 0, "relayed artifact differs");
	free(art1);
	art1 = rtest_path_in(rtest_srv[1].dir,
	    "out/art-" SHORT ".bisectd-part");
	cr_assert_neq(access(art1, F_OK), 0, "part file left behind");

	/* Same commit again: the cache answers, nothing is rebuilt. */
	unlink(art1);
	run_job(q, &b, "g", &cache, &x);
	cr_assert_eq(x.outcome, STEP_OK, "%s", x.msg);
	cr_assert(!x.built, "built again despite the cache");
	builds = rtest_path_in(rtest_srv[0].dir, "builds");
	cr_assert_eq(count_lines(builds), 1);
	free(builds);
	free(art0);
	free(art1);
	job_queue_free(q);
	pool_free(p);
	rtest_drain_loop();
	cache_mem_free(cm);
}

Test(remote_step, sshd_killed_mid_run_is_retried_on_another_host)
{
	struct config_host hosts[2];
	struct config_benchmark b;
	struct pool_host_info info;
	struct pool *p;
	struct job_queue *q;
	struct bd_error err;
	struct sres x;

	cr_assert_eq(sshd_start(&rtest_srv[0], "hostA"), 0);
	cr_assert_eq(sshd_start(&rtest_srv[1], "hostB"), 0);
	sshd_host(&rtest_srv[0], &hosts[0], "hA", "g");
	sshd_host(&rtest_srv[1], &hosts[1], "hB", "g");
	hosts[0].quarantine_after = 1;
	cr_assert_eq(pool_new(&rtest_loop, hosts, 2, 0, &p, &err), 0);
	q = job_queue_new(p);
	rtest_bench_init(&b, "touch started; if [ {host} = hA ]; then sleep 60; "
	    "fi; echo '{\"score\": 9}'");
	watch_start(&rtest_srv[0], "started", NULL, 0);
	run_job(q, &b, "g", NULL, &x);
	watch_stop();
	cr_assert(wt.fired, "host A never started the run");
	cr_assert_eq(x.outcome, STEP_OK, "%s", x.msg);
	cr_assert_eq(x.attempts, 2);
	cr_assert_eq(x.records, 1, "recorded %d times", x.records);
	cr_assert_str_eq(x.record_host, "hB");
	cr_assert_float_eq(x.score, 9.0, 1e-12);
	pool_info(p, 0, &info);
	cr_assert_eq(info.health, POOL_QUARANTINED, "%s",
	    pool_health_name(info.health));
	cr_assert_eq(info.infra_failures, 1);
	cr_assert(strstr(info.last_error, "connection") != NULL, "%s",
	    info.last_error);
	pool_info(p, 1, &info);
	cr_assert_eq(info.health, POOL_UP);
	cr_assert(!info.leased);
	job_queue_free(q);
	pool_free(p);
	rtest_drain_loop();
}

Test(remote_step, pool_leases_and_health)
{
	struct config_host hosts[3];
	struct pool *p;
	struct pool_host *a, *b, *none;
	struct pool_host_info info;
	struct bd_error err;
	struct sshd fake;

	/* Nothing listens there: connections fail, which is the point. */
	memset(&fake, 0, sizeof(fake));
	fake.port = tst_free_port();
	fake.dir = rtest_tmp;
	fake.user_key = "/nonexistent/key";
	fake.known_hosts = "/nonexistent/known_hosts";
	sshd_host(&fake, &hosts[0], "a1", "a");
	sshd_host(&fake, &hosts[1], "a2", "a");
	sshd_host(&fake, &hosts[2], "b1", "b");
	hosts[0].quarantine_after = 2;
	hosts[1].roles = CONFIG_ROLE_TEST;
	cr_assert_eq(pool_new(&rtest_loop, hosts, 3, 0, &p, &err), 0);
	/* Not contacted yet: unknown, and leasable (the lease connects). */
	pool_info(p, 2, &info);
	cr_assert_eq(info.health, POOL_UNKNOWN, "%s",
	    pool_health_name(info.health));
	cr_assert_str_eq(pool_health_name(info.health), "unknown");
	cr_assert_eq(pool_lease(p, "a", CONFIG_ROLE_BUILD | CONFIG_ROLE_TEST,
	    NULL, 0, &a), 0);
	cr_assert_str_eq(pool_host_config(a)->name, "a1");
	cr_assert_eq(pool_lease(p, "a", CONFIG_ROLE_BUILD, NULL, 0, &none),
	    -EBUSY, "the only builder is leased");
	cr_assert_eq(pool_lease(p, "a", CONFIG_ROLE_TEST, NULL, 0, &b), 0);
	cr_assert_str_eq(pool_host_config(b)->name, "a2");
	cr_assert_eq(pool_lease(p, "nope", CONFIG_ROLE_TEST, NULL, 0, &none),
	    -ENOENT);
	cr_assert_eq(pool_lease(p, "a", CONFIG_ROLE_TEST, &b, 1, &none),
	    -EBUSY);
	/* An infrastructure failure: down; a second one: quarantined. */
	pool_release(p, a, STEP_INFRA, "connection refused");
	pool_info(p, 0, &info);
	cr_assert_eq(info.health, POOL_DOWN);
	cr_assert_eq(info.infra_failures, 1);
	cr_assert_eq(pool_lease(p, "a", CONFIG_ROLE_BUILD, NULL, 0, &none),
	    -EBUSY, "down hosts may come back");
	pool_release(p, a, STEP_INFRA, "connection refused");
	pool_info(p, 0, &info);
	cr_assert_eq(info.health, POOL_QUARANTINED);
	cr_assert_eq(pool_lease(p, "a", CONFIG_ROLE_BUILD, NULL, 0, &none),
	    -ENOENT, "quarantine is for the operator to lift");
	/* A benchmark failure proves the host works: the count resets. */
	pool_release(p, b, STEP_FAILED, NULL);
	pool_info(p, 1, &info);
	cr_assert_eq(info.health, POOL_UP);
	cr_assert_eq(pool_drain(p, "a2"), 0);
	cr_assert_eq(pool_lease(p, "a", CONFIG_ROLE_TEST, NULL, 0, &none),
	    -ENOENT, "draining and quarantined");
	cr_assert_eq(pool_undrain(p, "a2"), 0);
	pool_info(p, 1, &info);
	cr_assert_eq(info.health, POOL_DOWN, "probed before use");
	cr_assert_eq(pool_undrain(p, "zz"), -ENOENT);
	pool_free(p);
	rtest_drain_loop();
}

static void
cancel_job_cb(void *j)
{
	job_cancel(j);
}

Test(remote_step, job_cancel_and_no_host)
{
	struct config_host h;
	struct config_benchmark b;
	struct pool *p;
	struct job_queue *q;
	struct job_spec j;
	struct job *job;
	struct bd_error err;
	struct sres x;
	long pid, child;

	cr_assert_eq(sshd_start(&rtest_srv[0], "jobcancel"), 0);
	sshd_host(&rtest_srv[0], &h, "h0", "g");
	cr_assert_eq(pool_new(&rtest_loop, &h, 1, 0, &p, &err), 0);
	q = job_queue_new(p);
	rtest_bench_init(&b, RTEST_HANG_CMD);
	memset(&x, 0, sizeof(x));
	memset(&j, 0, sizeof(j));
	j.bench = &b;
	j.commit = COMMIT;
	j.run_id = "c1";
	j.group = "g";
	j.kill_grace_ms = 300;
	j.record = jrecord;
	j.record_arg = &x;
	cr_assert_eq(job_submit(q, &j, jdone, &x, &job, &err), 0);
	rtest_later(700, cancel_job_cb, job);
	rtest_run_until(&x.done);
	cr_assert_eq(x.outcome, STEP_CANCELLED, "%s", x.msg);
	cr_assert_eq(x.records, 0);
	rtest_read_pids(rtest_srv[0].dir, &pid, &child);
	cr_assert(rtest_pid_gone(pid) && rtest_pid_gone(child), "left running");
	/* A group nobody serves ends at once, as an infrastructure error. */
	run_job(q, &b, "empty", NULL, &x);
	cr_assert_eq(x.outcome, STEP_INFRA);
	cr_assert(strstr(x.msg, "no usable") != NULL, "%s", x.msg);
	cr_assert_eq(x.records, 0);
	job_queue_free(q);
	pool_free(p);
	rtest_drain_loop();
}
