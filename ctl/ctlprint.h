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
#ifndef CTL_CTLPRINT_H
#define CTL_CTLPRINT_H

#include <stddef.h>
#include <stdio.h>

#include <jansson.h>

/* The command's own --json was given (report ID --json). */
#define CTLPRINT_JSON		0x1

/* Shas in tables are shortened to this many hex digits. */
#define CTLPRINT_SHORT		12
/* The progress line shortens the leading candidate a little more. */
#define CTLPRINT_SHORT_LINE	10

/*
 * Prints an ok reply to a request.  req is the request that was sent (for
 * the bisection id); flags are CTLPRINT_ bits.
 */
typedef void ctlprint_fn(FILE *out, const json_t *reply, const json_t *req,
    unsigned flags);

ctlprint_fn	ctlprint_pong;
ctlprint_fn	ctlprint_version;
ctlprint_fn	ctlprint_json;		/* pretty JSON without "ok" and "id" */
ctlprint_fn	ctlprint_hosts;
ctlprint_fn	ctlprint_reload;
ctlprint_fn	ctlprint_bisect;
ctlprint_fn	ctlprint_status;	/* one bisection, or the list */
ctlprint_fn	ctlprint_list;
ctlprint_fn	ctlprint_cancel;
ctlprint_fn	ctlprint_log;
ctlprint_fn	ctlprint_samples;
ctlprint_fn	ctlprint_drain;		/* drain and undrain */
ctlprint_fn	ctlprint_report;

/* An error reply: code, message and any per-item detail lines. */
void	ctlprint_error(FILE *out, const json_t *reply);

/*
 * The one-line summary of a bisection (the "bisection" object of a status
 * reply) into buf, always NUL-terminated and cut to size: the progress
 * while it runs ("#4 bisecting: 14/21 steps, 37 candidates left, leading
 * a1b2c3d4e5 (62.0%)"), the verdict once it has ended.
 */
void	ctlprint_progress(const json_t *b, char *buf, size_t size);

/* One readable line, newline included, for a watch event. */
void	ctlprint_event(FILE *out, const json_t *ev);

#endif
