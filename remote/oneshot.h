/* SPDX-License-Identifier: MIT */
/*
 * A short command on its own channel, output discarded: the keepalive
 * probe (no command: opening and closing a channel is the round trip) and
 * the kill of a remote process group.
 *
 * Closing a command's channel does not stop the command (sshd only closes
 * its pipes), so exec.c kills through a second channel.  The callback says
 * whether the channel ran its course (0) or failed (negative), never from
 * inside oneshot_start(); the oneshot frees itself after.
 */
#ifndef REMOTE_ONESHOT_H
#define REMOTE_ONESHOT_H

#include <stdint.h>

#include "remote/ssh.h"

typedef void oneshot_done_cb(void *arg, int rc);

/* The connection must be up; cmd may be NULL (open and close only). */
void	oneshot_start(struct ssh_conn *c, const char *cmd, oneshot_done_cb *cb,
	    void *arg);

/* The script that TERMs group pgid, waits up to grace_ms, then KILLs. */
void	oneshot_kill_cmd(char *buf, size_t bufsz, long pgid, uint64_t grace_ms);

#endif
