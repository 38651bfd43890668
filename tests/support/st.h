/* SPDX-License-Identifier: MIT */
/*
 * The scheduler on its own, for the suites that drive it in-process: a
 * libuv loop, a store, a repository and a recording event sink, with no
 * control socket and no struct daemon.  Two sshd "hosts" on loopback
 * build and run the fixture's benchmark (tests/fixtures/e2e/make-repo.sh,
 * a planted culprit), so a bisection really reaches a verdict.
 *
 * One fixture per test worker (the global st); st_fini releases all of it
 * and is the suites' .fini, so a failed assertion still cleans up.
 */
#ifndef TESTS_SUPPORT_ST_H
#define TESTS_SUPPORT_ST_H

#include <stddef.h>
#include <stdint.h>

#include <git2.h>
#include <jansson.h>
#include <uv.h>

#include "config/config.h"
#include "sched/sched.h"
#include "store/store.h"
#include "tests/support/sshd.h"

#define ST_NHOSTS	2

/* Every event the scheduler emitted, in order, as {"kind": ..., fields}. */
struct st_sink {
	json_t		*events;
	uv_loop_t	*loop;
	int		 done;		/* a "done" event arrived */
	size_t		 nsamples;
	size_t		 stop_at;	/* samples after which to stop; 0: none */
	int64_t		 resumed;	/* bisection whose engine is looked at */
	size_t		 replayed;	/* its engine's samples once loaded */
	/* Sweep runs the test queues at the second probe-started (with
	 * second_probe), and their ends: done stops the loop only once
	 * every one of them is back. */
	void		(*second_probe)(struct st_sink *sink);
	unsigned	 sweep_runs;
	int		 sweep_priority;
	unsigned	 probes, sweeps_ok, sweeps_back;
	size_t		 sweep_queued_at;	/* index in events */
	int64_t		 sweep_row;		/* the sweep_refs row they sample */
};

struct st {
	struct sshd	 host[ST_NHOSTS];
	int		 nhosts;
	char		*dir;
	char		*repo_path;
	char		 good[41], bad[41], culprit[41];
	struct config	 cfg;
	struct store	*store;
	git_repository	*repo;
	uv_loop_t	 loop;
	int		 loop_ready;
	int		 git_ready;
	struct sched	*sched;
	struct st_sink	 sink;
};

extern struct st st;

void	 st_fini(void);
/* Fixture repository, hosts, configuration, store, repository, scheduler. */
void	 st_setup(const char *tag);
/* A scheduler over the test's loop, store and repository. */
void	 st_sched_start(void);
/* The shutdown a restart begins with: remote work stops, unrecorded. */
void	 st_sched_shutdown(void);
/*
 * The events of one kind of bisection id (0: of any), in order (caller
 * decrefs the list).
 */
json_t	*st_events(const char *kind, int64_t id);
/* The bisection that started id to verify its culprit, or 0. */
int64_t	 st_parent_of(int64_t id);
/* A request with the fixture's own range; the caller may change fields. */
void	 st_request(struct sched_request *r, const char *const *good);
/* Done runs of a bisection. */
size_t	 st_count_samples(int64_t id);

#endif
