/* Shared between the sweep module's files; not for other modules. */
#ifndef DAEMON_SWEEP_INT_H
#define DAEMON_SWEEP_INT_H

#include <stdint.h>

#include <uv.h>

#include "daemon/sweep.h"

struct config_sweep;
struct store_sweep_ref;

/* The row a sweep samples now, and its runs on the fleet. */
struct sweep_cur {
	char		*name;
	int64_t		 row;		/* 0: none */
	unsigned	 inflight;
};

struct sweeper {
	struct sweeper_env	 env;
	uv_timer_t		 timer;		/* a work pass, or the daily time */
	int			 timer_ready;
	int			 stopping;
	int			 recovered;	/* links checked since the start */
	struct sweep_cur	*cur;
	size_t			 ncur;
};

const struct config *sweeper_config(struct sweeper *sw);
/* The state a row shows: its stored one, or "skipped" (see sweep.h). */
const char *sweeper_row_state(const struct store_sweep_ref *r);
int	sweeper_row_skipped(const struct store_sweep_ref *r);
/* The words and time (ms, 0: none) for when the sweep runs next. */
json_t	*sweeper_next(struct sweeper *sw, const struct config_sweep *w,
	    unsigned pending, unsigned eligible, int64_t *next_ms);
/* Whether `sweep NAME --now` waits for the worker (the store says). */
int	sweeper_now_pending(struct sweeper *sw, const char *name);
/* Whether a pending row created at created_ms may be swept now. */
int	sweeper_row_due(const struct config_sweep *w, int now_asked,
	    int64_t created_ms);
/* The sweeps row's state words (store_sweep's state). */
#define SWEEPER_NOW		"now"	/* `--now` waits for the worker */
#define SWEEPER_WATCHING	"watching"

/* sweep_schedule.c.  Times are wall times (daemon_now_ms), as created_ms. */
void	sweeper_set_word(struct sweeper *sw, const char *name,
	    const char *word);
/* Marks pending row r of w skipped: by, a newer ref, was swept instead. */
void	sweeper_skip(struct sweeper *sw, const struct config_sweep *w,
	    const struct store_sweep_ref *r, const char *by);
/* `sweep NAME --now` was asked: a daily sweep's newest row goes now. */
void	sweeper_now_asked(struct sweeper *sw, const struct config_sweep *w);

#endif
