/* SPDX-License-Identifier: MIT */
/*
 * The mail parts of a report; see mail.h.
 */
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common/xmalloc.h"
#include "daemon/mail.h"

void
mail_init(struct mail *m)
{
	memset(m, 0, sizeof(*m));
	repo_maint_init(&m->rcpt);
}

void
mail_release(struct mail *m)
{
	size_t i;

	free(m->message_id);
	free(m->in_reply_to);
	for (i = 0; i < m->n_trailers; i++)
		free(m->trailers[i]);
	repo_maint_release(&m->rcpt);
	mail_init(m);
}

/*
 * The id and creation time name a bisection for good: a database made
 * anew starts again at id 1, and its mails must not thread with old ones.
 */
char *
mail_message_id(const char *domain, int64_t id, int64_t created_ms,
    unsigned followup)
{
	char host[HOST_NAME_MAX + 1] = "localhost", *s, fu[16] = "";

	if (domain == NULL && gethostname(host, sizeof(host)) == 0)
		host[sizeof(host) - 1] = '\0';
	if (followup > 0)
		snprintf(fu, sizeof(fu), ".f%u", followup);
	xasprintf(&s, "<bisectd.%" PRId64 ".%" PRId64 "%s@%s>", id, created_ms,
	    fu, domain != NULL ? domain : host);
	return s;
}

char *
mail_expand(const char *tmpl, const char *message_id, const char *sha)
{
	static const char mid[] = "{message_id}", shk[] = "{sha}";
	char *out, *t;
	size_t len;
	FILE *fp;

	if ((fp = open_memstream(&out, &len)) == NULL)
		return xstrdup(tmpl);
	for (t = (char *)tmpl; *t != '\0'; t++) {
		if (message_id != NULL && strncmp(t, mid, sizeof(mid) - 1) == 0) {
			fprintf(fp, "%.*s", (int)strcspn(message_id + (*message_id
			    == '<'), ">"), message_id + (*message_id == '<'));
			t += sizeof(mid) - 2;
		} else if (sha != NULL && strncmp(t, shk, sizeof(shk) - 1) ==
		    0) {
			fputs(sha, fp);
			t += sizeof(shk) - 2;
		} else
			fputc(*t, fp);
	}
	fclose(fp);
	return out;
}

static void
mail_trailer(struct mail *m, const char *key, const char *tmpl)
{
	char *v;

	if (tmpl == NULL)
		return;
	v = mail_expand(tmpl, m->message_id, NULL);
	xasprintf(&m->trailers[m->n_trailers++], "%s: %s", key, v);
	free(v);
}

void
mail_build(struct mail *m, const struct config *cfg,
    const struct mail_facts *f)
{
	const struct config_daemon *dc = &cfg->daemon;
	size_t i;

	mail_release(m);
	m->message_id = mail_message_id(dc->message_id_domain, f->id,
	    f->created_ms, f->followup);
	if (f->followup > 0)
		m->in_reply_to = mail_message_id(dc->message_id_domain,
		    f->id, f->created_ms, 0);
	else if (f->parent_id != 0)
		m->in_reply_to = mail_message_id(dc->message_id_domain,
		    f->parent_id, f->parent_created_ms, 0);
	if (dc->report_reported_by != NULL)
		xasprintf(&m->trailers[m->n_trailers++], "Reported-by: %s",
		    dc->report_reported_by);
	mail_trailer(m, "Closes", dc->report_closes);
	mail_trailer(m, "Link", dc->report_link);
	if (f->author != NULL)
		repo_maint_add(&m->rcpt, false, f->author);
	if (f->committer != NULL)
		repo_maint_add(&m->rcpt, true, f->committer);
	for (i = 0; f->maint != NULL && i < f->maint->n_to; i++)
		repo_maint_add(&m->rcpt, false, f->maint->to[i]);
	for (i = 0; f->maint != NULL && i < f->maint->n_cc; i++)
		repo_maint_add(&m->rcpt, true, f->maint->cc[i]);
	m->rep.message_id = m->message_id;
	m->rep.in_reply_to = m->in_reply_to;
	m->rep.trailers = (const char *const *)m->trailers;
	m->rep.n_trailers = m->n_trailers;
	m->rep.regzbot = dc->report_regzbot != 0;
	m->rep.to = (const char *const *)m->rcpt.to;
	m->rep.n_to = m->rcpt.n_to;
	m->rep.cc = (const char *const *)m->rcpt.cc;
	m->rep.n_cc = m->rcpt.n_cc;
	m->rep.commit_url = cfg->repo.commit_url;
}

/* A list as one header value, "a, b". */
static char *
mail_join(const char *key, char *const *v, size_t n)
{
	char *s, *t;
	size_t i;

	xasprintf(&s, "%s=", key);
	for (i = 0; i < n; i++) {
		xasprintf(&t, "%s%s%s", s, i ? ", " : "", v[i]);
		free(s);
		s = t;
	}
	return s;
}

/* The value of the trailer key, "" without one. */
static const char *
mail_trailer_value(const struct mail *m, const char *key)
{
	size_t i, n = strlen(key);

	for (i = 0; i < m->n_trailers; i++)
		if (strncmp(m->trailers[i], key, n) == 0 &&
		    m->trailers[i][n] == ':')
			return m->trailers[i] + n + 2;
	return "";
}

void
mail_env(const struct mail *m, char **env, size_t *n)
{
	xasprintf(&env[(*n)++], "BISECTD_MESSAGE_ID=%s",
	    m->message_id ? m->message_id : "");
	xasprintf(&env[(*n)++], "BISECTD_IN_REPLY_TO=%s",
	    m->in_reply_to ? m->in_reply_to : "");
	env[(*n)++] = mail_join("BISECTD_TO", m->rcpt.to, m->rcpt.n_to);
	env[(*n)++] = mail_join("BISECTD_CC", m->rcpt.cc, m->rcpt.n_cc);
	xasprintf(&env[(*n)++], "BISECTD_REPORTED_BY=%s",
	    mail_trailer_value(m, "Reported-by"));
	xasprintf(&env[(*n)++], "BISECTD_CLOSES=%s",
	    mail_trailer_value(m, "Closes"));
	xasprintf(&env[(*n)++], "BISECTD_LINK=%s",
	    mail_trailer_value(m, "Link"));
}
