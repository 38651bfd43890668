/* SPDX-License-Identifier: MIT */
/*
 * A real OpenSSH server on a loopback port for the remote tests.
 *
 * sshd_start() makes a temp dir with an ed25519 host key, an ed25519 user
 * key (authorized for the current user), an sshd_config (127.0.0.1 only,
 * StrictModes off, no PAM, SFTP subsystem unless no_sftp, high session
 * limits) and a
 * known_hosts file naming the server, then starts /usr/sbin/sshd -D -e as a
 * child and waits until the port accepts.  sshd_stop() kills the server and
 * every process under it, the way a crashing host takes its sessions with
 * it; sshd_restart() brings it back on the same port with the same keys.
 * sshd_cleanup() stops it and removes the directory; it is safe to call on
 * a struct that never started.
 */
#ifndef TESTS_SUPPORT_SSHD_H
#define TESTS_SUPPORT_SSHD_H

#include <sys/types.h>

#include "config/config.h"

struct sshd {
	char	*dir;		/* temp dir; everything below lives in it */
	int	 port;
	pid_t	 pid;		/* the listener, 0 when stopped */
	char	*config;	/* absolute sshd_config path */
	char	*user_key;	/* client identity, no passphrase */
	char	*known_hosts;	/* "[127.0.0.1]:port ssh-ed25519 ..." */
	char	*host_pub;	/* the server's public host key */
	char	*log;		/* sshd's stderr */
	int	 no_sftp;	/* no Subsystem sftp: exec channels only */
};

/* Returns 0, or -1 with a message on stderr. */
int	 sshd_start(struct sshd *s, const char *tag);
/* The same for a server without the SFTP subsystem, as some hosts are. */
int	 sshd_start_nosftp(struct sshd *s, const char *tag);
int	 sshd_restart(struct sshd *s);
void	 sshd_stop(struct sshd *s);
/* Sends sig to every process under the listener (not the listener). */
void	 sshd_signal_sessions(struct sshd *s, int sig);
void	 sshd_cleanup(struct sshd *s);

/*
 * Generates an ed25519 key dir/name (passphrase may be NULL) and returns
 * the private key path (caller frees); authorize adds it to the server.
 */
char	*sshd_keygen(struct sshd *s, const char *name, const char *passphrase,
	    int authorize);
/*
 * Gives the server a host key of type (as ssh-keygen -t takes it) besides
 * its others, or instead of them when replace, and restarts it.  Returns
 * the new public key's path (caller frees), or NULL.
 */
char	*sshd_host_key(struct sshd *s, const char *type, int replace);
/* Writes a known_hosts file at path holding key pubfile for this server. */
int	 sshd_write_known_hosts(const struct sshd *s, const char *path,
	    const char *pubfile);

/*
 * Fills h for this server: the strings point into s (do not free them
 * through config_release); timeouts and policy get test defaults.
 */
void	 sshd_host(struct sshd *s, struct config_host *h, const char *name,
	    const char *group);

#endif
