/* SPDX-License-Identifier: MIT */
/*
 * The report hook: one child per report, in a process group of its own so
 * that a deadline can stop it together with what it started (a shell
 * pipeline into sendmail is three processes).  The running hooks are kept
 * in a list, so that a shutdown can stop waiting for them.
 */
#include <signal.h>
#include <stdlib.h>
#include <string.h>

#include "common/error.h"
#include "common/log.h"
#include "common/queue.h"
#include "common/xmalloc.h"
#include "daemon/hook.h"

extern char **environ;

struct hook {
	TAILQ_ENTRY(hook) entry;
	uv_process_t	 proc;
	uv_pipe_t	 in;
	uv_timer_t	 timer;
	uv_write_t	 wr;
	char		*input;
	int		 open_handles;
};

static TAILQ_HEAD(, hook) hook_running = TAILQ_HEAD_INITIALIZER(hook_running);

/* The last of a hook's three handles frees it. */
static void
hook_closed(uv_handle_t *h)
{
	struct hook *k = h->data;

	if (--k->open_handles == 0) {
		TAILQ_REMOVE(&hook_running, k, entry);
		free(k->input);
		free(k);
	}
}

/* Closes what is still open of k: the daemon no longer watches it. */
static void
hook_close(struct hook *k)
{
	uv_handle_t *hs[] = { (uv_handle_t *)&k->proc, (uv_handle_t *)&k->in,
	    (uv_handle_t *)&k->timer };
	size_t i;

	for (i = 0; i < sizeof(hs) / sizeof(hs[0]); i++)
		if (!uv_is_closing(hs[i]))
			uv_close(hs[i], hook_closed);
}

static void
hook_exit(uv_process_t *p, int64_t status, int sig)
{
	struct hook *k = p->data;

	if (status != 0 || sig != 0)
		log_errx("report hook exited with status %lld signal %d",
		    (long long)status, sig);
	else
		log_info("report hook done");
	hook_close(k);
}

/* A hook that hangs (a mail server that never answers) must not pile up. */
static void
hook_expired(uv_timer_t *t)
{
	struct hook *k = t->data;

	log_errx("report hook (pid %d) still running at its deadline: "
	    "killed with the processes it started", k->proc.pid);
	kill(-k->proc.pid, SIGKILL);
}

static void
hook_written(uv_write_t *w, int status)
{
	struct hook *k = w->data;

	if (status < 0 && status != UV_ECANCELED)
		log_warnx("report hook stdin: %s", uv_strerror(status));
	if (!uv_is_closing((uv_handle_t *)&k->in))
		uv_close((uv_handle_t *)&k->in, hook_closed);
}

int
hook_run(uv_loop_t *loop, const char *command, char *const env[],
    const char *input, uint64_t timeout_ms)
{
	struct hook *k = xcalloc(1, sizeof(*k));
	uv_process_options_t o;
	uv_stdio_container_t io[3];
	char *args[] = { "/bin/sh", "-c", (char *)command, NULL };
	char **fullenv;
	size_t n = 0, m = 0, i;
	uv_buf_t buf;
	int rc;

	while (environ[n] != NULL)
		n++;
	while (env[m] != NULL)
		m++;
	fullenv = xcalloc(n + m + 1, sizeof(char *));
	for (i = 0; i < n; i++)
		fullenv[i] = environ[i];
	for (i = 0; i < m; i++)
		fullenv[n + i] = bd_utf8_line(xstrdup(env[i]));
	TAILQ_INSERT_TAIL(&hook_running, k, entry);
	k->open_handles = 3;
	uv_pipe_init(loop, &k->in, 0);
	uv_timer_init(loop, &k->timer);
	k->in.data = k->proc.data = k->timer.data = k;
	memset(&o, 0, sizeof(o));
	io[0].flags = UV_CREATE_PIPE | UV_READABLE_PIPE;
	io[0].data.stream = (uv_stream_t *)&k->in;
	io[1].flags = UV_INHERIT_FD;
	io[1].data.fd = 2;
	io[2].flags = UV_INHERIT_FD;
	io[2].data.fd = 2;
	o.file = args[0];
	o.args = args;
	o.env = fullenv;
	o.stdio = io;
	o.stdio_count = 3;
	o.exit_cb = hook_exit;
	/* A session of its own: the hook's pid names its process group. */
	o.flags = UV_PROCESS_DETACHED;
	rc = uv_spawn(loop, &k->proc, &o);
	for (i = 0; i < m; i++)
		free(fullenv[n + i]);
	free(fullenv);
	if (rc < 0) {
		hook_close(k);
		return rc;
	}
	if (timeout_ms > 0)
		uv_timer_start(&k->timer, hook_expired, timeout_ms, 0);
	k->input = xstrdup(input);
	buf = uv_buf_init(k->input, (unsigned)strlen(k->input));
	k->wr.data = k;
	if (uv_write(&k->wr, (uv_stream_t *)&k->in, &buf, 1,
	    hook_written) < 0)
		uv_close((uv_handle_t *)&k->in, hook_closed);
	return 0;
}

/*
 * The daemon's loop ends when its last handle closes, so a hook still
 * running would hold a shutdown for as long as it runs.
 */
void
hook_detach_all(void)
{
	struct hook *k;

	TAILQ_FOREACH(k, &hook_running, entry) {
		if (uv_is_closing((uv_handle_t *)&k->proc))
			continue;
		log_info("report hook (pid %d) left running at shutdown",
		    k->proc.pid);
		hook_close(k);
	}
}
