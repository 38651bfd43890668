/* SPDX-License-Identifier: MIT */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tests/fuzz/fuzz.h"

/* abort() is what libFuzzer turns into a saved reproducer. */
void
fuzz_fail(const char *fmt, ...)
{
	va_list ap;

	fputs("oracle: ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	abort();
}

/*
 * Written out here rather than taken from the code under test, so that a
 * bug in one cannot hide the same bug in the other.
 */
int
fuzz_utf8_valid(const char *s, size_t len)
{
	const unsigned char *p = (const unsigned char *)s;
	size_t i = 0, n, k;
	unsigned cp;

	while (i < len) {
		if (p[i] < 0x80) {
			i++;
			continue;
		}
		if ((p[i] & 0xe0) == 0xc0)
			n = 1, cp = p[i] & 0x1f;
		else if ((p[i] & 0xf0) == 0xe0)
			n = 2, cp = p[i] & 0x0f;
		else if ((p[i] & 0xf8) == 0xf0)
			n = 3, cp = p[i] & 0x07;
		else
			return 0;
		if (len - i <= n)
			return 0;
		for (k = 1; k <= n; k++) {
			if ((p[i + k] & 0xc0) != 0x80)
				return 0;
			cp = (cp << 6) | (p[i + k] & 0x3f);
		}
		if ((n == 1 && cp < 0x80) || (n == 2 && cp < 0x800) ||
		    (n == 3 && cp < 0x10000) || cp > 0x10ffff ||
		    (cp >= 0xd800 && cp <= 0xdfff))
			return 0;
		i += n + 1;
	}
	return 1;
}

/* Targets that want a C string stop at the first NUL like the code does. */
char *
fuzz_strndup(const uint8_t *data, size_t size)
{
	char *s = malloc(size + 1);

	if (s == NULL)
		abort();
	memcpy(s, data, size);
	s[size] = '\0';
	return s;
}

/* Read once: the environment does not change during a run. */
int
fuzz_strict(void)
{
	static int strict = -1;
	const char *v;

	if (strict < 0) {
		v = getenv("FUZZ_STRICT");
		strict = v != NULL && strcmp(v, "1") == 0;
	}
	return strict;
}
