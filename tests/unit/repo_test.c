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
