/* SPDX-License-Identifier: MIT */
/*
 * bisectctl's arguments as ctl/args.c derives them from the protocol
 * table: which options and positional argument a command takes, in which
 * kind, and how text becomes JSON.
 */
#include <criterion/criterion.h>
#include <jansson.h>
#include <string.h>

#include "common/proto_cmd.h"
#include "ctl/args.h"
#include "tests/support/tst.h"

TestSuite(ctl_args, .fini = tst_leak_check);

Test(ctl_args, bisect_options_come_from_its_fields)
{
	static const struct {
		const char	*name;
		const char	*field;
		enum args_kind	 kind;
		int		 required;
	} want[] = {
		{ "--good", "good", ARGS_STRINGS, 1 },
		{ "--bad", "bad", ARGS_STRING, 1 },
		{ "--benchmark", "benchmark", ARGS_STRING, 1 },
		{ "--metric", "metric", ARGS_STRING, 1 },
		{ "--group", "group", ARGS_STRING, 0 },
		{ "--confidence", "confidence", ARGS_FRACTION, 0 },
		{ "--max-samples", "max_samples", ARGS_COUNT, 0 },
		{ "--first-parent", "first_parent", ARGS_TRUE, 0 },
		{ "--priority", "priority", ARGS_INT, 0 },
		{ "--fixup", "fixups", ARGS_STRINGS, 0 },
	};
	struct args_set set;
	size_t i;

	args_collect(&set, &proto_cmd_table[PROTO_CMD_BISECT], NULL);
	cr_assert_eq(set.nopts, sizeof(want) / sizeof(want[0]));
	cr_expect_null(set.pos.name);
	for (i = 0; i < set.nopts; i++) {
		cr_expect_str_eq(set.opts[i].name, want[i].name);
		cr_expect_str_eq(set.opts[i].field, want[i].field);
		cr_expect_eq(set.opts[i].kind, want[i].kind, "%s",
		    want[i].name);
		cr_expect_eq(set.opts[i].required, want[i].required, "%s",
		    want[i].name);
		cr_expect_eq(set.opts[i].local, 0);
	}
}

Test(ctl_args, positional_and_local_arguments)
{
	static const struct args_spec local[] = {
		{ .name = "--follow", .field = "follow", .kind = ARGS_TRUE,
		    .local = 1 },
		{ .name = NULL }
	};
	struct args_set set;

	args_collect(&set, &proto_cmd_table[PROTO_CMD_STATUS], local);
	cr_assert_str_eq(set.pos.name, "ID");
	cr_expect_str_eq(set.pos.field, "bisection");
	cr_expect_eq(set.pos.kind, ARGS_ID);
	cr_expect_eq(set.pos.required, 0);
	cr_assert_eq(set.nopts, 1);
	cr_expect_str_eq(set.opts[0].name, "--follow");
	cr_expect_eq(set.opts[0].local, 1);

	args_collect(&set, &proto_cmd_table[PROTO_CMD_DRAIN], NULL);
	cr_assert_str_eq(set.pos.name, "HOST");
	cr_expect_eq(set.pos.kind, ARGS_STRING);
	cr_expect_eq(set.pos.required, 1);
	cr_expect_eq(set.nopts, 0);

	args_collect(&set, &proto_cmd_table[PROTO_CMD_PING], NULL);
	cr_expect_null(set.pos.name);
	cr_expect_eq(set.nopts, 0);
}

Test(ctl_args, values_are_checked_by_kind)
{
	static const struct {
		enum args_kind		 kind;
		enum proto_cmd_type	 type;
		const char		*text;
		const char		*json;	/* NULL: refused */
	} cases[] = {
		{ ARGS_STRING, PROTO_T_STRING, "v6.6", "\"v6.6\"" },
		{ ARGS_STRING, PROTO_T_STRING, "", NULL },
		{ ARGS_FRACTION, PROTO_T_NUMBER, "0.99", "0.98999999999999999" },
		{ ARGS_FRACTION, PROTO_T_NUMBER, "1", NULL },
		{ ARGS_COUNT, PROTO_T_INTEGER, "12", "12" },
		{ ARGS_COUNT, PROTO_T_INTEGER, "0", NULL },
		{ ARGS_INT, PROTO_T_INTEGER, "-3", "-3" },
		{ ARGS_INT, PROTO_T_INTEGER, "99999999999", NULL },
		{ ARGS_ID, PROTO_T_INTEGER, "99999999999", "99999999999" },
		{ ARGS_ID, PROTO_T_INTEGER, "4x", NULL },
		{ ARGS_TRUE, PROTO_T_BOOL, "", "true" },
		{ ARGS_OBJECT, PROTO_T_OBJECT, "{\"cmd\":\"ping\"}",
		    "{\"cmd\": \"ping\"}" },
		{ ARGS_OBJECT, PROTO_T_OBJECT, "[1]", NULL },
		{ ARGS_VALUE, PROTO_T_STRINGS, "[\"a\",\"b\"]",
		    "[\"a\", \"b\"]" },
		{ ARGS_VALUE, PROTO_T_STRINGS, "[1]", NULL },
		{ ARGS_VALUE, PROTO_T_NUMBER, "2.5", "2.5" },
	};
	struct args_spec a;
	const char *why;
	json_t *v;
	char *s;
	size_t i;

	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		a = (struct args_spec){ .name = "--x", .field = "x",
		    .kind = cases[i].kind, .type = cases[i].type };
		why = NULL;
		v = args_value(&a, cases[i].text, &why);
		if (cases[i].json == NULL) {
			cr_expect_null(v, "case %zu (%s) accepted", i,
			    cases[i].text);
			cr_expect(why != NULL && *why != '\0', "case %zu "
			    "says nothing", i);
			json_decref(v);
			continue;
		}
		cr_assert_not_null(v, "case %zu (%s) refused", i,
		    cases[i].text);
		s = json_dumps(v, JSON_ENCODE_ANY | JSON_REAL_PRECISION(17));
		cr_expect_str_eq(s, cases[i].json, "case %zu", i);
		free(s);
		json_decref(v);
	}
}
