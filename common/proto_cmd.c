/* SPDX-License-Identifier: MIT */
#include <errno.h>
#include <stddef.h>
#include <string.h>

#include "common/proto_cmd.h"

static const struct proto_cmd_field proto_cmd_hosts_fields[] = {
	{ .name = "group", .type = PROTO_T_STRING, .arg = "GROUP",
	    .help = "only the hosts of this host group" },
	{ .name = NULL }
};

static const struct proto_cmd_field proto_cmd_host_fields[] = {
	{ .name = "host", .type = PROTO_T_STRING, .required = 1,
	    .arg = "HOST", .help = "the host's name in the configuration" },
	{ .name = NULL }
};

static const struct proto_cmd_field proto_cmd_bisect_fields[] = {
	{ .name = "good", .type = PROTO_T_STRINGS, .required = 1,
	    .arg = "--good",
	    .help = "a revision without the change; repeat for several" },
	{ .name = "bad", .type = PROTO_T_STRING, .required = 1,
	    .arg = "--bad", .help = "a revision with the change" },
	{ .name = "benchmark", .type = PROTO_T_STRING, .required = 1,
	    .arg = "--benchmark",
	    .help = "the [benchmark NAME] section to run" },
	{ .name = "metric", .type = PROTO_T_STRING, .required = 1,
	    .arg = "--metric",
	    .help = "the benchmark's metric whose change is bisected" },
	{ .name = "group", .type = PROTO_T_STRING, .arg = "--group",
	    .help = "the host group that builds and tests (default: default)" },
	{ .name = "confidence", .type = PROTO_T_NUMBER, .arg = "--confidence",
	    .range = PROTO_R_FRACTION,
	    .help = "how sure each step must be, between 0.5 and 1 "
	    "(default 0.99)" },
	{ .name = "max_samples", .type = PROTO_T_INTEGER,
	    .arg = "--max-samples", .range = PROTO_R_COUNT,
	    .help = "samples per commit before a step is inconclusive",
	    .min = PROTO_MAX_SAMPLES_MIN, .max = PROTO_MAX_SAMPLES_MAX },
	{ .name = "first_parent", .type = PROTO_T_BOOL,
	    .arg = "--first-parent",
	    .help = "follow only the first parent of merges" },
	{ .name = "priority", .type = PROTO_T_INTEGER, .arg = "--priority",
	    .help = "higher runs first when bisections wait for the same "
	    "hosts (default 0)" },
	{ .name = "fixups", .type = PROTO_T_STRINGS, .arg = "--fixup",
	    .help = "a fix-up SHA or SHA:BROKEN to pick onto every probed "
	    "commit that contains what it repairs (repeatable)" },
	{ .name = NULL }
};

static const struct proto_cmd_field proto_cmd_status_fields[] = {
	{ .name = "bisection", .type = PROTO_T_INTEGER, .arg = "ID",
	    .range = PROTO_R_ID, .help = "a bisection id; none: all of them" },
	{ .name = NULL }
};

static const struct proto_cmd_field proto_cmd_id_fields[] = {
	{ .name = "bisection", .type = PROTO_T_INTEGER, .required = 1,
	    .arg = "ID", .range = PROTO_R_ID,
	    .help = "the bisection's id, as bisect and list print it" },
	{ .name = NULL }
};

static const struct proto_cmd_field proto_cmd_verify_fields[] = {
	{ .name = "bisection", .type = PROTO_T_INTEGER, .required = 1,
	    .arg = "ID", .range = PROTO_R_ID,
	    .help = "the bisection whose culprit is measured" },
	{ .name = "on", .type = PROTO_T_STRING, .required = 1,
	    .arg = "--on", .help = "the host group (another kind of machine) "
	    "to measure the culprit against its parent on" },
	{ .name = NULL }
};

static const struct proto_cmd_field proto_cmd_samples_fields[] = {
	{ .name = "bisection", .type = PROTO_T_INTEGER, .required = 1,
	    .arg = "ID", .range = PROTO_R_ID,
	    .help = "the bisection's id, as bisect and list print it" },
	{ .name = "commit", .type = PROTO_T_STRING, .arg = "--commit",
	    .help = "only this commit's samples: a sha, an abbreviated "
	    "sha or any revision" },
	{ .name = NULL }
};

static const struct proto_cmd_field proto_cmd_backup_fields[] = {
	{ .name = "path", .type = PROTO_T_STRING, .required = 1,
	    .arg = "FILE",
	    .help = "where the copy goes; it must not exist yet" },
	{ .name = NULL }
};

static const struct proto_cmd_field proto_cmd_repo_fields[] = {
	{ .name = "since", .type = PROTO_T_INTEGER, .arg = "--since",
	    .help = "also the ref events after this sequence number" },
	{ .name = NULL }
};

static const struct proto_cmd_field proto_cmd_fetch_fields[] = {
	{ .name = "wait", .type = PROTO_T_BOOL, .arg = "--wait",
	    .help = "answer only when the fetch has ended" },
	{ .name = NULL }
};

static const struct proto_cmd_field proto_cmd_sweep_fields[] = {
	{ .name = "name", .type = PROTO_T_STRING, .required = 1,
	    .arg = "NAME", .help = "the [sweep NAME] section" },
	{ .name = "now", .type = PROTO_T_BOOL, .arg = "--now",
	    .help = "sweep the newest matching ref now" },
	{ .name = NULL }
};

/* Every command of the protocol; docs/protocol.md describes each row. */
const struct proto_cmd proto_cmd_table[PROTO_CMD_COUNT] = {
	[PROTO_CMD_PING] = { .name = "ping", .usage = "",
	    .help = "check that the daemon answers" },
	[PROTO_CMD_VERSION] = { .name = "version", .usage = "",
	    .help = "the daemon's version and uptime" },
	[PROTO_CMD_CONFIG] = { .name = "config", .usage = "",
	    .help = "the configuration in effect, without secrets" },
	[PROTO_CMD_HOSTS] = { .name = "hosts",
	    .fields = proto_cmd_hosts_fields, .usage = "[GROUP]",
	    .help = "hosts, their state and current work" },
	[PROTO_CMD_DRAIN] = { .name = "drain",
	    .flags = PROTO_CMD_STATE_CHANGING,
	    .fields = proto_cmd_host_fields, .usage = "HOST",
	    .help = "finish the host's current run, then give it none" },
	[PROTO_CMD_UNDRAIN] = { .name = "undrain",
	    .flags = PROTO_CMD_STATE_CHANGING,
	    .fields = proto_cmd_host_fields, .usage = "HOST",
	    .help = "give a drained host work again" },
	[PROTO_CMD_RELOAD] = { .name = "reload",
	    .flags = PROTO_CMD_STATE_CHANGING, .usage = "",
	    .help = "reload the configuration file (as SIGHUP does)" },
	[PROTO_CMD_BACKUP] = { .name = "backup",
	    .flags = PROTO_CMD_STATE_CHANGING,
	    .fields = proto_cmd_backup_fields, .usage = "FILE",
	    .help = "a consistent copy of the database, taken while it runs" },
	[PROTO_CMD_REPO] = { .name = "repo",
	    .fields = proto_cmd_repo_fields, .usage = "[--since SEQ]",
	    .help = "the mirror: url, last and next fetch, watched refs, "
	    "progress" },
	[PROTO_CMD_FETCH] = { .name = "fetch",
	    .flags = PROTO_CMD_STATE_CHANGING,
	    .fields = proto_cmd_fetch_fields, .usage = "[--wait]",
	    .help = "fetch into the mirror now (--wait: until it ends)" },
	[PROTO_CMD_BISECT] = { .name = "bisect",
	    .flags = PROTO_CMD_STATE_CHANGING,
	    .fields = proto_cmd_bisect_fields,
	    .usage = "--good REV [--good REV ...] --bad REV --benchmark NAME "
	    "--metric NAME [--group G] [--confidence C] [--max-samples N] "
	    "[--first-parent] [--priority P] [--fixup SHA[:BROKEN] ...]",
	    .help = "start a bisection" },
	[PROTO_CMD_STATUS] = { .name = "status",
	    .fields = proto_cmd_status_fields, .usage = "[ID] [--follow]",
	    .help = "a bisection in detail, or all of them" },
	[PROTO_CMD_LIST] = { .name = "list", .usage = "",
	    .help = "all bisections, one line each" },
	[PROTO_CMD_CANCEL] = { .name = "cancel",
	    .flags = PROTO_CMD_STATE_CHANGING,
	    .fields = proto_cmd_id_fields, .usage = "ID",
	    .help = "stop a bisection and its remote work" },
	[PROTO_CMD_VERIFY] = { .name = "verify",
	    .flags = PROTO_CMD_STATE_CHANGING,
	    .fields = proto_cmd_verify_fields, .usage = "ID --on GROUP",
	    .help = "measure a bisection's culprit against its parent on "
	    "another host group" },
	[PROTO_CMD_LOG] = { .name = "log",
	    .fields = proto_cmd_id_fields, .usage = "ID",
	    .help = "the bisection as `git bisect log` lines" },
	[PROTO_CMD_SAMPLES] = { .name = "samples",
	    .fields = proto_cmd_samples_fields, .usage = "ID [--commit C]",
	    .help = "the samples of a bisection" },
	[PROTO_CMD_REPORT] = { .name = "report",
	    .fields = proto_cmd_id_fields, .usage = "ID [--json] [--html FILE] [--kcidb]",
	    .help = "the bisection's report (--json: its data, --html: a page with plots, --kcidb: KCIDB I/O data)" },
	[PROTO_CMD_SWEEPS] = { .name = "sweeps", .usage = "",
	    .help = "each sweep's last ref, state, next run and changes found" },
	[PROTO_CMD_SWEEP] = { .name = "sweep",
	    .flags = PROTO_CMD_STATE_CHANGING,
	    .fields = proto_cmd_sweep_fields, .usage = "NAME [--now]",
	    .state_field = "now",
	    .help = "a sweep's refs and what it found (--now: sweep the newest "
	    "matching ref now)" },
	[PROTO_CMD_WATCH] = { .name = "watch", .flags = PROTO_CMD_STREAMS,
	    .usage = "",
	    .help = "print events as they happen, until interrupted" },
};

static const char *const proto_cmd_type_names[PROTO_T_COUNT] = {
	[PROTO_T_STRING] = "a string",
	[PROTO_T_INTEGER] = "an integer",
	[PROTO_T_NUMBER] = "a number",
	[PROTO_T_BOOL] = "true or false",
	[PROTO_T_STRINGS] = "an array of strings",
	[PROTO_T_OBJECT] = "an object",
};

/* One answer for the permission check and the audit trail. */
int
proto_cmd_changes_state(enum proto_cmd_id id, const json_t *req)
{
	const struct proto_cmd *row = &proto_cmd_table[id];

	if (!(row->flags & PROTO_CMD_STATE_CHANGING))
		return 0;
	return row->state_field == NULL ||
	    json_is_true(json_object_get(req, row->state_field));
}

/* A linear walk: the table is short and read once per request. */
int
proto_cmd_find(const char *name)
{
	int i;

	for (i = 0; i < PROTO_CMD_COUNT; i++)
		if (strcmp(proto_cmd_table[i].name, name) == 0)
			return i;
	return -ENOENT;
}

/* Messages name the expected type the same way on every path. */
const char *
proto_cmd_type_name(enum proto_cmd_type t)
{
	if ((unsigned)t >= PROTO_T_COUNT)
		return "a valid value";
	return proto_cmd_type_names[t];
}

/* One check per declared type keeps handlers free of type tests. */
int
proto_cmd_type_ok(const json_t *v, enum proto_cmd_type t)
{
	size_t i;
	json_t *e;

	switch (t) {
	case PROTO_T_STRING:
		return json_is_string(v);
	case PROTO_T_INTEGER:
		return json_is_integer(v);
	case PROTO_T_NUMBER:
		return json_is_number(v);
	case PROTO_T_BOOL:
		return json_is_boolean(v);
	case PROTO_T_OBJECT:
		return json_is_object(v);
	case PROTO_T_STRINGS:
		if (!json_is_array(v))
			return 0;
		json_array_foreach(v, i, e)
			if (!json_is_string(e))
				return 0;
		return 1;
	case PROTO_T_COUNT:
		break;
	}
	return 0;
}

/*
 * Everything the table promises is checked before a handler runs, so
 * handlers may take their declared fields' types for granted.
 */
int
proto_cmd_check(enum proto_cmd_id id, const json_t *req,
    enum proto_error *code, struct bd_error *err)
{
	const struct proto_cmd *c = &proto_cmd_table[id];
	const struct proto_cmd_field *f;
	const char *key;
	json_t *v;

	json_object_foreach((json_t *)req, key, v) {
		if (strcmp(key, "cmd") == 0 || strcmp(key, "id") == 0)
			continue;
		for (f = c->fields; f != NULL && f->name != NULL; f++)
			if (strcmp(f->name, key) == 0)
				break;
		if (f == NULL || f->name == NULL) {
			*code = PROTO_E_INVALID_ARGUMENT;
			return bd_error_set(err, -EINVAL, "%s: unknown field "
			    "%.64s", c->name, key);
		}
	}
	for (f = c->fields; f != NULL && f->name != NULL; f++) {
		v = json_object_get(req, f->name);
		if (v == NULL && f->required) {
			*code = PROTO_E_MISSING_FIELD;
			return bd_error_set(err, -EINVAL,
			    "%s: field %s is required", c->name, f->name);
		}
		if (v != NULL && !proto_cmd_type_ok(v, f->type)) {
			*code = PROTO_E_BAD_TYPE;
			return bd_error_set(err, -EINVAL,
			    "%s: field %s must be %s", c->name, f->name,
			    proto_cmd_type_name(f->type));
		}
		if (v != NULL && f->max > f->min && json_is_integer(v) &&
		    (json_integer_value(v) < f->min ||
		    json_integer_value(v) > f->max)) {
			*code = PROTO_E_INVALID_ARGUMENT;
			return bd_error_set(err, -EINVAL, "%s: must be between "
			    "%lld and %lld", f->name, f->min, f->max);
		}
	}
	return 0;
}
