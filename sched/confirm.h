/* SPDX-License-Identifier: MIT */
/*
 * Confirmation of a culprit on other host groups (issue 39): once a
 * culprit is named, it is measured on each group of the benchmark's (or
 * the sweep's) confirm_groups, the culprit against its parent; an
 * operator asks for more with the verify command.
 *
 * Each group's measurement is a child bisection of the one-commit range
 * parent..culprit on that group, whose stored params name its parent and
 * carry "confirm": so its runs are led to that group's hosts, its endpoint
 * check is the reproduction check, and after a restart the parent finds
 * the children it already has.  Rows of the report are read back from the
 * store and judged with bisect/confirm.
 *
 * A configured confirmation keeps its parent verifying until every child
 * ended, so the report goes out once, with the table.  One asked for
 * after the verdict rewrites the report when it ends.
 */
#ifndef SCHED_CONFIRM_H
#define SCHED_CONFIRM_H

#include <sys/types.h>

#include <jansson.h>

#include "bisect/confirm.h"
#include "common/error.h"

struct bisection;
struct sched;

/*
 * From the verification's conclusion: starts (or finds again) the
 * configured groups' children of b; 1 while one of them is still
 * running, so the verdict waits, 0 when the verdict can be stored now.
 */
int	confirm_wait(struct sched *s, struct bisection *b);
/* A cancelled bisection's confirmations are cancelled with it. */
void	confirm_cancel_children(struct sched *s, struct bisection *b);
/* A child ended: its parent concludes, or its report is rewritten. */
void	confirm_child_ended(struct sched *s, struct bisection *child);
/*
 * On demand: measures b's culprit against its parent on group.  *child
 * is the child bisection, an existing one when *existing is set.
 * Errors: -EINVAL without a culprit yet, or for b's own group, or a group
 * without build and test hosts (err says which).
 */
int	confirm_request(struct sched *s, struct bisection *b,
	    const char *group, uid_t uid, int64_t *child, int *existing,
	    struct bd_error *err);

/*
 * The report's rows: b's own group first (its bisection's samples at the
 * culprit and its parent), then one a child in the order they were made.
 * hosts[i] names the test hosts of row i (blank-separated, "" when none).
 * Owned by the struct until confirm_rows_release().
 */
struct confirm_rows {
	struct report_confirm	*rows;
	char			**hosts;
	char			**strings;
	size_t			 n, nstrings;
};
void	confirm_rows_get(struct bisection *b, struct confirm_rows *out);
void	confirm_rows_release(struct confirm_rows *r);
/* The status command's "confirmation" array (new reference), or NULL. */
json_t	*confirm_status_json(struct bisection *b);

#endif
