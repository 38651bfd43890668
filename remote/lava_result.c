/* SPDX-License-Identifier: MIT */
/*
 * Test cases of a LAVA job.  LAVA's own steps sit in suite "lava" (their
 * metadata says "definition: lava"); an Incomplete job has a failing case
 * "job" there whose metadata carries error_type and error_msg.  Cases of
 * the job's own definitions become metrics when they have a measurement.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/agg.h"
#include "common/decimal.h"
#include "common/xmalloc.h"
#include "remote/lava_result.h"

void
lava_result_init(struct lava_result *r)
{
	memset(r, 0, sizeof(*r));
	metrics_init(&r->metrics);
}

void
lava_result_release(struct lava_result *r)
{
	metrics_release(&r->metrics);
	lava_result_init(r);
}

void
lava_result_meta(const char *meta, const char *key, char *out, size_t outsz)
{
	size_t klen = strlen(key), n;
	const char *p = meta, *e;

	out[0] = '\0';
	while (p != NULL && *p != '\0') {
		e = strchr(p, '\n');
		n = e ? (size_t)(e - p) : strlen(p);
		if (n > klen + 1 && strncmp(p, key, klen) == 0 &&
		    p[klen] == ':' && p[klen + 1] == ' ') {
			p += klen + 2;
			n -= klen + 2;
			/* A quoted YAML scalar keeps its text between quotes. */
			if (n >= 2 && (p[0] == '\'' || p[0] == '"') &&
			    p[n - 1] == p[0]) {
				p++;
				n -= 2;
			}
			snprintf(out, outsz, "%.*s", (int)n, p);
			return;
		}
		p = e ? e + 1 : NULL;
	}
}

/* One case: a metric, the build marker, or LAVA's verdict on the job. */
static int
lava_result_case(struct lava_result *r, json_t *c, const char *build_case,
    struct bd_error *err)
{
	const char *name = json_string_value(json_object_get(c, "name"));
	const char *res = json_string_value(json_object_get(c, "result"));
	const char *meta = json_string_value(json_object_get(c, "metadata"));
	json_t *mj = json_object_get(c, "measurement");
	char def[64];
	double v;
	size_t i;
	int rc;

	if (name == NULL || res == NULL)
		return bd_error_set(err, -EINVAL, "a test case without name "
		    "or result");
	lava_result_meta(meta ? meta : "", "definition", def, sizeof(def));
	if (strcmp(def, "lava") == 0) {
		if (strcmp(name, "job") == 0 && strcmp(res, "fail") == 0) {
			lava_result_meta(meta ? meta : "", "error_type",
			    r->error_type, sizeof(r->error_type));
			lava_result_meta(meta ? meta : "", "error_msg",
			    r->error_msg, sizeof(r->error_msg));
		}
		return 0;
	}
	if (build_case != NULL && strcmp(name, build_case) == 0 &&
	    strcmp(res, "fail") == 0)
		r->build_failed = true;
	if (json_is_number(mj)) {
		v = json_number_value(mj);
	} else if (json_is_string(mj)) {
		if (decimal_parse(json_string_value(mj), &v) != 0)
			v = NAN;
	} else {
		return 0;
	}
	if ((rc = metrics_name_check("test case", name, err)) < 0)
		return rc;
	if (!agg_value_valid(v))
		return bd_error_set(err, -EINVAL, "test case %s: measurement "
		    "'%.64s' is not a decimal number of at most %g in magnitude",
		    name, json_is_string(mj) ? json_string_value(mj) : "inf",
		    BD_VALUE_MAX);
	if (r->metrics.n >= LAVA_RESULT_MAX_METRICS)
		return bd_error_set(err, -EINVAL, "more than %d measured test "
		    "cases", LAVA_RESULT_MAX_METRICS);
	for (i = 0; i < r->metrics.n; i++)
		if (strcmp(r->metrics.v[i].name, name) == 0)
			return bd_error_set(err, -EINVAL, "test case %s "
			    "reported twice", name);
	metrics_append(&r->metrics, name, v, 0);	/* one value per case */
	return 0;
}

/* Where a URL's "scheme://authority" ends; 0 when it has none. */
static size_t
lava_result_origin_len(const char *url)
{
	const char *p = strstr(url, "://");

	if (p == NULL || p == url || strcspn(url, "/?#") < (size_t)(p - url))
		return 0;
	return (size_t)(p + 3 - url) + strcspn(p + 3, "/?#");
}

/*
 * The lab's link to the next page, moved onto base: LAVA writes it with
 * the host it was asked by, and a link to any other host would take the
 * token there.
 */
static int
lava_result_next(const char *base, const char *link, char **next,
    struct bd_error *err)
{
	size_t olen = lava_result_origin_len(base), plen;
	const char *path = link + lava_result_origin_len(link);
	const unsigned char *p;

	plen = strlen(base) - olen;
	for (p = (const unsigned char *)path; *p != '\0'; p++)
		if (*p <= ' ' || *p >= 0x7f)
			break;
	if (olen == 0 || *p != '\0' || strncmp(path, base + olen, plen) != 0 ||
	    strncmp(path + plen, "/api/", 5) != 0)
		return bd_error_set(err, -EINVAL, "test cases: the next page's "
		    "link \"%.80s\" is not under %s/api/", link, base);
	xasprintf(next, "%.*s%s", (int)olen, base, path);
	return 0;
}

int
lava_result_page(struct lava_result *r, const char *body, size_t len,
    const char *build_case, const char *base, char **next,
    struct bd_error *err)
{
	json_error_t je;
	json_t *root, *res, *c, *nx;
	size_t i;
	int rc = 0;

	*next = NULL;
	if (++r->pages > LAVA_RESULT_MAX_PAGES)
		return bd_error_set(err, -EINVAL, "test cases: more than %d "
		    "pages", LAVA_RESULT_MAX_PAGES);
	root = json_loadb(body, len, 0, &je);
	if (root == NULL)
		return bd_error_set(err, -EINVAL, "test cases: not JSON: %s",
		    je.text);
	res = json_object_get(root, "results");
	if (!json_is_array(res)) {
		json_decref(root);
		return bd_error_set(err, -EINVAL, "test cases: no results");
	}
	json_array_foreach(res, i, c)
		if ((rc = lava_result_case(r, c, build_case, err)) < 0)
			break;
	nx = json_object_get(root, "next");
	if (rc == 0 && json_is_string(nx))
		rc = lava_result_next(base, json_string_value(nx), next, err);
	json_decref(root);
	return rc;
}
