/* SPDX-License-Identifier: MIT */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/error.h"
#include "common/log.h"
#include "common/xmalloc.h"
#include "server/audit.h"
#include "store/store.h"

/* A string field cut at AUDIT_FIELD_MAX bytes, on a character boundary. */
static json_t *
audit_string(const char *s)
{
	char buf[AUDIT_FIELD_MAX + 4];
	size_t n = strlen(s);

	if (n <= AUDIT_FIELD_MAX)
		return json_string(s);
	memcpy(buf, s, AUDIT_FIELD_MAX);
	buf[AUDIT_FIELD_MAX] = '\0';
	bd_utf8_fix(buf);
	strcat(buf, "...");
	return json_string(buf);
}

/* Scalars as they are, strings cut, containers by their size only. */
static json_t *
audit_scalar(const json_t *v)
{
	if (json_is_string(v))
		return audit_string(json_string_value(v));
	if (json_is_array(v))
		return json_pack("{s:I}", "elements",
		    (json_int_t)json_array_size(v));
	if (json_is_object(v))
		return json_pack("{s:I}", "members",
		    (json_int_t)json_object_size(v));
	return json_deep_copy(v);
}

/* A list keeps its first AUDIT_ITEMS_MAX elements and says how many more. */
static json_t *
audit_value(const json_t *v)
{
	json_t *a, *e;
	size_t i;

	if (!json_is_array(v))
		return audit_scalar(v);
	a = json_array();
	json_array_foreach(v, i, e) {
		if (i == AUDIT_ITEMS_MAX) {
			json_array_append_new(a, json_pack("{s:I}", "more",
			    (json_int_t)(json_array_size(v) - i)));
			break;
		}
		json_array_append_new(a, audit_scalar(e));
	}
	return a;
}

/* Bounded by construction, then checked: a summary never exceeds the cap. */
char *
audit_summary(const json_t *req)
{
	const char *key;
	json_t *sum = json_object(), *v, *cmd;
	char *text;
	size_t n = 0;

	json_object_foreach((json_t *)req, key, v) {
		if (n++ == AUDIT_ITEMS_MAX) {
			json_object_set_new(sum, "...", json_true());
			break;
		}
		if (strlen(key) > AUDIT_FIELD_MAX)
			continue;
		json_object_set_new(sum, key, audit_value(v));
	}
	text = json_dumps(sum, JSON_COMPACT);
	json_decref(sum);
	if (text != NULL && strlen(text) <= AUDIT_SUMMARY_MAX)
		return text;
	free(text);
	cmd = json_object_get(req, "cmd");
	sum = json_pack("{s:o, s:b}", "cmd", json_is_string(cmd) ?
	    audit_string(json_string_value(cmd)) : json_null(),
	    "cut", 1);
	text = sum != NULL ? json_dumps(sum, JSON_COMPACT) : NULL;
	json_decref(sum);
	return text != NULL ? text : xstrdup("{}");
}

/* The counters of uid, taking over the slot of the oldest window if new. */
static struct audit_uid *
audit_slot(struct audit *a, uid_t uid)
{
	struct audit_uid *old = &a->uids[0];
	size_t i;

	for (i = 0; i < AUDIT_UIDS; i++) {
		if (a->uids[i].used && a->uids[i].uid == uid)
			return &a->uids[i];
		if (!a->uids[i].used || (old->used &&
		    a->uids[i].window_ms < old->window_ms))
			old = &a->uids[i];
	}
	memset(old, 0, sizeof(*old));
	old->uid = uid;
	old->used = 1;
	return old;
}

/* One row, logged as it goes in. */
static void
audit_store(struct store *st, int64_t now_ms, uid_t uid, const char *cmd,
    const char *summary, const char *outcome)
{
	struct bd_error err;

	bd_error_clear(&err);
	log_info("uid %u: %s: %s", (unsigned)uid, cmd, outcome);
	if (st != NULL && store_event_add(st, now_ms, uid, summary, outcome,
	    &err) < 0)
		log_errx("cannot record %s by uid %u: %s", cmd,
		    (unsigned)uid, err.msg);
}

/* Says how many rejections of the window just ended were not stored. */
static void
audit_flush(struct store *st, int64_t now_ms, struct audit_uid *u)
{
	char summary[160];

	if (u->suppressed > 0) {
		snprintf(summary, sizeof(summary), "{\"suppressed\":%u,"
		    "\"window_ms\":%d}", u->suppressed, AUDIT_WINDOW_MS);
		audit_store(st, now_ms, u->uid, "rejected requests", summary,
		    "rate-limited");
	}
	u->window_ms = now_ms;
	u->rejected = 0;
	u->suppressed = 0;
}

void
audit_retention(struct audit *a, uint64_t keep_ms, unsigned max_rows)
{
	a->keep_ms = keep_ms;
	a->max_rows = max_rows;
}

/* Retention runs as rows go in, so the table never outgrows it by much. */
static void
audit_prune(const struct audit *a, struct store *st, int64_t now_ms)
{
	struct bd_error err;
	int64_t before = a->keep_ms > 0 && (int64_t)a->keep_ms < now_ms ?
	    now_ms - (int64_t)a->keep_ms : 0;

	bd_error_clear(&err);
	if (st != NULL && (before > 0 || a->max_rows > 0) &&
	    store_event_prune(st, before, a->max_rows, &err) < 0)
		log_warnx("cannot prune the audit trail: %s", err.msg);
}

void
audit_record(struct audit *a, struct store *st, int64_t now_ms, uid_t uid,
    const char *cmd, const char *summary, const char *outcome)
{
	struct audit_uid *u = audit_slot(a, uid);

	if (u->window_ms == 0 || now_ms - u->window_ms >= AUDIT_WINDOW_MS)
		audit_flush(st, now_ms, u);
	if (strcmp(outcome, "ok") != 0 &&
	    ++u->rejected > AUDIT_REJECT_BURST) {
		u->suppressed++;
		return;
	}
	audit_store(st, now_ms, uid, cmd, summary, outcome);
	audit_prune(a, st, now_ms);
}
