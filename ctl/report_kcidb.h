/* SPDX-License-Identifier: MIT */
/*
 * A culprit's report as KCIDB I/O data (schema v5, kernelci/kcidb-io), for
 * `bisectctl report ID --kcidb`: the two checkouts, builds and tests (the
 * culprit's parent and the culprit, the headline metric's mean as each
 * test's number), one issue whose culprit is the code, with the report's
 * subject and URL, and the incidents: the issue absent on the parent's
 * test and present on the culprit's.  Ids start with "bisectd:".
 *
 * The input is the report's JSON form and is only read; the result is a
 * new reference owned by the caller.
 */
#ifndef CTL_REPORT_KCIDB_H
#define CTL_REPORT_KCIDB_H

#include <jansson.h>

#include "common/error.h"

#define REPORT_KCIDB_ORIGIN	"bisectd"
#define REPORT_KCIDB_MAJOR	5
#define REPORT_KCIDB_MINOR	0

/* NULL with err set when report has no culprit or is not a report. */
json_t	*report_kcidb(const json_t *report, struct bd_error *err);

#endif
