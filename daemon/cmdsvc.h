/*
 * Control commands of the bisection service (bisect, status, list, cancel,
 * log, samples, drain, undrain, watch, report): handlers of cmd.c's table;
 * their fields are declared in common/proto_cmd.c.
 */
#ifndef DAEMON_CMDSVC_H
#define DAEMON_CMDSVC_H

#include "daemon/cmd.h"

cmd_fn	cmdsvc_bisect;
cmd_fn	cmdsvc_status;
cmd_fn	cmdsvc_list;
cmd_fn	cmdsvc_cancel;
cmd_fn	cmdsvc_log;
cmd_fn	cmdsvc_samples;
cmd_fn	cmdsvc_drain;
cmd_fn	cmdsvc_undrain;
cmd_fn	cmdsvc_watch;
cmd_fn	cmdsvc_report;

#endif
