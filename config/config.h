/* SPDX-License-Identifier: MIT */
/*
 * Configuration: an INI file read with inih and validated on top.
 *
 * config_load() fills a struct config or collects every error it finds, each
 * naming file:line and the key.  The struct owns all its strings and arrays;
 * config_release() frees them, or leaves them to the last holder when a
 * config_hold() is still out.  A loaded config is never modified afterwards:
 * SIGHUP loads a new one and swaps it in whole.
 *
 * Every key is one row of a table in config/section.c with its default
 * (the text a user would write), its reload class and a one-line doc;
 * config_key_at() walks the rows, config_diff() compares two configs by them.
 */
#ifndef CONFIG_CONFIG_H
#define CONFIG_CONFIG_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/types.h>

#include <jansson.h>

#include "common/agg.h"
#include "common/error.h"
#include "common/names.h"
#include "common/proto.h"

#define CONFIG_DEFAULT_PATH	"/etc/bisectd.conf"
#define CONFIG_DEFAULT_SOCKET	PROTO_DEFAULT_SOCKET
#define CONFIG_DEFAULT_DATABASE	"/var/lib/bisectd/bisectd.db"
#define CONFIG_DEFAULT_WORKDIR	"/var/lib/bisectd/work"
#define CONFIG_DEFAULT_GROUP	"default"
#define CONFIG_EX_CONFIG	78	/* sysexits.h EX_CONFIG */
#define CONFIG_DURATION_MAX_MS	(365ULL * 24 * 60 * 60 * 1000)	/* 365d */

/* What a reload does with a changed key. */
enum config_reload {
	CONFIG_RELOAD_LIVE = 0,		/* read where it is used: applies at once */
	CONFIG_RELOAD_RESTART,		/* opened or copied at startup */
};

enum config_host_key_policy {
	CONFIG_HOST_KEY_STRICT = 0,	/* unknown or changed key: refuse */
	CONFIG_HOST_KEY_ACCEPT_NEW,	/* record an unknown key, refuse a changed one */
};

/* What happens after a culprit is found (key verify). */
enum config_verify {
	CONFIG_VERIFY_REVERT = 0,	/* revert it on bad, sample, compare */
	CONFIG_VERIFY_NONE,
};

enum config_auto_fixups {
	CONFIG_AUTO_FIXUPS_SEARCH = 0,	/* a failing commit's fixes are tried */
	CONFIG_AUTO_FIXUPS_NONE,
};

enum config_host_role {
	CONFIG_ROLE_BUILD = 1 << 0,
	CONFIG_ROLE_TEST = 1 << 1,
};

enum config_metric_kind {
	CONFIG_METRIC_NUMERIC = 0,	/* a number; direction says which way is better */
	CONFIG_METRIC_PASS_FAIL,	/* 0 = pass, nonzero = fail */
};

enum config_direction {
	CONFIG_HIGHER_IS_BETTER = 0,
	CONFIG_LOWER_IS_BETTER,
};

struct config_daemon {
	char		*socket;		/* control socket path */
	mode_t		 socket_mode;		/* default 0660 */
	char		*socket_group;		/* NULL: the daemon's group */
	char		*database;		/* SQLite file */
	char		*workdir;		/* logs, artifacts, reports */
	int		 log_level;		/* enum log_level value */
	unsigned	 max_clients;		/* all connections */
	unsigned	 max_clients_per_uid;	/* connections from one uid */
	uint64_t	 client_timeout_ms;	/* partial line; 0: none */
	char		*operators;		/* GROUP[,GROUP]; NULL: anyone */
	char		*admin_group;		/* GROUP[,GROUP]; NULL: root only */
	uint64_t	 audit_keep_ms;		/* events older go; 0: kept */
	unsigned	 audit_max_rows;	/* newest kept; 0: no cap */
	char		*report_hook;		/* command, report on stdin; NULL: none */
	uint64_t	 report_hook_timeout_ms; /* the hook is killed after */
	char		*message_id_domain;	/* NULL: the host's name */
	char		*report_reported_by;	/* Reported-by: value; NULL: none */
	char		*report_closes;		/* URL template, {message_id} */
	char		*report_link;		/* URL template, {message_id} */
	int		 report_regzbot;	/* 1: "#regzbot introduced" line */
};

struct config_repo {
	char		*path;			/* local clone used for revisions */
	char		*url;			/* fetched from; NULL: never fetch */
	uint64_t	 fetch_interval_ms;	/* 0: only on demand */
	char		*watch_refs;		/* globs separated by blanks */
	uint64_t	 fetch_timeout_ms;	/* a fetch is cancelled after */
	char		*identity;		/* ssh:// private key; NULL: none */
	char		*known_hosts;		/* ssh:// host keys; NULL: refuse */
	char		*commit_url;		/* URL template, {sha}; NULL: none */
};

struct config_host {
	char		*name;
	char		*address;		/* required */
	unsigned	 port;			/* default 22 */
	char		*user;			/* required */
	char		*identity;		/* private key file (ed25519), required */
	char		*passphrase_file;	/* NULL: unencrypted key */
	char		*known_hosts;		/* OpenSSH known_hosts file, required */
	enum config_host_key_policy host_key;
	char		*group;			/* default "default" */
	unsigned	 roles;			/* enum config_host_role bits */
	char		*workdir;		/* remote work directory */
	uint64_t	 connect_timeout_ms;
	uint64_t	 keepalive_ms;
	unsigned	 quarantine_after;	/* consecutive infra failures */
	char		*power_cycle;		/* local command template; NULL: none */
	int		 line;			/* line of the section header */
};

struct config_metric {
	char		*name;
	enum config_metric_kind kind;
	enum config_direction direction;
	enum agg_kind	 agg;		/* a run's values as one; AGG_MEAN
					   (pass-fail: AGG_MAX) */
};

struct config_benchmark {
	char		*name;
	/* Step command templates; placeholders are shell-quoted on use.
	 * Any of them may be NULL except run. */
	char		*build;
	char		*artifact;		/* path the build step leaves, template */
	char		*install;
	char		*reboot;
	char		*boot_check;		/* prints the expected kernel, e.g. uname -r */
	char		*expect_kernel;		/* template compared to boot_check output */
	char		*run;
	char		*collect;		/* NULL: metrics on run's last stdout line */
	char		*result_file;		/* fetched after run instead, template */
	uint64_t	 build_timeout_ms;
	uint64_t	 install_timeout_ms;
	uint64_t	 boot_timeout_ms;
	uint64_t	 run_timeout_ms;
	unsigned	 log_max_kib;		/* a step's log; 0: no cap */
	struct config_metric *metrics;
	size_t		 nmetrics;
	double		 min_change;		/* relative, e.g. 0.01 */
	enum config_verify verify;		/* default revert */
	char		*arch;			/* arch/ directory benchmarked, default x86 */
	/* Local files whose contents join the build cache key (a kernel
	 * .config): absolute paths, one blank between them; NULL: none. */
	char		*build_inputs;
	unsigned	 artifact_keep;		/* artifacts kept per host */
	unsigned	 retry_budget;		/* failed runs a bisection tolerates */
	/* What reports say was tested: kconfig and compiler names, the
	 * parameters as KEY=VALUE words, and a command run once per test
	 * host whose output describes the test machine. */
	char		*kconfig;
	char		*compiler;
	char		*params;
	char		*describe;
	/* Host groups the culprit is confirmed on, blank-separated; NULL. */
	char		*confirm_groups;
	/* Fix-ups for every bisection of it, "SHA" or "SHA:BROKEN" words
	 * separated by blanks; NULL: none. */
	char		*fixups;
	enum config_auto_fixups auto_fixups;	/* default search */
	int		 line;
};

/* A list of names, in file order; owned by the section. */
struct config_names {
	char		**v;
	size_t		 n;
};

enum config_schedule_kind {
	CONFIG_SCHEDULE_EACH = 0,	/* every new or moved matching ref */
	CONFIG_SCHEDULE_DAILY,		/* the newest matching ref, once a day */
};

struct config_schedule {
	enum config_schedule_kind kind;
	unsigned	 minute;		/* DAILY: minutes after 00:00 UTC */
};

/* Range of a sweep's priority; operator bisections default to 0. */
#define CONFIG_PRIORITY_MIN	(-1000000)
#define CONFIG_PRIORITY_MAX	1000000

struct config_sweep {
	char		*name;
	char		*benchmark;		/* must name a [benchmark] */
	struct config_names metrics;		/* numeric metrics of it; none: all */
	char		*group;			/* must name a host group */
	char		*tag_pattern;		/* glob on full ref names */
	unsigned	 samples;		/* runs of a tag at most */
	unsigned	 baseline;		/* tags before a sweep's change points */
	struct config_schedule schedule;
	int		 priority;		/* of the bisections it starts */
	char		*start;			/* first ref swept; NULL: after the newest */
	char		*confirm_groups;	/* blank-separated; NULL: the benchmark's */
	char		*fixups;		/* of its bisections, as a benchmark's */
	int		 line;
};

enum config_lab_type {
	CONFIG_LAB_LAVA = 0,		/* a LAVA lab through its REST API v0.2 */
};

/*
 * [lab NAME]: a lab engine serving one host group instead of SSH hosts.
 * job_template is a YAML file read when a job is made; token_file is read
 * when the lab is contacted and never copied into the configuration.
 */
struct config_lab {
	char		*name;
	enum config_lab_type type;
	char		*url;			/* http(s)://host[:port], required */
	char		*token_file;		/* file holding the API token */
	char		*device_type;		/* required */
	char		*tags;			/* comma-separated; NULL: none */
	char		*group;			/* the host group it serves */
	char		*job_template;		/* YAML file, required */
	char		*artifact_url;		/* template; NULL: {artifact_url} is "" */
	char		*build_group;		/* SSH group building first; NULL: none */
	unsigned	 max_jobs;		/* in flight at once */
	unsigned	 priority;		/* LAVA priority 0..100, {priority} */
	uint64_t	 poll_interval_ms;	/* first poll delay; backs off */
	uint64_t	 queue_allowance_ms;	/* a job's deadline beyond the
						 * benchmark's timeouts */
	char		*build_case;		/* a failing case of this name: skip */
	int		 line;
};

/* Values for the placeholders of a lab's templates; any may be NULL. */
struct config_lab_values {
	const char	*commit;
	const char	*run_id;
	const char	*benchmark;
	const char	*job_name;		/* {job_name}: the run's description */
	/* Where the build host left the artifact ({artifact}, {build_host}
	 * in artifact_url); NULL when the lab builds for itself. */
	const char	*artifact;
	const char	*build_host;
};

struct config_hold;

struct config {
	char			*path;		/* absolute path of the file */
	struct config_hold	*holds;		/* NULL until config_hold() */
	struct config_daemon	 daemon;
	struct config_repo	 repo;
	struct config_host	*hosts;
	size_t			 nhosts;
	struct config_benchmark	*benchmarks;
	size_t			 nbenchmarks;
	struct config_sweep	*sweeps;
	size_t			 nsweeps;
	struct config_lab	*labs;
	size_t			 nlabs;
};

/* Every error of one load, in file order. */
struct config_errors {
	char	**msgs;		/* "FILE:LINE: [section] key: what is wrong" */
	size_t	  n;
};

/* Zeroes cfg; config_release on it is then a no-op. */
void	config_init(struct config *cfg);
/*
 * Reads and validates path into cfg (whatever cfg held is not freed: pass
 * an initialised or released one).  Returns 0 with errs empty, -EINVAL when
 * the file has errors, or a negative errno when it cannot be read; on
 * failure cfg is left released and errs holds every message, sorted by
 * line.  errs may be NULL; otherwise the caller always releases it.
 * Relative paths in the file are made absolute against the file's
 * directory.  Not thread-safe: it sets inih's process-wide options.
 */
int	config_load(struct config *cfg, const char *path,
	    struct config_errors *errs);
/*
 * As config_load, on text (len bytes, NULs allowed) given as the content
 * of the file at path, which is not read: path names the file in messages
 * and is the base of relative paths.  Not thread-safe either.
 */
int	config_parse(struct config *cfg, const char *path, const char *text,
	    size_t len, struct config_errors *errs);
/*
 * Frees everything cfg owns and leaves it as config_init does.  When holds
 * taken with config_hold() are still out, what cfg owned moves to them and
 * is freed by the last config_drop() instead.
 */
void	config_release(struct config *cfg);
/*
 * Takes a hold on what cfg owns (its strings and arrays, so pointers to its
 * hosts and benchmarks), valid until config_drop() even when cfg is
 * released or overwritten meanwhile.  Holds are counted, not thread-safe.
 */
struct config_hold *config_hold(const struct config *cfg);
/*
 * Drops one hold.  Returns 1 when it was the last hold on a released
 * configuration, which is then freed, and 0 otherwise.
 */
int	config_drop(struct config_hold *h);
/* Configurations released while held and not yet freed, in this process. */
size_t	config_retired_count(void);

/* One row of the key tables, for documentation and checks. */
struct config_key_info {
	const char	*section;	/* "daemon", "repo", "host", ... */
	int		 named;		/* 1: [TYPE NAME] */
	const char	*key;
	const char	*kind;		/* "duration", "path", "command", ... */
	const char	*def;		/* default as the file writes it; NULL: none */
	int		 required;
	enum config_reload reload;
	const char	*doc;		/* one sentence */
};
/* Row idx of all sections in file order: 0, or -ENOENT past the last. */
int	config_key_at(size_t idx, struct config_key_info *out);
/* bisectd.conf(5) in mdoc, from the rows (docs/bisectd.conf.5). */
void	config_manpage_write(FILE *fp);

/* A key (or a whole named section) that differs between two configs. */
struct config_change {
	const char	*section;	/* "daemon", "host", ... */
	const char	*name;		/* of a named section; NULL otherwise */
	const char	*key;		/* NULL: the section was added or removed */
	enum config_reload reload;
};
typedef void	config_change_fn(void *arg, const struct config_change *c);
/*
 * Calls fn for every key whose value differs between old and new, section
 * instance by instance, and for every named section only one of them has.
 * Pointers in the change live as long as old and new.
 */
void	config_diff(const struct config *old, const struct config *new,
	    config_change_fn *fn, void *arg);

/*
 * The rows' defaults for a host or benchmark built by hand (tests, tools):
 * every key with a default is set as config_load would set it.  A host's
 * group and workdir are allocated (config_host_release frees them), and
 * so is a benchmark's arch (config_benchmark_release).
 */
void	config_host_defaults(struct config_host *h);
void	config_benchmark_defaults(struct config_benchmark *b);
/* Frees what a benchmark owns (its strings, arch among the defaults). */
void	config_benchmark_release(struct config_benchmark *b);
void	config_errors_release(struct config_errors *errs);
/* A deep copy of one host, freed with config_host_release(). */
void	config_host_copy(struct config_host *dst,
	    const struct config_host *src);
void	config_host_release(struct config_host *h);
/* Frees the strings of a lab (a copy made field by field, or a row). */
void	config_lab_release(struct config_lab *l);

const struct config_host	*config_host_find(const struct config *cfg,
				    const char *name);
const struct config_benchmark	*config_benchmark_find(const struct config *cfg,
				    const char *name);
const struct config_sweep	*config_sweep_find(const struct config *cfg,
				    const char *name);
const struct config_lab		*config_lab_find(const struct config *cfg,
				    const char *name);
/* The lab serving group, or NULL when SSH hosts serve it. */
const struct config_lab		*config_lab_for_group(const struct config *cfg,
				    const char *group);
/*
 * The group whose builds (and build cache rows) serve group's runs: a
 * lab's build_group, else group itself.
 */
const char			*config_build_group(const struct config *cfg,
				    const char *group);
const struct config_metric	*config_metric_find(
				    const struct config_benchmark *b,
				    const char *name);
/*
 * The metrics a sweep watches, into out[0..max-1] (pointers into cfg):
 * its metrics list, or every numeric metric of its benchmark.  Returns
 * their count (possibly more than max: the caller sizes out), or 0 when
 * the benchmark is unknown.
 */
size_t	config_sweep_metrics(const struct config *cfg,
	    const struct config_sweep *w, const struct config_metric **out,
	    size_t max);

/*
 * The next KEY=VALUE word of a benchmark's params from *s on: 1 with key
 * and value (lengths klen, vlen) pointing into the string and *s past the
 * word, 0 at the end, -1 at a word with no key or no '='.
 */
int	config_params_next(const char **s, const char **key, size_t *klen,
	    const char **value, size_t *vlen);

/* The words of enum config_host_role, as the file and the protocol use them. */
extern const struct name_value config_role_words[];

/*
 * Renders a lab's job template (read from its file) with v into *out
 * (caller frees) and checks that the result is well-formed YAML.
 * {commit}, {short}, {run_id}, {benchmark}, {job_name}, {artifact_url},
 * {device_type}, {priority} and {tags} are replaced; a value landing in a
 * step command (an item under a "steps:" key) is shell-quoted, and every
 * value is YAML-escaped: a value that is the whole scalar is written as a
 * double-quoted string, one inside a longer scalar must not need quoting
 * (else -EINVAL).  Returns 0 or a negative errno with err filled.
 */
int	config_lab_render(const struct config_lab *lab,
	    const struct config_lab_values *v, char **out,
	    struct bd_error *err);
/*
 * The lab's artifact_url with v substituted ("" when unset); caller frees.
 * {short}, {commit}, {benchmark}, {run_id}, {artifact} (the path the
 * build left on the build host) and {build_host} are replaced as they are.
 */
char	*config_lab_artifact(const struct config_lab *lab,
	    const struct config_lab_values *v);
/* Checks that text is one well-formed YAML document mapping. */
int	config_yaml_check(const char *text, size_t len, struct bd_error *err);

/* enum config_host_role bits of all hosts in group; 0 when it has none.
 * A group a lab serves can do both. */
unsigned	config_group_roles(const struct config *cfg, const char *group);
/* Whether a blank-separated list of names (confirm_groups) holds word. */
int		config_names_contain(const char *list, const char *word);

/*
 * Effective configuration as JSON, defaults included; caller owns the
 * result.  {"path", "daemon": {...}, "repo": {...} or null, "hosts": [...],
 * "benchmarks": [...], "sweeps": [...], "labs": [...]}; each section object has the file's
 * key names (plus "name"), durations as NAME_ms integers, socket_mode as a
 * string like "0660", roles as an array, metrics as [{"name", "kind":
 * "higher"|"lower"|"pass-fail"}].  No secrets: files such as
 * passphrase_file are shown as paths and never read, and a URL's user-info
 * is replaced by "***".
 */
json_t	*config_to_json(const struct config *cfg);

/*
 * Parses a time span as systemd.time(7) writes one into *ms: parts such as
 * "500ms", "90s", "15min", "1.5h", "2d", "1w" (units from ms to years, in
 * systemd's spellings), with or without blanks between them ("1h30m",
 * "2d 3h"), or a bare number of seconds.  Returns 0, -EINVAL for anything
 * else (signs, other units, a lone fraction point), or -ERANGE above
 * CONFIG_DURATION_MAX_MS.  "0" gives 0.
 */
int	config_parse_duration(const char *s, uint64_t *ms);

#endif
