/* SPDX-License-Identifier: MIT */
/*
 * The LAVA job template of the lab tests and bench-lab: deploy and boot
 * the `ssh` device, then one inline test definition whose steps are given.
 */
#ifndef TESTS_SUPPORT_LAVAJOB_H
#define TESTS_SUPPORT_LAVAJOB_H

/* steps: YAML list lines, each "          - CMD\n"; caller frees. */
char	*lavajob_template(const char *steps);
/*
 * A shell script that runs cmd (shell text, may use "$1"), takes the
 * fixture benchmark's JSON from its last line and reports runtime_ms and
 * ops_per_sec as lava-test-case measurements; caller frees.
 */
char	*lavajob_report_script(const char *cmd);

#endif
