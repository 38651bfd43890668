/* SPDX-License-Identifier: MIT */
/* Writes bisectd.conf(5) from the configuration rows: `make docs`. */
#include <stdio.h>

#include "config/config.h"

int
main(void)
{
	config_manpage_write(stdout);
	return fflush(stdout) == 0 ? 0 : 1;
}
