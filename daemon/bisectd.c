/* SPDX-License-Identifier: MIT */
/*
 * bisectd: loads and checks the configuration, detaches unless -f, then
 * runs the daemon's loop until SIGINT or SIGTERM.
 */
#include <getopt.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/error.h"
#include "config/config.h"
#include "daemon/daemon.h"
#include "daemon/notify.h"
#include "common/log.h"
#include "common/proto.h"

/* Usage errors exit 64 (EX_USAGE), distinct from configuration errors. */
static void __attribute__((noreturn))
usage(void)
{
	fprintf(stderr, "usage: bisectd [-fnV] [-c config] [--version]\n");
	exit(64);
}

/* -n and a failed start both print every error, never just the first. */
static int
load_config(struct config *cfg, const char *path)
{
	struct config_errors errs = { NULL, 0 };
	size_t i;
	int rc;

	rc = config_load(cfg, path, &errs);
	for (i = 0; i < errs.n; i++)
		fprintf(stderr, "%s\n", errs.msgs[i]);
	config_errors_release(&errs);
	return rc;
}

/* Order matters: config, then detach, then resources, then the loop. */
int
main(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "version", no_argument, NULL, 'V' },
		{ NULL, 0, NULL, 0 }
	};
	const char *path = CONFIG_DEFAULT_PATH;
	struct config cfg;
	struct daemon d;
	struct bd_error err;
	int ch, foreground = 0, check = 0, ready = -1, rc;

	notify_init();
	while ((ch = getopt_long(argc, argv, "c:fnV", longopts,
	    NULL)) != -1) {
		switch (ch) {
		case 'c':
			path = optarg;
			break;
		case 'f':
			foreground = 1;
			break;
		case 'n':
			check = 1;
			break;
		case 'V':
			printf("bisectd %s (protocol %d)\n", BISECTD_VERSION,
			    PROTO_VERSION);
			return 0;
		default:
			usage();
		}
	}
	if (optind != argc)
		usage();

	config_init(&cfg);
	if (load_config(&cfg, path) < 0) {
		config_release(&cfg);
		return CONFIG_EX_CONFIG;
	}
	if (check) {
		bd_error_clear(&err);
		if (daemon_config_check(&cfg, &err) < 0) {
			fprintf(stderr, "%s\n", err.msg);
			config_release(&cfg);
			return CONFIG_EX_CONFIG;
		}
		printf("configuration OK\n");
		config_release(&cfg);
		return 0;
	}

	signal(SIGPIPE, SIG_IGN);
	daemon_signals_block();
	log_init("bisectd", 1, (enum log_level)cfg.daemon.log_level);
	bd_error_clear(&err);
	if (!foreground && (ready = daemon_detach_begin(&err)) < 0) {
		log_fatalx("cannot start: %s", err.msg);
		config_release(&cfg);
		return 1;
	}
	rc = daemon_init(&d, path, &cfg, &err);
	if (rc < 0) {
		log_fatalx("cannot start: %s", err.msg);
		daemon_release(&d);
		return 1;
	}
	if (!foreground)
		daemon_detach_finish(ready, "bisectd", d.cfg.daemon.log_level);
	/* Listening, migrated and replayed: clients may connect now. */
	if (notify_send("READY=1") < 0)
		log_warnx("cannot notify the service manager");
	daemon_run(&d);
	daemon_release(&d);
	log_info("bisectd stopped");
	return 0;
}
