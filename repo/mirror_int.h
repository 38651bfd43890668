/* SPDX-License-Identifier: MIT */
/*
 * Inside the mirror: the ssh:// credential and host key callbacks
 * (mirror_ssh.c) and the socket stream (mirror_net.c), shared with the
 * fetch in mirror.c.
 */
#ifndef REPO_MIRROR_INT_H
#define REPO_MIRROR_INT_H

#include <git2.h>

#include "repo/mirror.h"

/* The callbacks' payload for one fetch. */
struct mirror_ssh {
	const struct mirror_fetch_opts *o;
	const char	*url;
	int		 tries;		/* credential attempts so far */
	int		 refused;	/* the host key was refused: why says */
	char		 why[256];
};

const char *mirror_git_msg(void);
int	mirror_ssh_credentials(git_credential **out, const char *url,
	    const char *user, unsigned int allowed, void *payload);
int	mirror_ssh_certificate(git_cert *cert, int valid, const char *host,
	    void *payload);

/* Registers the socket stream with libgit2 (once per process). */
void	mirror_net_register(void);
/* The sockets this thread opens from now on belong to the fetch of cancel. */
void	mirror_net_begin(volatile int *cancel);

#endif
