/* SPDX-License-Identifier: MIT */
/*
 * repo/revert against git: the revert of a culprit on top of bad has the
 * tree `git revert` makes there, conflicts name their files, and the diff
 * flags (merge, Documentation/, comments, tools/, another arch) hold on
 * small repositories made with git.
 */
#include <criterion/criterion.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <git2.h>

#include "common/xmalloc.h"
#include "repo/revert.h"
#include "tests/support/tst.h"

static char		*rt_dir;
static git_repository	*rt_repo;

static void
rt_fini(void)
{
	git_repository_free(rt_repo);
	rt_repo = NULL;
	git_libgit2_shutdown();
	tst_rmrf(rt_dir);
	free(rt_dir);
	rt_dir = NULL;
	tst_leak_check();
}

TestSuite(revert, .fini = rt_fini);

/* Runs a shell script in the test repository; returns its stdout. */
static char *
rt_sh(const char *script)
{
	char *full, *out;
	int status;

	xasprintf(&full, "set -e; cd '%s'; export GIT_AUTHOR_DATE='1700000000 "
	    "+0000' GIT_COMMITTER_DATE='1700000000 +0000'; %s", rt_dir,
	    script);
	{
		char *argv[] = { "sh", "-c", full, NULL };

		out = tst_run_capture(argv, &status);
	}
	cr_assert_eq(status, 0, "script failed: %s\n%s", script, out);
	free(full);
	return out;
}

/* A repository with one commit holding a.c and Documentation/x.txt. */
static void
rt_repo_init(const char *tag)
{
	char *out;

	git_libgit2_init();
	cr_assert_not_null(rt_dir = tst_tmpdir(tag));
	out = rt_sh("git init -q -b master . && git config user.name T && "
	    "git config user.email t@example.org && mkdir -p Documentation "
	    "tools arch/x86 arch/arm64 && printf 'int a = 1;\\n/* note */\\n"
	    "int b = 2;\\n' > a.c && echo doc > Documentation/x.txt && echo t "
	    "> tools/t.c && echo x > arch/x86/k.c && echo y > arch/arm64/k.c "
	    "&& git add . && git commit -q -m init");
	free(out);
	cr_assert_eq(git_repository_open(&rt_repo, rt_dir), 0);
}

/* The commit id of a revision. */
static void
rt_oid(const char *rev, git_oid *oid)
{
	char *cmd, *out;

	xasprintf(&cmd, "git rev-parse '%s'", rev);
	out = rt_sh(cmd);
	cr_assert_eq(git_oid_fromstrn(oid, out, 40), 0, "%s", out);
	free(out);
	free(cmd);
}

/* Commits a change made by script; returns nothing, HEAD names it. */
static void
rt_commit(const char *script, const char *msg)
{
	char *cmd, *out;

	xasprintf(&cmd, "%s && git add -A && git commit -q -m '%s'", script,
	    msg);
	out = rt_sh(cmd);
	free(out);
	free(cmd);
}

static unsigned
rt_flags(const char *rev, const char *arch)
{
	struct bd_error err;
	unsigned flags = ~0u;
	git_oid oid;

	rt_oid(rev, &oid);
	cr_assert_eq(repo_suspect(rt_repo, &oid, arch, &flags, &err), 0, "%s",
	    err.msg);
	return flags;
}

Test(revert, a_clean_revert_has_gits_tree_on_top_of_bad)
{
	struct repo_revert r, r2;
	struct bd_error err;
	git_oid culprit, bad, want, parent;
	git_commit *c;
	git_reference *ref;
	char *out;

	rt_repo_init("rv-clean");
	rt_commit("sed -i 's/int a = 1/int a = 3/' a.c", "culprit");
	rt_oid("HEAD", &culprit);
	rt_commit("echo more >> Documentation/x.txt", "later");
	rt_commit("echo 'int c;' >> a.c", "later still");
	rt_oid("HEAD", &bad);
	cr_assert_eq(repo_revert_make(rt_repo, &culprit, &bad, 7, &r, &err), 0,
	    "%s", err.msg);
	cr_assert(r.applied);
	cr_assert_eq(r.nconflicts, 0);
	/* git, in a scratch branch, is the oracle for the tree. */
	out = rt_sh("git checkout -q -b oracle && git revert --no-edit HEAD~2 "
	    ">/dev/null && git checkout -q master");
	free(out);
	rt_oid("oracle^{tree}", &want);
	cr_assert_eq(git_commit_lookup(&c, rt_repo, &r.commit), 0);
	cr_assert(git_oid_equal(git_commit_tree_id(c), &want), "tree differs "
	    "from git revert's");
	cr_assert_eq(git_commit_parentcount(c), 1);
	git_oid_cpy(&parent, git_commit_parent_id(c, 0));
	cr_assert(git_oid_equal(&parent, &bad), "the parent is bad");
	cr_assert_not_null(strstr(git_commit_message(c), "Revert \"culprit\""));
	git_commit_free(c);
	cr_assert_eq(git_reference_lookup(&ref, rt_repo,
	    "refs/bisectd/revert/7"), 0);
	cr_assert(git_oid_equal(git_reference_target(ref), &r.commit));
	git_reference_free(ref);
	/* Made again (after a restart), it is the same commit. */
	cr_assert_eq(repo_revert_make(rt_repo, &culprit, &bad, 7, &r2, &err),
	    0);
	cr_assert(git_oid_equal(&r.commit, &r2.commit));
	repo_revert_release(&r);
	repo_revert_release(&r2);
}

Test(revert, a_conflict_names_its_files_and_writes_nothing)
{
	struct repo_revert r;
	struct bd_error err;
	git_oid culprit, bad;
	git_reference *ref = NULL;

	rt_repo_init("rv-conflict");
	rt_commit("sed -i 's/int a = 1/int a = 3/' a.c", "culprit");
	rt_oid("HEAD", &culprit);
	rt_commit("sed -i 's/int a = 3/int a = 4/' a.c", "rewrites the line");
	rt_oid("HEAD", &bad);
	cr_assert_eq(repo_revert_make(rt_repo, &culprit, &bad, 3, &r, &err), 0,
	    "%s", err.msg);
	cr_assert_not(r.applied);
	cr_assert_eq(r.nconflicts, 1);
	cr_assert_eq(r.nconflicts_total, 1);
	cr_assert_str_eq(r.conflicts[0], "a.c");
	cr_assert_neq(git_reference_lookup(&ref, rt_repo,
	    "refs/bisectd/revert/3"), 0);
	repo_revert_release(&r);
}

Test(revert, a_merge_reverts_against_its_mainline_and_is_flagged)
{
	struct repo_revert r;
	struct bd_error err;
	git_oid merge, bad, want;
	git_commit *c;
	char *out;

	rt_repo_init("rv-merge");
	out = rt_sh("git checkout -q -b topic && echo 'int t;' > t.c && "
	    "git add t.c && git commit -q -m topic && git checkout -q master "
	    "&& echo m >> Documentation/x.txt && git commit -q -am main && "
	    "git merge -q --no-ff -m merge topic");
	free(out);
	rt_oid("HEAD", &merge);
	rt_commit("echo 'int z;' >> a.c", "after");
	rt_oid("HEAD", &bad);
	cr_assert_eq(rt_flags("HEAD~1", NULL) & REPO_SUSPECT_MERGE,
	    REPO_SUSPECT_MERGE);
	cr_assert_eq(rt_flags("HEAD", NULL), 0, "a code change is not flagged");
	cr_assert_eq(repo_revert_make(rt_repo, &merge, &bad, 1, &r, &err), 0,
	    "%s", err.msg);
	cr_assert(r.applied);
	out = rt_sh("git checkout -q -b oracle && git revert --no-edit -m 1 "
	    "HEAD~1 >/dev/null && git checkout -q master");
	free(out);
	rt_oid("oracle^{tree}", &want);
	cr_assert_eq(git_commit_lookup(&c, rt_repo, &r.commit), 0);
	cr_assert(git_oid_equal(git_commit_tree_id(c), &want));
	git_commit_free(c);
	repo_revert_release(&r);
}

Test(revert, the_diff_flags_documentation_comments_tools_and_other_arches)
{
	rt_repo_init("rv-flags");
	rt_commit("echo more >> Documentation/x.txt", "docs");
	cr_assert_eq(rt_flags("HEAD", NULL), REPO_SUSPECT_DOCS);
	rt_commit("sed -i 's|/\\* note \\*/|/* a longer note */|' a.c && "
	    "printf '\\n// more\\n' >> a.c", "comments");
	cr_assert_eq(rt_flags("HEAD", NULL), REPO_SUSPECT_COMMENTS);
	rt_commit("echo u >> tools/t.c", "tools");
	cr_assert_eq(rt_flags("HEAD", NULL), REPO_SUSPECT_TOOLS);
	rt_commit("echo z >> arch/arm64/k.c", "arm64");
	cr_assert_eq(rt_flags("HEAD", NULL), REPO_SUSPECT_OTHER_ARCH);
	cr_assert_eq(rt_flags("HEAD", "arm64"), 0, "our own arch is code");
	rt_commit("echo z >> arch/x86/k.c", "x86");
	cr_assert_eq(rt_flags("HEAD", NULL), 0, "x86 is the default");
	cr_assert_eq(rt_flags("HEAD", "arm64"), REPO_SUSPECT_OTHER_ARCH);
	rt_commit("echo more >> Documentation/x.txt && echo 'int q;' >> a.c",
	    "docs and code");
	cr_assert_eq(rt_flags("HEAD", NULL), 0);
	cr_assert_not_null(repo_suspect_text(REPO_SUSPECT_MERGE));
	cr_assert_null(repo_suspect_text(1u << 30));
}
