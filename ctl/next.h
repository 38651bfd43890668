/* SPDX-License-Identifier: MIT */
/*
 * `bisectctl next`: the offline next-commit choice, with no daemon.
 * Owned by the graph module's work; bisectctl's command table calls it.
 */
#ifndef CTL_NEXT_H
#define CTL_NEXT_H

/* argv[0] is "next"; returns the process exit code. */
int	next_main(int argc, char **argv);

#endif
