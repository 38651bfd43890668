/*
 * The event stream of the watch command: every connection subscribed with
 * WATCH_ALL gets one JSON line per event (probe started and finished,
 * sample, skip, verdict, host state, done).
 */
#ifndef DAEMON_WATCH_H
#define DAEMON_WATCH_H

#include <jansson.h>

#define WATCH_ALL	0x1	/* bit in struct ctl_conn subscriptions */

struct daemon;

/* Adds "event" and "time_ms" to fields (stolen, may be NULL) and sends. */
void	watch_emit(struct daemon *d, const char *event, json_t *fields);

#endif
