/* SPDX-License-Identifier: MIT */
/*
 * remote/exec.c against real OpenSSH servers on loopback ports: exit codes
 * and signals, bounded output, timeouts, cancellation, and placeholder
 * values that must reach the host literally.
 */
#include <sys/resource.h>
#include <sys/stat.h>

#include <criterion/criterion.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common/xmalloc.h"
#include "remote/exec.h"
#include "remote/quote.h"
#include "remote/ssh.h"
#include "tests/support/rtest.h"
#include "tests/support/sshd.h"
#include "tests/support/tst.h"

TestSuite(remote_exec, .init = rtest_setup, .fini = rtest_teardown);

Test(remote_exec, exec_exit_codes_and_signals)
{
	struct config_host h;
	struct ssh_conn *c;
	struct ssh_stats st;
	struct rtest_xres x;

	cr_assert_eq(sshd_start(&rtest_srv[0], "exit"), 0);
	c = rtest_conn_for(&rtest_srv[0], &h, "h0");
	rtest_run_cmd(c, "echo hello; echo oops >&2; exit 3", NULL, 4096, 0,
	    &x);
	cr_assert_eq(x.status, EXEC_EXITED, "%d %s", x.status, x.msg);
	cr_assert_eq(x.code, 3);
	cr_assert_str_eq(x.tail, "hello\n");
	cr_assert_eq(x.err, 5, "stderr bytes %llu", (unsigned long long)x.err);
	free(x.tail);
	rtest_run_cmd(c, "true", NULL, 0, 0, &x);
	cr_assert_eq(x.status, EXEC_EXITED);
	cr_assert_eq(x.code, 0);
	rtest_run_cmd(c, "exit 255", NULL, 0, 0, &x);
	cr_assert_eq(x.code, 255);
	rtest_run_cmd(c, "kill -TERM $$", NULL, 0, 0, &x);
	cr_assert_eq(x.status, EXEC_SIGNALED, "%d %s", x.status, x.msg);
	cr_assert_str_eq(x.sig, "TERM");
	rtest_run_cmd(c, "kill -KILL $$", NULL, 0, 0, &x);
	cr_assert_eq(x.status, EXEC_SIGNALED);
	cr_assert_str_eq(x.sig, "KILL");
	ssh_get_stats(c, &st);
	cr_assert_eq(st.connects, 1, "one session reused for every command");
	ssh_conn_free(c);
	rtest_drain_loop();
}

/* ------------------------------------------------------------------ */
/* Exec: streaming, timeouts, cancellation, injection. */

Test(remote_exec, exec_100mb_output_in_bounded_memory)
{
	struct config_host h;
	struct ssh_conn *c;
	struct ssh_stats st;
	struct rusage ru0, ru1;
	struct stat sb;
	struct rtest_xres x;
	char *log = rtest_path_in(rtest_tmp, "big.log");

	cr_assert_eq(sshd_start(&rtest_srv[0], "big"), 0);
	c = rtest_conn_for(&rtest_srv[0], &h, "h0");
	getrusage(RUSAGE_SELF, &ru0);
	rtest_run_cmd(c, "head -c 100000000 /dev/zero; echo tail-line; "
	    "echo to-stderr >&2", log, 4096, 0, &x);
	getrusage(RUSAGE_SELF, &ru1);
	cr_assert_eq(x.status, EXEC_EXITED, "%s", x.msg);
	cr_assert_eq(x.code, 0);
	cr_assert_eq(x.out, 100000000 + 10);
	cr_assert_eq(x.err, 10);
	cr_assert_eq(stat(log, &sb), 0);
	cr_assert_eq((uint64_t)sb.st_size, 100000000 + 10 + 10,
	    "every byte reached the log");
	cr_assert_eq(x.tail_len, 4096);
	cr_assert(memcmp(x.tail + 4096 - 10, "tail-line\n", 10) == 0);
	cr_assert_leq(x.hwm, EXEC_BUFSZ, "the one buffer is never exceeded");
	ssh_get_stats(c, &st);
	cr_assert_lt(st.heap_peak, 8u << 20, "libssh2 held %zu bytes",
	    st.heap_peak);
	cr_assert_geq(st.rx_bytes, 100000000);
	cr_log_info("100 MB: buffer high-water %zu, libssh2 heap peak %zu, "
	    "max RSS %ld -> %ld kB", x.hwm, st.heap_peak, ru0.ru_maxrss,
	    ru1.ru_maxrss);
	free(x.tail);
	free(log);
	ssh_conn_free(c);
	rtest_drain_loop();
}

Test(remote_exec, exec_timeout_kills_the_remote_process_group)
{
	struct config_host h;
	struct ssh_conn *c;
	struct rtest_xres x;
	long pid, child;

	cr_assert_eq(sshd_start(&rtest_srv[0], "hang"), 0);
	c = rtest_conn_for(&rtest_srv[0], &h, "h0");
	rtest_run_in(c, RTEST_HANG_CMD, rtest_tmp, 700, NULL, &x);
	rtest_run_until(&x.done);
	cr_assert_eq(x.status, EXEC_TIMEOUT, "%d %s", x.status, x.msg);
	cr_assert(strstr(x.msg, "timed out after 700 ms") != NULL, "%s",
	    x.msg);
	cr_assert_gt(x.pgid, 0);
	rtest_read_pids(rtest_tmp, &pid, &child);
	cr_assert_eq(pid, x.pgid, "the wrapper reported the group leader");
	cr_assert(rtest_pid_gone(pid), "command %ld still runs", pid);
	cr_assert(rtest_pid_gone(child), "its child %ld still runs", child);
	/* The session survives and takes the next command. */
	rtest_run_cmd(c, "echo again", NULL, 64, 0, &x);
	cr_assert_str_eq(x.tail, "again\n");
	free(x.tail);
	ssh_conn_free(c);
	rtest_drain_loop();
}

/*
 * Cancels once the command has written both pids, so that a slow start
 * under load cannot leave the test without the pids it checks.
 */
static void
cancel_cb(void *ex)
{
	long pid, child;

	rtest_read_pids(rtest_tmp, &pid, &child);
	if (pid > 0 && child > 0)
		exec_cancel(ex);
	else
		rtest_later(50, cancel_cb, ex);
}

Test(remote_exec, exec_cancel_kills_the_remote_process_group)
{
	struct config_host h;
	struct ssh_conn *c;
	struct exec *ex;
	struct rtest_xres x;
	long pid, child;

	cr_assert_eq(sshd_start(&rtest_srv[0], "cancel"), 0);
	c = rtest_conn_for(&rtest_srv[0], &h, "h0");
	rtest_run_in(c, RTEST_HANG_CMD, rtest_tmp, 0, &ex, &x);
	rtest_later(50, cancel_cb, ex);
	rtest_run_until(&x.done);
	cr_assert_eq(x.status, EXEC_CANCELLED, "%d %s", x.status, x.msg);
	rtest_read_pids(rtest_tmp, &pid, &child);
	cr_assert(rtest_pid_gone(pid) && rtest_pid_gone(child),
	    "processes left behind");
	ssh_conn_free(c);
	rtest_drain_loop();
}

Test(remote_exec, placeholder_values_reach_the_host_literally)
{
	static const char evil[] = "$(touch pwned1)`touch pwned2`'\"\\\n"
	    "; touch pwned3 | & > < * ? ~ {short} ${HOME} $$ \t end";
	struct quote_vars v = { 0 };
	struct config_host h;
	struct ssh_conn *c;
	struct bd_error err;
	struct rtest_xres x;
	char *cmd, *p;
	int i;

	cr_assert_eq(sshd_start(&rtest_srv[0], "inject"), 0);
	c = rtest_conn_for(&rtest_srv[0], &h, "h0");
	v.commit = evil;
	v.host = evil;
	cr_assert_eq(quote_expand("cd {workdir} && printf %s {commit}", &v,
	    QUOTE_SHELL, &cmd, &err), -EINVAL, "no value for {workdir}");
	v.workdir = rtest_tmp;
	cr_assert_eq(quote_expand("cd {workdir} && printf %s {commit} && "
	    "printf '|' && printf %s {host}", &v, QUOTE_SHELL, &cmd, &err), 0);
	rtest_run_cmd(c, cmd, NULL, 4096, 10000, &x);
	free(cmd);
	cr_assert_eq(x.status, EXEC_EXITED, "%s", x.msg);
	cr_assert_eq(x.code, 0);
	xasprintf(&p, "%s|%s", evil, evil);
	cr_assert_eq(x.tail_len, strlen(p));
	cr_assert(memcmp(x.tail, p, strlen(p)) == 0, "got \"%s\"", x.tail);
	free(p);
	free(x.tail);
	for (i = 1; i <= 3; i++) {
		xasprintf(&p, "%s/pwned%d", rtest_tmp, i);
		cr_assert_neq(access(p, F_OK), 0, "%s was created", p);
		free(p);
	}
	ssh_conn_free(c);
	rtest_drain_loop();
}
