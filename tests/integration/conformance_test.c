/* SPDX-License-Identifier: MIT */
/*
 * Protocol conformance against the real daemon holding real content:
 * bisections done, failed, cancelled and running, hosts up, down and with
 * a refused key, and a restart in between, so finished bisections come
 * from the store.  Every request example of docs/protocol.md (lines
 * starting with "    > ") is sent, and every reply must have every member
 * the doc's example reply shows, with the same JSON type (null in either
 * stands for "may be null").
 */
#include <criterion/criterion.h>

#include <sys/socket.h>
#include <netinet/in.h>

#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <jansson.h>

#include "common/xmalloc.h"
#include "tests/support/daemon.h"
#include "tests/support/ctlprint.h"
#include "tests/support/svc.h"
#include "tests/support/tst.h"

TestSuite(conformance, .fini = svc_fini, .timeout = 900);

/* The doc's examples are wrapped and elided: make them JSON again. */
static char *
conf_unelide(const char *text)
{
	size_t n = strlen(text), i, o = 0;
	char *out = xmalloc(n + 1);
	int in_str = 0;

	for (i = 0; i < n; i++) {
		if (in_str) {
			out[o++] = text[i];
			if (text[i] == '\\' && i + 1 < n)
				out[o++] = text[++i];
			else if (text[i] == '"')
				in_str = 0;
			continue;
		}
		if (text[i] == '"')
			in_str = 1;
		if (strncmp(text + i, "...", 3) == 0) {
			/* Drops ", ..." (and a bare "..." in [] or {}). */
			while (o > 0 && (out[o - 1] == ' ' || out[o - 1] == ','))
				o--;
			i += 2;
			continue;
		}
		out[o++] = text[i];
	}
	out[o] = '\0';
	return out;
}

/* A JSON type family: numbers are one type in JSON. */
static int
conf_type(const json_t *v)
{
	if (json_is_number(v))
		return JSON_REAL;
	if (json_is_boolean(v))
		return JSON_TRUE;
	return json_typeof(v);
}

/* Every member of want is in got with its type; appends misses to why. */
static void
conf_shape(const json_t *want, const json_t *got, const char *path,
    char **why)
{
	const char *key;
	json_t *w;
	char *sub, *t;
	size_t i;

	if (json_is_null(want) || json_is_null(got))
		return;
	if (conf_type(want) != conf_type(got)) {
		xasprintf(&t, "%s%s: type differs; ", *why, path);
		free(*why);
		*why = t;
		return;
	}
	if (json_is_object(want)) {
		json_object_foreach((json_t *)want, key, w) {
			xasprintf(&sub, "%s.%s", path, key);
			if (json_object_get(got, key) == NULL) {
				xasprintf(&t, "%s%s: missing; ", *why, sub);
				free(*why);
				*why = t;
			} else
				conf_shape(w, json_object_get(got, key), sub,
				    why);
			free(sub);
		}
	} else if (json_is_array(want) && json_array_size(want) > 0) {
		for (i = 0; i < json_array_size(got); i++) {
			xasprintf(&sub, "%s[%zu]", path, i);
			conf_shape(json_array_get(want, 0),
			    json_array_get(got, i), sub, why);
			free(sub);
		}
	}
}

/* One example: the request and the replies shown after it. */
struct conf_example {
	char	*request;
	json_t	*replies;	/* array of the doc's reply objects */
};

/* Appends a wrapped example (its first line after the marker) to *buf. */
static void
conf_take(char **buf, const char *line)
{
	char *t;

	xasprintf(&t, "%s%s", *buf ? *buf : "", line);
	free(*buf);
	*buf = t;
}

/* Finishes the example in progress: a reply object, or a request. */
static void
conf_flush(struct conf_example *ex, size_t *n, char **buf, int kind)
{
	char *clean;
	json_t *j;

	if (*buf == NULL)
		return;
	clean = conf_unelide(*buf);
	if (kind == '>') {
		ex[*n].request = clean;
		ex[*n].replies = json_array();
		(*n)++;
		clean = NULL;
	} else if (*n > 0) {
		j = json_loads(clean, 0, NULL);
		cr_assert_not_null(j, "doc reply is not JSON: %s", clean);
		if (json_object_get(j, "ok") != NULL)	/* events are not */
			json_array_append_new(ex[*n - 1].replies, j);
		else
			json_decref(j);
	}
	free(clean);
	free(*buf);
	*buf = NULL;
}

/* Every "    > " example of docs/protocol.md with the replies after it. */
static size_t
conf_examples(struct conf_example *ex, size_t max)
{
	char *path, *doc, *line, *save = NULL, *buf = NULL;
	size_t n = 0;
	int kind = 0;

	xasprintf(&path, "%s/docs/protocol.md", tst_env_path("BISECTD_SRCDIR"));
	cr_assert_not_null(doc = tst_read_file(path));
	free(path);
	for (line = strtok_r(doc, "\n", &save); line != NULL;
	    line = strtok_r(NULL, "\n", &save)) {
		if (strncmp(line, "       ", 7) == 0 && buf != NULL) {
			conf_take(&buf, line + 7);
			continue;
		}
		conf_flush(ex, &n, &buf, kind);
		cr_assert_lt(n, max);
		if (strncmp(line, "    > ", 6) == 0 ||
		    strncmp(line, "    < ", 6) == 0) {
			kind = line[4];
			conf_take(&buf, line + 6);
		}
	}
	conf_flush(ex, &n, &buf, kind);
	free(doc);
	return n;
}

/* The fixture's values for the doc's placeholders, field by field. */
static char *
conf_request(const char *doc_req, int64_t done, int64_t running,
    const char *backup)
{
	json_t *r = json_loads(doc_req, 0, NULL), *v;
	const char *cmd;
	char *out, prefix[9];

	cr_assert_not_null(r, "doc request is not JSON: %s", doc_req);
	cmd = json_string_value(json_object_get(r, "cmd"));
	if (json_object_get(r, "bisection") != NULL)
		json_object_set_new(r, "bisection", json_integer(
		    strcmp(cmd, "cancel") == 0 ? running : done));
	if (json_object_get(r, "commit") != NULL) {
		snprintf(prefix, sizeof(prefix), "%.8s", svc.culprit);
		json_object_set_new(r, "commit", json_string(prefix));
	}
	if (json_object_get(r, "host") != NULL)
		json_object_set_new(r, "host", json_string("h0"));
	if (json_object_get(r, "path") != NULL)
		json_object_set_new(r, "path", json_string(backup));
	if ((v = json_object_get(r, "good")) != NULL) {
		json_object_set_new(r, "good", json_pack("[s]", svc.good));
		json_object_set_new(r, "bad", json_string(svc.bad));
		json_object_set_new(r, "benchmark", json_string("spin"));
		json_object_set_new(r, "metric", json_string("runtime_ms"));
		json_object_set_new(r, "confidence", json_real(0.95));
	}
	out = json_dumps(r, JSON_COMPACT);
	json_decref(r);
	return out;
}

/* The doc's reply to compare with: same ok, and same code when an error. */
static const json_t *
conf_pick(const json_t *replies, const json_t *got)
{
	const json_t *w;
	size_t i;

	json_array_foreach(replies, i, w) {
		if (json_is_true(json_object_get(w, "ok")) !=
		    json_is_true(json_object_get(got, "ok")))
			continue;
		if (json_is_true(json_object_get(got, "ok")) ||
		    strcmp(tst_daemon_error_code(w),
		    tst_daemon_error_code(got)) == 0)
			return w;
	}
	return NULL;
}

/* A loopback port nobody listens on: a host that is down. */
static int
conf_dead_port(void)
{
	struct sockaddr_in sin;
	socklen_t len = sizeof(sin);
	int s = socket(AF_INET, SOCK_STREAM, 0), port;

	memset(&sin, 0, sizeof(sin));
	sin.sin_family = AF_INET;
	sin.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	cr_assert_eq(bind(s, (struct sockaddr *)&sin, sizeof(sin)), 0);
	cr_assert_eq(getsockname(s, (struct sockaddr *)&sin, &len), 0);
	port = ntohs(sin.sin_port);
	close(s);
	return port;
}

/* [benchmark broken]: every run fails, so its bisection fails. */
static char *
conf_broken_bench(void)
{
	return xstrdup("\n[benchmark broken]\nrun = exit 3\n"
	    "metrics = ops_per_sec:higher\nretry_budget = 2\n");
}

/* The four states and the restart; returns the ids by state. */
static void
conf_content(int64_t *done, int64_t *failed, int64_t *cancelled)
{
	json_t *b, *r;
	char *extra;

	svc_setup_with("conform", 2, "2:3", 0, conf_broken_bench);
	*done = svc_bisect("runtime_ms", NULL);
	b = svc_wait(*done);
	svc_assert_culprit(b);
	json_decref(b);
	/* A benchmark that never runs: the bisection ends failed. */
	*failed = svc_bisect_on("broken", svc.good, svc.bad, "ops_per_sec",
	    NULL);
	json_decref(svc_wait(*failed));
	*cancelled = svc_bisect("ops_per_sec", NULL);
	r = svc_req("{\"cmd\":\"cancel\",\"bisection\":%lld}",
	    (long long)*cancelled);
	cr_assert(json_is_true(json_object_get(r, "ok")));
	json_decref(r);
	/* Defect 1 of the issue: cancel of an ended bisection. */
	r = svc_req("{\"cmd\":\"cancel\",\"bisection\":%lld}", (long long)*done);
	cr_assert_str_eq(tst_daemon_error_code(r), "conflict");
	json_decref(r);
	/* Restart with a host that is down and one whose key is refused. */
	xasprintf(&extra, "[host down]\naddress = 127.0.0.1\nport = %d\n"
	    "user = bench\nidentity = %s\nknown_hosts = %s\ngroup = lab\n"
	    "roles = test\nconnect_timeout = 2s\n\n"
	    "[host refused]\naddress = 127.0.0.1\nport = %d\nuser = bench\n"
	    "identity = %s\nknown_hosts = %s\ngroup = lab\nroles = test\n"
	    "connect_timeout = 2s\n", conf_dead_port(), svc.host[0].user_key,
	    svc.host[0].known_hosts, svc.host[1].port, svc.host[1].user_key,
	    svc.host[0].known_hosts);
	svc_restart(extra);
	free(extra);
}

/* Defect 1: list (and status without an id) shows every bisection. */
static void
conf_assert_list(const char *cmd, const int64_t *ids, const char *const *st,
    size_t n)
{
	json_t *r = svc_req("{\"cmd\":\"%s\"}", cmd), *b;
	size_t i, j, seen = 0;

	json_array_foreach(json_object_get(r, "bisections"), i, b)
		for (j = 0; j < n; j++)
			if (json_integer_value(json_object_get(b, "id")) ==
			    ids[j] && strcmp(json_string_value(json_object_get(b,
			    "state")), st[j]) == 0)
				seen++;
	cr_assert_eq(seen, n, "%s shows %zu of %zu bisections", cmd, seen, n);
	json_decref(r);
}

/*
 * bisectctl's status text on the real daemon's reply for bisection id
 * has a "change" line that says what the reply's change_confirmed says,
 * and none where that is null (an ended bisection without a verdict).
 */
static void
conf_assert_change_line(int64_t id)
{
	char *req, *line, *text, *at;
	json_t *got;
	const json_t *b;
	int confirmed;

	xasprintf(&req, "{\"cmd\":\"status\",\"bisection\":%lld}",
	    (long long)id);
	line = tst_daemon_request(&svc.td, req);
	cr_assert_not_null(line, "%s: no reply", req);
	text = ctlprint(print_status, line);
	got = tst_daemon_reply(line);
	cr_assert_not_null(got);
	b = json_object_get(got, "bisection");
	cr_assert_not_null(b, "bisection %lld: %s", (long long)id, text);
	at = strstr(text, "\nchange ");
	if (json_is_null(json_object_get(b, "change_confirmed"))) {
		cr_expect_null(at, "bisection %lld says nothing of a change: "
		    "%s", (long long)id, text);
	} else {
		confirmed = json_is_true(json_object_get(b,
		    "change_confirmed"));
		cr_assert_not_null(at, "bisection %lld: no change line in\n%s",
		    (long long)id, text);
		at += strspn(at + 7, " ") + 7;
		cr_expect_eq(strncmp(at, confirmed ? "confirmed" :
		    "not confirmed", confirmed ? 9 : 13), 0,
		    "bisection %lld (%s): %s", (long long)id, confirmed ?
		    "confirmed" : "not confirmed", text);
	}
	free(text);
	json_decref(got);
	free(req);
}

Test(conformance, every_documented_request_against_real_content)
{
	static const char *const states[] = { "done", "failed", "cancelled" };
	struct conf_example ex[64];
	int64_t ids[3], running;
	const json_t *want;
	char *req, *line, *why, *backup;
	json_t *got, *b;
	size_t n, i;

	conf_content(&ids[0], &ids[1], &ids[2]);
	/* After the restart: the stored verdict, not "0 left of 0". */
	b = svc_status(ids[0]);
	svc_assert_culprit(b);
	cr_assert_gt(json_integer_value(json_object_get(b, "candidates")), 0);
	cr_assert_gt(json_array_size(json_object_get(b, "top")), 0);
	json_decref(b);
	conf_assert_list("list", ids, states, 3);
	conf_assert_list("status", ids, states, 3);
	running = svc_bisect_range(svc.good, svc.bad, "ops_per_sec", NULL);
	conf_assert_change_line(ids[0]);
	conf_assert_change_line(ids[1]);
	conf_assert_change_line(running);
	xasprintf(&backup, "%s/copy.db", svc.dir);
	n = conf_examples(ex, sizeof(ex) / sizeof(ex[0]));
	cr_assert_gt(n, 10);
	for (i = 0; i < n; i++) {
		req = conf_request(ex[i].request, ids[0], running, backup);
		line = tst_daemon_request(&svc.td, req);
		cr_assert_not_null(line, "%s: no reply", req);
		got = tst_daemon_reply(line);
		cr_assert_not_null(got, "%s: reply is not an object", req);
		want = conf_pick(ex[i].replies, got);
		line = json_dumps(got, JSON_COMPACT);
		cr_assert_not_null(want, "%s: no documented reply like %s", req,
		    line);
		why = xstrdup("");
		conf_shape(want, got, "reply", &why);
		cr_expect_str_eq(why, "", "%s: %s", req, why);
		free(why);
		free(line);
		json_decref(got);
		free(req);
		free(ex[i].request);
		json_decref(ex[i].replies);
	}
	free(backup);
}
