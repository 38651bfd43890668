/* SPDX-License-Identifier: MIT */
#include <stddef.h>

#include "remote/link.h"
#include "remote/pump.h"

/* An empty set, not broken. */
void
pump_init(struct pump *p)
{
	p->ops = p->open_owner = p->out_owner = NULL;
	p->gen = 0;
	p->running = p->again = p->broken = 0;
	bd_error_clear(&p->broken_err);
}

/* New ops wait for the next round, so a round never sees them twice. */
void
pump_add(struct pump *p, struct ssh_op *op)
{
	op->prev = NULL;
	op->next = p->ops;
	op->gen = p->gen;
	if (p->ops != NULL)
		p->ops->prev = op;
	p->ops = op;
}

/* Drops the op and any lock or turn it held. */
void
pump_remove(struct pump *p, struct ssh_op *op)
{
	if (op->conn == NULL)
		return;
	if (op->prev != NULL)
		op->prev->next = op->next;
	else if (p->ops == op)
		p->ops = op->next;
	if (op->next != NULL)
		op->next->prev = op->prev;
	if (p->open_owner == op)
		p->open_owner = NULL;
	if (p->out_owner == op)
		p->out_owner = NULL;
	op->prev = op->next = NULL;
	op->conn = NULL;
}

/* Only one channel open (or SFTP start) at a time per session. */
int
pump_lock(struct pump *p, struct ssh_op *op)
{
	if (p->open_owner != NULL && p->open_owner != op)
		return 0;
	p->open_owner = op;
	return 1;
}

/* Tells the caller whether others waiting for the lock may go on. */
int
pump_unlock(struct pump *p, struct ssh_op *op)
{
	if (p->open_owner != op)
		return 0;
	p->open_owner = NULL;
	return 1;
}

/* Errors that concern one channel or request leave the session usable. */
int
pump_fatal(int rc)
{
	switch (rc) {
	case LIBSSH2_ERROR_CHANNEL_FAILURE:
	case LIBSSH2_ERROR_CHANNEL_REQUEST_DENIED:
	case LIBSSH2_ERROR_CHANNEL_UNKNOWN:
	case LIBSSH2_ERROR_CHANNEL_CLOSED:
	case LIBSSH2_ERROR_CHANNEL_EOF_SENT:
	case LIBSSH2_ERROR_SFTP_PROTOCOL:
	case LIBSSH2_ERROR_FILE:
	case LIBSSH2_ERROR_INVAL:
	case LIBSSH2_ERROR_BUFFER_TOO_SMALL:
		return 0;
	default:
		return 1;
	}
}

/* Every op hears the first reason, not a later consequence. */
void
pump_break(struct pump *p, const char *name, const char *why)
{
	if (p->broken)
		return;
	p->broken = 1;
	bd_error_set(&p->broken_err, -ECONNRESET, "%s: connection lost: %s",
	    name, why);
}

/* The next op not yet pumped in this round; restarts after list changes. */
static struct ssh_op *
pump_next(struct pump *p)
{
	struct ssh_op *op;

	for (op = p->ops; op != NULL; op = op->next) {
		if (op->gen != p->gen)
			return op;
	}
	return NULL;
}

/* Rounds of turns until nothing progresses or the rounds are used up. */
int
pump_run(struct pump *p, LIBSSH2_SESSION *s, unsigned rounds, int *more)
{
	struct ssh_op *op;
	enum ssh_pump r;
	int events = 0, progress = 0;

	p->running = 1;
	do {
		p->again = progress = events = 0;
		p->gen++;
		while (!p->broken && (op = pump_next(p)) != NULL) {
			op->gen = p->gen;
			if (p->out_owner != NULL && p->out_owner != op)
				continue;
			r = op->pump(op, s);
			if (p->broken)
				break;
			if (r == SSH_PUMP_AGAIN) {
				events |= link_events(s);
				p->out_owner = (libssh2_session_block_directions(s)
				    & LIBSSH2_SESSION_BLOCK_OUTBOUND) ? op : NULL;
				continue;
			}
			if (p->out_owner == op)
				p->out_owner = NULL;
			if (r == SSH_PUMP_PROGRESS)
				progress = 1;
			else if (r == SSH_PUMP_DONE) {
				pump_remove(p, op);
				progress = 1;
			}
		}
	} while (!p->broken && (progress || p->again) && --rounds > 0);
	p->running = 0;
	*more = progress || p->again;
	return events;
}
