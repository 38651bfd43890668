/*
 * remote/: SSH sessions, exec, steps, relay and the host pool against real
 * OpenSSH servers on loopback ports (tests/support/sshd.c).
 */
#include <sys/resource.h>
#include <sys/stat.h>

#include <criterion/criterion.h>
#include <signal.h>
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
#include "remote/quote.h"
#include "remote/relay.h"
#include "remote/ssh.h"
#include "remote/step.h"
#include "tests/support/sshd.h"
#include "tests/support/tst.h"

#define GUARD_MS	60000	/* a stuck loop fails the test instead */
#define NSRV		3

static uv_loop_t	 loop;
static struct sshd	 srv[NSRV];
static char		*tmp;
static int		 guard_fired;
static uv_timer_t	 guard;

static void
remote_setup(void)
{
	signal(SIGPIPE, SIG_IGN);
	cr_assert_eq(uv_loop_init(&loop), 0);
	tmp = tst_tmpdir("remote");
	cr_assert_not_null(tmp);
}

static void
remote_walk_close(uv_handle_t *h, void *arg)
{
	(void)arg;
	if (!uv_is_closing(h))
		uv_close(h, NULL);
}

/* Stops servers and removes files even when an assertion cut a test short. */
static void
remote_teardown(void)
{
	int i;

	for (i = 0; i < NSRV; i++)
		sshd_cleanup(&srv[i]);
	tst_rmrf(tmp);
	free(tmp);
	uv_walk(&loop, remote_walk_close, NULL);
	uv_run(&loop, UV_RUN_DEFAULT);
	uv_loop_close(&loop);
}

TestSuite(remote, .init = remote_setup, .fini = remote_teardown);

static void
guard_cb(uv_timer_t *t)
{
	guard_fired = 1;
	uv_stop(t->loop);
}

/* Runs the loop until *flag is set (or the guard fires). */
static void
run_until(const int *flag)
{
	guard_fired = 0;
	uv_timer_init(&loop, &guard);
	uv_timer_start(&guard, guard_cb, GUARD_MS, 0);
	uv_unref((uv_handle_t *)&guard);
	while (!*flag && !guard_fired)
		uv_run(&loop, UV_RUN_ONCE);
	uv_close((uv_handle_t *)&guard, NULL);
	uv_run(&loop, UV_RUN_NOWAIT);
	cr_assert(!guard_fired, "the loop got stuck");
}

/* Lets every handle close so LeakSanitizer sees a clean loop. */
static void
drain_loop(void)
{
	uv_run(&loop, UV_RUN_DEFAULT);
}

struct later {
	uv_timer_t	 t;
	void		(*fn)(void *);
	void		*arg;
};

static void
later_closed(uv_handle_t *h)
{
	free(h->data);
}

static void
later_cb(uv_timer_t *t)
{
	struct later *l = t->data;

	l->fn(l->arg);
	uv_close((uv_handle_t *)t, later_closed);
}

/*
 * Calls fn(arg) after ms.  The timer lives on the heap, so a test cut short
 * by an assertion leaves nothing dangling on its stack.
 */
static void
later(uint64_t ms, void (*fn)(void *), void *arg)
{
	struct later *l = xcalloc(1, sizeof(*l));

	l->fn = fn;
	l->arg = arg;
	uv_timer_init(&loop, &l->t);
	l->t.data = l;
	uv_timer_start(&l->t, later_cb, ms, 0);
}

struct xres {
	int		 done;
	enum exec_status status;
	int		 code;
	char		 sig[32];
	uint64_t	 out, err;
	char		*tail;
	size_t		 tail_len;
	size_t		 hwm;
	long		 pgid;
	char		 msg[BD_ERROR_MAX];
};

static void
xdone(void *arg, const struct exec_result *r)
{
	struct xres *x = arg;

	x->status = r->status;
	x->code = r->exit_code;
	snprintf(x->sig, sizeof(x->sig), "%s", r->signal);
	x->out = r->out_bytes;
	x->err = r->err_bytes;
	x->tail = NULL;
	if (r->tail_len > 0) {
		x->tail = xmalloc(r->tail_len + 1);
		memcpy(x->tail, r->tail, r->tail_len);
		x->tail[r->tail_len] = '\0';
	}
	x->tail_len = r->tail_len;
	x->hwm = r->buf_hwm;
	x->pgid = r->pgid;
	snprintf(x->msg, sizeof(x->msg), "%s", r->err.msg);
	x->done = 1;
}

static struct ssh_conn *
conn_for(struct sshd *s, struct config_host *h, const char *name)
{
	struct ssh_conn *c;

	sshd_host(s, h, name, NULL);
	cr_assert_eq(ssh_conn_new(&loop, h, &c), 0);
	return c;
}

static void
run_cmd(struct ssh_conn *c, const char *cmd, const char *log, size_t tail,
    uint64_t timeout_ms, struct xres *x)
{
	struct exec_opts o = { 0 };
	struct bd_error err;

	memset(x, 0, sizeof(*x));
	o.command = cmd;
	o.log_path = log;
	o.tail_max = tail;
	o.timeout_ms = timeout_ms;
	o.kill_grace_ms = 300;
	o.connect_wait_ms = 2000;
	cr_assert_eq(exec_start(c, &o, xdone, x, NULL, &err), 0, "%s",
	    err.msg);
	run_until(&x->done);
}

Test(remote, exec_exit_codes_and_signals)
{
	struct config_host h;
	struct ssh_conn *c;
	struct ssh_stats st;
	struct xres x;

	cr_assert_eq(sshd_start(&srv[0], "exit"), 0);
	c = conn_for(&srv[0], &h, "h0");
	run_cmd(c, "echo hello; echo oops >&2; exit 3", NULL, 4096, 0, &x);
	cr_assert_eq(x.status, EXEC_EXITED, "%d %s", x.status, x.msg);
	cr_assert_eq(x.code, 3);
	cr_assert_str_eq(x.tail, "hello\n");
	cr_assert_eq(x.err, 5, "stderr bytes %llu", (unsigned long long)x.err);
	free(x.tail);
	run_cmd(c, "true", NULL, 0, 0, &x);
	cr_assert_eq(x.status, EXEC_EXITED);
	cr_assert_eq(x.code, 0);
	run_cmd(c, "exit 255", NULL, 0, 0, &x);
	cr_assert_eq(x.code, 255);
	run_cmd(c, "kill -TERM $$", NULL, 0, 0, &x);
	cr_assert_eq(x.status, EXEC_SIGNALED, "%d %s", x.status, x.msg);
	cr_assert_str_eq(x.sig, "TERM");
	run_cmd(c, "kill -KILL $$", NULL, 0, 0, &x);
	cr_assert_eq(x.status, EXEC_SIGNALED);
	cr_assert_str_eq(x.sig, "KILL");
	ssh_get_stats(c, &st);
	cr_assert_eq(st.connects, 1, "one session reused for every command");
	ssh_conn_free(c);
	drain_loop();
}


static char *
path_in(const char *dir, const char *name)
{
	char *p;

	xasprintf(&p, "%s/%s", dir, name);
	return p;
}

/* Dead, or a zombie nobody reaps: either way nothing runs any more. */
static int
pid_gone(long pid)
{
	char path[64], buf[256], *p;
	FILE *f;

	if (pid <= 0)
		return 0;
	if (kill((pid_t)pid, 0) != 0)
		return 1;
	snprintf(path, sizeof(path), "/proc/%ld/stat", pid);
	if ((f = fopen(path, "r")) == NULL)
		return 1;
	p = fgets(buf, sizeof(buf), f);
	fclose(f);
	return p != NULL && (p = strrchr(buf, ')')) != NULL && p[2] == 'Z';
}

/* ------------------------------------------------------------------ */
/* Quoting and result parsing: no server needed. */

Test(remote, quote_shell_and_placeholders)
{
	struct quote_vars v = { 0 };
	struct bd_error err;
	char *q, *out;

	q = quote_shell("it's");
	cr_assert_str_eq(q, "'it'\\''s'");
	free(q);
	v.commit = "0123456789abcdef0123";
	v.workdir = "/w d";
	v.host = "h1";
	cr_assert_eq(quote_expand("cd {workdir} && make O={short} "
	    "${commit} {unknown} awk '{print $1}'", &v, QUOTE_SHELL, &out,
	    &err), 0);
	cr_assert_str_eq(out, "cd '/w d' && make O='0123456789ab' "
	    "${commit} {unknown} awk '{print $1}'");
	free(out);
	cr_assert_eq(quote_expand("k-{short}", &v, QUOTE_RAW, &out, &err), 0);
	cr_assert_str_eq(out, "k-0123456789ab");
	free(out);
	cr_assert_eq(quote_expand("install {artifact}", &v, QUOTE_SHELL, &out,
	    &err), -EINVAL);
	cr_assert_null(out);
	cr_assert(strstr(err.msg, "{artifact}") != NULL, "%s", err.msg);
	/* A value that looks like a placeholder is not expanded again. */
	v.host = "{commit}";
	cr_assert_eq(quote_expand("{host}", &v, QUOTE_SHELL, &out, &err), 0);
	cr_assert_str_eq(out, "'{commit}'");
	free(out);
}

static struct config_metric test_metrics[] = {
	{ "score", CONFIG_METRIC_NUMERIC, CONFIG_HIGHER_IS_BETTER },
};

static void
bench_init(struct config_benchmark *b, const char *run)
{
	memset(b, 0, sizeof(*b));
	b->name = "bench";
	b->run = (char *)run;
	b->metrics = test_metrics;
	b->nmetrics = 1;
	b->build_timeout_ms = b->install_timeout_ms = 30000;
	b->run_timeout_ms = 30000;
	b->boot_timeout_ms = 20000;
}

Test(remote, metrics_rules)
{
	static const struct {
		const char	*text;
		const char	*err;	/* NULL: valid */
	} cases[] = {
		{ "{\"score\": 1.5, \"n\": 3}", NULL },
		{ "{\"score\": -2e3}", NULL },
		{ "{\"score\": \"fast\"}", "not a number (JSON string)" },
		{ "{\"score\": true}", "not a number (JSON boolean)" },
		{ "{\"score\": null}", "not a number (JSON null)" },
		{ "{\"score\": [1]}", "not a number (JSON array)" },
		{ "{\"score\": 1, \"score\": 2}", "not valid JSON" },
		{ "{score: 1}", "not valid JSON" },
		{ "[1, 2]", "not an object" },
		{ "{}", "no metrics" },
		{ "{\"other\": 1}", "no value for metric \"score\"" },
		{ "", "not valid JSON" },
	};
	struct config_benchmark b;
	struct metrics m;
	struct bd_error err;
	size_t i;
	int rc;

	bench_init(&b, "true");
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		bd_error_clear(&err);
		rc = metrics_parse(cases[i].text, strlen(cases[i].text), &b,
		    &m, &err);
		if (cases[i].err == NULL) {
			cr_assert_eq(rc, 0, "%s: %s", cases[i].text, err.msg);
			cr_assert_not_null(metrics_find(&m, "score"));
		} else {
			cr_assert_eq(rc, -EINVAL, "%s accepted", cases[i].text);
			cr_assert(strstr(err.msg, cases[i].err) != NULL,
			    "%s: %s", cases[i].text, err.msg);
			cr_assert_eq(m.n, 0);
		}
		metrics_release(&m);
	}
	rc = metrics_parse_last_line("warming up\n{\"score\": 7}\n\n", 25,
	    false, &b, &m, &err);
	cr_assert_eq(rc, 0, "%s", err.msg);
	cr_assert_float_eq(metrics_find(&m, "score")->value, 7.0, 1e-12);
	metrics_release(&m);
	cr_assert_eq(metrics_parse_last_line("{\"score\": 7}", 12, true, &b,
	    &m, &err), -EINVAL, "a cut line must not parse");
	cr_assert_eq(metrics_parse_last_line("\n\n", 2, false, &b, &m, &err),
	    -EINVAL);
}

Test(remote, cache_keys_and_memory_cache)
{
	struct config_benchmark b1, b2;
	struct cache_mem *m = cache_mem_new();
	struct cache c;
	struct cache_key k1, k2;
	struct cache_hit hit;

	bench_init(&b1, "true");
	b1.build = "make";
	b2 = b1;
	b2.build = "make -j8";
	cache_mem_bind(m, &c);
	cache_key_init(&k1, "g", &b1, "abc");
	cache_key_init(&k2, "g", &b2, "abc");
	cr_assert_neq(k1.config, k2.config, "build template is in the key");
	cr_assert_eq(cache_lookup(&c, &k1, &hit), -ENOENT);
	cr_assert_eq(cache_store(&c, &k1, "h1", "/w/art"), 0);
	cr_assert_eq(cache_lookup(&c, &k1, &hit), 0);
	cr_assert_str_eq(hit.host, "h1");
	cr_assert_str_eq(hit.artifact, "/w/art");
	cache_hit_release(&hit);
	cr_assert_eq(cache_lookup(&c, &k2, &hit), -ENOENT);
	k2 = k1;
	k2.group = "other";
	cr_assert_eq(cache_lookup(&c, &k2, &hit), -ENOENT);
	cache_forget(&c, &k1);
	cr_assert_eq(cache_lookup(&c, &k1, &hit), -ENOENT);
	cr_assert_eq(cache_lookup(NULL, &k1, &hit), -ENOENT);
	cache_mem_free(m);
}

/* ------------------------------------------------------------------ */
/* Exec: streaming, timeouts, cancellation, injection. */

Test(remote, exec_100mb_output_in_bounded_memory)
{
	struct config_host h;
	struct ssh_conn *c;
	struct ssh_stats st;
	struct rusage ru0, ru1;
	struct stat sb;
	struct xres x;
	char *log = path_in(tmp, "big.log");

	cr_assert_eq(sshd_start(&srv[0], "big"), 0);
	c = conn_for(&srv[0], &h, "h0");
	getrusage(RUSAGE_SELF, &ru0);
	run_cmd(c, "head -c 100000000 /dev/zero; echo tail-line; "
	    "echo to-stderr >&2", log, 4096, 0, &x);
	getrusage(RUSAGE_SELF, &ru1);
	cr_assert_eq(x.status, EXEC_EXITED, "%s", x.msg);
	cr_assert_eq(x.code, 0);
	cr_assert_eq(x.out, 100000000 + 10);
	cr_assert_eq(x.err, 10);
	cr_assert_eq(stat(log, &sb), 0);
	cr_assert_eq((uint64_t)sb.st_size, 100000000 + 10 + 10,
	    "every byte reached the log");
	cr_assert_eq(x.tail_len, 4096);
	cr_assert(memcmp(x.tail + 4096 - 10, "tail-line\n", 10) == 0);
	cr_assert_leq(x.hwm, EXEC_BUFSZ, "the one buffer is never exceeded");
	ssh_get_stats(c, &st);
	cr_assert_lt(st.heap_peak, 8u << 20, "libssh2 held %zu bytes",
	    st.heap_peak);
	cr_assert_geq(st.rx_bytes, 100000000);
	cr_log_info("100 MB: buffer high-water %zu, libssh2 heap peak %zu, "
	    "max RSS %ld -> %ld kB", x.hwm, st.heap_peak, ru0.ru_maxrss,
	    ru1.ru_maxrss);
	free(x.tail);
	free(log);
	ssh_conn_free(c);
	drain_loop();
}

/* The command leaves its pid and a child's pid behind, then hangs. */
#define HANG_CMD \
	"echo $$ > pid; sleep 300 & echo $! > child; wait"

static void
read_pids(const char *dir, long *pid, long *child)
{
	char *p = path_in(dir, "pid"), *c = path_in(dir, "child");
	char *a = tst_read_file(p), *b = tst_read_file(c);

	*pid = a ? atol(a) : 0;
	*child = b ? atol(b) : 0;
	free(a);
	free(b);
	free(p);
	free(c);
}

static void
run_in(struct ssh_conn *c, const char *cmd, const char *cwd,
    uint64_t timeout_ms, struct exec **ex, struct xres *x)
{
	struct exec_opts o = { 0 };
	struct bd_error err;

	memset(x, 0, sizeof(*x));
	o.command = cmd;
	o.cwd = cwd;
	o.timeout_ms = timeout_ms;
	o.kill_grace_ms = 300;
	o.connect_wait_ms = 2000;
	cr_assert_eq(exec_start(c, &o, xdone, x, ex, &err), 0, "%s",
	    err.msg);
}

Test(remote, exec_timeout_kills_the_remote_process_group)
{
	struct config_host h;
	struct ssh_conn *c;
	struct xres x;
	long pid, child;

	cr_assert_eq(sshd_start(&srv[0], "hang"), 0);
	c = conn_for(&srv[0], &h, "h0");
	run_in(c, HANG_CMD, tmp, 700, NULL, &x);
	run_until(&x.done);
	cr_assert_eq(x.status, EXEC_TIMEOUT, "%d %s", x.status, x.msg);
	cr_assert(strstr(x.msg, "timed out after 700 ms") != NULL, "%s",
	    x.msg);
	cr_assert_gt(x.pgid, 0);
	read_pids(tmp, &pid, &child);
	cr_assert_eq(pid, x.pgid, "the wrapper reported the group leader");
	cr_assert(pid_gone(pid), "command %ld still runs", pid);
	cr_assert(pid_gone(child), "its child %ld still runs", child);
	/* The session survives and takes the next command. */
	run_cmd(c, "echo again", NULL, 64, 0, &x);
	cr_assert_str_eq(x.tail, "again\n");
	free(x.tail);
	ssh_conn_free(c);
	drain_loop();
}

static void
cancel_cb(void *ex)
{
	exec_cancel(ex);
}

Test(remote, exec_cancel_kills_the_remote_process_group)
{
	struct config_host h;
	struct ssh_conn *c;
	struct exec *ex;
	struct xres x;
	long pid, child;

	cr_assert_eq(sshd_start(&srv[0], "cancel"), 0);
	c = conn_for(&srv[0], &h, "h0");
	run_in(c, HANG_CMD, tmp, 0, &ex, &x);
	later(500, cancel_cb, ex);
	run_until(&x.done);
	cr_assert_eq(x.status, EXEC_CANCELLED, "%d %s", x.status, x.msg);
	read_pids(tmp, &pid, &child);
	cr_assert(pid_gone(pid) && pid_gone(child), "processes left behind");
	ssh_conn_free(c);
	drain_loop();
}

Test(remote, placeholder_values_reach_the_host_literally)
{
	static const char evil[] = "$(touch pwned1)`touch pwned2`'\"\\\n"
	    "; touch pwned3 | & > < * ? ~ {short} ${HOME} $$ \t end";
	struct quote_vars v = { 0 };
	struct config_host h;
	struct ssh_conn *c;
	struct bd_error err;
	struct xres x;
	char *cmd, *p;
	int i;

	cr_assert_eq(sshd_start(&srv[0], "inject"), 0);
	c = conn_for(&srv[0], &h, "h0");
	v.commit = evil;
	v.host = evil;
	cr_assert_eq(quote_expand("cd {workdir} && printf %s {commit}", &v,
	    QUOTE_SHELL, &cmd, &err), -EINVAL, "no value for {workdir}");
	v.workdir = tmp;
	cr_assert_eq(quote_expand("cd {workdir} && printf %s {commit} && "
	    "printf '|' && printf %s {host}", &v, QUOTE_SHELL, &cmd, &err), 0);
	run_cmd(c, cmd, NULL, 4096, 10000, &x);
	free(cmd);
	cr_assert_eq(x.status, EXEC_EXITED, "%s", x.msg);
	cr_assert_eq(x.code, 0);
	xasprintf(&p, "%s|%s", evil, evil);
	cr_assert_eq(x.tail_len, strlen(p));
	cr_assert(memcmp(x.tail, p, strlen(p)) == 0, "got \"%s\"", x.tail);
	free(p);
	free(x.tail);
	for (i = 1; i <= 3; i++) {
		xasprintf(&p, "%s/pwned%d", tmp, i);
		cr_assert_neq(access(p, F_OK), 0, "%s was created", p);
		free(p);
	}
	ssh_conn_free(c);
	drain_loop();
}

/* ------------------------------------------------------------------ */
/* Sessions: host keys, authentication, keepalive, reconnection. */

struct cres {
	int		 done;
	int		 rc;
	char		 msg[BD_ERROR_MAX];
};

static void
cdone(void *arg, int rc, const struct bd_error *err)
{
	struct cres *r = arg;

	r->rc = rc;
	snprintf(r->msg, sizeof(r->msg), "%s", err ? err->msg : "");
	r->done = 1;
}

static int
try_connect(struct config_host *h, char *msg, size_t msgsz)
{
	struct ssh_conn *c;
	struct ssh_waiter w;
	struct cres r = { 0 };

	cr_assert_eq(ssh_conn_new(&loop, h, &c), 0);
	ssh_connect(c, &w, 0, cdone, &r);
	run_until(&r.done);
	snprintf(msg, msgsz, "%s", r.msg);
	ssh_conn_free(c);
	drain_loop();
	return r.rc;
}

Test(remote, host_key_checks)
{
	struct config_host h;
	char msg[BD_ERROR_MAX], *other, *otherpub, *kh, *line;

	cr_assert_eq(sshd_start(&srv[0], "hostkey"), 0);
	sshd_host(&srv[0], &h, "h0", NULL);
	cr_assert_eq(try_connect(&h, msg, sizeof(msg)), 0, "%s", msg);

	/* A different key for this host: refused. */
	other = sshd_keygen(&srv[0], "impostor", NULL, 0);
	xasprintf(&otherpub, "%s.pub", other);
	kh = path_in(tmp, "wrong_known_hosts");
	cr_assert_eq(sshd_write_known_hosts(&srv[0], kh, otherpub), 0);
	h.known_hosts = kh;
	cr_assert_eq(try_connect(&h, msg, sizeof(msg)), -EPERM);
	cr_assert(strstr(msg, "does not match") != NULL, "%s", msg);
	cr_assert(strstr(msg, "SHA256:") != NULL, "%s", msg);
	/* accept-new records unknown keys only, never a changed one. */
	h.host_key = CONFIG_HOST_KEY_ACCEPT_NEW;
	cr_assert_eq(try_connect(&h, msg, sizeof(msg)), -EPERM);
	free(kh);

	/* An unknown host: refused, and nothing is written. */
	kh = path_in(tmp, "empty_known_hosts");
	h.known_hosts = kh;
	h.host_key = CONFIG_HOST_KEY_STRICT;
	cr_assert_eq(try_connect(&h, msg, sizeof(msg)), -EPERM);
	cr_assert(strstr(msg, "is not in") != NULL, "%s", msg);
	cr_assert_neq(access(kh, F_OK), 0, "strict mode wrote the file");

	/* accept-new: recorded, then trusted in strict mode. */
	h.host_key = CONFIG_HOST_KEY_ACCEPT_NEW;
	cr_assert_eq(try_connect(&h, msg, sizeof(msg)), 0, "%s", msg);
	line = tst_read_file(kh);
	cr_assert_not_null(line);
	xasprintf(&other, "[127.0.0.1]:%d ssh-ed25519 ", srv[0].port);
	cr_assert(strncmp(line, other, strlen(other)) == 0, "%s", line);
	h.host_key = CONFIG_HOST_KEY_STRICT;
	cr_assert_eq(try_connect(&h, msg, sizeof(msg)), 0, "%s", msg);
	free(line);
	free(other);
	free(otherpub);
	free(kh);
}

Test(remote, passphrase_protected_key)
{
	struct config_host h;
	char msg[BD_ERROR_MAX], *key, *pf;

	cr_assert_eq(sshd_start(&srv[0], "pass"), 0);
	key = sshd_keygen(&srv[0], "locked", "s3cret phrase", 1);
	cr_assert_not_null(key);
	pf = tst_write_file(tmp, "passphrase", "s3cret phrase\n");
	sshd_host(&srv[0], &h, "h0", NULL);
	h.identity = key;
	h.passphrase_file = pf;
	cr_assert_eq(try_connect(&h, msg, sizeof(msg)), 0, "%s", msg);
	free(pf);
	pf = tst_write_file(tmp, "wrong", "not it\n");
	h.passphrase_file = pf;
	cr_assert_eq(try_connect(&h, msg, sizeof(msg)), -EPERM);
	cr_assert(strstr(msg, "authentication") != NULL, "%s", msg);
	free(pf);
	free(key);
	/* A key the server does not know: refused, and final. */
	key = sshd_keygen(&srv[0], "stranger", NULL, 0);
	h.identity = key;
	h.passphrase_file = NULL;
	cr_assert_eq(try_connect(&h, msg, sizeof(msg)), -EPERM);
	cr_assert(strstr(msg, "authentication") != NULL, "%s", msg);
	free(key);
}

static void
stop_sessions_cb(void *s)
{
	sshd_signal_sessions(s, SIGSTOP);
}

Test(remote, keepalive_detects_a_dead_peer)
{
	struct config_host h;
	struct ssh_conn *c;
	struct ssh_stats st;
	struct xres x;

	cr_assert_eq(sshd_start(&srv[0], "keepalive"), 0);
	sshd_host(&srv[0], &h, "h0", NULL);
	h.keepalive_ms = 200;
	cr_assert_eq(ssh_conn_new(&loop, &h, &c), 0);
	/* Silent but alive for a while: probes are answered. */
	run_cmd(c, "sleep 1", NULL, 0, 0, &x);
	cr_assert_eq(x.status, EXEC_EXITED, "%s", x.msg);
	ssh_get_stats(c, &st);
	cr_assert_geq(st.probes, 1, "no keepalive probe was answered");
	/* Then the host hangs (processes stopped, TCP still up). */
	run_in(c, "sleep 60", NULL, 0, NULL, &x);
	later(300, stop_sessions_cb, &srv[0]);
	run_until(&x.done);
	cr_assert_eq(x.status, EXEC_LOST, "%d %s", x.status, x.msg);
	cr_assert(strstr(x.msg, "keepalive") != NULL, "%s", x.msg);
	ssh_get_stats(c, &st);
	cr_assert_eq(st.lost, 1);
	ssh_conn_free(c);
	drain_loop();
}

static void
restart_cb(void *s)
{
	if (sshd_restart(s) != 0)
		fprintf(stderr, "sshd did not restart\n");
}

Test(remote, reconnects_with_backoff)
{
	struct config_host h;
	struct ssh_conn *c;
	struct ssh_stats st;
	struct xres x;

	cr_assert_eq(sshd_start(&srv[0], "reconnect"), 0);
	c = conn_for(&srv[0], &h, "h0");
	run_cmd(c, "true", NULL, 0, 0, &x);
	cr_assert_eq(x.status, EXEC_EXITED);
	/* The server goes away under an idle session and comes back. */
	sshd_stop(&srv[0]);
	later(700, restart_cb, &srv[0]);
	memset(&x, 0, sizeof(x));
	run_in(c, "echo back", NULL, 0, NULL, &x);
	run_until(&x.done);
	cr_assert_eq(x.status, EXEC_EXITED, "%d %s", x.status, x.msg);
	ssh_get_stats(c, &st);
	cr_assert_eq(st.connects, 2);
	cr_assert_geq(st.attempts, 3, "refused attempts were retried");
	ssh_conn_free(c);
	drain_loop();
}

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
	s.log_dir = tmp;
	s.test.cfg = s.build.cfg = h;
	s.test.conn = s.build.conn = c;
	s.connect_wait_ms = 2000;
	s.kill_grace_ms = 300;
	s.boot_retry_ms = 100;
	cr_assert_eq(step_start(&loop, &s, sdone, x, NULL, &err), 0, "%s",
	    err.msg);
	run_until(&x->done);
}

Test(remote, step_pipeline_on_one_host)
{
	struct config_benchmark b;
	struct config_host h;
	struct ssh_conn *c;
	struct sres x;
	char *p, *s;

	cr_assert_eq(sshd_start(&srv[0], "pipeline"), 0);
	c = conn_for(&srv[0], &h, "h0");
	bench_init(&b, "cat installed; echo progress >&2; "
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
	p = path_in(srv[0].dir, "installed");
	s = tst_read_file(p);
	cr_assert_str_eq(s, "built-" SHORT "\n");
	free(s);
	free(p);
	p = path_in(tmp, "run1-run.log");
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
	drain_loop();
}

Test(remote, step_rejects_bad_results)
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
		{ "echo '{\"score\": [3]}' > r.json", "{workdir}/r.json",
		    "not a number" },
		{ "true", "{workdir}/missing.json", "no such file" },
	};
	struct config_benchmark b;
	struct config_host h;
	struct ssh_conn *c;
	struct sres x;
	size_t i;

	cr_assert_eq(sshd_start(&srv[0], "results"), 0);
	c = conn_for(&srv[0], &h, "h0");
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		bench_init(&b, cases[i].run);
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
	}
	ssh_conn_free(c);
	drain_loop();
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
	restart_cb(arg);
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
		later(wt.back_ms, watch_restart, wt.s);
}

static void
watch_start(struct sshd *s, const char *flag, const char *kernel,
    uint64_t back_ms)
{
	free(wt.flag);
	memset(&wt, 0, sizeof(wt));
	wt.s = s;
	wt.flag = path_in(s->dir, flag);
	wt.kernel = kernel;
	wt.back_ms = back_ms;
	uv_timer_init(&loop, &wt.t);
	uv_timer_start(&wt.t, watch_cb, 20, 20);
}

static void
watch_stop(void)
{
	uv_close((uv_handle_t *)&wt.t, NULL);
	free(wt.flag);
	wt.flag = NULL;
}

Test(remote, step_reboot_waits_for_the_new_kernel)
{
	struct config_benchmark b;
	struct config_host h;
	struct ssh_conn *c;
	struct ssh_stats st;
	struct sres x;
	char *k;

	cr_assert_eq(sshd_start(&srv[0], "reboot"), 0);
	k = tst_write_file(srv[0].dir, "kernel", "old-kernel\n");
	free(k);
	c = conn_for(&srv[0], &h, "h0");
	bench_init(&b, "echo '{\"score\": 1}'");
	b.reboot = "touch reboot-requested";
	b.boot_check = "cat kernel";
	b.expect_kernel = "kernel-{short}";
	b.boot_timeout_ms = 20000;
	watch_start(&srv[0], "reboot-requested", "kernel-" SHORT "\n", 800);
	run_step(&b, &h, c, &x);
	watch_stop();
	cr_assert_eq(x.outcome, STEP_OK, "%s: %s", step_phase_name(x.phase),
	    x.msg);
	cr_assert(wt.fired, "the host was rebooted");
	cr_assert(!x.power_cycled);
	ssh_get_stats(c, &st);
	cr_assert_geq(st.connects, 2, "reconnected after the reboot");
	ssh_conn_free(c);
	drain_loop();
}

Test(remote, step_boot_timeout_runs_power_cycle)
{
	struct config_benchmark b;
	struct config_host h;
	struct ssh_conn *c;
	struct sres x;
	char *marker;

	cr_assert_eq(sshd_start(&srv[0], "powercycle"), 0);
	c = conn_for(&srv[0], &h, "h0");
	h.power_cycle = "touch {workdir}/power-cycled-{host}";
	bench_init(&b, "echo '{\"score\": 1}'");
	b.reboot = "touch reboot-requested";
	b.boot_check = "uname -r";
	b.boot_timeout_ms = 1200;
	watch_start(&srv[0], "reboot-requested", NULL, 0);
	run_step(&b, &h, c, &x);
	watch_stop();
	cr_assert_eq(x.outcome, STEP_INFRA, "%s", x.msg);
	cr_assert_eq(x.phase, STEP_PHASE_BOOT);
	cr_assert_str_eq(x.host, "h0");
	cr_assert(x.power_cycled, "%s", x.msg);
	cr_assert(strstr(x.msg, "boot timeout") != NULL &&
	    strstr(x.msg, "after a power cycle") != NULL, "%s", x.msg);
	marker = path_in(srv[0].dir, "power-cycled-h0");
	cr_assert_eq(access(marker, F_OK), 0, "power_cycle did not run");
	free(marker);
	cr_assert(step_outcome_retryable(x.outcome));
	ssh_conn_free(c);
	drain_loop();
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
	j.log_dir = tmp;
	j.cache = cache;
	j.connect_wait_ms = 1000;
	j.kill_grace_ms = 300;
	j.record = jrecord;
	j.record_arg = x;
	cr_assert_eq(job_submit(q, &j, jdone, x, NULL, &err), 0, "%s",
	    err.msg);
	run_until(&x->done);
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

Test(remote, relay_and_build_cache_between_hosts)
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

	cr_assert_eq(sshd_start(&srv[0], "builder"), 0);
	cr_assert_eq(sshd_start(&srv[1], "tester"), 0);
	sshd_host(&srv[0], &hosts[0], "builder", "g");
	sshd_host(&srv[1], &hosts[1], "tester", "g");
	hosts[0].roles = CONFIG_ROLE_BUILD;
	hosts[1].roles = CONFIG_ROLE_TEST;
	cache_mem_bind(cm, &cache);
	cr_assert_eq(pool_new(&loop, hosts, 2, 0, &p, &err), 0);
	q = job_queue_new(p);
	bench_init(&b, "sha256sum {artifact} > installed-sum && "
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
	art0 = path_in(srv[0].dir, "out/art-" SHORT);
	art1 = path_in(srv[1].dir, "out/art-" SHORT);
	cmp[1] = art0;
	cmp[2] = art1;
	cr_assert_eq(tst_run(cmp), 0, "relayed artifact differs");
	free(art1);
	art1 = path_in(srv[1].dir, "out/art-" SHORT ".bisectd-part");
	cr_assert_neq(access(art1, F_OK), 0, "part file left behind");

	/* Same commit again: the cache answers, nothing is rebuilt. */
	unlink(art1);
	run_job(q, &b, "g", &cache, &x);
	cr_assert_eq(x.outcome, STEP_OK, "%s", x.msg);
	cr_assert(!x.built, "built again despite the cache");
	builds = path_in(srv[0].dir, "builds");
	cr_assert_eq(count_lines(builds), 1);
	free(builds);
	free(art0);
	free(art1);
	job_queue_free(q);
	pool_free(p);
	drain_loop();
	cache_mem_free(cm);
}

Test(remote, sshd_killed_mid_run_is_retried_on_another_host)
{
	struct config_host hosts[2];
	struct config_benchmark b;
	struct pool_host_info info;
	struct pool *p;
	struct job_queue *q;
	struct bd_error err;
	struct sres x;

	cr_assert_eq(sshd_start(&srv[0], "hostA"), 0);
	cr_assert_eq(sshd_start(&srv[1], "hostB"), 0);
	sshd_host(&srv[0], &hosts[0], "hA", "g");
	sshd_host(&srv[1], &hosts[1], "hB", "g");
	hosts[0].quarantine_after = 1;
	cr_assert_eq(pool_new(&loop, hosts, 2, 0, &p, &err), 0);
	q = job_queue_new(p);
	bench_init(&b, "touch started; if [ {host} = hA ]; then sleep 60; fi; "
	    "echo '{\"score\": 9}'");
	watch_start(&srv[0], "started", NULL, 0);
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
	drain_loop();
}

Test(remote, pool_leases_and_health)
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
	fake.dir = tmp;
	fake.user_key = "/nonexistent/key";
	fake.known_hosts = "/nonexistent/known_hosts";
	sshd_host(&fake, &hosts[0], "a1", "a");
	sshd_host(&fake, &hosts[1], "a2", "a");
	sshd_host(&fake, &hosts[2], "b1", "b");
	hosts[0].quarantine_after = 2;
	hosts[1].roles = CONFIG_ROLE_TEST;
	cr_assert_eq(pool_new(&loop, hosts, 3, 0, &p, &err), 0);
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
	drain_loop();
}

static void
cancel_job_cb(void *j)
{
	job_cancel(j);
}

Test(remote, job_cancel_and_no_host)
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

	cr_assert_eq(sshd_start(&srv[0], "jobcancel"), 0);
	sshd_host(&srv[0], &h, "h0", "g");
	cr_assert_eq(pool_new(&loop, &h, 1, 0, &p, &err), 0);
	q = job_queue_new(p);
	bench_init(&b, HANG_CMD);
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
	later(700, cancel_job_cb, job);
	run_until(&x.done);
	cr_assert_eq(x.outcome, STEP_CANCELLED, "%s", x.msg);
	cr_assert_eq(x.records, 0);
	read_pids(srv[0].dir, &pid, &child);
	cr_assert(pid_gone(pid) && pid_gone(child), "left running");
	/* A group nobody serves ends at once, as an infrastructure error. */
	run_job(q, &b, "empty", NULL, &x);
	cr_assert_eq(x.outcome, STEP_INFRA);
	cr_assert(strstr(x.msg, "no usable") != NULL, "%s", x.msg);
	cr_assert_eq(x.records, 0);
	job_queue_free(q);
	pool_free(p);
	drain_loop();
}
