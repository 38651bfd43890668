/* SPDX-License-Identifier: MIT */
/*
 * Shell quoting and placeholder substitution for step templates.
 *
 * Benchmark steps are configured as command templates such as
 * "make -C {workdir} O=build-{short}".  Values come from commits, hosts and
 * requests, so nothing may reach a shell unquoted: in QUOTE_SHELL mode every
 * value is substituted as one single-quoted shell word.  QUOTE_RAW inserts the
 * value as it is, for templates that are compared rather than run (the
 * expected kernel release).
 *
 * A placeholder is {name} with a name from the table in quote.c.  Anything
 * else in braces ("{print $1}", "${HOME}", "${commit}") is left alone, so awk
 * programs and shell variables keep working.
 */
#ifndef REMOTE_QUOTE_H
#define REMOTE_QUOTE_H

#include <stddef.h>

#include "common/error.h"

/* Values for the placeholders; a NULL value is an error if it is used. */
struct quote_vars {
	const char	*commit;	/* full sha */
	const char	*short_;	/* abbreviated sha; NULL: first 12 of commit */
	const char	*workdir;	/* the host's remote work directory */
	const char	*host;		/* host name from the config */
	const char	*run_id;
	const char	*artifact;	/* build artifact path on this host */
};

enum quote_mode {
	QUOTE_SHELL = 0,	/* each value becomes one single-quoted word */
	QUOTE_RAW,		/* values inserted verbatim (never for a shell) */
};

/*
 * Returns s as one shell word in single quotes (' becomes '\'').  The result
 * is malloc'ed; the caller frees it.
 */
char	*quote_shell(const char *s);

/*
 * Expands the placeholders of tmpl into *out (malloc'ed, caller frees).
 * Returns 0, or -EINVAL with err naming the placeholder that has no value.
 */
int	 quote_expand(const char *tmpl, const struct quote_vars *vars,
	    enum quote_mode mode, char **out, struct bd_error *err);

#endif
