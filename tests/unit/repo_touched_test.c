/* SPDX-License-Identifier: MIT */
/*
 * The functions a commit touches (repo/touched.c) on real C diffs made by
 * git, and the recipients MAINTAINERS proposes (repo/maintainers.c) for
 * the paths a diff changes.
 */
#include <criterion/criterion.h>
#include <git2.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/xmalloc.h"
#include "repo/maintainers.h"
#include "repo/touched.h"
#include "tests/support/tst.h"

TestSuite(repo_touched, .fini = tst_leak_check);

static const char a_before[] =
    "#include <stdio.h>\n"
    "\n"
    "static int counter;\n"
    "\n"
    "struct foo {\n"
    "\tint a;\n"
    "\tint b;\n"
    "};\n"
    "\n"
    "static int\n"
    "__percpu_counter_sum(struct foo *f)\n"
    "{\n"
    "\tint s = 0;\n"
    "\n"
    "\ts += f->a;\n"
    "\tif (s < 0)\n"
    "\t\tgoto out;\n"
    "\ts += f->b;\n"
    "out:\n"
    "\treturn s;\n"
    "}\n"
    "\n"
    "int helper(int x)\n"
    "{\n"
    "\treturn x + 1;\n"
    "}\n"
    "\n"
    "/* untouched's comment */\n"
    "void untouched(void)\n"
    "{\n"
    "\tcounter++;\n"
    "}\n"
    "\n"
    "static int\n"
    "retyped(void)\n"
    "{\n"
    "\treturn 0;\n"
    "}\n"
    "\n"
    "static void removed_fn(void)\n"
    "{\n"
    "\tcounter--;\n"
    "}\n";

/*
 * The culprit: a line under a goto label, a struct member, a global, a
 * header's own line, a return type on its own line, a deleted and an added
 * function, a comment between functions; a static inline in a header; a
 * Makefile whose "all:" would look like a header.
 */
static const char a_after[] =
    "#include <stdio.h>\n"
    "\n"
    "static long counter;\n"
    "\n"
    "struct foo {\n"
    "\tint a;\n"
    "\tlong b;\n"
    "};\n"
    "\n"
    "static int\n"
    "__percpu_counter_sum(struct foo *f)\n"
    "{\n"
    "\tint s = 0;\n"
    "\n"
    "\ts += f->a;\n"
    "\tif (s < 0)\n"
    "\t\tgoto out;\n"
    "\ts += f->b;\n"
    "out:\n"
    "\treturn s + 0;\n"
    "}\n"
    "\n"
    "long helper(int x)\n"
    "{\n"
    "\treturn x + 1;\n"
    "}\n"
    "\n"
    "/* untouched's comment, reworded */\n"
    "void untouched(void)\n"
    "{\n"
    "\tcounter++;\n"
    "}\n"
    "\n"
    "static long\n"
    "retyped(void)\n"
    "{\n"
    "\treturn 0;\n"
    "}\n"
    "\n"
    "int added(void)\n"
    "{\n"
    "\treturn 2;\n"
    "}\n";

static char *dir;

/* Commits the files of one step with git itself; returns the new sha. */
static char *
tt_commit(const char *a, const char *h, const char *mk)
{
	char *argv[] = { "sh", "-c", NULL, NULL };
	char *out, *nl;
	int status;

	free(tst_write_file(dir, "a.c", a));
	free(tst_write_file(dir, "b.h", h));
	free(tst_write_file(dir, "Makefile", mk));
	xasprintf(&argv[2], "cd '%s' && (test -d .git || git init -q) && "
	    "git add -A && git commit -q -m step && git rev-parse HEAD", dir);
	out = tst_run_capture(argv, &status);
	free(argv[2]);
	cr_assert_eq(status, 0, "%s", out);
	if ((nl = strchr(out, '\n')) != NULL)
		*nl = '\0';
	return out;
}

static void
tt_touched(const char *sha, struct repo_touched *t)
{
	git_repository *repo;
	struct bd_error err;
	git_oid oid;

	cr_assert_eq(git_repository_open(&repo, dir), 0);
	cr_assert_eq(git_oid_fromstr(&oid, sha), 0);
	repo_touched_init(t);
	cr_assert_eq(repo_touched_get(repo, &oid, t, &err), 0, "%s", err.msg);
	git_repository_free(repo);
}

static void
tt_setup(void)
{
	git_libgit2_init();
	dir = tst_tmpdir("touched");
}

static void
tt_teardown(void)
{
	tst_rmrf(dir);
	free(dir);
	git_libgit2_shutdown();
}

Test(repo_touched, the_functions_of_a_real_c_diff,
    .init = tt_setup, .fini = tt_teardown)
{
	static const char *const want[] = { "__percpu_counter_sum", "added",
	    "helper", "inl", "removed_fn", "retyped" };
	static const char *const paths[] = { "Makefile", "a.c", "b.h" };
	struct repo_touched t;
	char *c1, *c2;
	size_t i;

	c1 = tt_commit(a_before, "static inline int inl(void)\n{\n\treturn 1;"
	    "\n}\n", "all:\n\tcc a.c\n");
	c2 = tt_commit(a_after, "static inline int inl(void)\n{\n\treturn 2;"
	    "\n}\n", "all:\n\tcc -O2 a.c\n");
	tt_touched(c2, &t);
	for (i = 0; i < t.n_functions; i++)
		cr_log_info("touched: %s", t.functions[i]);
	cr_assert_eq(t.n_functions, sizeof(want) / sizeof(want[0]));
	for (i = 0; i < t.n_functions; i++)
		cr_expect_str_eq(t.functions[i], want[i]);
	cr_assert_eq(t.n_functions_total, t.n_functions);
	cr_assert_eq(t.n_paths, 3);
	for (i = 0; i < t.n_paths; i++)
		cr_expect_str_eq(t.paths[i], paths[i]);
	repo_touched_release(&t);
	/* A root commit is diffed against the empty tree. */
	tt_touched(c1, &t);
	cr_expect_eq(t.n_functions, 6, "%zu", t.n_functions);
	repo_touched_release(&t);
	free(c1);
	free(c2);
}

/*
 * git's own function context is the oracle for the headers: every name
 * git diff puts after a hunk's "@@" is one repo_touched_header() takes,
 * with diff=cpp for C files as the kernel's .gitattributes sets it.
 */
Test(repo_touched, headers_agree_with_git_hunk_headers,
    .init = tt_setup, .fini = tt_teardown)
{
	char *argv[] = { "sh", "-c", NULL, NULL };
	char *out, *line, *save = NULL, *c2, name[128];
	int status, seen = 0;

	free(tst_write_file(dir, ".gitattributes", "*.c diff=cpp\n"));
	free(tt_commit(a_before, "\n", "\n"));
	c2 = tt_commit(a_after, "\n", "\n");
	xasprintf(&argv[2], "cd '%s' && git -c diff.noprefix=false diff -U0 "
	    "HEAD~1 HEAD -- a.c | sed -n 's/^@@ [^@]* @@ //p'", dir);
	out = tst_run_capture(argv, &status);
	free(argv[2]);
	cr_assert_eq(status, 0);
	for (line = strtok_r(out, "\n", &save); line != NULL;
	    line = strtok_r(NULL, "\n", &save)) {
		cr_expect(repo_touched_header(line, strlen(line), name,
		    sizeof(name)), "git's header %s", line);
		seen++;
	}
	cr_assert_gt(seen, 3);
	free(out);
	free(c2);
}

Test(repo_touched, header_rule_of_c)
{
	char name[64];

	cr_assert(repo_touched_header("int foo(void)", 13, name,
	    sizeof(name)));
	cr_expect_str_eq(name, "foo");
	cr_assert(repo_touched_header("static void __init bar (int x)", 30,
	    name, sizeof(name)));
	cr_expect_str_eq(name, "bar");
	cr_assert_not(repo_touched_header("out:", 4, name, sizeof(name)));
	cr_assert_not(repo_touched_header("err_free: /* x */", 17, name,
	    sizeof(name)));
	cr_assert_not(repo_touched_header("\tint x;", 7, name, sizeof(name)));
	cr_assert_not(repo_touched_header("#define X(a) a", 14, name,
	    sizeof(name)));
	cr_assert(repo_touched_header("EXPORT_SYMBOL(foo);", 19, name,
	    sizeof(name)));
	cr_expect_str_eq(name, "");
	cr_assert(repo_touched_header("static int x = f(1),", 20, name,
	    sizeof(name)));
	cr_expect_str_eq(name, "");
	cr_assert(repo_touched_header("struct foo {", 12, name, sizeof(name)));
	cr_expect_str_eq(name, "");
}

static const char maintainers[] =
    "List of maintainers\n"
    "===================\n"
    "\n"
    "Descriptions of section entries and preferred order\n"
    "\n"
    "\tM: *Mail* patches to: FullName <address@domain>\n"
    "\tF: *Files* and directories wildcard patterns.\n"
    "\n"
    "PER-CPU MEMORY ALLOCATOR\n"
    "M:\tDennis Zhou <dennis@kernel.org>\n"
    "M:\tTejun Heo <tj@kernel.org>\n"
    "L:\tlinux-mm@kvack.org\n"
    "S:\tMaintained\n"
    "F:\tlib/percpu*.c\n"
    "F:\tinclude/linux/percpu*.h\n"
    "\n"
    "MEMORY MANAGEMENT\n"
    "M:\tAndrew Morton <akpm@linux-foundation.org>\n"
    "L:\tlinux-mm@kvack.org\n"
    "F:\tmm/\n"
    "X:\tmm/kasan/\n"
    "\n"
    "KASAN\n"
    "R:\tAlexander Potapenko <glider@google.com>\n"
    "L:\tkasan-dev@googlegroups.com (moderated for non-subscribers)\n"
    "F:\tmm/kasan/\n"
    "\n"
    "DRM DRIVERS\n"
    "M:\tDave Airlie <airlied@gmail.com>\n"
    "F:\tdrivers/gpu\n"
    "\n"
    "SYSTEM CALLS\n"
    "M:\tSys Caller <sys@example.org>\n"
    "F:\tkernel/sys.c\n"
    "F:\tinclude/linux/syscalls.h\n"
    "\n"
    "COUNTERS BY NAME\n"
    "M:\tNamed Person <named@example.org>\n"
    "M:\tTejun Heo <TJ@kernel.org>\n"
    "N:\tpercpu_counter\n"
    "\n"
    "THE REST\n"
    "M:\tLinus Torvalds <torvalds@linux-foundation.org>\n"
    "L:\tlinux-kernel@vger.kernel.org\n"
    "F:\t*\n"
    "F:\t*/\n";

/* How often mt_is_dir was asked (each is a tree lookup in the daemon). */
static unsigned mt_lookups;

static bool
mt_is_dir(void *arg, const char *path)
{
	(void)arg;
	mt_lookups++;
	return strcmp(path, "drivers/gpu") == 0;
}

/* Matches one path; to and cc joined with ", " for the assertions. */
static void
mt_match(const char *path, bool dirs, char **to, char **cc)
{
	struct repo_maint m;
	char *s;
	size_t i;

	repo_maint_init(&m);
	repo_maint_match(maintainers, strlen(maintainers), &path, 1,
	    dirs ? mt_is_dir : NULL, NULL, &m);
	*to = xstrdup("");
	*cc = xstrdup("");
	for (i = 0; i < m.n_to; i++) {
		xasprintf(&s, "%s%s%s", *to, i ? ", " : "", m.to[i]);
		free(*to);
		*to = s;
	}
	for (i = 0; i < m.n_cc; i++) {
		xasprintf(&s, "%s%s%s", *cc, i ? ", " : "", m.cc[i]);
		free(*cc);
		*cc = s;
	}
	repo_maint_release(&m);
}

Test(repo_touched, maintainers_as_get_maintainer_matches_files)
{
	char *to, *cc;

	mt_match("lib/percpu_counter.c", false, &to, &cc);
	cr_expect_str_eq(to, "Dennis Zhou <dennis@kernel.org>, Tejun Heo "
	    "<tj@kernel.org>, Named Person <named@example.org>");
	cr_expect_str_eq(cc, "linux-mm@kvack.org");
	free(to);
	free(cc);
	/* Excluded from mm/ by X:, a reviewer's and a moderated list. */
	mt_match("mm/kasan/init.c", false, &to, &cc);
	cr_expect_str_eq(to, "");
	cr_expect_str_eq(cc, "Alexander Potapenko <glider@google.com>, "
	    "kasan-dev@googlegroups.com");
	free(to);
	free(cc);
	/* A pattern without '/' matches below only if it is a directory. */
	mt_lookups = 0;
	mt_match("drivers/gpu/drm/drm_drv.c", true, &to, &cc);
	cr_expect_str_eq(to, "Dave Airlie <airlied@gmail.com>");
	/* Only a pattern whose glob matches costs a lookup. */
	cr_expect_eq(mt_lookups, 1);
	free(to);
	free(cc);
	mt_lookups = 0;
	mt_match("kernel/sys.c", true, &to, &cc);
	cr_expect_str_eq(to, "Sys Caller <sys@example.org>");
	cr_expect_eq(mt_lookups, 0, "an exact path needs no lookup");
	free(to);
	free(cc);
	mt_match("drivers/gpu/drm/drm_drv.c", false, &to, &cc);
	cr_expect_str_eq(to, "Linus Torvalds <torvalds@linux-foundation.org>");
	cr_expect_str_eq(cc, "linux-kernel@vger.kernel.org");
	free(to);
	free(cc);
	/* A glob does not reach deeper than its own slashes. */
	mt_match("lib/percpu/x.c", false, &to, &cc);
	cr_expect_str_eq(to, "Linus Torvalds <torvalds@linux-foundation.org>");
	free(to);
	free(cc);
}
