/* SPDX-License-Identifier: MIT */
/*
 * Benchmark results (remote/metrics.c): any bytes a run step prints give
 * either samples (named, finite numbers, every configured metric present)
 * or -EINVAL with a message that can go into a JSON reply as it is (set,
 * well-formed UTF-8).
 *
 * Input: one byte of flags (bit 0: parse the last line, bit 1: the output
 * was truncated, bit 2: a benchmark with configured metrics), then the
 * output.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "common/agg.h"
#include "remote/metrics.h"
#include "tests/fuzz/fuzz.h"

static struct config_metric fuzz_metrics_want[] = {
	{ .name = (char *)"throughput", .kind = CONFIG_METRIC_NUMERIC },
	{ .name = (char *)"vm-scalability.throughput",
	  .kind = CONFIG_METRIC_NUMERIC },
};

/* What a successful parse promises its callers. */
static void
fuzz_metrics_check_ok(const struct metrics *m,
    const struct config_benchmark *bench)
{
	size_t i, j;

	if (m->n == 0)
		fuzz_fail("a result without metrics was accepted");
	for (i = 0; i < m->n; i++) {
		if (m->v[i].name == NULL || !agg_value_valid(m->v[i].value))
			fuzz_fail("metric %zu has no name or is not finite "
			    "within the bound", i);
		if (!fuzz_utf8_valid(m->v[i].name, strlen(m->v[i].name)))
			fuzz_fail("metric name is not UTF-8");
	}
	for (j = 0; bench != NULL && j < bench->nmetrics; j++)
		if (metrics_find(m, bench->metrics[j].name) == NULL)
			fuzz_fail("configured metric %s missing from an "
			    "accepted result", bench->metrics[j].name);
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct config_benchmark bench;
	struct metrics m, copy;
	struct bd_error err;
	const char *text;
	size_t len;
	int rc;

	if (size == 0)
		return 0;
	memset(&bench, 0, sizeof(bench));
	bench.name = (char *)"fuzz";
	bench.metrics = fuzz_metrics_want;
	bench.nmetrics = sizeof(fuzz_metrics_want) /
	    sizeof(fuzz_metrics_want[0]);
	text = (const char *)data + 1;
	len = size - 1;
	bd_error_clear(&err);
	if (data[0] & 1)
		rc = metrics_parse_last_line(text, len, (data[0] & 2) != 0,
		    (data[0] & 4) ? &bench : NULL, &m, &err);
	else
		rc = metrics_parse(text, len, (data[0] & 4) ? &bench : NULL,
		    &m, &err);
	if (rc == 0) {
		fuzz_metrics_check_ok(&m, (data[0] & 4) ? &bench : NULL);
		metrics_copy(&copy, &m);
		if (copy.n != m.n)
			fuzz_fail("metrics_copy lost values");
		metrics_release(&copy);
	} else {
		if (rc != -EINVAL)
			fuzz_fail("metrics parse returned %d, not -EINVAL", rc);
		if (m.n != 0 || m.v != NULL)
			fuzz_fail("a failed parse left values behind");
		if (err.msg[0] == '\0')
			fuzz_fail("a refused result has no message");
		/* Pending: jansson's error text quotes raw input bytes. */
		if (!fuzz_utf8_valid(err.msg, strlen(err.msg)) &&
		    fuzz_strict())
			fuzz_fail("error message is not UTF-8: %s", err.msg);
	}
	metrics_release(&m);
	return 0;
}
