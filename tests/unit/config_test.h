/* SPDX-License-Identifier: MIT */
/*
 * Helpers shared by the config suite's two files (config_test.c holds
 * them; config_errors_test.c uses them).  Each test runs in its own worker
 * process, so the one loaded configuration below is per test.
 */
#ifndef TESTS_UNIT_CONFIG_TEST_H
#define TESTS_UNIT_CONFIG_TEST_H

#include <stddef.h>

#include "config/config.h"

extern char *cfgt_dir;			/* temp dir of the test, realpath'd */
extern char *cfgt_path;			/* the file last loaded */
extern struct config cfgt_cfg;
extern struct config_errors cfgt_errs;

void	cfgt_setup(void);
void	cfgt_cleanup(void);
/* Every message, one per line, to show in a failed assertion. */
char	*cfgt_all_errors(void);
/* Writes text as NAME (or bisectd.conf) in the temp dir and loads it. */
int	cfgt_load_named(const char *name, const char *text);
int	cfgt_load(const char *text);
/* Loads text and fails the test, listing the errors, unless it is clean. */
void	cfgt_load_ok(const char *text);
/* Asserts exactly these messages, each "LINE: rest" after "PATH:". */
void	cfgt_expect(const char *const *want, size_t n);
/* cfgt_dir/rel: what a relative value in the file must become. */
char	*cfgt_abs(const char *rel);
void	cfgt_expect_path(const char *got, const char *rel);

#define CFGT_TEST(name) \
	Test(config, name, .init = cfgt_setup, .fini = cfgt_cleanup)

/* A valid host and benchmark, 5 and 3 lines. */
#define HOST_A \
	"[host a]\n" \
	"address = 127.0.0.1\n" \
	"user = u\n" \
	"identity = id\n" \
	"known_hosts = kh\n"
#define BENCH_B \
	"[benchmark b]\n" \
	"run = ./run\n" \
	"metrics = tput:higher\n"


#endif
