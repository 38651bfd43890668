/* SPDX-License-Identifier: MIT */
/*
 * An artifact copy that fails on a real sshd: the test host's workdir is
 * a small tmpfs, full, in a private mount namespace (unshare -m) that the
 * daemon and both sshds share.  The build host builds; every copy to the
 * test host fails with the disk full.  `hosts` counts the failures and
 * names the last, status says why the bisection waits, no sample comes from
 * a copy that did not arrive, and once the operator has made room and
 * undrained the host the bisection goes on to its culprit.
 */
#include <criterion/criterion.h>

#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <jansson.h>

#include "common/xmalloc.h"
#include "tests/support/svc.h"
#include "tests/support/tmpfs.h"
#include "tests/support/tst.h"

TestSuite(copy_full, .fini = svc_fini, .timeout = 900);

/* h1's copy_failures once it is at least 1 (the host, caller decrefs). */
static json_t *
cf_wait_copy_failure(void)
{
	json_t *h;
	int i;

	for (i = 0; i < SVC_WAIT_MS / 100; i++) {
		h = svc_host("h1");
		cr_assert_not_null(h, "no host h1");
		if (json_integer_value(json_object_get(h,
		    "copy_failures")) >= 1)
			return h;
		json_decref(h);
		usleep(100 * 1000);
	}
	cr_assert_fail("no copy to h1 failed");
	return NULL;
}

/* The status of id once its trouble holds text (caller decrefs). */
static json_t *
cf_wait_trouble(int64_t id, const char *text)
{
	json_t *b;
	const char *t;
	char *dump;
	int i;

	for (i = 0; i < SVC_WAIT_MS / 100; i++) {
		b = svc_status(id);
		t = json_string_value(json_object_get(b, "trouble"));
		if (t != NULL && strstr(t, text) != NULL)
			return b;
		if (i + 1 == SVC_WAIT_MS / 100)
			break;
		json_decref(b);
		usleep(100 * 1000);
	}
	dump = json_dumps(b, JSON_COMPACT);
	cr_assert_fail("no trouble \"%s\" in status: %s", text, dump);
	return NULL;
}

/*
 * Issue 34's copies, on a real sshd: a failed copy is counted and named in
 * `hosts`; once the test host is quarantined for it, status says why the
 * bisection waits and what to do; after the operator frees the disk and
 * undrains the host, the bisection ends at its culprit, with no sample
 * taken from a copy that did not arrive.
 */
Test(copy_full, a_copy_to_a_full_disk_is_counted_shown_and_mended)
{
	char *filler, *dump, *w1;
	const char *why;
	json_t *h, *b;
	int64_t id;

	tmpfs_private();
	svc_set_roles(0, "build");
	svc_set_roles(1, "test");
	svc_setup("copy-full", 2, "2:3", 0);
	cr_assert_eq(tst_daemon_stop(&svc.td, SIGTERM), 0);

	/* h1's workdir becomes a small tmpfs, full before the first copy. */
	xasprintf(&w1, "%s/w1", svc.dir);
	xasprintf(&filler, "%s/filler", tmpfs_mount(w1, "1m"));
	free(w1);
	tmpfs_fill(filler);
	svc_restart(NULL);

	id = svc_bisect("runtime_ms", NULL);
	h = cf_wait_copy_failure();
	dump = json_dumps(h, JSON_COMPACT);
	why = json_string_value(json_object_get(h, "copy_error"));
	cr_assert_not_null(why, "%s", dump);
	cr_assert(strstr(why, "h1") != NULL && strstr(why, "SFTP status 4")
	    != NULL, "the error names the host and the status: %s", dump);
	cr_assert_str_eq(json_string_value(json_object_get(h, "receives")),
	    "sftp", "%s", dump);
	free(dump);
	json_decref(h);

	/* Quarantined for it, h1 leaves the group without a test host. */
	b = cf_wait_trouble(id, "no usable test host in group lab (0 of 1): "
	    "h1 is quarantined after: relay: h1: writing");
	dump = json_dumps(b, JSON_COMPACT);
	cr_assert(strstr(dump, "bisectctl undrain h1") != NULL, "%s", dump);
	cr_assert_eq(json_integer_value(json_object_get(b, "samples")), 0,
	    "a sample without its artifact: %s", dump);
	free(dump);
	json_decref(b);
	/* The operator reads it in bisectctl status, as a waiting line. */
	xasprintf(&w1, "%lld", (long long)id);
	{
		char *argv[] = { (char *)tst_env_path("BISECTCTL_BIN"), "-s",
		    svc.td.sock, "status", w1, NULL };
		int status;

		dump = tst_run_capture(argv, &status);
		cr_assert_eq(status, 0, "%s", dump);
		cr_assert(strstr(dump, "\nwaiting     no usable test host in "
		    "group lab (0 of 1): h1 is quarantined") != NULL, "%s",
		    dump);
		free(dump);
	}
	free(w1);

	/* The operator frees the disk and undrains: the bisection ends. */
	cr_assert_eq(unlink(filler), 0, "%s", strerror(errno));
	free(filler);
	json_decref(svc_req("{\"cmd\":\"undrain\",\"host\":\"h1\"}"));
	b = svc_wait(id);
	svc_assert_culprit(b);
	cr_assert_null(json_object_get(b, "trouble"));
	json_decref(b);
	svc_assert_samples_consistent(id);
}
