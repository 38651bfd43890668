#include <errno.h>
#include <grp.h>
#include <pwd.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common/xmalloc.h"
#include "daemon/perm.h"

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

/* Looked up per request: group membership may change while we run. */
int
perm_operator(const char *operators, uid_t uid)
{
	struct passwd pw, *pwp = NULL;
	char *buf, *list, *name, *save = NULL;
	gid_t groups[PERM_GROUPS_MAX], want;
	int ngroups = PERM_GROUPS_MAX, i, ok = 0;

	if (operators == NULL || *operators == '\0')
		return 1;
	buf = xmalloc(PERM_BUF);
	if (getpwuid_r(uid, &pw, buf, PERM_BUF, &pwp) != 0 || pwp == NULL ||
	    getgrouplist(pw.pw_name, pw.pw_gid, groups, &ngroups) < 0) {
		free(buf);
		return 0;
	}
	list = xstrdup(operators);
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

/* The same list walk as perm_operator, at startup and for bisectd -n. */
int
perm_check(const char *operators, struct bd_error *err)
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
			rc = bd_error_set(err, -ENOENT, "[daemon] operators: "
			    "no such group '%s'", name);
	free(list);
	return rc;
}
