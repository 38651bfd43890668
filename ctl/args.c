/* SPDX-License-Identifier: MIT */
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/decimal.h"
#include "ctl/args.h"

/* Which argument kind a field's type and range become; others ARGS_VALUE. */
static const struct {
	enum proto_cmd_type	type;
	enum proto_cmd_range	range;
	enum args_kind		kind;
} args_kinds[] = {
	{ PROTO_T_STRING, PROTO_R_ANY, ARGS_STRING },
	{ PROTO_T_STRINGS, PROTO_R_ANY, ARGS_STRINGS },
	{ PROTO_T_BOOL, PROTO_R_ANY, ARGS_TRUE },
	{ PROTO_T_INTEGER, PROTO_R_ANY, ARGS_INT },
	{ PROTO_T_INTEGER, PROTO_R_COUNT, ARGS_COUNT },
	{ PROTO_T_INTEGER, PROTO_R_ID, ARGS_ID },
	{ PROTO_T_NUMBER, PROTO_R_FRACTION, ARGS_FRACTION },
};

/* The table above decides, so a new type needs no code here. */
enum args_kind
args_kind(const struct proto_cmd_field *f)
{
	size_t i;

	for (i = 0; i < sizeof(args_kinds) / sizeof(args_kinds[0]); i++)
		if (args_kinds[i].type == f->type &&
		    args_kinds[i].range == f->range)
			return args_kinds[i].kind;
	return ARGS_VALUE;
}

/* Files a among the options or as the positional argument. */
static void
args_add(struct args_set *set, const struct args_spec *a)
{
	if (strncmp(a->name, "--", 2) != 0)
		set->pos = *a;
	else if (set->nopts < sizeof(set->opts) / sizeof(set->opts[0]))
		set->opts[set->nopts++] = *a;
}

/* Options come in table order, so usage errors name them predictably. */
void
args_collect(struct args_set *set, const struct proto_cmd *row,
    const struct args_spec *local)
{
	const struct proto_cmd_field *f;
	const struct args_spec *l;
	struct args_spec a;

	memset(set, 0, sizeof(*set));
	for (f = row->fields; f != NULL && f->name != NULL; f++) {
		if (f->arg == NULL)
			continue;
		a = (struct args_spec){ .name = f->arg, .field = f->name,
		    .kind = args_kind(f), .type = f->type,
		    .required = f->required, .help = f->help, .min = f->min,
		    .max = f->max };
		args_add(set, &a);
	}
	for (l = local; l != NULL && l->name != NULL; l++)
		args_add(set, l);
}

/* The whole text must be an integer in [lo, hi]; 0 or -1. */
static int
args_int(const char *s, long long lo, long long hi, long long *vp)
{
	char *end;
	long long v;

	errno = 0;
	v = strtoll(s, &end, 10);
	if (*s == '\0' || *end != '\0' || errno != 0 || v < lo || v > hi)
		return -1;
	*vp = v;
	return 0;
}

/*
 * Turns one argument's text into JSON, or NULL with *why saying what was
 * expected; checking here gives a usage error before the daemon is asked.
 */
json_t *
args_value(const struct args_spec *a, const char *text, const char **why)
{
	/* bisectctl parses one command line: one message at a time. */
	static char range[96];
	json_error_t jerr;
	json_t *o;
	long long v;
	double d;

	switch (a->kind) {
	case ARGS_VALUE:
		*why = proto_cmd_type_name(a->type);
		o = json_loads(text, JSON_DECODE_ANY, &jerr);
		if (o != NULL && !proto_cmd_type_ok(o, a->type)) {
			json_decref(o);
			o = NULL;
		}
		return o;
	case ARGS_STRING:
	case ARGS_STRINGS:
		*why = "a non-empty value";
		return *text != '\0' ? json_string(text) : NULL;
	case ARGS_FRACTION:
		*why = "a number between 0 and 1, such as 0.99";
		if (decimal_parse(text, &d) != 0 || d <= 0.0 || d >= 1.0)
			return NULL;
		return json_real(d);
	case ARGS_COUNT:
	case ARGS_INT:
		if (a->max > a->min) {
			snprintf(range, sizeof(range), "a whole number from "
			    "%lld to %lld", a->min, a->max);
			*why = range;
			return args_int(text, a->min, a->max, &v) == 0 ?
			    json_integer(v) : NULL;
		}
		*why = a->kind == ARGS_COUNT ? "a whole number of at least 1" :
		    "a whole number";
		return args_int(text, a->kind == ARGS_COUNT ? 1 : INT_MIN,
		    INT_MAX, &v) == 0 ? json_integer(v) : NULL;
	case ARGS_ID:
		*why = "a bisection id (a whole number of at least 1)";
		return args_int(text, 1, LLONG_MAX, &v) == 0 ?
		    json_integer(v) : NULL;
	case ARGS_TRUE:
		return json_true();
	case ARGS_OBJECT:
		*why = "a JSON object";
		o = json_loads(text, 0, &jerr);
		if (o != NULL && !json_is_object(o)) {
			json_decref(o);
			o = NULL;
		}
		return o;
	}
	return NULL;
}

