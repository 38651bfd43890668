/* SPDX-License-Identifier: MIT */
/*
 * The effective configuration as JSON, for the control socket's `config`
 * command.  It walks the same key tables as the parser, so every key shows
 * up with its effective value (defaults included) and none can be missed.
 * Durations appear in milliseconds as NAME_ms.  Nothing secret is read or
 * shown: passphrase_file and identity are paths, and a URL's user-info
 * (where a token may sit) is replaced by "***".
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "common/agg.h"
#include "common/xmalloc.h"
#include "config/config.h"
#include "config/internal.h"

typedef json_t *(*config_json_fn)(const struct config_key *, const void *);

static json_t *
config_json_string(const struct config_key *key, const void *base)
{
	const char *s = *CONFIG_FIELD(base, key, char *const);

	return s != NULL ? json_string(s) : json_null();
}

/* The user-info in "scheme://user:token@host/x" is shown as three stars. */
static json_t *
config_json_url(const struct config_key *key, const void *base)
{
	const char *s = *CONFIG_FIELD(base, key, char *const);
	const char *scheme, *at, *slash;
	char *shown;
	json_t *j;

	if (s == NULL)
		return json_null();
	scheme = strstr(s, "://");
	at = strrchr(s, '@');
	if (scheme != NULL) {
		slash = strchr(scheme + 3, '/');
		if (at != NULL && (slash == NULL || at < slash)) {
			xasprintf(&shown, "%.*s***%s", (int)(scheme + 3 - s),
			    s, at);
			j = json_string(shown);
			free(shown);
			return j;
		}
	}
	return json_string(s);
}

static json_t *
config_json_uint(const struct config_key *key, const void *base)
{
	return json_integer(*CONFIG_FIELD(base, key, const unsigned));
}

static json_t *
config_json_mode(const struct config_key *key, const void *base)
{
	char buf[8];

	snprintf(buf, sizeof(buf), "%04o",
	    (unsigned)*CONFIG_FIELD(base, key, const mode_t));
	return json_string(buf);
}

static json_t *
config_json_duration(const struct config_key *key, const void *base)
{
	return json_integer((json_int_t)*CONFIG_FIELD(base, key,
	    const uint64_t));
}

static json_t *
config_json_fraction(const struct config_key *key, const void *base)
{
	return json_real(*CONFIG_FIELD(base, key, const double));
}

static json_t *
config_json_enum(const struct config_key *key, const void *base)
{
	return json_string(name_of(key->words,
	    *CONFIG_FIELD(base, key, const int)));
}

static json_t *
config_json_roles(const struct config_key *key, const void *base)
{
	unsigned roles = *CONFIG_FIELD(base, key, const unsigned);
	const struct name_value *e;
	json_t *a = json_array();

	for (e = config_role_words; e->name != NULL; e++)
		if (roles & (unsigned)e->value)
			json_array_append_new(a, json_string(e->name));
	return a;
}

/* Metrics in the same words the file uses, so the output can be pasted. */
static json_t *
config_json_metrics(const struct config_key *key, const void *base)
{
	const struct config_benchmark *b = base;
	const struct config_metric *m;
	json_t *a = json_array();
	size_t i;

	(void)key;
	for (i = 0; i < b->nmetrics; i++) {
		m = &b->metrics[i];
		json_array_append_new(a, json_pack("{s:s, s:s, s:s}",
		    "name", m->name,
		    "kind", m->kind == CONFIG_METRIC_PASS_FAIL ? "pass-fail" :
		    m->direction == CONFIG_LOWER_IS_BETTER ? "lower" : "higher",
		    "aggregate", name_of(agg_names, (int)m->agg)));
	}
	return a;
}

static json_t *
config_json_names(const struct config_key *key, const void *base)
{
	const struct config_names *n = CONFIG_FIELD(base, key,
	    const struct config_names);
	json_t *a = json_array();
	size_t i;

	for (i = 0; i < n->n; i++)
		json_array_append_new(a, json_string(n->v[i]));
	return a;
}

/* The schedule as the file writes it. */
static json_t *
config_json_schedule(const struct config_key *key, const void *base)
{
	const struct config_schedule *sc = CONFIG_FIELD(base, key,
	    const struct config_schedule);
	char buf[32];

	if (sc->kind == CONFIG_SCHEDULE_EACH)
		return json_string("each");
	snprintf(buf, sizeof(buf), "daily %02u:%02u", sc->minute / 60,
	    sc->minute % 60);
	return json_string(buf);
}

static json_t *
config_json_int(const struct config_key *key, const void *base)
{
	return json_integer(*CONFIG_FIELD(base, key, const int));
}

static const struct {
	config_parse_fn	 parse;
	config_json_fn	 emit;
	const char	*suffix;	/* appended to the key's name */
} config_json_types[] = {
	{ config_value_string, config_json_string, "" },
	{ config_value_path, config_json_string, "" },
	{ config_value_paths, config_json_string, "" },
	{ config_value_names, config_json_string, "" },
	{ config_value_name, config_json_string, "" },
	{ config_value_address, config_json_string, "" },
	{ config_value_uint, config_json_uint, "" },
	{ config_value_mode, config_json_mode, "" },
	{ config_value_duration, config_json_duration, "_ms" },
	{ config_value_fraction, config_json_fraction, "" },
	{ config_value_enum, config_json_enum, "" },
	{ config_value_roles, config_json_roles, "" },
	{ config_value_metrics, config_json_metrics, "" },
	{ config_value_metric, config_json_string, "" },
	{ config_sweep_value_names, config_json_names, "" },
	{ config_sweep_value_schedule, config_json_schedule, "" },
	{ config_sweep_value_priority, config_json_int, "" },
};

/* The row of config_json_types for a key's parser; a key without one is a bug. */
static size_t
config_json_type(const struct config_key *key)
{
	size_t t;

	for (t = 0; t < CONFIG_NITEMS(config_json_types); t++)
		if (config_json_types[t].parse == key->parse)
			return t;
	abort();	/* a key type without an emitter */
}

/* One section's struct as an object, keys in table order. */
static json_t *
config_json_section(const char *type, const void *base, const char *name)
{
	const struct config_section_def *def = config_section_find(type);
	const struct config_key *key;
	json_t *o = json_object();
	config_json_fn emit;
	char field[CONFIG_NAME_MAX];
	size_t i, t;

	if (name != NULL)
		json_object_set_new(o, "name", json_string(name));
	for (i = 0; i < def->nkeys; i++) {
		key = &def->keys[i];
		t = config_json_type(key);
		emit = key->flags & CONFIG_KEY_URL ? config_json_url :
		    config_json_types[t].emit;
		snprintf(field, sizeof(field), "%s%s", key->name,
		    config_json_types[t].suffix);
		json_object_set_new(o, field, emit(key, base));
	}
	return o;
}

/*
 * Values compare as their JSON does, with nothing hidden (a changed token
 * in a URL is a change), so every value type needs only its emitter.
 */
int
config_key_equal(const struct config_key *key, const void *a, const void *b)
{
	config_json_fn emit = config_json_types[config_json_type(key)].emit;
	json_t *x = emit(key, a), *y = emit(key, b);
	int eq = json_equal(x, y);

	json_decref(x);
	json_decref(y);
	return eq;
}

json_t *
config_to_json(const struct config *cfg)
{
	json_t *root = json_object(), *a;
	size_t i;

	json_object_set_new(root, "path",
	    cfg->path != NULL ? json_string(cfg->path) : json_null());
	json_object_set_new(root, "daemon",
	    config_json_section("daemon", &cfg->daemon, NULL));
	json_object_set_new(root, "repo", cfg->repo.path != NULL ?
	    config_json_section("repo", &cfg->repo, NULL) : json_null());
	a = json_array();
	for (i = 0; i < cfg->nhosts; i++)
		json_array_append_new(a, config_json_section("host",
		    &cfg->hosts[i], cfg->hosts[i].name));
	json_object_set_new(root, "hosts", a);
	a = json_array();
	for (i = 0; i < cfg->nbenchmarks; i++)
		json_array_append_new(a, config_json_section("benchmark",
		    &cfg->benchmarks[i], cfg->benchmarks[i].name));
	json_object_set_new(root, "benchmarks", a);
	a = json_array();
	for (i = 0; i < cfg->nsweeps; i++)
		json_array_append_new(a, config_json_section("sweep",
		    &cfg->sweeps[i], cfg->sweeps[i].name));
	json_object_set_new(root, "sweeps", a);
	a = json_array();
	for (i = 0; i < cfg->nlabs; i++)
		json_array_append_new(a, config_json_section("lab",
		    &cfg->labs[i], cfg->labs[i].name));
	json_object_set_new(root, "labs", a);
	return root;
}
