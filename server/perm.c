/* SPDX-License-Identifier: MIT */
#include <errno.h>
#include <grp.h>
#include <pwd.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common/xmalloc.h"
#include "server/perm.h"

#define PERM_GROUPS_MAX	1024
#define PERM_BUF	16384

/* The gid of one group name, or -1 when there is no such group. */
static int
perm_gid(const char *name, gid_t *gid)
{
	struct group gr, *grp = NULL;
	char *buf = xmalloc(PERM_BUF);

	if (getgrnam_r(name, &gr, buf, PERM_BUF, &grp) != 0 || grp == NULL) {
		free(buf);
		return -1;
	}
	*gid = grp->gr_gid;
	free(buf);
	return 0;
}

/* 1 when uid belongs to one of the groups list names, else 0. */
static int
perm_member(const char *groupsl, uid_t uid)
{
	struct passwd pw, *pwp = NULL;
	char *buf, *list, *name, *save = NULL;
	gid_t groups[PERM_GROUPS_MAX], want;
	int ngroups = PERM_GROUPS_MAX, i, ok = 0;

	buf = xmalloc(PERM_BUF);
	if (getpwuid_r(uid, &pw, buf, PERM_BUF, &pwp) != 0 || pwp == NULL ||
	    getgrouplist(pw.pw_name, pw.pw_gid, groups, &ngroups) < 0) {
		free(buf);
		return 0;
	}
	list = xstrdup(groupsl);
	for (name = strtok_r(list, ", ", &save); name != NULL && !ok;
	    name = strtok_r(NULL, ", ", &save)) {
		if (perm_gid(name, &want) < 0)
			continue;
		for (i = 0; i < ngroups && !ok; i++)
			ok = groups[i] == want;
	}
	free(list);
	free(buf);
	return ok;
}

/* Looked up per request: group membership may change while we run. */
int
perm_operator(const char *operators, uid_t uid)
{
	if (operators == NULL || *operators == '\0')
		return 1;
	return perm_member(operators, uid);
}

/* Root always; otherwise the admin groups, looked up per request. */
int
perm_admin(const char *admins, uid_t uid)
{
	if (uid == 0)
		return 1;
	if (admins == NULL || *admins == '\0')
		return 0;
	return perm_member(admins, uid);
}

/*
 * Whether uid may change what owner started: its own work, or any as an
 * admin.  Work nobody started through the socket (a sweep's) is owned by
 * the daemon's uid.
 */
int
perm_owner(const char *admins, uid_t uid, uid_t owner)
{
	return uid == owner || perm_admin(admins, uid);
}

/* The same list walk as perm_member, at startup and for bisectd -n. */
int
perm_check(const char *key, const char *operators, struct bd_error *err)
{
	char *list, *name, *save = NULL;
	gid_t gid;
	int rc = 0;

	if (operators == NULL)
		return 0;
	list = xstrdup(operators);
	for (name = strtok_r(list, ", ", &save); name != NULL && rc == 0;
	    name = strtok_r(NULL, ", ", &save))
		if (perm_gid(name, &gid) < 0)
			rc = bd_error_set(err, -ENOENT, "[daemon] %s: "
			    "no such group '%s'", key, name);
	free(list);
	return rc;
}
