/* SPDX-License-Identifier: MIT */
/*
 * What a mail of the report needs besides its text: the tags a fix should
 * carry and the regzbot line, for a regression's culprit only (a fix of an
 * improvement is not wanted), and the headers as data.
 */
#include <stdlib.h>
#include <string.h>

#include "bisect/report.h"
#include "common/xmalloc.h"

/* Tags and regzbot are for a culprit that made things worse. */
bool
report_mail_regression(const struct report_summary *s)
{
	return s->in->kind == REPORT_CULPRIT && s->word != NULL &&
	    strcmp(s->word, "regression") == 0;
}

/* 0-day's wording, so a maintainer knows what to copy. */
void
report_mail_write_tags(FILE *fp, const struct report_summary *s)
{
	const struct report_mail *m = s->in->mail;
	size_t i, n = 0;

	if (m == NULL || !report_mail_regression(s))
		return;
	for (i = 0; i < m->n_trailers; i++)
		n += m->trailers[i] != NULL;
	if (n == 0)
		return;
	fprintf(fp, "If you fix the issue in a separate patch/commit (i.e. not "
	    "just a new version of\nthe same patch/commit), kindly add "
	    "following tags\n");
	for (i = 0; i < m->n_trailers; i++)
		if (m->trailers[i] != NULL)
			fprintf(fp, "| %s\n", m->trailers[i]);
	fprintf(fp, "\n");
}

/* regzbot reads this line to track the regression from the first mail. */
void
report_mail_write_regzbot(FILE *fp, const struct report_summary *s)
{
	const struct report_mail *m = s->in->mail;

	if (m == NULL || !m->regzbot || !report_mail_regression(s))
		return;
	fprintf(fp, "#regzbot introduced: %.12s\n\n", s->in->culprit.sha);
}

static json_t *
report_mail_strings(const char *const *v, size_t n)
{
	json_t *a = json_array();
	size_t i;

	for (i = 0; i < n; i++)
		if (v[i] != NULL)
			json_array_append_new(a, json_string(v[i]));
	return a;
}

json_t *
report_mail_json(const struct report_summary *s)
{
	const struct report_mail *m = s->in->mail;
	bool reg = report_mail_regression(s);

	if (m == NULL)
		return NULL;
	return json_pack("{s:s?, s:s?, s:o, s:b, s:o, s:o, s:s?}",
	    "message_id", m->message_id, "in_reply_to", m->in_reply_to,
	    "trailers", report_mail_strings(m->trailers, m->n_trailers),
	    "regzbot", reg && m->regzbot,
	    "to", report_mail_strings(m->to, m->n_to),
	    "cc", report_mail_strings(m->cc, m->n_cc),
	    "commit_url", m->commit_url);
}
