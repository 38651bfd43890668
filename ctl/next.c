/* SPDX-License-Identifier: MIT */
/*
 * `bisectctl next`: one bisection step without a daemon, for users and
 * tests.  It prints what `git bisect` would do next with the given
 * revisions: the commit to test, a merge base to test first, the first
 * bad commit, or the candidates left when only skipped commits remain.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <git2.h>

#include "repo/next.h"
#include "repo/rev.h"
#include "common/xmalloc.h"
#include "ctl/next.h"

#define NEXT_EXIT_ERROR	1	/* the repository or revisions are wrong */
#define NEXT_EXIT_USAGE	2	/* the command line is wrong */

struct next_args {
	const char	*repo;
	const char	*bad;
	const char	**good;
	size_t		 ngood;
	const char	**skip;
	size_t		 nskip;
	unsigned	 flags;
};

/* --good and --skip may repeat. */
static void
add_rev(const char ***v, size_t *n, const char *rev)
{
	*v = xreallocarray(*v, *n + 1, sizeof(**v));
	(*v)[(*n)++] = rev;
}

/* Option setters, one per entry of the table below. */
static void
opt_repo(struct next_args *a, const char *v)
{
	a->repo = v;
}

static void
opt_bad(struct next_args *a, const char *v)
{
	a->bad = v;
}

static void
opt_good(struct next_args *a, const char *v)
{
	add_rev(&a->good, &a->ngood, v);
}

static void
opt_skip(struct next_args *a, const char *v)
{
	add_rev(&a->skip, &a->nskip, v);
}

static void
opt_fp(struct next_args *a, const char *v)
{
	(void)v;
	a->flags |= REPO_GRAPH_FIRST_PARENT;
}

static const struct next_opt {
	const char	*name;
	int		 has_arg;
	void		(*set)(struct next_args *, const char *);
} next_opts[] = {
	{ "--repo", 1, opt_repo },
	{ "--bad", 1, opt_bad },
	{ "--good", 1, opt_good },
	{ "--skip", 1, opt_skip },
	{ "--first-parent", 0, opt_fp },
};

/* Usage errors exit 2, distinct from repository errors. */
static int
usage(const char *why)
{
	fprintf(stderr, "bisectctl next: %s\n"
	    "usage: bisectctl next --repo DIR --bad REV --good REV "
	    "[--good REV ...] [--skip REV ...] [--first-parent]\n", why);
	return NEXT_EXIT_USAGE;
}

/* Table-driven parsing; "--opt=value" and "--opt value" both work. */
static int
parse_args(int argc, char **argv, struct next_args *a)
{
	const struct next_opt *o;
	const char *arg, *val;
	size_t i, len;
	int k;

	for (k = 1; k < argc; k++) {
		arg = argv[k];
		o = NULL;
		for (i = 0; i < sizeof(next_opts) / sizeof(*next_opts); i++) {
			len = strlen(next_opts[i].name);
			if (strncmp(arg, next_opts[i].name, len) == 0 &&
			    (arg[len] == '\0' || (arg[len] == '=' &&
			    next_opts[i].has_arg))) {
				o = &next_opts[i];
				break;
			}
		}
		if (o == NULL) {
			fprintf(stderr, "bisectctl next: unknown option '%s'\n",
			    arg);
			return -1;
		}
		val = NULL;
		if (o->has_arg) {
			len = strlen(o->name);
			if (arg[len] == '=')
				val = arg + len + 1;
			else if (k + 1 < argc)
				val = argv[++k];
			else {
				fprintf(stderr, "bisectctl next: %s needs a "
				    "value\n", o->name);
				return -1;
			}
		}
		o->set(a, val);
	}
	return 0;
}

/* Every revision must resolve before any work is done. */
static int
resolve_all(git_repository *repo, const char **revs, size_t n, git_oid *out,
    struct bd_error *err)
{
	size_t i;
	int rc;

	for (i = 0; i < n; i++)
		if ((rc = repo_rev_resolve(repo, revs[i], &out[i], err)) != 0)
			return rc;
	return 0;
}

/* git's wording, so that users recognise every outcome. */
static void
next_print(const struct repo_revs *revs, const struct repo_next *nx)
{
	char hex[GIT_OID_HEXSZ + 1], bad[GIT_OID_HEXSZ + 1];
	size_t i;

	git_oid_tostr(bad, sizeof(bad), &revs->bad);
	for (i = 0; i < nx->nskipped_mb; i++) {
		git_oid_tostr(hex, sizeof(hex), &nx->skipped_mb[i]);
		fprintf(stderr, "warning: the merge base %s of %s and the good "
		    "revisions must be skipped, so we cannot be sure the first "
		    "bad commit is between %s and %s; we continue anyway\n",
		    hex, bad, hex, bad);
	}
	git_oid_tostr(hex, sizeof(hex), &nx->commit);
	switch (nx->kind) {
	case REPO_NEXT_TEST:
		printf("%s\nBisecting: %zu revision%s left to test after this "
		    "(roughly %d step%s)\n", hex, nx->left,
		    nx->left == 1 ? "" : "s", nx->steps,
		    nx->steps == 1 ? "" : "s");
		break;
	case REPO_NEXT_TEST_MERGE_BASE:
		printf("%s\nBisecting: a merge base must be tested\n", hex);
		break;
	case REPO_NEXT_FOUND:
		printf("first bad commit: %s\n", hex);
		break;
	case REPO_NEXT_ONLY_SKIPPED:
		printf("only skipped commits left: the first bad commit could "
		    "be any of:\n");
		for (i = 0; i < nx->ncands; i++) {
			git_oid_tostr(hex, sizeof(hex), &nx->cands[i]);
			printf("%s\n", hex);
		}
		break;
	}
}

/* Resolves the revisions, runs one step and prints it. */
static int
next_run(const struct next_args *a)
{
	git_repository *repo = NULL;
	struct repo_revs revs;
	struct repo_next nx;
	struct bd_error err;
	git_oid *good, *skip;
	int rc = NEXT_EXIT_ERROR;

	bd_error_clear(&err);
	memset(&revs, 0, sizeof(revs));
	good = xcalloc(a->ngood + 1, sizeof(git_oid));
	skip = xcalloc(a->nskip + 1, sizeof(git_oid));
	if (git_repository_open_ext(&repo, a->repo,
	    GIT_REPOSITORY_OPEN_NO_SEARCH, NULL) != 0) {
		fprintf(stderr, "bisectctl next: cannot open repository '%s': "
		    "%s\n", a->repo, git_error_last() != NULL ?
		    git_error_last()->message : "unknown error");
		goto out;
	}
	if (repo_rev_resolve(repo, a->bad, &revs.bad, &err) != 0 ||
	    resolve_all(repo, a->good, a->ngood, good, &err) != 0 ||
	    resolve_all(repo, a->skip, a->nskip, skip, &err) != 0)
		goto fail;
	revs.good = good;
	revs.ngood = a->ngood;
	revs.skip = skip;
	revs.nskip = a->nskip;
	revs.flags = a->flags;
	if (repo_next(repo, &revs, &nx, &err) != 0)
		goto fail;
	next_print(&revs, &nx);
	repo_next_release(&nx);
	rc = 0;
	goto out;
fail:
	fprintf(stderr, "bisectctl next: %s\n", err.msg);
out:
	git_repository_free(repo);
	free(good);
	free(skip);
	return rc;
}

/* libgit2 is initialised here: bisectctl's other commands do not need it. */
int
next_main(int argc, char **argv)
{
	struct next_args a;
	int rc;

	memset(&a, 0, sizeof(a));
	if (parse_args(argc, argv, &a) != 0)
		rc = usage("bad arguments");
	else if (a.repo == NULL || a.bad == NULL || a.ngood == 0)
		rc = usage("--repo, --bad and at least one --good are needed");
	else {
		git_libgit2_init();
		rc = next_run(&a);
		fflush(stdout);
		git_libgit2_shutdown();
	}
	free(a.good);
	free(a.skip);
	return rc;
}
