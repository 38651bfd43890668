/* SPDX-License-Identifier: MIT */
/*
 * The daemon's guards against a hostile local client, on its own socket:
 * one uid flooding connections starves no other, half-written lines time
 * out, a reload that cannot apply the socket group says so, a second
 * daemon on one database refuses to start, state-changing commands are for
 * operators only, rejected requests cannot grow the audit table, the
 * audit trail has a retention, and running out of descriptors neither
 * spins nor floods the log.
 *
 * The other uid is nobody (65534): a forked child drops to it.
 */
#include <criterion/criterion.h>

#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>

#include <grp.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <jansson.h>

#include "common/xmalloc.h"
#include "server/audit.h"
#include "store/store.h"
#include "tests/support/daemon.h"
#include "tests/support/tst.h"

#define GUARD_NOBODY	65534

static struct tst_daemon td, td2;

static void
guard_cleanup(void)
{
	tst_daemon_release(&td);
	tst_daemon_release(&td2);
}

TestSuite(guard, .fini = tst_leak_check);

#define GTEST(name) Test(guard, name, .fini = guard_cleanup)

/* A daemon whose socket the nobody user can reach. */
static void
guard_start(const char *daemon_extra)
{
	char *extra;

	xasprintf(&extra, "socket_mode = 0666\n%s", daemon_extra ?
	    daemon_extra : "");
	cr_assert_eq(tst_daemon_setup(&td, "guard", extra, NULL), 0);
	free(extra);
	cr_assert_eq(chmod(td.dir, 0755), 0);
	cr_assert_eq(tst_daemon_start(&td), 0, "bisectd did not start");
}

/* In a forked child: becomes nobody, or exits 99. */
static void
guard_become_nobody(void)
{
	if (setgroups(0, NULL) != 0 || setgid(GUARD_NOBODY) != 0 ||
	    setuid(GUARD_NOBODY) != 0)
		_exit(99);
}

/* The reply to one request line, as an object; NULL when none came. */
static json_t *
guard_rpc(int fd, const char *line)
{
	return tst_daemon_reply(tst_daemon_rpc(fd, line));
}

/* 1 when the reply to line on fd is ok. */
static int
guard_ok(int fd, const char *line)
{
	json_t *r = guard_rpc(fd, line);
	int ok = r != NULL && json_is_true(json_object_get(r, "ok"));

	json_decref(r);
	return ok;
}

/*
 * The flooder: as nobody, holds its whole per-uid quota, tells the parent
 * on stop_fd, then connects and drops GUARD_FLOOD times.
 */
#define GUARD_FLOOD	20000

static void
guard_flood(int stop_fd, unsigned quota)
{
	int held[64], fd;
	unsigned i;

	guard_become_nobody();
	for (i = 0; i < quota && i < 64; i++) {
		held[i] = tst_daemon_connect(&td);
		if (held[i] < 0 || !guard_ok(held[i], "{\"cmd\":\"ping\"}"))
			_exit(98);
	}
	(void)write(stop_fd, "r", 1);
	/* The parent kills it when done; the count bounds it otherwise. */
	for (i = 0; i < GUARD_FLOOD; i++)
		if ((fd = tst_daemon_connect(&td)) >= 0)
			close(fd);
	_exit(0);
}

/* Defect 5: 100 pings of root all answer while nobody floods. */
GTEST(one_uid_flooding_connections_starves_no_other)
{
	int sv[2], fd, i, failed = 0, st;
	char c, *line;
	pid_t pid;

	guard_start("max_clients = 8\nmax_clients_per_uid = 4\n");
	cr_assert_eq(pipe(sv), 0);
	pid = fork();
	cr_assert_geq(pid, 0);
	if (pid == 0) {
		close(sv[0]);
		guard_flood(sv[1], 4);
	}
	close(sv[1]);
	cr_assert_eq(read(sv[0], &c, 1), 1, "the flooder did not start");
	for (i = 0; i < 100; i++) {
		fd = tst_daemon_connect(&td);
		line = fd >= 0 ? tst_daemon_rpc(fd, "{\"cmd\":\"ping\"}") :
		    NULL;
		if (line == NULL || strstr(line, "\"pong\":true") == NULL) {
			if (failed++ == 0)
				cr_log_warn("first failure: %s",
				    line ? line : "(no reply)");
		}
		free(line);
		if (fd >= 0)
			close(fd);
	}
	kill(pid, SIGKILL);
	close(sv[0]);
	cr_assert_eq(waitpid(pid, &st, 0), pid);
	cr_assert_eq(failed, 0, "%d of 100 pings failed during the flood",
	    failed);
}

/* Defect 5: half a line is not held forever; a silent client stays. */
GTEST(incomplete_lines_time_out)
{
	int partial, silent;
	json_t *r;

	guard_start("client_timeout = 1s\n");
	cr_assert_geq(silent = tst_daemon_connect(&td), 0);
	cr_assert_geq(partial = tst_daemon_connect(&td), 0);
	cr_assert_eq(tst_daemon_send(partial, "{\"cmd\":\"pi", 10), 0);
	r = tst_daemon_reply(tst_daemon_read_line(partial));
	cr_assert_not_null(r, "no timeout reply");
	cr_assert_str_eq(tst_daemon_error_code(r), "timeout");
	json_decref(r);
	cr_assert_null(tst_daemon_read_line(partial), "not closed");
	close(partial);
	cr_assert(guard_ok(silent, "{\"cmd\":\"ping\"}"));
	close(silent);
}

/* Defect 6: the mode applies although the group does not, and reload says so. */
GTEST(reload_names_a_socket_group_it_cannot_apply)
{
	struct stat st;
	json_t *r, *na;
	int fd;

	guard_start(NULL);
	cr_assert_eq(stat(td.sock, &st), 0);
	cr_assert_eq(st.st_mode & 0777, 0666);
	cr_assert_eq(tst_daemon_write_config(&td, "socket_mode = 0660\n"
	    "socket_group = no-such-group-bisectd\n", NULL), 0);
	cr_assert_geq(fd = tst_daemon_connect(&td), 0);
	r = guard_rpc(fd, "{\"cmd\":\"reload\"}");
	cr_assert_not_null(r);
	na = json_object_get(r, "not_applied");
	cr_assert(json_is_array(na) && json_array_size(na) == 1);
	cr_assert_not_null(strstr(json_string_value(json_array_get(na, 0)),
	    "no-such-group-bisectd"));
	json_decref(r);
	close(fd);
	cr_assert_eq(stat(td.sock, &st), 0);
	cr_assert_eq(st.st_mode & 0777, 0660, "mode %o",
	    (unsigned)(st.st_mode & 0777));
}

/* Defect 4: a second daemon on one database, on another socket, refuses. */
GTEST(second_daemon_on_one_database_refuses_to_start)
{
	char *extra;
	pid_t pid;
	int fd;

	guard_start(NULL);
	cr_assert_eq(tst_daemon_setup(&td2, "guard2", NULL, NULL), 0);
	xasprintf(&extra, "[daemon]\nsocket = %s\ndatabase = %s\n"
	    "workdir = %s/work\n", td2.sock, td.db, td2.dir);
	cr_assert_eq(tst_daemon_write_raw(&td2, extra), 0);
	free(extra);
	pid = tst_daemon_spawn(&td2, "second.log");
	cr_assert_gt(pid, 0);
	cr_assert_neq(tst_daemon_wait(pid), 0, "second daemon started");
	cr_assert(tst_daemon_log_wait(&td2, "second.log", "already running"));
	cr_assert(tst_daemon_log_wait(&td2, "second.log", "database"));
	cr_assert_geq(fd = tst_daemon_connect(&td), 0);
	cr_assert(guard_ok(fd, "{\"cmd\":\"ping\"}"));
	close(fd);
}

/* A child's verdicts as exit bits: 1 ping ok, 2 list ok, 4 cancel denied. */
static void
guard_nobody_requests(void)
{
	json_t *r;
	int fd, bits = 0;

	guard_become_nobody();
	if ((fd = tst_daemon_connect(&td)) < 0)
		_exit(97);
	bits |= guard_ok(fd, "{\"cmd\":\"ping\"}") ? 1 : 0;
	bits |= guard_ok(fd, "{\"cmd\":\"list\"}") ? 2 : 0;
	r = guard_rpc(fd, "{\"cmd\":\"cancel\",\"bisection\":5}");
	if (r != NULL && strcmp(tst_daemon_error_code(r),
	    "permission-denied") == 0)
		bits |= 4;
	json_decref(r);
	_exit(bits);
}

/* Operators change state; everyone else may only look. */
GTEST(operators_naming_no_group_are_refused)
{
	const char *bin = tst_env_path("BISECTD_BIN");
	char *out;
	int st;

	cr_assert_eq(tst_daemon_setup(&td, "guard", "operators = root, "
	    "no-such-group-bisectd\n", NULL), 0);
	{
		const char *argv[] = { bin, "-n", "-c", td.conf, NULL };

		out = tst_daemon_run_both(argv, &st);
	}
	cr_assert_neq(st, 0, "%s", out);
	cr_assert_not_null(strstr(out, "no-such-group-bisectd"), "%s", out);
	free(out);
	cr_assert_neq(tst_daemon_wait(tst_daemon_spawn(&td, "bisectd.log")), 0,
	    "started with an unknown operators group");
	cr_assert(tst_daemon_log_wait(&td, "bisectd.log", "operators"));
}


GTEST(state_changing_commands_are_for_operators)
{
	json_t *r;
	pid_t pid;
	int fd, st;

	guard_start("operators = root, root\n");
	cr_assert_geq(fd = tst_daemon_connect(&td), 0);
	r = guard_rpc(fd, "{\"cmd\":\"cancel\",\"bisection\":5}");
	cr_assert_not_null(r);
	cr_assert_str_eq(tst_daemon_error_code(r), "not-found");
	json_decref(r);
	close(fd);
	pid = fork();
	cr_assert_geq(pid, 0);
	if (pid == 0)
		guard_nobody_requests();
	cr_assert_eq(waitpid(pid, &st, 0), pid);
	cr_assert(WIFEXITED(st));
	cr_assert_eq(WEXITSTATUS(st), 7, "nobody's verdicts: %d",
	    WEXITSTATUS(st));
}

struct guard_events {
	size_t	 n;
	size_t	 longest;
	int	 cut;
};

static int
guard_event(void *arg, const struct store_event *ev)
{
	struct guard_events *g = arg;

	g->n++;
	if (strlen(ev->request) > g->longest)
		g->longest = strlen(ev->request);
	g->cut += strstr(ev->request, "...") != NULL;
	return 0;
}

/* Defect 10: big rejected requests store bounded summaries, and few. */
GTEST(rejected_requests_cannot_grow_the_audit_table)
{
	struct guard_events g = { 0 };
	struct store *st;
	struct bd_error err;
	char *big, *line;
	json_t *r;
	int fd, i;

	guard_start(NULL);
	big = xmalloc(60001);
	memset(big, 'x', 60000);
	big[60000] = '\0';
	/* Padded through the request's own id, which any command takes. */
	xasprintf(&line, "{\"cmd\":\"cancel\",\"bisection\":5,\"id\":\"%s\"}",
	    big);
	free(big);
	cr_assert_geq(fd = tst_daemon_connect(&td), 0);
	for (i = 0; i < 50; i++) {
		r = guard_rpc(fd, line);
		cr_assert_not_null(r);
		cr_assert_str_eq(tst_daemon_error_code(r), "not-found");
		json_decref(r);
	}
	free(line);
	close(fd);
	cr_assert_eq(tst_daemon_stop(&td, SIGTERM), 0);
	cr_assert_eq(store_open(&st, td.db, &err), 0, "%s", err.msg);
	cr_assert_eq(store_event_list(st, 0, 0, guard_event, &g, &err), 0,
	    "%s", err.msg);
	store_close(st);
	cr_assert_eq(g.n, AUDIT_REJECT_BURST, "%zu events", g.n);
	cr_assert_leq(g.longest, AUDIT_SUMMARY_MAX);
	cr_assert_eq(g.cut, AUDIT_REJECT_BURST, "the pad is cut");
}

Test(guard, audit_summary_keeps_the_command_and_cuts_fields)
{
	json_t *req = json_pack("{s:s, s:[s,s,s,s,s,s,s,s,s,s,s,s,s,s,s,s,s,s],"
	    " s:s}", "cmd", "bisect", "good", "a", "b", "c", "d", "e", "f",
	    "g", "h", "i", "j", "k", "l", "m", "n", "o", "p", "q", "r",
	    "bad", "v1");
	json_t *sum;
	char *text;

	cr_assert_not_null(req);
	text = audit_summary(req);
	sum = json_loads(text, 0, NULL);
	cr_assert_not_null(sum, "%s", text);
	cr_assert_str_eq(json_string_value(json_object_get(sum, "cmd")),
	    "bisect");
	cr_assert_eq(json_array_size(json_object_get(sum, "good")),
	    AUDIT_ITEMS_MAX + 1);
	cr_assert_eq(json_integer_value(json_object_get(json_array_get(
	    json_object_get(sum, "good"), AUDIT_ITEMS_MAX), "more")), 2);
	json_decref(sum);
	json_decref(req);
	free(text);
}

struct guard_ids {
	size_t	 n;
	int64_t	 first;
	int	 old;		/* rows from before the retention */
};

static int
guard_id(void *arg, const struct store_event *ev)
{
	struct guard_ids *g = arg;

	if (g->n++ == 0)
		g->first = ev->id;
	g->old += ev->time_ms < 1000000;
	return 0;
}

/* The events of td's database, once the daemon has stopped. */
static void
guard_events(struct guard_ids *g)
{
	struct store *st;
	struct bd_error err;

	memset(g, 0, sizeof(*g));
	cr_assert_eq(store_open(&st, td.db, &err), 0, "%s", err.msg);
	cr_assert_eq(store_event_list(st, 0, 0, guard_id, g, &err), 0, "%s",
	    err.msg);
	store_close(st);
}

/*
 * Issue 35 item 19: the audit trail keeps the newest audit_max_rows, and
 * by default drops rows older than audit_keep (180 days).
 */
GTEST(audit_trail_has_a_retention)
{
	struct guard_ids g;
	struct store *st;
	struct bd_error err;
	int fd, i;

	/* Two rows from 1970, written before the daemon ever ran. */
	cr_assert_eq(tst_daemon_setup(&td, "guard", NULL, NULL), 0);
	cr_assert_eq(store_open(&st, td.db, &err), 0, "%s", err.msg);
	for (i = 0; i < 2; i++)
		cr_assert_eq(store_event_add(st, 1000 + i, 0, "{}", "ok",
		    &err), 0, "%s", err.msg);
	store_close(st);
	cr_assert_eq(tst_daemon_start(&td), 0, "bisectd did not start");
	cr_assert_geq(fd = tst_daemon_connect(&td), 0);
	cr_assert(guard_ok(fd, "{\"cmd\":\"reload\"}"));
	close(fd);
	cr_assert_eq(tst_daemon_stop(&td, SIGTERM), 0);
	guard_events(&g);
	cr_assert_eq(g.old, 0, "rows from 1970 kept by default");
	cr_assert_eq(g.n, 1);

	/* A cap of 5 rows keeps the 5 newest (ids 19 to 23) of 21. */
	cr_assert_eq(tst_daemon_write_config(&td, "audit_max_rows = 5\n",
	    NULL), 0);
	cr_assert_eq(tst_daemon_start(&td), 0, "bisectd did not restart");
	cr_assert_geq(fd = tst_daemon_connect(&td), 0);
	for (i = 0; i < 20; i++)
		cr_assert(guard_ok(fd, "{\"cmd\":\"reload\"}"));
	close(fd);
	cr_assert_eq(tst_daemon_stop(&td, SIGTERM), 0);
	guard_events(&g);
	cr_assert_eq(g.n, 5, "%zu rows", g.n);
	cr_assert_eq(g.first, 19, "oldest kept: %lld", (long long)g.first);
}

/* How many lines of td's log mention text. */
static int
guard_log_count(const char *text)
{
	char *log = tst_read_file(td.log), *p;
	int n = 0;

	for (p = log; p != NULL && (p = strstr(p, text)) != NULL; p++)
		n++;
	free(log);
	return n;
}

/* Opens n connections into fds (-1 where connecting failed). */
static void
guard_connect_many(int *fds, int n)
{
	int i;

	for (i = 0; i < n; i++)
		fds[i] = tst_daemon_connect(&td);
}

static void
guard_close_many(int *fds, int n)
{
	int i;

	for (i = 0; i < n; i++)
		if (fds[i] >= 0)
			close(fds[i]);
}

/* A ping on a new connection answers within the bound (back-off ends). */
static int
guard_ping_soon(void)
{
	int i, fd, ok = 0;

	for (i = 0; i < 200 && !ok; i++) {
		if ((fd = tst_daemon_connect(&td)) >= 0) {
			ok = guard_ok(fd, "{\"cmd\":\"ping\"}");
			close(fd);
		}
		if (!ok)
			usleep(50 * 1000);
	}
	return ok;
}

/*
 * Issue 35 item 9: with max_clients above what `ulimit -n 128` allows, the
 * daemon raises its soft limit at start, lowers the cap (with a warning)
 * when the hard limit is too low as well, and 200 connections never make
 * accept fail in a loop; pings still answer.
 */
GTEST(caps_are_checked_against_the_open_files_limit)
{
	struct rlimit old, low, hard = { 128, 128 };
	int fds[200];
	json_t *r;

	cr_assert_eq(getrlimit(RLIMIT_NOFILE, &old), 0);
	low = old;
	low.rlim_cur = 128;
	cr_assert_eq(setrlimit(RLIMIT_NOFILE, &low), 0);
	cr_assert_eq(tst_daemon_setup(&td, "guard", "max_clients = 200\n"
	    "max_clients_per_uid = 200\n", NULL), 0);
	td.pid = tst_daemon_spawn(&td, "bisectd.log");
	cr_assert_eq(setrlimit(RLIMIT_NOFILE, &old), 0);
	cr_assert_gt(td.pid, 0);
	cr_assert(guard_ping_soon(), "bisectd did not start");
	cr_assert(tst_daemon_log_wait(&td, "bisectd.log",
	    "raised the open files limit"));
	guard_connect_many(fds, 200);
	guard_close_many(fds, 200);
	cr_assert(guard_ping_soon());

	/* A hard limit of 128: the reload lowers the cap instead. */
	cr_assert_eq(prlimit(td.pid, RLIMIT_NOFILE, &hard, NULL), 0);
	r = tst_daemon_reply(tst_daemon_request(&td, "{\"cmd\":\"reload\"}"));
	cr_assert(r != NULL && json_is_true(json_object_get(r, "ok")));
	json_decref(r);
	cr_assert(tst_daemon_log_wait(&td, "bisectd.log",
	    "serving at most 64 connections"));
	guard_connect_many(fds, 200);
	guard_close_many(fds, 200);
	cr_assert(guard_ping_soon());
	cr_assert_eq(guard_log_count("accept"), 0, "%d accept lines",
	    guard_log_count("accept"));
}

/*
 * Issue 35 item 9: when descriptors run out anyway (the limit lowered
 * under the running daemon), accepting backs off with one log line and
 * resumes by itself.
 */
Test(guard, running_out_of_descriptors_backs_off, .fini = guard_cleanup,
    .timeout = 120)
{
	struct rlimit low = { 48, 48 };
	int fds[120];

	guard_start("max_clients = 200\nmax_clients_per_uid = 200\n");
	cr_assert(guard_ping_soon(), "bisectd is not serving");
	cr_assert_eq(prlimit(td.pid, RLIMIT_NOFILE, &low, NULL), 0);
	guard_connect_many(fds, 120);
	/* Let the daemon meet the full backlog for a while. */
	usleep(1000 * 1000);
	guard_close_many(fds, 120);
	cr_assert(guard_ping_soon(), "the daemon stopped answering");
	cr_assert_eq(guard_log_count("Too many open files"), 1,
	    "%d lines", guard_log_count("Too many open files"));
}
