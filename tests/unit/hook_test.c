/* SPDX-License-Identifier: MIT */
/*
 * The report hook, run for real: /bin/sh -c with the report on stdin and
 * the culprit's facts in the environment, as daemon/reporter.c starts it.
 * Values come from commits, so a subject or an author carrying CR, LF or
 * terminal controls must reach the hook as one clean line; and the mail
 * hook that bisectd.conf.example suggests must make a well-formed mail of
 * what it gets.
 */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <criterion/criterion.h>
#include <uv.h>

#include "common/xmalloc.h"
#include "config/config.h"
#include "daemon/hook.h"
#include "daemon/mail.h"
#include "repo/maintainers.h"
#include "tests/support/tst.h"

/* A commit subject that tries to add a header and to drive a terminal. */
#define HOOK_SUBJECT	"[mm] 0123456789: ops -12% regression\r\n" \
			"Bcc: everyone@example.org\x1b]0;t\x07 \xc2\x9b" "1m \xc3\xa9"
#define HOOK_SUBJECT_SEEN "[mm] 0123456789: ops -12% regression??" \
			"Bcc: everyone@example.org?]0;t? ?1m \xc3\xa9"
#define HOOK_REPORT	"[mm] 0123456789: ops -12% regression\n\nbody\tline\n"

static char	*hook_dir;
static char	*hook_held[12];	/* strings freed by the fini */
static pid_t	 hook_seen[4];	/* hooks' processes, killed by the fini */

/* Hands s to the fini, so a failed assertion leaks nothing; returns s. */
static char *
hook_hold(char *s)
{
	size_t i;

	for (i = 0; i < 12 && hook_held[i] != NULL; i++)
		;
	cr_assert_lt(i, 12);
	return hook_held[i] = s;
}

static void
hook_setup(void)
{
	hook_dir = tst_tmpdir("hook");
	cr_assert_not_null(hook_dir);
}

static void
hook_teardown(void)
{
	size_t i;

	tst_rmrf(hook_dir);
	free(hook_dir);
	for (i = 0; i < 12; i++) {
		free(hook_held[i]);
		hook_held[i] = NULL;
	}
	/* After a failed assertion a hook's sleep may still run. */
	for (i = 0; i < 4 && hook_seen[i] > 0; i++) {
		if (!tst_process_ended(hook_seen[i])) {
			kill(-hook_seen[i], SIGKILL);
			kill(hook_seen[i], SIGKILL);
		}
		hook_seen[i] = 0;
	}
	tst_leak_check();
}

TestSuite(hook, .init = hook_setup, .fini = hook_teardown, .timeout = 60);

/* Runs command as the reporter does and waits until the hook is done. */
static void
hook_run_wait(const char *command, const char *subject, const char *author,
    const char *input)
{
	char *env[4];
	uv_loop_t loop;
	size_t i;

	xasprintf(&env[0], "BISECTD_SUBJECT=%s", subject);
	xasprintf(&env[1], "BISECTD_CULPRIT_AUTHOR=%s", author);
	xasprintf(&env[2], "BISECTD_VERDICT=%s", "done");
	env[3] = NULL;
	cr_assert_eq(uv_loop_init(&loop), 0);
	cr_assert_eq(hook_run(&loop, command, env, input, 0), 0);
	for (i = 0; i < 3; i++)
		free(env[i]);
	uv_run(&loop, UV_RUN_DEFAULT);
	cr_assert_eq(uv_loop_close(&loop), 0, "a hook handle is still open");
}

/* The value of name in an `env` dump (held for the fini), or NULL. */
static const char *
hook_env_value(const char *dump, const char *name)
{
	size_t n = strlen(name);
	const char *line = dump;

	while (line != NULL && *line != '\0') {
		if (strncmp(line, name, n) == 0 && line[n] == '=')
			return hook_hold(xstrndup(line + n + 1,
			    strcspn(line + n + 1, "\n")));
		line = strchr(line, '\n');
		line = line != NULL ? line + 1 : NULL;
	}
	return NULL;
}

Test(hook, values_from_commits_reach_the_hook_as_one_clean_line)
{
	char *cmd, *path, *env, *in;

	xasprintf(&cmd, "cat > '%s/in' && env > '%s/env'", hook_dir, hook_dir);
	hook_run_wait(hook_hold(cmd), HOOK_SUBJECT,
	    "A. U. Thor\r\nCc: x@example.org <a@example.org>", HOOK_REPORT);

	xasprintf(&path, "%s/in", hook_dir);
	in = hook_hold(tst_read_file(hook_hold(path)));
	cr_assert_not_null(in, "the hook did not run");
	cr_assert_str_eq(in, HOOK_REPORT, "the report on stdin changed");
	xasprintf(&path, "%s/env", hook_dir);
	env = hook_hold(tst_read_file(hook_hold(path)));
	cr_assert_not_null(env, "the hook did not run");
	tst_assert_no_controls("the hook's environment", env, 0);
	cr_assert_null(strstr(env, "\nBcc:"), "a value started a line");
	cr_assert_null(strstr(env, "\nCc:"), "a value started a line");
	cr_assert_str_eq(hook_env_value(env, "BISECTD_SUBJECT"),
	    HOOK_SUBJECT_SEEN);
	cr_assert_str_eq(hook_env_value(env, "BISECTD_CULPRIT_AUTHOR"),
	    "A. U. Thor??Cc: x@example.org <a@example.org>");
}

/*
 * The report_hook line of config/bisectd.conf.example, with sendmail
 * replaced by a file, so the test reads the mail the example would send.
 */
static char *
hook_example_command(const char *mail)
{
	static const char key[] = "report_hook = ";
	static const char sendmail[] = "/usr/sbin/sendmail -t";
	char *path, *conf, *line, *nl, *at, *cmd;

	xasprintf(&path, "%s/config/bisectd.conf.example",
	    tst_env_path("BISECTD_SRCDIR"));
	conf = hook_hold(tst_read_file(hook_hold(path)));
	cr_assert_not_null(conf);
	line = strstr(conf, "\nreport_hook = ");
	cr_assert_not_null(line, "the example sets no report_hook");
	line += 1 + strlen(key);
	if ((nl = strchr(line, '\n')) != NULL)
		*nl = '\0';
	at = strstr(line, sendmail);
	cr_assert_not_null(at, "the example hook does not use %s", sendmail);
	xasprintf(&cmd, "%.*scat > '%s'%s", (int)(at - line), line, mail,
	    at + strlen(sendmail));
	return hook_hold(cmd);
}

Test(hook, the_example_mail_hook_writes_one_subject_and_the_report)
{
	char *mail_path, *mail, *body, *h, *save = NULL;
	int subjects = 0, tos = 0;

	xasprintf(&mail_path, "%s/mail", hook_dir);
	hook_run_wait(hook_example_command(hook_hold(mail_path)),
	    HOOK_SUBJECT, "A. U. Thor <a@example.org>", HOOK_REPORT);
	mail = hook_hold(tst_read_file(mail_path));
	cr_assert_not_null(mail, "the example hook wrote no mail");
	body = strstr(mail, "\n\n");
	cr_assert_not_null(body, "no blank line ends the headers:\n%s", mail);
	cr_assert_str_eq(body + 2, HOOK_REPORT, "the report is not the body");
	body[1] = '\0';
	for (h = strtok_r(mail, "\n", &save); h != NULL;
	    h = strtok_r(NULL, "\n", &save)) {
		cr_assert_not_null(strchr(h, ':'), "not a header: %s", h);
		cr_assert_neq(strncmp(h, "Bcc:", 4), 0, "an injected header");
		if (strncmp(h, "Subject: ", 9) == 0) {
			subjects++;
			cr_assert_str_eq(h + 9, HOOK_SUBJECT_SEEN);
		}
		tos += strncmp(h, "To: ", 4) == 0;
	}
	cr_assert_eq(subjects, 1, "%d Subject headers", subjects);
	cr_assert_eq(tos, 1, "%d To headers", tos);
}

/* The pid the hook wrote to name in the test's directory. */
static pid_t
hook_pid(const char *name)
{
	char *path;
	pid_t pid;

	size_t i;

	xasprintf(&path, "%s/%s", hook_dir, name);
	pid = tst_wait_pid_file(hook_hold(path));
	for (i = 0; i < 4 && hook_seen[i] > 0; i++)
		;
	cr_assert_lt(i, 4);
	hook_seen[i] = pid;
	return pid;
}

/*
 * A hook past its deadline is killed with the processes it started (a
 * pipeline's sleep and cat here), so hung hooks cannot pile up.
 */
Test(hook, a_hook_past_its_deadline_is_killed_with_its_children)
{
	char *cmd, *env[] = { NULL };
	uv_loop_t loop;
	pid_t child;
	int i;

	xasprintf(&cmd, "cd '%s' && { sleep 60 & echo $! > child.pid; "
	    "wait; } | cat", hook_dir);
	cr_assert_eq(uv_loop_init(&loop), 0);
	cr_assert_eq(hook_run(&loop, hook_hold(cmd), env, "", 300), 0);
	child = hook_pid("child.pid");
	uv_run(&loop, UV_RUN_DEFAULT);
	cr_assert_eq(uv_loop_close(&loop), 0, "a hook handle is still open");
	for (i = 0; i < 2000 && !tst_process_ended(child); i++)
		usleep(10 * 1000);
	if (!tst_process_ended(child))
		kill(child, SIGKILL);
	cr_assert(i < 2000, "the hook's sleep outlived the hook");
}

/*
 * At shutdown the daemon stops watching its hooks, so its loop ends while
 * a hook still runs, and the hook goes on by itself.
 */
Test(hook, a_shutdown_leaves_a_running_hook_alone)
{
	char *cmd, *env[] = { NULL };
	uv_loop_t loop;
	pid_t pid;
	int alive;

	xasprintf(&cmd, "cd '%s' && echo $$ > hook.pid && exec sleep 60",
	    hook_dir);
	cr_assert_eq(uv_loop_init(&loop), 0);
	cr_assert_eq(hook_run(&loop, hook_hold(cmd), env, "", 0), 0);
	pid = hook_pid("hook.pid");
	hook_detach_all();
	uv_run(&loop, UV_RUN_DEFAULT);
	alive = kill(pid, 0) == 0 && !tst_process_ended(pid);
	kill(-pid, SIGKILL);
	cr_assert_eq(uv_loop_close(&loop), 0, "a hook handle is still open");
	cr_assert(alive, "the hook did not run on");
}

/*
 * The mail facts the reporter adds (daemon/mail.c), through a real hook: a
 * stable Message-ID, In-Reply-To for a sub-range's report, the trailers
 * from the configured templates, and To/Cc from the culprit and
 * MAINTAINERS, each address once.
 */
Test(hook, the_hook_sees_message_id_in_reply_to_and_trailers)
{
	struct config cfg;
	struct repo_maint maint;
	struct mail m;
	struct mail_facts f = { .id = 7, .created_ms = 1769000000123,
	    .parent_id = 3, .parent_created_ms = 1768000000000,
	    .author = "A. U. Thor <author@example.org>",
	    .committer = "C. O. Mitter <committer@example.org>" };
	char *env[MAIL_ENV_MAX + 1], *cmd, *path, *dump, *again;
	uv_loop_t loop;
	size_t n = 0, i;

	config_init(&cfg);
	cfg.daemon.message_id_domain = xstrdup("ci.example.org");
	cfg.daemon.report_reported_by = xstrdup("bisectd <ci@example.org>");
	cfg.daemon.report_closes = xstrdup(
	    "https://lore.kernel.org/r/{message_id}");
	cfg.daemon.report_link = xstrdup("https://ci.example.org/m/{message_id}"
	    "/{sha}");
	cfg.daemon.report_regzbot = 1;
	repo_maint_init(&maint);
	repo_maint_add(&maint, false, "Maint Ainer <maint@example.org>");
	repo_maint_add(&maint, false, "A. U. Thor <AUTHOR@example.org>");
	repo_maint_add(&maint, true, "linux-mm@kvack.org");
	f.maint = &maint;
	mail_init(&m);
	mail_build(&m, &cfg, &f);
	mail_env(&m, env, &n);
	env[n] = NULL;
	cr_assert_eq(n, MAIL_ENV_MAX);
	xasprintf(&cmd, "env > '%s/env'", hook_dir);
	cr_assert_eq(uv_loop_init(&loop), 0);
	cr_assert_eq(hook_run(&loop, hook_hold(cmd), env, "report\n", 0), 0);
	uv_run(&loop, UV_RUN_DEFAULT);
	cr_assert_eq(uv_loop_close(&loop), 0);
	for (i = 0; i < n; i++)
		free(env[i]);
	cr_assert(m.rep.regzbot);
	/* The same bisection gets the same Message-ID every time. */
	again = mail_message_id("ci.example.org", 7, 1769000000123, 0);
	cr_expect_str_eq(again, m.message_id);
	free(again);
	/* A report made again later replies to the verdict's. */
	f.followup = 2;
	mail_build(&m, &cfg, &f);
	cr_expect_str_eq(m.message_id,
	    "<bisectd.7.1769000000123.f2@ci.example.org>");
	cr_expect_str_eq(m.in_reply_to, "<bisectd.7.1769000000123@ci.example.org>");
	f.followup = 0;
	mail_release(&m);
	repo_maint_release(&maint);
	config_release(&cfg);

	xasprintf(&path, "%s/env", hook_dir);
	dump = hook_hold(tst_read_file(hook_hold(path)));
	cr_assert_not_null(dump, "the hook did not run");
	cr_expect_str_eq(hook_env_value(dump, "BISECTD_MESSAGE_ID"),
	    "<bisectd.7.1769000000123@ci.example.org>");
	cr_expect_str_eq(hook_env_value(dump, "BISECTD_IN_REPLY_TO"),
	    "<bisectd.3.1768000000000@ci.example.org>");
	cr_expect_str_eq(hook_env_value(dump, "BISECTD_REPORTED_BY"),
	    "bisectd <ci@example.org>");
	cr_expect_str_eq(hook_env_value(dump, "BISECTD_CLOSES"),
	    "https://lore.kernel.org/r/bisectd.7.1769000000123@ci.example.org");
	cr_expect_str_eq(hook_env_value(dump, "BISECTD_LINK"),
	    "https://ci.example.org/m/bisectd.7.1769000000123@ci.example.org"
	    "/{sha}");
	cr_expect_str_eq(hook_env_value(dump, "BISECTD_TO"),
	    "A. U. Thor <author@example.org>, Maint Ainer <maint@example.org>");
	cr_expect_str_eq(hook_env_value(dump, "BISECTD_CC"),
	    "C. O. Mitter <committer@example.org>, linux-mm@kvack.org");
}
