/* SPDX-License-Identifier: MIT */
/*
 * Tests for config/: every section and key, the defaults, the file's syntax,
 * relative paths, the example file, and JSON output without secrets.  The
 * error messages are tested in config_errors_test.c.
 */
#include <criterion/criterion.h>

#include <sys/stat.h>

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <jansson.h>

#include "common/xmalloc.h"
#include "config/config.h"
#include "common/log.h"
#include "tests/support/tst.h"
#include "tests/unit/config_test.h"

TestSuite(config, .fini = tst_leak_check);

char *cfgt_dir;
char *cfgt_path;
struct config cfgt_cfg;
struct config_errors cfgt_errs;

void
cfgt_setup(void)
{
	char *tmp = tst_tmpdir("config");

	cr_assert_not_null(tmp);
	cfgt_dir = realpath(tmp, NULL);
	cr_assert_not_null(cfgt_dir);
	free(tmp);
	config_init(&cfgt_cfg);
	cfgt_errs.msgs = NULL;
	cfgt_errs.n = 0;
}

void
cfgt_cleanup(void)
{
	config_release(&cfgt_cfg);
	config_errors_release(&cfgt_errs);
	tst_rmrf(cfgt_dir);
	free(cfgt_dir);
	free(cfgt_path);
	cfgt_dir = cfgt_path = NULL;
}

/* All messages on one line each, to show what came instead. */
char *
cfgt_all_errors(void)
{
	char *all = xstrdup(""), *next;
	size_t i;

	for (i = 0; i < cfgt_errs.n; i++) {
		xasprintf(&next, "%s\n  %s", all, cfgt_errs.msgs[i]);
		free(all);
		all = next;
	}
	return all;
}

/* Writes text as NAME in the temp dir and loads it. */
int
cfgt_load_named(const char *name, const char *text)
{
	config_release(&cfgt_cfg);
	config_errors_release(&cfgt_errs);
	free(cfgt_path);
	cfgt_path = tst_write_file(cfgt_dir, name, text);
	cr_assert_not_null(cfgt_path);
	return config_load(&cfgt_cfg, cfgt_path, &cfgt_errs);
}

int
cfgt_load(const char *text)
{
	return cfgt_load_named("bisectd.conf", text);
}

/* Loads text and insists on success, printing the errors otherwise. */
void
cfgt_load_ok(const char *text)
{
	char *all;

	if (cfgt_load(text) != 0 || cfgt_errs.n != 0) {
		all = cfgt_all_errors();
		cr_assert_fail("expected no errors, got:%s", all);
	}
}

/* Asserts exactly these messages, each "LINE: rest" after "PATH:". */
void
cfgt_expect(const char *const *want, size_t n)
{
	char *all = cfgt_all_errors(), *full;
	size_t i;

	cr_assert_eq(cfgt_errs.n, n, "expected %zu errors, got %zu:%s", n, cfgt_errs.n,
	    all);
	for (i = 0; i < n; i++) {
		xasprintf(&full, "%s:%s", cfgt_path, want[i]);
		cr_expect_str_eq(cfgt_errs.msgs[i], full, "error %zu:%s", i, all);
		free(full);
	}
	free(all);
}

/* dir/rel, the absolute path a relative value must become. */
char *
cfgt_abs(const char *rel)
{
	char *p;

	xasprintf(&p, "%s/%s", cfgt_dir, rel);
	return p;
}

void
cfgt_expect_path(const char *got, const char *rel)
{
	char *want = cfgt_abs(rel);

	cr_expect_str_eq(got, want);
	free(want);
}

static const char full_config[] =
	"# every key with a value other than its default\n"	/* 1 */
	"[daemon]\n"
	"socket = /tmp/x/bisectd.sock\n"
	"socket_mode = 0600\n"
	"socket_group = wheel\n"				/* 5 */
	"database = state/bisectd.db\n"
	"workdir = /srv/bisectd\n"
	"log_level = debug\n"
	"max_clients = 10\n"
	"max_clients_per_uid = 2\n"				/* 10 */
	"report_hook = /usr/sbin/sendmail -t ; echo sent # kept\n"
	"\n"
	"[repo]\n"
	"path = linux\n"
	"url = https://127.0.0.1/linux.git\n"			/* 15 */
	"fetch_interval = 0\n"
	"\n"
	"[host box1]\n"
	"address = 127.0.0.1\n"
	"port = 2222\n"						/* 20 */
	"user = bench\n"
	"identity = keys/id_ed25519\n"
	"passphrase_file = /etc/bisectd/pass\n"
	"known_hosts = keys/known_hosts\n"
	"host_key = accept-new\n"				/* 25 */
	"group = skylake\n"
	"roles = test, build\n"
	"workdir = /scratch\n"
	"connect_timeout = 500ms\n"
	"keepalive = 2m\n"					/* 30 */
	"quarantine_after = 5\n"
	"power_cycle = pdu {host}\n"
	"\n"
	"[benchmark wis]\n"
	"build = make -j8\n"					/* 35 */
	"artifact = {workdir}/k.tar\n"
	"install = inst {artifact}\n"
	"reboot = reboot\n"
	"boot_check = uname -r\n"
	"expect_kernel = 6.8-{short}\n"				/* 40 */
	"run = ./run {commit}\n"
	"result_file = {workdir}/r.json\n"
	"build_timeout = 3h\n"
	"install_timeout = 90s\n"
	"boot_timeout = 1d\n"					/* 45 */
	"run_timeout = 600\n"
	"metrics = ops:higher, lat_ms:lower ,boot:pass-fail\n"
	"min_change = 2.5%\n"
	"\n"
	"[sweep nightly]\n"					/* 50 */
	"benchmark = wis\n"
	"metrics = lat_ms\n"
	"group = skylake\n"
	"tag_pattern = next-*\n"
	"schedule = daily 12:00\n";				/* 55 */

CFGT_TEST(every_section_parsed)
{
	const struct config_daemon *d;
	const struct config_host *h;
	const struct config_benchmark *b;
	const struct config_sweep *w;

	cfgt_load_ok(full_config);
	d = &cfgt_cfg.daemon;
	cr_expect_str_eq(d->socket, "/tmp/x/bisectd.sock");
	cr_expect_eq(d->socket_mode, 0600);
	cr_expect_str_eq(d->socket_group, "wheel");
	cfgt_expect_path(d->database, "state/bisectd.db");
	cr_expect_str_eq(d->workdir, "/srv/bisectd");
	cr_expect_eq(d->log_level, LOG_LEVEL_DEBUG);
	cr_expect_eq(d->max_clients, 10);
	cr_expect_eq(d->max_clients_per_uid, 2);
	cr_expect_str_eq(d->report_hook,
	    "/usr/sbin/sendmail -t ; echo sent # kept");

	cfgt_expect_path(cfgt_cfg.repo.path, "linux");
	cr_expect_str_eq(cfgt_cfg.repo.url, "https://127.0.0.1/linux.git");
	cr_expect_eq(cfgt_cfg.repo.fetch_interval_ms, 0);

	cr_assert_eq(cfgt_cfg.nhosts, 1);
	h = config_host_find(&cfgt_cfg, "box1");
	cr_assert_eq(h, &cfgt_cfg.hosts[0]);
	cr_expect_str_eq(h->address, "127.0.0.1");
	cr_expect_eq(h->port, 2222);
	cr_expect_str_eq(h->user, "bench");
	cfgt_expect_path(h->identity, "keys/id_ed25519");
	cr_expect_str_eq(h->passphrase_file, "/etc/bisectd/pass");
	cfgt_expect_path(h->known_hosts, "keys/known_hosts");
	cr_expect_eq(h->host_key, CONFIG_HOST_KEY_ACCEPT_NEW);
	cr_expect_str_eq(h->group, "skylake");
	cr_expect_eq(h->roles, CONFIG_ROLE_BUILD | CONFIG_ROLE_TEST);
	cr_expect_str_eq(h->workdir, "/scratch");
	cr_expect_eq(h->connect_timeout_ms, 500);
	cr_expect_eq(h->keepalive_ms, 120000);
	cr_expect_eq(h->quarantine_after, 5);
	cr_expect_str_eq(h->power_cycle, "pdu {host}");
	cr_expect_eq(h->line, 18);

	cr_assert_eq(cfgt_cfg.nbenchmarks, 1);
	b = config_benchmark_find(&cfgt_cfg, "wis");
	cr_assert_not_null(b);
	cr_expect_str_eq(b->build, "make -j8");
	cr_expect_str_eq(b->artifact, "{workdir}/k.tar");
	cr_expect_str_eq(b->install, "inst {artifact}");
	cr_expect_str_eq(b->reboot, "reboot");
	cr_expect_str_eq(b->boot_check, "uname -r");
	cr_expect_str_eq(b->expect_kernel, "6.8-{short}");
	cr_expect_str_eq(b->run, "./run {commit}");
	cr_expect_null(b->collect);
	cr_expect_str_eq(b->result_file, "{workdir}/r.json");
	cr_expect_eq(b->build_timeout_ms, 3 * 3600 * 1000);
	cr_expect_eq(b->install_timeout_ms, 90 * 1000);
	cr_expect_eq(b->boot_timeout_ms, 86400 * 1000);
	cr_expect_eq(b->run_timeout_ms, 600 * 1000);
	cr_assert_eq(b->nmetrics, 3);
	cr_expect_str_eq(b->metrics[0].name, "ops");
	cr_expect_eq(b->metrics[0].kind, CONFIG_METRIC_NUMERIC);
	cr_expect_eq(b->metrics[0].direction, CONFIG_HIGHER_IS_BETTER);
	cr_expect_str_eq(b->metrics[1].name, "lat_ms");
	cr_expect_eq(b->metrics[1].kind, CONFIG_METRIC_NUMERIC);
	cr_expect_eq(b->metrics[1].direction, CONFIG_LOWER_IS_BETTER);
	cr_expect_str_eq(b->metrics[2].name, "boot");
	cr_expect_eq(b->metrics[2].kind, CONFIG_METRIC_PASS_FAIL);
	cr_expect_eq(config_metric_find(b, "lat_ms"), &b->metrics[1]);
	cr_expect_null(config_metric_find(b, "nope"));
	cr_expect_float_eq(b->min_change, 0.025, 1e-12);
	cr_expect_eq(b->line, 34);

	cr_assert_eq(cfgt_cfg.nsweeps, 1);
	w = &cfgt_cfg.sweeps[0];
	cr_expect_str_eq(w->name, "nightly");
	cr_expect_str_eq(w->benchmark, "wis");
	cr_assert_eq(w->metrics.n, 1);
	cr_expect_str_eq(w->metrics.v[0], "lat_ms");
	cr_expect_str_eq(w->group, "skylake");
	cr_expect_str_eq(w->tag_pattern, "next-*");
	cr_expect_eq(w->schedule.kind, CONFIG_SCHEDULE_DAILY);
	cr_expect_eq(w->schedule.minute * 60 * 1000, 12 * 3600 * 1000);
	cr_expect_eq(w->samples, 15);
	cr_expect_eq(w->baseline, 5);
	cr_expect_eq(w->priority, -1);
	cr_expect_null(w->start);
	cr_expect_eq(w->line, 50);

	cr_expect_eq(config_sweep_find(&cfgt_cfg, "nightly"), w);
	cr_expect_null(config_sweep_find(&cfgt_cfg, "nope"));
	cr_expect_null(config_host_find(&cfgt_cfg, "nope"));
	cr_expect_null(config_benchmark_find(&cfgt_cfg, "nope"));
	cr_expect_eq(config_group_roles(&cfgt_cfg, "skylake"),
	    CONFIG_ROLE_BUILD | CONFIG_ROLE_TEST);
	cr_expect_eq(config_group_roles(&cfgt_cfg, "default"), 0);
}

/*
 * NAME:KIND:AGG says how a run's values (one per iteration) become the
 * run's one value; names keep their own colons (LKP's interrupts.CAL:...).
 */
CFGT_TEST(metric_aggregates)
{
	const struct config_benchmark *b;

	cfgt_load_ok("[benchmark b]\nrun = r\nmetrics = a:higher, "
	    "b:lower:median, irq.CAL:Function_call:lower:max, "
	    "x:y:higher:min, boot:pass-fail, ok:pass-fail:min\n");
	b = config_benchmark_find(&cfgt_cfg, "b");
	cr_assert_not_null(b);
	cr_assert_eq(b->nmetrics, 6);
	cr_expect_str_eq(b->metrics[0].name, "a");
	cr_expect_eq(b->metrics[0].agg, AGG_MEAN);
	cr_expect_str_eq(b->metrics[1].name, "b");
	cr_expect_eq(b->metrics[1].direction, CONFIG_LOWER_IS_BETTER);
	cr_expect_eq(b->metrics[1].agg, AGG_MEDIAN);
	cr_expect_str_eq(b->metrics[2].name, "irq.CAL:Function_call");
	cr_expect_eq(b->metrics[2].agg, AGG_MAX);
	cr_expect_str_eq(b->metrics[3].name, "x:y");
	cr_expect_eq(b->metrics[3].direction, CONFIG_HIGHER_IS_BETTER);
	cr_expect_eq(b->metrics[3].agg, AGG_MIN);
	cr_expect_eq(b->metrics[4].agg, AGG_MAX, "a failed iteration "
	    "fails the run");
	cr_expect_eq(b->metrics[5].agg, AGG_MIN);
}

CFGT_TEST(defaults)
{
	const struct config_host *h;
	const struct config_benchmark *b;
	char *want;

	cfgt_load_ok("# nothing but a comment\n");
	cr_expect_str_eq(cfgt_cfg.daemon.socket, CONFIG_DEFAULT_SOCKET);
	cr_expect_eq(cfgt_cfg.daemon.socket_mode, 0660);
	cr_expect_null(cfgt_cfg.daemon.socket_group);
	cr_expect_str_eq(cfgt_cfg.daemon.database, CONFIG_DEFAULT_DATABASE);
	cr_expect_str_eq(cfgt_cfg.daemon.workdir, CONFIG_DEFAULT_WORKDIR);
	cr_expect_eq(cfgt_cfg.daemon.log_level, LOG_LEVEL_INFO);
	cr_expect_eq(cfgt_cfg.daemon.max_clients, 64);
	cr_expect_eq(cfgt_cfg.daemon.max_clients_per_uid, 16);
	cr_expect_null(cfgt_cfg.daemon.report_hook);
	cr_expect_null(cfgt_cfg.repo.path);
	cr_expect_eq(cfgt_cfg.nhosts + cfgt_cfg.nbenchmarks + cfgt_cfg.nsweeps, 0);
	want = cfgt_abs("bisectd.conf");
	cr_expect_str_eq(cfgt_cfg.path, want);
	free(want);

	cfgt_load_ok(HOST_A BENCH_B);
	h = &cfgt_cfg.hosts[0];
	cr_expect_eq(h->port, 22);
	cr_expect_null(h->passphrase_file);
	cr_expect_eq(h->host_key, CONFIG_HOST_KEY_STRICT);
	cr_expect_str_eq(h->group, CONFIG_DEFAULT_GROUP);
	cr_expect_eq(h->roles, CONFIG_ROLE_BUILD | CONFIG_ROLE_TEST);
	cr_expect_str_eq(h->workdir, "/var/tmp/bisectd");
	cr_expect_eq(h->connect_timeout_ms, 10000);
	cr_expect_eq(h->keepalive_ms, 15000);
	cr_expect_eq(h->quarantine_after, 3);
	cr_expect_null(h->power_cycle);
	b = &cfgt_cfg.benchmarks[0];
	cr_expect_null(b->build);
	cr_expect_null(b->collect);
	cr_expect_eq(b->build_timeout_ms, 2 * 3600 * 1000);
	cr_expect_eq(b->install_timeout_ms, 10 * 60 * 1000);
	cr_expect_eq(b->boot_timeout_ms, 10 * 60 * 1000);
	cr_expect_eq(b->run_timeout_ms, 3600 * 1000);
	cr_expect_float_eq(b->min_change, 0.01, 1e-12);

	cfgt_load_ok("[repo]\npath = /srv/linux\n" HOST_A BENCH_B
	    "[sweep s]\nbenchmark = b\nmetrics = tput\ngroup = default\n"
	    "tag_pattern = next-*\n");
	cr_expect_eq(cfgt_cfg.sweeps[0].schedule.kind, CONFIG_SCHEDULE_EACH);
	cr_expect_eq(cfgt_cfg.sweeps[0].samples, 15);
	cr_expect_eq(cfgt_cfg.sweeps[0].baseline, 5);
	cr_expect_null(cfgt_cfg.repo.url);
	cr_expect_eq(cfgt_cfg.repo.fetch_interval_ms, 0);
}

/* The file's quirks: what inih would otherwise do differently. */
CFGT_TEST(syntax_details)
{
	cfgt_load_ok("\xef\xbb\xbf# a byte order mark is skipped\r\n"
	    "[daemon]\r\n"
	    "  socket_group = staff   \r\n"		/* indented: a key */
	    "report_hook: mail -s 'a; b' root ; true\n"	/* ':' and ';' */
	    "; a comment\n"
	    "# another\n"
	    "[ host  a ]\n"
	    "address = ::1\n"
	    "user = u\n"
	    "identity = i\n"
	    "known_hosts = k\n"
	    "[host b]\n"
	    "address = localhost\n"
	    "user = u\n"
	    "identity = /abs/i\n"
	    "known_hosts = k\n"
	    "[benchmark b]\n"
	    "run = ./x = 1\n"
	    "metrics = m:lower\n");
	cr_expect_str_eq(cfgt_cfg.daemon.socket_group, "staff");
	cr_expect_str_eq(cfgt_cfg.daemon.report_hook,
	    "mail -s 'a; b' root ; true");
	cr_expect_str_eq(cfgt_cfg.hosts[0].name, "a");
	cr_expect_str_eq(cfgt_cfg.hosts[0].address, "::1");
	cr_expect_str_eq(cfgt_cfg.hosts[1].address, "localhost");
	cr_expect_str_eq(cfgt_cfg.hosts[1].identity, "/abs/i");
	cr_expect_str_eq(cfgt_cfg.benchmarks[0].run, "./x = 1");
}

CFGT_TEST(relative_paths_follow_the_file)
{
	char *sub, *cwd, *want;

	xasprintf(&sub, "%s/etc", cfgt_dir);
	cr_assert_eq(mkdir(sub, 0700), 0);
	config_release(&cfgt_cfg);
	cfgt_path = tst_write_file(sub, "b.conf", HOST_A
	    "passphrase_file = ../secret/pass\n"
	    "[repo]\npath = ./linux\n");
	cr_assert_not_null(cfgt_path);
	/* Loaded through a relative path from elsewhere. */
	cwd = getcwd(NULL, 0);
	cr_assert_eq(chdir(cfgt_dir), 0);
	cr_assert_eq(config_load(&cfgt_cfg, "etc/b.conf", &cfgt_errs), 0);
	cr_assert_eq(chdir(cwd), 0);
	free(cwd);
	cfgt_expect_path(cfgt_cfg.hosts[0].identity, "etc/id");
	cfgt_expect_path(cfgt_cfg.hosts[0].known_hosts, "etc/kh");
	cfgt_expect_path(cfgt_cfg.hosts[0].passphrase_file, "etc/../secret/pass");
	cfgt_expect_path(cfgt_cfg.repo.path, "etc/./linux");
	want = cfgt_abs("etc/b.conf");
	cr_expect_str_eq(cfgt_cfg.path, want);
	free(want);
	free(sub);
}

CFGT_TEST(unreadable_file)
{
	char *missing;
	int rc;

	xasprintf(&missing, "%s/no-such.conf", cfgt_dir);
	rc = config_load(&cfgt_cfg, missing, &cfgt_errs);
	cr_expect_eq(rc, -ENOENT);
	cr_assert_eq(cfgt_errs.n, 1);
	free(cfgt_path);
	xasprintf(&cfgt_path, "%s: cannot read: %s", missing, strerror(ENOENT));
	cr_expect_str_eq(cfgt_errs.msgs[0], cfgt_path);
	config_errors_release(&cfgt_errs);

	rc = config_load(&cfgt_cfg, cfgt_dir, &cfgt_errs);
	cr_expect_eq(rc, -EINVAL);
	cr_assert_eq(cfgt_errs.n, 1);
	free(cfgt_path);
	xasprintf(&cfgt_path, "%s: cannot read: not a regular file", cfgt_dir);
	cr_expect_str_eq(cfgt_errs.msgs[0], cfgt_path);
	free(missing);

	/* Without an error list the result is the same. */
	cr_expect_eq(cfgt_load("[nope]\n"), -EINVAL);
	cr_expect_eq(config_load(&cfgt_cfg, cfgt_path, NULL), -EINVAL);
	config_release(&cfgt_cfg);
	config_release(&cfgt_cfg);
}

/* Every string in j, keys and values, joined for searching. */
static void
cfg_json_strings(json_t *j, char **acc)
{
	const char *k;
	json_t *v;
	size_t i;
	char *next;

	if (json_is_string(j)) {
		xasprintf(&next, "%s\n%s", *acc, json_string_value(j));
		free(*acc);
		*acc = next;
	} else if (json_is_object(j)) {
		json_object_foreach(j, k, v) {
			xasprintf(&next, "%s\n%s", *acc, k);
			free(*acc);
			*acc = next;
			cfg_json_strings(v, acc);
		}
	} else if (json_is_array(j)) {
		json_array_foreach(j, i, v)
			cfg_json_strings(v, acc);
	}
}

CFGT_TEST(json_has_every_value_and_no_secret)
{
	json_t *j, *h, *b, *m;
	char *text, *strings = xstrdup(""), *pass;

	pass = tst_write_file(cfgt_dir, "pass", "hunter2-passphrase\n");
	cr_assert_not_null(pass);
	xasprintf(&text, "[repo]\npath = r\n"
	    "url = https://bot:tok3n-secret@127.0.0.1/linux.git\n"
	    HOST_A "passphrase_file = %s\n" BENCH_B, pass);
	cfgt_load_ok(text);
	free(text);
	j = config_to_json(&cfgt_cfg);
	cr_assert_not_null(j);
	text = json_dumps(j, JSON_SORT_KEYS);
	cfg_json_strings(j, &strings);
	cr_expect_null(strstr(strings, "hunter2"), "%s", text);
	cr_expect_null(strstr(strings, "tok3n"), "%s", text);
	cr_expect_null(strstr(strings, "bot:"), "%s", text);
	cr_expect_null(strstr(strings, "passphrase\n"), "%s", text);

	cr_expect_str_eq(json_string_value(json_object_get(j, "path")),
	    cfgt_cfg.path);
	cr_expect_str_eq(json_string_value(json_object_get(
	    json_object_get(j, "repo"), "url")), "https://***@127.0.0.1/linux.git");
	cr_expect_str_eq(json_string_value(json_object_get(
	    json_object_get(j, "daemon"), "socket_mode")), "0660");
	cr_expect_str_eq(json_string_value(json_object_get(
	    json_object_get(j, "daemon"), "log_level")), "info");
	cr_expect(json_is_null(json_object_get(json_object_get(j, "daemon"),
	    "socket_group")));
	h = json_array_get(json_object_get(j, "hosts"), 0);
	cr_assert_not_null(h);
	cr_expect_str_eq(json_string_value(json_object_get(h, "name")), "a");
	cr_expect_str_eq(json_string_value(json_object_get(h,
	    "passphrase_file")), pass);
	cr_expect_eq(json_integer_value(json_object_get(h, "port")), 22);
	cr_expect_eq(json_integer_value(json_object_get(h,
	    "connect_timeout_ms")), 10000);
	cr_expect_str_eq(json_string_value(json_object_get(h, "host_key")),
	    "strict");
	cr_expect_eq(json_array_size(json_object_get(h, "roles")), 2);
	/* Every host key is present, so nothing silently drops out. */
	cr_expect_eq(json_object_size(h), 15);
	b = json_array_get(json_object_get(j, "benchmarks"), 0);
	cr_assert_not_null(b);
	/* with verify, arch, build_inputs, artifact_keep, retry_budget,
	 * log_max_kib, kconfig, compiler, params, describe, confirm_groups,
	 * fixups and auto_fixups */
	cr_expect_eq(json_object_size(b), 29);
	m = json_array_get(json_object_get(b, "metrics"), 0);
	cr_expect_str_eq(json_string_value(json_object_get(m, "name")),
	    "tput");
	cr_expect_str_eq(json_string_value(json_object_get(m, "kind")),
	    "higher");
	cr_expect_eq(json_array_size(json_object_get(j, "sweeps")), 0);
	free(text);
	free(strings);
	free(pass);
	json_decref(j);

	/* A config without [repo] says so rather than showing nulls. */
	cfgt_load_ok("");
	j = config_to_json(&cfgt_cfg);
	cr_expect(json_is_null(json_object_get(j, "repo")));
	json_decref(j);
}

/* The whole file, for looking at the example's text. */
static char *
cfgt_read(const char *file)
{
	char *buf = NULL;
	size_t cap = 0;
	FILE *f = fopen(file, "r");

	cr_assert_not_null(f, "%s", file);
	cr_assert_neq(getdelim(&buf, &cap, '\0', f), -1);
	fclose(f);
	return buf;
}

/*
 * Every key of a section object in the JSON (durations without their _ms)
 * must be set or shown commented out in the example, at a line's start.
 */
static void
cfgt_documented(const char *text, json_t *section, const char *what)
{
	const char *key;
	char *want;
	json_t *v;
	size_t len;

	cr_assert(json_is_object(section), "%s", what);
	json_object_foreach(section, key, v) {
		if (strcmp(key, "name") == 0)
			continue;
		len = strlen(key);
		if (len > 3 && strcmp(key + len - 3, "_ms") == 0)
			len -= 3;
		xasprintf(&want, "\n%.*s = ", (int)len, key);
		if (strstr(text, want) == NULL) {
			free(want);
			xasprintf(&want, "\n#%.*s = ", (int)len, key);
		}
		cr_expect_not_null(strstr(text, want), "%s key %.*s is not in "
		    "the example", what, (int)len, key);
		free(want);
	}
}

CFGT_TEST(example_file_loads_cleanly)
{
	const char *src = getenv("BISECTD_SRCDIR");
	const struct config_benchmark *b;
	char *example, *all, *want, *real, *text;
	json_t *j;

	cr_assert_not_null(src, "BISECTD_SRCDIR is not set");
	xasprintf(&example, "%s/config/bisectd.conf.example", src);
	if (config_load(&cfgt_cfg, example, &cfgt_errs) != 0) {
		all = cfgt_all_errors();
		cr_assert_fail("the example has errors:%s", all);
	}
	cr_expect_eq(cfgt_errs.n, 0);
	cr_expect_eq(cfgt_cfg.nhosts, 2);
	cr_expect_str_eq(cfgt_cfg.hosts[0].address, "127.0.0.1");
	cr_expect_str_eq(cfgt_cfg.hosts[1].address, "127.0.0.1");
	cr_expect_eq(cfgt_cfg.hosts[1].roles, CONFIG_ROLE_TEST);
	b = config_benchmark_find(&cfgt_cfg, "will-it-scale");
	cr_assert_not_null(b);
	cr_expect_eq(b->nmetrics, 3);
	cr_expect_float_eq(b->min_change, 0.02, 1e-12);
	cr_expect_eq(cfgt_cfg.nsweeps, 1);
	real = realpath(src, NULL);
	cr_assert_not_null(real);
	xasprintf(&want, "%s/config/keys/box1_ed25519", real);
	cr_expect_str_eq(cfgt_cfg.hosts[0].identity, want);
	free(want);
	free(real);

	text = cfgt_read(example);
	j = config_to_json(&cfgt_cfg);
	cfgt_documented(text, json_object_get(j, "daemon"), "[daemon]");
	cfgt_documented(text, json_object_get(j, "repo"), "[repo]");
	cfgt_documented(text, json_array_get(json_object_get(j, "hosts"), 0),
	    "[host]");
	cfgt_documented(text, json_array_get(json_object_get(j,
	    "benchmarks"), 0), "[benchmark]");
	cfgt_documented(text, json_array_get(json_object_get(j, "sweeps"), 0),
	    "[sweep]");
	json_decref(j);
	free(text);
	free(example);
}

/* Without metrics a sweep watches every numeric metric of its benchmark. */
CFGT_TEST(sweep_defaults_watch_every_numeric_metric)
{
	const struct config_metric *m[4];
	const struct config_sweep *w;
	json_t *j, *sw;

	cr_assert_eq(cfgt_load("[repo]\npath = r\n" HOST_A
	    "[benchmark b]\nrun = ./run\n"
	    "metrics = tput:higher, ok:pass-fail, lat:lower\n"
	    "[sweep s]\nbenchmark = b\ngroup = default\n"
	    "tag_pattern = refs/tags/next-*\nschedule = daily 6:05\n"
	    "priority = 7\nstart = next-20261120\n"), 0, "%s",
	    cfgt_all_errors());
	w = config_sweep_find(&cfgt_cfg, "s");
	cr_assert_not_null(w);
	cr_expect_eq(w->metrics.n, 0);
	cr_assert_eq(config_sweep_metrics(&cfgt_cfg, w, m, 4), 2);
	cr_expect_str_eq(m[0]->name, "tput");
	cr_expect_str_eq(m[1]->name, "lat");
	/* A short array is not overrun; the count tells the size needed. */
	cr_expect_eq(config_sweep_metrics(&cfgt_cfg, w, m, 1), 2);
	cr_expect_eq(w->schedule.minute, 6 * 60 + 5);
	cr_expect_eq(w->priority, 7);
	cr_expect_str_eq(w->start, "next-20261120");
	j = config_to_json(&cfgt_cfg);
	sw = json_array_get(json_object_get(j, "sweeps"), 0);
	cr_expect_str_eq(json_string_value(json_object_get(sw, "schedule")),
	    "daily 06:05");
	cr_expect_eq(json_integer_value(json_object_get(sw, "priority")), 7);
	cr_expect_eq(json_array_size(json_object_get(sw, "metrics")), 0);
	json_decref(j);
}
