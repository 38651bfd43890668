/* SPDX-License-Identifier: MIT */
/*
 * Readiness for a service manager, in systemd's notify protocol: one
 * datagram to the unix socket named by $NOTIFY_SOCKET ("@name" is in the
 * abstract namespace).  With no such variable nothing is sent, so the same
 * binary runs under Type=notify, Type=simple or by hand.  Written here, not
 * taken from libsystemd, because the protocol is one sendmsg().
 */
#ifndef DAEMON_NOTIFY_H
#define DAEMON_NOTIFY_H

/*
 * Takes $NOTIFY_SOCKET out of the environment (so hooks and other children
 * do not see it) and keeps it for notify_send.  Call once, early in main.
 */
void	notify_init(void);
/*
 * Sends state (for example "READY=1") to the service manager.  Returns 1
 * when sent, 0 when no manager listens, or a negative errno.
 */
int	notify_send(const char *state);

#endif
