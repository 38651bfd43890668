/* SPDX-License-Identifier: MIT */
/*
 * Reports of finished bisections, in the style of the 0-day kernel test
 * robot: the change in words, the culprit, a comparison table of every
 * metric between the culprit's parent and the culprit, ASCII plots of the
 * samples, and a reproduce section.
 *
 * The module is pure: it reads a struct report_input filled by the caller
 * (the daemon fills it from stored samples) and writes text into a FILE*
 * or a malloc'd string, or builds a jansson object.  It never reads the
 * store, git or the clock, so the same input always gives the same bytes.
 *
 * Ownership: report_input and everything it points to belong to the
 * caller and are only read during the call; nothing is kept afterwards.
 * Results (strings, json_t, struct report_table) belong to the caller,
 * who frees them with free(), json_decref() or report_table_release().
 */
#ifndef BISECT_REPORT_H
#define BISECT_REPORT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include <jansson.h>

#include "bisect/confirm.h"
#include "common/error.h"

enum report_kind {
	REPORT_CULPRIT,		/* one commit holds the target confidence */
	REPORT_INCONCLUSIVE,	/* budget spent: a candidate set */
	REPORT_NOT_REPRODUCED,	/* the endpoints do not differ */
};

enum report_direction {
	REPORT_HIGHER_IS_BETTER,
	REPORT_LOWER_IS_BETTER,
	REPORT_PASS_FAIL,	/* value 0 = pass, anything else = failure */
	REPORT_DIRECTION_UNKNOWN,	/* the report says "change" */
};

/* The engine's verdict on the commit of a sample, for the plot marks. */
enum report_class {
	REPORT_UNCLASSIFIED,	/* '?' */
	REPORT_GOOD,		/* '*', as lkp's "bisect-good sample" */
	REPORT_BAD,		/* 'O', as lkp's "bisect-bad sample" */
};

/* Flags for report_input.flags. */
#define REPORT_ASCII	0x1	/* "+-" instead of the UTF-8 "±" in tables */

/* Default minimum relative change of a table row (lkp drops below 1%). */
#define REPORT_MIN_CHANGE	0.01

struct report_param {
	const char	*key;
	const char	*value;
};

struct report_commit {
	const char	*sha;		/* full hex sha */
	const char	*subject;	/* first line of the message */
	const char	*author;	/* "Name <mail>", may be NULL */
	const char	*committer;	/* may be NULL */
	const char	*date;		/* caller's format, may be NULL */
};

/* One sample of one metric from one run. */
struct report_value {
	const char	*metric;
	double		 value;
};

/*
 * All samples of all metrics of the runs at one commit, in any order (the
 * rows of the store's samples table for those runs).  runs is the number
 * of runs they came from, shown as "N runs"; the statistics count each
 * metric's own samples.
 */
struct report_side {
	const char		 *sha;
	const char		 *subject;	/* may be NULL */
	const struct report_value *values;
	size_t			  n_values;
	size_t			  runs;
};

/* One sample of the headline metric taken during the bisection. */
struct report_sample {
	const char		*sha;
	long			 position;	/* 0 good .. n_positions bad */
	double			 value;		/* the run's one value */
	enum report_class	 cls;
	unsigned		 nvalues;	/* raw values behind it (0: 1) */
};

struct report_candidate {
	const char	*sha;
	const char	*subject;	/* may be NULL */
	double		 probability;	/* mass of "this is the culprit" */
};

/*
 * One command of the reproduce script, every placeholder expanded: the
 * step's name ("build", "install", "run", ...), the host it runs on and
 * that host's work directory (the command's working directory).
 */
struct report_step {
	const char	*name;
	const char	*host;		/* may be NULL */
	const char	*workdir;	/* may be NULL: the login directory */
	const char	*command;
};

/*
 * Another test that changed over the same tag pair as a sweep-started
 * bisection ("also affects"): what changed, by how much, and what ran.
 */
struct report_also {
	const char	*sweep;		/* that saw it, may be NULL */
	const char	*benchmark;
	const char	*metric;
	double		 change;	/* relative, (new - old) / |old|;
					   NAN: the comparison table's row
					   of metric (same benchmark) */
	enum report_direction direction;
	const char	*machine;	/* test machine, may be NULL */
	const struct report_param *params;
	size_t		 n_params;
};

/* What the revert of the culprit on top of bad showed. */
enum report_revert {
	REPORT_REVERT_NOT_TRIED,	/* verify = none, or no culprit */
	REPORT_REVERT_RESTORES,		/* sampled: back towards the parent */
	REPORT_REVERT_NOT_RESTORED,	/* sampled: no significant way back */
	REPORT_REVERT_CONFLICTS,	/* does not apply; nothing sampled */
	REPORT_REVERT_UNBUILDABLE,	/* applied, but every run was a skip */
};

/* One culprit of several and the part of the range's change it makes. */
struct report_culprit_share {
	const char	*sha;
	const char	*subject;	/* may be NULL */
	double		 share;		/* 0..1 of good->bad; NAN: unknown */
};

/*
 * The checks made after the verdict (the "Verification" section): the
 * revert on top of bad and how it compares with bad and with the
 * culprit's parent (the caller runs the tests), a byte-identical build,
 * the suspicious signs of the culprit's diff (shown in the first lines)
 * and every culprit found with its share.
 */
struct report_verification {
	enum report_revert	 revert;
	const char		*revert_sha;	/* REPORT_REVERT_RESTORES... */
	const char *const	*conflicts;	/* REPORT_REVERT_CONFLICTS */
	size_t			 n_conflicts;
	size_t			 n_conflicts_total;
	const double		*revert_samples;	/* headline metric */
	size_t			 n_revert_samples;
	size_t			 revert_runs;	/* runs spent on the check */
	double			 back_pct;	/* revert vs bad, % of bad */
	double			 restored;	/* share of the culprit's change undone */
	double			 p_bad;		/* revert vs bad */
	double			 p_parent;	/* revert vs the culprit's parent */
	bool			 noop;		/* build identical to the parent's */
	const char *const	*suspicions;	/* sentences */
	size_t			 n_suspicions;
	const struct report_culprit_share *culprits;
	size_t			 n_culprits;	/* 0: only the verdict's */
};

/*
 * What a mail of the report carries besides the text: its Message-ID, the
 * one it replies to, the trailer lines a fix should carry (shown for a
 * regression), whether to add "#regzbot introduced: SHA" (a regression's
 * culprit only), and the proposed recipients.
 */
struct report_mail {
	const char		*message_id;	/* "<...>" */
	const char		*in_reply_to;	/* "<...>" or NULL */
	const char *const	*trailers;	/* "Reported-by: ..." */
	size_t			 n_trailers;
	bool			 regzbot;
	const char *const	*to;		/* "Name <mail>" */
	size_t			 n_to;
	const char *const	*cc;
	size_t			 n_cc;
	const char		*commit_url;	/* "...{sha}...", or NULL */
};

struct report_input {
	enum report_kind	 kind;
	const char		*id;		/* bisection id */
	const char		*branch;	/* "linux-next:master", NULL */
	const char		*repo_url;	/* under the commit, or NULL */
	const char		*benchmark;
	const struct report_param *params;	/* benchmark parameters */
	size_t			 n_params;
	const char		*host_group;
	const char		*metric;	/* headline metric */
	enum report_direction	 direction;

	/* REPORT_CULPRIT: the culprit and its parent(s). */
	struct report_commit	 culprit;
	const struct report_commit *parents;
	size_t			 n_parents;

	/* The request: good revisions (full shas make the rerun exact). */
	const char *const	*good_revs;
	size_t			 n_good_revs;
	const char		*bad_rev;
	double			 confidence;	/* culprit's mass, 0..1 */
	double			 target_confidence;	/* requested, 0..1 */
	size_t			 max_samples;	/* 0: not given */
	bool			 first_parent;
	size_t			 total_samples;
	double			 machine_seconds;
	const char		*verdict_note;	/* optional engine text */
	double			 drift_sd;	/* test machine drift the engine
						   found and adjusted for, in
						   noise sd; 0: none found */

	/*
	 * The comparison table: parent (base) and culprit (head) for
	 * REPORT_CULPRIT (required, headline metric on both sides; for a
	 * merge the caller pools or picks the parents' runs), the good and
	 * bad endpoints otherwise (optional: no table when both are empty).
	 */
	struct report_side	 base;
	struct report_side	 head;

	/*
	 * Headline-metric samples at the endpoints, in the order taken:
	 * required unless REPORT_CULPRIT (where they add the whole-range
	 * line and the endpoint plot).
	 */
	const double		*good_samples;
	size_t			 n_good_samples;
	const double		*bad_samples;
	size_t			 n_bad_samples;

	/*
	 * Every bisection sample of the headline metric in the order taken,
	 * with the engine's verdict on its commit, for the plots (optional).
	 */
	const struct report_sample *samples;
	size_t			 n_samples;
	const char		*run_aggregate;	/* "mean", ...: how a run's
						   values became one (NULL:
						   "mean") */
	long			 n_positions;	/* 0: no position plot */
	long			 culprit_position;	/* -1: none */

	/*
	 * REPORT_INCONCLUSIVE: the leading candidates, most likely first;
	 * the report sums their mass itself.
	 */
	const struct report_candidate *candidates;
	size_t			 n_candidates;
	size_t			 n_candidates_total;	/* all left */

	/* Reproduce section. */
	const char		*bench_config;	/* [benchmark] section */
	const char *const	*bisect_log;	/* `git bisect log` lines */
	size_t			 n_bisect_log;

	double			 min_change;	/* 0: REPORT_MIN_CHANGE */
	unsigned		 flags;		/* REPORT_ASCII */

	/*
	 * Fix-ups: which commits were measured with which, which were
	 * skipped and why, and the broken stretch of an inconclusive answer
	 * (none: no Fix-ups section).
	 */
	const char *const	*fixup_lines;
	size_t			 n_fixup_lines;

	/* NULL: no check was made (no Verification section). */
	const struct report_verification *verification;

	/*
	 * The culprit measured on other host groups (bisect/confirm.h), the
	 * culprit's own group first; none: no confirmation section.
	 */
	const struct report_confirm *confirm;
	size_t			 n_confirm;

	/*
	 * A bisection a sweep started (sweep NULL: none): the sweep, the
	 * previous and the new swept ref (good and bad), how many of
	 * total_samples it measured (shown in the cost line), and the other
	 * metrics it saw change, always rows of the comparison table.
	 */
	const char		*sweep;
	const char		*sweep_prev_ref;
	const char		*sweep_ref;
	size_t			 reused_samples;
	const char *const	*sweep_metrics;
	size_t			 n_sweep_metrics;

	/*
	 * What was tested, as 0-day names it (NULL: not known): the kernel
	 * config, the compiler and the test machine.
	 */
	const char		*kconfig;
	const char		*compiler;
	const char		*machine;

	/*
	 * The reproduce script: the benchmark's commands expanded for the
	 * base side (the culprit's parent, or good) and the head side (the
	 * culprit, or bad); no script when both are empty.  build_inputs are
	 * the files whose contents the build reads besides the tree.
	 */
	const struct report_step *repro_base;
	size_t			 n_repro_base;
	const struct report_step *repro_head;
	size_t			 n_repro_head;
	const char *const	*build_inputs;
	size_t			 n_build_inputs;

	/* Other tests that changed over the sweep's tag pair. */
	const struct report_also *also;
	size_t			 n_also;

	/*
	 * The functions the culprit's diff touches (repo/touched.c): the
	 * perf-profile rows of these symbols come first in the table,
	 * marked, and one line says how they changed.
	 */
	const char *const	*touched;
	size_t			 n_touched;

	/* The mail (report_mail.c); NULL and 0 where there is none. */
	const struct report_mail *mail;
};

/* Zeroes in and sets the defaults (no culprit position, 0.99 target). */
void	report_input_init(struct report_input *in);

/*
 * Renders the whole report as text into *out (malloc'd, NUL-terminated;
 * the caller frees it), valid UTF-8 with every control but newline and
 * tab shown as '?' (bd_utf8_text).  Returns 0, or -EINVAL with a message
 * naming the bad field when the input is incomplete or holds a non-finite
 * value.
 */
int	report_render_text(const struct report_input *in, char **out,
	    struct bd_error *err);
/*
 * The same report as a JSON object (a new reference), with the raw numbers
 * behind every printed figure; NULL with err set on bad input.
 */
json_t	*report_render_json(const struct report_input *in,
	    struct bd_error *err);
/* The one-line subject, as lkp's mail subject; the caller frees it. */
char	*report_subject(const struct report_input *in);
/* Checks an input without rendering it; 0 or -EINVAL. */
int	report_validate(const struct report_input *in, struct bd_error *err);

/*
 * The bisectctl command that reruns the bisection, as a NULL-terminated
 * argument vector (free with report_rerun_argv_free), and shell-quoted
 * for display (caller frees).
 */
char	**report_rerun_argv(const struct report_input *in, size_t *argc);
void	report_rerun_argv_free(char **argv);
char	*report_shell_join(char *const *argv, size_t argc);

/* ---- statistics (report_table.c) ---- */

/* Summary of one metric's samples at one commit. */
struct report_stats {
	size_t	n;
	double	mean;
	double	stddev;		/* population stddev, as lkp-tests */
	double	min;
	double	median;		/* middle value, mean of the two for even n */
	double	max;
};

/* Fills st from v[0..n-1] (n >= 1); v is not modified. */
void	report_stats_compute(const double *v, size_t n,
	    struct report_stats *st);
/* 100 * stddev / |mean|; 0 when the mean is 0. */
double	report_stddev_pct(const struct report_stats *st);
/* True when metric is itself a percentage or profile share. */
bool	report_metric_absolute(const char *metric);
/*
 * %change of the means, 100 * (new - base) / |base|, or new - base for an
 * absolute metric.  +-INFINITY when the base mean is 0 and new is not.
 */
double	report_change(const struct report_stats *base,
	    const struct report_stats *head, bool absolute);
/* Whether a metric changed significantly; the rule is at the definition. */
bool	report_metric_changed(const struct report_stats *base,
	    const struct report_stats *head, double min_change);

/* One row of the comparison table. */
struct report_row {
	const char		*metric;	/* points into the input */
	struct report_stats	 base;
	struct report_stats	 head;
	double			 change;
	bool			 absolute;
	bool			 changed;	/* report_metric_changed() */
	bool			 headline;
	bool			 swept;		/* in the input's sweep_metrics */
	bool			 pass_fail;	/* failure counts, not levels */
	bool			 touched;	/* a perf-profile row of a
						   function the culprit touches */
	size_t			 base_fails;
	size_t			 head_fails;
};

/*
 * Every metric present on both sides: the headline first, then the
 * metrics that share the headline's prefix, then the rest, by name.
 */
struct report_table {
	struct report_row	*rows;
	size_t			 n_rows;
	size_t			 n_changed;	/* rows with changed set */
	size_t			 n_one_sided;	/* metrics on one side only */
};

/*
 * Fills r for metric from its samples on both sides (nb, nh >= 1): stats,
 * change, absolute and changed, failure counts for a pass/fail headline.
 */
void	report_row_compute(struct report_row *r,
	    const struct report_input *in, const char *metric,
	    const double *bv, size_t nb, const double *hv, size_t nh);
int	report_table_build(const struct report_input *in,
	    struct report_table *t, struct bd_error *err);
void	report_table_release(struct report_table *t);
/* Writes the lkp-style table (headline and changed rows) to fp. */
void	report_table_write(FILE *fp, const struct report_input *in,
	    const struct report_table *t);
/* Formats one table row without its newline into buf. */
void	report_row_format(char *buf, size_t len, const struct report_row *r,
	    bool ascii);

/*
 * What the text and JSON forms derive from a validated input: the table,
 * the headline change (parent vs culprit for REPORT_CULPRIT, the endpoints
 * otherwise) and its words.  Points into the input, which must outlive it.
 */
struct report_summary {
	const struct report_input *in;
	struct report_table	 table;		/* n_rows 0 without base/head */
	struct report_row	 headline;
	struct report_row	 range;		/* good vs bad endpoint */
	bool			 have_range;
	const char		*word;		/* "improvement", ... */
	char			 phrase[128];	/* "16.9% improvement" */
};

/* Validates in and fills s; release s also after a failure. */
int	report_summary_init(struct report_summary *s,
	    const struct report_input *in, struct bd_error *err);
void	report_summary_release(struct report_summary *s);
/* The subject line of s (caller frees). */
char	*report_summary_subject(const struct report_summary *s);

/* ---- the culprit's functions (report_touched.c) ---- */

/*
 * Marks the perf-profile rows whose symbol the culprit touches and moves
 * them right after the headline row, keeping the order within each part.
 */
void	report_touched_sort(const struct report_input *in,
	    struct report_table *t);
/* "the culprit touches F: self cycles 0.59 -> 0.21", or nothing. */
void	report_touched_write(FILE *fp, const struct report_summary *s);
/* The touched functions as a JSON array (new reference). */
json_t	*report_touched_json(const struct report_input *in);

/* ---- mail (report_mail.c) ---- */

/* Whether the report is a culprit's regression (tags and regzbot apply). */
bool	report_mail_regression(const struct report_summary *s);
/* The trailer lines a fix should carry, as 0-day asks for them. */
void	report_mail_write_tags(FILE *fp, const struct report_summary *s);
/* "#regzbot introduced: SHA" for a regression, when enabled. */
void	report_mail_write_regzbot(FILE *fp, const struct report_summary *s);
/* The mail as a JSON object (new reference), or NULL without one. */
json_t	*report_mail_json(const struct report_summary *s);

/* ---- number formatting (report_fmt.c) ---- */

#define REPORT_FMT_MAX	64

/* A mean as lkp prints it: 0.15, 881807, 1.297e+08. */
void	report_fmt_value(char *buf, size_t len, double v);
/* A %change: "+16.9%", "-0.6" (absolute), "+1.2e+05%". */
void	report_fmt_change(char *buf, size_t len, double change,
	    bool absolute);
/* A relative stddev: " ±  2%", or six spaces below 2%. */
void	report_fmt_stddev(char *buf, size_t len, double pct, bool ascii);
/* Machine time: "45s", "12m 03s", "5h 04m 12s", "2d 03h 04m". */
void	report_fmt_duration(char *buf, size_t len, double seconds);
/* A probability or confidence as a percentage: "99.4%", "99%". */
void	report_fmt_prob(char *buf, size_t len, double p);

/* "improvement", "regression" or "change" for a change in in's direction. */
const char *report_change_word(const struct report_input *in, double change);
/*
 * The change as lkp words it: the signed number without a plus, then the
 * word: "16.9% improvement", "-4.7% regression", "2.8 point improvement"
 * for a percentage metric, "75.0% failure rate regression" for pass/fail.
 */
void	report_change_phrase(char *buf, size_t len, const struct report_row *r,
	    const char *word);
/*
 * The metric as the subject and the lead name it: benchmark.metric when
 * the metric has no prefix of its own, as lkp's testcase.metric.
 */
void	report_metric_label(char *buf, size_t len, const char *benchmark,
	    const char *metric);
/* "a", or "an" before a number read eight..., eleven or eighteen. */
const char *report_article(const char *phrase);

/* ---- other machine kinds (report_confirm.c) ---- */

/* "It reproduces on 2 of 3 machine kinds (...)." under the lead. */
void	report_confirm_write_headline(FILE *fp, const struct report_input *in);
/* The per-group table; nothing without rows. */
void	report_confirm_write(FILE *fp, const struct report_input *in);
/* The same as a JSON object (new reference), or NULL without rows. */
json_t	*report_confirm_json(const struct report_input *in);

/* ---- verification (report_verify.c) ---- */

/* The suspicious signs and a no-op build, right under the subject. */
void	report_verify_write_flags(FILE *fp, const struct report_input *in);
/* The word of a revert outcome in JSON and status ("restores", ...). */
const char *report_revert_name(enum report_revert r);
/* The "Verification" section; nothing without in->verification. */
void	report_verify_write(FILE *fp, const struct report_input *in);
/* The same as a JSON object (new reference), or NULL without one. */
json_t	*report_verify_json(const struct report_input *in);

/* ---- what was tested, reproduce script, also affects (report_tested.c) ---- */

/* The config, compiler, test machine and parameter lines of the header. */
void	report_tested_write(FILE *fp, const struct report_input *in);
struct report_summary;
/*
 * lkp's "In addition to that, ..." table; nothing without entries.  An
 * entry whose change is NAN takes it from the summary's table, and is left
 * out when the table has no row of its metric.
 */
void	report_also_write(FILE *fp, const struct report_summary *ctx);
/* The entries as a JSON array (new reference). */
json_t	*report_also_json(const struct report_summary *ctx);
/* Whether in has a reproduce script. */
bool	report_script_present(const struct report_input *in);
/*
 * The standalone reproduce script (caller frees): both checkouts and the
 * expanded commands, as /bin/sh reads it.  NULL without one.
 */
char	*report_script(const struct report_input *in);
/* Checks the steps and entries; 0 or -EINVAL naming the bad field. */
int	report_tested_validate(const struct report_input *in,
	    struct bd_error *err);

/* ---- plots (report_plot.c) ---- */

#define REPORT_PLOT_WIDTH	80
#define REPORT_PLOT_HEIGHT	20

struct report_point {
	double			 x;
	double			 y;
	enum report_class	 cls;
};

struct report_plot {
	const char		  *title;
	const char		  *xlabel;
	const struct report_point *pts;
	size_t			   n;
	double			   xmin;
	double			   xmax;
	bool			   has_mark;	/* a ':' column: culprit */
	double			   mark_x;
	const char		  *mark_label;
};

/*
 * Writes an ASCII scatter plot REPORT_PLOT_WIDTH columns wide with a
 * frame REPORT_PLOT_HEIGHT lines high, the x range under it and a legend
 * of the marks used.  Non-finite points are skipped.
 */
void	report_plot_write(FILE *fp, const struct report_plot *p);

#endif
