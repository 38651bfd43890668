/* SPDX-License-Identifier: MIT */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <syslog.h>
#include <time.h>
#include <unistd.h>

#include "common/error.h"
#include "common/log.h"

static int log_foreground = 1;
static int log_journal;		/* stderr is journald's stream */
static enum log_level log_threshold = LOG_LEVEL_INFO;
static const char *log_progname = "bisectd";
static int log_forced;		/* a fatal line: written at any level */

const struct name_value log_level_words[] = {
	{ "error", LOG_LEVEL_ERROR },
	{ "warn", LOG_LEVEL_WARN },
	{ "info", LOG_LEVEL_INFO },
	{ "debug", LOG_LEVEL_DEBUG },
	{ NULL, 0 },
};

static const int log_syslog_prio[] = {
	[LOG_LEVEL_ERROR] = LOG_ERR,
	[LOG_LEVEL_WARN] = LOG_WARNING,
	[LOG_LEVEL_INFO] = LOG_INFO,
	[LOG_LEVEL_DEBUG] = LOG_DEBUG,
};

/* sd-daemon(3) priority prefixes: journald reads "<N>" as the level. */
static const char log_journal_prio[] = {
	[LOG_LEVEL_ERROR] = '3',
	[LOG_LEVEL_WARN] = '4',
	[LOG_LEVEL_INFO] = '6',
	[LOG_LEVEL_DEBUG] = '7',
};

/*
 * 1 when stderr is the stream systemd connected to the journal:
 * JOURNAL_STREAM holds its "DEVICE:INODE" (systemd.exec(5)), which a
 * redirected stderr no longer matches.
 */
int
log_journal_stream(void)
{
	const char *v = getenv("JOURNAL_STREAM");
	unsigned long long dev, ino;
	struct stat st;
	char tail;

	if (v == NULL || sscanf(v, "%llu:%llu%c", &dev, &ino, &tail) != 2 ||
	    fstat(STDERR_FILENO, &st) < 0)
		return 0;
	return (unsigned long long)st.st_dev == dev &&
	    (unsigned long long)st.st_ino == ino;
}

/* Chooses the destination once, before the daemon detaches from a terminal. */
void
log_init(const char *progname, int foreground, enum log_level level)
{
	log_progname = progname;
	log_foreground = foreground;
	log_threshold = level;
	log_journal = foreground && log_journal_stream();
	if (!foreground)
		openlog(progname, LOG_PID | LOG_NDELAY, LOG_DAEMON);
}

/* Lets SIGHUP apply a new log_level without reopening anything. */
void
log_set_level(enum log_level level)
{
	log_threshold = level;
}

/* Writes the escape of one byte into out (at least 5 bytes); its length. */
static size_t
log_escape_byte(char *out, unsigned char c)
{
	static const char named[][2] = { { '\n', 'n' }, { '\r', 'r' },
	    { '\t', 't' }, { '\\', '\\' } };
	size_t i;

	for (i = 0; i < sizeof(named) / sizeof(named[0]); i++)
		if (c == (unsigned char)named[i][0])
			return (size_t)snprintf(out, 5, "\\%c", named[i][1]);
	return (size_t)snprintf(out, 5, "\\x%02x", c);
}

/*
 * Copies src into dst (size bytes, always NUL-terminated) with control
 * characters and bytes that start no valid UTF-8 character escaped, because
 * text from test machines, labs and commit messages must neither forge a
 * log line with a newline nor drive the terminal of whoever reads the log.
 * A backslash is escaped too, so that "\n" in a line was a newline and a
 * message cannot pass off its own text as an escape.
 * An escape or character that does not fit is left out whole.
 */
static void
log_escape(char *dst, size_t size, const char *src)
{
	const unsigned char *p = (const unsigned char *)src;
	size_t left = strlen(src), o = 0, len, k;
	char unit[4 * 5];
	int n;

	while (left > 0) {
		n = bd_utf8_char(p, left);
		if (n > 0 && bd_utf8_control(p, (size_t)n) == 0 && *p != '\\') {
			memcpy(unit, p, (size_t)n);
			len = (size_t)n;
		} else {
			if (n <= 0)
				n = 1;
			for (k = 0, len = 0; k < (size_t)n; k++)
				len += log_escape_byte(unit + len, p[k]);
		}
		if (o + len >= size)
			break;
		memcpy(dst + o, unit, len);
		o += len;
		p += n;
		left -= (size_t)n;
	}
	dst[o] = '\0';
}

/*
 * One formatting path for every level, so all lines look alike.  errno is
 * saved and restored, so a caller may log between a failing call and the
 * code that reads its errno.  The message is cut at 2047 bytes before it
 * is escaped, so escapes (at most four bytes for one) are never cut.
 */
static void
log_vwrite(enum log_level level, const char *errstr, const char *fmt,
    va_list ap)
{
	char raw[2048], msg[4 * sizeof(raw)], err[4 * 128];
	char stamp[32];
	struct timespec ts;
	struct tm tm;
	int saved_errno = errno;

	if (level > log_threshold && !log_forced)
		return;
	vsnprintf(raw, sizeof(raw), fmt, ap);
	log_escape(msg, sizeof(msg), raw);
	if (errstr != NULL)
		log_escape(err, sizeof(err), errstr);
	if (!log_foreground) {
		if (errstr != NULL)
			syslog(log_syslog_prio[level], "%s: %s", msg, err);
		else
			syslog(log_syslog_prio[level], "%s", msg);
		errno = saved_errno;
		return;
	}
	/* The journal stamps and prioritises lines itself. */
	if (log_journal)
		snprintf(stamp, sizeof(stamp), "<%c>", log_journal_prio[level]);
	else {
		clock_gettime(CLOCK_REALTIME, &ts);
		gmtime_r(&ts.tv_sec, &tm);
		strftime(stamp, sizeof(stamp), "%Y-%m-%dT%H:%M:%SZ ", &tm);
	}
	if (errstr != NULL)
		fprintf(stderr, "%s%s[%s] %s: %s\n", stamp, log_progname,
		    name_of(log_level_words, level), msg, err);
	else
		fprintf(stderr, "%s%s[%s] %s\n", stamp, log_progname,
		    name_of(log_level_words, level), msg);
	fflush(stderr);
	errno = saved_errno;
}

void
log_warn(const char *fmt, ...)
{
	va_list ap;
	const char *e = strerror(errno);

	va_start(ap, fmt);
	log_vwrite(LOG_LEVEL_WARN, e, fmt, ap);
	va_end(ap);
}

void
log_warnx(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	log_vwrite(LOG_LEVEL_WARN, NULL, fmt, ap);
	va_end(ap);
}

void
log_info(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	log_vwrite(LOG_LEVEL_INFO, NULL, fmt, ap);
	va_end(ap);
}

void
log_debug(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	log_vwrite(LOG_LEVEL_DEBUG, NULL, fmt, ap);
	va_end(ap);
}

void
log_errx(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	log_vwrite(LOG_LEVEL_ERROR, NULL, fmt, ap);
	va_end(ap);
}

/*
 * Why the daemon cannot go on is always written, whatever log_level says:
 * an administrator must never find a daemon gone without a word.
 */
void
log_fatalx(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	log_forced = 1;
	log_vwrite(LOG_LEVEL_ERROR, NULL, fmt, ap);
	log_forced = 0;
	va_end(ap);
}

void
fatal(const char *fmt, ...)
{
	va_list ap;
	const char *e = strerror(errno);

	va_start(ap, fmt);
	log_forced = 1;
	log_vwrite(LOG_LEVEL_ERROR, e, fmt, ap);
	va_end(ap);
	exit(1);
}

void
fatalx(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	log_forced = 1;
	log_vwrite(LOG_LEVEL_ERROR, NULL, fmt, ap);
	va_end(ap);
	exit(1);
}
