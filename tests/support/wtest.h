/* SPDX-License-Identifier: MIT */
/*
 * The mirror tests' fixture (tests/integration/watch*_test.c): a
 * linux-next-like upstream (tests/fixtures/watch/upstream.sh) served by
 * `git daemon` on a free 127.0.0.1 port, and the real bisectd mirroring
 * it.  One fixture per test worker (the global wt); wt_fini releases all
 * of it and is the suites' .fini.
 */
#ifndef TESTS_SUPPORT_WTEST_H
#define TESTS_SUPPORT_WTEST_H

#include <sys/types.h>

#include <jansson.h>

#include "tests/support/daemon.h"

#define WT_WAIT_MS	(120 * 1000)	/* a guard against hangs only */

struct wtest {
	char		*dir;		/* temp dir: work/, srv/, mirror */
	char		*mirror;	/* dir/mirror.git, the daemon's path */
	pid_t		 gitd;		/* git daemon, 0 when not running */
	int		 port;
	struct tst_daemon td;
	int		 td_ready;
};

extern struct wtest wt;

void	 wt_fini(void);
/* The temp dir, the upstream (init) and git daemon. */
void	 wt_setup(const char *tag);
/* Runs upstream.sh OP DIR [ARGS...]; its last line (a sha), caller frees. */
char	*wt_up(const char *op, const char *a1, const char *a2, const char *a3);
/* The git:// url of the fixture's upstream (or of name), caller frees. */
char	*wt_url(const char *name);
/* Writes the config with this [repo] body and starts the daemon. */
void	 wt_start(const char *repo_keys);
/* One request, the parsed reply (caller decrefs). */
json_t	*wt_req(const char *line);
/* Polls `repo` until ref has id (NULL: is absent); the last state. */
json_t	*wt_wait_ref(const char *ref, const char *id);
/* Polls `repo` until a fetch has ended with ok as given; the state. */
json_t	*wt_wait_fetch(int ok);
/* The id the `repo` state gives ref, or NULL. */
const char *wt_ref_id(const json_t *repo, const char *ref);
/* How many stored events have ref, change and new id (NULL: any). */
int	 wt_count_events(const char *ref, const char *change, const char *id);
/* Runs git with up to 8 arguments; the exit status. */
int	 wt_git(const char *a1, const char *a2, const char *a3,
	    const char *a4, const char *a5);

#endif
