/* SPDX-License-Identifier: MIT */
/*
 * Sections and their keys: one table per section type says which keys it
 * has, how each value is parsed and which are required, so adding a key is
 * one line here and one field in config.h.
 */
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/error.h"
#include "common/names.h"
#include "common/xmalloc.h"
#include "config/config.h"
#include "config/internal.h"
#include "common/log.h"


static const struct name_value config_yes_no_words[] = {
	{ "yes", 1 },
	{ "no", 0 },
	{ NULL, 0 },
};

/*
 * [daemon]: the socket and database are opened once; everything else is
 * read from the configuration in effect where it is used, or re-applied by
 * the daemon's reload (log level, caps, socket permissions).
 */
static const struct config_key config_daemon_keys[] = {
	KEY(config_daemon, socket, path, 0, 0, 0, CONFIG_DEFAULT_SOCKET,
	    RESTART, "Path of the control socket."),
	KEY(config_daemon, socket_mode, mode, 0, 0, 0, "0660", LIVE,
	    "Mode of the socket file, octal, at most 0777."),
	KEY(config_daemon, socket_group, name, 0, 0, 0, NULL, LIVE,
	    "Group owning the socket, so that its members may use bisectctl; "
	    "unset, the daemon's own group."),
	KEY(config_daemon, database, path, 0, 0, 0, CONFIG_DEFAULT_DATABASE,
	    RESTART, "SQLite database holding every bisection and sample."),
	KEY(config_daemon, workdir, path, 0, 0, 0, CONFIG_DEFAULT_WORKDIR,
	    LIVE, "Directory for step logs, artifacts and reports."),
	KEYE(config_daemon, log_level, log_level_words, "info", LIVE,
	    "Least severe messages logged: error, warn, info or debug.  "
	    "error is what lost work or needs the administrator: a "
	    "bisection that failed or cannot resume, a report not made or "
	    "not delivered (its hook failed or hung), a change a sweep found "
	    "but could not bisect, an audit entry not recorded.  warn adds "
	    "what bisectd works around: hosts down, failed fetches, "
	    "retries.  Why the daemon stops is logged at any level."),
	KEY(config_daemon, max_clients, uint, 0, 1, 100000, "64", LIVE,
	    "Control connections at once, all clients together.  With 64 "
	    "descriptors kept for the rest, it must fit the open files limit "
	    "(RLIMIT_NOFILE): the daemon raises its soft limit, or serves "
	    "fewer and says so."),
	KEY(config_daemon, max_clients_per_uid, uint, 0, 1, 100000, "16", LIVE,
	    "Control connections at once from one uid, at most max_clients."),
	KEYF(config_daemon, client_timeout, client_timeout_ms, duration,
	    CONFIG_KEY_ZERO_OK, "30s", LIVE,
	    "How long a control connection may keep a request line "
	    "incomplete before it is closed; 0 waits forever."),
	KEY(config_daemon, operators, string, 0, 0, 0, NULL, LIVE,
	    "Groups, comma-separated, whose members may use the commands "
	    "that change state; unset, everyone who can connect.  An "
	    "operator acts on the bisections its own uid started."),
	KEY(config_daemon, admin_group, string, 0, 0, 0, NULL, LIVE,
	    "Groups, comma-separated, whose members may also act on other "
	    "uids' bisections (cancel them); root always may.  Unset, only "
	    "root."),
	KEYF(config_daemon, audit_keep, audit_keep_ms, duration,
	    CONFIG_KEY_ZERO_OK, "180d", LIVE,
	    "How long the audit trail (the events table) keeps a request; "
	    "older rows are removed as new ones are written.  0 keeps them "
	    "forever."),
	KEY(config_daemon, audit_max_rows, uint, 0, 0,
	    100000000, "100000", LIVE,
	    "Rows the audit trail keeps at most, the newest; 0: no cap."),
	KEY(config_daemon, report_hook, string, 0, 0, 0, NULL, LIVE,
	    "Command run through /bin/sh -c when a bisection ends, with "
	    "the report on stdin and the facts in BISECTD_* variables "
	    "(bisectd(8), REPORT HOOK)."),
	KEYF(config_daemon, report_hook_timeout, report_hook_timeout_ms,
	    duration, 0, "10m", LIVE,
	    "A report hook still running after this is killed, with every "
	    "process it started."),
	KEY(config_daemon, message_id_domain, name, 0, 0, 0, NULL, LIVE,
	    "Domain of the Message-ID a report's mail gets, "
	    "<bisectd.ID.CREATED@DOMAIN>, the same for a bisection every "
	    "time; unset, the host's name."),
	KEY(config_daemon, report_reported_by, string, 0, 0, 0, NULL, LIVE,
	    "Who a fix should credit, as \"Name <mail>\": a regression's "
	    "report asks for a Reported-by: line with it; unset, none."),
	KEY(config_daemon, report_closes, string, 0, 0, 0, NULL, LIVE,
	    "URL of the report's mail in an archive, with {message_id} for "
	    "its Message-ID without the angle brackets (e.g. "
	    "https://lore.kernel.org/r/{message_id}): a regression's report "
	    "asks for a Closes: line with it; unset, none."),
	KEY(config_daemon, report_link, string, 0, 0, 0, NULL, LIVE,
	    "The same for a Link: line; unset, none."),
	KEYE(config_daemon, report_regzbot, config_yes_no_words, "yes", LIVE,
	    "yes adds \"#regzbot introduced: SHA\" to a regression's report "
	    "(never to an improvement's), so that the Linux kernel's "
	    "regression tracker follows it; no leaves it out."),
};

/* The scheduler opens the repository at startup. */
static const struct config_key config_repo_keys[] = {
	KEY(config_repo, path, path, REQ, 0, 0, NULL, RESTART,
	    "Local git clone used to resolve revisions."),
	KEY(config_repo, url, string, CONFIG_KEY_URL, 0, 0, NULL, LIVE,
	    "Remote fetched into the clone and named in reports; unset, "
	    "never fetch.  A user-info part (user:token@) is used to fetch "
	    "and shown nowhere: replies, events, logs and reports carry "
	    "the url without it.  It is fetched as written: no insteadOf "
	    "of a git config rewrites it."),
	KEYF(config_repo, fetch_interval, fetch_interval_ms, duration,
	    CONFIG_KEY_ZERO_OK, "0", LIVE,
	    "How often to fetch; 0 fetches only when work needs it."),
	KEY(config_repo, watch_refs, string, 0, 0, 0,
	    "refs/heads/* refs/tags/*", LIVE,
	    "Refs whose changes a fetch reports, as globs separated by "
	    "blanks."),
	KEYF(config_repo, fetch_timeout, fetch_timeout_ms, duration, 0, "1h",
	    LIVE, "A fetch running longer than this is cancelled and "
	    "retried."),
	KEY(config_repo, identity, path, 0, 0, 0, NULL, LIVE,
	    "Private key (ed25519) for an ssh:// url, as for hosts."),
	KEY(config_repo, known_hosts, path, 0, 0, 0, NULL, LIVE,
	    "OpenSSH known_hosts file with the ssh:// server's key; an "
	    "unknown or changed key is refused."),
	KEY(config_repo, commit_url, string, 0, 0, 0, NULL, LIVE,
	    "Web page of a commit, with {sha} for its full sha (e.g. "
	    "https://git.kernel.org/torvalds/c/{sha}): the HTML report links "
	    "every commit it names there; unset, no links."),
};

/* The host pool copies its hosts at startup: every key waits for a restart. */
static const struct config_key config_host_keys[] = {
	KEY(config_host, address, address, REQ, 0, 0, NULL, RESTART,
	    "IP address or host name, not resolved when the file is checked."),
	KEY(config_host, port, uint, 0, 1, 65535, "22", RESTART, "SSH port."),
	KEY(config_host, user, name, REQ, 0, 0, NULL, RESTART, "Login user."),
	KEY(config_host, identity, path, REQ, 0, 0, NULL, RESTART,
	    "Private key file (ed25519)."),
	KEY(config_host, passphrase_file, path, 0, 0, 0, NULL, RESTART,
	    "File holding the key's passphrase; unset, the key is not "
	    "encrypted."),
	KEY(config_host, known_hosts, path, REQ, 0, 0, NULL, RESTART,
	    "OpenSSH known_hosts file with the host's key (plain or hashed "
	    "names).  The handshake asks first for the key types it records "
	    "for the host, and any recorded key is accepted.  A key on an "
	    "@revoked line for the host (wildcards allowed) is always "
	    "refused and never recorded; @cert-authority lines are ignored.  "
	    "RSA host keys: libssh2 1.10 verifies them with ssh-rsa (SHA-1) "
	    "only, not rsa-sha2-256/512, which OpenSSH 8.8 and later refuse "
	    "by default, so give such a host an ed25519 or ECDSA host key."),
	KEYE(config_host, host_key, config_host_key_words, "strict", RESTART,
	    "strict refuses unknown and changed host keys; accept-new records "
	    "an unknown one."),
	KEY(config_host, group, name, 0, 0, 0, CONFIG_DEFAULT_GROUP, RESTART,
	    "Host group; all samples of one bisection come from one group."),
	KEY(config_host, roles, roles, 0, 0, 0, "build,test", RESTART,
	    "What the host does: build, test or build,test."),
	KEY(config_host, workdir, string, 0, 0, 0, "/var/tmp/bisectd", RESTART,
	    "Remote work directory."),
	KEYF(config_host, connect_timeout, connect_timeout_ms, duration, 0,
	    "10s", RESTART, "Deadline of the TCP connect and SSH handshake."),
	KEYF(config_host, keepalive, keepalive_ms, duration, 0, "15s", RESTART,
	    "Keepalive interval; a peer that misses three is declared dead."),
	KEY(config_host, quarantine_after, uint, 0, 1, 1000, "3", RESTART,
	    "Consecutive infrastructure failures before the host is "
	    "quarantined."),
	KEY(config_host, power_cycle, string, 0, 0, 0, NULL, RESTART,
	    "Local command run when the host does not come back after a "
	    "reboot."),
};

/*
 * A run looks its benchmark up when it starts and holds that configuration
 * until it ends, so a changed benchmark applies from the next run on
 * (metrics and min_change: from the next bisection, which reads them when
 * it loads).
 */
static const struct config_key config_benchmark_keys[] = {
	KEY(config_benchmark, build, string, 0, 0, 0, NULL, LIVE,
	    "Builds the kernel at {commit} on a build host."),
	KEY(config_benchmark, artifact, string, 0, 0, 0, NULL, LIVE,
	    "Path of what build leaves.  After each build its bytes are kept "
	    "on the host under {workdir}/.bisectd/artifacts, named by their "
	    "sha256, copied to the test host when it differs and checked "
	    "there against that sha256; install and run find those checked "
	    "bytes at {artifact} (put back from the kept copy when a later "
	    "build wrote the same path).  A mismatch or a missing copy means "
	    "a rebuild, so a fixed path is safe."),
	KEY(config_benchmark, build_inputs, paths, 0, 0, 0, NULL, LIVE,
	    "Files on the daemon's machine, blank-separated, whose contents "
	    "join the build cache key with build and artifact, such as the "
	    "kernel .config or a config fragment the build reads: editing "
	    "one rebuilds every commit.  bisectd -n refuses one it cannot "
	    "read; a start or reload logs a warning and keys builds on it "
	    "as unreadable until it can be read."),
	KEY(config_benchmark, artifact_keep, uint, 0, 1, 100000, "16", LIVE,
	    "How many kept artifacts a host holds; the least recently used "
	    "go first."),
	KEY(config_benchmark, install, string, 0, 0, 0, NULL, LIVE,
	    "Installs the artifact on the test host."),
	KEY(config_benchmark, reboot, string, 0, 0, 0, NULL, LIVE,
	    "Reboots the test host into the installed kernel."),
	KEY(config_benchmark, boot_check, string, 0, 0, 0, NULL, LIVE,
	    "Prints the running kernel after a reboot."),
	KEY(config_benchmark, expect_kernel, string, 0, 0, 0, NULL, LIVE,
	    "What boot_check must print."),
	KEY(config_benchmark, run, string, REQ, 0, 0, NULL, LIVE,
	    "The benchmark."),
	KEY(config_benchmark, collect, string, 0, 0, 0, NULL, LIVE,
	    "Prints the metrics as one JSON object on its last stdout line."),
	KEY(config_benchmark, result_file, string, 0, 0, 0, NULL, LIVE,
	    "Remote file fetched after run that holds the metrics instead."),
	KEYF(config_benchmark, build_timeout, build_timeout_ms, duration, 0,
	    "2h", LIVE, "Deadline of the build step."),
	KEYF(config_benchmark, install_timeout, install_timeout_ms, duration,
	    0, "10m", LIVE, "Deadline of the install and reboot steps."),
	KEYF(config_benchmark, boot_timeout, boot_timeout_ms, duration, 0,
	    "10m", LIVE, "How long to wait for the host after a reboot."),
	KEYF(config_benchmark, run_timeout, run_timeout_ms, duration, 0, "1h",
	    LIVE, "Deadline of the run and collect steps.  A run that exits "
	    "75 (EX_TEMPFAIL) asks to be tried again, on another host if "
	    "there is one; any other non-zero exit is a failed run of the "
	    "commit, which is skipped once it has failed twice and more "
	    "often than it succeeded."),
	KEY(config_benchmark, retry_budget, uint, 0, 1, 100000, "12", LIVE,
	    "Failed, timed out and retried runs a bisection tolerates before "
	    "it ends failed with the last reason; each probe also stops "
	    "after 3 attempts."),
	KEY(config_benchmark, log_max_kib, uint, 0, 0, 16777216, "4096", LIVE,
	    "KiB of output each step's log keeps (0: all): the first half "
	    "and the last half, with a line saying how much was cut between "
	    "them.  The metrics are read from the whole output."),
	KEY(config_benchmark, metrics, metrics, REQ, 0, 0, NULL, LIVE,
	    "Metrics the run reports, each NAME:higher, NAME:lower or "
	    "NAME:pass-fail, then optionally :mean, :median, :min or :max: "
	    "how a run's values of the metric (one per iteration) become "
	    "the one value the statistics see for that run (mean; "
	    "pass-fail max)."),
	KEY(config_benchmark, min_change, fraction, 0, 0, 0, "0.01", LIVE,
	    "Smallest relative change worth bisecting."),
	KEYE(config_benchmark, verify, config_verify_words, "revert", LIVE,
	    "After a culprit: revert reverts it on top of bad and samples "
	    "the result; none skips the check."),
	KEY(config_benchmark, arch, name, 0, 0, 0, "x86", LIVE,
	    "The arch/ directory the benchmarked kernel builds; a culprit "
	    "touching only another one is flagged."),
	KEY(config_benchmark, kconfig, string, 0, 0, 0, NULL, LIVE,
	    "Name of the kernel config the build uses (e.g. "
	    "x86_64-rhel-9.4), shown as the report's config."),
	KEY(config_benchmark, compiler, string, 0, 0, 0, NULL, LIVE,
	    "Compiler the build uses (e.g. gcc-14), shown in the report."),
	KEY(config_benchmark, params, string, 0, 0, 0, NULL, LIVE,
	    "The run's parameters as KEY=VALUE words separated by blanks "
	    "(e.g. runtime=300s test=lru-file-readonce), listed in the "
	    "report and its parameter line."),
	KEY(config_benchmark, describe, string, 0, 0, 0, NULL, LIVE,
	    "Command run once on each test host, before its first run of "
	    "the benchmark, whose output (lines joined by blanks) the report "
	    "shows as the test machine (e.g. nproc; lscpu | sed -n "
	    "'s/^Model name: *//p'); kept in the database until the command "
	    "changes."),
	KEY(config_benchmark, confirm_groups, names, 0, 0, 0, NULL, LIVE,
	    "Host groups, blank-separated, on which a culprit found on "
	    "another group is measured against its parent once it is named, "
	    "with the reproduction check's test and min_change; the report "
	    "gives each group's verdict (changed, unchanged or unclear) and "
	    "effect."),
	KEY(config_benchmark, fixups, string, 0, 0, 0, NULL, LIVE,
	    "Fix-ups picked onto every probed commit they apply to before it "
	    "is built, as SHA (repairing the commit its Fixes: trailer "
	    "names) or SHA:BROKEN words separated by blanks; a fix-up "
	    "applies to a commit that contains BROKEN and not the fix-up."),
	KEYE(config_benchmark, auto_fixups, config_auto_fixups_words,
	    "search", LIVE,
	    "When a probed commit fails to build, boot or run: search looks "
	    "in the range and the repository's branches and tags for commits "
	    "whose Fixes: trailer names a commit the failing one contains, "
	    "and retries with them as fix-ups; none leaves it a skip."),
};

/*
 * A sweep reads its section each time it handles a ref, so every key
 * applies from the next tag on (a tag being sampled keeps its runs).
 * Indexes of the keys that config_sweep_check reports on come first.
 */
#define KEYX(st, name, fn, d, r, doc) \
	{ #name, config_sweep_value_##fn, offsetof(struct st, name), 0, 0, 0, \
	  NULL, d, r, doc }
enum { SWEEP_KEY_BENCHMARK, SWEEP_KEY_METRICS, SWEEP_KEY_GROUP };
static const struct config_key config_sweep_keys[] = {
	[SWEEP_KEY_BENCHMARK] = KEY(config_sweep, benchmark, name, REQ, 0, 0,
	    NULL, LIVE, "Benchmark to run."),
	[SWEEP_KEY_METRICS] = KEYX(config_sweep, metrics, names, NULL, LIVE,
	    "Metrics watched, numeric ones of the benchmark separated by "
	    "commas; unset, every metric that has a direction."),
	[SWEEP_KEY_GROUP] = KEY(config_sweep, group, name, REQ, 0, 0, NULL,
	    LIVE, "Host group it runs on, with build and test hosts."),
	KEY(config_sweep, tag_pattern, string, REQ, 0, 0, NULL, LIVE,
	    "Refs to follow, a shell glob on the full name or the tag name."),
	KEY(config_sweep, samples, uint, 0, 2, 1000, "15", LIVE,
	    "Runs of one tag at most, revisits included, and the runs of the "
	    "first baseline; the sequential test decides how many a tag "
	    "needs (at most 10 at its own looks)."),
	KEY(config_sweep, baseline, uint, 0, 1, 32, "5", LIVE,
	    "Tags before the change points looked for (the new tag and the "
	    "two before it) that a judgement compares with."),
	KEYX(config_sweep, schedule, schedule, "each", LIVE,
	    "When to sweep: each new or moved ref, or daily HH:MM (UTC) the "
	    "newest one that appeared before it, the older ones skipped."),
	KEYX(config_sweep, priority, priority, "-1", LIVE,
	    "Priority of its runs and of the bisections it starts; operator "
	    "bisections have 0."),
	KEY(config_sweep, start, string, 0, 0, 0, NULL, LIVE,
	    "First ref swept; unset, the newest matching ref is the first "
	    "baseline and only later ones are swept."),
	KEY(config_sweep, confirm_groups, names, 0, 0, 0, NULL, LIVE,
	    "Host groups on which the culprits of its bisections are "
	    "confirmed, as the benchmark's confirm_groups, which it "
	    "replaces."),
	KEY(config_sweep, fixups, string, 0, 0, 0, NULL, LIVE,
	    "Fix-ups the bisections it starts carry, SHA or SHA:BROKEN words "
	    "separated by blanks, as a benchmark's fixups."),
};

_Static_assert(CONFIG_NITEMS(config_daemon_keys) <= CONFIG_MAX_KEYS &&
    CONFIG_NITEMS(config_repo_keys) <= CONFIG_MAX_KEYS &&
    CONFIG_NITEMS(config_host_keys) <= CONFIG_MAX_KEYS &&
    CONFIG_NITEMS(config_benchmark_keys) <= CONFIG_MAX_KEYS &&
    CONFIG_NITEMS(config_sweep_keys) <= CONFIG_MAX_KEYS,
    "ctx->key_line is too short for a section");

/* Daemon defaults hold even when the file has no [daemon] section. */
void
config_defaults(struct config *cfg)
{
	config_section_defaults(config_section_find("daemon"), &cfg->daemon);
}

/*
 * A second section of one type and name is reported at its header, given
 * the first one's header line (0: there is none).  Returns 0 or -1.
 */
int
config_dup_check(struct config_ctx *ctx, int first)
{
	if (first == 0)
		return 0;
	config_error(ctx, ctx->sec_line, ctx->label, NULL,
	    "duplicate section (first at line %d)", first);
	return -1;
}

/* [daemon] and [repo] may appear once. */
static int
config_once(struct config_ctx *ctx, int *seen)
{
	if (config_dup_check(ctx, *seen) < 0)
		return -1;
	*seen = ctx->sec_line;
	return 0;
}

static int
config_daemon_begin(struct config_ctx *ctx, const char *name)
{
	(void)name;
	return config_once(ctx, &ctx->daemon_line);
}

static void *
config_daemon_base(struct config *cfg, size_t index)
{
	(void)index;
	return &cfg->daemon;
}

/* Index of a key in its section's table; def->nkeys when unknown. */
static size_t
config_key_index(const struct config_section_def *def, const char *name)
{
	size_t i;

	for (i = 0; i < def->nkeys; i++)
		if (strcmp(def->keys[i].name, name) == 0)
			break;
	return i;
}

/* Line of a key of the current section by name, 0 when it was not set. */
int
config_key_line(const struct config_ctx *ctx, const char *name)
{
	size_t i = config_key_index(ctx->sec, name);

	return i < ctx->sec->nkeys ? ctx->key_line[i] : 0;
}

/* The per-uid cap cannot exceed the total cap, whichever key was set. */
static void
config_daemon_finish(struct config_ctx *ctx)
{
	const struct config_daemon *d = &ctx->cfg->daemon;
	int line = config_key_line(ctx, "max_clients_per_uid");

	if (line == 0)
		line = config_key_line(ctx, "max_clients");
	if (d->max_clients_per_uid > d->max_clients)
		config_error(ctx, line, ctx->label, "max_clients_per_uid",
		    "%u is above max_clients (%u)", d->max_clients_per_uid,
		    d->max_clients);
}

static int
config_repo_begin(struct config_ctx *ctx, const char *name)
{
	(void)name;
	return config_once(ctx, &ctx->repo_line);
}

static void *
config_repo_base(struct config *cfg, size_t index)
{
	(void)index;
	return &cfg->repo;
}


static int
config_host_begin(struct config_ctx *ctx, const char *name)
{
	struct config *cfg = ctx->cfg;
	const struct config_host *old = config_host_find(cfg, name);
	struct config_host *h;

	if (config_dup_check(ctx, old != NULL ? old->line : 0) < 0)
		return -1;
	h = CONFIG_APPEND(ctx, cfg->hosts, cfg->nhosts);
	h->name = xstrdup(name);
	h->line = ctx->sec_line;
	config_host_defaults(h);
	return 0;
}

static void *
config_host_base(struct config *cfg, size_t index)
{
	return &cfg->hosts[index];
}

static int
config_benchmark_begin(struct config_ctx *ctx, const char *name)
{
	struct config *cfg = ctx->cfg;
	const struct config_benchmark *old = config_benchmark_find(cfg, name);
	struct config_benchmark *b;

	if (config_dup_check(ctx, old != NULL ? old->line : 0) < 0)
		return -1;
	b = CONFIG_APPEND(ctx, cfg->benchmarks, cfg->nbenchmarks);
	b->name = xstrdup(name);
	b->line = ctx->sec_line;
	config_benchmark_defaults(b);
	return 0;
}

static void *
config_benchmark_base(struct config *cfg, size_t index)
{
	return &cfg->benchmarks[index];
}

/* Reports list the params as pairs, so each word must be one. */
static void
config_benchmark_check_params(struct config_ctx *ctx)
{
	const struct config_benchmark *b =
	    &ctx->cfg->benchmarks[ctx->cfg->nbenchmarks - 1];
	const char *s = b->params, *k, *v;
	size_t kl, vl;
	int rc;

	while (s != NULL && (rc = config_params_next(&s, &k, &kl, &v,
	    &vl)) != 0) {
		if (rc < 0) {
			config_error(ctx, config_key_line(ctx, "params"),
			    ctx->label, "params", "\"%.*s\" is not KEY=VALUE",
			    (int)strcspn(k, " \t"), k);
			return;
		}
	}
}

/* Step keys that only make sense together. */
static void
config_benchmark_finish(struct config_ctx *ctx)
{
	static const struct {
		const char *key;
		const char *other;
		int	 exclusive;	/* 1: not both; 0: not one without other */
		const char *why;
	} rules[] = {
		{ "artifact", "build", 0, "needs a build step" },
		{ "expect_kernel", "boot_check", 0, "needs boot_check" },
		{ "boot_check", "expect_kernel", 0,
		    "needs expect_kernel to compare with" },
		{ "result_file", "collect", 1,
		    "set collect or result_file, not both" },
	};
	size_t i;
	int line, other;

	for (i = 0; i < CONFIG_NITEMS(rules); i++) {
		line = config_key_line(ctx, rules[i].key);
		other = config_key_line(ctx, rules[i].other) != 0;
		if (line != 0 && other == rules[i].exclusive)
			config_error(ctx, line, ctx->label, rules[i].key, "%s",
			    rules[i].why);
	}
	config_benchmark_check_params(ctx);
}

static int
config_sweep_begin(struct config_ctx *ctx, const char *name)
{
	struct config *cfg = ctx->cfg;
	const struct config_sweep *old = config_sweep_find(cfg, name);
	struct config_sweep *w;

	if (config_dup_check(ctx, old != NULL ? old->line : 0) < 0)
		return -1;
	ctx->sweep_lines = xreallocarray(ctx->sweep_lines, cfg->nsweeps + 1,
	    sizeof(*ctx->sweep_lines));
	w = CONFIG_APPEND(ctx, cfg->sweeps, cfg->nsweeps);
	w->name = xstrdup(name);
	w->line = ctx->sec_line;
	config_section_defaults(config_section_find("sweep"), w);
	return 0;
}

static void *
config_sweep_base(struct config *cfg, size_t index)
{
	return &cfg->sweeps[index];
}

/* References are checked after the whole file: keep the key lines. */
static void
config_sweep_finish(struct config_ctx *ctx)
{
	memcpy(ctx->sweep_lines[ctx->index], ctx->key_line,
	    sizeof(ctx->key_line));
}

#define SECTION(type, named, keys, reload, finish) \
	{ #type, named, keys, CONFIG_NITEMS(keys), reload, \
	  config_##type##_begin, config_##type##_base, finish }

static const struct config_section_def config_sections[] = {
	SECTION(daemon, 0, config_daemon_keys, LIVE, config_daemon_finish),
	SECTION(repo, 0, config_repo_keys, LIVE, NULL),
	SECTION(host, 1, config_host_keys, RESTART, NULL),
	SECTION(benchmark, 1, config_benchmark_keys, LIVE,
	    config_benchmark_finish),
	SECTION(sweep, 1, config_sweep_keys, LIVE, config_sweep_finish),
	{ "lab", 1, config_lab_keys, CONFIG_LAB_NKEYS, RESTART,
	  config_lab_begin, config_lab_base, config_lab_finish },
};

/* Walkers over every section (diff, docs) start here. */
const struct config_section_def *
config_section_all(size_t *n)
{
	*n = CONFIG_NITEMS(config_sections);
	return config_sections;
}

/* config_to_json walks the same tables, so it cannot miss a key. */
const struct config_section_def *
config_section_find(const char *type)
{
	size_t i;

	for (i = 0; i < CONFIG_NITEMS(config_sections); i++)
		if (strcmp(config_sections[i].type, type) == 0)
			return &config_sections[i];
	return NULL;
}

/* "Did you mean": the section type nearest to a misspelt one, or NULL. */
static const char *
config_section_guess(const char *type)
{
	struct name_guess g;
	size_t i;

	name_guess_init(&g, type);
	for (i = 0; i < CONFIG_NITEMS(config_sections); i++)
		name_guess_offer(&g, config_sections[i].type);
	return g.best;
}

/* Keys after a broken header belong to no section and are not checked. */
void
config_section_skip(struct config_ctx *ctx)
{
	ctx->sec = NULL;
	ctx->skip = 1;
}

/*
 * Starts the section named by the text between the brackets, "TYPE" or
 * "TYPE NAME".  A bad header is reported once and its keys are skipped.
 */
void
config_section_start(struct config_ctx *ctx, const char *text, size_t len)
{
	const struct config_section_def *def = NULL;
	char *copy = xstrndup(text, len), *word[3] = { NULL }, *save = NULL;
	const char *name;
	size_t n, shown;

	config_section_skip(ctx);
	ctx->sec_line = ctx->lineno;
	memset(ctx->key_line, 0, sizeof(ctx->key_line));
	/* The line is valid UTF-8: a long header is cut between characters. */
	shown = len > CONFIG_NAME_MAX + 16 ? CONFIG_NAME_MAX + 16 : len;
	while (shown > 0 && shown < len &&
	    ((unsigned char)text[shown] & 0xc0) == 0x80)
		shown--;
	snprintf(ctx->label, sizeof(ctx->label), "[%.*s]", (int)shown, copy);
	for (n = 0; n < 3; n++)
		if ((word[n] = strtok_r(n == 0 ? copy : NULL, " \t", &save)) ==
		    NULL)
			break;
	name = word[1];
	if (n >= 1)
		def = config_section_find(word[0]);
	if (n < 1 || n > 2)
		config_error(ctx, ctx->lineno, ctx->label, NULL,
		    "expected [TYPE] or [TYPE NAME]");
	else if (def == NULL && config_section_guess(word[0]) != NULL)
		config_error(ctx, ctx->lineno, ctx->label, NULL,
		    "unknown section; did you mean [%s%s]?",
		    config_section_guess(word[0]), n == 2 ? " NAME" : "");
	else if (def == NULL)
		config_error(ctx, ctx->lineno, ctx->label, NULL,
		    "unknown section (expected daemon, repo, host NAME, "
		    "benchmark NAME or sweep NAME)");
	else if (def->named && n != 2)
		config_error(ctx, ctx->lineno, ctx->label, NULL,
		    "needs a name: [%s NAME]", def->type);
	else if (!def->named && n != 1)
		config_error(ctx, ctx->lineno, ctx->label, NULL,
		    "takes no name: [%s]", def->type);
	else if (def->named && !config_name_valid(name))
		config_error(ctx, ctx->lineno, ctx->label, NULL,
		    "invalid name '%s' (up to %d letters, digits, '.', '_' "
		    "or '-')", name, CONFIG_NAME_MAX);
	else {
		if (def->named)
			snprintf(ctx->label, sizeof(ctx->label), "[%s %s]",
			    def->type, name);
		else
			snprintf(ctx->label, sizeof(ctx->label), "[%s]",
			    def->type);
		if (def->begin(ctx, name) == 0) {
			ctx->sec = def;
			ctx->skip = 0;
		}
	}
	free(copy);
}

/* Required keys are known missing only when the section is over. */
void
config_section_end(struct config_ctx *ctx)
{
	const struct config_section_def *def = ctx->sec;
	size_t i;

	if (def == NULL)
		return;
	for (i = 0; i < def->nkeys; i++)
		if ((def->keys[i].flags & CONFIG_KEY_REQUIRED) &&
		    ctx->key_line[i] == 0)
			config_error(ctx, ctx->sec_line, ctx->label,
			    def->keys[i].name, "required key missing");
	if (def->finish != NULL)
		def->finish(ctx);
	config_section_skip(ctx);
	ctx->skip = 0;
}

/* "unknown key", with the nearest key of the section when one is near. */
static void
config_unknown_key(struct config_ctx *ctx,
    const struct config_section_def *def, const char *name)
{
	struct name_guess g;
	size_t i;

	name_guess_init(&g, name);
	for (i = 0; i < def->nkeys; i++)
		name_guess_offer(&g, def->keys[i].name);
	if (g.best != NULL)
		config_error(ctx, ctx->lineno, ctx->label, name, "unknown key; "
		    "did you mean %s?", g.best);
	else
		config_error(ctx, ctx->lineno, ctx->label, name,
		    "unknown key");
}

/* One key = value line of the current section. */
void
config_section_key(struct config_ctx *ctx, const char *name,
    const char *value)
{
	const struct config_section_def *def = ctx->sec;
	struct bd_error err;
	size_t i;

	if (def == NULL) {
		if (!ctx->skip)
			config_error(ctx, ctx->lineno, NULL, name,
			    "key outside any section");
		return;
	}
	if (name[0] == '\0') {
		config_error(ctx, ctx->lineno, ctx->label, NULL,
		    "missing key name before '='");
		return;
	}
	i = config_key_index(def, name);
	if (i == def->nkeys) {
		config_unknown_key(ctx, def, name);
		return;
	}
	if (ctx->key_line[i] != 0) {
		config_error(ctx, ctx->lineno, ctx->label, name,
		    "duplicate key (first at line %d)", ctx->key_line[i]);
		return;
	}
	ctx->key_line[i] = ctx->lineno;
	bd_error_clear(&err);
	if (def->keys[i].parse(ctx, &def->keys[i],
	    def->base(ctx->cfg, ctx->index), value, &err) < 0)
		config_error(ctx, ctx->lineno, ctx->label, name, "%s", err.msg);
}

/* A sweep names a benchmark, numeric metrics of it and a host group. */
static void
config_sweep_check(struct config_ctx *ctx, const struct config_sweep *w,
    const int *lines)
{
	const struct config *cfg = ctx->cfg;
	const struct config_benchmark *b = NULL;
	const struct config_metric *m;
	char label[CONFIG_NAME_MAX + 16];
	unsigned roles;
	size_t i;

	snprintf(label, sizeof(label), "[sweep %s]", w->name);
	if (cfg->repo.path == NULL)
		config_error(ctx, w->line, label, NULL,
		    "a sweep needs a [repo] section");
	if (w->benchmark != NULL) {
		b = config_benchmark_find(cfg, w->benchmark);
		if (b == NULL)
			config_error(ctx, lines[SWEEP_KEY_BENCHMARK], label,
			    "benchmark", "no [benchmark %s]", w->benchmark);
	}
	for (i = 0; b != NULL && i < w->metrics.n; i++) {
		m = config_metric_find(b, w->metrics.v[i]);
		if (m == NULL)
			config_error(ctx, lines[SWEEP_KEY_METRICS], label,
			    "metrics", "[benchmark %s] has no metric '%s'",
			    b->name, w->metrics.v[i]);
		else if (m->kind != CONFIG_METRIC_NUMERIC)
			config_error(ctx, lines[SWEEP_KEY_METRICS], label,
			    "metrics", "metric '%s' is pass-fail; a sweep "
			    "watches numbers", m->name);
	}
	if (w->group == NULL)
		return;
	roles = config_group_roles(cfg, w->group);
	if (roles == 0)
		config_error(ctx, lines[SWEEP_KEY_GROUP], label, "group",
		    "no [host] has group = %s", w->group);
	else if ((roles & CONFIG_ROLE_BUILD) == 0 ||
	    (roles & CONFIG_ROLE_TEST) == 0)
		config_error(ctx, lines[SWEEP_KEY_GROUP], label, "group",
		    "group %s has no host with the %s role", w->group,
		    (roles & CONFIG_ROLE_BUILD) ? "test" : "build");
}

/* Checks that need the whole file: names one section gives another. */
void
config_check_references(struct config_ctx *ctx)
{
	size_t i;

	for (i = 0; i < ctx->cfg->nsweeps; i++)
		config_sweep_check(ctx, &ctx->cfg->sweeps[i],
		    ctx->sweep_lines[i]);
	for (i = 0; i < ctx->cfg->nlabs; i++)
		config_lab_check(ctx, &ctx->cfg->labs[i]);
}
