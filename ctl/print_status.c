/* SPDX-License-Identifier: MIT */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ctl/print.h"
#include "ctl/print_int.h"

/* Label column of the multi-line status. */
#define LABEL_WIDTH	12

/* One "label  value" line of the status; the label column is aligned. */
static void __attribute__((format(printf, 3, 4)))
field(FILE *out, const char *label, const char *fmt, ...)
{
	va_list ap;

	/* A label as long as the column still gets its space. */
	fprintf(out, "%-*s ", LABEL_WIDTH - 1, label);
	va_start(ap, fmt);
	vfprintf(out, fmt, ap);
	va_end(ap);
	fputc('\n', out);
}

/* Nonzero run counts in the protocol's order; "none" when all are zero. */
static void
status_runs(FILE *out, const json_t *runs)
{
	static const char *const keys[] = {
		"done", "queued", "running", "failed-infra", "skipped",
		"cancelled"
	};
	char buf[256];
	size_t i, n = 0;

	buf[0] = '\0';
	for (i = 0; i < sizeof(keys) / sizeof(keys[0]); i++)
		if (num(runs, keys[i]) != 0 && n < sizeof(buf))
			n += (size_t)snprintf(buf + n, sizeof(buf) - n,
			    "%s%lld %s", n ? ", " : "", num(runs, keys[i]),
			    keys[i]);
	field(out, "runs", "%s", n ? buf : "none");
}

/* What a step's phase is doing, in the words of a progress line. */
static const struct {
	const char	*phase;
	const char	*doing;
} phase_words[] = {
	{ "build", "building" }, { "relay", "copying" },
	{ "install", "installing" }, { "reboot", "rebooting" },
	{ "boot", "booting" }, { "run", "running" },
	{ "collect", "collecting" },
};

/*
 * "building on h0 for 2m10s" for a probe whose step works, "" for one
 * that waits for a host.
 */
static void
probe_doing(const json_t *v, char *buf, size_t size, int timed)
{
	const char *phase = json_string_value(json_object_get(v, "phase"));
	const char *host = json_string_value(json_object_get(v, "host"));
	const char *doing = phase;
	char dur[32];
	size_t i;

	buf[0] = '\0';
	if (phase == NULL || host == NULL)
		return;
	for (i = 0; i < sizeof(phase_words) / sizeof(phase_words[0]); i++)
		if (strcmp(phase_words[i].phase, phase) == 0)
			doing = phase_words[i].doing;
	snprintf(buf, size, "%s on %s%s%s", doing, host, timed ? " for " : "",
	    timed ? durstr((double)num(v, "phase_seconds"), dur,
	    sizeof(dur)) : "");
}

/* Probes in flight and the top candidates, one per line under a label. */
static void
status_lists(FILE *out, const json_t *b)
{
	const json_t *v;
	const char *host;
	char sha[PRINT_SHORT + 1], doing[128];
	size_t i;

	json_array_foreach(json_object_get(b, "in_flight"), i, v) {
		host = json_string_value(json_object_get(v, "host"));
		probe_doing(v, doing, sizeof(doing), 1);
		if (doing[0] != '\0')
			field(out, i == 0 ? "in flight" : "", "run %lld: %s %s",
			    num(v, "run"), shortsha(str(v, "commit"),
			    PRINT_SHORT, sha, sizeof(sha)), doing);
		else
			field(out, i == 0 ? "in flight" : "", "run %lld: %s %s%s",
			    num(v, "run"), shortsha(str(v, "commit"),
			    PRINT_SHORT, sha, sizeof(sha)), host != NULL ?
			    "on " : "", host != NULL ? host :
			    "(waiting for a host)");
	}
	host = json_string_value(json_object_get(b, "trouble"));
	if (host != NULL)
		field(out, "waiting", "%s", host);
	json_array_foreach(json_object_get(b, "top"), i, v)
		field(out, i == 0 ? "top" : "", "%s %5.1f%%  %s",
		    shortsha(str(v, "commit"), PRINT_SHORT, sha,
		    sizeof(sha)), 100.0 * json_number_value(
		    json_object_get(v, "probability")), str(v, "subject"));
}

/* What is left to do, when the daemon could estimate it. */
static void
status_estimate(FILE *out, const json_t *b)
{
	const json_t *es = json_object_get(b, "est_samples_left");
	const json_t *et = json_object_get(b, "est_seconds_left");
	const char *state = str(b, "state");
	char dur[32];

	/* An ended bisection has nothing left to estimate. */
	if (!json_is_number(es) || strcmp(state, "done") == 0 ||
	    strcmp(state, "failed") == 0 || strcmp(state, "cancelled") == 0)
		return;
	if (json_is_number(et))
		field(out, "estimate", "%.1f more samples, about %s",
		    json_number_value(es), durstr(json_number_value(et), dur,
		    sizeof(dur)));
	else
		field(out, "estimate", "%.1f more samples, time unknown",
		    json_number_value(es));
}

/* The checks after the verdict: their phase, runs and what they found. */
static void
status_verification(FILE *out, const json_t *v)
{
	if (!json_is_object(v))
		return;
	field(out, "verification", "%s, %lld of %lld revert runs%s%s%s",
	    str(v, "phase"), num(v, "runs"), num(v, "want"),
	    json_is_string(json_object_get(v, "result")) ? ", revert " : "",
	    json_is_string(json_object_get(v, "result")) ? str(v, "result") :
	    "", json_is_true(json_object_get(v, "noop")) ? ", no-op build" :
	    "");
}

/* The shas of a, 12 characters each, joined by ", ", into buf. */
static void
status_shas(const json_t *a, char *buf, size_t len)
{
	const json_t *v;
	size_t i, at = 0;

	buf[0] = '\0';
	json_array_foreach(a, i, v) {
		if (at >= len)
			break;
		at += (size_t)snprintf(buf + at, len - at, "%s%.12s",
		    i > 0 ? ", " : "", json_is_string(v) ?
		    json_string_value(v) : "?");
	}
}

/* The fix-ups given and found, and how many commits they served. */
static void
status_fixups(FILE *out, const json_t *f)
{
	char given[256], found[256];
	size_t measured, skipped;

	if (!json_is_object(f))
		return;
	measured = json_object_size(json_object_get(f, "measured"));
	skipped = json_object_size(json_object_get(f, "skipped"));
	if (json_array_size(json_object_get(f, "given")) == 0 &&
	    json_array_size(json_object_get(f, "found")) == 0 &&
	    measured == 0 && skipped == 0)
		return;
	status_shas(json_object_get(f, "given"), given, sizeof(given));
	status_shas(json_object_get(f, "found"), found, sizeof(found));
	field(out, "fix-ups", "given %s, found %s; %zu commits measured with "
	    "them, %zu skipped", *given ? given : "none", *found ? found :
	    "none", measured, skipped);
}

/*
 * Whether the change is confirmed, and the evidence for it over all
 * samples when the engine has a factor: the shared mode bisects before
 * the change is confirmed, and the reader should see which it is.
 */
static void
status_change(FILE *out, const json_t *b)
{
	const json_t *c = json_object_get(b, "change_confirmed");
	const json_t *bf = json_object_get(b, "change_log10_bf");
	const char *what;

	if (!json_is_boolean(c))
		return;
	if (json_is_true(c))
		what = "confirmed";
	else if (strcmp(str(b, "state"), "running") == 0 ||
	    strcmp(str(b, "state"), "queued") == 0)
		what = "not confirmed yet";
	else
		what = "not confirmed";
	if (json_is_number(bf))
		field(out, "change", "%s (log10 Bayes factor %.1f)", what,
		    json_number_value(bf));
	else
		field(out, "change", "%s", what);
}

/* One bisection in full: every member of the status reply, labelled. */
static void
status_one(FILE *out, const json_t *b)
{
	const json_t *v, *conf;
	const char *msg;
	char when[32], when2[32];
	size_t i;

	field(out, "bisection", "#%lld %s, %s", num(b, "id"),
	    str(b, "state"), str(b, "phase"));
	if (json_is_integer(json_object_get(b, "parent")))
		field(out, "parent", "#%lld, whose verification bisects this "
		    "sub-range", num(b, "parent"));
	field(out, "benchmark", "%s, metric %s, group %s", str(b, "benchmark"),
	    str(b, "metric"), str(b, "group"));
	field(out, "bad", "%s", str(b, "bad"));
	json_array_foreach(json_object_get(b, "good"), i, v)
		field(out, i == 0 ? "good" : "", "%s", json_string_value(v) ?
		    json_string_value(v) : "-");
	field(out, "verdict", "%s", str(b, "verdict"));
	status_change(out, b);
	if (json_is_object(json_object_get(b, "origin"))) {
		const json_t *o = json_object_get(b, "origin");

		field(out, "sweep", "%s, %s to %s, %lld runs reused",
		    str(o, "sweep"), str(o, "prev_ref"), str(o, "ref"),
		    num(b, "reused_runs"));
	}
	if (json_is_string(json_object_get(b, "culprit"))) {
		conf = json_object_get(b, "confidence");
		if (json_is_number(conf))
			field(out, "culprit", "%s (confidence %.4g%%)",
			    str(b, "culprit"), 100.0 * json_number_value(conf));
		else
			field(out, "culprit", "%s", str(b, "culprit"));
	}
	field(out, "candidates", "%lld left of %lld", num(b, "candidates_left"),
	    num(b, "candidates"));
	if (json_is_number(json_object_get(b, "drift")))
		field(out, "samples", "%lld (%lld misfits; test machine drift "
		    "of %.1f sd, adjusted for)", num(b, "samples"),
		    num(b, "misfits"),
		    json_number_value(json_object_get(b, "drift")));
	else
		field(out, "samples", "%lld (%lld misfits)", num(b, "samples"),
		    num(b, "misfits"));
	status_runs(out, json_object_get(b, "runs"));
	status_verification(out, json_object_get(b, "verification"));
	status_fixups(out, json_object_get(b, "fixups"));
	status_lists(out, b);
	status_estimate(out, b);
	msg = json_string_value(json_object_get(b, "message"));
	if (msg != NULL && *msg != '\0')
		field(out, "message", "%s", msg);
	field(out, "created", "%s, updated %s",
	    timestr(json_object_get(b, "created_ms"), TIME_SECOND,
	    when, sizeof(when)), timestr(json_object_get(b, "updated_ms"),
	    TIME_SECOND, when2, sizeof(when2)));
}

/* Without an id the daemon answers with the list, which prints as one. */
void
print_status(FILE *out, const json_t *r, const json_t *req,
    unsigned flags)
{
	if (json_is_array(json_object_get(r, "bisections")))
		print_list(out, r, req, flags);
	else
		status_one(out, json_object_get(r, "bisection"));
}

/* The culprit with its subject when the top list names it. */
static void
progress_culprit(const json_t *b, char *buf, size_t size)
{
	const char *culprit = str(b, "culprit"), *subject = NULL;
	const json_t *v, *conf = json_object_get(b, "confidence");
	char sha[PRINT_SHORT + 1];
	size_t i, n;

	json_array_foreach(json_object_get(b, "top"), i, v)
		if (strcmp(str(v, "commit"), culprit) == 0)
			subject = json_string_value(json_object_get(v,
			    "subject"));
	n = (size_t)snprintf(buf, size, "culprit %s", shortsha(culprit,
	    PRINT_SHORT, sha, sizeof(sha)));
	if (subject != NULL && n < size)
		n += (size_t)snprintf(buf + n, size - n, " \"%s\"", subject);
	if (json_is_number(conf) && n < size)
		snprintf(buf + n, size - n, " (confidence %.4g%%)",
		    100.0 * json_number_value(conf));
}

/* The last line of --follow: how the bisection ended. */
static void
progress_end(const json_t *b, const char *state, char *buf, size_t size)
{
	const char *verdict = str(b, "verdict"), *msg;
	char what[256];

	if (strcmp(state, "failed") == 0) {
		msg = json_string_value(json_object_get(b, "message"));
		snprintf(buf, size, "#%lld failed%s%s", num(b, "id"),
		    msg != NULL ? ": " : "", msg != NULL ? msg : "");
		return;
	}
	if (strcmp(state, "cancelled") == 0) {
		snprintf(buf, size, "#%lld cancelled after %lld samples",
		    num(b, "id"), num(b, "samples"));
		return;
	}
	if (strcmp(verdict, "culprit") == 0)
		progress_culprit(b, what, sizeof(what));
	else if (strcmp(verdict, "not-reproduced") == 0)
		snprintf(what, sizeof(what), "not reproduced");
	else
		snprintf(what, sizeof(what), "%s", verdict);
	snprintf(buf, size, "#%lld done: %s after %lld samples", num(b, "id"),
	    what, num(b, "samples"));
}

/*
 * ", building on h0 for 2m10s, 5m elapsed": what the first probe that
 * works is doing, why the bisection waits if the daemon says it does
 * (no usable host, a refused database write), and how long it has taken
 * so far.
 */
static void
progress_work(const json_t *b, char *buf, size_t size, size_t *n, int timed)
{
	const json_t *v;
	const char *trouble = json_string_value(json_object_get(b, "trouble"));
	char doing[128], dur[32];
	size_t i;

	json_array_foreach(json_object_get(b, "in_flight"), i, v) {
		probe_doing(v, doing, sizeof(doing), timed);
		if (doing[0] != '\0' && *n < size) {
			*n += (size_t)snprintf(buf + *n, size - *n, ", %s",
			    doing);
			break;
		}
	}
	if (trouble != NULL && *n < size)
		*n += (size_t)snprintf(buf + *n, size - *n, ", waiting: %s",
		    trouble);
	if (timed && json_is_integer(json_object_get(b, "elapsed_seconds")) &&
	    *n < size)
		*n += (size_t)snprintf(buf + *n, size - *n, ", %s elapsed",
		    durstr((double)num(b, "elapsed_seconds"), dur,
		    sizeof(dur)));
}

/*
 * The steps' denominator: done plus the estimate left, rounded up.  With
 * a memo (status --follow) it moves only for news, with hysteresis: up
 * when the total passes four thirds of it or the samples done reach it,
 * down when the total falls under half of it.  An estimate that wobbles
 * ("0/11, 1/12, 2/11") or swings back and forth ("4/271, 7/194, 8/275")
 * leaves the line alone; only a swing of more than twice in each
 * direction could move it back and forth.
 */
static long long
progress_total(long long done, double left, long long *memo)
{
	long long t = done + (long long)ceil(left);

	if (memo == NULL)
		return t;
	if (*memo <= done || 3 * t > 4 * *memo || 2 * t < *memo)
		*memo = t;
	return *memo;
}

/*
 * Steps are samples: done so far of the total progress_total gives ("?"
 * when the daemon has no estimate yet).  timed adds how long the work in
 * flight and the bisection have taken.
 */
static void
progress_text(const json_t *b, long long *memo, char *buf, size_t size,
    int timed)
{
	const char *state = str(b, "state"), *phase = str(b, "phase");
	const json_t *es = json_object_get(b, "est_samples_left");
	const json_t *lead = json_array_get(json_object_get(b, "top"), 0);
	char total[32], sha[PRINT_SHORT + 1];
	long long done = num(b, "samples");
	size_t n;

	if (strcmp(state, "done") == 0 || strcmp(state, "failed") == 0 ||
	    strcmp(state, "cancelled") == 0) {
		progress_end(b, state, buf, size);
		return;
	}
	if (strcmp(state, "running") != 0 || strcmp(phase, "loading") == 0) {
		snprintf(buf, size, "#%lld %s", num(b, "id"),
		    strcmp(state, "running") != 0 ? state : phase);
		return;
	}
	if (json_is_number(es))
		snprintf(total, sizeof(total), "%lld", progress_total(done,
		    json_number_value(es), memo));
	else
		snprintf(total, sizeof(total), "?");
	n = (size_t)snprintf(buf, size, "#%lld %s: %lld/%s steps",
	    num(b, "id"), phase, done, total);
	if (strcmp(phase, "bisecting") == 0 && n < size)
		n += (size_t)snprintf(buf + n, size - n,
		    ", %lld candidates left", num(b, "candidates_left"));
	if (strcmp(phase, "bisecting") == 0 && json_is_object(lead) &&
	    n < size)
		n += (size_t)snprintf(buf + n, size - n, ", leading %s "
		    "(%.1f%%)", shortsha(str(lead, "commit"),
		    PRINT_SHORT_LINE, sha, sizeof(sha)), 100.0 *
		    json_number_value(json_object_get(lead, "probability")));
	progress_work(b, buf, size, &n, timed);
}

/* The progress line, with the durations. */
void
print_progress(const json_t *b, long long *total, char *buf, size_t size)
{
	progress_text(b, total, buf, size, 1);
}

/* The same without durations: what changed when this changed. */
void
print_progress_key(const json_t *b, long long *total, char *buf,
    size_t size)
{
	progress_text(b, total, buf, size, 0);
}

/* Readable names of the events; others print under their own name. */
static const struct {
	const char	*event;
	const char	*label;
	int		 about_host;	/* the host is the subject */
} event_labels[] = {
	{ "probe-started",	"probe started",	0 },
	{ "probe-finished",	"probe finished",	0 },
	{ "sample",		"sample",		0 },
	{ "skip",		"skip",			0 },
	{ "verifying",		"verifying",		0 },
	{ "verdict",		"verdict",		0 },
	{ "host",		"host",			1 },
	{ "done",		"done",			0 },
	{ "bisection",		"bisection",		0 },
};

/* Appends ", " and text to the detail part of an event line. */
static void __attribute__((format(printf, 4, 5)))
detail(char *buf, size_t size, size_t *n, const char *fmt, ...)
{
	va_list ap;

	if (*n >= size)
		return;
	if (*n > 0)
		*n += (size_t)snprintf(buf + *n, size - *n, ", ");
	if (*n >= size)
		return;
	va_start(ap, fmt);
	*n += (size_t)vsnprintf(buf + *n, size - *n, fmt, ap);
	va_end(ap);
}

/* How an event member shows in the details, in this order. */
enum event_kind { EV_SHA, EV_STRING, EV_INT, EV_NUMBER, EV_PERCENT };
static const struct {
	const char	*key;
	const char	*prefix;
	enum event_kind	 kind;
} event_fields[] = {
	{ "commit",	"",		EV_SHA },
	{ "host",	"on ",		EV_STRING },
	{ "run",	"run ",		EV_INT },
	{ "metric",	"metric ",	EV_STRING },
	{ "value",	"value ",	EV_NUMBER },
	{ "outcome",	"outcome ",	EV_STRING },
	{ "state",	"state ",	EV_STRING },
	{ "verdict",	"verdict ",	EV_STRING },
	{ "culprit",	"culprit ",	EV_SHA },
	{ "confidence",	"confidence ",	EV_PERCENT },
	{ "candidates",	"candidates ",	EV_INT },
	{ "message",	"",		EV_STRING },
};

/* One member in the details; absent, null or mistyped members are left out. */
static void
event_field(char *d, size_t size, size_t *n, size_t i, const json_t *v)
{
	char val[64];
	const char *text = NULL;

	switch (event_fields[i].kind) {
	case EV_SHA:
		if (json_is_string(v))
			text = shortsha(json_string_value(v), PRINT_SHORT,
			    val, sizeof(val));
		break;
	case EV_STRING:
		text = json_string_value(v);
		break;
	case EV_INT:
		if (json_is_integer(v))
			snprintf(val, sizeof(val), "%lld",
			    (long long)json_integer_value(v));
		text = json_is_integer(v) ? val : NULL;
		break;
	case EV_NUMBER:
	case EV_PERCENT:
		if (json_is_number(v))
			snprintf(val, sizeof(val), event_fields[i].kind ==
			    EV_NUMBER ? "%.6g" : "%.4g%%",
			    json_number_value(v) *
			    (event_fields[i].kind == EV_NUMBER ? 1.0 : 100.0));
		text = json_is_number(v) ? val : NULL;
		break;
	}
	if (text != NULL)
		detail(d, size, n, "%s%s", event_fields[i].prefix, text);
}

/*
 * "HH:MM:SS #ID label: commit, on host, run R, value V, ...", each part
 * only when the event has it; a host event names its host first.
 */
void
print_event(FILE *out, const json_t *ev)
{
	const char *name = str(ev, "event"), *label = name;
	const char *host = json_string_value(json_object_get(ev, "host"));
	char when[32], d[1024];
	size_t i, n = 0;
	int about_host = 0;

	for (i = 0; i < sizeof(event_labels) / sizeof(event_labels[0]); i++)
		if (strcmp(event_labels[i].event, name) == 0) {
			label = event_labels[i].label;
			about_host = event_labels[i].about_host;
		}
	d[0] = '\0';
	for (i = 0; i < sizeof(event_fields) / sizeof(event_fields[0]); i++)
		if (!(about_host && strcmp(event_fields[i].key, "host") == 0))
			event_field(d, sizeof(d), &n, i,
			    json_object_get(ev, event_fields[i].key));
	fprintf(out, "%s ", timestr(json_object_get(ev, "time_ms"),
	    TIME_CLOCK, when, sizeof(when)));
	if (json_is_integer(json_object_get(ev, "bisection")))
		fprintf(out, "#%lld ", num(ev, "bisection"));
	fprintf(out, "%s%s%s%s%s\n", label, about_host && host ? " " : "",
	    about_host && host ? host : "", d[0] ? ": " : "", d);
}
