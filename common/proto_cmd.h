/* SPDX-License-Identifier: MIT */
/*
 * The control protocol's commands: one table shared by bisectd and
 * bisectctl.  Each row names a command, its request fields with their JSON
 * types and whether they are required, whether the command changes state
 * or streams, and bisectctl's usage line and help.  The daemon maps each
 * command to a handler (server/cmd.c), bisectctl to a printer
 * (ctl/bisectctl.c); docs/protocol.md documents every row under a
 * "### `name`" heading, and a test holds the two together.
 *
 * Adding a command: a value of enum proto_cmd_id, its row in
 * proto_cmd.c, its handler and its printer.
 *
 * Everything here is static data; nothing is allocated or owned.
 */
#ifndef COMMON_PROTO_CMD_H
#define COMMON_PROTO_CMD_H

#include <jansson.h>

#include "common/error.h"
#include "common/proto.h"

/* The JSON types a field may be declared with. */
enum proto_cmd_type {
	PROTO_T_STRING = 0,
	PROTO_T_INTEGER,
	PROTO_T_NUMBER,		/* integer or real */
	PROTO_T_BOOL,
	PROTO_T_STRINGS,	/* array of strings */
	PROTO_T_OBJECT,
	PROTO_T_COUNT
};

/*
 * The values bisectctl accepts on its command line before it asks the
 * daemon; the daemon enforces its own ranges in the handler.
 */
enum proto_cmd_range {
	PROTO_R_ANY = 0,	/* strings non-empty, integers an int */
	PROTO_R_FRACTION,	/* a number strictly between 0 and 1 */
	PROTO_R_COUNT,		/* an integer from 1 to INT_MAX */
	PROTO_R_ID,		/* a bisection id: an integer from 1 */
};

struct proto_cmd_field {
	const char		*name;		/* the request member */
	enum proto_cmd_type	 type;
	int			 required;
	/*
	 * How bisectctl takes it: "--max-samples" an option (repeated for
	 * PROTO_T_STRINGS, without a value for PROTO_T_BOOL), "ID" the
	 * command's one positional argument, NULL not at all.
	 */
	const char		*arg;
	enum proto_cmd_range	 range;
	/* One line on its meaning, for `bisectctl CMD --help`. */
	const char		*help;
	/*
	 * An integer's accepted values when max > min: bisectctl refuses
	 * others before asking, and the daemon answers invalid-argument.
	 */
	long long		 min, max;
};

/* The limits of a bisection's max_samples, for the table and sched. */
#define PROTO_MAX_SAMPLES_MIN	6
#define PROTO_MAX_SAMPLES_MAX	1000000

/* The commands, in the order bisectctl's help lists them. */
enum proto_cmd_id {
	PROTO_CMD_PING = 0,
	PROTO_CMD_VERSION,
	PROTO_CMD_CONFIG,
	PROTO_CMD_HOSTS,
	PROTO_CMD_DRAIN,
	PROTO_CMD_UNDRAIN,
	PROTO_CMD_RELOAD,
	PROTO_CMD_BACKUP,
	PROTO_CMD_REPO,
	PROTO_CMD_FETCH,
	PROTO_CMD_BISECT,
	PROTO_CMD_STATUS,
	PROTO_CMD_LIST,
	PROTO_CMD_CANCEL,
	PROTO_CMD_VERIFY,
	PROTO_CMD_LOG,
	PROTO_CMD_SAMPLES,
	PROTO_CMD_REPORT,
	PROTO_CMD_SWEEPS,
	PROTO_CMD_SWEEP,
	PROTO_CMD_WATCH,
	PROTO_CMD_COUNT
};

#define PROTO_CMD_STATE_CHANGING 0x1	/* recorded in events with the uid */
#define PROTO_CMD_STREAMS	0x2	/* events follow the reply */
#define PROTO_CMD_HIDDEN	0x4	/* left out of bisectctl's help */

/* At most this many fields per command, terminator not counted. */
#define PROTO_CMD_FIELDS_MAX	12

struct proto_cmd {
	const char			*name;
	unsigned			 flags;	/* PROTO_CMD_ bits */
	/* NULL-name ended, or NULL for none. */
	const struct proto_cmd_field	*fields;
	const char			*usage;	/* after "bisectctl NAME" */
	const char			*help;	/* one line, lower case */
	/*
	 * A boolean field that alone makes a PROTO_CMD_STATE_CHANGING
	 * command change state ("now" for sweep); NULL: every request does.
	 */
	const char			*state_field;
};

/* Indexed by enum proto_cmd_id. */
extern const struct proto_cmd proto_cmd_table[PROTO_CMD_COUNT];

/* The command called name: its enum proto_cmd_id, or -ENOENT. */
int	proto_cmd_find(const char *name);
/*
 * 1 when this request to command id changes state (operators only, and
 * audited): the row is PROTO_CMD_STATE_CHANGING and, for a row with a
 * state_field, that field is true.
 */
int	proto_cmd_changes_state(enum proto_cmd_id id, const json_t *req);
/* The type in words for messages, e.g. "an array of strings". */
const char *proto_cmd_type_name(enum proto_cmd_type t);
/* Whether v (not NULL) has type t; 1 or 0. */
int	proto_cmd_type_ok(const json_t *v, enum proto_cmd_type t);
/*
 * Checks req (an object) against the fields of command id: every required
 * field present, every declared field of its type and in its range, no
 * member the row does not declare ("cmd" and the request's own "id"
 * aside).  Returns 0, or -EINVAL with *code PROTO_E_MISSING_FIELD,
 * PROTO_E_BAD_TYPE or PROTO_E_INVALID_ARGUMENT and err saying which field
 * ("bisect: field bad is required").
 */
int	proto_cmd_check(enum proto_cmd_id id, const json_t *req,
	    enum proto_error *code, struct bd_error *err);

#endif
