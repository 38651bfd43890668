/* SPDX-License-Identifier: MIT */
/*
 * The bisection service fixture shared by the end-to-end suites: sshd
 * "hosts" on loopback, the kernel-like fixture repository with a planted
 * slowdown (tests/fixtures/e2e/make-repo.sh), a benchmark that compiles and
 * runs a C program at each commit, and the real daemon on top.
 *
 * One fixture per test worker (the global svc); svc_fini releases all of
 * it and is the suites' .fini, so a failed assertion still cleans up.
 */
#ifndef TESTS_SUPPORT_SVC_H
#define TESTS_SUPPORT_SVC_H

#include <stddef.h>
#include <stdint.h>

#include <jansson.h>

#include "tests/support/daemon.h"
#include "tests/support/sshd.h"

#define SVC_WAIT_MS	(300 * 1000)	/* a guard against hangs, not a timing check */

struct svc {
	struct sshd	 host[2];
	int		 nhosts;
	char		*dir;
	char		*repo;
	char		 good[41], bad[41], culprit[41], culprit2[41];
	struct tst_daemon td;
	int		 td_ready;
};

extern struct svc svc;

/* The commits a fixture generator prints ("good SHA", "bad SHA", ...). */
struct svc_ids {
	char	good[41], bad[41], culprit[41], culprit2[41];
};

/*
 * Runs tests/fixtures/e2e/SCRIPT REPO A1 A2 A3 (NULL ends the arguments)
 * and reads the commits it printed into ids; fails the test otherwise.
 */
void	 svc_generate(const char *script, const char *repo, const char *a1,
	    const char *a2, const char *a3, struct svc_ids *ids);
void	 svc_fini(void);
/* The repository (plant "topic:commit", broken commits), hosts, daemon. */
void	 svc_setup(const char *tag, int nhosts, const char *plant, int broken);
/*
 * The same with the verification fixture (make-verify-repo.sh DIR CASE)
 * and extra keys of [benchmark spin] (NULL: none).
 */
void	 svc_setup_case(const char *tag, int nhosts, const char *fixture,
	    const char *extra_bench);
/* The fixture script (tests/fixtures/e2e) makes for fixture, served. */
void	 svc_setup_script(const char *tag, int nhosts, const char *script,
	    const char *fixture, const char *extra_bench, char *(*more)(void));
/* svc_setup_case with more()'s sections, as svc_setup_with. */
void	 svc_setup_case_with(const char *tag, int nhosts, const char *fixture,
	    char *(*more)(void));
/*
 * As svc_setup, with more()'s sections (caller frees: more allocates)
 * added to the file; more runs once the repository and svc.dir exist.
 */
/* As svc_setup, with extra_bench's lines in [benchmark spin]. */
void	 svc_setup_bench(const char *tag, int nhosts, const char *plant,
	    const char *extra_bench);
void	 svc_setup_with(const char *tag, int nhosts, const char *plant,
	    int broken, char *(*more)(void));
/* The [repo], [benchmark spin] and [host] sections (caller frees). */
char	*svc_sections(const char *extra_bench);
/*
 * The same for repo and hosts[0..nhosts-1] (workdirs under dir), with
 * extra_host's lines ("" for none) in every [host].
 */
char	*svc_sections_for(const char *repo, const char *extra_bench,
	    const struct sshd *hosts, int nhosts, const char *dir,
	    const char *extra_host);
/* One request (printf format) and its parsed reply; caller decrefs. */
json_t	*svc_req(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
json_t	*svc_host(const char *name);
const char *svc_host_state(const char *name);
/*
 * A bisection of good..bad on benchmark bench (existing, when not NULL,
 * says whether an identical one was returned); svc_bisect_range is on
 * "spin", svc_bisect on the fixture's own range.
 */
int64_t	 svc_bisect_on(const char *bench, const char *good, const char *bad,
	    const char *metric, int *existing);
int64_t	 svc_bisect_range(const char *good, const char *bad,
	    const char *metric, int *existing);
int64_t	 svc_bisect(const char *metric, int *existing);
json_t	*svc_status(int64_t id);
/* The ids of the bisections status b's verification started (borrowed). */
json_t	*svc_children(json_t *b);
/*
 * Runs ended, in any way, in the bisection of status b and in the
 * bisections its verification started: while the children bisect the
 * sub-ranges the parent's own runs stand still, so a guard against a
 * stuck bisection counts both.
 */
int64_t	 svc_runs_ended(json_t *b);
/*
 * "; child {status}" for each bisection b's verification started, for a
 * stuck test's message ("" when none).  Caller frees.
 */
char	*svc_children_text(json_t *b);
json_t	*svc_wait(int64_t id);
/* Until no run of id is in flight or running (after a cancel). */
void	 svc_wait_quiet(int64_t id);
void	 svc_assert_culprit(json_t *b);
size_t	 svc_assert_samples_consistent(int64_t id);
void	 svc_assert_hook_ran(void);
/*
 * The report hook's `env` dump once the hook has run (caller frees); the
 * test fails when it does not run within SVC_WAIT_MS.
 */
char	*svc_hook_env(void);
/*
 * Shell words (a static string, such as " && sleep 60") the report hook
 * of the next svc_setup runs in svc.dir after it has written hook.txt and
 * hook.env, and its report_hook_timeout (NULL: the default); svc_fini
 * forgets both.
 */
void	 svc_set_hook(const char *tail, const char *timeout);
/*
 * The hosts of the next svc_setup in mask (bit i: host i) run an sshd
 * without the SFTP subsystem; svc_fini forgets it.
 */
void	 svc_set_nosftp(unsigned mask);
/*
 * Stops the daemon (if it runs) and starts it again on the fixture's
 * sections plus more (NULL: none), with the same database.
 */
void	 svc_restart(const char *more);
/*
 * Host i has roles ("build", "test" or "build,test") in every config
 * written from now on (svc_setup, svc_sections); svc_fini forgets it.
 */
void	 svc_set_roles(int i, const char *roles);
/* Once every job has ended: no store refusal was logged at the end. */
void	 svc_assert_ended_quietly(void);

#endif
