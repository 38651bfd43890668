/*
 * Who may change state through the control socket: `[daemon] operators`
 * names groups (GROUP[,GROUP]); a peer whose uid belongs to one of them,
 * as its primary or a supplementary group, is an operator.  Unset, every
 * peer that can connect is one.  Read-only commands are open to all.
 */
#ifndef DAEMON_PERM_H
#define DAEMON_PERM_H

#include <sys/types.h>

#include "common/error.h"

/*
 * 1 when uid is an operator under operators (NULL or empty: everyone), 0
 * when not (also when uid has no passwd entry or a group does not exist).
 */
int	perm_operator(const char *operators, uid_t uid);
/*
 * Checks that every group operators names exists: 0, or -ENOENT with err
 * naming the first that does not (a typo would lock every operator out).
 */
int	perm_check(const char *operators, struct bd_error *err);

#endif
