/* SPDX-License-Identifier: MIT */
/*
 * The ops sharing one libssh2 session, pumped in turn.
 *
 * libssh2 keeps some state per session rather than per channel, so ops
 * must take turns by these rules: an op that returns SSH_PUMP_AGAIN with a
 * packet half sent (LIBSSH2_SESSION_BLOCK_OUTBOUND) is the only one pumped
 * until it has finished that send (libssh2 1.10 would otherwise complete
 * its packet on behalf of the next sender and drop the sender's own);
 * channel opens and SFTP start-up share session state too and take the
 * open lock.  pump_run() gives each op one turn per round, restarting the
 * round when the list changes under it, and answers with the poll events
 * the waiting ops need.  struct ssh_conn (ssh.c) owns one pump per link.
 */
#ifndef REMOTE_PUMP_H
#define REMOTE_PUMP_H

#include <libssh2.h>

#include "common/error.h"
#include "remote/ssh.h"

struct pump {
	struct ssh_op	*ops;
	struct ssh_op	*open_owner;	/* holds the channel-open lock */
	struct ssh_op	*out_owner;	/* has a packet half sent */
	unsigned	 gen;		/* round number */
	int		 running;	/* inside pump_run */
	int		 again;		/* asked to run again meanwhile */
	int		 broken;	/* the session is unusable */
	struct bd_error	 broken_err;
};

void	 pump_init(struct pump *p);
void	 pump_add(struct pump *p, struct ssh_op *op);
/* Safe for an op that is not in p; clears op->conn. */
void	 pump_remove(struct pump *p, struct ssh_op *op);
int	 pump_lock(struct pump *p, struct ssh_op *op);
/* Returns 1 when op held the lock (others may now take it). */
int	 pump_unlock(struct pump *p, struct ssh_op *op);
/* 1 when a libssh2 error means the session itself is broken. */
int	 pump_fatal(int rc);
/* Marks the session broken; the first reason is kept. */
void	 pump_break(struct pump *p, const char *name, const char *why);
/*
 * Gives the ops up to rounds turns on s.  Returns the poll events the
 * waiting ops need; *more is set when some want another turn soon.  Stops
 * at once when the session breaks.
 */
int	 pump_run(struct pump *p, LIBSSH2_SESSION *s, unsigned rounds,
	    int *more);

#endif
