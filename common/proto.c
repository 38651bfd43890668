#include <stdlib.h>
#include <string.h>

#include "common/xmalloc.h"
#include "common/proto.h"

static const char *const proto_error_codes[PROTO_E_COUNT] = {
	[PROTO_E_MALFORMED_JSON] = "malformed-json",
	[PROTO_E_NOT_AN_OBJECT] = "not-an-object",
	[PROTO_E_MISSING_FIELD] = "missing-field",
	[PROTO_E_BAD_TYPE] = "bad-type",
	[PROTO_E_UNKNOWN_COMMAND] = "unknown-command",
	[PROTO_E_LINE_TOO_LONG] = "line-too-long",
	[PROTO_E_TOO_MANY_CONNECTIONS] = "too-many-connections",
	[PROTO_E_INVALID_CONFIG] = "invalid-config",
	[PROTO_E_INTERNAL] = "internal",
	[PROTO_E_INVALID_ARGUMENT] = "invalid-argument",
	[PROTO_E_NOT_FOUND] = "not-found",
	[PROTO_E_CONFLICT] = "conflict",
};

/* One table maps codes to strings so that no reply spells a code by hand. */
const char *
proto_error_code(enum proto_error e)
{
	if ((unsigned)e >= PROTO_E_COUNT)
		return "internal";
	return proto_error_codes[e];
}

/* Puts "ok" first and "id" second, so replies read the same every time. */
static json_t *
proto_reply(json_t *id, int ok)
{
	json_t *r = json_object();

	if (r == NULL)
		return NULL;
	json_object_set_new(r, "ok", json_boolean(ok));
	if (id != NULL)
		json_object_set(r, "id", id);
	return r;
}

/* Handlers add their payload to this envelope. */
json_t *
proto_reply_ok(json_t *id)
{
	return proto_reply(id, 1);
}

/* Every error reply has the same shape; extra detail goes into "error". */
json_t *
proto_reply_error(json_t *id, enum proto_error e, const char *message)
{
	json_t *r = proto_reply(id, 0);

	if (r != NULL)
		json_object_set_new(r, "error", json_pack("{s:s, s:s}",
		    "code", proto_error_code(e), "message", message));
	return r;
}

/* Compact output keeps every message on exactly one line. */
char *
proto_encode(const json_t *msg, size_t *lenp)
{
	char *s, *line;
	size_t n;

	s = json_dumps(msg, JSON_COMPACT);
	if (s == NULL)
		return NULL;
	n = strlen(s);
	line = xmalloc(n + 2);
	memcpy(line, s, n);
	line[n] = '\n';
	line[n + 1] = '\0';
	free(s);
	*lenp = n + 1;
	return line;
}
