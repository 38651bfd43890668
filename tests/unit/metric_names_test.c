/* SPDX-License-Identifier: MIT */
/*
 * Kernel metric names and LKP's result shape through every layer that
 * takes them without a daemon: the config (benchmark metrics, sweep
 * metric), the result parser (names, arrays of per-iteration values) and
 * the store (one sample per value, and the migration that made room).
 */
#include <criterion/criterion.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/names.h"
#include "common/xmalloc.h"
#include "config/config.h"
#include "remote/metrics.h"
#include "store/store.h"
#include "tests/support/stest.h"
#include "tests/support/tst.h"
#include "tests/unit/config_test.h"

#define IDLE	"mpstat.cpu.all.idle%"
#define CAL	"interrupts.CAL:Function_call_interrupts"
#define PERF	"perf-profile.calltrace.cycles-pp.ksys_mmap_pgoff." \
		"do_syscall_64.entry_SYSCALL_64_after_hwframe.x"

TestSuite(metric_names, .fini = tst_leak_check);

Test(metric_names, the_rule)
{
	char name[BD_METRIC_NAME_MAX + 2];

	cr_assert(bd_metric_name_valid(IDLE));
	cr_assert(bd_metric_name_valid(CAL));
	cr_assert(bd_metric_name_valid(PERF));
	cr_assert(strlen(PERF) >= 90);
	cr_assert(bd_metric_name_valid("a b"));
	memset(name, 'x', sizeof(name));
	name[BD_METRIC_NAME_MAX] = '\0';
	cr_assert(bd_metric_name_valid(name), "255 bytes");
	name[BD_METRIC_NAME_MAX] = 'x';
	name[BD_METRIC_NAME_MAX + 1] = '\0';
	cr_assert_not(bd_metric_name_valid(name), "256 bytes");
	cr_assert_not(bd_metric_name_valid(""));
	cr_assert_not(bd_metric_name_valid("a,b"));
	cr_assert_not(bd_metric_name_valid("tab\there"));
	cr_assert_not(bd_metric_name_valid("new\nline"));
	cr_assert_not(bd_metric_name_valid(" lead"));
	cr_assert_not(bd_metric_name_valid("trail "));
	cr_assert_not(bd_metric_name_valid("caf\xc3\xa9"));
}

/* The kind is what follows the last ':', the name may hold others. */
Test(metric_names, config_takes_kernel_metric_names, .init = cfgt_setup,
    .fini = cfgt_cleanup)
{
	const struct config_benchmark *b;
	const struct config_metric *m;

	cfgt_load_ok("[repo]\npath = .\n\n" HOST_A "group = g\n"
	    "roles = build,test\n\n"
	    "[benchmark lkp]\nrun = ./run\n"
	    "metrics = " IDLE ":higher, " CAL ":lower, " PERF ":lower,"
	    " plain:pass-fail\n\n"
	    "[sweep s]\nbenchmark = lkp\nmetrics = " CAL "\ngroup = g\n"
	    "tag_pattern = next-*\n");
	b = config_benchmark_find(&cfgt_cfg, "lkp");
	cr_assert_not_null(b);
	cr_assert_eq(b->nmetrics, 4);
	cr_assert_not_null(m = config_metric_find(b, IDLE));
	cr_assert_eq(m->direction, CONFIG_HIGHER_IS_BETTER);
	cr_assert_not_null(m = config_metric_find(b, CAL));
	cr_assert_eq(m->direction, CONFIG_LOWER_IS_BETTER);
	cr_assert_not_null(config_metric_find(b, PERF));
	cr_assert_null(config_metric_find(b, "interrupts.CAL"));
	cr_assert_eq(cfgt_cfg.sweeps[0].metrics.n, 1);
	cr_assert_str_eq(cfgt_cfg.sweeps[0].metrics.v[0], CAL);
}

Test(metric_names, config_refuses_what_the_rule_refuses, .init = cfgt_setup,
    .fini = cfgt_cleanup)
{
	char *text, *errs, big[300];

	memset(big, 'm', 256);
	big[256] = '\0';
	xasprintf(&text, "[benchmark b]\nrun = r\nmetrics = %s:higher\n", big);
	cr_assert_neq(cfgt_load(text), 0);
	errs = cfgt_all_errors();
	cr_assert_not_null(strstr(errs, "invalid metric name"), "%s", errs);
	cr_assert_not_null(strstr(errs, "no comma"), "%s", errs);
	free(errs);
	free(text);
}

Test(metric_names, results_with_kernel_names_and_arrays)
{
	static const char text[] = "{\"" IDLE "\": [91.5, 92, 90.25], \"" CAL
	    "\": 1234, \"" PERF "\": [0.5]}";
	struct metrics m;
	struct bd_error err;
	size_t i, nidle = 0;

	cr_assert_eq(metrics_parse(text, strlen(text), NULL, &m, &err), 0,
	    "%s", err.msg);
	cr_assert_eq(m.n, 5);
	for (i = 0; i < m.n; i++) {
		if (strcmp(m.v[i].name, IDLE) != 0)
			continue;
		cr_assert_eq(m.v[i].index, nidle);
		cr_assert_float_eq(m.v[i].value, nidle == 0 ? 91.5 : nidle == 1
		    ? 92.0 : 90.25, 1e-12);
		nidle++;
	}
	cr_assert_eq(nidle, 3);
	cr_assert_float_eq(metrics_find(&m, CAL)->value, 1234.0, 1e-12);
	cr_assert_eq(metrics_find(&m, PERF)->index, 0);
	metrics_release(&m);

	cr_assert_eq(metrics_parse("{\"x\": []}", 9, NULL, &m, &err), -EINVAL);
	cr_assert_not_null(strstr(err.msg, "empty array"), "%s", err.msg);
	cr_assert_eq(metrics_parse("{\"x\": [1, \"2\"]}", 15, NULL, &m, &err),
	    -EINVAL);
	cr_assert_not_null(strstr(err.msg, "JSON string"), "%s", err.msg);
	cr_assert_eq(metrics_parse("{\"a,b\": 1}", 10, NULL, &m, &err),
	    -EINVAL);
	cr_assert_not_null(strstr(err.msg, "not a valid metric name"), "%s",
	    err.msg);
	cr_assert_eq(m.n, 0);
}

static int
count_run_samples(void *arg, const struct store_sample *sm)
{
	struct stest_collect *c = arg;

	if (strcmp(sm->metric, c->metric) == 0 && c->n < 64) {
		c->v[c->n] = sm->value;
		c->seq[c->n] = sm->index;
		c->n++;
	}
	return 0;
}

/* One run, three values of one metric: three samples, in order. */
Test(metric_names, the_store_keeps_every_value_of_a_run, .init = stest_setup,
    .fini = stest_teardown)
{
	struct store_metric m[4] = {
		{ IDLE, 91.5, 0 }, { IDLE, 92, 1 }, { IDLE, 90.25, 2 },
		{ PERF, 7, 0 },
	};
	struct store_metric twice[2] = { { CAL, 1, 0 }, { CAL, 2, 0 } };
	struct store_run_result res = { .state = STORE_RUN_DONE };
	struct stest_collect c = { .metric = IDLE };
	struct bd_error err;
	int64_t bis, run, run2;

	stest_db = stest_open();
	bis = stest_add_bisection(stest_db, NULL, 0);
	cr_assert_eq(store_run_create(stest_db, bis, STEST_A, &run, &err), 0);
	cr_assert_eq(store_run_finish(stest_db, run, &res, m, 4, &err), 0,
	    "%s", err.msg);
	cr_assert_eq(store_sample_list(stest_db, bis, NULL, count_run_samples,
	    &c, &err), 0, "%s", err.msg);
	cr_assert_eq(c.n, 3);
	cr_assert_float_eq(c.v[0], 91.5, 1e-12);
	cr_assert_float_eq(c.v[2], 90.25, 1e-12);
	cr_assert_eq(c.seq[0], 0);
	cr_assert_eq(c.seq[2], 2);
	/* The same value index twice is still a duplicate. */
	cr_assert_eq(store_run_create(stest_db, bis, STEST_B, &run2, &err), 0);
	cr_assert_eq(store_run_finish(stest_db, run2, &res, twice, 2, &err),
	    -EEXIST);
	cr_assert_not_null(strstr(err.msg, "twice"), "%s", err.msg);
}

/* Runs SQL on a raw connection, failing the test on an error. */
static void
raw_exec(sqlite3 *db, const char *sql)
{
	char *msg = NULL;

	cr_assert_eq(sqlite3_exec(db, sql, NULL, NULL, &msg), SQLITE_OK,
	    "%s: %s", sql, msg ? msg : "");
}

/*
 * A database written by the version before per-value samples: its samples
 * come through the migration as value 0 of their run, in their order, and
 * the run can take no second sample of the same value.
 */
Test(metric_names, version_1_samples_survive_the_migration,
    .init = stest_setup, .fini = stest_teardown)
{
	struct stest_collect c = { .metric = "throughput" };
	struct bd_error err;
	sqlite3 *db;

	cr_assert_eq(sqlite3_open(stest_dbpath, &db), SQLITE_OK);
	raw_exec(db, store_migrations[0].sql);
	raw_exec(db, "PRAGMA user_version = 1;"
	    "INSERT INTO bisections (id, params, good, bad, benchmark, metric,"
	    " grp, state, created_by, created_ms, updated_ms) VALUES (1, '{}',"
	    " '[\"a\"]', 'b', 'spin', 'throughput', 'lab', 'done', 0, 1, 1);"
	    "INSERT INTO runs (id, bisection, rev, state, seq, queued_ms)"
	    " VALUES (1, 1, '" STEST_A "', 'done', 1, 1),"
	    " (2, 1, '" STEST_B "', 'done', 2, 1);"
	    "INSERT INTO samples (run, metric, value) VALUES"
	    " (2, 'throughput', 20), (1, 'throughput', 10),"
	    " (1, 'latency', 5);");
	sqlite3_close(db);

	cr_assert_eq(store_open(&stest_db, stest_dbpath, &err), 0, "%s",
	    err.msg);
	cr_assert_eq(store_schema_version(stest_db), (int)store_nmigrations);
	cr_assert_eq(store_sample_list(stest_db, 1, NULL, count_run_samples,
	    &c, &err), 0, "%s", err.msg);
	cr_assert_eq(c.n, 2);
	cr_assert_float_eq(c.v[0], 10.0, 1e-12, "runs in finish order");
	cr_assert_float_eq(c.v[1], 20.0, 1e-12);
	cr_assert_eq(c.seq[0], 0);
	cr_assert_eq(c.seq[1], 0);
	cr_assert_eq(stest_stats(stest_db, 1).samples, 3);
}
