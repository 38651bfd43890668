/* SPDX-License-Identifier: MIT */
/*
 * Request dispatch (server/cmd.c) with a reply-shape oracle: a real daemon
 * (daemon_init on a config in a temp dir: its own socket and store, no
 * hosts, no repository) reads every input from a real control connection,
 * its framing (server/ctl.c) hands each line to cmd_dispatch, and whatever
 * the line is, the answer is one JSON object
 * line with a boolean "ok"; every ok:false has error.code and
 * error.message strings; an id the daemon accepts comes back unchanged.
 *
 * Input: what a client writes on the socket (a newline is added at the
 * end): the daemon's own framing cuts it into lines, and each line that
 * is not blank gets exactly one reply, in order.
 */
#include <sys/socket.h>
#include <sys/un.h>

#include <fcntl.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <jansson.h>

#include "common/log.h"
#include "common/xmalloc.h"
#include "common/proto.h"
#include "config/config.h"
#include "daemon/daemon.h"
#include "store/store.h"
#include "tests/fuzz/fuzz.h"
#include "tests/support/tst.h"

/* A deferred reply (backup) comes from the thread pool; allow for it. */
#define FUZZ_REPLY_MS	15000
/* Bisections put in the store before the daemon starts. */
#define FUZZ_STORED	4

static struct daemon	 fuzz_d;
static char		*fuzz_dir;		/* $TMPDIR/bisectd-fuzz-XXXXXX */
static int		 fuzz_fd = -1;
static char		*fuzz_in;
static size_t		 fuzz_inlen, fuzz_incap;

/*
 * Content for status, list, log, samples, cancel and report to show, put
 * in the store before the daemon opens it: bisection 1 done with a
 * culprit and samples, 2 cancelled, 3 failed, 4 queued (the daemon, which
 * has no repository, takes it from there).
 */
static void
fuzz_dispatch_store(const char *db)
{
	static const char *good[] = { "v6.6", "v6.6-rc7" };
	static const struct store_metric m[] = {
		{ .name = "throughput", .value = 881807.5 },
		{ .name = "latency", .value = 12.5 },
	};
	static const struct {
		enum store_bisection_state state;
		struct store_verdict_info v;
	} rows[] = {
		{ STORE_BISECTION_DONE, { .verdict = STORE_VERDICT_CULPRIT,
		    .culprit = "c0ffee00c0ffee00c0ffee00c0ffee00c0ffee00",
		    .confidence = 0.995, .detail = "{\"candidates\":1}" } },
		{ STORE_BISECTION_CANCELLED, { .verdict = STORE_VERDICT_NONE } },
		{ STORE_BISECTION_FAILED, { .verdict = STORE_VERDICT_NONE,
		    .detail = "bad revision next-20261128" } },
		{ STORE_BISECTION_QUEUED, { .verdict = STORE_VERDICT_NONE } },
	};
	struct store_run_result res = { .state = STORE_RUN_DONE,
	    .has_exit = 1 };
	struct store_bisection b;
	struct store *st;
	struct bd_error err;
	int64_t id, run;
	size_t i;

	if (store_open(&st, db, &err) != 0)
		fuzz_fail("store_open: %s", err.msg);
	for (i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
		store_bisection_init(&b);
		b.params = "{\"cmd\":\"bisect\"}";
		b.good = good;
		b.ngood = 2;
		b.bad = "next-20261128";
		b.benchmark = "vm";
		b.metric = "throughput";
		b.group = "default";
		b.priority = (int)i;
		if (store_bisection_create(st, &b, &id, &err) != 0 ||
		    store_run_create(st, id, rows[0].v.culprit, &run,
		    &err) != 0 || store_run_start(st, run, "box1", &err) != 0 ||
		    store_run_finish(st, run, &res, m, 2, &err) != 0)
			fuzz_fail("cannot store bisection %zu: %s", i, err.msg);
		if (rows[i].state != STORE_BISECTION_QUEUED &&
		    (store_bisection_set_state(st, id, STORE_BISECTION_RUNNING,
		    NULL, &err) != 0 || store_bisection_set_state(st, id,
		    rows[i].state, &rows[i].v, &err) != 0))
			fuzz_fail("cannot end bisection %zu: %s", i, err.msg);
	}
	store_close(st);
}

/* The daemon as bisectd's main would make it, from a file in the dir. */
static void
fuzz_dispatch_daemon(void)
{
	struct config cfg;
	struct config_errors errs;
	struct bd_error err;
	char *path, *text;
	FILE *fp;

	if ((fuzz_dir = tst_tmpdir("fuzz-dispatch")) == NULL)
		fuzz_fail("cannot make a temp dir");
	xasprintf(&path, "%s/bisectd.conf", fuzz_dir);
	xasprintf(&text, "[daemon]\nsocket = %s/run/bisectd.sock\n"
	    "database = %s/state.db\nworkdir = %s/work\nlog_level = error\n"
	    "[benchmark vm]\nrun = true\nmetrics = throughput:higher, "
	    "latency:lower\n", fuzz_dir, fuzz_dir, fuzz_dir);
	if ((fp = fopen(path, "w")) == NULL || fputs(text, fp) < 0 ||
	    fclose(fp) != 0)
		fuzz_fail("cannot write %s", path);
	if (config_load(&cfg, path, &errs) != 0)
		fuzz_fail("the fuzz config does not load: %s",
		    errs.n > 0 ? errs.msgs[0] : "?");
	config_errors_release(&errs);
	fuzz_dispatch_store(cfg.daemon.database);
	log_init("fuzz_dispatch", 1, LOG_LEVEL_ERROR);
	daemon_signals_block();
	if (daemon_init(&fuzz_d, path, &cfg, &err) != 0)
		fuzz_fail("daemon_init: %s", err.msg);
	free(text);
	free(path);
}

/* A client on the daemon's own socket, accepted by its loop. */
static struct ctl_conn *
fuzz_dispatch_conn(void)
{
	struct sockaddr_un sa;
	struct ctl_conn *c;
	int i;

	if ((c = TAILQ_FIRST(&fuzz_d.ctl.conns)) != NULL && !c->closing &&
	    fuzz_fd != -1)
		return c;
	if (fuzz_fd != -1)
		close(fuzz_fd);
	memset(&sa, 0, sizeof(sa));
	sa.sun_family = AF_UNIX;
	snprintf(sa.sun_path, sizeof(sa.sun_path), "%s", fuzz_d.ctl.path);
	fuzz_fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (fuzz_fd == -1 ||
	    connect(fuzz_fd, (struct sockaddr *)&sa, sizeof(sa)) == -1)
		fuzz_fail("cannot connect to %s", sa.sun_path);
	fcntl(fuzz_fd, F_SETFL, O_NONBLOCK);
	for (i = 0; i < 1000; i++) {
		uv_run(&fuzz_d.loop, UV_RUN_NOWAIT);
		TAILQ_FOREACH(c, &fuzz_d.ctl.conns, entry)
			if (!c->closing)
				return c;
		poll(NULL, 0, 1);
	}
	fuzz_fail("the daemon does not accept the connection");
}

/* Reads what the daemon sent; 0 when the connection was closed. */
static int
fuzz_dispatch_read(void)
{
	ssize_t n;

	for (;;) {
		if (fuzz_incap - fuzz_inlen < 4096) {
			fuzz_incap = fuzz_incap ? fuzz_incap * 2 : 65536;
			fuzz_in = realloc(fuzz_in, fuzz_incap);
			if (fuzz_in == NULL)
				abort();
		}
		n = read(fuzz_fd, fuzz_in + fuzz_inlen, fuzz_incap - fuzz_inlen);
		if (n > 0) {
			fuzz_inlen += (size_t)n;
			continue;
		}
		return n != 0;
	}
}

static long long
fuzz_dispatch_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (long long)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* Every line the daemon writes is one JSON object with a boolean "ok". */
static json_t *
fuzz_dispatch_line(const char *line, size_t len)
{
	json_error_t jerr;
	json_t *r;
	json_t *e;

	r = json_loadb(line, len, 0, &jerr);
	if (r == NULL || !json_is_object(r))
		fuzz_fail("reply is not one JSON object: %.*s", (int)len, line);
	if (json_object_get(r, "event") != NULL)
		return r;	/* a watch event, not a reply */
	if (!json_is_boolean(json_object_get(r, "ok")))
		fuzz_fail("reply without a boolean ok: %.*s", (int)len, line);
	if (json_is_false(json_object_get(r, "ok"))) {
		e = json_object_get(r, "error");
		if (!json_is_object(e) ||
		    !json_is_string(json_object_get(e, "code")) ||
		    !json_is_string(json_object_get(e, "message")))
			fuzz_fail("ok:false without error.code and "
			    "error.message strings: %.*s", (int)len, line);
	}
	return r;
}

/* The id the daemon echoes: a string or number member "id". */
static json_t *
fuzz_dispatch_id(const char *line, size_t len)
{
	json_error_t jerr;
	json_t *req, *id;

	req = json_loadb(line, len, JSON_DECODE_ANY | JSON_REJECT_DUPLICATES,
	    &jerr);
	id = json_object_get(req, "id");
	if (id != NULL && (json_is_string(id) || json_is_number(id)))
		json_incref(id);
	else
		id = NULL;
	json_decref(req);
	return id;
}

/*
 * Beyond the shape, two promises of docs/protocol.md that hold whatever
 * the request: a list of bisections (list, status without an id) shows
 * every stored one (no request here can add one: there are no hosts), and
 * a not-found message does not show the server's paths.  Both are pending
 * findings, checked with FUZZ_STRICT=1.
 */
static void
fuzz_dispatch_content(const char *line, size_t len, const json_t *reply)
{
	json_error_t jerr;
	json_t *req, *e;
	const char *cmd, *msg, *code;

	if (!fuzz_strict())
		return;
	req = json_loadb(line, len, JSON_DECODE_ANY, &jerr);
	cmd = json_string_value(json_object_get(req, "cmd"));
	if (json_is_true(json_object_get(reply, "ok")) && cmd != NULL &&
	    (strcmp(cmd, "list") == 0 || (strcmp(cmd, "status") == 0 &&
	    json_object_get(req, "bisection") == NULL)) &&
	    json_array_size(json_object_get(reply, "bisections")) !=
	    FUZZ_STORED)
		fuzz_fail("%s shows %zu bisections of %d stored", cmd,
		    json_array_size(json_object_get(reply, "bisections")),
		    FUZZ_STORED);
	json_decref(req);
	e = json_object_get(reply, "error");
	code = json_string_value(json_object_get(e, "code"));
	msg = json_string_value(json_object_get(e, "message"));
	if (code != NULL && strcmp(code, "not-found") == 0 && msg != NULL &&
	    strstr(msg, fuzz_dir) != NULL)
		fuzz_fail("a not-found message shows a server path: %s", msg);
}

/*
 * A backup writes where the request says, as root here: only into the
 * temp dir.  Any other path is not sent.
 */
static int
fuzz_dispatch_allowed(const char *line, size_t len)
{
	json_error_t jerr;
	json_t *req;
	const char *cmd, *path;
	int ok = 1;

	req = json_loadb(line, len, JSON_DECODE_ANY, &jerr);
	cmd = json_string_value(json_object_get(req, "cmd"));
	path = json_string_value(json_object_get(req, "path"));
	if (cmd != NULL && strcmp(cmd, "backup") == 0 && path != NULL &&
	    (strncmp(path, fuzz_dir, strlen(fuzz_dir)) != 0 ||
	    strstr(path, "..") != NULL))
		ok = 0;
	json_decref(req);
	return ok;
}

/* The temp dir goes when the run ends; a crash leaves it to look at. */
static void
fuzz_dispatch_cleanup(void)
{
	tst_rmrf(fuzz_dir);
}

int
LLVMFuzzerInitialize(int *argc, char ***argv)
{
	(void)argc;
	(void)argv;
	fuzz_dispatch_daemon();
	atexit(fuzz_dispatch_cleanup);
	fuzz_incap = 65536;
	if ((fuzz_in = malloc(fuzz_incap)) == NULL)
		abort();
	return 0;
}

/*
 * Sleeps until the loop has work (its backend descriptor, or its next
 * timer) or the reply arrives, as uv_run would, but bounded to 10 ms.
 */
static void
fuzz_dispatch_wait(void)
{
	struct pollfd pfd[2] = {
		{ .fd = uv_backend_fd(&fuzz_d.loop), .events = POLLIN },
		{ .fd = fuzz_fd, .events = POLLIN },
	};
	int ms = uv_backend_timeout(&fuzz_d.loop);

	poll(pfd, 2, ms < 0 || ms > 10 ? 10 : ms);
}

/* Waits for the next reply (events skipped); the caller owns it. */
static json_t *
fuzz_dispatch_reply(void)
{
	long long deadline = fuzz_dispatch_ms() + FUZZ_REPLY_MS;
	json_t *r;
	char *end;

	for (;;) {
		while ((end = memchr(fuzz_in, '\n', fuzz_inlen)) != NULL) {
			r = fuzz_dispatch_line(fuzz_in, (size_t)(end - fuzz_in));
			fuzz_inlen -= (size_t)(end + 1 - fuzz_in);
			memmove(fuzz_in, end + 1, fuzz_inlen);
			if (json_object_get(r, "event") == NULL)
				return r;
			json_decref(r);
		}
		if (fuzz_dispatch_ms() > deadline)
			fuzz_fail("no reply within %d ms", FUZZ_REPLY_MS);
		uv_run(&fuzz_d.loop, UV_RUN_NOWAIT);
		if (!fuzz_dispatch_read())
			fuzz_fail("the daemon closed the connection");
		if (memchr(fuzz_in, '\n', fuzz_inlen) == NULL)
			fuzz_dispatch_wait();
	}
}

/* All of text on the socket, the daemon reading meanwhile. */
static void
fuzz_dispatch_send(const char *text, size_t len)
{
	ssize_t n;

	while (len > 0) {
		n = write(fuzz_fd, text, len);
		if (n > 0) {
			text += n;
			len -= (size_t)n;
			continue;
		}
		uv_run(&fuzz_d.loop, UV_RUN_NOWAIT);
		if (!fuzz_dispatch_read())
			fuzz_fail("the daemon closed the connection");
	}
}

/* The lines the socket's framing makes of the input, each answered once. */
struct fuzz_line {
	const char	*text;
	size_t		 len;
};

/*
 * Cuts the input as the control socket does (at each newline, one '\r'
 * before it removed) and keeps the lines that get an answer (not blank).
 * Returns how many, or -1 when one must not be sent.
 */
static int
fuzz_dispatch_split(const char *in, size_t size, struct fuzz_line *lines,
    int max)
{
	const char *p = in, *nl;
	size_t len, i;
	int n = 0;

	while (p < in + size) {
		nl = memchr(p, '\n', (size_t)(in + size - p));
		len = nl != NULL ? (size_t)(nl - p) : (size_t)(in + size - p);
		if (len > 0 && p[len - 1] == '\r')
			len--;
		for (i = 0; i < len && (p[i] == ' ' || p[i] == '\t'); i++)
			;
		if (i < len) {
			if (n == max || !fuzz_dispatch_allowed(p, len))
				return -1;
			lines[n].text = p;
			lines[n++].len = len;
		}
		if (nl == NULL)
			break;
		p = nl + 1;
	}
	return n;
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct fuzz_line lines[64];
	struct ctl_conn *conn;
	json_t *id, *reply;
	char *text, *shown;
	int n, k;

	if (size > PROTO_LINE_MAX)
		return 0;
	/* The last line ends too: nothing is left over for the next input. */
	text = malloc(size + 1);
	if (text == NULL)
		abort();
	memcpy(text, data, size);
	text[size] = '\n';
	if ((n = fuzz_dispatch_split(text, size, lines, 64)) < 0) {
		free(text);
		return 0;
	}
	conn = fuzz_dispatch_conn();
	fuzz_inlen = 0;
	fuzz_dispatch_send(text, size + 1);
	for (k = 0; k < n; k++) {
		id = fuzz_dispatch_id(lines[k].text, lines[k].len);
		reply = fuzz_dispatch_reply();
		if (getenv("FUZZ_SHOW") != NULL) {
			shown = json_dumps(reply, JSON_COMPACT);
			fprintf(stderr, "> %.*s\n< %s\n", (int)lines[k].len,
			    lines[k].text, shown);
			free(shown);
		}
		if (id != NULL && !json_equal(json_object_get(reply, "id"),
		    id))
			fuzz_fail("the id of line %d is not echoed unchanged",
			    k + 1);
		fuzz_dispatch_content(lines[k].text, lines[k].len, reply);
		json_decref(reply);
		json_decref(id);
	}
	/* Nothing more: exactly one reply per line. */
	uv_run(&fuzz_d.loop, UV_RUN_NOWAIT);
	fuzz_dispatch_read();
	while ((shown = memchr(fuzz_in, '\n', fuzz_inlen)) != NULL) {
		reply = fuzz_dispatch_line(fuzz_in, (size_t)(shown - fuzz_in));
		if (json_object_get(reply, "event") == NULL)
			fuzz_fail("a reply more than the %d lines sent", n);
		json_decref(reply);
		fuzz_inlen -= (size_t)(shown + 1 - fuzz_in);
		memmove(fuzz_in, shown + 1, fuzz_inlen);
	}
	/* watch keeps streaming; the next input starts unsubscribed. */
	conn->subscriptions = 0;
	free(text);
	return 0;
}
