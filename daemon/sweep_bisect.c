/*
 * A sweep's change becomes a bisection through the scheduler's typed
 * request, like an operator's; an identical one already running is linked
 * instead (sched_bisect's existing), so a hook called again after a
 * restart starts nothing twice.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/log.h"
#include "common/xmalloc.h"
#include "daemon/sched.h"
#include "daemon/sweep_bisect.h"
#include "store/store.h"

/* The row's state and result stay; only the link is added. */
struct sweep_bisect_link {
	int64_t		 row;
	int		 found;
	/* Copied out of the walk: the store's statements may not nest. */
	enum store_sweep_ref_state state;
	char		*result;
};

/* The row is copied out: the store's walks may not nest. */
static int
sweep_bisect_row(void *arg, const struct store_sweep_ref *r)
{
	struct sweep_bisect_link *l = arg;

	if (r->id != l->row)
		return 0;
	l->found = 1;
	l->state = r->state;
	l->result = r->result != NULL ? xstrdup(r->result) : NULL;
	return 0;
}

/* sched_bisect first, then the link: a restart in between links again. */
int
sweep_bisect_start(struct sched *s, struct store *st,
    const struct sweep_change *c, int64_t *bisection, struct bd_error *err)
{
	const char *good[1] = { c->prev_commit };
	struct sweep_bisect_link l = { .row = c->row };
	struct sched_request req;
	int existing = 0, rc;

	*bisection = 0;
	memset(&req, 0, sizeof(req));
	req.good = good;
	req.ngood = 1;
	req.bad = c->commit;
	req.benchmark = c->benchmark;
	req.metric = c->headline;
	req.group = c->group;
	req.priority = c->priority;
	if ((rc = sched_bisect(s, &req, bisection, &existing, err)) < 0)
		return rc;
	rc = store_sweep_ref_list(st, c->sweep, sweep_bisect_row, &l, err);
	if (rc < 0)
		goto out;
	if (!l.found) {
		rc = bd_error_set(err, -ENOENT, "sweep %s has no ref %" PRId64,
		    c->sweep, c->row);
		goto out;
	}
	rc = store_sweep_ref_set(st, c->row, l.state, l.result, *bisection,
	    err);
	if (rc == 0)
		log_info("sweep %s: %s between %s and %s, bisection %" PRId64
		    "%s", c->sweep, c->headline, c->prev_ref, c->ref,
		    *bisection, existing ? " (already running)" : "");
out:
	free(l.result);
	return rc;
}
