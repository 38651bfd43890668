/* SPDX-License-Identifier: MIT */
/*
 * Host health: before first contact a host is unknown and the pool's
 * probe decides (the pool on its own against real sshd servers); against
 * the real daemon, a drain is in the store's hosts table and outlives a
 * restart.
 */
#include <criterion/criterion.h>
#include <jansson.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "remote/pool.h"
#include "store/store.h"
#include "tests/support/daemon.h"
#include "tests/support/rtest.h"
#include "tests/support/sshd.h"
#include "tests/support/tst.h"

static struct tst_daemon td;

static void
hosts_cleanup(void)
{
	tst_daemon_release(&td);
}

TestSuite(hosts, .fini = tst_leak_check);

/* Nothing listens on these ports: probes find both hosts down. */
static const char hosts_ini[] =
    "[host alpha]\naddress = 127.0.0.1\nport = 2201\nuser = bench\n"
    "identity = id_ed25519\nknown_hosts = known_hosts\ngroup = lab\n"
    "roles = build,test\n\n"
    "[host beta]\naddress = 127.0.0.1\nport = 2202\nuser = bench\n"
    "identity = id_ed25519\nknown_hosts = known_hosts\ngroup = lab\n"
    "roles = test\n";

/* The state `hosts` shows for host i (a copy in buf). */
static const char *
host_state(size_t i, char *buf, size_t bufsz)
{
	json_t *r, *h;
	char *line = tst_daemon_request(&td, "{\"cmd\":\"hosts\"}");

	cr_assert_not_null(line);
	r = tst_daemon_reply(line);
	cr_assert_not_null(r);
	h = json_array_get(json_object_get(r, "hosts"), i);
	cr_assert_not_null(h);
	snprintf(buf, bufsz, "%s",
	    json_string_value(json_object_get(h, "state")));
	json_decref(r);
	return buf;
}

/* Waits until the probe has decided host i. */
static const char *
host_probed(size_t i, char *buf, size_t bufsz)
{
	int tries;

	for (tries = 0; tries < 2000; tries++) {
		if (strcmp(host_state(i, buf, bufsz), "unknown") != 0)
			return buf;
		usleep(10000);
	}
	return buf;
}

/* The state the store holds for a host, or "" when it has no row. */
static void
stored_state(const char *name, char *buf, size_t bufsz)
{
	static const char *const words[] = { "unknown", "up", "down",
	    "quarantined", "draining" };
	struct store *st;
	struct store_host h;
	struct bd_error err;

	buf[0] = '\0';
	cr_assert_eq(store_open(&st, td.db, &err), 0, "%s", err.msg);
	if (store_host_get(st, name, &h, &err) == 0) {
		snprintf(buf, bufsz, "%s", words[h.state]);
		store_host_release(&h);
	}
	store_close(st);
}

Test(hosts, probed_hosts_are_stored_and_a_drain_survives_a_restart,
    .fini = hosts_cleanup)
{
	char buf[64], *line;
	json_t *r;

	cr_assert_eq(tst_daemon_setup(&td, "hosts", NULL, hosts_ini), 0);
	cr_assert_eq(tst_daemon_start(&td), 0, "bisectd did not start");
	cr_assert_str_eq(host_probed(0, buf, sizeof(buf)), "down");
	cr_assert_str_eq(host_probed(1, buf, sizeof(buf)), "down");

	line = tst_daemon_request(&td, "{\"cmd\":\"drain\",\"host\":\"alpha\"}");
	cr_assert_not_null(line);
	r = tst_daemon_reply(line);
	cr_assert(json_is_true(json_object_get(r, "ok")));
	json_decref(r);
	cr_assert_eq(tst_daemon_stop(&td, SIGTERM), 0);

	stored_state("alpha", buf, sizeof(buf));
	cr_assert_str_eq(buf, "draining");
	stored_state("beta", buf, sizeof(buf));
	cr_assert_str_eq(buf, "down");

	cr_assert_eq(tst_daemon_start(&td), 0, "bisectd did not restart");
	cr_assert_str_eq(host_state(0, buf, sizeof(buf)), "draining");
	cr_assert_str_eq(host_probed(1, buf, sizeof(buf)), "down");
}

/* Counts the pool's health changes; done once two hosts are decided. */
struct probed {
	int	changes;
	int	done;
};

static void
probed_cb(void *arg, const struct pool_host_info *info)
{
	struct probed *pr = arg;

	if (info->health != POOL_UNKNOWN && ++pr->changes == 2)
		pr->done = 1;
}

/*
 * Hosts start unknown and the pool probes them at once: a host that
 * answers is up, one whose key is refused is down and says why.
 */
Test(hosts, probes_decide_unknown_hosts, .init = rtest_setup,
    .fini = rtest_teardown)
{
	struct config_host hosts[2];
	struct pool *p;
	struct pool_host_info info;
	struct bd_error err;
	struct probed pr = { 0, 0 };
	char *empty;

	cr_assert_eq(sshd_start(&rtest_srv[0], "probe"), 0);
	sshd_host(&rtest_srv[0], &hosts[0], "good", "g");
	sshd_host(&rtest_srv[0], &hosts[1], "stranger", "g");
	empty = tst_write_file(rtest_tmp, "empty_known_hosts", "");
	hosts[1].known_hosts = empty;
	cr_assert_eq(pool_new(&rtest_loop, hosts, 2, 0, &p, &err), 0);
	pool_set_change_cb(p, probed_cb, &pr);
	pool_info(p, 0, &info);
	cr_assert_eq(info.health, POOL_UNKNOWN);
	rtest_run_until(&pr.done);
	pool_info(p, 0, &info);
	cr_assert_eq(info.health, POOL_UP, "%s", pool_health_name(info.health));
	pool_info(p, 1, &info);
	cr_assert_eq(info.health, POOL_DOWN, "%s",
	    pool_health_name(info.health));
	cr_assert_not_null(strstr(info.last_error, "is not in"), "%s",
	    info.last_error);
	pool_free(p);
	rtest_drain_loop();
	free(empty);
}
