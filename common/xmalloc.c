/* SPDX-License-Identifier: MIT */
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/xmalloc.h"

/* Out of memory leaves nothing sensible to do; say so and stop. */
static void __attribute__((noreturn))
xmalloc_die(const char *what, size_t n)
{
	fprintf(stderr, "fatal: %s: out of memory (%zu bytes)\n", what, n);
	abort();
}

void *
xmalloc(size_t size)
{
	void *p = malloc(size ? size : 1);

	if (p == NULL)
		xmalloc_die("xmalloc", size);
	return p;
}

void *
xcalloc(size_t nmemb, size_t size)
{
	void *p;

	if (nmemb == 0 || size == 0)
		nmemb = size = 1;
	p = calloc(nmemb, size);
	if (p == NULL)
		xmalloc_die("xcalloc", nmemb * size);
	return p;
}

/* Grows an array with an overflow check, as reallocarray(3) does. */
void *
xreallocarray(void *ptr, size_t nmemb, size_t size)
{
	void *p;

	if (size != 0 && nmemb > SIZE_MAX / size)
		xmalloc_die("xreallocarray overflow", SIZE_MAX);
	p = realloc(ptr, (nmemb * size) != 0 ? nmemb * size : 1);
	if (p == NULL)
		xmalloc_die("xreallocarray", nmemb * size);
	return p;
}

char *
xstrdup(const char *s)
{
	char *p = strdup(s);

	if (p == NULL)
		xmalloc_die("xstrdup", strlen(s));
	return p;
}

char *
xstrndup(const char *s, size_t n)
{
	char *p = strndup(s, n);

	if (p == NULL)
		xmalloc_die("xstrndup", n);
	return p;
}

int
xasprintf(char **ret, const char *fmt, ...)
{
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vasprintf(ret, fmt, ap);
	va_end(ap);
	if (n < 0)
		xmalloc_die("xasprintf", 0);
	return n;
}
