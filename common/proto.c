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

/*
 * jansson refuses a string with overlong forms, surrogates or code points
 * above U+10FFFF, and one bad byte would cost a reply its message.
 */
size_t
proto_utf8_char(const char *str, size_t n)
{
	const unsigned char *s = (const unsigned char *)str;
	static const struct {
		unsigned char	 lead_mask, lead;	/* first byte pattern */
		size_t		 len;
		unsigned	 min;			/* no overlong forms */
	} forms[] = {
		{ .lead_mask = 0xe0, .lead = 0xc0, .len = 2, .min = 0x80 },
		{ .lead_mask = 0xf0, .lead = 0xe0, .len = 3, .min = 0x800 },
		{ .lead_mask = 0xf8, .lead = 0xf0, .len = 4, .min = 0x10000 },
	};
	size_t f, k;
	unsigned cp;

	if (n == 0)
		return 0;
	if (s[0] < 0x80)
		return 1;
	for (f = 0; f < sizeof(forms) / sizeof(forms[0]); f++) {
		if ((s[0] & forms[f].lead_mask) != forms[f].lead)
			continue;
		if (n < forms[f].len)
			return 0;
		cp = s[0] & (unsigned char)~forms[f].lead_mask;
		for (k = 1; k < forms[f].len; k++) {
			if ((s[k] & 0xc0) != 0x80)
				return 0;
			cp = (cp << 6) | (s[k] & 0x3f);
		}
		if (cp < forms[f].min || cp > 0x10ffff ||
		    (cp >= 0xd800 && cp <= 0xdfff))
			return 0;
		return forms[f].len;
	}
	return 0;
}

/*
 * A copy of message that jansson accepts: every byte that is not part of
 * a well-formed sequence (a character cut by a byte limit, say) becomes
 * '?'.  The caller frees it.
 */
static char *
proto_utf8_clean(const char *message)
{
	size_t n = strlen(message), i = 0, k;
	char *out = xmalloc(n + 1);

	while (i < n) {
		k = proto_utf8_char(message + i, n - i);
		if (k == 0) {
			out[i++] = '?';
			continue;
		}
		memcpy(out + i, message + i, k);
		i += k;
	}
	out[n] = '\0';
	return out;
}

/*
 * Every error reply has the same shape, whatever bytes the message holds;
 * extra detail goes into "error".
 */
json_t *
proto_reply_error(json_t *id, enum proto_error e, const char *message)
{
	json_t *r = proto_reply(id, 0);
	char *clean;

	if (r == NULL)
		return NULL;
	clean = proto_utf8_clean(message != NULL ? message : "");
	if (json_object_set_new(r, "error", json_pack("{s:s, s:s}",
	    "code", proto_error_code(e), "message", clean)) != 0) {
		json_decref(r);
		r = NULL;
	}
	free(clean);
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
