/*
 * Sweeps: the last linux-next tag each sweep measured, so a restart does
 * not measure a tag twice or skip one.
 */
#include <string.h>

#include "store/store_int.h"

void
store_sweep_init(struct store_sweep *sw)
{
	memset(sw, 0, sizeof(*sw));
}

void
store_sweep_release(struct store_sweep *sw)
{
	store_free_str(sw->name);
	store_free_str(sw->last_tag);
	store_free_str(sw->state);
	store_sweep_init(sw);
}

int
store_sweep_put(struct store *s, const struct store_sweep *sw,
    struct bd_error *err)
{
	sqlite3_stmt *st;

	if (sw->name == NULL || sw->state == NULL)
		return bd_error_set(err, -EINVAL, "store: a sweep needs a name "
		    "and a state");
	st = store_stmt(s, STMT_SWEEP_PUT);
	store_bind_text(st, 1, sw->name);
	store_bind_text(st, 2, sw->last_tag);
	store_bind_text(st, 3, sw->state);
	sqlite3_bind_int64(st, 4, store_now_ms());
	return store_exec(s, st, err, "store sweep");
}

int
store_sweep_get(struct store *s, const char *name, struct store_sweep *sw,
    struct bd_error *err)
{
	sqlite3_stmt *st;
	int error;

	st = store_stmt(s, STMT_SWEEP_GET);
	store_bind_text(st, 1, name);
	if ((error = store_row(s, st, err, "sweep %s", name)) != 0)
		return error;
	store_sweep_init(sw);
	sw->name = store_col_text(st, 0);
	sw->last_tag = store_col_text(st, 1);
	sw->state = store_col_text(st, 2);
	sw->updated_ms = sqlite3_column_int64(st, 3);
	sqlite3_reset(st);
	return 0;
}
