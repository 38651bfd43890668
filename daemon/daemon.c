/* SPDX-License-Identifier: MIT */
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/wait.h>

#include <fcntl.h>
#include <grp.h>
#include <stdio.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "common/proto.h"
#include "common/xmalloc.h"
#include "server/cmd.h"
#include "server/ctlsock.h"
#include "daemon/daemon.h"
#include "daemon/hook.h"
#include "daemon/notify.h"
#include "server/perm.h"
#include "daemon/reporter.h"
#include "common/log.h"
#include "store/store.h"
#include "sched/sched.h"
#include "sweep/sweep.h"
#include "sweep/watcher.h"
#include <git2.h>

static int	daemon_lock_db(struct daemon *, const char *, const char *,
		    struct bd_error *);

/*
 * Wall-clock time, since events are read by people and compared across
 * restarts.
 */
int64_t
daemon_now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

void
daemon_event(struct daemon *d, const char *kind, json_t *fields)
{
	json_t *ev;

	if (!d->ctl_ready) {
		json_decref(fields);
		return;
	}
	ev = json_pack("{s:I}", "time_ms", (json_int_t)daemon_now_ms());
	if (fields != NULL) {
		json_object_update(ev, fields);
		json_decref(fields);
	}
	proto_add_times(ev);
	ctl_server_broadcast(&d->ctl, kind, ev);
}

/* The scheduler's event sink. */
static void
daemon_sched_event(void *arg, const char *kind, json_t *fields)
{
	daemon_event(arg, kind, fields);
}

/* A verdict is stored: the report is written and handed to the hook. */
static void
daemon_verdict(void *arg, struct bisection *b)
{
	struct daemon *d = arg;

	reporter_run(d->store, &d->cfg, d->repo, &d->loop, b);
}

/* The scheduler's view of the configuration: whatever a reload left. */
static const struct config *
daemon_config(void *arg)
{
	struct daemon *d = arg;

	return &d->cfg;
}

/* The control commands' reload: daemon_reload for the server's arg. */
static int
daemon_srv_reload(void *arg, struct config_errors *errs,
    json_t *restart_needed, json_t *not_applied)
{
	return daemon_reload(arg, errs, restart_needed, not_applied);
}

/*
 * Lends the parts to the command layer once they all exist; the loop has
 * not run yet, so no command saw the struct half filled.
 */
static void
daemon_lend(struct daemon *d)
{
	d->srv = (struct server){
		.loop = &d->loop,
		.store = d->store,
		.sched = d->sched,
		.watcher = d->watcher,
		.sweeper = d->sweeper,
		.repo = d->repo,
		.audit = &d->audit,
		.started_ms = d->started_ms,
		.config = daemon_config,
		.reload = daemon_srv_reload,
		.event = daemon_sched_event,
		.now_ms = daemon_now_ms,
		.arg = d,
	};
}

/* The scheduler borrows the loop, the store and the repository. */
static int
daemon_start_sched(struct daemon *d, struct bd_error *err)
{
	struct sched_env env = {
		.loop = &d->loop,
		.store = d->store,
		.config = daemon_config,
		.config_arg = d,
		.events = { .emit = daemon_sched_event,
		    .verdict = daemon_verdict, .arg = d },
	};

	if (d->cfg.repo.path != NULL &&
	    git_repository_open(&d->repo, d->cfg.repo.path) < 0) {
		log_warnx("cannot open repository %s: %s", d->cfg.repo.path,
		    git_error_last() ? git_error_last()->message : "");
		d->repo = NULL;
	}
	env.repo = d->repo;
	return sched_new(&env, &d->sched, err);
}

/*
 * After a fetch: a mirror that did not exist at startup (the first clone)
 * is opened and lent to the scheduler.
 */
static void
daemon_fetched(void *arg)
{
	struct daemon *d = arg;

	if (d->stopping || d->repo != NULL || d->cfg.repo.path == NULL)
		return;
	if (git_repository_open(&d->repo, d->cfg.repo.path) < 0) {
		log_warnx("cannot open repository %s: %s", d->cfg.repo.path,
		    git_error_last() ? git_error_last()->message : "");
		d->repo = NULL;
		return;
	}
	sched_set_repo(d->sched, d->repo);
	d->srv.repo = d->repo;
	sched_kick(d->sched);
}

/* The watcher borrows the loop and the store, and reports to watch. */
static int
daemon_start_watcher(struct daemon *d, struct bd_error *err)
{
	struct watcher_env env = {
		.loop = &d->loop,
		.store = d->store,
		.config = daemon_config,
		.config_arg = d,
		.emit = daemon_sched_event,
		.emit_arg = d,
		.fetched = daemon_fetched,
		.fetched_arg = d,
		.now_ms = daemon_now_ms,
	};

	return watcher_new(&env, &d->watcher, err);
}

/*
 * Sweeps hear every ref event the watcher stores; the events stored since
 * a sweep's cursor (a kill -9 between storing and handling) are replayed
 * first, so none is lost or handled twice.
 */
static int
daemon_start_sweeps(struct daemon *d, struct bd_error *err)
{
	struct sweeper_env env = {
		.loop = &d->loop,
		.sched = d->sched,
		.store = d->store,
		.config = daemon_config,
		.config_arg = d,
		.now_ms = daemon_now_ms,
	};
	int64_t from;
	int rc;

	if ((rc = sweeper_new(&env, &d->sweeper, err)) < 0 ||
	    (rc = sweeper_start(d->sweeper, &from, err)) < 0 ||
	    (rc = watcher_replay(d->watcher, from, sweeper_ref_event,
	    d->sweeper, err)) < 0)
		return rc;
	watcher_listen(d->watcher, sweeper_ref_event, d->sweeper);
	return 0;
}

/*
 * The socket answers as soon as it listens, before the loop has signal
 * handlers; a SIGTERM in between must wait for them rather than kill the
 * daemon without cleanup.  Blocking also replaces whatever mask the parent
 * left us with.
 */
void
daemon_signals_block(void)
{
	sigset_t set;

	sigemptyset(&set);
	sigaddset(&set, SIGINT);
	sigaddset(&set, SIGTERM);
	sigaddset(&set, SIGHUP);
	sigprocmask(SIG_SETMASK, &set, NULL);
}

/* Lets the signals held since main reach the loop's handlers. */
void
daemon_signals_unblock(void)
{
	sigset_t set;

	sigemptyset(&set);
	sigprocmask(SIG_SETMASK, &set, NULL);
}

/* SIGHUP reloads; SIGINT and SIGTERM start the orderly shutdown. */
static void
daemon_signal(uv_signal_t *sig, int signum)
{
	struct daemon *d = sig->data;
	struct config_errors errs = { NULL, 0 };

	if (signum == SIGHUP) {
		log_info("SIGHUP: reloading %s", d->config_path);
		(void)daemon_reload(d, &errs, NULL, NULL);	/* it logs the errors */
		config_errors_release(&errs);
		return;
	}
	log_info("%s: shutting down", strsignal(signum));
	daemon_shutdown(d);
}

/* Loop-side setup once the socket is bound: the server, then signals. */
static int
daemon_start_loop(struct daemon *d, int fd, struct bd_error *err)
{
	struct {
		uv_signal_t	*h;
		int		 signum;
	} sigs[] = {
		{ &d->sigint, SIGINT },
		{ &d->sigterm, SIGTERM },
		{ &d->sighup, SIGHUP },
	};
	size_t i;
	int rc;

	d->ctl_ready = 1;
	rc = ctl_server_init(&d->ctl, &d->loop, fd, d->cfg.daemon.socket,
	    cmd_dispatch, &d->srv, err);
	if (rc < 0)
		return rc;
	ctl_server_set_caps(&d->ctl, d->cfg.daemon.max_clients,
	    d->cfg.daemon.max_clients_per_uid, d->cfg.daemon.client_timeout_ms);
	for (i = 0; i < sizeof(sigs) / sizeof(sigs[0]); i++) {
		uv_signal_init(&d->loop, sigs[i].h);
		sigs[i].h->data = d;
		if ((rc = uv_signal_start(sigs[i].h, daemon_signal,
		    sigs[i].signum)) < 0)
			return bd_error_set(err, -EIO, "signal %d: %s",
			    sigs[i].signum, uv_strerror(rc));
	}
	/* Handlers are in place: signals held since main may arrive now. */
	daemon_signals_unblock();
	return 0;
}

/* Each build_inputs file must be a file bisectd can read. */
static int
daemon_check_inputs(const struct config *cfg, struct bd_error *err)
{
	const struct config_benchmark *b;
	char *copy, *word, *save = NULL;
	struct stat st;
	size_t i;
	int rc = 0;

	for (i = 0; i < cfg->nbenchmarks && rc == 0; i++) {
		b = &cfg->benchmarks[i];
		if (b->build_inputs == NULL)
			continue;
		copy = xstrdup(b->build_inputs);
		for (word = strtok_r(copy, " ", &save); word != NULL &&
		    rc == 0; word = strtok_r(NULL, " ", &save)) {
			if (access(word, R_OK) != 0)
				rc = bd_error_set(err, -errno, "%s: [benchmark "
				    "%s] build_inputs: %s: %s", cfg->path,
				    b->name, word, strerror(errno));
			else if (stat(word, &st) == 0 && !S_ISREG(st.st_mode))
				rc = bd_error_set(err, -EINVAL, "%s: [benchmark "
				    "%s] build_inputs: %s is not a file",
				    cfg->path, b->name, word);
		}
		free(copy);
	}
	return rc;
}

/*
 * What startup would refuse that the file's syntax cannot show, so that
 * `bisectd -n` and a start agree: that the operators groups and the
 * socket_group exist.  An unreadable build_inputs file is refused here
 * too, but a start or reload only warns (daemon_warn_inputs): the file
 * may appear later, and until then builds key it as unreadable.
 */
int
daemon_config_check(const struct config *cfg, struct bd_error *err)
{
	const char *group = cfg->daemon.socket_group;
	struct group gr, *grp = NULL;
	struct bd_error perr;
	char buf[4096];
	int rc;

	if ((rc = perm_check("operators", cfg->daemon.operators,
	    &perr)) < 0 || (rc = perm_check("admin_group",
	    cfg->daemon.admin_group, &perr)) < 0)
		return bd_error_set(err, rc, "%s: %s", cfg->path, perr.msg);
	if ((rc = daemon_check_inputs(cfg, err)) < 0)
		return rc;
	if (group == NULL)
		return 0;
	rc = getgrnam_r(group, &gr, buf, sizeof(buf), &grp);
	if (rc != 0)
		return bd_error_set(err, -rc, "%s: [daemon] socket_group: "
		    "cannot look up group %s: %s", cfg->path, group,
		    strerror(rc));
	if (grp == NULL)
		return bd_error_set(err, -ENOENT, "%s: [daemon] socket_group: "
		    "no such group '%s'", cfg->path, group);
	return 0;
}

/*
 * A running daemon keys builds on an unreadable build_inputs file as
 * unreadable; the administrator learns of it at start and reload, not
 * from a rebuild of every commit once the file appears.
 */
static void
daemon_warn_inputs(const struct config *cfg, const char *when)
{
	struct bd_error err;

	bd_error_clear(&err);
	if (daemon_check_inputs(cfg, &err) < 0)
		log_warnx("%s: %s; builds are keyed on it as unreadable until "
		    "it can be read", when, err.msg);
}

/* An upgrade says what it did and where the database as it was is kept. */
static void
daemon_log_migration(const struct store *st)
{
	const char *bak;
	int from, to;

	if ((bak = store_migration_backup(st, &from, &to)) != NULL)
		log_info("database migrated from schema version %d to %d; "
		    "the database before the migration is in %s", from, to,
		    bak);
}

/*
 * The database lock is taken first, so a second daemon leaves the first's
 * socket and database alone; nobody is served before the loop runs, after
 * the store is open.
 */
int
daemon_init(struct daemon *d, const char *config_path, struct config *cfg,
    struct bd_error *err)
{
	const struct config_daemon *dc;
	int rc, fd = -1;

	memset(d, 0, sizeof(*d));
	d->lock_fd = -1;
	d->cfg = *cfg;
	config_init(cfg);
	dc = &d->cfg.daemon;
	/* Detaching changes to /: a relative path would break SIGHUP. */
	d->config_path = realpath(config_path, NULL);
	if (d->config_path == NULL)
		d->config_path = xstrdup(config_path);
	d->started_ms = daemon_now_ms();
	log_set_level((enum log_level)dc->log_level);
	if (dc->socket == NULL || dc->database == NULL)
		return bd_error_set(err, -EINVAL,
		    "%s: [daemon] socket and database are required",
		    config_path);
	if ((rc = perm_check("operators", dc->operators, err)) < 0 ||
	    (rc = perm_check("admin_group", dc->admin_group, err)) < 0)
		return rc;
	daemon_warn_inputs(&d->cfg, "start");
	/* Before the socket: a second daemon must not touch the first's. */
	if ((rc = daemon_lock_db(d, dc->database, dc->socket, err)) < 0)
		return rc;
	if ((rc = ctlsock_listen(dc->socket, dc->socket_mode, dc->socket_group,
	    &fd, err)) < 0)
		return rc;
	if ((rc = store_open(&d->store, dc->database, err)) < 0)
		goto fail;
	daemon_log_migration(d->store);
	if ((rc = uv_loop_init(&d->loop)) < 0) {
		rc = bd_error_set(err, -EIO, "uv_loop_init: %s",
		    uv_strerror(rc));
		goto fail;
	}
	d->loop_ready = 1;
	if ((rc = daemon_start_loop(d, fd, err)) < 0)
		return rc;
	git_libgit2_init();
	d->git_ready = 1;
	if ((rc = daemon_start_sched(d, err)) < 0)
		return rc;
	if ((rc = daemon_start_watcher(d, err)) < 0)
		return rc;
	if ((rc = daemon_start_sweeps(d, err)) < 0)
		return rc;
	daemon_lend(d);
	log_info("bisectd %s listening on %s (pid %ld)", BISECTD_VERSION,
	    dc->socket, (long)getpid());
	return 0;
fail:
	close(fd);
	unlink(dc->socket);
	return rc;
}

/*
 * One daemon per database, whatever socket each listens on and whatever
 * name it gives the file: store_lock flocks the database itself.  The
 * holder's pid goes to DATABASE.lock, for the message the next one prints.
 */
static int
daemon_lock_db(struct daemon *d, const char *db, const char *sock,
    struct bd_error *err)
{
	char *path, pid[32];
	ssize_t n;
	int fd, rc;

	xasprintf(&path, "%s.lock", db);
	if ((rc = store_lock(db, &d->lock_fd, err)) == -EBUSY) {
		fd = open(path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
		n = fd >= 0 ? pread(fd, pid, sizeof(pid) - 1, 0) : 0;
		pid[n > 0 ? n : 0] = '\0';
		pid[strcspn(pid, "\n")] = '\0';
		if (fd >= 0)
			close(fd);
		bd_error_set(err, rc, "another bisectd (pid %s) is already "
		    "running on database %s; leaving %s alone",
		    *pid ? pid : "unknown", db, sock);
	}
	if (rc < 0)
		goto out;
	snprintf(pid, sizeof(pid), "%ld\n", (long)getpid());
	fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_NOFOLLOW | O_CLOEXEC,
	    0600);
	if (fd == -1 || write(fd, pid, strlen(pid)) != (ssize_t)strlen(pid))
		log_warn("cannot write the pid to %s", path);
	if (fd >= 0)
		close(fd);
out:
	free(path);
	return rc;
}

/* Everything happens in callbacks on this one thread. */
void
daemon_run(struct daemon *d)
{
	uv_run(&d->loop, UV_RUN_DEFAULT);
}

/*
 * Closing every handle ends the loop: the listener first (no new clients),
 * then the clients once their replies are written, then the signals.
 */
void
daemon_shutdown(struct daemon *d)
{
	uv_signal_t *sigs[] = { &d->sigint, &d->sigterm, &d->sighup };
	size_t i;

	if (d->stopping)
		return;
	d->stopping = 1;
	notify_send("STOPPING=1");
	sched_stop(d->sched);
	sweeper_stop(d->sweeper);
	watcher_stop(d->watcher);
	if (d->ctl_ready)
		ctl_server_stop(&d->ctl);
	hook_detach_all();
	for (i = 0; i < sizeof(sigs) / sizeof(sigs[0]); i++)
		if (sigs[i]->data != NULL &&
		    !uv_is_closing((uv_handle_t *)sigs[i]))
			uv_close((uv_handle_t *)sigs[i], NULL);
}

/* Compares optional settings, where NULL means unset. */
static int
daemon_streq(const char *a, const char *b)
{
	if (a == NULL || b == NULL)
		return a == b;
	return strcmp(a, b) == 0;
}

/* What a reload changed, gathered for the log and the reply. */
struct daemon_changes {
	json_t	*restart_needed;	/* NULL: the caller does not want it */
	int	 hosts;			/* a [host] change waits for the pool */
};

/*
 * How a change is named: a [daemon] key by itself ("socket", as the
 * protocol documents), others with their section ("[repo] path",
 * "[host a] port"), a section added or removed by its header alone.
 */
static char *
daemon_change_name(const struct config_change *c)
{
	char *name;

	if (strcmp(c->section, "daemon") == 0 && c->key != NULL)
		return xstrdup(c->key);
	xasprintf(&name, "[%s%s%s]%s%s", c->section, c->name != NULL ? " " :
	    "", c->name != NULL ? c->name : "", c->key != NULL ? " " : "",
	    c->key != NULL ? c->key : "");
	return name;
}

/*
 * Live keys are read where they are used (or re-applied by daemon_apply),
 * so they only need a log line; the rest are named for the operator.
 */
static void
daemon_change(void *arg, const struct config_change *c)
{
	struct daemon_changes *ch = arg;
	char *name = daemon_change_name(c);

	if (c->reload == CONFIG_RELOAD_LIVE) {
		log_info("reload: %s changed", name);
		free(name);
		return;
	}
	log_warnx("reload: %s changed; it takes effect only after a restart",
	    name);
	if (strcmp(c->section, "host") == 0)
		ch->hosts = 1;
	if (ch->restart_needed != NULL)
		json_array_append_new(ch->restart_needed, json_string(name));
	free(name);
}

/*
 * Applies what a running daemon re-reads only on reload, after naming
 * every changed key that waits for a restart.  The pool keeps the hosts it
 * started with, so any [host] change also names "hosts" as a whole.
 */
static void
daemon_apply(struct daemon *d, const struct config *old,
    const struct config *new, json_t *restart_needed, json_t *not_applied)
{
	const struct config_daemon *o = &old->daemon, *n = &new->daemon;
	struct daemon_changes ch = { restart_needed, 0 };
	struct bd_error err;

	config_diff(old, new, daemon_change, &ch);
	if (ch.hosts && restart_needed != NULL)
		json_array_append_new(restart_needed, json_string("hosts"));
	log_set_level((enum log_level)n->log_level);
	ctl_server_set_caps(&d->ctl, n->max_clients, n->max_clients_per_uid,
	    n->client_timeout_ms);
	if ((o->socket_mode != n->socket_mode ||
	    !daemon_streq(o->socket_group, n->socket_group)) &&
	    ctlsock_perms(d->ctl.path, n->socket_mode, n->socket_group,
	    &err) < 0) {
		log_warnx("reload: %s", err.msg);
		if (not_applied != NULL)
			json_array_append_new(not_applied, json_string(
			    bd_utf8_fix(err.msg)));
	}
}

/* Validates the whole file first; a broken edit never replaces a good one. */
int
daemon_reload(struct daemon *d, struct config_errors *errs,
    json_t *restart_needed, json_t *not_applied)
{
	struct config new, old;
	size_t i;

	config_init(&new);
	if (config_load(&new, d->config_path, errs) < 0) {
		log_warnx("reload: %s has %zu error%s; keeping the "
		    "configuration in effect", d->config_path, errs->n,
		    errs->n == 1 ? "" : "s");
		for (i = 0; i < errs->n; i++)
			log_warnx("%s", errs->msgs[i]);
		config_release(&new);
		return -EINVAL;
	}
	daemon_warn_inputs(&new, "reload");
	daemon_apply(d, &d->cfg, &new, restart_needed, not_applied);
	old = d->cfg;
	d->cfg = new;
	/* The socket and database in use stay what the process opened. */
	if (!daemon_streq(old.daemon.socket, new.daemon.socket)) {
		free(d->cfg.daemon.socket);
		d->cfg.daemon.socket = old.daemon.socket;
		old.daemon.socket = NULL;
	}
	if (!daemon_streq(old.daemon.database, new.daemon.database)) {
		free(d->cfg.daemon.database);
		d->cfg.daemon.database = old.daemon.database;
		old.daemon.database = NULL;
	}
	/* Runs still going keep their holds: freed when the last ends. */
	config_release(&old);
	log_info("reload: %s applied", d->config_path);
	if (config_retired_count() > 0)
		log_info("reload: %zu replaced configuration%s kept until the "
		    "runs started under %s end", config_retired_count(),
		    config_retired_count() == 1 ? "" : "s",
		    config_retired_count() == 1 ? "it" : "them");
	return 0;
}


/* Runs after the loop ended, in the order the shutdown promises. */
void
daemon_release(struct daemon *d)
{
	if (d->loop_ready) {
		/* A failed start may leave handles open: close and drain. */
		daemon_shutdown(d);
		uv_run(&d->loop, UV_RUN_DEFAULT);
		if (uv_loop_close(&d->loop) != 0)
			log_warnx("event loop still had open handles");
	}
	sched_free(d->sched);
	d->sched = NULL;
	watcher_free(d->watcher);
	d->watcher = NULL;
	sweeper_free(d->sweeper);
	d->sweeper = NULL;
	git_repository_free(d->repo);
	d->repo = NULL;
	if (d->git_ready)
		git_libgit2_shutdown();
	d->git_ready = 0;
	if (d->store != NULL)
		store_close(d->store);
	d->store = NULL;
	if (d->ctl_ready)
		ctl_server_release(&d->ctl);
	config_release(&d->cfg);
	free(d->config_path);
	d->config_path = NULL;
	/* Last: the next daemon may start once the store is closed. */
	if (d->lock_fd >= 0)
		close(d->lock_fd);
	d->lock_fd = -1;
}

/*
 * Double fork: the grandchild is no session leader and never gets a
 * terminal back; the original process waits for it to say it is ready.
 */
int
daemon_detach_begin(struct bd_error *err)
{
	int fds[2];
	pid_t pid;
	char c;
	ssize_t n;

	if (pipe2(fds, O_CLOEXEC) == -1)
		return bd_error_set(err, -errno, "pipe: %s", strerror(errno));
	pid = fork();
	if (pid == -1)
		return bd_error_set(err, -errno, "fork: %s", strerror(errno));
	if (pid > 0) {
		close(fds[1]);
		waitpid(pid, NULL, 0);
		do
			n = read(fds[0], &c, 1);
		while (n == -1 && errno == EINTR);
		/* Nothing read: the daemon said why on stderr and exited. */
		_exit(n == 1 ? 0 : 1);
	}
	close(fds[0]);
	if (setsid() == -1)
		_exit(1);
	pid = fork();
	if (pid == -1)
		_exit(1);
	if (pid > 0)
		_exit(0);
	return fds[1];
}

/* Called only once startup succeeded, so failures still reach the terminal. */
void
daemon_detach_finish(int ready_fd, const char *progname, int level)
{
	int null = open("/dev/null", O_RDWR);

	if (chdir("/") == -1)
		log_warn("chdir /");
	if (null != -1) {
		dup2(null, STDIN_FILENO);
		dup2(null, STDOUT_FILENO);
		dup2(null, STDERR_FILENO);
		if (null > STDERR_FILENO)
			close(null);
	}
	log_init(progname, 0, (enum log_level)level);
	if (write(ready_fd, "", 1) != 1)
		log_warn("cannot tell the starting process we are ready");
	close(ready_fd);
}
