/* SPDX-License-Identifier: MIT */
/*
 * What a reload needs from config/: the difference between the
 * configuration in effect and the new one, key by key from the tables, and
 * holds that keep a replaced configuration alive while runs still point
 * into it.
 */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "common/xmalloc.h"
#include "config/config.h"
#include "config/internal.h"

/* Counted holds on the contents of one configuration. */
struct config_hold {
	unsigned	 refs;
	int		 retired;	/* cfg below holds the released contents */
	struct config	 cfg;
};

static size_t config_retired;	/* released while held, not yet freed */

/* Where the count of each named section type sits in struct config. */
static const struct {
	const char	*type;
	size_t		 count;		/* offset of the size_t count */
} config_counts[] = {
	{ "host", offsetof(struct config, nhosts) },
	{ "benchmark", offsetof(struct config, nbenchmarks) },
	{ "sweep", offsetof(struct config, nsweeps) },
	{ "lab", offsetof(struct config, nlabs) },
};

/* Instances of a section type in cfg: 1 for [daemon] and [repo]. */
static size_t
config_count(const struct config *cfg, const struct config_section_def *def)
{
	size_t i;

	if (!def->named)
		return 1;
	for (i = 0; i < CONFIG_NITEMS(config_counts); i++)
		if (strcmp(config_counts[i].type, def->type) == 0)
			return *(const size_t *)(const void *)
			    ((const char *)cfg + config_counts[i].count);
	abort();	/* a named section type without a count */
}

/* The struct of instance i; base() only computes an address. */
static void *
config_instance(const struct config *cfg,
    const struct config_section_def *def, size_t i)
{
	return def->base((struct config *)(uintptr_t)cfg, i);
}

/* Named sections start with their name (checked in config.c). */
static const char *
config_instance_name(const struct config *cfg,
    const struct config_section_def *def, size_t i)
{
	return *(char *const *)config_instance(cfg, def, i);
}

/* Index of the instance called name, or n when there is none. */
static size_t
config_instance_find(const struct config *cfg,
    const struct config_section_def *def, const char *name)
{
	size_t i, n = config_count(cfg, def);

	for (i = 0; i < n; i++)
		if (strcmp(config_instance_name(cfg, def, i), name) == 0)
			break;
	return i;
}

/* Reports every key that differs between two instances of one section. */
static void
config_diff_keys(const struct config_section_def *def, const char *name,
    const void *a, const void *b, config_change_fn *fn, void *arg)
{
	struct config_change c;
	size_t k;

	for (k = 0; k < def->nkeys; k++) {
		if (config_key_equal(&def->keys[k], a, b))
			continue;
		c.section = def->type;
		c.name = name;
		c.key = def->keys[k].name;
		c.reload = def->keys[k].reload;
		fn(arg, &c);
	}
}

/* Names of sections only one side has are reported as the whole section. */
static void
config_diff_missing(const struct config *from, const struct config *to,
    const struct config_section_def *def, config_change_fn *fn, void *arg)
{
	struct config_change c;
	size_t i, n = config_count(from, def);

	for (i = 0; i < n; i++) {
		c.name = config_instance_name(from, def, i);
		if (config_instance_find(to, def, c.name) <
		    config_count(to, def))
			continue;
		c.section = def->type;
		c.key = NULL;
		c.reload = def->reload;
		fn(arg, &c);
	}
}

/* Instance by instance, matched by name, so reordering is no change. */
void
config_diff(const struct config *old, const struct config *new,
    config_change_fn *fn, void *arg)
{
	const struct config_section_def *defs, *def;
	size_t d, ndefs, i, j, n;
	const char *name;

	defs = config_section_all(&ndefs);
	for (d = 0; d < ndefs; d++) {
		def = &defs[d];
		if (!def->named) {
			config_diff_keys(def, NULL, config_instance(old, def, 0),
			    config_instance(new, def, 0), fn, arg);
			continue;
		}
		n = config_count(old, def);
		for (i = 0; i < n; i++) {
			name = config_instance_name(old, def, i);
			j = config_instance_find(new, def, name);
			if (j < config_count(new, def))
				config_diff_keys(def, name,
				    config_instance(old, def, i),
				    config_instance(new, def, j), fn, arg);
		}
		config_diff_missing(old, new, def, fn, arg);
		config_diff_missing(new, old, def, fn, arg);
	}
}

/*
 * The hold record is made on first use and lives with the contents.  A
 * loaded config is read-only to its users; the hold count is bookkeeping
 * beside the settings, so holders may take it through a const pointer.
 */
struct config_hold *
config_hold(const struct config *cfg)
{
	struct config *c = (struct config *)cfg;

	if (c->holds == NULL)
		c->holds = xcalloc(1, sizeof(*c->holds));
	c->holds->refs++;
	return c->holds;
}

/* The retired contents go when nobody points into them any more. */
int
config_drop(struct config_hold *h)
{
	if (h == NULL)
		return 0;
	if (--h->refs > 0 || !h->retired)
		return 0;
	config_release(&h->cfg);
	free(h);
	config_retired--;
	return 1;
}

/*
 * Called by config_release: returns 1 when holds are out and now own what
 * cfg owned (cfg is left empty), 0 when the caller frees it all.
 */
int
config_retire(struct config *cfg)
{
	struct config_hold *h = cfg->holds;

	if (h == NULL)
		return 0;
	if (h->refs == 0) {
		free(h);
		cfg->holds = NULL;
		return 0;
	}
	h->cfg = *cfg;
	h->cfg.holds = NULL;
	h->retired = 1;
	config_retired++;
	config_init(cfg);
	return 1;
}

size_t
config_retired_count(void)
{
	return config_retired;
}
