/*
 * Clone and fetch with libgit2, on a worker thread: see repo/mirror.h.
 */
#include <sys/stat.h>

#include <errno.h>
#include <fnmatch.h>
#include <ftw.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <git2.h>

#include "common/xmalloc.h"
#include "repo/mirror.h"
#include "repo/mirror_int.h"

/* What a mirror maps; the keep namespace is left alone, and so pruned never. */
static const char *const mirror_refspecs[] = {
	"+refs/heads/*:refs/heads/*",
	"+refs/tags/*:refs/tags/*",
};

/* libgit2's last message, or a fallback, for a user to act on. */
const char *
mirror_git_msg(void)
{
	const git_error *e = git_error_last();

	return e != NULL && e->message != NULL ? e->message : "unknown error";
}

/* Hands the worker's progress on; a set cancel flag stops the transfer. */
static int
mirror_transfer(const git_indexer_progress *st, void *payload)
{
	const struct mirror_fetch_opts *o = ((struct mirror_ssh *)payload)->o;
	struct mirror_progress p = {
		.total_objects = st->total_objects,
		.received_objects = st->received_objects,
		.indexed_objects = st->indexed_objects,
		.total_deltas = st->total_deltas,
		.indexed_deltas = st->indexed_deltas,
		.received_bytes = st->received_bytes,
	};

	if (o->progress != NULL)
		o->progress(o->arg, &p);
	return o->cancel != NULL && *o->cancel ? GIT_EUSER : 0;
}

/* The server's "counting objects" phase can be long: cancel there too. */
static int
mirror_sideband(const char *str, int len, void *payload)
{
	const struct mirror_fetch_opts *o = ((struct mirror_ssh *)payload)->o;

	(void)str;
	(void)len;
	return o->cancel != NULL && *o->cancel ? GIT_EUSER : 0;
}

/*
 * A ref lock is left only by a fetch that died (one fetch at a time, one
 * daemon per mirror): removing it lets the next fetch update the ref.
 */
static int
mirror_unlock_one(const char *fpath, const struct stat *sb, int type,
    struct FTW *ftw)
{
	size_t n = strlen(fpath);

	(void)sb;
	(void)ftw;
	if (type == FTW_F && n > 5 && strcmp(fpath + n - 5, ".lock") == 0)
		(void)unlink(fpath);
	return 0;
}

/* Removes stale ref locks under path/refs and path/packed-refs.lock. */
static void
mirror_unlock(const char *path)
{
	char *p;

	xasprintf(&p, "%s/refs", path);
	(void)nftw(p, mirror_unlock_one, 16, FTW_PHYS);
	free(p);
	xasprintf(&p, "%s/packed-refs.lock", path);
	(void)unlink(p);
	free(p);
}

/* Opens the mirror, creating a bare repository when path does not exist. */
static int
mirror_open(git_repository **rp, const char *path, struct bd_error *err)
{
	struct stat sb;

	if (stat(path, &sb) != 0) {
		if (git_repository_init(rp, path, 1) < 0)
			return bd_error_set(err, -EIO, "cannot create mirror "
			    "%s: %s", path, mirror_git_msg());
		return 0;
	}
	mirror_unlock(path);
	if (git_repository_open(rp, path) < 0)
		return bd_error_set(err, -EIO, "cannot open mirror %s: %s",
		    path, mirror_git_msg());
	return 0;
}

int
mirror_fetch(const struct mirror_fetch_opts *o, struct bd_error *err)
{
	git_fetch_options fo;
	git_strarray specs = { (char **)mirror_refspecs,
	    sizeof(mirror_refspecs) / sizeof(mirror_refspecs[0]) };
	git_repository *repo = NULL;
	git_remote *remote = NULL;
	struct mirror_ssh ssh = { .o = o };
	int rc;

	git_fetch_options_init(&fo, GIT_FETCH_OPTIONS_VERSION);
	if ((rc = mirror_open(&repo, o->path, err)) < 0)
		return rc;
	if (git_remote_create_anonymous(&remote, repo, o->url) < 0) {
		rc = bd_error_set(err, -EINVAL, "bad url %s: %s", o->url,
		    mirror_git_msg());
		goto out;
	}
	fo.prune = GIT_FETCH_PRUNE;
	fo.download_tags = GIT_REMOTE_DOWNLOAD_TAGS_NONE;
	fo.update_fetchhead = 0;
	fo.callbacks.transfer_progress = mirror_transfer;
	fo.callbacks.sideband_progress = mirror_sideband;
	fo.callbacks.credentials = mirror_ssh_credentials;
	fo.callbacks.certificate_check = mirror_ssh_certificate;
	fo.callbacks.payload = &ssh;
	ssh.url = o->url;
	rc = git_remote_fetch(remote, &specs, &fo, "bisectd fetch");
	if (rc == GIT_EUSER || (o->cancel != NULL && *o->cancel))
		rc = bd_error_set(err, -ECANCELED, "fetch from %s cancelled",
		    o->url);
	else if (rc < 0)
		rc = bd_error_set(err, ssh.refused ? -EPERM : -EIO,
		    "fetch from %s: %s", o->url,
		    ssh.refused ? ssh.why : mirror_git_msg());
out:
	git_remote_free(remote);
	git_repository_free(repo);
	return rc;
}

/* Orders refs by name, so snapshots compare by merging. */
static int
mirror_ref_cmp(const void *a, const void *b)
{
	return strcmp(((const struct mirror_ref *)a)->name,
	    ((const struct mirror_ref *)b)->name);
}

/* Whether name matches one of the globs. */
static int
mirror_watched(const char *name, const char *const *globs, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (fnmatch(globs[i], name, 0) == 0)
			return 1;
	return 0;
}

int
mirror_refs(const char *path, const char *const *globs, size_t n,
    struct mirror_ref **refsp, size_t *nrefsp, struct bd_error *err)
{
	git_repository *repo = NULL;
	git_reference_iterator *it = NULL;
	git_reference *ref;
	git_object *commit;
	struct mirror_ref *refs = NULL;
	size_t nrefs = 0, cap = 0;
	int rc = 0;

	*refsp = NULL;
	*nrefsp = 0;
	if (git_repository_open_bare(&repo, path) < 0 &&
	    git_repository_open(&repo, path) < 0)
		return bd_error_set(err, -ENOENT, "cannot open mirror %s: %s",
		    path, mirror_git_msg());
	if (git_reference_iterator_new(&it, repo) < 0) {
		rc = bd_error_set(err, -EIO, "mirror %s: %s", path,
		    mirror_git_msg());
		goto out;
	}
	while (git_reference_next(&ref, it) == 0) {
		/* An annotated tag counts as its commit, as bisections do. */
		if (!mirror_watched(git_reference_name(ref), globs, n) ||
		    git_reference_peel(&commit, ref, GIT_OBJECT_COMMIT) < 0) {
			git_reference_free(ref);
			continue;
		}
		if (nrefs == cap) {
			cap = cap ? cap * 2 : 16;
			refs = xreallocarray(refs, cap, sizeof(*refs));
		}
		refs[nrefs].name = xstrdup(git_reference_name(ref));
		git_oid_tostr(refs[nrefs].id, sizeof(refs[nrefs].id),
		    git_object_id(commit));
		nrefs++;
		git_object_free(commit);
		git_reference_free(ref);
	}
	if (nrefs > 0)
		qsort(refs, nrefs, sizeof(*refs), mirror_ref_cmp);
	*refsp = refs;
	*nrefsp = nrefs;
out:
	git_reference_iterator_free(it);
	git_repository_free(repo);
	return rc;
}

void
mirror_refs_free(struct mirror_ref *refs, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		free(refs[i].name);
	free(refs);
}

int
mirror_keep(const char *path, const char *id, struct bd_error *err)
{
	git_repository *repo = NULL;
	git_reference *ref = NULL;
	git_oid oid;
	char name[64 + GIT_OID_HEXSZ];
	int rc = 0;

	if (git_oid_fromstr(&oid, id) < 0)
		return bd_error_set(err, -EINVAL, "not an object id: %s", id);
	if (git_repository_open(&repo, path) < 0)
		return bd_error_set(err, -ENOENT, "cannot open mirror %s: %s",
		    path, mirror_git_msg());
	snprintf(name, sizeof(name), "refs/bisectd/keep/%s", id);
	if (git_reference_create(&ref, repo, name, &oid, 1,
	    "bisectd: keep an old id") < 0)
		rc = bd_error_set(err, -EIO, "mirror %s: %s: %s", path, name,
		    mirror_git_msg());
	git_reference_free(ref);
	git_repository_free(repo);
	return rc;
}

int
mirror_has(const char *path, const char *rev)
{
	git_repository *repo = NULL;
	git_object *obj = NULL, *commit = NULL;
	int found;

	if (git_repository_open(&repo, path) < 0)
		return 0;
	found = git_revparse_single(&obj, repo, rev) == 0 &&
	    git_object_peel(&commit, obj, GIT_OBJECT_COMMIT) == 0;
	git_object_free(commit);
	git_object_free(obj);
	git_repository_free(repo);
	return found;
}
