/* SPDX-License-Identifier: MIT */
/*
 * tests/support/layering.sh, which `make test` runs before this runner, on
 * small trees written here: it must name every kind of violation and pass
 * what the rules allow, so that a green run means the check still bites.
 */
#include <sys/stat.h>

#include <criterion/criterion.h>
#include <stdlib.h>
#include <string.h>

#include "common/xmalloc.h"
#include "tests/support/tst.h"

TestSuite(layering, .fini = tst_leak_check);

/* A file in a module directory of tree, created as needed. */
static void
put(const char *tree, const char *mod, const char *name, const char *text)
{
	char *dir, *path;

	xasprintf(&dir, "%s/%s", tree, mod);
	mkdir(dir, 0755);
	path = tst_write_file(dir, name, text);
	cr_assert_not_null(path, "cannot write %s/%s", dir, name);
	free(path);
	free(dir);
}

/* Runs the script on tree; returns its output, *status its exit status. */
static char *
check(const char *tree, int *status)
{
	const char *src = getenv("BISECTD_SRCDIR");
	char *script, *out;

	cr_assert_not_null(src, "BISECTD_SRCDIR is not set");
	xasprintf(&script, "%s/tests/support/layering.sh", src);
	out = tst_run_capture((char *const[]){ "sh", script, (char *)tree,
	    NULL }, status);
	free(script);
	cr_assert_not_null(out);
	return out;
}

Test(layering, the_source_tree_passes)
{
	const char *src = getenv("BISECTD_SRCDIR");
	char *out;
	int status;

	cr_assert_not_null(src, "BISECTD_SRCDIR is not set");
	out = check(src, &status);
	cr_assert_eq(status, 0, "%s", out);
	cr_assert_not_null(strstr(out, "files checked"), "%s", out);
	free(out);
}

Test(layering, every_kind_of_violation_is_named)
{
	char *tree = tst_tmpdir("layering"), *out;
	int status;

	put(tree, "bisect", "io.c", "#include <git2.h>\n#include <uv.h>\n"
	    "static int f(void) { return open(\"x\", 0); }\n");
	put(tree, "bisect", "map.h", "#include  <sqlite3.h>\n"
	    "void *m = mmap (0, 1, 0, 0, -1, 0);\n"
	    "FILE *f = fopen(p, \"r\");\n");
	put(tree, "bisect", "fs.c", "#include <fcntl.h>\n"
	    "# include <sys/mman.h>\n");
	put(tree, "config", "c.c", "#include \"store/store.h\"\n");
	put(tree, "store", "s.c", "#include \"daemon/daemon.h\"\n");
	put(tree, "remote", "r.c", "#include \"ctl/client.h\"\n");
	put(tree, "repo", "g.c", "#include \"remote/ssh.h\"\n");
	put(tree, "common", "l.c", "#include \"config/config.h\"\n");
	out = check(tree, &status);
	cr_assert_eq(status, 1, "%s", out);
	cr_assert_not_null(strstr(out, "bisect/io.c:1: the pure core includes"
	    " <git2.h>"), "%s", out);
	cr_assert_not_null(strstr(out, "bisect/io.c:2:"), "%s", out);
	cr_assert_not_null(strstr(out, "bisect/io.c:3: the pure core calls"),
	    "%s", out);
	cr_assert_not_null(strstr(out, "bisect/map.h:1:"), "%s", out);
	cr_assert_not_null(strstr(out, "bisect/map.h:2:"), "%s", out);
	cr_assert_not_null(strstr(out, "bisect/map.h:3:"), "%s", out);
	cr_assert_not_null(strstr(out, "bisect/fs.c:1: the pure core includes"
	    " <fcntl.h>"), "%s", out);
	cr_assert_not_null(strstr(out, "bisect/fs.c:2:"), "%s", out);
	cr_assert_not_null(strstr(out, "config/c.c:1: config/ may not include"
	    " \"store/store.h\""), "%s", out);
	cr_assert_not_null(strstr(out, "store/s.c:1:"), "%s", out);
	cr_assert_not_null(strstr(out, "remote/r.c:1:"), "%s", out);
	cr_assert_not_null(strstr(out, "repo/g.c:1:"), "%s", out);
	cr_assert_not_null(strstr(out, "common/l.c:1:"), "%s", out);
	cr_assert_not_null(strstr(out, "13 violation(s)"), "%s", out);
	free(out);
	tst_rmrf(tree);
	free(tree);
}

Test(layering, allowed_includes_comments_and_strings_pass)
{
	char *tree = tst_tmpdir("layering"), *out;
	int status;

	put(tree, "bisect", "ok.c", "#include <stdio.h>\n"
	    "#include \"bisect/graph.h\"\n#include \"common/error.h\"\n"
	    "#include \"local.h\"\n"
	    "/* repo/ does the open(), mmap()\n * and fopen( calls */\n"
	    "static const char *s = \"open(\"; // fopen(x)\n"
	    "int graph_cgraph_open(void); int reopen (int);\n");
	put(tree, "repo", "ok.c", "#include <git2.h>\n"
	    "#include \"bisect/graph.h\"\n#include \"common/xmalloc.h\"\n"
	    "int f(void) { return open(\"x\", 0); }\n");
	put(tree, "remote", "ok.c", "#include \"config/config.h\"\n");
	put(tree, "daemon", "ok.c", "#include \"store/store.h\"\n"
	    "#include \"repo/graph.h\"\n#include \"daemon/ctl.h\"\n");
	out = check(tree, &status);
	cr_assert_eq(status, 0, "%s", out);
	cr_assert_not_null(strstr(out, "4 files checked"), "%s", out);
	free(out);
	tst_rmrf(tree);
	free(tree);
}
