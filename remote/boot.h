/* SPDX-License-Identifier: MIT */
/*
 * Waiting for a host to come back after a reboot.
 *
 * boot_wait() reconnects with backoff until the host answers SSH and, if a
 * check command is set (such as `uname -r`), until its trimmed output equals
 * the expected kernel.  A host still up with its old kernel, refusing
 * connections while it reboots or answering slowly all just mean "wait".
 * When the boot timeout passes, the optional local power-cycle command runs
 * (through /bin/sh -c: it is the operator's configured template, with every
 * substituted value shell-quoted) and the wait starts over once; a second
 * timeout ends in a boot-timeout failure.
 */
#ifndef REMOTE_BOOT_H
#define REMOTE_BOOT_H

#include <stdbool.h>
#include <stdint.h>

#include "common/error.h"
#include "remote/ssh.h"

#define BOOT_CHECK_TIMEOUT_MS	15000
#define BOOT_RETRY_MS		300
#define BOOT_POWER_TIMEOUT_MS	120000

struct boot_opts {
	const char	*check;		/* command; NULL: SSH answering is enough */
	const char	*expect;	/* wanted check output; NULL: exit 0 is */
	const char	*cwd;		/* the check runs there; NULL: home */
	uint64_t	 timeout_ms;	/* the boot timeout */
	const char	*power_cycle;	/* local shell command; NULL: none */
	const char	*log_path;	/* check and power-cycle output */
	uint64_t	 retry_ms;	/* between checks; 0: BOOT_RETRY_MS */
};

/* Valid only during the callback. */
struct boot_result {
	int		 rc;	/* 0; -ETIMEDOUT; -ECANCELED; -EPERM (host key) */
	bool		 power_cycled;
	const char	*kernel;	/* last check output, trimmed */
	struct bd_error	 err;
};

struct boot;
typedef void boot_done_cb(void *arg, const struct boot_result *r);

/* Returns 0 or negative errno with err set (cb is not called then). */
int	boot_wait(struct ssh_conn *c, const struct boot_opts *opts,
	    boot_done_cb *cb, void *arg, struct boot **out,
	    struct bd_error *err);
void	boot_cancel(struct boot *b);

#endif
