/* SPDX-License-Identifier: MIT */
/*
 * Clone and fetch with libgit2, on a worker thread: see repo/mirror.h.
 */
#include <sys/stat.h>

#include <errno.h>
#include <fnmatch.h>
#include <ftw.h>
#include <glob.h>
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

/*
 * Removes the temporary packs a killed fetch left: libgit2's indexer
 * writes objects/pack/pack_git2_*, git's tmp_pack_* and tmp_idx_*; none
 * is ever renamed once its writer is gone, and one can hold gigabytes.
 */
static void
mirror_unpack(const char *path)
{
	static const char *const pats[] = {
		"pack_git2_*", "tmp_pack_*", "tmp_idx_*",
	};
	glob_t g;
	char *pat;
	size_t i, k;

	for (i = 0; i < sizeof(pats) / sizeof(pats[0]); i++) {
		xasprintf(&pat, "%s/objects/pack/%s", path, pats[i]);
		if (glob(pat, GLOB_NOSORT, NULL, &g) == 0) {
			for (k = 0; k < g.gl_pathc; k++)
				(void)unlink(g.gl_pathv[k]);
			globfree(&g);
		}
		free(pat);
	}
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
	mirror_unpack(path);
	if (git_repository_open(rp, path) < 0)
		return bd_error_set(err, -EIO, "cannot open mirror %s: %s",
		    path, mirror_git_msg());
	return 0;
}

/* Orders names, for the search of the upstream's refs. */
static int
mirror_name_cmp(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* The refs a fetch takes: the upstream's heads and tags libgit2 can store. */
struct mirror_want {
	char	**names;	/* borrowed from git_remote_ls, sorted */
	size_t	  n;
	size_t	  skipped;
};

/* Sorts the upstream's heads and tags out; the skip callback hears why. */
static int
mirror_list(git_remote *remote, const struct mirror_fetch_opts *o,
    struct mirror_want *w)
{
	const git_remote_head **heads;
	struct bd_error why;
	const char *name;
	size_t n, i, len;

	if (git_remote_ls(&heads, &n, remote) < 0)
		return -1;
	w->names = xcalloc(n + 1, sizeof(*w->names));
	for (i = 0; i < n; i++) {
		name = heads[i]->name;
		len = strlen(name);
		if ((strncmp(name, "refs/heads/", 11) != 0 &&
		    strncmp(name, "refs/tags/", 10) != 0) ||
		    (len > 3 && strcmp(name + len - 3, "^{}") == 0))
			continue;
		if (mirror_ref_storable(name, &why) < 0) {
			w->skipped++;
			if (o->skip != NULL)
				o->skip(o->arg, name, why.msg);
			continue;
		}
		w->names[w->n++] = (char *)name;
	}
	qsort(w->names, w->n, sizeof(*w->names), mirror_name_cmp);
	return 0;
}

/*
 * The heads and tags the upstream no longer has go, as a pruned fetch
 * would; the keep namespace and anything else is left alone.
 */
static int
mirror_prune(git_repository *repo, const struct mirror_want *w)
{
	git_reference_iterator *it = NULL;
	git_reference *ref;
	const char *name;
	int rc = 0;

	if (git_reference_iterator_new(&it, repo) < 0)
		return -1;
	while (rc == 0 && git_reference_next(&ref, it) == 0) {
		name = git_reference_name(ref);
		if ((strncmp(name, "refs/heads/", 11) == 0 ||
		    strncmp(name, "refs/tags/", 10) == 0) &&
		    bsearch(&name, w->names, w->n, sizeof(*w->names),
		    mirror_name_cmp) == NULL)
			rc = git_reference_delete(ref);
		git_reference_free(ref);
	}
	git_reference_iterator_free(it);
	return rc;
}

/*
 * Connects, lists the upstream's refs, fetches the storable ones and
 * prunes.  With nothing skipped the refspecs are the two globs; else one
 * refspec per ref, since libgit2 1.5 stops the whole fetch at the first
 * ref it cannot store.
 */
static int
mirror_transfer_refs(git_repository *repo, git_remote *remote,
    const struct mirror_fetch_opts *o, git_fetch_options *fo)
{
	git_strarray specs = { (char **)mirror_refspecs,
	    sizeof(mirror_refspecs) / sizeof(mirror_refspecs[0]) };
	struct mirror_want w = { NULL, 0, 0 };
	size_t i;
	int rc;

	if ((rc = git_remote_connect(remote, GIT_DIRECTION_FETCH,
	    &fo->callbacks, NULL, NULL)) < 0 ||
	    (rc = mirror_list(remote, o, &w)) < 0)
		goto out;
	if (w.skipped > 0) {
		specs.count = w.n;
		specs.strings = xcalloc(w.n + 1, sizeof(char *));
		for (i = 0; i < w.n; i++)
			xasprintf(&specs.strings[i], "+%s:%s", w.names[i],
			    w.names[i]);
	}
	if (w.n > 0 && ((rc = git_remote_download(remote, &specs, fo)) < 0 ||
	    (rc = git_remote_update_tips(remote, &fo->callbacks, 0,
	    GIT_REMOTE_DOWNLOAD_TAGS_NONE, "bisectd fetch")) < 0))
		goto out;
	rc = mirror_prune(repo, &w);
out:
	if (specs.strings != (char **)mirror_refspecs) {
		for (i = 0; i < specs.count; i++)
			free(specs.strings[i]);
		free(specs.strings);
	}
	free(w.names);
	(void)git_remote_disconnect(remote);
	return rc;
}

int
mirror_fetch(const struct mirror_fetch_opts *o, struct bd_error *err)
{
	git_fetch_options fo;
	git_remote_create_options ro;
	git_repository *repo = NULL;
	git_remote *remote = NULL;
	struct mirror_ssh ssh = { .o = o };
	char *shown = mirror_url_shown(o->url);
	int rc;

	mirror_net_register();
	mirror_net_begin(o->cancel);
	git_fetch_options_init(&fo, GIT_FETCH_OPTIONS_VERSION);
	if ((rc = mirror_open(&repo, o->path, err)) < 0)
		goto out;
	/*
	 * The URL as configured, never rewritten by an insteadOf of the
	 * user's git config; and libgit2 1.5 leaks a pcre2 match (some
	 * 20 KiB) for every config entry its insteadOf lookup does not
	 * match, on every fetch.
	 */
	git_remote_create_options_init(&ro, GIT_REMOTE_CREATE_OPTIONS_VERSION);
	ro.repository = repo;
	ro.flags = GIT_REMOTE_CREATE_SKIP_INSTEADOF;
	if (git_remote_create_with_opts(&remote, o->url, &ro) < 0) {
		rc = bd_error_set(err, -EINVAL, "bad url %s: %s", shown,
		    mirror_git_msg());
		goto out;
	}
	fo.update_fetchhead = 0;
	fo.callbacks.transfer_progress = mirror_transfer;
	fo.callbacks.sideband_progress = mirror_sideband;
	fo.callbacks.credentials = mirror_ssh_credentials;
	fo.callbacks.certificate_check = mirror_ssh_certificate;
	fo.callbacks.payload = &ssh;
	ssh.url = o->url;
	rc = mirror_transfer_refs(repo, remote, o, &fo);
	if (rc == GIT_EUSER || (o->cancel != NULL && *o->cancel))
		rc = bd_error_set(err, -ECANCELED, "fetch from %s cancelled",
		    shown);
	else if (rc < 0)
		rc = bd_error_set(err, ssh.refused ? -EPERM : -EIO,
		    "fetch from %s: %s", shown,
		    ssh.refused ? ssh.why : mirror_git_msg());
out:
	if (rc < 0)
		mirror_url_scrub(err->msg, o->url);
	mirror_net_begin(NULL);
	free(shown);
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
