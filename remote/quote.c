/* SPDX-License-Identifier: MIT */
#include <stdlib.h>
#include <string.h>

#include "common/xmalloc.h"
#include "remote/quote.h"

#define QUOTE_SHORT_LEN 12

/* A growing string; only this file builds strings piece by piece. */
struct quote_buf {
	char	*s;
	size_t	 len;
	size_t	 cap;
};

struct quote_name {
	const char	*name;
	size_t		 off;	/* offsetof(struct quote_vars, field) */
};

/* Placeholders and where their values live, so adding one is one line. */
static const struct quote_name quote_names[] = {
	{ "commit",	offsetof(struct quote_vars, commit) },
	{ "short",	offsetof(struct quote_vars, short_) },
	{ "workdir",	offsetof(struct quote_vars, workdir) },
	{ "host",	offsetof(struct quote_vars, host) },
	{ "run_id",	offsetof(struct quote_vars, run_id) },
	{ "artifact",	offsetof(struct quote_vars, artifact) },
};

/* Appends n bytes, growing geometrically so long templates stay linear. */
static void
quote_buf_add(struct quote_buf *b, const char *p, size_t n)
{
	if (b->cap - b->len < n + 1) {
		size_t cap = b->cap ? b->cap : 64;

		while (cap - b->len < n + 1)
			cap *= 2;
		b->s = xreallocarray(b->s, cap, 1);
		b->cap = cap;
	}
	memcpy(b->s + b->len, p, n);
	b->len += n;
	b->s[b->len] = '\0';
}

/* Writes s as a single-quoted word: the only character needing care is '. */
static void
quote_buf_word(struct quote_buf *b, const char *s)
{
	const char *q;

	quote_buf_add(b, "'", 1);
	while ((q = strchr(s, '\'')) != NULL) {
		quote_buf_add(b, s, (size_t)(q - s));
		quote_buf_add(b, "'\\''", 4);
		s = q + 1;
	}
	quote_buf_add(b, s, strlen(s));
	quote_buf_add(b, "'", 1);
}

/* Single quotes keep every byte literal in a POSIX shell, newlines too. */
char *
quote_shell(const char *s)
{
	struct quote_buf b = { NULL, 0, 0 };

	quote_buf_word(&b, s);
	return b.s;
}

/* Looks a name up in the table; NULL when it is not a placeholder. */
static const struct quote_name *
quote_lookup(const char *name, size_t len)
{
	size_t i;

	for (i = 0; i < sizeof(quote_names) / sizeof(quote_names[0]); i++) {
		if (strlen(quote_names[i].name) == len &&
		    memcmp(quote_names[i].name, name, len) == 0)
			return &quote_names[i];
	}
	return NULL;
}

/* The value of a placeholder, deriving {short} from {commit} when unset. */
static const char *
quote_value(const struct quote_name *qn, const struct quote_vars *vars,
    char *shortbuf)
{
	const char *v = *(const char *const *)((const char *)vars + qn->off);

	if (v == NULL && qn->off == offsetof(struct quote_vars, short_) &&
	    vars->commit != NULL) {
		strncpy(shortbuf, vars->commit, QUOTE_SHORT_LEN);
		shortbuf[QUOTE_SHORT_LEN] = '\0';
		v = shortbuf;
	}
	return v;
}

/*
 * Placeholders are replaced in one pass over the template, so a value that
 * itself contains "{commit}" is never expanded again.
 */
int
quote_expand(const char *tmpl, const struct quote_vars *vars,
    enum quote_mode mode, char **out, struct bd_error *err)
{
	struct quote_buf b = { NULL, 0, 0 };
	char shortbuf[QUOTE_SHORT_LEN + 1];
	const struct quote_name *qn;
	const char *p = tmpl, *open, *close, *v;

	*out = NULL;
	quote_buf_add(&b, "", 0);
	while ((open = strchr(p, '{')) != NULL) {
		close = strchr(open + 1, '}');
		if (close == NULL)
			break;
		qn = quote_lookup(open + 1, (size_t)(close - open - 1));
		if (qn == NULL || (open > tmpl && open[-1] == '$')) {
			/* Not ours: copy up to and including the brace. */
			quote_buf_add(&b, p, (size_t)(open + 1 - p));
			p = open + 1;
			continue;
		}
		v = quote_value(qn, vars, shortbuf);
		if (v == NULL) {
			free(b.s);
			return bd_error_set(err, -EINVAL,
			    "placeholder {%s} has no value in \"%s\"",
			    qn->name, tmpl);
		}
		quote_buf_add(&b, p, (size_t)(open - p));
		if (mode == QUOTE_SHELL)
			quote_buf_word(&b, v);
		else
			quote_buf_add(&b, v, strlen(v));
		p = close + 1;
	}
	quote_buf_add(&b, p, strlen(p));
	*out = b.s;
	return 0;
}
