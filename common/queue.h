/* SPDX-License-Identifier: MIT */
/*
 * <sys/queue.h> plus the _SAFE iterators that glibc's copy lacks, for
 * loops that free the element they stand on.
 */
#ifndef COMMON_QUEUE_H
#define COMMON_QUEUE_H

#include <sys/queue.h>

#ifndef TAILQ_FOREACH_SAFE
#define TAILQ_FOREACH_SAFE(var, head, field, tvar)			\
	for ((var) = TAILQ_FIRST(head);					\
	    (var) != NULL && ((tvar) = TAILQ_NEXT(var, field), 1);	\
	    (var) = (tvar))
#endif

#endif
