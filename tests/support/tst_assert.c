/* SPDX-License-Identifier: MIT */
/*
 * The helpers of tst.h that assert: they need Criterion, which the fuzz
 * targets (linking tst.c) do not have.
 */
#include <stdlib.h>
#include <unistd.h>

#include <criterion/criterion.h>

#include "tests/support/tst.h"

/* Text from commits must reach people and mail without its controls. */
void
tst_assert_no_controls(const char *what, const char *s, int keep_tabs)
{
	const unsigned char *p;

	for (p = (const unsigned char *)s; *p != '\0'; p++) {
		cr_assert(*p >= 0x20 || *p == '\n' || (keep_tabs && *p == '\t'),
		    "%s: control byte %#x at %zu in:\n%s", what, *p,
		    (size_t)(p - (const unsigned char *)s), s);
		cr_assert(*p != 0x7f && !(p[0] == 0xc2 && p[1] >= 0x80 &&
		    p[1] <= 0x9f), "%s: DEL or a C1 control at %zu in:\n%s",
		    what, (size_t)(p - (const unsigned char *)s), s);
	}
}

/* A child tells its pid through a file: the test cannot see it otherwise. */
int
tst_wait_pid_file(const char *path)
{
	char *text = NULL;
	long pid = 0;
	int i;

	for (i = 0; i < 30000 && pid <= 0; i++) {
		free(text);
		if ((text = tst_read_file(path)) != NULL)
			pid = strtol(text, NULL, 10);
		if (pid <= 0)
			usleep(10 * 1000);
	}
	free(text);
	cr_assert_gt(pid, 0, "nothing wrote a pid to %s", path);
	return (int)pid;
}
