/* SPDX-License-Identifier: MIT */
/*
 * The value kinds only [sweep] sections use: the list of watched metrics,
 * the schedule ("each" or "daily HH:MM") and a signed priority; and the
 * lookup of the metrics a sweep watches.
 */
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/error.h"
#include "common/xmalloc.h"
#include "config/config.h"
#include "config/internal.h"

/* Frees a names list and leaves it empty. */
void
config_sweep_names_free(struct config_names *names)
{
	size_t i;

	for (i = 0; i < names->n; i++)
		free(names->v[i]);
	free(names->v);
	names->v = NULL;
	names->n = 0;
}

/* "a, b, c": names, each once; checked against the benchmark later. */
int
config_sweep_value_names(const struct config_ctx *ctx,
    const struct config_key *key, void *base, const char *value,
    struct bd_error *err)
{
	struct config_names *field = CONFIG_FIELD(base, key, struct config_names);
	struct config_names got = { NULL, 0 };
	char item[BD_METRIC_NAME_MAX + 1];
	const char *s = value;
	size_t n = 0, i;
	int rc;

	(void)ctx;
	if (value[0] == '\0')
		return bd_error_set(err, -EINVAL, "empty value (use metric "
		    "names separated by commas)");
	while ((rc = config_list_next(&s, item, sizeof(item), &n, err)) > 0) {
		/* The one rule for metric names, as in [benchmark] metrics. */
		if (!bd_metric_name_valid(item)) {
			rc = bd_error_set(err, -EINVAL, "invalid metric name "
			    "'%s'", item);
			goto fail;
		}
		for (i = 0; i < got.n; i++)
			if (strcmp(got.v[i], item) == 0) {
				rc = bd_error_set(err, -EINVAL,
				    "metric '%s' listed twice", item);
				goto fail;
			}
		got.v = xreallocarray(got.v, got.n + 1, sizeof(*got.v));
		got.v[got.n++] = xstrdup(item);
	}
	if (rc < 0)
		goto fail;
	config_sweep_names_free(field);
	*field = got;
	return 0;
fail:
	config_sweep_names_free(&got);
	return rc;
}

/* "H:MM" or "HH:MM" on a 24-hour clock, nothing else. */
static int
config_sweep_clock(const char *s, unsigned *h, unsigned *m)
{
	size_t i = 0;

	*h = 0;
	while (i < 2 && isdigit((unsigned char)s[i]))
		*h = *h * 10 + (unsigned)(s[i++] - '0');
	if (i == 0 || s[i] != ':' || !isdigit((unsigned char)s[i + 1]) ||
	    !isdigit((unsigned char)s[i + 2]) || s[i + 3] != '\0')
		return -EINVAL;
	*m = (unsigned)(s[i + 1] - '0') * 10 + (unsigned)(s[i + 2] - '0');
	return *h < 24 && *m < 60 ? 0 : -ERANGE;
}

/* "each", or "daily HH:MM" in UTC, so a host's time zone changes nothing. */
int
config_sweep_value_schedule(const struct config_ctx *ctx,
    const struct config_key *key, void *base, const char *value,
    struct bd_error *err)
{
	struct config_schedule *sc = CONFIG_FIELD(base, key,
	    struct config_schedule);
	unsigned h, m;

	(void)ctx;
	if (strcmp(value, "each") == 0) {
		sc->kind = CONFIG_SCHEDULE_EACH;
		sc->minute = 0;
		return 0;
	}
	if (strncmp(value, "daily ", 6) == 0 &&
	    config_sweep_clock(value + 6, &h, &m) == 0) {
		sc->kind = CONFIG_SCHEDULE_DAILY;
		sc->minute = h * 60 + m;
		return 0;
	}
	return bd_error_set(err, -EINVAL, "'%s' is not a schedule (use each "
	    "or daily HH:MM, UTC)", value);
}

/* A decimal integer with an optional minus sign, within the range. */
int
config_sweep_value_priority(const struct config_ctx *ctx,
    const struct config_key *key, void *base, const char *value,
    struct bd_error *err)
{
	const char *p = value[0] == '-' ? value + 1 : value;
	char *end;
	long v;

	(void)ctx;
	errno = 0;
	if (!isdigit((unsigned char)*p) ||
	    (v = strtol(value, &end, 10), *end != '\0'))
		return bd_error_set(err, -EINVAL, "'%s' is not a whole "
		    "number", value);
	if (errno != 0 || v < CONFIG_PRIORITY_MIN || v > CONFIG_PRIORITY_MAX)
		return bd_error_set(err, -ERANGE, "%s is out of range (%d to "
		    "%d)", value, CONFIG_PRIORITY_MIN, CONFIG_PRIORITY_MAX);
	*CONFIG_FIELD(base, key, int) = (int)v;
	return 0;
}

/* See config.h: the list, or the benchmark's numeric metrics. */
size_t
config_sweep_metrics(const struct config *cfg, const struct config_sweep *w,
    const struct config_metric **out, size_t max)
{
	const struct config_benchmark *b;
	const struct config_metric *m;
	size_t i, n = 0;

	if (w->benchmark == NULL ||
	    (b = config_benchmark_find(cfg, w->benchmark)) == NULL)
		return 0;
	if (w->metrics.n > 0) {
		for (i = 0; i < w->metrics.n; i++) {
			m = config_metric_find(b, w->metrics.v[i]);
			if (m == NULL)
				continue;
			if (n < max)
				out[n] = m;
			n++;
		}
		return n;
	}
	for (i = 0; i < b->nmetrics; i++) {
		if (b->metrics[i].kind != CONFIG_METRIC_NUMERIC)
			continue;
		if (n < max)
			out[n] = &b->metrics[i];
		n++;
	}
	return n;
}
