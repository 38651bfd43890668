/* SPDX-License-Identifier: MIT */
/*
 * [lab NAME] sections: their rows, lifetime, lookups and checks.  The
 * checks render the job template with sample values through the same
 * renderer the LAVA backend uses (config/lab_render.c), so a template that
 * passes renders the same way at submission.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/error.h"
#include "common/xmalloc.h"
#include "config/config.h"
#include "config/internal.h"


/* The lab backend copies its lab at startup; the template is read per job. */
const struct config_key config_lab_keys[CONFIG_LAB_NKEYS] = {
	KEYE(config_lab, type, config_lab_type_words, "lava", RESTART,
	    "Lab engine: lava."),
	KEY(config_lab, url, string, REQ | CONFIG_KEY_URL, 0, 0, NULL, RESTART,
	    "Base URL of the lab's server, http:// or https://; the token "
	    "goes to this server alone, also when a reply links elsewhere."),
	KEY(config_lab, token_file, path, REQ, 0, 0, NULL, RESTART,
	    "File holding the API token, read when the lab is contacted and "
	    "never shown."),
	KEY(config_lab, device_type, name, REQ, 0, 0, NULL, RESTART,
	    "Device type the jobs ask for, {device_type} in the template."),
	KEY(config_lab, tags, string, 0, 0, 0, NULL, RESTART,
	    "Device tags, comma-separated, {tags} in the template."),
	KEY(config_lab, group, name, REQ, 0, 0, NULL, RESTART,
	    "Host group the lab serves instead of SSH hosts."),
	KEY(config_lab, job_template, path, REQ, 0, 0, NULL, RESTART,
	    "YAML job definition with {commit}, {short}, {artifact_url}, "
	    "{run_id}, {benchmark} and {job_name} placeholders."),
	KEY(config_lab, artifact_url, string, 0, 0, 0, NULL, RESTART,
	    "Where the lab fetches the kernel, a template such as "
	    "http://files/{short}/bzImage; {artifact} and {build_host} name "
	    "where build_group's build left it."),
	KEY(config_lab, build_group, name, 0, 0, 0, NULL, RESTART,
	    "SSH host group whose build hosts build each commit first (once, "
	    "through the build cache); unset, the job builds for itself."),
	KEY(config_lab, max_jobs, uint, 0, 1, 10000, "4", RESTART,
	    "Jobs in flight in the lab at once."),
	KEY(config_lab, priority, uint, 0, 0, 100, "50", RESTART,
	    "Job priority, 0 to 100, {priority} in the template."),
	KEYF(config_lab, poll_interval, poll_interval_ms, duration, 0, "2s",
	    RESTART, "First delay between polls of a job; it backs off to "
	    "four times that."),
	KEYF(config_lab, queue_allowance, queue_allowance_ms, duration, 0,
	    "2h", RESTART, "Time a job may wait for a device beyond the "
	    "benchmark's timeouts.  A job not Finished this long plus the "
	    "benchmark's build (when the lab builds), install, boot and run "
	    "timeouts after it was submitted is cancelled at the lab, and "
	    "its run counts an infrastructure failure and is retried within "
	    "its attempts.  LAVA ends a Running job at its definition's own "
	    "timeouts; this deadline catches a job the lab loses or queues "
	    "for too long, so it is generous: a job cancelled early waits at "
	    "the back of the queue again.  Raise it for a lab whose queue is "
	    "often longer.  After a restart a job found again gets a whole "
	    "deadline."),
	KEY(config_lab, build_case, name, 0, 0, 0, "build", RESTART,
	    "Test case that marks the build: when it fails the commit is "
	    "skipped."),
};


const struct name_value config_lab_type_words[] = {
	{ "lava", CONFIG_LAB_LAVA },
	{ NULL, 0 },
};

void
config_lab_release(struct config_lab *l)
{
	free(l->name);
	free(l->url);
	free(l->token_file);
	free(l->device_type);
	free(l->tags);
	free(l->group);
	free(l->job_template);
	free(l->artifact_url);
	free(l->build_group);
	free(l->build_case);
}

const struct config_lab *
config_lab_find(const struct config *cfg, const char *name)
{
	return config_named_find(cfg->labs, cfg->nlabs, sizeof(*cfg->labs),
	    name);
}

/* A group is served by one lab or by SSH hosts, never both. */
const struct config_lab *
config_lab_for_group(const struct config *cfg, const char *group)
{
	size_t i;

	for (i = 0; i < cfg->nlabs; i++)
		if (cfg->labs[i].group != NULL &&
		    strcmp(cfg->labs[i].group, group) == 0)
			return &cfg->labs[i];
	return NULL;
}

/* A lab with build_group has its commits built there. */
const char *
config_build_group(const struct config *cfg, const char *group)
{
	const struct config_lab *l = config_lab_for_group(cfg, group);

	return l != NULL && l->build_group != NULL ? l->build_group : group;
}

int
config_lab_begin(struct config_ctx *ctx, const char *name)
{
	struct config *cfg = ctx->cfg;
	const struct config_lab *old = config_lab_find(cfg, name);
	struct config_lab *l;

	if (config_dup_check(ctx, old != NULL ? old->line : 0) < 0)
		return -1;
	l = CONFIG_APPEND(ctx, cfg->labs, cfg->nlabs);
	l->name = xstrdup(name);
	l->line = ctx->sec_line;
	config_section_defaults(config_section_find("lab"), l);
	return 0;
}

void *
config_lab_base(struct config *cfg, size_t index)
{
	return &cfg->labs[index];
}

/* The URL scheme, the tags and the template rendered with sample values. */
void
config_lab_finish(struct config_ctx *ctx)
{
	const struct config_lab *l = &ctx->cfg->labs[ctx->index];
	const struct config_lab_values sample = {
		.commit = "0123456789abcdef0123456789abcdef01234567",
		.run_id = "1", .benchmark = "bench",
		.job_name = "bisectd check run 1",
		.artifact = "/bisectd-check/artifact",
		.build_host = "bisectd-check-host",
	};
	struct bd_error err;
	const char *p;
	char *out = NULL, *tag, *save = NULL, *copy, *art, bad[32];

	if (l->url != NULL && strncmp(l->url, "http://", 7) != 0 &&
	    strncmp(l->url, "https://", 8) != 0)
		config_error(ctx, config_key_line(ctx, "url"), ctx->label,
		    "url", "must start with http:// or https://");
	if (l->tags != NULL) {
		copy = xstrdup(l->tags);
		for (tag = strtok_r(copy, ", ", &save); tag != NULL;
		    tag = strtok_r(NULL, ", ", &save))
			if (!config_name_valid(tag))
				config_error(ctx, config_key_line(ctx, "tags"),
				    ctx->label, "tags", "invalid tag '%s'", tag);
		free(copy);
	}
	if (l->artifact_url != NULL) {
		for (p = l->artifact_url; *p != '\0'; p++)
			if (*p == ' ' || *p == '\'' || *p == '"') {
				config_error(ctx, config_key_line(ctx,
				    "artifact_url"), ctx->label, "artifact_url",
				    "must not hold spaces or quotes");
				break;
			}
		if (config_lab_artifact_check(l->artifact_url, bad,
		    sizeof(bad)) < 0)
			config_error(ctx, config_key_line(ctx, "artifact_url"),
			    ctx->label, "artifact_url", "unknown placeholder "
			    "{%s}", bad);
	}
	if (l->build_group != NULL && l->artifact_url == NULL)
		config_error(ctx, config_key_line(ctx, "build_group"),
		    ctx->label, "build_group", "needs artifact_url: the lab "
		    "fetches what the build host built from there");
	if (l->job_template == NULL || l->device_type == NULL)
		return;
	art = config_lab_artifact(l, &sample);
	if (config_lab_render(l, &sample, &out, &err) < 0)
		config_error(ctx, config_key_line(ctx, "job_template"),
		    ctx->label, "job_template", "%s", err.msg);
	else if (strstr(out, sample.job_name) == NULL)
		config_error(ctx, config_key_line(ctx, "job_template"),
		    ctx->label, "job_template", "must set job_name: "
		    "{job_name} (jobs are found again by it)");
	else if (l->build_group != NULL && *art != '\0' &&
	    strstr(out, art) == NULL)
		config_error(ctx, config_key_line(ctx, "job_template"),
		    ctx->label, "job_template", "must use {artifact_url}: "
		    "build_group builds the artifact the job runs");
	free(art);
	free(out);
}

/* A group is served by one lab, or by hosts: never by both. */
void
config_lab_check(struct config_ctx *ctx, const struct config_lab *l)
{
	const struct config *cfg = ctx->cfg;
	char label[CONFIG_NAME_MAX + 16];
	size_t i;

	if (l->group == NULL)
		return;
	snprintf(label, sizeof(label), "[lab %s]", l->name);
	for (i = 0; i < cfg->nhosts; i++)
		if (strcmp(cfg->hosts[i].group, l->group) == 0) {
			config_error(ctx, l->line, label, "group", "group %s "
			    "is also served by [host %s]", l->group,
			    cfg->hosts[i].name);
			return;
		}
	if (config_lab_for_group(cfg, l->group) != l)
		config_error(ctx, l->line, label, "group", "group %s is "
		    "served by [lab %s] already", l->group,
		    config_lab_for_group(cfg, l->group)->name);
	if (l->build_group == NULL)
		return;
	if (config_lab_for_group(cfg, l->build_group) != NULL)
		config_error(ctx, l->line, label, "build_group", "group %s is "
		    "served by [lab %s], not by SSH build hosts",
		    l->build_group,
		    config_lab_for_group(cfg, l->build_group)->name);
	else if (!(config_group_roles(cfg, l->build_group) &
	    CONFIG_ROLE_BUILD))
		config_error(ctx, l->line, label, "build_group", "no [host] "
		    "with the build role has group = %s", l->build_group);
}
