/* SPDX-License-Identifier: MIT */
/*
 * The parts of a report that say what was tested and how to redo it: the
 * benchmark's kconfig, compiler and params, the test machine as its hosts
 * described themselves, the reproduce script's expanded commands for both
 * sides, and the other sweeps' changes over a sweep's tag pair.
 *
 * Ownership: a struct reporter_tested owns every array and string it puts
 * into the report input, until reporter_tested_release().  The config and
 * store are borrowed during the call only.
 */
#ifndef DAEMON_REPORTER_TESTED_H
#define DAEMON_REPORTER_TESTED_H

#include "bisect/report.h"
#include "config/config.h"

struct store;

struct reporter_tested {
	struct report_param	*params;
	struct report_step	*steps[2];
	struct report_also	*also;
	size_t			 nalso;
	const char		**inputs;	/* build_inputs' paths */
	char			**strings;
	size_t			 nstrings;
};

/*
 * Fills in's kconfig, compiler, params, machine, reproduce steps and (for
 * a sweep-started bisection: in->sweep set) also-affects entries, for
 * benchmark bc on group.  hosts[0..nhosts-1] are the test hosts that ran
 * the bisection, test_host one of them (NULL: the group's first).
 */
void	reporter_tested_fill(struct reporter_tested *t, struct report_input *in,
	    struct store *st, const struct config *cfg,
	    const struct config_benchmark *bc, const char *group,
	    const char *const *hosts, size_t nhosts);
void	reporter_tested_release(struct reporter_tested *t);
struct bisection;
struct confirm_rows;
/*
 * Fills in's confirmation rows from b's children on other groups (rows
 * owned by r until confirm_rows_release()), each with its test machine
 * as its hosts described themselves (owned by t).
 */
void	reporter_tested_confirm(struct reporter_tested *t,
	    struct confirm_rows *r, struct report_input *in, struct store *st,
	    const struct config_benchmark *bc, struct bisection *b);
/* A configured metric's direction in the report's words (NULL: unknown). */
enum report_direction reporter_direction(const struct config_metric *m);

#endif
