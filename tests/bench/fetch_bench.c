/* SPDX-License-Identifier: MIT */
/*
 * fetch_bench: the mirror's fetches against git's, side by side in one
 * run, on the generated 100,000-commit linux-next-like repository
 * (tests/fixtures/repogen) served by `git daemon` on 127.0.0.1:
 *
 *   - the first clone: repo/mirror.c (libgit2) into an empty path against
 *     `git clone --mirror`;
 *   - an incremental fetch of one new tag: mirror_fetch against
 *     `git fetch` in the git clone.
 *
 * Each is printed as the two wall-clock times and their ratio (libgit2 /
 * git); the runs alternate so that neither side gets a warmer cache.
 *
 *   fetch_bench --repogen PATH --dir DIR [--commits N] [--runs R]
 */
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>

#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <git2.h>

#include "common/xmalloc.h"
#include "repo/mirror.h"
#include "tests/support/tst.h"

/* tst.c forces LeakSanitizer checks; this release build has none. */
int	__lsan_do_recoverable_leak_check(void);
int
__lsan_do_recoverable_leak_check(void)
{
	return 0;
}

static void
fail(const char *what)
{
	fprintf(stderr, "fetch_bench: %s\n", what);
	exit(1);
}

static double
now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

/* Runs argv quietly; fails the benchmark when it fails. */
static void
run(char *const argv[])
{
	if (tst_run(argv) != 0) {
		fprintf(stderr, "fetch_bench: %s %s failed\n", argv[0],
		    argv[1]);
		exit(1);
	}
}

/* Seconds one git command takes. */
static double
time_git(char *const argv[])
{
	double t0 = now_s();

	run(argv);
	return now_s() - t0;
}

/* Seconds one mirror_fetch takes. */
static double
time_mirror(const char *url, const char *path)
{
	struct mirror_fetch_opts o = { .url = url, .path = path };
	struct bd_error err;
	double t0 = now_s();

	if (mirror_fetch(&o, &err) < 0)
		fail(err.msg);
	return now_s() - t0;
}

/* Both sides of one step, git first in even runs, libgit2 first in odd. */
static void
time_pair(int r, char *const git[], const char *url, const char *path,
    double *g, double *l)
{
	if (r % 2 == 0) {
		*g += time_git(git);
		*l += time_mirror(url, path);
	} else {
		*l += time_mirror(url, path);
		*g += time_git(git);
	}
}

/* git daemon on a free port serving dir; its pid. */
static pid_t
serve(const char *dir, int *portp)
{
	char port[32], base[1024], *exec, *nl;
	char *xargv[] = { "git", "--exec-path", NULL };
	int status, i;
	pid_t pid;

	if ((exec = tst_run_capture(xargv, &status)) == NULL)
		fail("git --exec-path");
	if ((nl = strchr(exec, '\n')) != NULL)
		*nl = '\0';
	xasprintf(&nl, "%s/git-daemon", exec);
	free(exec);
	*portp = tst_free_port();
	snprintf(port, sizeof(port), "--port=%d", *portp);
	snprintf(base, sizeof(base), "--base-path=%s", dir);
	if ((pid = fork()) == 0) {
		char *argv[] = { nl, "--reuseaddr", "--listen=127.0.0.1",
		    port, "--export-all", base, (char *)dir, NULL };

		prctl(PR_SET_PDEATHSIG, SIGKILL);
		execv(nl, argv);
		_exit(127);
	}
	free(nl);
	for (i = 0; i < 200; i++) {
		char url[128];

		snprintf(url, sizeof(url), "git://127.0.0.1:%d/up", *portp);
		{
			char *argv[] = { "git", "ls-remote", "-q", url,
			    "HEAD", NULL };

			if (tst_run(argv) == 0)
				return pid;
		}
		usleep(50 * 1000);
	}
	fail("git daemon does not serve");
	return -1;
}

/* One more tag on a new commit upstream, as a linux-next day adds. */
static void
add_tag(const char *up, int n)
{
	char tag[64], *out, *nl, *sha;
	char *tree[] = { "git", "-C", (char *)up, "rev-parse", "HEAD^{tree}",
	    NULL };
	int status;

	snprintf(tag, sizeof(tag), "next-bench-%d-%ld", n, (long)time(NULL));
	if ((out = tst_run_capture(tree, &status)) == NULL || status != 0)
		fail("rev-parse");
	if ((nl = strchr(out, '\n')) != NULL)
		*nl = '\0';
	{
		char *argv[] = { "git", "-C", (char *)up, "commit-tree", out,
		    "-p", "HEAD", "-m", tag, NULL };

		sha = tst_run_capture(argv, &status);
		if (sha == NULL || status != 0)
			fail("commit-tree");
	}
	if ((nl = strchr(sha, '\n')) != NULL)
		*nl = '\0';
	{
		char *argv[] = { "git", "-C", (char *)up, "tag", tag, sha,
		    NULL };

		run(argv);
	}
	free(out);
	free(sha);
}

int
main(int argc, char **argv)
{
	const char *repogen = NULL, *dir = NULL;
	long commits = 100000;
	int runs = 1, port, i, r;
	char *up, *url, *gm, *lm, n[32];
	double g1 = 0, l1 = 0, g2 = 0, l2 = 0;
	struct stat sb;
	pid_t gitd;

	for (i = 1; i + 1 < argc; i += 2) {
		if (strcmp(argv[i], "--repogen") == 0)
			repogen = argv[i + 1];
		else if (strcmp(argv[i], "--dir") == 0)
			dir = argv[i + 1];
		else if (strcmp(argv[i], "--commits") == 0)
			commits = atol(argv[i + 1]);
		else if (strcmp(argv[i], "--runs") == 0)
			runs = atoi(argv[i + 1]);
	}
	if (repogen == NULL || dir == NULL || runs < 1) {
		fprintf(stderr, "usage: fetch_bench --repogen PATH --dir DIR "
		    "[--commits N] [--runs R]\n");
		return 64;
	}
	mkdir(dir, 0755);
	xasprintf(&up, "%s/up", dir);
	if (stat(up, &sb) != 0) {
		char *gen[] = { (char *)repogen, "init", up, "-s", "1", "-n",
		    n, "-k", "next", NULL };

		snprintf(n, sizeof(n), "%ld", commits);
		printf("generating %s (%ld commits)\n", up, commits);
		run(gen);
	}
	git_libgit2_init();
	gitd = serve(dir, &port);
	xasprintf(&url, "git://127.0.0.1:%d/up", port);
	xasprintf(&gm, "%s/git-mirror.git", dir);
	xasprintf(&lm, "%s/libgit2-mirror.git", dir);
	for (r = 0; r < runs; r++) {
		char *rm[] = { "rm", "-rf", gm, lm, NULL };
		char *clone[] = { "git", "clone", "-q", "--mirror", url, gm,
		    NULL };
		char *fetch[] = { "git", "-C", gm, "fetch", "-q", "--prune",
		    "origin", NULL };

		run(rm);
		time_pair(r, clone, url, lm, &g1, &l1);
		add_tag(up, r);
		time_pair(r, fetch, url, lm, &g2, &l2);
	}
	printf("first clone of %ld commits (%d run%s, mean):\n"
	    "  git clone --mirror %8.2f s\n  libgit2 mirror     %8.2f s   "
	    "ratio libgit2/git %.2f\n", commits, runs, runs == 1 ? "" : "s",
	    g1 / runs, l1 / runs, l1 / g1);
	printf("incremental fetch of one new tag:\n"
	    "  git fetch          %8.3f s\n  libgit2 mirror     %8.3f s   "
	    "ratio libgit2/git %.2f\n", g2 / runs, l2 / runs, l2 / g2);
	kill(gitd, SIGTERM);
	waitpid(gitd, NULL, 0);
	git_libgit2_shutdown();
	free(up);
	free(url);
	free(gm);
	free(lm);
	return 0;
}
