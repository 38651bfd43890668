/* SPDX-License-Identifier: MIT */
/*
 * Benchmark results to samples: see metrics.h.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "common/agg.h"
#include "common/names.h"
#include "common/xmalloc.h"
#include "remote/metrics.h"

/* Starts empty so that release is always safe. */
void
metrics_init(struct metrics *m)
{
	m->v = NULL;
	m->n = 0;
}

/* Frees the names and the array; m is empty afterwards. */
void
metrics_release(struct metrics *m)
{
	size_t i;

	for (i = 0; i < m->n; i++)
		free(m->v[i].name);
	free(m->v);
	metrics_init(m);
}

/* Results outlive the step that parsed them, so callers keep copies. */
void
metrics_copy(struct metrics *dst, const struct metrics *src)
{
	size_t i;

	metrics_init(dst);
	if (src->n == 0)
		return;
	dst->v = xcalloc(src->n, sizeof(*dst->v));
	for (i = 0; i < src->n; i++) {
		dst->v[i].name = xstrdup(src->v[i].name);
		dst->v[i].value = src->v[i].value;
		dst->v[i].index = src->v[i].index;
	}
	dst->n = src->n;
}

/* Linear search: a benchmark reports a handful of metrics. */
const struct metrics_value *
metrics_find(const struct metrics *m, const char *name)
{
	size_t i;

	for (i = 0; i < m->n; i++) {
		if (strcmp(m->v[i].name, name) == 0)
			return &m->v[i];
	}
	return NULL;
}

/* Short excerpt of bad input for an error message. */
static void
metrics_excerpt(const char *text, size_t len, char *buf, size_t bufsz)
{
	size_t i, n = len < bufsz - 4 ? len : bufsz - 4;

	for (i = 0; i < n; i++)
		buf[i] = (text[i] >= 0x20 && text[i] < 0x7f) ? text[i] : '?';
	if (n < len)
		memcpy(buf + n, "...", 3), n += 3;
	buf[n] = '\0';
}

/* JSON's word for a value that is not a number, for messages. */
static const char *
metrics_json_kind(const json_t *val)
{
	return json_is_string(val) ? "string" : json_is_boolean(val) ?
	    "boolean" : json_is_null(val) ? "null" : json_is_object(val) ?
	    "object" : json_is_array(val) ? "array" : "number";
}

void
metrics_append(struct metrics *m, const char *name, double value,
    unsigned index)
{
	m->v = xreallocarray(m->v, m->n + 1, sizeof(*m->v));
	m->v[m->n].name = xstrdup(name);
	m->v[m->n].value = value;
	m->v[m->n].index = index;
	m->n++;
}

/* Appends one sample of key, refusing anything but a finite number. */
static int
metrics_add(const char *key, const json_t *val, unsigned index,
    struct metrics *out, struct bd_error *err)
{
	double d;

	if (!json_is_number(val))
		return bd_error_set(err, -EINVAL,
		    "result metric \"%s\" is not a number (JSON %s)", key,
		    metrics_json_kind(val));
	d = json_number_value(val);
	if (!isfinite(d))
		return bd_error_set(err, -EINVAL,
		    "result metric \"%s\" is not finite", key);
	if (!agg_value_valid(d))
		return bd_error_set(err, -EINVAL, "result metric \"%s\" "
		    "value %g is beyond %g in magnitude, more than the "
		    "statistics can add up", key, d, BD_VALUE_MAX);
	metrics_append(out, key, d, index);
	return 0;
}

/* One wording for a refused name, whichever producer of metrics sent it. */
int
metrics_name_check(const char *what, const char *name, struct bd_error *err)
{
	if (bd_metric_name_valid(name))
		return 0;
	return bd_error_set(err, -EINVAL, "%s \"%.64s%s\" is not a valid "
	    "metric name (printable, up to %d bytes, no comma)", what, name,
	    strlen(name) > 64 ? "..." : "", BD_METRIC_NAME_MAX);
}

/*
 * Converts one member: a number is one sample, an array of numbers (LKP's
 * matrix.json shape, one value per iteration) one sample per element.
 */
static int
metrics_member(const char *key, json_t *val, struct metrics *out,
    struct bd_error *err)
{
	json_t *el;
	size_t i;
	int rc;

	if ((rc = metrics_name_check("result metric name", key, err)) < 0)
		return rc;
	if (!json_is_array(val))
		return metrics_add(key, val, 0, out, err);
	if (json_array_size(val) == 0)
		return bd_error_set(err, -EINVAL,
		    "result metric \"%s\" is an empty array", key);
	json_array_foreach(val, i, el) {
		if (json_is_array(el))
			return bd_error_set(err, -EINVAL, "result metric "
			    "\"%s\" element %zu is not a number (JSON array)",
			    key, i);
		if ((rc = metrics_add(key, el, (unsigned)i, out, err)) != 0)
			return rc;
	}
	return 0;
}

/*
 * jansson with JSON_REJECT_DUPLICATES does the syntax work; this adds the
 * rules of a result: an object, numbers only, the configured metrics there.
 */
int
metrics_parse(const char *text, size_t len,
    const struct config_benchmark *bench, struct metrics *out,
    struct bd_error *err)
{
	json_error_t jerr;
	json_t *root, *val;
	const char *key;
	char ex[64];
	size_t i;
	int rc = 0;

	metrics_init(out);
	root = json_loadb(text, len, JSON_REJECT_DUPLICATES, &jerr);
	if (root == NULL) {
		metrics_excerpt(text, len, ex, sizeof(ex));
		return bd_error_set(err, -EINVAL,
		    "result is not valid JSON (%s at column %d): \"%s\"",
		    jerr.text, jerr.column, ex);
	}
	if (!json_is_object(root)) {
		json_decref(root);
		return bd_error_set(err, -EINVAL,
		    "result is JSON but not an object of metrics");
	}
	if (json_object_size(root) == 0) {
		json_decref(root);
		return bd_error_set(err, -EINVAL, "result object has no metrics");
	}
	json_object_foreach(root, key, val) {
		if ((rc = metrics_member(key, val, out, err)) != 0)
			goto out;
	}
	for (i = 0; bench != NULL && i < bench->nmetrics; i++) {
		if (metrics_find(out, bench->metrics[i].name) == NULL) {
			rc = bd_error_set(err, -EINVAL,
			    "result has no value for metric \"%s\"",
			    bench->metrics[i].name);
			goto out;
		}
	}
out:
	json_decref(root);
	if (rc != 0)
		metrics_release(out);
	return rc;
}

/* The run step may print progress first; only its last line is the result. */
int
metrics_parse_last_line(const char *text, size_t len, bool truncated,
    const struct config_benchmark *bench, struct metrics *out,
    struct bd_error *err)
{
	size_t end = len, start;

	metrics_init(out);
	while (end > 0 && (text[end - 1] == '\n' || text[end - 1] == '\r' ||
	    text[end - 1] == ' ' || text[end - 1] == '\t'))
		end--;
	if (end == 0)
		return bd_error_set(err, -EINVAL,
		    "no result: the output is empty");
	start = end;
	while (start > 0 && text[start - 1] != '\n')
		start--;
	if (start == 0 && truncated)
		return bd_error_set(err, -EINVAL,
		    "result line is longer than the %zu bytes kept", len);
	return metrics_parse(text + start, end - start, bench, out, err);
}
