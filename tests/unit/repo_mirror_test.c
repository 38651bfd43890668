/* SPDX-License-Identifier: MIT */
/*
 * repo/mirror.c without the daemon: libgit2's own first clone (the path
 * ssh:// urls take) of a file:// upstream, watched refs by glob and peeled
 * to commits, a cancelled fetch, keep refs, and bad urls.
 */
#include <sys/wait.h>

#include <criterion/criterion.h>
#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <git2.h>

#include "common/xmalloc.h"
#include "repo/mirror.h"
#include "tests/support/sshd.h"
#include "tests/support/tst.h"

static char *dir;
static struct sshd srv;

static void
mt_init(void)
{
	git_libgit2_init();
	cr_assert_not_null(dir = tst_tmpdir("mirror"));
}

static void
mt_fini(void)
{
	git_libgit2_shutdown();
	sshd_cleanup(&srv);
	if (dir != NULL)
		tst_rmrf(dir);
	free(dir);
	dir = NULL;
	tst_leak_check();
}

TestSuite(repo_mirror, .init = mt_init, .fini = mt_fini);

/* Runs upstream.sh OP dir NAME [N KB]; its last line (caller frees). */
static char *
up_big(const char *op, const char *name, const char *nfiles, const char *kb)
{
	char *script, *out, *nl;
	int status;

	xasprintf(&script, "%s/tests/fixtures/watch/upstream.sh",
	    tst_env_path("BISECTD_SRCDIR"));
	{
		char *argv[] = { "sh", script, (char *)op, dir, (char *)name,
		    (char *)nfiles, (char *)kb, NULL };

		out = tst_run_capture(argv, &status);
	}
	free(script);
	cr_assert_eq(status, 0);
	while ((nl = strrchr(out, '\n')) != NULL && nl[1] == '\0')
		*nl = '\0';
	nl = strrchr(out, '\n');
	nl = xstrdup(nl != NULL ? nl + 1 : out);
	free(out);
	return nl;
}

static char *
up(const char *op, const char *name)
{
	return up_big(op, name, NULL, NULL);
}

struct mt_progress {
	int	calls;
};

static void
mt_progress(void *arg, const struct mirror_progress *p)
{
	(void)p;
	((struct mt_progress *)arg)->calls++;
}

Test(repo_mirror, libgit2_clone_then_watched_refs)
{
	const char *globs[] = { "refs/tags/next-*", "refs/heads/master" };
	struct mt_progress prog = { 0 };
	struct mirror_fetch_opts o = { .progress = mt_progress,
	    .arg = &prog };
	struct mirror_ref *refs;
	struct bd_error err;
	char *url, *path, *n1, *keep;
	size_t n;

	free(up("init", NULL));
	n1 = up("tag", "next-1");
	xasprintf(&url, "file://%s/srv/next.git", dir);
	xasprintf(&path, "%s/mirror.git", dir);
	o.url = url;
	o.path = path;
	cr_assert_eq(mirror_fetch(&o, &err), 0, "%s", err.msg);
	cr_assert_gt(prog.calls, 0, "no progress was reported");
	cr_assert_eq(mirror_refs(path, globs, 2, &refs, &n, &err), 0);
	cr_assert_eq(n, 2);
	cr_assert_str_eq(refs[0].name, "refs/heads/master");
	cr_assert_str_eq(refs[1].name, "refs/tags/next-1");
	/* The annotated tag is reported as its commit. */
	cr_assert_str_eq(refs[1].id, n1);
	cr_assert_eq(mirror_has(path, n1), 1);
	cr_assert_eq(mirror_has(path, "no-such-rev"), 0);
	cr_assert_eq(mirror_keep(path, n1, &err), 0, "%s", err.msg);
	xasprintf(&keep, "refs/bisectd/keep/%s", n1);
	cr_assert_eq(mirror_has(path, keep), 1);
	cr_assert_eq(mirror_keep(path, "xyz", &err), -EINVAL);
	mirror_refs_free(refs, n);
	free(keep);
	free(n1);
	free(url);
	free(path);
}

Test(repo_mirror, cancel_and_bad_urls)
{
	volatile int cancel = 1;
	struct mirror_fetch_opts o = { .cancel = &cancel };
	struct bd_error err;
	char *url, *path;

	free(up("init", NULL));
	free(up_big("big", "next-big", "200", "4"));
	xasprintf(&url, "file://%s/srv/next.git", dir);
	xasprintf(&path, "%s/mirror.git", dir);
	o.url = url;
	o.path = path;
	cr_assert_eq(mirror_fetch(&o, &err), -ECANCELED, "%d %s", err.code,
	    err.msg);
	cancel = 0;
	o.url = "file:///nonexistent/repo.git";
	cr_assert_lt(mirror_fetch(&o, &err), 0);
	cr_assert(strstr(err.msg, "/nonexistent/repo.git") != NULL, "%s",
	    err.msg);
	o.url = url;
	cr_assert_eq(mirror_fetch(&o, &err), 0, "%s", err.msg);
	free(url);
	free(path);
}

/*
 * The three ssh fetches of the test below, in a child: libgit2 1.5's ssh
 * transport leaks a few small buffers per connection (and one libssh2
 * known-hosts list), which LeakSanitizer would blame on this test; the
 * child leaves by _exit, and its exit status says which check failed.
 */
static int
ssh_fetches(const char *url, const char *path, const char *empty)
{
	struct mirror_fetch_opts o = { .url = url, .path = path,
	    .identity = srv.user_key };
	struct bd_error err;
	int bad = 0;

	o.known_hosts = empty;
	if (mirror_fetch(&o, &err) != -EPERM || !strstr(err.msg, "host key"))
		bad |= 1;
	o.known_hosts = NULL;
	if (mirror_fetch(&o, &err) != -EPERM)
		bad |= 2;
	o.known_hosts = srv.known_hosts;
	if (mirror_fetch(&o, &err) != 0) {
		fprintf(stderr, "ssh fetch: %s\n", err.msg);
		bad |= 4;
	}
	return bad;
}

/* ssh:// with [repo] identity and known_hosts, as hosts use them. */
Test(repo_mirror, ssh_url_checks_the_host_key)
{
	char *url, *path, *empty, *n1;
	int status;
	pid_t pid;

	free(up("init", NULL));
	n1 = up("tag", "next-1");
	cr_assert_eq(sshd_start(&srv, "mirror-ssh"), 0);
	xasprintf(&url, "ssh://%s@127.0.0.1:%d%s/srv/next.git",
	    getpwuid(getuid())->pw_name, srv.port, dir);
	xasprintf(&path, "%s/mirror.git", dir);
	empty = tst_write_file(dir, "empty_known_hosts", "");
	pid = fork();
	cr_assert_neq(pid, -1);
	if (pid == 0)
		_exit(ssh_fetches(url, path, empty));
	cr_assert_eq(waitpid(pid, &status, 0), pid);
	cr_assert(WIFEXITED(status));
	cr_assert_eq(WEXITSTATUS(status) & 1, 0, "an unknown host key was "
	    "not refused");
	cr_assert_eq(WEXITSTATUS(status) & 2, 0, "no known_hosts did not "
	    "refuse");
	cr_assert_eq(WEXITSTATUS(status) & 4, 0, "the known host key was "
	    "refused");
	cr_assert_eq(mirror_has(path, n1), 1);
	free(url);
	free(path);
	free(empty);
	free(n1);
}
