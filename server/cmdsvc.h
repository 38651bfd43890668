/* SPDX-License-Identifier: MIT */
/*
 * Control commands of the bisection service (bisect, status, list, cancel,
 * log, samples, drain, undrain, watch, report): handlers of cmd.c's table;
 * their fields are declared in common/proto_cmd.c.
 */
#ifndef SERVER_CMDSVC_H
#define SERVER_CMDSVC_H

#include "server/cmd.h"

/* Different good revisions one bisect request may name. */
#define CMDSVC_GOOD_MAX		64
/* The range of a bisection's priority (docs/protocol.md says so too). */
#define CMDSVC_PRIORITY_MIN	(-1000000)
#define CMDSVC_PRIORITY_MAX	1000000

cmd_fn	cmdsvc_bisect;
cmd_fn	cmdsvc_status;
cmd_fn	cmdsvc_list;
cmd_fn	cmdsvc_cancel;
/* Measures a culprit on another host group (sched/confirm.h). */
cmd_fn	cmdsvc_verify;
cmd_fn	cmdsvc_log;
cmd_fn	cmdsvc_samples;
cmd_fn	cmdsvc_drain;
cmd_fn	cmdsvc_undrain;
cmd_fn	cmdsvc_watch;
cmd_fn	cmdsvc_report;

#endif
