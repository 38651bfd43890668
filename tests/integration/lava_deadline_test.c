/* SPDX-License-Identifier: MIT */
/*
 * A lab job has a deadline (issue 35): the real daemon with one [lab] on
 * a fake LAVA (tests/support/fakelab.h) that keeps every job "Running" for
 * ever.  Past the benchmark's timeouts plus the lab's queue_allowance the
 * daemon asks the lab to cancel the job, submits the next one in its
 * place (max_jobs = 1: the slot is free), ends the run as an
 * infrastructure failure once its attempts are spent, and stops at
 * SIGTERM at once, also when the lab never answers the cancel.
 */
#include <criterion/criterion.h>

#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <jansson.h>

#include "common/xmalloc.h"
#include "tests/support/daemon.h"
#include "tests/support/fakelab.h"
#include "tests/support/lavaapi.h"
#include "tests/support/svc.h"
#include "tests/support/tst.h"

#define LD_WAIT_S	120	/* a guard against hangs, not a timing check */

static struct fakelab ld_lab;

/* The lab first: a daemon still running is killed by svc_fini. */
static void
ld_fini(void)
{
	fakelab_release(&ld_lab);
	svc_fini();
}

TestSuite(lava_deadline, .fini = ld_fini, .timeout = 600);

/*
 * A benchmark whose timeouts add up to 2 s and a lab that allows 500 ms
 * of queue: each job's deadline is 2.5 s after its submission.
 */
static char *
ld_sections(void)
{
	char *text;

	free(tst_write_file(svc.dir, "job.yaml", "device_type: "
	    "{device_type}\njob_name: {job_name}\npriority: {priority}\n"));
	free(tst_write_file(svc.dir, "token", "secret\n"));
	xasprintf(&text, "[benchmark stuck]\nrun = true\n"
	    "metrics = runtime_ms:lower\nbuild_timeout = 500ms\n"
	    "install_timeout = 500ms\nboot_timeout = 500ms\n"
	    "run_timeout = 500ms\n\n"
	    "[lab lab1]\ntype = lava\nurl = %s\ntoken_file = %s/token\n"
	    "device_type = ssh\ngroup = lava\njob_template = %s/job.yaml\n"
	    "max_jobs = 1\npoll_interval = 100ms\nqueue_allowance = 500ms\n",
	    ld_lab.url, svc.dir, svc.dir);
	return text;
}

/*
 * Job 1 is cancelled at the lab and a job is submitted after that cancel
 * while job 1 is still "Running" there; the run ends as failed-infra.
 */
static void
ld_check(int hang_cancel)
{
	int64_t id;
	long cancel, next;
	char *seen;
	int i;

	fakelab_start(&ld_lab, hang_cancel);
	svc_setup_with("labdeadline", 0, NULL, 0, ld_sections);
	id = lavaapi_bisect("stuck");
	for (i = 0; i < LD_WAIT_S * 5 &&
	    lavaapi_runs(id, "failed-infra") < 1; i++)
		usleep(200 * 1000);
	seen = fakelab_text(&ld_lab);
	cr_assert_geq(lavaapi_runs(id, "failed-infra"), 1, "no run of the stuck "
	    "lab failed; the lab saw:\n%s", seen);
	cancel = fakelab_find(&ld_lab, 0, "GET /api/v0.2/jobs/1/cancel/");
	cr_assert_geq(cancel, 0, "job 1 was never cancelled:\n%s", seen);
	next = fakelab_find(&ld_lab, (size_t)cancel, "POST /api/v0.2/jobs/");
	cr_assert_gt(next, cancel, "no job after job 1's cancel: its slot "
	    "stayed taken:\n%s", seen);
	free(seen);
	/* The last attempt's job is cancelled too (the request may still be
	 * on its way when the run's end is stored). */
	for (i = 0; i < LD_WAIT_S * 5 && fakelab_count(&ld_lab,
	    "GET /api/v0.2/jobs/3/cancel/") < 1; i++)
		usleep(200 * 1000);
	seen = fakelab_text(&ld_lab);
	cr_expect_eq(fakelab_count(&ld_lab, "GET /api/v0.2/jobs/3/cancel/"),
	    1, "%s", seen);
	free(seen);
	cr_assert_eq(tst_daemon_stop(&svc.td, SIGTERM), 0, "bisectd did not "
	    "exit cleanly within %d ms of SIGTERM", TST_DAEMON_WAIT_MS);
}

Test(lava_deadline, a_job_kept_running_is_cancelled_and_its_run_fails)
{
	ld_check(0);
}

Test(lava_deadline, a_lab_that_never_answers_the_cancel_holds_no_slot)
{
	ld_check(1);
}
