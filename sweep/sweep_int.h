/* SPDX-License-Identifier: MIT */
/* Shared between the sweep module's files; not for other modules. */
#ifndef SWEEP_SWEEP_INT_H
#define SWEEP_SWEEP_INT_H

#include <stdint.h>

#include <uv.h>

#include "sweep/sweep.h"

#include <jansson.h>

#include "common/error.h"

struct config_sweep;
struct store_sweep_ref;

/*
 * The row a sweep samples now, and its runs on the fleet.  While its
 * judgement revisits an earlier row, the runs go to that row, up to
 * revisit_to of them.
 */
struct sweep_cur {
	char		*name;
	int64_t		 row;		/* 0: none */
	unsigned	 inflight;
	int64_t		 revisit;	/* 0: none */
	unsigned	 revisit_to;
	unsigned	 revisits;	/* of the row's judgement so far */
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
int	sweeper_row_due(const struct config_sweep *w, int64_t now_ms,
	    int now_asked,
	    int64_t created_ms);
/* The sweeps row's state words (store_sweep's state). */
#define SWEEPER_NOW		"now"	/* `--now` waits for the worker */
#define SWEEPER_WATCHING	"watching"

/* sweep_found.c: copies of a sweep's rows, oldest first. */
struct sweep_rows {
	struct store_sweep_ref	*r;
	size_t			 n;
};
int	sweep_rows_load(struct sweeper *sw, const char *name,
	    struct sweep_rows *rows, struct bd_error *err);
void	sweep_rows_free(struct sweep_rows *rows);
/* One row of the copies by id, NULL when it is gone. */
const struct store_sweep_ref *sweep_rows_find(const struct sweep_rows *rows,
	    int64_t id);
/* Row id was just compared with result res: logged, a change bisected. */
void	sweep_found_compared(struct sweeper *sw, const struct config_sweep *w,
	    int64_t id, const json_t *res);
/* Compared row r's change (res) starts or joins its bisection. */
void	sweep_found_changed(struct sweeper *sw, const struct config_sweep *w,
	    const struct sweep_rows *rows, const struct store_sweep_ref *r,
	    const json_t *res);
/* Once per start: changes whose bisection was never linked. */
void	sweep_found_recover(struct sweeper *sw, const struct config_sweep *w,
	    const struct sweep_rows *rows);

/* sweep_schedule.c.  Times are wall times (daemon_now_ms), as created_ms. */
void	sweeper_set_word(struct sweeper *sw, const char *name,
	    const char *word);
/* Marks pending row r of w skipped: by, a newer ref, was swept instead. */
void	sweeper_skip(struct sweeper *sw, const struct config_sweep *w,
	    const struct store_sweep_ref *r, const char *by);
/* `sweep NAME --now` was asked: a daily sweep's newest row goes now. */
void	sweeper_now_asked(struct sweeper *sw, const struct config_sweep *w);

#endif
