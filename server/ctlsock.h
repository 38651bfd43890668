/* SPDX-License-Identifier: MIT */
/*
 * The control socket's file: binding it with plain system calls before the
 * loop exists (so that "another daemon answers here" is reported on the
 * terminal that started bisectd), and its mode and group, which decide who
 * may connect.  server/ctl.c serves the descriptor made here.
 */
#ifndef SERVER_CTLSOCK_H
#define SERVER_CTLSOCK_H

#include <sys/types.h>

#include "common/error.h"

/*
 * Binds and listens on path: creates the parent directory if missing,
 * refuses when another process accepts connections there (-EADDRINUSE),
 * removes a stale socket file, and applies mode and group.  Returns 0 with
 * the listening descriptor in *fdp, or a negative errno with err filled.
 */
int	ctlsock_listen(const char *path, mode_t mode, const char *group,
	    int *fdp, struct bd_error *err);
/*
 * Applies mode, then group (NULL: leave it), to the socket file at path.
 * The mode is applied even when the group cannot be (no such group): the
 * error then says what was not applied.
 */
int	ctlsock_perms(const char *path, mode_t mode, const char *group,
	    struct bd_error *err);

#endif
