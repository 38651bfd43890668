/* SPDX-License-Identifier: MIT */
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>

#include <netinet/in.h>
#include <arpa/inet.h>

#include <fcntl.h>
#include <ftw.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <sanitizer/lsan_interface.h>

#include <criterion/criterion.h>
#include <criterion/hooks.h>

#include "common/xmalloc.h"
#include "tests/support/tst.h"

/* Tests of hooks and children read /proc: no wait can tell of a non-child. */
int
tst_process_ended(int pid)
{
	char path[64], *stat, *close_paren;
	int ended;

	snprintf(path, sizeof(path), "/proc/%d/stat", pid);
	if ((stat = tst_read_file(path)) == NULL)
		return 1;
	close_paren = strrchr(stat, ')');
	ended = close_paren != NULL && (close_paren[2] == 'Z' ||
	    close_paren[2] == 'X');
	free(stat);
	return ended;
}

/* Forces LeakSanitizer's check while the worker can still fail the run. */
void
tst_leak_check(void)
{
	if (__lsan_do_recoverable_leak_check() != 0) {
		fprintf(stderr, "LeakSanitizer found leaks in this test\n");
		abort();
	}
}

char *
tst_tmpdir(const char *tag)
{
	const char *base = getenv("TMPDIR");
	char *path;

	xasprintf(&path, "%s/bisectd-%s-XXXXXX", base ? base : "/tmp", tag);
	if (mkdtemp(path) == NULL) {
		free(path);
		return NULL;
	}
	return path;
}

static int
tst_rmrf_one(const char *path, const struct stat *st, int flag,
    struct FTW *ftw)
{
	(void)st; (void)flag; (void)ftw;
	remove(path);
	return 0;
}

void
tst_rmrf(const char *path)
{
	if (path != NULL)
		nftw(path, tst_rmrf_one, 16, FTW_DEPTH | FTW_PHYS);
}

char *
tst_write_file(const char *dir, const char *name, const char *text)
{
	char *path;
	FILE *f;

	xasprintf(&path, "%s/%s", dir, name);
	f = fopen(path, "w");
	if (f == NULL) {
		free(path);
		return NULL;
	}
	fputs(text, f);
	fclose(f);
	return path;
}

char *
tst_read_file(const char *path)
{
	FILE *f = fopen(path, "r");
	char *buf = NULL;
	size_t len = 0, cap = 0, n;

	if (f == NULL)
		return NULL;
	do {
		if (cap - len < 4096) {
			cap = cap ? 2 * cap : 8192;
			buf = xreallocarray(buf, cap, 1);
		}
		n = fread(buf + len, 1, cap - len - 1, f);
		len += n;
	} while (n > 0);
	buf[len] = '\0';
	fclose(f);
	return buf;
}

int
tst_run(char *const argv[])
{
	int status;
	char *out = tst_run_capture(argv, &status);

	if (out == NULL)
		return -1;
	free(out);
	return status;
}

char *
tst_run_capture(char *const argv[], int *status)
{
	int fd[2];
	pid_t pid;
	char *buf = NULL;
	size_t len = 0, cap = 0;
	ssize_t n;
	int st;

	if (pipe(fd) == -1)
		return NULL;
	pid = fork();
	if (pid == -1) {
		close(fd[0]);
		close(fd[1]);
		return NULL;
	}
	if (pid == 0) {
		int devnull = open("/dev/null", O_RDONLY);

		dup2(devnull, 0);
		dup2(fd[1], 1);
		close(fd[0]);
		close(fd[1]);
		execvp(argv[0], argv);
		_exit(127);
	}
	close(fd[1]);
	for (;;) {
		if (cap - len < 4096) {
			cap = cap ? cap * 2 : 8192;
			buf = xreallocarray(buf, cap, 1);
		}
		n = read(fd[0], buf + len, cap - len - 1);
		if (n <= 0)
			break;
		len += (size_t)n;
	}
	close(fd[0]);
	buf[len] = '\0';
	if (waitpid(pid, &st, 0) == -1) {
		free(buf);
		return NULL;
	}
	if (status != NULL)
		*status = WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
	return buf;
}

const char *
tst_env_path(const char *var)
{
	const char *v = getenv(var);

	return v != NULL ? v : "";
}

int
tst_free_port(void)
{
	struct sockaddr_in sin;
	socklen_t len = sizeof(sin);
	int s, port;

	s = socket(AF_INET, SOCK_STREAM, 0);
	if (s == -1)
		return -1;
	memset(&sin, 0, sizeof(sin));
	sin.sin_family = AF_INET;
	sin.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	sin.sin_port = 0;
	if (bind(s, (struct sockaddr *)&sin, sizeof(sin)) == -1 ||
	    getsockname(s, (struct sockaddr *)&sin, &len) == -1) {
		close(s);
		return -1;
	}
	port = ntohs(sin.sin_port);
	close(s);
	return port;
}

/*
 * Git commands the tests run (commit-tree, tag) need an identity, and a
 * clean CI machine has no ~/.gitconfig, while a developer's may sign
 * commits or run hooks: every process of the runner reads the tests' own
 * global config instead (tests/support/gitconfig).  It is the global
 * scope, so a fixture repository's own user.name still wins.
 */
__attribute__((constructor)) static void
tst_git_config(void)
{
	const char *src = getenv("BISECTD_SRCDIR");
	char *path;

	if (src == NULL || getenv("GIT_CONFIG_GLOBAL") != NULL)
		return;
	xasprintf(&path, "%s/tests/support/gitconfig", src);
	setenv("GIT_CONFIG_GLOBAL", path, 1);
	free(path);
}

/* The runner process itself, set before the first test starts. */
static pid_t tst_runner_pid;

ReportHook(PRE_ALL)(struct criterion_test_set *set)
{
	(void)set;
	tst_runner_pid = getpid();
}

/*
 * What LeakSanitizer ignores: Criterion 2.4 keeps 48 bytes of its own in
 * the runner process at exit.  A suppression matches any frame of a
 * leak's stack, and every test's stack runs through libcriterion, so it is
 * given to the runner process alone: a test worker (another pid) reports
 * every leak, also those of the libraries we call (libgit2's pcre2
 * matches were one, until the mirror stopped asking for insteadOf).
 */
const char *__lsan_default_suppressions(void);
const char *
__lsan_default_suppressions(void)
{
	if (tst_runner_pid != 0 && getpid() == tst_runner_pid)
		return "leak:libcriterion.so\n";
	return "";
}
