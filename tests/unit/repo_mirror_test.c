/*
 * repo/mirror.c without the daemon: libgit2's own first clone (the path
 * ssh:// urls take) of a file:// upstream, watched refs by glob and peeled
 * to commits, a cancelled fetch, keep refs, and bad urls.
 */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <git2.h>

#include "common/xmalloc.h"
#include "repo/mirror.h"
#include "tests/support/tst.h"

static char *dir;

/*
 * libgit2 1.5 matches config keys through pcre2 10.42, whose match frames
 * it never frees (Debian 12): not ours to fix, so LeakSanitizer in this
 * runner ignores allocations made inside libpcre2 only.
 */
const char *__lsan_default_suppressions(void);
const char *
__lsan_default_suppressions(void)
{
	return "leak:libpcre2-8.so\n";
}

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
