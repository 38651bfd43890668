#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <syslog.h>
#include <time.h>

#include "common/log.h"

static int log_foreground = 1;
static enum log_level log_threshold = LOG_LEVEL_INFO;
static const char *log_progname = "bisectd";

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

/* Chooses the destination once, before the daemon detaches from a terminal. */
void
log_init(const char *progname, int foreground, enum log_level level)
{
	log_progname = progname;
	log_foreground = foreground;
	log_threshold = level;
	if (!foreground)
		openlog(progname, LOG_PID | LOG_NDELAY, LOG_DAEMON);
}

/* Lets SIGHUP apply a new log_level without reopening anything. */
void
log_set_level(enum log_level level)
{
	log_threshold = level;
}

/*
 * One formatting path for every level, so all lines look alike.  errno is
 * saved and restored, so a caller may log between a failing call and the
 * code that reads its errno.
 */
static void
log_vwrite(enum log_level level, const char *errstr, const char *fmt,
    va_list ap)
{
	char msg[2048];
	char stamp[32];
	struct timespec ts;
	struct tm tm;
	int saved_errno = errno;

	if (level > log_threshold)
		return;
	vsnprintf(msg, sizeof(msg), fmt, ap);
	if (!log_foreground) {
		if (errstr != NULL)
			syslog(log_syslog_prio[level], "%s: %s", msg, errstr);
		else
			syslog(log_syslog_prio[level], "%s", msg);
		errno = saved_errno;
		return;
	}
	clock_gettime(CLOCK_REALTIME, &ts);
	gmtime_r(&ts.tv_sec, &tm);
	strftime(stamp, sizeof(stamp), "%Y-%m-%dT%H:%M:%SZ", &tm);
	if (errstr != NULL)
		fprintf(stderr, "%s %s[%s] %s: %s\n", stamp, log_progname,
		    name_of(log_level_words, level), msg, errstr);
	else
		fprintf(stderr, "%s %s[%s] %s\n", stamp, log_progname,
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
fatal(const char *fmt, ...)
{
	va_list ap;
	const char *e = strerror(errno);

	va_start(ap, fmt);
	log_vwrite(LOG_LEVEL_ERROR, e, fmt, ap);
	va_end(ap);
	exit(1);
}

void
fatalx(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	log_vwrite(LOG_LEVEL_ERROR, NULL, fmt, ap);
	va_end(ap);
	exit(1);
}
