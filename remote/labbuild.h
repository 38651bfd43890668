/* SPDX-License-Identifier: MIT */
/*
 * A lab group whose commits are built on SSH build hosts first ([lab]
 * build_group): a backend over two others, the builder (an SSH backend
 * for builds only, backend_ssh_build_new) and the lab (remote/lava.h).
 *
 * A run first looks in the build cache under (build_group, benchmark,
 * commit, build config).  On a miss the builder builds the commit on a
 * build host of build_group; runs of the same build that arrive meanwhile
 * wait for that one build instead of starting another, so a commit is
 * built once.  Then the run goes to the lab with the artifact's path and
 * build host, which the lab's artifact_url template turns into the URL the
 * job fetches ({artifact_url}).  bisectd serves no file: the build
 * command leaves the artifact at the benchmark's artifact path, which the
 * team's file server (or NFS) serves.
 *
 * A failed build is recorded as the run's result (STEP_FAILED, phase
 * build: the commit is skipped) and no lab job is made.  A build host
 * lost or unreachable is retried by the builder on another build host;
 * when that runs out, the run ends with STEP_INFRA and records nothing.
 * A benchmark with no build command goes to the lab at once.
 */
#ifndef REMOTE_LABBUILD_H
#define REMOTE_LABBUILD_H

#include "remote/backend.h"

/*
 * The backend of a lab group: builder is owned (freed with it), lab is
 * borrowed and outlives it; build_group is copied.  Freed with its ops'
 * free once no run is left.
 */
struct backend *labbuild_new(struct backend *builder, const char *build_group,
	    struct backend *lab);

#endif
