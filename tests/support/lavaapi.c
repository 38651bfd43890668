/* SPDX-License-Identifier: MIT */
/*
 * What the lab tests ask the lab's REST API and the daemon's database
 * directly, beside what they ask the daemon.  A failed request fails the
 * calling test.
 */
#include <criterion/criterion.h>

#include <stdio.h>
#include <stdlib.h>

#include <curl/curl.h>
#include <sqlite3.h>

#include "common/xmalloc.h"
#include "tests/support/lavaapi.h"
#include "tests/support/svc.h"

const char *
lavaapi_url(void)
{
	const char *u = getenv("BISECTD_TEST_LAVA_URL");

	return u != NULL && *u != '\0' ? u : NULL;
}

/* Without a lab the tests say so by name; they never pass. */
void
lavaapi_require(void)
{
	if (lavaapi_url() == NULL || getenv("BISECTD_TEST_LAVA_TOKEN") == NULL)
		cr_skip_test("BISECTD_TEST_LAVA_URL is not set: no LAVA to "
		    "test against (tests/support/lava-up.sh brings one up)");
}

static size_t
lavaapi_body(char *data, size_t size, size_t n, void *arg)
{
	char **buf = arg, *t;

	xasprintf(&t, "%s%.*s", *buf ? *buf : "", (int)(size * n), data);
	free(*buf);
	*buf = t;
	return size * n;
}

/* Public jobs need no token: the tests read what anyone could. */
json_t *
lavaapi_get(const char *base, const char *path)
{
	CURL *c = curl_easy_init();
	char *url, *body = NULL;
	json_t *j;

	xasprintf(&url, "%s/api/v0.2/%s", base, path);
	curl_easy_setopt(c, CURLOPT_URL, url);
	curl_easy_setopt(c, CURLOPT_WRITEFUNCTION, lavaapi_body);
	curl_easy_setopt(c, CURLOPT_WRITEDATA, &body);
	curl_easy_setopt(c, CURLOPT_TIMEOUT, 30L);
	cr_assert_eq(curl_easy_perform(c), CURLE_OK, "GET %s", url);
	curl_easy_cleanup(c);
	free(url);
	cr_assert_not_null(j = json_loads(body ? body : "", 0, NULL), "%s",
	    body);
	free(body);
	return j;
}

/* The daemon marks its jobs with it: read it where the daemon keeps it. */
char *
lavaapi_instance(const char *db)
{
	sqlite3 *h;
	sqlite3_stmt *st;
	char *id;

	cr_assert_eq(sqlite3_open_v2(db, &h, SQLITE_OPEN_READONLY, NULL),
	    SQLITE_OK);
	cr_assert_eq(sqlite3_prepare_v2(h, "SELECT id FROM instance", -1,
	    &st, NULL), SQLITE_OK);
	cr_assert_eq(sqlite3_step(st), SQLITE_ROW);
	id = xstrdup((const char *)sqlite3_column_text(st, 0));
	sqlite3_finalize(st);
	sqlite3_close(h);
	return id;
}

/* Jobs are found by the description the daemon gives them. */
json_t *
lavaapi_jobs_of(const char *url, const char *instance, int64_t run)
{
	char *path;
	json_t *r, *res;

	xasprintf(&path, "jobs/?description=bisectd-%s-run-%lld&ordering=id&"
	    "limit=100", instance, (long long)run);
	r = lavaapi_get(url, path);
	free(path);
	res = json_incref(json_object_get(r, "results"));
	json_decref(r);
	cr_assert(json_is_array(res));
	return res;
}

/* Runs are read from their samples: a run with none made no job worth one. */
void
lavaapi_assert_one_job_per_run(int64_t id)
{
	json_t *r = svc_req("{\"cmd\":\"samples\",\"bisection\":%lld}",
	    (long long)id), *s, *jobs;
	char *inst = lavaapi_instance(svc.td.db);
	int64_t run, last = 0;
	size_t i;

	json_array_foreach(json_object_get(r, "samples"), i, s) {
		run = json_integer_value(json_object_get(s, "run"));
		if (run == last)
			continue;
		last = run;
		jobs = lavaapi_jobs_of(lavaapi_url(), inst, run);
		cr_assert_eq(json_array_size(jobs), 1, "run %lld has %zu lab "
		    "jobs", (long long)run, json_array_size(jobs));
		json_decref(jobs);
	}
	cr_assert_gt(i, 0, "no samples");
	json_decref(r);
	free(inst);
}

/* The lab tests run one lab: the first row is theirs. */
json_t *
lavaapi_lab_row(void)
{
	json_t *r = svc_req("{\"cmd\":\"hosts\"}"), *l;

	l = json_incref(json_array_get(json_object_get(r, "labs"), 0));
	json_decref(r);
	cr_assert_not_null(l, "hosts shows no lab");
	return l;
}

/* A lab run's state is read where an operator reads it. */
int64_t
lavaapi_runs(int64_t id, const char *state)
{
	json_t *b = svc_status(id);
	int64_t n = json_integer_value(json_object_get(json_object_get(b,
	    "runs"), state));

	json_decref(b);
	return n;
}

/* Every lab test serves group "lava" with its lab. */
int64_t
lavaapi_bisect(const char *benchmark)
{
	json_t *r = svc_req("{\"cmd\":\"bisect\",\"good\":[\"%s\"],"
	    "\"bad\":\"%s\",\"benchmark\":\"%s\",\"metric\":"
	    "\"runtime_ms\",\"group\":\"lava\"}", svc.good, svc.bad,
	    benchmark);
	int64_t id;

	cr_assert(json_is_true(json_object_get(r, "ok")), "bisect: %s",
	    json_string_value(json_object_get(json_object_get(r, "error"),
	    "message")));
	id = json_integer_value(json_object_get(r, "bisection"));
	json_decref(r);
	return id;
}
