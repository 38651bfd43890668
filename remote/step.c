/* SPDX-License-Identifier: MIT */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/xmalloc.h"
#include "remote/boot.h"
#include "remote/exec.h"
#include "remote/quote.h"
#include "remote/relay.h"
#include "remote/step.h"

struct step {
	uv_loop_t		*loop;
	struct step_spec	 spec;		/* strings below are copies */
	char			*commit, *run_id, *group, *log_dir;
	char			*tree;		/* NULL: not given */
	char			*cached_artifact;
	char			*sum;		/* sha256 of the kept artifact */
	int			 rebuilt;	/* a stale copy was rebuilt once */
	int			 told;		/* last phase told, -1: none */
	step_done_cb		*cb;
	void			*arg;
	enum step_phase		 phase;
	uv_timer_t		 timer;		/* defers the first phase */
	struct exec		*ex;
	struct relay		*rl;
	struct boot		*bt;
	int			 cancelled, finished;
	char			*art_build, *art_test;
	struct ssh_conn		*src;		/* who holds the artifact */
	const char		*src_art;
	const char		*src_name;
	struct cache_key	 key;
	char			*tail;		/* run's stdout tail */
	size_t			 tail_len;
	bool			 tail_truncated;
	int			 described;	/* describe ran or was known */
	struct step_result	 res;
};

static const char *const step_outcome_names[] = {
	"ok", "failed", "infrastructure", "timeout", "cancelled", "retry",
};

/* The exit codes of the keep script below; 75 is the run's contract. */
#define STEP_EXIT_MISMATCH	65
#define STEP_EXIT_MISSING	66
#define STEP_EXIT_TEMPFAIL	75
#define STEP_KEEP_DIR		".bisectd/artifacts"

/*
 * Keeps file F under D named by its sha256 (checked against E first when E
 * is not empty), marks it used and drops all but the N most recently used;
 * then, when O is not empty, puts those bytes at O (where install and run
 * find {artifact}, next to whatever else the build left there).  Kept
 * names are hex digits only, so the loop reads them safely.
 */
#define STEP_KEEP_SCRIPT \
    "set -e; f=%s; d=%s; e=%s; n=%u; o=%s; " \
    "test -f \"$f\" || exit 66; " \
    "s=$(sha256sum < \"$f\" | cut -c1-64); " \
    "if [ -n \"$e\" ] && [ \"$s\" != \"$e\" ]; then " \
    "echo \"$s\"; exit 65; fi; " \
    "mkdir -p -- \"$d\"; " \
    "if [ \"$f\" != \"$d/$s\" ]; then t=\"$d/.$s.$$\"; " \
    "cp -- \"$f\" \"$t\"; mv -f -- \"$t\" \"$d/$s\"; fi; " \
    "touch -- \"$d/$s\"; " \
    "ls -t \"$d\" | tail -n +$((n + 1)) | " \
    "while read -r x; do rm -f -- \"$d/$x\"; done; " \
    "if [ -n \"$o\" ] && [ \"$o\" != \"$f\" ]; then " \
    "mkdir -p -- \"$(dirname -- \"$o\")\"; " \
    "cp -- \"$d/$s\" \"$o.bisectd-part\"; " \
    "mv -f -- \"$o.bisectd-part\" \"$o\"; fi; " \
    "echo \"$s\""

static const char *const step_phase_names[] = {
	"build", "relay", "install", "reboot", "boot", "run", "collect",
	"done",
};

static void	step_next(struct step *);
static void	step_built(struct step *);
static void	step_build(struct step *);
static int	step_artifact(struct step *, const struct step_host *,
		    char **, struct bd_error *);

/* Names for logs, events and the store. */
const char *
step_outcome_name(enum step_outcome o)
{
	return (unsigned)o < sizeof(step_outcome_names) /
	    sizeof(step_outcome_names[0]) ? step_outcome_names[o] : "?";
}

/* Names for logs and per-phase log files. */
const char *
step_phase_name(enum step_phase p)
{
	return (unsigned)p < sizeof(step_phase_names) /
	    sizeof(step_phase_names[0]) ? step_phase_names[p] : "?";
}

/* The fleet's faults are worth another host, the commit's are not. */
bool
step_outcome_retryable(enum step_outcome o)
{
	return o == STEP_INFRA || o == STEP_TIMEOUT || o == STEP_RETRY;
}

/* The timer is closed: the step can go. */
static void
step_freed(uv_handle_t *h)
{
	struct step *s = h->data;

	free(s->commit);
	free(s->tree);
	free(s->run_id);
	free(s->group);
	free(s->log_dir);
	free(s->cached_artifact);
	free(s->sum);
	free(s->art_build);
	free(s->art_test);
	free(s->tail);
	metrics_release(&s->res.metrics);
	free(s);
}

static void	step_finish(struct step *, enum step_outcome, const char *,
		    const char *, ...) __attribute__((format(printf, 4, 5)));

/*
 * The single exit: report, then free once the timer handle is closed.  A
 * cancelled step reports STEP_CANCELLED whatever its last phase did.
 */
static void
step_finish(struct step *s, enum step_outcome o, const char *host,
    const char *fmt, ...)
{
	va_list ap;

	if (s->finished)
		return;
	s->finished = 1;
	step_built(s);
	s->res.outcome = s->cancelled && o != STEP_OK ? STEP_CANCELLED : o;
	s->res.phase = s->phase;
	s->res.host = host;
	if (fmt != NULL) {
		s->res.err.code = o == STEP_OK ? 0 : -EIO;
		va_start(ap, fmt);
		vsnprintf(s->res.err.msg, sizeof(s->res.err.msg), fmt, ap);
		va_end(ap);
	}
	s->cb(s->arg, &s->res);
	uv_close((uv_handle_t *)&s->timer, step_freed);
}

/* Per-phase log file, or NULL when the caller keeps no logs. */
static char *
step_log(struct step *s)
{
	char *p;

	if (s->log_dir == NULL)
		return NULL;
	xasprintf(&p, "%s/%s-%s.log", s->log_dir, s->run_id,
	    step_phase_name(s->phase));
	return p;
}

/* Expands tmpl for host h; a template error is the configuration's. */
static char *
step_expand(struct step *s, const char *tmpl, const struct step_host *h,
    const char *artifact, enum quote_mode mode)
{
	struct quote_vars v;
	struct bd_error err;
	char *out;

	memset(&v, 0, sizeof(v));
	v.commit = s->commit;
	v.workdir = h->cfg->workdir;
	v.host = h->cfg->name;
	v.run_id = s->run_id;
	v.artifact = artifact;
	if (quote_expand(tmpl, &v, mode, &out, &err) != 0) {
		step_finish(s, STEP_FAILED, NULL, "%s: %s",
		    step_phase_name(s->phase), err.msg);
		return NULL;
	}
	return out;
}

/*
 * Maps how a command ended to the step's outcome.  Returns 0 when it
 * succeeded and the next phase may run; otherwise the step is finished.
 */
static int
step_judge(struct step *s, const struct step_host *h,
    const struct exec_result *r)
{
	const char *what = step_phase_name(s->phase);
	char how[BD_ERROR_MAX];

	exec_describe(r, how, sizeof(how));
	switch (r->status) {
	case EXEC_EXITED:
		if (r->exit_code == 0)
			return 0;
		if (r->exit_code == STEP_EXIT_TEMPFAIL &&
		    s->phase == STEP_PHASE_RUN) {
			step_finish(s, STEP_RETRY, h->cfg->name, "%s on %s %s: "
			    "asks to be tried again", what, h->cfg->name, how);
			break;
		}
		/* FALLTHROUGH */
	case EXEC_SIGNALED:
		step_finish(s, STEP_FAILED, NULL, "%s on %s %s", what,
		    h->cfg->name, how);
		break;
	case EXEC_TIMEOUT:
		step_finish(s, STEP_TIMEOUT, h->cfg->name, "%s on %s %s", what,
		    h->cfg->name, how);
		break;
	case EXEC_CANCELLED:
		step_finish(s, STEP_CANCELLED, NULL, "%s cancelled", what);
		break;
	case EXEC_LOST:
		step_finish(s, STEP_INFRA, h->cfg->name, "%s: %s", what, how);
		break;
	case EXEC_ERROR:
		step_finish(s, STEP_INFRA, NULL, "%s: %s", what, how);
		break;
	}
	return -1;
}

/* Tells the caller once per phase that it works now, and where. */
static void
step_tell(struct step *s, const struct step_host *h)
{
	if (s->spec.phase_cb == NULL || s->told == (int)s->phase)
		return;
	s->told = (int)s->phase;
	s->spec.phase_cb(s->spec.phase_arg, s->phase, h->cfg->name);
}

/* Starts cmd on h in its workdir; done continues the pipeline. */
static void
step_exec(struct step *s, const struct step_host *h, char *cmd,
    uint64_t timeout_ms, size_t tail, exec_done_cb *done)
{
	struct exec_opts o;
	struct bd_error err;
	char *log = step_log(s);

	step_tell(s, h);

	memset(&o, 0, sizeof(o));
	o.command = cmd;
	o.cwd = h->cfg->workdir;
	o.log_path = log;
	o.log_max = (uint64_t)s->spec.bench->log_max_kib * 1024;
	o.timeout_ms = timeout_ms;
	o.kill_grace_ms = s->spec.kill_grace_ms;
	o.connect_wait_ms = s->spec.connect_wait_ms;
	o.tail_max = tail;
	if (exec_start(h->conn, &o, done, s, &s->ex, &err) != 0)
		step_finish(s, STEP_INFRA, NULL, "%s: %s",
		    step_phase_name(s->phase), err.msg);
	free(log);
	free(cmd);
}

/*
 * The keep script for file on h: checked against expect (NULL: anything),
 * kept by its hash under the host's workdir and, when out is not NULL,
 * put at out.
 */
static char *
step_keep_cmd(struct step *s, const struct step_host *h, const char *file,
    const char *expect, const char *out)
{
	char *dir, *qf, *qd, *qe, *qo, *cmd;

	xasprintf(&dir, "%s/" STEP_KEEP_DIR, h->cfg->workdir);
	qf = quote_shell(file);
	qd = quote_shell(dir);
	qe = quote_shell(expect ? expect : "");
	qo = quote_shell(out ? out : "");
	xasprintf(&cmd, STEP_KEEP_SCRIPT, qf, qd, qe,
	    s->spec.bench->artifact_keep ? s->spec.bench->artifact_keep : 16,
	    qo);
	free(dir);
	free(qf);
	free(qd);
	free(qe);
	free(qo);
	return cmd;
}

/* The kept copy's path on h for the hash in s->sum. */
static char *
step_kept_path(struct step *s, const struct step_host *h)
{
	char *p;

	xasprintf(&p, "%s/" STEP_KEEP_DIR "/%s", h->cfg->workdir, s->sum);
	return p;
}

/* 64 lowercase hex digits at the start of a command's output, or NULL. */
static char *
step_parse_sum(const struct exec_result *r)
{
	size_t i;

	if (r->tail == NULL || r->tail_len < 64)
		return NULL;
	for (i = 0; i < 64; i++)
		if (r->tail[i] == '\0' ||
		    strchr("0123456789abcdef", r->tail[i]) == NULL)
			return NULL;
	return xstrndup(r->tail, 64);
}

/* The build's caller may let runs that waited for it go on. */
static void
step_built(struct step *s)
{
	if (s->spec.built != NULL) {
		s->spec.built(s->spec.built_arg);
		s->spec.built = NULL;
	}
}

/*
 * The built artifact is kept by its hash; only then is the build cached,
 * with that copy's path and hash, so a later build writing the same
 * artifact path cannot change what the cache names.
 */
static void
step_on_keep(void *arg, const struct exec_result *r)
{
	struct step *s = arg;
	const struct step_host *h = &s->spec.build;

	s->ex = NULL;
	if (r->status == EXEC_EXITED && r->exit_code == STEP_EXIT_MISSING) {
		step_finish(s, STEP_FAILED, NULL, "build on %s left no "
		    "artifact at %s", h->cfg->name, s->art_build);
		return;
	}
	if (step_judge(s, h, r) != 0)
		return;
	free(s->sum);
	if ((s->sum = step_parse_sum(r)) == NULL) {
		step_finish(s, STEP_INFRA, h->cfg->name, "build: keeping the "
		    "artifact on %s printed no sha256", h->cfg->name);
		return;
	}
	free(s->art_build);
	s->art_build = step_kept_path(s, h);
	s->src_art = s->art_build;
	cache_store(s->spec.cache, &s->key, h->cfg->name, s->art_build,
	    s->sum);
	step_built(s);
	s->phase = STEP_PHASE_RELAY;
	step_next(s);
}

/*
 * The checksum joins the cached build of a lab's builder: a culprit built
 * the same bytes as its parent is a no-op.  Not getting one is no failure.
 */
static void
step_on_checksum(void *arg, const struct exec_result *r)
{
	struct step *s = arg;
	char *sum;

	s->ex = NULL;
	if (r->status == EXEC_CANCELLED) {
		step_finish(s, STEP_CANCELLED, NULL, "build cancelled");
		return;
	}
	if (r->status == EXEC_EXITED && r->exit_code == 0 &&
	    (sum = step_parse_sum(r)) != NULL) {
		cache_checksum(s->spec.cache, &s->key, sum);
		free(sum);
	}
	s->phase = STEP_PHASE_RELAY;
	step_next(s);
}

/*
 * A finished build: a lab's builder caches the artifact where the build
 * left it, a run keeps it by its hash first (step_on_keep).
 */
static void
step_on_build(void *arg, const struct exec_result *r)
{
	struct step *s = arg;
	char *cmd;

	s->ex = NULL;
	if (step_judge(s, &s->spec.build, r) != 0)
		return;
	s->res.built = true;
	if (s->spec.bench->artifact != NULL && s->art_build != NULL &&
	    !s->spec.build_only) {
		cmd = step_keep_cmd(s, &s->spec.build, s->art_build, NULL,
		    NULL);
		step_exec(s, &s->spec.build, cmd,
		    s->spec.bench->build_timeout_ms, 256, step_on_keep);
		return;
	}
	cache_store(s->spec.cache, &s->key, s->spec.build.cfg->name,
	    s->art_build, NULL);
	step_built(s);
	if (s->spec.bench->artifact != NULL && s->art_build != NULL &&
	    (cmd = step_expand(s, "sha256sum -- {artifact}", &s->spec.build,
	    s->art_build, QUOTE_SHELL)) != NULL) {
		step_exec(s, &s->spec.build, cmd, s->spec.bench->build_timeout_ms,
		    256, step_on_checksum);
		return;
	}
	if (!s->finished) {
		s->phase = STEP_PHASE_RELAY;
		step_next(s);
	}
}

/*
 * The test host's copy is not the artifact built for the commit (gone, or
 * other bytes): the cache forgets the copy it came from (the test host's
 * own, or the one relayed) and the commit is taken from another host that
 * keeps it or built again, here when the test host can build, else by the
 * retry.  Never run.
 */
static void
step_stale(struct step *s, const char *why)
{
	struct bd_error err;

	cache_forget(s->spec.cache, &s->key, s->src_name);
	if (s->rebuilt || s->spec.bench->build == NULL ||
	    !(s->spec.test.cfg->roles & CONFIG_ROLE_BUILD)) {
		step_finish(s, STEP_INFRA, s->src_name, "%s", why);
		return;
	}
	s->rebuilt = 1;
	s->spec.cached.conn = NULL;
	s->spec.build = s->spec.test;
	free(s->art_build);
	if (step_artifact(s, &s->spec.build, &s->art_build, &err) != 0) {
		step_finish(s, STEP_FAILED, NULL, "build: %s", err.msg);
		return;
	}
	s->phase = STEP_PHASE_BUILD;
	step_build(s);
}

/*
 * The test host keeps the checked bytes by their hash: the cache lists it
 * as holding the commit's artifact, so it needs no copy next time, and
 * can serve the commit when the build host cannot.
 */
static void
step_held(struct step *s)
{
	char *kept;

	if (s->sum == NULL)
		return;
	kept = step_kept_path(s, &s->spec.test);
	cache_hold(s->spec.cache, &s->key, s->spec.test.cfg->name, kept,
	    s->sum);
	free(kept);
}

/* The test host's {artifact} holds the checked bytes: install may go. */
static void
step_on_verify(void *arg, const struct exec_result *r)
{
	struct step *s = arg;
	char why[BD_ERROR_MAX];

	s->ex = NULL;
	if (r->status == EXEC_EXITED && (r->exit_code == STEP_EXIT_MISSING ||
	    r->exit_code == STEP_EXIT_MISMATCH)) {
		if (r->exit_code == STEP_EXIT_MISSING)
			snprintf(why, sizeof(why), "relay: the artifact of %.12s "
			    "on %s is gone", s->commit, s->spec.test.cfg->name);
		else
			snprintf(why, sizeof(why), "relay: the artifact of %.12s "
			    "on %s has sha256 %.64s, not %s", s->commit,
			    s->spec.test.cfg->name, r->tail ? r->tail : "?",
			    s->sum);
		step_stale(s, why);
		return;
	}
	if (step_judge(s, &s->spec.test, r) != 0)
		return;
	step_held(s);
	s->phase = STEP_PHASE_INSTALL;
	step_next(s);
}

/*
 * Checks the artifact on the test host against the hash recorded when it
 * was built, and keeps it there by that hash.
 */
static void
step_verify(struct step *s)
{
	const char *file;

	if (s->sum == NULL || s->src_art == NULL || s->art_test == NULL) {
		s->phase = STEP_PHASE_INSTALL;
		step_next(s);
		return;
	}
	file = s->src == s->spec.test.conn ? s->src_art : s->art_test;
	step_exec(s, &s->spec.test, step_keep_cmd(s, &s->spec.test, file,
	    s->sum, s->art_test), s->spec.bench->install_timeout_ms, 256,
	    step_on_verify);
}

/* A vanished cached artifact is forgotten so the retry rebuilds it. */
static void
step_on_relay(void *arg, const struct relay_result *r)
{
	struct step *s = arg;
	const char *host;

	s->rl = NULL;
	s->res.copied = r->rc != -ECANCELED;
	s->res.copy_via_exec = r->via_exec;
	s->res.copy_failed = r->rc != 0 && r->rc != -ECANCELED;
	if (r->rc == 0) {
		step_verify(s);
		return;
	}
	if (r->rc == -ECANCELED) {
		step_finish(s, STEP_CANCELLED, NULL, "relay cancelled");
		return;
	}
	host = r->failed == RELAY_SRC ? s->src_name : s->spec.test.cfg->name;
	/* A vanished artifact is rebuilt by the retry. */
	if (r->failed == RELAY_SRC && r->rc == -ENOENT)
		cache_forget(s->spec.cache, &s->key, s->src_name);
	step_finish(s, STEP_INFRA, host, "relay: %s", r->err.msg);
}

/* Installed: reboot next, if the benchmark reboots. */
static void
step_on_install(void *arg, const struct exec_result *r)
{
	struct step *s = arg;

	s->ex = NULL;
	if (step_judge(s, &s->spec.test, r) != 0)
		return;
	s->phase = STEP_PHASE_REBOOT;
	step_next(s);
}

/* The host may drop us while rebooting: only a cancel stops the step. */
static void
step_on_reboot(void *arg, const struct exec_result *r)
{
	struct step *s = arg;

	s->ex = NULL;
	if (r->status == EXEC_CANCELLED || s->cancelled) {
		step_finish(s, STEP_CANCELLED, NULL, "reboot cancelled");
		return;
	}
	ssh_disconnect(s->spec.test.conn, "host is rebooting");
	s->phase = STEP_PHASE_BOOT;
	step_next(s);
}

/* The host is back with the expected kernel, or it is a boot timeout. */
static void
step_on_boot(void *arg, const struct boot_result *r)
{
	struct step *s = arg;

	s->bt = NULL;
	s->res.power_cycled = r->power_cycled;
	if (r->rc == -ECANCELED)
		step_finish(s, STEP_CANCELLED, NULL, "boot wait cancelled");
	else if (r->rc != 0)
		step_finish(s, STEP_INFRA, s->spec.test.cfg->name, "%s",
		    r->err.msg);
	else {
		s->phase = STEP_PHASE_RUN;
		step_next(s);
	}
}

/*
 * Parses metrics from text; a bad result fails the sample, not the host.
 * from names where the text came from for the message: "collect", the
 * result file, or the run's own output when neither is configured.
 */
static void
step_collect(struct step *s, const char *from, const char *text, size_t len,
    bool whole, bool truncated)
{
	struct bd_error err;
	int rc;

	if (whole)
		rc = metrics_parse(text, len, s->spec.bench, &s->res.metrics,
		    &err);
	else
		rc = metrics_parse_last_line(text, len, truncated,
		    s->spec.bench, &s->res.metrics, &err);
	if (rc != 0) {
		step_finish(s, STEP_FAILED, NULL, "%s: %s", from, err.msg);
		return;
	}
	s->phase = STEP_PHASE_DONE;
	step_finish(s, STEP_OK, NULL, NULL);
}

/* Keeps the tail of stdout: the metrics may be on its last line. */
static void
step_on_run(void *arg, const struct exec_result *r)
{
	struct step *s = arg;

	s->ex = NULL;
	if (step_judge(s, &s->spec.test, r) != 0)
		return;
	s->tail = xmalloc(r->tail_len + 1);
	memcpy(s->tail, r->tail ? r->tail : "", r->tail_len);
	s->tail[r->tail_len] = '\0';
	s->tail_len = r->tail_len;
	s->tail_truncated = r->tail_truncated;
	s->phase = STEP_PHASE_COLLECT;
	step_next(s);
}

/* The collect command prints the metrics on its last line. */
static void
step_on_collect_cmd(void *arg, const struct exec_result *r)
{
	struct step *s = arg;

	s->ex = NULL;
	if (step_judge(s, &s->spec.test, r) != 0)
		return;
	step_collect(s, "collect", r->tail ? r->tail : "", r->tail_len, false,
	    r->tail_truncated);
}

/* A missing result file is the benchmark's fault, a lost link is not. */
static void
step_on_result_file(void *arg, const struct relay_result *r)
{
	struct step *s = arg;

	s->rl = NULL;
	if (r->rc == -ECANCELED)
		step_finish(s, STEP_CANCELLED, NULL, "collect cancelled");
	else if (r->rc != 0 && r->infra)
		step_finish(s, STEP_INFRA, s->spec.test.cfg->name,
		    "result_file: %s", r->err.msg);
	else if (r->rc != 0)
		step_finish(s, STEP_FAILED, NULL, "result_file: %s",
		    r->err.msg);
	else
		step_collect(s, "result_file", r->data, r->len, true, false);
}

/* Build on the build host unless the cache already names an artifact. */
static void
step_build(struct step *s)
{
	const struct config_benchmark *b = s->spec.bench;
	char *cmd;

	if (s->spec.cached.conn != NULL) {
		s->src = s->spec.cached.conn;
		s->src_name = s->spec.cached.cfg->name;
		s->src_art = s->cached_artifact;
		s->phase = STEP_PHASE_RELAY;
		step_next(s);
		return;
	}
	s->src = s->spec.build.conn;
	s->src_name = s->spec.build.cfg->name;
	s->src_art = s->art_build;
	if (b->build == NULL) {
		s->phase = STEP_PHASE_RELAY;
		step_next(s);
		return;
	}
	if ((cmd = step_expand(s, b->build, &s->spec.build, s->art_build,
	    QUOTE_SHELL)) != NULL)
		step_exec(s, &s->spec.build, cmd, b->build_timeout_ms, 0,
		    step_on_build);
}

/* Starts the copy from the host that holds the artifact. */
static void
step_copy(struct step *s)
{
	struct bd_error err;

	step_tell(s, &s->spec.test);
	if (relay_copy(s->src, s->src_art, s->spec.test.conn, s->art_test,
	    s->spec.connect_wait_ms, step_on_relay, s, &s->rl, &err) != 0)
		step_finish(s, STEP_INFRA, NULL, "relay: %s", err.msg);
}

/*
 * The test host may keep this artifact from an earlier run: a copy with
 * the right hash is used as it is; anything else (none, other bytes, a
 * failed check) means copying, whose own checks decide.
 */
static void
step_on_have(void *arg, const struct exec_result *r)
{
	struct step *s = arg;

	s->ex = NULL;
	if (r->status == EXEC_EXITED && r->exit_code == 0) {
		step_held(s);
		s->phase = STEP_PHASE_INSTALL;
		step_next(s);
		return;
	}
	if (r->status == EXEC_CANCELLED)
		step_finish(s, STEP_CANCELLED, NULL, "relay cancelled");
	else
		step_copy(s);
}

/* Copies the artifact only when it is on another host and not kept here. */
static void
step_relay(struct step *s)
{
	char *kept;

	if (s->spec.bench->artifact == NULL || s->src == s->spec.test.conn ||
	    s->src_art == NULL || s->art_test == NULL) {
		step_verify(s);
		return;
	}
	if (s->sum == NULL) {
		step_copy(s);
		return;
	}
	kept = step_kept_path(s, &s->spec.test);
	step_exec(s, &s->spec.test, step_keep_cmd(s, &s->spec.test, kept,
	    s->sum, s->art_test), s->spec.bench->install_timeout_ms, 256,
	    step_on_have);
	free(kept);
}

/* Runs the template of the current phase on the test host, if it has one. */
static int
step_test_cmd(struct step *s, const char *tmpl, uint64_t timeout_ms,
    size_t tail, exec_done_cb *done)
{
	char *cmd;

	if (tmpl == NULL)
		return 0;
	if ((cmd = step_expand(s, tmpl, &s->spec.test, s->art_test,
	    QUOTE_SHELL)) != NULL)
		step_exec(s, &s->spec.test, cmd, timeout_ms, tail, done);
	return 1;
}

/* Waits for the reboot, or checks the kernel, when configured. */
static void
step_boot(struct step *s)
{
	const struct config_benchmark *b = s->spec.bench;
	struct boot_opts o;
	struct bd_error err;
	char *check = NULL, *expect = NULL, *power = NULL, *log;

	if (b->reboot == NULL && b->boot_check == NULL) {
		s->phase = STEP_PHASE_RUN;
		step_next(s);
		return;
	}
	if ((b->boot_check != NULL && (check = step_expand(s, b->boot_check,
	    &s->spec.test, s->art_test, QUOTE_SHELL)) == NULL) ||
	    (b->expect_kernel != NULL && (expect = step_expand(s,
	    b->expect_kernel, &s->spec.test, s->art_test, QUOTE_RAW)) == NULL) ||
	    (s->spec.test.cfg->power_cycle != NULL && (power = step_expand(s,
	    s->spec.test.cfg->power_cycle, &s->spec.test, s->art_test,
	    QUOTE_SHELL)) == NULL))
		goto out;
	log = step_log(s);
	memset(&o, 0, sizeof(o));
	o.check = check;
	o.expect = expect;
	o.cwd = s->spec.test.cfg->workdir;
	o.timeout_ms = b->boot_timeout_ms;
	o.power_cycle = power;
	o.log_path = log;
	o.retry_ms = s->spec.boot_retry_ms;
	step_tell(s, &s->spec.test);
	if (boot_wait(s->spec.test.conn, &o, step_on_boot, s, &s->bt,
	    &err) != 0)
		step_finish(s, STEP_INFRA, NULL, "boot: %s", err.msg);
	free(log);
out:
	free(check);
	free(expect);
	free(power);
}

/* Result file, collect command or the run's own last line. */
static void
step_collect_start(struct step *s)
{
	const struct config_benchmark *b = s->spec.bench;
	struct bd_error err;
	char *path;

	if (b->result_file != NULL) {
		if ((path = step_expand(s, b->result_file, &s->spec.test,
		    s->art_test, QUOTE_RAW)) == NULL)
			return;
		if (relay_fetch(s->spec.test.conn, path, STEP_RESULT_MAX,
		    s->spec.connect_wait_ms, step_on_result_file, s, &s->rl,
		    &err) != 0)
			step_finish(s, STEP_FAILED, NULL, "result_file: %s",
			    err.msg);
		free(path);
		return;
	}
	if (step_test_cmd(s, b->collect, b->run_timeout_ms, STEP_TAIL_MAX,
	    step_on_collect_cmd))
		return;
	step_collect(s, "run output (last line)", s->tail, s->tail_len,
	    false, s->tail_truncated);
}

/*
 * What the describe command printed, lines joined by blanks, is kept for
 * the reports; a describe that fails costs the run nothing.
 */
static void
step_on_describe(void *arg, const struct exec_result *r)
{
	struct step *s = arg;
	const struct config_benchmark *b = s->spec.bench;
	char *text;
	size_t i, n = 0;

	s->ex = NULL;
	if (r->status == EXEC_CANCELLED) {
		step_finish(s, STEP_CANCELLED, NULL, "describe cancelled");
		return;
	}
	if (r->status == EXEC_EXITED && r->exit_code == 0 && r->tail_len > 0) {
		text = xmalloc(r->tail_len + 1);
		for (i = 0; i < r->tail_len; i++) {
			char c = r->tail[i] == '\n' || r->tail[i] == '\t' ||
			    r->tail[i] == '\r' ? ' ' : r->tail[i];

			if (c == ' ' && (n == 0 || text[n - 1] == ' '))
				continue;
			text[n++] = c;
		}
		while (n > 0 && text[n - 1] == ' ')
			n--;
		text[n] = '\0';
		if (n > 0)
			cache_describe(s->spec.cache, s->spec.test.cfg->name,
			    b->describe, text);
		free(text);
	}
	step_next(s);
}

/*
 * The benchmark's describe command, once per test host: the first run a
 * host gets of the benchmark asks it what it is, before the run.  Returns
 * true when it started.
 */
static bool
step_describe(struct step *s)
{
	const struct config_benchmark *b = s->spec.bench;
	struct exec_opts o;
	struct bd_error err;
	char *cmd;

	if (s->described || b->describe == NULL)
		return false;
	s->described = 1;
	if (cache_described(s->spec.cache, s->spec.test.cfg->name,
	    b->describe))
		return false;
	if ((cmd = step_expand(s, b->describe, &s->spec.test, s->art_test,
	    QUOTE_SHELL)) == NULL)
		return true;
	memset(&o, 0, sizeof(o));
	o.command = cmd;
	o.cwd = s->spec.test.cfg->workdir;
	o.timeout_ms = STEP_DESCRIBE_TIMEOUT_MS;
	o.kill_grace_ms = s->spec.kill_grace_ms;
	o.connect_wait_ms = s->spec.connect_wait_ms;
	o.tail_max = STEP_DESCRIBE_MAX;
	if (exec_start(s->spec.test.conn, &o, step_on_describe, s, &s->ex,
	    &err) != 0)
		step_finish(s, STEP_INFRA, NULL, "describe: %s", err.msg);
	free(cmd);
	return true;
}

/* Starts the current phase; phases without a template fall through. */
static void
step_next(struct step *s)
{
	const struct config_benchmark *b = s->spec.bench;

	if (s->finished)
		return;
	if (s->cancelled) {
		step_finish(s, STEP_CANCELLED, NULL, "cancelled");
		return;
	}
	switch (s->phase) {
	case STEP_PHASE_BUILD:
		step_build(s);
		return;
	case STEP_PHASE_RELAY:
		if (s->spec.build_only) {
			s->res.artifact = s->src_art;
			s->phase = STEP_PHASE_DONE;
			step_finish(s, STEP_OK, NULL, NULL);
			return;
		}
		step_relay(s);
		return;
	case STEP_PHASE_INSTALL:
		if (step_test_cmd(s, b->install, b->install_timeout_ms, 0,
		    step_on_install))
			return;
		s->phase = STEP_PHASE_REBOOT;
		/* FALLTHROUGH */
	case STEP_PHASE_REBOOT:
		if (step_test_cmd(s, b->reboot, b->install_timeout_ms, 0,
		    step_on_reboot))
			return;
		s->phase = STEP_PHASE_BOOT;
		/* FALLTHROUGH */
	case STEP_PHASE_BOOT:
		step_boot(s);
		return;
	case STEP_PHASE_RUN:
		if (step_describe(s))
			return;
		step_test_cmd(s, b->run, b->run_timeout_ms, STEP_TAIL_MAX,
		    step_on_run);
		return;
	case STEP_PHASE_COLLECT:
		step_collect_start(s);
		return;
	case STEP_PHASE_DONE:
		step_finish(s, STEP_OK, NULL, NULL);
		return;
	}
}

/* The first phase runs on its own loop turn. */
static void
step_on_start(uv_timer_t *t)
{
	step_next(t->data);
}

/* The artifact path on a host: the artifact template, expanded raw. */
static int
step_artifact(struct step *s, const struct step_host *h, char **out,
    struct bd_error *err)
{
	struct quote_vars v;

	*out = NULL;
	if (s->spec.bench->artifact == NULL || h->cfg == NULL)
		return 0;
	memset(&v, 0, sizeof(v));
	v.commit = s->commit;
	v.workdir = h->cfg->workdir;
	v.host = h->cfg->name;
	v.run_id = s->run_id;
	return quote_expand(s->spec.bench->artifact, &v, QUOTE_RAW, out, err);
}

/* Copies the spec and works out the artifact paths up front. */
int
step_start(uv_loop_t *loop, const struct step_spec *spec, step_done_cb *cb,
    void *arg, struct step **out, struct bd_error *err)
{
	struct step *s;

	if (spec->bench == NULL || spec->bench->run == NULL ||
	    spec->commit == NULL || spec->run_id == NULL ||
	    spec->test.conn == NULL || spec->test.cfg == NULL ||
	    (spec->cached.conn == NULL && spec->build.conn == NULL))
		return bd_error_set(err, -EINVAL, "step: incomplete spec");
	s = xcalloc(1, sizeof(*s));
	s->loop = loop;
	s->spec = *spec;
	s->commit = xstrdup(spec->commit);
	s->tree = spec->tree ? xstrdup(spec->tree) : NULL;
	s->run_id = xstrdup(spec->run_id);
	s->group = xstrdup(spec->group ? spec->group : "default");
	s->log_dir = spec->log_dir ? xstrdup(spec->log_dir) : NULL;
	s->cached_artifact = spec->cached_artifact ?
	    xstrdup(spec->cached_artifact) : NULL;
	s->sum = spec->cached.conn != NULL && spec->cached_sha256 != NULL ?
	    xstrdup(spec->cached_sha256) : NULL;
	s->cb = cb;
	s->arg = arg;
	s->told = -1;
	metrics_init(&s->res.metrics);
	cache_key_init(&s->key, s->group, spec->bench, s->commit, s->tree);
	if (step_artifact(s, &spec->test, &s->art_test, err) != 0 ||
	    step_artifact(s, &spec->build, &s->art_build, err) != 0) {
		s->timer.data = s;
		step_freed((uv_handle_t *)&s->timer);
		return err != NULL ? err->code : -EINVAL;
	}
	uv_timer_init(loop, &s->timer);
	s->timer.data = s;
	uv_timer_start(&s->timer, step_on_start, 0, 0);
	if (out != NULL)
		*out = s;
	return 0;
}

/* Kills what runs now; later phases see the flag. */
void
step_cancel(struct step *s)
{
	if (s->finished || s->cancelled)
		return;
	s->cancelled = 1;
	if (s->ex != NULL)
		exec_cancel(s->ex);
	else if (s->rl != NULL)
		relay_cancel(s->rl);
	else if (s->bt != NULL)
		boot_cancel(s->bt);
	/* Otherwise the next phase sees the flag. */
}
