/* SPDX-License-Identifier: MIT */
/*
 * A culprit's report as KCIDB I/O data; see report_kcidb.h.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/xmalloc.h"
#include "ctl/report_kcidb.h"

static const char *
kc_str(const json_t *o, const char *key)
{
	return json_string_value(json_object_get(o, key));
}

/* "ORIGIN:what" ids, unique per bisection where the object is its own. */
static json_t *
kc_id(const char *what)
{
	char *s;
	json_t *j;

	xasprintf(&s, "%s:%s", REPORT_KCIDB_ORIGIN, what);
	j = json_string(s);
	free(s);
	return j;
}

/* Sets key to v's value where v is there: KCIDB has no nulls. */
static void
kc_set(json_t *o, const char *key, json_t *v)
{
	if (v != NULL && !json_is_null(v))
		json_object_set(o, key, v);
}

/* A test path is dot-separated [A-Za-z0-9_-] words. */
static char *
kc_path(const char *benchmark, const char *metric)
{
	char *p, *q;

	if (strncmp(metric, benchmark, strlen(benchmark)) == 0 &&
	    metric[strlen(benchmark)] == '.')
		p = xstrdup(metric);
	else
		xasprintf(&p, "%s.%s", benchmark, metric);
	for (q = p; *q != '\0'; q++)
		if (!((*q >= 'a' && *q <= 'z') || (*q >= 'A' && *q <= 'Z') ||
		    (*q >= '0' && *q <= '9') || *q == '_' || *q == '-' ||
		    *q == '.'))
			*q = '_';
	/* No empty word: "a..b" and a leading or trailing dot become '_'. */
	for (q = p; *q != '\0'; q++)
		if (*q == '.' && (q == p || q[1] == '\0' || q[1] == '.'))
			*q = '_';
	return p;
}

/* The tree and branch of "tree:branch", either part may be missing. */
static void
kc_branch(json_t *checkout, const char *branch)
{
	const char *colon;

	if (branch == NULL || *branch == '\0')
		return;
	if ((colon = strchr(branch, ':')) == NULL) {
		json_object_set_new(checkout, "tree_name", json_string(branch));
		return;
	}
	if (colon > branch)
		json_object_set_new(checkout, "tree_name",
		    json_stringn(branch, (size_t)(colon - branch)));
	if (colon[1] != '\0')
		json_object_set_new(checkout, "git_repository_branch",
		    json_string(colon + 1));
}

/* Only an https:// or git:// url is a repository url in KCIDB. */
static void
kc_repo(json_t *checkout, const char *url)
{
	size_t n;

	if (url == NULL || (strncmp(url, "https://", 8) != 0 &&
	    strncmp(url, "git://", 6) != 0))
		return;
	n = strcspn(url, " \t");
	json_object_set_new(checkout, "git_repository_url",
	    json_stringn(url, n));
}

/* One side of the comparison: its checkout, build and test. */
static void
kc_side(json_t *out, const json_t *report, const char *sha, const char *subject,
    const json_t *stats, const char *path, const char *bid)
{
	json_t *co, *b, *t, *num, *misc;
	char *tid;

	co = json_pack("{s:o, s:s, s:s, s:b}", "id", kc_id(sha),
	    "origin", REPORT_KCIDB_ORIGIN, "git_commit_hash", sha,
	    "valid", 1);
	kc_branch(co, kc_str(report, "branch"));
	kc_repo(co, kc_str(report, "repo_url"));
	if (subject != NULL)
		json_object_set_new(co, "comment", json_string(subject));
	json_array_append_new(json_object_get(out, "checkouts"), co);
	b = json_pack("{s:o, s:o, s:s, s:s}", "id", kc_id(sha),
	    "checkout_id", kc_id(sha), "origin",
	    REPORT_KCIDB_ORIGIN, "status", "PASS");
	json_array_append_new(json_object_get(out, "builds"), b);
	xasprintf(&tid, "%s-%s", bid, sha);
	t = json_pack("{s:o, s:o, s:s, s:s, s:s}", "id",
	    kc_id(tid), "build_id", kc_id(sha),
	    "origin", REPORT_KCIDB_ORIGIN, "path", path, "status", "DONE");
	free(tid);
	if (json_is_number(json_object_get(stats, "mean"))) {
		num = json_pack("{s:O}", "value", json_object_get(stats,
		    "mean"));
		json_object_set_new(t, "number", num);
	}
	misc = json_object();
	kc_set(misc, "runs", json_object_get(stats, "n"));
	kc_set(misc, "stddev", json_object_get(stats, "stddev"));
	kc_set(misc, "metric", json_object_get(report, "metric"));
	json_object_set_new(t, "misc", misc);
	json_object_set_new(t, "environment", json_pack("{s:s}", "comment",
	    kc_str(report, "host_group") ? kc_str(report, "host_group") :
	    "default"));
	json_array_append_new(json_object_get(out, "tests"), t);
}

/* The report's URL: its Closes: trailer, else its Link:. */
static const char *
kc_report_url(const json_t *report)
{
	const json_t *tr = json_object_get(json_object_get(report, "mail"),
	    "trailers"), *v;
	const char *keys[] = { "Closes: ", "Link: " }, *s;
	size_t i, k;

	for (k = 0; k < 2; k++)
		json_array_foreach(tr, i, v)
			if ((s = json_string_value(v)) != NULL &&
			    strncmp(s, keys[k], strlen(keys[k])) == 0)
				return s + strlen(keys[k]);
	return NULL;
}

/* The issue present or absent on the test of one side. */
static void
kc_incident(json_t *out, const char *iid, const char *sha, int present,
    const char *comment)
{
	char *id, *tid;

	xasprintf(&id, "%s-%s", iid, present ? "present" : "absent");
	xasprintf(&tid, "%s-%s", iid, sha);
	json_array_append_new(json_object_get(out, "incidents"), json_pack(
	    "{s:o, s:s, s:o, s:i, s:o, s:o, s:b, s:s}",
	    "id", kc_id(id), "origin", REPORT_KCIDB_ORIGIN,
	    "issue_id", kc_id(iid), "issue_version", 1,
	    "build_id", kc_id(sha), "test_id", kc_id(tid),
	    "present", present, "comment", comment));
	free(tid);
	free(id);
}

json_t *
report_kcidb(const json_t *report, struct bd_error *err)
{
	const json_t *culprit, *parent, *row;
	const char *id, *csha, *psha, *bench, *metric, *url;
	json_t *out, *issue, *misc;
	char *path, *iid, idbuf[24];

	/* An integer; a report stored by an older daemon has it as text. */
	if (json_is_integer(json_object_get(report, "id"))) {
		snprintf(idbuf, sizeof(idbuf), "%lld", (long long)
		    json_integer_value(json_object_get(report, "id")));
		id = idbuf;
	} else
		id = kc_str(report, "id");
	bench = kc_str(report, "benchmark");
	metric = kc_str(report, "metric");
	culprit = json_object_get(report, "culprit");
	parent = json_array_get(json_object_get(report, "parents"), 0);
	row = json_object_get(json_object_get(report, "headline"), "row");
	csha = kc_str(culprit, "sha");
	psha = kc_str(parent, "sha");
	if (id == NULL || bench == NULL || metric == NULL) {
		bd_error_set(err, -EINVAL, "not a report");
		return NULL;
	}
	if (csha == NULL || psha == NULL || strcmp(kc_str(report, "kind"),
	    "culprit") != 0) {
		bd_error_set(err, -EINVAL, "bisection %s has no culprit to "
		    "report to KCIDB", id);
		return NULL;
	}
	out = json_pack("{s:{s:i, s:i}, s:[], s:[], s:[], s:[], s:[]}",
	    "version", "major", REPORT_KCIDB_MAJOR, "minor",
	    REPORT_KCIDB_MINOR, "checkouts", "builds", "tests", "issues",
	    "incidents");
	path = kc_path(bench, metric);
	xasprintf(&iid, "bisection-%s", id);
	kc_side(out, report, psha, kc_str(parent, "subject"),
	    json_object_get(row, "base"), path, iid);
	kc_side(out, report, csha, kc_str(culprit, "subject"),
	    json_object_get(row, "head"), path, iid);
	issue = json_pack("{s:o, s:i, s:s, s:{s:b, s:b, s:b}, s:s?, s:s?}",
	    "id", kc_id(iid), "version", 1,
	    "origin", REPORT_KCIDB_ORIGIN,
	    "culprit", "code", 1, "tool", 0, "harness", 0,
	    "report_subject", kc_str(report, "subject"),
	    "comment", kc_str(json_object_get(report, "headline"), "text"));
	if ((url = kc_report_url(report)) != NULL)
		json_object_set_new(issue, "report_url", json_string(url));
	misc = json_pack("{s:s}", "culprit", csha);
	kc_set(misc, "confidence", json_object_get(report, "confidence"));
	json_object_set_new(issue, "misc", misc);
	json_array_append_new(json_object_get(out, "issues"), issue);
	kc_incident(out, iid, psha, 0, "the culprit's parent");
	kc_incident(out, iid, csha, 1, "the culprit");
	free(iid);
	free(path);
	return out;
}
