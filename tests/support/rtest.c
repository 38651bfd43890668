/* SPDX-License-Identifier: MIT */
/*
 * The remote/ integration tests' shared fixture: see rtest.h.
 */
#include <criterion/criterion.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <uv.h>

#include "common/xmalloc.h"
#include "remote/exec.h"
#include "remote/ssh.h"
#include "tests/support/rtest.h"
#include "tests/support/sshd.h"
#include "tests/support/tst.h"

#define GUARD_MS	60000	/* a stuck loop fails the test instead */
uv_loop_t	 rtest_loop;
struct sshd	 rtest_srv[RTEST_NSRV];
char		*rtest_tmp;
static int		 guard_fired;
static uv_timer_t	 guard;

void
rtest_setup(void)
{
	signal(SIGPIPE, SIG_IGN);
	cr_assert_eq(uv_loop_init(&rtest_loop), 0);
	rtest_tmp = tst_tmpdir("remote");
	cr_assert_not_null(rtest_tmp);
}

static void
remote_walk_close(uv_handle_t *h, void *arg)
{
	(void)arg;
	if (!uv_is_closing(h))
		uv_close(h, NULL);
}

/* Stops servers and removes files even when an assertion cut a test short. */
void
rtest_teardown(void)
{
	int i;

	for (i = 0; i < RTEST_NSRV; i++)
		sshd_cleanup(&rtest_srv[i]);
	tst_rmrf(rtest_tmp);
	free(rtest_tmp);
	uv_walk(&rtest_loop, remote_walk_close, NULL);
	uv_run(&rtest_loop, UV_RUN_DEFAULT);
	uv_loop_close(&rtest_loop);
}

static void
guard_cb(uv_timer_t *t)
{
	guard_fired = 1;
	uv_stop(t->loop);
}

/* Runs the loop until *flag is set (or the guard fires). */
void
rtest_run_until(const int *flag)
{
	guard_fired = 0;
	uv_timer_init(&rtest_loop, &guard);
	uv_timer_start(&guard, guard_cb, GUARD_MS, 0);
	uv_unref((uv_handle_t *)&guard);
	while (!*flag && !guard_fired)
		uv_run(&rtest_loop, UV_RUN_ONCE);
	uv_close((uv_handle_t *)&guard, NULL);
	uv_run(&rtest_loop, UV_RUN_NOWAIT);
	cr_assert(!guard_fired, "the loop got stuck");
}

/* Lets every handle close so LeakSanitizer sees a clean loop. */
void
rtest_drain_loop(void)
{
	uv_run(&rtest_loop, UV_RUN_DEFAULT);
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
void
rtest_later(uint64_t ms, void (*fn)(void *), void *arg)
{
	struct later *l = xcalloc(1, sizeof(*l));

	l->fn = fn;
	l->arg = arg;
	uv_timer_init(&rtest_loop, &l->t);
	l->t.data = l;
	uv_timer_start(&l->t, later_cb, ms, 0);
}

void
rtest_xdone(void *arg, const struct exec_result *r)
{
	struct rtest_xres *x = arg;

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

struct ssh_conn *
rtest_conn_for(struct sshd *s, struct config_host *h, const char *name)
{
	struct ssh_conn *c;

	sshd_host(s, h, name, NULL);
	cr_assert_eq(ssh_conn_new(&rtest_loop, h, &c), 0);
	return c;
}

void
rtest_run_cmd(struct ssh_conn *c, const char *cmd, const char *log, size_t tail,
    uint64_t timeout_ms, struct rtest_xres *x)
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
	cr_assert_eq(exec_start(c, &o, rtest_xdone, x, NULL, &err), 0, "%s",
	    err.msg);
	rtest_run_until(&x->done);
}

char *
rtest_path_in(const char *dir, const char *name)
{
	char *p;

	xasprintf(&p, "%s/%s", dir, name);
	return p;
}

/* Dead, or a zombie nobody reaps: either way nothing runs any more. */
int
rtest_pid_gone(long pid)
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

static struct config_metric test_metrics[] = {
	{ "score", CONFIG_METRIC_NUMERIC, CONFIG_HIGHER_IS_BETTER, AGG_MEAN },
};

void
rtest_bench_init(struct config_benchmark *b, const char *run)
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

void
rtest_read_pids(const char *dir, long *pid, long *child)
{
	char *p = rtest_path_in(dir, "pid"), *c = rtest_path_in(dir, "child");
	char *a = tst_read_file(p), *b = tst_read_file(c);

	*pid = a ? atol(a) : 0;
	*child = b ? atol(b) : 0;
	free(a);
	free(b);
	free(p);
	free(c);
}

void
rtest_run_in(struct ssh_conn *c, const char *cmd, const char *cwd,
    uint64_t timeout_ms, struct exec **ex, struct rtest_xres *x)
{
	struct exec_opts o = { 0 };
	struct bd_error err;

	memset(x, 0, sizeof(*x));
	o.command = cmd;
	o.cwd = cwd;
	o.timeout_ms = timeout_ms;
	o.kill_grace_ms = 300;
	o.connect_wait_ms = 2000;
	cr_assert_eq(exec_start(c, &o, rtest_xdone, x, ex, &err), 0, "%s",
	    err.msg);
}

void
rtest_restart_sshd(void *s)
{
	if (sshd_restart(s) != 0)
		fprintf(stderr, "sshd did not restart\n");
}
