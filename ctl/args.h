/* SPDX-License-Identifier: MIT */
/*
 * bisectctl's arguments: which options and positional argument a command
 * takes, derived from its row of the protocol table (a field's "arg") and
 * bisectctl's own local arguments, and how each argument's text is checked
 * and turned into JSON before the daemon is asked.
 *
 * Everything here borrows: an args_set points into the table and into the
 * caller's static local arguments.
 */
#ifndef CTL_ARGS_H
#define CTL_ARGS_H

#include <jansson.h>

#include "common/proto_cmd.h"

/* How an argument's text is checked and what JSON it becomes. */
enum args_kind {
	ARGS_VALUE = 0,		/* JSON text of the field's type */
	ARGS_STRING,		/* a non-empty string, given once */
	ARGS_STRINGS,		/* a string; repeated, they form an array */
	ARGS_FRACTION,		/* a number strictly between 0 and 1 */
	ARGS_COUNT,		/* an integer from 1 to INT_MAX */
	ARGS_INT,		/* an integer from INT_MIN to INT_MAX */
	ARGS_ID,		/* a bisection id: an integer from 1 */
	ARGS_TRUE,		/* an option without a value: true */
	ARGS_OBJECT,		/* a JSON object that becomes the request */
};

/*
 * One option ("--name") or the positional argument ("ID").  field is the
 * request member it fills; a local argument is kept for bisectctl
 * (--follow) instead of being sent.
 */
struct args_spec {
	const char		*name;
	const char		*field;
	enum args_kind		 kind;
	enum proto_cmd_type	 type;		/* of ARGS_VALUE */
	int			 required;
	int			 local;
	const char		*help;		/* one line, for --help */
	long long		 min, max;	/* integers, when max > min */
};

/* Options of one command: its fields and a few local ones. */
#define ARGS_OPTS_MAX	(PROTO_CMD_FIELDS_MAX + 4)

/* The arguments of one command. */
struct args_set {
	struct args_spec	 opts[ARGS_OPTS_MAX];
	size_t			 nopts;
	struct args_spec	 pos;		/* name NULL: none */
};

/* The kind a field of the table becomes on the command line. */
enum args_kind args_kind(const struct proto_cmd_field *f);
/*
 * Fills set with the fields of row that have a command-line spelling, in
 * table order, then the local arguments (NULL-name ended, or NULL).
 */
void	args_collect(struct args_set *set, const struct proto_cmd *row,
	    const struct args_spec *local);
/*
 * Turns one argument's text into JSON (the caller's), or returns NULL with
 * *why saying what was expected ("a whole number of at least 1").
 */
json_t	*args_value(const struct args_spec *a, const char *text,
	    const char **why);

#endif
