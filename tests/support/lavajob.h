/*
 * The LAVA job template of the lab tests and bench-lab: deploy and boot
 * the `ssh` device, then one inline test definition whose steps are given.
 */
#ifndef TESTS_SUPPORT_LAVAJOB_H
#define TESTS_SUPPORT_LAVAJOB_H

/* steps: YAML list lines, each "          - CMD\n"; caller frees. */
char	*lavajob_template(const char *steps);

#endif
