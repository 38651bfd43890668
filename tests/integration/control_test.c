/* SPDX-License-Identifier: MIT */
/*
 * The control socket against the real daemon ($BISECTD_BIN) on a temp
 * socket: protocol errors, caps, backpressure, signals, reload, the events
 * audit trail and bisectctl's exit codes.
 */
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>

#include <criterion/criterion.h>
#include <errno.h>
#include <grp.h>
#include <poll.h>
#include <jansson.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common/xmalloc.h"
#include "common/proto.h"
#include "store/store.h"
#include "tests/support/daemon.h"
#include "tests/support/tst.h"

/* The test's daemon, released in fini also after a failed assertion. */
static struct tst_daemon td;

static void
control_cleanup(void)
{
	tst_daemon_release(&td);
}

TestSuite(control, .fini = tst_leak_check);

#define CTEST(name) Test(control, name, .fini = control_cleanup)

/* Runs a program with these words; stdout and stderr together. */
#define RUN(status, ...) \
	tst_daemon_run_both((const char *[]){ __VA_ARGS__, NULL }, &(status))

static const char hosts_ini[] =
    "[host alpha]\naddress = 127.0.0.1\nport = 2201\nuser = bench\n"
    "identity = id_ed25519\nknown_hosts = known_hosts\ngroup = lab\n"
    "roles = build,test\n\n"
    "[host beta]\naddress = 127.0.0.1\nport = 2202\nuser = bench\n"
    "identity = id_ed25519\nknown_hosts = known_hosts\ngroup = other\n"
    "roles = test\n";

static void
start(const char *daemon_extra, const char *sections)
{
	cr_assert_eq(tst_daemon_setup(&td, "control", daemon_extra, sections),
	    0);
	cr_assert_eq(tst_daemon_start(&td), 0, "bisectd did not start");
}

/* A reply line (consumed) that must be a JSON object. */
static json_t *
parse(char *line)
{
	json_t *r;

	cr_assert_not_null(line, "no reply");
	r = tst_daemon_reply(line);
	cr_assert_not_null(r, "reply is not a JSON object");
	return r;
}

static int
is_ok(const json_t *r)
{
	return json_is_true(json_object_get(r, "ok"));
}

/* Sends line on fd and checks the error code of the reply. */
static void
expect_error(int fd, const char *line, const char *code)
{
	json_t *r = parse(tst_daemon_rpc(fd, line));

	cr_assert(!is_ok(r), "%s: expected an error", line);
	cr_assert_str_eq(tst_daemon_error_code(r), code, "%s", line);
	cr_assert(json_is_string(json_object_get(json_object_get(r, "error"),
	    "message")));
	json_decref(r);
}

static void
expect_pong(int fd)
{
	json_t *r = parse(tst_daemon_rpc(fd, "{\"cmd\":\"ping\"}"));

	cr_assert(is_ok(r));
	cr_assert(json_is_true(json_object_get(r, "pong")));
	json_decref(r);
}

CTEST(ping)
{
	char *line;
	int fd;

	start(NULL, NULL);
	fd = tst_daemon_connect(&td);
	cr_assert_neq(fd, -1);
	line = tst_daemon_rpc(fd, "{\"cmd\":\"ping\"}");
	cr_assert_str_eq(line, "{\"ok\":true,\"pong\":true}");
	free(line);
	expect_pong(fd);
	close(fd);
}

CTEST(id_is_echoed_in_replies_and_errors)
{
	int fd;
	json_t *r;

	start(NULL, NULL);
	fd = tst_daemon_connect(&td);
	r = parse(tst_daemon_rpc(fd, "{\"cmd\":\"ping\",\"id\":\"abc\"}"));
	cr_assert_str_eq(json_string_value(json_object_get(r, "id")), "abc");
	json_decref(r);
	r = parse(tst_daemon_rpc(fd, "{\"id\":42,\"cmd\":\"nope\"}"));
	cr_assert_eq(json_integer_value(json_object_get(r, "id")), 42);
	cr_assert_str_eq(tst_daemon_error_code(r), "unknown-command");
	json_decref(r);
	r = parse(tst_daemon_rpc(fd, "{\"cmd\":\"ping\"}"));
	cr_assert_null(json_object_get(r, "id"));
	json_decref(r);
	/* An id that is neither string nor number is refused, not echoed. */
	r = parse(tst_daemon_rpc(fd, "{\"cmd\":\"ping\",\"id\":[1]}"));
	cr_assert_str_eq(tst_daemon_error_code(r), "bad-type");
	cr_assert_null(json_object_get(r, "id"));
	json_decref(r);
	close(fd);
}

/*
 * Every bad request gets its error code, and the same connection answers
 * a ping afterwards.
 */
CTEST(bad_requests_get_their_code_and_keep_the_connection)
{
	static const struct {
		const char	*line;
		const char	*code;
	} cases[] = {
		{ "{\"cmd\":\"ping\"", "malformed-json" },
		{ "{\"cmd\":\"ping\",\"cmd\":\"ping\"}", "malformed-json" },
		{ "nonsense", "malformed-json" },
		{ "[1,2]", "not-an-object" },
		{ "\"ping\"", "not-an-object" },
		{ "42", "not-an-object" },
		{ "{\"id\":1}", "missing-field" },
		{ "{\"cmd\":5}", "bad-type" },
		{ "{\"cmd\":null}", "bad-type" },
		{ "{\"cmd\":\"hosts\",\"group\":3}", "bad-type" },
		{ "{\"cmd\":\"frobnicate\"}", "unknown-command" },
	};
	size_t i;
	int fd;

	start(NULL, hosts_ini);
	fd = tst_daemon_connect(&td);
	cr_assert_neq(fd, -1);
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		expect_error(fd, cases[i].line, cases[i].code);
		expect_pong(fd);
	}
	close(fd);
}

/* A line of exactly the limit passes; one byte more closes the connection. */
CTEST(line_limit)
{
	/* The padding is the request's own id, a field every command has. */
	const char head[] = "{\"cmd\":\"ping\",\"id\":\"";
	size_t n = PROTO_LINE_MAX;
	char *line = xmalloc(n + 2);
	json_t *r;
	int fd;

	start(NULL, NULL);
	memset(line, 'x', n);
	memcpy(line, head, strlen(head));
	memcpy(line + n - 2, "\"}", 2);
	line[n] = '\n';
	fd = tst_daemon_connect(&td);
	cr_assert_eq(tst_daemon_send(fd, line, n + 1), 0);
	r = parse(tst_daemon_read_line(fd));
	cr_assert(is_ok(r), "a %zu byte line must be accepted", n);
	json_decref(r);

	memset(line, 'x', n + 1);
	line[n + 1] = '\n';
	(void)tst_daemon_send(fd, line, n + 2);	/* may fail: daemon closes */
	r = parse(tst_daemon_read_line(fd));
	cr_assert_str_eq(tst_daemon_error_code(r), "line-too-long");
	json_decref(r);
	cr_assert_null(tst_daemon_read_line(fd), "connection must be closed");
	close(fd);
	free(line);
	/* The daemon itself goes on. */
	fd = tst_daemon_connect(&td);
	expect_pong(fd);
	close(fd);
}

CTEST(half_closed_client_still_gets_its_reply)
{
	json_t *r;
	int fd;

	start(NULL, NULL);
	fd = tst_daemon_connect(&td);
	cr_assert_eq(tst_daemon_send(fd, "{\"cmd\":\"ping\"}\n", 15), 0);
	shutdown(fd, SHUT_WR);
	r = parse(tst_daemon_read_line(fd));
	cr_assert(is_ok(r));
	json_decref(r);
	cr_assert_null(tst_daemon_read_line(fd));
	close(fd);
}

CTEST(fifty_clients_at_once)
{
	enum { N = 50 };
	int fds[N], i;
	char *line;
	json_t *r;

	start("max_clients = 100\nmax_clients_per_uid = 100\n", NULL);
	for (i = 0; i < N; i++) {
		fds[i] = tst_daemon_connect(&td);
		cr_assert_neq(fds[i], -1, "client %d", i);
	}
	for (i = 0; i < N; i++) {
		xasprintf(&line, "{\"cmd\":\"ping\",\"id\":%d}\n", i);
		cr_assert_eq(tst_daemon_send(fds[i], line, strlen(line)), 0);
		free(line);
	}
	for (i = N - 1; i >= 0; i--) {
		r = parse(tst_daemon_read_line(fds[i]));
		cr_assert(json_is_true(json_object_get(r, "pong")));
		cr_assert_eq(json_integer_value(json_object_get(r, "id")), i);
		json_decref(r);
		close(fds[i]);
	}
}

/* Opens a connection and proves the daemon admitted it. */
static int
admitted(void)
{
	int fd = tst_daemon_connect(&td);

	cr_assert_neq(fd, -1);
	expect_pong(fd);
	return fd;
}

static void
expect_refused(const char *why)
{
	int fd = tst_daemon_connect(&td);
	json_t *r;

	cr_assert_neq(fd, -1);
	r = parse(tst_daemon_read_line(fd));
	cr_assert_str_eq(tst_daemon_error_code(r), "too-many-connections");
	cr_assert(strstr(json_string_value(json_object_get(
	    json_object_get(r, "error"), "message")), why) != NULL);
	json_decref(r);
	cr_assert_null(tst_daemon_read_line(fd));
	close(fd);
}

CTEST(per_uid_cap)
{
	int fds[3], i, fd = -1, tries;
	char *line;

	start("max_clients = 10\nmax_clients_per_uid = 3\n", NULL);
	for (i = 0; i < 3; i++)
		fds[i] = admitted();
	expect_refused("max_clients_per_uid");
	close(fds[0]);
	/* Once the daemon has seen the close, a new client fits again. */
	for (tries = 0; tries < 2000; tries++) {
		fd = tst_daemon_connect(&td);
		line = tst_daemon_rpc(fd, "{\"cmd\":\"ping\"}");
		if (line != NULL && strstr(line, "\"pong\"") != NULL) {
			free(line);
			break;
		}
		free(line);
		close(fd);
		fd = -1;
		usleep(10000);
	}
	cr_assert_neq(fd, -1, "a freed slot was never given back");
	close(fd);
	close(fds[1]);
	close(fds[2]);
}

CTEST(global_cap)
{
	int a, b;

	start("max_clients = 2\nmax_clients_per_uid = 2\n", NULL);
	a = admitted();
	b = admitted();
	expect_refused("max_clients)");
	close(a);
	close(b);
}

/*
 * A client that sends without reading is paused, not served at the cost
 * of others: it is blocked long before its replies could pass the 4 MiB
 * output cap (MANY replies would), another client still gets its pong,
 * and the first loses none of its replies once it reads.
 */
CTEST(slow_reader_is_paused_and_does_not_block_others)
{
	enum { MANY = 10000 };
	const char req[] = "{\"cmd\":\"config\"}\n";
	struct pollfd pfd;
	size_t sent = 0, got = 0;
	char buf[65536];
	ssize_t n, i;
	int slow, other;

	start(NULL, hosts_ini);
	slow = tst_daemon_connect(&td);
	pfd.fd = slow;
	pfd.events = POLLOUT;
	while (sent < MANY) {
		n = send(slow, req, sizeof(req) - 1, MSG_DONTWAIT |
		    MSG_NOSIGNAL);
		if (n == -1 && (errno == EAGAIN || errno == EWOULDBLOCK)) {
			/* Blocked for a whole second: the daemon paused us. */
			if (poll(&pfd, 1, 1000) == 0)
				break;
			continue;
		}
		cr_assert_eq(n, (ssize_t)sizeof(req) - 1, "send: %s",
		    strerror(errno));
		sent++;
	}
	cr_assert_lt(sent, MANY, "the daemon never stopped reading");
	other = tst_daemon_connect(&td);
	expect_pong(other);
	close(other);
	while (got < sent) {
		n = recv(slow, buf, sizeof(buf), 0);
		cr_assert_gt(n, 0, "lost replies: %zu of %zu", got, sent);
		for (i = 0; i < n; i++)
			got += buf[i] == '\n';
	}
	cr_assert_eq(got, sent);
	close(slow);
}

CTEST(sigterm_closes_clients_and_removes_the_socket)
{
	struct stat st;
	int fd;

	start(NULL, NULL);
	cr_assert_eq(stat(td.sock, &st), 0);
	cr_assert(S_ISSOCK(st.st_mode));
	fd = admitted();
	cr_assert_eq(tst_daemon_stop(&td, SIGTERM), 0);
	cr_assert_null(tst_daemon_read_line(fd), "client must see EOF");
	close(fd);
	cr_assert_eq(stat(td.sock, &st), -1, "socket file left behind");
	cr_assert_eq(errno, ENOENT);
}

CTEST(sigint_stops_too)
{
	struct stat st;

	start(NULL, NULL);
	cr_assert_eq(tst_daemon_stop(&td, SIGINT), 0);
	cr_assert_eq(stat(td.sock, &st), -1);
}

CTEST(second_daemon_refuses_to_start)
{
	pid_t pid;
	int fd;

	start(NULL, NULL);
	pid = tst_daemon_spawn(&td, "second.log");
	cr_assert_gt(pid, 0);
	cr_assert_neq(tst_daemon_wait(pid), 0, "second daemon started");
	cr_assert(tst_daemon_log_wait(&td, "second.log", "already running"));
	cr_assert(tst_daemon_log_wait(&td, "second.log", td.sock));
	fd = admitted();
	close(fd);
}

CTEST(stale_socket_is_removed)
{
	struct sockaddr_un sun;
	char *run;
	int s, fd;

	cr_assert_eq(tst_daemon_setup(&td, "control", NULL, NULL), 0);
	xasprintf(&run, "%s/run", td.dir);
	cr_assert_eq(mkdir(run, 0755), 0);
	free(run);
	memset(&sun, 0, sizeof(sun));
	sun.sun_family = AF_UNIX;
	strcpy(sun.sun_path, td.sock);
	s = socket(AF_UNIX, SOCK_STREAM, 0);
	cr_assert_eq(bind(s, (struct sockaddr *)&sun, sizeof(sun)), 0);
	close(s);	/* the file stays; nobody listens: a crashed daemon */
	cr_assert_eq(tst_daemon_start(&td), 0);
	cr_assert(tst_daemon_log_wait(&td, "bisectd.log", "stale socket"));
	fd = admitted();
	close(fd);
}

CTEST(socket_mode_and_group)
{
	struct group *gr = getgrgid(getgid());
	struct stat st;
	char *extra;

	cr_assert_not_null(gr);
	xasprintf(&extra, "socket_mode = 0600\nsocket_group = %s\n",
	    gr->gr_name);
	start(extra, NULL);
	free(extra);
	cr_assert_eq(stat(td.sock, &st), 0);
	cr_assert_eq(st.st_mode & 07777, 0600);
	cr_assert_eq(st.st_gid, getgid());
}

CTEST(unknown_socket_group_fails_the_start)
{
	pid_t pid;

	cr_assert_eq(tst_daemon_setup(&td, "control",
	    "socket_group = no-such-group-xyz\n", NULL), 0);
	pid = tst_daemon_spawn(&td, "bisectd.log");
	cr_assert_eq(tst_daemon_wait(pid), 1);
	cr_assert(tst_daemon_log_wait(&td, "bisectd.log", "no-such-group-xyz"));
	cr_assert_eq(access(td.sock, F_OK), -1);
}

static json_int_t
max_clients_in_effect(void)
{
	json_t *r = parse(tst_daemon_request(&td, "{\"cmd\":\"config\"}"));
	json_int_t v;

	cr_assert(is_ok(r));
	v = json_integer_value(json_object_get(json_object_get(
	    json_object_get(r, "config"), "daemon"), "max_clients"));
	json_decref(r);
	return v;
}

CTEST(sighup_with_a_broken_config_keeps_serving)
{
	int fd;

	start("max_clients = 40\n", NULL);
	cr_assert_eq(tst_daemon_write_raw(&td, "[daemon]\nno_such_key = 1\n"),
	    0);
	kill(td.pid, SIGHUP);
	cr_assert(tst_daemon_log_wait(&td, "bisectd.log",
	    "keeping the configuration in effect"));
	cr_assert(tst_daemon_log_wait(&td, "bisectd.log", "no_such_key"));
	fd = admitted();
	close(fd);
	cr_assert_eq(max_clients_in_effect(), 40);
}

CTEST(sighup_with_a_good_config_applies_it)
{
	int tries;

	start("max_clients = 40\n", NULL);
	cr_assert_eq(max_clients_in_effect(), 40);
	cr_assert_eq(tst_daemon_write_config(&td, "max_clients = 41\n", NULL),
	    0);
	kill(td.pid, SIGHUP);
	for (tries = 0; tries < 2000 && max_clients_in_effect() != 41; tries++)
		usleep(10000);
	cr_assert_eq(max_clients_in_effect(), 41);
}

/* -V and --version print the one version, for the daemon and the client. */
CTEST(version_options)
{
	const char *progs[][3] = {
		{ "BISECTD_BIN", "-V", "bisectd " },
		{ "BISECTD_BIN", "--version", "bisectd " },
		{ "BISECTCTL_BIN", "--version", "bisectctl " },
	};
	char *argv[3], *out, *want;
	int status;
	size_t i;

	for (i = 0; i < sizeof(progs) / sizeof(progs[0]); i++) {
		argv[0] = (char *)tst_env_path(progs[i][0]);
		argv[1] = (char *)progs[i][1];
		argv[2] = NULL;
		out = tst_run_capture(argv, &status);
		cr_assert_not_null(out);
		cr_expect_eq(status, 0, "%s %s: %s", argv[0], argv[1], out);
		xasprintf(&want, "%s%s (protocol %d)\n", progs[i][2],
		    BISECTD_VERSION, PROTO_VERSION);
		cr_expect_str_eq(out, want, "%s %s", argv[0], argv[1]);
		free(want);
		free(out);
	}
}

CTEST(version_and_hosts)
{
	json_t *r, *hosts, *h;
	int tries;

	start(NULL, hosts_ini);
	r = parse(tst_daemon_request(&td, "{\"cmd\":\"version\"}"));
	cr_assert_str_eq(json_string_value(json_object_get(r, "version")),
	    BISECTD_VERSION);
	cr_assert_eq(json_integer_value(json_object_get(r, "pid")), td.pid);
	json_decref(r);

	/* Each host is unknown until the pool's first probe answers. */
	for (tries = 0;; tries++) {
		r = parse(tst_daemon_request(&td, "{\"cmd\":\"hosts\"}"));
		hosts = json_object_get(r, "hosts");
		h = json_array_get(hosts, 0);
		if (tries == 2000 || strcmp(json_string_value(json_object_get(h,
		    "state")), "unknown") != 0)
			break;
		json_decref(r);
		usleep(10000);
	}
	cr_assert_eq(json_array_size(hosts), 2);
	cr_assert_str_eq(json_string_value(json_object_get(h, "name")),
	    "alpha");
	cr_assert_str_eq(json_string_value(json_object_get(h, "address")),
	    "127.0.0.1");
	cr_assert_eq(json_integer_value(json_object_get(h, "port")), 2201);
	cr_assert_str_eq(json_string_value(json_object_get(h, "group")), "lab");
	cr_assert_eq(json_array_size(json_object_get(h, "roles")), 2);
	/* Nothing listens on the port: the pool's first probe decides. */
	cr_assert(strcmp(json_string_value(json_object_get(h, "state")),
	    "up") == 0 || strcmp(json_string_value(json_object_get(h,
	    "state")), "down") == 0);
	json_decref(r);

	r = parse(tst_daemon_request(&td,
	    "{\"cmd\":\"hosts\",\"group\":\"other\"}"));
	hosts = json_object_get(r, "hosts");
	cr_assert_eq(json_array_size(hosts), 1);
	cr_assert_str_eq(json_string_value(json_object_get(
	    json_array_get(hosts, 0), "name")), "beta");
	json_decref(r);
}

CTEST(config_shows_the_configuration_in_effect)
{
	json_t *r, *cfg;

	start(NULL, hosts_ini);
	r = parse(tst_daemon_request(&td, "{\"cmd\":\"config\"}"));
	cfg = json_object_get(r, "config");
	cr_assert_str_eq(json_string_value(json_object_get(json_object_get(cfg,
	    "daemon"), "socket")), td.sock);
	cr_assert_eq(json_array_size(json_object_get(cfg, "hosts")), 2);
	json_decref(r);
}

CTEST(check_mode_exit_codes)
{
	const char *bin = tst_env_path("BISECTD_BIN");
	char *out;
	int st;

	cr_assert_eq(tst_daemon_setup(&td, "control", NULL, hosts_ini), 0);
	out = RUN(st, bin, "-n", "-c", td.conf);
	cr_assert_eq(st, 0, "%s", out);
	cr_assert_str_eq(out, "configuration OK\n");
	free(out);

	cr_assert_eq(tst_daemon_write_raw(&td, "[daemon]\nmax_clients = "
	    "zero\n\n[host a]\naddress = 127.0.0.1\n"), 0);
	out = RUN(st, bin, "-n", "-c", td.conf);
	cr_assert_eq(st, 78, "%s", out);
	cr_assert(strstr(out, "bisectd.conf:2:") != NULL, "%s", out);
	cr_assert(strstr(out, "max_clients") != NULL, "%s", out);
	cr_assert(strstr(out, "user") != NULL, "every error: %s", out);
	cr_assert(strstr(out, "configuration OK") == NULL);
	free(out);

	/* What startup checks beyond syntax, -n checks too. */
	cr_assert_eq(tst_daemon_write_config(&td, "socket_group = "
	    "no-such-group-bisectd\n", NULL), 0);
	out = RUN(st, bin, "-n", "-c", td.conf);
	cr_assert_eq(st, 78, "%s", out);
	cr_assert(strstr(out, "socket_group") != NULL &&
	    strstr(out, "no such group") != NULL, "%s", out);
	cr_assert(strstr(out, "configuration OK") == NULL);
	free(out);

	/* A build input the cache key cannot read is named. */
	cr_assert_eq(tst_daemon_write_config(&td, NULL, "[benchmark k]\n"
	    "build = make\nrun = true\nmetrics = t:lower\n"
	    "build_inputs = /nonexistent/kernel.config\n"), 0);
	out = RUN(st, bin, "-n", "-c", td.conf);
	cr_assert_eq(st, 78, "%s", out);
	cr_assert(strstr(out, "build_inputs") != NULL &&
	    strstr(out, "/nonexistent/kernel.config") != NULL, "%s", out);
	cr_assert(strstr(out, "configuration OK") == NULL);
	free(out);

	/* A misspelt key or section type is answered with the nearest. */
	cr_assert_eq(tst_daemon_write_config(&td, "log_levle = debug\n",
	    "[benchmrk k]\nrun = true\n"), 0);
	out = RUN(st, bin, "-n", "-c", td.conf);
	cr_assert_eq(st, 78, "%s", out);
	cr_assert(strstr(out, "log_levle: unknown key; did you mean "
	    "log_level?") != NULL, "%s", out);
	cr_assert(strstr(out, "unknown section; did you mean "
	    "[benchmark NAME]?") != NULL, "%s", out);
	free(out);
}

CTEST(bisectctl_exit_codes)
{
	const char *ctl = tst_env_path("BISECTCTL_BIN");
	char *out, *missing;
	int st;

	start(NULL, hosts_ini);
	out = RUN(st, ctl, "-s", td.sock, "ping");
	cr_assert_eq(st, 0, "%s", out);
	cr_assert_str_eq(out, "pong\n");
	free(out);

	out = RUN(st, ctl, "-s", td.sock, "--json", "ping");
	cr_assert_eq(st, 0);
	cr_assert_str_eq(out, "{\"ok\":true,\"pong\":true}\n");
	free(out);

	out = RUN(st, ctl, "-s", td.sock, "hosts");
	cr_assert_eq(st, 0, "%s", out);
	cr_assert(strstr(out, "NAME") == out, "%s", out);
	cr_assert(strstr(out, "alpha  127.0.0.1  2201  lab    build,test  ")
	    != NULL, "%s", out);
	free(out);

	out = RUN(st, ctl, "-s", td.sock, "hosts", "--json", "other");
	cr_assert_eq(st, 0, "%s", out);
	cr_assert(strncmp(out, "{\"ok\":true,\"hosts\":[{\"name\":\"beta\"",
	    34) == 0, "%s", out);
	free(out);

	out = RUN(st, ctl, "-s", td.sock, "raw", "{\"cmd\":\"nope\"}");
	cr_assert_eq(st, 1, "%s", out);
	cr_assert(strstr(out, "unknown-command") != NULL, "%s", out);
	free(out);

	xasprintf(&missing, "%s/nothing-here.sock", td.dir);
	out = RUN(st, ctl, "-s", missing, "ping");
	cr_assert_eq(st, 2, "%s", out);
	cr_assert(strstr(out, missing) != NULL, "%s", out);
	free(out);
	free(missing);
}

/* Collects events from the store for the audit-trail test. */
struct seen_events {
	size_t	 n;
	uid_t	 uid[4];
	char	*outcome[4];
	int	 mentions_reload;
};

static int
collect_event(void *arg, const struct store_event *ev)
{
	struct seen_events *s = arg;

	if (s->n < 4) {
		s->uid[s->n] = ev->uid;
		s->outcome[s->n] = xstrdup(ev->outcome);
		s->mentions_reload += strstr(ev->request, "reload") != NULL;
	}
	s->n++;
	return 0;
}

CTEST(state_changing_requests_are_recorded_with_the_uid)
{
	struct seen_events seen = { 0 };
	struct store *st;
	struct bd_error err;
	json_t *r;
	size_t i;
	int fd;

	start(NULL, NULL);
	fd = admitted();	/* ping: not state-changing, not recorded */
	r = parse(tst_daemon_rpc(fd, "{\"cmd\":\"reload\",\"id\":\"r1\"}"));
	cr_assert(is_ok(r));
	json_decref(r);
	cr_assert_eq(tst_daemon_write_raw(&td, "[bogus]\n"), 0);
	r = parse(tst_daemon_rpc(fd, "{\"cmd\":\"reload\"}"));
	cr_assert_str_eq(tst_daemon_error_code(r), "invalid-config");
	cr_assert_gt(json_array_size(json_object_get(json_object_get(r,
	    "error"), "errors")), 0);
	json_decref(r);
	expect_pong(fd);
	close(fd);
	cr_assert_eq(tst_daemon_stop(&td, SIGTERM), 0);

	cr_assert_eq(store_open(&st, td.db, &err), 0, "%s", err.msg);
	cr_assert_eq(store_event_list(st, 0, 0, collect_event, &seen, &err),
	    0, "%s", err.msg);
	store_close(st);
	cr_assert_eq(seen.n, 2);
	cr_assert_eq(seen.mentions_reload, 2);
	for (i = 0; i < 2; i++)
		cr_assert_eq(seen.uid[i], getuid());
	cr_assert_str_eq(seen.outcome[0], "ok");
	cr_assert_str_eq(seen.outcome[1], "invalid-config");
	for (i = 0; i < 2; i++)
		free(seen.outcome[i]);
}

/* A changed [host] section waits for a restart, and reload says so. */
CTEST(reload_names_host_changes_as_needing_a_restart)
{
	json_t *r, *v;
	size_t i;
	int named = 0;

	start(NULL, hosts_ini);
	cr_assert_eq(tst_daemon_write_config(&td, NULL,
	    "[host alpha]\naddress = 127.0.0.1\nport = 2209\nuser = bench\n"
	    "identity = id_ed25519\nknown_hosts = known_hosts\ngroup = lab\n"
	    "roles = build,test\n"), 0);
	r = parse(tst_daemon_request(&td, "{\"cmd\":\"reload\"}"));
	cr_assert(is_ok(r));
	json_array_foreach(json_object_get(r, "restart_needed"), i, v)
		if (strcmp(json_string_value(v), "hosts") == 0)
			named = 1;
	cr_assert(named, "restart_needed does not name hosts");
	json_decref(r);
}

/* Occurrences of text in the daemon's log so far. */
static size_t
log_count(const char *text)
{
	char *log = tst_read_file(td.log), *p;
	size_t n = 0;

	cr_assert_not_null(log);
	for (p = log; (p = strstr(p, text)) != NULL; p += strlen(text))
		n++;
	free(log);
	return n;
}

/* 1 when the array of strings a holds s. */
static int
names(const json_t *a, const char *s)
{
	const json_t *v;
	size_t i;

	json_array_foreach(a, i, v)
		if (strcmp(json_string_value(v), s) == 0)
			return 1;
	return 0;
}

#define RELOAD_BENCH \
    "[benchmark b]\nrun = ./run\nmetrics = tput:higher\nrun_timeout = "

/*
 * A reload applies live keys at once (the log level, a benchmark's
 * timeout) and names each restart key, the forgotten [host] ones too.
 */
CTEST(reload_applies_live_keys_and_names_restart_keys)
{
	json_t *r, *restart, *cfg;
	char *text;
	size_t before;
	int fd;

	start(NULL, "[host alpha]\naddress = 127.0.0.1\nport = 2201\n"
	    "user = bench\nidentity = id_ed25519\nknown_hosts = known_hosts\n"
	    "group = lab\nkeepalive = 15s\n\n" RELOAD_BENCH "1h\n");
	fd = admitted();
	expect_pong(fd);
	close(fd);
	cr_assert_gt(log_count("connected: uid"), 0,
	    "log_level debug logs connections");
	xasprintf(&text, "[daemon]\nsocket = %s\ndatabase = %s/other.db\n"
	    "workdir = %s/work\nlog_level = warn\n\n"
	    "[host alpha]\naddress = 127.0.0.1\nport = 2201\n"
	    "user = bench\nidentity = id_ed25519\nknown_hosts = known_hosts\n"
	    "group = lab\nkeepalive = 30s\n\n" RELOAD_BENCH "2h\n",
	    td.sock, td.dir, td.dir);
	cr_assert_eq(tst_daemon_write_raw(&td, text), 0);
	free(text);
	r = parse(tst_daemon_request(&td, "{\"cmd\":\"reload\"}"));
	cr_assert(is_ok(r));
	restart = json_object_get(r, "restart_needed");
	cr_expect(names(restart, "database"), "database is not named");
	cr_expect(names(restart, "[host alpha] keepalive"),
	    "keepalive is not named");
	cr_expect(names(restart, "hosts"), "hosts is not named");
	cr_expect_eq(json_array_size(restart), 3, "live keys are not named");
	json_decref(r);
	before = log_count("connected: uid");

	r = parse(tst_daemon_request(&td, "{\"cmd\":\"config\"}"));
	cr_assert(is_ok(r));
	cfg = json_object_get(r, "config");
	cr_expect_str_eq(json_string_value(json_object_get(json_object_get(cfg,
	    "daemon"), "log_level")), "warn");
	cr_expect_str_eq(json_string_value(json_object_get(json_object_get(cfg,
	    "daemon"), "database")), td.db, "the open database stays");
	cr_expect_eq(json_integer_value(json_object_get(json_array_get(
	    json_object_get(cfg, "benchmarks"), 0), "run_timeout_ms")),
	    2 * 3600 * 1000);
	json_decref(r);
	cr_expect_eq(log_count("connected: uid"), before,
	    "log_level warn applies at once: no debug line after the reload");
	cr_expect_gt(log_count("reload: log_level changed"), 0);
}

/*
 * An unreadable build_inputs file does not stop a start or a reload (it
 * may appear later), but both say so in the log, naming the file.
 */
CTEST(unreadable_build_inputs_are_logged_at_start_and_reload)
{
	json_t *r;
	char *bench, *line;

	cr_assert_eq(tst_daemon_setup(&td, "control", NULL, NULL), 0);
	xasprintf(&bench, "[benchmark k]\nbuild = make\nrun = true\n"
	    "metrics = t:lower\nbuild_inputs = %s/missing.config\n", td.dir);
	cr_assert_eq(tst_daemon_write_config(&td, NULL, bench), 0);
	free(bench);
	cr_assert_eq(tst_daemon_start(&td), 0, "bisectd did not start");
	xasprintf(&line, "start: %s: [benchmark k] build_inputs: "
	    "%s/missing.config: No such file or directory", td.conf, td.dir);
	cr_assert(tst_daemon_log_wait(&td, "bisectd.log", line), "no log "
	    "line: %s", line);
	free(line);
	cr_assert_eq(log_count("reload: "), 0);
	xasprintf(&bench, "[benchmark k]\nbuild = make\nrun = true\n"
	    "metrics = t:lower\nbuild_inputs = %s\n", td.dir);
	cr_assert_eq(tst_daemon_write_config(&td, NULL, bench), 0);
	free(bench);
	r = parse(tst_daemon_request(&td, "{\"cmd\":\"reload\"}"));
	cr_assert(is_ok(r), "a reload with an unreadable input is applied");
	json_decref(r);
	xasprintf(&line, "reload: %s: [benchmark k] build_inputs: %s is not "
	    "a file", td.conf, td.dir);
	cr_assert(tst_daemon_log_wait(&td, "bisectd.log", line), "no log "
	    "line: %s", line);
	free(line);
}
