/* SPDX-License-Identifier: MIT */
/*
 * The bash completion (contrib/bash-completion/bisectctl) against the real
 * daemon: the script is sourced in bash, COMP_WORDS and COMP_CWORD are set
 * as bash sets them, and _bisectctl's COMPREPLY is read back.  It runs the
 * real bisectctl, which asks the daemon and its repository.
 */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/xmalloc.h"
#include "tests/support/svc.h"
#include "tests/support/tst.h"

TestSuite(complete, .fini = svc_fini, .timeout = 600);

/* Sources the script, completes the last word, prints COMPREPLY. */
static const char complete_script[] =
    ". \"$1\" || exit 9; shift; COMP_WORDS=(\"$@\"); "
    "COMP_CWORD=$(($# - 1)); _bisectctl; "
    "printf '<%s>\\n' \"${COMPREPLY[@]}\"";

/*
 * COMPREPLY for `bisectctl -s SOCK w1 [w2 [w3]] CUR`, one "<word>" a line
 * (caller frees).  NULL ends the words early.
 */
static char *
complete_words(const char *w1, const char *w2, const char *w3,
    const char *cur)
{
	char *file, *out;
	const char *words[4] = { w1, w2, w3, cur };
	char *argv[16] = { "bash", "--norc", "-c", (char *)complete_script,
	    "bash", NULL, (char *)tst_env_path("BISECTCTL_BIN"), "-s",
	    svc.td.sock };
	int status, n = 9, i;

	xasprintf(&file, "%s/contrib/bash-completion/bisectctl",
	    tst_env_path("BISECTD_SRCDIR"));
	argv[5] = file;
	for (i = 0; i < 4; i++)
		if (words[i] != NULL)
			argv[n++] = (char *)words[i];
	argv[n] = NULL;
	out = tst_run_capture(argv, &status);
	free(file);
	cr_assert_not_null(out, "bash did not run");
	if (status != 0) {
		cr_log_error("bash exited %d:\n%s", status, out);
		free(out);
		cr_assert_fail("the completion did not run");
	}
	return out;
}

/* Words typed, the word being completed and a word it must offer. */
static const struct {
	const char	*w1, *w2, *w3, *cur, *want;
} complete_cases[] = {
	/* A command; an option of the command. */
	{ NULL, NULL, NULL, "sta", "status" },
	{ "bisect", NULL, NULL, "--max", "--max-samples" },
	{ "status", NULL, NULL, "", "--follow" },
	/* Benchmark, metric and group names from the configuration. */
	{ "bisect", "--benchmark", NULL, "", "spin" },
	{ "bisect", "--metric", NULL, "ops", "ops_per_sec" },
	{ "bisect", "--group", NULL, "", "lab" },
	/* A revision, from the repository the configuration names. */
	{ "bisect", "--good", NULL, "v-c", "v-complete" },
	{ "samples", "1", "--commit", "v-", "v-complete" },
};

/* Fails the test unless out, COMPREPLY as printed, offers word. */
static void
complete_expect(char *out, const char *word)
{
	char *item;

	xasprintf(&item, "<%s>\n", word);
	cr_expect_not_null(strstr(out, item), "no \"%s\" among:\n%s", word,
	    out);
	free(item);
}

Test(complete, commands_options_ids_and_names_from_the_daemon)
{
	char *out, idword[32], *argv[] = { "git", "-C", NULL, "tag",
	    "v-complete", NULL, NULL };
	int64_t id;
	size_t i;

	svc_setup("complete", 1, "2:3", 0);
	id = svc_bisect("ops_per_sec", NULL);
	cr_assert_eq(id, 1, "the first bisection");
	argv[2] = svc.repo;
	argv[5] = svc.bad;
	cr_assert_eq(tst_run(argv), 0, "git tag");
	for (i = 0; i < sizeof(complete_cases) / sizeof(complete_cases[0]);
	    i++) {
		out = complete_words(complete_cases[i].w1,
		    complete_cases[i].w2, complete_cases[i].w3,
		    complete_cases[i].cur);
		complete_expect(out, complete_cases[i].want);
		free(out);
	}

	/* Only the commands that start so; a bisection id from list. */
	out = complete_words(NULL, NULL, NULL, "sta");
	cr_expect_null(strstr(out, "<list>"), "%s", out);
	free(out);
	snprintf(idword, sizeof(idword), "%lld", (long long)id);
	out = complete_words("cancel", NULL, NULL, "");
	complete_expect(out, idword);
	free(out);
}
