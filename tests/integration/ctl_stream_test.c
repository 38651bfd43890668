/* SPDX-License-Identifier: MIT */
/*
 * bisectctl's streaming commands against a fake daemon that plays a
 * scripted event stream: watch, and status --follow in a pipe, on a
 * pseudo-terminal and with --json.  The progress line is also checked
 * directly.  Suite ctlclient, declared in ctl_client_test.c.
 */
#include <criterion/criterion.h>
#include <jansson.h>
#include <stdlib.h>
#include <string.h>

#include "common/xmalloc.h"
#include "ctl/print.h"
#include "tests/integration/ctl_client_test.h"

CTEST(watch_prints_events_until_closed)
{
	json_t *r;

	start(FAKESRV_AT_ONCE);
	event("{'event':'probe-started','time_ms':1764000000000,'bisection':4,"
	    "'commit':'a1b2c3d4e5f60718293a4b5c6d7e8f9012345678','host':'box1',"
	    "'run':17}");
	event("{'event':'sample','time_ms':1764000001000,'bisection':4,"
	    "'commit':'a1b2c3d4e5f60718293a4b5c6d7e8f9012345678','host':'box1',"
	    "'run':17,'value':1.5}");
	event("{'event':'host','time_ms':1764000002000,'host':'box2',"
	    "'state':'draining'}");
	event("{'event':'verdict','time_ms':1764000002500,'bisection':4,"
	    "'verdict':'culprit','confidence':0.995,"
	    "'culprit':'c0ffee00c0ffee00c0ffee00c0ffee00c0ffee00'}");
	event("{'event':'done','time_ms':1764000003000,'bisection':4,"
	    "'state':'done','verdict':'culprit'}");
	serve();
	CTL("watch");
	cr_expect_eq(o.status, 0, "stderr: %s", o.err);
	cr_expect_eq(count_lines(o.out), 5, "one line per event:\n%s", o.out);
	expect_out("#4 probe started: a1b2c3d4e5f6, on box1, run 17\n");
	expect_out("#4 sample: a1b2c3d4e5f6, on box1, run 17, value 1.5\n");
	expect_out("host box2: state draining\n");
	expect_out("#4 verdict: verdict culprit, culprit c0ffee00c0ff, "
	    "confidence 99.5%\n");
	expect_out("#4 done: state done, verdict culprit\n");
	r = sent("watch");
	json_decref(r);

	CTL("watch", "--json");
	cr_expect_eq(o.status, 0);
	cr_expect_eq(count_lines(o.out), 6, "the reply and five events:\n%s",
	    o.out);
	expect_out("{\"ok\":true,\"watching\":true}\n{\"event\":"
	    "\"probe-started\"");
}

/* Three status replies while running (two alike), then done. */
static void
script_follow(const char *final)
{
	static const char running10[] =
	    "{'ok':true,'bisection':{'id':4,'state':'running',"
	    "'phase':'bisecting','samples':10,'candidates_left':37,"
	    "'est_samples_left':10.2,'top':[{'commit':"
	    "'c0ffee00c0ffee00c0ffee00c0ffee00c0ffee00','probability':0.62}]}}";
	static const char running12[] =
	    "{'ok':true,'bisection':{'id':4,'state':'running',"
	    "'phase':'bisecting','samples':12,'candidates_left':9,"
	    "'est_samples_left':3,'top':[{'commit':"
	    "'c0ffee00c0ffee00c0ffee00c0ffee00c0ffee00','probability':0.9}]}}";
	int i;

	start(FAKESRV_LOCKSTEP);
	reply("status", running10);
	reply("status", running10);
	reply("status", running12);
	reply("status", final);
	for (i = 0; i < 3; i++)
		event("{'event':'sample','time_ms':1764000000000,"
		    "'bisection':4,'value':1.0}");
	serve();
}

static const char done_culprit[] =
    "{'ok':true,'bisection':{'id':4,'state':'done','phase':'finished',"
    "'verdict':'culprit','samples':14,"
    "'culprit':'c0ffee00c0ffee00c0ffee00c0ffee00c0ffee00',"
    "'confidence':0.995,'top':[{'commit':"
    "'c0ffee00c0ffee00c0ffee00c0ffee00c0ffee00','subject':'mm: batch',"
    "'probability':0.995}]}}";

CTEST(follow_plain_lines_until_done)
{
	static const char want[] =
	    "#4 bisecting: 10/21 steps, 37 candidates left, leading "
	    "c0ffee00c0 (62.0%)\n"
	    "#4 bisecting: 12/21 steps, 9 candidates left, leading "
	    "c0ffee00c0 (90.0%)\n"
	    "#4 done: culprit c0ffee00c0ff \"mm: batch\" (confidence 99.5%) "
	    "after 14 samples\n";
	json_t *r;

	script_follow(done_culprit);
	CTL("status", "4", "--follow");
	cr_expect_eq(o.status, 0, "stderr: %s", o.err);
	cr_expect_str_eq(o.out, want);
	cr_expect_null(strchr(o.out, '\r'), "no terminal control in a pipe");
	r = sent("watch");
	json_decref(r);
	r = sent("status");
	cr_expect_eq(json_integer_value(json_object_get(r, "bisection")), 4);
	cr_expect_null(json_object_get(r, "follow"), "--follow is local");
	json_decref(r);
	cr_expect_eq(fakesrv_nrequests(&fs), 5, "four status and one watch");
}

/*
 * In a pipe a line is printed when the progress changes, not when only
 * the seconds of the build and of the bisection moved between polls;
 * each line still says how long things took when it was printed.
 */
CTEST(follow_in_a_pipe_ignores_ticking_seconds)
{
	static const char building[] =
	    "{'ok':true,'bisection':{'id':4,'state':'running',"
	    "'phase':'reproducing','samples':0,'est_samples_left':6,"
	    "'elapsed_seconds':%d,'in_flight':[{'run':1,'commit':"
	    "'c0ffee00c0ffee00c0ffee00c0ffee00c0ffee00','host':'h0',"
	    "'phase':'%s','phase_seconds':%d}]}}";
	char r1[512], r2[512], r3[512];
	int i;

	snprintf(r1, sizeof(r1), building, 3, "build", 3);
	snprintf(r2, sizeof(r2), building, 5, "build", 5);
	snprintf(r3, sizeof(r3), building, 7, "run", 1);
	start(FAKESRV_LOCKSTEP);
	reply("status", r1);
	reply("status", r2);
	reply("status", r3);
	reply("status", done_culprit);
	for (i = 0; i < 3; i++)
		event("{'event':'sample','time_ms':1764000000000,"
		    "'bisection':4,'value':1.0}");
	serve();
	CTL("status", "4", "--follow");
	cr_expect_eq(o.status, 0, "stderr: %s", o.err);
	cr_expect_eq(count_lines(o.out), 3, "build, run, done:\n%s", o.out);
	expect_out("#4 reproducing: 0/6 steps, building on h0 for 3s, 3s "
	    "elapsed\n#4 reproducing: 0/6 steps, running on h0 for 1s, 7s "
	    "elapsed\n#4 done:");
}

CTEST(follow_failed_exits_1)
{
	script_follow("{'ok':true,'bisection':{'id':4,'state':'failed',"
	    "'phase':'bisecting','samples':12,"
	    "'message':'no test host left in group lab'}}");
	CTL("status", "4", "--follow");
	cr_expect_eq(o.status, 1);
	expect_out("#4 failed: no test host left in group lab\n");
}

CTEST(follow_cancelled_exits_1)
{
	script_follow("{'ok':true,'bisection':{'id':4,'state':'cancelled',"
	    "'phase':'bisecting','samples':12}}");
	CTL("status", "4", "--follow");
	cr_expect_eq(o.status, 1);
	expect_out("#4 cancelled after 12 samples\n");
}

CTEST(follow_on_terminal_rewrites_line)
{
	script_follow(done_culprit);
	CTL_TTY("status", "4", "--follow");
	cr_expect_eq(o.status, 0, "stderr: %s", o.err);
	expect_out("\r\033[K#4 bisecting: 10/21 steps");
	expect_out("\r\033[K#4 done: culprit c0ffee00c0ff");
	cr_expect_eq(count_lines(o.out), 1, "one line, rewritten:\n%s", o.out);
}

CTEST(follow_json_prints_changed_replies)
{
	script_follow(done_culprit);
	CTL("--json", "status", "4", "--follow");
	cr_expect_eq(o.status, 0, "stderr: %s", o.err);
	cr_expect_eq(count_lines(o.out), 3, "the three distinct replies:\n%s",
	    o.out);
	expect_out("\"state\":\"done\"");
}

/*
 * The only event is about another bisection, so the second status request
 * comes from the refresh timer (this test takes STREAM_REFRESH_MS); a
 * timer that never fired would hang it until Criterion's timeout.
 */
CTEST(follow_refreshes_on_the_timer)
{
	start(FAKESRV_LOCKSTEP);
	reply("status", "{'ok':true,'bisection':{'id':4,'state':'running',"
	    "'phase':'reproducing','samples':2,'est_samples_left':4}}");
	reply("status", done_culprit);
	event("{'event':'sample','time_ms':1764000000000,'bisection':9,"
	    "'value':1.0}");
	serve();
	CTL("status", "4", "--follow");
	cr_expect_eq(o.status, 0, "stderr: %s", o.err);
	cr_expect_str_eq(o.out, "#4 reproducing: 2/6 steps\n"
	    "#4 done: culprit c0ffee00c0ff \"mm: batch\" (confidence 99.5%) "
	    "after 14 samples\n");
	cr_expect_eq(fakesrv_nrequests(&fs), 3, "two status and one watch");
}

CTEST(follow_already_done_needs_no_watch)
{
	start(FAKESRV_AT_ONCE);
	reply("status", done_culprit);
	serve();
	CTL("status", "4", "--follow");
	cr_expect_eq(o.status, 0);
	expect_out("#4 done: culprit");
	cr_expect_eq(fakesrv_nrequests(&fs), 1);
}

/* The progress line for each state and phase, without a process. */
Test(ctlclient, progress_lines)
{
	static const struct {
		const char	*bisection;
		const char	*line;
	} cases[] = {
		{ "{'id':1,'state':'queued','phase':'loading'}", "#1 queued" },
		{ "{'id':1,'state':'running','phase':'loading'}",
		    "#1 loading" },
		{ "{'id':1,'state':'running','phase':'reproducing',"
		    "'samples':6,'est_samples_left':null}",
		    "#1 reproducing: 6/? steps" },
		{ "{'id':2,'state':'running','phase':'bisecting','samples':3,"
		    "'candidates_left':5,'est_samples_left':0.2,'top':[]}",
		    "#2 bisecting: 3/4 steps, 5 candidates left" },
		{ "{'id':2,'state':'running','phase':'reproducing','samples':0,"
		    "'est_samples_left':11,'in_flight':[],'trouble':'no usable "
		    "test host in group lab (0 of 1): h1 is down'}",
		    "#2 reproducing: 0/11 steps, waiting: no usable test host "
		    "in group lab (0 of 1): h1 is down" },
		{ "{'id':3,'state':'done','verdict':'not-reproduced',"
		    "'samples':12}", "#3 done: not reproduced after 12 samples" },
		{ "{'id':3,'state':'done','verdict':'inconclusive',"
		    "'samples':80}", "#3 done: inconclusive after 80 samples" },
		{ "{'id':3,'state':'done','verdict':'culprit','samples':9,"
		    "'culprit':'abcdef0123456789'}",
		    "#3 done: culprit abcdef012345 after 9 samples" },
		{ "{'id':5,'state':'failed'}", "#5 failed" },
	};
	char buf[256], *s, *p;
	json_t *b;
	size_t i;

	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		s = xstrdup(cases[i].bisection);
		for (p = s; *p != '\0'; p++)
			*p = *p == '\'' ? '"' : *p;
		b = json_loads(s, 0, NULL);
		free(s);
		cr_assert_not_null(b, "case %zu", i);
		print_progress(b, NULL, buf, sizeof(buf));
		cr_expect_str_eq(buf, cases[i].line, "case %zu", i);
		json_decref(b);
	}
	b = json_loads("{\"id\":1,\"state\":\"running\",\"phase\":\"bisecting\","
	    "\"samples\":1,\"candidates_left\":2,\"top\":[{\"commit\":"
	    "\"abcdef0123\",\"probability\":0.5}]}", 0, NULL);
	print_progress(b, NULL, buf, 12);
	cr_expect_eq(strlen(buf), 11, "cut to the buffer");
	json_decref(b);
}

/*
 * Issue 38: the exit status of --follow tells the endings apart, 0 a
 * culprit, 3 not reproduced, 4 inconclusive, 1 failed or cancelled.
 */
CTEST(follow_exit_status_tells_the_verdict)
{
	static const struct {
		const char	*bisection;
		int		 status;
	} cases[] = {
		{ "{'id':4,'state':'done','verdict':'not-reproduced',"
		    "'samples':12}", 3 },
		{ "{'id':4,'state':'done','verdict':'inconclusive',"
		    "'samples':80}", 4 },
		{ "{'id':4,'state':'failed'}", 1 },
		{ "{'id':4,'state':'cancelled'}", 1 },
	};
	char text[256];
	size_t i;

	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		start(FAKESRV_AT_ONCE);
		snprintf(text, sizeof(text), "{'ok':true,'bisection':%s}",
		    cases[i].bisection);
		reply("status", text);
		serve();
		CTL("status", "4", "--follow");
		cr_expect_eq(o.status, cases[i].status, "%s: %d, stderr: %s",
		    cases[i].bisection, o.status, o.err);
		fakesrv_release(&fs);
	}
}

/* Issue 38: bisect --wait prints the new id, then follows it to its end. */
CTEST(bisect_wait_follows_with_the_same_exit_status)
{
	json_t *r;

	start(FAKESRV_AT_ONCE);
	reply("bisect", "{'ok':true,'bisection':4,'existing':false}");
	reply("status", "{'ok':true,'bisection':{'id':4,'state':'done',"
	    "'verdict':'not-reproduced','samples':12}}");
	serve();
	CTL("bisect", "--good", "v1", "--bad", "v2", "--benchmark", "b",
	    "--metric", "m", "--wait");
	cr_expect_eq(o.status, 3, "stderr: %s", o.err);
	expect_out("#4 done: not reproduced");
	r = sent("bisect");
	cr_expect_null(json_object_get(r, "wait"), "--wait is bisectctl's own");
	json_decref(r);
	r = sent("status");
	cr_expect_eq(json_integer_value(json_object_get(r, "bisection")), 4);
	json_decref(r);
}

/*
 * Issue 38: an estimate that wobbles by a sample or two (no "0/11, 1/12,
 * 2/11") or swings back and forth (no "4/271, 7/194, 8/275") leaves the
 * steps' denominator alone; a total past four thirds of it, one under
 * half of it, or samples done that reach it, move it.
 */
CTEST(follow_keeps_the_denominator_stable)
{
	static const char fmt[] =
	    "{'ok':true,'bisection':{'id':4,'state':'running',"
	    "'phase':'%s','samples':%d,'est_samples_left':%s}}";
	static const struct {
		const char	*phase;
		int		 done;
		const char	*left;
	} steps[] = { { "reproducing", 0, "11" }, { "reproducing", 1, "11" },
	    { "reproducing", 2, "8.5" }, { "bisecting", 4, "267" },
	    { "bisecting", 7, "187" }, { "bisecting", 8, "267" },
	    { "bisecting", 9, "160" }, { "bisecting", 10, "390" },
	    { "bisecting", 12, "150" }, { "verifying", 14, "2" },
	    { "verifying", 16, "0" } };
	static const char want[] =
	    "#4 reproducing: 0/11 steps\n#4 reproducing: 1/11 steps\n"
	    "#4 reproducing: 2/11 steps\n"
	    "#4 bisecting: 4/271 steps, 0 candidates left\n"
	    "#4 bisecting: 7/271 steps, 0 candidates left\n"
	    "#4 bisecting: 8/271 steps, 0 candidates left\n"
	    "#4 bisecting: 9/271 steps, 0 candidates left\n"
	    "#4 bisecting: 10/400 steps, 0 candidates left\n"
	    "#4 bisecting: 12/162 steps, 0 candidates left\n"
	    "#4 verifying: 14/16 steps\n#4 verifying: 16/16 steps\n"
	    "#4 cancelled after 16 samples\n";
	char r[256];
	size_t i;

	start(FAKESRV_LOCKSTEP);
	for (i = 0; i < sizeof(steps) / sizeof(steps[0]); i++) {
		snprintf(r, sizeof(r), fmt, steps[i].phase, steps[i].done,
		    steps[i].left);
		reply("status", r);
	}
	reply("status", "{'ok':true,'bisection':{'id':4,"
	    "'state':'cancelled','samples':16}}");
	for (i = 0; i < sizeof(steps) / sizeof(steps[0]); i++)
		event("{'event':'sample','time_ms':1764000000000,"
		    "'bisection':4,'value':1.0}");
	serve();
	CTL("status", "4", "--follow");
	cr_expect_eq(o.status, 1, "stderr: %s", o.err);
	cr_expect_str_eq(o.out, want);
}

/* Issue 38: on a terminal, the final line is wrapped, never cut. */
CTEST(follow_on_a_terminal_keeps_the_last_line_whole)
{
	char msg[301], r[512];

	memset(msg, 'x', sizeof(msg) - 1);
	msg[sizeof(msg) - 1] = '\0';
	memcpy(msg + sizeof(msg) - 5, "tail", 4);
	snprintf(r, sizeof(r), "{'ok':true,'bisection':{'id':4,"
	    "'state':'failed','message':'%s'}}", msg);
	start(FAKESRV_LOCKSTEP);
	reply("status", r);
	serve();
	CTL_TTY("status", "4", "--follow");
	cr_expect_eq(o.status, 1, "stderr: %s", o.err);
	expect_out(msg);
}
