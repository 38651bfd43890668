/* SPDX-License-Identifier: MIT */
/*
 * Allocation that cannot fail: out of memory is a broken invariant for a
 * daemon of this size, so these abort with a message instead of returning
 * NULL.  Memory from them is released with free().
 */
#ifndef COMMON_XMALLOC_H
#define COMMON_XMALLOC_H

#include <stddef.h>

void	*xmalloc(size_t size);
void	*xcalloc(size_t nmemb, size_t size);
void	*xreallocarray(void *ptr, size_t nmemb, size_t size);
char	*xstrdup(const char *s);
char	*xstrndup(const char *s, size_t n);
int	 xasprintf(char **ret, const char *fmt, ...)
	    __attribute__((format(printf, 2, 3)));

#endif
