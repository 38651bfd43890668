/* SPDX-License-Identifier: MIT */
/*
 * A LAVA lab's test-case pages (remote/lava_result.c): whatever bytes a lab
 * answers give either measured cases (valid metric names, finite values,
 * each name once, never more than LAVA_RESULT_MAX_METRICS) and a link to
 * the next page that stays on the configured lab under its API path, or
 * -EINVAL with a message and no link.  Fields read from a case's metadata
 * are one line each and fit their buffers.
 *
 * Input: one byte of flags (bit 0: the lab's url has a path, bit 1: fold
 * the page twice, as a lab repeating itself would), then the page.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "common/names.h"
#include "remote/lava_result.h"
#include "tests/fuzz/fuzz.h"

/* What an accepted page promises the job that follows its link. */
static void
fuzz_lava_check_next(const char *base, const char *next)
{
	size_t blen = strlen(base);
	const unsigned char *p;

	if (next == NULL)
		return;
	if (strncmp(next, base, blen) != 0 ||
	    strncmp(next + blen, "/api/", 5) != 0)
		fuzz_fail("next page %s is not under %s/api/", next, base);
	for (p = (const unsigned char *)next; *p != '\0'; p++)
		if (*p <= ' ' || *p >= 0x7f)
			fuzz_fail("next page link has byte 0x%02x", *p);
}

/* What the folded cases promise the store. */
static void
fuzz_lava_check_result(const struct lava_result *r)
{
	size_t i, j;

	if (r->metrics.n > LAVA_RESULT_MAX_METRICS)
		fuzz_fail("%zu measured cases kept", r->metrics.n);
	for (i = 0; i < r->metrics.n; i++) {
		if (!bd_metric_name_valid(r->metrics.v[i].name))
			fuzz_fail("metric name %s is not valid",
			    r->metrics.v[i].name);
		if (!isfinite(r->metrics.v[i].value))
			fuzz_fail("metric %s is not finite",
			    r->metrics.v[i].name);
		for (j = 0; j < i; j++)
			if (strcmp(r->metrics.v[i].name,
			    r->metrics.v[j].name) == 0)
				fuzz_fail("metric %s kept twice",
				    r->metrics.v[i].name);
	}
	if (memchr(r->error_type, '\0', sizeof(r->error_type)) == NULL ||
	    memchr(r->error_msg, '\0', sizeof(r->error_msg)) == NULL)
		fuzz_fail("the lab's error is not terminated");
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const char *base;
	struct lava_result r;
	struct bd_error err;
	char *next, *text, meta[32];
	int rc, pass;

	if (size == 0)
		return 0;
	base = (data[0] & 1) ? "https://127.0.0.1:8443/lava" :
	    "http://127.0.0.1:8000";
	lava_result_init(&r);
	for (pass = 0; pass < ((data[0] & 2) ? 2 : 1); pass++) {
		bd_error_clear(&err);
		rc = lava_result_page(&r, (const char *)data + 1, size - 1,
		    "build", base, &next, &err);
		if (rc == 0) {
			fuzz_lava_check_next(base, next);
		} else {
			if (rc != -EINVAL)
				fuzz_fail("page returned %d, not -EINVAL", rc);
			if (next != NULL)
				fuzz_fail("a refused page left a link");
			if (err.msg[0] == '\0')
				fuzz_fail("a refused page has no message");
		}
		fuzz_lava_check_result(&r);
		free(next);
	}
	lava_result_release(&r);
	/* The same bytes as a case's metadata text. */
	text = fuzz_strndup(data + 1, size - 1);
	lava_result_meta(text, "error_msg", meta, sizeof(meta));
	if (memchr(meta, '\0', sizeof(meta)) == NULL || strchr(meta, '\n'))
		fuzz_fail("a metadata value is not one terminated line");
	free(text);
	return 0;
}
