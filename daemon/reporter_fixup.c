/* SPDX-License-Identifier: MIT */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "common/xmalloc.h"
#include "daemon/reporter_fixup.h"

/* Per commit of the range: what its runs said, in engine order. */
struct rf_commit {
	unsigned	 done, skipped, fixed_done;
	char		*fixups;	/* "A, B" of the last fixed-up run */
	int		 found;		/* one of them was found, not given */
	char		*why;		/* the last fix-up skip's reason */
};

struct rf_ctx {
	struct bisection	*b;
	struct rf_commit	*c;
};

static int
rf_run(void *arg, const struct store_run *r)
{
	struct rf_ctx *x = arg;
	int64_t idx = bisection_commit_index(x->b, r->commit);
	struct rf_commit *c;
	json_t *t = NULL, *fx, *v;
	size_t i;

	if (idx < 0 || (uint64_t)idx >= x->b->g.n)
		return 0;
	c = &x->c[idx];
	if (r->timings != NULL)
		t = json_loads(r->timings, 0, NULL);
	if (r->state == STORE_RUN_SKIPPED) {
		c->skipped++;
		if (json_is_string(v = json_object_get(t, "fixup_skip"))) {
			free(c->why);
			c->why = xstrdup(json_string_value(v));
		}
	} else if (r->state == STORE_RUN_DONE) {
		c->done++;
		if (json_array_size(fx = json_object_get(t, "fixups")) > 0) {
			c->fixed_done++;
			free(c->fixups);
			c->fixups = NULL;
			json_array_foreach(fx, i, v) {
				char *s;

				xasprintf(&s, "%s%s%s", c->fixups ? c->fixups :
				    "", c->fixups ? ", " : "",
				    json_string_value(v));
				free(c->fixups);
				c->fixups = s;
			}
			c->found |= json_array_size(json_object_get(t,
			    "auto_fixups")) > 0;
		}
	}
	json_decref(t);
	return 0;
}

static void
rf_push(char ***lines, size_t *n, char *s)
{
	*lines = xreallocarray(*lines, *n + 1, sizeof(**lines));
	(*lines)[(*n)++] = s;
}

void
reporter_fixup_lines(struct store *st, git_repository *repo,
    struct bisection *b, int inconclusive, size_t n_set, char ***lines,
    size_t *n)
{
	struct rf_ctx x = { b, NULL };
	struct bd_error err;
	char sha[GIT_OID_HEXSZ + 1], subj[120], *s;
	size_t i, first = SIZE_MAX, last = 0;

	*lines = NULL;
	*n = 0;
	if (!b->engine_ready || b->g.n == 0)
		return;
	x.c = xcalloc(b->g.n, sizeof(*x.c));
	store_run_list(st, b->id, (1u << STORE_RUN_DONE) |
	    (1u << STORE_RUN_SKIPPED), rf_run, &x, &err);
	for (i = 0; i < b->g.n; i++) {
		struct rf_commit *c = &x.c[i];

		if (c->fixed_done == 0 && (c->done > 0 || c->skipped == 0))
			continue;
		bisection_probe_sha(b, (uint32_t)i, sha);
		if (c->fixed_done > 0)
			xasprintf(&s, "%.12s (\"%s\") measured with fix-ups %s "
			    "(%s) in %u runs", sha, bisection_subject(repo, sha,
			    subj, sizeof(subj)), c->fixups, c->found ?
			    "found for a failing commit" : "given", c->fixed_done);
		else {
			if (first == SIZE_MAX)
				first = i;
			last = i;
			xasprintf(&s, "%.12s (\"%s\") skipped: %s", sha,
			    bisection_subject(repo, sha, subj, sizeof(subj)), c->why ?
			    c->why : "it could not be built, booted or run");
		}
		rf_push(lines, n, s);
	}
	if (inconclusive && first != SIZE_MAX) {
		char a[GIT_OID_HEXSZ + 1];

		bisection_probe_sha(b, (uint32_t)first, a);
		bisection_probe_sha(b, (uint32_t)last, sha);
		xasprintf(&s, "%.12s..%.12s could not be built; the change is "
		    "in this set of %zu commits", a, sha, n_set);
		rf_push(lines, n, s);
	}
	for (i = 0; i < b->g.n; i++) {
		free(x.c[i].fixups);
		free(x.c[i].why);
	}
	free(x.c);
}
