/* SPDX-License-Identifier: MIT */
/*
 * The audit trail of state-changing requests, kept bounded: each event
 * stores a summary of its request (the command and its fields, strings and
 * lists cut at a size, never the whole line), and rejected requests from
 * one uid beyond a burst per window are counted, not stored one by one;
 * one aggregate event then says how many were left out.
 *
 * struct audit lives in struct daemon; it owns nothing but its counters.
 */
#ifndef SERVER_AUDIT_H
#define SERVER_AUDIT_H

#include <sys/types.h>

#include <stdint.h>

#include <jansson.h>

struct store;

/* Longest string kept of one field, in bytes (cut on a character). */
#define AUDIT_FIELD_MAX		128
/* Members and list elements kept of a request. */
#define AUDIT_ITEMS_MAX		16
/* Longest summary stored; beyond it only the command is kept. */
#define AUDIT_SUMMARY_MAX	2048
/* Rejections of one uid stored one by one per window; the rest counted. */
#define AUDIT_REJECT_BURST	10
#define AUDIT_WINDOW_MS		60000
#define AUDIT_UIDS		16

struct audit_uid {
	uid_t		 uid;
	int64_t		 window_ms;	/* start of the current window */
	unsigned	 rejected;	/* in this window */
	unsigned	 suppressed;	/* not stored one by one */
	int		 used;
};

struct audit {
	struct audit_uid uids[AUDIT_UIDS];
	uint64_t	 keep_ms;	/* [daemon] audit_keep; 0: forever */
	unsigned	 max_rows;	/* [daemon] audit_max_rows; 0: no cap */
};

/* The bounded summary of a request object as JSON text; caller frees. */
char	*audit_summary(const json_t *req);
/*
 * The retention the next records apply (they change on reload): after
 * each stored event, rows older than keep_ms and beyond the newest
 * max_rows are removed (0: no limit of that kind).
 */
void	 audit_retention(struct audit *a, uint64_t keep_ms, unsigned max_rows);
/*
 * Stores one event (summary as from audit_summary, outcome "ok" or an
 * error code) unless uid has had more than AUDIT_REJECT_BURST rejections in
 * this window; logs what it stores.  st may be NULL (nothing is stored).
 */
void	 audit_record(struct audit *a, struct store *st, int64_t now_ms,
	    uid_t uid, const char *cmd, const char *summary,
	    const char *outcome);

#endif
