/* SPDX-License-Identifier: MIT */
/*
 * The client's place in the layout (docs: design.md, "Who may include
 * whom"): ctl/ includes only common/ and itself, and the offline `next`
 * command also the graph code (bisect/, repo/).  Checked on the sources,
 * so a stray daemon include fails here instead of in a later link.
 */
#include <criterion/criterion.h>
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/xmalloc.h"
#include "tests/support/tst.h"

TestSuite(ctl_layout, .fini = tst_leak_check);

/* The folders file (a name in ctl/) may include from. */
static int
allowed(const char *file, const char *dir)
{
	static const char *const everyone[] = { "common", "ctl" };
	static const char *const next_too[] = { "bisect", "repo" };
	size_t i;

	for (i = 0; i < sizeof(everyone) / sizeof(everyone[0]); i++)
		if (strcmp(dir, everyone[i]) == 0)
			return 1;
	if (strncmp(file, "next.", 5) != 0)
		return 0;
	for (i = 0; i < sizeof(next_too) / sizeof(next_too[0]); i++)
		if (strcmp(dir, next_too[i]) == 0)
			return 1;
	return 0;
}

/* Every `#include "dir/..."` of one file; returns how many were checked. */
static size_t
check_file(const char *path, const char *file)
{
	char *text = tst_read_file(path), *p, *slash, dir[64];
	size_t n = 0;

	cr_assert_not_null(text, "cannot read %s", path);
	for (p = text; (p = strstr(p, "#include \"")) != NULL; p++) {
		p += strlen("#include \"");
		slash = strchr(p, '/');
		if (slash == NULL || slash - p >= (long)sizeof(dir) ||
		    memchr(p, '"', (size_t)(slash - p)) != NULL)
			continue;
		snprintf(dir, sizeof(dir), "%.*s", (int)(slash - p), p);
		cr_expect(allowed(file, dir), "ctl/%s includes %s/", file, dir);
		n++;
	}
	free(text);
	return n;
}

Test(ctl_layout, ctl_includes_only_common_and_for_next_the_graph)
{
	char *dirpath, *path;
	struct dirent *de;
	size_t files = 0, includes = 0, len;
	DIR *d;

	xasprintf(&dirpath, "%s/ctl", tst_env_path("BISECTD_SRCDIR"));
	d = opendir(dirpath);
	cr_assert_not_null(d, "cannot open %s", dirpath);
	while ((de = readdir(d)) != NULL) {
		len = strlen(de->d_name);
		if (len < 3 || (strcmp(de->d_name + len - 2, ".c") != 0 &&
		    strcmp(de->d_name + len - 2, ".h") != 0))
			continue;
		xasprintf(&path, "%s/%s", dirpath, de->d_name);
		includes += check_file(path, de->d_name);
		free(path);
		files++;
	}
	closedir(d);
	free(dirpath);
	cr_expect_geq(files, 5, "ctl/ has only %zu sources", files);
	cr_expect_geq(includes, files, "too few includes seen: %zu",
	    includes);
}
