/* SPDX-License-Identifier: MIT */
/*
 * `bisectctl complete -- WORD...`: the words that may follow, one a line,
 * for the bash completion (contrib/bash-completion/bisectctl).  The words
 * are those typed after "bisectctl" before the one being completed; the
 * shell filters the answer by that word's prefix.  Commands and options
 * come from bisectctl's own tables; bisection ids, host, group, benchmark,
 * metric and sweep names from the daemon (`list`, `config`); revisions from
 * the repository the daemon's configuration names, read with
 * `git for-each-ref`.  Nothing here changes anything, and a daemon that
 * cannot be reached only means fewer words.
 *
 * Everything is borrowed from the caller for the length of the call.
 */
#ifndef CTL_COMPLETE_H
#define CTL_COMPLETE_H

#include "ctl/args.h"

/* What bisectctl knows of its commands. */
struct complete_ctl {
	const char *const	*commands;	/* visible ones, NULL-ended */
	const char *const	*globals;	/* options before the command */
	/* The arguments of the command called name: 0, or -1 if unknown. */
	int			(*args)(const char *name, struct args_set *set);
};

/* Prints the candidates for the word after argv[0..argc-1]; always 0. */
int	complete_main(const struct complete_ctl *ctl, const char *sock,
	    int argc, char **argv);

#endif
