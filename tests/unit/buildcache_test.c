/* SPDX-License-Identifier: MIT */
/*
 * The build cache in the store keys a build on the tree that was built as
 * well as the commit: a commit with fix-ups picked onto it is never taken
 * for the plain commit, nor the other way round.
 */
#include <criterion/criterion.h>
#include <string.h>

#include "config/config.h"
#include "remote/cache.h"
#include "sched/buildcache.h"
#include "store/store.h"
#include "tests/support/stest.h"

TestSuite(buildcache, .init = stest_setup, .fini = stest_teardown);

Test(buildcache, a_build_of_another_tree_is_another_build)
{
	struct config_benchmark b;
	struct cache c;
	struct cache_key plain, patched;
	struct cache_hit hit;

	memset(&b, 0, sizeof(b));
	b.name = "spin";
	b.build = "make";
	stest_db = stest_open();
	buildcache_bind(&c, stest_db);
	cache_key_init(&plain, "lab", &b, STEST_A, NULL);
	cache_key_init(&patched, "lab", &b, STEST_A, STEST_C);
	cr_assert_eq(cache_store(&c, &plain, "h0", "/w/plain", "aa"), 0);
	cr_assert_eq(cache_lookup(&c, &patched, &hit), -ENOENT,
	    "the plain build was taken for the patched tree");
	cr_assert_eq(cache_store(&c, &patched, "h1", "/w/patched", "bb"), 0);
	cr_assert_eq(cache_lookup(&c, &patched, &hit), 0);
	cr_assert_eq(hit.ncopies, 1);
	cr_assert_str_eq(hit.copies[0].host, "h1");
	cr_assert_str_eq(hit.copies[0].artifact, "/w/patched");
	cache_hit_release(&hit);
	cr_assert_eq(cache_lookup(&c, &plain, &hit), 0);
	cr_assert_eq(hit.ncopies, 1);
	cr_assert_str_eq(hit.copies[0].host, "h0");
	cache_hit_release(&hit);
}
