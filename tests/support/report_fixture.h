/* SPDX-License-Identifier: MIT */
/*
 * Report inputs for the report tests, read from JSON files in
 * tests/fixtures/report/ that mirror struct report_input field by field.
 *
 * Ownership: a loaded struct report_fixture owns the parsed JSON and every
 * array its input points into, until report_fixture_release().  Loading
 * fails the calling test (Criterion assertion) on a bad file.
 */
#ifndef TESTS_SUPPORT_REPORT_FIXTURE_H
#define TESTS_SUPPORT_REPORT_FIXTURE_H

#include <jansson.h>

#include "bisect/report.h"

struct report_fixture {
	json_t			*root;
	struct report_input	 in;
	struct report_param	*params;
	struct report_commit	*parents;
	const char		**good;
	struct report_value	*values[2];
	double			*endpoints[2];
	struct report_sample	*samples;
	struct report_candidate	*cands;
	const char		**log;
	struct report_step	*steps[2];
	const char		**build_inputs;
	struct report_also	*also;
	struct report_param	**also_params;
	const char		**sweep_metrics;
	const char		**touched;
	const char		**mail_lists[3];	/* trailers, to, cc */
	struct report_mail	 mail;
	struct report_confirm	*confirm;
};

/* Path of fixture file name under $BISECTD_SRCDIR (caller frees). */
char	*report_fixture_path(const char *name);
/* Reads fixture file name into f. */
void	 report_fixture_load(struct report_fixture *f, const char *name);
void	 report_fixture_release(struct report_fixture *f);
/*
 * Renders fixture input as text and fails the test unless it equals the
 * golden file (REPORT_UPDATE_GOLDEN=1 rewrites the file instead).
 */
void	 report_fixture_golden(const char *input, const char *golden);

#endif
