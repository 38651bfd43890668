/* SPDX-License-Identifier: MIT */
#include <criterion/criterion.h>
#include <errno.h>
#include <math.h>
#include <string.h>

#include "common/agg.h"
#include "common/decimal.h"
#include "common/error.h"
#include "common/proto.h"
#include "common/xmalloc.h"
#include "tests/support/tst.h"

TestSuite(common, .fini = tst_leak_check);

Test(common, error_set_returns_code_and_formats)
{
	struct bd_error e;

	bd_error_clear(&e);
	cr_assert_eq(bd_error_set(&e, -EINVAL, "bad %s at %d", "key", 7), -EINVAL);
	cr_assert_eq(e.code, -EINVAL);
	cr_assert_str_eq(e.msg, "bad key at 7");
	cr_assert_eq(bd_error_set(NULL, -EIO, "x"), -EIO);
}

Test(common, xasprintf_formats)
{
	char *s;

	cr_assert_eq(xasprintf(&s, "%d-%s", 42, "x"), 4);
	cr_assert_str_eq(s, "42-x");
	free(s);
}

/* A message cut inside a character (here the third byte of a euro sign). */
Test(common, reply_error_keeps_a_message_cut_inside_a_character)
{
	json_t *r = proto_reply_error(NULL, PROTO_E_UNKNOWN_COMMAND,
	    "unknown command \xe2\x82\xac\xe2\x82");
	json_t *e = json_object_get(r, "error");
	char *line;
	size_t len;

	cr_assert(json_is_object(e));
	cr_assert_str_eq(json_string_value(json_object_get(e, "code")),
	    "unknown-command");
	cr_assert_str_eq(json_string_value(json_object_get(e, "message")),
	    "unknown command \xe2\x82\xac");
	line = proto_encode(r, &len);
	cr_assert_not_null(line);
	cr_assert_eq(line[len - 1], '\n');
	cr_assert_null(memchr(line, '\n', len - 1));
	free(line);
	json_decref(r);
}

/* Overlong forms, surrogates and stray bytes; NULL is an empty message. */
Test(common, reply_error_replaces_every_malformed_byte)
{
	static const struct {
		const char	*in;
		const char	*out;
	} cases[] = {
		{ "a\xc0\xafz", "a??z" },		/* overlong '/' */
		{ "\xed\xa0\x80", "???" },		/* a surrogate */
		{ "\xf4\x90\x80\x80", "????" },		/* above U+10FFFF */
		{ "\x80x\xff", "?x?" },
		{ "\xf0\x9f\x98\x80 ok", "\xf0\x9f\x98\x80 ok" },
		{ NULL, "" },
	};
	json_t *r;
	size_t i;

	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		r = proto_reply_error(NULL, PROTO_E_INTERNAL, cases[i].in);
		cr_assert_str_eq(json_string_value(json_object_get(
		    json_object_get(r, "error"), "message")), cases[i].out,
		    "case %zu", i);
		json_decref(r);
	}
}

/*
 * Controls as '?' (a C1 control is one '?' for its two bytes), malformed
 * bytes as bd_utf8_fix leaves them; a line keeps no newline or tab.
 */
Test(common, text_and_lines_show_controls_as_question_marks)
{
	static const struct {
		const char	*in;
		const char	*line;
		const char	*text;
	} cases[] = {
		{ "plain caf\xc3\xa9", "plain caf\xc3\xa9", "plain caf\xc3\xa9" },
		{ "a\r\nBcc: x", "a??Bcc: x", "a?\nBcc: x" },
		{ "t\tu\n", "t?u?", "t\tu\n" },
		{ "\x1b]0;t\x07 \x7f", "?]0;t? ?", "?]0;t? ?" },
		{ "csi \xc2\x9b" "31m", "csi ?31m", "csi ?31m" },
		{ "nbsp \xc2\xa0 ok", "nbsp \xc2\xa0 ok", "nbsp \xc2\xa0 ok" },
		{ "latin \xe9 cut \xe2\x82", "latin ? cut ", "latin ? cut " },
		{ "", "", "" },
	};
	char *s;
	size_t i;

	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		s = xstrdup(cases[i].in);
		cr_expect_str_eq(bd_utf8_line(s), cases[i].line, "line %zu", i);
		free(s);
		s = xstrdup(cases[i].in);
		cr_expect_str_eq(bd_utf8_text(s), cases[i].text, "text %zu", i);
		free(s);
	}
}

/* A run's values as one: each aggregate, and no overflow on the way. */
Test(common, aggregates_of_a_run)
{
	static const double v[] = { 3, -1, 8, 2 };
	static const double big[] = { 1e100, 1e100, -1e100, 1e100 };
	double out, bad[] = { 1, NAN };
	int k;

	cr_assert_eq(agg_apply(AGG_MEAN, v, 4, &out), 0);
	cr_expect_float_eq(out, 3, 1e-12);
	cr_assert_eq(agg_apply(AGG_MEDIAN, v, 4, &out), 0);
	cr_expect_float_eq(out, 2.5, 1e-12);
	cr_assert_eq(agg_apply(AGG_MEDIAN, v, 3, &out), 0);
	cr_expect_float_eq(out, 3, 1e-12);
	cr_assert_eq(agg_apply(AGG_MIN, v, 4, &out), 0);
	cr_expect_eq(out, -1);
	cr_assert_eq(agg_apply(AGG_MAX, v, 4, &out), 0);
	cr_expect_eq(out, 8);
	cr_assert_eq(agg_apply(AGG_MEAN, big, 4, &out), 0);
	cr_expect(isfinite(out) && fabs(out - 5e99) < 1e86, "%g", out);
	cr_assert_eq(agg_apply(AGG_MEDIAN, big, 4, &out), 0);
	cr_expect_eq(out, 1e100);
	cr_expect_eq(agg_apply(AGG_MEAN, v, 0, &out), -EINVAL);
	cr_expect_eq(agg_apply(AGG_MEAN, bad, 2, &out), -EINVAL);
	bad[1] = 1.7e308;
	cr_expect_eq(agg_apply(AGG_MAX, bad, 2, &out), -EINVAL);
	cr_expect(agg_value_valid(-BD_VALUE_MAX));
	cr_expect(!agg_value_valid(INFINITY));
	cr_expect_eq(name_find(agg_names, "median", &k), 0);
	cr_expect_eq(k, AGG_MEDIAN);
}

/* Decimal numbers only: strtod's other forms are refused. */
Test(common, decimal_parse_reads_decimal_numbers_only)
{
	static const struct {
		const char	*in;
		int		 rc;
		double		 v;
	} cases[] = {
		{ "8", 0, 8 }, { "-0.5", 0, -0.5 }, { "+2", 0, 2 },
		{ ".5", 0, 0.5 }, { "5.", 0, 5 }, { "1e-3", 0, 1e-3 },
		{ "2.5E+2", 0, 250 }, { "1e-400", 0, 0 },
		{ "0x1p3", -EINVAL, 0 }, { "0X10", -EINVAL, 0 },
		{ "inf", -EINVAL, 0 }, { "-Infinity", -EINVAL, 0 },
		{ "nan", -EINVAL, 0 }, { "NAN(1)", -EINVAL, 0 },
		{ " 8", -EINVAL, 0 }, { "8 ", -EINVAL, 0 }, { "\t8", -EINVAL, 0 },
		{ "", -EINVAL, 0 }, { ".", -EINVAL, 0 }, { "-", -EINVAL, 0 },
		{ "1e", -EINVAL, 0 }, { "1.2.3", -EINVAL, 0 },
		{ "--1", -EINVAL, 0 }, { "1e999", -ERANGE, 0 },
	};
	const char *end;
	double v;
	size_t i;

	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		v = -1;
		cr_expect_eq(decimal_parse(cases[i].in, &v), cases[i].rc,
		    "\"%s\"", cases[i].in);
		if (cases[i].rc == 0)
			cr_expect_float_eq(v, cases[i].v, 1e-12, "\"%s\": %g",
			    cases[i].in, v);
	}
	cr_assert_eq(decimal_prefix("2.5%", &v, &end), 0);
	cr_expect_str_eq(end, "%");
	cr_expect_float_eq(v, 2.5, 1e-12);
	cr_assert_eq(decimal_prefix("0x1p3", &v, &end), -EINVAL);
	cr_expect_str_eq(end, "0x1p3");
}

/*
 * Issue 38: a moment in epoch ms gets its RFC 3339 string beside it, in
 * nested objects and arrays too; durations, zeros and names already taken
 * get none.
 */
Test(common, add_times_puts_rfc3339_beside_moments)
{
	json_t *m = json_loads("{\"created_ms\":1764000000123,"
	    "\"took_ms\":41,\"last_ok_ms\":0,\"next\":\"now\","
	    "\"next_ms\":1764000300000,\"list\":[{\"time_ms\":5}],"
	    "\"in\":{\"updated_ms\":1764000300000}}", 0, NULL);

	cr_assert_not_null(m);
	proto_add_times(m);
	cr_expect_str_eq(json_string_value(json_object_get(m, "created")),
	    "2025-11-24T16:00:00.123Z");
	cr_expect_null(json_object_get(m, "took"), "a duration");
	cr_expect_null(json_object_get(m, "last_ok"), "never");
	cr_expect_str_eq(json_string_value(json_object_get(m, "next")), "now");
	cr_expect_str_eq(json_string_value(json_object_get(json_array_get(
	    json_object_get(m, "list"), 0), "time")),
	    "1970-01-01T00:00:00.005Z");
	cr_expect_str_eq(json_string_value(json_object_get(json_object_get(m,
	    "in"), "updated")), "2025-11-24T16:05:00.000Z");
	json_decref(m);
}
