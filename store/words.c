/* SPDX-License-Identifier: MIT */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/xmalloc.h"
#include "store/store.h"
#include "store/store_int.h"

/* The path the store was opened at (NULL for no store). */
const char *
store_path(const struct store *s)
{
	return s != NULL ? s->path : NULL;
}

/*
 * Store errors are written for the daemon's log ("store PATH: what:
 * why").  What a person reads (a reply, a failed bisection's message)
 * has every "store PATH: " dropped and any other mention of the path
 * said as "the database", so the file layout stays the administrator's.
 */
int
store_scrub(const char *path, char *msg, size_t size)
{
	static const char word[] = "the database";
	size_t plen, pre, n = 0, cap;
	char *prefix, *out, *p = msg, *hit;
	int lead = 0;

	if (path == NULL || *path == '\0' || size == 0)
		return 0;
	plen = strlen(path);
	xasprintf(&prefix, "store %s: ", path);
	pre = strlen(prefix);
	cap = strlen(msg) + (strlen(msg) / plen + 1) * sizeof(word) + 1;
	out = xmalloc(cap);
	while ((hit = strstr(p, path)) != NULL) {
		/* "store " right before the path and ": " after it. */
		if (hit - p >= 6 && strncmp(hit - 6, prefix, pre) == 0) {
			memcpy(out + n, p, (size_t)(hit - 6 - p));
			n += (size_t)(hit - 6 - p);
			lead |= hit - 6 == msg;
			p = hit - 6 + pre;
			continue;
		}
		memcpy(out + n, p, (size_t)(hit - p));
		n += (size_t)(hit - p);
		memcpy(out + n, word, sizeof(word) - 1);
		n += sizeof(word) - 1;
		p = hit + plen;
	}
	memcpy(out + n, p, strlen(p) + 1);
	snprintf(msg, size, "%s", out);
	free(out);
	free(prefix);
	return lead;
}
