/*
 * The bisection service: active bisections, the host pool and the job
 * queue, and the loop that turns the engines' probes into runs on free
 * hosts and stored samples back into engine events.
 *
 * Every state change reaches the store before it is acted on: a run row
 * exists before its job is submitted, a result is stored (with its samples,
 * in one transaction) before the engine sees it, and a verdict is stored
 * before the report is handed to the hook.  After a restart, running runs
 * go back to queued and are submitted again.
 *
 * struct sched is owned by struct daemon; bisections by the scheduler.
 */
#ifndef DAEMON_SCHED_H
#define DAEMON_SCHED_H

#include <sys/types.h>
#include <stdint.h>

#include <git2.h>
#include <jansson.h>

#include "common/error.h"

struct daemon;
struct sched;
struct bisection;
struct pool;

int	sched_new(struct daemon *d, struct sched **out, struct bd_error *err);
/* Shutdown: stops remote work without recording it (it reruns later). */
void	sched_stop(struct sched *s);
void	sched_free(struct sched *s);

/*
 * Validates a bisect request (revisions, benchmark, metric, group) and
 * records it; *existing is set when an identical bisection already runs,
 * whose id is returned.  Errors: -EINVAL (bad request, err says which
 * field), -ENOENT (unknown revision or name).
 */
int	sched_bisect(struct sched *s, const json_t *req, uid_t uid,
	    int64_t *idp, int *existing, struct bd_error *err);
/* An active or finished bisection by id (loaded on demand), or NULL. */
struct bisection *sched_find(struct sched *s, int64_t id,
	    struct bd_error *err);
/* Stops a bisection's remote work and marks it cancelled. */
int	sched_cancel(struct sched *s, int64_t id, struct bd_error *err);
/* Runs engine decisions now (coalesced on the loop). */
void	sched_kick(struct sched *s);

unsigned	 sched_group_test_hosts(struct sched *s, const char *group);
struct pool	*sched_pool(struct sched *s);
git_repository	*sched_repo(struct sched *s);
/* {"bisection","run","commit"} of the work on host, or NULL. */
json_t		*sched_host_current(struct sched *s, const char *host);

#endif
