/* SPDX-License-Identifier: MIT */
/*
 * What one of bisectctl's printers (ctl/print.h) makes of a reply, for
 * the printer tests: the reply is JSON text as the daemon sends it, and
 * the printed text is the caller's to free.  A reply that does not parse
 * fails the calling test.
 */
#ifndef TESTS_SUPPORT_CTLPRINT_H
#define TESTS_SUPPORT_CTLPRINT_H

#include "ctl/print.h"

char	*ctlprint(print_fn *fn, const char *reply);

#endif
