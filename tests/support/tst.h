/* SPDX-License-Identifier: MIT */
/*
 * Shared helpers for the Criterion tests.
 *
 * Every suite is declared with `.fini = tst_leak_check` so that a leak found
 * by LeakSanitizer fails the run: Criterion ignores the report a worker
 * prints at exit, so the check is forced before the worker ends.
 */
#ifndef TESTS_SUPPORT_TST_H
#define TESTS_SUPPORT_TST_H

#include <stddef.h>

void	 tst_leak_check(void);

/* A fresh directory under $TMPDIR; the caller frees the path. */
char	*tst_tmpdir(const char *tag);
/* Removes a directory tree; used in fini, also after a failed test. */
void	 tst_rmrf(const char *path);
/* Writes text to dir/name and returns the path (caller frees). */
char	*tst_write_file(const char *dir, const char *name, const char *text);
/* The whole file as a string (caller frees), or NULL when unreadable. */
char	*tst_read_file(const char *path);
/* Runs argv and returns its exit status (-1 if it could not run). */
int	 tst_run(char *const argv[]);
/* Runs argv and returns its stdout (caller frees), or NULL on failure. */
char	*tst_run_capture(char *const argv[], int *status);
/* Path of a built program from the environment (BISECTD_BIN, ...). */
const char *tst_env_path(const char *var);
/* 1 when pid is gone or a zombie (it ended; its parent may reap it later). */
int	 tst_process_ended(int pid);
/* A TCP port on 127.0.0.1 that was free a moment ago. */
int	 tst_free_port(void);
/*
 * Fails the test when s holds a byte that drives a terminal or starts a
 * line: a C0 control other than newline (and tab, when keep_tabs), DEL or
 * a C1 control in UTF-8.  what names s in the message.
 */
void	 tst_assert_no_controls(const char *what, const char *s,
	    int keep_tabs);
/*
 * The pid that a child writes to path, once it has (a bounded wait, a
 * guard against hangs); fails the test when none comes.
 */
int	 tst_wait_pid_file(const char *path);

#endif
