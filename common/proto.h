/* SPDX-License-Identifier: MIT */
/*
 * The control protocol's wire format, shared by bisectd and bisectctl.
 *
 * One JSON object per line each way.  A request has "cmd" and an optional
 * "id" that the reply echoes; a reply has "ok" and, when ok is false,
 * "error": {"code": ..., "message": ...}.  The error codes below are stable:
 * clients match on them, so a code is never renamed, only added.
 * docs/protocol.md is the reference.
 */
#ifndef COMMON_PROTO_H
#define COMMON_PROTO_H

#include <stddef.h>

#include <jansson.h>

#define BISECTD_VERSION		"0.1.0"
#define PROTO_VERSION		1
/* Longest request line in bytes, not counting the newline. */
#define PROTO_LINE_MAX		65536
/* Where the daemon listens and bisectctl connects unless told otherwise. */
#define PROTO_DEFAULT_SOCKET	"/run/bisectd/bisectd.sock"

enum proto_error {
	PROTO_E_MALFORMED_JSON = 0,	/* the line is not JSON */
	PROTO_E_NOT_AN_OBJECT,		/* JSON, but not an object */
	PROTO_E_MISSING_FIELD,		/* a required field is absent */
	PROTO_E_BAD_TYPE,		/* a field has the wrong JSON type */
	PROTO_E_UNKNOWN_COMMAND,	/* "cmd" names no command */
	PROTO_E_LINE_TOO_LONG,		/* over PROTO_LINE_MAX; connection closed */
	PROTO_E_TOO_MANY_CONNECTIONS,	/* over a cap; connection closed */
	PROTO_E_INVALID_CONFIG,		/* reload: the new config has errors */
	PROTO_E_INTERNAL,		/* the daemon failed; see its log */
	PROTO_E_INVALID_ARGUMENT,	/* a field has a value that cannot work */
	PROTO_E_NOT_FOUND,		/* no such bisection, host, revision or name */
	PROTO_E_CONFLICT,		/* the object is not in a state that allows it */
	PROTO_E_PERMISSION_DENIED,	/* the caller is not one of the operators */
	PROTO_E_TIMEOUT,		/* a request line stayed incomplete; closed */
	PROTO_E_COUNT
};

/* The stable string of an error code, e.g. "malformed-json". */
const char	*proto_error_code(enum proto_error e);

/*
 * {"ok":true} with id copied in when id is not NULL.  The caller owns the
 * returned object and adds its payload to it.
 */
json_t		*proto_reply_ok(json_t *id);
/*
 * {"ok":false,"id":...,"error":{"code":...,"message":...}}; caller owns it.
 * A message that is not valid UTF-8 (a byte limit cut a character) is
 * repaired, so the error object is always there.
 */
json_t		*proto_reply_error(json_t *id, enum proto_error e,
		    const char *message);

/*
 * Compact one-line encoding of msg followed by '\n'.  Returns a buffer the
 * caller frees and stores its length (newline included) in *lenp; NULL only
 * when msg cannot be encoded (a broken invariant for our own replies).
 */
char		*proto_encode(const json_t *msg, size_t *lenp);
/*
 * As proto_encode, but a numeric "id" (second member, as the reply
 * functions put it) is written as rawid, the request's own text of it, so
 * that 1e-400 or 12345678901234567890 come back unchanged.  rawid may be
 * NULL or empty.
 */
char		*proto_encode_id(const json_t *msg, const char *rawid,
		    size_t *lenp);
/*
 * The JSON text of the number that is the top-level member key of the
 * object in line (len bytes, already parsed as valid JSON): copied into buf
 * (size bytes) and 0, or -1 when the member is absent, not a number, or
 * its text does not fit.
 */
int		 proto_raw_number(const char *line, size_t len,
		    const char *key, char *buf, size_t size);

/*
 * Times for people and for tools that parse RFC 3339: beside each member
 * of msg (and of the objects and arrays inside it) that names a moment in
 * epoch milliseconds ("created_ms", "time_ms", ... not durations such as
 * "took_ms"), adds the same moment without the suffix as an RFC 3339 UTC
 * string ("created": "2026-12-05T01:39:00.123Z").  A zero (never) gets
 * none, and a member already called so is left alone.
 */
void		 proto_add_times(json_t *msg);

#endif
