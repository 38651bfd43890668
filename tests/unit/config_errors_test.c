/* SPDX-License-Identifier: MIT */
/*
 * The config suite's error tests: every kind of error gives its exact
 * FILE:LINE message, all errors of a file are reported in line order, and
 * durations parse as systemd.time(7) writes them.
 */
#include <criterion/criterion.h>

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "common/xmalloc.h"
#include "config/config.h"
#include "tests/support/tst.h"
#include "tests/unit/config_test.h"

/* One broken file and the one message it must give. */
struct cfg_case {
	const char *what;
	const char *text;
	const char *error;	/* after "PATH:" */
};

#define SWEEP_OK_HEAD "[repo]\npath = r\n" HOST_A BENCH_B "[sweep s]\n"

static const struct cfg_case cfg_cases[] = {
	{ "unknown key", "[daemon]\nsocket = s\nfrobnicate = 1\n",
	  "3: [daemon] frobnicate: unknown key" },
	{ "bad duration", HOST_A "connect_timeout = 10x\n",
	  "6: [host a] connect_timeout: '10x' is not a duration (use 500ms, "
	  "90s, 15min, 1h30m, 2d 3h or a number of seconds)" },
	{ "negative duration", HOST_A "keepalive = -5s\n",
	  "6: [host a] keepalive: '-5s' is not a duration (use 500ms, 90s, "
	  "15min, 1h30m, 2d 3h or a number of seconds)" },
	{ "zero duration", HOST_A "keepalive = 0\n",
	  "6: [host a] keepalive: must be longer than 0" },
	{ "overflowing duration", HOST_A "keepalive = 99999999999999999999d\n",
	  "6: [host a] keepalive: '99999999999999999999d' is too long "
	  "(at most 365d)" },
	{ "bad port", HOST_A "port = 70000\n",
	  "6: [host a] port: 70000 is out of range (1 to 65535)" },
	{ "port zero", HOST_A "port = 0\n",
	  "6: [host a] port: 0 is out of range (1 to 65535)" },
	{ "port garbage", HOST_A "port = 22x\n",
	  "6: [host a] port: '22x' is not a whole number" },
	{ "missing address",
	  "[host a]\nuser = u\nidentity = id\nknown_hosts = kh\n",
	  "1: [host a] address: required key missing" },
	{ "bad address",
	  "[host a]\naddress = 999.1.1.1\nuser = u\nidentity = i\n"
	  "known_hosts = k\n",
	  "2: [host a] address: '999.1.1.1' is neither an IP address nor a "
	  "host name" },
	{ "address with blank",
	  "[host a]\naddress = bad host\nuser = u\nidentity = i\n"
	  "known_hosts = k\n",
	  "2: [host a] address: 'bad host' is neither an IP address nor a "
	  "host name" },
	{ "duplicate host", HOST_A "\n" HOST_A,
	  "7: [host a]: duplicate section (first at line 1)" },
	{ "duplicate benchmark", BENCH_B BENCH_B,
	  "4: [benchmark b]: duplicate section (first at line 1)" },
	{ "duplicate sweep, header spaced out", "[repo]\npath = r\n" HOST_A
	  BENCH_B "[sweep s]\nbenchmark = b\nmetrics = tput\n"
	  "group = default\ntag_pattern = t\n[ sweep\ts ]\n",
	  "16: [sweep s]: duplicate section (first at line 11)" },
	{ "duplicate daemon", "[daemon]\n[daemon]\n",
	  "2: [daemon]: duplicate section (first at line 1)" },
	{ "duplicate key", "[daemon]\nsocket = a\nsocket = b\n",
	  "3: [daemon] socket: duplicate key (first at line 2)" },
	{ "unknown section", "[daemon]\n\n[frobnicate x]\nkey = 1\n",
	  "3: [frobnicate x]: unknown section (expected daemon, repo, "
	  "host NAME, benchmark NAME or sweep NAME)" },
	{ "host without name", "[host]\naddress = 127.0.0.1\n",
	  "1: [host]: needs a name: [host NAME]" },
	{ "daemon with a name", "[daemon x]\n",
	  "1: [daemon x]: takes no name: [daemon]" },
	{ "bad section name", "[host a/b]\n",
	  "1: [host a/b]: invalid name 'a/b' (up to 64 letters, digits, "
	  "'.', '_' or '-')" },
	{ "three words in header", "[host a b]\n",
	  "1: [host a b]: expected [TYPE] or [TYPE NAME]" },
	{ "header without bracket", "[daemon\nsocket = x\n",
	  "1: section header without ']'" },
	{ "text after header", "[daemon] x\n",
	  "1: [daemon]: text after ']'" },
	{ "key outside section", "socket = x\n[daemon]\n",
	  "1: socket: key outside any section" },
	{ "line without equals", "[daemon]\njust words\n",
	  "2: expected 'key = value', a [section] or a comment" },
	{ "empty key", "[daemon]\n= 3\n",
	  "2: [daemon]: missing key name before '='" },
	{ "empty value", "[daemon]\nreport_hook =\n",
	  "2: [daemon] report_hook: empty value" },
	{ "bad mode", "[daemon]\nsocket_mode = 0999\n",
	  "2: [daemon] socket_mode: '0999' is not an octal mode such as "
	  "0660" },
	{ "mode above 0777", "[daemon]\nsocket_mode = 1777\n",
	  "2: [daemon] socket_mode: 1777 is above 0777" },
	{ "bad log level", "[daemon]\nlog_level = loud\n",
	  "2: [daemon] log_level: unknown value 'loud' (expected error, "
	  "warn, info or debug)" },
	{ "per-uid cap above total", "[daemon]\nmax_clients = 4\n"
	  "max_clients_per_uid = 8\n",
	  "3: [daemon] max_clients_per_uid: 8 is above max_clients (4)" },
	{ "per-uid default above total", "[daemon]\nmax_clients = 4\n",
	  "2: [daemon] max_clients_per_uid: 16 is above max_clients (4)" },
	{ "bad user", "[host a]\naddress = 127.0.0.1\nuser = $(id)\n"
	  "identity = i\nknown_hosts = k\n",
	  "3: [host a] user: invalid name '$(id)' (up to 64 letters, "
	  "digits, '.', '_' or '-')" },
	{ "bad role", HOST_A "roles = build,deploy\n",
	  "6: [host a] roles: unknown role 'deploy' (expected build or "
	  "test)" },
	{ "role twice", HOST_A "roles = test,test\n",
	  "6: [host a] roles: role 'test' listed twice" },
	{ "trailing comma in roles", HOST_A "roles = build,\n",
	  "6: [host a] roles: item 2 is empty" },
	{ "bad host_key", HOST_A "host_key = yes\n",
	  "6: [host a] host_key: unknown value 'yes' (expected strict or "
	  "accept-new)" },
	{ "quarantine_after zero", HOST_A "quarantine_after = 0\n",
	  "6: [host a] quarantine_after: 0 is out of range (1 to 1000)" },
	{ "missing run", "[benchmark b]\nmetrics = x:lower\n",
	  "1: [benchmark b] run: required key missing" },
	{ "metric without kind", "[benchmark b]\nrun = r\nmetrics = tput\n",
	  "3: [benchmark b] metrics: 'tput' has no kind (use tput:higher, "
	  "tput:lower or tput:pass-fail)" },
	{ "metric with bad kind", "[benchmark b]\nrun = r\n"
	  "metrics = tput:faster\n",
	  "3: [benchmark b] metrics: metric 'tput': unknown kind 'faster' "
	  "(expected higher, lower or pass-fail, then optionally :mean, "
	  ":median, :min or :max)" },
	{ "aggregate without kind", "[benchmark b]\nrun = r\n"
	  "metrics = tput:median\n",
	  "3: [benchmark b] metrics: metric 'tput': unknown kind 'median' "
	  "(expected higher, lower or pass-fail, then optionally :mean, "
	  ":median, :min or :max)" },
	{ "unknown aggregate", "[benchmark b]\nrun = r\n"
	  "metrics = tput:higher:p90\n",
	  "3: [benchmark b] metrics: metric 'tput:higher': unknown kind "
	  "'p90' (expected higher, lower or pass-fail, then optionally "
	  ":mean, :median, :min or :max)" },
	{ "pass-fail mean", "[benchmark b]\nrun = r\n"
	  "metrics = boot:pass-fail:mean\n",
	  "3: [benchmark b] metrics: metric 'boot': a pass-fail metric "
	  "takes :max (any failure fails the run, the default) or :min" },
	{ "metric twice", "[benchmark b]\nrun = r\n"
	  "metrics = a:higher, a:lower\n",
	  "3: [benchmark b] metrics: metric 'a' listed twice" },
	{ "empty metric", "[benchmark b]\nrun = r\n"
	  "metrics = a:higher,,b:lower\n",
	  "3: [benchmark b] metrics: item 2 is empty" },
	{ "min_change of 1", BENCH_B "min_change = 1\n",
	  "4: [benchmark b] min_change: 1 is out of range (at least 0, "
	  "below 1)" },
	{ "negative min_change", BENCH_B "min_change = -0.1\n",
	  "4: [benchmark b] min_change: '-0.1' is not a number" },
	{ "artifact without build", BENCH_B "artifact = a\n",
	  "4: [benchmark b] artifact: needs a build step" },
	{ "expect_kernel without boot_check", BENCH_B "expect_kernel = 6\n",
	  "4: [benchmark b] expect_kernel: needs boot_check" },
	{ "collect and result_file", BENCH_B "collect = c\n"
	  "result_file = r\n",
	  "5: [benchmark b] result_file: set collect or result_file, not "
	  "both" },
	{ "params word without =", BENCH_B "params = runtime=300s test\n",
	  "4: [benchmark b] params: \"test\" is not KEY=VALUE" },
	{ "params word without key", BENCH_B "params = =300s\n",
	  "4: [benchmark b] params: \"=300s\" is not KEY=VALUE" },
	{ "sweep with unknown benchmark", SWEEP_OK_HEAD "benchmark = nope\n"
	  "metrics = tput\ngroup = default\ntag_pattern = next-*\n",
	  "12: [sweep s] benchmark: no [benchmark nope]" },
	{ "sweep with unknown metric", SWEEP_OK_HEAD "benchmark = b\n"
	  "metrics = nope\ngroup = default\ntag_pattern = next-*\n",
	  "13: [sweep s] metrics: [benchmark b] has no metric 'nope'" },
	{ "sweep with unknown group", SWEEP_OK_HEAD "benchmark = b\n"
	  "metrics = tput\ngroup = nope\ntag_pattern = next-*\n",
	  "14: [sweep s] group: no [host] has group = nope" },
	{ "sweep group that cannot build", "[repo]\npath = r\n" HOST_A
	  "roles = test\n" BENCH_B "[sweep s]\nbenchmark = b\n"
	  "metrics = tput\ngroup = default\ntag_pattern = next-*\n",
	  "15: [sweep s] group: group default has no host with the build "
	  "role" },
	{ "sweep without repo", HOST_A BENCH_B "[sweep s]\nbenchmark = b\n"
	  "metrics = tput\ngroup = default\ntag_pattern = next-*\n",
	  "9: [sweep s]: a sweep needs a [repo] section" },
	{ "sweep missing tag_pattern", SWEEP_OK_HEAD "benchmark = b\n"
	  "metrics = tput\ngroup = default\n",
	  "11: [sweep s] tag_pattern: required key missing" },
	{ "sweep watching a pass-fail metric", "[repo]\npath = r\n" HOST_A
	  "[benchmark b]\nrun = ./run\nmetrics = tput:higher, ok:pass-fail\n"
	  "[sweep s]\nbenchmark = b\nmetrics = tput, ok\ngroup = default\n"
	  "tag_pattern = next-*\n",
	  "13: [sweep s] metrics: metric 'ok' is pass-fail; a sweep watches "
	  "numbers" },
	{ "sweep metric listed twice", SWEEP_OK_HEAD "benchmark = b\n"
	  "metrics = tput, tput\ngroup = default\ntag_pattern = next-*\n",
	  "13: [sweep s] metrics: metric 'tput' listed twice" },
	{ "sweep schedule", SWEEP_OK_HEAD "benchmark = b\ngroup = default\n"
	  "tag_pattern = next-*\nschedule = daily 24:00\n",
	  "15: [sweep s] schedule: 'daily 24:00' is not a schedule (use each "
	  "or daily HH:MM, UTC)" },
	{ "sweep schedule without time", SWEEP_OK_HEAD "benchmark = b\n"
	  "group = default\ntag_pattern = next-*\nschedule = daily 6:3\n",
	  "15: [sweep s] schedule: 'daily 6:3' is not a schedule (use each "
	  "or daily HH:MM, UTC)" },
	{ "sweep priority", SWEEP_OK_HEAD "benchmark = b\ngroup = default\n"
	  "tag_pattern = next-*\npriority = -2000000\n",
	  "15: [sweep s] priority: -2000000 is out of range (-1000000 to "
	  "1000000)" },
	{ "sweep priority not a number", SWEEP_OK_HEAD "benchmark = b\n"
	  "group = default\ntag_pattern = next-*\npriority = -\n",
	  "15: [sweep s] priority: '-' is not a whole number" },
	{ "sweep baseline of none", SWEEP_OK_HEAD "benchmark = b\n"
	  "group = default\ntag_pattern = next-*\nbaseline = 0\n",
	  "15: [sweep s] baseline: 0 is out of range (1 to 32)" },
	{ "repo without path", "[repo]\nurl = x\n",
	  "1: [repo] path: required key missing" },
	{ "control character", "[daemon]\nreport_hook = a\rb\n",
	  "2: [daemon] report_hook: control character 0x0d in value" },
	{ "invalid UTF-8", "[daemon]\nreport_hook = caf\xe9\n",
	  "2: not valid UTF-8" },
};

Test(config, each_error_has_its_file_line_message, .init = cfgt_setup,
    .fini = cfgt_cleanup)
{
	const struct cfg_case *c;
	char *all, *want;
	size_t i;

	for (i = 0; i < sizeof(cfg_cases) / sizeof(cfg_cases[0]); i++) {
		c = &cfg_cases[i];
		cr_expect_eq(cfgt_load(c->text), -EINVAL, "%s: loaded", c->what);
		all = cfgt_all_errors();
		xasprintf(&want, "%s:%s", cfgt_path, c->error);
		cr_expect_eq(cfgt_errs.n, 1, "%s: %zu errors:%s", c->what, cfgt_errs.n,
		    all);
		if (cfgt_errs.n == 1)
			cr_expect_str_eq(cfgt_errs.msgs[0], want, "%s", c->what);
		cr_expect_eq(cfgt_cfg.nhosts + cfgt_cfg.nbenchmarks + cfgt_cfg.nsweeps, 0,
		    "%s: a failed load left sections", c->what);
		cr_expect_null(cfgt_cfg.path, "%s: a failed load left a path",
		    c->what);
		free(want);
		free(all);
	}
}

CFGT_TEST(all_errors_reported_in_line_order)
{
	static const char *const want[] = {
		"2: [daemon] frobnicate: unknown key",
		"10: [host a] port: 70000 is out of range (1 to 65535)",
		"11: [host a] connect_timeout: 'soon' is not a duration "
		    "(use 500ms, 90s, 15min, 1h30m, 2d 3h or a number of seconds)",
		"12: [host a] port: duplicate key (first at line 10)",
		"14: [sweep s] benchmark: no [benchmark nope]",
		"18: [host a]: duplicate section (first at line 5)",
		"20: [bogus]: unknown section (expected daemon, repo, host "
		    "NAME, benchmark NAME or sweep NAME)",
		"22: [benchmark c] run: required key missing",
		"22: [benchmark c] metrics: required key missing",
	};

	/* The sweep's reference is checked after the whole file is read,
	 * yet its message sits at its own line among the others. */
	cr_assert_eq(cfgt_load(
	    "[daemon]\n"				/* 1 */
	    "frobnicate = 1\n"
	    "[repo]\n"
	    "path = r\n"
	    "[host a]\n"				/* 5 */
	    "address = 127.0.0.1\n"
	    "user = u\n"
	    "identity = i\n"
	    "known_hosts = k\n"
	    "port = 70000\n"				/* 10 */
	    "connect_timeout = soon\n"
	    "port = 22\n"
	    "[sweep s]\n"
	    "benchmark = nope\n"
	    "metrics = m\n"				/* 15 */
	    "group = default\n"
	    "tag_pattern = x\n"
	    "[host a]\n"
	    "address = 127.0.0.1\n"
	    "[bogus]\n"					/* 20 */
	    "x = 1\n"
	    "[benchmark c]\n"
	    "build = make\n"), -EINVAL);
	cfgt_expect(want, sizeof(want) / sizeof(want[0]));
}

CFGT_TEST(durations)
{
	static const struct {
		const char *text;
		int rc;
		uint64_t ms;
	} cases[] = {
		{ "500ms", 0, 500 },
		{ "30s", 0, 30000 },
		{ "15m", 0, 900000 },
		{ "2h", 0, 7200000 },
		{ "1d", 0, 86400000 },
		{ "45", 0, 45000 },
		{ "0", 0, 0 },
		{ "007s", 0, 7000 },
		{ "365d", 0, CONFIG_DURATION_MAX_MS },
		{ "31536000", 0, CONFIG_DURATION_MAX_MS },
		{ "31536000000ms", 0, CONFIG_DURATION_MAX_MS },
		{ "366d", -ERANGE, 0 },
		{ "31536001", -ERANGE, 0 },
		{ "8761h", -ERANGE, 0 },
		{ "99999999999999999999", -ERANGE, 0 },
		{ "18446744073709551616ms", -ERANGE, 0 },
		{ "", -EINVAL, 0 },
		{ "s", -EINVAL, 0 },
		{ "ms", -EINVAL, 0 },
		{ "-5s", -EINVAL, 0 },
		{ "+5s", -EINVAL, 0 },
		{ "5S", -EINVAL, 0 },
		{ "0x10", -EINVAL, 0 },
		{ "5us", -EINVAL, 0 },
		{ "5 parsecs", -EINVAL, 0 },
		{ "1.", -EINVAL, 0 },
		{ "1.5.h", -EINVAL, 0 },
		{ "1h -30m", -EINVAL, 0 },
		{ "1h,30m", -EINVAL, 0 },
		/* Time spans as systemd.time(7) writes them. */
		{ "1h30m", 0, 5400000 },
		{ "90s", 0, 90000 },
		{ "2d 3h", 0, 183600000 },
		{ "2d3h", 0, 183600000 },
		{ "5 s", 0, 5000 },
		{ " 5s", 0, 5000 },
		{ "5s ", 0, 5000 },
		{ "5sec", 0, 5000 },
		{ "2 seconds", 0, 2000 },
		{ "15min", 0, 900000 },
		{ "1 minute", 0, 60000 },
		{ "3hr", 0, 10800000 },
		{ "1 hour 20 minutes", 0, 4800000 },
		{ "1day", 0, 86400000 },
		{ "5w", 0, 5 * 7 * 86400000ULL },
		{ "2 weeks", 0, 14 * 86400000ULL },
		{ "1M", 0, 2629800000ULL },
		{ "250msec", 0, 250 },
		{ "1.5h", 0, 5400000 },
		{ "0.25s", 0, 250 },
		{ "1h 30", 0, 3630000 },
		{ "1y", -ERANGE, 0 },
		{ "364d 25h", -ERANGE, 0 },
		{ "365d 1ms", -ERANGE, 0 },
	};
	uint64_t ms;
	size_t i;

	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		ms = 12345;
		cr_expect_eq(config_parse_duration(cases[i].text, &ms),
		    cases[i].rc, "'%s'", cases[i].text);
		cr_expect_eq(ms, cases[i].rc == 0 ? cases[i].ms : 12345,
		    "'%s' gave %ju", cases[i].text, (uintmax_t)ms);
	}
}

/* A configuration file takes the systemd spellings in every duration key. */
CFGT_TEST(durations_in_a_file)
{
	cfgt_load_ok("[daemon]\nclient_timeout = 1min 30s\n"
	    HOST_A "connect_timeout = 90s\nkeepalive = 1h30m\n"
	    BENCH_B "run_timeout = 2d 3h\nbuild_timeout = 1.5h\n");
	cr_expect_eq(cfgt_cfg.daemon.client_timeout_ms, 90000);
	cr_assert_eq(cfgt_cfg.nhosts, 1);
	cr_expect_eq(cfgt_cfg.hosts[0].connect_timeout_ms, 90000);
	cr_expect_eq(cfgt_cfg.hosts[0].keepalive_ms, 5400000);
	cr_assert_eq(cfgt_cfg.nbenchmarks, 1);
	cr_expect_eq(cfgt_cfg.benchmarks[0].run_timeout_ms, 183600000);
	cr_expect_eq(cfgt_cfg.benchmarks[0].build_timeout_ms, 5400000);
}

/* A benchmark whose run line ("run = " and n x's) has 6 + n bytes. */
static char *
long_run_config(size_t n, const char *extra)
{
	char *text, *big = xmalloc(n + 1);

	memset(big, 'x', n);
	big[n] = '\0';
	xasprintf(&text, "[benchmark b]\nrun = %s\nmetrics = m:higher\n%s",
	    big, extra);
	free(big);
	return text;
}

CFGT_TEST(long_lines)
{
	static const char *const want[] = {
		"1: [benchmark b] run: required key missing",
		"2: line longer than 8192 bytes",
		"4: [benchmark b] bogus: unknown key",
	};
	char *text;

	/* 8192 bytes is fine (inih's default would cut the line at 200). */
	text = long_run_config(8192 - 6, "");
	cfgt_load_ok(text);
	cr_expect_eq(strlen(cfgt_cfg.benchmarks[0].run), 8192 - 6);
	free(text);

	/* One byte more is an error for that line, and the rest is read.
	 * Sorted by line, the missing run (reported at the header) is first. */
	text = long_run_config(8192 - 5, "bogus = 1\n");
	cr_assert_eq(cfgt_load(text), -EINVAL);
	cfgt_expect(want, sizeof(want) / sizeof(want[0]));
	free(text);
}

CFGT_TEST(too_many_errors_are_counted)
{
	char *text = xstrdup("[daemon]\n"), *next;
	int i;

	for (i = 0; i < 600; i++) {
		xasprintf(&next, "%sk%d = 1\n", text, i);
		free(text);
		text = next;
	}
	cr_assert_eq(cfgt_load(text), -EINVAL);
	cr_assert_eq(cfgt_errs.n, 501);
	free(text);
	xasprintf(&text, "%s:2: [daemon] k0: unknown key", cfgt_path);
	cr_expect_str_eq(cfgt_errs.msgs[0], text);
	free(text);
	xasprintf(&text, "%s: 100 more errors not shown", cfgt_path);
	cr_expect_str_eq(cfgt_errs.msgs[500], text);
	free(text);
}
