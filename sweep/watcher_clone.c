/* SPDX-License-Identifier: MIT */
/*
 * The first clone through `git clone --mirror`, as a child on the loop
 * (uv_spawn, an argv, never a shell).  Measured by `make bench-fetch` on
 * the generated 100,000-commit repository: libgit2's clone takes about
 * 1.9 times as long as git's (git resolves deltas on several threads,
 * libgit2's indexer on one), which on a multi-GB linux-next clone is most
 * of an hour; incremental fetches are as fast with libgit2 (ratio 0.7),
 * so only this step uses git.  The clone goes into PATH.clone-PID and is
 * renamed to PATH once complete, so a kill mid-clone never leaves a half
 * mirror; the libgit2
 * fetch that follows then computes the ref events.  The temporary name
 * carries the daemon's pid: a clone an earlier, killed daemon left (its
 * git child may still run) is removed, never shared.  ssh:// urls are
 * cloned with libgit2, whose host key check follows [repo] known_hosts,
 * and so are urls with user-info: a token on git's command line would be
 * there for every local user to read.
 */
#include <sys/stat.h>

#include <ftw.h>
#include <glob.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common/log.h"
#include "common/xmalloc.h"
#include "sweep/watcher_int.h"

/* The child and its stderr, freed when both handles are closed. */
struct watcher_clone {
	uv_process_t		 proc;
	uv_pipe_t		 err;
	struct watcher_job	*j;
	char			*tmp;
	char			 line[512];
	size_t			 len;
	char			 last[256];	/* the last line git printed */
	int64_t			 status;
	int			 signal;
	int			 open;		/* handles not yet closed */
	int			 exited;
	int			 eof;
};

/* Removes one entry of a left-over temporary clone, depth first. */
static int
watcher_clone_rm(const char *p, const struct stat *sb, int type,
    struct FTW *ftw)
{
	(void)sb;
	(void)ftw;
	return type == FTW_DP ? rmdir(p) : unlink(p);
}

/* Removes the temporary clones killed daemons left next to path. */
static void
watcher_clone_sweep(const char *path)
{
	glob_t g;
	char *pat;
	size_t i;

	xasprintf(&pat, "%s.clone-*", path);
	if (glob(pat, GLOB_NOSORT, NULL, &g) == 0) {
		for (i = 0; i < g.gl_pathc; i++)
			(void)nftw(g.gl_pathv[i], watcher_clone_rm, 16,
			    FTW_DEPTH | FTW_PHYS);
		globfree(&g);
	}
	free(pat);
}

/* "Receiving objects:  45% (1350/3000), 4.00 MiB" into the progress. */
static void
watcher_clone_line(struct watcher_clone *c, const char *s)
{
	struct watcher *w = c->j->w;
	unsigned done, total;
	double size;
	char unit[8] = "";
	const char *p;

	if (*s == '\0')
		return;
	snprintf(c->last, sizeof(c->last), "%s", s);
	if ((p = strchr(s, '(')) == NULL ||
	    sscanf(p, "(%u/%u)", &done, &total) != 2)
		return;
	pthread_mutex_lock(&w->lock);
	if (strncmp(s, "Receiving objects", 17) == 0) {
		w->progress.received_objects = done;
		w->progress.total_objects = total;
		if ((p = strchr(p, ',')) != NULL &&
		    sscanf(p, ", %lf %7s", &size, unit) == 2)
			w->progress.received_bytes = (uint64_t)(size *
			    (unit[0] == 'G' ? 1 << 30 : unit[0] == 'M' ?
			    1 << 20 : unit[0] == 'K' ? 1 << 10 : 1));
	} else if (strncmp(s, "Resolving deltas", 16) == 0) {
		w->progress.indexed_deltas = done;
		w->progress.total_deltas = total;
		w->progress.indexed_objects = w->progress.total_objects;
	}
	w->progress_seq++;
	pthread_mutex_unlock(&w->lock);
}

static void
watcher_clone_closed(uv_handle_t *h)
{
	struct watcher_clone *c = h->data;

	if (--c->open == 0) {
		free(c->tmp);
		free(c);
	}
}

/*
 * Both the exit and the end of stderr are in: rename and go on with the
 * libgit2 fetch, or end the job with git's last words.
 */
static void
watcher_clone_end(struct watcher_clone *c)
{
	struct watcher_job *j = c->j;
	int rc;

	if (!c->exited || !c->eof)
		return;
	j->clone = NULL;
	if (c->status == 0 && c->signal == 0 && !j->cancel &&
	    rename(c->tmp, j->opts.path) == 0) {
		log_info("cloned %s into %s with git", j->shown,
		    j->opts.path);
		if ((rc = uv_queue_work(j->w->env.loop, &j->work,
		    watcher_work, watcher_done)) < 0) {
			j->rc = bd_error_set(&j->err, -EIO, "cannot start a "
			    "fetch: %s", uv_strerror(rc));
			watcher_done(&j->work, 0);
		}
	} else {
		if (j->cancel)
			j->rc = bd_error_set(&j->err, -ECANCELED, "clone of %s "
			    "cancelled", j->shown);
		else {
			j->rc = bd_error_set(&j->err, -EIO, "git clone "
			    "--mirror %s: %s", j->shown, c->last[0] ?
			    c->last : "failed");
			mirror_url_scrub(j->err.msg, j->opts.url);
		}
		(void)nftw(c->tmp, watcher_clone_rm, 16, FTW_DEPTH | FTW_PHYS);
		watcher_done(&j->work, 0);
	}
	uv_close((uv_handle_t *)&c->proc, watcher_clone_closed);
	uv_close((uv_handle_t *)&c->err, watcher_clone_closed);
}

static void
watcher_clone_exit(uv_process_t *p, int64_t status, int sig)
{
	struct watcher_clone *c = p->data;

	c->status = status;
	c->signal = sig;
	c->exited = 1;
	watcher_clone_end(c);
}

static void
watcher_clone_alloc(uv_handle_t *h, size_t hint, uv_buf_t *buf)
{
	static char chunk[4096];

	(void)h;
	(void)hint;
	*buf = uv_buf_init(chunk, sizeof(chunk));
}

/* git ends progress lines with \r and messages with \n. */
static void
watcher_clone_read(uv_stream_t *s, ssize_t n, const uv_buf_t *buf)
{
	struct watcher_clone *c = s->data;
	ssize_t i;

	if (n < 0) {
		uv_read_stop(s);
		c->eof = 1;
		c->line[c->len] = '\0';
		watcher_clone_line(c, c->line);
		watcher_clone_end(c);
		return;
	}
	for (i = 0; i < n; i++) {
		if (buf->base[i] == '\r' || buf->base[i] == '\n') {
			c->line[c->len] = '\0';
			watcher_clone_line(c, c->line);
			c->len = 0;
		} else if (c->len + 1 < sizeof(c->line))
			c->line[c->len++] = buf->base[i];
	}
}

int
watcher_clone_wanted(const struct watcher_job *j)
{
	struct stat sb;

	return strncmp(j->opts.url, "ssh://", 6) != 0 &&
	    strcmp(j->opts.url, j->shown) == 0 &&
	    stat(j->opts.path, &sb) != 0;
}

int
watcher_clone_start(struct watcher_job *j, struct bd_error *err)
{
	struct watcher_clone *c = xcalloc(1, sizeof(*c));
	uv_process_options_t o;
	uv_stdio_container_t io[3];
	char *args[] = { "git", "clone", "--mirror", "--progress", "--",
	    (char *)j->opts.url, NULL, NULL };
	uv_loop_t *loop = j->w->env.loop;
	int rc;

	watcher_clone_sweep(j->opts.path);
	xasprintf(&c->tmp, "%s.clone-%ld", j->opts.path, (long)getpid());
	args[6] = c->tmp;
	c->j = j;
	uv_pipe_init(loop, &c->err, 0);
	c->proc.data = c;
	c->err.data = c;
	memset(&o, 0, sizeof(o));
	io[0].flags = UV_IGNORE;
	io[1].flags = UV_IGNORE;
	io[2].flags = UV_CREATE_PIPE | UV_WRITABLE_PIPE;
	io[2].data.stream = (uv_stream_t *)&c->err;
	o.file = "git";
	o.args = args;
	o.stdio = io;
	o.stdio_count = 3;
	o.exit_cb = watcher_clone_exit;
	c->open = 2;
	if ((rc = uv_spawn(loop, &c->proc, &o)) < 0) {
		uv_close((uv_handle_t *)&c->err, watcher_clone_closed);
		uv_close((uv_handle_t *)&c->proc, watcher_clone_closed);
		return bd_error_set(err, -EIO, "cannot run git clone: %s",
		    uv_strerror(rc));
	}
	uv_read_start((uv_stream_t *)&c->err, watcher_clone_alloc,
	    watcher_clone_read);
	j->clone = c;
	log_info("cloning %s into %s with git clone --mirror", j->shown,
	    j->opts.path);
	return 0;
}

void
watcher_clone_cancel(struct watcher_job *j)
{
	struct watcher_clone *c = j->clone;

	if (c != NULL && !c->exited)
		uv_process_kill(&c->proc, SIGTERM);
}
