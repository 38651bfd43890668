/* SPDX-License-Identifier: MIT */
/*
 * The steps of one sample: build, relay, install, reboot, boot, run and
 * collect, for one (benchmark, commit) on leased hosts.
 *
 * Before the first run of a benchmark on a test host, its describe
 * command (if any) runs there once; the output goes to the cache's
 * describe hook, and a describe that fails does not fail the run.
 *
 * Commands come from the benchmark's templates with {commit}, {short},
 * {workdir}, {host}, {run_id} and {artifact} substituted as single-quoted
 * shell words.  Each phase logs to LOG_DIR/RUN_ID-PHASE.log.
 *
 * Every sample comes from the artifact built for its commit: after a build
 * the artifact's bytes are kept on the build host as
 * {workdir}/.bisectd/artifacts/SHA256 (the cache records that path and
 * hash), copied to the test host when it is another one that does not
 * keep a copy with that hash already, and checked there against the hash
 * before install; then {artifact} on the test host holds those checked
 * bytes (put back from the kept copy when a later build wrote the same
 * path) for install, boot_check and run; the cache then lists the test
 * host as keeping the artifact too.  A copy that is gone or has other
 * bytes is forgotten for the host it came from and rebuilt (at once when
 * the test host can build), never run.
 * The run's exit code 75 (EX_TEMPFAIL) is STEP_RETRY: try again, elsewhere
 * if there is another host.
 *
 * The outcome is typed so the caller can tell the commit's fault from the
 * fleet's: STEP_FAILED (the build, install or benchmark failed, or its
 * result is not valid: the commit is skipped) is recorded, while
 * STEP_INFRA (connection lost or refused, boot timeout, relay failure) and
 * STEP_TIMEOUT (a command ran past its timeout) are retried on another host
 * and never recorded as benchmark results.
 */
#ifndef REMOTE_STEP_H
#define REMOTE_STEP_H

#include <stdbool.h>
#include <stdint.h>

#include <uv.h>

#include "common/error.h"
#include "config/config.h"
#include "remote/cache.h"
#include "remote/metrics.h"
#include "remote/ssh.h"

#define STEP_TAIL_MAX		65536	/* stdout kept for the result line */
#define STEP_RESULT_MAX		(1024 * 1024)
#define STEP_DESCRIBE_MAX	4096	/* of a describe command's output */
#define STEP_DESCRIBE_TIMEOUT_MS (2 * 60 * 1000)

enum step_outcome {
	STEP_OK = 0,
	STEP_FAILED,		/* the commit's fault: record, skip */
	STEP_INFRA,		/* the fleet's fault: retry elsewhere */
	STEP_TIMEOUT,		/* a command hung: retry elsewhere */
	STEP_CANCELLED,
	STEP_RETRY,		/* the run asked to be tried again (exit 75) */
};

enum step_phase {
	STEP_PHASE_BUILD = 0,
	STEP_PHASE_RELAY,
	STEP_PHASE_INSTALL,
	STEP_PHASE_REBOOT,
	STEP_PHASE_BOOT,
	STEP_PHASE_RUN,
	STEP_PHASE_COLLECT,
	STEP_PHASE_DONE,
};

struct step_host {
	const struct config_host *cfg;
	struct ssh_conn		 *conn;
};

/* The strings are copied; bench, the host configs and conns must outlive
 * the step. */
struct step_spec {
	/* Timeouts as the config gives them (0: none; boot needs one). */
	const struct config_benchmark *bench;
	const char		*commit;
	const char		*tree;		/* see backend_spec; NULL */
	const char		*run_id;
	const char		*group;
	const char		*log_dir;	/* NULL: no logs */
	struct step_host	 test;
	struct step_host	 build;		/* unused on a cache hit */
	struct step_host	 cached;	/* conn NULL: no cache hit */
	const char		*cached_artifact;
	const char		*cached_sha256;	/* the kept artifact's */
	const struct cache	*cache;		/* builds recorded here; NULL ok */
	uint64_t		 connect_wait_ms;
	uint64_t		 kill_grace_ms;	/* 0: the exec default */
	uint64_t		 boot_retry_ms;	/* 0: the boot default */
	/* Only the build (and its checksum): STEP_OK once the artifact is
	 * there, for a lab that runs it.  test is the build host. */
	bool			 build_only;
	/* Called once the commit's build is cached (or failed), while the
	 * step goes on; may be NULL. */
	void			(*built)(void *arg);
	void			*built_arg;
	/* Told when a phase starts its work and on which host (the build
	 * host for the build), for status views; may be NULL. */
	void			(*phase_cb)(void *arg, enum step_phase phase,
				    const char *host);
	void			*phase_arg;
};

/* Valid only during the callback. */
struct step_result {
	enum step_outcome	 outcome;
	enum step_phase		 phase;		/* where it ended */
	const char		*host;		/* blamed for INFRA/TIMEOUT */
	struct bd_error		 err;
	struct metrics		 metrics;	/* STEP_OK only */
	bool			 built;		/* false: the cache had it */
	const char		*artifact;	/* build_only: its path, or NULL */
	bool			 power_cycled;
	/* An artifact copy to the test host ran: how, and whether it
	 * failed (err says why). */
	bool			 copied, copy_via_exec, copy_failed;
};

struct step;
typedef void step_done_cb(void *arg, const struct step_result *r);

const char *step_outcome_name(enum step_outcome o);
const char *step_phase_name(enum step_phase p);
/* INFRA, TIMEOUT and RETRY: another host (or attempt) may succeed. */
bool	 step_outcome_retryable(enum step_outcome o);

/*
 * Starts the steps; cb is called exactly once, never from inside
 * step_start.  Returns 0 or negative errno with err set.
 */
int	 step_start(uv_loop_t *loop, const struct step_spec *spec,
	    step_done_cb *cb, void *arg, struct step **out,
	    struct bd_error *err);
/* Kills whatever runs remotely; cb follows with STEP_CANCELLED. */
void	 step_cancel(struct step *s);

#endif
