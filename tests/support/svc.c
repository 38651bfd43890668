/* SPDX-License-Identifier: MIT */
#include <criterion/criterion.h>

#include <sys/wait.h>

#include <pwd.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <jansson.h>

#include "common/xmalloc.h"
#include "tests/support/svc.h"
#include "tests/support/tmpfs.h"
#include "tests/support/tst.h"

struct svc svc;
/* Words the next fixture's hook runs, in svc.dir, after it kept its input. */
static const char *svc_hook_tail = "";
/* The next fixture's report_hook_timeout; NULL keeps the default. */
static const char *svc_hook_timeout;
/* Hosts of the next fixture (bit i: host i) whose sshd has no SFTP. */
static unsigned svc_nosftp;
/* The roles of each fixture host; NULL: build,test. */
static const char *svc_roles[2];

void
svc_fini(void)
{
	int i;

	if (svc.td_ready)
		tst_daemon_release(&svc.td);
	for (i = 0; i < svc.nhosts; i++)
		sshd_cleanup(&svc.host[i]);
	/* Nothing holds a test's tmpfs now. */
	tmpfs_fini();
	/* BISECTD_TEST_KEEP=1 keeps the fixture for a look after a failure. */
	if (getenv("BISECTD_TEST_KEEP") == NULL)
		tst_rmrf(svc.dir);
	free(svc.dir);
	free(svc.repo);
	memset(&svc, 0, sizeof(svc));
	svc_hook_tail = "";
	svc_hook_timeout = NULL;
	svc_nosftp = 0;
	svc_roles[0] = svc_roles[1] = NULL;
	tst_leak_check();
}

void
svc_set_hook(const char *tail, const char *timeout)
{
	svc_hook_tail = tail;
	svc_hook_timeout = timeout;
}

/* The fixture's sections plus more, written and read by a new daemon. */
void
svc_restart(const char *more)
{
	char *sections, *all;

	if (svc.td.pid != 0)
		cr_assert_eq(tst_daemon_stop(&svc.td, SIGTERM), 0);
	sections = svc_sections(NULL);
	xasprintf(&all, "%s%s", sections, more ? more : "");
	cr_assert_eq(tst_daemon_write_config(&svc.td, NULL, all), 0);
	free(all);
	free(sections);
	cr_assert_eq(tst_daemon_start(&svc.td), 0, "no restart");
}

/* The roles host i has in the config written from now on. */
void
svc_set_roles(int i, const char *roles)
{
	svc_roles[i] = roles;
}

/* The next fixture's hosts in mask (bit i: host i) run without SFTP. */
void
svc_set_nosftp(unsigned mask)
{
	svc_nosftp = mask;
}


/* Reads "good/bad/culprit SHA" lines printed by the repository generator. */
static void
svc_parse_repo(const char *out, struct svc_ids *ids)
{
	const char *p;

	memset(ids, 0, sizeof(*ids));
	cr_assert_not_null(p = strstr(out, "good "));
	memcpy(ids->good, p + 5, 40);
	cr_assert_not_null(p = strstr(out, "bad "));
	memcpy(ids->bad, p + 4, 40);
	cr_assert_not_null(p = strstr(out, "culprit "));
	memcpy(ids->culprit, p + 8, 40);
	if ((p = strstr(out, "culprit2 ")) != NULL)
		memcpy(ids->culprit2, p + 9, 40);
}

/* One [host] section per sshd, all in group "lab". */
char *
svc_sections(const char *extra_bench)
{
	return svc_sections_for(svc.repo, extra_bench, svc.host, svc.nhosts,
	    svc.dir, "quarantine_after = 3\n");
}

/* The fixture's sections for any repository and hosts (svc.h). */
char *
svc_sections_for(const char *repo, const char *extra_bench,
    const struct sshd *hosts, int nhosts, const char *dir,
    const char *extra_host)
{
	struct passwd *pw = getpwuid(getuid());
	char *text, *t;
	int i;

	xasprintf(&text, "[repo]\npath = %s\n"
	    "commit_url = https://git.example.org/c/{sha}\n\n"
	    "[benchmark spin]\n"
	    "build = mkdir -p {workdir}/src-{short} && git -C %s archive "
	    "{commit} | tar -x -C {workdir}/src-{short} && cc -O2 -o "
	    "{workdir}/src-{short}/bench {workdir}/src-{short}/bench.c\n"
	    "artifact = {workdir}/src-{short}/bench\n"
	    "run = {artifact}\n"
	    "metrics = runtime_ms:lower, ops_per_sec:higher\n"
	    "min_change = 5%%\n"
	    "build_timeout = 2m\nrun_timeout = 1m\n%s\n",
	    repo, repo, extra_bench ? extra_bench : "");
	for (i = 0; i < nhosts; i++) {
		xasprintf(&t, "%s[host h%d]\naddress = 127.0.0.1\nport = %d\n"
		    "user = %s\nidentity = %s\nknown_hosts = %s\n"
		    "group = lab\nroles = %s\nworkdir = %s/w%d\n"
		    "connect_timeout = 5s\nkeepalive = 2s\n%s\n", text, i,
		    hosts[i].port, pw->pw_name, hosts[i].user_key,
		    hosts[i].known_hosts, hosts == svc.host && i < 2 &&
		    svc_roles[i] != NULL ? svc_roles[i] : "build,test", dir, i,
		    extra_host);
		free(text);
		text = t;
	}
	return text;
}

void
svc_generate(const char *script, const char *repo, const char *a1,
    const char *a2, const char *a3, struct svc_ids *ids)
{
	char *out, *mk;
	int status;

	xasprintf(&mk, "%s/tests/fixtures/e2e/%s",
	    tst_env_path("BISECTD_SRCDIR"), script);
	{
		char *argv[] = { "sh", mk, (char *)repo, (char *)a1,
		    (char *)a2, (char *)a3, NULL };

		out = tst_run_capture(argv, &status);
	}
	free(mk);
	cr_assert_not_null(out);
	cr_assert_eq(status, 0, "%s failed:\n%s", script, out);
	svc_parse_repo(out, ids);
	free(out);
}

/* The fixture's repository, its commits kept in svc. */
static void
svc_make_repo(const char *script, const char *a1, const char *a2,
    const char *a3)
{
	struct svc_ids ids;

	svc_generate(script, svc.repo, a1, a2, a3, &ids);
	memcpy(svc.good, ids.good, sizeof(ids.good));
	memcpy(svc.bad, ids.bad, sizeof(ids.bad));
	memcpy(svc.culprit, ids.culprit, sizeof(ids.culprit));
	memcpy(svc.culprit2, ids.culprit2, sizeof(ids.culprit2));
}

/* Hosts and the daemon over the repository already made. */
static void
svc_start(const char *tag, int nhosts, const char *extra_bench,
    char *(*more)(void))
{
	char *sections, *extra, *t;
	int i;

	for (i = 0; i < nhosts; i++) {
		char htag[32];

		snprintf(htag, sizeof(htag), "%s-h%d", tag, i);
		cr_assert_eq((svc_nosftp & (1u << i) ? sshd_start_nosftp :
		    sshd_start)(&svc.host[i], htag), 0);
		svc.nhosts++;
	}
	sections = svc_sections(extra_bench);
	if (more != NULL) {
		char *m = more();

		xasprintf(&t, "%s%s", sections, m);
		free(m);
		free(sections);
		sections = t;
	}
	/* The hook keeps what it was given, for the report test to read. */
	xasprintf(&extra, "report_hook = cd %s && cat > hook.txt && env > "
	    "hook.env%s\nmessage_id_domain = svc.example.org\n"
	    "report_reported_by = bisectd <svc@example.org>\n"
	    "report_closes = https://lore.example.org/r/{message_id}\n"
	    "%s%s%s", svc.dir, svc_hook_tail,
	    svc_hook_timeout ? "report_hook_timeout = " : "",
	    svc_hook_timeout ? svc_hook_timeout : "",
	    svc_hook_timeout ? "\n" : "");
	cr_assert_eq(tst_daemon_setup(&svc.td, tag, extra, sections), 0);
	free(extra);
	svc.td_ready = 1;
	free(sections);
	cr_assert_eq(tst_daemon_start(&svc.td), 0, "bisectd did not start");
}

void
svc_setup(const char *tag, int nhosts, const char *plant, int broken)
{
	svc_setup_with(tag, nhosts, plant, broken, NULL);
}

/* The fixture's repository with plant, served by the daemon. */
static void
svc_setup_full(const char *tag, int nhosts, const char *plant, int broken,
    const char *extra_bench, char *(*more)(void))
{
	char brk[16];

	memset(&svc, 0, sizeof(svc));
	cr_assert_not_null(svc.dir = tst_tmpdir(tag));
	xasprintf(&svc.repo, "%s/linux", svc.dir);
	snprintf(brk, sizeof(brk), "%d", broken);
	svc_make_repo("make-repo.sh", "6", plant, brk);
	svc_start(tag, nhosts, extra_bench, more);
}

void
svc_setup_with(const char *tag, int nhosts, const char *plant, int broken,
    char *(*more)(void))
{
	svc_setup_full(tag, nhosts, plant, broken, NULL, more);
}

void
svc_setup_bench(const char *tag, int nhosts, const char *plant,
    const char *extra_bench)
{
	svc_setup_full(tag, nhosts, plant, 0, extra_bench, NULL);
}

/* A generator's fixture, with keys of spin or sections of more(). */
void
svc_setup_script(const char *tag, int nhosts, const char *script,
    const char *fixture, const char *extra_bench, char *(*more)(void))
{
	memset(&svc, 0, sizeof(svc));
	cr_assert_not_null(svc.dir = tst_tmpdir(tag));
	xasprintf(&svc.repo, "%s/linux", svc.dir);
	svc_make_repo(script, fixture, NULL, NULL);
	svc_start(tag, nhosts, extra_bench, more);
}

/* The verification fixture, with keys of spin or sections of more(). */
static void
svc_case(const char *tag, int nhosts, const char *fixture,
    const char *extra_bench, char *(*more)(void))
{
	svc_setup_script(tag, nhosts, "make-verify-repo.sh", fixture,
	    extra_bench, more);
}

void
svc_setup_case(const char *tag, int nhosts, const char *fixture,
    const char *extra_bench)
{
	svc_case(tag, nhosts, fixture, extra_bench, NULL);
}

/* The verification fixture with more()'s sections, as svc_setup_with. */
void
svc_setup_case_with(const char *tag, int nhosts, const char *fixture,
    char *(*more)(void))
{
	svc_case(tag, nhosts, fixture, NULL, more);
}

/* One request and its parsed reply; the caller frees the reply. */
json_t *
svc_req(const char *fmt, ...)
{
	char *line, *out;
	va_list ap;

	va_start(ap, fmt);
	cr_assert(vasprintf(&line, fmt, ap) >= 0);
	va_end(ap);
	out = tst_daemon_request(&svc.td, line);
	free(line);
	/* The daemon's own words say why it stopped answering. */
	if (out == NULL)
		tst_daemon_show_log(&svc.td, "no reply from bisectd");
	cr_assert_not_null(out, "no reply from the daemon");
	return tst_daemon_reply(out);
}

/* The hosts entry of name, as the daemon shows it (caller frees), or NULL. */
json_t *
svc_host(const char *name)
{
	json_t *r = svc_req("{\"cmd\":\"hosts\"}"), *h, *found = NULL;
	size_t i;

	json_array_foreach(json_object_get(r, "hosts"), i, h)
		if (strcmp(json_string_value(json_object_get(h, "name")),
		    name) == 0)
			found = json_incref(h);
	json_decref(r);
	return found;
}

/* A host's state word; a static buffer, valid until the next call. */
const char *
svc_host_state(const char *name)
{
	static char state[32];
	json_t *h = svc_host(name);

	snprintf(state, sizeof(state), "%s", h ? json_string_value(
	    json_object_get(h, "state")) : "");
	json_decref(h);
	return state;
}

int64_t
svc_bisect_on(const char *bench, const char *good, const char *bad,
    const char *metric, int *existing)
{
	json_t *r = svc_req("{\"cmd\":\"bisect\",\"good\":[\"%s\"],"
	    "\"bad\":\"%s\",\"benchmark\":\"%s\",\"metric\":\"%s\","
	    "\"group\":\"lab\"}", good, bad, bench, metric);
	int64_t id;

	cr_assert(json_is_true(json_object_get(r, "ok")), "bisect failed: %s",
	    json_string_value(json_object_get(json_object_get(r, "error"),
	    "message")));
	id = json_integer_value(json_object_get(r, "bisection"));
	if (existing != NULL)
		*existing = json_is_true(json_object_get(r, "existing"));
	json_decref(r);
	return id;
}

/* good..bad on the fixture's spin benchmark. */
int64_t
svc_bisect_range(const char *good, const char *bad, const char *metric,
    int *existing)
{
	return svc_bisect_on("spin", good, bad, metric, existing);
}

/* The fixture's own range: good to bad with the planted culprit. */
int64_t
svc_bisect(const char *metric, int *existing)
{
	return svc_bisect_range(svc.good, svc.bad, metric, existing);
}

/* The status object of id (owned by the caller). */
json_t *
svc_status(int64_t id)
{
	json_t *r = svc_req("{\"cmd\":\"status\",\"bisection\":%lld}",
	    (long long)id), *b;

	cr_assert(json_is_true(json_object_get(r, "ok")));
	b = json_incref(json_object_get(r, "bisection"));
	json_decref(r);
	return b;
}

/* The daemon's status names a verification's bisections by id. */
json_t *
svc_children(json_t *b)
{
	return json_object_get(json_object_get(b, "verification"),
	    "children");
}

/* Progress of a bisection is its runs ending, its children's included. */
int64_t
svc_runs_ended(json_t *b)
{
	json_t *runs = json_object_get(b, "runs"), *v, *c;
	const char *k;
	int64_t n = 0;
	size_t i;

	json_object_foreach(runs, k, v)
		if (strcmp(k, "queued") != 0 && strcmp(k, "running") != 0)
			n += json_integer_value(v);
	json_array_foreach(svc_children(b), i, v) {
		c = svc_status(json_integer_value(v));
		n += svc_runs_ended(c);
		json_decref(c);
	}
	return n;
}

/* A stuck parent's message needs its children's state to be read. */
char *
svc_children_text(json_t *b)
{
	char *out = xstrdup(""), *status, *t;
	json_t *k, *c;
	size_t i;

	json_array_foreach(svc_children(b), i, k) {
		c = svc_status(json_integer_value(k));
		status = json_dumps(c, JSON_COMPACT);
		xasprintf(&t, "%s; child %s", out, status ? status : "-");
		free(status);
		free(out);
		out = t;
		json_decref(c);
	}
	return out;
}

/* Polls until the bisection leaves queued/running; returns its status. */
json_t *
svc_wait(int64_t id)
{
	int waited;
	json_t *b;
	const char *st;

	for (waited = 0; waited < SVC_WAIT_MS; waited += 200) {
		b = svc_status(id);
		st = json_string_value(json_object_get(b, "state"));
		if (strcmp(st, "queued") != 0 && strcmp(st, "running") != 0)
			return b;
		json_decref(b);
		usleep(200 * 1000);
	}
	cr_assert_fail("bisection %lld did not finish", (long long)id);
	return NULL;
}

void
svc_assert_culprit(json_t *b)
{
	char *dump = json_dumps(b, JSON_COMPACT);

	cr_assert_str_eq(json_string_value(json_object_get(b, "state")),
	    "done", "status: %s", dump);
	free(dump);
	cr_assert_str_eq(json_string_value(json_object_get(b, "verdict")),
	    "culprit");
	cr_assert_str_eq(json_string_value(json_object_get(b, "culprit")),
	    svc.culprit);
}

/* Each done run has its two metrics exactly once; nothing is doubled. */
size_t
svc_assert_samples_consistent(int64_t id)
{
	json_t *r = svc_req("{\"cmd\":\"samples\",\"bisection\":%lld}",
	    (long long)id), *s, *st;
	json_t *runs = json_object();
	size_t i, n;
	char key[32];
	const char *k;
	json_t *v;

	json_array_foreach(json_object_get(r, "samples"), i, s) {
		snprintf(key, sizeof(key), "%lld", (long long)json_integer_value(
		    json_object_get(s, "run")));
		v = json_object_get(runs, key);
		json_object_set_new(runs, key, json_integer(
		    (v ? json_integer_value(v) : 0) + 1));
	}
	json_object_foreach(runs, k, v)
		cr_assert_eq(json_integer_value(v), 2, "run %s has %lld "
		    "samples", k, (long long)json_integer_value(v));
	n = json_object_size(runs);
	st = svc_status(id);
	cr_assert_eq((size_t)json_integer_value(json_object_get(
	    json_object_get(st, "runs"), "done")), n);
	cr_assert_eq((size_t)json_integer_value(json_object_get(st,
	    "samples")), n);
	json_decref(st);
	json_decref(runs);
	json_decref(r);
	return n;
}

/* The hook writes its environment last, once it has read the report. */
char *
svc_hook_env(void)
{
	char *path, *env = NULL;
	int waited;

	xasprintf(&path, "%s/hook.env", svc.dir);
	for (waited = 0; waited < SVC_WAIT_MS; waited += 50) {
		free(env);
		if ((env = tst_read_file(path)) != NULL &&
		    strstr(env, "BISECTD_CULPRIT=") != NULL)
			break;
		usleep(50 * 1000);
	}
	free(path);
	cr_assert_not_null(env, "the report hook did not run");
	return env;
}

/* The hook got the report on stdin and the culprit's author in env. */
void
svc_assert_hook_ran(void)
{
	char *path, *text = NULL, *env = svc_hook_env();

	cr_assert_not_null(strstr(env, "BISECTD_CULPRIT_AUTHOR=Fixture Author "
	    "<author@example.org>"), "%s", env);
	xasprintf(&path, "%s/hook.txt", svc.dir);
	text = tst_read_file(path);
	free(path);
	cr_assert_not_null(text);
	cr_assert_not_null(strstr(text, svc.culprit), "%s", text);
	cr_assert_not_null(strstr(text, "git bisect start"), "%s", text);
	free(text);
	free(env);
}


/* Waits until no run of id is in flight or running, failing after a while. */
void
svc_wait_quiet(int64_t id)
{
	int waited;
	json_t *b;

	for (waited = 0; waited < SVC_WAIT_MS; waited += 50) {
		b = svc_status(id);
		if (json_array_size(json_object_get(b, "in_flight")) == 0 &&
		    json_integer_value(json_object_get(json_object_get(b,
		    "runs"), "running")) == 0) {
			json_decref(b);
			return;
		}
		json_decref(b);
		usleep(50 * 1000);
	}
	cr_assert_fail("runs of %lld still in flight", (long long)id);
}

/*
 * Waits until no host works for any bisection any more (every job of an
 * ended bisection has ended), then checks that the end logged no store
 * refusal: runs cancelled by a verdict are not finished a second time.
 */
void
svc_assert_ended_quietly(void)
{
	json_t *r, *h;
	char *log;
	size_t i;
	int busy = 1, tries;

	for (tries = 0; busy && tries < SVC_WAIT_MS / 20; tries++) {
		r = svc_req("{\"cmd\":\"hosts\"}");
		busy = 0;
		json_array_foreach(json_object_get(r, "hosts"), i, h)
			if (!json_is_null(json_object_get(h, "current")))
				busy = 1;
		json_decref(r);
		if (busy)
			usleep(20000);
	}
	cr_assert_not(busy, "hosts still work for ended bisections");
	log = tst_read_file(svc.td.log);
	cr_assert_not_null(log);
	cr_assert_null(strstr(log, "cannot end as"), "%s", log);
	cr_assert_null(strstr(log, ": store: run "), "%s", log);
	free(log);
}
