/* SPDX-License-Identifier: MIT */
#include <sys/stat.h>

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <criterion/criterion.h>

#include "common/log.h"
#include "common/xmalloc.h"
#include "tests/support/tst.h"

/* Where stderr went during the test, and the descriptor to put back. */
static char	*log_dir;
static char	*log_path;
static int	 log_saved = -1;
static char	*log_text;	/* what log_lines read, freed by teardown */

/* Sends stderr to a file, so a test reads what the log wrote. */
static void
log_setup(void)
{
	int fd;

	log_dir = tst_tmpdir("log");
	cr_assert_not_null(log_dir);
	xasprintf(&log_path, "%s/stderr", log_dir);
	fflush(stderr);
	log_saved = dup(STDERR_FILENO);
	fd = open(log_path, O_WRONLY | O_CREAT | O_TRUNC, 0600);
	cr_assert(log_saved >= 0 && fd >= 0);
	dup2(fd, STDERR_FILENO);
	close(fd);
}

/* Puts stderr back first, also after a failed assertion, then cleans up. */
static void
log_teardown(void)
{
	fflush(stderr);
	if (log_saved >= 0) {
		dup2(log_saved, STDERR_FILENO);
		close(log_saved);
		log_saved = -1;
	}
	tst_rmrf(log_dir);
	free(log_text);
	log_text = NULL;
	free(log_dir);
	free(log_path);
	tst_leak_check();
}

TestSuite(log, .init = log_setup, .fini = log_teardown);

/* What the log wrote so far, and how many lines; teardown frees it. */
static char *
log_lines(size_t *nlines)
{
	char *p;

	free(log_text);
	log_text = tst_read_file(log_path);
	cr_assert_not_null(log_text);
	*nlines = 0;
	for (p = log_text; (p = strchr(p, '\n')) != NULL; p++)
		(*nlines)++;
	return log_text;
}

/* A newline, an escape sequence, DEL and a C1 CSI stay on one line. */
Test(log, controls_are_escaped_on_one_line)
{
	size_t n;
	char *text;

	log_init("logtest", 1, LOG_LEVEL_DEBUG);
	log_warnx("%s", "a\nb\x1b[31mc\x7f\xc2\x9b" "d \xc3\xa9");
	errno = ENOENT;
	log_warn("%s", "x\ry\tz");
	log_info("%s", "C:\\n is not \\x0a");
	text = log_lines(&n);
	cr_assert_eq(n, 3, "%s", text);
	/* A backslash of the message's own is doubled: no escape is forged. */
	cr_assert_not_null(strstr(text, "logtest[info] C:\\\\n is not "
	    "\\\\x0a\n"), "%s", text);
	cr_assert_not_null(strstr(text, "logtest[warn] "
	    "a\\nb\\x1b[31mc\\x7f\\xc2\\x9bd \xc3\xa9\n"), "%s", text);
	cr_assert_not_null(strstr(text, "logtest[warn] x\\ry\\tz: "
	    "No such file or directory\n"), "%s", text);
	cr_assert_null(strchr(text, '\x1b'));
	cr_assert_null(strchr(text, '\x7f'));
	cr_assert_null(strchr(text, '\r'));
	cr_assert_null(strchr(text, '\t'));
	cr_assert_null(strstr(text, "\xc2\x9b"));
}

/*
 * The 2047-byte limit cuts the message before it is escaped, so no escape
 * is cut; a character the limit cut shows its lead byte as an escape.
 */
Test(log, a_long_message_keeps_whole_escapes)
{
	char big[3000], *text, *line;
	size_t n;

	log_init("logtest", 1, LOG_LEVEL_DEBUG);
	memset(big, '\x01', sizeof(big) - 1);
	big[sizeof(big) - 1] = '\0';
	log_info("%s", big);
	memset(big, 'a', 2046);
	strcpy(big + 2046, "\xc3\xa9 tail");
	log_info("%s", big);
	text = log_lines(&n);
	cr_assert_eq(n, 2);
	line = strstr(text, "logtest[info] ");
	cr_assert_not_null(line);
	line += strlen("logtest[info] ");
	for (n = 0; strncmp(line + 4 * n, "\\x01", 4) == 0; n++)
		;
	cr_assert_eq(n, 2047);
	cr_assert_eq(line[4 * n], '\n');
	cr_assert_not_null(strstr(text, "aaaa\\xc3\n"));
}

/*
 * Under systemd, stderr is the journal's stream (JOURNAL_STREAM names its
 * device and inode): every line starts with its sd-daemon priority and
 * carries no stamp of its own, so `journalctl -p warning` finds warnings.
 * A stderr redirected elsewhere keeps the stamped lines.
 */
Test(log, journal_lines_carry_priorities_and_no_stamp)
{
	struct stat st;
	char env[64];
	size_t n;
	char *text;

	cr_assert_eq(fstat(STDERR_FILENO, &st), 0);
	snprintf(env, sizeof(env), "%llu:%llu",
	    (unsigned long long)st.st_dev, (unsigned long long)st.st_ino);
	setenv("JOURNAL_STREAM", env, 1);
	log_init("t", 1, LOG_LEVEL_DEBUG);
	log_errx("e");
	log_warnx("w");
	log_info("i");
	log_debug("d");
	text = log_lines(&n);
	cr_assert_str_eq(text, "<3>t[error] e\n<4>t[warn] w\n<6>t[info] i\n"
	    "<7>t[debug] d\n");
	snprintf(env, sizeof(env), "%llu:%llu",
	    (unsigned long long)st.st_dev, (unsigned long long)st.st_ino + 1);
	setenv("JOURNAL_STREAM", env, 1);
	log_init("t", 1, LOG_LEVEL_DEBUG);
	log_info("x");
	text = log_lines(&n);
	cr_assert_eq(n, 5);
	cr_assert_not_null(strstr(text, "Z t[info] x\n"), "%s", text);
	unsetenv("JOURNAL_STREAM");
}

/* At log_level error a warning is quiet, and why the daemon stops is not. */
Test(log, the_reason_a_daemon_stops_is_written_at_any_level)
{
	size_t n;
	char *text;

	unsetenv("JOURNAL_STREAM");
	log_init("t", 1, LOG_LEVEL_ERROR);
	log_warnx("quiet");
	log_info("quiet");
	log_fatalx("cannot start: %s", "why");
	text = log_lines(&n);
	cr_assert_eq(n, 1, "%s", text);
	cr_assert_not_null(strstr(text, "t[error] cannot start: why\n"));
}
