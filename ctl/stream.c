/* SPDX-License-Identifier: MIT */
#include <sys/ioctl.h>

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common/error.h"
#include "common/xmalloc.h"
#include "ctl/client.h"
#include "ctl/print.h"
#include "ctl/stream.h"
#include "ctl/termout.h"

/* Where --follow is: what was printed last, and how to print. */
struct follow {
	struct client	 status;	/* status requests */
	struct client	 watch;		/* the event stream */
	const json_t	*req;		/* the status request */
	long long	 id;
	int		 raw;
	int		 tty;		/* rewrite one line in place */
	char		*last;		/* the line printed last */
	char		*last_key;	/* and its progress without durations */
	long long	 total;		/* the steps' denominator shown */
};

/* Transport failures all mean the daemon cannot be reached. */
static int
unreached(const struct bd_error *err)
{
	fprintf(stderr, "bisectctl: %s\n", err->msg);
	return CLIENT_UNREACHED;
}

/* The terminal's width, so the rewritten line never wraps. */
static int
follow_width(void)
{
	struct winsize ws;

	if (ioctl(STDOUT_FILENO, TIOCGWINSZ, &ws) == 0 && ws.ws_col > 1)
		return ws.ws_col - 1;
	return 79;
}

/*
 * Prints text: in place on a terminal (carriage return, clear the line),
 * else as a new line only when the progress (key: the text without the
 * durations, which change at every poll) changed.  end finishes the line.
 */
static void
follow_show(struct follow *f, const char *text, const char *key, int end)
{
	if (f->tty && !f->raw) {
		/* Ours, so past the filter; text itself is filtered. */
		termout_raw(stdout, "\r\033[K");
		/* The last line stays whole: the terminal wraps it. */
		if (end)
			printf("%s\n", text);
		else
			printf("%.*s", follow_width(), text);
	} else if (f->last_key == NULL || strcmp(f->last_key, key) != 0)
		printf("%s\n", text);
	fflush(stdout);
	free(f->last);
	f->last = xstrdup(text);
	free(f->last_key);
	f->last_key = xstrdup(key);
}

/* Ends the progress line on a terminal before a message goes below it. */
static void
follow_break(const struct follow *f)
{
	if (f->tty && !f->raw && f->last != NULL) {
		printf("\n");
		fflush(stdout);
	}
}

/*
 * A script tells the endings apart by the exit status alone: 0 a culprit,
 * 3 not reproduced, 4 inconclusive, 1 failed or cancelled.
 */
static int
follow_exit(const char *state, const char *verdict)
{
	if (strcmp(state, "done") != 0)
		return CLIENT_ERROR_REPLY;
	if (verdict != NULL && strcmp(verdict, "not-reproduced") == 0)
		return STREAM_EXIT_NOT_REPRODUCED;
	if (verdict != NULL && strcmp(verdict, "inconclusive") == 0)
		return STREAM_EXIT_INCONCLUSIVE;
	return CLIENT_OK;
}

/*
 * Asks for the status and shows it.  Returns -1 while the bisection runs,
 * else the exit status of follow_exit.
 */
static int
follow_refresh(struct follow *f)
{
	struct bd_error err;
	json_t *reply, *b;
	const char *state;
	char *line, text[1024], key[1024];
	int rc, ended;

	bd_error_clear(&err);
	rc = (int)client_ask(&f->status, f->req, &line, &reply, &err);
	if (rc != CLIENT_OK)
		follow_break(f);
	if (rc == CLIENT_UNREACHED)
		return unreached(&err);
	if (rc == CLIENT_ERROR_REPLY) {
		print_error(stderr, reply);
		goto out;
	}
	b = json_object_get(reply, "bisection");
	state = json_string_value(json_object_get(b, "state"));
	if (state == NULL)
		state = "?";
	ended = strcmp(state, "done") == 0 || strcmp(state, "failed") == 0 ||
	    strcmp(state, "cancelled") == 0;
	print_progress(b, &f->total, text, sizeof(text));
	print_progress_key(b, &f->total, key, sizeof(key));
	follow_show(f, f->raw ? line : text, key, ended);
	rc = !ended ? -1 : follow_exit(state, json_string_value(
	    json_object_get(b, "verdict")));
out:
	free(line);
	json_decref(reply);
	return rc;
}

/* Whether an event line can change what the followed bisection shows. */
static int
follow_relevant(const struct follow *f, const char *line)
{
	json_t *ev = json_loads(line, 0, NULL), *id;
	int yes;

	id = json_object_get(ev, "bisection");
	yes = !json_is_integer(id) || json_integer_value(id) == f->id;
	json_decref(ev);
	return yes;
}

/*
 * Waits with poll(2) for the next event about the bisection, or the
 * refresh interval; events about other bisections do not move the
 * deadline.  Events that arrived together are read at once, so one status
 * request answers them all.  Returns 0, or 2 when the stream ended.
 */
static int
follow_wait(struct follow *f)
{
	struct timespec deadline, now;
	struct bd_error err;
	char *line;
	int rc, wanted = 0;

	bd_error_clear(&err);
	client_deadline(&deadline, STREAM_REFRESH_MS);
	for (;;) {
		client_deadline(&now, 0);
		rc = client_read_line_until(&f->watch, wanted ? &now :
		    &deadline, &line, &err);
		if (rc == -ETIMEDOUT)
			return 0;
		if (rc < 0) {
			follow_break(f);
			return unreached(&err);
		}
		wanted |= follow_relevant(f, line);
		free(line);
	}
}

/* Subscribes f->watch to the event stream; an exit status. */
static int
follow_subscribe(struct follow *f, const char *path)
{
	struct bd_error err;
	json_t *wreq, *reply;
	char *line;
	int rc;

	bd_error_clear(&err);
	wreq = json_pack("{s:s}", "cmd", "watch");
	rc = (int)client_call(&f->watch, path, wreq, &line, &reply, &err);
	json_decref(wreq);
	if (rc != CLIENT_OK)
		follow_break(f);
	if (rc == CLIENT_UNREACHED)
		rc = unreached(&err);
	else if (rc == CLIENT_ERROR_REPLY)
		print_error(stderr, reply);
	free(line);
	json_decref(reply);
	return rc;
}

/*
 * The first status comes before the stream, so that a bisection that has
 * ended shows at once.
 */
static int
follow_run(struct follow *f, const char *path)
{
	struct bd_error err;
	int rc;

	bd_error_clear(&err);
	if (client_connect(&f->status, path, &err) < 0)
		return unreached(&err);
	rc = follow_refresh(f);
	if (rc >= 0)
		return rc;
	rc = follow_subscribe(f, path);
	while (rc == CLIENT_OK) {
		rc = follow_wait(f);
		if (rc == CLIENT_OK)
			rc = follow_refresh(f);
		if (rc >= 0)
			break;
		rc = CLIENT_OK;
	}
	return rc;
}

/* Owns the two connections of --follow for as long as it runs. */
int
stream_follow(const char *path, const json_t *req, int raw)
{
	struct follow f;
	int rc;

	memset(&f, 0, sizeof(f));
	client_init(&f.status);
	client_init(&f.watch);
	f.req = req;
	f.id = json_integer_value(json_object_get(req, "bisection"));
	f.raw = raw;
	f.tty = isatty(STDOUT_FILENO);
	rc = follow_run(&f, path);
	free(f.last);
	free(f.last_key);
	client_release(&f.status);
	client_release(&f.watch);
	return rc;
}

/* One event line for people; a line that is no event is passed over. */
static void
stream_print(const char *line)
{
	json_t *ev = json_loads(line, 0, NULL);

	if (json_is_string(json_object_get(ev, "event")))
		print_event(stdout, ev);
	json_decref(ev);
}

/* Prints each event as it comes until the daemon closes the stream. */
int
stream_watch(const char *path, const json_t *req, int raw)
{
	struct client c;
	struct bd_error err;
	json_t *reply;
	char *line;
	int rc;

	client_init(&c);
	bd_error_clear(&err);
	rc = (int)client_call(&c, path, req, &line, &reply, &err);
	if (rc == CLIENT_UNREACHED)
		rc = unreached(&err);
	else if (rc == CLIENT_ERROR_REPLY && raw)
		printf("%s\n", line);
	else if (rc == CLIENT_ERROR_REPLY)
		print_error(stderr, reply);
	while (rc == CLIENT_OK) {
		if (raw)
			printf("%s\n", line);
		else
			stream_print(line);
		fflush(stdout);
		free(line);
		line = NULL;
		/* The stream ends when the daemon stops or restarts. */
		if (client_read_line(&c, &line, &err) < 0) {
			fprintf(stderr, "bisectctl: %s\n", err.msg);
			break;
		}
	}
	free(line);
	json_decref(reply);
	client_release(&c);
	return rc;
}
