/* SPDX-License-Identifier: MIT */
/*
 * bisectctl's streaming commands: `watch`, which prints the daemon's event
 * stream, and `status ID --follow`, which shows a bisection's progress
 * until it ends.  Both use blocking sockets and poll(2), no event loop.
 *
 * Both return bisectctl's exit status (enum client_result values) and
 * print errors on stderr themselves.  req is borrowed.
 */
#ifndef CTL_STREAM_H
#define CTL_STREAM_H

#include <jansson.h>

/* --follow asks for a fresh status at least this often without events. */
#define STREAM_REFRESH_MS	2000

/* Exit statuses of --follow and bisect --wait beside enum client_result. */
#define STREAM_EXIT_NOT_REPRODUCED	3
#define STREAM_EXIT_INCONCLUSIVE	4

/*
 * Sends req (a status request naming one bisection) now and after every
 * event of a watch stream that may concern it, or every
 * STREAM_REFRESH_MS, until the bisection is done, failed or cancelled.
 * On a terminal the progress line is rewritten in place; otherwise a line
 * is printed only when it changed.  raw prints the status reply lines as
 * sent (those that changed).  Returns 0 when the bisection ended with a
 * culprit, STREAM_EXIT_NOT_REPRODUCED or STREAM_EXIT_INCONCLUSIVE when it
 * ended with that verdict, 1 when it failed or was cancelled or on an
 * error reply, 2 when the daemon could not be reached or went away.
 */
int	stream_follow(const char *path, const json_t *req, int raw);
/*
 * Sends req (a watch request) and prints one readable line per event, or
 * with raw every line as sent, until the daemon closes the connection
 * (exit 0) or the process is interrupted.
 */
int	stream_watch(const char *path, const json_t *req, int raw);

#endif
