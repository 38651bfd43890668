/* SPDX-License-Identifier: MIT */
/*
 * bisectctl's output filter (ctl/termout.c): what a terminal acts on
 * becomes '?', text (UTF-8 included) passes unchanged, a C1 control split
 * between two writes is still caught, and termout_raw passes the
 * sequences bisectctl means to send.
 */
#include <criterion/criterion.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/xmalloc.h"
#include "ctl/termout.h"
#include "tests/support/tst.h"

static char	*termout_dir;
static char	*termout_path;
static char	*termout_text;

/* A temp dir for the stream test. */
static void
termout_setup(void)
{
	termout_dir = tst_tmpdir("termout");
	cr_assert_not_null(termout_dir);
}

/* Removes it, also after a failed assertion. */
static void
termout_teardown(void)
{
	tst_rmrf(termout_dir);
	free(termout_dir);
	free(termout_path);
	termout_path = NULL;
	free(termout_text);
	termout_text = NULL;
	tst_leak_check();
}

TestSuite(ctl_termout, .init = termout_setup, .fini = termout_teardown);

/* src through the filter in one call, a held byte written out. */
static size_t
filter_all(char *dst, const char *src, size_t n)
{
	int held = 0;
	size_t len;

	len = termout_filter(dst, src, n, &held);
	len += termout_filter(dst + len, "", 0, &held);
	return len;
}

/* One case of the filter: what goes in, what a terminal gets. */
struct filter_case {
	const char	*in, *out;
};

/* Each case through the filter in one call. */
static void
check_cases(const struct filter_case *cases, size_t ncases)
{
	char out[64];
	size_t i, n;

	for (i = 0; i < ncases; i++) {
		n = filter_all(out, cases[i].in, strlen(cases[i].in));
		out[n] = '\0';
		cr_assert_str_eq(out, cases[i].out, "case %zu", i);
	}
}

Test(ctl_termout, controls_become_question_marks)
{
	static const struct filter_case cases[] = {
		{ "a\x1b[31mb\x07" "c\rd\x7f" "e\xc2\x9b" "f",
		    "a?[31mb?c?d?e?f" },
		{ "\x1b]0;title\x07", "?]0;title?" },
		{ "line\n\tindented\n", "line\n\tindented\n" },
		{ "\xc2\x80\xc2\x9f\xc2\xa0\xc2\xa9 \xc3\xa9 \xe2\x82\xac",
		    "??\xc2\xa0\xc2\xa9 \xc3\xa9 \xe2\x82\xac" },
		{ "\x01\x1f\x20~", "?? ~" },
		{ "end\xc2", "end\xc2" },
	};

	check_cases(cases, sizeof(cases) / sizeof(cases[0]));
}

/* A c2 at the end of one write waits for the next to decide. */
Test(ctl_termout, a_c1_control_split_between_writes_is_caught)
{
	char out[8];
	int held = 0;
	size_t n;

	n = termout_filter(out, "x\xc2", 2, &held);
	cr_assert_eq(n, 1);
	cr_assert_neq(held, 0);
	n = termout_filter(out, "\x9by", 2, &held);
	cr_assert_eq(n, 2);
	cr_assert_eq(memcmp(out, "?y", 2), 0);
	n = termout_filter(out, "\xc2", 1, &held);
	cr_assert_eq(n, 0);
	n = termout_filter(out, "\xa9", 1, &held);
	cr_assert_eq(n, 2);
	cr_assert_eq(memcmp(out, "\xc2\xa9", 2), 0);
	cr_assert_eq(held, 0);
}

/* Through a real stream: flushes, the raw sequence, and fclose. */
Test(ctl_termout, the_stream_filters_all_but_its_raw_writes)
{
	FILE *fp, *out;

	xasprintf(&termout_path, "%s/out", termout_dir);
	fp = fopen(termout_path, "w");
	cr_assert_not_null(fp);
	out = termout_open(fp);
	cr_assert_neq(out, fp);
	fputs("a\xc2", out);
	fflush(out);
	fputs("\x9b" "b", out);
	termout_raw(out, "\r\x1b[K");
	fprintf(out, "c%s\n", "\x1b[2J");
	fputs("\xc2", out);
	cr_assert_eq(fclose(out), 0);
	fclose(fp);
	termout_text = tst_read_file(termout_path);
	cr_assert_not_null(termout_text);
	cr_assert_str_eq(termout_text, "a?b\r\x1b[Kc?[2J\n\xc2");
}

/* U+202E and the other bidi and invisible controls never pass (issue 35). */
Test(ctl_termout, bidi_and_invisible_controls_become_question_marks)
{
	static const struct filter_case cases[] = {
		{ "next-\xe2\x80\xae" "1202", "next-?1202" },
		{ "\xe2\x80\xaa\xe2\x80\xab\xe2\x80\xac\xe2\x80\xad", "????" },
		{ "\xe2\x81\xa6x\xe2\x81\xa7y\xe2\x81\xa8z\xe2\x81\xa9",
		    "?x?y?z?" },
		{ "\xe2\x80\x8e\xe2\x80\x8f\xd8\x9c\xe2\x80\x8b\xef\xbb\xbf",
		    "?????" },
		{ "\xe2\x80\xa8\xe2\x80\xa9", "??" },
		/* Neighbours that are ordinary text stay. */
		{ "\xe2\x80\x94 \xe2\x80\xa6 \xe2\x82\xac", "\xe2\x80\x94 "
		    "\xe2\x80\xa6 \xe2\x82\xac" },
	};

	check_cases(cases, sizeof(cases) / sizeof(cases[0]));
}

/* An override cut between two writes is caught at every cut. */
Test(ctl_termout, a_bidi_override_split_between_writes_is_caught)
{
	static const char text[] = "a\xe2\x80\xae" "b";
	char out[16];
	size_t cut, n;
	int held;

	for (cut = 1; cut < sizeof(text) - 1; cut++) {
		held = 0;
		n = termout_filter(out, text, cut, &held);
		n += termout_filter(out + n, text + cut, sizeof(text) - 1 - cut,
		    &held);
		n += termout_filter(out + n, "", 0, &held);
		out[n] = '\0';
		cr_assert_str_eq(out, "a?b", "cut at %zu", cut);
	}
}
