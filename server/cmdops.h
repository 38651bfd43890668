/* SPDX-License-Identifier: MIT */
/*
 * Operational commands of the control protocol, the ones an administrator
 * uses to look after the daemon rather than to bisect: backup.
 */
#ifndef SERVER_CMDOPS_H
#define SERVER_CMDOPS_H

#include "server/cmd.h"

cmd_fn	cmdops_backup;

#endif
