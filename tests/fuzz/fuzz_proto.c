/* SPDX-License-Identifier: MIT */
/*
 * The control protocol's framing (common/proto.c): whatever JSON value a
 * request carries as its "id", and whatever bytes end up in an error
 * message, the reply is one JSON object on exactly one line, and an error
 * reply has error.code and error.message strings.
 *
 * Input: one byte choosing the error code, then bytes that are tried as a
 * JSON value (the id) and, as they are, as the error message.
 */
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "common/proto.h"
#include "tests/fuzz/fuzz.h"

/* The line must be the whole message: one newline, at the end only. */
static json_t *
fuzz_proto_line(const json_t *msg)
{
	json_error_t jerr;
	json_t *back;
	size_t len = 0;
	char *line;

	line = proto_encode(msg, &len);
	if (line == NULL)
		fuzz_fail("proto_encode failed on a reply");
	if (len == 0 || line[len - 1] != '\n' ||
	    memchr(line, '\n', len - 1) != NULL || strlen(line) != len)
		fuzz_fail("encoded reply is not one line: %s", line);
	back = json_loadb(line, len - 1, 0, &jerr);
	if (back == NULL || !json_is_object(back))
		fuzz_fail("encoded reply does not parse back: %s", line);
	if (!json_equal(back, msg))
		fuzz_fail("encoded reply parses to another value: %s", line);
	free(line);
	return back;
}

/* error.code and error.message, both strings, the code a known one. */
static void
fuzz_proto_check_error(const json_t *r)
{
	json_t *e = json_object_get(r, "error");
	const char *code;

	if (json_object_get(r, "ok") != json_false())
		fuzz_fail("error reply without ok:false");
	if (!json_is_object(e))
		fuzz_fail("error reply without an error object");
	code = json_string_value(json_object_get(e, "code"));
	if (code == NULL || !json_is_string(json_object_get(e, "message")))
		fuzz_fail("error object without code or message strings");
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	json_error_t jerr;
	json_t *id, *r, *back;
	char *msg;

	if (size == 0)
		return 0;
	id = json_loadb((const char *)data + 1, size - 1,
	    JSON_DECODE_ANY, &jerr);
	msg = fuzz_strndup(data + 1, size - 1);

	r = proto_reply_error(id, (enum proto_error)(data[0] % (PROTO_E_COUNT + 1)),
	    msg);
	if (r == NULL)
		fuzz_fail("proto_reply_error returned NULL");
	fuzz_proto_check_error(r);
	back = fuzz_proto_line(r);
	fuzz_proto_check_error(back);
	if (id != NULL && !json_equal(json_object_get(back, "id"), id))
		fuzz_fail("the id is not echoed unchanged");
	json_decref(back);
	json_decref(r);

	r = proto_reply_ok(id);
	if (r == NULL || json_object_get(r, "ok") != json_true())
		fuzz_fail("proto_reply_ok without ok:true");
	json_decref(fuzz_proto_line(r));
	json_decref(r);

	json_decref(id);
	free(msg);
	return 0;
}
