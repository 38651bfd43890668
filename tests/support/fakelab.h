/* SPDX-License-Identifier: MIT */
/*
 * A LAVA lab that misbehaves on demand, for the lab tests that a real lab
 * cannot serve: an HTTP/1.1 responder on 127.0.0.1 in a thread of the
 * test that speaks enough of the REST API v0.2 for the daemon (the device
 * type probe, job lookup by description, submission, job status, cancel)
 * and keeps every job "Running" for ever.  It records each request as
 * "METHOD PATH" (the query left off) in arrival order.
 *
 * fakelab_release is safe on a zeroed struct and twice, so a suite's
 * .fini may call it after a failed assertion.
 */
#ifndef TESTS_SUPPORT_FAKELAB_H
#define TESTS_SUPPORT_FAKELAB_H

#include <pthread.h>
#include <stddef.h>

struct fakelab {
	int		 inited;
	int		 lfd;
	pthread_t	 thread;
	int		 started;
	int		 hang_cancel;	/* cancels are read, never answered */
	char		 url[64];	/* http://127.0.0.1:PORT */
	pthread_mutex_t	 lock;		/* guards what follows */
	char		**reqs;
	size_t		 nreqs;
	int		*held;		/* connections left unanswered */
	size_t		 nheld;
	int		 next_job;
};

/* Listens and starts the thread; the test fails when it cannot. */
void	 fakelab_start(struct fakelab *fl, int hang_cancel);
/* Stops the thread and closes every connection, held ones too. */
void	 fakelab_release(struct fakelab *fl);
/* Index of the first request after from equal to line, or -1. */
long	 fakelab_find(struct fakelab *fl, size_t from, const char *line);
/* Requests starting with prefix. */
size_t	 fakelab_count(struct fakelab *fl, const char *prefix);
/* Every request, one a line, for a failing test's message; caller frees. */
char	*fakelab_text(struct fakelab *fl);

#endif
