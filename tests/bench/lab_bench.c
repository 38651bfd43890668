/* SPDX-License-Identifier: MIT */
/*
 * make bench-lab: one command on the lab's `ssh` device, run N times
 * directly over SSH (remote/exec on one kept connection) and N times as
 * LAVA jobs (remote/lava), one after the other, in one run: the mean time
 * per run of each and their ratio.  Then M jobs at once through LAVA: the
 * process CPU per job followed (submit, polls, result pages), and the p99
 * round trip of a unix socketpair served by the same loop (a stand-in for
 * the control socket) beside the idle loop's.
 *
 *   lab_bench [--runs N] [--inflight M] [--poll MS]
 */
#include <sys/resource.h>
#include <sys/socket.h>

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <uv.h>

#include "common/xmalloc.h"
#include "config/config.h"
#include "remote/backend.h"
#include "remote/exec.h"
#include "remote/lava.h"
#include "remote/ssh.h"
#include "tests/support/lavajob.h"

#define LB_CMD	"echo bench 1"
#define LB_PINGS	4000

static uv_loop_t *lb_loop;
static unsigned lb_left, lb_failed;

static double
lb_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static double
lb_cpu(void)
{
	struct rusage ru;

	getrusage(RUSAGE_SELF, &ru);
	return (double)ru.ru_utime.tv_sec + (double)ru.ru_utime.tv_usec / 1e6 +
	    (double)ru.ru_stime.tv_sec + (double)ru.ru_stime.tv_usec / 1e6;
}

static void
lb_exec_done(void *arg, const struct exec_result *r)
{
	(void)arg;
	if (r->status != EXEC_EXITED || r->exit_code != 0) {
		fprintf(stderr, "ssh run failed: %s\n", r->err.msg);
		lb_failed++;
	}
	lb_left--;
	uv_stop(lb_loop);
}

/* Mean seconds per direct run over one kept connection. */
static double
lb_ssh(const char *dir, unsigned runs)
{
	struct config_host h;
	struct ssh_conn *c;
	struct exec_opts o = { .command = LB_CMD, .timeout_ms = 60000,
	    .connect_wait_ms = 10000 };
	struct exec *e;
	struct bd_error err;
	double t0 = 0;
	unsigned i;
	char *port;

	memset(&h, 0, sizeof(h));
	config_host_defaults(&h);
	h.name = xstrdup("device");
	h.address = xstrdup("127.0.0.1");
	port = getenv("LAVA_SSH_PORT");
	h.port = port ? (unsigned)atoi(port) : 22922;
	h.user = xstrdup("root");
	xasprintf(&h.identity, "%s/ssh/id_lava", dir);
	xasprintf(&h.known_hosts, "%s/bench_known_hosts", dir);
	h.host_key = CONFIG_HOST_KEY_ACCEPT_NEW;
	if (ssh_conn_new(lb_loop, &h, &c) < 0) {
		fprintf(stderr, "cannot make an ssh connection\n");
		exit(1);
	}
	/* The first run connects; it is not counted. */
	for (i = 0; i <= runs; i++) {
		if (i == 1)
			t0 = lb_now();
		lb_left = 1;
		if (exec_start(c, &o, lb_exec_done, NULL, &e, &err) < 0) {
			fprintf(stderr, "exec: %s\n", err.msg);
			exit(1);
		}
		while (lb_left > 0)
			uv_run(lb_loop, UV_RUN_DEFAULT);
	}
	t0 = (lb_now() - t0) / runs;
	ssh_conn_free(c);
	uv_run(lb_loop, UV_RUN_NOWAIT);
	config_host_release(&h);
	return t0;
}

static void
lb_record(void *arg, const struct step_result *r, const char *where)
{
	(void)arg;
	(void)where;
	if (r->outcome != STEP_OK) {
		fprintf(stderr, "lava run failed: %s\n", r->err.msg);
		lb_failed++;
	}
}

static void
lb_done(void *arg, const struct step_result *last, unsigned attempts)
{
	(void)arg;
	(void)attempts;
	if (last->outcome != STEP_OK && last->outcome != STEP_FAILED) {
		fprintf(stderr, "lava job ended %s: %s\n",
		    step_outcome_name(last->outcome), last->err.msg);
		lb_failed++;
	}
	lb_left--;
	uv_stop(lb_loop);
}

static void
lb_avail(void *arg)
{
	(void)arg;
	uv_stop(lb_loop);
}

/* Submits n runs at once and waits for all of them. */
static void
lb_lava_batch(struct backend *be, const struct config_benchmark *bench,
    unsigned n, unsigned *seq)
{
	struct backend_spec spec;
	struct backend_run *r;
	struct bd_error err;
	char run_id[32];
	unsigned i;

	lb_left = n;
	for (i = 0; i < n; i++) {
		memset(&spec, 0, sizeof(spec));
		snprintf(run_id, sizeof(run_id), "%u", (*seq)++);
		spec.bench = bench;
		spec.commit = "0123456789abcdef0123456789abcdef01234567";
		spec.run_id = run_id;
		spec.group = "lab";
		spec.max_attempts = 1;
		spec.record = lb_record;
		if (backend_submit(be, &spec, lb_done, NULL, &r, &err) < 0) {
			fprintf(stderr, "submit: %s\n", err.msg);
			exit(1);
		}
	}
	while (lb_left > 0)
		uv_run(lb_loop, UV_RUN_DEFAULT);
}

/* The control-socket stand-in: the loop echoes each byte back. */
static uv_pipe_t lb_pipe;
static int lb_fds[2];
static double lb_rtt[LB_PINGS];
static size_t lb_nrtt;
static volatile int lb_ping_stop;

static void
lb_alloc(uv_handle_t *h, size_t sz, uv_buf_t *b)
{
	static char buf[64];

	(void)h;
	(void)sz;
	*b = uv_buf_init(buf, sizeof(buf));
}

static void
lb_echo(uv_stream_t *s, ssize_t n, const uv_buf_t *b)
{
	if (n > 0 && write(lb_fds[0], b->base, (size_t)n) != n)
		abort();
	(void)s;
}

static void *
lb_pinger(void *arg)
{
	char c = 'p';

	(void)arg;
	while (!lb_ping_stop && lb_nrtt < LB_PINGS) {
		double t = lb_now();

		if (write(lb_fds[1], &c, 1) != 1 || read(lb_fds[1], &c, 1) != 1)
			break;
		lb_rtt[lb_nrtt++] = lb_now() - t;
		usleep(2000);
	}
	return NULL;
}

static int
lb_cmp(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

static double
lb_p99(void)
{
	if (lb_nrtt == 0)
		return 0;
	qsort(lb_rtt, lb_nrtt, sizeof(*lb_rtt), lb_cmp);
	return lb_rtt[lb_nrtt * 99 / 100];
}

int
main(int argc, char **argv)
{
	const char *dir = getenv("LAVA_CI_DIR"), *url = getenv(
	    "BISECTD_TEST_LAVA_URL"), *tok = getenv("BISECTD_TEST_LAVA_TOKEN");
	unsigned runs = 6, inflight = 50, poll = 500, seq = 1, i;
	struct config_metric metric = { .name = "bench" };
	struct config_benchmark bench = { .name = "bench", .metrics = &metric,
	    .nmetrics = 1 };
	struct lava_env env = { .instance = NULL, .avail = lb_avail };
	struct config_lab lab;
	struct backend *be;
	struct bd_error err;
	double ssh_s, lava_s, cpu0, idle_p99, busy_p99;
	char *tmpl, *tokf, inst[32];
	pthread_t th;
	FILE *f;

	for (i = 1; i + 1 < (unsigned)argc; i += 2)
		if (strcmp(argv[i], "--runs") == 0)
			runs = (unsigned)atoi(argv[i + 1]);
		else if (strcmp(argv[i], "--inflight") == 0)
			inflight = (unsigned)atoi(argv[i + 1]);
		else if (strcmp(argv[i], "--poll") == 0)
			poll = (unsigned)atoi(argv[i + 1]);
	if (dir == NULL || url == NULL || tok == NULL) {
		fprintf(stderr, "bench-lab needs LAVA_CI_DIR, "
		    "BISECTD_TEST_LAVA_URL and BISECTD_TEST_LAVA_TOKEN (see "
		    "tests/support/lava-up.sh)\n");
		return 2;
	}
	lb_loop = uv_default_loop();
	xasprintf(&tmpl, "%s/bench-job.yaml", dir);
	xasprintf(&tokf, "%s/bench-token", dir);
	f = fopen(tmpl, "w");
	{
		char *t = lavajob_template("          - " LB_CMD " && "
		    "lava-test-case bench --result pass --measurement 1 "
		    "--units x\n");

		fputs(t, f);
		free(t);
	}
	fclose(f);
	f = fopen(tokf, "w");
	fprintf(f, "%s\n", tok);
	fclose(f);
	memset(&lab, 0, sizeof(lab));
	lab.name = "bench";
	lab.url = (char *)url;
	lab.token_file = tokf;
	lab.device_type = "ssh";
	lab.group = "lab";
	lab.job_template = tmpl;
	lab.max_jobs = inflight;
	lab.priority = 50;
	lab.poll_interval_ms = poll;
	lab.queue_allowance_ms = 3600 * 1000;
	lab.build_case = "build";
	snprintf(inst, sizeof(inst), "bench%ld", (long)time(NULL));
	env.loop = lb_loop;
	env.instance = inst;
	if (lava_new(&env, &lab, &be, &err) < 0) {
		fprintf(stderr, "lava: %s\n", err.msg);
		return 1;
	}
	/* Until the health probe answers the lab takes no run. */
	while (be->ops->free_slots(be, "lab") == 0)
		uv_run(lb_loop, UV_RUN_ONCE);

	ssh_s = lb_ssh(dir, runs);
	lava_s = lb_now();
	for (i = 0; i < runs; i++)
		lb_lava_batch(be, &bench, 1, &seq);
	lava_s = (lb_now() - lava_s) / runs;
	printf("per run, %u runs each, poll_interval %ums:\n", runs, poll);
	printf("  direct ssh   %8.3f s\n  lava         %8.3f s\n", ssh_s,
	    lava_s);
	printf("  overhead ratio lava/ssh: %.1fx\n", lava_s / ssh_s);

	socketpair(AF_UNIX, SOCK_STREAM, 0, lb_fds);
	uv_pipe_init(lb_loop, &lb_pipe, 0);
	uv_pipe_open(&lb_pipe, lb_fds[0]);
	uv_read_start((uv_stream_t *)&lb_pipe, lb_alloc, lb_echo);
	lb_nrtt = 0;
	lb_ping_stop = 0;
	pthread_create(&th, NULL, lb_pinger, NULL);
	{
		double end = lb_now() + 3;

		while (lb_now() < end)
			uv_run(lb_loop, UV_RUN_NOWAIT), usleep(100);
	}
	lb_ping_stop = 1;
	pthread_join(th, NULL);
	idle_p99 = lb_p99();
	lb_nrtt = 0;
	lb_ping_stop = 0;
	cpu0 = lb_cpu();
	pthread_create(&th, NULL, lb_pinger, NULL);
	lb_lava_batch(be, &bench, inflight, &seq);
	lb_ping_stop = 1;
	pthread_join(th, NULL);
	busy_p99 = lb_p99();
	printf("%u jobs in flight at once:\n", inflight);
	printf("  CPU per job followed   %8.2f ms\n",
	    (lb_cpu() - cpu0) * 1000 / inflight);
	printf("  socket p99 idle        %8.3f ms\n", idle_p99 * 1000);
	printf("  socket p99 %3u in flight %6.3f ms (ratio %.1fx)\n", inflight,
	    busy_p99 * 1000, idle_p99 > 0 ? busy_p99 / idle_p99 : 0);
	if (lb_failed > 0)
		printf("  %u runs failed\n", lb_failed);
	uv_close((uv_handle_t *)&lb_pipe, NULL);
	be->ops->free(be);
	uv_run(lb_loop, UV_RUN_DEFAULT);
	free(tmpl);
	free(tokf);
	return lb_failed > 0;
}
