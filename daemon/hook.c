#include <stdlib.h>
#include <string.h>

#include "common/error.h"
#include "common/log.h"
#include "common/xmalloc.h"
#include "daemon/hook.h"

extern char **environ;

struct hook {
	uv_process_t	 proc;
	uv_pipe_t	 in;
	uv_write_t	 wr;
	char		*input;
	int		 open_handles;
};

static void
hook_closed(uv_handle_t *h)
{
	struct hook *k = h->data;

	if (--k->open_handles == 0) {
		free(k->input);
		free(k);
	}
}

static void
hook_exit(uv_process_t *p, int64_t status, int sig)
{
	if (status != 0 || sig != 0)
		log_warnx("report hook exited with status %lld signal %d",
		    (long long)status, sig);
	else
		log_info("report hook done");
	uv_close((uv_handle_t *)p, hook_closed);
}

static void
hook_written(uv_write_t *w, int status)
{
	struct hook *k = w->data;

	if (status < 0)
		log_warnx("report hook stdin: %s", uv_strerror(status));
	uv_close((uv_handle_t *)&k->in, hook_closed);
}

int
hook_run(uv_loop_t *loop, const char *command, char *const env[],
    const char *input)
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
	uv_pipe_init(loop, &k->in, 0);
	k->in.data = k;
	k->proc.data = k;
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
	rc = uv_spawn(loop, &k->proc, &o);
	for (i = 0; i < m; i++)
		free(fullenv[n + i]);
	free(fullenv);
	if (rc < 0) {
		k->open_handles = 2;
		uv_close((uv_handle_t *)&k->in, hook_closed);
		uv_close((uv_handle_t *)&k->proc, hook_closed);
		return rc;
	}
	k->open_handles = 2;
	k->input = xstrdup(input);
	buf = uv_buf_init(k->input, (unsigned)strlen(k->input));
	k->wr.data = k;
	if (uv_write(&k->wr, (uv_stream_t *)&k->in, &buf, 1,
	    hook_written) < 0)
		uv_close((uv_handle_t *)&k->in, hook_closed);
	return 0;
}
