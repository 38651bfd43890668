/* SPDX-License-Identifier: MIT */
/*
 * Walking the key tables: defaults set from each row's text, and the rows
 * as a flat list for documentation (the man page, the example's test).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/error.h"
#include "config/config.h"
#include "config/internal.h"

/*
 * Parses each default text with the key's own parser, so a default is
 * exactly what writing it in the file gives.  Defaults are absolute, and a
 * table whose default does not parse is a bug caught by every load.
 */
void
config_section_defaults(const struct config_section_def *def, void *base)
{
	struct config_ctx ctx;
	struct bd_error err;
	size_t i;

	memset(&ctx, 0, sizeof(ctx));
	ctx.basedir = (char *)"/";
	for (i = 0; i < def->nkeys; i++) {
		if (def->keys[i].def == NULL)
			continue;
		bd_error_clear(&err);
		if (def->keys[i].parse(&ctx, &def->keys[i], base,
		    def->keys[i].def, &err) < 0) {
			fprintf(stderr, "config: default of [%s] %s: %s\n",
			    def->type, def->keys[i].name, err.msg);
			abort();
		}
	}
}

/* Hosts built by hand get the same defaults as a [host] section. */
void
config_host_defaults(struct config_host *h)
{
	config_section_defaults(config_section_find("host"), h);
}

/* Benchmarks built by hand get the same defaults as a [benchmark] section. */
void
config_benchmark_defaults(struct config_benchmark *b)
{
	config_section_defaults(config_section_find("benchmark"), b);
}

/* What a value looks like, by its parser, for documentation. */
static const struct {
	config_parse_fn	 parse;
	const char	*kind;
} config_kinds[] = {
	{ config_value_string, "text" },
	{ config_value_path, "path" },
	{ config_value_paths, "paths" },
	{ config_value_names, "names" },
	{ config_value_name, "name" },
	{ config_value_address, "address" },
	{ config_value_uint, "number" },
	{ config_value_mode, "octal mode" },
	{ config_value_duration, "duration" },
	{ config_value_fraction, "fraction" },
	{ config_value_enum, "word" },
	{ config_value_roles, "roles" },
	{ config_value_metrics, "metrics" },
	{ config_value_metric, "metric" },
	{ config_sweep_value_names, "names" },
	{ config_sweep_value_schedule, "schedule" },
	{ config_sweep_value_priority, "integer" },
};

static const char *
config_kind(const struct config_key *key)
{
	size_t i;

	for (i = 0; i < CONFIG_NITEMS(config_kinds); i++)
		if (config_kinds[i].parse == key->parse)
			return config_kinds[i].kind;
	return "text";
}

/* The man page and the example's test walk the rows through this. */
int
config_key_at(size_t idx, struct config_key_info *out)
{
	const struct config_section_def *all, *def;
	size_t i, n;

	all = config_section_all(&n);
	for (i = 0; i < n; i++) {
		def = &all[i];
		if (idx >= def->nkeys) {
			idx -= def->nkeys;
			continue;
		}
		out->section = def->type;
		out->named = def->named;
		out->key = def->keys[idx].name;
		out->kind = config_kind(&def->keys[idx]);
		out->def = def->keys[idx].def;
		out->required = (def->keys[idx].flags & CONFIG_KEY_REQUIRED) != 0;
		out->reload = def->keys[idx].reload;
		out->doc = def->keys[idx].doc;
		return 0;
	}
	return -ENOENT;
}

