/* SPDX-License-Identifier: MIT */
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>

#include <netinet/in.h>
#include <arpa/inet.h>

#include <dirent.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "common/xmalloc.h"
#include "tests/support/sshd.h"
#include "tests/support/tst.h"

#define SSHD_BIN	"/usr/sbin/sshd"
#define SSHD_WAIT_MS	5000
#define SSHD_MAX_PIDS	4096

/* Short pauses while polling for the server. */
static void
sshd_sleep_ms(long ms)
{
	struct timespec ts = { ms / 1000, (ms % 1000) * 1000000L };

	nanosleep(&ts, NULL);
}

/* ssh-keygen writes name and name.pub; keys are cheap, so one per test. */
char *
sshd_keygen(struct sshd *s, const char *name, const char *passphrase,
    int authorize)
{
	char *path, *pub, *cmd[] = { "ssh-keygen", "-q", "-t", "ed25519",
	    "-N", NULL, "-C", "bisectd-test", "-f", NULL, NULL };
	char buf[512];
	FILE *in, *out;
	size_t n;

	xasprintf(&path, "%s/%s", s->dir, name);
	cmd[5] = (char *)(passphrase != NULL ? passphrase : "");
	cmd[9] = path;
	if (tst_run(cmd) != 0) {
		fprintf(stderr, "sshd: ssh-keygen %s failed\n", path);
		free(path);
		return NULL;
	}
	if (!authorize)
		return path;
	xasprintf(&pub, "%s.pub", path);
	xasprintf(&cmd[0], "%s/authorized_keys", s->dir);
	in = fopen(pub, "r");
	out = fopen(cmd[0], "a");
	while (in != NULL && out != NULL &&
	    (n = fread(buf, 1, sizeof(buf), in)) > 0)
		fwrite(buf, 1, n, out);
	if (in != NULL)
		fclose(in);
	if (out != NULL)
		fclose(out);
	free(cmd[0]);
	free(pub);
	return path;
}

/* A host with several host keys, or with an RSA key only, on demand. */
char *
sshd_host_key(struct sshd *s, const char *type, int replace)
{
	char *path, *pub, *dst;
	FILE *f;
	int rc;

	xasprintf(&path, "%s/host_%s", s->dir, type);
	xasprintf(&pub, "%s.pub", path);
	xasprintf(&dst, "%s/host_key", s->dir);
	rc = tst_run((char *[]){ "ssh-keygen", "-q", "-t", (char *)type,
	    "-N", "", "-f", path, NULL });
	if (rc == 0 && replace)
		rc = tst_run((char *[]){ "cp", path, dst, NULL }) |
		    tst_run((char *[]){ "cp", pub, s->host_pub, NULL });
	else if (rc == 0) {
		if ((f = fopen(s->config, "a")) == NULL)
			rc = -1;
		else {
			fprintf(f, "HostKey %s\n", path);
			rc = fclose(f);
		}
	}
	if (rc == 0)
		rc = sshd_restart(s);
	free(dst);
	free(path);
	if (rc != 0) {
		fprintf(stderr, "sshd: cannot add a %s host key\n", type);
		free(pub);
		return NULL;
	}
	return pub;
}

/* The line OpenSSH writes for a host on a non-default port. */
int
sshd_write_known_hosts(const struct sshd *s, const char *path,
    const char *pubfile)
{
	char type[64], key[512];
	FILE *in, *out;
	int ok;

	if ((in = fopen(pubfile, "r")) == NULL)
		return -1;
	ok = fscanf(in, "%63s %511s", type, key) == 2;
	fclose(in);
	if (!ok || (out = fopen(path, "w")) == NULL)
		return -1;
	fprintf(out, "[127.0.0.1]:%d %s %s\n", s->port, type, key);
	fclose(out);
	return 0;
}

/* Loopback only, keys in the temp dir, limits high enough for the bench. */
static int
sshd_write_config(struct sshd *s)
{
	FILE *f = fopen(s->config, "w");

	if (f == NULL)
		return -1;
	fprintf(f,
	    "ListenAddress 127.0.0.1\n"
	    "Port %d\n"
	    "HostKey %s/host_key\n"
	    "AuthorizedKeysFile %s/authorized_keys\n"
	    "PidFile %s/sshd.pid\n"
	    "StrictModes no\n"
	    "UsePAM no\n"
	    "PermitRootLogin prohibit-password\n"
	    "PasswordAuthentication no\n"
	    "KbdInteractiveAuthentication no\n"
	    "UseDNS no\n"
	    "PrintMotd no\n"
	    "PrintLastLog no\n"
	    "MaxStartups 400\n"
	    "MaxSessions 64\n"
	    "MaxAuthTries 10\n"
	    "LoginGraceTime 30\n"
	    "LogLevel ERROR\n"
	    /* bash sources ~/.bashrc for sshd commands; the machine's may
	     * be slow or serialised (a pyenv rehash lock), so give the
	     * sessions an empty home. */
	    "SetEnv HOME=%s\n"
	    "%s\n",
	    s->port, s->dir, s->dir, s->dir, s->dir, s->no_sftp ? "" :
	    "Subsystem sftp /usr/lib/openssh/sftp-server");
	return fclose(f);
}

/* True once a TCP connect to the port succeeds. */
static int
sshd_accepts(int port)
{
	struct sockaddr_in sin;
	int fd, ok;

	fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (fd == -1)
		return 0;
	memset(&sin, 0, sizeof(sin));
	sin.sin_family = AF_INET;
	sin.sin_port = htons((uint16_t)port);
	sin.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	ok = connect(fd, (struct sockaddr *)&sin, sizeof(sin)) == 0;
	close(fd);
	return ok;
}

/*
 * The port answers and sshd's pid file names our child: another test's
 * server cannot be mistaken for ours when two picked the same free port.
 */
static int
sshd_is_ours(struct sshd *s)
{
	char *path, buf[32];
	FILE *f;
	int ok = 0;

	if (!sshd_accepts(s->port))
		return 0;
	xasprintf(&path, "%s/sshd.pid", s->dir);
	if ((f = fopen(path, "r")) != NULL) {
		ok = fgets(buf, sizeof(buf), f) != NULL &&
		    atoi(buf) == (int)s->pid;
		fclose(f);
	}
	free(path);
	return ok;
}

/* Runs sshd in the foreground as our child; it dies with the test. */
static int
sshd_spawn(struct sshd *s)
{
	int st, waited, fd;
	char *pidfile;

	mkdir("/run/sshd", 0755);
	xasprintf(&pidfile, "%s/sshd.pid", s->dir);
	unlink(pidfile);
	free(pidfile);
	s->pid = fork();
	if (s->pid == -1)
		return -1;
	if (s->pid == 0) {
		prctl(PR_SET_PDEATHSIG, SIGKILL);
		fd = open(s->log, O_WRONLY | O_CREAT | O_APPEND, 0644);
		if (fd != -1) {
			dup2(fd, 2);
			close(fd);
		}
		fd = open("/dev/null", O_RDWR);
		dup2(fd, 0);
		dup2(fd, 1);
		execl(SSHD_BIN, SSHD_BIN, "-D", "-e", "-f", s->config,
		    (char *)NULL);
		_exit(127);
	}
	for (waited = 0; waited < SSHD_WAIT_MS; waited += 10) {
		if (waitpid(s->pid, &st, WNOHANG) == s->pid) {
			s->pid = 0;
			return -1;
		}
		if (sshd_is_ours(s))
			return 0;
		sshd_sleep_ms(10);
	}
	sshd_stop(s);
	return -1;
}

/* Retries with another port when one turns out to be taken. */
static int
sshd_start_as(struct sshd *s, const char *tag, int no_sftp)
{
	char *hk;
	int tries;

	memset(s, 0, sizeof(*s));
	s->no_sftp = no_sftp;
	if ((s->dir = tst_tmpdir(tag)) == NULL)
		return -1;
	xasprintf(&s->config, "%s/sshd_config", s->dir);
	xasprintf(&s->log, "%s/sshd.log", s->dir);
	xasprintf(&s->known_hosts, "%s/known_hosts", s->dir);
	xasprintf(&s->host_pub, "%s/host_key.pub", s->dir);
	if ((hk = sshd_keygen(s, "host_key", NULL, 0)) == NULL)
		return -1;
	free(hk);
	if ((s->user_key = sshd_keygen(s, "user_key", NULL, 1)) == NULL)
		return -1;
	for (tries = 0; tries < 5; tries++) {
		s->port = tst_free_port();
		if (sshd_write_config(s) != 0 ||
		    sshd_write_known_hosts(s, s->known_hosts, s->host_pub) != 0)
			return -1;
		if (sshd_spawn(s) == 0)
			return 0;
	}
	fprintf(stderr, "sshd: could not start, see %s\n", s->log);
	return -1;
}

/* A server with the SFTP subsystem, as most hosts have. */
int
sshd_start(struct sshd *s, const char *tag)
{
	return sshd_start_as(s, tag, 0);
}

/* A server whose sshd_config names no SFTP subsystem. */
int
sshd_start_nosftp(struct sshd *s, const char *tag)
{
	return sshd_start_as(s, tag, 1);
}

/* Same port and keys: a rebooted host looks the same. */
int
sshd_restart(struct sshd *s)
{
	if (s->pid != 0)
		sshd_stop(s);
	return sshd_spawn(s);
}

/* Every pid whose parent chain reaches root, from /proc. */
static size_t
sshd_descendants(pid_t root, pid_t *out, size_t max)
{
	size_t n = 0, i, before;
	struct dirent *d;
	char path[64], buf[512], *p;
	pid_t pid, ppid;
	DIR *dir;
	FILE *f;

	do {
		before = n;
		if ((dir = opendir("/proc")) == NULL)
			return n;
		while ((d = readdir(dir)) != NULL && n < max) {
			if ((pid = atoi(d->d_name)) <= 0)
				continue;
			snprintf(path, sizeof(path), "/proc/%d/stat", pid);
			if ((f = fopen(path, "r")) == NULL)
				continue;
			p = fgets(buf, sizeof(buf), f);
			fclose(f);
			if (p == NULL || (p = strrchr(buf, ')')) == NULL ||
			    sscanf(p + 2, "%*c %d", &ppid) != 1)
				continue;
			for (i = 0; i < n && out[i] != pid; i++)
				;
			if (i < n)
				continue;
			if (ppid == root)
				out[n++] = pid;
			else
				for (i = 0; i < before; i++)
					if (out[i] == ppid) {
						out[n++] = pid;
						break;
					}
		}
		closedir(dir);
	} while (n != before && n < max);
	return n;
}

/* Stops or kills the sessions while the listener stays. */
void
sshd_signal_sessions(struct sshd *s, int sig)
{
	pid_t *pids;
	size_t n, i;

	if (s->pid == 0)
		return;
	pids = xcalloc(SSHD_MAX_PIDS, sizeof(*pids));
	n = sshd_descendants(s->pid, pids, SSHD_MAX_PIDS);
	for (i = 0; i < n; i++)
		kill(pids[i], sig);
	free(pids);
}

/* Kills the server and every session, like a host that crashes. */
void
sshd_stop(struct sshd *s)
{
	if (s->pid == 0)
		return;
	kill(s->pid, SIGSTOP);		/* no new children meanwhile */
	sshd_signal_sessions(s, SIGKILL);
	kill(s->pid, SIGKILL);
	waitpid(s->pid, NULL, 0);
	s->pid = 0;
}

/* Safe after a failed start and on a struct never started. */
void
sshd_cleanup(struct sshd *s)
{
	sshd_stop(s);
	if (getenv("BISECTD_TEST_KEEP") == NULL)
		tst_rmrf(s->dir);
	free(s->dir);
	free(s->config);
	free(s->user_key);
	free(s->known_hosts);
	free(s->host_pub);
	free(s->log);
	memset(s, 0, sizeof(*s));
}

/* A host entry as config.c would make it, pointing at this server. */
void
sshd_host(struct sshd *s, struct config_host *h, const char *name,
    const char *group)
{
	memset(h, 0, sizeof(*h));
	h->name = (char *)name;
	h->address = "127.0.0.1";
	h->port = (unsigned)s->port;
	h->user = getuid() == 0 ? "root" : getenv("USER");
	h->identity = s->user_key;
	h->known_hosts = s->known_hosts;
	h->host_key = CONFIG_HOST_KEY_STRICT;
	h->group = (char *)(group != NULL ? group : "default");
	h->roles = CONFIG_ROLE_BUILD | CONFIG_ROLE_TEST;
	h->workdir = s->dir;
	h->connect_timeout_ms = 5000;
	h->keepalive_ms = 0;
	h->quarantine_after = 3;
}
