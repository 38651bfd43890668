/* SPDX-License-Identifier: MIT */
/*
 * The remote/ integration tests' shared fixture (tests/integration/
 * remote_*_test.c): one libuv loop, up to RTEST_NSRV OpenSSH servers on
 * loopback ports (tests/support/sshd.c) and a scratch directory, plus the
 * helpers that run commands through them.
 *
 * A suite uses it with `.init = rtest_setup, .fini = rtest_teardown`; the
 * teardown stops the servers and removes the files even when an assertion
 * cut a test short.  Strings returned by rtest_path_in are the caller's.
 */
#ifndef TESTS_SUPPORT_RTEST_H
#define TESTS_SUPPORT_RTEST_H

#include <stddef.h>
#include <stdint.h>

#include <uv.h>

#include "config/config.h"
#include "remote/exec.h"
#include "remote/ssh.h"
#include "tests/support/sshd.h"

#define RTEST_NSRV	3

/* The command leaves its pid and a child's pid behind, then hangs. */
#define RTEST_HANG_CMD \
	"echo $$ > pid; sleep 300 & echo $! > child; wait"

extern uv_loop_t	 rtest_loop;
extern struct sshd	 rtest_srv[RTEST_NSRV];
extern char		*rtest_tmp;

/* What one exec reported, copied out of its callback. */
struct rtest_xres {
	int		 done;
	enum exec_status status;
	int		 code;
	char		 sig[32];
	uint64_t	 out, err;
	char		*tail;
	size_t		 tail_len;
	size_t		 hwm;
	long		 pgid;
	char		 msg[BD_ERROR_MAX];
};

void	 rtest_setup(void);
void	 rtest_teardown(void);
/* Runs the loop until *flag is set; a stuck loop fails the test. */
void	 rtest_run_until(const int *flag);
/* Lets every handle close so LeakSanitizer sees a clean loop. */
void	 rtest_drain_loop(void);
/* Calls fn(arg) after ms on the loop. */
void	 rtest_later(uint64_t ms, void (*fn)(void *), void *arg);
/* An exec callback filling the struct rtest_xres arg. */
void	 rtest_xdone(void *arg, const struct exec_result *r);
/* A session to server s as host name (h is filled). */
struct ssh_conn *rtest_conn_for(struct sshd *s, struct config_host *h,
	    const char *name);
/* Runs cmd to its end; log and tail as in struct exec_opts. */
void	 rtest_run_cmd(struct ssh_conn *c, const char *cmd, const char *log,
	    size_t tail, uint64_t timeout_ms, struct rtest_xres *x);
/* Starts cmd in cwd without waiting; *ex (may be NULL) is the exec. */
void	 rtest_run_in(struct ssh_conn *c, const char *cmd, const char *cwd,
	    uint64_t timeout_ms, struct exec **ex, struct rtest_xres *x);
/* dir/name, allocated. */
char	*rtest_path_in(const char *dir, const char *name);
/* 1 when pid is dead or a zombie. */
int	 rtest_pid_gone(long pid);
/* The pids RTEST_HANG_CMD left in dir (0 when missing). */
void	 rtest_read_pids(const char *dir, long *pid, long *child);
/* A benchmark with one numeric metric "score" and the run command. */
void	 rtest_bench_init(struct config_benchmark *b, const char *run);
/* Restarts server s (a struct sshd *), for rtest_later. */
void	 rtest_restart_sshd(void *s);

#endif
