/* SPDX-License-Identifier: MIT */
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
 * Cancellation does not wait for the upstream: every connection of a
 * fetch (git://, http(s)://, ssh://) goes through the mirror's own socket
 * stream (mirror_net.c), which gives up after MIRROR_CONNECT_MS connecting
 * or MIRROR_IDLE_MS without a byte either way, and which mirror_cancel()
 * cuts from any thread; libgit2's progress callbacks also poll *cancel.
 * The fetch then ends with -ECANCELED.  A fetch killed at any moment
 * leaves a repository both libgit2 and git accept: objects arrive in a
 * temporary pack that is only renamed once indexed, and refs are updated
 * after; a stale ref lock and the half-written temporary packs left by a
 * kill are removed by the next fetch.
 *
 * Ref names: a ref libgit2 cannot store (a name of 1 KiB or more, say) is
 * skipped, named to the skip callback, and the rest are fetched.  A url's
 * user-info never appears in an error: messages carry mirror_url_shown().
 */
#ifndef REPO_MIRROR_H
#define REPO_MIRROR_H

#include <stddef.h>
#include <stdint.h>

#include <jansson.h>

#include "common/error.h"

/* Giving up on a connection: no connect, or no byte either way, so long. */
#define MIRROR_CONNECT_MS	(60 * 1000)
#define MIRROR_IDLE_MS		(10 * 60 * 1000)

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
/* Called from the worker thread with a ref left out, and why. */
typedef void mirror_skip_fn(void *arg, const char *ref, const char *why);

struct mirror_fetch_opts {
	const char	*url;
	const char	*path;		/* created (bare) when missing */
	const char	*identity;	/* ssh:// private key; NULL: agent */
	const char	*known_hosts;	/* ssh:// host keys; NULL: refuse */
	volatile int	*cancel;	/* mirror_cancel() it to stop */
	mirror_progress_fn *progress;	/* may be NULL */
	mirror_skip_fn	*skip;		/* may be NULL */
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
 * Stops the fetch whose opts.cancel is cancel, from any thread: sets the
 * flag and shuts down its sockets, so a blocked read returns at once.
 */
void	mirror_cancel(volatile int *cancel);
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

/* url without its user-info: "http://u:pw@h/x" gives "http://h/x". */
char	*mirror_url_shown(const char *url);
/*
 * Removes url's user-info from msg (edited in place; it never grows):
 * "u:pw@" wherever it appears, then the password alone, as written and
 * percent-decoded (as "***" when longer than three bytes), until none of
 * the three is left.
 */
void	 mirror_url_scrub(char *msg, const char *url);
/*
 * A ref name as valid UTF-8 (caller frees): a byte that starts no valid
 * character, and a backslash (which no ref name holds), shown as \xNN.
 * mirror_ref_json gives it as a JSON string (a new reference).
 */
char	*mirror_ref_shown(const char *name);
json_t	*mirror_ref_json(const char *name);
/* 0 when libgit2 can store a ref by this name; else why not, in err. */
int	 mirror_ref_storable(const char *name, struct bd_error *err);

#endif
