/* SPDX-License-Identifier: MIT */
/*
 * tests/support/doctables.awk, the check that every table of
 * docs/statistics.md names the command that prints it (run by `make
 * check-docs`), on small documents written here, under each awk found:
 * a check that only one awk reads right would pass tables it should not.
 */
#include <criterion/criterion.h>
#include <stdlib.h>
#include <string.h>

#include "common/xmalloc.h"
#include "tests/support/tst.h"

/*
 * The suite's temp dir: made before each test and removed after it,
 * also after a failed assertion; so are the strings a check holds.
 */
static char *tables_dir, *tables_file, *tables_script, *tables_out;

static void
tables_init(void)
{
	cr_assert_not_null(tables_dir = tst_tmpdir("doctables"));
}

static void
tables_fini(void)
{
	if (tables_dir != NULL)
		tst_rmrf(tables_dir);
	free(tables_dir);
	free(tables_file);
	free(tables_script);
	free(tables_out);
	tables_dir = tables_file = tables_script = tables_out = NULL;
	tst_leak_check();
}

TestSuite(doc_tables, .init = tables_init, .fini = tables_fini);

static const char *const doc_tables_awks[] = { "awk", "mawk", "gawk" };

/*
 * Runs the check on `text` (or, with text NULL, on the file at path
 * `doc` under the source tree) under each awk on this machine: it must
 * exit `status` and print `want` (when not NULL).  Fails unless at
 * least one awk ran.
 */
static void
check_doc(const char *text, const char *doc, int status, const char *want)
{
	const char *src = getenv("BISECTD_SRCDIR");
	size_t i, ran = 0;
	int st;

	cr_assert_not_null(src, "BISECTD_SRCDIR is not set");
	if (text != NULL)
		tables_file = tst_write_file(tables_dir, "doc.md", text);
	else
		xasprintf(&tables_file, "%s/%s", src, doc);
	cr_assert_not_null(tables_file);
	xasprintf(&tables_script, "%s/tests/support/doctables.awk", src);
	for (i = 0; i < sizeof(doc_tables_awks) / sizeof(doc_tables_awks[0]);
	    i++) {
		free(tables_out);
		tables_out = tst_run_capture((char *const[]){
		    (char *)doc_tables_awks[i], "-f", tables_script,
		    tables_file, NULL }, &st);
		if (tables_out == NULL || st == 127)
			continue;	/* this awk is not installed */
		ran++;
		cr_assert_eq(st, status, "%s exited %d:\n%s",
		    doc_tables_awks[i], st, tables_out);
		cr_assert(want == NULL || strstr(tables_out, want) != NULL,
		    "%s: no \"%s\" in:\n%s", doc_tables_awks[i], want,
		    tables_out);
	}
	cr_assert_gt(ran, 0, "no awk could be run");
}

/* A table with no command anywhere near it fails, naming its line. */
Test(doc_tables, a_table_without_a_command_fails_with_its_line)
{
	check_doc("# Results\n"
	    "\n"
	    "What the engine needs, measured once.\n"
	    "\n"
	    "| d | samples |\n"
	    "|---|---|\n"
	    "| 2 | 56.0 |\n", NULL, 1,
	    "doc.md:5: this table names no command that prints it");
}

/*
 * The command may stand in the paragraph above (wrapped over two lines,
 * a blank line between), or in the header row.
 */
Test(doc_tables, a_command_above_or_in_the_header_row_passes)
{
	check_doc("Measured with `sim --noise normal --d 2\n"
	    "--trials 1000 --seed 11`:\n"
	    "\n"
	    "| d | samples |\n"
	    "|---|---|\n"
	    "| 2 | 56.0 |\n"
	    "\n"
	    "* A list item:\n"
	    "\n"
	    "  | row (`make bench-sim TRIALS=100`) | exact |\n"
	    "  |---|---|\n"
	    "  | normal | 100 |\n", NULL, 0, NULL);
}

/*
 * A command names only the table it stands above: the next table, with
 * only the first one between, fails; a backquoted word that is no
 * command does not count.
 */
Test(doc_tables, each_table_needs_its_own_command)
{
	check_doc("Printed by `make bench-sim`:\n"
	    "\n"
	    "| a | b |\n"
	    "|---|---|\n"
	    "\n"
	    "| c | d |\n"
	    "|---|---|\n"
	    "\n"
	    "The `confidence` parameter:\n"
	    "\n"
	    "| e | f |\n"
	    "|---|---|\n", NULL, 1, "2 of 3 tables name no command");
}

/* Program output in a fenced block is not a table of the document. */
Test(doc_tables, output_in_a_code_block_is_no_table)
{
	check_doc("Some output:\n"
	    "\n"
	    "```\n"
	    "| a | b |\n"
	    "```\n", NULL, 0, NULL);
}

/* The document the check is for holds to it. */
Test(doc_tables, the_statistics_document_names_every_command)
{
	check_doc(NULL, "docs/statistics.md", 0, NULL);
}
