/* SPDX-License-Identifier: MIT */
/*
 * Who may change state through the control socket: `[daemon] operators`
 * names groups (GROUP[,GROUP]); a peer whose uid belongs to one of them,
 * as its primary or a supplementary group, is an operator.  Unset, every
 * peer that can connect is one.  Read-only commands are open to all.
 * An operator acts on the bisections its own uid started; acting on
 * another uid's needs `[daemon] admin_group` membership (root always).
 */
#ifndef SERVER_PERM_H
#define SERVER_PERM_H

#include <sys/types.h>

#include "common/error.h"

/*
 * 1 when uid is an operator under operators (NULL or empty: everyone), 0
 * when not (also when uid has no passwd entry or a group does not exist).
 */
int	perm_operator(const char *operators, uid_t uid);
/* 1 when uid is root or in one of the admins groups (NULL: root only). */
int	perm_admin(const char *admins, uid_t uid);
/* 1 when uid may change work that owner started: its own, or as admin. */
int	perm_owner(const char *admins, uid_t uid, uid_t owner);
/*
 * Checks that every group the list names exists: 0, or -ENOENT with err
 * naming key and the first that does not (a typo would lock people out).
 */
int	perm_check(const char *key, const char *groups, struct bd_error *err);

#endif
