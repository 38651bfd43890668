/* SPDX-License-Identifier: MIT */
/*
 * Online backups of the store: a copy taken while another process keeps
 * writing runs and samples is one consistent snapshot, and a backup never
 * replaces a file or leaves a broken one behind.
 */
#include <sys/stat.h>
#include <sys/wait.h>

#include <criterion/criterion.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common/xmalloc.h"
#include "store/store.h"
#include "tests/support/stest.h"
#include "tests/support/tst.h"

TestSuite(store_backup, .init = stest_setup, .fini = stest_teardown);

#define BACKUP_WRITER_RUNS	20000

/* The child: runs with two samples each, as fast as SQLite takes them. */
static void
backup_writer(int64_t bis)
{
	struct store_metric m[2] = { { "throughput", 1, 0 },
	    { "latency", 2, 0 } };
	struct store_run_result res = { .state = STORE_RUN_DONE, .has_exit = 1 };
	struct store *s;
	struct bd_error err;
	int64_t id;
	int i;

	if (store_open(&s, stest_dbpath, &err) < 0)
		_exit(2);
	for (i = 0; i < BACKUP_WRITER_RUNS; i++) {
		m[0].value = i;
		if (store_run_create(s, bis, STEST_A, &id, &err) < 0 ||
		    store_run_start(s, id, "h", &err) < 0 ||
		    store_run_finish(s, id, &res, m, 2, &err) < 0)
			_exit(3);
	}
	store_close(s);
	_exit(0);
}

Test(store_backup, a_copy_taken_during_heavy_writes_is_one_snapshot)
{
	struct store_backup_info info;
	struct store_bisection_stats st;
	struct bd_error err;
	struct store *s, *b;
	int64_t bis, last_done = -1;
	int k, midway = 0, status;
	char *dest;

	s = stest_open();
	bis = stest_add_bisection(s, NULL, 0);
	store_close(s);
	stest_db = NULL;
	stest_child = fork();
	cr_assert_geq(stest_child, 0);
	if (stest_child == 0)
		backup_writer(bis);
	/* Backups while the child writes; each must be internally whole. */
	for (k = 0; k < 200 && midway < 5; k++) {
		xasprintf(&dest, "%s/copy-%d.db", stest_dir, k);
		cr_assert_eq(store_backup(stest_dbpath, dest, &info, &err), 0,
		    "%s", err.msg);
		cr_assert_gt(info.bytes, 0);
		cr_assert_eq(store_open(&b, dest, &err), 0, "%s", err.msg);
		cr_assert_eq(store_bisection_stats(b, bis, &st, &err), 0, "%s",
		    err.msg);
		/* A run is finished with its samples in one transaction. */
		cr_assert_eq(st.samples, 2 * st.runs[STORE_RUN_DONE],
		    "backup %d: %lld samples for %lld done runs", k,
		    (long long)st.samples,
		    (long long)st.runs[STORE_RUN_DONE]);
		cr_assert_geq(st.runs[STORE_RUN_DONE], last_done,
		    "a later backup went back in time");
		last_done = st.runs[STORE_RUN_DONE];
		if (last_done > 0 && last_done < BACKUP_WRITER_RUNS)
			midway++;
		store_close(b);
		free(dest);
	}
	cr_assert_geq(midway, 5, "only %d backups were taken mid-write",
	    midway);
	kill(stest_child, SIGKILL);
	waitpid(stest_child, &status, 0);
	stest_child = 0;
}

Test(store_backup, never_replaces_a_file_and_leaves_none_on_failure)
{
	struct store_backup_info info;
	struct bd_error err;
	struct stat st;
	char *dest, *missing;

	store_close(stest_open());
	stest_db = NULL;
	/* The database itself, and any other existing file, stay as they are. */
	cr_assert_eq(store_backup(stest_dbpath, stest_dbpath, &info, &err),
	    -EEXIST);
	cr_assert_not_null(strstr(err.msg, "File exists"), "%s", err.msg);
	cr_assert_eq(store_backup(stest_dbpath, "relative.db", &info, &err),
	    -EINVAL);
	xasprintf(&missing, "%s/no/such/dir/copy.db", stest_dir);
	cr_assert_lt(store_backup(stest_dbpath, missing, &info, &err), 0);
	cr_assert_neq(stat(missing, &st), 0);
	/* A database that cannot be read leaves no half-made copy. */
	xasprintf(&dest, "%s/copy.db", stest_dir);
	cr_assert_lt(store_backup("/nonexistent/state.db", dest, &info, &err),
	    0);
	cr_assert_neq(stat(dest, &st), 0, "a failed backup left %s", dest);
	cr_assert_eq(store_backup(stest_dbpath, dest, &info, &err), 0, "%s",
	    err.msg);
	cr_assert_eq(stat(dest, &st), 0);
	cr_assert_eq(st.st_mode & 0777, 0600, "the copy is private");
	free(dest);
	free(missing);
}
