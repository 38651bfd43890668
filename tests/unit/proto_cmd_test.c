/* SPDX-License-Identifier: MIT */
/*
 * The protocol table (common/proto_cmd.c): its rows are well formed, the
 * field check gives the messages clients see, the daemon has a handler for
 * every row, and docs/protocol.md documents exactly the table's commands.
 */
#include <criterion/criterion.h>
#include <ctype.h>
#include <jansson.h>
#include <stdlib.h>
#include <string.h>

#include "common/proto_cmd.h"
#include "common/xmalloc.h"
#include "server/cmd.h"
#include "tests/support/tst.h"

TestSuite(proto_cmd, .fini = tst_leak_check);

/* Whether s is a positional argument's name: capitals only. */
static int
is_metavar(const char *s)
{
	if (*s == '\0')
		return 0;
	for (; *s != '\0'; s++)
		if (!isupper((unsigned char)*s))
			return 0;
	return 1;
}

Test(proto_cmd, rows_are_well_formed)
{
	const struct proto_cmd *c;
	const struct proto_cmd_field *f, *g;
	size_t i, n, npos;

	for (i = 0; i < PROTO_CMD_COUNT; i++) {
		c = &proto_cmd_table[i];
		cr_assert_not_null(c->name, "row %zu has no name", i);
		cr_expect_not_null(c->usage, "%s has no usage line", c->name);
		cr_expect(c->help != NULL && *c->help != '\0',
		    "%s has no help", c->name);
		cr_expect_eq(proto_cmd_find(c->name), (int)i,
		    "%s is not found at its own index", c->name);
		npos = 0;
		for (n = 0, f = c->fields; f != NULL && f->name != NULL;
		    f++, n++) {
			cr_expect(f->type < PROTO_T_COUNT, "%s.%s: bad type",
			    c->name, f->name);
			for (g = c->fields; g != f; g++)
				cr_expect_str_neq(g->name, f->name,
				    "%s declares %s twice", c->name, f->name);
			if (f->arg == NULL)
				continue;
			if (strncmp(f->arg, "--", 2) == 0)
				cr_expect(f->arg[2] != '\0', "%s.%s: empty "
				    "option", c->name, f->name);
			else {
				cr_expect(is_metavar(f->arg), "%s.%s: arg %s "
				    "is neither --option nor NAME", c->name,
				    f->name, f->arg);
				npos++;
			}
			cr_expect_not_null(strstr(c->usage, f->arg),
			    "%s: usage \"%s\" does not show %s", c->name,
			    c->usage, f->arg);
		}
		cr_expect_leq(n, PROTO_CMD_FIELDS_MAX, "%s has too many "
		    "fields", c->name);
		cr_expect_leq(npos, 1, "%s has %zu positional arguments",
		    c->name, npos);
	}
	cr_expect_eq(proto_cmd_find("frobnicate"), -ENOENT);
	cr_expect_eq(proto_cmd_find(""), -ENOENT);
}

Test(proto_cmd, type_check_per_type)
{
	static const struct {
		const char		*json;
		enum proto_cmd_type	 type;
		int			 ok;
	} cases[] = {
		{ "\"x\"", PROTO_T_STRING, 1 },
		{ "3", PROTO_T_STRING, 0 },
		{ "3", PROTO_T_INTEGER, 1 },
		{ "3.5", PROTO_T_INTEGER, 0 },
		{ "3", PROTO_T_NUMBER, 1 },
		{ "3.5", PROTO_T_NUMBER, 1 },
		{ "\"3\"", PROTO_T_NUMBER, 0 },
		{ "true", PROTO_T_BOOL, 1 },
		{ "0", PROTO_T_BOOL, 0 },
		{ "[\"a\",\"b\"]", PROTO_T_STRINGS, 1 },
		{ "[]", PROTO_T_STRINGS, 1 },
		{ "[\"a\",1]", PROTO_T_STRINGS, 0 },
		{ "\"a\"", PROTO_T_STRINGS, 0 },
		{ "{}", PROTO_T_OBJECT, 1 },
		{ "[]", PROTO_T_OBJECT, 0 },
	};
	json_t *v;
	size_t i;

	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		v = json_loads(cases[i].json, JSON_DECODE_ANY, NULL);
		cr_assert_not_null(v, "case %zu", i);
		cr_expect_eq(proto_cmd_type_ok(v, cases[i].type), cases[i].ok,
		    "%s as %s", cases[i].json,
		    proto_cmd_type_name(cases[i].type));
		json_decref(v);
	}
	cr_expect_str_eq(proto_cmd_type_name(PROTO_T_STRINGS),
	    "an array of strings");
}

Test(proto_cmd, check_names_the_field)
{
	static const struct {
		enum proto_cmd_id	 id;
		const char		*req;
		int			 rc;
		enum proto_error	 code;
		const char		*msg;
	} cases[] = {
		{ PROTO_CMD_BISECT, "{\"good\":[\"a\"],\"benchmark\":\"b\","
		    "\"metric\":\"m\"}", -EINVAL, PROTO_E_MISSING_FIELD,
		    "bisect: field bad is required" },
		{ PROTO_CMD_BISECT, "{\"good\":\"a\",\"bad\":\"x\","
		    "\"benchmark\":\"b\",\"metric\":\"m\"}", -EINVAL,
		    PROTO_E_BAD_TYPE,
		    "bisect: field good must be an array of strings" },
		{ PROTO_CMD_CANCEL, "{\"bisection\":\"4\"}", -EINVAL,
		    PROTO_E_BAD_TYPE,
		    "cancel: field bisection must be an integer" },
		{ PROTO_CMD_HOSTS, "{\"group\":3}", -EINVAL, PROTO_E_BAD_TYPE,
		    "hosts: field group must be a string" },
		{ PROTO_CMD_HOSTS, "{}", 0, 0, "" },
		{ PROTO_CMD_STATUS, "{}", 0, 0, "" },
		/* Issue 38: an unknown field is refused, the request's id not. */
		{ PROTO_CMD_PING, "{\"anything\":[1]}", -EINVAL,
		    PROTO_E_INVALID_ARGUMENT, "ping: unknown field anything" },
		{ PROTO_CMD_STATUS, "{\"id\":\"4\"}", 0, 0, "" },
		{ PROTO_CMD_BISECT, "{\"good\":[\"a\"],\"bad\":\"x\","
		    "\"benchmark\":\"b\",\"metric\":\"m\",\"max_samples\":3}",
		    -EINVAL, PROTO_E_INVALID_ARGUMENT,
		    "max_samples: must be between 6 and 1000000" },
		{ PROTO_CMD_SAMPLES, "{\"bisection\":4,\"commit\":\"ab\"}", 0,
		    0, "" },
	};
	struct bd_error err;
	enum proto_error code;
	json_t *req;
	size_t i;

	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		req = json_loads(cases[i].req, 0, NULL);
		cr_assert_not_null(req, "case %zu", i);
		bd_error_clear(&err);
		code = PROTO_E_COUNT;
		cr_expect_eq(proto_cmd_check(cases[i].id, req, &code, &err),
		    cases[i].rc, "case %zu: %s", i, err.msg);
		cr_expect_str_eq(err.msg, cases[i].msg, "case %zu", i);
		if (cases[i].rc != 0)
			cr_expect_eq(code, cases[i].code, "case %zu", i);
		json_decref(req);
	}
}

Test(proto_cmd, daemon_answers_every_row)
{
	size_t i;

	for (i = 0; i < PROTO_CMD_COUNT; i++)
		cr_expect_not_null(cmd_find(proto_cmd_table[i].name),
		    "bisectd has no handler for %s", proto_cmd_table[i].name);
	cr_expect_null(cmd_find("frobnicate"));
}

/*
 * Adds the backquoted command names of one "### `a`, `b`" heading (or
 * sentence) to seen (counts per table row); names the table lacks are
 * appended to unknown.
 */
static void
doc_heading(const char *h, int *seen, char *unknown, size_t size)
{
	const char *p = h, *end;
	char name[64];
	int id;

	while ((p = strchr(p, '`')) != NULL) {
		end = strchr(p + 1, '`');
		if (end == NULL)
			break;
		snprintf(name, sizeof(name), "%.*s", (int)(end - p - 1),
		    p + 1);
		id = proto_cmd_find(name);
		if (id >= 0)
			seen[id]++;
		else
			snprintf(unknown + strlen(unknown),
			    size - strlen(unknown), " %s", name);
		p = end + 1;
	}
}

Test(proto_cmd, protocol_doc_has_every_command_and_no_other)
{
	int seen[PROTO_CMD_COUNT] = { 0 };
	char unknown[512] = "", *path, *text, *line, *nl;
	size_t i;

	xasprintf(&path, "%s/docs/protocol.md", tst_env_path("BISECTD_SRCDIR"));
	text = tst_read_file(path);
	cr_assert_not_null(text, "cannot read %s", path);
	for (line = text; line != NULL && *line != '\0'; line = nl) {
		nl = strchr(line, '\n');
		if (nl != NULL)
			*nl++ = '\0';
		if (strncmp(line, "### `", 5) == 0)
			doc_heading(line + 4, seen, unknown, sizeof(unknown));
	}
	for (i = 0; i < PROTO_CMD_COUNT; i++)
		cr_expect_eq(seen[i], 1, "docs/protocol.md has %d \"### `%s`\" "
		    "headings, not 1", seen[i], proto_cmd_table[i].name);
	cr_expect_str_eq(unknown, "", "docs/protocol.md documents commands "
	    "the table lacks:%s", unknown);
	free(text);
	free(path);
}

Test(proto_cmd, protocol_doc_names_the_state_changing_commands)
{
	static const char lead[] = "The state-changing commands are";
	int named[PROTO_CMD_COUNT] = { 0 };
	char unknown[512] = "", *path, *text, *p, *dot;
	size_t i;

	xasprintf(&path, "%s/docs/protocol.md", tst_env_path("BISECTD_SRCDIR"));
	text = tst_read_file(path);
	cr_assert_not_null(text, "cannot read %s", path);
	for (p = text; (p = strchr(p, '\n')) != NULL; p++)
		*p = ' ';
	p = strstr(text, lead);
	cr_assert_not_null(p, "docs/protocol.md lacks \"%s\"", lead);
	dot = strchr(p, '.');
	cr_assert_not_null(dot);
	*dot = '\0';
	doc_heading(p, named, unknown, sizeof(unknown));
	for (i = 0; i < PROTO_CMD_COUNT; i++)
		cr_expect_eq(named[i] == 1, (proto_cmd_table[i].flags &
		    PROTO_CMD_STATE_CHANGING) != 0, "%s: named %d times, flags "
		    "%#x", proto_cmd_table[i].name, named[i],
		    proto_cmd_table[i].flags);
	cr_expect_str_eq(unknown, "");
	free(text);
	free(path);
}
