/* SPDX-License-Identifier: MIT */
/*
 * Shared by the ctlclient suite's files: the fake daemon, the output of
 * the last bisectctl run (both released after each test, also after a
 * failed assertion) and short forms for scripting and checking them.
 * Each including file gets its own copies (all static).
 */
#ifndef TESTS_INTEGRATION_CTL_CLIENT_TEST_H
#define TESTS_INTEGRATION_CTL_CLIENT_TEST_H

#include <criterion/criterion.h>
#include <jansson.h>
#include <string.h>

#include "tests/support/fakesrv.h"
#include "tests/support/tst.h"

/* The fake and the last run's output, released also after a failure. */
static struct fakesrv fs;
static struct fakesrv_out o;

static void
ctl_cleanup(void)
{
	fakesrv_release(&fs);
	fakesrv_out_release(&o);
}

#define CTEST(name) Test(ctlclient, name, .fini = ctl_cleanup)

/* Runs bisectctl -s FAKE args... (stdout on a pty with TTY) into o. */
#define RUN(sock, tty, args) \
	cr_assert_eq(fakesrv_run(&o, (sock), (tty), (args)), 0, \
	    "bisectctl did not run (BISECTCTL_BIN=%s)", \
	    tst_env_path("BISECTCTL_BIN"))
#define ARGV(...)	((const char *const[]){ __VA_ARGS__, NULL })
#define CTL(...)	RUN(fs.path, 0, ARGV(__VA_ARGS__))
#define CTL_TTY(...)	RUN(fs.path, 1, ARGV(__VA_ARGS__))
#define reply(cmd, text)	fakesrv_script(&fs, (cmd), (text))
#define event(text)		fakesrv_script(&fs, NULL, (text))
#define start(mode)		fakesrv_init(&fs, (mode))
#define serve() \
	cr_assert_eq(fakesrv_start(&fs, "ctlclient"), 0, "fake daemon")
#define expect_out(needle) \
	cr_expect_not_null(strstr(o.out, (needle)), \
	    "stdout lacks \"%s\":\n%s", (needle), o.out)
#define expect_err(needle) \
	cr_expect_not_null(strstr(o.err, (needle)), \
	    "stderr lacks \"%s\":\n%s", (needle), o.err)
#define count_lines	fakesrv_count_lines

/* The last request of cmd, which must exist (caller decrefs). */
static json_t *
sent(const char *cmd)
{
	json_t *r = fakesrv_last(&fs, cmd);

	cr_assert_not_null(r, "bisectctl sent no %s request", cmd);
	return r;
}

#endif
