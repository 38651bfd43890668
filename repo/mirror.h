/*
 * The mirror: a bare repository the daemon owns ([repo] path), kept up to
 * date with [repo] url by libgit2.  Everything here blocks and runs on the
 * thread pool (never on the loop); the caller makes sure that at most one
 * call works on a mirror at a time.
 *
 * Fetches map the heads and tags one to one, forced and pruned,
 * so a rewritten tag moves and a deleted one goes.  Objects an old id
 * needs stay reachable through refs/bisectd/keep/<id> (mirror_keep), a
 * namespace no fetch touches, so a bisection that named a rewritten tag's
 * old commit keeps working.
 *
 * Cancellation: the fetch polls *cancel in libgit2's progress callbacks
 * and stops with -ECANCELED when it is set.  A fetch killed at any moment
 * leaves a repository both libgit2 and git accept: objects arrive in a
 * temporary pack that is only renamed once indexed, and refs are updated
 * after; a stale ref lock left by a kill is removed by the next fetch.
 */
#ifndef REPO_MIRROR_H
#define REPO_MIRROR_H

#include <stddef.h>
#include <stdint.h>

#include "common/error.h"

/* Where a fetch got to; written by the worker, read under the caller's lock. */
struct mirror_progress {
	unsigned	 total_objects;
	unsigned	 received_objects;
	unsigned	 indexed_objects;
	unsigned	 total_deltas;
	unsigned	 indexed_deltas;
	uint64_t	 received_bytes;
};

/* Called from the worker thread with the latest progress. */
typedef void mirror_progress_fn(void *arg, const struct mirror_progress *p);

struct mirror_fetch_opts {
	const char	*url;
	const char	*path;		/* created (bare) when missing */
	const char	*identity;	/* ssh:// private key; NULL: agent */
	const char	*known_hosts;	/* ssh:// host keys; NULL: refuse */
	volatile int	*cancel;	/* set (any thread) to stop */
	mirror_progress_fn *progress;	/* may be NULL */
	void		*arg;
};

/* One watched ref: full name and its commit (40 hex; tags peeled). */
struct mirror_ref {
	char	*name;
	char	 id[41];
};

/*
 * Creates the mirror when it is missing and fetches into it.  -ECANCELED
 * when cancelled, -EIO (with libgit2's message) on any other failure.
 */
int	mirror_fetch(const struct mirror_fetch_opts *o, struct bd_error *err);
/*
 * The refs of the mirror at path matching one of the n fnmatch globs,
 * sorted by name, in *refsp (caller frees with mirror_refs_free).
 */
int	mirror_refs(const char *path, const char *const *globs, size_t n,
	    struct mirror_ref **refsp, size_t *nrefsp, struct bd_error *err);
void	mirror_refs_free(struct mirror_ref *refs, size_t n);
/* Keeps id's objects reachable through refs/bisectd/keep/<id>. */
int	mirror_keep(const char *path, const char *id, struct bd_error *err);
/* Whether the mirror at path has the commit named by rev (1), or not (0). */
int	mirror_has(const char *path, const char *rev);

#endif
