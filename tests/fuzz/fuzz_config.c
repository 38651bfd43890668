/* SPDX-License-Identifier: MIT */
/*
 * The configuration loader (config/): any file content is either a
 * configuration, whose every key shows in config_to_json (the `config`
 * command's reply) and which compares equal to itself, or -EINVAL with at
 * least one message, each "FILE:LINE: ..." and well-formed UTF-8, since
 * reload replies carry them.
 *
 * Input: the file's bytes, parsed as /nonexistent/fuzz/bisectd.conf so
 * relative paths resolve without touching the file system.
 */
#include <stdio.h>
#include <stdlib.h>
#include <errno.h>
#include <string.h>

#include "config/config.h"
#include "tests/fuzz/fuzz.h"

#define FUZZ_CONFIG_PATH	"/nonexistent/fuzz/bisectd.conf"

/* A key of a section object, plain or as NAME_ms for a duration. */
static int
fuzz_config_has(const json_t *obj, const char *key)
{
	char ms[128];

	if (json_object_get(obj, key) != NULL)
		return 1;
	snprintf(ms, sizeof(ms), "%s_ms", key);
	return json_object_get(obj, ms) != NULL;
}

/* The JSON section objects of one key row's section. */
static void
fuzz_config_row(const json_t *j, const struct config_key_info *k)
{
	static const struct {
		const char	*section;
		const char	*member;
	} arrays[] = {
		{ "host", "hosts" },
		{ "benchmark", "benchmarks" },
		{ "sweep", "sweeps" },
	};
	const json_t *obj;
	size_t i, n;

	if (!k->named) {
		obj = json_object_get(j, k->section);
		if (json_is_null(obj))
			return;		/* an absent [repo] */
		if (!json_is_object(obj) || !fuzz_config_has(obj, k->key))
			fuzz_fail("config_to_json has no [%s] %s", k->section,
			    k->key);
		return;
	}
	for (i = 0; i < sizeof(arrays) / sizeof(arrays[0]); i++) {
		if (strcmp(arrays[i].section, k->section) != 0)
			continue;
		obj = json_object_get(j, arrays[i].member);
		for (n = 0; n < json_array_size(obj); n++)
			if (!fuzz_config_has(json_array_get(obj, n), k->key))
				fuzz_fail("config_to_json: a [%s] has no %s",
				    k->section, k->key);
	}
}

/* Everything a loaded configuration promises the daemon. */
static void
fuzz_config_check_ok(const struct config *cfg)
{
	struct config_key_info k;
	json_t *j;
	char *s;
	size_t i;

	j = config_to_json(cfg);
	if (j == NULL)
		fuzz_fail("config_to_json returned NULL");
	if (json_array_size(json_object_get(j, "hosts")) != cfg->nhosts ||
	    json_array_size(json_object_get(j, "benchmarks")) !=
	    cfg->nbenchmarks ||
	    json_array_size(json_object_get(j, "sweeps")) != cfg->nsweeps)
		fuzz_fail("config_to_json lost a section");
	for (i = 0; config_key_at(i, &k) == 0; i++)
		fuzz_config_row(j, &k);
	s = json_dumps(j, JSON_COMPACT);
	if (s == NULL)
		fuzz_fail("config_to_json cannot be encoded");
	free(s);
	json_decref(j);
}

/* config_diff of a configuration with itself finds nothing. */
static void
fuzz_config_change(void *arg, const struct config_change *c)
{
	(void)arg;
	fuzz_fail("config_diff of a config with itself: [%s] %s", c->section,
	    c->key != NULL ? c->key : "(section)");
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct config cfg;
	struct config_errors errs;
	size_t i, plen = strlen(FUZZ_CONFIG_PATH);
	int rc;

	rc = config_parse(&cfg, FUZZ_CONFIG_PATH, (const char *)data, size,
	    &errs);
	if (rc == 0) {
		if (errs.n != 0)
			fuzz_fail("a loaded configuration has %zu errors",
			    errs.n);
		fuzz_config_check_ok(&cfg);
		config_diff(&cfg, &cfg, fuzz_config_change, NULL);
	} else {
		if (rc != -EINVAL || errs.n == 0)
			fuzz_fail("config_parse returned %d with %zu messages",
			    rc, errs.n);
		if (cfg.path != NULL || cfg.hosts != NULL)
			fuzz_fail("a refused configuration was not released");
	}
	for (i = 0; i < errs.n; i++) {
		if (strncmp(errs.msgs[i], FUZZ_CONFIG_PATH, plen) != 0 ||
		    errs.msgs[i][plen] != ':')
			fuzz_fail("message does not name the file: %s",
			    errs.msgs[i]);
		if (!fuzz_utf8_valid(errs.msgs[i], strlen(errs.msgs[i])))
			fuzz_fail("message is not UTF-8: %s", errs.msgs[i]);
	}
	config_errors_release(&errs);
	config_release(&cfg);
	return 0;
}
