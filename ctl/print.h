/* SPDX-License-Identifier: MIT */
/*
 * bisectctl's printers: replies of the control protocol turned into text
 * for people (tables, multi-line status, a one-line progress summary and
 * one line per watch event).  docs/protocol.md describes the replies.
 *
 * Printers only read the JSON they get (borrowed, never kept) and write to
 * the stream they are given; members that are missing or of the wrong type
 * print as "-" instead of failing, so an older or newer daemon still gives
 * readable output.
 */
#ifndef CTL_PRINT_H
#define CTL_PRINT_H

#include <stddef.h>
#include <stdio.h>

#include <jansson.h>

/* Shas in tables are shortened to this many hex digits. */
#define PRINT_SHORT		12
/* The progress line shortens the leading candidate a little more. */
#define PRINT_SHORT_LINE	10

/*
 * Prints an ok reply to a request.  req is the request that was sent (for
 * the bisection id); flags are for printer options, none defined now.
 */
typedef void print_fn(FILE *out, const json_t *reply, const json_t *req,
    unsigned flags);

print_fn	print_pong;
print_fn	print_version;
print_fn	print_json;		/* pretty JSON without "ok" and "id" */
print_fn	print_hosts;
print_fn	print_reload;
print_fn	print_backup;
print_fn	print_repo;		/* the mirror's state */
print_fn	print_fetch;
print_fn	print_sweeps;		/* nightly sweeps */
print_fn	print_sweep;
print_fn	print_bisect;
print_fn	print_status;	/* one bisection, or the list */
print_fn	print_list;
print_fn	print_cancel;
print_fn	print_verify;
print_fn	print_log;
print_fn	print_samples;
print_fn	print_drain;		/* drain and undrain */
print_fn	print_report;

/* An error reply: code, message and any per-item detail lines. */
void	print_error(FILE *out, const json_t *reply);

/*
 * The one-line summary of a bisection (the "bisection" object of a status
 * reply) into buf, always NUL-terminated and cut to size: the progress
 * while it runs ("#4 bisecting: 14/21 steps, 37 candidates left, leading
 * a1b2c3d4e5 (62.0%)"), the verdict once it has ended.
 * total, when not NULL, keeps the steps' denominator from one line to the
 * next (start it at 0): it moves only when the estimate moves by more
 * than a third or the samples done reach it.
 */
void	print_progress(const json_t *b, long long *total, char *buf,
	    size_t size);
/* The progress line without durations, to tell a real change. */
void	print_progress_key(const json_t *b, long long *total, char *buf,
	    size_t size);

/* One readable line, newline included, for a watch event. */
void	print_event(FILE *out, const json_t *ev);

#endif
