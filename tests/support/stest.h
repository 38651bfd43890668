/* SPDX-License-Identifier: MIT */
/*
 * The store tests' shared fixture (tests/unit/store_*_test.c): a fresh
 * directory and database path per test, the store and a forked child the
 * teardown cleans up even after a failed assertion, and helpers that fail
 * the calling test when the store refuses what they ask.
 *
 * A suite uses it with `.init = stest_setup, .fini = stest_teardown`.
 * A test that opens the store keeps it in stest_db (closed by the
 * teardown); one that forks keeps the pid in stest_child.
 */
#ifndef TESTS_SUPPORT_STEST_H
#define TESTS_SUPPORT_STEST_H

#include <sys/types.h>

#include <stdint.h>

#include "store/store.h"

/* Three full commit ids. */
#define STEST_A	"aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"
#define STEST_B	"bbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb"
#define STEST_C	"cccccccccccccccccccccccccccccccccccccccc"

extern char		*stest_dir;
extern char		*stest_dbpath;	/* stest_dir/state.db */
extern struct store	*stest_db;
extern pid_t		 stest_child;

/* Collects the values of one metric, in the order the store returns them. */
struct stest_collect {
	const char	*metric;
	double		 v[64];
	int64_t		 seq[64];
	int		 n;
};

void	 stest_setup(void);
void	 stest_teardown(void);
/* Opens stest_dbpath, failing the test with the store's message. */
struct store *stest_open(void);
/* A request from uid 1000 for goods A C, bad B, dedup key key or NULL. */
void	 stest_fill_bisection(struct store_bisection *b, const char *key,
	    int priority);
/* Creates that request as a queued bisection; returns its id. */
int64_t	 stest_add_bisection(struct store *s, const char *key, int priority);
/* A done run of commit with two metrics (value v and 2v); its id. */
int64_t	 stest_add_done_run(struct store *s, int64_t bis, const char *commit,
	    double v);
struct store_bisection_stats stest_stats(struct store *s, int64_t bis);
int	 stest_count_event(void *arg, const struct store_event *ev);
/*
 * Writes the database at path as an older bisectd left it: the built-in
 * migrations up to version, in WAL mode, with one audit event (uid 1000,
 * "ping") so a copy can be told from an empty file.
 */
void	 stest_old_db(const char *path, int version);
/* PRAGMA user_version of the database at path, and its count of events. */
void	 stest_db_facts(const char *path, int *versionp, int *eventsp);
int	 stest_collect_sample(void *arg, const struct store_sample *sm);

#endif
