/* SPDX-License-Identifier: MIT */
/*
 * Hostile and odd requests against the real daemon: every error reply
 * carries error.code and error.message even when a byte limit cuts a
 * multibyte name, numeric ids come back as written, out-of-range values
 * are refused, and no server path leaks into a reply.
 */
#include <criterion/criterion.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <jansson.h>

#include "common/error.h"
#include "common/proto.h"
#include "common/xmalloc.h"
#include "tests/support/daemon.h"
#include "tests/support/tst.h"

static struct tst_daemon td;

static void
hostile_cleanup(void)
{
	tst_daemon_release(&td);
}

TestSuite(hostile, .fini = tst_leak_check);

#define HTEST(name) Test(hostile, name, .fini = hostile_cleanup)

static void
hostile_start(const char *daemon_extra)
{
	cr_assert_eq(tst_daemon_setup(&td, "hostile", daemon_extra, NULL), 0);
	cr_assert_eq(tst_daemon_start(&td), 0, "bisectd did not start");
}

/* A fresh daemon and one client connection to it. */
static int
hostile_connect(void)
{
	int fd;

	hostile_start(NULL);
	cr_assert_geq(fd = tst_daemon_connect(&td), 0);
	return fd;
}

/* n copies of the euro sign (3 bytes each) after prefix; caller frees. */
static char *
euros(const char *prefix, size_t n)
{
	size_t plen = strlen(prefix), i;
	char *s = xmalloc(plen + 3 * n + 1);

	memcpy(s, prefix, plen);
	for (i = 0; i < n; i++)
		memcpy(s + plen + 3 * i, "\xe2\x82\xac", 3);
	s[plen + 3 * n] = '\0';
	return s;
}

/* The reply to line, which must be an error with a code and a message. */
static json_t *
expect_error(int fd, const char *line, const char *code)
{
	json_t *r = tst_daemon_reply(tst_daemon_rpc(fd, line)), *e;

	cr_assert_not_null(r, "%.80s: no JSON reply", line);
	cr_assert(json_is_false(json_object_get(r, "ok")), "%.80s", line);
	e = json_object_get(r, "error");
	cr_assert(json_is_object(e), "%.80s: reply without error", line);
	cr_assert(json_is_string(json_object_get(e, "message")));
	cr_assert_str_eq(tst_daemon_error_code(r), code, "%.80s", line);
	return r;
}

Test(hostile, utf8_fix_cuts_on_character_boundaries)
{
	char s[16];

	strcpy(s, "ab\xe2\x82\xac\xe2\x82");
	cr_assert_str_eq(bd_utf8_fix(s), "ab\xe2\x82\xac");
	strcpy(s, "a\xe2\x82 b");
	cr_assert_str_eq(bd_utf8_fix(s), "a?? b");
	strcpy(s, "\xc0\xaf\xed\xa0\x80");	/* overlong, surrogate */
	cr_assert_str_eq(bd_utf8_fix(s), "?????");
	strcpy(s, "\xf0\x9f\x98\x80ok");
	cr_assert_str_eq(bd_utf8_fix(s), "\xf0\x9f\x98\x80ok");
}

Test(hostile, raw_number_reads_the_top_level_member)
{
	static const char line[] =
	    "{\"a\":{\"id\":1},\"s\":\"\\\"id\\\":2\",\"id\" : 1e-400}";
	char buf[32];

	cr_assert_eq(proto_raw_number(line, strlen(line), "id", buf,
	    sizeof(buf)), 0);
	cr_assert_str_eq(buf, "1e-400");
	cr_assert_eq(proto_raw_number("{\"id\":\"x\"}", 10, "id", buf,
	    sizeof(buf)), -1);
}

/* Defect 2: multibyte names cut at a byte limit still get an error. */
HTEST(multibyte_names_get_a_full_error_object)
{
	static const char *const prefixes[] = { "", "a", "ab" };
	char *name, *line;
	size_t i;
	int fd;

	fd = hostile_connect();
	name = euros("", 30);
	xasprintf(&line, "{\"cmd\":\"%s\"}", name);
	json_decref(expect_error(fd, line, "unknown-command"));
	free(line);
	free(name);
	for (i = 0; i < sizeof(prefixes) / sizeof(prefixes[0]); i++) {
		name = euros(prefixes[i], 300);
		xasprintf(&line, "{\"cmd\":\"drain\",\"host\":\"%s\"}", name);
		json_decref(expect_error(fd, line, "not-found"));
		free(line);
		xasprintf(&line, "{\"cmd\":\"bisect\",\"good\":[\"v1\"],"
		    "\"bad\":\"%s\",\"benchmark\":\"%s\",\"metric\":\"m\","
		    "\"group\":\"%s\"}", name, name, name);
		json_decref(expect_error(fd, line, "not-found"));
		free(line);
		free(name);
	}
	close(fd);
}

/* The reply to cmd with this id text must start with ok and the same text. */
static void
expect_id_echo(int fd, const char *cmd, const char *ok, const char *id)
{
	char *line, *reply, want[64];

	snprintf(want, sizeof(want), "{\"ok\":%s,\"id\":%s,", ok, id);
	xasprintf(&line, "{\"cmd\":\"%s\",\"id\":%s}", cmd, id);
	reply = tst_daemon_rpc(fd, line);
	cr_assert_not_null(reply);
	cr_assert_eq(strncmp(reply, want, strlen(want)), 0, "%s", reply);
	free(reply);
	free(line);
}

/* An id is echoed as the client wrote it, in replies and errors alike. */
HTEST(numeric_ids_come_back_unchanged)
{
	static const char *const ids[] = { "1e-400", "12.50", "-0", "7E+2" };
	size_t i;
	int fd;

	fd = hostile_connect();
	for (i = 0; i < sizeof(ids) / sizeof(ids[0]); i++) {
		expect_id_echo(fd, "ping", "true", ids[i]);
		expect_id_echo(fd, "nosuch", "false", ids[i]);
	}
	close(fd);
}

/* Defect 9: a priority outside the documented range is refused. */
HTEST(priority_outside_its_range_is_refused)
{
	static const char *const bad[] = {
		"2147483648", "9223372036854775807", "-1000001", "1000001",
	};
	char *line;
	json_t *r;
	size_t i;
	int fd;

	fd = hostile_connect();
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		xasprintf(&line, "{\"cmd\":\"bisect\",\"good\":[\"v1\"],"
		    "\"bad\":\"v2\",\"benchmark\":\"b\",\"metric\":\"m\","
		    "\"priority\":%s}", bad[i]);
		r = expect_error(fd, line, "invalid-argument");
		cr_assert_not_null(strstr(json_string_value(json_object_get(
		    json_object_get(r, "error"), "message")), "priority"));
		json_decref(r);
		free(line);
	}
	close(fd);
}

/*
 * A bisect request with n goods, "v-good" every time or all different;
 * caller frees.  The quadratic build is fine for a few thousand.
 */
static char *
bisect_with_goods(int n, int distinct)
{
	char *goods = xstrdup(""), *next, *line;
	int i;

	for (i = 0; i < n; i++) {
		if (distinct)
			xasprintf(&next, "%s%s\"v%d\"", goods, i ? "," : "", i);
		else
			xasprintf(&next, "%s%s\"v-good\"", goods, i ? "," : "");
		free(goods);
		goods = next;
	}
	xasprintf(&line, "{\"cmd\":\"bisect\",\"good\":[%s],\"bad\":\"v2\","
	    "\"benchmark\":\"b\",\"metric\":\"m\"}", goods);
	free(goods);
	return line;
}

/* Defect 4: goods are deduplicated, and more than 64 are refused. */
HTEST(good_lists_are_capped_after_deduplication)
{
	char *line;
	json_t *r;
	int fd;

	fd = hostile_connect();
	/* 7000 copies of one revision: one good, so it reaches the lookup. */
	line = bisect_with_goods(7000, 0);
	json_decref(expect_error(fd, line, "not-found"));
	free(line);
	line = bisect_with_goods(65, 1);
	r = expect_error(fd, line, "invalid-argument");
	cr_assert_not_null(strstr(json_string_value(json_object_get(
	    json_object_get(r, "error"), "message")), "64"));
	json_decref(r);
	free(line);
	close(fd);
}

/* Error replies name no server path: not the database, not the config. */
HTEST(error_replies_name_no_server_path)
{
	static const char *const reqs[] = {
		"{\"cmd\":\"status\",\"bisection\":999}",
		"{\"cmd\":\"samples\",\"bisection\":999}",
		"{\"cmd\":\"log\",\"bisection\":999}",
		"{\"cmd\":\"cancel\",\"bisection\":999}",
		"{\"cmd\":\"report\",\"bisection\":999}",
	};
	const char *msg;
	char *reply;
	json_t *r;
	size_t i;
	int fd;

	fd = hostile_connect();
	for (i = 0; i < sizeof(reqs) / sizeof(reqs[0]); i++) {
		reply = tst_daemon_rpc(fd, reqs[i]);
		cr_assert_not_null(reply);
		cr_assert_not_null(strstr(reply, "\"not-found\""), "%s", reply);
		cr_assert_null(strstr(reply, td.dir), "%s", reply);
		free(reply);
	}
	cr_assert_eq(tst_daemon_write_raw(&td, "[daemon]\nnosuchkey = 1\n"),
	    0);
	r = expect_error(fd, "{\"cmd\":\"reload\"}", "invalid-config");
	msg = json_string_value(json_object_get(json_object_get(r, "error"),
	    "message"));
	cr_assert_null(strstr(msg, td.dir), "%s", msg);
	json_decref(r);
	close(fd);
}
