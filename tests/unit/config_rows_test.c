/* SPDX-License-Identifier: MIT */
/*
 * Tests for the key rows of config/: defaults from the rows, the example
 * file documenting every row with its true default, the reload diff, and
 * holds that keep a replaced configuration alive.
 */
#include <criterion/criterion.h>

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/xmalloc.h"
#include "config/config.h"
#include "tests/support/tst.h"
#include "tests/unit/config_test.h"

/* Index of a row by section type and key, or -1 when it is not one. */
static long
row_find(const char *section, const char *key)
{
	struct config_key_info ki;
	size_t i;

	for (i = 0; config_key_at(i, &ki) == 0; i++)
		if (strcmp(ki.section, section) == 0 &&
		    strcmp(ki.key, key) == 0)
			return (long)i;
	return -1;
}

static size_t
row_count(void)
{
	struct config_key_info ki;
	size_t n = 0;

	while (config_key_at(n, &ki) == 0)
		n++;
	return n;
}

/* What the example must write above a key: its default or "Required.". */
static char *
row_marker(const struct config_key_info *ki)
{
	char *m;

	if (ki->required)
		return xstrdup("# Required.");
	xasprintf(&m, "# Default: %s", ki->def != NULL ? ki->def : "none");
	return m;
}

CFGT_TEST(rows_are_walkable_and_documented)
{
	struct config_key_info ki;
	size_t i, n = row_count();

	cr_assert_gt(n, 40);
	for (i = 0; i < n; i++) {
		cr_assert_eq(config_key_at(i, &ki), 0);
		cr_expect(ki.doc != NULL && ki.doc[0] != '\0' &&
		    ki.doc[strlen(ki.doc) - 1] == '.', "%s %s", ki.section,
		    ki.key);
		cr_expect(!(ki.required && ki.def != NULL), "%s %s is required "
		    "and has a default", ki.section, ki.key);
	}
	cr_expect_eq(config_key_at(n, &ki), -ENOENT);
	cr_assert_geq(row_find("host", "keepalive"), 0);
	cr_assert_eq(config_key_at((size_t)row_find("host", "keepalive"), &ki),
	    0);
	cr_expect_str_eq(ki.def, "15s");
	cr_expect_str_eq(ki.kind, "duration");
	cr_expect_eq(ki.reload, CONFIG_RELOAD_RESTART);
	cr_assert_eq(config_key_at((size_t)row_find("daemon", "log_level"),
	    &ki), 0);
	cr_expect_eq(ki.reload, CONFIG_RELOAD_LIVE);
}

/*
 * The example documents each row once, in the first section of its type:
 * a "# Default: X" (or "# Required.") line right above "key = " or
 * "#key = ".  Any other key line must be a row of its section.
 */
CFGT_TEST(example_documents_every_row_with_its_default)
{
	const char *src = getenv("BISECTD_SRCDIR");
	char *path, *text, *line, *rest, *prev = NULL, *marker;
	char type[32] = "", seen[8][32];
	size_t i, n = row_count(), nseen = 0, len;
	struct config_key_info ki;
	int *documented, lineno = 0, first = 0;
	long row;

	cr_assert_not_null(src, "BISECTD_SRCDIR is not set");
	xasprintf(&path, "%s/config/bisectd.conf.example", src);
	text = tst_read_file(path);
	cr_assert_not_null(text, "%s", path);
	documented = xcalloc(n, sizeof(*documented));
	rest = text;
	for (line = strsep(&rest, "\n"); line != NULL;
	    prev = line, line = strsep(&rest, "\n")) {
		lineno++;
		if (line[0] == '[') {
			len = strcspn(line + 1, " ]");
			cr_assert_lt(len, sizeof(type));
			snprintf(type, sizeof(type), "%.*s", (int)len,
			    line + 1);
			for (i = 0; i < nseen; i++)
				if (strcmp(seen[i], type) == 0)
					break;
			first = i == nseen;
			if (first && nseen < 8)
				snprintf(seen[nseen++], sizeof(seen[0]), "%s",
				    type);
			continue;
		}
		len = strspn(line + (line[0] == '#'),
		    "abcdefghijklmnopqrstuvwxyz_");
		if (len == 0 || strncmp(line + (line[0] == '#') + len, " = ",
		    3) != 0)
			continue;
		cr_assert_neq(type[0], '\0', "key before any section: %s", line);
		marker = xstrndup(line + (line[0] == '#'), len);
		row = row_find(type, marker);
		cr_expect_geq(row, 0, "[%s] %s is not a key", type, marker);
		free(marker);
		if (row < 0 || !first)
			continue;
		cr_assert_eq(config_key_at((size_t)row, &ki), 0);
		documented[row]++;
		marker = row_marker(&ki);
		cr_expect(prev != NULL && strcmp(prev, marker) == 0,
		    "line %d: [%s] %s wants \"%s\" above it, not \"%s\"",
		    lineno, type, ki.key, marker, prev != NULL ? prev : "");
		free(marker);
	}
	for (i = 0; i < n; i++) {
		cr_assert_eq(config_key_at(i, &ki), 0);
		cr_expect_eq(documented[i], 1, "[%s] %s is documented %d times",
		    ki.section, ki.key, documented[i]);
	}
	free(documented);
	free(text);
	free(path);
}

/* Hand-built hosts and benchmarks get exactly what an empty section gets. */
CFGT_TEST(hand_built_sections_get_the_rows_defaults)
{
	struct config_host h;
	struct config_benchmark b;

	cfgt_load_ok(HOST_A BENCH_B);
	memset(&h, 0, sizeof(h));
	config_host_defaults(&h);
	cr_expect_eq(h.port, cfgt_cfg.hosts[0].port);
	cr_expect_eq(h.port, 22);
	cr_expect_eq(h.connect_timeout_ms, cfgt_cfg.hosts[0].connect_timeout_ms);
	cr_expect_eq(h.keepalive_ms, 15000);
	cr_expect_eq(h.quarantine_after, 3);
	cr_expect_eq(h.roles, CONFIG_ROLE_BUILD | CONFIG_ROLE_TEST);
	cr_expect_str_eq(h.group, "default");
	cr_expect_str_eq(h.workdir, cfgt_cfg.hosts[0].workdir);
	config_host_release(&h);
	memset(&b, 0, sizeof(b));
	config_benchmark_defaults(&b);
	cr_expect_eq(b.boot_timeout_ms, 10 * 60 * 1000);
	cr_expect_eq(b.boot_timeout_ms, cfgt_cfg.benchmarks[0].boot_timeout_ms);
	cr_expect_eq(b.run_timeout_ms, 60 * 60 * 1000);
	cr_expect_float_eq(b.min_change, 0.01, 1e-12);
	cr_expect_eq(b.verify, CONFIG_VERIFY_REVERT);
	cr_expect_str_eq(b.arch, "x86");
	config_benchmark_release(&b);
}

/* Collects changes as "section name key class" strings. */
struct diff_seen {
	char	*all;
	size_t	 n;
};

static void
diff_collect(void *arg, const struct config_change *c)
{
	struct diff_seen *s = arg;
	char *next;

	xasprintf(&next, "%s%s %s %s %s\n", s->all, c->section,
	    c->name != NULL ? c->name : "-", c->key != NULL ? c->key : "-",
	    c->reload == CONFIG_RELOAD_LIVE ? "live" : "restart");
	free(s->all);
	s->all = next;
	s->n++;
}

/* Loads text into cfg from NAME in the test's directory. */
static void
diff_load(struct config *cfg, const char *name, const char *text)
{
	char *p = tst_write_file(cfgt_dir, name, text);

	cr_assert_not_null(p);
	cr_assert_eq(config_load(cfg, p, NULL), 0, "%s", text);
	free(p);
}

#define HOST_C \
	"[host c]\naddress = 127.0.0.1\nuser = u\nidentity = id\n" \
	"known_hosts = kh\n"

CFGT_TEST(diff_names_every_changed_key_with_its_class)
{
	struct config a, b;
	struct diff_seen s = { xstrdup(""), 0 };

	diff_load(&a, "a.conf", "[daemon]\nlog_level = info\n"
	    "[repo]\npath = /r\nurl = https://u:one@h/x\n"
	    HOST_A "keepalive = 15s\n" HOST_C BENCH_B "run_timeout = 1h\n");
	diff_load(&b, "b.conf", "[daemon]\nlog_level = debug\n"
	    "socket = /tmp/other.sock\n"
	    "[repo]\npath = /r\nurl = https://u:two@h/x\n"
	    BENCH_B "run_timeout = 2h\n"
	    HOST_A "keepalive = 30s\npassphrase_file = /p\n"
	    "[host d]\naddress = 127.0.0.1\nuser = u\nidentity = id\n"
	    "known_hosts = kh\n");
	config_diff(&a, &b, diff_collect, &s);
	cr_expect_str_eq(s.all,
	    "daemon - socket restart\n"
	    "daemon - log_level live\n"
	    "repo - url live\n"
	    "host a passphrase_file restart\n"
	    "host a keepalive restart\n"
	    "host c - restart\n"
	    "host d - restart\n"
	    "benchmark b run_timeout live\n");
	free(s.all);
	s.all = xstrdup("");
	s.n = 0;
	config_diff(&a, &a, diff_collect, &s);
	cr_expect_eq(s.n, 0, "%s", s.all);
	free(s.all);
	config_release(&a);
	config_release(&b);
}

/* Reordered sections with the same values are no change. */
CFGT_TEST(diff_matches_sections_by_name)
{
	struct config a, b;
	struct diff_seen s = { xstrdup(""), 0 };

	diff_load(&a, "a.conf", HOST_A HOST_C BENCH_B);
	diff_load(&b, "b.conf", BENCH_B HOST_C HOST_A);
	config_diff(&a, &b, diff_collect, &s);
	cr_expect_eq(s.n, 0, "%s", s.all);
	free(s.all);
	config_release(&a);
	config_release(&b);
}

/*
 * A released configuration that is held stays readable and is freed by
 * the last drop; without holds it is freed at once.  ASan reports a use
 * after free or a leak if either half is wrong.
 */
CFGT_TEST(held_configuration_is_freed_by_its_last_drop)
{
	struct config cfg;
	struct config_hold *h1, *h2, *h3;
	const struct config_benchmark *b;

	diff_load(&cfg, "a.conf", HOST_A BENCH_B);
	b = config_benchmark_find(&cfg, "b");
	cr_assert_not_null(b);
	h1 = config_hold(&cfg);
	h2 = config_hold(&cfg);
	cr_expect_eq(h1, h2);
	cr_expect_eq(config_retired_count(), 0);
	config_release(&cfg);
	cr_expect_null(cfg.hosts, "the struct itself is left empty");
	cr_expect_eq(config_retired_count(), 1);
	cr_expect_str_eq(b->run, "./run", "still readable while held");
	cr_expect_eq(config_drop(h1), 0);
	cr_expect_str_eq(b->metrics[0].name, "tput");
	cr_expect_eq(config_drop(h2), 1, "the last drop frees it");
	cr_expect_eq(config_retired_count(), 0);

	/* Holds dropped before the release: nothing is retired. */
	diff_load(&cfg, "a.conf", HOST_A BENCH_B);
	h3 = config_hold(&cfg);
	cr_expect_eq(config_drop(h3), 0);
	config_release(&cfg);
	cr_expect_eq(config_retired_count(), 0);
	cr_expect_eq(config_drop(NULL), 0);
}
