/* SPDX-License-Identifier: MIT */
/*
 * The graph module against real git as the oracle, on repositories made by
 * tests/fixtures/repogen (linear runs, topic merges, octopus and
 * criss-cross merges, equal and skewed dates, linux-next tags):
 *
 *  - git_rev_list_*: repo_graph_load + graph_git_choice equal `git rev-list
 *    --bisect-vars` (commit, revisions left, steps, candidates) for
 *    random good and bad revisions, with and without --first-parent;
 *  - git_bisect_*: repo_next equals a real `git bisect` in a bare clone
 *    for random skipped commits and merge-base checks;
 *  - errors, the commit-graph file (and a broken one), `bisectctl next`.
 * Whole sessions against `git bisect run` are in graph_session_test.c.
 *
 * git always runs through argument vectors.  Each test has its own temp
 * directory, removed in fini also after a failed assertion.
 */
#include <sys/stat.h>
#include <sys/wait.h>

#include <criterion/criterion.h>
#include <dirent.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <git2.h>

#include "bisect/graph.h"
#include "common/xmalloc.h"
#include "tests/integration/graph_oracle.h"
#include "tests/support/daemon.h"
#include "tests/support/tst.h"

TestSuite(graph_oracle, .fini = tst_leak_check);

#define OTEST(name) Test(graph_oracle, name, .fini = graph_oracle_cleanup, \
    .timeout = 240)

/* Parses `git rev-list --bisect-vars` output. */
struct vars {
	char	rev[HEXSZ + 1];
	long	good;
	long	all;
	long	steps;
};

/* `git rev-list --bisect-vars`: git's choice with its counts. */
static void
bisect_vars(struct revs *rv, struct vars *v)
{
	struct av a;
	char *out, **l, *eq;
	size_t i, n;
	int st;

	graph_oracle_av_git(&a, graph_oracle.repo);
	if (graph_oracle.oracle_no_cg) {
		graph_oracle_av_add(&a, "-c");
		graph_oracle_av_add(&a, "core.commitGraph=false");
	}
	graph_oracle_av_add(&a, "rev-list");
	graph_oracle_av_add(&a, "--bisect-vars");
	if (rv->fp)
		graph_oracle_av_add(&a, "--first-parent");
	graph_oracle_av_range(&a, rv, 1);
	out = graph_oracle_run_out(&a, &st);
	memset(v, 0, sizeof(*v));
	if (st == 1 && out[0] == '\0') {	/* an empty range */
		free(out);
		return;
	}
	cr_assert_eq(st, 0);
	n = graph_oracle_lines(out, &l);
	for (i = 0; i < n; i++) {
		if ((eq = strchr(l[i], '=')) == NULL)
			continue;
		*eq++ = '\0';
		if (strcmp(l[i], "bisect_rev") == 0)
			snprintf(v->rev, sizeof(v->rev), "%.*s",
			    (int)strcspn(eq + 1, "'"), eq + 1);
		else if (strcmp(l[i], "bisect_good") == 0)
			v->good = strtol(eq, NULL, 10);
		else if (strcmp(l[i], "bisect_all") == 0)
			v->all = strtol(eq, NULL, 10);
		else if (strcmp(l[i], "bisect_steps") == 0)
			v->steps = strtol(eq, NULL, 10);
	}
	free(l);
	free(out);
}

/* repo_graph_load + graph_git_choice against `git rev-list --bisect-vars`. */
static void
rev_list_rounds(int rounds)
{
	struct commits all;
	struct revs rv;
	struct repo_revs gr;
	struct vars v;
	struct graph g;
	struct graph_choice c;
	struct bd_error err;
	char hex[HEXSZ + 1];
	int r, done = 0, rc;

	graph_oracle_commits_of(&all, "--all", NULL);
	for (r = 0; r < rounds; r++) {
		if (graph_oracle_pick_revs(&rv, &all, NULL) != 0)
			continue;
		graph_oracle_to_graph_revs(&rv, &gr, 0);
		bisect_vars(&rv, &v);
		rc = repo_graph_load(&g, graph_oracle.r, &gr.bad, gr.good,
		    gr.ngood, gr.flags, &err);
		if (v.all == 0) {
			cr_assert_eq(rc, -EINVAL, "round %d: empty range "
			    "loaded", r);
			continue;
		}
		cr_assert_eq(rc, 0, "round %d: %s", r, err.msg);
		cr_assert_eq(graph_git_choice(&g, NULL, 0, &c, &err), 0);
		graph_oid_tostr(hex, sizeof(hex), &g.oids[c.commit]);
		cr_assert_str_eq(hex, v.rev, "round %d: bad %s fp %d", r,
		    rv.bad, rv.fp);
		cr_assert_eq((long)c.all, v.all, "round %d", r);
		if (c.kind == GRAPH_CHOICE_TEST) {
			cr_assert_eq((long)c.left, v.good, "round %d", r);
			cr_assert_eq(c.steps, v.steps, "round %d", r);
		} else
			cr_assert_eq(c.kind, GRAPH_CHOICE_FOUND);
		graph_choice_release(&c);
		graph_release(&g);
		done++;
	}
	graph_oracle_commits_free(&all);
	cr_assert_gt(done, rounds / 2, "only %d of %d rounds compared", done,
	    rounds);
}

OTEST(git_rev_list_topics_normal_dates)
{
	graph_oracle_fixture("topics", "normal", 1, 2500);
	rev_list_rounds(45);
}

OTEST(git_rev_list_mixed_equal_dates)
{
	graph_oracle_fixture("mixed", "equal", 2, 2500);
	rev_list_rounds(45);
}

OTEST(git_rev_list_mixed_skewed_dates)
{
	graph_oracle_fixture("mixed", "skew", 3, 2500);
	rev_list_rounds(45);
}

OTEST(git_rev_list_linux_next)
{
	graph_oracle_fixture("next", "normal", 4, 3000);
	rev_list_rounds(45);
}

OTEST(git_rev_list_linear_and_skewed_next)
{
	graph_oracle_fixture("linear", "skew", 5, 800);
	rev_list_rounds(20);
	graph_oracle_cleanup();
	graph_oracle_fixture("next", "skew", 6, 3000);
	rev_list_rounds(40);
}

/* Skips: a few, half, all but bad, all, or one outside the range. */
static void
pick_skips(struct revs *rv, const struct commits *all)
{
	struct commits range, mb;
	struct av a;
	size_t i, k, choice = graph_oracle_rndn(8);
	int st;

	graph_oracle_av_git(&a, graph_oracle.repo);
	graph_oracle_av_add(&a, "rev-list");
	if (rv->fp)
		graph_oracle_av_add(&a, "--first-parent");
	graph_oracle_av_range(&a, rv, 1);
	range.buf = graph_oracle_run_out(&a, &st);
	range.n = graph_oracle_lines(range.buf, &range.v);
	k = choice < 3 ? 1 + graph_oracle_rndn(5) : choice == 3 ? range.n / 2 :
	    choice == 4 ? range.n - 1 : choice == 5 ? range.n : 0;
	if (k > MAXREV - 2)
		k = MAXREV - 2;
	for (i = 0; i < k && range.n > 0; i++) {
		const char *x = choice == 4 || choice == 5 ?
		    range.v[range.n - 1 - i] :
		    range.v[graph_oracle_rndn(range.n)];

		if (choice == 4 && strcmp(x, rv->bad) == 0)
			continue;
		if (!graph_oracle_in_list(rv->skip, rv->nskip, x))
			snprintf(rv->skip[rv->nskip++], HEXSZ + 1, "%s", x);
	}
	if (choice == 6)
		snprintf(rv->skip[rv->nskip++], HEXSZ + 1, "%s",
		    all->v[graph_oracle_rndn(all->n)]);
	if (choice == 7 || graph_oracle_rndn(4) == 0) {
		/* A merge base skipped: git warns and goes on. */
		graph_oracle_av_git(&a, graph_oracle.repo);
		graph_oracle_av_add(&a, "merge-base");
		graph_oracle_av_add(&a, "--all");
		graph_oracle_av_range(&a, rv, 0);
		mb.buf = graph_oracle_run_out(&a, &st);
		mb.n = graph_oracle_lines(mb.buf, &mb.v);
		if (mb.n > 0 &&
		    !graph_oracle_in_list(rv->skip, rv->nskip, mb.v[0]))
			snprintf(rv->skip[rv->nskip++], HEXSZ + 1, "%s",
			    mb.v[0]);
		graph_oracle_commits_free(&mb);
	}
	graph_oracle_commits_free(&range);
	if (rv->nskip == 0)
		snprintf(rv->skip[rv->nskip++], HEXSZ + 1, "%s", rv->bad);
}

/* repo_next against `git bisect start` then `git bisect skip ...`. */
static void
bisect_skip_rounds(int rounds, int with_tags)
{
	struct commits all, tags;
	struct revs rv;
	struct step gs, os;
	struct av a;
	char *out;
	size_t i;
	int r, st, ok, done = 0, kinds[5] = { 0 };

	graph_oracle_commits_of(&all, "--all", NULL);
	if (with_tags)
		graph_oracle_next_tags(&tags);
	graph_oracle_make_clone();
	for (r = 0; r < rounds; r++) {
		if (graph_oracle_pick_revs(&rv, &all, with_tags ? &tags :
		    NULL) != 0)
			continue;
		out = graph_oracle_git_bisect_start(&rv, &st);
		graph_oracle_parse_git_step(out, st, &gs);
		free(out);
		if (gs.kind == SK_ERROR) {
			/* A bad merge base: no skip can change that. */
			graph_oracle_our_step(&rv, 0, &os);
			graph_oracle_assert_same_step(&gs, &os, "start", r);
			graph_oracle_git_bisect_reset();
			continue;
		}
		if (gs.kind == SK_FOUND) {
			graph_oracle_git_bisect_reset();
			continue;
		}
		pick_skips(&rv, &all);
		graph_oracle_av_git(&a, graph_oracle.clone);
		graph_oracle_av_add(&a, "bisect");
		graph_oracle_av_add(&a, "skip");
		for (i = 0; i < rv.nskip; i++)
			graph_oracle_av_add(&a, "%s", rv.skip[i]);
		ok = graph_oracle_ancestors_ok();
		graph_oracle_our_step(&rv, ok ? REPO_GRAPH_ANCESTORS_OK : 0,
		    &os);
		out = graph_oracle_run_out(&a, &st);
		graph_oracle_parse_git_step(out, st, &gs);
		free(out);
		graph_oracle_assert_same_step(&gs, &os, "skip round", r);
		graph_oracle_git_bisect_reset();
		kinds[gs.kind]++;
		done++;
	}
	if (getenv("GRAPH_DEBUG") != NULL)
		fprintf(stderr, "kinds: test %d, merge base %d, first bad %d, "
		    "only skipped %d, error %d\n", kinds[0], kinds[1],
		    kinds[2], kinds[3], kinds[4]);
	graph_oracle_commits_free(&all);
	if (with_tags)
		graph_oracle_commits_free(&tags);
	cr_assert_gt(done, rounds / 3, "only %d of %d rounds compared", done,
	    rounds);
}

OTEST(git_bisect_skips_and_merge_bases_topics)
{
	graph_oracle_fixture("topics", "normal", 11, 2000);
	bisect_skip_rounds(30, 0);
}

OTEST(git_bisect_skips_and_merge_bases_mixed_equal_dates)
{
	graph_oracle_fixture("mixed", "equal", 12, 2000);
	bisect_skip_rounds(30, 0);
}

OTEST(git_bisect_skips_and_merge_bases_linux_next)
{
	graph_oracle_fixture("next", "normal", 13, 2500);
	bisect_skip_rounds(30, 1);
}

OTEST(git_bisect_skips_and_merge_bases_next_equal_dates)
{
	/* Merge bases with equal dates: git's order among them decides. */
	graph_oracle_fixture("next", "equal", 15, 2500);
	bisect_skip_rounds(20, 1);
}

OTEST(git_bisect_skips_and_merge_bases_skewed_next)
{
	graph_oracle_fixture("next", "skew", 14, 2500);
	bisect_skip_rounds(30, 1);
}

OTEST(errors_name_what_is_wrong)
{
	struct revs rv;
	struct repo_revs gr;
	struct repo_next nx;
	struct graph g;
	struct bd_error err;
	git_oid oid;
	char tip[HEXSZ + 1], old[HEXSZ + 1];

	graph_oracle_fixture("linear", "normal", 31, 60);
	cr_assert_eq(repo_rev_resolve(graph_oracle.r, "no-such-rev", &oid,
	    &err), -ENOENT);
	cr_assert_str_eq(err.msg, "unknown revision 'no-such-rev'");
	cr_assert_eq(repo_rev_resolve(graph_oracle.r, "main^{tree}", &oid,
	    &err), -EINVAL);
	cr_assert_not_null(strstr(err.msg, "does not name a commit"));
	graph_oracle_sha("main", tip);
	graph_oracle_sha("main~10", old);

	/* good equal to bad */
	memset(&rv, 0, sizeof(rv));
	snprintf(rv.bad, sizeof(rv.bad), "%s", tip);
	snprintf(rv.good[rv.ngood++], HEXSZ + 1, "%s", tip);
	graph_oracle_to_graph_revs(&rv, &gr, 0);
	cr_assert_eq(repo_next(graph_oracle.r, &gr, &nx, &err), -EINVAL);
	cr_assert_not_null(strstr(err.msg, "was both good and bad"), "%s",
	    err.msg);

	/* bad an ancestor of good: git's "merge base is bad", named */
	snprintf(rv.bad, sizeof(rv.bad), "%s", old);
	snprintf(rv.good[0], HEXSZ + 1, "%s", tip);
	graph_oracle_to_graph_revs(&rv, &gr, 0);
	cr_assert_eq(repo_next(graph_oracle.r, &gr, &nx, &err), -EINVAL);
	cr_assert_not_null(strstr(err.msg, "The merge base"), "%s", err.msg);
	cr_assert_not_null(strstr(err.msg, old), "%s", err.msg);
	cr_assert_not_null(strstr(err.msg, tip), "%s", err.msg);

	/* the same range loaded directly is empty */
	cr_assert_eq(repo_graph_load(&g, graph_oracle.r, &gr.bad, gr.good, 1, 0,
	    &err), -EINVAL);
	cr_assert_not_null(strstr(err.msg, "empty range"), "%s", err.msg);
}

/* Runs argv with stdin from a file. */
static int
run_stdin(char *const argv[], const char *in)
{
	pid_t pid = fork();
	int st, fd;

	cr_assert_neq(pid, -1);
	if (pid == 0) {
		fd = open(in, O_RDONLY);
		if (fd == -1)
			_exit(127);
		dup2(fd, 0);
		fd = open("/dev/null", O_WRONLY);
		dup2(fd, 1);
		execvp(argv[0], argv);
		_exit(127);
	}
	cr_assert_neq(waitpid(pid, &st, 0), -1);
	return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

/* The path of the only *.pack file in dir (caller frees). */
static char *
only_pack(const char *dir)
{
	struct dirent *de;
	char *found = NULL;
	size_t len;
	DIR *d = opendir(dir);

	cr_assert_not_null(d, "%s", dir);
	while ((de = readdir(d)) != NULL) {
		len = strlen(de->d_name);
		if (len > 5 && strcmp(de->d_name + len - 5, ".pack") == 0) {
			cr_assert_null(found, "more than one pack");
			xasprintf(&found, "%s/%s", dir, de->d_name);
		}
	}
	closedir(d);
	cr_assert_not_null(found, "no pack in %s", dir);
	return found;
}

OTEST(missing_objects_are_an_error)
{
	struct graph g;
	struct bd_error err;
	git_oid bad, good;
	char tip[HEXSZ + 1], old[HEXSZ + 1], mid[HEXSZ + 1];
	char *dir, *pack, *moved, *path;
	char *unpack[] = { "git", "-C", NULL, "unpack-objects", "-q", NULL };

	graph_oracle_fixture("linear", "normal", 32, 60);
	graph_oracle_sha("main", tip);
	graph_oracle_sha("main~30", old);
	graph_oracle_sha("main~12", mid);
	/* Loose objects, so that one commit can be removed. */
	free(graph_oracle_git(graph_oracle.repo, "repack", "-a", "-d", "-q",
	    NULL));
	xasprintf(&dir, "%s/.git/objects/pack", graph_oracle.repo);
	pack = only_pack(dir);
	xasprintf(&moved, "%s/objects.pack", graph_oracle.tmp);
	cr_assert_eq(rename(pack, moved), 0);
	strcpy(pack + strlen(pack) - 5, ".idx");
	cr_assert_eq(unlink(pack), 0, "%s", pack);
	unpack[2] = graph_oracle.repo;
	cr_assert_eq(run_stdin(unpack, moved), 0);
	xasprintf(&path, "%s/.git/objects/%.2s/%s", graph_oracle.repo, mid,
	    mid + 2);
	cr_assert_eq(unlink(path), 0, "%s", path);
	free(path);
	free(moved);
	free(pack);
	free(dir);
	/* libgit2 caches packs: reopen. */
	git_repository_free(graph_oracle.r);
	cr_assert_eq(git_repository_open(&graph_oracle.r, graph_oracle.repo),
	    0);
	graph_oracle_oid_of(tip, &bad);
	graph_oracle_oid_of(old, &good);
	cr_assert_eq(repo_graph_load(&g, graph_oracle.r, &bad, &good, 1, 0,
	    &err), -EIO);
	cr_assert_not_null(strstr(err.msg, mid), "%s", err.msg);
	cr_assert_not_null(strstr(err.msg, "missing"), "%s", err.msg);
}

/* A commit-graph file (octopus merges need its extra edge list). */
OTEST(commit_graph_file_gives_the_same_answers)
{
	struct commits cg;
	char *path;
	int fd;

	graph_oracle_fixture("mixed", "normal", 41, 2500);
	free(graph_oracle_git(graph_oracle.repo, "commit-graph", "write",
	    "--reachable", NULL));
	git_repository_free(graph_oracle.r);
	cr_assert_eq(git_repository_open(&graph_oracle.r, graph_oracle.repo),
	    0);
	rev_list_rounds(30);
	/* A truncated file is ignored, and the answers stay right. */
	cg.buf = graph_oracle_git(graph_oracle.repo, "rev-parse", "--git-path",
	    "objects/info/commit-graph", NULL);
	cg.buf[strcspn(cg.buf, "\n")] = '\0';
	xasprintf(&path, "%s/%s", graph_oracle.repo, cg.buf);
	free(cg.buf);
	fd = open(path, O_WRONLY);
	cr_assert_neq(fd, -1, "%s", path);
	cr_assert_eq(ftruncate(fd, 4096), 0);
	close(fd);
	free(path);
	git_repository_free(graph_oracle.r);
	cr_assert_eq(git_repository_open(&graph_oracle.r, graph_oracle.repo),
	    0);
	graph_oracle.oracle_no_cg = 1;
	rev_list_rounds(20);
}

/* `bisectctl next` ($BISECTCTL_BIN) with stdout and stderr together. */
static char *
ctl(int *status, const char *a1, const char *a2, const char *a3,
    const char *a4, const char *a5, const char *a6, const char *a7,
    const char *a8)
{
	const char *argv[] = { tst_env_path("BISECTCTL_BIN"), "next", "--repo",
	    graph_oracle.repo, a1, a2, a3, a4, a5, a6, a7, a8, NULL };

	return tst_daemon_run_both(argv, status);
}

OTEST(bisectctl_next_prints_what_git_would_do)
{
	struct revs rv;
	struct vars v;
	char *out, want[256], tip[HEXSZ + 1], t1[HEXSZ + 1];
	int st;

	graph_oracle_fixture("linear", "normal", 51, 100);
	graph_oracle_sha("main", tip);
	graph_oracle_sha("main~1", t1);

	out = ctl(&st, "--bad", "main", NULL, NULL, NULL, NULL, NULL, NULL);
	cr_assert_eq(st, 2, "%s", out);
	cr_assert_not_null(strstr(out, "usage: bisectctl next"), "%s", out);
	free(out);

	out = ctl(&st, "--bad", "nope", "--good", "main~3", NULL, NULL, NULL,
	    NULL);
	cr_assert_eq(st, 1, "%s", out);
	cr_assert_not_null(strstr(out, "unknown revision 'nope'"), "%s", out);
	free(out);

	memset(&rv, 0, sizeof(rv));
	snprintf(rv.bad, sizeof(rv.bad), "%s", tip);
	graph_oracle_sha("main~40", rv.good[rv.ngood++]);
	bisect_vars(&rv, &v);
	snprintf(want, sizeof(want), "%s\nBisecting: %ld revision%s left to "
	    "test after this (roughly %ld step%s)\n", v.rev, v.good,
	    v.good == 1 ? "" : "s", v.steps, v.steps == 1 ? "" : "s");
	out = ctl(&st, "--bad", "main", "--good", "main~40", NULL, NULL, NULL,
	    NULL);
	cr_assert_eq(st, 0, "%s", out);
	cr_assert_str_eq(out, want);
	free(out);

	out = ctl(&st, "--bad", "main", "--good=main~1", NULL, NULL, NULL,
	    NULL, NULL);
	snprintf(want, sizeof(want), "first bad commit: %s\n", tip);
	cr_assert_eq(st, 0, "%s", out);
	cr_assert_str_eq(out, want);
	free(out);

	out = ctl(&st, "--bad", "main", "--good", "main~2", "--skip", "main~1",
	    NULL, NULL);
	snprintf(want, sizeof(want), "only skipped commits left: the first "
	    "bad commit could be any of:\n%s\n%s\n", t1, tip);
	cr_assert_eq(st, 0, "%s", out);
	cr_assert_str_eq(out, want);
	free(out);

	out = ctl(&st, "--bad", "main~10", "--good", "main", NULL, NULL, NULL,
	    NULL);
	cr_assert_eq(st, 1, "%s", out);
	cr_assert_not_null(strstr(out, "The merge base"), "%s", out);
	free(out);
}

OTEST(bisectctl_next_asks_for_merge_bases_on_linux_next)
{
	struct commits tags;
	struct revs rv;
	struct step gs;
	char *out, want[256];
	int st;

	graph_oracle_fixture("next", "normal", 52, 1500);
	graph_oracle_next_tags(&tags);
	cr_assert_geq(tags.n, 3);
	graph_oracle_make_clone();
	memset(&rv, 0, sizeof(rv));
	snprintf(rv.bad, sizeof(rv.bad), "%s", tags.v[tags.n - 1]);
	snprintf(rv.good[rv.ngood++], HEXSZ + 1, "%s", tags.v[tags.n - 3]);
	out = graph_oracle_git_bisect_start(&rv, &st);
	graph_oracle_parse_git_step(out, st, &gs);
	free(out);
	graph_oracle_git_bisect_reset();
	cr_assert_eq(gs.kind, SK_MERGE_BASE, "the older tag is an ancestor?");
	snprintf(want, sizeof(want), "%s\nBisecting: a merge base must be "
	    "tested\n", gs.commit);
	out = ctl(&st, "--bad", rv.bad, "--good", rv.good[0], NULL, NULL,
	    NULL, NULL);
	cr_assert_eq(st, 0, "%s", out);
	cr_assert_str_eq(out, want);
	free(out);
	graph_oracle_commits_free(&tags);
}
