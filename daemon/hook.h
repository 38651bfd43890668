/* SPDX-License-Identifier: MIT */
/*
 * The report hook: a configured command run through /bin/sh -c (the
 * operator's own text, never a request's), with the report on its standard
 * input and the facts about the culprit in environment variables.
 */
#ifndef DAEMON_HOOK_H
#define DAEMON_HOOK_H

#include <stdint.h>

#include <uv.h>

/*
 * Starts command with env (NULL-terminated "K=V" strings added to the
 * daemon's environment; copied) and feeds input (copied) to its stdin.
 * Each value reaches the hook as one line of UTF-8 with its control
 * characters shown as '?' (bd_utf8_line): values come from commits, and a
 * hook that writes one into a mail header must not start a header of its
 * own.  The hook runs in a process group of its own; after timeout_ms (0:
 * never) the group is killed.  Returns 0 or a negative libuv error; the
 * exit status is logged.
 */
int	hook_run(uv_loop_t *loop, const char *command, char *const env[],
	    const char *input, uint64_t timeout_ms);
/*
 * Stops watching every hook still running, so that the loop can end; the
 * hooks run on by themselves (under systemd, until the unit's stop ends
 * what is left of the service).
 */
void	hook_detach_all(void);

#endif
