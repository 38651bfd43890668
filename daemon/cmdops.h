/*
 * Operational commands of the control protocol, the ones an administrator
 * uses to look after the daemon rather than to bisect: backup.
 */
#ifndef DAEMON_CMDOPS_H
#define DAEMON_CMDOPS_H

#include "daemon/cmd.h"

cmd_fn	cmdops_backup;

#endif
