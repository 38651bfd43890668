/* SPDX-License-Identifier: MIT */
/*
 * Roles on the control socket, against the real daemon with an sshd host:
 * an operator acts on the bisections its uid started, an admin (root, or
 * a member of [daemon] admin_group) on anyone's, and every state-changing
 * command is tried by a plain operator and by an admin.  A read such as
 * `sweep NAME` without --now is open to everyone and not audited.
 *
 * The other uid is nobody (65534, primary group nogroup): a forked child
 * drops to it for one request and hands the reply line back on a pipe.
 */
#include <criterion/criterion.h>

#include <sys/stat.h>
#include <sys/wait.h>

#include <grp.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <jansson.h>

#include "common/proto_cmd.h"
#include "common/xmalloc.h"
#include "store/store.h"
#include "tests/support/svc.h"
#include "tests/support/tst.h"

#define ROLES_NOBODY	65534

TestSuite(roles, .fini = svc_fini, .timeout = 600);

/* In a forked child: becomes nobody, sends line, writes the reply to fd. */
static void
roles_child(int fd, const char *line)
{
	char *out;
	int c;

	if (setgroups(0, NULL) != 0 || setgid(ROLES_NOBODY) != 0 ||
	    setuid(ROLES_NOBODY) != 0)
		_exit(99);
	if ((c = tst_daemon_connect(&svc.td)) < 0)
		_exit(98);
	out = tst_daemon_rpc(c, line);
	if (out != NULL)
		(void)write(fd, out, strlen(out));
	_exit(out != NULL ? 0 : 97);
}

/* The reply to line sent as nobody; the caller frees it. */
static json_t *
roles_nobody(const char *fmt, ...)
{
	char buf[65536], *line;
	size_t len = 0;
	ssize_t n;
	va_list ap;
	int p[2], st;
	pid_t pid;
	json_t *r;

	va_start(ap, fmt);
	cr_assert(vasprintf(&line, fmt, ap) >= 0);
	va_end(ap);
	cr_assert_eq(pipe(p), 0);
	pid = fork();
	cr_assert_geq(pid, 0);
	if (pid == 0) {
		close(p[0]);
		roles_child(p[1], line);
	}
	close(p[1]);
	while (len < sizeof(buf) - 1 &&
	    (n = read(p[0], buf + len, sizeof(buf) - 1 - len)) > 0)
		len += (size_t)n;
	buf[len] = '\0';
	close(p[0]);
	cr_assert_eq(waitpid(pid, &st, 0), pid);
	cr_assert(WIFEXITED(st) && WEXITSTATUS(st) == 0, "nobody's %s: "
	    "status %d", line, st);
	r = json_loads(buf, 0, NULL);
	cr_assert_not_null(r, "nobody's %s: reply %s", line, buf);
	free(line);
	return r;
}

/* "ok" or the error code of a reply. */
static const char *
roles_code(const json_t *r)
{
	if (json_is_true(json_object_get(r, "ok")))
		return "ok";
	return json_string_value(json_object_get(json_object_get(r, "error"),
	    "code"));
}

/* Rewrites the daemon's [daemon] extras and reloads them. */
static void
roles_config(const char *daemon_extra)
{
	char *sections = svc_sections(NULL);
	json_t *r;

	cr_assert_eq(tst_daemon_write_config(&svc.td, daemon_extra, sections),
	    0);
	free(sections);
	r = svc_req("{\"cmd\":\"reload\"}");
	cr_assert(json_is_true(json_object_get(r, "ok")));
	json_decref(r);
}

/* The fixture with a socket nobody can reach. */
static void
roles_start(void)
{
	svc_setup("roles", 1, "2:3", 0);
	roles_config("socket_mode = 0666\n");
	cr_assert_eq(chmod(svc.td.dir, 0755), 0);
}

/* A bisection of the fixture's range by whoever sends it; conf makes it new. */
static int64_t
roles_bisect(int as_nobody, double conf)
{
	static const char fmt[] = "{\"cmd\":\"bisect\",\"good\":[\"%s\"],"
	    "\"bad\":\"%s\",\"benchmark\":\"spin\",\"metric\":\"runtime_ms\","
	    "\"group\":\"lab\",\"confidence\":%.2f}";
	json_t *r = as_nobody ? roles_nobody(fmt, svc.good, svc.bad, conf) :
	    svc_req(fmt, svc.good, svc.bad, conf);
	int64_t id;

	cr_assert_str_eq(roles_code(r), "ok");
	cr_assert(!json_is_true(json_object_get(r, "existing")));
	id = json_integer_value(json_object_get(r, "bisection"));
	json_decref(r);
	return id;
}

/* Issue 35 item 16: an operator cancels its own work only; an admin any. */
Test(roles, operators_cancel_their_own_bisections_admins_any)
{
	int64_t mine, theirs, other;
	json_t *r;

	roles_start();
	mine = roles_bisect(0, 0.95);
	theirs = roles_bisect(1, 0.96);
	other = roles_bisect(1, 0.97);

	/* A plain operator: root's bisection is not nobody's to cancel. */
	r = roles_nobody("{\"cmd\":\"cancel\",\"bisection\":%lld}",
	    (long long)mine);
	cr_assert_str_eq(roles_code(r), "permission-denied");
	cr_assert_not_null(strstr(json_string_value(json_object_get(
	    json_object_get(r, "error"), "message")), "admin_group"));
	json_decref(r);
	r = roles_nobody("{\"cmd\":\"cancel\",\"bisection\":%lld}",
	    (long long)theirs);
	cr_assert_str_eq(roles_code(r), "ok");
	json_decref(r);

	/* Root is always an admin. */
	r = svc_req("{\"cmd\":\"cancel\",\"bisection\":%lld}",
	    (long long)other);
	cr_assert_str_eq(roles_code(r), "ok");
	json_decref(r);

	/* A member of admin_group may act on root's work too. */
	roles_config("socket_mode = 0666\nadmin_group = nogroup\n");
	r = roles_nobody("{\"cmd\":\"cancel\",\"bisection\":%lld}",
	    (long long)mine);
	cr_assert_str_eq(roles_code(r), "ok");
	json_decref(r);
}

/*
 * One request per state-changing command, and what a plain operator and
 * an admin get: only work another uid owns tells them apart.  %s is a
 * bisection of root's, %d a fresh number.
 */
struct roles_case {
	const char	*cmd;
	const char	*line;
	const char	*as_operator;
	const char	*as_admin;
};

/* Issue 35 item 16: each state-changing command, tried in both roles. */
Test(roles, every_state_changing_command_in_both_roles)
{
	static const struct roles_case cases[] = {
	    { "drain", "{\"cmd\":\"drain\",\"host\":\"h0\"}", "ok", "ok" },
	    { "undrain", "{\"cmd\":\"undrain\",\"host\":\"h0\"}", "ok", "ok" },
	    { "reload", "{\"cmd\":\"reload\"}", "ok", "ok" },
	    { "backup", "{\"cmd\":\"backup\",\"path\":\"%s/b%d.db\"}", "ok",
		"ok" },
	    { "fetch", "{\"cmd\":\"fetch\"}", "conflict", "conflict" },
	    { "bisect", NULL, "ok", "ok" },
	    { "cancel", "{\"cmd\":\"cancel\",\"bisection\":%lld}",
		"permission-denied", "ok" },
	    { "verify", "{\"cmd\":\"verify\",\"bisection\":%lld,"
		"\"on\":\"other\"}", "invalid-argument",
		"invalid-argument" },
	    { "sweep", "{\"cmd\":\"sweep\",\"name\":\"none\",\"now\":true}",
		"invalid-argument", "invalid-argument" },
	};
	int seen[PROTO_CMD_COUNT] = { 0 }, admin, n = 0;
	const struct roles_case *c;
	size_t i;
	json_t *r;
	int id;

	roles_start();
	for (admin = 0; admin < 2; admin++) {
		if (admin)
			roles_config("socket_mode = 0666\n"
			    "admin_group = nogroup\n");
		for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
			c = &cases[i];
			cr_assert_geq(id = proto_cmd_find(c->cmd), 0);
			seen[id] = 1;
			if (c->line == NULL) {
				roles_bisect(1, 0.90 + 0.01 * ++n);
				continue;
			}
			if (strcmp(c->cmd, "cancel") == 0 ||
			    strcmp(c->cmd, "verify") == 0)
				r = roles_nobody(c->line, (long long)
				    roles_bisect(0, 0.80 + 0.01 * ++n));
			else if (strcmp(c->cmd, "backup") == 0)
				r = roles_nobody(c->line, svc.dir, ++n);
			else
				r = roles_nobody("%s", c->line);
			cr_expect_str_eq(roles_code(r), admin ? c->as_admin :
			    c->as_operator, "%s as %s", c->cmd, admin ?
			    "admin" : "operator");
			json_decref(r);
		}
	}
	for (id = 0; id < PROTO_CMD_COUNT; id++)
		cr_expect(seen[id] == ((proto_cmd_table[id].flags &
		    PROTO_CMD_STATE_CHANGING) != 0), "%s: no role case",
		    proto_cmd_table[id].name);
}

struct roles_audit {
	int	sweeps;
};

static int
roles_event(void *arg, const struct store_event *ev)
{
	struct roles_audit *a = arg;

	a->sweeps += strstr(ev->request, "sweep") != NULL;
	return 0;
}

/* Issue 35 item 17: `sweep NAME` reads; only --now is refused and audited. */
Test(roles, sweep_without_now_is_a_read)
{
	struct roles_audit a = { 0 };
	struct store *st;
	struct bd_error err;
	json_t *r;

	roles_start();
	roles_config("socket_mode = 0666\noperators = root\n");
	r = roles_nobody("{\"cmd\":\"sweep\",\"name\":\"none\"}");
	cr_assert_str_eq(roles_code(r), "invalid-argument");
	json_decref(r);
	r = roles_nobody("{\"cmd\":\"sweep\",\"name\":\"none\",\"now\":false}");
	cr_assert_str_eq(roles_code(r), "invalid-argument");
	json_decref(r);
	r = roles_nobody("{\"cmd\":\"sweep\",\"name\":\"none\",\"now\":true}");
	cr_assert_str_eq(roles_code(r), "permission-denied");
	json_decref(r);
	cr_assert_eq(tst_daemon_stop(&svc.td, SIGTERM), 0);
	cr_assert_eq(store_open(&st, svc.td.db, &err), 0, "%s", err.msg);
	cr_assert_eq(store_event_list(st, 0, 0, roles_event, &a, &err), 0,
	    "%s", err.msg);
	store_close(st);
	cr_assert_eq(a.sweeps, 1, "%d sweep requests audited", a.sweeps);
}
