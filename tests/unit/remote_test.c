/* SPDX-License-Identifier: MIT */
/*
 * The parts of remote/ that need no server: shell quoting and
 * placeholders, benchmark result parsing, build-cache keys.
 */
#include <criterion/criterion.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common/xmalloc.h"
#include "remote/cache.h"
#include "remote/metrics.h"
#include "remote/quote.h"
#include "tests/support/rtest.h"
#include "tests/support/tst.h"

TestSuite(remote, .fini = tst_leak_check);

/* ------------------------------------------------------------------ */
/* Quoting and result parsing: no server needed. */

Test(remote, quote_shell_and_placeholders)
{
	struct quote_vars v = { 0 };
	struct bd_error err;
	char *q, *out;

	q = quote_shell("it's");
	cr_assert_str_eq(q, "'it'\\''s'");
	free(q);
	v.commit = "0123456789abcdef0123";
	v.workdir = "/w d";
	v.host = "h1";
	cr_assert_eq(quote_expand("cd {workdir} && make O={short} "
	    "${commit} {unknown} awk '{print $1}'", &v, QUOTE_SHELL, &out,
	    &err), 0);
	cr_assert_str_eq(out, "cd '/w d' && make O='0123456789ab' "
	    "${commit} {unknown} awk '{print $1}'");
	free(out);
	cr_assert_eq(quote_expand("k-{short}", &v, QUOTE_RAW, &out, &err), 0);
	cr_assert_str_eq(out, "k-0123456789ab");
	free(out);
	cr_assert_eq(quote_expand("install {artifact}", &v, QUOTE_SHELL, &out,
	    &err), -EINVAL);
	cr_assert_null(out);
	cr_assert(strstr(err.msg, "{artifact}") != NULL, "%s", err.msg);
	/* A value that looks like a placeholder is not expanded again. */
	v.host = "{commit}";
	cr_assert_eq(quote_expand("{host}", &v, QUOTE_SHELL, &out, &err), 0);
	cr_assert_str_eq(out, "'{commit}'");
	free(out);
}

Test(remote, metrics_rules)
{
	static const struct {
		const char	*text;
		const char	*err;	/* NULL: valid */
	} cases[] = {
		{ "{\"score\": 1.5, \"n\": 3}", NULL },
		{ "{\"score\": -2e3}", NULL },
		{ "{\"score\": \"fast\"}", "not a number (JSON string)" },
		/* Decimal numbers only, as from a lab (common/decimal.h). */
		{ "{\"score\": \"8\"}", "not a number (JSON string)" },
		{ "{\"score\": 0x1p3}", "not valid JSON" },
		{ "{\"score\": inf}", "not valid JSON" },
		{ "{\"score\": NaN}", "not valid JSON" },
		{ "{\"score\": 1e999}", "not valid JSON" },
		{ "{\"score\": true}", "not a number (JSON boolean)" },
		{ "{\"score\": null}", "not a number (JSON null)" },
		{ "{\"score\": [[1]]}", "not a number (JSON array)" },
		{ "{\"score\": 1, \"score\": 2}", "not valid JSON" },
		{ "{score: 1}", "not valid JSON" },
		{ "[1, 2]", "not an object" },
		{ "{}", "no metrics" },
		{ "{\"other\": 1}", "no value for metric \"score\"" },
		{ "", "not valid JSON" },
	};
	struct config_benchmark b;
	struct metrics m;
	struct bd_error err;
	size_t i;
	int rc;

	rtest_bench_init(&b, "true");
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		bd_error_clear(&err);
		rc = metrics_parse(cases[i].text, strlen(cases[i].text), &b,
		    &m, &err);
		if (cases[i].err == NULL) {
			cr_assert_eq(rc, 0, "%s: %s", cases[i].text, err.msg);
			cr_assert_not_null(metrics_find(&m, "score"));
		} else {
			cr_assert_eq(rc, -EINVAL, "%s accepted", cases[i].text);
			cr_assert(strstr(err.msg, cases[i].err) != NULL,
			    "%s: %s", cases[i].text, err.msg);
			cr_assert_eq(m.n, 0);
		}
		metrics_release(&m);
	}
	rc = metrics_parse_last_line("warming up\n{\"score\": 7}\n\n", 25,
	    false, &b, &m, &err);
	cr_assert_eq(rc, 0, "%s", err.msg);
	cr_assert_float_eq(metrics_find(&m, "score")->value, 7.0, 1e-12);
	metrics_release(&m);
	cr_assert_eq(metrics_parse_last_line("{\"score\": 7}", 12, true, &b,
	    &m, &err), -EINVAL, "a cut line must not parse");
	cr_assert_eq(metrics_parse_last_line("\n\n", 2, false, &b, &m, &err),
	    -EINVAL);
}

Test(remote, cache_keys_and_memory_cache)
{
	struct config_benchmark b1, b2;
	struct cache_mem *m = cache_mem_new();
	struct cache c;
	struct cache_key k1, k2;
	struct cache_hit hit;

	rtest_bench_init(&b1, "true");
	b1.build = "make";
	b2 = b1;
	b2.build = "make -j8";
	cache_mem_bind(m, &c);
	cache_key_init(&k1, "g", &b1, "abc", NULL);
	cache_key_init(&k2, "g", &b2, "abc", NULL);
	cr_assert_neq(k1.config, k2.config, "build template is in the key");
	cr_assert_eq(cache_lookup(&c, &k1, &hit), -ENOENT);
	cr_assert_eq(cache_store(&c, &k1, "h1", "/w/art", "aa"), 0);
	cr_assert_eq(cache_lookup(&c, &k1, &hit), 0);
	cr_assert_eq(hit.ncopies, 1);
	cr_assert_str_eq(hit.copies[0].host, "h1");
	cr_assert_str_eq(hit.copies[0].artifact, "/w/art");
	cr_assert_str_eq(hit.copies[0].sha256, "aa");
	cache_hit_release(&hit);
	/* A test host that checked a relayed copy keeps it too. */
	cache_hold(&c, &k1, "h2", "/w2/kept", "aa");
	cr_assert_eq(cache_lookup(&c, &k1, &hit), 0);
	cr_assert_eq(hit.ncopies, 2);
	cr_assert_not_null(cache_hit_on(&hit, "h1"));
	cr_assert_str_eq(cache_hit_on(&hit, "h2")->artifact, "/w2/kept");
	cr_assert_null(cache_hit_on(&hit, "h3"));
	cache_hit_release(&hit);
	/* The build host's copy is gone: the other one still serves. */
	cache_forget(&c, &k1, "h1");
	cr_assert_eq(cache_lookup(&c, &k1, &hit), 0);
	cr_assert_eq(hit.ncopies, 1);
	cr_assert_str_eq(hit.copies[0].host, "h2");
	cache_hit_release(&hit);
	cr_assert_eq(cache_lookup(&c, &k2, &hit), -ENOENT);
	k2 = k1;
	k2.group = "other";
	cr_assert_eq(cache_lookup(&c, &k2, &hit), -ENOENT);
	cache_forget(&c, &k1, NULL);
	cr_assert_eq(cache_lookup(&c, &k1, &hit), -ENOENT);
	cr_assert_eq(cache_lookup(NULL, &k1, &hit), -ENOENT);
	cache_mem_free(m);
}

/* A file named in build_inputs (the kernel .config) is part of the key. */
Test(remote, build_inputs_join_the_cache_key)
{
	struct config_benchmark b;
	char *dir, *path, *inputs;
	uint64_t h0, h1, h2, h3;
	FILE *f;

	cr_assert_not_null(dir = tst_tmpdir("cache-inputs"));
	xasprintf(&path, "%s/kernel.config", dir);
	xasprintf(&inputs, "%s/other %s", dir, path);
	rtest_bench_init(&b, "true");
	b.build = "make";
	h0 = cache_config_hash(&b);
	cr_assert_not_null(f = fopen(path, "w"));
	fputs("CONFIG_SMP=y\n", f);
	fclose(f);
	b.build_inputs = inputs;
	h1 = cache_config_hash(&b);
	cr_assert_neq(h0, h1, "build_inputs are in the key");
	cr_assert_eq(cache_config_hash(&b), h1, "the key is stable");
	cr_assert_not_null(f = fopen(path, "w"));
	fputs("CONFIG_SMP=n\n", f);
	fclose(f);
	h2 = cache_config_hash(&b);
	cr_assert_neq(h1, h2, "an edited input changes the key");
	unlink(path);
	h3 = cache_config_hash(&b);
	cr_assert_neq(h2, h3, "a missing input changes the key");
	free(path);
	free(inputs);
	tst_rmrf(dir);
	free(dir);
}
