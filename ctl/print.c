/* SPDX-License-Identifier: MIT */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/xmalloc.h"
#include "ctl/print.h"
#include "ctl/print_int.h"

/*
 * A table printed with aligned columns.  Cells are added row by row; the
 * widths come from the longest cell, so nothing is ever cut.
 */
struct table {
	const char *const *head;
	const char	*align;		/* 'l' or 'r' per column */
	size_t		 ncols;
	char		**cells;	/* row-major, head not included */
	size_t		 ncells;
};

/* The header and alignment are static tables of the caller. */
static void
table_init(struct table *t, const char *const *head, const char *align)
{
	memset(t, 0, sizeof(*t));
	t->head = head;
	t->align = align;
	t->ncols = strlen(align);
}

/* Appends the next cell; rows fill from left to right. */
static void __attribute__((format(printf, 2, 3)))
table_cell(struct table *t, const char *fmt, ...)
{
	va_list ap;
	char *s;

	va_start(ap, fmt);
	if (vasprintf(&s, fmt, ap) == -1)
		s = xstrdup("?");
	va_end(ap);
	t->cells = xreallocarray(t->cells, t->ncells + 1, sizeof(*t->cells));
	t->cells[t->ncells++] = s;
}

/* One row; the last column is not padded, so lines have no trailing blanks. */
static void
table_row(FILE *out, const struct table *t, const char *const *cells,
    const int *width)
{
	size_t c;
	int w;

	for (c = 0; c < t->ncols; c++) {
		w = c + 1 < t->ncols || t->align[c] == 'r' ? width[c] : 0;
		if (t->align[c] == 'r')
			fprintf(out, "%*s", w, cells[c]);
		else
			fprintf(out, "%-*s", w, cells[c]);
		fputs(c + 1 < t->ncols ? "  " : "\n", out);
	}
}

/* Prints and frees the table; empty prints the note instead of a header. */
static void
table_print(FILE *out, struct table *t, const char *empty)
{
	int width[16];
	size_t c, i;

	if (t->ncells == 0) {
		fprintf(out, "%s\n", empty);
		return;
	}
	for (c = 0; c < t->ncols && c < 16; c++)
		width[c] = (int)strlen(t->head[c]);
	for (i = 0; i < t->ncells; i++)
		if ((int)strlen(t->cells[i]) > width[i % t->ncols])
			width[i % t->ncols] = (int)strlen(t->cells[i]);
	table_row(out, t, t->head, width);
	for (i = 0; i + t->ncols <= t->ncells; i += t->ncols)
		table_row(out, t, (const char *const *)t->cells + i, width);
	for (i = 0; i < t->ncells; i++)
		free(t->cells[i]);
	free(t->cells);
	t->cells = NULL;
	t->ncells = 0;
}

/* Printers turn replies into text; this one has nothing to add. */
void
print_pong(FILE *out, const json_t *r, const json_t *req, unsigned flags)
{
	(void)r; (void)req; (void)flags;
	fprintf(out, "pong\n");
}

/* One line, as a person would want it in a terminal. */
void
print_version(FILE *out, const json_t *r, const json_t *req,
    unsigned flags)
{
	(void)req; (void)flags;
	fprintf(out, "bisectd %s (protocol %lld), pid %lld, up %llds\n",
	    str(r, "version"), num(r, "protocol"), num(r, "pid"),
	    num(r, "uptime_s"));
}

/* Pretty JSON of o. */
static void
dump_pretty(FILE *out, const json_t *o)
{
	char *s = json_dumps(o, JSON_INDENT(2));

	if (s != NULL)
		fprintf(out, "%s\n", s);
	free(s);
}

/* Pretty JSON without the envelope: what a person wants to read. */
void
print_json(FILE *out, const json_t *r, const json_t *req, unsigned flags)
{
	json_t *copy = json_deep_copy(r);

	(void)req; (void)flags;
	json_object_del(copy, "ok");
	json_object_del(copy, "id");
	dump_pretty(out, copy);
	json_decref(copy);
}

/* Roles joined with commas; "-" for none. */
static void
roles_cell(struct table *t, const json_t *roles)
{
	char buf[128];
	const json_t *v;
	size_t i, n = 0;

	buf[0] = '\0';
	json_array_foreach(roles, i, v)
		if (n < sizeof(buf))
			n += (size_t)snprintf(buf + n, sizeof(buf) - n, "%s%s",
			    n ? "," : "", json_string_value(v) ?
			    json_string_value(v) : "?");
	table_cell(t, "%s", buf[0] != '\0' ? buf : "-");
}

/* Lab groups: one row each, then each lab's last error. */
static void
print_labs(FILE *out, const json_t *labs)
{
	static const char *const head[] = {
		"LAB", "URL", "DEVICE TYPE", "GROUP", "BUILDS ON", "QUEUED",
		"RUNNING", "MAX", "HEALTH"
	};
	const json_t *l;
	struct table t;
	size_t i;

	if (json_array_size(labs) == 0)
		return;
	table_init(&t, head, "lllllrrrl");
	json_array_foreach(labs, i, l) {
		table_cell(&t, "%s", str(l, "name"));
		table_cell(&t, "%s", str(l, "url"));
		table_cell(&t, "%s", str(l, "device_type"));
		table_cell(&t, "%s", str(l, "group"));
		table_cell(&t, "%s", str(l, "build_group"));
		table_cell(&t, "%lld", num(l, "queued"));
		table_cell(&t, "%lld", num(l, "running"));
		table_cell(&t, "%lld", num(l, "max_jobs"));
		table_cell(&t, "%s", str(l, "health"));
	}
	fprintf(out, "\n");
	table_print(out, &t, "");
	json_array_foreach(labs, i, l)
		if (*str(l, "last_error") != '\0')
			fprintf(out, "%s: last error: %s\n", str(l, "name"),
			    str(l, "last_error"));
}

/*
 * Hosts with their state and the run each one works on, then the last
 * infrastructure error of each host that has one (too long for a cell).
 */
void
print_hosts(FILE *out, const json_t *r, const json_t *req, unsigned flags)
{
	static const char *const head[] = {
		"NAME", "ADDRESS", "PORT", "GROUP", "ROLES", "STATE",
		"FAILS", "COPIES", "CURRENT"
	};
	const json_t *hosts = json_object_get(r, "hosts"), *h, *cur;
	struct table t;
	char sha[PRINT_SHORT + 1];
	size_t i;

	(void)req; (void)flags;
	table_init(&t, head, "llrlllrll");
	json_array_foreach(hosts, i, h) {
		table_cell(&t, "%s", str(h, "name"));
		table_cell(&t, "%s", str(h, "address"));
		table_cell(&t, "%lld", num(h, "port"));
		table_cell(&t, "%s", str(h, "group"));
		roles_cell(&t, json_object_get(h, "roles"));
		table_cell(&t, "%s", str(h, "state"));
		table_cell(&t, "%lld", num(h, "infra_failures"));
		/* How artifacts reach it, and copies that failed. */
		if (json_is_string(json_object_get(h, "receives")))
			table_cell(&t, "%s %lld failed", str(h, "receives"),
			    num(h, "copy_failures"));
		else
			table_cell(&t, "-");
		cur = json_object_get(h, "current");
		if (json_is_object(cur) && json_is_string(json_object_get(cur,
		    "sweep")))
			table_cell(&t, "sweep %s %s", str(cur, "sweep"),
			    shortsha(str(cur, "commit"), PRINT_SHORT, sha,
			    sizeof(sha)));
		else if (json_is_object(cur))
			table_cell(&t, "#%lld %s", num(cur, "bisection"),
			    shortsha(str(cur, "commit"), PRINT_SHORT, sha,
			    sizeof(sha)));
		else
			table_cell(&t, "-");
	}
	table_print(out, &t, "(no hosts configured)");
	json_array_foreach(hosts, i, h) {
		const char *e = json_string_value(json_object_get(h,
		    "last_error"));

		const json_t *ms = json_object_get(h, "last_error_ms");
		char when[32];

		if (e == NULL || *e == '\0')
			continue;
		if (json_is_integer(ms))
			fprintf(out, "%s: last error at %s: %s\n",
			    str(h, "name"), timestr(ms, TIME_SECOND, when,
			    sizeof(when)), e);
		else
			fprintf(out, "%s: last error: %s\n", str(h, "name"), e);
	}
	json_array_foreach(hosts, i, h) {
		const char *e = json_string_value(json_object_get(h,
		    "copy_error"));

		if (e != NULL && *e != '\0')
			fprintf(out, "%s: last failed copy: %s\n",
			    str(h, "name"), e);
	}
	print_labs(out, json_object_get(r, "labs"));
}

/*
 * Names each setting that waits for a restart, and each that could not be
 * applied, so none is missed.
 */
void
print_reload(FILE *out, const json_t *r, const json_t *req,
    unsigned flags)
{
	const json_t *v;
	size_t i;

	(void)req; (void)flags;
	fprintf(out, "configuration reloaded\n");
	json_array_foreach(json_object_get(r, "restart_needed"), i, v)
		fprintf(out, "note: %s changed; it takes effect after a "
		    "restart\n", json_string_value(v));
	json_array_foreach(json_object_get(r, "not_applied"), i, v)
		fprintf(out, "warning: not applied: %s\n",
		    json_string_value(v));
}

/* Says whether a new bisection began or an identical one was found. */
void
print_bisect(FILE *out, const json_t *r, const json_t *req,
    unsigned flags)
{
	(void)req; (void)flags;
	if (json_is_true(json_object_get(r, "existing")))
		fprintf(out, "bisection %lld already running (same request)\n",
		    num(r, "bisection"));
	else
		fprintf(out, "bisection %lld started\n", num(r, "bisection"));
}

/* The good revisions as one cell: the first, and how many more. */
static void
good_cell(struct table *t, const json_t *good)
{
	char sha[PRINT_SHORT + 1];
	const char *first = json_string_value(json_array_get(good, 0));

	if (first == NULL)
		table_cell(t, "-");
	else if (json_array_size(good) == 1)
		table_cell(t, "%s", shortsha(first, PRINT_SHORT, sha,
		    sizeof(sha)));
	else
		table_cell(t, "%s +%zu", shortsha(first, PRINT_SHORT, sha,
		    sizeof(sha)), json_array_size(good) - 1);
}

/* All bisections, newest last as the daemon sends them. */
void
print_list(FILE *out, const json_t *r, const json_t *req, unsigned flags)
{
	static const char *const head[] = {
		"ID", "STATE", "VERDICT", "BENCHMARK", "METRIC", "GROUP",
		"BAD", "GOOD", "SAMPLES", "CULPRIT", "CREATED"
	};
	const json_t *b;
	struct table t;
	char sha[PRINT_SHORT + 1], when[32];
	size_t i;

	(void)req; (void)flags;
	table_init(&t, head, "rlllllllrll");
	json_array_foreach(json_object_get(r, "bisections"), i, b) {
		/* A sub-range that verification bisects names its parent. */
		if (json_is_integer(json_object_get(b, "parent")))
			table_cell(&t, "%lld of %lld", num(b, "id"),
			    num(b, "parent"));
		else
			table_cell(&t, "%lld", num(b, "id"));
		table_cell(&t, "%s", str(b, "state"));
		table_cell(&t, "%s", str(b, "verdict"));
		table_cell(&t, "%s", str(b, "benchmark"));
		table_cell(&t, "%s", str(b, "metric"));
		table_cell(&t, "%s", str(b, "group"));
		table_cell(&t, "%s", shortsha(str(b, "bad"), PRINT_SHORT,
		    sha, sizeof(sha)));
		good_cell(&t, json_object_get(b, "good"));
		if (json_is_integer(json_object_get(b, "samples")))
			table_cell(&t, "%lld", num(b, "samples"));
		else
			table_cell(&t, "-");
		table_cell(&t, "%s", shortsha(str(b, "culprit"),
		    PRINT_SHORT, sha, sizeof(sha)));
		table_cell(&t, "%s", timestr(json_object_get(b, "created_ms"),
		    TIME_MINUTE, when, sizeof(when)));
	}
	table_print(out, &t, "(no bisections)");
}

/* Confirms which bisection stopped, from the request that named it. */
void
print_cancel(FILE *out, const json_t *r, const json_t *req,
    unsigned flags)
{
	(void)flags;
	if (json_is_true(json_object_get(r, "cancelled")))
		fprintf(out, "bisection %lld cancelled\n",
		    num(req, "bisection"));
	else
		fprintf(out, "bisection %lld was not running; nothing to "
		    "cancel\n", num(req, "bisection"));
}

/* Where the culprit is being measured, and how to follow it. */
void
print_verify(FILE *out, const json_t *r, const json_t *req, unsigned flags)
{
	(void)flags;
	fprintf(out, "bisection %lld: the culprit is %s measured on group %s "
	    "as bisection %lld\n", num(req, "bisection"),
	    json_is_true(json_object_get(r, "existing")) ? "already" : "now",
	    str(req, "on"), num(r, "child"));
}

/* Lines as is, so the output can be fed to `git bisect replay`. */
void
print_log(FILE *out, const json_t *r, const json_t *req, unsigned flags)
{
	const json_t *v;
	size_t i;

	(void)req; (void)flags;
	json_array_foreach(json_object_get(r, "lines"), i, v)
		if (json_is_string(v))
			fprintf(out, "%s\n", json_string_value(v));
}

/* Every sample, one row each; values keep six significant digits. */
void
print_samples(FILE *out, const json_t *r, const json_t *req,
    unsigned flags)
{
	static const char *const head[] = {
		"RUN", "COMMIT", "HOST", "METRIC", "VALUE", "ATTEMPT", "SEQ"
	};
	const json_t *s, *v;
	struct table t;
	char sha[PRINT_SHORT + 1];
	size_t i;

	(void)req; (void)flags;
	table_init(&t, head, "rlllrrr");
	json_array_foreach(json_object_get(r, "samples"), i, s) {
		table_cell(&t, "%lld", num(s, "run"));
		table_cell(&t, "%s", shortsha(str(s, "commit"), PRINT_SHORT,
		    sha, sizeof(sha)));
		if (num(s, "reused_from") > 0)
			table_cell(&t, "sweep:%lld", num(s, "reused_from"));
		else
			table_cell(&t, "%s", str(s, "host"));
		table_cell(&t, "%s", str(s, "metric"));
		v = json_object_get(s, "value");
		if (json_is_number(v))
			table_cell(&t, "%.6g", json_number_value(v));
		else
			table_cell(&t, "-");
		table_cell(&t, "%lld", num(s, "attempt"));
		table_cell(&t, "%lld", num(s, "seq"));
	}
	table_print(out, &t, "(no samples)");
}

/* Where the copy is and how big, so a script can check it. */
void
print_backup(FILE *out, const json_t *r, const json_t *req, unsigned flags)
{
	(void)req; (void)flags;
	fprintf(out, "backup written to %s (%lld bytes, %lld ms)\n",
	    str(r, "path"),
	    (long long)json_integer_value(json_object_get(r, "bytes")),
	    (long long)json_integer_value(json_object_get(r, "took_ms")));
}

/* The host's new state, as the daemon reports it. */
void
print_drain(FILE *out, const json_t *r, const json_t *req, unsigned flags)
{
	(void)req; (void)flags;
	fprintf(out, "host %s: %s\n", str(r, "host"), str(r, "state"));
}

/* The report text as written, or with the command's --json its object. */
void
print_report(FILE *out, const json_t *r, const json_t *req,
    unsigned flags)
{
	const char *text = json_string_value(json_object_get(r, "text"));
	size_t n;

	(void)req;
	(void)flags;
	if (text == NULL)
		return;
	n = strlen(text);
	fputs(text, out);
	if (n == 0 || text[n - 1] != '\n')
		fputc('\n', out);
}

/* An error reply in words, with any per-item detail the daemon sent. */
void
print_error(FILE *out, const json_t *reply)
{
	const json_t *e = json_object_get(reply, "error"), *v;
	size_t i;

	fprintf(out, "bisectctl: %s: %s\n", str(e, "code"), str(e, "message"));
	json_array_foreach(json_object_get(e, "errors"), i, v)
		fprintf(out, "  %s\n", json_string_value(v));
}

