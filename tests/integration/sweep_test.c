/* SPDX-License-Identifier: MIT */
/*
 * Sweeps against the real daemon following a linux-next-like upstream:
 * the newest tag at the first fetch is the first baseline, each later tag
 * is recorded to sweep once, a rewritten tag again with its old commit
 * shown rewritten, and a kill -9 loses no tag and records none twice.
 */
#include <signal.h>

#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common/xmalloc.h"
#include "tests/support/tst.h"
#include "tests/support/wtest.h"

TestSuite(sweep, .fini = wt_fini, .timeout = 300);

/* A sweep needs a benchmark and a group that builds and tests. */
#define SWEEP_SECTIONS \
	"[host a]\naddress = 127.0.0.1\nport = 1\nuser = u\n" \
	"identity = id\nknown_hosts = kh\n" \
	"[benchmark b]\nrun = ./run\nmetrics = tput:higher, lat:lower\n" \
	"[sweep s]\nbenchmark = b\ngroup = default\ntag_pattern = next-*\n"

static void
sweep_start(void)
{
	char *url, *keys;

	url = wt_url(NULL);
	xasprintf(&keys, "url = %s\nfetch_interval = 1s\n"
	    "watch_refs = refs/tags/next-*\n" SWEEP_SECTIONS, url);
	wt_start(keys);
	free(keys);
	free(url);
}

/* How many rows of `sweep s` have ref at commit (NULL: any) in state. */
static int
sweep_rows(const json_t *r, const char *ref, const char *commit,
    const char *state)
{
	const json_t *v;
	size_t i;
	int n = 0;

	json_array_foreach(json_object_get(r, "refs"), i, v)
		if (strcmp(json_string_value(json_object_get(v, "ref")),
		    ref) == 0 && (commit == NULL || strcmp(json_string_value(
		    json_object_get(v, "commit")), commit) == 0) &&
		    (state == NULL || strcmp(json_string_value(
		    json_object_get(v, "state")), state) == 0))
			n++;
	return n;
}

/* Polls `sweep s` until ref at commit has a row in state; the reply. */
static json_t *
sweep_wait(const char *ref, const char *commit, const char *state)
{
	json_t *r;
	int i;

	for (i = 0; i < 1200; i++, usleep(100 * 1000)) {
		r = wt_req("{\"cmd\":\"sweep\",\"name\":\"s\"}");
		cr_assert(json_is_true(json_object_get(r, "ok")));
		if (sweep_rows(r, ref, commit, state) == 1)
			return r;
		json_decref(r);
	}
	cr_assert_fail("%s at %s never became %s", ref, commit, state);
	return NULL;
}

Test(sweep, new_tags_recorded_once_rewrites_shown_and_kill_9)
{
	char *n1, *n2, *n2b, *n3, *n4, *out;
	const char *argv[6];
	json_t *r, *s;
	int status;

	wt_setup("sweep-refs");
	n1 = wt_up("tag", "next-1", NULL, NULL);
	sweep_start();
	/* The newest tag at the first fetch is the baseline, not swept. */
	r = sweep_wait("refs/tags/next-1", n1, "baseline");
	cr_expect_eq(json_array_size(json_object_get(r, "refs")), 1);
	json_decref(r);
	r = wt_req("{\"cmd\":\"sweeps\"}");
	s = json_array_get(json_object_get(r, "sweeps"), 0);
	cr_assert_not_null(s);
	cr_expect_str_eq(json_string_value(json_object_get(s, "state")),
	    "idle");
	cr_expect_str_eq(json_string_value(json_object_get(s, "next")),
	    "at the next matching ref");
	json_decref(r);

	n2 = wt_up("tag", "next-2", NULL, NULL);
	json_decref(sweep_wait("refs/tags/next-2", n2, "pending"));
	n2b = wt_up("rewrite", "next-2", NULL, NULL);
	r = sweep_wait("refs/tags/next-2", n2b, "pending");
	cr_expect_eq(sweep_rows(r, "refs/tags/next-2", n2, "rewritten"), 1);
	json_decref(r);

	/* kill -9, a tag meanwhile, and a restart: every tag once. */
	cr_assert_eq(tst_daemon_stop(&wt.td, SIGKILL), 128 + SIGKILL);
	n3 = wt_up("tag", "next-3", NULL, NULL);
	cr_assert_eq(tst_daemon_start(&wt.td), 0);
	r = sweep_wait("refs/tags/next-3", n3, "pending");
	cr_expect_eq(sweep_rows(r, "refs/tags/next-1", NULL, NULL), 1);
	cr_expect_eq(sweep_rows(r, "refs/tags/next-2", NULL, NULL), 2);
	cr_expect_eq(json_array_size(json_object_get(r, "refs")), 4);
	cr_expect_str_eq(json_string_value(json_object_get(json_object_get(r,
	    "sweep"), "state")), "sweeping");
	cr_expect_eq(json_integer_value(json_object_get(json_object_get(r,
	    "sweep"), "pending")), 2);
	json_decref(r);
	/* Restarted with nothing new: nothing recorded again. */
	cr_assert_eq(tst_daemon_stop(&wt.td, SIGKILL), 128 + SIGKILL);
	cr_assert_eq(tst_daemon_start(&wt.td), 0);
	n4 = wt_up("tag", "next-4", NULL, NULL);
	r = sweep_wait("refs/tags/next-4", n4, "pending");
	cr_expect_eq(json_array_size(json_object_get(r, "refs")), 5);
	json_decref(r);

	/* One trend plot per watched metric, every numeric one by default. */
	r = wt_req("{\"cmd\":\"sweep\",\"name\":\"s\"}");
	cr_assert_eq(json_array_size(json_object_get(r, "plots")), 2);
	cr_expect(strstr(json_string_value(json_object_get(json_array_get(
	    json_object_get(r, "plots"), 1), "text")), "lat over 4 refs") !=
	    NULL, "%s", json_string_value(json_object_get(json_array_get(
	    json_object_get(r, "plots"), 1), "text")));
	json_decref(r);

	/* --now on a ref the sweep already has changes nothing. */
	r = wt_req("{\"cmd\":\"sweep\",\"name\":\"s\",\"now\":true}");
	cr_expect(json_is_true(json_object_get(r, "ok")));
	cr_expect_eq(json_array_size(json_object_get(r, "refs")), 5);
	json_decref(r);
	r = wt_req("{\"cmd\":\"sweep\",\"name\":\"nope\"}");
	cr_expect_str_eq(tst_daemon_error_code(r), "invalid-argument");
	json_decref(r);

	/* What bisectctl prints. */
	argv[0] = tst_env_path("BISECTCTL_BIN");
	argv[1] = "-s";
	argv[2] = wt.td.sock;
	argv[3] = "sweeps";
	argv[4] = NULL;
	out = tst_daemon_run_both(argv, &status);
	cr_assert_eq(status, 0, "%s", out);
	cr_expect(strstr(out, "next-4") != NULL && strstr(out, "sweeping") !=
	    NULL, "%s", out);
	free(out);
	argv[3] = "sweep";
	argv[4] = "s";
	argv[5] = NULL;
	out = tst_daemon_run_both(argv, &status);
	cr_assert_eq(status, 0, "%s", out);
	cr_expect(strstr(out, "rewritten") != NULL && strstr(out, "baseline")
	    != NULL, "%s", out);
	free(out);
	free(n1);
	free(n2);
	free(n2b);
	free(n3);
	free(n4);
}
