/* SPDX-License-Identifier: MIT */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "common/error.h"
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
	[PROTO_E_PERMISSION_DENIED] = "permission-denied",
	[PROTO_E_TIMEOUT] = "timeout",
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

/*
 * Every error reply has the same shape, whatever bytes the message holds;
 * extra detail goes into "error".
 */
json_t *
proto_reply_error(json_t *id, enum proto_error e, const char *message)
{
	json_t *r = proto_reply(id, 0), *eobj;
	char *fixed = xstrdup(message ? message : "");

	eobj = json_pack("{s:s, s:s}", "code", proto_error_code(e),
	    "message", bd_utf8_fix(fixed));
	free(fixed);
	if (eobj == NULL)	/* only when out of memory */
		eobj = json_pack("{s:s, s:s}", "code", "internal",
		    "message", "cannot encode the error message");
	if (r != NULL && json_object_set_new(r, "error", eobj) < 0) {
		json_decref(r);
		r = NULL;
	}
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

/* Skips a JSON string starting at its opening quote; returns past its end. */
static size_t
proto_skip_string(const char *s, size_t i, size_t len)
{
	for (i++; i < len && s[i] != '"'; i++)
		if (s[i] == '\\')
			i++;
	return i + 1;
}

/* Skips blanks, which JSON allows between any two tokens. */
static size_t
proto_skip_ws(const char *s, size_t i, size_t len)
{
	while (i < len && (s[i] == ' ' || s[i] == '\t' || s[i] == '\n' ||
	    s[i] == '\r'))
		i++;
	return i;
}

/* jansson keeps no number text, so the id is read from the line itself. */
int
proto_raw_number(const char *line, size_t len, const char *key, char *buf,
    size_t size)
{
	size_t klen = strlen(key), i, k, n;
	int depth = 0, want_key = 0;

	for (i = 0; i < len; ) {
		switch (line[i]) {
		case '"':
			k = i;
			i = proto_skip_string(line, i, len);
			if (depth != 1 || !want_key)
				continue;
			want_key = 0;
			if (i - k - 2 != klen || memcmp(line + k + 1, key,
			    klen) != 0)
				continue;
			i = proto_skip_ws(line, i, len);
			if (i >= len || line[i] != ':')
				return -1;
			i = proto_skip_ws(line, i + 1, len);
			for (n = 0; i + n < len &&
			    strchr("+-.0123456789eE", line[i + n]) != NULL &&
			    line[i + n] != '\0'; n++)
				;
			if (n == 0 || n >= size)
				return -1;
			memcpy(buf, line + i, n);
			buf[n] = '\0';
			return 0;
		case '{':
		case '[':
			depth++;
			want_key = depth == 1 && line[i] == '{';
			break;
		case '}':
		case ']':
			depth--;
			break;
		case ',':
			want_key = depth == 1;
			break;
		}
		i++;
	}
	return -1;
}

/* The envelope puts "ok" then "id" first, so the id's text is easy to find. */
char *
proto_encode_id(const json_t *msg, const char *rawid, size_t *lenp)
{
	static const char *const heads[] = {
		"{\"ok\":true,\"id\":", "{\"ok\":false,\"id\":",
	};
	char *line, *out;
	size_t i, h, end, rlen;

	line = proto_encode(msg, lenp);
	if (line == NULL || rawid == NULL || *rawid == '\0' ||
	    !json_is_number(json_object_get(msg, "id")))
		return line;
	for (i = 0; i < sizeof(heads) / sizeof(heads[0]); i++) {
		h = strlen(heads[i]);
		if (strncmp(line, heads[i], h) != 0)
			continue;
		end = h + strcspn(line + h, ",}");
		rlen = strlen(rawid);
		out = xmalloc(*lenp - (end - h) + rlen + 1);
		memcpy(out, line, h);
		memcpy(out + h, rawid, rlen);
		memcpy(out + h + rlen, line + end, *lenp - end + 1);
		*lenp = *lenp - (end - h) + rlen;
		free(line);
		return out;
	}
	return line;
}

/* The members that hold a moment; every other NAME_ms is a duration. */
static const char *const proto_time_keys[] = {
	"created_ms", "updated_ms", "time_ms", "started_ms", "finished_ms",
	"seen_ms", "next_ms", "last_ok_ms", "last_error_ms", "next_fetch_ms",
	"last_fetch_ms",
};

/* The RFC 3339 form of one moment in epoch milliseconds into buf. */
static void
proto_rfc3339(long long ms, char *buf, size_t size)
{
	time_t t = (time_t)(ms / 1000);
	struct tm tm;
	size_t n;

	gmtime_r(&t, &tm);
	n = strftime(buf, size, "%Y-%m-%dT%H:%M:%S", &tm);
	snprintf(buf + n, size - n, ".%03dZ", (int)(ms % 1000));
}

void
proto_add_times(json_t *msg)
{
	const char *key;
	char name[32], when[48];
	json_t *v;
	size_t i, k;

	if (json_is_array(msg)) {
		json_array_foreach(msg, i, v)
			proto_add_times(v);
		return;
	}
	if (!json_is_object(msg))
		return;
	json_object_foreach(msg, key, v)
		proto_add_times(v);
	for (k = 0; k < sizeof(proto_time_keys) / sizeof(proto_time_keys[0]);
	    k++) {
		v = json_object_get(msg, proto_time_keys[k]);
		if (!json_is_integer(v) || json_integer_value(v) <= 0)
			continue;
		snprintf(name, sizeof(name), "%.*s",
		    (int)(strlen(proto_time_keys[k]) - 3), proto_time_keys[k]);
		if (json_object_get(msg, name) != NULL)
			continue;
		proto_rfc3339(json_integer_value(v), when, sizeof(when));
		json_object_set_new(msg, name, json_string(when));
	}
}
