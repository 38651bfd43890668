/* SPDX-License-Identifier: MIT */
/*
 * bisectctl against a fake daemon (tests/support/fakesrv.c): the request
 * each command builds, its readable and --json output, usage errors, error
 * replies and an unreachable daemon.  ctl_stream_test.c has watch and
 * status --follow.
 */
#include <criterion/criterion.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/proto_cmd.h"
#include "common/xmalloc.h"
#include "tests/integration/ctl_client_test.h"

TestSuite(ctlclient, .fini = tst_leak_check, .timeout = 60);

static const char sha_bad[] = "a1b2c3d4e5f60718293a4b5c6d7e8f9012345678";
static const char sha_good[] = "0123456789abcdef0123456789abcdef01234567";

/* A full status reply of bisection 4, running. */
static const char status_running[] =
    "{'ok':true,'bisection':{'id':4,'state':'running','phase':'bisecting',"
    "'verdict':'none','benchmark':'hackbench','metric':'throughput',"
    "'group':'lab','good':['0123456789abcdef0123456789abcdef01234567',"
    "'1111111111111111111111111111111111111111'],"
    "'bad':'a1b2c3d4e5f60718293a4b5c6d7e8f9012345678',"
    "'candidates':120,'candidates_left':37,'samples':14,"
    "'runs':{'queued':3,'running':2,'done':40,'failed-infra':1,"
    "'skipped':0,'cancelled':0},"
    "'in_flight':[{'run':17,"
    "'commit':'feedfacefeedfacefeedfacefeedfacefeedface','host':'box1'},"
    "{'run':18,'commit':'beefbeefbeefbeefbeefbeefbeefbeefbeefbeef',"
    "'host':null}],"
    "'top':[{'commit':'c0ffee00c0ffee00c0ffee00c0ffee00c0ffee00',"
    "'subject':'mm: batch the pcp free path','probability':0.62},"
    "{'commit':'dead0000dead0000dead0000dead0000dead0000',"
    "'subject':'sched: tweak','probability':0.2}],"
    "'est_samples_left':6.5,'est_seconds_left':300,'misfits':0,"
    "'created_ms':1764000000000,'updated_ms':1764000300000}}";

CTEST(bisect_builds_full_request)
{
	json_t *r;

	start(FAKESRV_AT_ONCE);
	reply("bisect", "{'ok':true,'bisection':7,'existing':false}");
	serve();
	CTL("bisect", "--good", sha_good, "--good", "v6.1", "--bad", sha_bad,
	    "--benchmark", "hackbench", "--metric", "throughput", "--group",
	    "lab", "--confidence", "0.995", "--max-samples", "40",
	    "--first-parent", "--priority", "-3");
	cr_assert_eq(o.status, 0, "stderr: %s", o.err);
	expect_out("bisection 7 started");
	r = sent("bisect");
	cr_expect_eq(json_array_size(json_object_get(r, "good")), 2);
	cr_expect_str_eq(json_string_value(json_array_get(
	    json_object_get(r, "good"), 0)), sha_good);
	cr_expect_str_eq(json_string_value(json_array_get(
	    json_object_get(r, "good"), 1)), "v6.1");
	cr_expect_str_eq(json_string_value(json_object_get(r, "bad")), sha_bad);
	cr_expect_str_eq(json_string_value(json_object_get(r, "benchmark")),
	    "hackbench");
	cr_expect_str_eq(json_string_value(json_object_get(r, "metric")),
	    "throughput");
	cr_expect_str_eq(json_string_value(json_object_get(r, "group")), "lab");
	cr_expect(json_is_real(json_object_get(r, "confidence")));
	cr_expect_float_eq(json_real_value(json_object_get(r, "confidence")),
	    0.995, 1e-12);
	cr_expect_eq(json_integer_value(json_object_get(r, "max_samples")), 40);
	cr_expect(json_is_true(json_object_get(r, "first_parent")));
	cr_expect_eq(json_integer_value(json_object_get(r, "priority")), -3);
	json_decref(r);
}

CTEST(bisect_minimal_request_and_existing)
{
	json_t *r;

	start(FAKESRV_AT_ONCE);
	reply("bisect", "{'ok':true,'bisection':7,'existing':true}");
	serve();
	CTL("bisect", "--bad", "HEAD", "--good", "HEAD~8", "--benchmark", "b",
	    "--metric", "m");
	cr_assert_eq(o.status, 0, "stderr: %s", o.err);
	expect_out("bisection 7 already running (same request)");
	r = sent("bisect");
	cr_expect_eq(json_object_size(r), 5, "only cmd and the given fields");
	cr_expect_null(json_object_get(r, "group"));
	cr_expect_null(json_object_get(r, "first_parent"));
	json_decref(r);
}

/* Each bad command line: a usage error naming the problem, nothing sent. */
CTEST(usage_errors_exit_64)
{
	static const struct {
		const char	*args[12];
		const char	*message;
	} cases[] = {
		{ { "bisect", "--good", "g", "--benchmark", "b", "--metric",
		    "m" }, "--bad is required" },
		{ { "bisect", "--bad", "x", "--benchmark", "b", "--metric",
		    "m" }, "--good is required" },
		{ { "bisect", "--good", "g", "--bad", "x", "--metric", "m" },
		    "--benchmark is required" },
		{ { "bisect", "--good", "g", "--bad", "x", "--benchmark", "b",
		    "--metric", "m", "--confidence", "1.5" },
		    "--confidence: expected a number between 0 and 1" },
		{ { "bisect", "--good", "g", "--bad", "x", "--benchmark", "b",
		    "--metric", "m", "--confidence", "abc" }, "not 'abc'" },
		{ { "bisect", "--good", "g", "--bad", "x", "--benchmark", "b",
		    "--metric", "m", "--max-samples", "0" },
		    "--max-samples: expected a whole number from 6 to 1000000" },
		{ { "bisect", "--good", "g", "--bad", "x", "--benchmark", "b",
		    "--metric", "m", "--max-samples", "3" },
		    "--max-samples: expected a whole number from 6 to 1000000" },
		{ { "bisect", "--good", "g", "--bad", "x", "--benchmark", "b",
		    "--metric", "m", "--max-smaples", "9" },
		    "unknown option --max-smaples; did you mean --max-samples?" },
		{ { "bisect", "--good", "g", "--bad", "x", "--benchmark", "b",
		    "--metric", "m", "--max-samples", "12x" }, "not '12x'" },
		{ { "bisect", "--good", "g", "--bad", "x", "--benchmark", "b",
		    "--metric", "m", "--priority", "99999999999" },
		    "--priority: expected a whole number" },
		{ { "bisect", "--good", "g", "--bad", "x", "--bad", "y",
		    "--benchmark", "b", "--metric", "m" }, "--bad given twice" },
		{ { "bisect", "--good", "g", "--bad", "x", "--benchmark", "b",
		    "--metric", "m", "--frob" }, "unknown option --frob" },
		{ { "bisect", "--good", "g", "--benchmark", "b", "--metric",
		    "m", "--bad" }, "--bad needs a value" },
		{ { "bisect", "--good", "", "--bad", "x", "--benchmark", "b",
		    "--metric", "m" }, "--good: expected a non-empty value" },
		{ { "status", "abc" }, "ID: expected a bisection id" },
		{ { "status", "--follow" }, "--follow needs a bisection ID" },
		{ { "cancel" }, "ID is missing" },
		{ { "cancel", "0" }, "ID: expected a bisection id" },
		{ { "log", "1", "2" }, "unexpected argument '2'" },
		{ { "samples", "1", "--commit" }, "--commit needs a value" },
		{ { "report", "x" }, "ID: expected a bisection id" },
		{ { "drain" }, "HOST is missing" },
		{ { "watch", "now" }, "unexpected argument 'now'" },
	};
	size_t i;

	start(FAKESRV_AT_ONCE);
	serve();
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		RUN(fs.path, 0, cases[i].args);
		cr_expect_eq(o.status, 64, "case %zu (%s): exit %d", i,
		    cases[i].message, o.status);
		expect_err(cases[i].message);
		expect_err("usage: bisectctl ");
		cr_expect_str_eq(o.out, "", "case %zu printed: %s", i, o.out);
	}
	cr_expect_eq(fakesrv_nrequests(&fs), 0, "a usage error reached the "
	    "daemon");
}

/*
 * --help lists every command of the protocol table that is not hidden, on
 * stdout with exit 0: asked for, not a usage error (issue 38).
 */
CTEST(help_lists_every_command_of_the_table)
{
	const struct proto_cmd *c;
	char *want;
	size_t i;

	RUN(NULL, 0, ARGV("--help"));
	cr_expect_eq(o.status, 0, "--help exit %d", o.status);
	cr_expect_str_eq(o.err, "");
	for (i = 0; i < PROTO_CMD_COUNT; i++) {
		c = &proto_cmd_table[i];
		xasprintf(&want, "\n  %-8s ", c->name);
		if (c->flags & PROTO_CMD_HIDDEN)
			cr_expect_null(strstr(o.out, want), "--help lists "
			    "hidden %s", c->name);
		else
			cr_expect_not_null(strstr(o.out, want), "--help lacks "
			    "%s:\n%s", c->name, o.out);
		if (!(c->flags & PROTO_CMD_HIDDEN))
			cr_expect_not_null(strstr(o.out, c->help),
			    "--help lacks the help of %s", c->name);
		free(want);
	}
	expect_out("\n  raw ");
	expect_out("\n  next ");
	expect_out("\n  help ");
}

/* `help` is asked for: the same list on stdout, exit 0; `help CMD` one row. */
CTEST(help_command_shows_rows_of_the_table)
{
	const struct proto_cmd *c;
	const struct proto_cmd_field *f;
	char *list, *want;
	size_t i;

	RUN(NULL, 0, ARGV("--help"));
	list = xstrdup(o.out);
	fakesrv_out_release(&o);
	RUN(NULL, 0, ARGV("help"));
	cr_expect_eq(o.status, 0, "stderr: %s", o.err);
	cr_expect_str_eq(o.out, list, "help and --help differ");
	free(list);
	for (i = 0; i < PROTO_CMD_COUNT; i++) {
		c = &proto_cmd_table[i];
		fakesrv_out_release(&o);
		RUN(NULL, 0, ARGV("help", c->name));
		cr_expect_eq(o.status, 0, "help %s: exit %d", c->name,
		    o.status);
		xasprintf(&want, "usage: bisectctl %s%s%s\n%s\n", c->name,
		    *c->usage ? " " : "", c->usage, c->help);
		cr_expect_eq(strncmp(o.out, want, strlen(want)), 0,
		    "help %s: %s", c->name, o.out);
		free(want);
		for (f = c->fields; f != NULL && f->name != NULL; f++) {
			if (f->arg == NULL)
				continue;
			cr_expect_not_null(f->help, "%s: field %s has no help",
			    c->name, f->name);
			xasprintf(&want, "\n  %s", f->arg);
			cr_expect_not_null(strstr(o.out, want), "help %s lacks "
			    "%s:\n%s", c->name, f->arg, o.out);
			free(want);
			if (f->help != NULL)
				cr_expect_not_null(strstr(o.out, f->help),
				    "help %s lacks %s's help", c->name,
				    f->arg);
		}
		/* CMD --help shows the same, also on stdout with exit 0. */
		want = xstrdup(o.out);
		fakesrv_out_release(&o);
		RUN(NULL, 0, ARGV(c->name, "--help"));
		cr_expect_eq(o.status, 0, "%s --help: exit %d", c->name,
		    o.status);
		cr_expect_str_eq(o.out, want);
		free(want);
	}
	fakesrv_out_release(&o);
	RUN(NULL, 0, ARGV("help", "bisect"));
	expect_out("--max-samples N");
	expect_out("(6 to 1000000)");
	expect_out("--priority P");
	expect_out("higher runs first");
	expect_out("  --fixup SHA[:BROKEN] a fix-up");
	fakesrv_out_release(&o);
	RUN(NULL, 0, ARGV("help", "frobnicate"));
	cr_expect_eq(o.status, 64);
	expect_err("unknown command 'frobnicate'");
}

/* Issue 38: a misspelt command gets "did you mean", as git's does. */
CTEST(misspelt_command_suggests_the_nearest)
{
	RUN(NULL, 0, ARGV("stauts", "4"));
	cr_expect_eq(o.status, 64);
	expect_err("unknown command stauts; did you mean status?");
	cr_expect_str_eq(o.out, "");
	fakesrv_out_release(&o);
	RUN(NULL, 0, ARGV("frobnicate"));
	cr_expect_eq(o.status, 64);
	expect_err("unknown command frobnicate\n");
	cr_expect_null(strstr(o.err, "did you mean"), "%s", o.err);
}

CTEST(status_one_readable)
{
	json_t *r;

	start(FAKESRV_AT_ONCE);
	reply("status", status_running);
	serve();
	CTL("status", "4");
	cr_assert_eq(o.status, 0, "stderr: %s", o.err);
	r = sent("status");
	cr_expect_eq(json_integer_value(json_object_get(r, "bisection")), 4);
	json_decref(r);
	expect_out("#4 running, bisecting");
	expect_out("hackbench, metric throughput, group lab");
	expect_out(sha_bad);
	expect_out("1111111111111111111111111111111111111111");
	expect_out("37 left of 120");
	expect_out("40 done, 3 queued, 2 running, 1 failed-infra");
	expect_out("run 17: feedfacefeed on box1");
	expect_out("run 18: beefbeefbeef (waiting for a host)");
	expect_out("c0ffee00c0ff  62.0%  mm: batch the pcp free path");
	expect_out("6.5 more samples, about 5m00s");
	cr_expect_null(strstr(o.out, "skipped"), "zero counts are left out");
	cr_expect_null(strstr(o.out, "drift"), "no drift, nothing said");
}

/* A drift the engine found is on the samples line; none, nothing said. */
CTEST(status_says_the_drift)
{
	char buf[sizeof(status_running) + 32];
	const char *at = strstr(status_running, "'misfits':0,");

	cr_assert_not_null(at);
	snprintf(buf, sizeof(buf), "%.*s'drift':1.75,%s",
	    (int)(at - status_running), status_running, at);
	start(FAKESRV_AT_ONCE);
	reply("status", buf);
	serve();
	CTL("status", "4");
	cr_assert_eq(o.status, 0, "stderr: %s", o.err);
	expect_out("(0 misfits; test machine drift of 1.8 sd, adjusted for)");
}

/*
 * Issue 38: an ended bisection shows no estimate, and a label as long as
 * the column ("verification") keeps a space before its value.
 */
CTEST(status_ended_shows_no_estimate_and_spaces_long_labels)
{
	char buf[sizeof(status_running) + 128];
	const char *at = strstr(status_running, "'state':'running',");
	const char *tail = at + strlen("'state':'running',");

	cr_assert_not_null(at);
	snprintf(buf, sizeof(buf), "%.*s'state':'done','verification':"
	    "{'phase':'done','runs':4,'want':4,'result':'confirms'},%s",
	    (int)(at - status_running), status_running, tail);
	start(FAKESRV_AT_ONCE);
	reply("status", buf);
	serve();
	CTL("status", "4");
	cr_assert_eq(o.status, 0, "stderr: %s", o.err);
	expect_out("verification done, 4 of 4 revert runs, revert confirms");
	cr_expect_null(strstr(o.out, "more samples"), "%s", o.out);
	cr_expect_null(strstr(o.out, "estimate"), "%s", o.out);
}

CTEST(status_without_id_is_the_list)
{
	json_t *r;

	start(FAKESRV_AT_ONCE);
	reply("status", "{'ok':true,'bisections':[{'id':3,'state':'done',"
	    "'verdict':'culprit','benchmark':'hackbench','metric':'tput',"
	    "'group':'lab','bad':'a1b2c3d4e5f60718293a4b5c6d7e8f9012345678',"
	    "'good':['0123456789abcdef0123456789abcdef01234567'],"
	    "'culprit':'c0ffee00c0ffee00c0ffee00c0ffee00c0ffee00',"
	    "'samples':61,'created_ms':1764000000000}]}");
	serve();
	CTL("status");
	cr_assert_eq(o.status, 0, "stderr: %s", o.err);
	r = sent("status");
	cr_expect_null(json_object_get(r, "bisection"));
	json_decref(r);
	expect_out("ID  STATE");
	expect_out("c0ffee00c0ff");
}

CTEST(list_aligned_table)
{
	char *second;

	start(FAKESRV_AT_ONCE);
	reply("list", "{'ok':true,'bisections':[{'id':3,'state':'done',"
	    "'verdict':'culprit','benchmark':'hackbench','metric':'tput',"
	    "'group':'lab','bad':'a1b2c3d4e5f60718293a4b5c6d7e8f9012345678',"
	    "'good':['0123456789abcdef0123456789abcdef01234567',"
	    "'1111111111111111111111111111111111111111'],"
	    "'culprit':'c0ffee00c0ffee00c0ffee00c0ffee00c0ffee00',"
	    "'samples':61,'created_ms':1764000000000},"
	    "{'id':12,'state':'running','verdict':'none',"
	    "'benchmark':'stress-ng-long-name','metric':'ops','group':null,"
	    "'bad':'b','good':['g'],'samples':5,'created_ms':1764000000000}]}");
	serve();
	CTL("list");
	cr_assert_eq(o.status, 0, "stderr: %s", o.err);
	expect_out("ID  STATE    VERDICT  BENCHMARK            METRIC");
	expect_out(" 3  done     culprit  hackbench            tput");
	expect_out("12  running  none     stress-ng-long-name  ops");
	expect_out("a1b2c3d4e5f6  0123456789ab +1");
	second = strstr(o.out, "\n12");
	cr_expect_not_null(second);
	cr_expect_eq(count_lines(o.out), 3);
}

CTEST(cancel_log_samples_drain)
{
	json_t *r;
	static const char log_lines[] =
	    "git bisect start\n"
	    "# bad: [a1b2c3d4e5f60718293a4b5c6d7e8f9012345678] mm: x\n"
	    "git bisect bad a1b2c3d4e5f60718293a4b5c6d7e8f9012345678\n";

	start(FAKESRV_AT_ONCE);
	reply("cancel", "{'ok':true,'cancelled':true}");
	reply("log", "{'ok':true,'lines':['git bisect start',"
	    "'# bad: [a1b2c3d4e5f60718293a4b5c6d7e8f9012345678] mm: x',"
	    "'git bisect bad a1b2c3d4e5f60718293a4b5c6d7e8f9012345678']}");
	reply("samples", "{'ok':true,'samples':[{'run':17,"
	    "'commit':'a1b2c3d4e5f60718293a4b5c6d7e8f9012345678','host':'box1',"
	    "'metric':'throughput','value':1.234567891,'attempt':1,'seq':3},"
	    "{'run':18,'commit':'0123456789abcdef0123456789abcdef01234567',"
	    "'host':'box2','metric':'throughput','value':881807,'attempt':2,"
	    "'seq':4}]}");
	reply("drain", "{'ok':true,'host':'box1','state':'draining'}");
	reply("undrain", "{'ok':true,'host':'box1','state':'up'}");
	serve();

	CTL("cancel", "3");
	cr_expect_eq(o.status, 0);
	expect_out("bisection 3 cancelled");
	r = sent("cancel");
	cr_expect_eq(json_integer_value(json_object_get(r, "bisection")), 3);
	json_decref(r);

	CTL("log", "3");
	cr_expect_eq(o.status, 0);
	cr_expect_str_eq(o.out, log_lines, "log lines as is");

	CTL("samples", "3", "--commit", "a1b2c3d4");
	cr_expect_eq(o.status, 0);
	r = sent("samples");
	cr_expect_eq(json_integer_value(json_object_get(r, "bisection")), 3);
	cr_expect_str_eq(json_string_value(json_object_get(r, "commit")),
	    "a1b2c3d4");
	json_decref(r);
	expect_out("RUN  COMMIT        HOST  METRIC        VALUE  ATTEMPT  SEQ");
	expect_out(" 17  a1b2c3d4e5f6  box1  throughput  1.23457");
	expect_out("881807");
	cr_expect_null(strstr(o.out, sha_bad), "commits are shortened");

	CTL("samples", "3");
	r = sent("samples");
	cr_expect_null(json_object_get(r, "commit"));
	json_decref(r);

	CTL("drain", "box1");
	cr_expect_eq(o.status, 0);
	expect_out("host box1: draining");
	r = sent("drain");
	cr_expect_str_eq(json_string_value(json_object_get(r, "host")), "box1");
	json_decref(r);
	CTL("undrain", "box1");
	expect_out("host box1: up");
}

CTEST(samples_empty)
{
	start(FAKESRV_AT_ONCE);
	reply("samples", "{'ok':true,'samples':[]}");
	serve();
	CTL("samples", "9");
	cr_expect_eq(o.status, 0);
	cr_expect_str_eq(o.out, "(no samples)\n");
}

CTEST(hosts_current_column)
{
	start(FAKESRV_AT_ONCE);
	reply("hosts", "{'ok':true,'hosts':[{'name':'box1',"
	    "'address':'127.0.0.1','port':2201,'group':'lab',"
	    "'roles':['build','test'],'state':'busy','infra_failures':0,"
	    "'current':{'bisection':4,'run':17,"
	    "'commit':'a1b2c3d4e5f60718293a4b5c6d7e8f9012345678'},"
	    "'last_error':null,'receives':'sftp','copy_failures':0,"
	    "'copy_error':''},{'name':'box2','address':'127.0.0.1',"
	    "'port':2202,'group':'lab','roles':['test'],'state':'down',"
	    "'infra_failures':3,'current':null,"
	    "'last_error':'connection refused','receives':'exec',"
	    "'copy_failures':1,'copy_error':'box2: cat exited with status 1'"
	    "}]}");
	serve();
	CTL("hosts");
	cr_assert_eq(o.status, 0, "stderr: %s", o.err);
	expect_out("CURRENT");
	expect_out("busy       0  sftp 0 failed  #4 a1b2c3d4e5f6\n");
	expect_out("down       3  exec 1 failed  -\n");
	expect_out("box2: last error: connection refused");
	expect_out("box2: last failed copy: box2: cat exited with status 1");
}

CTEST(json_prints_raw_reply)
{
	static const char line[] = "{\"ok\": true, \"bisection\": 7, "
	    "\"existing\": false}";

	start(FAKESRV_AT_ONCE);
	fakesrv_reply(&fs, "bisect", line);
	fakesrv_reply(&fs, "cancel", "{\"ok\":true,\"cancelled\":true}");
	serve();
	CTL("--json", "bisect", "--good", "g", "--bad", "b", "--benchmark",
	    "x", "--metric", "y");
	cr_expect_eq(o.status, 0);
	cr_expect_str_eq(o.out, "{\"ok\": true, \"bisection\": 7, "
	    "\"existing\": false}\n");
	CTL("cancel", "5", "--json");
	cr_expect_str_eq(o.out, "{\"ok\":true,\"cancelled\":true}\n");
}

CTEST(error_reply_exits_1)
{
	start(FAKESRV_AT_ONCE);
	reply("status", "{'ok':false,'error':{'code':'not-found',"
	    "'message':'no bisection 99'}}");
	serve();
	CTL("status", "99");
	cr_expect_eq(o.status, 1);
	expect_err("not-found: no bisection 99");
	cr_expect_str_eq(o.out, "");
	CTL("status", "99", "--follow");
	cr_expect_eq(o.status, 1);
	expect_err("not-found: no bisection 99");
	CTL("--json", "status", "99");
	cr_expect_eq(o.status, 1);
	expect_out("\"not-found\"");
}

CTEST(unreachable_exits_2)
{
	char *dir = tst_tmpdir("ctlclient"), *sock;
	static const char *const cmds[][4] = {
		{ "list", NULL, NULL }, { "status", "4", "--follow" },
		{ "watch", NULL, NULL }, { "report", "4", NULL },
	};
	size_t i;

	cr_assert_not_null(dir);
	xasprintf(&sock, "%s/none.sock", dir);
	for (i = 0; i < sizeof(cmds) / sizeof(cmds[0]); i++) {
		RUN(sock, 0, cmds[i]);
		cr_expect_eq(o.status, 2, "%s: exit %d", cmds[i][0], o.status);
		expect_err(sock);
	}
	tst_rmrf(dir);
	free(dir);
	free(sock);
}

CTEST(closed_without_reply_exits_2)
{
	start(FAKESRV_AT_ONCE);
	fakesrv_reply(&fs, "list", "");
	serve();
	CTL("list");
	cr_expect_eq(o.status, 2);
	expect_err("closed the connection");
}

CTEST(report_text_and_json)
{
	json_t *r, *printed, *want;
	char *after;

	start(FAKESRV_AT_ONCE);
	reply("report", "{'ok':true,'text':'Greeting,\\n\\nFYI, we noticed "
	    "a -4.7% regression of stress-ng.judy.ops_per_sec','report':"
	    "{'kind':'culprit','change':-0.047,'metric':"
	    "'stress-ng.judy.ops_per_sec','rows':[1,2]}}");
	serve();
	CTL("report", "4");
	cr_assert_eq(o.status, 0, "stderr: %s", o.err);
	cr_expect_str_eq(o.out, "Greeting,\n\nFYI, we noticed a -4.7% "
	    "regression of stress-ng.judy.ops_per_sec\n");
	r = sent("report");
	cr_expect_eq(json_integer_value(json_object_get(r, "bisection")), 4);
	json_decref(r);

	/* Issue 38: --json means the same after the command as before. */
	CTL("report", "4", "--json");
	cr_assert_eq(o.status, 0, "stderr: %s", o.err);
	printed = json_loads(o.out, 0, NULL);
	cr_assert_not_null(printed, "not JSON: %s", o.out);
	want = json_pack("{s:s,s:f,s:s,s:[i,i]}", "kind", "culprit", "change",
	    -0.047, "metric", "stress-ng.judy.ops_per_sec", "rows", 1, 2);
	cr_expect(json_equal(json_object_get(printed, "report"), want),
	    "report object: %s", o.out);
	json_decref(printed);
	json_decref(want);
	after = xstrdup(o.out);

	CTL("--json", "report", "4");
	expect_out("\"text\":");
	cr_expect_eq(count_lines(o.out), 1, "the raw reply line");
	cr_expect_str_eq(o.out, after, "--json before and after differ");
	free(after);
}
