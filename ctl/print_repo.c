/* SPDX-License-Identifier: MIT */
/*
 * The mirror's printers: `repo` (url, fetches, watched refs, progress)
 * and `fetch`; and the sweeps that follow its refs, `sweeps` and `sweep`.
 */
#include <string.h>

#include "ctl/print.h"
#include "ctl/print_int.h"

/* Objects and bytes so far, as git prints them. */
static void
print_repo_progress(FILE *out, const json_t *p)
{
	fprintf(out, "progress:   %lld/%lld objects, %.1f MiB, indexed "
	    "%lld/%lld, deltas %lld/%lld\n", num(p, "received_objects"),
	    num(p, "total_objects"), num(p, "received_bytes") / 1048576.0,
	    num(p, "indexed_objects"), num(p, "total_objects"),
	    num(p, "indexed_deltas"), num(p, "total_deltas"));
}

/* The last fetch in one line: when, and its result or error. */
static void
print_repo_last(FILE *out, const json_t *last)
{
	char buf[64];

	if (!json_is_object(last)) {
		fprintf(out, "last fetch: never\n");
		return;
	}
	fprintf(out, "last fetch: %s, ", timestr(json_object_get(last,
	    "finished_ms"), TIME_SECOND, buf, sizeof(buf)));
	if (json_is_true(json_object_get(last, "ok")))
		fprintf(out, "ok, %lld ref change(s)\n", num(last, "changes"));
	else
		fprintf(out, "failed: %s\n", str(last, "error"));
}

void
print_repo(FILE *out, const json_t *r, const json_t *req, unsigned flags)
{
	const json_t *repo = json_object_get(r, "repo"), *v;
	char buf[64];
	size_t i;

	(void)req;
	(void)flags;
	fprintf(out, "url:        %s\n", json_is_string(json_object_get(repo,
	    "url")) ? str(repo, "url") : "none (never fetches)");
	fprintf(out, "path:       %s\n", str(repo, "path"));
	print_repo_last(out, json_object_get(repo, "last_fetch"));
	if (num(repo, "failures") > 0)
		fprintf(out, "failures:   %lld in a row\n",
		    num(repo, "failures"));
	fprintf(out, "next fetch: %s\n", json_is_true(json_object_get(repo,
	    "fetching")) ? "running now" : timestr(json_object_get(repo,
	    "next_fetch_ms"), TIME_SECOND, buf, sizeof(buf)));
	if ((v = json_object_get(repo, "progress")) != NULL)
		print_repo_progress(out, v);
	json_array_foreach(json_object_get(repo, "watch_refs"), i, v)
		fprintf(out, "watching:   %s (%lld ref%s)%s\n", str(v, "glob"),
		    num(v, "matches"), num(v, "matches") == 1 ? "" : "s",
		    num(v, "matches") == 0 ? ": matches nothing" : "");
	json_array_foreach(json_object_get(repo, "refs"), i, v)
		fprintf(out, "  %s %s\n", str(v, "id"), str(v, "ref"));
	json_array_foreach(json_object_get(r, "events"), i, v)
		fprintf(out, "event %lld: %s %s %s -> %s\n", num(v, "seq"),
		    str(v, "ref"), str(v, "change"), str(v, "old"),
		    str(v, "new"));
}

void
print_fetch(FILE *out, const json_t *r, const json_t *req, unsigned flags)
{
	if (json_object_get(r, "repo") != NULL)
		print_repo(out, r, req, flags);
	else
		fprintf(out, "fetch started\n");
}

/* A ref as people say it: next-20261201 rather than refs/tags/... */
static const char *
print_short_ref(const char *ref)
{
	return strncmp(ref, "refs/tags/", 10) == 0 ? ref + 10 : ref;
}

/* One line a sweep: name, last ref, state, next run, changes found. */
void
print_sweeps(FILE *out, const json_t *r, const json_t *req, unsigned flags)
{
	const json_t *v, *last;
	size_t i;

	(void)req;
	(void)flags;
	fprintf(out, "%-16s %-24s %-9s %-26s %s\n", "SWEEP", "LAST REF",
	    "STATE", "NEXT", "CHANGES");
	json_array_foreach(json_object_get(r, "sweeps"), i, v) {
		last = json_object_get(v, "last");
		fprintf(out, "%-16s %-24s %-9s %-26s %lld\n", str(v, "name"),
		    json_is_object(last) ? print_short_ref(str(last, "ref")) :
		    "-", str(v, "state"), str(v, "next"), num(v, "changes"));
	}
}

/* A change as a signed percentage, or "-" when it cannot be told. */
static void
print_sweep_pct(FILE *out, const json_t *v)
{
	if (json_is_number(v))
		fprintf(out, " %+7.1f%%", 100 * json_number_value(v));
	else
		fprintf(out, " %8s", "-");
}

/* Per watched metric: median, spread, change against the previous ref,
 * the level shift at its change point, and the verdict. */
static void
print_sweep_result(FILE *out, const json_t *res)
{
	const json_t *m;
	size_t i;

	json_array_foreach(json_object_get(res, "metrics"), i, m) {
		fprintf(out, "    %-24.24s", str(m, "name"));
		if (json_is_number(json_object_get(m, "median")))
			fprintf(out, " %12g", json_number_value(
			    json_object_get(m, "median")));
		else
			fprintf(out, " %12s", "-");
		if (json_is_number(json_object_get(m, "stddev_pct")))
			fprintf(out, " +-%4.1f%%", json_number_value(
			    json_object_get(m, "stddev_pct")));
		else
			fprintf(out, " %7s", "");
		print_sweep_pct(out, json_object_get(m, "change_prev"));
		print_sweep_pct(out, json_object_get(m, "change_base"));
		fprintf(out, "  %s\n", strcmp(str(m, "verdict"), "changed") ==
		    0 ? "CHANGED" : str(m, "verdict"));
	}
}

/* Why a ref was not compared: its failed step, or the newer ref. */
static void
print_sweep_why(FILE *out, const json_t *res)
{
	if (json_is_string(json_object_get(res, "failed")))
		fprintf(out, "    %s step failed: %s\n", str(res, "failed"),
		    str(res, "message"));
	else if (json_is_string(json_object_get(res, "skipped")))
		fprintf(out, "    skipped: %s is newer\n",
		    print_short_ref(str(res, "by")));
}

/*
 * Under the first ref after a change point: which ref's judgement found
 * it and how many refs late, the table's mark of a change found late.
 */
static void
print_sweep_point(FILE *out, const json_t *refs, const json_t *ref)
{
	const json_t *v, *ch;
	long long late;
	size_t i;

	json_array_foreach(refs, i, v) {
		ch = json_object_get(json_object_get(v, "result"), "change");
		if (!json_is_object(ch) || strcmp(str(ch, "after"),
		    str(ref, "ref")) != 0)
			continue;
		late = num(ch, "late");
		fprintf(out, "    ^ change point after %s, found at %s",
		    print_short_ref(str(ch, "before")),
		    print_short_ref(str(v, "ref")));
		if (late > 0)
			fprintf(out, " (%lld ref%s late)\n", late, late == 1 ?
			    "" : "s");
		else
			fprintf(out, "\n");
	}
}

/* The sweep's refs, oldest first, with the bisection each one started. */
void
print_sweep(FILE *out, const json_t *r, const json_t *req, unsigned flags)
{
	const json_t *sw = json_object_get(r, "sweep"), *v, *b;
	size_t i;

	(void)req;
	(void)flags;
	fprintf(out, "sweep %s: benchmark %s, refs %s, %s; next %s\n",
	    str(sw, "name"), str(sw, "benchmark"), str(sw, "tag_pattern"),
	    str(sw, "state"), str(sw, "next"));
	fprintf(out, "%-24s %-12s %-10s %4s  %s\n", "REF", "COMMIT", "STATE",
	    "RUNS", "BISECTION");
	fprintf(out, "    %-24s %12s %7s %8s %8s  %s\n", "metric", "median",
	    "stddev", "vs prev", "shift", "verdict");
	json_array_foreach(json_object_get(r, "refs"), i, v) {
		b = json_object_get(v, "bisection");
		fprintf(out, "%-24s %-12.12s %-10s %4lld  ",
		    print_short_ref(str(v, "ref")), str(v, "commit"),
		    str(v, "state"), num(v, "runs"));
		if (json_is_integer(b))
			fprintf(out, "%lld\n", (long long)json_integer_value(b));
		else
			fprintf(out, "-\n");
		print_sweep_result(out, json_object_get(v, "result"));
		print_sweep_why(out, json_object_get(v, "result"));
		print_sweep_point(out, json_object_get(r, "refs"), v);
	}
	json_array_foreach(json_object_get(r, "plots"), i, v)
		fprintf(out, "\n%s", str(v, "text"));
}
