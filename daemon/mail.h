/* SPDX-License-Identifier: MIT */
/*
 * The mail parts of a report: a Message-ID that is the same for a
 * bisection every time it is made, In-Reply-To for a report that follows
 * up another bisection's (a sub-range that verification bisected replies
 * to its parent's), the trailer lines from the configured templates, the
 * regzbot switch, and the proposed To and Cc: the culprit's author (To)
 * and committer (Cc) first, then what MAINTAINERS names for its paths.
 *
 * Ownership: struct mail owns every string; its rep member points into
 * them and is valid until mail_release().
 */
#ifndef DAEMON_MAIL_H
#define DAEMON_MAIL_H

#include <stddef.h>
#include <stdint.h>

#include "bisect/report.h"
#include "config/config.h"
#include "repo/maintainers.h"

struct mail {
	char			*message_id;
	char			*in_reply_to;
	char			*trailers[3];
	size_t			 n_trailers;
	struct repo_maint	 rcpt;
	struct report_mail	 rep;
};

/* The facts a mail is made from; strings borrowed, may be NULL. */
struct mail_facts {
	int64_t			 id;
	int64_t			 created_ms;
	int64_t			 parent_id;	/* 0: none */
	int64_t			 parent_created_ms;
	unsigned		 followup;	/* 0: the verdict's report; N: the
						   Nth report made again, which
						   replies to it */
	const char		*author;
	const char		*committer;
	const struct repo_maint	*maint;		/* NULL: none */
};

void	mail_init(struct mail *m);
void	mail_release(struct mail *m);
/*
 * "<bisectd.ID.CREATED@DOMAIN>", DOMAIN the host's name when NULL; the
 * Nth follow-up (followup > 0) "<bisectd.ID.CREATED.fN@DOMAIN>".
 */
char	*mail_message_id(const char *domain, int64_t id, int64_t created_ms,
	    unsigned followup);
/*
 * tmpl with each {message_id} replaced by message_id without its angle
 * brackets and each {sha} by sha (either may be NULL: left as is).
 */
char	*mail_expand(const char *tmpl, const char *message_id,
	    const char *sha);
/* Fills m from the configuration and f. */
void	mail_build(struct mail *m, const struct config *cfg,
	    const struct mail_facts *f);
/*
 * Appends the hook's variables (BISECTD_MESSAGE_ID, BISECTD_IN_REPLY_TO,
 * BISECTD_TO, BISECTD_CC, BISECTD_REPORTED_BY, BISECTD_CLOSES,
 * BISECTD_LINK; malloc'd "K=V") to env at *n; env has room for
 * MAIL_ENV_MAX more.
 */
#define MAIL_ENV_MAX	7
void	mail_env(const struct mail *m, char **env, size_t *n);

#endif
