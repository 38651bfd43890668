/* SPDX-License-Identifier: MIT */
/*
 * make bench-remote: N concurrent SSH sessions that each stream output,
 * run through remote/ (one libuv loop, libssh2, non-blocking) and through
 * one OpenSSH `ssh` client process per session, side by side in one run:
 * client-side CPU seconds and memory per session, and their ratios.  While
 * the loop carries the sessions, a client thread pings a unix socketpair
 * served by the same loop (a stand-in for the control socket: the daemon
 * itself is not started here) and the round trips are compared with an
 * idle loop.
 *
 *   remote_bench [--sessions 10,50,200] [--bytes N] [--servers K]
 *       [--nice-sshd 0|1]
 *
 * The sshd instances run at nice 19 by default: in real use they are other
 * machines, and at full priority 400 busy sshd and head processes on a
 * small machine delay the loop's thread itself, which is the kernel's
 * doing and not the loop's.
 */
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/wait.h>

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <uv.h>

#include "common/xmalloc.h"
#include "remote/exec.h"
#include "remote/ssh.h"
#include "tests/support/sshd.h"

#define BENCH_MAX_SERVERS	8
#define BENCH_MAX_PINGS		200000
#define BENCH_PING_GAP_US	5000

extern char **environ;

/* tst.c forces LeakSanitizer checks; this release build has none. */
int	__lsan_do_recoverable_leak_check(void);
int
__lsan_do_recoverable_leak_check(void)
{
	return 0;
}

static uv_loop_t	 loop;
static struct sshd	 srv[BENCH_MAX_SERVERS];
static int		 nsrv = 2;
static unsigned long	 nbytes = 1000000;
static char		 cipher[64], mac[64];
static int		 nice_sshd = 1;

/* ---- the ping: a client thread, the loop echoes ---- */

static struct {
	int		 fd[2];
	uv_pipe_t	 pipe;
	pthread_t	 thread;
	volatile int	 run;
	volatile int	 exited;
	double		*rtt;		/* microseconds */
	size_t		 n;
} ping;

static double
now_us(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e6 + ts.tv_nsec / 1e3;
}

static void *
ping_thread(void *arg)
{
	char c = 'p';
	double t0;

	(void)arg;
	while (ping.run && ping.n < BENCH_MAX_PINGS) {
		t0 = now_us();
		if (write(ping.fd[1], &c, 1) != 1 ||
		    read(ping.fd[1], &c, 1) != 1)
			break;
		ping.rtt[ping.n++] = now_us() - t0;
		usleep(BENCH_PING_GAP_US);
	}
	ping.exited = 1;
	return NULL;
}

static void
ping_alloc(uv_handle_t *h, size_t sz, uv_buf_t *b)
{
	static char buf[64];

	(void)h;
	(void)sz;
	*b = uv_buf_init(buf, sizeof(buf));
}

/* The loop side answers each byte at once, like a control request. */
static void
ping_read(uv_stream_t *s, ssize_t n, const uv_buf_t *b)
{
	uv_buf_t out;

	if (n <= 0)
		return;
	out = uv_buf_init(b->base, (unsigned)n);
	uv_try_write(s, &out, 1);
}

static void
ping_start(void)
{
	ping.n = 0;
	ping.run = 1;
	ping.exited = 0;
	pthread_create(&ping.thread, NULL, ping_thread, NULL);
}

static void
ping_stop(void)
{
	ping.run = 0;
	while (!ping.exited) {		/* its last ping needs the loop */
		uv_run(&loop, UV_RUN_NOWAIT);
		usleep(100);
	}
	pthread_join(ping.thread, NULL);
}

static int
cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

static double
pct(double *v, size_t n, double p)
{
	if (n == 0)
		return 0;
	qsort(v, n, sizeof(*v), cmp_double);
	return v[(size_t)(p * (double)(n - 1))];
}

/*
 * The longest stretch the loop worked without going back to poll: busy
 * time between a prepare and the next one, less the time it waited in
 * poll (libuv's idle-time metric).  This is what blocks the control socket,
 * apart from the OS scheduling the loop thread.
 */
static struct {
	uv_prepare_t	 prep;
	uint64_t	 last_t, last_idle, last_cpu;
	uint64_t	 max_ns, max_cpu_ns;
} stretch;

static uint64_t
thread_cpu_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ULL + (uint64_t)ts.tv_nsec;
}

static void
stretch_prepare(uv_prepare_t *h)
{
	uint64_t t = uv_hrtime(), idle = uv_metrics_idle_time(h->loop);
	uint64_t cpu = thread_cpu_ns();

	if (stretch.last_t != 0 && cpu - stretch.last_cpu > stretch.max_cpu_ns)
		stretch.max_cpu_ns = cpu - stretch.last_cpu;
	stretch.last_cpu = cpu;

	if (stretch.last_t != 0 && t - stretch.last_t >
	    idle - stretch.last_idle) {
		uint64_t busy = (t - stretch.last_t) -
		    (idle - stretch.last_idle);

		if (busy > stretch.max_ns)
			stretch.max_ns = busy;
	}
	stretch.last_t = t;
	stretch.last_idle = idle;
}

static void
stretch_reset(void)
{
	stretch.last_t = 0;
	stretch.max_ns = stretch.max_cpu_ns = 0;
}

/* ---- measurements ---- */

static long
rss_kb(void)
{
	long pages = 0, rss = 0;
	FILE *f = fopen("/proc/self/statm", "r");

	if (f != NULL) {
		if (fscanf(f, "%ld %ld", &pages, &rss) != 2)
			rss = 0;
		fclose(f);
	}
	return rss * (sysconf(_SC_PAGESIZE) / 1024);
}

static double
cpu_s(int who)
{
	struct rusage ru;

	getrusage(who, &ru);
	return ru.ru_utime.tv_sec + ru.ru_utime.tv_usec / 1e6 +
	    ru.ru_stime.tv_sec + ru.ru_stime.tv_usec / 1e6;
}

static long	rss_peak;

static void
rss_sample(uv_timer_t *t)
{
	long r = rss_kb();

	(void)t;
	if (r > rss_peak)
		rss_peak = r;
}

/* ---- sessions through remote/ ---- */

struct sess {
	struct ssh_conn		*conn;
	struct config_host	 h;
	int			 done, ok;
};

static int	 left;

static void
sess_done(void *arg, const struct exec_result *r)
{
	struct sess *s = arg;

	s->done = 1;
	s->ok = r->status == EXEC_EXITED && r->exit_code == 0 &&
	    r->out_bytes == nbytes;
	if (!s->ok)
		fprintf(stderr, "session failed: %s\n", r->err.msg);
	if (cipher[0] == '\0') {
		snprintf(cipher, sizeof(cipher), "%s",
		    ssh_method(s->conn, LIBSSH2_METHOD_CRYPT_CS));
		snprintf(mac, sizeof(mac), "%s",
		    ssh_method(s->conn, LIBSSH2_METHOD_MAC_CS));
	}
	left--;
}

struct result {
	double	cpu, wall;
	long	kb_per_session;
	long	heap_per_session;
	int	failed;
};

static void
run_ours(int n, struct result *res)
{
	struct sess *ss = xcalloc((size_t)n, sizeof(*ss));
	struct exec_opts o;
	struct bd_error err;
	struct ssh_stats st;
	uv_timer_t sampler;
	char cmd[64];
	double c0, w0;
	long r0;
	size_t heap = 0;
	int i;

	snprintf(cmd, sizeof(cmd), "head -c %lu /dev/zero", nbytes);
	memset(&o, 0, sizeof(o));
	o.command = cmd;
	o.connect_wait_ms = 60000;
	o.timeout_ms = 600000;
	r0 = rss_peak = rss_kb();
	c0 = cpu_s(RUSAGE_SELF);
	w0 = now_us();
	uv_timer_init(&loop, &sampler);
	uv_timer_start(&sampler, rss_sample, 10, 10);
	left = n;
	for (i = 0; i < n; i++) {
		sshd_host(&srv[i % nsrv], &ss[i].h, "bench", NULL);
		ss[i].h.connect_timeout_ms = 60000;
		if (ssh_conn_new(&loop, &ss[i].h, &ss[i].conn) != 0 ||
		    exec_start(ss[i].conn, &o, sess_done, &ss[i], NULL,
		    &err) != 0) {
			fprintf(stderr, "cannot start session %d\n", i);
			exit(1);
		}
	}
	while (left > 0)
		uv_run(&loop, UV_RUN_ONCE);
	rss_sample(&sampler);
	res->cpu = cpu_s(RUSAGE_SELF) - c0;
	res->wall = (now_us() - w0) / 1e6;
	res->kb_per_session = (rss_peak - r0) / n;
	res->failed = 0;
	for (i = 0; i < n; i++) {
		ssh_get_stats(ss[i].conn, &st);
		heap += st.heap_peak;
		res->failed += !ss[i].ok;
		ssh_conn_free(ss[i].conn);
	}
	res->heap_per_session = (long)(heap / (size_t)n / 1024);
	uv_close((uv_handle_t *)&sampler, NULL);
	uv_run(&loop, UV_RUN_NOWAIT);
	free(ss);
}

/* ---- the same through OpenSSH client processes ---- */

static void
run_ssh(int n, struct result *res)
{
	posix_spawn_file_actions_t fa;
	struct rusage ru;
	char port[16], cmd[64], *argv[32];
	pid_t *pids = xcalloc((size_t)n, sizeof(*pids));
	double c0, w0;
	long maxrss = 0;
	int i, k, st;

	snprintf(cmd, sizeof(cmd), "head -c %lu /dev/zero", nbytes);
	posix_spawn_file_actions_init(&fa);
	posix_spawn_file_actions_addopen(&fa, 0, "/dev/null", O_RDONLY, 0);
	posix_spawn_file_actions_addopen(&fa, 1, "/dev/null", O_WRONLY, 0);
	posix_spawn_file_actions_addopen(&fa, 2, "/dev/null", O_WRONLY, 0);
	c0 = cpu_s(RUSAGE_CHILDREN);
	w0 = now_us();
	for (i = 0; i < n; i++) {
		struct sshd *s = &srv[i % nsrv];
		char *kh;

		xasprintf(&kh, "UserKnownHostsFile=%s", s->known_hosts);
		snprintf(port, sizeof(port), "%d", s->port);
		k = 0;
		argv[k++] = "ssh";
		argv[k++] = "-T";
		argv[k++] = "-o";
		argv[k++] = "BatchMode=yes";
		argv[k++] = "-o";
		argv[k++] = "StrictHostKeyChecking=yes";
		argv[k++] = "-o";
		argv[k++] = kh;
		argv[k++] = "-o";
		argv[k++] = "LogLevel=ERROR";
		argv[k++] = "-i";
		argv[k++] = s->user_key;
		argv[k++] = "-p";
		argv[k++] = port;
		if (cipher[0] != '\0') {
			argv[k++] = "-c";
			argv[k++] = cipher;
			argv[k++] = "-m";
			argv[k++] = mac;
		}
		argv[k++] = "root@127.0.0.1";
		argv[k++] = cmd;
		argv[k] = NULL;
		if (posix_spawnp(&pids[i], "ssh", &fa, NULL, argv,
		    environ) != 0) {
			fprintf(stderr, "cannot spawn ssh\n");
			exit(1);
		}
		free(kh);
	}
	res->failed = 0;
	for (i = 0; i < n; i++) {
		/* Keep serving the ping meanwhile: the loop is idle, the
		 * machine is as busy as with our sessions. */
		while (wait4(pids[i], &st, WNOHANG, &ru) == 0)
			uv_run(&loop, UV_RUN_NOWAIT), usleep(1000);
		if (!WIFEXITED(st) || WEXITSTATUS(st) != 0)
			res->failed++;
		maxrss += ru.ru_maxrss;
	}
	res->cpu = cpu_s(RUSAGE_CHILDREN) - c0;
	res->wall = (now_us() - w0) / 1e6;
	res->kb_per_session = maxrss / n;
	res->heap_per_session = 0;
	posix_spawn_file_actions_destroy(&fa);
	free(pids);
}

static void
stop_cb(uv_timer_t *t)
{
	uv_stop(t->loop);
}

/* Round trips with nothing else on the loop, for comparison. */
static void
idle_pings(double *p50, double *p99)
{
	uv_timer_t t;

	uv_timer_init(&loop, &t);
	uv_timer_start(&t, stop_cb, 1000, 0);
	ping_start();
	uv_run(&loop, UV_RUN_DEFAULT);
	ping_stop();
	uv_close((uv_handle_t *)&t, NULL);
	uv_run(&loop, UV_RUN_NOWAIT);
	*p50 = pct(ping.rtt, ping.n, 0.5);
	*p99 = pct(ping.rtt, ping.n, 0.99);
}

static int
parse_list(const char *s, int *out, int max)
{
	int n = 0;

	while (*s != '\0' && n < max) {
		out[n++] = atoi(s);
		s += strcspn(s, ",");
		if (*s == ',')
			s++;
	}
	return n;
}

int
main(int argc, char **argv)
{
	int sizes[16] = { 10, 50, 200 }, nsizes = 3, i;
	struct result ours, theirs;
	double i50, i99, l50, l99, lmax, s50, s99, smax, longest, longest_cpu;

	for (i = 1; i + 1 < argc; i += 2) {
		if (strcmp(argv[i], "--sessions") == 0)
			nsizes = parse_list(argv[i + 1], sizes, 16);
		else if (strcmp(argv[i], "--bytes") == 0)
			nbytes = strtoul(argv[i + 1], NULL, 10);
		else if (strcmp(argv[i], "--servers") == 0)
			nsrv = atoi(argv[i + 1]);
		else if (strcmp(argv[i], "--nice-sshd") == 0)
			nice_sshd = atoi(argv[i + 1]);
	}
	if (nsrv < 1 || nsrv > BENCH_MAX_SERVERS || nsizes < 1) {
		fprintf(stderr, "usage: remote_bench [--sessions 10,50,200] "
		    "[--bytes N] [--servers 1-%d]\n", BENCH_MAX_SERVERS);
		return 2;
	}
	signal(SIGPIPE, SIG_IGN);
	setvbuf(stdout, NULL, _IOLBF, 0);
	uv_loop_init(&loop);
	uv_loop_configure(&loop, UV_METRICS_IDLE_TIME);
	uv_prepare_init(&loop, &stretch.prep);
	uv_prepare_start(&stretch.prep, stretch_prepare);
	uv_unref((uv_handle_t *)&stretch.prep);
	for (i = 0; i < nsrv; i++) {
		if (sshd_start(&srv[i], "bench") != 0) {
			fprintf(stderr, "cannot start sshd\n");
			return 1;
		}
		/* The hosts are remote machines in real use: keep their
		 * stand-ins from crowding the loop's thread off the CPU. */
		if (nice_sshd)
			setpriority(PRIO_PROCESS, (id_t)srv[i].pid, 19);
	}
	ping.rtt = xcalloc(BENCH_MAX_PINGS, sizeof(double));
	socketpair(AF_UNIX, SOCK_STREAM, 0, ping.fd);
	uv_pipe_init(&loop, &ping.pipe, 0);
	uv_pipe_open(&ping.pipe, ping.fd[0]);
	uv_read_start((uv_stream_t *)&ping.pipe, ping_alloc, ping_read);
	idle_pings(&i50, &i99);
	printf("round trip on an idle loop: p50 %.0f us, p99 %.0f us\n", i50,
	    i99);

	/* A first small round picks the cipher ssh is then told to use. */
	run_ours(2, &ours);
	printf("remote bench: %d loopback sshd%s, %lu bytes of output per "
	    "session; cipher %s, MAC %s for both (ssh -c/-m); release "
	    "build\n\n", nsrv, nice_sshd ? " at nice 19" : "", nbytes,
	    cipher, mac);
	printf("%8s | %9s %9s %6s | %10s %10s %6s | %9s | %7s %7s | %s\n",
	    "sessions", "ours CPU", "ssh CPU", "ratio", "ours KB/s", "ssh KB/s",
	    "ratio", "heap KB/s", "ours s", "ssh s", "failed");
	for (i = 0; i < nsizes; i++) {
		ping_start();
		stretch_reset();
		run_ours(sizes[i], &ours);
		longest = stretch.max_ns / 1e6;
		longest_cpu = stretch.max_cpu_ns / 1e6;
		ping_stop();
		l50 = pct(ping.rtt, ping.n, 0.5);
		l99 = pct(ping.rtt, ping.n, 0.99);
		lmax = pct(ping.rtt, ping.n, 1.0);
		ping_start();
		run_ssh(sizes[i], &theirs);
		ping_stop();
		s50 = pct(ping.rtt, ping.n, 0.5);
		s99 = pct(ping.rtt, ping.n, 0.99);
		smax = pct(ping.rtt, ping.n, 1.0);
		printf("%8d | %8.2fs %8.2fs %6.3f | %10ld %10ld %6.3f | %9ld |"
		    " %6.2fs %6.2fs | %d/%d\n", sizes[i], ours.cpu,
		    theirs.cpu, theirs.cpu > 0 ? ours.cpu / theirs.cpu : 0,
		    ours.kb_per_session, theirs.kb_per_session,
		    theirs.kb_per_session > 0 ? (double)ours.kb_per_session /
		    (double)theirs.kb_per_session : 0,
		    ours.heap_per_session, ours.wall, theirs.wall,
		    ours.failed, theirs.failed);
		printf("%8s   round trip, loop carrying the sessions: p50 %.0f "
		    "p99 %.0f max %.0f us\n", "", l50, l99, lmax);
		printf("%8s   longest loop stretch without polling: %.1f ms wall,"
		    " %.1f ms on the CPU\n", "", longest, longest_cpu);
		printf("%8s   round trip, same load via ssh (loop idle):   p50 "
		    "%.0f p99 %.0f max %.0f us; ratio p50 %.2f p99 %.2f\n", "",
		    s50, s99, smax, s50 > 0 ? l50 / s50 : 0,
		    s99 > 0 ? l99 / s99 : 0);
	}
	printf("\nKB/s = memory per session: ours is the bench process's peak "
	    "RSS growth / sessions,\nssh is the mean peak RSS of one ssh "
	    "process; heap = libssh2 heap peak per session.\nCPU is client "
	    "side only (the sshd side is the same for both).\n");
	uv_close((uv_handle_t *)&ping.pipe, NULL);
	uv_close((uv_handle_t *)&stretch.prep, NULL);
	uv_run(&loop, UV_RUN_DEFAULT);
	close(ping.fd[1]);
	for (i = 0; i < nsrv; i++)
		sshd_cleanup(&srv[i]);
	uv_loop_close(&loop);
	free(ping.rtt);
	return 0;
}
