/* SPDX-License-Identifier: MIT */
/*
 * When a sweep runs: the daily time, the `--now` word kept in the sweeps
 * row, which pending rows are due, the rows a daily sweep skips, and the
 * words `sweeps` shows for the next run.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "common/log.h"
#include "common/xmalloc.h"
#include "config/config.h"
#include "sweep/sweep_int.h"
#include "store/store.h"

#define DAY_MS		(24 * 3600 * (int64_t)1000)

/* A pending row that a daily sweep passed over carries why in result. */
int
sweeper_row_skipped(const struct store_sweep_ref *r)
{
	return r->state == STORE_SWEEP_PENDING && r->result != NULL;
}

/* What `sweep NAME` shows: skipped rows are pending in the store. */
const char *
sweeper_row_state(const struct store_sweep_ref *r)
{
	return sweeper_row_skipped(r) ? "skipped" :
	    store_sweep_ref_state_name(r->state);
}

/* Days are UTC days; a time exactly now counts as passed. */
void
sweeper_daily_due(unsigned minute, int64_t now_ms, int64_t *last,
    int64_t *next)
{
	int64_t day = now_ms - (now_ms % DAY_MS + DAY_MS) % DAY_MS;
	int64_t at = day + (int64_t)minute * 60 * 1000;

	if (at > now_ms)
		at -= DAY_MS;
	*last = at;
	*next = at + DAY_MS;
}

/* Whether the sweep's row state says `sweep NAME --now` is waiting. */
int
sweeper_now_pending(struct sweeper *sw, const char *name)
{
	struct store_sweep st;
	struct bd_error err;
	int asked;

	if (store_sweep_get(sw->env.store, name, &st, &err) < 0)
		return 0;
	asked = st.state != NULL && strcmp(st.state, SWEEPER_NOW) == 0;
	store_sweep_release(&st);
	return asked;
}

/* The sweeps row's state word, its last tag kept. */
void
sweeper_set_word(struct sweeper *sw, const char *name, const char *word)
{
	struct store_sweep st;
	struct bd_error err;

	if (store_sweep_get(sw->env.store, name, &st, &err) < 0)
		return;
	free((char *)st.state);
	st.state = xstrdup(word);
	if (store_sweep_put(sw->env.store, &st, &err) < 0)
		log_warnx("sweep %s: %s", name, err.msg);
	store_sweep_release(&st);
}

/* Daily rows wait for the first daily time after they appeared. */
int
sweeper_row_due(const struct config_sweep *w, int64_t now_ms, int now_asked,
    int64_t created_ms)
{
	int64_t last, next;

	if (w->schedule.kind != CONFIG_SCHEDULE_DAILY || now_asked)
		return 1;
	sweeper_daily_due(w->schedule.minute, now_ms, &last, &next);
	return created_ms <= last;
}

/* Renders a wall time for `sweeps`. */
static void
sweep_fmt_time(int64_t ms, char *buf, size_t len)
{
	time_t t = (time_t)(ms / 1000);
	struct tm tm;

	gmtime_r(&t, &tm);
	strftime(buf, len, "%Y-%m-%d %H:%M UTC", &tm);
}

/* `sweeps` shows a time operators can read, and its ms for programs. */
json_t *
sweeper_next(struct sweeper *sw, const struct config_sweep *w,
    unsigned pending, unsigned eligible, int64_t *next_ms)
{
	char when[32];
	int64_t last, next;

	*next_ms = 0;
	if (w->schedule.kind != CONFIG_SCHEDULE_DAILY)
		return json_string(pending > 0 ? "now" :
		    "at the next matching ref");
	if (eligible > 0 || sweeper_now_pending(sw, w->name))
		return json_string("now");
	sweeper_daily_due(w->schedule.minute, sw->env.now_ms(), &last, &next);
	*next_ms = next;
	sweep_fmt_time(next, when, sizeof(when));
	return json_string(when);
}

/*
 * Marks the pending rows a daily sweep passes over: the older ones that
 * were due with a newer one.
 */
void
sweeper_skip(struct sweeper *sw, const struct config_sweep *w,
    const struct store_sweep_ref *r, const char *by)
{
	struct bd_error err;
	json_t *o = json_pack("{s:s, s:s}", "skipped", "superseded", "by", by);
	char *text = json_dumps(o, JSON_COMPACT);

	json_decref(o);
	if (store_sweep_ref_set(sw->env.store, r->id, STORE_SWEEP_PENDING,
	    text, 0, &err) < 0)
		log_warnx("sweep %s: %s", w->name, err.msg);
	else
		log_info("sweep %s: %s skipped: %s is newer", w->name, r->ref,
		    by);
	free(text);
}

/* `sweep NAME --now` on a daily sweep: the newest due row goes now. */
void
sweeper_now_asked(struct sweeper *sw, const struct config_sweep *w)
{
	if (w->schedule.kind == CONFIG_SCHEDULE_DAILY)
		sweeper_set_word(sw, w->name, SWEEPER_NOW);
	sweeper_kick(sw);
}
