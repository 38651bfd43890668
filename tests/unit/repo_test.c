/* SPDX-License-Identifier: MIT */
/*
 * repo/'s conversions between libgit2's commit ids and the graph's, which
 * need no repository.  Loading from a repository is tested against git in
 * tests/integration/graph_oracle_test.c.
 */
#include <criterion/criterion.h>
#include <git2.h>
#include <stdlib.h>
#include <string.h>

#include "bisect/graph.h"
#include "common/xmalloc.h"
#include "repo/graph.h"
#include "repo/rev.h"
#include "tests/support/tst.h"

TestSuite(repo, .fini = tst_leak_check);

static const char *const shas[] = {
	"e83c5163316f89bfbde7d9ab23ca2e25604af290",
	"0123456789abcdef0123456789abcdef01234567",
	"ffffffffffffffffffffffffffffffffffffffff",
};
#define NSHAS	(sizeof(shas) / sizeof(shas[0]))

Test(repo, oid_conversions_keep_the_bytes_and_the_hex)
{
	struct graph_oid g;
	git_oid a, b;
	char hex[GRAPH_OID_HEXSZ + 1];
	size_t i;

	for (i = 0; i < NSHAS; i++) {
		cr_assert_eq(git_oid_fromstr(&a, shas[i]), 0);
		repo_graph_oid_from_git(&g, &a);
		cr_assert_str_eq(graph_oid_tostr(hex, sizeof(hex), &g),
		    shas[i]);
		repo_graph_oid_to_git(&b, &g);
		cr_assert(git_oid_equal(&a, &b), "%s", shas[i]);
	}
}

Test(repo, graph_find_and_oid_use_libgit2_ids)
{
	struct graph g;
	struct graph_oid *oids = xcalloc(NSHAS, sizeof(*oids));
	uint32_t *off = xcalloc(NSHAS + 1, sizeof(uint32_t));
	uint32_t *par = xcalloc(1, sizeof(uint32_t));
	git_oid a, b;
	size_t i;

	for (i = 0; i < NSHAS; i++) {
		cr_assert_eq(git_oid_fromstr(&a, shas[i]), 0);
		repo_graph_oid_from_git(&oids[i], &a);
	}
	graph_init_owned(&g, NSHAS, off, par, oids, NULL);	/* 3 roots */
	for (i = 0; i < NSHAS; i++) {
		cr_assert_eq(git_oid_fromstr(&a, shas[i]), 0);
		cr_assert_eq(repo_graph_find(&g, &a), (ssize_t)i);
		repo_graph_oid(&g, (uint32_t)i, &b);
		cr_assert(git_oid_equal(&a, &b));
	}
	cr_assert_eq(git_oid_fromstr(&a,
	    "1111111111111111111111111111111111111111"), 0);
	cr_assert_eq(repo_graph_find(&g, &a), -1);
	graph_release(&g);
}

/* The forms a request may use for good and bad. */
static const char *const rev_accepted[] = {
	"main", "HEAD", "v6.1-rc3", "next-20240101", "origin/main",
	"refs/tags/v6.1", "e83c516", "e83c5163316f89bfbde7d9ab23ca2e25604af290",
	"main~3", "main^", "main^2", "v6.1~10^2~1", "e83c516^^~",
};

/* History searches, reflogs, peels, ranges, paths: all refused. */
static const char *const rev_refused[] = {
	":/fix", ":/", "main^{/regex}", "main^{tree}", "main^{}", "main@{1}",
	"@{-1}", "main@{yesterday}", "@{u}", "a..b", "a...b", "main^!",
	"main^@", "main^-1", "main:README", ":0:README", "", "ma in", "main~x",
	"main^{commit}", "-", "main~1:/x",
};

Test(repo, revisions_take_only_names_ids_and_ancestry_suffixes)
{
	struct bd_error err;
	size_t i;

	git_libgit2_init();
	for (i = 0; i < sizeof(rev_accepted) / sizeof(rev_accepted[0]); i++)
		cr_assert_eq(repo_rev_check(rev_accepted[i], &err), 0,
		    "%s: %s", rev_accepted[i], err.msg);
	for (i = 0; i < sizeof(rev_refused) / sizeof(rev_refused[0]); i++) {
		bd_error_clear(&err);
		cr_assert_eq(repo_rev_check(rev_refused[i], &err), -EINVAL,
		    "'%s' accepted", rev_refused[i]);
		cr_assert_not_null(strstr(err.msg, "ref names, full or "
		    "abbreviated hex ids"), "%s", err.msg);
		cr_assert_not_null(strstr(err.msg, "~N or ^N"), "%s", err.msg);
	}
	git_libgit2_shutdown();
}
